"""Straightening a found card: the face upright at the canonical size, both ways up, with its own paper as white.

>>> import numpy as np
>>> frame = np.full((200, 200, 3), 200, np.uint8)
>>> views = upright_views(frame, np.array([[50, 20], [120, 20], [120, 120], [50, 120]], np.float32), 0.7)
>>> [v.shape for v in views]
[(160, 112, 3), (160, 112, 3)]
"""
from __future__ import annotations

import cv2
import numpy as np

CANON_H = 160
"""Height in pixels of the upright card every view is warped to."""


def canon_size(aspect: float) -> tuple:
    """(width, height) of the canonical upright card for a deck of this width/height."""
    return max(16, int(round(CANON_H * aspect))), CANON_H


def portrait_orders(corners: np.ndarray, sideways: bool = False) -> tuple:
    """The four corners reordered so that the first side is a short one (the card's top
    when read), in both ways up: two arrays (4, 2), each clockwise from a top-left.
    ``sideways``: the first side is a long one instead (a card seen at a slant, its long
    sides foreshortened until they look the shorter)."""
    q = np.asarray(corners, np.float32).reshape(4, 2)
    s01 = np.hypot(*(q[1] - q[0]))
    s12 = np.hypot(*(q[2] - q[1]))
    if (s01 > s12) != sideways:
        q = np.roll(q, -1, axis=0)
    return q, np.roll(q, -2, axis=0)


def squarish(corners: np.ndarray) -> float:
    """How near a square the quadrilateral looks: its shorter pair of opposite sides over
    its longer (1 for a square), each pair by its mean length."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return float(min(a, b) / max(a, b, 1e-9))


def warp(frame: np.ndarray, order: np.ndarray, size: tuple) -> np.ndarray:
    """The quadrilateral ``order`` (clockwise from the top-left) warped to ``size`` (w, h).
    A card much larger than the canonical size is softened first, so that shrinking it
    does not alias fine print."""
    w, h = size
    long_side = max(np.hypot(*(order[1] - order[2])), np.hypot(*(order[3] - order[0])))
    shrink = long_side / h
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(order.astype(np.float32), dst)
    if shrink > 1.5:
        x0, y0 = np.floor(order.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(order.max(axis=0)).astype(int) + 4
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
        roi = cv2.GaussianBlur(frame[y0:y1, x0:x1], (0, 0), 0.45 * shrink)
        m = m @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        return cv2.warpPerspective(roi, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def upright_views(frame: np.ndarray, corners: np.ndarray, aspect: float, sideways: bool = False) -> list:
    """The card's face at the canonical size, both ways up (BGR uint8); ``sideways``: with
    the outline's longer sides taken for the card's short ones (``portrait_orders``)."""
    size = canon_size(aspect)
    a, b = portrait_orders(corners, sideways)
    first = warp(frame, a, size)
    return [first, first[::-1, ::-1].copy()]


def face_of(frame: np.ndarray, corners: np.ndarray, height: int = 200) -> np.ndarray:
    """The card's face upright at its own proportions (for calibration), ``height`` px high."""
    a, _ = portrait_orders(corners)
    w = np.hypot(*(a[1] - a[0])) + np.hypot(*(a[2] - a[3]))
    h = np.hypot(*(a[2] - a[1])) + np.hypot(*(a[3] - a[0]))
    return warp(frame, a, (max(8, int(round(height * w / h))), height))


def white_balanced(view: np.ndarray) -> np.ndarray:
    """The view in units of its own paper: each channel divided by the card's light
    (a high percentile of the inner face), so that a lamp's colour, the camera's white
    balance and exposure divide out. float32, paper about 1."""
    v = view.astype(np.float32)
    h, w = v.shape[:2]
    m = max(2, h // 24)
    inner = v[m:-m:2, m:-m:2].reshape(-1, 3)
    k = int(0.96 * (len(inner) - 1))
    white = np.partition(inner, k, axis=0)[k]
    return v / np.maximum(white, 8.0)
