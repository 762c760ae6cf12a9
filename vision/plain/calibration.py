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
