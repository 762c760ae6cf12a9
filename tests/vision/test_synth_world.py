"""Tests of the camera model of synthetic frames: one pinhole camera above the table, its lens, light and sensor, the surfaces, the printed mat, hands and shadows.

Each test measures the rendered pixels against the truth the renderer reports, so a
renderer that drew one thing and reported another fails.
"""
import subprocess
import sys

import cv2
import numpy as np
import pytest

from vision.synth import compose_frame, compose_scene
from vision.synth_camera import PinholeCamera, to_linear
from vision.synth_surfaces import SurfaceError, known_surfaces, surface_texture
from vision.zones import MatLayout, calibrate

CLEAN = dict(markers=False, shadows=False)


def _bright(img, level=150):
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) > level


def _not_black(img):
    return img.max(axis=2) > 120     # paper or ink of any colour, not black felt


def _side_points(corners_mm, camera):
    """Points along the card's sides, seen through the lens (the sides bow), and the
    outward direction there."""
    c = np.asarray(corners_mm, float)
    centre = camera.project([c.mean(axis=0)])[0]
    for i in range(4):
        for f in (0.3, 0.5, 0.7):
            m = camera.project([c[i] + f * (c[(i + 1) % 4] - c[i])])[0]
            yield m, (m - centre) / np.linalg.norm(m - centre)


def test_truth_corners_follow_the_lens_onto_the_card(need_art):
    # A strong barrel lens and a card near the frame's corner: the truth must be bent
    # like the image (an undistorted projection would be ~10 px off here).
    cam = {"px_per_mm": 2.0, "k1": -0.25, "tilt_deg": 6, "tilt_towards_deg": 30}
    img, truth = compose_frame([{"card": "9H", "at": (95.0, 70.0), "rotation": 12, "sticker": False}],
                               size=(640, 480), rng=1, surface="felt:black", camera=cam, **CLEAN)
    bright = _not_black(img)
    straight = cv2.perspectiveTransform(np.array([[[95.0, 70.0]]]), truth.homography).reshape(2)
    assert np.linalg.norm(np.asarray(truth[0]["centre"]) - straight) > 5   # the lens moved it
    for m, out in _side_points(truth[0]["corners_mm"], truth.camera):
        inside = np.round(m - 3 * out).astype(int)
        outside = np.round(m + 3 * out).astype(int)
        assert bright[inside[1], inside[0]], ("card expected at", inside)
        assert not bright[outside[1], outside[0]], ("felt expected at", outside)
    corners = np.asarray(truth[0]["corners"])               # and the corners are its corners
    assert np.allclose(corners, truth.camera.project(truth[0]["corners_mm"]))
    for k in range(4):
        towards = corners.mean(axis=0) - corners[k]
        p = np.round(corners[k] + 8 * towards / np.linalg.norm(towards)).astype(int)
        q = np.round(corners[k] - 3 * towards / np.linalg.norm(towards)).astype(int)
        assert bright[p[1], p[0]] and not bright[q[1], q[0]]


def test_one_camera_height_gives_every_card_one_size(need_art):
    places = [{"card": c, "at": at, "rotation": 0, "sticker": False}
              for c, at in (("9S", (80.0, 70.0)), ("10S", (340.0, 70.0)), ("JS", (80.0, 230.0)),
                            ("QS", (340.0, 230.0)), ("KS", (210.0, 150.0)))]
    img, truth = compose_frame(places, size=(640, 480), rng=2, surface="felt:black",
                               camera={"px_per_mm": 1.4}, **CLEAN)
    sizes = [t["card_px"] for t in truth]
    assert max(sizes) / min(sizes) < 1.01, sizes
    assert abs(np.median(sizes) - 88 * 1.4) < 2
    # ... and the image agrees: each white blob is that size.
    n, lab, stats, _ = cv2.connectedComponentsWithStats(_bright(img).astype(np.uint8))
    heights = sorted(int(s[cv2.CC_STAT_HEIGHT]) for s in stats[1:] if s[cv2.CC_STAT_AREA] > 2000)
    assert len(heights) == 5 and heights[-1] - heights[0] <= 2, heights
    # A tilted camera sees nearer cards bigger, smoothly: the sizes differ, by a little.
    _, tilted = compose_frame(places, size=(640, 480), rng=2, surface="felt:black",
                              camera={"px_per_mm": 1.4, "tilt_deg": 12}, **CLEAN)
    t_sizes = [t["card_px"] for t in tilted]
    assert 1.02 < max(t_sizes) / min(t_sizes) < 1.3


