"""Benchmark of QR-sticker reading: correct / refused / wrong sightings and ms per frame, per decoder, frame size and deck design.

Frames are composed from the KDE card art (vision.synth) with random cloth, rotation,
perspective, blur, noise, uneven light, glare, JPEG and sometimes a hand over a card,
at a camera scale that makes codes 80–110 px (the documented set-up). Composition is
not timed; only decoding is, on one core (``cv2.setNumThreads(1)``).

    python -m bench.vision_stickers                 # the full run (≥ 20,000 sightings)
    python -m bench.vision_stickers --frames 10 --decks standard   # a quick look

A *sighting* is a code fully in view: its whole sticker (quiet zone included) inside
the frame, and at least 99% of it not covered by another card or a hand. A
read is *correct* when the decoded card is that code's card at that place; *wrong*
when a card is named that is not there (counted over every decoded code, including
partly covered ones); *refused* when a visible code is not read.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import cv2
import numpy as np

from engine.cards import DECK
from vision.art import ArtError, kde_decks
from vision.stickers import DECODERS, STICKER_MM, get_decoder, read_stickers
from vision.synth import compose_frame
from vision.zones import MatLayout

CODE_MODULES_SHARE = 21 / 25   # the code's side within a sticker with its 2-module quiet zone


def make_frame(rng, size, deck, code_px_range=(80, 110)):
    """One random frame: 4 cards (640×480) or 6 (larger) with stickers, random conditions."""
    w, h = size
    layout = MatLayout.a3()
    code_px = rng.uniform(*code_px_range)
    ppm = code_px / (STICKER_MM * CODE_MODULES_SHARE)
    cx, cy = layout.width_mm / 2, layout.height_mm / 2
    cards = rng.choice(24, 6, replace=False)
    if w <= 640:
        spots = [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25)]
    else:
        spots = [(-0.32, -0.27), (0.0, -0.27), (0.32, -0.27), (-0.32, 0.27), (0.0, 0.27), (0.32, 0.27)]
    roll = rng.uniform(-180, 180)
    # Spots are in the image; the camera's roll turns the mat, so turn them back.
    a = np.deg2rad(-roll)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    places = []
    for c, (dx, dy) in zip(cards, spots):
        off = turn @ np.array([dx * w, dy * h]) / ppm + rng.uniform(-8, 8, 2)
        places.append((DECK[c], (cx + off[0], cy + off[1]), float(rng.uniform(0, 360))))
    cond = dict(
        deck=deck, cloth="random", px_per_mm=ppm, perspective=rng.uniform(0, 0.05),
        roll=roll, blur=rng.uniform(0, 1.2), noise=rng.uniform(0, 6),
        light=rng.uniform(0, 0.5), glare=rng.uniform(0, 0.4) if rng.random() < 0.5 else 0,
        jpeg=int(rng.integers(60, 96)), motion_blur=int(rng.integers(0, 4)),
        hand=True if rng.random() < 0.25 else None)
    return compose_frame(places, size=size, rng=rng, **cond)


def score(found, truth):
    """(correct, refused, wrong, sightings) for one frame's decoded sightings."""
    visible = [t for t in truth if t["sticker"] and t["code_in_frame"] and t["code_visible"] >= 0.99]
    correct = wrong = 0
    read_ids = set()
    for s in found:
        match = None
        for i, t in enumerate(truth):
            if t["card"] == s.card and t["sticker"]:
                centre = np.mean(t["code_corners"], axis=0)
                if np.hypot(*(centre - np.array(s.centre))) < t["code_px"] / 2:
                    match = i
        if match is None:
            wrong += 1
        else:
            read_ids.add(match)
    for i, t in enumerate(truth):
        if t in visible and i in read_ids:
            correct += 1
    return correct, len(visible) - correct, wrong, len(visible)


def run(frames_per_cell, sizes, decoders, decks, seed, out=sys.stdout):
    cv2.setNumThreads(1)
    results = []
    for size in sizes:
        for deck in decks:
            rng = np.random.default_rng([seed, size[0], sum(map(ord, deck))])
            try:
                frames = [make_frame(rng, size, deck) for _ in range(frames_per_cell)]
            except ArtError as exc:
                print(f"{size[0]}x{size[1]} {deck}: skipped, its art does not render ({exc})",
                      file=out, flush=True)
                continue
            for name in decoders:
                dec = get_decoder(name)
                read_stickers(frames[0][0], decoder=dec)  # warm-up
                times, tally = [], np.zeros(4, int)
                for img, truth in frames:
                    t0 = time.perf_counter()
                    found = read_stickers(img, decoder=dec)
                    times.append((time.perf_counter() - t0) * 1000)
                    tally += score(found, truth)
                row = {"size": f"{size[0]}x{size[1]}", "deck": deck, "decoder": name,
                       "frames": len(frames), "sightings": int(tally[3]), "correct": int(tally[0]),
                       "refused": int(tally[1]), "wrong": int(tally[2]),
                       "ms_median": statistics.median(times),
                       "ms_p95": float(np.percentile(times, 95))}
                results.append(row)
                print(f"{row['size']:>9} {deck:<24} {name:<6} sightings {row['sightings']:5d} "
                      f"correct {row['correct']:5d} refused {row['refused']:4d} wrong {row['wrong']:2d} "
                      f"ms median {row['ms_median']:6.2f} p95 {row['ms_p95']:6.2f}", file=out, flush=True)
    return results


def summary(results, out=sys.stdout):
    print("\nsummary (all decks)", file=out)
    for size in sorted({r["size"] for r in results}):
        for name in sorted({r["decoder"] for r in results}):
            rows = [r for r in results if r["size"] == size and r["decoder"] == name]
            n = sum(r["sightings"] for r in rows)
            c = sum(r["correct"] for r in rows)
            wr = sum(r["wrong"] for r in rows)
            med = statistics.median([r["ms_median"] for r in rows])
            print(f"{size:>9} {name:<6} sightings {n:6d} read {100 * c / max(n, 1):6.2f}% "
                  f"refused {n - c:5d} wrong {wr:3d}  ms/frame median of deck medians {med:6.2f}",
                  file=out)
    for name in sorted({r["decoder"] for r in results}):
        rows = [r for r in results if r["decoder"] == name]
        n = sum(r["sightings"] for r in rows)
        c = sum(r["correct"] for r in rows)
        print(f"    total {name:<6} sightings {n:6d} read {100 * c / max(n, 1):6.2f}% "
              f"wrong {sum(r['wrong'] for r in rows)}", file=out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=170, help="frames per size × deck (default 170)")
    ap.add_argument("--sizes", default="640x480,1280x720")
    ap.add_argument("--decoders", default=",".join(DECODERS))
    ap.add_argument("--decks", default="all", help="comma-separated KDE designs, or all")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    decks = kde_decks() if args.decks == "all" else args.decks.split(",")
    if not decks:
        print("no KDE card decks installed (apt install kdegames-card-data-kf5)", file=sys.stderr)
        return 2
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    results = run(args.frames, sizes, args.decoders.split(","), decks, args.seed)
    summary(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
