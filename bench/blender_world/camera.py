"""The Blender world's camera model: a pinhole camera posed above the table, its lens distortion, and the Blender camera that renders the undistorted view.

Table coordinates are millimetres, x east, y north, z up; the table top is z = 0.
A camera's ``rotation`` holds its axes as columns in table coordinates, with OpenCV's
convention (x to the image's right, y down the image, z along the view). A table
point is projected through the pinhole and then bent by radial (Brown) distortion:
``x_d = x_u (1 + k1 r^2 + k2 r^4)`` in normalised coordinates, negative ``k1`` for the
barrel of a wide webcam lens. Pixel centres are at whole coordinates, so the optical
centre of a W-pixel-wide frame is at ``(W - 1) / 2``.

Blender renders the undistorted view on a *canvas* slightly larger than the frame
(``canvas_size``), so that every pixel of the distorted frame has a source there;
``distortion_maps`` gives the maps that bend the canvas into the frame.

>>> cam = Camera.above((960, 540), hfov_deg=70, target=(0, 0), px_per_mm=2.5)
>>> [round(float(v), 1) for v in cam.project([[0, 0, 0]])[0]]
[479.5, 269.5]
>>> u, v = cam.project([[10, 0, 0]])[0]        # 10 mm east: 25 px to the right
>>> round(float(u) - 479.5, 1), round(float(v) - 269.5, 1)
(25.0, 0.0)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def _rotation_between(a, b) -> np.ndarray:
    """The rotation taking unit vector ``a`` to unit vector ``b`` (Rodrigues)."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    v = np.cross(a, b)
    s, c = np.linalg.norm(v), float(np.dot(a, b))
    if s < 1e-12:
        if c > 0:
            return np.eye(3)
        # Opposite vectors: half a turn about any axis perpendicular to a.
        p = np.cross(a, [1.0, 0, 0]) if abs(a[0]) < 0.9 else np.cross(a, [0, 1.0, 0])
        p /= np.linalg.norm(p)
        return 2 * np.outer(p, p) - np.eye(3)
    k = v / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    ang = math.atan2(s, c)
    return np.eye(3) + math.sin(ang) * kx + (1 - math.cos(ang)) * kx @ kx


