"""Fuzz: random and malformed lines never crash the referee; each gets a clear refusal and stays in the log."""
from __future__ import annotations

import json
import random

from hypothesis import given, settings, strategies as st

from controller.log import EventLog
from engine import Rules
from engine.records import events_of_game, play_random_game
from engine.referee import EVENT_TYPES, Referee

RULES = Rules.preset("standard")
GAME_EVENTS = events_of_game(play_random_game(RULES, seed=5), known_seats="E")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)
plausible = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES + ("", "Play", "hands"))},
    optional={"seat": st.sampled_from(["N", "E", "S", "W", "north", "X", "", 3, None]),
              "dealer": st.sampled_from(["N", "E", "S", "W", "Z", None]),
              "card": st.sampled_from(["JH", "9S", "10D", "TC", "J♦", "8H", "ZZ", "", 5, None, "AS"]),
              "bid": st.sampled_from(["pass", "order", "order alone", "call H", "call S alone",
                                      "take alone", "defend alone", "discard 9S", "bogus", 1]),
              "NS": st.integers(-5, 20) | st.text(max_size=2),
              "EW": st.integers(-5, 20), "choice": st.sampled_from(["card", "suit", "x"]),
              "suit": st.sampled_from(["H", "clubs", "Q"])})
lines = st.one_of(st.text(max_size=40), st.binary(max_size=40), json_values.map(json.dumps),
                  plausible, plausible.map(json.dumps), json_values)


def check(verdict, seq):
    assert verdict.seq == seq
    if not verdict.ok:
        assert isinstance(verdict.reason, str) and len(verdict.reason) > 10
    json.dumps(verdict.to_dict())


@settings(max_examples=150, deadline=None)
@given(st.lists(lines, max_size=25), st.integers(0, len(GAME_EVENTS)))
def test_random_lines_inside_a_real_game_never_crash(junk, cut):
    ref = Referee(RULES, known_seats="E")
    events = GAME_EVENTS[:cut] + junk + GAME_EVENTS[cut:cut + 30]
    for seq, e in enumerate(events, 1):
        check(ref.feed(e, seq=seq), seq)
    json.dumps(ref.state)
    json.dumps(ref.records())


@settings(max_examples=40, deadline=None)
@given(st.lists(lines, min_size=1, max_size=15))
def test_every_fuzzed_line_is_kept_in_the_log_and_refused_the_same_way_on_replay(tmp_path_factory, junk):
    path = str(tmp_path_factory.mktemp("fuzz") / "t.sqlite")
    ref = Referee(RULES)
    first = []
    with EventLog(path) as log:
        for i, e in enumerate(junk):
            rec = log.append(e if isinstance(e, (str, bytes, dict)) else json.dumps(e), at=float(i))
            first.append(ref.feed(rec.event(), seq=rec.seq).to_dict())
    with EventLog(path) as log:
        recs = list(log.records())
    assert len(recs) == len(junk)
    again = Referee(RULES)
    assert [again.feed(r.event(), seq=r.seq).to_dict() for r in recs] == first


def test_random_legal_and_illegal_actions_keep_the_referee_consistent():
    rng = random.Random(9)
    seats, cards = "NESW", ["9S", "JH", "JD", "AC", "10H", "QS", "KD", "9C", "AH"]
    for _ in range(30):
        ref = Referee(RULES, known_seats="")
        ref.feed({"type": "hand", "dealer": "S"})
        for seq in range(2, 150):
            kind = rng.choice(["upcard", "bid", "play", "collect", "discard", "undo", "dealt"])
            e = {"type": kind, "seat": rng.choice(seats), "card": rng.choice(cards),
                 "bid": rng.choice(["pass", "order", "call S", "call C alone"]),
                 "dealer": rng.choice(seats)}
            check(ref.feed(e), seq)
        json.dumps(ref.state)
