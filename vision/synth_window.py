"""Synthetic frames of the reader window: a card lying face down on a clear plate, seen from below by a close camera, with the plate's faults.

The reader is a box with a camera at its bottom looking up through a clear plate (glass
or acrylic) that carries a card guide: an opaque frame, printed matte black on its
underside, with an opening a little larger than a card, under a hood open at the front.
The dealer slides each of the computer's cards face down into the opening; the camera
sees the face, the people see only the back.

What the camera sees, and what this module draws:

- the guide's underside around the opening, and through the gap between card and guide,
  the underside of the reader's hood, or the room when light leaks in under it (far out of
  focus: dark or brighter blotches);
- the card face, in any of its two upright orientations and a few degrees off the
  guide's axis, off-centre, and in some frames *tilted* (one edge lifted from the plate,
  resting on the guide's rim or a finger), drawn through a pinhole camera: the lifted
  edge is farther from the camera below, so it looks shorter;
- the lens: a close camera with a wide lens, so barrel distortion and strong vignetting;
- the light of the box's LEDs: uneven, tinted, and its *glare*: specular hot spots where
  the LEDs reflect off the plate's underside;
- *reflections*: the plate's underside mirrors the inside of the box (the LED bars, the
  camera's own lens ring) faintly over everything;
- the plate's *scratches* and *dust* (a little out of focus: they lie on the underside,
  a plate's thickness nearer than the card), a fingerprint's haze;
- then focus blur, sensor noise and JPEG (``vision.synth``'s camera faults).

>>> from vision.art import art_available
>>> if art_available():
...     img, truth = compose_window_frame("JH", size=(320, 240), rng=1, sticker=False)
...     img.shape, str(truth["card"]), truth["in_view"]
... else:
...     ((240, 320, 3), 'JH', True)
((240, 320, 3), 'JH', True)
"""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

from engine.cards import Card
from vision.synth import CARD_HEIGHT_MM, Placement, _camera_faults, _card_face, _rng

GUIDE_COLOURS = {
    "black": (22, 22, 24), "ink": (28, 24, 24), "soot": (18, 20, 18), "jet": (26, 26, 22),
}
"""Colours (BGR, as printed and seen from below) of the guide's underside: matte black
or near it, like the inside of the reader's hood, so that the gap between a card and
the guide looks like the guide (the card then stands out on its own)."""

CARD_WIDTH_MM = 63.0


BUILDS = ("any", "recommended")
"""``any``: every fault the benchmark asks for (glare on half the frames, reflections,
light leaking under the hood now and then); ``recommended``: the reader built as
``docs/hardware.md`` advises: polarizing film over the LEDs and a crossed one over the
lens (no specular glare, no reflections of the box) and the hood kept closed."""


def random_window_conditions(rng, clean: bool = False, build: str = "any") -> dict:
    """Conditions for one reader frame: how the camera, the plate and the light vary from
    one reader to another and from one card to the next. ``clean``: a well-built reader
    on a good day (no glare, tilt, scratches or reflections); ``build``: see BUILDS."""
    if build not in BUILDS:
        raise ValueError(f"unknown reader build {build!r}: choose {', '.join(BUILDS)}")
    cond = _random_conditions(_rng(rng), clean)
    if build == "recommended":
        cond.pop("glare", None)
        cond["reflection"] = 0.0
        cond["room"] = min(cond["room"], 0.08)
    return cond


