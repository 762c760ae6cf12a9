"""Every rule option, each setting in a test named for it; presets and validation."""
import pytest

from engine import Game, IllegalAction, Rules, RulesError, score_hand
from tests.engine.helpers import make_hand, play, texts

STD = Rules.preset("standard")
PASS4 = ["pass"] * 4
# Dealer S throughout: W eldest, N the dealer's partner ("second hand"), E third hand.


# --- stick the dealer -------------------------------------------------------------------
def test_stick_the_dealer_off_dealer_may_pass_and_the_hand_is_thrown_in():
    h = make_hand(STD, dealer="S")
    play(h, *PASS4, "pass", "pass", "pass")
    assert "pass" in texts(h.legal_actions())
    h.apply("pass")
    assert h.is_over and h.result.thrown_in and h.result.points == {"NS": 0, "EW": 0}


def test_stick_the_dealer_on_dealer_must_name_a_suit():
    h = make_hand(STD.replace(stick_the_dealer=True), dealer="S")
    play(h, *PASS4, "pass", "pass", "pass")
    assert "pass" not in texts(h.legal_actions())
    with pytest.raises(IllegalAction, match="^The dealer must name a suit"):
        h.apply("pass")


# --- Canadian loner ---------------------------------------------------------------------
def test_canadian_loner_off_dealers_partner_may_simply_order():
    h = make_hand(STD, dealer="S")
    h.apply("pass")
    assert texts(h.legal_actions()) == ["pass", "order", "order alone"]
    h.apply("order")
    assert h.alone is None


def test_canadian_loner_on_dealers_partner_who_orders_must_go_alone():
    h = make_hand(STD.replace(canadian_loner=True), dealer="S")
    assert texts(h.legal_actions()) == ["pass", "order", "order alone"]   # eldest: free
    h.apply("pass")
    assert texts(h.legal_actions()) == ["pass", "order alone"]
    with pytest.raises(IllegalAction, match="Canadian loner"):
        h.apply("order")
    h.apply("order alone")
    assert h.result is None and h.alone == 0


# --- the dealer and a partner's lone hand ---------------------------------------------------
def test_dealer_picks_up_when_partner_alone_off():
    h = make_hand(STD.replace(dealer_picks_up_when_partner_alone=False), dealer="S")
    play(h, "pass", "order alone")
    assert h.phase == "play" and not h.dealer_took and "JC" not in h.cards("S")
    assert h.view("E").sitting_out == ("S",)


def test_dealer_picks_up_when_partner_alone_on():
    h = make_hand(STD.replace(dealer_picks_up_when_partner_alone=True), dealer="S")
    play(h, "pass", "order alone")
    assert h.phase == "discard" and h.to_act == "S" and "JC" in h.cards("S")
    h.apply("discard " + h.cards("S")[0])
    assert h.phase == "play" and "S" not in {h.to_act}


# --- who leads when someone is alone -----------------------------------------------------
def test_lone_lead_left_of_dealer():
    h = make_hand(STD.replace(lone_lead="left_of_dealer"), dealer="S")
    play(h, "pass", "order alone")            # N alone, S sits out
    assert h.to_act == "W"
    h = make_hand(STD.replace(lone_lead="left_of_dealer"), dealer="S")
    play(h, "pass", "pass", "order alone", "discard " + h.cards("S")[0])   # E alone: W sits out
    assert h.to_act == "N"                    # left of the dealer sits out: the next one leads


def test_lone_lead_left_of_loner():
    h = make_hand(STD.replace(lone_lead="left_of_loner"), dealer="S")
    play(h, "pass", "order alone")            # N alone: E, on N's left, leads
    assert h.to_act == "E"
    h = make_hand(STD.replace(lone_lead="left_of_loner"), dealer="S")
    play(h, "pass", "pass", "order alone", "discard " + h.cards("S")[0])
    assert h.to_act == "S"


# --- defending alone ------------------------------------------------------------------------
def test_defend_alone_off_play_starts_after_the_bid():
    h = make_hand(STD, dealer="S")
    play(h, *PASS4, "call H")
    assert h.phase == "play"
    with pytest.raises(IllegalAction):
        h.apply("defend alone")


