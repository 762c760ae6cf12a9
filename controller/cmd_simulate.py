"""`euchre-table simulate`: a whole game at the virtual table, printed as it goes."""
from __future__ import annotations

import datetime
import json
import random
import sys
from pathlib import Path

from engine import Rules
from engine.rules import RulesError

LEVELS = ("easy", "medium", "hard", "insane")


def register(sub) -> None:
    p = sub.add_parser(
        "simulate", help="play a whole game at a virtual table",
        description="Play a whole game at a virtual table: computer players in every seat, "
                    "each card drawn into camera frames from real card art, read by the vision "
                    "pipeline, refereed from the event log; the screen goes to an animated GIF "
                    "and the announcements to WAV files.")
    p.add_argument("--seed", type=int, default=None, help="the same seed replays the same game")
    p.add_argument("--daily", action="store_true", help="play the day's deal (seed from the date)")
    p.add_argument("--rules", default="standard",
                   help="preset, optionally with options: standard, stick-the-dealer, "
                        "somerset-1888, openspiel, or e.g. 'standard,target=5'")
    p.add_argument("--seat", default="W", help="the Pi's seat (default W); several, like W,E: "
                                               "one reader reads each Pi seat's cards in turn")
    p.add_argument("--level", default="hard", choices=LEVELS, help="the Pi's level")
    p.add_argument("--people", default="medium", choices=LEVELS,
                   help="the level of the computer players standing in for the people")
    p.add_argument("--size", default="640x480", help="camera frame size, e.g. 1280x720")
    p.add_argument("--out", default=None, help="folder for the log, GIF, records and speech "
                                               "(default out/simulate-SEED)")
    p.add_argument("--engine-only", action="store_true",
                   help="no table: random legal play through the engine alone, printed")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    club = p.add_argument_group("club night (--club N)")
    club.add_argument("--club", type=int, metavar="N", default=None,
                      help="a whole club night: a local broker, the hall and N virtual tables")
    club.add_argument("--rounds", type=int, default=None, help="rounds in the night (default 3)")
    club.add_argument("--hands", type=int, default=None, help="hands per round (default 4)")
    club.add_argument("--broker", choices=["mosquitto", "nats"], default="mosquitto",
                      help="the broker to start on loopback (default mosquitto)")
    club.add_argument("--full-table", action="store_true",
                      help="table 1 is the full virtual table (every card read by the camera)")
    club.add_argument("--keep-open", action="store_true",
                      help="keep the hall page open after the night, until Ctrl-C")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.club is not None:
        return run_club(args)
    try:
        rules = Rules.parse(args.rules)
    except RulesError as exc:
        print(f"euchre-table simulate: {exc}", file=sys.stderr)
        return 2
    seats = [x.strip().upper() for x in args.seat.split(",") if x.strip()]
    if not seats or any(x not in "NESW" or len(x) != 1 for x in seats) or len(set(seats)) != len(seats) \
            or len(seats) > 3:
        print(f"euchre-table simulate: --seat {args.seat!r}: give one to three different seats "
              "of N, E, S, W, e.g. W or W,E", file=sys.stderr)
        return 2
    if args.daily:
        from controller.simulate import daily_seed
        seed = daily_seed(datetime.date.today())
    else:
        seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    if args.engine_only:
        from controller.engine_game import print_random_game
        return print_random_game(rules, seed, as_json=args.json)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"euchre-table simulate: --size {args.size[:40]!r}: write WIDTHxHEIGHT, e.g. "
              "1280x720", file=sys.stderr)
        return 2
    if not (320 <= w <= 4096 and 240 <= h <= 4096):
        # Smaller frames cannot show the mat's markers and a card's sticker big enough
        # to read; bigger ones are no camera's.
        print(f"euchre-table simulate: --size {w}x{h}: the camera frame must be from 320x240 "
              "to 4096x4096, e.g. 640x480 or 1280x720", file=sys.stderr)
        return 2
    if args.out is not None and not args.out.strip():
        print("euchre-table simulate: --out is empty: give a folder for the log, the GIF, the "
              "records and the speech", file=sys.stderr)
        return 2
    out = Path(args.out or f"out/simulate-{seed}")
    if out.exists() and not out.is_dir():
        print(f"euchre-table simulate: --out {out} is a file: give a folder for the log, the "
              "GIF, the records and the speech (it is made if missing)", file=sys.stderr)
        return 2
    from controller.simulate import simulate
    progress = (lambda text: None) if args.json else (lambda text: print(text, flush=True))
    if not args.json:
        print(f"Virtual table: rules {rules.name}, seed {seed}; the Pi plays "
              f"{args.seat} at {args.level}, the people are played at {args.people}.\n"
              f"Every card is drawn into {w}x{h} camera frames and read by the vision "
              "pipeline; only what the camera reads reaches the referee.\n", flush=True)
    summary = simulate(rules, seed, out, computer_seat=seats[0] if len(seats) == 1 else seats,
                       level=args.level,
                       people_level=args.people, size=(w, h), progress=progress)
    if args.json:
        print(json.dumps(summary))
        return 0 if summary["log_replays_identically"] else 1
    s = summary
    loser = "EW" if s["winner"] == "NS" else "NS"
    print(f"\n{s['winner']} win {s['score'][s['winner']]} to {s['score'][loser]} "
          f"after {s['hands']} hands ({s['wall_seconds']} s).")
    for t in ("NS", "EW"):
        print(f"  {t}: {s['contracts'][t]} contracts, {s['marches'][t]} marches, "
              f"{s['euchres'][t]} euchres")
    print(f"  lone hands: {s['lone_hands']}, revokes: {s['revokes']}")
    print(f"Secrecy: the Pi's cards were dealt face down through the reader window "
          f"({s['reader_frames']} reader frames); overhead frames showing one of them before "
          f"it was played: {s['computer_cards_face_up_overhead_before_played']}.")
    print(f"Vision: {s['frames']} frames, {s['cards_read']} cards read, "
          f"{s['cards_shown_again']} shown again, {s['entered_by_hand']} entered by hand; "
          f"median {s['vision_ms_median']} ms per table step (both cameras' frames read, "
          "the events logged and refereed, the screen drawn).")
    print(f"Referee: {s['refusals']} refusals; the log replays to the identical result: "
          f"{'yes' if s['log_replays_identically'] else 'NO'}.")
    speech = (f"{s['announcements']} announcements" +
              (f" (text only: {s['speech_fault']})" if s["speech_fault"] else " as WAV files"))
    print(f"Speech: {speech}.")
    print("Files:")
    for name, path in s["files"].items():
        print(f"  {name.replace('_', ' '):<18} {path}")
    return 0 if s["log_replays_identically"] else 1


def run_club(args) -> int:
    """`simulate --club N`: see controller.club_sim."""
    import logging
    import threading
    from controller.club_sim import print_summary, simulate_club
    from hall.broker import BrokerError
    from hall.service import HallError
    if not 1 <= args.club <= 40:
        print(f"euchre-table simulate: --club {args.club}: from 1 to 40 tables", file=sys.stderr)
        return 2
    rounds, hands = args.rounds or 3, args.hands or 4
    if not 1 <= rounds <= 50 or not 1 <= hands <= 24:
        print("euchre-table simulate: --rounds from 1 to 50, --hands from 1 to 24", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    out = Path(args.out or f"out/club-{seed}")
    keep = threading.Event() if args.keep_open else None
    say = (lambda text: None) if args.json else (lambda text: print(text, flush=True))
    try:
        summary = simulate_club(args.club, out, seed=seed, rounds=rounds, hands=hands,
                                broker_kind=args.broker, progress=say, keep_open=keep,
                                full_table=args.full_table)
    except (BrokerError, HallError, TimeoutError) as exc:
        print(f"euchre-table simulate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if args.json:
        print(json.dumps(summary, default=str))
    else:
        print_summary(summary)
    return 0 if summary["standings_equal_independent_fold"] else 1
