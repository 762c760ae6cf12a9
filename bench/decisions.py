"""Decision quality against the true deal: how many points each level's decisions give away, by kind of decision.

    python -m bench.decisions --level insane --level hard --hands 150 --seed 31 --json

Positions come from whole hands played by Hard (a fixed number of deals per decision, so
the same seed gives the same positions). At every decision with a choice, each level
named decides from its own view, and the decision is scored on the true deal:

- cards played: the points each legal card leads to when all four hands are known and
  played perfectly from there (the exact solver); the *regret* of a card is the best
  card's points minus its own;
- bids, discards, lone defences: each action tried on the true deal, the other seats
  bidding on by Medium's rules and the play solved exactly (as ``perfect`` bids).

A level that sees only its view cannot reach zero regret; the figures compare levels on
the same positions with far less noise than a match (every decision counts, not only
the points of whole hands), and show where a level gives points away.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from engine import Hand, Rules
from engine.bots import make_bot
from engine.bots.search import SearchBot, play_values
from engine.cards import SEATS


def kind_of(view) -> str:
    """The kind of a decision: lead, follow, void (cannot follow), round 1, round 2,
    discard, or defend/overcall."""
    if view.phase == "play":
        if not view.trick:
            return "lead"
        led = view.trick[0][1].suit_under(view.trump)
        if any(c.suit_under(view.trump) == led for c in view.cards):
            return "follow"
        return "void"
    return view.phase


def positions(hands: int, seed: int, rules: Rules, samples: int = 16) -> list:
    """(hand number, true hand at the decision, view) for every decision with a choice
    in ``hands`` hands played by Hard with ``samples`` deals a decision."""
    from bench.match import deal_for
    bots = {s: make_bot("hard", seed=seed * 5 + i, budget=None, samples=samples)
            for i, s in enumerate(SEATS)}
    out = []
    for k in range(hands):
        d = deal_for(rules, seed, k)
        h = Hand.deal(rules, dealer=d["dealer"], hands=d["hands"], upcard=d["upcard"], kitty=d["kitty"])
        while not h.is_over:
            view = h.view(h.to_act)
            if len(view.legal) > 1:
                out.append((k, h.copy(), view))
            h.apply(bots[h.to_act].choose(view))
    return out


def true_values(h, view, judge: SearchBot) -> dict:
    """Points (for the seat to act) of each legal action on the true deal."""
    legal = list(view.legal)
    if view.phase == "play":
        hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
        return play_values(view, hands, legal)
    my_team = SEATS.index(view.seat) & 1
    values = {}
    for a in legal:
        g = h.copy()
        g.apply(a)
        values[a] = judge._score_hand(view, judge._rollout(g), my_team)
    return values


def evaluate(levels, hands: int, seed: int, rules: Rules) -> dict:
    pos = positions(hands, seed, rules)
    judge = SearchBot(seed=0, samples=1, budget=None)
    truth = [true_values(h, v, judge) for _, h, v in pos]
    out = {"positions": len(pos), "hands": hands, "seed": seed, "rules": rules.name, "levels": {}}
    first = None
    for spec in levels:
        from bench.match import make_player
        bot = make_player(spec, seed + 1, rules, budget=None)
        by_kind, cpu = {}, []
        per_hand = [0.0] * hands
        for (k, h, view), values in zip(pos, truth):
            if hasattr(bot, "start_hand"):
                bot.start_hand(h)
            t0 = time.thread_time()
            a = bot.choose(view)
            cpu.append(time.thread_time() - t0)
            best = max(values.values())
            by_kind.setdefault(kind_of(view), []).append(best - values[a])
            per_hand[k] += best - values[a]
        every = [r for rs in by_kind.values() for r in rs]
        out["levels"][spec] = {
            "regret_per_decision": round(statistics.fmean(every), 4),
            "regret_per_hand": round(sum(every) / hands, 4),
            "by_kind": {k: {"decisions": len(v), "regret": round(statistics.fmean(v), 4),
                            "per_hand": round(sum(v) / hands, 4)} for k, v in sorted(by_kind.items())},
            "cpu_ms_median": round(1000 * statistics.median(cpu), 2),
            "cpu_ms_mean": round(1000 * statistics.fmean(cpu), 2),
        }
        if first is None:
            first = (spec, per_hand)
        elif hands > 1:
            # Paired over hands: this level's regret minus the first level's.
            d = [x - y for x, y in zip(per_hand, first[1])]
            mean = statistics.fmean(d)
            half = 1.96 * statistics.stdev(d) / hands ** 0.5
            out["levels"][spec]["minus_first"] = {
                "vs": first[0], "per_hand": round(mean, 4),
                "ci95": [round(mean - half, 4), round(mean + half, 4)]}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.decisions", description=__doc__.splitlines()[0])
    p.add_argument("--level", action="append", required=True,
                   help="a level to judge (as in bench.match; repeat for several)")
    p.add_argument("--hands", type=int, default=150, help="hands of positions (default 150)")
    p.add_argument("--seed", type=int, default=31, help="seed of the deals (default 31)")
    p.add_argument("--rules", default="standard", help="rules preset and options (default standard)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        from bench.match import parse_level
        for spec in args.level:
            parse_level(spec)
        if args.hands < 1:
            raise ValueError("--hands must be at least 1")
        rules = Rules.parse(args.rules)
    except ValueError as exc:
        print(f"bench.decisions: {exc}", file=sys.stderr)
        return 2
    r = evaluate(args.level, args.hands, args.seed, rules)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{r['positions']} decisions from {r['hands']} hands (seed {r['seed']}, {r['rules']})")
    for spec, s in r["levels"].items():
        kinds = ", ".join(f"{k} {v['per_hand']:.3f}" for k, v in s["by_kind"].items())
        line = (f"{spec}: {s['regret_per_hand']:.3f} points a hand given away ({kinds}); "
                f"CPU median {s['cpu_ms_median']:.1f} ms")
        if "minus_first" in s:
            m = s["minus_first"]
            line += f"; minus {m['vs']}: {m['per_hand']:+.3f} [{m['ci95'][0]:+.3f}, {m['ci95'][1]:+.3f}]"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
