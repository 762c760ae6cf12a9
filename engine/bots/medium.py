"""Rule-based players: Medium (sound bidding and play, no card memory) and Easy (rough and careless).

The rules are the strategy tips of seeds 000 and 004: count trumps; order with three
trumps including a bower, or both bowers and an ace; discard to make a void; lead trump
as maker, off-suit aces as defender; don't overtake the partner; "next" in round 2;
count a trick for the partner; go alone with a sure three tricks and a real chance of five.

>>> from engine import Hand, Rules
>>> h = Hand.deal(Rules.preset("standard"), dealer="S",
...     hands={"W": "JH JD AH 9C 10C", "N": "9S 10S QS KS AS", "E": "9H 10H QH KH 9D",
...            "S": "10D QD KD AD JC"}, upcard="QC")
>>> MediumBot().advise(h.view("W"))[0]
Action('pass')
"""
from __future__ import annotations

import random
from typing import Optional

from engine.cards import (EFFECTIVE_SUIT, POWER, SAME_COLOUR, SEATS, SUIT_NAMES,
                          SUITS, Card)
from engine.hand import Action

# Rough trick values of trumps (right bower, left bower, A K Q 10 9) and of off-suit
# cards. They are a count of likely tricks, so that "my tricks + one for the partner
# >= 3" reads like the tip it comes from.
_TRUMP_VALUE = {13: 1.0, 12: 0.85, 11: 0.7, 10: 0.55, 9: 0.45, 8: 0.4, 7: 0.4}
ORDER_AT = 1.9
"""Estimated own tricks at which Medium orders or calls (a trick is counted for the partner)."""
ALONE_AT = 3.55
"""Estimated own tricks at which Medium goes alone: three sure tricks and a chance of five."""
DEFEND_ALONE_AT = 3.4
"""Estimated own tricks (as a defender) at which Medium defends alone."""


def _power(card: Card, trump: str) -> int:
    return POWER[trump][card.index]


def estimate(cards, trump: str) -> float:
    """Tricks a hand is likely to take itself with ``trump`` as trump.

    >>> round(estimate([Card(c) for c in "JH JD AH 9C 10C".split()], "H"), 2)
    3.05
    """
    est = 0.0
    eff = EFFECTIVE_SUIT[trump]
    trumps = [c for c in cards if eff[c.index] == trump]
    for c in trumps:
        est += _TRUMP_VALUE[_power(c, trump)]
    by_suit: dict = {}
    for c in cards:
        s = eff[c.index]
        if s != trump:
            by_suit.setdefault(s, []).append(c)
    for cs in by_suit.values():
        ranks = {c.rank for c in cs}
        if "A" in ranks:
            # An ace in a long side suit is often trumped on the second round: count less.
            est += 0.6 if len(cs) <= 2 else 0.45
            if "K" in ranks:
                est += 0.3
        elif "K" in ranks and len(cs) >= 2:
            est += 0.2
    if len(trumps) >= 2:
        voids = sum(1 for s in SUITS if s != trump and s not in by_suit)
        est += 0.25 * voids
    return est


def best_discard(cards, trump: str, forbidden: Optional[Card] = None) -> Card:
    """The card a dealer throws away after taking the up-card: a lone off-suit card to
    make a void if there is one (never an ace), else the lowest off-suit card, else the
    lowest trump."""
    eff = EFFECTIVE_SUIT[trump]
    options = [c for c in cards if c != forbidden]
    off = [c for c in options if eff[c.index] != trump]
    if off:
        count: dict = {}
        for c in cards:
            count[eff[c.index]] = count.get(eff[c.index], 0) + 1
        singles = [c for c in off if count[eff[c.index]] == 1 and c.rank != "A"]
        pool = singles or [c for c in off if c.rank != "A"] or off
        return min(pool, key=lambda c: (_power(c, trump), c.index))
    return min(options, key=lambda c: (_power(c, trump), c.index))


def dealer_estimate(cards, upcard: Card, forbid_upcard: bool) -> float:
    """A dealer's estimate for the up-card's suit: the hand after taking it and discarding."""
    trump = upcard.suit
    six = list(cards) + [upcard]
    d = best_discard(six, trump, upcard if forbid_upcard else None)
    return estimate([c for c in six if c != d], trump)


