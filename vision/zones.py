"""Table zones: the printable mat with ArUco markers, and the camera calibration that maps image points to zones.

The mat is a sheet (A3 by default, A4 scaled down) with four ArUco markers near its
corners and six marked areas: each seat's play area ``N``, ``E``, ``S``, ``W``, the
up-card spot ``UP``, and ``RACK``, printed "DISCARDS (face down)": the computer's cards
are never laid face up here (the reader window reads them face down); only a practice
game may use it as the old face-up rack.

Calibration finds the markers in one camera frame, fits the homography from image
pixels to mat millimetres and stores it as JSON; from then on any image point can be
named by the zone it falls in, even when the camera sees the table at an angle.

>>> mat = MatLayout.a3()
>>> mat.zone_at((210, 240))
'S'
>>> mat.zone_at((5, 5)) is None
True
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

ZONES = ("N", "E", "S", "W", "UP", "RACK")
"""Zone names: the four seats' play areas, the up-card spot, the discards' spot (the
old face-up rack: practice games only)."""
PLAY_ZONES = ("N", "E", "S", "W")

ARUCO_DICTIONARY = "DICT_4X4_50"
"""Small markers with few bits read best at the sizes an overhead camera sees them."""

A3_MM = (420.0, 297.0)
A4_MM = (297.0, 210.0)

ZONE_LABELS = {
    "N": "NORTH plays here", "E": "EAST plays here", "S": "SOUTH plays here",
    "W": "WEST plays here", "UP": "UP-CARD", "RACK": "DISCARDS (face down)",
}
"""The printed labels. ``RACK`` keeps its old name in zone files, but the mat no longer
offers it for the computer's cards (they are read face down by the reader): it is where
discards are laid, face down; a face-up card there is refused unless a practice game
chose the face-up rack."""
ZONE_SHORT = {"RACK": "DISCARDS"}
"""Labels where the full one does not fit (the A4 mat)."""


READER_ZONE = "READER"
"""The reader window's one zone (the second camera, under the clear plate)."""


class ReaderWindow:
    """The reader camera's zone map: an image point inside ``window`` (left, top, right,
    bottom as fractions of the frame) is in ``READER``; anything else is in no zone.

    The reader camera is fixed under its plate, so no markers are needed: the window
    only keeps the edges of the frame (the guide's rim, a finger) out of the reading.

    >>> ReaderWindow([0.1, 0.1, 0.9, 0.9]).for_frame((480, 640, 3))((320, 240))
    'READER'
    >>> ReaderWindow([0.1, 0.1, 0.9, 0.9]).for_frame((480, 640, 3))((20, 240)) is None
    True
    """

    def __init__(self, window=(0.0, 0.0, 1.0, 1.0)):
        x0, y0, x1, y1 = (float(v) for v in window)
        if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
            raise ValueError(f"reader window {list(window)!r}: [left, top, right, bottom] as "
                             "fractions of the frame, left < right and top < bottom")
        self.window = (x0, y0, x1, y1)

    def mask(self, frame):
        """The frame with everything outside the window painted in the colour just outside
        it (the guide's underside): a glare spot or a reflection beside the opening then
        cannot join the card's outline. The full-frame window returns the frame itself."""
        import numpy as np
        x0, y0, x1, y1 = self.window
        if (x0, y0, x1, y1) == (0.0, 0.0, 1.0, 1.0):
            return frame
        h, w = frame.shape[:2]
        a, b = int(round(x0 * w)), int(round(y0 * h))
        c, d = int(round(x1 * w)), int(round(y1 * h))
        strips = [frame[max(0, b - 4):b, a:c:2], frame[d:d + 4, a:c:2],
                  frame[b:d:2, max(0, a - 4):a], frame[b:d:2, c:c + 4]]
        px = np.concatenate([s.reshape(-1, frame.shape[2]) for s in strips if s.size])
        colour = np.median(px, axis=0) if len(px) else np.zeros(frame.shape[2], frame.dtype)
        out = np.empty_like(frame)
        out[:] = colour.astype(frame.dtype)
        out[b:d, a:c] = frame[b:d, a:c]
        return out

    @classmethod
    def around_card(cls, corners, shape, margin: float = 0.12) -> "ReaderWindow":
        """The window for a reader whose guide holds a card at ``corners`` (image px) in
        frames of ``shape``: the card's bounding box and ``margin`` of its size round it
        (the guide's opening is a little larger than a card, and a card lies a few mm off
        or tilted)."""
        import numpy as np
        c = np.asarray(corners, np.float64).reshape(-1, 2)
        h, w = int(shape[0]), int(shape[1])
        (x0, y0), (x1, y1) = c.min(axis=0), c.max(axis=0)
        mx, my = margin * (x1 - x0), margin * (y1 - y0)
        return cls([max(0.0, (x0 - mx) / w), max(0.0, (y0 - my) / h),
                    min(1.0, (x1 + mx) / w), min(1.0, (y1 + my) / h)])

    def for_frame(self, frame_or_shape):
        """The point → zone callable for frames of this size (an image or its shape)."""
        shape = getattr(frame_or_shape, "shape", frame_or_shape)
        h, w = int(shape[0]), int(shape[1])
        x0, y0, x1, y1 = self.window

        def zone_at(point):
            x, y = float(point[0]) / w, float(point[1]) / h
            return READER_ZONE if x0 <= x <= x1 and y0 <= y <= y1 else None
        return zone_at


