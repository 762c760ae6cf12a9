"""The hall's MQTT hub: takes in every table's events, stores them once, acknowledges them, asks for what is missing.

Why not trust the broker: MQTT QoS 1 with persistent sessions lost 7.5% of events when
mosquitto was killed (it keeps queued messages in memory; paho-mqtt queues offline
publishes in memory). The table's own durable log is the truth: every event carries the
table's ``seq``; the hub stores events unique on (night, table, seq), publishes a
retained acknowledgement per table (the highest contiguous seq stored), and on a gap (or
when a table's status says it has more) asks that table to "resend from N". The table
resends everything above the ack on every (re)connect. Duplicates are normal under
faults and dropped here.

Bad input is refused with one line in the hall's log and a ``refused`` hall event (for
the director's view), rate-limited so that a table that keeps resending cannot flood
either: an event from another night, a malformed message, a table claiming another
table's number, a second device reporting for a table, a seq already stored with
different contents. Nothing refused is stored; nothing valid is lost.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from hall import topics
from hall.store import Store

log = logging.getLogger("hall.hub")

GRACE = 0.5
"""Seconds a hole in a table's events may stay open before the hub asks for it."""

ACK_EVERY = 0.2
"""Seconds between two acknowledgements to one table (they are cumulative)."""

TAIL_GRACE = 5.0
"""Seconds a table's stored events may stay behind what its status says it has logged,
without moving, before the hub asks for the rest."""

BACKLOG = 50
"""Messages waiting in the hub's inbox above which it asks no table to resend: what is
missing may be among them, and a copy of everything would only deepen the backlog."""


@dataclass
class TableLink:
    """What the hub knows of one table's link."""

    table: int
    device: Optional[str] = None
    online: bool = False
    last_seen: float = 0.0          # the hub's clock, last message of any kind
    last_seq: int = 0               # as the table's status last said
    round: Optional[int] = None
    hand: Optional[int] = None
    score: Optional[dict] = None
    round_over: bool = False        # the table has been told its round is over
    devices: set = field(default_factory=set)   # every device seen claiming this table
    last_resend: float = -1e9
    resend_from: int = 0
    gap_at: Optional[int] = None     # the contiguous seq a hole was first seen above
    gap_since: float = 0.0
    received: int = 0
    acked: int = -1                 # the ack last published
    ack_at: float = -1e9            # when (monotonic)

    def state(self, now: float, stale_after: float) -> str:
        """``live``, ``stale`` (online by its status, silent for too long) or ``offline``."""
        if not self.online:
            return "offline"
        return "stale" if now - self.last_seen > stale_after else "live"


