"""Benchmark of plain-deck reading on tables closer to real ones: per design group and surface group, cards read, refused and wrong, refusal reasons, and CPU ms per frame.

Sessions (bench.vision_sets): one design on one table under one camera and lamp. The
deck is calibrated by ONE LIVE CALIBRATION PASS through that camera
(``vision.deck_calibration.calibrate_live`` fed with rendered frames of each card
lying alone on the same table, shown when the reader asks for it), then frames of the
same table are read: the trick of four cards apart (``play``), a card cut by the
frame's edge (``edge``), and, reported apart, a hand and arm over or beside a card
(``hand``), cards partly on each other (``overlap``) and a lamp's glare (``glare``);
asked for (``--kinds ...,still``), a card lying still while others come and go beside it
(``still``: 50 frames, each read, the last scored).

Design groups: KDE tuning designs, KDE validation designs, npm designs and PyPI designs (validation);
for tuning also the generated designs (``generated``: vision.generated_decks), the
tuning designs in four colours (``kde-tuning-4color``) and the designs once kept for
validation and studied since (``studied``: ``bench.vision_sets.STUDIED_DESIGNS``).
Surface groups: the tuning and the validation split's surfaces (cloth, felt, wood,
printed mat, the older all-white mat; patterned cloth and carpet/tiles in validation
only), each with the split's camera profile.

    python -m bench.vision_plain --quick                 # one session per cell: 48 sessions, 16-30 min
    python -m bench.vision_plain                         # the report run
    python -m bench.vision_plain --designs kde-tuning --splits tuning --json out.json
    python -m bench.vision_plain --photo                 # webcam photos through the CLI
    python -m bench.vision_plain --classic [--decks ...] # the older benchmark (bench.vision_plain_classic)

Counting: a card *in view* lies wholly inside the frame with at least 90% of it
visible and no hand over it; it is *correct* when a sighting on it names it,
*refused* when none does. *wrong* counts every named card that is not the card under
the sighting's centre, anywhere in the frame (covered and cut cards included, and
cards named where none lies). Exit status 1 when any card was named wrongly.
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import statistics
import sys
import time
from typing import Callable, Optional

import cv2
import numpy as np

from bench import vision_sets as vs
from engine.cards import DECK, Card

REPORT_SEED = 1000
"""Seeds from here on are for reporting."""

DESIGN_GROUPS = {"kde-tuning": vs.TUNING_DESIGNS, "kde-validation": vs.VALIDATION_DESIGNS,
                 "npm": vs.NPM_DESIGNS, "kde-tuning-4color": vs.TUNING_FOUR_COLOUR,
                 "generated": vs.GENERATED_DESIGNS, "pypi": vs.PYPI_DESIGNS,
                 "studied": vs.STUDIED_DESIGNS}
SIZES = ((640, 480), (1280, 720))
CLEAN_KINDS = ("play", "edge")
STILL_KIND = "still"
"""A kind of its own (``--kinds ...,still``): one card lies still while another lies
beside it in one of three places, a new one each frame, for ``STILL_FRAMES`` frames, each
read with the session's one learnt table; the last frame is scored. A reader that learns
a card lying still as part of the table loses it there."""
STILL_FRAMES = 50


# ---------------------------------------------------------------- the reader under test
def reader_for(deck, empty_frames=()) -> Callable:
    """A frame → sightings callable for a calibrated deck. Sightings are normalised to
    dicts ``{"card": Card | None, "centre": (x, y), "reason": str | None}``.
    ``empty_frames`` are frames of the session's empty table, as the camera sees it
    before a hand (for a reader that learns the table; the current one does not).
    (The one place to change when the reader's interface changes.)

    When the reader has a model of the empty table (``vision.plain.background.TableModel``,
    passed to ``recognize_plain`` as ``table``, as the service does), it learns the
    session's empty table from ``empty_frames`` first; otherwise frames are read alone."""
    from vision.plain import recognize_plain
    table = None
    try:
        from vision.plain.background import TableModel
    except ImportError:
        TableModel = None
    if TableModel is not None and len(empty_frames):
        if hasattr(deck, "prepare"):
            deck.prepare()           # as the service does at start
        table = TableModel()
        for f in empty_frames:
            table.learn(f)

    def read(frame):
        found = recognize_plain(frame, deck) if table is None else recognize_plain(frame, deck, table=table)
        return [_sighting(s) for s in found]
    return read


def taken_before_failing(error: Optional[str], messages) -> int:
    """How many cards a failed calibration pass had taken: as its error says ("(3 of 24
    cards taken)"), else one fewer than the cards it asked for (a request to move a card
    or to show it again is no new card).

    >>> said = ["show the nine of spades (9S) alone, face up"] + 3 * [
    ...     "the nine of spades (9S) is not seen clearly there: move it a little, alone, face up"]
    >>> taken_before_failing(None, said), taken_before_failing("... (0 of 24 cards taken)", said)
    (0, 0)
    """
    said = re.search(r"\((\d+) of \d+ cards taken\)", error or "")
    if said:
        return int(said.group(1))
    asked = {vs.card_asked(m) for m in messages if m.startswith("show the ")} - {None}
    return max(0, len(asked) - 1)


def calibrate_through_camera(session, rng, cards=DECK, stable: int = 5):
    """One live calibration pass: ``(deck or None, report)``."""
    from vision.deck_calibration import CalibrationError, calibrate_live
    cam = vs.LiveCalibration(session, rng, cards=cards)
    t0 = time.process_time()
    try:
        deck, faces = calibrate_live(cam, announce=cam.announce, stable=stable,
                                     name=session.design, cards=cards)
        error = None
    except (CalibrationError, ValueError, RuntimeError) as exc:
        deck, faces, error = None, {}, str(exc)
    taken = len(faces) if deck is not None else taken_before_failing(error, cam.messages)
    read_back = len(deck.check["ok"]) if deck is not None and getattr(deck, "check", None) else None
    return deck, {"ok": deck is not None, "error": error, "cards_taken": taken, "read_back": read_back,
                  "held": [str(c) for c in deck.held] if deck is not None else [],
                  "said": list(cam.messages), "asked": len(cam.messages), "frames": cam.frames, "cpu_s": round(time.process_time() - t0, 2)}


def _sighting(s) -> dict:
    get = s.get if isinstance(s, dict) else (lambda k, d=None: getattr(s, k, d))
    corners = np.asarray(get("corners"), float).reshape(-1, 2)
    card = get("card")
    return {"card": Card(card) if card is not None else None,
            "centre": tuple(corners.mean(axis=0)) if len(corners) else (-1.0, -1.0),
            "reason": get("reason"), "corners": corners if len(corners) == 4 else None}


# ---------------------------------------------------------------- scoring
REASONS = (("not clearly told", "not told from a close card"), ("scores", "score below min_score"),
           ("differs in colour", "covered (colour)"), ("part of the card differs", "covered (grey)"),
           ("wins the close look", "ink colour disagrees"), ("not one clean card", "not one clean card"),
           ("not the shape", "not the deck's shape"), ("smaller than the other cards", "part of a card (small)"),
           ("ruled out by the ink", "ink colour rules it out"))


def reason_class(reason) -> str:
    """A refusal's reason in a few words (the reader's reason without card names).
    Also takes a list of sightings (objects with ``.reason``), as the older benchmark
    did: the first one's reason, "not found" for none."""
    if isinstance(reason, (list, tuple)):
        if not reason:
            return "not found"
        reason = getattr(reason[0], "reason", None) or "unknown"
    if reason is None:
        return "not found"
    return next((label for key, label in REASONS if key in reason), reason[:40])


def in_full_view(corners, size) -> bool:
    w, h = size
    c = np.asarray(corners, float)
    return bool(np.all(c >= 0) and np.all(c[:, 0] <= w - 1) and np.all(c[:, 1] <= h - 1))


def score_frame(sightings, truth, size) -> dict:
    """Counts for one frame (see the module's doc): ``in_view``, ``correct``,
    ``refused``, ``wrong``, ``covered_named`` (cards under a hand or another card that
    were named, rightly), ``reasons`` (a Counter of refusals), ``wrong_cards``."""
    out = {"in_view": 0, "correct": 0, "refused": 0, "wrong": 0, "covered": 0,
           "covered_named": 0, "reasons": collections.Counter(), "wrong_cards": []}
    judged = sightings_of(sightings, truth)
    used = {k for on in judged for k in on}
    for t, on in zip(truth, judged):
        named = [sightings[k]["card"] for k in on if sightings[k]["card"] is not None]
        bad = [c for c in named if c != t["card"]]
        if bad:
            out["wrong"] += len(bad)
            out["wrong_cards"] += [f"{c} for {t['card']}" for c in bad]
        visible = t.get("card_visible", 1.0) >= 0.9 and not t.get("covered_by_hand")
        if not visible or not in_full_view(t["corners"], size):
            out["covered"] += 1
            out["covered_named"] += bool(named) and not bad
            continue
        out["in_view"] += 1
        if named and not bad:
            out["correct"] += 1
        elif not named:
            out["refused"] += 1
            reasons = [sightings[k]["reason"] for k in on]
            out["reasons"][reason_class(reasons[0] if reasons else None)] += 1
    extra = [s for k, s in enumerate(sightings) if k not in used and s["card"] is not None]
    out["wrong"] += len(extra)
    out["wrong_cards"] += [f"{s['card']} where no card lies" for s in extra]
    return out


def sightings_of(sightings, truth) -> list:
    """For each card of ``truth`` (top card first), the indices of the ``sightings`` (dicts
    with ``centre`` and, where known, ``corners``) judged to be of it: a sighting whose
    corners are a card's (``OWN_OUTLINE``) is that card's (a card partly under another,
    found by its own outline, whose centre the other covers); any other is the top card's
    under its centre. Each sighting is judged once."""
    own = {k: i for k, s in enumerate(sightings) if (i := _outline_of(s, truth)) is not None}
    used: set = set()
    judged = []
    for i, t in enumerate(truth):
        poly = np.asarray(t["corners"], np.float32)
        on = [k for k, s in enumerate(sightings) if k not in used and (own.get(k) == i or (
            k not in own and cv2.pointPolygonTest(poly, tuple(map(float, s["centre"])), False) >= 0))]
        used.update(on)
        judged.append(on)
    return judged


OWN_OUTLINE = 0.1
"""A sighting whose corners lie within this share of a card's long side of that card's
corners is that card's sighting, wherever its centre lies."""


def _outline_of(sighting, truth) -> Optional[int]:
    """The index of the card in ``truth`` whose outline the sighting's corners are (see
    ``OWN_OUTLINE``), or None."""
    corners = sighting.get("corners")
    if corners is None:
        return None
    best, found = np.inf, None
    for i, t in enumerate(truth):
        q = np.asarray(t["corners"], float)
        long_side = max(np.hypot(*(q[j] - q[(j + 1) % 4])) for j in range(4))
        err = corner_error(corners, q)
        if err <= OWN_OUTLINE * long_side and err < best:
            best, found = err, i
    return found


def corner_error(found, truth) -> float:
    """Largest distance (px) between a found outline's corners and the true ones, in the
    cyclic order (either way round) that fits best."""
    f, t = np.asarray(found, float), np.asarray(truth, float)
    return min(float(np.hypot(*(np.roll(g, k, axis=0) - t).T).max()) for g in (f, f[::-1]) for k in range(4))


def _ordered_truth(truth):
    # Later placements lie on top: test them first, so a sighting goes to the top card.
    return list(reversed(truth))


class Tally:
    """Counts of one cell of the report."""

    def __init__(self):
        self.n = collections.Counter()
        self.reasons = collections.Counter()
        self.wrong_cards = []
        self.ms = {s: [] for s in SIZES}
        self.sessions = set()
        self.calibration_failed = set()

    def add(self, counts, calibrated: bool = True):
        for k in ("in_view", "correct", "refused", "wrong", "covered", "covered_named"):
            self.n[k] += counts[k]
        if calibrated:
            self.n["cal_in_view"] += counts["in_view"]
            self.n["cal_correct"] += counts["correct"]
        self.reasons.update(counts["reasons"])
        self.wrong_cards += counts["wrong_cards"]

    def merge(self, other):
        self.n.update(other.n)
        self.reasons.update(other.reasons)
        self.wrong_cards += other.wrong_cards
        for s in self.ms:
            self.ms[s] += other.ms.get(s, [])
        self.sessions |= other.sessions
        self.calibration_failed |= other.calibration_failed

    def row(self) -> dict:
        n = self.n["in_view"]
        return {"sessions": len(self.sessions), "calibration_failed": len(self.calibration_failed),
                "cards_in_view": n, "correct": self.n["correct"], "refused": self.n["refused"],
                "wrong": self.n["wrong"],
                "correct_pct": round(100 * self.n["correct"] / n, 2) if n else None,
                "correct_pct_calibrated": (round(100 * self.n["cal_correct"] / self.n["cal_in_view"], 2)
                                           if self.n["cal_in_view"] else None),
                "covered_named": f"{self.n['covered_named']}/{self.n['covered']}",
                "reasons": dict(self.reasons.most_common()),
                "wrong_cards": self.wrong_cards[:20],
                "cpu_ms_median": {f"{w}x{h}": round(statistics.median(v), 1) if v else None
                                  for (w, h), v in self.ms.items()}}


# ---------------------------------------------------------------- a session
def run_session(session, rng, frames: int, kinds, log=None, cards=DECK) -> dict:
    """Calibrate through the camera, then read ``frames`` frames of each kind in
    ``kinds``. Returns ``{"calibration": ..., kind: Tally}``. ``cards``: the deck's
    cards (all 24 unless a test asks for fewer)."""
    cards = [Card(c) for c in cards]
    deck, cal = calibrate_through_camera(session, rng, cards=cards)
    out = {"calibration": cal}
    read = None
    if deck is not None:
        from vision.synth import compose_scene
        empty = compose_scene([], size=session.size, rng=rng, **session.conditions())
        read = reader_for(deck, [empty.shoot(rng)[0] for _ in range(10)])
    for kind in kinds:
        tally = Tally()
        for _ in range(frames):
            n = {"overlap": int(rng.integers(2, 5)), "edge": 3}.get(kind, 4)
            pick = [cards[int(j)] for j in rng.choice(len(cards), size=min(n, len(cards)), replace=False)]
            if kind == STILL_KIND:
                sequence = still_sequence(session, rng, pick)
                img, truth = next(sequence)
                for later in sequence:              # each frame read; only the last is scored, below
                    if read is not None:
                        read(img)
                    img, truth = later
            else:
                places, extra = vs.frame_placements(session, rng, kind, cards=pick)
                img, truth = vs.compose(session, places, rng, **extra)
            if read is None:
                # No deck: nothing can be read; every card in view counts as refused.
                counts = score_frame([], _ordered_truth(truth), session.size)
                counts["reasons"] = collections.Counter({"calibration failed": counts["refused"]})
            else:
                t0 = time.thread_time()
                found = read(img)
                tally.ms.setdefault(session.size, []).append((time.thread_time() - t0) * 1000)
                counts = score_frame(found, _ordered_truth(truth), session.size)
            tally.add(counts, calibrated=read is not None)
            if log and counts["wrong"]:
                log(f"    WRONG {counts['wrong_cards']} ({session.design}, {session.surface}, {kind}, "
                    f"{session.size[0]}x{session.size[1]})")
        out[kind] = tally
    return out


def still_sequence(session, rng, cards, frames: int = STILL_FRAMES, scene_rng=None):
    """The frames ``(image, truth)`` of one ``STILL_KIND`` sequence: ``cards[0]`` lies still
    while one of the next three lies beside it, in a new place each frame (``frames`` of
    them). ``scene_rng(k)``: the generator that composes the ``k``-th scene (default:
    ``rng``, which draws the places and each frame's noise)."""
    from vision.synth import compose_scene
    places, extra = vs.frame_placements(session, rng, "play", cards=cards)
    scenes = [compose_scene([places[0], other], size=session.size,
                            rng=rng if scene_rng is None else scene_rng(k), **session.conditions(**extra))
              for k, other in enumerate(places[1:4])]
    for f in range(frames):
        yield scenes[f % len(scenes)].shoot(rng)


# ---------------------------------------------------------------- the plan
def plan(design_groups, splits, sessions_per_cell: int, seed: int, groups=None, camera: str = None):
    """The sessions to run: ``(design group, split, surface group, Session)``, drawn
    from a generator seeded by ``seed`` and the cell (reproducible, independent cells).
    ``camera``: a camera profile instead of each split's own (``tuning-hard``)."""
    out = []
    for dg in design_groups:
        designs = DESIGN_GROUPS[dg]
        for split in splits:
            # Cells are seeded by their place in the full plan, so that a run of a few
            # groups draws the same sessions as the full run.
            if split == "busy":
                # The tuning tools' own surfaces, under the tuning split's camera: the busy
                # ones, and their printed cloths (``patterned``) only when asked for by name.
                from bench.plain_tuning.textures import GROUPS
                cells = GROUPS if groups is not None else {"busy": GROUPS["busy"]}
            else:
                cells = vs.SURFACES[split]
            for gi, g in enumerate(cells):
                if groups is not None and g not in groups:
                    continue
                key = [seed, list(DESIGN_GROUPS).index(dg), (*vs.SPLITS, "busy").index(split), gi]
                rng = np.random.default_rng(key)
                for k in range(sessions_per_cell):
                    # The design turns with the seed, so that runs of one session a cell do
                    # not always give a cell the same design; the frame size is drawn on its
                    # own, so that it does not follow the design.
                    design = designs[(k + gi + seed) % len(designs)]
                    size = SIZES[int(np.random.default_rng([*key, k, 7]).integers(len(SIZES)))]
                    if split == "busy":
                        s = vs.draw_session(rng, "tuning", size=size, design=design,
                                            surface=str(rng.choice(cells[g])), profile=camera)
                    else:
                        s = vs.draw_session(rng, split, g, size=size, design=design, profile=camera)
                    out.append((dg, split, g, s, int(rng.integers(1 << 30))))
    return out


# The older benchmark's frame makers, for tests that rebuild its frames.
from bench.vision_plain_classic import calibrated_deck, frame_cards, random_conditions  # noqa: E402,F401

__all__ = ["calibrated_deck", "frame_cards", "random_conditions", "reason_class", "in_full_view",
           "score_frame", "reader_for", "calibrate_through_camera", "run_session", "plan", "main"]


def main(argv=None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if "--classic" in args_in or "--decks" in args_in:
        # The older benchmark (its options: --decks, --frames, --seed, --sizes, --clean,
        # --verbose, --reasons).
        from bench.vision_plain_classic import main as classic
        return classic([a for a in args_in if a != "--classic"])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", default="kde-tuning,kde-validation,npm,pypi",
                    help="design groups: kde-tuning, kde-validation, npm, pypi, studied, kde-tuning-4color "
                         "(the tuning designs recoloured as four-colour decks), generated "
                         "(designs drawn from seeds, vision.generated_decks: tuning only)")
    ap.add_argument("--splits", default="tuning,validation",
                    help="surface/camera splits: tuning, validation, busy (the tuning tools' own busy "
                         "surfaces: carpet, grained wood, a woven mat, terrazzo; with --groups patterned, "
                         "their printed cloths; kde-tuning only)")
    ap.add_argument("--groups", help="only these surface groups (cloth, felt, wood, mat, white-mat, patterned, photo)")
    ap.add_argument("--sessions", type=int, default=3, help="sessions per design group, split and surface group")
    ap.add_argument("--frames", type=int, default=6, help="frames of each kind per session")
    ap.add_argument("--kinds", default=",".join(vs.FRAME_KINDS[:1] + vs.FRAME_KINDS[2:]),
                    help="frame kinds (default: play, hand, overlap, edge, glare; also alone, and still: "
                         "a card lying still while others come and go, 50 frames a sequence)")
    ap.add_argument("--seed", type=int, default=REPORT_SEED)
    ap.add_argument("--quick", action="store_true", help="one session per cell, 3 frames of each kind")
    ap.add_argument("--photo", action="store_true", help="photo mode: webcam photos through the CLI")
    ap.add_argument("--photos", type=int, default=12, help="photo mode: photos per table")
    ap.add_argument("--tables", type=int, default=6, help="photo mode: tables (design x surface)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--classic", action="store_true",
                    help="run the older benchmark instead (clean-art calibration, uniform cloth)")
    args = ap.parse_args(args_in)
    cv2.setNumThreads(1)
    from vision import art
    if not art.art_available():
        print("card art not installed (kdegames-card-data-kf5, librsvg2-bin): run make setup",
              file=sys.stderr)
        return 2
    if args.photo:
        from bench.vision_photo import photo_choice, run_photo
        # Photo mode's own defaults (validation and npm designs on home tables) unless
        # designs or splits are named.
        named = any(a.startswith(("--designs", "--splits")) for a in args_in)
        try:
            designs, splits = photo_choice(args.designs if named else None,
                                           args.splits if named else "validation")
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        return run_photo(args.tables, args.photos, args.seed, args.json, designs=designs, splits=splits)
    if args.quick:
        args.sessions, args.frames = 1, 3
    dgs = [d for d in args.designs.split(",") if d]
    bad = [d for d in dgs if d not in DESIGN_GROUPS]
    if bad:
        print(f"unknown design group(s) {bad}: choose {', '.join(DESIGN_GROUPS)}", file=sys.stderr)
        return 2
    # The registries' designs are fetched now, so that a missing one leaves its group out.
    for group, label, fetch in (("npm", "npm", art.fetch_npm), ("pypi", "PyPI", art.fetch_wheel)):
        if group in dgs:
            try:
                for d in DESIGN_GROUPS[group]:
                    fetch(d)
            except art.ArtError as exc:
                print(f"{label} designs left out: {exc}", file=sys.stderr)
                dgs.remove(group)
    kinds = [k for k in args.kinds.split(",") if k]
    splits = [s for s in args.splits.split(",") if s]
    groups = args.groups.split(",") if args.groups else None
    if "generated" in dgs and "validation" in splits:
        print("the generated designs are tuning data: use them with --splits tuning or busy",
              file=sys.stderr)
        return 2
    if "busy" in splits:
        if not dgs or set(dgs) - {"kde-tuning", "generated"}:
            print("the busy split is for tuning: use it with --designs kde-tuning or generated only",
                  file=sys.stderr)
            return 2
        import contextlib
        from bench.plain_tuning import textures
        busy = contextlib.ExitStack()           # tune:<kind> surfaces, for this run (kept open)
        busy.enter_context(textures.registered())
    sessions = plan(dgs, splits, args.sessions, args.seed, groups)
    print(f"seed {args.seed}: {len(sessions)} sessions, {args.frames} frames of each kind "
          f"({', '.join(kinds)}) per session; one live calibration pass per session", flush=True)
    cells = {}
    cal_log = []
    t_start = time.time()
    for i, (dg, split, g, s, sub_seed) in enumerate(sessions):
        rng = np.random.default_rng(sub_seed)
        res = run_session(s, rng, args.frames, kinds, log=print)
        cal = res["calibration"]
        cal_log.append({"design_group": dg, "split": split, "surface_group": g, "design": s.design,
                        "surface": s.surface, "size": f"{s.size[0]}x{s.size[1]}",
                        "card_px": round(s.card_px()), **cal})
        for kind in kinds:
            t = res[kind]
            t.sessions = {i}
            t.calibration_failed = set() if cal["ok"] else {i}
            cells.setdefault((dg, split, g, kind), Tally()).merge(t)
        clean = sum(res[k].n["correct"] for k in kinds if k in CLEAN_KINDS)
        clean_n = sum(res[k].n["in_view"] for k in kinds if k in CLEAN_KINDS)
        print(f"  [{i + 1}/{len(sessions)}] {dg:14s} {split:10s} {g:9s} {s.design:22s} {s.surface:26s} "
              f"{s.size[0]}x{s.size[1]} card {s.card_px():3.0f}px  calibration "
              f"{'ok' if cal['ok'] else 'FAILED'} ({cal['cards_taken']}/24, {cal['frames']} frames, "
              f"{cal['asked']} asked, read back {cal['read_back']}"
              f"{'; set aside ' + ' '.join(cal['held']) if cal.get('held') else ''})  "
              f"clean {clean}/{clean_n}  wrong {sum(res[k].n['wrong'] for k in kinds)}  "
              f"({time.time() - t_start:.0f}s)", flush=True)
    rows = report(cells, kinds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "sessions": args.sessions, "frames": args.frames,
                       "kinds": kinds, "rows": rows, "calibrations": cal_log}, f, indent=1)
    return 1 if any(r["wrong"] for r in rows) else 0


