"""Start and stop a local MQTT broker (Debian's mosquitto, or nats-server's MQTT listener) on a free loopback port.

For tests, ``euchre-table simulate --club`` and the benchmarks: the broker listens on
127.0.0.1 only, on a port the kernel says is free, with its files in a folder of its own.
A mosquitto broker gets a password file and an ACL so that each table may write only
under its own number (``club/+/t/<user>/...``) and only the hall writes acknowledgements
and commands. ``kill()`` is SIGKILL (the chaos test), ``start()`` again restarts it on
the same port.

>>> b = Broker.__new__(Broker); b.kind = "mosquitto"; b.users = {"hall": "pw", "1": "pw1"}
>>> print(acl_text())   # doctest: +ELLIPSIS
user hall
topic readwrite club/#
...
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

KINDS = ("mosquitto", "nats")


class BrokerError(RuntimeError):
    """The broker could not be started; the text says why and what to install."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def acl_text(hall_user: str = "hall") -> str:
    """mosquitto's ACL: the hall reads and writes everything under ``club/``; a table
    (user name = its number) writes its events and status and reads its ack and commands,
    under its own number only."""
    return "\n".join([
        f"user {hall_user}",
        "topic readwrite club/#",
        "",
        "pattern write club/+/t/%u/ev",
        "pattern write club/+/t/%u/status",
        "pattern read club/+/t/%u/ack",
        "pattern read club/+/t/%u/cmd",
        "",
    ])


def wait_port(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


class Broker:
    """A broker process on 127.0.0.1:``port``.

    ``users`` maps user names to passwords (mosquitto: password file and ACL; none:
    anonymous). ``kind`` is ``"mosquitto"`` or ``"nats"`` (nats-server with JetStream
    and its MQTT listener; its own client port is on loopback too).

    >>> # with Broker("mosquitto", users={"hall": "h", "1": "t1"}) as b: b.port
    """

    def __init__(self, kind: str = "mosquitto", users: Optional[dict] = None,
                 port: Optional[int] = None, folder: Optional[str] = None,
                 extra_conf: str = "", nats_extra: str = "", domain: Optional[str] = None):
        if kind not in KINDS:
            raise BrokerError(f"broker kind {kind!r}: use mosquitto or nats")
        self.kind = kind
        self.users = dict(users or {})
        self.port = port or free_port()
        self._own_folder = folder is None
        self.folder = Path(folder or tempfile.mkdtemp(prefix=f"euchre-{kind}-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.extra_conf = extra_conf
        self.nats_extra = nats_extra
        self.domain = domain
        self.nats_port = free_port() if kind == "nats" else None
        self.proc: Optional[subprocess.Popen] = None
        self.starts = 0
        self._write_config()

    # ------------------------------------------------------------------ configuration
    def _write_config(self) -> None:
        if self.kind == "mosquitto":
            exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
            if not os.path.exists(exe):
                raise BrokerError("mosquitto is not installed: `make setup` installs it "
                                  "(apt-get install mosquitto)")
            self.exe = exe
            lines = [f"listener {self.port} 127.0.0.1", "persistence false",
                     "log_dest stderr", "log_type error", "log_type warning",
                     "max_queued_messages 100000", "max_inflight_messages 100"]
            if os.geteuid() == 0:
                # Started as root, mosquitto switches to the user "mosquitto", who cannot
                # read this private folder: a test broker keeps the caller's user.
                lines.append("user root")
            if self.users:
                pw = self.folder / "passwd"
                pw.write_text("".join(f"{u}:{p}\n" for u, p in self.users.items()))
                os.chmod(pw, 0o600)
                tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
                r = subprocess.run([tool, "-U", str(pw)], capture_output=True, text=True)
                if r.returncode != 0:
                    raise BrokerError(f"mosquitto_passwd failed: {r.stderr.strip()}")
                (self.folder / "acl").write_text(acl_text())
                lines += ["allow_anonymous false", f"password_file {pw}",
                          f"acl_file {self.folder / 'acl'}"]
            else:
                lines.append("allow_anonymous true")
            lines.append(self.extra_conf)
            self.conf = self.folder / "mosquitto.conf"
            self.conf.write_text("\n".join(lines) + "\n")
            self.argv = [exe, "-c", str(self.conf)]
        else:
            exe = shutil.which("nats-server") or "/usr/bin/nats-server"
            if not os.path.exists(exe):
                raise BrokerError("nats-server is not installed: `make setup` installs it "
                                  "(apt-get install nats-server)")
            self.exe = exe
            store = self.folder / "jetstream"
            domain = f", domain: {self.domain}" if self.domain else ""
            conf = [f"listen: 127.0.0.1:{self.nats_port}",
                    f"server_name: {self.domain or 'hall'}_{self.port}",
                    f"jetstream {{ store_dir: \"{store}\"{domain} }}",
                    f"mqtt {{ listen: 127.0.0.1:{self.port} }}",
                    self.nats_extra]
            self.conf = self.folder / "nats.conf"
            self.conf.write_text("\n".join(conf) + "\n")
            self.argv = [exe, "-c", str(self.conf)]

    # ------------------------------------------------------------------ life
    def start(self, timeout: float = 15.0) -> "Broker":
        """Start (or restart) the broker and wait until it accepts connections."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        self._log = open(self.folder / "broker.log", "ab")
        # Its own session: a Ctrl-C in the terminal reaches us, and we stop it ourselves.
        self.proc = subprocess.Popen(self.argv, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.starts += 1
        if not wait_port(self.port, timeout):
            self.stop()
            raise BrokerError(f"{self.kind} did not listen on 127.0.0.1:{self.port} within "
                              f"{timeout:.0f} s; see {self.folder / 'broker.log'}")
        return self

    def kill(self) -> None:
        """SIGKILL: the broker dies with whatever it held in memory."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None

    def close(self) -> None:
        self.stop()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
