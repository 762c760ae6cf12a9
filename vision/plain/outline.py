"""The finder's core: the ``Outline``, edges and their straight pieces, corners and the candidates they give, quadrilaterals' geometry, the steps along a side, ``refine`` and ``_verify``."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
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
ANY_CARD = (0.55, 0.82)
"""Width/height of the outlines looked for while the deck's own is not known."""
PHOTO_CARD = (0.55, 0.88)
"""The same in a single photo: a phone held at a slant (up to 30 degrees) foreshortens a card
lying across the slant from 0.71 to about 0.83."""
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


def side_support(colour: np.ndarray, quads: np.ndarray, n: int = 32, veto=None, per_side: bool = False,
                 lo: float = 0.1, hi: float = 0.9) -> tuple:
    """Per quadrilateral, the least fraction over its sides (``per_side``: each side's
    fraction, (Q, 4)) of points (from ``lo`` to ``hi`` of the way along it) where the side
    lies on a step: at least ``STEP`` within a pixel of the side, and at least ``PEAK``
    times the steps 3-7 px outside it (so that a noisy cloth or wood grain does not pass
    for an edge); and the median step. Points on the empty table's own edges (``veto``:
    a card laid along a mat line) count neither way, if at least ``MIN_SEEN`` of the
    side is elsewhere. With the empty table's picture (``veto``'s third part), a point
    also lies on the side where the table shows as it was just outside and is hidden
    just inside (``_hides_the_table``), and a point on the table's own edges is judged
    by that alone."""
    offsets = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 4.0, 5.0, 6.0, 7.0], np.float32)
    base, normal, _, st = step_profiles(colour, quads, offsets, n, lo, hi, veto=veto)
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


def _table_veto(table, table_edges: np.ndarray, scale: float) -> tuple:
    """The ``veto`` of ``side_support`` from the empty table's own edges still seen in a
    frame (``TableModel.table_edges``, work size): steps on (or within two pixels of)
    them are the table's, and neither make nor verify a card's side."""
    return (cv2.dilate(table_edges, np.ones((3, 3), np.uint8)).astype(np.float32) / 255.0, scale,
            table.mean if _has_picture(table) and table.mean.shape[:2] == table_edges.shape else None)


def _has_picture(table) -> bool:
    """Whether the table model keeps the empty table's picture (a ``TableModel``), not
    only its edges (a calibration's second look at a crop)."""
    return getattr(table, "mean", None) is not None


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


def photo_aspects(aspect: Optional[float]) -> list:
    """The proportions (width/height) at which a corner is completed to a card in a single
    photo: the deck's and the deck's foreshortened either way by ``PHOTO_SLANT``; without
    the deck's, those looked for live and a card foreshortened across the slant (0.8, up to
    ``PHOTO_CARD``'s 0.88 with the candidates' tolerance). The refinement moves a side only a
    few pixels, so a corner completed at the wrong proportions misses a large card's far side."""
    if aspect:
        return [aspect, aspect / PHOTO_SLANT, min(aspect * PHOTO_SLANT, PHOTO_CARD[1])]
    return [0.64, 0.71, 0.8]


def _start_top_left(q: np.ndarray) -> np.ndarray:
    k = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -k, axis=0)


def grid_inside(quads: np.ndarray, across: int, along: int, margin: float, shrink: float = 1.0) -> np.ndarray:
    """(N, across * along, 2) points of a grid inside each quadrilateral (N, 4, 2): from
    ``margin`` to 1 - ``margin`` of the way along each pair of sides (bilinear between the
    corners), the quadrilateral first shrunk about its centre by ``shrink``.

    >>> grid_inside(np.float32([[[0, 0], [10, 0], [10, 20], [0, 20]]]), 2, 2, 0.0).tolist()
    [[[0.0, 0.0], [10.0, 0.0], [0.0, 20.0], [10.0, 20.0]]]
    """
    u, v = [a.ravel() for a in np.meshgrid(np.linspace(margin, 1 - margin, across),
                                           np.linspace(margin, 1 - margin, along))]
    weights = np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v], axis=1)
    centre = quads.mean(axis=1, keepdims=True)
    return np.einsum("mk,nkd->nmd", weights, centre + (quads - centre) * shrink)


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
