"""Red print seen pale through a webcam (a small card's red blurred to pink): the deck learns what red is for it, and the print's colour still tells a red card from a black one."""
import cv2
import numpy as np
import pytest

from engine.cards import DECK, Card
from vision.plain import decide, read
from vision.plain.deck import COLOURED, RED_INK, PlainDeck, red_ink_of, red_print_level, template_of
from vision.plain.straighten import upright_views
from tests.vision.test_plain_twins import SS, H, W, _sign, laid_face, seen_at

BLACK = (20, 20, 20)
SATURATED = (30, 30, 200)
PALE = (165, 165, 225)
"""Red print as a webcam sees it on a card about 140 px long (BGR): redness about 0.36 on
paper, less once blurred; the Blender world's red pips showed 0.25-0.75 at most."""


def face(card: str, red_ink, same_shape: bool = False, inks: dict = None) -> np.ndarray:
    """A face (BGR, ``W`` x ``H``): a court's picture shared by the rank's four cards,
    the rank's letters and the suit sign in each corner (a spade's or a heart's shape), and
    two pips down the middle. Red suits print in ``red_ink``. ``same_shape``: hearts are
    drawn as spades and clubs as diamonds (as hearts), so that only the print's colour
    tells a heart from a spade and a diamond from a club (as on a deck whose index is too
    small to show the sign's shape); a string: the suits drawn as spades, the others as
    hearts. ``inks``: each suit's ink instead (a four-colour deck)."""
    card = Card(card)
    rank, red = str(card)[:-1], card.suit in "HD"
    ink = inks[card.suit] if inks else red_ink if red else BLACK
    shape = card.suit in (same_shape if isinstance(same_shape, str) else "SH" if same_shape else "SC")
    w, h = W * SS, H * SS
    img = np.full((h, w, 3), 245, np.uint8)
    rng = np.random.default_rng(sum(map(ord, rank)))
    for _ in range(7 if rank in "JQK" else 0):      # a court's picture, the same for its rank
        pts = (rng.uniform([0.25 * w, 0.22 * h], [0.75 * w, 0.78 * h], (5, 2))).astype(np.int32)
        cv2.fillPoly(img, [cv2.convexHull(pts)], tuple(int(v) for v in rng.integers(60, 200, 3)))
    for y in (0.3, 0.7):
        _sign(img, "S" if shape else "H", int(0.5 * w), int(y * h), int(0.06 * h), ink)
    for turned in (False, True):
        corner = np.full((h, w, 3), 255, np.uint8)
        cv2.putText(corner, rank, (int(0.04 * w), int(0.11 * h)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.0042 * h / max(1, len(rank)) ** 0.5, ink, int(0.012 * h), cv2.LINE_AA)
        _sign(corner, "S" if shape else "H", int(0.11 * w), int(0.17 * h), int(0.045 * h), ink)
        if turned:
            corner = corner[::-1, ::-1]
        img = np.where(corner < 250, corner, img)
    return cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)


def deck_of(red_ink, same_shape: bool = False, long_side: float = 150, inks: dict = None) -> PlainDeck:
    return PlainDeck(name="pale", cards=[str(c) for c in DECK], aspect=W / H,
                     faces=[seen_at(face(str(c), red_ink, same_shape, inks), long_side) for c in DECK])


def test_a_deck_whose_red_print_is_seen_pale_learns_a_lower_level_of_red():
    saturated, pale = deck_of(SATURATED), deck_of(PALE)
    assert saturated.red_print == RED_INK
    assert 0.1 <= pale.red_print < RED_INK
    # Every red card has red print, and no black pip card has any.
    for deck in (saturated, pale):
        for i, c in enumerate(deck.cards):
            count = int(read.compared(deck.templates[i].red_ink).sum())
            if c.suit in "HD":
                assert count > 20, (deck.red_print, str(c), count)
            elif c.rank in ("9", "10", "A"):
                assert count == 0, (deck.red_print, str(c), count)
    # With the usual level alone, the pale deck's red pip cards would have had none.
    assert not any(read.compared(red_ink_of(t.face)).any() for t, c in zip(pale.templates, pale.cards)
                   if c.suit in "HD" and c.rank in ("9", "10", "A"))


