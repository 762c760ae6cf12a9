"""Deciding which card a straightened view shows, or refusing: the close candidates meet in duels; ink colour; covers.

1. *Shortlist*: the calibrated cards whose low-resolution face is closest, both ways up.
2. *Match*: each shortlisted card's template is laid on the view whole both ways up,
   then patch by patch (``read.patch_match``) the way up that fits (both ways when the
   whole match hardly tells them apart: ``WAY_GAP``); the ones within ``RIVAL_GAP`` of
   the best are contenders.
3. *Duels*: every contender meets every other. A red card against a black one is
   settled by the print's colour where that is clear (a black card only if it also
   wins by shape: glare pales red print until it passes for black; a red card whose
   print keeps some red, ``INK_PALE``, by shape too; against the card of its own rank
   the shape is the sign look, below); cards of other colours (a four-colour deck's
   blue diamonds, green clubs: each suit's ink learnt from the calibration) likewise by
   the direction of the print's colour, and where it does not decide by shape; otherwise by
   the close look at the places where the two templates differ (``read.duel``), the
   challenger laid both ways up; twins (same rank and colour: K♠/K♣) by the sign look
   alone (``read.sign_look``: the places where they differ in shape), seen from either
   side (the card's look against its twin and the twin's against it, negated: their
   mean when both lead by ``TWIN_SIDE``, else the lesser; the twin's side looks at the
   view laid on the card's template or on its own, whichever fits its places better:
   ``read.signs_fit``; a twin whose face is its own picture turned is compared only the
   way up at which the pair has sign places: ``PlainDeck.sign_ways``), and never on a
   card seen smaller than ``MIN_SIGN_PX``. Each look is taken on the view laid on the
   template of the side that looks (``read.laid_view``: its patches' slips as a shift and
   scale), as a face cut a few per cent off the card in calibration or a view's outline
   found a little off would put the places beside the print. A contender's margin is its
   worst duel; the contender with the best margin is the candidate.
4. The candidate is named only when it matches well (``MIN_SCORE``), wins every duel
   by ``MIN_MARGIN`` (its twin by more on a small card: ``twin_margin``), its print has its suit's colour
   (or, for red print paled by glare, its shape beats the black cards of its rank; for
   black print tinted by a red light, the red cards of its rank; by ``twin_margin``),
   and no part of the face differs from its template in grey or colour (a finger, a coaster: ``MAX_CELL``,
   ``MAX_TINT``), and neither it nor a card it met closely is set aside by the deck's
   calibration (``PlainDeck.held``). Otherwise the reading is a refusal with a reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from engine.cards import Card
from vision.plain import read
from vision.plain.deck import RED_INK
from vision.plain.straighten import white_balanced

SHORTLIST_GAP = 0.12
"""Cards whose low-resolution match is within this of the best are matched closely
(at most ``SHORTLIST_MAX``, and at least ``SHORTLIST_MIN`` whatever their match)."""
SHORTLIST_MAX = 6
SHORTLIST_MIN = 3
RIVAL_GAP = 0.15
"""Cards whose match is within this of the best are contenders."""
WAY_GAP = 0.03
"""A contender whose whole match one way up is within this of the other way is laid
patch by patch both ways up (the better is kept). On tuning sessions (cloth and the grey
mat, 3,312 views of the true card laid both ways), the whole match and the patches
preferred different ways up 47 times, each with the whole match's two ways within 0.019
of each other; the patches' two ways differed by 0.034 at most there (a nine of spades
laid the wrong way up, its middle pip down, lost to the ten), elsewhere by under 0.01."""
MIN_SCORE = 0.7
HOPELESS = 0.5
"""A view whose best match with any card (whole or patch by patch) is below this is refused
at once, as matching no card well: a glare spot or a piece of the table taken for a card.
Its duels would be many (every card is then about as poor a match as the best) and would
cost a quarter of a second. (Tuning frames: views of cards named had best matches of 0.81
or more; the duels can change the card named only to a look-alike, whose own match must
still reach ``MIN_SCORE``.)"""
MIN_MARGIN = 0.3
MIN_TWIN_MARGIN = 0.45
"""Least margin by which a small card (up to ``TWIN_SMALL_PX`` long) must win its duel
with its twin (K♠/K♣, 9♥/9♦): more than ``MIN_MARGIN``, because on a small card the sign
look between twins can lean the wrong way by more than other duels do (on the tuning
designs on a white mat at 640x480, cards 88-119 px long: twin looks that leaned the
wrong way reached 0.18, twins named rightly led by 0.40 or more). Between
``TWIN_SMALL_PX`` and ``TWIN_LARGE_PX`` the margin needed falls to ``MIN_MARGIN``; a card
of unknown size needs the larger margin."""
TWIN_SIDE = 0.2
"""Between twins the sign look is seen from either side (the card's look against its
twin, and the twin's against the card, negated): each side must lead by at least this
for their mean to be the duel's value, else the lesser side is. (A single side leaning
the wrong way reached 0.18 on small cards on the white mat; on tuning replays, the mean
alone let a twin lead the true card by 0.29-0.34 on a poorly calibrated deck where one
side alone had said the twin by 0.5-0.6 and the other hardly at all.)"""
TWIN_SMALL_PX = 130
TWIN_LARGE_PX = 200


def twin_margin(card_px: Optional[float]) -> float:
    """The margin by which a card seen ``card_px`` long must beat its twin.

    >>> twin_margin(110), twin_margin(165), twin_margin(240)
    (0.45, 0.375, 0.3)
    """
    if card_px is None or card_px <= TWIN_SMALL_PX:
        return MIN_TWIN_MARGIN
    share = min(1.0, (card_px - TWIN_SMALL_PX) / (TWIN_LARGE_PX - TWIN_SMALL_PX))
    return round(MIN_TWIN_MARGIN + share * (MIN_MARGIN - MIN_TWIN_MARGIN), 3)
INK_RED = 0.5
"""A red card's print shows at least this share of its template's redness ..."""
INK_BLACK = 0.2
"""... and a black card's at most this share (measured on the red card's print); up to
``INK_TINT`` when its shape beats the red cards of its rank (dark print tinted by a red
cloth's or a warm lamp's light)."""
INK_TINT = 0.4
"""Most redness (as ``INK_RED``) of a black card's print judged by its shape: dark print
tinted by the light showed 0.24-0.35 (the Blender world's burgundy cloth), while a red
card seen badly (a phone photo's foreshortened K♦, 80 px long, its print off the
template's) showed 0.43 and was named K♠ by a shape look of 0.42: more red than this is
refused."""
INK_ALONE_PALE = 0.8
"""Least redness (as ``INK_RED``) where only the red card has red print, for the print's
colour to name the red card when the deck's red print was learnt pale
(``PlainDeck.red_print``): a black court card seen with less glare than in its
calibration showed its pink art there at up to 0.51 of a red court's (the Blender
world's tuning green felt), while red cards showed 0.7-7.5, most above 0.9."""
INK_PALE = 0.1
"""Least redness (share of the template's, as ``INK_RED``) of print that a lamp's
reflection may have paled: a red card whose print shows less than ``INK_RED`` but at
least this is judged by its shape against the black cards of its rank (it must beat
them by the close look, by ``twin_margin``); less is black print. (On tuning sessions,
red cards under glare showed 0.06-1.3, 39 of 286 under 0.5 and 8 of them under 0.1;
where a black card was seen, a red card of its rank whose redness there reached 0.1,
e.g. a court card's robe, lost the close look to the black cards by 0.44 or more,
while one under it, an ace of spades under glare, would have won it by 0.83.)"""
PALE_SHAPE = 0.1
"""Least shape value (the sign look against the red card of its rank, the close look
against another) by which a black card named by the print's colour must also beat the
red card (glare pales red print until it passes for black)."""
MIN_SIGN_PX = 70
"""Smallest card (long side in the frame, px) on which the sign look may tell twins
(K♠/K♣, Q♥/Q♦) apart: below it a card whose closest rival is its twin is not named. (On
the tuning designs, each card seen at a given size through a deck calibrated at that
size, no twin look came out the wrong way at 50-130 px; at 70 px a few cards of Dondorf,
Oxygen and Penguins were refused. A close call is refused by ``MIN_MARGIN`` at any
size: this floor is for what the sign look was never measured on.)"""
MAX_CELL = 1.2
"""Largest mean difference (normalized grey) in any cell of the face: more is a cover."""
CELLS = (4, 6)


@dataclass
class Reading:
    """What a view was read as: ``card`` (None = refused, ``reason`` says why),
    ``turned`` (which of the two views was upright), ``score``, ``margin`` and the
    best candidate ``guess`` even when refused (diagnostics only)."""

    card: Optional[Card]
    score: float = 0.0
    margin: float = 0.0
    turned: int = 0
    reason: Optional[str] = None
    guess: Optional[Card] = None
    detail: Optional[dict] = None


def view_faces(views) -> list:
    """The two ways up of a found card (canonical BGR views) as faces to compare."""
    up = read.Face.of(white_balanced(views[0]))
    return [up, up.turned()]


MIN_INK_PIXELS = 12
"""Fewest pixels (soft size) where one card's print is red and the other's black for
the print's colour to settle a duel."""


def _ink_share(faces, deck, red: int, black: int, entry) -> Optional[float]:
    """How red the view is where the red card ``red`` has red print and the black card
    ``black`` has dark print (the pips and index both cards share), as a share of how red
    that print is in the red card's template: about 1 for the red card, 0 for the black
    one. None when the two do not share enough such print (a court card's robe is
    coloured in both)."""
    _, o, offsets = entry
    t = deck.templates[red]
    dark = deck.templates[black].dark_ink
    mask = read.compared(t.red_ink & (dark | dark[::-1, ::-1]))
    if mask.sum() < MIN_INK_PIXELS:
        return None
    view = read.aligned(faces[o].redness, t.face.soft.shape, offsets)
    return float(view[mask].mean()) / max(float(read.compared(t.face.redness)[mask].mean()), 1e-3)


def _red_alone_share(faces, deck, red: int, black: int, entry) -> Optional[float]:
    """Where the red card ``red`` has red print and the black card ``black`` has none (red
    or other coloured print) either way up: how red the view is there, as a share of how
    red that print is in the red card's template. For two cards whose prints hardly
    overlap (a small red heart, a large spade seen grey), so that ``_ink_share`` says
    nothing: a view of the black card shows no red there. None when there are too few
    such pixels."""
    _, o, offsets = entry
    t = deck.templates[red]
    theirs = deck.templates[black].red_ink
    mask = read.compared(t.red_ink & ~(theirs | theirs[::-1, ::-1]))
    if mask.sum() < MIN_INK_PIXELS:
        return None
    view = read.aligned(faces[o].redness, t.face.soft.shape, offsets)
    return float(view[mask].mean()) / max(float(read.compared(t.face.redness)[mask].mean()), 1e-3)


def _colour_share(faces, deck, x: int, y: int, entry) -> Optional[float]:
    """For two cards printed in different colours other than red against black (a
    four-colour deck's blue diamonds or green clubs; ``x`` coloured): how much the view's
    print, where ``x`` has print of its suit's ink and ``y`` print of its own, has
    ``x``'s colour rather than ``y``'s: about 1 for ``x``, 0 for ``y`` (``y``'s colour
    being its suit's ink as calibrated, nothing for black). A lamp's reflection shortens
    the view's colour towards none: towards a black card's, or between two colours.
    None when the two share too little such print."""
    _, o, offsets = entry
    tx, ty = deck.templates[x], deck.templates[y]
    ink_y = deck.inks.get(deck.cards[y].suit)
    theirs = ty.dark_ink if ink_y is None else ty.colour_ink
    mask = read.compared(deck.hue_pixels(x) & (theirs | theirs[::-1, ::-1]))
    if mask.sum() < MIN_INK_PIXELS:
        return None
    cx = read.compared(tx.face.chroma)[mask].mean(axis=0)
    cy = np.zeros(3) if ink_y is None else ink_y[0] * ink_y[1]
    v = read.aligned(faces[o].chroma, tx.face.soft.shape, offsets)[mask].mean(axis=0)
    d = cx - cy
    return float((v - cy) @ d) / max(float(d @ d), 1e-3)


def _ink_level(faces, deck, red: int, entry) -> float:
    """How red the view is where the red card has red print (share of the template's);
    for a card printed in another colour (``PlainDeck.other_hue``), how much of its
    ink's colour the view shows there."""
    _, o, offsets = entry
    t = deck.templates[red]
    if deck.other_hue(red):
        mask = read.compared(deck.hue_pixels(red))
        if not mask.any():
            return 0.5
        hue = deck.inks[deck.cards[red].suit][0]
        view = read.aligned(faces[o].chroma, t.face.soft.shape, offsets)[mask] @ hue
        return float(view.mean()) / max(float((read.compared(t.face.chroma)[mask] @ hue).mean()), 1e-3)
    mask = read.compared(t.red_ink)
    if not mask.any():
        return 0.5
    view = read.aligned(faces[o].redness, t.face.soft.shape, offsets)
    return float(view[mask].mean()) / max(float(read.compared(t.face.redness)[mask].mean()), 1e-3)


def read_views(views, deck, card_px: Optional[float] = None, min_score: float = MIN_SCORE) -> Reading:
    """Decide which of the deck's cards the two views (upright and turned) show.
    ``card_px``: the card's long side in the frame (px), when known: a card seen
    smaller than ``MIN_SIGN_PX`` is never named, as its suit signs cannot be told from
    its twin's (K♠ from K♣). ``min_score``: the least match for a card to be named
    (``MIN_SCORE``; more for an outline found by trying many places)."""
    faces = view_faces(views)
    too_small = card_px is not None and card_px < MIN_SIGN_PX
    small = np.stack([f.small for f in faces])
    coarse = small @ deck.small.T                     # (2, n)
    best = coarse.max()
    # Each shortlisted card is matched the way up its coarse match prefers, and the
    # other way too when that is nearly as good.
    # Each shortlisted card is laid on the view whole, both ways up (one call each); the
    # best of them are then laid patch by patch, the way up that suited them (both ways
    # on a near tie).
    ranked = np.argsort(-coarse.max(axis=0))[:SHORTLIST_MAX]
    whole, way_scores = {}, {}
    for n, i in enumerate(ranked):
        i = int(i)
        if n >= SHORTLIST_MIN and coarse[:, i].max() < best - SHORTLIST_GAP:
            break
        # Both ways up: the low-resolution print can prefer the wrong one (a nine's middle
        # pip is all that tells its ways up apart, and a face cut a little askew moves more).
        ways = [read.global_match(faces[o].soft, deck.templates[i].face.soft) for o in (0, 1)]
        whole[i] = (max(ways), int(np.argmax(ways)), ways)
    first = max(v[0] for v in whole.values())
    fine = {}
    for i, (sc, o, ways) in whole.items():
        if sc >= first - RIVAL_GAP:
            # Laid patch by patch the way up the whole match prefers, and the other way too
            # when the whole match can hardly tell them apart: the better way is kept.
            tries = (o, 1 - o) if ways[1 - o] >= sc - WAY_GAP else (o,)
            best, patched = None, [None, None]
            for w in tries:
                s, offsets = read.patch_match(faces[w].soft, deck.templates[i].face.soft,
                                             deck.templates[i].face.parts)
                patched[w] = round(s, 3)
                if best is None or s > best[0]:
                    best = (s, w, offsets)
            s, w, offsets = best
            fine[i] = (max(s, ways[w]), w, offsets)
            way_scores[str(deck.cards[i])] = [round(v, 3) for v in ways] + patched
    top = max(v[0] for v in fine.values())
    if top < HOPELESS:
        # Nothing here looks like a card of the deck: refused without the duels, which
        # among so many equally poor matches would meet nearly every pair of cards.
        a = max(fine, key=lambda i: fine[i][0])
        return Reading(card=None, score=top, turned=fine[a][1], guess=deck.cards[a],
                       reason=f"matches no card well (best {deck.cards[a]}, {top:.2f})",
                       detail={"score": top, "top": top, "ways": way_scores})
    contenders = [i for i in fine if fine[i][0] >= top - RIVAL_GAP]
    inks, duels, shape_looks = {}, {}, {}

    def duel(x, y):
        if (x, y) in duels:
            return duels[(x, y)]
        if deck.red[x] != deck.red[y] or (deck.colour[x] != deck.colour[y] and not deck.twins(x, y)):
            # Cards of two colours are told apart by the print's colour where it is clear:
            # red against black by its redness, other colours (a four-colour deck's blue
            # diamonds, green clubs) by the direction of their colour.
            red_black = deck.red[x] != deck.red[y] and not (deck.other_hue(x) or deck.other_hue(y))
            if red_black:
                red, black = (x, y) if deck.red[x] else (y, x)
            else:
                red, black = (x, y) if deck.inks.get(deck.cards[x].suit) is not None else (y, x)
            if (red, black) not in inks:
                inks[(red, black)] = (_ink_share if red_black else _colour_share)(faces, deck, red, black,
                                                                                  fine[red])
            share = inks[(red, black)]
            if share is None and red_black:
                # Prints that share too little to compare (the black card's print seen
                # grey, not dark): a view as red as the red card's print where the black
                # card has no red is the red card (black print never turns red; a
                # reflection only pales red print, so a pale view settles nothing here).
                alone = _red_alone_share(faces, deck, red, black, fine[red])
                if alone is not None and alone >= (INK_RED if deck.red_print >= RED_INK else INK_ALONE_PALE):
                    duels[(x, y)] = 1.0 if x == red else -1.0
                    return duels[(x, y)]
            if share is not None and (share >= INK_RED or share <= INK_BLACK):
                duels[(x, y)] = 1.0 if (share >= INK_RED) == (x == red) else -1.0
                if share <= INK_BLACK:
                    # Print that looks colourless may be coloured print paled by a lamp's
                    # reflection (it adds white light; it never makes black print red):
                    # the black card must also win by shape, and the red card is judged
                    # by it (the same duel seen from either side).
                    if x == black:
                        look = _shape_look(x, y)
                        if look < PALE_SHAPE:
                            duels[(x, y)] = look
                    elif _ink_level(faces, deck, x, fine[x]) >= INK_PALE:
                        # Some red is left (black print has none): the shape decides.
                        look = _shape_look(x, y)
                        if look > -PALE_SHAPE:
                            duels[(x, y)] = look
                return duels[(x, y)]
            if not red_black:
                # Colours that do not settle it (paled between two colours, or too little
                # print in common): the shape decides, by the sign look for cards of one
                # rank, as between twins.
                duels[(x, y)] = _shape_look(x, y)
                return duels[(x, y)]
        duels[(x, y)] = _close_look(x, y)
        return duels[(x, y)]

    def _shape_look(x, y):
        # Where the print's colour cannot be trusted (a lamp's reflection pales red print),
        # a card and the card of its rank in the other colour are told apart by their
        # shapes: the sign look, as for twins (the close look's places are where their
        # templates differ most, which for two faces alike but for their colour is
        # often only where the calibration cut them a few pixels apart).
        # (Faces that differ in shape only through a change of outline, or nowhere, have
        # no sign places: the close look then decides, as between other cards.)
        signs = deck.cards[x].rank == deck.cards[y].rank and all(
            deck.sign_places(x, y, turned)[1] for turned in (False, True))
        look = _close_look(x, y, signs=signs)
        shape_looks[f"{deck.cards[x]}>{deck.cards[y]}"] = round(look, 3)
        return look

    def _close_look(x, y, signs=False):
        # x, on the view the way up that suits it, must beat y laid either way up
        # (the way up y matches worse is skipped when it is far worse: it cannot win there).
        twins = deck.twins(x, y)
        if twins and too_small:
            # Twins (same rank and colour) differ only in their suit signs: a card seen too
            # small for its signs cannot be told from its twin.
            return 0.0
        view = laid(x)
        tx = deck.templates[x].face.sharp
        same = fine[x][1] == fine[y][1]
        values = []
        if twins or (signs and not too_small):
            # Twins differ only in their suit signs: the sign look alone says which.
            ways = [w for w, asked in ((False, same or orient[y][fine[x][1]] >= first - RIVAL_GAP),
                                       (True, not same or orient[y][1 - fine[x][1]] >= first - RIVAL_GAP)) if asked]
            return min(_sign_value(view, x, y, turned, twins) for turned in deck.sign_ways(x, y, ways))
        # y is compared laid on x (PlainDeck.laid), as its places were found.
        if same or orient[y][fine[x][1]] >= first - RIVAL_GAP:
            values.append(read.duel(view, tx, deck.laid(x, y), deck.places(x, y), deck.duel_patches(x, y)))
        if not same or orient[y][1 - fine[x][1]] >= first - RIVAL_GAP:
            values.append(read.duel(view, tx, deck.laid(x, y, turned=True), deck.places(x, y, turned=True),
                                    deck.duel_patches(x, y, turned=True)))
        return min(values)

    laid_views = {}

    def laid(x, way=None):
        # The view laid on x's template (its patches' slips: ``read.laid_view``), the way up
        # x matched it, or ``way`` up: there x is not what the view matched, and its patches
        # may slip towards x's print where it differs (a nine's middle pip), so only their
        # median slip is taken, as a shift.
        way = fine[x][1] if way is None else way
        if (x, way) not in laid_views:
            parts = deck.templates[x].face.parts
            slips = fine[x][2]
            if way != fine[x][1]:
                slips = read.patch_match(faces[way].soft, deck.templates[x].face.soft, parts)[1]
                shared = [s for s, (_, t) in zip(slips, parts[0]) if t is not None] or [(0, 0)]
                slips = [tuple(np.median(shared, axis=0))] * len(slips)
            laid_views[(x, way)] = read.laid_view(faces[way].sharp, parts, slips)
        return laid_views[(x, way)]

    def _sign_value(view, x, y, turned, both):
        # The sign look of x against y (y upside down on x's template with ``turned``);
        # ``both``: seen from either side, the mean of x's look against y and the negated
        # look of y against x, each with its own template's places and the other laid on
        # it (the view turned with y when y lies the other way up).
        tx = deck.templates[x].face.sharp
        look = read.sign_look(view, tx, *deck.sign_places(x, y, turned), deck.sign_patches(x, y, turned))
        if not both:
            return look
        # The twin's side looks at the view laid on the twin's own template when the twin
        # was matched the way up it lies here (its calibration may have cut its face a
        # little larger or smaller than the card's).
        way = fine[x][1] if not turned else 1 - fine[x][1]
        ty, (y_laid, y_signs), y_patches = deck.templates[y].face.sharp, deck.sign_places(y, x, turned), \
            deck.sign_patches(y, x, turned)
        if fine[y][1] == way:
            mine = laid(y)
        else:
            # The view as laid on x's template (turned with y) lies on y's only where the
            # calibration cut both faces alike; laid on y's own template by its patches'
            # median slip, it may have slipped towards y's print. Of the two, the one whose
            # places fit either twin's signs better is looked at (seed 969, Oxygen White's
            # 9♣ cut askew: the first fit 0.5-0.6 and said 9♠; gen-24's nines: the second
            # fit 0.90-0.96 to the first's 0.99 and said the other twin).
            on_x = view[::-1, ::-1] if turned else view
            on_y = laid(y, way)
            mine = max((on_x, on_y), key=lambda v: read.signs_fit(v, y_signs, y_patches))
        back = -read.sign_look(mine, ty, y_laid, y_signs, y_patches)
        # Either side alone may lean the wrong way by up to about 0.2 (a face cut off, an
        # outline a little off); both must lead by more than that for their mean to count.
        if min(look, back) < TWIN_SIDE:
            return min(look, back)
        return (look + back) / 2

    # Coarse match of each contender both ways up, to know which ways up are worth a duel.
    # How well each card matches the view whole, either way up (to know which ways up
    # are worth a duel).
    orient = {i: {0: whole[i][2][0], 1: whole[i][2][1]} for i in fine}
    # The best match meets every other contender and every look-alike of its own
    # (a look-alike whose match with the view is poor may be the true card seen through
    # a poorly found outline); if it loses a duel, the winner is tried in its place
    # (each card at most once).
    a = max(contenders, key=lambda i: fine[i][0])
    tried, winners = {}, set()
    while True:
        for y in deck.alike[a]:
            if y not in fine:
                # Laid on the view whole only; its patches are taken to lie where the
                # candidate's did (a look-alike's print lies where the candidate's does).
                # A card of the shortlist was laid whole already: the same matches are kept.
                ways = whole[y][2] if y in whole else [read.global_match(faces[w].soft, deck.templates[y].face.soft)
                                                       for w in (0, 1)]
                w = int(np.argmax(ways))
                slips = fine[a][2]
                if deck.twins(a, y) and fine[a][1] == w:
                    # A twin is told by its suit signs alone, each side of the sign look
                    # reading the view laid on its own template: its patches lie where the
                    # candidate's do, moved by where its print lies on the candidate's
                    # template (``PlainDeck.slips``). ancient-egyptians' K♦ has its picture
                    # and signs some 7 px of 160 lower than the K♥'s: laid with the K♥'s
                    # slips alone, a K♥'s big heart lay half on the K♦'s diamond, the K♦'s
                    # side said 0.05 where the K♥'s said 0.95, and every such king was
                    # refused (tuning sessions, clean_cases seed 891). (The twin's own
                    # patches matched over the view instead slipped towards the view's
                    # signs and left queens of a tuning design untold, seed 882.) A twin
                    # that matches best the other way up keeps the candidate's slips turned.
                    # (Within the slip any patch may take: the view holds no more around it.)
                    lim = read.SHIFT
                    slips = [(min(max(dy + ey, -lim), lim), min(max(dx + ex, -lim), lim))
                             for (dy, dx), (ey, ex) in zip(slips, deck.slips(a, y))]
                fine[y] = (ways[w], w, slips if fine[a][1] == w else [(-dy, -dx) for dy, dx in slips[::-1]])
                orient[y] = {0: ways[0], 1: ways[1]}
        # Every card that beat a card tried must be met too: the card walked to need not
        # have it among its look-alikes (a 9♦ walked to from a 10♠ that a 10♦ and the 9♦
        # both beat by colour alone would otherwise never meet the 10♦).
        rivals = set(contenders) | set(deck.alike[a]) | winners
        results = {y: duel(a, y) for y in rivals if y != a}
        tried[a] = results
        winners |= {y for y, v in results.items() if v < 0}
        lost = [y for y, v in results.items() if v < 0 and y not in tried]
        if not lost:
            break
        # The card that beat it by most; of equal wins (a colour duel is won by 1), the
        # one that matches the view best.
        a = min(lost, key=lambda y: (results[y], -fine[y][0]))
    # The walk ends on a card that loses to no card not yet tried; where it loses to one
    # tried before, it is no better a guess than they were (it may lose to all of them,
    # a red card met last after black ones beat each other by a hair): the candidate is
    # then the card tried whose worst duel is best. (A card that loses no duel has the
    # best margin of all, so what is named does not change; a refusal names a truer
    # guess, and calibration's self-check does not take a lost red card for a rival.)
    a = max(tried, key=lambda c: min(tried[c].values(), default=1.0))
    results = tried[a]
    margin = min(results.values(), default=1.0)
    rival = min(results, key=results.get, default=None)
    rival = deck.cards[rival] if rival is not None else None
    score, o, offsets = fine[a]
    card = deck.cards[a]
    t = deck.templates[a]
    # The candidate's own print must have its suit's colour.
    # Where the colour is in doubt, the card is named only if its shape beats the cards
    # of its rank in the other colours (``others``) by the sign look (their signs, not
    # the colour).
    pale, others = None, None
    if deck.red[a] or deck.other_hue(a):
        ink = _ink_level(faces, deck, a, fine[a])
        colour_ok = ink >= INK_RED
        if not colour_ok and ink >= INK_PALE:
            # Coloured print paled by a lamp's reflection.
            # (A red card of a red and black deck is held to the black cards of its rank
            # whatever colours its calibration learnt.)
            if deck.red[a] and not deck.other_hue(a):
                others = [y for y in deck.alike[a] if deck.cards[y].rank == card.rank and not deck.red[y]]
            else:
                others = [y for y in deck.alike[a] if deck.cards[y].rank == card.rank
                          and deck.colour[y] != deck.colour[a] and not deck.twins(a, y)]
    else:
        mask = read.compared(t.dark_ink)
        view_red = read.aligned(faces[o].redness, t.face.soft.shape, offsets)
        ink = float(view_red[mask].mean()) / max(deck.red_level, 1e-3) if mask.any() else 0.0
        colour_ok = ink <= INK_BLACK
        if not colour_ok and ink <= INK_TINT:
            # Dark print tinted red, but far less than red print: the light of a red
            # cloth or a warm lamp falls on the card unlike where it was calibrated. Held
            # to the red cards of its rank met here, as red print paled by glare is held
            # to the black ones.
            others = [y for y in fine if deck.cards[y].rank == card.rank and deck.red[y]
                      and not deck.other_hue(y)]
        # (Against a four-colour deck's blue or green cards a black card's colour is
        # judged in its duels with them: ``_colour_share``.)
    if others is not None:
        # The sign look between cards of one rank, as between twins: by more on a small card.
        pale = {deck.cards[y]: _shape_look(a, y) for y in others}
        colour_ok = bool(pale) and min(pale.values()) >= twin_margin(card_px)
    # Cover: no cell of the face may differ much from the template.
    va = read.unit(read.aligned(faces[o].soft, t.face.soft.shape, offsets))
    ua = read.unit(read.compared(t.face.soft))
    diff = np.abs(va - ua)
    cols, rows = CELLS
    h, w = diff.shape
    cells = diff[:h // rows * rows, :w // cols * cols].reshape(rows, h // rows, cols, w // cols).mean(axis=(1, 3))
    cover = float(cells.max())
    detail = {"score": score, "margin": margin, "rival": rival, "top": top, "ink": ink, "cell": cover, "pale": pale,
              "shape_looks": shape_looks, "ways": way_scores,
              "worst": {str(deck.cards[y]): round(-v, 3) for y, v in results.items()} | {str(card): round(margin, 3)}}
    reading = Reading(card=None, score=score, margin=margin, turned=o, guess=card, detail=detail)
    twin_rival = rival is not None and deck.twins(a, deck.index(rival))
    # The duel with the twin must be won by more, whether or not it was the closest; so
    # must the duel with a card of another rank printed as the same picture but for the
    # index (``deck.SAME_PICTURE``).
    twin_duels = {y: v for y, v in results.items() if deck.twins(a, y) or deck.same_picture(a, y)}
    twin = min(twin_duels, key=twin_duels.get, default=None)
    twin_short = twin is not None and twin_duels[twin] < twin_margin(card_px)
    if score < min_score:
        reading.reason = f"matches no card well (best {card}, {score:.2f})"
    elif margin < MIN_MARGIN and too_small and twin_rival:
        reading.reason = (f"seen too small ({card_px:.0f} px long, {MIN_SIGN_PX} needed) to tell its "
                          f"suit sign from {rival}'s")
    elif margin < MIN_MARGIN:
        reading.reason = f"not clearly told from {rival} (margin {margin:.2f})"
    elif twin_short:
        kind = "twins" if deck.twins(a, twin) else "cards alike but for their index"
        reading.reason = (f"not clearly told from {deck.cards[twin]} (margin {twin_duels[twin]:.2f}, "
                          f"{twin_margin(card_px)} needed between {kind} at {card_px or 0:.0f} px)")
    elif not colour_ok:
        reading.reason = f"the print's colour does not fit {card}"
    elif cover > MAX_CELL:
        reading.reason = f"part of the face differs from {card}: covered?"
    elif held := _held_near(deck, card, set(contenders) | set(tried)):
        reading.reason = (f"{held} is set aside in this deck (its calibration could not tell it from "
                          f"another card): calibrate the deck again")
    else:
        reading.card = card
    return reading


def _held_near(deck, card: Card, met) -> Optional[Card]:
    """A card of ``deck.held`` that the view might be: the candidate itself, or a held
    card that matched the view nearly as well (a contender) or was tried in its place.
    A held card's face may be cut badly, so the view of it may lead to another card too."""
    if not deck.held:
        return None
    if card in deck.held:
        return card
    return next((deck.cards[i] for i in sorted(met) if deck.cards[i] in deck.held), None)
