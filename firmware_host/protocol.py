"""The link's rules without I/O: sessions, sequence numbers, acks, retransmission, heartbeats.

Both ends are objects fed with received bytes and the current time, that hand
back bytes to write (the "sans-I/O" style of h11 and Klipper's serialqueue): the
host's `HostProtocol` is driven by `link.BoardLink` over pyserial, the board's
`BoardProtocol` by `simboard.SimulatedBoard` over a pty, and tests drive both
directly with a fake clock.

>>> host, board = HostProtocol(), BoardProtocol()
>>> host.connection_made(now=0.0); host.poll(0.0)
>>> board.data_received(host.take_output(), 0.001); host.data_received(board.take_output(), 0.002)
>>> host.state, host.board.name
('connected', 'euchre-sim')
>>> delivery = host.submit(Beep(440, 50), 0.003); host.poll(0.003)
>>> board.data_received(host.take_output(), 0.004); host.data_received(board.take_output(), 0.005)
>>> delivery.done, board.take_delivered()
(True, [Beep(frequency_hz=440, duration_ms=50)])
"""
from __future__ import annotations

import random
import threading
from collections import Counter, deque
from typing import Callable, Optional

from .framing import FLAG_RESENT, FRAME_VERSION, KNOWN_FLAGS, Deframer, Packet, encode_frame
from .messages import (
    COMMANDS, EVENTS, PROTOCOL_MAJOR, PROTOCOL_MINOR, SUPPORTED_MAJORS, Ack, Heartbeat, Identify,
    IdentifyResponse, Message, MessageError, Resync, UnknownMessage, decode, is_sequenced_type,
    to_packet, Beep,  # noqa: F401 - Beep is used by the module doctest
)


class LinkError(Exception):
    """The board link could not do what was asked; the message says why and what to do."""


class CommandNotAcked(LinkError):
    """A command was sent the maximum number of times without an ack."""


class BoardUnavailable(LinkError):
    """A command could not be delivered in time because the board is absent or lost."""


class IncompatibleBoard(LinkError):
    """The board speaks a protocol major version this host does not support."""