@pytest.mark.parametrize("mat, ids", [("A3", {0, 1, 2, 3}), ("A4", {4, 5, 6, 7})])
def test_the_printed_mat_calibrates_where_the_layout_says(mat, ids):
    cam = {"px_per_mm": 1.9 if mat == "A3" else 2.6, "tilt_deg": 7, "tilt_towards_deg": 200,
           "roll_deg": 8, "k1": -0.03}
    img, truth = compose_frame([], size=(1280, 720), rng=3, surface=f"mat:{mat}:wood:walnut:satin",
                               camera=cam, read_noise=1.5, shot_noise=4, jpeg=90)
    cal = calibrate(img)
    assert cal.layout.name == mat and set(cal.markers) == ids
    layout = MatLayout.named(mat)
    for zone in layout.zones:
        centre = layout.zone_centre(zone)
        seen = truth.camera.project([centre])[0]      # where the zone's centre is in the image
        assert np.linalg.norm(cal.to_mat([seen])[0] - centre) < 2.0, zone


def test_mat_calibrate_command_reads_a_rendered_mat(tmp_path):
    img, _ = compose_frame([], size=(1280, 720), rng=4, surface="mat:A3:cloth:green",
                           camera={"px_per_mm": 2.1, "tilt_deg": 4}, read_noise=2, jpeg=85)
    frame = tmp_path / "mat.png"
    cv2.imwrite(str(frame), img)
    out = tmp_path / "zones.json"
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "mat", "--calibrate", str(frame),
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()


def test_the_same_table_seed_gives_the_same_table(need_art):
    kw = dict(size=(320, 240), surface="wood:oak:gloss", surface_seed=11,
              camera={"px_per_mm": 0.8}, **CLEAN)
    a, ta = compose_frame([{"card": "JH", "at": "N", "sticker": False}], rng=1, **kw)
    b, tb = compose_frame([{"card": "9C", "at": "S", "sticker": False}], rng=2, **kw)
    c, _ = compose_frame([], rng=3, **{**kw, "surface_seed": 12})
    free = np.ones(a.shape[:2], bool)
    for t in (ta[0], tb[0]):
        poly = np.zeros(a.shape[:2], np.uint8)
        cv2.fillConvexPoly(poly, np.round(t["corners"]).astype(np.int32), 1)
        free &= cv2.dilate(poly, np.ones((9, 9), np.uint8)) == 0
    assert np.abs(a.astype(int) - b.astype(int))[free].max() <= 1
    assert np.abs(a.astype(int) - c.astype(int))[free].mean() > 5


def test_shot_noise_grows_with_the_light_and_read_noise_does_not(need_art):
    place = [{"card": "9D", "at": "UP", "sticker": False}]
    kw = dict(size=(320, 240), surface="felt:grey", camera={"px_per_mm": 1.0}, **CLEAN)

    def linear_noise(**noise):
        scene = compose_scene(place, rng=5, **kw, **noise)
        a = to_linear(scene.shoot(1)[0]).mean(axis=2)
        b = to_linear(scene.shoot(2)[0]).mean(axis=2)
        card = np.zeros(a.shape, np.uint8)
        cv2.fillConvexPoly(card, np.round(scene.truth[0]["corners"]).astype(np.int32), 1)
        inner = cv2.erode(card, np.ones((15, 15), np.uint8)).astype(bool)
        outer = cv2.dilate(card, np.ones((15, 15), np.uint8)) == 0
        white = inner & (a > np.percentile(a[inner], 50))     # the card's paper, not its pips
        d = (a - b) / np.sqrt(2)
        return d[white].std(), d[outer].std(), a[white].mean() / a[outer].mean()

    hi, lo, ratio = linear_noise(shot_noise=12)
    assert ratio > 2.5
    assert hi / lo == pytest.approx(np.sqrt(ratio), rel=0.3)
    hi, lo, _ = linear_noise(read_noise=4)
    assert hi / lo == pytest.approx(1.0, rel=0.2)


