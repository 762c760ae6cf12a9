"""Messages of the board link and their compact binary payloads (protocol 1.0).

Every message is a frozen dataclass that knows its type number and how to turn
itself into payload bytes and back. Integers are big-endian; text is one length
byte followed by UTF-8 (why binary and not JSON: see docs/protocol.md).

>>> Beep(440, 100).payload().hex()
'01b80064'
>>> decode(Packet(type=Beep.TYPE, seq=3, payload=bytes.fromhex("01b80064")))
Beep(frequency_hz=440, duration_ms=100)
>>> ButtonEvent(button=2, pressed=True)
ButtonEvent(button=2, pressed=True)
"""
from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, field
from typing import ClassVar, Optional

from engine.cards import Card, CardError, SEATS

from .framing import Packet

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0
SUPPORTED_MAJORS = (1,)
"""Protocol major versions this host speaks; a board with another major is refused."""

# Capability bits announced by the board in its identify response.
CAPABILITIES = {"buttons": 0x01, "leds": 0x02, "ring": 0x04, "beeper": 0x08, "scanner": 0x10}

RING_PATTERNS = ("off", "solid", "spin", "pulse", "seat")
"""LED ring patterns: `seat` lights the arc pointing at one seat (whose turn it is)."""

RESYNC_NOT_IDENTIFIED = 1


class MessageError(ValueError):
    """A payload that does not fit its message type, or a value out of range."""


def _text(value: str, what: str, limit: int = 64) -> bytes:
    data = value.encode("utf-8")
    if len(data) > limit:
        raise MessageError(f"{what} is {len(data)} bytes long; the limit is {limit}")
    return bytes((len(data),)) + data


def _read_text(data: bytes, offset: int, what: str) -> tuple[str, int]:
    if offset >= len(data):
        raise MessageError(f"{what} is missing")
    length = data[offset]
    end = offset + 1 + length
    if end > len(data):
        raise MessageError(f"{what} says {length} bytes but only {len(data) - offset - 1} follow")
    try:
        return data[offset + 1:end].decode("utf-8"), end
    except UnicodeDecodeError:
        raise MessageError(f"{what} is not UTF-8") from None


def _byte(value, what: str, top: int = 255) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
        raise MessageError(f"{what} must be an integer 0..{top}, got {value!r}")
    return value


class Message:
    """Base of all messages. `SEQUENCED` messages carry a sequence number and are acked."""

    TYPE: ClassVar[int]
    SEQUENCED: ClassVar[bool] = True
    FORMAT: ClassVar[Optional[str]] = None  # struct format of a fixed-size payload

    def payload(self) -> bytes:
        """The payload bytes of this message."""
        return struct.pack(self.FORMAT, *self._fields())

    def _fields(self) -> tuple:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        """Parse a payload; `lenient` ignores extra trailing bytes (a newer minor version)."""
        size = struct.calcsize(cls.FORMAT)
        if len(data) != size and not (lenient and len(data) > size):
            raise MessageError(f"{cls.__name__} payload must be {size} bytes, got {len(data)}")
        return cls(*struct.unpack_from(cls.FORMAT, data))


# --- link control (not sequenced, never acked) -------------------------------------

@dataclass(frozen=True)
class Identify(Message):
    """Host → board: start a session. Sent until answered.

    `prev_session` and `prev_next_seq` tell the board which of its events the host
    already has, so an event in flight when the cable was pulled is not delivered twice.
    """

    TYPE: ClassVar[int] = 0x01
    SEQUENCED: ClassVar[bool] = False
    FORMAT: ClassVar[str] = ">BBHHB"
    major: int = PROTOCOL_MAJOR
    minor: int = PROTOCOL_MINOR
    session: int = 0
    prev_session: int = 0
    prev_next_seq: int = 0


@dataclass(frozen=True)
class IdentifyResponse(Message):
    """Board → host: who the board is, what it has, and what it got in its last session.

    The first two payload bytes (major, minor) keep their place in every protocol
    version, so a host can always say which version a board speaks.
    """

    TYPE: ClassVar[int] = 0x02
    SEQUENCED: ClassVar[bool] = False
    FORMAT: ClassVar[str] = ">BBHHBHBBB"
    major: int
    minor: int
    session: int
    prev_session: int
    prev_next_seq: int
    capabilities: int
    buttons: int
    leds: int
    ring_leds: int
    firmware: str = ""
    name: str = ""

    def payload(self) -> bytes:
        fixed = struct.pack(self.FORMAT, *self._fields()[:9])
        return fixed + _text(self.firmware, "firmware version", 32) + _text(self.name, "board name", 32)

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        size = struct.calcsize(cls.FORMAT)
        if len(data) < size:
            raise MessageError(f"IdentifyResponse payload must be at least {size} bytes")
        fixed = struct.unpack_from(cls.FORMAT, data)
        firmware, offset = _read_text(data, size, "firmware version")
        name, offset = _read_text(data, offset, "board name")
        if offset != len(data) and not lenient:
            raise MessageError(f"IdentifyResponse has {len(data) - offset} stray bytes")
        return cls(*fixed, firmware=firmware, name=name)

    @property
    def capability_names(self) -> list[str]:
        """The capabilities as words: ``["buttons", "ring", ...]``."""
        return [name for name, bit in CAPABILITIES.items() if self.capabilities & bit]

    def describe(self) -> str:
        """One line for logs: name, firmware, protocol and capabilities."""
        return (f"{self.name or 'board'} firmware {self.firmware or '?'}, protocol "
                f"{self.major}.{self.minor}, {', '.join(self.capability_names) or 'no capabilities'}")


