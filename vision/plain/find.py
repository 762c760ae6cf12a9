"""Finding cards in a frame: quadrilaterals of a card's shape with a straight step in the picture along every side.

A card on a table, seen from above, is a convex quadrilateral (a rectangle seen nearly
straight on) whose four sides are straight steps in the picture: paper against cloth,
wood or the printed mat. The finder does not model the table's colour, so it works on
any surface (given the learnt empty table, it ignores the table's own edges):

1. *Edges.* Canny edges of the luma (at up to 640 px wide) and of the chroma (at half
   that: cameras and JPEG keep colour at half resolution anyway).
2. *Tier 1.* Each connected blob of edges, filled and opened (a thin line touching a
   card goes), whose convex hull reduces to a quadrilateral is a candidate.
3. *Tier 2*, for blobs that are not one card (a card touching a mat line, another card
   or a hand): the edges are cut into straight pieces; two pieces meeting at about a
   right angle near their ends are a card's corner, and a corner with the lengths of its
   sides (or one side and the deck's width/height, or the expected card size) gives a
   candidate; with the learnt table, a side also reaches to the corner found at its far
   end (``partner_lengths``: a piece stops short of both rounded corners); in a single
   photo, a corner whose two sides both reach their far corners gives a candidate used
   only where no other outline lies (``FAR_CLEAR``). Candidates with an edge under most
   of every side go on, one per place.
4. *Refine.* Each side is moved to the strongest straight step nearly along it (a
   two-parameter search over lines near the side, at full resolution), the step's place
   is taken to sub-pixel precision, and the corners are the crossings of the four fitted
   lines: rounded corners do not pull them in.
5. *Verify.* Every side must lie on a step over ``MIN_SUPPORT`` of its length (a step of
   ``STEP`` that stands ``PEAK`` times above the table just outside; asked for a lone
   card's photo in which none was found, one side over less: ``LENIENT_SUPPORT``), the
   shape must be the deck's, and opposite sides nearly equal. With the learnt table, an outline whose
   sides are steps the empty table has too is the table's (a box printed on the mat).
   Then each side is seated on the card's paper (``seat_on_paper``): moved outward to
   where the card's light rim ends, when the strongest step was its print's edge.
   Overlapping outlines are one card.
6. *Single photos* (no learnt table): outlines that were a card's picture frame are grown
   to the card's edge (``grow_outlines``), outlines with a corner on the table (a plank's
   seam beside the card taken for its side) are pulled in to it (``pull_in_outlines``),
   and regions unlike the photo's dominant surface are proposed as outlines too
   (``region_outlines``), checked as in 5. A photo may be taken at a slant: corners are
   also completed at foreshortened proportions (``photo_aspects``) and their sides looked
   for further out (``PHOTO_REACH``); given ``slant`` (``recognize`` on a photo), an
   outline of other proportions than the deck's passes when it is the deck's card seen at
   up to that slant (``seen_slant``).
7. *Places no outline explains* (with the learnt table): where the frame differs from
   the table and no outline covers it (a card's sides broken by a print's blobs), places
   that differ from the empty table pixel by pixel (``change_outlines``) are proposed,
   and on busy tables (``TableModel.busy``: a carpet, a printed cloth) regions unlike the
   table (``region_outlines``) too, checked as in 5.

>>> import numpy as np
>>> find_outlines(np.zeros((120, 160, 3), np.uint8), aspect=0.7)
[]
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Optional

import cv2
import numpy as np

WORK_WIDTH = 640
"""Frames wider than this are searched for edges at this width (refined at full size)."""
CANNY_LOW, CANNY_HIGH = 30, 90
"""Canny thresholds on the luma (Sobel L1 magnitude, about 4x the step in grey levels)."""
FAINT_CANNY = (20, 60)
"""... for a faint card's edge (``find_outlines(faint=True)``: calibration only)."""
CHROMA_LOW, CHROMA_HIGH = 40, 100
"""Canny thresholds on the chroma channels (half resolution)."""
MIN_SEGMENT = 15.0
"""Shortest straight edge piece (work pixels) that may be a card's side."""
STEP = 6.0
"""Least colour step (YCrCb units, chroma weighted x2, across 2 px) that counts as an edge."""
PEAK = 1.5
"""How much stronger than the steps beside it a side's step must be."""
MIN_SUPPORT = 0.8
"""Least fraction of every side that must lie on a step."""
MIN_SEEN = 0.4
"""Least fraction of a side off the empty table's own edges for it to be judged."""
MAX_SKEW = 0.2
"""Largest relative difference between opposite sides."""
ASPECT_TOLERANCE = 0.15
"""Largest relative difference between an outline's width/height and the deck's."""
MIN_LONG_SIDE = 50.0
"""Smallest card (long side, in frame pixels) looked for."""
CHROMA_WEIGHT = 2.0
"""Weight of chroma against luma in a colour step."""
TABLE_OWN = 0.6
"""With the learnt table: an outline three of whose sides lie, for at least this share
of their length, on steps the empty table has too (at least 0.3 as strong: its
picture is kept at up to 640 px wide, where a thin line is fainter), is the
table's own (a box printed on the mat whose faint lines the table's edge map missed),
not a card."""
ANY_CARD = (0.55, 0.82)
"""Width/height of the outlines looked for while the deck's own is not known."""
PHOTO_CARD = (0.55, 0.88)
"""The same in a single photo: a phone held at a slant (up to 30 degrees) foreshortens a card
lying across the slant from 0.71 to about 0.83."""
OPEN_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
_NEXT = np.array([1, 2, 3, 0])
"""Each corner's next corner (``quads[:, _NEXT]``: what ``np.roll(quads, -1, axis=1)`` gives, without
its cost, paid hundreds of times a frame)."""
_PREV = np.array([3, 0, 1, 2])


def _median(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``np.median(a, axis)`` of finite values (the steps and colours here are): the middle
    value, or the mean of the two middle ones, as ``np.median`` takes them (the same
    values), without the checks that cost it several times more on these small arrays."""
    h, odd = divmod(a.shape[axis], 2)
    if odd:
        return np.take(np.partition(a, h, axis=axis), h, axis=axis)
    part = np.partition(a, (h - 1, h), axis=axis)
    return (np.take(part, h - 1, axis=axis) + np.take(part, h, axis=axis)) / 2


def connected_blobs(binary: np.ndarray) -> tuple:
    """``cv2.connectedComponentsWithStats(binary, connectivity=8)``: the same labels, in the same
    order, and the same boxes, by Grana's block-based algorithm, which computes the boxes about
    three times faster here than OpenCV's default (Spaghetti) does (0.6 against 1.6 ms on a
    640x480 edge map, one core)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S, cv2.CCL_GRANA)


@dataclass
class Outline:
    """A card-shaped outline in a frame: ``corners`` (4, 2) clockwise in image order,
    frame pixels; ``support`` is the least fraction of a side lying on a step;
    ``contrast`` the median step along the sides; ``fitted``: laid by the fit's search
    at the calibrated size (``fit.fitted_outline``) rather than found from its edges."""

    corners: np.ndarray
    support: float = 0.0
    contrast: float = 0.0
    blob: int = 0                                 # the edge blob it was found in
    inside: list = field(default_factory=list)   # indices of outlines lying within this one
    fitted: bool = False

    @property
    def long_side(self) -> float:
        return float(quad_shape(self.corners[None])[1][0])

    @property
    def area(self) -> float:
        return float(abs(cv2.contourArea(self.corners.astype(np.float32))))


def _empty_junctions():
    z = np.zeros((0, 2), np.float32)
    return z, z, z, np.zeros(0, np.float32), np.zeros(0, np.float32)


