"""Director actions as hall events: correct a hand, void a hand, move a player, credit a sit-out, end a round, send a message; each needs the director's PIN.

An action never edits what was stored: it becomes a new hall event carrying the
director's id and a reason, and the standings fold applies it. A wrong PIN, or an action
that cannot be, is refused with one clear line and recorded as a ``refused`` hall event.

>>> from hall.night import Night
>>> night = Night.from_config({"id": "n", "players": 8, "rounds": 2, "hands": 4,
...                            "directors": {"alice": "4821"}})
>>> started = [{"seq": 1, "kind": "round_start", "round": 1, "seating": {}, "sitting_out": []}]
>>> ok, msg, ev = act(night, "4821", {"action": "void_hand", "table": 2, "round": 1, "hand": 3,
...                                   "reason": "two nines of spades"}, started)
>>> ok, ev["kind"], ev["director"]
(True, 'void_hand', 'alice')
>>> act(night, "1111", {"action": "end_round", "round": 1, "reason": "time"}, started)[:2]
(False, 'Wrong director PIN: nothing was changed (the attempt is recorded)')
"""
from __future__ import annotations

import hmac
from typing import Optional

from hall.scoring import SEATS, ScoringError, outcome_of_result

ACTIONS = {
    "correct_hand": ("table", "round", "hand", "result"),
    "void_hand": ("table", "round", "hand"),
    "move_player": ("player", "round", "table", "seat"),
    "sit_out_credit": ("player", "round", "points"),
    "end_round": ("round",),
    "message": ("text",),
}
"""Each action and the fields it needs (besides ``reason``; ``message`` may name a ``table``)."""

MAX_WRONG_PINS = 5
LOCKOUT_SECONDS = 60.0


class ActionError(ValueError):
    """An action that cannot be taken; the message says what to fix."""


def check_pin(night, pin) -> Optional[str]:
    """The id of the director whose PIN this is, or None. Compared in constant time."""
    if not isinstance(pin, str):
        return None
    found = None
    for did, real in night.directors:
        if hmac.compare_digest(pin.encode(), real.encode()):
            found = did
    return found


def _locked(hall_events, now) -> bool:
    if now is None:
        return False
    recent = [e for e in hall_events or () if e.get("kind") == "refused"
              and e.get("why", "").startswith("Wrong director PIN")
              and isinstance(e.get("at"), (int, float)) and now - e["at"] < LOCKOUT_SECONDS]
    return len(recent) >= MAX_WRONG_PINS


def act(night, pin, action: dict, hall_events=(), now: Optional[float] = None) -> tuple:
    """``(ok, message, event)``: the hall event to append (the action, or a ``refused``
    event; None for ``{"action": "login"}``, which only checks the PIN), and one line for
    the director. ``action`` is ``{"action": NAME, ...fields,
    "reason": TEXT}``. ``now`` (the hall's clock, passed in) turns on the lock-out after
    five wrong PINs within a minute."""
    name = action.get("action") if isinstance(action, dict) else None
    what = f"director action {name}" if isinstance(name, str) else "director action"
    if _locked(hall_events, now):
        why = ("Too many wrong PINs in the last minute: wait a minute, then try again "
               "(the attempt is recorded)")
        return False, why, {"kind": "refused", "what": what, "why": why}
    director = check_pin(night, pin)
    if director is None:
        why = "Wrong director PIN: nothing was changed (the attempt is recorded)"
        return False, why, {"kind": "refused", "what": what, "why": why}
    if name == "login":
        return True, f"Signed in as {director}", None
    try:
        event = _validate(night, action, hall_events)
    except ActionError as exc:
        why = str(exc)
        return False, why, {"kind": "refused", "what": what, "why": why, "director": director}
    event["director"] = director
    return True, _done_words(event), event


def _validate(night, action, hall_events) -> dict:
    if not isinstance(action, dict):
        raise ActionError("An action is a JSON object with \"action\" and its fields")
    name = action.get("action")
    if name not in ACTIONS:
        raise ActionError(f"Unknown action {str(name)[:30]!r}: actions are " + ", ".join(ACTIONS))
    ev = {"kind": name}
    for f in ACTIONS[name]:
        if action.get(f) is None:
            raise ActionError(f"{name} needs {f}")
        ev[f] = action[f]
    reason = action.get("reason", "")
    if name != "message":
        if not isinstance(reason, str) or not reason.strip():
            raise ActionError(f"{name} needs a reason (a few words for the audit trail)")
        if len(reason) > 200:
            raise ActionError("the reason is at most 200 characters")
    ev["reason"] = str(reason).strip()
    started = {e["round"] for e in hall_events or () if e.get("kind") == "round_start"}
    if "round" in ev:
        r = ev["round"]
        if type(r) is not int or r not in started:
            raise ActionError(f"round {r!r} has not started (started: "
                              f"{', '.join(map(str, sorted(started))) or 'none'})")
    if "table" in ACTIONS[name] or (name == "message" and action.get("table") is not None):
        t = action.get("table")
        if type(t) is not int or not 1 <= t <= night.tables:
            raise ActionError(f"table is 1 to {night.tables}, not {t!r}")
        ev["table"] = t
    if name == "message":
        ev.setdefault("table", None)
        text = ev["text"]
        if not isinstance(text, str) or not text.strip() or len(text) > 200:
            raise ActionError("a message is 1 to 200 characters of text")
        ev["text"] = text.strip()
    if "hand" in ev and (type(ev["hand"]) is not int or not 1 <= ev["hand"] <= 60):
        raise ActionError(f"hand is its number within the round (1, 2, ...), not {ev['hand']!r}")
    if "result" in ev:
        res = ev["result"]
        if not isinstance(res, dict):
            raise ActionError("result is {\"makers\": \"NS\", \"tricks\": 3, \"alone\": null}")
        try:
            outcome_of_result(res)
        except ScoringError as exc:
            raise ActionError(f"result: {exc}") from None
        ev["result"] = {"makers": res["makers"], "tricks": res["tricks"],
                        "alone": res.get("alone")}
    if "player" in ev and ev["player"] not in night.players:
        raise ActionError(f"{str(ev['player'])[:40]!r} is not a player of this night")
    if "seat" in ev and ev["seat"] not in SEATS:
        raise ActionError(f"seat is N, E, S or W, not {ev['seat']!r}")
    if "points" in ev and (type(ev["points"]) is not int or not -50 <= ev["points"] <= 50):
        raise ActionError(f"points is a whole number from -50 to 50, not {ev['points']!r}")
    return ev


def _done_words(ev) -> str:
    k = ev["kind"]
    if k == "correct_hand":
        r = ev["result"]
        alone = f", {r['alone']} alone" if r.get("alone") else ""
        return (f"Round {ev['round']}, table {ev['table']}, hand {ev['hand']} corrected: "
                f"{r['makers']} made trump and took {r['tricks']}{alone}")
    if k == "void_hand":
        return f"Round {ev['round']}, table {ev['table']}, hand {ev['hand']} voided"
    if k == "move_player":
        return (f"{ev['player']} moved to table {ev['table']}, seat {ev['seat']} for round "
                f"{ev['round']}")
    if k == "sit_out_credit":
        return f"{ev['player']} credited {ev['points']} points for round {ev['round']}"
    if k == "end_round":
        return f"Round {ev['round']} ended by the director"
    return "Message sent" + (f" to table {ev['table']}" if ev.get("table") else " to every table")
