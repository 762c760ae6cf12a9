"""Tests of frame encoding, the CRC, and the stream Deframer (including fuzzing)."""
import binascii

import pytest
from cobs import cobs
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.framing import (
    MAX_PAYLOAD, Deframer, FrameError, Packet, crc16, decode_frame, encode_frame, pack, unpack,
)

FUZZ = settings(max_examples=300, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

packets = st.builds(Packet, type=st.integers(0, 255), seq=st.integers(0, 255),
                    payload=st.binary(max_size=MAX_PAYLOAD), flags=st.integers(0, 15),
                    version=st.integers(0, 15))


def test_crc_is_ccitt_false_with_its_check_value():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF
    assert crc16(b"123456789") == binascii.crc_hqx(b"123456789", 0xFFFF)


def test_known_frame_bytes():
    # A Beep(440 Hz, 100 ms) with sequence number 7, as documented in docs/protocol.md.
    frame = encode_frame(Packet(type=0x12, seq=7, payload=bytes.fromhex("01b80064")))
    assert frame == bytes.fromhex("00 07 10 07 12 04 01 b8 02 64 02 c4 00")
    raw = pack(Packet(type=0x12, seq=7, payload=bytes.fromhex("01b80064")))
    assert raw[-2:] == crc16(raw[:-2]).to_bytes(2, "big")


@FUZZ
@given(packets)
def test_round_trip(packet):
    frame = encode_frame(packet)
    assert frame[0] == 0 and frame[-1] == 0 and 0 not in frame[1:-1]
    assert decode_frame(frame[1:-1]) == packet
    assert Deframer().feed(frame) == [packet]


def test_every_flipped_bit_is_caught():
    raw = pack(Packet(type=0x40, seq=3, payload=b"\x02\x01"))
    for i in range(len(raw) * 8):
        damaged = bytearray(raw)
        damaged[i // 8] ^= 1 << (i % 8)
        with pytest.raises(FrameError):
            unpack(bytes(damaged))


def test_frame_missing_only_its_end_is_completed_by_the_next_leading_delimiter():
    good = Packet(type=0x41, seq=1, payload=b"\x02JH")
    deframer = Deframer()
    assert deframer.feed(encode_frame(good)[:-1]) == []
    assert deframer.feed(encode_frame(good)) == [good, good]


@pytest.mark.parametrize("cut", range(2, 10))
def test_truncated_frames_are_dropped_and_the_next_frame_survives(cut):
    good = Packet(type=0x41, seq=1, payload=b"\x02JH")
    frame = encode_frame(good)
    deframer = Deframer()
    # A frame cut short (the board reset mid-frame), then a complete one.
    assert deframer.feed(frame[:-cut]) == []
    assert deframer.feed(frame) == [good]
    assert deframer.bad_frames == (1 if len(frame) - cut > 1 else 0)


def test_short_and_overlong_frames_are_counted():
    deframer = Deframer()
    assert deframer.feed(b"\x00" + cobs.encode(b"\x10\x00") + b"\x00") == []
    assert deframer.bad_length == 1
    assert deframer.feed(b"\x01" * 5000 + b"\x00") == []
    assert deframer.bad_length == 2
    packet = Packet(type=4)
    assert deframer.feed(encode_frame(packet)) == [packet]


def test_payload_too_long_is_refused_with_a_reason():
    with pytest.raises(FrameError, match="longer than the 200 bytes"):
        Packet(type=0x10, payload=bytes(MAX_PAYLOAD + 1))


@FUZZ
@given(st.binary(max_size=2000), st.lists(st.integers(1, 64), max_size=40))
def test_random_bytes_never_raise(data, cuts):
    deframer = Deframer()
    start = 0
    for cut in cuts + [len(data)]:
        for packet in deframer.feed(data[start:start + cut]):
            assert isinstance(packet, Packet)
        start += cut


@FUZZ
@given(st.lists(packets, min_size=1, max_size=12), st.data())
def test_corrupted_stream_yields_only_sent_packets(sent, data):
    stream = bytearray(b"".join(encode_frame(p) for p in sent))
    changes = data.draw(st.lists(st.tuples(st.integers(0, len(stream) - 1), st.integers(1, 255)),
                                 max_size=12))
    for where, xor in changes:
        stream[where] ^= xor
    deletions = data.draw(st.lists(st.integers(0, 10_000), max_size=3))
    for where in deletions:
        if stream:
            del stream[where % len(stream)]
    pieces = data.draw(st.lists(st.integers(1, 50), max_size=30))
    deframer, got, start = Deframer(), [], 0
    for size in pieces + [len(stream)]:
        got += deframer.feed(bytes(stream[start:start + size]))
        start += size
    assert all(p in sent for p in got)
    # What comes out keeps the order it was sent in.
    positions = [sent.index(p) for p in got]
    assert positions == sorted(positions) or len(set(sent)) < len(sent)
    if not changes and not deletions:
        assert got == sent


def test_clean_stream_in_one_byte_pieces():
    sent = [Packet(type=0x40, seq=i, payload=bytes((i, 1))) for i in range(20)]
    stream = b"".join(encode_frame(p) for p in sent)
    deframer = Deframer()
    got = [p for i in range(len(stream)) for p in deframer.feed(stream[i:i + 1])]
    assert got == sent and deframer.bad_frames == 0


def test_valid_frame_with_zeros_appended_passes_the_crc_but_not_the_length_check():
    # Why the header has a length byte: CRC-16/CCITT-FALSE has no final xor.
    raw = pack(Packet(type=0x41, seq=2, payload=b"\x02QS"))
    assert crc16(raw) == 0 and crc16(raw[:-1]) == int.from_bytes(raw[-1:] + b"\x00", "big")
    for extra in (b"\x00", b"\x00\x00"):
        with pytest.raises(FrameError, match="length byte says 3 payload bytes"):
            unpack(raw + extra)


def test_no_single_corrupted_byte_yields_a_packet_that_was_not_sent():
    # Every position of a three-frame stream (delimiters included), every wrong value.
    sent = [Packet(type=0x12, seq=7, payload=b"\x01\xb8\x00\x64"), Packet(type=0x03, seq=7),
            Packet(type=0x41, seq=1, payload=b"\x02JH")]
    stream = b"".join(encode_frame(p) for p in sent)
    for where in range(len(stream)):
        for xor in range(1, 256):
            damaged = bytearray(stream)
            damaged[where] ^= xor
            got = Deframer().feed(bytes(damaged))
            assert all(p in sent for p in got), (where, xor, got)
            assert len(got) >= 2     # one byte can spoil at most one frame (or none)
