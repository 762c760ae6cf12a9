"""Table surfaces for synthetic frames, drawn in table millimetres: cloth, felt, wood, patterned cloth, carpet, tiles, and the printed paper mat.

A surface is named by a string (see :func:`surface_texture`), e.g. ``"wood:walnut:gloss"``,
``"felt:burgundy"``, ``"pattern:checks"``, ``"mat:A3:wood:oak:satin"`` (the project's
printed mat lying on an oak table; ``"mat:A3:white:wood:oak:satin"``: the older white mat). Textures are drawn over a rectangle of the table
at a given resolution, so that the camera's view of them has its true scale and
perspective; each call varies shades, grain and layout with its random generator.

>>> img = surface_texture("felt:green", (0, 0, 100, 50), 2.0, rng=1)
>>> img.shape, img.dtype.name
((100, 200, 3), 'uint8')
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

# Colours are BGR.
CLOTH_COLOURS = {
    "green": (48, 112, 36), "blue": (120, 66, 28), "red": (38, 34, 128),
    "wood": (52, 86, 128), "grey": (105, 105, 100), "dark": (38, 36, 34),
    "teal": (100, 100, 20), "purple": (90, 40, 80), "beige": (170, 200, 215),
    "white": (225, 228, 230), "yellow": (60, 190, 215), "orange": (40, 120, 225),
    "navy": (80, 40, 25), "burgundy": (45, 30, 100), "black": (25, 24, 24),
    "tan": (110, 150, 180), "sky": (210, 170, 120), "pink": (180, 160, 230),
    "brown": (40, 60, 95), "olive": (40, 110, 110),
    # Near-white colours no split uses: the tuning tools' light tables (textures.GROUPS["light"]).
    "linen": (200, 214, 222), "ivory": (212, 230, 236),
    # As light as card paper or lighter: the tuning tools' pale tables (textures.GROUPS["pale"]).
    "snow": (240, 242, 243), "chalk": (232, 234, 230),
}
"""Named colours of cloth and felt (BGR)."""

# Wood species: early-wood and late-wood colours (BGR), ring spacing (mm), ring contrast,
# pore streaks, knots per square metre.
WOODS = {
    "oak": ((120, 170, 205), (75, 120, 165), 3.5, 0.42, 0.5, 0.0),
    "walnut": ((55, 80, 110), (30, 45, 70), 4.0, 0.5, 0.4, 0.0),
    "pine": ((150, 205, 230), (80, 140, 200), 6.0, 0.65, 0.15, 4.0),
    "maple": ((165, 205, 225), (135, 180, 210), 2.5, 0.3, 0.1, 0.0),
    "cherry": ((70, 110, 165), (45, 75, 130), 3.0, 0.4, 0.2, 0.0),
    "mahogany": ((50, 75, 130), (35, 50, 95), 2.0, 0.35, 0.35, 0.0),
    "greywash": ((170, 175, 175), (120, 125, 128), 4.0, 0.6, 0.4, 0.0),
    "teak": ((70, 115, 160), (45, 80, 120), 3.0, 0.5, 0.3, 0.0),
}
"""Wood species the renderer knows."""

FINISHES = {"matte": 0.0, "satin": 0.35, "gloss": 0.8}
"""Finish name → strength of the varnish's reflections."""

PATTERNS = ("checks", "stripes", "tartan", "print", "dots")
CARPETS = ("loop", "shag")
TILES = ("ceramic", "marble")

# Colours printed patterns pick from (BGR): light and dark, muted and bright.
_PALETTE = [(235, 235, 235), (245, 240, 230), (40, 40, 170), (160, 80, 30), (40, 120, 40),
            (30, 30, 30), (60, 180, 220), (150, 60, 140), (200, 200, 120), (90, 90, 90),
            (120, 180, 240), (70, 40, 110)]


class SurfaceError(ValueError):
    """A surface name the renderer does not know, with the known ones."""


def known_surfaces() -> str:
    return ("cloth:<colour>, felt:<colour>, wood:<species>:<finish>, pattern:<kind>, "
            "carpet:<kind>, tiles:<kind>, mat:<A3|A4>[:white]:<surface>; colours: "
            + ", ".join(CLOTH_COLOURS) + "; woods: " + ", ".join(WOODS) + "; finishes: "
            + ", ".join(FINISHES) + "; patterns: " + ", ".join(PATTERNS) + "; carpets: "
            + ", ".join(CARPETS) + "; tiles: " + ", ".join(TILES))


