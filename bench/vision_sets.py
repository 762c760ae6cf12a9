"""The fixed split of plain-deck data into tuning and validation: card designs, table surfaces and camera profiles.

Whoever tunes the plain-deck reader uses only the ``TUNING`` parts; the benchmark
reports both. The split is by whole designs, whole surfaces (kinds, colours, wood
species, mat size) and whole camera profiles (ranges of lens, light and sensor
faults), so that a validation figure is measured on things the method never saw.

>>> TUNING_DESIGNS[:2], VALIDATION_DESIGNS[:2]
(('standard', 'oxygen'), ('gm-paris', 'jolly-royal'))
>>> sorted(SURFACES["tuning"])
['cloth', 'felt', 'mat', 'white-mat', 'wood']
>>> set(TUNING_DESIGNS) & set(VALIDATION_DESIGNS)
set()

A *session* is one table under one camera and one lamp, as at a real table: a design,
a surface (with its own grain), a camera (height, tilt, lens) and its light and
sensor, drawn from a split's ranges. Frames of the session differ in the cards lying
there, hands, glare and the sensor's noise:

>>> import numpy as np
>>> s = draw_session(np.random.default_rng(1), "tuning", size=(640, 480))
>>> s.design in TUNING_DESIGNS and s.surface in surfaces("tuning")
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

# ---------------------------------------------------------------- card designs
TUNING_DESIGNS = ("standard", "oxygen", "oxygen-air", "oxygen-white", "penguins", "dondorf")
"""KDE designs (kdegames-card-data-kf5) the reader may be tuned on."""
VALIDATION_DESIGNS = ("gm-paris", "jolly-royal", "nicu-ornamental", "nicu-white")
"""KDE designs kept for validation: never look at the reader's results on them while tuning."""
STUDIED_DESIGNS = ("ancient-egyptians", "knoll", "symbola", "noto-symbols", "touati-standard",
                   "tigullio-international")
"""Designs once kept for validation whose failures were then studied, to change the reader:
tuning data since (ancient-egyptians: the twin duel of its red kings, whose pictures lie
apart; knoll: a J♥ named Q♥, its courts one picture but for their index; the font designs
symbola and noto-symbols: cards near the frame's corners squeezed by the validation
camera's wide lens; touati-standard: a 10♥ named 10♦ by a deck calibrated from photos, its
10♥ cut from a wrong outline; tigullio-international: cards refused on the A4 mat, its A♠
face cut by a live pass with a wedge of the mat along one side, widest at a corner, which
the rim's check did not see: now asked for again, ``calibration.askew_cuts``). Design group
``studied``."""
TUNING_FOUR_COLOUR = tuple(f"{d}+4color" for d in TUNING_DESIGNS)
"""The tuning designs recoloured as four-colour decks print them (``vision.art.four_colour``:
diamonds blue, clubs green): tuning data for decks whose suits are not red and black."""
GENERATED_DESIGNS = tuple(f"gen-{k}" for k in range(1, 25))
"""Designs drawn from seeds (vision.generated_decks): no edge line, coloured frames,
patterned bands, cream paper, pictures to the edge. Made here, so tuning data only."""
NPM_DESIGNS = ("kennard-2color", "kennard-2color-big", "kennard-4color",
               "kennard-4color-big", "bellot")
"""Designs from npm packages (vision.art.NPM_DESIGNS): all validation, nobody tunes on them."""
PYPI_DESIGNS = ("kenney", "knoll-figures")
"""Designs of PNG faces from PyPI wheels (vision.art.WHEEL_DESIGNS): validation, nobody
tunes on them."""

