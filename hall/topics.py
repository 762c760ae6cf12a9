"""MQTT topic names and message payloads shared by the tables and the hall (MQTT 3.1.1, QoS 1).

Topics, for night NIGHT and table number T:

- ``club/NIGHT/t/T/ev``      table -> hall: one log record per message
- ``club/NIGHT/t/T/status``  table -> hall, retained, last will ``{"online": false}``
- ``club/NIGHT/t/T/ack``     hall -> table, retained: ``{"seq": n}``, highest contiguous seq stored
- ``club/NIGHT/t/T/cmd``     hall -> table: resend, round, round_over, message

>>> ev_topic("fri-night", 3)
'club/fri-night/t/3/ev'
>>> parse_topic("club/fri-night/t/3/ev")
('fri-night', 3, 'ev')
>>> parse_topic("club/fri-night/t/three/ev") is None
True
"""
from __future__ import annotations

import json
import re
from typing import Optional

PREFIX = "club"
QOS = 1
NIGHT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""A night id: letters, digits, '-' and '_' (no '/', '+', '#' or '.', which MQTT and
nats-server's subject mapping give meanings to)."""
KINDS = ("ev", "status", "ack", "cmd")
HALL_USER = "hall"
MAX_TABLE = 999


class MessageError(ValueError):
    """A message that cannot be used; the text says what was wrong."""


def check_night(night) -> str:
    if not isinstance(night, str) or not NIGHT_ID.match(night):
        raise MessageError(f"night id {night!r}: use 1-64 letters, digits, '-' or '_'")
    return night


def check_table(table) -> int:
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= MAX_TABLE:
        raise MessageError(f"table number {table!r}: a whole number from 1 to {MAX_TABLE}")
    return table


def topic(night: str, table: int, kind: str) -> str:
    return f"{PREFIX}/{night}/t/{table}/{kind}"


def ev_topic(night: str, table: int) -> str:
    return topic(night, table, "ev")


def status_topic(night: str, table: int) -> str:
    return topic(night, table, "status")


def ack_topic(night: str, table: int) -> str:
    return topic(night, table, "ack")


def cmd_topic(night: str, table: int) -> str:
    return topic(night, table, "cmd")


def table_user(table: int) -> str:
    """The broker user name of a table: its number, so that the ACL pattern
    ``club/+/t/%u/...`` lets a table write under its own number only."""
    return str(table)


def parse_topic(name: str) -> Optional[tuple]:
    """``(night, table, kind)`` of a club topic, or None when it is not one."""
    parts = name.split("/")
    if len(parts) != 5 or parts[0] != PREFIX or parts[2] != "t" or parts[4] not in KINDS:
        return None
    if not NIGHT_ID.match(parts[1]) or not parts[3].isdigit() or parts[3].startswith("0"):
        return None
    table = int(parts[3])
    if not 1 <= table <= MAX_TABLE:
        return None
    return parts[1], table, parts[4]


def dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def event_message(night: str, table: int, device: str, record: dict) -> bytes:
    """One log record (``Record.to_dict()``) as the payload of ``club/NIGHT/t/T/ev``.

    >>> event_message("n1", 2, "pi-7", {"type": "collect", "seq": 5, "at": 1.5})
    b'{"at":1.5,"device":"pi-7","event":{"type":"collect"},"night":"n1","seq":5,"table":2}'
    """
    event = {k: v for k, v in record.items() if k not in ("seq", "at")}
    return dumps({"night": night, "table": table, "device": device, "seq": record["seq"],
                  "at": record["at"], "event": event})


def parse_json(payload: bytes, what: str) -> dict:
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"{what} is not JSON ({type(exc).__name__}): "
                           f"{payload[:60]!r}") from None
    if not isinstance(obj, dict):
        raise MessageError(f"{what} is not a JSON object: {payload[:60]!r}")
    return obj


def parse_event_message(payload: bytes) -> dict:
    """The fields of an event message, checked; MessageError says what is wrong.

    >>> parse_event_message(b'{"night":"n1","table":2,"device":"d","seq":0,"at":1,"event":{}}')
    Traceback (most recent call last):
    ...
    hall.topics.MessageError: event message: seq 0 should be a whole number from 1 up
    """
    m = parse_json(payload, "event message")
    for key in ("night", "table", "device", "seq", "at", "event"):
        if key not in m:
            raise MessageError(f"event message: no {key!r} field (fields are night, table, "
                               "device, seq, at, event)")
    try:
        check_night(m["night"])
        check_table(m["table"])
    except MessageError as exc:
        raise MessageError(f"event message: {exc}") from None
    seq = m["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise MessageError(f"event message: seq {seq!r} should be a whole number from 1 up")
    if isinstance(m["at"], bool) or not isinstance(m["at"], (int, float)):
        raise MessageError(f"event message: at {m['at']!r} should be a time in seconds")
    if not isinstance(m["event"], dict):
        raise MessageError(f"event message: event should be a JSON object, not {m['event']!r:.40}")
    if not isinstance(m["device"], str) or not m["device"]:
        raise MessageError(f"event message: device {m['device']!r} should be the device's id")
    return m


def record_of(message: dict) -> dict:
    """The table's log record (``Record.to_dict()`` form) carried by an event message."""
    return {**message["event"], "seq": message["seq"], "at": message["at"]}
