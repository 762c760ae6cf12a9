"""The durable event log: appends, reading from any seq, malformed lines kept, restarts, SIGKILL."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest

from bench.referee_kill import run_kills, script
from controller.log import EventLog, LogDamaged, LogError, RefereedLog, is_log_file, read_events
from engine import Rules
from engine.referee import Referee

STANDARD = Rules.preset("standard")


def test_append_assigns_seq_and_keeps_time_and_text(tmp_path):
    path = str(tmp_path / "t.sqlite")
    with EventLog(path) as log:
        r1 = log.append({"type": "hand", "dealer": "S", "seq": 99, "at": -1}, at=10.5)
        r2 = log.append("{broken", at=11.0)
        r3 = log.append(b"\xff\xfe", at=12.0)
        assert (r1.seq, r2.seq, r3.seq) == (1, 2, 3)
        assert r1.to_dict() == {"type": "hand", "dealer": "S", "seq": 1, "at": 10.5}
        assert r2.to_dict() == {"seq": 2, "at": 11.0, "raw": "{broken"}
        assert [r.seq for r in log.records(from_seq=2)] == [2, 3]
        assert log.last_seq == 3
    with EventLog(path) as log:   # reopened: all there, in order
        assert [r.body for r in log.records()][1] == "{broken"
        assert log.append({"type": "collect"}, at=13.0).seq == 4
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert is_log_file(path) and not is_log_file(__file__)


def test_bad_time_and_bad_file_get_clear_errors(tmp_path):
    with EventLog(str(tmp_path / "t.sqlite")) as log:
        with pytest.raises(LogError, match="'at' must be the time in seconds"):
            log.append({"type": "collect"}, at="noon")
    bad = tmp_path / "notalog.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"garbage" * 100)
    with pytest.raises(LogDamaged, match="notalog.sqlite"):
        EventLog(str(bad))
    assert bad.read_bytes() == b"SQLite format 3\x00" + b"garbage" * 100   # untouched


def test_a_restart_folds_the_log_to_the_same_state(tmp_path):
    path = str(tmp_path / "t.sqlite")
    events = script(seed=2)
    table = RefereedLog(path, STANDARD, known_seats="E")
    verdicts = [table.record(e, at=float(i)) for i, e in enumerate(events)]
    state = table.referee.state
    table.close()
    assert [v.seq for v in verdicts] == list(range(1, len(events) + 1))
    assert sum(not v.ok for v in verdicts) >= 3          # the junk lines are refused ...
    again = RefereedLog(path, STANDARD, known_seats="E")
    assert again.log.last_seq == len(events)              # ... and kept in the log
    assert again.referee.state == state
    again.close()


def test_read_events_from_log_and_from_json_lines(tmp_path):
    path = str(tmp_path / "t.sqlite")
    with EventLog(path) as log:
        for i, e in enumerate(({"type": "hand", "dealer": "S"}, "junk", {"type": "collect"})):
            log.append(e, at=float(i))
    assert list(read_events(path, from_seq=2)) == [(2, "junk"), (3, {"type": "collect"})]
    jl = tmp_path / "e.jsonl"
    jl.write_text('{"type": "hand", "dealer": "S"}\n\nnot json\n{"seq": 9, "type": "collect"}\n')
    assert list(read_events(str(jl))) == [(1, {"type": "hand", "dealer": "S"}), (3, "not json"),
                                          (9, {"seq": 9, "type": "collect"})]


def test_published_records_replay_to_the_same_state(tmp_path):
    path = str(tmp_path / "t.sqlite")
    events = script(seed=4)
    table = RefereedLog(path, STANDARD, known_seats="E")
    for i, e in enumerate(events):
        table.record(e, at=float(i))
    lines = [r.to_line() for r in table.log.records()]
    ref = Referee(STANDARD, known_seats="E")
    for line in lines:                     # what a club server receives, replayed
        ref.feed(json.loads(line))
    assert ref.state == table.referee.state
    table.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_sigkill_at_200_random_instants_loses_no_acknowledged_event(tmp_path):
    figures = run_kills(200, seed=1, workdir=str(tmp_path), max_delay=0.05)
    assert figures["kills"] == 200
    # run_kills raises on any loss or difference; these show the kills hit real work:
    assert figures["events_acknowledged"] > 50          # appends acknowledged between kills
    assert max(figures["events_per_life"]) > 50         # the log grew across restarts


def _cut_mid_transaction(path, table: str, committed: int) -> None:
    """A process that writes ``committed`` rows in SQLite's rollback-journal mode (as a
    log is before it switches to WAL), then is cut in the middle of a large transaction:
    the file is left with a hot journal."""
    pid = os.fork()
    if pid == 0:
        try:
            db = sqlite3.connect(str(path), isolation_level=None)
            db.execute(f"CREATE TABLE {table} (seq INTEGER PRIMARY KEY, at REAL NOT NULL, body TEXT NOT NULL)")
            for i in range(committed):
                db.execute(f"INSERT INTO {table} (at, body) VALUES (?, ?)", (float(i), f'{{"n": {i}}}'))
            db.execute("PRAGMA cache_size=1")      # pages spill to the file mid-transaction
            db.execute("BEGIN")
            for _ in range(2000):
                db.execute(f"INSERT INTO {table} (at, body) VALUES (?, ?)", (0.0, "x" * 500))
        finally:
            os._exit(0)                            # no rollback, no close: a power cut
    os.waitpid(pid, 0)
    assert os.path.exists(str(path) + "-journal")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_log_cut_with_a_hot_rollback_journal_opens_with_its_committed_events(tmp_path):
    # A cut while the log was being created leaves a hot rollback journal, which a
    # read-only connection may not roll back: the check before opening refused the log
    # ("attempt to write a readonly database") and the table could not start.
    path = tmp_path / "log.sqlite"
    _cut_mid_transaction(path, "events", committed=5)
    log = EventLog(str(path))
    assert [r.seq for r in log.records()] == [1, 2, 3, 4, 5]
    assert log.append({"type": "after"}, at=9.0).seq == 6


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_another_programs_database_with_a_hot_journal_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "other.sqlite"
    _cut_mid_transaction(path, "orders", committed=3)
    before = (path.read_bytes(), (tmp_path / "other.sqlite-journal").read_bytes())
    with pytest.raises(LogError, match="not a euchre-table log"):
        EventLog(str(path))
    assert (path.read_bytes(), (tmp_path / "other.sqlite-journal").read_bytes()) == before
