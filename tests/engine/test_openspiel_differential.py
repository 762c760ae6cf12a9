"""Move-by-move comparison with OpenSpiel's euchre under the `openspiel` preset."""
import random

import pytest

from bench.openspiel_bridge import (ALONE, PARTNER, PASS, SUIT_ACTION, os_actions_for,
                                    os_state_for, to_os_card)
from engine import Hand, Rules
from engine.cards import SEATS, cards_of

pyspiel = pytest.importorskip("pyspiel")

HANDS_PER_SETTING = 2000


def os_legal_of(hand):
    """Our legal actions at this decision, in OpenSpiel's encoding."""
    out = set()
    for a in hand.legal_actions():
        if a.kind == "pass":
            out.add(PARTNER if hand.phase == "defend" else PASS)
        elif a.kind in ("order", "call"):
            out.add(SUIT_ACTION[a.suit or hand.upcard.suit])
        elif a.kind in ("play", "discard"):
            out.add(to_os_card(a.card))
        elif a.kind == "defend":
            out.add(ALONE)
    return out


def play_one(game, rules, rng):
    dealer = rng.choice(SEATS)
    hand = Hand.deal(rules, dealer=dealer, rng=rng)
    hands = {s: cards_of(hand.initial[i]) for i, s in enumerate(SEATS)}
    state = os_state_for(game, dealer, hands, hand.upcard)
    decisions = 0
    while not hand.is_over:
        assert state.current_player() == SEATS.index(hand.to_act), (hand.history, str(state))
        assert set(state.legal_actions()) == os_legal_of(hand), (hand.phase, hand.history)
        phase = hand.phase
        a = rng.choice(hand.legal_actions())
        hand.apply(a)
        for os_action in os_actions_for(phase, a, hand):
            assert os_action in state.legal_actions(), (hand.history, os_action, str(state))
            state.apply_action(os_action)
        decisions += 1
    assert state.is_terminal(), str(state)
    returns = state.returns()
    r = hand.result
    for i, s in enumerate(SEATS):
        team, other = ("NS", "EW") if s in "NS" else ("EW", "NS")
        assert returns[i] == r.points[team] - r.points[other], (hand.history, returns, r)
    return decisions, r


@pytest.mark.parametrize("lone_defender", [False, True],
                         ids=["allow_lone_defender-off", "allow_lone_defender-on"])
def test_legal_moves_and_returns_agree_with_openspiel(lone_defender):
    game = pyspiel.load_game("euchre", {"allow_lone_defender": lone_defender,
                                        "stick_the_dealer": True})
    rules = Rules.preset("openspiel").replace(defend_alone=lone_defender)
    rng = random.Random(20261129 + lone_defender)
    seen = dict(alone=0, defender_alone=0, euchred=0, march=0, round2=0)
    total = 0
    for _ in range(HANDS_PER_SETTING):
        n, r = play_one(game, rules, rng)
        total += n
        seen["alone"] += r.alone is not None
        seen["defender_alone"] += r.defender_alone is not None
        seen["euchred"] += r.euchred
        seen["march"] += r.march
    # The comparison must have reached every kind of ending, or it proves little.
    assert seen["alone"] > 100 and seen["euchred"] > 100 and seen["march"] > 50, seen
    assert (seen["defender_alone"] > 100) == lone_defender, seen
    assert total > HANDS_PER_SETTING * 15  # lone hands play 15 cards, others 20
