"""Imagined deals: full deals consistent with everything one seat has seen, for the searching players.

A seat knows its own cards, the up-card (and, once the dealer took it, that the dealer
holds it until it is played), its own discard when it dealt, every bid and every card
played, and so every void shown by a player who did not follow suit. The samplers here
draw the hidden cards uniformly among the deals that fit those facts (up to the small
bias of placing the most constrained seat first), and ``bid_likelihood`` scores how well
a deal explains the bids and passes seen, for Insane's weighting.
"""
from __future__ import annotations

import math
from typing import Optional

from engine.cards import EFFECTIVE_SUIT, SEATS, SUIT_MASK, SUITS, cards_of, mask_of
from engine.bots.medium import ALONE_AT, ORDER_AT, bid_estimate

FULL = (1 << 24) - 1


def _idx(seat: str) -> int:
    return SEATS.index(seat)


def _pick(rng, mask: int, n: int) -> int:
    bits = [c.bit for c in cards_of(mask)]
    out = 0
    for b in rng.sample(bits, n):
        out |= b
    return out


def played_masks(view) -> list:
    """Cards each seat has played so far, as four bitmasks (N E S W)."""
    out = [0, 0, 0, 0]
    for _, cards, _ in view.tricks:
        for seat, c in cards:
            out[_idx(seat)] |= c.bit
    for seat, c in view.trick:
        out[_idx(seat)] |= c.bit
    return out


def void_masks(view) -> list:
    """For each seat, the cards it cannot hold because it failed to follow a suit."""
    out = [0, 0, 0, 0]
    if view.trump is None:
        return out
    eff = EFFECTIVE_SUIT[view.trump]
    tricks = [cards for _, cards, _ in view.tricks] + ([view.trick] if view.trick else [])
    for cards in tricks:
        led = eff[cards[0][1].index]
        for seat, c in cards[1:]:
            if eff[c.index] != led:
                out[_idx(seat)] |= SUIT_MASK[view.trump][led]
    return out


def _constraints(view):
    """What every deal drawn for ``view`` must respect: ``(pool, voids, variants)``, the
    unseen cards as a bitmask, each seat's shown voids, and ``(fixed, need)`` pairs (the
    cards each seat surely holds, how many more it holds), the dealer holding the taken
    up-card first."""
    me = _idx(view.seat)
    own = mask_of(view.cards)
    played = played_masks(view)
    all_played = played[0] | played[1] | played[2] | played[3]
    out = {_idx(s) for s in view.sitting_out}
    dealer = _idx(view.dealer)
    up = view.upcard
    pool = FULL & ~own & ~all_played & ~up.bit
    if view.discard is not None:
        pool &= ~view.discard.bit
    base = [0, 0, 0, 0]
    base[me] = own
    need = [0, 0, 0, 0]
    for p in range(4):
        if p != me and p not in out:
            need[p] = 5 - bin(played[p]).count("1")
    voids = void_masks(view)
    variants = [(base, need)]
    # A dealer who took the up-card holds it until it is played. Try that first; only if
    # no deal fits (the up-card must have been the discard) try without it.
    if (view.dealer_took_upcard and dealer != me and dealer not in out
            and not all_played & up.bit and need[dealer] > 0):
        pinned, pneed = list(base), list(need)
        pinned[dealer] |= up.bit
        pneed[dealer] -= 1
        variants.insert(0, (pinned, pneed))
    return pool, voids, variants


def sample_play(view, rng, tries: int = 30) -> Optional[list]:
    """Four bitmasks of the cards each active seat holds now, this seat's own exactly and
    the others drawn from the unseen cards, respecting shown voids and the dealer's
    up-card. Seats sitting out hold 0. None if no consistent deal was found (possible
    only after a revoke the table did not catch)."""
    pool, voids, variants = _constraints(view)
    for fixed, counts in variants:
        hands = _assign(rng, pool, fixed, counts, voids, tries)
        if hands is not None:
            return hands
    # Only after a revoke nobody caught: drop the voids rather than fail.
    return _assign(rng, pool, variants[-1][0], variants[-1][1], [0, 0, 0, 0], 1)


def _assign(rng, pool, fixed, need, voids, tries):
    if any(fixed[p] & voids[p] for p in range(4)):
        return None
    seats = sorted((p for p in range(4) if need[p] > 0), key=lambda p: -bin(voids[p]).count("1"))
    for attempt in range(tries):
        left = pool
        hands = list(fixed)
        order = seats if attempt == 0 else rng.sample(seats, len(seats))
        for p in order:
            allowed = left & ~voids[p]
            if bin(allowed).count("1") < need[p]:
                break
            got = _pick(rng, allowed, need[p])
            hands[p] |= got
            left &= ~got
        else:
            return hands
    return None


