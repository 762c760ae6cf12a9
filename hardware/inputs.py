"""The bid panel's buttons and the table's LEDs (gpiozero): presses become bids, LEDs show turns."""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Callable, Iterable, Optional

from engine.cards import SEATS, SUIT_NAMES

log = logging.getLogger(__name__)

BUTTONS = ("pass", "order", "alone", "S", "H", "D", "C", "hint", "director")
"""The bid panel's buttons: PASS, ORDER (take / assist / accept), ALONE, one per suit,
HINT, and DIRECTOR (short press: director menu; long press: undo)."""

DEFAULT_BUTTON_PINS = {"pass": 5, "order": 6, "alone": 13, "S": 26, "H": 16, "D": 20,
                       "C": 12, "hint": 4, "director": 27}
"""BCM pin numbers. They avoid I2C (2, 3) for the OLED, the UART (14, 15) (a console; the board is on USB),
and the I2S pins of an amplifier such as the MAX98357A (18, 19, 21)."""
DEFAULT_SEAT_LED_PINS = {"N": 22, "E": 23, "S": 24, "W": 25}
DEFAULT_RACK_LED_PINS = [7, 8, 9, 10, 11, 17]
"""Five LEDs over the computer seat's rack slots, then a sixth over the up-card's slot."""

RACK_SLOTS = 6
UPCARD_SLOT = 5


def _check_keys(config: dict, known: Iterable[str], where: str):
    if not isinstance(config, dict):
        raise ValueError(f"{where} config must be a mapping, not {config!r}")
    known = list(known)
    for key in config:
        if key not in known:
            raise ValueError(f"{where} config: unknown key {key!r} (known keys: {', '.join(known)})")


def _check_pin(value, where: str):
    # gpiozero accepts BCM numbers and names like "GPIO5" or "BOARD29"; it checks them itself
    # when the pin is opened, so here only the type is checked, for a clear early message.
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{where}: pin {value!r} should be a BCM number like 5 or a name like 'GPIO5'")
    return value


def _check_number(config, key, default, where, low=0.0, high=60.0):
    value = config.get(key, default)
    if value is None and key == "bounce_time":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{where} config: {key}={value!r} should be a number of seconds in {low}..{high}")
    return float(value)


def _check_unique(pins: dict, where: str, taken: Optional[dict] = None):
    seen = dict(taken or {})
    for name, pin in pins.items():
        if pin in seen:
            raise ValueError(f"{where}: pin {pin!r} is given to both {seen[pin]!r} and {name!r}")
        seen[pin] = name
    return seen


