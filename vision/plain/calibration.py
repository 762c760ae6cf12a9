"""Calibrating a deck through the camera: each card's face as the camera sees it, checked before it is trusted."""
from __future__ import annotations

from typing import Mapping, NamedTuple, Optional

import cv2
import numpy as np

from vision.plain.background import TableModel
from vision.plain.deck import picture_side
from vision.plain.find import find_outlines, kept, top_level
from vision.plain.merge import _merge
from vision.plain.outline import MIN_LONG_SIDE, PHOTO_CARD, WORK_WIDTH, _overlap, _verify, clockwise, quad_shape
from vision.plain.photo import (REGION_GROWTH, along_the_tables_lines, mask_quads, on_the_tables_lines, pulled_in,
                                strip_of_the_table)
from vision.plain.straighten import face_of
from vision.zones import detect_markers

ASPECT_RANGE = (0.55, 0.82)
"""Card width/height looked for while the deck's own is not known yet."""
MAX_ASPECT_SPREAD = 0.2
"""The faces' width/height may differ from their median by this fraction at most."""
MAX_SIZE_SPREAD = 0.15
"""Through one camera, the cards' sizes may differ from their median by this fraction at most."""


STRETCH_RANGE = (0.85, 1.15)
"""Widths over heights of the camera's view of the table (``frame_stretch``) looked for."""
STRETCH_STEP = 0.0025
"""Step between the stretches tried."""
STRETCH_CARDS = 8
"""Fewest faces from which a stretch is judged, ..."""
STRETCH_EACH_WAY = 3
"""... with at least this many lying each way (nearer the frame's width, nearer its height):
a few cards cut wrongly, lying one way, could otherwise pass for a stretch."""
STRETCH_FIT = 0.02
"""Largest difference of a face's shape, stretch taken out, from the faces' median for it
to agree with them."""
STRETCH_AGREE = 0.75
"""Least share of the faces that must agree once a stretch is taken out for it to be taken."""


def long_side_angle(quad) -> float:
    """The direction (degrees, 0-180 from the frame's x axis) of a quadrilateral's longer
    pair of sides."""
    q = np.asarray(quad, np.float64)
    d = [q[(i + 1) % 4] - q[i] for i in range(4)]
    a, b = (d[0] - d[2], d[1] - d[3])
    v = a if np.hypot(*a) >= np.hypot(*b) else b
    return float(np.degrees(np.arctan2(v[1], v[0])) % 180.0)


def stretched(angle, stretch: float) -> tuple:
    """How a card lying with its long side at ``angle`` (degrees from the frame's x axis)
    is seen through a view ``stretch`` times as wide as the table (x over y): (its
    width/height over the card's, its long side over the card's)."""
    phi = np.radians(angle)
    c2, s2 = np.cos(phi) ** 2, np.sin(phi) ** 2
    along = np.sqrt(stretch * stretch * c2 + s2)
    return np.sqrt(stretch * stretch * s2 + c2) / along, along


def frame_stretch(shapes: Mapping, angles: Mapping) -> float:
    """How much wider the camera sees the table than it is (x over y; 1.0 for a true view),
    from the faces' shapes (width/height) and the angles their long sides lay at (degrees
    from the frame's x axis). A camera whose picture is scaled to another shape than its
    sensor's, or that looks at the table at a slant, shows a card lying across the frame
    wider than one lying along it: the Blender world's A3 mat showed cards at 0.70 lying
    along the frame's height and 0.75-0.79 lying across it, and a pass that judged them
    against each other took the three lying across for faces cut wrongly.

    The stretch is the one with which most faces agree in shape (within ``STRETCH_FIT``
    of their median; the nearest to 1.0 among equals), taken where more faces agree with it
    than with none and they are at least ``STRETCH_AGREE`` of them; 1.0 with fewer than
    ``STRETCH_CARDS`` faces or ``STRETCH_EACH_WAY`` lying each way.

    >>> shapes = {f"c{k}": 0.70 for k in range(6)} | {f"d{k}": 0.75 for k in range(4)}
    >>> angles = {f"c{k}": 85 + 2 * k for k in range(6)} | {f"d{k}": 178 + k for k in range(4)}
    >>> round(frame_stretch(shapes, angles), 2)
    0.97
    """
    cards = [c for c in shapes if c in angles]
    a = np.array([shapes[c] for c in cards], np.float64)
    phi = np.array([angles[c] for c in cards], np.float64)
    across = np.cos(np.radians(phi)) ** 2 > 0.5
    if len(cards) < STRETCH_CARDS or min(int(across.sum()), int((~across).sum())) < STRETCH_EACH_WAY:
        return 1.0

    def agree(stretch: float) -> int:
        r = a / stretched(phi, stretch)[0]
        return int((np.abs(r / np.median(r) - 1) <= STRETCH_FIT).sum())

    flat = agree(1.0)
    best, where = flat, 1.0
    for stretch in sorted(np.arange(STRETCH_RANGE[0], STRETCH_RANGE[1] + STRETCH_STEP / 2, STRETCH_STEP),
                          key=lambda v: abs(v - 1.0)):
        n = agree(float(stretch))
        if n > best:
            best, where = n, float(stretch)
    return where if best > flat and best >= STRETCH_AGREE * len(cards) else 1.0


class CalibrationError(ValueError):
    """Pictures that cannot make a deck, with a message saying which and what to do."""


class NoCardFound(CalibrationError):
    """A picture in which no card was found."""


class SeveralFound(CalibrationError):
    """A picture in which more than one card-shaped outline was found: ``pieces`` holds
    their corners (each (4, 2), picture px). Where all lie within one card of the deck's
    size, they are pieces of that card's print (its own edge not found), and the photo is
    looked at again once the others give the deck's shape and size."""

    def __init__(self, message: str, pieces):
        super().__init__(message)
        self.pieces = [np.asarray(p, np.float32) for p in pieces]


