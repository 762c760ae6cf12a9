"""A calibration face cut at an outline outside the card (a strip of the table along some sides) is cut again at the card's rim, even when its twin was cut alike; one cut inside the card (at the frame printed within its rim) is cut again at its edge; well-cut faces are left alone."""
import cv2
import numpy as np
import pytest

from engine.cards import DECK
from vision import art
from vision.plain.calibration import RIM_LEAST, inner_cuts, rim_trims, trimmed

H = 200
TABLE = (118, 121, 124)     # the white mat's paper in a dim room, as the camera sees it


def _laid(design: str, rng) -> tuple:
    """Each card's face as the camera saw it laid on the table, ``{card: picture}`` with
    a margin of the table around the card, and the card's box in that picture."""
    out = {}
    for c in DECK:
        face = art.card_image(design, c, height=H)
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        h, w = face.shape[:2]
        canvas = np.empty((h + 60, w + 60, 3), np.float32)
        canvas[:] = TABLE
        canvas[30:30 + h, 30:30 + w] = face[:, :, :3] * alpha + canvas[30:30 + h, 30:30 + w] * (1 - alpha)
        canvas += rng.normal(0, 2.0, canvas.shape)       # the sensor's noise
        out[c] = (np.clip(canvas, 0, 255).astype(np.uint8), (30, 30, w, h))
    return out


def _cut(picture, box, top=0, left=0, bottom=0, right=0) -> np.ndarray:
    """The face cut at the card's box grown outwards by the given strips (px)."""
    x, y, w, h = box
    cut = picture[y - top:y + h + bottom, x - left:x + w + right]
    return cv2.resize(cut, (int(round(H * cut.shape[1] / cut.shape[0])), H), interpolation=cv2.INTER_AREA)


def _deck(design: str, rng) -> tuple:
    """(each card laid on the table, each face cut at the card's box, the deck's width/height)."""
    laid = _laid(design, rng)
    faces = {c: _cut(*laid[c]) for c in DECK}
    return laid, faces, float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))


@pytest.mark.usefixtures("need_art")
@pytest.mark.parametrize("design", ["oxygen", "dondorf"])
def test_twins_cut_alike_outside_the_card_are_cut_again_at_their_rim(design, rng):
    cv2.setNumThreads(1)
    laid, faces, aspect = _deck(design, rng)
    # Q♥ and Q♦ cut alike, with a strip of the mat along their top and left sides (so
    # that the twins vouch for each other in miscut_faces); K♣ askew, along its bottom.
    strip = 10
    bad = {"QH": dict(top=strip, left=strip), "QD": dict(top=strip, left=strip), "KC": dict(bottom=strip)}
    for c, grow in bad.items():
        faces[c] = _cut(*laid[c], **grow)
    found = rim_trims(faces, aspect)
    assert {str(c) for c in found} == set(bad)
    for c, strips in found.items():
        again, shorter = trimmed(faces[c], aspect, strips)
        well = _cut(*laid[c])
        again = cv2.resize(again, well.shape[1::-1])
        # Cut again, the face lies on the well-cut one within a couple of grey levels
        # (as cut, the strip shifts it by far more).
        assert np.abs(again.astype(float) - well).mean() < 0.5 * np.abs(
            cv2.resize(faces[c], well.shape[1::-1]).astype(float) - well).mean()
        # Cut again, the face is shorter by about the strips along its top and bottom.
        grew = bad[c].get("top", 0) + bad[c].get("bottom", 0)
        assert abs(shorter - H / (H + grew)) < 0.02


@pytest.mark.usefixtures("need_art")
@pytest.mark.parametrize("design", ["oxygen", "standard", "penguins"])
def test_a_well_cut_deck_is_left_alone(design, rng):
    # Slips of a pixel or two, as one pass's outlines waver, are not strips of the table.
    cv2.setNumThreads(1)
    laid = _laid(design, rng)
    faces = {}
    for c in DECK:
        s = rng.integers(-1, 3, size=4)
        faces[c] = _cut(*laid[c], top=int(s[0]), left=int(s[1]), bottom=int(s[2]), right=int(s[3]))
    aspect = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
    assert rim_trims(faces, aspect) == {}
    assert inner_cuts(faces, aspect) == {}
    assert 2 / (H * aspect) < RIM_LEAST


