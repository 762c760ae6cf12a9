"""How well the close look tells each true card from its look-alikes, on a rendered tuning set.

For every card in full view, the duel of the true card against each card of the same
rank (and the ace/king/queen/jack of the same colour) is computed on the view the
reader found. A wrong card could only be named where such a duel comes out negative,
so the spread of these values is what ``MIN_MARGIN`` must be chosen from.

    python -m bench.plain_tuning.duels SET_FOLDER...
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from bench.plain_tuning.run_set import calibrate_set
from engine.cards import Card
from vision.plain import decide, read
from vision.plain.background import TableModel
from vision.plain.find import find_outlines
from vision.plain.straighten import upright_views


def rivals_of(card: Card, deck) -> list:
    return [i for i, c in enumerate(deck.cards) if c != card and (c.rank == card.rank)]


def main(argv=None):
    sets = (argv or sys.argv[1:])
    cv2.setNumThreads(1)
    values = defaultdict(list)
    for s in sets:
        folder = Path(s)
        deck = calibrate_set(folder)
        meta = json.loads((folder / "truth.json").read_text())
        for m in meta:
            f = m["frame"]
            img = cv2.imread(str(folder / "play" / f"{f:04d}.png"))
            table = TableModel()
            table.learn(cv2.imread(str(folder / "play" / f"{f:04d}-empty.png")))
            outlines = find_outlines(img, deck.aspect, table=table)
            for t in m["truth"]:
                if t["covered_by_hand"] or t["card_visible"] < 0.9:
                    continue
                poly = np.asarray(t["corners"], np.float32)
                hits = [o for o in outlines if cv2.pointPolygonTest(poly, tuple(map(float, o.corners.mean(0))), False) > 0]
                if not hits:
                    continue
                o = max(hits, key=lambda o: o.area)
                faces = decide.view_faces(upright_views(img, o.corners, deck.aspect))
                ti = deck.index(t["card"])
                k = int(np.argmax([read.patch_match(faces[j].soft, deck.templates[ti].face.soft)[0] for j in (0, 1)]))
                tx = deck.templates[ti].face.sharp
                for r in rivals_of(Card(t["card"]), deck):
                    v = min(read.duel(faces[k].sharp, tx, deck.laid(ti, r), deck.places(ti, r)),
                            read.duel(faces[k].sharp, tx, deck.laid(ti, r, turned=True), deck.places(ti, r, turned=True)))
                    values[(folder.name.split("-640")[0], t["card"], str(deck.cards[r]))].append(v)
    by_set = defaultdict(list)
    for (s, _a, _b), v in values.items():
        by_set[s] += v
    for s, v in sorted(by_set.items()):
        v = np.array(v)
        print(f"{s:28s} n {len(v):5d} min {v.min():6.3f} p1 {np.percentile(v, 1):6.3f} p5 {np.percentile(v, 5):6.3f} "
              f"median {np.median(v):6.3f} below 0.3: {(v < 0.3).mean() * 100:5.1f}%")
    worst = sorted(((min(v), k) for k, v in values.items()))[:15]
    for v, k in worst:
        print("  weakest", k, round(v, 3))


if __name__ == "__main__":
    main()