class Delivery:
    """A message on its way to the other end: done when acked, or failed with an error.

    `attempts` counts transmissions; `latency` is the time from submission to ack
    (queueing included), `transit` from the first transmission to the ack.
    """

    def __init__(self, message: Message, now: float):
        self.message = message
        self.submitted_at = now
        self.seq: Optional[int] = None
        self.attempts = 0
        self.first_sent_at: Optional[float] = None
        self.acked_at: Optional[float] = None
        self.error: Optional[LinkError] = None
        self.cancelled = False
        self._event = threading.Event()

    @property
    def done(self) -> bool:
        """True once acked (or failed: check `error`)."""
        return self._event.is_set()

    @property
    def latency(self) -> Optional[float]:
        """Seconds from submission to ack, None if not acked."""
        return None if self.acked_at is None else self.acked_at - self.submitted_at

    @property
    def transit(self) -> Optional[float]:
        """Seconds from the first transmission to the ack, None if not acked."""
        if self.acked_at is None or self.first_sent_at is None:
            return None
        return self.acked_at - self.first_sent_at

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until done; False if the timeout passed first."""
        return self._event.wait(timeout)

    def _finish(self, now: Optional[float], error: Optional[LinkError] = None) -> None:
        if self._event.is_set():
            return
        self.error = error
        if error is None:
            self.acked_at = now
        self._event.set()

    def __repr__(self) -> str:
        state = "acked" if self.acked_at is not None else (type(self.error).__name__ if self.error else "pending")
        return f"<Delivery {self.message!r} seq={self.seq} attempts={self.attempts} {state}>"


class Endpoint:
    """What both ends share: stop-and-wait delivery (a window of one) of sequenced
    messages with acks, retransmission and duplicate removal, inside a session."""

    accepts: tuple = ()

    def __init__(self, *, retry_timeout: float, max_retries: Optional[int],
                 heartbeat_interval: float, max_queue: int):
        self.retry_timeout = retry_timeout
        self.max_retries = max_retries
        self.heartbeat_interval = heartbeat_interval
        self.max_queue = max_queue
        self.deframer = Deframer()
        self.counters: Counter = Counter()
        self.session = 0          # 0: no session (not identified yet)
        self.lenient = False      # the peer has a newer minor version
        self.last_heard: Optional[float] = None
        self._out = bytearray()
        self._delivered: deque = deque()
        self.tx_queue: deque = deque()
        self.in_flight: Optional[Delivery] = None
        self.tx_seq = 0
        self.rx_next = 0
        self._resend_at = 0.0
        self._heartbeat_at = 0.0
        self._started: Optional[float] = None

    # --- for the owner -------------------------------------------------------------
    def take_output(self) -> bytes:
        """Bytes to write to the port since the last call."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_delivered(self) -> list:
        """Messages received from the other end, each once and in order."""
        items = list(self._delivered)
        self._delivered.clear()
        return items

    def submit(self, message: Message, now: float) -> Delivery:
        """Queue a sequenced message for delivery; returns its Delivery."""
        if not isinstance(message, self.sends):
            raise LinkError(f"{type(message).__name__} is not a message this end can send; "
                            f"send one of {', '.join(c.__name__ for c in self.sends)}")
        if len(self.tx_queue) >= self.max_queue:
            raise LinkError(f"{len(self.tx_queue)} messages are already waiting for the "
                            f"{'board' if self.sends is COMMANDS else 'host'}; try again later")
        delivery = Delivery(message, now)
        self.tx_queue.append(delivery)
        self.counters["submitted"] += 1
        return delivery

    def data_received(self, data: bytes, now: float) -> None:
        """Feed bytes read from the port."""
        if self._started is None:
            self._started = now
        for packet in self.deframer.feed(data):
            self._packet(packet, now)

    # --- inside -------------------------------------------------------------------
    def _emit(self, message: Message, seq: int = 0, flags: int = 0) -> None:
        self._out += encode_frame(to_packet(message, seq, flags))
        self.counters["frames_sent"] += 1

    def _uptime_ms(self, now: float) -> int:
        if self._started is None:
            self._started = now
        return int((now - self._started) * 1000) & 0xFFFFFFFF

    def _packet(self, packet: Packet, now: float) -> None:
        if packet.version != FRAME_VERSION or packet.flags & ~KNOWN_FLAGS:
            self._foreign(packet, now)
            return
        try:
            message = decode(packet, self.lenient)
        except MessageError:
            self.counters["malformed"] += 1
            return
        if is_sequenced_type(packet.type):
            if not isinstance(message, self.accepts + (UnknownMessage,)):
                self.counters["malformed"] += 1  # a message meant for the other end: noise or a bug
                return
            self.last_heard = now
            self._sequenced(packet, message, now)
        else:
            self.last_heard = now
            self._control(packet, message, now)

    def _foreign(self, packet: Packet, now: float) -> None:
        self.counters["foreign"] += 1

    def _control(self, packet: Packet, message: Message, now: float) -> None:
        if isinstance(message, Ack) and self.session:
            self._on_ack(packet.seq, now)

    def _sequenced(self, packet: Packet, message: Message, now: float) -> None:
        if not self.session:
            self.counters["ignored_outside_session"] += 1
            return
        if packet.seq == self.rx_next:
            self.rx_next = (self.rx_next + 1) & 0xFF
            self._delivered.append(message)
            self.counters["received"] += 1
            if isinstance(message, UnknownMessage):
                self.counters["unknown_messages"] += 1
            self._emit(Ack(), packet.seq)
        elif packet.seq == (self.rx_next - 1) & 0xFF:
            # Our ack was lost and the sender tried again: ack again, deliver nothing.
            self.counters["duplicates"] += 1
            self._emit(Ack(), packet.seq)
        else:
            self.counters["out_of_order"] += 1

    def _on_ack(self, seq: int, now: float) -> None:
        flight = self.in_flight
        if flight is None or seq != flight.seq:
            self.counters["stray_acks"] += 1
            return
        self.in_flight = None
        self.tx_seq = (self.tx_seq + 1) & 0xFF
        self.counters["acked"] += 1
        flight._finish(now)
        self._pump(now)

    def _start_session(self, session: int, now: float) -> None:
        """Sequence numbers restart at 0 in each session; an unconfirmed message goes first."""
        self.session = session
        self.tx_seq = 0
        self.rx_next = 0
        if self.in_flight is not None:
            self.tx_queue.appendleft(self.in_flight)
            self.in_flight = None
        self._heartbeat_at = now

    def _reconcile(self, prev_session: int, peer_prev_session: int, peer_prev_next: int,
                   now: float) -> None:
        """Settle the message in flight when the last session ended: if the peer says it
        got it, it is done; otherwise it is sent again in the new session."""
        flight = self.in_flight
        if flight is None:
            return
        if prev_session and peer_prev_session == prev_session and peer_prev_next == (flight.seq + 1) & 0xFF:
            self.in_flight = None
            self.counters["acked"] += 1
            self.counters["acked_by_handshake"] += 1
            flight._finish(now)

    def _pump(self, now: float) -> None:
        while self.in_flight is None and self.tx_queue and self.session:
            delivery = self.tx_queue.popleft()
            if delivery.cancelled:
                continue
            delivery.seq = self.tx_seq
            self.in_flight = delivery
            self._transmit(now)

    def _transmit(self, now: float) -> None:
        flight = self.in_flight
        flight.attempts += 1
        if flight.first_sent_at is None:
            flight.first_sent_at = now
        resent = flight.attempts > 1
        if resent:
            self.counters["retransmissions"] += 1
        self._emit(flight.message, flight.seq, FLAG_RESENT if resent else 0)
        self._resend_at = now + self.retry_timeout

    def _retransmit_due(self, now: float) -> Optional[Delivery]:
        """Resend the message in flight when its ack is late; return it when out of tries."""
        flight = self.in_flight
        if flight is None or now < self._resend_at:
            return None
        if self.max_retries is not None and flight.attempts > self.max_retries:
            self.in_flight = None
            return flight
        self._transmit(now)
        return None

    def _heartbeat_due(self, now: float) -> None:
        if now >= self._heartbeat_at:
            self._emit(Heartbeat(self._uptime_ms(now)))
            self._heartbeat_at = now + self.heartbeat_interval

    def next_deadline(self) -> float:
        """The next time `poll` has work to do (retransmission or heartbeat)."""
        times = [self._heartbeat_at]
        if self.in_flight is not None:
            times.append(self._resend_at)
        return min(times)


