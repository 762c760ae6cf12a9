"""What a camera does to the light after the lens, in the Blender world: optics, vignetting, auto exposure, the sensor's colour filters and noise, demosaicing, white balance, colour matrix, tone curve, sharpening, JPEG.

The input is the linear light Blender rendered, already bent through the lens
(``generate.to_frame``); the output is what a webcam streams or a phone saves: an 8-bit
JPEG. The steps follow a real camera's order, so that noise is added where a sensor adds
it (on the raw mosaic, in electrons, before white balance and the tone curve), auto
exposure and auto white balance measure the scene the way cameras do (a white mat comes
out grey, a coloured cloth tints the cards), and the tone curve is either the plain sRGB
curve of a webcam, washed out, or Blender's Filmic curve (read from Blender's own
colour-management files) for a phone's gentler highlights.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> p = draw_develop("webcam", rng)
>>> frame = np.full((48, 64, 3), 0.05, np.float32)
>>> out, jpeg = develop(frame, p, rng)
>>> out.shape, out.dtype.name, jpeg[:2] == b"\\xff\\xd8"
((48, 64, 3), 'uint8', True)
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np


@dataclass
class Develop:
    """A camera's processing: ``kind`` (webcam or phone); ``blur`` (the lens's softness,
    Gaussian sigma in pixels); ``vignette`` (the cos^p fall-off's p) and
    ``vignette_lens`` (extra darkening at the corners); ``ae_target`` (the linear grey
    auto exposure aims a centre-weighted mean at) and ``ae_bias_ev``; ``max_gain`` (the
    most the exposure can brighten); ``full_well`` (electrons at full scale) and
    ``read_noise`` (electrons); ``crosstalk`` (how much the colour filters overlap) and
    ``ccm`` (how much of it the colour matrix undoes); ``awb`` (grey world, white patch
    or a mix) with ``awb_strength`` and ``awb_error`` (red and blue gain errors);
    ``tone`` (standard or filmic), ``lift`` and ``drop`` (a cheap webcam's grey blacks
    and dim whites), ``contrast``, ``saturation``; ``denoise`` (a phone's noise
    reduction), ``sharpen`` and ``sharpen_radius``; ``jpeg`` quality."""

    kind: str
    blur: float
    vignette: float
    vignette_lens: float
    ae_target: float
    ae_bias_ev: float
    max_gain: float
    full_well: float
    read_noise: float
    crosstalk: float
    ccm: float
    awb: str
    awb_strength: float
    awb_error: tuple
    tone: str
    lift: float
    drop: float
    contrast: float
    saturation: float
    denoise: float
    sharpen: float
    sharpen_radius: float
    jpeg: int
    lateral_colour: float = 0.0
    f_px: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)


def draw_develop(kind: str, rng) -> Develop:
    """A camera's processing drawn for a ``webcam`` (soft, noisy, washed-out colours,
    grey-world white balance, MJPEG) or a ``phone`` (sharp, clean, Filmic-like tone,
    better white balance, high JPEG quality)."""
    u = lambda a, b: float(rng.uniform(a, b))
    if kind.startswith("webcam"):
        return Develop("webcam", blur=u(0.5, 1.0), vignette=u(1.0, 2.5), vignette_lens=u(0.0, 0.3),
                       ae_target=u(0.15, 0.22), ae_bias_ev=u(-0.3, 0.5), max_gain=u(6, 16),
                       full_well=u(1500, 5000), read_noise=u(2, 8), crosstalk=u(0.15, 0.3), ccm=u(0.5, 0.9),
                       awb="grey" if rng.random() < 0.7 else "mixed", awb_strength=u(0.6, 0.95),
                       awb_error=(u(-0.1, 0.1), u(-0.1, 0.1)), tone="standard", lift=u(0.02, 0.08),
                       drop=u(0.0, 0.05), contrast=u(-0.15, 0.1), saturation=u(0.7, 1.0), denoise=0.0,
                       sharpen=u(0.3, 1.0), sharpen_radius=u(1.0, 1.6), jpeg=int(rng.integers(60, 86)),
                       lateral_colour=u(0.002, 0.008))
    if kind == "phone":
        return Develop("phone", blur=u(0.3, 0.6), vignette=u(0.5, 1.5), vignette_lens=u(0.0, 0.1),
                       ae_target=u(0.15, 0.2), ae_bias_ev=u(-0.3, 0.2), max_gain=u(16, 32),
                       full_well=u(6000, 12000), read_noise=u(1.5, 4), crosstalk=u(0.1, 0.2), ccm=u(0.9, 1.0),
                       awb="mixed", awb_strength=u(0.85, 1.0), awb_error=(u(-0.04, 0.04), u(-0.04, 0.04)),
                       tone="filmic" if rng.random() < 0.7 else "standard", lift=0.0, drop=0.0,
                       contrast=u(0.0, 0.15), saturation=u(1.0, 1.2), denoise=u(0.5, 1.0), sharpen=u(0.6, 1.4),
                       sharpen_radius=u(0.8, 1.2), jpeg=int(rng.integers(85, 96)), lateral_colour=0.0)
    raise ValueError(f"unknown camera kind {kind!r}: webcam or phone")


# ---------------------------------------------------------------- tone curves
_FILMIC = None
FILMIC_DIRS = (Path("/usr/share/blender/datafiles/colormanagement/filmic"),)
"""Where Debian's Blender keeps the Filmic look-up tables (``blender-data``)."""


