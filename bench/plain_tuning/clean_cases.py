"""Every clean card of tuning sessions that was not read, with what the reader saw: collect sessions once, replay them on the reader as it is now.

``collect`` runs sessions of the benchmark's plan (``bench.vision_plain.plan``: KDE
tuning designs unless ``--designs`` names another tuning design group, the tuning
split, the surface groups asked for, seeds below 1000; the groups ``busy``,
``patterned`` and ``white-mat-busy`` are the tools' own textures, ``textures.GROUPS``),
each calibrated by one live pass through its camera, and keeps in ``DIR`` per session
the deck (``deck.npz``), frames of the empty table, the frames of play (PNG) and their
truth; ``replay`` reads those frames again (a fresh learnt table per session, frames in
the same order) and writes one JSON line per clean card (whole in view, at least 90%
seen, no hand over it), and per card named wrongly or where no card lies, with the
reading: card, guess, reason, score, margin, the card's size in px, design, surface,
frame size and how many requests the calibration pass needed (24 when no card was
asked for again). ``still`` draws the collected sessions again (given the collect's
options) and lays one card still while another comes and goes beside it, every frame
read with one learnt table: whether a card lying still stays read.

    python -m bench.plain_tuning.clean_cases collect DIR --groups cloth,mat --sessions 4 --frames 20 --seed 500
    python -m bench.plain_tuning.clean_cases collect DIR --camera tuning-hard --seed 810   # a poorer camera
    python -m bench.plain_tuning.clean_cases collect DIR --designs generated --seed 960   # generated designs
    python -m bench.plain_tuning.clean_cases collect DIR --groups patterned --seed 875   # printed cloths
    python -m bench.plain_tuning.clean_cases collect DIR --groups busy,white-mat-busy --seed 901
    python -m bench.plain_tuning.clean_cases replay DIR --out cards.jsonl
    python -m bench.plain_tuning.clean_cases summary cards.jsonl [--compare before.jsonl]
    python -m bench.plain_tuning.clean_cases still DIR --groups light,pale --sessions 6 --seed 974 \
        --designs generated --camera tuning-hard     # the collect's own options: a card lying still
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.plain_tuning import textures
from bench.vision_plain import CLEAN_KINDS, corner_error, in_full_view, plan, sightings_of, still_sequence
from engine.cards import DECK

EMPTY_FRAMES = 10
TUNING_CAMERAS = ("tuning-hard",)
"""Tuning camera profiles ``collect --camera`` takes besides the tuning split's own."""


TUNING_DESIGN_GROUPS = ("kde-tuning", "generated", "kde-tuning-4color", "studied")
"""Design groups ``collect --designs`` takes: tuning designs only."""


def _plan(groups, sessions: int, seed: int, camera=None, designs: str = "kde-tuning",
          no_lens: bool = False) -> list:
    """The plan's sessions of the design group ``designs`` on the tuning split's
    ``groups``, then on those of the tools' own textures (``textures.GROUPS``: ``busy``,
    ``patterned``, ``white-mat-busy``), which the renderer knows while the tool runs.
    ``no_lens``: the same sessions seen through a lens without radial distortion."""
    splits = ["tuning"] + (["busy"] if set(groups) & set(textures.GROUPS) else [])
    sessions = plan([designs], splits, sessions, seed, groups, camera=camera)
    if no_lens:
        for *_, s, _sub in sessions:
            s.camera["k1"] = 0.0       # after the draw, so that the rest of each session is the same
    return sessions


def _calibrate(session, rng):
    """``calibrate_through_camera``, also keeping how many cards the pass asked for."""
    from vision.deck_calibration import CalibrationError, calibrate_live
    cam = vs.LiveCalibration(session, rng)
    try:
        deck, faces = calibrate_live(cam, announce=cam.announce, stable=5, name=session.design, cards=DECK)
        error = None
    except (CalibrationError, ValueError, RuntimeError) as exc:
        deck, faces, error = None, {}, str(exc)
    again = sum(("again" in m) or ("move it" in m) for m in cam.messages)
    return deck, {"ok": deck is not None, "error": error, "cards_taken": len(faces), "asked": cam.asked,
                  "again": again, "frames": cam.frames}


