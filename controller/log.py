"""The table's durable event log: every input appended to SQLite (WAL, synchronous=FULL) before it acts.

Why SQLite rather than an append-only file: each append is one atomic transaction, so a
power cut leaves either the whole event or none of it (no torn last line to repair); WAL
with ``synchronous=FULL`` syncs the WAL at every commit, so an append that has returned
survives the cut; ``seq`` is the primary key, so reading from any sequence number (to
publish to a club server) is an index lookup; a reader (statistics, publisher) can read
while the table appends. It is in the standard library and tested for power loss by its
authors. See ``docs/log.md``.

The log is the table's memory, so three rules hold here:

- **One writer.** :class:`EventLog` takes a lock (``LOG.lock``) that the operating system
  releases when the process ends, however it ends; a second writer is refused with the
  holder's process id and command (:class:`LogBusy`).
- **Readers never write.** :func:`read_events` and :class:`LogReader` open the file
  read-only (``mode=ro``; ``immutable=1`` on read-only media), so that replaying a log, or
  a file that is not one, changes nothing.
- **A damaged log is never overwritten or deleted.** :func:`open_log` moves it aside
  (``LOG.damaged-<time>``) and writes what SQLite can still read into a new log.

>>> import tempfile, os
>>> log = EventLog(os.path.join(tempfile.mkdtemp(), "table.sqlite"))
>>> log.append({"type": "hand", "dealer": "S"}, at=1700000000.0).seq
1
>>> log.append("not json", at=1700000001.5).to_dict()
{'seq': 2, 'at': 1700000001.5, 'raw': 'not json'}
>>> [r.seq for r in log.records(from_seq=2)]
[2]
>>> log.close()
"""
from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, NamedTuple, Optional

from engine.referee import MAX_EVENT_CHARS, Referee, Verdict
from engine.rules import Rules

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq  INTEGER PRIMARY KEY,   -- 1, 2, 3 ... in the order events happened
    at   REAL    NOT NULL,      -- seconds since the epoch, passed in by the caller
    body TEXT    NOT NULL       -- the event as received: a JSON object, or the raw line
);
"""
_COLUMNS = ["seq", "at", "body"]

SQLITE_MAGIC = b"SQLite format 3\x00"


class LogError(RuntimeError):
    """The log cannot be opened, read or written; the message says which file, what is
    wrong and what to do."""


class LogBusy(LogError):
    """Another process is writing to this log (the message names it)."""


class NotALog(LogError):
    """The file is not a euchre-table log (another program's database, a binary file …)."""


class LogDamaged(LogError):
    """The log is an SQLite file that SQLite cannot read whole (a damaged page, a cut-off
    file, a damaged header). ``read`` is how many events could be read before the damage."""

    def __init__(self, message: str, path: str = "", read: int = 0):
        super().__init__(message)
        self.path, self.read = path, read


class Record(NamedTuple):
    """One logged event: its sequence number, time, and text as received."""

    seq: int
    at: float
    body: str

    def event(self):
        """The event to feed to the referee: a dict when the body is a JSON object,
        else the raw text (the referee refuses it with a reason).

        A body too long or too deeply nested to be an event is not parsed here: the
        referee refuses its text like any other bad line."""
        if len(self.body) > MAX_EVENT_CHARS:
            return self.body
        try:
            obj = json.loads(self.body)
        except (ValueError, RecursionError):
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


# ---------------------------------------------------------------------- the writer's lock
class WriterLock:
    """The one-writer lock of a log: ``flock`` on ``LOG.lock``, held while the process
    lives. The kernel drops it when the process ends (even by SIGKILL or a power cut), so
    there is never a stale lock to clean up. The file says who holds it."""

    def __init__(self, log_path: str):
        self.path = str(log_path) + ".lock"
        self._fd = None
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            folder = os.path.dirname(os.path.abspath(self.path))
            why = (f"the folder {folder} does not exist" if not os.path.isdir(folder)
                   else f"{exc.strerror}: the folder of the log must be writable")
            raise LogError(f"Cannot create the lock file {self.path}: {why}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_holder(self._fd)
            os.close(self._fd)
            self._fd = None
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise LogBusy(f"{log_path} is already being written by {holder}. One table, "
                              "one writer: stop the other one first (for the service: "
                              "sudo systemctl stop euchre-table)") from None
            raise LogError(f"Cannot lock {self.path}: {exc.strerror}") from None
        who = (f"process {os.getpid()} ({' '.join(sys.argv) or 'python'}), "
               f"since {time.strftime('%Y-%m-%d %H:%M:%S')}")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, who.encode("utf-8", "replace") + b"\n", 0)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)      # closing the descriptor drops the lock
            self._fd = None

    def __del__(self):
        # A writer dropped without close() (an error while the service was starting)
        # must not keep the table locked for the rest of the process.
        self.release()


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 500, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "another process"


