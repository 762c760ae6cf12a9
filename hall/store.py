"""The hall's store: every table's events and the hall's own events, append-only in SQLite.

Table events are unique on (night, table, seq): a message that arrives twice (normal
under faults: a resend after a reconnect, QoS 1's own redelivery) is stored once; the
same seq with a different body is a *conflict* (a replayed or forged message, or a
second device claiming the table) and is refused, never stored over the first. Nothing
is ever updated or deleted (triggers refuse it), so the standings replay exactly.

Like the table's log, the store uses WAL with ``synchronous=FULL``: an acknowledgement
is published only after the events it covers are committed, so a table never drops an
event from its resend window that the hall could still lose.

>>> import tempfile, os
>>> st = Store(os.path.join(tempfile.mkdtemp(), "hall.sqlite"))
>>> st.add_events("n1", [(2, 1, 0.0, "pi", {"type": "hand", "dealer": "S"}),
...                      (2, 1, 0.0, "pi", {"type": "hand", "dealer": "S"}),
...                      (2, 3, 0.2, "pi", {"type": "collect"})])
{'stored': 2, 'duplicates': 1, 'conflicts': []}
>>> st.contiguous("n1", 2), st.max_seq("n1", 2)
(1, 3)
>>> st.append_hall({"kind": "night", "night": "n1", "config": {}}, at=5.0)["seq"]
1
"""
from __future__ import annotations

import json
import sqlite3
import threading
from typing import Iterable, Optional

