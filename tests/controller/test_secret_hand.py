"""The computer's hand stays secret: whole hands through the table service with fake cameras, watched for any leak.

The virtual table deals the Pi's cards face down through the reader window's camera. At
every step the test computes, from the *true* hand (not from the table's own notion of
what is hidden), the Pi's cards the people may not know yet: those not announced as
played, and its discard. It then checks that no overhead frame drew one face up, and that
nothing the table showed (every screen), said (every announcement) or wrote to its log (as
anyone reads it: ``read_events``, and the raw SQLite rows) names one before the hand ends.
"""
import json
import random
import sqlite3

import pytest

from controller.log import read_events
from controller.secrecy import Sealer, card_words, names_any
from engine import Rules
from engine.cards import Card
from vision.art import art_available

needs_art = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")


class Watch:
    """Screen and speaker for the service, and the checks of everything they get."""

    def __init__(self):
        self.table = None
        self.leaks, self.said, self.shown, self.checked_logs = [], [], [], 0
        self.discards = {}

    def secret(self) -> set:
        t = self.table
        if t is None or t.truth is None or t.truth.is_over:
            return set()
        secret = set()
        for seat in t.ctl.computers:
            secret |= set(t.truth.cards(seat))
            secret.discard(t.ctl.referee_expects(seat))
            if seat in self.discards:
                secret.add(self.discards[seat])
        secret.discard(t.truth.upcard)
        return secret

    def say(self, text, priority=False):
        self.said.append(text)
        if names_any(text, self.secret()):
            self.leaks.append(("said", text))

    def show(self, status):
        self.shown.append(status)
        for name, value in vars(status).items():
            if isinstance(value, str) and name != "upcard" and names_any(value, self.secret()):
                self.leaks.append(("shown", value))

    def check_log(self, path):
        """The log as anyone reads it, now."""
        secret = self.secret()
        self.checked_logs += 1
        if not secret:
            return
        # Only this hand's records: an earlier hand's plays name cards dealt again now.
        current = []
        for seq, event in read_events(path):
            if isinstance(event, dict) and event.get("type") == "hand":
                current = []
            current.append((seq, event))
        for seq, event in current:
            text = json.dumps({k: v for k, v in event.items() if k != "box"}, ensure_ascii=False) \
                if isinstance(event, dict) else str(event)
            if names_any(text, secret):
                self.leaks.append(("log", seq, text))
        first = current[0][0] if current else 0
        with sqlite3.connect(path) as db:      # the raw rows too, as a curious player would
            for seq, body in db.execute("SELECT seq, body FROM events WHERE seq >= ?", (first,)):
                obj = json.loads(body)
                obj.pop("box", None)
                if names_any(json.dumps(obj, ensure_ascii=False), secret):
                    self.leaks.append(("raw log", seq, body))


def play(tmp_path, seats=("W",), hands=2, seed=11):
    from controller.simulate import build_table
    watch = Watch()
    table, service = build_table(Rules.preset("standard"), random.Random(seed), tmp_path,
                                 computer_seats=seats, level="medium", people_level="medium",
                                 screen=watch, speaker=watch, budget=0.02, first_dealer="S")
    watch.table = table
    mirror = table._mirror
    log_path = str(tmp_path / "table-log.sqlite")
    hints = []

    def watched_mirror(event, verdict):
        mirror(event, verdict)
        if verdict.ok and isinstance(event, dict) and event.get("type") == "discard" \
                and event.get("seat") in service.ctl.computers and event.get("card"):
            watch.discards[event["seat"]] = Card(event["card"])
        if verdict.ok and isinstance(event, dict) and event.get("type") == "hand":
            watch.discards.clear()
    service.ctl.on_verdict = watched_mirror
    step = service.step

    def watched_step():
        step()
        watch.check_log(log_path)
        st = service.ctl.referee.state
        if st["to_act"] in service.ctl.computers and len(hints) < 3:
            # Someone presses HINT while the Pi is to play: nothing of its cards may show.
            service.on_panel(("hint",))
            hints.append(watch.shown[-1].message)
    service.step = watched_step
    records = [table.play_hand() for _ in range(hands)]
    return watch, table, service, records, hints


