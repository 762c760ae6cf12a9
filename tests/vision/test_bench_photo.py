"""Tests of the photo mode's choice of tables (bench/vision_photo.py): tuning runs see no validation design or surface."""
import os
from pathlib import Path

import numpy as np
import pytest

from bench import vision_photo as vp
from bench import vision_sets as vs


def test_tuning_photo_tables_hold_only_tuning_designs_and_surfaces():
    designs, splits = vp.photo_choice("kde-tuning", "tuning,busy")
    tables = vp.photo_tables(13, 300, ("webcam", "phone"), designs, splits)
    tuning_surfaces = {s for g in vs.SURFACES["tuning"].values() for s in g}
    for session, _ in tables:
        assert session.design in vs.TUNING_DESIGNS
        assert session.surface in tuning_surfaces or session.surface.startswith("tune:")
    assert {s.surface for s, _ in tables} & set(vp.PHOTO_SPLITS["busy"])


def test_the_photo_modes_default_is_unchanged():
    designs, splits = vp.photo_choice(None, "validation")
    assert designs == vs.VALIDATION_DESIGNS + vs.NPM_DESIGNS and splits == ("validation",)
    for session, _ in vp.photo_tables(3, 300):
        assert session.surface in vs.PHOTO_SURFACES


@pytest.mark.parametrize("designs, splits", [("kde", "tuning"), ("kde-tuning", "mat"), ("", "tuning")])
def test_unknown_design_groups_or_splits_are_named(designs, splits):
    with pytest.raises(ValueError, match="choose from"):
        vp.photo_choice(designs, splits)


def test_photo_tables_can_be_held_to_named_surfaces():
    splits = ("validation",)
    chosen = vp.surface_choice("tiles:marble,tiles:ceramic", splits)
    tables = vp.photo_tables(5, 301, surfaces=chosen)
    assert {s.surface for s, _ in tables} == {"tiles:marble", "tiles:ceramic"}
    with pytest.raises(ValueError, match="choose from"):
        vp.surface_choice("tune:flags", splits)          # a tuning surface is not a validation one


def test_the_commands_run_the_benchmarks_own_checkout():
    root = Path(vp.__file__).resolve().parent.parent
    assert vp.command_env()["PYTHONPATH"].split(os.pathsep)[0] == str(root)


def test_the_cards_a_refused_deck_names_by_shape_or_size_are_taken_again():
    # What check_shapes says when a face is not the others' shape or size, as the photo
    # benchmark's user reads it (the photos without a card and the cards taken for others
    # are read in tests/vision/test_deck_calibration.py from the command's own output).
    from engine.cards import DECK, Card
    from vision.plain.calibration import CalibrationError, check_shapes
    face, narrow = np.zeros((100, 71, 3), np.uint8), np.zeros((100, 50, 3), np.uint8)
    faces = {c: face for c in DECK}
    faces[Card("JH")] = faces[Card("10S")] = narrow
    with pytest.raises(CalibrationError) as shape:
        check_shapes(faces, {c: 0.3 for c in DECK})
    assert vp.cards_to_take_again(str(shape.value)) == [Card("10S"), Card("JH")]
    sizes = {c: 0.3 for c in DECK}
    sizes[Card("AC")] = 0.4
    with pytest.raises(CalibrationError) as size:
        check_shapes({c: face for c in DECK}, sizes)
    assert vp.cards_to_take_again(str(size.value)) == [Card("AC")]
    assert vp.cards_to_take_again("euchre-table calibrate deck: --out d.npz: folder x does not exist") == []


def test_photo_runs_pair_designs_cameras_and_surfaces_anew_with_each_seed():
    # In a fixed order, every run of six tables put the same design under the same
    # camera on the same surface, whatever its seed.
    seen = set()
    for seed in range(12):
        tables = vp.photo_tables(6, seed)
        assert len({s.design for s, _ in tables}) == 6
        seen |= {(s.design, s.profile.name, s.surface) for s, _ in tables}
    assert {camera for _, camera, _ in seen} == {"webcam", "phone"}
    for design in vp.PHOTO_DESIGNS:
        assert {c for d, c, _ in seen if d == design} == {"webcam", "phone"}, design
        assert len({f for d, _, f in seen if d == design}) > 2, design
    fixed = [(s.design, s.surface) for s, _ in vp.photo_tables(6, 1, mixed=False)]
    assert fixed == [(s.design, s.surface) for s, _ in vp.photo_tables(6, 2, mixed=False)]


def test_a_photo_stored_upright_is_read_turned_and_its_points_brought_back(tmp_path):
    # ``--upright``: stored as the camera sees it and marked to be turned (EXIF 6), as a
    # phone held upright stores it; what ``recognize`` answers on the turned picture is
    # brought back onto the stored one before it is scored against the truth.
    import cv2
    img = np.zeros((48, 64, 3), np.uint8)
    img[10:14, 40:44] = 255                                   # a spot at x 40-43, y 10-13
    vp.save_photo(tmp_path / "up.jpg", img, upright=True)
    seen = cv2.imread(str(tmp_path / "up.jpg"), cv2.IMREAD_COLOR)
    assert seen.shape[:2] == (64, 48)
    ys, xs = np.nonzero(seen.max(axis=2) > 128)
    back = vp.unturned(np.stack([xs, ys], axis=1), (64, 48))
    assert back[:, 0].min() >= 39 and back[:, 0].max() <= 44 and back[:, 1].min() >= 9 and back[:, 1].max() <= 14
