"""The Blender world's tables, lamps, cameras and card layouts, drawn from a seed, as scene descriptions for ``scene.py``; and the truth of each frame.

A *table* is one surface under one set of lights, seen by one camera (a webcam fixed
above it, or a phone held over it, each photo from its own pose), on which several
card designs are played in turn. Everything a frame shows is described here, in table
millimetres (x east, y north, z up): the cards' meshes (so that the truth's corners are
vertices of what Blender renders), the mat's sheet, the hand's skeleton, the lamps. The
truth of a frame is computed from the same numbers through ``camera.Camera`` and from
the object-index pass Blender writes (how much of each card is seen, and what hides
the rest).

>>> import numpy as np
>>> card = card_mesh((63.0, 88.0), centre=(10.0, 20.0), rotation_deg=30.0, bow_mm=0.0)
>>> np.round(card["corners_mm"][0], 2).tolist()       # the face's top-left corner, lying flat
[-39.28, 42.36, 0.3]
>>> round(float(np.linalg.norm(card["corners_mm"][1] - card["corners_mm"][0])), 2)
63.0
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bench.blender_world.camera import Camera

CARD_LONG_MM = 88.0
"""A poker-size card's long side; its width follows the design's own proportions."""
CARD_THICKNESS_MM = 0.3
CORNER_RADIUS_MM = 3.2
WHITE_LEVEL = 0.18
"""Where the driver aims a white card's radiance in the 16-bit linear PNG (full scale
1.0): headroom for the lamps' reflections."""


# ---------------------------------------------------------------- colour
def srgb_to_linear(c):
    """sRGB (0-1, or a hex string "#rrggbb") to linear Rec.709, as Blender's colour inputs take."""
    if isinstance(c, str):
        c = [int(c.lstrip("#")[i:i + 2], 16) / 255.0 for i in (0, 2, 4)]
    c = np.asarray(c, float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).tolist()


def kelvin_rgb(kelvin: float) -> list:
    """A black body's colour at ``kelvin`` in linear Rec.709, scaled to luminance 1.
    (Planck's law integrated against the CIE 1931 colour matching functions, here in
    the analytic multi-lobe fit of Wyman, Sloan and Shirley 2013, so no tables.)"""
    lam = np.arange(380.0, 781.0, 5.0)
    nm = lam * 1e-9
    h, c, k = 6.626e-34, 2.998e8, 1.381e-23
    spd = 1.0 / (nm ** 5 * (np.exp(h * c / (nm * k * kelvin)) - 1.0))

    def g(x, mu, s1, s2):
        return np.exp(-0.5 * ((x - mu) / np.where(x < mu, s1, s2)) ** 2)

    xbar = 1.056 * g(lam, 599.8, 37.9, 31.0) + 0.362 * g(lam, 442.0, 16.0, 26.7) - 0.065 * g(lam, 501.1, 20.4, 26.2)
    ybar = 0.821 * g(lam, 568.8, 46.9, 40.5) + 0.286 * g(lam, 530.9, 16.3, 31.1)
    zbar = 1.217 * g(lam, 437.0, 11.8, 36.0) + 0.681 * g(lam, 459.0, 26.0, 13.8)
    X, Y, Z = (spd * xbar).sum(), (spd * ybar).sum(), (spd * zbar).sum()
    m = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
    rgb = m @ np.array([X, Y, Z]) / Y
    return np.clip(rgb, 0.0, None).tolist()


# ---------------------------------------------------------------- tables
WOODS = {
    # species: (earlywood, latewood) in sRGB; ring spacing (mm); fibre and pore look
    "walnut": ("#7d5a40", "#4b3020", 3.0, 0.25, 0.06),
    "pine": ("#e4c18c", "#b9803f", 5.0, 0.15, 0.0),
    "cherry": ("#b57450", "#8c4c2e", 2.5, 0.2, 0.02),
    "maple": ("#e8d3ad", "#d6b88c", 2.0, 0.12, 0.01),
    "mahogany": ("#8e4630", "#66301f", 3.0, 0.25, 0.05),
    "oak": ("#caa674", "#9f7443", 2.5, 0.25, 0.1),
    "ash": ("#dcc8a4", "#b49770", 3.0, 0.2, 0.08),
    "teak": ("#b3834e", "#855a31", 3.0, 0.25, 0.05),
    "greywash": ("#bdb7ad", "#8c857a", 3.0, 0.3, 0.06),
    "dark-stain": ("#4a3527", "#2b1d14", 3.0, 0.3, 0.05),
}
FINISHES = {
    "matte": {"rough": 0.6, "spec": 0.35, "coat": 0.0, "coat_rough": 0.3, "bump": 0.25},
    "satin": {"rough": 0.45, "spec": 0.4, "coat": 0.45, "coat_rough": 0.18, "bump": 0.18},
    "gloss": {"rough": 0.4, "spec": 0.4, "coat": 1.0, "coat_rough": 0.04, "bump": 0.12},
}
COLOURS = {
    "green": "#2f6b3a", "casino": "#1f5a2e", "navy": "#243a66", "blue": "#2b5c9e", "burgundy": "#6b1f2a",
    "red": "#a3262a", "black": "#1c1c1e", "grey": "#7d7f80", "tan": "#b89a6e", "beige": "#d8c9a8",
    "teal": "#1f6f72", "purple": "#563a7a", "white": "#e9e6de", "yellow": "#d9b53a", "brown": "#5a4030",
    "cream": "#efe6cf", "sky": "#7fa9cf", "olive": "#6b6b35", "orange": "#c8642a", "pink": "#d89aa5",
}
PATTERNS = ("checks", "stripes", "tartan", "print", "dots")


