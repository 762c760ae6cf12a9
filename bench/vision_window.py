"""Benchmark of the reader window: a card laid face down on a clear plate, read from below, in sticker and plain mode: correct / refused / wrong and ms per frame.

Frames come from ``vision.synth_window``: the card anywhere in the guide's opening,
either way up and a few degrees off, tilted (one edge lifted) in about a third of the
frames, a close camera with barrel distortion and vignetting, uneven and tinted LED
light, specular glare on half the frames, faint reflections of the box in the plate,
scratches, dust and fingerprint haze on the plate, light leaking under the hood now and
then, focus blur, sensor noise and JPEG.

In plain mode the deck is first calibrated *through the reader camera*, as a player
would: ``vision.deck_calibration.calibrate_live`` watches clean reader frames while each
card is laid on the plate in turn (the hood on, no glare). One reader in one sitting: its
camera, plate, hood and LEDs stay as they are; the room's light leaking in under the hood
changes its level with every card and its pattern now and then (``ROOM_MOVES``), as a
room's does.

    python -m bench.vision_window                                 # report seeds, all designs
    python -m bench.vision_window --decks standard --frames 20    # quick
    python -m bench.vision_window --designs kde-tuning --seed 300   # tuning designs only
    python -m bench.vision_window --modes sticker --json out.json

A frame holds one card; *correct* = that card named, *refused* = nothing named,
*wrong* = any other card named; one frame in ten shows the empty window, where any
card named is wrong too. Reading is timed on one core (``cv2.setNumThreads(1)``,
CPU time). Exits 1 when any card is named wrongly.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import cv2
import numpy as np

from bench.vision_sets import TUNING_DESIGNS, VALIDATION_DESIGNS
from engine.cards import DECK
from vision import art
from vision.recognize import recognize
from vision.synth_window import (compose_window_frame, random_window_conditions, sensor,
                                 window_of, window_scene)
from vision.tracker import ReaderTracker
from vision.zones import ReaderWindow

DESIGN_GROUPS = {"kde-tuning": TUNING_DESIGNS, "kde-validation": VALIDATION_DESIGNS}
"""Design groups of ``--designs`` (bench.vision_sets' split of the KDE designs)."""

ROOM_MOVES = 0.3
"""Chance, from one card of a calibration to the next, that the room's light through the
reader's opening takes another pattern (someone moving near the reader); its level
changes with every card."""

REPORT_SEED = 1000
"""Seeds from here on are for reporting; the renderer's ranges were set on seeds below 1000."""


def calibrate_through_reader(design: str, rng, size=(640, 480), frames_per_card: int = 8,
                             tries: int = 5):
    """A plain deck calibrated from the reader camera's frames: each card laid on the
    plate in turn, then taken away (clean conditions: the hood on, no glare). A card the
    calibration does not take is laid again (another place in the guide), as a player
    would; returns ``(deck, relays)``, relays being the number of cards laid more than
    once, and deck None when the calibration failed (it says why)."""
    from vision.deck_calibration import EMPTY_FRAMES, calibrate_live
    from vision.plain.calibration import CalibrationError
    asked = {"card": None, "relays": 0}

    def announce(text):
        asked["card"] = next(c for c in DECK if f"({c})" in text)

    def sitting():
        """The room's light leaking under the hood for the next card: its level changes
        from card to card (a lamp switched on or off, a cloud), its pattern of blotches
        now and then (someone moving near the reader)."""
        if rng.random() < ROOM_MOVES:
            room["room_seed"] = int(rng.integers(1 << 31))
        return dict(reader, room=float(rng.uniform(0.0, 0.12)), room_seed=room["room_seed"])

    # One reader, one sitting: its camera, plate, hood and LEDs stay as they are through
    # the calibration; only the room's light leaking under the hood changes.
    reader = dict(random_window_conditions(rng, clean=True), hood=float(rng.uniform(0.5, 1.0)))
    room = {"room_seed": int(rng.integers(1 << 31))}

    def frames():
        # The empty window first: the calibration learns it before it asks for a card.
        cond = sitting()
        empty, _ = compose_window_frame(None, size=size, rng=rng, deck=design, **cond)
        for _ in range(EMPTY_FRAMES + 1):
            yield empty
        laid = {}
        while asked["card"] is not None:
            card = asked["card"]
            laid[card] = laid.get(card, 0) + 1
            if laid[card] > tries:
                return                      # the calibration stops: the camera "ended"
            if laid[card] == 2:
                asked["relays"] += 1
            cond = sitting()
            # The window is seen empty before each card is laid (the last one taken away).
            empty, _ = compose_window_frame(None, size=size, rng=rng, deck=design, **cond)
            for _ in range(2):
                yield empty
            still, _ = compose_window_frame(card, size=size, rng=rng, deck=design, sticker=False, **cond)
            for _ in range(frames_per_card):
                yield still
    # calibrate_live learns the empty window, then asks for the first card.
    try:
        deck, _faces = calibrate_live(frames(), announce=announce, name=design)
    except CalibrationError as exc:
        # As a player would be told: the deck is not written; its cards count as refused.
        print(f"  {design}: the calibration through the reader failed: {exc}", flush=True)
        return None, asked["relays"]
    return deck, asked["relays"]


def _stay(card, cond, frame_seed, design, mode, deck, decoder, size, masked, episode, k):
    """A card lying still while the reader camera takes ``episode`` frames (the scene once,
    then each frame with its own sensor noise and JPEG): the reader tracker's events, the
    first frame's sightings and its CPU ms."""
    scene, truth = window_scene(card, size=size, rng=frame_seed, deck=design,
                                sticker=(mode == "sticker"), **cond)
    window = ReaderWindow(window_of(truth, size) if masked else (0.0, 0.0, 1.0, 1.0))
    zones = window.for_frame(scene)
    tracker = ReaderTracker(k=k, m=2)
    noise_rng = np.random.default_rng(frame_seed)
    events, first, first_ms = [], None, None
    for _ in range(episode):
        img = sensor(scene, noise_rng, cond.get("noise", 0.0), cond.get("jpeg"))
        t0 = time.process_time()
        found = recognize(window.mask(img), mode=mode, deck=deck, decoder=decoder, zones=zones,
                          refusals=True)
        ms = (time.process_time() - t0) * 1e3
        if first is None:
            first, first_ms = found, ms
        events += tracker.update(found)
    return events, first, first_ms


def _count_episode(r: dict, card, events) -> None:
    """The table's view: what the reader tracker made of a card's stay on the plate."""
    reads = [e["card"] for e in events if e["type"] == "read"]
    key = "episodes_empty" if card is None else "episodes"
    r[key] = r.get(key, 0) + 1
    if card is not None and reads == [str(card)]:
        r["episodes_read"] = r.get("episodes_read", 0) + 1
    elif any(x != (str(card) if card is not None else None) for x in reads):
        r["episodes_wrong"] = r.get("episodes_wrong", 0) + 1
    else:
        r["episodes_refused"] = r.get("episodes_refused", 0) + (card is not None)


def run_design(design: str, modes, frames: int, seed: int, size=(640, 480), decoder="zxing",
               masked: bool = True, episode: int = 6, k: int = 3, build: str = "any"):
    """Counts and timings for one KDE design: ``{mode: {...}}``."""
    rng = np.random.default_rng([seed, sum(map(ord, design))])
    # The calibration draws from its own stream: the frames read afterwards are the same
    # however many frames it took, and with or without it (sticker mode alone).
    cal_rng = np.random.default_rng([seed, sum(map(ord, design)), 1])
    deck, relays = calibrate_through_reader(design, cal_rng, size) if "plain" in modes else (None, 0)
    out = {m: {"calibration_relays": relays, "calibration_failed": m == "plain" and deck is None, "frames": 0, "correct": 0, "refused": 0, "wrong": 0, "wrong_cases": [],
               "ms": [], "tilted": 0, "tilted_correct": 0, "glare": 0, "glare_correct": 0}
           for m in modes}
    for m in modes:
        out[m].update(empty=0, empty_named=0)
    for _ in range(frames):
        # One frame in ten shows the empty window (the card taken into the rack): it must
        # never be read as a card.
        card = DECK[int(rng.integers(len(DECK)))] if rng.random() >= 0.1 else None
        cond = random_window_conditions(rng, build=build)
        frame_seed = int(rng.integers(1 << 31))
        # If the table asks for the card again, the dealer lays it again: another turn
        # and place in the guide (and so another place under the reader's glare).
        again = dict(cond, card_turn=float(rng.uniform(-5, 5)) + (180.0 if rng.random() < 0.5 else 0.0),
                     card_shift_mm=tuple(map(float, rng.uniform(-2.5, 2.5, 2))))
        again_seed = int(rng.integers(1 << 31))
        for mode in modes:
            if mode == "plain" and deck is None:
                # No deck: the table cannot read this card (refused), nor name a wrong one.
                r = out[mode]
                if card is None:
                    r["empty"] += 1
                else:
                    r["frames"] += 1
                    r["refused"] += 1
                continue
            events, first, ms = _stay(card, cond, frame_seed, design, mode, deck, decoder, size,
                                      masked, episode, k)
            out[mode]["ms"].append(ms)
            _count_episode(out[mode], card, events)
            if card is not None and [e["card"] for e in events if e["type"] == "read"] != [str(card)]:
                events2, _, _ = _stay(card, again, again_seed, design, mode, deck, decoder, size,
                                      masked, episode, k)
                reads = [e["card"] for e in events2 if e["type"] == "read"]
                r = out[mode]
                r["second_lay_read"] = r.get("second_lay_read", 0) + (reads == [str(card)])
                r["second_lay_wrong"] = r.get("second_lay_wrong", 0) + any(x != str(card) for x in reads)
            found = first
            named = [s["card"] for s in found if s["card"]]
            r = out[mode]
            if card is None:
                r["empty"] += 1
                if named:
                    r["empty_named"] += 1
                    r["wrong"] += 1
                    r["wrong_cases"].append({"card": None, "named": named, "seed": frame_seed,
                                             "conditions": cond})
                continue
            r["frames"] += 1
            ok = str(card) in named
            r["correct"] += ok
            r["refused"] += not named
            if any(n != str(card) for n in named):
                r["wrong"] += 1
                r["wrong_cases"].append({"card": str(card), "named": named, "seed": frame_seed,
                                         "conditions": cond})
            if cond.get("tilt"):
                r["tilted"] += 1
                r["tilted_correct"] += ok
            if cond.get("glare"):
                r["glare"] += 1
                r["glare_correct"] += ok
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=100, help="frames per design and mode")
    p.add_argument("--decks", default=None,
                   help="comma-separated KDE designs (default: those with an English index)")
    p.add_argument("--designs", default=None, choices=sorted(DESIGN_GROUPS),
                   help="only the installed English-index designs of this group (kde-tuning: "
                        "those the reader may be tuned on; kde-validation: the others)")
    p.add_argument("--modes", default="sticker,plain")
    p.add_argument("--seed", type=int, default=REPORT_SEED)
    p.add_argument("--size", default="640x480")
    p.add_argument("--decoder", default="zxing", choices=["zxing", "zbar"])
    p.add_argument("--json", metavar="FILE", help="write every count and median to FILE")
    p.add_argument("--build", default="any", choices=["any", "recommended"],
                   help="any: every fault (glare, reflections, light leaks); recommended: the "
                        "reader built with crossed polarizers and its hood closed")
    p.add_argument("--episode", type=int, default=6,
                   help="frames the reader takes of each card lying still (the table's view)")
    p.add_argument("--whole-frame", action="store_true",
                   help="read the whole frame (no reader window set): outside the guide's "
                        "opening is not painted over")
    args = p.parse_args(argv)
    if not art.art_available():
        print("bench.vision_window: the KDE card art is missing: run `make setup`", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    w, h = (int(v) for v in args.size.lower().split("x"))
    modes = [m for m in args.modes.split(",") if m]
    decks = args.decks.split(",") if args.decks else art.english_index_decks()
    if args.designs:
        decks = [d for d in decks if d in DESIGN_GROUPS[args.designs]]
        if not decks:
            print(f"bench.vision_window: no installed design of {args.designs} among "
                  f"{', '.join(args.decks.split(',')) if args.decks else 'the English-index designs'}",
                  file=sys.stderr)
            return 2
    results, totals = {}, {m: {"frames": 0, "correct": 0, "refused": 0, "wrong": 0} for m in modes}
    print(f"reader window, {w}x{h}, seed {args.seed}, {args.frames} frames per design and mode, "
          f"build {args.build}")
    for design in decks:
        res = run_design(design, modes, args.frames, args.seed, (w, h), args.decoder,
                         masked=not args.whole_frame, episode=args.episode, build=args.build)
        results[design] = res
        line = [f"{design:<24}"]
        for m in modes:
            r = res[m]
            for k in ("frames", "correct", "refused", "wrong"):
                totals[m][k] += r[k]
            ms = f"{statistics.median(r['ms']):.1f} ms" if r["ms"] else "calibration FAILED"
            line.append(f"{m}: {r['correct']}/{r['frames']} correct, {r['refused']} refused, "
                        f"{r['wrong']} wrong, {ms}")
        if "plain" in modes and res["plain"]["calibration_relays"]:
            line.append(f"(calibration: {res['plain']['calibration_relays']} card(s) laid again)")
        print("  ".join(line), flush=True)
        for m in modes:
            for case in res[m]["wrong_cases"]:
                print(f"    WRONG ({m}): {case['card']} named {case['named']} (frame seed "
                      f"{case['seed']})", flush=True)
    for m in modes:
        ep = {k: sum(results[d][m].get(k, 0) for d in decks)
              for k in ("episodes", "episodes_read", "episodes_refused", "episodes_wrong",
                        "episodes_empty", "second_lay_read", "second_lay_wrong")}
        totals[m]["episodes"] = ep
        print(f"TOTAL {m}, per card as the table deals it ({args.episode} frames on the plate, "
              f"k = 3 agreeing): {ep['episodes_read']}/{ep['episodes']} read at the first lay, "
              f"{ep['episodes_refused']} asked to lay again, {ep['episodes_wrong']} wrong; "
              f"read at the second lay {ep['second_lay_read']} more "
              f"({ep['second_lay_wrong']} wrong); the empty window shown "
              f"{ep['episodes_empty']} times")
    for m in modes:
        t = totals[m]
        medians = [statistics.median(results[d][m]["ms"]) for d in decks if results[d][m]["ms"]] or [0.0]
        failed = [d for d in decks if results[d][m].get("calibration_failed")]
        tilted = sum(results[d][m]["tilted"] for d in decks)
        tilted_ok = sum(results[d][m]["tilted_correct"] for d in decks)
        glare = sum(results[d][m]["glare"] for d in decks)
        glare_ok = sum(results[d][m]["glare_correct"] for d in decks)
        print(f"TOTAL {m}: {t['correct']}/{t['frames']} correct ({100 * t['correct'] / max(1, t['frames']):.2f}%), "
              f"{t['refused']} refused, {t['wrong']} wrong; tilted {tilted_ok}/{tilted}, "
              f"glare {glare_ok}/{glare}; CPU ms per frame, median of designs "
              f"{statistics.median(medians):.1f}"
              + (f"; calibration failed for {', '.join(failed)}" if failed else ""))
    if args.json:
        for d in results.values():
            for r in d.values():
                r["ms_median"] = statistics.median(r["ms"]) if r["ms"] else None
                del r["ms"]
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "size": [w, h], "frames": args.frames,
                       "totals": totals, "designs": results}, f, indent=1, default=str)
    return 1 if any(t["wrong"] or t["episodes"]["episodes_wrong"] or t["episodes"]["second_lay_wrong"]
                    for t in totals.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
