"""The reader window's frames (a card face down on a clear plate, seen from below), its zone and mask, and the short benchmark."""
import numpy as np
import pytest

from vision.art import art_available
from vision.recognize import recognize
from vision.synth_window import (compose_window_frame, random_window_conditions, window_of,
                                 window_scene, sensor)
from vision.tracker import ReaderTracker
from vision.zones import ReaderWindow

needs_art = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")


@needs_art
def test_a_clean_window_frame_is_read_in_sticker_mode_and_the_empty_window_names_nothing():
    rng = np.random.default_rng(7)
    for card in ("JH", "9C", "10D"):
        img, truth = compose_window_frame(card, rng=rng, **random_window_conditions(rng, clean=True))
        assert truth["in_view"] and str(truth["card"]) == card
        zones = ReaderWindow(window_of(truth, (640, 480))).for_frame(img)
        found = recognize(img, mode="sticker", zones=zones)
        assert [(s["card"], s["zone"]) for s in found] == [(card, "READER")]
    empty, truth = compose_window_frame(None, rng=rng, **random_window_conditions(rng))
    assert truth["card"] is None and recognize(empty, mode="sticker") == []


@needs_art
def test_a_tilted_card_looks_shorter_at_its_lifted_edge():
    flat = compose_window_frame("QS", rng=3, sticker=False)[1]["corners"]
    tilted = compose_window_frame("QS", rng=3, sticker=False, tilt=10)[1]["corners"]
    sides = lambda q: sorted(np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4))  # noqa: E731
    # One side lifted, away from the camera below: it looks shorter than the side resting
    # on the plate, which keeps its place.
    assert min(sides(tilted)) < min(sides(flat)) - 5.0
    assert any(np.allclose(tilted[i], flat[i]) for i in range(4))


@needs_art
def test_glare_reflections_and_plate_marks_change_the_picture_not_the_truth():
    clean, t0 = compose_window_frame("AS", rng=5)
    faulty, t1 = compose_window_frame("AS", rng=5, glare=1.0, reflection=0.08, scratches=25,
                                      dust=60, haze=15)
    assert np.allclose(t0["corners"], t1["corners"])
    assert faulty.max() == 255 and np.abs(faulty.astype(int) - clean).mean() > 2


def test_one_readers_hood_and_one_rooms_blotches_stay_as_they_are_when_given():
    # One sitting: the hood's shade is the reader's, the room's blotches through the
    # opening the room's (another level of light, the same pattern); drawn per frame
    # otherwise, without changing the frames drawn after it.
    def opening_mean(img, truth):
        x0, y0 = truth["opening"].min(axis=0).astype(int) + 10
        x1, y1 = truth["opening"].max(axis=0).astype(int) - 10
        return img[y0:y1, x0:x1].astype(float).mean(axis=(0, 1))
    same = [opening_mean(*compose_window_frame(None, rng=k, hood=0.7, room=0.1, room_seed=5))
            for k in (1, 2)]
    assert np.abs(same[0] - same[1]).max() < 1.0
    other = opening_mean(*compose_window_frame(None, rng=1, hood=0.7, room=0.1, room_seed=6))
    assert np.abs(other - same[0]).max() > 1.0
    a = np.random.default_rng(3)
    b = np.random.default_rng(3)
    compose_window_frame(None, rng=a, room=0.1)
    compose_window_frame(None, rng=b, room=0.1, hood=0.6, room_seed=9)
    assert a.random() == b.random()


def test_unknown_conditions_and_builds_are_refused():
    with pytest.raises(TypeError, match="lens_flare"):
        compose_window_frame(None, lens_flare=1)
    with pytest.raises(ValueError, match="recommended"):
        random_window_conditions(1, build="cheap")
    cond = random_window_conditions(np.random.default_rng(2), build="recommended")
    assert "glare" not in cond and cond["reflection"] == 0.0 and cond["room"] <= 0.08


def test_the_reader_window_zone_and_mask():
    frame = np.full((100, 200, 3), 40, np.uint8)
    frame[0:5] = 250                               # a glare spot along the top edge
    win = ReaderWindow([0.1, 0.1, 0.9, 0.9])
    masked = win.mask(frame)
    assert masked[0:5].max() == 40 and (masked[20:80, 30:170] == frame[20:80, 30:170]).all()
    assert win.for_frame(frame)((100, 50)) == "READER" and win.for_frame(frame)((5, 50)) is None
    assert ReaderWindow().mask(frame) is frame
    with pytest.raises(ValueError, match="left < right"):
        ReaderWindow([0.8, 0, 0.2, 1])


@needs_art
def test_a_still_card_is_read_once_from_frames_with_fresh_sensor_noise():
    scene, truth = window_scene("KD", rng=9, blur=0.4, noise=3, jpeg=85)
    rng = np.random.default_rng(1)
    t = ReaderTracker(k=3, m=2)
    events = []
    for _ in range(6):
        events += t.update(recognize(sensor(scene, rng, 3, 85), mode="sticker",
                                     zones=ReaderWindow().for_frame(scene)))
    assert events == [{"type": "read", "card": "KD"}]


@needs_art
def test_the_window_benchmark_runs_short(capsys):
    from bench.vision_window import main
    assert main(["--decks", "standard", "--frames", "4", "--modes", "sticker", "--episode", "3",
                 "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "TOTAL sticker" in out and "0 wrong" in out


@needs_art
def test_the_window_benchmark_calibrates_a_plain_deck_through_the_reader(capsys):
    # The live calibration learns the empty window first, then takes each card laid on
    # the plate: the benchmark must show it the window as a dealer would.
    from bench.vision_window import main
    assert main(["--decks", "standard", "--frames", "2", "--modes", "plain", "--episode", "3",
                 "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "TOTAL plain" in out and " 0 wrong" in out


@needs_art
def test_mat_reader_window_sets_the_window_round_the_card_in_the_guide(tmp_path, capsys):
    import cv2
    from controller.cli import main
    img, truth = compose_window_frame("QD", rng=4, card_turn=3, card_shift_mm=(2.0, -1.5))
    cv2.imwrite(str(tmp_path / "f.png"), img)
    assert main(["mat", "--reader-window", str(tmp_path / "f.png")]) == 0
    line = capsys.readouterr().out
    win = [float(v) for v in line.split("[")[1].split("]")[0].split(",")]
    x0, y0, x1, y1 = win
    q = truth["corners"] / [640, 480]
    assert x0 < q[:, 0].min() and x1 > q[:, 0].max() and y0 < q[:, 1].min() and y1 > q[:, 1].max()
    assert x1 - x0 < 0.9 and y1 - y0 < 0.9          # and not the whole frame
    empty, _ = compose_window_frame(None, rng=4)
    cv2.imwrite(str(tmp_path / "e.png"), empty)
    assert main(["mat", "--reader-window", str(tmp_path / "e.png")]) == 2
    assert "lay exactly one card" in capsys.readouterr().err
