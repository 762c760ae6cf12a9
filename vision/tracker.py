"""The frame-to-frame tracker: turns per-frame card sightings into table events for the referee.

A card becomes an event only when it has been seen steadily: ``k`` frames in the
same zone. It is taken as gone only after ``m`` frames unseen, so a hand passing over
a card does not make it disappear and reappear; while something unreadable lies in its
zone (a refusal of the plain-deck reader: a hand over it) it is not counted unseen at
all, for up to ``hold`` frames. Anything contradictory (one card in
two zones, or the same card twice in a frame) becomes a ``vision_error`` event,
never a guess.

>>> t = Tracker(k=2, m=3)
>>> t.update([("JH", "W")])
[]
>>> t.update([("JH", "W")])
[{'type': 'play', 'seat': 'W', 'card': 'JH'}]
>>> [t.update([]) for _ in range(3)][-1]
[{'type': 'removed', 'card': 'JH', 'zone': 'W'}, {'type': 'collect'}]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from engine.cards import Card

PLAY_ZONES = ("N", "E", "S", "W")
READER_ZONE = "READER"
"""The reader window's one zone: a card read there is a ``read`` event (not logged as
such: the service turns it into a sealed ``dealt`` for the seat being dealt)."""


@dataclass
class _CardState:
    zone: Optional[str] = None        # where it is placed (an event was emitted), or None
    absent: int = 0                   # consecutive frames not seen in its placed zone
    candidate: Optional[str] = None   # zone it is being seen in, not yet placed
    seen: int = 0                     # frames seen in the candidate zone
    gap: int = 0                      # frames since the candidate was last seen
    hidden: int = 0                   # frames its zone held only something unreadable, since last seen


class Tracker:
    """Per-frame sightings in, table events out (JSON-ready dicts of the log's vocabulary).

    - ``{"type": "play", "seat": S, "card": C}`` when C has been in S's play zone ``k`` frames
    - ``{"type": "upcard", "card": C}`` in ``UP``; ``{"type": "read", "card": C}`` in the
      reader window (``READER``); in ``RACK`` (the discard spot) a ``vision_error`` that
      does not name the card, unless ``rack_face_up`` (practice games only: everyone sees
      the computer's cards) makes it ``{"type": "dealt", "seat": rack_seat, "card": C}``
    - ``{"type": "removed", "card": C, "zone": Z}`` after ``m`` frames without it
    - ``{"type": "collect"}`` when the play zones, having held cards, are all empty again
    - ``{"type": "vision_error", "reason": ..., "cards": [...]}`` for a card in two zones
      or seen twice in one frame (once per episode, not every frame)

    Sightings may be :class:`vision.stickers.Sighting` objects, dicts with ``card`` and
    ``zone``, or ``(card, zone)`` pairs; sightings off the mat (no zone) are ignored. A
    sighting with a zone but no card (something there, not read) keeps a card placed
    in that zone from counting as unseen, for at most ``hold`` frames in a row
    (default ``6 * m``), after which it is counted unseen as usual.
    """

    def __init__(self, k: int = 3, m: int = 5, rack_seat: Optional[str] = None,
                 hold: Optional[int] = None, rack_face_up: bool = False):
        if int(k) < 1 or int(m) < 1:
            raise ValueError(f"tracker needs k ≥ 1 and m ≥ 1 frames (got k={k}, m={m})")
        self.hold = 6 * int(m) if hold is None else int(hold)
        if rack_seat is not None and rack_seat not in PLAY_ZONES:
            raise ValueError(f"rack seat {rack_seat!r} is not a seat: use N, E, S or W")
        self.k, self.m, self.rack_seat = int(k), int(m), rack_seat
        # The face-up rack under the overhead camera shows the computer's hand to everyone:
        # only a practice game may use it (the reader keeps the cards secret).
        self.rack_face_up = bool(rack_face_up)
        self.frame = 0
        self._cards: dict = {}
        self._play_held = False
        self._errors: dict = {}       # error key → last frame it was true

    @classmethod
    def from_config(cls, config: dict) -> "Tracker":
        """From a config section like ``{"k": 3, "m": 5, "rack_seat": "E"}``."""
        extra = set(config) - {"k", "m", "rack_seat", "rack_face_up"}
        if extra:
            raise ValueError(f"unknown tracker setting(s) {sorted(extra)}: use k, m, rack_seat, "
                             "rack_face_up")
        return cls(config.get("k", 3), config.get("m", 5), config.get("rack_seat"),
                   rack_face_up=config.get("rack_face_up", False))

    def assume(self, card, zone: str) -> None:
        """Take ``card`` as already lying in ``zone`` (no event): after a restart the
        cards of the trick in progress are still on the table, and seeing them again
        must not make them new plays."""
        state = self._cards.setdefault(Card(card), _CardState())
        state.zone, state.absent, state.candidate, state.seen = zone, 0, None, 0
        if zone in PLAY_ZONES:
            self._play_held = True

    def placed(self) -> dict:
        """Cards currently taken as lying on the table: ``{card: zone}``."""
        return {c: s.zone for c, s in self._cards.items() if s.zone is not None}

    def update(self, sightings: Iterable) -> list:
        """Feed one frame's sightings; returns the events this frame produced."""
        self.frame += 1
        events: list = []
        by_card: dict = {}
        unread_zones = set()
        for s in sightings:
            card, zone = _unpack(s)
            if card is None:
                if zone is not None:
                    unread_zones.add(zone)
                continue
            by_card.setdefault(card, []).append(zone)

        errors_now: list = []
        for card, zones in by_card.items():
            if len(zones) > 1:
                where = ", ".join(z or "off the mat" for z in zones)
                errors_now.append((("twice", card), f"{card} seen {len(zones)} times in one frame ({where})", card))

        # Cards in the order they were sighted, so events come out in a stable order.
        for card in list(by_card) + [c for c in self._cards if c not in by_card]:
            state = self._cards.setdefault(card, _CardState())
            zones = by_card.get(card, [])
            if len(zones) > 1:
                # A contradiction counts neither toward a placement nor as absence.
                state.candidate, state.seen = None, 0
                continue
            zone = zones[0] if zones else None
            if state.zone is None:
                if zone is None:
                    state.gap += 1
                    if state.candidate is not None and state.gap > self.m:
                        state.candidate, state.seen = None, 0
                    continue
                self._count_candidate(state, zone)
                if state.seen >= self.k:
                    state.zone, state.absent = zone, 0
                    state.candidate, state.seen = None, 0
                    events.append(self._placement_event(card, zone))
                    if zone in PLAY_ZONES:
                        self._play_held = True
                continue
            if zone == state.zone:
                state.absent = state.hidden = 0
                state.candidate, state.seen = None, 0
                continue
            if zone is None and state.zone in unread_zones:
                state.hidden += 1
                if state.hidden <= self.hold:
                    continue  # something lies over it: not seen, yet not gone
            state.absent += 1
            if zone is None:
                state.gap += 1
                if state.candidate is not None and state.gap > self.m:
                    state.candidate, state.seen = None, 0
            else:
                self._count_candidate(state, zone)
                if state.seen >= self.k:
                    secret = self._unnamed(state.zone) or self._unnamed(zone)
                    errors_now.append((("two zones", card),
                                       f"{'a card' if secret else card} seen in two zones: "
                                       f"{state.zone} and {zone}", None if secret else card))
            if state.absent >= self.m:
                removed = {"type": "removed", "card": str(card), "zone": state.zone}
                if self._unnamed(state.zone):
                    del removed["card"]
                events.append(removed)
                # A moved card is read afresh: k frames in its new zone from now on.
                state.zone, state.absent = None, 0
                state.candidate, state.seen = None, 0

        for key, reason, card in errors_now:
            if key not in self._errors:
                events.append({"type": "vision_error", "reason": reason,
                               "cards": [str(card)] if card is not None else []})
            self._errors[key] = self.frame
        # An error stays reported while it recurs within m frames (no repeat on flicker).
        self._errors = {k: f for k, f in self._errors.items() if self.frame - f < self.m}
        if self._play_held and not any(s.zone in PLAY_ZONES for s in self._cards.values()):
            self._play_held = False
            events.append({"type": "collect"})
        for card in [c for c, s in self._cards.items()
                     if s.zone is None and s.candidate is None and c not in by_card]:
            del self._cards[card]
        return events

    def _unnamed(self, zone: Optional[str]) -> bool:
        """Whether events about a card in ``zone`` must not name it: the reader window and a
        face-up card on the old rack spot hold cards the people may not know."""
        return zone == READER_ZONE or (zone == "RACK" and not self.rack_face_up)

    def _count_candidate(self, state: _CardState, zone: str) -> None:
        if state.candidate == zone:
            state.seen += 1
        else:
            state.candidate, state.seen = zone, 1
        state.gap = 0

    def _placement_event(self, card: Card, zone: str) -> dict:
        if zone in PLAY_ZONES:
            return {"type": "play", "seat": zone, "card": str(card)}
        if zone == "UP":
            return {"type": "upcard", "card": str(card)}
        if zone == READER_ZONE:
            return {"type": "read", "card": str(card)}
        if zone == "RACK":
            if not self.rack_face_up:
                # The card is not named: the refusal is shown and logged for all to see.
                return {"type": "vision_error", "cards": [],
                        "reason": "a card lies face up on the discard spot (the old rack): the "
                                  "computer's cards go face down through the reader, discards "
                                  "face down; turn it over"}
            if self.rack_seat is None:
                return {"type": "vision_error", "cards": [str(card)],
                        "reason": f"{card} laid in the rack, but no seat is set as the "
                                  "computer's (tracker rack_seat)"}
            return {"type": "dealt", "seat": self.rack_seat, "card": str(card)}
        return {"type": "vision_error", "cards": [str(card)],
                "reason": f"{card} seen in unknown zone {zone!r}"}


def _unpack(s) -> tuple:
    if isinstance(s, dict):
        card, zone = s.get("card"), s.get("zone")
    elif isinstance(s, (tuple, list)):
        card, zone = s[0], s[1]
    else:
        card, zone = getattr(s, "card", None), getattr(s, "zone", None)
    return (Card(card) if card is not None else None), zone


class ReaderTracker:
    """Sightings in the reader window, frame by frame, to ``read`` events: one card at a
    time lies on the plate, so every frame of its stay must agree.

    An *episode* is the stay of something on the plate: it ends after ``m`` frames with
    nothing in the window. A card is read once ``k`` frames of the episode named it and
    no frame named another card; if two cards are named in one episode the reader is
    unsure and says so once (``vision_error``, naming no card): the dealer takes the card
    off and lays it again. Events never name a card except ``read`` itself.

    >>> t = ReaderTracker(k=2, m=2)
    >>> t.update([("QS", "READER")]), t.update([("QS", "READER")])
    ([], [{'type': 'read', 'card': 'QS'}])
    >>> t.update([]), t.update([]), t.update([("9H", "READER")])
    ([], [], [])
    >>> [(e["type"], e["cards"]) for e in t.update([("JH", "READER")])]
    [('vision_error', [])]
    """

    def __init__(self, k: int = 3, m: int = 5):
        if int(k) < 1 or int(m) < 1:
            raise ValueError(f"reader tracker needs k ≥ 1 and m ≥ 1 frames (got k={k}, m={m})")
        self.k, self.m = int(k), int(m)
        self._counts: dict = {}
        self._empty = 0
        self._done = False          # this episode gave its read or its error
        self._active = False

    def reset(self) -> None:
        """Forget the stay in progress (the deal is over, or a new one starts)."""
        self._counts, self._empty, self._done, self._active = {}, 0, False, False

    def update(self, sightings: Iterable) -> list:
        named, present = [], False
        for s in sightings:
            card, zone = _unpack(s)
            if zone != READER_ZONE:
                continue
            present = True
            if card is not None:
                named.append(card)
        if not present:
            self._empty += 1
            if self._active and self._empty >= self.m:
                self._counts, self._done, self._active = {}, False, False
            return []
        self._empty, self._active = 0, True
        for card in set(named):
            self._counts[card] = self._counts.get(card, 0) + 1
        if self._done:
            return []
        if len(self._counts) > 1 or len(set(named)) > 1:
            self._done = True
            return [{"type": "vision_error", "cards": [],
                     "reason": "the reader is not sure of the card: take it off the reader "
                               "and lay it again"}]
        for card, n in self._counts.items():
            if n >= self.k:
                self._done = True
                return [{"type": "read", "card": str(card)}]
        return []
