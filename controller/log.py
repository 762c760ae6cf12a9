"""The table's durable event log: every input appended to SQLite (WAL, synchronous=FULL) before it acts.

Why SQLite rather than an append-only file: each append is one atomic transaction, so a
power cut leaves either the whole event or none of it (no torn last line to repair); WAL
with ``synchronous=FULL`` syncs the WAL at every commit, so an append that has returned
survives the cut; ``seq`` is the primary key, so reading from any sequence number (to
publish to a club server) is an index lookup; a reader (statistics, publisher) can read
while the table appends. It is in the standard library and tested for power loss by its
authors. See ``docs/log.md``.

>>> import tempfile, os
>>> log = EventLog(os.path.join(tempfile.mkdtemp(), "table.sqlite"))
>>> log.append({"type": "hand", "dealer": "S"}, at=1700000000.0).seq
1
>>> log.append("not json", at=1700000001.5).to_dict()
{'seq': 2, 'at': 1700000001.5, 'raw': 'not json'}
>>> [r.seq for r in log.records(from_seq=2)]
[2]
"""
from __future__ import annotations

import json
import math
import sqlite3
from typing import Iterator, NamedTuple

from engine.referee import Referee, Verdict
from engine.rules import Rules

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq  INTEGER PRIMARY KEY,   -- 1, 2, 3 ... in the order events happened
    at   REAL    NOT NULL,      -- seconds since the epoch, passed in by the caller
    body TEXT    NOT NULL       -- the event as received: a JSON object, or the raw line
);
"""

SQLITE_MAGIC = b"SQLite format 3\x00"


class LogError(RuntimeError):
    """The log cannot be opened or written; the message says which file and what to do."""


class Record(NamedTuple):
    """One logged event: its sequence number, time, and text as received."""

    seq: int
    at: float
    body: str

    def event(self):
        """The event to feed to the referee: a dict when the body is a JSON object,
        else the raw text (the referee refuses it with a reason)."""
        try:
            obj = json.loads(self.body)
        except ValueError:
            return self.body
        return obj if isinstance(obj, dict) else self.body

    def to_dict(self) -> dict:
        """The event with ``seq`` and ``at`` added; a line that was not a JSON object is
        kept as ``raw``."""
        ev = self.event()
        if isinstance(ev, dict):
            return {**ev, "seq": self.seq, "at": self.at}
        return {"seq": self.seq, "at": self.at, "raw": self.body}

    def to_line(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


class EventLog:
    """An append-only log of table events in one SQLite file.

    ``append`` returns only after the event is durable (committed with the WAL synced):
    acknowledge an input to anyone only after it returns."""

    def __init__(self, path: str):
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise LogError(f"{self.path}: SQLite would not use WAL mode (got {mode!r}); "
                               "put the log on a local file system")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LogError(f"Cannot open the event log {self.path}: {exc}. Check that it is an "
                           "event log (SQLite) on a writable, local file system") from None

    def append(self, event, at: float) -> Record:
        """Append one event durably and return its record (with its ``seq``).

        ``event`` is a dict (stored as JSON; any ``seq``/``at`` in it are replaced by the
        log's own) or the text of a line exactly as received, even when it is not JSON,
        so that the record keeps what happened."""
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
            raise LogError(f"'at' must be the time in seconds (a number), not {at!r}")
        if isinstance(event, dict):
            body = json.dumps({k: v for k, v in event.items() if k not in ("seq", "at")},
                              ensure_ascii=False, sort_keys=True, default=str)
        elif isinstance(event, (bytes, bytearray)):
            body = bytes(event).decode("utf-8", errors="replace")
        elif isinstance(event, str):
            body = event
        else:
            body = repr(event)
        body = body.replace("\x00", "\\u0000")  # SQLite text stops at NUL in some tools
        cur = self._db.execute("INSERT INTO events (at, body) VALUES (?, ?)", (float(at), body))
        return Record(cur.lastrowid, float(at), body)

    def records(self, from_seq: int = 1) -> Iterator[Record]:
        """The events from ``from_seq`` on, in order (to replay or to publish)."""
        for seq, at, body in self._db.execute(
                "SELECT seq, at, body FROM events WHERE seq >= ? ORDER BY seq", (from_seq,)):
            yield Record(seq, at, body)

    @property
    def last_seq(self) -> int:
        """The sequence number of the last durable event (0 when empty)."""
        return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def is_log_file(path: str) -> bool:
    """True when ``path`` is an SQLite file (an event log) rather than JSON lines."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


class RefereedLog:
    """The log and the referee wired together: append first, then fold; on start, replay.

    >>> import tempfile, os
    >>> table = RefereedLog(os.path.join(tempfile.mkdtemp(), "t.sqlite"), Rules.preset("standard"))
    >>> table.record({"type": "hand", "dealer": "S"}, at=0.0).ok
    True
    """

    def __init__(self, path: str, rules: Rules, known_seats=()):
        self.log = EventLog(path)
        self.referee = Referee(rules, known_seats=known_seats)
        # A restart folds the whole log again: the state after the last durable event.
        for rec in self.log.records():
            self.referee.feed(rec.event(), seq=rec.seq)

    def record(self, event, at: float) -> Verdict:
        """Log ``event`` durably, then fold it; the verdict belongs to the logged seq."""
        rec = self.log.append(event, at)
        return self.referee.feed(rec.event(), seq=rec.seq)

    def close(self):
        self.log.close()


def read_events(path: str, from_seq: int = 1) -> Iterator[tuple]:
    """``(seq, event)`` from an event log file or from a JSON-lines file.

    In JSON lines a line's own ``seq`` is used when it has one, else its line number;
    blank lines are skipped; malformed lines come through as text for the referee to refuse.
    Sealed cards of finished hands come back opened from their reveal
    (``controller.secrecy.open_events``); those of the hand in progress stay sealed."""
    from controller.secrecy import open_events
    pairs = open_events(_read_raw(path))
    return ((seq, ev) for seq, ev in pairs if seq >= from_seq)


def _read_raw(path: str) -> Iterator[tuple]:
    from_seq = 1
    if is_log_file(path):
        log = EventLog(path)
        try:
            for rec in log.records(from_seq):
                yield rec.seq, rec.event()
        finally:
            log.close()
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            seq = n
            try:
                obj = json.loads(line)
                if isinstance(obj, dict) and type(obj.get("seq")) is int:
                    seq = obj["seq"]
            except ValueError:
                obj = None
            if seq >= from_seq:
                yield seq, (obj if isinstance(obj, dict) else line)


__all__ = ["EventLog", "Record", "RefereedLog", "LogError", "read_events", "is_log_file"]