def collect(out: Path, groups, sessions: int, frames: int, seed: int, kinds=("play",), camera=None,
            designs: str = "kde-tuning", no_lens: bool = False) -> None:
    """Calibrate and render the sessions; keep decks, frames and truth under ``out``
    (``camera``: a tuning camera profile other than ``tuning``, e.g. ``tuning-hard``;
    ``designs``: a tuning design group; ``no_lens``: the same sessions seen through a
    lens without radial distortion, to measure what the lens costs)."""
    if seed >= 1000:
        raise SystemExit("seeds from 1000 on are for reports: use a tuning seed below 1000")
    for i, (_dg, _split, g, s, sub_seed) in enumerate(_plan(groups, sessions, seed, camera, designs, no_lens)):
        folder = out / f"s{seed}-{i:02d}"
        if (folder / "done").exists():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(sub_seed)
        from vision.synth import compose_scene
        deck, cal = _calibrate(s, rng)
        meta = {"seed": seed, "session": i, "group": g, "design": s.design, "surface": s.surface,
                "size": list(s.size), "card_px": float(s.card_px()), "calibration": cal, "frames": []}
        if deck is not None:
            deck.save(folder / "deck.npz")
            empty = compose_scene([], size=s.size, rng=rng, **s.conditions())
            for k in range(EMPTY_FRAMES):
                cv2.imwrite(str(folder / f"empty{k}.png"), empty.shoot(rng)[0])
            for kind in kinds:
                for f in range(frames):
                    pick = [DECK[int(j)] for j in rng.choice(len(DECK), size=4, replace=False)]
                    places, extra = vs.frame_placements(s, rng, kind, cards=pick)
                    img, truth = vs.compose(s, places, rng, **extra)
                    name = f"{kind}{f:03d}.png"
                    cv2.imwrite(str(folder / name), img)
                    meta["frames"].append({"file": name, "kind": kind, "truth": [
                        {"card": str(t["card"]), "corners": np.asarray(t["corners"]).round(2).tolist(),
                         "card_visible": float(t["card_visible"]), "covered_by_hand": bool(t["covered_by_hand"]),
                         "card_px": float(t["card_px"])} for t in truth]})
        (folder / "meta.json").write_text(json.dumps(meta))
        (folder / "done").write_text("")
        print(f"{folder.name}: {s.design} {s.surface} {s.size[0]}x{s.size[1]} {s.card_px():.0f}px "
              f"calibration {'ok' if deck is not None else 'FAILED: ' + str(cal['error'])[:80]} "
              f"({cal['cards_taken']} taken, {cal['frames']} frames)", flush=True)


def add_frames(out: Path, groups, sessions: int, frames: int, seed: int, kinds, camera=None,
               designs: str = "kde-tuning", no_lens: bool = False) -> None:
    """Frames of more kinds (``glare``, ``hand``, ...) for sessions already collected: the
    same session drawn again from the plan, its kept deck, new frames from a new stream."""
    for i, (_dg, _split, _g, s, sub_seed) in enumerate(_plan(groups, sessions, seed, camera, designs, no_lens)):
        folder = out / f"s{seed}-{i:02d}"
        if not (folder / "deck.npz").exists():
            continue
        meta = json.loads((folder / "meta.json").read_text())
        rng = np.random.default_rng([sub_seed, 7])
        for kind in kinds:
            if any(f["kind"] == kind for f in meta["frames"]):
                continue
            for f in range(frames):
                n = {"overlap": int(rng.integers(2, 5)), "edge": 3}.get(kind, 4)
                pick = [DECK[int(j)] for j in rng.choice(len(DECK), size=n, replace=False)]
                places, extra = vs.frame_placements(s, rng, kind, cards=pick)
                img, truth = vs.compose(s, places, rng, **extra)
                name = f"{kind}{f:03d}.png"
                cv2.imwrite(str(folder / name), img)
                meta["frames"].append({"file": name, "kind": kind, "truth": _truth(truth)})
        (folder / "meta.json").write_text(json.dumps(meta))
        print(f"{folder.name}: {', '.join(kinds)} added", flush=True)


