"""The log is sacred: replays never write, one writer at a time, damaged logs recovered and kept."""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import check_config
from controller.log import (EventLog, LogBusy, LogDamaged, NotALog, open_log, read_events,
                            recover_log)
from engine import Rules
from engine.records import events_of_game, play_random_game
from engine.referee import Referee

ROOT = Path(__file__).resolve().parents[2]
STANDARD = Rules.preset("standard")


def game_events(seed=3):
    return events_of_game(play_random_game(STANDARD, seed=seed), known_seats="W")


def write_log(path, events):
    with EventLog(str(path)) as log:
        for i, e in enumerate(events):
            log.append(e, at=1000.0 + i)


def digest(folder: Path) -> dict:
    """Every file of a folder with its content's hash: what "nothing changed" means."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ 1. replay never writes
def test_replaying_another_programs_database_changes_nothing(tmp_path, capsys):
    db = sqlite3.connect(tmp_path / "photos.db")
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO photos (name) VALUES ('beach')")
    db.commit()
    db.close()
    before = digest(tmp_path)
    for argv in (["referee", str(tmp_path / "photos.db")],
                 ["stats", "--log", str(tmp_path / "photos.db")]):
        code, out, err = cli(argv, capsys)
        assert code == 2 and "not a euchre-table log" in err and "Traceback" not in err
    assert digest(tmp_path) == before          # no events table, no WAL, no new file
    db = sqlite3.connect(f"file:{tmp_path / 'photos.db'}?mode=ro", uri=True)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_replaying_a_log_leaves_its_folder_as_it_was(tmp_path, capsys):
    write_log(tmp_path / "t.sqlite", game_events())
    before = digest(tmp_path)
    assert cli(["referee", str(tmp_path / "t.sqlite"), "--json"], capsys)[0] == 0
    assert cli(["stats", "--log", str(tmp_path / "t.sqlite")], capsys)[0] == 0
    assert digest(tmp_path) == before


def run_read_only(folder: Path, argv: list, env: dict):
    """Run the command line with ``folder`` on read-only media: as root, a read-only bind
    mount of it in a private mount namespace (gone with the process); otherwise the
    folder's permissions, which bind an ordinary user."""
    cmd = [sys.executable, "-m", "controller.cli", *argv]
    if os.geteuid() == 0:
        if not shutil.which("unshare"):
            pytest.skip("needs unshare(1) to mount a folder read-only")
        script = ('mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && '
                  'exec "$@"')
        probe = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), "true"],
                               capture_output=True)
        if probe.returncode != 0:
            pytest.skip("cannot mount a folder read-only here (no mount namespace)")
        cmd = ["unshare", "-m", "sh", "-c", script, "sh", str(folder), *cmd]
    else:
        for p in [folder, *folder.iterdir()]:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        return subprocess.run(cmd, cwd="/", env=env, capture_output=True, text=True,
                              timeout=120)
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("unfinished_wal", [False, True])
def test_a_log_on_read_only_media_replays(tmp_path, unfinished_wal):
    media = tmp_path / "media"
    media.mkdir()
    events = game_events()
    if unfinished_wal:
        # Copied from a table that was running: the last events are still in the -wal.
        src = tmp_path / "live"
        src.mkdir()
        log = EventLog(str(src / "t.sqlite"))
        log._db.execute("PRAGMA wal_autocheckpoint=0")
        for i, e in enumerate(events):
            log.append(e, at=float(i))
        for suffix in ("", "-wal"):
            (media / ("t.sqlite" + suffix)).write_bytes((src / ("t.sqlite" + suffix)).read_bytes())
        log.close()
        assert (media / "t.sqlite-wal").stat().st_size > 0
    else:
        write_log(media / "t.sqlite", events)
    before = digest(media)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv in (["stats", "--log", str(media / "t.sqlite"), "--json"],
                 ["referee", str(media / "t.sqlite"), "--json"]):
        r = run_read_only(media, argv, env)
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
    final = json.loads(r.stdout.splitlines()[-1])
    assert final["events"] == len(events) and final["winner"] is not None
    assert digest(media) == before


