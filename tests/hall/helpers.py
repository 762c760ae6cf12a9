"""Random club nights for the hall's tests: tables that play real hands through the engine, and a fake source for the page."""
from __future__ import annotations

import asyncio
import random
import socket
import threading
import time

from engine import Hand, Rules
from hall import director as director_mod
from hall.movements import plan_round
from hall.night import Night
from hall.standings import Folder
from hall.web import build_snapshot

SEATS = ("N", "E", "S", "W")
LEFT = {"N": "E", "E": "S", "S": "W", "W": "N"}


def play_hand(rng: random.Random, rules: Rules, dealer: str):
    """One hand played by random legal actions: (table events, the engine's result)."""
    hand = Hand.deal(rules, dealer=dealer, seed=rng.randrange(10 ** 9))
    events = [{"type": "hand", "dealer": dealer}, {"type": "upcard", "card": str(hand.upcard)}]
    tricks_done = 0
    while hand.to_act is not None:
        seat = hand.to_act
        action = rng.choice(hand.legal_actions())
        hand.apply(action)
        text = str(action)
        if text.startswith("play "):
            events.append({"type": "play", "seat": seat, "card": text[5:]})
            if len(hand.tricks) > tricks_done:
                tricks_done = len(hand.tricks)
                events.append({"type": "collect"})
        elif text.startswith("discard"):
            events.append({"type": "discard", "seat": seat})
        else:
            events.append({"type": "bid", "seat": seat, "bid": text})
    return events, hand.result


class NightRun:
    """A night played out: hall events, each table's records, and what really happened
    (per round and table: the seating and each counted hand's engine result)."""

    def __init__(self, night: Night, seed: int = 0, rounds=None, cameraless=(), extra_hands=0):
        self.night, self.rng = night, random.Random(seed)
        self.hall, self.tables, self.truth = [], {}, []
        self.rules = night.engine_rules
        self.cameraless = set(cameraless)
        self._hall({"kind": "night", "night": night.id, "config": night.to_config()})
        self.folder = Folder(night)
        self.dealer = {t: "N" for t in range(1, night.tables + 1)}
        for _ in range(night.rounds if rounds is None else rounds):
            self.play_round(extra_hands)

    def _hall(self, ev):
        ev = dict(ev, seq=len(self.hall) + 1, at=1000.0 + len(self.hall))
        self.hall.append(ev)
        return ev

    def _table(self, t, ev):
        recs = self.tables.setdefault(t, [])
        recs.append(dict(ev, seq=len(recs) + 1, at=1000.0 + len(recs)))

    def standings(self):
        return self.folder.fold(self.hall, self.tables)

    def play_round(self, extra_hands=0):
        rs = plan_round(self.night, self.hall, self.standings())
        rs.pop("kind")
        ev = self._hall(dict(rs, kind="round_start"))
        r = ev["round"]
        for ts, seating in ev["seating"].items():
            t = int(ts)
            self._table(t, {"type": "club_round", "night": self.night.id, "round": r,
                            "table": t, "seating": seating})
            results = []
            n = (self.night.hands or 3) + extra_hands
            for _ in range(n):
                events, res = play_hand(self.rng, self.rules, self.dealer[t])
                self.dealer[t] = LEFT[self.dealer[t]]
                if t in self.cameraless:
                    if res.thrown_in:
                        continue
                    self._table(t, {"type": "result", "makers": res.makers,
                                    "tricks": res.tricks[res.makers], "alone": res.alone,
                                    "entered_by": "N", "confirmed_by": "E"})
                else:
                    for e in events:
                        self._table(t, e)
                results.append(res)
            self.truth.append((r, t, dict(seating), results))
        self._hall({"kind": "round_end", "round": r, "by": "hands"})
        return r


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeSource:
    """The page's source in tests: a night's state that the test changes at will."""

    def __init__(self, night: Night, hall=None, tables=None, live=None, now=None):
        self.night = night
        self.hall = list(hall or [])
        self.tables = dict(tables or {})
        self.live = dict(live or {})
        self.now = now if now is not None else 2000.0
        self.next_round = None
        self.folder = Folder(night)
        self.version = 0
        self._queues = []
        self._lock = threading.Lock()
        self._snap = None

    def snapshot(self):
        with self._lock:
            if self._snap is None:
                st = self.folder.fold(self.hall, self.tables)
                self._snap = build_snapshot(self.night, self.hall, st, self.live, self.now,
                                            self.next_round, self.version)
            return self._snap

    async def _changes(self, q):
        while True:
            yield await q.get()

    def changes(self):
        loop = asyncio.get_running_loop()
        q = asyncio.Queue()
        with self._lock:
            self._queues.append((loop, q))
        return self._changes(q)

    def changed(self):
        with self._lock:
            self.version += 1
            self._snap = None
            for loop, q in self._queues:
                try:
                    loop.call_soon_threadsafe(q.put_nowait, self.version)
                except RuntimeError:
                    pass

    def add_hall(self, ev):
        self.hall.append(dict(ev, seq=len(self.hall) + 1, at=self.now))
        self.changed()

    def director(self, pin, action):
        ok, msg, ev = director_mod.act(self.night, pin, action, self.hall, self.now)
        if ev is not None:
            self.add_hall(ev)
        return ok, msg


class Server:
    """uvicorn serving an app on a loopback port, in a thread."""

    def __init__(self, app, port=None):
        import uvicorn
        self.port = port or free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="critical",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 10
        while not self.server.started and time.time() < deadline:
            time.sleep(0.02)
        if not self.server.started:
            raise RuntimeError("the test server did not start")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)
