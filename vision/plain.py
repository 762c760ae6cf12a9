"""Plain-deck recognition: find ordinary cards on the cloth and read them against a calibrated deck.

Steps, per frame (details and measured figures in docs/vision-plain.md):

1. *Cloth.* The cloth's colour is estimated from the frame border, then refined into
   a smooth colour field (normalized convolution over the pixels that look like cloth)
   so that uneven light does not turn cloth into "card". Cards are whatever differs
   from that field; this also finds dark-bordered decks, which a brightness threshold
   misses.
2. *Quadrilaterals.* Each blob must be one convex four-sided shape of a card's
   proportions; its sides are refitted as straight lines so that rounded card corners
   do not pull the corners inwards. A blob that is not one card is first cleared of
   smooth areas reached from the cloth (a glare spot beside the card); if it still is
   not one card (a hand over it, two cards overlapping) it becomes a refusal.
3. *Reading.* The card is warped upright in both 180° orientations (landscape cards
   are turned by the corner order) and every calibrated card is scored by a whole-face
   colour signature and, for the best few, by the top band that holds the corner
   index. The close contenders then meet in pairwise tests that look only where two
   cards differ (the pips of a nine of spades against a nine of clubs). A card is
   named only when it wins every such test by ``min_margin``, scores at least
   ``min_score``, and no part of its face differs from the template (a finger, a glare
   spot); otherwise the sighting has ``card=None`` and a ``reason``.

>>> deck = load_deck("my-deck.npz")                        # doctest: +SKIP
>>> [s.card for s in recognize_plain(frame, deck)]         # doctest: +SKIP
[Card('JH'), None]
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import cv2
import numpy as np

from engine.cards import Card

FORMAT_VERSION = 3

CANON_H = 128
"""Height in pixels of the upright card every sighting is warped to."""
BAND_FRACTION = 0.30
"""The top band holding the corner index, as a fraction of the card's height."""
BAND_SHIFT = 3
"""How far (pixels at CANON_H) the band may slip when matched: corners are never exact."""
SIG_SIZE = (20, 28)
"""Width and height of the whole-face colour signature."""
CHECK_GRID = (4, 6)
"""Columns and rows of cells in the occlusion check."""
SHORTLIST = 6
"""How many (card, orientation) pairs, best by signature, get the band comparison."""

DEFAULT_MIN_SCORE = 0.72
"""Least combined score (signature and index band, 0–1) to name a card. Correctly read
cards scored 0.74 and more in the tuning frames (1st percentile 0.83)."""
DEFAULT_MIN_MARGIN = 0.15
"""Least lead in every pairwise test (about −1 … 1). In the tuning frames the true card
led by 0.25 or more in 99% of cases (the rest, mostly an ace of hearts against the ace
of diamonds, are refused); the test is nearly antisymmetric: a wrong card trails as much."""
DEFAULT_MAX_CELL_DIFF = 1.1
"""Largest mean difference (normalized grey) in any cell of the face against the template
before the cell is looked at as possibly covered."""
DEFAULT_MAX_TINT = 14.0
"""Largest colour (Lab a*b* units) any cell of the face may gain over its template: skin,
a sleeve or a coaster adds colour, while glare and light only fade a card's colours
towards grey. Correctly read cards stayed under 12.4 in the tuning frames; skin patches
over 10–35% of a face exceeded it 96% of the time (see `_cover_reason`)."""
DEFAULT_COVER_TINT = 10.0
"""A cell differing in grey by more than ``max_cell_diff`` is covered when it also gains
this much colour, or turns darker than its template by ``DEFAULT_COVER_DARK``: glare
washes a cell out, but neither tints nor darkens it."""
DEFAULT_COVER_DARK = 1.0
"""See ``DEFAULT_COVER_TINT``: how much darker (normalized grey, after matching the face's
light) a differing cell may be before it counts as covered (a dark sleeve)."""


class DeckError(ValueError):
    """A deck file that cannot be used, with a message saying what to do."""


@dataclass
class Sighting:
    """One card-shaped thing seen in a frame.

    ``card`` is the engine card, or None when the reader refuses (``reason`` says why);
    ``corners`` are 4 image points (x, y), clockwise from the card's top-left corner as
    the card reads upright when it was read, else in image order;
    ``confidence`` is the best match score (0–1), ``margin`` its lead over the best other
    card; ``zone`` is the zone of the card's centre when a zone map was given.
    """

    card: Optional[Card]
    corners: list
    confidence: float
    zone: Optional[str] = None
    margin: float = 0.0
    reason: Optional[str] = None
    guess: Optional[Card] = None

    @property
    def center(self):
        """The mean of the four corners, (x, y)."""
        pts = np.asarray(self.corners, dtype=float)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    def as_dict(self) -> dict:
        """JSON-ready form: ``card`` as text or None, corners as lists of floats."""
        return {
            "card": None if self.card is None else str(self.card),
            "zone": self.zone,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(float(self.confidence), 3),
            "margin": round(float(self.margin), 3),
            "reason": self.reason,
        }


@dataclass
class PlainDeck:
    """The templates of one physical deck, made by a calibration pass.

    ``cards`` lists the calibrated cards (all 24 for a full pass); ``aspect`` is the card's
    width over height; the arrays are per card, in the order of ``cards``.
    """

    name: str
    cards: list
    aspect: float
    signatures: np.ndarray      # (n, SIG) unit vectors
    bands: np.ndarray           # (n, band_h, canon_w) float32 grey
    checks: np.ndarray          # (n, check_h, check_w) float32, normalized grey
    faces: np.ndarray           # (n, canon_h, canon_w) float32, softened and normalized grey
    tints: np.ndarray           # (n, check_h, check_w, 2) float32, Lab a*, b* (0 = grey)
    min_score: float = DEFAULT_MIN_SCORE
    min_margin: float = DEFAULT_MIN_MARGIN
    max_cell_diff: float = DEFAULT_MAX_CELL_DIFF
    max_tint: float = DEFAULT_MAX_TINT
    cover_tint: float = DEFAULT_COVER_TINT
    cover_dark: float = DEFAULT_COVER_DARK
    meta: dict = field(default_factory=dict)
    _regions: dict = field(default_factory=dict, repr=False, compare=False)

    def pair_regions(self, i: int, j: int, turned: bool = False):
        """Where cards ``i`` and ``j`` of this deck differ most (cached); with ``turned``,
        card ``j`` is taken upside down against ``i`` upright."""
        key = (i, j, True) if turned else ((i, j, False) if i < j else (j, i, False))
        if key not in self._regions:
            b = self.faces[key[1]]
            self._regions[key] = _pair_regions(self.faces[key[0]], b[::-1, ::-1] if turned else b)
        return self._regions[key]

    @property
    def canon_size(self):
        """(width, height) of the upright card sightings are warped to."""
        return canon_size(self.aspect)

    def save(self, path) -> Path:
        """Write the deck as a compressed ``.npz`` with its metadata as JSON."""
        path = Path(path)
        meta = dict(self.meta)
        meta.update(format="euchre-table plain deck", version=FORMAT_VERSION, name=self.name,
                    cards=[str(c) for c in self.cards], aspect=self.aspect,
                    canon_h=CANON_H, band_fraction=BAND_FRACTION, sig_size=list(SIG_SIZE),
                    min_score=self.min_score, min_margin=self.min_margin,
                    max_cell_diff=self.max_cell_diff, max_tint=self.max_tint,
                    cover_tint=self.cover_tint, cover_dark=self.cover_dark)
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), signatures=self.signatures,
                                bands=self.bands, checks=self.checks, faces=self.faces,
                                tints=self.tints)
        return path


