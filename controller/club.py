"""The table's side of a club night: publishes its log to the hall over MQTT and shows and says what the hall sends.

The table never waits for the network. Its own durable log (``controller/log.py``) is
the truth: :class:`ClubLink` reads it through its own SQLite connection on its own
thread and publishes every record, with the table's ``seq``, at QoS 1 (MQTT 3.1.1,
paho-mqtt 2.x, a fixed client id per table). The hall acknowledges with a retained
``{"seq": n}`` (everything up to n is stored); the link resends everything above the ack
on every (re)connect, on the hall's "resend from N", and when the ack stops moving while
events are outstanding. Play goes on offline and catches up. A retained status with a
last will says whether the table is online, and its round, hand and score.

:class:`ClubTable` is the service's hook: it logs the hall's seating for a round as a
``club_round`` record, shows and says the hall's messages ("Round 2", "Round over",
"Next: table 4, seat East", a director's message) through the table's screen and
speaker, and logs a hand's ``result`` entered on the bid panel at a table without a
camera (see ``hardware.inputs.ResultComposer``).
"""
from __future__ import annotations

import json
import logging
import os
import queue
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from engine.cards import SEAT_NAMES, SEATS
from hall import topics

log = logging.getLogger("controller.club")

ENTRY_MODES = ("cards", "panel")


class ClubConfigError(ValueError):
    """A ``[club]`` section that cannot be used; the text names the key."""


@dataclass
class ClubConfig:
    """The ``[club]`` section of the table's configuration."""

    night: str
    table: int
    host: str = "127.0.0.1"
    port: int = 1883
    username: Optional[str] = None       # default: the table number (the broker's ACL)
    password: Optional[str] = None
    device: Optional[str] = None         # default: an id kept in the state folder
    entry: str = "cards"                 # cards (camera) or panel (results keyed in)
    keepalive: int = 10
    heartbeat: float = 10.0
    resend_after: float = 3.0
    reconnect_max: float = 5.0

    @property
    def client_id(self) -> str:
        return f"euchre-{self.night}-t{self.table}"

    @property
    def user(self) -> str:
        return self.username if self.username is not None else topics.table_user(self.table)


CLUB_KEYS = ("night", "table", "host", "port", "username", "password", "device", "entry",
             "keepalive", "heartbeat", "resend_after", "reconnect_max")


