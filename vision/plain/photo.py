"""Single photos (no learnt table): outlines grown out to the card's edge or pulled in off the table, and regions unlike the photo's surface proposed as outlines."""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

from vision.plain.outline import (_TO_YCC, grid_inside, MIN_LONG_SIDE, MIN_SUPPORT, PHOTO_CARD, _corners_of_lines,
                                  _crossings, _hull_quad, _side_samples, _suppress, _verify, clockwise, line_scores, quad_shape,
                                  sample, side_support, step_profiles)

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
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, slant: float = 0.0,
                  reach: float = GROW_MAX, margin: bool = True) -> list:
    """Outlines that were a card's picture frame replaced by the card's own edge: each
    side is moved outward (up to ``reach`` of the outline's short side) to the first
    straight step beyond a plain band (the card's margin), and the grown outline must pass
    the finder's checks (shape, steps under every side). Outlines with no such edge around
    them are kept as they were. ``margin=False``: the band crossed need not be plain (a
    court's frame with the index beside it, for a refused outline read again only)."""
    out = []
    for o in outlines:
        q = o.corners.astype(np.float32)
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        short = float(min(sides))
        lo, hi = max(2, int(GROW_MIN * short)), int(reach * short)
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
        if not moved.any() or (margin and not all(_plain_band(frame_bgr, q, k, d[k], paper)
                                                  for k in np.nonzero(moved)[0])):
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


RIM_SIDES = 2
"""Sides of an outline along which the card's rim must be seen (a quarter of a side's
samples unlike the table) when a side is moved in (:func:`pulled_in`): a grout line
inside one side, found along its far edge, is unlike the table too, but lies along that
side alone."""


def _rim_colour(colour: np.ndarray, base: np.ndarray, normal: np.ndarray, depths,
                table: np.ndarray, sides: int = 1) -> Optional[np.ndarray]:
    """The card's rim colour (YCrCb, chroma weighted as in ``STEP``) ``depths`` px inside
    an outline's sides (``base`` (4, n, 2) points along them, ``normal`` (4, 2) outward):
    the median of the samples there unlike the ``table`` (by more than ``PAPER_CLOSE``: a
    strip of the table inside a side is left out), or None where fewer than a quarter
    are (a card the table's colour) or they lie along fewer than ``sides`` sides."""
    pts = base[:, :, None, :] - normal[:, None, None, :] * np.float32(depths)[None, None, :, None]
    got = (sample(colour, pts).astype(np.float32) @ _TO_YCC.T).reshape(4, -1, 3)
    unlike = np.linalg.norm(got - table, axis=-1) > PAPER_CLOSE
    if unlike.sum() < unlike.size / 4 or int((unlike.mean(axis=1) >= 0.25).sum()) < sides:
        return None
    return np.median(got[unlike], axis=0)


