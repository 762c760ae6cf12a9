"""Benchmark of the whole path card laid → verdict on the screen, through the real table service with a simulated camera at 30 frames per second.

Each trial starts a TableService (real tracker, referee, log and controller; a screen
that notes when it is drawn) on a table in the middle of a trick (West and North have
played; East is to play). The camera shows the table, then a hand laying East's card,
then the card lying whole and still (the hand withdraws over five frames; ``--hand still``:
the same hand in all five); frames are rendered beforehand (bench.vision_sets,
the camera model) and delivered at 30 fps in real time: a late reader gets the newest
frame, as from a real camera. Measured: the time from the first frame in which the card
lies whole and still to the screen showing East's play, median and p95, in sticker
and plain mode. The tracker needs ``k`` frames of the card (k = 3: two frame periods,
67 ms, after the first), so the goal is ≤ 40 ms beyond those.

    python -m bench.vision_latency                  # both modes, 20 trials each
    python -m bench.vision_latency --modes plain --trials 5
    python -m bench.vision_latency --clock cpu --cpu-scale 3   # a core to itself, 3x slower

On a machine shared with other jobs the wall clock counts the time the service waits for
a core; ``--clock cpu`` runs the service on a clock that advances only by its own CPU
time (times ``--cpu-scale``) and its waits for the camera's next frame.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench import vision_sets as vs

FPS = 30.0
PRIOR = ([{"type": "hand", "dealer": "S"}]
         + [{"type": "dealt", "seat": "W", "card": c} for c in ("JH", "JD", "AH", "9C", "10S")]
         + [{"type": "upcard", "card": "KH"}, {"type": "bid", "seat": "W", "bid": "order"},
            {"type": "discard", "seat": "S"}, {"type": "play", "seat": "W", "card": "AH"},
            {"type": "play", "seat": "N", "card": "9S"}])
"""The table's log before a trial: West led the ace of hearts, North played the nine of
spades; East is to play."""
EAST_CARDS = ("9H", "10H", "QH", "AD", "QS", "KC")
LAID_AT = 12          # frames of the table before the card lies still
HAND_FRAMES = 5       # of them, the last ones show the hand laying the card
TAIL = 45             # frames of the card lying still (1.5 s) before a trial gives up


class CpuClock:
    """A clock that runs only while the service's thread works (its CPU time, times
    ``scale``) or waits for the camera: the latency the service would have with a core to
    itself (``scale`` 1), or on a core ``scale`` times slower (a Raspberry Pi 4: 3-5),
    whatever else the machine runs meanwhile."""

    def __init__(self, scale: float = 1.0):
        self.scale, self.t, self.c0 = float(scale), 0.0, None

    def begin(self) -> None:
        self.c0 = time.thread_time()

    def end(self) -> None:
        self.t, self.c0 = self.now(), None

    def now(self) -> float:
        return self.t + ((time.thread_time() - self.c0) * self.scale if self.c0 is not None else 0.0)

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


class _Stopping(threading.Event):
    """The service's stop flag, whose pauses pass on a :class:`CpuClock` at once."""

    def __init__(self, clock: CpuClock):
        super().__init__()
        self.clock = clock

    def wait(self, timeout=None):
        if timeout:
            self.clock.sleep(timeout)
        return self.is_set()


class Screen:
    """A screen that notes when it is drawn and what it shows."""

    def __init__(self, now=time.monotonic):
        self.shown = []
        self.when = threading.Event()
        self.wanted = None
        self.now = now

    def show(self, status):
        t = self.now()
        self.shown.append((t, status))
        if self.wanted is not None and self.wanted(status):
            self.when.set()

    def say(self, text, priority=False):
        pass


