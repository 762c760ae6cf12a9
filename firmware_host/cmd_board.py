"""`euchre-table board-sim` and `board-monitor`: run a simulated board, or watch a board's link."""
from __future__ import annotations

import json
import logging
import os
import re
import sys
import time


def register(sub) -> None:
    """Add the board subcommands to the `euchre-table` command line."""
    p = sub.add_parser("board-sim", help="run a simulated table board on a pty",
                       description="Run a simulated board behind a stable symlink; type "
                                   "'press 3', 'scan JH', 'unplug', 'replug'... on stdin.")
    p.add_argument("--path", help="stable symlink to create (default: a temporary one)")
    p.add_argument("--corrupt", type=float, default=0.0, help="fraction of bytes to corrupt both ways")
    p.add_argument("--seed", type=int, help="random seed for the corruption")
    p.add_argument("--reboot-on-replug", action="store_true",
                   help="forget the session and queued events on replug, like a bus-powered board")
    p.set_defaults(func=run_sim)

    p = sub.add_parser("board-monitor", help="connect to the board and print its events",
                       description="Open the board's port, handshake, and print status changes "
                                   "and board events until interrupted.")
    p.add_argument("--port", required=True, help="the board's stable path, /dev/serial/by-id/...")
    p.add_argument("--baud", type=int, default=115200)
    p.add_argument("--seconds", type=float, default=None, help="stop after this long")
    p.add_argument("--beep", action="store_true", help="send a short beep once connected")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=run_monitor)


def _fail(command: str, text: str) -> int:
    print(f"euchre-table {command}: {text}", file=sys.stderr)
    return 2


def run_sim(args) -> int:
    from .simboard import main
    if not 0.0 <= args.corrupt < 1.0:   # also refuses nan
        return _fail("board-sim", f"--corrupt {args.corrupt}: a fraction of the bytes, from 0 "
                                  "to below 1 (e.g. 0.01 for one byte in a hundred)")
    if args.path and os.path.lexists(args.path) and not os.path.islink(args.path):
        return _fail("board-sim", f"--path {args.path} exists and is not a link: give a new path "
                                  "for the board's link (e.g. /tmp/euchre-board)")
    argv = ["--corrupt", str(args.corrupt)]
    if args.path:
        argv += ["--path", args.path]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    if args.reboot_on_replug:
        argv.append("--reboot-on-replug")
    return main(argv)


def _describe(message) -> dict:
    data = {"type": type(message).__name__}
    data.update({k: v for k, v in vars(message).items()})
    if data["type"] == "CardScanned":
        data["card"] = message.card
    return data


def run_monitor(args) -> int:
    from .link import BoardLink
    from .messages import Beep
    from .protocol import LinkError

    def out(record: dict) -> None:
        if isinstance(record.get("reason"), str):
            # pyserial's words carry the C library's "[Errno 2] ..."; people need the rest.
            record = dict(record, reason=re.sub(r"\[Errno \d+\] ", "", record["reason"]))
        if args.json:
            print(json.dumps(record, default=str), flush=True)
        else:
            print(" ".join(f"{k}={v}" for k, v in record.items()), flush=True)

    import math
    import stat
    if not args.port.strip():
        return _fail("board-monitor", "--port is empty: give the board's stable path, "
                                      "e.g. /dev/serial/by-id/usb-euchre-table_board-if00")
    if not 300 <= args.baud <= 4_000_000:
        return _fail("board-monitor", f"--baud {args.baud}: a serial speed such as 115200")
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds >= 0):
        return _fail("board-monitor", f"--seconds {args.seconds}: a number of seconds, 0 or more")
    try:
        mode = os.stat(args.port).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        return _fail("board-monitor", f"--port {args.port}: {exc.strerror}")
    if mode is not None and not stat.S_ISCHR(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode) \
            else "not a device"
        return _fail("board-monitor", f"--port {args.port} is {kind}, not a serial port: give "
                                      "the board's /dev/serial/by-id/... path")
    if mode is None:
        # A board that is not plugged in yet: the link keeps looking for it.
        print(f"waiting for {args.port} to appear (plug the board in; Ctrl-C to stop)",
              file=sys.stderr, flush=True)
    # Status changes are printed below; the link's own log lines would repeat them.
    logging.getLogger("firmware_host").setLevel(logging.ERROR)
    ever_connected = False
    link = BoardLink(args.port, baud=args.baud,
                     on_status=lambda s, r: out({"status": s, "reason": r}),
                     on_event=lambda e: out(_describe(e)))
    end = None if args.seconds is None else time.monotonic() + args.seconds
    with link:
        try:
            while end is None or time.monotonic() < end:
                if link.status == "incompatible":
                    return 3
                if link.connected and not ever_connected:
                    ever_connected = True
                    if args.beep:
                        try:
                            link.send(Beep(880, 80), timeout=2)
                        except LinkError as exc:
                            print(f"euchre-table board-monitor: {exc}", file=sys.stderr)
                time.sleep(0.05)
        except KeyboardInterrupt:
            pass
        counts = link.counters
    out({"counters": counts})
    return 0 if ever_connected else 1
