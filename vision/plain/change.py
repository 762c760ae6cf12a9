"""Places no outline explains (with the learnt table): card-sized places that differ from the empty table, pixel by pixel or with the light taken out, proposed as outlines."""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

from vision.plain.merge import _merge
from vision.plain.outline import (ANY_CARD, WORK_WIDTH, _has_picture, _start_top_left, _table_veto, _verify, clockwise,
                                  quad_shape, refine)
from vision.plain.photo import mask_quads

CHANGE_LEVEL = 16.0
"""``change_outlines``: a place differs from the empty table where its pixels differ by more
than this (``TableModel.difference``; YCrCb units, chroma doubled). On the tuning camouflage
print (a Blender table), the empty table's own frames differed by at most 11 at 999 pixels
in 1,000; cards lying on it by at least 18 at 19 pixels in 20."""


RELIT_LEVEL = 0.035
RELIT_SPREAD = 6.0
"""``relit_outlines``: a place has changed where its relit difference is above this, or
this many times the frame's spread (1.48 times its median: most of a calibration frame is
the empty table). (Set on one tuning frame, an ivory felt under a lamp that moved: the
table's own relit difference at most 0.023 at 999 pixels in 1,000, a light card's at least
0.047 at 9 in 10.)"""


RELIT_REACH = 4.0
"""How far (frame px) ``relit_outlines`` moves a changed place's sides to the relit
difference's step nearby ..."""
RELIT_SNAP = 3.0
"""... and then to the frame's own step nearby."""


CHANGE_JOIN = 9
"""Pieces of a changed place this close (half-size work px) are also looked at as one."""


CHANGE_LEFT = 0.12
"""``unexplained_change``: a changed place that no outline covers is looked into when it is
at least this fraction of a square of the least card's long side (a card's rim left beside
its outline, a shadow's edge, are thin and opened away; a piece of a card found as an
outline leaves more: the 122 px piece of a 155 px card, 0.15)."""


def unexplained_change(frame_bgr: np.ndarray, table, outlines: list, min_long: float,
                       max_long: float = np.inf) -> Optional[np.ndarray]:
    """Where (uint8 mask, frame size; None for nowhere) the frame differs from the learnt
    empty table pixel by pixel (``TableModel.difference`` above ``CHANGE_LEVEL``) in a
    place that none of ``outlines`` covers, with up to 0.6 of the largest card's long side
    round it (as in ``faint_outlines``): a card whose sides were lost, or found only in
    part, among a print's own edges (a camouflage cloth whose blobs are too large for the
    table to count as busy)."""
    diff = table.difference(frame_bgr) if _has_picture(table) else None
    if diff is None:
        return None
    changed = (diff > CHANGE_LEVEL).astype(np.uint8)
    eh, ew = changed.shape
    scale = ew / frame_bgr.shape[1]
    for o in outlines:
        c = np.round(o.corners * scale).astype(np.int32)
        cv2.fillConvexPoly(changed, c, 0)
        cv2.polylines(changed, [c], True, 0, 3)
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    cs, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    least = CHANGE_LEFT * (min_long * scale) ** 2
    reach = 0.6 * (max_long if np.isfinite(max_long) else 2 * min_long)
    h, w = frame_bgr.shape[:2]
    mask = None
    for c in cs:
        if cv2.contourArea(c) < least:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        mask = np.zeros((h, w), np.uint8) if mask is None else mask
        x0, y0 = int(max(0, x / scale - reach)), int(max(0, y / scale - reach))
        x1, y1 = int(min(w, (x + bw) / scale + reach)), int(min(h, (y + bh) / scale + reach))
        mask[y0:y1, x0:x1] = 255
    return mask


def change_outlines(frame_bgr: np.ndarray, table, aspect: Optional[float], min_long: float,
                    max_long: float = np.inf, mask: Optional[np.ndarray] = None) -> list:
    """Outlines of card-sized places that differ from the learnt empty table pixel by pixel
    (``TableModel.difference`` above ``CHANGE_LEVEL``), each checked as any other outline:
    on a busy table (a camouflage print) a card's sides are lost among the table's own
    edges and its coarse cells, but every pixel of a light card differs from the table's
    under it. ``mask`` (uint8, frame size): where to look."""
    diff = table.difference(frame_bgr) if table is not None else None
    if diff is None:
        return []
    return _outlines_of_change(frame_bgr, table, (diff > CHANGE_LEVEL).astype(np.uint8), aspect, min_long,
                               max_long, mask)


