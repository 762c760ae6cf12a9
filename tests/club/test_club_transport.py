"""The club link end to end on a real mosquitto: publisher, hub, store, acks, resends, refusals."""
import json
import sqlite3
import time

import paho.mqtt.client as mqtt
import pytest

from controller.club import ClubConfig, ClubLink
from controller.log import EventLog
from hall import topics
from hall.hub import Hub
from hall.store import Store

from .conftest import wait_for

NIGHT = "test-night"


def raw_client(port, user=None, password=None, cid="raw"):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=cid, protocol=mqtt.MQTTv311)
    if user is not None:
        c.username_pw_set(user, password)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def table_link(tmp_path, port, table=1, device=None, **kw):
    log = EventLog(str(tmp_path / f"t{table}-{device or 'a'}.sqlite"))
    options = dict(keepalive=2, heartbeat=1.0, resend_after=1.0, reconnect_max=0.5)
    options.update(kw)
    cfg = ClubConfig(night=NIGHT, table=table, port=port, password=f"pw{table}", **options)
    return log, ClubLink(cfg, log.path, device=device or f"dev-{table}")


def hub_for(tmp_path, port, **kw):
    store = Store(str(tmp_path / "hall.sqlite"))
    hub = Hub(store, NIGHT, port=port, password="hallpw", keepalive=2, **kw).start()
    assert hub.connected.wait(10)
    return store, hub


