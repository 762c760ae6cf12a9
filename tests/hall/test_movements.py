"""Movements: whist charts, byes, the rotation's repeats, winners up."""
from __future__ import annotations

import pytest

from hall.movements import (_field_base, _prime_power, check_chart, partner_repeats, plan_round,
                            seatings, whist_base, whist_chart, whist_is_complete)
from hall.night import Night, NightError
from hall.standings import fold
from tests.hall.helpers import NightRun

# Sizes with a whole whist tournament here (4n and 4n+1 players): the finite-field
# construction for prime powers, the cached Z-cyclic bases for the rest that are known.
COMPLETE = [v for v in range(8, 165) if v % 4 in (0, 1) and whist_base(v) is not None]


@pytest.mark.parametrize("v", COMPLETE)
def test_whole_whist_tournaments_partner_once_and_oppose_twice(v):
    c = check_chart(v, whist_chart(v))
    pairs = v * (v - 1) // 2
    assert c["problems"] == []
    assert len(c["partner"]) == pairs and set(c["partner"].values()) == {1}
    assert len(c["oppose"]) == pairs and set(c["oppose"].values()) == {2}
    assert max(c["byes"]) - min(c["byes"]) <= (0 if v % 4 == 0 else 0)


def test_every_prime_power_4n_plus_1_up_to_40_tables_is_complete():
    for v in range(9, 162, 4):
        if _prime_power(v):
            assert whist_is_complete(v), v
            assert _field_base(v)["tables"]


# Every size up to 15 tables, and a sample of the larger ones (the greedy charts of large
# sizes take seconds each to build).
@pytest.mark.parametrize("v", list(range(8, 61)) + list(range(63, 164, 9)))
def test_every_chart_never_repeats_a_partnership_and_spreads_byes(v):
    rounds = whist_chart(v)
    c = check_chart(v, rounds)
    assert c["problems"] == []
    assert max(c["partner"].values()) == 1
    assert len(rounds) >= min(v - 2, 9)    # as many rounds as a night plays
    counts = [0] * v
    for tables, out in rounds:        # after every round, not only at the end
        assert len(tables) == v // 4 and len(out) == v % 4
        for x in out:
            counts[x] += 1
        assert max(counts) - min(counts) <= 1


def test_the_rotation_repeats_partners_at_round_t_plus_1_and_says_so():
    night = Night.from_config({"id": "rot", "players": 16, "rounds": 6, "hands": 1,
                               "movement": "rotation"})
    assert any("repeats partners from round 5" in w for w in night.warnings)
    run = NightRun(night, seed=1)
    warned = {ev["round"]: ev["warnings"] for ev in run.hall if ev.get("kind") == "round_start"}
    assert all(not warned[r] for r in range(1, 5))
    assert warned[5] and "partnered in round 1 too" in warned[5][0]
    assert partner_repeats(seatings(run.hall))


def test_the_rotation_moves_north_stays_south_down_east_up_west_two_up():
    night = Night.from_config({"id": "rot", "players": 20, "rounds": 2, "hands": 1,
                               "movement": "rotation"})
    r1 = plan_round(night, [], None)
    r2 = plan_round(night, [dict(r1, seq=1)], None)
    s1, s2 = r1["seating"], r2["seating"]
    for t in range(1, 6):
        assert s2[str(t)]["N"] == s1[str(t)]["N"]
        assert s2[str(t % 5 + 1)]["S"] == s1[str(t)]["S"]
        assert s2[str((t - 2) % 5 + 1)]["E"] == s1[str(t)]["E"]
        assert s2[str((t - 3) % 5 + 1)]["W"] == s1[str(t)]["W"]


