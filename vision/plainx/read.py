"""Reading a straightened card: how well it matches each calibrated card, and where the close ones differ.

Everything is compared in the card's own light (see ``straighten.white_balanced``),
normalized to zero mean and unit spread, so exposure and contrast do not matter.
"""
from __future__ import annotations

import cv2
import numpy as np

SMALL = (12, 17)
"""Size of the low-resolution face used to shortlist candidates."""
SHIFT = 4
"""How far (canonical px) a view may slip against a template: found corners are never exact."""
SOFTEN = 1.2
"""Gaussian sigma (canonical px) applied to views and templates alike before comparing."""
INSET = 0.03
"""Fraction of the card's height left out at every edge (rounded corners, the table)."""


def grey_of(balanced: np.ndarray) -> np.ndarray:
    """Lightness of a white-balanced view (float32, paper about 1)."""
    return balanced.mean(axis=2)


def redness_of(balanced: np.ndarray) -> np.ndarray:
    """How red each pixel is in the card's own light: red over the mean of green and
    blue, minus one (0 for grey or black ink, about 1 or more for red ink)."""
    gb = (balanced[:, :, 0] + balanced[:, :, 1]) / 2
    return balanced[:, :, 2] / np.maximum(gb, 0.05) - 1.0


def _normed(x: np.ndarray) -> np.ndarray:
    x = x - x.mean()
    return x / (np.sqrt((x * x).sum()) + 1e-6)


def small_of(grey: np.ndarray) -> np.ndarray:
    """The shortlist feature: the face at low resolution, inset, zero mean, unit length."""
    h, w = grey.shape
    m = max(1, int(round(INSET * h)))
    s = cv2.resize(grey[m:h - m, m:w - m], SMALL, interpolation=cv2.INTER_AREA)
    return _normed(s).ravel()


def soft_of(grey: np.ndarray) -> np.ndarray:
    """The fine feature: the face softened a little (float32)."""
    return cv2.GaussianBlur(grey, (0, 0), SOFTEN)


def inset_box(shape) -> tuple:
    """(y0, y1, x0, x1) of the part of a canonical face that templates are compared on."""
    h, w = shape[:2]
    m = max(2, int(round(INSET * h))) + SHIFT
    return m, h - m, m, w - m


def fine_match(view_soft: np.ndarray, tmpl_soft: np.ndarray) -> tuple:
    """Best normalized correlation of the template's inner part over the view, letting
    it slip up to ``SHIFT`` px each way: ``(score, (dy, dx))``."""
    y0, y1, x0, x1 = inset_box(tmpl_soft.shape)
    r = cv2.matchTemplate(view_soft, tmpl_soft[y0:y1, x0:x1], cv2.TM_CCOEFF_NORMED)
    _, score, _, (dx, dy) = cv2.minMaxLoc(r)
    return float(score), (dy - y0, dx - x0)


def shifted(view: np.ndarray, tmpl_shape, shift) -> np.ndarray:
    """The part of the view that lies under the template's compared part at ``shift``."""
    y0, y1, x0, x1 = inset_box(tmpl_shape)
    dy, dx = shift
    return view[y0 + dy:y1 + dy, x0 + dx:x1 + dx]
