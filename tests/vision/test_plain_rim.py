"""A calibration face cut at an outline outside the card (a strip of the table along some sides) is cut again at the card's rim, even when its twin was cut alike; well-cut faces are left alone."""
import cv2
import numpy as np
import pytest

from engine.cards import DECK
from vision import art
from vision.plain.calibration import RIM_LEAST, rim_trims, trimmed

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


@pytest.mark.usefixtures("need_art")
@pytest.mark.parametrize("design", ["oxygen", "dondorf"])
def test_twins_cut_alike_outside_the_card_are_cut_again_at_their_rim(design, rng):
    cv2.setNumThreads(1)
    laid = _laid(design, rng)
    faces = {c: _cut(*laid[c]) for c in DECK}
    aspect = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
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
