"""Synthetic camera frames of the table, composed from real card art (KDE decks, SVG decks from npm), for tests, benchmarks and the virtual table.

A frame is built the way the camera would see it: a table (cloth, or a surface from
vision.synth_surfaces: felt, wood, patterned cloth, carpet, tiles, the printed mat),
the mat's ArUco markers, cards laid at positions in mat millimetres (or named zones),
each optionally carrying its QR sticker, then the camera's view and its faults. With
``camera=`` the view is a pinhole camera above the table with a real lens, light and
sensor (vision.synth_physical); without it, a homography (scale, roll, perspective) and
faults added to the 8-bit image (blur, sensor noise, uneven light, glare, JPEG, a hand
partly over a card), as the older tests and benchmarks were made.

>>> from vision.art import art_available
>>> if art_available():
...     img, truth = compose_frame([("JH", "S", 20), {"card": "9C", "at": "N", "sticker": False}],
...                                size=(640, 480), rng=1, blur=0.8, noise=3)
...     img.shape, [str(t["card"]) for t in truth], truth[0]["zone"]
... else:
...     ((480, 640, 3), ['JH', '9C'], 'S')
((480, 640, 3), ['JH', '9C'], 'S')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import cv2
import numpy as np

from engine.cards import Card
from vision.zones import MatLayout

CARD_HEIGHT_MM = 88.0
"""Poker-size cards (63 × 88 mm); the width follows each design's own proportions."""

CLOTHS = {
    "green": (48, 112, 36), "blue": (120, 66, 28), "red": (38, 34, 128),
    "wood": (52, 86, 128), "grey": (105, 105, 100), "dark": (38, 36, 34),
    "teal": (100, 100, 20), "purple": (90, 40, 80),
}
"""Cloth colours (BGR) the composer picks from."""

SKIN = [(120, 150, 205), (90, 125, 180), (60, 90, 140), (150, 180, 225), (45, 65, 100)]


@dataclass
class Placement:
    """A card on the table: where (``at``: a zone name or ``(x, y)`` mat mm), turned
    ``rotation`` degrees (clockwise), with or without its QR sticker, in which card
    design ``deck`` (None: the frame's deck). ``sticker_mm`` is the sticker's side with its
    quiet zone; ``sticker_offset`` moves it from the card's centre (mm, card axes).

    Placements may also be given as dicts with these keys or as tuples
    ``(card, at[, rotation[, sticker]])``.
    """

    card: Card
    at: Union[str, tuple] = "UP"
    rotation: float = 0.0
    sticker: bool = True
    deck: Optional[str] = None
    sticker_mm: float = 45.0
    sticker_offset: tuple = (0.0, 0.0)
    jitter_mm: float = 0.0

    @classmethod
    def of(cls, item) -> "Placement":
        if isinstance(item, Placement):
            return item
        if isinstance(item, dict):
            return cls(**{**item, "card": Card(item["card"])})
        if isinstance(item, (tuple, list)):
            if not 1 <= len(item) <= 4:
                raise ValueError(f"placement {item!r}: give (card, at, rotation, sticker)")
            return cls(Card(item[0]), *item[1:])
        if isinstance(item, str):
            return cls(Card(item))
        raise TypeError(f"placement {item!r}: give a Placement, a dict or a tuple")


class Truth(list):
    """What is really in a composed frame: one dict per card, in placement order, with
    ``card``, ``deck``, ``zone``, ``centre`` (image px), ``corners`` (card face TL, TR,
    BR, BL in image px), ``sticker`` (bool), ``code_corners`` (the QR symbol's corners,
    None without a sticker), ``sticker_corners`` (the same with the quiet zone),
    ``code_px`` (the code's side in image px), ``code_visible`` (fraction of the
    sticker, quiet zone included, in the frame and not covered), ``code_in_frame``
    (the whole sticker lies inside the frame), ``card_visible``
    and ``covered_by_hand`` (bool).

    ``homography`` maps mat mm to image px and ``layout`` is the mat.
    """

    homography: np.ndarray
    layout: MatLayout