def check_club_config(section: dict, has_camera: bool = True) -> ClubConfig:
    """Check a ``[club]`` section; ClubConfigError names the key and what is right.

    >>> check_club_config({"night": "fri-12", "table": 3, "host": "hall.local"}).client_id
    'euchre-fri-12-t3'
    >>> check_club_config({"night": "fri 12", "table": 3})
    Traceback (most recent call last):
    ...
    controller.club.ClubConfigError: night = 'fri 12': use 1-64 letters, digits, '-' or '_' (the hall's night id)
    """
    for key in section:
        if key not in CLUB_KEYS:
            raise ClubConfigError(f"unknown key {key!r}; keys here are {', '.join(CLUB_KEYS)}")
    for key in ("night", "table"):
        if key not in section:
            raise ClubConfigError(f"{key} is missing: the hall's night id and this table's "
                                  "number turn the club link on")
    night = section["night"]
    if not isinstance(night, str) or not topics.NIGHT_ID.match(night):
        raise ClubConfigError(f"night = {night!r}: use 1-64 letters, digits, '-' or '_' "
                              "(the hall's night id)")
    table = section["table"]
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= topics.MAX_TABLE:
        raise ClubConfigError(f"table = {table!r}: this table's number, 1 to {topics.MAX_TABLE}")
    cfg = ClubConfig(night=night, table=table, entry="cards" if has_camera else "panel")
    for key in ("host", "username", "password", "device"):
        if key in section:
            if not isinstance(section[key], str) or not section[key]:
                raise ClubConfigError(f"{key} = {section[key]!r}: should be text")
            setattr(cfg, key, section[key])
    if "port" in section:
        p = section["port"]
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 65535:
            raise ClubConfigError(f"port = {p!r}: the broker's TCP port, e.g. 1883")
        cfg.port = p
    if "entry" in section:
        if section["entry"] not in ENTRY_MODES:
            raise ClubConfigError(f"entry = {section['entry']!r}: \"cards\" (the camera reads "
                                  "the hands) or \"panel\" (each hand's result keyed in)")
        cfg.entry = section["entry"]
    for key, low, high in (("keepalive", 2, 600), ("heartbeat", 0.5, 600),
                           ("resend_after", 0.2, 600), ("reconnect_max", 0.2, 600)):
        if key in section:
            v = section[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
                raise ClubConfigError(f"{key} = {v!r}: seconds, from {low} to {high}")
            setattr(cfg, key, int(v) if key == "keepalive" else float(v))
    return cfg


def device_id(state_dir, given: Optional[str] = None) -> str:
    """This device's id: ``given``, else one made once and kept in ``state_dir`` (so that
    a restarted table is still the same device, and a second device is told apart)."""
    if given:
        return given
    path = Path(state_dir) / "club-device-id"
    try:
        text = path.read_text().strip()
        if text:
            return text
    except OSError:
        pass
    text = f"{os.uname().nodename}-{uuid.uuid4().hex[:8]}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    return text


class ClubLink:
    """Publishes the table's log at ``log_path`` to the hall; never blocks the table.

    ``poke()`` after an append makes it publish at once (otherwise it looks every
    ``poll`` seconds). ``set_status(round=, hand=, score=)`` updates the retained status.
    Commands other than "resend" go to :attr:`commands` (a queue the service drains on
    its own thread). ``resend=False`` turns resending off (only for the test showing that
    a loss is caught without it).
    """

    def __init__(self, cfg: ClubConfig, log_path, device: str, clock: Callable[[], float] = time.time,
                 resend: bool = True, poll: float = 0.1, window: int = 100):
        import paho.mqtt.client as mqtt
        self.cfg, self.device, self.clock = cfg, device, clock
        self.resend_enabled = resend
        self.poll, self.window = poll, window
        self.log_path = str(log_path)
        self.commands: "queue.Queue[dict]" = queue.Queue()
        self.stats = {"published": 0, "resent": 0, "connects": 0, "rewinds": 0, "commands": 0}
        self.acked = 0
        self.next_seq = 1
        self.sent_upto = 0
        self.refused: Optional[str] = None
        self._ack_moved = time.monotonic()
        self._stall_after = cfg.resend_after
        self._rewind_at: Optional[float] = None    # after a (re)connect: rewind to the ack
        self._ack_since_connect = False
        self._resend_from: Optional[int] = None
        self._fills: list = []        # (from, to): holes the hall asked to have filled
        self._outstanding: set = set()
        self._status = {"round": None, "hand": None, "score": None, "round_over": False}
        self._status_dirty = True
        self._last_status = 0.0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.connected = threading.Event()
        self._subscribing = None        # the mid of the subscriptions sent at the last connection
        self._db: Optional[sqlite3.Connection] = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=cfg.client_id,
                        protocol=mqtt.MQTTv311, clean_session=False)
        c.username_pw_set(cfg.user, cfg.password)
        c.will_set(topics.status_topic(cfg.night, cfg.table),
                   topics.dumps({"online": False, "device": device}), qos=topics.QOS, retain=True)
        c.reconnect_delay_set(min(0.2, cfg.reconnect_max), cfg.reconnect_max)
        c.on_connect = self._on_connect
        c.on_subscribe = self._on_subscribe
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_publish = self._on_publish
        self._client = c
        self._thread = threading.Thread(target=self._run, name=f"club-t{cfg.table}", daemon=True)

    # ------------------------------------------------------------------ life
    def start(self) -> "ClubLink":
        self._client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._client.loop_start()
        self._thread.start()
        return self

    def stop(self, goodbye: bool = True) -> None:
        """Stop publishing; ``goodbye`` publishes the offline status first."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(5)
        try:
            if goodbye and self.connected.is_set():
                info = self._client.publish(topics.status_topic(self.cfg.night, self.cfg.table),
                                            topics.dumps({"online": False, "device": self.device}),
                                            qos=topics.QOS, retain=True)
                info.wait_for_publish(1.0)
            self._client.disconnect()
        except (RuntimeError, ValueError, OSError):
            pass
        self._client.loop_stop()
        if self._db is not None:
            self._db.close()

    def poke(self) -> None:
        """Something was appended: publish it now."""
        self._wake.set()

    def set_status(self, **fields) -> None:
        with self._lock:
            for k, v in fields.items():
                if self._status.get(k) != v:
                    self._status[k] = v
                    self._status_dirty = True
        self._wake.set()

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client, userdata, flags, reason_code, properties=None):
        if reason_code.is_failure:
            self.refused = (f"The hall's broker refused table {self.cfg.table}: {reason_code}. "
                            "Check [club] username and password")
            log.error("%s", self.refused)
            return
        self.refused = None
        self.stats["connects"] += 1
        t = self.cfg
        # The ack at QoS 0: it is retained (the latest comes at every subscribe) and
        # cumulative (a lost one is made good by the next, and the hall sends it again to
        # a table that sends only copies); at QoS 1 a broker may hold acks back for a
        # session that reconnects (nats-server redelivers only after its ack wait) and the
        # table would resend what the hall has long had.
        _, self._subscribing = client.subscribe([(topics.ack_topic(t.night, t.table), 0),
                                                 (topics.cmd_topic(t.night, t.table), topics.QOS)])
        with self._lock:
            self._outstanding.clear()
            self._status_dirty = True          # a broker restart fired the last will
            self._ack_since_connect = False
            self._rewind_at = time.monotonic() + 0.5
        self._wake.set()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties=None):
        # Connected means the table hears the hall: a command sent after the connection
        # but before the broker took the subscription would not reach it (a round started
        # then was never dealt: test_a_club_table_with_cards_deals_only_in_a_round_the_hall_started
        # failed once in make test).
        if mid == self._subscribing:
            self.connected.set()
            self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None):
        self.connected.clear()

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None):
        with self._lock:
            self._outstanding.discard(mid)
        self._wake.set()

    def _on_message(self, client, userdata, msg):
        kind = msg.topic.rsplit("/", 1)[-1]
        try:
            m = json.loads(msg.payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            log.warning("club: ignored a %s message that is not JSON: %r", kind, msg.payload[:60])
            return
        if not isinstance(m, dict):
            return
        if kind == "ack":
            n = m.get("seq")
            if isinstance(n, int) and not isinstance(n, bool):
                with self._lock:
                    self._ack_since_connect = True
                    if n > self.acked:
                        self.acked = n
                        self._ack_moved = time.monotonic()
                        self._stall_after = self.cfg.resend_after
                self._wake.set()
        elif kind == "cmd":
            self.stats["commands"] += 1
            if m.get("cmd") == "resend":
                n, upto = m.get("from"), m.get("to")
                if isinstance(n, int) and not isinstance(n, bool) and n >= 1:
                    with self._lock:
                        if isinstance(upto, int) and not isinstance(upto, bool) and upto >= n:
                            # A hole the hall knows the end of: fill just that.
                            self._fills.append((n, upto))
                        else:
                            self._resend_from = (n if self._resend_from is None
                                                 else min(n, self._resend_from))
                    self._wake.set()
            else:
                self.commands.put(m)

    # ------------------------------------------------------------------ the link's thread
    def _records(self, from_seq: int, limit: int) -> list:
        if self._db is None:
            self._db = sqlite3.connect(self.log_path, check_same_thread=False)
        return self._db.execute("SELECT seq, at, body FROM events WHERE seq >= ? ORDER BY seq "
                                "LIMIT ?", (from_seq, limit)).fetchall()

    def last_seq(self) -> int:
        if self._db is None:
            self._db = sqlite3.connect(self.log_path, check_same_thread=False)
        return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll)
            self._wake.clear()
            try:
                self._step()
            except sqlite3.Error as exc:
                # The table's log is busy or being replaced: try again at the next poll.
                log.warning("club: reading the table's log: %s", exc)
                if self._db is not None:
                    self._db.close()
                    self._db = None
            except Exception:
                log.exception("club: publishing failed; retrying")

    def _step(self) -> None:
        if not self.connected.is_set():
            return
        now = time.monotonic()
        with self._lock:
            if self.resend_enabled:
                if self._rewind_at is not None and (self._ack_since_connect or now >= self._rewind_at):
                    # Every (re)connect: everything above the hall's ack goes again.
                    self._rewind(self.acked + 1)
                    self._rewind_at = None
                if self._resend_from is not None:
                    self._rewind(self._resend_from)
                    self._resend_from = None
                if (self.sent_upto > self.acked and now - self._ack_moved > self._stall_after
                        and self._rewind_at is None):
                    # The ack stopped moving with events outstanding: they may have been lost
                    # on the way (a broker that died with them, a link that went silent).
                    # Each stall in a row waits twice as long: a hall that is only slow
                    # (a backlog) must not be buried under copies of what it is working on.
                    self._rewind(self.acked + 1)
                    self._ack_moved = now
                    self._stall_after = min(2 * self._stall_after, 60.0)
            else:
                self._rewind_at = None
                self._resend_from = None
                self._fills = []
            if self._rewind_at is not None:
                return       # waiting a moment for the retained ack after connecting
            room = self.window - len(self._outstanding)
            fills, budget = [], room
            while self._fills and budget > 0:
                a, b = self._fills.pop(0)
                a = max(a, self.acked + 1)
                b = min(b, self.next_seq - 1)      # beyond it goes out anyway
                if a > b:
                    continue
                take = min(b, a + budget - 1)
                fills.append((a, take))
                budget -= take - a + 1
                if take < b:
                    self._fills.insert(0, (take + 1, b))
        for a, b in fills:
            rows = self._records(a, b - a + 1)
            self._send(rows, now, fill=True)
            room -= len(rows)
        if room > 0:
            self._send(self._records(self.next_seq, room), now)
        if self._status_dirty or now - self._last_status >= self.cfg.heartbeat:
            self._publish_status(now)

    def _send(self, rows, now: float, fill: bool = False) -> None:
        t = self.cfg
        for seq, at, body in rows:
            try:
                ev = json.loads(body)
            except ValueError:
                ev = None
            record = ({**ev, "seq": seq, "at": at} if isinstance(ev, dict)
                      else {"seq": seq, "at": at, "raw": body})
            info = self._client.publish(topics.ev_topic(t.night, t.table),
                                        topics.event_message(t.night, t.table, self.device, record),
                                        qos=topics.QOS)
            with self._lock:
                if info.rc == 0:
                    self._outstanding.add(info.mid)
                if seq <= self.sent_upto:
                    self.stats["resent"] += 1
                else:
                    self.stats["published"] += 1
                    if self.sent_upto <= self.acked:
                        self._ack_moved = now
                    self.sent_upto = seq
                if not fill:
                    self.next_seq = seq + 1

    def _rewind(self, n: int) -> None:
        if n < self.next_seq:
            self.next_seq = max(1, n)
            self.stats["rewinds"] += 1

    def _publish_status(self, now: float) -> None:
        with self._lock:
            status = {"online": True, "device": self.device, "last_seq": self.last_seq(),
                      **self._status}
            self._status_dirty = False
        self._last_status = now
        self._client.publish(topics.status_topic(self.cfg.night, self.cfg.table),
                             topics.dumps(status), qos=topics.QOS, retain=True)


# ---------------------------------------------------------------------- the table's hook
@dataclass
class ClubRound:
    """The round the hall last seated this table for."""

    round: Optional[int] = None
    seating: dict = field(default_factory=dict)
    hands: int = 0                    # hands begun (or results entered) in this round
    target: Optional[int] = None      # hands the hall asked for (None: until told)
    ends_at: Optional[float] = None   # the round's clock (None: no clock)
    over: bool = False                # the hall said "round over"
    end_by: str = "night"             # "director": the round ends only when the director says


def club_round_of(records) -> ClubRound:
    """The current round from the table's log records (dicts, in seq order)."""
    cur = ClubRound()
    for r in records:
        kind = r.get("type")
        if kind == "club_round":
            # The round's terms are in its record, so a table restarted in the middle of
            # a round deals no more hands than the hall asked for.
            cur = ClubRound(r.get("round"), dict(r.get("seating") or {}), 0,
                            target=r.get("hands"), ends_at=r.get("ends_at"),
                            end_by=r.get("end_by") or "night")
        elif kind in ("hand", "result") and cur.round is not None:
            cur.hands += 1
    return cur


