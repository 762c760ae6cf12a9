"""Tests of the link's rules on a fake clock: handshake, acks, duplicates, retries, heartbeat,
versions, restarts and reconnects (host and board protocol objects joined in memory)."""
import random

import pytest

from firmware_host.framing import Deframer, Packet, encode_frame
from firmware_host.messages import (
    Ack, Beep, ButtonEvent, CardScanned, Identify, IdentifyResponse, RingPattern, SetLeds,
    UnknownMessage, decode,
)
from firmware_host.protocol import (
    BoardProtocol, CommandNotAcked, HostProtocol, IncompatibleBoard, LinkError,
)


class Wire:
    """A host and a board joined by an in-memory cable; `drop_to_board` and
    `drop_to_host` decide per frame (given the decoded message) whether it is lost."""

    def __init__(self, host=None, board=None):
        self.host = host or HostProtocol(retry_timeout=0.01, max_retries=5,
                                         heartbeat_interval=0.1, heartbeat_timeout=0.5,
                                         rng=random.Random(1))
        self.board = board or BoardProtocol(retry_timeout=0.01, heartbeat_interval=0.1)
        self.now = 0.0
        self.drop_to_board = lambda packet: False
        self.drop_to_host = lambda packet: False
        self.board_alive = True
        self.to_board = []     # every packet put on the wire, for inspection
        self.to_host = []

    def _carry(self, data, drop, log):
        kept = b""
        for packet in Deframer().feed(data):
            log.append(packet)
            if not drop(packet):
                kept += encode_frame(packet)
        return kept

    def step(self, dt=0.001):
        self.now += dt
        self.host.poll(self.now)
        out = self._carry(self.host.take_output(), self.drop_to_board, self.to_board)
        if self.board_alive:
            self.board.data_received(out, self.now)
            self.board.poll(self.now)
            back = self._carry(self.board.take_output(), self.drop_to_host, self.to_host)
            self.host.data_received(back, self.now)

    def run(self, seconds, dt=0.001):
        for _ in range(round(seconds / dt)):
            self.step(dt)

    def run_until(self, condition, limit=5.0, dt=0.001):
        end = self.now + limit
        while not condition():
            assert self.now < end, f"not reached within {limit} s (host {self.host.state})"
            self.step(dt)

    def connect(self):
        self.host.connection_made(self.now)
        self.run_until(lambda: self.host.state == "connected")

    def reconnect(self):
        self.host.connection_lost("test unplug")
        self.connect()


def is_ack(packet):
    return packet.type == Ack.TYPE


def test_handshake_command_and_event():
    wire = Wire()
    wire.connect()
    assert wire.host.board.name == "euchre-sim"
    assert wire.host.status_changes[-1] == ("connected", wire.host.board.describe())
    delivery = wire.host.submit(SetLeds(((1, 9, 9, 9),)), wire.now)
    wire.board.submit(CardScanned("AS"), wire.now)
    wire.run(0.05)
    assert delivery.done and delivery.error is None and delivery.attempts == 1
    assert wire.board.take_delivered() == [SetLeds(((1, 9, 9, 9),))]
    assert wire.host.take_delivered() == [CardScanned("AS")]


def test_lost_ack_gives_a_retransmission_but_one_delivery():
    wire = Wire()
    wire.connect()
    lost = []
    wire.drop_to_host = lambda p: is_ack(p) and not lost and not lost.append(p)
    delivery = wire.host.submit(Beep(1000, 20), wire.now)
    wire.run(0.1)
    assert delivery.done and delivery.attempts == 2
    assert wire.board.take_delivered() == [Beep(1000, 20)]
    assert wire.board.counters["duplicates"] == 1
    assert wire.host.counters["retransmissions"] == 1
    resent = [p for p in wire.to_board if p.type == Beep.TYPE]
    assert [p.flags for p in resent] == [0, 1]     # the second copy is marked as resent


def test_lost_command_is_resent_after_the_retry_timeout():
    wire = Wire()
    wire.connect()
    dropped = []
    wire.drop_to_board = lambda p: p.type == Beep.TYPE and not dropped and not dropped.append(p)
    delivery = wire.host.submit(Beep(500, 20), wire.now)
    sent_at = wire.now
    wire.run_until(lambda: delivery.done, limit=1)
    assert 0.01 <= delivery.acked_at - sent_at < 0.015
    assert wire.board.take_delivered() == [Beep(500, 20)]