class BidComposer:
    """Turns button presses into the engine's action text, offering only legal bids.

    ALONE waits for the next press (pressing it again cancels); a suit names trump in
    round 2; ORDER orders up (or, for the dealer, takes) in round 1. Every press returns
    one event tuple:

    - ``("bid", text)`` a legal action, e.g. ``"order alone"`` or ``"call H"``;
    - ``("alone", True|False)`` ALONE is now pending, or cancelled;
    - ``("refused", reason)`` nothing legal matches; the reason says what to press;
    - ``("hint",)``, ``("director",)``, ``("undo",)`` pass straight through.

    >>> c = BidComposer(["pass", "call S", "call D", "call C", "call S alone",
    ...                  "call D alone", "call C alone"])
    >>> c.press("alone"), c.press("S")
    (('alone', True), ('bid', 'call S alone'))
    >>> c.press("H")
    ('refused', 'Hearts cannot be named now: name another suit or PASS')
    """

    def __init__(self, legal: Iterable[str] = ()):
        self._lock = threading.Lock()
        self.alone_pending = False
        self.legal: tuple = ()
        self.set_legal(legal)

    def set_legal(self, legal: Iterable[str]):
        """The action texts the engine accepts now (``hand.legal_actions()`` as text).
        A new set of choices clears a pending ALONE: it belonged to the last player."""
        with self._lock:
            self.legal = tuple(str(a) for a in legal)
            self.alone_pending = False

    def press(self, button: str) -> tuple:
        """The event for one press of ``button`` (one of :data:`BUTTONS`, or ``"undo"``
        for the director's long press)."""
        with self._lock:
            return self._press(button)

    def _bids(self):
        return [a for a in self.legal if a.split()[0] in ("pass", "order", "call", "defend", "take")]

    def _press(self, button: str) -> tuple:
        if button in ("hint", "director", "undo"):
            return (button,)
        if button not in BUTTONS:
            raise ValueError(f"no button {button!r}: buttons are {', '.join(BUTTONS)}")
        bids = self._bids()
        if not bids:
            self.alone_pending = False
            return ("refused", "No bid is expected now")
        alone = self.alone_pending
        self.alone_pending = False
        if button == "alone":
            if alone:
                return ("alone", False)
            if not any(a.endswith(" alone") for a in bids):
                return ("refused", "Going alone is not possible now")
            self.alone_pending = True
            return ("alone", True)
        if button == "pass":
            if "pass" in bids:
                return ("bid", "pass")
            # Stick the dealer: the dealer's last chance in round 2 has no pass.
            return ("refused", "The dealer must name a suit: PASS is not allowed")
        round_two = any(a.startswith("call ") for a in bids)
        if button == "order":
            if alone:
                for text in ("order alone", "defend alone", "take alone"):
                    if text in bids:
                        return ("bid", text)
                if round_two:
                    return ("refused", "Press a suit after ALONE")
                return ("refused", "Going alone is not possible now")
            if "order" in bids:
                return ("bid", "order")
            if round_two:
                return ("refused", "Round 2: press a suit to name trump, or PASS")
            return ("refused", "ORDER is not possible now")
        # A suit button.
        text = f"call {button}" + (" alone" if alone else "")
        if text in bids:
            return ("bid", text)
        if not round_two:
            return ("refused", "Round 1: ORDER to order up, or PASS; suits are named in round 2")
        if alone and f"call {button}" in bids:
            return ("refused", "Going alone is not possible now")
        return ("refused", f"{SUIT_NAMES[button].capitalize()} cannot be named now: name another suit or PASS")


RESULT_SEAT_BUTTONS = {"S": "N", "H": "E", "D": "S", "C": "W"}
"""At a table without a camera the suit buttons stand for the seats when a result is
keyed in, in the order of the seats: spades North, hearts East, diamonds South, clubs West."""


