"""The camera of synthetic frames: a pinhole above the table with a real lens, and the sensor and processing of a cheap camera.

Geometry: the table is the plane z = 0 in mat millimetres (x to the right, y towards
South, z down into the table); the camera hangs above it at one height, looking at a
point of the table, its optical axis tilted a few degrees off vertical and turned
(``roll``) about that axis. Every card on the table is seen through the same camera,
so all cards have one size, with the perspective of that camera. The lens bends
straight lines (radial distortion ``k1``, ``k2``, barrel when negative).

Light: the scene is turned into linear light, lit by a lamp of some colour
temperature, vignetted by the lens, exposed, given the sensor's shot and read noise,
white-balanced by the camera (with an error), encoded with the sRGB gamma, toned
(webcams lift the blacks and lose saturation: ``washout``), sharpened and JPEG-coded.

>>> cam = PinholeCamera.above((640, 480), (210.0, 148.5), px_per_mm=1.5)
>>> [round(float(v), 1) for v in cam.project([(210.0, 148.5)])[0]]
[320.0, 240.0]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import cv2
import numpy as np

DEFAULT_HFOV_DEG = 66.0
"""Horizontal field of view when none is given: a Raspberry Pi Camera Module 3, and
about that of most webcams."""


@dataclass
class PinholeCamera:
    """A camera above the table: ``size`` (w, h) px, focal length ``focal_px``, rotation
    ``r`` (world → camera), centre ``position`` (mm, z negative = above the table),
    radial distortion ``k1``, ``k2``. Build it with :meth:`above`."""

    size: tuple
    focal_px: float
    r: np.ndarray
    position: np.ndarray
    k1: float = 0.0
    k2: float = 0.0
    _maps: dict = field(default_factory=dict, repr=False)

    @classmethod
    def above(cls, size, look_at, px_per_mm: float, tilt_deg: float = 0.0,
              tilt_towards_deg: float = 0.0, roll_deg: float = 0.0, k1: float = 0.0,
              k2: float = 0.0, hfov_deg: Optional[float] = None) -> "PinholeCamera":
        """A camera whose optical axis meets the table at ``look_at`` (mm), where the
        table is seen at ``px_per_mm`` (for a vertical camera: focal length / height).
        ``tilt_deg`` leans the axis off vertical, towards the table direction
        ``tilt_towards_deg`` (0 = +x); ``roll_deg`` turns the image about the axis."""
        w, h = int(size[0]), int(size[1])
        hfov = np.deg2rad(hfov_deg if hfov_deg is not None else DEFAULT_HFOV_DEG)
        f = (w / 2.0) / np.tan(hfov / 2.0)
        dist = f / float(px_per_mm)                    # along the axis, mm
        t, a = np.deg2rad(tilt_deg), np.deg2rad(tilt_towards_deg)
        fwd = np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])
        # Image y follows the table's y (South down the image) before the roll.
        y_axis = np.array([0.0, 1.0, 0.0]) - fwd[1] * fwd
        y_axis /= np.linalg.norm(y_axis)
        x_axis = np.cross(y_axis, fwd)
        r = np.stack([x_axis, y_axis, fwd])
        c, s = np.cos(np.deg2rad(roll_deg)), np.sin(np.deg2rad(roll_deg))
        r = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ r
        pos = np.array([look_at[0], look_at[1], 0.0]) - dist * fwd
        return cls((w, h), float(f), r, pos, float(k1), float(k2))

    # ------------------------------------------------------------------ geometry
    @property
    def height_mm(self) -> float:
        """The camera's height above the table."""
        return float(-self.position[2])

    def k_matrix(self, margin: int = 0) -> np.ndarray:
        w, h = self.size
        return np.array([[self.focal_px, 0, w / 2.0 + margin],
                         [0, self.focal_px, h / 2.0 + margin], [0, 0, 1.0]])

    def homography(self, margin: int = 0) -> np.ndarray:
        """Table mm → ideal (undistorted) image px, on a canvas ``margin`` px larger on
        every side than the frame."""
        t = -self.r @ self.position
        m = np.column_stack([self.r[:, 0], self.r[:, 1], t])
        hmg = self.k_matrix(margin) @ m
        return hmg / hmg[2, 2]

    def dist_coeffs(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def project(self, points_mm) -> np.ndarray:
        """Table points (N×2 mm) to frame pixels, through the lens (N×2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))]).reshape(-1, 1, 3)
        rvec, _ = cv2.Rodrigues(self.r)
        tvec = -self.r @ self.position
        img, _ = cv2.projectPoints(obj, rvec, tvec, self.k_matrix(), self.dist_coeffs())
        return img.reshape(-1, 2)

    def distort(self, ideal_px, margin: int = 0) -> np.ndarray:
        """Ideal canvas pixels (of :meth:`homography` with ``margin``) to frame pixels."""
        p = np.asarray(ideal_px, np.float64).reshape(-1, 2)
        k = self.k_matrix(margin)
        x = (p[:, 0] - k[0, 2]) / self.focal_px
        y = (p[:, 1] - k[1, 2]) / self.focal_px
        r2 = x * x + y * y
        g = 1 + self.k1 * r2 + self.k2 * r2 * r2
        w, h = self.size
        return np.column_stack([x * g * self.focal_px + w / 2.0, y * g * self.focal_px + h / 2.0])

    def margin(self) -> int:
        """How far past the frame's edge the ideal canvas must reach so that the lens
        fills the whole frame (barrel distortion pulls in the outside)."""
        if not (self.k1 or self.k2):
            return 0
        w, h = self.size
        edge = np.array([[0, 0], [w / 2, 0], [w, 0], [w, h / 2], [w, h], [w / 2, h], [0, h],
                         [0, h / 2]], np.float64)
        ideal = self._undistort(edge, 0)
        over = max(float(-ideal.min()), float((ideal[:, 0] - w).max()), float((ideal[:, 1] - h).max()), 0.0)
        return int(np.ceil(over)) + 3

    def _undistort(self, pts, margin: int) -> np.ndarray:
        k = self.k_matrix()
        out = cv2.undistortPoints(np.asarray(pts, np.float64).reshape(-1, 1, 2), k,
                                  self.dist_coeffs(), P=self.k_matrix(margin))
        return out.reshape(-1, 2)

    def lens_maps(self, margin: int):
        """``cv2.remap`` maps that bend the ideal canvas into the frame (cached)."""
        key = margin
        if key not in self._maps:
            w, h = self.size
            step = 8
            gx, gy = np.meshgrid(np.arange(0, w + step, step, dtype=np.float64),
                                 np.arange(0, h + step, step, dtype=np.float64))
            ideal = self._undistort(np.stack([gx.ravel(), gy.ravel()], 1), margin)
            mx = ideal[:, 0].reshape(gx.shape).astype(np.float32)
            my = ideal[:, 1].reshape(gx.shape).astype(np.float32)
            # The map is smooth: interpolate the grid up to every pixel (grid node j
            # lies at pixel j * step).
            ux = np.tile(np.arange(w, dtype=np.float32) / step, (h, 1))
            uy = np.tile((np.arange(h, dtype=np.float32) / step)[:, None], (1, w))
            mx = cv2.remap(mx, ux, uy, cv2.INTER_LINEAR)
            my = cv2.remap(my, ux, uy, cv2.INTER_LINEAR)
            self._maps[key] = (mx, my)
        return self._maps[key]

    def px_per_mm_at(self, point_mm) -> float:
        """Image pixels per table millimetre near a table point."""
        p = self.project([point_mm, (point_mm[0] + 5, point_mm[1]), (point_mm[0], point_mm[1] + 5)])
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 10.0)


# ---------------------------------------------------------------------- light
_SRGB_TO_LINEAR = np.array([((v / 255.0) / 12.92 if v <= 10 else ((v / 255.0 + 0.055) / 1.055) ** 2.4)
                            for v in range(256)], np.float32)
_LUT_STEPS = 4096
_LINEAR_TO_SRGB = np.array([(12.92 * x if x <= 0.0031308 else 1.055 * x ** (1 / 2.4) - 0.055) * 255.0
                            for x in np.linspace(0.0, 1.0, _LUT_STEPS)], np.float32)

# Lamp colour (linear R, G, B relative to daylight white) by colour temperature, from a
# blackbody's chromaticity rounded to two digits; between entries the nearest is used.
_LAMPS = {2700: (1.0, 0.70, 0.40), 3000: (1.0, 0.75, 0.48), 3200: (1.0, 0.78, 0.53),
          4000: (1.0, 0.86, 0.70), 4200: (1.0, 0.88, 0.74), 5000: (1.0, 0.94, 0.86),
          5500: (1.0, 0.97, 0.92), 6500: (1.0, 1.0, 1.0), 7500: (0.92, 0.95, 1.0)}


def to_linear(img_bgr: np.ndarray) -> np.ndarray:
    """sRGB uint8 → linear float32 (0–1)."""
    return cv2.LUT(img_bgr, _SRGB_TO_LINEAR)


def to_srgb(linear: np.ndarray) -> np.ndarray:
    """Linear float32 (clipped to 0–1) → sRGB float32 (0–255), through a 4096-step table."""
    x = np.clip(linear, 0.0, 1.0)
    idx = (x * np.float32(_LUT_STEPS - 1) + np.float32(0.5)).astype(np.uint16)
    return _LINEAR_TO_SRGB[idx]


def _randn(rng: np.random.Generator, shape) -> np.ndarray:
    # OpenCV's generator is several times faster than numpy's for a frame of noise;
    # seeding it from `rng` keeps frames repeatable.
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, 1.0)
    return out


def lamp_colour(kelvin: float) -> np.ndarray:
    """The linear BGR multipliers of a lamp of ``kelvin`` (nearest tabulated)."""
    k = min(_LAMPS, key=lambda t: abs(t - float(kelvin)))
    r, g, b = _LAMPS[k]
    return np.array([b, g, r], np.float32)


def disc_kernel(radius: float) -> np.ndarray:
    """A defocus kernel: a disc of ``radius`` px, anti-aliased, summing to 1."""
    n = int(np.ceil(radius)) * 2 + 3
    c = n // 2
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - c
    k = np.clip(radius + 0.5 - np.sqrt(xx * xx + yy * yy), 0, 1)
    return k / k.sum()


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), angle_deg, 1.0)
    k = cv2.warpAffine(k, rot, (n, n))
    return k / max(float(k.sum()), 1e-6)


def optics(linear: np.ndarray, rng: np.random.Generator, c: dict) -> np.ndarray:
    """What the lens does to the light (linear float32): defocus, Gaussian blur, motion
    blur, vignetting. Returns a new array."""
    img = linear
    defocus = float(c.get("defocus", 0) or 0)
    if defocus >= 0.3:
        img = cv2.filter2D(img, -1, disc_kernel(defocus))
    blur = float(c.get("blur", 0) or 0)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    mb = float(c.get("motion_blur", 0) or 0)
    if mb > 1:
        img = cv2.filter2D(img, -1, motion_kernel(mb, rng.uniform(0, 180)))
    vig = float(c.get("vignette", 0) or 0)
    if vig:
        h, w = img.shape[:2]
        sw, sh = max(8, w // 8), max(6, h // 8)
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        xx, yy = (xx + 0.5) / sw - 0.5, (yy + 0.5) / sh - 0.5
        r2 = (xx * xx + yy * yy) / 0.5          # 1 at the frame's corners
        gain = (1.0 - vig * (0.55 * r2 + 0.45 * r2 * r2)).astype(np.float32)
        gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_CUBIC)
        img = img * gain[:, :, None]
    return img if img is not linear else img.copy()


def sensor_and_processing(linear: np.ndarray, rng: np.random.Generator, c: dict) -> np.ndarray:
    """The sensor and the camera's processing: exposure, shot and read noise, white
    balance (with its error), the sRGB gamma, webcam toning, sharpening, 8 bits, JPEG.
    ``linear`` is the light reaching the sensor (float32, 1 = the lamp's white on paper)."""
    img = linear * np.float32(2.0 ** float(c.get("exposure", 0.0) or 0.0))
    shot = float(c.get("shot_noise", 0) or 0) / 255.0
    read = float(c.get("read_noise", 0) or 0) / 255.0
    if shot or read:
        var = cv2.max(img, 0.0) * np.float32(shot * shot) + np.float32(read * read)
        img = img + _randn(rng, img.shape) * cv2.sqrt(var)
    img = np.clip(img, 0.0, 1.0)                     # the sensor saturates
    wb = c.get("wb_gains")
    if wb is not None:
        img = img * np.asarray(wb, np.float32)[None, None, :]
    out = to_srgb(img)
    wash = float(c.get("washout", 0) or 0)
    if wash:
        # Cheap webcams: lifted blacks, dimmer whites, paler colours.
        grey = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        out = cv2.addWeighted(out, 1.0 - 0.55 * wash, grey, 0.55 * wash, 0.0)
        lo, hi = 55.0 * wash, 255.0 - 30.0 * wash
        out = cv2.addWeighted(out, (hi - lo) / 255.0, out, 0.0, lo)
    sharpen = float(c.get("sharpen", 0) or 0)
    if sharpen:
        soft = cv2.GaussianBlur(out, (0, 0), 1.2)
        out = cv2.addWeighted(out, 1.0 + sharpen, soft, -sharpen, 0.0)
    out = cv2.convertScaleAbs(np.maximum(out, 0.0))    # rounds and saturates to 8 bits
    q = c.get("jpeg")
    if q:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def white_balance_gains(lamp_kelvin: float, error, adaptation: float = 1.0) -> np.ndarray:
    """The camera's white-balance gains (BGR): it undoes ``adaptation`` of the lamp's
    colour (1 = all of it) and errs by ``error`` (three fractions, one per channel)."""
    lamp = lamp_colour(lamp_kelvin)
    gains = (1.0 / lamp) ** np.float32(adaptation) * (1.0 + np.asarray(error, np.float32))
    return (gains / gains[1]).astype(np.float32)  # green fixed, as cameras do
