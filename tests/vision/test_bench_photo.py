"""Tests of the photo mode's choice of tables (bench/vision_photo.py): tuning runs see no validation design or surface."""
import os
from pathlib import Path

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


def test_the_commands_run_the_benchmarks_own_checkout():
    root = Path(vp.__file__).resolve().parent.parent
    assert vp._env()["PYTHONPATH"].split(os.pathsep)[0] == str(root)
