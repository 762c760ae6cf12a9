"""Card designs drawn from a seed (``gen-1``, ``gen-2``, ...): tuning data with more kinds of edge, paper, index and picture than the KDE tuning decks have.

The KDE tuning designs all have a white face with a clear dark edge or frame, and the
reader learnt only those. Real decks differ: some have no edge line at all (a white card
on a white mat), a coloured frame, a patterned band, a cream paper, court pictures that
run to the card's edge. A generated design draws each of these from its seed, writes
each card as SVG and renders it with ``rsvg-convert`` and the system's fonts (DejaVu,
the URW base 35 fonts, GNU FreeFont), like the other art.

Generated designs are made by this project, so they are tuning data only: no figure on
them says how the reader does on decks it has not seen.

>>> d = design(3)
>>> d.name, d.seed
('gen-3', 3)
>>> svg = card_svg(d, "QH")
>>> svg.startswith("<svg") and "</svg>" in svg
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import Card

VERSION = 1
"""Bumped when the drawing changes, so that cached renders of an older drawing are not used."""

FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Condensed", "Nimbus Sans", "Nimbus Roman",
         "URW Bookman", "C059", "P052", "URW Gothic", "FreeSerif", "FreeSans",
         "Nimbus Sans Narrow")
"""Font families an index is drawn in (fonts-dejavu-core, fonts-urw-base35,
fonts-freefont-ttf); rsvg-convert falls back to DejaVu Sans when one is missing."""

PAPERS = ("#ffffff", "#ffffff", "#fdfbf4", "#f8f3e3", "#f5f5f2", "#fbfdff", "#f1ece0")
"""Paper colours a design is printed on: white (twice as likely) to cream."""
INKS_RED = ("#d01818", "#c00000", "#e0261c", "#b3122e", "#d43b2a")
"""Red inks of hearts and diamonds."""
INKS_BLACK = ("#000000", "#1a1a1a", "#101828", "#222222")
"""Black inks of spades and clubs."""
FOUR_BLUE, FOUR_GREEN = "#1546b0", "#13823a"
"""A four-colour design's diamonds and clubs."""
PICTURE_COLOURS = ("#c81e1e", "#1e3fa8", "#e8b818", "#101010", "#2c8a3c", "#7a2a8a",
                   "#e07820", "#4aa0d8", "#f0d080", "#8a5a2a")
"""Colours a design's court pictures are drawn from (3 to 5 of them per design)."""
EDGES = ("none", "outline", "line", "double", "frame", "band", "tint")
"""How a design marks the card's edge: ``none`` (white to the edge), ``outline`` (a dark
line along the edge), ``line``/``double`` (lines set in from the edge), ``frame`` (a
coloured border), ``band`` (a patterned border), ``tint`` (a coloured face)."""

# Suit signs as paths in a 100×100 box centred on (50, 50): our own, so that every
# design's sign is the same shape whatever fonts are installed.
SUIT_PATHS = {
    "H": "M50 92 C28 70 4 52 4 30 C4 14 16 4 29 4 C39 4 46 10 50 19 C54 10 61 4 71 4 "
         "C84 4 96 14 96 30 C96 52 72 70 50 92 Z",
    "D": "M50 2 C60 20 72 36 88 50 C72 64 60 80 50 98 C40 80 28 64 12 50 C28 36 40 20 50 2 Z",
    "S": "M50 4 C62 24 94 40 94 62 C94 76 83 84 72 84 C63 84 57 80 54 74 C55 84 59 91 68 96 "
         "L32 96 C41 91 45 84 46 74 C43 80 37 84 28 84 C17 84 6 76 6 62 C6 40 38 24 50 4 Z",
    "C": "M50 6 C63 6 72 16 72 28 C72 36 68 42 63 46 C67 44 71 43 75 43 C87 43 96 52 96 64 "
         "C96 76 87 85 75 85 C66 85 58 80 54 72 C55 84 59 91 68 96 L32 96 C41 91 45 84 46 72 "
         "C42 80 34 85 25 85 C13 85 4 76 4 64 C4 52 13 43 25 43 C29 43 33 44 37 46 "
         "C32 42 28 36 28 28 C28 16 37 6 50 6 Z",
}