# ------------------------------------------------------------------ 2. one writer
HOLDER = r"""
import sys, time
from controller.log import EventLog
log = EventLog(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


def test_a_second_writer_is_refused_naming_the_holder_until_it_dies(tmp_path):
    path = str(tmp_path / "table-log.sqlite")
    child = subprocess.Popen([sys.executable, "-c", HOLDER, path], cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)),
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "holding"
        with pytest.raises(LogBusy, match=f"process {child.pid}"):
            EventLog(path)
        with pytest.raises(LogBusy):
            open_log(path)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # The lock died with the process: no stale lock to clean up.
    log, recovery = open_log(path)
    assert recovery is None
    log.close()


def test_a_second_run_on_one_state_folder_refuses_at_start(tmp_path):
    (tmp_path / "config.toml").write_text(
        f'[table]\nstate_dir = "{tmp_path}"\nfirst_dealer = "S"\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    first = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                              str(tmp_path / "config.toml")], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        lock = tmp_path / "table-log.sqlite.lock"
        while time.time() < deadline and not (lock.exists() and lock.read_text().strip()):
            time.sleep(0.1)
        second = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config",
                                 str(tmp_path / "config.toml")], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert f"process {first.pid}" in second.stderr and "Traceback" not in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)


# ------------------------------------------------------------------ 3. damaged logs
def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "page":
        page = 4096 * 3
        data[page:page + 4096] = random.Random(1).randbytes(4096)
    elif how == "truncated":
        del data[len(data) // 2:]
    elif how == "header":
        data[:100] = bytes(100)
    path.write_bytes(bytes(data))


def _service_config(state: Path):
    return check_config({"table": {"state_dir": str(state), "first_dealer": "S"},
                         "seats": {"W": {"kind": "computer", "level": "medium"}}})


@pytest.mark.parametrize("how", ["page", "truncated", "header"])
def test_the_service_recovers_a_damaged_log_and_keeps_the_damaged_file(tmp_path, how):
    from controller.service import TableService
    from tests.controller.test_service import Recorder
    events = game_events()[:250]     # a game in progress
    log_path = tmp_path / "table-log.sqlite"
    write_log(log_path, events)
    _damage(log_path, how)
    damaged_bytes = log_path.read_bytes()
    rec = Recorder()
    svc = TableService(_service_config(tmp_path), screen=rec, speaker=rec)
    try:
        r = svc.recovery
        assert r is not None and r.events > 0
        kept = Path(r.damaged)
        assert kept.parent == tmp_path and kept.name.startswith("table-log.sqlite.damaged-")
        assert kept.read_bytes() == damaged_bytes                     # kept, untouched
        # The new log holds what was recovered, with the events' own seq and time...
        got = list(svc.log.records())
        assert len(got) == r.events and got[-1].seq == r.last_seq
        for record in got:
            assert record.at == 1000.0 + record.seq - 1
        # ... and the table resumed from it, and said so on the screen and the speaker.
        ref = Referee(STANDARD, known_seats=["W"])
        for record in got:
            ref.feed(record.event(), seq=record.seq)
        assert svc.ctl.referee.state == ref.state
        assert any("log was damaged" in s for s in rec.said)
        assert "log was damaged" in rec.shown[-1].message
        assert svc.submit({"type": "collect"}).seq == r.last_seq + 1   # it goes on
    finally:
        svc.close()
    if how == "page":
        assert r.events > 84     # the page reader got events after the damaged page too


def test_a_log_damaged_beyond_reading_starts_afresh_and_keeps_the_file(tmp_path):
    from controller.service import TableService
    log_path = tmp_path / "table-log.sqlite"
    log_path.write_bytes(random.Random(5).randbytes(20000))
    svc = TableService(_service_config(tmp_path))
    try:
        assert svc.recovery.events == 0 and svc.ctl.referee.state["seq"] == 0
        assert Path(svc.recovery.damaged).read_bytes() == random.Random(5).randbytes(20000)
    finally:
        svc.close()


def test_recover_log_writes_a_new_log_and_never_overwrites(tmp_path, capsys):
    log_path = tmp_path / "t.sqlite"
    write_log(log_path, game_events())
    _damage(log_path, "page")
    before = digest(tmp_path)
    code, out, err = cli(["recover-log", str(log_path), "--out", str(tmp_path / "new.sqlite")],
                         capsys)
    assert code == 0 and "events saved" in out
    assert {k: v for k, v in digest(tmp_path).items() if k in before} == before
    assert cli(["referee", str(tmp_path / "new.sqlite")], capsys)[0] == 0
    code, out, err = cli(["recover-log", str(log_path), "--out", str(tmp_path / "new.sqlite")],
                         capsys)
    assert code == 2 and "exists" in err


@pytest.mark.parametrize("content,words", [
    (b"", "is empty"),
    (random.Random(2).randbytes(30000), "not a euchre-table log"),
    ("header", "not a euchre-table log"),
])
def test_a_file_that_is_not_a_log_is_never_read_as_json_lines(tmp_path, capsys, content, words):
    path = tmp_path / "table-log.sqlite"
    if content == "header":
        write_log(path, game_events())
        _damage(path, "header")
    else:
        path.write_bytes(content)
    for argv in (["referee", str(path)], ["stats", "--log", str(path)]):
        code, out, err = cli(argv, capsys)
        assert code == 2 and words in err, err
        assert "Not JSON" not in out and "finished game" not in out


def test_a_damaged_log_is_named_with_what_to_do(tmp_path, capsys):
    path = tmp_path / "t.sqlite"
    write_log(path, game_events())
    _damage(path, "truncated")
    before = digest(tmp_path)
    for argv in (["referee", str(path)], ["stats", "--log", str(path)]):
        code, out, err = cli(argv, capsys)
        assert code == 2 and "damaged" in err and "recover-log" in err
        assert len(err.strip().splitlines()) == 1
    assert digest(tmp_path) == before
    with pytest.raises(LogDamaged):
        list(read_events(str(path)))


DEEP = "[" * 100000 + "]" * 100000


@pytest.mark.parametrize("bad", [DEEP, "[" * 900 + "]" * 900,
                                 '{"type": "play", "seat": "W", "card": ' + "[" * 900 + "]" * 900 + "}",
                                 '{"type": "play", "seat": "W", "card": "' + "J" * 5000 + '"}',
                                 "x" * 3_000_000])
def test_a_malformed_record_of_any_size_or_depth_is_refused_like_any_bad_line(tmp_path, capsys,
                                                                            bad):
    from controller.service import TableService
    events = game_events()[:20]
    jl = tmp_path / "events.jsonl"
    jl.write_text("\n".join([json.dumps(e) for e in events[:10]] + [bad]
                            + [json.dumps(e) for e in events[10:]]) + "\n")
    code, out, err = cli(["referee", str(jl), "--json"], capsys)
    assert code == 0, err
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert [v["ok"] for v in verdicts[:-1]].count(False) == 1
    assert not verdicts[10]["ok"] and len(verdicts[10]["reason"]) < 400
    # The same record in the table's own log: the service starts, stats read it.
    state = tmp_path / "state"
    state.mkdir()
    log_path = state / "table-log.sqlite"
    write_log(log_path, events[:10] + [bad] + events[10:])
    svc = TableService(_service_config(state))
    assert svc.ctl.referee.state["seq"] == 21
    svc.close()
    assert cli(["stats", "--log", str(log_path)], capsys)[0] == 0
    assert cli(["referee", str(log_path)], capsys)[0] == 0


def test_recover_log_reads_past_the_damage(tmp_path):
    path = tmp_path / "t.sqlite"
    events = game_events()
    write_log(path, events)
    _damage(path, "page")
    r = recover_log(str(path), out=str(tmp_path / "new.sqlite"))
    assert r.last_seq == len(events) and 84 < r.events < len(events)
    with pytest.raises(NotALog):
        EventLog(str(tmp_path / "e.jsonl")) if (tmp_path / "e.jsonl").write_text(
            '{"type": "collect"}\n') else None
