"""Insane: Hard's search on imagined deals that are kept in proportion to how well they explain every bid and every card the others played.

For each decision Insane draws many candidate deals that fit what its seat has seen,
weighs each by how likely the other players' bids, passes and plays would have been with
those cards (``engine.bots.inference``: models fitted to how searching players bid and
play), resamples the deals it solves in proportion to those weights, and solves them
exactly as Hard does. In the bidding the other seats bid on in each imagined deal by the
fitted bidding model rather than by Medium's fixed rules.

Budget: at most ``samples`` deals solved and, when ``work`` is set, at most that many
units of work (a node of the solver counts ``solver.NODE_WORK``, a question with two tricks
left ``solver.TWO_WORK``; drawing and weighing a candidate deal counts as ``CANDIDATE_WORK`` units, a replay of the bidding as ``REPLAY_WORK``), and
at most ``budget`` seconds on ``clock`` (None: no clock). Work is deterministic: with
``budget=None`` a decision depends only on the view and the seed.
"""
from __future__ import annotations

import math
import random
import time
from collections import Counter
from typing import Callable, Optional

from engine.bots.deals import PlaySampler, played_masks, sample_dealt, void_masks
from engine.bots.inference import BidEvidence, BidModel, PlayContext, PlayEvidence, PlayModel
from engine.bots.medium import MediumBot, _score_pressure, bid_estimate
from engine.bots.models import ALONE_CURVE, BID_CURVES, PLAY_WEIGHTS
from engine.bots.search import SearchBot, _thresholds, _utility, hand_points, play_values
from engine.bots.solver import Solver
from engine.cards import (DECK, EFFECTIVE_SUIT, POWER, SEAT_NAMES, SEATS, SUIT_MASK, SUIT_NAMES,
                          SUITS, Card, mask_of, partner, trick_winner_index)
from engine.hand import Action

CANDIDATE_WORK = 19
"""Work units charged for drawing and weighing one candidate deal (each unit the CPU time
of a node of the first solver; measured in Insane's decisions by ``bench.solver_speed``,
like ``ROLLOUT_WORK``: drawing and weighing got cheaper, so they count less and the
same budget buys more deals in the same time)."""
REPLAY_WORK = 150
"""Work units charged for bringing an imagined deal to a bidding decision and bidding on."""
ROLLOUT_WORK = 76
"""Work units charged for one playout of a hand by the play model."""


class ModelBidder(MediumBot):
    """Medium's bidding with the fitted thresholds of ``BidModel``: how Insane expects
    the other seats to bid on in an imagined deal."""

    def __init__(self, model: BidModel):
        super().__init__()
        self.model = model
        # With an rng the bids are drawn with the model's probabilities; without, each
        # seat bids when the model says it more likely than not.
        self.rng = None

    def _rel(self, view):
        return (SEATS.index(view.seat) - SEATS.index(view.dealer)) % 4

    def _bids(self, rnd, rel, est) -> bool:
        t, w = self.model.curves[(rnd, rel)]
        if self.rng is None:
            return est >= t
        return self.rng.random() < 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, (est - t) / w))))

    def _alone(self, est, slack=0.0) -> bool:
        t, w = self.model.alone
        t -= slack
        if self.rng is None:
            return est >= t
        return self.rng.random() < 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, (est - t) / w))))

    def _round1(self, view, legal):
        up = view.upcard
        forbid = not view.rules.dealer_may_discard_upcard
        est = bid_estimate(view.cards, view.seat, view.dealer, up, up.suit, True, forbid)
        est += _score_pressure(view)
        only_alone = Action("order") not in legal
        if only_alone:
            if Action("order alone") in legal and self._alone(est, 0.3):
                return Action("order alone"), "alone"
            return Action("pass"), "pass"
        if self._bids(1, self._rel(view), est):
            if Action("order alone") in legal and self._alone(est):
                return Action("order alone"), "alone"
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
        if stuck or self._bids(2, self._rel(view), best_est):
            if self._alone(best_est):
                return Action(f"call {best} alone"), "alone"
            return Action(f"call {best}"), "call"
        return Action("pass"), "pass"