@pytest.mark.usefixtures("need_art")
def test_a_strip_fitted_on_a_well_cut_face_is_not_trimmed(rng, monkeypatch):
    # A light rim's printed frame can fit the deck's rim as if it were the card's edge:
    # the well-cut face, trimmed there, would be smaller than the deck's cards, and is
    # kept as it was; the face cut outside the card, trimmed, is of the deck's size.
    from vision.plain import calibration
    cv2.setNumThreads(1)
    laid = _laid("oxygen-white", rng)
    faces = {c: _cut(*laid[c]) for c in DECK}
    sizes = {c: 100.0 for c in DECK}
    well, wide = DECK[0], DECK[1]
    faces[wide] = _cut(*laid[wide], top=10, bottom=2)
    sizes[wide] = 100.0 * faces[wide].shape[0] / H * (H + 12) / H
    strip = 10 / (H * faces[well].shape[1] / faces[well].shape[0])
    monkeypatch.setattr(calibration, "rim_trims", lambda f, a: {
        well: {("top", 0): 0.08, ("top", 1): 0.08, ("left", 0): 0.08, ("left", 1): 0.08},
        wide: {("top", 0): strip, ("top", 1): strip}})
    before = faces[well].copy()
    assert calibration.recut_faces(faces, sizes) == [wide]
    assert np.array_equal(faces[well], before) and sizes[well] == 100.0
    assert abs(sizes[wide] / 100.0 - 1) < 0.02


INSIDE = 7
"""Pixels (of 200) between a light rim's edge and the frame printed inside it, as the
Oxygen decks print it."""


@pytest.mark.usefixtures("need_art")
@pytest.mark.parametrize("design", ["oxygen", "oxygen-air"])
def test_faces_cut_inside_the_card_are_named(design, rng):
    cv2.setNumThreads(1)
    laid, faces, aspect = _deck(design, rng)
    inside = {"10H", "10D"}
    for c in DECK:
        if str(c) in inside:
            faces[c] = _cut(*laid[c], top=-INSIDE, left=-INSIDE, bottom=-INSIDE, right=-INSIDE)
    found = inner_cuts(faces, aspect)
    assert {str(c) for c in found} == inside
    if design == "oxygen-air":
        # A plain light rim, cut inside with no frame there: the face lacks the card's
        # edge, but how much rim it lacks cannot be told.
        return
    for strips in found.values():
        # Each side lacks about the strip it was cut inside by (stretched to the face's
        # height as cut).
        width = H * aspect
        assert all(abs(v * width - INSIDE * H / (H - 2 * INSIDE)) <= 2 for v in strips.values()), strips


@pytest.mark.usefixtures("need_art")
def test_a_photo_cut_inside_the_card_is_cut_again_at_its_edge(rng, tmp_path):
    # From photos (calibrate deck --from-dir), a face cut inside its rim is cut again from
    # its photo with its sides moved out, and then lies on the face cut at the card's edge.
    from vision.deck_calibration import _grow_inner
    from vision.plain.straighten import face_of
    cv2.setNumThreads(1)
    laid = _laid("oxygen", rng)
    found, faces, sizes, corners = {}, {}, {}, {}
    inside = DECK[7]
    for c in DECK:
        picture, (x, y, w, h) = laid[c]
        found[c] = tmp_path / f"{c}.png"
        cv2.imwrite(str(found[c]), picture)
        k = INSIDE if c == inside else 0
        corners[c] = np.float32([[x + k, y + k], [x + w - k, y + k], [x + w - k, y + h - k], [x + k, y + h - k]])
        faces[c] = face_of(picture, corners[c])
        sizes[c] = (h - 2 * k) / min(picture.shape[:2])      # a share of the picture's short side
    well = face_of(laid[inside][0], np.float32([[30, 30], [30 + laid[inside][1][2], 30],
                                                 [30 + laid[inside][1][2], 30 + laid[inside][1][3]],
                                                 [30, 30 + laid[inside][1][3]]]))
    as_cut = faces[inside]
    assert _grow_inner(found, faces, sizes, corners) == [inside]
    grown = cv2.resize(faces[inside], well.shape[1::-1])
    assert np.abs(grown.astype(float) - well).mean() < 0.3 * np.abs(
        cv2.resize(as_cut, well.shape[1::-1]).astype(float) - well).mean()
    assert abs(sizes[inside] / sizes[DECK[0]] - 1) < 0.03