def test_commands_and_events_arrive_once_in_order_through_sequence_wraparound():
    wire = Wire()
    wire.connect()
    rng = random.Random(5)
    wire.drop_to_board = lambda p: rng.random() < 0.3
    wire.drop_to_host = lambda p: rng.random() < 0.3
    wire.host.max_retries = 100
    wire.host.heartbeat_timeout = 5
    for i in range(300):
        wire.host.submit(Beep(i, 1), wire.now) if i < 64 else None
        wire.board.submit(ButtonEvent(i % 256, i % 2 == 0), wire.now) if i < 64 else None
    sent = 64
    got_commands, got_events = [], []
    while len(got_commands) < 300 or len(got_events) < 300:
        wire.step()
        got_commands += wire.board.take_delivered()
        got_events += wire.host.take_delivered()
        while sent < 300 and len(wire.host.tx_queue) < 10:
            wire.host.submit(Beep(sent, 1), wire.now)
            wire.board.submit(ButtonEvent(sent % 256, sent % 2 == 0), wire.now)
            sent += 1
        assert wire.now < 120
    assert got_commands == [Beep(i, 1) for i in range(300)]
    assert got_events == [ButtonEvent(i % 256, i % 2 == 0) for i in range(300)]
    assert wire.host.state == "connected"


def test_retries_run_out_then_the_link_is_lost_and_reopened():
    wire = Wire()
    wire.connect()
    wire.drop_to_board = lambda p: p.type == Beep.TYPE
    delivery = wire.host.submit(Beep(200, 10), wire.now)
    wire.run_until(lambda: delivery.done, limit=1)
    assert isinstance(delivery.error, CommandNotAcked)
    assert "did not acknowledge Beep(frequency_hz=200, duration_ms=10) after 6 tries" in str(delivery.error)
    assert wire.host.state == "lost" and wire.host.wants_reopen
    assert wire.host.reason == "no ack after 6 tries"


def test_silent_board_is_lost_after_the_heartbeat_timeout():
    wire = Wire()
    wire.connect()
    wire.run(1.0)
    assert wire.host.state == "connected"          # heartbeats keep it alive
    assert wire.board.host_alive(wire.now)
    wire.board_alive = False
    last_heard = wire.host.last_heard      # the board's last heartbeat
    assert wire.now - last_heard <= 0.1
    wire.run_until(lambda: wire.host.state == "lost", limit=2)
    assert 0.5 < wire.now - last_heard <= 0.502
    assert wire.host.reason == "board silent for 0.50 s (heartbeat timeout 0.5 s)"
    assert wire.host.wants_reopen


def test_incompatible_major_version_is_a_clear_error():
    wire = Wire(board=BoardProtocol(major=2, minor=1))
    waiting = wire.host.submit(Beep(1, 1), 0.0)
    wire.host.connection_made(0.0)
    wire.run_until(lambda: wire.host.state == "incompatible")
    message = str(wire.host.error)
    assert "the board speaks protocol 2.1" in message and "supports only 1.x" in message
    assert "update the board's firmware" in message
    assert isinstance(waiting.error, IncompatibleBoard)
    with pytest.raises(IncompatibleBoard, match="2.1"):
        wire.host.submit(Beep(1, 1), wire.now)


def test_identify_response_in_a_future_frame_layout_is_still_understood():
    host = HostProtocol()
    host.connection_made(0.0)
    # Major version 3 with its own frame version nibble and a payload we cannot parse past
    # the version bytes: still reported as incompatible, with the version it speaks.
    host.data_received(encode_frame(Packet(type=IdentifyResponse.TYPE, payload=b"\x03\x02??",
                                           version=3)), 0.01)
    assert host.state == "incompatible" and "protocol 3.2" in str(host.error)


def test_newer_minor_version_is_accepted():
    wire = Wire(board=BoardProtocol(minor=4, retry_timeout=0.01))
    wire.connect()
    assert wire.host.lenient
    # A newer board may append fields and have event types we do not know: both are acked.
    frame = encode_frame(Packet(type=ButtonEvent.TYPE, seq=0, payload=b"\x02\x01\xff"))
    wire.host.data_received(frame, wire.now)
    wire.host.data_received(encode_frame(Packet(type=0x50, seq=1, payload=b"new")), wire.now)
    assert wire.host.take_delivered() == [ButtonEvent(2, True), UnknownMessage(0x50, b"new")]
    acks = Deframer().feed(wire.host.take_output())
    assert [(p.type, p.seq) for p in acks] == [(Ack.TYPE, 0), (Ack.TYPE, 1)]


def test_same_minor_version_refuses_unknown_types_as_noise():
    wire = Wire()
    wire.connect()
    wire.host.data_received(encode_frame(Packet(type=0x50, seq=0, payload=b"new")), wire.now)
    assert wire.host.take_delivered() == [] and wire.host.counters["malformed"] == 1


def test_repeated_identify_does_not_restart_the_session():
    wire = Wire()
    lost = []
    # The first answer is lost: the host asks again with the same session.
    wire.drop_to_host = lambda p: p.type == IdentifyResponse.TYPE and not lost and not lost.append(p)
    wire.host.connection_made(0.0)
    wire.run_until(lambda: wire.host.state == "connected")
    identifies = [decode(p) for p in wire.to_board if p.type == Identify.TYPE]
    assert len(identifies) == 2 and identifies[0].session == identifies[1].session
    assert wire.board.counters["handshakes"] == 1


