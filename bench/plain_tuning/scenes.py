"""Scenes for tuning and testing the plain-deck reader: a frame, the same view of the empty table, the truth; decks from the KDE art; matching sightings to the truth.

The empty table is rendered with the same camera, light and surface as the frame (the
cards' art made transparent, the hand left out), plus fresh sensor noise: what the
service's camera saw before the cards were laid.
"""
from __future__ import annotations

import contextlib
from functools import lru_cache

import cv2
import numpy as np

import vision.art as art
import vision.synth as synth
from engine.cards import DECK
from vision.synth import compose_frame


@contextlib.contextmanager
def _no_cards():
    orig_img, orig_hand = art.card_image, synth._hand_mask

    def clear(deck, card, height=350):
        face = orig_img(deck, card, height).copy()
        face[:, :, 3] = 0
        return face

    def no_hand(*a, **k):
        mask = orig_hand(*a, **k)   # draws the same random numbers as the real hand
        mask[:] = 0
        return mask

    art.card_image, synth._hand_mask = clear, no_hand
    try:
        yield
    finally:
        art.card_image, synth._hand_mask = orig_img, orig_hand


def compose_pair(placements, size, seed, **conditions):
    """``(frame, empty_table, truth)`` for one scene (``seed``: anything numpy seeds with)."""
    img, truth = compose_frame(placements, size=size, rng=np.random.default_rng(seed), **conditions)
    with _no_cards():
        empty, _ = compose_frame(placements, size=size, rng=np.random.default_rng(seed), **conditions)
    noise = np.random.default_rng([*np.atleast_1d(seed).tolist(), 77]).normal(0, 2.0, empty.shape)
    return img, np.clip(empty + noise, 0, 255).astype(np.uint8), truth


def seen_deck(design: str, long_side: int, blur: float, aspect: float = None, card_px: float = None):
    """A design's faces (its art, BGR) and its deck calibrated from them seen ``long_side`` px
    long and softened by ``blur`` (a camera's lens and scaling): ``(faces, deck)``.
    ``aspect``: the card's width over its height (else the art's); ``card_px``: the
    card's long side as a share of the frame's height, when the deck is to know it."""
    from vision.plain.deck import PlainDeck
    faces = {str(c): art.card_image(design, c, height=600)[:, :, :3] for c in DECK}
    aspect = aspect or faces["AS"].shape[1] / faces["AS"].shape[0]
    seen = [cv2.GaussianBlur(cv2.resize(faces[str(c)], (int(round(long_side * aspect)), long_side),
                                        interpolation=cv2.INTER_AREA), (0, 0), blur) for c in DECK]
    return faces, PlainDeck(name=design, cards=[str(c) for c in DECK], faces=seen, aspect=aspect,
                            card_px=card_px)


def scene(placements, seed=0, size=(640, 480), **conditions):
    """``(frame, empty table, truth)`` from one integer seed."""
    return compose_pair(placements, size, seed, **conditions)


@lru_cache(maxsize=4)
def art_deck(design: str = "standard"):
    """A deck calibrated from clean renders of a KDE design (no card size)."""
    from vision.deck_calibration import build_deck, face_from_image
    return build_deck({c: face_from_image(art.card_image(design, c, 300)) for c in DECK}, name=design)


def on(sightings, truth):
    """For each true card, the sightings whose centre lies on it."""
    out = []
    for t in truth:
        poly = np.asarray(t["corners"], np.float32)
        out.append([s for s in sightings if cv2.pointPolygonTest(poly, s.center, False) >= 0])
    return out


def corner_error(corners, truth_corners) -> float:
    """Largest distance from a found corner to the nearest true corner."""
    t = np.asarray(truth_corners, float)
    return max(float(np.min(np.hypot(*(t - p).T))) for p in np.asarray(corners, float))


def place(card, at, rotation=0.0):
    """A placement of a card without a sticker."""
    return {"card": card, "at": at, "rotation": rotation, "sticker": False}