def _filmic_tables():
    global _FILMIC
    if _FILMIC is None:
        for d in FILMIC_DIRS:
            cube, curve = d / "filmic_desat65cube.spi3d", d / "filmic_to_0-70_1-03.spi1d"
            if cube.is_file() and curve.is_file():
                rows = [ln.split() for ln in cube.read_text().splitlines()[3:] if ln.strip()]
                n = int(round(len(rows) ** (1 / 3)))
                lut = np.zeros((n, n, n, 3), np.float32)
                a = np.array(rows, np.float32)
                lut[a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2].astype(int)] = a[:, 3:6]
                text = curve.read_text()
                body = text[text.index("{") + 1:text.index("}")]
                _FILMIC = (lut, np.array(body.split(), np.float32))
                break
        else:
            _FILMIC = False
    return _FILMIC


def filmic(x: np.ndarray) -> np.ndarray:
    """Blender's Filmic view (base contrast) on scene-linear RGB → display values 0-1:
    a log2 shaper over 25 stops, the desaturating 3D table, the contrast curve. Without
    Blender's files, a plain highlight-compressing curve stands in."""
    tables = _filmic_tables()
    x = np.maximum(np.asarray(x, np.float32), 1e-7)
    if not tables:
        y = x / (1 + x)
        return np.power(y * 1.8, 1 / 2.2).clip(0, 1)
    lut, curve = tables
    lo, hi = -12.473931188, 12.526068812
    s = np.clip((np.log2(x) - lo) / (hi - lo), 0, 1)
    n = lut.shape[0] - 1
    g = s * n
    i0 = np.clip(np.floor(g).astype(int), 0, n - 1)
    f = g - i0
    out = np.zeros_like(s)
    # Trilinear interpolation in the 3D table.
    for dr in (0, 1):
        wr = f[..., 0] if dr else 1 - f[..., 0]
        for dg in (0, 1):
            wg = f[..., 1] if dg else 1 - f[..., 1]
            for db in (0, 1):
                wb = f[..., 2] if db else 1 - f[..., 2]
                out += (wr * wg * wb)[..., None] * lut[i0[..., 0] + dr, i0[..., 1] + dg, i0[..., 2] + db]
    y = np.clip(out / 0.66, 0, 1)
    return np.interp(y, np.linspace(0, 1, len(curve)), curve).astype(np.float32)


def srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0, 1)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055).astype(np.float32)


# ---------------------------------------------------------------- the steps
def _bayer(rgb: np.ndarray) -> np.ndarray:
    """The RGGB mosaic a colour-filter sensor records."""
    h, w = rgb.shape[:2]
    raw = np.empty((h, w), np.float32)
    raw[0::2, 0::2] = rgb[0::2, 0::2, 0]
    raw[0::2, 1::2] = rgb[0::2, 1::2, 1]
    raw[1::2, 0::2] = rgb[1::2, 0::2, 1]
    raw[1::2, 1::2] = rgb[1::2, 1::2, 2]
    return raw


def _demosaic(raw: np.ndarray, edge_aware: bool) -> np.ndarray:
    """RGGB mosaic → RGB (OpenCV's bilinear or edge-aware demosaicing)."""
    r16 = np.clip(raw * 65535.0, 0, 65535).astype(np.uint16)
    # OpenCV names Bayer patterns by the second row's first two pixels: RGGB is "BG".
    code = cv2.COLOR_BayerBG2RGB_EA if edge_aware else cv2.COLOR_BayerBG2RGB
    return cv2.cvtColor(r16, code).astype(np.float32) / 65535.0


def _mixing(c: float) -> np.ndarray:
    return (1 - c) * np.eye(3, dtype=np.float32) + c * np.full((3, 3), 1 / 3, np.float32)


@functools.lru_cache(maxsize=8)
def _centre_weights(h, w) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((x - (w - 1) / 2) / w) ** 2 + ((y - (h - 1) / 2) / h) ** 2
    return np.exp(-r2 / (2 * 0.3 ** 2))


@functools.lru_cache(maxsize=8)
def _fall_off(h, w, f, power, lens) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot(x - (w - 1) / 2, y - (h - 1) / 2)
    cos = np.cos(np.arctan(r / f))
    return (cos ** power * (1 - lens * (r / r.max()) ** 2)).astype(np.float32)


_LOCUS = {}


def _on_locus(est: np.ndarray, crosstalk: float, keep: float) -> np.ndarray:
    """The illuminant estimate moved onto the black-body line (2000-10000 K) in log
    chromaticity, keeping ``keep`` of its distance off the line."""
    from bench.blender_world.world import kelvin_rgb
    key = round(crosstalk, 3)
    if key not in _LOCUS:
        temps = np.linspace(2000, 10000, 161)
        pts = np.array([_mixing(crosstalk) @ np.asarray(kelvin_rgb(t), np.float32) for t in temps])
        _LOCUS[key] = np.stack([np.log(pts[:, 0] / pts[:, 1]), np.log(pts[:, 2] / pts[:, 1])], axis=1)
    line = _LOCUS[key]
    e = np.maximum(np.asarray(est, np.float64), 1e-6)
    c = np.array([math.log(e[0] / e[1]), math.log(e[2] / e[1])])
    near = line[np.argmin(((line - c) ** 2).sum(axis=1))]
    c = near + keep * (c - near)
    return np.array([math.exp(c[0]), 1.0, math.exp(c[1])], np.float32) * float(e[1])


