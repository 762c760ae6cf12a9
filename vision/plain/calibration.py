"""Calibrating a deck through the camera: each card's face as the camera sees it, checked before it is trusted."""
from __future__ import annotations

from typing import Optional

import numpy as np

from vision.plain.background import TableModel
from vision.plain.find import find_outlines, top_level
from vision.plain.straighten import face_of

ASPECT_RANGE = (0.55, 0.82)
"""Card width/height looked for while the deck's own is not known yet."""
MAX_ASPECT_SPREAD = 0.2
"""The faces' width/height may differ from their median by this fraction at most."""
MAX_SIZE_SPREAD = 0.15
"""Through one camera, the cards' sizes may differ from their median by this fraction at most."""


class CalibrationError(ValueError):
    """Pictures that cannot make a deck, with a message saying which and what to do."""


class NoCardFound(CalibrationError):
    """A picture in which no card was found."""


def lone_card(frame: np.ndarray, table: Optional[TableModel] = None, what: str = "the picture"):
    """The one card lying in a frame (an Outline), or a CalibrationError saying what was
    seen instead. With ``table`` (the empty table learnt), edges of the table are ignored."""
    outlines = top_level(find_outlines(frame, None, table=table))
    if not outlines:
        raise NoCardFound(f"{what}: no card found in it; lay one card alone, face up and "
                               "whole, in view of the camera (at least 60 px long)")
    if len(outlines) > 1:
        big = max(o.area for o in outlines)
        outlines = [o for o in outlines if o.area > 0.5 * big]
        if len(outlines) > 1:
            raise CalibrationError(f"{what}: {len(outlines)} cards found; lay one card at a time")
    return outlines[0]


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
    """(upright face, long side over the frame's height) of the lone card in a frame."""
    o = lone_card(frame, table, what)
    return face_of(frame, o.corners), o.long_side / frame.shape[0]


MISCUT_FIT = 0.6
"""Least correlation, both ways, of the fit laying one twin's face on the other's (same
rank and colour) from which the two are the same print, so that the fit says something
about their outlines; twins whose prints differ (an ace of spades' large picture against
an ace of clubs) fit by less."""
MISCUT_FIT_OTHER = 0.7
"""The same for two faces of a rank in the other colour: their signs differ in shape
(hearts against spades), and the fit, drawn by them, strays further."""
MISCUT_MOVE = 0.08
"""Largest move of a face's corner (share of its height) by which the fit may lay one
well-cut face of a rank on another: more, and one of the two was straightened from
another outline than the card's own."""


def miscut_faces(faces: dict, aspect: float) -> dict:
    """The faces cut from a wrong outline (a corner found out on the table, an outline
    cut off the card), ``{card: corner move}``: among the faces of each rank that are the
    same print (they fit each other by ``MISCUT_FIT`` both ways), those that agree (laid
    on each other by a move of their corners within ``MISCUT_MOVE`` of the height) are
    taken as cut at the card's own outline when they are the most; a face that fits them
    only by a larger move (a reshape, a large shift) was cut wrongly. Two faces that
    fit each other only so, with no third to tell which is right, are both named.

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
    for cards in ranks.values():
        fits, agree = {}, {}
        for i, a in enumerate(cards):
            for b in cards[i + 1:]:
                fit, move = _fit_both_ways(sharp[a], sharp[b])
                if fit >= (MISCUT_FIT if _red(a) == _red(b) else MISCUT_FIT_OTHER):
                    fits[a, b] = move
        for (a, b), move in fits.items():
            if move <= MISCUT_MOVE:
                agree.setdefault(a, set()).add(b)
                agree.setdefault(b, set()).add(a)
        groups = _groups(cards, agree)
        for (a, b), move in fits.items():
            if move <= MISCUT_MOVE:
                continue
            ga = next(g for g in groups if a in g)
            gb = next(g for g in groups if b in g)
            if ga is gb:
                continue            # linked through faces that agree with both
            # The larger group of faces that agree is the card's own outline; of two
            # groups as large, which is cannot be told, and both are named.
            if len(ga) <= len(gb):
                for c in ga:
                    out[c] = max(out.get(c, 0.0), move)
            if len(gb) <= len(ga):
                for c in gb:
                    out[c] = max(out.get(c, 0.0), move)
    return out


def refuse_miscut(faces: dict, aspect: float, photos: Optional[dict] = None) -> None:
    """A CalibrationError naming each face cut from a wrong outline (:func:`miscut_faces`)
    and asking for it again: its photo (``photos``: ``{card: file name}``), or the card
    shown again through the camera. Nothing when every face agrees with its rank's."""
    bad = miscut_faces(faces, aspect)
    if not bad:
        return
    named = ", ".join(f"{photos[c]} ({c})" if photos and c in photos else str(c) for c in sorted(bad, key=str))
    again = ("take these photos again, the card flat and alone, the camera straight above it"
             if photos else "calibrate again, each card flat, alone and still")
    raise CalibrationError(f"these cards were not found at their own outline (their face fits the others "
                           f"of their rank only reshaped or moved by {max(bad.values()):.0%} of its height: "
                           f"a corner found on the table, or the card cut off): {named}; {again}")


def _rank_of(card) -> str:
    return str(card)[:-1]


def _red(card) -> bool:
    return str(card)[-1] in "HD"


def _groups(cards: list, agree: dict) -> list:
    """The faces linked by agreeing fits (connected groups)."""
    groups, seen = [], set()
    for c in cards:
        if c in seen:
            continue
        group, todo = set(), [c]
        while todo:
            x = todo.pop()
            if x in group:
                continue
            group.add(x)
            todo.extend(agree.get(x, ()))
        seen |= group
        groups.append(group)
    return groups


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