def _truth(truth) -> list:
    return [{"card": str(t["card"]), "corners": np.asarray(t["corners"]).round(2).tolist(),
             "card_visible": float(t["card_visible"]), "covered_by_hand": bool(t["covered_by_hand"]),
             "card_px": float(t["card_px"])} for t in truth]


def replay(folders, out) -> None:
    """Read the kept frames with the reader as it is now; one JSON line per clean card."""
    from vision.plain import load_deck, recognize_plain
    from vision.plain.background import TableModel
    for folder in folders:
        meta = json.loads((folder / "meta.json").read_text())
        if not (folder / "deck.npz").exists():
            continue
        deck = load_deck(folder / "deck.npz").prepare()
        table = TableModel()
        for k in range(EMPTY_FRAMES):
            table.learn(cv2.imread(str(folder / f"empty{k}.png")))
        size = tuple(meta["size"])
        for fr in meta["frames"]:
            img = cv2.imread(str(folder / fr["file"]))
            sightings = recognize_plain(img, deck, table=table)
            truth = list(reversed(fr["truth"]))       # later placements lie on top
            # Judged as the benchmark judges them (a sighting at a card's own outline is
            # that card's, any other the top card's under its centre).
            judged = sightings_of([{"corners": s.corners, "centre": s.center} for s in sightings], truth)
            used = {k for on in judged for k in on}
            for t, on in zip(truth, judged):
                clean = t["card_visible"] >= 0.9 and not t["covered_by_hand"] and in_full_view(t["corners"], size)
                named = [str(sightings[k].card) for k in on if sightings[k].card is not None]
                wrong = [c for c in named if c != t["card"]]
                if not clean and not wrong:
                    continue
                s = sightings[on[0]] if on else None
                d = (s.detail or {}) if s is not None else {}
                row = {"set": folder.name, "frame": fr["file"], "truth": t["card"], "clean": clean,
                       "design": meta["design"], "surface": meta["surface"], "group": meta["group"],
                       "size": f"{size[0]}x{size[1]}", "card_px": round(t["card_px"]),
                       "asked": meta["calibration"]["asked"], "again": meta["calibration"]["again"],
                       "cards_taken": meta["calibration"]["cards_taken"],
                       "card": named[0] if named else None, "wrong": wrong,
                       "guess": None if s is None or s.guess is None else str(s.guess),
                       "reason": "not found" if s is None else s.reason,
                       "score": d.get("score"), "margin": d.get("margin"),
                       "rival": None if d.get("rival") is None else str(d.get("rival")),
                       "worst": d.get("worst"), "ink": d.get("ink"), "cell": d.get("cell"),
                       "shape_looks": d.get("shape_looks"), "kind": fr["kind"], "ways": d.get("ways"),
                       "corner_err": None if s is None else round(corner_error(s.corners, t["corners"]), 1)}
                out.write(json.dumps(row, default=float) + "\n")
            # A card named where no card lies (on a hand, on the table) is named wrongly too.
            for k, s in enumerate(sightings):
                if k not in used and s.card is not None:
                    out.write(json.dumps({"set": folder.name, "frame": fr["file"], "truth": None, "clean": False,
                                          "kind": fr["kind"], "card": str(s.card), "wrong": [str(s.card)],
                                          "reason": None}) + "\n")
            out.flush()


