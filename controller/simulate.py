"""The virtual table: a whole game played through rendered camera frames, vision, the log and the referee.

Four players sit at a table that exists only in memory, served by the real table service
(`controller.service.TableService`) through two fake cameras. The Pi plays one seat (West
by default) as it would at a real table: the dealer lays its cards face down, one by one,
on the reader window, whose camera (under a clear plate) reads them; they go into the
Pi's rack, facing away from the people, and are never drawn into the overhead camera's
frames until the Pi plays one. It speaks its bids and plays and lights the rack slot of
the card to put down. The other three seats are people, played here by computer players
that see only their own seat. Every card that anyone puts down is drawn into a camera
frame from real card art with its QR sticker, read by the real vision pipeline and
tracker, and only what the cameras report reaches the table's log (the Pi's cards
sealed until the hand ends) and referee. The screen is drawn through luma's emulator into
an animated GIF, announcements go to WAV files (or text).
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


# The reader window's camera: a reader built as docs/hardware.md advises (hood closed,
# crossed polarizers), close under the plate, with a little noise and JPEG.
READER_CONDITIONS = dict(view_mm=160.0, distance_mm=80.0, guide="black", room=0.03,
                         distortion=0.05, vignette=0.25, light=0.1, scratches=6, dust=20,
                         blur=0.5, noise=2.5, jpeg=88)


@dataclass
class SimStats:
    frames: int = 0
    reader_frames: int = 0
    face_up_secrets: int = 0          # overhead frames showing a Pi's card before it is played
    reads: int = 0
    reshown: int = 0
    entered_by_hand: int = 0
    refusals: list = field(default_factory=list)
    vision_ms: list = field(default_factory=list)
    render_ms: list = field(default_factory=list)


class Camera:
    """A fake camera the service reads: each ``read()`` draws the virtual table as it lies
    now (``draw``), timing the rendering for the statistics."""

    def __init__(self, draw, render_ms: list):
        self.draw, self.render_ms = draw, render_ms

    def read(self):
        t0 = time.perf_counter()
        frame = self.draw()
        self.render_ms.append((time.perf_counter() - t0) * 1e3)
        return frame

    def close(self):
        pass


class VirtualTable:
    """The physical side of the simulation: true hands, cards lying in zones, the overhead
    camera and the reader window's camera, both read by the real table service.

    ``service`` is a :class:`controller.service.TableService` built on this table's two
    fake cameras (see :meth:`cameras`); ``players`` maps each person seat to the computer
    player standing in for that person. The Pi's cards are dealt face down through the
    reader window: they are drawn into the reader camera's frames only, never into the
    overhead camera's until a person lays the one the Pi plays."""

    def __init__(self, service, rules: Rules, players: dict, rng: random.Random,
                 size=(640, 480), conditions: Optional[dict] = None,
                 max_frames: int = 12, max_reshows: int = 3, reader_conditions=None):
        from vision.zones import MatLayout
        self.layout = MatLayout.a3()
        self.service = service
        self.ctl = service.ctl if service is not None else None
        self.rules = rules
        self.players = players
        self.rng = rng
        self.size = size
        self.conditions = dict(DEFAULT_CONDITIONS if conditions is None else conditions)
        self.reader_conditions = dict(READER_CONDITIONS if reader_conditions is None
                                      else reader_conditions)
        self.max_frames = max_frames
        self.max_reshows = max_reshows
        self.stats = SimStats()
        self.on_table: dict = {}      # Card -> (zone, rotation)
        self.on_reader: Optional[Card] = None
        self.truth: Optional[Hand] = None
        self.pending_discard: Optional[Card] = None
        self.folded: list = []        # (event, verdict) as the referee saw them
        self.overhead_faces: list = []  # per overhead frame: the cards drawn face up
        self._np_rng = None
        self._scene_key = self._scene = None
        self._reader_key = self._reader_scene = None
        self.calibration = None       # the zones, from calibrate()
        self._played: set = set()     # (game, hand) already played here
        if self.ctl is not None:
            self.attach(service)

    def attach(self, service) -> None:
        """Watch what the table service folds (the true hand follows what it accepts)."""
        self.service, self.ctl = service, service.ctl
        self.ctl.on_verdict = self._mirror

    def cameras(self) -> dict:
        """The two fake cameras to build the service with."""
        return {"camera": Camera(self._frame, self.stats.render_ms),
                "reader_camera": Camera(self._reader_frame, self.stats.render_ms)}

    # ------------------------------------------------------------------ the cameras
    def _np(self):
        import numpy as np
        if self._np_rng is None:
            self._np_rng = np.random.default_rng(self.rng.randrange(1 << 30))
        return self._np_rng

    def _frame(self):
        """One overhead frame of the table as it lies now. Nothing moves between two
        changes, so the scene is drawn once per change and each frame adds the sensor's
        own faults (noise, JPEG) afresh, as a fixed camera would see it."""
        from vision.synth import compose_frame
        from vision.synth_window import sensor
        key = tuple(sorted((str(c), at, r) for c, (at, r) in self.on_table.items()))
        if key != self._scene_key:
            placements = [{"card": c, "at": at, "rotation": r} for c, (at, r) in self.on_table.items()]
            static = {k: v for k, v in self.conditions.items() if k not in ("noise", "jpeg")}
            self._scene, _ = compose_frame(placements, size=self.size, rng=self._np(), **static)
            self._scene_key = key
        self.stats.frames += 1
        self.overhead_faces.append(frozenset(self.on_table))
        if self.truth is not None and self.ctl is not None:
            # The truth's own count of what the people must not see: the Pi's cards not
            # yet announced as played (the up-card is everyone's).
            secret = set()
            for seat in self.ctl.computers:
                secret |= set(self.truth.cards(seat))
                announced = self.ctl.referee_expects(seat)
                secret.discard(announced)
            secret.discard(self.truth.upcard)
            if secret & set(self.on_table):
                self.stats.face_up_secrets += 1
        return sensor(self._scene, self._np(), self.conditions.get("noise", 0.0),
                      self.conditions.get("jpeg"))

    def _reader_frame(self):
        """One frame of the reader camera under the plate: the card lying on it, if any."""
        from vision.synth_window import sensor, window_scene
        if self.on_reader != self._reader_key or self._reader_scene is None:
            self._reader_scene, _ = window_scene(self.on_reader, size=self.size, rng=self._np(),
                                                 **self.reader_conditions)
            self._reader_key = self.on_reader
        self.stats.reader_frames += 1
        return sensor(self._reader_scene, self._np(), self.reader_conditions.get("noise", 0.0),
                      self.reader_conditions.get("jpeg"))

    def reader_window(self) -> list:
        """The reader's window setting: the guide's opening and a little round it (what
        `mat --reader-window` prints at set-up)."""
        from vision.synth_window import compose_window_frame, window_of
        _, truth = compose_window_frame(None, size=self.size, rng=1, **self.reader_conditions)
        return window_of(truth, self.size)

    def _frames_until(self, wanted, reshow: Optional[Card] = None) -> bool:
        """Let the service read frames until it folds an event ``wanted(event)`` accepts; a
        card not read after ``max_frames`` is shown again (turned a little), like a player
        would. Returns False when it was never read."""
        for _attempt in range(self.max_reshows + 1):
            for _ in range(self.max_frames):
                n = len(self.folded)
                t0 = time.perf_counter()
                r0 = sum(self.stats.render_ms)
                self.service.step()
                self.stats.vision_ms.append((time.perf_counter() - t0) * 1e3
                                            - (sum(self.stats.render_ms) - r0))
                if any(wanted(ev) for ev, v in self.folded[n:] if v.ok):
                    return True
            if reshow is None:
                break
            if reshow in self.on_table:
                at, rot = self.on_table[reshow]
                self.on_table[reshow] = (at, (rot + 37) % 360)
            elif reshow == self.on_reader:
                self.on_reader = None          # taken off and laid again
                for _ in range(self.service.cfg.reader["m"] + 1):
                    self.service.step()
                self.on_reader = reshow
            else:
                break
            self.stats.reshown += 1
        return False

    def _submit(self, event: dict):
        v = self.ctl.submit(event)
        return v

    def _put(self, card: Card, zone: str, wanted_type: Optional[str]) -> None:
        # A card lies where it was put, a little off the zone's centre, at any angle.
        x, y = self.layout.zone_centre(zone)
        at = (x + self.rng.uniform(-8, 8), y + self.rng.uniform(-8, 8))
        self.on_table[card] = (at, self.rng.uniform(-180, 180))
        if wanted_type is None:
            return
        ok = self._frames_until(lambda e: e.get("type") == wanted_type and e.get("card") == str(card),
                                reshow=card)
        if not ok:
            # The camera never read it: the director enters it, as at a real table.
            self.stats.entered_by_hand += 1
            event = {"type": wanted_type, "card": str(card), "by": "director"}
            if wanted_type == "play":
                event["seat"] = zone
            self._submit(event)

    def _deal_through_reader(self, seat: str, card: Card) -> None:
        """The dealer lays one of the Pi's cards face down on the reader, waits for the
        table to take it, and puts it into the Pi's rack (facing away from the people)."""
        self.on_reader = card
        ok = self._frames_until(lambda e: e.get("type") == "dealt" and e.get("card") == str(card),
                                reshow=card)
        if not ok:
            self.stats.entered_by_hand += 1
            self._submit({"type": "dealt", "seat": seat, "card": str(card), "by": "director"})
        self.on_reader = None
        # The reader sees the plate empty before the next card.
        for _ in range(self.service.cfg.reader["m"]):
            self.service.step()

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
        self.folded.append((event, verdict))
        if not verdict.ok:
            self.stats.refusals.append({"event": event, "reason": verdict.reason})
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
    def play_hand(self) -> dict:
        """Play the next hand: wait for the service to start it, deal, bid, play; returns
        the hand's record."""
        ctl = self.ctl
        for _ in range(200):
            st = ctl.referee.state
            if st["phase"] == "deal" and (st["game"], st["hand"]) not in self._played:
                self._played.add((st["game"], st["hand"]))
                break
            self.service.step()
        else:
            raise RuntimeError("the table did not start the next hand")
        dealer = ctl.referee.state["dealer"]
        index = len(ctl.referee.records()) - 1
        self.truth = Hand.deal(self.rules, dealer=dealer, rng=self.rng)
        self.truth.score = tuple(ctl.referee.state["score"].values())
        # The Pi's cards go face down through the reader, seat by seat as the table asks.
        from controller.reader import reading_order
        for seat in reading_order(dealer, ctl.computers):
            for card in self.truth.cards(seat):
                self._deal_through_reader(seat, card)
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
                    self._take([up], lambda e: e.get("type") == "discard")
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
        return ctl.referee.records()[index]

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
    def calibrate(self):
        """Calibrate the zones from a frame of the empty mat, as at a real table."""
        import numpy as np
        from vision.synth import compose_frame
        from vision.zones import calibrate
        frame, _ = compose_frame([], size=self.size, rng=np.random.default_rng(self.rng.randrange(1 << 30)),
                                 **self.conditions)
        self.calibration = calibrate(frame)
        return self.calibration


