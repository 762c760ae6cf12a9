"""`euchre-table run --keys`: the real table service on a laptop, with the table typed at the keyboard.

Without a Pi there is no camera over a table, no buttons and no screen; the rest of the
service is the same. Here a line typed at the terminal says what happens at the table
(``deal JH JD AH 9C 10S``, ``up 9H``, ``N 10S``, ``sweep``), and the table is drawn into
camera frames with real card art and their QR stickers, which the service reads with its
own vision pipeline and tracker, exactly as it reads a camera. The bid buttons are
gpiozero buttons on gpiozero's fake pins, pressed by typing their names (``pass``,
``order``, ``alone``, ``hearts`` …). What the screen shows and what the speaker says are
printed as they change.

    euchre-table run --config examples/laptop.toml --keys
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from engine.cards import SEATS, Card, CardError

ZONES = ("N", "E", "S", "W", "UP", "RACK")
SUIT_BUTTONS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C",
                "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
HELP = """Type what happens at the table, one line at a time:
  deal JH JD AH 9C 10S   the Pi's cards, shown one by one in the rack zone (its seat's deal)
  up 9H                  turn up the up-card;   up off   takes it away (bidding is over)
  N 10S                  a card put down in a seat's play area (N, E, S or W)
  sweep                  the trick is swept away
  pass, order, alone, spades, hearts, diamonds, clubs, hint
                         press a bid button (ALONE first, then the bid, to go alone)
  undo                   hold the director's button: take back the last event
  show                   what lies on the table;   help;   quit"""


class KeyboardTable:
    """A table typed at the keyboard: a camera source (``read``) that draws what lies on
    the table, and the presser of the bid panel's fake buttons.

    ``service`` is the :class:`controller.service.TableService` it feeds; ``out`` prints."""

    def __init__(self, service, out: Callable[[str], None] = print, size=(640, 480),
                 seed: int = 1):
        import numpy as np
        from vision.synth import compose_frame
        from vision.zones import calibrate
        self.service = service
        self.out = out
        self.size = size
        self.on_table: dict = {}          # Card -> zone
        self._lock = threading.Lock()
        self._rng = np.random.default_rng(seed)
        self._compose = compose_frame
        self._key = self._scene = None
        # Set up as at a real table: the zones come from a frame of the empty mat.
        empty, _ = compose_frame([], size=size, rng=np.random.default_rng(seed))
        self.calibration = calibrate(empty)

    # ------------------------------------------------------------------ the camera
    def read(self):
        """The table as the camera sees it now (the scene is drawn again only when it
        changes)."""
        with self._lock:
            placed = sorted((str(c), z) for c, z in self.on_table.items())
        key = tuple(placed)
        if key != self._key:
            self._scene, _ = self._compose([{"card": c, "at": z} for c, z in placed],
                                           size=self.size, rng=self._rng)
            self._key = key
        return self._scene

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ typed lines
    def handle(self, line: str) -> Optional[str]:
        """Do what one typed line says; returns what to print (None for nothing)."""
        words = line.replace(",", " ").split()
        if not words:
            return None
        head = words[0].lower()
        if head in ("help", "?"):
            return HELP
        if head in ("quit", "exit", "q"):
            self.service.stopping.set()
            return "Stopping the table."
        if head == "show":
            with self._lock:
                placed = dict(self.on_table)
            return "On the table: " + (", ".join(f"{c.symbol} in {z}" for c, z in placed.items())
                                       or "nothing")
        if head in ("pass", "order", "alone", "hint") or head in SUIT_BUTTONS:
            return self.press(SUIT_BUTTONS.get(head, head))
        if head == "undo":
            return self.press("director", hold=True)
        if head == "sweep":
            with self._lock:
                gone = [c for c, z in self.on_table.items() if z in SEATS]
                for c in gone:
                    del self.on_table[c]
            self._wait(lambda: not any(c in self.service.tracker.placed() for c in gone))
            return None
        if head == "deal":
            cards = self._cards(words[1:])
            if isinstance(cards, str):
                return cards
            self._deal(cards)     # the next line waits until the deal is seen
            return None
        if head == "up" and words[1:2] in (["off"], ["away"]):
            with self._lock:
                gone = [c for c, z in self.on_table.items() if z == "UP"]
                for c in gone:
                    del self.on_table[c]
            self._wait(lambda: not any(c in self.service.tracker.placed() for c in gone))
            return None
        zone = "UP" if head == "up" else head.upper()
        if zone in ZONES and len(words) == 2:
            cards = self._cards(words[1:])
            if isinstance(cards, str):
                return cards
            with self._lock:
                self.on_table[cards[0]] = zone
            # The next line waits until the camera has seen the card lie there.
            self._wait(lambda c=cards[0]: self.service.tracker.placed().get(c) == zone)
            return None
        return f"Not understood: {line.strip()[:60]!r}. Type help for what to type."

    def _cards(self, texts) -> object:
        if not texts:
            return "Say which card, e.g. JH or J♥"
        try:
            return [Card(t) for t in texts]
        except (CardError, ValueError) as exc:
            return str(exc)

    def _deal(self, cards) -> None:
        # Each card lies in the rack until the camera has taken it, then goes, as the
        # dealer shows the Pi's cards one by one.
        placed = self.service.tracker.placed
        for card in cards:
            with self._lock:
                self.on_table[card] = "RACK"
            self._wait(lambda c=card: placed().get(c) == "RACK")
            with self._lock:
                self.on_table.pop(card, None)
            self._wait(lambda c=card: c not in placed())

    def _wait(self, done, seconds: float = 5.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.service.stopping.is_set():
            try:
                if done():
                    return
            except RuntimeError:  # the service's thread changed the tracker meanwhile
                pass
            time.sleep(0.02)

    def press(self, button: str, hold: bool = False) -> Optional[str]:
        """Press a button of the bid panel on its fake pin (held for the director's undo)."""
        panel = self.service.panel
        buttons = getattr(panel, "buttons", {}) if panel is not None else {}
        if button not in buttons:
            return (f"The panel has no {button} button here (give the table a [panel] "
                    "section)" if panel is not None else "This table has no bid panel")
        pin = buttons[button].pin
        pin.drive_low()                   # pulled up: pressed is low
        time.sleep(buttons[button].hold_time + 0.2 if hold else 0.08)
        pin.drive_high()
        return None

    # ------------------------------------------------------------------ the terminal
    def listen(self, read_line: Callable[[], str] = input) -> None:
        """Read lines until the end of the input or ``quit`` (a background thread)."""
        def loop():
            # The service starts the first hand in its first steps: what is typed before
            # that would come before the deal.
            deadline = time.monotonic() + 10
            while self.service.ctl.referee.state["phase"] == "no hand" and \
                    time.monotonic() < deadline and not self.service.stopping.is_set():
                time.sleep(0.05)
            self.out(HELP)
            while not self.service.stopping.is_set():
                try:
                    line = read_line()
                except (EOFError, KeyboardInterrupt):
                    break
                reply = self.handle(line)
                if reply:
                    self.out(reply)
            self.service.stopping.set()
        threading.Thread(target=loop, name="keyboard", daemon=True).start()


class PrintedScreen:
    """The screen on the terminal too: each new thing it shows is printed in one line."""

    def __init__(self, screen, out: Callable[[str], None] = print):
        self.screen, self.out = screen, out
        self._last = None

    def __getattr__(self, name):
        return getattr(self.screen, name)

    def show(self, status):
        line = _status_line(status)
        if line != self._last:
            self._last = line
            self.out(f"[screen] {line}")
        return self.screen.show(status) if self.screen is not None else True

    def step(self, pixels: int = 2) -> bool:
        return self.screen.step(pixels) if self.screen is not None else False


def _status_line(st) -> str:
    from engine.cards import SUIT_SYMBOLS
    parts = [f"NS {st.score['NS']} EW {st.score['EW']}"]
    if st.trump:
        parts.append(f"trump {SUIT_SYMBOLS[st.trump]}")
    if st.upcard:
        parts.append(f"up-card {Card(st.upcard).symbol}")
    if st.to_act:
        parts.append(f"{st.to_act} to act")
    if st.message:
        parts.append(st.message)
    return " | ".join(parts)
