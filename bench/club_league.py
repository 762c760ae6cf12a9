"""A league of halls: each hall's nats-server is a leaf node of a central server; the league collects every hall's results, each hall working offline.

Each hall runs nats-server with its own JetStream domain and its MQTT listener; its
tables (engine-only virtual tables with the real publisher) and its hall hub use it like
any broker, so the hall works whether or not it can reach the centre. A stream at the
hall (``HALL``, subjects ``club.*.t.*.ev``: every table event message as it passed) is
*sourced* by a stream at the centre (``LEAGUE``); JetStream resumes a source where it
stopped, so what a hall took in while its link was down reaches the centre when the
link is back. The league's collector reads ``LEAGUE`` and keeps each (night, table, seq)
once, like a hall's store.

The run: hall A's link to the centre is down for a long stretch (a hall with no
internet), both links are cut and blackholed many more times, and the centre is killed
with SIGKILL and restarted. Checks: each hall had all its tables' events while it was
cut off (working offline); at the end the league holds every table's log exactly, and
standings folded from the league's copy equal those folded from the tables' logs.

    .venv/bin/python -m bench.club_league
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from engine import Rules


def run(halls: int = 2, tables: int = 10, events: int = 4000, duration: float = 40.0,
        outages: int = 40, central_kills: int = 1, seed: int = 3, progress=print) -> dict:
    from bench.club_chaos import ChaosConfig, ChaosTable
    from bench.linkfaults import LinkFaults
    from controller.club_sim import fold_logs
    from hall.broker import Broker, free_port
    from hall.hub import Hub
    from hall.store import Store

    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="club-league-"))
    leaf_port = free_port()
    ping = "ping_interval: \"1s\"\nping_max: 2"
    central = Broker("nats", folder=str(folder / "central"), domain="league",
                     nats_extra=f"leafnodes {{ listen: 127.0.0.1:{leaf_port} }}\n{ping}").start()
    names = [chr(ord("a") + i) for i in range(halls)]
    faults = LinkFaults(names, leaf_port)
    faults.start()
    hall_brokers, stores, hubs, all_tables = {}, {}, {}, {}
    cfg = ChaosConfig(tables=tables, duration=duration, keepalive=2)
    try:
        for h in names:
            b = Broker("nats", folder=str(folder / f"hall-{h}"), domain=f"hall{h}",
                       # The hall sends its tables' traffic to the centre and takes none of
                       # the other halls' in (its hub would only refuse it).
                       nats_extra="leafnodes { remotes: [ { url: \"nats-leaf://127.0.0.1:%d\", "
                                  "deny_imports: [\"club.>\", \"$MQTT.msgs.>\"] } ] }\n%s"
                                  % (faults.ports[h], ping)).start()
            hall_brokers[h] = b
        asyncio.run(_make_streams(hall_brokers, central))
        per_table = -(-events // (halls * tables))
        for h, b in hall_brokers.items():
            night = f"{h}-fri"
            (folder / f"hall-{h}").mkdir(exist_ok=True)
            stores[h] = Store(str(folder / f"hall-{h}.sqlite"))
            hubs[h] = Hub(stores[h], night, port=b.port, username=None, keepalive=2).start()
            all_tables[h] = [ChaosTable(t, folder / f"hall-{h}", b.port, per_table,
                                        Rules.preset("standard"), random.Random(rng.random()),
                                        cfg, "hallpw", night=night) for t in range(1, tables + 1)]
        total = sum(len(t.script) for ts in all_tables.values() for t in ts)
        progress(f"{halls} halls x {tables} tables, {total} events over {duration:.0f} s; each "
                 f"hall a nats leaf node of the centre; {outages} leaf outages, "
                 f"{central_kills} SIGKILL of the centre; hall a offline from 20% to 60%")
        for ts in all_tables.values():
            for t in ts:
                t.link.start()
        t0 = time.monotonic()
        for ts in all_tables.values():
            for t in ts:
                t.thread.start()
        # Hall a: no internet from 20% to 60% of the night (its leaf link blackholed, then
        # closed); meanwhile short cuts and silences on every link and a central kill.
        off_at, off_secs = 0.2 * duration, 0.4 * duration
        plan = [(off_at, "offline", "a"), (off_at + off_secs - 5.0, "snap", "a"),
                (off_at + off_secs - 1.0, "check", "a")]
        plan += [(rng.uniform(0.05, 0.9) * duration, "kill", None) for _ in range(central_kills)]
        plan += [(rng.uniform(0.02, 0.9) * duration, "cut" if i % 2 else "blackhole",
                  rng.choice(names)) for i in range(outages)]
        plan.sort(key=lambda p: p[0])
        last_end = t0
        offline = None
        snap, offline_ok, missing = {}, False, None
        for at, kind, h in plan:
            wait = t0 + at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            now = time.monotonic()
            if kind == "offline":
                faults.blackhole(h, off_secs)
                offline = (now, now + off_secs)
                last_end = max(last_end, now + off_secs)
            elif kind == "snap":
                # Working offline: what hall a's tables had logged 4 s before the check...
                snap = {t.number: t.log.last_seq for t in all_tables["a"]}
            elif kind == "check":
                # ...is all in hall a's store while its link to the centre is still down.
                offline_ok = hubs["a"].caught_up(snap) and now < offline[1]
                missing = sum(max(0, n - stores["a"].contiguous("a-fri", t)) for t, n in snap.items())
            elif kind == "kill":
                central.kill()
                time.sleep(rng.uniform(0.3, 1.0))
                central.start()
                last_end = max(last_end, time.monotonic())
            elif kind == "cut" and not (h == "a" and offline and now < offline[1]):
                faults.cut(h)
                last_end = max(last_end, now)
            elif kind == "blackhole":
                secs = rng.uniform(0.5, 3.0)
                faults.blackhole(h, secs)
                last_end = max(last_end, now + secs)
        offline_events = sum(snap.values())
        for ts in all_tables.values():
            for t in ts:
                t.thread.join()
        wait = last_end - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        t_last = time.monotonic()
        logs = {h: {t.number: t.records() for t in ts} for h, ts in all_tables.items()}
        expected = {(f"{h}-fri", t): len(recs) for h, v in logs.items() for t, recs in v.items()}
        collected, caught = asyncio.run(_collect(central, expected, timeout=60.0))
        league_s = None if caught is None else round(caught - t_last, 2)
        lost = 0
        equal = True
        for h, v in logs.items():
            league = {}
            for t, recs in v.items():
                have = collected.get((f"{h}-fri", t), {})
                lost += sum(1 for r in recs if have.get(r["seq"]) != r)
                league[t] = [have[s] for s in sorted(have)]
            equal &= fold_logs(Rules.preset("standard"), league) == fold_logs(Rules.preset("standard"), v)
        hall_lost = sum(1 for h, v in logs.items() for t, recs in v.items()
                        for r in recs if r not in stores[h].records(f"{h}-fri", t))
        result = {"halls": halls, "tables_per_hall": tables, "events": total,
                  "leaf_outages": faults.counts["cuts"] + faults.counts["blackholes"],
                  "central_kills": central.starts - 1,
                  "hall_a_offline_s": round(offline[1] - offline[0], 1),
                  "hall_a_complete_while_offline": offline_ok,
                  "hall_a_events_while_offline_check": offline_events,
                  "hall_a_missing_at_check": missing,
                  "lost_at_halls": hall_lost, "lost_at_league": lost,
                  "standings_equal": equal, "league_caught_up_s_after_last_outage": league_s}
        result["ok"] = offline_ok and lost == 0 and hall_lost == 0 and equal and league_s is not None
        return result
    finally:
        for ts in all_tables.values():
            for t in ts:
                t.link.stop(goodbye=False)
                t.log.close()
        for hub in hubs.values():
            hub.stop()
        for st in stores.values():
            st.close()
        faults.stop()
        for b in hall_brokers.values():
            b.close()
        central.close()
        shutil.rmtree(folder, ignore_errors=True)


async def _make_streams(hall_brokers, central) -> None:
    import nats
    from nats.js.api import ExternalStream, StreamConfig, StreamSource
    for _h, b in hall_brokers.items():
        nc = await nats.connect(f"nats://127.0.0.1:{b.nats_port}")
        await nc.jetstream().add_stream(StreamConfig(name="HALL", subjects=["club.*.t.*.ev"]))
        await nc.close()
    nc = await nats.connect(f"nats://127.0.0.1:{central.nats_port}")
    await nc.jetstream().add_stream(StreamConfig(name="LEAGUE", sources=[
        StreamSource(name="HALL", external=ExternalStream(api=f"$JS.hall{h}.API"))
        for h in hall_brokers]))
    await nc.close()


async def _collect(central, expected: dict, timeout: float):
    """The league's collector: every message of LEAGUE, each (night, table, seq) kept once."""
    import nats
    from hall import topics
    got: dict = {}
    caught = None
    deadline = time.monotonic() + timeout
    nc = await nats.connect(f"nats://127.0.0.1:{central.nats_port}",
                            max_reconnect_attempts=-1, reconnect_time_wait=0.2)
    sub = await nc.jetstream().pull_subscribe("club.>", durable="league", stream="LEAGUE")
    while time.monotonic() < deadline:
        try:
            msgs = await sub.fetch(1000, timeout=0.5)
        except Exception:       # nothing new yet (a fetch timeout)
            msgs = []
        for m in msgs:
            try:
                e = topics.parse_event_message(m.data)
                got.setdefault((e["night"], e["table"]), {}).setdefault(e["seq"], topics.record_of(e))
            except topics.MessageError:
                pass
            await m.ack()
        if all(len(got.get(k, {})) >= n for k, n in expected.items()):
            caught = time.monotonic()
            break
    await nc.close()
    return got, caught


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.club_league", description=__doc__.split("\n")[0])
    p.add_argument("--halls", type=int, default=2)
    p.add_argument("--tables", type=int, default=10)
    p.add_argument("--events", type=int, default=4000)
    p.add_argument("--duration", type=float, default=40.0)
    p.add_argument("--outages", type=int, default=40)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    r = run(a.halls, a.tables, a.events, a.duration, a.outages,
            progress=(lambda s: None) if a.json else print)
    print(json.dumps(r) if a.json else "\n".join(f"  {k:<40} {v}" for k, v in r.items()))
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
