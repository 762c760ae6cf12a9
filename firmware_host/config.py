"""`make_board(config)`: the one place that builds the board link the configuration asks for.

>>> make_board(None) is None
True
>>> make_board({"port": "/dev/serial/by-id/usb-x", "colour": "red"})
Traceback (most recent call last):
...
firmware_host.config.BoardConfigError: unknown board setting 'colour'; known settings: kind, port, baud, retry_timeout, max_retries, heartbeat_interval, heartbeat_timeout, identify_interval, handshake_timeout, reopen_interval, max_queue, send_timeout, corrupt, seed, reboot_on_replug
"""
from __future__ import annotations

from typing import Optional

from .link import BoardLink

LINK_SETTINGS = {
    "baud": int, "retry_timeout": float, "max_retries": int, "heartbeat_interval": float,
    "heartbeat_timeout": float, "identify_interval": float, "handshake_timeout": float,
    "reopen_interval": float, "max_queue": int, "send_timeout": float,
}
SIM_SETTINGS = {"corrupt": float, "seed": int, "reboot_on_replug": bool}
KINDS = ("serial", "simulated")


class BoardConfigError(ValueError):
    """A board configuration that cannot be used; the message says which setting and why."""


def check_config(config: dict) -> str:
    """Check a board configuration without building anything; returns its kind.

    Raises BoardConfigError naming the setting that is wrong and what would be right.
    """
    known = ["kind", "port", *LINK_SETTINGS, *SIM_SETTINGS]
    for key in config:
        if key not in known:
            raise BoardConfigError(f"unknown board setting {key!r}; known settings: {', '.join(known)}")
    kind = config.get("kind", "serial" if "port" in config else None)
    if kind not in KINDS:
        raise BoardConfigError(f"board kind {kind!r} unknown: use \"serial\" (with \"port\") or "
                               f"\"simulated\", or leave the board out of the configuration")
    if kind == "serial":
        port = config.get("port")
        if not isinstance(port, str) or not port:
            raise BoardConfigError("a serial board needs \"port\": the stable path of the board, "
                                   "e.g. /dev/serial/by-id/usb-...-if00 (see ls /dev/serial/by-id)")
        extra = [k for k in SIM_SETTINGS if k in config]
        if extra:
            raise BoardConfigError(f"{', '.join(extra)} only apply to \"kind\": \"simulated\"")
    for key, wanted in {**LINK_SETTINGS, **SIM_SETTINGS}.items():
        if key not in config:
            continue
        value = config[key]
        ok = isinstance(value, bool) if wanted is bool else (
            isinstance(value, (int, float)) and not isinstance(value, bool)
            and (wanted is float or isinstance(value, int)) and value >= 0)
        if not ok:
            raise BoardConfigError(f"board setting {key!r} must be a "
                                   f"{'true/false' if wanted is bool else 'non-negative ' + wanted.__name__}, "
                                   f"got {value!r}")
    if config.get("baud", 115200) <= 0:
        raise BoardConfigError("board setting 'baud' must be positive, e.g. 115200")
    return kind


def make_board(config: Optional[dict]) -> Optional[BoardLink]:
    """Build the board link described by `config`, not yet started (call ``.start()``).

    - ``None`` or ``{}``: no board, returns None.
    - ``{"port": "/dev/serial/by-id/...", "baud": 115200, ...}``: a real board.
    - ``{"kind": "simulated", "corrupt": 0.0, ...}``: a SimulatedBoard on a pty,
      started at once; the link's ``simulator`` attribute is the board, and closing
      the link stops it.

    Other keys tune the link (`LINK_SETTINGS`); unknown keys are refused.
    """
    if not config:
        return None
    if not isinstance(config, dict):
        raise BoardConfigError(f"the board configuration must be a table of settings, got {config!r}")
    kind = check_config(config)
    link_options = {k: config[k] for k in LINK_SETTINGS if k in config}
    if kind == "serial":
        return BoardLink(config["port"], **link_options)
    from .simboard import SimulatedBoard
    board = SimulatedBoard(**{k: config[k] for k in SIM_SETTINGS if k in config}).start()
    return SimulatedBoardLink(board, **link_options)


class SimulatedBoardLink(BoardLink):
    """A BoardLink to a SimulatedBoard it owns: `simulator` is the board, and closing the
    link also stops the board (a demo table without hardware)."""

    def __init__(self, simulator, **options):
        super().__init__(simulator.path, **options)
        self.simulator = simulator

    def close(self) -> None:
        super().close()
        self.simulator.stop()


_check = check_config  # the name controller.config imported first
