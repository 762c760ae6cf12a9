"""Properties over random play under random rules: conservation, no dead ends, exact undo, scoring."""
import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import DECK, Game, Hand, IllegalAction, Rules, RulesError, score_hand
from engine.cards import SEATS, cards_of

rules_strategy = st.builds(
    dict,
    base=st.sampled_from(["standard", "stick-the-dealer", "somerset-1888", "openspiel"]),
    stick_the_dealer=st.booleans(), canadian_loner=st.booleans(),
    dealer_picks_up_when_partner_alone=st.booleans(),
    lone_lead=st.sampled_from(["left_of_dealer", "left_of_loner"]),
    defend_alone=st.booleans(), lone_defender_leads=st.booleans(),
    lone_euchre_points=st.sampled_from([2, 4]), overcall_alone=st.booleans(),
    dealer_may_discard_upcard=st.booleans(),
)


def build_rules(d):
    d = dict(d)
    base = d.pop("base")
    try:
        return Rules.preset(base).replace(**d)
    except RulesError:
        assume(False)


def all_cards_accounted(hand):
    held = [m for m in hand.hands]
    played = [c for _, t, _ in hand.tricks for _, c in t] + [c for _, c in hand.trick]
    pieces = [c for m in held for c in cards_of(m)] + played + list(hand.kitty)
    if hand.discarded is not None:
        pieces.append(hand.discarded)
    if not hand.dealer_took:
        pieces.append(hand.upcard)
    return sorted(pieces, key=lambda c: c.index) == list(DECK)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), dealer=st.sampled_from(SEATS))
def test_random_play_keeps_every_invariant(rules, seed, dealer):
    rules = build_rules(rules)
    rng = random.Random(seed)
    hand = Hand.deal(rules, dealer=dealer, rng=rng)
    keys = [hand.state_key()]
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal, "no dead ends: someone can always act until the hand is over"
        assert all_cards_accounted(hand)
        hand.apply(rng.choice(legal))
        keys.append(hand.state_key())
    assert all_cards_accounted(hand)
    r = hand.result
    if not r.thrown_in:
        assert len(hand.tricks) == 5 and sum(r.tricks.values()) == 5
        n_active = 4 - len(hand.out)
        assert all(len(t) == n_active for _, t, _ in hand.tricks)
        defenders = "EW" if r.makers == "NS" else "NS"
        expected = score_hand(rules, r.tricks[r.makers], r.alone is not None,
                              r.defender_alone is not None)
        assert (r.points[r.makers], r.points[defenders]) == expected
    # undo restores every earlier state exactly
    for k in reversed(keys[:-1]):
        hand.undo()
        assert hand.state_key() == k


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_illegal_actions_are_refused_without_changing_the_state(seed):
    rng = random.Random(seed)
    hand = Hand.deal(Rules.preset("standard"), dealer="N", rng=rng)
    every = ["pass", "order", "order alone", "defend alone", "take alone"] + \
        [f"call {s}" for s in "SHDC"] + [f"play {c}" for c in DECK] + [f"discard {c}" for c in DECK]
    while not hand.is_over:
        legal = {str(a) for a in hand.legal_actions()}
        for text in rng.sample(every, 8):
            if text not in legal:
                key = hand.state_key()
                try:
                    hand.apply(text)
                except IllegalAction as exc:
                    assert str(exc) and hand.state_key() == key
                else:
                    raise AssertionError(f"{text} was accepted but not listed as legal")
        hand.apply(rng.choice(sorted(legal)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(["standard", "somerset-1888"]))
def test_a_game_replays_exactly_from_json(seed, preset):
    rng = random.Random(seed)
    g = Game(Rules.preset(preset), first_dealer=rng.choice(SEATS), seed=seed)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    again = Game.from_json(g.to_json())
    assert [h.state_key() for h in again.hands] == [h.state_key() for h in g.hands]
    assert again.winner == g.winner and again.score == g.score


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_deal_passes_left_after_every_hand_thrown_in_or_not(seed):
    rng = random.Random(seed)
    g = Game(Rules.preset("standard"), first_dealer="S", seed=seed)
    while not g.is_over:
        # Everyone passes in the first two hands (thrown in); after that, random play.
        legal = g.legal_actions()
        throw_in = len(g.hands) <= 2 and str(legal[0]) == "pass"
        g.apply(legal[0] if throw_in else rng.choice(legal))
    dealers = [h.dealer_seat for h in g.hands]
    assert all(SEATS.index(b) == (SEATS.index(a) + 1) % 4 for a, b in zip(dealers, dealers[1:]))
    assert g.hands[0].result.thrown_in and g.hands[1].result.thrown_in
    assert dealers[:3] == ["S", "W", "N"]


def test_views_hide_what_a_seat_cannot_see():
    rules = Rules.preset("standard")
    rng = random.Random(7)
    for _ in range(200):
        h = Hand.deal(rules, dealer="S", rng=rng)
        while not h.is_over:
            h.apply(rng.choice(h.legal_actions()))
            seat = rng.choice(SEATS)
            v = h.view(seat)
            # Swap two hidden cards between two other seats: the view must not change.
            others = [s for s in SEATS if s != seat]
            a, b = rng.sample(others, 2)
            ia, ib = SEATS.index(a), SEATS.index(b)
            if h.hands[ia] and h.hands[ib]:
                twin = h.copy()
                ca, cb = cards_of(h.hands[ia])[0], cards_of(h.hands[ib])[0]
                twin.hands[ia] = (twin.hands[ia] & ~ca.bit) | cb.bit
                twin.hands[ib] = (twin.hands[ib] & ~cb.bit) | ca.bit
                assert twin.view(seat) == v
