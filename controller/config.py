"""The table's configuration file (TOML): read, checked key by key, defaults filled in."""
from __future__ import annotations

import inspect
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from engine.cards import SEATS
from engine.rules import OPTION_NAMES, Rules, RulesError

LEVELS = ("easy", "medium", "hard", "insane")
SEAT_KINDS = ("person", "computer")
VISION_MODES = ("sticker", "plain")
DECODERS = ("zxing", "zbar")


class ConfigError(ValueError):
    """A configuration that cannot be used. The message names the file, the key and the
    problem, and says what would be right."""


@dataclass
class SeatConfig:
    kind: str = "person"
    name: str = ""
    level: str = "hard"


@dataclass
class TableConfig:
    """A checked configuration. Sections that belong to a device are kept as checked
    dictionaries and handed to that device's factory by the service."""

    name: str = "Euchre table"
    state_dir: str = "."
    log: str = "table-log.sqlite"
    first_dealer: str = "random"
    deal_scan: bool = False
    partner_at_least_hard: bool = True
    rules: Rules = field(default_factory=lambda: Rules.preset("standard"))
    seats: dict = field(default_factory=lambda: {s: SeatConfig(name=s) for s in SEATS})
    camera: Optional[dict] = None
    vision: dict = field(default_factory=lambda: {"mode": "sticker", "decoder": "zxing", "k": 3,
                                                  "m": 5, "zones": None, "deck": None})
    display: Optional[dict] = None
    panel: Optional[dict] = None
    leds: Optional[dict] = None
    speaker: Optional[dict] = None
    board: Optional[dict] = None
    reader: Optional[dict] = None
    """How the computer seats' cards are read in private (see READER_KINDS); None: not set."""
    club: Optional[object] = None       # controller.club.ClubConfig when [club] is given

    @property
    def computer_seats(self) -> list:
        return [s for s in SEATS if self.seats[s].kind == "computer"]

    def path(self, name: str) -> Path:
        """A file of the table's state, relative to ``state_dir`` unless absolute."""
        p = Path(name)
        return p if p.is_absolute() else Path(self.state_dir) / p


SECTIONS = ("table", "rules", "seats", "camera", "vision", "display", "panel", "leds", "speaker",
            "board", "reader", "club")
READER_KINDS = ("window", "scanner", "rack")
"""window: a second camera under a clear plate reads each card laid face down on it;
scanner: the board's card scanner; rack: the old face-up rack under the overhead camera
(practice games only: everyone sees the computer's cards)."""


def read_toml(path, error: Optional[type] = None, what: str = "the configuration file",
              example: str = "examples/table.toml") -> dict:
    """A TOML configuration file as a dict; ``error`` (ConfigError by default) says in one
    line what is wrong with it: missing, a folder, far too big, not UTF-8 text, not TOML,
    unreadable. The table's and the hall's files are read by this one function."""
    error = error or ConfigError
    path = Path(path)
    if path.is_dir():
        raise error(f"{path} is a folder: give {what} (a .toml file; see {example})")
    try:
        if path.stat().st_size > 1 << 20:
            raise error(f"{path}: {path.stat().st_size:,} bytes is far too big for a "
                        "configuration file: is it the right file?")
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: no such configuration file (see {example})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text file in UTF-8 (byte {exc.start} is not): save "
                    "the configuration as UTF-8 text, or check that it is the right file") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read: {exc.strerror or exc}") from None


def load_config(path) -> TableConfig:
    """Read and check a TOML configuration file.

    Raises ConfigError naming the file and key: unknown sections and keys are refused,
    not ignored, so that a misspelt key cannot silently fall back to a default."""
    data = read_toml(path)
    return check_config(data, source=str(path))