# ---------------------------------------------------------------- surfaces
# A surface is a string the renderer understands (vision.synth, ``surface=``):
#   "cloth:<colour>"              woven cloth
#   "felt:<colour>"               card-table felt
#   "wood:<species>:<finish>"     planks; finish matte | satin | gloss (varnish reflections)
#   "pattern:<kind>"              checks | stripes | tartan | print | dots
#   "carpet:<kind>", "tiles:<kind>"
#   "mat:<A3|A4>:<surface>"       the project's printed paper mat (grey card area) on <surface>
#   "mat:<A3|A4>:white:<surface>" the older all-white printed mat on <surface>
# Colours are names the renderer knows; each frame varies the shade a little.
SURFACES = {
    "tuning": {
        "cloth": ("cloth:green", "cloth:blue", "cloth:red", "cloth:grey"),
        "felt": ("felt:green", "felt:navy"),
        "wood": ("wood:oak:matte", "wood:oak:satin", "wood:oak:gloss"),
        "mat": ("mat:A3:wood:oak:satin", "mat:A3:cloth:green", "mat:A3:felt:navy"),
        # Last, so that the groups before it draw the same sessions as without it.
        "white-mat": ("mat:A3:white:wood:oak:satin", "mat:A3:white:cloth:green",
                      "mat:A3:white:felt:navy"),
    },
    "validation": {
        "cloth": ("cloth:teal", "cloth:purple", "cloth:dark", "cloth:beige", "cloth:white",
                  "cloth:yellow"),
        "felt": ("felt:burgundy", "felt:black", "felt:tan", "felt:sky"),
        "wood": ("wood:walnut:satin", "wood:pine:matte", "wood:cherry:gloss",
                 "wood:maple:satin", "wood:mahogany:gloss", "wood:greywash:matte"),
        "patterned": ("pattern:checks", "pattern:stripes", "pattern:tartan", "pattern:print",
                      "pattern:dots"),
        "photo": ("carpet:loop", "carpet:shag", "tiles:ceramic", "tiles:marble"),
        "mat": ("mat:A4:wood:walnut:satin", "mat:A4:wood:pine:matte", "mat:A4:cloth:teal",
                "mat:A4:carpet:loop"),
        "white-mat": ("mat:A4:white:wood:walnut:satin", "mat:A4:white:wood:pine:matte",
                      "mat:A4:white:cloth:teal", "mat:A4:white:carpet:loop"),
    },
}
"""Whole backgrounds, by split and group."""

PHOTO_SURFACES = ("wood:walnut:satin", "wood:pine:matte", "wood:cherry:gloss",
                  "wood:maple:satin", "carpet:loop", "carpet:shag", "tiles:ceramic",
                  "tiles:marble")
"""Surfaces of the photo mode (webcam photos of a home table): validation surfaces only."""


# ---------------------------------------------------------------- camera profiles
@dataclass(frozen=True)
class CameraProfile:
    """Ranges a frame's camera is drawn from (uniformly, per frame or per session).

    ``card_px``: the card's long side in image pixels for a frame width (the camera's
    height follows from it); ``tilt_deg``: the optical axis off vertical; ``k1``: radial
    lens distortion (negative: barrel); ``vignette``: light lost at the frame's corners
    (0-1); ``wb_error``: the camera's white-balance error per channel (fraction);
    ``lamps``: lamp colour temperatures (K) the light is drawn from; ``exposure_ev``;
    ``washout``: lifted blacks and lost saturation of cheap webcams (0-1);
    ``read_noise`` (grey levels) and ``shot_noise`` (grey levels at full white, in
    linear light); ``blur`` (Gaussian sigma, px), ``defocus`` (disc radius, px),
    ``motion_blur`` (px); ``jpeg`` (quality); ``sharpen`` (a webcam's unsharp mask);
    ``light`` (uneven light); ``glare`` (strength range, with probability
    ``glare_share``); ``wb_adapt`` (how much of the lamp's colour the white balance
    undoes); ``hfov_deg``; ``awb_scene`` (how far auto white balance takes the table's
    colour for the lamp's); ``auto_exposure`` (the grey the camera meters the scene to).
    """

    name: str
    card_px: dict = field(default_factory=dict)
    tilt_deg: tuple = (0.0, 0.0)
    roll_deg: tuple = (-180.0, 180.0)
    k1: tuple = (0.0, 0.0)
    vignette: tuple = (0.0, 0.0)
    wb_error: tuple = (0.0, 0.0)
    lamps: tuple = (5000,)
    exposure_ev: tuple = (0.0, 0.0)
    washout: tuple = (0.0, 0.0)
    read_noise: tuple = (0.0, 0.0)
    shot_noise: tuple = (0.0, 0.0)
    blur: tuple = (0.0, 0.0)
    defocus: tuple = (0.0, 0.0)
    motion_blur: tuple = (0.0, 0.0)
    jpeg: tuple = (95, 95)
    sharpen: tuple = (0.0, 0.0)
    light: tuple = (0.0, 0.0)
    glare: tuple = (0.0, 0.0)
    glare_share: float = 0.0
    wb_adapt: tuple = (1.0, 1.0)
    hfov_deg: tuple = (60.0, 72.0)
    awb_scene: tuple = (0.0, 0.0)
    auto_exposure: tuple = (0.18, 0.18)


