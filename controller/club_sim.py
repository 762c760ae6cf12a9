"""`euchre-table simulate --club N`: a whole club night on this machine: a broker, the hall and N virtual tables.

Starts Debian's mosquitto (or nats-server) on a free loopback port, the hall (hub, store,
the night's fold, round management and the hall page on 127.0.0.1) and N engine-only
virtual tables that play every round the hall seats them for, each through its own
durable log and the real publisher. Nothing listens on any other address. At the end it
prints the final standings and checks them against an independent fold of the tables'
own logs.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, Optional

from engine.rules import Rules


def fold_logs(rules: Rules, tables: dict) -> dict:
    """Each player's points from the tables' records alone: every hand's team points
    (the referee's hand records, standard Euchre scoring) banked by both players of
    that team in the round's seating (the last ``club_round`` before the hand); a keyed
    ``result`` counts by :func:`controller.club.result_points`. Written apart from the
    hall's fold so that the two check each other."""
    from controller.club import result_points
    from engine.referee import Referee
    totals: dict = {}
    for t in sorted(tables):
        ref = Referee(rules)
        marks = []            # (seq, seating) of each club_round
        for rec in tables[t]:
            kind = rec.get("type")
            if kind == "club_round":
                marks.append((rec["seq"], rec.get("seating") or {}))
            elif kind == "result":
                _bank(totals, _seating(marks, rec["seq"]), result_points(rec))
            else:
                ref.feed({k: v for k, v in rec.items() if k not in ("seq", "at")}, seq=rec["seq"])
        for h in ref.records():
            pts = (h.get("result") or {}).get("points")
            if pts:
                _bank(totals, _seating(marks, h["first_seq"]), pts)
    return dict(sorted(totals.items()))


def _seating(marks, seq) -> dict:
    current = {}
    for s, seating in marks:
        if s > seq:
            break
        current = seating
    return current


def _bank(totals, seating, pts) -> None:
    for seat, player in seating.items():
        if player is None:
            continue
        team = "NS" if seat in "NS" else "EW"
        totals[player] = totals.get(player, 0) + pts.get(team, 0)


def points_of(standings) -> dict:
    """``{player: points}`` from the standings as the hall page gets them (a list of rows
    with ``player`` and ``points``, or a mapping), for the check."""
    if isinstance(standings, dict) and "ranking" in standings:
        standings = standings["ranking"]
    if isinstance(standings, dict):
        return {p: v for p, v in standings.items()}
    return {row.get("entrant", row.get("player")): row.get("total", row.get("points"))
            for row in standings}


class FullVirtualClubTable:
    """The full virtual table at a club night: the real table service on two fake cameras
    (``controller.simulate.build_table``): the Pi plays West, its cards dealt face down
    through the reader window, the three people are computer players, every card read by
    the vision pipeline; the screen goes to a GIF, the announcements (the hall's seating
    and "round over" too) to text. The club hook is the service's own (``ClubTable``), so
    the service starts a hand only in a round the hall started."""

    def __init__(self, cfg, folder, rules, seed: int):
        import random

        from controller.club import ClubTable
        from controller.simulate import build_table
        from hardware.display import make_display
        from hardware.speaker import make_speaker
        folder = Path(folder) / f"table-{cfg.table}-full"
        folder.mkdir(parents=True, exist_ok=True)
        self.screen = make_display({"driver": "gif", "filename": str(folder / "screen.gif"),
                                    "scale": 2, "duration": 0.4})
        self.speaker = make_speaker({"backend": "text"})
        self.table, self.service = build_table(rules, random.Random(seed), folder,
                                               computer_seats=("W",), screen=self.screen,
                                               speaker=self.speaker, budget=0.02)
        self.path = folder / "table-log.sqlite"
        self.log = self.service.log
        self.club = ClubTable(cfg, self.service.ctl, self.path, folder, clock=time.time)
        self.service.club = self.club
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, name=f"table-{cfg.table}-full", daemon=True)

    def start(self):
        self.club.start()
        self.thread.start()
        return self

    def run(self) -> None:
        while not self.stop_event.is_set():
            if self.club.wants_hand():
                self.table.play_hand()
            else:
                self.service.step()          # the hall's commands, the link's status
                self.stop_event.wait(0.05)

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(60)
        dev = getattr(self.screen, "device", None)
        if dev is not None and hasattr(dev, "write_animation"):
            # luma.emulator's gifanim writes only at exit: write it now, once.
            dev.write_animation()
            dev._images = []
            dev.persist = True
        self.service.close()        # stops the club link too


