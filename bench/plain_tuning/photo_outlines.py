"""How far the single-photo finder's outline lies from the card, on TUNING photo tables: each calibration photo's first look against the card's true corners.

The tables are drawn as ``photo_tuning`` draws them (same seed, camera profile and
table numbers give the same photos, JPEG at quality 95 as it writes them); for each of
the 24 calibration photos of a table, the outline ``calibrate deck --from-dir`` starts
from (``calibration.lone_card``) is compared with the card's true corners (the largest
distance from a found corner to the nearest true one, px). Printed per table: the median
error and the cards 4 px or more off; and in all, how many were 8 px or more off (a
face cut so is a wedge or strip of the table, or the card less its rim) and the median
CPU time of the finder per photo.

    python -m bench.plain_tuning.photo_outlines --seed 967 --camera tuning-slant
    python -m bench.plain_tuning.photo_outlines --seed 973 --camera tuning --tables 0,4
    python -m bench.plain_tuning.photo_outlines --seed 956 --designs generated --surfaces tune:gingham,tune:plaid
"""
from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from bench.plain_tuning import textures
from bench.plain_tuning.photo_tuning import CAMERA_SIZES, DESIGNS, SURFACES, tuning_surfaces, tuning_tables
from bench.plain_tuning.scenes import corner_error
from bench.vision_photo import calibration_photos
from vision.plain.calibration import CalibrationError, lone_card


def _table_numbers(text: str) -> list:
    """``--tables``: table numbers (0 and up) separated by commas."""
    try:
        numbers = sorted({int(t) for t in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give table numbers separated by commas, e.g. 0,4") from None
    if numbers[0] < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: tables are numbered from 0")
    return numbers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True, help="below 1000: tuning")
    ap.add_argument("--camera", default="tuning", choices=sorted(CAMERA_SIZES))
    ap.add_argument("--tables", type=_table_numbers, default="0,1,2,3,4,5",
                    help="table numbers, as photo_tuning counts them")
    ap.add_argument("--designs", default="kde", choices=sorted(DESIGNS), help="as photo_tuning takes them")
    ap.add_argument("--surfaces", type=tuning_surfaces, default=",".join(SURFACES),
                    help="as photo_tuning takes them")
    args = ap.parse_args(argv)
    if args.seed >= 1000:
        ap.error("seeds from 1000 on are for reports: use a tuning seed (below 1000)")
    cv2.setNumThreads(1)
    tables = args.tables
    far, seconds, total, refused = [], [], 0, 0
    with textures.registered():
        drawn = tuning_tables(args.seed, args.camera, DESIGNS[args.designs], args.surfaces)
        for i, (s, photos) in zip(range(max(tables) + 1), drawn):
            if i not in tables:
                continue
            errors = {}
            for card, frame, truth in calibration_photos(s, photos):
                # As photo_tuning writes it: JPEG at quality 95.
                frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR)
                start = time.process_time()
                try:
                    outline = lone_card(frame)
                except CalibrationError:
                    errors[str(card)] = float("inf")
                    continue
                finally:
                    seconds.append(time.process_time() - start)
                errors[str(card)] = corner_error(outline.corners, np.asarray(truth["corners"], np.float32))
            total += len(errors)
            off = {c: e for c, e in errors.items() if e >= 4.0}
            refused += sum(e == float("inf") for e in errors.values())
            far += [f"t{i} {c}" for c, e in errors.items() if e >= 8.0]
            print(f"t{i} {s.design:13s} {s.surface:16s} median {np.median(list(errors.values())):4.1f} px; 4 px or more off: "
                  + (", ".join(f"{c} {e:.1f}" for c, e in off.items()) or "none"), flush=True)
    print(f"all: {total} photos, {refused} refused, {len(far)} outlines 8 px or more off "
          f"(refusals included: {', '.join(far) or 'none'}); "
          f"finder {1000 * float(np.median(seconds)):.0f} ms per photo (CPU, median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
