"""Reading a straightened card: its features, how well it matches a template, and the close look where two cards differ.

A face is compared in its own light (see ``straighten.white_balanced``) with the light
falling across it taken away (what varies more slowly than ``LIGHT_SCALE``), so that
exposure, white balance and uneven light do not matter. Two sizes are used:

- *soft*: the face at half the canonical size, softened; each of its ``GRID`` patches
  may slip against the template on its own, which absorbs a crop a few per cent off or
  a slight skew. It ranks the candidates and finds where each template lies on the view.
- *sharp*: the face at the canonical size, lightly softened. Two close candidates are
  compared only at the places where their templates differ (a spade's tip against a
  club's leaves), each template slipping on its own there: the *duel*. Between twins
  (same rank and colour) the places are their suit signs, found where the two faces,
  laid on each other, differ in shape: the *sign look*.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Optional

import cv2
import numpy as np

SMALL = (24, 34)
"""Size of the low-resolution print used to shortlist candidates."""
SOFT_SCALE = 0.5
"""Size of the soft face against the canonical one."""
SOFTEN = 0.8
"""Gaussian sigma (soft-face px) of the soft face."""
SHARPEN = 0.8
"""Gaussian sigma (canonical px) of the sharp face."""
LIGHT_SCALE = 14.0
"""Gaussian sigma (canonical px) of the light across a card, taken away from the print."""
SHIFT = 3
"""How far (soft-face px) each patch may slip against a template."""
INSET = 0.03
"""Fraction of the card's height left out at every edge (rounded corners, the table)."""
GRID = (2, 3)
"""Columns and rows of patches that slip separately."""
PLACE_PAD = 3
PLACE_SHIFT = 3
"""How far (canonical px) each template may slip at a place of the close look."""
MAX_PLACES = 4
MIN_APART = 0.04
"""Places where two templates are more alike than this (after slipping) are not compared."""
PLACE_MIN = 0.5
"""A place the view matches neither card at least this well (a finger over it) tells nothing."""


def unit(x: np.ndarray) -> np.ndarray:
    """Zero mean, unit spread."""
    return (x - x.mean()) / (x.std() + 1e-3)


def ncc(a: np.ndarray, b: np.ndarray) -> float:
    """Normalized correlation of two images of one size."""
    a = a - a.mean()
    b = b - b.mean()
    return float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6))


def grey_of(balanced: np.ndarray) -> np.ndarray:
    """Lightness of a white-balanced face (float32, paper about 1)."""
    # The same sum in the same order as ``balanced.mean(axis=2)`` (equal to the last bit),
    # ten times faster: numpy's reduction over a short last axis is slow.
    return (balanced[:, :, 0] + balanced[:, :, 1] + balanced[:, :, 2]) / 3


def redness_of(balanced: np.ndarray) -> np.ndarray:
    """How red each pixel is in the card's own light: red over the mean of green and
    blue, minus one (0 for grey or black print, about 1 or more for red print)."""
    gb = (balanced[:, :, 0] + balanced[:, :, 1]) / 2
    return balanced[:, :, 2] / np.maximum(gb, 0.05) - 1.0


def chroma_of(balanced: np.ndarray) -> np.ndarray:
    """Each pixel's colour in the card's own light: how far its channels (BGR) stand from
    their mean, over that mean (at least 0.05: black print). Black or grey print gives
    about (0, 0, 0), red print about (-0.7, -0.7, 1.4), blue print a vector that points
    elsewhere. A lamp's reflection adds white light, which shortens the vector but keeps
    its direction."""
    grey = grey_of(balanced)
    return (balanced - grey[..., None]) / np.maximum(grey, 0.05)[..., None]


