"""The hall service with virtual engine-only tables on a real mosquitto: rounds by hands, seating sent and logged, standings equal to an independent fold."""
import pytest

from controller.club import ClubConfig, VirtualClubTable
from hall.service import HallConfig, HallError, HallService, check_hall_config

from .conftest import wait_for
from .standin import StandInNight

NIGHT = "svc-night"


def hall_cfg(tmp_path, port, tables, **kw):
    return HallConfig(night_id=NIGHT, tables=list(range(1, tables + 1)),
                      store=str(tmp_path / "hall.sqlite"),
                      broker={"host": "127.0.0.1", "port": port, "username": "hall",
                              "password": "hallpw"}, pause=0.2, **kw)


def virtual_tables(tmp_path, port, n, rules):
    out = []
    for t in range(1, n + 1):
        cfg = ClubConfig(night=NIGHT, table=t, port=port, password=f"pw{t}", keepalive=5,
                         heartbeat=1.0, resend_after=1.0, reconnect_max=0.5)
        out.append(VirtualClubTable(cfg, tmp_path / "tables", rules, seed=t))
    return out


def test_a_progressive_night_runs_round_by_round(tmp_path, broker):
    from bench.club_chaos import fold_logs
    night = StandInNight(tables=3, rounds=2, hands_per_round=2)
    svc = HallService(hall_cfg(tmp_path, broker.port, 3), night).start()
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 3, night.rules)]
    try:
        assert wait_for(lambda: svc.finished, 60), svc.snapshot()
        expected = {t.club.cfg.table: t.log.last_seq for t in tables}
        assert wait_for(lambda: svc.hub.caught_up(expected), 10)
        svc._refold()
        logs = {t.club.cfg.table: [r.to_dict() for r in t.log.records()] for t in tables}
        for t in tables:
            rounds = [r["round"] for r in logs[t.club.cfg.table] if r.get("type") == "club_round"]
            assert rounds == [1, 2]
            assert any(a.startswith("Round 1 over. Next: ") for a in t.club.announced), t.club.announced
        assert svc.standings == fold_logs(night.rules, logs) == night.fold([], logs)
        snap = svc.snapshot()
        assert snap["round"] == 2 and snap["round_over"] and snap["finished"]
        assert [e["kind"] for e in svc.hall_events()] == ["night", "round_start", "round_end",
                                                          "round_start", "round_end"]
        # Where each player of table 1 goes next was said at the table.
        first = next(a for a in tables[0].club.announced if a.startswith("Round 1 over"))
        seat2 = night.seating(2)
        p = night.seating(1)["1"]["S"]
        dest = next((t, s) for t, st in seat2.items() for s, q in st.items() if q == p)
        assert f"{p}: table {dest[0]}, seat {'North East South West'.split()['NESW'.index(dest[1])]}" in first
    finally:
        for t in tables:
            t.stop()
        svc.close()


def test_the_director_ends_a_round_and_a_wrong_pin_is_refused(tmp_path, broker):
    night = StandInNight(tables=2, rounds=1, hands_per_round=50)
    cfg = hall_cfg(tmp_path, broker.port, 2, end_by="director")
    svc = HallService(cfg, night).start()
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 2, night.rules)]
    try:
        assert wait_for(lambda: all(t.club.round.round == 1 for t in tables), 20)
        ok, msg = svc.director("0000", {"action": "end_round", "round": 1, "reason": "time"})
        assert not ok and "PIN" in msg
        assert any(e["kind"] == "refused" and "PIN" in e["why"] for e in svc.hall_events())
        ok, msg = svc.director("1234", {"action": "message", "text": "Last hand, please", "table": None})
        assert ok
        assert wait_for(lambda: all("Director: Last hand, please" in t.club.announced for t in tables))
        ok, _ = svc.director("1234", {"action": "end_round", "round": 1, "reason": "time"})
        assert ok and wait_for(lambda: svc.finished, 10)
        assert [e["kind"] for e in svc.hall_events()][-2:] == ["end_round", "round_end"]
        assert wait_for(lambda: all(t.club.round.over for t in tables))
    finally:
        for t in tables:
            t.stop()
        svc.close()