def test_command_that_arrived_before_an_unplug_is_not_delivered_again():
    wire = Wire()
    wire.connect()
    wire.drop_to_host = is_ack                  # the board gets it; its acks never come back
    delivery = wire.host.submit(RingPattern("pulse", (255, 0, 0)), wire.now)
    wire.run(0.015)
    assert wire.board.take_delivered() == [RingPattern("pulse", (255, 0, 0))]
    assert not delivery.done
    wire.drop_to_host = lambda p: False
    wire.reconnect()                            # cable pulled and put back
    wire.run(0.1)
    assert delivery.done and delivery.error is None
    assert wire.host.counters["acked_by_handshake"] == 1
    assert wire.board.take_delivered() == []


def test_command_that_never_arrived_is_sent_after_reconnect():
    wire = Wire()
    wire.connect()
    wire.drop_to_board = lambda p: p.type == Beep.TYPE
    delivery = wire.host.submit(Beep(300, 30), wire.now)
    wire.run(0.015)
    wire.host.connection_lost("unplugged")
    queued = wire.host.submit(Beep(301, 30), wire.now)   # sent while the board is away
    wire.drop_to_board = lambda p: False
    wire.connect()
    wire.run(0.1)
    assert delivery.done and queued.done
    assert wire.board.take_delivered() == [Beep(300, 30), Beep(301, 30)]


def test_event_the_host_already_has_is_not_resent_after_reconnect():
    wire = Wire()
    wire.connect()
    wire.drop_to_board = is_ack
    wire.board.submit(CardScanned("QD"), wire.now)
    wire.run(0.015)
    assert wire.host.take_delivered() == [CardScanned("QD")]
    wire.drop_to_board = lambda p: False
    wire.reconnect()
    wire.run(0.1)
    assert wire.host.take_delivered() == []
    assert wire.board.in_flight is None and not wire.board.tx_queue


def test_board_restart_triggers_a_new_handshake_and_the_command_goes_through():
    wire = Wire()
    wire.connect()
    wire.board = BoardProtocol(retry_timeout=0.01)      # reset by DTR or a brown-out
    delivery = wire.host.submit(Beep(700, 5), wire.now)
    wire.run_until(lambda: delivery.done, limit=1)
    assert delivery.error is None
    assert wire.host.counters["resyncs"] == 1 and wire.host.state == "connected"
    assert wire.board.take_delivered() == [Beep(700, 5)]


def test_host_sends_only_commands_and_queue_is_bounded():
    host = HostProtocol(max_queue=2)
    with pytest.raises(LinkError, match="not a message this end can send; send one of SetLeds"):
        host.submit(ButtonEvent(1), 0.0)
    host.submit(Beep(1, 1), 0.0)
    host.submit(Beep(1, 1), 0.0)
    with pytest.raises(LinkError, match="2 messages are already waiting for the board"):
        host.submit(Beep(1, 1), 0.0)


@pytest.mark.parametrize("seed", range(4))
def test_exactly_once_through_byte_noise_and_random_unplugs(seed):
    """Corrupted bytes both ways and the cable pulled at random moments (the board keeps
    power): every command and every event still arrives once, in order."""
    from firmware_host.simboard import corrupt_bytes

    rng = random.Random(seed)
    host = HostProtocol(retry_timeout=0.005, max_retries=1000, heartbeat_interval=0.02,
                        heartbeat_timeout=1.0, identify_interval=0.005, rng=rng)
    board = BoardProtocol(retry_timeout=0.005, heartbeat_interval=0.02)
    now, n = 0.0, 150
    host.connection_made(now)
    sent_commands = sent_events = 0
    commands, events = [], []
    unplugs = 0
    while len(commands) < n or len(events) < n:
        now += 0.001
        assert now < 300, (len(commands), len(events), host.state)
        if host.state == "connected" and rng.random() < 0.002:
            host.connection_lost("pulled")        # the port closes; bytes in transit are lost
            host.take_output()
            board.take_output()
            host.connection_made(now)
            unplugs += 1
        while sent_commands < n and len(host.tx_queue) < 5:
            host.submit(Beep(sent_commands, 0), now)
            sent_commands += 1
        while sent_events < n and len(board.tx_queue) < 5:
            board.submit(ButtonEvent(sent_events % 256, sent_events < n // 2), now)
            sent_events += 1
        host.poll(now)
        board.data_received(corrupt_bytes(host.take_output(), 0.05, rng)[0], now)
        board.poll(now)
        host.data_received(corrupt_bytes(board.take_output(), 0.05, rng)[0], now)
        commands += board.take_delivered()
        events += host.take_delivered()
    assert unplugs >= 2
    # The hard case happened: a message in flight at an unplug was settled by the handshake.
    assert host.counters["acked_by_handshake"] + board.counters["acked_by_handshake"] >= 1
    assert commands == [Beep(i, 0) for i in range(n)]
    assert events == [ButtonEvent(i % 256, i < n // 2) for i in range(n)]
