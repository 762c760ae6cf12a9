"""Tests of vision.plain.fit: a card of the calibrated size fitted where print lies that no outline explains."""
import copy

import cv2
import numpy as np
import pytest

from bench import vision_sets as vs
from bench.plain_tuning.scenes import corner_error, seen_deck
from engine.cards import Card
from vision import art
import vision.plain
from vision.plain import REFIT_OFF, REFIT_SCALES, SIZE_RANGE, _refitted_reading, fit, recognize_plain
from vision.plain.decide import MIN_SCORE, Reading, read_views
from vision.plain.background import TableModel
from vision.plain.find import faint_outlines, find_outlines
from vision.plain.outline import Outline
from vision.plain.straighten import upright_views
from vision.synth import compose_scene

pytestmark = pytest.mark.skipif(not art.art_available(),
                                reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")


def _white_mat(design: str, seed: int, group: str = "white-mat"):
    """A tuning session on the all-white mat (or the tuning surfaces of ``group``) through
    the poorer tuning camera (640x480), its empty table learnt: ``(session, table, rng, aspect)``."""
    rng = np.random.default_rng([seed, 91])
    session = vs.draw_session(rng, "tuning", group, size=(640, 480), design=design, profile="tuning-hard")
    empty = compose_scene([], size=session.size, rng=rng, **session.conditions())
    table = TableModel()
    for _ in range(5):
        table.learn(empty.shoot(rng)[0])
    face = art.card_image(design, "AS", height=300)
    return session, table, rng, face.shape[1] / face.shape[0]


def _alone(session, rng, card: str):
    places, _ = vs.frame_placements(session, rng, "alone", cards=[Card(card)])
    scene = compose_scene(places, size=session.size, rng=rng, **session.conditions())
    return scene.shoot(rng)[0], np.asarray(scene.truth[0]["corners"])


def _deck(design, session, aspect):
    """The design's deck calibrated from its art at the session's card size, softened as the
    camera softens it."""
    size = session.card_px()
    return seen_deck(design, int(round(size)), 0.8, aspect=aspect, card_px=size / session.size[1])[1]


def _usual(frame, table, aspect, size):
    kw = dict(sizes=(size,), min_long=SIZE_RANGE[0] * size, max_long=SIZE_RANGE[1] * size)
    fg = table.foreground(frame, update=False)
    return fg, faint_outlines(frame, fg, find_outlines(frame, aspect, table=table, **kw), aspect, table, **kw)


def test_a_light_card_with_no_printed_edge_on_the_white_mat_is_fitted_at_its_corners(monkeypatch, tmp_path):
    # A generated tuning design with no edge printed, its paper as white as the mat's, seen
    # about 106 px long through a soft camera: the finder, even with faint edges, finds
    # no outline of the ten (the ace's it finds, at its corners); the pips differ from the
    # empty table, and a card of the calibrated size fitted over them lies at the card's
    # corners.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    for card in ("10S", "AH"):
        frame, truth = _alone(session, rng, card)
        fg, usual = _usual(frame, table, aspect, size)
        assert all(corner_error(o.corners, truth) < 0.04 * size for o in usual), card
        assert usual == [] or card == "AH"
        got = fit.fitted_outlines(frame, fg, [], aspect, table, size)
        assert len(got) == 1 and corner_error(got[0].corners, truth) < 0.04 * size, card


def test_the_fitted_card_is_read(monkeypatch, tmp_path):
    # The whole path: the card the finder cannot see is read through its fitted outline.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    deck = _deck("gen-3", session, aspect)
    frame, truth = _alone(session, rng, "10S")
    fresh = copy.deepcopy(table)
    seen = [s for s in recognize_plain(frame, deck, table=table) if s.card is not None]
    assert [str(s.card) for s in seen] == ["10S"]
    assert corner_error(np.asarray(seen[0].corners), truth) < 0.05 * size
    # A fitted outline's view must match its card by FITTED_MIN_SCORE: the fit searched
    # many places for it.
    assert seen[0].confidence >= vision.plain.FITTED_MIN_SCORE
    monkeypatch.setattr(vision.plain, "FITTED_MIN_SCORE", seen[0].confidence + 0.01)
    assert all(s.card is None for s in recognize_plain(frame, deck, table=fresh))


def test_print_without_a_card_around_it_is_not_fitted():
    # Dark marks laid straight on the mat (a coin, a pen's blots) differ from the empty
    # table as a card's pips do, but no card's sides lie around them.
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    empty = compose_scene([], size=session.size, rng=rng, **session.conditions()).shoot(rng)[0]
    assert fit.fitted_outlines(empty, table.foreground(empty, update=False), [], aspect, table, size) == []
    marked = empty.copy()
    for k, (x, y) in enumerate([(300, 200), (330, 230), (310, 260), (345, 190)]):
        cv2.circle(marked, (x, y), 6 + k, (40, 40, 40), -1)
    fg = table.foreground(marked, update=False)
    assert fg[190:270, 290:360].any()
    assert fit.fitted_outlines(marked, fg, [], aspect, table, size) == []


def test_print_beside_a_found_card_is_not_fitted(monkeypatch, tmp_path):
    # What two overlapping cards leave beside the top card's outline is not fitted (a card
    # there would overlap the outline, and is not kept); the same print far from any
    # outline is.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    frame, truth = _alone(session, rng, "10S")
    fg, usual = _usual(frame, table, aspect, size)
    assert usual == []
    tries = []
    real = fit.fit_card
    monkeypatch.setattr(fit, "fit_card", lambda *a: tries.append(a[2]) or real(*a))
    centre = truth.mean(axis=0)
    # A card lying over half of this one (its outline found): along the card's short side.
    across = (truth[1] - truth[0]) / np.linalg.norm(truth[1] - truth[0])
    over = Outline((truth + 0.5 * aspect * size * across).astype(np.float32), support=1.0)
    assert fit.fitted_outlines(frame, fg, [over], aspect, table, size) == [] and tries == []
    # The same outline two card lengths away, on the side with room.
    away = -1.0 if centre[0] > session.size[0] / 2 else 1.0
    far = Outline((truth + [away * 2.0 * size, 0.0]).astype(np.float32), support=1.0)
    got = fit.fitted_outlines(frame, fg, [far], aspect, table, size)
    assert tries and len(got) == 1 and corner_error(got[0].corners, truth) < 0.04 * size


def test_a_refused_outline_of_the_wrong_size_or_skewed_is_fitted_again(monkeypatch, tmp_path):
    # An outline 12% too long around a card (what a card's shadow on the white mat gives)
    # or 10% too short (a frame printed inside the card) reads poorly and is refused; the
    # card of the calibrated size fitted over the same place is read.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    deck = _deck("gen-3", session, aspect).prepare()
    frame, truth = _alone(session, rng, "AH")
    centre = truth.mean(axis=0)
    refused = Reading(card=None, reason="matches no card well")
    for scale in (1.12, 0.9):
        off = Outline((centre + scale * (truth - centre)).astype(np.float32))
        r, used = _refitted_reading(frame, off, table, deck, size, refused, off)
        assert str(r.card) == "AH" and corner_error(used.corners, truth) < 0.04 * size, scale
    # An outline of about the card's size, one corner a tenth of a card off (a side found
    # along a line of the table): fitted again at about the calibrated size only.
    skewed = truth.astype(np.float32).copy()
    skewed[0] += 0.1 * size * (truth[0] - centre) / np.linalg.norm(truth[0] - centre)
    assert abs(Outline(skewed).long_side / size - 1.0) <= REFIT_OFF
    r, used = _refitted_reading(frame, Outline(skewed), table, deck, size, refused, Outline(skewed))
    assert str(r.card) == "AH" and corner_error(used.corners, truth) < 0.04 * size
    tries = []
    monkeypatch.setattr(fit, "fit_card", lambda *a: tries.append(a) or None)
    right = Outline(truth.astype(np.float32))
    assert _refitted_reading(frame, right, table, deck, size, refused, right) == (refused, right)
    assert [list(t[6]) for t in tries] == [list(REFIT_SCALES)]


def test_a_refitted_outline_needs_a_closer_match_than_a_found_one(monkeypatch, tmp_path):
    # A refit tries many places and sizes; where cards overlap, a rectangle standing on
    # the sides of two cards can match a card that is not there (a ten of clubs over an
    # ace, fitted a sixth of a card along, matched the nine of clubs by 0.71). So the view
    # of a refitted outline must match its card by FITTED_MIN_SCORE, more than MIN_SCORE.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    assert vision.plain.FITTED_MIN_SCORE > MIN_SCORE
    session, table, rng, aspect = _white_mat("gen-3", 0)
    size = session.card_px()
    deck = _deck("gen-3", session, aspect).prepare()
    frame, truth = _alone(session, rng, "AH")
    views = upright_views(frame, truth.astype(np.float32), deck.aspect)
    score = read_views(views, deck).score
    # read_views names the card only when its match reaches the floor it is given.
    assert str(read_views(views, deck, min_score=score - 0.01).card) == "AH"
    low = read_views(views, deck, min_score=score + 0.01)
    assert low.card is None and low.reason.startswith("matches no card well")
    # The refit of an outline 12% too long names the ace only while its match reaches
    # FITTED_MIN_SCORE.
    centre = truth.mean(axis=0)
    off = Outline((centre + 1.12 * (truth - centre)).astype(np.float32))
    refused = Reading(card=None, reason="matches no card well")
    r, used = _refitted_reading(frame, off, table, deck, size, refused, off)
    assert str(r.card) == "AH" and r.score >= vision.plain.FITTED_MIN_SCORE
    monkeypatch.setattr(vision.plain, "FITTED_MIN_SCORE", r.score + 0.01)
    assert _refitted_reading(frame, off, table, deck, size, refused, off) == (refused, off)


def test_a_card_partly_under_another_is_not_fitted_from_the_top_cards_side(monkeypatch, tmp_path):
    # A ten a sixth under an ace, a straight line on the table beyond the ten's far end (a
    # plank's grain): the ten's print lies outside the ace's outline, and a card fitted to
    # it stood on the ace's side and reached that line, 15-20 px past the ten (a tenth of a
    # card and more): its view, part ten and part table, can match another card. (In the
    # Blender world a 10♦ so fitted was named 9♦.)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    for seed in (0, 1, 2):
        session, table, rng, aspect = _white_mat("gen-3", seed)
        size = session.card_px()
        x, y = vs._view_point(session, 0.5, 0.55)
        angle, step = 20.0, 88.0 * 0.85           # mm: the ace lies 0.85 of a card along
        places = [{"card": Card("10D"), "at": (x, y), "rotation": angle, "sticker": False},
                  {"card": Card("AS"), "at": (x + step * np.sin(np.radians(angle)), y - step * np.cos(np.radians(angle))),
                   "rotation": angle, "sticker": False}]
        scene = compose_scene(places, size=session.size, rng=rng, **session.conditions())
        frame, truth = scene.shoot(rng)
        ten, ace = (np.asarray(t["corners"], np.float32) for t in truth)
        # The line: parallel to the ten's far end, 0.17 of a card beyond it.
        far = max(((ten[k], ten[(k + 1) % 4]) for k in range(4)),
                  key=lambda s: np.linalg.norm((s[0] + s[1]) / 2 - ace.mean(axis=0)))
        out = (far[0] + far[1]) / 2 - ten.mean(axis=0)
        out /= np.linalg.norm(out)
        p0, p1 = far[0] + out * 0.17 * size, far[1] + out * 0.17 * size
        p0, p1 = p0 - 0.3 * (p1 - p0), p1 + 0.3 * (p1 - p0)
        lined = frame.copy()
        cv2.line(lined, tuple(int(v) for v in np.round(p0)), tuple(int(v) for v in np.round(p1)), (60, 60, 60), 2,
                 cv2.LINE_AA)
        frame = cv2.addWeighted(frame, 0.7, lined, 0.3, 0)
        fg = table.foreground(frame, update=False)
        got = fit.fitted_outlines(frame, fg, [Outline(np.asarray(ace))], aspect, table, size)
        assert all(corner_error(o.corners, ten) < 0.04 * size for o in got), (seed, [o.corners for o in got])


def _card_with_square_print(marks_at, paper: int = 80):
    """A table (grey 120) with a card lying 50 degrees off the frame's axes, its paper of grey
    ``paper`` (darker than the table, as a cream card on a white cloth), and black square
    marks inside it (centred at ``marks_at``, offsets from the card's centre) whose sides run
    along the frame's axes: ``(frame, table picture, card corners, an outline round the
    marks)``."""
    h, w, long_, short = 240, 320, 130.0, 97.0
    table = np.full((h, w, 3), 120, np.uint8)
    frame = table.copy()
    centre = np.array([160.0, 120.0])
    t = np.radians(50.0)
    along, across = np.array([np.sin(t), -np.cos(t)]), np.array([np.cos(t), np.sin(t)])
    corners = np.array([centre + sx * short / 2 * across + sy * long_ / 2 * along
                        for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1))])
    cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), (paper,) * 3, cv2.LINE_AA)
    for dx, dy in marks_at:
        x, y = int(centre[0] + dx), int(centre[1] + dy)
        cv2.rectangle(frame, (x - 8, y - 8), (x + 8, y + 8), (0, 0, 0), -1)
    xs, ys = [centre[0] + dx for dx, _ in marks_at], [centre[1] + dy for _, dy in marks_at]
    marks = np.array([[min(xs) - 12, min(ys) - 12], [max(xs) + 12, min(ys) - 12],
                      [max(xs) + 12, max(ys) + 12], [min(xs) - 12, max(ys) + 12]])
    return frame, table, corners, marks


