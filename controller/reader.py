"""The private reader of the computer seats' cards: which seat a card laid on the reader belongs to, and what the table says meanwhile.

The dealer deals a computer seat's five cards face down through the reader (the reader
window's camera, or the board's card scanner): each card is read there, the table logs
it sealed, and the dealer puts it into that seat's rack, which faces away from the
people. With several computer seats the reader reads them in turn, from the dealer's
left, five cards each, and says whose cards it wants ("Cards for West"). A card read
twice (lifted and laid again) counts once. Nothing here names a card: the screen and
the speaker only count ("West: 3 of 5").

>>> from engine.cards import Card
>>> reading_order("S", ["W", "N"])
['W', 'N']
>>> reading_order("W", ["W", "N"])
['N', 'W']
"""
from __future__ import annotations

from typing import Optional

from engine.cards import SEAT_NAMES, SEATS, Card, CardError


def reading_order(dealer: str, seats) -> list:
    """The seats whose cards the reader reads, in dealing order: from the dealer's left."""
    # Play passes to the left: S -> W -> N -> E.
    left = {"S": "W", "W": "N", "N": "E", "E": "S"}
    order, s = [], left[dealer]
    for _ in range(4):
        order.append(s)
        s = left[s]
    return [s for s in order if s in set(seats)]


def card_of_scan(text: str) -> tuple:
    """``(card_text, problem)`` for a text read by the board's scanner: a sticker's payload
    (``ET-JH-MUD``, checked) or a plain card text (``JH``; a card from outside the 24 is
    passed on for the referee to call a misdeal); ``problem`` says what to do otherwise.

    >>> card_of_scan("ET-JH-MUD")
    ('JH', None)
    >>> card_of_scan("ET-JH-XXX")[1]
    'the scanner read a damaged or foreign code: scan the card again'
    """
    from vision.stickers import parse_payload
    t = str(text).strip()
    if t.upper().startswith("ET-"):
        card = parse_payload(t)
        if card is None:
            return None, "the scanner read a damaged or foreign code: scan the card again"
        return str(card), None
    try:
        return str(Card(t)), None
    except (CardError, ValueError):
        if 1 <= len(t) <= 5:
            return t, None    # e.g. "2C": the referee says it is not a Euchre card (a misdeal)
        return None, "the scanner read something that is not a card: scan the card again"


class DealReader:
    """Turns cards read by the private reader into ``dealt`` events for the seat being dealt.

    ``ctl`` is the :class:`controller.table.TableController`; ``seats`` are the seats whose
    cards go through the reader (the computer seats; every seat when the whole deal is
    read). ``announce`` says whose cards the reader wants next, on the screen and aloud."""

    def __init__(self, ctl, seats, announce: bool = True):
        self.ctl = ctl
        self.seats = [s for s in SEATS if s in set(seats)]
        self.announce = announce
        self._announced = None

    def seat_to_read(self) -> Optional[str]:
        """The seat the next card on the reader belongs to, or None (not dealing, or all read)."""
        st = self.ctl.referee.state
        if st["phase"] != "deal" or not st["dealer"]:
            return None
        dealt = self.ctl.dealt_cards
        for seat in reading_order(st["dealer"], self.seats):
            if len(dealt.get(seat, ())) < 5:
                return seat
        return None

    def poll(self) -> None:
        """Say whose cards the reader wants, once each time that changes."""
        st = self.ctl.referee.state
        seat = self.seat_to_read()
        key = (st["game"], st["hand"], seat)
        if key == self._announced or st["phase"] != "deal":
            return
        self._announced = key
        if not self.announce:
            return
        if seat is not None:
            n = len(self.ctl.dealt_cards.get(seat, ()))
            self.ctl.announce(f"Cards for {SEAT_NAMES[seat]}" + (f": {n} of 5 read" if n else "")
                              + ", face down on the reader")
        else:
            self.ctl.announce("All the computer's cards are read: turn the up-card")

    def on_card(self, card_text: str, by: str = "reader"):
        """A card read by the reader: a sealed ``dealt`` event for the seat being dealt, or
        a message saying why not (never naming the card). Returns the verdict or None."""
        st = self.ctl.referee.state
        try:
            card = Card(card_text)
        except (CardError, ValueError):
            card = None
        if card is not None and any(card in cards for cards in self.ctl.dealt_cards.values()):
            return None     # the same card laid again: it is read already
        seat = self.seat_to_read()
        if seat is None:
            if st["phase"] == "deal":
                self.ctl.announce("The reader has all the computer's cards: that card is not "
                                  "one of them")
            else:
                self.ctl.announce("The reader reads the computer's cards only while dealing")
            return None
        verdict = self.ctl.submit({"type": "dealt", "seat": seat, "card": card_text, "by": by})
        if verdict.ok:
            n = len(self.ctl.dealt_cards.get(seat, ()))
            # The LED over the slot the card goes into (the rack faces the Pi's seat).
            self.ctl.point_slot(seat, n - 1 if n <= 5 else None)
            if self.announce and n < 5:
                # Only counted: the card itself is never shown or said.
                self.ctl.announce(f"{SEAT_NAMES[seat]}: {n} of 5 read; into rack slot {n}")
        self.poll()
        return verdict
