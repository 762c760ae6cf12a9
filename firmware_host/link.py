"""`BoardLink`: the host's serial link to the table's board, kept alive across noise and unplugging.

One background thread owns the port: it opens the configured path (a stable
``/dev/serial/by-id/...`` link), runs the handshake, reads and writes frames, and
when the port fails (the cable was pulled) it says "board unplugged" and tries
to open the path again every `reopen_interval` seconds. Commands sent while the
board is away wait in a queue and go out after the next handshake, unless the
caller's `send` timeout passes first (then the command is withdrawn and the
caller gets BoardUnavailable).

Example (``board`` is a SimulatedBoard whose stable path is ``board.path``)::

    with BoardLink(board.path, on_event=print) as link:
        link.wait_connected(timeout=2)
        link.send(RingPattern("seat", (0, 0, 255), seat="W"))
"""
from __future__ import annotations

import logging
import os
import queue
import select
import threading
import time
from typing import Callable, Optional

import serial

from .messages import Message
from .protocol import (
    BoardUnavailable, Delivery, HostProtocol, LinkError,
)

log = logging.getLogger(__name__)

STATUSES = ("stopped", "unplugged", "connecting", "connected", "lost", "incompatible")
"""Every value `BoardLink.status` can take."""


def open_serial(path: str, baud: int) -> serial.Serial:
    """Open a real serial port the way the link needs it: non-blocking reads, exclusive."""
    # exclusive: a second program on the same board would steal half the frames.
    return serial.Serial(path, baudrate=baud, timeout=0, write_timeout=1.0, exclusive=True)


