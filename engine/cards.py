"""Cards, suits and seats of Euchre: the 24-card deck, the bowers, and trick ranking."""
from __future__ import annotations

from typing import Iterable, Optional

SUITS = ("S", "H", "D", "C")
"""Suit letters: spades, hearts, diamonds, clubs."""
RANKS = ("9", "10", "J", "Q", "K", "A")
"""Ranks from low to high in a plain suit (the jack's place changes under trump)."""
SEATS = ("N", "E", "S", "W")
"""Seats in clockwise order: the next player is the one on the left (S → W → N → E)."""
TEAMS = ("NS", "EW")

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SINGULAR = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = {"9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}
"""The suit whose jack becomes the left bower when this suit is trump."""

_SYMBOL_TO_LETTER = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}


class CardError(ValueError):
    """A text that is not a card, with a message saying what was expected."""


class Card(str):
    """One of the 24 cards. A card *is* its short text, so it prints, compares
    and serialises as ``"JH"``; there is exactly one object per card.

    >>> Card("J♥") is Card("JH")
    True
    >>> Card("th"), Card("10h").suit, Card("AS").rank
    (Card('10H'), 'H', 'A')
    >>> Card("th") == "10H"
    True
    >>> Card("JD").suit_under("H")    # the left bower is a heart
    'H'
    """

    # A card's place in the pack; it hides str.index, which no card needs.
    index: int  # type: ignore[assignment]
    rank: str
    suit: str
    bit: int

    def __new__(cls, text):  # noqa: D102 - documented on the class
        if type(text) is cls:
            return text
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            pass
        if isinstance(text, int) and 0 <= text < 24:
            return DECK[text]
        return _BY_TEXT.get(_normalise(text)) or _raise_card(text)

    @classmethod
    def _make(cls, index: int) -> "Card":
        suit, rank = SUITS[index // 6], RANKS[index % 6]
        card = str.__new__(cls, rank + suit)
        card.index, card.rank, card.suit, card.bit = index, rank, suit, 1 << index
        return card

    def __repr__(self) -> str:
        return f"Card({str.__repr__(self)})"

    def __reduce__(self):
        return (Card, (str(self),))

    @property
    def name(self) -> str:
        """The card in words: ``Card("JD").name == "jack of diamonds"``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    @property
    def symbol(self) -> str:
        """Rank and suit symbol: ``Card("JH").symbol == "J♥"``."""
        return self.rank + SUIT_SYMBOLS[self.suit]

    def suit_under(self, trump: Optional[str]) -> str:
        """The suit this card belongs to when ``trump`` is trump (left bower → trump)."""
        if trump is not None and self.rank == "J" and SAME_COLOUR[trump] == self.suit:
            return trump
        return self.suit

    def is_trump(self, trump: str) -> bool:
        """True for every card of the trump suit, the left bower included."""
        return self.suit_under(trump) == trump

    def is_left_bower(self, trump: Optional[str]) -> bool:
        return trump is not None and self.rank == "J" and self.suit == SAME_COLOUR[trump]

    def is_right_bower(self, trump: Optional[str]) -> bool:
        return self.rank == "J" and self.suit == trump


def _normalise(text) -> str:
    if not isinstance(text, str):
        _raise_card(text)
    t = text.strip().upper()
    for sym, letter in _SYMBOL_TO_LETTER.items():
        t = t.replace(sym, letter)
    if t.startswith("T"):
        t = "10" + t[1:]
    if t.startswith("1") and not t.startswith("10"):
        t = "A" + t[1:]  # "1S" is how some decks name the ace
    return t


def _raise_card(text):
    raise CardError(
        f"{text!r} is not a card: write rank then suit, e.g. 9S 10H JD QC KS AH "
        "(T for ten and ♠♥♦♣ symbols are accepted)")


DECK: tuple = tuple(Card._make(i) for i in range(24))
"""The 24 cards, ordered by suit (S H D C) then rank (9 … A)."""
_BY_TEXT = {str(c): c for c in DECK}


def parse_cards(text: "str | Iterable") -> list:
    """Cards from text separated by spaces or commas, or from an iterable.

    >>> parse_cards("9S 10S, js")
    [Card('9S'), Card('10S'), Card('JS')]
    """
    if isinstance(text, str):
        return [Card(t) for t in text.replace(",", " ").split()]
    return [Card(t) for t in text]


def mask_of(cards: Iterable) -> int:
    """Bitmask of a set of cards (bit ``card.index``)."""
    m = 0
    for c in cards:
        m |= Card(c).bit
    return m


def cards_of(mask: int) -> list:
    """The cards of a bitmask, in deck order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return out


def next_seat(seat: str) -> str:
    """The player on the left, who plays next: ``next_seat("S") == "W"``."""
    return SEATS[(SEATS.index(seat) + 1) % 4]


def partner(seat: str) -> str:
    """The seat opposite: ``partner("N") == "S"``."""
    return SEATS[(SEATS.index(seat) + 2) % 4]


def team_of(seat: str) -> str:
    """``"NS"`` or ``"EW"``."""
    return "NS" if seat in ("N", "S") else "EW"


def other_team(team: str) -> str:
    return "EW" if team == "NS" else "NS"


def parse_suit(text: str) -> str:
    """A suit letter from ``S``, ``♠``, ``spades``, ``Spade`` …"""
    t = str(text).strip()
    if t in _SYMBOL_TO_LETTER:
        return _SYMBOL_TO_LETTER[t]
    u = t.upper()
    if u in SUITS:
        return u
    for letter, name in SUIT_NAMES.items():
        if t.lower() in (name, SUIT_SINGULAR[letter]):
            return letter
    raise CardError(f"{text!r} is not a suit: use S, H, D or C (or ♠ ♥ ♦ ♣)")


def parse_seat(text: str) -> str:
    """A seat letter from ``N`` or ``north``."""
    t = str(text).strip().upper()
    if t in SEATS:
        return t
    for letter, name in SEAT_NAMES.items():
        if t == name.upper():
            return letter
    raise ValueError(f"{text!r} is not a seat: use N, E, S or W")


# Trick ranking, precomputed per trump suit: the right bower 13, left bower 12,
# then trump A..9 as 11..7 (A K Q 10 9 without the jack); off-suit cards rank
# 1..6 by plain order but count only in the suit led.
def _power(card: Card, trump: str) -> int:
    if card.is_right_bower(trump):
        return 13
    if card.is_left_bower(trump):
        return 12
    if card.suit == trump:
        return 6 + {"9": 1, "10": 2, "Q": 3, "K": 4, "A": 5}[card.rank]
    return 1 + RANKS.index(card.rank)


POWER = {t: tuple(_power(c, t) for c in DECK) for t in SUITS}
"""``POWER[trump][card.index]``: trumps 7–13, other cards 1–6 (valid within the suit led)."""
EFFECTIVE_SUIT = {t: tuple(c.suit_under(t) for c in DECK) for t in SUITS}
"""``EFFECTIVE_SUIT[trump][card.index]``: the suit a card follows as under that trump."""
SUIT_MASK = {t: {s: mask_of(c for c in DECK if c.suit_under(t) == s) for s in SUITS} for t in SUITS}
"""``SUIT_MASK[trump][suit]``: bitmask of the cards that count as ``suit`` under ``trump``."""


def trick_winner_index(cards, trump: str) -> int:
    """Position (0-based) in ``cards`` of the card that wins a trick, the first
    card being the lead.

    >>> trick_winner_index([Card("AH"), Card("9S"), Card("JD")], "H")
    2
    """
    power, eff = POWER[trump], EFFECTIVE_SUIT[trump]
    led = eff[cards[0].index]
    best, best_key = 0, None
    for i, c in enumerate(cards):
        s = eff[c.index]
        key = power[c.index] if (s == trump or s == led) else 0
        if best_key is None or key > best_key:
            best, best_key = i, key
    return best