def still(out: Path, groups, sessions: int, seed: int, frames: int, camera=None, designs: str = "kde-tuning",
          log=print) -> list:
    """For each kept session (drawn again from the plan, with its kept deck and a fresh
    learnt table): one card lies still while another lies in one of three other places, a
    new one each frame, for ``frames`` frames, every frame read. Returns per session the
    frames in which the still card was named rightly, and named once: ``(first 10, 10-39,
    40 on)``. A card the table model learns as part of the table is lost after a while."""
    from vision.plain import load_deck, recognize_plain
    from vision.plain.background import TableModel
    from vision.synth import compose_scene
    rows = []
    for i, (_dg, _split, _g, s, sub_seed) in enumerate(_plan(groups, sessions, seed, camera, designs)):
        folder = out / f"s{seed}-{i:02d}"
        if not (folder / "deck.npz").exists():
            continue
        deck = load_deck(folder / "deck.npz").prepare()
        rng = np.random.default_rng([sub_seed, 123])
        empty = compose_scene([], size=s.size, rng=rng, **s.conditions())
        table = TableModel()
        for _ in range(EMPTY_FRAMES):
            table.learn(empty.shoot(rng)[0])
        pick = [DECK[int(j)] for j in rng.choice(len(DECK), size=4, replace=False)]
        read = []
        for img, truth in still_sequence(s, rng, pick, frames,
                                         scene_rng=lambda k, base=sub_seed: np.random.default_rng([base, 123, k])):
            poly = np.asarray(truth[0]["corners"], np.float32)
            named = [str(x.card) for x in recognize_plain(img, deck, table=table)
                     if x.card is not None and cv2.pointPolygonTest(poly, tuple(map(float, x.center)), False) >= 0]
            read.append(named == [str(truth[0]["card"])])
        parts = (sum(read[:10]), sum(read[10:40]), sum(read[40:]))
        rows.append({"set": folder.name, "design": s.design, "surface": s.surface, "card": str(truth[0]["card"]),
                     "read": parts, "frames": frames})
        log(f"{folder.name}: {s.design} {s.surface} {s.size[0]}x{s.size[1]} {truth[0]['card']} lying still, "
            f"read in frames 0-9 {parts[0]}/10, 10-39 {parts[1]}/30, 40-{frames - 1} {parts[2]}/{max(0, frames - 40)}")
    return rows


def _reason(r):
    from bench.vision_plain import reason_class
    return "not found" if r["reason"] == "not found" else reason_class(r["reason"])