def _rims(colour: np.ndarray, q: np.ndarray, short: float, sides: int = 1) -> list:
    """The card's rim colours (:func:`_rim_colour`, seen along ``sides`` sides at least)
    just inside the sides of outline ``q`` and as deep inside them as a corner is looked
    inside (``CORNER_IN``; a card's edge may be printed as a dark line, its margin inside
    it light), those that are found."""
    base, normal, _ = _side_samples(q[None], 20, 0.05, 0.95)
    base, normal = base[0], normal[0]
    pts = base[:, :, None, :] + normal[:, None, None, :] * np.float32([3.0, 4.0, 5.0])[None, None, :, None]
    table = np.median((sample(colour, pts).astype(np.float32) @ _TO_YCC.T).reshape(-1, 3), axis=0)
    rims = [_rim_colour(colour, base, normal, [2.0], table, sides),
            _rim_colour(colour, base, normal, [d * short for d in CORNER_IN], table, sides)]
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
    card's rim (as :func:`pulled_in` looks for it) just inside it and a strip of the table
    outside it (:func:`_table_strips`).
    The pulled outline must pass the finder's checks and have no corner on the table;
    other outlines are kept as they were. The mirror of :func:`grow_outlines`."""
    out = []
    for o in outlines:
        q = clockwise(o.corners.astype(np.float32)[None])
        astray = corners_on_table(frame_bgr, q[0])
        if not astray.any():
            out.append(o)
            continue
        # Side k runs from corner k to corner k + 1: the sides that meet a corner on the table.
        sides = np.nonzero(astray | np.roll(astray, -1))[0]
        # The card's rim as ``pulled_in`` looks for it (seen along two sides at least): a
        # grout line inside one side is no rim, though a corner is judged against it.
        pulled = pulled_in(frame_bgr, o, sides, aspect, min_long, max_long, slant)
        if pulled is not None and not corners_on_table(frame_bgr, clockwise(pulled.corners[None])[0]).any():
            out.append(pulled)
        else:
            out.append(o)
    return out


def pulled_in(frame_bgr: np.ndarray, o, sides, aspect: Optional[float] = None,
              min_long: float = MIN_LONG_SIDE, max_long: float = np.inf, slant: float = 0.0):
    """Outline ``o`` with each of its ``sides`` (indices into its clockwise corners, side
    k running from corner k to k + 1) moved in to the card's edge, as
    :func:`pull_in_outlines` moves them; None when no side moved or the outline so made
    fails the finder's checks or is no smaller. The card's rim is judged by the rim
    colours seen along ``RIM_SIDES`` sides (:func:`_rims`), or where none is (a card
    nearly the table's colour), by the card's paper seen inside the outline
    (:func:`_paper_colour`)."""
    q = clockwise(o.corners.astype(np.float32)[None])
    short = float(np.hypot(*(np.roll(q[0], -1, axis=0) - q[0]).T).min())
    rims = _rims(frame_bgr, q[0], short, RIM_SIDES) or [_paper_colour(frame_bgr, q[0])]
    reach = int(PULL_MAX * short)
    least = max(3.0, PULL_LEAST * short)
    if reach < least + 1:
        return None
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
        return None
    pts = base + normal[:, None, :] * line[..., None]
    corners = _corners_of_lines(pts[None], np.ones((1, 4, n), np.float32))
    better = _verify(frame_bgr, clockwise(corners), aspect, min_long, reach=2.0, max_long=max_long,
                     free=PHOTO_CARD, slant=slant)
    if len(better) == 1 and better[0].area < o.area:
        better[0].blob = o.blob
        return better[0]
    return None


ON_THE_SIDE = (-2.0, -1.0, 0.0)
"""Px from an outline's side (negative inside) at which the table is also looked at when a
strip inside the side is judged the table's (``_table_strips``): a side found along a grout
line's far edge has the line's colour there."""


def _table_strips(frame_bgr: np.ndarray, base: np.ndarray, normal: np.ndarray, offs: np.ndarray,
                  rims: list, least: float) -> np.ndarray:
    """For each line ``offs`` (m, n: px along the outward ``normal`` at the side's points
    ``base``, negative inside), whether it is the card's edge with a strip of the table
    outside it: just inside the line lies the card's rim (either of ``rims``, by
    ``PAPER_CLOSE``), and the strip between the side and the line, at a quarter, half and
    three quarters of its width, is nearer the table (just beyond the side, or on the side
    itself: ``ON_THE_SIDE``) than the rims and unlike them (by more than ``PAPER_CLOSE``),
    or by more than ``GAP_STEP`` where it is at most ``STRIP_TABLE`` as far from the table
    as from them (a light card on light wood); only where the strip is ``least`` px wide at
    three points or more."""
    wide = -offs >= least                                        # m, n
    enough = wide.sum(axis=1) >= 3

    def colour(at):                                                   # at: m, n
        return sample(frame_bgr, base[None] + normal * at[..., None]).astype(np.float32) @ _TO_YCC.T

    count = np.maximum(wide.sum(axis=1), 1)

    def far(x, y, at):
        # The median over each line's wide points (np.nanmedian is several times slower),
        # for the lines ``at``.
        d = np.sort(np.where(wide[at], np.linalg.norm(x - y, axis=-1), np.inf), axis=1)
        rows = np.arange(len(at))
        return (d[rows, (count[at] - 1) // 2] + d[rows, count[at] // 2]) / 2

    every = np.arange(len(offs))
    # The table just beyond the side, and the line the side lies on: a side found along a
    # grout line's far edge has the line inside it, then the stone, as the table.
    beyond = [np.median([colour(np.full((1, offs.shape[1]), d, np.float32)) for d in ds], axis=0)
              for ds in ((3.0, 4.0, 5.0), ON_THE_SIDE)]
    card = np.median([colour(offs - d) for d in (2.0, 3.0)], axis=0)
    ok = enough & (np.min([far(card, r, every) for r in rims], axis=0) <= PAPER_CLOSE)
    for depth in (0.25, 0.5, 0.75):
        # Only the lines still in the running are looked at (each line is judged alone).
        at = np.nonzero(ok)[0]
        if len(at) == 0:
            break
        strip = colour(offs[at] * depth)
        to_rim = np.min([far(strip, r, at) for r in rims], axis=0)
        to_table = np.min([far(strip, b, at) for b in beyond], axis=0)
        ok[at] &= ((to_rim > PAPER_CLOSE) & (to_table < to_rim)) | ((to_rim > GAP_STEP) & (to_table <= STRIP_TABLE * to_rim))
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


RING_TEXTURE = 0.7
"""An outline around another outline took in the table beside the card when the ring
between the two holds edges this densely or more, against the table just around it
(tuning photos on carpets: such rings 0.86-1.04 times the table's density; a card's margin
with its corner index between its edge and its picture frame 0.09-0.6)."""
RING_TEXTURE_MOST = 1.4
"""...and no more densely than this times the table: a ring busier than the table around
it holds the card's own print (a pale deck's index and pips in its margin on light stone,
whose few veins leave the table's density at 0.05-0.07: tuning photos' margins 1.2-2.7
times it, 15 of 24 cards of one deck taken as strips of the table before)."""
RING_SHARE = 0.1
"""...and the ring is at least this share of the outer outline's area (a ring of a few
pixels along a side, or only the index, says nothing of its texture)."""
RING_LIKE = 0.5
"""...and shares this much of its colours with the table just around (the intersection of
their Lab histograms, as ``calibration.TABLE_LIKE``)."""
BUSY_AROUND = 0.05
"""...on a table whose edges cover at least this share of it just around the outline (on
a plain table no ring holds the table's texture, and none is dropped)."""


def _fill(shape, q: np.ndarray, scale: float = 1.0) -> np.ndarray:
    centre = q.mean(axis=0)
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(centre + (q - centre) * scale).astype(np.int32), 1)
    return mask