class StripTaken(NoCardFound):
    """A picture whose one card was found only with a strip of the table along a side
    (``photo.strip_of_the_table``): ``outline`` is that outline, the last resort once
    the photo has been looked at again with the deck's shape and size."""

    def __init__(self, message: str, outline):
        super().__init__(message)
        self.outline = outline


def lone_card(frame: np.ndarray, table: Optional[TableModel] = None, what: str = "the picture"):
    """The one card lying in a frame (an Outline), or a CalibrationError saying what was
    seen instead. With ``table`` (the empty table learnt), edges of the table are ignored.
    Without it, an outline that took in a strip of a busy table along a side
    (``photo.strip_of_the_table``) has that side moved in to the card's edge
    (``photo.pulled_in``), or is no card found (``StripTaken``, holding the outline); and
    an outline whose sides run on past its corners is the table's own (a tile between
    grout lines: ``photo.on_the_tables_lines``), no card, and a side that runs on past
    both its ends was found along a line of the table (``photo.along_the_tables_lines``):
    it is moved in to the card's edge where one is found. Where no outline is left, those
    dropped for sharing the photo's colours (``find_outlines(alone=True)``) are looked at
    too: a pale card on tiles as light as its paper."""
    markers = None if table is not None else marker_centres(frame)

    def cards(found: list) -> list:
        # In a photo, the shapes drawn by the table's own lines are no card: tiles between
        # grout lines, which a phone held at a slant foreshortens to a card's shape and size.
        if table is not None or not found:
            return found
        return [o for o, lines in zip(found, on_the_tables_lines(frame, [o.corners for o in found])) if not lines]

    outlines = cards(top_level(not_the_mat(find_outlines(frame, None, table=table, alone=table is None), markers)))
    if not outlines and table is None and frame.shape[1] > WORK_WIDTH:
        # A small card in a large photo (a phone held high) may have lost its sides at
        # the finder's working size: the photo is looked at again at its own size.
        outlines = cards(top_level(not_the_mat(find_outlines(frame, None, work_width=frame.shape[1], alone=True),
                                               markers)))
    if not outlines and table is None:
        outlines = cards(paper_outlines(frame))
    if not outlines and table is None:
        # A pale card on plain tiles as light as its paper shares most of its colours
        # with the table, and was dropped as a piece of it (``photo.ALONE_LIKE``, which
        # spares the cost of a checked cloth's squares): where nothing was found so,
        # every outline is looked at (before any is let pass with a side on a weaker
        # step), and the checks below judge them.
        outlines = cards(top_level(not_the_mat(find_outlines(frame, None, alone=False), markers)))
    if not outlines and table is None:
        # A light card on a light, veined surface (marble, a tile's grout running along
        # one side): one side may lie on a step over less of its length. The face cut
        # so is still held to the other cards' shape and size, and read back.
        outlines = cards(top_level(not_the_mat(find_outlines(frame, None, lenient=True, alone=True), markers)))
    if not outlines:
        raise NoCardFound(f"{what}: no card found in it; lay one card alone, face up and "
                               "whole, in view of the camera (at least 60 px long)")
    if len(outlines) > 1 and table is None:
        outlines = unlike_the_table(frame, outlines)
    if len(outlines) > 1:
        big = max(o.area for o in outlines)
        outlines = [o for o in outlines if o.area > 0.5 * big]
        if len(outlines) == 2:
            whole = halves_joined(frame, *outlines)
            if whole is not None:
                return whole
        if len(outlines) > 1:
            raise SeveralFound(f"{what}: {len(outlines)} cards found; lay one card at a time",
                               [o.corners for o in outlines])
    along = along_the_tables_lines(frame, outlines[0].corners) if table is None else []
    if along:
        # A side found along a line of the table that runs on past both its ends (a grout
        # line past the card's corner) is that line, not the card's edge: the outline took
        # in a wedge of the table, whose face a look-alike's might be taken for. The side
        # is moved in to the card's edge where one is found. (Not refused where none is: a
        # card's own edge lies along a line of a gingham or plaid as often as not.)
        pulled = pulled_in(frame, outlines[0], along)
        if pulled is not None and not along_the_tables_lines(frame, pulled.corners):
            outlines = [pulled]
    strip = strip_of_the_table(frame, outlines[0].corners) if table is None else []
    if strip:
        # The side is moved in to the card's edge; failing that, taken as no card found:
        # the photo is looked at again once the others give the deck's shape and size,
        # for an outline of those that is unlike the table.
        pulled = pulled_in(frame, outlines[0], strip)
        if pulled is not None and not strip_of_the_table(frame, pulled.corners):
            return pulled
        raise StripTaken(f"{what}: the card was found only with a strip of the table along a side; "
                         "take it again with the card alone on a plainer part of the table", outlines[0])
    return outlines[0]


MAT_SPAN = 0.5
"""With two or more of the table's markers in view, an outline whose long side is more
than this fraction of the largest distance between two of them is the printed mat or its
grey card area (each of a card's shape), not a card: a card is 0.3 of an A4 mat's long
side, the distance between its markers' centres about 0.85 of its diagonal."""


def marker_centres(frame: np.ndarray) -> np.ndarray:
    """The centres of the table's ArUco markers in a frame, shape (N, 2)."""
    return np.array([c.mean(axis=0) for found in detect_markers(frame).values() for c in found],
                    np.float64).reshape(-1, 2)


