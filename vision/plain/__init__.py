"""Plain-deck recognition: ordinary cards found on any table and read against the deck calibrated through the camera.

Stages, each its own module (details and measured figures in docs/vision-plain.md):

- ``background``: the empty table, learnt from the camera's frames (service only);
- ``find``: card-shaped outlines, by the straight steps along their sides;
- ``fit``: a card of the calibrated size fitted over print no outline explains (faint edges);
- ``straighten``: the face warped upright at the canonical size, in its own light;
- ``read``: features, matching, and the close look where two cards differ;
- ``decide``: which card, or a refusal with its reason;
- ``deck``: the calibrated deck and its file.

>>> deck = load_deck("my-deck.npz")                        # doctest: +SKIP
>>> [s.card for s in recognize_plain(frame, deck)]         # doctest: +SKIP
[Card('JH'), None]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import cv2
import numpy as np

from engine.cards import Card
from vision.plain.deck import DeckError, PlainDeck, card_size_in, load_deck
from vision.plain.outline import PHOTO_MAX_SLANT, _overlap

__all__ = ["Sighting", "PlainDeck", "DeckError", "load_deck", "recognize_plain", "SIZE_RANGE"]

SIZE_RANGE = (0.6, 1.35)
"""Outlines whose long side lies outside this range of the calibrated card's (a card seen
through the same camera) are not cards: a mat's box, a card's own picture frame. A wide
lens's barrel distortion squeezes a card near the frame's corner along the line to the
frame's middle: with 80 degrees across and k1 = -0.14 a card lying along that line is seen
0.6 as long as in the middle (its width 0.87)."""
TABLE_MAX_SLANT = 45.0
"""With a learnt table, the largest slant (``outline.seen_slant``) at which an outline of other
proportions than the deck's is taken for the deck's card: the same lens squeezes a card near
the frame's corner one way by about 0.6 / 0.87, as a slant of 46 degrees would."""
PHOTO_SIZE_RANGE = (0.55, 1.5)
"""The same for a single photo (no learnt table), which may be taken at a slant: a phone held
8-26 degrees off straight down with a wide lens sees a card 0.55-1.4 times as long as the
calibration photos' median card, as it lies near the frame's far or near edge (tuning-slant
photos)."""
MIN_CARD_PX = 60
"""Smallest card (long side, px) looked for when the deck gives no size."""


@dataclass
class Sighting:
    """One card-shaped thing seen in a frame.

    ``card`` is the engine card, or None when the reader refuses (``reason`` says why);
    ``corners`` are 4 image points (x, y), clockwise from the card's top-left corner as
    the card reads upright when it was read, else in image order; ``confidence`` is how
    well the face matches the card's template (0-1), ``margin`` its lead in the closest
    duel; ``zone`` is the zone of the card's centre when a zone map was given; ``guess``
    is the best candidate even when refused (for diagnostics, never for play).
    """

    card: Optional[Card]
    corners: list
    confidence: float
    zone: Optional[str] = None
    margin: float = 0.0
    reason: Optional[str] = None
    guess: Optional[Card] = None
    detail: Optional[dict] = None

    @property
    def center(self):
        """The mean of the four corners, (x, y)."""
        pts = np.asarray(self.corners, dtype=float)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    def as_dict(self) -> dict:
        """JSON-ready form: ``card`` as text or None, corners as lists of floats."""
        return {
            "card": None if self.card is None else str(self.card),
            "zone": self.zone,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(float(self.confidence), 3),
            "margin": round(float(self.margin), 3),
            "reason": self.reason,
        }


def _expected_size(deck: PlainDeck, frame) -> Optional[float]:
    return card_size_in(deck, frame)