# ---------------------------------------------------------------------- the writer
class EventLog:
    """An append-only log of table events in one SQLite file, with one writer.

    ``append`` returns only after the event is durable (committed with the WAL synced):
    acknowledge an input to anyone only after it returns. Opening takes the writer's lock
    (:class:`LogBusy` when another process holds it) and checks the file: a damaged log
    raises :class:`LogDamaged` (:func:`open_log` recovers it), another program's
    database :class:`NotALog`; neither is changed."""

    def __init__(self, path: str, lock: Optional[WriterLock] = None):
        self.path = str(path)
        self._db = None
        self._own_lock = lock is None
        self._lock = lock or WriterLock(self.path)
        try:
            self._open()
        except BaseException:
            self._close_db()
            if self._own_lock:
                self._lock.release()
            raise

    def _open(self) -> None:
        path = self.path
        if os.path.isdir(path):
            raise LogError(f"{path} is a folder: the log is a file (e.g. table-log.sqlite)")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.access(folder, os.W_OK):
            raise LogError(f"The folder {folder} is not writable: the table keeps its log "
                           "there (state_dir in [table]); make it writable for the table's user")
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size:
            with open(path, "rb") as f:
                head = f.read(16)
            if head != SQLITE_MAGIC:
                kind = _text_kind(path)
                if kind == "jsonl":
                    raise NotALog(f"{path} is a file of JSON lines, not the table's SQLite log: "
                                  "replay it with `euchre-table referee`, or give the table a "
                                  "new log file")
                raise LogDamaged(f"{path}: not an SQLite file (damaged header or other data)",
                                 path)
        if size:
            _check_readable(path)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise LogError(f"{path}: SQLite would not use WAL mode (got {mode!r}); "
                               "put the log on a local file system")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            if _is_damage(exc):
                raise LogDamaged(f"{path}: {exc}", path) from None
            raise LogError(f"Cannot open the event log {path}: {exc}. Check that it is on a "
                           "writable, local file system") from None

    def append(self, event, at: float) -> Record:
        """Append one event durably and return its record (with its ``seq``).

        ``event`` is a dict (stored as JSON; any ``seq``/``at`` in it are replaced by the
        log's own) or the text of a line exactly as received, even when it is not JSON,
        so that the record keeps what happened."""
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
            raise LogError(f"'at' must be the time in seconds (a number), not {at!r}")
        if isinstance(event, dict):
            try:
                body = json.dumps({k: v for k, v in event.items() if k not in ("seq", "at")},
                                  ensure_ascii=False, sort_keys=True, default=str)
            except (ValueError, TypeError, RecursionError):
                body = repr(event)[:MAX_EVENT_CHARS + 1]
        elif isinstance(event, (bytes, bytearray)):
            body = bytes(event).decode("utf-8", errors="replace")
        elif isinstance(event, str):
            body = event
        else:
            body = repr(event)
        body = body.replace("\x00", "\\u0000")  # SQLite text stops at NUL in some tools
        try:
            cur = self._db.execute("INSERT INTO events (at, body) VALUES (?, ?)",
                                   (float(at), body))
        except sqlite3.DatabaseError as exc:
            raise LogError(f"Cannot append to the event log {self.path}: {exc}") from None
        return Record(cur.lastrowid, float(at), body)

    def _insert(self, rec: Record) -> None:
        """Write a record with its own seq and time (recovery only)."""
        self._db.execute("INSERT INTO events (seq, at, body) VALUES (?, ?, ?)",
                         (rec.seq, rec.at, rec.body))

    def records(self, from_seq: int = 1) -> Iterator[Record]:
        """The events from ``from_seq`` on, in order (to replay or to publish)."""
        yield from _records(self._db, self.path, from_seq)

    @property
    def last_seq(self) -> int:
        """The sequence number of the last durable event (0 when empty)."""
        return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]

    def _close_db(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        self._close_db()
        if self._own_lock:
            self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _records(db, path: str, from_seq: int) -> Iterator[Record]:
    n = 0
    try:
        for seq, at, body in db.execute(
                "SELECT seq, at, body FROM events WHERE seq >= ? ORDER BY seq", (from_seq,)):
            n += 1
            yield Record(seq, at, body if isinstance(body, str) else str(body))
    except sqlite3.DatabaseError as exc:
        raise LogDamaged(f"{path}: {exc} (after {n} events)", path, n) from None


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("malformed", "not a database", "corrupt", "disk image"))


