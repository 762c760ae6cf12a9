"""Renders the Blender world's frames into a cache outside the repository, with their truth.

    python -m bench.blender_world.generate                    # 8 tables x 3 designs (hours)
    python -m bench.blender_world.generate --tables 2 --designs 1 --frames play=1 --cards 9S,AH
    python -m bench.blender_world.generate --show t00 --out /tmp/look   # finished JPEGs to look at

Blender (Debian's ``blender``) runs headless, one thread, at low priority
(``nice -n 15 blender -b -t 1``), on batches of scene descriptions (``scene.py``).
Everything is deterministic for a seed: the tables, the cards' places, Cycles' noise.
Frames already in the cache are not rendered again. The cache holds the art's pixels
(GPL/LGPL): it lives under ``$XDG_CACHE_HOME/euchre-table/blender-world`` and is never
committed.

Per table folder: ``renders/<frame>.png`` (16-bit linear light on the render's canvas;
for a card alone under a fixed webcam only the card's part of the canvas, the rest is
the empty table's), ``renders/<frame>.index.png`` (object index), ``truth/<frame>.json``
(the frame's description and its cards' truth), ``table.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from bench.blender_world import world as W
from bench.blender_world.camera import Camera

WORLD_VERSION = "v3"
"""Bumped whenever a change alters the frames (the cache keeps each version apart)."""
SCENE_SCRIPT = Path(__file__).with_name("scene.py")


def cache_root() -> Path:
    from vision import art
    return art.cache_dir().parent / "blender-world" / WORLD_VERSION


def blender_available() -> bool:
    return shutil.which("blender") is not None


# ---------------------------------------------------------------- Blender
def run_blender(jobs: list, log=print, nice: int = 15) -> list:
    """Render scene descriptions in one Blender process; returns the per-job stats
    (wall and CPU seconds) Blender printed."""
    if not jobs:
        return []
    if not blender_available():
        raise RuntimeError("blender is not installed: apt-get install blender (Debian's 3.4 works)")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(jobs, f)
        path = f.name
    cmd = (["nice", "-n", str(nice)] if nice else []) + [
        "blender", "-b", "--factory-startup", "-noaudio", "-t", "1", "--python", str(SCENE_SCRIPT), "--", path]
    stats = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        tail = []
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-40:]
            if line.startswith("BLENDER-WORLD "):
                parts = line.split(" ", 3)
                st = json.loads(parts[3]) if len(parts) > 3 and parts[3].strip().startswith("{") else {}
                stats.append(st)
                if log:
                    log(f"    {parts[1]} {Path(parts[2]).name} {st.get('cpu_s', '')}", flush=True)
        rc = proc.wait()
        if rc != 0 or len(stats) != len(jobs):
            raise RuntimeError(f"blender stopped (exit {rc}) after {len(stats)} of {len(jobs)} frames:\n"
                               + "\n".join(tail[-15:]))
    finally:
        os.unlink(path)
    return stats


# ---------------------------------------------------------------- reading renders back
def table_dir(table: W.Table) -> Path:
    """A table's folder in the cache: each seed's apart (the same table key holds
    another scene under another seed)."""
    return cache_root() / f"seed{table.seed}" / table.key


def read_png16(path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(f"no render at {path}")
    return img


def canvas_of(tdir: Path, frame_id: str, region=None, base: str = None):
    """``(linear RGB float32, object index uint16)`` of a frame's canvas; a region
    render is laid over its base frame (the empty table)."""
    img = read_png16(tdir / "renders" / f"{frame_id}.png")
    idx = read_png16(tdir / "renders" / f"{frame_id}.index.png")
    if idx.ndim == 3:
        idx = idx[:, :, 0]
    rgb = img[:, :, ::-1].astype(np.float32) / 65535.0
    if region is not None and base is not None:
        brgb, bidx = canvas_of(tdir, base)
        x0, y0, x1, y1 = region
        brgb = brgb.copy()
        bidx = bidx.copy()
        brgb[y0:y1, x0:x1] = rgb[y0:y1, x0:x1]
        bidx[y0:y1, x0:x1] = idx[y0:y1, x0:x1]
        return brgb, bidx
    return rgb, idx


def to_frame(cam: Camera, rgb: np.ndarray, idx: np.ndarray = None, lateral_colour: float = 0.0):
    """The canvas bent through the lens into the frame: linear RGB (and the index by
    nearest neighbour). ``lateral_colour`` bends red and blue apart (k1 offsets)."""
    mx, my = cam.distortion_maps(canvas=(rgb.shape[1], rgb.shape[0]))
    out = cv2.remap(rgb, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if lateral_colour:
        for ch, sign in ((0, 1.0), (2, -1.0)):
            cx, cy = cam.distortion_maps(canvas=(rgb.shape[1], rgb.shape[0]), channel_k1=sign * lateral_colour)
            out[:, :, ch] = cv2.remap(rgb[:, :, ch], cx, cy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if idx is None:
        return out
    oi = cv2.remap(idx, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REFLECT)
    return out, oi


# ---------------------------------------------------------------- the data set
def _frame_record(table: W.Table, frame: W.Frame, truth: list, took: dict) -> dict:
    return {"id": frame.id, "table": table.key, "design": frame.design, "kind": frame.kind,
            "camera": frame.camera.to_json(), "region": list(frame.region) if frame.region else None,
            "base": frame.base, "seed": frame.seed, "hand": frame.hand,
            "extra_lights": frame.extra_lights, "cards": truth, "render": took}


def render_table(table: W.Table, frames: list, samples: int = 16, log=print, batch: int = 12) -> dict:
    """Render the frames of one table that are not in the cache yet and write their
    truth; returns ``{"rendered": n, "cpu_s": total}``."""
    tdir = table_dir(table)
    (tdir / "renders").mkdir(parents=True, exist_ok=True)
    (tdir / "truth").mkdir(parents=True, exist_ok=True)
    mat_png = None
    if table.mat is not None:
        from vision.zones import MatLayout, render_mat
        # The mat as `euchre-table mat` prints it (the grey card area); the world's first
        # version (v1) printed the older all-white mat, and v2 stacked overlapping cards on
        # the mat by the paper's height under each rather than in turn.
        mat_png = str(cache_root() / f"mat-{table.mat.layout_name}-grey.png")
        if not os.path.isfile(mat_png):
            render_mat(MatLayout.named(table.mat.layout_name), px_per_mm=6.0, ground="grey").save(mat_png)
    (tdir / "table.json").write_text(json.dumps(
        {"key": table.key, "surface": table.surface, "camera_kind": table.camera_kind,
         "lights": table.light_recipe, "designs": table.designs, "seed": table.seed,
         "spec": table.spec, "camera": table.camera.to_json()}, indent=1, default=float))
    todo = [f for f in frames if not (tdir / "truth" / f"{f.id}.json").is_file()]
    # The empty table first: region renders are laid over it.
    todo.sort(key=lambda f: f.kind != "empty")
    cpu = 0.0
    for k in range(0, len(todo), batch):
        chunk = todo[k:k + batch]
        jobs = [W.scene_job(table, f, str(tdir / "renders"), samples, mat_png) for f in chunk]
        t0 = time.time()
        stats = run_blender(jobs, log=log)
        for f, st in zip(chunk, stats):
            rgb, idx = canvas_of(tdir, f.id, f.region, f.base)
            _, fidx = to_frame(f.camera, rgb, idx)
            truth = W.frame_truth(table, f, fidx)
            rec = _frame_record(table, f, truth, st)
            (tdir / "truth" / f"{f.id}.json").write_text(json.dumps(rec, indent=1, default=float))
            cpu += float(st.get("cpu_s", 0.0))
        if log:
            log(f"  {table.key}: {min(k + batch, len(todo))}/{len(todo)} frames ({time.time() - t0:.0f} s wall for "
                f"{len(chunk)})", flush=True)
    return {"rendered": len(todo), "cpu_s": cpu}


def parse_counts(text: str) -> dict:
    out = dict(W.DEFAULT_FRAMES)
    for part in filter(None, (text or "").split(",")):
        k, _, v = part.partition("=")
        if k not in W.FRAME_KINDS:
            raise ValueError(f"unknown frame kind {k!r}: {', '.join(W.FRAME_KINDS)}")
        out[k] = int(v)
    return out


def select_tables(n: int, seed: int, designs: int, only=None) -> list:
    tables = W.plan_tables(n, seed, designs)
    if only:
        keys = [k for k in only.split(",") if k]
        tables = [t for t in tables if any(t.key.startswith(k) for k in keys)]
    return tables


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--designs", type=int, default=3, help="designs per table")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", help="only tables whose key starts with one of these (comma-separated)")
    ap.add_argument("--frames", default="", help="frames of play per design, e.g. play=4,hand=2,overlap=1,glare=1")
    ap.add_argument("--cards", help="only these cards (comma-separated, e.g. 9S,AH); default all 24")
    ap.add_argument("--samples", type=int, default=16, help="Cycles samples per pixel (adaptive)")
    ap.add_argument("--list", action="store_true", help="list the tables and stop")
    args = ap.parse_args(argv)
    try:
        counts = parse_counts(args.frames)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    tables = select_tables(args.tables, args.seed, args.designs, args.only)
    if args.list:
        for t in tables:
            print(f"{t.key:42s} {t.light_recipe:12s} {', '.join(t.designs)}")
        return 0
    if not blender_available():
        print("blender is not installed: apt-get install blender (or make bench-vision-blender as root)",
              file=sys.stderr)
        return 2
    cards = args.cards.split(",") if args.cards else None
    t_all = time.time()
    total = {"rendered": 0, "cpu_s": 0.0}
    for t in tables:
        frames = W.table_frames(t, counts, cards)
        print(f"{t.key}: {len(frames)} frames ({t.light_recipe}; {', '.join(t.designs)})", flush=True)
        r = render_table(t, frames, args.samples)
        total["rendered"] += r["rendered"]
        total["cpu_s"] += r["cpu_s"]
    print(f"rendered {total['rendered']} frames in {time.time() - t_all:.0f} s wall, "
          f"{total['cpu_s']:.0f} s of Blender CPU; cache {cache_root()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