def not_the_mat(outlines: list, markers: Optional[np.ndarray]) -> list:
    """``outlines`` without those too large to be a card beside the table's ``markers``
    (``MAT_SPAN``), so that ``top_level`` then gives the card lying on the mat, not the
    mat around it, and without those around a marker (its black square in its white
    margin can have a card's shape: through a webcam on the Blender world's A4 mat, the
    four markers were taken for four cards, and a photo of a card whose outline was not
    found was refused as "4 cards found"). With fewer than two markers, the size is not
    judged.

    >>> from vision.plain.outline import Outline
    >>> mat = Outline(np.float32([[0, 0], [420, 0], [420, 297], [0, 297]]), inside=[1])
    >>> card = Outline(np.float32([[100, 100], [163, 100], [163, 189], [100, 189]]))
    >>> corners = np.float64([[15, 15], [405, 15], [405, 282], [15, 282]])
    >>> [o.long_side for o in top_level(not_the_mat([mat, card], corners))]
    [89.0]
    """
    if markers is None or len(markers) == 0:
        return outlines
    span = float(np.max(np.linalg.norm(markers[:, None] - markers[None], axis=2))) if len(markers) >= 2 else np.inf
    keep = [o.long_side <= MAT_SPAN * span and not _holds_a_marker(o.corners, markers) for o in outlines]
    return outlines if all(keep) else kept(outlines, keep)


TABLE_LIKE = 0.5
"""An outline whose inside shares this much of its colours with the rest of the photo
(histogram intersection, 0..1) or more is not a card lying alone on the table: a checked
or tartan cloth's squares (0.69 to 0.94 in tuning photos), a card found with a square of
the cloth beside it (0.57, 0.60). Cards alone: 0.0 to 0.27."""
BAND_LIKE = 0.35
"""The same of each band along an outline's sides (``table_likeness``'s second part):
from this on, the band is as much the table as the card's margin (an outline that took
in a row of a gingham's checks beside the card: 0.41; cards found at their own outline
on the tools' printed cloths, oak and green cloth: up to 0.28, red cards on stripes)."""
STRIP_MARGINS = 2
"""Least number of an outline's bands along its sides unlike the table (below
``BAND_LIKE``) for it to be taken as a card with a strip of the table beside it
(``unlike_the_table``). Stone tiles seen at a slant from a phone held high (tuning photos,
``photo_tuning --camera tuning-slant --surfaces tune:slate --seed 992``), each tile a
shade off its neighbours: bands 0.38-0.40 on all four sides (inside 0.38-0.39), larger
than the card (bands 0.11-0.20) lying beside them, and taken for it."""


def table_likeness(frame: np.ndarray, quads) -> tuple:
    """Per quadrilateral, how much of its inside's colours the photo outside it shares
    (the intersection of the two normalised Lab histograms, 8 bins a channel: 0 for
    colours seen nowhere else, 1 for the same mix), shape (N,); and the same of each of
    its four bands along its sides (6% of the card deep), shape (N, 4): a card's margin
    is paper, while an outline that takes in a strip of the table beside the card has
    one band of the table's own colours."""
    scale = min(1.0, 480 / frame.shape[1])
    work = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(work, cv2.COLOR_BGR2Lab)

    def hist(mask):
        return cv2.normalize(cv2.calcHist([lab], [0, 1, 2], mask, [8, 8, 8], [0, 256] * 3), None, 1.0, 0.0,
                             cv2.NORM_L1)

    def like(part, table) -> float:
        mask = np.zeros(work.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(part * scale).astype(np.int32), 1)
        return cv2.compareHist(hist(mask), table, cv2.HISTCMP_INTERSECT) if mask.any() else 1.0

    inside, bands = [], []
    for quad in np.asarray(quads, np.float32):
        centre = quad.mean(axis=0)
        # A margin on both sides of the outline, so that neither histogram holds its edge.
        inner, deep = centre + (quad - centre) * 0.9, centre + (quad - centre) * 0.78
        around = np.zeros(work.shape[:2], np.uint8)
        cv2.fillConvexPoly(around, np.round((centre + (quad - centre) * 1.1) * scale).astype(np.int32), 1)
        table = hist(1 - around)
        inside.append(like(inner, table))
        bands.append([like(np.stack([inner[k], inner[(k + 1) % 4], deep[(k + 1) % 4], deep[k]]), table)
                      for k in range(4)])
    return np.array(inside), np.array(bands).reshape(-1, 4)


def unlike_the_table(frame: np.ndarray, outlines: list) -> list:
    """Those of ``outlines`` unlike the table around them (``table_likeness`` below
    ``TABLE_LIKE``, and each band along their sides below ``BAND_LIKE``) and not the
    table's markers, or all of them when none is. For a photo of one card, with no
    empty table learnt: two cards on the table are both unlike it, and are still refused
    as two. The largest outline unlike the table inside alone, when the others so unlike
    it all lie apart from it and are less than half its size, and its bands along at least
    two sides are unlike the table (``STRIP_MARGINS``): the card with a strip of the table
    beside it (``lone_card`` then moves that side in, or says so)."""
    like, sides = table_likeness(frame, [o.corners for o in outlines])
    bands = sides.max(axis=1)
    # The table's ArUco markers are unlike any cloth and never a card.
    centres = marker_centres(frame)
    inside = [(o, band, side) for o, v, band, side in zip(outlines, like, bands, sides)
              if v < TABLE_LIKE and not _holds_a_marker(o.corners, centres)]
    unlike = [o for o, band, _ in inside if band < BAND_LIKE]
    if inside:
        # The largest outline unlike the table inside, but with a band of it along a side,
        # is the card with a strip of the cloth beside it (looked at again by the
        # caller) when what else is unlike the table is far smaller and lies apart from
        # it: a square of a plaid's darker stripes unlike the cloth's mix (0.15 of the
        # card's area) is no card. A card with a strip of the table beside it still has
        # its paper's margin along at least two sides (``STRIP_MARGINS``); an outline
        # with the table along three or four is the table's own shape (a stone tile, a
        # shade lighter than its neighbours, larger than the card lying beside it).
        big, _, big_sides = max(inside, key=lambda x: x[0].area)
        if unlike and (big_sides < BAND_LIKE).sum() >= STRIP_MARGINS \
                and all(o is not big and o.area < 0.5 * big.area and _overlap(o.corners, big.corners) == 0
                        for o in unlike):
            return [big]
    return unlike or outlines