def check_config(data: dict, source: str = "config") -> TableConfig:
    """Check a configuration already read into a dict (see load_config)."""
    def fail(where, msg):
        raise ConfigError(f"{source}: [{where}] {msg}")

    for key in data:
        if key not in SECTIONS:
            raise ConfigError(f"{source}: unknown section [{key}]; sections are "
                              + ", ".join(f"[{s}]" for s in SECTIONS))
    cfg = TableConfig()

    table = _section(data, "table", fail)
    _known(table, ("name", "state_dir", "log", "first_dealer", "deal_scan",
                   "partner_at_least_hard"), "table", fail)
    for key in ("name", "state_dir", "log"):
        if key in table:
            setattr(cfg, key, _typed(table[key], str, "table", key, fail))
    if "first_dealer" in table:
        fd = table["first_dealer"]
        if fd != "random" and fd not in SEATS:
            fail("table", f"first_dealer = {fd!r}: use \"random\" or one of N, E, S, W")
        cfg.first_dealer = fd
    for key in ("deal_scan", "partner_at_least_hard"):
        if key in table:
            setattr(cfg, key, _typed(table[key], bool, "table", key, fail))

    rules = dict(_section(data, "rules", fail))
    preset = rules.pop("preset", "standard")
    for key in rules:
        if key not in OPTION_NAMES:
            fail("rules", f"unknown rule option {key!r}; options are preset, "
                 + ", ".join(sorted(OPTION_NAMES)))
    try:
        cfg.rules = Rules.preset(preset).replace(**rules) if rules else Rules.preset(preset)
    except RulesError as exc:
        fail("rules", str(exc))

    seats = _section(data, "seats", fail)
    for seat, spec in seats.items():
        if seat not in SEATS:
            fail("seats", f"unknown seat {seat!r}: seats are N, E, S, W ([seats.N] …)")
        if not isinstance(spec, dict):
            fail(f"seats.{seat}", "must be a table with kind, name and level")
        _known(spec, ("kind", "name", "level"), f"seats.{seat}", fail)
        sc = SeatConfig(name=seat)
        sc.kind = spec.get("kind", "person")
        if sc.kind not in SEAT_KINDS:
            fail(f"seats.{seat}", f"kind = {sc.kind!r}: use \"person\" or \"computer\"")
        sc.name = _typed(spec.get("name", seat), str, f"seats.{seat}", "name", fail)
        sc.level = spec.get("level", "hard")
        if sc.level not in LEVELS:
            fail(f"seats.{seat}", f"level = {sc.level!r}: use one of {', '.join(LEVELS)}")
        if "level" in spec and sc.kind != "computer":
            fail(f"seats.{seat}", "level applies only to a computer seat (kind = \"computer\")")
        cfg.seats[seat] = sc
    if "reader" in data:
        cfg.reader = _check_reader(_section(data, "reader", fail), data, fail)
    private = cfg.reader is not None and cfg.reader["kind"] in ("window", "scanner")
    if len(cfg.computer_seats) > 1 and not cfg.deal_scan and not private:
        # The reader reads each computer seat's cards in turn; the practice rack holds one.
        fail("seats", "several computer seats need the private reader ([reader] kind = "
             "\"window\" or \"scanner\"), which reads each seat's cards in turn; or set "
             "deal_scan = true in [table] to read every hand at the deal")

    vision = _section(data, "vision", fail)
    _known(vision, ("mode", "decoder", "k", "m", "zones", "deck"), "vision", fail)
    cfg.vision.update(vision)
    if cfg.vision["mode"] not in VISION_MODES:
        fail("vision", f"mode = {cfg.vision['mode']!r}: use \"sticker\" or \"plain\"")
    if cfg.vision["decoder"] not in DECODERS:
        fail("vision", f"decoder = {cfg.vision['decoder']!r}: use \"zxing\" or \"zbar\"")
    for key in ("k", "m"):
        v = cfg.vision[key]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 60:
            fail("vision", f"{key} = {v!r}: a number of frames from 1 to 60")
    if cfg.vision["mode"] == "plain" and not cfg.vision["deck"]:
        fail("vision", "mode = \"plain\" needs deck = \"FILE\" from `euchre-table calibrate deck`")

    if "camera" in data:
        cfg.camera = _check_camera(_section(data, "camera", fail), fail)
    for name, checker in (("display", _check_display), ("panel", _check_panel),
                          ("leds", _check_leds), ("speaker", _check_speaker),
                          ("board", _check_board)):
        if name in data:
            section = _section(data, name, fail)
            try:
                setattr(cfg, name, checker(section))
            except ValueError as exc:
                fail(name, str(exc))
    if "club" in data:
        from controller.club import ClubConfigError, check_club_config
        try:
            cfg.club = check_club_config(_section(data, "club", fail), has_camera=cfg.camera is not None)
        except ClubConfigError as exc:
            fail("club", str(exc))
        if cfg.club.entry == "panel" and cfg.panel is None:
            fail("club", "entry = \"panel\" keys each hand's result in on the bid panel: add a "
                 "[panel] section")
    return cfg