def recognize_plain(frame: np.ndarray, deck: PlainDeck, zones: Optional[Callable] = None,
                    table=None) -> list:
    """The cards in a BGR frame, as :class:`Sighting` objects (refusals included).

    ``zones``: a callable image point -> zone (a ``vision.zones.Calibration``).
    ``table``: a ``vision.plain.background.TableModel`` that has seen the empty table
    (the service keeps one and passes every frame): the table's own edges are then
    ignored, and what differs from the table without being a readable card (a hand)
    is reported as a refusal. Without it, the frame is read alone (a single photo)."""
    from vision.plain.decide import read_views
    from vision.plain.change import relit_outlines
    from vision.plain.find import faint_outlines, find_outlines
    from vision.plain.fit import fitted_outlines
    from vision.plain.straighten import portrait_orders, squarish, upright_views
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"recognize_plain needs a BGR colour image (height, width, 3), got shape {frame.shape}")
    if frame.dtype != np.uint8:
        raise ValueError(f"recognize_plain needs an 8-bit image, got {frame.dtype}")
    foreground = None
    if table is not None:
        # A still table gives the same sightings: cards lie still for several frames, and
        # a Raspberry Pi need not read them again while nothing in view changes.
        cells = cell_means(frame)
        last = getattr(table, "last_read", None)
        if last is not None and last[0].shape == cells.shape and last[2] is deck \
                and float(np.abs(cells - last[0]).max()) <= STILL_CELL:
            return [_copy(s, zones) for s in last[1]]
        # Learnt from this frame once its cards are known (``table.follow`` below).
        foreground = table.foreground(frame, update=False)
    size = _expected_size(deck, frame)
    # A single photo may be taken at a slant: cards nearer the frame's far edge look smaller and
    # of other proportions than the deck's (see ``outline.PHOTO_MAX_SLANT``).
    sizes = SIZE_RANGE if table is not None else PHOTO_SIZE_RANGE
    if size:
        kw = dict(sizes=(size,), min_long=sizes[0] * size, max_long=sizes[1] * size)
    else:
        kw = dict(min_long=MIN_CARD_PX)
    slant = TABLE_MAX_SLANT if table is not None else PHOTO_MAX_SLANT
    outlines = find_outlines(frame, deck.aspect, table=table, slant=slant, **kw)
    if foreground is not None:
        outlines = faint_outlines(frame, foreground, outlines, deck.aspect, table, **kw)
        if size:
            # Print still unexplained: a card whose edge is too faint to follow (a light card
            # on the white mat, seen small), fitted whole at the calibrated size.
            outlines = outlines + fitted_outlines(frame, foreground, outlines, deck.aspect, table, size)
            if deck.meta.get("relit") and not table.busy:
                # A light card on light cloth under a light that moved since the table was
                # learnt: neither its sides nor its colour differ enough, until the light's
                # change across the table is taken out. (Only for a deck whose calibration
                # found cards so: it costs 5-10 ms a frame.)
                relit = relit_outlines(frame, table, deck.aspect, kw["min_long"], kw["max_long"],
                                       mask=_not_covered(frame, outlines, size))
                # Not over a card found already: the relit difference also shows its shadow
                # beyond the rim left out (``_not_covered``), whose box is that card again.
                outlines = outlines + [o for o in relit if all(_overlap(o.corners, k.corners) < RELIT_OVERLAP
                                                               for k in outlines)]
    # Outermost first: an outline inside a card that was read is part of that card
    # (its picture's frame); inside a refusal it may be a card (in a mat's box).
    order = sorted(range(len(outlines)), key=lambda i: -outlines[i].area)
    part_of_named = set()
    sightings = []
    reads = _ReadCache.of(table, deck)
    for i in order:
        if i in part_of_named:
            continue
        o = outlines[i]
        views = upright_views(frame, o.corners, deck.aspect)
        got = reads.get(o.corners, views[0]) if reads is not None else None
        sideways = False
        if got is None:
            r, used = read_views(views, deck, card_px=o.long_side,
                                 **({"min_score": FITTED_MIN_SCORE} if o.fitted else {})), o
            if r.card is None and foreground is not None:
                r, used = _grown_reading(frame, o, outlines, table, deck, kw, r)
                if r.card is None and size:
                    r, used = _refitted_reading(frame, o, table, deck, size, r, used)
            elif r.card is None:
                r, used = _mended_reading(frame, o, deck, kw, r)
            if reads is not None:
                reads.put(o.corners, views[0], (r, used))
        else:
            r, used = got
        o = used
        if table is None and squarish(o.corners) >= SIDEWAYS_SQUARISH:
            r, sideways = _sideways_reading(frame, o, deck, r)
        up, turned = portrait_orders(o.corners, sideways)
        if r.card is not None:
            part_of_named.update(o.inside)
        s = Sighting(r.card, (turned if r.turned else up).tolist(), r.score, None, r.margin, r.reason,
                     r.guess, r.detail)
        sightings.append((i, s))
    # A refusal that holds a named card is the mat's box (or a tray) around it: dropped.
    named_inside = {i for i, s in sightings if s.card is not None}
    out = [s for i, s in sightings
           if s.card is not None or not (set(outlines[i].inside) & named_inside)]
    if foreground is not None:
        out += _unexplained(foreground, out, size)
        table.last_read = (cells, [_copy(s, None) for s in out], deck)
        # The table is learnt where no card lies: a light card's paper on light cloth is
        # not foreground, only its print.
        table.follow(frame, [np.asarray(s.corners, np.float32) for s in out])
    if reads is not None:
        reads.next_frame()
    if zones is not None:
        for s in out:
            s.zone = zones(s.center)
    return out


