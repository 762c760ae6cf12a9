"""Photo mode of the plain-deck benchmark: webcam photos of a home table read through the command line, as a new user would.

For each table (a validation design on a wood, carpet or tile surface, and either a
cheap webcam at 960×540 above it: cards 200–260 px long, washed-out colours, the
webcam's white balance; or a phone held over it at a slant of 5–30°, 1280×960, cards
90–290 px), the user photographs each of the 24 cards alone on that table with that
webcam, runs ``euchre-table calibrate deck --from-dir``, photographs tricks of four
cards and runs ``euchre-table recognize --mode plain --deck ... --json`` on them. The
answers are scored against the truth as in ``bench.vision_plain``. Where the command
refuses to write the deck and names the cards to take again, the user takes those
photos again, once, and runs it again: each table's figures are given both at the first
try and after that retake.

    python -m bench.vision_plain --photo [--tables 6] [--photos 12] [--json out.json]
    python -m bench.vision_photo --keep DIR      # also keep the photos and decks
    python -m bench.vision_plain --photo --designs kde-tuning --splits tuning --seed 300   # tuning only
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from bench import vision_sets as vs
from bench.plain_tuning import textures
from bench.vision_plain import REPORT_SEED, score_frame
from engine.cards import DECK, Card

PHOTO_CAMERAS = {"webcam": (960, 540), "phone": (1280, 960)}
"""The photo mode's cameras and their frame sizes (bench.vision_sets profiles)."""
PHOTO_DESIGNS = vs.VALIDATION_DESIGNS + vs.NPM_DESIGNS
"""The photo mode's designs unless told otherwise: validation and npm designs."""
DESIGN_GROUPS = {"kde-tuning": vs.TUNING_DESIGNS, "kde-validation": vs.VALIDATION_DESIGNS,
                 "npm": vs.NPM_DESIGNS, "pypi": vs.PYPI_DESIGNS,
                 "studied": vs.STUDIED_DESIGNS}
PHOTO_SPLITS = {"tuning": tuple(s for g in ("wood", "cloth", "felt") for s in vs.SURFACES["tuning"][g]),
                "busy": tuple(f"tune:{k}" for k in textures.KINDS),
                "validation": vs.PHOTO_SURFACES}
"""Surfaces of the photo mode by split: the tuning split's tables (no printed mat: a
photo of a home table) and busy surfaces of the tuning tools' own (carpet, grained wood,
a woven mat, terrazzo: bench.plain_tuning.textures), for tuning; the home tables (wood,
carpet, tiles), for validation."""


def euchre_table() -> list:
    """The command a user runs: the venv's ``euchre-table``, else this Python's module."""
    exe = Path(sys.executable).with_name("euchre-table")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "controller.cli"]


def command_env() -> dict:
    """The environment of the commands: this checkout first on the import path, so that
    the code measured is the code the benchmark runs from (a venv's ``euchre-table`` may
    be installed from another checkout)."""
    root = str(Path(__file__).resolve().parent.parent)
    rest = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=root + (os.pathsep + rest if rest else ""))