@dataclass(frozen=True)
class Ack(Message):
    """Either way: the message with this frame's sequence number arrived."""

    TYPE: ClassVar[int] = 0x03
    SEQUENCED: ClassVar[bool] = False
    FORMAT: ClassVar[str] = ">"


@dataclass(frozen=True)
class Heartbeat(Message):
    """Either way, every heartbeat interval: "I am still here" (with the sender's uptime)."""

    TYPE: ClassVar[int] = 0x04
    SEQUENCED: ClassVar[bool] = False
    FORMAT: ClassVar[str] = ">I"
    uptime_ms: int = 0


@dataclass(frozen=True)
class Resync(Message):
    """Board → host: "I have no session (I restarted): identify me again"."""

    TYPE: ClassVar[int] = 0x05
    SEQUENCED: ClassVar[bool] = False
    FORMAT: ClassVar[str] = ">B"
    reason: int = RESYNC_NOT_IDENTIFIED


# --- commands: host → board, sequenced -----------------------------------------------

@dataclass(frozen=True)
class SetLeds(Message):
    """Set plain or RGB LEDs: a tuple of ``(led, r, g, b)``; a plain LED is on when any is > 0.

    >>> SetLeds(((0, 255, 0, 0), (3, 0, 0, 0))).payload().hex()
    '00ff000003000000'
    """

    TYPE: ClassVar[int] = 0x10
    leds: tuple = ()

    def __post_init__(self):
        if not 1 <= len(self.leds) <= 16:
            raise MessageError(f"SetLeds takes 1..16 (led, r, g, b) entries, got {len(self.leds)}")
        for entry in self.leds:
            if len(entry) != 4:
                raise MessageError(f"each LED entry is (led, r, g, b), got {entry!r}")
            for value in entry:
                _byte(value, "LED number and colour values")
        object.__setattr__(self, "leds", tuple(tuple(e) for e in self.leds))

    def payload(self) -> bytes:
        return b"".join(bytes(e) for e in self.leds)

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        if not data or len(data) % 4 or len(data) > 64:
            raise MessageError(f"SetLeds payload must be 4..64 bytes in fours, got {len(data)}")
        return cls(tuple(tuple(data[i:i + 4]) for i in range(0, len(data), 4)))


@dataclass(frozen=True)
class RingPattern(Message):
    """Show a pattern on the LED ring: `pattern` from RING_PATTERNS, a colour, and for
    `seat` the seat (N, E, S, W) to point at; `period_ms` paces spin and pulse.

    >>> RingPattern("seat", (0, 0, 255), seat="W").payload().hex()
    '040000ff0301f4'
    """

    TYPE: ClassVar[int] = 0x11
    pattern: str = "off"
    colour: tuple = (0, 0, 0)
    seat: Optional[str] = None
    period_ms: int = 500

    def __post_init__(self):
        if self.pattern not in RING_PATTERNS:
            raise MessageError(f"ring pattern {self.pattern!r} unknown; use one of {', '.join(RING_PATTERNS)}")
        if self.seat is not None and self.seat not in SEATS:
            raise MessageError(f"seat {self.seat!r} unknown; use one of N, E, S, W")
        if (self.pattern == "seat") != (self.seat is not None):
            raise MessageError("give a seat exactly when the pattern is 'seat'")
        if len(self.colour) != 3:
            raise MessageError(f"colour is (r, g, b), got {self.colour!r}")
        for value in self.colour:
            _byte(value, "colour values")
        _byte(self.period_ms, "period_ms", 0xFFFF)
        object.__setattr__(self, "colour", tuple(self.colour))

    def payload(self) -> bytes:
        seat = 0xFF if self.seat is None else SEATS.index(self.seat)
        return struct.pack(">BBBBBH", RING_PATTERNS.index(self.pattern), *self.colour, seat,
                           self.period_ms)

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        if len(data) != 7 and not (lenient and len(data) > 7):
            raise MessageError(f"RingPattern payload must be 7 bytes, got {len(data)}")
        pattern, r, g, b, seat, period = struct.unpack_from(">BBBBBH", data)
        if pattern >= len(RING_PATTERNS) or (seat != 0xFF and seat >= len(SEATS)):
            raise MessageError(f"RingPattern pattern {pattern} or seat {seat} out of range")
        return cls(RING_PATTERNS[pattern], (r, g, b), None if seat == 0xFF else SEATS[seat], period)