class CalibrationError(RuntimeError):
    """The mat could not be found in a frame, or a calibration file is unusable."""


@dataclass(frozen=True)
class MatLayout:
    """Where markers and zones lie on the mat, in millimetres from its top-left corner
    (x to the right, y downwards; North's edge is the top).

    ``markers`` maps a marker id to ``(x, y, side)`` of its top-left corner and side;
    ``zones`` maps a zone name to a rectangle ``(x0, y0, x1, y1)``.
    """

    name: str
    width_mm: float
    height_mm: float
    markers: dict = field(default_factory=dict)
    zones: dict = field(default_factory=dict)

    @classmethod
    def a3(cls) -> "MatLayout":
        """The standard mat, A3 landscape (420 × 297 mm); cards are 63 × 88 mm."""
        side, inset = 30.0, 8.0
        w, h = A3_MM
        markers = {
            0: (inset, inset, side),
            1: (w - inset - side, inset, side),
            2: (w - inset - side, h - inset - side, side),
            3: (inset, h - inset - side, side),
        }
        zones = {
            "N": (140.0, 5.0, 280.0, 100.0),
            "UP": (165.0, 102.0, 255.0, 195.0),
            "S": (140.0, 197.0, 280.0, 292.0),
            "W": (42.0, 42.0, 138.0, 255.0),
            "E": (282.0, 42.0, 378.0, 168.0),
            "RACK": (282.0, 170.0, 378.0, 255.0),
        }
        return cls("A3", w, h, markers, zones)

    @classmethod
    def a4(cls) -> "MatLayout":
        """The A3 mat scaled to A4 (297 × 210 mm), for small tables or a close camera;
        cards overhang its zones, which only matters for where their centres fall."""
        small = cls.a3().scaled(A4_MM[0] / A3_MM[0], "A4")
        # Own marker ids: a scaled copy looks the same to the camera, so only the ids
        # tell the two sizes apart (and calibration picks the layout from them).
        return MatLayout("A4", small.width_mm, small.height_mm,
                         {i + 4: m for i, m in small.markers.items()}, small.zones)

    @classmethod
    def named(cls, name: str) -> "MatLayout":
        """``MatLayout.named("A4")``; raises ValueError naming the choices."""
        table = {"A3": cls.a3, "A4": cls.a4}
        try:
            return table[str(name).upper()]()
        except KeyError:
            raise ValueError(f"unknown mat {name!r}: choose A3 or A4") from None

    def scaled(self, factor: float, name: str) -> "MatLayout":
        return MatLayout(
            name, self.width_mm * factor, self.height_mm * factor,
            {i: tuple(v * factor for v in m) for i, m in self.markers.items()},
            {z: tuple(v * factor for v in r) for z, r in self.zones.items()})

    def zone_at(self, point_mm: Sequence[float]) -> Optional[str]:
        """The zone holding a mat point (mm), or None outside every zone."""
        x, y = float(point_mm[0]), float(point_mm[1])
        for name, (x0, y0, x1, y1) in self.zones.items():
            if x0 <= x <= x1 and y0 <= y <= y1:
                return name
        return None

    def zone_centre(self, zone: str) -> tuple:
        """The centre of a zone in mm; ValueError for an unknown zone name."""
        try:
            x0, y0, x1, y1 = self.zones[zone]
        except KeyError:
            raise ValueError(f"unknown zone {zone!r}: zones are {', '.join(self.zones)}") from None
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The four corners (mm) of a marker in ArUco's order: TL, TR, BR, BL."""
        x, y, s = self.markers[marker_id]
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float64)

    def to_json(self) -> dict:
        return {"name": self.name, "width_mm": self.width_mm, "height_mm": self.height_mm,
                "markers": {str(k): list(v) for k, v in self.markers.items()},
                "zones": {k: list(v) for k, v in self.zones.items()}}

    @classmethod
    def from_json(cls, data: dict) -> "MatLayout":
        return cls(data["name"], float(data["width_mm"]), float(data["height_mm"]),
                   {int(k): tuple(map(float, v)) for k, v in data["markers"].items()},
                   {k: tuple(map(float, v)) for k, v in data["zones"].items()})


