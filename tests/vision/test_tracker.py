"""Tests of the tracker: steady sightings become table events; flicker, covering hands and contradictions do not become guesses."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.tracker import Tracker


def feed(tracker, frames):
    events = []
    for f in frames:
        events += tracker.update(f)
    return events


def test_a_card_is_played_only_after_k_steady_frames():
    t = Tracker(k=3, m=4)
    assert feed(t, [[("JH", "W")]] * 2) == []
    assert t.update([("JH", "W")]) == [{"type": "play", "seat": "W", "card": "JH"}]
    assert feed(t, [[("JH", "W")]] * 10) == []


def test_upcard_and_practice_rack_events_in_sighting_order():
    t = Tracker(k=2, m=3, rack_seat="E", rack_face_up=True)
    assert feed(t, [[("9S", "UP"), ("AC", "RACK")]] * 2) == [
        {"type": "upcard", "card": "9S"}, {"type": "dealt", "seat": "E", "card": "AC"}]


def test_practice_rack_without_a_computer_seat_is_an_error_not_a_guess():
    t = Tracker(k=1, m=3, rack_face_up=True)
    (event,) = t.update([("AC", "RACK")])
    assert event["type"] == "vision_error" and "rack_seat" in event["reason"]


def test_a_face_up_card_in_the_old_rack_is_refused_without_being_named():
    t = Tracker(k=2, m=2, rack_seat="E")          # no practice opt-in
    events = feed(t, [[("QC", "RACK")]] * 3 + [[]] * 3)
    assert [e["type"] for e in events] == ["vision_error", "removed"]
    assert "face up" in events[0]["reason"] and events[0]["cards"] == []
    assert "QC" not in str(events)


def test_a_card_on_the_reader_is_read_and_never_named_when_it_leaves():
    t = Tracker(k=2, m=2)
    events = feed(t, [[("QS", "READER")]] * 2 + [[]] * 2 + [[("9H", "READER")]] * 2)
    assert events == [{"type": "read", "card": "QS"}, {"type": "removed", "zone": "READER"},
                      {"type": "read", "card": "9H"}]


def test_a_hand_covering_a_card_briefly_changes_nothing():
    t = Tracker(k=2, m=5)
    feed(t, [[("QD", "S")]] * 3)
    assert feed(t, [[]] * 4 + [[("QD", "S")]] * 2 + [[]] * 4 + [[("QD", "S")]]) == []
    assert t.placed() == {"QD": "S"}


def test_removal_after_m_frames_and_collect_when_the_trick_is_swept():
    t = Tracker(k=2, m=3)
    trick = [("9H", "S"), ("10H", "W"), ("JH", "N"), ("QH", "E")]
    plays = feed(t, [trick] * 2)
    assert [e["seat"] for e in plays] == ["S", "W", "N", "E"]
    # Cards picked up one by one: collect only once the last one is gone.
    events = feed(t, [trick[1:]] * 3 + [trick[2:]] * 3 + [[]] * 3)
    kinds = [e["type"] for e in events]
    assert kinds.count("removed") == 4 and kinds[-1] == "collect" and kinds.count("collect") == 1
    assert t.placed() == {}


def test_the_upcard_leaving_is_not_a_collect():
    t = Tracker(k=1, m=2)
    feed(t, [[("JS", "UP")]])
    assert feed(t, [[]] * 2) == [{"type": "removed", "card": "JS", "zone": "UP"}]


def test_a_card_seen_twice_in_a_frame_is_one_error_and_no_play():
    t = Tracker(k=2, m=3)
    events = feed(t, [[("AH", "N"), ("AH", "E")]] * 6)
    assert events == [{"type": "vision_error", "cards": ["AH"],
                       "reason": "AH seen 2 times in one frame (N, E)"}]


def test_a_card_seen_in_two_zones_is_an_error_then_read_afresh():
    t = Tracker(k=2, m=4)
    feed(t, [[("KC", "N")]] * 2)
    events = feed(t, [[("KC", "E")]] * 2)
    assert events == [{"type": "vision_error", "cards": ["KC"],
                       "reason": "KC seen in two zones: N and E"}]
    events = feed(t, [[("KC", "E")]] * 4)
    assert events[0] == {"type": "removed", "card": "KC", "zone": "N"}
    assert {"type": "play", "seat": "E", "card": "KC"} in events
    assert t.placed() == {"KC": "E"}


def test_stray_glimpses_in_another_zone_do_not_add_up_to_an_error():
    t = Tracker(k=3, m=6)
    feed(t, [[("KC", "N")]] * 3)
    frames = ([[("KC", "N")]] * 2 + [[("KC", "E")]] + [[]] * 4) * 5
    assert feed(t, frames) == []


def test_off_mat_sightings_do_not_place_cards():
    t = Tracker(k=1, m=2)
    assert feed(t, [[("9D", None)], [{"card": "9D", "zone": None}]]) == []


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="k ≥ 1"):
        Tracker(k=0)
    with pytest.raises(ValueError, match="not a seat"):
        Tracker(rack_seat="X")
    with pytest.raises(ValueError, match="unknown tracker setting"):
        Tracker.from_config({"k": 2, "frames": 3})
    assert Tracker.from_config({"k": 4, "m": 6, "rack_seat": "W"}).k == 4


@settings(max_examples=150, deadline=None)
@given(k=st.integers(1, 4), m=st.integers(2, 6), pattern=st.lists(st.booleans(), min_size=1, max_size=60))
def test_flicker_shorter_than_m_never_removes_nor_replays(k, m, pattern):
    t = Tracker(k=k, m=m)
    feed(t, [[("JC", "S")]] * k)
    frames, run = [], 0
    for seen in pattern:  # drop-outs of at most m-1 frames in a row
        run = 0 if seen else run + 1
        frames.append([("JC", "S")] if seen or run >= m else [])
        if run >= m:
            run = 0
    assert feed(t, frames) == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["9S", "JH", "AD", "10C"]),
                                   st.sampled_from(["N", "E", "S", "W", "UP", "RACK", None])),
                         max_size=5), max_size=40))
def test_every_event_names_a_card_actually_seen_where_it_says(frames):
    t = Tracker(k=2, m=2, rack_seat="N")
    seen = {}
    for f in frames:
        for card, zone in f:
            seen.setdefault(card, set()).add(zone)
        for e in t.update(f):
            if e["type"] == "play":
                assert e["seat"] in seen[e["card"]]
            elif e["type"] == "upcard":
                assert "UP" in seen[e["card"]]
            elif e["type"] == "dealt":
                assert "RACK" in seen[e["card"]]


def test_a_synthetic_trick_read_by_camera_gives_plays_then_collect(need_art):
    from vision.sources import SyntheticSource
    from vision.stickers import read_stickers
    scenes = [[("9S", "S", 5)], [("9S", "S", 5), ("AS", "W", 95)],
              [("9S", "S", 5), ("AS", "W", 95), ("JS", "N", 185)],
              [("9S", "S", 5), ("AS", "W", 95), ("JS", "N", 185), ("10S", "E", 275)],
              [("9S", "S", 5), ("AS", "W", 95), ("JS", "N", 185), ("10S", "E", 275)], []]
    src = SyntheticSource(scenes, frames=4, size=(1280, 720), seed=11, noise=3, blur=0.6)
    t = Tracker(k=3, m=3)
    events = []
    for frame in src:
        zones = src.truth.layout.zone_at
        h_inv = np.linalg.inv(src.truth.homography)
        sightings = read_stickers(frame)
        for s in sightings:
            p = h_inv @ np.array([*s.centre, 1.0])
            s.zone = zones(p[:2] / p[2])
        events += t.update(sightings)
    plays = [(e["seat"], e["card"]) for e in events if e["type"] == "play"]
    assert plays == [("S", "9S"), ("W", "AS"), ("N", "JS"), ("E", "10S")]
    assert events[-1] == {"type": "collect"}


def test_a_hand_over_a_played_card_in_camera_frames_is_not_a_removal(need_art):
    from vision.stickers import read_stickers
    from vision.synth import compose_frame
    rng = np.random.default_rng(8)
    t = Tracker(k=3, m=5)
    events, covered_reads = [], 0
    for i in range(14):
        hand = 0 if 4 <= i < 8 else None   # a hand reaches over the card for 4 frames
        img, truth = compose_frame([("QH", "E", 75)], size=(1280, 720), rng=rng, hand=hand,
                                   hand_cover=0.9, noise=3)
        h_inv = np.linalg.inv(truth.homography)
        sightings = read_stickers(img)
        for s in sightings:
            p = h_inv @ np.array([*s.centre, 1.0])
            s.zone = truth.layout.zone_at(p[:2] / p[2])
        covered_reads += bool(hand is not None and sightings)
        events += t.update(sightings)
    assert covered_reads < 4  # the hand did hide the code in some frames
    assert events == [{"type": "play", "seat": "E", "card": "QH"}]


def test_assumed_cards_are_not_played_again():
    from vision.tracker import Tracker
    t = Tracker(k=2, m=2)
    t.assume("JH", "N")
    for _ in range(4):
        assert t.update([("JH", "N")]) == []
    assert t.placed() == {"JH": "N"}
    events = []
    for _ in range(3):
        events += t.update([])
    assert {"type": "removed", "card": "JH", "zone": "N"} in events and {"type": "collect"} in events


def test_something_unreadable_over_a_placed_card_holds_it_for_a_while():
    from vision.tracker import Tracker
    t = Tracker(k=2, m=2, hold=6)
    events = []
    for _ in range(2):
        events += t.update([("JH", "N")])
    assert events == [{"type": "play", "seat": "N", "card": "JH"}]
    # A hand lies over the card: the reader sees something in N, but no card.
    for _ in range(6):
        assert t.update([(None, "N")]) == []
    assert t.placed() == {"JH": "N"}
    # Something unreadable elsewhere does not hold it ...
    t2 = Tracker(k=1, m=2, hold=6)
    t2.update([("JH", "N")])
    events = t2.update([(None, "E")]) + t2.update([(None, "E")])
    assert {"type": "removed", "card": "JH", "zone": "N"} in events
    # ... and nothing holds it for ever: after `hold` frames it counts as unseen.
    events = []
    for _ in range(3):
        events += t.update([(None, "N")])
    assert {"type": "removed", "card": "JH", "zone": "N"} in events


def test_the_card_seen_again_after_a_hand_is_not_a_new_play():
    from vision.tracker import Tracker
    t = Tracker(k=2, m=2)
    events = []
    for frame in [[("QS", "W")]] * 2 + [[(None, "W")]] * 8 + [[("QS", "W")]] * 3:
        events += t.update(frame)
    assert events == [{"type": "play", "seat": "W", "card": "QS"}]