def test_defend_alone_on_defenders_may_go_alone_in_turn():
    h = make_hand(STD.replace(defend_alone=True), dealer="S")
    play(h, *PASS4, "call H")                 # W makes hearts; defenders N and S
    assert h.phase == "defend" and h.to_act == "N"
    assert texts(h.legal_actions()) == ["pass", "defend alone"]
    play(h, "pass")
    assert h.to_act == "S"
    play(h, "defend alone")
    assert h.phase == "play" and h.view("E").sitting_out == ("N",) and h.defender_alone == 2


def test_lone_defender_leads_on_when_both_are_alone():
    rules = STD.replace(defend_alone=True, lone_defender_leads=True)
    h = make_hand(rules, dealer="S")
    play(h, *PASS4, "call H alone", "defend alone")   # W alone (E out), N defends alone (S out)
    assert h.to_act == "N"


def test_lone_defender_leads_off_when_both_are_alone():
    rules = STD.replace(defend_alone=True, lone_defender_leads=False, lone_lead="left_of_loner")
    h = make_hand(rules, dealer="S")
    play(h, *PASS4, "call H alone", "defend alone")
    assert h.to_act == "N"  # left of the lone maker W is N, the lone defender, also here
    rules = STD.replace(defend_alone=True, lone_defender_leads=False, lone_lead="left_of_dealer")
    h = make_hand(rules, dealer="W")          # dealer W: N eldest
    # E calls alone (W sits out); N declines, S defends alone (N sits out). N, left of the
    # dealer, sits out, so the next seat, E, leads: not the lone defender S.
    play(h, *PASS4, "pass", "call S alone", "pass", "defend alone")
    assert h.defender_alone == 2 and h.to_act == "E"


def test_lone_defender_points_seed_003():
    r = STD.replace(defend_alone=True)        # the general rules page: 2 for 3-4, 4 for all five
    assert score_hand(r, 2, False, True) == (0, 2)
    assert score_hand(r, 0, False, True) == (0, 4)


def test_lone_defender_points_openspiel():
    r = Rules.preset("openspiel").replace(defend_alone=True)
    assert score_hand(r, 2, False, True) == (0, 4) and score_hand(r, 1, True, True) == (0, 4)
    assert score_hand(r, 3, False, True) == (1, 0)


# --- euchre of a lone maker -------------------------------------------------------------------
def test_lone_euchre_points_2():
    assert score_hand(STD, 2, True, False) == (0, 2)


def test_lone_euchre_points_4():
    assert score_hand(STD.replace(lone_euchre_points=4), 2, True, False) == (0, 4)
    assert score_hand(Rules.preset("somerset-1888"), 0, True, False) == (0, 4)


# --- overcall alone (the 1888 laws, laws 74-76) ------------------------------------------------------
def test_overcall_alone_off_no_overcall():
    h = make_hand(STD, dealer="S")
    h.apply("order")
    assert h.phase == "discard"


def test_overcall_alone_on_third_hand_may_take_over_eldests_order():
    h = make_hand(STD.replace(overcall_alone=True), dealer="S")
    h.apply("order")                          # W, eldest, orders up
    assert h.phase == "overcall" and h.to_act == "E"
    assert texts(h.legal_actions()) == ["pass", "take alone"]
    h.apply("take alone")
    assert h.maker_seat == "E" and h.alone == 1 and h.phase == "discard"
    h.apply("discard " + h.cards("S")[0])
    assert "W" in h.view("N").sitting_out


def test_overcall_alone_on_dealer_may_take_over_the_assist():
    h = make_hand(STD.replace(overcall_alone=True), dealer="S")
    play(h, "pass", "order")                  # N assists
    assert h.phase == "overcall" and h.to_act == "S"
    play(h, "pass")                           # the dealer declines: N's order stands
    assert h.maker_seat == "N" and h.alone is None and h.phase == "discard"


def test_overcall_alone_on_not_after_third_hand_orders():
    h = make_hand(STD.replace(overcall_alone=True), dealer="S")
    play(h, "pass", "pass", "order")
    assert h.phase == "discard"


