"""What the reader's thresholds are chosen from, on TUNING sessions only: the score and duel margin of every card read, and the margin the best wrong card would have had.

Sessions are drawn from the tuning split (bench.vision_sets: tuning designs, surfaces and
camera) with seeds below 1000, calibrated by one live pass, and read as the service
reads them (with the learnt table) and as photos (without). For each sighting on a card
in full view the reader's detail is kept: its score, its margin, and for each rival it
met the rival's margin bound (minus the duel). The summary shows, per frame kind, the
percentiles of the true card's score and margin, and the largest margin any wrong card
reached: ``MIN_MARGIN`` and ``MIN_SCORE`` must sit above the latter with room to spare.

    python -m bench.plain_tuning.margins --sessions 6 --frames 4 --seed 2 [--out rows.jsonl]
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.vision_plain import calibrate_through_camera
from vision.plain import recognize_plain
from vision.plain.background import TableModel


def _truth_at(sighting, truth):
    for t in reversed(truth):          # later placements lie on top
        if cv2.pointPolygonTest(np.asarray(t["corners"], np.float32), sighting.center, False) >= 0:
            return t
    return None


def run(sessions: int, frames: int, seed: int, kinds=("play", "hand", "glare", "overlap")):
    rows = []
    rng0 = np.random.default_rng([seed, 41])
    groups = list(vs.SURFACES["tuning"])
    for k in range(sessions):
        design = vs.TUNING_DESIGNS[k % len(vs.TUNING_DESIGNS)]
        size = ((640, 480), (1280, 720))[k % 2]
        s = vs.draw_session(rng0, "tuning", groups[k % len(groups)], size=size, design=design)
        rng = np.random.default_rng(int(rng0.integers(1 << 30)))
        deck, cal = calibrate_through_camera(s, rng)
        print(f"{k}: {design} {s.surface} {size} calibration {'ok' if deck else cal['error']}", flush=True)
        if deck is None:
            continue
        from vision.synth import compose_scene
        empty = compose_scene([], size=s.size, rng=rng, **s.conditions())
        table = TableModel()
        for _ in range(10):
            table.learn(empty.shoot(rng)[0])
        for kind in kinds:
            for _ in range(frames):
                places, extra = vs.frame_placements(s, rng, kind)
                img, truth = vs.compose(s, places, rng, **extra)
                for mode, tbl in (("table", table), ("photo", None)):
                    for sg in recognize_plain(img, deck, table=tbl):
                        t = _truth_at(sg, truth)
                        d = sg.detail or {}
                        if t is None or "score" not in d:
                            continue
                        whole = not t["covered_by_hand"] and t["card_visible"] >= 0.9
                        rows.append({"design": design, "surface": s.surface, "kind": kind, "mode": mode,
                                     "truth": str(t["card"]), "whole": whole,
                                     "card": None if sg.card is None else str(sg.card),
                                     "guess": str(sg.guess), "score": d["score"], "margin": d["margin"],
                                     "worst": d.get("worst", {}), "cell": d.get("cell"), "ink": d.get("ink")})
    return rows


def summary(rows):
    by = defaultdict(list)
    for r in rows:
        by[(r["kind"], r["mode"])].append(r)
    print(f"{'kind/mode':16s} {'n':>5s} {'score p1':>8s} {'margin p1':>9s} {'p5':>6s} "
          f"{'false margin max':>16s} {'wrong':>5s}")
    for key, rs in sorted(by.items()):
        true = [r for r in rs if r["whole"] and r["guess"] == r["truth"]]
        false = [max(v for c, v in r["worst"].items() if c != r["truth"])
                 for r in rs if any(c != r["truth"] for c in r["worst"])]
        wrong = sum(1 for r in rs if r["card"] and r["card"] != r["truth"])
        sc = np.array([r["score"] for r in true]) if true else np.zeros(1)
        mg = np.array([r["margin"] for r in true]) if true else np.zeros(1)
        print(f"{key[0] + '/' + key[1]:16s} {len(rs):5d} {np.percentile(sc, 1):8.3f} {np.percentile(mg, 1):9.3f} "
              f"{np.percentile(mg, 5):6.3f} {max(false, default=float('nan')):16.3f} {wrong:5d}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2, help="below 1000: tuning")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    rows = run(args.sessions, args.frames, args.seed)
    if args.out:
        with open(args.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    summary(rows)


if __name__ == "__main__":
    main()
