"""Outlines seated on the card's paper against the learnt empty table: sides moved out to where the card's rim ends (``seat_on_paper``), or grown to the card's edge (``grow_to_table``)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from vision.plain.outline import (_NEXT, _PREV, _TO_YCC, ANY_CARD, MAX_SKEW, MIN_LONG_SIDE, STEP, Outline, _crossings,
                                  _has_picture, _median, _overlap, _sample_xy, _side_samples, _start_top_left, _verify,
                                  clockwise, quad_shape, refine, sample, step_profiles)

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
