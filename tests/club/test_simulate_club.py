"""`simulate --club`: a whole virtual night through a real broker, the hall and the real publisher."""
import json
import subprocess
import sys

from controller.club_sim import fold_logs, simulate_club

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
    ranking = s["standings"]["ranking"]
    assert len(ranking) == 12 and ranking[0]["rank"] == 1
    assert sum(r["total"] for r in ranking) == sum(s["independent"].values()) > 0


def test_simulate_club_refuses_bad_arguments_with_one_line():
    r = subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--club", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == \
        "euchre-table simulate: --club 0: from 1 to 40 tables"
