"""The common core of the rules: bidding, the dealer's pick-up, following suit, tricks, scoring."""
import pytest

from engine import Hand, IllegalAction, Rules, score_hand
from tests.engine.helpers import make_hand, play, texts

# Dealer S: W is eldest hand, N the dealer's partner, E third hand.
PASS4 = ["pass"] * 4


def test_bidding_starts_left_of_dealer_and_orders_the_upcard_suit():
    h = make_hand(dealer="S", upcard="JC")
    assert h.to_act == "W" and texts(h.legal_actions()) == ["pass", "order", "order alone"]
    play(h, "pass", "order")          # the dealer's partner assists
    assert h.trump == "C" and h.maker_seat == "N"
    assert h.phase == "discard" and h.to_act == "S" and "JC" in h.cards("S")


def test_dealer_discards_one_card_face_down():
    h = make_hand(dealer="S", upcard="JC", S="AH 9D 10D QD KD")
    play(h, "order")
    assert len(h.cards("S")) == 6
    h.apply("discard 9D")
    assert len(h.cards("S")) == 5 and "9D" not in h.cards("S")
    assert h.phase == "play" and h.to_act == "W"


def test_dealer_accepts_with_order():
    h = make_hand(dealer="S", upcard="JC")
    play(h, "pass", "pass", "pass", "order")
    assert h.maker_seat == "S" and h.phase == "discard"


def test_round_two_names_another_suit():
    h = make_hand(dealer="S", upcard="JC")
    play(h, *PASS4)
    assert h.phase == "round 2" and h.to_act == "W"
    assert "call C" not in texts(h.legal_actions()) and "call H alone" in texts(h.legal_actions())
    with pytest.raises(IllegalAction, match="Clubs were turned down: name another suit"):
        h.apply("call C")
    h.apply("call H")
    assert h.trump == "H" and h.phase == "play" and "JC" not in h.cards("S")


def test_first_round_cannot_name_another_suit():
    h = make_hand(dealer="S", upcard="JC")
    with pytest.raises(IllegalAction, match="order up clubs or pass"):
        h.apply("call H")


def test_must_follow_suit_in_seed_000_words():
    h = make_hand(dealer="S", upcard="QC", W="AD 9S 10S QS KS", N="9D AS 9H 10H QH")
    play(h, *PASS4, "call H", "play AD")
    with pytest.raises(IllegalAction, match="^Must follow suit: diamonds were led$"):
        h.apply("play AS")
    h.apply("play 9D")


def test_left_bower_led_suit_message():
    # Hearts trump, diamonds led: N's J♦ is a heart, so N must play its 9♦.
    h = make_hand(dealer="S", upcard="QC", W="AD 9S 10S QS KS", N="JD 9D AS 9H 10H")
    play(h, *PASS4, "call H", "play AD")
    with pytest.raises(IllegalAction, match="The jack of diamonds is the left bower: it counts as"
                                            " a heart. Must follow suit: diamonds were led"):
        h.apply("play JD")


def test_only_diamond_is_the_left_bower_may_play_anything():
    h = make_hand(dealer="S", upcard="QC", W="AD 9S 10S QS KS", N="JD AS KC 9C 10C")
    play(h, *PASS4, "call H", "play AD")
    assert sorted(texts(h.legal_actions())) == sorted(f"play {c}" for c in "JD AS KC 9C 10C".split())


def test_left_bower_led_is_a_trump_lead():
    h = make_hand(dealer="S", upcard="QC", W="JD 9S 10S QS KS", N="AD 9H AS KC 9C")
    play(h, *PASS4, "call H", "play JD")
    assert texts(h.legal_actions()) == ["play 9H"]
    with pytest.raises(IllegalAction, match="Must follow suit: hearts were led"):
        h.apply("play AD")


def test_trump_led_and_only_trump_is_the_left_bower():
    h = make_hand(dealer="S", upcard="QC", W="JH 9S 10S QS KS", N="JD AS KC 9C 10C")
    play(h, *PASS4, "call H", "play JH")
    with pytest.raises(IllegalAction, match="hearts were led. The jack of diamonds is the left bower"):
        h.apply("play AS")
    assert texts(h.legal_actions()) == ["play JD"]


