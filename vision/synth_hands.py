"""Hands and arms for synthetic frames: a forearm reaching in from the table's edge (bare or in a sleeve), a hand with fingers over or beside a card, and their soft shadows.

Shapes are drawn in frame pixels from table millimetres through the camera's
homography, so that a hand has its true size for the camera's height.
"""
from __future__ import annotations

import cv2
import numpy as np

SKIN_TONES = [(120, 150, 205), (90, 125, 180), (60, 90, 140), (150, 180, 225), (45, 65, 100),
              (105, 140, 195), (75, 105, 160), (140, 165, 215), (35, 50, 80)]
"""Skin tones (BGR), light to dark."""
SLEEVES = [(40, 40, 40), (150, 70, 30), (30, 30, 140), (200, 200, 200), (60, 110, 60),
           (90, 90, 90), (40, 140, 200), (120, 60, 110), (220, 220, 225), (30, 60, 90)]
"""Sleeve colours (BGR)."""


def _map(hmg, pts) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), hmg).reshape(-1, 2)


def _entry(view_mm, towards, rng):
    """A point on the edge of the seen table (``view_mm``: x0, y0, x1, y1) from which an
    arm reaches towards ``towards``: the edge nearest the target, as people reach from
    their own side."""
    x0, y0, x1, y1 = view_mm
    tx, ty = towards
    d = {"W": tx - x0, "E": x1 - tx, "N": ty - y0, "S": y1 - ty}
    side = min(d, key=d.get) if rng.random() < 0.75 else list(d)[rng.integers(4)]
    if side == "W":
        return np.array([x0 - 60, ty + rng.uniform(-80, 80)])
    if side == "E":
        return np.array([x1 + 60, ty + rng.uniform(-80, 80)])
    if side == "N":
        return np.array([tx + rng.uniform(-80, 80), y0 - 60])
    return np.array([tx + rng.uniform(-80, 80), y1 + 60])


def hand_shapes(hmg, view_mm, rng, target_mm=None, mode: str = "over", cover: float = 0.35,
                canvas_size=(640, 480)):
    """Masks (uint8, canvas size) of a reaching ``arm`` and its ``hand``, and the
    fingertips' table point. ``target_mm`` is the target card's four corners (mm) or
    None (a hand anywhere over the table). ``mode`` "over": the fingers cover about
    ``cover`` of the card's length; "beside": they stop a few millimetres short of it.
    """
    w, h = canvas_size
    if target_mm is not None:
        t = np.asarray(target_mm, np.float64)
        centre = t.mean(axis=0)
        length = max(np.linalg.norm(t[0] - t[3]), np.linalg.norm(t[0] - t[1]))
    else:
        x0, y0, x1, y1 = view_mm
        centre = np.array([rng.uniform(x0 + 40, x1 - 40), rng.uniform(y0 + 40, y1 - 40)])
        length = 88.0
    start = _entry(view_mm, centre, rng)
    d = centre - start
    d /= np.linalg.norm(d)
    d = _turn(d, rng.uniform(-0.35, 0.35))
    if mode == "beside":
        # Fingertips stop short of the card's outline (a gap of 3-15 mm), from whichever
        # side the arm comes: step back from the centre until outside the card.
        tip = centre.copy()
        if target_mm is not None:
            poly = np.asarray(target_mm, np.float32)
            gap = rng.uniform(3, 15)
            for _ in range(400):
                if cv2.pointPolygonTest(poly, (float(tip[0]), float(tip[1])), True) <= -gap:
                    break
                tip = tip - d * 1.0
        side = np.array([-d[1], d[0]]) * rng.choice([-1, 1]) * rng.uniform(0, 25)
        tip = tip + side
    else:
        # From the card's edge facing the arm, reach `cover` of the card's length in.
        tip = centre - d * (length / 2) + d * (cover * length)
    palm_len = rng.uniform(85, 105)
    palm_w = rng.uniform(75, 92)
    finger_len = rng.uniform(60, 80) * (rng.uniform(0.55, 1.0) if rng.random() < 0.4 else 1.0)
    spread = rng.uniform(0.0, 0.25)
    widths = rng.uniform(15, 19, 4)
    thumb_side = rng.choice([-1, 1])
    thumb_turn, thumb_len = rng.uniform(0.5, 1.0), rng.uniform(45, 60)
    arm_w = rng.uniform(60, 80)
    perp = np.array([-d[1], d[0]])

    def draw(tip):
        hand = np.zeros((h, w), np.uint8)
        arm = np.zeros((h, w), np.uint8)
        wrist = tip - d * (finger_len + palm_len)
        # Palm: a rounded quadrilateral from the wrist to the knuckles.
        knuckles = wrist + d * palm_len
        _fill(hand, hmg, [wrist - perp * palm_w * 0.38, knuckles - perp * palm_w * 0.5,
                          knuckles + perp * palm_w * 0.5, wrist + perp * palm_w * 0.38])
        for k, reach, fw in zip((-1.5, -0.5, 0.5, 1.5), (0.8, 1.0, 0.95, 0.75), widths):
            base = knuckles + perp * k * palm_w * 0.24
            _thick_line(hand, hmg, base, base + _turn(d, k * spread) * finger_len * reach, fw)
        # The thumb, on one side, pointing forward and out.
        tb = wrist + d * palm_len * 0.35 + perp * thumb_side * palm_w * 0.45
        _thick_line(hand, hmg, tb, tb + _turn(d, thumb_side * thumb_turn) * thumb_len, 20)
        # The forearm from outside the table's edge to the wrist, narrowing.
        far = start - d * 120
        _fill(arm, hmg, [far - perp * arm_w * 0.6, wrist - perp * arm_w * 0.42,
                         wrist + perp * arm_w * 0.42, far + perp * arm_w * 0.6])
        return arm, hand

    arm, hand = draw(tip)
    if mode == "beside" and target_mm is not None:
        # Fingers spread and the thumb may still touch a slanted card: pull back.
        card = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(card, np.round(_map(hmg, target_mm)).astype(np.int32), 1)
        for _ in range(60):
            if not np.any(np.maximum(arm, hand)[card > 0] > 0):
                break
            tip = tip - d * 3.0
            arm, hand = draw(tip)
    return arm, hand, tip


