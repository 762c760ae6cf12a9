"""The table service (`euchre-table run`): devices from configuration, the main loop, faults and the watchdog."""
from __future__ import annotations

import logging
import signal
import threading
import time
from typing import Callable, Optional

from controller.config import TableConfig
from controller.log import LogError, open_log
from controller.table import OVER_PHASES, TableController

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0
READER_IDLE_SECONDS = 1.0
"""Outside the deal the reader camera is read this often, only to notice a fault."""


class Notifier:
    """systemd's notification socket through sdnotify; silent when not under systemd."""

    def __init__(self):
        try:
            import sdnotify
            self._n = sdnotify.SystemdNotifier()
        except ImportError:  # the service still runs without it, just unwatched
            self._n = None

    def notify(self, state: str) -> None:
        if self._n is not None:
            self._n.notify(state)


def computer_levels(cfg: TableConfig) -> dict:
    """Each computer seat's level, with the skill.games app's table setting applied: the partner of
    a person plays at least at Hard (at Insane when any computer here plays Insane)."""
    order = ("easy", "medium", "hard", "insane")
    top = max((cfg.seats[s].level for s in cfg.computer_seats), key=order.index, default="hard")
    levels = {}
    for s in cfg.computer_seats:
        level = cfg.seats[s].level
        partner = "NESW"[("NESW".index(s) + 2) % 4]
        if cfg.partner_at_least_hard and cfg.seats[partner].kind == "person":
            floor = "insane" if top == "insane" else "hard"
            level = max(level, floor, key=order.index)
        levels[s] = level
    return levels