def _check_readable(path: str, name: Optional[str] = None) -> None:
    """Check an existing log before it is opened for writing, through a read-only
    connection, so that neither a damaged log nor another program's database is changed
    (not even by SQLite's own check-point of the WAL when a writer closes): it is ours,
    SQLite's quick check passes, and every record reads. ``name`` is the path the
    messages give (the log's own when a copy is checked)."""
    of_copy = name is not None
    name = name or path
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    n = 0
    try:
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.DatabaseError as exc:
        raise LogError(f"Cannot open the event log {name}: {exc}") from None
    path = name
    try:
        _check_ours(db, path)
        problem = db.execute("PRAGMA quick_check").fetchone()[0]
        if problem != "ok":
            raise LogDamaged(f"{path}: {problem}", path)
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone():
            for _ in db.execute("SELECT seq, at, body FROM events"):
                n += 1
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_READONLY_ROLLBACK" and not of_copy:
            db.close()
            _check_copy(path)
            return
        if _is_damage(exc):
            raise LogDamaged(f"{path}: {exc} (after {n} events)", path, n) from None
        raise LogError(f"Cannot open the event log {path}: {exc}") from None
    finally:
        db.close()


def _check_copy(path: str) -> None:
    """Check a log left with a hot rollback journal (a power cut while the log was being
    created, before it switched to WAL): a read-only connection may not roll it back, so
    a copy of the file and its journal is rolled back and checked instead, and the log
    itself is rolled back by SQLite when the table opens it for writing, as on any open."""
    if not os.path.exists(path + "-journal"):
        raise LogError(f"Cannot open the event log {path}: SQLite asks to roll back a "
                       "journal that is not there; restore the log's -journal file")
    with tempfile.TemporaryDirectory(prefix="euchre-log-check-") as tmp:
        copy = os.path.join(tmp, "log.sqlite")
        shutil.copyfile(path, copy)
        shutil.copyfile(path + "-journal", copy + "-journal")
        try:
            db = sqlite3.connect(copy)
            try:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()   # rolls back
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            if _is_damage(exc):
                raise LogDamaged(f"{path}: {exc}", path) from None
            raise LogError(f"Cannot open the event log {path}: {exc}") from None
        _check_readable(copy, name=path)


