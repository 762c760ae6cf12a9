"""The virtual table: a whole game played through rendered camera frames, vision, the log and the referee.

Four players sit at a table that exists only in memory. The Pi plays one seat (West by
default) as it would at a real table: its cards are shown to the camera in the rack zone
one by one, it speaks its bids and plays and lights the rack slot of the card to put
down. The other three seats are people, played here by computer players that see only
their own seat. Every card that anyone puts down is drawn into a camera frame from real
card art with its QR sticker, read by the real vision pipeline and tracker, and only what
the camera reports reaches the table's log and referee. The screen is drawn through
luma's emulator into an animated GIF, announcements go to WAV files (or text).
"""
from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from engine import Hand, Rules
from engine.cards import SEAT_NAMES, SEATS, Card

# A fixed camera (the same view every frame, a little turned), with the faults of a real one.
DEFAULT_CONDITIONS = dict(blur=0.6, noise=2.5, light=0.25, jpeg=88, roll=1.5)


@dataclass
class SimStats:
    frames: int = 0
    reads: int = 0
    reshown: int = 0
    entered_by_hand: int = 0
    refusals: list = field(default_factory=list)
    vision_ms: list = field(default_factory=list)
    render_ms: list = field(default_factory=list)


class VirtualTable:
    """The physical side of the simulation: true hands, cards lying in zones, a camera.

    ``controller`` is a :class:`controller.table.TableController`; ``players`` maps each
    person seat to the computer player standing in for that person."""

    def __init__(self, controller, rules: Rules, players: dict, rng: random.Random,
                 size=(640, 480), conditions: Optional[dict] = None, k: int = 3, m: int = 5,
                 rack_seat: str = "W", decoder: str = "zxing",
                 max_frames: int = 12, max_reshows: int = 3):
        from vision.tracker import Tracker
        from vision.zones import MatLayout
        self.layout = MatLayout.a3()
        self.ctl = controller
        self.rules = rules
        self.players = players
        self.rng = rng
        self.size = size
        self.conditions = dict(DEFAULT_CONDITIONS if conditions is None else conditions)
        self.tracker = Tracker(k=k, m=m, rack_seat=rack_seat)
        self.rack_seat = rack_seat
        self.decoder = decoder
        self.max_frames = max_frames
        self.max_reshows = max_reshows
        self.stats = SimStats()
        self.on_table: dict = {}      # Card -> (zone, rotation)
        self.truth: Optional[Hand] = None
        self.pending_discard: Optional[Card] = None
        self._events: list = []
        self._np_rng = None
        self._scene_key = self._scene = None
        self.calibration = None       # the zones, from calibrate()
        controller.on_verdict = self._mirror

    # ------------------------------------------------------------------ the camera
    def _frames_until(self, wanted, reshow: Optional[Card] = None) -> bool:
        """Show frames of the table until the tracker reports an event ``wanted(event)``
        accepts; a card not read after ``max_frames`` is shown again (turned a little),
        like a player would. Returns False when it was never read."""
        import numpy as np
        from vision.recognize import recognize
        if self._np_rng is None:
            self._np_rng = np.random.default_rng(self.rng.randrange(1 << 30))
        for _attempt in range(self.max_reshows + 1):
            for _ in range(self.max_frames):
                t0 = time.perf_counter()
                frame = self._frame()
                t1 = time.perf_counter()
                sightings = recognize(frame, mode="sticker", zones=self.calibration,
                                      decoder=self.decoder)
                events = self.tracker.update(sightings)
                t2 = time.perf_counter()
                self.stats.frames += 1
                self.stats.render_ms.append((t1 - t0) * 1e3)
                self.stats.vision_ms.append((t2 - t1) * 1e3)
                found = False
                for ev in events:
                    self.stats.reads += ev.get("type") in ("play", "dealt", "upcard")
                    self._submit(ev)
                    found = found or wanted(ev)
                if found:
                    return True
            if reshow is None or reshow not in self.on_table:
                break
            at, rot = self.on_table[reshow]
            self.on_table[reshow] = (at, (rot + 37) % 360)
            self.stats.reshown += 1
        return False

    def _frame(self):
        """One camera frame of the table as it lies now. Nothing moves between two
        changes, so the scene is drawn once per change and each frame adds the sensor's
        own faults (noise, JPEG) afresh, as a fixed camera would see it."""
        from vision.synth import _camera_faults, compose_frame
        key = tuple(sorted((str(c), at, r) for c, (at, r) in self.on_table.items()))
        if key != self._scene_key:
            placements = [{"card": c, "at": at, "rotation": r} for c, (at, r) in self.on_table.items()]
            static = {k: v for k, v in self.conditions.items() if k not in ("noise", "jpeg")}
            self._scene, _ = compose_frame(placements, size=self.size, rng=self._np_rng, **static)
            self._scene_key = key
        sensor = {k: v for k, v in self.conditions.items() if k in ("noise", "jpeg")}
        return _camera_faults(self._scene, self._np_rng, sensor)

    def _submit(self, event: dict):
        v = self.ctl.submit(event)
        if not v.ok:
            self.stats.refusals.append({"event": event, "reason": v.reason})
        # A person dealer who took the up-card has discarded once it is gone from UP:
        # the table learns of the discard from the card leaving, as a referee would.
        st = self.ctl.referee.state
        if event.get("type") == "removed" and event.get("zone") == "UP" and \
                st["phase"] == "discard" and st["dealer"] not in self.ctl.computers:
            self.ctl.submit({"type": "discard", "seat": st["dealer"], "by": "camera"})
        return v

    def _put(self, card: Card, zone: str, wanted_type: Optional[str]) -> None:
        # A card lies where it was put, a little off the zone's centre, at any angle.
        x, y = self.layout.zone_centre(zone)
        at = (x + self.rng.uniform(-8, 8), y + self.rng.uniform(-8, 8))
        self.on_table[card] = (at, self.rng.uniform(-180, 180))
        if wanted_type is None:
            return
        ok = self._frames_until(lambda e: e.get("type") == wanted_type and e.get("card") == card,
                                reshow=card)
        if not ok:
            # The camera never read it: the director enters it, as at a real table.
            self.stats.entered_by_hand += 1
            event = {"type": wanted_type, "card": str(card), "by": "director"}
            if wanted_type in ("play", "dealt"):
                event["seat"] = zone if zone in SEATS else self.rack_seat
            self._submit(event)

    def _in_up(self, card: Card) -> bool:
        """Is the card lying in the up-card spot (not, later, played by the dealer)?"""
        if card not in self.on_table:
            return False
        return self.layout.zone_at(self.on_table[card][0]) == "UP"

    def _take(self, cards, wait_for=None) -> None:
        for c in cards:
            self.on_table.pop(c, None)
        if wait_for is not None:
            self._frames_until(wait_for)

    # ------------------------------------------------------------------ mirroring
    def _mirror(self, event, verdict) -> None:
        """Keep the true hand in step with what the referee accepted."""
        if not verdict.ok or not isinstance(event, dict) or self.truth is None:
            return
        kind = event.get("type")
        h = self.truth
        try:
            if kind == "bid":
                h.apply(event["bid"], seat=event["seat"])
            elif kind == "discard":
                card = event.get("card") or self.pending_discard
                h.apply(f"discard {card}", seat=event["seat"])
            elif kind == "play":
                h.apply(f"play {event['card']}", seat=event["seat"])
        except Exception as exc:  # the referee and the truth disagreeing is a bug: say so
            raise RuntimeError(f"the true hand refused {event} that the referee accepted: "
                               f"{exc}") from exc

    # ------------------------------------------------------------------ one hand
    def play_hand(self, dealer: str) -> None:
        ctl = self.ctl
        self.truth = Hand.deal(self.rules, dealer=dealer, rng=self.rng)
        self.truth.score = tuple(ctl.referee.state["score"].values())
        v = self._submit({"type": "hand", "dealer": dealer})
        if not v.ok:
            raise RuntimeError(f"the table refused a new hand: {v.reason}")
        # The Pi's cards pass through the rack zone one by one.
        for seat in ctl.computers:
            for card in self.truth.cards(seat):
                self._put(card, "RACK", "dealt")
                self._take([card], lambda e, c=card: e.get("type") == "removed" and e.get("card") == c)
        self._put(self.truth.upcard, "UP", "upcard")
        trick_cards: list = []
        guard = 0
        while not self.truth.is_over:
            guard += 1
            if guard > 400:
                raise RuntimeError("the simulated hand is not moving on")
            st = ctl.referee.state
            seat = self.truth.to_act
            phase = self.truth.phase
            if st["to_act"] != seat or {"deal": "round 1"}.get(st["phase"], st["phase"]) != phase:
                raise RuntimeError(f"referee ({st['to_act']}, {st['phase']}) and table "
                                   f"({seat}, {phase}) disagree")
            up = self.truth.upcard
            if self._in_up(up) and phase not in ("round 1", "overcall") and not (
                    phase == "discard" and seat not in ctl.computers):
                # Bidding is over: the dealer has taken the up-card or turned it down.
                self._take([up], lambda e: e.get("type") == "removed" and e.get("zone") == "UP")
                continue
            if seat in ctl.computers:
                expected = ctl.referee_expects(seat)
                if phase != "play" or expected is None:
                    raise RuntimeError(f"the computer seat {seat} did not act in {phase}")
                # The player beside the Pi takes the lit card from the rack and puts it down.
                self._put(expected, seat, "play")
                trick_cards.append(expected)
            else:
                action = self.players[seat].choose(self.truth.view(seat))
                if action.kind == "play":
                    self._put(action.card, seat, "play")
                    trick_cards.append(action.card)
                elif action.kind == "discard":
                    # The dealer picks up the up-card and lays a card aside: the camera
                    # sees the up-card leave, and that tells the table the dealer discarded.
                    self.pending_discard = action.card
                    self._take([up], lambda e: e.get("type") == "removed" and e.get("zone") == "UP")
                    if self.truth.phase == "discard":   # the camera missed the pick-up
                        self._submit({"type": "discard", "seat": seat, "by": "director"})
                    self.pending_discard = None
                else:
                    self._press_bid(seat, str(action))
            if len(trick_cards) == 4 - len(self.truth.out):
                # The trick's winner sweeps it away.
                self._take(trick_cards, lambda e: e.get("type") == "collect")
                trick_cards = []
        self.on_table.clear()

    def _press_bid(self, seat: str, action: str) -> None:
        """A person presses the bid panel: ALONE first when going alone, then the bid."""
        from hardware.inputs import BidComposer
        st = self.ctl.referee.state
        view = self.ctl.referee.view(seat)
        composer = BidComposer([str(a) for a in view.legal] if view else [])
        words = action.split()
        presses = (["alone"] if words[-1] == "alone" else []) + {
            "pass": ["pass"], "order": ["order"], "call": [words[1] if len(words) > 1 else ""],
            "take": ["order"], "defend": ["order"]}[words[0]]
        event = None
        for b in presses:
            event = composer.press(b)
        if event is None or event[0] != "bid":
            raise RuntimeError(f"the panel did not give {action!r} for {seat} in {st['phase']}: {event}")
        self._submit({"type": "bid", "seat": seat, "bid": event[1], "by": "panel"})

    # ------------------------------------------------------------------ calibration
    def calibrate(self) -> None:
        """Calibrate the zones from a frame of the empty mat, as at a real table."""
        import numpy as np
        from vision.synth import compose_frame
        from vision.zones import calibrate
        frame, _ = compose_frame([], size=self.size, rng=np.random.default_rng(self.rng.randrange(1 << 30)),
                                 **self.conditions)
        self.calibration = calibrate(frame)