def summary(path, compare=None) -> None:
    rows = [json.loads(x) for x in open(path)]
    hard = [r for r in rows if r["clean"] and r.get("kind", "play") not in CLEAN_KINDS]
    if hard:
        ok = sum(r["card"] is not None and not r["wrong"] for r in hard)
        print(f"hard frames (glare, overlap, hand), whole cards: {ok}/{len(hard)} = {100 * ok / len(hard):.2f}%")
    clean = [r for r in rows if r["clean"] and r.get("kind", "play") in CLEAN_KINDS]
    by = collections.defaultdict(lambda: [0, 0, 0])
    for r in clean:
        for key in ((r["group"], r["size"]), ("all", "")):
            by[key][0] += 1
            by[key][1] += r["card"] is not None and not r["wrong"]
    wrong = [r for r in rows if r["wrong"]]
    for (g, sz), (n, ok, _) in sorted(by.items()):
        print(f"{g:6s} {sz:9s} {ok}/{n} = {100 * ok / n:.2f}%")
    print(f"wrong: {len(wrong)}", *[f"{r['set']} {r['frame']} {r['wrong']} for {r['truth']}" for r in wrong], sep="\n  ")
    miss = [r for r in clean if r["card"] is None]
    print("clean cards (play and edge frames):")
    print("refusals by reason:", dict(collections.Counter(_reason(r) for r in miss).most_common()))
    for r in miss:
        print(f"  {r['set']} {r['frame']} {r['truth']:>3s} {r['design']:12s} {r['surface']:24s} {r['size']} "
              f"{r['card_px']}px guess {r['guess']} score {r['score'] if r['score'] is None else round(r['score'], 2)} "
              f"again {r['again']} corners off {r['corner_err']}px  {r['reason']}")
    if compare:
        old = {(r["set"], r["frame"], r["truth"]): r for r in map(json.loads, open(compare))}
        new = {(r["set"], r["frame"], r["truth"]): r for r in rows}
        for k in sorted(set(old) | set(new)):
            a, b = old.get(k), new.get(k)
            if a is None or b is None or a["card"] != b["card"]:
                print("changed", k, a and a["card"], a and a["reason"], "->", b and b["card"], b and b["reason"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("dir")
    c.add_argument("--groups", default="cloth,mat", help="tuning surface groups; busy, patterned: the tools' own textures")
    c.add_argument("--sessions", type=int, default=4)
    c.add_argument("--frames", type=int, default=20)
    c.add_argument("--seed", type=int, default=500)
    c.add_argument("--kinds", default="play", help="frame kinds besides play (sessions not yet kept get play frames first); for sessions already kept, frames of kinds not yet kept are added")
    c.add_argument("--camera", choices=TUNING_CAMERAS, help="a tuning camera profile other than the tuning split's own")
    c.add_argument("--designs", default="kde-tuning", choices=TUNING_DESIGN_GROUPS,
                   help="the design group (tuning designs only)")
    c.add_argument("--no-lens", action="store_true",
                   help="the same sessions through a lens without radial distortion (what the lens costs)")
    st = sub.add_parser("still", help="a card lying still while others come and go (the sessions of a collect)")
    st.add_argument("dir")
    st.add_argument("--groups", default="cloth,mat")
    st.add_argument("--sessions", type=int, default=4)
    st.add_argument("--seed", type=int, default=500)
    st.add_argument("--frames", type=int, default=120)
    st.add_argument("--camera", choices=TUNING_CAMERAS)
    st.add_argument("--designs", default="kde-tuning", choices=TUNING_DESIGN_GROUPS)
    r = sub.add_parser("replay")
    r.add_argument("dir")
    r.add_argument("--out", required=True)
    r.add_argument("--only", help="only sets whose name starts so")
    s = sub.add_parser("summary")
    s.add_argument("rows")
    s.add_argument("--compare")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.cmd == "collect":
        kinds = args.kinds.split(",")
        with textures.registered():            # tune:<kind> surfaces
            # Sessions not yet kept are calibrated and given their play frames first; frames
            # of the other kinds asked for are then added to every kept session.
            collect(Path(args.dir), args.groups.split(","), args.sessions, args.frames, args.seed,
                    camera=args.camera, designs=args.designs, no_lens=args.no_lens)
            more = [k for k in kinds if k != "play"]
            if more:
                add_frames(Path(args.dir), args.groups.split(","), args.sessions, args.frames, args.seed, more,
                           camera=args.camera, designs=args.designs, no_lens=args.no_lens)
    elif args.cmd == "still":
        with textures.registered():
            rows = still(Path(args.dir), args.groups.split(","), args.sessions, args.seed, args.frames,
                         camera=args.camera, designs=args.designs)
        late = [r["read"][2] for r in rows]
        print(f"still card read in frames 40 on: {sum(late)}/{sum(max(0, r['frames'] - 40) for r in rows)} "
              f"({sum(x < max(0, r['frames'] - 40) for x, r in zip(late, rows))} of {len(rows)} sessions lost it)")
    elif args.cmd == "replay":
        folders = sorted(p for p in Path(args.dir).iterdir() if (p / "done").exists()
                         and (args.only is None or p.name.startswith(args.only)))
        with open(args.out, "w") as out:
            replay(folders, out)
    else:
        summary(args.rows, args.compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