def parse(spec: str) -> tuple:
    """``"wood:oak:gloss"`` → ``("wood", ["oak", "gloss"])``; SurfaceError if unknown."""
    if not isinstance(spec, str) or not spec:
        raise SurfaceError(f"surface {spec!r}: give a name such as 'felt:green'; known: {known_surfaces()}")
    kind, *args = spec.split(":")
    ok = True
    if kind in ("cloth", "felt"):
        ok = len(args) == 1 and (args[0] in CLOTH_COLOURS or _is_hex(args[0]))
    elif kind == "wood":
        ok = len(args) in (1, 2) and args[0] in WOODS and (len(args) == 1 or args[1] in FINISHES)
    elif kind == "pattern":
        ok = len(args) == 1 and args[0] in PATTERNS
    elif kind == "carpet":
        ok = len(args) == 1 and args[0] in CARPETS
    elif kind == "tiles":
        ok = len(args) == 1 and args[0] in TILES
    elif kind == "mat":
        ok = len(args) >= 2 and args[0].upper() in ("A3", "A4")
        if ok:
            parse(":".join(mat_under(args)))
    else:
        ok = False
    if not ok:
        raise SurfaceError(f"unknown surface {spec!r}: known are {known_surfaces()}")
    return kind, args


def mat_under(args) -> list:
    """The surface under a mat spec's paper: ``["A3", "white", "wood", "oak"]`` (the
    older white mat) and ``["A3", "wood", "oak"]`` (the grey-ground mat) both give
    ``["wood", "oak"]``."""
    return list(args[2:] if len(args) > 2 and args[1] == "white" else args[1:])


def _is_hex(s: str) -> bool:
    return len(s) == 6 and all(ch in "0123456789abcdefABCDEF" for ch in s)


def _colour(name: str) -> np.ndarray:
    if _is_hex(name):
        r, g, b = (int(name[i:i + 2], 16) for i in (0, 2, 4))
        return np.array([b, g, r], np.float32)
    return np.array(CLOTH_COLOURS[name], np.float32)


def _rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _noise(rng, shape, cell_px: float, aniso=(1.0, 1.0)) -> np.ndarray:
    """Smooth noise (float32, about unit variance) with features of ``cell_px`` pixels,
    stretched ``aniso`` (x, y) times; sampled from a coarse grid and scaled up."""
    h, w = shape
    gw = max(2, int(np.ceil(w / (cell_px * aniso[0]))) + 3)
    gh = max(2, int(np.ceil(h / (cell_px * aniso[1]))) + 3)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _rotated_noise(rng, shape, cell_along: float, cell_across: float, angle: float) -> np.ndarray:
    """Noise stretched along direction ``angle`` (radians): streaks along the grain."""
    h, w = shape
    big = int(np.ceil(np.hypot(w, h))) + 4
    n = _noise(rng, (big, big), cell_across, (cell_along / cell_across, 1.0))
    m = cv2.getRotationMatrix2D((big / 2, big / 2), np.degrees(angle), 1.0)
    m[:, 2] += [w / 2 - big / 2, h / 2 - big / 2]
    return cv2.warpAffine(n, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _grid_mm(region, ppm, shape):
    h, w = shape
    x0, y0 = region[0], region[1]
    xs = x0 + (np.arange(w, dtype=np.float32) + 0.5) / ppm
    ys = y0 + (np.arange(h, dtype=np.float32) + 0.5) / ppm
    return xs[None, :], ys[:, None]


# ---------------------------------------------------------------------- kinds
def _cloth(colour, shape, ppm, rng, felt=False) -> np.ndarray:
    h, w = shape
    base = _colour(colour) * np.float32(rng.uniform(0.88, 1.12))
    blotch = _noise(rng, shape, 25 * ppm)
    fine = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.6)
    if felt:
        v = 1.0 + 0.035 * blotch + 0.06 * fine
    else:
        period = rng.uniform(2.5, 5.0)
        weave = np.outer(np.sin(np.arange(h, dtype=np.float32) * np.float32(2 * np.pi / period)),
                         np.sin(np.arange(w, dtype=np.float32) * np.float32(2 * np.pi / period)))
        v = 1.0 + 0.05 * blotch + 0.05 * fine + 0.04 * weave
    return base[None, None, :] * v[:, :, None]