@pytest.mark.usefixtures("need_art")
def test_a_face_askew_across_the_card_fits_the_deck_rim_worse_than_one_cut_at_its_edge(rng):
    # Calibration from photos keeps the second look's outline only where its face fits
    # the deck's rim as well as the first look's: a quadrilateral askew across the card,
    # with the table at two corners, does not; a face first cut inside the card, at the
    # frame within its rim, fits worse than the card cut at its edge.
    from vision.plain.calibration import deck_rim, rim_misfit
    from vision.plain.straighten import face_of
    cv2.setNumThreads(1)
    laid, faces, aspect = _deck("oxygen", rng)
    card = DECK[14]
    picture, (x, y, w, h) = laid[card]
    well = faces[card]
    askew = face_of(picture, np.float32([[x - 8, y - 6], [x + w + 2, y - 2], [x + w + 8, y + h + 6], [x - 2, y + h + 2]]))
    inside = _cut(picture, (x, y, w, h), top=-INSIDE, left=-INSIDE, bottom=-INSIDE, right=-INSIDE)
    rim = deck_rim(faces, aspect)
    assert rim_misfit(well, rim) < 0.5 * rim_misfit(askew, rim)
    assert rim_misfit(well, rim) < 0.5 * rim_misfit(inside, rim)


@pytest.mark.skipif(not art.art_available(), reason="KDE card art not installed")
def test_a_face_cut_askew_is_named_and_a_face_with_an_even_border_is_not():
    # A live pass took an ace from an outline one of whose corners lay out on the grey mat:
    # a wedge of the mat along its left side, a tenth of the width at the top, nothing at
    # the bottom. A face cut at the card's edge, or with a strip of even width along a
    # side (rim_trims' case), is not askew.
    from vision.plain.calibration import askew_cuts
    face = art.card_image("tigullio-international", "AS", height=H)
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    card = (face[:, :, :3] * alpha + np.float32(TABLE) * (1 - alpha)).astype(np.uint8)
    h, w = card.shape[:2]
    grey = (150, 150, 150)
    wedge, strip = card.copy(), card.copy()
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                    np.float32([[0.1 * w, 0], [w, 0], [w, h], [0, h]]))
    wedge = cv2.warpPerspective(card, m, (w, h), borderMode=cv2.BORDER_CONSTANT, borderValue=grey)
    strip[:, :int(0.06 * w)] = grey
    assert list(askew_cuts({"AS": wedge})) == ["AS"] and "left" in askew_cuts({"AS": wedge})["AS"]
    assert askew_cuts({"AS": card, "AS2": strip}) == {}
    # Nor are the well-cut faces of whole decks.
    for design in ("standard", "oxygen", "dondorf"):
        faces = {str(c): art.card_image(design, c, height=H)[:, :, :3] for c in DECK}
        assert askew_cuts(faces) == {}, design


def test_faces_cut_at_a_frame_line_on_two_sides_are_cut_again_from_their_crops(rng):
    # A deck with a line printed inside its edge (gen-24) on a table of its paper's shade:
    # the card's edge shows only where its shadow falls, so some faces were cut at the frame
    # line along their top and left sides and beyond the card along the others (tuning
    # seed 974). They are named with the strips they lack (negative: outside) and the
    # strips of table they hold; cut again from the picture they were taken from, their
    # corners lie on the card's.
    from vision.deck_calibration import _cut_again
    from vision.plain.calibration import rim_regrowths
    from vision.plain.straighten import face_of
    cv2.setNumThreads(1)
    laid = _laid("gen-24", rng)
    inset = 8.0                       # px of 200: the frame line's inset (3.5 mm of 88)
    shifted = {"10C", "9D", "KS"}
    faces, quads, truth = {}, {}, {}
    for c in DECK:
        picture, (x, y, w, h) = laid[c]
        box = np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]) - 0.5
        truth[str(c)] = box
        quads[str(c)] = box + (np.float32([[inset, inset], [inset, inset], [inset, inset], [inset, inset]])
                               if str(c) in shifted else 0)
        faces[str(c)] = face_of(picture, quads[str(c)])
    aspect = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
    found = rim_regrowths(faces, aspect)
    assert set(found) == shifted, found
    for c, strips in found.items():
        assert {side for (side, _), v in strips.items() if v < 0} == {"top", "left"}, strips
        face, quad = _cut_again([laid[c][0]], quads[c], faces[c], strips, aspect)
        # The same corner order as the face was cut in; each corner within 2 px of the card's.
        assert np.abs(quad - truth[c]).max() <= 2.0, (c, quad, truth[c])
        assert face.shape[0] == faces[c].shape[0]


def test_a_well_cut_deck_with_a_frame_line_is_not_cut_again(rng):
    from vision.plain.calibration import rim_regrowths
    laid, faces, aspect = _deck("gen-24", rng)
    assert rim_regrowths(faces, aspect) == {}