def _ring_as_table(frame_bgr: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> tuple:
    """How much the ring between quadrilateral ``outer`` and ``inner`` (lying within it),
    3 px off both, looks like the table just around ``outer``: ``(the ring's density of
    edges over the table's, the share of colours they have in common (the intersection of
    their Lab histograms), the table's density of edges, the ring's share of outer's
    area)``."""
    x, y, w, h = cv2.boundingRect(np.round(outer).astype(np.int32))
    pad = int(0.3 * max(w, h)) + 8
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(frame_bgr.shape[1], x + w + pad), min(frame_bgr.shape[0], y + h + pad)
    grey = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(grey, (0, 0), 1.0), 30, 60) > 0
    off = np.float32([x0, y0])
    o, i = np.asarray(outer, np.float32) - off, np.asarray(inner, np.float32) - off
    # 3 px off both outlines: their own edges are no texture.
    kernel = np.ones((7, 7), np.uint8)
    whole = _fill(grey.shape, o)
    ring = cv2.erode(whole, kernel) & (1 - cv2.dilate(_fill(grey.shape, i), kernel))
    around = _fill(grey.shape, o, 1.4) & (1 - cv2.dilate(whole, kernel))
    if not ring.any() or not around.any():
        return 0.0, 0.0, 0.0, 0.0
    table = float(edges[around > 0].mean())
    lab = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2Lab)

    def hist(mask):
        return cv2.normalize(cv2.calcHist([lab], [0, 1, 2], mask, [8, 8, 8], [0, 256] * 3), None, 1.0, 0.0,
                             cv2.NORM_L1)

    return (float(edges[ring > 0].mean()) / max(table, 1e-6), float(cv2.compareHist(hist(ring), hist(around), cv2.HISTCMP_INTERSECT)),
            table, float(ring.sum()) / max(float(whole.sum()), 1.0))


