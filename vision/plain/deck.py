"""A calibrated deck: the 24 faces as the camera saw them, the templates made from them, and the deck file.

>>> deck = load_deck("my-deck.npz")       # doctest: +SKIP
>>> deck.cards[:3], round(deck.aspect, 2)  # doctest: +SKIP
([Card('9S'), Card('10S'), Card('JS')], 0.71)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from engine.cards import Card
from vision.plain import read
from vision.plain.straighten import canon_size, white_balanced

FORMAT = "euchre-table plain deck"
FORMAT_VERSION = 4
FACE_H = 200
"""Height (px) at which calibrated faces are kept in the deck file."""
LOOK_ALIKES = 5
"""How many of a card's closest look-alikes it must always be compared with."""
ALIKE = 0.5
"""Low-resolution similarity from which two templates are look-alikes."""
SAME_PICTURE = 0.99
"""Low-resolution similarity (upright) from which two cards of different ranks are one
picture but for their corner index (a deck whose courts are one large suit sign): like
twins, they are told apart by a few small marks, and must be told apart by as much
(``decide.twin_margin``). On the 112 kept tuning decks the closest such pair reached
0.974 (a K♥ and J♥); knoll's courts and aces, one large sign each, 0.999-1.0 (where a J♥
at 116 px was named Q♥ by 0.34)."""
SYMMETRIC_FIT = 0.95
"""Least correlation of a face with itself turned upside down (laid on it as a slip) for
it to be its own picture turned (``PlainDeck.point_symmetric``). On the 36 decks calibrated
live on tuning sessions (seeds 982-984) tens, courts and nines fitted by a median of
0.98-1.0 (one-headed courts of generated designs 0.16-0.35); aces of clubs and spades by
up to 0.92-0.94 (a small pip on a large blank face), below this bar."""


class DeckError(ValueError):
    """A deck file that cannot be used, with a message saying what to do."""


@dataclass
class Template:
    """What one calibrated card looks like, in the card's own light."""

    face: read.Face
    red_ink: np.ndarray    # bool, soft size: pixels of red print
    dark_ink: np.ndarray   # bool, soft size: pixels of dark, colourless print
    colour_ink: np.ndarray  # bool, soft size: pixels of coloured print (any colour)


def canonical(face_bgr: np.ndarray, aspect: float) -> np.ndarray:
    """An upright face (any size) at the canonical size, white-balanced."""
    return white_balanced(cv2.resize(face_bgr, canon_size(aspect), interpolation=cv2.INTER_AREA))


def template_of(face_bgr: np.ndarray, aspect: float) -> Template:
    """A template from an upright face (any size, BGR)."""
    f = read.Face.of(canonical(face_bgr, aspect))
    grey = _soft_grey(f)
    return Template(face=f, red_ink=red_ink_of(f),
                    dark_ink=(grey < 0.45) & (np.abs(f.redness) < 0.25),
                    colour_ink=colour_ink_of(f))


def colour_ink_of(face: read.Face, level: Optional[float] = None) -> np.ndarray:
    """A face's coloured print, of any colour (bool, soft size): pixels whose chroma
    (``read.chroma_of``) reaches ``level`` (``COLOURED`` unless given), not as light as
    the paper."""
    return (_chroma_length(face) > (COLOURED if level is None else level)) & (_soft_grey(face) < 0.85)


def _chroma_length(face: read.Face) -> np.ndarray:
    return np.sqrt((face.chroma * face.chroma).sum(axis=2))


def _soft_grey(face: read.Face) -> np.ndarray:
    return cv2.resize(face.grey, face.soft.shape[::-1], interpolation=cv2.INTER_AREA)


def red_ink_of(face: read.Face, level: Optional[float] = None) -> np.ndarray:
    """A face's red print (bool, soft size): pixels of at least ``level`` redness
    (``RED_INK`` unless given), not as light as the paper. Below ``RED_INK`` the print's
    colour must also point red's way (``RED_HUE``): a court card's yellow and orange reach
    a redness of 0.3-0.8, which pale red print does not pass, but their hue is not red."""
    ink = (face.redness > (RED_INK if level is None else level)) & (_soft_grey(face) < 0.85)
    if level is not None and level < RED_INK:
        ink &= face.chroma @ RED_HUE >= SAME_HUE * _chroma_length(face)
    return ink


