"""Tests of the table mat and the camera calibration: markers found, homography right, zones named, errors clear."""
import json
import re

import cv2
import numpy as np
import pytest

from vision.synth import compose_frame
from vision.zones import (GROUND_GREY, ZONES, Calibration, CalibrationError, MatLayout,
                          calibrate, card_area, detect_markers, render_mat, write_mat_pdf)


@pytest.mark.parametrize("layout", [MatLayout.a3(), MatLayout.a4()])
def test_zones_are_disjoint_inside_the_mat_and_clear_of_markers(layout):
    assert set(layout.zones) == set(ZONES)
    rects = list(layout.zones.values())
    for i, (x0, y0, x1, y1) in enumerate(rects):
        assert 0 <= x0 < x1 <= layout.width_mm and 0 <= y0 < y1 <= layout.height_mm
        for (a0, b0, a1, b1) in rects[i + 1:]:
            assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0
        for (mx, my, side) in layout.markers.values():
            assert x1 <= mx or mx + side <= x0 or y1 <= my or my + side <= y0
    for zone in ZONES:
        assert layout.zone_at(layout.zone_centre(zone)) == zone


def test_unknown_names_give_clear_errors():
    with pytest.raises(ValueError, match="A3 or A4"):
        MatLayout.named("letter")
    with pytest.raises(ValueError, match="zones are N, "):
        MatLayout.a3().zone_centre("X")


@pytest.mark.parametrize("ground", ["grey", "white"])
def test_the_rendered_mat_shows_all_four_markers(ground):
    img = np.array(render_mat(px_per_mm=2.0, ground=ground))
    img = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    assert sorted(detect_markers(img)) == [0, 1, 2, 3]


@pytest.mark.parametrize("layout", [MatLayout.a3(), MatLayout.a4()])
def test_the_mats_card_area_is_printed_grey_and_the_white_mat_is_still_offered(layout):
    ppm = 2.0
    grey = np.array(render_mat(layout, px_per_mm=ppm))
    white = np.array(render_mat(layout, px_per_mm=ppm, ground="white"))
    x0, y0, x1, y1 = card_area(layout)
    for zone in ZONES:
        # A spot inside each zone, clear of its outline and label: where a card lies.
        zx0, zy0, zx1, zy1 = layout.zones[zone]
        x, y = (round(v * ppm) for v in ((zx0 + zx1) / 2, zy0 + 0.7 * (zy1 - zy0)))
        assert grey[y, x] == GROUND_GREY and white[y, x] == 255
    # Between the zones too (a card laid across two zones has grey all round it) ...
    gap = layout.zones["UP"][0] - 3, (layout.zones["UP"][1] + layout.zones["UP"][3]) / 2
    assert grey[round(gap[1] * ppm), round(gap[0] * ppm)] == GROUND_GREY
    # ... but not round the markers, which need white paper round them.
    for (mx, my, side) in layout.markers.values():
        assert not (x0 < mx + side / 2 < x1 and y0 < my + side / 2 < y1)
    assert grey[round(2 * ppm), round(2 * ppm)] == 255
    # Lines and labels stay readable on the ground: darker than it.
    assert 0 < grey[round(y0 * ppm) + 2:round(y1 * ppm) - 2, round(x0 * ppm) + 2:round(x1 * ppm) - 2].min() < GROUND_GREY - 40
    with pytest.raises(ValueError, match="grey or white"):
        render_mat(layout, ground="black")


def test_mat_pdf_white_option(tmp_path, capsys):
    from tests.vision.test_stickers import _run
    assert _run(["mat", "--pdf", str(tmp_path / "grey.pdf")]) == 0
    assert _run(["mat", "--pdf", str(tmp_path / "white.pdf"), "--white"]) == 0
    assert "all-white" in capsys.readouterr().out
    # The grey ground is a large area of one grey: the PDF's image is not the white one.
    assert (tmp_path / "grey.pdf").read_bytes() != (tmp_path / "white.pdf").read_bytes()


