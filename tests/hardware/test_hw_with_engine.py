"""The bid panel's composer and the phrases against the engine's real legal actions."""
from __future__ import annotations

import random

import pytest

from engine import Hand, Rules
from hardware.inputs import BidComposer
from hardware.phrases import bid_phrase

BID_BUTTONS = ("pass", "order", "alone", "S", "H", "D", "C")


def presses_for(action: str) -> list:
    """The buttons a player presses for a bid in the engine's text."""
    words = action.split()
    alone = ["alone"] if words[-1] == "alone" else []
    if words[0] == "pass":
        return ["pass"]
    if words[0] in ("order", "defend", "take"):
        return alone + ["order"]
    if words[0] == "call":
        return alone + [words[1]]
    raise AssertionError(f"not a bid: {action}")


RULES = {
    "standard": lambda: Rules.preset("standard"),
    "stick-the-dealer": lambda: Rules.preset("stick-the-dealer"),
    "somerset-1888": lambda: Rules.preset("somerset-1888"),
    "openspiel": lambda: Rules.preset("openspiel"),
    "defend-alone": lambda: Rules.preset("standard").replace(defend_alone=True),
}


def bidding_positions(rules, seeds: range):
    """(hand, legal bids) at every bid of the bidding of many seeded hands."""
    rng = random.Random(7)
    for seed in seeds:
        hand = Hand.deal(rules, dealer="SWNE"[seed % 4], seed=seed)
        for _ in range(12):
            legal = [str(a) for a in hand.legal_actions()]
            bids = [a for a in legal if a.split()[0] in ("pass", "order", "call", "defend", "take")]
            if not bids or hand.to_act is None:
                break
            yield hand, bids
            # Mostly pass, to reach round 2 and the stuck dealer often.
            hand.apply("pass" if "pass" in bids and rng.random() < 0.85 else rng.choice(bids))


@pytest.mark.parametrize("rules", list(RULES))
def test_every_legal_bid_can_be_pressed_and_nothing_illegal_comes_out(rules):
    positions = 0
    kinds = set()
    for hand, bids in bidding_positions(RULES[rules](), range(60)):
        positions += 1
        kinds.update(bids)
        for action in bids:
            composer = BidComposer(bids)
            events = [composer.press(b) for b in presses_for(action)]
            assert events[-1] == ("bid", action), (action, bids, events)
            assert bid_phrase(hand.to_act, action, upcard_suit="H").startswith(
                {"N": "North", "E": "East", "S": "South", "W": "West"}[hand.to_act])
        for first in (None, "alone"):
            for button in BID_BUTTONS:
                composer = BidComposer(bids)
                if first and composer.press(first)[0] != "alone":
                    continue
                event = composer.press(button)
                assert event[0] in ("bid", "refused", "alone"), event
                if event[0] == "bid":
                    assert event[1] in bids
                if event[0] == "refused":
                    assert len(event[1]) > 10  # a reason a player can read
    assert positions > 200
    if rules == "somerset-1888":
        assert "take alone" in kinds
    if rules == "defend-alone":
        assert "defend alone" in kinds
