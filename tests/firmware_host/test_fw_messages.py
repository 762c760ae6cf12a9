"""Tests of message payloads: round trips, exact sizes, clear errors, newer minor versions."""
import pytest

from firmware_host.framing import Packet
from firmware_host.messages import (
    Ack, Beep, BoardFault, ButtonEvent, CardScanned, Heartbeat, Identify, IdentifyResponse,
    MessageError, Resync, RingPattern, SetLeds, UnknownMessage, decode, to_packet,
)

EXAMPLES = [
    Identify(1, 0, 0x1234, 0x0042, 7),
    IdentifyResponse(1, 0, 0x1234, 0x0042, 7, 0x1F, 8, 8, 24, "fw 2.1", "north board"),
    Ack(),
    Heartbeat(123456),
    Resync(),
    SetLeds(((0, 255, 0, 0), (7, 1, 2, 3))),
    RingPattern("seat", (0, 0, 255), seat="E", period_ms=250),
    RingPattern("spin", (10, 20, 30)),
    Beep(440, 100),
    ButtonEvent(5, False),
    CardScanned("JH"),
    CardScanned("2C"),
    BoardFault(3, "scanner not answering"),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip(message):
    packet = to_packet(message, seq=9)
    assert decode(packet) == message
    assert decode(Packet(packet.type, 9, packet.payload)) == message


@pytest.mark.parametrize("message", [m for m in EXAMPLES if m.payload()], ids=lambda m: type(m).__name__)
def test_truncated_payload_is_refused(message):
    payload = message.payload()
    with pytest.raises(MessageError):
        decode(Packet(to_packet(message).type, 0, payload[:-1]))


@pytest.mark.parametrize("message", [m for m in EXAMPLES if not isinstance(m, SetLeds)],
                         ids=lambda m: type(m).__name__)
def test_extra_bytes_refused_unless_lenient(message):
    packet = to_packet(message)
    longer = Packet(packet.type, 0, packet.payload + b"\x01\x02\x03\x04")
    with pytest.raises(MessageError):
        decode(longer)
    assert decode(longer, lenient=True) == message


def test_unknown_type_is_refused_or_passed_up_for_a_newer_minor():
    packet = Packet(type=0x55, seq=1, payload=b"xyz")
    with pytest.raises(MessageError, match="unknown message type 0x55"):
        decode(packet)
    assert decode(packet, lenient=True) == UnknownMessage(0x55, b"xyz")
    with pytest.raises(MessageError):   # unknown link-control types are never guessed at
        decode(Packet(type=0x0E), lenient=True)


def test_scanned_card_text():
    assert CardScanned("10h").card == "10H"
    assert CardScanned("J♥").card.name == "jack of hearts"
    assert CardScanned("2C").card is None


def test_bad_values_say_what_is_wrong():
    with pytest.raises(MessageError, match="use one of off, solid, spin, pulse, seat"):
        RingPattern("rainbow")
    with pytest.raises(MessageError, match="seat 'X' unknown"):
        RingPattern("seat", seat="X")
    with pytest.raises(MessageError, match="exactly when the pattern is 'seat'"):
        RingPattern("seat")
    with pytest.raises(MessageError, match="1..16"):
        SetLeds(())
    with pytest.raises(MessageError, match="0..255"):
        SetLeds(((0, 256, 0, 0),))
    with pytest.raises(MessageError, match="0..65535"):
        Beep(70000, 10)
    with pytest.raises(MessageError, match="state must be 0"):
        decode(Packet(ButtonEvent.TYPE, 0, b"\x01\x02"))
    with pytest.raises(MessageError, match="limit is 32"):
        IdentifyResponse(1, 0, 1, 0, 0, 0, 0, 0, 0, "x" * 40, "").payload()


def test_identify_response_describes_the_board():
    response = EXAMPLES[1]
    assert response.capability_names == ["buttons", "leds", "ring", "beeper", "scanner"]
    assert response.describe() == ("north board firmware fw 2.1, protocol 1.0, "
                                   "buttons, leds, ring, beeper, scanner")