class Hub:
    """Subscribes to every table of ``night`` on the broker at ``host:port``.

    ``on_change(tables)`` is called (from the hub's thread) after events were stored or a
    table's link changed; ``resend=False`` turns the whole resend protocol off (for the
    test that shows a loss is caught)."""

    def __init__(self, store: Store, night: str, host: str = "127.0.0.1", port: int = 1883,
                 username: Optional[str] = topics.HALL_USER, password: Optional[str] = None,
                 client_id: Optional[str] = None, clock: Callable[[], float] = time.time,
                 on_change: Optional[Callable] = None, on_refused: Optional[Callable] = None,
                 resend: bool = True, resend_interval: float = 1.0, stale_after: float = 30.0,
                 keepalive: int = 10, tables: Optional[set] = None, refuse_every: float = 60.0):
        import paho.mqtt.client as mqtt
        self.store, self.night = store, topics.check_night(night)
        self.host, self.port = host, port
        self.clock = clock
        self.on_change, self.on_refused = on_change, on_refused
        self.resend_enabled = resend
        self.resend_interval = resend_interval
        self.stale_after = stale_after
        self.expected_tables = set(tables) if tables else None
        self.refuse_every = refuse_every
        self.links: dict = {}
        self.stats = {"messages": 0, "stored": 0, "duplicates": 0, "refused": 0,
                      "resend_requests": 0, "acks": 0, "connects": 0}
        self._refused_at: dict = {}
        self._ack_due: set = set()
        self._inbox: "queue.Queue" = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self.connected = threading.Event()
        self._subscribing = None        # the mid of the subscriptions sent at the last connection
        self._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                   client_id=client_id or f"hall-{night}",
                                   protocol=mqtt.MQTTv311, clean_session=False)
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_subscribe = self._on_subscribe
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.reconnect_delay_set(0.1, 2.0)
        self._client.max_queued_messages_set(0)
        self._keepalive = keepalive
        self._worker = threading.Thread(target=self._work, name="hall-hub", daemon=True)
        for t in self.store.tables(night):
            self._link(t)

    # ------------------------------------------------------------------ life
    def start(self) -> "Hub":
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive)
        self._client.loop_start()
        self._worker.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        try:
            self._client.disconnect()
        finally:
            self._client.loop_stop()
        if self._worker.is_alive():
            self._worker.join(5)

    # ------------------------------------------------------------------ paho callbacks (its thread)
    def _on_connect(self, client, userdata, flags, reason_code, properties=None):
        if reason_code.is_failure:
            log.error("the broker refused the hall: %s (check [broker] user and password)",
                      reason_code)
            return
        self.stats["connects"] += 1
        _, self._subscribing = client.subscribe([(f"{topics.PREFIX}/+/t/+/ev", topics.QOS),
                                                 (f"{topics.PREFIX}/+/t/+/status", topics.QOS)])
        # A broker that was restarted lost its retained acks: publish them all again.
        self._inbox.put(("reack", None, None, None))

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties=None):
        # Connected means the hall hears the tables: a table's event published after the
        # connection but before the broker took the subscription would not reach it.
        if mid == self._subscribing:
            self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None):
        self.connected.clear()

    def _on_message(self, client, userdata, msg):
        self._inbox.put(("msg", msg.topic, msg.payload, msg.retain))

    # ------------------------------------------------------------------ the hub's thread
    def _work(self) -> None:
        next_check = 0.0
        while not self._stop.is_set():
            try:
                first = self._inbox.get(timeout=0.1)
            except queue.Empty:
                first = None
            batch = [first] if first is not None else []
            while len(batch) < 2000:
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            try:
                if batch:
                    self._handle(batch)
                now = time.monotonic()
                if self._ack_due:
                    self._flush_acks()
                if now >= next_check:
                    next_check = now + 0.25
                    self._check_gaps()
            except Exception:  # the hub must keep taking events; say what broke
                log.exception("hall hub: error while handling messages")

    def _handle(self, batch) -> None:
        now = self.clock()
        items, changed = [], set()
        for kind, topic, payload, retained in batch:
            if kind == "reack":
                with self._lock:
                    for link in self.links.values():
                        link.acked, link.ack_at = -1, -1e9
                        changed.add(link.table)
                continue
            self.stats["messages"] += 1
            where = topics.parse_topic(topic)
            if where is None:
                self.refuse(f"message on {topic!r}", "not a club topic "
                            "(club/NIGHT/t/TABLE/ev or status)", key=("topic", topic))
                continue
            night, table, what = where
            if night != self.night:
                self.refuse(f"table {table} of night {night!r}",
                            f"unknown night: this hall runs night {self.night!r}; check the "
                            "table's [club] night", key=("night", night, table))
                continue
            if self.expected_tables is not None and table not in self.expected_tables:
                self.refuse(f"table {table}", "no such table tonight (tables are "
                            f"{_ranges(self.expected_tables)}); check the table's [club] table",
                            key=("table", table))
                continue
            if what == "status":
                if self._status(table, payload, retained, now):
                    changed.add(table)
                continue
            try:
                m = topics.parse_event_message(payload)
            except topics.MessageError as exc:
                self.refuse(f"a message from table {table}", str(exc), key=("bad", table, str(exc)))
                continue
            if m["table"] != table or m["night"] != night:
                self.refuse(f"table {table}'s topic",
                            f"the message claims night {m['night']!r} table {m['table']}: a table "
                            "may publish only as itself", key=("claim", table, m["table"]))
                continue
            link = self._link(table)
            first = self.store.device(self.night, table) or self._first_device(link, m["device"])
            if m["device"] != first:
                self._second_device(table, first, m["device"])
                continue
            link.last_seen = now
            link.received += 1
            items.append((table, m["seq"], m["at"], m["device"], m["event"]))
        if items:
            result = self.store.add_events(self.night, items, received=now)
            self.stats["stored"] += result["stored"]
            self.stats["duplicates"] += result["duplicates"]
            for table, seq, why in result["conflicts"]:
                self.refuse(f"table {table} seq {seq}", why, key=("conflict", table, seq))
            changed.update(t for t, *_ in items)
        # A table whose messages moved nothing may have missed its last ack: again, at
        # most once a second.
        self._ack(changed, dup_tables={t for t, *_ in items})
        if changed and self.on_change is not None:
            self.on_change(sorted(changed))

    def _first_device(self, link: TableLink, device: str) -> str:
        if link.device is None:
            link.device = device
        return link.device

    def _second_device(self, table: int, first: str, other: str) -> None:
        link = self._link(table)
        link.devices.update((first, other))
        if self.refuse(f"device {other!r} as table {table}",
                       f"table {table} already reports from device {first!r}: two devices claim "
                       f"one table number; set a different [club] table on one of them",
                       key=("device", table, other)):
            self.send(table, {"cmd": "message",
                              "text": f"Two devices claim table {table}: call the director"})

    def _status(self, table: int, payload: bytes, retained: bool, now: float) -> bool:
        try:
            s = topics.parse_json(payload, "status")
        except topics.MessageError as exc:
            self.refuse(f"table {table}'s status", str(exc), key=("status", table))
            return False
        link = self._link(table)
        device = s.get("device")
        if device is not None:
            first = self.store.device(self.night, table) or self._first_device(link, device)
            if device != first:
                self._second_device(table, first, device)
                return False
        if s.get("online") is False:
            changed = link.online
            link.online = False
            return changed
        link.online = True
        if not retained:
            link.last_seen = now
        elif link.last_seen == 0.0:
            link.last_seen = now
        last = s.get("last_seq")
        if isinstance(last, int) and not isinstance(last, bool):
            link.last_seq = max(link.last_seq, last)
        for key in ("round", "hand", "score", "round_over"):
            if key in s:
                setattr(link, key, s[key])
        return True

    def _link(self, table: int) -> TableLink:
        with self._lock:
            if table not in self.links:
                self.links[table] = TableLink(table)
            return self.links[table]

    # ------------------------------------------------------------------ acks and resends
    def _ack(self, tables, dup_tables=()) -> None:
        """Publish each table's acknowledgement when it moved, at most every ACK_EVERY
        seconds per table (it is cumulative: a later one says all an earlier one did, and
        some brokers write every retained message to disk), and again to a table that
        sends only copies of what is stored (it missed the last one)."""
        now = time.monotonic()
        for table in set(tables) | set(dup_tables):
            link = self._link(table)
            n = self.store.contiguous(self.night, table)
            again = table in dup_tables and n == link.acked and now - link.ack_at >= 1.0
            if (n != link.acked or again) and self.connected.is_set():
                if now - link.ack_at < ACK_EVERY and not again:
                    self._ack_due.add(table)        # published by the next check
                    continue
                self._client.publish(topics.ack_topic(self.night, table), topics.dumps({"seq": n}),
                                     qos=topics.QOS, retain=True)
                link.acked, link.ack_at = n, now
                self._ack_due.discard(table)
                self.stats["acks"] += 1
        if self.resend_enabled and self._inbox.qsize() < BACKLOG:
            self._ask_resends(tables)

    def _ask_resends(self, tables, force: bool = False) -> None:
        now = time.monotonic()
        for table in tables:
            link = self._link(table)
            have = self.store.contiguous(self.night, table)
            known = max(link.last_seq, self.store.max_seq(self.night, table))
            if known <= have or not self.connected.is_set():
                link.gap_at = None
                continue
            # A hole may be a message only overtaken (a redelivery, a resend after a
            # reconnect): ask once it has stayed open for GRACE seconds, then again every
            # resend_interval while it stays.
            if link.gap_at != have:
                link.gap_at, link.gap_since = have, now
            after = self.store.next_stored(self.night, table, have)
            # A hole (something stored above it) is asked for after GRACE. A missing tail
            # (only the table's status says there is more) is mostly in flight still;
            # the table resends it by itself when the ack stalls, so the hub asks only
            # when nothing has moved for TAIL_GRACE.
            if now - link.gap_since < (GRACE if after is not None else TAIL_GRACE):
                continue
            if link.resend_from == have + 1 and now - link.last_resend < self.resend_interval:
                continue
            link.resend_from, link.last_resend = have + 1, now
            command = {"cmd": "resend", "from": have + 1}
            if after is not None:
                command["to"] = after - 1          # just the hole; the rest is here
            self.send(table, command)
            self.stats["resend_requests"] += 1

    def _flush_acks(self) -> None:
        if self._ack_due:
            due, self._ack_due = set(self._ack_due), set()
            self._ack(due)

    def _check_gaps(self) -> None:
        # A gap seen while messages still wait in the inbox may be filled by them: ask
        # only when the hub has caught up with what it received.
        if self.resend_enabled and self._inbox.qsize() < BACKLOG:
            self._ask_resends(list(self.links))

    def send(self, table: int, command: dict) -> None:
        """Publish a command to one table (QoS 1, not retained)."""
        self._client.publish(topics.cmd_topic(self.night, table), topics.dumps(command),
                             qos=topics.QOS)

    # ------------------------------------------------------------------ refusals
    def refuse(self, what: str, why: str, key=None) -> bool:
        """Log one clear line and record a ``refused`` hall event, at most once per
        ``refuse_every`` seconds for the same key. True when it was recorded now."""
        self.stats["refused"] += 1
        key = key or (what, why)
        now = time.monotonic()
        last = self._refused_at.get(key)
        if last is not None and now - last < self.refuse_every:
            return False
        self._refused_at[key] = now
        log.warning("refused %s: %s", what, why)
        event = self.store.append_hall({"kind": "refused", "what": what, "why": why},
                                       at=self.clock())
        if self.on_refused is not None:
            self.on_refused(event)
        return True

    # ------------------------------------------------------------------ views
    def table_states(self) -> dict:
        """``{table: {"state", "device", "last_seq", "stored", "round", "hand", "score",
        "devices"}}`` for every table seen (or expected)."""
        now = self.clock()
        out = {}
        with self._lock:
            tables = set(self.links) | (self.expected_tables or set())
            for t in sorted(tables):
                link = self._link(t)
                out[t] = {"state": link.state(now, self.stale_after),
                          "online": link.online, "last_seen": link.last_seen or None,
                          "device": self.store.device(self.night, t) or link.device,
                          "last_seq": link.last_seq,
                          "stored": self.store.contiguous(self.night, t),
                          "round": link.round, "hand": link.hand, "score": link.score,
                          "round_over": link.round_over,
                          "devices": sorted(link.devices)}
        return out

    def caught_up(self, expected: dict) -> bool:
        """True when every table's stored contiguous seq reaches ``expected[table]``."""
        return all(self.store.contiguous(self.night, t) >= n for t, n in expected.items())


def _ranges(numbers) -> str:
    xs = sorted(numbers)
    if not xs:
        return "none"
    if xs == list(range(xs[0], xs[-1] + 1)):
        return f"{xs[0]}-{xs[-1]}" if len(xs) > 1 else str(xs[0])
    return ", ".join(map(str, xs))


__all__ = ["Hub", "TableLink"]
