"""Random legal full hands per second through our engine and through OpenSpiel's, in one run.

Run: `make bench-engine` or `.venv/bin/python -m bench.engine_speed [--hands N] [--rounds R]`.
Prints the median over rounds of each engine's time per hand and the ratio (ours / theirs
in hands per second: above 1 means ours is faster).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from engine import Hand, Rules


def ours(n: int, rng: random.Random, rules: Rules) -> float:
    t = time.perf_counter()
    for _ in range(n):
        h = Hand.deal(rules, dealer="NESW"[rng.randrange(4)], rng=rng)
        while h.phase != "over":
            la = h.legal_actions()
            h.apply(la[rng.randrange(len(la))])
    return (time.perf_counter() - t) / n


def openspiel(n: int, rng: random.Random, game) -> float:
    t = time.perf_counter()
    for _ in range(n):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                la = s.legal_actions()
                s.apply_action(la[rng.randrange(len(la))])
    return (time.perf_counter() - t) / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=5000, help="hands per round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import pyspiel  # a dev dependency: installed by `make`
    game = pyspiel.load_game("euchre")
    rules = Rules.preset("openspiel")
    rng = random.Random(1)
    a, b = [], []
    for _ in range(args.rounds):  # interleaved, so that machine noise hits both alike
        a.append(ours(args.hands, rng, rules))
        b.append(openspiel(args.hands, rng, game))
    ma, mb = statistics.median(a), statistics.median(b)
    out = {"ours_ms_per_hand": round(ma * 1e3, 4), "openspiel_ms_per_hand": round(mb * 1e3, 4),
           "ours_hands_per_s": round(1 / ma), "openspiel_hands_per_s": round(1 / mb),
           "ratio_ours_over_openspiel": round(mb / ma, 3), "hands": args.hands,
           "rounds": args.rounds}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"ours:      {out['ours_ms_per_hand']:.4f} ms per random hand "
              f"({out['ours_hands_per_s']} hands/s)")
        print(f"OpenSpiel: {out['openspiel_ms_per_hand']:.4f} ms per random hand "
              f"({out['openspiel_hands_per_s']} hands/s, C++ through pyspiel)")
        print(f"ratio (our speed / OpenSpiel's): {out['ratio_ours_over_openspiel']:.2f}x  "
              f"[median of {args.rounds} rounds of {args.hands} hands]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