def _as_the_table(texture: float, like: float, table: float) -> bool:
    # A band of a busy table: as full of edges as the table around and of its colours.
    return table >= BUSY_AROUND and RING_TEXTURE <= texture <= RING_TEXTURE_MOST and like >= RING_LIKE


def took_in_the_table(frame_bgr: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> bool:
    """Whether outline ``outer`` (corners, frame pixels), lying around outline ``inner``,
    is the inner card with a stretch of a busy table beside it: the ring between the two
    has the table's texture (edges as dense as just around ``outer``), where a card's
    margin around its picture frame is plain paper, and the table's colours, where half a
    card's picture around the other half taken for a card has the picture's.

    On a carpet, a corner of the card and the fibres beyond it can make a card-shaped
    outline half as long again as the card, which would be taken for the card (the
    outermost outline is a card, those inside it its picture frame)."""
    texture, like, table, share = _ring_as_table(frame_bgr, outer, inner)
    return share >= RING_SHARE and _as_the_table(texture, like, table)


STRIP_DEPTH = 0.15
"""How deep (a fraction of the card's short side) the band along each side of a lone
card's outline is that ``strip_of_the_table`` looks at."""


def strip_of_the_table(frame_bgr: np.ndarray, corners: np.ndarray) -> list:
    """The sides (k: from corner k of the clockwise ``corners`` to corner k + 1) whose
    band (``STRIP_DEPTH`` deep) has the busy table's texture and colours, as
    ``took_in_the_table`` judges a ring: the outline took in a strip of the table beside
    the card there (a row of a gingham's checks whose line was a stronger step than the
    card's own edge on a check of its paper's colour).

    >>> card = np.float32([[100, 100], [163, 100], [163, 189], [100, 189]])
    >>> strip_of_the_table(np.full((300, 300, 3), 90, np.uint8), card)   # a plain table
    []
    """
    sides = []
    q = clockwise(np.asarray(corners, np.float32)[None])[0]
    short = min(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1])))
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        inward = (q[(k + 2) % 4] + q[(k + 3) % 4]) / 2 - (a + b) / 2
        inward *= STRIP_DEPTH * short / max(float(np.linalg.norm(inward)), 1e-6)
        inner = q.copy()
        inner[k], inner[(k + 1) % 4] = a + inward, b + inward
        texture, like, table, _ = _ring_as_table(frame_bgr, q, inner)
        if _as_the_table(texture, like, table):
            sides.append(k)
    return sides


def around_the_table(frame_bgr: np.ndarray, outlines: list) -> list:
    """For each of ``outlines``, whether it took in the table beside a card lying inside
    it (``took_in_the_table`` of it and one of the outlines its ``inside`` names)."""
    return [bool(o.inside) and any(took_in_the_table(frame_bgr, o.corners, outlines[j].corners) for j in o.inside)
            for o in outlines]