# Where the pips of a nine and a ten lie, as fractions of the pip area (x, y); pips
# below the middle are drawn upside down.
PIP_LAYOUT = {
    "9": [(0, 0), (0, 1 / 3), (0, 2 / 3), (0, 1), (1, 0), (1, 1 / 3), (1, 2 / 3), (1, 1), (0.5, 0.5)],
    "10": [(0, 0), (0, 1 / 3), (0, 2 / 3), (0, 1), (1, 0), (1, 1 / 3), (1, 2 / 3), (1, 1),
           (0.5, 1 / 6), (0.5, 5 / 6)],
}


@dataclass(frozen=True)
class Design:
    """One generated design: every choice its seed made. Sizes are in millimetres on a
    card ``width`` × ``height``."""

    name: str
    seed: int
    width: float
    height: float
    radius: float
    paper: str
    edge: str
    edge_colour: str
    edge_inset: float
    edge_width: float
    font: str
    bold: bool
    rank_size: float
    suit_size: float
    index_x: float
    index_y: float
    index_beside: bool
    four_indices: bool
    red: str
    black: str
    four_colour: bool
    pip_size: float
    ace_size: float
    court_style: str
    court_inset: float
    palette: tuple
    ten_as_t: bool


def design(seed: int) -> Design:
    """The design ``gen-<seed>``: the same choices for the same seed on every machine.

    >>> design(1) == design(1), design(1) == design(2)
    (True, False)
    """
    seed = int(seed)
    if seed < 1:
        raise ValueError(f"generated designs are numbered from 1, not {seed}")
    rng = np.random.default_rng([VERSION, seed])

    def pick(options):
        return options[int(rng.integers(len(options)))]

    width = float(pick((63.0, 63.0, 63.0, 57.0, 59.0)))
    edge = pick(EDGES)
    palette = tuple(str(c) for c in rng.permutation(PICTURE_COLOURS)[:int(rng.integers(3, 6))])
    return Design(
        name=f"gen-{seed}", seed=seed, width=width, height=88.0,
        radius=float(rng.uniform(0.5, 5.0)), paper=pick(PAPERS), edge=edge,
        edge_colour=pick(("#000000", "#1e3fa8", "#b01818", "#2c6a3c", "#6a4a1a", "#303030", "#8a1a6a")),
        edge_inset=float(rng.uniform(1.2, 4.0)), edge_width=float(rng.uniform(0.25, 2.5)),
        font=pick(FONTS), bold=bool(rng.random() < 0.5),
        rank_size=float(rng.uniform(7.0, 13.0)), suit_size=float(rng.uniform(4.5, 8.5)),
        index_x=float(rng.uniform(2.5, 6.0)), index_y=float(rng.uniform(2.5, 5.5)),
        index_beside=bool(rng.random() < 0.15), four_indices=bool(rng.random() < 0.3),
        red=pick(INKS_RED), black=pick(INKS_BLACK), four_colour=bool(rng.random() < 0.15),
        pip_size=float(rng.uniform(8.0, 12.5)), ace_size=float(rng.uniform(16.0, 34.0)),
        court_style=pick(("framed", "framed", "bleed", "open")),
        court_inset=float(rng.uniform(7.0, 11.0)), palette=palette,
        ten_as_t=bool(rng.random() < 0.1))


def ink(d: Design, suit: str) -> str:
    """The colour a suit is printed in."""
    if d.four_colour and suit == "D":
        return FOUR_BLUE
    if d.four_colour and suit == "C":
        return FOUR_GREEN
    return d.red if suit in "HD" else d.black