def relit_outlines(frame_bgr: np.ndarray, table, aspect: Optional[float], min_long: float,
                   max_long: float = np.inf, mask: Optional[np.ndarray] = None) -> list:
    """Outlines of card-sized places that differ from the learnt empty table once the
    change of light across it is taken out (``TableModel.relit_difference`` above
    ``RELIT_LEVEL``, or ``RELIT_SPREAD`` times the frame's own spread), each checked as any
    other outline: a light card on light cloth whose sides show too little step for the
    edges, under a lamp that lights the table otherwise than when it was learnt."""
    diff = table.relit_difference(frame_bgr) if _has_picture(table) else None
    if diff is None:
        return []
    level = max(RELIT_LEVEL, RELIT_SPREAD * 1.4826 * float(np.median(diff)))
    # The sides are refined to, and checked by, the steps of the relit difference itself
    # (as a grey picture at the frame's size): in the frame they are too faint, which is
    # why the card was not found there.
    h, w = frame_bgr.shape[:2]
    # Capped at twice the level: the card's print, far off the table, would otherwise
    # make steps stronger than its sides.
    grey = cv2.resize(np.clip(diff * (255 / (2 * level)), 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    return _outlines_of_change(frame_bgr, table, (diff > level).astype(np.uint8), aspect, min_long, max_long, mask,
                               picture=cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


def _outlines_of_change(frame_bgr, table, changed, aspect, min_long, max_long, mask, picture=None) -> list:
    """``change_outlines`` from a map (uint8, half-size work px) of the places that changed;
    the sides refined and checked in ``picture`` (BGR, the frame's size) when given, else
    in the frame, with the table's own edges ruled out."""
    eh, ew = changed.shape
    if mask is not None:
        changed &= (cv2.resize(mask, (ew, eh), interpolation=cv2.INTER_NEAREST) > 0).astype(np.uint8)
    # A thin line (a shadow's rim, a thread) goes; the card's print unlike its paper
    # leaves holes, filled by ``mask_quads``.
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    scale = ew / frame_bgr.shape[1]
    # A card whose paper is the table's colour (ivory on a cream print) differs only where
    # it hides the print's darker blobs, and by its own print: those pieces, joined,
    # make the card's shape too.
    joined = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (CHANGE_JOIN,) * 2))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    # In a relit difference a card is a solid shape whose rim is rounded and bulged by
    # the blur of half size: its least rectangle lies nearer its sides than its hull's
    # four corners (on the tuning frame, 6 px off the card's corners against 10).
    rough = mask_quads([changed, joined], k, (min_long * scale) ** 2 * 0.4, scale, boxes=True,
                       rects=picture is not None)
    if not rough:
        return []
    quads = clockwise(np.stack(rough).astype(np.float32))
    ratio, long_side, _ = quad_shape(quads)
    quads = quads[(ratio > 0.45) & (long_side >= min_long * 0.9) & (long_side <= max_long * 1.1)]
    if len(quads) == 0:
        return []
    if picture is not None:
        found = _merge(_verify(picture, quads, aspect, min_long, reach=RELIT_REACH, max_long=max_long, free=ANY_CARD))
        if found:
            # The relit difference's sides include the card's shadow and the half-size
            # blur: each side is moved to the frame's own step within a few pixels,
            # where it has one (on the tuning frame, 5 px off the card's corners to 3.5).
            near = refine(frame_bgr, np.stack([o.corners for o in found]).astype(np.float32), reach=RELIT_SNAP)
            ok = np.isfinite(near).all(axis=(1, 2))
            for o, q, good in zip(found, near, ok):
                if good:
                    o.corners = _start_top_left(q)
        return found
    # Its rim is cut at half size: the sides are refined to the step nearby, and steps of
    # the table's own (a blob of the print beside a side) neither move nor verify them.
    work_scale = min(1.0, WORK_WIDTH / frame_bgr.shape[1])
    table_edges = table.table_edges(frame_bgr)
    veto = _table_veto(table, table_edges, work_scale) if table_edges is not None else None
    return _merge(_verify(frame_bgr, quads, aspect, min_long, reach=float(np.clip(2.0 / scale, 3, 8)),
                          max_long=max_long, free=ANY_CARD, veto=veto))
