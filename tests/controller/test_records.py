"""Hand records for people: the score before and after said so, only revokes that matter, the left bower named."""
from __future__ import annotations

from pathlib import Path

from controller.log import read_events
from engine import Rules
from engine.records import record_text
from engine.referee import Referee

GOLDEN = Path(__file__).resolve().parents[1] / "referee" / "golden"


def records(name, rules="standard", known=()):
    ref = Referee(Rules.preset(rules), known_seats=known)
    for seq, e in read_events(str(GOLDEN / name)):
        ref.feed(e, seq=seq)
    return [record_text(r) for r in ref.records()]


def test_the_score_line_says_before_and_after():
    text = records("clean_game.jsonl")[0]
    assert "Score after the hand: NS 2, EW 0 (before: NS 0, EW 0)" in text
    assert "Score NS" not in text


def test_cleared_failures_to_follow_are_not_listed():
    text = records("revoke_never_proven.jsonl")[0]
    # East and West did not follow hearts four times; the hand showed they were void.
    assert "did not follow" not in text and "Possible revoke" not in text
    assert "not a revoke" not in text


def test_an_open_possible_revoke_is_listed_and_the_left_bower_named():
    ref = Referee(Rules.preset("standard"))
    events = [{"type": "hand", "dealer": "S"}, {"type": "upcard", "card": "9S"},
              {"type": "bid", "seat": "W", "bid": "order"}, {"type": "discard", "seat": "S"},
              {"type": "play", "seat": "W", "card": "AC"},
              # North plays the jack of clubs: with spades trump it is the left bower, a
              # spade, so North did not follow clubs.
              {"type": "play", "seat": "N", "card": "JC"}]
    for e in events:
        assert ref.feed(e).ok
    text = record_text(ref.records()[0])
    assert ("Possible revoke: North played J♣ (the left bower, a trump) in trick 1 on a "
            "club lead: open") in text
