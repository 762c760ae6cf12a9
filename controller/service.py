"""The table service (`euchre-table run`): devices from configuration, the main loop, faults and the watchdog."""
from __future__ import annotations

import logging
import signal
import threading
import time
from typing import Callable, Optional

from controller.config import TableConfig
from controller.log import EventLog, LogError
from controller.table import OVER_PHASES, TableController

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0


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
    """Each computer seat's level, with seed 000's table setting applied: the partner of
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
                 monotonic: Callable[[], float] = time.monotonic, notifier=None, bots=None):
        from engine.bots import make_bot
        from vision.tracker import Tracker
        self.cfg = cfg
        self.clock, self.monotonic = clock, monotonic
        self.notifier = notifier or Notifier()
        self.camera, self.open_camera = camera, open_camera
        self.panel, self.board = panel, board
        self.faults: dict = {}
        self._camera_retry_at = 0.0
        self.log = EventLog(str(cfg.path(cfg.log)))
        levels = computer_levels(cfg)
        if bots is None:
            bots = {s: make_bot(levels[s], seed=i + 1) for i, s in enumerate(cfg.computer_seats)}
        known = list(cfg.seats) if cfg.deal_scan else []
        self.ctl = TableController(cfg.rules, self.log, clock=clock, computers=bots,
                                   known_seats=known, screen=screen, speaker=speaker, leds=leds,
                                   panel=panel)
        rack = cfg.computer_seats[0] if len(cfg.computer_seats) == 1 else None
        self.tracker = Tracker(k=cfg.vision["k"], m=cfg.vision["m"], rack_seat=rack)
        self._prime_tracker()
        self.zones = None
        if cfg.vision.get("zones"):
            from vision.zones import Calibration
            self.zones = Calibration.load(cfg.path(cfg.vision["zones"]))
        self.deck = None
        if cfg.vision["mode"] == "plain":
            from vision.recognize import load_plain_deck
            self.deck = load_plain_deck(cfg.path(cfg.vision["deck"]))
        self.healthy = True
        self.stopping = threading.Event()

    # ------------------------------------------------------------------ resume
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
        try:
            self._camera_step()
            self._panel_step()
            self._board_step()
            self._next_hand()
            self.healthy = True
        except LogError as exc:
            # Without a durable log the table must not go on: stop feeding the watchdog
            # so that systemd restarts the service (which replays the log).
            self.healthy = False
            log.error("event log failed: %s", exc)
        if self.healthy:
            self.notifier.notify("WATCHDOG=1")

    def run(self, period: float = 0.03) -> int:
        """The main loop until SIGTERM/SIGINT (or ``stopping`` is set)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                signal.signal(sig, lambda *_: self.stopping.set())
            except ValueError:  # not the main thread (tests)
                pass
        status = "resumed" if self.ctl.resumed else "ready"
        self.notifier.notify(f"READY=1\nSTATUS=table {status}")
        while not self.stopping.is_set():
            t0 = self.monotonic()
            self.step()
            rest = period - (self.monotonic() - t0)
            if rest > 0:
                self.stopping.wait(rest)
        self.notifier.notify("STOPPING=1")
        self.close()
        return 0

    def submit(self, event: dict):
        return self.ctl.submit(event)

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
            if self.open_camera is not None:
                self._camera_lost("no picture")
            return
        sightings = recognize(frame, mode=self.cfg.vision["mode"], zones=self.zones,
                              deck=self.deck, decoder=self.cfg.vision["decoder"], refusals=True)
        for event in self.tracker.update(sightings):
            self.submit(event)

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
        if view is None or not view.cards:
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
        events = getattr(self.board, "events", None)
        while events is not None and not events.empty():
            ev = events.get_nowait()
            seats = self.cfg.computer_seats
            if type(ev).__name__ == "CardScanned" and seats:
                # The text as read: a card not of a Euchre pack is the referee's misdeal.
                self.submit({"type": "dealt", "seat": seats[0], "card": ev.text, "by": "scanner"})

    def _next_hand(self) -> None:
        """Start the next hand once the last one is over and its cards are swept."""
        st = self.ctl.referee.state
        if st["phase"] not in OVER_PHASES + ("no hand",) or st["winner"]:
            return
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
        for dev in (self.camera, self.panel, self.board):
            if dev is not None and hasattr(dev, "close"):
                try:
                    dev.close()
                except Exception as exc:  # closing must not hide the reason we stop
                    log.warning("closing %s: %s", type(dev).__name__, exc)
        self.log.close()


def build_devices(cfg: TableConfig) -> dict:
    """The real devices the configuration names. Only the service's entry point calls this."""
    devices: dict = {}
    if cfg.camera is not None:
        from vision.sources import open_source
        camera_cfg = dict(cfg.camera)
        devices["open_camera"] = lambda: open_source(camera_cfg)
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