# --- target and rubber -------------------------------------------------------------------------
def _play_out(game, seed=0):
    import random
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_target_10():
    g = _play_out(Game(STD, seed=4))
    assert g.score[g.winner] >= 10 and max(g.score.values()) - 4 < 10


def test_target_5():
    g = _play_out(Game(STD.replace(target=5), seed=4))
    assert 5 <= g.score[g.winner] < 9


def test_rubber_off_one_game():
    g = _play_out(Game(STD.replace(target=5), seed=5))
    assert len(g.games) == 1 and g.rubber_points == {"NS": 0, "EW": 0}


def test_rubber_on_best_of_three_with_game_points():
    g = _play_out(Game(Rules.preset("somerset-1888"), seed=5))
    wins = [x["winner"] for x in g.games]
    assert wins.count(g.winner) == 2 and 2 <= len(g.games) <= 3
    expected = sum(x["game_points"] for x in g.games if x["winner"] == g.winner) + 2
    assert g.rubber_points[g.winner] == expected
    for x in g.games:
        loser = "EW" if x["winner"] == "NS" else "NS"
        assert x["game_points"] == (2 if x["score"][loser] == 0 else 1)


# --- discarding the up-card ------------------------------------------------------------------
def test_dealer_may_discard_upcard_on():
    h = make_hand(STD, dealer="S", upcard="JC")
    h.apply("order")
    assert "discard JC" in texts(h.legal_actions())
    h.apply("discard JC")


def test_dealer_may_discard_upcard_off():
    h = make_hand(STD.replace(dealer_may_discard_upcard=False), dealer="S", upcard="JC")
    h.apply("order")
    assert "discard JC" not in texts(h.legal_actions()) and len(h.legal_actions()) == 5
    with pytest.raises(IllegalAction, match="up-card may not be discarded"):
        h.apply("discard JC")


# --- revoke penalty (played out by the referee; here: the option's values) -----------------------
def test_revoke_penalty_lose_hand():
    assert STD.revoke_penalty == "lose_hand"


def test_revoke_penalty_points():
    assert Rules.preset("somerset-1888").revoke_penalty == "points"
    with pytest.raises(RulesError, match="revoke_penalty must be one of"):
        STD.replace(revoke_penalty="fine")


# --- presets and validation -----------------------------------------------------------------------
def test_presets():
    assert Rules.preset("stick-the-dealer").stick_the_dealer
    s = Rules.preset("somerset-1888")
    assert (s.target, s.rubber, s.overcall_alone, s.lone_euchre_points) == (5, True, True, 4)
    o = Rules.preset("openspiel")
    assert o.stick_the_dealer and not o.dealer_may_discard_upcard and o.lone_lead == "left_of_dealer"
    with pytest.raises(RulesError, match="Unknown rules preset 'euchre'"):
        Rules.preset("euchre")


def test_validation_names_the_problem():
    with pytest.raises(RulesError, match="Unknown rule option 'stick'"):
        STD.replace(stick=True)
    with pytest.raises(RulesError, match="target must be between"):
        STD.replace(target=0)
    with pytest.raises(RulesError, match="must be bool"):
        STD.replace(rubber="yes")
    with pytest.raises(RulesError, match="lone_defender_leads only applies"):
        STD.replace(lone_defender_leads=True)
    with pytest.raises(RulesError, match="canadian_loner and overcall_alone"):
        STD.replace(canadian_loner=True, overcall_alone=True)


def test_rules_parse_and_round_trip():
    r = Rules.parse("standard,stick_the_dealer=on,target=5")
    assert r.stick_the_dealer and r.target == 5
    assert Rules.from_dict(r.to_dict()) == r
    with pytest.raises(RulesError, match="target is a whole number"):
        Rules.parse("standard,target=ten")


# --- law 50 (lone hand forfeit) -----------------------------------------------------------------
def test_lone_hand_forfeit_points_off():
    assert STD.lone_hand_forfeit_points == 0


def test_lone_hand_forfeit_points_on():
    assert Rules.preset("somerset-1888").lone_hand_forfeit_points == 5
    with pytest.raises(RulesError, match="lone_hand_forfeit_points"):
        STD.replace(lone_hand_forfeit_points=9)
    # What the points do at the table is the referee's: tests/referee covers law 50.