RED_INK = 0.45
"""Least redness (``read.redness_of``) of a template's red print where the deck's red print
is seen saturated (a sharp picture of a card at least 200 px long: 5-18 at the deck's red
pips); see :func:`red_print_level` where it is seen paler."""
RED_SHARE = 0.4
"""Where the deck's red print is seen pale (a webcam's blur and its colour halved in
resolution turn a small card's red print pink: 0.25-0.75 at the red pips of a deck 140 px
long in the Blender world, where ``RED_INK`` left most red cards with no red print at all,
and their colour could not tell them from the black cards), red print is what reaches this
share of the red pips' redness ..."""
RED_NOISE = 2.0
"""... and this many times that of the black pips' print (0.02-0.08 there) ..."""
RED_FLOOR = 0.1
"""... and at least this. Every red pip must reach that much, else the usual level holds."""


def red_print_level(cards: list, templates: list, other_hue=()) -> float:
    """The least redness of a template's red print in this deck as seen through its
    camera: ``RED_INK``, or less where the red pips' print is seen paler (see
    ``RED_SHARE``): each level is a pip card's 99.5th percentile of redness over the
    compared part (9, 10 and ace: their print is their suit's ink alone), the median for
    the red suits and the most for the black ones. ``other_hue``: the suits printed in
    another colour than red and black (a four-colour deck's blue diamonds), left out."""
    red, black = [], []
    for c, t in zip(cards, templates):
        if c.rank not in ("9", "10", "A") or c.suit in other_hue:
            continue
        level = float(np.percentile(read.compared(t.face.redness), 99.5))
        (red if c.suit in "HD" else black).append(level)
    noise = max(RED_FLOOR, RED_NOISE * max(black, default=0.0))
    if not red or min(red) < noise:
        # Some red pip is hardly redder than the black ones: a four-colour deck whose
        # blue diamonds were seen too pale to be told as blue, or a card calibrated in
        # glare. Redness says less here; the usual level keeps only clear red print.
        return RED_INK
    return float(min(RED_INK, max(RED_SHARE * float(np.median(red)), noise)))


COLOURED = 0.35
"""Least length of a pixel's chroma (``read.chroma_of``) for it to be coloured print."""
RED_HUE = np.array([-1.0, -1.0, 2.0]) / np.sqrt(6.0)
"""The direction of red print's chroma (BGR)."""
SAME_HUE = 0.8
"""Least cosine between two inks' chroma for them to be one colour."""
TINT_SHARE = 0.2
"""Least share of a black suit's print seen coloured for its hue to count as the table's
tint (see :func:`suit_inks`)."""


COLOUR_SHARE = 0.5
"""Where a deck's coloured print is seen pale (a lamp's light on glossy cards, a webcam's
blur of small pips: the Blender world's A4 mat showed a four-colour deck's blue, green
and red pips at a chroma of 0.2-0.5, where ``COLOURED`` found no ink but the hearts'),
coloured print is what reaches this share of the coloured suits' median chroma ..."""
COLOUR_NOISE = 3.0
"""... and this many times the least coloured suit's (a black suit's print: 0.01-0.04
there) ..."""
COLOUR_FLOOR = 0.12
"""... and at least this."""
PALE_PRINT = 0.4
"""Darkest print (1st percentile of a pip card's lightness, paper 1) past which a card's
print is seen pale: its print is then what is darker than halfway to the paper, rather
than darker than 0.7."""


def _pip_print(t: Template) -> tuple:
    """A pip card's print over the compared part: (mask, chroma there). Print is what is
    darker than 0.7, or than halfway between the paper and the darkest print where that
    is paler than ``PALE_PRINT``."""
    grey = read.compared(_soft_grey(t.face))
    darkest = float(np.percentile(grey, 1))
    cut = (1.0 + darkest) / 2 if darkest > PALE_PRINT else 0.7
    return grey < cut, read.compared(t.face.chroma)


