"""Camera sources: the Raspberry Pi camera, V4L2/USB cameras, image folders, video files and synthetic frames, behind one interface.

Every source has ``read() -> BGR frame (numpy uint8) or None`` (None: a finite source
has no more frames) and ``close()``, and works as a context manager. A camera that
is missing or stops delivering frames (unplugged) raises :class:`CameraError`, which
the service catches to retry. Sources are built by :func:`open_source` from config:

>>> src = open_source({"kind": "synthetic", "frames": 2, "seed": 1,
...                    "scenes": [[("JH", "S")]], "size": [320, 240]})   # doctest: +SKIP
>>> src.read().shape                                                       # doctest: +SKIP
(240, 320, 3)
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(RuntimeError):
    """A camera that cannot be opened or stopped delivering frames; the message says
    which one and what to check."""


class FrameSource:
    """Base of all sources: ``read()``, ``close()``, and ``with`` support."""

    live = False
    """True for a camera whose ``read()`` waits for its next frame (the table service then
    reads each frame as it arrives); recordings are read at the service's own pace."""

    def read(self) -> Optional[np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        """Frames until the source ends (a camera never ends)."""
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame


class OpenCVCameraSource(FrameSource):
    """A V4L2/USB camera through OpenCV (``device`` is an index like 0 or a path like
    ``/dev/video0``)."""

    live = True

    def __init__(self, device=0, width: Optional[int] = None, height: Optional[int] = None,
                 fps: Optional[int] = None, capture_factory=None):
        import cv2
        self.device = device
        factory = capture_factory or (lambda d: cv2.VideoCapture(d, cv2.CAP_V4L2)
                                      if not isinstance(d, str) or d.startswith("/dev/")
                                      else cv2.VideoCapture(d))
        self._cap = factory(device)
        if self._cap is None or not self._cap.isOpened():
            raise CameraError(
                f"camera {device!r} could not be opened: is it plugged in, is another program "
                "using it, and does `v4l2-ctl --list-devices` show it?")
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, int(width))
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, int(height))
        if fps:
            self._cap.set(cv2.CAP_PROP_FPS, int(fps))

    def read(self) -> np.ndarray:
        ok, frame = self._cap.read() if self._cap is not None else (False, None)
        if not ok or frame is None:
            raise CameraError(f"camera {self.device!r} stopped delivering frames (unplugged?)")
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only here; on Raspberry Pi OS
    install it with ``sudo apt install python3-picamera2``). ``module`` lets tests pass
    a stand-in for the picamera2 module."""

    live = True

    def __init__(self, width: int = 1280, height: int = 720, camera_num: int = 0, module=None):
        if module is None:
            try:
                import picamera2 as module
            except ImportError:
                raise CameraError(
                    "picamera2 is not installed: on Raspberry Pi OS run "
                    "`sudo apt install python3-picamera2` (and create the venv with "
                    "--system-site-packages), or use a V4L2 camera (kind: v4l2)") from None
        try:
            self._cam = module.Picamera2(camera_num)
            config = self._cam.create_video_configuration(
                main={"size": (int(width), int(height)), "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"Raspberry Pi camera {camera_num} could not start ({exc}): "
                              "is the ribbon cable seated and the camera enabled?") from None

    def read(self) -> np.ndarray:
        try:
            # picamera2's "RGB888" is stored B, G, R in memory: already OpenCV's order.
            frame = self._cam.capture_array("main")
        except (RuntimeError, OSError) as exc:
            raise CameraError(f"Raspberry Pi camera stopped delivering frames ({exc})") from None
        if frame is None:
            raise CameraError("Raspberry Pi camera returned no frame")
        return frame[:, :, :3] if frame.ndim == 3 and frame.shape[2] == 4 else frame

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None


class FolderSource(FrameSource):
    """The images of a folder in name order (``loop`` to start again at the end)."""

    recorded = True   # its end is the end of a recording, not a camera lost

    def __init__(self, path, loop: bool = False):
        self.path = Path(path)
        if not self.path.is_dir():
            raise CameraError(f"image folder {self.path} does not exist")
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"image folder {self.path} holds no images "
                              f"({', '.join(IMAGE_SUFFIXES)})")
        self.loop, self._i = loop, 0

    def read(self) -> Optional[np.ndarray]:
        import cv2
        if self._i >= len(self.files):
            if not self.loop:
                return None
            self._i = 0
        path = self.files[self._i]
        self._i += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"{path} is not a readable image")
        return frame


class VideoFileSource(FrameSource):
    """The frames of a video file, then None."""

    recorded = True   # its end is the end of a recording, not a camera lost

    def __init__(self, path):
        import cv2
        self.path = Path(path)
        if not self.path.is_file():
            raise CameraError(f"video file {self.path} does not exist")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise CameraError(f"video file {self.path} could not be opened (unknown format?)")

    def read(self) -> Optional[np.ndarray]:
        if self._cap is None:
            return None
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class SyntheticSource(FrameSource):
    """Frames composed by :func:`vision.synth.compose_frame`: each scene (a list of
    placements) is shown for ``frames`` frames with fresh noise, then the next scene;
    None after the last (or loop). ``conditions`` go to the composer."""

    def __init__(self, scenes: Sequence, frames: int = 1, size=(640, 480), seed=None,
                 loop: bool = False, **conditions):
        from vision.synth import compose_frame
        self._compose = compose_frame
        self.scenes = [list(s) for s in scenes]
        self.frames, self.size, self.loop, self.conditions = int(frames), tuple(size), loop, conditions
        self._rng = np.random.default_rng(seed)
        self._n = 0
        self.truth = None
        """The truth of the last frame read."""

    def read(self) -> Optional[np.ndarray]:
        scene = self._n // self.frames
        if scene >= len(self.scenes):
            if not self.loop or not self.scenes:
                return None
            self._n, scene = 0, 0
        self._n += 1
        frame, self.truth = self._compose(self.scenes[scene], size=self.size, rng=self._rng,
                                          **self.conditions)
        return frame


KINDS = ("picamera", "v4l2", "folder", "video", "synthetic")


def open_source(config: dict) -> FrameSource:
    """A source from a config section; ``kind`` is one of picamera, v4l2, folder, video,
    synthetic. Examples::

        {"kind": "v4l2", "device": 0, "width": 1280, "height": 720}
        {"kind": "picamera", "width": 1280, "height": 720}
        {"kind": "folder", "path": "frames/", "loop": false}
        {"kind": "video", "path": "table.mp4"}
        {"kind": "synthetic", "scenes": [[["JH", "S"]]], "frames": 5, "seed": 1}
    """
    config = dict(config)
    kind = config.pop("kind", None)
    try:
        if kind == "v4l2":
            return OpenCVCameraSource(config.pop("device", 0), **config)
        if kind == "picamera":
            return PiCameraSource(**config)
        if kind == "folder":
            return FolderSource(config.pop("path"), **config)
        if kind == "video":
            return VideoFileSource(config.pop("path"))
        if kind == "synthetic":
            return SyntheticSource(config.pop("scenes", [[]]), **config)
    except KeyError as exc:
        raise ValueError(f"camera source {kind!r} needs setting {exc}") from None
    except TypeError as exc:
        raise ValueError(f"camera source {kind!r}: bad setting ({exc})") from None
    raise ValueError(f"unknown camera source kind {kind!r}: choose one of {', '.join(KINDS)}")