def build_table(rules: Rules, seed_rng: random.Random, out_dir: Path, computer_seats=("W",),
                level: str = "hard", people_level: str = "medium", size=(640, 480),
                conditions: Optional[dict] = None, screen=None, speaker=None, clock=time.time,
                budget: Optional[float] = 0.05, first_dealer: Optional[str] = None,
                reader_conditions: Optional[dict] = None):
    """A virtual table and the real table service built on its two fake cameras, its log
    in ``out_dir``: ``(table, service)``."""
    from controller.config import check_config
    from controller.service import TableService
    from engine.bots import make_bot
    rng = seed_rng
    table = VirtualTable(None, rules, {}, rng, size=size, conditions=conditions,
                         reader_conditions=reader_conditions)
    table.calibrate().save(out_dir / "zones.json")
    dealer = first_dealer or rng.choice(SEATS)
    cfg = check_config({
        "table": {"state_dir": str(out_dir), "log": "table-log.sqlite", "first_dealer": dealer},
        "seats": {s: {"kind": "computer", "level": level} for s in computer_seats},
        "vision": {"k": 3, "m": 5, "zones": "zones.json"},
        # The reader camera is the virtual table's (passed in below); its settings here
        # are those of a camera under the plate.
        "reader": {"kind": "window", "camera": {"kind": "synthetic"}, "k": 3, "m": 3,
                   "window": table.reader_window()}}, source="virtual table")
    cfg.rules = rules
    bot_seed = rng.randrange(1 << 30)
    bots = {s: make_bot(level, seed=bot_seed + 10 + i, budget=budget)
            for i, s in enumerate(computer_seats)}
    cams = table.cameras()
    service = TableService(cfg, camera=cams["camera"], reader_camera=cams["reader_camera"],
                           screen=screen, speaker=speaker, clock=clock, bots=bots)
    table.attach(service)
    table.players = {s: make_bot(people_level, seed=bot_seed + i + 1, budget=budget)
                     for i, s in enumerate(SEATS) if s not in computer_seats}
    return table, service