CAMERAS = {
    "tuning": CameraProfile(
        "tuning",
        card_px={640: (110, 150), 960: (160, 220), 1280: (170, 230)},
        tilt_deg=(0.0, 8.0), k1=(-0.06, 0.0), vignette=(0.0, 0.35), wb_error=(0.0, 0.08),
        lamps=(3200, 4000, 5000, 6500), exposure_ev=(-0.5, 0.4), washout=(0.0, 0.3),
        read_noise=(0.5, 2.5), shot_noise=(2.0, 6.0), blur=(0.0, 1.0), defocus=(0.0, 0.0),
        motion_blur=(0.0, 2.0), jpeg=(70, 95), sharpen=(0.0, 0.5), light=(0.0, 0.4),
        glare=(0.1, 0.35), glare_share=0.2, wb_adapt=(0.8, 1.0), hfov_deg=(60.0, 70.0),
        awb_scene=(0.0, 0.3), auto_exposure=(0.15, 0.22)),
    "validation": CameraProfile(
        "validation",
        card_px={640: (100, 160), 960: (150, 260), 1280: (160, 260)},
        tilt_deg=(2.0, 14.0), k1=(-0.14, -0.03), vignette=(0.2, 0.6), wb_error=(0.05, 0.18),
        lamps=(2700, 3000, 4200, 5500, 7500), exposure_ev=(-0.9, 0.7), washout=(0.2, 0.6),
        read_noise=(1.5, 4.0), shot_noise=(4.0, 10.0), blur=(0.3, 1.4), defocus=(0.0, 1.5),
        motion_blur=(0.0, 3.0), jpeg=(55, 90), sharpen=(0.0, 1.0), light=(0.1, 0.5),
        glare=(0.15, 0.45), glare_share=0.25, wb_adapt=(0.55, 1.0), hfov_deg=(55.0, 80.0),
        awb_scene=(0.1, 0.6), auto_exposure=(0.11, 0.28)),
    # The photo mode: a cheap webcam at 960x540 above a home table, colours washed out,
    # white balance far from neutral. A validation profile.
    "webcam": CameraProfile(
        "webcam",
        card_px={960: (200, 260)},
        tilt_deg=(0.0, 10.0), k1=(-0.12, -0.04), vignette=(0.25, 0.55), wb_error=(0.08, 0.2),
        lamps=(2700, 3000, 4000, 6500), exposure_ev=(-0.6, 0.5), washout=(0.35, 0.7),
        read_noise=(1.5, 3.5), shot_noise=(4.0, 9.0), blur=(0.5, 1.3), defocus=(0.0, 1.0),
        motion_blur=(0.0, 1.5), jpeg=(60, 85), sharpen=(0.3, 1.0), light=(0.1, 0.4),
        glare=(0.0, 0.0), glare_share=0.0, wb_adapt=(0.5, 0.9), hfov_deg=(60.0, 78.0),
        awb_scene=(0.2, 0.6), auto_exposure=(0.12, 0.25)),
    # The photo mode's other camera: a phone held over the table, at a slant, sharp and
    # well exposed, the cards anywhere from small to large. A validation profile.
    "phone": CameraProfile(
        "phone",
        card_px={1280: (90, 290)},
        tilt_deg=(5.0, 30.0), k1=(-0.03, 0.0), vignette=(0.0, 0.25), wb_error=(0.0, 0.08),
        lamps=(2700, 3000, 4000, 5500, 6500), exposure_ev=(-0.4, 0.4), washout=(0.0, 0.15),
        read_noise=(1.0, 3.0), shot_noise=(3.0, 8.0), blur=(0.0, 0.8), defocus=(0.0, 1.0),
        motion_blur=(0.0, 3.0), jpeg=(80, 95), sharpen=(0.3, 1.2), light=(0.0, 0.4),
        glare=(0.0, 0.0), glare_share=0.0, wb_adapt=(0.7, 1.0), hfov_deg=(63.0, 75.0),
        awb_scene=(0.1, 0.5), auto_exposure=(0.14, 0.22)),
    # A phone held over the table at a slant, for tuning the photo mode's slanted views
    # (bench.plain_tuning.photo_tuning --camera tuning-slant): 1280x960, sharp, the
    # tuning lamps, small to large cards. A tuning profile.
    "tuning-slant": CameraProfile(
        "tuning-slant",
        card_px={1280: (100, 270)},
        tilt_deg=(8.0, 26.0), k1=(-0.04, 0.0), vignette=(0.0, 0.3), wb_error=(0.0, 0.06),
        lamps=(3200, 4000, 5000, 6500), exposure_ev=(-0.3, 0.3), washout=(0.0, 0.1),
        read_noise=(0.5, 2.5), shot_noise=(2.0, 7.0), blur=(0.0, 0.6), defocus=(0.0, 0.8),
        motion_blur=(0.0, 2.0), jpeg=(80, 95), sharpen=(0.2, 1.0), light=(0.0, 0.35),
        glare=(0.0, 0.0), glare_share=0.0, wb_adapt=(0.75, 1.0), hfov_deg=(62.0, 74.0),
        awb_scene=(0.0, 0.3), auto_exposure=(0.15, 0.21)),
    # A poorer camera above the table, for tuning: the tuning camera's conditions are
    # milder than most home tables', so that the reader reads nearly every clean card
    # there and the tuning data shows few misses to learn from. Its own ranges (not the
    # validation camera's): more blur, washout, vignetting, white-balance error and noise,
    # lower JPEG quality, warmer and colder lamps, cards 100-150 px at 640x480.
    "tuning-hard": CameraProfile(
        "tuning-hard",
        card_px={640: (100, 150), 960: (150, 240), 1280: (160, 240)},
        tilt_deg=(1.0, 12.0), k1=(-0.12, -0.02), vignette=(0.15, 0.55), wb_error=(0.04, 0.16),
        lamps=(2900, 3500, 4600, 6000, 7000), exposure_ev=(-0.8, 0.6), washout=(0.15, 0.55),
        read_noise=(1.2, 3.8), shot_noise=(3.5, 9.5), blur=(0.25, 1.3), defocus=(0.0, 1.3),
        motion_blur=(0.0, 2.8), jpeg=(58, 88), sharpen=(0.0, 0.9), light=(0.1, 0.45),
        glare=(0.12, 0.4), glare_share=0.22, wb_adapt=(0.6, 1.0), hfov_deg=(57.0, 76.0),
        awb_scene=(0.1, 0.5), auto_exposure=(0.12, 0.26)),
}
# The tuning phone held higher, so that the cards are small (80-115 px at 1280x960): for
# tuning calibration and reading from small, slanted cards. A tuning profile.
CAMERAS["tuning-slant-small"] = replace(CAMERAS["tuning-slant"], name="tuning-slant-small",
                                        card_px={1280: (80, 115)})