RELIT_OVERLAP = 0.3
"""An outline found in the relit difference is dropped where it overlaps an outline found
already by this share of the smaller one (as ``fit.fitted_outlines`` drops its fits): a
light card lying still, its place kept out of the learnt table, showed there with its
shadow and was named twice (tuning light tables)."""


def _not_covered(frame, outlines: list, size: float) -> np.ndarray:
    """Where (uint8 mask, frame size) none of ``outlines`` lies, nor a tenth of a card's
    length round them (their shadows)."""
    mask = np.full(frame.shape[:2], 255, np.uint8)
    for o in outlines:
        cv2.fillConvexPoly(mask, np.round(o.corners).astype(np.int32), 0)
    if outlines:
        r = max(1, int(round(0.1 * size)))
        mask = cv2.erode(mask, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    return mask


SIDEWAYS_SQUARISH = 0.88
"""In a single photo, an outline whose shorter sides are at least this share of its longer
ones is read with either pair taken for the card's short sides (``_sideways_reading``):
a phone held at a slant foreshortens a card lying along its view until its long sides
look as short as its short ones or shorter. (Tuning photos, ``bench.plain_tuning.photo_tuning
--camera tuning-slant-large``: the sides of cards of a deck 0.75 wide for its height,
read rightly, looked 0.52-0.93 as long as each other; the three read the wrong way
round, 0.98-1.00.)"""


def _sideways_reading(frame, o, deck, r):
    """The reading of outline ``o`` of a single photo with its longer sides taken for the
    card's short ones, where that names a card and the usual reading ``r`` does not:
    ``(reading, sideways)``. Where both name a card and not the same one, a refusal."""
    from vision.plain.decide import read_views
    from vision.plain.straighten import upright_views
    other = read_views(upright_views(frame, o.corners, deck.aspect, sideways=True), deck, card_px=o.long_side)
    if other.card is None:
        return r, False
    if r.card is None:
        return other, True
    if r.card != other.card:
        r.reason = f"read as {r.card} one way round and as {other.card} the other"
        r.guess, r.card = r.card, None
    return r, False


STILL_CELL = 3.0
"""Largest change (grey levels, averaged over 16x16 px cells) of a frame that counts as the
same view as the last one read."""


def cell_means(frame: np.ndarray) -> np.ndarray:
    """The frame's grey level averaged over 16x16 px cells (float32): what tells a still
    view from a changed one (the reader's ``STILL_CELL``, the calibration's ``MOVING``)."""
    h, w = frame.shape[:2]
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (max(1, w // 16), max(1, h // 16)), interpolation=cv2.INTER_AREA).astype(np.float32)


SAME_PLACE = 0.6
"""Largest move (frame px) of any corner of a card's outline for it to count as the card
read in an earlier frame ..."""
SAME_VIEW = 0.12
"""... and largest change of its straightened face's print (in its own light, so that the
camera's exposure and white balance do not count; averaged over 8x8 px blocks, any
block) for that reading to stand without reading it again. On tuning frames, a still card
found again within a fraction of a pixel, under a camera that adjusts its exposure to a
card laid beside it, changed by 0.02-0.12 (more when its outline shifted by half a pixel:
it is read again); a finger or a lamp's glare over it, or another card, changes it far
more."""
KEEP_FRAMES = 30
"""Frames a reading is kept while its card is not seen (a hand passing over it)."""


class _ReadCache:
    """The readings of the cards in recent frames of one camera, each with its outline
    and its straightened face. A card whose outline has not moved and whose face has not
    changed (no finger, shadow or lamp over it) since it was read is not read again:
    while a hand lays a card, the cards already on the table lie still, and reading is
    most of a frame's work. What is kept is the reading (what ``decide.read_views``
    returned) with the outline it was read at (a refused outline grown to its card's edge
    is kept with the found one, and is not grown again while it lies still)."""

    def __init__(self, deck):
        self.deck = deck
        self.entries = []          # [corners (4, 2), print of the face, (reading, outline), age]

    @classmethod
    def of(cls, table, deck) -> Optional["_ReadCache"]:
        """The cache kept with the service's table model (None without a table)."""
        if table is None:
            return None
        cache = getattr(table, "read_cache", None)
        if cache is None or cache.deck is not deck:
            cache = table.read_cache = cls(deck)
        return cache

    def __deepcopy__(self, memo):
        # A copy of the table model (calibration freezes one) starts with no readings,
        # and shares the deck rather than copying it.
        return _ReadCache(self.deck)

    def get(self, corners, face):
        """The earlier reading of this card, or None when it has moved or changed."""
        q = np.asarray(corners, np.float32)
        near = [e for e in self.entries if float(np.abs(e[0] - q).max()) <= SAME_PLACE]
        if not near:
            return None
        p = _print(face)
        h, w = p.shape
        for e in near:
            if e[1].shape != p.shape:
                continue
            d = cv2.resize(cv2.absdiff(e[1], p), (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
            if float(d.max()) <= SAME_VIEW:
                e[3] = 0
                return e[2]
        return None

    def put(self, corners, face, reading) -> None:
        q = np.asarray(corners, np.float32)
        # A card read again (it changed) replaces its earlier reading.
        self.entries = [e for e in self.entries if float(np.abs(e[0] - q).max()) > SAME_PLACE]
        self.entries.append([q.copy(), _print(face), reading, 0])

    def next_frame(self) -> None:
        for e in self.entries:
            e[3] += 1
        self.entries = [e for e in self.entries if e[3] <= KEEP_FRAMES][-32:]


def _print(face: np.ndarray) -> np.ndarray:
    """A straightened face's grey in units of the light falling on it (what varies more
    slowly than about 8 px divided out), float32."""
    g = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = g.shape
    small = cv2.resize(g, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    light = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.5), (w, h), interpolation=cv2.INTER_LINEAR)
    return g / (light + 8.0)


def _copy(s: "Sighting", zones) -> "Sighting":
    out = Sighting(s.card, [list(map(float, p)) for p in s.corners], s.confidence, None, s.margin, s.reason,
                   s.guess, s.detail)
    if zones is not None:
        out.zone = zones(out.center)
    return out


def _grown_reading(frame, o, outlines, table, deck, kw, r):
    """A refused live outline grown to its card's edge and read again
    (``seat.grow_to_table``): an outline cut short by a line printed inside the card (its
    picture's frame, the inner edge of its index strip) matches no card well, or not
    clearly its twin. The grown outline is kept only when it reads; else the refusal
    stands. Returns (reading, outline)."""
    from vision.plain.decide import read_views
    from vision.plain.seat import grow_to_table
    from vision.plain.straighten import upright_views
    g = grow_to_table(frame, o, table, deck.aspect, kw.get("min_long", MIN_CARD_PX), kw.get("max_long", np.inf),
                      others=outlines)
    if g is None:
        return r, o
    again = read_views(upright_views(frame, g.corners, deck.aspect), deck, card_px=g.long_side)
    return (again, g) if again.card is not None else (r, o)


def _mended_reading(frame, o, deck, kw, r):
    """A refused outline of a single photo mended and read again; the mended outline is
    kept only when it reads, else the refusal stands. Returns (reading, outline). Mended
    are: a side that runs on past both its ends (``photo.along_the_tables_lines``: a grout
    line past the card's corner, the outline taking in a strip of the floor beside the
    card), moved in to the card's edge (``photo.pulled_in``); and an outline that was a
    court's printed frame set further inside the card than the finder grows it
    (``photo.grow_outlines`` reaching ``REFUSED_GROW`` of the outline's short side)."""
    from vision.plain.decide import read_views
    from vision.plain.photo import along_the_tables_lines, grow_outlines, pulled_in
    from vision.plain.straighten import upright_views
    lo, hi = kw.get("min_long", MIN_CARD_PX), kw.get("max_long", np.inf)

    def pulled():
        along = along_the_tables_lines(frame, o.corners)
        return pulled_in(frame, o, along, aspect=deck.aspect, min_long=lo, max_long=hi,
                         slant=PHOTO_MAX_SLANT) if along else None

    def grown():
        g = grow_outlines(frame, [o], deck.aspect, lo, hi, slant=PHOTO_MAX_SLANT, reach=REFUSED_GROW, margin=False)[0]
        return g if g is not o else None

    for mend in (pulled, grown):          # the second only where the first does not read
        p = mend()
        if p is not None:
            again = read_views(upright_views(frame, p.corners, deck.aspect), deck, card_px=p.long_side)
            if again.card is not None:
                return again, p
    return r, o


REFUSED_GROW = 0.35
"""How far beyond a refused outline of a single photo (a fraction of its short side) the
card's edge is looked for (``_mended_reading``); every outline is grown up to
``photo.GROW_MAX``. The standard design's courts have a frame inset by a sixth of the
card's width: at 169 px on slate, with grout lines breaking the card's own edge, the frame
was the outline (82 px wide for 124) and lay 0.26 of its width inside the card."""


REFIT_OFF = 0.05
"""A refused live outline whose long side differs from the calibrated card's by more than
this share is off the card (``_refitted_reading``). Cards seen through one camera above
the table are all about the calibrated size (on tuning sessions, within 4.5% of it); a
refused outline 10% too small had followed a frame printed inside the card (a court's),
one 10% too large a card's shadow on the white mat."""
REFIT_SCALES = np.arange(0.94, 1.07, 0.02)
"""Sizes (shares of the calibrated card's long side) at which a refused outline is fitted
again first; an outline off the card's size (``REFIT_OFF``) is then fitted at any size a
card may have (``fit.FIT_SCALES``). Of fits about as well supported, the fit keeps the
largest, which may take in a line beside the card: a jack of diamonds whose top side lay
along the grey A4 mat's white border was found 20% short, and fitted at any size came out
11% too long, its far side on the mat's print (tuning, ``mat-busy``), and refused again."""

FITTED_MIN_SCORE = 0.8
"""Least match (``decide.read_views``' score) of the view of a fitted outline (laid by the
fit's search, ``fit.fitted_outline``: where print lies that no outline explains, or over a
refused outline) for its card to be named; views of outlines found from their edges need
``decide.MIN_SCORE``. The fit chooses among many places and sizes, and where cards
overlap, a rectangle of the card's size can stand on the sides of two of them: a ten of
clubs lying over an ace of spades (the two one outline, refused) was fitted a sixth of a
card along from the ten, and its view, part ten and part ace, matched the nine of clubs by
0.71 (a quick run's photo session, 640x480, cards 121 px; tuning data now). On the kept
tuning replays, 73 refitted outlines and 32 fitted where print lay unexplained were named,
all rightly, 99 of them at 0.8 or more (the others 0.72-0.79); of 4,728 cards named in
those replays, 19 matched below 0.8."""


def _refitted_reading(frame, o, table, deck, size, r, used):
    """A refused live outline ``o`` replaced by the card of about the calibrated size best
    fitted over the same place (``fit.fit_card``, its sides on edges new to the table)
    where that reads as a card with a match of ``FITTED_MIN_SCORE`` or more; else the
    refusal ``r`` (of outline ``used``) stands. Returns (reading, outline).

    An outline of about the card's size may still be skewed, one corner a tenth of a card
    off where the card's side runs along a line of the table (the mat's white border):
    the view then puts the corner index beside its place and twins lean the wrong way."""
    from vision.plain.decide import read_views
    from vision.plain.fit import FIT_SCALES, fitted_outline
    from vision.plain.straighten import upright_views
    off_size = abs(o.long_side / size - 1.0) > REFIT_OFF
    centre = tuple(map(float, o.corners.mean(axis=0)))
    # An outline smaller than the card lies on its print (a court's frame, a block of pips):
    # the edges inside it do not say which way the card lies.
    within = o.corners if off_size and o.long_side < size else None
    for scales in ((REFIT_SCALES, FIT_SCALES) if off_size else (REFIT_SCALES,)):
        g = fitted_outline(frame, table.mean, centre, size, deck.aspect, within=within, scales=scales)
        if g is None:
            continue
        g.blob, g.inside = o.blob, list(o.inside)          # the same card's place, as a grown outline keeps
        again = read_views(upright_views(frame, g.corners, deck.aspect), deck, card_px=g.long_side,
                           min_score=FITTED_MIN_SCORE)
        if again.card is not None:
            return again, g
    return r, used


def _unexplained(foreground: np.ndarray, sightings: list, size: Optional[float]) -> list:
    """Refusals for what differs from the empty table without being a card read or
    refused (a hand over a card, a card cut by a sleeve): the tracker holds the cards
    placed there while it lies."""
    mask = foreground.copy()
    for s in sightings:
        cv2.fillConvexPoly(mask, np.round(np.asarray(s.corners)).astype(np.int32), 0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    least = 0.25 * (size or MIN_CARD_PX) ** 2 * 0.7
    out = []
    for c in cs:
        if cv2.contourArea(c) < least:
            continue
        # Reported where the blob is thickest (a palm, or the card under it), not at
        # its middle, which an arm reaching in from the table's edge would pull away.
        x, y, w, h = cv2.boundingRect(c)
        blob = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(blob, [c], -1, 255, -1, offset=(1 - x, 1 - y))
        dist = cv2.distanceTransform(blob, cv2.DIST_L2, 5)
        _, r, _, (px, py) = cv2.minMaxLoc(dist)
        half = max(r, 0.35 * (size or MIN_CARD_PX))
        cx, cy = px - 1 + x, py - 1 + y
        box = [[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half], [cx - half, cy + half]]
        out.append(Sighting(None, box, 0.0, reason="something that is not a card lies here (a hand?)"))
    return out