class ResultComposer:
    """Keys in one hand's result on the bid panel, like a bridge scoring keypad: who
    named trump (ALONE first if they went alone), the makers' tricks, who enters it,
    and an opponent's press to confirm. Only the confirmed result comes out.

    Presses: a seat (a suit button, see :data:`RESULT_SEAT_BUTTONS`), ALONE, ORDER (+1
    trick), PASS (-1 trick), HINT (accept the tricks shown), DIRECTOR (cancel). Every press
    returns ``("prompt", text)`` (what to do next), ``("refused", reason)`` or, at the
    confirmation, ``("result", {"makers", "tricks", "alone", "entered_by", "confirmed_by"})``.

    >>> r = ResultComposer()
    >>> r.press("alone"), r.press("D")[0]
    (('prompt', 'Alone: press the seat that went alone'), 'prompt')
    >>> r.press("order")
    ('prompt', 'Tricks for North-South: 4 (ORDER +1, PASS -1, HINT to accept)')
    >>> r.press("hint")[0], r.press("D")
    ('prompt', ('prompt', 'East or West: press your seat to confirm North-South 4 tricks, South alone'))
    >>> r.press("C")
    ('result', {'makers': 'NS', 'tricks': 4, 'alone': 'S', 'entered_by': 'S', 'confirmed_by': 'W'})
    """

    TEAM_WORDS = {"NS": "North-South", "EW": "East-West"}

    def __init__(self):
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.step = "maker"
        self.alone_pending = False
        self.maker: Optional[str] = None
        self.alone: Optional[str] = None
        self.tricks = 3
        self.entered_by: Optional[str] = None

    @property
    def makers(self) -> Optional[str]:
        return None if self.maker is None else ("NS" if self.maker in "NS" else "EW")

    def prompt(self) -> str:
        """What the screen asks for now."""
        if self.step == "maker":
            return "Result: press the seat that named trump (ALONE first if alone)"
        if self.step == "tricks":
            return (f"Tricks for {self.TEAM_WORDS[self.makers]}: {self.tricks} "
                    "(ORDER +1, PASS -1, HINT to accept)")
        if self.step == "entered":
            return f"{self._summary()}. Who enters it? Press your seat"
        opp = "East or West" if self.entered_by in "NS" else "North or South"
        return f"{opp}: press your seat to confirm {self._summary()}"

    def _summary(self) -> str:
        from engine.cards import SEAT_NAMES
        alone = f", {SEAT_NAMES[self.alone]} alone" if self.alone else ""
        return f"{self.TEAM_WORDS[self.makers]} {self.tricks} tricks{alone}"

    def press(self, button: str) -> tuple:
        with self._lock:
            return self._press(button)

    def _press(self, button: str) -> tuple:
        from engine.cards import SEAT_NAMES
        if button in ("director", "undo"):
            self.reset()
            return ("prompt", "Entry cancelled. " + self.prompt())
        if button not in BUTTONS:
            raise ValueError(f"no button {button!r}: buttons are {', '.join(BUTTONS)}")
        seat = RESULT_SEAT_BUTTONS.get(button)
        if self.step == "maker":
            if button == "alone":
                self.alone_pending = not self.alone_pending
                return ("prompt", "Alone: press the seat that went alone" if self.alone_pending
                        else self.prompt())
            if seat is None:
                return ("refused", "Press the seat that named trump: spades North, hearts East, "
                                   "diamonds South, clubs West")
            self.maker = seat
            self.alone = seat if self.alone_pending else None
            self.alone_pending = False
            self.step = "tricks"
            return ("prompt", self.prompt())
        if self.step == "tricks":
            if button == "order":
                self.tricks = min(5, self.tricks + 1)
            elif button == "pass":
                self.tricks = max(0, self.tricks - 1)
            elif button == "hint":
                self.step = "entered"
            else:
                return ("refused", "ORDER adds a trick, PASS takes one off, HINT accepts")
            return ("prompt", self.prompt())
        if seat is None:
            return ("refused", "Press your seat: spades North, hearts East, diamonds South, "
                               "clubs West")
        if self.step == "entered":
            self.entered_by = seat
            self.step = "confirm"
            return ("prompt", self.prompt())
        # The confirmation: an opponent of the player who entered it.
        if (seat in "NS") == (self.entered_by in "NS"):
            who = "entered it" if seat == self.entered_by else "is the partner of the one who entered it"
            return ("refused", f"{SEAT_NAMES[seat]} {who}: an opponent must confirm")
        result = {"makers": self.makers, "tricks": self.tricks, "alone": self.alone,
                  "entered_by": self.entered_by, "confirmed_by": seat}
        self.reset()
        return ("result", result)


