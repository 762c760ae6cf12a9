"""Prototype package (to become vision.plain)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import cv2
import numpy as np

from engine.cards import Card


@dataclass
class Sighting:
    card: Optional[Card]
    corners: list
    confidence: float
    zone: Optional[str] = None
    margin: float = 0.0
    reason: Optional[str] = None
    guess: Optional[Card] = None
    detail: Optional[dict] = None

    @property
    def center(self):
        pts = np.asarray(self.corners, dtype=float)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())


def recognize_plain(frame, deck, zones=None, table=None):
    from vision.plainx.find import find_outlines
    from vision.plainx.straighten import upright_views, portrait_orders
    from vision.plainx.decide import read_views
    tedges = None
    if table is not None:
        table.foreground(frame)
        tedges = table.table_edges(frame)
    h = frame.shape[0]
    kw = {}
    if deck.card_px:
        kw = dict(sizes=(deck.card_px * h,), min_long=0.7 * deck.card_px * h, max_long=1.4 * deck.card_px * h)
    outlines = find_outlines(frame, deck.aspect, table_edges=tedges, **kw)
    order = sorted(range(len(outlines)), key=lambda i: -outlines[i].area)
    named_inside = set()
    out = []
    for i in order:
        if i in named_inside:
            continue
        o = outlines[i]
        r = read_views(upright_views(frame, o.corners, deck.aspect), deck)
        if r.card is not None:
            named_inside.update(o.inside)
        a, b = portrait_orders(o.corners)
        corners = (b if r.turned else a).tolist()
        s = Sighting(r.card, corners, r.score, None, r.margin, r.reason, r.guess, r.detail)
        if zones is not None:
            s.zone = zones(s.center)
        out.append(s)
    # an unnamed outline inside a named card is part of that card
    keep = []
    for k, i in enumerate([i for i in order if i not in named_inside]):
        pass
    return [s for s in out]
