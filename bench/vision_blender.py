"""Benchmark of plain-deck reading in the Blender world: tables rendered by a second, physically based renderer (Cycles) that nobody tunes on, read as a user would.

For each table (a surface under its lamps, a webcam fixed above it or a phone held over
it) and each design played there, the deck is calibrated

* through the command line, from photos of each card alone taken with that camera
  (``euchre-table calibrate deck --from-dir``), and
* for a webcam, through the live calibration API (``vision.deck_calibration.calibrate_live``)
  fed with the webcam's frames: the empty table, then each card alone when asked,

then the frames of play (four cards apart; a hand over or beside a card; cards partly on
each other; a lamp's reflection on a card) are read through the command line
(``euchre-table recognize --mode plain --deck ... --json``) with the first deck, and, for a
webcam, through the Python reader (``bench.vision_plain.reader_for``, which learns the empty
table when the reader can) with the live deck. Cards are counted as in ``bench.vision_plain``:
a card *whole in view* (inside the frame, at least 90% of it seen, no hand over it) is
*correct* when a sighting on it names it, *refused* otherwise; *wrong* counts every card
named that is not the card under the sighting. Exit status 1 when any card was named wrongly.

    python -m bench.vision_blender                      # 8 tables x 3 designs (renders first if needed: hours)
    python -m bench.vision_blender --tables 2 --designs 1 --json out.json
    python -m bench.vision_blender --keep DIR           # keep the photos, decks and answers

The frames are rendered by ``bench.blender_world.generate`` into a cache outside the
repository (they hold the card art). See docs/vision-bench.md.
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from bench.blender_world import generate as G
from bench.blender_world import pipeline as P
from bench.blender_world import world as W
from bench.blender_world.camera import Camera
from bench.vision_photo import command_env, euchre_table
from bench.vision_plain import score_frame
from bench.vision_sets import card_asked
from engine.cards import DECK, Card

HARD = ("hand", "overlap", "glare")


# ---------------------------------------------------------------- frames through the camera
class Shots:
    """A table's frames as its camera delivers them: the rendered light bent through the
    lens and developed (sensor noise, white balance, tone, JPEG) with fresh noise at
    every shot."""

    def __init__(self, table: W.Table, seed: int):
        self.table = table
        self.tdir = G.table_dir(table)
        self.seed = seed
        r = np.random.default_rng([seed, table.index, 31])
        self.develop = P.draw_develop(table.kind.name, r)
        self._linear = {}
        self._records = {}

    def record(self, frame_id: str) -> dict:
        if frame_id not in self._records:
            path = self.tdir / "truth" / f"{frame_id}.json"
            if not path.is_file():
                raise FileNotFoundError(f"frame {frame_id} of {self.table.key} is not rendered: "
                                        f"run python -m bench.blender_world.generate")
            self._records[frame_id] = json.loads(path.read_text())
        return self._records[frame_id]

    def linear(self, frame_id: str):
        if frame_id not in self._linear:
            rec = self.record(frame_id)
            cam = Camera.from_json(rec["camera"])
            rgb, _ = G.canvas_of(self.tdir, frame_id, rec["region"], rec["base"])
            if len(self._linear) > 6:
                self._linear.pop(next(iter(self._linear)))
            self._linear[frame_id] = (G.to_frame(cam, rgb, lateral_colour=self.develop.lateral_colour), cam)
        return self._linear[frame_id]

    def shoot(self, frame_id: str, shot: int = 0):
        """``(BGR frame, JPEG bytes)`` of one shot of a frame."""
        lin, cam = self.linear(frame_id)
        p = P.Develop(**{**self.develop.to_json(), "f_px": cam.f_px})
        rng = np.random.default_rng([self.seed, self.table.index, sum(map(ord, frame_id)), len(frame_id), shot])
        return P.develop(lin, p, rng)

    def truth(self, frame_id: str) -> list:
        """The frame's cards for ``score_frame``: top card first."""
        out = []
        for t in self.record(frame_id)["cards"]:
            out.append({"card": Card(t["card"]), "corners": t["corners"],
                        "card_visible": t["visible"], "covered_by_hand": t["hidden_by_hand"] > 0.01})
        return list(reversed(out))


