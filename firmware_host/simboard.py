"""A simulated table board on a pseudo-terminal, speaking the real protocol, for tests and demos.

The board holds the master end of an ``os.openpty()`` pair; the slave end's path
is exposed through a symlink at a stable path, as udev does with
``/dev/serial/by-id/...``. The host opens that path with pyserial as if it were a
USB board. The simulator can press buttons, scan cards, corrupt a fraction of
the bytes both ways, freeze (stop answering), and unplug and replug: unplugging
removes the link and closes the pty so the host's port fails exactly as on a USB
unplug; replugging makes a new pty behind the same stable path.

Run one by hand (then point the host at the printed path)::

    python -m firmware_host.simboard --path /tmp/euchre-board --corrupt 0.01
"""
from __future__ import annotations

import argparse
import os
import random
import select
import sys
import tempfile
import threading
import time
import tty
from typing import Callable, Optional

from .messages import BoardFault, ButtonEvent, CardScanned, Message
from .protocol import BoardProtocol, Delivery


def corrupt_bytes(data: bytes, fraction: float, rng: random.Random) -> tuple[bytes, int]:
    """Replace each byte, with probability `fraction`, by a different random byte.

    Returns the new bytes and how many were changed.

    >>> corrupt_bytes(b"abc", 0.0, random.Random(1))
    (b'abc', 0)
    >>> corrupt_bytes(b"abc", 1.0, random.Random(1))[1]
    3
    """
    if fraction <= 0 or not data:
        return data, 0
    out = bytearray(data)
    changed = 0
    for i in range(len(out)):
        if rng.random() < fraction:
            out[i] ^= rng.randrange(1, 256)   # xor with non-zero: always a different byte
            changed += 1
    return bytes(out), changed


class SimulatedBoard:
    """A board on a pty behind the stable symlink `path`; see the module docstring.

    `corrupt` is the fraction of bytes changed in each direction; `reboot_on_replug`
    says whether a replug forgets the session and the queued events (a bus-powered
    board loses power when unplugged) or keeps them (a board with its own supply).
    Commands the board received, each once and in order, are in `received`, and
    also go to `on_command`.

    >>> with SimulatedBoard() as board:
    ...     os.path.realpath(board.path).startswith("/dev/pts/")
    True
    """

    def __init__(self, path: Optional[str] = None, *, corrupt: float = 0.0, seed: Optional[int] = None,
                 reboot_on_replug: bool = False, on_command: Optional[Callable[[Message], None]] = None,
                 poll_interval: float = 0.1, **protocol_options):
        if not 0.0 <= corrupt < 1.0:
            raise ValueError(f"corrupt is a fraction of bytes from 0 to below 1, got {corrupt!r}")
        self._own_dir = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="euchre-board-")
            path = os.path.join(self._own_dir, "usb-euchre-table_sim-board-if00")
        self.path = path
        self.corrupt = corrupt
        self.rng = random.Random(seed)
        self.reboot_on_replug = reboot_on_replug
        self.on_command = on_command
        self.poll_interval = poll_interval
        self.protocol_options = protocol_options
        self.protocol = BoardProtocol(**protocol_options)
        self.received: list = []
        self.bytes_corrupted = 0
        self.bytes_dropped = 0
        self.plugged = False
        self.frozen = False
        self._master: Optional[int] = None
        self._slave: Optional[int] = None
        self._lock = threading.RLock()
        self._thread: Optional[threading.Thread] = None
        self._stopping = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.start_time = time.monotonic()

    # --- life cycle -----------------------------------------------------------------
    def start(self) -> "SimulatedBoard":
        """Plug the board in and start answering."""
        self.plug()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="simulated-board", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the board and remove its pty and link."""
        self._stopping = True
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self.unplug()
        if self._wake_w is not None:
            wake_fds, self._wake_r, self._wake_w = (self._wake_r, self._wake_w), None, None
            for fd in wake_fds:
                os.close(fd)
        if self._own_dir:
            try:
                os.rmdir(self._own_dir)
            except OSError:
                pass

    def __enter__(self) -> "SimulatedBoard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def plug(self) -> str:
        """Make a new pty and point the stable link at it; returns the pty's own path."""
        with self._lock:
            if self.plugged:
                return os.ttyname(self._slave)
            master, slave = os.openpty()
            # Raw both ways: no echo, no newline translation, every byte passes as is.
            tty.setraw(master)
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            # The board keeps a slave descriptor of its own so that reads on the master
            # do not fail with EIO while the host has the port closed.
            name = os.ttyname(slave)
            tmp = f"{self.path}.{os.getpid()}.tmp"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(name, tmp)
            os.replace(tmp, self.path)   # atomic, as udev swaps by-id links
            self.plugged = True
        self._wake()
        return name

    def unplug(self) -> None:
        """Pull the cable: the link disappears and the host's port fails."""
        with self._lock:
            if not self.plugged:
                return
            self.plugged = False
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            for fd in (self._master, self._slave):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._master = self._slave = None
        self._wake()

    def replug(self) -> str:
        """Plug in again at the same stable path (after `reboot_on_replug`, as a fresh board)."""
        with self._lock:
            self.unplug()
            if self.reboot_on_replug:
                self.reboot()
            return self.plug()

    def reboot(self) -> None:
        """Restart the firmware: the session and unsent events are forgotten."""
        with self._lock:
            self.protocol = BoardProtocol(**self.protocol_options)

    def freeze(self) -> None:
        """Stop answering (a hung board); bytes from the host pile up unread."""
        self.frozen = True

    def thaw(self) -> None:
        """Answer again after `freeze`."""
        self.frozen = False
        self._wake()

    # --- board events -----------------------------------------------------------------
    def _submit(self, event: Message) -> Delivery:
        with self._lock:
            delivery = self.protocol.submit(event, time.monotonic())
        self._wake()
        return delivery

    def press(self, button: int) -> Delivery:
        """Press (and hold) a button."""
        return self._submit(ButtonEvent(button, True))

    def release(self, button: int) -> Delivery:
        """Release a button."""
        return self._submit(ButtonEvent(button, False))

    def click(self, button: int) -> tuple[Delivery, Delivery]:
        """Press and release a button."""
        return self.press(button), self.release(button)

    def scan(self, card_text: str) -> Delivery:
        """The scanner reads a card (any text: the host decides whether it is a card)."""
        return self._submit(CardScanned(card_text))

    def fault(self, code: int, text: str) -> Delivery:
        """Report a board fault."""
        return self._submit(BoardFault(code, text))

    @property
    def counters(self) -> dict:
        """The board protocol's counters and the corrupted-byte count."""
        with self._lock:
            counts = dict(self.protocol.counters)
            counts["bytes_corrupted"] = self.bytes_corrupted
            counts["bytes_dropped"] = self.bytes_dropped
            counts["bad_frames"] = self.protocol.deframer.bad_frames
            return counts

    # --- the thread ---------------------------------------------------------------
    def _wake(self) -> None:
        if self._wake_w is None:
            return
        try:
            os.write(self._wake_w, b"!")
        except OSError:
            pass

    def _run(self) -> None:
        while not self._stopping:
            with self._lock:
                master = self._master if self.plugged and not self.frozen else None
                wait = self.poll_interval
                if master is not None:
                    now = time.monotonic()
                    wait = min(max(self.protocol.next_deadline() - now, 0.0), self.poll_interval)
            fds = [self._wake_r] + ([master] if master is not None else [])
            try:
                readable, _, _ = select.select(fds, [], [], wait)
            except (OSError, ValueError):  # the pty was closed by unplug() meanwhile
                continue
            if self._wake_r in readable:
                try:
                    while os.read(self._wake_r, 512):
                        pass
                except OSError:
                    pass
            with self._lock:
                if master is None or master != self._master or self.frozen:
                    continue
                try:
                    if master in readable:
                        self._read(master)
                    # Record commands before their acks go out, so that whoever sees the
                    # ack also sees the command in `received`.
                    for command in self.protocol.take_delivered():
                        self.received.append(command)
                        if self.on_command:
                            self.on_command(command)
                    self.protocol.poll(time.monotonic())
                    self._write(master, self.protocol.take_output())
                except OSError:
                    pass  # unplugged under us; the next turn sees it

    def _read(self, master: int) -> None:
        try:
            data = os.read(master, 4096)
        except BlockingIOError:
            return
        data, changed = corrupt_bytes(data, self.corrupt, self.rng)
        self.bytes_corrupted += changed
        self.protocol.data_received(data, time.monotonic())

    def _write(self, master: int, data: bytes) -> None:
        if not data:
            return
        data, changed = corrupt_bytes(data, self.corrupt, self.rng)
        self.bytes_corrupted += changed
        try:
            written = os.write(master, data)
        except BlockingIOError:
            written = 0
        # Like a USB CDC board whose host is not reading: what does not fit is lost
        # (the protocol's retransmission copes), rather than stalling the board.
        self.bytes_dropped += len(data) - written