def bid_correction(action: Action, phase: str, rel: int, pickup_bonus: float = 0.0,
                   assist_bonus: float = 0.0, alone_discount: float = 0.0) -> float:
    """Points Insane's bidding options add to a bid's searched value on every imagined
    deal (``rel``: the bidder's seat counted from the dealer, 0 the dealer, 2 the
    dealer's partner): ``-alone_discount`` for ordering up or calling alone, in round 1
    ``pickup_bonus`` for the dealer's order and ``assist_bonus`` for the partner's; 0
    for any other bid.

    >>> bid_correction(Action("order"), "round 1", 0, pickup_bonus=0.3)
    0.3
    >>> bid_correction(Action("call H alone"), "round 2", 1, alone_discount=0.4)
    -0.4
    """
    if action.alone and action.kind in ("order", "call"):
        return -alone_discount
    if action.kind == "order" and phase == "round 1":
        return {0: pickup_bonus, 2: assist_bonus}.get(rel, 0.0)
    return 0.0


def policy_playout(h, model: PlayModel, rng) -> int:
    """The makers' tricks when every seat plays the rest of hand ``h`` (in the play, all
    hands known to the engine) as the play model says, each card drawn with the model's
    probabilities from what that seat could see."""
    gone = (0 if h.dealer_took else h.upcard.bit) | h._played_mask()
    trick = tuple((q, c.index) for q, c in h.trick)
    return playout(h.trump, h.maker, h.out, list(h.hands), gone, trick, h.won[h.maker & 1],
                   h.to_act_i, model, rng)


def playout(trump, maker, out, hands, gone, trick, won, p, model: PlayModel, rng) -> int:
    """``policy_playout`` on bare numbers: ``hands`` four bitmasks (changed in place),
    ``gone`` the cards out of play, ``trick`` the trick so far as (seat, card index),
    ``won`` the makers' tricks so far, ``p`` the seat to play."""
    mk = maker & 1
    nactive = 4 - len(out)
    eff, power = EFFECTIVE_SUIT[trump], POWER[trump]
    suit_mask = SUIT_MASK[trump]
    while hands[p]:
        u = rng.random()
        hand = hands[p]
        legal = (hand & suit_mask[eff[trick[0][1]]] or hand) if trick else hand
        if legal & (legal - 1):
            j = model.draw(PlayContext(trump, p, -1, trick, gone, maker, nactive), hand, u)
        else:
            # One legal card: the model would play it (without a context to build).
            j = legal.bit_length() - 1
        hands[p] &= ~(1 << j)
        gone |= 1 << j
        trick += ((p, j),)
        if len(trick) == nactive:
            led = eff[trick[0][1]]
            best, bp = trick[0][0], power[trick[0][1]]
            for q, i in trick[1:]:
                if (eff[i] == trump or eff[i] == led) and power[i] > bp:
                    best, bp = q, power[i]
            won += (best & 1) == mk
            trick = ()
            p = best
        else:
            p = (p + 1) % 4
            while p in out:
                p = (p + 1) % 4
    return won


def _same(hands):
    return hands


def _dealt_masks(dealt) -> list:
    """The four hands of a deal from ``sample_dealt`` as bitmasks (N E S W)."""
    hands = dealt["hands"]
    out = []
    for s in SEATS:
        m = 0
        for c in hands[s]:
            m |= c.bit
        out.append(m)
    return out