def _print_of(grey: np.ndarray, light_scale: float) -> np.ndarray:
    """The print with the light across the card taken away. (The light is estimated at
    a small size and scaled back: a Gaussian this wide at full size costs ten times more.)"""
    h, w = grey.shape
    k = max(1, int(light_scale // 2))
    small = cv2.resize(grey, (max(2, w // k), max(2, h // k)), interpolation=cv2.INTER_AREA)
    light = cv2.resize(cv2.GaussianBlur(small, (0, 0), 2.0), (w, h), interpolation=cv2.INTER_LINEAR)
    return grey - light


@dataclass
class Face:
    """A card face (a template or a view) prepared for comparison."""

    grey: np.ndarray      # canonical size, white-balanced lightness
    sharp: np.ndarray     # canonical size, print, lightly softened
    soft: np.ndarray      # soft size, print, softened
    small: np.ndarray     # shortlist feature (unit vector)
    redness: np.ndarray   # soft size
    chroma: np.ndarray    # soft size, 3 channels (``chroma_of``)

    @classmethod
    def of(cls, balanced: np.ndarray) -> "Face":
        """The features of a white-balanced canonical face (float32 BGR)."""
        grey = grey_of(balanced)
        h, w = grey.shape
        size = (max(8, int(round(w * SOFT_SCALE))), max(8, int(round(h * SOFT_SCALE))))
        half_grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        half_bal = cv2.resize(balanced, size, interpolation=cv2.INTER_AREA)
        soft = cv2.GaussianBlur(_print_of(half_grey, LIGHT_SCALE * SOFT_SCALE), (0, 0), SOFTEN)
        # The shortlist looks at the print at a quarter size, softened enough that a
        # crop a few pixels off still matches.
        y0, y1, x0, x1 = inset_box(soft.shape)
        small = cv2.GaussianBlur(cv2.resize(soft[y0:y1, x0:x1], SMALL, interpolation=cv2.INTER_AREA), (0, 0), 1.0)
        small = small - small.mean()
        return cls(grey=grey,
                   sharp=cv2.GaussianBlur(_print_of(grey, LIGHT_SCALE), (0, 0), SHARPEN),
                   soft=soft,
                   small=(small / (np.sqrt((small * small).sum()) + 1e-6)).ravel(),
                   redness=redness_of(half_bal), chroma=chroma_of(half_bal))

    @cached_property
    def parts(self) -> tuple:
        """The soft face's :func:`soft_parts` (for a template, kept once made)."""
        return soft_parts(self.soft)

    def turned(self) -> "Face":
        """The same face upside down (the inset is symmetric, so the shortlist feature
        turns with it)."""
        return Face(self.grey[::-1, ::-1], self.sharp[::-1, ::-1], self.soft[::-1, ::-1],
                    self.small[::-1], self.redness[::-1, ::-1], self.chroma[::-1, ::-1])


def inset_box(shape) -> tuple:
    """(y0, y1, x0, x1) of the part of a soft face that templates are compared on."""
    return _inset_box(tuple(shape[:2]))


@lru_cache(maxsize=32)
def _inset_box(shape) -> tuple:
    h, w = shape
    m = max(2, int(round(INSET * h))) + SHIFT
    return m, h - m, m, w - m


def patch_boxes(shape) -> list:
    """(y0, y1, x0, x1) of each patch of the compared part of a soft face."""
    return _patch_boxes(tuple(shape[:2]))


@lru_cache(maxsize=32)
def _patch_boxes(shape) -> list:
    y0, y1, x0, x1 = inset_box(shape)
    cols, rows = GRID
    ys = np.linspace(y0, y1, rows + 1).round().astype(int)
    xs = np.linspace(x0, x1, cols + 1).round().astype(int)
    return [(ys[r], ys[r + 1], xs[c], xs[c + 1]) for r in range(rows) for c in range(cols)]


def compared(soft: np.ndarray) -> np.ndarray:
    """The compared part of a soft-size image."""
    y0, y1, x0, x1 = inset_box(soft.shape)
    return soft[y0:y1, x0:x1]


def soft_parts(tmpl_soft: np.ndarray) -> tuple:
    """What :func:`patch_match` needs of a template, worked out once per template (the
    deck keeps it on the face): each patch's box and print (None for a blank patch),
    and the compared part less its mean with its sum of squares."""
    patches = []
    for (py0, py1, px0, px1) in patch_boxes(tmpl_soft.shape):
        t = tmpl_soft[py0:py1, px0:px1]
        patches.append(((py0, py1, px0, px1), None if float(t.std()) < 1e-3 else t))
    b = compared(tmpl_soft)
    b = b - b.mean()
    return patches, b, (b * b).sum()


def patch_match(view_soft: np.ndarray, tmpl_soft: np.ndarray, parts=None) -> tuple:
    """Each patch of the template matched over the view, slipping up to ``SHIFT`` px on
    its own. Returns ``(score, offsets)``: the normalized correlation of the view so
    aligned with the template over the whole compared part (a blank patch weighs
    nothing) and each patch's (dy, dx). ``parts``: the template's :func:`soft_parts`,
    when kept."""
    patches, b, bb = soft_parts(tmpl_soft) if parts is None else parts
    offsets = []
    for (py0, py1, px0, px1), t in patches:
        if t is None:
            offsets.append((0, 0))
            continue
        region = view_soft[py0 - SHIFT:py1 + SHIFT, px0 - SHIFT:px1 + SHIFT]
        r = cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED)
        _, _, _, (dx, dy) = cv2.minMaxLoc(r)
        offsets.append((dy - SHIFT, dx - SHIFT))
    # ncc() with the template's side worked out beforehand (the same sums, the same result).
    a = aligned(view_soft, tmpl_soft.shape, offsets)
    a = a - a.mean()
    return float((a * b).sum() / (np.sqrt((a * a).sum() * bb) + 1e-6)), offsets


def global_match(view_soft: np.ndarray, tmpl_soft: np.ndarray) -> float:
    """The template's compared part laid on the view as a whole, slipping up to ``SHIFT``
    px: its best normalized correlation (one call; the shortlist's second rank)."""
    y0, y1, x0, x1 = inset_box(tmpl_soft.shape)
    r = cv2.matchTemplate(view_soft, tmpl_soft[y0:y1, x0:x1], cv2.TM_CCOEFF_NORMED)
    return float(r.max())


def aligned(view: np.ndarray, shape, offsets) -> np.ndarray:
    """The view's compared part (soft size), each patch taken from where it matched."""
    y0, y1, x0, x1 = inset_box(shape)
    out = np.empty((y1 - y0, x1 - x0) + view.shape[2:], view.dtype)
    for (py0, py1, px0, px1), (dy, dx) in zip(patch_boxes(shape), offsets):
        out[py0 - y0:py1 - y0, px0 - x0:px1 - x0] = view[py0 + dy:py1 + dy, px0 + dx:px1 + dx]
    return out


def _norm(x: np.ndarray) -> np.ndarray:
    mean, std = cv2.meanStdDev(x)
    return (x - float(mean[0, 0])) / (float(std[0, 0]) + 0.02)


def places(sharp_a: np.ndarray, sharp_b: np.ndarray) -> list:
    """The places where two templates differ most: up to ``MAX_PLACES`` tuples
    ``(y0, y1, x0, x1, weights, total)`` (canonical px) around the connected parts of
    their difference. ``weights`` says, pixel by pixel, how much the two differ there
    once the second has slipped to fit the first best (a slip that makes them alike
    leaves nothing to tell them by); ``total`` is their sum."""
    h, w = sharp_a.shape
    m = max(2, int(round(INSET * h)))
    ua, ub = unit(sharp_a[m:h - m, m:w - m]), unit(sharp_b[m:h - m, m:w - m])
    d = cv2.GaussianBlur(np.abs(ua - ub), (0, 0), 1.0)
    mask = (d > max(0.4, float(np.percentile(d, 75)))).astype(np.uint8)
    return _places_of(sharp_a, sharp_b, d, mask, m)


SIGN_SLIP = 2
"""How far (canonical px) one twin's template may slip against the other's, once laid on
it, when looking for where their print differs in shape."""
SIGN_WINDOW = 9
"""Side (canonical px) of the window compared at each slip: smaller than a suit sign, so
that a spade's point is not explained away by a slip, larger than a stroke."""
SIGN_LEVEL = 0.25
"""A pixel is part of the signs' difference when its shape difference reaches this share
of the strongest (99.5th percentile) in the pair."""
SIGN_FLOOR = 0.3
"""Least shape difference (:func:`shape_difference`) a place of two twins' faces must
reach to be a sign: what two faces that agree differ by (noise, light) stays below it."""
SMALL_SIGN_FLOOR = 0.15
"""Least shape difference of a place of twins whose signs are small (a small-pip deck's
spades and clubs: a spade's point against a club's top lobe, a few pixels of a card seen
about 110 px long), when no place reaches ``SIGN_FLOOR``: such places count only when at
least ``SMALL_SIGN_COUNT`` of them reach it. A small-pip tuning design's black nines and
tens seen 104 px long differ by 0.15-0.25 at every pip. Of 912 pairs of one card's faces
from two calibrations through the camera (tuning sessions), none had such places; 13 had
places of 0.35-1.3 (a face cut or lit otherwise), which ``SIGN_FLOOR`` lets through as
before."""
SMALL_SIGN_COUNT = 3
"""Least number of places for the small signs' floor: a difference repeated at the pips
and indices is the suit's; one place alone may be a blemish on one calibration's face."""
SIGN_EDGE = 2
"""Canonical px given up inside the part two templates share once laid on each other."""
SIGN_CUT = 1.5
"""Slip (canonical px) between two twins' faces from which one of them was cut off the
card's outline."""
MAX_LAY_CHANGE = 0.1
"""Largest change of scale or shear (the affine fit's linear part off the identity) by
which one twin's face may be laid on the other's as a slip of a calibration."""
MAX_SLIP = 0.08
"""Largest shift (share of the face's height) of a calibration's slip."""
MISCUT_FIT = 0.6
"""Least correlation, both ways, of a fit that is not a slip (``MAX_LAY_CHANGE``,
``MAX_SLIP``) that says two twins' faces are the same print seen through different
outlines: one of them was straightened from a wrong outline (a photo's corner found off
the card), and the places where they then differ are not their signs. Twins whose faces
differ in print (an ace of spades' large picture against an ace of clubs) fit by 0.54 at
most on tuning decks; faces cut from a wrong outline fitted 0.60-0.97 (on 80 decks
calibrated live on tuning sessions the rule refused the twins of 2, both with a face
cut wrongly)."""


MISCUT_GAIN = 0.25
"""... and by at least this much more than the two faces correlate as they lie: a face
cut from a wrong outline is its print moved and reshaped, so that the fit gains much
(synthetic twins, one straightened from an outline whose corner lay 15-20% of the card's
width out on the table, a change of shape: 0.68-0.88 against 0.24-0.40 as they lie). Twins whose large
signs are alike in outline (a simple deck's aces of hearts and diamonds, one large sign
each: a generated tuning design's fitted by 0.71 with a squeeze, and correlated by 0.58
as they lie) gain little and are compared at their signs."""


def shape_difference(sharp_a: np.ndarray, sharp_b: np.ndarray) -> np.ndarray:
    """How much two images of one size differ in shape around each pixel, whatever slip
    of up to ``SIGN_SLIP`` px would make them most alike there (both ways): about 0
    where the print is the same, large where a club's lobes meet a spade's point or a
    heart's round top a diamond's straight sides."""
    a, b = unit(sharp_a), unit(sharp_b)
    s = SIGN_SLIP
    out = []
    for x, y in ((a, b), (b, a)):
        yp = cv2.copyMakeBorder(y, s, s, s, s, cv2.BORDER_REPLICATE)
        best = None
        for dy in range(-s, s + 1):
            for dx in range(-s, s + 1):
                e = cv2.boxFilter((x - yp[s + dy:s + dy + x.shape[0], s + dx:s + dx + x.shape[1]]) ** 2,
                                  -1, (SIGN_WINDOW, SIGN_WINDOW))
                best = e if best is None else np.minimum(best, e)
        out.append(best)
    return np.maximum(out[0], out[1])


def laid_on(sharp_a: np.ndarray, sharp_b: np.ndarray) -> tuple:
    """Template ``b`` laid on ``a`` (an affine fit of their print) and the mask of ``a``'s
    pixels that ``b`` covers: two faces calibrated a few pixels apart (one cut a little
    inside the card, one showing the table past its rim) then share their print where
    they share it, and what only one of them holds (a letter cut off, the table) is
    left out. ``b`` as it is when the fit fails; nothing covered when the two are the same
    print only through a change of shape (``MISCUT_FIT``: one face was cut from a wrong
    outline)."""
    return _laid_on(sharp_a, sharp_b)[:2]


def _laid_on(sharp_a: np.ndarray, sharp_b: np.ndarray) -> tuple:
    """:func:`laid_on`, and whether one of the faces was cut off the card's outline
    (their slip reaches ``SIGN_CUT``)."""
    h, w = sharp_a.shape
    fit, warp = _fit(sharp_a, sharp_b)
    if not _small_slip(warp, h) and fit >= MISCUT_FIT and fit - ncc(sharp_a, sharp_b) >= MISCUT_GAIN:
        back, back_warp = _fit(sharp_b, sharp_a)
        if not _small_slip(back_warp, h) and back >= MISCUT_FIT:
            # The same print, but only through a change of shape or a large shift, seen
            # from either face: one of them was cut from a wrong outline, so no place on
            # it can be compared with a view's (straightened from the card's own
            # outline): nothing is covered.
            return cv2.warpAffine(sharp_b, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE), np.zeros((h, w), bool), True
    if not _small_slip(warp, h):
        warp = np.eye(2, 3, dtype=np.float32)      # laid as they are
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    b = cv2.warpAffine(sharp_b, warp, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    m = max(2, int(round(INSET * h)))
    inside = np.zeros((h, w), np.uint8)
    inside[m:h - m, m:w - m] = 1
    covered = cv2.warpAffine(inside, warp, (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0) & inside
    covered = cv2.erode(covered, np.ones((2 * SIGN_EDGE + 1,) * 2, np.uint8))
    tx, ty = abs(float(warp[0, 2])), abs(float(warp[1, 2]))
    cut = max(tx, ty) >= SIGN_CUT
    if cut:
        # One of the two faces was cut off the card's outline: it shows the table along
        # an edge, and its print there is darkened by the light estimated across that
        # strip (``LIGHT_SCALE``). Which face it is cannot be told, so bands as wide as
        # the slip and that light's reach are left out along all four edges.
        bx, by = int(np.ceil(tx + LIGHT_SCALE / 2)), int(np.ceil(ty + LIGHT_SCALE / 2))
        covered[:, :m + bx] = 0
        covered[:, w - m - bx:] = 0
        covered[:m + by] = 0
        covered[h - m - by:] = 0
    return b, covered.astype(bool), cut


def cut_apart(sharp_a: np.ndarray, sharp_b: np.ndarray) -> bool:
    """Whether one of two faces of the same print was cut off the card's outline: laid
    on each other they slip by ``SIGN_CUT`` or more (see :func:`laid_on`)."""
    return _laid_on(sharp_a, sharp_b)[2]


def laid_slip(sharp_a: np.ndarray, sharp_b: np.ndarray) -> np.ndarray:
    """Template ``b`` laid on ``a`` by their affine fit when it is a calibration's slip
    (``MAX_LAY_CHANGE``, ``MAX_SLIP``), else ``b`` as it is."""
    h, w = sharp_a.shape
    _, warp = _fit(sharp_a, sharp_b)
    if not _small_slip(warp, h):
        return sharp_b
    return cv2.warpAffine(sharp_b, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def slip_fit(sharp_a: np.ndarray, sharp_b: np.ndarray) -> float:
    """How well ``b`` laid on ``a`` by their affine fit matches it (correlation) when that
    fit is a calibration's slip (``MAX_LAY_CHANGE``, ``MAX_SLIP``); 0 otherwise."""
    fit, warp = _fit(sharp_a, sharp_b)
    return float(fit) if _small_slip(warp, sharp_a.shape[0]) else 0.0


def _fit(sharp_a: np.ndarray, sharp_b: np.ndarray) -> tuple:
    """The affine fit laying ``b`` on ``a``: (correlation, warp), or (0, None) when it fails."""
    try:
        return cv2.findTransformECC(unit(sharp_a).astype(np.float32), unit(sharp_b).astype(np.float32),
                                    np.eye(2, 3, dtype=np.float32), cv2.MOTION_AFFINE,
                                    (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4), None, 3)
    except cv2.error:
        return 0.0, None


def _small_slip(warp, h: int) -> bool:
    """Whether an affine fit (None: failed) lays one face on another as a calibration's
    slip does: scale and shear within ``MAX_LAY_CHANGE``, a shift within ``MAX_SLIP`` of
    the face's height."""
    return warp is not None and float(np.abs(warp[:, :2] - np.eye(2)).max()) <= MAX_LAY_CHANGE \
        and float(np.abs(warp[:, 2]).max()) <= MAX_SLIP * h


def sign_places(sharp_a: np.ndarray, sharp_b: np.ndarray) -> tuple:
    """Where two twins (same rank and colour: K♠/K♣, Q♥/Q♦) differ in shape: their suit
    signs (corner indices, pips). Returns ``(b_laid, places)``: template ``b`` laid on
    ``a`` (:func:`laid_on`) and up to ``MAX_PLACES`` places as :func:`places` gives
    them, the most different in shape first. Parts the two faces share, calibrated a few
    pixels apart, are not taken for signs, nor is print only one face holds.
    Where the places that reach ``SIGN_FLOOR`` weigh less than ``MIN_EVIDENCE`` (a duel
    over them could then never be clear), those of ``SMALL_SIGN_FLOOR`` are found too and
    the set that weighs more is kept: a small-pip tuning design's ten of spades and ten
    of clubs, seen 110 px long, had only their two corner signs over the floor (weight
    23), and their ten pips each a little under it; every such ten was refused, its
    sign look capped at 0.1-0.2. With the pips, that session (``clean_cases`` seed 884,
    gen-5 on the grey A3 mat) read 162 of its 169 whole cards (142 before), its black
    nines and tens named but for one, none wrongly; the other kept tuning sessions
    (seeds 881-887, 920, 929) read as before but for one card more."""
    b, covered, cut = _laid_on(sharp_a, sharp_b)
    h, w = sharp_a.shape
    m = max(2, int(round(INSET * h)))
    d = (shape_difference(sharp_a, b) * covered)[m:h - m, m:w - m]
    inner = covered[m:h - m, m:w - m]
    top = float(np.percentile(d[inner], 99.5)) if inner.any() else 0.0
    # Small signs are looked for only between faces cut alike: a face cut off the card's
    # outline has its corners left out (``SIGN_CUT``), and what is left of its index
    # signs there is their fringe.
    floors = ((SIGN_FLOOR, 1),) if cut else ((SIGN_FLOOR, 1), (SMALL_SIGN_FLOOR, SMALL_SIGN_COUNT))
    found = []                                   # (weight, places) of each floor's signs
    for floor, least in floors:
        mask = (d > max(floor / 2, SIGN_LEVEL * top)).astype(np.uint8)
        signs = [p for p in _places_of(sharp_a, b, d, mask, m, rank=True)
                 if float(d[p[0] - m:p[1] - m, p[2] - m:p[3] - m].max()) >= floor]
        if len(signs) >= least:
            weight = sum(p[5] for p in signs)
            if weight >= MIN_EVIDENCE:
                return b, signs
            # Too little to go on (a small-pip deck's two corner signs): the small signs
            # are looked for as well, and the places that weigh more are kept.
            found.append((weight, signs))
    return b, (max(found, key=lambda f: f[0])[1] if found else [])


def sign_look(view_sharp: np.ndarray, sharp_a: np.ndarray, b_laid: np.ndarray, signs, patches=None) -> float:
    """Whether the view's suit signs are ``a``'s or ``b``'s (twins: same rank and colour;
    ``b_laid`` and ``signs`` from :func:`sign_places`): about 1 for ``a``, -1 for ``b``,
    0 when the signs cannot be told (or nothing like either lies there: a finger). It is
    the :func:`duel` at the signs only (``patches`` as there)."""
    return duel(view_sharp, sharp_a, b_laid, signs, patches)


def _places_of(sharp_a, sharp_b, d, mask, m, rank=False) -> list:
    """Boxes around the connected parts of ``mask`` (a map of the compared part), each
    with its weights (see :func:`places`); ``rank``: ordered by ``d``'s sum in the box
    rather than by the weights'."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    hh, ww = d.shape
    # Large parts are cut into pieces, each a place that slips on its own.
    step_y, step_x = max(8, hh // 6), max(8, ww // 4)
    boxes = []
    for k in range(1, n):
        bx, by, bw, bh, area = stats[k]
        if area < 6:
            continue
        for yy in range(by, by + bh, step_y):
            for xx in range(bx, bx + bw, step_x):
                sub = labels[yy:min(yy + step_y, by + bh), xx:min(xx + step_x, bx + bw)] == k
                if sub.sum() < 6:
                    continue
                ys, xs = np.nonzero(sub)
                boxes.append((max(yy + ys.min() - PLACE_PAD, 0) + m, min(yy + ys.max() + 1 + PLACE_PAD, hh) + m,
                              max(xx + xs.min() - PLACE_PAD, 0) + m, min(xx + xs.max() + 1 + PLACE_PAD, ww) + m))
    found = places_at(sharp_a, sharp_b, boxes)
    if rank:
        return sorted(found, key=lambda p: -float(d[p[0] - m:p[1] - m, p[2] - m:p[3] - m].sum()))[:MAX_PLACES]
    return sorted(found, key=lambda p: -p[5])[:MAX_PLACES]


def places_at(sharp_a: np.ndarray, sharp_b_laid: np.ndarray, boxes) -> list:
    """The places of ``boxes`` (y0, y1, x0, x1) on ``sharp_a``, each with its weights where
    ``sharp_b_laid`` (laid on it) differs, in the order given, as :func:`sign_places` gives
    them; boxes where the two do not differ are left out. (Also to compare two faces at
    places found from the other side.)"""
    out = []
    for (y0, y1, x0, x1) in boxes:
        ta = sharp_a[y0:y1, x0:x1]
        rb = sharp_b_laid[max(y0 - PLACE_SHIFT, 0):y1 + PLACE_SHIFT, max(x0 - PLACE_SHIFT, 0):x1 + PLACE_SHIFT]
        if rb.shape[0] < ta.shape[0] or rb.shape[1] < ta.shape[1] or ta.std() < 1e-3:
            continue
        r = cv2.matchTemplate(rb, ta, cv2.TM_CCOEFF_NORMED)
        _, _, _, (dx, dy) = cv2.minMaxLoc(r)
        tb = rb[dy:dy + ta.shape[0], dx:dx + ta.shape[1]]
        weights = cv2.GaussianBlur(np.abs(_norm(ta) - _norm(tb)), (0, 0), 0.7)
        weights = np.where(weights > 0.25, weights, 0.0).astype(np.float32)
        total = float(weights.sum())
        if total > 0:
            out.append((y0, y1, x0, x1, weights, total))
    return out


MIN_EVIDENCE = 60.0
"""Least total weight of the places for a duel to count fully: a pair that differs in a
few noisy pixels only is not told apart by them."""


def duel_patches(sharp_a: np.ndarray, sharp_b: np.ndarray, boxes) -> list:
    """The two templates' patches at each place of :func:`duel` and their normalized
    print, worked out once per pair (the deck keeps them) rather than at every duel."""
    out = []
    for (y0, y1, x0, x1, _, _) in boxes:
        ta, tb = sharp_a[y0:y1, x0:x1], sharp_b[y0:y1, x0:x1]
        out.append(((ta, _norm(ta)), (tb, _norm(tb))))
    return out


def duel(view_sharp: np.ndarray, sharp_a: np.ndarray, sharp_b: np.ndarray, boxes, patches=None) -> float:
    """How much more the view looks like ``a`` than ``b`` at the places they differ:
    about 1 when it is exactly ``a``, -1 exactly ``b``, 0 when it cannot be told. At
    each place each template slips up to ``PLACE_SHIFT`` px to fit the view on its own;
    the view is then compared with each only on the pixels where the two differ.
    ``patches``: :func:`duel_patches` of the same templates and places, when kept."""
    if patches is None:
        patches = duel_patches(sharp_a, sharp_b, boxes)
    total = weight = 0.0
    for box, pair in zip(boxes, patches, strict=True):
        wmap, wsum = box[4], box[5]
        weight += wsum
        fits = _place_fits(view_sharp, box, pair)
        if fits is None:
            continue
        if max(fits[0][0], fits[1][0]) < PLACE_MIN:
            continue     # something else lies there: this place's weight counts for neither
        # The differences are weighed only at a place that counts (the same sums as ever).
        ra, rb = (float((wmap * (_norm(v) - t_norm) ** 2).sum()) for (_, v), (_, t_norm) in zip(fits, pair))
        total += wsum * (rb - ra) / (rb + ra + 1e-6)
    return total / max(weight, MIN_EVIDENCE)


def _place_fits(view_sharp: np.ndarray, box, pair) -> Optional[list]:
    """Each template's patch of ``pair`` (:func:`duel_patches`) slipped up to
    ``PLACE_SHIFT`` px to fit the view at ``box`` (a place): ``(correlation, the view's
    patch where it fits)`` for each, or None where the view leaves no room to slip."""
    y0, y1, x0, x1 = box[:4]
    ta = pair[0][0]
    region = view_sharp[max(y0 - PLACE_SHIFT, 0):y1 + PLACE_SHIFT, max(x0 - PLACE_SHIFT, 0):x1 + PLACE_SHIFT]
    if region.shape[0] < ta.shape[0] or region.shape[1] < ta.shape[1]:
        return None
    fits = []
    for t, _ in pair:
        r = cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED)
        _, best, _, (dx, dy) = cv2.minMaxLoc(r)
        fits.append((best, region[dy:dy + t.shape[0], dx:dx + t.shape[1]]))
    return fits


def signs_fit(view_sharp: np.ndarray, boxes, patches) -> float:
    """How well the view lies on a pair of templates at their places (``boxes`` and
    ``patches`` as :func:`duel` takes them): the mean, over the places, of the better of
    the two templates' correlations there (:func:`_place_fits`). It says whether the view
    is laid where the templates' print is, whichever of the two it shows."""
    fits = [f for f in (_place_fits(view_sharp, box, pair) for box, pair in zip(boxes, patches, strict=True))
            if f is not None]
    return float(np.mean([max(a[0], b[0]) for a, b in fits])) if fits else -1.0


MAX_LAY_SCALE = 0.1
"""Largest change of scale (per axis) by which a view is laid on a template from its
patches' slips (:func:`laid_view`)."""


def laid_view(view_sharp: np.ndarray, parts, offsets) -> np.ndarray:
    """The view's sharp face laid on a template: the slips its soft patches found
    (:func:`patch_match`'s ``offsets`` against the template whose :func:`soft_parts` are
    ``parts``) fitted as a shift and a change of scale along each axis, and the view
    warped by it, so that the close look compares places that lie where the template's
    do (a view straightened from an outline found a little inside or outside the card,
    or a face seen at a slant, is a few per cent larger or smaller than the template)."""
    patches = parts[0]
    h, w = view_sharp.shape
    pts, offs = [], []
    for ((py0, py1, px0, px1), t), (dy, dx) in zip(patches, offsets):
        if t is None:
            continue                 # a blank patch does not slip: it says nothing
        pts.append(((py0 + py1) / 2, (px0 + px1) / 2))
        offs.append((dy, dx))
    if not pts:
        return view_sharp
    pts, offs = np.asarray(pts, float), np.asarray(offs, float)
    # Soft px to sharp px (the soft face is the sharp one at about SOFT_SCALE).
    sh, sw = max(8, int(round(h * SOFT_SCALE))), max(8, int(round(w * SOFT_SCALE)))
    fy, fx = h / sh, w / sw
    m = np.zeros((2, 3), np.float32)
    for axis, (col, f) in enumerate(((1, fx), (0, fy))):
        p, d = (pts[:, col] + 0.5) * f - 0.5, offs[:, col] * f
        if np.ptp(p) > 0:
            # The least-squares line through (p, d), written out: about p's mean, the
            # slope and the mean are fitted apart (a tenth of lstsq's time, many times a frame).
            centred = p - p.mean()
            s = float((centred * d).sum() / (centred * centred).sum())
            s = float(np.clip(s, -MAX_LAY_SCALE, MAX_LAY_SCALE))
            t = float(d.mean()) - s * float(p.mean())
        else:
            s, t = 0.0, float(d.mean())
        m[axis, axis] = 1.0 + s
        m[axis, 2] = t
    # Template pixel p lies at view pixel p + s (p - mean) + t: sample the view there.
    return cv2.warpAffine(view_sharp, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)