def _check_ours(db, path: str) -> None:
    """Refuse another program's SQLite database before anything is written to it."""
    try:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        if not tables:
            return
        cols = [r[1] for r in db.execute("PRAGMA table_info(events)")]
    except sqlite3.DatabaseError as exc:
        if _is_damage(exc):
            raise LogDamaged(f"{path}: {exc}", path) from None
        raise
    if tables != ["events"] or cols != _COLUMNS:
        raise NotALog(f"{path} is an SQLite database but not a euchre-table log (it holds "
                      f"{', '.join(tables[:5])}{' …' if len(tables) > 5 else ''}). Give the "
                      "table its own log file")


# ---------------------------------------------------------------------- readers
class LogReader:
    """A table log opened read-only: replaying it never changes it, whatever it is.

    On read-only media SQLite cannot make its shared-memory file, so the log is opened
    ``immutable``; if such a log still has writes in its ``-wal`` file (it was copied
    from a table that was running), the two files are first copied to a temporary
    folder, so that no acknowledged event is missed."""

    def __init__(self, path: str):
        self.path = str(path)
        self._tmp = None
        kind = log_kind(self.path)
        if kind != "sqlite":
            raise NotALog(f"{self.path} is not a table log (SQLite): it is JSON lines text; "
                          "read it with read_events")
        self._db = self._connect()
        try:
            _check_ours(self._db, self.path)
            if not [r for r in self._db.execute(
                    "SELECT name FROM sqlite_master WHERE name = 'events'")]:
                self.empty = True
            else:
                self.empty = False
        except sqlite3.DatabaseError as exc:
            self.close()
            raise LogDamaged(f"{self.path}: {exc}", self.path) from None
        except LogError:
            self.close()
            raise

    def _connect(self):
        path = os.path.abspath(self.path)
        uri = "file:" + urllib.parse.quote(path)
        if not os.path.exists(path + "-wal"):
            # No write-ahead file: no writer has the log open and every event is in the
            # file itself. Read it as immutable, so that not even SQLite's shared-memory
            # file is made beside it.
            return self._immutable(uri, None)
        try:
            db = sqlite3.connect(uri + "?mode=ro", uri=True)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.DatabaseError as exc:
            if _is_damage(exc):
                raise LogDamaged(f"{self.path}: {exc}", self.path) from None
            problem = exc
        wal = path + "-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            # Read-only media and unfinished writes in the WAL: read a copy of both.
            self._tmp = tempfile.TemporaryDirectory(prefix="euchre-log-")
            copy = os.path.join(self._tmp.name, "log.sqlite")
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, copy + "-wal")
            uri = "file:" + urllib.parse.quote(copy)
            db = sqlite3.connect(uri + "?mode=ro", uri=True)
        else:
            return self._immutable(uri, problem)
        return self._readable(db, problem)

    def _immutable(self, uri: str, problem):
        return self._readable(sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True), problem)

    def _readable(self, db, problem):
        """``db`` once SQLite has read its schema; closed and LogDamaged (or LogError)
        when it cannot."""
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            db.close()
            if _is_damage(exc):
                raise LogDamaged(f"{self.path}: {exc}", self.path) from None
            raise LogError(f"Cannot read {self.path}: {problem or exc}") from None
        return db

    def records(self, from_seq: int = 1) -> Iterator[Record]:
        if self.empty:
            return iter(())
        return _records(self._db, self.path, from_seq)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _text_kind(path: str) -> str:
    """"jsonl" when the file's start reads as lines of text, else "binary".

    A file of events may hold a damaged line or two (they are refused one by one); a
    file where more than one character in twenty is not text is not a file of events."""
    with open(path, "rb") as f:
        head = f.read(65536)
    text = head.decode("utf-8", errors="replace")
    bad = sum(1 for ch in text if ch == "\ufffd" or (ch < " " and ch not in "\t\r\n"))
    return "binary" if bad * 20 > len(text) else "jsonl"