class Camera30:
    """Frames delivered in real time at ``fps`` from ``start``: ``read()`` waits for the
    next frame; a reader that is late gets the newest frame (older ones are dropped)."""

    live = True

    def __init__(self, frames, fps=FPS, now=time.monotonic, sleep=time.sleep):
        self.frames, self.fps = frames, fps
        self.now, self.sleep = now, sleep
        self.start = None
        self.last = -1
        self.delivered = []
        self.ended = threading.Event()          # asked for a frame after the last

    def read(self):
        now = self.now()
        if self.start is None:
            self.start = now
        due = int((now - self.start) * self.fps)
        i = max(due, self.last + 1)
        wait = self.start + i / self.fps - now
        if wait > 0:
            self.sleep(wait)
        if i >= len(self.frames):
            self.ended.set()
            self.sleep(0.01)
            return self.frames[-1]
        self.last = i
        self.delivered.append(i)
        return self.frames[i]

    def frame_time(self, i):
        return self.start + i / self.fps

    def close(self):
        pass


def trial_frames(session, rng, card, sticker: bool, hand: str = "moving") -> list:
    """The camera's frames of one trial (rendered now, before the clock runs). ``hand``:
    "moving", the hand withdraws a little in each of its frames (its fingertips from 85% of
    the card's length over it to 55%, where its sticker is still hidden), as when a card is
    laid; "still", the same hand in all of them (55%)."""
    from vision.synth import compose_scene
    from vision.zones import MatLayout
    layout = MatLayout.a3()
    lying = [{"card": "AH", "at": layout.zone_centre("W"), "rotation": float(rng.uniform(0, 360)),
              "sticker": sticker},
             {"card": "9S", "at": layout.zone_centre("N"), "rotation": float(rng.uniform(0, 360)),
              "sticker": sticker}]
    x, y = layout.zone_centre("E")
    east = {"card": card, "at": (x + rng.uniform(-8, 8), y + rng.uniform(-8, 8)),
            "rotation": float(rng.uniform(0, 360)), "sticker": sticker}
    cond = session.conditions()
    before = compose_scene(lying, size=session.size, rng=rng, **cond)
    # (The camera is still: no blur of the whole frame while the hand moves.)
    if hand == "moving":
        # One seed for every hand frame: the same arm and light, the hand further back each time.
        seed = int(rng.integers(1 << 30))
        laying = [compose_scene(lying + [east], size=session.size, rng=np.random.default_rng(seed), hand=2,
                                hand_cover=float(c), **cond) for c in np.linspace(0.85, 0.55, HAND_FRAMES)]
    else:
        laying = [compose_scene(lying + [east], size=session.size, rng=rng, hand=2, hand_cover=0.55,
                                **cond)] * HAND_FRAMES
    still = compose_scene(lying + [east], size=session.size, rng=rng, **cond)
    frames = [before.shoot(rng)[0] for _ in range(LAID_AT - HAND_FRAMES)]
    frames += [scene.shoot(rng)[0] for scene in laying]
    frames += [still.shoot(rng)[0] for _ in range(TAIL)]
    return frames


def make_config(folder: Path, mode: str, zones: Path, deck=None):
    from controller.config import check_config
    vision = {"mode": mode, "zones": str(zones), "k": 3, "m": 5}
    if deck is not None:
        vision["deck"] = str(deck)
    return check_config({"table": {"state_dir": str(folder), "first_dealer": "S"},
                         "seats": {"W": {"kind": "computer", "level": "medium"}},
                         "vision": vision})