def test_card_not_held_and_turn_errors():
    h = make_hand(dealer="S", upcard="QC", W="AD 9S 10S QS KS")
    play(h, *PASS4, "call H")
    with pytest.raises(IllegalAction, match="West does not hold the ace of hearts"):
        h.apply("play AH")
    with pytest.raises(IllegalAction, match="Not North's turn: West is to play"):
        h.apply("play AD", seat="N")
    with pytest.raises(IllegalAction, match="is not an action"):
        h.apply("shuffle")


def test_highest_trump_wins_and_winner_leads():
    h = make_hand(dealer="S", upcard="QC", W="AD 9S 10S QS KS", N="9C AS 9H 10H QH",
                  E="KD JS JC AC 10D", S="JH JD AH KH QD")
    play(h, *PASS4, "call H", "play AD", "play 9H", "play 10D", "play QD")
    assert h.tricks[-1][2] == 0   # N (index 0) trumped in
    assert h.to_act == "N" and h.won == [1, 0]


def test_five_tricks_and_score():
    h = make_hand(dealer="S", upcard="QC")
    play(h, *PASS4, "call S")
    while not h.is_over:
        h.apply(h.legal_actions()[0])
    assert len(h.tricks) == 5 and sum(h.result.tricks.values()) == 5
    r = h.result
    assert r.points[r.makers] + r.points["EW" if r.makers == "NS" else "NS"] > 0


@pytest.mark.parametrize("tricks,alone,expected", [
    (3, False, (1, 0)), (4, False, (1, 0)), (5, False, (2, 0)),
    (3, True, (1, 0)), (4, True, (1, 0)), (5, True, (4, 0)),
    (2, False, (0, 2)), (0, False, (0, 2)), (2, True, (0, 2)),
])
def test_scoring_table(tricks, alone, expected):
    assert score_hand(Rules.preset("standard"), tricks, alone, False) == expected


def test_undo_takes_back_exactly():
    h = make_hand(dealer="S", upcard="QC")
    before = h.state_key()
    h.apply("order")
    mid = h.state_key()
    discard = "discard " + h.cards("S")[0]
    h.apply(discard)
    assert h.undo() == ("S", discard)
    assert h.state_key() == mid
    h.undo()
    assert h.state_key() == before
    with pytest.raises(IllegalAction, match="Nothing to undo"):
        h.undo()


def test_view_shows_own_cards_bids_and_plays_only():
    h = make_hand(dealer="S", upcard="QC", S="AH 9D 10D QD KD")
    play(h, "order", "discard 9D")
    v = h.view("W")
    assert v.cards == tuple(h.cards("W")) and v.upcard == "QC" and v.bids == (("W", "order"),)
    assert v.discard is None and v.dealer_took_upcard and v.to_act == "W" and v.legal
    assert h.view("S").discard == "9D" and "QC" in h.view("S").cards
    assert h.view("E").legal == () and set(h.view("E").cards) == set(h.cards("E"))


def test_unknown_seats_accept_any_unseen_card():
    rules = Rules.preset("standard")
    h = Hand.deal(rules, dealer="S", hands={"N": "9S 10S JS QS KS"}, upcard="QC")
    play(h, *PASS4, "call H")
    h.apply("play AH")                   # W unknown: any card not seen elsewhere
    with pytest.raises(IllegalAction, match="North does not hold"):
        h.apply("play 9H")
    h.apply("play 9S")                   # N known, holds no heart: anything
    with pytest.raises(IllegalAction, match="already been played"):
        h.apply("play AH")
    with pytest.raises(IllegalAction, match="up-card, turned down"):
        h.apply("play QC")


def test_deal_refuses_duplicate_and_short_hands():
    rules = Rules.preset("standard")
    with pytest.raises(IllegalAction, match="dealt twice"):
        Hand.deal(rules, dealer="S", hands={"N": "9S 10S JS QS KS", "E": "9S AH KH QH JH"},
                  upcard="QC")
    with pytest.raises(IllegalAction, match="five different cards"):
        Hand.deal(rules, dealer="S", hands={"N": "9S 10S JS QS"}, upcard="QC")