@dataclass
class Camera:
    """A camera over the table: frame ``size`` (W, H), focal length ``f_px`` in pixels,
    ``position`` (mm), ``rotation`` (3×3, camera axes as columns), radial distortion
    ``k1``, ``k2``; for depth of field the physical ``sensor_mm`` (the frame's width on
    the sensor), ``fstop`` and ``focus_mm`` (None: everything sharp)."""

    size: tuple
    f_px: float
    position: tuple
    rotation: np.ndarray
    k1: float = 0.0
    k2: float = 0.0
    sensor_mm: float = 4.0
    fstop: float = None
    focus_mm: float = None
    name: str = "camera"
    extra: dict = field(default_factory=dict)

    # ------------------------------------------------------------ construction
    @classmethod
    def above(cls, size, hfov_deg: float, target=(0.0, 0.0), px_per_mm: float = 2.5,
              tilt_deg: float = 0.0, tilt_towards_deg: float = 0.0, roll_deg: float = 0.0,
              k1: float = 0.0, k2: float = 0.0, **kw) -> "Camera":
        """A camera looking at table point ``target`` (mm) from the distance at which
        the table there measures ``px_per_mm``; its axis tilted ``tilt_deg`` off the
        vertical, the camera standing off towards compass angle ``tilt_towards_deg``
        (0 = east, 90 = north); turned ``roll_deg`` about its axis (0: north is up in
        the image)."""
        w, h = int(size[0]), int(size[1])
        f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        dist = f / float(px_per_mm)
        r = math.radians(roll_deg)
        x = np.array([math.cos(r), math.sin(r), 0.0])
        z = np.array([0.0, 0.0, -1.0])
        y = np.cross(z, x)
        t, a = math.radians(tilt_deg), math.radians(tilt_towards_deg)
        off = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
        rot = _rotation_between(z, -off)
        axes = rot @ np.stack([x, y, z], axis=1)
        pos = np.array([target[0], target[1], 0.0]) + dist * off
        return cls((w, h), f, tuple(float(v) for v in pos), axes, k1, k2, **kw)

    # ------------------------------------------------------------ geometry
    @property
    def centre(self) -> tuple:
        w, h = self.size
        return ((w - 1) / 2.0, (h - 1) / 2.0)

    def to_camera(self, pts_mm) -> np.ndarray:
        """Table points (N×3 mm) in camera coordinates."""
        p = np.asarray(pts_mm, float).reshape(-1, 3)
        return (p - np.asarray(self.position, float)) @ np.asarray(self.rotation, float)

    def distort(self, x, y):
        """Normalised undistorted → distorted coordinates."""
        r2 = x * x + y * y
        g = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return x * g, y * g

    def undistort(self, xd, yd, iterations: int = 20):
        """Normalised distorted → undistorted coordinates (Newton's method on the
        radius; exact to float precision for the mild lenses used here)."""
        xd, yd = np.asarray(xd, float), np.asarray(yd, float)
        rd = np.hypot(xd, yd)
        ru = rd.copy()
        for _ in range(iterations):
            r2 = ru * ru
            g = ru * (1 + self.k1 * r2 + self.k2 * r2 * r2) - rd
            dg = 1 + 3 * self.k1 * r2 + 5 * self.k2 * r2 * r2
            ru = ru - g / dg
        scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        return xd * scale, yd * scale

    def project(self, pts_mm, distorted: bool = True) -> np.ndarray:
        """Frame pixel coordinates (N×2) of table points (N×3 mm, or N×2 on the table)."""
        p = np.asarray(pts_mm, float)
        if p.ndim == 1:
            p = p[None]
        if p.shape[1] == 2:
            p = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
        c = self.to_camera(p)
        x, y = c[:, 0] / c[:, 2], c[:, 1] / c[:, 2]
        if distorted:
            x, y = self.distort(x, y)
        cx, cy = self.centre
        return np.stack([self.f_px * x + cx, self.f_px * y + cy], axis=1)

    def table_point(self, u, v, z: float = 0.0) -> np.ndarray:
        """The table point (mm, at height ``z``) seen at frame pixel (u, v)."""
        cx, cy = self.centre
        xu, yu = self.undistort((np.asarray(u, float) - cx) / self.f_px,
                                (np.asarray(v, float) - cy) / self.f_px)
        d = np.stack([xu, yu, np.ones_like(xu)], axis=-1) @ np.asarray(self.rotation, float).T
        pos = np.asarray(self.position, float)
        s = (z - pos[2]) / d[..., 2]
        return pos + s[..., None] * d

    def px_per_mm_at(self, point) -> float:
        """The table's scale in the frame at a table point (pixels per mm, mean of the
        two directions)."""
        x, y = float(point[0]), float(point[1])
        p = self.project([[x, y, 0], [x + 1, y, 0], [x, y + 1, 0]])
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)

    # ------------------------------------------------------------ the render canvas
    def canvas_size(self, margin: int = 3) -> tuple:
        """The undistorted canvas Blender renders: the frame grown so that the ideal
        ray of every frame pixel falls inside it (same focal length and centre)."""
        w, h = self.size
        cx, cy = self.centre
        us = np.r_[np.linspace(-0.5, w - 0.5, 33), np.full(33, -0.5), np.full(33, w - 0.5),
                   np.linspace(-0.5, w - 0.5, 33)]
        vs = np.r_[np.full(33, -0.5), np.linspace(-0.5, h - 0.5, 33), np.linspace(-0.5, h - 0.5, 33),
                   np.full(33, h - 0.5)]
        xu, yu = self.undistort((us - cx) / self.f_px, (vs - cy) / self.f_px)
        mx = max(w / 2.0, float(np.abs(xu).max() * self.f_px + 0.5))
        my = max(h / 2.0, float(np.abs(yu).max() * self.f_px + 0.5))
        gx = int(math.ceil(mx - w / 2.0)) + margin
        gy = int(math.ceil(my - h / 2.0)) + margin
        return (w + 2 * gx, h + 2 * gy)

    def distortion_maps(self, canvas=None, channel_k1=0.0):
        """``(map_x, map_y)`` float32 arrays of the frame's size for ``cv2.remap``: where
        each frame pixel's light comes from on the canvas. ``channel_k1`` adds to k1 (a
        lens's lateral colour: red and blue bent a little differently)."""
        w, h = self.size
        cw, ch = canvas or self.canvas_size()
        cx, cy = self.centre
        u, v = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
        saved = self.k1
        try:
            self.k1 = saved + channel_k1
            xu, yu = self.undistort((u - cx) / self.f_px, (v - cy) / self.f_px)
        finally:
            self.k1 = saved
        return ((xu * self.f_px + (cw - 1) / 2.0).astype(np.float32),
                (yu * self.f_px + (ch - 1) / 2.0).astype(np.float32))

    def blender(self) -> dict:
        """The Blender camera that renders the canvas: position (m), the camera
        object's axes (Blender's: x right, y up the image, looking down -z), the lens
        and sensor in mm (the canvas's width on the sensor), depth of field."""
        cw, ch = self.canvas_size()
        w = self.size[0]
        pitch = self.sensor_mm / w
        r = np.asarray(self.rotation, float)
        axes = np.stack([r[:, 0], -r[:, 1], -r[:, 2]], axis=1)
        out = {"location_m": [v / 1000.0 for v in self.position], "axes": axes.tolist(),
               "lens_mm": self.f_px * pitch, "sensor_mm": cw * pitch, "canvas": [cw, ch]}
        if self.fstop and self.focus_mm:
            out["fstop"] = float(self.fstop)
            out["focus_m"] = float(self.focus_mm) / 1000.0
        return out

    def blur_px(self, distance_mm: float) -> float:
        """Diameter of the blur circle (frame pixels) of a point ``distance_mm`` away
        along the axis, from the thin-lens law (0 without depth of field)."""
        if not (self.fstop and self.focus_mm):
            return 0.0
        pitch = self.sensor_mm / self.size[0]
        f = self.f_px * pitch
        s, d = self.focus_mm, float(distance_mm)
        c = f * f / (self.fstop * (s - f)) * abs(d - s) / d
        return c / pitch

    # ------------------------------------------------------------ storage
    def to_json(self) -> dict:
        return {"size": list(self.size), "f_px": self.f_px, "position": list(self.position),
                "rotation": np.asarray(self.rotation, float).tolist(), "k1": self.k1, "k2": self.k2,
                "sensor_mm": self.sensor_mm, "fstop": self.fstop, "focus_mm": self.focus_mm,
                "name": self.name, "extra": self.extra}

    @classmethod
    def from_json(cls, d: dict) -> "Camera":
        return cls(tuple(d["size"]), d["f_px"], tuple(d["position"]), np.asarray(d["rotation"], float),
                   d.get("k1", 0.0), d.get("k2", 0.0), d.get("sensor_mm", 4.0), d.get("fstop"),
                   d.get("focus_mm"), d.get("name", "camera"), d.get("extra", {}))