# The tuning phone held low, so that the cards are large (240-300 px at 1280x960): for
# tuning finding and calibrating from cards that fill much of a photo. A tuning profile.
CAMERAS["tuning-slant-large"] = replace(CAMERAS["tuning-slant"], name="tuning-slant-large",
                                        card_px={1280: (240, 300)})
# A poorer phone at a slant, for tuning the photo mode: as tuning-hard is to the tuning
# camera, its own wider ranges: steeper slants, cards from 85 to 280 px, more motion blur,
# defocus and sharpening, warmer and colder lamps. A tuning profile.
CAMERAS["tuning-slant-hard"] = CameraProfile(
    "tuning-slant-hard",
    card_px={1280: (85, 280)},
    tilt_deg=(6.0, 34.0), k1=(-0.05, 0.0), vignette=(0.0, 0.35), wb_error=(0.0, 0.1),
    lamps=(2900, 3500, 4600, 6000, 7000), exposure_ev=(-0.5, 0.5), washout=(0.0, 0.2),
    read_noise=(1.0, 3.5), shot_noise=(3.0, 9.0), blur=(0.0, 1.0), defocus=(0.0, 1.2),
    motion_blur=(0.0, 3.5), jpeg=(75, 95), sharpen=(0.2, 1.3), light=(0.0, 0.45),
    glare=(0.0, 0.0), glare_share=0.0, wb_adapt=(0.65, 1.0), hfov_deg=(60.0, 77.0),
    awb_scene=(0.05, 0.55), auto_exposure=(0.13, 0.23))
