"""Kill test of the table log: a writer process killed with SIGKILL at random instants, then restarted.

Each writer process is the table's loop in small: it opens the log, folds it into a fresh
referee (the restart), then records a scripted game's events one by one (append durably,
fold, then acknowledge the seq on a pipe). The parent kills it at a random instant, restarts
the table from the log as the service would, and checks that (1) every acknowledged event is
in the log, (2) the log holds exactly the script's first events, nothing torn or reordered,
(3) the restarted state equals the uninterrupted run's state at the same seq. Rerun:
``.venv/bin/python -m bench.referee_kill --kills 1000``; prints the figures and medians.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import tempfile
import time

from controller.log import EventLog, RefereedLog
from engine import Rules
from engine.records import events_of_game, play_random_game
from engine.referee import Referee


def script(seed: int = 1, rules: Rules = None) -> list:
    """A clean game's events with a few malformed lines and a correction mixed in."""
    rules = rules or Rules.preset("standard")
    events = events_of_game(play_random_game(rules, seed=seed), known_seats="E")
    rng = random.Random(seed)
    for junk in ("not json", '{"type": "shuffle"}', '{"type": "play", "seat": "Q"}'):
        events.insert(rng.randrange(1, len(events)), junk)
    i = rng.randrange(10, len(events))
    events[i:i] = [{"type": "score", "NS": 1, "EW": 2}, {"type": "undo"}]
    return events


def reference_states(events, rules, known) -> list:
    """State (as canonical JSON) after each event of an uninterrupted run; index = seq."""
    ref = Referee(rules, known_seats=known)
    out = [json.dumps(ref.state, sort_keys=True)]
    for seq, e in enumerate(events, 1):
        ref.feed(e, seq=seq)
        out.append(json.dumps(ref.state, sort_keys=True))
    return out


def _writer(path, events, rules, known, ack_fd):
    try:
        table = RefereedLog(path, rules, known_seats=known)
        for i in range(table.log.last_seq, len(events)):
            table.record(events[i], at=1_000_000.0 + i)
            os.write(ack_fd, b"%d\n" % (i + 1))
        table.close()
    finally:
        os._exit(0)


def run_kills(kills: int, seed: int = 1, workdir: str = None, max_delay: float = 0.03,
              rules: Rules = None) -> dict:
    """Kill and restart the writer ``kills`` times; raise AssertionError on any loss or
    difference; return the figures."""
    rules = rules or Rules.preset("standard")
    known = ("E",)
    events = script(seed, rules)
    bodies = [e if isinstance(e, str) else json.dumps(e, ensure_ascii=False, sort_keys=True)
              for e in events]
    states = reference_states(events, rules, known)
    rng = random.Random(seed)
    workdir = workdir or tempfile.mkdtemp(prefix="killtest-")
    run, path = 0, None
    figures = {"kills": 0, "runs_completed": 0, "events_acknowledged": 0,
               "unacknowledged_but_kept": 0, "restart_ms": [], "events_per_life": []}

    def fresh():
        nonlocal run, path
        run += 1
        path = os.path.join(workdir, f"run{run}.sqlite")

    fresh()
    before = 0
    while figures["kills"] < kills:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _writer(path, events, rules, known, w)
        os.close(w)
        time.sleep(rng.uniform(0, max_delay))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        acked = 0
        with os.fdopen(r, "rb") as f:
            for line in f.read().splitlines():
                acked = int(line)
        killed = os.WIFSIGNALED(status)
        figures["kills"] += killed
        t0 = time.perf_counter()
        table = RefereedLog(path, rules, known_seats=known)   # the restart
        figures["restart_ms"].append((time.perf_counter() - t0) * 1000)
        last = table.log.last_seq
        logged = [rec.body for rec in table.log.records()]
        state = json.dumps(table.referee.state, sort_keys=True)
        table.close()
        assert last >= acked, f"acknowledged event {acked} missing: the log ends at {last}"
        assert logged == bodies[:last], "the log is not exactly the script's first events"
        assert state == states[last], f"state after restart differs at seq {last}"
        figures["events_acknowledged"] += max(0, acked - before)
        figures["unacknowledged_but_kept"] += last > acked
        figures["events_per_life"].append(last)
        before = last
        if last == len(events):
            before = 0
            figures["runs_completed"] += 1
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
            fresh()
    return figures


def append_latency(n: int = 500) -> list:
    """Milliseconds per durable append (WAL, synchronous=FULL) on this disk."""
    d = tempfile.mkdtemp(prefix="logbench-")
    log = EventLog(os.path.join(d, "t.sqlite"))
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        log.append({"type": "play", "seat": "W", "card": "JH"}, at=float(i))
        out.append((time.perf_counter() - t0) * 1000)
    log.close()
    return out


def fold_speed(games: int = 20) -> list:
    """Microseconds per event for the referee to fold clean games (E's hand read)."""
    rules = Rules.preset("standard")
    out = []
    for seed in range(games):
        events = events_of_game(play_random_game(rules, seed=seed), known_seats="E")
        ref = Referee(rules, known_seats="E")
        t0 = time.perf_counter()
        for e in events:
            ref.feed(e)
        out.append((time.perf_counter() - t0) * 1e6 / len(events))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-delay", type=float, default=0.1, help="seconds; kill within this")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    f = run_kills(a.kills, seed=a.seed, max_delay=a.max_delay)
    took = time.perf_counter() - t0
    lat = append_latency()
    print(f"kills: {f['kills']}, script runs completed: {f['runs_completed']}, "
          f"events acknowledged (all found after restarts): {f['events_acknowledged']}, "
          f"kills with one durable but unacknowledged event: {f['unacknowledged_but_kept']}, "
          f"state mismatches: 0 ({took:.1f} s)")
    print(f"restart (open + replay) median {statistics.median(f['restart_ms']):.2f} ms, "
          f"max {max(f['restart_ms']):.2f} ms; log length at restart median "
          f"{statistics.median(f['events_per_life']):.0f} events")
    fs = fold_speed()
    print(f"referee fold median {statistics.median(fs):.0f} µs per event (20 games)")
    print(f"durable append median {statistics.median(lat):.3f} ms, "
          f"p95 {sorted(lat)[int(len(lat) * 0.95)]:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
