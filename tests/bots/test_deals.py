"""Imagined deals fit everything the seat has seen; the bidding model weighs them sensibly."""
import random

import pytest

from engine import Hand, Rules
from engine.bots.deals import bid_likelihood, played_masks, sample_dealt, sample_play, void_masks
from engine.cards import SEATS, parse_cards

from tests.bots._util import random_position


@pytest.mark.parametrize("preset", ["standard", "openspiel", "somerset-1888"])
def test_sampled_positions_are_consistent(preset):
    rules = Rules.preset(preset)
    checked = 0
    for seed in range(120):
        hand = random_position(rules, seed, max_steps=random.Random(seed).randrange(8, 26))
        if hand is None or hand.phase != "play":
            continue
        seat = hand.to_act
        view = hand.view(seat)
        me = SEATS.index(seat)
        voids = void_masks(view)
        played = played_masks(view)
        # The truth itself must satisfy the constraints the sampler uses.
        for p in range(4):
            if p != me and p not in hand.out:
                assert not hand.hands[p] & voids[p], "a void was inferred wrongly"
        for k in range(5):
            hands = sample_play(view, random.Random(k))
            assert hands is not None
            assert hands[me] == hand.hands[me]
            seen = 0
            for p in range(4):
                assert not hands[p] & seen, "a card given to two seats"
                seen |= hands[p]
                if p in hand.out:
                    assert hands[p] == 0
                else:
                    assert bin(hands[p]).count("1") == bin(hand.hands[p]).count("1")
                    assert not hands[p] & voids[p]
                    assert not hands[p] & (played[0] | played[1] | played[2] | played[3])
            d = hand.dealer
            kept = hand.discarded != hand.upcard   # the bots assume the dealer kept it
            if (hand.dealer_took and kept and d != me and d not in hand.out
                    and not played[d] & hand.upcard.bit):
                assert hands[d] & hand.upcard.bit, "the dealer must hold the up-card taken"
        checked += 1
    assert checked >= 30


def test_sampled_deals_before_the_play():
    rules = Rules.preset("standard")
    hand = Hand.deal(rules, dealer="S", seed=4)
    view = hand.view("W")
    d = sample_dealt(view, random.Random(1))
    assert set(d["hands"]["W"]) == set(view.cards)
    every = [c for s in SEATS for c in d["hands"][s]] + list(d["kitty"]) + [d["upcard"]]
    assert len(set(every)) == 24


def test_a_round_one_passer_rarely_holds_both_bowers():
    rules = Rules.preset("standard")
    hand = Hand.deal(rules, dealer="S", hands={
        "W": "9S 10S 9D 10D 9C", "N": "QS KS AS QD KD", "E": "JH JD AH KH 10C",
        "S": "AD QC KC AC JC"}, upcard="QH")
    hand.apply("pass")   # W
    hand.apply("pass")   # N
    hand.apply("pass")   # E passes although it holds both bowers
    view = hand.view("S")
    truth = {s: hand.cards(s) for s in SEATS}
    bowers = dict(truth)
    junk = dict(truth, E=parse_cards("QD KD 10C 9H 10H"))
    # East passed: a deal where East holds both bowers and the ace explains that badly.
    assert bid_likelihood(view, junk) > 20 * bid_likelihood(view, bowers)
    # West's pass says little about a hand of nines and tens.
    assert bid_likelihood(view, junk) > 0.5