class Race:
    """Values of the candidate actions on each solved deal (with its count), to stop as
    soon as one action is clearly best: an action whose mean trails the leader's by more
    than ``z`` standard errors of the paired difference drops out (its mean stays)."""

    def __init__(self, actions, z: float, least: int):
        self.live = list(actions)
        self.values: dict = {a: [] for a in actions}
        self.counts: list = []
        self.z = z
        self.least = least
        self.totals = {a: 0.0 for a in actions}
        self.n = 0

    def add(self, values: dict, count: int) -> None:
        self.counts.append(count)
        self.n += count
        for a in self.live:
            v = values[a]
            self.values[a].append(v)
            self.totals[a] += count * v

    def mean(self, a) -> float:
        k = len(self.values[a])
        return self.totals[a] / sum(self.counts[:k]) if k else 0.0

    def settled(self) -> bool:
        """Drop clearly worse actions; True when one is left."""
        if len(self.counts) < self.least or len(self.live) < 2:
            return len(self.live) < 2
        n = self.n
        w = self.counts
        sq = sum(c * c for c in w)
        n_eff = n * n / sq
        means = {a: self.totals[a] / n for a in self.live}
        best = max(self.live, key=lambda a: means[a])
        vb = self.values[best]
        keep = [best]
        for a in self.live:
            if a == best:
                continue
            va = self.values[a]
            d = means[best] - means[a]
            var = sum(c * (x - y - d) ** 2 for c, x, y in zip(w, vb, va)) / n
            se = math.sqrt(var / n_eff)
            # Clearly worse, or equal to within a hundredth of a point: drop it.
            if d > self.z * se or (var == 0.0 and d > 0) or d + self.z * se < 0.01:
                continue
            keep.append(a)
        self.live = keep
        return len(keep) < 2


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
                 play_weight: float = 1.0, bid_weight: float = 1.0, z: float = 3.0,
                 least: int = 24, stochastic: bool = False, trick_policy: bool = False,
                 rollouts: int = 2, mix: float = 0.5, play_rollouts: int = 0,
                 bid_scale: float = 1.0, alone_discount: float = 0.0, pickup_bonus: float = 0.0,
                 assist_bonus: float = 0.0, level: str = "insane"):
        super().__init__(seed=seed, samples=samples, budget=budget, clock=clock, weighted=True,
                         candidates=candidates, level=level)
        if work is not None and work <= 0:
            raise ValueError(f"work must be above 0 (or None), not {work}")
        self.work = work
        self.batch = batch
        self.stochastic = stochastic
        self.trick_policy = trick_policy
        self.rollouts = rollouts
        self.play_rollouts = play_rollouts
        self.mix = mix
        if bid_scale <= 0:
            raise ValueError(f"bid_scale must be above 0, not {bid_scale}")
        self.bid_scale = bid_scale
        # Points taken off a lone bid's value on every imagined deal: against real
        # defence a lone hand scores less than the search (every card seen, or the play
        # model's playouts) says it will; see docs/bots.md for the measurement.
        self.alone_discount = alone_discount
        # Points added to the dealer's side's first-round order (not alone) on every
        # imagined deal: the dealer picking up (``pickup_bonus``), the dealer's partner
        # ordering it up (``assist_bonus``). Measured against real play the search
        # undervalues these orders against passing; see docs/bots.md.
        self.pickup_bonus = pickup_bonus
        self.assist_bonus = assist_bonus
        # Multiplier of deals, work and time for the decision being searched: bids get
        # ``bid_scale`` times a card's (most points are won or lost in the bidding, and a
        # hand has far fewer bids than cards).
        self._scale = 1.0
        self._rollout_rng = None
        self.z = z
        self.least = least
        self.play_weight = play_weight
        self.bid_weight = bid_weight
        self.bid_model = BidModel(BID_CURVES, ALONE_CURVE)
        self.play_model = PlayModel(PLAY_WEIGHTS)
        self.bidder = ModelBidder(self.bid_model)
        self.spent = 0
        self.worlds: list = []
        self.race = None
        # When a dict (set by a benchmark), each bid decision fills it with, per action
        # searched, (deal count, exact points, playout points) for every imagined deal.
        self.bid_parts: Optional[dict] = None
        self.last_parts = (0.0, 0.0)

    # ------------------------------------------------------------------ budget
    def _done(self, start, solved):
        k = self._scale
        if solved >= self.samples * k:
            return True
        if self.work is not None and self.spent >= self.work * k:
            return True
        return self.budget is not None and self.clock() - start >= self.budget * k

    # ------------------------------------------------------------------ sampling
    def _worlds(self, view, rng, draw, hands_of, seats, played):
        """Imagined deals with how many times each was drawn, batch by batch: each
        batch draws ``candidates * batch`` deals that fit the view (``draw(rng)``),
        weighs them by the bids and plays seen, and resamples ``batch`` of them by
        weight. ``hands_of(deal)`` gives what each seat holds now (four bitmasks),
        ``seats`` the seat indices to score (in the order their weights are added),
        ``played[q]`` the cards seat ``q`` has played (with what it holds now, the cards
        it was dealt). A seat's weight depends only on its own cards: it is cached."""
        bids = BidEvidence(self.bid_model, view) if view.bids and self.bid_weight > 0 else None
        plays = (PlayEvidence(self.play_model, view)
                 if view.phase == "play" and self.play_weight > 0 else None)
        scored = bids is not None and any(bids.seats()) or plays is not None and plays.by_seat
        caches: list = [{}, {}, {}, {}]
        bw, pw = self.bid_weight, self.play_weight

        def seat_weight(q, now, dealt_mask):
            lw = 0.0
            if bids is not None:
                lw += bw * bids.log_likelihood_of(SEATS[q], dealt_mask)
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
                    hands = hands_of(d)
                    for q in seats:
                        now = hands[q]
                        w = caches[q].get(now)
                        if w is None:
                            w = caches[q][now] = seat_weight(q, now, now | played[q])
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
        self._scale = 1.0
        mk = SEATS.index(view.maker) & 1
        me = SEATS.index(view.seat)
        out = tuple(SEATS.index(s) for s in view.sitting_out)
        played = played_masks(view)
        others = [q for q in range(4) if q != me and q not in out]
        race = Race(legal, self.z, self.least)
        solved = 0
        self.worlds = []
        for hands, count in self._worlds(view, rng, PlaySampler(view).draw, _same, others, played):
            self.worlds.append((hands, count))
            solver = Solver(view.trump, mk, out)
            if self.trick_policy and len(view.trick) < 3 - len(out):
                values = self._policy_values(view, hands, race.live, solver,
                                             [rng.random() for _ in range(3)])
            else:
                values = play_values(view, hands, race.live, solver)
            if self.play_rollouts:
                values = self._blend_playouts(view, hands, values, rng)
            race.add(values, count)
            self.spent += solver.work
            solved += 1
            if self._done(start, solved) or (solved % self.batch == 0 and race.settled()):
                break
        self.last_samples = solved
        self.race = race
        return self._totals(race, legal)

    def _blend_playouts(self, view, hands, values, rng) -> dict:
        """Each card's exact value blended (weight ``1 - mix``) with ``play_rollouts``
        playouts by the play model after it (every seat, this one included, playing as
        a player who sees only its own cards tends to), with the same random numbers
        for every card."""
        trump = view.trump
        me = SEATS.index(view.seat)
        maker = SEATS.index(view.maker)
        mk = maker & 1
        out = tuple(SEATS.index(s) for s in view.sitting_out)
        gone = 0 if view.dealer_took_upcard else view.upcard.bit
        for _, cards, _ in view.tricks:
            gone |= mask_of(c for _, c in cards)
        gone |= mask_of(c for _, c in view.trick)
        trick = tuple((SEATS.index(s), c.index) for s, c in view.trick)
        won = view.tricks_won[mk]
        nactive = 4 - len(out)
        seeds = [rng.random() for _ in range(self.play_rollouts)]
        blended = {}
        for a, v in values.items():
            c = a.card
            total = 0.0
            for seed in seeds:
                nh = list(hands)
                nh[me] &= ~c.bit
                t = trick + ((me, c.index),)
                w, p = won, me
                if len(t) == nactive:
                    winner = t[trick_winner_index([Card(i) for _, i in t], trump)][0]
                    w += (winner & 1) == mk
                    p, t = winner, ()
                else:
                    p = (me + 1) % 4
                    while p in out:
                        p = (p + 1) % 4
                taken = playout(trump, maker, out, nh, gone | c.bit, t, w, p, self.play_model,
                                random.Random(seed))
                mk_pts, def_pts = hand_points(view.rules, view.alone, view.defender_alone, taken)
                total += _utility(view, me & 1, mk, mk_pts, def_pts)
            self.spent += ROLLOUT_WORK * len(seeds)
            blended[a] = self.mix * v + (1 - self.mix) * total / len(seeds)
        return blended

    def _policy_values(self, view, hands, legal, solver, uniforms) -> dict:
        """Like ``play_values``, but the players after this seat in the current trick
        play as the play model says a player holding their cards would (drawn with the
        same random numbers for every candidate card); from the next trick on, perfect
        play. Guards against crediting the others with seeing through every hand at the
        trick whose cards they choose right after ours."""
        trump = view.trump
        me = SEATS.index(view.seat)
        maker = SEATS.index(view.maker)
        mk = maker & 1
        out = tuple(SEATS.index(s) for s in view.sitting_out)
        nactive = 4 - len(out)
        thresholds = _thresholds(view.rules, view.alone, view.defender_alone)
        won = view.tricks_won[mk]
        trick = tuple((SEATS.index(s), c.index) for s, c in view.trick)
        gone = 0 if view.dealer_took_upcard else view.upcard.bit
        for _, cards, _ in view.tricks:
            gone |= mask_of(c for _, c in cards)
        gone |= mask_of(c for _, c in view.trick)
        model = self.play_model
        values = {}
        for a in legal:
            c = a.card
            nh = list(hands)
            nh[me] &= ~c.bit
            t = trick + ((me, c.index),)
            g = gone | c.bit
            p = me
            k = 0
            while len(t) < nactive:
                p = (p + 1) % 4
                while p in out:
                    p = (p + 1) % 4
                j = model.draw(PlayContext(trump, p, -1, t, g, maker, nactive), nh[p], uniforms[k])
                k += 1
                nh[p] &= ~(1 << j)
                t += ((p, j),)
                g |= 1 << j
            winner = t[trick_winner_index([Card(i) for _, i in t], trump)][0]
            taken = solver.maker_tricks(nh, winner, thresholds, (), won + ((winner & 1) == mk))
            mk_pts, def_pts = hand_points(view.rules, view.alone, view.defender_alone, taken)
            values[a] = _utility(view, me & 1, mk, mk_pts, def_pts)
        return values

    def _explain(self, view, legal, best, means, n, rule_action, rule_reason) -> str:
        """In a player's words: what to do and the rule of thumb behind it, the surest
        thing the likely deals say about a hidden hand, and the points expected."""
        if best == rule_action:
            first = rule_reason.rstrip(".")
        else:
            first = action_words(view, best)
        parts = [first]
        odds = self._bid_odds(view, best, legal, means)
        if odds:
            parts.append(odds)
        trump = view.trump
        if trump is None:
            trump = best.suit if best.kind == "call" else (view.upcard.suit if view.phase == "round 1" else None)
        read = table_read(view, self.worlds, trump)
        if read:
            parts.append(read)
        ranked = sorted((a for a in legal if means[a] != float("-inf") and a != best), key=lambda a: -means[a])
        expect = f"Expect {means[best]:+.1f} points"
        if ranked:
            expect += f", against {means[ranked[0]]:+.1f} for {_other_words(view, ranked[0])}"
        parts.append(expect + f" (over {n} likely deals)")
        return ". ".join(parts) + "."

    def _bid_odds(self, view, best, legal, means) -> Optional[str]:
        """For a bid: how often the contract is made (or would be euchred), in words."""
        race = self.race
        if view.phase not in ("round 1", "round 2") or race is None:
            return None
        bids = [a for a in legal if a.kind in ("order", "call") and race.values.get(a)]
        if best.kind in ("order", "call"):
            contract = best
        elif bids:
            contract = max(bids, key=lambda a: means[a])
        else:
            return None
        vals = race.values[contract]
        w = race.counts[:len(vals)]
        made = sum(c for c, v in zip(w, vals) if v > 0) / sum(w)
        tenths = round(10 * made)
        if contract is best:
            return f"Your side makes it in {tenths} of 10 likely deals"
        words = _other_words(view, contract)
        return f"{words[0].upper() + words[1:]}, your side would be euchred in {10 - tenths} of 10 likely deals"

    @staticmethod
    def _totals(race, legal):
        """Totals and a count whose ratio is each action's mean (as SearchBot.advise reads
        them), and -inf for actions never tried."""
        n = max(race.n, 1)
        return {a: (race.mean(a) * n if race.values.get(a) else float("-inf")) for a in legal}, race.n

    # ------------------------------------------------------------------ bidding
    def _rollout(self, h):
        """Bidding, discard and defending finished in the imagined deal: the bids by
        the fitted model, the rest by Medium's rules."""
        bidder, medium = self.bidder, self.medium
        bidder.rng = self._rollout_rng if self.stochastic else None
        while h.phase not in ("play", "over"):
            v = h.view(h.to_act)
            h.apply((bidder if h.phase in ("round 1", "round 2") else medium).choose(v))
        return h

    def _score_hand(self, view, h, my_team) -> float:
        """Points of an imagined deal after the bidding: the exact solution, blended
        (weight ``1 - mix``) with ``rollouts`` playouts in which every seat plays as the
        play model says. Playing with all cards seen flatters both sides' play; the
        playouts are what players who see only their own cards tend to make of it."""
        value = super()._score_hand(view, h, my_team)
        self.last_parts = (value, value)
        if h.phase != "play" or not self.rollouts:
            return value
        mk = h.maker & 1
        total = 0.0
        for _ in range(self.rollouts):
            taken = policy_playout(h, self.play_model, self._rollout_rng)
            mk_pts, def_pts = hand_points(view.rules, h.alone, h.defender_alone, taken)
            total += _utility(view, my_team, mk, mk_pts, def_pts)
        self.last_nodes += ROLLOUT_WORK * self.rollouts
        self.last_parts = (value, total / self.rollouts)
        return self.mix * value + (1 - self.mix) * total / self.rollouts

    def _eval_bid(self, view, legal, rng, start):
        self.spent = 0
        self._scale = self.bid_scale
        if self.bid_parts is not None:
            self.bid_parts = {}
        my_team = SEATS.index(view.seat) & 1
        candidates = self._candidates(view, legal, self.medium.choose(view))
        race = Race(candidates, self.z, self.least)
        solved = failures = 0
        self.worlds = []
        # The others in the order sample_dealt deals them (the order their weights add).
        me = SEATS.index(view.seat)
        others = [(me + k) % 4 for k in (1, 2, 3)]

        self._rollout_rng = random.Random(rng.random())
        rel = (SEATS.index(view.seat) - SEATS.index(view.dealer)) % 4
        corrections = {a: bid_correction(a, view.phase, rel, self.pickup_bonus, self.assist_bonus,
                                         self.alone_discount) for a in candidates}
        for dealt, count in self._worlds(view, rng, lambda r: sample_dealt(view, r), _dealt_masks,
                                         others, [0, 0, 0, 0]):
            base = self._replay(view, dealt)
            self.spent += REPLAY_WORK
            self.worlds.append((_dealt_masks(dealt), count))
            if base is None:
                failures += 1
                if failures > 20:
                    break
                continue
            values = {}
            for a in race.live:
                h = base.copy()
                h.apply(a)
                values[a] = self._score_hand(view, self._rollout(h), my_team)
                if corrections[a]:
                    values[a] += corrections[a]
                if self.bid_parts is not None:
                    self.bid_parts.setdefault(a, []).append((count, *self.last_parts))
                self.spent += self.last_nodes
            race.add(values, count)
            solved += 1
            if self._done(start, solved) or (solved % self.batch == 0 and race.settled()):
                break
        self.last_samples = solved
        self.race = race
        return self._totals(race, legal)