def test_hall_config_errors_are_one_line_and_name_the_key():
    with pytest.raises(HallError, match=r"\[hall\] night is missing"):
        check_hall_config({"hall": {"tables": 3}})
    with pytest.raises(HallError, match=r"\[hall\] tables = 0"):
        check_hall_config({"hall": {"night": "n", "tables": 0}})
    with pytest.raises(HallError, match=r"unknown section \[hal\]"):
        check_hall_config({"hal": {}})
    with pytest.raises(HallError, match=r"\[hall\] end_by = 'bell'"):
        check_hall_config({"hall": {"night": "n", "tables": 2, "end_by": "bell"}})
    assert check_hall_config({"hall": {"night": "n", "tables": 2}}).end_by == "night"
    cfg = check_hall_config({"hall": {"night": "n", "tables": [3, 1]}, "broker": {"port": 1884}})
    assert cfg.tables == [1, 3] and cfg.broker["port"] == 1884


def test_a_table_away_when_its_round_ended_is_told_when_it_is_back(tmp_path, broker):
    from controller.club import ClubLink
    night = StandInNight(tables=2, rounds=2, hands_per_round=50)
    cfg = hall_cfg(tmp_path, broker.port, 2, end_by="director")
    cfg.pause = 3600.0
    svc = HallService(cfg, night).start()
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 2, night.rules)]
    try:
        assert wait_for(lambda: all(t.club.round.round == 1 for t in tables), 20)
        away = tables[1].club
        away.link.stop()                                   # table 2 loses its link
        assert wait_for(lambda: svc.hub.table_states()[2]["state"] == "offline")
        assert svc.director("1234", {"action": "end_round", "round": 1, "reason": "bell"})[0]
        assert wait_for(lambda: tables[0].club.round.over)
        assert not away.round.over
        away.link = ClubLink(away.cfg, tables[1].path, away.device).start()   # back
        assert wait_for(lambda: away.round.over, 15)
        said = next(a for a in away.announced if a.startswith("Round 1 over. Next: "))
        assert night.seating(1)["2"]["N"] + ": table 2, seat North" in said
    finally:
        for t in tables:
            t.stop()
        svc.close()


def test_the_hall_command_killed_mid_night_restarts_with_identical_standings(tmp_path, broker):
    """`euchre-table hall` in its own process with the night's real format, SIGKILLed in
    round 2 and started again: the night goes on, nothing is lost, and the standings from
    its store equal an independent fold of the tables' own logs."""
    import signal
    import subprocess
    import sys

    from controller.club_sim import fold_logs, points_of
    from hall.service import ClubNight, load_hall_config, load_night_api
    from hall.store import Store

    toml = tmp_path / "hall.toml"
    toml.write_text(f"""
[hall]
night = "{NIGHT}"
store = "{tmp_path / 'hall.sqlite'}"
pause = 0.3
[broker]
port = {broker.port}
password = "hallpw"
[web]
port = 0
[night]
players = 8
rounds = 3
hands = 3
movement = "rotation"
""")
    argv = [sys.executable, "-m", "controller.cli", "hall", "--config", str(toml)]
    hall = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cfg = load_hall_config(toml)
    night = load_night_api(cfg)
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 2, night.rules)]
    for t in tables:
        t.pace = 0.01
    store = None

    def hall_kinds():
        s = Store(str(tmp_path / "hall.sqlite"))
        try:
            return [(e["kind"], e.get("round")) for e in s.hall_events()]
        finally:
            s.close()
    try:
        assert wait_for(lambda: ("round_start", 2) in hall_kinds(), 60)
        hall.send_signal(signal.SIGKILL)
        hall.wait()
        hall = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert wait_for(lambda: ("round_end", 3) in hall_kinds(), 60), hall_kinds()
        expected = {t.club.cfg.table: t.log.last_seq for t in tables}

        def stored_all():
            # A store opened afresh: another process writes it.
            s = Store(str(tmp_path / "hall.sqlite"))
            try:
                return all(s.contiguous(NIGHT, t) >= n for t, n in expected.items())
            finally:
                s.close()
        assert wait_for(stored_all, 15)
        store = Store(str(tmp_path / "hall.sqlite"))
        hall.send_signal(signal.SIGTERM)
        # A clean stop: uvicorn (serving the page) re-raises the SIGTERM it handled.
        assert hall.wait(15) in (0, -signal.SIGTERM), hall.stderr.read().decode()
        kinds = [k for k, _ in hall_kinds()]
        assert kinds.count("round_start") == 3 and kinds.count("round_end") == 3
        logs = {t.club.cfg.table: [r.to_dict() for r in t.log.records()] for t in tables}
        hall_standings = ClubNight(night.night).fold(store.hall_events(), store.all_records(NIGHT))
        assert points_of(hall_standings.to_dict()) == fold_logs(night.rules, logs)
        for t in tables:
            assert [r["round"] for r in logs[t.club.cfg.table] if r.get("type") == "club_round"] == [1, 2, 3]
    finally:
        if hall.poll() is None:
            hall.kill()
            hall.wait()
        for t in tables:
            t.stop()
        if store is not None:
            store.close()


