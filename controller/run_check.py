"""What `euchre-table run` needs beyond a well-formed configuration: files that load, pins that exist once, GPIO, a writable state folder.

``load_config`` checks the configuration's words; :func:`check_runnable` checks the table
it describes against this machine, so that ``run --check`` catches at set-up what would
otherwise stop the service at start (or, worse, restart it in a loop under systemd). The
service runs the same checks when it starts.

>>> from controller.config import check_config
>>> import tempfile
>>> cfg = check_config({"table": {"state_dir": tempfile.mkdtemp()},
...                     "panel": {"pins": {"pass": 5}}, "leds": {"seats": {"N": 5}}})
>>> [p for p in check_runnable(cfg, gpio=False) if "pin 5" in p]
['pin 5 is used twice: by the button pass in [panel] and by the LED of N in [leds]']
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from controller.config import TableConfig

# The 40-pin header of every Raspberry Pi since the B+: physical pin -> BCM number.
BOARD_TO_BCM = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23,
                18: 24, 19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5,
                31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}
I2C_PINS = (2, 3)              # SDA, SCL: the OLED's bus
I2C_DISPLAYS = ("ssd1306", "sh1106")

NO_GPIO = ("this machine has no GPIO that gpiozero can use (not a Raspberry Pi, or its pin "
           "library is missing). On a Pi: sudo apt-get install python3-lgpio. To try the "
           "table here with fake pins: GPIOZERO_PIN_FACTORY=mock, or `run --keys` (see "
           "examples/laptop.toml)")


def bcm_number(pin) -> Optional[int]:
    """The BCM number of a pin as the configuration gives it (``5``, ``"GPIO5"``,
    ``"BCM5"``, ``"BOARD29"``), or None when it names no GPIO of the header.

    >>> bcm_number(5), bcm_number("GPIO5"), bcm_number("BOARD29"), bcm_number(40)
    (5, 5, 5, None)
    """
    if isinstance(pin, bool):
        return None
    if isinstance(pin, int):
        return pin if 0 <= pin <= 27 else None
    m = re.fullmatch(r"\s*(GPIO|BCM|BOARD)?\s*(\d+)\s*", str(pin), re.IGNORECASE)
    if m is None:
        return None
    n = int(m.group(2))
    if (m.group(1) or "").upper() == "BOARD":
        return BOARD_TO_BCM.get(n)
    return n if 0 <= n <= 27 else None


def _pins(cfg: TableConfig) -> list:
    """``(where, pin as written)`` for every pin the panel and the LEDs use."""
    from hardware.inputs import check_leds_config, check_panel_config
    out = []
    if cfg.panel is not None:
        for name, pin in check_panel_config(cfg.panel)["pins"].items():
            out.append((f"the button {name} in [panel]", pin))
    if cfg.leds is not None:
        leds = check_leds_config(cfg.leds)
        for seat, pin in (leds["seats"] or {}).items():
            out.append((f"the LED of {seat} in [leds]", pin))
        for i, pin in enumerate(leds["rack"] or []):
            out.append((f"rack LED {i + 1} in [leds]", pin))
    return out


def gpio_available() -> bool:
    """Whether gpiozero finds a pin library here (GPIOZERO_PIN_FACTORY=mock counts)."""
    import warnings
    try:
        from gpiozero import Device
    except ImportError:
        return False
    if Device.pin_factory is not None:
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # gpiozero warns once per library it cannot load
        try:
            Device.pin_factory = Device._default_pin_factory()
        except Exception:  # BadPinFactory, or a library that fails in its own way
            return False
    return True


def _writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder``, tried for real (permissions say nothing
    to root, nor about read-only file systems); nothing is left behind."""
    import tempfile
    try:
        tempfile.TemporaryDirectory(dir=folder).cleanup()
    except OSError:
        return False
    return True


def _loads(what: str, path: Path, load) -> Optional[str]:
    if not path.exists():
        return None if what is None else f"{what} {path} does not exist"
    if path.is_dir():
        return f"{what} {path} is a folder, not a file"
    try:
        load(path)
    except Exception as exc:  # whatever the loader says, the file cannot be used
        text = str(exc)
        if isinstance(exc, RecursionError) or "pickle" in text or not text:
            text = "it is not a file this program wrote (damaged, or another kind of file)"
        return f"{what} {path} cannot be used: {text}"
    return None


def check_runnable(cfg: TableConfig, gpio: bool = True) -> list:
    """Every reason ``run`` would fail with this configuration on this machine, one
    line each (empty when it can run). ``gpio=False`` skips looking for a pin library."""
    problems = []
    # The state folder: the log, the zones, the deck live there.
    state = Path(cfg.state_dir)
    existing = state
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if state.exists() and not state.is_dir():
        problems.append(f"state_dir {state} is a file, not a folder")
    elif not _writable(existing):
        problems.append(f"state_dir {state} is not writable: the table keeps its log there "
                        "(make it writable for the table's user)")
    log_path = cfg.path(cfg.log)
    if log_path.is_dir():
        problems.append(f"log {log_path} is a folder: give a file name in [table] log")
    # Files the camera side loads.
    if cfg.vision.get("zones"):
        from vision.zones import Calibration
        zones = cfg.path(cfg.vision["zones"])
        if not zones.exists():
            problems.append(f"the zones file {zones} does not exist: photograph the empty mat "
                            "and run `euchre-table mat --calibrate IMAGE --out "
                            f"{zones}`")
        else:
            problems.append(_loads("the zones file", zones, Calibration.load))
    if cfg.vision["mode"] == "plain":
        from vision.recognize import load_plain_deck
        deck = cfg.path(cfg.vision["deck"])
        if not deck.exists():
            problems.append(f"the deck file {deck} does not exist: make it with "
                            f"`euchre-table calibrate deck --from-dir DIR --out {deck}`")
        else:
            problems.append(_loads("the deck file", deck, load_plain_deck))
    if cfg.camera is not None and cfg.camera.get("kind") in ("folder", "video"):
        rec = Path(str(cfg.camera.get("path", "")))
        if not rec.exists():
            problems.append(f"[camera] path {rec} does not exist")
    # Pins: real GPIO numbers, each used once, clear of the screen's I2C bus.
    seen: dict = {}
    i2c = cfg.display is not None and cfg.display.get("driver") in I2C_DISPLAYS
    for where, pin in _pins(cfg):
        n = bcm_number(pin)
        if n is None:
            problems.append(f"{where}: pin {pin!r} is not a GPIO of the Raspberry Pi's header "
                            "(BCM 0-27, e.g. 5 or \"GPIO5\", or \"BOARD29\")")
            continue
        if i2c and n in I2C_PINS:
            problems.append(f"{where}: pin {n} is the screen's I2C bus (SDA 2, SCL 3): "
                            "choose another pin")
        if n in seen:
            problems.append(f"pin {n} is used twice: by {seen[n]} and by {where}")
        else:
            seen[n] = where
    if gpio and (cfg.panel is not None or cfg.leds is not None) and not gpio_available():
        problems.append(NO_GPIO)
    return [p for p in problems if p]