# --------------------------------------------------------------------------- reasons

def action_words(view, a) -> str:
    """An action as a player says it: "Order it up", "Lead the jack of hearts"."""
    if a.kind == "pass":
        return "Pass"
    if a.kind == "order":
        verb = "Pick it up" if view.seat == view.dealer else "Order it up"
        return verb + (" and go alone" if a.alone else "")
    if a.kind == "call":
        return f"Call {SUIT_NAMES[a.suit]}" + (" and go alone" if a.alone else "")
    if a.kind == "discard":
        return f"Discard the {a.card.name}"
    if a.kind == "play":
        return ("Lead" if not view.trick else "Play") + f" the {a.card.name}"
    if a.kind == "defend":
        return "Defend alone"
    if a.kind == "take":
        return "Take it alone"
    return str(a)


def _other_words(view, a) -> str:
    """The same action as the thing compared against: "passing", "the king of spades"."""
    if a.kind == "pass":
        return "passing"
    if a.kind == "order":
        return "going alone" if a.alone else ("picking it up" if view.seat == view.dealer else "ordering it up")
    if a.kind == "call":
        return f"calling {SUIT_NAMES[a.suit]}" + (" alone" if a.alone else "")
    if a.kind == "discard":
        return f"discarding the {a.card.name}"
    if a.kind == "play":
        return f"the {a.card.name}"
    return f"{a}"


