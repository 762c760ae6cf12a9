"""Plain-deck recognition: ordinary cards found on any table and read against the deck calibrated through the camera.

Stages, each its own module (details and measured figures in docs/vision-plain.md):

- ``background``: the empty table, learnt from the camera's frames (service only);
- ``find``: card-shaped outlines, by the straight steps along their sides;
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
from vision.plain.deck import DeckError, PlainDeck, load_deck

__all__ = ["Sighting", "PlainDeck", "DeckError", "load_deck", "recognize_plain", "SIZE_RANGE"]

SIZE_RANGE = (0.75, 1.35)
"""Outlines whose long side lies outside this range of the calibrated card's (a card seen
through the same camera) are not cards: a mat's box, a card's own picture frame."""
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
    return deck.card_px * frame.shape[0] if deck.card_px else None


def recognize_plain(frame: np.ndarray, deck: PlainDeck, zones: Optional[Callable] = None,
                    table=None) -> list:
    """The cards in a BGR frame, as :class:`Sighting` objects (refusals included).

    ``zones``: a callable image point -> zone (a ``vision.zones.Calibration``).
    ``table``: a ``vision.plain.background.TableModel`` that has seen the empty table
    (the service keeps one and passes every frame): the table's own edges are then
    ignored, and what differs from the table without being a readable card (a hand)
    is reported as a refusal. Without it, the frame is read alone (a single photo)."""
    from vision.plain.decide import read_views
    from vision.plain.find import _overlap, faint_outlines, find_outlines
    from vision.plain.straighten import portrait_orders, upright_views
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"recognize_plain needs a BGR colour image (height, width, 3), got shape {frame.shape}")
    if frame.dtype != np.uint8:
        raise ValueError(f"recognize_plain needs an 8-bit image, got {frame.dtype}")
    foreground = None
    held, region, arms, last_cards = [], None, None, []
    if table is not None:
        # A still table gives the same sightings: cards lie still for several frames, and
        # a Raspberry Pi need not read them again while nothing in view changes.
        cells = cell_means(frame)
        last = getattr(table, "last_read", None)
        # (Not after a frame in which a moving hand hid places: they are looked at now.)
        if last is not None and last[0].shape == cells.shape and last[2] is deck \
                and (len(last) < 5 or last[4] is None) and float(np.abs(cells - last[0]).max()) <= STILL_CELL:
            return [_copy(s, zones) for s in last[1]]
        foreground = table.foreground(frame)
        if last is not None and last[0].shape == cells.shape and last[2] is deck and len(last) > 3:
            size = _expected_size(deck, frame)
            changed = (np.abs(_exposed_like(cells, last[0]) - last[0]) > STILL_CELL).astype(np.uint8)
            arms = _moving_arms(foreground, changed, size)
            if len(last) > 4 and last[4] is not None:
                changed = changed | last[4]         # what a hand hid last time is looked at now
            last_cards = last[3]
            held, region = _changed_region(changed, cells, last_cards, size, frame.shape)
    size = _expected_size(deck, frame)
    if size:
        kw = dict(sizes=(size,), min_long=SIZE_RANGE[0] * size, max_long=SIZE_RANGE[1] * size)
    else:
        kw = dict(min_long=MIN_CARD_PX)
    look = region
    if arms is not None:
        # Nothing is looked for under a hand and arm reaching in (see ``_moving_arms``).
        look = np.full(frame.shape[:2], 255, np.uint8) if region is None else region.copy()
        look[arms > 0] = 0
    if look is None or look.any():
        outlines = find_outlines(frame, deck.aspect, table=table, mask=look, **kw)
    else:
        outlines = []
    if foreground is not None:
        seen = foreground
        if held:
            # The cards held from earlier frames are explained: no faint look around them.
            seen = foreground.copy()
            for h in held:
                cv2.fillConvexPoly(seen, np.round(h.corners).astype(np.int32), 0)
        outlines = faint_outlines(frame, seen, outlines, deck.aspect, table, **kw)
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
        r = reads.get(o.corners, views[0]) if reads is not None else None
        if r is None:
            r = read_views(views, deck, card_px=o.long_side)
            if reads is not None:
                reads.put(o.corners, views[0], r)
        up, turned = portrait_orders(o.corners)
        if r.card is not None:
            part_of_named.update(o.inside)
        s = Sighting(r.card, (turned if r.turned else up).tolist(), r.score, None, r.margin, r.reason,
                     r.guess, r.detail)
        sightings.append((i, s))
    # A refusal that holds a named card is the mat's box (or a tray) around it: dropped.
    named_inside = {i for i, s in sightings if s.card is not None}
    held_named = np.array([h.sighting.center for h in held if h.sighting.card is not None], np.float32)
    kept = [(outlines[i].area, outlines[i].corners, s) for i, s in sightings
            if s.card is not None or not (set(outlines[i].inside) & named_inside
                                          or _holds_any(outlines[i].corners, held_named))]
    if arms is not None:
        # A card of the last frame read that a moving hand now reaches over, and that was
        # not found again: something unreadable lies in its place (the tracker holds it).
        found = [k[1] for k in kept]
        for c in last_cards:
            if any(c is h for h in held) or not _touches(c.corners, arms) \
                    or any(_overlap(c.corners, f) >= 0.3 for f in found):
                continue
            hidden = Sighting(None, [list(map(float, p)) for p in c.sighting.corners], 0.0, reason=UNDER_HAND,
                              guess=c.sighting.card if c.sighting.card is not None else c.sighting.guess)
            held.append(_Held(c.corners, c.area, hidden, c.cells))
    if held:
        if reads is not None:
            for h in held:
                reads.touch(h.corners)
        # In the order a whole read gives them: outermost first.
        kept = sorted(kept + [(h.area, h.corners, _copy(h.sighting, None)) for h in held],
                      key=lambda k: -k[0])
    out = [s for _, _, s in kept]
    if foreground is not None:
        out += _unexplained(foreground, out, size)
        # What each card was read from stays with it while it is held.
        cards = [next((h for h in held if h.corners is c), None) or _Held(c, a, _copy(s, None), cells)
                 for a, c, s in kept]
        unseen = None
        if arms is not None:
            # The cells the hand kept from being looked at, for the next frame.
            unseen = (cv2.resize(arms, (cells.shape[1], cells.shape[0]), interpolation=cv2.INTER_AREA) > 0
                      ).astype(np.uint8)
        table.last_read = (cells, [_copy(s, None) for s in out], deck, cards, unseen)
    if reads is not None:
        reads.next_frame()
    if zones is not None:
        for s in out:
            s.zone = zones(s.center)
    return out


STILL_CELL = 3.0
"""Largest change (grey levels, averaged over 16x16 px cells) of a frame that counts as the
same view as the last one read."""


def cell_means(frame: np.ndarray) -> np.ndarray:
    """The frame's grey level averaged over 16x16 px cells (float32): what tells a still
    view from a changed one (the reader's ``STILL_CELL``, the calibration's ``MOVING``)."""
    h, w = frame.shape[:2]
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (max(1, w // 16), max(1, h // 16)), interpolation=cv2.INTER_AREA).astype(np.float32)


HELD_MARGIN = 16
"""A card is held from an earlier frame only if nothing changed within this many px of it
(and within a card's length of it; see ``_changed_region``)."""


@dataclass
class _Held:
    """A card (or a refusal) of the last frame read, as it may be held into the next."""

    corners: np.ndarray     # its outline's corners (frame px), as found
    area: float             # the outline's area (the order of a frame's sightings)
    sighting: Sighting
    cells: np.ndarray       # ``cell_means`` of the frame it was read in


def _exposed_like(cells: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``cells`` brought to ``ref``'s exposure: one gain for the frame, the median over the
    cells (most of them are the still table), so that a camera that adjusts its exposure to
    a card laid elsewhere does not make every place look changed."""
    ratio = float(np.median((ref + 8.0) / (cells + 8.0)))
    return cells * ratio + 8.0 * (ratio - 1.0)


def _changed_region(changed: np.ndarray, cells: np.ndarray, cards: list, size: Optional[float], shape) -> tuple:
    """``(held, region)``: of ``cards`` (the last frame read's, as ``_Held``), those that lie
    still with nothing changed near them, and the mask (uint8, frame size) of where the
    frame must be looked at again; ``([], None)`` when the whole frame must be.

    ``changed``: the cells (``cell_means``) that differ from the last frame read by more
    than ``STILL_CELL`` (at the same exposure); ``cells``, this frame's. The region is every changed place
    grown by a card's length (a card laid there lies wholly inside it), and the whole
    of every card of the last frame that touches it or changed since it was read; a card
    that touches none of it and whose own cells have not changed since it was read is
    held: the whole frame's read would find it at the same place (within the pixel's
    fraction that sensor noise moves a refined outline) and give it the same reading
    (the reading cache's test), so it is not looked for again. (What differs from the
    table without being a card, a hand, is worked out from the whole frame as before.)"""
    if not size or not cards:
        return [], None
    h, w = shape[:2]
    gh, gw = cells.shape
    sx, sy = gw / w, gh / h
    reach = int(np.ceil((size + HELD_MARGIN) * max(sx, sy)))
    region = cv2.dilate(changed, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    grow = np.ones((2 * int(np.ceil(HELD_MARGIN * max(sx, sy))) + 1,) * 2, np.uint8)
    prints, keep = [], []
    for c in cards:
        fp = np.zeros((gh, gw), np.uint8)
        cv2.fillConvexPoly(fp, np.round(c.corners * [sx * 16, sy * 16]).astype(np.int32), 1, cv2.LINE_8, 4)
        fp = cv2.dilate(fp, grow)
        on = fp.astype(bool)
        prints.append(fp)
        keep.append(bool(on.any()) and c.cells.shape == cells.shape
                    and float(np.abs(_exposed_like(cells, c.cells) - c.cells)[on].max()) <= STILL_CELL)
    grown = True
    while grown:
        grown = False
        for i, fp in enumerate(prints):
            if keep[i] and (region & fp).any():
                keep[i], grown = False, True
            if not keep[i] and not (region >= fp).all():
                region |= fp
                grown = True
    held = [c for c, k in zip(cards, keep, strict=True) if k]
    if not held or region.mean() > 0.75:
        return [], None
    return held, cv2.resize(region * 255, (w, h), interpolation=cv2.INTER_NEAREST)


UNDER_HAND = "a hand reaches over this card"
"""The refusal of a card read earlier over which a moving hand now lies."""


def _moving_arms(foreground: np.ndarray, changed: np.ndarray, size: Optional[float]) -> Optional[np.ndarray]:
    """Where a hand and arm reach in over the table while moving (uint8 mask, frame size,
    grown by ``HELD_MARGIN``), or None: the places that differ from the empty table, in
    one piece larger than a card, reaching to the frame's edge (the table's edge: an arm),
    and changed since the last frame read. Nothing there can be played yet: a card is
    played when it lies still and is let go, clear of the hand. Not looking for cards
    there makes a frame of a hand laying a card cheap, so that the reader is free when
    the card first lies still. (A card cut by the frame's edge is not read either; a
    still hand does not move, and its frames are read as before.)"""
    if not size:
        return None
    k = 4                                   # looked at coarsely, as the faint look does
    fg = np.ascontiguousarray(foreground[::k, ::k])
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    gh, gw = fg.shape
    moving = cv2.resize(changed, (gw, gh), interpolation=cv2.INTER_NEAREST)
    arms = None
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < 0.7 * (size / k) ** 2 or not (x == 0 or y == 0 or x + w >= gw or y + h >= gh):
            continue
        piece = labels == i
        if not moving[piece].any():
            continue
        if arms is None:
            arms = np.zeros((gh, gw), np.uint8)
        arms[piece] = 255
    if arms is None:
        return None
    r = int(np.ceil(HELD_MARGIN / k))
    arms = cv2.dilate(arms, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    h, w = foreground.shape[:2]
    return cv2.resize(arms, (gw * k, gh * k), interpolation=cv2.INTER_NEAREST)[:h, :w]


def _touches(corners: np.ndarray, mask: np.ndarray) -> bool:
    """Whether the outline covers any place of the mask."""
    x, y, w, h = cv2.boundingRect(np.round(np.asarray(corners)).astype(np.int32))
    x, y = max(x, 0), max(y, 0)
    sub = mask[y:y + h, x:x + w]
    if not sub.any():
        return False
    poly = np.zeros_like(sub)
    cv2.fillConvexPoly(poly, np.round(np.asarray(corners) - [x, y]).astype(np.int32), 255)
    return bool((poly & sub).any())


def _holds_any(corners: np.ndarray, points: np.ndarray) -> bool:
    """Whether the outline holds any of the points (x, y)."""
    c = np.asarray(corners, np.float32)
    return any(cv2.pointPolygonTest(c, (float(x), float(y)), False) >= 0 for x, y in points)


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
    most of a frame's work. What is kept is whatever ``decide.read_views`` returned."""

    def __init__(self, deck):
        self.deck = deck
        self.entries = []          # [corners (4, 2), print of the face, reading, age]

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

    def touch(self, corners) -> None:
        """Keep the reading of the card at ``corners`` (held, not looked at again) as if
        it had been read in this frame."""
        q = np.asarray(corners, np.float32)
        for e in self.entries:
            if float(np.abs(e[0] - q).max()) <= SAME_PLACE:
                e[3] = 0

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