def _wood(species, finish, region, shape, ppm, rng) -> np.ndarray:
    h, w = shape
    early, late, spacing, contrast, pores, knots = WOODS[species]
    early = np.array(early, np.float32) * np.float32(rng.uniform(0.9, 1.1))
    late = np.array(late, np.float32) * np.float32(rng.uniform(0.9, 1.1))
    angle = rng.uniform(0, np.pi)  # the planks' direction on the table
    ca, sa = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    xs, ys = _grid_mm(region, ppm, shape)
    u = xs * ca + ys * sa           # along the grain, mm
    v = -xs * sa + ys * ca          # across the grain, mm
    plank_w = rng.uniform(70, 200) if rng.random() < 0.8 else 1e6  # some tops are one piece
    plank = np.floor((v - rng.uniform(0, plank_w)) / plank_w)
    # Each plank: its own grain offset, ring spacing and shade.
    n_pl = 64
    offs = rng.uniform(0, 1000, n_pl).astype(np.float32)
    shade = rng.uniform(0.88, 1.12, n_pl).astype(np.float32)
    stretch = rng.uniform(0.7, 1.4, n_pl).astype(np.float32)
    k = (plank.astype(np.int64) % n_pl)
    # Rings wander slowly: over tens of centimetres along the board, centimetres across.
    warp = _rotated_noise(rng, shape, 400 * ppm, 90 * ppm, angle) * np.float32(spacing * 3.0)
    warp += _rotated_noise(rng, shape, 200 * ppm, 30 * ppm, angle) * np.float32(spacing * 0.6)
    # Flat-sawn boards show arches ("cathedrals"): rings bend along the board.
    arch = np.sin(u / np.float32(rng.uniform(250, 600)) + offs[k]) * np.float32(rng.uniform(4, 15))
    phase = (v * stretch[k] + arch + warp + offs[k]) / np.float32(spacing)
    t = phase - np.floor(phase)
    # Late wood: a narrower, darker band at the end of each year, fading in.
    ring = np.clip((t - 0.62) / 0.25, 0, 1) ** 1.5 * np.float32(contrast)
    streak = _rotated_noise(rng, shape, 40 * ppm, 0.6 * ppm, angle) * np.float32(0.07 * pores + 0.02)
    mix = np.clip(ring + streak, 0, 1)[:, :, None]
    img = (early * (1 - mix) + late * mix) * shade[k][:, :, None]
    img *= (1.0 + 0.04 * _noise(rng, shape, 80 * ppm))[:, :, None]
    if knots:
        area_m2 = (w / ppm) * (h / ppm) / 1e6
        for _ in range(rng.poisson(knots * area_m2)):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            r = rng.uniform(4, 12) * ppm
            d = np.hypot((np.arange(w, dtype=np.float32) - cx)[None, :],
                         (np.arange(h, dtype=np.float32) - cy)[:, None])
            dark = np.clip(1.3 - d / r, 0, 1)[:, :, None]
            img = img * (1 - 0.55 * dark)
    if plank_w < 1e5:
        # The joints between planks: thin dark lines.
        gap = np.abs(((v - 0) % plank_w))
        edge = np.minimum(gap, plank_w - gap) * ppm
        img *= (0.45 + 0.55 * np.clip(edge / max(1.0, 0.6 * ppm), 0, 1))[:, :, None]
    gloss = FINISHES[finish]
    if gloss:
        img = _reflections(img, shape, rng, gloss)
    return img


def _reflections(img, shape, rng, strength) -> np.ndarray:
    """A varnish's reflections of a window or lamp: broad, soft bright areas."""
    h, w = shape
    out = img
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, np.pi)
        sx, sy = rng.uniform(0.1, 0.35) * w, rng.uniform(0.03, 0.12) * w
        xs = (np.arange(w, dtype=np.float32) - cx)[None, :]
        ys = (np.arange(h, dtype=np.float32) - cy)[:, None]
        p = xs * np.float32(np.cos(a)) + ys * np.float32(np.sin(a))
        q = -xs * np.float32(np.sin(a)) + ys * np.float32(np.cos(a))
        spot = np.exp(-(p * p) / np.float32(2 * sx * sx) - (q * q) / np.float32(2 * sy * sy))
        out = out + (np.float32(255 * strength * rng.uniform(0.25, 0.6)) * spot)[:, :, None]
    return out