def simulate_club(n_tables: int, out_dir, seed: int = 1, rounds: int = 3, hands: int = 4,
                  broker_kind: str = "mosquitto", night=None, web: bool = True,
                  pace: float = 0.0, progress: Callable[[str], None] = print,
                  keep_open: Optional[threading.Event] = None, timeout: float = 600.0,
                  movement: str = "rotation", full_table: bool = False) -> dict:
    """Run a whole virtual club night; returns the summary (standings, check, files)."""
    import secrets

    from controller.club import ClubConfig, VirtualClubTable
    from hall.broker import Broker, free_port
    from hall.service import HallConfig, HallService, load_night_api

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("*.sqlite*")) + list(out.glob("tables/*.sqlite*")):
        old.unlink()
    night_id = f"sim-{seed}"
    hall_pw = secrets.token_hex(8)
    table_pw = {t: secrets.token_hex(8) for t in range(1, n_tables + 1)}
    users = {"hall": hall_pw, **{str(t): p for t, p in table_pw.items()}}
    t0 = time.monotonic()
    broker = Broker(broker_kind, users=users, folder=str(out / "broker")).start()
    cfg = HallConfig(night_id=night_id, tables=list(range(1, n_tables + 1)),
                     store=str(out / "hall.sqlite"),
                     broker={"host": "127.0.0.1", "port": broker.port, "username": "hall",
                             "password": hall_pw},
                     web={"host": "127.0.0.1", "port": free_port()}, pause=0.5,
                     night={"players": 4 * n_tables, "rounds": rounds, "hands": hands,
                            "movement": movement, "scoring": "standard"})
    server = tables = service = None
    try:
        if night is None:
            night = load_night_api(cfg)
        service = HallService(cfg, night).start()
        url = None
        if web:
            app = night.make_app(service)
            if app is not None:
                server = _serve(app, cfg.web["host"], cfg.web["port"])
                url = f"http://{cfg.web['host']}:{cfg.web['port']}/"
        progress(f"Club night {night_id}: {n_tables} tables, {night.rounds} rounds of "
                 f"{night.hands_per_round} hands; broker {broker_kind} on 127.0.0.1:{broker.port}"
                 + (f"; hall page {url}" if url else ""))
        rules = night.rules
        tables = []
        for t in range(1, n_tables + 1):
            c = ClubConfig(night=night_id, table=t, port=broker.port, password=table_pw[t],
                           keepalive=10, heartbeat=2.0, resend_after=2.0, reconnect_max=1.0)
            if full_table and t == 1:
                progress("  table 1 is the full virtual table: every card through the camera")
                tables.append(FullVirtualClubTable(c, out / "tables", rules, seed=seed * 1000 + t).start())
                continue
            # The last table has no camera: its players key each hand's result in.
            keyed = n_tables > 1 and t == n_tables
            if keyed:
                c.entry = "panel"
            tables.append(VirtualClubTable(c, out / "tables", rules, seed=seed * 1000 + t,
                                           pace=pace, keyed=keyed).start())
        seen_round = None
        deadline = time.monotonic() + timeout
        while True:
            done = service.finished
            if time.monotonic() > deadline:
                raise TimeoutError(f"the night did not finish within {timeout:.0f} s")
            start, ended = service.current_round()
            key = (start["round"] if start else None, ended)
            if key != seen_round and key[0] is not None:
                seen_round = key
                progress(f"  round {key[0]} " + ("over" if key[1] else "starts"))
            if done:
                break
            time.sleep(0.05)
        expected = {t.club.cfg.table: t.log.last_seq for t in tables}
        caught = _wait(lambda: service.hub.caught_up(expected), 30)
        service._refold()
        snap = service.snapshot()
        logs = {t.club.cfg.table: [r.to_dict() for r in t.log.records()] for t in tables}
        independent = fold_logs(rules, logs)
        hall_points = points_of(snap["standings"])
        equal = caught and all(hall_points.get(p, 0) == v for p, v in independent.items()) \
            and set(p for p, v in hall_points.items() if v) <= set(independent)
        events = sum(len(v) for v in logs.values())
        summary = {"night": night_id, "tables": n_tables, "rounds": night.rounds,
                   "hands_per_round": night.hands_per_round, "events": events,
                   "stored": service.store.count(night_id), "caught_up": caught,
                   "standings": snap["standings"], "independent": independent,
                   "standings_equal_independent_fold": equal, "url": url,
                   "duplicates_dropped": service.hub.stats["duplicates"],
                   "wall_seconds": round(time.monotonic() - t0, 1),
                   "files": {"hall_store": str(out / "hall.sqlite"),
                             "table_logs": str(out / "tables")}}
        if keep_open is not None and url:
            progress(f"The hall page stays open at {url} (Ctrl-C to stop)")
            keep_open.wait()
        return summary
    finally:
        for t in tables or []:
            t.stop()
        if server is not None:
            server.should_exit = True
            server.thread.join(5)
        if service is not None:
            service.close()
        broker.close()


def _wait(cond, timeout) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def _serve(app, host: str, port: int):
    """The hall page with uvicorn on its own thread; ``server.should_exit = True`` stops it."""
    import uvicorn
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    server.thread = threading.Thread(target=server.run, name="hall-web", daemon=True)
    server.thread.start()
    _wait(lambda: server.started, 10)
    return server


def print_summary(s: dict, out=print) -> None:
    st = s["standings"]
    if isinstance(st, dict) and "ranking" in st:
        st = st["ranking"]
    if isinstance(st, list) and st and "rank_text" in st[0]:
        # The night's own ranking: totals, then its tie-break chain; shared places as "=3".
        rows = [(r["rank_text"], r["entrant"], r["total"]) for r in st]
    else:
        pts = sorted(points_of(st).items(), key=lambda kv: (-kv[1], kv[0]))
        rows = []
        for _i, (player, total) in enumerate(pts):
            place = next(j for j, (_, t) in enumerate(pts) if t == total) + 1
            shared = sum(1 for _, t in pts if t == total) > 1
            rows.append((f"={place}" if shared else str(place), player, total))
    out(f"\nFinal standings after {s['rounds']} rounds ({s['events']} table events, "
        f"{s['wall_seconds']} s):")
    for rank, player, total in rows:
        out(f"  {rank:>4}  {player:<12} {total:>4}")
    out(f"Standings equal to an independent fold of the tables' own logs: "
        f"{'yes' if s['standings_equal_independent_fold'] else 'NO'}")
    if s.get("url"):
        out(f"Hall page: {s['url']}")
    out(f"Files: hall store {s['files']['hall_store']}, table logs {s['files']['table_logs']}")


__all__ = ["simulate_club", "fold_logs", "points_of", "print_summary"]