"""Camera profiles by name: ``tuning``, ``validation``, and for the photo mode ``webcam``
(960×540 above the table) and ``phone`` (1280×960, held at a slant); ``tuning-slant``
is a tuning profile of a phone held at a slant (1280×960), ``tuning-slant-small`` the
same phone held higher (small cards), ``tuning-slant-large`` held low (large cards), ``tuning-slant-hard`` a poorer
phone at steeper slants, ``tuning-hard`` a poorer tuning camera above the
table."""

SPLITS = ("tuning", "validation")


def designs(split: str, npm: bool = False) -> tuple:
    """The KDE designs of a split: ``designs("tuning") == TUNING_DESIGNS``; with ``npm``
    the validation split also has the npm designs."""
    if _split(split) == "tuning":
        return TUNING_DESIGNS
    return VALIDATION_DESIGNS + (NPM_DESIGNS if npm else ())


def surfaces(split: str, group: str = None) -> tuple:
    """The surfaces of a split, of one group (cloth, felt, wood, mat, ...) or of all."""
    table = SURFACES[_split(split)]
    if group is None:
        return tuple(s for g in table.values() for s in g)
    if group not in table:
        raise ValueError(f"no surface group {group!r} in the {split} split: "
                         f"choose {', '.join(table)}")
    return table[group]


