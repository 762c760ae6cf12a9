"""Director actions: PIN, lock-out, validation, each a new event with the director's id."""
from __future__ import annotations

from hall.director import act
from hall.night import Night

NIGHT = Night.from_config({"id": "d", "players": 8, "rounds": 3, "hands": 4,
                           "directors": {"alice": "4821", "bob": "7000"}})
STARTED = [{"seq": 1, "at": 0.0, "kind": "round_start", "round": 1, "seating": {},
            "sitting_out": []}]


def test_each_pin_names_its_director_and_the_event_carries_id_and_reason():
    for pin, who in (("4821", "alice"), ("7000", "bob")):
        ok, msg, ev = act(NIGHT, pin, {"action": "correct_hand", "table": 1, "round": 1,
                                       "hand": 2, "result": {"makers": "EW", "tricks": 5,
                                                             "alone": "W"},
                                       "reason": "misread"}, STARTED)
        assert ok and ev["director"] == who and ev["reason"] == "misread"
        assert ev["result"] == {"makers": "EW", "tricks": 5, "alone": "W"}
        assert "hand 2 corrected" in msg


def test_a_wrong_pin_is_refused_recorded_and_changes_nothing():
    ok, msg, ev = act(NIGHT, "0000", {"action": "void_hand", "table": 1, "round": 1, "hand": 1,
                                      "reason": "x"}, STARTED)
    assert not ok and msg.startswith("Wrong director PIN")
    assert ev == {"kind": "refused", "what": "director action void_hand", "why": msg}


def test_five_wrong_pins_in_a_minute_lock_the_desk():
    hall = list(STARTED)
    for i in range(5):
        ok, msg, ev = act(NIGHT, "1234", {"action": "login"}, hall, now=100.0 + i)
        hall.append(dict(ev, seq=len(hall) + 1, at=100.0 + i))
    ok, msg, ev = act(NIGHT, "4821", {"action": "login"}, hall, now=110.0)
    assert not ok and "Too many wrong PINs" in msg and ev["kind"] == "refused"
    assert act(NIGHT, "4821", {"action": "login"}, hall, now=200.0)[:2] == \
        (True, "Signed in as alice")


def test_bad_actions_get_one_clear_line():
    cases = [({"action": "void_hand", "table": 1, "round": 1, "hand": 1}, "needs a reason"),
             ({"action": "void_hand", "table": 9, "round": 1, "hand": 1, "reason": "r"},
              "table is 1 to 2"),
             ({"action": "end_round", "round": 2, "reason": "r"}, "round 2 has not started"),
             ({"action": "move_player", "player": "Zed", "round": 1, "table": 1, "seat": "N",
               "reason": "r"}, "'Zed' is not a player"),
             ({"action": "correct_hand", "table": 1, "round": 1, "hand": 1,
               "result": {"makers": "NS", "tricks": 6}, "reason": "r"}, "tricks is"),
             ({"action": "correct_hand", "table": 1, "round": 1, "hand": 1,
               "result": {"makers": "NS", "tricks": 5, "alone": "E"}, "reason": "r"}, "alone is"),
             ({"action": "shuffle"}, "Unknown action 'shuffle'"),
             ({"action": "sit_out_credit", "player": "P1", "round": 1, "points": 99,
               "reason": "r"}, "points is")]
    for action, words in cases:
        ok, msg, ev = act(NIGHT, "4821", action, STARTED)
        assert not ok and words in msg and "\n" not in msg, (action, msg)
        assert ev["kind"] == "refused" and ev["director"] == "alice"


def test_a_message_goes_to_a_table_or_to_all():
    ok, msg, ev = act(NIGHT, "7000", {"action": "message", "text": "Last round!"}, STARTED)
    assert ok and ev["table"] is None and msg == "Message sent to every table"
    ok, msg, ev = act(NIGHT, "7000", {"action": "message", "text": "Hurry", "table": 2}, STARTED)
    assert ok and ev["table"] == 2
