"""The hall service (`euchre-table hall`): hub, store, the night's fold, round management and the hall page, wired together.

The hall's state is a fold of what is stored: the tables' records (through the hub) and
the hall's own events (the night, each round's start and end, director actions, refused
input). :class:`HallService` is the ``source`` the hall page reads (``snapshot()``,
``changes()``, ``director()``); it starts rounds (the seating from the night's movement,
sent to each table), ends them by hands, by the clock ("finish the hand already dealt")
or by the director, and tells every table where its players go next.

The night's format (scoring, movements, standings, director actions, the page) is the
night's own modules; this module reaches them through :class:`NightAPI`.
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from engine.referee import Referee
from engine.rules import Rules
from hall import topics
from hall.hub import Hub
from hall.store import Store

log = logging.getLogger("hall.service")

OVER_PHASES = ("over", "thrown in", "misdeal", "void", "no hand")
END_BY = ("night", "director")


class HallError(ValueError):
    """A hall configuration or state that cannot be used; one line saying what to do."""


# ---------------------------------------------------------------------- configuration
@dataclass
class HallConfig:
    """The hall's own sections of hall.toml; ``night`` is the raw ``[night]`` section,
    checked by the night's own module."""

    night_id: str
    tables: list
    store: str = "hall.sqlite"
    state_dir: str = "."
    broker: dict = field(default_factory=lambda: {"host": "127.0.0.1", "port": 1883,
                                                  "username": "hall", "password": None})
    web: dict = field(default_factory=lambda: {"host": "127.0.0.1", "port": 8080})
    end_by: str = "night"        # the night's hands and/or minutes; or "director"
    pause: float = 20.0          # seconds between "round over" and the next round's seating
    stale_after: float = 30.0
    night: dict = field(default_factory=dict)
    source: str = "hall.toml"

    def path(self, name: str) -> Path:
        p = Path(name)
        return p if p.is_absolute() else Path(self.state_dir) / p


HALL_SECTIONS = ("hall", "broker", "web", "night")


def load_hall_config(path) -> HallConfig:
    """Read and check hall.toml; HallError names the file, section and key."""
    from hall.night import NightError, read_toml
    try:
        data = read_toml(path)
    except NightError as exc:
        raise HallError(str(exc)) from None
    return check_hall_config(data, source=str(path))