def result_points(result: dict) -> dict:
    """Standard Euchre points of a keyed-in result, for the table's own screen (the
    hall scores it with the night's house rules).

    >>> result_points({"makers": "NS", "tricks": 5, "alone": "N"})
    {'NS': 4, 'EW': 0}
    >>> result_points({"makers": "EW", "tricks": 2, "alone": None})
    {'NS': 2, 'EW': 0}
    """
    makers = result["makers"]
    other = "EW" if makers == "NS" else "NS"
    n = result["tricks"]
    if n < 3:
        pts = {makers: 0, other: 2}
    else:
        pts = {makers: (4 if result.get("alone") else 2) if n == 5 else 1, other: 0}
    return {"NS": pts["NS"], "EW": pts["EW"]}


class ClubTable:
    """The service's club hook: the link, the hall's commands shown and said, the
    round's seating logged, results keyed in at a table without a camera.

    ``ctl`` is the table's :class:`controller.table.TableController`; everything here runs
    on the service's own thread (``step()`` from its main loop)."""

    def __init__(self, cfg: ClubConfig, ctl, log_path, state_dir, link: Optional[ClubLink] = None,
                 clock: Callable[[], float] = time.time):
        self.cfg, self.ctl, self.clock = cfg, ctl, clock
        self.device = device_id(state_dir, cfg.device)
        self.link = link or ClubLink(cfg, log_path, self.device, clock=clock)
        self.round = club_round_of(r.to_dict() for r in ctl.log.records())
        self.score = {"NS": 0, "EW": 0}
        self.announced: list = []       # what the table showed and said (tests, the screen)
        self._refused_shown = None

    def start(self) -> "ClubTable":
        self.link.start()
        self._status()
        return self

    def stop(self) -> None:
        self.link.stop()

    # ------------------------------------------------------------------ each pass of the loop
    def step(self) -> None:
        """Drain the hall's commands; publish what was appended; keep the status fresh."""
        while True:
            try:
                cmd = self.link.commands.get_nowait()
            except queue.Empty:
                break
            self.on_command(cmd)
        if self.link.refused and self.link.refused != self._refused_shown:
            self._refused_shown = self.link.refused
            self._announce(self.link.refused)
        self._status()
        self.link.poke()

    def wants_hand(self) -> bool:
        """May a new hand start? Only in a round the hall started, not over, until its
        hands are played or its clock has run out; never at a table that keys results in
        (its players deal when the round is open: :meth:`round_open`)."""
        return self.cfg.entry == "cards" and self.round_open()

    def round_open(self) -> bool:
        """Is a round on, with hands still to play? A round the director ends is open for
        the hands the hall asked for (if it said); then the table waits for the director."""
        r = self.round
        if r.round is None or r.over:
            return False
        if r.ends_at is not None:
            return self.clock() < r.ends_at
        return r.target is None or r.hands < r.target

    def _status(self) -> None:
        st = self.ctl.referee.state
        score = st["score"] if self.cfg.entry == "cards" else self.score
        self.link.set_status(round=self.round.round, hand=self.round.hands, score=dict(score),
                             round_over=self.round.over)

    def note_event(self, event) -> None:
        """The service logged ``event``: count the round's hands."""
        if isinstance(event, dict) and event.get("type") in ("hand", "result") \
                and self.round.round is not None:
            self.round.hands += 1

    # ------------------------------------------------------------------ the hall's commands
    def on_command(self, cmd: dict) -> None:
        kind = cmd.get("cmd")
        if kind == "round":
            self._round(cmd)
        elif kind == "round_over":
            self._round_over(cmd)
        elif kind == "message":
            text = str(cmd.get("text") or "").strip()
            if text:
                self._announce(f"Director: {text}")
        else:
            log.warning("club: unknown command from the hall: %r", cmd)

    def _round(self, cmd: dict) -> None:
        r, seating = cmd.get("round"), cmd.get("seating")
        if not isinstance(r, int) or not isinstance(seating, dict):
            log.warning("club: a round command without round or seating: %r", cmd)
            return
        if self.round.round == r:
            # The hall sends it again to a table it has not heard log it: logged once.
            self.round.target = cmd.get("hands", self.round.target)
            self.round.ends_at = cmd.get("ends_at", self.round.ends_at)
            return
        # The round's terms (its hands, its clock, who ends it) go into the record too, so
        # that a table restarted in the middle of the round knows them from its log.
        end_by = "director" if cmd.get("end_by") == "director" else "night"
        self.log_event({"type": "club_round", "night": self.cfg.night, "round": r,
                        "table": self.cfg.table,
                        "seating": {s: seating.get(s) for s in SEATS if s in seating},
                        "hands": cmd.get("hands"), "ends_at": cmd.get("ends_at"),
                        "end_by": end_by})
        self.round = ClubRound(r, dict(seating), 0, target=cmd.get("hands"),
                               ends_at=cmd.get("ends_at"), end_by=end_by)
        self.score = {"NS": 0, "EW": 0}
        who = ", ".join(f"{SEAT_NAMES[s]} {seating[s]}" for s in SEATS if seating.get(s))
        hands = cmd.get("hands")
        self._announce(f"Round {r}" + (f", {hands} hands" if hands else "") + f": {who}")

    def _round_over(self, cmd: dict) -> None:
        r = cmd.get("round")
        if r == self.round.round:
            self.round.over = True
        moves = cmd.get("next") or {}
        lines = []
        for seat in SEATS:
            player = self.round.seating.get(seat)
            dest = moves.get(player) if player is not None else None
            if isinstance(dest, dict) and dest.get("table") is not None:
                where = SEAT_NAMES.get(dest.get("seat"), dest.get("seat"))
                lines.append(f"{player}: table {dest['table']}, seat {where}")
        text = f"Round {r} over." + (" Next: " + "; ".join(lines) if lines else "")
        self._announce(text)

    def _announce(self, text: str) -> None:
        self.announced.append(text)
        self.ctl.last_message = text
        self.ctl._say(text, priority=True)
        self.ctl._show()

    # ------------------------------------------------------------------ logging club records
    def log_event(self, event: dict) -> None:
        """Append a club record to the table's log. It does not go through the referee
        (it is not a card event); the publisher sends it like any other record."""
        self.ctl.log.append(event, at=self.clock())
        self.link.poke()

    def log_result(self, result: dict) -> None:
        """A hand's result keyed in and confirmed by an opponent (a table without camera)."""
        event = {"type": "result", **result}
        self.log_event(event)
        self.note_event(event)
        pts = result_points(result)
        for t in ("NS", "EW"):
            self.score[t] += pts[t]
        alone = f", {SEAT_NAMES[result['alone']]} alone" if result.get("alone") else ""
        self._announce(f"Result: {result['makers']} {result['tricks']} tricks{alone}. "
                       f"Round score NS {self.score['NS']}, EW {self.score['EW']}")