@dataclass(frozen=True)
class Beep(Message):
    """Sound the board's beeper: frequency in Hz and duration in milliseconds."""

    TYPE: ClassVar[int] = 0x12
    FORMAT: ClassVar[str] = ">HH"
    frequency_hz: int = 880
    duration_ms: int = 100

    def __post_init__(self):
        _byte(self.frequency_hz, "frequency_hz", 0xFFFF)
        _byte(self.duration_ms, "duration_ms", 0xFFFF)


# --- events: board → host, sequenced -------------------------------------------------

@dataclass(frozen=True)
class ButtonEvent(Message):
    """A board button was pressed (`pressed` True) or released."""

    TYPE: ClassVar[int] = 0x40
    FORMAT: ClassVar[str] = ">BB"
    button: int = 0
    pressed: bool = True

    def __post_init__(self):
        _byte(self.button, "button")
        object.__setattr__(self, "pressed", bool(self.pressed))

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        message = super().from_payload(data, lenient)
        if data[1] > 1:
            raise MessageError(f"button state must be 0 (released) or 1 (pressed), got {data[1]}")
        return message


@dataclass(frozen=True)
class CardScanned(Message):
    """The board's scanner read a card; `text` is what it read, `card` the Card if it is one
    of the 24 (a scanned 2♣ arrives with ``card is None``).

    >>> CardScanned("JH").card.name
    'jack of hearts'
    """

    TYPE: ClassVar[int] = 0x41
    text: str = ""

    def payload(self) -> bytes:
        return _text(self.text, "card text", 16)

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        text, end = _read_text(data, 0, "card text")
        if end != len(data) and not lenient:
            raise MessageError(f"CardScanned has {len(data) - end} stray bytes")
        return cls(text)

    @property
    def card(self) -> Optional[Card]:
        """The card read, or None when the text is not a Euchre card."""
        try:
            return Card(self.text)
        except CardError:
            return None


@dataclass(frozen=True)
class BoardFault(Message):
    """The board reports a fault: a code and a short text (e.g. scanner not responding)."""

    TYPE: ClassVar[int] = 0x42
    code: int = 0
    text: str = ""

    def payload(self) -> bytes:
        return bytes((_byte(self.code, "fault code"),)) + _text(self.text, "fault text")

    @classmethod
    def from_payload(cls, data: bytes, lenient: bool = False):
        if not data:
            raise MessageError("BoardFault payload is empty")
        text, end = _read_text(data, 1, "fault text")
        if end != len(data) and not lenient:
            raise MessageError(f"BoardFault has {len(data) - end} stray bytes")
        return cls(data[0], text)


@dataclass(frozen=True)
class UnknownMessage(Message):
    """A sequenced message of a type this host does not know, from a board of a newer
    minor version: acked (so the link goes on) and passed up for logging."""

    type: int = 0
    data: bytes = field(default=b"")
    TYPE: ClassVar[int] = -1

    def payload(self) -> bytes:
        return self.data


MESSAGES = {cls.TYPE: cls for cls in (Identify, IdentifyResponse, Ack, Heartbeat, Resync,
                                       SetLeds, RingPattern, Beep, ButtonEvent, CardScanned,
                                       BoardFault)}
COMMANDS = (SetLeds, RingPattern, Beep)
"""Messages the host sends to the board."""
EVENTS = (ButtonEvent, CardScanned, BoardFault)
"""Messages the board sends to the host."""


def is_sequenced_type(type_number: int) -> bool:
    """Types 0x10 and up carry a sequence number and are acked; lower ones are link control."""
    return type_number >= 0x10


def to_packet(message: Message, seq: int = 0, flags: int = 0) -> Packet:
    """The packet that carries a message."""
    return Packet(type=message.TYPE if not isinstance(message, UnknownMessage) else message.type,
                  seq=seq, payload=message.payload(), flags=flags)


def decode(packet: Packet, lenient: bool = False) -> Message:
    """The message in a packet; raises MessageError for unknown types or bad payloads.

    `lenient` (the peer has a newer minor version) accepts longer payloads and turns
    unknown sequenced types into UnknownMessage instead of refusing them.
    """
    cls = MESSAGES.get(packet.type)
    if cls is None:
        if lenient and is_sequenced_type(packet.type):
            return UnknownMessage(packet.type, packet.payload)
        raise MessageError(f"unknown message type 0x{packet.type:02x}")
    try:
        return cls.from_payload(packet.payload, lenient)
    except struct.error as exc:
        raise MessageError(f"{cls.__name__}: {exc}") from None