class HostProtocol(Endpoint):
    """The host's end: handshake, heartbeat watch, commands out and events in.

    `state` is one of ``closed``, ``unplugged``, ``connecting``, ``connected``,
    ``lost`` and ``incompatible``; each change is queued in `status_changes` as
    ``(state, reason)``. When `wants_reopen` becomes true the owner should close
    the port and open it again (then call `connection_made`).
    """

    accepts = EVENTS
    sends = COMMANDS

    def __init__(self, *, retry_timeout: float = 0.05, max_retries: int = 20,
                 heartbeat_interval: float = 0.25, heartbeat_timeout: float = 1.0,
                 identify_interval: float = 0.1, handshake_timeout: float = 3.0,
                 max_queue: int = 64, rng: Optional[random.Random] = None):
        super().__init__(retry_timeout=retry_timeout, max_retries=max_retries,
                         heartbeat_interval=heartbeat_interval, max_queue=max_queue)
        self.heartbeat_timeout = heartbeat_timeout
        self.identify_interval = identify_interval
        self.handshake_timeout = handshake_timeout
        self.rng = rng or random.Random()
        self.state = "closed"
        self.reason = ""
        self.board: Optional[IdentifyResponse] = None
        self.error: Optional[LinkError] = None
        self.status_changes: deque = deque()
        self.failed: deque = deque()   # deliveries that ran out of tries (for the owner's log)
        self.wants_reopen = False
        self._pending_session = 0
        self._prev_session = 0
        self._prev_rx_next = 0
        self._identify_at = 0.0
        self._handshake_started = 0.0

    def _set_state(self, state: str, reason: str) -> None:
        if state != self.state or reason != self.reason:
            self.state, self.reason = state, reason
            self.status_changes.append((state, reason))

    def _end_session(self) -> None:
        if self.session:
            self._prev_session, self._prev_rx_next = self.session, self.rx_next
            self.session = 0

    def connection_made(self, now: float) -> None:
        """The port is open: start the handshake (identify until answered)."""
        self.deframer.reset()
        self.wants_reopen = False
        self.error = None
        self._begin_handshake(now, "waiting for the board to answer identify")

    def _begin_handshake(self, now: float, reason: str) -> None:
        self._end_session()
        session = 0
        while session in (0, self._prev_session, self._pending_session):
            session = self.rng.randrange(1, 0x10000)
        self._pending_session = session
        self._identify_at = now
        self._handshake_started = now
        self.last_heard = now
        self._set_state("connecting", reason)

    def connection_lost(self, reason: str) -> None:
        """The port failed or was closed: the board is gone until the port opens again."""
        self._end_session()
        self.wants_reopen = False
        self._set_state("unplugged", reason)

    def _lose(self, reason: str) -> None:
        self._end_session()
        self.wants_reopen = True
        self.counters["losses"] += 1
        self._set_state("lost", reason)

    def submit(self, message: Message, now: float) -> Delivery:
        """Queue a command for the board (it waits while the board is away)."""
        if self.state == "incompatible":
            raise self.error
        return super().submit(message, now)

    def poll(self, now: float) -> None:
        """Run timers: identify, heartbeat, retransmission, silence."""
        if self.state == "connecting":
            if now - self._handshake_started > self.handshake_timeout:
                self.counters["handshake_timeouts"] += 1
                self._lose(f"no answer to identify for {self.handshake_timeout:g} s")
            elif now >= self._identify_at:
                self._emit(Identify(PROTOCOL_MAJOR, PROTOCOL_MINOR, self._pending_session,
                                    self._prev_session, self._prev_rx_next))
                self.counters["identify_sent"] += 1
                self._identify_at = now + self.identify_interval
            return
        if self.state != "connected":
            return
        if now - self.last_heard > self.heartbeat_timeout:
            self._lose(f"board silent for {now - self.last_heard:.2f} s "
                       f"(heartbeat timeout {self.heartbeat_timeout:g} s)")
            return
        self._pump(now)
        failed = self._retransmit_due(now)
        if failed is not None:
            tries = failed.attempts
            failed._finish(now, CommandNotAcked(
                f"the board did not acknowledge {failed.message!r} after {tries} tries; "
                f"it may or may not have arrived. The link is being reopened."))
            self.failed.append(failed)
            self.counters["not_acked"] += 1
            self._lose(f"no ack after {tries} tries")
            return
        self._heartbeat_due(now)

    def next_deadline(self) -> float:
        if self.state == "connecting":
            return min(self._identify_at, self._handshake_started + self.handshake_timeout)
        if self.state == "connected":
            return min(super().next_deadline(), self.last_heard + self.heartbeat_timeout)
        return float("inf")

    def _foreign(self, packet: Packet, now: float) -> None:
        # Only the identify response is understood across major versions: its first two
        # payload bytes are the board's protocol version, in every version.
        if packet.type == IdentifyResponse.TYPE and len(packet.payload) >= 2:
            self._incompatible(packet.payload[0], packet.payload[1])
        self.counters["foreign"] += 1

    def _incompatible(self, major: int, minor: int) -> None:
        supported = ", ".join(f"{m}.x" for m in SUPPORTED_MAJORS)
        self.error = IncompatibleBoard(
            f"the board speaks protocol {major}.{minor}, but this host supports only {supported}: "
            f"update the board's firmware (or euchre-table) so that the major versions match")
        self._end_session()
        for delivery in [self.in_flight, *self.tx_queue]:
            if delivery is not None:
                delivery._finish(None, self.error)
        self.in_flight = None
        self.tx_queue.clear()
        self._set_state("incompatible", str(self.error))

    def _packet(self, packet: Packet, now: float) -> None:
        if packet.type == IdentifyResponse.TYPE and packet.version == FRAME_VERSION \
                and len(packet.payload) >= 2 and not packet.flags & ~KNOWN_FLAGS:
            major, minor = packet.payload[0], packet.payload[1]
            if major not in SUPPORTED_MAJORS:
                self._incompatible(major, minor)
                return
            try:
                response = IdentifyResponse.from_payload(packet.payload, lenient=minor > PROTOCOL_MINOR)
            except MessageError:
                self.counters["malformed"] += 1
                return
            self.last_heard = now
            self._identified(response, now)
            return
        super()._packet(packet, now)

    def _identified(self, response: IdentifyResponse, now: float) -> None:
        if self.state != "connecting" or response.session != self._pending_session:
            self.counters["stale_identify"] += 1
            return
        self._reconcile(self._prev_session, response.prev_session, response.prev_next_seq, now)
        self._start_session(self._pending_session, now)
        self.lenient = response.minor > PROTOCOL_MINOR
        self.board = response
        self.counters["handshakes"] += 1
        self._set_state("connected", response.describe())
        self._pump(now)

    def _control(self, packet: Packet, message: Message, now: float) -> None:
        if isinstance(message, Resync) and self.state == "connected":
            self.counters["resyncs"] += 1
            self._begin_handshake(now, "the board restarted; identifying it again")
            return
        super()._control(packet, message, now)