def test_director_actions_through_the_nights_own_module(tmp_path, broker):
    """The night's real director module: a wrong PIN is refused (and recorded), a message
    reaches the tables' screens and speakers, ending the round ends it."""
    from hall.service import load_night_api
    cfg = hall_cfg(tmp_path, broker.port, 2, end_by="director")
    cfg.night = {"players": 8, "rounds": 1, "hands": 8, "movement": "rotation",
                 "directors": {"alice": "4821"}}
    night = load_night_api(cfg)
    svc = HallService(cfg, night).start()
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 2, night.rules)]
    try:
        assert wait_for(lambda: all(t.club.round.round == 1 for t in tables), 20)
        ok, msg = svc.director("1111", {"action": "end_round", "round": 1, "reason": "time"})
        assert not ok and msg.startswith("Wrong director PIN")
        refused = [e for e in svc.hall_events() if e["kind"] == "refused"]
        assert refused and refused[-1]["why"].startswith("Wrong director PIN")
        ok, msg = svc.director("4821", {"action": "message", "text": "Last hand", "reason": "time"})
        assert ok, msg
        assert wait_for(lambda: all("Director: Last hand" in t.club.announced for t in tables))
        ok, msg = svc.director("4821", {"action": "end_round", "round": 1, "reason": "time"})
        assert ok, msg
        assert wait_for(lambda: svc.finished and all(t.club.round.over for t in tables), 15)
        ev = [e for e in svc.hall_events() if e["kind"] == "end_round"][-1]
        assert ev["director"] == "alice" and ev["reason"] == "time"
    finally:
        for t in tables:
            t.stop()
        svc.close()


def test_a_round_on_the_clock_ends_when_time_is_up_and_the_hand_dealt_is_finished(tmp_path, broker):
    night = StandInNight(tables=2, rounds=1, hands_per_round=None, minutes=0.05)   # 3 s
    svc = HallService(hall_cfg(tmp_path, broker.port, 2), night).start()
    tables = [t.start() for t in virtual_tables(tmp_path, broker.port, 2, night.rules)]
    for t in tables:
        t.pace = 0.02          # a hand takes about half a second
    try:
        assert wait_for(lambda: svc.finished, 30)
        end = [e for e in svc.hall_events() if e["kind"] == "round_end"]
        start = [e for e in svc.hall_events() if e["kind"] == "round_start"][0]
        assert end and end[0]["by"] == "clock" and end[0]["at"] >= start["ends_at"]
        # No hand was left half played when the round ended.
        assert all(not svc.progress[t].in_hand for t in (1, 2))
        assert all(svc.progress[t].finished >= 1 for t in (1, 2))
    finally:
        for t in tables:
            t.stop()
        svc.close()
