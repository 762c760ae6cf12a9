"""Tests of the frame composer: truth matches what is drawn, conditions take effect, seeds repeat."""
import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.synth import Placement, camera_homography, cloth_texture, compose_frame
from vision.zones import MatLayout


def test_placements_in_every_form_land_in_their_zones(need_art):
    img, truth = compose_frame([("JH", "S", 15), {"card": "9C", "at": "N", "sticker": False},
                                Placement(Card("AD"), (330.0, 212.0), 90)], size=(800, 600), rng=1)
    assert img.shape == (600, 800, 3) and img.dtype == np.uint8
    assert [(t["card"], t["zone"], t["sticker"]) for t in truth] == [
        ("JH", "S", True), ("9C", "N", False), ("AD", "RACK", True)]
    assert truth[1]["code_corners"] is None and truth[1]["code_px"] == 0.0
    for t in truth:
        assert np.asarray(t["corners"]).shape == (4, 2)
        assert t["card_visible"] > 0.97


def test_truth_corners_are_where_the_card_is_drawn(need_art):
    img, truth = compose_frame([("AS", (210.0, 148.5), 0, False)], size=(640, 480), rng=2,
                               markers=False, cloth="dark")
    mask = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) > 150).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    c = np.asarray(truth[0]["corners"])
    assert abs(c[:, 0].min() - x) <= 2 and abs(c[:, 0].max() - (x + w)) <= 2
    assert abs(c[:, 1].min() - y) <= 2 and abs(c[:, 1].max() - (y + h)) <= 2


def test_same_seed_same_frame_other_seed_other_frame(need_art):
    args = ([("KH", "E", 33)],)
    kw = dict(size=(320, 240), noise=5, perspective=0.05, cloth="random")
    a, _ = compose_frame(*args, rng=9, **kw)
    b, _ = compose_frame(*args, rng=9, **kw)
    c, _ = compose_frame(*args, rng=10, **kw)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_code_size_follows_the_camera_scale(need_art):
    sizes = [compose_frame([("QS", "UP")], size=(1280, 720), rng=1, px_per_mm=s)[1][0]["code_px"]
             for s in (1.5, 2.0, 3.0)]
    assert sizes[0] < sizes[1] < sizes[2]
    assert abs(sizes[1] - 2.0 * 45 * 21 / 25) < 3  # 45 mm sticker, 21 of its 25 modules


def test_a_hand_covers_part_of_its_card(need_art):
    clean, truth0 = compose_frame([("10S", "W", 0)], size=(640, 480), rng=4)
    img, truth = compose_frame([("10S", "W", 0)], size=(640, 480), rng=4, hand=0, hand_cover=0.5)
    assert truth[0]["covered_by_hand"] and not truth0[0]["covered_by_hand"]
    assert 0.2 < truth[0]["card_visible"] < 0.9
    assert not np.array_equal(clean, img)


def test_a_card_on_top_hides_the_one_below(need_art):
    _, truth = compose_frame([("9H", "RACK"), ("10H", "RACK")], size=(640, 480), rng=1)
    assert truth[0]["code_visible"] < 0.05 and truth[1]["code_visible"] > 0.99


def test_camera_faults_change_the_image(need_art):
    base = dict(size=(320, 240), rng=3)
    clean, _ = compose_frame([("JD", "S")], **base)
    for cond in ({"blur": 2.0}, {"noise": 8}, {"light": 0.6}, {"glare": 0.8}, {"jpeg": 30},
                 {"motion_blur": 7}, {"perspective": 0.1}, {"roll": 30}, {"paper": True}):
        img, _ = compose_frame([("JD", "S")], **base, **cond)
        assert np.mean(cv2.absdiff(img, clean)) > 0.5, cond


def test_bad_conditions_and_placements_are_named():
    with pytest.raises(TypeError, match="unknown condition"):
        compose_frame([], size=(64, 48), rng=1, fog=1)
    with pytest.raises(ValueError, match="unknown zone"):
        compose_frame([("JH", "X")], size=(64, 48), rng=1)
    with pytest.raises(ValueError, match="cloth colour"):
        cloth_texture((32, 32), 1, "plaid")


def test_camera_homography_centres_the_mat():
    layout = MatLayout.a3()
    h = camera_homography(layout, (640, 480))
    centre = cv2.perspectiveTransform(np.array([[[210.0, 148.5]]]), h).reshape(2)
    assert np.allclose(centre, (320, 240))