def _off_axes(angle: float) -> float:
    return min(angle % 90.0, 90.0 - angle % 90.0)


def test_the_print_inside_a_refused_outline_does_not_turn_the_fitted_card():
    # Twelve marks' edges far outweigh the card's sides (a step of 24 grey levels), which run
    # 50 degrees from them: looking everywhere, the fit turns its cards the marks' way and
    # fits no card there; told that the marks lie inside the card (the outline refused was
    # theirs), it finds the card's own direction, and the card.
    frame, table, corners, marks = _card_with_square_print([(dx, dy) for dx in (-20, 0, 20)
                                                            for dy in (-30, -10, 10, 30)], paper=96)
    size, aspect = 130.0, 97.0 / 130.0
    grey, tgrey = fit._grey(frame), fit._grey(table)
    assert [_off_axes(a) <= 4.0 for a in fit._main_angles(grey, tgrey)] == [True]
    ignore = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(ignore, marks.astype(np.int32), 1)
    assert abs(fit._main_angles(grey, tgrey, ignore.astype(bool))[0] - 50.0) <= 3.0
    blind = fit.fitted_outline(frame, table, tuple(marks.mean(axis=0)), size, aspect)
    assert blind is None or corner_error(blind.corners, corners) > 0.1 * size
    got = fit.fitted_outline(frame, table, tuple(marks.mean(axis=0)), size, aspect, within=marks)
    assert got is not None and corner_error(got.corners, corners) < 0.04 * size