def _random_conditions(rng, clean: bool) -> dict:
    cond = {
        "view_mm": float(rng.uniform(145, 175)),
        "distance_mm": float(rng.uniform(55, 120)),
        "offset_mm": tuple(map(float, rng.uniform(-4, 4, 2))),
        "roll": float(rng.uniform(-4, 4)),
        "card_turn": float(rng.uniform(-5, 5)) + (180.0 if rng.random() < 0.5 else 0.0),
        "card_shift_mm": tuple(map(float, rng.uniform(-2.5, 2.5, 2))),
        "guide": list(GUIDE_COLOURS)[int(rng.integers(len(GUIDE_COLOURS)))],
        # Under the hood the room's light barely reaches the plate; now and then it
        # leaks in (the hood lifted, a lamp low at the side).
        "room": float(rng.uniform(0.0, 0.08) if rng.random() < 0.85 else rng.uniform(0.08, 0.4)),
    }
    if clean:
        return cond
    cond.update({
        "distortion": float(rng.uniform(0, 0.12)),
        "vignette": float(rng.uniform(0.1, 0.45)),
        "light": float(rng.uniform(0, 0.35)),
        "tint": float(rng.uniform(0, 0.12)),
        "exposure": float(rng.uniform(0.8, 1.1)),
        "reflection": float(rng.uniform(0.0, 0.08)),
        "scratches": int(rng.integers(0, 30)),
        "dust": int(rng.integers(0, 80)),
        "haze": float(rng.uniform(0, 18)) if rng.random() < 0.3 else 0.0,
        "blur": float(rng.uniform(0, 1.2)),
        "noise": float(rng.uniform(0, 6)),
        "jpeg": int(rng.integers(60, 96)),
    })
    if rng.random() < 0.5:
        cond["glare"] = float(rng.uniform(0.3, 1.0))
    if rng.random() < 0.35:
        cond["tilt"] = float(rng.uniform(2, 10))
    return cond


