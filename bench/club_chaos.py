"""Chaos benchmark of the club link: many tables publish their logs to the hall while the broker is SIGKILLed and table links drop.

Every table is an engine-only virtual table: a writer thread appends a random legal
night (hands of random legal play, a ``club_round`` record every few hands) to the
table's own durable log at a steady pace, and the table's real publisher
(``controller.club.ClubLink``) sends it to a real broker (Debian's mosquitto, or
nats-server's MQTT listener with JetStream) on loopback, through a per-table TCP proxy
that cuts links (clean drops) and blackholes them (silent drops). The real hall hub
(``hall.hub.Hub``) stores, acknowledges and asks for resends. Meanwhile the broker is
killed with SIGKILL and restarted.

Checks, after the last fault: every table's stored events equal its own log (0 lost,
nothing stored twice or altered), and the standings folded from the hall's store equal
an independent fold of the tables' logs; and how long after the last fault the hall had
everything. With ``--no-resend`` the same run must show losses (it proves the check can
fail).

    .venv/bin/python -m bench.club_chaos --tables 40 --events 20000 --kills 3 --outages 300
    .venv/bin/python -m bench.club_chaos --broker nats
"""
from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine import Rules
from engine.cards import SEATS

NIGHT = "chaos"


@dataclass
class ChaosConfig:
    tables: int = 40
    events: int = 20000          # at least this many, over all tables
    kills: int = 3               # broker SIGKILLs
    outages: int = 300           # table-link faults, half cuts, half blackholes
    duration: float = 60.0       # seconds the tables take to write their logs
    broker: str = "mosquitto"
    resend: bool = True
    hands_per_round: int = 4
    seed: int = 1
    keepalive: int = 2           # small, so that silent drops are noticed in seconds
    settle: float = 30.0         # how long to wait for catching up before calling it lost
    folder: str = ""


# The independent fold of the tables' logs (written apart from the hall's).
from controller.club_sim import fold_logs  # noqa: E402


def hall_fold(tables: dict, night_id: str = NIGHT) -> dict:
    """``{player: points}`` by the hall's own fold (the night's ``hall.standings``, the
    standard scoring preset) of ``tables``' records, with the hall events a hall would
    have written for the chaos night: every table keeps its four players, rounds of four
    hands, each round started and ended."""
    from controller.club_sim import points_of
    from hall.night import Night
    from hall.service import ClubNight
    rounds = max((r["round"] for recs in tables.values() for r in recs
                  if r.get("type") == "club_round"), default=1)
    numbers = sorted(tables)
    seating = {str(t): {s: f"P{t:02d}{s}" for s in SEATS} for t in numbers}
    players = [p for t in numbers for p in seating[str(t)].values()]
    night = Night.from_config({"id": night_id, "players": players, "rounds": rounds, "hands": 4,
                               "movement": "rotation", "scoring": "standard"})
    events = [{"seq": 1, "at": 0.0, "kind": "night", "night": night_id, "config": night.to_config()}]
    for r in range(1, rounds + 1):
        events.append({"seq": len(events) + 1, "at": 0.0, "kind": "round_start", "round": r,
                       "seating": seating, "sitting_out": []})
        events.append({"seq": len(events) + 1, "at": 0.0, "kind": "round_end", "round": r,
                       "by": "hands"})
    return points_of(ClubNight(night).fold(events, tables).to_dict())


# ---------------------------------------------------------------------- a virtual table
def table_script(number: int, events: int, rules, rng, hands_per_round: int = 4,
                 night: str = NIGHT) -> list:
    """A table's night: a ``club_round`` record, then hands of random legal play, again
    until at least ``events`` events. The same seed gives the same night."""
    from controller.club import hand_events, next_dealer
    script: list = []
    dealer = rng.choice(SEATS)
    r = 0
    while len(script) < events:
        r += 1
        seating = {s: f"P{number:02d}{s}" for s in SEATS}
        script.append({"type": "club_round", "night": night, "round": r, "table": number,
                       "seating": seating})
        for _ in range(hands_per_round):
            script.extend(hand_events(rules, dealer, rng))
            dealer = next_dealer(dealer)
    return script