def aruco_dictionary():
    import cv2
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))


MAT_GROUNDS = ("grey", "white")
"""How the mat's card area is printed. ``grey`` (the default): the area where cards lie
(every zone and the gaps between them) is a mid-grey tint, so that a white card, or a
card whose edge is a light rim, has a strong step all round against it; the lines and
labels are darker grey on it. ``white``: the older mat, all white paper with grey lines
(cards with a light rim have only a faint edge on it)."""

GROUND_GREY = 150
"""The tint of the grey ground (0 black, 255 white): about half way between a card's
white paper and a dark card border, so both stand out from it; ~40% ink coverage, which
any printer prints."""


def card_area(layout: "MatLayout") -> tuple:
    """The rectangle (mm) that holds every zone: where the grey ground is printed."""
    rects = np.array(list(layout.zones.values()), np.float64)
    return (float(rects[:, 0].min()), float(rects[:, 1].min()),
            float(rects[:, 2].max()), float(rects[:, 3].max()))


def render_mat(layout: Optional[MatLayout] = None, px_per_mm: float = 4.0,
               labels: bool = True, ground: str = "grey"):
    """The mat as a greyscale PIL image at ``px_per_mm``: white paper, black markers,
    the card area printed with ``ground`` (see MAT_GROUNDS), zone outlines and labels.

    >>> img = render_mat(px_per_mm=1.0)
    >>> img.getpixel((210, 148)) == GROUND_GREY, img.getpixel((2, 148))
    (True, 255)
    """
    import cv2
    from PIL import Image, ImageDraw

    if ground not in MAT_GROUNDS:
        raise ValueError(f"unknown mat ground {ground!r}: choose {' or '.join(MAT_GROUNDS)}")
    layout = layout or MatLayout.a3()
    w, h = round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm)
    img = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(img)
    # White paper: outlines and labels mid grey. Grey ground: darker, so they read on it
    # and stay fainter than a card's edge against the ground.
    line_grey, label_grey = (150, 150) if ground == "white" else (95, 70)
    if ground == "grey":
        draw.rectangle([round(v * px_per_mm) for v in card_area(layout)], fill=GROUND_GREY)
    dictionary = aruco_dictionary()
    for marker_id, (x, y, side) in layout.markers.items():
        n = round(side * px_per_mm)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, n)
        img.paste(Image.fromarray(marker), (round(x * px_per_mm), round(y * px_per_mm)))
    line = max(1, round(0.6 * px_per_mm))
    font = label_font(round(5 * px_per_mm))
    for name, (x0, y0, x1, y1) in layout.zones.items():
        box = [round(v * px_per_mm) for v in (x0, y0, x1, y1)]
        draw.rectangle(box, outline=line_grey, width=line)
        if labels and font is not None:
            text = ZONE_LABELS.get(name, name)
            if layout.name == "A4":
                text = ZONE_SHORT.get(name, name)
            tw = draw.textlength(text, font=font)
            if tw > box[2] - box[0] - 2 * line:
                text = ZONE_SHORT.get(name, name)
                tw = draw.textlength(text, font=font)
            draw.text(((box[0] + box[2] - tw) / 2, box[1] + 2 * line), text, fill=label_grey, font=font)
    if labels and font is not None:
        # Bottom-left, between the marker and South's area, where no card lies.
        small = label_font(round(3 * px_per_mm * layout.width_mm / A3_MM[0]))
        k = layout.width_mm / A3_MM[0]
        draw.multiline_text((round(44 * k * px_per_mm), round(262 * k * px_per_mm)),
                            f"euchre-table mat {layout.name}\nprint at 100% (actual size)\n"
                            "keep the 4 markers flat, in view", fill=label_grey, font=small)
    return img


def label_font(size: int):
    """DejaVu Sans Bold at ``size`` px (it has the suit symbols), else Pillow's default."""
    from PIL import ImageFont
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                 "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def write_mat_pdf(path, a4: bool = False, dpi: int = 200, ground: str = "grey") -> Path:
    """Write the mat as a one-page PDF at its true physical size (A3, or A4 with ``a4``),
    its card area printed with ``ground`` (MAT_GROUNDS)."""
    layout = MatLayout.a4() if a4 else MatLayout.a3()
    img = render_mat(layout, px_per_mm=dpi / 25.4, ground=ground)
    path = Path(path)
    img.save(path, "PDF", resolution=float(dpi))
    return path


def detect_markers(image) -> dict:
    """ArUco markers in a BGR or grey image: ``{id: 4×2 corners (TL, TR, BR, BL)}``."""
    import cv2
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    # Sub-pixel corners: with only two markers in view the fit extrapolates across
    # the table, and a pixel of corner error becomes several millimetres there.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
    corners, ids, _rejected = detector.detectMarkers(gray)
    found = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            found.setdefault(int(i), []).append(np.asarray(c, np.float64).reshape(4, 2))
    return found


