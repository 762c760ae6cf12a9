"""The `referee` subcommand: replay a table log and print each event's verdict, the final state, the hand records."""
from __future__ import annotations

import argparse
import json
import sys

from controller.log import LogError, read_events
from engine.cards import parse_seat
from engine.records import record_text
from engine.referee import Referee
from engine.rules import Rules, RulesError


def register(subparsers) -> None:
    """Add ``referee EVENTS [--rules P] [--known SEATS] [--json | --explain] [--records]``."""
    p = subparsers.add_parser(
        "referee", help="replay a table log: one verdict per event, then the final state",
        description="Replay a table's events (JSON lines, or the table's SQLite event log) "
                    "through the referee. --json prints one JSON verdict per event (seq, ok, "
                    "reason, and revoke when one is proven), then the final state with score.")
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
    p.set_defaults(func=run)


def run(args) -> int:
    """Replay and print; exit code 0, or 2 when the file or the options cannot be used."""
    try:
        rules = Rules.parse(args.rules)
    except RulesError as exc:
        print(f"euchre-table referee: {exc}", file=sys.stderr)
        return 2
    try:
        known = [parse_seat(s) for s in args.known.replace(",", " ").split()]
    except ValueError as exc:
        print(f"euchre-table referee: --known: {exc}", file=sys.stderr)
        return 2
    referee = Referee(rules, known_seats=known)
    out = sys.stdout
    try:
        for seq, event in read_events(args.events):
            v = referee.feed(event, seq=seq)
            if args.records or seq < args.from_seq:
                continue
            if args.json:
                out.write(json.dumps(v.to_dict(), ensure_ascii=False) + "\n")
            else:
                out.write(v.explain() + "\n")
    except (OSError, LogError) as exc:
        print(f"euchre-table referee: cannot read {args.events}: {exc}", file=sys.stderr)
        return 2
    if args.records:
        recs = referee.records()
        if args.json:
            for r in recs:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            out.write("\n\n".join(record_text(r) for r in recs) + "\n")
        return 0
    state = dict(referee.state, final=True)
    if args.json:
        out.write(json.dumps(state, ensure_ascii=False) + "\n")
    else:
        s = state["score"]
        out.write(f"Final: NS {s['NS']}, EW {s['EW']} (game {state['game']}"
                  + (f", won by {state['winner']}" if state["winner"] else "")
                  + f"); {state['turn']}\n")
    return 0


def main(argv=None) -> int:
    """Run only this subcommand (tests and scripts): ``main(["referee", "log.jsonl", "--json"])``."""
    parser = argparse.ArgumentParser(prog="euchre-table")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