def unlike_the_table_at(frame: np.ndarray, corners) -> bool:
    """Whether the quadrilateral ``corners`` would be kept by :func:`unlike_the_table`:
    unlike the table around it, as a card lying alone is, and holding none of the
    table's markers; and is no shape drawn by the table's lines
    (``photo.on_the_tables_lines``)."""
    like, bands = table_likeness(frame, [np.asarray(corners, np.float32)])
    return bool(like[0] < TABLE_LIKE and bands.max(axis=1)[0] < BAND_LIKE) \
        and not _holds_a_marker(corners, marker_centres(frame)) and not on_the_tables_lines(frame, [corners])[0]


def _holds_a_marker(corners, centres) -> bool:
    """Whether one of the markers' ``centres`` lies within the quadrilateral ``corners``."""
    quad = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    return any(cv2.pointPolygonTest(quad, (float(x), float(y)), False) >= 0 for x, y in centres)


SHARED_SIDE = 0.1
"""Two outlines share a side when both ends of a side of one lie within this fraction of
that side's length of the ends of a side of the other."""


def halves_joined(frame: np.ndarray, a, b):
    """The card whose two halves two outlines are, or None. Half a card has about a
    card's proportions (0.72, half of it 0.70, for a poker card), so a court printed with
    a line between its two heads can be found as two cards side by side while the deck's
    shape is not known yet (a tuning photo of a generated king, 214 px long: two outlines
    of 132 and 138 px). Two outlines sharing a whole side, whose four other corners make
    a card-shaped quadrilateral, are looked for again as one card of that shape and size,
    and the one outline found there is taken. Two cards laid edge to edge would pass too;
    their face is then twice the others' size, which ``check_shapes`` names."""
    qa, qb = clockwise(np.stack([a.corners, b.corners]).astype(np.float32))
    for i in range(4):
        ea = qa[[i, (i + 1) % 4]]
        length = float(np.hypot(*(ea[1] - ea[0])))
        for j in range(4):
            # Clockwise outlines run along a side they share in opposite directions.
            eb = qb[[(j + 1) % 4, j]]
            if np.hypot(*(ea - eb).T).max() > SHARED_SIDE * length:
                continue
            # a's corners after its shared side, then b's after its own.
            union = np.stack([qa[(i + 2) % 4], qa[(i + 3) % 4], qb[(j + 2) % 4], qb[(j + 3) % 4]])
            union = clockwise(union[None].astype(np.float32))
            ratio, long_side, _ = quad_shape(union)
            if not PHOTO_CARD[0] < ratio[0] < PHOTO_CARD[1]:
                return None
            # Looked for again with that shape and size known, as a card of a known deck
            # is: the card's own outline is then found whole. Failing that, the joined
            # outline's sides are seated on their steps, within a short reach (its
            # corners are the halves' own), so that none is pulled onto a line printed
            # inside the card.
            size = float(long_side[0])
            found = top_level(find_outlines(frame, float(ratio[0]), sizes=(size,), min_long=0.9 * size,
                                            max_long=1.1 * size))
            centre = union[0].mean(axis=0)
            near = [o for o in found if np.hypot(*(o.corners.mean(axis=0) - centre)) < 0.05 * size]
            if len(near) == 1:
                return near[0]
            seated = _verify(frame, union, None, MIN_LONG_SIDE, reach=3.0, free=PHOTO_CARD)
            return seated[0] if seated else None
    return None


PAPER_LEVELS = (99.5, 99.0, 98.0, 96.0)
"""Percentiles of a photo's lightness at which its brightest regions are cut (a card's
paper is the brightest thing in a photo of one card, a few per cent of it)."""


def paper_outlines(frame: np.ndarray, min_long: float = MIN_LONG_SIDE) -> list:
    """Outlines of the brightest card-shaped regions of a single photo, each checked as
    any other outline (refined, the step of its sides, its shape): a card on a surface
    so busy (terrazzo's chips, a carpet's loops touching its edge) that neither its
    edges nor its region unlike the surface make a card's shape, while its paper is the
    brightest thing in the photo. Only where ``find_outlines`` found no card in it."""
    # Our own proposer, kept out of find.py's general finder: it assumes one light card
    # alone in the photo, true of a calibration photo and of no frame in play.
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_WIDTH / w)
    work = cv2.resize(frame, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA)
    light = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2Lab)[:, :, 0].astype(np.float32), (0, 0), 1.0)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    # The print closed over, holes filled, thin bits opened away: the card's shape.
    rough = mask_quads([(light >= np.percentile(light, level)).astype(np.uint8) for level in PAPER_LEVELS],
                       k, (min_long * scale) ** 2 * 0.4, scale)
    if not rough:
        return []
    quads = clockwise(np.stack(rough).astype(np.float32))
    ratio, long_side, _ = quad_shape(quads)
    quads = quads[(ratio > 0.45) & (long_side >= min_long)]
    if len(quads) == 0:
        return []
    centre = quads.mean(axis=1, keepdims=True)
    quads = np.concatenate([centre + (quads - centre) * f for f in REGION_GROWTH])
    return top_level(_merge(_verify(frame, quads, None, min_long, reach=float(np.clip(2.0 / scale, 3, 8)),
                                    free=PHOTO_CARD)))


def check_shapes(faces: dict, sizes: dict) -> tuple:
    """The deck's width/height and card size (long side over frame height, or None) from
    the faces taken, after checking that they agree: a face that is much narrower or
    smaller than the others was cut out wrongly (a mat line taken for its edge)."""
    aspects = {c: f.shape[1] / f.shape[0] for c, f in faces.items()}
    aspect = float(np.median(list(aspects.values())))
    if not ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1]:
        raise CalibrationError(f"the cards found are {aspect:.2f} times as wide as tall: expected a "
                               "playing card (about 0.7)")
    odd = [f"{c} ({a:.2f})" for c, a in aspects.items() if abs(a / aspect - 1) > MAX_ASPECT_SPREAD]
    if odd:
        raise CalibrationError(f"these cards were not found whole (their shape differs from the "
                               f"others' {aspect:.2f}): {', '.join(odd)}; take them again, alone and "
                               "away from other shapes")
    size = None
    known = {c: s for c, s in sizes.items() if s}
    if known:
        size = float(np.median(list(known.values())))
        odd = [str(c) for c, s in known.items() if abs(s / size - 1) > MAX_SIZE_SPREAD]
        if odd:
            raise CalibrationError(f"these cards look larger or smaller than the others: {', '.join(odd)}; "
                                   "keep the camera at one height and take them again")
    return aspect, size