def _turn(v, a):
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _fill(mask, hmg, pts_mm) -> None:
    p = _map(hmg, pts_mm)
    cv2.fillPoly(mask, [np.round(p * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)


def _thick_line(mask, hmg, a_mm, b_mm, width_mm) -> None:
    a, b = _map(hmg, [a_mm, b_mm])
    scale = np.linalg.norm(_map(hmg, [a_mm, np.asarray(a_mm) + [10, 0]])[1] - a) / 10.0
    cv2.line(mask, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), 255,
             max(2, int(round(width_mm * scale))), cv2.LINE_AA)


def draw_hand(canvas: np.ndarray, labels, arm, hand, rng, skin=None, sleeve=None,
              bare_arm: bool = None, px_per_mm: float = 2.0, height_mm: float = None,
              light_dir=None) -> None:
    """Draw an arm and hand (masks from :func:`hand_shapes`) onto ``canvas`` (float32 BGR,
    in place), first their shadow on the table (the hand hovers ``height_mm`` above it),
    and mark ``labels`` -2 where they cover."""
    H, W = canvas.shape[:2]
    skin = np.array(skin if skin is not None else SKIN_TONES[rng.integers(len(SKIN_TONES))], np.float32)
    skin = skin * np.float32(rng.uniform(0.92, 1.08))
    bare_arm = rng.random() < 0.35 if bare_arm is None else bare_arm
    sleeve = np.array(sleeve if sleeve is not None else SLEEVES[rng.integers(len(SLEEVES))], np.float32)
    height_mm = rng.uniform(15, 80) if height_mm is None else height_mm
    a = np.deg2rad(rng.uniform(0, 360)) if light_dir is None else light_dir
    both = np.maximum(arm, hand)
    ys, xs = np.nonzero(both)
    if len(xs) == 0:
        return
    # Work in the box around the limb and its shadow only (a frame is mostly table).
    off = height_mm * rng.uniform(0.15, 0.4) * px_per_mm
    soft = max(1.0, 0.12 * height_mm * px_per_mm)
    pad = int(np.ceil(off + 3 * soft)) + 2
    x0, x1 = max(0, xs.min() - pad), min(W, xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(H, ys.max() + pad + 1)
    box = canvas[y0:y1, x0:x1]
    arm, hand, both = arm[y0:y1, x0:x1], hand[y0:y1, x0:x1], both[y0:y1, x0:x1]
    h, w = both.shape
    # Shadow: the limb moved away from the lamp and softened with its height.
    m = np.float32([[1, 0, np.cos(a) * off], [0, 1, np.sin(a) * off]])
    shadow = cv2.warpAffine(both, m, (w, h)).astype(np.float32) / 255.0
    shadow = cv2.GaussianBlur(shadow, (0, 0), soft)
    box *= (1.0 - rng.uniform(0.25, 0.5) * shadow)[:, :, None]
    # Shading across the limb: rounder, darker at its outline.
    inner = cv2.GaussianBlur(both, (0, 0), max(2.0, 6 * px_per_mm)).astype(np.float32) / 255.0
    shade = (0.72 + 0.35 * inner)[:, :, None]
    tex = rng.normal(0, 3.0, (h, w, 1)).astype(np.float32)
    skin_img = skin[None, None, :] * shade + tex
    if bare_arm:
        limb = skin_img
    else:
        folds = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0),
                                 max(2.0, 4 * px_per_mm))
        folds = folds / (folds.std() + 1e-6)
        limb = sleeve[None, None, :] * (shade * (1.0 + 0.08 * folds[:, :, None])) + tex
    alpha_arm = cv2.GaussianBlur(arm, (0, 0), 0.8).astype(np.float32)[:, :, None] / 255.0
    alpha_hand = cv2.GaussianBlur(hand, (0, 0), 0.8).astype(np.float32)[:, :, None] / 255.0
    box[:] = limb * alpha_arm + box * (1 - alpha_arm)
    box[:] = skin_img * alpha_hand + box * (1 - alpha_hand)
    if labels is not None:
        labels[y0:y1, x0:x1][both > 127] = -2
