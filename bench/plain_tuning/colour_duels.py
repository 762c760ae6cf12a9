"""How close a card comes to being named as the card of its rank in another colour, on TUNING sessions with glare: four-colour decks (diamonds blue, clubs green) and the usual red and black.

For each seed, one tuning session per design and surface group is drawn at 640x480, its
deck calibrated by one live pass, and glare frames are read (the lamp's reflection
drawn on every frame, ``--glare`` strength) in which each card lies beside the cards of
its rank. For every card in full view the reading is kept, and the duel of the true
card against each card of its rank in another colour (the pair that glare can confuse):
the summary prints cards read, refused and wrong, and the smallest such duel value.

    python -m bench.plain_tuning.colour_duels --designs standard+4color,penguins+4color --seeds 670,671
"""
from __future__ import annotations

import argparse
import collections
import json

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.plain_tuning import scenes
from bench.vision_plain import calibrate_through_camera, in_full_view
from engine.cards import DECK, Card
from vision.plain import recognize_plain
from vision.plain.background import TableModel


def run(design: str, group: str, seed: int, frames: int, glare: float, size=(640, 480)) -> list:
    """Rows (one per card in full view) of one session."""
    rng = np.random.default_rng([seed, sum(map(ord, design)), sum(map(ord, group))])
    session = vs.draw_session(rng, "tuning", group, size=size, design=design)
    deck, cal = calibrate_through_camera(session, rng)
    if deck is None:
        return [{"design": design, "group": group, "seed": seed, "calibration": cal["error"]}]
    from vision.synth import compose_scene
    deck.prepare()
    table = TableModel()
    for _ in range(10):
        table.learn(compose_scene([], size=session.size, rng=rng, **session.conditions()).shoot(rng)[0])
    rows = []
    ranks = sorted({c.rank for c in DECK})
    for k in range(frames):
        rank = ranks[k % len(ranks)]
        pick = [c for c in DECK if c.rank == rank]
        rng.shuffle(pick)
        places, extra = vs.frame_placements(session, rng, "play", cards=pick)
        extra["glare"] = glare
        img, truth = vs.compose(session, places, rng, **extra)
        found = recognize_plain(img, deck, table=table)
        for t in truth:
            if not in_full_view(t["corners"], session.size) or t.get("card_visible", 1.0) < 0.9:
                continue
            on = scenes.on(found, [t])[0]
            s = on[0] if on else None
            worst = (s.detail or {}).get("worst", {}) if s is not None else {}
            card = Card(t["card"])
            other = {c: -v for c, v in worst.items()
                     if c != str(card) and Card(c).rank == card.rank and (Card(c).suit in "HD") != (card.suit in "HD")}
            rows.append({"design": design, "group": group, "seed": seed, "frame": k, "truth": str(card),
                         "card": str(s.card) if s is not None and s.card is not None else None,
                         "guess": str(s.guess) if s is not None and s.guess is not None else None,
                         "reason": s.reason if s is not None else "not found",
                         "margin": round(float(s.margin), 3) if s is not None else None,
                         "other_colour": other})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", default=",".join(vs.TUNING_FOUR_COLOUR[:3]),
                    help="tuning designs, plain or four-colour (standard+4color, ...)")
    ap.add_argument("--groups", default="white-mat,mat,felt", help="tuning surface groups")
    ap.add_argument("--seeds", default="670", help="tuning seeds (below 1000), comma-separated")
    ap.add_argument("--frames", type=int, default=12, help="frames per session, each the four cards of a rank")
    ap.add_argument("--glare", type=float, default=0.35, help="strength of the lamp's reflection on every frame")
    ap.add_argument("--out", help="also write the rows as JSON lines")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    tuning = set(vs.TUNING_DESIGNS) | set(vs.TUNING_FOUR_COLOUR)
    designs = [d for d in args.designs.split(",") if d]
    if not set(designs) <= tuning:
        print(f"tuning designs only: {sorted(set(designs) - tuning)} are not", flush=True)
        return 2
    rows = []
    out = open(args.out, "w") if args.out else None
    for seed in (int(s) for s in args.seeds.split(",")):
        for design in designs:
            for group in args.groups.split(","):
                got = run(design, group, seed, args.frames, args.glare)
                rows += got
                if out:
                    for r in got:
                        out.write(json.dumps(r) + "\n")
                    out.flush()
                n = collections.Counter("calibration failed" if "calibration" in r else
                                        "wrong" if r["card"] and r["card"] != r["truth"] else
                                        "read" if r["card"] else "refused" for r in got)
                lows = [min(r["other_colour"].values()) for r in got if r.get("other_colour")]
                print(f"{seed} {design:22s} {group:9s} {dict(n)}  least other-colour duel "
                      f"{min(lows) if lows else '-'}", flush=True)
                for r in got:
                    if r.get("card") and r["card"] != r["truth"]:
                        print(f"    WRONG {r['card']} for {r['truth']} (frame {r['frame']}, margin {r['margin']})")
    n = collections.Counter("wrong" if r.get("card") and r["card"] != r["truth"] else
                            "read" if r.get("card") else "refused" for r in rows if "truth" in r)
    print(f"all: {dict(n)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