def main(argv=None) -> int:
    """Run a simulated board by hand: type commands on stdin, see what the host sent."""
    parser = argparse.ArgumentParser(prog="python -m firmware_host.simboard",
                                     description="A simulated euchre-table board on a pty.")
    parser.add_argument("--path", help="stable symlink to create (default: a temporary one)")
    parser.add_argument("--corrupt", type=float, default=0.0, help="fraction of bytes to corrupt")
    parser.add_argument("--seed", type=int, help="random seed for the corruption")
    parser.add_argument("--reboot-on-replug", action="store_true")
    args = parser.parse_args(argv)

    def show(command):
        print(f"board got: {command!r}", flush=True)

    board = SimulatedBoard(args.path, corrupt=args.corrupt, seed=args.seed,
                           reboot_on_replug=args.reboot_on_replug, on_command=show)
    board.start()
    print(f"simulated board at {board.path} -> {os.path.realpath(board.path)}")
    print("commands: press N | release N | click N | scan JH | fault CODE TEXT | "
          "unplug | replug | freeze | thaw | counters | quit", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            verb, rest = words[0], words[1:]
            try:
                if verb in ("press", "release", "click"):
                    getattr(board, verb)(int(rest[0]))
                elif verb == "scan":
                    board.scan(rest[0])
                elif verb == "fault":
                    board.fault(int(rest[0]), " ".join(rest[1:]))
                elif verb in ("unplug", "replug", "freeze", "thaw"):
                    getattr(board, verb)()
                elif verb == "counters":
                    print(board.counters)
                elif verb in ("quit", "exit"):
                    break
                else:
                    print(f"unknown command {verb!r}")
            except (IndexError, ValueError) as exc:
                print(f"bad command {line.strip()!r}: {exc}")
    except KeyboardInterrupt:
        pass
    finally:
        board.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
