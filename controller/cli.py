"""The `euchre-table` command line: one subcommand per job, each registered by its module."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# Each module here has `register(subparsers)`, which adds its subcommands and sets
# `func` on them. Modules are imported lazily at start so that a missing optional
# library (OpenCV on a bare machine, say) only disables its own commands.
COMMAND_MODULES = [
    "controller.cmd_simulate",
    "controller.cmd_referee",
    "controller.cmd_run",
    "firmware_host.cmd_board",
    "vision.cli",
    "vision.cli_plain",
    "bench.cli_match",
    "hall.cli",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="euchre-table",
        description="Referee, scorekeeper and fourth player of a real-card Euchre table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # say what is missing instead of dying on import
            print(f"euchre-table: commands of {name} unavailable: {exc}", file=sys.stderr)
            continue
        module.register(sub)
    return parser


def _user_errors() -> tuple:
    """The exceptions that mean the input or the machine is wrong, not the program: each
    carries a message that says what and what to do, shown as one line."""
    from controller.config import ConfigError
    from controller.log import LogError
    from engine.rules import RulesError
    errors = [ConfigError, LogError, RulesError]
    for module, name in (("vision.sources", "CameraError"), ("vision.zones", "CalibrationError"),
                         ("vision.recognize", "RecognizeError")):
        try:
            errors.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):  # that part is not installed: nothing to catch
            pass
    return tuple(errors)


def _quiet_stdout() -> None:
    """The reader of our output has gone (``… | head``): send what is left nowhere, so
    that Python's own flush at exit does not complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _oneline(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= 600 else text[:597] + "..."


def main(argv=None) -> int:
    """Run one subcommand. A mistake in the input or the set-up ends in one line on
    stderr and exit 2; a program error in one line too (the traceback with
    ``EUCHRE_TABLE_DEBUG=1``), exit 70."""
    # OpenCV's own log lines ("[ERROR:0@0.4] global loadsave.cpp ... can't read
    # header") would come before the command's one line about an unreadable picture.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    name = "euchre-table " + " ".join(
        str(v) for v in (getattr(args, "command", None), getattr(args, "what", None)) if v)
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except _user_errors() as exc:
        print(f"{name}: {_oneline(exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"{name}: not enough memory for this input (is the file what it should be?)",
              file=sys.stderr)
        return 2
    except OSError as exc:
        # Files and devices: a missing file, a folder given for a file, no permission,
        # a full disk. The operating system's words, with the file named.
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"{name}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if os.environ.get("EUCHRE_TABLE_DEBUG"):
            raise
        if getattr(args, "command", None) == "run":
            # The service's journal keeps the whole story for whoever fixes it.
            import logging
            logging.getLogger("euchre-table").exception("internal error")
        print(f"{name}: internal error (a bug: please report it with the command you ran; "
              f"EUCHRE_TABLE_DEBUG=1 shows the details): {type(exc).__name__}: "
              f"{_oneline(exc)[:300]}", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