def _split(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: choose tuning or validation")
    return split


# ---------------------------------------------------------------- sessions and frames
FRAME_KINDS = ("play", "alone", "hand", "overlap", "edge", "glare")
"""What a frame shows: ``play`` four cards apart (the trick), ``alone`` one card (as
in calibration), ``hand`` the trick with a hand and arm over or beside a card,
``overlap`` cards lying partly on each other, ``edge`` a card cut by the frame's
edge beside whole ones, ``glare`` the trick under a lamp's reflection."""
HARD_KINDS = ("hand", "overlap", "glare")
"""Kinds reported apart: refusals are fine there, a wrong card is not."""


@dataclass
class Session:
    """One table under one camera: the design, the surface and its grain, the camera
    (:meth:`vision.synth_camera.PinholeCamera.above` arguments), the lamp and sensor,
    and the frame size. :meth:`conditions` gives :func:`vision.synth.compose_frame`'s
    keyword arguments for a frame of it."""

    split: str
    design: str
    surface: str
    surface_seed: int
    size: tuple
    camera: dict
    light: dict
    profile: CameraProfile
    markers: bool = True

    @property
    def mat(self) -> Optional[str]:
        """"A3" or "A4" when the printed mat lies on the table, else None."""
        return self.surface.split(":")[1] if self.surface.startswith("mat:") else None

    @property
    def group(self) -> str:
        for g, names in SURFACES[self.split].items():
            if self.surface in names:
                return g
        return "other"

    def conditions(self, **extra) -> dict:
        c = {"deck": self.design, "surface": self.surface, "surface_seed": self.surface_seed,
             "camera": dict(self.camera), "markers": self.markers and self.mat is None, **self.light}
        c.update(extra)
        return c

    def card_px(self) -> float:
        """The card's long side in pixels at the frame's centre."""
        return 88.0 * self.camera["px_per_mm"]


def _u(rng, lo_hi):
    lo, hi = lo_hi
    return float(lo if lo == hi else rng.uniform(lo, hi))


def draw_session(rng: np.random.Generator, split: str, group: str = None, size=(640, 480),
                 design: str = None, surface: str = None, profile: str = None) -> Session:
    """A random session of a split: its design (unless given), a surface of ``group``
    (or any), a camera drawn from the split's profile (``profile`` overrides: e.g.
    "webcam")."""
    split = _split(split)
    design = design or str(rng.choice(designs(split)))
    surface = surface or str(rng.choice(surfaces(split, group)))
    prof = CAMERAS[profile or split]
    w, h = int(size[0]), int(size[1])
    lo_hi = prof.card_px.get(w) or prof.card_px[min(prof.card_px, key=lambda k: abs(k - w))]
    ppm = _u(rng, lo_hi) / 88.0
    look_at = (210.0, 148.5)
    if surface.startswith("mat:"):
        from vision.zones import MatLayout
        layout = MatLayout.named(surface.split(":")[1])
        # The whole mat in view, as set-up asks: no closer than the mat allows.
        ppm = min(ppm, 0.86 * min(w / layout.width_mm, h / layout.height_mm))
        look_at = (layout.width_mm / 2 + rng.uniform(-5, 5), layout.height_mm / 2 + rng.uniform(-5, 5))
    camera = {"px_per_mm": ppm, "look_at": look_at, "tilt_deg": _u(rng, prof.tilt_deg),
              "tilt_towards_deg": float(rng.uniform(0, 360)), "roll_deg": _u(rng, prof.roll_deg),
              "k1": _u(rng, prof.k1), "hfov_deg": _u(rng, prof.hfov_deg)}
    if surface.startswith("mat:"):
        camera["roll_deg"] = float(rng.uniform(-10, 10))   # the mat is laid square to the camera
        camera["tilt_deg"] = min(camera["tilt_deg"], 6.0)
    err = rng.uniform(-1, 1, 3) * _u(rng, prof.wb_error)
    light = {"lamp": float(rng.choice(prof.lamps)), "wb_adapt": _u(rng, prof.wb_adapt),
             "wb_error": tuple(float(v) for v in err), "exposure": _u(rng, prof.exposure_ev),
             "vignette": _u(rng, prof.vignette), "read_noise": _u(rng, prof.read_noise),
             "shot_noise": _u(rng, prof.shot_noise), "blur": _u(rng, prof.blur),
             "defocus": _u(rng, prof.defocus), "washout": _u(rng, prof.washout),
             "sharpen": _u(rng, prof.sharpen), "jpeg": int(round(_u(rng, prof.jpeg))),
             "light": _u(rng, prof.light), "light_dir": float(rng.uniform(0, 360)),
             "awb_scene": _u(rng, prof.awb_scene), "auto_exposure": _u(rng, prof.auto_exposure)}
    # Marker stickers on a bare table (for zones without the mat): on half the tables,
    # never in the webcam photos of a home table.
    markers = bool(rng.random() < 0.5) and not (prof.name in ("webcam", "phone") or prof.name.startswith("tuning-slant"))
    return Session(split, design, surface, int(rng.integers(1 << 30)), (w, h), camera, light, prof,
                   markers)


def _view_point(session: Session, fx: float, fy: float) -> tuple:
    """The table point (mm) seen at frame fraction (fx, fy), ignoring the lens."""
    from vision.synth_camera import PinholeCamera
    import cv2
    cam = PinholeCamera.above(session.size, **session.camera)
    inv = np.linalg.inv(cam.homography(0))
    w, h = session.size
    p = cv2.perspectiveTransform(np.array([[[fx * w, fy * h]]], np.float64), inv).reshape(2)
    return float(p[0]), float(p[1])


def frame_placements(session: Session, rng: np.random.Generator, kind: str = "play",
                     cards=None) -> tuple:
    """``(placements, extra conditions)`` for one frame of ``kind`` (see FRAME_KINDS).
    ``cards`` (optional) are the cards to lay, else drawn at random without repeats."""
    from engine.cards import DECK
    if kind not in FRAME_KINDS:
        raise ValueError(f"unknown frame kind {kind!r}: choose {', '.join(FRAME_KINDS)}")
    n = {"alone": 1, "overlap": int(rng.integers(2, 5)), "edge": 3}.get(kind, 4)
    if cards is None:
        cards = [DECK[int(i)] for i in rng.choice(len(DECK), size=n, replace=False)]
    extra = {}
    prof = session.profile
    if prof.motion_blur[1] and rng.random() < 0.3:
        extra["motion_blur"] = _u(rng, prof.motion_blur)
    if kind == "alone":
        at = _view_point(session, 0.5 + rng.uniform(-0.08, 0.08), 0.5 + rng.uniform(-0.08, 0.08))
        rot = float(rng.uniform(-12, 12) + (90 if rng.random() < 0.2 else 0))
        return [{"card": cards[0], "at": at, "rotation": rot, "sticker": False}], extra
    if kind == "overlap":
        # A trick being gathered: each card partly on the one before.
        x, y = _view_point(session, 0.5 + rng.uniform(-0.1, 0.1), 0.5 + rng.uniform(-0.1, 0.1))
        out = []
        for c in cards:
            out.append({"card": c, "at": (x, y), "rotation": float(rng.uniform(0, 360)), "sticker": False})
            a = rng.uniform(0, 2 * np.pi)
            step = rng.uniform(18, 45)
            x, y = x + step * np.cos(a), y + step * np.sin(a)
        return out, extra
    if session.mat is not None and kind != "edge":
        from vision.zones import MatLayout
        layout = MatLayout.named(session.mat)
        spots = [layout.zone_centre(z) for z in ("N", "E", "S", "W")]
        places = [(x + rng.uniform(-8, 8), y + rng.uniform(-8, 8)) for x, y in spots]
        out = [{"card": c, "at": at, "rotation": float(rng.uniform(0, 360)), "sticker": False}
               for c, at in zip(cards, places)]
    else:
        first = None
        if kind == "edge":
            # The first card lies across the frame's edge (a third to two thirds out).
            side = int(rng.integers(4))
            f = rng.uniform(0.25, 0.75)
            w, h = session.size
            out_by = rng.uniform(-0.15, 0.15) * session.card_px() / 2
            fx, fy = [(out_by / w, f), (1 - out_by / w, f), (f, out_by / h), (f, 1 - out_by / h)][side]
            first = {"card": cards[0], "at": _view_point(session, fx, fy),
                     "rotation": float(rng.uniform(0, 360)), "sticker": False}
        out = _apart(session, rng, cards, first)
    if kind == "hand":
        extra["hand"] = int(rng.integers(len(out)))
        extra["hand_mode"] = "beside" if rng.random() < 0.4 else "over"
        extra["hand_cover"] = float(rng.uniform(0.15, 0.5))
    if kind == "glare":
        extra["glare"] = _u(rng, prof.glare) if prof.glare[1] else 0.3
    return out, extra


def _apart(session: Session, rng, cards, first=None) -> list:
    """Cards lying apart, wholly in view, at any rotation (as many of ``cards`` as fit):
    each placed at random where it overlaps neither the others nor the frame's edge."""
    import cv2
    from vision.synth_camera import PinholeCamera
    cam = PinholeCamera.above(session.size, **session.camera)
    hmg = cam.homography(0)
    w, h = session.size
    half = np.array([[-31.5, -44.0], [31.5, -44.0], [31.5, 44.0], [-31.5, 44.0]])

    def rect(at, rot):
        a = np.deg2rad(rot)
        r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        pts = (half * 1.06) @ r.T + at           # a little room between cards
        img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hmg).reshape(-1, 2)
        return img, cv2.minAreaRect(img.astype(np.float32))

    out, rects = [], []
    if first is not None:
        out.append(first)
        rects.append(rect(np.asarray(first["at"]), first["rotation"])[1])
    margin = 4.0                 # (a barrel lens only pulls cards further in)
    # The table's angle in the image: big cards fit best upright in the frame.
    centre = np.array(_view_point(session, 0.5, 0.5))
    ax = cv2.perspectiveTransform(np.array([[centre, centre + [10.0, 0.0]]]), hmg).reshape(2, 2)
    upright = -float(np.degrees(np.arctan2(ax[1, 1] - ax[0, 1], ax[1, 0] - ax[0, 0])))
    def fits(img, rr, rects):
        if img[:, 0].min() < margin or img[:, 1].min() < margin or \
                img[:, 0].max() > w - 1 - margin or img[:, 1].max() > h - 1 - margin:
            return False
        return not any(cv2.rotatedRectangleIntersection(rr, other)[0] != cv2.INTERSECT_NONE
                       for other in rects)

    fixed = len(out)
    for c in cards[fixed:]:
        for _attempt in range(60):
            rot = float(rng.uniform(0, 360))
            at = np.array(_view_point(session, rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95)))
            img, rr = rect(at, rot)
            if fits(img, rr, rects):
                out.append({"card": c, "at": (float(at[0]), float(at[1])), "rotation": rot, "sticker": False})
                rects.append(rr)
                break
    if len(out) < len(cards) and first is None:
        # Big cards in a small frame: lay them side by side, nearly upright.
        n = len(cards)
        for _attempt in range(30):
            row, row_rects = [], []
            for k, c in enumerate(cards):
                rot = upright + float(rng.choice([0, 180]) + rng.uniform(-8, 8))
                fx = (k + 0.5) / n + rng.uniform(-0.02, 0.02)
                at = np.array(_view_point(session, fx, 0.5 + rng.uniform(-0.08, 0.08)))
                img, rr = rect(at, rot)
                if not fits(img, rr, row_rects):
                    break
                row.append({"card": c, "at": (float(at[0]), float(at[1])), "rotation": rot, "sticker": False})
                row_rects.append(rr)
            if len(row) == n:
                return row
    return out


