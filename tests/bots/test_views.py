"""Bots see only their view: deals that differ in hidden cards give equal views and equal decisions."""
import random

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from engine import Hand, Rules
from engine.bots import make_bot
from engine.cards import EFFECTIVE_SUIT, SEATS, cards_of

from tests.bots._util import random_position

RULES = [Rules.preset(p) for p in ("standard", "stick-the-dealer", "somerset-1888", "openspiel")]


def hidden_swap(hand, seat, rng, swaps=6):
    """The same hand dealt with hidden cards exchanged: cards of the same suit (under
    trump, once it is fixed) swapped between other seats' unplayed cards and the kitty,
    so that every action taken stays legal. Returns a replayed Hand, or None."""
    played = set()
    for _, cards, _ in hand.tricks:
        played.update(c for _, c in cards)
    played.update(c for _, c in hand.trick)
    holders = {SEATS[p]: list(cards_of(hand.initial[p])) for p in range(4)}
    holders["kitty"] = list(hand.kitty)
    # What the seat cannot see: others' unplayed cards, the kitty, and the dealer's
    # discard unless the seat dealt. The up-card and played cards are public.
    movable = {k: [c for c in v if c not in played and c != hand.upcard
                   and not (k == SEATS[hand.dealer] and hand.dealer_took)]
               for k, v in holders.items() if k != seat}
    if SEATS[hand.dealer] != seat and hand.discarded is not None:
        movable[SEATS[hand.dealer]] = [c for c in holders[SEATS[hand.dealer]]
                                       if c not in played and c != hand.upcard]
    trump = hand.trump
    suit = (lambda c: EFFECTIVE_SUIT[trump][c.index]) if trump else (lambda c: "any")
    changed = False
    for _ in range(swaps):
        keys = [k for k in movable if movable[k]]
        if len(keys) < 2:
            break
        a, b = rng.sample(keys, 2)
        ca = rng.choice(movable[a])
        same = [c for c in movable[b] if suit(c) == suit(ca)]
        if not same:
            continue
        cb = rng.choice(same)
        for k, c_out, c_in in ((a, ca, cb), (b, cb, ca)):
            holders[k][holders[k].index(c_out)] = c_in
            movable[k][movable[k].index(c_out)] = c_in
        changed = True
    if not changed:
        return None
    try:
        h = Hand.deal(hand.rules, dealer=SEATS[hand.dealer],
                      hands={s: holders[s] for s in SEATS}, upcard=hand.upcard, kitty=holders["kitty"])
        for s, a in hand.history:
            if a.kind == "discard" and SEATS[hand.dealer] != seat:
                # The dealer's discard is hidden: the swapped dealer discards a card it holds.
                held = set(h.cards(s))
                if a.card not in held:
                    return None
            h.apply(a, seat=s)
    except Exception:
        return None
    return h


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rules_i=st.integers(0, 3))
def test_hidden_cards_change_neither_view_nor_decision(seed, rules_i):
    rules = RULES[rules_i]
    hand = random_position(rules, seed)
    assume(hand is not None)
    seat = hand.to_act
    other = hidden_swap(hand, seat, random.Random(seed))
    # Only deals that really differ test anything.
    assume(other is not None and other.state_key() != hand.state_key())
    v1, v2 = hand.view(seat), other.view(seat)
    assert v1 == v2
    for level in ("easy", "medium", "hard", "insane"):
        b1 = make_bot(level, seed=5, budget=None, samples=3)
        b2 = make_bot(level, seed=5, budget=None, samples=3)
        assert b1.choose(v1) == b2.choose(v2), level


def test_view_hides_what_the_seat_cannot_see():
    rules = Rules.preset("standard")
    hand = Hand.deal(rules, dealer="S", hands={
        "W": "JH JD AH 9C 10C", "N": "9S 10S QS KS AS", "E": "9H 10H QH KH 9D",
        "S": "10D QD KD AD JC"}, upcard="QC")
    hand.apply("pass"); hand.apply("pass"); hand.apply("pass"); hand.apply("order")
    hand.apply("discard 10D")
    west, south = hand.view("W"), hand.view("S")
    assert west.discard is None and str(south.discard) == "10D"
    assert set(map(str, west.cards)) == {"JH", "JD", "AH", "9C", "10C"}
    assert "QC" in map(str, south.cards)


def test_same_view_different_seed_may_differ_but_same_seed_never():
    rules = Rules.preset("standard")
    hand = random_position(rules, 99, want_phase="play")
    v = hand.view(hand.to_act)
    picks = {make_bot("hard", seed=3, budget=None, samples=4).choose(v) for _ in range(3)}
    assert len(picks) == 1
