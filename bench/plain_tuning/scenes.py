"""Tuning scenes: a frame and the same view of the empty table (same camera, light, table)."""
import contextlib
import numpy as np, cv2
import vision.art as art
import vision.synth as synth
from vision.synth import compose_frame

@contextlib.contextmanager
def _no_cards():
    orig_img, orig_hand = art.card_image, synth._hand_mask
    def clear(deck, card, height=350):
        f = orig_img(deck, card, height).copy(); f[:, :, 3] = 0; return f
    def no_hand(*a, **k):
        m = orig_hand(*a, **k); m[:] = 0; return m
    art.card_image, synth._hand_mask = clear, no_hand
    try:
        yield
    finally:
        art.card_image, synth._hand_mask = orig_img, orig_hand

def compose_pair(placements, size, seed, **cond):
    img, truth = compose_frame(placements, size=size, rng=np.random.default_rng(seed), **cond)
    with _no_cards():
        empty, _ = compose_frame(placements, size=size, rng=np.random.default_rng(seed), **cond)
    extra = np.random.default_rng([*np.atleast_1d(seed).tolist(), 77]).normal(0, 2.0, empty.shape)
    empty = np.clip(empty + extra, 0, 255).astype(np.uint8)
    return img, empty, truth