def test_a_warm_lamp_is_undone_by_white_balance_as_far_as_it_adapts(need_art):
    place = [{"card": "9S", "at": "UP", "sticker": False}]
    kw = dict(size=(320, 240), rng=3, surface="felt:black", camera={"px_per_mm": 1.0}, **CLEAN)

    def paper(**c):
        img, truth = compose_frame(place, **kw, **c)
        x, y = np.round(truth[0]["centre"]).astype(int)
        m = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(m, np.round(truth[0]["corners"]).astype(np.int32), 1)
        m = cv2.erode(m, np.ones((9, 9), np.uint8)).astype(bool) & _bright(img, 120)
        return img[m].astype(float).mean(axis=0)          # B, G, R of the paper

    b, g, r = paper(lamp=2700, wb_adapt=1.0)
    assert abs(r - b) < 6
    b, g, r = paper(lamp=2700, wb_adapt=0.0)
    assert r - b > 60
    b, g, r = paper(lamp=6500, wb_error=(0.25, 0.0, -0.25), exposure=-1.0)
    assert b - r > 25


def test_vignetting_darkens_the_corners_and_washout_lifts_the_blacks():
    kw = dict(size=(320, 240), rng=1, surface="felt:grey", camera={"px_per_mm": 0.8}, **CLEAN)
    img, _ = compose_frame([], vignette=0.6, **kw)
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    assert g[110:130, 150:170].mean() > 1.3 * g[:15, :15].mean()
    dark, _ = compose_frame([], **{**kw, "surface": "felt:black"})
    washed, _ = compose_frame([], washout=0.6, **{**kw, "surface": "felt:black"})
    assert washed.mean() > dark.mean() + 20


def test_a_hand_over_a_card_reaches_in_from_the_edge_and_beside_it_covers_nothing(need_art):
    place = [{"card": "QH", "at": "UP", "rotation": 30, "sticker": False}]
    kw = dict(size=(640, 480), surface="felt:green", camera={"px_per_mm": 1.4},
              markers=False, shadows=False, bare_arm=True, hand_height=30)
    clean, _ = compose_frame(place, rng=6, **kw)
    for seed in range(6):
        img, truth = compose_frame(place, rng=6, hand=0, hand_cover=0.4, **kw)
        assert truth[0]["covered_by_hand"] and 0.3 < truth[0]["card_visible"] < 0.97
        changed = (np.abs(img.astype(int) - clean.astype(int)).max(axis=2) > 40).astype(np.uint8)
        n, lab = cv2.connectedComponents(changed)
        sizes = np.bincount(lab.ravel())[1:]
        big = lab == 1 + int(np.argmax(sizes))
        edge = np.concatenate([big[0], big[-1], big[:, 0], big[:, -1]])
        assert edge.any()                                  # the arm comes from outside
        kw["light_dir"] = seed * 60                        # vary for the next round
    for seed in range(6):
        _, truth = compose_frame(place, rng=seed, hand=0, hand_mode="beside", **kw)
        assert not truth[0]["covered_by_hand"] and truth[0]["card_visible"] > 0.99


def test_cards_cast_a_thin_shadow_away_from_the_lamp(need_art):
    place = [{"card": "9C", "at": "UP", "rotation": 0, "sticker": False}]
    kw = dict(size=(640, 480), rng=2, surface="felt:sky", camera={"px_per_mm": 1.5},
              markers=False, light_dir=0.0)                 # the shadow falls towards +x
    lit, truth = compose_frame(place, shadows=False, **kw)
    shaded, _ = compose_frame(place, shadows=True, **kw)
    c = np.asarray(truth[0]["corners"])
    x_right = int(np.ceil(c[:, 0].max())) + 1
    x_left = int(np.floor(c[:, 0].min())) - 2
    ys = slice(int(c[:, 1].min()) + 10, int(c[:, 1].max()) - 10)
    g0 = cv2.cvtColor(lit, cv2.COLOR_BGR2GRAY).astype(float)
    g1 = cv2.cvtColor(shaded, cv2.COLOR_BGR2GRAY).astype(float)
    assert (g0[ys, x_right] - g1[ys, x_right]).mean() > 8     # dark line beyond the right side
    assert abs((g0[ys, x_left] - g1[ys, x_left]).mean()) < 3  # none on the lit side