def test_a_second_direction_of_the_new_edges_is_tried_when_it_weighs_almost_as_much():
    # Five marks: their edges still lead, the card's sides weigh more than
    # SECOND_DIRECTION of theirs, and the fit tries both directions with no hint.
    frame, table, corners, _ = _card_with_square_print([(-20, -30), (0, -30), (20, -30), (-20, 30), (0, 30)])
    hist_first, *rest = fit._main_angles(fit._grey(frame), fit._grey(table))
    assert _off_axes(hist_first) <= 4.0 and len(rest) == 1 and abs(rest[0] - 50.0) <= 3.0
    got = fit.fitted_outline(frame, table, (160.0, 120.0), 130.0, 97.0 / 130.0)
    assert got is not None and corner_error(got.corners, corners) < 0.04 * 130.0


@pytest.mark.parametrize("gap_mm,turn", [(12.0, 20.0), (18.0, -25.0)])
def test_two_cards_lying_close_together_are_each_fitted(monkeypatch, tmp_path, gap_mm, turn):
    # Two cards a centimetre or so apart, one turned against the other: their print closes
    # into one place larger than a card (``fit.SEVERAL_CARDS``), which was not looked at,
    # and neither card was fitted. A card is now fitted at the middle of each part.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    session, table, rng, aspect = _white_mat("gen-3", 0, group="cloth")
    size = session.card_px()
    x, y = vs._view_point(session, 0.5, 0.5)
    half = (63.0 + gap_mm) / 2          # a card is 63 mm wide
    places = [{"card": Card(c), "at": (x + dx, y), "rotation": r, "sticker": False}
              for c, dx, r in (("10S", -half, 4.0), ("9H", half, turn))]
    scene = compose_scene(places, size=session.size, rng=rng, **session.conditions())
    frame = scene.shoot(rng)[0]
    truths = [np.asarray(t["corners"], np.float32) for t in scene.truth]
    assert cv2.intersectConvexConvex(*truths)[0] == 0              # apart
    fg = table.foreground(frame, update=False)
    got = fit.fitted_outlines(frame, fg, [], aspect, table, size)
    assert len(got) == 2
    for truth in truths:
        assert min(corner_error(o.corners, truth) for o in got) < 0.04 * size