def test_the_level_stays_where_a_red_suit_is_not_red():
    # A four-colour deck whose blue diamonds were seen too pale to be learnt as blue: they
    # count as red cards, and a level taken from the hearts would make their faint print
    # red; the usual level is kept.
    deck = deck_of(PALE)
    blue = {Card(c): seen_at(face(c, (200, 120, 60)), 150) for c in ("9D", "10D", "AD")}
    cards = list(deck.cards)
    templates = [template_of(blue[c], W / H) if c in blue else t for c, t in zip(cards, deck.templates)]
    assert red_print_level(cards, templates) == RED_INK


@pytest.mark.parametrize("card", ["KH", "9D", "QH", "AD", "KS", "9C", "QS", "AC"])
def test_pale_red_print_tells_a_red_card_from_a_black_one_of_the_same_shape(card):
    # Hearts drawn as spades, clubs as diamonds: K♥ and K♠ differ only in their print's
    # colour. With the usual level the red cards' templates held no red print, and the
    # print's colour could not decide: K♥ was refused. A black card is named only where its
    # shape also beats the red card's (print seen colourless may be red print paled by a
    # lamp's reflection), which these shapes cannot: it is refused, never named red.
    cv2.setNumThreads(1)
    deck = deck_of(PALE, same_shape=True)
    img = face(card, PALE, same_shape=True)
    for k, angle in enumerate((8, 97, 190)):
        frame, corners = laid_face(img, 150, angle, seed=k)
        r = decide.read_views(upright_views(frame, corners, deck.aspect), deck, card_px=150)
        expected = (Card(card),) if Card(card).suit in "HD" else (None, Card(card))
        assert r.card in expected, (card, angle, r.card, r.reason, r.detail and r.detail.get("worst"))


PALE_FOUR = {"S": BLACK, "H": PALE, "D": (225, 170, 160), "C": (165, 215, 170)}
"""A four-colour deck's inks seen pale (BGR): pink hearts, lilac diamonds and pale green
clubs, of chroma 0.2-0.3 on paper (the Blender world's A4 mat showed such a deck's pips at
0.2-0.5), under ``COLOURED``."""


def test_a_four_colour_deck_seen_pale_learns_its_four_inks():
    deck = deck_of(PALE, inks=PALE_FOUR)
    assert deck.colour_print < COLOURED
    assert deck.inks["S"] is None and all(deck.inks[s] is not None for s in "HDC")
    assert len(set(deck.colour)) == 4
    # The diamonds are not red: the hearts alone set the red print's level.
    assert deck.other_hue(deck.index(Card("9D"))) and not deck.other_hue(deck.index(Card("9H")))
    assert deck.red_print < RED_INK
    # A red and black deck of the same print keeps two colours, and a saturated one the
    # usual level.
    assert len(set(deck_of(PALE).colour)) == 2
    assert deck_of(SATURATED).colour_print == COLOURED


@pytest.mark.parametrize("card", ["9D", "10C", "AH", "KD", "9S", "AS"])
def test_pale_inks_tell_a_four_colour_decks_suits_of_one_shape_apart(card):
    # Diamonds drawn as spades and clubs as hearts: only the print's colour tells 9♦ from
    # 9♠ and 10♣ from 10♥. With the usual level no ink but the hearts' was learnt, and
    # the diamonds (counted red, with no red print) were refused against the spades. A
    # black card is named only where its shape also beats the coloured one's, which these
    # shapes cannot: it is refused, never named as another suit.
    cv2.setNumThreads(1)
    deck = deck_of(PALE, same_shape="SD", inks=PALE_FOUR)
    img = face(card, PALE, same_shape="SD", inks=PALE_FOUR)
    for k, angle in enumerate((8, 97, 190)):
        frame, corners = laid_face(img, 150, angle, seed=k)
        r = decide.read_views(upright_views(frame, corners, deck.aspect), deck, card_px=150)
        expected = (Card(card),) if Card(card).suit != "S" else (None, Card(card))
        assert r.card in expected, (card, angle, r.card, r.reason, r.detail and r.detail.get("worst"))
