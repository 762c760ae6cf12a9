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
   or a hand; in a single photo, a blob whose tier-1 outline is a shape drawn by the
   table's own lines, a block of tiles joined by the grout to a card lying across it):
   the edges are cut into straight pieces; two pieces meeting at about a
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
   sides are steps the empty table has too is the table's (a box printed on the mat); on a
   busy table, so is an outline inside which the table's pattern is still seen (``table_seen``).
   Then each side is seated on the card's paper (``seat_on_paper``): moved outward to
   where the card's light rim ends, when the strongest step was its print's edge.
   Overlapping outlines are one card (``_merge``).
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

This module runs the stages (``find_outlines``, with tiers 1 and 2; ``faint_outlines``, the
look again with faint edges and at places no outline explains; the table's own shapes,
``table_own``) and keeps its results' nesting (``top_level``, ``kept``). The stages' own
code lies in modules of their own:

- ``vision.plain.outline``: the ``Outline``; edges and their straight pieces (1, 3),
  corners and the candidates they give (3), the quadrilaterals' geometry, the steps along
  a side, ``refine`` (4) and ``_verify`` (5), with the constants they use;
- ``vision.plain.seat``: an outline seated on the card's paper (``seat_on_paper``, 5) or
  grown to the card's edge (``grow_to_table``), against the learnt empty table;
- ``vision.plain.merge``: overlapping outlines made one card (``_merge``, 5);
- ``vision.plain.photo``: single photos (6);
- ``vision.plain.change``: places no outline explains (7).

>>> import numpy as np
>>> find_outlines(np.zeros((120, 160, 3), np.uint8), aspect=0.7)
[]
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import cv2
import numpy as np

from vision.plain.change import change_outlines
from vision.plain.merge import _merge
from vision.plain.outline import (ANY_CARD, CANNY_HIGH, CANNY_LOW, FAINT_CANNY, MIN_LONG_SIDE, MIN_SEGMENT, PHOTO_CARD,
                                  STEP, WORK_WIDTH, _has_picture, _hull_quad, _inside_convex, _overlap, _suppress,
                                  _table_veto, _verify, candidates, clockwise, connected_blobs, corners_of, edge_map,
                                  grid_inside, partner_lengths,
                                  photo_aspects, quad_shape, quick_support, segments, step_profiles)
from vision.plain.photo import (ALONE_LIKE, around_the_table, grow_outlines, on_the_tables_lines, pull_in_outlines,
                                region_outlines, shared_colours)
from vision.plain.seat import seat_on_paper

TABLE_OWN = 0.6
"""With the learnt table: an outline three of whose sides lie, for at least this share
of their length, on steps the empty table has too (at least 0.3 as strong: its
picture is kept at up to 640 px wide, where a thin line is fainter), is the
table's own (a box printed on the mat whose faint lines the table's edge map missed),
not a card."""
OPEN_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))


