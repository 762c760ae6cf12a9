"""Deciding which card a straightened view is, or refusing: best against the close ones, ink colour, covers.

A card is named only when (1) it matches its template well (``MIN_SCORE``), (2) it
beats every close rival where the two differ (``MIN_MARGIN``), (3) its print has its
suit's colour, and (4) no part of its face differs from the template (a finger, a
coaster). Otherwise the reading is a refusal with a reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from engine.cards import Card
from vision.plainx import read
from vision.plainx.straighten import white_balanced

SHORTLIST_GAP = 0.25
"""Cards whose low-resolution match is within this of the best are compared closely."""
SHORTLIST_MAX = 6
RIVAL_GAP = 0.25
"""Cards whose fine match is within this of the best are rivals to beat."""
MIN_SCORE = 0.6
MIN_MARGIN = 0.3
MIN_RED = 0.45
"""Least share of the red template's ink redness a red card's view must show."""
MAX_BLACK = 0.25
"""Largest share of the deck's red ink level a black card's view may show on its ink."""
MAX_CELL = 1.2
"""Largest mean difference (normalized grey) in any cell of the face: more is a cover."""
GRID = (4, 6)


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


def _unit(x):
    return (x - x.mean()) / (x.std() + 1e-6)


class ViewSet:
    """The two ways up of one found card, prepared for comparison."""

    def __init__(self, views):
        self.balanced = [white_balanced(v) for v in views]
        self.grey = [read.grey_of(b) for b in self.balanced]
        self.soft = [read.soft_of(g) for g in self.grey]
        self.small = np.stack([read.small_of(g) for g in self.grey])
        self.redness = [read.redness_of(b) for b in self.balanced]


def read_views(views, deck) -> Reading:
    """Decide which of the deck's cards the two views (upright and turned) show."""
    vs = ViewSet(views)
    coarse = vs.small @ deck.small.T                   # (2, n)
    best = coarse.max()
    order = np.argsort(-coarse.ravel())
    short = [divmod(int(k), coarse.shape[1]) for k in order[:SHORTLIST_MAX]
             if coarse.ravel()[k] >= best - SHORTLIST_GAP]
    fine = {}
    for o, i in short:
        s, shift = read.fine_match(vs.soft[o], deck.templates[i].soft)
        if i not in fine or s > fine[i][0]:
            fine[i] = (s, o, shift)
    a = max(fine, key=lambda i: fine[i][0])
    score, o, shift = fine[a]
    card = deck.cards[a]
    detail = {"score": score}
    # Pairwise: against every close rival, where the two templates differ.
    margin = 1.0
    rival = None
    ta = deck.templates[a]
    va = _unit(read.shifted(vs.soft[o], ta.soft.shape, shift))
    ua = _unit(read.shifted(ta.soft, ta.soft.shape, (0, 0)))
    for b, (sb, ob, shb) in fine.items():
        if b == a or sb < score - RIVAL_GAP:
            continue
        tb = deck.templates[b]
        wgt = deck.pair_weights(a, b)
        vb = _unit(read.shifted(vs.soft[ob], tb.soft.shape, shb))
        ub = _unit(read.shifted(tb.soft, tb.soft.shape, (0, 0)))
        ra = float((wgt * (va - ua) ** 2).sum())
        rb = float((wgt * (vb - ub) ** 2).sum())
        m = (rb - ra) / (rb + ra + 1e-6)
        if m < margin:
            margin, rival = m, deck.cards[b]
    detail.update(margin=margin, rival=rival)
    # Ink colour, in the card's own light, on the candidate's print.
    red_view = read.shifted(vs.redness[o], ta.soft.shape, shift)
    red_ink = read.shifted(ta.red_ink, ta.soft.shape, (0, 0))
    dark_ink = read.shifted(ta.dark_ink, ta.soft.shape, (0, 0))
    red_level = deck.red_level
    if deck.red[a]:
        tmpl_red = float(read.shifted(ta.redness, ta.soft.shape, (0, 0))[red_ink].mean()) if red_ink.any() else red_level
        ink = float(red_view[red_ink].mean()) / max(tmpl_red, 1e-3) if red_ink.any() else 1.0
        colour_ok = ink >= MIN_RED
    else:
        ink = float(red_view[dark_ink].mean()) / max(red_level, 1e-3) if dark_ink.any() else 0.0
        colour_ok = ink <= MAX_BLACK
    detail["ink"] = ink
    # Cover: no cell of the face may differ much from the template.
    diff = np.abs(va - ua)
    gh, gw = GRID[1], GRID[0]
    h, w = diff.shape
    cells = diff[:h // gh * gh, :w // gw * gw].reshape(gh, h // gh, gw, w // gw).mean(axis=(1, 3))
    worst = float(cells.max())
    detail["cell"] = worst
    reading = Reading(card=None, score=score, margin=margin, turned=o, guess=card, detail=detail)
    if score < MIN_SCORE:
        reading.reason = f"matches no card well (best {card}, {score:.2f})"
    elif margin < MIN_MARGIN:
        reading.reason = f"not clearly told from {rival} (margin {margin:.2f})"
    elif not colour_ok:
        reading.reason = f"the print's colour does not fit {card}"
    elif worst > MAX_CELL:
        reading.reason = f"part of the face differs from {card}: covered?"
    else:
        reading.card = card
    return reading
