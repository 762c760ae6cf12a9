"""The table's side of a club night: the [club] section, the hall's seating and messages shown and said, results keyed in on the bid panel (gpiozero MockFactory) at a table without a camera."""
import pytest

from controller.config import ConfigError, check_config
from controller.service import TableService
from hall.hub import Hub
from hall.store import Store
from hardware.inputs import DEFAULT_BUTTON_PINS, make_panel

from .conftest import wait_for

NIGHT = "club-t"


class Screen:
    def __init__(self):
        self.shown = []

    def show(self, status):
        self.shown.append(status)


class Speaker:
    def __init__(self):
        self.said = []

    def say(self, text, priority=False):
        self.said.append(text)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def club_cfg(tmp_path, port, panel=True, **club):
    data = {"table": {"state_dir": str(tmp_path), "first_dealer": "S"},
            "club": {"night": NIGHT, "table": 4, "port": port, "password": "pw4",
                     "keepalive": 2, "heartbeat": 1.0, "resend_after": 1.0,
                     "reconnect_max": 0.5, **club}}
    if panel:
        data["panel"] = {"bounce_time": 0.0}
    return check_config(data)


def test_the_club_section_is_checked_key_by_key(tmp_path):
    with pytest.raises(ConfigError, match=r"\[club\] table is missing"):
        check_config({"club": {"night": "n"}})
    with pytest.raises(ConfigError, match=r"\[club\] unknown key 'brokr'"):
        check_config({"club": {"night": "n", "table": 1, "brokr": "x"}})
    with pytest.raises(ConfigError, match=r"\[club\] table = 0"):
        check_config({"club": {"night": "n", "table": 0}})
    with pytest.raises(ConfigError, match=r"add a \[panel\] section"):
        check_config({"club": {"night": "n", "table": 1}})       # no camera, no panel
    cfg = check_config({"club": {"night": "n", "table": 2}, "panel": {}})
    assert cfg.club.entry == "panel" and cfg.club.client_id == "euchre-n-t2"
    cfg = check_config({"club": {"night": "n", "table": 2, "entry": "cards"}})
    assert cfg.club.entry == "cards"


def press(factory, button, clock):
    p = factory.pin(DEFAULT_BUTTON_PINS[button])
    p.drive_low()
    p.drive_high()
    clock.now += 1.0


def test_a_table_without_camera_keys_in_confirmed_results_that_reach_the_hall(tmp_path, broker, factory):
    store = Store(str(tmp_path / "hall.sqlite"))
    hub = Hub(store, NIGHT, port=broker.port, password="hallpw", keepalive=2).start()
    cfg = club_cfg(tmp_path, broker.port)
    clock = Clock()
    panel = make_panel(cfg.panel, pin_factory=factory, clock=clock)
    screen, speaker = Screen(), Speaker()
    svc = TableService(cfg, panel=panel, screen=screen, speaker=speaker, clock=clock, monotonic=clock)
    try:
        assert hub.connected.wait(10)
        assert wait_for(lambda: svc.club.link.connected.is_set())
        svc.step()
        assert svc.ctl.referee.state["phase"] == "no hand"    # no hand is dealt without camera
        seating = {"N": "Ann", "E": "Bob", "S": "Cy", "W": "Di"}
        hub.send(4, {"cmd": "round", "round": 1, "seating": seating, "hands": 4, "ends_at": None})
        assert wait_for(lambda: (svc.step(), svc.club.round.round == 1)[1])
        assert "Round 1, 4 hands: North Ann, East Bob, South Cy, West Di" in speaker.said
        assert screen.shown[-1].message.startswith("Round 1")
        # East named trump alone and took all five; West keys it in; North is asked to
        # confirm, but West's partner East presses first and is refused.
        for b in ("alone", "H", "order", "order", "hint", "C", "H"):
            press(factory, b, clock)
        svc.step()
        assert "East is the partner of the one who entered it: an opponent must confirm" \
            == svc.ctl.last_message
        press(factory, "S", clock)     # spades = North confirms
        svc.step()
        results = [r.to_dict() for r in svc.log.records() if r.event().get("type") == "result"]
        assert len(results) == 1
        r = results[0]
        assert (r["makers"], r["tricks"], r["alone"], r["entered_by"], r["confirmed_by"]) == \
            ("EW", 5, "E", "W", "N")
        assert screen.shown[-1].message == "Result: EW 5 tricks, East alone. Round score NS 0, EW 4"
        assert "Result: East and West 5 tricks, East alone. Round score North and South 0, " \
            "East and West 4" in speaker.said
        # The hall has the seating record and the result, in order.
        assert wait_for(lambda: store.contiguous(NIGHT, 4) == svc.log.last_seq)
        kinds = [x["type"] for x in store.records(NIGHT, 4)]
        assert kinds == ["club_round", "result"]
        assert wait_for(lambda: hub.table_states()[4]["hand"] == 1 and hub.table_states()[4]["round"] == 1)
        # Round over: where each player goes next, shown and said.
        hub.send(4, {"cmd": "round_over", "round": 1,
                     "next": {"Ann": {"table": 1, "seat": "N"}, "Bob": {"table": 4, "seat": "E"},
                              "Cy": {"table": 3, "seat": "W"}, "Di": {"table": 2, "seat": "S"}}})
        hub.send(4, {"cmd": "message", "text": "Coffee is served"})
        assert wait_for(lambda: (svc.step(), "Director: Coffee is served" in speaker.said)[1])
        assert screen.shown[-1].message == "Director: Coffee is served"
        assert any(s.startswith("Round 1 over") for s in speaker.said)
        over = next(s for s in svc.club.announced if s.startswith("Round 1 over"))
        assert "Ann: table 1, seat North" in over and "Cy: table 3, seat West" in over
        # The table's status may reach the hall after its records (and, on a loaded machine,
        # a missed keep-alive may drop the link for a moment): waited for, not read once.
        assert wait_for(lambda: hub.table_states()[4]["state"] == "live")
    finally:
        svc.close()
        hub.stop()