def edge_map(frame_bgr: np.ndarray, scale: float, canny=(CANNY_LOW, CANNY_HIGH)) -> tuple:
    """Luma edges at ``scale`` (Canny's two thresholds ``canny``) and chroma edges at
    half of it, as two binary maps with their scales (work px per frame px)."""
    h, w = frame_bgr.shape[:2]
    work = frame_bgr if scale == 1.0 else cv2.resize(
        frame_bgr, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA)
    ycc = cv2.cvtColor(work, cv2.COLOR_BGR2YCrCb)
    luma = cv2.GaussianBlur(ycc[:, :, 0], (0, 0), 0.8)
    edges = cv2.Canny(luma, *canny)
    half = cv2.GaussianBlur(cv2.resize(ycc, (ycc.shape[1] // 2, ycc.shape[0] // 2), interpolation=cv2.INTER_AREA),
                            (0, 0), 0.8)
    chroma = cv2.Canny(half[:, :, 1], CHROMA_LOW, CHROMA_HIGH) | cv2.Canny(half[:, :, 2], CHROMA_LOW, CHROMA_HIGH)
    return edges, chroma


def segments(edges: np.ndarray, scale: float, min_len: float = MIN_SEGMENT) -> tuple:
    """Straight pieces of the edge chains, as end points (frame px)."""
    cs, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    # Each long chain's polygon; the pieces (each vertex to the next, the last back to the
    # first) are then taken for all polygons at once: a printed cloth's frame has some
    # hundreds of chains, and the numpy calls per chain cost more than approxPolyDP.
    polys = [v for v in (cv2.approxPolyDP(c, 1.5, True) for c in cs if len(c) >= 2 * min_len) if len(v)]
    if not polys:
        z = np.zeros((0, 2), np.float32)
        return z, z
    counts = np.array([len(v) for v in polys])
    v = np.concatenate(polys).reshape(-1, 2).astype(np.float32)
    end = np.cumsum(counts)
    nxt_i = np.arange(1, len(v) + 1)
    nxt_i[end - 1] = end - counts
    nxt = v[nxt_i]
    ok = np.hypot(*(nxt - v).T) >= min_len
    if not ok.any():
        z = np.zeros((0, 2), np.float32)
        return z, z
    p0, p1 = v[ok] / scale, nxt[ok] / scale
    # A one-pixel edge is traced on both of its sides: keep one of each pair.
    key = np.round(np.concatenate([np.minimum(p0, p1), np.maximum(p0, p1)], axis=1) / 3).astype(np.int64)
    rows = _row_keys(key)
    _, idx = np.unique(key, axis=0, return_index=True) if rows is None else np.unique(rows, return_index=True)
    return p0[idx], p1[idx]


def _row_keys(key: np.ndarray) -> Optional[np.ndarray]:
    """The rows of ``key`` (N, 4) of integers in [0, 2**15) as one int64 each, in the same order
    (the first column most significant), so that ``np.unique`` on them gives what it gives on
    the rows (``axis=0``: the same sorted order, the same first indices) in a fraction of the
    time; None when a value lies outside that range."""
    if len(key) == 0 or key.min() < 0 or key.max() >= 1 << 15:
        return None
    return (key[:, 0] << 45) | (key[:, 1] << 30) | (key[:, 2] << 15) | key[:, 3]


def corners_of(p0: np.ndarray, p1: np.ndarray, max_cos: float = 0.34, gap: float = 0.3,
               gap_px: float = 4.0) -> tuple:
    """Pairs of segments meeting at about a right angle near their ends: the corner
    point, the unit directions of the two sides away from it, and how far each side
    reaches from it. (Vectorized over the pairs of pieces that lie near each other.)"""
    n = len(p0)
    if n < 2:
        return _empty_junctions()
    d = p1 - p0
    length = np.hypot(d[:, 0], d[:, 1])
    u = d / length[:, None]
    # A pair's corner lies on each side's line within its reach (``gap`` of its length and
    # ``gap_px``) of the side, so the two sides' boxes grown by their reach (and a pixel
    # more) meet. Only such pairs are worked out: on a busy cloth a blob has a thousand
    # pieces, nearly all far apart. The pairs kept are the same, in the same order.
    reach = gap * length.astype(np.float64) + gap_px + 1.0
    lo = np.minimum(p0, p1) - reach[:, None]
    hi = np.maximum(p0, p1) + reach[:, None]
    near = (lo[:, None, 0] <= hi[None, :, 0]) & (lo[None, :, 0] <= hi[:, None, 0]) \
        & (lo[:, None, 1] <= hi[None, :, 1]) & (lo[None, :, 1] <= hi[:, None, 1])
    i, j = np.nonzero(np.triu(near, 1))
    # About at right angles: |cos| <= max_cos as ``np.abs(u @ u.T)`` (float32) says. The
    # cosine is worked out for these pairs only, in float64; where it lies so near
    # max_cos that float32's rounding could decide (rarely), the whole product is made
    # as before. (That product, of a thousand pieces, is spread by BLAS over threads
    # at a cost in CPU several times the rest of this.)
    uf = u.astype(np.float64)
    cos = np.abs(uf[i, 0] * uf[j, 0] + uf[i, 1] * uf[j, 1])
    if (np.abs(cos - max_cos) < 1e-5).any():
        right = np.abs(u @ u.T)[i, j] <= max_cos
    else:
        right = cos <= max_cos
    return junctions_of_pairs(p0, u, length, i[right], j[right], gap, gap_px)


def junctions_of_pairs(p0: np.ndarray, u: np.ndarray, length: np.ndarray, i: np.ndarray, j: np.ndarray,
                       gap: float, gap_px: float) -> tuple:
    """``corners_of`` for the pairs of pieces ``(i, j)`` found at about a right angle
    (pieces from ``p0``, unit directions ``u``, lengths): those whose ends meet near
    their crossing, as ``corners_of`` returns them."""
    if len(i) == 0:
        return _empty_junctions()
    p, e1, q, e2 = p0[i], u[i], p0[j], u[j]
    det = e1[:, 0] * (-e2[:, 1]) + e2[:, 0] * e1[:, 1]
    r = q - p
    t = (r[:, 0] * (-e2[:, 1]) + e2[:, 0] * r[:, 1]) / det
    corner = p + t[:, None] * e1
    s = ((corner - q) * e2).sum(axis=1)
    li, lj = length[i], length[j]
    gi, gj = gap * li + gap_px, gap * lj + gap_px
    i_start = (t > -gi) & (t < 0.25 * li)
    i_end = (t < li + gi) & (t > 0.75 * li)
    j_start = (s > -gj) & (s < 0.25 * lj)
    j_end = (s < lj + gj) & (s > 0.75 * lj)
    ok = (i_start | i_end) & (j_start | j_end)
    ui = np.where(i_start[:, None], e1, -e1)
    uj = np.where(j_start[:, None], e2, -e2)
    a = np.where(i_start, li - t, t)
    b = np.where(j_start, lj - s, s)
    return corner[ok], ui[ok], uj[ok], a[ok], b[ok]


def candidates(junctions, aspect: float, sizes=(), tol: float = 0.12, partners=None,
               only_partners: bool = False) -> np.ndarray:
    """Quadrilaterals (N, 4, 2) a corner may belong to: both sides whole when their
    lengths have the deck's proportions; otherwise one side whole and the other from the
    deck's width/height; and the card sizes given (``sizes``: long sides in px). A side
    is whole as its piece, and, given ``partners`` (what ``partner_lengths`` gives for
    these junctions), also to the corner at its far end; ``only_partners``: only those
    with both sides to their far corners (three of the card's corners seen)."""
    c, u, w, a, b = junctions
    if len(c) == 0:
        return np.zeros((0, 4, 2), np.float32)
    opts = []

    def whole(lu0, lw0, known_u, known_w):
        # Both sides as long as given (where both are known) when they have the deck's
        # proportions; one of them and the other from the deck's width/height.
        ratio = np.minimum(lu0, lw0) / np.maximum(np.maximum(lu0, lw0), 1e-6)
        opts.append((lu0, lw0, known_u & known_w & (np.abs(ratio - aspect) < tol * aspect)))
        if only_partners:
            return
        for lu, lw, known in ((lu0, lu0 * aspect, known_u), (lu0, lu0 / aspect, known_u),
                              (lw0 * aspect, lw0, known_w), (lw0 / aspect, lw0, known_w)):
            opts.append((lu, lw, known & (lu >= 0.8 * a) & (lw >= 0.8 * b)))

    if not only_partners:
        every = np.ones(len(a), bool)
        whole(a, b, every, every)
        for size in sizes:
            for lu, lw in ((size, size * aspect), (size * aspect, size)):
                lu_, lw_ = np.full_like(a, lu), np.full_like(a, lw)
                opts.append((lu_, lw_, (lu_ >= 0.8 * a) & (lw_ >= 0.8 * b)))
    if partners is not None:
        # A side whose far corner is a junction too: its length is the distance between
        # the two corners, which the pieces' own lengths understate by the corners' rounding.
        pu, pw = partners
        has_u, has_w = np.isfinite(pu), np.isfinite(pw)
        whole(np.where(has_u, pu, a), np.where(has_w, pw, b), has_u, has_w)
    quads = []
    for lu, lw, ok in opts:
        if ok.any():
            cc, uu, ww = c[ok], u[ok], w[ok]
            lu, lw = lu[ok][:, None], lw[ok][:, None]
            quads.append(np.stack([cc, cc + lu * uu, cc + lu * uu + lw * ww, cc + lw * ww], axis=1))
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    return clockwise(np.concatenate(quads).astype(np.float32))


PARTNER_OFF = 3.0
"""Largest distance (px) of a junction from the line of a corner's side for it to be
that side's far corner."""
PARTNER_MAX = 3000
"""Most junctions whose far corners are looked for (a busy carpet's blob has a few
hundred; more is no card's)."""


def partner_lengths(junctions) -> tuple:
    """For each corner of ``junctions`` (``corners_of``), the length of each of its two
    sides to the junction at that side's far end, NaN where there is none: ``(along the
    first side, along the second)``. That junction lies on the side's line (within
    ``PARTNER_OFF``), at or beyond the end of the side's piece (one short of it is the
    print's, or another card's touching this side) and not far past it, has a side
    running back along this one and its other side turning the same way as this
    corner's other side; the nearest is taken."""
    c, u, w, a, b = junctions
    n = len(c)
    if n < 2 or n > PARTNER_MAX:
        return np.full(n, np.nan), np.full(n, np.nan)
    c, u, w = c.astype(np.float32), u.astype(np.float32), w.astype(np.float32)
    # Each junction's two sides, either of which may run back along the side looked at.
    cj, back_j, other_j = np.concatenate([c, c]), np.concatenate([u, w]), np.concatenate([w, u])
    # Sides are binned by direction (12 bins of 30 degrees): a side running back lies
    # within 26 degrees of the opposite direction, so only the opposite bin and its two
    # neighbours are compared (a busy blob has hundreds of junctions).
    bins = 12

    def direction_bin(v):
        return (np.floor((np.arctan2(v[:, 1], v[:, 0]) + np.pi) / (2 * np.pi / bins)).astype(np.int64)) % bins

    bin_j = direction_bin(back_j)
    out = []
    for side, other, reach in ((u, w, a), (w, u, b)):
        length = np.full(n, np.inf, np.float32)
        bin_i = direction_bin(side)
        for k in np.unique(bin_i):
            ii = np.nonzero(bin_i == k)[0]
            opposite = (k + bins // 2) % bins
            jj = np.nonzero((bin_j == opposite) | (bin_j == (opposite + 1) % bins)
                            | (bin_j == (opposite - 1) % bins))[0]
            if len(jj) == 0:
                continue
            dx = cj[None, jj, 0] - c[ii, None, 0]               # from corner i to junction j
            dy = cj[None, jj, 1] - c[ii, None, 1]
            s, r = side[ii], reach[ii, None]
            along = dx * s[:, None, 0] + dy * s[:, None, 1]
            ok = (np.abs(dx * s[:, None, 1] - dy * s[:, None, 0]) <= PARTNER_OFF) \
                & (along >= r - 2.0) & (along <= 1.3 * r + 8.0) \
                & (s @ back_j[jj].T < -0.9) & (other[ii] @ other_j[jj].T > 0.9)
            length[ii] = np.where(ok, along, np.inf).min(axis=1)
        out.append(np.where(np.isfinite(length), length, np.nan).astype(np.float64))
    return out[0], out[1]


def clockwise(quads: np.ndarray) -> np.ndarray:
    """The same quadrilaterals, each in clockwise order on the image (y down)."""
    v1, v2 = quads[:, 1] - quads[:, 0], quads[:, 3] - quads[:, 0]
    flip = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0] < 0
    out = quads.copy()
    out[flip] = out[flip][:, ::-1]
    return out


def quad_shape(quads: np.ndarray) -> tuple:
    """Per quadrilateral: short/long proportion, long side, and the larger relative
    difference between opposite sides."""
    s = np.hypot(*np.moveaxis(quads - quads[:, _NEXT], -1, 0))
    a, b = (s[:, 0] + s[:, 2]) / 2, (s[:, 1] + s[:, 3]) / 2
    skew = np.maximum(np.abs(s[:, 0] - s[:, 2]) / np.maximum(np.maximum(s[:, 0], s[:, 2]), 1e-6),
                      np.abs(s[:, 1] - s[:, 3]) / np.maximum(np.maximum(s[:, 1], s[:, 3]), 1e-6))
    return np.minimum(a, b) / np.maximum(np.maximum(a, b), 1e-6), np.maximum(a, b), skew


def _suppress(quads: np.ndarray, score: np.ndarray, tol: float = 0.1) -> np.ndarray:
    """Indices of the candidates kept by greedy non-maximum suppression: the best
    scored of candidates with nearly the same centre, size and angle."""
    order = np.argsort(-score, kind="stable")
    q = quads[order]
    centre = q.mean(axis=1)
    _, long_side, _ = quad_shape(q)
    side = q[:, 1] - q[:, 0]
    angle = np.arctan2(side[:, 1], side[:, 0]) % (np.pi / 2)
    taken = np.zeros(len(q), bool)
    keep = []
    # The candidates near a kept one are worked out for the kept ones only: a printed
    # cloth's frame gives thousands of candidates, and the whole table of pairs was about
    # a fifth of a calibration pass's CPU there.
    for i in range(len(q)):
        if taken[i]:
            continue
        keep.append(order[i])
        da = np.abs(angle[i] - angle)
        da = np.minimum(da, np.pi / 2 - da)
        taken |= (np.hypot(centre[i, 0] - centre[:, 0], centre[i, 1] - centre[:, 1]) < tol * long_side[i]) \
            & (np.abs(np.log(long_side[i] / long_side)) < tol) & (da < 0.08)
    return np.array(keep, np.int64)


def _side_samples(quads: np.ndarray, n: int, lo: float = 0.12, hi: float = 0.88):
    """Points along each side (Q, 4, n, 2), the outward unit normals (Q, 4, 2) and the
    fractions along the sides."""
    t = _fractions(lo, hi, n)
    a, b = quads, quads[:, _NEXT]
    e = b - a
    # x and y worked out apart (numpy broadcasts over a last axis of two slowly): the same values.
    base = np.stack([a[..., 0, None] + e[..., 0, None] * t, a[..., 1, None] + e[..., 1, None] * t], axis=-1)
    d = e / np.maximum(np.hypot(*np.moveaxis(e, -1, 0))[..., None], 1e-6)
    normal = np.stack([d[..., 1], -d[..., 0]], axis=-1)   # outward for clockwise quads
    return base, normal, t


@functools.lru_cache(maxsize=64)
def _fractions(lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` fractions from ``lo`` to ``hi`` along a side (float32, not to be changed): made
    once for each of the few ways sides are sampled, not hundreds of times a frame."""
    t = np.linspace(lo, hi, n, dtype=np.float32)
    t.flags.writeable = False
    return t


def sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of an image at points (..., 2)."""
    return _sample_xy(img, pts[..., 0], pts[..., 1])


def _sample_xy(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``sample`` at points given by their x and y apart (two arrays of one shape)."""
    shape = x.shape
    # Rows of at most 2048 points (remap's maps must be narrower than 32767), as few as
    # need be and as even: each point's sample is the same wherever it lies in the map.
    n = x.size
    rows = max(1, -(-n // 2048))
    cols = max(1, -(-n // rows))
    grid = np.zeros((rows * cols, 2), np.float32)
    grid[:n, 0] = x.ravel()
    grid[:n, 1] = y.ravel()
    # One two-channel map (x, y), as the points are laid out: the same samples as from
    # separate x and y maps, without making those two copies.
    out = cv2.remap(img, grid.reshape(rows, cols, 2), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ch = (img.shape[2],) if img.ndim == 3 else ()
    return out.reshape((rows * cols,) + ch)[:n].reshape(shape + ch)


_TO_YCC = np.array([[0.114, 0.587, 0.299],                      # Y from B, G, R
                    [-0.114 * 0.713, -0.587 * 0.713, (1 - 0.299) * 0.713],   # Cr
                    [(1 - 0.114) * 0.564, -0.587 * 0.564, -0.299 * 0.564]],  # Cb
                   np.float32) * np.array([[1.0], [CHROMA_WEIGHT], [CHROMA_WEIGHT]], np.float32)
"""BGR differences to YCrCb differences, chroma weighted: steps are measured in these."""


def step_profiles(frame: np.ndarray, quads: np.ndarray, offsets: np.ndarray, n: int,
                  lo: float = 0.12, hi: float = 0.88, veto: Optional[tuple] = None):
    """Colour step across each side at each offset along the outward normal:
    (Q, 4, n, k), with the sample points and normals. The frame is sampled (BGR) only
    at these points; differences are turned into YCrCb there. ``veto`` = (map, scale):
    where the map (float, 1 = the empty table's own edge) is set, there is no step."""
    base, normal, t = _side_samples(quads, n, lo, hi)
    k = len(offsets)
    o, a, b = _step_offsets(offsets.dtype.str, offsets.tobytes())
    # The points' x and y are worked out apart, (Q, 4, n, offsets) each: numpy broadcasts
    # over a last axis of two (x, y) several times slower. The same values.
    bx, by = base[..., 0, None], base[..., 1, None]
    nx, ny = normal[:, :, None, None, 0], normal[:, :, None, None, 1]
    s = _sample_xy(frame, bx + nx * o, by + ny * o).astype(np.float32)
    d = s[..., b:b + k, :] - s[..., a:a + k, :]                         # Q, 4, n, k, 3
    # One matrix product per side (its n * k differences) rather than one per point (a
    # BLAS call each), and the three squares added by hand rather than reduced over an
    # axis of 3: the same values, in about a quarter of the time. (Not one product over
    # all points: BLAS would run that on several threads, which costs more CPU.)
    y, cr, cb = np.moveaxis(d.reshape(-1, n * k, 3) @ _TO_YCC.T, -1, 0)
    steps = np.sqrt(y * y + cr * cr + cb * cb).reshape(d.shape[:-1])
    if veto is not None:
        vmap, vscale = veto[:2]
        steps *= 1.0 - _sample_xy(vmap, (bx + nx * offsets) * vscale, (by + ny * offsets) * vscale)
    return base, normal, t, steps


@functools.lru_cache(maxsize=64)
def _step_offsets(dtype: str, offsets: bytes) -> tuple:
    """The offsets ``step_profiles`` samples for a step at each of ``offsets`` (their
    dtype and bytes: a frame asks for the same few hundreds of times; made once each), and
    where those a pixel in and a pixel out start among them."""
    offsets = np.frombuffer(offsets, dtype)
    k = len(offsets)
    o = np.concatenate([offsets - 1.0, offsets + 1.0]).astype(np.float32)
    # Offsets whole pixels apart (``refine``'s): those a pixel in and a pixel out are
    # mostly the same offsets, ``k + 2`` of them in a row, each sampled once (the same
    # points, so the same samples). Others: all ``2 k``.
    u, at = np.unique(o, return_inverse=True)
    a, b = int(at[0]), int(at[k])
    if len(u) < 2 * k and (at[:k] == a + np.arange(k)).all() and (at[k:] == b + np.arange(k)).all():
        o = u
    else:
        a, b = 0, k
    o.flags.writeable = False
    return o, a, b


def quick_support(edges_dilated: np.ndarray, scale: float, quads: np.ndarray, n: int = 12) -> np.ndarray:
    """The least fraction, over the four sides, of points near which there is an edge."""
    base, _, _ = _side_samples(quads * scale, n)
    h, w = edges_dilated.shape
    x = np.clip(np.round(base[..., 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(base[..., 1]).astype(np.int64), 0, h - 1)
    return (edges_dilated[y, x] > 0).mean(axis=2).min(axis=1)


def line_scores(st: np.ndarray, t: np.ndarray, span: Optional[float] = None) -> tuple:
    """The mean step under every line across a side's samples: ``st`` (..., n, k) the
    steps at ``k`` offsets of ``n`` points at fractions ``t`` along the side; the line
    from offset index ``g0`` at the first point to ``g1`` at the last scores
    ``score[..., g0, g1]`` (..., k, k). Also the points' fractions of the way (0..1).
    With ``span``, only lines with ``|g1 - g0| <= span`` are scored (the others score 0):
    on a busy cloth a thousand rough outlines are refined at once, and the steep lines
    their caller throws away were more than half of the lines (156 of 289 at a reach of 8)."""
    n, k = st.shape[-2:]
    g = np.arange(k, dtype=np.float32)
    frac = (t - t[0]) / (t[-1] - t[0])
    a, b = np.divmod(np.arange(k * k), k)
    if span is not None:
        keep = np.abs(a - b) <= span
        a, b = a[keep], b[keep]
    pos = g[a][:, None] + (g[b] - g[a])[:, None] * frac[None, :]                  # pairs, n
    lo_i = np.floor(pos).astype(np.int64)
    hi_i = np.minimum(lo_i + 1, k - 1)
    f = (pos - lo_i).astype(np.float32)
    # One flat gather per end (np.take on the last axis) rather than broadcast fancy
    # indexing: the same values (the means to float rounding), a fraction of the time.
    rows = np.arange(n)[None, :] * k
    flat = st.reshape(st.shape[:-2] + (n * k,))
    lo_v = np.take(flat, (rows + lo_i).ravel(), axis=-1).reshape(st.shape[:-2] + pos.shape)
    hi_v = np.take(flat, (rows + hi_i).ravel(), axis=-1).reshape(st.shape[:-2] + pos.shape)
    mean = (lo_v * (1 - f) + hi_v * f).mean(axis=-1)
    score = np.zeros(st.shape[:-2] + (k * k,), mean.dtype)
    score[..., a * k + b] = mean
    return score.reshape(st.shape[:-2] + (k, k)), frac


def refine(colour: np.ndarray, quads: np.ndarray, reach: float, n: int = 20,
           outermost: float = 0.9, veto=None) -> np.ndarray:
    """Each side moved to the strongest straight step near it: every line nearly along
    the side, from offset ``g0`` at one end to ``g1`` at the other (within ``reach``), is
    scored by the mean step under it; of the lines scoring at least ``outermost`` of the
    best, the outermost wins (two edges as strong, such as a rim's two sides: the outer
    one; a soft shadow's edge is weaker than the card's). The step's position is then
    taken to sub-pixel precision at each point and a line fitted."""
    offsets = np.arange(-reach, reach + 0.5, 1.0, dtype=np.float32)
    k = len(offsets)
    base, normal, t, st = step_profiles(colour, quads, offsets, n, veto=veto)
    q = len(quads)
    g = np.arange(k, dtype=np.float32)
    # A line much steeper than the side crosses from one edge to another (a rim's
    # outer edge to its inner one): only lines nearly along the side are candidates.
    score, frac = line_scores(st, t, span=max(2.0, k / 4))          # q,4,k,k
    mean_off = (g[:, None] + g[None, :]) / 2
    best = score.reshape(q, 4, -1).max(axis=2)
    pick = np.where(score >= outermost * best[:, :, None, None],
                    mean_off[None, None] + score / (best[:, :, None, None] + 1e-6) * 1e-3, -1.0)
    idx = pick.reshape(q, 4, -1).argmax(axis=2)
    a0, a1 = idx // k, idx % k
    line = a0[..., None] + (a1 - a0)[..., None] * frac          # q,4,n in offset steps
    near = np.clip(np.round(line).astype(np.int64), 1, k - 2)
    cand = np.stack([near - 1, near, near + 1], axis=-1)
    j = np.take_along_axis(cand, np.take_along_axis(st, cand, 3).argmax(-1)[..., None], -1)[..., 0]
    # A step at the very end of the search (a dark rim's inner edge, ``reach`` inside a
    # rough outline laid on the rim's outer edge) stays where it is, weighted by its own
    # strength: moved one sample in, it would weigh nothing and the side would be lost.
    at_end = (j < 1) | (j > k - 2)
    jc = np.clip(j, 1, k - 2)
    y0 = np.take_along_axis(st, (jc - 1)[..., None], 3)[..., 0]
    y1 = np.take_along_axis(st, jc[..., None], 3)[..., 0]
    y2 = np.take_along_axis(st, (jc + 1)[..., None], 3)[..., 0]
    den = y0 - 2 * y1 + y2
    safe = np.where(np.abs(den) > 1e-6, den, 1.0)
    sub = np.clip(np.where(np.abs(den) > 1e-6, 0.5 * (y0 - y2) / safe, 0.0), -0.5, 0.5)
    sub = np.where(at_end, 0.0, sub)
    weight = np.take_along_axis(st, j[..., None], 3)[..., 0]
    pts = base + normal[:, :, None, :] * (offsets[0] + j + sub)[..., None]
    return _corners_of_lines(pts, weight)


def _corners_of_lines(pts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted total-least-squares line through each side's points (far points dropped
    after a first fit), and the corners where neighbouring sides cross."""
    w = w.astype(np.float64)
    for it in range(2):
        wsum = w.sum(axis=2, keepdims=True) + 1e-9
        c = (pts * w[..., None]).sum(axis=2) / wsum
        d = pts - c[:, :, None, :]
        sxx = (w * d[..., 0] ** 2).sum(2)
        syy = (w * d[..., 1] ** 2).sum(2)
        sxy = (w * d[..., 0] * d[..., 1]).sum(2)
        ang = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        direction = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
        if it == 0:
            normal = np.stack([-direction[..., 1], direction[..., 0]], axis=-1)
            res = np.abs((d * normal[:, :, None, :]).sum(-1))
            med = _median(res, axis=2)[..., None]
            w = np.where(res <= np.maximum(0.75, 2.5 * med), w, 0.0)
    return _crossings(c, direction)[0].astype(np.float32)


def _crossings(p: np.ndarray, d: np.ndarray) -> tuple:
    """The corners of the sides through points ``p`` with directions ``d`` (both
    (..., 4, 2), clockwise): corner k where side k-1 crosses side k, and each crossing's
    determinant (0 where the two sides are parallel)."""
    p1, d1 = p[..., _PREV, :], d[..., _PREV, :]
    det = d1[..., 0] * (-d[..., 1]) + d[..., 0] * d1[..., 1]
    r = p - p1
    t = (r[..., 0] * (-d[..., 1]) + d[..., 0] * r[..., 1]) / np.where(np.abs(det) < 1e-9, 1e-9, det)
    return p1 + t[..., None] * d1, det


def side_support(colour: np.ndarray, quads: np.ndarray, n: int = 32, veto=None, per_side: bool = False) -> tuple:
    """Per quadrilateral, the least fraction over its sides (``per_side``: each side's
    fraction, (Q, 4)) of points where the side
    lies on a step: at least ``STEP`` within a pixel of the side, and at least ``PEAK``
    times the steps 3-7 px outside it (so that a noisy cloth or wood grain does not pass
    for an edge); and the median step. Points on the empty table's own edges (``veto``:
    a card laid along a mat line) count neither way, if at least ``MIN_SEEN`` of the
    side is elsewhere. With the empty table's picture (``veto``'s third part), a point
    also lies on the side where the table shows as it was just outside and is hidden
    just inside (``_hides_the_table``), and a point on the table's own edges is judged
    by that alone."""
    offsets = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 4.0, 5.0, 6.0, 7.0], np.float32)
    base, normal, _, st = step_profiles(colour, quads, offsets, n, 0.1, 0.9, veto=veto)
    at = st[..., :5].max(axis=3)
    # Only the table's side is looked at (inside, a card may have a frame line or a dark
    # border right next to its edge), and by the median of five steps: a rim's outer
    # edge or a shadow's a few pixels out is one line, a grain or weave is everywhere.
    beside = _median(st[..., 5:], axis=3)
    ok = (at >= STEP) & (at >= PEAK * beside)
    if veto is None:
        frac = ok.mean(axis=2)
        return frac if per_side else frac.min(axis=1), _median(at.reshape(len(quads), -1), axis=1)
    vmap, vscale = veto[:2]
    seen = sample(vmap, base * vscale) < 0.5
    if len(veto) > 2 and veto[2] is not None:
        # Where the empty table's picture is known, a point is judged by it as well: on
        # the card's side the table just outside looks as it did, and the table just
        # inside is hidden. So a side laid along the table's own lines (wood grain
        # running with it), where a step says nothing, is judged there too. (Looked at
        # only where a step does not already say so: the costly part.)
        need = ~(seen & ok)
        if need.any():
            outside, hidden = np.zeros(ok.shape, bool), np.zeros(ok.shape, bool)
            normals = np.broadcast_to(normal[:, :, None, :], base.shape)
            outside[need], hidden[need] = _hides_the_table(colour, veto[2], vscale, base[need], normals[need])
            ok = np.where(seen, ok | (outside & hidden), hidden)
            seen = seen | outside
    n_seen = seen.sum(axis=2)
    frac = (ok & seen).sum(axis=2) / np.maximum(n_seen, 1)
    frac = np.where(n_seen >= MIN_SEEN * n, frac, 0.0)
    return frac if per_side else frac.min(axis=1), _median(at.reshape(len(quads), -1), axis=1)


TABLE_SAME = 12.0
"""Largest colour difference (YCrCb units, chroma weighted, after the light's shift) from
the empty table's picture 4 px outside a side at which the table there counts as seen as
it was ..."""
TABLE_HIDDEN = 15.0
"""... and least difference 3 px inside it (and twice the difference outside) at which
the table there counts as hidden by a card. (Tuning frames of generated designs on a
grained tuning texture: 27-58 inside against 3-13 outside, medians per card.)"""


def _hides_the_table(colour: np.ndarray, table_picture: np.ndarray, scale: float, points: np.ndarray,
                     normals: np.ndarray) -> tuple:
    """Per side point (``points``, ``normals``: (..., 2), the side's outward normal at each):
    whether the frame 4 px outside the side looks as the empty table does there, and
    whether the frame 3 px inside differs from it (a card hides it). The light's shift
    between the two (exposure, white balance) is taken out: the median difference
    outside over the points."""
    def differs(offset: float) -> np.ndarray:
        pts = points + normals * offset
        return sample(colour, pts).astype(np.float32) - sample(table_picture, pts * scale).astype(np.float32)

    d_in, d_out = differs(-3.0), differs(4.0)
    shift = np.median(d_out.reshape(-1, 3), axis=0)
    d_in = np.sqrt((((d_in - shift) @ _TO_YCC.T) ** 2).sum(-1))
    d_out = np.sqrt((((d_out - shift) @ _TO_YCC.T) ** 2).sum(-1))
    return d_out <= TABLE_SAME, d_in >= np.maximum(TABLE_HIDDEN, 2.0 * d_out)


SEAT_IN = (2.0, 0.03)
"""How far inside each side of a found outline the card's paper is looked for: 2 px and
this fraction of the outline's short side."""
SEAT_OUT = (2.0, 0.1)
"""How far outside it: a card's paper rim beyond its print's edge is up to about a tenth of
the short side (Oxygen's rim: 6%)."""
SEAT_PAPER = 25.0
"""Largest difference of colour (as ``STEP``) from the card's paper of a point of it."""
SEAT_HIDES = 20.0
"""Least difference of colour (as ``STEP``) from the empty table's picture of a point of the
card (it hides the table there; a marker's white border touching the card does not)."""
SEAT_AGREE = 0.6
"""Least fraction of a side's points whose paper ends on one straight line for the side to
be moved there (a marker touching the card hides its edge along the rest), of the points
where its end can be told ..."""
SEAT_LEAST = 0.35
"""... and of all of the side's points."""
SEAT_SHAPE = 0.05
"""Largest relative difference between a seated outline's width/height and the deck's: on
the card's edge all round, it is the card's shape (tuning sessions: within 4%). An outline
seated on two sides of a card and a third along the card under it (an overlap) is not."""
SEAT_MOVE = 2.0
"""Least move outward (px, at either end of a side) that is made: a side already on the card's
edge stays as it is (a card that has not moved keeps its reading)."""
SEAT_GAP = 2
"""Widest break (px) in the card's paper that does not end it (see ``_bridged``): a thin line
of the card's own print along its rim (Oxygen White's frame, 1-2 px), on which a side was
found, has paper on both sides; the card's paper ends only where the table begins."""


def _bridged(paper: np.ndarray, card: np.ndarray, gap: int, run: int = 3) -> np.ndarray:
    """``paper`` (..., K) with breaks of at most ``gap`` samples filled in, where the card
    hides the table (``card``: its print) between paper before and ``run`` samples of paper
    after: a rim goes on beyond its frame line, a pixel of light beside the card's edge
    (a marker's white border) is no rim."""
    k = paper.shape[-1]
    on = paper.copy()                       # paper here and at the ``run - 1`` samples after
    for d in range(1, run):
        on[..., :k - d] &= paper[..., d:]
        on[..., k - d:] = False
    out = paper.copy()
    for g in range(1, gap + 1):
        both = paper[..., :-(g + 1)] & on[..., g + 1:]
        for d in range(1, g + 1):
            out[..., d:d + both.shape[-1]] |= both
    return out & card | paper


def seat_on_paper(colour: np.ndarray, outlines: list, table, aspect: Optional[float],
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, n: int = 24) -> list:
    """The outlines with each side moved to where the card's paper ends: the strongest
    straight step near a card is sometimes not its edge (its print's edge inside a light
    rim, where a marker touching the card or a line of the mat along it weakens the rim's
    own step; or a side tilted onto both). Along every side, from a little inside it
    outward, the first run of the card's paper (its lightest colour near the sides that
    is not the empty table's, ``table.mean``) is followed to where it ends; when those ends
    lie on one straight line for most of the side (``SEAT_AGREE``), the side moves there.
    The moved outline is kept only when its shape is the deck's (``SEAT_SHAPE``) and no
    further from it than before, its opposite sides as even and its size within the range
    looked for."""
    if not outlines or not _has_picture(table):
        return outlines
    mean = table.mean
    scale = mean.shape[1] / colour.shape[1]
    q = clockwise(np.stack([o.corners for o in outlines]).astype(np.float32))            # Q,4,2
    short = np.hypot(*np.moveaxis(q - q[:, _NEXT], -1, 0)).min(axis=1)
    r_in, r_out = SEAT_IN[0] + SEAT_IN[1] * short, SEAT_OUT[0] + SEAT_OUT[1] * short
    offsets = np.arange(-np.ceil(r_in.max()), np.ceil(r_out.max()) + 1, dtype=np.float32)
    kk = len(offsets)
    reach = ((offsets >= -np.ceil(r_in)[:, None]) & (offsets <= np.ceil(r_out)[:, None]))[:, None, None, :]
    base, normal, t = _side_samples(q, n, 0.1, 0.9)
    # As in ``step_profiles``: the points' x and y apart (Q, 4, n, K each), one colour
    # product per side, and the squares added by hand. The same values.
    x = base[..., 0, None] + normal[:, :, None, None, 0] * offsets
    y = base[..., 1, None] + normal[:, :, None, None, 1] * offsets
    here = (_sample_xy(colour, x, y).astype(np.float32).reshape(-1, n * kk, 3) @ _TO_YCC.T).reshape(x.shape + (3,))
    empty = (_sample_xy(mean, x * scale, y * scale).astype(np.float32).reshape(-1, n * kk, 3)
             @ _TO_YCC.T).reshape(x.shape + (3,))
    d = here - empty
    hides = (np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]) >= SEAT_HIDES) & reach
    # The card's paper: the median colour of the lightest tenth of what hides the table
    # (NaN where too little does: no point is light there).
    white = np.full((len(q), 3), np.nan, np.float32)
    for i in range(len(q)):
        cand = here[i][hides[i]]
        if len(cand) >= 10:
            white[i] = _median(cand[cand[:, 0] >= np.percentile(cand[:, 0], 90)], axis=0)
    off = here - white[:, None, None, None]
    light = np.sqrt(off[..., 0] * off[..., 0] + off[..., 1] * off[..., 1] + off[..., 2] * off[..., 2]) <= SEAT_PAPER
    paper = _bridged(hides & light, hides, SEAT_GAP)
    # The first run of paper from the innermost sample outward, and where it ends.
    seen = np.cumsum(paper, axis=-1) > 0
    ended = seen & ~paper & reach
    j = ended.argmax(axis=-1)                                                            # Q,4,n
    # The paper must end at a step in the picture (not only where the empty table under
    # it was as light: a card lying on a marker's white border).
    after = np.take_along_axis(here, np.minimum(j + 1, kk - 1)[..., None, None], 3)[..., 0, :]
    before = np.take_along_axis(here, np.maximum(j - 1, 0)[..., None, None], 3)[..., 0, :]
    run = ended.any(axis=-1) & (paper.sum(axis=-1) >= 2)
    # Where the paper runs on into something as light that the empty table has too (a
    # marker's white border under or beside the card), its end says nothing.
    blind = run & np.take_along_axis(light, j[..., None], 3)[..., 0]
    has = run & ~blind & (np.sqrt(((after - before) ** 2).sum(-1)) >= STEP)
    need = np.maximum(SEAT_AGREE * (n - blind.sum(axis=-1)), SEAT_LEAST * n)             # Q,4
    end = offsets[j] - 0.5
    fit = _line_fit(t, end, has)
    near = has & (np.abs(fit[..., :1] + fit[..., 1:] * t - end) <= 1.5)
    fit = _line_fit(t, end, near)
    ends = np.stack([fit[..., 0], fit[..., 0] + fit[..., 1]], axis=-1)                   # Q,4,2: at t=0, 1
    # Outward only (wholly, or turned about a point on the side): paper found inside a
    # side is the card's own (a dark line along its edge).
    move = (has.sum(axis=-1) >= need) & (near.sum(axis=-1) >= need) & (ends.max(axis=-1) >= SEAT_MOVE) \
        & (ends.mean(axis=-1) >= 0)
    ends = np.where(move[..., None], ends, 0.0)
    for i in np.nonzero(move.any(axis=1) & ~move.all(axis=1))[0]:
        # A rim is as wide all round: a side whose paper runs on into the table's own
        # light (the card lying on a marker's white border) has a band of paper as wide
        # as the rim found at the other sides just outside it, and moves by that much.
        width = float(np.median(ends[i][move[i]].mean(axis=-1)))
        band = (offsets >= 2.0) & (offsets <= width - 1.5)
        if band.any():
            rim = ~move[i] & (paper[i][:, :, band].all(axis=-1).mean(axis=-1) >= SEAT_AGREE)
            ends[i][rim] = width
            move[i] |= rim
    todo = np.nonzero(move.any(axis=1))[0]
    if len(todo) == 0:
        return outlines
    a = q[todo] + normal[todo] * ends[todo, :, :1]
    d = q[todo][:, _NEXT] + normal[todo] * ends[todo, :, 1:] - a
    p, e = a[:, _PREV], d[:, _PREV]                    # corner k is where sides k-1 and k cross
    det = e[..., 0] * (-d[..., 1]) + d[..., 0] * e[..., 1]
    r = a - p
    s = (r[..., 0] * (-d[..., 1]) + d[..., 0] * r[..., 1]) / np.where(np.abs(det) < 1e-6, np.nan, det)
    # The paper's end is known to half a pixel: the step there places it finer.
    new = refine(colour, np.nan_to_num(p + s[..., None] * e).astype(np.float32), reach=1.5)
    kept = _seat_kept(q[todo], new, aspect, min_long, max_long) & np.isfinite(s).all(axis=1)
    out = list(outlines)
    for i, k, m in zip(todo, kept, new):
        if k:
            o = outlines[i]
            out[i] = Outline(_start_top_left(m), o.support, o.contrast, blob=o.blob)
    return out


GROW_REACH = 0.3
"""How far beyond a refused live outline (a fraction of its short side) its card's edge is
looked for (``grow_to_table``): an outline cut short by a line printed inside the card (its
picture's frame, the inner edge of its index strip) lies up to about a fifth of the short
side inside the card's edge (tuning misses: 10-22%)."""
GROW_AGREE = 0.6
"""Least fraction of a side's points with the card's edge on one straight line (within a
pixel) for the side to move there."""
GROW_MIN_AREA = 1.1
"""Least area of a grown outline over the refused one's: the cards a printed line cut short
were 1.2-1.5 times larger grown (tuning seeds 811-814)."""


def grow_to_table(colour: np.ndarray, outline: Outline, table, aspect: Optional[float],
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, others=(), n: int = 24):
    """The outline grown to its card's edge, or None: for a live outline cut short by a
    line printed inside the card (the reader refused it), each side is moved outward to
    the outermost straight line (it may turn) within ``GROW_REACH`` along which most of
    the side (``GROW_AGREE``) is a step with the empty table (``table.mean``) just beyond
    it that is not one of the table's own steps (a mat line).
    The band crossed may hold the card's own print (its index); a side with no such step
    (it lies along another card, or a hand) stays. The grown outline must pass the
    finder's checks (``_verify``), have the deck's shape within ``SEAT_SHAPE``, be at least
    ``GROW_MIN_AREA`` times larger,
    and cover no more of any of ``others`` (the frame's other outlines, less those lying
    mostly within or around this one: the same card's) than before: it never takes in a
    neighbouring card."""
    if not _has_picture(table):
        return None
    mean = table.mean
    scale = mean.shape[1] / colour.shape[1]
    q = clockwise(outline.corners[None].astype(np.float32))
    short = float(np.hypot(*(q[0] - q[0, _NEXT]).T).min())
    reach = int(np.ceil(GROW_REACH * short))
    if reach < 3:
        return None
    offsets = np.arange(-1, reach + 6, dtype=np.float32)
    _, _, _, st = step_profiles(colour, q, offsets, n, 0.15, 0.85)
    _, _, _, st_table = step_profiles(mean, q * scale, offsets * scale, n, 0.15, 0.85)
    base, normal, t = _side_samples(q, n, 0.15, 0.85)
    pts = base[0][:, :, None, :] + normal[0][:, None, None, :] * offsets[:, None]          # 4,n,K,2
    here = sample(colour, pts).astype(np.float32) @ _TO_YCC.T
    empty = sample(mean, pts * scale).astype(np.float32) @ _TO_YCC.T
    table_here = np.sqrt(((here - empty) ** 2).sum(-1)) < SEAT_HIDES                   # 4,n,K
    st, st_table = st[0], st_table[0]
    k = len(offsets)
    # A card's edge at offset j: a step the table has not (as ``_not_the_tables``
    # judges it), with the table 2-4 px beyond it.
    beyond = np.zeros_like(table_here)
    beyond[..., :k - 4] = table_here[..., 2:k - 2] & table_here[..., 3:k - 1] & table_here[..., 4:]
    edge = (st >= STEP) & ~((st_table >= STEP) & (st_table >= 0.3 * st)) & beyond
    near = edge.copy()
    near[..., 1:] |= edge[..., :-1]
    near[..., :-1] |= edge[..., 1:]
    # Every line from offset g0 at one end of the side to g1 at the other (0 .. reach, a
    # side found tilted across the print turns onto the edge), scored by the fraction of
    # the side's points with such an edge under it; of those most of the side agrees on,
    # the outermost is the card's edge (lines of its print nearer in may have paper as
    # light as the table beyond them).
    m = reach + 1
    gs = np.arange(m, dtype=np.float32)
    frac = (t - t[0]) / (t[-1] - t[0])
    pos = np.rint(gs[:, None, None] + (gs[None, :, None] - gs[:, None, None]) * frac).astype(np.int64) + 1   # m,m,n
    score = near[:, np.arange(n)[None, None, :], pos].mean(axis=-1)                                     # 4,m,m
    ok = score >= GROW_AGREE
    outer = np.where(ok, gs[:, None] + gs[None, :] + 1e-3 * score, -1.0).reshape(4, -1)
    pick = outer.argmax(axis=1)
    g0, g1 = gs[pick // m], gs[pick % m]
    # The line's offsets at the side's ends (the points span t[0] .. t[-1] of it).
    ends = np.stack([g0 - (g1 - g0) * t[0] / (t[-1] - t[0]), g0 + (g1 - g0) * (1 - t[0]) / (t[-1] - t[0])], axis=-1)
    move = ok.reshape(4, -1).any(axis=1) & (ends.max(axis=-1) >= SEAT_MOVE)
    if not move.any():
        return None
    ends = np.where(move[:, None], ends, 0.0)
    a = q[0] + normal[0] * ends[:, :1]
    moved, det = _crossings(a, q[0, _NEXT] + normal[0] * ends[:, 1:] - a)
    if (np.abs(det) < 1e-6).any():
        return None
    moved = moved.astype(np.float32)
    grown = _verify(colour, clockwise(moved[None]), aspect, min_long, reach=2.0,
                    max_long=max_long)
    # Clearly larger: an outline a few pixels off its card (refused against its twin, say)
    # is not grown into a second try at the same comparison.
    if len(grown) != 1 or grown[0].area < GROW_MIN_AREA * outline.area:
        return None
    g = grown[0]
    if aspect and abs(quad_shape(g.corners[None])[0][0] - aspect) > SEAT_SHAPE * aspect:
        return None
    for other in others:
        before = _overlap(other.corners, outline.corners)
        # An outline lying mostly within or around this one is the same card's (its
        # picture's frame, a quadrilateral cut short on other lines of its print).
        if before < 0.5 and _overlap(other.corners, g.corners) > before + 0.02:
            return None
    g.blob, g.inside = outline.blob, outline.inside
    return g


def _line_fit(t: np.ndarray, e: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Least-squares lines ``e = c0 + c1 * t`` through the points where ``w`` (..., n) is
    set: (..., 2); a flat line at 0 where fewer than two points are."""
    w = w.astype(np.float64)
    s0, st, stt = w.sum(-1), (w * t).sum(-1), (w * t * t).sum(-1)
    se, ste = (w * e).sum(-1), (w * t * e).sum(-1)
    det = s0 * stt - st * st
    ok = det > 1e-9
    c1 = np.where(ok, (s0 * ste - st * se) / np.where(ok, det, 1.0), 0.0)
    c0 = np.where(ok, (se - c1 * st) / np.maximum(s0, 1.0), 0.0)
    return np.stack([c0, c1], axis=-1)


def _seat_kept(old: np.ndarray, new: np.ndarray, aspect: Optional[float], min_long: float,
               max_long: float) -> np.ndarray:
    """Whether each seated outline of ``new`` may replace ``old`` (both (Q, 4, 2)): see
    :func:`seat_on_paper`."""
    (r0, _, s0), (r1, long1, s1) = quad_shape(old), quad_shape(new)
    ok = np.isfinite(new).all(axis=(1, 2)) & (long1 >= min_long) & (long1 <= max_long) \
        & (s1 <= np.maximum(MAX_SKEW, s0))
    if aspect:
        off0, off1 = np.abs(r0 - aspect), np.abs(r1 - aspect)
        return ok & (off1 <= SEAT_SHAPE * aspect) & (off1 <= off0 + 0.02 * aspect)
    lo, hi = ANY_CARD
    return ok & (r1 > lo) & (r1 < hi)


def _hull_quad(hull: np.ndarray, points: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
    """The quadrilateral a convex hull reduces to (the crossings of the lines through
    its four longest sides, so that cut or rounded corners do not matter), or None when
    the hull is no quadrilateral. Given the outline's ``points`` (N, 2), each side's
    line is fitted to the points along the middle of that side."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.01 * peri, True).reshape(-1, 2).astype(np.float32)
    if len(poly) < 4:
        return None
    nxt = np.concatenate((poly[1:], poly[:1]))
    length = np.hypot(*(nxt - poly).T)
    four = np.sort(np.argsort(-length)[:4])
    if length[four].sum() < 0.75 * peri:
        return None
    lines = [(poly[k], (nxt[k] - poly[k]) / length[k]) for k in four]
    if points is not None:
        # The simplified hull may end a side on the arc of a rounded corner (a large
        # card's corner is wider than the simplification's tolerance): the side is then
        # tilted by more than ``refine`` can turn it. The straight middle of the side
        # gives its true line.
        pts = points.reshape(-1, 2).astype(np.float32)
        for n, k in enumerate(four):
            p, d = lines[n]
            rel = pts - p
            along = rel @ d
            across = rel @ np.array([-d[1], d[0]], np.float32)
            near = (along > 0.15 * length[k]) & (along < 0.85 * length[k]) & (np.abs(across) <= 0.01 * peri + 2)
            if near.sum() >= 10:
                vx, vy, x0, y0 = cv2.fitLine(pts[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
                e = np.array([vx, vy], np.float32)
                lines[n] = (np.array([x0, y0], np.float32), e if e @ d >= 0 else -e)
    q = np.empty((4, 2), np.float32)
    for k in range(4):
        (p, d), (r, e) = lines[k - 1], lines[k]
        det = d[0] * (-e[1]) + e[0] * d[1]
        if abs(det) < 0.5:          # neighbouring sides far from square
            return None
        t = ((r - p)[0] * (-e[1]) + e[0] * (r - p)[1]) / det
        q[k] = p + t * d
    area = cv2.contourArea(q)
    if not 0.85 * cv2.contourArea(hull) < area < 1.1 * cv2.contourArea(hull):
        return None
    return q


def _verify(colour, quads, aspect, min_long, reach, owners=None, max_long=np.inf, veto=None, free=None,
            slant: float = 0.0, lenient: bool = False):
    """Refined, checked outlines from rough quadrilaterals (clockwise, frame px). ``slant``
    (degrees, with the deck's ``aspect``): an outline whose proportions are not the deck's
    passes the shape check too when it is the deck's card seen at up to that slant
    (``seen_slant``). ``lenient``: one side may lie on a step over less of its length
    (``LENIENT_SUPPORT``)."""
    if len(quads) == 0:
        return []
    owners = np.zeros(len(quads), np.int64) if owners is None else np.asarray(owners)
    refined = refine(colour, quads, reach=reach, veto=veto)
    refined = refine(colour, refined, reach=2.0, veto=veto)
    ratio, long_side, skew = quad_shape(refined)
    if aspect:
        ok = np.abs(ratio - aspect) <= ASPECT_TOLERANCE * aspect
        if slant:
            ok |= seen_slant(refined, aspect) <= slant
    else:
        lo, hi = free or ANY_CARD
        ok = (ratio > lo) & (ratio < hi)
    ok &= (skew <= MAX_SKEW) & (long_side >= min_long) & (long_side <= max_long) \
        & np.isfinite(refined).all(axis=(1, 2))
    refined, owners = refined[ok], owners[ok]
    if len(refined) == 0:
        return []
    sides, contrast = side_support(colour, refined, veto=veto, per_side=True)
    support = sides.min(axis=1)
    good = support >= MIN_SUPPORT
    if lenient and veto is None:
        least, mean = LENIENT_SUPPORT
        good = (support >= least) & (sides.mean(axis=1) >= mean)
    return [Outline(_start_top_left(q), float(s), float(c), blob=int(b))
            for q, s, c, b in zip(refined[good], support[good], contrast[good], owners[good])]


LENIENT_SUPPORT = (0.6, 0.85)
"""With ``find_outlines(lenient=True)`` (a calibration photo in which no card was found
otherwise), the least fraction of any one side, and of the four sides on average, that
must lie on a step: a light card on light marble, a tile's grout and the stone's dark
veins running along one side, showed 0.62-0.78 there and 0.94-1.0 on the others."""


def find_outlines(frame_bgr: np.ndarray, aspect: Optional[float] = None, sizes=(),
                  mask: Optional[np.ndarray] = None, stats: Optional[dict] = None,
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf,
                  table=None, faint: bool = False, slant: float = 0.0, work_width: int = WORK_WIDTH,
                  edge_maps: Optional[tuple] = None, lenient: bool = False) -> list:
    """Card-shaped outlines in a BGR frame (see the module's description).

    ``aspect`` is the deck's width/height (None: any card from 0.55 to 0.82 is looked
    for); ``sizes``, long sides (px) the cards are expected to have, helps find cards
    whose sides are partly hidden; ``mask`` (uint8, frame size), where to look;
    ``table``, a ``background.TableModel`` of the empty table, whose own edges (mat
    lines, wood grain) are then no card's. ``faint``: luma edges down to a third of the
    usual strength (``FAINT_CANNY``: a light-rimmed card on white paper, a step of 10-15
    grey levels), for a calibration frame in which a card lies but none was found.
    ``work_width``: the width the frame is looked at (wider: small cards in a large
    photo keep their sides, at more cost). ``edge_maps``: ``edge_map`` of the frame at
    that width with these thresholds, when the caller has made it already (left as it is).
    ``lenient``: in a single photo, outlines of the first two tiers pass with one side on
    a step over less of its length (``LENIENT_SUPPORT``): for a calibration photo of one
    card in which none was found otherwise (its results are then checked against the
    other cards' shape and size, and read back)."""
    h, w = frame_bgr.shape[:2]
    lenient = lenient and table is None
    scale = min(1.0, work_width / w)
    edges, chroma = edge_maps if edge_maps is not None else \
        edge_map(frame_bgr, scale, FAINT_CANNY if faint else (CANNY_LOW, CANNY_HIGH))
    eh, ew = edges.shape
    both = edges | cv2.resize(chroma, (ew, eh), interpolation=cv2.INTER_NEAREST)
    both_all = both.copy()
    veto = None
    table_edges = table.table_edges(frame_bgr) if table is not None and table.ready else None
    if table_edges is not None and table_edges.shape == edges.shape:
        veto = _table_veto(table, table_edges, scale)
        # Edges the table shows still are left out of the edge map; where a card now
        # hides a mat line, its own edge along it stays.
        keep = cv2.bitwise_not(table_edges)
        edges = edges & keep               # new maps: the caller's (``edge_maps``) are left as they are
        chroma = chroma & cv2.resize(cv2.erode(keep, np.ones((2, 2), np.uint8)), (chroma.shape[1], chroma.shape[0]),
                                     interpolation=cv2.INTER_NEAREST)
        both = edges | cv2.resize(chroma, (ew, eh), interpolation=cv2.INTER_NEAREST)
    if mask is not None:
        near = cv2.dilate(cv2.resize(mask, (ew, eh), interpolation=cv2.INTER_NEAREST), np.ones((7, 7), np.uint8))
        both &= near
    blobs = cv2.dilate(both, np.ones((3, 3), np.uint8))
    n, labels, box, _ = connected_blobs(blobs)
    min_area = (min_long * scale) ** 2 * 0.5
    colour = frame_bgr
    free = ANY_CARD if table is not None else PHOTO_CARD
    big = [i for i in range(1, n) if box[i, 2] * box[i, 3] >= min_area]
    # Tier 1: a blob of edges whose hull is a quadrilateral is one card (or one clean shape).
    rough, piece_blob = [], []           # tier 1's quadrilaterals and the blob of each
    unsolved = set()                     # blobs holding a card-sized piece that is no quadrilateral
    for i in big:
        x, y, bw, bh = box[i, :4]
        sub = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        cs, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        # Filled, then opened: a thin line touching the card (a stray edge, a plank's
        # seam running to the frame's edge) goes, and what is left is looked at.
        cv2.drawContours(sub, cs, -1, 1, -1)
        sub = cv2.morphologyEx(sub, cv2.MORPH_OPEN, OPEN_KERNEL)
        cs, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(int(x), int(y)))
        for c in cs:
            cx, cy, cw, ch = cv2.boundingRect(c)
            if cw * ch < min_area or cx <= 0 or cy <= 0 or cx + cw >= ew or cy + ch >= eh:
                continue    # small, or cut by the frame's edge: not one whole card
            q = _hull_quad(cv2.convexHull(c), c)
            if q is None:
                unsolved.add(i)
            else:
                rough.append(q / scale)
                piece_blob.append(i)
    outlines = []
    if rough:
        quads = clockwise(np.stack(rough).astype(np.float32))
        ratio, long_side, _ = quad_shape(quads)
        plausible = (ratio > 0.45) & (long_side >= min_long)
        # Each outline is first owned by its piece, then by the piece's blob.
        outlines += _verify(colour, quads[plausible], aspect, min_long, reach=4.0,
                            owners=np.nonzero(plausible)[0], max_long=max_long, veto=veto, free=free, slant=slant,
                            lenient=lenient)
    verified = {o.blob for o in outlines}
    for o in outlines:
        o.blob = piece_blob[o.blob]
    # A blob is one clean card (or several) only when each of its card-sized pieces gave
    # an outline: a plank's seam can join a card found so to another whose quadrilateral
    # failed (its side taken along the seam), and that one is looked for by its corners.
    unsolved |= {b for k, b in enumerate(piece_blob) if k not in verified}
    solved = {o.blob for o in outlines} - unsolved
    # Tier 2: blobs that are not one clean card (a card touching a mat line, another card,
    # a hand, wood grain): look for cards by their corners.
    messy = [i for i in big if i not in solved]
    far_corners: list = []
    if stats is not None:
        stats.update(blobs=len(big), tier1=len(outlines), messy=len(messy))
    if messy:
        outlines += _corner_search(frame_bgr, colour, edges, chroma, scale, labels, messy, aspect, sizes,
                                   min_long, both_all, stats, max_long, veto, free, photo=table is None, slant=slant,
                                   far_corners=far_corners, lenient=lenient)
    if veto is not None and outlines and _has_picture(table):
        outlines = _not_the_tables(outlines, colour, table)
        outlines = seat_on_paper(colour, outlines, table, aspect, min_long, max_long)
    if table is None:
        outlines += region_outlines(frame_bgr, scale, aspect, min_long, max_long, mask, slant=slant)
    if table is None and outlines:
        outlines = grow_outlines(frame_bgr, outlines, aspect, min_long, max_long, slant=slant)
        outlines = pull_in_outlines(frame_bgr, outlines, aspect, min_long, max_long, slant=slant)
    if far_corners:
        # Outlines whose sides run to their far corners, where no other outline lies:
        # two light cards touching at a corner (one blob, each card's sides cut short by
        # the rounded corners) are each found by their free corners.
        far_corners = _merge(far_corners, frame_bgr)
        outlines += [o for o in far_corners
                     if all(_overlap(o.corners, k.corners) < FAR_CLEAR for k in outlines)]
    return _merge(outlines, frame_bgr if table is None else None)


def _table_veto(table, table_edges: np.ndarray, scale: float) -> tuple:
    """The ``veto`` of ``side_support`` from the empty table's own edges still seen in a
    frame (``TableModel.table_edges``, work size): steps on (or within two pixels of)
    them are the table's, and neither make nor verify a card's side."""
    return (cv2.dilate(table_edges, np.ones((3, 3), np.uint8)).astype(np.float32) / 255.0, scale,
            table.mean if _has_picture(table) and table.mean.shape[:2] == table_edges.shape else None)


FAR_CLEAR = 0.1
"""In a single photo, an outline found by its far corners is used only where it overlaps
every other outline by less than this fraction of the smaller one's area."""


FAINT_PLACE_CARDS = 3
"""The largest place unlike the empty table that ``faint_outlines`` looks into, in cards
(each the largest card looked for): as many cards lying close together make one place."""


def faint_outlines(frame_bgr: np.ndarray, foreground: np.ndarray, outlines: list, aspect: Optional[float],
                   table, **kw) -> list:
    """``outlines`` with the cards whose edge is too faint for the usual edges (a
    light-rimmed card on white paper) added: where what differs from the empty table
    (``foreground``, frame size) is not explained by an outline and lies clear of the
    frame's edge (a hand and arm reach in across it) and no larger than a few cards
    (``FAINT_PLACE_CARDS``), the cards are looked for again with faint edges
    (``find_outlines(faint=True)``) near it. Frames
    without such places (every card found, a hand) cost almost nothing more. Where the
    faint edges find no card there (on a busy table, ``table.busy``, unless the place lies
    on a plain part of it, ``on_plain``: a white mat laid on a carpet), the place is
    looked at as one that differs from the empty table pixel by pixel
    (``change_outlines``) and, on a busy table, as a region unlike the table."""
    h, w = foreground.shape[:2]
    k = 4                                  # looked at coarsely: the mask is coarse anyway
    left = np.ascontiguousarray(foreground[::k, ::k])
    for o in outlines:
        cv2.fillConvexPoly(left, np.round(o.corners / k).astype(np.int32), 0)
    left = cv2.erode(left, np.ones((2, 2), np.uint8))
    cs, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    least = 0.15 * (kw.get("min_long", MIN_LONG_SIDE) / k) ** 2
    # Larger than a few cards lying side by side (a lamp's light): no faint cards to look
    # for. Two faint cards touching make one such place (a light deck on oak, tuning
    # seed 985: 988 cells where one card allowed 955); a hand and arm reach in across
    # the frame's edge, left out below.
    most = FAINT_PLACE_CARDS * 0.6 * (kw["max_long"] / k) ** 2 if np.isfinite(kw.get("max_long", np.inf)) else np.inf
    # The places that differ may be only the card's print (its paper is the mat's
    # colour): its edge lies up to half a card's length away.
    reach = 0.6 * kw.get("max_long", 2 * kw.get("min_long", MIN_LONG_SIDE))
    places = []                            # (on a plain part of the table, centre, where to look)
    busy = getattr(table, "busy", False)
    for c in cs:
        x, y, bw, bh = cv2.boundingRect(c)
        if x < 1 or y < 1 or x + bw > left.shape[1] - 1 or y + bh > left.shape[0] - 1 \
                or not least <= cv2.contourArea(c) <= most:
            continue
        plain = True
        if busy:
            blob = np.zeros(left.shape, np.uint8)
            cv2.drawContours(blob, [c], -1, 1, -1)
            plain = on_plain(table, left.shape[1], blob)
        x0, y0 = int(max(0, x * k - reach)), int(max(0, y * k - reach))
        x1, y1 = int(min(w, (x + bw) * k + reach)), int(min(h, (y + bh) * k + reach))
        places.append((plain, ((x + bw / 2) * k, (y + bh / 2) * k), (x0, y0, x1, y1)))
    if not places:
        return outlines

    def explained(place, by) -> bool:
        return any(cv2.pointPolygonTest(o.corners.astype(np.float32), place[1], False) >= 0 for o in by)

    def near(chosen) -> np.ndarray:
        m = np.zeros((h, w), np.uint8)
        for _, _, (x0, y0, x1, y1) in chosen:
            m[y0:y1, x0:x1] = 255
        return m

    found, rest = [], places
    plain = [p for p in places if p[0]]
    if plain:
        # On a plain table, or a plain part of a busy one (a white mat laid on a carpet: a
        # light card on it is no region unlike the table), the card is looked for by its
        # faint edges.
        found = find_outlines(frame_bgr, aspect, table=table, faint=True, mask=near(plain), **kw)
        if busy and found and _has_picture(table):
            # The faint edges of the mat's own printed boxes are no card's, as on a plain
            # table (``_not_the_tables``).
            found = [o for o, x in zip(found, table_own(found, frame_bgr, table.mean), strict=True) if not x]
        rest = [p for p in places if not p[0] or not explained(p, found)]
    if rest and _has_picture(table):
        # Where the faint edges found no card, it is looked for as a place that differs
        # from the table pixel by pixel: on a busy table (carpet, terrazzo, a printed
        # cloth) fainter edges are mostly more of its texture, and a print whose blobs are
        # too large for a busy table breaks a card's sides as well (on grained wood a place
        # may seem plain and still need it).
        least, most = kw.get("min_long", MIN_LONG_SIDE), kw.get("max_long", np.inf)
        changed = change_outlines(frame_bgr, table, aspect, least, most, mask=near(rest))
        regions = []
        if busy:
            # And as a region unlike the table; the region finder (about 60 ms of CPU a
            # 640x480 frame) looks only where the difference found no card.
            rest = [p for p in rest if not explained(p, changed)]
            regions = region_outlines(frame_bgr, min(1.0, WORK_WIDTH / w), aspect, least, most,
                                      mask=near(rest)) if rest else []
        found = found + _merge(changed + regions)
    new = [o for o in found if all(_overlap(o.corners, p.corners) < 0.3 for p in outlines)]
    return _merge(list(outlines) + new) if new else outlines


def _has_picture(table) -> bool:
    """Whether the table model keeps the empty table's picture (a ``TableModel``), not
    only its edges (a calibration's second look at a crop)."""
    return getattr(table, "mean", None) is not None


def _not_the_tables(outlines: list, colour: np.ndarray, table) -> list:
    """The outlines that are not the empty table's own shapes (see ``TABLE_OWN``): each
    side's steps in the frame are compared with the steps at the same places in the
    learnt table's picture. A card hides the table under it, so at most the sides that
    lie along the table's lines are shared; a box printed on the mat shares all four.
    (The table's edge map misses faint lines: Canny keeps no strong pixel of them.)
    On a busy table (``table.busy``: terrazzo, a loop carpet) the table's picture has
    steps nearly everywhere, under any card's sides too: all outlines are kept (but see
    ``faint_outlines``)."""
    if getattr(table, "busy", False):
        return outlines
    own = table_own(outlines, colour, table.mean)
    return [o for o, x in zip(outlines, own, strict=True) if not x]


PLAIN_RIM = 3
"""Work pixels round a place that ``on_plain`` also looks at (a card's sides and the table
just beyond them)."""


def on_plain(table, frame_width: int, place, rim: int = PLAIN_RIM) -> bool:
    """Whether ``place`` (a quadrilateral's corners in frame px, float; or a filled uint8
    mask of the frame, at any scale) lies, with ``rim`` work px round it, on a plain part of
    the table (``TableModel.plain_under``): always on a plain table."""
    dense = getattr(table, "dense", None)
    if dense is None:
        return True
    place = np.asarray(place)
    if place.dtype == np.uint8:
        mask = cv2.resize(place, (dense.shape[1], dense.shape[0]), interpolation=cv2.INTER_NEAREST)
    else:
        mask = np.zeros(dense.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(place * (dense.shape[1] / frame_width)).astype(np.int32), 1)
    if rim:
        mask = cv2.dilate(mask, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8))
    return table.plain_under(mask)


def table_own(outlines: list, colour: np.ndarray, mean: np.ndarray) -> list:
    """For each outline, whether it is the empty table's own shape by its steps
    (``_not_the_tables``); ``mean``: the empty table's picture (``TableModel.mean``)."""
    scale = mean.shape[1] / colour.shape[1]
    quads = np.stack([o.corners for o in outlines]).astype(np.float32)
    offsets = np.array([-1.0, -0.5, 0.0, 0.5, 1.0], np.float32)
    _, _, _, st = step_profiles(colour, quads, offsets, 24, 0.1, 0.9)
    _, _, _, st_table = step_profiles(mean, quads * scale, offsets * scale, 24, 0.1, 0.9)
    at, at_table = st.max(axis=3), st_table.max(axis=3)
    shared = (at_table >= STEP) & (at_table >= 0.3 * at)
    return [bool(x) for x in (shared.mean(axis=2) >= TABLE_OWN).sum(axis=1) >= 3]


PHOTO_SLANT = 1.12
"""In a single photo, a card's width/height may differ from the deck's by up to this factor
either way (a phone held at a slant foreshortens a card along the slant, more or less as the
card lies across or along it): corners are also completed at these proportions."""


PHOTO_MAX_SLANT = 55.0
"""In a single photo (``find_outlines(slant=...)``, as ``recognize`` passes it), the largest
slant (degrees between the table's normal and the line of sight to the card) at which a
card's outline of other proportions than the deck's is taken for the deck's card. A phone
held 8-26 degrees off straight down, with a wide lens, sees cards near the frame's far
edge at up to about 50 degrees: their width/height is then 0.67-1.44 times the deck's
(tuning-slant photos, seeds 830-832)."""


def seen_slant(quads: np.ndarray, aspect: float) -> np.ndarray:
    """(Q,) the least slant (degrees) at which a rectangle of width/height ``aspect`` looks
    like each quadrilateral: the parallelogram of its mean opposite sides is taken as the
    rectangle squeezed along one direction by cos(slant) (a small card seen at a slant, the
    perspective within it neglected). For either pair of sides as the card's long side
    ``u`` and short side ``v``, the metric M that makes them square and of proportions
    ``aspect`` (u'Mv = 0, v'Mv = aspect^2 u'Mu) is found; its eigenvalues are 1/cos^2 and 1
    apart. 90 where no squeeze gives the deck's card."""
    q = quads.astype(np.float64)
    s1 = (q[:, 1] - q[:, 0] + q[:, 2] - q[:, 3]) / 2
    s2 = (q[:, 3] - q[:, 0] + q[:, 2] - q[:, 1]) / 2
    return np.minimum(_squeeze(s1, s2, aspect), _squeeze(s2, s1, aspect))


def _squeeze(u: np.ndarray, v: np.ndarray, aspect: float) -> np.ndarray:
    """``seen_slant`` with ``u`` (Q, 2) as the card's long side and ``v`` its short side."""
    a2 = aspect * aspect
    r1 = np.stack([u[:, 0] * v[:, 0], u[:, 0] * v[:, 1] + u[:, 1] * v[:, 0], u[:, 1] * v[:, 1]], axis=-1)
    r2 = np.stack([v[:, 0] ** 2 - a2 * u[:, 0] ** 2, 2 * (v[:, 0] * v[:, 1] - a2 * u[:, 0] * u[:, 1]),
                   v[:, 1] ** 2 - a2 * u[:, 1] ** 2], axis=-1)
    p, r, t = np.moveaxis(np.cross(r1, r2), -1, 0)        # M = [[p, r], [r, t]], up to sign and scale
    tr, det = np.abs(p + t), p * t - r * r
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0.0))
    lo, hi = tr / 2 - disc, tr / 2 + disc
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.sqrt(np.where((det > 0) & (hi > 0), lo / hi, 0.0))
    return np.where(np.isfinite(c), np.degrees(np.arccos(np.clip(c, 0.0, 1.0))), 90.0)


PHOTO_REACH, PHOTO_REACH_MAX = 0.12, 40.0
"""In a single photo, how far (a fraction of the long side, at most so many px) each side of
a corner's completed card is also looked for."""


def photo_aspects(aspect: Optional[float]) -> list:
    """The proportions (width/height) at which a corner is completed to a card in a single
    photo: the deck's and the deck's foreshortened either way by ``PHOTO_SLANT``; without
    the deck's, those looked for live and a card foreshortened across the slant (0.8, up to
    ``PHOTO_CARD``'s 0.88 with the candidates' tolerance). The refinement moves a side only a
    few pixels, so a corner completed at the wrong proportions misses a large card's far side."""
    if aspect:
        return [aspect, aspect / PHOTO_SLANT, min(aspect * PHOTO_SLANT, PHOTO_CARD[1])]
    return [0.64, 0.71, 0.8]


def _corner_search(frame_bgr, colour, edges, chroma, scale, labels, messy, aspect, sizes, min_long,
                   both_all, stats, max_long=np.inf, veto=None, free=None, photo=False, slant=0.0,
                   far_corners=None, lenient=False):
    """Tier 2: outlines completed from the corners of the ``messy`` blobs. In a single
    photo (``photo``), the outlines whose sides run to their far corners are verified
    apart and added to ``far_corners`` (a list), not returned: they are used only where
    nothing else was found (``find_outlines``)."""
    p0, p1 = segments(edges, scale)
    c0, c1 = segments(chroma, scale / 2, MIN_SEGMENT / 2)
    p0, p1 = np.concatenate([p0, c0]), np.concatenate([p1, c1])
    if len(p0) == 0:
        return []
    eh, ew = labels.shape
    mid = (p0 + p1) / 2 * scale
    lab = labels[np.clip(mid[:, 1].astype(int), 0, eh - 1), np.clip(mid[:, 0].astype(int), 0, ew - 1)]
    h, w = frame_bgr.shape[:2]
    aspects = [aspect] if aspect else [0.64, 0.71]
    if photo:
        aspects = photo_aspects(aspect)
    quads, far = [], []
    for i in messy:
        sel = lab == i
        if sel.sum() < 2:
            continue
        j = corners_of(p0[sel], p1[sel])
        partners = partner_lengths(j)
        for a in aspects:
            if photo:
                # In a single photo (no table, slanted shapes allowed) sides to their far
                # corners gave outlines of a court's printed frame and of half a card that
                # passed for the card (tuning photos of the tests): they are kept apart.
                quads.append(candidates(j, a, sizes))
                if far_corners is not None:
                    far.append(candidates(j, a, partners=partners, only_partners=True))
            else:
                quads.append(candidates(j, a, sizes, partners=partners))
    if far:
        far_corners += _corner_outlines(np.concatenate(far), colour, both_all, scale, aspect, min_long,
                                        max_long, veto, free, photo, slant, lenient=lenient)
    if not quads:
        return []
    return _corner_outlines(np.concatenate(quads), colour, both_all, scale, aspect, min_long, max_long,
                            veto, free, photo, slant, stats, lenient=lenient)


def _corner_outlines(quads, colour, both_all, scale, aspect, min_long, max_long, veto, free, photo, slant,
                     stats=None, lenient=False) -> list:
    """The outlines among corner candidates ``quads``: whole in the frame, of a card's
    size, on edges for most of their sides, and verified."""
    if len(quads) == 0:
        return []
    h, w = colour.shape[:2]
    _, long_side, _ = quad_shape(quads)
    inside = (quads.min(axis=(1, 2)) >= 1) & (quads[:, :, 0].max(axis=1) <= w - 2) \
        & (quads[:, :, 1].max(axis=1) <= h - 2)
    quads = quads[inside & (long_side >= min_long) & (long_side <= min(max_long * 1.1, 0.95 * min(w, h) / 0.55))]
    if len(quads) == 0:
        return []
    dil = cv2.dilate(both_all, np.ones((5, 5), np.uint8))
    quick = quick_support(dil, scale, quads)
    keep = quick >= 0.6
    quads, quick = quads[keep], quick[keep]
    if len(quads) == 0:
        return []
    quads = quads[_suppress(quads, quick)]
    if stats is not None:
        stats["corner candidates"] = len(quads)
    _, long_side, _ = quad_shape(quads)
    reach = float(np.clip(0.05 * np.median(long_side), 3, 8))
    out = _verify(colour, quads, aspect, min_long, reach=reach, max_long=max_long, veto=veto, free=free, slant=slant,
                  lenient=lenient)
    if photo:
        # A single photo, perhaps taken at a slant: a corner completed to a parallelogram
        # misses a large card's far corner by more than that reach (its far side is
        # shorter by up to a tenth), so the sides are also looked for further out.
        out += _verify(colour, quads, aspect, min_long, max_long=max_long, veto=veto, free=free, slant=slant,
                       reach=float(np.clip(PHOTO_REACH * np.median(long_side), 3, PHOTO_REACH_MAX)), lenient=lenient)
    return out


def _start_top_left(q: np.ndarray) -> np.ndarray:
    k = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -k, axis=0)


def _inside_convex(quads: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(Q, P) whether each point lies inside each clockwise convex quadrilateral."""
    a = quads[:, None, :, :]
    b = quads[:, _NEXT][:, None, :, :]
    p = pts[None, :, None, :]
    cross = (b[..., 0] - a[..., 0]) * (p[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (p[..., 0] - a[..., 0])
    return (cross > 0).all(axis=2)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller area of two convex quadrilaterals."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    small = min(abs(cv2.contourArea(a.astype(np.float32))), abs(cv2.contourArea(b.astype(np.float32))))
    return float(inter) / max(small, 1e-6)


def _merge(outlines: list, colour: Optional[np.ndarray] = None) -> list:
    """One outline per card: of outlines that overlap without one lying inside the
    other (the card's true outline, and a quadrilateral made of some of its sides and a
    line of its picture or of the table), the best supported and, of those, the one
    with the strongest steps; and each outline knows which others lie inside it. Of
    two nearly the same, one around the other, the outer one, unless (given the frame,
    ``colour``: a single photo) it reaches onto the table around the inner one
    (:func:`_astray`)."""
    if not outlines:
        return outlines
    outlines.sort(key=lambda o: (-round(o.support, 2), -o.contrast))
    q = np.stack([o.corners for o in outlines])
    area = np.array([o.area for o in outlines])
    # Outlines whose boxes lie apart (by a pixel) do not overlap (``_overlap`` 0): only the
    # kept ones near each are looked at, in the same order. (A frame of a busy cloth has
    # a hundred outlines, and a thousand pairs of them far apart.)
    lo, hi = q.min(axis=1) - 1.0, q.max(axis=1) + 1.0
    keep = []
    for i in range(len(outlines)):
        clash = False
        kk = np.array(keep, np.int64)
        for k in kk[((lo[i] <= hi[kk]) & (lo[kk] <= hi[i])).all(axis=1)].tolist():
            ov = _overlap(q[i], q[k])
            if ov < 0.3:
                continue
            ratio = area[i] / area[k]
            if ov > 0.97 and colour is not None and (ASTRAY_AREA < ratio < 1.3 or ASTRAY_AREA < 1 / ratio < 1.3):
                # In a single photo, of two nearly the same, one around the other, the
                # inner one where the outer reaches onto the table.
                outer, inner = (i, k) if ratio > 1 else (k, i)
                if _astray(colour, q[outer], q[inner]):
                    if inner == i:
                        outlines[k] = outlines[i]
                        q[k], area[k], lo[k], hi[k] = q[i], area[i], lo[i], hi[i]
                    clash = True
                    break
            if ov > 0.97 and 1.0 < ratio < 1.3:
                # Nearly the same card, this one around the other: a card's outline and
                # a quadrilateral cut short by a line of its own picture. The outer one
                # is the card.
                outlines[k] = outlines[i]
                q[k], area[k], lo[k], hi[k] = q[i], area[i], lo[i], hi[i]
                clash = True
                break
            nested = ov > 0.97 and not 0.85 < ratio < 1.18
            if not nested:
                clash = True
                break
        if not clash:
            keep.append(i)
    kept = [outlines[i] for i in keep]
    q = q[keep]
    area = area[keep]
    within = _inside_convex(q, q.mean(axis=1)) & (area[None, :] < area[:, None])
    for i, o in enumerate(kept):
        o.inside = [int(j) for j in np.nonzero(within[i])[0]]
    return kept


ASTRAY_AREA = 1.08
"""Of two outlines nearly the same, the outer one is judged by its corners (``_astray``)
only where it is this many times the inner one's area: a dark line printed along a
card's edge makes a second outline a pixel or two inside the first."""


def _astray(colour: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> bool:
    """Whether ``outer`` reaches onto the table around ``inner``: it has a corner on the
    table, ``inner`` none, and along a side meeting that corner the strip between the two
    is the table's (as :func:`pull_in_outlines` judges a strip). The outer one is then a
    card's sides continued to a plank's seam, not the card whose picture's frame the
    inner one is."""
    o = clockwise(outer[None].astype(np.float32))[0]
    i = clockwise(inner[None].astype(np.float32))[0]
    astray, rims, short = _corner_check(colour, o)
    if not astray.any() or corners_on_table(colour, i).any():
        return False
    least = max(3.0, PULL_LEAST * short)
    base, normal, _ = _side_samples(o[None], 20, 0.05, 0.95)
    ib, inormal, _ = _side_samples(i[None], 2, 0.0, 1.0)
    for side in np.nonzero(astray | np.roll(astray, -1))[0]:       # side k joins corners k and k + 1
        j = int(np.argmax(inormal[0] @ normal[0, side]))            # the inner side facing the same way
        along = float(inormal[0, j] @ normal[0, side])
        if along < 0.9:
            continue
        # Where the ray inward from each point of the outer side meets the inner side.
        off = ((ib[0, j, 0] - base[0, side]) @ inormal[0, j]) / along
        if _table_strips(colour, base[0, side], normal[0, side], off[None].astype(np.float32), rims, least)[0]:
            return True
    return False


def top_level(outlines: list) -> list:
    """The outlines that lie inside no other outline."""
    inner = {j for o in outlines for j in o.inside}
    return [o for i, o in enumerate(outlines) if i not in inner]


def kept(outlines: list, keep) -> list:
    """The outlines of ``outlines`` for which ``keep`` (a sequence of bools, one per outline)
    is true, each knowing which of the kept ones lie inside it: ``inside`` holds indices
    into the list it came in, which a filter would leave pointing at other outlines.

    >>> outer = Outline(np.zeros((4, 2)), inside=[2])
    >>> [o.inside for o in kept([Outline(np.zeros((4, 2))), outer, Outline(np.zeros((4, 2)))], [False, True, True])]
    [[1], []]
    """
    old = [i for i, k in enumerate(keep) if k]
    new = {i: n for n, i in enumerate(old)}
    return [replace(outlines[i], inside=[new[j] for j in outlines[i].inside if j in new]) for i in old]


# ------------------------------------------------------------------ single photos
# Without the empty table learnt (a photo given to ``recognize``, a calibration photo),
# a card on a busy surface (wood grain, carpet, tiles) is often found only by the frame
# line of its own picture: its outer edge runs into the surface's own edges, so it is no
# clean blob of edges, while the frame inside it is. ``grow_outlines`` looks outward
# from each such outline for the card's edge.

GROW_MAX = 0.2
"""How far beyond an outline (a fraction of its short side) the card's edge is looked for."""
GROW_MIN = 0.03
"""Least distance (a fraction of the short side) between a picture's frame and the card's
edge: closer steps are the frame's own line, a rim or a shadow."""
GAP_TEXTURE = 6.0
"""Largest spread of colour (YCrCb, chroma weighted as in ``STEP``) along the band between an
outline and the edge found beyond it, whatever the table beyond: that band is the card's
plain margin."""
GAP_STEP = 15.0
"""Least difference of colour (as ``STEP``) between that band and the table beyond the edge."""
PAPER_CLOSE = 25.0
"""Largest difference of colour (as ``STEP``) between that band and the lightest tenth of
what lies inside the outline (the card's paper): a margin is the card's own paper."""
GAP_RATIO = 0.5
"""On a busy table, the band may vary up to this fraction of the table's spread just beyond
the edge (a light margin is not perfectly even in a noisy, blurred photo)."""


def _side_fractions(colour: np.ndarray, quads: np.ndarray, n: int = 32) -> np.ndarray:
    """(Q, 4): for each side, the fraction of its points lying on a step (as
    :func:`side_support` judges a point)."""
    return side_support(colour, quads, n, per_side=True)[0]


def _moved_out(q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The clockwise quadrilateral ``q`` with side k moved outward by ``d[..., k]`` px
    (the corners where the moved sides cross). ``d``: (..., 4)."""
    a, b = q, np.roll(q, -1, axis=0)
    u = (b - a) / np.hypot(*(b - a).T)[:, None]
    normal = np.stack([u[:, 1], -u[:, 0]], axis=-1)
    p = a + normal * d[..., :, None]                     # a point on each moved side
    return _crossings(p, np.broadcast_to(u, p.shape))[0].astype(np.float32)


def grow_outlines(frame_bgr: np.ndarray, outlines: list, aspect: Optional[float] = None,
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, slant: float = 0.0) -> list:
    """Outlines that were a card's picture frame replaced by the card's own edge: each
    side is moved outward to the first straight step beyond a plain band (the card's
    margin), and the grown outline must pass the finder's checks (shape, steps under
    every side). Outlines with no such edge around them are kept as they were."""
    out = []
    for o in outlines:
        q = o.corners.astype(np.float32)
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        short = float(min(sides))
        lo, hi = max(2, int(GROW_MIN * short)), int(GROW_MAX * short)
        if hi <= lo:
            out.append(o)
            continue
        ds = np.arange(1, hi + 1, dtype=np.float32)
        quads = _moved_out(q, np.repeat(ds[:, None], 4, axis=1))
        frac = _side_fractions(frame_bgr, clockwise(quads))            # (len(ds), 4)
        on = frac >= MIN_SUPPORT
        # Each side goes to the first step beyond a stretch without one (the margin), at
        # least ``lo`` out, or stays where it is.
        after_gap = np.cumsum(~on, axis=0) > 0
        on &= after_gap & (ds[:, None] >= lo)
        d = np.where(on.any(axis=0), ds[on.argmax(axis=0)], 0.0).astype(np.float32)
        moved = d > 0
        paper = _paper_colour(frame_bgr, q) if moved.any() else None
        if not moved.any() or not all(_plain_band(frame_bgr, q, k, d[k], paper) for k in np.nonzero(moved)[0]):
            out.append(o)
            continue
        grown = _moved_out(q, d)
        better = _verify(frame_bgr, clockwise(grown[None]), aspect, min_long, reach=2.0, max_long=max_long,
                         free=PHOTO_CARD, slant=slant)
        if len(better) == 1 and better[0].area > o.area:
            better[0].blob = o.blob
            out.append(better[0])
        else:
            out.append(o)
    return out


PULL_MAX = 0.35
"""How far inside an outline's side (a fraction of its short side) the card's edge is looked for."""
PULL_LEAST = 0.05
"""Least width (a fraction of the short side, and 3 px) of a strip of the table inside an
outline's side, at its wider end, for the side to be moved in: narrower is the card's
edge blurred, or a dark line printed along it."""
PULL_GAIN = 0.5
"""The card's edge inside a side must be a straight step at least this fraction as strong
(mean step along it) as the step the side lies on: a plank's seam can be as strong as a
light card's edge against light wood."""
STRIP_TABLE = 0.5
"""A strip inside a side is the table's where it is at most this fraction as far (in
colour) from the table beyond the side as from the card's rim."""
CORNER_IN = (0.035, 0.045, 0.055)
"""Depths (fractions of the short side, along the bisector) at which an outline's corner
is looked inside: past a card's rounded corner, short of its corner index."""
CORNER_OUT = (0.02, 0.04)
"""Likewise outside the corner: the table."""
CORNER_TABLE = 0.5
"""A corner lies on the table where just inside it is at most this fraction as far from
the table just outside it as from the card's rim (a corner index of a colour nearer the
table's than the paper's comes to a half or more)."""


def _rim_colour(colour: np.ndarray, base: np.ndarray, normal: np.ndarray, depths,
                table: np.ndarray) -> Optional[np.ndarray]:
    """The card's rim colour (YCrCb, chroma weighted as in ``STEP``) ``depths`` px inside
    an outline's sides (``base`` (4, n, 2) points along them, ``normal`` (4, 2) outward):
    the median of the samples there unlike the ``table`` (by more than ``PAPER_CLOSE``: a
    strip of the table inside a side is left out), or None where fewer than a quarter
    are (a card the table's colour)."""
    pts = base[:, :, None, :] - normal[:, None, None, :] * np.float32(depths)[None, None, :, None]
    got = (sample(colour, pts).astype(np.float32) @ _TO_YCC.T).reshape(-1, 3)
    mine = got[np.linalg.norm(got - table, axis=1) > PAPER_CLOSE]
    return np.median(mine, axis=0) if len(mine) >= len(got) / 4 else None


def _rims(colour: np.ndarray, q: np.ndarray, short: float) -> list:
    """The card's rim colours (:func:`_rim_colour`) just inside the sides of outline ``q``
    and as deep inside them as a corner is looked inside (``CORNER_IN``; a card's edge may
    be printed as a dark line, its margin inside it light), those that are found."""
    base, normal, _ = _side_samples(q[None], 20, 0.05, 0.95)
    base, normal = base[0], normal[0]
    pts = base[:, :, None, :] + normal[:, None, None, :] * np.float32([3.0, 4.0, 5.0])[None, None, :, None]
    table = np.median((sample(colour, pts).astype(np.float32) @ _TO_YCC.T).reshape(-1, 3), axis=0)
    rims = [_rim_colour(colour, base, normal, [2.0], table),
            _rim_colour(colour, base, normal, [d * short for d in CORNER_IN], table)]
    return [r for r in rims if r is not None]


def corners_on_table(colour: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(4,) for each corner of clockwise outline ``q``: whether it lies on the table, not
    on the card (a side continued past the card's corner onto a plank's seam): just
    inside it looks unlike the card's rim (either as seen just inside the sides, or as
    deep inside them) and nearer the table just outside it."""
    return _corner_check(colour, q)[0]


def _corner_check(colour: np.ndarray, q: np.ndarray) -> tuple:
    """(:func:`corners_on_table`, the card's rims it was judged by (:func:`_rims`), the
    outline's short side)."""
    q = q.astype(np.float32)
    short = float(np.hypot(*(np.roll(q, -1, axis=0) - q).T).min())
    to_next = np.roll(q, -1, axis=0) - q
    to_prev = np.roll(q, 1, axis=0) - q
    bis = to_next / np.hypot(*to_next.T)[:, None] + to_prev / np.hypot(*to_prev.T)[:, None]
    bis /= np.maximum(np.hypot(*bis.T)[:, None], 1e-6)                  # inward
    rims = _rims(colour, q, short)
    if not rims:
        return np.zeros(4, bool), rims, short

    def colour_at(depths):
        pts = q[:, None, :] + bis[:, None, :] * (np.float32(depths) * short)[None, :, None]
        return np.median(sample(colour, pts).astype(np.float32) @ _TO_YCC.T, axis=1)     # (4, 3)

    inside = colour_at(CORNER_IN)
    outside = colour_at([-d for d in CORNER_OUT])
    to_rim = np.min([np.linalg.norm(inside - rim, axis=1) for rim in rims], axis=0)
    return (to_rim > PAPER_CLOSE) & (np.linalg.norm(inside - outside, axis=1) < CORNER_TABLE * to_rim), rims, short


def pull_in_outlines(frame_bgr: np.ndarray, outlines: list, aspect: Optional[float] = None,
                     min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, slant: float = 0.0) -> list:
    """Outlines with a corner on the table (:func:`corners_on_table`: a plank's seam or a
    strip of the table taken for a side, the card's own edge running inside it, often
    askew) with each side that meets such a corner moved in to the card's edge: the
    strongest straight step within ``PULL_MAX`` of the short side inside it that has the
    card's rim just inside it and a strip of the table outside it (:func:`_table_strips`).
    The pulled outline must pass the finder's checks and have no corner on the table;
    other outlines are kept as they were. The mirror of :func:`grow_outlines`."""
    out = []
    for o in outlines:
        q = clockwise(o.corners.astype(np.float32)[None])
        astray, rims, short = _corner_check(frame_bgr, q[0])
        reach = int(PULL_MAX * short)
        least = max(3.0, PULL_LEAST * short)
        if reach < least + 1 or not astray.any():
            out.append(o)
            continue
        # Side k runs from corner k to corner k + 1: the sides that meet a corner on the table.
        sides = np.nonzero(astray | np.roll(astray, -1))[0]
        offsets = np.arange(-reach, 1.5, 1.0, dtype=np.float32)      # inward is negative
        n, k = 20, len(offsets)
        base, normal, t, st = step_profiles(frame_bgr, q, offsets, n, 0.05, 0.95)
        base, normal = base[0], normal[0]                             # (4, n, 2), (4, 2)
        score, frac = line_scores(st[0], t)                           # 4, k, k
        zero = int(np.argmin(np.abs(offsets)))
        near = slice(zero - 1, min(zero + 2, k))
        own = score[:, near, near].reshape(4, -1).max(axis=1)
        ends = offsets[:, None], offsets[None, :]
        inside = (np.maximum(*ends) <= 0.0) & (np.minimum(*ends) <= -least)
        cand = np.where(inside[None], score, -1.0).reshape(4, -1)
        line = np.zeros((4, n), np.float32)
        moved = False
        for side in sides:
            tried = np.nonzero(cand[side] >= PULL_GAIN * own[side])[0]
            if len(tried) == 0:
                continue
            a0, a1 = np.divmod(tried, k)
            offs = offsets[a0][:, None] + (offsets[a1] - offsets[a0])[:, None] * frac[None, :]
            ok = _table_strips(frame_bgr, base[side], normal[side], offs, rims, least)
            if ok.any():
                line[side] = offs[np.nonzero(ok)[0][np.argmax(cand[side, tried[ok]])]]
                moved = True
        if not moved:
            out.append(o)
            continue
        pts = base + normal[:, None, :] * line[..., None]
        pulled = _corners_of_lines(pts[None], np.ones((1, 4, n), np.float32))
        better = _verify(frame_bgr, clockwise(pulled), aspect, min_long, reach=2.0, max_long=max_long,
                         free=PHOTO_CARD, slant=slant)
        if len(better) == 1 and better[0].area < o.area \
                and not corners_on_table(frame_bgr, clockwise(better[0].corners[None])[0]).any():
            better[0].blob = o.blob
            out.append(better[0])
        else:
            out.append(o)
    return out


def _table_strips(frame_bgr: np.ndarray, base: np.ndarray, normal: np.ndarray, offs: np.ndarray,
                  rims: list, least: float) -> np.ndarray:
    """For each line ``offs`` (m, n: px along the outward ``normal`` at the side's points
    ``base``, negative inside), whether it is the card's edge with a strip of the table
    outside it: just inside the line lies the card's rim (either of ``rims``, by
    ``PAPER_CLOSE``), and the strip between the side and the line, at a quarter, half and
    three quarters of its width, is nearer the table beyond the side than the rims and
    unlike them (by more than ``PAPER_CLOSE``), or by more than ``GAP_STEP`` where it is
    at most ``STRIP_TABLE`` as far from the table as from them (a light card on light
    wood); only where the strip is ``least`` px wide at three points or more."""
    wide = -offs >= least                                        # m, n
    enough = wide.sum(axis=1) >= 3

    def colour(at):                                                   # at: m, n
        return sample(frame_bgr, base[None] + normal * at[..., None]).astype(np.float32) @ _TO_YCC.T

    count = np.maximum(wide.sum(axis=1), 1)
    rows = np.arange(len(offs))

    def far(x, y):
        # The median over each line's wide points (np.nanmedian is several times slower).
        d = np.sort(np.where(wide, np.linalg.norm(x - y, axis=-1), np.inf), axis=1)
        return (d[rows, (count - 1) // 2] + d[rows, count // 2]) / 2

    beyond = np.median([colour(np.full((1, offs.shape[1]), d, np.float32)) for d in (3.0, 4.0, 5.0)], axis=0)
    card = np.median([colour(offs - d) for d in (2.0, 3.0)], axis=0)
    ok = enough & (np.min([far(card, r) for r in rims], axis=0) <= PAPER_CLOSE)
    for depth in (0.25, 0.5, 0.75):
        strip = colour(offs * depth)
        to_rim = np.min([far(strip, r) for r in rims], axis=0)
        to_table = far(strip, beyond)
        ok &= ((to_rim > PAPER_CLOSE) & (to_table < to_rim)) | ((to_rim > GAP_STEP) & (to_table <= STRIP_TABLE * to_rim))
    return ok


def _paper_colour(frame_bgr: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The colour (YCrCb, chroma weighted as in ``STEP``) of the card's paper as seen
    inside outline ``q``: the median of its lightest tenth."""
    g = (np.arange(16, dtype=np.float32) + 0.5) / 16
    u, v = np.meshgrid(g, g)
    a, b, c, d = q
    pts = ((1 - u) * (1 - v))[..., None] * a + (u * (1 - v))[..., None] * b \
        + (u * v)[..., None] * c + ((1 - u) * v)[..., None] * d
    col = sample(frame_bgr, pts.reshape(-1, 2)).astype(np.float32) @ _TO_YCC.T
    light = col[col[:, 0] >= np.percentile(col[:, 0], 90)]
    return np.median(light, axis=0)


def _plain_band(frame_bgr: np.ndarray, q: np.ndarray, k: int, d: float, paper=None) -> bool:
    """Whether the band between side ``k`` of outline ``q`` and the same side moved out
    by ``d`` is plain (a card's margin: its colour varies along the side less than the
    table's beyond it does), of the colour of the card's ``paper`` (when given), and at
    least as light as what lies beyond (not a shadow)."""
    inner = clockwise(q[None])
    base, normal, _ = _side_samples(inner, 32, 0.15, 0.85)
    base, normal = base[0, k], normal[0, k]
    # Keep 1.5 px off both edges of the band (blur spreads each edge over a pixel or two).
    offsets = np.linspace(1.5, d - 1.5, 3) if d >= 4 else np.array([d / 2])
    band = np.stack([sample(frame_bgr, base + normal * o) for o in offsets]).astype(np.float32) @ _TO_YCC.T
    beyond = np.stack([sample(frame_bgr, base + normal * (d + o)) for o in (3.0, 5.0, 7.0)]).astype(np.float32) \
        @ _TO_YCC.T
    spread_in = float(np.median(np.sqrt(band.var(axis=1).sum(-1))))
    spread_out = float(np.median(np.sqrt(beyond.var(axis=1).sum(-1))))
    plain = spread_in <= max(GAP_TEXTURE, GAP_RATIO * spread_out)
    # The margin is not the table: their colours differ (a plank's grain line with the same
    # wood on both sides is no card's edge).
    apart = float(np.linalg.norm(np.median(band.reshape(-1, 3), axis=0) - np.median(beyond.reshape(-1, 3), axis=0)))
    mine = paper is None or float(np.linalg.norm(np.median(band.reshape(-1, 3), axis=0) - paper)) <= PAPER_CLOSE
    return plain and mine and apart >= GAP_STEP \
        and float(np.median(band[..., 0])) >= float(np.median(beyond[..., 0])) - 10.0


REGION_SIGMA = 2.0
"""Reach (work px, Gaussian sigma) of the local colour and texture the region finder compares."""
REGION_LEVELS = (3.0, 4.5, 6.5, 9.0)
"""Distances from the photo's dominant surface (robust z-scores) at which regions are cut."""
REGION_GROWTH = (1.0, 1.04, 1.08, 1.12, 1.16)
"""Scales at which a region's quadrilateral is tried (its rim lies a little inside the card)."""


def _surface_distance(frame_bgr: np.ndarray, scale: float) -> tuple:
    """How unlike the photo's dominant surface each work pixel is: local colour (CIELAB,
    blurred) and local texture (the spread of lightness), each as a robust z-score
    against the whole photo (its median and spread: the table is most of a photo); and
    how smooth each pixel is against the surface (its local spread over the photo's median)."""
    h, w = frame_bgr.shape[:2]
    work = frame_bgr if scale == 1.0 else cv2.resize(
        frame_bgr, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(work, cv2.COLOR_BGR2Lab).astype(np.float32)
    mean = cv2.GaussianBlur(lab, (0, 0), REGION_SIGMA)
    sq = cv2.GaussianBlur(lab[:, :, 0] * lab[:, :, 0], (0, 0), REGION_SIGMA)
    spread = np.sqrt(np.maximum(sq - mean[:, :, 0] ** 2, 0.0))
    feats = np.dstack([mean, spread])
    sub = feats[::4, ::4].reshape(-1, 4)
    med = np.median(sub, axis=0)
    mad = np.median(np.abs(sub - med), axis=0) * 1.4826
    mad = np.maximum(mad, np.array([2.0, 1.5, 1.5, 1.0], np.float32))
    l1 = cv2.GaussianBlur(lab[:, :, 0], (0, 0), 1.0)
    fine = np.sqrt(np.maximum(cv2.GaussianBlur(lab[:, :, 0] ** 2, (0, 0), 1.0) - l1 ** 2, 0.0))
    smooth = fine / max(float(np.median(fine[::4, ::4])), 1e-3)
    return np.sqrt((((feats - med) / mad) ** 2).sum(axis=2)), smooth


SMOOTH_LEVELS = (0.25, 0.4)
"""On a busy surface, a card's paper is smoother than nearly all of it: regions whose fine
spread of lightness is below these fractions of the photo's median are looked at too."""


def mask_quads(masks, kernel, min_area: float, scale: float, boxes: bool = False, rects: bool = False) -> list:
    """Four-cornered outlines (frame coordinates: a mask's over ``scale``) of the solid
    shapes of each mask: closed, holes filled, thin bits opened away; shapes smaller than
    ``min_area`` or touching the mask's edge are left out. ``boxes``: a shape whose hull
    is no quadrilateral (a card with a bump of the table's beside a corner) gives its
    least rectangle; ``rects``: every shape gives its least rectangle."""
    rough = []
    for m in masks:
        eh, ew = m.shape
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        m[:] = 0
        cv2.drawContours(m, cs, -1, 1, -1)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel)
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in cs:
            cx, cy, cw, ch = cv2.boundingRect(c)
            if cw * ch < min_area or cx <= 0 or cy <= 0 or cx + cw >= ew or cy + ch >= eh:
                continue
            q = None if rects else _hull_quad(cv2.convexHull(c), c)
            if q is None and (boxes or rects):
                q = cv2.boxPoints(cv2.minAreaRect(c)).astype(np.float32)
            if q is not None:
                rough.append(q / scale)
    return rough


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


def region_outlines(frame_bgr, scale, aspect, min_long, max_long=np.inf, mask=None, slant=0.0) -> list:
    """Outlines of card-sized regions unlike the photo's dominant surface (see
    ``_surface_distance``), cut at several distances, each checked as any other outline."""
    dist, smooth = _surface_distance(frame_bgr, scale)
    eh, ew = dist.shape
    if mask is not None:
        dist = dist * (cv2.resize(mask, (ew, eh), interpolation=cv2.INTER_NEAREST) > 0)
    min_area = (min_long * scale) ** 2 * 0.4
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    k3 = np.ones((3, 3), np.uint8)
    masks = [(dist > level).astype(np.uint8) for level in REGION_LEVELS]
    if float(np.median(smooth)) > 0 and mask is None:
        masks += [cv2.morphologyEx((smooth < level).astype(np.uint8), cv2.MORPH_OPEN, k3) for level in SMOOTH_LEVELS]
    rough = mask_quads(masks, k, min_area, scale)
    if not rough:
        return []
    quads = clockwise(np.stack(rough).astype(np.float32))
    ratio, long_side, _ = quad_shape(quads)
    quads = quads[(ratio > 0.45) & (long_side >= min_long) & (long_side <= max_long * 1.1)]
    if len(quads) == 0:
        return []
    quads = quads[_suppress(quads, -quad_shape(quads)[1])]
    # A region's rim lies a little inside the card (its local measures blur the card's
    # edge into the table's): it is also tried a little larger, each side refined to the
    # step nearby.
    centre = quads.mean(axis=1, keepdims=True)
    quads = np.concatenate([centre + (quads - centre) * f for f in REGION_GROWTH])
    return _verify(frame_bgr, quads, aspect, min_long, reach=float(np.clip(2.0 / scale, 3, 8)), max_long=max_long,
                   free=PHOTO_CARD, slant=slant)