def table_spec(kind: str, rng: np.random.Generator) -> dict:
    """The description of a table top for ``scene.py``: ``kind`` is ``wood:<species>:<finish>``,
    ``felt:<colour>``, ``cloth:<colour>``, ``pattern:<kind>``, ``carpet:<loop|shag>``,
    ``tiles:<ceramic|marble>`` (colours by name or ``#rrggbb``); details from ``rng``."""
    parts = kind.split(":")
    head = parts[0]

    def colour(name, jitter=0.06):
        c = np.asarray(srgb_to_linear(COLOURS.get(name, name)))
        return np.clip(c * np.exp(rng.normal(0, jitter, 3)), 0, 1).tolist()

    if head == "wood":
        species, finish = parts[1], parts[2]
        early, late, ring_mm, fibre, pores = WOODS[species]
        return {"kind": "wood", "name": kind, "grain_deg": float(rng.uniform(0, 180)),
                "early": colour(early, 0.05), "late": colour(late, 0.05),
                "board_m": float(rng.uniform(0.08, 0.2)), "board_len_m": float(rng.uniform(1.2, 2.5)),
                "board_offset": float(rng.uniform(0.2, 0.8)), "joint_m": float(rng.uniform(0.0003, 0.0012)),
                "pith_depth_m": float(rng.uniform(0.03, 0.15)), "pith_spread_m": float(rng.uniform(0.1, 0.4)),
                "dip_deg": float(rng.choice([-1, 1]) * rng.uniform(0.8, 3.0)), "taper_deg": float(rng.uniform(-2, 2)),
                # Wave rings: one period is 2*pi/20 units of the scaled coordinate.
                "ring_scale": float(2 * math.pi / 20 / (ring_mm * rng.uniform(0.7, 1.4) / 1000.0)),
                "ring_wobble": float(rng.uniform(1.0, 4.0)), "late_sharp": float(rng.uniform(1.2, 2.5)),
                "ring_irregular": float(rng.uniform(1.0, 2.5)),
                "fibre_stretch": 0.04, "fibre_scale": float(rng.uniform(150, 400)), "fibre_amount": fibre,
                "pore_scale": float(rng.uniform(800, 1500)), "pore_share": pores, "pore_dark": 0.6,
                "board_tint": float(rng.uniform(0.1, 0.3)), "finish": dict(FINISHES[finish])}
    if head == "felt":
        return {"kind": "felt", "name": kind, "colour": colour(parts[1]), "mottle": float(rng.uniform(0.04, 0.1))}
    if head == "cloth":
        return {"kind": "cloth", "name": kind, "colour": colour(parts[1]),
                "period_m": float(rng.uniform(0.0005, 0.0012)), "angle_deg": float(rng.uniform(0, 180))}
    if head == "pattern":
        pk = parts[1]
        pool = ["red", "navy", "green", "blue", "black", "yellow", "burgundy", "teal", "orange", "purple", "olive",
                "sky", "pink"]
        picks = [pool[int(i)] for i in rng.choice(len(pool), 3, replace=False)]
        if pk == "checks":
            base = colour(picks[0])
            cols = [colour("white"), (0.5 * np.asarray(colour("white")) + 0.5 * np.asarray(base)).tolist(), base]
            repeat = rng.uniform(0.008, 0.025)
        elif pk == "stripes":
            cols = [colour("cream"), colour(picks[0]), colour(picks[1])]
            repeat = rng.uniform(0.02, 0.06)
        elif pk == "tartan":
            cols = [colour(picks[0]), colour("navy"), colour(picks[1]), colour("yellow")]
            repeat = rng.uniform(0.06, 0.14)
        elif pk == "print":
            cols = [colour("cream"), colour(picks[0]), colour(picks[1]), colour(picks[2])]
            repeat = rng.uniform(0.03, 0.08)
        else:
            cols = [colour(picks[0]), colour("white")]
            repeat = rng.uniform(0.015, 0.04)
        return {"kind": "pattern", "name": kind, "pattern": pk, "colours": cols, "repeat_m": float(repeat),
                "dot": float(rng.uniform(0.15, 0.3)), "period_m": float(rng.uniform(0.0006, 0.0012)),
                "angle_deg": float(rng.uniform(0, 180))}
    if head == "carpet":
        loop = parts[1] == "loop"
        pool = [("#8a7f70", "#6f655a", "#a39a8b"), ("#5d6670", "#48505a", "#7c848c"),
                ("#7a4a3a", "#5c3529", "#9a6a55"), ("#b7ab95", "#9c907a", "#d0c6b0"), ("#3e4a3a", "#2c3629", "#56654f")]
        cols = [colour(c, 0.04) for c in pool[int(rng.integers(len(pool)))]]
        return {"kind": "carpet", "name": kind, "colours": cols, "tuft_m": float(rng.uniform(0.0025, 0.004) if loop
                                                                              else rng.uniform(0.005, 0.009)),
                "stretch": float(rng.uniform(1.0, 1.6) if loop else 1.0), "gap_dark": float(0.45 if loop else 0.25)}
    if head == "tiles":
        if parts[1] == "marble":
            return {"kind": "tiles", "name": kind, "tiles": "marble", "colour": colour("#e6e3dc", 0.03),
                    "vein": colour("#6f6b66", 0.05), "tile_m": float(rng.uniform(0.3, 0.6)),
                    "grout_m": 0.0015, "grout": colour("#bdb8ae", 0.03), "vein_scale": float(rng.uniform(1.5, 4)),
                    "rough": 0.08, "coat": 0.8, "angle_deg": float(rng.uniform(0, 90))}
        pool = ["#e9e4d8", "#c8b89a", "#b0574a", "#5e7f9a", "#8f9a8c", "#d9d3c7", "#4a4f55"]
        return {"kind": "tiles", "name": kind, "tiles": "ceramic",
                "colour": colour(pool[int(rng.integers(len(pool)))], 0.03), "vein": [0, 0, 0],
                "tile_m": float(rng.uniform(0.1, 0.33)), "grout_m": float(rng.uniform(0.002, 0.005)),
                "grout": colour(["#bdb8ae", "#6d6a66", "#e8e4dc"][int(rng.integers(3))], 0.03), "vein_scale": 1.0,
                "rough": float(rng.uniform(0.08, 0.3)), "coat": float(rng.uniform(0.3, 1.0)),
                "angle_deg": float(rng.uniform(0, 90))}
    raise ValueError(f"unknown table {kind!r}: wood, felt, cloth, pattern, carpet, tiles")


# ---------------------------------------------------------------- cards
def _grid_axis(half: float, r: float, step: float) -> np.ndarray:
    """Coordinates along one side of a card: fine near the ends (where the corners
    are rounded), about ``step`` apart in between."""
    n = max(2, int(round((2 * half - 2 * r) / step)))
    inner = np.linspace(-half + r, half - r, n + 1)
    end = -half + np.array([0.0, r / 3, 2 * r / 3])
    return np.concatenate([end, inner, -end[::-1]])


