"""The Blender world's geometry and camera processing, without Blender: projection and lens, the render canvas, card meshes and the truth measured from an index pass, scene descriptions, white balance and sensor noise."""
import json

import numpy as np
import pytest

from bench.blender_world import pipeline as P
from bench.blender_world import world as W
from bench.blender_world.camera import Camera


def _camera(**kw):
    args = dict(hfov_deg=72, target=(15.0, -10.0), px_per_mm=2.6, tilt_deg=9, tilt_towards_deg=40,
                roll_deg=25, k1=-0.11, k2=0.015)
    args.update(kw)
    return Camera.above((960, 540), **args)


def test_projection_and_table_point_are_inverse():
    cam = _camera()
    pts = np.array([[15, -10, 0], [-90, 40, 0], [120, 60, 0], [0, 0, 0]], float)
    px = cam.project(pts)
    back = cam.table_point(px[:, 0], px[:, 1])
    assert np.abs(back - pts).max() < 1e-6
    # Scale at the target: the px_per_mm asked for (the tilt changes it by a few per cent).
    assert cam.px_per_mm_at((15, -10)) == pytest.approx(2.6, rel=0.05)


def test_distortion_maps_send_each_frame_pixel_to_its_ideal_ray():
    cam = _camera()
    cw, ch = cam.canvas_size()
    mx, my = cam.distortion_maps()
    pts = np.array([[-100, 50, 0], [110, -60, 2.0], [15, -10, 0], [-140, -70, 0]], float)
    px = cam.project(pts)
    ideal = cam.project(pts, distorted=False) - cam.centre + [(cw - 1) / 2, (ch - 1) / 2]
    for (u, v), (iu, iv) in zip(px, ideal):
        if not (0 <= u < 959 and 0 <= v < 539):
            continue
        # Interpolate the maps at the (sub-pixel) frame position.
        x0, y0 = int(u), int(v)
        fx, fy = u - x0, v - y0
        def at(m, fx=fx, fy=fy, x0=x0, y0=y0):
            return ((1 - fx) * (1 - fy) * m[y0, x0] + fx * (1 - fy) * m[y0, x0 + 1]
                    + (1 - fx) * fy * m[y0 + 1, x0] + fx * fy * m[y0 + 1, x0 + 1])
        assert abs(at(mx) - iu) < 0.02 and abs(at(my) - iv) < 0.02
    # Barrel distortion: the canvas is larger than the frame, and every source lies on it.
    assert cw > 960 and ch > 540
    assert mx.min() >= 0 and my.min() >= 0 and mx.max() <= cw - 1 and my.max() <= ch - 1


def test_blender_camera_matches_the_pinhole():
    cam = _camera(fstop=2.0, focus_mm=400.0)
    b = cam.blender()
    cw = b["canvas"][0]
    assert b["lens_mm"] / b["sensor_mm"] * cw == pytest.approx(cam.f_px)
    axes = np.asarray(b["axes"])
    assert np.allclose(axes.T @ axes, np.eye(3)) and np.linalg.det(axes) == pytest.approx(1.0)
    # Blender's camera looks down its -z: towards the table, through the target.
    view = -axes[:, 2]
    pos = np.asarray(b["location_m"]) * 1000
    t = -pos[2] / view[2]
    assert np.allclose((pos + t * view)[:2], (15.0, -10.0), atol=1e-6)
    assert b["focus_m"] == pytest.approx(0.4)
    # A point at the focus distance is sharp; a nearer one is not.
    assert cam.blur_px(400.0) == 0.0 and cam.blur_px(300.0) > 0.5


def test_card_mesh_rounded_bowed_and_mapped():
    card = W.card_mesh((63.0, 88.0), (5.0, 7.0), 0.0, bow_mm=1.0, base_z=2.0)
    v, c = card["verts_mm"], card["corners_mm"]
    assert np.allclose(c[:, :2], [[-26.5, 51], [36.5, 51], [36.5, -37], [-26.5, -37]])
    # Rounded: no vertex reaches the square corner; the outline stays inside the card.
    assert np.min(np.hypot(*(v[:, :2] - c[0, :2]).T)) > 0.9
    assert v[:, 0].min() >= -26.5 - 1e-9 and v[:, 0].max() <= 36.5 + 1e-9
    # Bowed along the long side, the middle up; the ends rest on the base, the top 0.3 mm up.
    assert v[:, 2].min() == pytest.approx(2.3)
    assert v[:, 2].max() == pytest.approx(3.3, abs=0.01)
    uv = card["uvs"]
    assert uv.min() >= 0 and uv.max() <= 1
    faces = np.asarray(card["faces"])
    assert faces.shape[1] == 4 and faces.min() == 0 and faces.max() == len(v) - 1


def test_truth_measures_what_hides_a_card():
    cv2 = pytest.importorskip("cv2")
    cam = Camera.above((640, 480), 60.0, (0.0, 0.0), 2.0)
    table = W.Table(0, "t", "felt:green", "webcam640", "lamp", ("d",), 0)
    frame = W.Frame("f", "d", "hand", cam, [W.Placement("KS", (0.0, 0.0), 0.0)])
    size = (63.0, 88.0)
    corners = cam.project(W.card_mesh(size, (0, 0), 0.0)["corners_mm"])
    index = np.zeros((480, 640), np.uint16)
    cv2.fillPoly(index, [np.round(corners).astype(np.int32)], 1)
    cy = int(round(corners[:, 1].mean()))
    index[cy:, :][index[cy:, :] == 1] = W.HAND_INDEX        # a hand over the card's lower half
    orig = W.card_size
    W.card_size = lambda design, card: size
    try:
        t = W.frame_truth(table, frame, index)[0]
    finally:
        W.card_size = orig
    assert t["whole"] and t["card"] == "KS"
    assert t["visible"] == pytest.approx(0.5, abs=0.03)
    assert t["hidden_by_hand"] == pytest.approx(0.5, abs=0.03)
    assert t["card_px"] == pytest.approx(176, abs=3)