def sample_dealt(view, rng) -> Optional[dict]:
    """The deal as dealt (five cards a seat, the up-card, the kitty), for decisions before
    the play: this seat's cards exactly, the rest uniformly from the unseen cards."""
    me = _idx(view.seat)
    own = mask_of(view.cards)
    up = view.upcard
    if view.seat == view.dealer and view.dealer_took_upcard:
        own &= ~up.bit
        if view.discard is not None:
            own |= view.discard.bit
    if bin(own).count("1") != 5:
        return None
    pool = FULL & ~own & ~up.bit
    hands = {view.seat: cards_of(own)}
    for k in range(1, 4):
        p = (me + k) % 4
        got = _pick(rng, pool, 5)
        pool &= ~got
        hands[SEATS[p]] = cards_of(got)
    return {"hands": hands, "kitty": cards_of(pool), "upcard": up}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def bid_likelihood(view, dealt: dict, scale: float = 0.35) -> float:
    """How likely the others' bids and passes seen in ``view`` are for the hands of
    ``dealt`` (a seat -> cards dict of the cards dealt), under a soft version of
    Medium's bidding: a seat orders with probability rising smoothly with its estimate.

    A round-1 passer rarely holds both bowers of the up-card's suit; a maker usually
    holds trumps; a player who went alone usually holds the top trumps."""
    up = view.upcard
    forbid = not view.rules.dealer_may_discard_upcard
    like = 1.0
    stage = 1  # 1: round 1, 2: round 2, 3: trump fixed (overcall and defend bids)
    for seat, text in view.bids:
        words = text.split()
        cards = dealt.get(seat) if seat != view.seat else None
        if cards is not None:
            if stage == 1:
                est = bid_estimate(cards, seat, view.dealer, up, up.suit, True, forbid)
                p_order = _sigmoid((est - ORDER_AT) / scale)
                if words[0] == "pass":
                    like *= 1.0 - p_order
                else:
                    like *= p_order
                    if len(words) > 1:
                        like *= _sigmoid((est - ALONE_AT) / scale)
            elif stage == 2:
                if words[0] == "pass":
                    best = max(bid_estimate(cards, seat, view.dealer, up, s, False)
                               for s in SUITS if s != up.suit)
                    like *= 1.0 - _sigmoid((best - ORDER_AT) / scale)
                else:
                    est = bid_estimate(cards, seat, view.dealer, up, words[1], False)
                    like *= _sigmoid((est - ORDER_AT) / scale)
                    if len(words) > 2:
                        like *= _sigmoid((est - ALONE_AT) / scale)
            elif words[0] == "take":
                est = bid_estimate(cards, seat, view.dealer, up, up.suit, False)
                like *= _sigmoid((est - ALONE_AT) / scale)
        if words[0] in ("order", "call"):
            stage = 3
        elif stage == 1 and words[0] == "pass" and seat == view.dealer:
            stage = 2
    return like


def dealt_from_play(view, hands: list) -> dict:
    """The cards each seat was dealt, rebuilt from a sampled position in the play: what
    it holds now plus what it has played (the dealer's include the up-card it took)."""
    played = played_masks(view)
    out = {}
    for p in range(4):
        m = hands[p] | played[p]
        if bin(m).count("1") == 5:
            out[SEATS[p]] = cards_of(m)
    return out


class PlaySampler:
    """``sample_play`` for many deals of one view: the constraints are worked out once,
    and each draw works on short lists of card numbers (five times faster)."""

    def __init__(self, view, tries: int = 30):
        pool, voids, variants = _constraints(view)
        self.tries = tries
        self.pool = [c.index for c in cards_of(pool)]
        self.voids = voids
        # Seats with shown voids first (most constrained), the rest take what is left.
        self.variants = []
        for fixed, counts in variants:
            if any(fixed[p] & voids[p] for p in range(4)):
                continue
            seats = sorted((p for p in range(4) if counts[p] > 0),
                           key=lambda p: -bin(voids[p]).count("1"))
            self.variants.append((tuple(fixed), tuple(counts), seats))
        self.fallback = (variants[-1][0], variants[-1][1])

    def draw(self, rng) -> Optional[list]:
        """Four bitmasks, as ``sample_play``; None if no consistent deal was found."""
        voids = self.voids
        # rng.sample(allowed, n) written out, with its _randbelow (random.Random's own
        # methods for a population this small: at most 18 cards, at most 5 drawn): the
        # same random numbers and the same cards without two calls a card, in the
        # innermost loop of Insane's sampling. tests/bots/test_fast_paths.py checks the
        # cards against rng.sample's.
        getrandbits = rng.getrandbits
        for fixed, need, seats in self.variants:
            for attempt in range(self.tries):
                left = self.pool[:]
                hands = list(fixed)
                order = seats if attempt == 0 else rng.sample(seats, len(seats))
                last = order[-1] if order else -1
                for p in order:
                    v = voids[p]
                    allowed = [i for i in left if not v >> i & 1] if v else left[:]
                    n = need[p]
                    size = len(allowed)
                    if size < n:
                        break
                    m = 0
                    for k in range(n):
                        below = size - k
                        bits = below.bit_length()
                        j = getrandbits(bits)
                        while j >= below:
                            j = getrandbits(bits)
                        m |= 1 << allowed[j]
                        allowed[j] = allowed[below - 1]
                    hands[p] |= m
                    if p != last:
                        left = [i for i in left if not m >> i & 1]
                else:
                    return hands
        # Only after a revoke nobody caught: drop the voids rather than fail.
        return _assign(rng, mask_of_indices(self.pool), list(self.fallback[0]),
                       self.fallback[1], [0, 0, 0, 0], 1)


def mask_of_indices(indices) -> int:
    m = 0
    for i in indices:
        m |= 1 << i
    return m
