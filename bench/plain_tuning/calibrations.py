"""Live calibration passes on TUNING sessions only: which pass, why the others fail, and which faces were cut at the wrong outline.

For each seed and each tuning design, one session of the tuning split is drawn on a
surface group (e.g. ``mat``: the A3 printed mat) and its deck calibrated by one live
pass (``bench.vision_plain.calibrate_through_camera``). Printed per session: pass or
the error, the cards the self-check did not read back, and the faces whose shape
(width/height) differs from the deck's median by more than 4%: a face cut at a line of
its own picture or of the table instead of the card's edge, the usual cause of a card
read back as its look-alike; and the faces that lack the deck's rim (cut inside the
card, ``calibration.inner_cuts``).

    python -m bench.plain_tuning.calibrations --group mat --seeds 30,31,32,33
    python -m bench.plain_tuning.calibrations --group busy --seeds 500   # the tools' own busy textures
    python -m bench.plain_tuning.calibrations --group white-mat-busy --seeds 864   # the white A4 mat on them
    python -m bench.plain_tuning.calibrations --group patterned --seeds 875   # the tools' printed cloths
    python -m bench.plain_tuning.calibrations --group white-mat-a4 --seeds 921   # the white A4 mat on plain cloth
    python -m bench.plain_tuning.calibrations --group white-mat-a4 --seeds 924 --camera tuning-hard
    python -m bench.plain_tuning.calibrations --group white-mat --seeds 980 --designs generated
    python -m bench.plain_tuning.calibrations --group light --seeds 942 --designs generated   # near-white cloth
    python -m bench.plain_tuning.calibrations --group pale --seeds 928 --designs generated    # cloth lighter than paper
    python -m bench.plain_tuning.calibrations --group mat-busy --seeds 881                   # grey A4 mat on a carpet
"""
from __future__ import annotations

import argparse
import contextlib
import time

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.plain_tuning import textures
from bench.vision_plain import SIZES, calibrate_through_camera
from vision.plain.calibration import inner_cuts

BUSY = textures.GROUPS["busy"]
"""The ``busy`` group: the tuning tools' own busy surfaces (carpet, grained wood, a woven
mat, terrazzo), under the tuning split's camera."""
WHITE_MAT_BUSY = textures.GROUPS["white-mat-busy"]
"""The ``white-mat-busy`` group: the all-white A4 mat laid on those surfaces."""
PATTERNED = textures.GROUPS["patterned"]
"""The ``patterned`` group: the tools' own printed cloths (gingham, stripes, plaid)."""
LIGHT = textures.GROUPS["light"]
"""The ``light`` group: near-white cloth and felt (linen, ivory) that no split uses."""
PALE = textures.GROUPS["pale"]
"""The ``pale`` group: cloth and felt as light as card paper or lighter (snow, chalk)."""
MAT_BUSY = textures.GROUPS["mat-busy"]
"""The ``mat-busy`` group: the project's grey A4 mat laid on the busy surfaces."""
TEXTURED = {"busy": BUSY, "white-mat-busy": WHITE_MAT_BUSY, "patterned": PATTERNED, "light": LIGHT,
            "pale": PALE, "mat-busy": MAT_BUSY}
"""The tools' own groups (``textures.GROUPS``, not groups of the tuning split), drawn with
its textures registered."""
WHITE_MAT_A4 = tuple(f"mat:A4:white:{s}" for s in (*vs.SURFACES["tuning"]["cloth"],
                                                  *vs.SURFACES["tuning"]["felt"]))
"""The ``white-mat-a4`` group: the all-white A4 mat on the tuning split's plain cloths and
felts (the tuning ``white-mat`` group has only the A3 mat)."""
OWN = {**TEXTURED, "white-mat-a4": WHITE_MAT_A4}
"""The groups of this tool (not groups of the tuning split), drawn by surface name."""
ODD = 0.04
"""A face whose width/height differs from the deck's median by more than this is reported."""


ALLOWED = vs.TUNING_DESIGNS + vs.GENERATED_DESIGNS + vs.STUDIED_DESIGNS
"""Designs a pass may be run with: the KDE tuning designs, the generated ones, then those
studied since their validation (``vs.STUDIED_DESIGNS``)."""
TUNING_CAMERAS = ("tuning", "tuning-hard")
"""Camera profiles a pass may be drawn with (``--camera``): the tuning split's and the
poorer tuning camera."""