def _who(view, seat: str) -> str:
    return "your partner" if seat == partner(view.seat) else SEAT_NAMES[seat]


def table_read(view, worlds, trump) -> Optional[str]:
    """The surest thing the likely deals say about a hidden hand, in words ("East is
    probably out of trumps", "your partner probably holds the left bower"), or None.
    ``worlds``: ``(four bitmasks of what each seat holds, count)``."""
    if not worlds or trump is None:
        return None
    total = sum(c for _, c in worlds)
    me = SEATS.index(view.seat)
    out = {SEATS.index(s) for s in view.sitting_out}
    seen = mask_of(view.cards)
    for _, cards, _ in view.tricks:
        seen |= mask_of(c for _, c in cards)
    seen |= mask_of(c for _, c in view.trick)
    others = [q for q in range(4) if q != me and q not in out]
    trump_mask = SUIT_MASK[trump][trump]
    eff = EFFECTIVE_SUIT[trump]
    key_cards = [c for c in DECK if not seen & c.bit and (
        (eff[c.index] == trump and POWER[trump][c.index] >= 11) or (eff[c.index] != trump and c.rank == "A"))]
    best, best_gain = None, 0.25
    if view.phase == "play":
        voids = void_masks(view)
        for q in others:
            if voids[q] & trump_mask:
                continue   # shown: nothing to infer
            p = sum(c for hands, c in worlds if not hands[q] & trump_mask) / total
            if p >= 0.85 and p - 0.5 > best_gain:
                best, best_gain = f"{_who(view, SEATS[q])} is probably out of trumps", p - 0.5
    holders = len(others) + 1   # the kitty too
    for card in key_cards:
        for q in others:
            p = sum(c for hands, c in worlds if hands[q] & card.bit) / total
            if p >= 0.7 and p - 1 / holders > best_gain:
                best, best_gain = f"{_who(view, SEATS[q])} probably holds the {card.name}", p - 1 / holders
    if best is None:
        return None
    return best[0].upper() + best[1:]
