"""Tests of vision.plain.reflection: a lamp's reflection where the cards were calibrated, found from the faces and taken out of them."""
import cv2
import numpy as np

from vision.plain.reflection import reflection
from vision.plain.straighten import face_of

FRAME = (480, 640)
SPOT = (300, 250)          # where the lamp is mirrored in the table (x, y)


def _print(rng) -> np.ndarray:
    """A card's face: paper with dark strokes and blobs (BGR, 160 x 112)."""
    face = np.full((160, 112, 3), 170, np.uint8)     # paper as a webcam exposes it
    for _ in range(14):
        x, y = int(rng.integers(8, 104)), int(rng.integers(8, 152))
        if rng.random() < 0.5:
            cv2.circle(face, (x, y), int(rng.integers(3, 8)), (30, 30, 30), -1)
        else:
            cv2.line(face, (x, y), (x + int(rng.integers(-20, 20)), y + int(rng.integers(-20, 20))), (30, 30, 30), 2)
    return face


def _laid(face, angle, centre, lamp: float, rng):
    """The frame of a table with the card laid at ``centre`` turned by ``angle``, under a
    lamp mirrored at SPOT (washing out ``lamp`` of what lies there), and the card's corners."""
    h, w = face.shape[:2]
    frame = np.full((*FRAME, 3), 70, np.uint8)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    rot = cv2.getRotationMatrix2D((0, 0), angle, 1.0)[:, :2]
    dst = (src - [w / 2, h / 2]) @ rot.T + centre
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    cv2.warpPerspective(face, m, (FRAME[1], FRAME[0]), frame, borderMode=cv2.BORDER_TRANSPARENT)
    yy, xx = np.mgrid[0:FRAME[0], 0:FRAME[1]]
    glare = lamp * np.exp(-((xx - SPOT[0]) ** 2 + (yy - SPOT[1]) ** 2) / (2 * 35.0 ** 2))
    lit = frame.astype(np.float32) + (255 - frame.astype(np.float32)) * glare[..., None]
    lit += rng.normal(0, 2, lit.shape)
    return np.clip(lit, 0, 255).astype(np.uint8), dst


def _taken(lamp: float, seed: int = 3):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(12):
        clean = _print(rng)
        angle = 90.0 * (k % 4) + float(rng.uniform(-8, 8))
        centre = np.array([320.0, 240.0]) + rng.uniform(-12, 12, 2)
        frame, corners = _laid(clean, angle, centre, lamp, rng)
        bare, _ = _laid(clean, angle, centre, 0.0, rng)
        out.append((face_of(frame, corners, 160), corners, face_of(bare, corners, 160)))
    return out


def test_a_lamps_reflection_on_the_calibrated_faces_is_found_and_taken_out():
    taken = _taken(lamp=0.7)
    lamp = reflection([(f, q) for f, q, _ in taken], FRAME)
    assert lamp is not None
    before = after = 0.0
    for face, corners, bare in taken:
        fixed = lamp.face(face, corners)
        assert fixed.shape == face.shape
        before += float(np.abs(face.astype(float) - bare).mean())
        after += float(np.abs(fixed.astype(float) - bare).mean())
    assert after < 0.8 * before           # (0.69 when written)


def test_faces_taken_without_a_reflection_are_left_as_they_are():
    taken = _taken(lamp=0.0)
    assert reflection([(f, q) for f, q, _ in taken], FRAME) is None
    assert reflection([(f, q) for f, q, _ in _taken(lamp=0.7)[:3]], FRAME) is None    # too few cards