def photo_tables(n: int, seed: int, cameras=("webcam", "phone"), designs=PHOTO_DESIGNS,
                 splits=("validation",), mixed: bool = True, surfaces=None) -> list:
    """``n`` photo sessions: ``designs`` (default: validation and npm designs) on the
    photo surfaces of ``splits`` (default: validation), or only those of them named in
    ``surfaces``, the cameras taking turns.

    ``mixed``: the order of the designs and of the surfaces is shuffled by the seed, so
    that each seed pairs designs, cameras and surfaces anew; without it (the order of
    earlier runs, kept for tests that rebuild their tables) every seed gives a table the
    same design, surface and camera."""
    rng = np.random.default_rng([seed, 77])
    pool = [(sp, s) for sp in splits for s in PHOTO_SPLITS[sp] if surfaces is None or s in surfaces]
    # A shuffle of its own, so that the sessions' draws from ``rng`` stay as they were.
    mix = np.random.default_rng([seed, 78])
    design_order = mix.permutation(len(designs)) if mixed else None
    surface_order = mix.permutation(len(pool)) if mixed else None
    out = []
    for i in range(n):
        if mixed:
            design = designs[int(design_order[i % len(designs)])]
            split, surface = pool[int(surface_order[(i + i // len(pool)) % len(pool)])]
        else:
            design = designs[(i * 5) % len(designs)]
            split, surface = pool[i % len(pool)]
        camera = cameras[i % len(cameras)]
        s = vs.draw_session(rng, "tuning" if split == "busy" else split, size=PHOTO_CAMERAS[camera], design=design,
                            surface=surface, profile=camera)
        out.append((s, int(rng.integers(1 << 30))))
    return out


def calibration_photos(session, rng):
    """Each card's calibration photo of a table, in the order :func:`run_table` takes
    them, as rendered (before JPEG): ``(card, photo, truth)``."""
    for card in DECK:
        places, _ = vs.frame_placements(session, rng, "alone", cards=[card])
        photo, truth = vs.compose(session, places, rng)
        yield card, photo, truth[0]


_RETAKE_LINE = re.compile(r"^\s*(\S+): (?:taken for|read as) .*take this card again", re.M)
_PHOTO_NAME = re.compile(r"\b([0-9TJQKA]{1,2}[SHDC])\.(?:jpe?g|png|bmp|tiff?|webp)\b", re.I)
_CARD_LIST = re.compile(r"(?:not found whole|larger or smaller than the others)[^:]*: ([^;]*);")


def cards_to_take_again(said: str) -> list:
    """The cards whose photos ``calibrate deck --from-dir`` told the user to take again,
    from what it printed, in the order named: a card taken for another in its check, a
    photo in which no card was found or more than one, or whose face looks cut from a
    wrong outline, a card found at another shape or size than the others."""
    names = _RETAKE_LINE.findall(said) + _PHOTO_NAME.findall(said)
    for listed in _CARD_LIST.findall(said):
        names += [n.split("(")[0].strip() for n in listed.split(",")]
    out = []
    for name in names:
        try:
            card = Card(name)
        except ValueError:
            continue
        if card not in out:
            out.append(card)
    return out


PROGRESS = re.compile(r"(looking for the card in each|looking at each photo again|\s+\d+ of \d+ photos done|"
                      r"checking the deck on)")
"""Lines of ``calibrate deck`` that only say what it is doing: left out of what it said."""


def _said(cal) -> list:
    """The first lines ``calibrate deck`` said (its progress left out)."""
    return [line for line in (cal.stdout + cal.stderr).strip().splitlines() if not PROGRESS.match(line)][:6]


def _calibrate(cal_dir: Path, deck: Path):
    return subprocess.run(euchre_table() + ["calibrate", "deck", "--from-dir", str(cal_dir),
                                            "--out", str(deck)], capture_output=True, text=True, env=command_env())


UPRIGHT = 6
"""EXIF orientation of a photo taken with a phone held upright: the picture is stored as
the sensor sees it (landscape) and marked to be turned a quarter clockwise for display."""


def save_photo(path: Path, img: np.ndarray, upright: bool = False) -> None:
    """Write a photo as JPEG (quality 95); with ``upright``, stored as a phone held upright
    stores it (:data:`UPRIGHT`), so that it is read turned a quarter clockwise."""
    if not upright:
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        return
    from PIL import Image
    exif = Image.Exif()
    exif[0x0112] = UPRIGHT
    Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)).save(path, quality=95, exif=exif)


def unturned(points, size) -> np.ndarray:
    """Points (x, y) of a photo stored :data:`UPRIGHT` as read (turned a quarter clockwise)
    back on the stored picture of ``size`` (width, height).

    >>> unturned([[479, 0]], (640, 480)).tolist()
    [[0.0, 0.0]]
    """
    p = np.asarray(points, float).reshape(-1, 2)
    return np.stack([p[:, 1], size[1] - 1 - p[:, 0]], axis=1)


def run_table(session, rng, photos: int, folder: Path, retake: bool = True, upright: bool = False) -> dict:
    """Photograph, calibrate and recognize through the CLI; returns the table's counts.
    Where the deck is refused with cards named to take again, or made with cards set
    aside, those photos are taken again once (``retake``) and the deck made again:
    ``first_try`` holds the counts had the user stopped there. ``upright``: every photo
    stored as a phone held upright stores it (:func:`save_photo`)."""
    cal_dir = folder / "deck-photos"
    cal_dir.mkdir(parents=True)
    for card, img, _ in calibration_photos(session, rng):
        save_photo(cal_dir / f"{card}.jpg", img, upright)
    deck = folder / "deck.npz"
    cal = _calibrate(cal_dir, deck)
    result = {"camera": session.profile.name, "design": session.design, "surface": session.surface,
              "card_px": round(session.card_px()), "calibrate_exit": cal.returncode,
              "calibrate_said": _said(cal),
              "retaken": [], "in_view": 0, "correct": 0, "refused": 0, "wrong": 0, "wrong_cards": []}
    truths, paths = [], []
    for k in range(photos):
        places, _ = vs.frame_placements(session, rng, "play")
        img, truth = vs.compose(session, places, rng)
        p = folder / f"photo-{k:02d}.jpg"
        save_photo(p, img, upright)
        truths.append(truth)
        paths.append(str(p))
    first_made = deck.is_file()
    # A deck made with cards set aside (not told apart by its check) is read as it is for
    # the first try; those cards' photos are then taken again, as the command asks.
    held = first_made and "cards set aside" in cal.stderr
    first = None
    if held:
        first = {key: 0 for key in ("in_view", "correct", "refused", "wrong")} | {"wrong_cards": []}
        _score_answers(first, session, deck, paths, truths, upright)
        result["first_deck_held"] = True
    # Drawn after the play photos, so that those are the same whether or not a photo is
    # taken again.
    again = np.random.default_rng(int(rng.integers(1 << 30)))
    if (held or not first_made) and retake:
        cards = cards_to_take_again(cal.stdout + cal.stderr)
        for card in cards:
            places, _ = vs.frame_placements(session, again, "alone", cards=[card])
            img, _ = vs.compose(session, places, again)
            save_photo(cal_dir / f"{card}.jpg", img, upright)
        if cards:
            cal = _calibrate(cal_dir, deck)
            result.update(retaken=[str(c) for c in cards], recalibrate_exit=cal.returncode,
                          recalibrate_said=_said(cal))
    result["deck_made"] = deck.is_file()
    if deck.is_file():
        _score_answers(result, session, deck, paths, truths, upright)
    else:
        for truth in truths:
            counts = score_frame([], list(reversed(truth)), session.size)
            result["in_view"] += counts["in_view"]
            result["refused"] += counts["refused"]
        result["note"] = "no deck file: calibration failed"
    # Had the user stopped at a refusal, every card would have gone unread.
    if first is not None:
        result["first_try"] = {k: first[k] for k in ("correct", "refused", "wrong", "wrong_cards")}
    else:
        result["first_try"] = ({k: result[k] for k in ("correct", "refused", "wrong")} if first_made else
                               {"correct": 0, "refused": result["in_view"], "wrong": 0})
    return result


def _score_answers(result: dict, session, deck: Path, paths: list, truths: list, upright: bool = False) -> None:
    """Read the play photos with ``recognize`` and add its answers' counts to ``result``
    (with ``upright``, the answers' corners are brought back onto the stored pictures)."""
    rec = subprocess.run(euchre_table() + ["recognize", "--mode", "plain", "--deck", str(deck),
                                           "--json"] + paths, capture_output=True, text=True, env=command_env())
    answers = {}
    for line in rec.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        answers[obj.get("image")] = obj.get("cards", [])
    result["recognize_exit"] = rec.returncode
    for p, truth in zip(paths, truths):
        sightings = [{"card": Card(c["card"]) if c.get("card") else None,
                      "centre": tuple((unturned(c["corners"], session.size) if upright else
                                       np.asarray(c["corners"], float).reshape(-1, 2)).mean(axis=0)),
                      "reason": None} for c in answers.get(p, [])]
        counts = score_frame(sightings, list(reversed(truth)), session.size)
        for key in ("in_view", "correct", "refused", "wrong"):
            result[key] += counts[key]
        result["wrong_cards"] += counts["wrong_cards"]


def said_lines(r: dict) -> list:
    """What to print under a table's line: the first lines the calibration said, the cards
    taken again and what it said then, and any card named wrongly with the first deck."""
    out = [f"calibrate: {said}" for said in r["calibrate_said"][:3]]
    if r.get("first_try", {}).get("wrong_cards"):
        out.append(f"with the first deck (cards set aside): wrong {', '.join(r['first_try']['wrong_cards'])}")
    if r.get("retaken"):
        out.append(f"took {' '.join(r['retaken'])} again: calibrate exit {r['recalibrate_exit']}")
        out += [f"calibrate: {said}" for said in r["recalibrate_said"][:2] if r["recalibrate_exit"]]
    return out


def run_photo(tables: int, photos: int, seed: int = REPORT_SEED, json_out=None, keep=None,
              cameras=("webcam", "phone"), designs=PHOTO_DESIGNS, splits=("validation",), upright=False,
              surfaces=None) -> int:
    cv2.setNumThreads(1)
    base = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="euchre-photo-"))
    rows = []
    busy = textures.registered()      # the tuning tools' own surfaces (tune:<kind>)
    busy.__enter__()
    try:
        print(f"photo mode, seed {seed}: {tables} tables ({', '.join(cameras)} taking turns), 24 "
              f"calibration photos and {photos} photos of four cards each, through the command line"
              + (", every photo stored as a phone held upright stores it (EXIF orientation 6)" if upright else ""),
              flush=True)
        for i, (session, sub) in enumerate(photo_tables(tables, seed, cameras, designs, splits, surfaces=surfaces)):
            rng = np.random.default_rng(sub)
            r = run_table(session, rng, photos, base / f"table-{i:02d}", upright=upright)
            rows.append(r)
            n = max(1, r["in_view"])
            print(f"  {r['camera']:6s} {session.size[0]}x{session.size[1]} {r['design']:22s} "
                  f"{r['surface']:18s} card {r['card_px']}px  calibrate exit "
                  f"{r['calibrate_exit']}  cards {r['in_view']:3d}  correct {100 * r['correct'] / n:6.2f}%  "
                  f"refused {r['refused']:3d}  wrong {r['wrong']}"
                  + (f"  {r['wrong_cards']}" if r["wrong_cards"] else ""), flush=True)
            for line in said_lines(r):
                print(f"      {line}")
        n = sum(r["in_view"] for r in rows)
        c = sum(r["correct"] for r in rows)
        w = sum(r["wrong"] for r in rows)
        for cam in cameras:
            sub = [r for r in rows if r["camera"] == cam]
            cn = sum(r["in_view"] for r in sub)
            print(f"{cam}: {cn} whole cards, correct {100 * sum(r['correct'] for r in sub) / max(1, cn):.2f}%, "
                  f"refused {sum(r['refused'] for r in sub)}, wrong {sum(r['wrong'] for r in sub)}; "
                  f"at the first try {100 * sum(r['first_try']['correct'] for r in sub) / max(1, cn):.2f}%")
        made = sum(r["calibrate_exit"] == 0 for r in rows)
        held = sum(bool(r.get("first_deck_held")) for r in rows)
        print(f"all: {n} whole cards in {tables * photos} photos, correct {100 * c / max(1, n):.2f}%, "
              f"refused {sum(r['refused'] for r in rows)}, wrong {w}; decks made {made} of {len(rows)} "
              f"at the first try ({held} with cards set aside), {sum(r['deck_made'] for r in rows)} after "
              f"taking the cards named again "
              f"(first try: correct {100 * sum(r['first_try']['correct'] for r in rows) / max(1, n):.2f}%, "
              f"wrong {sum(r['first_try']['wrong'] for r in rows)})")
        if json_out:
            with open(json_out, "w") as f:
                json.dump({"seed": seed, "tables": rows}, f, indent=1)
        return 1 if w else 0
    finally:
        busy.__exit__(None, None, None)
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--photos", type=int, default=12)
    ap.add_argument("--seed", type=int, default=REPORT_SEED)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--keep", metavar="DIR", help="keep the photos, decks and answers here")
    ap.add_argument("--cameras", default="webcam,phone", help="webcam, phone or both (taking turns)")
    ap.add_argument("--designs", help="design groups (kde-tuning, kde-validation, npm, pypi, studied); "
                    "default: kde-validation,npm")
    ap.add_argument("--splits", default="validation",
                    help="surface splits: tuning (cloth, felt, oak), busy (tuning: carpet, grain, sisal, "
                    "terrazzo of our own) or validation (home tables)")
    ap.add_argument("--surfaces", help="only these surfaces of the splits chosen (e.g. tiles:marble,tiles:ceramic)")
    ap.add_argument("--upright", action="store_true",
                    help="store every photo as a phone held upright does (turned a quarter when read, by its EXIF "
                    "orientation)")
    args = ap.parse_args(argv)
    try:
        designs, splits = photo_choice(args.designs, args.splits)
        surfaces = surface_choice(args.surfaces, splits)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.keep and os.path.exists(args.keep) and os.listdir(args.keep):
        print(f"--keep {args.keep}: the folder is not empty; give a new one", file=sys.stderr)
        return 2
    cameras = tuple(c for c in args.cameras.split(",") if c)
    bad = [c for c in cameras if c not in PHOTO_CAMERAS]
    if bad or not cameras:
        print(f"--cameras {args.cameras}: choose from {', '.join(PHOTO_CAMERAS)}", file=sys.stderr)
        return 2
    return run_photo(args.tables, args.photos, args.seed, args.json, args.keep, cameras, designs, splits,
                     args.upright, surfaces)


