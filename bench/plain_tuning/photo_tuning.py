"""Photo mode on TUNING data only: tuning designs on tuning surfaces, photographed at 960x540
with the tuning camera profile, calibrated with `calibrate deck --from-dir` and read with
`recognize --mode plain` (the single-photo path), through the command line.

    python -m bench.plain_tuning.photo_tuning --tables 4 --photos 6 --seed 3 [--keep DIR]
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.vision_photo import run_table

SURFACES = ("wood:oak:matte", "wood:oak:satin", "cloth:green", "felt:navy", "cloth:grey", "wood:oak:gloss")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--photos", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3, help="below 1000: tuning")
    ap.add_argument("--keep", help="keep the photos and decks here")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="plain-photo-tuning-"))
    rng = np.random.default_rng([args.seed, 5])
    tot = {"in_view": 0, "correct": 0, "wrong": 0}
    try:
        for i in range(args.tables):
            design = vs.TUNING_DESIGNS[(i * 5 + args.seed) % len(vs.TUNING_DESIGNS)]
            surface = SURFACES[(i + args.seed) % len(SURFACES)]
            s = vs.draw_session(rng, "tuning", size=(960, 540), design=design, surface=surface)
            r = run_table(s, np.random.default_rng(int(rng.integers(1 << 30))), args.photos, base / f"t{i}")
            for k in tot:
                tot[k] += r[k]
            n = max(1, r["in_view"])
            print(f"{design:14s} {surface:16s} card {r['card_px']}px calibrate exit {r['calibrate_exit']} "
                  f"cards {r['in_view']} correct {100 * r['correct'] / n:.1f}% wrong {r['wrong']} {r['wrong_cards']}",
                  flush=True)
            for said in r["calibrate_said"][:3]:
                print("    ", said)
        print(f"all: {tot['in_view']} cards, correct {100 * tot['correct'] / max(1, tot['in_view']):.1f}%, "
              f"wrong {tot['wrong']}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    main()