def _pip(suit: str, cx: float, cy: float, size: float, colour: str, flip: bool = False) -> str:
    s = size / 100.0
    rot = " rotate(180 50 50)" if flip else ""
    return (f'<path d="{SUIT_PATHS[suit]}" fill="{colour}" '
            f'transform="translate({cx - size / 2:.3f} {cy - size / 2:.3f}) scale({s:.4f}){rot}"/>')


def _edge(d: Design) -> str:
    w, h, r = d.width, d.height, d.radius
    i, c, sw = d.edge_inset, d.edge_colour, d.edge_width
    ri = max(0.0, r - i * 0.5)
    if d.edge == "outline":
        return (f'<rect x="{sw / 4:.3f}" y="{sw / 4:.3f}" width="{w - sw / 2:.3f}" height="{h - sw / 2:.3f}" '
                f'rx="{r:.3f}" fill="none" stroke="{c}" stroke-width="{min(sw, 0.8) / 2:.3f}"/>')
    if d.edge == "line":
        return (f'<rect x="{i:.3f}" y="{i:.3f}" width="{w - 2 * i:.3f}" height="{h - 2 * i:.3f}" '
                f'rx="{ri:.3f}" fill="none" stroke="{c}" stroke-width="{min(sw, 0.8):.3f}"/>')
    if d.edge == "double":
        return "".join(
            f'<rect x="{k:.3f}" y="{k:.3f}" width="{w - 2 * k:.3f}" height="{h - 2 * k:.3f}" '
            f'rx="{max(0.0, r - k * 0.5):.3f}" fill="none" stroke="{c}" stroke-width="{wd:.3f}"/>'
            for k, wd in ((i, 0.7), (i + 1.0, 0.25)))
    if d.edge == "frame":
        return (f'<path fill-rule="evenodd" fill="{c}" d="M0 {r:.3f} a{r:.3f} {r:.3f} 0 0 1 {r:.3f} -{r:.3f} '
                f'H{w - r:.3f} a{r:.3f} {r:.3f} 0 0 1 {r:.3f} {r:.3f} V{h - r:.3f} '
                f'a{r:.3f} {r:.3f} 0 0 1 -{r:.3f} {r:.3f} H{r:.3f} a{r:.3f} {r:.3f} 0 0 1 -{r:.3f} -{r:.3f} Z '
                f'M{i:.3f} {i:.3f} H{w - i:.3f} V{h - i:.3f} H{i:.3f} Z"/>')
    if d.edge == "band":
        # A band of small diamonds set in from the edge, between two thin lines.
        out = []
        for k in (i, i + 2.6):
            out.append(f'<rect x="{k:.3f}" y="{k:.3f}" width="{w - 2 * k:.3f}" height="{h - 2 * k:.3f}" '
                       f'fill="none" stroke="{c}" stroke-width="0.3"/>')
        m = i + 1.3
        step = 2.6
        pts = [(x, m) for x in np.arange(m, w - m, step)] + [(x, h - m) for x in np.arange(m, w - m, step)]
        pts += [(m, y) for y in np.arange(m + step, h - m, step)] + [(w - m, y) for y in np.arange(m + step, h - m, step)]
        for x, y in pts:
            out.append(f'<path d="M{x:.2f} {y - 0.9:.2f} L{x + 0.9:.2f} {y:.2f} L{x:.2f} {y + 0.9:.2f} '
                       f'L{x - 0.9:.2f} {y:.2f} Z" fill="{c}"/>')
        return "".join(out)
    return ""