def run_trial(session, rng, mode, zones, deck, card, hand: str = "moving", clock: "CpuClock" = None) -> dict:
    """One trial; with ``clock`` (a :class:`CpuClock`) the service runs in this thread on
    that clock instead of the wall clock."""
    from controller.log import EventLog
    from controller.service import TableService
    frames = trial_frames(session, rng, card, sticker=mode == "sticker", hand=hand)
    with tempfile.TemporaryDirectory(prefix="euchre-latency-") as tmp:
        folder = Path(tmp)
        log = EventLog(str(folder / "table-log.sqlite"))
        for i, e in enumerate(PRIOR):
            log.append(e, at=1000.0 + i)
        log.close()
        cfg = make_config(folder, mode, zones, deck)
        now = time.monotonic if clock is None else clock.now
        screen = Screen(now)
        cam = Camera30(frames, now=now, sleep=time.sleep if clock is None else clock.sleep)
        svc = TableService(cfg, camera=cam, screen=screen, speaker=screen, monotonic=now)
        screen.wanted = lambda st: getattr(st, "to_act", None) == "S"   # East's play taken
        cpu = []
        step = svc.step

        deciding = []

        steps = []

        def timed_step():
            if clock is not None:
                clock.begin()
            c0, w0, n0 = time.thread_time(), now(), len(cam.delivered)
            before = screen.when.is_set()
            step()
            if clock is not None:
                clock.end()
            cpu.append((time.thread_time() - c0) * 1000)
            if len(cam.delivered) > n0:
                # (frame, its time, the step's start and end, from the still card's first frame, ms; CPU ms)
                steps.append((cam.delivered[-1], *(round((t - cam.frame_time(LAID_AT)) * 1000, 1) for t in
                              (cam.frame_time(cam.delivered[-1]), w0, now())), round(cpu[-1], 1)))
            if screen.when.is_set() and not before:
                deciding.append(cpu[-1])      # the step that read the card and drew the screen
        svc.step = timed_step
        if clock is not None:
            svc.stopping = _Stopping(clock)     # the loop's own pauses pass on the clock
            # (The service runs as fast as the machine lets it: the wall time is not the measure.)
            wait = 600.0
        else:
            wait = (len(frames) + 10) / FPS + 2.0
        worker = threading.Thread(target=svc.run, kwargs={"period": 1 / FPS}, daemon=True)
        worker.start()
        deadline = time.monotonic() + wait
        while not (screen.when.is_set() or cam.ended.is_set()) and time.monotonic() < deadline:
            screen.when.wait(timeout=0.01)
        ok = screen.when.is_set()
        svc.stopping.set()
        worker.join(timeout=5)
        shown_at = next((t for t, st in screen.shown if getattr(st, "to_act", None) == "S"), None)
        laid = cam.frame_time(LAID_AT)
    return {"card": card, "read": bool(ok and shown_at is not None),
            "latency_ms": (shown_at - laid) * 1000 if ok and shown_at is not None else None,
            "frames_delivered": len(cam.delivered), "frames_skipped": _skipped(cam.delivered),
            "step_cpu_ms": statistics.median(cpu) if cpu else None,
            "deciding_step_cpu_ms": deciding[0] if deciding else None,
            "steps": [st for st in steps if LAID_AT - HAND_FRAMES - 1 <= st[0] <= LAID_AT + 8]}


def _med(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 1) if xs else None


def _p95(xs):
    xs = [x for x in xs if x is not None]
    return round(float(np.percentile(xs, 95)), 1) if xs else None


def _skipped(delivered) -> int:
    return sum(b - a - 1 for a, b in zip(delivered, delivered[1:], strict=False) if b - a > 1)


