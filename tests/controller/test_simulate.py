"""The virtual table end to end: rendered frames → vision → log → referee → screen and speech."""
import json
import shutil

import pytest
from PIL import Image

from controller.log import read_events
from engine import Rules
from engine.referee import Referee
from vision.art import art_available

pytestmark = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    from controller.simulate import simulate
    out = tmp_path_factory.mktemp("sim")
    # The speech of an earlier run of the same seed: a rerun must not pile onto it.
    (out / "speech").mkdir()
    (out / "speech" / "0001.wav").write_bytes(b"stale")
    (out / "speech" / "0999.wav").write_bytes(b"stale")
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


def test_the_speech_has_a_transcript_and_a_rerun_starts_afresh(game):
    rules, out, s = game
    wavs = sorted(p.name for p in (out / "speech").glob("*.wav"))
    assert "0999.wav" not in wavs
    if shutil.which("espeak-ng"):
        assert (out / "speech" / "0001.wav").read_bytes() != b"stale"
    lines = (out / "speech" / "transcript.txt").read_text().splitlines()
    assert len(lines) == s["announcements"]
    name, text = lines[0].split("\t")
    assert text and (name in wavs or name == "(text only)")


def test_long_messages_scroll_in_the_screen_gif(game):
    from hardware.display import TableStatus, message_overflows
    from controller.simulate import _Ticker
    rules, out, s = game
    gif = Image.open(s["files"]["screen_gif"])
    frames = getattr(gif, "n_frames", 1)

    class Counting:
        def __init__(self):
            self.shown, self.steps = 0, 0

        def show(self, status):
            self.shown += 1
            return True

        def step(self, px):
            self.steps += 1
            return True
    screen = Counting()
    long = TableStatus(message="Revoke by East in trick 1: clubs were led and East played A♠")
    assert message_overflows(long)
    _Ticker(screen).show(long)
    assert screen.steps >= 2      # the whole message passes across the line, frame by frame
    assert frames > s["hands"] * 30
