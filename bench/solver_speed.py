"""Insane's fuel: solved deals per CPU-second, and what Insane's work budget costs in time on this machine.

    python -m bench.solver_speed --deals 400 --hands 20 --json

Two measures, in CPU time of this process (other jobs on the machine do not count):

- the solver alone: whole deals from the first lead (a suit ordered up, the dealer's
  discard made) solved exactly, as the bidding search solves them;
- Insane's decisions, at every decision with a choice in ``--hands`` hands played by
  Hard: the median and 95th-percentile CPU time, deals solved per decision and per
  CPU-second, how many decisions stopped on the work budget, and microseconds per unit
  of work (Insane's budget is counted in work units, ``solver.NODE_WORK`` per solver
  node plus fixed costs for drawing deals, replaying bids and playouts, so that the same
  budget plays the same way on any machine; this figure turns it into time here, e.g.
  on a Raspberry Pi).

``--scale 0.25`` gives Insane a quarter of its deals and work (``make_bot``'s scale);
``--samples 160`` with it keeps the full number of deals, so that only the work budget
is cut, as on a machine four times slower where most decisions end before the clock.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Optional

from engine import Hand, Rules
from engine.bots import DEFAULTS, make_bot
from engine.bots.search import _thresholds
from engine.bots.solver import Solver


def solver_speed(deals: int, seed: int, rules: Rules) -> dict:
    rng = random.Random(seed)
    positions = []
    for _ in range(deals):
        h = Hand.deal(rules, dealer="NESW"[rng.randrange(4)], rng=rng)
        h.apply("order")
        if h.phase == "discard":
            h.apply(h.legal_actions()[0])
        while h.phase != "play":
            h.apply("pass")
        positions.append(h)
    thresholds = _thresholds(rules, None, None)
    nodes = twos = work = 0
    t0 = time.process_time()
    for h in positions:
        s = Solver(h.trump, h.maker & 1, h.out)
        s.maker_tricks(list(h.hands), h.to_act_i, thresholds)
        nodes += s.nodes
        twos += s.twos
        work += s.work
    cpu = time.process_time() - t0
    return {"deals": deals, "deals_per_second": round(deals / cpu, 1),
            "nodes_per_deal": round(nodes / deals, 1), "twos_per_deal": round(twos / deals, 1),
            "work_per_deal": round(work / deals, 1), "us_per_work_unit": round(1e6 * cpu / work, 3)}


def insane_speed(hands: int, seed: int, rules: Rules, scale: float = 1.0,
                 samples: Optional[int] = None) -> dict:
    from bench.decisions import positions
    pos = positions(hands, seed, rules)
    bot = make_bot("insane", seed=seed, budget=None, scale=scale, samples=samples)
    cpu, work, solved, deals, limited = [], 0, 0, [], 0
    for _, _, view in pos:
        t0 = time.thread_time()
        bot.choose(view)
        cpu.append(time.thread_time() - t0)
        work += bot.spent
        solved += bot.last_samples
        deals.append(bot.last_samples)
        limited += bot.spent >= bot.work
    total = sum(cpu)
    return {"decisions": len(pos), "scale": scale, "samples": bot.samples,
            "work_budget": round(DEFAULTS["insane"]["work"] * scale),
            "deals_per_decision_median": statistics.median(deals),
            "deals_per_decision_mean": round(solved / len(pos), 1),
            "stopped_on_work": round(limited / len(pos), 3),
            "cpu_ms_median": round(1000 * statistics.median(cpu), 1),
            "cpu_ms_p95": round(1000 * sorted(cpu)[int(0.95 * len(cpu))], 1),
            "deals_solved_per_second": round(solved / total, 1),
            "us_per_work_unit": round(1e6 * total / work, 3),
            "budget_ms_here": round(DEFAULTS["insane"]["work"] * scale * total / work * 1000, 1)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.solver_speed", description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=400, help="whole deals for the solver (default 400)")
    p.add_argument("--hands", type=int, default=20, help="hands of Insane decisions (default 20)")
    p.add_argument("--seed", type=int, default=7, help="seed (default 7)")
    p.add_argument("--scale", type=float, default=1.0, help="Insane's budget scale (default 1)")
    p.add_argument("--samples", type=int, default=None,
                   help="Insane's most deals a decision (default: 160 times the scale)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.deals < 1 or args.hands < 1 or args.scale <= 0 or (args.samples is not None and args.samples < 1):
        print("bench.solver_speed: --deals, --hands and --samples must be at least 1, --scale above 0",
              file=sys.stderr)
        return 2
    rules = Rules.preset("standard")
    r = {"solver": solver_speed(args.deals, args.seed, rules),
         "insane": insane_speed(args.hands, args.seed, rules, args.scale, args.samples)}
    if args.json:
        print(json.dumps(r))
        return 0
    s, i = r["solver"], r["insane"]
    print(f"solver: {s['deals_per_second']:.0f} whole deals per CPU-second "
          f"({s['nodes_per_deal']:.0f} nodes and {s['twos_per_deal']:.0f} two-trick questions a deal, "
          f"{s['work_per_deal']:.0f} work units, {s['us_per_work_unit']:.2f} us a unit)")
    print(f"insane (scale {i['scale']}, at most {i['samples']} deals): median {i['cpu_ms_median']:.1f} ms, "
          f"p95 {i['cpu_ms_p95']:.1f} ms CPU over {i['decisions']} decisions; deals a decision median "
          f"{i['deals_per_decision_median']}, mean {i['deals_per_decision_mean']}; "
          f"{100 * i['stopped_on_work']:.0f}% stopped on work; {i['deals_solved_per_second']:.0f} deals solved "
          f"per CPU-second; {i['us_per_work_unit']:.2f} us a work unit, so its budget of "
          f"{i['work_budget']} units is about {i['budget_ms_here']:.0f} ms here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
