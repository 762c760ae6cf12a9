"""Read a rendered tuning set (see make_set) and write one JSON line per sighting with what decided it.

    python -m bench.plain_tuning.run_set SET_FOLDER... --out sightings.jsonl [--single]

Each line: set, frame, truth card (of the true card the sighting lies on, when it is in
full view and not under a hand; "covered"/"cut"/None otherwise), the reading (card or
None, guess, reason) and the decision's figures (score, margin, ink, cell).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from engine.cards import DECK
from vision.plain import recognize_plain
from vision.plain.background import TableModel
from vision.plain.calibration import CalibrationError, check_shapes, face_and_size
from vision.plain.deck import PlainDeck


def calibrate_set(folder: Path) -> PlainDeck:
    faces, sizes = {}, {}
    for card in DECK:
        img = cv2.imread(str(folder / "calibration" / f"{card}.png"))
        empty = cv2.imread(str(folder / "calibration" / f"{card}-empty.png"))
        table = TableModel()
        table.learn(empty)
        faces[card], sizes[card] = face_and_size(img, table, what=str(card))
    aspect, size = check_shapes(faces, sizes)
    return PlainDeck(name=folder.name, cards=list(faces), faces=list(faces.values()), aspect=aspect, card_px=size)


def truth_of(sighting_centre, truth, size):
    w, h = size
    for t in truth:
        poly = np.asarray(t["corners"], np.float32)
        if cv2.pointPolygonTest(poly, sighting_centre, False) >= 0:
            c = np.asarray(t["corners"])
            if t["covered_by_hand"]:
                return "covered", t["card"]
            if t["card_visible"] < 0.9 or not (np.all(c >= 0) and np.all(c[:, 0] <= w - 1) and np.all(c[:, 1] <= h - 1)):
                return "cut", t["card"]
            return "ok", t["card"]
    return "none", None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--single", action="store_true", help="no learnt table (single photos)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    with open(args.out, "w") as out:
        for s in args.sets:
            folder = Path(s)
            try:
                deck = calibrate_set(folder)
            except CalibrationError as exc:
                print(f"{folder.name}: calibration failed: {exc}", flush=True)
                continue
            meta = json.loads((folder / "truth.json").read_text())
            counts = {"ok": 0, "read": 0, "wrong": 0}
            times = []
            for m in meta:
                f = m["frame"]
                img = cv2.imread(str(folder / "play" / f"{f:04d}.png"))
                size = (img.shape[1], img.shape[0])
                table = None
                if not args.single:
                    table = TableModel()
                    table.learn(cv2.imread(str(folder / "play" / f"{f:04d}-empty.png")))
                t0 = time.thread_time()
                sightings = recognize_plain(img, deck, table=table)
                times.append(1000 * (time.thread_time() - t0))
                seen = set()
                for _k, sg in enumerate(sightings):
                    kind, card = truth_of(sg.center, m["truth"], size)
                    d = sg.detail or {}
                    rec = {"set": folder.name, "frame": f, "kind": kind, "truth": card,
                           "card": None if sg.card is None else str(sg.card),
                           "guess": None if sg.guess is None else str(sg.guess), "reason": sg.reason,
                           **{k2: (v if isinstance(v, (int, float, type(None), dict)) else str(v)) for k2, v in d.items()},
                           "glare": "glare" in m["conditions"], "hand": "hand" in m["conditions"]}
                    out.write(json.dumps(rec) + "\n")
                    if sg.card is not None and card != str(sg.card):
                        counts["wrong"] += 1
                    if kind == "ok" and sg.card is not None and str(sg.card) == card:
                        seen.add(card)
                for t in m["truth"]:
                    c = np.asarray(t["corners"])
                    if not t["covered_by_hand"] and t["card_visible"] >= 0.9 and np.all(c >= 0) \
                            and np.all(c[:, 0] <= size[0] - 1) and np.all(c[:, 1] <= size[1] - 1):
                        counts["ok"] += 1
                        counts["read"] += t["card"] in seen
                        poly = np.asarray(t["corners"], np.float32)
                        if not any(cv2.pointPolygonTest(poly, sg.center, False) >= 0 for sg in sightings):
                            out.write(json.dumps({"set": folder.name, "frame": f, "kind": "missed",
                                                  "truth": t["card"], "glare": "glare" in m["conditions"],
                                                  "hand": "hand" in m["conditions"]}) + "\n")
            print(f"{folder.name:36s} cards {counts['ok']:4d} read {100 * counts['read'] / max(1, counts['ok']):6.2f}% "
                  f"wrong {counts['wrong']} ms {np.median(times):.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
