"""The `referee` subcommand: replay a table log and print each event's verdict, the final state, the hand records."""
from __future__ import annotations

import argparse
import json
import sys

from controller.log import LogDamaged, LogError, read_events
from engine.cards import parse_seat
from engine.records import record_text
from engine.referee import Referee
from engine.rules import Rules, RulesError


def register(subparsers) -> None:
    """Add ``referee EVENTS [--rules P] [--known SEATS] [--json | --explain] [--records] [--strict]``."""
    p = subparsers.add_parser(
        "referee", help="replay a table log: one verdict per event, then the final state",
        description="Replay a table's events (JSON lines, or the table's SQLite event log) "
                    "through the referee. --json prints one JSON verdict per event (seq, ok, "
                    "reason, and revoke when one is proven), then the final state with score. "
                    "The log is only read, never changed.")
    p.add_argument("events", help="EVENTS.jsonl (one JSON event per line) or the event log file")
    p.add_argument("--rules", default="standard",
                   help="rules preset and options, e.g. somerset-1888 or standard,target=5")
    p.add_argument("--known", default="",
                   help="seats whose cards are always dealt through the reader (computer "
                        "seats), e.g. E or N,E")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="JSON lines for programs")
    out.add_argument("--explain", action="store_true", help="text for people (the default)")
    p.add_argument("--records", action="store_true",
                   help="print the hand records instead of the verdicts")
    p.add_argument("--from-seq", type=int, default=1, metavar="N",
                   help="start printing at sequence number N (all events are still folded)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the referee refused any event (for scripts and CI)")
    p.set_defaults(func=run)

    r = subparsers.add_parser(
        "recover-log", help="save what can be read from a damaged table log into a new log",
        description="Read every event that can still be read from a damaged table log (SQLite "
                    "reads up to the damage; the page reader reads past it) and write them, "
                    "with their own sequence numbers and times, into a new log. The damaged "
                    "file is only read. The table service does the same by itself when it "
                    "starts on a damaged log.")
    r.add_argument("log", help="the damaged log (e.g. table-log.sqlite)")
    r.add_argument("--out", required=True, metavar="NEW",
                   help="the new log to write (must not exist yet)")
    r.set_defaults(func=recover)


def recover(args) -> int:
    """``recover-log LOG --out NEW``: exit 0 with what was saved, 2 when it cannot."""
    import os

    from controller.log import recover_log
    if os.path.isdir(args.log):
        print(f"euchre-table recover-log: {args.log} is a folder: give the log file",
              file=sys.stderr)
        return 2
    if not os.path.isfile(args.log):
        print(f"euchre-table recover-log: {args.log}: no such file", file=sys.stderr)
        return 2
    if os.path.lexists(args.out):
        print(f"euchre-table recover-log: {args.out} exists: give a new file for the "
              "recovered log (nothing is ever overwritten)", file=sys.stderr)
        return 2
    r = recover_log(args.log, out=args.out)
    print(f"{args.out}: {r.events} events saved (up to #{r.last_seq}; read by {r.method}). "
          f"{args.log} was not changed.")
    if r.problem:
        print(f"The damage: {r.problem}")
    return 0


def damaged_advice(exc: LogDamaged, path: str) -> str:
    """What to say about a damaged log: what is wrong, that nothing was changed, what to do."""
    return (f"{exc}. The log is damaged; it was only read, not changed. To save what can "
            f"still be read into a new log: euchre-table recover-log {path} --out NEW.sqlite "
            "(the table service does this by itself when it starts)")


def run(args) -> int:
    """Replay and print; exit 0, 1 under ``--strict`` when an event was refused, or 2 when
    the file or the options cannot be used."""
    def fail(text: str) -> int:
        print(f"euchre-table referee: {text}", file=sys.stderr)
        return 2

    try:
        rules = Rules.parse(args.rules)
    except RulesError as exc:
        return fail(f"--rules: {exc}")
    try:
        known = [parse_seat(s) for s in args.known.replace(",", " ").split()]
    except ValueError as exc:
        return fail(f"--known: {exc}")
    referee = Referee(rules, known_seats=known)
    out = sys.stdout
    events = refused = 0
    try:
        for seq, event in read_events(args.events):
            v = referee.feed(event, seq=seq)
            events += 1
            refused += not v.ok
            if args.records or seq < args.from_seq:
                continue
            # Writing can fail too (a closed pipe): that is not the log's fault, so it
            # is left to the command line's handler, outside this try.
            _write(out, json.dumps(v.to_dict(), ensure_ascii=False) if args.json
                   else v.explain())
    except LogDamaged as exc:
        return fail(damaged_advice(exc, args.events))
    except LogError as exc:
        return fail(str(exc))
    except OSError as exc:
        if isinstance(exc, _WriteError):
            raise exc.__cause__ from None
        return fail(f"cannot read {args.events}: {exc.strerror or exc}")
    summary = {"events": events, "refused": refused}
    if args.records:
        recs = referee.records()
        if args.json:
            for r in recs:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            out.write("\n\n".join(record_text(r) for r in recs) + "\n")
    else:
        state = dict(referee.state, final=True, **summary)
        if args.json:
            out.write(json.dumps(state, ensure_ascii=False) + "\n")
        else:
            s = state["score"]
            out.write(f"Final: NS {s['NS']}, EW {s['EW']} (game {state['game']}"
                      + (f", won by {state['winner']}" if state["winner"] else "")
                      + f"); {state['turn']}\n")
            out.write(f"{events} event{'s' if events != 1 else ''}, {refused} refused\n")
    out.flush()
    if args.strict and refused:
        print(f"euchre-table referee: {refused} of {events} events refused (--strict)",
              file=sys.stderr)
        return 1
    return 0


class _WriteError(OSError):
    """Our output failed (not the log): carried out of the reading loop."""


def _write(out, line: str) -> None:
    try:
        out.write(line + "\n")
    except OSError as exc:
        raise _WriteError(str(exc)) from exc


def main(argv=None) -> int:
    """Run only this subcommand (tests and scripts): ``main(["referee", "log.jsonl", "--json"])``."""
    parser = argparse.ArgumentParser(prog="euchre-table")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