def daily_seed(today) -> int:
    """The day's deal: everyone who plays on that date gets the same game (Solitaire Parlor Euchre's daily deal)."""
    return int(today.strftime("%Y%m%d"))


def simulate(rules: Rules, seed: int, out_dir: Path, computer_seat: str = "W",
             level: str = "hard", people_level: str = "medium", size=(640, 480),
             conditions: Optional[dict] = None, progress=print, clock=time.time,
             budget: Optional[float] = 0.05) -> dict:
    """Play one whole game at the virtual table; returns the summary (see ``cmd_simulate``)."""
    from controller.log import EventLog
    from controller.table import TableController
    from engine.bots import make_bot
    from engine.records import record_text
    from engine.referee import Referee
    from hardware.display import make_display
    from hardware.speaker import make_speaker

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log_path = out_dir / "table-log.sqlite"
    if log_path.exists():
        log_path.unlink()
    for extra in ("-wal", "-shm"):
        p = Path(str(log_path) + extra)
        if p.exists():
            p.unlink()
    rng = random.Random(seed)
    t_start = time.perf_counter()
    screen = _Ticker(make_display({"driver": "gif", "filename": str(out_dir / "screen.gif"),
                                   "scale": 2, "duration": 0.4}))
    speech = out_dir / "speech"
    if speech.is_dir():
        # A rerun of a seed starts the speech afresh instead of piling onto the last run's.
        for old in list(speech.glob("*.wav")) + list(speech.glob("*.part")):
            old.unlink()
    speaker = make_speaker({"backend": "wav", "folder": str(speech)})
    event_log = EventLog(str(log_path))
    bot_seed = rng.randrange(1 << 30)
    pi_bot = make_bot(level, seed=bot_seed, budget=budget)
    ctl = TableController(rules, event_log, clock=clock, computers={computer_seat: pi_bot},
                          screen=screen, speaker=speaker)
    players = {s: make_bot(people_level, seed=bot_seed + i + 1, budget=budget)
               for i, s in enumerate(SEATS) if s != computer_seat}
    table = VirtualTable(ctl, rules, players, rng, size=size, conditions=conditions,
                         rack_seat=computer_seat)
    table.calibrate()
    dealer = rng.choice(SEATS)
    hands = 0
    while ctl.referee.state["winner"] is None:
        hands += 1
        table.play_hand(dealer)
        st = ctl.referee.state
        progress(_hand_line(hands, ctl.referee.records()[-1], st))
        if hands > 200:
            raise RuntimeError("the game does not end")
        dealer = st["next_dealer"]
    st = ctl.referee.state
    elapsed = time.perf_counter() - t_start
    speaker.wait_idle(30)
    speaker.close()
    _write_transcript(speech / "transcript.txt", speaker)
    dev = screen.device
    if dev is not None and hasattr(dev, "write_animation"):
        # luma.emulator's gifanim writes its GIF only at exit; write it now, and leave
        # nothing for the exit hook to append (a blank frame) or write again.
        dev.write_animation()
        dev._images = []
        dev.persist = True
    # The log alone must give the same table: replay it through a fresh referee.
    again = Referee(rules, known_seats=[computer_seat])
    for r in event_log.records():
        again.feed(r.event(), seq=r.seq)
    replay_equal = again.state == st and again.records() == ctl.referee.records()
    records = ctl.referee.records()
    (out_dir / "hand-records.json").write_text(json.dumps(records, indent=1, default=str))
    (out_dir / "hand-records.txt").write_text("\n\n".join(record_text(r) for r in records) + "\n")
    event_log.close()
    results = [r.get("result") or {} for r in records]
    summary = {
        "seed": seed, "rules": rules.name, "winner": st["winner"], "score": st["score"],
        "hands": len(records), "computer_seat": computer_seat, "level": level,
        "contracts": {t: sum(1 for r in results if r.get("makers") == t) for t in ("NS", "EW")},
        "marches": {t: sum(1 for r in results if r.get("makers") == t and r.get("march"))
                    for t in ("NS", "EW")},
        "euchres": {t: sum(1 for r in results if r.get("makers") and r.get("makers") != t
                           and r.get("euchred")) for t in ("NS", "EW")},
        "lone_hands": sum(1 for r in results if r.get("alone")),
        "revokes": sum(len(r.get("revokes") or []) for r in records),
        "frames": table.stats.frames, "cards_read": table.stats.reads,
        "cards_shown_again": table.stats.reshown, "entered_by_hand": table.stats.entered_by_hand,
        "refusals": len(table.stats.refusals),
        "vision_ms_median": _median(table.stats.vision_ms),
        "render_ms_median": _median(table.stats.render_ms),
        "announcements": len(speaker.spoken), "speech_fault": speaker.fault,
        "log_replays_identically": replay_equal, "wall_seconds": round(elapsed, 1),
        "files": {"log": str(log_path), "screen_gif": str(out_dir / "screen.gif"),
                  "hand_records": str(out_dir / "hand-records.txt"),
                  "hand_records_json": str(out_dir / "hand-records.json"),
                  "speech": str(out_dir / "speech")},
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


class _Ticker:
    """The screen as the device shows it: a message too long for the bottom line scrolls
    across it (the service steps the ticker on its clock). In the GIF, where every frame
    lasts as long, the message moves by most of the line's width per frame, so that its
    whole text passes in a few frames."""

    STEP_PX, MAX_STEPS = 96, 4

    def __init__(self, screen):
        self.screen = screen

    def __getattr__(self, name):
        return getattr(self.screen, name)

    def show(self, status):
        from hardware.display import MESSAGE_SIZE, text_width
        shown = self.screen.show(status)
        if status.message:
            steps = text_width(status.message + "     ", MESSAGE_SIZE) // self.STEP_PX
            for _ in range(min(steps, self.MAX_STEPS)):
                if not self.screen.step(self.STEP_PX):
                    break
        return shown


def _write_transcript(path: Path, speaker) -> None:
    """``speech/transcript.txt``: each announcement's WAV file and its words."""
    lines = []
    for entry in list(speaker.history):
        name = Path(entry["path"]).name if entry.get("path") else "(text only)"
        lines.append(f"{name}\t{entry['text']}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _median(xs):
    if not xs:
        return None
    s = sorted(xs)
    return round(s[len(s) // 2], 2)


def _hand_line(n: int, rec: dict, st: dict) -> str:
    res = rec.get("result") or {}
    if rec.get("status") == "thrown in" or res.get("thrown_in"):
        what = "all passed: thrown in"
    elif res.get("makers"):
        t = res["tricks"]
        alone = f" alone ({SEAT_NAMES[res['alone']]})" if res.get("alone") else ""
        fate = "euchred" if res.get("euchred") else "march" if res.get("march") else "made"
        what = (f"{res['makers']} made {res.get('trump')} trump{alone}: tricks NS {t['NS']} "
                f"EW {t['EW']}, {fate}")
    else:
        what = rec.get("status", "?")
    return f"Hand {n:>2} (dealer {rec['dealer']}): {what}. Score NS {st['score']['NS']} - EW {st['score']['EW']}"
