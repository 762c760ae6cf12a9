"""One entry for reading the cards in a frame, by QR sticker or (through vision.plain) by the plain card faces.

>>> import numpy as np
>>> recognize(np.zeros((48, 64, 3), np.uint8), mode="sticker")
[]
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

MODES = ("sticker", "plain")


class RecognizeError(RuntimeError):
    """A recognition mode that cannot run, with what to do about it."""


def load_plain_deck(path):
    """A plain deck's templates, from ``euchre-table calibrate deck`` (``vision.plain.load_deck``)."""
    from vision.plain import load_deck
    return load_deck(path)


def recognize(frame: np.ndarray, mode: str = "sticker", zones: Optional[Callable] = None,
              deck=None, decoder: str = "zxing", refusals: bool = False, table=None) -> list:
    """Sightings of cards in a BGR frame, as dicts ``{"card", "zone", "corners",
    "confidence"}``. ``zones``: a callable image point → zone (a Calibration);
    ``deck``: templates from :func:`load_plain_deck` (plain mode only); ``table``: the
    learnt empty table (``vision.plain.background.TableModel``, plain mode only: a
    camera's stream of frames, as the service reads; without it each frame is read
    alone, as a photo). With ``refusals``, plain mode also returns what it could not
    read, with ``"card": None`` (the tracker holds a card while something unreadable
    lies over it); never a guess."""
    if mode == "sticker":
        from vision.stickers import read_stickers
        return [s.to_json() for s in read_stickers(frame, decoder=decoder, zones=zones)]
    if mode == "plain":
        if deck is None:
            raise RecognizeError("plain mode needs the deck's templates: give --deck FILE "
                                 "(made by `euchre-table calibrate deck`)")
        from vision.plain import recognize_plain
        found = [_as_json(s, zones) for s in recognize_plain(frame, deck, zones=zones, table=table)]
        # A refusal carries no card: a consumer must never see a guess.
        return [s for s in found if refusals or s["card"] is not None]
    raise RecognizeError(f"unknown mode {mode!r}: choose sticker or plain")


def _as_json(s, zones) -> dict:
    get = s.get if isinstance(s, dict) else (lambda k, d=None: getattr(s, k, d))
    corners = np.asarray(get("corners"), np.float64).reshape(-1, 2)
    card = get("card")
    zone = get("zone")
    if zone is None and zones is not None and len(corners):
        c = corners.mean(axis=0)
        zone = zones((float(c[0]), float(c[1])))
    return {"card": str(card) if card is not None else None, "zone": zone,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
            "confidence": round(float(get("confidence", 0.0) or 0.0), 3)}
