"""`euchre-table run` (the real table), `stats` (statistics from the log) and `play` (a person in the terminal)."""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("run", help="the table service (on the Raspberry Pi)",
                       description="Run the table: camera, referee, screen, buttons, speaker.")
    p.add_argument("--config", required=True, help="the TOML configuration (see examples/table.toml)")
    p.add_argument("--check", action="store_true",
                   help="check the configuration and what it needs on this machine, and exit")
    p.add_argument("--keys", action="store_true",
                   help="try the table without a Pi: type what happens at the table (it is "
                        "drawn for the camera), press the buttons by name (fake pins); "
                        "see examples/laptop.toml")
    p.set_defaults(func=run)

    s = sub.add_parser("stats", help="statistics per player and per difficulty, from the log")
    s.add_argument("--config", help="the table's configuration: names, levels, the log's place")
    s.add_argument("--log", help="the event log (SQLite or JSON lines); default from --config")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=stats)

    q = sub.add_parser("play", help="play one seat in the terminal against computer players")
    q.add_argument("--seat", default="S", choices=list("NESW"))
    q.add_argument("--level", default="hard", choices=["easy", "medium", "hard", "insane"])
    q.add_argument("--rules", default="standard")
    q.add_argument("--seed", type=int, default=None)
    q.set_defaults(func=play)


def run(args) -> int:
    from controller.config import ConfigError, load_config
    from controller.run_check import check_runnable
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    say = logging.getLogger("euchre-table")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    if args.keys:
        # gpiozero's fake pins: the typed button names press them.
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory
        Device.pin_factory = MockFactory()
    from controller.config import reader_problem
    problems = check_runnable(cfg)
    reader = reader_problem(cfg) or _reader_files_problem(cfg)
    if reader:
        problems.append(reader)
    for problem in problems:
        print(f"euchre-table run: {args.config}: {problem}", file=sys.stderr)
    if problems:
        return 2
    if args.check:
        print(f"{args.config}: the table can run (rules {cfg.rules.name}, computer seats "
              f"{', '.join(cfg.computer_seats) or 'none'}{_reader_words(cfg)}; log "
              f"{cfg.path(cfg.log)})")
        if cfg.reader is not None and cfg.reader["kind"] == "window" and cfg.reader["mode"] == "plain":
            # Measured by bench.vision_window: say it where the choice is made.
            print("note: plain cards through the reader window are misread about once in 100-200 "
                  "in the benchmark (docs/vision.md); stickers read there without a miss")
        for note in _held_notes(cfg):
            print(f"note: {note}")
        return 0
    from controller.service import TableService, build_devices
    Path(cfg.state_dir).mkdir(parents=True, exist_ok=True)
    try:
        devices = build_devices(cfg)
    except ValueError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if type(exc).__module__.startswith("gpiozero"):
            print(f"euchre-table run: GPIO: {exc}", file=sys.stderr)
            return 2
        raise
    if args.keys:
        from controller.keyboard_table import PrintedScreen
        devices["screen"] = PrintedScreen(devices.get("screen"))
        devices.pop("open_camera", None)
    from controller.secrecy import SealError
    try:
        service = TableService(cfg, **devices)
    except SealError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    if args.keys:
        from controller.keyboard_table import KeyboardTable
        table = KeyboardTable(service)
        service.camera, service.zones = table, table.calibration
        table.listen()
    st = service.ctl.referee.state
    replayed = service.log.last_seq
    where = (f"resumed at event {st['seq']}, hand {st['hand']}, score NS {st['score']['NS']} "
             f"EW {st['score']['EW']}: {st['turn']}" if service.ctl.resumed else "a new table")
    # One line for journalctl: what runs, from where, and where it stands.
    say.info("started: config %s, log %s (%d events replayed), rules %s; %s",
             args.config, service.log.path, replayed, cfg.rules.name, where)
    for note in _held_notes(cfg, {"vision": getattr(service, "deck", None),
                                  "reader": getattr(service, "reader_deck", None)}):
        say.warning(note)
    return service.run()