def report(cells, kinds, out=sys.stdout) -> list:
    """Print the tables; returns the rows (also for --json)."""
    rows = []

    def line(label, t):
        r = t.row()
        pct = f"{r['correct_pct']:6.2f}%" if r["correct_pct"] is not None else "     -"
        cal = r["correct_pct_calibrated"]
        pct += f" {cal:6.2f}%" if cal is not None else "       -"
        ms = "  ".join(f"{v if v is not None else '-':>5}" for v in r["cpu_ms_median"].values())
        reasons = ", ".join(f"{k} {v}" for k, v in list(r["reasons"].items())[:4])
        print(f"{label:44s} {r['sessions']:3d} {r['calibration_failed']:3d} {r['cards_in_view']:6d} "
              f"{pct} {r['refused']:6d} {r['wrong']:5d} {r['covered_named']:>8s}  {ms}   {reasons}",
              file=out)
        return r

    head = (f"{'cell':44s} {'ses':>3s} {'cal':>3s} {'cards':>6s} {'correct':>7s} {'if cal':>7s} {'refusd':>6s} "
            f"{'wrong':>5s} {'covered':>8s}  ms640 ms1280  refusal reasons (most common)")
    for title, kind_set in (("clean frames (play, edge)", [k for k in kinds if k in CLEAN_KINDS]),
                            ("hard frames (hand, overlap, glare): the bar is 0 wrong",
                             [k for k in kinds if k in vs.HARD_KINDS]),
                            (f"still frames (a card lying still for {STILL_FRAMES} frames while another comes "
                             f"and goes beside it; the last frame)", [k for k in kinds if k == STILL_KIND])):
        if not kind_set:
            continue
        print(f"\n{title}\n'cal' = sessions whose calibration pass failed; 'if cal' = correct in the "
              f"sessions whose calibration passed; 'covered' = cards under "
              f"a hand or another card (or cut) that were named / all such; ms = median CPU ms per "
              f"frame, one core\n{head}", file=out)
        by_dg_split = {}
        for (dg, split, g, kind), t in sorted(cells.items()):
            if kind not in kind_set:
                continue
            by_dg_split.setdefault((dg, split), {}).setdefault(g, Tally()).merge(t)
        for (dg, split), groups in by_dg_split.items():
            total = Tally()
            for g, t in groups.items():
                r = line(f"  {dg} / {split} / {g}", t)
                rows.append({"design_group": dg, "split": split, "surface_group": g,
                             "frames": title.split()[0], **r})
                total.merge(t)
            r = line(f"{dg} / {split} surfaces: all", total)
            rows.append({"design_group": dg, "split": split, "surface_group": "all",
                         "frames": title.split()[0], **r})
        for kind in kind_set:
            t = Tally()
            for (_dg, _split, _g, k), x in cells.items():
                if k == kind:
                    t.merge(x)
            line(f"  every cell, {kind} frames", t)
    return rows


if __name__ == "__main__":
    sys.exit(main())