def canon_size(aspect: float):
    """(width, height) of the canonical upright card for a deck of this aspect."""
    return max(16, int(round(CANON_H * aspect))), CANON_H


def load_deck(path) -> PlainDeck:
    """Read a deck written by ``euchre-table calibrate deck`` (or :meth:`PlainDeck.save`)."""
    path = Path(path)
    if not path.is_file():
        raise DeckError(f"deck file {path} does not exist: make one with "
                        "`euchre-table calibrate deck --from-dir DIR --out FILE`")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            sig, bands, checks = data["signatures"], data["bands"], data["checks"]
            faces, tints = data["faces"], data["tints"]
    except (OSError, ValueError, KeyError) as exc:
        raise DeckError(f"{path} is not a plain-deck file ({exc}): make one with "
                        "`euchre-table calibrate deck --from-dir DIR --out FILE`") from exc
    if meta.get("format") != "euchre-table plain deck":
        raise DeckError(f"{path} is not a plain-deck file: calibrate the deck again")
    if meta.get("version") != FORMAT_VERSION or meta.get("canon_h") != CANON_H \
            or meta.get("band_fraction") != BAND_FRACTION or tuple(meta.get("sig_size", ())) != SIG_SIZE:
        raise DeckError(f"{path} was made by another version of euchre-table "
                        f"(format {meta.get('version')}): calibrate the deck again")
    cards = [Card(c) for c in meta["cards"]]
    return PlainDeck(name=meta.get("name", path.stem), cards=cards, aspect=float(meta["aspect"]),
                     signatures=sig.astype(np.float32), bands=bands.astype(np.float32),
                     checks=checks.astype(np.float32), faces=faces.astype(np.float32),
                     tints=tints.astype(np.float32),
                     min_score=float(meta.get("min_score", DEFAULT_MIN_SCORE)),
                     min_margin=float(meta.get("min_margin", DEFAULT_MIN_MARGIN)),
                     max_cell_diff=float(meta.get("max_cell_diff", DEFAULT_MAX_CELL_DIFF)),
                     max_tint=float(meta.get("max_tint", DEFAULT_MAX_TINT)),
                     cover_tint=float(meta.get("cover_tint", DEFAULT_COVER_TINT)),
                     cover_dark=float(meta.get("cover_dark", DEFAULT_COVER_DARK)),
                     meta=meta)


# --- features shared by calibration and recognition -------------------------------

def _signature(canon_bgr: np.ndarray) -> np.ndarray:
    """Whole-face colour signature: small Lab image, inset, zero-mean, unit length.
    Lightness and chroma both count, so a red nine and a black nine differ."""
    small = cv2.resize(canon_bgr, SIG_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)[1:-1, 1:-1]
    lab -= lab.reshape(-1, 3).mean(axis=0)
    lab[:, :, 1:] *= 1.5  # chroma varies less than lightness; weigh it up to be heard
    v = lab.ravel()
    return v / (np.linalg.norm(v) + 1e-6)


def _band(grey: np.ndarray) -> np.ndarray:
    h = int(round(CANON_H * BAND_FRACTION))
    return grey[:h].astype(np.float32)


TINT_SOFTEN = 1.5
"""Gaussian sigma (pixels at the cover check's resolution, 8 per cell) for colours."""


def _check_small(img: np.ndarray) -> np.ndarray:
    """A face at the cover check's resolution, inset past the rounded corners."""
    cw, ch = CHECK_GRID[0] * 8, CHECK_GRID[1] * 8
    return cv2.resize(img, (cw + 4, ch + 4), interpolation=cv2.INTER_AREA)[2:-2, 2:-2]


def _check_image(grey: np.ndarray) -> np.ndarray:
    """Grey face at low resolution, inset and normalized, for the cover check."""
    small = _check_small(grey).astype(np.float32)
    return (small - small.mean()) / (small.std() + 1e-3)


def _tint_image(canon_bgr: np.ndarray) -> np.ndarray:
    """The face's colour at the cover check's resolution: Lab a*, b* (0 = grey), softened
    well beyond any camera's blur, so that fine colour detail (a court card's robe)
    blurred by the camera and its JPEG colour subsampling matches the template."""
    lab = cv2.cvtColor(_check_small(canon_bgr), cv2.COLOR_BGR2LAB).astype(np.float32)
    return cv2.GaussianBlur(lab[:, :, 1:] - 128.0, (0, 0), TINT_SOFTEN)