def plain_deck(session, rng, folder: Path) -> Path:
    """The deck calibrated by one live pass through the trial camera, saved."""
    from bench.vision_plain import calibrate_through_camera
    deck, report = calibrate_through_camera(session, rng)
    if deck is None:
        raise RuntimeError(f"the calibration pass failed: {report['error']}")
    path = folder / "deck.npz"
    deck.save(path)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="sticker,plain")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--surface", default="cloth:green", help="the table (a tuning surface by default)")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: real time on this machine; cpu: a clock that runs with the service's CPU "
                         "time (as on a core of its own) and its waits for the camera")
    ap.add_argument("--cpu-scale", type=float, default=1.0,
                    help="with --clock cpu: CPU time counts this many times over (a slower core)")
    ap.add_argument("--hand", choices=("moving", "still"), default="moving",
                    help="the hand laying the card withdraws frame by frame (moving) or stays (still)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    import cv2
    cv2.setNumThreads(1)
    from vision.synth import compose_frame
    from vision.zones import MatLayout, calibrate
    size = tuple(int(v) for v in args.size.split("x"))
    rng = np.random.default_rng(args.seed)
    session = vs.draw_session(rng, "tuning", size=size, surface=args.surface, design="standard")
    # The camera sees the whole A3 mat area (its markers are the zones' reference).
    layout = MatLayout.a3()
    session.camera.update(px_per_mm=0.9 * min(size[0] / layout.width_mm, size[1] / layout.height_mm),
                          look_at=(layout.width_mm / 2, layout.height_mm / 2), tilt_deg=3.0,
                          roll_deg=float(rng.uniform(-5, 5)))
    session.markers = True
    results = {}
    with tempfile.TemporaryDirectory(prefix="euchre-latency-") as tmp:
        folder = Path(tmp)
        empty, _ = compose_frame([], size=size, rng=rng, **session.conditions())
        zones = folder / "zones.json"
        calibrate(empty).save(zones)
        print(f"{size[0]}x{size[1]}, {session.surface}, card {session.card_px():.0f} px, camera at "
              f"{FPS:.0f} fps, tracker k=3, hand {args.hand}, {args.clock} clock"
              f"{f' x{args.cpu_scale:g}' if args.clock == 'cpu' else ''}; {args.trials} trials per mode", flush=True)
        for mode in args.modes.split(","):
            try:
                deck = plain_deck(session, rng, folder) if mode == "plain" else None
            except RuntimeError as exc:
                print(f"{mode:8s} not measured: {exc}", flush=True)
                results[mode] = {"summary": {"trials": 0, "read": 0, "error": str(exc)}, "trials": []}
                continue
            rows = []
            for t in range(args.trials):
                card = EAST_CARDS[t % len(EAST_CARDS)]
                clock = CpuClock(args.cpu_scale) if args.clock == "cpu" else None
                rows.append(run_trial(session, rng, mode, zones, deck, card, args.hand, clock))
            lat = [r["latency_ms"] for r in rows if r["latency_ms"] is not None]
            cpu = [r["step_cpu_ms"] for r in rows if r["step_cpu_ms"] is not None]
            k_frames = 2 * 1000 / FPS
            summary = {"trials": len(rows), "read": sum(r["read"] for r in rows),
                       "latency_ms_median": round(statistics.median(lat), 1) if lat else None,
                       "latency_ms_p95": round(float(np.percentile(lat, 95)), 1) if lat else None,
                       "beyond_tracker_ms_median": round(statistics.median(lat) - k_frames, 1) if lat else None,
                       "beyond_tracker_ms_p95": round(float(np.percentile(lat, 95)) - k_frames, 1) if lat else None,
                       "step_cpu_ms_median": round(statistics.median(cpu), 1) if cpu else None,
                       "deciding_step_cpu_ms_median": _med([r["deciding_step_cpu_ms"] for r in rows]),
                       "deciding_step_cpu_ms_p95": _p95([r["deciding_step_cpu_ms"] for r in rows]),
                       "frames_skipped": sum(r["frames_skipped"] for r in rows)}
            results[mode] = {"summary": summary, "trials": rows}
            print(f"{mode:8s} read {summary['read']}/{summary['trials']}  latency median "
                  f"{summary['latency_ms_median']} ms, p95 {summary['latency_ms_p95']} ms  "
                  f"(beyond the tracker's 2 frame periods: {summary['beyond_tracker_ms_median']} / "
                  f"{summary['beyond_tracker_ms_p95']} ms)  service step CPU median "
                  f"{summary['step_cpu_ms_median']} ms; CPU of the step that drew the play: median "
                  f"{summary['deciding_step_cpu_ms_median']}, p95 {summary['deciding_step_cpu_ms_p95']} ms  "
                  f"frames skipped {summary['frames_skipped']}",
                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0 if all(r["summary"]["read"] == r["summary"]["trials"] and "error" not in r["summary"]
                    for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