def _index(d: Design, card: Card, colour: str) -> str:
    rank = "T" if (card.rank == "10" and d.ten_as_t) else card.rank
    weight = "bold" if d.bold else "normal"
    narrow = 0.62 if len(rank) > 1 else 1.0
    x, y = d.index_x, d.index_y
    text = (f'<text x="{x + d.rank_size * 0.36:.3f}" y="{y + d.rank_size * 0.78:.3f}" font-family="{d.font}" '
            f'font-weight="{weight}" font-size="{d.rank_size * narrow:.3f}" text-anchor="middle" '
            f'fill="{colour}" textLength="{d.rank_size * 0.62 * narrow * len(rank):.3f}" '
            f'lengthAdjust="spacingAndGlyphs">{rank}</text>')
    if d.index_beside:
        sign = _pip(card.suit, x + d.rank_size * 0.62 + d.suit_size * 0.75, y + d.rank_size * 0.45,
                    d.suit_size, colour)
    else:
        sign = _pip(card.suit, x + d.rank_size * 0.36, y + d.rank_size + d.suit_size * 0.6, d.suit_size, colour)
    one = text + sign
    w, h = d.width, d.height
    corners = [one, f'<g transform="rotate(180 {w / 2:.3f} {h / 2:.3f})">{one}</g>']
    if d.four_indices:
        corners += [f'<g transform="translate({w:.3f} 0) scale(-1 1)">{sign}</g>',
                    f'<g transform="translate(0 {h:.3f}) scale(1 -1)">{sign}</g>']
        corners += [f'<g transform="translate({w - 2 * x - d.rank_size * 0.72:.3f} 0)">{text}</g>',
                    f'<g transform="rotate(180 {w / 2:.3f} {h / 2:.3f}) '
                    f'translate({w - 2 * x - d.rank_size * 0.72:.3f} 0)">{text}</g>']
    return "".join(corners)


def _picture(d: Design, card: Card, x0: float, y0: float, x1: float, y1: float) -> str:
    """A court card's picture: shapes drawn from the design's palette, different for each
    card, mirrored top to bottom as double-headed courts are."""
    rng = np.random.default_rng([VERSION, d.seed, "JQK".index(card.rank), "SHDC".index(card.suit)])
    w, h = x1 - x0, (y1 - y0) / 2
    parts = []
    for _ in range(int(rng.integers(6, 12))):
        colour = d.palette[int(rng.integers(len(d.palette)))]
        kind = int(rng.integers(3))
        cx, cy = x0 + rng.uniform(0.05, 0.95) * w, y0 + rng.uniform(0.05, 0.95) * h
        s = rng.uniform(0.12, 0.45) * w
        if kind == 0:
            parts.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{s / 2:.2f}" fill="{colour}"/>')
        elif kind == 1:
            parts.append(f'<rect x="{cx - s / 2:.2f}" y="{cy - s / 3:.2f}" width="{s:.2f}" height="{s * 0.66:.2f}" '
                         f'fill="{colour}" transform="rotate({rng.uniform(-40, 40):.1f} {cx:.2f} {cy:.2f})"/>')
        else:
            pts = " ".join(f"{cx + s * np.cos(a) / 2:.2f},{cy + s * np.sin(a) / 2:.2f}"
                           for a in np.sort(rng.uniform(0, 2 * np.pi, 5)))
            parts.append(f'<polygon points="{pts}" fill="{colour}" stroke="#000" stroke-width="0.2"/>')
    # The card's letter in the picture, as many courts show it.
    parts.append(f'<text x="{x0 + w * 0.5:.2f}" y="{y0 + h * 0.8:.2f}" font-family="{d.font}" font-weight="bold" '
                 f'font-size="{h * 0.55:.2f}" text-anchor="middle" fill="{ink(d, card.suit)}" '
                 f'fill-opacity="0.85">{card.rank}</text>')
    half = "".join(parts)
    clip = f"clip-{card}"
    return (f'<clipPath id="{clip}"><rect x="{x0:.3f}" y="{y0:.3f}" width="{w:.3f}" height="{2 * h:.3f}"/></clipPath>'
            f'<g clip-path="url(#{clip})">{half}'
            f'<g transform="rotate(180 {x0 + w / 2:.3f} {y0 + h:.3f})">{half}</g></g>'
            f'<line x1="{x0:.3f}" y1="{y0 + h:.3f}" x2="{x1:.3f}" y2="{y0 + h:.3f}" stroke="#000" stroke-width="0.3"/>')