def face_and_size(frame: np.ndarray, table: Optional[TableModel] = None, what: str = "the picture"):
    """(upright face, long side over the frame's short side) of the lone card in a frame."""
    o = lone_card(frame, table, what)
    return face_of(frame, o.corners), o.long_side / picture_side(frame)


MISCUT_FIT = 0.5
"""Least correlation, both ways, of the fit laying one twin's face on the other's (same
rank and colour) from which the two are taken for the same print, so that the fit says
something about their outlines. (A face cut wrongly still fitted its twin by 0.51-0.54
in some cases; no two well-cut twins of the tuning decks fitted by 0.45-0.6 with a move
above ``MISCUT_MOVE``.)"""
MISCUT_FIT_OTHER = 0.7
"""The same for two faces of a rank in the other colour: their signs differ in shape
(hearts against spades, an ace of clubs' large sign against an ace of hearts'), and the
fit, drawn by them, strays further (well-cut aces across colours fitted by 0.6-0.65 with
moves up to 0.12 on tuning decks)."""
MISCUT_MOVE = 0.09
"""Largest median move of a face's corners (share of its height) by which the fits lay it
on the other faces of its rank when it was cut at the card's own outline. On tuning decks
(80 calibrated live, 36 from photos) well-cut faces stayed at 0.081 or less; faces cut from
a wrong outline that the shape check passed were at 0.097-0.22."""


PIP_RANKS = ("9", "10")
"""Ranks whose faces are the same layout of pips in every suit of a deck (a face of them
that fits none of the others is cut wrongly: :func:`miscut_faces`). On 130 decks kept from
earlier benchmark runs (nearly all of tuning data) every nine and ten fitted another of its
rank."""


FITS_NONE = 1.0
"""What :func:`miscut_faces` gives a nine or ten that fits none of its rank (no move can be
measured): such a face is surely cut wrongly, where a large move may be a deck's own print."""


def miscut_faces(faces: dict, aspect: float) -> dict:
    """The faces cut from a wrong outline (a corner found out on the table, an outline
    cut off the card), ``{card: corner move}``. The faces of a rank that are the same
    print (they fit each other by ``MISCUT_FIT`` both ways, ``MISCUT_FIT_OTHER`` across
    colours) are laid on each other by an affine fit: faces cut at the card's own outline
    need no more than a slip (their corners moved by ``MISCUT_MOVE`` of the height at
    most), a face cut from another outline needs a reshape or a large shift against
    every well-cut one; a nine or a ten that fits none of its rank where two others fit
    each other is cut wrongly too (``PIP_RANKS``), and given ``FITS_NONE``. The face whose median move against the others is largest, when
    above ``MISCUT_MOVE``, is named and left out, and so on, but never a face that its
    twin (same rank and colour) lays on within that move; two faces that fit only each
    other so, with no third to tell which is right, are both named.

    Its template would not tell the card from its look-alikes: the card is to be taken
    again. A deck whose faces all agree gives ``{}``.
    """
    from vision.plain.deck import canonical
    from vision.plain.read import Face

    sharp = {c: Face.of(canonical(f, aspect)).sharp for c, f in faces.items()}
    out = {}
    ranks = {}
    for c in sharp:
        ranks.setdefault(_rank_of(c), []).append(c)
    for rank, cards in ranks.items():
        moves, any_move = {}, {}
        for i, a in enumerate(cards):
            for b in cards[i + 1:]:
                fit, move = _fit_both_ways(sharp[a], sharp[b])
                any_move[a, b] = any_move[b, a] = move
                if fit >= (MISCUT_FIT if _red(a) == _red(b) else MISCUT_FIT_OTHER):
                    moves[a, b] = moves[b, a] = move
        left = [c for c in cards if any((c, b) in moves for b in cards)]
        if rank in PIP_RANKS and len(left) >= 2:
            # Every deck lays out the pips of a nine or a ten alike in each suit: a face of
            # them that fits none of its rank, where others fit each other, is cut from
            # another outline (a strip of the table along one side, its index cut off).
            for c in cards:
                if c not in left:
                    out[c] = FITS_NONE
        while True:
            # A face's median move: one mate cut wrongly does not make a sound face look
            # cut wrongly (and the worst face goes first).
            median = {c: float(np.median(m)) for c in left
                      if (m := [moves[c, b] for b in left if (c, b) in moves])}
            # A face its twin (same rank and colour, most often the same print) lays on
            # within a slip is cut at its own outline, whatever the other colour says:
            # some decks print their aces differently in each suit.
            judged = {c: v for c, v in median.items() if v > MISCUT_MOVE and not any(
                _twin(c, b) and moves[c, b] <= MISCUT_MOVE for b in left if (c, b) in moves)}
            if not judged:
                break
            worst = max(judged, key=judged.get)
            out[worst] = median[worst]
            left.remove(worst)
            mates = [b for b in left if (worst, b) in moves]
            if len(mates) == 1 and median.get(mates[0]) == median[worst]:
                out[mates[0]] = median[worst]       # which of the two cannot be told
                left.remove(mates[0])
    return out