def bid_estimate(cards, seat: str, dealer: str, upcard: Card, trump: str, round1: bool,
                 forbid_upcard: bool = False) -> float:
    """Own tricks for calling ``trump``, counting who will hold the up-card in round 1:
    the dealer adds it, the dealer's partner gains from it, the opponents lose by it."""
    if round1:
        rel = (SEATS.index(seat) - SEATS.index(dealer)) % 4
        if rel == 0:
            return dealer_estimate(cards, upcard, forbid_upcard)
        est = estimate(cards, trump)
        worth = _TRUMP_VALUE[_power(upcard, trump)]
        return est + 0.35 * worth if rel == 2 else est - 0.35 * worth
    est = estimate(cards, trump)
    # "Next": the suit of the same colour as the turned-down card is a good call for
    # the dealer's left, since the dealer showed no interest in either bower's suit.
    rel = (SEATS.index(seat) - SEATS.index(dealer)) % 4
    if trump == SAME_COLOUR[upcard.suit] and rel in (1, 3):
        est += 0.15
    return est


def _trick_state(trick, trump):
    """(winning seat, winning card) of a trick in progress."""
    eff, power = EFFECTIVE_SUIT[trump], POWER[trump]
    led = eff[trick[0][1].index]
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        s = eff[card.index]
        if (s == trump or s == led) and (
                (eff[best.index] != trump and s == trump) or
                (s == eff[best.index] and power[card.index] > power[best.index])):
            best_seat, best = seat, card
    return best_seat, best


def _beats(card: Card, best: Card, led: str, trump: str) -> bool:
    eff, power = EFFECTIVE_SUIT[trump], POWER[trump]
    s, bs = eff[card.index], eff[best.index]
    if s == trump:
        return bs != trump or power[card.index] > power[best.index]
    return s == led and bs == led and power[card.index] > power[best.index]


def _partner(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 2) % 4]


def _team(seat: str) -> int:
    return SEATS.index(seat) & 1


def _trash(cards, hand, trump):
    """The card least worth keeping: an off-suit card from the shortest suit (to make a
    void), not an ace; trumps last."""
    eff = EFFECTIVE_SUIT[trump]
    count = {}
    for c in hand:
        count[eff[c.index]] = count.get(eff[c.index], 0) + 1

    def key(c):
        t = eff[c.index] == trump
        return (t, c.rank == "A", _power(c, trump), count[eff[c.index]], c.index)
    return min(cards, key=key)



def legal_or_forced(view):
    """The seat's legal actions, and ``(action, reason)`` when there is only one (else
    None); a seat that is not to act has nothing to decide."""
    legal = list(view.legal)
    if not legal:
        raise ValueError(f"{view.seat} has nothing to do now: it is {view.to_act}'s turn")
    return legal, ((legal[0], "The only legal action") if len(legal) == 1 else None)

class Bot:
    """What every computer player offers: ``advise(view)`` gives ``(action, reason)``,
    ``choose(view)`` the action alone."""

    def choose(self, view) -> Action:
        """The action this player takes now (one of ``view.legal``)."""
        return self.advise(view)[0]

    def advise(self, view):
        raise NotImplementedError


