"""Card outlines fitted to faint edges: a card of the calibrated size laid where print lies that no outline explains.

A light card on a white mat, seen small and soft, may show no edge the finder can follow
(a step of a few grey levels). Its print still differs from the empty table. Around such
print, a rectangle of the deck's shape and about the calibrated size is tried at every
place, angle and size near it. Each try is scored by how much of each of its four sides lies
on an edge that the empty table's picture does not have there. Summed along a whole side,
a faint edge is clear evidence. A line through a row of pips or a corner index is not,
nor is a line the mat prints. The best rectangle whose every side is mostly on such edges
becomes an outline. It is then straightened, read and checked like any other.

This search is written here rather than taken from OpenCV. OpenCV's Hough transforms and
contour fitting need edges found first, and here the edges are too faint to be found
point by point. The sides' evidence is added up before any decision.
"""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

from vision.plain.outline import Outline, _median, _overlap, clockwise, refine

WORK_LONG = 64.0
"""The card's long side (px) in the picture the search works on: coarse enough to be cheap,
fine enough for a side to lie within a pixel of its edge."""
FIT_SCALES = np.arange(0.8, 1.36, 0.04)
"""Sizes tried, as shares of the calibrated card's long side (cards nearer the camera look
larger; ``SIZE_RANGE`` allows 0.6-1.35)."""
FIT_TURNS = (-3.0, -1.5, 0.0, 1.5, 3.0)
"""Angles tried (degrees) around each of the two main directions of the new edges."""
SECOND_DIRECTION = 0.6
"""A second direction of the new edges (``_main_angles``) is tried too when its weight is at
least this share of the first's. A card's print can outweigh its sides: the round pips of a
ten of clubs on a cream card, darker than the white cloth it lies on, put most of their edges
near the frame's axes, while the card's faint sides ran 50 degrees from them (their weight
0.8 of the print's) and no card was fitted there."""
SECOND_APART = 20.0
"""Least angle (degrees, modulo 90) between the two directions tried."""
FIT_REACH = 0.25
"""How far (card lengths) the card's centre may lie from the middle of its print."""
SIDE_SPAN = (0.7, 0.6)
"""Share of the long and the short sides scored: their middles (corners are rounded)."""
EDGE_MIN = 6.0
"""Least new edge (3x3 Sobel of grey, work px, less the table's own) at a side's point for it
to count: a step of about 1.5 grey levels. On a textured table it is raised to
``EDGE_NOISE`` times the median new edge around the place."""
EDGE_NOISE = 3.0
"""Times the median new edge around the place that a side's point must reach as well."""
FIT_SUPPORT = 0.75
"""Least share of every side lying on new edges, beyond the share of the line just outside it
(``OUT_GAP``), for a fitted card to be kept."""
OUT_GAP = 3
"""How far (work px) outside a side the line compared with it lies."""
FIT_SLACK = 0.1
"""Fits whose least supported side is within this of the best one's are as good: the largest
of them is kept."""
PLACE_AREA = (0.02, 1.2)
"""Areas of unexplained print that are looked at: at least this share of the card's long
side squared (an ace's single pip), at most this many cards' areas (larger: several cards
together, or a hand)."""
SEVERAL_CARDS = 3.0
"""A place of print that one card cannot hold (larger than ``PLACE_AREA`` allows, or longer
or wider than a card by ``ONE_CARD``) and of at most this many cards' areas is the print of
cards lying close together, closed into one place: a card is fitted at the middle of each
of its parts (``_part_centres``), one part per card it could hold. Two light cards a few
pixels apart on the white A4 mat (tuning seed 984) made one place of 1.27 cards, and
neither was fitted; two light cards side by side on the white mat make one place of less
than a card's area (their print only), and the fit at its middle lay between them."""
ONE_CARD = 1.2
"""A place whose least rectangle is longer than this times the card's long side, or wider
than this times its short side, holds more than one card's print (the foreground is
coarse: cells of 16 px of a 1280 px frame)."""
COARSE = 4
"""Step (px) at which the unexplained print is looked for."""
RIM = 0.12
"""Width (card lengths) of the rim around each outline that is taken as explained by it."""
OUTLINE_NEAR = 0.3
"""Print whose middle lies nearer than this (card lengths) to an outline, or inside it, is not
fitted: a card lying there overlaps that outline's card (half a card's width is about 0.35
of its length), and the fit keeps no card that overlaps an outline. Such print is what two
overlapping cards leave beside the top card's outline. (Tuning frames: the places where a
fit found a card lay 1.2-4.8 card lengths from the nearest outline; those beside
overlapping cards, -0.25 to 0.35.)"""
ALONG_OUTLINE = 0.05
"""A fitted card is not kept when one of its sides lies along another outline's side,
within this (card lengths) over most of its length (``ALONG_SHARE``; the fit's angles are
1.5 degrees apart, so such a side may lean on the other by that much): the edge it stands
on there is the other card's, which may cover it. A card partly under another shows only
its part beside the top card's side, and the fit lays the card's whole length from that
side outward, its far side on whatever steps lie there (a Blender oak table's grain
parallel to it: a 10♦ a sixth under an A♦ was fitted 45 px too long and read as a 9♦)."""
ALONG_SHARE = 0.6
"""Share of a fitted side's points lying along another outline for it to count so."""
FIT_REFINE = 0.03
"""How far (card lengths) each side is then moved to the strongest straight step near it
(``outline.refine``), at the frame's full resolution."""