def log_kind(path: str) -> str:
    """``"sqlite"`` for a table log, ``"jsonl"`` for a text file of events; raises
    :class:`LogError` (with what to do) for a missing file, a folder, an empty file or
    a binary file that is neither.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "e.jsonl")
    >>> _ = open(p, "w").write('{"type": "collect"}\\n')
    >>> log_kind(p)
    'jsonl'
    """
    p = Path(path)
    if not p.exists():
        raise LogError(f"{path}: no such file. Give the table's log (table-log.sqlite in its "
                       "state folder) or a file of JSON lines")
    if p.is_dir():
        raise LogError(f"{path} is a folder: give the log file in it (e.g. "
                       f"{p / 'table-log.sqlite'})")
    try:
        size = p.stat().st_size
        with open(p, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise LogError(f"Cannot read {path}: {exc.strerror}") from None
    if head == SQLITE_MAGIC:
        return "sqlite"
    if size == 0:
        raise NotALog(f"{path} is empty: it holds no events (a table's log is never empty "
                      "once the table has started)")
    if _text_kind(str(p)) == "binary":
        raise NotALog(f"{path} is not a euchre-table log: it is neither the table's SQLite "
                      "log nor text (JSON lines). If it is a damaged log, recover it with "
                      f"`euchre-table recover-log {path} --out NEW.sqlite`")
    return "jsonl"


def is_log_file(path: str) -> bool:
    """True when ``path`` is an SQLite file (an event log) rather than JSON lines."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def read_events(path: str, from_seq: int = 1) -> Iterator[tuple]:
    """``(seq, event)`` from a table log (read-only) or from a JSON-lines file.

    In JSON lines a line's own ``seq`` is used when it has one, else its line number;
    blank lines are skipped; malformed lines (of any length or depth) come through as
    text for the referee to refuse. Raises :class:`LogError` for a file that is neither
    (empty, binary, a folder, another program's database) and :class:`LogDamaged` for a
    damaged log, when reading starts; nothing is ever written. Sealed cards of finished
    hands come back opened from their reveal (``controller.secrecy.open_events``); those
    of the hand in progress stay sealed."""
    from controller.secrecy import open_events
    pairs = open_events(_read_raw(path))
    return ((seq, ev) for seq, ev in pairs if seq >= from_seq)


def _read_raw(path: str, from_seq: int = 1) -> Iterator[tuple]:
    """The pairs as they are in the file (see :func:`read_events`)."""
    if log_kind(path) == "sqlite":
        with LogReader(path) as reader:
            for rec in reader.records(from_seq):
                yield rec.seq, rec.event()
        return
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        n = 0
        while True:
            # Read a bounded piece: a line of gigabytes must not fill the memory.
            line = f.readline(MAX_EVENT_CHARS + 2)
            if not line:
                return
            n += 1
            if not line.endswith("\n") and len(line) > MAX_EVENT_CHARS:
                while True:         # skip the rest of the overlong line
                    more = f.readline(1 << 16)
                    if not more or more.endswith("\n"):
                        break
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            seq, obj = n, None
            if len(line) <= MAX_EVENT_CHARS:
                try:
                    obj = json.loads(line)
                except (ValueError, RecursionError):
                    obj = None
                if isinstance(obj, dict) and type(obj.get("seq")) is int:
                    seq = obj["seq"]
            if seq >= from_seq:
                yield seq, (obj if isinstance(obj, dict) else line)


# ---------------------------------------------------------------------- damaged logs
@dataclass
class Recovery:
    """What :func:`recover_log` did: the damaged file kept, the events saved into the new
    log, the last of them, and how (``"sqlite3 .recover"`` or ``"read up to the damage"``)."""

    damaged: str
    events: int
    last_seq: int
    method: str
    problem: str

    def message(self) -> str:
        """One line for the screen, the speaker and the journal."""
        return (f"The table's log was damaged. {self.events} events were recovered, up to "
                f"#{self.last_seq}; the damaged file is kept as {Path(self.damaged).name}")


def _aside_name(path: str) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = f"{path}.damaged-{stamp}"
    name, n = base, 1
    while any(os.path.exists(name + s) for s in ("", "-wal", "-shm")):
        n += 1
        name = f"{base}-{n}"
    return name


def salvage(path: str) -> tuple:
    """The events that can still be read from a damaged log, as ``(records, method)``;
    the damaged file is only read. SQLite reads the log up to the first damaged page;
    :mod:`controller.log_salvage` reads every page that is whole, before the damage and
    after it, and the two are merged (each event is kept once, by its seq)."""
    from controller.log_salvage import salvage_rows
    found: dict = {}
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            for seq, at, body in db.execute("SELECT seq, at, body FROM events ORDER BY seq"):
                if type(seq) is int and isinstance(at, (int, float)) and isinstance(body, str):
                    found[seq] = (float(at), body)
        finally:
            db.close()
    except sqlite3.DatabaseError:
        pass
    sqlite_read = len(found)
    for seq, at, body in salvage_rows(path):
        found.setdefault(seq, (at, body))
    method = "SQLite" if len(found) == sqlite_read else "SQLite and the page reader"
    return [Record(s, *found[s]) for s in sorted(found)], method


def _damage_of(path: str) -> str:
    """What is wrong with a damaged log, in a few words."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
        if head != SQLITE_MAGIC:
            return "the file's header is damaged (it does not start as an SQLite file)"
        _check_readable(path)
    except (LogError, OSError) as exc:
        return str(exc).replace(f"{path}: ", "")
    return ""


def recover_log(path: str, lock: Optional[WriterLock] = None, out: Optional[str] = None) -> Recovery:
    """Recover a damaged log: what can be read goes into a new log (at ``path``, or at
    ``out``), with each event's own seq and time; the damaged file is kept beside it
    (``path.damaged-<time>``, with its ``-wal``) when the new log takes its place. The
    damaged file is never overwritten or deleted."""
    try:
        records, method = salvage(path)
    except OSError as exc:
        raise LogError(f"Cannot read the damaged log {path}: {exc.strerror}") from None
    problem = _damage_of(path)
    if out is None:
        damaged = _aside_name(path)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.rename(path + suffix, damaged + suffix)
        target = path
    else:
        damaged, target = path, out
        if os.path.exists(out):
            raise LogError(f"{out} exists: give a new file for the recovered log")
    log = EventLog(target, lock=lock if out is None else None)
    try:
        log._db.execute("BEGIN")
        for rec in records:
            log._insert(rec)
        log._db.execute("COMMIT")
    finally:
        log.close()
    return Recovery(damaged=damaged, events=len(records),
                    last_seq=records[-1].seq if records else 0, method=method, problem=problem)


def open_log(path: str) -> tuple:
    """The table's log for writing, as ``(EventLog, Recovery or None)``.

    A damaged log is recovered first (:func:`recover_log`): the table resumes from what
    was recovered and the caller says so. Raises :class:`LogBusy` when another process
    writes to it, :class:`NotALog` for a file that is not a table log (left untouched)."""
    lock = WriterLock(path)
    try:
        recovery = None
        try:
            log = EventLog(path, lock=lock)
        except LogDamaged:
            recovery = recover_log(path, lock=lock)
            log = EventLog(path, lock=lock)
        log._own_lock = True          # the log now releases the lock when it closes
        return log, recovery
    except BaseException:
        lock.release()
        raise


class RefereedLog:
    """The log and the referee wired together: append first, then fold; on start, replay.

    >>> import tempfile, os
    >>> table = RefereedLog(os.path.join(tempfile.mkdtemp(), "t.sqlite"), Rules.preset("standard"))
    >>> table.record({"type": "hand", "dealer": "S"}, at=0.0).ok
    True
    >>> table.close()
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


__all__ = ["EventLog", "Record", "RefereedLog", "LogError", "LogBusy", "LogDamaged", "NotALog",
           "LogReader", "Recovery", "WriterLock", "open_log", "recover_log", "salvage",
           "read_events", "is_log_file", "log_kind"]