def _pattern(kind, region, shape, ppm, rng) -> np.ndarray:
    h, w = shape
    xs, ys = _grid_mm(region, ppm, shape)
    pick = rng.permutation(len(_PALETTE))
    c = [np.array(_PALETTE[i], np.float32) for i in pick[:4]]
    a = rng.uniform(0, np.pi)
    u = xs * np.float32(np.cos(a)) + ys * np.float32(np.sin(a))
    v = -xs * np.float32(np.sin(a)) + ys * np.float32(np.cos(a))
    if kind == "checks":
        s = np.float32(rng.uniform(6, 30))
        bu = ((np.floor(u / s) % 2) == 0).astype(np.float32)
        bv = ((np.floor(v / s) % 2) == 0).astype(np.float32)
        both = (bu * bv)[:, :, None]
        one = np.clip(bu + bv - 2 * bu * bv, 0, 1)[:, :, None]
        img = c[0] * (1 - both - one) + (0.5 * c[0] + 0.5 * c[1]) * one + c[1] * both
    elif kind == "stripes":
        widths = rng.uniform(3, 40, 6).astype(np.float32)
        period = widths.sum()
        t = (u % period)
        edges = np.cumsum(widths)
        idx = np.searchsorted(edges, t.ravel()).reshape(t.shape) % 6
        cols = np.stack([c[i % 4] for i in range(6)])
        img = cols[idx]
    elif kind == "tartan":
        img = np.zeros((h, w, 3), np.float32)
        sett = rng.uniform(40, 120)
        for axis in (u, v):
            t = (axis % np.float32(sett)) / np.float32(sett)
            bands = np.zeros(t.shape, np.int64)
            for _j, edge in enumerate(np.sort(rng.uniform(0, 1, 3))):
                bands += (t > edge)
            cols = np.stack([c[i] for i in range(4)])
            img += 0.5 * cols[bands]
        twill = ((np.floor((u + v) * np.float32(ppm) / 2.0) % 2) * 0.08 + 0.96)
        img *= twill[:, :, None]
    elif kind == "print":
        img = np.empty((h, w, 3), np.float32)
        img[:] = c[0]
        scale = rng.uniform(8, 35)
        n = int(w * h / (ppm * ppm) / (scale * scale) * 0.6) + 1
        for _ in range(min(n, 3000)):
            col = tuple(float(x) for x in c[1 + rng.integers(3)])
            cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            r = max(1, int(scale * ppm * rng.uniform(0.2, 0.6)))
            if rng.random() < 0.5:
                cv2.ellipse(img, (cx, cy), (r, max(1, r // 2)), rng.uniform(0, 180), 0, 360, col, -1,
                            cv2.LINE_AA)
            else:   # a little flower: five petals round a dot
                for k in range(5):
                    ang = 2 * np.pi * k / 5
                    cv2.circle(img, (int(cx + r * np.cos(ang)), int(cy + r * np.sin(ang))),
                               max(1, r // 2), col, -1, cv2.LINE_AA)
    elif kind == "dots":
        s = np.float32(rng.uniform(10, 30))
        r = s * np.float32(rng.uniform(0.15, 0.35))
        du = (u % s) - s / 2
        dv = (v % s) - s / 2
        dot = np.clip((r - np.sqrt(du * du + dv * dv)) * np.float32(ppm) + 0.5, 0, 1)[:, :, None]
        img = c[0] * (1 - dot) + c[1] * dot
    else:  # pragma: no cover - parse() checks the kind
        raise SurfaceError(kind)
    fine = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.6)
    img = img * (1.0 + 0.04 * fine + 0.03 * _noise(rng, shape, 25 * ppm))[:, :, None]
    return cv2.GaussianBlur(img, (0, 0), 0.5)


def _carpet(kind, shape, ppm, rng) -> np.ndarray:
    h, w = shape
    base = np.array(_PALETTE[rng.integers(len(_PALETTE))], np.float32) * np.float32(rng.uniform(0.6, 1.0))
    other = np.array(_PALETTE[rng.integers(len(_PALETTE))], np.float32)
    if kind == "loop":
        loops = _noise(rng, shape, max(1.0, 1.8 * ppm))
        speck = (rng.random(shape) < 0.08).astype(np.float32)
        speck = cv2.GaussianBlur(speck, (0, 0), 0.8) * 3
        pattern = np.clip(_noise(rng, shape, 60 * ppm) * 1.5, -1, 1) * 0.5 + 0.5
        img = base * (1 - 0.35 * pattern[:, :, None]) + other * (0.35 * pattern[:, :, None])
        img = img * (1.0 + 0.18 * loops + 0.1 * speck)[:, :, None]
    else:  # shag: long fibres lying every which way, deep shading
        fib = _rotated_noise(rng, shape, 8 * ppm, 0.7 * ppm, rng.uniform(0, np.pi))
        fib2 = _rotated_noise(rng, shape, 8 * ppm, 0.7 * ppm, rng.uniform(0, np.pi))
        img = base * (1.0 + 0.25 * fib + 0.2 * fib2 + 0.08 * _noise(rng, shape, 30 * ppm))[:, :, None]
    return img


def _tiles(kind, region, shape, ppm, rng) -> np.ndarray:
    h, w = shape
    xs, ys = _grid_mm(region, ppm, shape)
    size = np.float32(rng.uniform(100, 320))
    grout = np.float32(rng.uniform(2, 6))
    a = rng.uniform(0, np.pi / 2)
    u = xs * np.float32(np.cos(a)) + ys * np.float32(np.sin(a)) + np.float32(rng.uniform(0, 500))
    v = -xs * np.float32(np.sin(a)) + ys * np.float32(np.cos(a)) + np.float32(rng.uniform(0, 500))
    iu, iv = np.floor(u / size), np.floor(v / size)
    tile_id = ((iu * 7919 + iv * 104729) % 997).astype(np.int64)
    shades = rng.uniform(0.9, 1.1, 997).astype(np.float32)
    if kind == "ceramic":
        base = np.array(_PALETTE[rng.integers(len(_PALETTE))], np.float32)
        img = base[None, None, :] * shades[tile_id][:, :, None]
        img *= (1.0 + 0.03 * _noise(rng, shape, 5 * ppm))[:, :, None]
    else:  # marble: white or grey with dark veins
        base = np.array((225, 228, 230) if rng.random() < 0.6 else (140, 140, 135), np.float32)
        turb = _noise(rng, shape, 60 * ppm) * 1.2 + _noise(rng, shape, 12 * ppm) * 0.25
        veins = np.abs(np.sin((u + 0.6 * v) / np.float32(rng.uniform(40, 120)) + turb)) ** 40
        cloud = 1.0 + 0.04 * _noise(rng, shape, 30 * ppm)
        img = base[None, None, :] * (shades[tile_id] * cloud * (1 - 0.4 * veins))[:, :, None]
    gu = np.minimum(u % size, size - u % size)
    gv = np.minimum(v % size, size - v % size)
    g = np.clip((np.minimum(gu, gv) - grout / 2) * np.float32(ppm) + 0.5, 0, 1)[:, :, None]
    grout_col = np.array((150, 155, 160) if rng.random() < 0.5 else (70, 70, 75), np.float32)
    img = img * g + grout_col * (1 - g)
    if rng.random() < 0.7:
        img = _reflections(img, shape, rng, 0.5)   # glazed tiles shine
    return img


# ---------------------------------------------------------------------- the mat
@lru_cache(maxsize=8)
def _mat_grey(layout_name: str, ppm_key: float, ground: str = "grey") -> np.ndarray:
    from vision.zones import MatLayout, render_mat
    layout = MatLayout.named(layout_name)
    return np.array(render_mat(layout, px_per_mm=ppm_key, labels=True, ground=ground))


def mat_paper(layout, region, shape, ppm, rng, under: np.ndarray, ground: str = "grey") -> np.ndarray:
    """The printed mat (``vision.zones.render_mat``: white paper, the card area's grey
    ground or white with ``ground="white"``, lines and labels, black markers) laid on the
    surface ``under`` (float32 BGR over the same ``region``): slightly off-white paper,
    not quite flat (a gentle shading and a shift of a fraction of a millimetre), a
    sheen, and a thin shadow along its edges."""
    h, w = shape
    ppm_key = float(np.clip(round(ppm * 2 * 4) / 4, 2.0, 8.0))   # drawn at ~2× for sharp markers
    grey = _mat_grey(layout.name, ppm_key, ground)
    # Shrink with area averaging first (remap alone would alias the markers' edges).
    sx = ppm / ppm_key
    grey = cv2.resize(grey, (max(1, int(round(grey.shape[1] * sx))), max(1, int(round(grey.shape[0] * sx)))),
                      interpolation=cv2.INTER_AREA).astype(np.float32)
    k_x = grey.shape[1] / (layout.width_mm * ppm)     # rounding of the resize
    k_y = grey.shape[0] / (layout.height_mm * ppm)
    # Paper bends: a smooth displacement of up to ~0.4 mm, the same at the markers
    # within a tenth of a millimetre of a flat mat's fit.
    dx = _noise(rng, shape, 120 * ppm) * np.float32(0.15 * ppm)
    dy = _noise(rng, shape, 120 * ppm) * np.float32(0.15 * ppm)
    xs, ys = _grid_mm(region, ppm, shape)
    mx = ((np.broadcast_to(xs, shape) * np.float32(ppm) + dx) * np.float32(k_x)).astype(np.float32)
    my = ((np.broadcast_to(ys, shape) * np.float32(ppm) + dy) * np.float32(k_y)).astype(np.float32)
    paper = cv2.remap(grey, mx - 0.5, my - 0.5, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=-1.0)
    inside = cv2.remap(np.ones_like(grey), mx - 0.5, my - 0.5, cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    tint = np.array((rng.uniform(236, 248), rng.uniform(242, 250), rng.uniform(244, 252)), np.float32)
    ink = np.float32(rng.uniform(18, 40))
    val = np.clip(paper, 0, 255) / 255.0
    img = ink + (tint[None, None, :] - ink) * val[:, :, None]
    # Not flat: the bends shade the paper a few per cent; a sheen where it faces the lamp.
    img *= (1.0 + 0.025 * _noise(rng, shape, 90 * ppm))[:, :, None]
    if rng.random() < 0.6:
        img = _reflections(img, shape, rng, rng.uniform(0.08, 0.25))
    # The paper's edge casts a thin shadow on the table.
    a = np.clip(inside, 0, 1)
    shadow = cv2.GaussianBlur(np.roll(a, (int(round(0.8 * ppm)), int(round(0.8 * ppm))), (0, 1)),
                              (0, 0), max(0.6, 0.8 * ppm))
    under = under * (1.0 - 0.35 * shadow * (1 - a))[:, :, None]
    return img * a[:, :, None] + under * (1 - a[:, :, None])


# ---------------------------------------------------------------------- entry
def surface_texture(spec: str, region, ppm: float, rng=None, layout=None) -> np.ndarray:
    """The table surface ``spec`` over ``region`` = (x0, y0, x1, y1) mm, drawn at ``ppm``
    pixels per mm, as BGR uint8 (rows along y).

    Names: ``cloth:<colour>``, ``felt:<colour>`` (a name of CLOTH_COLOURS or a hex
    RRGGBB), ``wood:<species>[:<finish>]``, ``pattern:<checks|stripes|tartan|print|dots>``,
    ``carpet:<loop|shag>``, ``tiles:<ceramic|marble>``, ``mat:<A3|A4>:<surface>`` (the
    printed mat with its grey card area, at its place on the table, on that surface;
    ``layout`` overrides the mat's layout), ``mat:<A3|A4>:white:<surface>`` (the older
    all-white mat).
    """
    rng = _rng(rng)
    kind, args = parse(spec)
    x0, y0, x1, y1 = (float(v) for v in region)
    w = max(1, int(round((x1 - x0) * ppm)))
    h = max(1, int(round((y1 - y0) * ppm)))
    shape = (h, w)
    if kind == "mat":
        from vision.zones import MatLayout
        under = surface_texture(":".join(mat_under(args)), region, ppm, rng).astype(np.float32)
        lay = layout if layout is not None else MatLayout.named(args[0])
        img = mat_paper(lay, (x0, y0, x1, y1), shape, ppm, rng, under,
                        ground="white" if args[1] == "white" else "grey")
    elif kind in ("cloth", "felt"):
        img = _cloth(args[0], shape, ppm, rng, felt=kind == "felt")
    elif kind == "wood":
        img = _wood(args[0], args[1] if len(args) > 1 else "satin", (x0, y0, x1, y1), shape, ppm, rng)
    elif kind == "pattern":
        img = _pattern(args[0], (x0, y0, x1, y1), shape, ppm, rng)
    elif kind == "carpet":
        img = _carpet(args[0], shape, ppm, rng)
    else:
        img = _tiles(args[0], (x0, y0, x1, y1), shape, ppm, rng)
    return np.clip(img, 0, 255).astype(np.uint8)