@needs_art
def test_whole_hands_never_show_the_computers_cards_before_they_are_played(tmp_path):
    watch, table, service, records, hints = play(tmp_path, hands=2)
    assert all(r.get("result") or r.get("status") for r in records)
    assert watch.checked_logs > 50 and len(watch.said) > 10 and len(watch.shown) > 10
    assert table.stats.face_up_secrets == 0
    assert watch.leaks == []
    assert hints and all(h == "No hint for the computer's seat" for h in hints)
    assert any("Cards for West" in s for s in watch.said)
    # The Pi's cards were read by the reader camera, one frame at a time, and sealed.
    raw = [json.loads(b) for (b,) in sqlite3.connect(str(tmp_path / "table-log.sqlite"))
           .execute("SELECT body FROM events")]
    sealed = [e for e in raw if e["type"] == "sealed"]
    assert len([e for e in sealed if e["kind"] == "dealt"]) == 10
    assert all(e["seat"] == "W" and "card" not in e for e in sealed)
    # The finished hands read whole without the key: the reveal opens them.
    dealt = [e for _, e in read_events(str(tmp_path / "table-log.sqlite")) if e["type"] == "dealt"]
    assert len(dealt) == 10 and all(e["seat"] == "W" for e in dealt)
    # The table's own key opens the sealed events too (a restart in mid-hand needs it).
    key = Sealer.for_state_dir(tmp_path)
    assert {key.open(e)["card"] for e in sealed[:5]} == {e["card"] for e in dealt[:5]}


@needs_art
def test_two_computer_seats_are_read_in_turn_by_one_reader(tmp_path):
    watch, table, service, records, hints = play(tmp_path, seats=("W", "E"), hands=1, seed=4)
    assert watch.leaks == [] and table.stats.face_up_secrets == 0
    calls = [s for s in watch.said if s.startswith("Cards for")]
    # South deals: West (on the dealer's left) first, then East.
    assert calls[:2] == ["Cards for West, face down on the reader",
                         "Cards for East, face down on the reader"]
    dealt = [e for _, e in read_events(str(tmp_path / "table-log.sqlite")) if e["type"] == "dealt"]
    assert [e["seat"] for e in dealt] == ["W"] * 5 + ["E"] * 5


def test_card_words_cover_every_form_the_table_uses():
    assert card_words("10H") == ["10H", "10♥", "ten of hearts", "TH", "T♥"]
    assert names_any("West plays the Jack of Hearts", [Card("JH")])
    assert names_any("Wrong card: expected J♥, not Q♠", [Card("JH")])
    assert not names_any("JHX and 10HZ", [Card("JH"), Card("10H")])
    assert not names_any("West discards: take the card from slot 3", [Card("JH")])


def test_a_redacted_reason_never_names_a_hidden_card(tmp_path):
    from controller.log import EventLog
    from controller.table import TableController
    from engine.bots import make_bot
    said = []

    class Speaker:
        def say(self, text, priority=False):
            said.append(text)
    log = EventLog(str(tmp_path / "log.sqlite"))
    ctl = TableController(Rules.preset("standard"), log, clock=lambda: 1000.0,
                          computers={"W": make_bot("medium", seed=1)}, speaker=Speaker(),
                          sealer=Sealer.for_state_dir(tmp_path))
    ctl.submit({"type": "hand", "dealer": "S"})
    for c in ["JH", "JD", "AH", "9C", "10S"]:
        ctl.submit({"type": "dealt", "seat": "W", "card": c})
    # A referee's reason that names one of West's cards (as a misread may): the safety
    # net turns it into a neutral line on the screen and aloud.
    ctl.announce("North cannot hold the A♥: it was dealt to West", priority=True)
    assert said[-1] == "Refused: the reason names a card kept secret until the hand ends"
    assert ctl.status().message == said[-1]
    ctl.announce("Cards for West: 5 of 5")
    assert said[-1] == "Cards for West: 5 of 5"
    # The director takes back the last card read: the screen does not name it.
    ctl.submit({"type": "undo", "by": "director"})
    assert ctl.status().message.startswith("Undone by the director: #") and \
        "read face down" in ctl.status().message
    assert Card("10S") not in ctl.computers["W"].slots and len(ctl.dealt_cards["W"]) == 4
    ctl.submit({"type": "dealt", "seat": "W", "card": "10S"})
    assert ctl.computers["W"].slots[Card("10S")] == 4
    # A card laid face up by mistake is seen by everyone: naming it hides nothing.
    ctl.exposed = lambda: {"AH"}
    ctl.announce("North cannot hold the A♥: it was dealt to West")
    assert said[-1] == "North cannot hold the ace of hearts: it was dealt to West"
    ctl.exposed = set
    # The log holds the dealt cards sealed only.
    assert all("card" not in r.event() for r in log.records() if r.event()["type"] == "sealed")
    assert not any('"AH"' in r.body for r in log.records())


