"""Frames of the board link: a header, payload and CRC-16, COBS-encoded between 0x00 bytes.

Layout of one frame before COBS (see docs/protocol.md)::

    byte 0      version (high nibble) | flags (low nibble)
    byte 1      sequence number
    byte 2      message type
    byte 3      payload length
    bytes 4..   payload (0..MAX_PAYLOAD bytes)
    last 2      CRC-16/CCITT-FALSE of everything before it, big-endian

>>> frame = encode_frame(Packet(type=0x12, seq=7, payload=b"\\x01\\xb8\\x00\\x64"))
>>> frame.hex(" ")
'00 07 10 07 12 04 01 b8 02 64 02 c4 00'
>>> Deframer().feed(b"noise" + frame)
[Packet(type=18, seq=7, payload=b'\\x01\\xb8\\x00d', flags=0, version=1)]
"""
from __future__ import annotations

import binascii
from dataclasses import dataclass

from cobs import cobs

FRAME_VERSION = 1
"""The frame layout of protocol major version 1 (the high nibble of byte 0)."""
FLAG_RESENT = 0x01
"""Flag bit: this frame is a retransmission (for counters and debugging only)."""
KNOWN_FLAGS = FLAG_RESENT
HEADER_SIZE = 4
CRC_SIZE = 2
MAX_PAYLOAD = 200
"""Longest payload; a board may use a 256-byte receive buffer for a whole frame."""
MAX_RAW = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 1
"""Longest COBS body between two delimiters; anything longer is noise."""


class FrameError(ValueError):
    """Bytes between two delimiters that are not a good frame (bad COBS, length or CRC)."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as computed by the board.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    # binascii's C implementation is exactly this CRC when seeded with 0xFFFF.
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Packet:
    """One frame's contents: message type, sequence number, payload and flags.

    >>> Packet(type=3, seq=9)
    Packet(type=3, seq=9, payload=b'', flags=0, version=1)
    """

    type: int
    seq: int = 0
    payload: bytes = b""
    flags: int = 0
    version: int = FRAME_VERSION

    def __post_init__(self):
        for name, value, top in (("type", self.type, 255), ("seq", self.seq, 255),
                                 ("flags", self.flags, 15), ("version", self.version, 15)):
            if not isinstance(value, int) or not 0 <= value <= top:
                raise FrameError(f"packet {name} must be an integer 0..{top}, got {value!r}")
        if len(self.payload) > MAX_PAYLOAD:
            raise FrameError(f"payload of {len(self.payload)} bytes is longer than the "
                             f"{MAX_PAYLOAD} bytes a frame can carry: split the message")


def pack(packet: Packet) -> bytes:
    """The raw bytes of a packet (header, payload, CRC), before COBS."""
    body = bytes((packet.version << 4 | packet.flags, packet.seq, packet.type,
                  len(packet.payload))) + packet.payload
    return body + crc16(body).to_bytes(2, "big")


def unpack(raw: bytes) -> Packet:
    """Parse raw frame bytes (after COBS decoding); raises FrameError when bad."""
    if len(raw) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(raw)} bytes is shorter than the "
                         f"{HEADER_SIZE + CRC_SIZE}-byte minimum")
    if len(raw) > MAX_RAW:
        raise FrameError(f"frame of {len(raw)} bytes is longer than the {MAX_RAW}-byte maximum")
    body, crc = raw[:-CRC_SIZE], int.from_bytes(raw[-CRC_SIZE:], "big")
    if crc16(body) != crc:
        raise FrameError("CRC mismatch")
    # The length byte matters: this CRC has no final xor, so a valid frame with zero
    # bytes appended (what a corrupted delimiter often decodes to) still passes it.
    if body[3] != len(body) - HEADER_SIZE:
        raise FrameError(f"length byte says {body[3]} payload bytes, frame has {len(body) - HEADER_SIZE}")
    return Packet(type=body[2], seq=body[1], payload=bytes(body[HEADER_SIZE:]),
                  flags=body[0] & 0x0F, version=body[0] >> 4)


def encode_frame(packet: Packet) -> bytes:
    """A packet as it goes on the wire: 0x00, COBS body, 0x00.

    The leading 0x00 ends any noise that came before, so that noise cannot
    swallow the start of this frame.
    """
    return b"\x00" + cobs.encode(pack(packet)) + b"\x00"


def decode_frame(body: bytes) -> Packet:
    """Parse one COBS body (the bytes between two delimiters); raises FrameError."""
    try:
        raw = cobs.decode(body)
    except cobs.DecodeError as exc:
        raise FrameError(f"bad COBS encoding: {exc}") from None
    return unpack(raw)


class Deframer:
    """Cuts a byte stream into packets; bad frames are counted and dropped.

    Feed it whatever the serial port returned, in pieces of any size; it never
    raises on bad input.

    >>> d = Deframer()
    >>> d.feed(encode_frame(Packet(type=4))[:5]), d.feed(encode_frame(Packet(type=4))[5:])
    ([], [Packet(type=4, seq=0, payload=b'', flags=0, version=1)])
    >>> d.feed(b"\\x00\\x07garbage\\x00"), d.bad_frames
    ([], 1)
    """

    def __init__(self, max_encoded: int = MAX_ENCODED):
        self.max_encoded = max_encoded
        self._buffer = bytearray()
        self._overlong = False  # inside a run of bytes already too long to be a frame
        self.packets = 0
        self.bad_cobs = 0
        self.bad_crc = 0
        self.bad_length = 0

    @property
    def bad_frames(self) -> int:
        """How many stretches between delimiters were discarded."""
        return self.bad_cobs + self.bad_crc + self.bad_length

    def reset(self) -> None:
        """Forget a partial frame (after the port was reopened)."""
        self._buffer.clear()
        self._overlong = False

    def feed(self, data: bytes) -> list[Packet]:
        """Add received bytes; return the good packets they completed, in order."""
        packets = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            chunk = data[start:] if end < 0 else data[start:end]
            if not self._overlong:
                self._buffer += chunk
                if len(self._buffer) > self.max_encoded:
                    self._overlong = True
                    self._buffer.clear()
            if end < 0:
                return packets
            self._end_of_frame(packets)
            start = end + 1

    def _end_of_frame(self, packets: list) -> None:
        if self._overlong:
            self.bad_length += 1
            self._overlong = False
            return
        if not self._buffer:  # two delimiters in a row: the leading 0x00 of a frame
            return
        body = bytes(self._buffer)
        self._buffer.clear()
        try:
            raw = cobs.decode(body)
        except cobs.DecodeError:
            self.bad_cobs += 1
            return
        try:
            packet = unpack(raw)
        except FrameError as exc:
            if str(exc) == "CRC mismatch":
                self.bad_crc += 1
            else:
                self.bad_length += 1
            return
        self.packets += 1
        packets.append(packet)
