"""The virtual table end to end: rendered frames → vision → log → referee → screen and speech."""
import json
import shutil

import pytest
from PIL import Image

from controller.log import EventLog, read_events
from engine import Rules
from engine.referee import Referee
from vision.art import art_available

pytestmark = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    from controller.simulate import simulate
    out = tmp_path_factory.mktemp("sim")
    # A whole game, to a short target so that the suite stays quick.
    rules = Rules.preset("standard").replace(target=3)
    summary = simulate(rules, seed=5, out_dir=out, level="medium", people_level="medium",
                       progress=lambda text: None)
    return rules, out, summary


def test_a_whole_game_is_played_through_the_camera(game):
    rules, out, s = game
    assert s["winner"] in ("NS", "EW") and s["score"][s["winner"]] >= 3
    # Every card put down was read by the vision pipeline, none entered by hand.
    assert s["entered_by_hand"] == 0 and s["refusals"] == 0
    assert s["cards_read"] >= s["hands"] * (5 + 1 + 15)
    assert s["frames"] > s["cards_read"] and s["reader_frames"] >= 5 * s["hands"]
    # The Pi's cards went through the reader window, never face up under the overhead camera.
    assert s["computer_cards_face_up_overhead_before_played"] == 0
    dealt = [e for _, e in read_events(str(out / "table-log.sqlite")) if e.get("type") == "dealt"]
    assert len(dealt) == 5 * s["hands"] and all(e.get("by") == "reader" for e in dealt)


def test_the_log_replays_to_the_identical_result(game):
    rules, out, s = game
    assert s["log_replays_identically"]
    ref = Referee(rules, known_seats=["W"])
    # As anyone reads the log: the Pi's cards are sealed, and opened by each hand's reveal.
    for seq, event in read_events(str(out / "table-log.sqlite")):
        ref.feed(event, seq=seq)
    assert ref.state["score"] == s["score"] and ref.state["winner"] == s["winner"]
    assert len(ref.records()) == s["hands"]


def test_the_screen_gif_records_and_speech_are_written(game):
    rules, out, s = game
    gif = Image.open(s["files"]["screen_gif"])
    assert gif.format == "GIF" and getattr(gif, "n_frames", 1) > 10
    text = (out / "hand-records.txt").read_text()
    assert "Hand 1" in text and "Trick 5" in text
    records = json.loads((out / "hand-records.json").read_text())
    assert len(records) == s["hands"]
    if shutil.which("espeak-ng"):
        assert len(list((out / "speech").glob("*.wav"))) == s["announcements"] > 10