def test_the_computers_discard_is_sealed_unsaid_and_revealed_when_the_hand_ends(tmp_path):
    from controller.log import EventLog
    from controller.table import TableController
    from engine.bots import make_bot
    said = []

    class Speaker:
        def say(self, text, priority=False):
            said.append(text)
    hand = ["9S", "10S", "9D", "10D", "9C"]     # a poor hand: West keeps the jack it picks up
    path = str(tmp_path / "log.sqlite")
    seal = Sealer.for_state_dir(tmp_path)

    def controller():
        return TableController(Rules.preset("standard"), EventLog(path), clock=lambda: 1000.0,
                               computers={"W": make_bot("medium", seed=1)}, speaker=Speaker(),
                               sealer=seal)
    ctl = controller()
    ctl.submit({"type": "hand", "dealer": "W"})
    for c in hand:
        ctl.submit({"type": "dealt", "seat": "W", "card": c})
    ctl.submit({"type": "upcard", "card": "JH"})
    ctl.submit({"type": "bid", "seat": "N", "bid": "order", "by": "panel"})
    # West, the dealer, took the jack and discarded from its rack, face down.
    discard = ctl._hidden_discards["W"]
    assert str(discard) in hand and discard in ctl.hidden_cards()
    assert any("lay it aside face down" in s for s in said)
    assert not any(names_any(s, [discard]) for s in said)
    rows = [r.event() for r in ctl.log.records()]
    assert [r["kind"] for r in rows if r["type"] == "sealed"] == ["dealt"] * 5 + ["discard"]
    assert not any(r.get("card") == str(discard) for r in rows)
    # The power fails right after the director voids the hand, before the reveal is written.
    ctl.log.append({"type": "void", "by": "director", "reason": "test"}, at=1001.0)
    ctl.log.close()
    again = controller()                      # the restart replays, then reveals the hand
    last = list(again.log.records())[-1].event()
    assert last["type"] == "reveal" and len(last["opened"]) == 6
    opened = {e["seq"]: e["event"] for e in last["opened"]}
    assert {"type": "discard", "seat": "W", "card": str(discard)} in opened.values()
    plain = [e for _, e in read_events(path)]
    assert not any(e["type"] in ("sealed", "reveal") for e in plain)
    assert sorted(e["card"] for e in plain if e["type"] == "dealt") == sorted(hand)


def test_the_sealing_key_file_and_other_tables_keys(tmp_path):
    import os
    from controller.secrecy import SealError
    key = Sealer.for_state_dir(tmp_path)
    path = tmp_path / "hand-seal.key"
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    sealed = key.seal({"type": "dealt", "seat": "W", "card": "QS"})
    assert Sealer.for_state_dir(tmp_path).open(sealed)["card"] == "QS"     # the same key again
    other = tmp_path / "other"
    with pytest.raises(SealError, match="does not open"):
        Sealer.for_state_dir(other).open(sealed)
    path.write_text("not hex\n")
    with pytest.raises(SealError, match="not a sealing key"):
        Sealer.for_state_dir(tmp_path)