def compose(session: Session, placements, rng, **extra):
    """``(image, truth)``: a frame of the session (vision.synth.compose_frame)."""
    from vision.synth import compose_frame
    return compose_frame(placements, size=session.size, rng=rng, **session.conditions(**extra))


def card_asked(message: str) -> Optional[str]:
    """The code of the card a calibration request names, or None.

    >>> card_asked("show the nine of spades (9S) alone, face up"), card_asked("keep the table clear")
    ('9S', None)
    """
    m = re.search(r"\((10|[9JQKA])([SHDC])\)", message)
    return m.group(1) + m.group(2) if m else None


class LiveCalibration:
    """Frames of a live calibration pass through the session's camera: each card lies
    alone on the table when the reader asks for it (``announce``), after a few frames
    of the empty table; a still card gives frames that differ only by the sensor's
    noise. The frames end (the camera "stops") when the reader has not asked for the
    next card after ``patience`` frames of this one.

    >>> cal = LiveCalibration(session, rng)                                # doctest: +SKIP
    >>> deck, faces = calibrate_live(cal, announce=cal.announce)           # doctest: +SKIP
    """

    def __init__(self, session: Session, rng, cards=None, patience: int = 40, gap: int = 3):
        from engine.cards import DECK
        self.session, self.rng = session, rng
        self.cards = list(cards or DECK)
        self.patience, self.gap = patience, gap
        self.asked = 0
        self.messages = []
        self.frames = 0
        self.shown = []            # (card, truth) of each card laid

    def announce(self, message: str) -> None:
        """The reader asks for the next card (its message is kept)."""
        self.messages.append(message)
        self.asked += 1

    def _wanted(self, now: int):
        """The card the reader asked for in its ``now``-th request: the one its message
        names ("... (9S) ..."), else the next of ``cards``."""
        from engine.cards import Card
        named = card_asked(self.messages[now - 1]) if now <= len(self.messages) else None
        if named:
            return Card(named)
        return self.cards[now - 1] if now <= len(self.cards) else None

    def __iter__(self):
        from vision.synth import compose_scene
        empty = compose_scene([], size=self.session.size, rng=self.rng, **self.session.conditions())
        waited = 0
        served = 0
        while True:
            if self.asked == served:
                # Nothing new asked for: the empty table, until the reader asks (the first
                # card) or stops asking (the camera stops after ``patience`` frames).
                for _ in range(self.gap):
                    self.frames += 1
                    waited += 1
                    yield empty.shoot(self.rng)[0]
                if self.asked == served and waited < (self.patience if served == 0 else self.patience // 4):
                    continue
                if self.asked > served:
                    continue           # asked for a card during these frames
                return
            waited = 0
            now = served = self.asked
            card = self._wanted(now)
            if card is None:
                return
            for _ in range(self.gap):
                self.frames += 1
                yield empty.shoot(self.rng)[0]
            places, _extra = frame_placements(self.session, self.rng, "alone", cards=[card])
            scene = compose_scene(places, size=self.session.size, rng=self.rng,
                                  **self.session.conditions())
            self.shown.append((card, scene.truth))
            for _ in range(self.patience):
                if self.asked != now:
                    break
                self.frames += 1
                yield scene.shoot(self.rng)[0]
            if self.asked == now:
                return                 # the reader never took this card: the camera stops