def test_scene_descriptions_are_plain_json_and_deterministic():
    tables = W.plan_tables(8, seed=3)
    again = W.plan_tables(8, seed=3)
    assert [t.key for t in tables] == [t.key for t in again]
    assert all(set(t.designs) <= set(W.DESIGN_POOL) for t in tables)
    from bench.vision_sets import TUNING_DESIGNS
    assert not set(W.DESIGN_POOL) & set(TUNING_DESIGNS)
    for t in tables:
        json.dumps(t.spec)
        lights, world, white = W.light_descriptions(t.lights, t.room)
        json.dumps([lights, world])
        assert white > 0 and all(max(L["colour"]) == pytest.approx(1.0) for L in lights)
    # A lamp placed for glare: its mirror image in the table lines up with the camera
    # and the chosen point.
    rng = np.random.default_rng(0)
    cam_pos, point = np.array([10.0, -20.0, 300.0]), np.array([80.0, 40.0, 0.0])
    lamp = W.glare_lamp(cam_pos, point, rng, 3000.0)
    mirror = np.array(lamp["location_mm"]) * [1, 1, -1]
    d = mirror - cam_pos
    hit = cam_pos + d * (-cam_pos[2] / d[2])
    assert np.allclose(hit[:2], point[:2])


def test_kelvin_colours_run_from_orange_to_blue():
    warm, day, cool = (np.asarray(W.kelvin_rgb(k)) for k in (2700, 6500, 9000))
    assert warm[0] > warm[2] * 3
    assert day[0] == pytest.approx(day[2], rel=0.15)     # about white: D65 is near 6500 K
    assert cool[2] > cool[0]


def test_white_balance_and_noise():
    rng = np.random.default_rng(1)
    p = P.draw_develop("phone", rng)
    p.awb, p.awb_strength, p.awb_error, p.saturation, p.denoise, p.sharpen = "grey", 1.0, (0, 0), 1.0, 0, 0
    p.tone, p.lift, p.drop, p.contrast, p.vignette, p.vignette_lens = "standard", 0.0, 0.0, 0.0, 0.0, 0.0
    lamp = np.asarray(W.kelvin_rgb(3000), np.float32)
    grey = np.ones((120, 160, 3), np.float32) * 0.2 * lamp
    out, _ = P.develop(grey, p, rng)
    b, g, r = out.reshape(-1, 3).mean(axis=0)
    assert abs(r - b) < 12, (r, g, b)          # a warm lamp on grey: grey again
    raw = P.develop(grey, P.Develop(**{**p.to_json(), "awb_strength": 0.0}), rng)[0].reshape(-1, 3).mean(axis=0)
    assert raw[2] > raw[0] + 30                # without white balance: orange
    # Shot noise: a brighter half is noisier in linear light than a darker one.
    p.jpeg = 100
    half = np.concatenate([np.full((80, 80, 3), 0.02, np.float32), np.full((80, 80, 3), 0.3, np.float32)], axis=1)
    out, _ = P.develop(half, p, np.random.default_rng(2))
    lin = (out.astype(np.float32) / 255) ** 2.2
    assert lin[10:70, 90:150].std() > 2 * lin[10:70, 10:70].std()


def test_the_live_pass_is_shown_the_card_each_request_names():
    # A calibration pass may ask for a card again ("move it a little", "again"); the
    # webcam's frames then show that card, not the next one in the deck.
    from bench.vision_blender import LiveFrames

    class Shots:
        def shoot(self, frame_id, k):
            return frame_id, None

    cam = LiveFrames(Shots(), "d", ["9S", "10S", "JS"], patience=6, gap=1)
    requests = iter(["show the nine of spades (9S) alone, face up",
                     "show the ten of spades (10S) alone, face up",
                     "the ten of spades (10S) is not seen clearly there: move it a little, alone, face up",
                     "show the jack of spades (JS) alone, face up"])
    seen = []
    for frame in cam:
        seen.append(frame)
        if len(seen) in (3, 7, 11, 15):          # the reader speaks now and then
            cam.announce(next(requests))
    assert cam.shown == ["9S", "10S", "10S", "JS"]
    assert seen[4] == "d.alone.9S" and seen[8] == "d.alone.10S" and seen[12] == "d.alone.10S"
    assert seen[16] == "d.alone.JS" and seen[-1] == "d.alone.JS"     # never asked further: the camera stops


def test_overlapping_cards_on_the_mat_lie_each_above_the_one_before():
    # On the printed mat each card is raised onto the paper; a trick being gathered must
    # still lie in turn, or the truth's order (later cards on top) is not the render's.
    from bench.blender_world import generate as G
    table = next(t for t in G.select_tables(8, 1, 3, None) if t.mat is not None)
    frames = [f for f in W.table_frames(table, {"overlap": 1}, ["9S", "10S", "JS", "QS"]) if f.kind == "overlap"]
    assert frames
    for f in frames:
        z = [p.base_z for p in f.placements]
        assert len(z) >= 2 and all(b - a >= 0.5 for a, b in zip(z, z[1:])), z