RUN_ON = (0.06, 0.3)
"""Stretch (fractions of a side's length) beyond each end of an outline's side that
``on_the_tables_lines`` looks along: past the corner, clear of the corner's rounding."""
RUN_ON_SHARE = 0.6
"""Least share of a quadrilateral's side ends (two a side) in view beyond which its side
runs on along a step (``MIN_SUPPORT`` of the stretch) for it to be a shape drawn by the
table's own lines: a tile between grout lines, which run on past each of its corners,
and which a phone held at a slant foreshortens to a card's shape and size. A card's
sides end at its corners. (Tuning photos: tiles of a marble floor, photo run 1123's table
that counts as tuning data, 5-8 of 8; cards alone on the tools' carpets, wood grain, sisal
and terrazzo, 288 photos, 0-3. A card laid along a grout line would run on past two ends,
one in a tile's corner past four.)"""
RUN_ON_LEAST = 4
"""Least number of such ends, however few are in view (an end whose stretch runs out of
the photo is not looked at)."""


def _run_on_ends(frame_bgr: np.ndarray, quads: np.ndarray) -> tuple:
    """For clockwise quadrilaterals (N, 4, 2): whether each side runs on past each of its
    ends (N, 4, 2: past corner k + 1, before corner k) along a step as ``side_support``
    judges a side's (over ``MIN_SUPPORT`` of ``RUN_ON``), and whether that stretch lies in
    view (N, 4, 2)."""
    # Clear of the frame's edge by the farthest offset ``side_support`` samples (7 px).
    far = np.array([frame_bgr.shape[1], frame_bgr.shape[0]], np.float32) - 8
    on, seen = [], []
    for lo, hi in ((1 + RUN_ON[0], 1 + RUN_ON[1]), (-RUN_ON[1], -RUN_ON[0])):
        frac, _ = side_support(frame_bgr, quads, 16, per_side=True, lo=lo, hi=hi)
        base = _side_samples(quads, 16, lo, hi)[0]
        in_view = ((base >= 7) & (base <= far)).all(axis=(2, 3))                     # (N, 4)
        on.append((frac >= MIN_SUPPORT) & in_view)
        seen.append(in_view)
    return np.stack(on, axis=-1), np.stack(seen, axis=-1)


def on_the_tables_lines(frame_bgr: np.ndarray, quads) -> np.ndarray:
    """Per quadrilateral (N, 4, 2), whether its sides run on past their ends along a step
    as strong as a card's edge (the finder's ``STEP`` and ``PEAK``), beyond
    ``RUN_ON_SHARE`` of the ends in view and at least ``RUN_ON_LEAST``: a shape drawn by
    the table's own lines (tiles, boards), no card.

    >>> floor = np.full((300, 400, 3), 200, np.uint8)
    >>> floor[::100], floor[:, ::100] = 60, 60                    # tiles of 100 px
    >>> tile = np.float32([[[101, 101], [199, 101], [199, 199], [101, 199]]])
    >>> card = np.float32([[[120, 110], [180, 110], [180, 190], [120, 190]]])
    >>> on_the_tables_lines(floor, np.concatenate([tile, card])).tolist()
    [True, False]
    """
    quads = clockwise(np.asarray(quads, np.float32).reshape(-1, 4, 2))
    if not len(quads):
        return np.zeros(0, bool)
    on, seen = _run_on_ends(frame_bgr, quads)
    return on.sum(axis=(1, 2)) >= np.maximum(RUN_ON_LEAST, np.ceil(RUN_ON_SHARE * seen.sum(axis=(1, 2))))