class MediumBot(Bot):
    """Sound play by rules of thumb, without remembering which cards are gone."""

    level = "medium"

    def __init__(self, seed: Optional[int] = None):
        self.seed = seed

    def advise(self, view):
        """``(action, reason)``: the action and why, in a player's words."""
        legal, forced = legal_or_forced(view)
        if forced:
            return forced
        ph = view.phase
        if ph == "play":
            return self._play(view, legal)
        if ph == "discard":
            return self._discard(view, legal)
        if ph == "round 1":
            return self._round1(view, legal)
        if ph == "round 2":
            return self._round2(view, legal)
        if ph == "overcall":
            trump = view.upcard.suit
            est = estimate(view.cards, trump)
            if est >= ALONE_AT and Action("take alone") in legal:
                return Action("take alone"), f"Strong enough to play {SUIT_NAMES[trump]} alone"
            return Action("pass"), "Not strong enough to take it alone"
        if ph == "defend":
            est = estimate(view.cards, view.trump)
            if est >= DEFEND_ALONE_AT and Action("defend alone") in legal:
                return Action("defend alone"), "Enough trumps to defend alone"
            return Action("pass"), "Defend with the partner"
        return legal[0], "The only sensible action"

    # ------------------------------------------------------------------ bidding
    def _round1(self, view, legal):
        up = view.upcard
        forbid = not view.rules.dealer_may_discard_upcard
        est = bid_estimate(view.cards, view.seat, view.dealer, up, up.suit, True, forbid)
        est += _score_pressure(view)
        alone_ok = Action("order alone") in legal
        only_alone = Action("order") not in legal
        name = SUIT_NAMES[up.suit]
        if alone_ok and est >= ALONE_AT - (0.3 if only_alone else 0.0):
            return Action("order alone"), f"Three sure tricks and a chance of five in {name}: go alone"
        if not only_alone and est >= ORDER_AT:
            return Action("order"), _order_reason(view.cards, up.suit, "order it up")
        return Action("pass"), f"Not enough in {name} to order it up, even counting a trick for the partner"

    def _round2(self, view, legal):
        best, best_est = None, -1.0
        for s in SUITS:
            if Action(f"call {s}") not in legal:
                continue
            e = bid_estimate(view.cards, view.seat, view.dealer, view.upcard, s, False)
            if e > best_est:
                best, best_est = s, e
        best_est += _score_pressure(view)
        stuck = Action("pass") not in legal
        if best is None:
            return legal[0], "The only legal action"
        if best_est >= ALONE_AT:
            return Action(f"call {best} alone"), f"Three sure tricks and a chance of five in {SUIT_NAMES[best]}: go alone"
        if best_est >= ORDER_AT or stuck:
            why = "stuck as dealer: name the best suit" if stuck and best_est < ORDER_AT else "name it"
            if best == SAME_COLOUR[view.upcard.suit] and not stuck:
                why = "call next"
            return Action(f"call {best}"), _order_reason(view.cards, best, why)
        return Action("pass"), "No suit strong enough to name"

    def _discard(self, view, legal):
        options = [a.card for a in legal]
        d = best_discard(list(view.cards), view.trump,
                         None if view.rules.dealer_may_discard_upcard else view.upcard)
        if d not in options:
            d = min(options, key=lambda c: (_power(c, view.trump), c.index))
        eff = EFFECTIVE_SUIT[view.trump]
        left = [c for c in view.cards if c != d and eff[c.index] == eff[d.index]]
        if eff[d.index] != view.trump and not left:
            return Action(f"discard {d}"), f"Discard the {d.name} to be void in {SUIT_NAMES[eff[d.index]]}"
        return Action(f"discard {d}"), f"Discard the {d.name}, the least useful card"

    # ------------------------------------------------------------------ play
    def _play(self, view, legal):
        trump = view.trump
        cards = [a.card for a in legal]
        hand = list(view.cards)
        eff = EFFECTIVE_SUIT[trump]
        me = view.seat
        maker_side = view.maker is not None and _team(view.maker) == _team(me)
        if not view.trick:
            trumps = sorted((c for c in cards if eff[c.index] == trump), key=lambda c: -_power(c, trump))
            aces = [c for c in cards if eff[c.index] != trump and c.rank == "A"]
            if maker_side and trumps and (_power(trumps[0], trump) == 13 or
                                          (view.maker == me and len(trumps) >= 2)):
                return Action(f"play {trumps[0]}"), "Lead trump as maker to draw the opponents' trumps"
            if aces:
                a = aces[0]
                return Action(f"play {a}"), f"Lead the off-suit ace ({a.name})"
            off = [c for c in cards if eff[c.index] != trump]
            if off:
                count = {}
                for c in hand:
                    count[eff[c.index]] = count.get(eff[c.index], 0) + 1
                c = min(off, key=lambda c: (count[eff[c.index]], _power(c, trump)))
                return Action(f"play {c}"), "Lead a short off-suit to make a void"
            return Action(f"play {trumps[0]}"), "Only trumps left: lead the highest"
        led = eff[view.trick[0][1].index]
        win_seat, win_card = _trick_state(view.trick, trump)
        active = 4 - len(view.sitting_out)
        last = len(view.trick) == active - 1
        winners = [c for c in cards if _beats(c, win_card, led, trump)]
        if win_seat == _partner(me):
            sure = eff[win_card.index] == trump and _power(win_card, trump) >= 11 or \
                (eff[win_card.index] != trump and win_card.rank == "A")
            if last or sure or not winners:
                c = _trash(cards, hand, trump)
                return Action(f"play {c}"), "Partner is winning the trick: don't overtake, play low"
        if winners:
            c = min(winners, key=lambda c: _power(c, trump) + (20 if eff[c.index] == trump and led != trump else 0))
            if eff[c.index] == trump and led != trump:
                return Action(f"play {c}"), "Trump in: void in the suit led"
            return Action(f"play {c}"), "Win the trick as cheaply as possible"
        c = _trash(cards, hand, trump)
        return Action(f"play {c}"), "Cannot win this trick: throw the least useful card"