def miscut_message(faces: dict, aspect: float, photos: Optional[dict] = None,
                   bad: Optional[dict] = None) -> Optional[str]:
    """What to say of the faces :func:`miscut_faces` names (or ``bad``, its answer when the
    caller has it), asking for each again: its photo (``photos``: ``{card: file name}``), or
    the card shown again through the camera; None when every face agrees with its rank's."""
    bad = miscut_faces(faces, aspect) if bad is None else bad
    if not bad:
        return None
    named = ", ".join(f"{photos[c]} ({c})" if photos and c in photos else str(c) for c in sorted(bad, key=str))
    again = ("if so, take these photos again, the card flat and alone, the camera straight above it"
             if photos else "if so, calibrate again, each card flat, alone and still")
    moved = [v for v in bad.values() if v < FITS_NONE]
    shift = f"only reshaped or moved by {max(moved):.0%} of its height" if moved else ""
    how = ("fits the others of their rank " + shift if len(moved) == len(bad) else
           "fits none of the others of its rank" + (f", or {shift}" if moved else ""))
    return (f"these cards may not have been found at their own outline (their face {how}: a corner found "
            f"on the table, the card cut off, or a deck that prints them unlike each other): {named}; {again}")


def _rank_of(card) -> str:
    return str(card)[:-1]


def _red(card) -> bool:
    return str(card)[-1] in "HD"


def _twin(a, b) -> bool:
    return _rank_of(a) == _rank_of(b) and _red(a) == _red(b)


def _fit_both_ways(sharp_a: np.ndarray, sharp_b: np.ndarray) -> tuple:
    """(the lower correlation of the fits laying ``b`` on ``a`` and ``a`` on ``b``, the
    larger move of a corner they need, share of the height), ``b`` either way up (the
    better fit)."""
    from vision.plain.read import _fit

    best = (0.0, np.inf)
    for b in (sharp_b, sharp_b[::-1, ::-1]):
        (f1, w1), (f2, w2) = _fit(sharp_a, b), _fit(b, sharp_a)
        fit = min(float(f1), float(f2))
        if fit > best[0]:
            best = (fit, max(_corner_move(w1, sharp_a.shape), _corner_move(w2, sharp_a.shape)))
    return best


def _corner_move(warp, shape) -> float:
    """The largest distance a corner of a face is moved by an affine fit, share of the
    face's height (infinite when the fit failed)."""
    if warp is None:
        return float("inf")
    h, w = shape
    c = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return float(np.linalg.norm(c @ warp[:, :2].T + warp[:, 2] - c, axis=1).max()) / h


RIM_DEPTH = 0.08
"""Depth (share of the face's width) of the band along each side whose look across the
side is compared with the deck's rim (see :func:`rim_trims`)."""
RIM_SHIFT = 0.09
"""Largest strip of the table (share of the width) looked for along a side."""
RIM_LEAST = 0.035
"""Least strip trimmed: a slip of a pixel or two is the reader's to bear (read and play
views are cut by the same finder), and is too narrow to tell from the rim's own wear."""
RIM_GAIN = 0.5
"""A side is trimmed only where the shifted band fits the deck's rim at least this much
better (mean difference) than the band as cut ..."""
RIM_STEP = 6.0
"""... and better by at least this many grey levels."""
RIM_HEIGHT = 200
"""Height (px) faces are compared at: that of a calibration face (``face_of``)."""
RIM_SPANS = ((0.2, 0.45), (0.55, 0.8))
"""Stretches of each side (share of its length) measured apart, so that a face cut askew
(a strip that narrows along the side) is trimmed askew."""


