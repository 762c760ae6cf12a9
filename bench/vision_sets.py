"""The fixed split of plain-deck data into tuning and validation: card designs, table surfaces and camera profiles.

Whoever tunes the plain-deck reader uses only the ``TUNING`` parts; the benchmark
reports both. The split is by whole designs, whole surfaces (kinds, colours, wood
species, mat size) and whole camera profiles (ranges of lens, light and sensor
faults), so that a validation figure is measured on things the method never saw.

>>> TUNING_DESIGNS[:2], VALIDATION_DESIGNS[:2]
(('standard', 'oxygen'), ('ancient-egyptians', 'gm-paris'))
>>> sorted(SURFACES["tuning"])
['cloth', 'felt', 'mat', 'wood']
>>> set(TUNING_DESIGNS) & set(VALIDATION_DESIGNS)
set()
"""
from __future__ import annotations

from dataclasses import dataclass, field

# ---------------------------------------------------------------- card designs
TUNING_DESIGNS = ("standard", "oxygen", "oxygen-air", "oxygen-white", "penguins", "dondorf")
"""KDE designs (kdegames-card-data-kf5) the reader may be tuned on."""
VALIDATION_DESIGNS = ("ancient-egyptians", "gm-paris", "jolly-royal", "nicu-ornamental",
                      "nicu-white", "tigullio-international")
"""KDE designs kept for validation: never look at the reader's results on them while tuning."""
# Designs from other art sources (npm, Debian) are all validation designs: see
# vision.art_sources; nobody tunes on them.

# ---------------------------------------------------------------- surfaces
# A surface is a string the renderer understands (vision.synth, ``surface=``):
#   "cloth:<colour>"              woven cloth
#   "felt:<colour>"               card-table felt
#   "wood:<species>:<finish>"     planks; finish matte | satin | gloss (varnish reflections)
#   "pattern:<kind>"              checks | stripes | tartan | print | dots
#   "carpet:<kind>", "tiles:<kind>"
#   "mat:<A3|A4>:<surface>"       the project's printed paper mat lying on <surface>
# Colours are names the renderer knows; each frame varies the shade a little.
SURFACES = {
    "tuning": {
        "cloth": ("cloth:green", "cloth:blue", "cloth:red", "cloth:grey"),
        "felt": ("felt:green", "felt:navy"),
        "wood": ("wood:oak:matte", "wood:oak:satin", "wood:oak:gloss"),
        "mat": ("mat:A3:wood:oak:satin", "mat:A3:cloth:green", "mat:A3:felt:navy"),
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
    ``glare_share``).
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


CAMERAS = {
    "tuning": CameraProfile(
        "tuning",
        card_px={640: (110, 150), 960: (160, 220), 1280: (170, 230)},
        tilt_deg=(0.0, 8.0), k1=(-0.06, 0.0), vignette=(0.0, 0.35), wb_error=(0.0, 0.08),
        lamps=(3200, 4000, 5000, 6500), exposure_ev=(-0.5, 0.4), washout=(0.0, 0.3),
        read_noise=(0.5, 2.5), shot_noise=(2.0, 6.0), blur=(0.0, 1.0), defocus=(0.0, 0.0),
        motion_blur=(0.0, 2.0), jpeg=(70, 95), sharpen=(0.0, 0.5), light=(0.0, 0.4),
        glare=(0.1, 0.35), glare_share=0.2),
    "validation": CameraProfile(
        "validation",
        card_px={640: (100, 160), 960: (150, 260), 1280: (160, 260)},
        tilt_deg=(2.0, 14.0), k1=(-0.14, -0.03), vignette=(0.2, 0.6), wb_error=(0.05, 0.18),
        lamps=(2700, 3000, 4200, 5500, 7500), exposure_ev=(-0.9, 0.7), washout=(0.2, 0.6),
        read_noise=(1.5, 4.0), shot_noise=(4.0, 10.0), blur=(0.3, 1.4), defocus=(0.0, 1.5),
        motion_blur=(0.0, 3.0), jpeg=(55, 90), sharpen=(0.0, 1.0), light=(0.1, 0.5),
        glare=(0.15, 0.45), glare_share=0.25),
    # The photo mode: a cheap webcam at 960x540 above a home table, colours washed out,
    # white balance far from neutral. A validation profile.
    "webcam": CameraProfile(
        "webcam",
        card_px={960: (200, 260)},
        tilt_deg=(0.0, 10.0), k1=(-0.12, -0.04), vignette=(0.25, 0.55), wb_error=(0.08, 0.2),
        lamps=(2700, 3000, 4000, 6500), exposure_ev=(-0.6, 0.5), washout=(0.35, 0.7),
        read_noise=(1.5, 3.5), shot_noise=(4.0, 9.0), blur=(0.5, 1.3), defocus=(0.0, 1.0),
        motion_blur=(0.0, 1.5), jpeg=(60, 85), sharpen=(0.3, 1.0), light=(0.1, 0.4),
        glare=(0.0, 0.0), glare_share=0.0),
}
"""Camera profiles by name: ``tuning``, ``validation`` and ``webcam`` (photo mode)."""

SPLITS = ("tuning", "validation")


def designs(split: str) -> tuple:
    """The KDE designs of a split: ``designs("tuning") == TUNING_DESIGNS``."""
    return {"tuning": TUNING_DESIGNS, "validation": VALIDATION_DESIGNS}[_split(split)]


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