def daily_seed(today) -> int:
    """The day's deal: everyone who plays on that date gets the same game (Solitaire Parlor Euchre's daily deal)."""
    return int(today.strftime("%Y%m%d"))


def simulate(rules: Rules, seed: int, out_dir: Path, computer_seat: str = "W",
             level: str = "hard", people_level: str = "medium", size=(640, 480),
             conditions: Optional[dict] = None, progress=print, clock=time.time,
             budget: Optional[float] = 0.05) -> dict:
    """Play one whole game at the virtual table; returns the summary (see ``cmd_simulate``)."""
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
    seats = [computer_seat] if isinstance(computer_seat, str) else list(computer_seat)
    table, service = build_table(rules, rng, out_dir, computer_seats=seats, level=level,
                                 people_level=people_level, size=size, conditions=conditions,
                                 screen=screen, speaker=speaker, clock=clock, budget=budget)
    ctl = service.ctl
    hands = 0
    while ctl.referee.state["winner"] is None:
        hands += 1
        record = table.play_hand()
        st = ctl.referee.state
        progress(_hand_line(hands, record, st))
        if hands > 200:
            raise RuntimeError("the game does not end")
    st = ctl.referee.state
    elapsed = time.perf_counter() - t_start
    # The next hand may have begun (the table starts it by itself): keep the finished ones.
    records = [r for r in ctl.referee.records() if r.get("status") != "dealing"]
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
    # The log alone must give the same table: replay it through a fresh referee, as any
    # reader of the log would (the finished hands' sealed cards opened by their reveals).
    from controller.log import read_events
    again = Referee(rules, known_seats=seats)
    for seq, ev in read_events(str(log_path)):
        again.feed(ev, seq=seq)
    replay_equal = again.state == st and again.records() == ctl.referee.records()
    (out_dir / "hand-records.json").write_text(json.dumps(records, indent=1, default=str))
    (out_dir / "hand-records.txt").write_text("\n\n".join(record_text(r) for r in records) + "\n")
    face_up = table.stats.face_up_secrets
    service.close()
    results = [r.get("result") or {} for r in records]
    summary = {
        "seed": seed, "rules": rules.name, "winner": st["winner"], "score": st["score"],
        "hands": len(records), "computer_seat": ",".join(seats), "level": level,
        "contracts": {t: sum(1 for r in results if r.get("makers") == t) for t in ("NS", "EW")},
        "marches": {t: sum(1 for r in results if r.get("makers") == t and r.get("march"))
                    for t in ("NS", "EW")},
        "euchres": {t: sum(1 for r in results if r.get("makers") and r.get("makers") != t
                           and r.get("euchred")) for t in ("NS", "EW")},
        "lone_hands": sum(1 for r in results if r.get("alone")),
        "revokes": sum(len(r.get("revokes") or []) for r in records),
        "frames": table.stats.frames, "reader_frames": table.stats.reader_frames,
        "cards_read": sum(1 for ev, v in table.folded if v.ok and isinstance(ev, dict)
                          and ev.get("type") in ("play", "dealt", "upcard")
                          and ev.get("by") != "director"),
        "computer_cards_face_up_overhead_before_played": face_up,
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
