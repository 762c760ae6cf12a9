"""Tests of vision.plain.background: the learnt empty table, its edges, and what differs from it."""
import numpy as np
import pytest

from bench.plain_tuning.scenes import place, scene
from vision.plain.background import TableModel


@pytest.fixture(scope="module")
def mat_scene():
    from vision import art
    if not art.art_available():
        pytest.skip("KDE card art not installed")
    # A card over the South zone's line of the printed mat.
    return scene([place("9S", (210, 199), 20)], seed=4, paper=True)


def test_an_empty_table_learnt_shows_nothing_and_a_card_shows():
    table = TableModel()
    empty = np.full((120, 160, 3), (40, 110, 40), np.uint8)
    table.learn(empty)
    frame = empty.copy()
    frame[40:80, 60:90] = 230
    mask = table.foreground(frame)
    assert mask.shape == frame.shape[:2]
    assert mask[60, 75] and not mask[10, 10] and not mask[100, 140]


def test_a_change_of_light_is_not_a_card():
    rng = np.random.default_rng(1)
    empty = np.clip(rng.normal(120, 6, (240, 320, 3)), 0, 255).astype(np.uint8)
    table = TableModel()
    table.learn(empty)
    # The camera's exposure and white balance change (a lamp switched on).
    brighter = np.clip(empty.astype(float) * [1.25, 1.15, 1.05] + 10, 0, 255).astype(np.uint8)
    assert (table.foreground(brighter) > 0).mean() < 0.01


def test_learning_several_frames_averages_them():
    rng = np.random.default_rng(2)
    base = rng.integers(60, 200, (48, 64, 3)).astype(np.float64)
    table = TableModel()
    for _ in range(6):
        table.learn(np.clip(base + rng.normal(0, 8, base.shape), 0, 255).astype(np.uint8))
    assert table.learnt == 6
    assert np.abs(table.mean - base).mean() < 4.5     # one frame alone is ~6.4 off


def test_the_tables_own_edges_stay_except_where_a_card_hides_them(mat_scene):
    import cv2
    frame, empty, truth = mat_scene
    table = TableModel()
    table.learn(empty)
    all_edges = table.table_edges()
    still = table.table_edges(frame)
    assert all_edges.shape == frame.shape[:2] and all_edges.any()
    card = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(card, np.round(truth[0]["corners"]).astype(np.int32), 1)
    inner = cv2.erode(card, np.ones((9, 9), np.uint8)) > 0
    # The mat's lines under the card are no longer the table's; those away from it are.
    hidden = (all_edges[inner] > 0).sum()
    assert hidden > 50 and (still[inner] > 0).sum() < 0.1 * hidden
    far = cv2.dilate(card, np.ones((41, 41), np.uint8)) == 0
    assert (still[far] > 0).sum() >= 0.95 * (all_edges[far] > 0).sum()


@pytest.fixture(scope="module")
def carpet_scene():
    from bench.plain_tuning import textures
    from vision import art
    if not art.art_available():
        pytest.skip("KDE card art not installed")
    # A light-rimmed card on a loop carpet (the tuning tools' own texture).
    with textures.registered():
        return scene([place("9S", (210, 150), 15)], seed=11, surface="tune:berber", deck="oxygen-air",
                     markers=False)


def test_a_card_on_a_loop_carpet_differs_from_the_learnt_carpet(carpet_scene):
    import cv2
    frame, empty, truth = carpet_scene
    table = TableModel()
    table.learn(empty)
    card = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(card, np.round(truth[0]["corners"]).astype(np.int32), 1)
    fg = table.foreground(frame, update=False) > 0
    # Most of the card is foreground (a cell's difference from its neighbours, taken as
    # how much the carpet may vary, hid all but 1-10% of it), and little beyond it is.
    assert fg[card > 0].mean() > 0.6
    assert fg[cv2.dilate(card, np.ones((25, 25), np.uint8)) == 0].mean() < 0.01


def test_a_busy_tables_texture_is_not_taken_for_its_lines(carpet_scene, mat_scene):
    _, empty, _ = carpet_scene
    carpet = TableModel()
    carpet.learn(empty)
    # The carpet's edges cover most of it: ruled out, they would rule out the card's sides.
    assert carpet.busy and (carpet.table_edges() > 0).mean() < 0.2
    mat = TableModel()
    mat.learn(mat_scene[1])
    assert not mat.busy and (mat.table_edges() > 0).any()


