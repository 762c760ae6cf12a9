"""Busy table surfaces of our own for tuning the single-photo finder: a berber carpet, a light wood with strong grain, a woven sisal mat, terrazzo, veined stone tiles, glazed tiles.

They are drawn here (not by vision.synth_surfaces) so that the benchmark's own carpet,
wood and tile surfaces stay unseen while the finder is tuned. ``registered()`` makes
them known to the renderer as ``tune:<kind>`` for the time of a ``with`` block.

>>> with registered():                                            # doctest: +SKIP
...     img, truth = compose_frame(places, surface="tune:berber")
"""
from __future__ import annotations

import contextlib

import cv2
import numpy as np

KINDS = ("berber", "grain", "sisal", "terrazzo")
PATTERNS = ("gingham", "stripes", "plaid")
"""Printed cloths of our own (``tune:<pattern>``), for tuning the reader on patterned
tables; not part of the busy split (whose sessions stay the same)."""
PRINTS = ("camouflage",)
"""Printed cloths of our own with large blobs of dark colour on a light ground
(``tune:camouflage``), for tuning the live reader on busy prints; in no group."""
STONES = ("slate", "flags")
"""Stone floor tiles of our own, light stone with thin dark veins set with grout: square
tiles of 15-30 cm (``tune:slate``), or oblong flags of 9-18 cm by 1.3-1.6 times that
(``tune:flags``: a tile of a card's proportions, twice its size), for tuning photo mode on
veined tiles; in no group."""
GLAZES = ("glaze",)
"""Glazed ceramic floor tiles of our own (``tune:glaze``): small plain square tiles of
7-16 cm, mostly white or cream, each a shade of its own, with a soft sheen and a narrow
grout, for tuning photo mode on plain tiles as light as a card; in no group."""
PILES = ("fleece",)
"""Long-pile rugs of our own (``tune:fleece``: tufts of fibres lying in a direction that
wanders over the rug, light tips over deep shade), for tuning photo mode on a pile; in
no group."""
GROUPS = {"busy": tuple(f"tune:{k}" for k in KINDS), "patterned": tuple(f"tune:{k}" for k in PATTERNS),
          "white-mat-busy": tuple(f"mat:A4:white:tune:{k}" for k in KINDS),
          "light": ("cloth:linen", "cloth:ivory", "felt:linen", "felt:ivory"),
          "pale": ("cloth:snow", "cloth:chalk", "felt:snow", "felt:chalk"),
          "mat-busy": tuple(f"mat:A4:tune:{k}" for k in KINDS)}
"""The tools' own surface groups (under the tuning split's camera): ``busy`` (these
textures, the busy split of ``bench.vision_plain``), ``patterned`` (the printed cloths),
``white-mat-busy`` (the all-white A4 mat laid on the busy ones) and ``light`` (near-white
cloth and felt in the renderer's colours linen and ivory, which no split uses: the
tuning counterpart of the validation split's white and beige cloths) and ``pale`` (cloth
and felt in snow and chalk, as light as a card's paper or lighter, where a cream deck is
darker than the table) and ``mat-busy`` (the project's grey A4 mat laid on the busy
textures: the tuning counterpart of the validation split's A4 mat on a loop carpet). All but ``busy``
run only when asked for by name (each group's sessions are drawn by its place here: a
group added at the end changes none of the others')."""


ALL = KINDS + PATTERNS + PRINTS + PILES + STONES + GLAZES
"""Every ``tune:<kind>`` this module draws."""


def _blur_noise(rng, shape, sigma_px: float) -> np.ndarray:
    n = rng.standard_normal(shape).astype(np.float32)
    if sigma_px > 0.3:
        n = cv2.GaussianBlur(n, (0, 0), sigma_px)
    return n / max(float(n.std()), 1e-6)


