"""Tests of the speaker: espeak-ng to WAV files checked with the wave module, the queue,
priority, interrupts, mute, and the text-only fallback."""
from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time
import wave

import numpy as np
import pytest

from hardware.phrases import bid_phrase, hand_phrase, speakable
from hardware.speaker import EspeakSpeaker, Speaker, WavSpeaker, make_speaker

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed (apt install espeak-ng)")

LONG = ("North and South are euchred: two points to East and West. The score is "
        "East and West nine, North and South seven. South deals the next hand.")


def wav_facts(path):
    """(seconds, RMS of the int16 samples) of a WAV file."""
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = np.frombuffer(frames, dtype="<i2").astype(np.float64)
    rms = float(np.sqrt(np.mean(samples ** 2))) if samples.size else 0.0
    return seconds, rms


def wait_busy(speaker, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not speaker._busy and time.monotonic() < deadline:
        time.sleep(0.005)
    assert speaker._busy, "the speaker never started"


@needs_espeak
def test_wav_speaker_writes_speech_of_plausible_length_in_queue_order(tmp_path):
    speaker = make_speaker({"backend": "wav", "folder": str(tmp_path)})
    texts = [bid_phrase("W", "order alone", upcard_suit="H"), "West calls spades", LONG]
    for text in texts:
        speaker.say(text)
    assert speaker.wait_idle(20)
    speaker.close()
    files = sorted(tmp_path.glob("*.wav"))
    assert [f.name for f in files] == ["0001.wav", "0002.wav", "0003.wav"]
    assert speaker.spoken == texts
    assert [e["path"] for e in speaker.history] == [str(f) for f in files]
    for text, f in zip(texts, files):
        seconds, rms = wav_facts(f)
        words = len(text.split())
        # 165 words a minute is 2.75 a second; allow for pauses and espeak-ng's own pace.
        assert words / 6 < seconds < words / 1.2 + 1, f"{f.name}: {seconds:.2f}s for {words} words"
        assert rms > 500, f"{f.name} is (nearly) silent: RMS {rms:.0f}"
    assert wav_facts(files[2])[0] > 3 * wav_facts(files[1])[0]


@needs_espeak
def test_volume_makes_speech_quieter(tmp_path):
    loud = WavSpeaker(tmp_path / "loud", volume=100)
    soft = WavSpeaker(tmp_path / "soft", volume=20)
    for sp in (loud, soft):
        sp.say("Hearts are trump")
        assert sp.wait_idle(10)
        sp.close()
    rms_loud = wav_facts(tmp_path / "loud" / "0001.wav")[1]
    rms_soft = wav_facts(tmp_path / "soft" / "0001.wav")[1]
    assert rms_soft < rms_loud * 0.5
    with pytest.raises(ValueError, match="volume=101"):
        loud.set_volume(101)


@needs_espeak
def test_mute_produces_nothing_and_unmute_speaks_again(tmp_path):
    speaker = WavSpeaker(tmp_path)
    speaker.mute(True)
    speaker.say("West passes")
    assert speaker.wait_idle(5)
    assert list(tmp_path.glob("*.wav")) == [] and speaker.spoken == []
    speaker.mute(False)
    speaker.say("West passes")
    assert speaker.wait_idle(10)
    speaker.close()
    assert [f.name for f in tmp_path.glob("*.wav")] == ["0001.wav"]


@needs_espeak
def test_say_returns_before_the_speech_exists_and_interrupt_stops_it(tmp_path):
    speaker = WavSpeaker(tmp_path, realtime=True)  # takes as long as a loudspeaker would
    t0 = time.monotonic()
    speaker.say(LONG)
    speaker.say("West passes")
    returned = time.monotonic() - t0
    assert not (tmp_path / "0002.wav").exists()  # say() came back long before it was spoken
    assert returned < 1.0
    wait_busy(speaker)
    time.sleep(0.3)
    speaker.interrupt()
    assert speaker.wait_idle(5)
    speaker.close()
    assert [e["status"] for e in speaker.history] == ["interrupted"]  # the queued one dropped
    seconds, _ = wav_facts(tmp_path / "0001.wav")
    assert 0.1 < seconds < 2.5  # cut where it stopped; the whole text lasts about 8 s
    assert not (tmp_path / "0002.wav").exists()


@needs_espeak
def test_priority_interrupts_and_jumps_the_queue(tmp_path):
    speaker = WavSpeaker(tmp_path, realtime=True, speed=300)
    speaker.say(LONG)
    speaker.say("one")
    wait_busy(speaker)
    speaker.say("Revoke", priority=True)
    assert speaker.wait_idle(15)
    speaker.close()
    assert speaker.spoken == [LONG, "Revoke", "one"]
    assert [e["status"] for e in speaker.history] == ["interrupted", "done", "done"]


@needs_espeak
def test_espeak_speaker_pipes_speech_into_the_player(tmp_path):
    if shutil.which("sox") is None:
        pytest.skip("sox is not installed")
    out = tmp_path / "heard.wav"
    # sox stands in for aplay: it reads the same WAV stream from stdin, into a file.
    speaker = EspeakSpeaker(player=["sox", "-q", "-t", "wav", "-", str(out)], stream=io.StringIO())
    assert speaker.fault is None
    speaker.say(speakable("Must follow ♥"))
    assert speaker.wait_idle(10)
    speaker.close()
    seconds, rms = wav_facts(out)
    assert 0.5 < seconds < 4 and rms > 500
    assert speaker.history[0]["status"] == "done"


@needs_espeak
def test_espeak_speaker_interrupt_ends_the_player(tmp_path):
    slow_player = [sys.executable, "-c", "import sys, time; sys.stdin.buffer.read(); time.sleep(30)"]
    speaker = EspeakSpeaker(player=slow_player, stream=io.StringIO())
    speaker.say("West plays the jack of hearts")
    wait_busy(speaker)
    t0 = time.monotonic()
    speaker.interrupt()
    assert speaker.wait_idle(5)
    assert time.monotonic() - t0 < 3
    speaker.close()
    assert speaker.history[0]["status"] == "interrupted"


def test_missing_espeak_is_a_fault_with_text_only_fallback():
    out = io.StringIO()
    speaker = EspeakSpeaker(espeak="espeak-ng-not-installed", stream=out)
    assert "not found" in speaker.fault and "apt install espeak-ng" in speaker.fault
    speaker.say("West passes")
    assert speaker.wait_idle(5)
    speaker.close()
    assert "[speaker] West passes" in out.getvalue()
    assert speaker.history[0]["status"] == "text-only"


def test_missing_player_is_a_fault():
    speaker = EspeakSpeaker(player=["no-such-player-xyz"], stream=io.StringIO())
    if shutil.which("espeak-ng"):
        assert "no-such-player-xyz not found" in speaker.fault
    speaker.close()


def test_text_speaker_keeps_order_and_is_a_speaker():
    out = io.StringIO()
    speaker = make_speaker({"backend": "text"}, stream=out)
    assert isinstance(speaker, Speaker)
    for text in ("a", "b", "c"):
        speaker.say(text)
    speaker.say("   ")  # nothing to say
    assert speaker.wait_idle(5)
    speaker.close()
    speaker.say("after close")  # ignored, no error
    assert speaker.spoken == ["a", "b", "c"]
    assert out.getvalue().splitlines() == ["[speaker] a", "[speaker] b", "[speaker] c"]


@pytest.mark.parametrize("config, words", [
    ({"backend": "festival"}, "backend='festival' is unknown"),
    ({"volum": 3}, "unknown key 'volum'"),
    ({"volume": 150}, "volume=150"),
    ({"speed": 20}, "speed=20"),
    ({"backend": "wav"}, 'needs "folder"'),
    ({"muted": "no"}, "muted='no'"),
    ({"player": [1]}, "player=[1]"),
])
def test_bad_speaker_config_names_the_key(config, words):
    with pytest.raises(ValueError) as err:
        make_speaker(config)
    assert words in str(err.value)


# --- phrases -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, expected", [
    (("W", "order alone"), {"upcard_suit": "H"}, "West orders up hearts and goes alone"),
    (("E", "order"), {"upcard_suit": "♣"}, "East orders up clubs"),
    (("N", "order"), {"upcard_suit": "S", "dealer": "N"}, "North picks up spades"),
    (("W", "call S"), {}, "West calls spades"),
    (("S", "call D alone"), {}, "South calls diamonds and goes alone"),
    (("E", "defend alone"), {}, "East defends alone"),
    (("S", "discard 9S"), {}, "South has discarded"),
    (("W", "play JH"), {}, "West plays the jack of hearts"),
])
def test_bid_phrases(args, kwargs, expected):
    assert bid_phrase(*args, **kwargs) == expected