def _pips(cards: list, templates: list, suit: str) -> list:
    mine = [t for c, t in zip(cards, templates) if c.suit == suit]
    return [t for c, t in zip(cards, templates) if c.suit == suit and c.rank in ("9", "10")] or mine


def colour_level(cards: list, templates: list) -> float:
    """The least chroma of coloured print in this deck as its camera sees it:
    ``COLOURED``, or less where the coloured suits' print is seen paler (see
    ``COLOUR_SHARE``). Each suit's chroma is the length of its pip cards' mean chroma
    over their print."""
    lengths = []
    for suit in "SHDC":
        vecs = []
        for t in _pips(cards, templates, suit):
            ink, chroma = _pip_print(t)
            if ink.any():
                vecs.append(chroma[ink].mean(axis=0))
        if vecs:
            lengths.append(float(np.linalg.norm(np.mean(vecs, axis=0))))
    if not lengths:
        return COLOURED
    noise = max(COLOUR_FLOOR, COLOUR_NOISE * min(lengths))
    coloured = [v for v in lengths if v >= noise]
    if not coloured:
        return COLOURED
    return float(min(COLOURED, max(noise, COLOUR_SHARE * float(np.median(coloured)))))


def suit_inks(cards: list, templates: list, level: float = COLOURED) -> dict:
    """Each suit's ink, learnt from its calibrated pip cards (their print is the suit's
    ink alone): ``{suit: (hue, level)}``, the unit direction of the print's chroma and
    its mean length along it, or None for a suit printed black. Red and black decks
    give two colours; four-colour decks (blue diamonds, green clubs) four.

    A black suit whose partner (spades and clubs) shows the same hue is learnt black:
    the table's light tints both black suits' print alike, about half of it past
    ``COLOURED``, whereas a four-colour deck's green clubs differ in hue from its black
    spades, however tinted those are. ``level``: the least chroma of coloured print
    (``colour_level``)."""
    seen = {}
    for suit in "SHDC":
        vecs, n_print, n_colour = [], 0, 0
        for t in _pips(cards, templates, suit):
            ink, chroma = _pip_print(t)
            coloured = ink & read.compared(t.colour_ink)
            n_print += int(ink.sum())
            n_colour += int(coloured.sum())
            if coloured.any():
                vecs.append(chroma[coloured].mean(axis=0))
        mean = np.mean(vecs, axis=0) if vecs else np.zeros(3)
        length = float(np.linalg.norm(mean))
        seen[suit] = (n_colour / max(n_print, 1), mean / max(length, 1e-6), length)
    out = {}
    for suit, (share, hue, length) in seen.items():
        partner = {"S": "C", "C": "S"}.get(suit)
        tinted = partner is not None and seen[partner][0] >= TINT_SHARE \
            and float(hue @ seen[partner][1]) >= SAME_HUE
        out[suit] = (hue, length) if share >= 0.5 and length > level and not tinted else None
    return out


def _orient(faces: list, aspect: float) -> list:
    """The faces each turned the way up that agrees best with the others (a deck's
    cards share their layout, so the close look compares like with like)."""
    soft = [read.Face.of(canonical(f, aspect)).soft for f in faces]
    flip = [False] * len(faces)
    for _ in range(2):
        for i in range(len(faces)):
            up = sum(read.ncc(soft[i], soft[j][::-1, ::-1] if flip[j] else soft[j])
                     for j in range(len(faces)) if j != i)
            down = sum(read.ncc(soft[i][::-1, ::-1], soft[j][::-1, ::-1] if flip[j] else soft[j])
                       for j in range(len(faces)) if j != i)
            # Turned only when clearly better: a card that reads the same both ways up
            # (a court card) keeps the way it was taken.
            flip[i] = down > up + 0.02 * (len(faces) - 1)
    return [f[::-1, ::-1].copy() if t else f for f, t in zip(faces, flip)]


