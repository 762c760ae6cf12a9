"""Insane: Hard's search on imagined deals that are kept in proportion to how well they explain every bid and every card the others played.

For each decision Insane draws many candidate deals that fit what its seat has seen,
weighs each by how likely the other players' bids, passes and plays would have been with
those cards (``engine.bots.inference``: models fitted to how searching players bid and
play), resamples the deals it solves in proportion to those weights, and solves them
exactly as Hard does. In the bidding the other seats bid on in each imagined deal by the
fitted bidding model rather than by Medium's fixed rules.

Budget: at most ``samples`` deals solved and, when ``work`` is set, at most that many
units of work (one unit is one node of the solver; drawing and weighing a candidate
deal counts as ``CANDIDATE_WORK`` units, a replay of the bidding as ``REPLAY_WORK``), and
at most ``budget`` seconds on ``clock`` (None: no clock). Work is deterministic: with
``budget=None`` a decision depends only on the view and the seed.
"""
from __future__ import annotations

import math
import time
from collections import Counter
from typing import Callable, Optional

from engine.bots.deals import PlaySampler, played_masks, sample_dealt
from engine.bots.inference import BidEvidence, BidModel, PlayEvidence, PlayModel
from engine.bots.medium import MediumBot, _score_pressure, bid_estimate
from engine.bots.models import ALONE_CURVE, BID_CURVES, PLAY_WEIGHTS
from engine.bots.search import SearchBot, play_values
from engine.bots.solver import Solver
from engine.cards import SEATS, SUITS, cards_of, mask_of
from engine.hand import Action

CANDIDATE_WORK = 30
"""Work units (solver nodes) charged for drawing and weighing one candidate deal."""
REPLAY_WORK = 150
"""Work units charged for bringing an imagined deal to a bidding decision and bidding on."""


class ModelBidder(MediumBot):
    """Medium's bidding with the fitted thresholds of ``BidModel``: how Insane expects
    the other seats to bid on in an imagined deal."""

    def __init__(self, model: BidModel):
        super().__init__()
        self.model = model

    def _rel(self, view):
        return (SEATS.index(view.seat) - SEATS.index(view.dealer)) % 4

    def _round1(self, view, legal):
        up = view.upcard
        forbid = not view.rules.dealer_may_discard_upcard
        est = bid_estimate(view.cards, view.seat, view.dealer, up, up.suit, True, forbid)
        est += _score_pressure(view)
        only_alone = Action("order") not in legal
        alone_at = self.model.alone[0]
        if Action("order alone") in legal and est >= alone_at - (0.3 if only_alone else 0.0):
            return Action("order alone"), "alone"
        if not only_alone and est >= self.model.threshold(1, self._rel(view)):
            return Action("order"), "order"
        return Action("pass"), "pass"

    def _round2(self, view, legal):
        best, best_est = None, -1.0
        for s in SUITS:
            if Action(f"call {s}") in legal:
                e = bid_estimate(view.cards, view.seat, view.dealer, view.upcard, s, False)
                if e > best_est:
                    best, best_est = s, e
        if best is None:
            return legal[0], "only"
        best_est += _score_pressure(view)
        stuck = Action("pass") not in legal
        if best_est >= self.model.alone[0]:
            return Action(f"call {best} alone"), "alone"
        if stuck or best_est >= self.model.threshold(2, self._rel(view)):
            return Action(f"call {best}"), "call"
        return Action("pass"), "pass"