def random_decks() -> list:
    """The KDE designs ``deck="random"`` picks from: all installed ones except konqi and
    xskat, which hold only small bitmaps (some of which rsvg-convert cannot render)."""
    from vision.art import kde_decks
    return [d for d in kde_decks() if not d.startswith(("konqi", "xskat"))]


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def camera_homography(layout: MatLayout, size, px_per_mm=None, view_centre=None, roll=0.0,
                      perspective=0.0, rng=None) -> np.ndarray:
    """The mat-mm → image-px homography of a camera above the table.

    ``px_per_mm`` defaults to the mat filling 92% of the frame; ``view_centre`` is the
    mat point (mm) at the frame's centre; ``roll`` turns the camera (degrees);
    ``perspective`` moves each mat corner at random by up to that fraction of the
    frame's short side (a camera looking at the table at an angle).
    """
    w, h = size
    if px_per_mm is None:
        px_per_mm = 0.92 * min(w / layout.width_mm, h / layout.height_mm)
    cx, cy = view_centre if view_centre is not None else (layout.width_mm / 2, layout.height_mm / 2)
    a = np.deg2rad(roll)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * px_per_mm
    mat = np.array([[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm],
                    [0, layout.height_mm]], np.float64)
    img = (mat - [cx, cy]) @ r.T + [w / 2, h / 2]
    if perspective:
        img = img + _rng(rng).uniform(-perspective, perspective, (4, 2)) * min(w, h)
    return cv2.getPerspectiveTransform(mat.astype(np.float32), img.astype(np.float32)).astype(np.float64)


def cloth_texture(size, rng=None, colour="green") -> np.ndarray:
    """A woven-cloth background (BGR uint8) of ``size`` (w, h) in a named or BGR colour."""
    rng = _rng(rng)
    w, h = size
    if colour == "random":
        colour = list(CLOTHS)[rng.integers(len(CLOTHS))]
    if isinstance(colour, str) and colour not in CLOTHS:
        raise ValueError(f"unknown cloth colour {colour!r}: choose {', '.join(CLOTHS)}, "
                         "'random' or a (B, G, R) tuple")
    base = np.array(CLOTHS[colour] if isinstance(colour, str) else colour, np.float32)
    base = base * rng.uniform(0.85, 1.15)
    blotch = cv2.resize(rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((h, w), np.float32)
    period = rng.uniform(2.5, 5.0)
    # The weave is separable: an outer product costs far less than a full mesh grid.
    weave = np.outer(np.sin(np.arange(h, dtype=np.float32) * (2 * np.pi / period)),
                     np.sin(np.arange(w, dtype=np.float32) * (2 * np.pi / period)))
    v = 1.0 + 0.05 * blotch + 0.05 * fine + 0.04 * weave
    return np.clip(base[None, None, :] * v[:, :, None], 0, 255).astype(np.uint8)


def _marker_sticker(marker_id: int, side_px: int) -> np.ndarray:
    from vision.zones import aruco_dictionary
    m = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, side_px)
    return m