def _pair_image(grey: np.ndarray) -> np.ndarray:
    """Grey face softened (so that a pixel or two of misplacement does not count),
    inset past the rounded corners, and normalized: for the pairwise test."""
    g = grey.astype(np.float32)
    # High-pass: uneven light across a card would otherwise lean towards one template.
    h, w = g.shape
    low = cv2.resize(cv2.resize(g, (max(2, w // 12), max(2, h // 12)), interpolation=cv2.INTER_AREA),
                     (w, h), interpolation=cv2.INTER_LINEAR)
    g = cv2.GaussianBlur(g, (0, 0), 1.2) - low
    m = max(2, g.shape[0] // 32)
    g = g[m:-m, m:-m]
    return (g - g.mean()) / (g.std() + 1e-3)


def template_from_face(face_bgr: np.ndarray, aspect: float):
    """Signature, band, check image, pairwise image and tint image of an upright,
    tightly cropped card face.

    The face is brought to the canonical size and softened a little, as a camera would
    see it, so that templates and sightings meet halfway."""
    w, h = canon_size(aspect)
    canon = cv2.resize(face_bgr, (w, h), interpolation=cv2.INTER_AREA)
    canon = cv2.GaussianBlur(canon, (0, 0), 0.7)
    grey = cv2.cvtColor(canon, cv2.COLOR_BGR2GRAY)
    return _signature(canon), _band(grey), _check_image(grey), _pair_image(grey), _tint_image(canon)


# --- finding cards ------------------------------------------------------------------

DARKER_WEIGHT, BRIGHTER_WEIGHT = 1.0, 0.5
"""Weights of lightness against chroma in the distance from the cloth: in full where a
pixel is darker than the cloth (a black card on a grey cloth differs in lightness only),
at half where it is brighter, since glare and light only ever add lightness."""


def _cloth_distance(lab: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """Per-pixel L1 distance (uint8) in Lab from the cloth's colour, lightness weighted
    by whether the pixel is darker or brighter than the cloth."""
    darker = cv2.subtract(cloth[:, :, 0], lab[:, :, 0])
    brighter = cv2.subtract(lab[:, :, 0], cloth[:, :, 0])
    chroma = cv2.transform(cv2.absdiff(lab, cloth), np.array([[0.0, 1.0, 1.0]], np.float32))
    light = cv2.addWeighted(darker, DARKER_WEIGHT, brighter, BRIGHTER_WEIGHT, 0.0)
    return cv2.add(light, chroma)

WORK_WIDTH = 640
"""Frames wider than this are searched for cards at this width (read at full size)."""


def cloth_mask(frame_bgr: np.ndarray) -> np.ndarray:
    """Mask (uint8 0/255) of pixels that differ from the cloth, at the frame's size.

    The cloth colour comes from the frame border first, then from a smooth colour field
    estimated over the pixels that look like cloth, which follows uneven light.
    Distances are L1 in Lab, see :func:`_cloth_distance`; all full-frame work stays in
    8-bit OpenCV calls for speed."""
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB)
    h, w = lab.shape[:2]
    # The cloth is estimated at half size (it is smooth); only the final comparison
    # runs at full size, where the card's outline is drawn.
    half = w >= 400
    lab_s = cv2.resize(lab, (w // 2, h // 2), interpolation=cv2.INTER_AREA) if half else lab
    hs, ws = lab_s.shape[:2]
    b = max(2, int(0.03 * min(hs, ws)))
    border = np.concatenate([lab_s[:b].reshape(-1, 3), lab_s[-b:].reshape(-1, 3),
                             lab_s[:, :b].reshape(-1, 3), lab_s[:, -b:].reshape(-1, 3)])
    cloth = np.median(border, axis=0)
    dist = _cloth_distance(lab_s, np.full_like(lab_s, 0) + cloth.astype(np.uint8))
    like_cloth = (dist < max(14.0, np.percentile(dist[::2, ::2], 30) * 2.5)).astype(np.uint8)
    # Normalized convolution at low resolution: the cloth's local colour, filled in
    # under the cards from the cloth around them. A second, finer pass takes back
    # cloth that the first pass missed under a glare spot or a strong light gradient.
    gw, gh = max(8, w // 16), max(6, h // 16)
    for sigma_cells, factor in ((4.0, 2.5), (2.0, 2.2)):
        m = cv2.resize(like_cloth.astype(np.float32), (gw, gh), interpolation=cv2.INTER_AREA)
        num = cv2.resize(cv2.bitwise_and(lab_s, lab_s, mask=like_cloth), (gw, gh),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
        m_s = cv2.GaussianBlur(m, (0, 0), sigma_cells)
        num_s = cv2.GaussianBlur(num, (0, 0), sigma_cells)
        grid = num_s / np.maximum(m_s, 1e-3)[:, :, None]
        grid[m_s < 1e-3] = cloth
        grid = np.clip(grid, 0, 255).astype(np.uint8)
        field_ = cv2.resize(grid, (ws, hs), interpolation=cv2.INTER_LINEAR)
        dist = _cloth_distance(lab_s, field_)
        on_cloth = dist[like_cloth > 0]
        noise = float(np.percentile(on_cloth[::3], 90)) if on_cloth.size else 5.0
        like_cloth = (dist < max(12.0, factor * noise)).astype(np.uint8)
    if half:
        dist = _cloth_distance(lab, cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR))
        # Sensor noise is larger at full size than in the averaged half-size image.
        sample = dist[::4, ::4]
        near = cv2.resize(like_cloth, (sample.shape[1], sample.shape[0]), interpolation=cv2.INTER_NEAREST)
        on_cloth = sample[near > 0]
        noise = float(np.percentile(on_cloth, 90)) if on_cloth.size else noise
    mask = cv2.threshold(dist, max(12.0, 2.2 * noise), 255, cv2.THRESH_BINARY)[1]
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    # Closing bridges dark index glyphs that touch a dark card border on a dark cloth.
    # The frame is padded with cloth first: OpenCV's closing treats the world beyond the
    # border as "card", and would join a card lying a few pixels from the edge to it.
    mask = cv2.morphologyEx(cv2.copyMakeBorder(mask, 5, 5, 5, 5, cv2.BORDER_CONSTANT, value=0),
                            cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    return np.ascontiguousarray(mask[5:-5, 5:-5])


def _sides(quad: np.ndarray):
    """Each side of a quadrilateral as ``(start, end, length, unit direction)``."""
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.hypot(*(b - a)))
        yield a, b, length, (b - a) / max(length, 1e-9)


def _fit_sides(pts: np.ndarray, quad: np.ndarray, lo: float, hi: float, tol: float):
    """Lines fitted (total least squares) to the contour points along each side of
    ``quad``, and their crossings: the refined corners, or None."""
    lines = []
    for a, _b, length, u in _sides(quad):
        if length < 4:
            return None
        rel = pts - a
        t = rel @ u
        off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        sel = pts[(t > lo * length) & (t < hi * length) & (off < max(2.0, tol * length))]
        if len(sel) < 5:
            return None
        lines.append(_line_through(sel))
    return _crossings(lines)


def _line_through(pts: np.ndarray, weights: Optional[np.ndarray] = None):
    """``(centre, direction)`` of the line fitted to points by total least squares,
    optionally weighted: the direction is the main axis of the points (closed form of
    PCA in 2-D)."""
    w = np.ones(len(pts)) if weights is None else weights
    centre = (pts * w[:, None]).sum(axis=0) / w.sum()
    dx, dy = (pts - centre).T * np.sqrt(w)
    angle = 0.5 * np.arctan2(2 * float(dx @ dy), float(dx @ dx) - float(dy @ dy))
    return centre, np.array([np.cos(angle), np.sin(angle)])


def _crossings(lines) -> Optional[np.ndarray]:
    """The four corners where consecutive sides (centre, direction) cross, or None when
    two neighbouring sides are parallel."""
    corners = np.empty((4, 2), np.float32)
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        det = d1[0] * (-d2[1]) - (-d2[0]) * d1[1]
        if abs(det) < 1e-6:
            return None
        r = p2 - p1
        corners[i] = p1 + (r[0] * (-d2[1]) - (-d2[0]) * r[1]) / det * d1
    return corners


def _line_fit_corners(contour: np.ndarray, quad: np.ndarray) -> Optional[np.ndarray]:
    """Corners as the crossings of straight lines fitted to each side, which puts them
    where a square-cornered card's corners would be. The first fit uses the middle of
    each side of the rough polygon (whose corners cut across rounded card corners);
    the second, the whole straight part of each side found by the first."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    if len(pts) > 240:
        # Neighbours on a contour add little to a line fit: about 240 points are plenty.
        pts = pts[::int(np.ceil(len(pts) / 240))]
    out = _fit_sides(pts, quad.astype(np.float32), 0.25, 0.75, 0.08)
    if out is not None:
        second = _fit_sides(pts, out, 0.12, 0.88, 0.02)
        out = second if second is not None else out
    if out is None:
        return None
    if np.abs(out - quad).max() > 0.15 * cv2.arcLength(quad.reshape(-1, 1, 2), True) / 4:
        return None  # the fit went astray; keep the polygon's own corners
    return out


def _quad_of(c: np.ndarray):
    """``(kind, quad)`` of one outline: ``("card", corners)``, ``("other", None)`` for a
    clean shape that is no card (a marker), ``("unclear", None)`` for anything else."""
    area = cv2.contourArea(c)
    hull = cv2.convexHull(c)
    if area / max(cv2.contourArea(hull), 1) <= 0.92:
        return "unclear", None
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) <= 4:
            break
    if len(approx) != 4:
        return "unclear", None
    q = approx.reshape(4, 2).astype(np.float32)
    # A shape that is not a card's is "other" (ignored) only when it is clean: a card
    # with a glare spot joined to its side can look square, and must be looked into.
    no_card = "other" if 0.93 < area / max(cv2.contourArea(q), 1) < 1.1 else "unclear"
    rough = [np.hypot(*(q[i] - q[(i + 1) % 4])) for i in range(4)]
    short, long_ = sorted((rough[0] + rough[2], rough[1] + rough[3]))
    if not 0.4 < short / long_ < 0.95:
        return no_card, None  # far from a card's shape, whatever the refinement
    refined = _line_fit_corners(c, q)
    q = refined if refined is not None else q
    sides = [np.hypot(*(q[i] - q[(i + 1) % 4])) for i in range(4)]
    short, long_ = sorted((sides[0] + sides[2], sides[1] + sides[3]))
    if not 0.45 < short / long_ < 0.92:
        return no_card, None  # a clean shape, but no card: a marker, a coaster, a phone
    # A camera above the table sees a card's opposite sides at nearly the same length;
    # a larger difference means the outline took in something beside the card.
    if max(abs(sides[0] - sides[2]) / max(sides[0], sides[2]),
           abs(sides[1] - sides[3]) / max(sides[1], sides[3])) > MAX_SIDE_SKEW:
        return "unclear", None
    # A card fills its quadrilateral but for the rounded corners; less means something
    # (a hand the colour of the cloth, say) takes a bite out of it.
    if 0.955 < area / max(cv2.contourArea(q), 1) < 1.06:
        return "card", q
    return "unclear", None


MAX_SIDE_SKEW = 0.07
"""Largest relative difference between a card's opposite sides in the image."""

SMOOTH_GRADIENT = 30.0
"""Sobel magnitude (grey levels, after a light blur) below which the picture is "smooth":
a glare spot or a light gradient is smooth, a card's edge never is."""


def _split_smooth(grad: np.ndarray, mask: np.ndarray, c: np.ndarray) -> list:
    """Outlines left in a blob after taking away the smooth parts reached from the cloth.

    A glare spot on the cloth next to a card joins the card's blob, yet it changes only
    gently while the card's edge is a step: the smooth areas connected to the cloth
    outside the blob are cloth in a different light, and what remains is the card."""
    h, w = mask.shape
    x, y, bw, bh = cv2.boundingRect(c)
    pad = 4
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(blob, [c], -1, 255, -1, offset=(-x0, -y0))
    smooth = (grad[y0:y1, x0:x1] < SMOOTH_GRADIENT).astype(np.uint8)
    n, labels = cv2.connectedComponents(smooth, connectivity=4)
    outside = (blob == 0) & (smooth > 0)
    cloth_labels = np.unique(labels[outside])
    cloth_labels = cloth_labels[cloth_labels > 0]
    rest = blob.copy()
    rest[np.isin(labels, cloth_labels)] = 0
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    subs, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
    return subs


def _edge_support(grad: np.ndarray, quad: np.ndarray) -> float:
    """The smallest, over the four sides, fraction of points along a side where the
    picture has a step (within 2 pixels of the side)."""
    h, w = grad.shape
    strong = cv2.dilate((grad >= SMOOTH_GRADIENT).astype(np.uint8), np.ones((5, 5), np.uint8))
    worst = 1.0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        n = max(8, int(np.hypot(*(b - a))))
        t = np.linspace(0.08, 0.92, n)[:, None]
        pts = np.round(a + t * (b - a)).astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        if not inside.all():
            return 0.0
        worst = min(worst, float(strong[pts[:, 1], pts[:, 0]].mean()))
    return worst


def _densify(poly: np.ndarray) -> np.ndarray:
    """A polygon's outline with a point every pixel, as a contour (for line fitting)."""
    p = poly.reshape(-1, 2).astype(np.float32)
    out = []
    for a, b in zip(p, np.roll(p, -1, axis=0)):
        n = max(1, int(np.ceil(np.hypot(*(b - a)))))
        out.append(a + np.linspace(0, 1, n, endpoint=False)[:, None] * (b - a))
    return np.round(np.concatenate(out)).astype(np.int32).reshape(-1, 1, 2)


def _snap_to_edges(grad: np.ndarray, quad: np.ndarray, reach: float = 5.0):
    """Each side moved onto the outermost step within ``reach`` pixels of it (a line
    fitted through them, weighted by their strength), and the corners recomputed.

    The outermost step, not the strongest: a card's edge is where the cloth ends, and
    many decks have a light rim or a printed frame line just inside it whose steps can
    be stronger than the edge itself."""
    h, w = grad.shape
    centre_q = quad.mean(axis=0)
    lines = []
    for a, b, length, u in _sides(quad):
        if length < 8:
            return None
        n = np.array([-u[1], u[0]])
        if float(n @ ((a + b) / 2 - centre_q)) < 0:
            n = -n  # n points out of the card
        ts = np.arange(0.1 * length, 0.9 * length, 1.0)
        offs = np.arange(reach, -reach - 1, -1.0)                       # outside first
        pts = a + ts[:, None, None] * u + offs[None, :, None] * n      # (T, O, 2)
        xi = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        yi = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        g = grad[yi, xi]                                                # (T, O)
        rows = np.arange(len(ts))
        best = np.argmax(g >= SMOOTH_GRADIENT, axis=1)
        for _ in range(3):  # climb to the top of that step
            nxt = np.minimum(best + 1, g.shape[1] - 1)
            best = np.where(g[rows, nxt] > g[rows, best], nxt, best)
        strength = g[rows, best]
        keep = strength >= SMOOTH_GRADIENT
        if keep.sum() < 0.6 * len(ts):
            return None
        lines.append(_line_through(pts[rows, best][keep], strength[keep]))
    return _crossings(lines)


def _hull_quad(grad: np.ndarray, c: np.ndarray):
    """A card's quadrilateral from a ragged outline (a dark face on a cloth of nearly its
    colour). The blob's rotated bounding box, snapped onto the picture's steps nearby,
    must be a clean card shape that the blob fills to 60%, and every side of it must run
    along a step in the picture: a hand of the cloth's colour over the card leaves a side
    without a step there, and is refused."""
    box = cv2.boxPoints(cv2.minAreaRect(c)).astype(np.float32)
    q = _snap_to_edges(grad, _clockwise(box))
    if q is None:
        return None
    kind, q2 = _quad_of(_densify(q))
    if kind != "card" or cv2.contourArea(c) < 0.6 * cv2.contourArea(q2):
        return None
    if _edge_support(grad, q2) < 0.9:
        return None
    return q2


def find_card_quads(frame_bgr: np.ndarray, min_area_fraction: float = 0.003,
                    aspect: Optional[float] = None):
    """Card-shaped blobs: list of ``(corners or None, outline_box)`` in frame pixels.

    ``corners`` is a (4, 2) float array, clockwise in image coordinates, when the blob is
    one clean card; None when it is card-sized but not one card (covered, overlapping).
    ``aspect`` (the deck's short over long side), when known, helps to find whole cards
    in a blob shared with a hand."""
    h, w = frame_bgr.shape[:2]
    scale = 1.0
    work = frame_bgr
    if w > WORK_WIDTH:
        scale = WORK_WIDTH / w
        work = cv2.resize(frame_bgr, (WORK_WIDTH, int(round(h * scale))), interpolation=cv2.INTER_AREA)
    mask = cloth_mask(work)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    wh, ww = work.shape[:2]
    min_area = min_area_fraction * ww * wh
    grad = None
    found, clean, ragged, cut = [], [], [], []

    def look_into(c, edge: bool) -> None:
        """A blob that is not one clean card: the cards in it are found, what is left is
        reported as a refusal (unless cut by the frame's edge) and searched later."""
        nonlocal grad
        if grad is None:
            grey = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)
            grad = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
        parts = [s for s in _split_smooth(grad, mask, c) if cv2.contourArea(s) >= min_area]
        kinds = [_quad_of(s) for s in parts]
        if parts and all(k == "other" for k, _ in kinds):
            return  # a marker, a coaster: clean once the glare beside it is gone
        # A part still unclear may be a card whose outline the cloth mask frays (a
        # dark face, the foot of a glare spot): its edges in the picture decide.
        for n, (s, (k, _)) in enumerate(zip(parts, kinds)):
            if k == "unclear":
                hq = _hull_quad(grad, s)
                if hq is not None:
                    kinds[n] = ("card", hq)
        quads = [q for k, q in kinds if k == "card" and (not edge or _inside(q, ww, wh, 1.5))]
        clean.extend(quads)
        if quads:
            # Each clean card left is read on its own merits; what is neither a card
            # nor a clean shape (fingers, a card under them) is reported, unread ...
            found.extend((_clockwise(q) / scale, cv2.boxPoints(cv2.minAreaRect(q)) / scale)
                         for q in quads)
            if not edge:
                found.extend((None, cv2.boxPoints(cv2.minAreaRect(s)) / scale)
                             for s, (k, _) in zip(parts, kinds) if k == "unclear")
            # ... and may still hold a card touching the fingers: see below.
            ragged.extend(s for s, (k, _) in zip(parts, kinds) if k == "unclear")
            return
        q = None if edge else _hull_quad(grad, c)
        if q is not None:
            clean.append(q)
            found.append((_clockwise(q) / scale, cv2.boxPoints(cv2.minAreaRect(q)) / scale))
            return
        ragged.append(c)
        if not edge:
            found.append((None, cv2.boxPoints(cv2.minAreaRect(c)) / scale))

    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area or area > 0.5 * ww * wh:
            continue
        pts = c.reshape(-1, 2)
        on_edge = np.count_nonzero((pts[:, 0] <= 0) | (pts[:, 1] <= 0) |
                                   (pts[:, 0] >= ww - 1) | (pts[:, 1] >= wh - 1))
        kind, quad = _quad_of(c)
        if on_edge > 0.05 * len(pts):
            # Along the frame's edge: a card cut by it is outside the play areas and
            # unreadable, but a whole card whose corner only reaches the edge is read,
            # and so is a whole card in a blob with a hand reaching in (looked at below).
            if kind == "unclear":
                cut.append((c, area))
            if kind != "card" or not _inside(quad, ww, wh, 1.5):
                continue
        if kind == "other":
            continue
        if kind == "unclear":
            look_into(c, edge=False)
            continue
        clean.append(quad)
        found.append((_clockwise(quad) / scale, cv2.boxPoints(cv2.minAreaRect(c)) / scale))
    if cut:
        # Only blobs bigger than a card (a card and a hand): a mat marker cut by the
        # frame's edge is smaller, and looking into each cost every frame about 6 ms.
        card_area = float(np.median([cv2.contourArea(q) for q in clean])) if clean else 0.03 * ww * wh
        for c, area in cut:
            if area > card_area:
                look_into(c, edge=True)
    if ragged:
        # A blob that is no card as a whole (a card and the hand beside it) may still
        # hold whole cards: sought at its square corners. The blob itself stays a
        # refusal (reported above): the hand may hide another card.
        if aspect is not None:
            clean = [q for q in clean if _deck_shaped(_aspect(q), aspect)]
        size = np.median([_side_lengths(q) for q in clean], axis=0) if clean else None
        for c in ragged:
            found.extend((_clockwise(q) / scale, cv2.boxPoints(cv2.minAreaRect(q)) / scale)
                         for q in _cards_at_corners(grad, c, size, aspect) if _inside(q, ww, wh, 1.5))
    return found


def _side_lengths(quad: np.ndarray):
    """(long, short) side of a quadrilateral, each the mean of two opposite sides."""
    sides = [float(np.hypot(*(quad[i] - quad[(i + 1) % 4]))) for i in range(4)]
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return max(a, b), min(a, b)


def _cards_at_corners(grad: np.ndarray, c: np.ndarray, size=None, aspect: Optional[float] = None) -> list:
    """Whole cards at the square corners of a ragged blob (a card touching a hand).

    Each corner of the blob's outline where two long enough straight sides meet at a
    right angle is taken as a card's corner. The card laid there is sized by what is
    known: ``size`` (long, short side of this frame's clean cards, both ways round); a
    side of the outline that ends in square corners at both ends, which is a whole side
    of the card, with the other side from the deck's ``aspect`` (short over long); or,
    where the corners at both far ends are square, the card those three corners span.
    Each is snapped onto the picture's steps and kept only if it is a clean card shape,
    of the size it was laid at (±10%), with a step along all four sides: a card half
    under a hand has a side without one and is not taken."""
    poly = cv2.approxPolyDP(c, 0.01 * cv2.arcLength(c, True), True).reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if n < 4:
        return []

    def square(k):
        """Unit sides and lengths at corner k if it is a convex right angle, else None."""
        p = poly[k % n]
        u1, u2 = poly[(k - 1) % n] - p, poly[(k + 1) % n] - p
        l1, l2 = float(np.hypot(*u1)), float(np.hypot(*u2))
        if min(l1, l2) < 8:
            return None
        u1, u2 = u1 / l1, u2 / l2
        if abs(float(u1 @ u2)) > 0.17:   # not within 10° of a right angle
            return None
        inward = p + 3.0 * (u1 + u2)
        if cv2.pointPolygonTest(c, (float(inward[0]), float(inward[1])), False) < 0:
            return None                   # a notch in the outline, not a corner of it
        return u1, u2, l1, l2

    squares = [square(k) for k in range(n)]
    out: list = []
    for k in range(n):
        if squares[k] is None:
            continue
        p = poly[k]
        u1, u2, l1, l2 = squares[k]
        before, after = squares[k - 1] is not None, squares[(k + 1) % n] is not None
        trials = []  # (length along u1, length along u2)
        if size is not None and min(l1, l2) >= 0.3 * float(size[1]):
            trials += [tuple(size), tuple(size)[::-1]]
        if aspect is not None:
            if before:   # the side along u1 is whole
                trials += [(l1, l1 * aspect), (l1, l1 / aspect)]
            if after:    # the side along u2 is whole
                trials += [(l2 * aspect, l2), (l2 / aspect, l2)]
        if before and after:
            trials.append((l1, l2))
        tried = []
        for a, b in trials:
            if l1 > 1.1 * a or l2 > 1.1 * b or not 0.45 < min(a, b) / max(a, b) < 0.92:
                continue  # the outline runs on past this card, or no card's shape
            if any(abs(a - ta) < 2 and abs(b - tb) < 2 for ta, tb in tried):
                continue
            tried.append((a, b))
            q = _snap_to_edges(grad, _clockwise(np.array([p, p + a * u1, p + a * u1 + b * u2, p + b * u2],
                                                         np.float32)))
            if q is None:
                continue
            kind, q2 = _quad_of(_densify(q))
            if kind != "card" or _edge_support(grad, q2) < 0.9:
                continue
            got, want = _side_lengths(q2), (max(a, b), min(a, b))
            if abs(got[0] / want[0] - 1) > 0.1 or abs(got[1] / want[1] - 1) > 0.1:
                continue
            centre = q2.mean(axis=0)
            if all(np.hypot(*(centre - o.mean(axis=0))) > 0.5 * _side_lengths(o)[1] for o in out):
                out.append(q2)
    return out


def _inside(quad: np.ndarray, w: int, h: int, margin: float) -> bool:
    """Whether every corner lies at least ``margin`` pixels inside a w × h frame."""
    return bool(np.all(quad >= margin) and np.all(quad[:, 0] <= w - 1 - margin)
                and np.all(quad[:, 1] <= h - 1 - margin))


def _clockwise(quad: np.ndarray) -> np.ndarray:
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # image y is down, so increasing angle is clockwise
    return q.astype(np.float32)


def _portrait_orders(quad: np.ndarray):
    """The two corner orders (TL, TR, BR, BL) that stand the card upright, one per 180°."""
    d01 = np.hypot(*(quad[0] - quad[1])) + np.hypot(*(quad[2] - quad[3]))
    d12 = np.hypot(*(quad[1] - quad[2])) + np.hypot(*(quad[3] - quad[0]))
    start = 0 if d01 <= d12 else 1  # the top edge is a short side
    a = np.roll(quad, -start, axis=0)
    return a, np.roll(a, -2, axis=0)


# --- reading ------------------------------------------------------------------------

def _read(frame_bgr, quad, deck: PlainDeck):
    """Score the calibrated cards against one quadrilateral: a list of
    ``(score, card_index, orientation)``, best first, and the two upright views."""
    w, h = deck.canon_size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    views = []
    for order in _portrait_orders(quad):
        m = cv2.getPerspectiveTransform(order.astype(np.float32), dst)
        canon = cv2.warpPerspective(frame_bgr, m, (w, h), flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_REPLICATE)
        grey = cv2.cvtColor(canon, cv2.COLOR_BGR2GRAY)
        views.append((order, _signature(canon), grey, canon))
    sig = np.stack([v[1] for v in views])             # (2, S)
    full = sig @ deck.signatures.T                     # (2, n)
    flat = np.argsort(full.ravel())[::-1][:SHORTLIST]
    scores = {}
    bh = deck.bands.shape[1]
    bands = [_band(v[2]) for v in views]
    for k in flat:
        o, i = divmod(int(k), full.shape[1])
        tmpl = deck.bands[i][BAND_SHIFT:bh - BAND_SHIFT, BAND_SHIFT:-BAND_SHIFT]
        band = float(cv2.matchTemplate(bands[o], tmpl, cv2.TM_CCOEFF_NORMED).max())
        score = 0.6 * band + 0.4 * float(full[o, i])
        if i not in scores or score > scores[i][0]:
            scores[i] = (score, o)
    ranked = sorted(((sc, i, o) for i, (sc, o) in scores.items()), reverse=True)
    # Cards off the shortlist are ranked by their signature alone, which is enough to
    # know they are far behind.
    for i in range(full.shape[1]):
        if i not in scores:
            o = int(np.argmax(full[:, i]))
            ranked.append((float(full[o, i]), i, o))
    ranked.sort(reverse=True)
    return ranked, views


PAIR_TOP = 4
"""How many places, where the two cards differ most, the pairwise test looks at."""
PAIR_WINDOW = 22
"""Side in pixels (at CANON_H) of each place: a pip or an index with a little room."""
PAIR_MIN_MATCH = 0.7
"""A place where the view matches neither card at least this well (normalized
correlation) decides nothing."""
PAIR_SHIFT = 3
"""How far (pixels) each place may slip to meet each template: corners are never exact."""


def _pair_regions(a: np.ndarray, b: np.ndarray):
    """Boxes ``(x0, y0, x1, y1, weight, alike)`` around the places where two templates differ
    most, strongest first: a window the size of a pip around each peak of the
    difference, so that a pip is judged whole and a card whose pips all differ (a ten
    of clubs against a ten of spades) is judged pip by pip, not as one diluted area."""
    h, w = a.shape
    d = cv2.GaussianBlur(np.abs(a - b), (0, 0), 2.0)
    half = PAIR_WINDOW // 2
    first = float(d.max())
    if first < 1e-3:
        return []
    boxes = []
    d = d.copy()
    for _ in range(PAIR_TOP):
        y, x = np.unravel_index(int(np.argmax(d)), d.shape)
        if d[y, x] < 0.35 * first:
            break
        x0, y0 = max(0, x - half), max(0, y - half)
        x1, y1 = min(w, x + half + 1), min(h, y + half + 1)
        # How alike the two cards still are there when one may slip as far as the test
        # allows: a pip a pixel or two apart in the two cards tells little.
        ab = _slip_match(b, a[y0:y1, x0:x1], x0, y0, x1, y1)
        # It is weighed down accordingly (yet kept: a club and a spade pip are that
        # alike, and the view still tells them apart).
        boxes.append((int(x0), int(y0), int(x1), int(y1),
                      float(d[y0:y1, x0:x1].sum()) * max(1.0 - ab, 0.05), ab))
        d[y0:y1, x0:x1] = 0.0  # the next place is another pip
    boxes.sort(key=lambda bx: -bx[4])
    return boxes


def _slip_match(x: np.ndarray, tmpl: np.ndarray, x0, y0, x1, y1) -> float:
    """Best normalized correlation of ``tmpl`` (the box x0..x1, y0..y1 of a template)
    with ``x`` around the same box, slipping up to PAIR_SHIFT pixels either way."""
    s = PAIR_SHIFT
    xp = cv2.copyMakeBorder(x, s, s, s, s, cv2.BORDER_REPLICATE)
    return float(cv2.matchTemplate(xp[y0:y1 + 2 * s, x0:x1 + 2 * s], tmpl, cv2.TM_CCOEFF_NORMED).max())


def _pair_test(x: np.ndarray, a: np.ndarray, b: np.ndarray, boxes=None) -> float:
    """How much better ``x`` matches template ``a`` than template ``b`` (about −1 … 1),
    looking only where the two differ most: a nine of spades and a nine of clubs differ
    in a few pips, which a whole-card score barely notices but this test weighs in full.
    Each place is matched with a small slip allowed for each template on its own, so
    that a corner placed a pixel or two off does not favour one of them. Both templates
    are laid on the same view: to judge ``b`` the other way up, pass it turned (and the
    places where ``a`` and the turned ``b`` differ)."""
    if boxes is None:
        boxes = _pair_regions(a, b)
    if not boxes:
        return 0.0
    s = PAIR_SHIFT
    xp = cv2.copyMakeBorder(x, s, s, s, s, cv2.BORDER_REPLICATE)
    t = total = 0.0
    for x0, y0, x1, y1, weight, ab in boxes:
        ta, tb = a[y0:y1, x0:x1], b[y0:y1, x0:x1]
        region = xp[y0:y1 + 2 * s, x0:x1 + 2 * s]
        sa = float(cv2.matchTemplate(region, ta, cv2.TM_CCOEFF_NORMED).max())
        sb = float(cv2.matchTemplate(region, tb, cv2.TM_CCOEFF_NORMED).max())
        # Scaled by how alike the two templates are there (``ab``), so that x == a
        # gives about +1 and x == b about −1 however small the difference between them.
        if max(sa, sb) >= PAIR_MIN_MATCH:
            t += weight * (sa - sb) / max(1.0 - ab, 0.1)
        # else: the place looks like neither card (something else is there): it counts
        # for neither, which pulls the result towards "not sure".
        total += weight
    return t / total


def _cells(img: np.ndarray) -> np.ndarray:
    """Mean of a check-sized image over each cell of CHECK_GRID, shape (rows, columns)."""
    cw, ch = CHECK_GRID
    return img.reshape(ch, img.shape[0] // ch, cw, img.shape[1] // cw).mean(axis=(1, 3))


def _cell_diff(grey: np.ndarray, check: np.ndarray) -> np.ndarray:
    """Mean difference over each cell of the face (normalized grey): high where
    something covers part of the card or a glare spot washes it out."""
    return _cells(np.abs(_check_image(grey) - check))


def _cell_darkening(grey: np.ndarray, check: np.ndarray) -> np.ndarray:
    """How much darker than its template each cell is, once the face's light is matched
    (a gain and offset fitted to the 70% of pixels that agree best: a glare spot or a
    cover does not pull the fit). Glare never darkens a card."""
    v = _check_image(grey)
    keep = np.ones(v.shape, bool)
    for _ in range(3):
        a = np.stack([check[keep], np.ones(int(keep.sum()), np.float32)], axis=1)
        gain, offset = np.linalg.lstsq(a, v[keep], rcond=None)[0]
        res = v - (gain * check + offset)
        keep = np.abs(res) <= np.percentile(np.abs(res), 70)
    return _cells(np.clip(-res / max(float(gain), 0.2), 0.0, None))


def _greyish(tint: np.ndarray) -> np.ndarray:
    """Where a template's colour (Lab a*, b*) is grey: paper, black ink."""
    return np.hypot(tint[..., 0], tint[..., 1]) < 8.0


def _white_matched(view: np.ndarray, tint: np.ndarray, grey_parts: np.ndarray) -> np.ndarray:
    """A view's colours (Lab a*, b*) shifted by the camera's white balance, measured as
    the median difference from the template ``tint`` on ``grey_parts`` (if enough)."""
    if int(grey_parts.sum()) > 20:
        return view - np.median((view - tint)[grey_parts], axis=0)
    return view


def _cell_tint(canon_bgr: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """Colour each cell gains over its template (Lab a*b* units): the distance of each
    pixel's colour from the segment between grey and the template's colour there, since
    light and glare only fade a colour towards grey. The camera's white balance is
    matched first, on the parts of the template that are grey."""
    view = _white_matched(_tint_image(canon_bgr), tint, _greyish(tint))
    tt = (tint * tint).sum(axis=2)
    k = np.clip((view * tint).sum(axis=2) / np.maximum(tt, 1e-3), 0.0, 1.0)
    return _cells(np.linalg.norm(view - k[:, :, None] * tint, axis=2))


def _cover_reason(grey, canon_bgr, i: int, deck: PlainDeck) -> Optional[str]:
    """Why card ``i``'s face looks covered in this view, or None. A cell that gains
    colour is covered (a hand, a sleeve); a cell that differs in grey is covered only
    if it also gains some colour or turns darker, since glare washes a card out but
    neither tints nor darkens it."""
    card = deck.cards[i]
    tint = _cell_tint(canon_bgr, deck.tints[i])
    if tint.max() > deck.max_tint:
        return f"part of the card differs in colour from {card} ({tint.max():.1f}): covered?"
    diff = _cell_diff(grey, deck.checks[i])
    differs = diff > deck.max_cell_diff
    if not differs.any():
        return None
    dark = _cell_darkening(grey, deck.checks[i])
    covered = differs & ((tint > deck.cover_tint) | (dark > deck.cover_dark))
    if covered.any():
        return f"part of the card differs from {card} ({diff[covered].max():.2f}): covered?"
    return None


def recognize_plain(frame_bgr: np.ndarray, deck: PlainDeck,
                    zones: Optional[Callable] = None) -> list:
    """Every card-shaped thing in a BGR frame, read against ``deck``.

    ``zones``, if given, is any callable mapping an image point ``(x, y)`` to a zone name
    (or None); each sighting's ``zone`` is then the zone of its centre. Refused sightings
    (``card is None``) are returned too, so that a tracker knows something is there.
    """
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise ValueError("recognize_plain needs a BGR colour image (height × width × 3 array), "
                         f"got {getattr(frame_bgr, 'shape', type(frame_bgr))}")
    if frame_bgr.dtype != np.uint8:
        raise ValueError(f"recognize_plain needs an 8-bit image, got {frame_bgr.dtype}")
    sightings = []
    found = [(quad, box, None if quad is None else _aspect(quad), None if quad is None else cv2.contourArea(quad))
             for quad, box in find_card_quads(frame_bgr, aspect=deck.aspect)]
    largest = max((area for quad, _, aspect, area in found
                   if quad is not None and _deck_shaped(aspect, deck.aspect)), default=0.0)
    for quad, box, aspect, area in found:
        if quad is None:
            s = Sighting(None, box.tolist(), 0.0, reason="not one clean card (covered or overlapping)")
        elif not _deck_shaped(aspect, deck.aspect):
            s = Sighting(None, quad.tolist(), 0.0,
                         reason=f"not the shape of this deck's cards (width/height {aspect:.2f}, "
                                f"the deck's {deck.aspect:.2f})")
        elif area < MIN_RELATIVE_AREA * largest:
            # Half a card has nearly a card's proportions (a card is close to √2 long), so
            # only its size gives away a card whose outline the cloth mask cut in two.
            s = Sighting(None, quad.tolist(), 0.0,
                         reason=f"smaller than the other cards in view ({area / largest:.0%} "
                                "of the largest): part of a card?")
        else:
            s = _decide(quad, *_read(frame_bgr, quad, deck), deck)
        if zones is not None:
            s.zone = zones(s.center)
        sightings.append(s)
    return sightings


MIN_RELATIVE_AREA = 0.6
"""Least area of a card's outline relative to the largest card-shaped outline in the
same frame: half a card is at most half the largest card's size, while a camera above
the table sees whole cards at nearly one size (at the benchmark's tilts the farthest
card's area was down to 0.72 of the nearest's, and 0.70 as found; 0.7 refused three
whole cards in the validation frames)."""

MAX_ASPECT_ERROR = 0.15
"""Largest relative difference between a shape's width/height and the deck's: a square
marker, a card half under a cloth-coloured sleeve or another deck's card is refused."""


def _deck_shaped(aspect: float, deck_aspect: float) -> bool:
    """Whether an outline's width/height is within MAX_ASPECT_ERROR of the deck's."""
    return abs(aspect / deck_aspect - 1.0) <= MAX_ASPECT_ERROR


def _aspect(quad: np.ndarray) -> float:
    """Short over long side (each the mean of two opposite sides) of a quadrilateral."""
    sides = [float(np.hypot(*(quad[i] - quad[(i + 1) % 4]))) for i in range(4)]
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return min(a, b) / max(a, b, 1e-6)


RED_SUITS = ("H", "D")

INK_RED, INK_BLACK = 0.4, 0.2
"""Bounds of the ink test (:func:`_ink_redness`): at least ``INK_RED`` the ink is red, at
most ``INK_BLACK`` it is black, in between it is not known. Over 5,800 correctly placed
tuning sightings (6 designs, glare and hands included) black cards gave −0.13 … 0.08 and
red cards 0.60 … 1.03."""


def _white_balanced(canon_bgr: np.ndarray) -> np.ndarray:
    """A card's view with each colour channel scaled so that its paper (the brightest
    30% of the face) is grey: a lamp's colour multiplies every channel, and dark ink
    keeps its colour once the paper's is divided out."""
    grey = cv2.cvtColor(canon_bgr, cv2.COLOR_BGR2GRAY)
    paper = canon_bgr[grey >= np.percentile(grey, 70)].reshape(-1, 3).astype(np.float32)
    means = np.maximum(paper.mean(axis=0), 1.0)
    gains = means.mean() / means
    return np.clip(canon_bgr.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def _ink_redness(tint_view: np.ndarray, red: np.ndarray, black: np.ndarray) -> float:
    """How red the ink is where a red card's template is redder than a black card's:
    about 1 when the view is the red card, about 0 when it is the black one.

    ``tint_view`` is the view's :func:`_tint_image`, ``red`` and ``black`` the two
    templates' tints. The view's white balance is matched first on the parts that are
    grey in both templates (paper, black ink), so a warm or cool light does not count.
    A grey test cannot tell a dark red from black under every light (a jack of diamonds
    from the jack of spades on some decks); colour can."""
    view = _white_matched(tint_view, black, _greyish(red) & _greyish(black))
    d = np.clip(red[..., 0] - black[..., 0], 0.0, None)
    return float(((view[..., 0] - black[..., 0]) * d).sum() / max(float((d * d).sum()), 1e-3))

RIVAL_GAP = 0.12
"""Cards scoring within this of the best must also lose the pairwise test."""


def _decide(quad, ranked, views, deck: PlainDeck) -> Sighting:
    """Name the card only if one contender beats every other close contender in the
    pairwise test, scores at least ``min_score`` and matches its template everywhere."""
    best = ranked[0][0]
    xs = [_pair_image(v[2]) for v in views]
    tints: dict = {}

    def by_ink(o, i, j):
        """+1 if the ink's colour in view ``o`` says card i, not j; −1 if it says j;
        0 if both are of one colour or the colour is not clear."""
        red_i, red_j = deck.cards[i].suit in RED_SUITS, deck.cards[j].suit in RED_SUITS
        if red_i == red_j:
            return 0
        if o not in tints:
            tints[o] = _tint_image(_white_balanced(views[o][3]))
        r, k = (i, j) if red_i else (j, i)
        s = _ink_redness(tints[o], deck.tints[r], deck.tints[k])
        if s >= INK_RED:
            return 1 if red_i else -1
        if s <= INK_BLACK:
            return -1 if red_i else 1
        return 0

    contenders = [(sc, j) for sc, j, _ in ranked if sc >= best - RIVAL_GAP]
    winner, order, margin, reason = None, views[ranked[0][2]][0], 0.0, None
    losses = []
    # The pairwise test is the finer judge: a card the whole-face score put second (under
    # glare, say) may still win every duel, and is then the card.
    # The candidate is judged the way up that suits it, settled on the whole face: a near
    # symmetric card (an ace, a jack) can rank well upside down, its art inverted.
    way_up = {j: int(np.argmax([float((x * deck.faces[j]).sum()) for x in xs]))
              for _, j in contenders[:3]}

    def duels(i, o):
        """(worst lead, rival, whether the ink decided it) of candidate i in view o over
        every other contender, stopping at the first duel lost."""
        a = deck.faces[i]
        worst, worst_j, worst_ink = 1.0, None, False
        for _, j in contenders:
            if j == i:
                continue
            ink = by_ink(o, i, j)
            if ink > 0:
                continue  # a red card against a black one, and the ink is clearly red
            if ink < 0:
                t = -1.0
            else:
                # The rival is laid on the same view both ways up: the view that suits
                # the candidate may show the true card upside down. Each way is a whole
                # template, so that the places compared are the same part of the card.
                b = deck.faces[j]
                t = _pair_test(xs[o], a, b, deck.pair_regions(i, j))
                if t >= deck.min_margin:  # else lost already: the other way need not be looked at
                    t = min(t, _pair_test(xs[o], a, np.ascontiguousarray(b[::-1, ::-1]),
                                          deck.pair_regions(i, j, turned=True)))
            if t < worst:
                worst, worst_j, worst_ink = t, j, ink < 0
            if t < deck.min_margin:
                break
        return worst, worst_j, worst_ink

    for sc, i in contenders[:3]:
        # The way up the whole face prefers first, then the other: an ace is the same
        # both ways but for its centre pip, and noise can tip the whole-face choice (a
        # clean ace of spades, judged upside down, lost to the ace of clubs turned).
        # Rivals are still met both ways up, so the true card, whichever way it lies,
        # is among them either way.
        tried = []
        for o in (way_up[i], 1 - way_up[i]):
            tried.append(duels(i, o) + (o,))
            if tried[-1][0] >= deck.min_margin:
                break
        worst, worst_j, worst_ink, o = max(tried, key=lambda r: r[0])
        if worst >= deck.min_margin:
            winner, order, view, margin, score, o_win = i, views[o][0], views[o], worst, sc, o
            break
        losses.append((i, worst_j, worst, worst_ink))
    if winner is None:
        i, j, t, ink = losses[0]
        card = deck.cards[i]
        if ink:
            reason = f"{card} is ruled out by the ink's colour, which points to {deck.cards[j]}"
        else:
            reason = f"{card} is not clearly told from {deck.cards[j]} ({t:.2f} < {deck.min_margin:.2f})"
        return Sighting(None, order.tolist(), best, margin=t, reason=reason, guess=card)
    card = deck.cards[winner]
    top = deck.cards[ranked[0][1]]
    if score < deck.min_score:
        reason = f"best match {card} scores {score:.2f}, below {deck.min_score:.2f}"
    elif (card.suit in RED_SUITS) != (top.suit in RED_SUITS) and by_ink(o_win, winner, ranked[0][1]) <= 0:
        # The pairwise test looks at grey pips; unless the ink's colour settled it, whether
        # the card is red or black is the whole-face score's to say, and a red card is
        # never named against it.
        reason = f"{card} wins the close look, but the face's colours point to {top}"
    else:
        reason = _cover_reason(view[2], view[3], winner, deck)
    return Sighting(None if reason else card, order.tolist(), score, margin=margin,
                    reason=reason, guess=card)
