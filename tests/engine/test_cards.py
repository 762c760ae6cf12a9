"""Card values: text forms, the deck, the bowers, trick ranking."""
import pytest

from engine.cards import (DECK, Card, CardError, next_seat, parse_cards, parse_suit, partner,
                          trick_winner_index)


def test_card_text_forms():
    assert Card("10H") is Card("TH") is Card("th") is Card("10♥") is Card("T♡")
    assert Card("J♥") == "JH" and str(Card("9s")) == "9S"
    assert Card("1S") is Card("AS")  # some decks name the ace 1
    assert parse_cards("9S, 10h JD") == ["9S", "10H", "JD"]


def test_bad_card_text_says_what_to_write():
    with pytest.raises(CardError, match="rank then suit"):
        Card("11H")
    with pytest.raises(CardError):
        Card("JX")


def test_deck_has_24_distinct_cards():
    assert len(DECK) == len(set(DECK)) == 24
    assert {c.rank for c in DECK} == {"9", "10", "J", "Q", "K", "A"}
    assert all(DECK[c.index] is c for c in DECK)


def test_left_bower_belongs_to_trump():
    assert Card("JD").suit_under("H") == "H"
    assert Card("JD").suit_under("D") == "D"
    assert Card("JD").suit_under("S") == "D"
    assert Card("JC").is_left_bower("S") and Card("JS").is_right_bower("S")


def test_trump_ranking_right_left_a_k_q_10_9():
    order = parse_cards("JH JD AH KH QH 10H 9H")
    for hi, lo in zip(order, order[1:]):
        assert trick_winner_index([lo, hi], "H") == 1, (hi, lo)


def test_off_suit_cannot_win_and_trump_beats_led_suit():
    assert trick_winner_index(parse_cards("9C AS KS"), "H") == 0     # clubs led, spades off
    assert trick_winner_index(parse_cards("AC 9H KC"), "H") == 1     # any trump wins
    assert trick_winner_index(parse_cards("AD JD"), "H") == 1        # the left bower is trump
    assert trick_winner_index(parse_cards("QC JC"), "S") == 1        # left bower is a spade
    assert trick_winner_index(parse_cards("QC JC AC"), "H") == 2     # jack in plain suit: A K Q J


def test_seats_and_suits():
    assert [next_seat(s) for s in "SWNE"] == ["W", "N", "E", "S"]
    assert partner("E") == "W"
    assert parse_suit("♠") == "S" and parse_suit("Hearts") == "H"