def _grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)


def _main_angles(crop: np.ndarray, table: np.ndarray, ignore: Optional[np.ndarray] = None) -> list:
    """The directions (degrees, modulo 90) in which the edges new to the table mostly run
    (a card's four sides share one): the main one, and a second one at least
    ``SECOND_APART`` from it when it weighs ``SECOND_DIRECTION`` of the main one or more.
    ``ignore``: pixels (a mask of the crop's size) whose edges are not counted.

    >>> img = np.full((64, 64), 100, np.float32); img[16:48, 20:44] = 160   # an upright card
    >>> _main_angles(img, np.full_like(img, 100))
    [1.0]
    """
    gx, gy = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    tx, ty = cv2.Sobel(table, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(table, cv2.CV_32F, 0, 1, ksize=3)
    new = np.maximum(np.hypot(gx, gy) - np.hypot(tx, ty), 0)
    if ignore is not None:
        new[ignore] = 0
    angle = np.degrees(np.arctan2(gy, gx)) % 90.0
    hist = np.bincount(np.minimum((angle / 2).astype(int), 44).ravel(), weights=new.ravel(), minlength=45)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    first = int(np.argmax(hist))
    out = [2.0 * first + 1.0]
    # Bins are 2 degrees wide and the histogram wraps round at 90 degrees.
    apart = np.abs((np.arange(45) - first + 22) % 45 - 22) * 2.0 >= SECOND_APART
    peak = (hist >= np.roll(hist, 1)) & (hist >= np.roll(hist, -1)) & apart
    if peak.any():
        second = int(np.flatnonzero(peak)[np.argmax(hist[peak])])
        if hist[second] >= SECOND_DIRECTION * hist[first]:
            out.append(2.0 * second + 1.0)
    return out


def fit_card(frame: np.ndarray, table_picture: np.ndarray, centre, size: float, aspect: float,
             within: Optional[np.ndarray] = None, scales=FIT_SCALES) -> Optional[tuple]:
    """The card-shaped rectangle near ``centre`` (frame px) whose sides lie best on edges
    new to the table (``table_picture``: the empty table's BGR picture, of the frame's
    proportions at any size): ``(support, corners)``, ``support`` the share of its least
    supported side (at least ``FIT_SUPPORT``), or None when no rectangle in the frame there
    is supported so. ``within``: corners (frame px) of an outline found inside the card
    (its print): its edges do not say which way the card's sides run. ``scales``: the
    sizes tried, as shares of ``size``."""
    s = WORK_LONG / size
    f = frame.shape[1] / table_picture.shape[1]
    # Room for the largest card tried, as far from the print's middle as it may lie; its
    # corners on the table picture's pixels, so that the two crops show the same place.
    half = int(np.ceil(1.05 * size))
    cx, cy = centre
    tx0, ty0 = int(max(0, cx - half) / f), int(max(0, cy - half) / f)
    tx1 = int(min(table_picture.shape[1], min(frame.shape[1], cx + half) / f))
    ty1 = int(min(table_picture.shape[0], min(frame.shape[0], cy + half) / f))
    x0, y0 = int(round(tx0 * f)), int(round(ty0 * f))
    x1, y1 = min(frame.shape[1], int(round(tx1 * f))), min(frame.shape[0], int(round(ty1 * f)))
    crop = cv2.resize(_grey(frame[y0:y1, x0:x1]), None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    tcrop = cv2.resize(_grey(table_picture[ty0:ty1, tx0:tx1]), (crop.shape[1], crop.shape[0]),
                       interpolation=cv2.INTER_AREA)
    crop, tcrop = cv2.GaussianBlur(crop, (0, 0), 0.8), cv2.GaussianBlur(tcrop, (0, 0), 0.8)
    h, w = crop.shape
    c = ((cx - x0) * s, (cy - y0) * s)
    ignore = None
    if within is not None:
        ignore = np.zeros(crop.shape, np.uint8)
        cv2.fillConvexPoly(ignore, np.round((np.asarray(within, np.float64) - (x0, y0)) * s).astype(np.int32), 1)
        ignore = ignore.astype(bool)
    tries = []
    reach = int(FIT_REACH * WORK_LONG)
    for th in [main + q + t for main in _main_angles(crop, tcrop, ignore) for q in (0, 90) for t in FIT_TURNS]:
        # The crop turned so that the tried card lies upright: its sides are then rows
        # and columns, and each side's support is a box filter read at an offset.
        m = cv2.getRotationMatrix2D(c, float(th), 1.0)
        turned = cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        under = cv2.warpAffine(tcrop, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        ex = np.maximum(np.abs(cv2.Sobel(turned, cv2.CV_32F, 1, 0, ksize=3))
                        - np.abs(cv2.Sobel(under, cv2.CV_32F, 1, 0, ksize=3)), 0)
        ey = np.maximum(np.abs(cv2.Sobel(turned, cv2.CV_32F, 0, 1, ksize=3))
                        - np.abs(cv2.Sobel(under, cv2.CV_32F, 0, 1, ksize=3)), 0)
        level = max(EDGE_MIN, EDGE_NOISE * float(_median(np.maximum(ex, ey).ravel())))
        # A side may lie a pixel either way of its edge. Each point counts 1 when on a new
        # edge, and a thousandth of the edge's strength: of fits as well supported, the
        # one on the stronger edges wins.
        ex = cv2.dilate(ex, np.ones((1, 3), np.uint8))
        ey = cv2.dilate(ey, np.ones((3, 1), np.uint8))
        on_x = (ex >= level).astype(np.float64) + 1e-3 * ex
        on_y = (ey >= level).astype(np.float64) + 1e-3 * ey
        # Running sums down the columns and along the rows: the support of a side of any
        # length centred anywhere is then a difference of two of them (a box filter for
        # every size at the cost of one).
        down = np.zeros((h + 1, w))
        np.cumsum(on_x, axis=0, out=down[1:])
        along = np.zeros((h, w + 1))
        np.cumsum(on_y, axis=1, out=along[:, 1:])
        for k in scales:
            long_, short = WORK_LONG * k, WORK_LONG * k * aspect
            lx, ly = int(SIDE_SPAN[0] * long_) | 1, int(SIDE_SPAN[1] * short) | 1
            hw, hl = int(round(short / 2)), int(round(long_ / 2))
            d = OUT_GAP
            ya, yb = max(hl + d, int(c[1]) - reach), min(h - hl - d, int(c[1]) + reach)
            xa, xb = max(hw + d, int(c[0]) - reach), min(w - hw - d, int(c[0]) + reach)
            if ya >= yb or xa >= xb:
                continue
            rx, ry = lx // 2, ly // 2
            # Each side's support along rows ya..yb (long sides) or columns xa..xb (short
            # sides), at a column or row offset from the card's centre.
            c0, c1, r0, r1 = xa - hw - d, xb + hw + d, ya - hl - d, yb + hl + d
            vx = (down[ya + rx + 1:yb + rx + 1, c0:c1] - down[ya - rx:yb - rx, c0:c1]) / lx
            vy = (along[r0:r1, xa + ry + 1:xb + ry + 1] - along[r0:r1, xa - ry:xb - ry]) / ly
            # Each side's support less that of the line just outside it: beyond a card's
            # side lies the table, while a line through a row of pips has print on both sides.
            # (vx's columns start at c0, vy's rows at r0.)
            n, m = xb - xa, yb - ya
            sides = (vx[:, d:d + n], vx[:, 2 * hw + d:2 * hw + d + n],
                     vy[d:d + m], vy[2 * hl + d:2 * hl + d + m])
            outside = (vx[:, :n], vx[:, 2 * hw + 2 * d:2 * hw + 2 * d + n],
                       vy[:m], vy[2 * hl + 2 * d:2 * hl + 2 * d + m])
            on = np.minimum(np.minimum(sides[0], sides[1]), np.minimum(sides[2], sides[3]))
            clear = np.minimum(np.minimum(sides[0] - outside[0], sides[1] - outside[1]),
                               np.minimum(sides[2] - outside[2], sides[3] - outside[3]))
            score = np.where(on >= FIT_SUPPORT, clear, -1.0)
            i, j = divmod(int(score.argmax()), score.shape[1])
            if score[i, j] > -1.0:
                tries.append((float(clear[i, j]), k, float(on[i, j]), (th, short, long_, xa + j, ya + i)))
    if not tries:
        return None
    # Of the fits as clear as the clearest, the largest: a card's print may hold a
    # rectangle of strong new edges inside it (a court's picture, a frame printed inside
    # its edge).
    top = max(t[0] for t in tries)
    best = max([t for t in tries if t[0] >= top - FIT_SLACK], key=lambda t: (t[1], t[0]))
    th, short, long_, x, y = best[3]
    box = np.array([[x - short / 2, y - long_ / 2], [x + short / 2, y - long_ / 2],
                    [x + short / 2, y + long_ / 2], [x - short / 2, y + long_ / 2]])
    back = cv2.invertAffineTransform(cv2.getRotationMatrix2D(c, float(th), 1.0))
    return best[2], cv2.transform(box[None], back)[0] / s + (x0, y0)


def refined(frame: np.ndarray, corners: np.ndarray, size: float) -> np.ndarray:
    """A fitted card's corners (clockwise) with each side moved to the strongest straight
    step near it at the frame's full resolution (``outline.refine``, ``FIT_REFINE``)."""
    q = clockwise(np.asarray(corners, np.float32)[None])
    q = refine(frame, q, reach=FIT_REFINE * size)
    return refine(frame, q, reach=2.0)[0]


def fitted_outline(frame: np.ndarray, table_picture: np.ndarray, centre, size: float,
                   aspect: float, within: Optional[np.ndarray] = None, scales=FIT_SCALES) -> Optional[Outline]:
    """The card fitted near ``centre`` (:func:`fit_card`, with ``within`` and ``scales``) with
    its sides moved to their steps (:func:`refined`), as an outline, or None where no card is
    fitted."""
    got = fit_card(frame, table_picture, centre, size, aspect, within, scales)
    return None if got is None else Outline(refined(frame, got[1], size), support=got[0], fitted=True)


def fitted_outlines(frame: np.ndarray, foreground: np.ndarray, outlines: list, aspect: float,
                    table, size: float) -> list:
    """New outlines fitted (:func:`fit_card`) where print that differs from the empty table
    (``foreground``, frame size) lies outside every outline of ``outlines``, clear of the
    frame's edge (an arm reaches in across it), as large as a card's print
    (``PLACE_AREA``; a place of up to ``SEVERAL_CARDS`` is fitted at the middle of each of
    its parts); each kept when every side is supported (``FIT_SUPPORT``) and it overlaps no
    outline. ``size``: the calibrated card's long side (px)."""
    if table is None or getattr(table, "mean", None) is None:
        return []
    h, w = foreground.shape[:2]
    # Looked at coarsely (every ``COARSE``-th pixel): the mask is coarse anyway.
    left = np.ascontiguousarray(foreground[::COARSE, ::COARSE])
    if not left.any():
        return []
    # The rim an outline leaves is no print: the mask is coarser than the card (cells of
    # 8 px of the table's picture, 16 px of a 1280 px frame), and a card's shadow differs
    # from the table too.
    explained = np.zeros_like(left)
    for o in outlines:
        cv2.fillConvexPoly(explained, np.round(o.corners / COARSE).astype(np.int32), 1)
    rim = max(1, int(round(RIM * size / COARSE)))
    explained = cv2.dilate(explained, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8))
    left[explained > 0] = 0
    left = cv2.morphologyEx(left, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    if not left.any():
        return []
    # A card's pips and indices, close together, make one place.
    k = max(3, int(0.3 * size / COARSE)) | 1
    left = cv2.morphologyEx(left, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    places, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    places = [c * COARSE for c in places]
    new = []
    card = size ** 2 * aspect
    for c in sorted(places, key=lambda c: -cv2.contourArea(c)):
        x, y, bw, bh = cv2.boundingRect(c)
        if x < 2 or y < 2 or x + bw > w - 2 or y + bh > h - 2:
            continue
        area = cv2.contourArea(c)
        if not PLACE_AREA[0] * size ** 2 <= area <= SEVERAL_CARDS * card:
            continue
        long_, short = sorted(cv2.minAreaRect(c)[1], reverse=True)
        if area <= PLACE_AREA[1] * card and long_ <= ONE_CARD * size and short <= ONE_CARD * aspect * size:
            centres = [(x + bw / 2, y + bh / 2)]
        else:
            centres = _part_centres(c, max(2, int(round(area / card)), int(np.ceil(long_ / (ONE_CARD * size)))))
        for centre in centres:
            if any(cv2.pointPolygonTest(o.corners.astype(np.float32), centre, False) >= 0 for o in new):
                continue                                 # part of a card fitted already
            if any(cv2.pointPolygonTest(o.corners.astype(np.float32), centre, True) > -OUTLINE_NEAR * size
                   for o in outlines):
                continue                                 # what two overlapping cards leave
            got = fitted_outline(frame, table.mean, centre, size, aspect)
            if got is None or any(_overlap(got.corners, o.corners) >= 0.3 for o in list(outlines) + new):
                continue
            if _along_an_outline(got.corners, list(outlines) + new, size):
                continue
            new.append(got)
    return new


def _part_centres(contour: np.ndarray, parts: int, rounds: int = 12) -> list:
    """The middles of ``parts`` parts of the place inside ``contour`` (frame px): k-means of
    its pixels (Lloyd's rounds), started from equal shares of them cut across its longest
    direction (cards lying close together lie side by side), so that each part settles on
    one card's print whatever its share of the pixels. Written here as a few lines of numpy:
    OpenCV's ``kmeans`` starts from random centres drawn from its global generator.

    >>> two = np.array([[[0, 0]], [[199, 0]], [[199, 49]], [[0, 49]]], np.int32)
    >>> [tuple(int(round(v)) for v in c) for c in _part_centres(two, 2)]
    [(50, 24), (150, 24)]
    """
    x, y, bw, bh = cv2.boundingRect(contour)
    mask = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(mask, [contour - (x, y)], -1, 1, -1)
    ys, xs = np.nonzero(mask)
    pts = np.stack([xs + x, ys + y], axis=1).astype(np.float64)
    mean = pts.mean(axis=0)
    # The principal axis: the eigenvector of the largest eigenvalue of the covariance.
    axis = np.linalg.eigh(np.cov((pts - mean).T))[1][:, -1]
    t = (pts - mean) @ axis
    cuts = np.quantile(t, np.linspace(0, 1, parts + 1))
    centres = np.array([pts[(t >= cuts[k]) & (t <= cuts[k + 1])].mean(axis=0) for k in range(parts)])
    for _ in range(rounds):
        nearest = ((pts[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
        moved = np.array([pts[nearest == k].mean(axis=0) if (nearest == k).any() else centres[k]
                          for k in range(parts)])
        if np.abs(moved - centres).max() < 0.5:
            break
        centres = moved
    return sorted(tuple(c) for c in centres)


def _along_an_outline(corners: np.ndarray, outlines: list, size: float) -> bool:
    """Whether a side of the quadrilateral ``corners`` lies along a side of one of
    ``outlines`` (see ``ALONG_OUTLINE``)."""
    if not outlines:
        return False
    q = np.asarray(corners, np.float32)
    t = np.linspace(0.15, 0.85, 15)[:, None]
    reach = max(2.0, ALONG_OUTLINE * size)
    for k in range(4):
        pts = q[k] + t * (q[(k + 1) % 4] - q[k])
        for o in outlines:
            poly = np.asarray(o.corners, np.float32).reshape(-1, 1, 2)
            near = [abs(cv2.pointPolygonTest(poly, (float(x), float(y)), True)) <= reach for x, y in pts]
            if np.mean(near) >= ALONG_SHARE:
                return True
    return False