def test_a_club_table_with_cards_deals_only_in_a_round_the_hall_started(tmp_path, broker):
    cfg = club_cfg(tmp_path, broker.port, panel=False, entry="cards")
    store = Store(str(tmp_path / "hall.sqlite"))
    hub = Hub(store, NIGHT, port=broker.port, password="hallpw", keepalive=2).start()
    svc = TableService(cfg, clock=Clock(), monotonic=Clock())
    try:
        for _ in range(5):
            svc.step()
        assert svc.log.last_seq == 0                      # no round: no hand
        assert hub.connected.wait(10) and wait_for(lambda: svc.club.link.connected.is_set())
        hub.send(4, {"cmd": "round", "round": 1, "seating": {"N": "a", "E": "b", "S": "c", "W": "d"},
                     "hands": 1, "ends_at": None})
        assert wait_for(lambda: (svc.step(), svc.ctl.referee.state["phase"] == "deal")[1])
        kinds = [r.event()["type"] for r in svc.log.records()]
        assert kinds == ["club_round", "hand"]
        # A second copy of the seating (the hall resends it) is logged once.
        hub.send(4, {"cmd": "round", "round": 1, "seating": {"N": "a", "E": "b", "S": "c", "W": "d"},
                     "hands": 1, "ends_at": None})
        for _ in range(20):
            svc.step()
        assert [r.event()["type"] for r in svc.log.records()] == ["club_round", "hand"]
        assert wait_for(lambda: store.contiguous(NIGHT, 4) == 2)
    finally:
        svc.close()
        hub.stop()


def test_a_table_restarted_in_a_round_the_director_ends_deals_no_extra_hand(tmp_path, broker):
    """The round's terms are in the table's club_round record: restarted after the round's
    hands, the table waits for the director instead of dealing another."""
    cfg = club_cfg(tmp_path, broker.port, panel=False, entry="cards")
    store = Store(str(tmp_path / "hall.sqlite"))
    hub = Hub(store, NIGHT, port=broker.port, password="hallpw", keepalive=2).start()
    svc = TableService(cfg, clock=Clock(), monotonic=Clock())
    try:
        assert hub.connected.wait(10) and wait_for(lambda: svc.club.link.connected.is_set())
        hub.send(4, {"cmd": "round", "round": 1, "seating": {"N": "a", "E": "b", "S": "c", "W": "d"},
                     "hands": 1, "ends_at": None, "end_by": "director"})
        assert wait_for(lambda: (svc.step(), svc.ctl.referee.state["phase"] == "deal")[1])
        first = [r.to_dict() for r in svc.log.records()]
        assert [r["type"] for r in first] == ["club_round", "hand"]
        assert first[0]["hands"] == 1 and first[0]["end_by"] == "director"
    finally:
        svc.close()
    # The power goes off and on: the same state folder, no word from the hall since.
    again = TableService(cfg, clock=Clock(), monotonic=Clock())
    try:
        r = again.club.round
        assert (r.round, r.target, r.hands, r.end_by, r.over) == (1, 1, 1, "director", False)
        assert not again.club.wants_hand()
        before = again.log.last_seq
        for _ in range(20):
            again.step()
        assert [x.event()["type"] for x in again.log.records()][before:] == []
    finally:
        again.close()
        hub.stop()


def test_the_examples_are_valid():
    import tomllib
    from pathlib import Path

    from hall.broker import acl_text
    from hall.service import load_hall_config, load_night_api
    root = Path(__file__).resolve().parents[2] / "examples"
    cfg = load_hall_config(root / "hall.toml")
    assert cfg.night_id == "fri-2026-11-27" and cfg.tables == list(range(1, 11))
    assert load_night_api(cfg).rounds == 8
    # The [club] example, uncommented, is a valid section.
    text = (root / "table.toml").read_text()
    club = text[text.index("# [club]"):]
    section = "\n".join(line[2:] for line in club.splitlines() if line.startswith("# "))
    data = tomllib.loads(section)
    assert check_config({**data, "panel": {}}).club.table == 3
    # The broker's example ACL is the one the tests' brokers use.
    acl = [ln for ln in (root / "club-broker" / "club.acl").read_text().splitlines()
           if not ln.startswith("#")]
    assert "\n".join(acl) + "\n" == acl_text()
