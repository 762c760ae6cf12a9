"""Every level returns a legal action under every preset and option, in every phase, with a reason."""
import random

import pytest

from engine import Hand, Rules
from engine.bots import LEVELS, make_bot, partner_level, seat_levels
from engine.bots.search import SearchBot

RULESETS = [
    Rules.preset("standard"),
    Rules.preset("stick-the-dealer"),
    Rules.preset("somerset-1888"),
    Rules.preset("openspiel"),
    Rules.preset("openspiel").replace(defend_alone=True),
    Rules.preset("standard").replace(canadian_loner=True, defend_alone=True, lone_defender_leads=True),
    Rules.preset("standard").replace(dealer_picks_up_when_partner_alone=True, lone_euchre_points=4),
    Rules.preset("stick-the-dealer").replace(overcall_alone=True, dealer_may_discard_upcard=False),
]


def bot(level, seed=1):
    return make_bot(level, seed=seed, budget=None, samples=3)


@pytest.mark.parametrize("rules", RULESETS, ids=[r.name for r in RULESETS])
def test_all_levels_play_whole_hands_legally(rules):
    rng = random.Random(hash(rules.name) % 1000)
    phases = set()
    for k in range(4):
        levels = rng.sample(LEVELS, 4)
        bots = {s: bot(lv, k) for s, lv in zip("NESW", levels)}
        hand = Hand.deal(rules, dealer="NESW"[k], rng=rng)
        while not hand.is_over:
            seat = hand.to_act
            view = hand.view(seat)
            action, reason = bots[seat].advise(view)
            assert action in view.legal, (bots[seat].level, hand.phase, action)
            assert isinstance(reason, str) and reason
            phases.add(hand.phase)
            hand.apply(action, seat=seat)
    assert {"round 1", "play"} <= phases


SPECIAL = [
    # (rules, actions leading there, phase, what must be possible)
    (Rules.preset("stick-the-dealer"), ["pass"] * 7, "round 2", "stuck dealer must call"),
    (Rules.preset("somerset-1888"), ["order"], "overcall", "third hand may take it alone"),
    (Rules.preset("standard").replace(canadian_loner=True), ["pass"], "round 1",
     "dealer's partner may only order alone"),
    (Rules.preset("openspiel").replace(defend_alone=True), ["order", "discard"], "defend",
     "a defender may defend alone"),
    (Rules.preset("openspiel"), ["pass", "pass", "pass", "order"], "discard",
     "dealer may not discard the up-card"),
]


@pytest.mark.parametrize("rules,prefix,phase,why", SPECIAL, ids=[s[3] for s in SPECIAL])
@pytest.mark.parametrize("level", LEVELS + ("random",))
def test_special_phases(rules, prefix, phase, why, level):
    for seed in range(3):
        hand = Hand.deal(rules, dealer="S", seed=seed)
        for a in prefix:
            if a == "discard":
                a = hand.legal_actions()[0]
            hand.apply(a)
        assert hand.phase == phase, why
        view = hand.view(hand.to_act)
        action = make_bot(level, seed=seed, budget=None, samples=3).choose(view)
        assert action in view.legal, (why, action, view.legal)
        if phase == "discard":
            assert action.card != hand.upcard


def test_hard_orders_a_monster_and_passes_rubbish():
    rules = Rules.preset("standard")
    strong = Hand.deal(rules, dealer="S", hands={
        "W": "JH JD AH KH AS", "N": "9S 10S QS KS 9C", "E": "9H 10H QC KC 9D",
        "S": "10D QD KD AD JC"}, upcard="QH")
    weak = Hand.deal(rules, dealer="S", hands={
        "W": "9S 10C 9D QC 10D", "N": "JS 10S QS KS AS", "E": "9H 10H QH KH AH",
        "S": "JH KD AD JC JD"}, upcard="QD")
    hard = make_bot("hard", seed=2, budget=None, samples=12)
    assert hard.choose(strong.view("W")).kind == "order"
    assert hard.choose(weak.view("W")) == "pass"


def test_budget_is_measured_on_the_injected_clock():
    ticks = iter(i * 0.01 for i in range(10_000))
    hand = Hand.deal(Rules.preset("standard"), dealer="S", seed=5)
    b = SearchBot(seed=1, samples=1000, budget=0.05, clock=lambda: next(ticks))
    b.choose(hand.view("W"))
    # The clock is read once at the start and once after each deal: 0.05 s is reached
    # after the fifth deal.
    assert b.last_samples == 5


def test_bad_levels_and_budgets_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="choose one of easy, medium, hard, insane"):
        make_bot("grandmaster")
    with pytest.raises(ValueError, match="budget"):
        make_bot("hard", budget=0)
    with pytest.raises(ValueError, match="choose one of"):
        partner_level("expert")


def test_partner_of_a_person_plays_at_least_hard():
    assert partner_level("easy") == "hard"
    assert partner_level("medium") == "hard"
    assert partner_level("hard") == "hard"
    assert partner_level("insane") == "insane"
    assert seat_levels(["S"], "easy") == {"N": "hard", "E": "easy", "W": "easy"}
    assert seat_levels(["S", "E"], "insane") == {"N": "insane", "W": "insane"}
    with pytest.raises(ValueError, match="not a seat"):
        seat_levels(["X"], "easy")