def picture_side(frame: np.ndarray) -> int:
    """The side of a picture that a card's size is measured against: its short side
    (the height of a landscape frame), so that a photo turned a quarter turn (held the
    other way, or turned by its EXIF orientation) shows the deck's cards at their size.

    >>> picture_side(np.zeros((1080, 1920, 3), np.uint8)), picture_side(np.zeros((1920, 1080, 3), np.uint8))
    (1080, 1080)
    """
    return int(min(frame.shape[:2]))


def card_size_in(deck: "PlainDeck", frame: np.ndarray) -> Optional[float]:
    """The deck's card's long side (px) as ``frame`` should show it, when the deck was
    calibrated through the camera; else None."""
    if not deck.card_px:
        return None
    return deck.card_px * (picture_side(frame) if deck.card_px_of == "short side" else frame.shape[0])


@dataclass
class PlainDeck:
    """The templates of one physical deck, from one calibration pass through the camera.

    ``faces`` (one upright BGR face per card, as calibrated) are what the file keeps;
    the templates are made from them when the deck is loaded. ``aspect`` is the card's
    width over height; ``card_px`` the card's long side as a fraction of the frame's
    short side (:func:`picture_side`; ``card_px_of`` "height" in decks written before
    it was so) when calibrated through the camera (None for pictures of cards alone).
    ``held``: cards the calibration's check could not tell from another card; they are
    never named (nor a card whose view looks like one of them) until calibrated again.
    ``red_print`` (made on loading): the least redness of this deck's red print as its
    camera sees it (``red_print_level``); ``colour_print`` the least chroma of its
    coloured print (``colour_level``)."""

    name: str
    cards: list
    faces: list
    aspect: float
    card_px: Optional[float] = None
    card_px_of: str = "short side"
    meta: dict = field(default_factory=dict)
    check: Optional[dict] = None
    held: list = field(default_factory=list)
    templates: list = field(default_factory=list, repr=False)
    _places: dict = field(default_factory=dict, repr=False)
    _laid: dict = field(default_factory=dict, repr=False)
    _signs: dict = field(default_factory=dict, repr=False)
    _patches: dict = field(default_factory=dict, repr=False)
    _hues: dict = field(default_factory=dict, repr=False)
    _slips: dict = field(default_factory=dict, repr=False)
    _symmetric: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.cards = [Card(c) for c in self.cards]
        self.held = [Card(c) for c in self.held]
        if not self.templates:
            self.faces = _orient(self.faces, self.aspect)
            self.templates = [template_of(f, self.aspect) for f in self.faces]
        self.small = np.stack([t.face.small for t in self.templates])
        # Each card's look-alikes (its template close to theirs, either way up): a view
        # named this card must have beaten them all, whatever their match with the view.
        up = self.small @ self.small.T
        self._same_picture = (up >= SAME_PICTURE) & np.array(
            [[a.rank != b.rank for b in self.cards] for a in self.cards])
        down = self.small @ self.small[:, ::-1].T
        alike = np.maximum(up, down)
        np.fill_diagonal(alike, -1.0)
        # The same rank in the other suits always counts: the pairs the index tells apart.
        self.alike = [sorted({int(j) for j in np.argsort(-alike[i])[:LOOK_ALIKES] if alike[i, j] >= ALIKE}
                             | {j for j, c in enumerate(self.cards) if j != i and c.rank == self.cards[i].rank})
                      for i in range(len(self.cards))]
        self.red = np.array([c.suit in "HD" for c in self.cards])
        levels = [float(t.face.redness[t.red_ink].mean()) for t, r in zip(self.templates, self.red)
                  if r and t.red_ink.any()]
        self.red_level = float(np.median(levels)) if levels else 1.0
        # Each suit's ink and the colour each card is printed in (cards of one colour
        # share a number: red and black decks have two, four-colour decks four).
        # Coloured print seen pale: the templates' coloured print is what is coloured for
        # this deck, and its suits' inks are learnt at that level.
        self.colour_print = colour_level(self.cards, self.templates)
        if self.colour_print < COLOURED:
            self.templates = [replace(t, colour_ink=colour_ink_of(t.face, self.colour_print))
                              for t in self.templates]
        self.inks = suit_inks(self.cards, self.templates, self.colour_print)
        level = red_print_level(self.cards, self.templates,
                                {c.suit for i, c in enumerate(self.cards) if self.other_hue(i)})
        if level < RED_INK:
            # Red print seen pale through this camera: the templates' red print is what
            # is red for this deck (``red_level`` stays the saturated print's, as the
            # black cards' tint is judged against it).
            self.templates = [replace(t, red_ink=red_ink_of(t.face, level)) for t in self.templates]
        self.red_print = level
        hues = []
        self.colour = []
        for c in self.cards:
            ink = self.inks.get(c.suit)
            k = next((j for j, h in enumerate(hues) if (h is None) == (ink is None)
                      and (h is None or float(h @ ink[0]) >= SAME_HUE)), None)
            if k is None:
                hues.append(None if ink is None else ink[0])
                k = len(hues) - 1
            self.colour.append(k)

    def hue_pixels(self, a: int) -> np.ndarray:
        """Card ``a``'s print in its suit's ink (soft size; its suit must have one):
        coloured pixels whose colour points the ink's way (cached)."""
        if a not in self._hues:
            f = self.templates[a].face
            hue = self.inks[self.cards[a].suit][0]
            self._hues[a] = self.templates[a].colour_ink & (f.chroma @ hue >= SAME_HUE * _chroma_length(f))
        return self._hues[a]

    def other_hue(self, a: int) -> bool:
        """Whether card ``a``'s suit is printed in a colour other than red and black (a
        four-colour deck's blue diamonds or green clubs)."""
        ink = self.inks.get(self.cards[a].suit)
        return ink is not None and float(ink[0] @ RED_HUE) < SAME_HUE

    @property
    def canon_size(self):
        return canon_size(self.aspect)

    def index(self, card) -> int:
        return self.cards.index(Card(card))

    def places(self, a: int, b: int, turned: bool = False) -> list:
        """Where cards ``a`` and ``b`` (``b`` upside down with ``turned``) differ most, ``b``
        laid on ``a`` (:meth:`laid`; cached)."""
        key = (a, b, turned)
        if key not in self._places:
            self._places[key] = read.places(self.templates[a].face.sharp, self.laid(a, b, turned))
        return self._places[key]

    def laid(self, a: int, b: int, turned: bool = False) -> np.ndarray:
        """Card ``b``'s sharp template (upside down with ``turned``) laid on ``a``'s where
        their fit is a calibration's slip (``read.laid_slip``; cached): two faces cut a
        few per cent apart are compared where their print lies, not beside it."""
        key = (a, b, turned)
        if key not in self._laid:
            tb = self.templates[b].face.sharp
            self._laid[key] = read.laid_slip(self.templates[a].face.sharp, tb[::-1, ::-1] if turned else tb)
        return self._laid[key]

    def twins(self, a: int, b: int) -> bool:
        """Whether cards ``a`` and ``b`` are same-colour twins (K♠/K♣, Q♥/Q♦): only their
        suit signs tell them apart."""
        return a != b and self.cards[a].rank == self.cards[b].rank and bool(self.red[a]) == bool(self.red[b])

    def same_picture(self, a: int, b: int) -> bool:
        """Whether cards ``a`` and ``b`` of different ranks are one picture but for their
        corner index (``SAME_PICTURE``)."""
        return bool(self._same_picture[a, b])

    def sign_places(self, a: int, b: int, turned: bool = False) -> tuple:
        """Where twins ``a`` and ``b`` (``b`` upside down with ``turned``) differ in shape:
        ``b``'s template laid on ``a``'s and the places of their signs (cached; see
        ``read.sign_places``)."""
        key = (a, b, turned)
        if key not in self._signs:
            self._signs[key] = self._own_signs(a, b, turned)
            back = (b, a, turned)
            if back not in self._signs:
                self._signs[back] = self._own_signs(b, a, turned)
            for x, y in ((a, b), (b, a)):
                # Small signs (``read.SMALL_SIGN_FLOOR``) found from one face only: the
                # other compares at the same places. The shape difference of two faces is
                # the same seen from either, but its small signs lie near that floor, and a
                # small-pip generated ten of spades and ten of clubs, seen 105 px long,
                # had three places from the clubs' face and one from the spades': the
                # spades' side of every sign look said 0, and every such ten was refused
                # (tuning sessions, ``clean_cases`` seed 898).
                # (Not where either face was cut off the card's outline: their places
                # then lie apart.)
                laid, mine = self._signs[(x, y, turned)]
                theirs = self._signs[(y, x, turned)][1]
                if not mine and theirs and laid.shape == self.templates[y].face.sharp.shape \
                        and not read.cut_apart(self.templates[x].face.sharp, self._turned(y, turned)):
                    h, w = laid.shape
                    boxes = [(p[0], p[1], p[2], p[3]) if not turned else (h - p[1], h - p[0], w - p[3], w - p[2])
                             for p in theirs]
                    self._signs[(x, y, turned)] = (laid, read.places_at(self.templates[x].face.sharp, laid, boxes))
        return self._signs[key]

    def point_symmetric(self, a: int) -> bool:
        """Whether card ``a``'s face is its own picture turned upside down (cached): its
        template turned fits it as a calibration's slip (``read.slip_fit``) by at least
        ``SYMMETRIC_FIT``. A ten's pips and a court's two heads are; an ace's one pip is not."""
        if a not in self._symmetric:
            t = self.templates[a].face.sharp
            self._symmetric[a] = read.slip_fit(t, t[::-1, ::-1]) >= SYMMETRIC_FIT
        return self._symmetric[a]

    def sign_ways(self, a: int, b: int, ways) -> list:
        """The ways up (``turned`` or not) at which twins ``a`` and ``b`` are compared by
        their signs, of ``ways`` (those the view asks for). A way at which the two faces
        have no sign places, either way round, is taken the other way up when ``b``'s face
        is its own picture turned (``point_symmetric``): ``b`` turned shows the same signs.
        (A face whose print lies a pixel or two off its centre slips by twice that against
        another turned upside down, which the sign look takes for a face cut off the card
        (``read.SIGN_CUT``): it then leaves out the corners and finds no signs.)"""
        out = []
        for turned in ways:
            if not (self.sign_places(a, b, turned)[1] and self.sign_places(b, a, turned)[1]) \
                    and self.sign_places(a, b, not turned)[1] and self.sign_places(b, a, not turned)[1] \
                    and self.point_symmetric(b):
                turned = not turned
            if turned not in out:
                out.append(turned)
        return out

    def _own_signs(self, a: int, b: int, turned: bool) -> tuple:
        """``read.sign_places`` of ``a`` against ``b`` (upside down with ``turned``)."""
        return read.sign_places(self.templates[a].face.sharp, self._turned(b, turned))

    def _turned(self, b: int, turned: bool) -> np.ndarray:
        """``b``'s sharp template, upside down with ``turned``."""
        tb = self.templates[b].face.sharp
        return tb[::-1, ::-1] if turned else tb

    def slips(self, a: int, b: int) -> list:
        """Where ``b``'s print lies on ``a``'s template: the slip (dy, dx) of each of
        ``b``'s soft patches matched over ``a``'s template (cached; ``read.patch_match``).
        About nothing for most pairs; ancient-egyptians' K♦ lies some 7 px of 160 below
        its K♥."""
        if (a, b) not in self._slips:
            self._slips[(a, b)] = read.patch_match(self.templates[a].face.soft, self.templates[b].face.soft,
                                                   self.templates[b].face.parts)[1]
        return self._slips[(a, b)]

    def duel_patches(self, a: int, b: int, turned: bool = False) -> list:
        """The templates' patches that :func:`read.duel` compares a view with when ``a``
        meets ``b`` (``b`` upside down with ``turned``) at ``places(a, b, turned)``
        (cached: ``read.duel_patches``)."""
        key = (a, b, turned, False)
        if key not in self._patches:
            self._patches[key] = read.duel_patches(self.templates[a].face.sharp, self.laid(a, b, turned),
                                                   self.places(a, b, turned))
        return self._patches[key]

    def sign_patches(self, a: int, b: int, turned: bool = False) -> list:
        """The same for the sign look of twins ``a`` and ``b`` (at ``sign_places``)."""
        key = (a, b, turned, True)
        if key not in self._patches:
            self._patches[key] = read.duel_patches(self.templates[a].face.sharp, *self.sign_places(a, b, turned))
        return self._patches[key]

    def prepare(self) -> "PlainDeck":
        """Work out now what reading otherwise works out the first time it needs it:
        where each card and each of its look-alikes differ, both ways up, and where twins
        differ in their suit signs (about two seconds of CPU for a deck on the development
        machine; the service does it once at start, so that no frame of play waits for
        it). Returns the deck."""
        for a in range(len(self.cards)):
            _ = self.templates[a].face.parts     # kept on the face once made
            for b in self.alike[a]:
                if self.twins(a, b):
                    self.slips(a, b)
                if self.cards[a].rank == self.cards[b].rank:
                    self.point_symmetric(b)             # the sign look's ways up (``sign_ways``)
                for turned in (False, True):
                    if self.twins(a, b):
                        self.sign_patches(a, b, turned)
                    else:
                        self.duel_patches(a, b, turned)
                        if self.cards[a].rank == self.cards[b].rank:
                            self.sign_patches(a, b, turned)     # the shape look (decide)
        return self

    def save(self, path) -> Path:
        """Write the deck as a compressed ``.npz``: the faces as PNG bytes and a JSON ``meta``."""
        path = Path(path)
        meta = dict(self.meta)
        meta.update(format=FORMAT, version=FORMAT_VERSION, name=self.name,
                    cards=[str(c) for c in self.cards], aspect=self.aspect, card_px=self.card_px,
                    card_px_of=self.card_px_of,
                    held=[str(c) for c in self.held])
        blobs = {}
        for c, f in zip(self.cards, self.faces):
            ok, buf = cv2.imencode(".png", f)
            blobs[f"face_{c}"] = np.frombuffer(buf.tobytes(), np.uint8)
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **blobs)
        return path


