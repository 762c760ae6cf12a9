"""Searching players, Hard and Insane: imagined deals that fit what the seat has seen, each solved exactly, scored in points.

For every decision the bot draws deals consistent with its view (``engine.bots.deals``),
and for each deal and each legal action works out the points the action leads to: in
the play with the exact double-dummy solver; before the play by letting every seat bid
on by Medium's rules in the imagined deal, then solving the play. Points follow the
rules (march, lone hand, euchre, lone defender) and, near the end of a game, count only
up to what each side still needs. The action with the best average wins.

Insane draws several candidate deals for each one it solves and keeps them in
proportion to how well they explain the bids and passes seen (``deals.bid_likelihood``).

Time: each decision stops drawing deals once ``budget`` seconds have passed on the
``clock`` (default ``time.perf_counter``; pass another callable returning seconds, e.g.
a fake clock in tests). With ``budget=None`` it draws exactly ``samples`` deals, so a
decision depends only on the seed and the view.
"""
from __future__ import annotations

import random
import time
import zlib
from typing import Callable, Optional

from engine.bots.deals import (bid_likelihood, dealt_from_play, sample_dealt, sample_play)
from engine.bots.medium import (ALONE_AT, ORDER_AT, Bot, MediumBot, best_discard, bid_estimate,
                                legal_or_forced)
from engine.bots.solver import Solver
from engine.cards import POWER, SEATS, Card, trick_winner_index
from engine.hand import Action, Hand, IllegalAction


def hand_points(rules, alone, defender_alone, taken: int) -> tuple:
    """(makers' points, defenders' points) when the makers take ``taken`` tricks; the
    same scoring as the engine's end of hand (``alone``/``defender_alone``: seat or None)."""
    if taken >= 3:
        if taken == 5:
            return (4 if alone is not None else 2), 0
        return 1, 0
    p = 2
    if alone is not None:
        p = max(p, rules.lone_euchre_points)
    if defender_alone is not None:
        p = max(p, rules.lone_defender_march_points if taken == 0 else rules.lone_defender_euchre_points)
    return 0, p


def _thresholds(rules, alone, defender_alone) -> tuple:
    pts = [hand_points(rules, alone, defender_alone, n) for n in range(6)]
    return tuple(n for n in range(1, 6) if pts[n] != pts[n - 1])


def _utility(view, my_team: int, maker_team: int, mk_pts: int, def_pts: int) -> float:
    mine, theirs = (mk_pts, def_pts) if my_team == maker_team else (def_pts, mk_pts)
    if view.score is not None:
        # Points beyond the target are worth nothing: a march at 9-8 is just a win.
        target = view.rules.target
        mine = min(mine, max(1, target - view.score[my_team]))
        theirs = min(theirs, max(1, target - view.score[1 - my_team]))
    return float(mine - theirs)


def _view_key(view) -> bytes:
    return repr((view.seat, view.dealer, str(view.upcard), tuple(view.cards), view.phase,
                 view.bids, str(view.discard), view.tricks, view.trick, view.score)).encode()


def play_values(view, hands, legal, solver: Optional[Solver] = None) -> dict:
    """The points (for the seat of ``view``) each legal card leads to when the four
    ``hands`` (bitmasks of what each seat holds now) are played out perfectly by all."""
    trump = view.trump
    me = SEATS.index(view.seat)
    mk = SEATS.index(view.maker) & 1
    out = tuple(SEATS.index(s) for s in view.sitting_out)
    if solver is None:
        solver = Solver(trump, mk, out)
    thresholds = _thresholds(view.rules, view.alone, view.defender_alone)
    won = view.tricks_won[mk]
    trick = tuple((SEATS.index(s), c.index) for s, c in view.trick)
    nactive = 4 - len(out)
    values = {}
    for a in legal:
        c = a.card
        nh = list(hands)
        nh[me] &= ~c.bit
        t = trick + ((me, c.index),)
        w, leader = won, me
        if len(t) == nactive:
            winner = t[trick_winner_index([Card(i) for _, i in t], trump)][0]
            w += (winner & 1) == mk
            leader, t = winner, ()
        taken = solver.maker_tricks(nh, leader, thresholds, t, w)
        mk_pts, def_pts = hand_points(view.rules, view.alone, view.defender_alone, taken)
        values[a] = _utility(view, me & 1, mk, mk_pts, def_pts)
    return values