def test_the_white_mat_lies_on_a_tuning_texture():
    # bench.plain_tuning.calibrations --group white-mat-busy: the all-white A4 mat on the
    # tools' own busy surfaces (a loop carpet here), a tuning stand-in for such a table.
    from bench.plain_tuning import textures
    from bench.plain_tuning.calibrations import WHITE_MAT_BUSY
    with textures.registered():
        frame, empty, _ = scene([], seed=3, surface=WHITE_MAT_BUSY[0], markers=False)
        carpet, _, _ = scene([], seed=3, surface=WHITE_MAT_BUSY[0].split(":", 3)[3], markers=False)
    h, w = empty.shape[:2]
    centre = empty[h // 3:2 * h // 3, w // 3:2 * w // 3].astype(float)
    # The mat's white paper at the centre, the carpet round it (as the carpet alone shows).
    assert centre.mean() > carpet.astype(float).mean() + 40


def test_the_grey_mat_lies_on_each_tuning_texture():
    # bench.plain_tuning.calibrations --group mat-busy: the project's grey A4 mat on the
    # tools' own busy surfaces. At the centre lies the mat's even grey paper, not the
    # texture (which the texture alone shows there, far less even).
    from bench.plain_tuning import textures
    from bench.plain_tuning.calibrations import MAT_BUSY
    assert len(MAT_BUSY) == len(textures.KINDS)
    with textures.registered():
        for surface in MAT_BUSY:
            _, empty, _ = scene([], seed=3, surface=surface, markers=False)
            alone, _, _ = scene([], seed=3, surface=surface.split(":", 2)[2], markers=False)
            h, w = empty.shape[:2]
            mat = empty[h // 3:2 * h // 3, w // 3:2 * w // 3].astype(float)
            texture = alone[h // 3:2 * h // 3, w // 3:2 * w // 3].astype(float)
            assert mat.std() < 12 and texture.std() > 20, surface
            assert np.ptp(mat.mean(axis=(0, 1))) < 8, surface          # grey, not coloured


def test_the_tables_edges_just_beyond_what_differs_count_as_hidden_in_play_where_its_colour_is_gone(monkeypatch):
    # Light wood whose grain is about the grey of a card's paper: the grain a card hides
    # is found hidden only through the card's colour (``foreground``), whose coarse cells
    # fall a few pixels short of the card's rim. In play the table's edges that close to
    # what differs count as hidden where the frame's colour is not the table's; a
    # calibration pass (``hidden_reach`` 0) keeps them.
    empty = np.empty((240, 320, 3), np.uint8)
    empty[:] = (150, 195, 225)
    for x in (30, 63, 100, 200):
        empty[:, x:x + 2] = (120, 160, 195)
    empty[:, 136:138] = 40                          # a dark line, left visible beside the card
    frame = empty.copy()
    frame[50:170, 60:134] = 182                     # paper within 40 grey levels of the grain
    short = np.zeros(frame.shape[:2], np.uint8)
    short[54:166, 67:130] = 255                     # what differs, 4-7 px inside the card
    grain = np.zeros(frame.shape[:2], bool)
    grain[54:166, 63:67] = True                     # the hidden grain just beyond it, off the card's side
    line = np.zeros(frame.shape[:2], bool)
    line[54:166, 135:139] = True
    far = np.zeros(frame.shape[:2], bool)
    far[:, 20:40] = far[:, 190:210] = True
    seen = {}
    for reach in (0, 4):
        table = TableModel()
        table.learn(empty)
        table.hidden_reach = reach
        monkeypatch.setattr(table, "_foreground_of", lambda f: short)
        assert (table.table_edges()[grain] > 0).sum() > 100
        seen[reach] = table.table_edges(frame) > 0
    assert seen[0][grain].sum() > 100 and seen[4][grain].sum() == 0
    # The dark line beside the card keeps its colour: its edges stay the table's.
    assert seen[4][line].sum() == seen[0][line].sum() > 100
    assert (seen[0][far] == seen[4][far]).all() and seen[4][far].sum() > 100
    assert TableModel().hidden_reach == 4


def test_the_table_is_not_learnt_under_the_cards_seen_in_a_frame():
    # A light card on light cloth: its paper differs from the cloth by 8 grey levels, too
    # little to be foreground, so only its outline keeps it out of what is learnt.
    rng = np.random.default_rng(7)
    cloth = np.full((240, 320, 3), (200, 212, 220), np.float64)
    card = np.array([[100, 60], [180, 60], [180, 170], [100, 170]], np.float32)

    def frames():
        for _ in range(40):
            f = cloth + rng.normal(0, 2, cloth.shape)
            f[60:170, 100:180] += 8
            yield np.clip(f, 0, 255).astype(np.uint8)

    under = (slice(80, 150), slice(115, 165))
    kept, learnt = TableModel(), TableModel()
    for table in (kept, learnt):
        table.learn(np.clip(cloth + rng.normal(0, 2, cloth.shape), 0, 255).astype(np.uint8))
    before = float(kept.mean[under].mean())
    for frame in frames():
        assert not kept.foreground(frame, update=False)[under].any()
        kept.follow(frame, [card])
        learnt.foreground(frame, update=False)
        learnt.follow(frame)
    assert abs(float(kept.mean[under].mean()) - before) < 1.0
    assert float(learnt.mean[under].mean()) - before > 6.0     # without the outline it is learnt
    # Away from the card the table is followed either way.
    assert kept.updates == learnt.updates == 40


def test_follow_learns_only_from_the_frame_whose_foreground_was_just_computed():
    table = TableModel()
    empty = np.full((120, 160, 3), (40, 110, 40), np.uint8)
    table.learn(empty)
    frame = empty.copy()
    table.foreground(frame, update=False)
    table.follow(empty.copy())                  # another frame: nothing learnt
    assert table.updates == 0
    table.follow(frame)
    table.follow(frame)                         # once per frame
    assert table.updates == 1
