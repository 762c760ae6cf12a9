"""`simulate --club`: a whole virtual night through a real broker, the hall and the real publisher."""
import subprocess
import sys

from controller.club_sim import simulate_club

from .standin import StandInNight


def test_a_virtual_club_night_matches_an_independent_fold(tmp_path):
    night = StandInNight(tables=4, rounds=3, hands_per_round=2)
    lines = []
    s = simulate_club(4, tmp_path / "club", seed=5, night=night, web=False, progress=lines.append)
    assert s["caught_up"] and s["standings_equal_independent_fold"], s
    assert s["stored"] == s["events"] > 0
    assert [ln.strip() for ln in lines[1:]] == ["round 1 starts", "round 1 over", "round 2 starts",
                                                "round 2 over", "round 3 starts", "round 3 over"]
    # 16 players, each seated every round; the points are real (not all zero).
    assert len(s["independent"]) == 16 and any(s["independent"].values())
    # The last table has no camera: its hands came in as keyed results.
    from controller.log import read_events
    kinds = [e.get("type") for _, e in read_events(str(tmp_path / "club" / "tables" / "table-4.sqlite"))]
    assert kinds.count("club_round") == 3 and kinds.count("result") >= 3 and "hand" not in kinds


def test_a_virtual_club_night_with_the_nights_real_format(tmp_path):
    lines = []
    s = simulate_club(3, tmp_path / "club", seed=2, rounds=2, hands=2, web=False,
                      progress=lines.append)
    assert s["caught_up"] and s["standings_equal_independent_fold"], s
    ranking = s["standings"]
    ranking = ranking["ranking"] if isinstance(ranking, dict) else ranking
    assert len(ranking) == 12 and ranking[0]["rank"] == 1
    assert sum(r["total"] for r in ranking) == sum(s["independent"].values()) > 0


def test_simulate_club_refuses_bad_arguments_with_one_line():
    r = subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--club", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == \
        "euchre-table simulate: --club 0: from 1 to 40 tables"


def _listening(pids) -> list:
    """The local addresses of the TCP sockets that processes ``pids`` listen on (from
    /proc: the kernel's own table of sockets, mapped to the processes' open files)."""
    import os
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    out = []
    for name in ("tcp", "tcp6"):
        with open(f"/proc/net/{name}") as f:
            for line in list(f)[1:]:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:       # 0A: LISTEN
                    out.append((name, cols[1]))
    return out


def test_simulate_club_listens_on_loopback_only(tmp_path, monkeypatch):
    """Everything the simulation starts (the broker, the hall's page) listens on
    127.0.0.1 and nowhere else."""
    import os
    import threading

    import hall.broker as hb
    seen = []
    started = []
    real_start = hb.Broker.start

    def start(self, *a, **kw):
        r = real_start(self, *a, **kw)
        started.append(self)
        return r
    monkeypatch.setattr(hb.Broker, "start", start)
    keep = threading.Event()

    def watch():
        # While the page is open at the end of the night, look at every listening socket.
        import time
        while not keep.is_set():
            if started and started[0].proc is not None:
                seen.extend(_listening([os.getpid(), started[0].proc.pid]))
            time.sleep(0.2)
    from .minipage import make_app
    night = StandInNight(tables=2, rounds=1, hands_per_round=1)
    night.make_app = make_app
    w = threading.Thread(target=watch, daemon=True)
    w.start()
    threading.Timer(8.0, keep.set).start()
    s = simulate_club(2, tmp_path / "club", seed=1, night=night, progress=lambda x: None,
                      keep_open=keep)
    w.join(5)
    assert s["url"].startswith("http://127.0.0.1:")
    assert seen, "no listening socket was seen"
    local = {addr.split(":")[0] for _, addr in seen}
    # 0100007F is 127.0.0.1 in /proc's byte order; IPv6 loopback is ...0000000001000000.
    assert local <= {"0100007F", "00000000000000000000000001000000"}, seen
    assert any(kind == "tcp" for kind, _ in seen)


def test_the_full_virtual_table_takes_part_through_its_camera(tmp_path):
    """Table 1 is the full virtual table: every card drawn into camera frames and read by
    the vision pipeline; its log goes to the hall like the others'."""
    from collections import Counter

    from controller.log import read_events
    s = simulate_club(2, tmp_path / "club", seed=9, rounds=1, hands=1, web=False,
                      full_table=True, progress=lambda x: None)
    assert s["caught_up"] and s["standings_equal_independent_fold"], s
    log = tmp_path / "club" / "tables" / "table-1-full" / "table-log.sqlite"
    kinds = Counter(e.get("type") for _, e in read_events(str(log)))
    # The Pi's five cards came in through the reader window; cards were seen played.
    assert kinds["dealt"] == 5 and kinds["play"] >= 16 and kinds["club_round"] == 1
    # What went to the hall is the log as stored: the Pi's cards sealed until the hand
    # ended (and then revealed), never in plain words before.
    from hall.store import Store
    store = Store(str(tmp_path / "club" / "hall.sqlite"))
    sent = store.records(s["night"], 1)
    store.close()
    assert sum(1 for r in sent if r.get("type") == "sealed") >= 5
    assert not any(r.get("type") == "dealt" for r in sent)
    first_reveal = next(i for i, r in enumerate(sent) if r.get("type") == "reveal")
    last_sealed = max(i for i, r in enumerate(sent) if r.get("type") == "sealed")
    assert last_sealed < first_reveal
    assert (tmp_path / "club" / "tables" / "table-1-full" / "screen.gif").stat().st_size > 0
