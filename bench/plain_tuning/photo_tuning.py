"""Photo mode on TUNING data only: tuning designs on tuning surfaces, photographed at 960x540
with the tuning camera profile, calibrated with `calibrate deck --from-dir` and read with
`recognize --mode plain` (the single-photo path), through the command line.

    python -m bench.plain_tuning.photo_tuning --tables 4 --photos 6 --seed 3 [--keep DIR]
    python -m bench.plain_tuning.photo_tuning --camera tuning-slant --tables 6 --seed 760
    python -m bench.plain_tuning.photo_tuning --designs generated --tables 6 --seed 987
    python -m bench.plain_tuning.photo_tuning --designs generated --surfaces tune:gingham,tune:plaid --seed 954

``--camera`` names a tuning camera profile (bench.vision_sets.CAMERAS): ``tuning`` (the
default, 960x540), ``tuning-slant`` (a phone held at a slant, 1280x960) or
``tuning-slant-small`` (the same phone held higher: cards of 80-115 px) or
``tuning-slant-large`` (held low: cards of 240-300 px) or ``tuning-slant-hard`` (a poorer
phone at steeper slants: cards of 85-280 px).
"""
from __future__ import annotations

import argparse
import itertools
import shutil
import tempfile
from pathlib import Path

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.plain_tuning import textures
from bench.vision_photo import run_table, said_lines

CAMERA_SIZES = {"tuning": (960, 540), "tuning-slant": (1280, 960), "tuning-slant-small": (1280, 960),
                "tuning-slant-large": (1280, 960), "tuning-slant-hard": (1280, 960)}
"""The tuning camera profiles this tool takes and their frame sizes."""
SURFACES = ("wood:oak:matte", "wood:oak:satin", "cloth:green", "felt:navy", "cloth:grey", "wood:oak:gloss")


def tuning_surfaces(text: str) -> tuple:
    """``--surfaces``: surfaces of the tuning split, or the tools' own ``tune:<kind>``,
    separated by commas (a validation surface is refused: it stays unseen while tuning)."""
    known = [n for names in vs.SURFACES["tuning"].values() for n in names] + \
        [f"tune:{k}" for k in textures.KINDS + textures.PATTERNS + textures.PILES + textures.STONES
                                 + textures.GLAZES]
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{', '.join(bad) or repr(text)}: not a tuning surface; "
                                         f"choose from {', '.join(known)}")
    return names


DESIGNS = {"kde": vs.TUNING_DESIGNS, "generated": vs.GENERATED_DESIGNS}
"""The tuning designs this tool takes: the KDE tuning designs, or the generated ones."""


def tuning_tables(seed: int, camera: str = "tuning", designs=vs.TUNING_DESIGNS, surfaces=SURFACES):
    """The tables this tool draws for ``seed`` and ``camera``, in turn and without end:
    ``(session, the generator its photos are drawn from)``."""
    rng = np.random.default_rng([seed, 5])
    for i in itertools.count():
        design = designs[(i * 5 + seed) % len(designs)]
        surface = surfaces[(i + seed) % len(surfaces)]
        # The default camera draws as before (no profile given), so old seeds give the same photos.
        s = vs.draw_session(rng, "tuning", size=CAMERA_SIZES[camera], design=design, surface=surface,
                            profile=None if camera == "tuning" else camera)
        yield s, np.random.default_rng(int(rng.integers(1 << 30)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--photos", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3, help="below 1000: tuning")
    ap.add_argument("--keep", help="keep the photos and decks here")
    ap.add_argument("--camera", default="tuning", choices=sorted(CAMERA_SIZES),
                    help="tuning camera profile: tuning (960x540), tuning-slant, tuning-slant-small, tuning-slant-large or tuning-slant-hard (1280x960)")
    ap.add_argument("--designs", default="kde", choices=sorted(DESIGNS),
                    help="kde (the KDE tuning designs) or generated (vision.generated_decks)")
    ap.add_argument("--surfaces", type=tuning_surfaces, default=",".join(SURFACES),
                    help="tuning surfaces, comma-separated (default: %(default)s); also the tools' own "
                         "tune:<kind> surfaces, e.g. tune:gingham,tune:plaid,tune:stripes")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="plain-photo-tuning-"))
    tot = {"in_view": 0, "correct": 0, "refused": 0, "wrong": 0}
    first = {"correct": 0, "wrong": 0}
    try:
        with textures.registered():
            tables = tuning_tables(args.seed, args.camera, DESIGNS[args.designs], args.surfaces)
            for i, (s, photos) in zip(range(args.tables), tables):
                r = run_table(s, photos, args.photos, base / f"t{i}")
                for k in tot:
                    tot[k] += r[k]
                n = max(1, r["in_view"])
                print(f"{s.design:14s} {s.surface:16s} tilt {s.camera['tilt_deg']:4.1f} card {r['card_px']}px calibrate exit {r['calibrate_exit']} "
                      f"cards {r['in_view']} correct {100 * r['correct'] / n:.1f}% unread {r['refused']} "
                      f"wrong {r['wrong']} {r['wrong_cards']}",
                      flush=True)
                for line in said_lines(r):
                    print("    ", line)
                first["correct"] += r["first_try"]["correct"]
                first["wrong"] += r["first_try"]["wrong"]
            print(f"all: {tot['in_view']} cards, correct {100 * tot['correct'] / max(1, tot['in_view']):.1f}%, "
                  f"unread {tot['refused']}, wrong {tot['wrong']}; at the first try (no photo taken again): "
                  f"correct {100 * first['correct'] / max(1, tot['in_view']):.1f}%, wrong {first['wrong']}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    main()