def _check_reader(section, data, fail) -> dict:
    """The [reader] section with defaults: kind, practice, the camera (window), how it reads
    (mode, decoder, deck: [vision]'s unless given), its window (fractions of the frame)
    and its tracker's k and m."""
    _known(section, ("kind", "practice", "camera", "mode", "decoder", "deck", "window", "k", "m",
                     "announce"), "reader", fail)
    vision = dict(data.get("vision") or {})
    r = {"kind": section.get("kind", "window"), "practice": section.get("practice", False),
         "camera": None, "mode": section.get("mode", vision.get("mode", "sticker")),
         "decoder": section.get("decoder", vision.get("decoder", "zxing")),
         "deck": section.get("deck", vision.get("deck")),
         "window": section.get("window", [0.0, 0.0, 1.0, 1.0]),
         "k": section.get("k", 3), "m": section.get("m", 5),
         "announce": section.get("announce", True)}
    if r["kind"] not in READER_KINDS:
        fail("reader", f"kind = {r['kind']!r}: use \"window\" (a camera under a clear plate), "
             "\"scanner\" (the board's card scanner) or \"rack\" (practice only)")
    for key in ("practice", "announce"):
        _typed(r[key], bool, "reader", key, fail)
    if r["kind"] == "rack" and not r["practice"]:
        fail("reader", "kind = \"rack\" lays the computer's cards face up under the overhead "
             "camera, where every player sees them: allowed only for practice games "
             "(practice = true); for a real game use kind = \"window\" or \"scanner\"")
    if r["kind"] == "window":
        if "camera" not in section:
            fail("reader", "kind = \"window\" needs [reader.camera]: the camera under the "
                 "plate, e.g. kind = \"v4l2\", device = 1, or kind = \"picamera\", "
                 "camera_num = 1")
        cam = section["camera"]
        if not isinstance(cam, dict):
            fail("reader.camera", "must be a table of settings (kind, device, ...)")
        r["camera"] = _check_camera(cam, lambda where, msg: fail("reader.camera", msg))
    elif "camera" in section:
        fail("reader", f"camera applies only to kind = \"window\", not {r['kind']!r}")
    if r["kind"] == "scanner" and not data.get("board"):
        fail("reader", "kind = \"scanner\" reads cards with the board's card scanner: "
             "add the [board] section (its port)")
    if r["mode"] not in VISION_MODES:
        fail("reader", f"mode = {r['mode']!r}: use \"sticker\" or \"plain\"")
    if r["decoder"] not in DECODERS:
        fail("reader", f"decoder = {r['decoder']!r}: use \"zxing\" or \"zbar\"")
    if r["kind"] == "window" and r["mode"] == "plain" and not r["deck"]:
        fail("reader", "mode = \"plain\" needs deck = \"FILE\" (calibrate the deck through "
             "the reader camera: `euchre-table calibrate deck --camera N`)")
    for key in ("k", "m"):
        v = r[key]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 60:
            fail("reader", f"{key} = {v!r}: a number of frames from 1 to 60")
    w = r["window"]
    if (not isinstance(w, (list, tuple)) or len(w) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in w)
            or not (0 <= w[0] < w[2] <= 1 and 0 <= w[1] < w[3] <= 1)):
        fail("reader", f"window = {w!r}: [left, top, right, bottom] as fractions of the "
             "reader camera's frame, e.g. [0.05, 0.05, 0.95, 0.95]")
    r["window"] = [float(v) for v in w]
    return r


def reader_problem(cfg: TableConfig) -> Optional[str]:
    """Why this table cannot keep the computer's cards secret, or None. A computer seat
    needs a private reader; the face-up rack is allowed only as a practice game's choice."""
    if not cfg.computer_seats:
        return None
    if cfg.reader is None:
        return ("[reader] is missing: a computer seat's cards must be read face down, by the "
                "reader window (kind = \"window\" with [reader.camera]) or the board's card "
                "scanner (kind = \"scanner\"); a practice game may use the face-up rack "
                "(kind = \"rack\", practice = true), where everyone sees the computer's cards")
    return None


def _section(data, name, fail) -> dict:
    value = data.get(name, {})
    if not isinstance(value, dict):
        fail(name, "must be a table of settings")
    return value


def _known(section, keys, where, fail):
    for key in section:
        if key not in keys:
            fail(where, f"unknown key {key!r}; keys here are {', '.join(keys)}")


def _typed(value, kind, where, key, fail):
    if kind is bool and not isinstance(value, bool):
        fail(where, f"{key} = {value!r}: write true or false")
    if kind is not bool and (isinstance(value, bool) or not isinstance(value, kind)):
        fail(where, f"{key} = {value!r}: should be a {kind.__name__}")
    return value


def _check_camera(section, fail) -> dict:
    from vision import sources
    kind = section.get("kind")
    classes = {"v4l2": sources.OpenCVCameraSource, "picamera": sources.PiCameraSource,
               "folder": sources.FolderSource, "video": sources.VideoFileSource,
               "synthetic": sources.SyntheticSource}
    if kind not in classes:
        fail("camera", f"kind = {kind!r}: use one of {', '.join(classes)}")
    # The source's own constructor says which settings it takes.
    # Test hooks (a fake capture factory, a fake picamera2 module) are not settings.
    hooks = {"self", "capture_factory", "module", "conditions"}
    allowed = {p for p in inspect.signature(classes[kind]).parameters if p not in hooks}
    for key in section:
        if key != "kind" and key not in allowed:
            fail("camera", f"unknown key {key!r} for kind = {kind!r}; keys are kind, "
                 + ", ".join(sorted(allowed)))
    return dict(section)


def _check_display(section):
    from hardware.display import check_display_config
    return check_display_config(section)


def _check_panel(section):
    from hardware.inputs import check_panel_config
    check_panel_config(section)
    return dict(section)


def _check_leds(section):
    from hardware.inputs import check_leds_config
    check_leds_config(section)
    return dict(section)


def _check_speaker(section):
    from hardware.speaker import check_speaker_config
    check_speaker_config(section)
    return dict(section)


def _check_board(section):
    from firmware_host.config import check_config
    if section:
        check_config(section)
    return dict(section)
