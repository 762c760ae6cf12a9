"""Benchmark of the plain-deck reader's speed on the live path: CPU ms per frame on one core, by what the frame shows, with the reads it made.

The service's path: a deck calibrated by one live pass through the camera
(``bench.vision_plain.calibrate_through_camera``), the session's empty table learnt
(``TableModel``, ten frames), then every frame through ``recognize_plain(frame, deck,
table=table)``. OpenCV is held to one thread (``cv2.setNumThreads(1)``) and each frame
is timed by the CPU time of the thread that reads it (``time.thread_time``; the
process's CPU time is reported beside it as a check that nothing ran elsewhere).

Frames of each session, drawn by kind:

- ``empty``: the table with no card; ``one``: one card alone; ``four``: four cards
  apart (the trick); ``hand``, ``overlap``, ``glare``, ``edge`` as in
  ``bench.vision_plain``: each a new scene;
- ``still``: what the tracker sees most of the time: the four cards of a ``four``
  scene lying still, shot again (new sensor noise), frame after frame;
- ``add``: a card laid beside three lying still: the frame in which the fourth card
  first lies there, after two frames of the three (those are read too, but reported
  only in ``all``, as ``before add``).

The reads are scored like ``bench.vision_plain`` (correct / refused / wrong among the
cards in full view). Sessions: KDE tuning designs on the tuning split's surfaces (cloth,
felt, wood, printed mat), half at 640x480 and half at 1280x720.

    python -m bench.vision_speed                         # 8 sessions, about 10 minutes
    python -m bench.vision_speed --sessions 1 --frames 4 # 4 sessions, a few minutes
    python -m bench.vision_speed --stages                # also CPU ms per stage of the reader
    python -m bench.vision_speed --save DIR              # keep the decks and frames ...
    python -m bench.vision_speed --load DIR --json out.json   # ... to time and score the same frames again
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from bench import vision_plain as vp
from bench import vision_sets as vs
from engine.cards import Card

KINDS = ("empty", "one", "four", "still", "add", "hand", "overlap", "glare", "edge")
STILL_SHOTS = 6
"""Frames of each still scene (the tracker needs a few; a card lies still for more)."""


def session_frames(session, rng, frames: int, kinds) -> list:
    """``[(kind, image, truth)]`` for one session (see the module's description)."""
    from vision.synth import compose_scene
    out = []
    for kind in kinds:
        for _ in range(frames):
            if kind == "empty":
                scene = compose_scene([], size=session.size, rng=rng, **session.conditions())
                out.append((kind, scene.shoot(rng)[0], []))
                continue
            kk = {"one": "alone", "four": "play", "still": "play", "add": "play"}.get(kind, kind)
            places, extra = vs.frame_placements(session, rng, kk)
            if kind == "add" and len(places) >= 2:
                # The same light and rendering for both scenes: the cards lying still
                # look the same in both, but for the sensor's noise.
                seed = int(rng.integers(1 << 30))
                before = compose_scene(places[:-1], size=session.size, rng=np.random.default_rng(seed),
                                       **session.conditions(**extra))
                after = compose_scene(places, size=session.size, rng=np.random.default_rng(seed),
                                      **session.conditions(**extra))
                for _ in range(2):
                    img, truth = before.shoot(rng)
                    out.append(("before add", img, truth))
                img, truth = after.shoot(rng)
                out.append((kind, img, truth))
            elif kind == "still":
                scene = compose_scene(places, size=session.size, rng=rng, **session.conditions(**extra))
                for _ in range(STILL_SHOTS):
                    img, truth = scene.shoot(rng)
                    out.append((kind, img, truth))
            else:
                img, truth = vs.compose(session, places, rng, **extra)
                out.append((kind, img, truth))
    return out


def build(seed: int, sessions: int, frames: int, kinds, log=print) -> list:
    """Calibrated sessions with their frames: ``[{"session", "deck", "empty", "frames"}]``.
    A session whose calibration pass fails is left out (it reads nothing)."""
    out = []
    for _dg, _split, _g, s, sub in vp.plan(["kde-tuning"], ["tuning"], sessions, seed):
        rng = np.random.default_rng(sub)
        deck, cal = vp.calibrate_through_camera(s, rng)
        label = f"{s.design} on {s.surface} {s.size[0]}x{s.size[1]} card {s.card_px():.0f}px"
        if deck is None:
            log(f"  {label}: calibration failed ({cal['error']}); left out")
            continue
        from vision.synth import compose_scene
        empty_scene = compose_scene([], size=s.size, rng=rng, **s.conditions())
        empty = [empty_scene.shoot(rng)[0] for _ in range(10)]
        out.append({"label": label, "size": s.size, "deck": deck, "empty": empty,
                    "frames": session_frames(s, rng, frames, kinds)})
        log(f"  {label}: calibrated ({cal['cpu_s']} s CPU), {len(out[-1]['frames'])} frames")
    return out


def save(data: list, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for k, d in enumerate(data):
        d["deck"].save(folder / f"deck{k}.npz")
        np.savez_compressed(folder / f"frames{k}.npz", empty=np.stack(d["empty"]),
                            frames=np.stack([f[1] for f in d["frames"]]))
        index.append({"label": d["label"], "size": list(d["size"]), "kinds": [f[0] for f in d["frames"]],
                      "truth": [[{"card": str(t["card"]), "corners": np.asarray(t["corners"]).tolist(),
                                  **{x: t[x] for x in ("card_visible", "covered_by_hand") if x in t}}
                                 for t in f[2]] for f in d["frames"]]})
    (folder / "index.json").write_text(json.dumps(index))


def load(folder: Path) -> list:
    from vision.plain import load_deck
    index = json.loads((folder / "index.json").read_text())
    out = []
    for k, entry in enumerate(index):
        with np.load(folder / f"frames{k}.npz") as z:
            empty, frames = list(z["empty"]), list(z["frames"])
        truth = [[{**t, "card": Card(t["card"])} for t in ts] for ts in entry["truth"]]
        out.append({"label": entry["label"], "size": tuple(entry["size"]), "deck": load_deck(folder / f"deck{k}.npz"),
                    "empty": empty, "frames": list(zip(entry["kinds"], frames, truth, strict=True))})
    return out


# ---------------------------------------------------------------- per-stage CPU time
class Stages:
    """CPU time spent in each stage of the reader (wrapped module functions)."""

    def __init__(self):
        self.ms = collections.defaultdict(float)

    @contextmanager
    def wrapped(self):
        import vision.plain.background as bg
        import vision.plain.decide as de
        import vision.plain.find as fi
        import vision.plain.fit as ft
        import vision.plain.outline as ol
        import vision.plain.straighten as st
        targets = [(bg.TableModel, "foreground", "background"), (bg.TableModel, "table_edges", "table edges"),
                   (fi, "find_outlines", "find (all)"), (ol, "edge_map", "find: edges"),
                   (ol, "connected_blobs", "find: blobs"), (ol, "_hull_quad", "find: hulls"),
                   (ol, "_verify", "find: refine+verify"), (fi, "_corner_search", "find: corner search"),
                   (fi, "_not_the_tables", "find: table's shapes"), (fi, "faint_outlines", "find: faint look"),
                   (ft, "fitted_outlines", "fit (all)"), (ft, "fit_card", "fit: card"),
                   (st, "upright_views", "straighten"), (de, "view_faces", "read: features"),
                   (de, "read_views", "read+decide (all)")]
        saved = []
        for owner, name, label in targets:
            f = getattr(owner, name)
            timed = self._timed(f, label)
            # A module's function is replaced where it lives and in every module of the
            # reader that imported it by name (the finder's stages call ``_verify`` from
            # several): each call is timed, once.
            owners = [owner]
            if not isinstance(owner, type):
                owners += [m for k, m in list(sys.modules.items())
                           if k.startswith("vision.") and m is not owner and vars(m).get(name) is f]
            for o in owners:
                saved.append((o, name, f))
                setattr(o, name, timed)
        try:
            yield self
        finally:
            for owner, name, f in saved:
                setattr(owner, name, f)

    def _timed(self, f, label):
        def timed(*a, **kw):
            t0 = time.thread_time()
            try:
                return f(*a, **kw)
            finally:
                self.ms[label] += (time.thread_time() - t0) * 1000
        return timed


def run(data: list, stages: bool = False, log=print) -> dict:
    """Time and score every frame: ``{"frames": [...], "stages": {...}}``."""
    from vision.plain import recognize_plain
    from vision.plain.background import TableModel
    rows = []
    stage_rows = []
    for si, d in enumerate(data):
        if hasattr(d["deck"], "prepare"):
            d["deck"].prepare()          # as the service does at start
        table = TableModel()
        for f in d["empty"]:
            table.learn(f)
        for fi_, (kind, img, truth) in enumerate(d["frames"]):
            st = Stages()
            if stages:
                with st.wrapped():
                    t0, p0 = time.thread_time(), time.process_time()
                    found = recognize_plain(img, d["deck"], table=table)
                    t1, p1 = time.thread_time(), time.process_time()
            else:
                t0, p0 = time.thread_time(), time.process_time()
                found = recognize_plain(img, d["deck"], table=table)
                t1, p1 = time.thread_time(), time.process_time()
            counts = vp.score_frame([vp._sighting(s) for s in found], vp._ordered_truth(truth), d["size"])
            rows.append({"session": si, "frame": fi_, "kind": kind, "size": f"{d['size'][0]}x{d['size'][1]}",
                         "ms": (t1 - t0) * 1000, "process_ms": (p1 - p0) * 1000,
                         "in_view": counts["in_view"], "correct": counts["correct"],
                         "refused": counts["refused"], "wrong": counts["wrong"],
                         "wrong_cards": counts["wrong_cards"],
                         "named": sorted(str(s.card) for s in found if s.card is not None)})
            if stages:
                stage_rows.append({"kind": kind, "size": rows[-1]["size"], **st.ms})
    return {"frames": rows, "stages": stage_rows}


def summary(result: dict, out=sys.stdout) -> None:
    rows = result["frames"]
    sizes = sorted({r["size"] for r in rows}, key=lambda s: int(s.split("x")[0]))
    print(f"\n{'frames':10s} " + "  ".join(f"{s:>26s}" for s in sizes), file=out)
    print(f"{'':10s} " + "  ".join(f"{'n  ms median  p90  correct/refused/wrong':>26s}"[-26:] for _ in sizes),
          file=out)
    groups = [("all", None)] + [(k, k) for k in KINDS] + [("fresh", "fresh")]
    for label, kind in groups:
        cells = []
        for s in sizes:
            sel = [r for r in rows if r["size"] == s and (kind is None or r["kind"] == kind
                                                         or (kind == "fresh" and r["kind"] != "still"))]
            if not sel:
                cells.append(f"{'-':>26s}")
                continue
            ms = sorted(r["ms"] for r in sel)
            c = f"{sum(r['correct'] for r in sel)}/{sum(r['refused'] for r in sel)}/{sum(r['wrong'] for r in sel)}"
            cells.append(f"{len(sel):4d} {statistics.median(ms):7.1f} {ms[int(0.9 * (len(ms) - 1))]:6.1f} {c:>9s}")
        print(f"{label:10s} " + "  ".join(cells), file=out)
    ratio = sum(r["process_ms"] for r in rows) / max(sum(r["ms"] for r in rows), 1e-9)
    print(f"(ms: CPU of the reading thread, OpenCV on one thread; the process's CPU time over all "
          f"its threads was {ratio:.2f}x that)", file=out)
    if result["stages"]:
        print("\nCPU ms per frame by stage (median; stages nest: 'all' includes the parts below it)", file=out)
        labels = [k for k in result["stages"][0] if k not in ("kind", "size")] or []
        labels = sorted({k for r in result["stages"] for k in r if k not in ("kind", "size")})
        for s in sizes:
            for kind in KINDS:
                sel = [r for r in result["stages"] if r["size"] == s and r["kind"] == kind]
                if not sel:
                    continue
                parts = ", ".join(f"{k} {statistics.median(r.get(k, 0.0) for r in sel):.1f}" for k in labels)
                print(f"  {s} {kind:8s} {parts}", file=out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=vp.REPORT_SEED)
    ap.add_argument("--sessions", type=int, default=2, help="sessions per surface group (4 groups)")
    ap.add_argument("--frames", type=int, default=6, help="frames (scenes) of each kind per session")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--stages", action="store_true", help="also CPU ms per stage of the reader")
    ap.add_argument("--save", metavar="DIR", help="keep the calibrated decks and the frames here")
    ap.add_argument("--load", metavar="DIR", help="time the decks and frames kept by --save")
    ap.add_argument("--json", metavar="FILE", help="also write every frame's time and reads as JSON")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    kinds = [k for k in args.kinds.split(",") if k]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        print(f"unknown frame kind(s) {bad}: choose from {', '.join(KINDS)}", file=sys.stderr)
        return 2
    if args.load:
        folder = Path(args.load)
        if not (folder / "index.json").is_file():
            print(f"{folder} holds no frames kept by --save: run with --save {folder} first", file=sys.stderr)
            return 2
        data = load(folder)
        print(f"{len(data)} sessions loaded from {folder}", flush=True)
    else:
        from vision import art
        if not art.art_available():
            print("card art not installed (kdegames-card-data-kf5, librsvg2-bin): run make setup",
                  file=sys.stderr)
            return 2
        print(f"seed {args.seed}: KDE tuning designs on the tuning surfaces, {args.sessions} session(s) per "
              f"surface group, {args.frames} scenes of each kind ({', '.join(kinds)})", flush=True)
        data = build(args.seed, args.sessions, args.frames, kinds)
        if args.save:
            save(data, Path(args.save))
    result = run(data, stages=args.stages)
    summary(result)
    if args.json:
        Path(args.json).write_text(json.dumps({"seed": args.seed, **result}, indent=0))
    return 1 if any(r["wrong"] for r in result["frames"]) else 0


if __name__ == "__main__":
    sys.exit(main())