class BoardProtocol(Endpoint):
    """The board's end, as firmware would implement it (the simulated board uses it).

    It answers identify, acks and delivers commands once each, sends its events
    reliably (retrying until the host acks or a new handshake settles them), and
    asks for a handshake (Resync) when a command arrives outside a session.
    """

    accepts = COMMANDS
    sends = EVENTS

    def __init__(self, *, name: str = "euchre-sim", firmware: str = "sim-1.0",
                 major: int = PROTOCOL_MAJOR, minor: int = PROTOCOL_MINOR,
                 capabilities: int = 0x1F, buttons: int = 8, leds: int = 8, ring_leds: int = 24,
                 retry_timeout: float = 0.05, heartbeat_interval: float = 0.25,
                 host_timeout: float = 1.0, max_queue: int = 64):
        super().__init__(retry_timeout=retry_timeout, max_retries=None,
                         heartbeat_interval=heartbeat_interval, max_queue=max_queue)
        self.identity = dict(major=major, minor=minor, capabilities=capabilities, buttons=buttons,
                             leds=leds, ring_leds=ring_leds, firmware=firmware, name=name)
        self.host_timeout = host_timeout
        self._response: Optional[IdentifyResponse] = None
        self.on_identify: Optional[Callable[[Identify], None]] = None

    def host_alive(self, now: float) -> bool:
        """Whether the host was heard within `host_timeout` (a board shows "no host" if not)."""
        return self.last_heard is not None and now - self.last_heard <= self.host_timeout

    def _packet(self, packet: Packet, now: float) -> None:
        if packet.type == Identify.TYPE and packet.version != FRAME_VERSION:
            self.counters["foreign"] += 1
            return
        super()._packet(packet, now)

    def _control(self, packet: Packet, message: Message, now: float) -> None:
        if isinstance(message, Identify):
            self._on_identify(message, now)
        else:
            super()._control(packet, message, now)

    def _on_identify(self, request: Identify, now: float) -> None:
        if request.session == self.session and self._response is not None:
            self._emit(self._response)  # the host missed our answer: same answer again
            return
        prev_session, prev_next = self.session, self.rx_next
        self._reconcile(self.session, request.prev_session, request.prev_next_seq, now)
        self._start_session(request.session, now)
        self._response = IdentifyResponse(session=request.session, prev_session=prev_session,
                                          prev_next_seq=prev_next, **self.identity)
        self.counters["handshakes"] += 1
        if self.on_identify:
            self.on_identify(request)
        self._emit(self._response)
        self._pump(now)

    def _sequenced(self, packet: Packet, message: Message, now: float) -> None:
        if not self.session:
            self.counters["resyncs_sent"] += 1
            self._emit(Resync())
            return
        super()._sequenced(packet, message, now)

    def poll(self, now: float) -> None:
        """Run timers: event retransmission and heartbeat (only inside a session)."""
        if not self.session:
            return
        self._pump(now)
        self._retransmit_due(now)
        self._heartbeat_due(now)

    def next_deadline(self) -> float:
        return super().next_deadline() if self.session else float("inf")