def test_a_card_on_top_hides_the_one_below_and_a_card_may_leave_the_frame(need_art):
    cam = {"px_per_mm": 1.5, "look_at": (210.0, 148.5)}
    _, truth = compose_frame([("9H", (200.0, 150.0), 0, False), ("10H", (225.0, 160.0), 25, False),
                              ("JH", (210.0 - 640 / 1.5 / 2, 148.0), 0, False)],
                             size=(640, 480), rng=1, surface="felt:green", camera=cam, **CLEAN)
    assert 0.2 < truth[0]["card_visible"] < 0.8 and truth[1]["card_visible"] > 0.99
    assert 0.3 < truth[2]["card_visible"] < 0.7             # half of it is off the frame


@pytest.mark.parametrize("spec", [
    "cloth:teal", "felt:ff8800", "wood:pine:matte", "wood:mahogany:gloss", "pattern:checks",
    "pattern:stripes", "pattern:tartan", "pattern:print", "pattern:dots", "carpet:loop",
    "carpet:shag", "tiles:ceramic", "tiles:marble", "mat:A4:tiles:marble"])
def test_every_kind_of_surface_renders_with_some_texture(spec):
    img = surface_texture(spec, (0, 0, 150, 100), 1.5, rng=1)
    assert img.shape == (150, 225, 3)
    assert img.std() > 2


def test_bad_surfaces_and_camera_conditions_are_named():
    with pytest.raises(SurfaceError, match="unknown surface 'wood:balsa'"):
        surface_texture("wood:balsa", (0, 0, 10, 10), 1.0)
    assert "walnut" in known_surfaces() and "tartan" in known_surfaces()
    with pytest.raises(TypeError, match="need the camera model"):
        compose_frame([], size=(64, 48), rng=1, lamp=3000)
    with pytest.raises(TypeError, match="unknown camera setting"):
        compose_frame([], size=(64, 48), rng=1, camera={"zoom": 2})
    with pytest.raises(ValueError, match="the camera is 640x480 but the frame is 64x48"):
        compose_frame([], size=(64, 48), rng=1,
                      camera=PinholeCamera.above((640, 480), (0, 0), 1.0))


def test_a_still_scene_shoots_frames_that_differ_only_by_noise(need_art):
    scene = compose_scene([("AS", "S", 10, False)], size=(320, 240), rng=4, surface="felt:navy",
                          camera={"px_per_mm": 0.8}, read_noise=3, shot_noise=5)
    a, ta = scene.shoot(1)
    b, tb = scene.shoot(2)
    d = np.abs(a.astype(int) - b.astype(int))
    assert ta is tb and 0.5 < d.mean() < 8


def test_auto_exposure_and_auto_white_balance_answer_to_the_table(need_art):
    place = [{"card": "9S", "at": "UP", "sticker": False}]
    kw = dict(size=(320, 240), rng=3, camera={"px_per_mm": 1.0}, **CLEAN)

    def paper(**c):
        img, truth = compose_frame(place, **kw, **c)
        m = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(m, np.round(truth[0]["corners"]).astype(np.int32), 1)
        m = cv2.erode(m, np.ones((9, 9), np.uint8)).astype(bool)
        px = img[m].astype(float)
        return px[px.sum(axis=1) >= np.percentile(px.sum(axis=1), 60)].mean(axis=0)   # B, G, R

    # Metered to the same grey, a card on black felt burns out; on white cloth it is greyer.
    on_black = paper(surface="felt:black", auto_exposure=0.18)
    on_white = paper(surface="cloth:white", auto_exposure=0.18)
    assert on_black.mean() > 245 and on_white.mean() < on_black.mean() - 25
    # Auto white balance fooled by a red felt turns the white card cyan (less red).
    b, g, r = paper(surface="felt:red", awb_scene=0.8, exposure=-1.0)
    b0, g0, r0 = paper(surface="felt:red", exposure=-1.0)
    assert (b - r) - (b0 - r0) > 20
