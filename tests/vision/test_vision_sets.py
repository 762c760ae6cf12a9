"""Tests of the fixed tuning/validation split (bench.vision_sets): the parts never overlap."""
import pytest

from bench import vision_sets as vs
from vision.art import ENGLISH_INDEX_DECKS
from vision.synth_surfaces import mat_under


def test_designs_split_the_english_index_kde_decks_without_overlap():
    parts = (vs.TUNING_DESIGNS, vs.VALIDATION_DESIGNS, vs.STUDIED_DESIGNS, vs.NPM_DESIGNS, vs.PYPI_DESIGNS)
    assert sum(map(len, parts)) == len(set().union(*parts))          # no design in two parts
    kde = set(ENGLISH_INDEX_DECKS)
    assert (set(vs.TUNING_DESIGNS) | set(vs.VALIDATION_DESIGNS) | set(vs.STUDIED_DESIGNS)) & kde == kde


def test_no_surface_is_in_both_splits_and_photo_surfaces_are_validation():
    tuning, validation = set(vs.surfaces("tuning")), set(vs.surfaces("validation"))
    assert tuning and validation and not tuning & validation
    assert set(vs.PHOTO_SURFACES) <= validation | {s.split(":", 3)[-1] for s in validation}
    # whole kinds: no wood species and no cloth colour is shared either
    def kinds(names):
        under = [":".join(mat_under(s.split(":")[1:])) if s.startswith("mat:") else s for s in names]
        return {":".join(s.split(":")[:2]) for s in under}
    assert not kinds(tuning) & kinds(validation)
    assert {s.split(":")[1] for s in tuning if s.startswith("mat:")} == {"A3"}
    assert {s.split(":")[1] for s in validation if s.startswith("mat:")} == {"A4"}


def test_unknown_split_and_group_are_named():
    with pytest.raises(ValueError, match="tuning or validation"):
        vs.designs("test")
    with pytest.raises(ValueError, match="no surface group 'patterned' in the tuning split"):
        vs.surfaces("tuning", "patterned")


def test_a_plan_drawn_under_the_poorer_tuning_camera_keeps_the_tuning_data_and_its_own_camera():
    from bench.vision_plain import plan
    own = plan(["kde-tuning"], ["tuning"], 2, 810, ["cloth", "mat"])
    hard = plan(["kde-tuning"], ["tuning"], 2, 810, ["cloth", "mat"], camera="tuning-hard")
    assert {s.profile.name for *_, s, _ in own} == {"tuning"}
    assert {s.profile.name for *_, s, _ in hard} == {"tuning-hard"}
    assert all(s.design in vs.TUNING_DESIGNS and s.surface in vs.surfaces("tuning") for *_, s, _ in hard)
    # its lamps and lens are its own: no validation camera's range is copied
    assert vs.CAMERAS["tuning-hard"].lamps != vs.CAMERAS["validation"].lamps
    assert vs.CAMERAS["tuning-hard"].washout[1] > vs.CAMERAS["tuning"].washout[1]


def test_the_tools_printed_cloths_are_drawn_only_when_asked_for():
    from bench.plain_tuning import clean_cases, textures
    from bench.vision_plain import plan
    busy = plan(["kde-tuning"], ["busy"], 2, 875)
    assert {g for _, _, g, _, _ in busy} == {"busy"}
    # asked for by name, the busy group still draws the same sessions
    assert [(s.surface, sub) for *_, s, sub in plan(["kde-tuning"], ["busy"], 2, 875, ["busy"])] \
        == [(s.surface, sub) for *_, s, sub in busy]
    tools = clean_cases._plan(["cloth", "patterned"], 2, 875)
    assert [(s.surface, sub) for _, _, g, s, sub in tools if g == "cloth"] \
        == [(s.surface, sub) for *_, s, sub in plan(["kde-tuning"], ["tuning"], 2, 875, ["cloth"])]
    patterned = [s for _, _, g, s, _ in tools if g == "patterned"]
    assert len(patterned) == 2 and all(s.surface in textures.GROUPS["patterned"] for s in patterned)
    assert all(s.design in vs.TUNING_DESIGNS and s.profile.name == "tuning" for s in patterned)


def test_clean_cases_collects_generated_designs_and_no_validation_design():
    from bench.plain_tuning import clean_cases
    sessions = clean_cases._plan(["white-mat"], 3, 960, "tuning-hard", "generated")
    assert len(sessions) == 3
    assert all(s.design in vs.GENERATED_DESIGNS and s.profile.name == "tuning-hard" for *_, s, _ in sessions)
    assert "kde-validation" not in clean_cases.TUNING_DESIGN_GROUPS
    with pytest.raises(SystemExit):
        clean_cases.main(["collect", "unused-dir", "--designs", "kde-validation"])


def test_clean_cases_collect_with_more_kinds_makes_new_sessions_first(monkeypatch, tmp_path):
    # Asked for play and glare frames in a new folder, the tool must calibrate the sessions
    # (with their play frames) and then add the glare frames, not add to nothing.
    from bench.plain_tuning import clean_cases
    calls = []
    monkeypatch.setattr(clean_cases, "collect", lambda out, groups, *a, **k: calls.append(("collect", groups)))
    monkeypatch.setattr(clean_cases, "add_frames", lambda out, groups, s, f, seed, kinds, **k:
                        calls.append(("add", tuple(kinds))))
    assert clean_cases.main(["collect", str(tmp_path), "--groups", "cloth", "--seed", "930",
                             "--kinds", "play,glare"]) == 0
    assert calls == [("collect", ["cloth"]), ("add", ("glare",))]
    calls.clear()
    clean_cases.main(["collect", str(tmp_path), "--groups", "cloth", "--seed", "930"])
    assert calls == [("collect", ["cloth"])]


def test_a_plans_designs_and_frame_sizes_do_not_follow_each_other_or_stay_with_a_cell():
    # Drawn from the same count, a design always met the same frame size and a run of
    # one session a cell always gave a cell the same design.
    from collections import defaultdict
    from bench.vision_plain import SIZES, plan
    sizes_of = defaultdict(set)
    designs_of_cell = defaultdict(set)
    for seed in range(20):
        for _dg, _split, _g, s, _ in plan(["kde-validation"], ["validation"], 2, seed, ["cloth", "mat"]):
            sizes_of[s.design].add(tuple(s.size))
        for _dg, _split, g, s, _ in plan(["kde-validation"], ["validation"], 1, seed, ["cloth"]):
            designs_of_cell[g].add(s.design)
    assert all(sizes == set(SIZES) for sizes in sizes_of.values()), sizes_of
    assert designs_of_cell["cloth"] == set(vs.VALIDATION_DESIGNS)


def test_the_cells_of_one_surface_group_in_one_run_do_not_all_get_one_frame_size():
    from bench.vision_plain import plan
    one_size = 0
    for seed in range(10):
        sizes = {tuple(s.size) for *_, s, _ in plan(["kde-tuning", "kde-validation", "npm", "pypi"],
                                                     ["tuning", "validation"], 1, seed, ["cloth"])}
        one_size += len(sizes) == 1
    assert one_size <= 1