def run(group: str, seeds, designs=vs.TUNING_DESIGNS, log=print, camera: str = None) -> list:
    """One calibration pass per seed and design; returns one dict per session.
    ``camera``: a tuning camera profile instead of the tuning split's (``tuning-hard``)."""
    if camera not in (None, *TUNING_CAMERAS):
        raise ValueError(f"not a tuning camera: {camera}")
    import vision.deck_calibration as dc
    seen = {}
    check = dc.self_check

    def keep(deck, views, table=None):
        seen["deck"] = deck
        seen["check"] = check(deck, views, table)
        return seen["check"]

    rows = []
    dc.self_check = keep
    busy = textures.registered() if group in TEXTURED else contextlib.nullcontext()
    try:
        busy.__enter__()
        for seed in seeds:
            if 1000 <= seed < 2000 or seed >= 5000:
                raise ValueError(f"seed {seed} is a report seed: tune with seeds below 1000")
            for design in designs:
                k = ALLOWED.index(design)      # the same session whichever designs run
                size = SIZES[(seed + k) % 2]
                rng = np.random.default_rng([seed, 77, k])
                if group in OWN:
                    s = vs.draw_session(rng, "tuning", size=size, design=design,
                                        surface=str(rng.choice(OWN[group])), profile=camera)
                else:
                    s = vs.draw_session(rng, "tuning", group, size=size, design=design, profile=camera)
                seen.clear()
                t0 = time.process_time()
                deck, cal = calibrate_through_camera(s, np.random.default_rng(int(rng.integers(1 << 30))))
                row = {"seed": seed, "design": design, "surface": s.surface, "size": size,
                       "card_px": round(s.card_px()), "ok": deck is not None, "error": cal["error"],
                       "cpu_s": round(time.process_time() - t0, 1), "frames": cal["frames"],
                       "retakes": sum(" again," in m for m in cal["said"]),
                       "moves": sum("move it" in m for m in cal["said"]),
                       "not_read_back": {}, "odd_faces": {}, "cut_inside": []}
                if "deck" in seen:
                    d = seen["deck"]
                    shape = np.array([f.shape[1] / f.shape[0] for f in d.faces])
                    med = float(np.median(shape))
                    row["odd_faces"] = {str(c): round(float(a), 3) for c, a in zip(d.cards, shape)
                                        if abs(a / med - 1) > ODD}
                    row["not_read_back"] = {str(c): why for c, why in seen["check"]["bad"].items()}
                    row["cut_inside"] = sorted(str(c) for c in inner_cuts(dict(zip(d.cards, d.faces)), med))
                rows.append(row)
                log(f"{seed} {design:13s} {s.surface:24s} {size[0]}x{size[1]} card {row['card_px']}px "
                    f"{'ok  ' if row['ok'] else 'FAIL'} {row['frames']} frames, {row['retakes']} retakes, "
                    f"{row['moves']} moves, {row['cpu_s']} s {(row['error'] or '')[:110]}")
                if row["not_read_back"] or row["odd_faces"] or row["cut_inside"]:
                    log(f"     not read back: {row['not_read_back']}  odd faces: {row['odd_faces']}"
                        f"  cut inside the card: {row['cut_inside']}")
    finally:
        dc.self_check = check
        busy.__exit__(None, None, None)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", default="mat", help="tuning surface group: cloth, felt, wood, mat, white-mat, busy, white-mat-busy, patterned, white-mat-a4, light, pale, mat-busy")
    ap.add_argument("--seeds", default="30,31,32,33", help="below 1000: tuning")
    ap.add_argument("--designs", default=",".join(vs.TUNING_DESIGNS),
                    help="tuning designs, comma-separated, or 'generated' (gen-1 ... gen-24)")
    ap.add_argument("--camera", choices=TUNING_CAMERAS, default=None,
                    help="a tuning camera profile instead of the tuning split's")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    designs = [d for d in args.designs.split(",") if d]
    if designs == ["generated"]:
        designs = list(vs.GENERATED_DESIGNS)
    bad = [d for d in designs if d not in ALLOWED]
    if bad:
        ap.error(f"not tuning designs: {', '.join(bad)}")
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if any(1000 <= s < 2000 or s >= 5000 for s in seeds):
        ap.error("seeds from 1000 to 1999 and from 5000 on are for reports: tune with seeds below 1000")
    if args.group not in vs.SURFACES["tuning"] and args.group not in OWN:
        ap.error(f"not a tuning surface group: {args.group} (choose {', '.join([*vs.SURFACES['tuning'], *OWN])})")
    rows = run(args.group, seeds, designs, camera=args.camera)
    by = {}
    for r in rows:
        by.setdefault(r["design"], []).append(r["ok"])
    print("passed: " + ", ".join(f"{d} {sum(v)}/{len(v)}" for d, v in by.items())
          + f"; all {sum(r['ok'] for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    main()