# ---------------------------------------------------------------------- engine-only tables
def hand_events(rules, dealer: str, rng) -> list:
    """The table events of one hand of random legal play through the engine, as a table
    whose camera reads every card would log them (no seat's cards known in advance): for
    engine-only virtual tables (``simulate --club``, the chaos benchmark).

    >>> import random
    >>> from engine import Rules
    >>> evs = hand_events(Rules.preset("standard"), "S", random.Random(1))
    >>> evs[0], evs[1]["type"]
    ({'type': 'hand', 'dealer': 'S'}, 'upcard')
    """
    from engine import Hand
    hand = Hand.deal(rules, dealer=dealer, rng=rng)
    events = [{"type": "hand", "dealer": dealer}, {"type": "upcard", "card": str(hand.upcard)}]
    while not hand.is_over:
        seat = hand.to_act
        action = rng.choice(hand.legal_actions())
        tricks = len(hand.tricks)
        hand.apply(action)
        if action.kind == "play":
            events.append({"type": "play", "seat": seat, "card": str(action.card)})
            if len(hand.tricks) > tricks:
                events.append({"type": "collect"})
        elif action.kind == "discard":
            events.append({"type": "discard", "seat": seat})
        else:
            events.append({"type": "bid", "seat": seat, "bid": str(action)})
    return events