def develop(linear: np.ndarray, p: Develop, rng, exposure_hint: float = None):
    """Linear RGB light on the sensor (float, H×W×3, as rendered) → ``(BGR uint8,
    JPEG bytes)``: the frame a camera with processing ``p`` delivers."""
    img = np.asarray(linear, np.float32)
    h, w = img.shape[:2]
    if p.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), p.blur)
    # Vignetting: the cos^p law of an off-axis pixel, and the lens barrel's shade.
    f = p.f_px or (w / 2) / math.tan(math.radians(35))
    img = img * _fall_off(h, w, f, p.vignette, p.vignette_lens)[..., None]
    # Auto exposure: a centre-weighted mean of the luminance brought to the target grey.
    lum = img @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    wts = _centre_weights(h, w)
    meter = float((lum * wts).sum() / wts.sum()) if exposure_hint is None else exposure_hint
    gain = min(p.max_gain, p.ae_target * 2 ** p.ae_bias_ev / max(meter, 1e-6))
    gain_limited = gain >= p.max_gain
    img = img * gain
    # The sensor: overlapping colour filters, the mosaic, photons and read noise, 10 bits.
    img = img @ _mixing(p.crosstalk).T
    sens = np.array([0.55, 1.0, 0.7], np.float32)       # raw channel sensitivities
    raw = _bayer(img * sens)
    electrons = np.clip(raw, 0, None) * p.full_well
    # Analogue gain beyond the exposure time's reach amplifies the read noise too.
    analogue = max(1.0, gain / (p.max_gain / 4)) if gain_limited else 1.0
    noisy = rng.poisson(electrons).astype(np.float32) + rng.normal(0, p.read_noise * analogue, raw.shape)
    raw = np.clip(np.round(noisy / p.full_well * 1023) / 1023, 0, 1).astype(np.float32)
    rgb = _demosaic(raw, edge_aware=p.kind == "phone") / sens
    # Auto white balance, measured on the image it is about to correct.
    ok = (rgb.max(axis=2) < 0.95 / sens.min()) & (rgb.min(axis=2) > 0.005)
    px = rgb[ok] if ok.sum() > 100 else rgb.reshape(-1, 3)
    grey = px.mean(axis=0)
    lum_px = px @ np.array([0.25, 0.5, 0.25], np.float32)
    top = px[lum_px >= np.percentile(lum_px, 97)].mean(axis=0)
    est = {"grey": grey, "white": top, "mixed": np.sqrt(grey * top)}[p.awb]
    # Cameras trust only illuminants near the black-body line: pull the estimate onto
    # it (keeping a little of the tint off it), so a brown table reads as a warm lamp,
    # not as a brown one.
    est = _on_locus(est, p.crosstalk, keep=0.3)
    gains = (est[1] / np.maximum(est, 1e-6)) ** p.awb_strength
    gains = gains * np.array([1 + p.awb_error[0], 1.0, 1 + p.awb_error[1]], np.float32)
    rgb = rgb * gains
    # The colour matrix undoes (some of) the filters' overlap.
    m = np.linalg.inv(_mixing(p.crosstalk * p.ccm)).astype(np.float32)
    rgb = np.clip(rgb @ m.T, 0, None)
    if p.denoise > 0:
        ycc = cv2.cvtColor(np.clip(rgb, 0, 4), cv2.COLOR_RGB2YCrCb)
        ycc[..., 1] = cv2.GaussianBlur(ycc[..., 1], (0, 0), 1.5 * p.denoise)
        ycc[..., 2] = cv2.GaussianBlur(ycc[..., 2], (0, 0), 1.5 * p.denoise)
        ycc[..., 0] = cv2.bilateralFilter(ycc[..., 0], 5, 0.03 * p.denoise, 2.0)
        rgb = np.clip(cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB), 0, None)
    # Tone: sRGB (a webcam, with grey blacks and dim whites) or Filmic (a phone).
    disp = filmic(rgb) if p.tone == "filmic" else srgb(rgb)
    if p.contrast:
        disp = np.clip(disp + p.contrast * disp * (1 - disp) * (2 * disp - 1) * 2, 0, 1)
    disp = p.lift + (1 - p.lift - p.drop) * disp
    if p.saturation != 1.0:
        grey_d = disp @ np.array([0.299, 0.587, 0.114], np.float32)
        disp = np.clip(grey_d[..., None] + p.saturation * (disp - grey_d[..., None]), 0, 1)
    out = (disp[..., ::-1] * 255.0).astype(np.float32)
    if p.sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), p.sharpen_radius)
        out = out + p.sharpen * (out - soft)
    out = np.clip(np.round(out), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg)])
    jpeg = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), jpeg