def load_deck(path) -> PlainDeck:
    """Read a deck written by ``euchre-table calibrate deck`` (or :meth:`PlainDeck.save`)."""
    path = Path(path)
    if not path.is_file():
        raise DeckError(f"deck file {path} does not exist: make one with "
                        "`euchre-table calibrate deck --from-dir DIR --out FILE`")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("format") == FORMAT and meta.get("version") == FORMAT_VERSION:
                faces = [cv2.imdecode(data[f"face_{c}"], cv2.IMREAD_COLOR) for c in meta["cards"]]
    except (OSError, ValueError, KeyError) as exc:
        raise DeckError(f"{path} is not a plain-deck file ({exc}): make one with "
                        "`euchre-table calibrate deck --from-dir DIR --out FILE`") from exc
    if meta.get("format") != FORMAT:
        raise DeckError(f"{path} is not a plain-deck file: make one with "
                        "`euchre-table calibrate deck --from-dir DIR --out FILE`")
    if meta.get("version") != FORMAT_VERSION:
        raise DeckError(f"{path} was made by an older version of euchre-table "
                        f"(format {meta.get('version')}): calibrate the deck again")
    if any(f is None for f in faces):
        raise DeckError(f"{path} is damaged (a card's picture cannot be read): calibrate the deck again")
    return PlainDeck(name=meta.get("name", path.stem), cards=meta["cards"], faces=faces,
                     aspect=float(meta["aspect"]), card_px=meta.get("card_px"),
                     card_px_of=meta.get("card_px_of", "height"), meta=meta,
                     held=meta.get("held", []))