def compose_window_frame(card=None, size=(640, 480), rng=None, deck: str = "standard",
                         sticker: bool = True, sticker_mm: float = 45.0, **conditions):
    """A reader-camera frame with ``card`` (None: the empty window) laid face down on the
    plate, and its truth: ``(image_bgr, truth)``.

    Conditions (see :func:`random_window_conditions`; all optional): ``view_mm`` (width
    of plate the frame covers), ``distance_mm`` (camera to plate), ``offset_mm`` and
    ``roll`` (camera off the window's centre, turned), ``card_turn`` (degrees; 180 is the
    card upside down), ``card_shift_mm``, ``tilt`` (degrees one edge is lifted),
    ``guide`` (colour name), ``hood`` (the hood's underside seen through the opening, as
    a fraction of the guide's colour; default: drawn for the frame, 0.5–1), ``room``
    (0–1, how bright the room above is), ``room_seed`` (the room's out-of-focus blotches
    through the opening: the same seed, the same room; default: drawn for the frame), ``distortion``
    (barrel, 0–0.15), ``vignette``, ``light``, ``tint``, ``exposure``, ``glare`` (0–1),
    ``reflection`` (0–0.1), ``scratches`` and ``dust`` (counts), ``haze``, ``blur``,
    ``noise``, ``jpeg``.

    ``truth``: ``card`` (or None), ``deck``, ``corners`` (the card's face TL, TR, BR, BL in
    image px), ``code_corners`` (the QR code's, with a sticker), ``in_view`` (all of the
    card inside the frame), ``tilt``, ``opening`` (the guide opening's corners in image px).
    """
    rng = _rng(rng)
    known = {"view_mm", "distance_mm", "offset_mm", "roll", "card_turn", "card_shift_mm", "tilt",
             "guide", "hood", "room", "room_seed", "distortion", "vignette", "light", "tint", "exposure",
             "glare", "reflection", "scratches", "dust", "haze", "blur", "noise", "jpeg"}
    unknown = set(conditions) - known
    if unknown:
        raise TypeError(f"unknown condition(s) {sorted(unknown)}: known are {sorted(known)}")
    c = conditions
    w, h = int(size[0]), int(size[1])
    view_mm = float(c.get("view_mm", 160.0))
    dist = float(c.get("distance_mm", 90.0))
    f = w * dist / view_mm                              # focal length in px
    ox, oy = c.get("offset_mm", (0.0, 0.0))
    roll = np.deg2rad(float(c.get("roll", 0.0)))
    rot = np.array([[np.cos(roll), -np.sin(roll)], [np.sin(roll), np.cos(roll)]])

    def project(pts_mm, z_mm=None):
        """Plate points (mm, the window's centre at 0, z up from the plate) to image px."""
        p = (np.asarray(pts_mm, np.float64).reshape(-1, 2) - [ox, oy]) @ rot.T
        z = np.zeros(len(p)) if z_mm is None else np.asarray(z_mm, np.float64)
        k = f / (dist + z)
        return np.stack([w / 2 + p[:, 0] * k, h / 2 + p[:, 1] * k], axis=1)

    # Above the opening: the hood's matte black underside, lit less than the guide on
    # the plate, and the room's light where it leaks in (far out of focus: blotches).
    guide_name = c.get("guide", "black")
    guide_bgr = np.array(GUIDE_COLOURS.get(guide_name, GUIDE_COLOURS["black"]), np.float32)
    room = float(c.get("room", 0.0))
    pattern = rng.uniform(0.3, 1.0, (4, 5)).astype(np.float32)
    if c.get("room_seed") is not None:
        # The room as it stands (the same blotches at another level of light): one
        # sitting's room, seen again. (The frame's own draw is made all the same, so
        # that the frames after it do not change.)
        pattern = np.random.default_rng(int(c["room_seed"])).uniform(0.3, 1.0, (4, 5)).astype(np.float32)
    bg = cv2.resize(pattern * room, (w, h), interpolation=cv2.INTER_CUBIC)
    shade = float(rng.uniform(0.5, 1.0))
    hood = guide_bgr * float(c.get("hood", shade))
    frame = np.clip(np.dstack([hood[0] + bg * 235, hood[1] + bg * 240, hood[2] + bg * 245]),
                    0, 255).astype(np.uint8)

    # The guide: opaque around an opening 4 mm wider and longer than a landscape card.
    open_w, open_h = CARD_HEIGHT_MM + 4.0, CARD_WIDTH_MM + 4.0
    opening = project([[-open_w / 2, -open_h / 2], [open_w / 2, -open_h / 2],
                       [open_w / 2, open_h / 2], [-open_w / 2, open_h / 2]])
    mask = np.full((h, w), 255, np.uint8)
    cv2.fillConvexPoly(mask, np.round(opening * 16).astype(np.int32), 0, cv2.LINE_AA, shift=4)
    paper = guide_bgr[None, None, :] * (1.0 + 0.06 * rng.standard_normal((h, w, 1)).astype(np.float32))
    a = mask[:, :, None].astype(np.float32) / 255.0
    frame = (paper * a + frame * (1 - a)).clip(0, 255).astype(np.uint8)

    truth = {"card": None, "deck": deck, "corners": None, "code_corners": None,
             "in_view": False, "tilt": 0.0, "opening": opening}
    if card is not None:
        card = Card(card)
        art_h = int(np.clip(round(CARD_HEIGHT_MM * f / dist * 1.3 / 50.0) * 50, 150, 900))
        face, code, _whole = _card_face(deck, card, art_h, Placement(card, sticker=sticker,
                                                                     sticker_mm=sticker_mm))
        fh, fw = face.shape[:2]
        k = CARD_HEIGHT_MM / fh                          # mm per art px
        # The card lies landscape in the guide (its long side along the opening's).
        turn = np.deg2rad(90.0 + float(c.get("card_turn", 0.0)))
        r = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) * k
        sx, sy = c.get("card_shift_mm", (0.0, 0.0))
        art_corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
        mm = (art_corners - [fw / 2, fh / 2]) @ r.T + [sx, sy]
        tilt = float(c.get("tilt", 0.0) or 0.0)
        z = np.zeros(4)
        if tilt:
            # One side of the card rests on the plate, the opposite one is lifted.
            side = int(rng.integers(4))
            a0, a1 = mm[side], mm[(side + 1) % 4]
            edge = (a1 - a0) / np.linalg.norm(a1 - a0)
            normal = np.array([-edge[1], edge[0]])
            if (mm.mean(axis=0) - a0) @ normal < 0:
                normal = -normal                   # pointing from the hinge into the card
            d = (mm - a0) @ normal
            t = np.deg2rad(tilt)
            z = np.sin(t) * d
            mm = mm - np.outer(d * (1 - np.cos(t)), normal)
        img_corners = project(mm, z)
        hmg = cv2.getPerspectiveTransform(art_corners.astype(np.float32),
                                          img_corners.astype(np.float32)).astype(np.float64)
        _paste(frame, face, hmg)
        truth.update(card=card, corners=img_corners, tilt=tilt,
                     code_corners=None if code is None else _map(hmg, code))

    img = frame.astype(np.float32)
    img = _window_light(img, rng, c)
    img = _reflections(img, rng, c, project)
    img = _plate_marks(img, rng, c)
    frame = np.clip(img, 0, 255).astype(np.uint8)
    dist_k = float(c.get("distortion", 0.0) or 0.0)
    if dist_k:
        frame, fwd = _barrel(frame, dist_k)
        truth["opening"] = fwd(truth["opening"])
        if truth["corners"] is not None:
            truth["corners"] = fwd(truth["corners"])
            if truth["code_corners"] is not None:
                truth["code_corners"] = fwd(truth["code_corners"])
    frame = _camera_faults(frame, rng, {k: c[k] for k in ("blur", "noise", "jpeg") if k in c})
    if truth["corners"] is not None:
        q = truth["corners"]
        truth["in_view"] = bool(np.all(q >= 0) and np.all(q[:, 0] <= w - 1) and np.all(q[:, 1] <= h - 1))
    return frame, truth