def test_store_is_append_only_idempotent_and_refuses_conflicts(tmp_path):
    st = Store(str(tmp_path / "h.sqlite"))
    ev = {"type": "bid", "seat": "W", "bid": "pass"}
    assert st.add_events(NIGHT, [(1, 1, 1.0, "d", ev)])["stored"] == 1
    again = st.add_events(NIGHT, [(1, 1, 1.0, "d", dict(ev))])
    assert again == {"stored": 0, "duplicates": 1, "conflicts": []}
    altered = st.add_events(NIGHT, [(1, 1, 1.0, "d", {**ev, "bid": "order"})])
    assert altered["stored"] == 0 and "different contents" in altered["conflicts"][0][2]
    other = st.add_events(NIGHT, [(1, 1, 1.0, "e", ev)])
    assert "device 'd'" in other["conflicts"][0][2]
    assert st.records(NIGHT, 1) == [{**ev, "seq": 1, "at": 1.0}]
    st.append_hall({"kind": "night", "night": NIGHT, "config": {}}, at=0.0)
    db = sqlite3.connect(st.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE table_events SET body='{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM hall_events")
    db.close()
    st.close()
    # Reopened, it knows where each table stands.
    st = Store(str(tmp_path / "h.sqlite"))
    st.add_events(NIGHT, [(1, 3, 3.0, "d", {"type": "collect"})])
    assert (st.contiguous(NIGHT, 1), st.max_seq(NIGHT, 1)) == (1, 3)


def test_a_table_publishes_its_log_and_catches_up_after_playing_offline(tmp_path, broker):
    log, link = table_link(tmp_path, broker.port)
    # The broker and hall are not there yet: play goes on.
    broker.kill()
    link.start()
    for i in range(30):
        log.append({"type": "bid", "seat": "NESW"[i % 4], "bid": "pass"}, at=100.0 + i)
    assert log.last_seq == 30
    broker.start()
    store, hub = hub_for(tmp_path, broker.port)
    try:
        assert wait_for(lambda: store.contiguous(NIGHT, 1) == 30 and link.acked == 30, 15)
        assert store.records(NIGHT, 1) == [r.to_dict() for r in log.records()]
        assert wait_for(lambda: hub.table_states()[1]["state"] == "live")
        assert hub.table_states()[1]["device"] == "dev-1"
    finally:
        link.stop()
        hub.stop()


def test_the_last_will_marks_a_table_offline_and_silence_marks_it_stale(tmp_path, broker):
    now = [1000.0]
    store = Store(str(tmp_path / "hall.sqlite"))
    hub = Hub(store, NIGHT, port=broker.port, password="hallpw", clock=lambda: now[0],
              stale_after=30.0).start()
    log, link = table_link(tmp_path, broker.port)
    link.start()
    try:
        assert hub.connected.wait(10)
        assert wait_for(lambda: hub.table_states().get(1, {}).get("state") == "live")
        now[0] += 31
        assert hub.table_states()[1]["state"] == "stale"
        # The table's process dies: no goodbye, the broker sends its last will.
        link._client._sock.close()
        link._client.loop_stop()
        link._stop.set()
        assert wait_for(lambda: hub.table_states()[1]["state"] == "offline", 15)
    finally:
        hub.stop()


@pytest.mark.parametrize("kind", ["mosquitto", "nats"])
def test_the_broker_acl_stops_a_table_writing_under_another_number(tmp_path, kind, request):
    broker = request.getfixturevalue("broker" if kind == "mosquitto" else "nats_broker")
    store, hub = hub_for(tmp_path, broker.port)
    three = raw_client(broker.port, "3", "pw3", cid="euchre-x-t3")
    try:
        msg = lambda t: topics.event_message(NIGHT, t, "d3", {"type": "collect", "seq": 1, "at": 1.0})
        three.publish(topics.ev_topic(NIGHT, 5), msg(5), qos=1).wait_for_publish(5)
        three.publish(topics.ev_topic(NIGHT, 3), msg(3), qos=1).wait_for_publish(5)
        assert wait_for(lambda: store.contiguous(NIGHT, 3) == 1)
        time.sleep(0.3)
        assert store.tables(NIGHT) == [3]          # table 5 never reached the hall
        # A table may not write acknowledgements either (only the hall does).
        got = []
        five = raw_client(broker.port, "5", "pw5", cid="euchre-x-t5")
        five.on_message = lambda c, u, m: got.append(json.loads(m.payload))
        five.subscribe(topics.ack_topic(NIGHT, 5), 1)
        three.publish(topics.ack_topic(NIGHT, 5), b'{"seq": 99}', qos=1, retain=True).wait_for_publish(5)
        time.sleep(0.5)
        assert got == []
        five.loop_stop()
    finally:
        three.loop_stop()
        hub.stop()


def test_the_hall_refuses_bad_input_with_a_clear_reason_and_stores_nothing_twice(tmp_path, open_broker):
    store, hub = hub_for(tmp_path, open_broker.port, tables={1, 2, 3})
    c = raw_client(open_broker.port, cid="mischief")
    rec = {"type": "hand", "dealer": "S", "seq": 1, "at": 5.0}
    send = lambda topic, payload: c.publish(topic, payload, qos=1).wait_for_publish(5)
    try:
        send(topics.ev_topic(NIGHT, 1), topics.event_message(NIGHT, 1, "dev-1", rec))
        assert wait_for(lambda: store.contiguous(NIGHT, 1) == 1)
        send(topics.ev_topic(NIGHT, 1), topics.event_message(NIGHT, 1, "dev-1", rec))   # duplicate
        send(topics.ev_topic(NIGHT, 1), topics.event_message(NIGHT, 1, "dev-1",
                                                             {**rec, "dealer": "W"}))  # altered replay
        send(topics.ev_topic(NIGHT, 1), topics.event_message(NIGHT, 1, "dev-9",
                                                             {**rec, "seq": 2}))      # second device
        send(topics.ev_topic(NIGHT, 2), topics.event_message(NIGHT, 3, "dev-3", rec))  # claims table 3
        send(topics.ev_topic("other-night", 1), topics.event_message("other-night", 1, "dev-1", rec))
        send(topics.ev_topic(NIGHT, 2), b"not json at all")
        send(topics.ev_topic(NIGHT, 2), topics.dumps({"night": NIGHT, "table": 2}))
        send(topics.ev_topic(NIGHT, 7), topics.event_message(NIGHT, 7, "dev-7", rec))  # no such table
        assert wait_for(lambda: len([e for e in store.hall_events() if e["kind"] == "refused"]) >= 7)
        time.sleep(0.3)
        refused = [e for e in store.hall_events() if e["kind"] == "refused"]
        whys = " | ".join(e["what"] + ": " + e["why"] for e in refused)
        for expected in ("different contents", "two devices claim one table",
                         "may publish only as itself", "unknown night", "not JSON",
                         "no 'device' field", "no such table tonight"):
            assert expected in whys, (expected, whys)
        assert len(refused) == 7
        assert hub.stats["duplicates"] == 1
        assert store.count() == 1 and store.records(NIGHT, 1) == [rec]
        assert hub.table_states()[1]["devices"] == ["dev-1", "dev-9"]
    finally:
        c.loop_stop()
        hub.stop()


def test_two_devices_with_one_table_number_are_flagged(tmp_path, broker):
    store, hub = hub_for(tmp_path, broker.port)
    log_a, a = table_link(tmp_path, broker.port, table=2, device="pi-a")
    log_b, b = table_link(tmp_path, broker.port, table=2, device="pi-b")
    try:
        log_a.append({"type": "hand", "dealer": "N"}, at=1.0)
        a.start()
        assert wait_for(lambda: store.contiguous(NIGHT, 2) == 1)
        log_b.append({"type": "hand", "dealer": "E"}, at=2.0)
        b.start()
        assert wait_for(lambda: any("two devices claim" in e.get("why", "")
                                    for e in store.hall_events()))
        assert store.records(NIGHT, 2) == [r.to_dict() for r in log_a.records()]
        assert "pi-b" in hub.table_states()[2]["devices"]
        # Both devices are told to call the director.
        assert wait_for(lambda: any("Two devices claim table 2" in str(m)
                                    for q in (a.commands, b.commands) for m in list(q.queue)))
    finally:
        a.stop()
        b.stop()
        hub.stop()


def _chaos(**kw):
    from bench.club_chaos import ChaosConfig, run
    cfg = ChaosConfig(tables=6, events=900, kills=1, outages=24, duration=10.0, seed=3, **kw)
    return run(cfg, progress=lambda s: None)


def test_chaos_short_nothing_lost_nothing_twice(tmp_path):
    r = _chaos(folder=str(tmp_path / "chaos"))
    assert r["broker_kills"] == 1 and r["outages"] == 24
    assert r["lost"] == 0 and r["altered"] == 0 and r["stored_twice"] == 0, r
    assert r["standings_equal"], r
    assert r["caught_up_s_after_last_outage"] is not None and r["caught_up_s_after_last_outage"] <= 5.0, r
    assert r["ok"]


def test_chaos_without_resend_loses_events_and_the_check_says_so(tmp_path):
    r = _chaos(folder=str(tmp_path / "chaos"), resend=False, settle=4.0)
    assert r["lost"] > 0, r
    assert not r["ok"]


def test_a_table_and_the_hall_each_killed_mid_night_lose_nothing(tmp_path):
    from bench.club_chaos import run_kills
    r = run_kills(tmp_path / "kills", tables=2, events=250, table_kills=2, hall_kills=2, gap=0.01)
    assert r["table_kills"] == 2 and r["hall_kills"] == 2, r
    assert r["lost"] == 0 and r["stored_twice"] == 0 and r["standings_equal"], r
    assert r["ok"]


def test_a_hole_is_asked_for_by_its_ends_and_the_table_fills_just_that(tmp_path, broker):
    store, hub = hub_for(tmp_path, broker.port)
    cmds = []
    four = raw_client(broker.port, "4", "pw4", cid="euchre-test-night-t4")
    four.on_message = lambda c, u, m: cmds.append(json.loads(m.payload))
    four.subscribe(topics.cmd_topic(NIGHT, 4), 1)
    time.sleep(0.3)
    try:
        for seq in (1, 2, 4, 5):
            rec = {"type": "collect", "seq": seq, "at": float(seq)}
            four.publish(topics.ev_topic(NIGHT, 4), topics.event_message(NIGHT, 4, "dev-4", rec),
                         qos=1).wait_for_publish(5)
        # The contiguous count is advanced just after the batch is stored: wait for both.
        assert wait_for(lambda: store.max_seq(NIGHT, 4) == 5 and store.contiguous(NIGHT, 4) == 2)
        assert wait_for(lambda: {"cmd": "resend", "from": 3, "to": 3} in cmds, 5), cmds
    finally:
        four.loop_stop()
        hub.stop()
    # The table's side (no hall acknowledging here): asked for a hole, it sends just that.
    log, link = table_link(tmp_path, broker.port, table=5, resend_after=600.0)
    hall = raw_client(broker.port, "hall", "hallpw", cid="hall-raw")
    for i in range(6):
        log.append({"type": "collect"}, at=float(i))
    link.start()
    try:
        assert wait_for(lambda: link.stats["published"] == 6)
        before = link.stats["resent"]
        hall.publish(topics.cmd_topic(NIGHT, 5), topics.dumps({"cmd": "resend", "from": 2, "to": 3}),
                     qos=1).wait_for_publish(5)
        assert wait_for(lambda: link.stats["resent"] == before + 2)
        time.sleep(0.5)
        assert link.stats["resent"] == before + 2 and link.next_seq == 7
    finally:
        link.stop()
        hall.loop_stop()


def test_a_stalled_acknowledgement_is_waited_for_longer_each_time(tmp_path, broker):
    """No hall answers: the table resends above the ack after resend_after, then after
    twice that, and so on (a slow hall is not buried in copies)."""
    log, link = table_link(tmp_path, broker.port, table=6, resend_after=0.3)
    for i in range(3):
        log.append({"type": "collect"}, at=float(i))
    link.start()
    try:
        assert wait_for(lambda: link.stats["published"] == 3)
        t0 = link.stats["rewinds"]
        time.sleep(2.6)          # stalls at about 0.3, 0.9, 2.1 s: three, not eight
        assert 2 <= link.stats["rewinds"] - t0 <= 4, link.stats
        assert link.stats["resent"] >= 6
    finally:
        link.stop()


def test_a_table_sending_only_copies_gets_its_ack_again(tmp_path, broker):
    store, hub = hub_for(tmp_path, broker.port)
    acks = []
    seven = raw_client(broker.port, "7", "pw7", cid="euchre-test-night-t7")
    seven.on_message = lambda c, u, m: acks.append(json.loads(m.payload)["seq"])
    seven.subscribe(topics.ack_topic(NIGHT, 7), 0)
    time.sleep(0.3)
    msg = lambda seq: topics.event_message(NIGHT, 7, "dev-7", {"type": "collect", "seq": seq, "at": 1.0})
    try:
        for seq in (1, 2, 3):
            seven.publish(topics.ev_topic(NIGHT, 7), msg(seq), qos=1).wait_for_publish(5)
        assert wait_for(lambda: acks and acks[-1] == 3)
        n = len(acks)
        time.sleep(1.1)
        seven.publish(topics.ev_topic(NIGHT, 7), msg(2), qos=1).wait_for_publish(5)   # a copy
        assert wait_for(lambda: len(acks) > n and acks[-1] == 3, 5), acks
        assert hub.stats["duplicates"] == 1
    finally:
        seven.loop_stop()
        hub.stop()
