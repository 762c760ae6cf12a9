"""Tests of the camera sources: one interface, a factory from config, and clear faults for missing or unplugged cameras."""
import types

import cv2
import numpy as np
import pytest

from vision.sources import (CameraError, FolderSource, OpenCVCameraSource, PiCameraSource,
                            VideoFileSource, open_source)


def _frames(n, size=(64, 48)):
    return [np.full((size[1], size[0], 3), 40 * i, np.uint8) for i in range(n)]


def _write_video(path, frames):
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
    assert out.isOpened()
    for f in frames:
        out.write(f)
    out.release()


def test_folder_source_reads_images_in_name_order_then_ends(tmp_path):
    for i, f in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), f)
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source({"kind": "folder", "path": str(tmp_path)}) as src:
        got = list(src)
    assert [int(f[0, 0, 0]) for f in got] == [0, 40, 80]
    looped = FolderSource(tmp_path, loop=True)
    assert [int(looped.read()[0, 0, 0]) for _ in range(4)] == [0, 40, 80, 0]


def test_folder_faults_are_clear(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        FolderSource(tmp_path / "nope")
    with pytest.raises(CameraError, match="holds no images"):
        FolderSource(tmp_path)
    (tmp_path / "bad.png").write_bytes(b"not png")
    with pytest.raises(CameraError, match="not a readable image"):
        FolderSource(tmp_path).read()


def test_video_file_source_reads_all_frames_then_none(tmp_path):
    _write_video(tmp_path / "t.avi", _frames(5))
    src = open_source({"kind": "video", "path": str(tmp_path / "t.avi")})
    got = list(src)
    src.close()
    assert len(got) == 5 and abs(int(got[2][10, 10, 0]) - 80) <= 6
    assert src.read() is None
    with pytest.raises(CameraError, match="does not exist"):
        VideoFileSource(tmp_path / "missing.mp4")


def test_missing_v4l2_camera_is_a_clear_fault():
    with pytest.raises(CameraError, match=r"could not be opened: is it plugged in"):
        open_source({"kind": "v4l2", "device": "/dev/video-euchre-missing"})


def test_a_camera_that_stops_delivering_raises_for_the_service_to_retry(tmp_path):
    # A real OpenCV capture whose frames run out behaves like an unplugged camera.
    _write_video(tmp_path / "cam.avi", _frames(2))
    cam = OpenCVCameraSource(str(tmp_path / "cam.avi"), capture_factory=cv2.VideoCapture)
    assert cam.read().shape == (48, 64, 3)
    cam.read()
    with pytest.raises(CameraError, match="stopped delivering frames"):
        cam.read()
    cam.close()


def test_picamera_missing_says_how_to_install(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_picamera(name, *a, **k):
        if name == "picamera2":
            raise ImportError("No module named 'picamera2'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_picamera)
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        open_source({"kind": "picamera"})


class _StandInPicamera2:
    """The few calls PiCameraSource makes on picamera2.Picamera2, as a stand-in module."""

    def __init__(self, num, fail_after=2):
        self.num, self.started, self.left = num, False, fail_after

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        self.size = config["main"]["size"]

    def start(self):
        self.started = True

    def capture_array(self, name):
        if self.left == 0:
            raise RuntimeError("camera frontend timed out")
        self.left -= 1
        w, h = self.size
        return np.zeros((h, w, 4), np.uint8)

    def stop(self):
        self.started = False

    def close(self):
        pass


def test_picamera_source_drops_alpha_and_faults_on_timeout():
    module = types.SimpleNamespace(Picamera2=_StandInPicamera2)
    cam = PiCameraSource(320, 240, module=module)
    assert cam.read().shape == (240, 320, 3)
    cam.read()
    with pytest.raises(CameraError, match="stopped delivering frames"):
        cam.read()
    cam.close()


def test_synthetic_source_shows_each_scene_for_its_frames(need_art):
    src = open_source({"kind": "synthetic", "scenes": [[("JH", "S")], [("AS", "N")]],
                       "frames": 2, "seed": 3, "size": [320, 240], "noise": 2})
    cards = []
    for frame in src:
        assert frame.shape == (240, 320, 3)
        cards.append([str(t["card"]) for t in src.truth])
    assert cards == [["JH"], ["JH"], ["AS"], ["AS"]]


def test_factory_names_bad_configs():
    with pytest.raises(ValueError, match="unknown camera source kind 'webcam'"):
        open_source({"kind": "webcam"})
    with pytest.raises(ValueError, match="needs setting 'path'"):
        open_source({"kind": "folder"})
    with pytest.raises(ValueError, match="bad setting"):
        open_source({"kind": "folder", "path": ".", "colour": 1})