def card_mesh(size_mm, centre, rotation_deg: float, bow_mm: float = 0.0, bow_long: bool = True,
              twist_mm: float = 0.0, base_z: float = 0.0, radius: float = CORNER_RADIUS_MM,
              thickness: float = CARD_THICKNESS_MM) -> dict:
    """A card's top surface as a mesh in table millimetres: ``verts_mm`` (N×3),
    ``faces`` (quads), ``uvs`` (the face art's coordinates, v up), and ``corners_mm``:
    the face's corners (top-left, top-right, bottom-right, bottom-left of the art, where
    the square corners would be) on the bent surface.

    ``rotation_deg`` turns the card's top from north towards west; ``bow_mm`` bows the
    card along its long (or short) axis, the middle up (positive) or the ends up
    (negative); ``twist_mm`` lifts two opposite corners; the lowest point rests on
    ``base_z``; the top surface lies ``thickness`` above it (the solidify modifier adds
    the thickness downwards)."""
    w, h = float(size_mm[0]), float(size_mm[1])
    xs = _grid_axis(w / 2, radius, 3.0)
    ys = _grid_axis(h / 2, radius, 3.0)
    gx, gy = np.meshgrid(xs, ys)
    x, y = gx.ravel().copy(), gy.ravel().copy()
    # Round the corners: each corner square is mapped onto a quarter disc (its
    # L-infinity circles onto circles), so the outline follows the arc.
    dx = np.abs(x) - (w / 2 - radius)
    dy = np.abs(y) - (h / 2 - radius)
    at = (dx > 1e-9) & (dy > 1e-9)
    m = np.maximum(dx, dy)
    s = np.where(at, m / np.sqrt(np.maximum(dx * dx + dy * dy, 1e-12)), 1.0)
    x = np.where(at, np.sign(x) * ((w / 2 - radius) + dx * s), x)
    y = np.where(at, np.sign(y) * ((h / 2 - radius) + dy * s), y)
    corners_local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])

    def height(px, py):
        t = (2 * py / h) if bow_long else (2 * px / w)
        return bow_mm * (1 - t * t) + twist_mm * (2 * px / w) * (2 * py / h)

    z = height(x, y)
    zc = height(corners_local[:, 0], corners_local[:, 1])
    low = min(z.min(), zc.min())
    z = z - low + base_z + thickness
    zc = zc - low + base_z + thickness
    a = math.radians(rotation_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    xy = np.stack([x, y], axis=1) @ rot.T + np.asarray(centre[:2], float)
    cxy = corners_local @ rot.T + np.asarray(centre[:2], float)
    nx, ny = len(xs), len(ys)
    faces = [(j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i)
             for j in range(ny - 1) for i in range(nx - 1)]
    uvs = np.stack([x / w + 0.5, y / h + 0.5], axis=1)
    return {"verts_mm": np.concatenate([xy, z[:, None]], axis=1), "faces": faces, "uvs": uvs,
            "corners_mm": np.concatenate([cxy, zc[:, None]], axis=1), "size_mm": (w, h)}


# ---------------------------------------------------------------- the printed mat
@dataclass
class MatSheet:
    """The printed mat lying on the table: its layout (``vision.zones.MatLayout``), its
    centre and turn on the table, and how the paper bends (a few long waves and edges
    that curl up)."""

    layout_name: str
    centre: tuple
    rotation_deg: float
    waves: list = field(default_factory=list)    # (amplitude mm, kx, ky per mm, phase)
    curl_mm: float = 0.5

    @property
    def layout(self):
        from vision.zones import MatLayout
        return MatLayout.named(self.layout_name)

    def height(self, mx, my):
        """The paper's height (mm) at mat point (mx, my) (mm from its top-left)."""
        lay = self.layout
        mx, my = np.asarray(mx, float), np.asarray(my, float)
        z = np.zeros_like(mx)
        for amp, kx, ky, ph in self.waves:
            z = z + amp * np.sin(kx * mx + ky * my + ph)
        u, v = 2 * mx / lay.width_mm - 1, 2 * my / lay.height_mm - 1
        z = z + self.curl_mm * (u ** 6 + v ** 6) / 2
        return z

    def to_table(self, mx, my) -> np.ndarray:
        """Mat points (mm from its top-left, y down the print) to table x, y."""
        lay = self.layout
        lx = np.asarray(mx, float) - lay.width_mm / 2
        ly = -(np.asarray(my, float) - lay.height_mm / 2)
        a = math.radians(self.rotation_deg)
        return np.stack([self.centre[0] + lx * math.cos(a) - ly * math.sin(a),
                         self.centre[1] + lx * math.sin(a) + ly * math.cos(a)], axis=-1)

    def to_mat(self, xy) -> np.ndarray:
        lay = self.layout
        d = np.asarray(xy, float) - np.asarray(self.centre, float)
        a = -math.radians(self.rotation_deg)
        lx = d[..., 0] * math.cos(a) - d[..., 1] * math.sin(a)
        ly = d[..., 0] * math.sin(a) + d[..., 1] * math.cos(a)
        return np.stack([lx + lay.width_mm / 2, -ly + lay.height_mm / 2], axis=-1)

    def lift(self) -> float:
        """How far the lowest point of the paper is moved up to rest on the table."""
        lay = self.layout
        gx, gy = np.meshgrid(np.linspace(0, lay.width_mm, 60), np.linspace(0, lay.height_mm, 45))
        return -float(self.height(gx, gy).min()) + 0.1

    def top_under(self, corners_xy) -> float:
        """The paper's highest point under a card's outline (table xy corners)."""
        c = np.asarray(corners_xy, float)[:, :2]
        t = np.linspace(0, 1, 9)
        pts = [c[i] + (c[(i + 1) % 4] - c[i]) * tt for i in range(4) for tt in t]
        pts += [c.mean(axis=0)]
        m = self.to_mat(np.asarray(pts))
        return float(self.height(m[:, 0], m[:, 1]).max() + self.lift() + 0.1)

    def mesh(self) -> dict:
        lay = self.layout
        nx, ny = 85, 61
        mx, my = np.meshgrid(np.linspace(0, lay.width_mm, nx), np.linspace(0, lay.height_mm, ny))
        mx, my = mx.ravel(), my.ravel()
        xy = self.to_table(mx, my)
        z = self.height(mx, my) + self.lift()
        faces = [(j * nx + i, (j + 1) * nx + i, (j + 1) * nx + i + 1, j * nx + i + 1)
                 for j in range(ny - 1) for i in range(nx - 1)]
        uvs = np.stack([mx / lay.width_mm, 1 - my / lay.height_mm], axis=1)
        return {"verts_mm": np.concatenate([xy, z[:, None]], axis=1), "faces": faces, "uvs": uvs}


def draw_mat(layout_name: str, rng, centre=(0.0, 0.0), rotation_deg: float = 0.0) -> MatSheet:
    waves = []
    for _ in range(3):
        lam = rng.uniform(80, 300)
        ang = rng.uniform(0, 2 * math.pi)
        waves.append((float(rng.uniform(0.15, 0.6)), float(2 * math.pi / lam * math.cos(ang)),
                      float(2 * math.pi / lam * math.sin(ang)), float(rng.uniform(0, 2 * math.pi))))
    return MatSheet(layout_name, tuple(centre), float(rotation_deg), waves, float(rng.uniform(0.3, 2.0)))


# ---------------------------------------------------------------- the hand
# A right hand, palm down, reaching along +x (y to its left, z up), in mm: joints, then
# the skin modifier's radii (across, up) at each joint. The arm's far end lies well
# outside the frame, rising towards the shoulder.
_HAND_JOINTS = {
    "shoulder": (-620, -60, 300), "elbow": (-330, -25, 130), "forearm": (-170, -10, 86),
    "wrist": (-25, 0, 56), "palm": (30, 0, 46),
    "k1": (80, 24, 38), "k2": (86, 7, 39), "k3": (82, -9, 38), "k4": (72, -24, 37),
    "m1": (113, 26, 31), "m2": (123, 8, 32), "m3": (116, -11, 31), "m4": (100, -28, 30),
    "t1": (138, 27, 18), "t2": (150, 9, 17), "t3": (141, -12, 18), "t4": (121, -31, 19),
    "th0": (10, 27, 42), "th1": (42, 44, 32), "th2": (66, 51, 23),
}
_HAND_RADII = {
    "shoulder": (50, 45), "elbow": (40, 35), "forearm": (33, 27), "wrist": (27, 17), "palm": (40, 15),
    "k1": (9, 8.5), "k2": (9.5, 8.5), "k3": (9, 8.5), "k4": (8, 7.5),
    "m1": (7.5, 7), "m2": (8, 7.5), "m3": (7.5, 7), "m4": (6.5, 6),
    "t1": (6, 5.5), "t2": (6.5, 6), "t3": (6, 5.5), "t4": (5.5, 5),
    "th0": (14, 12), "th1": (10.5, 9.5), "th2": (8.5, 8),
}
_HAND_BONES = [("shoulder", "elbow"), ("elbow", "forearm"), ("forearm", "wrist"), ("wrist", "palm"),
               ("palm", "k1"), ("palm", "k2"), ("palm", "k3"), ("palm", "k4"),
               ("k1", "m1"), ("m1", "t1"), ("k2", "m2"), ("m2", "t2"), ("k3", "m3"), ("m3", "t3"),
               ("k4", "m4"), ("m4", "t4"), ("wrist", "th0"), ("th0", "th1"), ("th1", "th2")]
_SLEEVE = ["shoulder", "elbow", "forearm"]


def hand_parts(tip_xy, reach_deg: float, lift_mm: float = 0.0, scale: float = 1.0, sleeve=None,
               left: bool = False, spread: float = 1.0, curl: float = 1.0) -> list:
    """The arm and hand as skeletons for ``scene.py``: the middle finger's tip over table
    point ``tip_xy`` (about ``17 * scale + lift_mm`` above the table), reaching along
    compass angle ``reach_deg``; a sleeve (linear RGB) over the forearm or bare skin; a
    left hand mirrors the right; ``spread`` fans the fingers, ``curl`` bends them."""
    names = list(_HAND_JOINTS)
    p = np.array([_HAND_JOINTS[n] for n in names], float)
    # A pose: fingers closer together or fanned out, bent more or less.
    for n in names:
        if n[0] in "kmt" and n[1:].isdigit():
            i = names.index(n)
            p[i, 1] *= spread
            knuckle = np.array(_HAND_JOINTS["k" + n[1:]], float)
            p[i, 2] = knuckle[2] + (p[i, 2] - knuckle[2]) * curl
    p = p * scale
    if left:
        p[:, 1] *= -1
    tip = p[names.index("t2")].copy()
    a = math.radians(reach_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    xy = (p[:, :2] - tip[:2]) @ rot.T + np.asarray(tip_xy, float)
    z = p[:, 2] + lift_mm
    joints = np.concatenate([xy, z[:, None]], axis=1)
    radii = [tuple(r * scale for r in _HAND_RADII[n]) for n in names]
    bones = [(names.index(a_), names.index(b_)) for a_, b_ in _HAND_BONES]
    parts = [{"name": "hand", "material": "skin", "joints_mm": joints, "bones": bones, "radii_mm": radii}]
    if sleeve is not None:
        idx = [names.index(n) for n in _SLEEVE]
        sj = joints[idx].copy()
        # The cuff stops short of the wrist.
        wrist = joints[names.index("wrist")]
        sj[-1] = sj[-1] + (wrist - sj[-1]) * 0.55
        sr = [tuple(v + 7 * scale for v in radii[i]) for i in idx]
        parts.append({"name": "sleeve", "material": "sleeve", "joints_mm": sj,
                      "bones": [(0, 1), (1, 2)], "radii_mm": sr})
    return parts


# ---------------------------------------------------------------- lights
LIGHT_RECIPES = ("lamp", "two-lamps", "panel", "window", "window+lamp", "desk-lamp")
BLENDER_AREA_K = 1.0
"""Irradiance of a Blender area light of power P at distance d, on axis, is
``BLENDER_AREA_K * P / (pi d^2)`` (W/m^2; measured: see ``calibrate_light``)."""


def _lamp(rng, kind, target, kelvin):
    tx, ty = target
    if kind == "ceiling":
        h = rng.uniform(1100, 1800)
        r, a = rng.uniform(150, 900), rng.uniform(0, 2 * math.pi)
        loc = (tx + r * math.cos(a), ty + r * math.sin(a), h)
        return {"shape": "DISK", "size_m": [float(rng.uniform(0.25, 0.45))] * 2, "location_mm": loc,
                "target_mm": (tx, ty, 0.0), "kelvin": kelvin}
    if kind == "panel":
        h = rng.uniform(1300, 2000)
        r, a = rng.uniform(0, 700), rng.uniform(0, 2 * math.pi)
        s = [0.6, 0.6] if rng.random() < 0.5 else [1.2, 0.3]
        loc = (tx + r * math.cos(a), ty + r * math.sin(a), h)
        return {"shape": "RECTANGLE", "size_m": s, "location_mm": loc, "target_mm": (loc[0], loc[1], 0.0),
                "kelvin": kelvin}
    if kind == "window":
        d, a = rng.uniform(1200, 3000), rng.uniform(0, 2 * math.pi)
        loc = (tx + d * math.cos(a), ty + d * math.sin(a), rng.uniform(400, 1200))
        return {"shape": "RECTANGLE", "size_m": [float(rng.uniform(0.9, 1.4)), float(rng.uniform(1.0, 1.4))],
                "location_mm": loc, "target_mm": (tx, ty, 0.0), "kelvin": kelvin}
    # a desk lamp: small, close, harsh shadows
    r, a = rng.uniform(250, 500), rng.uniform(0, 2 * math.pi)
    loc = (tx + r * math.cos(a), ty + r * math.sin(a), rng.uniform(350, 600))
    return {"shape": "DISK", "size_m": [float(rng.uniform(0.06, 0.12))] * 2, "location_mm": loc,
            "target_mm": (tx, ty, 0.0), "kelvin": kelvin}


def draw_lights(recipe: str, rng, target=(0.0, 0.0)) -> tuple:
    """``(lights, room)``: the lamps and windows of a recipe (LIGHT_RECIPES) with their
    share of the light on the table, and the room's diffuse light (walls, ceiling)."""
    K = lambda lo, hi: float(rng.uniform(lo, hi))
    if recipe == "lamp":
        lights = [(_lamp(rng, "ceiling", target, K(2700, 3500)), 1.0)]
        room = (K(2800, 3500), K(0.12, 0.3))
    elif recipe == "two-lamps":
        lights = [(_lamp(rng, "ceiling", target, K(2700, 3300)), 0.6), (_lamp(rng, "ceiling", target, K(3500, 5000)), 0.4)]
        room = (K(3000, 4000), K(0.12, 0.3))
    elif recipe == "panel":
        lights = [(_lamp(rng, "panel", target, K(4000, 6500)), 1.0)]
        room = (K(4000, 6000), K(0.15, 0.35))
    elif recipe == "window":
        lights = [(_lamp(rng, "window", target, K(5500, 7500)), 1.0)]
        room = (K(6000, 9000), K(0.3, 0.6))
    elif recipe == "window+lamp":
        lights = [(_lamp(rng, "window", target, K(5500, 7000)), 0.55), (_lamp(rng, "ceiling", target, K(2700, 3200)), 0.45)]
        room = (K(4500, 6500), K(0.2, 0.4))
    elif recipe == "desk-lamp":
        lights = [(_lamp(rng, "desk", target, K(2700, 3300)), 0.8), (_lamp(rng, "ceiling", target, K(2700, 3500)), 0.2)]
        room = (K(2800, 3500), K(0.08, 0.2))
    else:
        raise ValueError(f"unknown light recipe {recipe!r}: {', '.join(LIGHT_RECIPES)}")
    return [dict(L, share=s) for L, s in lights], {"kelvin": room[0], "share": room[1]}


def irradiance_per_watt(light: dict, point=(0.0, 0.0, 0.0)) -> float:
    """Irradiance on the horizontal table at ``point`` (mm) per watt of an area light."""
    loc = np.asarray(light["location_mm"], float) / 1000.0
    tgt = np.asarray(light["target_mm"], float) / 1000.0
    p = np.asarray(point, float) / 1000.0
    v = loc - p
    d2 = float(v @ v)
    cos_s = max(0.0, v[2] / math.sqrt(d2))
    axis = (tgt - loc) / np.linalg.norm(tgt - loc)
    cos_l = max(0.0, float(-(v / math.sqrt(d2)) @ axis))
    return BLENDER_AREA_K * cos_l * cos_s / (math.pi * d2)


def light_descriptions(lights, room, point=(0.0, 0.0, 0.0), irradiance: float = 1.0) -> tuple:
    """Blender lights (powers set so that each light gives its share of ``irradiance``
    at ``point``), the room's background, and the radiance of a white card (albedo
    0.85) there (to scale the image)."""
    out = []
    for L in lights:
        e = irradiance * L["share"]
        power = e / max(irradiance_per_watt(L, point), 1e-9)
        # Blender's light colours stop at 1: the brightest channel is 1 and the power
        # makes up the luminance lost.
        rgb = np.asarray(kelvin_rgb(L["kelvin"]))
        colour = rgb / rgb.max()
        lum = float(colour @ [0.2126, 0.7152, 0.0722])
        out.append({"shape": L["shape"], "size_m": list(L["size_m"]),
                    "location_m": [v / 1000.0 for v in L["location_mm"]],
                    "target_m": [v / 1000.0 for v in L["target_mm"]],
                    "colour": colour.tolist(), "power_w": float(power / lum), "kelvin": L["kelvin"]})
    # A uniform background of radiance B lights a horizontal plane with pi * B.
    b = irradiance * room["share"] / math.pi
    rgb = np.asarray(kelvin_rgb(room["kelvin"]))
    colour = rgb / rgb.max()
    world = {"colour": colour.tolist(), "strength": float(b / (colour @ [0.2126, 0.7152, 0.0722])),
             "kelvin": room["kelvin"]}
    e_total = irradiance * (sum(L["share"] for L in lights) + room["share"])
    return out, world, 0.85 * e_total / math.pi


def glare_lamp(camera_pos_mm, point_mm, rng, kelvin: float) -> dict:
    """A ceiling lamp placed where its mirror image in the table, seen from the camera,
    falls on ``point_mm``: the reflection of a flat, glossy card lies there."""
    c = np.asarray(camera_pos_mm, float)
    p = np.asarray(point_mm, float)
    lz = rng.uniform(900, 1600)
    f = (c[2] + lz) / c[2]
    xy = c[:2] + (p[:2] - c[:2]) * f
    return {"shape": "DISK", "size_m": [float(rng.uniform(0.12, 0.3))] * 2,
            "location_mm": (float(xy[0]), float(xy[1]), float(lz)), "target_mm": (float(p[0]), float(p[1]), 0.0),
            "kelvin": kelvin}


# ---------------------------------------------------------------- cameras
@dataclass(frozen=True)
class CameraKind:
    """Ranges a camera is drawn from: frame ``size``, horizontal field of view, the
    card's long side in pixels for frames of play (``card_px``) and for photos of a card
    alone (``alone_px``), tilt off the vertical, radial distortion, the sensor's width,
    the aperture; ``fixed``: a webcam on a stand (one pose for the table) or a phone held
    by hand (a pose per photo)."""

    name: str
    size: tuple
    hfov_deg: tuple
    card_px: tuple
    alone_px: tuple
    tilt_deg: tuple
    k1: tuple
    sensor_mm: tuple
    fstop: tuple
    fixed: bool


CAMERA_KINDS = {
    "webcam960": CameraKind("webcam960", (960, 540), (60.0, 78.0), (210.0, 260.0), (210.0, 260.0), (0.0, 10.0),
                            (-0.12, -0.02), (3.6, 4.8), (2.0, 2.8), True),
    "webcam640": CameraKind("webcam640", (640, 480), (55.0, 72.0), (130.0, 180.0), (130.0, 180.0), (0.0, 10.0),
                            (-0.10, -0.02), (3.6, 4.8), (2.0, 2.8), True),
    "phone": CameraKind("phone", (1280, 960), (63.0, 72.0), (110.0, 290.0), (220.0, 380.0), (5.0, 30.0),
                        (-0.02, 0.0), (5.6, 7.2), (1.6, 2.0), False),
}


def draw_camera(kind: CameraKind, rng, target=(0.0, 0.0), card_px=None, lens=None) -> Camera:
    """A camera of ``kind`` looking at ``target`` (mm) with cards ``card_px`` long (or
    drawn from the kind's range). ``lens`` (hfov, sensor, fstop, k1), when given, is kept
    (a phone's lens does not change between photos)."""
    u = lambda r: float(rng.uniform(*r)) if r[0] != r[1] else float(r[0])
    hfov, sensor, fstop, k1 = lens or (u(kind.hfov_deg), u(kind.sensor_mm), u(kind.fstop), u(kind.k1))
    px = float(card_px if card_px is not None else u(kind.card_px))
    tilt = u(kind.tilt_deg)
    if kind.fixed:
        # A webcam on a stand is set up roughly square to the table.
        roll = float(rng.uniform(-15, 15) + 90 * rng.integers(4))
    else:
        roll = float(rng.uniform(0, 360))
    cam = Camera.above(kind.size, hfov, target, px / CARD_LONG_MM, tilt_deg=tilt,
                       tilt_towards_deg=float(rng.uniform(0, 360)), roll_deg=roll, k1=k1,
                       k2=float(rng.uniform(0.0, 0.02)) if k1 < -0.05 else 0.0,
                       sensor_mm=sensor, fstop=fstop, name=kind.name)
    dist = float(np.linalg.norm(np.asarray(cam.position) - np.array([target[0], target[1], 0.0])))
    if kind.fixed and rng.random() < 0.5:
        cam.focus_mm = float(rng.uniform(500, 1200))          # a fixed-focus webcam
    else:
        cam.focus_mm = dist * float(rng.uniform(0.95, 1.08))   # autofocus on the table
    cam.extra = {"lens": [hfov, sensor, fstop, k1], "card_px": px, "tilt_deg": tilt, "roll_deg": roll}
    return cam


# ---------------------------------------------------------------- tables and frames
DESIGN_POOL = ("touati-standard", "nicu-white", "kennard-2color", "gm-paris", "bellot", "tigullio-international",
               "kennard-4color", "ancient-egyptians", "kennard-2color-big", "jolly-royal", "nicu-ornamental",
               "kennard-4color-big")
"""Designs the world plays, in the order tables take them: validation KDE designs and
the npm designs (never the tuning designs). ancient-egyptians and touati-standard are
tuning data now (``bench.vision_sets.STUDIED_DESIGNS``): the figures for them are not
validation figures."""

TABLE_KINDS = (
    ("wood:walnut:satin", "webcam960", "lamp"),
    ("wood:pine:matte", "webcam960", "window+lamp"),
    ("felt:green", "webcam640", "panel"),
    ("mat:A4:wood:cherry:gloss", "webcam960", "lamp"),
    ("pattern:tartan", "webcam960", "two-lamps"),
    ("carpet:loop", "phone", "window"),
    ("tiles:ceramic", "phone", "panel"),
    ("wood:mahogany:gloss", "webcam640", "desk-lamp"),
    ("mat:A3:felt:navy", "webcam960", "window"),
    ("cloth:burgundy", "webcam960", "panel"),
    ("pattern:checks", "phone", "lamp"),
    ("tiles:marble", "webcam640", "window+lamp"),
    ("wood:oak:matte", "webcam960", "two-lamps"),
    ("felt:black", "webcam960", "lamp"),
    ("pattern:print", "webcam640", "panel"),
    ("wood:greywash:matte", "phone", "window"),
)
"""The tables in the order they are made: surface, camera, lights."""

FRAME_KINDS = ("play", "hand", "overlap", "glare")
DEFAULT_FRAMES = {"play": 4, "hand": 2, "overlap": 1, "glare": 1}


@dataclass
class Table:
    """One table: surface, lights and camera, and the designs played on it."""

    index: int
    key: str
    surface: str
    camera_kind: str
    light_recipe: str
    designs: tuple
    seed: int
    spec: dict = None
    mat: MatSheet = None
    lights: list = None
    room: dict = None
    camera: Camera = None           # the webcam's (fixed) pose; a phone's lens only
    deck_look: dict = None          # per design: gloss and back colour

    @property
    def kind(self) -> CameraKind:
        return CAMERA_KINDS[self.camera_kind]

    @property
    def group(self) -> str:
        """The surface group for the report: wood, felt, cloth, pattern, carpet, tiles, mat."""
        return self.surface.split(":")[0]


def _rng(*keys) -> np.random.Generator:
    return np.random.default_rng([int(k) if not isinstance(k, str) else sum(map(ord, k)) * 7919 + len(k)
                                  for k in keys])


def plan_tables(n: int, seed: int = 0, designs_per_table: int = 3) -> list:
    """The first ``n`` tables of the world (TABLE_KINDS in turn, then again with other
    details), each with ``designs_per_table`` designs from DESIGN_POOL."""
    out = []
    for i in range(n):
        surface, cam_kind, recipe = TABLE_KINDS[i % len(TABLE_KINDS)]
        designs = tuple(DESIGN_POOL[(designs_per_table * i + j) % len(DESIGN_POOL)] for j in range(designs_per_table))
        key = f"t{i:02d}-{surface.replace(':', '-')}-{cam_kind}"
        t = Table(i, key, surface, cam_kind, recipe, designs, seed)
        rng = _rng(seed, i, "table")
        base = surface
        if surface.startswith("mat:"):
            base = ":".join(surface.split(":")[2:])
        t.spec = table_spec(base, rng)
        target = (0.0, 0.0)
        if surface.startswith("mat:"):
            t.mat = draw_mat(surface.split(":")[1], rng, centre=(0.0, 0.0),
                             rotation_deg=float(rng.uniform(-6, 6)))
        t.lights, t.room = draw_lights(recipe, rng, target)
        kind = t.kind
        if kind.fixed:
            px = None
            if t.mat is not None:
                # The whole mat in view, as the set-up asks.
                lay = t.mat.layout
                w, h = kind.size
                fit = 0.9 * min(w / lay.width_mm, h / lay.height_mm) * CARD_LONG_MM
                px = min(float(rng.uniform(*kind.card_px)), fit)
            t.camera = draw_camera(kind, rng, target, card_px=px)
            if t.mat is not None:
                # Square to the mat, tilted a little at most.
                t.camera = Camera.above(kind.size, t.camera.extra["lens"][0], target, t.camera.extra["card_px"] / CARD_LONG_MM,
                                        tilt_deg=min(t.camera.extra["tilt_deg"], 5.0),
                                        tilt_towards_deg=float(rng.uniform(0, 360)),
                                        roll_deg=t.mat.rotation_deg + float(rng.uniform(-5, 5)),
                                        k1=t.camera.k1, k2=t.camera.k2, sensor_mm=t.camera.sensor_mm,
                                        fstop=t.camera.fstop, focus_mm=t.camera.focus_mm, name=kind.name,
                                        extra=t.camera.extra)
        else:
            lens = (float(rng.uniform(*kind.hfov_deg)), float(rng.uniform(*kind.sensor_mm)),
                    float(rng.uniform(*kind.fstop)), float(rng.uniform(*kind.k1)))
            t.camera = Camera.above(kind.size, lens[0], target, 2.0, sensor_mm=lens[1], fstop=lens[2],
                                    k1=lens[3], name=kind.name, extra={"lens": list(lens)})
        t.deck_look = {}
        for d in designs:
            r = _rng(seed, i, d, "deck")
            # A semi-gloss coating: a broad sheen from the paper, a sharper reflection
            # from the varnish (Blender's clearcoat reflects a quarter of the usual 4%).
            t.deck_look[d] = {"gloss": {"rough": float(r.uniform(0.25, 0.45)), "spec": 0.5,
                                        "coat": float(r.uniform(0.6, 1.0)), "coat_rough": float(r.uniform(0.04, 0.15)),
                                        "texture": float(r.uniform(0.02, 0.08))},
                              "back": srgb_to_linear(["#9c1d24", "#1f3b8c", "#2a5e36", "#222222"][int(r.integers(4))]),
                              "stock": srgb_to_linear([float(r.uniform(0.93, 0.99))] * 2 + [float(r.uniform(0.9, 0.97))])}
        out.append(t)
    return out


@dataclass
class Placement:
    """A card lying on the table."""

    card: str
    centre: tuple
    rotation_deg: float
    bow_mm: float = 0.0
    bow_long: bool = True
    twist_mm: float = 0.0
    base_z: float = 0.0


@dataclass
class Frame:
    """One frame to render: its id (a file name), design, kind (``empty``, ``alone``,
    ``play``, ``hand``, ``overlap``, ``glare``), the camera, the cards (later ones on
    top), a hand, extra lamps, the part of the canvas to render (None: all) and the
    Cycles seed."""

    id: str
    design: str
    kind: str
    camera: Camera
    placements: list
    hand: dict = None
    extra_lights: list = field(default_factory=list)
    region: tuple = None
    seed: int = 0
    base: str = None            # the frame rendered outside ``region`` (the empty table)
    note: dict = field(default_factory=dict)


# ---------------------------------------------------------------- laying cards
def upright_deg(cam: Camera, at) -> float:
    """The card rotation (degrees) that shows a card at table point ``at`` upright in
    the frame."""
    p = cam.project([[at[0], at[1], 0.0], [at[0], at[1] + 10.0, 0.0]])
    d = p[1] - p[0]
    alpha = math.degrees(math.atan2(-d[1], d[0]))
    return 90.0 - alpha


def _bend(rng, small=False):
    lim = 0.3 if small else 1.5
    return {"bow_mm": float(np.clip(rng.normal(0, 0.15 if small else 0.6), -lim, lim)),
            "bow_long": bool(rng.random() < 0.7), "twist_mm": float(rng.uniform(-0.3, 0.3) if not small else 0.0)}


def card_size(design: str, card: str) -> tuple:
    """The card's size in mm: 88 mm long, as wide as the design's art is."""
    from vision import art
    face = art.card_image(design, card, height=FACE_PX)
    return (CARD_LONG_MM * face.shape[1] / face.shape[0], CARD_LONG_MM)


FACE_PX = 900
"""The height of the face textures (pixels)."""


def _outline_px(cam, size, centre, rot):
    m = card_mesh(size, centre, rot)
    return cam.project(m["corners_mm"])


def _fits(cam, corners_px, margin=6.0) -> bool:
    w, h = cam.size
    c = np.asarray(corners_px)
    return bool(c[:, 0].min() >= margin and c[:, 1].min() >= margin and c[:, 0].max() <= w - 1 - margin
                and c[:, 1].max() <= h - 1 - margin)


def _overlaps(a, b, gap=1.06) -> bool:
    import cv2
    ra = ((float(a[0][0]), float(a[0][1])), (a[1][0] * gap, a[1][1] * gap), float(a[2]))
    rb = ((float(b[0][0]), float(b[0][1])), (b[1][0] * gap, b[1][1] * gap), float(b[2]))
    return cv2.rotatedRectangleIntersection(ra, rb)[0] != cv2.INTERSECT_NONE


def lay_apart(cam: Camera, rng, cards, size, mat: MatSheet = None) -> list:
    """Cards lying apart, wholly in view (on the mat: at the seats' play areas)."""
    out = []
    if mat is not None:
        lay = mat.layout
        for card, zone, facing in zip(cards, ("N", "E", "S", "W"), (180.0, 90.0, 0.0, 270.0)):
            mx, my = lay.zone_centre(zone)
            mx, my = mx + rng.uniform(-8, 8), my + rng.uniform(-8, 8)
            at = mat.to_table(mx, my)
            rot = mat.rotation_deg + facing + (rng.normal(0, 20) if rng.random() < 0.75 else rng.uniform(0, 360))
            out.append(Placement(card, (float(at[0]), float(at[1])), float(rot), **_bend(rng)))
        return out
    w, h = cam.size
    rects = []
    for card in cards:
        for _ in range(200):
            at = cam.table_point(rng.uniform(0.08, 0.92) * w, rng.uniform(0.1, 0.9) * h)
            rot = float(rng.uniform(0, 360))
            px = _outline_px(cam, size, at, rot)
            if not _fits(cam, px):
                continue
            rect = ((at[0], at[1]), (size[0], size[1]), -rot)
            if any(_overlaps(rect, r) for r in rects):
                continue
            rects.append(rect)
            out.append(Placement(card, (float(at[0]), float(at[1])), rot, **_bend(rng)))
            break
    if len(out) == len(cards):
        return out
    # Big cards in a small frame: side by side, nearly upright, as people lay them.
    for _ in range(200):
        out, rects, ok = [], [], True
        n = len(cards)
        for k, card in enumerate(cards):
            at = cam.table_point((k + 0.5) / n * w + rng.uniform(-0.02, 0.02) * w, h * rng.uniform(0.42, 0.58))
            rot = upright_deg(cam, at) + float(rng.choice([0.0, 180.0])) + float(rng.uniform(-10, 10))
            px = _outline_px(cam, size, at, rot)
            rect = ((at[0], at[1]), (size[0], size[1]), -rot)
            if not _fits(cam, px, 3.0) or any(_overlaps(rect, r, 1.02) for r in rects):
                ok = False
                break
            rects.append(rect)
            out.append(Placement(card, (float(at[0]), float(at[1])), rot, **_bend(rng)))
        if ok:
            return out
    raise RuntimeError(f"could not lay {len(cards)} cards apart in view of the {cam.name}")


def lay_alone(cam: Camera, rng, card, size) -> Placement:
    """One card near the middle of the view, about upright (sometimes across), as a
    user lays it for calibration."""
    w, h = cam.size
    for _ in range(100):
        at = cam.table_point(w * (0.5 + rng.uniform(-0.08, 0.08)), h * (0.5 + rng.uniform(-0.08, 0.08)))
        rot = upright_deg(cam, at) + float(rng.uniform(-12, 12)) + (90.0 if rng.random() < 0.2 else 0.0)
        if _fits(cam, _outline_px(cam, size, at, rot)):
            return Placement(card, (float(at[0]), float(at[1])), rot, **_bend(rng))
    raise RuntimeError(f"a card does not fit in the {cam.name}'s view")


def lay_overlapping(cam: Camera, rng, cards, size) -> list:
    """A trick being gathered: each card partly on the one before."""
    w, h = cam.size
    for _ in range(200):
        at = np.asarray(cam.table_point(w * (0.5 + rng.uniform(-0.1, 0.1)), h * (0.5 + rng.uniform(-0.1, 0.1))))[:2]
        out = []
        for k, card in enumerate(cards):
            rot = float(rng.uniform(0, 360))
            out.append(Placement(card, (float(at[0]), float(at[1])), rot, **_bend(rng, small=True),
                                 base_z=0.55 * k))
            a = rng.uniform(0, 2 * math.pi)
            at = at + rng.uniform(18, 45) * np.array([math.cos(a), math.sin(a)])
        if all(_fits(cam, _outline_px(cam, size, p.centre, p.rotation_deg), 2.0) for p in out):
            return out
    raise RuntimeError("could not lay overlapping cards in view")


def reach_for(cam: Camera, rng, p: Placement, size, over: bool) -> dict:
    """A hand reaching in over the table from the frame's nearest edge: its middle
    fingertip over the card (covering the near part of it) or just beside it."""
    w, h = cam.size
    at = np.asarray(p.centre, float)
    a = math.radians(p.rotation_deg)
    up, right = np.array([-math.sin(a), math.cos(a)]), np.array([math.cos(a), math.sin(a)])
    for _ in range(100):
        if over:
            tip = at + up * rng.uniform(-0.3, 0.3) * size[1] + right * rng.uniform(-0.3, 0.3) * size[0]
        else:
            # Beside the card: outside its outline by 8-25 mm, on a random side.
            ang = rng.uniform(0, 2 * math.pi)
            d = math.cos(ang) * right + math.sin(ang) * up
            reach_out = min(abs(size[0] / 2 / (math.cos(ang) or 1e-9)), abs(size[1] / 2 / (math.sin(ang) or 1e-9)))
            tip = at + d * (reach_out + rng.uniform(8, 25))
        u, v = cam.project([[tip[0], tip[1], 0.0]])[0]
        if 40 <= u <= w - 41 and 40 <= v <= h - 41:
            break
    # The arm comes from the nearest edge of the frame.
    edges = [(u, (0.0, v)), (w - 1 - u, (w - 1.0, v)), (v, (u, 0.0)), (h - 1 - v, (u, h - 1.0))]
    edge = min(edges, key=lambda e: e[0])[1]
    e = cam.table_point(*edge)[:2]
    reach = math.degrees(math.atan2(tip[1] - e[1], tip[0] - e[0])) + float(rng.uniform(-25, 25))
    lift = float(rng.uniform(0, 20) if over else rng.uniform(0, 40))
    sleeve = srgb_to_linear(["#2c3e66", "#7a1f1f", "#3b3b3b", "#d9d4c7", "#4f6b3a", "#a0a0a0"][int(rng.integers(6))]) \
        if rng.random() < 0.5 else None
    skin = srgb_to_linear(["#f1c7a9", "#e0ac8a", "#c68a64", "#9c6444", "#6e4330", "#4a2d21"][int(rng.integers(6))])
    return {"tip": tip.tolist(), "reach_deg": reach, "lift_mm": lift, "scale": float(rng.uniform(0.88, 1.05)),
            "sleeve": sleeve, "skin": skin, "left": bool(rng.random() < 0.3), "over": over, "card": p.card,
            "spread": float(rng.uniform(0.55, 1.2)), "curl": float(rng.uniform(0.8, 1.5))}


# ---------------------------------------------------------------- the frames of a table
def canvas_region(cam: Camera, pts_mm, margin: float = 24.0) -> tuple:
    """The canvas rectangle (x0, y0, x1, y1, in pixels) holding the ideal projection of
    table points, grown by ``margin`` pixels (shadows, blur), clipped to the canvas."""
    cw, ch = cam.canvas_size()
    p = cam.project(pts_mm, distorted=False)
    cx, cy = cam.centre
    p = p - [cx, cy] + [(cw - 1) / 2, (ch - 1) / 2]
    m = margin + cam.blur_px(np.linalg.norm(np.asarray(cam.position))) * 2
    x0, y0 = np.floor(p.min(axis=0) - m).astype(int)
    x1, y1 = np.ceil(p.max(axis=0) + m).astype(int)
    return (int(max(0, x0)), int(max(0, y0)), int(min(cw, x1)), int(min(ch, y1)))


def table_frames(table: Table, counts=None, cards=None) -> list:
    """Every frame of a table: for a webcam the empty table, then per design each card
    alone (as the calibration shows them: only the card's part of the canvas is
    rendered, over the empty table) and the frames of play; for a phone, per design a
    photo of each card alone and the photos of play, each from its own pose."""
    from engine.cards import DECK
    counts = dict(DEFAULT_FRAMES if counts is None else counts)
    cards = [str(c) for c in (cards or DECK)]
    kind = table.kind
    out = []
    base_seed = int(_rng(table.seed, table.index, "cycles").integers(1 << 20))
    if kind.fixed:
        out.append(Frame("empty", None, "empty", table.camera, [], seed=base_seed))
    for design in table.designs:
        size = card_size(design, cards[0])
        cal_cam, empty_id, cal_seed = table.camera, "empty", base_seed
        if not kind.fixed:
            # Photos of each card alone: the phone held over the same spot while the
            # cards are swapped (a pose per design); only the card's part is rendered.
            rng = _rng(table.seed, table.index, design, "phone-pose")
            cal_cam = draw_camera(kind, rng, rng.uniform(-60, 60, 2), card_px=float(rng.uniform(*kind.alone_px)),
                                  lens=table.camera.extra["lens"])
            empty_id, cal_seed = f"{design}.empty", int(rng.integers(1 << 20))
            out.append(Frame(empty_id, design, "empty", cal_cam, [], seed=cal_seed))
        for ci, card in enumerate(cards):
            rng = _rng(table.seed, table.index, design, "alone", ci)
            p = lay_alone(cal_cam, rng, card, size)
            if table.mat is not None:
                p.base_z = table.mat.top_under(card_mesh(size, p.centre, p.rotation_deg)["corners_mm"])
            m = card_mesh(size, p.centre, p.rotation_deg, p.bow_mm, p.bow_long, p.twist_mm, p.base_z)
            region = canvas_region(cal_cam, m["verts_mm"])
            out.append(Frame(f"{design}.alone.{card}", design, "alone", cal_cam, [p], region=region,
                             seed=cal_seed, base=empty_id))
        for fk in FRAME_KINDS:
            for k in range(counts.get(fk, 0)):
                rng = _rng(table.seed, table.index, design, fk, k)
                cam = table.camera
                if not kind.fixed:
                    target = rng.uniform(-80, 80, 2)
                    cam = draw_camera(kind, rng, target, lens=table.camera.extra["lens"])
                n = int(rng.integers(2, 5)) if fk == "overlap" else 4
                pick = [cards[int(i)] for i in rng.choice(len(cards), size=min(n, len(cards)), replace=False)]
                hand, extra = None, []
                if fk == "overlap":
                    places = lay_overlapping(cam, rng, pick, size)
                else:
                    places = lay_apart(cam, rng, pick, size, table.mat)
                if table.mat is not None:
                    tops = [table.mat.top_under(card_mesh(size, p.centre, p.rotation_deg)["corners_mm"]) for p in places]
                    if fk == "overlap":
                        # Stacked on the paper: each card still above the one before (the
                        # paper's height under each differs by more than their spacing).
                        for p in places:
                            p.base_z += max(tops)
                    else:
                        for p, top in zip(places, tops):
                            p.base_z = max(p.base_z, top)
                if fk == "hand":
                    target_card = places[int(rng.integers(len(places)))]
                    hand = reach_for(cam, rng, target_card, size, over=bool(rng.random() < 0.6))
                if fk == "glare":
                    p = places[int(rng.integers(len(places)))]
                    corners = card_mesh(size, p.centre, p.rotation_deg)["corners_mm"]
                    wts = rng.dirichlet(np.ones(4))
                    point = (wts[:, None] * corners).sum(axis=0)
                    lamp = glare_lamp(cam.position, point, rng, float(rng.uniform(2700, 5000)))
                    extra = [dict(lamp, share=float(rng.uniform(0.4, 1.0)))]
                out.append(Frame(f"{design}.{fk}.{k}", design, fk, cam, places, hand=hand, extra_lights=extra,
                                 seed=base_seed if kind.fixed else int(rng.integers(1 << 20))))
    return out


def scene_job(table: Table, frame: Frame, out_dir: str, samples: int = 24, mat_png: str = None) -> dict:
    """The description ``scene.py`` renders for one frame."""
    from vision import art
    cam = frame.camera
    target = cam.table_point(*cam.centre)
    lights, world, white = light_descriptions(table.lights + frame.extra_lights, table.room, target)
    job = {"out_dir": out_dir, "image": f"{frame.id}.png", "index": f"{frame.id}.index.png",
           "render": {"canvas": list(cam.canvas_size()), "samples": samples, "seed": frame.seed,
                      "region": list(frame.region) if frame.region else None, "scale": WHITE_LEVEL / white,
                      "threads": 1},
           "camera": cam.blender(), "world": world, "lights": lights, "table": dict(table.spec), "cards": []}
    if table.mat is not None:
        m = table.mat.mesh()
        r = _rng(table.seed, table.index, "paper")
        job["mat"] = {"verts_m": (m["verts_mm"] / 1000.0).tolist(), "faces": m["faces"], "uvs": m["uvs"].tolist(),
                      "image": mat_png, "paper": srgb_to_linear([0.95, 0.94, 0.91]),
                      "ink": srgb_to_linear([0.16, 0.16, 0.17]), "rough": float(r.uniform(0.5, 0.75))}
    look = table.deck_look.get(frame.design) if frame.design else None
    for k, p in enumerate(frame.placements):
        size = card_size(frame.design, p.card)
        m = card_mesh(size, p.centre, p.rotation_deg, p.bow_mm, p.bow_long, p.twist_mm, p.base_z)
        art.card_image(frame.design, p.card, height=FACE_PX)
        face = art.cache_dir() / frame.design / f"{p.card}_{FACE_PX}.png"
        job["cards"].append({"index": k + 1, "card": p.card, "face": str(face),
                             "verts_m": (m["verts_mm"] / 1000.0).tolist(), "faces": m["faces"],
                             "uvs": m["uvs"].tolist(), "thickness_m": CARD_THICKNESS_MM / 1000.0,
                             "gloss": look["gloss"], "back": look["back"], "stock": look["stock"]})
    if frame.hand:
        h = frame.hand
        parts = hand_parts(h["tip"], h["reach_deg"], h["lift_mm"], h["scale"], h["sleeve"], h["left"],
                           h.get("spread", 1.0), h.get("curl", 1.0))
        job["hand"] = {"skin": h["skin"], "sleeve": h["sleeve"],
                       "parts": [{"name": pt["name"], "material": pt["material"],
                                  "joints_m": (np.asarray(pt["joints_mm"]) / 1000.0).tolist(),
                                  "bones": pt["bones"],
                                  "radii_m": [[r[0] / 1000.0, r[1] / 1000.0] for r in pt["radii_mm"]]}
                                 for pt in parts]}
    return job


HAND_INDEX, MAT_INDEX = 100, 200


def frame_truth(table: Table, frame: Frame, index_map: np.ndarray) -> list:
    """The truth of a rendered frame, per card (bottom to top): its name, design, the
    four corners in the frame (pixels, top-left of the face first, clockwise as the
    face reads), its centre, its long side in pixels, whether it lies wholly in the
    frame (``whole``), and the shares of it that are seen (``visible``), under the hand
    (``hidden_by_hand``), under other cards (``hidden_by_cards``) and outside the frame
    (``outside``), from ``index_map`` (the object-index pass bent into the frame)."""
    import cv2
    cam = frame.camera
    w, h = cam.size
    out = []
    for k, p in enumerate(frame.placements):
        size = card_size(frame.design, p.card)
        m = card_mesh(size, p.centre, p.rotation_deg, p.bow_mm, p.bow_long, p.twist_mm, p.base_z)
        c = cam.project(m["corners_mm"])
        # The outline bowed by the lens: sample the sides, not just the corners.
        t = np.linspace(0, 1, 12, endpoint=False)
        cm = m["corners_mm"]
        side = np.concatenate([cm[i] + (cm[(i + 1) % 4] - cm[i]) * t[:, None] for i in range(4)])
        outline = cam.project(side)
        area = 0.5 * abs(float(np.dot(outline[:, 0], np.roll(outline[:, 1], 1)) -
                               np.dot(outline[:, 1], np.roll(outline[:, 0], 1))))
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=4)
        inside = mask.astype(bool)
        n_in = int(inside.sum())
        idx = index_map[inside]
        own = int((idx == k + 1).sum())
        by_hand = int((idx == HAND_INDEX).sum())
        by_cards = int(((idx >= 1) & (idx < HAND_INDEX) & (idx != k + 1)).sum())
        whole = bool(c[:, 0].min() >= 0 and c[:, 1].min() >= 0 and c[:, 0].max() <= w - 1 and c[:, 1].max() <= h - 1)
        longs = [np.linalg.norm(c[1] - c[2]), np.linalg.norm(c[3] - c[0])]
        out.append({"card": p.card, "design": frame.design, "corners": np.round(c, 2).tolist(),
                    "corners_mm": np.round(m["corners_mm"], 3).tolist(), "centre": np.round(c.mean(axis=0), 2).tolist(),
                    "card_px": round(float(np.mean(longs)), 1), "whole": whole,
                    "visible": round(own / max(area, 1.0), 4), "hidden_by_hand": round(by_hand / max(area, 1.0), 4),
                    "hidden_by_cards": round(by_cards / max(area, 1.0), 4),
                    "outside": round(max(0.0, 1 - n_in / max(area, 1.0)), 4)})
    return out