class InsaneBot(SearchBot):
    """The strongest level: Hard's search with inference from bids and play.

    >>> from engine import Hand, Rules
    >>> h = Hand.deal(Rules.preset("standard"), dealer="S", seed=3)
    >>> bot = InsaneBot(seed=1, samples=4, budget=None)
    >>> bot.choose(h.view("W")) in h.legal_actions()
    True
    """

    def __init__(self, seed: Optional[int] = None, samples: int = 160,
                 budget: Optional[float] = 0.25, clock: Callable[[], float] = time.perf_counter,
                 work: Optional[int] = None, candidates: int = 6, batch: int = 8,
                 play_weight: float = 1.0, bid_weight: float = 1.0, level: str = "insane"):
        super().__init__(seed=seed, samples=samples, budget=budget, clock=clock, weighted=True,
                         candidates=candidates, level=level)
        if work is not None and work <= 0:
            raise ValueError(f"work must be above 0 (or None), not {work}")
        self.work = work
        self.batch = batch
        self.play_weight = play_weight
        self.bid_weight = bid_weight
        self.bid_model = BidModel(BID_CURVES, ALONE_CURVE)
        self.play_model = PlayModel(PLAY_WEIGHTS)
        self.bidder = ModelBidder(self.bid_model)
        self.spent = 0

    # ------------------------------------------------------------------ budget
    def _done(self, start, solved):
        if solved >= self.samples:
            return True
        if self.work is not None and self.spent >= self.work:
            return True
        return self.budget is not None and self.clock() - start >= self.budget

    # ------------------------------------------------------------------ sampling
    def _worlds(self, view, rng, draw, seat_hands):
        """Imagined deals with how many times each was drawn, batch by batch: each
        batch draws ``candidates * batch`` deals that fit the view (``draw(rng)``),
        weighs them by the bids and plays seen, and resamples ``batch`` of them by
        weight. ``seat_hands(deal)`` gives (seat index, hand now, cards dealt) for the
        seats to score. A seat's weight depends only on its own cards: it is cached."""
        bids = BidEvidence(self.bid_model, view) if view.bids and self.bid_weight > 0 else None
        plays = (PlayEvidence(self.play_model, view)
                 if view.phase == "play" and self.play_weight > 0 else None)
        scored = bids is not None and any(bids.seats()) or plays is not None and plays.by_seat
        cache = {}
        bw, pw = self.bid_weight, self.play_weight

        def seat_weight(q, now, dealt_mask):
            lw = 0.0
            if bids is not None:
                lw += bw * bids.log_likelihood(SEATS[q], cards_of(dealt_mask))
            if plays is not None:
                lw += pw * plays.log_likelihood(q, now)
            return lw

        while True:
            cands, logw = [], []
            for _ in range(self.candidates * self.batch if scored else self.batch):
                d = draw(rng)
                self.spent += CANDIDATE_WORK
                if d is None:
                    continue
                lw = 0.0
                if scored:
                    for q, now, dealt_mask in seat_hands(d):
                        key = (q, now)
                        w = cache.get(key)
                        if w is None:
                            w = cache[key] = seat_weight(q, now, dealt_mask)
                        lw += w
                cands.append(d)
                logw.append(lw)
            if not cands:
                return
            top = max(logw)
            if top == -math.inf:
                weights = [1.0] * len(cands)
            else:
                weights = [math.exp(x - top) for x in logw]
            picks = Counter(rng.choices(range(len(cands)), weights, k=self.batch))
            for i in sorted(picks):
                yield cands[i], picks[i]

    # ------------------------------------------------------------------ play
    def _eval_play(self, view, legal, rng, start):
        self.spent = 0
        mk = SEATS.index(view.maker) & 1
        me = SEATS.index(view.seat)
        out = tuple(SEATS.index(s) for s in view.sitting_out)
        played = played_masks(view)
        others = [q for q in range(4) if q != me and q not in out]

        def seat_hands(hands):
            return [(q, hands[q], hands[q] | played[q]) for q in others]

        totals = {a: 0.0 for a in legal}
        n = solved = 0
        for hands, count in self._worlds(view, rng, PlaySampler(view).draw, seat_hands):
            solver = Solver(view.trump, mk, out)
            for a, v in play_values(view, hands, legal, solver).items():
                totals[a] += count * v
            self.spent += solver.nodes
            n += count
            solved += 1
            if self._done(start, solved):
                break
        self.last_samples = solved
        return totals, n

    # ------------------------------------------------------------------ bidding
    def _rollout(self, h):
        """Bidding, discard and defending finished in the imagined deal: the bids by
        the fitted model, the rest by Medium's rules."""
        bidder, medium = self.bidder, self.medium
        while h.phase not in ("play", "over"):
            v = h.view(h.to_act)
            h.apply((bidder if h.phase in ("round 1", "round 2") else medium).choose(v))
        return h

    def _eval_bid(self, view, legal, rng, start):
        self.spent = 0
        my_team = SEATS.index(view.seat) & 1
        totals = {a: 0.0 for a in legal}
        candidates = self._candidates(view, legal, self.medium.choose(view))
        for a in legal:
            if a not in candidates:
                totals[a] = float("-inf")
        n = solved = failures = 0
        me = view.seat

        def seat_hands(dealt):
            out = []
            for seat, cards in dealt["hands"].items():
                if seat != me:
                    m = mask_of(cards)
                    out.append((SEATS.index(seat), m, m))
            return out

        for dealt, count in self._worlds(view, rng, lambda r: sample_dealt(view, r), seat_hands):
            base = self._replay(view, dealt)
            self.spent += REPLAY_WORK
            if base is None:
                failures += 1
                if failures > 20:
                    break
                continue
            for a in candidates:
                h = base.copy()
                h.apply(a)
                totals[a] += count * self._score_hand(view, self._rollout(h), my_team)
                self.spent += self.last_nodes
            n += count
            solved += 1
            if self._done(start, solved):
                break
        self.last_samples = solved
        return totals, n
