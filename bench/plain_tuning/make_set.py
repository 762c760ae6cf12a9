"""Render a tuning set for the plain-deck reader to a folder: calibration frames (each card alone,
with the empty table) and play frames (four cards, camera faults, glare, hands) with their truth.

    python -m bench.plain_tuning.make_set OUT --decks standard,oxygen --surfaces cloth,paper --frames 30 --seed 0

Tuning seeds are below 1000 (seeds from 1000 on are for reports).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from bench.plain_tuning.scenes import compose_pair
from bench.vision_plain import frame_cards, random_conditions
from engine.cards import DECK


def _truth_json(truth):
    return [{"card": str(t["card"]), "corners": np.asarray(t["corners"]).round(2).tolist(),
             "card_visible": float(t["card_visible"]), "covered_by_hand": bool(t["covered_by_hand"])}
            for t in truth]


def calibration_conditions(rng):
    """A calibration frame's camera: the play conditions without glare or hands."""
    cond = random_conditions(rng)
    for k in ("glare", "hand", "hand_cover"):
        cond.pop(k, None)
    return cond


def render(out: Path, design: str, surface: str, frames: int, seed: int, size=(640, 480)):
    paper = surface == "paper"
    folder = out / f"{design}-{surface}-{size[0]}x{size[1]}-s{seed}"
    (folder / "calibration").mkdir(parents=True, exist_ok=True)
    (folder / "play").mkdir(parents=True, exist_ok=True)
    for k, card in enumerate(DECK):
        rng = np.random.default_rng([seed, 999, k])
        cond = calibration_conditions(rng)
        if paper:
            cond.pop("cloth")
        place = [{"card": card, "at": "NESW"[k % 4], "rotation": float(rng.uniform(0, 360)),
                  "sticker": False, "jitter_mm": 8.0}]
        img, empty, truth = compose_pair(place, size, [seed, 999, k, 1], deck=design, paper=paper, **cond)
        cv2.imwrite(str(folder / "calibration" / f"{card}.png"), img)
        cv2.imwrite(str(folder / "calibration" / f"{card}-empty.png"), empty)
    meta = []
    for f in range(frames):
        rng = np.random.default_rng([seed, f])
        cards = frame_cards(rng, 4)
        cond = random_conditions(rng)
        if paper:
            cond.pop("cloth")
        img, empty, truth = compose_pair(cards, size, [seed, f, 1], deck=design, paper=paper, **cond)
        cv2.imwrite(str(folder / "play" / f"{f:04d}.png"), img)
        cv2.imwrite(str(folder / "play" / f"{f:04d}-empty.png"), empty)
        meta.append({"frame": f, "conditions": {k: (v if not isinstance(v, np.generic) else v.item())
                                                for k, v in cond.items()},
                     "truth": _truth_json(truth)})
    (folder / "truth.json").write_text(json.dumps(meta))
    return folder


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--decks", default="standard,oxygen,oxygen-air,oxygen-white,penguins,dondorf")
    ap.add_argument("--surfaces", default="cloth,paper")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="640x480")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    for d in args.decks.split(","):
        for s in args.surfaces.split(","):
            print(render(Path(args.out), d, s, args.frames, args.seed, size), flush=True)


if __name__ == "__main__":
    main()