def card_svg(d: Design, card) -> str:
    """The SVG of one card of design ``d`` (millimetre units, the card filling the view)."""
    card = Card(card)
    w, h, r = d.width, d.height, d.radius
    colour = ink(d, card.suit)
    body = [f'<rect x="0" y="0" width="{w}" height="{h}" rx="{r:.3f}" fill="{d.paper}"/>']
    if d.edge == "tint":
        body.append(f'<rect x="0" y="0" width="{w}" height="{h}" rx="{r:.3f}" fill="{d.edge_colour}" '
                    f'fill-opacity="0.10"/>')
    body.append(_edge(d))
    # The pip area lies inside the indices.
    ax0 = d.index_x + max(d.rank_size * 0.72, d.suit_size) + 1.5
    ax1 = w - ax0
    ay0, ay1 = 8.0 + d.pip_size / 2, h - 8.0 - d.pip_size / 2
    if card.rank in PIP_LAYOUT:
        size = min(d.pip_size, (ax1 - ax0) / 2.2)
        for fx, fy in PIP_LAYOUT[card.rank]:
            cx = ax0 + size / 2 + fx * (ax1 - ax0 - size)
            cy = ay0 + fy * (ay1 - ay0)
            body.append(_pip(card.suit, cx, cy, size, colour, flip=fy > 0.5))
    elif card.rank == "A":
        size = min(d.ace_size, ax1 - ax0 + 6)
        if d.court_style == "framed" and d.seed % 2:
            body.append(f'<circle cx="{w / 2:.3f}" cy="{h / 2:.3f}" r="{size * 0.75:.3f}" fill="none" '
                        f'stroke="{d.palette[0]}" stroke-width="0.8"/>')
        body.append(_pip(card.suit, w / 2, h / 2, size, colour))
    else:
        # Framed and open pictures lie between the indices; a bleeding one runs to the edge.
        inset_x, inset_y = (1.0, 1.0) if d.court_style == "bleed" else (ax0 - 1.0, d.court_inset)
        x0, y0, x1, y1 = inset_x, inset_y, w - inset_x, h - inset_y
        body.append(_picture(d, card, x0, y0, x1, y1))
        if d.court_style == "framed":
            body.append(f'<rect x="{x0:.3f}" y="{y0:.3f}" width="{x1 - x0:.3f}" height="{y1 - y0:.3f}" '
                        f'fill="none" stroke="{d.edge_colour}" stroke-width="0.6"/>')
        if d.court_style == "bleed":
            # The picture runs under the corners: the index sits on a paper patch there.
            pad = max(d.rank_size * 0.72, d.suit_size) + 1.0
            ph = d.index_y + d.rank_size + d.suit_size * 1.2 + 1.0
            for rot in (0, 180):
                body.append(f'<rect x="{d.index_x - 1.0:.3f}" y="{d.index_y - 1.0:.3f}" width="{pad + 1.0:.3f}" '
                            f'height="{ph:.3f}" fill="{d.paper}" transform="rotate({rot} {w / 2:.3f} {h / 2:.3f})"/>')
    body.append(_index(d, card, colour))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
            f'viewBox="0 0 {w} {h}"><clipPath id="card"><rect width="{w}" height="{h}" rx="{r:.3f}"/></clipPath>'
            f'<g clip-path="url(#card)">{"".join(body)}</g></svg>')


def is_generated(name: str) -> bool:
    """True for a generated design's name: ``is_generated("gen-4")``."""
    head, _, num = name.partition("-")
    return head == "gen" and num.isdigit() and int(num) >= 1


def design_named(name: str) -> Design:
    """The design of a name such as ``"gen-4"``."""
    if not is_generated(name):
        raise ValueError(f"{name!r} is not a generated design's name (gen-1, gen-2, ...)")
    return design(int(name.split("-", 1)[1]))
