"""`euchre-table run` (the real table), `stats` (statistics from the log) and `play` (a person in the terminal)."""
from __future__ import annotations

import json
import logging
import random
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("run", help="the table service (on the Raspberry Pi)",
                       description="Run the table: camera, referee, screen, buttons, speaker.")
    p.add_argument("--config", required=True, help="the TOML configuration (see examples/table.toml)")
    p.add_argument("--check", action="store_true", help="check the configuration and exit")
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
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    from controller.config import reader_problem
    problem = reader_problem(cfg) or _reader_files_problem(cfg)
    if problem:
        print(f"euchre-table run: {args.config}: {problem}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.config}: configuration is valid (rules {cfg.rules.name}, computer seats "
              f"{', '.join(cfg.computer_seats) or 'none'}{_reader_words(cfg)})")
        if cfg.reader is not None and cfg.reader["kind"] == "window" and cfg.reader["mode"] == "plain":
            # Measured by bench.vision_window: say it where the choice is made.
            print("note: plain cards through the reader window are misread about once in 100-200 "
                  "in the benchmark (docs/vision.md); stickers read there without a miss")
        return 0
    from controller.service import TableService, build_devices
    Path(cfg.state_dir).mkdir(parents=True, exist_ok=True)
    try:
        devices = build_devices(cfg)
    except ValueError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    from controller.secrecy import SealError
    try:
        service = TableService(cfg, **devices)
    except SealError as exc:
        print(f"euchre-table run: {exc}", file=sys.stderr)
        return 2
    return service.run()


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
    from controller.stats import compute_stats, format_stats
    from controller.stats_log import games_from_log
    names, levels, rules, path = {}, {}, None, args.log
    if args.config:
        from controller.config import load_config
        cfg = load_config(args.config)
        names = {s: c.name for s, c in cfg.seats.items()}
        levels = {s: c.level for s, c in cfg.seats.items() if c.kind == "computer"}
        rules = cfg.rules
        path = path or str(cfg.path(cfg.log))
    if not path:
        print("euchre-table stats: give --log FILE or --config FILE", file=sys.stderr)
        return 2
    games = games_from_log(path, rules=rules, names=names, levels=levels)
    result = compute_stats(games)
    if args.json:
        print(json.dumps({"players": {k: v.to_dict() for k, v in result["players"].items()},
                          "by_level": {lv: {k: v.to_dict() for k, v in t.items()}
                                       for lv, t in result["by_level"].items()}}))
    else:
        print(f"{len(games)} finished game(s) in {path}\n")
        print(format_stats(result))
    return 0


def play(args, input_fn=input, out=print) -> int:
    """A person plays one seat in the terminal; the others are computer players (the
    partner at least Hard). Type the number of an action, or h for a hint."""
    from engine import Game, Rules
    from engine.bots import make_bot
    from engine.cards import SEAT_NAMES, SUIT_SYMBOLS, partner
    rules = Rules.parse(args.rules)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    order = ["easy", "medium", "hard", "insane"]
    bots = {}
    for i, s in enumerate("NESW"):
        if s == args.seat:
            continue
        level = args.level
        if s == partner(args.seat):
            level = max(level, "insane" if level == "insane" else "hard", key=order.index)
        bots[s] = make_bot(level, seed=seed + i)
    adviser = make_bot("hard", seed=seed)
    game = Game(rules, first_dealer=random.Random(seed).choice("NESW"), seed=seed)
    sym = lambda c: c.rank + SUIT_SYMBOLS[c.suit]  # noqa: E731
    out(f"You are {SEAT_NAMES[args.seat]}; your partner is {SEAT_NAMES[partner(args.seat)]}. "
        f"Seed {seed}. Type a number, h for a hint, q to quit.")
    shown = 0
    while not game.is_over:
        hand = game.hand
        seat = hand.to_act
        view = hand.view(seat)
        if seat != args.seat:
            action = bots[seat].choose(view)
            game.apply(action)
            out(f"  {SEAT_NAMES[seat]}: {action}")
        else:
            up = f"up-card {sym(hand.upcard)}" if hand.phase in ("round 1", "round 2") else \
                f"trump {SUIT_SYMBOLS[hand.trump]}" if hand.trump else ""
            out(f"\nYour cards: {' '.join(sym(c) for c in view.cards)}   {up}   "
                f"score NS {game.score['NS']} EW {game.score['EW']}")
            if view.trick:
                out("Trick: " + "  ".join(f"{s}:{sym(c)}" for s, c in view.trick))
            legal = list(view.legal)
            out("  " + "   ".join(f"{i + 1}) {a}" for i, a in enumerate(legal)))
            while True:
                answer = input_fn("> ").strip().lower()
                if answer == "q":
                    return 0
                if answer == "h":
                    action, reason = adviser.advise(view)
                    out(f"Hint: {action}. {reason}")
                    continue
                if answer.isdigit() and 1 <= int(answer) <= len(legal):
                    game.apply(legal[int(answer) - 1])
                    out(f"  You: {legal[int(answer) - 1]}")
                    break
                out(f"Type 1 to {len(legal)}, h for a hint or q to quit")
        done = [h for h in game.hands if h.is_over]
        for h in done[shown:]:
            r = h.result
            shown += 1
            if r.thrown_in:
                out("All passed: the hand is thrown in.")
            else:
                out(f"Hand over: {r.makers} took {r.tricks[r.makers]} tricks"
                    f"{' (euchred)' if r.euchred else ''}; points {r.points}. "
                    f"Score NS {h.score[0] + r.points['NS']} EW {h.score[1] + r.points['EW']}")
    out(f"\nGame over: {game.winner} win, {game.score['NS']}-{game.score['EW']} (NS-EW).")
    return 0