def _map(hmg, pts) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), hmg).reshape(-1, 2)


def _paste(frame, face_bgra, hmg) -> None:
    h, w = frame.shape[:2]
    warped = cv2.warpPerspective(face_bgra, hmg, (w, h), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    frame[:] = (warped[:, :, :3] * alpha + frame * (1 - alpha)).astype(np.uint8)


def _grid(w, h, sw=None, sh=None):
    sw, sh = sw or max(8, w // 8), sh or max(6, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    return (xx + 0.5) * (w / sw), (yy + 0.5) * (h / sh)


def _up(a, w, h):
    return cv2.resize(a.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)


def _window_light(img, rng, c):
    """The box's LEDs: vignetting of a close wide lens, light from one side, a tint, the
    exposure, and specular glare where an LED reflects off the plate's underside."""
    h, w = img.shape[:2]
    xx, yy = _grid(w, h)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    gain = 1.0 - float(c.get("vignette", 0.0) or 0.0) * r2
    light = float(c.get("light", 0.0) or 0.0)
    if light:
        a = rng.uniform(0, 2 * np.pi)
        grad = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(w, h)
        gain = gain * (1.0 - light * (grad + 0.5))
    gain = gain * float(c.get("exposure", 1.0) or 1.0)
    img = img * _up(np.clip(gain, 0.1, 1.5), w, h)[:, :, None]
    tint = float(c.get("tint", 0.0) or 0.0)
    if tint:
        img = img * (1.0 + rng.uniform(-tint, tint, 3)).astype(np.float32)[None, None, :]
    glare = float(c.get("glare", 0.0) or 0.0)
    if glare:
        # The hot spot is finer than the coarse grid: draw it at full size.
        fx, fy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        add = np.zeros((h, w), np.float32)
        for _ in range(int(rng.integers(1, 3))):
            gx, gy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
            rx = rng.uniform(0.02, 0.08) * min(w, h)
            ry = rx * rng.uniform(0.5, 1.5)
            add += glare * 300 * np.exp(-((fx - gx) ** 2 / (2 * rx * rx) + (fy - gy) ** 2 / (2 * ry * ry)))
        img = img + add[:, :, None]
    return img


def _reflections(img, rng, c, project):
    """The plate's underside mirrors the inside of the box faintly: the camera's own lens
    (a ring round the point above the camera) and the LED bars along two sides."""
    a = float(c.get("reflection", 0.0) or 0.0)
    if not a:
        return img
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    centre = tuple(int(v) for v in np.round(project([[0.0, 0.0]])[0] * 2 - [w / 2, h / 2]))
    r = int(min(w, h) * rng.uniform(0.05, 0.12))
    cv2.circle(layer, centre, r, 1.0, max(2, r // 4), cv2.LINE_AA)
    cv2.circle(layer, centre, r // 3, 0.6, -1, cv2.LINE_AA)
    for _ in range(2):
        if rng.random() < 0.5:
            y = int(rng.uniform(0.05, 0.95) * h)
            cv2.line(layer, (int(0.1 * w), y), (int(0.9 * w), y), 1.0, max(3, h // 40), cv2.LINE_AA)
        else:
            x = int(rng.uniform(0.05, 0.95) * w)
            cv2.line(layer, (x, int(0.1 * h)), (x, int(0.9 * h)), 1.0, max(3, w // 50), cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), rng.uniform(2, 6))
    return img + (a * 255 * layer)[:, :, None]


def _plate_marks(img, rng, c):
    """Scratches and dust on the plate (slightly out of focus), and a fingerprint's haze."""
    h, w = img.shape[:2]
    n_s, n_d = int(c.get("scratches", 0) or 0), int(c.get("dust", 0) or 0)
    haze = float(c.get("haze", 0.0) or 0.0)
    if not (n_s or n_d or haze):
        return img
    marks = np.zeros((h, w), np.float32)
    for _ in range(n_s):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        length = rng.uniform(0.02, 0.35) * max(w, h)
        ang = rng.uniform(0, np.pi)
        x1, y1 = x0 + np.cos(ang) * length, y0 + np.sin(ang) * length
        # Scratches scatter the LEDs' light back into the lens: they look light.
        cv2.line(marks, (int(x0), int(y0)), (int(x1), int(y1)), float(rng.uniform(20, 90)), 1,
                 cv2.LINE_AA)
    for _ in range(n_d):
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        cv2.circle(marks, (x, y), int(rng.integers(1, 4)),
                   float(rng.choice([-1.0, 1.0]) * rng.uniform(30, 110)), -1, cv2.LINE_AA)
    marks = cv2.GaussianBlur(marks, (0, 0), rng.uniform(0.5, 1.2))
    img = img + marks[:, :, None]
    if haze:
        blot = _up(rng.uniform(0, 1, (3, 4)), w, h)
        img = img + (haze * np.clip(blot - 0.4, 0, 1) / 0.6)[:, :, None]
    return img


def _barrel(frame, k: float):
    """Barrel distortion of a wide lens close to the plate: the image and a function
    mapping undistorted image points to distorted ones."""
    h, w = frame.shape[:2]
    cx, cy, norm = w / 2.0, h / 2.0, float(np.hypot(w / 2.0, h / 2.0))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xx - cx) / norm, (yy - cy) / norm
    s = 1.0 + k * (dx * dx + dy * dy)     # a distorted point at r shows the scene at r·s
    map_x, map_y = cx + dx * s * norm, cy + dy * s * norm
    out = cv2.remap(frame, map_x.astype(np.float32), map_y.astype(np.float32), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)

    def forward(pts):
        p = (np.asarray(pts, np.float64) - [cx, cy]) / norm
        d = p.copy()
        for _ in range(20):       # solve d·(1 + k|d|²) = p
            d = p / (1.0 + k * np.sum(d * d, axis=1, keepdims=True))
        return d * norm + [cx, cy]
    return out, forward


def window_scene(card, size=(640, 480), rng=None, deck: str = "standard",
                 sticker: bool = True, **conditions):
    """A reader frame without the sensor's own noise and JPEG, for a virtual reader that
    adds them afresh to each frame (the card lies still; only the sensor changes)."""
    still = {k: v for k, v in conditions.items() if k not in ("noise", "jpeg")}
    return compose_window_frame(card, size=size, rng=rng, deck=deck, sticker=sticker, **still)


def sensor(frame, rng, noise: float = 0.0, jpeg: Optional[int] = None):
    """One more frame of a still scene: fresh sensor noise and JPEG. Noise is drawn by
    OpenCV into 16-bit integers (a float image per frame cost the virtual table most of
    its time); the JPEG round trip is the camera's."""
    out = frame
    if noise:
        n = np.empty(frame.shape, np.int16)
        cv2.setRNGSeed(int(_rng(rng).integers(1 << 31)))
        cv2.randn(n, 0, float(noise))
        out = np.clip(frame.astype(np.int16) + n, 0, 255).astype(np.uint8)
    if jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def window_of(truth, size, margin: float = 0.02) -> list:
    """The reader ``window`` setting (fractions of the frame) for a frame's guide opening:
    its bounding box and ``margin`` (a fraction of the frame) around it, as a player sets
    it with `mat --reader-window` from a frame of the reader."""
    w, h = size
    o = np.asarray(truth["opening"], np.float64)
    x0, y0 = o.min(axis=0) / [w, h] - margin
    x1, y1 = o.max(axis=0) / [w, h] + margin
    return [float(max(0.0, x0)), float(max(0.0, y0)), float(min(1.0, x1)), float(min(1.0, y1))]