def along_the_tables_lines(frame_bgr: np.ndarray, corners) -> list:
    """The sides (k: from corner k of the clockwise ``corners`` to corner k + 1) that run
    on past both their ends, as :func:`on_the_tables_lines` judges an end: a line of the
    table (a grout line, a plank's seam) that a side of a card's outline was found along,
    past the card's corner, so that the outline took in a wedge of the table.

    >>> floor = np.full((300, 400, 3), 200, np.uint8)
    >>> floor[::100] = 60                                         # boards of 100 px
    >>> along_the_tables_lines(floor, np.float32([[120, 100], [180, 100], [180, 190], [120, 190]]))
    [0]
    """
    q = clockwise(np.asarray(corners, np.float32).reshape(1, 4, 2))
    on, _ = _run_on_ends(frame_bgr, q)
    return [int(k) for k in np.nonzero(on[0].all(axis=1))[0]]


ALONE_LIKE = 0.6
"""In a photo of one card lying alone (a calibration photo), a card-shaped outline whose
inside shares this much of its colours with the rest of the photo or more
(``shared_colours``) is a piece of the table, dropped before it is grown or
pulled in: a checked or tartan cloth's squares make thousands of card-shaped outlines,
each costing milliseconds. On the tools' gingham, plaid and stripes (36 tuning
photos, 103,281 outlines): outlines within 20 px of the card's corners 0.0-0.29, those
20-60 px off (a card with a square of the cloth beside it, still to be pulled in) up to
0.50, the rest a median of 0.77; 18% of the outlines are left at 0.6."""


def shared_colours(frame_bgr: np.ndarray, quads) -> np.ndarray:
    """Per quadrilateral (N, 4, 2), the share of colours its inside has in common with
    the rest of the photo, as ``calibration.table_likeness`` measures it (the
    intersection of Lab histograms, 8 bins a channel, of the photo at 480 px wide) but
    from a grid of 140 points inside it, so that thousands of outlines cost a fraction of
    a second: 0 for colours seen nowhere else, 1 for the table's own mix.

    >>> flat = np.full((240, 320, 3), 200, np.uint8)
    >>> quad = np.float32([[[100, 60], [160, 60], [160, 150], [100, 150]]])
    >>> round(float(shared_colours(flat, quad)[0]), 3)
    1.0
    >>> flat[60:150, 100:160] = (40, 40, 220)      # a red card on a grey table
    >>> round(float(shared_colours(flat, quad)[0]), 3)
    0.0
    """
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if not len(quads):
        return np.zeros(0)
    scale = min(1.0, 480 / frame_bgr.shape[1])
    work = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame_bgr
    lab = cv2.cvtColor(work, cv2.COLOR_BGR2Lab)
    bins = ((lab[..., 0] >> 5).astype(np.int32) * 64 + (lab[..., 1] >> 5).astype(np.int32) * 8
            + (lab[..., 2] >> 5).astype(np.int32)).ravel()
    whole = np.bincount(bins, minlength=512).astype(np.float64)
    h, w = work.shape[:2]
    q = quads * scale
    points = grid_inside(q, 10, 14, 0.05, shrink=0.9)      # clear of the outline's own edge
    x = np.clip(np.round(points[..., 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(points[..., 1]).astype(np.int64), 0, h - 1)
    at = bins[y * w + x]
    n, m = at.shape
    area = 0.5 * np.abs(np.sum(q[:, :, 0] * np.roll(q[:, :, 1], -1, 1) - np.roll(q[:, :, 0], -1, 1) * q[:, :, 1], axis=1))
    shared = np.empty(n)
    for start in range(0, n, 1024):          # a block at a time: (block, 512) histograms
        part = at[start:start + 1024]
        k = len(part)
        inside = np.bincount((np.arange(k)[:, None] * 512 + part).ravel(), minlength=k * 512).reshape(k, 512) / m
        # The rest of the photo: the whole photo less the outline's own pixels (as sampled).
        rest = np.maximum(whole[None] - inside * area[start:start + k, None], 0.0)
        rest /= np.maximum(rest.sum(axis=1, keepdims=True), 1e-9)
        shared[start:start + k] = np.minimum(inside, rest).sum(axis=1)
    return shared