class ChaosTable:
    """One table: its log, its publisher, a writer thread appending its night."""

    def __init__(self, number: int, folder: Path, port: int, events: int, rules, rng,
                 cfg: ChaosConfig, hall_password: str, clock=time.time, night: str = NIGHT):
        from controller.club import ClubConfig, ClubLink
        from controller.log import EventLog
        self.number = number
        self.path = folder / f"table-{number}.sqlite"
        self.log = EventLog(str(self.path))
        self.script = table_script(number, events, rules, rng, cfg.hands_per_round, night)
        club = ClubConfig(night=night, table=number, port=port, password=f"pw{number}",
                          keepalive=cfg.keepalive, heartbeat=2.0, resend_after=2.0,
                          reconnect_max=1.0)
        self.link = ClubLink(club, self.path, device=f"dev-{number}", clock=clock,
                             resend=cfg.resend)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._write, args=(cfg.duration, rng.random()),
                                       daemon=True, name=f"writer-{number}")

    def _write(self, duration: float, phase: float) -> None:
        gap = duration / max(1, len(self.script))
        t0 = time.monotonic() + phase * gap
        for i, ev in enumerate(self.script):
            wait = t0 + i * gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self.log.append(ev, at=time.time())
            self.link.poke()
        self.done.set()

    def records(self) -> list:
        return [r.to_dict() for r in self.log.records()]


