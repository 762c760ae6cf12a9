"""The `euchre-table` command line: one subcommand per job, each registered by its module."""
from __future__ import annotations

import argparse
import importlib
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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
