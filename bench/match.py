"""Duplicate-deal matches between two computer levels: points per hand with a 95% CI, game wins, rates, decision times.

Each deal is played twice with the same cards: once with A in North-South and B in
East-West, once with the seats swapped. Luck of the cards cancels, so the per-pair
difference measures skill. Each of the two tables also keeps a running game score to
the rules' target (a new game starts when one ends), which gives the win rate in games
and lets the bots see the score as they would at a real table.

    euchre-table match --a hard --b medium --pairs 200 --seed 1 --json
    python -m bench.match --a insane --b ismcts --rules openspiel --pairs 500 --jobs 2

Levels: easy, medium, hard, insane, random, and the peers of ``bench.peers``: ismcts
(OpenSpiel's C++ ISMCTS, 1,000 simulations), euchre-cli (euchre-cli 0.7.0's computer) and
perfect (sees every card: a reference for the benchmark, never a player at a table);
and legacy-insane, Insane as it was before it read the play (bids only), as a yardstick.
A level may carry options after colons: ``insane:scale=0.25`` (a quarter of Insane's
budget and deals), ``hard:samples=24``, ``ismcts:sims=10000``; and ``BID/PLAY`` bids like
one level and plays the cards like another (``perfect/hard``: Hard's play with bids
that see every card), which splits a level's strength into bidding and play.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from typing import Optional

from engine import Hand, Rules
from engine.bots import LEVELS, make_bot
from engine.cards import SEATS, cards_of

PEERS = ("ismcts", "euchre-cli", "perfect")
LEGACY = ("legacy-insane",)
ALL_LEVELS = LEVELS + ("random",) + PEERS + LEGACY
_OPTIONS = {"scale": float, "samples": int, "sims": int,
            # Insane's search settings, for tuning (engine.bots.insane.InsaneBot)
            "work": int, "candidates": int, "batch": int, "play_weight": float,
            "bid_weight": float, "z": float, "least": int, "stochastic": int,
            "trick_policy": int, "rollouts": int, "mix": float, "play_rollouts": int,
            "bid_scale": float, "alone_discount": float, "pickup_bonus": float,
            "assist_bonus": float}
_INSANE_OPTIONS = ("work", "candidates", "batch", "play_weight", "bid_weight", "z", "least",
                   "stochastic", "trick_policy", "rollouts", "mix", "play_rollouts", "bid_scale",
                   "alone_discount", "pickup_bonus", "assist_bonus")
# Peers that play only under OpenSpiel's rules.
OPENSPIEL_PEERS = ("ismcts", "euchre-cli")


def _parse_one(spec: str):
    name, *opts = spec.strip().lower().split(":")
    if name not in ALL_LEVELS:
        raise ValueError(f"Unknown level {name!r}: choose one of {', '.join(ALL_LEVELS)}")
    options = {}
    for o in opts:
        key, eq, value = o.partition("=")
        if not eq or key not in _OPTIONS:
            raise ValueError(f"Unknown level option {o!r} in {spec!r}: use "
                             "scale=F, samples=N (hard, insane) or sims=N (ismcts)")
        try:
            options[key] = _OPTIONS[key](value)
        except ValueError:
            raise ValueError(f"{key} in {spec!r} must be a number, not {value!r}") from None
        if options[key] < 0 or (options[key] == 0 and key not in ("play_weight", "bid_weight", "stochastic", "trick_policy", "rollouts", "mix",
                                                  "play_rollouts", "alone_discount", "pickup_bonus",
                                                  "assist_bonus")):
            raise ValueError(f"{key} in {spec!r} must be above 0")
        if key in _INSANE_OPTIONS and name != "insane":
            raise ValueError(f"{key} is an option of insane only, not of {name!r}")
    return name, options


def parse_level(spec: str) -> list:
    """``[(name, options), ...]``: one entry, or two for ``BID/PLAY``. Raises ValueError
    with a reason for anything unknown.

    >>> parse_level("insane:scale=0.25")
    [('insane', {'scale': 0.25})]
    >>> [name for name, _ in parse_level("perfect/hard")]
    ['perfect', 'hard']
    """
    parts = spec.split("/")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        raise ValueError(f"{spec!r} is not a level: use LEVEL or BID/PLAY, e.g. perfect/hard")
    return [_parse_one(p) for p in parts]


def level_names(spec: str) -> set:
    return {name for name, _ in parse_level(spec)}


def _make_one(name, options, seed, rules, budget, samples):
    if name == "legacy-insane":
        # Insane before it read the play: Hard's search with 160 deals, each chosen among
        # 4 candidates by how well it explains the bids (the yardstick for its speed).
        from engine.bots.search import SearchBot
        scale = options.get("scale", 1.0)
        return SearchBot(seed=seed, samples=options.get("samples", samples or max(1, round(160 * scale))),
                         budget=0.25 * scale if budget is ... else budget, weighted=True,
                         candidates=4, level="legacy-insane")
    if name in PEERS:
        from bench import peers
        return peers.make_peer(name, seed=seed, rules=rules, simulations=options.get("sims", 1000))
    bot = make_bot(name, seed=seed, budget=budget, samples=options.get("samples", samples),
                   scale=options.get("scale", 1.0))
    for key in _INSANE_OPTIONS:
        if key in options:
            setattr(bot, key, options[key])
    return bot


def make_player(level: str, seed: int, rules: Rules, budget=..., samples=None):
    """A player for the match: one of our bots, a peer adapter, or a bidding/play hybrid."""
    parts = [_make_one(n, o, seed, rules, budget, samples) for n, o in parse_level(level)]
    if len(parts) == 2:
        from bench.peers import Hybrid
        return Hybrid(*parts)
    return parts[0]


def level_type(spec: str) -> str:
    """argparse type for a level: the spec itself, checked."""
    try:
        parse_level(spec)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return spec


def deal_for(rules: Rules, seed: int, k: int) -> dict:
    """Deal ``k`` of a match: the dealer rotates, the cards come from the seed."""
    dealer = SEATS[k % 4]
    h = Hand.deal(rules, dealer=dealer, rng=random.Random(seed * 1_000_003 + k))
    return {"dealer": dealer, "hands": {s: cards_of(h.initial[i]) for i, s in enumerate(SEATS)},
            "upcard": h.upcard, "kitty": list(h.kitty)}


class Table:
    """One table of the match: four players, a running game score."""

    def __init__(self, rules: Rules, players: dict, a_team: int):
        self.rules = rules
        self.players = players          # seat -> player
        self.a_team = a_team            # 0: A sits N-S, 1: A sits E-W
        self.score = [0, 0]
        self.games = []                 # 1 when A won the game, 0 when B did

    def play(self, deal: dict, times: dict, levels: dict) -> "Hand":
        h = Hand.deal(self.rules, dealer=deal["dealer"], hands=deal["hands"], upcard=deal["upcard"],
                      kitty=deal["kitty"])
        h.score = tuple(self.score)
        for p in set(self.players.values()):
            if hasattr(p, "start_hand"):
                p.start_hand(h)
        while not h.is_over:
            seat = h.to_act
            player = self.players[seat]
            view = h.view(seat)
            # CPU time of this thread: other jobs on a shared machine do not inflate it.
            t0 = time.thread_time()
            action = player.choose(view)
            dt = time.thread_time() - t0
            if len(view.legal) > 1:
                times.setdefault(levels[seat], []).append(dt)
            phase = h.phase
            h.apply(action, seat=seat)
            for p in set(self.players.values()):
                if hasattr(p, "observe"):
                    p.observe(seat, action, phase, h)
        r = h.result
        for team, i in (("NS", 0), ("EW", 1)):
            self.score[i] += r.points[team]
        if max(self.score) >= self.rules.target:
            winner = 0 if self.score[0] >= self.rules.target else 1
            self.games.append(1 if winner == self.a_team else 0)
            self.score = [0, 0]
        return h


def _side_stats(hands_and_team):
    made = euchred = march = alone = hands = 0
    for h, team in hands_and_team:
        hands += 1
        r = h.result
        if r.thrown_in or r.makers != team:
            continue
        made += 1
        euchred += r.euchred
        march += r.march
        alone += r.alone is not None
    # "called": hands this side named trump (made trump), whatever came of it; the
    # contracts it made are called - euchred.
    return {"hands": hands, "maker_rate": made / hands if hands else 0.0,
            "euchred_rate": euchred / made if made else 0.0,
            "march_rate": march / made if made else 0.0,
            "alone_rate": alone / made if made else 0.0,
            "called": made, "euchred": euchred, "marches": march, "alone": alone}


def run_pairs(a: str, b: str, rules: Rules, seed: int, start: int, count: int,
              budget=..., samples=None) -> dict:
    """Play pairs ``start .. start+count-1``; raw results for ``summarise``."""
    tables = []
    for a_team in (0, 1):
        players, levels = {}, {}
        for i, s in enumerate(SEATS):
            lv = a if (i & 1) == a_team else b
            players[s] = make_player(lv, seed * 31 + i + 4 * a_team, rules, budget, samples)
            levels[s] = lv
        tables.append((Table(rules, players, a_team), levels))
    diffs, same, first, sides, a_hands, b_hands, times = [], [], [], [], [], [], {}
    for k in range(start, start + count):
        deal = deal_for(rules, seed, k)
        pair, contracts, bid_lists = [], [], []
        for table, levels in tables:
            h = table.play(deal, times, levels)
            a_name = "NS" if table.a_team == 0 else "EW"
            b_name = "EW" if a_name == "NS" else "NS"
            pair.append(h.result.points[a_name] - h.result.points[b_name])
            a_hands.append((h, a_name))
            b_hands.append((h, b_name))
            contracts.append(_contract(h.result))
            bid_lists.append((h.dealer, [(q, str(a)) for q, a in h._bids]))
        diffs.append(sum(pair) / 2)
        same.append(_difference(*contracts))
        sides.append(side_difference(*contracts))
        first.append(first_bid_difference(*bid_lists))
    games = tables[0][0].games + tables[1][0].games
    return {"diffs": diffs, "same": same, "first": first, "sides": sides, "games": games, "times": times,
            "a_stats": [(h.result, t) for h, t in a_hands],
            "b_stats": [(h.result, t) for h, t in b_hands]}


_REL = ("left", "partner", "right", "dealer")


def first_bid_difference(t1, t2) -> Optional[str]:
    """The first bid on which the two tables of a pair parted (the same cards, one side's
    level deciding at one table and the other's at the other), as "round 1 left",
    "round 2 dealer", "alone round 1 partner", "defend", ...: the seat named from the
    dealer (left of the dealer, the dealer's partner, right, dealer). None when the
    bidding was the same at both tables. ``t1``, ``t2``: (dealer index, [(seat index,
    action text), ...])."""
    (dealer, b1), (_, b2) = t1, t2
    for i, (x, y) in enumerate(itertools.zip_longest(b1, b2)):
        if x == y:
            continue
        q = (x or y)[0]
        rel = _REL[(q - dealer - 1) % 4]
        texts = [t[1] for t in (x, y) if t is not None]
        lone = len(texts) == 2 and texts[0].replace(" alone", "") == texts[1].replace(" alone", "")
        if any(t.startswith(("defend", "take", "overcall")) for t in texts):
            return "defend or overcall"
        rnd = "round 1" if i < 4 and all(t.startswith(("order", "pass")) for t in texts) else "round 2"
        return f"{'alone ' if lone else ''}{rnd} {rel}"
    return None


def _difference(c1, c2) -> str:
    """How the two tables' contracts differ: "same", "thrown in" (at one table only),
    "maker" (the other side made trump), "alone" (same side and trump, lone or not),
    "trump" (same side, another suit or maker)."""
    if c1 == c2:
        return "same"
    if c1 is None or c2 is None:
        return "thrown in"
    side1, side2 = "NS".find(c1[0]) >= 0, "NS".find(c2[0]) >= 0
    if side1 != side2:
        return "maker"
    if c1[1] == c2[1] and c1[0] == c2[0]:
        return "alone"
    return "trump"


def side_difference(c1, c2) -> Optional[str]:
    """Which side the parting favoured in bidding, for the kinds where that is clear:
    "a named trump at both tables" / "b named ..." (the maker's side differs between the
    tables, so one level named trump with both hands and the other with neither), "a alone,
    b not" / "b alone, a not" (the same maker and trump, a lone hand at one table only).
    ``c1``: the contract where A sits North-South, ``c2`` where A sits East-West.

    >>> side_difference(("N", "H", "N", None), ("N", "H", None, None))
    'a alone, b not'
    >>> side_difference(("E", "S", None, None), ("N", "H", None, None))
    'b named trump at both tables'
    """
    kind = _difference(c1, c2)
    if kind == "maker":
        return ("a" if c1[0] in "NS" else "b") + " named trump at both tables"
    if kind == "alone" and (c1[2] is None) != (c2[2] is None):
        a_team = "NS" if c1[2] is not None else "EW"     # A's seats at the lone table
        return "a alone, b not" if c1[0] in a_team else "b alone, a not"
    return None


def _contract(result):
    """What the bidding settled, by seat (the same cards sit in the same seat at both
    tables): maker, trump, lone maker, lone defender; None for a hand thrown in."""
    if result.thrown_in:
        return None
    return (result.maker, result.trump, result.alone, result.defender_alone)


class _R:
    """A finished hand's result wrapped like a hand, for the rate counts."""

    def __init__(self, result):
        self.result = result


def summarise(a: str, b: str, rules: Rules, seed: int, parts: list, seconds: float,
              keep_pairs: bool = False) -> dict:
    """One JSON-able summary of a match from the results of ``run_pairs``."""
    diffs = [d for p in parts for d in p["diffs"]]
    games = [g for p in parts for g in p["games"]]
    times = {}
    for p in parts:
        for lv, ts in p["times"].items():
            times.setdefault(lv, []).extend(ts)
    same = [x for p in parts for x in p.get("same", [])]
    n = len(diffs)
    mean = statistics.fmean(diffs) if n else 0.0
    split = {}
    if len(same) == n and n:
        # Each kind of pair's share of the mean: its points divided by all pairs.
        for key, kinds in (("same_contract", ("same",)),
                           ("other_contract", ("thrown in", "maker", "alone", "trump"))):
            ds = [d for d, s_ in zip(diffs, same) if s_ in kinds]
            split[key] = {"pairs": len(ds), "points": round(sum(ds) / n, 4)}
        for kind in ("thrown in", "maker", "alone", "trump"):
            ds = [d for d, s_ in zip(diffs, same) if s_ == kind]
            split["other_contract"][kind] = {"pairs": len(ds), "points": round(sum(ds) / n, 4)}
    first = [x for p in parts for x in p.get("first", [])]
    if len(first) == n and n:
        # The other contracts by the first bid on which the tables parted.
        by = {}
        for d, f, s_ in zip(diffs, first, same, strict=True):
            if s_ != "same" and f is not None:
                e = by.setdefault(f, [0, 0.0])
                e[0] += 1
                e[1] += d
        split["first_bid_difference"] = {k: {"pairs": c, "points": round(t / n, 4)}
                                         for k, (c, t) in sorted(by.items(), key=lambda kv: -abs(kv[1][1]))}
    sides = [x for p in parts for x in p.get("sides", [])]
    if len(sides) == n and n:
        # Which side's bidding the parting came from, with its points (A minus B).
        by = {}
        for d, k in zip(diffs, sides, strict=True):
            if k is not None:
                e = by.setdefault(k, [0, 0.0])
                e[0] += 1
                e[1] += d
        split["by_side"] = {k: {"pairs": c, "points": round(t / n, 4)} for k, (c, t) in sorted(by.items())}
    sd = statistics.stdev(diffs) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("inf")

    def pct(ts, q):
        ts = sorted(ts)
        return ts[min(len(ts) - 1, int(q * len(ts)))] * 1000

    out = {
        "a": a, "b": b, "rules": rules.name, "seed": seed, "pairs": n, "hands": 2 * n,
        "mean": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "half_width": round(half, 4), "sd_pair": round(sd, 4),
        "split": split,
        "games": len(games), "a_game_win_rate": round(sum(games) / len(games), 4) if games else None,
        "rates": {"a": _side_stats((_R(r), t) for p in parts for r, t in p["a_stats"]),
                  "b": _side_stats((_R(r), t) for p in parts for r, t in p["b_stats"])},
        "decision_ms": {lv: {"median": round(pct(ts, 0.5), 3), "p95": round(pct(ts, 0.95), 3),
                             "decisions": len(ts)} for lv, ts in sorted(times.items())},
        "seconds": round(seconds, 1),
        "note": "mean and ci95: points per hand for A minus B (duplicate pairs)",
    }
    if keep_pairs:
        out["pair_points"] = diffs
    return out


def _worker(args):
    return run_pairs(*args)


def match(a: str, b: str, pairs: int, seed: int = 1, rules: Optional[Rules] = None, jobs: int = 1,
          budget=..., samples=None, progress: Optional[str] = None, chunk: int = 50) -> dict:
    """Play a duplicate match and return its summary (see ``summarise``).

    >>> r = match("medium", "random", pairs=2, seed=3)
    >>> r["pairs"], len(r["ci95"])
    (2, 2)
    """
    for lv in (a, b):
        parse_level(lv)
    if pairs < 1:
        raise ValueError(f"pairs must be at least 1, not {pairs}")
    rules = rules or Rules.preset("standard")
    t0 = time.perf_counter()
    if progress:
        # Long runs: write the summary so far after every chunk of pairs, so that an
        # interrupted run still reports what it measured.
        parts = []
        for s in range(0, pairs, chunk):
            parts.append(run_pairs(a, b, rules, seed, s, min(chunk, pairs - s), budget, samples))
            with open(progress, "w") as f:
                # every pair's points too, so that two runs on the same deals can be
                # compared pair by pair
                json.dump(summarise(a, b, rules, seed, parts, time.perf_counter() - t0, True), f)
    elif jobs <= 1 or pairs < 2 * jobs:
        parts = [run_pairs(a, b, rules, seed, 0, pairs, budget, samples)]
    else:
        import multiprocessing
        chunk = math.ceil(pairs / jobs)
        tasks = [(a, b, rules, seed, s, min(chunk, pairs - s), budget, samples)
                 for s in range(0, pairs, chunk)]
        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(_worker, tasks)
    return summarise(a, b, rules, seed, parts, time.perf_counter() - t0)


def _budget_type(text: str):
    if text.strip().lower() == "none":
        return "none"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a budget: seconds (e.g. 0.25) or none") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"the budget must be above 0 seconds, not {text}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The match options, shared by ``euchre-table match`` and ``python -m bench.match``."""
    p.add_argument("--a", required=True, type=level_type,
                   help="level of side A: " + ", ".join(ALL_LEVELS) +
                        "; options after colons (insane:scale=0.25, ismcts:sims=10000); BID/PLAY")
    p.add_argument("--b", required=True, type=level_type, help="level of side B (as --a)")
    p.add_argument("--pairs", type=int, default=100, help="deals, each played twice (default 100)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and bots (default 1)")
    p.add_argument("--rules", default=None,
                   help="rules preset and options, e.g. openspiel or standard,target=5 "
                        "(default: standard, or openspiel when a peer plays)")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1: one core)")
    p.add_argument("--budget", type=_budget_type, default=None,
                   help="seconds per decision for hard/insane (default: their own), or none: "
                        "no clock, only their deals (reproducible on a loaded machine)")
    p.add_argument("--samples", type=int, default=None, help="most deals per decision for hard/insane")
    p.add_argument("--progress", default=None,
                   help="file to rewrite with the summary so far after every 50 pairs (one process)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    """Run a match from parsed arguments; prints the summary. Exit code 0, or 2 on bad input."""
    from engine.rules import RulesError
    try:
        peers = (level_names(args.a) | level_names(args.b)) & set(OPENSPIEL_PEERS)
        spec = args.rules or ("openspiel" if peers else "standard")
        rules = Rules.parse(spec)
        budget = ... if args.budget is None else (None if args.budget == "none" else args.budget)
        result = match(args.a, args.b, args.pairs, args.seed, rules, args.jobs, budget, args.samples,
                       getattr(args, "progress", None))
    except (ValueError, RulesError, ImportError) as exc:
        print(f"euchre-table match: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        lo, hi = result["ci95"]
        print(f"{result['a']} vs {result['b']} ({result['rules']}), {result['pairs']} pairs: "
              f"{result['mean']:+.3f} points per hand for {result['a']} (95% CI {lo:+.3f} .. {hi:+.3f})")
        if result["games"]:
            print(f"games to {rules.target}: {result['games']}, {result['a']} won "
                  f"{100 * result['a_game_win_rate']:.1f}%")
        for side in ("a", "b"):
            s = result["rates"][side]
            print(f"{result[side]}: names trump in {100 * s['maker_rate']:.1f}% of hands; of "
                  f"those hands it is euchred in {100 * s['euchred_rate']:.1f}%, takes all five "
                  f"(a march) in {100 * s['march_rate']:.1f}%, goes alone in "
                  f"{100 * s['alone_rate']:.1f}%")
        for lv, t in result["decision_ms"].items():
            print(f"{lv}: decision median {t['median']:.2f} ms, p95 {t['p95']:.2f} ms "
                  f"({t['decisions']} decisions)")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.match", description=__doc__.splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