def _paste_warped(frame, labels, src_bgra, h_src_to_img, label) -> None:
    """Warp a BGRA image into the frame through a homography, alpha-blending only
    inside its bounding box (warping whole frames would cost ~10× more)."""
    sh, sw = src_bgra.shape[:2]
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0]], [[sw, 0]], [[sw, sh]], [[0, sh]]], np.float64), h_src_to_img).reshape(4, 2)
    fh, fw = frame.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, fw), min(y1, fh)
    if x1 <= x0 or y1 <= y0:
        return
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(src_bgra, t @ h_src_to_img, (x1 - x0, y1 - y0),
                                 flags=cv2.INTER_AREA if _shrinks(h_src_to_img, sw, sh) else cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = frame[y0:y1, x0:x1]
    roi[:] = (warped[:, :, :3] * alpha + roi * (1 - alpha)).astype(np.uint8)
    if labels is not None:
        labels[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = label


def _shrinks(hmg, sw, sh) -> bool:
    pts = cv2.perspectiveTransform(np.array([[[0, 0]], [[sw, 0]]], np.float64), hmg).reshape(2, 2)
    return np.linalg.norm(pts[1] - pts[0]) < sw * 0.8


def _card_face(deck: str, card: Card, height_px: int, p: Placement) -> tuple:
    """The card face (BGRA) with its sticker, and the sticker's code corners (art px)."""
    from vision.art import card_image
    from vision.stickers import QUIET_MODULES, qr_modules
    face = card_image(deck, card, height=height_px).copy()
    fh, fw = face.shape[:2]
    code = None
    if p.sticker:
        mods = qr_modules(card)
        n = mods.shape[0]
        px_mm = fh / CARD_HEIGHT_MM
        side = p.sticker_mm * px_mm
        cx = fw / 2 + p.sticker_offset[0] * px_mm
        cy = fh / 2 + p.sticker_offset[1] * px_mm
        x0, y0 = cx - side / 2, cy - side / 2
        # Draw the sticker by warping the module grid so module edges land on
        # sub-pixel positions exactly (rounding each module would distort the code).
        grid = ((1 - mods) * 255).astype(np.uint8)
        m = np.array([[side / n, 0, x0], [0, side / n, y0]], np.float64)
        sticker = cv2.warpAffine(grid, m, (fw, fh), flags=cv2.INTER_NEAREST,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        mask = cv2.warpAffine(np.full_like(grid, 255), m, (fw, fh), flags=cv2.INTER_NEAREST,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
        face[mask, 0] = face[mask, 1] = face[mask, 2] = sticker[mask]
        face[mask, 3] = 255
        q = QUIET_MODULES * side / n
        code = np.array([[x0 + q, y0 + q], [x0 + side - q, y0 + q], [x0 + side - q, y0 + side - q],
                         [x0 + q, y0 + side - q]], np.float64)
        whole = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float64)
        return face, code, whole
    return face, None, None


def _hand_mask(size, target_corners, cover, rng) -> np.ndarray:
    """A hand-shaped mask (palm and fingers) reaching over a card from outside, so that
    about ``cover`` of the card's length is under it."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    c = target_corners.mean(axis=0)
    length = max(np.linalg.norm(target_corners[0] - target_corners[3]),
                 np.linalg.norm(target_corners[0] - target_corners[1]))
    theta = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(theta), np.sin(theta)])
    palm_r = length * 0.55
    # The fingertips reach `cover` of the way across the card from its edge.
    tip = c + d * (length / 2 - cover * length)
    palm_c = tip + d * (palm_r * 1.9)
    cv2.ellipse(mask, tuple(np.round(palm_c).astype(int)), (int(palm_r), int(palm_r * 0.8)),
                np.degrees(theta), 0, 360, 255, -1, cv2.LINE_AA)
    perp = np.array([-d[1], d[0]])
    for k, reach in zip((-1.5, -0.5, 0.5, 1.5), (0.85, 1.0, 0.95, 0.75)):
        base = palm_c + perp * k * palm_r * 0.38
        end = base - d * (palm_r * 1.9 * reach)
        cv2.line(mask, tuple(np.round(base).astype(int)), tuple(np.round(end).astype(int)), 255,
                 max(2, int(palm_r * 0.3)), cv2.LINE_AA)
    return mask


OLD_CONDITIONS = frozenset({
    "mat", "markers", "paper", "deck", "cloth", "px_per_mm", "view_centre", "roll",
    "perspective", "blur", "motion_blur", "noise", "light", "glare", "jpeg", "hand",
    "hand_cover"})
CAMERA_CONDITIONS = frozenset({
    "camera", "lamp", "wb_error", "wb_adapt", "exposure", "vignette", "read_noise",
    "shot_noise", "defocus", "washout", "sharpen", "shadows", "light_dir", "hand_mode",
    "bare_arm", "hand_height", "auto_exposure", "awb_scene"})
"""Conditions of the camera model (a pinhole above the table, linear light): giving
``camera`` switches a frame to it; the others need it."""
KNOWN_CONDITIONS = OLD_CONDITIONS | CAMERA_CONDITIONS | {"surface", "surface_seed"}


def compose_frame(placements: Sequence, size=(640, 480), rng=None, **conditions):
    """A synthetic camera frame and the truth about it: ``(image_bgr, truth)``.

    ``placements``: cards to lay, later ones on top (see :class:`Placement`).
    Conditions (all optional; defaults give a clean frame):

    - ``mat`` "A3" | "A4" | MatLayout; ``markers`` (True) draws the mat's ArUco markers
      (as white-bordered stickers on the table); ``paper`` (False) shows the printed
      paper mat lying on the table
    - ``deck``: card design for cards without their own (default "standard"; "random";
      KDE names, or other sources' names, see :func:`vision.art.card_image`)
    - ``cloth``: colour name (see CLOTHS), "random" or (B, G, R)
    - ``surface``: the table instead of the cloth, e.g. "wood:walnut:gloss",
      "felt:burgundy", "pattern:checks", "tiles:marble", "mat:A4:carpet:loop" (see
      :func:`vision.synth_surfaces.surface_texture`); ``surface_seed`` fixes its
      grain and layout (the same table in every frame)
    - ``px_per_mm``, ``view_centre`` (mm), ``roll`` (deg), ``perspective`` (0–0.2)
    - ``blur`` (Gaussian sigma px), ``motion_blur`` (px), ``noise`` (sigma, grey levels)
    - ``light`` (0–1: uneven light and vignette), ``glare`` (0–1: a bright spot)
    - ``jpeg`` (quality 1–100)
    - ``hand``: index of the placement a hand partly covers (True: a random one),
      ``hand_cover`` (fraction of the card's length, default 0.35)

    The camera model (``camera`` given: a :class:`vision.synth_camera.PinholeCamera`,
    or a dict of :meth:`PinholeCamera.above`'s arguments ``px_per_mm``, ``look_at``,
    ``tilt_deg``, ``tilt_towards_deg``, ``roll_deg``, ``k1``, ``k2``, ``hfov_deg``;
    missing ones come from ``px_per_mm``, ``view_centre`` and ``roll``): one camera
    above the table, with its lens's distortion, and the light worked in linear
    units. It adds: ``lamp`` (colour temperature, K, default 5000), ``wb_adapt`` (how
    much of the lamp's colour the camera's white balance undoes, default 1),
    ``wb_error`` (the white balance's error: three fractions B, G, R), ``exposure``
    (EV; with ``auto_exposure``, a linear grey level the camera meters the scene to,
    the bias of that), ``awb_scene`` (0–1: how far the camera's auto white balance
    takes the table's colour for the lamp's), ``vignette`` (0–1), ``read_noise`` and
    ``shot_noise`` (grey levels; ``noise``
    counts as read noise), ``defocus`` (disc radius, px), ``washout`` (0–1: webcam
    colours), ``sharpen``, ``shadows`` (True: each card's thin drop shadow),
    ``light_dir`` (degrees: where shadows fall), and for hands: an arm and a hand from
    the table's edge, ``hand_mode`` "over" (default) or "beside" (fingertips a few mm
    off the card), ``bare_arm`` (None: random), ``hand_height`` (mm above the table).
    ``perspective`` is not used there (the camera's tilt gives the perspective).

    ``truth`` is a :class:`Truth` (a list, one dict per card; see there).
    """
    return compose_scene(placements, size, rng, **conditions).shoot(rng if isinstance(rng, np.random.Generator) else None)


class Scene:
    """A composed view of the table before the camera's sensor: :meth:`shoot` gives a
    frame with fresh sensor noise and JPEG, as a fixed camera sees a still table.
    ``truth`` is the :class:`Truth` of every frame shot."""

    def __init__(self, truth, rng, shoot_fn):
        self.truth = truth
        self._rng = rng
        self._shoot = shoot_fn

    def shoot(self, rng=None):
        """``(image_bgr, truth)``: one frame (``rng`` for its noise; default the scene's)."""
        return self._shoot(self._rng if rng is None else _rng(rng)), self.truth


def compose_scene(placements: Sequence, size=(640, 480), rng=None, **conditions) -> Scene:
    """Like :func:`compose_frame`, but returns the :class:`Scene`, to shoot many frames
    of one still table (each with its own sensor noise)."""
    rng = _rng(rng)
    unknown = set(conditions) - KNOWN_CONDITIONS
    if unknown:
        raise TypeError(f"unknown condition(s) {sorted(unknown)}: known are {sorted(KNOWN_CONDITIONS)}")
    if conditions.get("camera") is not None:
        from vision.synth_physical import compose_physical
        return compose_physical(placements, size, rng, conditions)
    needs = sorted(set(conditions) & (CAMERA_CONDITIONS - {"camera"}))
    if needs:
        raise TypeError(f"condition(s) {needs} need the camera model: give camera={{...}} too")
    w, h = int(size[0]), int(size[1])
    layout = conditions.get("mat") or "A3"
    layout = layout if isinstance(layout, MatLayout) else MatLayout.named(layout)
    deck = conditions.get("deck") or "standard"
    if deck == "random":
        decks = random_decks()
        deck = decks[rng.integers(len(decks))]
    hmg = camera_homography(layout, (w, h), conditions.get("px_per_mm"),
                            conditions.get("view_centre"), conditions.get("roll", 0.0),
                            conditions.get("perspective", 0.0), rng)
    scale = _local_scale(hmg, layout)

    if conditions.get("surface") is not None:
        frame = surface_in_view(conditions["surface"], hmg, (w, h), layout, rng,
                                conditions.get("surface_seed"), paper=bool(conditions.get("paper")))
        if conditions.get("markers", True) and not conditions.get("paper") \
                and not str(conditions["surface"]).startswith("mat:"):
            draw_marker_stickers(frame, layout, hmg, scale)
    elif conditions.get("paper"):
        from vision.zones import render_mat
        frame = cloth_texture((w, h), rng, conditions.get("cloth", "wood"))
        ppm = min(8.0, max(2.0, scale * 1.5))
        paper = np.array(render_mat(layout, px_per_mm=ppm, labels=True))
        paper = cv2.cvtColor(paper, cv2.COLOR_GRAY2BGRA)
        s = np.diag([1 / ppm, 1 / ppm, 1.0])
        _paste_warped(frame, None, paper, hmg @ s, 0)
    else:
        frame = cloth_texture((w, h), rng, conditions.get("cloth", "green"))
        if conditions.get("markers", True):
            draw_marker_stickers(frame, layout, hmg, scale)

    labels = np.full((h, w), -1, np.int16)
    truth = Truth()
    truth.homography, truth.layout = hmg, layout
    items = [Placement.of(p) for p in placements]
    art_h = int(np.clip(round(CARD_HEIGHT_MM * scale * 1.25 / 50.0) * 50, 150, 900))
    for i, p in enumerate(items):
        if isinstance(p.at, str):
            centre = np.array(layout.zone_centre(p.at), np.float64)
        else:
            centre = np.array(p.at, np.float64)
        if p.jitter_mm:
            centre = centre + rng.uniform(-p.jitter_mm, p.jitter_mm, 2)
        face, code, whole = _card_face(p.deck or deck, p.card, art_h, p)
        fh, fw = face.shape[:2]
        k = CARD_HEIGHT_MM / fh
        a = np.deg2rad(p.rotation)
        rot = np.array([[np.cos(a) * k, -np.sin(a) * k], [np.sin(a) * k, np.cos(a) * k]])
        off = centre - rot @ np.array([fw / 2, fh / 2])
        art_to_mat = np.array([[rot[0, 0], rot[0, 1], off[0]], [rot[1, 0], rot[1, 1], off[1]],
                               [0, 0, 1]], np.float64)
        art_to_img = hmg @ art_to_mat
        _paste_warped(frame, labels, face, art_to_img, i)
        corners = _map(art_to_img, [[0, 0], [fw, 0], [fw, fh], [0, fh]])
        code_img = _map(art_to_img, code) if code is not None else None
        sticker_img = _map(art_to_img, whole) if whole is not None else None
        truth.append({
            "card": p.card, "deck": p.deck or deck,
            "zone": layout.zone_at(centre), "centre_mm": tuple(map(float, centre)),
            "centre": tuple(map(float, _map(hmg, [centre])[0])),
            "corners": corners, "sticker": code is not None, "code_corners": code_img,
            "sticker_corners": sticker_img,
            "code_px": float(np.mean([np.linalg.norm(code_img[j] - code_img[(j + 1) % 4])
                                      for j in range(4)])) if code_img is not None else 0.0,
        })

    hand = conditions.get("hand")
    if hand is not None and hand is not False and items:
        target = int(rng.integers(len(items))) if hand is True else int(hand)
        mask = _hand_mask((w, h), truth[target]["corners"], conditions.get("hand_cover", 0.35), rng)
        skin = np.array(SKIN[rng.integers(len(SKIN))], np.float32)
        shade = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32) / 255.0
        tex = skin[None, None, :] * (0.85 + 0.15 * shade[:, :, None]) \
            + rng.normal(0, 4, (h, w, 1)).astype(np.float32)
        alpha = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[:, :, None] / 255.0
        frame = (tex * alpha + frame * (1 - alpha)).clip(0, 255).astype(np.uint8)
        labels[mask > 127] = -2
    for i, t in enumerate(truth):
        t["card_visible"] = _visible(labels, t["corners"], i)
        # The quiet zone counts: a code whose white border is cut or covered is unreadable.
        t["code_visible"] = _visible(labels, t["sticker_corners"], i) if t["sticker"] else 0.0
        t["code_in_frame"] = bool(t["sticker"] and np.all(t["sticker_corners"] >= 0)
                                  and np.all(t["sticker_corners"] <= [w - 1, h - 1]))
        t["covered_by_hand"] = bool(hand is not None and hand is not False
                                    and _covered(labels, t["corners"]))

    return Scene(truth, rng, lambda r: _camera_faults(frame, r, conditions))


def draw_marker_stickers(frame, layout, hmg, scale) -> None:
    """The mat's ArUco markers as white-bordered stickers on the table (no paper mat)."""
    for marker_id, (mx, my, side) in layout.markers.items():
        border = side * 0.2
        px = max(24, int(round(side * scale * 2)))
        m = _marker_sticker(marker_id, px)
        pad = int(round(px * border / side))
        sticker = cv2.copyMakeBorder(m, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        sticker = cv2.cvtColor(sticker, cv2.COLOR_GRAY2BGRA)
        k = side / px
        place = np.array([[k, 0, mx - border], [0, k, my - border], [0, 0, 1]], np.float64)
        _paste_warped(frame, None, sticker, hmg @ place, 0)


_BACKGROUNDS: dict = {}


def surface_in_view(spec, hmg, size, layout, rng, seed=None, paper=False) -> np.ndarray:
    """The table surface ``spec`` as the camera sees it through ``hmg`` (mat mm → px)
    on a canvas of ``size``: drawn in table millimetres at about the camera's
    resolution and warped into view. With ``paper`` the printed mat lies on it. With a
    ``seed`` the same table comes back (and is kept for the next frames)."""
    from vision.synth_surfaces import surface_texture
    w, h = int(size[0]), int(size[1])
    spec = str(spec)
    if paper and not spec.startswith("mat:"):
        spec = f"mat:{layout.name}:{spec}"
    key = None
    if seed is not None:
        key = (spec, int(seed), layout.name, np.asarray(hmg, np.float64).round(9).tobytes(), w, h)
        hit = _BACKGROUNDS.get(key)
        if hit is not None:
            return hit.copy()
    inv = np.linalg.inv(hmg)
    corners = _map(inv, [[0, 0], [w, 0], [w, h], [0, h]])
    x0, y0 = corners.min(axis=0) - 5
    x1, y1 = corners.max(axis=0) + 5
    centre = _map(inv, [[w / 2, h / 2]])[0]
    p = _map(hmg, [centre, centre + [10, 0], centre + [0, 10]])
    scale = float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20.0)
    ppm = float(np.clip(scale * 1.1, 0.5, 6.0))
    tex_rng = np.random.default_rng(seed) if seed is not None else rng
    tex = surface_texture(spec, (x0, y0, x1, y1), ppm, tex_rng, layout=layout)
    # Texture pixel (i, j) sits at mm (x0 + (j + 0.5)/ppm, y0 + (i + 0.5)/ppm).
    to_mm = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]])
    out = cv2.warpPerspective(tex, hmg @ to_mm, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    if key is not None:
        if len(_BACKGROUNDS) >= 6:
            _BACKGROUNDS.pop(next(iter(_BACKGROUNDS)))
        _BACKGROUNDS[key] = out.copy()
    return out


def _local_scale(hmg, layout) -> float:
    """Image px per mat mm near the mat's centre."""
    c = np.array([layout.width_mm / 2, layout.height_mm / 2])
    p = _map(hmg, [c, c + [10, 0], c + [0, 10]])
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20.0)


def _map(hmg, pts) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), hmg).reshape(-1, 2)


def _visible(labels, poly, label) -> float:
    h, w = labels.shape
    m = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(m, np.round(poly).astype(np.int32), 1)
    inside = m.astype(bool)
    # Parts outside the frame count as not visible: divide by the whole polygon's area.
    total = max(1.0, abs(cv2.contourArea(np.asarray(poly, np.float32))))
    return float(min(1.0, np.count_nonzero(labels[inside] == label) / total))


def _covered(labels, poly) -> bool:
    m = np.zeros(labels.shape, np.uint8)
    cv2.fillConvexPoly(m, np.round(poly).astype(np.int32), 1)
    return bool(np.any(labels[m.astype(bool)] == -2))


def _camera_faults(frame, rng, c) -> np.ndarray:
    h, w = frame.shape[:2]
    img = frame.astype(np.float32)
    light = float(c.get("light", 0) or 0)
    glare = float(c.get("glare", 0) or 0)
    if light or glare:
        # Light and glare vary smoothly: compute them on a coarse grid and scale up.
        sw, sh = max(8, w // 8), max(6, h // 8)
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        xx, yy = (xx + 0.5) * (w / sw), (yy + 0.5) * (h / sh)
        gain = np.ones((sh, sw), np.float32)
        add = np.zeros((sh, sw), np.float32)
        if light:
            a = rng.uniform(0, 2 * np.pi)
            grad = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(w, h)
            vig = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
            gain = np.clip(1.0 - light * (0.6 * (grad + 0.5) + 0.35 * vig), 0.15, 1.2)
        if glare:
            gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
            r = rng.uniform(0.04, 0.12) * min(w, h)
            add = glare * 255 * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        add = cv2.resize(add.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        img = img * gain[:, :, None] + add[:, :, None]
    blur = float(c.get("blur", 0) or 0)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    mb = int(c.get("motion_blur", 0) or 0)
    if mb > 1:
        k = np.zeros((mb, mb), np.float32)
        k[mb // 2, :] = 1.0 / mb
        rot = cv2.getRotationMatrix2D((mb / 2 - 0.5, mb / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, rot, (mb, mb))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    noise = float(c.get("noise", 0) or 0)
    if noise:
        img += rng.standard_normal(img.shape, np.float32) * np.float32(noise)
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = c.get("jpeg")
    if q:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
