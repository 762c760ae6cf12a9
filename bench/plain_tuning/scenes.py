"""Tuning scenes for the plain-deck reader: a frame, the same view of the empty table, and the truth.

The empty table is rendered with the same camera, light and surface as the frame (the
cards' art made transparent, the hand left out), plus fresh sensor noise: what the
service's camera saw before the cards were laid.
"""
from __future__ import annotations

import contextlib

import numpy as np

import vision.art as art
import vision.synth as synth
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