class TableService:
    """The real table. Devices are passed in (tests give fakes); :func:`build_devices`
    makes the real ones from the configuration in the entry point only.

    ``step()`` runs one pass of the main loop: a camera frame through vision and the
    tracker, the bid panel's presses, the board's events, the next hand when one is over,
    device faults and their recovery, and the watchdog. Every input goes through the
    table controller, which logs it before the referee sees it."""

    def __init__(self, cfg: TableConfig, camera=None, open_camera: Optional[Callable] = None,
                 screen=None, panel=None, leds=None, speaker=None, board=None,
                 clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic, notifier=None, bots=None,
                 reader_camera=None, open_reader_camera: Optional[Callable] = None):
        from controller.reader import DealReader
        from controller.secrecy import Sealer
        from engine.bots import make_bot
        from vision.tracker import Tracker
        self.cfg = cfg
        self.clock, self.monotonic = clock, monotonic
        self.notifier = notifier or Notifier()
        self.camera, self.open_camera = camera, open_camera
        self.reader_camera, self.open_reader_camera = reader_camera, open_reader_camera
        self.panel, self.board = panel, board
        self.faults: dict = {}
        self._camera_retry_at = 0.0
        self._reader_retry_at = 0.0
        self._reader_idle_at = 0.0
        self.zones = None
        if cfg.vision.get("zones"):
            from vision.zones import Calibration
            self.zones = Calibration.load(cfg.path(cfg.vision["zones"]))
        self.deck = self.table = None
        if cfg.vision["mode"] == "plain":
            from vision.plain.background import TableModel
            from vision.recognize import load_plain_deck
            self.deck = load_plain_deck(cfg.path(cfg.vision["deck"]))
            self.deck.prepare()      # now, so that no frame of play waits for it
            # The camera's frames teach it the empty table (seen before every hand),
            # against which cards are found on any surface.
            self.table = TableModel()
        # The one writer of the log; a damaged log is recovered into a new one first.
        self.log, self.recovery = open_log(str(cfg.path(cfg.log)))
        levels = computer_levels(cfg)
        if bots is None:
            bots = {s: make_bot(levels[s], seed=i + 1) for i, s in enumerate(cfg.computer_seats)}
        known = list(cfg.seats) if cfg.deal_scan else []
        self.ctl = TableController(cfg.rules, self.log, clock=clock, computers=bots,
                                   known_seats=known, screen=screen, speaker=speaker, leds=leds,
                                   panel=panel, sealer=Sealer.for_state_dir(cfg.state_dir))
        reader = cfg.reader or {}
        practice_rack = reader.get("kind") == "rack"
        rack = cfg.computer_seats[0] if len(cfg.computer_seats) == 1 and practice_rack else None
        # The overhead camera: a face-up card in the old rack zone counts only in a practice
        # game; otherwise it is refused without being named.
        self.tracker = Tracker(k=cfg.vision["k"], m=cfg.vision["m"], rack_seat=rack,
                               rack_face_up=practice_rack)
        self._prime_tracker()
        if self.recovery is not None:
            self._announce_recovery()
        self.ctl.exposed = lambda: set(self.tracker.placed())
        # The private reader: the reader window's camera or the board's card scanner.
        seats = list(cfg.seats) if cfg.deal_scan else cfg.computer_seats
        self.reader = DealReader(self.ctl, seats, announce=reader.get("announce", True)) \
            if reader.get("kind") in ("window", "scanner") else None
        self.reader_tracker = self.reader_window = self.reader_deck = None
        if reader.get("kind") == "window":
            from vision.tracker import ReaderTracker
            from vision.zones import ReaderWindow
            self.reader_tracker = ReaderTracker(k=reader["k"], m=reader["m"])
            self.reader_window = ReaderWindow(reader["window"])
            if reader["mode"] == "plain":
                from vision.recognize import load_plain_deck
                self.reader_deck = load_plain_deck(cfg.path(reader["deck"]))
        self.healthy = True
        self._live_frame = False       # this pass read a frame from a live camera
        self.stopping = threading.Event()
        self.club = None
        if cfg.club is not None:
            # A club night: the log is published to the hall on the link's own thread.
            from controller.club import ClubTable
            self.club = ClubTable(cfg.club, self.ctl, cfg.path(cfg.log), cfg.state_dir, clock=clock)
            if cfg.club.entry == "panel" and panel is not None:
                from hardware.inputs import ResultComposer
                panel.result_entry = ResultComposer()
                self.ctl.last_message = panel.result_entry.prompt()
            self.club.start()

    # ------------------------------------------------------------------ resume
    def _announce_recovery(self) -> None:
        """Say on the screen, the speaker and in the journal that the log was damaged
        and what the table resumed from."""
        r = self.recovery
        st = self.ctl.referee.state
        where = (f"Resumed at event {st['seq']}: score NS {st['score']['NS']}, "
                 f"EW {st['score']['EW']}" if r.events else "Starting a new game")
        text = f"{r.message()}. {where}"
        log.warning("%s (method: %s; damage: %s)", text, r.method, r.problem or "unknown")
        self.ctl.last_message = text
        self.ctl._say(f"The table's log was damaged. {r.events} events were recovered. "
                      f"{where}", priority=True)
        self.ctl._show()

    def _prime_tracker(self) -> None:
        """After a restart the cards of the trick in progress (and the up-card) still lie
        on the table: the tracker takes them as already placed, so that seeing them
        again does not make them new plays."""
        st = self.ctl.referee.state
        placed = {card: seat for seat, card in st.get("trick") or []}
        if st.get("upcard") and st["phase"] in ("deal", "round 1", "overcall"):
            placed[st["upcard"]] = "UP"
        for card, zone in placed.items():
            self.tracker.assume(card, zone)

    # ------------------------------------------------------------------ the loop
    def step(self) -> None:
        self._tick_screen()
        try:
            self._camera_step()
            self._reader_step()
            self._panel_step()
            self._board_step()
            self._next_hand()
            if self.club is not None:
                self.club.step()
            self.healthy = True
        except LogError as exc:
            # Without a durable log the table must not go on: stop feeding the watchdog
            # so that systemd restarts the service (which replays the log).
            self.healthy = False
            log.error("event log failed: %s", exc)
        if self.healthy:
            self.notifier.notify("WATCHDOG=1")

    def _tick_screen(self, every: float = 0.15, pixels: int = 3) -> None:
        """Scroll a message too long for the screen's bottom line, a few pixels at a time."""
        screen = self.ctl.screen
        if screen is None or not hasattr(screen, "step"):
            return
        now = self.monotonic()
        if now - getattr(self, "_ticked_at", 0.0) >= every:
            self._ticked_at = now
            screen.step(pixels)

    def run(self, period: float = 0.03) -> int:
        """The main loop until SIGTERM/SIGINT (or ``stopping`` is set): a pass every
        ``period`` seconds, or, with a live camera (a source whose ``live`` is true), a
        pass for each of its frames as soon as it arrives."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                signal.signal(sig, lambda *_: self.stopping.set())
            except ValueError:  # not the main thread (tests)
                pass
        status = "resumed" if self.ctl.resumed else "ready"
        self.notifier.notify(f"READY=1\nSTATUS=table {status}")
        while not self.stopping.is_set():
            t0 = self.monotonic()
            self._live_frame = False
            self.step()
            if self._live_frame:
                # A live camera's read() waits for its next frame, which paces the loop: a
                # pause here as well would leave each new frame waiting (up to a frame
                # period) before it is read, and the card laid later on the screen.
                continue
            rest = period - (self.monotonic() - t0)
            if rest > 0:
                self.stopping.wait(rest)
        self.notifier.notify("STOPPING=1")
        self.close()
        return 0

    def submit(self, event: dict):
        verdict = self.ctl.submit(event)
        if self.club is not None:
            self.club.note_event(event)
        return verdict

    # ------------------------------------------------------------------ inputs
    def _camera_step(self) -> None:
        from vision.recognize import recognize
        from vision.sources import CameraError
        if self.camera is None:
            if self.open_camera is None or self.monotonic() < self._camera_retry_at:
                return
            try:
                self.camera = self.open_camera()
            except (CameraError, OSError, ValueError) as exc:
                self._fault("camera", f"Camera not found: {exc}. Retrying; bids still work "
                                      "from the buttons")
                self._camera_retry_at = self.monotonic() + RETRY_SECONDS
                return
            self._recovered("camera", "Camera back")
        try:
            frame = self.camera.read()
        except (CameraError, OSError) as exc:
            self._camera_lost(str(exc))
            return
        if frame is None:
            if getattr(self.camera, "recorded", False):
                self._recording_ended()
            elif self.open_camera is not None:
                self._camera_lost("no picture")
            return
        self._live_frame = bool(getattr(self.camera, "live", False))
        sightings = recognize(frame, mode=self.cfg.vision["mode"], zones=self.zones,
                              deck=self.deck, decoder=self.cfg.vision["decoder"], refusals=True,
                              table=self.table)
        for event in self.tracker.update(sightings):
            self.submit(event)
            st = self.ctl.referee.state
            if (event.get("type") == "removed" and event.get("zone") == "UP"
                    and st["phase"] == "discard" and st["dealer"] not in self.ctl.computers):
                # A person dealer who took the up-card has laid a card aside face down:
                # the table learns of the discard from the up-card leaving its spot.
                self.submit({"type": "discard", "seat": st["dealer"], "by": "camera"})

    def _recording_ended(self) -> None:
        """A recorded source (a folder of frames, a video) has no more frames: that is
        the end of the recording, not a cable to check; nothing is retried."""
        what = getattr(self.camera, "path", None) or type(self.camera).__name__
        text = f"The camera recording {what} has ended: no more cards will be seen"
        try:
            self.camera.close()
        finally:
            self.camera, self.open_camera = None, None
        log.warning("%s", text)
        self.ctl.last_message = text
        self.ctl._say(text)
        self.ctl._show()

    def _reader_step(self) -> None:
        """One frame of the reader window's camera: a card read there is dealt (sealed) to
        the seat being dealt; its faults are handled like the overhead camera's."""
        from vision.recognize import recognize
        from vision.sources import CameraError
        if self.reader is None:
            return
        self.reader.poll()
        if self.reader_tracker is None:
            return
        if self.reader_camera is None:
            if self.open_reader_camera is None or self.monotonic() < self._reader_retry_at:
                return
            try:
                self.reader_camera = self.open_reader_camera()
            except (CameraError, OSError, ValueError) as exc:
                self._fault("reader", f"Reader camera not found: {exc}. Retrying; the "
                                      "computer's cards wait for it")
                self._reader_retry_at = self.monotonic() + RETRY_SECONDS
                return
            self._recovered("reader", "Reader camera back")
        dealing = self.reader.seat_to_read() is not None
        if not dealing and self.monotonic() < self._reader_idle_at:
            return
        try:
            frame = self.reader_camera.read()
        except (CameraError, OSError) as exc:
            self._reader_lost(str(exc))
            return
        if frame is None:
            if self.open_reader_camera is not None:
                self._reader_lost("no picture")
            return
        if not dealing:
            # Nothing to read outside the deal: a frame now and then only shows that the
            # camera is still there (on a Pi the CPU is better spent on the overhead camera).
            self._reader_idle_at = self.monotonic() + READER_IDLE_SECONDS
            self.reader_tracker.reset()
            return
        r = self.cfg.reader
        sightings = recognize(self.reader_window.mask(frame), mode=r["mode"],
                              zones=self.reader_window.for_frame(frame),
                              deck=self.reader_deck, decoder=r["decoder"], refusals=True)
        for event in self.reader_tracker.update(sightings):
            kind = event.get("type")
            if kind == "read":
                self.reader.on_card(event["card"], by="reader")
            elif kind == "vision_error" and self.reader.seat_to_read() is not None:
                # Never named: the reader's cards are secret.
                self.submit({"type": "vision_error", "cards": [], "by": "reader",
                             "reason": event["reason"]})

    def _reader_lost(self, why: str) -> None:
        try:
            self.reader_camera.close()
        except Exception:  # a camera that is gone may fail to close too
            pass
        self.reader_camera = None
        self._reader_retry_at = self.monotonic() + RETRY_SECONDS
        self._fault("reader", f"Reader camera lost ({why}): check its cable. Retrying")

    def _camera_lost(self, why: str) -> None:
        try:
            self.camera.close()
        except Exception:  # a camera that is gone may fail to close too
            pass
        self.camera = None
        self._camera_retry_at = self.monotonic() + RETRY_SECONDS
        self._fault("camera", f"Camera lost ({why}): check its cable. Retrying")

    def _panel_step(self) -> None:
        if self.panel is None:
            return
        while True:
            event = self.panel.get(timeout=0)
            if event is None:
                return
            self.on_panel(event)

    def on_panel(self, event: tuple) -> None:
        """One composed press of the bid panel (see hardware.inputs.BidComposer)."""
        kind = event[0]
        st = self.ctl.referee.state
        if kind in ("result", "prompt") and self.club is not None:
            # A table without a camera: a hand's result keyed in and confirmed.
            if kind == "result":
                self.club.log_result(event[1])
            else:
                self.ctl.last_message = event[1]
                self.ctl._show()
            return
        if kind == "bid":
            self.submit({"type": "bid", "seat": st["to_act"], "bid": event[1], "by": "panel"})
        elif kind == "undo":
            self.submit({"type": "undo", "by": "director"})
        elif kind == "hint":
            self._hint()
        elif kind == "refused":
            self.ctl.last_message = event[1]
            self.ctl._show()

    def _hint(self) -> None:
        """A hint for the seat to act, when its cards are known (deal scan)."""
        st = self.ctl.referee.state
        view = self.ctl.referee.view(st["to_act"]) if st["to_act"] else None
        if st["to_act"] in self.ctl.computers:
            # The hint would be the computer's own choice, from cards nobody may see.
            self.ctl.last_message = "No hint for the computer's seat"
        elif view is None or not view.cards:
            self.ctl.last_message = "No hint: the table does not know this player's cards"
        else:
            from engine.bots import make_bot
            action, reason = make_bot("insane", seed=st["seq"]).advise(view)
            self.ctl.last_message = f"Hint: {action}. {reason}"
        self.ctl._show()

    def _board_step(self) -> None:
        if self.board is None:
            return
        status = getattr(self.board, "status", "connected")
        if status in ("unplugged", "lost", "incompatible"):
            self._fault("board", f"Board {status}: retrying")
        elif "board" in self.faults and status == "connected":
            self._recovered("board", "Board back")
        if status == "connected" and (self.cfg.reader or {}).get("kind") == "scanner":
            info = getattr(self.board, "board", None)
            caps = getattr(info, "capabilities", None)
            if isinstance(caps, int) and not caps & 0x10:
                self._fault("scanner", "The board has no card scanner: the computer's cards "
                                       "cannot be read ([reader] kind = \"scanner\")")
        events = getattr(self.board, "events", None)
        while events is not None and not events.empty():
            ev = events.get_nowait()
            if type(ev).__name__ == "CardScanned":
                self._scanned(ev.text)

    def _scanned(self, text: str) -> None:
        """A card read by the board's scanner: dealt (sealed) to the seat being dealt."""
        from controller.reader import card_of_scan
        if self.reader is None:
            self.ctl.announce("The board's scanner read a card, but the reader is not the "
                              "scanner ([reader] kind = \"scanner\")")
            return
        card, problem = card_of_scan(text)
        if problem is not None:
            self.ctl.announce(problem[0].upper() + problem[1:])
            return
        # A text not of a Euchre pack (a 2 of clubs) is passed on: the referee's misdeal.
        self.reader.on_card(card, by="scanner")

    def _next_hand(self) -> None:
        """Start the next hand once the last one is over and its cards are swept."""
        st = self.ctl.referee.state
        if st["phase"] not in OVER_PHASES + ("no hand",) or st["winner"]:
            return
        if self.club is not None and not self.club.wants_hand():
            return      # a club night: hands are dealt only in a round the hall started
        on_table = [z for z in self.tracker.placed().values() if z in ("N", "E", "S", "W")]
        event = self.ctl.next_hand_event()
        if event is None and st["phase"] == "no hand":
            first = self.cfg.first_dealer
            if first == "random":
                first = "NESW"[int(self.clock()) % 4]
            event = {"type": "hand", "dealer": first}
        if event is not None and not on_table:
            self.submit(event)

    # ------------------------------------------------------------------ faults
    def _fault(self, device: str, text: str) -> None:
        if self.faults.get(device) != text:
            self.faults[device] = text
            log.warning("%s", text)
            self.ctl.fault = text
            self.ctl._say(text, priority=True)
            self.ctl._show()

    def _recovered(self, device: str, text: str) -> None:
        if self.faults.pop(device, None) is not None:
            self.ctl.fault = next(iter(self.faults.values()), None)
            self.ctl.last_message = text
            self.ctl._say(text)
            self.ctl._show()

    def close(self) -> None:
        if self.club is not None:
            self.club.stop()
        for dev in (self.camera, self.reader_camera, self.panel, self.board, self.ctl.leds):
            if dev is not None and hasattr(dev, "close"):
                try:
                    dev.close()
                except Exception as exc:  # closing must not hide the reason we stop
                    log.warning("closing %s: %s", type(dev).__name__, exc)
        self.log.close()


def build_devices(cfg: TableConfig) -> dict:
    """The real devices the configuration names. Only the service's entry point calls this."""
    from vision.sources import open_source
    devices: dict = {}
    if cfg.camera is not None:
        camera_cfg = dict(cfg.camera)
        devices["open_camera"] = lambda: open_source(camera_cfg)
    if cfg.reader is not None and cfg.reader.get("camera") is not None:
        reader_cfg = dict(cfg.reader["camera"])
        devices["open_reader_camera"] = lambda: open_source(reader_cfg)
    if cfg.display is not None:
        from hardware.display import make_display
        devices["screen"] = make_display(cfg.display)
    if cfg.panel is not None:
        from hardware.inputs import make_panel
        devices["panel"] = make_panel(cfg.panel)
    if cfg.leds is not None:
        from hardware.inputs import make_leds
        devices["leds"] = make_leds(cfg.leds)
    if cfg.speaker is not None:
        from hardware.speaker import make_speaker
        devices["speaker"] = make_speaker(cfg.speaker)
    if cfg.board:
        from firmware_host.config import make_board
        board = make_board(cfg.board)
        if board is not None:
            board.start()
        devices["board"] = board
    return devices