def texture(kind: str, shape, ppm: float, rng) -> np.ndarray:
    """A ``kind`` surface (float BGR, 0..255) of ``shape`` pixels at ``ppm`` px per mm."""
    h, w = shape
    if kind == "berber":
        base = np.array(rng.choice([[150, 170, 185], [120, 120, 125], [90, 110, 140], [170, 175, 175]]),
                        np.float32) * np.float32(rng.uniform(0.8, 1.15))
        loops = _blur_noise(rng, shape, 0.6 * ppm)
        fleck = (rng.random(shape) < 0.06).astype(np.float32)
        fleck = cv2.GaussianBlur(fleck, (0, 0), max(0.5, 0.5 * ppm)) * 4
        img = base * (1.0 + 0.25 * loops - 0.35 * np.clip(fleck, 0, 1))[:, :, None]
    elif kind == "grain":
        base = np.array(rng.choice([[120, 175, 215], [140, 190, 225], [90, 140, 190]]), np.float32)
        angle = rng.uniform(0, np.pi)
        big = max(h, w) * 2
        n = rng.standard_normal((big // 8 + 1, big)).astype(np.float32)
        n = cv2.GaussianBlur(n, (0, 0), sigmaX=max(1.0, 0.5 * ppm), sigmaY=0.1)
        n = cv2.resize(n, (big, big), interpolation=cv2.INTER_LINEAR)   # streaks along y... then turned
        n = cv2.GaussianBlur(n, (0, 0), sigmaX=0.1, sigmaY=25 * ppm)
        m = cv2.getRotationMatrix2D((big / 2, big / 2), float(np.degrees(angle)), 1.0)
        n = cv2.warpAffine(n, m, (big, big))[big // 2 - h // 2: big // 2 - h // 2 + h,
                                             big // 2 - w // 2: big // 2 - w // 2 + w]
        n = n / max(float(n.std()), 1e-6)
        streak = np.clip(n, 0, None) ** 1.5
        img = base * (1.0 - 0.22 * streak + 0.05 * _blur_noise(rng, shape, 20 * ppm))[:, :, None]
    elif kind == "sisal":
        base = np.array(rng.choice([[110, 160, 190], [90, 130, 160], [150, 160, 170]]), np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / np.float32(ppm)
        period = rng.uniform(3.0, 6.0)
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = -xx * np.sin(a) + yy * np.cos(a)
        weave = np.sin(2 * np.pi * u / period) * np.sign(np.sin(np.pi * v / period))
        img = base * (1.0 + 0.18 * weave + 0.1 * _blur_noise(rng, shape, 0.5 * ppm))[:, :, None]
    elif kind == "terrazzo":
        base = np.array(rng.choice([[200, 200, 195], [175, 185, 190], [150, 150, 150]]), np.float32)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        chips = int(h * w / (ppm * ppm) / 40)
        for _ in range(chips):
            c = tuple(float(x) for x in rng.uniform(30, 230, 3))
            r = max(1, int(rng.uniform(0.8, 4.0) * ppm))
            cv2.circle(img, (int(rng.integers(w)), int(rng.integers(h))), r, c, -1)
        img *= (1.0 + 0.05 * _blur_noise(rng, shape, 0.5 * ppm))[:, :, None]
    elif kind in PATTERNS:
        img = _pattern(kind, shape, ppm, rng)
    elif kind == "camouflage":
        img = _camouflage(shape, ppm, rng)
    elif kind == "fleece":
        img = _fleece(shape, ppm, rng)
    elif kind in STONES:
        img = _slate(shape, ppm, rng, oblong=kind == "flags")
    elif kind in GLAZES:
        img = _glaze(shape, ppm, rng)
    else:
        raise ValueError(f"unknown tuning texture {kind!r}: choose {', '.join(ALL)}")
    return img


def _turned(shape, ppm: float, angle: float) -> tuple:
    """Millimetre coordinates (u, v) of each pixel of ``shape`` along axes turned by
    ``angle`` (radians): the grid a floor's tiles or a cloth's print is laid on."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / np.float32(ppm)
    return xx * np.cos(angle) + yy * np.sin(angle), -xx * np.sin(angle) + yy * np.cos(angle)


def _pattern(kind: str, shape, ppm: float, rng) -> np.ndarray:
    """A woven cloth printed with crisp bands of colour: checks of two colours
    (``gingham``), bands of two or three colours across it (``stripes``), or bands of
    several colours and widths both ways (``plaid``), each turned by any angle."""
    u, v = _turned(shape, ppm, rng.uniform(0, np.pi))
    colours = rng.uniform(30, 230, (4, 3)).astype(np.float32)
    colours[0] = rng.uniform(170, 240, 3)           # a light ground
    if kind == "gingham":
        period = rng.uniform(6.0, 16.0)
        band_u = (np.floor(u / (period / 2)) % 2).astype(np.float32)
        band_v = (np.floor(v / (period / 2)) % 2).astype(np.float32)
        k = (0.5 * (band_u + band_v))[:, :, None]
        img = colours[0] * (1 - k) + colours[1] * k
    else:
        widths = rng.uniform(2.0, 12.0, 6)
        edges = np.cumsum(widths)
        which = rng.integers(0, 3 if kind == "stripes" else 4, 6)
        idx_u = which[np.searchsorted(edges, u % edges[-1], side="right").clip(0, 5)]
        img = colours[idx_u]
        if kind == "plaid":
            idx_v = which[np.searchsorted(edges, v % edges[-1], side="right").clip(0, 5)]
            img = 0.5 * (img + colours[idx_v])
    img = img * (1.0 + 0.04 * _blur_noise(rng, shape, 0.3 * ppm))[:, :, None]
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.4)


def _slate(shape, ppm: float, rng, oblong: bool = False) -> np.ndarray:
    """Square stone tiles, 15-30 cm, laid in a grid turned by any angle with grout 2-5 mm
    wide (lighter or darker than the stone); each tile a light stone whose shade varies a
    little, crossed by thin dark veins (where a smooth noise field passes through zero).
    ``oblong``: tiles 0.6 times that wide and 1.3-1.6 times as long as wide."""
    h, w = shape
    u, v = _turned(shape, ppm, rng.uniform(0, np.pi / 2))
    side, grout = rng.uniform(150.0, 300.0), rng.uniform(2.0, 5.0)
    side_v = side
    if oblong:
        side *= 0.6
        side_v = side * rng.uniform(1.3, 1.6)
    stone = np.float32(rng.uniform(175, 235)) + rng.uniform(-12, 12, 3).astype(np.float32)   # near grey
    img = np.empty((h, w, 3), np.float32)
    img[:] = stone
    tile = (np.floor(u / side) * 7 + np.floor(v / side_v) * 13).astype(np.int64)
    shade = 1.0 + 0.06 * np.sin(tile * 2.39996).astype(np.float32)
    field = _blur_noise(rng, shape, 12 * ppm) + 0.4 * _blur_noise(rng, shape, 3 * ppm)
    veins = np.exp(-(field / 0.06) ** 2).astype(np.float32)
    img *= (shade * (1.0 - rng.uniform(0.25, 0.5) * veins))[:, :, None]
    joint = (np.minimum(u % side, v % side_v) < grout)[:, :, None]
    img = np.where(joint, np.float32(rng.uniform(60, 200)) + rng.uniform(-8, 8, 3).astype(np.float32), img)
    img *= (1.0 + 0.03 * _blur_noise(rng, shape, 0.5 * ppm))[:, :, None]
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.4)


def _glaze(shape, ppm: float, rng) -> np.ndarray:
    """Plain glazed square tiles, 7-16 cm, in a grid turned by any angle with grout 1.5-4 mm
    wide (grey, near white or dark); the glaze white, cream or a pale colour (now and then a
    strong one), each tile a little lighter or darker than the next, a thin darker bevel
    along its edges, and a broad soft sheen of the room's light across the floor."""
    u, v = _turned(shape, ppm, rng.uniform(0, np.pi / 2))
    side, grout = rng.uniform(70.0, 160.0), rng.uniform(1.5, 4.0)
    colours = [[238, 240, 240], [226, 236, 242], [232, 232, 228], [200, 215, 225], [215, 205, 190],
               [190, 205, 190], [70, 100, 175], [150, 110, 60]]
    weights = np.array([5, 3, 3, 2, 2, 1, 1, 1], float)
    glaze = np.array(colours[int(rng.choice(len(colours), p=weights / weights.sum()))], np.float32)
    glaze *= np.float32(rng.uniform(0.9, 1.05))
    tile = (np.floor(u / side) * 7 + np.floor(v / side) * 13).astype(np.int64)
    shade = (1.0 + rng.uniform(0.02, 0.06) * np.sin(tile * 2.39996)).astype(np.float32)
    edge = np.minimum(np.minimum(u % side, side - u % side), np.minimum(v % side, side - v % side))
    bevel = 1.0 - 0.08 * np.exp(-np.maximum(edge - grout, 0) / 1.5).astype(np.float32)
    sheen = np.clip(_blur_noise(rng, shape, 60 * ppm), 0, None) * np.float32(rng.uniform(0.03, 0.1))
    img = glaze * (shade * bevel * (1.0 + sheen))[:, :, None]
    grout_colour = np.array(rng.choice([[150, 150, 150], [215, 218, 220], [90, 90, 95], [170, 180, 190]]),
                            np.float32)
    joint = (np.minimum(u % side, v % side) < grout)[:, :, None]
    img = np.where(joint, grout_colour, img)
    img *= (1.0 + 0.02 * _blur_noise(rng, shape, 0.5 * ppm))[:, :, None]
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.4)


def _fleece(shape, ppm: float, rng) -> np.ndarray:
    """A long-pile rug: strokes of fibre, 4-14 mm long, drawn one by one in a direction
    that wanders slowly over the rug (tufts lie together), each lighter or darker than
    the next, over a ground in deep shade between the tufts."""
    h, w = shape
    colour = np.array(rng.choice([[200, 205, 210], [150, 170, 190], [110, 120, 150], [80, 90, 95],
                                  [175, 195, 215]]), np.float32) * np.float32(rng.uniform(0.8, 1.1))
    img = np.zeros((h, w), np.float32)
    img[:] = 0.45
    # The pile's direction: a smooth field of angles, a few tufts across.
    angle = _blur_noise(rng, (max(2, h // 8), max(2, w // 8)), 15.0 * ppm / 8) * np.float32(1.2) \
        + np.float32(rng.uniform(0, np.pi))
    angle = cv2.resize(angle, (w, h), interpolation=cv2.INTER_LINEAR)
    strokes = int(h * w / (ppm * ppm) * 0.9)
    xs, ys = rng.uniform(0, w, strokes), rng.uniform(0, h, strokes)
    lengths = rng.uniform(4.0, 14.0, strokes) * ppm / 2
    shades = rng.uniform(0.55, 1.25, strokes)
    thick = max(1, int(round(0.8 * ppm)))
    for x, y, half, shade in zip(xs, ys, lengths, shades):
        a = float(angle[int(y), int(x)]) + rng.normal(0, 0.25)
        dx, dy = half * np.cos(a), half * np.sin(a)
        cv2.line(img, (int(x - dx), int(y - dy)), (int(x + dx), int(y + dy)), float(shade), thick,
                 cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), max(0.5, 0.3 * ppm))
    return colour * img[:, :, None]


def _camouflage(shape, ppm: float, rng) -> np.ndarray:
    """A light ground (cream, sand or pale grey) printed with crisp irregular blobs, tens
    of millimetres across, of a dark colour, some of them holding blobs of a second, and
    small dots of a third, on a faint weave."""
    h, w = shape
    ground = np.array(rng.choice([[175, 190, 200], [160, 185, 205], [185, 185, 180]]), np.float32)
    dark = np.array(rng.choice([[35, 35, 35], [40, 60, 45], [60, 45, 35]]), np.float32)
    second = np.array(rng.choice([[40, 35, 110], [60, 90, 60], [90, 110, 130]]), np.float32)
    third = np.array(rng.choice([[60, 110, 50], [50, 50, 140], [150, 120, 60]]), np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = ground
    blobs = _blur_noise(rng, shape, rng.uniform(6.0, 10.0) * ppm)
    img[blobs > 0.4] = dark
    inner = _blur_noise(rng, shape, rng.uniform(3.0, 5.0) * ppm)
    img[(blobs > 0.4) & (inner > 1.0)] = second
    dots = _blur_noise(rng, shape, 1.5 * ppm)
    img[dots > 2.6] = third
    img = cv2.GaussianBlur(img, (0, 0), max(0.4, 0.15 * ppm))
    weave = ((np.add.outer(np.arange(h), np.arange(w)) // max(1, int(round(ppm)))) % 2).astype(np.float32)
    return img * (1.0 + 0.03 * weave + 0.03 * _blur_noise(rng, shape, 0.5 * ppm))[:, :, None]


@contextlib.contextmanager
def registered():
    """The renderer knows ``tune:<kind>`` surfaces inside this block."""
    import vision.synth_surfaces as ss
    orig_parse, orig_tex = ss.parse, ss.surface_texture

    def parse(spec):
        if isinstance(spec, str) and spec.startswith("tune:"):
            kind = spec.split(":", 1)[1]
            if kind not in ALL:
                raise ss.SurfaceError(f"unknown tuning texture {spec!r}")
            return "tune", [kind]
        return orig_parse(spec)

    def surface_texture(spec, region, ppm, rng=None, layout=None):
        if isinstance(spec, str) and spec.startswith("tune:"):
            x0, y0, x1, y1 = (float(v) for v in region)
            shape = (max(1, int(round((y1 - y0) * ppm))), max(1, int(round((x1 - x0) * ppm))))
            img = texture(spec.split(":", 1)[1], shape, ppm, ss._rng(rng))
            return np.clip(img, 0, 255).astype(np.uint8)
        return orig_tex(spec, region, ppm, rng, layout)

    ss.parse, ss.surface_texture = parse, surface_texture
    try:
        yield
    finally:
        ss.parse, ss.surface_texture = orig_parse, orig_tex