_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_events (
    night    TEXT    NOT NULL,
    tab      INTEGER NOT NULL,     -- the table number
    seq      INTEGER NOT NULL,     -- the table's own sequence number
    at       REAL    NOT NULL,     -- the table's time of the event
    device   TEXT    NOT NULL,     -- the device that sent it
    body     TEXT    NOT NULL,     -- the event's fields as JSON (keys sorted, without seq/at)
    received REAL    NOT NULL,     -- the hall's time when it was stored
    PRIMARY KEY (night, tab, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hall_events (
    seq  INTEGER PRIMARY KEY,
    at   REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS table_events_append_only_u BEFORE UPDATE ON table_events
BEGIN SELECT RAISE(ABORT, 'the hall store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS table_events_append_only_d BEFORE DELETE ON table_events
BEGIN SELECT RAISE(ABORT, 'the hall store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS hall_events_append_only_u BEFORE UPDATE ON hall_events
BEGIN SELECT RAISE(ABORT, 'the hall store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS hall_events_append_only_d BEFORE DELETE ON hall_events
BEGIN SELECT RAISE(ABORT, 'the hall store is append-only'); END;
"""


class StoreError(RuntimeError):
    """The store cannot be opened or written; the text names the file and what to do."""


def _body(event: dict) -> str:
    return json.dumps({k: v for k, v in event.items() if k not in ("seq", "at")},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class Store:
    """The hall's SQLite file. Thread-safe (one connection behind a lock); readers in
    other threads or processes may open the same file (WAL)."""

    def __init__(self, path: str):
        self.path = str(path)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StoreError(f"{self.path}: SQLite would not use WAL mode; put the hall's "
                                 "store on a local file system")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")   # a reader in another process
            self._db.executescript(_SCHEMA)
            # Highest contiguous seq and highest seq per (night, table), kept in memory.
            self._contig: dict = {}
            self._max: dict = {}
            self._devices: dict = {}
            rows = self._db.execute(
                "SELECT night, tab, seq, device FROM table_events ORDER BY night, tab, seq")
            for night, tab, seq, device in rows:
                key = (night, tab)
                self._devices.setdefault(key, device)
                self._max[key] = seq
                if seq == self._contig.get(key, 0) + 1:
                    self._contig[key] = seq
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"Cannot open the hall's store {self.path}: {exc}. Check that it is "
                             "a hall store (SQLite) on a writable, local file system") from None

    # ------------------------------------------------------------------ table events
    def add_events(self, night: str, items: Iterable[tuple], received: float = 0.0) -> dict:
        """Store ``(table, seq, at, device, event)`` items in one transaction.

        Returns counts: ``stored`` (new), ``duplicates`` (same seq, same body: dropped)
        and ``conflicts`` (a list of ``(table, seq, why)``: same seq, different body or
        device; refused, the first one stays)."""
        stored = dups = 0
        conflicts = []
        tops: dict = {}
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for table, seq, at, device, event in items:
                    body = _body(event)
                    cur = self._db.execute(
                        "INSERT OR IGNORE INTO table_events VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (night, table, seq, float(at), device, body, received))
                    key = (night, table)
                    if cur.rowcount == 1:
                        stored += 1
                        self._devices.setdefault(key, device)
                        tops[key] = max(seq, tops.get(key, 0))
                        continue
                    old_body, old_device = self._db.execute(
                        "SELECT body, device FROM table_events WHERE night=? AND tab=? AND seq=?",
                        (night, table, seq)).fetchone()
                    if old_body == body and old_device == device:
                        dups += 1
                    elif old_device != device:
                        conflicts.append((table, seq, f"seq {seq} already came from device "
                                                      f"{old_device!r}, now from {device!r}"))
                    else:
                        conflicts.append((table, seq, f"seq {seq} was already stored with "
                                                      "different contents (a replayed or "
                                                      "altered message)"))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            # The highest seq is raised only once its events are committed, so that
            # max_seq never names an event a rollback took away.
            for key, seq in tops.items():
                if seq > self._max.get(key, 0):
                    self._max[key] = seq
            if stored:
                self._advance(night)
        return {"stored": stored, "duplicates": dups, "conflicts": conflicts}

    def _advance(self, night: str) -> None:
        for (n, table), top in list(self._max.items()):
            if n != night:
                continue
            c = self._contig.get((n, table), 0)
            if c >= top:
                continue
            for (seq,) in self._db.execute(
                    "SELECT seq FROM table_events WHERE night=? AND tab=? AND seq>? ORDER BY seq",
                    (n, table, c)):
                if seq != c + 1:
                    break
                c = seq
            self._contig[(n, table)] = c

    def contiguous(self, night: str, table: int) -> int:
        """The highest seq up to which every event of the table is stored (the ack)."""
        return self._contig.get((night, table), 0)

    def next_stored(self, night: str, table: int, after: int) -> Optional[int]:
        """The first seq stored above ``after`` (the end of a hole is the one before it)."""
        with self._lock:
            return self._db.execute("SELECT MIN(seq) FROM table_events WHERE night=? AND tab=? "
                                    "AND seq>?", (night, table, after)).fetchone()[0]

    def max_seq(self, night: str, table: int) -> int:
        return self._max.get((night, table), 0)

    def device(self, night: str, table: int) -> Optional[str]:
        """The device whose events were stored first for the table this night."""
        return self._devices.get((night, table))

    def tables(self, night: str) -> list:
        return sorted(t for (n, t) in self._max if n == night)

    def records(self, night: str, table: int, upto: Optional[int] = None,
                since: int = 0) -> list:
        """The table's records after seq ``since``, in seq order, as ``Record.to_dict()``
        gives them; by default only up to the contiguous prefix (what the standings may
        fold)."""
        upto = self.contiguous(night, table) if upto is None else upto
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, body FROM table_events WHERE night=? AND tab=? AND seq>? "
                "AND seq<=? ORDER BY seq", (night, table, since, upto)).fetchall()
        return [{**json.loads(body), "seq": seq, "at": at} for seq, at, body in rows]

    def all_records(self, night: str) -> dict:
        """``{table: [record, ...]}`` of every table's contiguous prefix (the fold's input)."""
        return {t: self.records(night, t) for t in self.tables(night)}

    def count(self, night: Optional[str] = None) -> int:
        with self._lock:
            if night is None:
                return self._db.execute("SELECT COUNT(*) FROM table_events").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM table_events WHERE night=?",
                                    (night,)).fetchone()[0]

    # ------------------------------------------------------------------ hall events
    def append_hall(self, event: dict, at: float) -> dict:
        """Append one hall event (round start, director action, refused input...) and
        return it with its ``seq`` and ``at``."""
        body = _body(event)
        with self._lock:
            cur = self._db.execute("INSERT INTO hall_events (at, body) VALUES (?, ?)",
                                   (float(at), body))
            return {**json.loads(body), "seq": cur.lastrowid, "at": float(at)}

    def hall_events(self, from_seq: int = 1) -> list:
        with self._lock:
            rows = self._db.execute("SELECT seq, at, body FROM hall_events WHERE seq>=? "
                                    "ORDER BY seq", (from_seq,)).fetchall()
        return [{**json.loads(body), "seq": seq, "at": at} for seq, at, body in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