def test_winners_go_up_losers_down_and_partners_are_split():
    night = Night.from_config({"id": "wu", "players": 12, "rounds": 2, "hands": 2,
                               "movement": "winners-up"})
    run = NightRun(night, seed=7, rounds=1)
    st = run.standings()
    r2 = plan_round(night, run.hall, st)
    prev = run.hall[1]["seating"]
    for t in (1, 2, 3):
        tab = st.rounds[1]["tables"][t]
        up = ("N", "S") if tab["mover"] == "NS" else ("E", "W")
        down = ("E", "W") if tab["mover"] == "NS" else ("N", "S")
        winners = {prev[str(t)][s] for s in up}
        losers = {prev[str(t)][s] for s in down}
        to_up, to_down = str(max(1, t - 1)), str(min(3, t + 1))
        assert winners <= set(r2["seating"][to_up].values())
        assert losers <= set(r2["seating"][to_down].values())
        for pair in (winners, losers):      # the two who arrive together are opponents
            dest = r2["seating"][to_up if pair is winners else to_down]
            seats = [s for s, p in dest.items() if p in pair]
            assert {seats[0], seats[1]} not in ({"N", "S"}, {"E", "W"})


@pytest.mark.parametrize("players", [5, 6, 7, 13, 14, 15])
@pytest.mark.parametrize("movement", ["winners-up", "rotation", "whist"])
def test_byes_differ_by_at_most_one_after_every_round(players, movement):
    if movement == "whist" and players < 8:
        pytest.skip("a chart needs two tables")
    night = Night.from_config({"id": "bye", "players": players, "rounds": 8, "hands": 1,
                               "movement": movement})
    run = NightRun(night, seed=players)
    counts = {p: 0 for p in night.players}
    for ev in run.hall:
        if ev.get("kind") == "round_start":
            assert len(ev["sitting_out"]) == players % 4
            for p in ev["sitting_out"]:
                counts[p] += 1
            assert max(counts.values()) - min(counts.values()) <= 1
    assert fold(night, run.hall, run.tables).problems == []


def test_a_whist_night_seats_the_chart():
    night = Night.from_config({"id": "wh", "players": 13, "rounds": 13, "hands": 1,
                               "movement": "whist"})
    run = NightRun(night, seed=1)
    pairs = set()
    for ev in run.hall:
        if ev.get("kind") == "round_start":
            assert ev["warnings"] == []
            for s in ev["seating"].values():
                for a, b in (("N", "S"), ("E", "W")):
                    pairs.add(frozenset((s[a], s[b])))
    assert len(pairs) == 13 * 12 // 2


@pytest.mark.parametrize("cfg, words", [
    ({"players": 3}, "a night has 4 to 163 players"),
    ({"players": 8, "movement": "whist", "rounds": 8}, "has 7 rounds"),
    ({"players": 8, "hands": 0}, "hands is a whole number"),
    ({"players": 8, "tie_breaks": ["luck"]}, "tie break 'luck' is not known"),
    ({"players": 8, "scoring": "generous"}, "Unknown scoring preset 'generous'"),
    ({"players": 8, "scoring": {"preset": "club", "euchre_to": "everyone"}}, "euchre_to is"),
    ({"players": ["A", "A", "B", "C"]}, "listed twice"),
    ({"players": 8, "directors": {"al": "12"}}, "4 to 12 digits"),
    ({"format": "partnership", "teams": [["A", "B"], ["C", "D"], ["E", "F"]],
      "movement": "round-robin", "rounds": 4}, "has 3 rounds"),
    ({"players": 8, "colour": "red"}, "unknown setting 'colour'"),
])
def test_a_bad_night_is_refused_with_one_line(cfg, words):
    with pytest.raises(NightError) as e:
        Night.from_config({"id": "bad", **cfg})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_night_round_trips_through_its_hall_event():
    night = Night.from_config({"id": "rt", "players": 10, "rounds": 3, "hands": 4,
                               "scoring": {"preset": "minus", "sit_out_points": 6},
                               "directors": {"al": "4821"}})
    again = Night.from_event({"kind": "night", "config": night.to_config()})
    assert again.scoring == night.scoring and again.players == night.players
    assert "4821" not in str(night.to_config())