class BidPanel:
    """The bid panel: gpiozero Buttons whose presses come out as events (see
    :class:`BidComposer`) on :attr:`events`, a thread-safe queue, and to ``on_event``.

    Build it with :func:`make_panel`. Call :meth:`set_legal` whenever the hand moves on.
    The DIRECTOR button gives ``("undo",)`` when held for ``hold_time`` and
    ``("director",)`` on a shorter press.
    """

    def __init__(self, pins: dict, pull_up: bool = True, bounce_time: Optional[float] = 0.05,
                 hold_time: float = 2.0, on_event: Optional[Callable] = None,
                 clock: Callable[[], float] = time.monotonic, pin_factory=None):
        from gpiozero import Button

        self.composer = BidComposer()
        # At a club table without a camera, presses key in hands' results instead of bids.
        self.result_entry: Optional[ResultComposer] = None
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self.on_event = on_event
        self.bounce_time = bounce_time
        self._clock = clock
        self._last_edge: dict = {}
        self._held = set()
        self._director_down = False
        self.buttons: dict = {}
        try:
            for name, pin in pins.items():
                button = Button(pin, pull_up=pull_up, bounce_time=bounce_time,
                                hold_time=hold_time, pin_factory=pin_factory)
                self.buttons[name] = button
                if name == "director":
                    button.when_pressed = self._director_pressed
                    button.when_held = self._director_held
                    button.when_released = self._director_released
                else:
                    button.when_pressed = lambda n=name: self._on_press(n)
        except Exception:
            self.close()
            raise

    def set_legal(self, legal: Iterable[str]):
        """The engine's legal action texts now; only these are emitted as bids."""
        self.composer.set_legal(legal)

    def _edge(self, name: str, kind: str) -> bool:
        """Software debounce: True when this edge is far enough from the button's last
        accepted edge. gpiozero's MockPin ignores ``bounce_time`` (gpiozero 2.0.1), so the
        same guard here makes the fake and the real pins behave alike."""
        now = self._clock()
        last = self._last_edge.get(name)
        if kind == "down" and self.bounce_time and last is not None and now - last < self.bounce_time:
            log.debug("ignored bounce on %s (%.3fs after the last press)", name, now - last)
            return False
        if kind == "down":
            self._last_edge[name] = now
        return True

    def _on_press(self, name: str):
        if self._edge(name, "down"):
            entry = self.result_entry
            self._emit(entry.press(name) if entry is not None else self.composer.press(name))

    def _director_pressed(self):
        self._director_down = self._edge("director", "down")

    def _director_held(self):
        if self._director_down:
            self._held.add("director")
            self._emit(self.composer.press("undo"))

    def _director_released(self):
        # The release decides between a short press (menu) and a hold (undo, already sent);
        # the release of a press rejected as bounce says nothing.
        if "director" in self._held:
            self._held.discard("director")
        elif self._director_down:
            entry = self.result_entry
            self._emit(entry.press("director") if entry is not None else self.composer.press("director"))
        self._director_down = False

    def _emit(self, event: tuple):
        self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a failing listener must not kill gpiozero's callback thread
                log.exception("bid panel listener failed on %r", event)

    def get(self, timeout: Optional[float] = None) -> Optional[tuple]:
        """The next event, or None after ``timeout`` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self):
        """Release the pins."""
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


def check_panel_config(config: dict) -> dict:
    """The panel configuration with defaults, or ValueError naming the wrong key.

    >>> check_panel_config({"pins": {"spades": 26}})
    Traceback (most recent call last):
    ...
    ValueError: panel config: no button 'spades' (buttons are pass, order, alone, S, H, D, C, hint, director)
    """
    _check_keys(config, ("pins", "pull_up", "bounce_time", "hold_time"), "panel")
    pins = dict(DEFAULT_BUTTON_PINS)
    given = config.get("pins", {})
    if not isinstance(given, dict):
        raise ValueError(f"panel config: pins must map button names to pins, not {given!r}")
    for name, pin in given.items():
        if name not in BUTTONS:
            raise ValueError(f"panel config: no button {name!r} (buttons are {', '.join(BUTTONS)})")
        # TOML has no null: false or "none" also leave a button out.
        left_out = pin is None or pin is False or (isinstance(pin, str) and pin.lower() == "none")
        pins[name] = None if left_out else _check_pin(pin, f"panel config: pins.{name}")
    pins = {k: v for k, v in pins.items() if v is not None}
    _check_unique(pins, "panel config")
    pull_up = config.get("pull_up", True)
    if not isinstance(pull_up, bool):
        raise ValueError(f"panel config: pull_up={pull_up!r} should be true (buttons to ground) or false")
    return {"pins": pins, "pull_up": pull_up,
            "bounce_time": _check_number(config, "bounce_time", 0.05, "panel", 0.0, 1.0),
            "hold_time": _check_number(config, "hold_time", 2.0, "panel", 0.1, 10.0)}


def make_panel(config: dict, on_event: Optional[Callable] = None, pin_factory=None,
               clock: Callable[[], float] = time.monotonic) -> BidPanel:
    """The bid panel for a configuration such as
    ``{"pins": {"pass": 5, ...}, "pull_up": True, "bounce_time": 0.05, "hold_time": 2.0}``.

    Pins left out take :data:`DEFAULT_BUTTON_PINS`; a pin of ``None`` (``false`` or
    ``"none"`` in TOML) leaves that button out. Which pins are real is gpiozero's choice (``GPIOZERO_PIN_FACTORY``; ``mock``
    for the fake panel).
    """
    c = check_panel_config(config)
    return BidPanel(c["pins"], pull_up=c["pull_up"], bounce_time=c["bounce_time"],
                    hold_time=c["hold_time"], on_event=on_event, clock=clock,
                    pin_factory=pin_factory)


class SeatLeds:
    """One LED per seat showing whose turn it is: one on at a time, blinking when the
    seat to act is the computer's (so players know to wait for its card)."""

    def __init__(self, pins: dict, active_high: bool = True, blink: float = 0.4, pin_factory=None):
        from gpiozero import LED

        self.leds: dict = {}
        self.blink_time = blink
        self.turn: Optional[str] = None
        try:
            for seat in SEATS:
                if seat in pins:
                    self.leds[seat] = LED(pins[seat], active_high=active_high, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def show_turn(self, seat: Optional[str], computer: bool = False):
        """Light ``seat``'s LED (blink it when ``computer``); None turns all off."""
        if seat is not None and seat not in SEATS:
            raise ValueError(f"{seat!r} is not a seat: use N, E, S or W")
        self.turn = seat
        for s, led in self.leds.items():
            if s != seat:
                led.off()
        if seat in self.leds:
            if computer:
                self.leds[seat].blink(on_time=self.blink_time, off_time=self.blink_time)
            else:
                self.leds[seat].on()

    def off(self):
        self.show_turn(None)

    def close(self):
        for led in self.leds.values():
            led.close()
        self.leds.clear()


class RackLeds:
    """LEDs over the computer seat's rack: slots 0-4 hold its cards, slot 5 the up-card
    it picked up. The slot of the card to play or discard blinks."""

    def __init__(self, pins: list, active_high: bool = True, blink: float = 0.25, pin_factory=None):
        from gpiozero import LED

        self.leds: list = []
        self.blink_time = blink
        self.slot: Optional[int] = None
        try:
            for pin in pins:
                self.leds.append(LED(pin, active_high=active_high, pin_factory=pin_factory))
        except Exception:
            self.close()
            raise

    def point(self, slot: Optional[int]):
        """Blink the LED over ``slot`` (0-based) and turn the others off; None: all off."""
        if slot is not None and not (isinstance(slot, int) and 0 <= slot < len(self.leds)):
            raise ValueError(f"rack slot {slot!r} does not exist: slots are 0..{len(self.leds) - 1}")
        self.slot = slot
        for i, led in enumerate(self.leds):
            if i != slot:
                led.off()
        if slot is not None:
            self.leds[slot].blink(on_time=self.blink_time, off_time=self.blink_time)

    def off(self):
        self.point(None)

    def close(self):
        for led in self.leds:
            led.close()
        self.leds.clear()


class TableLeds:
    """The seat LEDs and the rack LEDs together; either may be absent (None). ``racks``
    holds the racks of further computer seats (seat -> RackLeds); ``rack`` serves the first."""

    def __init__(self, seats: Optional[SeatLeds], rack: Optional[RackLeds],
                 racks: Optional[dict] = None):
        self.seats = seats
        self.rack = rack
        self.racks = dict(racks or {})

    def rack_of(self, seat: Optional[str], first: bool = True) -> Optional[RackLeds]:
        """The rack LEDs of a computer seat: its own (``racks``), else the main rack when
        it is the first computer seat."""
        if seat in self.racks:
            return self.racks[seat]
        return self.rack if first else None

    def close(self):
        for part in (self.seats, self.rack, *self.racks.values()):
            if part is not None:
                part.close()


def check_leds_config(config: dict) -> dict:
    """The LED configuration with defaults, or ValueError naming the wrong key.

    Keys: ``seats`` ({"N": 22, ...}; None or {} for no seat LEDs), ``rack`` (six pins;
    None or [] for none), ``racks`` (further computer seats' racks: {"E": [six pins]}),
    ``active_high`` (bool), ``blink`` (seconds on and off).
    """
    _check_keys(config, ("seats", "rack", "racks", "active_high", "blink"), "leds")
    seats = config.get("seats", DEFAULT_SEAT_LED_PINS)
    if seats is not None:
        if not isinstance(seats, dict):
            raise ValueError(f"leds config: seats must map N/E/S/W to pins, not {seats!r}")
        for seat, pin in seats.items():
            if seat not in SEATS:
                raise ValueError(f"leds config: seats.{seat}: no such seat (use N, E, S, W)")
            _check_pin(pin, f"leds config: seats.{seat}")
    rack = config.get("rack", DEFAULT_RACK_LED_PINS)
    # TOML has no null: an empty table or list also means "no such LEDs".
    if seats == {}:
        seats = None
    if isinstance(rack, (list, tuple)) and len(rack) == 0:
        rack = None
    if rack is not None:
        if not isinstance(rack, (list, tuple)) or len(rack) != RACK_SLOTS:
            raise ValueError(f"leds config: rack must list {RACK_SLOTS} pins (5 card slots, then the "
                             f"up-card slot), not {rack!r}")
        for i, pin in enumerate(rack):
            _check_pin(pin, f"leds config: rack[{i}]")
    taken = _check_unique(dict(seats or {}), "leds config")
    taken = _check_unique({f"rack[{i}]": p for i, p in enumerate(rack or [])}, "leds config", taken)
    racks = config.get("racks") or {}
    if not isinstance(racks, dict):
        raise ValueError(f"leds config: racks must map a computer seat to its 6 rack pins, "
                         f"e.g. {{E = [...]}}, not {racks!r}")
    for seat, pins in racks.items():
        if seat not in SEATS:
            raise ValueError(f"leds config: racks.{seat}: no such seat (use N, E, S, W)")
        if not isinstance(pins, (list, tuple)) or len(pins) != RACK_SLOTS:
            raise ValueError(f"leds config: racks.{seat} must list {RACK_SLOTS} pins (5 card "
                             f"slots, then the up-card slot), not {pins!r}")
        for i, pin in enumerate(pins):
            _check_pin(pin, f"leds config: racks.{seat}[{i}]")
        taken = _check_unique({f"racks.{seat}[{i}]": p for i, p in enumerate(pins)},
                              "leds config", taken)
    active_high = config.get("active_high", True)
    if not isinstance(active_high, bool):
        raise ValueError(f"leds config: active_high={active_high!r} should be true or false")
    return {"seats": seats, "rack": list(rack) if rack is not None else None,
            "racks": {seat: list(pins) for seat, pins in racks.items()},
            "active_high": active_high,
            "blink": _check_number(config, "blink", 0.4, "leds", 0.02, 5.0)}


def make_leds(config: dict, pin_factory=None) -> TableLeds:
    """Seat and rack LEDs for a configuration such as
    ``{"seats": {"N": 22, "E": 23, "S": 24, "W": 25}, "rack": [7, 8, 9, 10, 11, 17]}``."""
    c = check_leds_config(config)
    seats = rack = None
    racks: dict = {}
    try:
        if c["seats"] is not None:
            seats = SeatLeds(c["seats"], c["active_high"], c["blink"], pin_factory=pin_factory)
        if c["rack"] is not None:
            rack = RackLeds(c["rack"], c["active_high"], c["blink"] / 2, pin_factory=pin_factory)
        for seat, pins in c["racks"].items():
            racks[seat] = RackLeds(pins, c["active_high"], c["blink"] / 2, pin_factory=pin_factory)
    except Exception:
        for part in (seats, rack, *racks.values()):
            if part is not None:
                part.close()
        raise
    return TableLeds(seats, rack, racks)