@dataclass
class Calibration:
    """The fitted map from image pixels to mat millimetres, with the mat's layout.

    A calibration is also a callable ``point -> zone`` (image pixels), so it can be
    handed to recognisers that accept a zone map.
    """

    homography: np.ndarray           # 3×3, image px → mat mm
    layout: MatLayout
    image_size: tuple                # (width, height) of the frames it was fitted on
    markers: list                    # ids of the markers used
    error_mm: float                  # RMS reprojection error of the marker corners

    def to_mat(self, points) -> np.ndarray:
        """Image points (N×2) to mat millimetres (N×2)."""
        import cv2
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_image(self, points_mm) -> np.ndarray:
        """Mat millimetres (N×2) to image points (N×2)."""
        import cv2
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def zone_at(self, point_px) -> Optional[str]:
        """The zone under an image point, or None."""
        return self.layout.zone_at(self.to_mat([point_px])[0])

    __call__ = zone_at

    def to_json(self) -> dict:
        return {"kind": "euchre-table zones", "version": 1,
                "homography_image_to_mat_mm": self.homography.tolist(),
                "image_size": list(self.image_size), "markers": list(self.markers),
                "error_mm": round(float(self.error_mm), 3), "mat": self.layout.to_json()}

    def save(self, path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path) -> "Calibration":
        """Read a zones file written by :meth:`save`; CalibrationError says what is wrong."""
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise CalibrationError(
                f"zones file {path} does not exist: make one with "
                "`euchre-table mat --calibrate IMAGE --out FILE`") from None
        except (OSError, ValueError) as exc:
            raise CalibrationError(f"zones file {path} is not readable JSON ({exc})") from None
        try:
            if data.get("kind") != "euchre-table zones":
                raise KeyError("kind")
            h = np.array(data["homography_image_to_mat_mm"], np.float64)
            if h.shape != (3, 3) or not np.isfinite(h).all():
                raise KeyError("homography_image_to_mat_mm")
            return cls(h, MatLayout.from_json(data["mat"]), tuple(data["image_size"]),
                       list(data.get("markers", [])), float(data.get("error_mm", 0.0)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CalibrationError(
                f"{path} is not a euchre-table zones file (bad or missing {exc}); "
                "recalibrate with `euchre-table mat --calibrate IMAGE --out FILE`") from None


def calibrate(image, layout: Optional[MatLayout] = None, min_markers: int = 2,
              max_error_mm: float = 3.0) -> Calibration:
    """Find the mat's markers in a frame and fit the image → mat homography.

    Without ``layout`` the mat (A3 or A4) is recognised by its marker ids.
    At least ``min_markers`` markers must be seen (two give eight corners, enough for
    a perspective fit; one marker alone extrapolates badly across the table).
    Raises CalibrationError saying which markers were found and what to do.
    """
    import cv2
    found = detect_markers(image)
    if layout is None:
        layouts = [MatLayout.a3(), MatLayout.a4()]
        layout = max(layouts, key=lambda m: len(set(found) & set(m.markers)))
    unknown = sorted(set(found) - set(layout.markers))
    usable = {i: c for i, c in found.items() if i in layout.markers and len(c) == 1}
    doubled = sorted(i for i, c in found.items() if len(c) > 1)
    if len(usable) < min_markers:
        seen = ", ".join(map(str, sorted(found))) or "none"
        raise CalibrationError(
            f"found {len(usable)} usable mat markers (ids seen: {seen}; the {layout.name} mat "
            f"has ids {sorted(layout.markers)}), need at least {min_markers}: make sure the whole "
            "mat is in view, flat, well lit, and its markers are not covered or at the frame's edge"
            + (f"; marker ids {doubled} appear twice" if doubled else "")
            + (f"; ids {unknown} are not on the {layout.name} mat (is the mat the other size?)"
               if unknown else ""))
    img_pts = np.concatenate([usable[i][0] for i in sorted(usable)])
    mat_pts = np.concatenate([layout.marker_corners(i) for i in sorted(usable)])
    h, _mask = cv2.findHomography(img_pts, mat_pts, 0)
    if h is None:
        raise CalibrationError("the markers' corners do not fit a plane: is the mat folded?")
    proj = cv2.perspectiveTransform(img_pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((proj - mat_pts) ** 2, axis=1))))
    if err > max_error_mm:
        raise CalibrationError(
            f"the markers do not agree with the {layout.name} mat (error {err:.1f} mm): "
            "is the mat flat, printed at 100%, and the right size (--a4)?")
    height, width = image.shape[:2]
    return Calibration(h, layout, (width, height), sorted(usable), err)