def _held_notes(cfg, loaded=None) -> list:
    """A line for each plain deck of the table that sets cards aside (its calibration
    could not tell them from another card): the table refuses those cards. ``loaded``:
    the decks already loaded (``{"vision": deck, "reader": deck}``), else they are read."""
    from vision.recognize import load_plain_deck
    loaded = loaded or {}
    decks = []
    if cfg.vision["mode"] == "plain":
        decks.append(("vision", "[vision] deck", cfg.vision["deck"]))
    if cfg.reader is not None and cfg.reader["kind"] == "window" and cfg.reader["mode"] == "plain":
        decks.append(("reader", "[reader] deck", cfg.reader["deck"]))
    notes = []
    for key, where, name in decks:
        deck = loaded.get(key) or load_plain_deck(cfg.path(name))
        held = deck.held
        if held:
            notes.append(f"{where} {name} sets aside {' '.join(map(str, held))} (its calibration could not "
                         "tell them from other cards): the table refuses them until you calibrate the deck again")
    return notes


def _reader_words(cfg) -> str:
    r = cfg.reader
    if r is None:
        return ""
    if r["kind"] == "window":
        cam = r["camera"]
        where = cam.get("device", cam.get("camera_num", cam.get("path", "")))
        return f"; reader: window camera {cam['kind']} {where}, {r['mode']} mode"
    if r["kind"] == "scanner":
        return "; reader: the board's card scanner"
    return "; reader: face-up rack (PRACTICE: everyone sees the computer's cards)"


def _reader_files_problem(cfg):
    """The reader's files must be usable before the table starts: the plain deck it reads
    against, and the state directory where the sealing key lives."""
    r = cfg.reader
    if r is not None and r["kind"] == "window" and r["mode"] == "plain":
        from vision.recognize import load_plain_deck
        try:
            load_plain_deck(cfg.path(r["deck"]))
        except Exception as exc:   # the deck loader's own error says what is wrong
            return (f"[reader] deck = {r['deck']!r} cannot be used ({exc}); calibrate it "
                    "through the reader camera: `euchre-table calibrate deck --camera N`")
    return None


def stats(args) -> int:
    from controller.config import ConfigError, load_config
    from controller.log import LogDamaged, LogError
    from controller.stats import compute_stats, format_stats
    from controller.stats_log import games_from_log

    def fail(text: str) -> int:
        print(f"euchre-table stats: {text}", file=sys.stderr)
        return 2

    names, levels, rules, path = {}, {}, None, args.log
    if args.config:
        try:
            cfg = load_config(args.config)
        except ConfigError as exc:
            return fail(str(exc))
        names = {s: c.name for s, c in cfg.seats.items()}
        levels = {s: c.level for s, c in cfg.seats.items() if c.kind == "computer"}
        rules = cfg.rules
        path = path or str(cfg.path(cfg.log))
    if not path:
        return fail("give --log FILE or --config FILE")
    try:
        games = games_from_log(path, rules=rules, names=names, levels=levels)
    except LogDamaged as exc:
        from controller.cmd_referee import damaged_advice
        return fail(damaged_advice(exc, path))
    except LogError as exc:
        return fail(str(exc))
    result = compute_stats(games)
    if args.json:
        print(json.dumps({"players": {k: v.to_dict() for k, v in result["players"].items()},
                          "by_level": {lv: {k: v.to_dict() for k, v in t.items()}
                                       for lv, t in result["by_level"].items()}}))
    else:
        print(f"{len(games)} finished game{'s' if len(games) != 1 else ''} in {path}\n")
        print(format_stats(result))
    return 0


def play(args, input_fn=input, out=print) -> int:
    """A person plays one seat in the terminal (see :mod:`controller.play`)."""
    from controller.play import play as play_game
    from engine.rules import RulesError
    try:
        return play_game(args, input_fn=input_fn, out=out)
    except RulesError as exc:
        print(f"euchre-table play: --rules: {exc}", file=sys.stderr)
        return 2