class BoardLink:
    """The host's link to the board; see the module docstring.

    Events from the board (ButtonEvent, CardScanned, BoardFault) go to `on_event`
    if given, and always to the `events` queue. Status changes go to `on_status`
    as ``(status, reason)`` and to `status_history`. Times come from `clock`.
    """

    def __init__(self, port: str, *, baud: int = 115200, retry_timeout: float = 0.05,
                 max_retries: int = 20, heartbeat_interval: float = 0.25,
                 heartbeat_timeout: float = 1.0, identify_interval: float = 0.1,
                 handshake_timeout: float = 3.0, reopen_interval: float = 0.25,
                 max_queue: int = 64, send_timeout: float = 5.0,
                 on_event: Optional[Callable[[Message], None]] = None,
                 on_status: Optional[Callable[[str, str], None]] = None,
                 clock: Callable[[], float] = time.monotonic,
                 opener: Callable[[str, int], serial.Serial] = open_serial):
        if not port:
            raise LinkError("no serial port given: set \"port\" to the board's "
                            "/dev/serial/by-id/... path")
        self.port_path = port
        self.baud = baud
        self.reopen_interval = reopen_interval
        self.send_timeout = send_timeout
        self.on_event = on_event
        self.on_status = on_status
        self.clock = clock
        self.opener = opener
        self.protocol = HostProtocol(retry_timeout=retry_timeout, max_retries=max_retries,
                                     heartbeat_interval=heartbeat_interval,
                                     heartbeat_timeout=heartbeat_timeout,
                                     identify_interval=identify_interval,
                                     handshake_timeout=handshake_timeout, max_queue=max_queue)
        self.events: queue.Queue = queue.Queue()
        self.status_history: list = []
        self.status = "stopped"
        self.reason = ""
        self._lock = threading.Lock()            # guards protocol state shared with send()
        self._changed = threading.Condition(self._lock)
        self._port: Optional[serial.Serial] = None
        self._reopen_at = 0.0
        self._stopping = False
        self._thread: Optional[threading.Thread] = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    # --- public --------------------------------------------------------------------
    def start(self) -> "BoardLink":
        """Start the link's thread (it opens the port and keeps it open)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"board-link {self.port_path}",
                                            daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread and close the port; waiting commands fail with BoardUnavailable."""
        self._stopping = True
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._wake_w is None:
            return
        with self._lock:
            for delivery in [self.protocol.in_flight, *self.protocol.tx_queue]:
                if delivery is not None:
                    delivery._finish(None, BoardUnavailable("the board link was closed"))
            self.protocol.tx_queue.clear()
        self._close_port()
        # Forget the numbers: a closed descriptor's number is soon reused by another file.
        wake_fds, self._wake_r, self._wake_w = (self._wake_r, self._wake_w), None, None
        for fd in wake_fds:
            os.close(fd)
        self._set_status("stopped", "closed by the host")

    def __enter__(self) -> "BoardLink":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        """True while a handshake has succeeded and the board is heard."""
        return self.status == "connected"

    @property
    def board(self):
        """The board's IdentifyResponse (name, firmware, versions, capabilities), once known."""
        return self.protocol.board

    @property
    def counters(self) -> dict:
        """Counts of frames, acks, retransmissions, duplicates, bad frames, losses..."""
        with self._lock:
            counts = dict(self.protocol.counters)
            deframer = self.protocol.deframer
            counts.update(bad_crc=deframer.bad_crc, bad_cobs=deframer.bad_cobs,
                          bad_length=deframer.bad_length, frames_received=deframer.packets)
            return counts

    def send_nowait(self, command: Message) -> Delivery:
        """Queue a command; returns its Delivery at once (``.wait()``, ``.error``)."""
        with self._lock:
            delivery = self.protocol.submit(command, self.clock())
        self._wake()
        return delivery

    def send(self, command: Message, timeout: Optional[float] = None) -> Delivery:
        """Send a command and return when the board has acknowledged it.

        Raises CommandNotAcked when the board did not ack after all retries,
        IncompatibleBoard when its protocol is not supported, and BoardUnavailable
        (the command is withdrawn) when `timeout` (default `send_timeout`) passes
        while the board is away.
        """
        delivery = self.send_nowait(command)
        timeout = self.send_timeout if timeout is None else timeout
        if not delivery.wait(timeout):
            with self._lock:
                delivery.cancelled = True
                if delivery in self.protocol.tx_queue:
                    self.protocol.tx_queue.remove(delivery)
                in_flight = delivery is self.protocol.in_flight
            if not delivery.done:
                where = "was sent but not yet acknowledged" if in_flight else "was withdrawn"
                raise BoardUnavailable(
                    f"{command!r} not confirmed within {timeout:g} s (board {self.status}: "
                    f"{self.reason}); it {where}. Check the board's cable and power.")
        if delivery.error is not None:
            raise delivery.error
        return delivery

    def wait_connected(self, timeout: float = 5.0):
        """Wait for a handshake; returns the board's IdentifyResponse.

        Raises IncompatibleBoard at once for a board of another major version, and
        TimeoutError (saying what the link is doing) when the time runs out.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.status != "connected":
                if self.status == "incompatible":
                    raise self.protocol.error
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"board not connected after {timeout:g} s: "
                                       f"{self.status} ({self.reason})")
                self._changed.wait(left)
            return self.protocol.board

    def wait_status(self, status: str, timeout: float) -> bool:
        """Wait until `status` is reached; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.status != status:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    # --- the thread -----------------------------------------------------------------
    def _wake(self) -> None:
        if self._wake_w is None:
            return
        try:
            os.write(self._wake_w, b"!")
        except OSError:  # pipe full (already awake) or closed
            pass

    def _set_status(self, status: str, reason: str) -> None:
        with self._changed:
            if (status, reason) == (self.status, self.reason):
                return
            self.status, self.reason = status, reason
            self.status_history.append((self.clock(), status, reason))
            self._changed.notify_all()
        log.log(logging.WARNING if status in ("lost", "incompatible", "unplugged") else logging.INFO,
                "board link %s: %s: %s", self.port_path, status, reason)
        if self.on_status:
            self._call(self.on_status, status, reason)

    @staticmethod
    def _call(callback, *args) -> None:
        # A failing callback must not kill the link's thread: log it and go on.
        try:
            callback(*args)
        except Exception:  # noqa: BLE001
            log.exception("board link callback %r failed", callback)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (OSError, serial.SerialException):
                pass

    def _try_open(self) -> None:
        try:
            port = self.opener(self.port_path, self.baud)
        except (OSError, serial.SerialException, ValueError) as exc:
            self._reopen_at = self.clock() + self.reopen_interval
            with self._lock:
                if self.protocol.state not in ("unplugged", "incompatible"):
                    self.protocol.connection_lost(f"board unplugged: cannot open {self.port_path} ({exc})")
            self._flush_protocol()
            return
        self._port = port
        with self._lock:
            self.protocol.connection_made(self.clock())
            self.protocol.poll(self.clock())
        self._flush_protocol()

    def _flush_protocol(self) -> None:
        """Write pending bytes and pass on events and status changes (outside the lock)."""
        with self._lock:
            out = self.protocol.take_output()
            events = self.protocol.take_delivered()
            changes = list(self.protocol.status_changes)
            self.protocol.status_changes.clear()
        if out and self._port is not None:
            self._port.write(out)
        for status, reason in changes:
            self._set_status(status, reason)
        for event in events:
            self.events.put(event)
            if self.on_event:
                self._call(self.on_event, event)

    def _run(self) -> None:
        while not self._stopping:
            try:
                if self._port is None:
                    if self.clock() >= self._reopen_at:
                        self._try_open()
                    if self._port is None:
                        self._sleep(min(max(self._reopen_at - self.clock(), 0.001), self.reopen_interval))
                        continue
                self._serve_port()
            except (OSError, serial.SerialException) as exc:
                self._close_port()
                with self._lock:
                    self.protocol.connection_lost(f"board unplugged ({exc})")
                self._reopen_at = self.clock() + self.reopen_interval
                self._flush_protocol()
            except Exception:  # noqa: BLE001 - a bug must not silently end the link
                log.exception("board link %s: unexpected error; reopening the port", self.port_path)
                self._close_port()
                with self._lock:
                    self.protocol.connection_lost("internal error (see the log); reopening")
                self._reopen_at = self.clock() + self.reopen_interval

    def _sleep(self, seconds: float) -> None:
        if self._wake_r is not None:
            select.select([self._wake_r], [], [], seconds)
            self._drain_wake()

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 512):
                pass
        except (BlockingIOError, OSError):
            pass

    def _serve_port(self) -> None:
        """One turn: wait for bytes or a timer, read, run the protocol, write."""
        port = self._port
        with self._lock:
            self.protocol.poll(self.clock())
            wait = self.protocol.next_deadline() - self.clock()
        self._flush_protocol()
        wait = min(max(wait, 0.0), 0.1)
        readable, _, _ = select.select([port.fileno(), self._wake_r], [], [], wait)
        if self._wake_r in readable:
            self._drain_wake()
        if port.fileno() in readable:
            data = port.read(max(port.in_waiting, 1))
            with self._lock:
                self.protocol.data_received(data, self.clock())
        with self._lock:
            self.protocol.poll(self.clock())
            reopen = self.protocol.wants_reopen
        self._flush_protocol()
        if reopen:
            # Closing and reopening also pulses DTR, which resets most boards.
            self._close_port()
            self._reopen_at = self.clock() + min(self.reopen_interval, 0.05)