def find_outlines(frame_bgr: np.ndarray, aspect: Optional[float] = None, sizes=(),
                  mask: Optional[np.ndarray] = None, stats: Optional[dict] = None,
                  min_long: float = MIN_LONG_SIDE, max_long: float = np.inf,
                  table=None, faint: bool = False, slant: float = 0.0, work_width: int = WORK_WIDTH,
                  edge_maps: Optional[tuple] = None, lenient: bool = False, alone: bool = False) -> list:
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
    other cards' shape and size, and read back). ``alone``: a photo of one card lying
    alone on the table (a calibration photo): outlines that share most of their colours
    with the rest of the photo (``photo.ALONE_LIKE``: a checked cloth's squares) are
    dropped before they are grown or pulled in."""
    h, w = frame_bgr.shape[:2]
    lenient = lenient and table is None
    scale = min(1.0, work_width / w)
    edges, chroma = edge_maps if edge_maps is not None else \
        edge_map(frame_bgr, scale, FAINT_CANNY if faint else (CANNY_LOW, CANNY_HIGH))
    eh, ew = edges.shape
    both = edges | cv2.resize(chroma, (ew, eh), interpolation=cv2.INTER_NEAREST)
    both_all = both.copy()
    veto = None
    # On a busy table, candidates that show the table's pattern inside are dropped before
    # they are verified (``table_seen``): a tartan gives hundreds.
    pattern = table.mean if table is not None and getattr(table, "busy", False) and _has_picture(table) else None
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
    if table is None and outlines:
        # In a single photo, a shape drawn by the table's own lines (tiles between grout
        # lines, whose network of edges joins a card lying across them into one blob)
        # does not make its blob one clean card: the card is looked for by its corners.
        lines = on_the_tables_lines(frame_bgr, [o.corners for o in outlines])
        unsolved |= {o.blob for o, drawn in zip(outlines, lines) if drawn}
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
                                   far_corners=far_corners, lenient=lenient, pattern=pattern)
    if veto is not None and outlines and _has_picture(table):
        outlines = _not_the_tables(outlines, colour, table)
        outlines = seat_on_paper(colour, outlines, table, aspect, min_long, max_long)
    if table is None:
        outlines += region_outlines(frame_bgr, scale, aspect, min_long, max_long, mask, slant=slant)
    if table is None and outlines and alone:
        outlines = kept(outlines, shared_colours(frame_bgr, np.stack([o.corners for o in outlines])) < ALONE_LIKE)
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
    if table is None:
        merged = _merge(outlines, frame_bgr)
        drop = around_the_table(frame_bgr, merged)
        return kept(merged, [not d for d in drop]) if any(drop) else merged
    return _merge(outlines, None)


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


def _not_the_tables(outlines: list, colour: np.ndarray, table) -> list:
    """The outlines that are not the empty table's own shapes (see ``TABLE_OWN``): each
    side's steps in the frame are compared with the steps at the same places in the
    learnt table's picture. A card hides the table under it, so at most the sides that
    lie along the table's lines are shared; a box printed on the mat shares all four.
    (The table's edge map misses faint lines: Canny keeps no strong pixel of them.)
    On a busy table (``table.busy``: terrazzo, a loop carpet, a checked cloth) the
    table's picture has steps nearly everywhere, under any card's sides too: there an
    outline is the table's where its pattern is still seen inside it (``table_seen``:
    a check of the cloth, a chip of the terrazzo), and so is one that holds a card's
    outline with a strip of the table beside it (``_reaching_onto_the_table``); the
    rest are kept (but see ``faint_outlines``)."""
    if getattr(table, "busy", False):
        seen = table_seen(np.stack([o.corners for o in outlines]), colour, table.mean)
        outlines = [o for o, x in zip(outlines, seen, strict=True) if not x]
        astray = _reaching_onto_the_table(outlines, colour, table.mean)
        return [o for o, x in zip(outlines, astray, strict=True) if not x]
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


SAME_PATTERN = 0.7
"""On a busy table, an outline inside which the frame's grey correlates with the empty
table's picture (``TableModel.mean``) by at least this much, at the same places, shows the
table, not a card: a card hides the pattern under it. On tuning frames of the busy and
printed cloths and of the A4 mats laid on the busy textures (seeds 965-966, play, hands,
overlaps and glare, 2,224 outlines), outlines on the cards correlated at -0.39 to 0.38,
the table's own outlines at 0.94 or more for nine in ten of them (median 0.998)."""
PATTERN_CONTRAST = 4.0
"""... where the table's picture varies there (standard deviation of its grey, grey levels)
by at least this much: over a plain part of the table (an A4 mat's paper) the correlation
is of noise."""


def table_seen(quads, colour: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Per quadrilateral (N, 4, 2, frame px), whether the empty table's pattern is still
    seen inside it (``SAME_PATTERN``, ``PATTERN_CONTRAST``): the frame's grey and the
    table's picture ``mean`` (``TableModel.mean``, up to 640 px wide) compared at 192
    points inside it, 5% clear of its sides. Exposure and the light's colour do not count
    (a correlation), so a lamp's glare over a check of the cloth leaves it the table's.

    >>> table = np.indices((120, 160)).sum(axis=0) % 16 * 12.0
    >>> table = np.repeat(table[:, :, None], 3, axis=2)                # a striped cloth
    >>> frame = (table * 0.8 + 20).astype(np.uint8)                     # darker, nothing on it
    >>> quad = np.float32([[[40, 30], [100, 30], [100, 110], [40, 110]]])
    >>> table_seen(quad, frame, table).tolist()
    [True]
    >>> frame[30:110, 40:100] = 230                                     # a card laid there
    >>> table_seen(quad, frame, table).tolist()
    [False]
    """
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if not len(quads):
        return np.zeros(0, bool)
    points = grid_inside(quads, 12, 16, 0.05, shrink=0.9)
    return _pattern_seen(points * (mean.shape[1] / colour.shape[1]), np.ones(points.shape[:2], bool),
                         at_tables_size(colour, mean), mean)


def at_tables_size(colour: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """The frame ``colour`` at the size of the empty table's picture ``mean``."""
    if colour.shape[1] <= mean.shape[1]:
        return colour
    return cv2.resize(colour, (mean.shape[1], mean.shape[0]), interpolation=cv2.INTER_AREA)


def _pattern_seen(points: np.ndarray, use: np.ndarray, work: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Per row of ``points`` (N, M, 2, px of the table's picture ``mean``), whether the
    frame's grey there (``work``: the frame at that size, ``at_tables_size``), at the
    points that ``use`` (N, M) marks, correlates with ``mean``'s by ``SAME_PATTERN`` or
    more where ``mean`` varies by ``PATTERN_CONTRAST`` or more."""
    h, w = mean.shape[:2]
    x = np.clip(np.round(points[..., 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(points[..., 1]).astype(np.int64), 0, h - 1)
    n = np.maximum(use.sum(axis=1), 1)
    a = work[y, x].astype(np.float32).mean(axis=2)
    b = mean[y, x].astype(np.float32).mean(axis=2)
    a -= ((a * use).sum(axis=1) / n)[:, None]
    b -= ((b * use).sum(axis=1) / n)[:, None]
    a, b = a * use, b * use
    spread_a, spread_b = np.sqrt((a * a).sum(axis=1) / n), np.sqrt((b * b).sum(axis=1) / n)
    corr = (a * b).sum(axis=1) / n / np.maximum(spread_a * spread_b, 1e-6)
    return (corr >= SAME_PATTERN) & (spread_b >= PATTERN_CONTRAST)


HOLDS_A_CARD = 0.5
"""On a busy table, an outline holding a smaller one of at least this share of its area
(a card) is the card with a strip of the table beside it where the part beyond the
smaller one shows the table's pattern (``_reaching_onto_the_table``)."""
BEYOND_POINTS = 24
"""Fewest sample points beyond the smaller outline for that part to be judged."""


def _reaching_onto_the_table(outlines: list, colour: np.ndarray, mean: np.ndarray) -> list:
    """Per outline, whether it is a card with a strip of a busy table beside it: it
    holds a smaller outline of most of its area (``HOLDS_A_CARD``), and beyond that one
    (by 2 px) it shows the table's pattern (``_pattern_seen`` at the points of a 24x32
    grid that lie there, ``BEYOND_POINTS`` at least). Such an outline overlapped the
    cloth's checks beside the card, and went with them when they were merged; without
    them it holds the card's own outline and would be taken for the card."""
    n = len(outlines)
    if n < 2:
        return [False] * n
    q = np.stack([o.corners for o in outlines]).astype(np.float64)
    area = np.array([o.area for o in outlines])
    pairs = [(i, j) for i in range(n) for j in range(n) if j != i and HOLDS_A_CARD * area[i] <= area[j] < area[i]
             and _overlap(q[i], q[j]) > 0.97]
    if not pairs:
        return [False] * n
    outer, inner = (np.array(k) for k in zip(*pairs, strict=True))
    points = grid_inside(q[outer], 24, 32, 0.01)
    # Beyond the smaller outline grown by 2 px about its centre.
    c = q[inner].mean(axis=1, keepdims=True)
    grown = c + (q[inner] - c) * (1 + 2.0 / np.maximum(0.5 * np.sqrt(area[inner]), 1.0))[:, None, None]
    use = np.stack([~_inside_convex(g[None], p)[0] for g, p in zip(grown, points, strict=True)])
    seen = (use.sum(axis=1) >= BEYOND_POINTS) & _pattern_seen(points * (mean.shape[1] / colour.shape[1]), use,
                                                              at_tables_size(colour, mean), mean)
    return [bool(seen[outer == i].any()) for i in range(n)]


PHOTO_REACH, PHOTO_REACH_MAX = 0.12, 40.0
"""In a single photo, how far (a fraction of the long side, at most so many px) each side of
a corner's completed card is also looked for."""


def _corner_search(frame_bgr, colour, edges, chroma, scale, labels, messy, aspect, sizes, min_long,
                   both_all, stats, max_long=np.inf, veto=None, free=None, photo=False, slant=0.0,
                   far_corners=None, lenient=False, pattern=None):
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
                            veto, free, photo, slant, stats, lenient=lenient, pattern=pattern)


OWN_REACH = 0.05
"""How far (a fraction of the long side, 3-8 px) a corner candidate's sides are moved to the
strongest step near them when it is refined: that of the median candidate for all, and in a
single photo also each candidate's own."""


def _corner_outlines(quads, colour, both_all, scale, aspect, min_long, max_long, veto, free, photo, slant,
                     stats=None, lenient=False, pattern=None) -> list:
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
    reach = float(np.clip(OWN_REACH * np.median(long_side), 3, 8))
    if pattern is not None:
        # (After the reach is set: it is the candidates' own, the table's included.)
        seen = table_seen(quads, colour, pattern)
        if stats is not None:
            stats["the table's own"] = int(seen.sum())
        quads = quads[~seen]
        if len(quads) == 0:
            return []
    out = _verify(colour, quads, aspect, min_long, reach=reach, max_long=max_long, veto=veto, free=free, slant=slant,
                  lenient=lenient)
    if photo:
        # The reach above is set by the median candidate: a card seen smaller than most (at
        # a slant, near the frame's far edge) lets its sides jump to a tile's grout line a
        # few px beyond them. Such candidates are refined again within their own reach.
        own = np.clip(OWN_REACH * long_side, 3, 8).round()
        for r in np.unique(own[own < round(reach)]):
            out += _verify(colour, quads[own == r], aspect, min_long, reach=float(r), max_long=max_long, veto=veto,
                           free=free, slant=slant, lenient=lenient)
        # A single photo, perhaps taken at a slant: a corner completed to a parallelogram
        # misses a large card's far corner by more than that reach (its far side is
        # shorter by up to a tenth), so the sides are also looked for further out.
        out += _verify(colour, quads, aspect, min_long, max_long=max_long, veto=veto, free=free, slant=slant,
                       reach=float(np.clip(PHOTO_REACH * np.median(long_side), 3, PHOTO_REACH_MAX)), lenient=lenient)
    return out


def top_level(outlines: list) -> list:
    """The outlines that lie inside no other outline."""
    inner = {j for o in outlines for j in o.inside}
    return [o for i, o in enumerate(outlines) if i not in inner]


def kept(outlines: list, keep) -> list:
    """The outlines of ``outlines`` for which ``keep`` (a sequence of bools, one per outline)
    is true, each knowing which of the kept ones lie inside it: ``inside`` holds indices
    into the list it came in, which a filter would leave pointing at other outlines.

    >>> from vision.plain.outline import Outline
    >>> outer = Outline(np.zeros((4, 2)), inside=[2])
    >>> [o.inside for o in kept([Outline(np.zeros((4, 2))), outer, Outline(np.zeros((4, 2)))], [False, True, True])]
    [[1], []]
    """
    old = [i for i, k in enumerate(keep) if k]
    new = {i: n for n, i in enumerate(old)}
    return [replace(outlines[i], inside=[new[j] for j in outlines[i].inside if j in new]) for i in old]