def _rim_bands(face: np.ndarray, w: int, depth: int, height: int = RIM_HEIGHT) -> dict:
    """Each side's look across it, ``{(side, span): profile}`` (grey, ``depth`` px from
    the side inwards, median along the span), of a face resized to ``w`` x ``height``."""
    g = cv2.cvtColor(cv2.resize(face, (w, height), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    g = g.astype(np.float32)
    sides = {"top": g[:depth].T, "bottom": g[::-1][:depth].T, "left": g[:, :depth], "right": g[:, ::-1][:, :depth]}
    out = {}
    for side, band in sides.items():       # band: rows along the side, columns inwards
        n = band.shape[0]
        for k, (a, b) in enumerate(RIM_SPANS):
            out[side, k] = np.median(band[int(a * n):int(b * n)], axis=0)
    return out


def _fit(profile: np.ndarray, rim: np.ndarray, shift: int) -> float:
    """Mean difference of ``profile`` moved in by ``shift`` from ``rim``, their own
    levels aside (the light differs across the table)."""
    d = profile[shift:shift + len(rim)] - rim
    return float(np.mean(np.abs(d - np.median(d))))


def _fits(profile: np.ndarray, rim: np.ndarray, shifts: int) -> list:
    """``[_fit(profile, rim, s) for s in range(shifts)]`` (the same values), all shifts at
    once: a calibration pass asks for some twenty thousand of them."""
    d = np.lib.stride_tricks.sliding_window_view(profile, len(rim))[:shifts] - rim
    return np.mean(np.abs(d - np.median(d, axis=1)[:, None]), axis=1).tolist()


class DeckRim(NamedTuple):
    """A deck's rim as its faces show it (:func:`deck_rim`), at ``RIM_HEIGHT``."""
    width: int
    """Width (px) the faces are compared at."""
    depth: int
    """Depth (px) of the band across each side that is compared."""
    most: int
    """Largest shift (px) looked for."""
    bands: dict
    """Each face's bands, ``{card: {(side, span): profile}}``, ``depth + most`` deep."""
    sides: dict
    """The deck's rim along each side: the median band over all faces."""


def deck_rim(faces: dict, aspect: float) -> DeckRim:
    """The deck's rim along each side of its faces (see :class:`DeckRim`)."""
    w = int(round(RIM_HEIGHT * aspect))
    n = int(round(RIM_DEPTH * w))
    most = int(round(RIM_SHIFT * w))
    bands = {c: _rim_bands(f, w, n + most) for c, f in faces.items()}
    # Each side its own rim: a lamp's shadow along one side of every card, cut the same
    # way in play, is the deck's, not a miscut.
    sides = {side: np.median([p for b in bands.values() for (s, _), p in b.items() if s == side], axis=0)
             for side in ("top", "bottom", "left", "right")}
    return DeckRim(w, n, most, bands, sides)


def rim_misfit(face: np.ndarray, rim: DeckRim) -> float:
    """How far the look across a face's sides, as cut, is from the deck's rim (the
    mean difference, grey levels, over the sides' stretches): small for a face cut at
    the card's edge, large for one cut inside the card or with a strip of the table
    along a side."""
    n = rim.depth
    return float(np.mean([_fit(p, rim.sides[side][:n], 0)
                          for (side, _), p in _rim_bands(face, rim.width, n + rim.most).items()]))


def _rim_shifts(faces: dict, aspect: float, outward: bool) -> dict:
    """``{card: {(side, span): strip}}``: the stretches of the faces' sides whose band fits
    the deck's rim far better moved by a strip (share of the width) than as cut: moved
    in (the face holds a strip of the table) or, with ``outward``, out (the face was cut
    inside the card and lacks its rim).

    A deck's faces share their rim (the card's border, the frame printed inside it). The
    deck's rim along a side is the median look across that side over all its faces."""
    w, n, most, bands, rims = deck_rim(faces, aspect)
    out: dict = {}
    for c, b in bands.items():
        for key, p in b.items():
            rim = rims[key[0]]
            fits = _fits(rim, p[:n], most + 1) if outward else _fits(p, rim[:n], most + 1)
            best = int(np.argmin(fits))
            if best > 0 and fits[best] <= RIM_GAIN * fits[0] and fits[0] - fits[best] >= RIM_STEP:
                out.setdefault(c, {})[key] = best / w
    return out


def rim_trims(faces: dict, aspect: float) -> dict:
    """The faces cut at an outline outside the card, with a strip of the table along
    some of their sides: ``{card: {(side, span): strip}}`` (strip: share of the width).

    A stretch of a side whose band fits the deck's rim far better when moved in by a
    strip than as cut has that strip of the table along it (twins cut alike are judged
    each on its own). A rim that is all paper (a plain white border) fits at any shift
    and trims nothing."""
    # A face is cut again where a strip is wide enough to matter; then all its strips are
    # trimmed, so that a side cut askew is straightened along its whole length.
    return {c: strips for c, strips in _rim_shifts(faces, aspect, outward=False).items()
            if max(strips.values()) >= RIM_LEAST}


INNER_SIDES = 3
"""Least sides along which a face lacks the deck's rim to be taken for one cut inside the
card (at the frame printed within its rim). A frame cuts every side; one side alone may
lack it for other reasons (a dark card's edge on a dark table, a corner folded)."""


def inner_cuts(faces: dict, aspect: float) -> dict:
    """The faces cut inside the card, at a line printed within its rim (a light rim's
    frame), that lack the rim along ``INNER_SIDES`` sides or more: ``{card: {(side, span):
    strip}}``, each strip (share of the width) to be added outside that side.

    Such a face, read against play views cut at the card's own edge, takes another card's
    rim for its own (a 10♥ cut so was read as the 9♥ on tuning photos)."""
    out = {}
    for c, strips in _rim_shifts(faces, aspect, outward=True).items():
        if max(strips.values()) >= RIM_LEAST and len({side for side, _ in strips}) >= INNER_SIDES:
            out[c] = strips
    return out


GROW_SIDES = 2
"""Least sides along which a face lacks the deck's rim to be cut again outward from the
frames it was taken from (``rim_regrowths``): where the card's paper is the table's shade,
its edge shows only on the side its shadow falls, and the outline runs along a frame line
printed inside the card on the lit sides (two, with one lamp)."""


def rim_regrowths(faces: dict, aspect: float) -> dict:
    """The faces cut inside the card along ``GROW_SIDES`` sides or more (each lacking the
    deck's rim there by ``RIM_LEAST`` or more of the width): ``{card: {(side, span):
    strip}}``, strips negative outside the face (where the rim lacks) and positive inside
    it (where a strip of the table lies along the other sides, as :func:`rim_trims`
    finds), for :func:`cut_quad`."""
    trims = _rim_shifts(faces, aspect, outward=False)
    out = {}
    for c, grow in _rim_shifts(faces, aspect, outward=True).items():
        far = {k: v for k, v in grow.items() if v >= RIM_LEAST}
        if len({side for side, _ in far}) < GROW_SIDES:
            continue
        strips = {k: -v for k, v in grow.items()}
        strips.update({k: v for k, v in trims.get(c, {}).items() if k not in strips})
        out[c] = strips
    return out


ASKEW_CHANGE = 0.075
"""Least change (share of the face's width) of the place of the step nearest a side,
between a tenth and nine tenths of its length, for a face to be taken for one cut askew:
the live pass took tigullio-international's A♠ with a wedge of the grey mat along its left
side, 0.1 of the width at the top and nothing at the bottom; the rim's check
(``rim_trims``) looks at two stretches of each side, each whole, and did not see it
(change 0.109). Of the 3,936 faces of 164 decks kept from tuning sessions, five others
change so (0.075-0.088)."""
ASKEW_DEPTH = 0.15
"""How far into the face (share of its width) the step is looked for."""
ASKEW_STEP = 20.0
"""Least step (grey levels, across two pixels) taken for an edge there."""
ASKEW_REACH = 0.04
"""Least width of the wedge (share of the face's width) at its wide end."""


def askew_cuts(faces: dict) -> dict:
    """The faces cut askew, with a wedge of the table along a side: ``{card: {side:
    change}}``, where along that side the strongest step near it (the table's edge against
    the card's) lies on a straight line whose distance from the side changes by
    ``ASKEW_CHANGE`` of the width or more and reaches ``ASKEW_REACH`` of the width at one end. A
    deck's own border or frame lies at the same inset all along a side.

    >>> face = np.full((200, 130, 3), 235, np.uint8)
    >>> askew_cuts({"AS": face})
    {}
    >>> wedge = face.copy()
    >>> for r in range(200):
    ...     wedge[r, :int(14 * (1 - r / 200))] = 120
    >>> list(askew_cuts({"AS": wedge}))
    ['AS']
    """
    out: dict = {}
    for card, face in faces.items():
        g = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
        h, w = g.shape
        g = cv2.resize(g, (max(8, int(round(RIM_HEIGHT * w / h))), RIM_HEIGHT), interpolation=cv2.INTER_AREA)
        w = g.shape[1]
        depth = max(4, int(ASKEW_DEPTH * w))
        for side, band in (("left", g), ("right", g[:, ::-1]), ("top", g.T), ("bottom", g[::-1].T)):
            n = band.shape[0]
            rows = np.arange(int(0.1 * n), int(0.9 * n))
            steps = np.abs(band[rows, 2:depth] - band[rows, :depth - 2])
            seen = steps.max(axis=1) >= ASKEW_STEP
            if seen.sum() < 0.6 * len(rows):
                continue          # no edge near this side along most of it
            t = rows[seen] / n
            v = (steps[seen].argmax(axis=1) + 1) / w
            slope, start = np.polyfit(t, v, 1)
            change = abs(slope) * 0.8
            straight = float(np.median(np.abs(v - (start + slope * t)))) <= 0.012
            if change >= ASKEW_CHANGE and straight and max(start + 0.1 * slope, start + 0.9 * slope) >= ASKEW_REACH:
                out.setdefault(card, {})[side] = round(float(change), 3)
    return out


def cut_quad(face_size: tuple, aspect: float, strips: dict) -> np.ndarray:
    """The quadrilateral (face pixels, clockwise from the top-left) whose sides lie inside
    the face's sides by the strips :func:`rim_trims` found (negative strips: outside, as
    :func:`inner_cuts` gives them, negated). ``face_size``: (width, height)."""
    fw, fh = face_size
    w, h = int(round(RIM_HEIGHT * aspect)), RIM_HEIGHT
    at = [(a + b) / 2 for a, b in RIM_SPANS]

    def line(side):
        t = [strips.get((side, k), 0.0) * w for k in range(len(RIM_SPANS))]
        if side == "top":
            return [(at[k] * w, t[k]) for k in (0, 1)]
        if side == "bottom":
            return [(at[k] * w, h - t[k]) for k in (0, 1)]
        if side == "left":
            return [(t[k], at[k] * h) for k in (0, 1)]
        return [(w - t[k], at[k] * h) for k in (0, 1)]

    def meet(p, q):
        (x1, y1), (x2, y2) = p
        (x3, y3), (x4, y4) = q
        d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
        a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
        return ((a * (x3 - x4) - (x1 - x2) * b) / d, (a * (y3 - y4) - (y1 - y2) * b) / d)

    top, right, bottom, left = (line(s) for s in ("top", "right", "bottom", "left"))
    quad = np.float32([meet(top, left), meet(top, right), meet(bottom, right), meet(bottom, left)])
    return quad * np.float32([fw / w, fh / h])


def trimmed(face: np.ndarray, aspect: float, strips: dict) -> tuple:
    """The face cut again inside the strips :func:`rim_trims` found along its sides, and
    how much shorter it is (its new height over its old)."""
    fh = face.shape[0]
    quad = cut_quad((face.shape[1], fh), aspect, strips)
    new_w = (np.hypot(*(quad[1] - quad[0])) + np.hypot(*(quad[2] - quad[3]))) / 2
    new_h = (np.hypot(*(quad[3] - quad[0])) + np.hypot(*(quad[2] - quad[1]))) / 2
    out_w = max(8, int(round(fh * new_w / new_h)))
    # Not face_of: the face is resampled a second time here, and its linear sampling with
    # a half-pixel shift left recut faces measurably further from well-cut ones than area
    # sampling does (test_plain_rim).
    dst = np.float32([[0, 0], [out_w, 0], [out_w, fh], [0, fh]])
    m = cv2.getPerspectiveTransform(quad, dst)
    return cv2.warpPerspective(face, m, (out_w, fh), flags=cv2.INTER_AREA), float(new_h / fh)


def deck_off(faces: dict, sizes: dict, seen: dict) -> tuple:
    """``(off, aspect)``: ``off(card, face, long_side)`` says how far a face (cut with that
    long side) lies from the deck's shape and size, the medians of ``faces`` and
    ``sizes`` (the larger relative difference); ``aspect``: the deck's width/height.
    ``seen``: how the camera shows each card (``stretched``), taken out first."""
    one = (1.0, 1.0)
    aspect = float(np.median([f.shape[1] / f.shape[0] / seen.get(c, one)[0] for c, f in faces.items()]))
    size = float(np.median([v / seen.get(c, one)[1] for c, v in sizes.items()]))

    def off(card, face, long_side) -> float:
        shape, length = seen.get(card, one)
        return max(abs(face.shape[1] / face.shape[0] / shape / aspect - 1), abs(long_side / length / size - 1))

    return off, aspect


def recut_faces(faces: dict, sizes: dict, seen: Optional[dict] = None) -> list:
    """Cut again, in place, the faces :func:`rim_trims` finds cut outside the card, where
    the face cut again lies nearer the deck's shape and size (the medians) than as it was
    cut; ``sizes``: each card's long side (any unit), shrunk with its face. Returns the
    cards cut again.

    A face cut at the card's own outline is of the deck's shape and size; trimmed, it would
    be smaller. So a strip fitted wrongly (the frame printed inside a light rim taken for
    the card's edge) is not trimmed. ``seen``: how the camera shows each card, ``(shape,
    length)`` factors (``stretched``), taken out of the faces before they are compared."""
    seen = seen or {}
    one = (1.0, 1.0)
    off, aspect = deck_off(faces, sizes, seen)
    done = []
    as_seen = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
    for card, strips in rim_trims(faces, as_seen).items():
        face, shorter = trimmed(faces[card], aspect * seen.get(card, one)[0], strips)
        if off(card, face, sizes[card] * shorter) <= off(card, faces[card], sizes[card]):
            faces[card], sizes[card] = face, sizes[card] * shorter
            done.append(card)
    return done
