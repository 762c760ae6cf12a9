"""Synthetic frames through the camera model: one pinhole camera above the table, its lens, the lamp, the sensor and the camera's processing (vision.synth's ``camera=`` frames).

The table (surface, printed mat, marker stickers), the cards with their drop shadows
and a reaching hand and arm are drawn on a canvas of the ideal pinhole image (a little
larger than the frame, for the lens's barrel distortion); the lens bends it into the
frame; the light is then worked in linear units: lamp colour, uneven light and glare,
blur, vignetting, exposure, shot and read noise, white balance, gamma, webcam toning,
sharpening and JPEG (see :mod:`vision.synth_camera`).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision import synth
from vision.synth_camera import (PinholeCamera, lamp_colour, optics, sensor_and_processing,
                                 to_linear, white_balance_gains)
from vision.zones import MatLayout


def make_camera(spec, size, layout, conditions) -> PinholeCamera:
    """The frame's camera: a PinholeCamera as given, or one built from a dict of
    :meth:`PinholeCamera.above` arguments (missing ones from the old conditions)."""
    if isinstance(spec, PinholeCamera):
        if tuple(spec.size) != (int(size[0]), int(size[1])):
            raise ValueError(f"the camera is {spec.size[0]}x{spec.size[1]} but the frame is "
                             f"{size[0]}x{size[1]}: give the same size")
        return spec
    if not isinstance(spec, dict):
        raise TypeError(f"camera={spec!r}: give a PinholeCamera or a dict such as "
                        "{'px_per_mm': 2.0, 'tilt_deg': 5}")
    args = dict(spec)
    allowed = {"px_per_mm", "look_at", "tilt_deg", "tilt_towards_deg", "roll_deg", "k1", "k2", "hfov_deg"}
    bad = set(args) - allowed
    if bad:
        raise TypeError(f"unknown camera setting(s) {sorted(bad)}: known are {sorted(allowed)}")
    w, h = int(size[0]), int(size[1])
    if args.get("px_per_mm") is None:
        args["px_per_mm"] = conditions.get("px_per_mm") or \
            0.92 * min(w / layout.width_mm, h / layout.height_mm)
    if args.get("look_at") is None:
        args["look_at"] = conditions.get("view_centre") or (layout.width_mm / 2, layout.height_mm / 2)
    args.setdefault("roll_deg", conditions.get("roll", 0.0) or 0.0)
    return PinholeCamera.above((w, h), **args)


def _paste_card(canvas, labels, face, art_to_img, label, shadow) -> None:
    """Paste a card face (BGRA) through a homography, after darkening the canvas under
    its drop shadow (``shadow`` = (dx, dy, blur px, strength) or None)."""
    sh, sw = face.shape[:2]
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0]], [[sw, 0]], [[sw, sh]], [[0, sh]]], np.float64), art_to_img).reshape(4, 2)
    fh, fw = canvas.shape[:2]
    pad = 2 + (int(np.ceil(abs(shadow[0]) + abs(shadow[1]) + 3 * shadow[2])) if shadow else 0)
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, fw), min(y1, fh)
    if x1 <= x0 or y1 <= y0:
        return
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    shrink = synth._shrinks(art_to_img, sw, sh)
    warped = cv2.warpPerspective(face, t @ art_to_img, (x1 - x0, y1 - y0),
                                 flags=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        dx, dy, blur, strength = shadow
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        s = cv2.warpAffine(alpha, m, (x1 - x0, y1 - y0))
        s = cv2.GaussianBlur(s, (0, 0), max(0.5, blur))
        roi *= (1.0 - strength * s)[:, :, None]
    a = alpha[:, :, None]
    roi[:] = warped[:, :, :3].astype(np.float32) * a + roi * (1 - a)
    if labels is not None:
        labels[y0:y1, x0:x1][alpha > 0.5] = label


def compose_physical(placements, size, rng, c) -> "synth.Scene":
    w, h = int(size[0]), int(size[1])
    surface = c.get("surface")
    mat_cond = c.get("mat")
    if mat_cond is None and isinstance(surface, str) and surface.startswith("mat:"):
        mat_cond = surface.split(":")[1].upper()
    layout = mat_cond or "A3"
    layout = layout if isinstance(layout, MatLayout) else MatLayout.named(layout)
    deck = c.get("deck") or "standard"
    if deck == "random":
        decks = synth.random_decks()
        deck = decks[rng.integers(len(decks))]
    cam = make_camera(c["camera"], (w, h), layout, c)
    margin = cam.margin()
    cw, ch = w + 2 * margin, h + 2 * margin
    hmg = cam.homography(margin)
    scale = cam.px_per_mm_at(cam_look_at(cam))

    # The table.
    paper = bool(c.get("paper")) or (isinstance(surface, str) and surface.startswith("mat:"))
    if surface is None:
        cloth = c.get("cloth", "wood" if paper else "green")
        if cloth == "random":
            cloth = list(synth.CLOTHS)[rng.integers(len(synth.CLOTHS))]
        if not isinstance(cloth, str):
            b, g, r = (int(v) for v in cloth)
            cloth = f"{r:02x}{g:02x}{b:02x}"
        surface = f"cloth:{cloth}"
    canvas = synth.surface_in_view(surface, hmg, (cw, ch), layout, rng, c.get("surface_seed"),
                                   paper=paper)
    if c.get("markers", True) and not paper:
        synth.draw_marker_stickers(canvas, layout, hmg, scale)
    canvas = canvas.astype(np.float32)

    # Where the lamp is: shadows fall away from it.
    light_dir = np.deg2rad(c["light_dir"] if c.get("light_dir") is not None else rng.uniform(0, 360))
    labels = np.full((ch, cw), -1, np.int16)
    truth = synth.Truth()
    truth.layout = layout
    items = [synth.Placement.of(p) for p in placements]
    art_h = int(np.clip(round(synth.CARD_HEIGHT_MM * scale * 1.25 / 50.0) * 50, 150, 900))
    shadows = c.get("shadows", True)
    arts = []
    for i, p in enumerate(items):
        centre = np.array(layout.zone_centre(p.at) if isinstance(p.at, str) else p.at, np.float64)
        if p.jitter_mm:
            centre = centre + rng.uniform(-p.jitter_mm, p.jitter_mm, 2)
        face, code, whole = synth._card_face(p.deck or deck, p.card, art_h, p)
        fh, fw = face.shape[:2]
        k = synth.CARD_HEIGHT_MM / fh
        a = np.deg2rad(p.rotation)
        rot = np.array([[np.cos(a) * k, -np.sin(a) * k], [np.sin(a) * k, np.cos(a) * k]])
        off = centre - rot @ np.array([fw / 2, fh / 2])
        art_to_mat = np.array([[rot[0, 0], rot[0, 1], off[0]], [rot[1, 0], rot[1, 1], off[1]],
                               [0, 0, 1]], np.float64)
        shadow = None
        if shadows:
            # A card lies 0.3 mm thick and a little curled: a thin, soft shadow.
            reach = rng.uniform(0.4, 1.2) * scale
            shadow = (np.cos(light_dir) * reach, np.sin(light_dir) * reach,
                      rng.uniform(0.4, 1.0) * scale, rng.uniform(0.25, 0.5))
        _paste_card(canvas, labels, face, hmg @ art_to_mat, i, shadow)
        arts.append((p, centre, art_to_mat, code, whole, fw, fh))

    # A hand and arm reaching in from the table's edge.
    hand = c.get("hand")
    if hand is not None and hand is not False:
        from vision.synth_hands import draw_hand, hand_shapes
        inv = np.linalg.inv(hmg)
        view = synth._map(inv, [[0, 0], [cw, 0], [cw, ch], [0, ch]])
        view_mm = (*view.min(axis=0), *view.max(axis=0))
        target = None
        if items:
            ti = int(rng.integers(len(items))) if hand is True else int(hand)
            _, _, a2m, _, _, fw, fh = arts[ti]
            target = synth._map(a2m, [[0, 0], [fw, 0], [fw, fh], [0, fh]])
        arm, hand_mask, _tip = hand_shapes(hmg, view_mm, rng, target, c.get("hand_mode", "over"),
                                           c.get("hand_cover", 0.35), (cw, ch))
        draw_hand(canvas, labels, arm, hand_mask, rng, bare_arm=c.get("bare_arm"),
                  px_per_mm=scale, height_mm=c.get("hand_height"), light_dir=light_dir)

    # The lens bends the ideal image into the frame.
    if margin or cam.k1 or cam.k2:
        mx, my = cam.lens_maps(margin)
        canvas = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        labels = cv2.remap(labels.astype(np.float32), mx, my, cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=-1).astype(np.int16)
    truth.homography = cam.homography(0)
    truth.camera = cam
    for _i, (p, centre, a2m, code, whole, fw, fh) in enumerate(arts):
        corners_mm = synth._map(a2m, [[0, 0], [fw, 0], [fw, fh], [0, fh]])
        corners = cam.project(corners_mm)
        code_img = cam.project(synth._map(a2m, code)) if code is not None else None
        sticker_img = cam.project(synth._map(a2m, whole)) if whole is not None else None
        truth.append({
            "card": p.card, "deck": p.deck or deck,
            "zone": layout.zone_at(centre), "centre_mm": tuple(map(float, centre)),
            "centre": tuple(map(float, cam.project([centre])[0])),
            "corners": corners, "corners_mm": corners_mm, "sticker": code is not None,
            "code_corners": code_img, "sticker_corners": sticker_img,
            "code_px": float(np.mean([np.linalg.norm(code_img[j] - code_img[(j + 1) % 4])
                                      for j in range(4)])) if code_img is not None else 0.0,
        })
    hand_on = hand is not None and hand is not False
    for i, t in enumerate(truth):
        t["card_visible"] = synth._visible(labels, t["corners"], i)
        t["code_visible"] = synth._visible(labels, t["sticker_corners"], i) if t["sticker"] else 0.0
        t["code_in_frame"] = bool(t["sticker"] and np.all(t["sticker_corners"] >= 0)
                                  and np.all(t["sticker_corners"] <= [w - 1, h - 1]))
        t["covered_by_hand"] = bool(hand_on and synth._covered(labels, t["corners"]))
        t["card_px"] = float(max(np.linalg.norm(t["corners"][0] - t["corners"][3]),
                                 np.linalg.norm(t["corners"][1] - t["corners"][2]),
                                 np.linalg.norm(t["corners"][0] - t["corners"][1])))

    # Light: the lamp's colour, uneven light and glare, then the lens's blur and vignette.
    lin = to_linear(np.clip(canvas + 0.5, 0, 255).astype(np.uint8))
    lamp = float(c.get("lamp", 5000) or 5000)
    lin *= lamp_colour(lamp)[None, None, :]
    lin = _light_and_glare(lin, rng, c, lamp)
    lin = optics(lin, rng, c)
    err = c.get("wb_error")
    if err is None:
        err = (0.0, 0.0, 0.0)
    elif np.isscalar(err):
        err = rng.uniform(-float(err), float(err), 3)
    gains = white_balance_gains(lamp, err, float(c.get("wb_adapt", 1.0)))
    # What the camera meters: a centre-weighted mean of the scene (coarse grid).
    small = cv2.resize(lin, (32, 24), interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:24, 0:32].astype(np.float32)
    weight = np.exp(-(((xx - 15.5) / 12) ** 2 + ((yy - 11.5) / 9) ** 2))[:, :, None]
    scene_mean = (small * weight).sum(axis=(0, 1)) / weight.sum()          # B, G, R
    fooled = float(c.get("awb_scene", 0.0) or 0.0)
    if fooled:
        # Auto white balance takes the scene's colour for the lamp's: on a red cloth the
        # cards turn cyan. ``awb_scene`` is how far it is fooled (1: grey world).
        seen = scene_mean * gains
        gains = gains * (seen.mean() / np.maximum(seen, 1e-6)) ** np.float32(fooled)
        gains = (gains / gains[1]).astype(np.float32)
    exposure = float(c.get("exposure", 0.0) or 0.0)
    target = c.get("auto_exposure")
    if target:
        # Auto exposure brings the metered grey to ``target`` (linear), within the
        # camera's range; ``exposure`` is then its bias. A white mat comes out greyer,
        # white cards on dark felt burn out.
        grey = float((scene_mean * gains).mean())
        exposure += float(np.clip(np.log2(float(target) / max(grey, 1e-4)), -2.0, 2.0))
    sensor = {"exposure": exposure,
              "shot_noise": c.get("shot_noise", 0.0),
              "read_noise": c.get("read_noise", c.get("noise", 0.0)),
              "wb_gains": gains, "washout": c.get("washout", 0.0),
              "sharpen": c.get("sharpen", 0.0), "jpeg": c.get("jpeg")}
    truth.conditions = {"lamp": lamp, "wb_gains": [float(v) for v in gains], "exposure": exposure,
                        "height_mm": cam.height_mm, "px_per_mm": scale}
    return synth.Scene(truth, rng, lambda r: sensor_and_processing(lin, r, sensor))


def cam_look_at(cam: PinholeCamera):
    """The table point at the frame's centre."""
    inv = np.linalg.inv(cam.homography(0))
    return tuple(synth._map(inv, [[cam.size[0] / 2, cam.size[1] / 2]])[0])


def _light_and_glare(lin, rng, c, lamp) -> np.ndarray:
    light = float(c.get("light", 0) or 0)
    glare = float(c.get("glare", 0) or 0)
    if not (light or glare):
        return lin
    h, w = lin.shape[:2]
    sw, sh = max(8, w // 8), max(6, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx, yy = (xx + 0.5) * (w / sw), (yy + 0.5) * (h / sh)
    gain = np.ones((sh, sw), np.float32)
    add = np.zeros((sh, sw), np.float32)
    if light:
        # A lamp off to one side: brighter towards it, by up to `light`.
        a = rng.uniform(0, 2 * np.pi)
        grad = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(w, h)
        gain = np.clip(1.0 - light * (grad + 0.5), 0.2, 1.2).astype(np.float32)
    if glare:
        # The lamp reflected by glossy cards or varnish: its own colour, added.
        gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        r = rng.uniform(0.04, 0.12) * min(w, h)
        add = (glare * 1.5 * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))).astype(np.float32)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_CUBIC)
    add = cv2.resize(add, (w, h), interpolation=cv2.INTER_CUBIC)
    return lin * gain[:, :, None] + add[:, :, None] * lamp_colour(lamp)[None, None, :]