# ---------------------------------------------------------------------- the run
def run(cfg: ChaosConfig, progress=print) -> dict:
    """One chaos run; returns the figures and ``ok``."""
    from hall.broker import Broker
    from hall.hub import Hub
    from hall.store import Store
    from bench.linkfaults import LinkFaults

    logging.getLogger("hall.hub").setLevel(logging.ERROR)
    rng = random.Random(cfg.seed)
    rules = Rules.preset("standard")
    own = not cfg.folder
    folder = Path(cfg.folder or tempfile.mkdtemp(prefix="club-chaos-"))
    folder.mkdir(parents=True, exist_ok=True)
    users = {"hall": "hallpw", **{str(t): f"pw{t}" for t in range(1, cfg.tables + 1)}}
    broker = Broker(cfg.broker, users=users, folder=str(folder / "broker")).start()
    faults = LinkFaults(range(1, cfg.tables + 1), broker.port)
    faults.start()
    store = Store(str(folder / "hall.sqlite"))
    # The hall's own link does not go through the proxy: a longer keepalive than the
    # tables' (which must notice silent drops fast).
    hub = Hub(store, NIGHT, port=broker.port, password="hallpw", resend=cfg.resend,
              keepalive=10, stale_after=6.0)
    per_table = -(-cfg.events // cfg.tables)
    tables = [ChaosTable(t, folder, faults.ports[t], per_table, rules, random.Random(rng.random()),
                         cfg, "hallpw") for t in range(1, cfg.tables + 1)]
    total = sum(len(t.script) for t in tables)
    progress(f"{cfg.tables} tables, {total} events over {cfg.duration:.0f} s through "
             f"{cfg.broker} on 127.0.0.1:{broker.port}; {cfg.kills} broker kills, "
             f"{cfg.outages} link outages; resend {'on' if cfg.resend else 'OFF'}")
    cpu0 = time.process_time()
    hub.start()
    hub.connected.wait(10)
    for t in tables:
        t.link.start()
    t_start = time.monotonic()
    for t in tables:
        t.thread.start()
    # The faults: spread over the writing time, none in its last tenth (so that the tail
    # of the night is also sent under normal conditions, as after a real outage).
    span = cfg.duration * 0.9
    plan = sorted([(rng.uniform(0.05, 0.95) * span, "kill", None) for _ in range(cfg.kills)] +
                  [(rng.uniform(0.02, 1.0) * span, "cut" if i % 2 == 0 else "blackhole",
                    rng.randint(1, cfg.tables)) for i in range(cfg.outages)])
    last_fault_end = t_start
    for at, kind, table in plan:
        wait = t_start + at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        now = time.monotonic()
        if kind == "kill":
            broker.kill()
            time.sleep(rng.uniform(0.3, 1.5))
            broker.start()
            last_fault_end = max(last_fault_end, time.monotonic())
        elif kind == "cut":
            faults.cut(table)
            last_fault_end = max(last_fault_end, now)
        else:
            secs = rng.uniform(1.0, 4.0)
            faults.blackhole(table, secs)
            last_fault_end = max(last_fault_end, now + secs)
    # Caught up after the last outage: everything the tables had logged by the moment the
    # last fault ended is in the hall's store, how many seconds later?
    wait = last_fault_end - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    snapshot = {t.number: t.log.last_seq for t in tables}
    t_snap = time.monotonic()
    after_outage = None
    while time.monotonic() < t_snap + cfg.settle:
        if hub.caught_up(snapshot):
            after_outage = time.monotonic() - t_snap
            break
        time.sleep(0.02)
    for t in tables:
        t.thread.join()
    writing_done = time.monotonic()
    expected = {t.number: t.log.last_seq for t in tables}
    caught_up_at = None
    while time.monotonic() < writing_done + cfg.settle:
        if hub.caught_up(expected):
            caught_up_at = time.monotonic()
            break
        time.sleep(0.02)
    cpu = time.process_time() - cpu0
    # The checks, on a store that no longer changes: the tables and the hall stop first.
    for t in tables:
        t.link.stop(goodbye=False)
    hub.stop()
    lost = altered = 0
    logs = {}
    stored = {}
    for t in tables:
        logs[t.number] = t.records()
        stored[t.number] = store.records(NIGHT, t.number, upto=store.max_seq(NIGHT, t.number))
        have = {r["seq"]: r for r in stored[t.number]}
        for r in logs[t.number]:
            if r["seq"] not in have:
                lost += 1
            elif have[r["seq"]] != r:
                altered += 1
    rows = store.count(NIGHT)
    extra = rows - sum(len(v) for v in logs.values()) + lost
    # The hall's standings (the night's fold of what the hall stored) against an
    # independent fold of the tables' own logs.
    independent = fold_logs(rules, logs)
    hall = hall_fold({t: store.records(NIGHT, t) for t in expected})
    standings_equal = (set(independent) <= set(hall)
                       and hall == {p: independent.get(p, 0) for p in hall})
    refused = [e for e in store.hall_events() if e["kind"] == "refused"]
    result = {
        "broker": cfg.broker, "resend": cfg.resend, "tables": cfg.tables, "events": total,
        "broker_kills": broker.starts - 1, "cuts": faults.counts["cuts"],
        "blackholes": faults.counts["blackholes"],
        "outages": faults.counts["cuts"] + faults.counts["blackholes"],
        "lost": lost, "altered": altered, "stored_twice": extra,
        "duplicates_dropped": hub.stats["duplicates"], "messages": hub.stats["messages"],
        "resend_requests": hub.stats["resend_requests"],
        "rewinds": sum(t.link.stats["rewinds"] for t in tables),
        "resent_by_tables": sum(t.link.stats["resent"] for t in tables),
        "connects": sum(t.link.stats["connects"] for t in tables),
        "refused": len(refused),
        "standings_equal": standings_equal,
        "caught_up_s_after_last_outage": (None if after_outage is None else round(after_outage, 2)),
        "caught_up_s_after_last_write": (None if caught_up_at is None else
                                         round(caught_up_at - writing_done, 2)),
        "wall_s": round(time.monotonic() - t_start, 1), "cpu_s": round(cpu, 1),
    }
    result["ok"] = (lost == 0 and altered == 0 and extra == 0 and standings_equal
                    and caught_up_at is not None and after_outage is not None
                    and after_outage <= 5.0)
    for t in tables:
        t.log.close()
    store.close()
    faults.stop()
    broker.close()
    if own:
        shutil.rmtree(folder, ignore_errors=True)
    return result


# ---------------------------------------------------------------------- SIGKILL of a table and the hall
def _table_process(a) -> int:
    """A table in its own process: appends its scripted night from where its log stands
    (a restart continues it), publishes it, exits once the hall acknowledged everything."""
    from controller.club import ClubConfig, ClubLink
    from controller.log import EventLog
    log = EventLog(a.log)
    script = table_script(a.table, a.events, Rules.preset("standard"), random.Random(a.seed))
    club = ClubConfig(night=NIGHT, table=a.table, port=a.port, password=f"pw{a.table}",
                      keepalive=2, heartbeat=1.0, resend_after=1.0, reconnect_max=0.5)
    link = ClubLink(club, a.log, device=f"dev-{a.table}").start()
    for ev in script[log.last_seq:]:
        log.append(ev, at=time.time())
        link.poke()
        time.sleep(a.gap)
    while link.acked < log.last_seq:
        time.sleep(0.05)
    link.stop()
    return 0


def _hall_process(a) -> int:
    """The hall's hub in its own process, until SIGTERM (or SIGKILL)."""
    import signal
    from hall.hub import Hub
    from hall.store import Store
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    store = Store(a.store)
    hub = Hub(store, NIGHT, port=a.port, password="hallpw", keepalive=2).start()
    stop.wait()
    hub.stop()
    store.close()
    return 0


def run_kills(folder, broker_kind: str = "mosquitto", tables: int = 3, events: int = 300,
              table_kills: int = 3, hall_kills: int = 2, gap: float = 0.01, seed: int = 7,
              timeout: float = 120.0) -> dict:
    """Tables and the hall in processes of their own, each killed with SIGKILL mid-night and
    restarted. Returns the figures; ``ok`` when nothing was lost or stored twice and the
    standings from the hall's store equal those from the tables' logs."""
    import signal
    import subprocess
    from hall.broker import Broker
    from hall.store import Store
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    users = {"hall": "hallpw", **{str(t): f"pw{t}" for t in range(1, tables + 1)}}
    broker = Broker(broker_kind, users=users, folder=str(folder / "broker")).start()
    py = [sys.executable, "-m", "bench.club_chaos"]
    store_path = str(folder / "hall.sqlite")
    hall_argv = py + ["--role", "hall", "--port", str(broker.port), "--store", store_path]

    def table_argv(t):
        return py + ["--role", "table", "--table", str(t), "--port", str(broker.port),
                     "--log", str(folder / f"table-{t}.sqlite"), "--events", str(events),
                     "--seed", str(seed * 100 + t), "--gap", str(gap)]

    procs = {"hall": subprocess.Popen(hall_argv)}
    for t in range(1, tables + 1):
        procs[t] = subprocess.Popen(table_argv(t))
    kills = {"table": 0, "hall": 0}
    t0 = time.monotonic()
    try:
        plan = [("hall", None)] * hall_kills + [("table", rng.randint(1, tables)) for _ in range(table_kills)]
        rng.shuffle(plan)
        span = events * gap * 0.8
        for _i, (who, t) in enumerate(plan):
            time.sleep(span / (len(plan) + 1))
            key = "hall" if who == "hall" else t
            p = procs[key]
            if p.poll() is not None:
                continue
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills[who] += 1
            time.sleep(rng.uniform(0.2, 0.8))
            procs[key] = subprocess.Popen(hall_argv if who == "hall" else table_argv(t))
        for t in range(1, tables + 1):
            procs[t].wait(timeout=max(1.0, timeout - (time.monotonic() - t0)))
        caught_up = time.monotonic() - t0
        procs["hall"].send_signal(signal.SIGTERM)
        procs["hall"].wait(10)
        from controller.log import EventLog
        logs = {}
        for t in range(1, tables + 1):
            with EventLog(str(folder / f"table-{t}.sqlite")) as log:
                logs[t] = [r.to_dict() for r in log.records()]
        store = Store(store_path)
        stored = {t: store.records(NIGHT, t, upto=store.max_seq(NIGHT, t)) for t in logs}
        lost = sum(1 for t in logs for r in logs[t] if r not in stored[t])
        twice = store.count(NIGHT) - sum(len(v) for v in logs.values()) + lost
        rules = Rules.preset("standard")
        independent = fold_logs(rules, logs)
        hall = hall_fold({t: store.records(NIGHT, t) for t in logs})
        equal = set(independent) <= set(hall) and hall == {p: independent.get(p, 0) for p in hall}
        store.close()
        result = {"broker": broker_kind, "tables": tables,
                  "events": sum(len(v) for v in logs.values()),
                  "table_kills": kills["table"], "hall_kills": kills["hall"], "lost": lost,
                  "stored_twice": twice, "standings_equal": equal,
                  "all_acked_after_s": round(caught_up, 1)}
        result["ok"] = lost == 0 and twice == 0 and equal and all(
            len(v) >= events for v in logs.values())
        return result
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        broker.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.club_chaos", description=__doc__.split("\n")[0])
    d = ChaosConfig()
    p.add_argument("--tables", type=int, default=d.tables)
    p.add_argument("--events", type=int, default=d.events)
    p.add_argument("--kills", type=int, default=d.kills)
    p.add_argument("--outages", type=int, default=d.outages)
    p.add_argument("--duration", type=float, default=d.duration)
    p.add_argument("--broker", choices=["mosquitto", "nats"], default=d.broker)
    p.add_argument("--no-resend", action="store_true", help="turn resending off (must lose events)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--settle", type=float, default=d.settle,
                   help="seconds to wait for the hall to catch up before counting losses")
    p.add_argument("--json", action="store_true")
    p.add_argument("--kill-processes", dest="kill_test", action="store_true",
                   help="instead: tables and the hall in their own processes, killed with SIGKILL")
    # The processes of the kill test.
    p.add_argument("--role", choices=["table", "hall"], help=argparse.SUPPRESS)
    p.add_argument("--table", type=int, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--log", help=argparse.SUPPRESS)
    p.add_argument("--store", help=argparse.SUPPRESS)
    p.add_argument("--gap", type=float, default=0.01, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.role == "table":
        return _table_process(a)
    if a.role == "hall":
        return _hall_process(a)
    if a.kill_test:
        with tempfile.TemporaryDirectory(prefix="club-kills-") as folder:
            result = run_kills(folder, broker_kind=a.broker, tables=a.tables if a.tables != 40 else 8,
                               events=max(200, a.events // 40), table_kills=10, hall_kills=5)
        print(json.dumps(result) if a.json else "\n".join(f"  {k:<20} {v}" for k, v in result.items()))
        return 0 if result["ok"] else 1
    cfg = ChaosConfig(tables=a.tables, events=a.events, kills=a.kills, outages=a.outages,
                      duration=a.duration, broker=a.broker, resend=not a.no_resend, seed=a.seed,
                      settle=a.settle)
    result = run(cfg, progress=(lambda s: None) if a.json else print)
    if a.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"  {k:<32} {v}")
        print("PASS" if result["ok"] else "FAIL")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