def photo_choice(design_groups, split_names) -> tuple:
    """(designs, splits) of the photo mode from comma-separated names; ValueError names a
    wrong one. ``design_groups`` None: the validation and npm designs."""
    if design_groups is None:
        designs = PHOTO_DESIGNS
    else:
        groups = [g for g in design_groups.split(",") if g]
        bad = [g for g in groups if g not in DESIGN_GROUPS]
        if bad or not groups:
            raise ValueError(f"--designs {design_groups}: choose from {', '.join(DESIGN_GROUPS)}")
        designs = tuple(d for g in groups for d in DESIGN_GROUPS[g])
    splits = tuple(s for s in split_names.split(",") if s)
    bad = [s for s in splits if s not in PHOTO_SPLITS]
    if bad or not splits:
        raise ValueError(f"--splits {split_names}: choose from {', '.join(PHOTO_SPLITS)}")
    return designs, splits


def surface_choice(names, splits) -> Optional[tuple]:
    """The surfaces named (comma-separated) among those of ``splits``, or None for all of
    them; ValueError names one that is not.

    >>> surface_choice("tiles:marble", ("validation",))
    ('tiles:marble',)
    >>> surface_choice("tune:slate", ("validation",))
    Traceback (most recent call last):
    ValueError: --surfaces tune:slate: choose from wood:walnut:satin, wood:pine:matte, wood:cherry:gloss, wood:maple:satin, carpet:loop, carpet:shag, tiles:ceramic, tiles:marble
    """
    if names is None:
        return None
    known = [s for sp in splits for s in PHOTO_SPLITS[sp]]
    chosen = tuple(n for n in names.split(",") if n)
    if not chosen or any(n not in known for n in chosen):
        raise ValueError(f"--surfaces {names}: choose from {', '.join(known)}")
    return chosen


if __name__ == "__main__":
    sys.exit(main())