@pytest.mark.parametrize("a4,mm", [(False, (420, 297)), (True, (297, 210))])
def test_mat_pdf_has_the_true_paper_size(tmp_path, a4, mm):
    data = write_mat_pdf(tmp_path / "mat.pdf", a4=a4, dpi=100).read_bytes()
    w, h = map(float, re.search(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", data).groups())
    assert abs(w / 72 * 25.4 - mm[0]) < 1 and abs(h / 72 * 25.4 - mm[1]) < 1


@pytest.mark.parametrize("seed", range(4))
def test_calibration_recovers_the_camera_at_an_angle(need_art, seed):
    rng = np.random.default_rng(seed)
    img, truth = compose_frame([("JH", "S", 30), ("9D", "RACK", 0)], size=(1280, 720), rng=rng,
                               perspective=0.06, roll=rng.uniform(-25, 25),
                               px_per_mm=2.0, noise=3, blur=0.7, jpeg=80)
    cal = calibrate(img)
    assert len(cal.markers) >= 2 and cal.error_mm < 1.0
    # Mat points of the mat's zone centres, seen through the true camera, come back.
    for zone in ZONES:
        centre = np.array(MatLayout.a3().zone_centre(zone))
        pixel = cv2.perspectiveTransform(centre.reshape(1, 1, 2), truth.homography).reshape(2)
        assert np.linalg.norm(cal.to_mat([pixel])[0] - centre) < 2.0
        assert cal.zone_at(pixel) == zone
    assert [cal(t["centre"]) for t in truth] == ["S", "RACK"]


def test_paper_mat_calibrates_too(need_art):
    img, _ = compose_frame([], size=(1280, 720), rng=2, paper=True, perspective=0.04)
    assert calibrate(img).markers == [0, 1, 2, 3]


def test_calibration_without_markers_says_what_to_do(need_art):
    img, _ = compose_frame([("JH", "S")], size=(640, 480), rng=1, markers=False)
    with pytest.raises(CalibrationError, match=r"found 0 usable mat markers .*whole\s+mat is in view"):
        calibrate(img)


def test_mat_size_is_known_from_its_markers(need_art):
    img, _ = compose_frame([], size=(1280, 720), rng=1, mat="A4", px_per_mm=2.5)
    cal = calibrate(img)
    assert cal.layout.name == "A4" and cal.markers == [4, 5, 6, 7] and cal.error_mm < 1
    with pytest.raises(CalibrationError, match="not on the A3 mat"):
        calibrate(img, MatLayout.a3())


def test_zones_file_round_trips_and_bad_files_are_refused(need_art, tmp_path):
    img, _ = compose_frame([], size=(1280, 720), rng=4, perspective=0.05)
    cal = calibrate(img)
    path = cal.save(tmp_path / "zones.json")
    back = Calibration.load(path)
    assert np.allclose(back.homography, cal.homography) and back.layout == cal.layout
    assert back.zone_at((640, 360)) == cal.zone_at((640, 360)) == "UP"
    with pytest.raises(CalibrationError, match="does not exist"):
        Calibration.load(tmp_path / "nope.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not readable JSON"):
        Calibration.load(tmp_path / "bad.json")
    data = json.loads(path.read_text())
    data["homography_image_to_mat_mm"] = [[1, 0], [0, 1]]
    (tmp_path / "odd.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="homography"):
        Calibration.load(tmp_path / "odd.json")


def test_mat_calibrate_then_recognize_names_zones(need_art, tmp_path, capsys):
    from tests.vision.test_stickers import _run
    img, _ = compose_frame([("JH", "W", 80), ("AS", "UP", 0), ("QC", "RACK", 0)],
                           size=(1280, 720), rng=7, perspective=0.05, roll=8)
    cv2.imwrite(str(tmp_path / "table.png"), img)
    zones = tmp_path / "zones.json"
    assert _run(["mat", "--calibrate", str(tmp_path / "table.png"), "--out", str(zones)]) == 0
    assert _run(["recognize", str(tmp_path / "table.png"), "--zones", str(zones), "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert {c["card"]: c["zone"] for c in json.loads(out)["cards"]} == {"JH": "W", "AS": "UP", "QC": "RACK"}
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((480, 640, 3), 90, np.uint8))
    assert _run(["mat", "--calibrate", str(tmp_path / "blank.png"), "--out", str(zones)]) == 2
    assert "found 0 usable mat markers" in capsys.readouterr().err
