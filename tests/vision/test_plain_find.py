"""Tests of vision.plain.find: card outlines found by the straight steps along their sides, on any surface."""
import cv2
import numpy as np
import pytest

from bench.plain_tuning.scenes import corner_error, place, scene
from vision import art
from vision.plain.background import TableModel
from vision.plain.find import find_outlines, top_level

pytestmark = pytest.mark.skipif(not art.art_available(),
                                reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")

ASPECT = 0.74      # the standard KDE design


def _found(outlines, truth, tol=4.0):
    return [any(corner_error(o.corners, t["corners"]) < tol for o in outlines) for t in truth]


def test_cards_on_a_cloth_are_found_at_their_corners_at_any_rotation():
    frame, _, truth = scene([place("JH", "N", 0), place("9S", "E", 90), place("AD", "S", 183),
                             place("10C", "W", 251)], seed=3, cloth="green", blur=0.6, noise=2,
                            markers=False)
    outlines = find_outlines(frame, ASPECT)
    assert _found(outlines, truth) == [True] * 4
    assert len(top_level(outlines)) == 4


def test_cards_on_the_printed_mat_are_found_with_the_learnt_table():
    # White cards on the white paper mat, lying across its printed lines and labels: the
    # old "not cloth" colour model found none of them.
    frame, empty, truth = scene([place("QD", (190, 45), 12), place("KC", (205, 230), -8),
                                 place("9H", (330, 150), 35)], seed=5, paper=True, blur=0.5, noise=2)
    table = TableModel()
    table.learn(empty)
    outlines = find_outlines(frame, ASPECT, table=table)
    assert _found(outlines, truth) == [True] * 3


@pytest.mark.parametrize("surface", ["wood:oak:satin", "felt:navy"])
def test_a_card_alone_on_wood_or_felt_is_found_in_a_single_photo(surface):
    frame, _, truth = scene([place("KS", (200, 150), 25)], seed=6, surface=surface, surface_seed=3,
                            markers=False)
    outlines = top_level(find_outlines(frame, None))
    assert len(outlines) == 1 and corner_error(outlines[0].corners, truth[0]["corners"]) < 4.0


def test_an_empty_table_and_a_photo_without_a_card_have_no_outline():
    frame, empty, _ = scene([place("9C", "S", 10)], seed=7, surface="wood:oak:matte", surface_seed=1,
                            markers=False)
    assert find_outlines(empty, None) == []
    rng = np.random.default_rng(0)
    clutter = cv2.GaussianBlur(rng.integers(0, 255, (480, 640, 3), np.uint8), (0, 0), 3)
    assert find_outlines(clutter, None) == []


def test_a_cards_own_picture_frame_lies_inside_its_outline():
    # Court cards carry a framed picture of a card's shape: it is reported as inside
    # the card's outline, never as a card of its own.
    frame, _, truth = scene([place("KD", "N", 15)], seed=8, cloth="blue", markers=False)
    outlines = find_outlines(frame, ASPECT)
    outer = top_level(outlines)
    assert len(outer) == 1 and corner_error(outer[0].corners, truth[0]["corners"]) < 4.0


def test_the_smallest_card_looked_for_is_kept_to():
    frame, _, _ = scene([place("9D", "N", 0)], seed=9, cloth="red", px_per_mm=0.5)   # a 44 px card
    assert find_outlines(frame, ASPECT) == []
    assert len(find_outlines(frame, ASPECT, min_long=30)) == 1
