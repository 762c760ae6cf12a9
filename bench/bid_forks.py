"""Where Insane's bids win and lose points: every bid it searched, tried on the true deal and played out.

    python -m bench.bid_forks --a insane --b hard --deals 200 --seed 1102 --out forks.json

Each deal is played twice (A in North-South, then in East-West) against B, from a score
of 0-0, with no clock (``--budget none`` in a match). At every bid decision of an A seat
that searched more than one bid, the record keeps the points the search predicted for
each bid (its race mean, and the two parts it blends: the exact solver's and the play
model's playouts') and then *forks*: each other bid searched is applied to a copy of the
hand, which the same players finish (the forks themselves are not forked). So every
decision has the points its own bid scored on the true deal and the points of every
alternative, with the same cards and players: far less noise than two separate matches,
and any rule that would change the decisions can be judged on these outcomes without
playing again (``policies``; the search's stopping would differ a little, so a rule
found this way is then checked on fresh deals).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Optional

from engine import Hand, Rules
from engine.bots.insane import InsaneBot, bid_correction
from engine.cards import SEATS
from engine.hand import Action

from bench.match import deal_for, level_type, make_player


def _points(h, seat: str) -> int:
    r = h.result
    mine = "NS" if seat in "NS" else "EW"
    theirs = "EW" if mine == "NS" else "NS"
    return r.points[mine] - r.points[theirs]


def _finish(h, players: dict):
    while not h.is_over:
        seat = h.to_act
        h.apply(players[seat].choose(h.view(seat)), seat=seat)
    return h


def play_deal(deal: dict, players: dict, rules: Rules, seats) -> list:
    """One table: the hand played to the end, with a record for each searched bid decision
    of the Insane players in ``seats``."""
    h = Hand.deal(rules, dealer=deal["dealer"], hands=deal["hands"], upcard=deal["upcard"],
                  kitty=deal["kitty"])
    h.score = (0, 0)
    records = []
    pending = []
    while not h.is_over:
        seat = h.to_act
        view = h.view(seat)
        p = players[seat]
        if seat in seats and isinstance(p, InsaneBot) and h.phase in ("round 1", "round 2") and len(view.legal) > 1:
            p.bid_parts = {}
            action = p.choose(view)
            race, parts = p.race, p.bid_parts
            p.bid_parts = None
            searched = [a for a in race.values if race.values[a]]
            if len(searched) > 1:
                rec = {"seat": seat, "phase": h.phase,
                       "rel": (SEATS.index(seat) - SEATS.index(view.dealer)) % 4,
                       "chosen": str(action), "mix": p.mix, "means": {}, "exact": {}, "playouts": {}, "outcome": {}}
                for a in searched:
                    rec["means"][str(a)] = race.mean(a)
                    rows = parts.get(a, [])
                    n = sum(c for c, _, _ in rows)
                    if n:
                        rec["exact"][str(a)] = sum(c * x for c, x, _ in rows) / n
                        rec["playouts"][str(a)] = sum(c * y for c, _, y in rows) / n
                    if a != action:
                        fork = h.copy()
                        fork.apply(a, seat=seat)
                        rec["outcome"][str(a)] = _points(_finish(fork, players), seat)
                records.append(rec)
                pending.append(rec)
        else:
            action = p.choose(view)
        h.apply(action, seat=seat)
    for rec in pending:
        rec["outcome"][rec["chosen"]] = _points(h, rec["seat"])
    return records


def run(a: str, b: str, seed: int, deals: int, start: int = 0, rules: Optional[Rules] = None,
        out: Optional[str] = None) -> dict:
    """Records of every deal ``start .. start+deals-1`` (both seatings) and their summary."""
    rules = rules or Rules.preset("standard")
    records: list = []
    t0 = time.process_time()
    result: dict = {}
    for k in range(start, start + deals):
        deal = deal_for(rules, seed, k)
        for a_team in (0, 1):
            players = {s: make_player(a if (i & 1) == a_team else b, seed * 31 + i + 4 * a_team,
                                      rules, budget=None)
                       for i, s in enumerate(SEATS)}
            seats = [s for i, s in enumerate(SEATS) if (i & 1) == a_team]
            if not isinstance(players[seats[0]], InsaneBot):
                raise ValueError(f"{a!r} is not Insane: only Insane's searched bids can be recorded")
            for rec in play_deal(deal, players, rules, seats):
                rec["deal"], rec["table"] = k, a_team
                records.append(rec)
        result = {"a": a, "b": b, "seed": seed, "start": start, "deals": k - start + 1,
                  "hands": 2 * (k - start + 1), "cpu_seconds": round(time.process_time() - t0, 1),
                  "summary": summarise(records, 2 * (k - start + 1)), "records": records}
        if out:
            with open(out, "w") as f:
                json.dump(result, f)
    return result


def _ci(xs: list) -> tuple:
    if len(xs) < 2:
        return (xs[0] if xs else 0.0), None
    return statistics.fmean(xs), 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def _kind(text: str) -> str:
    words = text.split()
    return words[0] + (" alone" if words[-1] == "alone" else "")


def choose(rec: dict, pickup_bonus: float = 0.0, assist_bonus: float = 0.0,
           alone_discount: float = 0.0, alone_mix: Optional[float] = None) -> str:
    """The bid the race means choose after the given corrections (as ``InsaneBot``'s
    options of the same names apply them: ``insane.bid_correction``). ``alone_mix`` (a
    question only, not an option of Insane): a lone bid judged with this weight on the
    exact part and the rest on the playouts, instead of the race's (the record's ``mix``)."""
    best, top = rec["chosen"], None
    for a, m in rec["means"].items():
        m += bid_correction(Action(a), rec["phase"], rec["rel"], pickup_bonus, assist_bonus, alone_discount)
        if alone_mix is not None and a.endswith("alone") and a in rec["exact"]:
            m += (alone_mix - rec["mix"]) * (rec["exact"][a] - rec["playouts"][a])
        if top is None or m > top + 1e-12:
            best, top = a, m
    return best


POLICIES = {"pickup_bonus": (0.1, 0.2, 0.3, 0.5), "assist_bonus": (0.1, 0.2, 0.3, 0.5),
            "alone_discount": (0.2, 0.4, 0.7), "alone_mix": (0.0, 0.25)}


def summarise(records: list, hands: int) -> dict:
    """Predicted against actual points: of the bid chosen (by kind), of ordering rather
    than passing in round 1 (by seat from the dealer), of going alone rather than not; how
    well the exact part, the playout part and blends of them predict the difference
    between two bids (``blend``); and the points per hand each correction in ``POLICIES``
    would have won or lost."""
    out: dict = {"decisions": len(records)}
    by_kind: dict = {}
    for r in records:
        by_kind.setdefault(f"{r['phase']} {_kind(r['chosen'])}", []).append(r)
    out["chosen"] = {}
    for k, rs in sorted(by_kind.items()):
        m, h = _ci([r["outcome"][r["chosen"]] - r["means"][r["chosen"]] for r in rs])
        out["chosen"][k] = {"n": len(rs), "predicted": round(statistics.fmean(r["means"][r["chosen"]] for r in rs), 3),
                            "actual": round(statistics.fmean(r["outcome"][r["chosen"]] for r in rs), 3),
                            "actual_minus_predicted": [round(m, 3), h and round(h, 3)]}
    pairs = {}
    for r in records:
        for x, y, label in (("order", "pass", f"round 1 order - pass, {_REL[r['rel']]}"),):
            if r["phase"] == "round 1" and x in r["outcome"] and y in r["outcome"]:
                pairs.setdefault(label, []).append((r, x, y))
        for x in r["outcome"]:
            if x.endswith("alone") and x[:-6] in r["outcome"]:
                pairs.setdefault("alone - the same bid not alone", []).append((r, x, x[:-6]))
    out["differences"] = {}
    for label, rows in sorted(pairs.items()):
        pred = [r["means"][x] - r["means"][y] for r, x, y in rows]
        m, h = _ci([r["outcome"][x] - r["outcome"][y] for r, x, y in rows])
        entry = {"n": len(rows), "predicted": round(statistics.fmean(pred), 3), "actual": [round(m, 3), h and round(h, 3)]}
        ex = [r["exact"][x] - r["exact"][y] for r, x, y in rows if x in r["exact"] and y in r["exact"]]
        po = [r["playouts"][x] - r["playouts"][y] for r, x, y in rows if x in r["playouts"] and y in r["playouts"]]
        if ex:
            entry["predicted_exact"], entry["predicted_playouts"] = round(statistics.fmean(ex), 3), round(statistics.fmean(po), 3)
        out["differences"][label] = entry
    # How well the two parts, and blends of them, predict the actual difference between
    # the bid chosen and each alternative: mean squared error by the exact part's weight.
    diffs = [(r["exact"][r["chosen"]] - r["exact"][a], r["playouts"][r["chosen"]] - r["playouts"][a],
              r["outcome"][r["chosen"]] - r["outcome"][a])
             for r in records for a in r["outcome"]
             if a != r["chosen"] and a in r["exact"] and r["chosen"] in r["exact"]]
    if diffs:
        blend = [(0.5 * x + 0.5 * y, z) for x, y, z in diffs]
        sxx = sum(b * b for b, _ in blend)
        out["blend"] = {"alternatives": len(diffs),
                        "slope_actual_on_half_blend": round(sum(b * z for b, z in blend) / sxx, 3) if sxx else None,
                        "mse_by_exact_weight": {str(w / 10): round(statistics.fmean(
                            (z - (w / 10 * x + (1 - w / 10) * y)) ** 2 for x, y, z in diffs), 3)
                            for w in range(11)}}
    out["policies"] = {}
    for name, values in POLICIES.items():
        for v in values:
            gains = []
            for r in records:
                a = choose(r, **{name: v})
                if a != r["chosen"] and a in r["outcome"]:
                    gains.append(r["outcome"][a] - r["outcome"][r["chosen"]])
            sd = statistics.stdev(gains) if len(gains) > 1 else 0.0
            out["policies"][f"{name}={v}"] = {
                "changed": len(gains), "points_per_hand": round(sum(gains) / hands, 4) if hands else 0.0,
                "ci95_half": round(1.96 * sd * math.sqrt(len(gains)) / hands, 4) if hands else 0.0}
    return out


_REL = ("dealer", "left", "partner", "right")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.bid_forks", description=__doc__.splitlines()[0])
    p.add_argument("--a", default="insane", type=level_type, help="Insane, with options (default insane)")
    p.add_argument("--b", default="hard", type=level_type, help="the other side's level (default hard)")
    p.add_argument("--deals", type=int, default=50, help="deals, each played at two tables (default 50)")
    p.add_argument("--start", type=int, default=0, help="first deal (default 0)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and bots (as in bench.match)")
    p.add_argument("--out", default=None, help="JSON file, rewritten after every deal")
    args = p.parse_args(argv)
    if args.deals < 1:
        print("bench.bid_forks: --deals must be at least 1", file=sys.stderr)
        return 2
    try:
        if args.out:
            open(args.out, "a").close()      # a file that cannot be written is said now, not after a deal
        result = run(args.a, args.b, args.seed, args.deals, args.start, out=args.out)
    except ValueError as exc:
        print(f"bench.bid_forks: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"bench.bid_forks: cannot write {args.out}: {exc.strerror or exc}; give --out a file in a "
              "writable folder", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in result.items() if k != "records"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