class SearchBot(Bot):
    """Hard (``weighted=False``) and Insane (``weighted=True``) players.

    >>> from engine import Hand, Rules
    >>> h = Hand.deal(Rules.preset("standard"), dealer="S", seed=3)
    >>> bot = SearchBot(seed=1, samples=4, budget=None)
    >>> bot.choose(h.view("W")) in h.legal_actions()
    True
    """

    def __init__(self, seed: Optional[int] = None, samples: int = 48, budget: Optional[float] = 0.08,
                 clock: Callable[[], float] = time.perf_counter, weighted: bool = False,
                 candidates: int = 4, level: str = "hard"):
        if samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        if budget is not None and budget <= 0:
            raise ValueError(f"budget is a time in seconds above 0 (or None), not {budget}")
        self.seed = 0 if seed is None else seed
        self.samples = samples
        self.budget = budget
        self.clock = clock
        self.weighted = weighted
        self.candidates = candidates
        self.level = level
        self.medium = MediumBot()
        self.last_samples = 0

    def advise(self, view):
        """``(action, reason)``; the reason gives the averages it compared."""
        legal, forced = legal_or_forced(view)
        if forced:
            return forced
        start = self.clock()
        rng = random.Random(zlib.crc32(_view_key(view)) ^ (self.seed * 2654435761 % (1 << 32)))
        if view.phase == "play":
            totals, n = self._eval_play(view, legal, rng, start)
        else:
            totals, n = self._eval_bid(view, legal, rng, start)
        self.last_samples = n
        rule_action, rule_reason = self.medium.advise(view)
        if n == 0:
            return rule_action, rule_reason
        means = {a: totals[a] / n for a in legal}
        best = max(legal, key=lambda a: (round(means[a], 9), a == rule_action))
        return best, self._explain(view, legal, best, means, n, rule_action, rule_reason)

    def _explain(self, view, legal, best, means, n, rule_action, rule_reason) -> str:
        """The reason given with ``best``: the averages compared."""
        ranked = sorted(legal, key=lambda a: -means[a])
        other = next((a for a in ranked if a != best and means[a] != float("-inf")), None)
        why = (f"on {n} deals that fit what you have seen, {best} scores {means[best]:+.2f} "
               f"points on average")
        if other is not None:
            why += f" ({other}: {means[other]:+.2f})"
        if best == rule_action:
            return f"{rule_reason}; {why}"
        return why[0].upper() + why[1:]

    # ------------------------------------------------------------------ sampling
    def _deals(self, view, rng, make, dealt_of):
        """Deals to solve, one at a time; Insane keeps one of several candidates, chosen
        in proportion to how well each explains the bidding."""
        while True:
            if not self.weighted or not view.bids:
                d = make(view, rng)
                if d is None:
                    return
                yield d
                continue
            cands, weights = [], []
            for _ in range(self.candidates):
                d = make(view, rng)
                if d is not None:
                    cands.append(d)
                    weights.append(bid_likelihood(view, dealt_of(d)))
            if not cands:
                return
            if sum(weights) <= 0:
                weights = [1.0] * len(cands)
            yield rng.choices(cands, weights)[0]

    def _out_of_time(self, start, n):
        if n >= self.samples:
            return True
        return self.budget is not None and self.clock() - start >= self.budget

    # ------------------------------------------------------------------ play
    def _eval_play(self, view, legal, rng, start):
        totals = {a: 0.0 for a in legal}
        n = 0
        for hands in self._deals(view, rng, sample_play, lambda h: dealt_from_play(view, h)):
            for a, v in play_values(view, hands, legal).items():
                totals[a] += v
            n += 1
            if self._out_of_time(start, n):
                break
        return totals, n

    # ------------------------------------------------------------------ bidding
    def _replay(self, view, dealt):
        """The imagined deal brought to this seat's decision, or None if it cannot be."""
        rules = view.rules
        try:
            h = Hand.deal(rules, dealer=view.dealer, hands=dealt["hands"], upcard=dealt["upcard"],
                          kitty=dealt["kitty"])
            for seat, text in view.bids:
                if h.phase == "discard":
                    h.apply(self._dealer_discard(view, h))
                h.apply(text, seat=seat)
            if h.phase == "discard" and view.phase != "discard":
                h.apply(self._dealer_discard(view, h))
        except IllegalAction:
            return None
        if h.to_act != view.seat or h.phase != view.phase:
            return None
        return h

    def _dealer_discard(self, view, h):
        if view.seat == view.dealer and view.discard is not None:
            return Action(f"discard {view.discard}")
        d = h.dealer
        cards = [Card(c) for c in h.cards(SEATS[d])]
        forbid = None if view.rules.dealer_may_discard_upcard else h.upcard
        return Action(f"discard {best_discard(cards, h.trump, forbid)}")

    def _rollout(self, h) -> Hand:
        """Bidding, discard and defending finished by Medium's rules for every seat."""
        medium = self.medium
        while h.phase not in ("play", "over"):
            h.apply(medium.choose(h.view(h.to_act)))
        return h

    def _score_hand(self, view, h, my_team) -> float:
        self.last_nodes = 0
        if h.phase == "over":
            r = h.result
            if r.thrown_in:
                return 0.0
            mk = SEATS.index(r.maker) & 1
            return _utility(view, my_team, mk, r.points[r.makers], r.points["EW" if r.makers == "NS" else "NS"])
        mk = h.maker & 1
        alone = h.alone
        dalone = h.defender_alone
        solver = Solver(h.trump, mk, h.out)
        hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
        thresholds = _thresholds(view.rules, alone, dalone)
        taken = solver.maker_tricks(hands, h.to_act_i, thresholds, (), 0)
        # Work units of the solve (read by Insane's budget; see solver.NODE_WORK and TWO_WORK).
        self.last_nodes = solver.work
        mk_pts, def_pts = hand_points(view.rules, alone, dalone, taken)
        return _utility(view, my_team, mk, mk_pts, def_pts)

    def _candidates(self, view, legal, rule_action):
        """The bids worth searching: lone hands only with a hand near alone strength,
        suits only near calling strength, no discard of a top trump. Cuts the search
        two- to threefold; Medium's own choice is always among them."""
        keep = []
        for a in legal:
            if a.kind in ("order", "call", "take"):
                trump = a.suit or view.upcard.suit
                est = bid_estimate(view.cards, view.seat, view.dealer, view.upcard, trump,
                                   view.phase != "round 2")
                if a.alone and est < ALONE_AT - 0.9:
                    continue
                if not a.alone and est < ORDER_AT - 0.9:
                    continue
            elif a.kind == "discard" and a.card is not None:
                if POWER[view.trump][a.card.index] >= 11:
                    continue
            keep.append(a)
        if rule_action not in keep:
            keep.append(rule_action)
        if Action("pass") in legal and Action("pass") not in keep:
            keep.append(Action("pass"))
        return keep

    def _eval_bid(self, view, legal, rng, start):
        my_team = SEATS.index(view.seat) & 1
        totals = {a: 0.0 for a in legal}
        n = 0
        failures = 0
        candidates = self._candidates(view, legal, self.medium.choose(view))
        for a in legal:
            if a not in candidates:
                totals[a] = float("-inf")
        for dealt in self._deals(view, rng, sample_dealt, lambda d: d["hands"]):
            base = self._replay(view, dealt)
            if base is None:
                failures += 1
                if failures > 20:
                    break
                continue
            for a in candidates:
                h = base.copy()
                h.apply(a)
                totals[a] += self._score_hand(view, self._rollout(h), my_team)
            n += 1
            if self._out_of_time(start, n):
                break
        return totals, n