class LiveFrames:
    """Frames of a live calibration pass through a fixed webcam: the empty table, and
    the card the reader asks for lying alone (the one its message names, "... (9S) ...",
    else the next of ``cards``), a few empty frames between cards; a still scene's frames
    differ only by the sensor's noise. A card asked for again (to be moved, or taken
    again) lies where it lay before: the world holds one render of each card alone. The
    camera stops when the reader has not asked for anything new after ``patience`` frames.
    """

    def __init__(self, shots: Shots, design: str, cards, patience: int = 40, gap: int = 3):
        self.shots, self.design = shots, design
        self.cards = [str(c) for c in cards]
        self.patience, self.gap = patience, gap
        self.asked = 0
        self.frames = 0
        self.messages = []
        self.shown = []            # the cards laid, in turn

    def announce(self, message: str) -> None:
        self.messages.append(message)
        self.asked += 1

    def wanted(self, now: int):
        """The card (its code) the reader asked for in its ``now``-th request."""
        named = card_asked(self.messages[now - 1]) if now <= len(self.messages) else None
        if named:
            return named
        return self.cards[now - 1] if now <= len(self.cards) else None

    def _shot(self, frame_id):
        self.frames += 1
        return self.shots.shoot(frame_id, 1000 + self.frames)[0]

    def __iter__(self):
        waited = 0
        served = 0
        while True:
            if self.asked == served:
                # Nothing new asked for: the empty table, until the reader asks (the first
                # card) or stops asking.
                for _ in range(self.gap):
                    waited += 1
                    yield self._shot("empty")
                if self.asked == served and waited < (self.patience if served == 0 else self.patience // 4):
                    continue
                if self.asked > served:
                    continue
                return
            waited = 0
            now = served = self.asked
            card = self.wanted(now)
            if card is None:
                return
            for _ in range(self.gap):
                yield self._shot("empty")
            self.shown.append(card)
            fid = f"{self.design}.alone.{card}"
            for _ in range(self.patience):
                if self.asked != now:
                    break
                yield self._shot(fid)
            if self.asked == now:
                return


# ---------------------------------------------------------------- one table and design
def _count(into: collections.Counter, counts: dict):
    for k in ("in_view", "correct", "refused", "wrong"):
        into[k] += counts[k]


def calibrate_cli(shots: Shots, design: str, cards, folder: Path) -> tuple:
    photos = folder / "deck-photos"
    photos.mkdir(parents=True)
    for c in cards:
        _, jpeg = shots.shoot(f"{design}.alone.{c}", 0)
        (photos / f"{c}.jpg").write_bytes(jpeg)
    deck = folder / "deck.npz"
    t0 = time.time()
    proc = subprocess.run(euchre_table() + ["calibrate", "deck", "--from-dir", str(photos), "--out", str(deck),
                                            "--name", design], capture_output=True, text=True, env=command_env())
    said = (proc.stdout + proc.stderr).strip().splitlines()
    return (deck if deck.is_file() and proc.returncode == 0 else None,
            {"exit": proc.returncode, "said": said[:3] + (["..."] + said[-3:] if len(said) > 6 else said[3:]),
             "deck": deck.is_file(), "wall_s": round(time.time() - t0, 1)})


def calibrate_live_pass(shots: Shots, design: str, cards) -> tuple:
    from vision.deck_calibration import CalibrationError, calibrate_live
    cam = LiveFrames(shots, design, cards)
    t0 = time.process_time()
    try:
        deck, faces = calibrate_live(cam, announce=cam.announce, stable=5, name=design, cards=[Card(c) for c in cards])
        error = None
    except (CalibrationError, ValueError, RuntimeError) as exc:
        deck, faces, error = None, {}, str(exc)
    said = re.search(r"\((\d+) of \d+ cards taken\)", error or "")
    taken = len(faces) if deck is not None else int(said.group(1)) if said else \
        max(0, len(set(cam.shown)) - 1)
    return deck, {"ok": deck is not None, "error": error, "cards_taken": taken, "cards": len(cards),
                  "held": [str(c) for c in deck.held] if deck is not None else [], "frames": cam.frames,
                  "cpu_s": round(time.process_time() - t0, 1)}


def read_cli(shots: Shots, deck: Path, frame_ids, folder: Path) -> dict:
    paths = []
    for fid in frame_ids:
        _, jpeg = shots.shoot(fid, 0)
        p = folder / f"{fid}.jpg"
        p.write_bytes(jpeg)
        paths.append(str(p))
    proc = subprocess.run(euchre_table() + ["recognize", "--mode", "plain", "--deck", str(deck), "--json"] + paths,
                          capture_output=True, text=True, env=command_env())
    answers = {}
    for line in proc.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        answers[obj.get("image")] = obj.get("cards", [])
    out = {}
    for fid, p in zip(frame_ids, paths):
        out[fid] = [{"card": Card(c["card"]) if c.get("card") else None,
                     "centre": tuple(np.asarray(c["corners"], float).reshape(-1, 2).mean(axis=0)),
                     "reason": c.get("reason")} for c in answers.get(p, [])]
    return out


def run_design(shots: Shots, design: str, frame_ids, cards, folder: Path, live: bool, log=print) -> dict:
    """Calibrate and read one design on one table; returns counts per route and kind."""
    table = shots.table
    size = table.kind.size
    res = {"table": table.key, "surface": table.surface, "group": table.group, "camera": table.camera_kind,
           "design": design, "lights": table.light_recipe, "card_px": None, "routes": {}}
    pxs = [c["card_px"] for fid in frame_ids for c in shots.record(fid)["cards"]]
    res["card_px"] = [round(min(pxs)), round(max(pxs))] if pxs else None
    # (a) the command line, from photos.
    deck_file, cal = calibrate_cli(shots, design, cards, folder)
    route = {"calibration": cal, "counts": {}, "wrong_cards": []}
    answers = read_cli(shots, deck_file, frame_ids, folder) if deck_file is not None else {}
    for fid in frame_ids:
        kind = shots.record(fid)["kind"]
        counts = score_frame(answers.get(fid, []), shots.truth(fid), size)
        _count(route["counts"].setdefault(kind, collections.Counter()), counts)
        route["wrong_cards"] += [f"{w} ({fid})" for w in counts["wrong_cards"]]
    res["routes"]["cli"] = route
    # (b) a live pass through the webcam, read by the Python reader with the empty table.
    if live and table.kind.fixed:
        from bench.vision_plain import reader_for
        deck, cal = calibrate_live_pass(shots, design, cards)
        route = {"calibration": cal, "counts": {}, "wrong_cards": [], "cpu_ms": []}
        if deck is not None:
            empty = [shots.shoot("empty", 500 + k)[0] for k in range(10)]
            read = reader_for(deck, empty)
        for fid in frame_ids:
            kind = shots.record(fid)["kind"]
            found = []
            if deck is not None:
                frame = shots.shoot(fid, 0)[0]
                t0 = time.thread_time()
                found = read(frame)
                route["cpu_ms"].append((time.thread_time() - t0) * 1000)
            counts = score_frame(found, shots.truth(fid), size)
            _count(route["counts"].setdefault(kind, collections.Counter()), counts)
            route["wrong_cards"] += [f"{w} ({fid})" for w in counts["wrong_cards"]]
        res["routes"]["live"] = route
    return res


# ---------------------------------------------------------------- report
def _sum(results, route, kinds, key=None):
    c = collections.Counter()
    for r in results:
        if route in r["routes"] and (key is None or key(r)):
            for k in kinds:
                c.update(r["routes"][route]["counts"].get(k, {}))
    return c


def report(results, out=sys.stdout) -> list:
    rows = []
    print("\nper table and design (clean = play frames; hard = hand, overlap, glare: the bar there is 0 wrong)",
          file=out)
    print(f"{'table':40s} {'design':22s} {'route':5s} {'calibration':34s} {'clean':>13s} {'refused':>7s} "
          f"{'wrong':>5s} {'hard':>11s} {'wrong':>5s}", file=out)
    for r in results:
        for route, v in r["routes"].items():
            cal = v["calibration"]
            if route == "cli":
                text = f"exit {cal['exit']}" + ("" if cal["deck"] else ", no deck") + \
                    (f": {cal['said'][-1][:22]}" if cal["said"] else "")
            else:
                text = ("ok" if cal["ok"] else "FAILED") + f" ({cal['cards_taken']}/{cal['cards']}, {cal['frames']} frames)"
            clean = collections.Counter(v["counts"].get("play", {}))
            hard = collections.Counter()
            for k in HARD:
                hard.update(v["counts"].get(k, {}))
            print(f"{r['table']:40s} {r['design']:22s} {route:5s} {text[:34]:34s} "
                  f"{clean['correct']:4d}/{clean['in_view']:<4d} {_pct(clean):>4s} {clean['refused']:7d} "
                  f"{clean['wrong']:5d} {hard['correct']:4d}/{hard['in_view']:<4d}  {hard['wrong']:5d}", file=out)
            if v["wrong_cards"]:
                print(f"{'':40s} WRONG: {'; '.join(v['wrong_cards'][:6])}", file=out)
    print("\nby surface group and camera", file=out)
    print(f"{'cell':34s} {'route':5s} {'tables':>6s} {'calibrated':>10s} {'whole cards':>11s} {'correct':>8s} "
          f"{'refused':>7s} {'wrong':>5s} {'hard cards':>10s} {'correct':>8s} {'wrong':>5s}", file=out)
    cells = sorted({(r["group"], r["camera"]) for r in results})
    for label, pick in [(f"{g} / {c}", (lambda r, g=g, c=c: r["group"] == g and r["camera"] == c)) for g, c in cells] + \
            [("every webcam table", lambda r: r["camera"] != "phone"), ("every phone table", lambda r: r["camera"] == "phone"),
             ("all", lambda r: True)]:
        for route in ("cli", "live"):
            sub = [r for r in results if pick(r) and route in r["routes"]]
            if not sub:
                continue
            clean = _sum(sub, route, ("play",))
            hard = _sum(sub, route, HARD)
            cal_ok = sum(1 for r in sub if (r["routes"][route]["calibration"].get("deck")
                                            if route == "cli" else r["routes"][route]["calibration"]["ok"]))
            row = {"cell": label, "route": route, "designs": len(sub), "calibrated": cal_ok,
                   "clean": dict(clean), "hard": dict(hard)}
            rows.append(row)
            print(f"{label:34s} {route:5s} {len(sub):6d} {cal_ok:6d}/{len(sub):<3d} {clean['in_view']:11d} "
                  f"{_pct(clean):>8s} {clean['refused']:7d} {clean['wrong']:5d} {hard['in_view']:10d} "
                  f"{_pct(hard):>8s} {hard['wrong']:5d}", file=out)
    ms = [v for r in results for v in r["routes"].get("live", {}).get("cpu_ms", [])]
    if ms:
        print(f"\nPython reader: median {statistics.median(ms):.1f} ms of CPU per frame ({len(ms)} frames)", file=out)
    return rows


def _pct(c) -> str:
    return f"{100 * c['correct'] / c['in_view']:.1f}%" if c["in_view"] else "-"


# ---------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--designs", type=int, default=3, help="designs per table")
    ap.add_argument("--only", help="only tables whose key starts with one of these (comma-separated)")
    ap.add_argument("--seed", type=int, default=0, help="the world's seed (tables, cards, renders)")
    ap.add_argument("--frames", default="", help="frames of play per design (as for generate)")
    ap.add_argument("--samples", type=int, default=16, help="Cycles samples when frames must be rendered")
    ap.add_argument("--no-render", action="store_true", help="fail rather than render missing frames")
    ap.add_argument("--no-live", action="store_true", help="skip the live calibration and the Python reader")
    ap.add_argument("--cards", help="only these cards (a quick check, e.g. 9S,KH,QD,AC); default all 24")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--keep", metavar="DIR", help="keep the photos, decks and answers here")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from vision import art
    if not art.art_available():
        print("card art not installed (kdegames-card-data-kf5, librsvg2-bin): run make setup", file=sys.stderr)
        return 2
    try:
        counts = G.parse_counts(args.frames)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    tables = G.select_tables(args.tables, args.seed, args.designs, args.only)
    if not tables:
        print(f"no table matches --only {args.only}", file=sys.stderr)
        return 2
    cards = [str(Card(c)) for c in args.cards.split(",")] if args.cards else [str(c) for c in DECK]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="euchre-blender-"))
    results = []
    t_start = time.time()
    try:
        for t in tables:
            frames = W.table_frames(t, counts, cards)
            missing = [f for f in frames if not (G.table_dir(t) / "truth" / f"{f.id}.json").is_file()]
            if missing:
                if args.no_render or not G.blender_available():
                    print(f"{t.key}: {len(missing)} frames not rendered; run python -m bench.blender_world.generate "
                          f"(needs blender)", file=sys.stderr)
                    return 2
                print(f"{t.key}: rendering {len(missing)} frames (Blender, one thread)", flush=True)
                G.render_table(t, frames, args.samples)
            shots = Shots(t, args.seed)
            for design in t.designs:
                ids = [f.id for f in frames if f.design == design and f.kind in W.FRAME_KINDS]
                folder = base / t.key / design
                folder.mkdir(parents=True, exist_ok=True)
                r = run_design(shots, design, ids, cards, folder, live=not args.no_live)
                results.append(r)
                for route, v in r["routes"].items():
                    c = collections.Counter()
                    for k in v["counts"].values():
                        c.update(k)
                    cal = v["calibration"]
                    ok = cal.get("deck") if route == "cli" else cal.get("ok")
                    print(f"  {t.key:40s} {design:22s} {route:4s} calibration {'ok' if ok else 'FAILED'}  "
                          f"cards {c['in_view']:3d} correct {c['correct']:3d} refused {c['refused']:3d} "
                          f"wrong {c['wrong']}  ({time.time() - t_start:.0f}s)", flush=True)
        rows = report(results)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"seed": args.seed, "tables": [t.key for t in tables], "results": results, "rows": rows},
                          f, indent=1, default=lambda o: dict(o) if isinstance(o, collections.Counter) else str(o))
        return 1 if any(r["routes"][k]["counts"].get(kind, {}).get("wrong", 0)
                        for r in results for k in r["routes"] for kind in r["routes"][k]["counts"]) else 0
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