def test_bad_bid_phrase_is_a_readable_error():
    with pytest.raises(ValueError, match="'bid H' is not a bid"):
        bid_phrase("W", "bid H")
    with pytest.raises(ValueError, match="not a seat"):
        bid_phrase("X", "pass")


def test_hand_phrases():
    assert hand_phrase("EW", {"NS": 2, "EW": 0}, euchred=True) == \
        "East and West are euchred: two points to North and South"
    assert hand_phrase("NS", {"NS": 2, "EW": 0}, march=True) == "North and South march: two points"
    assert hand_phrase("NS", {"NS": 0, "EW": 4}, euchred=True, alone="N") == \
        "North and South are euchred: four points to East and West"


def test_speakable_turns_symbols_and_letters_into_words():
    assert speakable("W led J♥; E-W take it") == "West led jack of hearts; East and West take it"
    assert speakable("Play 10♠ or 9S") == "Play ten of spades or nine of spades"


@needs_espeak
def test_espeak_says_suit_words_not_symbol_names(tmp_path):
    # Without speakable(), espeak-ng would read "♥" as "black heart suit": a longer WAV.
    raw = subprocess.run(["espeak-ng", "-q", "-x", "Must follow ♥"], capture_output=True, text=True)
    fixed = subprocess.run(["espeak-ng", "-q", "-x", speakable("Must follow ♥")],
                           capture_output=True, text=True)
    assert raw.stdout != fixed.stdout