def check_hall_config(data: dict, source: str = "hall.toml") -> HallConfig:
    def fail(where, msg):
        raise HallError(f"{source}: [{where}] {msg}")

    for key in data:
        if key not in HALL_SECTIONS:
            raise HallError(f"{source}: unknown section [{key}]; sections are "
                            + ", ".join(f"[{s}]" for s in HALL_SECTIONS))
    for name in HALL_SECTIONS:
        if name in data and not isinstance(data[name], dict):
            fail(name, "must be a table of settings")
    hall = data.get("hall", {})
    known = ("night", "tables", "store", "state_dir", "end_by", "pause", "stale_after")
    for key in hall:
        if key not in known:
            fail("hall", f"unknown key {key!r}; keys here are {', '.join(known)}")
    night_section = data.get("night", {})
    if "night" not in hall and isinstance(night_section.get("id"), str):
        hall = {**hall, "night": night_section["id"]}
    if "night" not in hall:
        fail("hall", "night is missing: the night's id, e.g. night = \"fri-2026-11-27\" "
             "(the tables' [club] night must be the same)")
    try:
        topics.check_night(hall["night"])
    except topics.MessageError as exc:
        fail("hall", str(exc))
    tables = hall.get("tables", [])
    if tables == []:
        pass            # as many as the night seats (load_night_api fills them in)
    elif isinstance(tables, int) and not isinstance(tables, bool) and 1 <= tables <= topics.MAX_TABLE:
        tables = list(range(1, tables + 1))
    elif isinstance(tables, list) and tables and all(
            isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= topics.MAX_TABLE for t in tables):
        tables = sorted(set(tables))
    else:
        fail("hall", f"tables = {tables!r}: the number of tables (tables 1..N) or a list of "
             "table numbers (or leave it out: as many as the night seats)")
    cfg = HallConfig(night_id=hall["night"], tables=tables, source=source,
                     night=dict(data.get("night", {})))
    for key in ("store", "state_dir"):
        if key in hall:
            if not isinstance(hall[key], str) or not hall[key]:
                fail("hall", f"{key} = {hall[key]!r}: should be a file or folder name")
            setattr(cfg, key, hall[key])
    if "end_by" in hall:
        if hall["end_by"] not in END_BY:
            fail("hall", f"end_by = {hall['end_by']!r}: \"night\" (after the night's hands or "
                 "minutes) or \"director\" (when the director ends it)")
        cfg.end_by = hall["end_by"]
    for key, low, high in (("pause", 0, 3600), ("stale_after", 1, 3600)):
        if key in hall:
            v = hall[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
                fail("hall", f"{key} = {v!r}: seconds, from {low} to {high}")
            setattr(cfg, key, float(v))
    broker = data.get("broker", {})
    for key in broker:
        if key not in ("host", "port", "username", "password"):
            fail("broker", f"unknown key {key!r}; keys here are host, port, username, password")
    cfg.broker.update(broker)
    web = data.get("web", {})
    for key in web:
        if key not in ("host", "port"):
            fail("web", f"unknown key {key!r}; keys here are host, port")
    cfg.web.update(web)
    for where, sec in (("broker", cfg.broker), ("web", cfg.web)):
        p = sec["port"]
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 65535:
            fail(where, f"port = {p!r}: a TCP port number")
        if not isinstance(sec["host"], str) or not sec["host"]:
            fail(where, f"host = {sec['host']!r}: a host name or address")
    return cfg


# ---------------------------------------------------------------------- the night's modules
class NightAPI:
    """What the hall service needs of the night's format. The real one wraps the night's
    modules (``hall.night``, ``hall.standings``, ``hall.movements``, ``hall.director``,
    ``hall.web``); tests may pass a stand-in with the same methods."""

    rules: Rules = Rules.preset("standard")
    hands_per_round: Optional[int] = 8
    minutes: Optional[float] = None
    rounds: int = 1

    def config(self) -> dict:
        raise NotImplementedError

    def fold(self, hall_events: list, tables: dict):
        raise NotImplementedError

    def standings_dict(self, standings) -> object:
        return standings.to_dict() if hasattr(standings, "to_dict") else standings

    def plan_round(self, hall_events: list, standings) -> Optional[dict]:
        raise NotImplementedError

    def director(self, pin: str, action: dict, hall_events: list):
        """``(ok, message, event_or_None)``."""
        return False, "director actions are not available", None

    def make_app(self, source):
        return None

    def snapshot(self, hall_events, standings, live, now, next_round, version):
        """The page's snapshot in the night's own form, or None for the hall's default."""
        return None


# ---------------------------------------------------------------------- round progress per table
class TableProgress:
    """How far one table is in the night, from its records (fed in order): the round it
    was last seated for, hands begun and finished in it, and whether a hand is in play."""

    def __init__(self, rules: Rules):
        self.referee = Referee(rules)
        self.seq = 0
        self.round: Optional[int] = None
        self.started = 0
        self.finished = 0
        self.in_hand = False

    def feed(self, records) -> None:
        for rec in records:
            self.seq = rec["seq"]
            kind = rec.get("type")
            if kind == "club_round":
                self.round, self.started, self.finished, self.in_hand = rec.get("round"), 0, 0, False
                continue
            if kind == "result":
                self.started += 1
                self.finished += 1
                self.in_hand = False
                continue
            v = self.referee.feed({k: x for k, x in rec.items() if k not in ("seq", "at")},
                                  seq=rec["seq"])
            if not v.ok:
                continue
            if kind == "hand":
                self.started += 1
                self.in_hand = True
            if self.in_hand and self.referee.state["phase"] in OVER_PHASES:
                self.in_hand = False
                self.finished += 1


# ---------------------------------------------------------------------- the service
class HallService:
    """Hub + store + fold + rounds; the hall page's ``source``."""

    def __init__(self, cfg: HallConfig, night: NightAPI, store: Optional[Store] = None,
                 clock: Callable[[], float] = time.time, hub_options: Optional[dict] = None):
        self.cfg, self.night, self.clock = cfg, night, clock
        self.store = store or Store(str(cfg.path(cfg.store)))
        b = cfg.broker
        self.hub = Hub(self.store, cfg.night_id, host=b["host"], port=b["port"],
                       username=b.get("username"), password=b.get("password"), clock=clock,
                       on_change=self._changed, on_refused=lambda e: self._changed([]),
                       tables=set(cfg.tables), stale_after=cfg.stale_after,
                       **(hub_options or {}))
        self.progress: dict = {t: TableProgress(night.rules) for t in cfg.tables}
        self.records: dict = {t: [] for t in cfg.tables}
        self.standings = None
        self.version = 0
        self.moves: dict = {}
        self._next_plan: Optional[dict] = None     # the next round's seating, once planned
        self.finished = False
        self._snapshot: dict = {}
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self._waiters: set = set()
        self._round_over_at: Optional[float] = None
        self._sent_round: dict = {}          # table -> round whose seating it was sent
        self._sent_over: dict = {}           # table -> when "round over" was last sent again
        self.thread = threading.Thread(target=self._run, name="hall-service", daemon=True)
        if not self.store.hall_events():
            self.store.append_hall({"kind": "night", "night": cfg.night_id,
                                    "config": night.config()}, at=clock())
        self._refold()

    # ------------------------------------------------------------------ life
    def start(self) -> "HallService":
        self.hub.start()
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._dirty.set()
        if self.thread.is_alive():
            self.thread.join(5)
        self.hub.stop()

    def close(self) -> None:
        self.stop()
        self.store.close()

    # ------------------------------------------------------------------ hall events
    def hall_events(self) -> list:
        return self.store.hall_events()

    def current_round(self) -> tuple:
        """``(round_start event or None, ended: bool)``."""
        start, ended = None, False
        for e in self.hall_events():
            if e["kind"] == "round_start":
                start, ended = e, False
            elif e["kind"] == "round_end" and start is not None and e.get("round") == start["round"]:
                ended = True
        return start, ended

    # ------------------------------------------------------------------ the loop
    def _changed(self, tables) -> None:
        self._dirty.set()

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            dirty = self._dirty.wait(0.25)
            self._dirty.clear()
            if self._stop.is_set():
                break
            try:
                # Fold again when something was stored, and once a second anyway (a
                # table's link turns stale with time alone).
                if dirty or time.monotonic() - last >= 1.0:
                    last = time.monotonic()
                    self._refold()
                self._manage_rounds()
            except Exception:  # the hall must keep running; say what broke
                log.exception("hall service: error in the fold or round management")

    def _refold(self) -> None:
        with self._lock:
            for t in self.cfg.tables:
                p = self.progress[t]
                new = self.store.records(self.cfg.night_id, t, since=p.seq)
                if new:
                    p.feed(new)
                    self.records[t].extend(new)
            hall_events = self.hall_events()
            self.standings = self.night.fold(hall_events, self.records)
            self.version += 1
            self._snapshot = self._make_snapshot(hall_events)
        self._wake_waiters()

    def _make_snapshot(self, hall_events) -> dict:
        own = self.night.snapshot(hall_events, self.standings, self.hub.table_states(),
                                  self.clock(), self._next_plan, self.version)
        if own is not None:
            return own
        return self._default_snapshot(hall_events)

    def _default_snapshot(self, hall_events) -> dict:
        start, ended = None, False
        for e in hall_events:
            if e["kind"] == "round_start":
                start, ended = e, False
            elif e["kind"] == "round_end" and start is not None and e.get("round") == start["round"]:
                ended = True
        states = self.hub.table_states()
        tables = {}
        for t in self.cfg.tables:
            s = dict(states.get(t, {"state": "offline"}))
            p = self.progress[t]
            seated = start is not None and str(t) in start.get("seating", {})
            s.update(round=p.round, hands_started=p.started, hands_finished=p.finished,
                     in_hand=p.in_hand, seated=seated,
                     missing=bool(seated and ended and p.round == start["round"]
                                  and self.night.hands_per_round
                                  and p.finished < self.night.hands_per_round))
            tables[str(t)] = s
        refused = [e for e in hall_events if e["kind"] == "refused"][-50:]
        return {
            "night": self.cfg.night_id, "version": self.version, "at": self.clock(),
            "round": start["round"] if start else None, "round_over": ended,
            "rounds": self.night.rounds, "finished": self.finished,
            "seating": start.get("seating") if start else {},
            "sitting_out": start.get("sitting_out", []) if start else [],
            "clock": {"ends_at": start.get("ends_at") if start else None, "now": self.clock(),
                      "end_by": self.cfg.end_by, "hands": self.night.hands_per_round},
            "standings": self.night.standings_dict(self.standings),
            "tables": tables, "moves": self.moves, "refused": refused,
            "stats": dict(self.hub.stats),
        }

    # ------------------------------------------------------------------ rounds
    def _manage_rounds(self) -> None:
        if self.finished:
            return
        start, ended = self.current_round()
        now = self.clock()
        if start is None:
            self.start_round()
            return
        if not ended:
            self._resend_seating(start)
            by = self._round_complete(start, now)
            if by:
                self.end_round(start["round"], by=by)
            return
        # Ended: the next round after the pause, or the night is over.
        if self._round_over_at is None:
            self._round_over_at = now
        if not self.moves and start["round"] < self.night.rounds:
            self.moves = self._moves()        # a restarted hall works them out again
        self._resend_round_over(start)
        if start["round"] >= self.night.rounds:
            self.finished = True
            self._refold()
            return
        if now - self._round_over_at >= self.cfg.pause:
            self.start_round()

    def _round_complete(self, start: dict, now: float):
        """``"hands"`` when every seated table has played the round's hands, ``"clock"``
        when the round's time is up and no table has a hand in play (the hand already
        dealt is finished), else None. A night may set either or both."""
        if self.cfg.end_by == "director":
            return None
        tables = [int(t) for t in start.get("seating", {})]
        mine = [self.progress[t] for t in tables]
        n = self.night.hands_per_round
        if n and all(p.round == start["round"] and p.finished >= n for p in mine):
            return "hands"
        ends_at = start.get("ends_at")
        if ends_at is not None and now >= ends_at and \
                all(not (p.round == start["round"] and p.in_hand) for p in mine):
            return "clock"
        return None

    def start_round(self) -> Optional[dict]:
        """Plan and start the next round: a ``round_start`` hall event, and each seated
        table told its seating."""
        with self._lock:
            plan = self.night.plan_round(self.hall_events(), self.standings)
            if plan is None:
                self.finished = True
                return None
            event = dict(plan)
            event["kind"] = "round_start"
            if self.night.minutes and self.cfg.end_by != "director":
                event["ends_at"] = self.clock() + 60.0 * self.night.minutes
            event = self.store.append_hall(event, at=self.clock())
            self._round_over_at = None
            self.moves = {}
            self._next_plan = None
            self._sent_round = {}
            log.info("round %s starts at %d tables", event["round"], len(event.get("seating", {})))
        self._resend_seating(event)
        self._dirty.set()
        return event

    def _resend_seating(self, start: dict) -> None:
        """Tell every seated table its seating, again for a table that has not logged it
        (it was offline, or the command was lost with a broker)."""
        now = time.monotonic()
        for t, seating in start.get("seating", {}).items():
            t = int(t)
            if self.progress.get(t) is not None and self.progress[t].round == start["round"]:
                continue
            last = self._sent_round.get(t)
            if last is not None and last[0] == start["round"] and now - last[1] < 2.0:
                continue
            self._sent_round[t] = (start["round"], now)
            self.hub.send(t, {"cmd": "round", "round": start["round"], "seating": seating,
                              "hands": self.night.hands_per_round if self.cfg.end_by != "director" else None,
                              "ends_at": start.get("ends_at")})

    def _moves(self) -> dict:
        """Where each player goes next: ``{player: {"table", "seat"}}`` from the next
        round's plan (the movement is a pure function of the hall's events)."""
        moves = {}
        nxt = self.night.plan_round(self.hall_events(), self.standings)
        self._next_plan = nxt
        for t, seating in (nxt or {}).get("seating", {}).items():
            for seat, player in seating.items():
                moves[player] = {"table": int(t), "seat": seat}
        return moves

    def _resend_round_over(self, start: dict) -> None:
        """A table that was away when its round ended is told again (its status says
        whether it knows), at most every two seconds."""
        now = time.monotonic()
        states = self.hub.table_states()
        for t in start.get("seating", {}):
            st = states.get(int(t))
            if st is None or st["state"] == "offline" or st.get("round_over") or \
                    st.get("round") != start["round"]:
                continue
            last = self._sent_over.get(int(t), -1e9)
            if now - last >= 2.0:
                self._sent_over[int(t)] = now
                self.hub.send(int(t), {"cmd": "round_over", "round": start["round"],
                                       "next": self.moves})

    def end_round(self, round_no: int, by: str) -> None:
        """End the round: a ``round_end`` hall event; each table is told where its players
        go next (from the next round's plan)."""
        with self._lock:
            start, ended = self.current_round()
            if start is None or ended or start["round"] != round_no:
                return
            self.store.append_hall({"kind": "round_end", "round": round_no, "by": by},
                                   at=self.clock())
            self._refold()
            moves = self._moves() if round_no < self.night.rounds else {}
            self.moves = moves
            self._round_over_at = self.clock()
        self._sent_over = {int(t): time.monotonic() for t in start.get("seating", {})}
        log.info("round %s over (by %s)", round_no, by)
        for t in start.get("seating", {}):
            self.hub.send(int(t), {"cmd": "round_over", "round": round_no, "next": moves})
        self._dirty.set()

    # ------------------------------------------------------------------ the page's source
    def snapshot(self) -> dict:
        with self._lock:
            return self._snapshot

    async def changes(self):
        """Yields whenever the snapshot may have changed (for server-sent events)."""
        loop = asyncio.get_running_loop()
        ev = asyncio.Event()
        waiter = (loop, ev)
        self._waiters.add(waiter)
        try:
            while True:
                await ev.wait()
                ev.clear()
                yield self.snapshot()
        finally:
            self._waiters.discard(waiter)

    def _wake_waiters(self) -> None:
        for loop, ev in list(self._waiters):
            try:
                loop.call_soon_threadsafe(ev.set)
            except RuntimeError:        # that page's loop is closed
                self._waiters.discard((loop, ev))

    def director(self, pin: str, action: dict):
        """A director's action from the page: ``(ok, message)``. The night's module checks
        the PIN and makes the event; a refusal is a ``refused`` hall event too."""
        ok, message, event = self.night.director(pin, action, self.hall_events(), now=self.clock())
        if not ok:
            # The night's module says what was refused (a wrong PIN, an action that
            # cannot be); the refusal is a hall event for the director's view.
            name = action.get("action", action.get("kind")) if isinstance(action, dict) else None
            if event is None:
                event = {"kind": "refused", "what": f"director action {name}", "why": message}
            self.store.append_hall(event, at=self.clock())
            log.warning("refused a director action: %s", message)
            self._dirty.set()
            return False, message
        if event is not None:
            event = self.store.append_hall(event, at=self.clock())
            kind = event.get("kind")
            if kind == "message":
                targets = [event["table"]] if event.get("table") else self.cfg.tables
                for t in targets:
                    self.hub.send(int(t), {"cmd": "message", "text": event.get("text", "")})
            elif kind == "end_round":
                self.end_round(event.get("round"), by="director")
        self._dirty.set()
        return True, message


class ClubNight(NightAPI):
    """The night's format through the night's own modules: ``hall.night.Night``, the
    incremental fold ``hall.standings.Folder``, ``hall.movements.plan_round``, and when
    present ``hall.director`` and ``hall.web``."""

    def __init__(self, night):
        from hall.standings import Folder
        self.night = night
        self.rules = night.engine_rules
        self.hands_per_round = night.hands
        self.minutes = night.minutes
        self.rounds = night.rounds
        self._folder = Folder(night)

    def config(self) -> dict:
        return self.night.to_config()

    def fold(self, hall_events, tables):
        return self._folder.fold(hall_events, tables)

    def standings_dict(self, standings):
        return standings.to_dict()

    def plan_round(self, hall_events, standings):
        from hall.movements import MovementError, plan_round
        try:
            return plan_round(self.night, hall_events, standings)
        except MovementError as exc:
            log.warning("no next round: %s", exc)
            return None

    def director(self, pin, action, hall_events, now=None):
        from hall import director
        return director.act(self.night, pin, action, hall_events, now=now)

    def make_app(self, source):
        try:
            from hall.web import make_app
        except ImportError:
            return None
        return make_app(source)

    def snapshot(self, hall_events, standings, live, now, next_round, version):
        try:
            from hall.web import build_snapshot
        except ImportError:
            return None
        return build_snapshot(self.night, hall_events, standings, live=live, now=now,
                              next_round=next_round, version=version)


def load_night_api(cfg: HallConfig) -> NightAPI:
    """The night's format from the ``[night]`` section; HallError (one line) when it is
    wrong. The night's id is ``[hall] night`` (``[night] id`` may repeat it); a night
    needs no more tables than ``[hall] tables`` lists (left out: as many as it needs)."""
    try:
        from hall.night import Night, NightError
    except ImportError as exc:
        raise HallError(f"the night's format modules are not installed ({exc}): this hall "
                        "cannot score a night") from None
    section = dict(cfg.night)
    if section.get("id", cfg.night_id) != cfg.night_id:
        raise HallError(f"{cfg.source}: [night] id = {section['id']!r} but [hall] night = "
                        f"{cfg.night_id!r}: they name the same night; give one")
    section["id"] = cfg.night_id
    try:
        night = Night.from_config(section)
    except NightError as exc:
        raise HallError(f"{cfg.source}: [night] {exc}") from None
    if not cfg.tables:
        cfg.tables = list(range(1, night.tables + 1))
    elif night.tables > len(cfg.tables) or any(t not in cfg.tables for t in range(1, night.tables + 1)):
        raise HallError(f"{cfg.source}: the night seats tables 1-{night.tables} but [hall] tables "
                        f"lists {_table_list(cfg.tables)}; list them all (or leave tables out)")
    return ClubNight(night)


def _table_list(tables) -> str:
    return ", ".join(map(str, tables))