def next_dealer(dealer: str) -> str:
    return SEATS[(SEATS.index(dealer) + 1) % 4]


class VirtualClubTable:
    """An engine-only table at a club night (``simulate --club``): random legal hands
    through the table controller and its durable log, the real publisher, the hall's
    commands handled by :class:`ClubTable`. It plays the hands each round asks for (or
    until the round's clock or "round over"), then waits for the next seating."""

    def __init__(self, cfg: ClubConfig, folder, rules, seed: int, pace: float = 0.0,
                 clock: Callable[[], float] = time.time, keyed: bool = False):
        import random
        from controller.log import EventLog
        from controller.table import TableController
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"table-{cfg.table}.sqlite"
        self.log = EventLog(str(self.path))
        self.ctl = TableController(rules, self.log, clock=clock)
        self.club = ClubTable(cfg, self.ctl, self.path, folder / f"table-{cfg.table}", clock=clock)
        self.rules, self.pace, self.clock = rules, pace, clock
        self.rng = random.Random(seed)
        self.keyed = keyed      # a table without camera: each hand's result keyed in
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, name=f"table-{cfg.table}", daemon=True)

    def start(self) -> "VirtualClubTable":
        self.club.start()
        self.thread.start()
        return self

    def wants_hand(self) -> bool:
        return self.club.round_open()

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.club.step()
            if not self.wants_hand():
                self.stop_event.wait(0.05)
                continue
            if self.keyed:
                self._keyed_hand()
                continue
            nxt = self.ctl.next_hand_event()
            dealer = nxt["dealer"] if nxt else self.rng.choice(SEATS)
            for ev in hand_events(self.rules, dealer, self.rng):
                self.ctl.submit(ev)
                self.club.note_event(ev)
                self.club.link.poke()
                if self.pace:
                    self.stop_event.wait(self.pace)

    def _keyed_hand(self) -> None:
        """The players play a hand with real cards the table cannot see, then key its
        result in; an opponent confirms (as on the bid panel, ``ResultComposer``)."""
        from engine import Hand
        hand = Hand.deal(self.rules, dealer=self.rng.choice(SEATS), rng=self.rng)
        while not hand.is_over:
            hand.apply(self.rng.choice(hand.legal_actions()))
        r = hand.result
        if r.thrown_in:
            return
        entered = self.rng.choice(SEATS)
        other = [s for s in SEATS if (s in "NS") != (entered in "NS")]
        self.club.log_result({"makers": r.makers, "tricks": r.tricks[r.makers], "alone": r.alone,
                              "entered_by": entered, "confirmed_by": self.rng.choice(other)})
        if self.pace:
            self.stop_event.wait(self.pace * 30)

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(10)
        self.club.stop()
        self.log.close()