def _score_pressure(view) -> float:
    """Bid a little more boldly when the opponents are about to win the game."""
    if view.score is None:
        return 0.0
    target = view.rules.target
    mine = view.score[_team(view.seat)]
    theirs = view.score[1 - _team(view.seat)]
    if theirs >= target - 2 and mine < theirs:
        return 0.15
    return 0.0


def _order_reason(cards, trump, verb):
    eff = EFFECTIVE_SUIT[trump]
    trumps = [c for c in cards if eff[c.index] == trump]
    bowers = [c for c in trumps if _power(c, trump) >= 12]
    name = SUIT_NAMES[trump]
    if len(bowers) == 2:
        what = f"both bowers and {len(trumps) - 2} more {name}"
    elif bowers:
        what = f"{len(trumps)} {name} with the {'right' if _power(bowers[0], trump) == 13 else 'left'} bower"
    else:
        what = f"{len(trumps)} {name}"
    return f"{what.capitalize()}: {verb}"


class EasyBot(MediumBot):
    """Bids from a rough count, sometimes rashly; often plays a careless (legal) card."""

    level = "easy"
    CARELESS = 0.35
    RASH = 0.12

    def __init__(self, seed: Optional[int] = None):
        super().__init__(seed)
        self.rng = random.Random(seed)

    def advise(self, view):
        legal, forced = legal_or_forced(view)
        if forced:
            return forced
        if view.phase in ("round 1", "round 2"):
            return self._rough_bid(view, legal)
        if view.phase == "play" and self.rng.random() < self.CARELESS:
            return self.rng.choice(legal), "Any card will do"
        return super().advise(view)

    def _rough_bid(self, view, legal):
        options = [a for a in legal if a.kind in ("order", "call") and not a.alone]
        alone = [a for a in legal if a.alone]
        best, best_n = None, -1.0
        for a in options + ([] if options else alone):
            trump = a.suit or view.upcard.suit
            cards = list(view.cards) + ([view.upcard] if view.phase == "round 1" and view.seat == view.dealer else [])
            n = sum(1 for c in cards if c.is_trump(trump)) + 0.5 * sum(
                1 for c in cards if c.rank == "A" and not c.is_trump(trump))
            if n > best_n:
                best, best_n = a, n
        if best is None:
            return legal[0], "The only legal action"
        rash = self.rng.random() < self.RASH
        if best_n >= 3 or (best_n >= 2 and rash) or Action("pass") not in legal:
            return best, "Looks like enough trumps" if best_n >= 3 else "Feeling lucky"
        return Action("pass"), "Not enough trumps"


class RandomBot(Bot):
    """Any legal action, uniformly at random: a floor for the benchmark."""

    level = "random"

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def advise(self, view):
        if not view.legal:
            raise ValueError(f"{view.seat} has nothing to do now: it is {view.to_act}'s turn")
        return self.rng.choice(list(view.legal)), "Chosen at random"
