"""The standings fold against a second computation written separately: from each hand the
engine played straight to the players, with its own scoring table."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hall.night import Night
from hall.scoring import PRESETS, Outcome, Scoring, outcome_of_record, score_hand
from hall.standings import fold
from tests.hall.helpers import NightRun


def independent_points(sc: Scoring, res, seat: str) -> int:
    """What ``seat`` banks for a hand the engine played, written from the rules of
    progressive euchre without hall.scoring's structure."""
    if res.thrown_in:
        return 0
    mine = ("NS" if seat in "NS" else "EW") == res.makers
    made = res.tricks[res.makers]
    if made == 5:
        if res.alone:
            if not mine:
                return 0
            return sc.loner_march_loner if seat == res.alone else sc.loner_march
        return sc.march if mine else 0
    if made >= 3:
        if not mine:
            return 0
        return sc.loner_point if res.alone else sc.point
    if res.defender_alone:
        amount, to = sc.lone_defender_euchre, "defenders"
    elif res.alone:
        amount, to = sc.loner_euchred, sc.loner_euchred_to
    else:
        amount, to = sc.euchre, sc.euchre_to
    if to == "defenders":
        return 0 if mine else amount
    return -amount if mine else 0


def independent_standings(run: NightRun):
    night, sc = run.night, run.night.scoring
    per = {p: {} for p in night.players}
    won = {p: 0 for p in night.players}
    seated = {}
    for r, _t, seating, results in run.truth:
        side_total = {"NS": 0, "EW": 0}
        counted = []
        for res in results:
            if night.hands is not None and len(counted) >= night.hands:
                if not (sc.tie == "play off" and side_total["NS"] == side_total["EW"]):
                    break
            counted.append(res)
            for side, seats in (("NS", "NS"), ("EW", "EW")):
                side_total[side] += min(independent_points(sc, res, s) for s in seats)
        for seat, p in seating.items():
            per[p][r] = sum(independent_points(sc, res, seat) for res in counted)
            mine = "NS" if seat in "NS" else "EW"
            other = "EW" if mine == "NS" else "NS"
            won[p] += side_total[mine] > side_total[other]
            seated.setdefault(p, set()).add(r)
    rounds = sorted({r for r, *_ in run.truth})
    for p in night.players:
        played = [per[p][r] for r in rounds if r in per[p]]
        for r in rounds:
            if r in per[p]:
                continue
            if sc.sit_out == "points":
                per[p][r] = sc.sit_out_points
            elif sc.sit_out == "average":
                per[p][r] = int(sum(played) / len(played) + 0.5) if played else 0
            else:
                per[p][r] = 0
    return {p: sum(v.values()) for p, v in per.items()}, per, won


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), preset=st.sampled_from(sorted(PRESETS)),
       players=st.integers(4, 19), movement=st.sampled_from(["winners-up", "rotation", "whist"]),
       hands=st.integers(1, 4), extra=st.integers(0, 2), rounds=st.integers(1, 4),
       cameraless=st.booleans())
def test_fold_equals_an_independent_computation(seed, preset, players, movement, hands, extra,
                                                rounds, cameraless):
    if movement == "whist" and players < 8:
        movement = "rotation"
    night = Night.from_config({"id": "prop", "players": players, "rounds": rounds,
                               "hands": hands, "movement": movement, "scoring": preset})
    run = NightRun(night, seed=seed, cameraless={1} if cameraless else (), extra_hands=extra)
    s = fold(night, run.hall, run.tables)
    totals, per, won = independent_standings(run)
    ranking = s.ranking()
    assert {r["entrant"]: r["total"] for r in ranking} == totals
    assert {r["entrant"]: {int(k): v for k, v in r["rounds"].items()} for r in ranking} == per
    assert {r["entrant"]: r["games_won"] for r in ranking} == won
    # the same inputs give the same standings, folded at once or record by record
    again = fold(night, list(run.hall), {t: list(v) for t, v in run.tables.items()})
    assert again.to_dict() == s.to_dict()
    assert s.problems == []


def test_incremental_fold_equals_whole_fold():
    night = Night.from_config({"id": "inc", "players": 12, "rounds": 3, "hands": 3,
                               "movement": "rotation", "scoring": "club"})
    run = NightRun(night, seed=5)
    from hall.standings import Folder
    folder = Folder(night)
    partial = {t: [] for t in run.tables}
    for i in range(max(len(v) for v in run.tables.values())):
        for t, recs in run.tables.items():
            if i < len(recs):
                partial[t].append(recs[i])
        if i % 7 == 0:
            folder.fold(run.hall, {t: list(v) for t, v in partial.items()})
    assert folder.fold(run.hall, partial).to_dict() == fold(night, run.hall, run.tables).to_dict()


def test_a_gap_in_a_tables_records_stops_its_fold_there_and_says_so():
    night = Night.from_config({"id": "gap", "players": 4, "rounds": 1, "hands": 2})
    run = NightRun(night, seed=2)
    recs = run.tables[1]
    cut = [r for r in recs if r["seq"] != 5]
    s = fold(night, run.hall, {1: cut})
    assert any("from #5 have not arrived" in p for p in s.problems)
    assert fold(night, run.hall, {1: recs}).problems == []


def test_hands_beyond_the_round_do_not_count_and_a_tie_is_played_off():
    night = Night.from_config({"id": "tie", "players": ["A", "B", "C", "D"], "rounds": 1,
                               "hands": 2, "scoring": "club"})
    seating = {"N": "A", "E": "B", "S": "C", "W": "D"}
    hall = [{"seq": 1, "kind": "round_start", "round": 1, "seating": {"1": seating},
             "sitting_out": []}, {"seq": 2, "kind": "round_end", "round": 1, "by": "hands"}]
    res = [("NS", 3), ("EW", 4), ("NS", 5), ("EW", 5)]
    recs = [{"seq": 1, "type": "club_round", "round": 1, "table": 1, "seating": seating}]
    for i, (m, k) in enumerate(res, 2):
        recs.append({"seq": i, "type": "result", "makers": m, "tricks": k, "alone": None})
    s = fold(night, hall, {1: recs})
    tab = s.rounds[1]["tables"][1]
    # 1-1 after two hands: the third hand plays the tie off (NS march), the fourth is extra
    assert [h["status"] for h in tab["hands"]] == ["scored", "scored", "scored", "extra"]
    assert tab["score"] == {"NS": 3, "EW": 1} and tab["winner"] == "NS"
    stand = Night.from_config({"id": "tie", "players": ["A", "B", "C", "D"], "rounds": 1,
                               "hands": 2, "scoring": "standard"})
    tab = fold(stand, hall, {1: recs}).rounds[1]["tables"][1]
    assert tab["winner"] is None and tab["score"] == {"NS": 1, "EW": 1}


def test_ties_share_a_place_shown_with_an_equals_sign_and_the_chain_separates():
    night = Night.from_config({"id": "tb", "players": ["A", "B", "C", "D"], "rounds": 1,
                               "hands": 3, "tie_breaks": []})
    seating = {"N": "A", "E": "B", "S": "C", "W": "D"}
    hall = [{"seq": 1, "kind": "round_start", "round": 1, "seating": {"1": seating},
             "sitting_out": []}]
    recs = [{"seq": 1, "type": "club_round", "round": 1, "table": 1, "seating": seating},
            {"seq": 2, "type": "result", "makers": "NS", "tricks": 5, "alone": None},
            {"seq": 3, "type": "result", "makers": "EW", "tricks": 3, "alone": None},
            {"seq": 4, "type": "result", "makers": "EW", "tricks": 3, "alone": None}]
    ranks = {r["entrant"]: r["rank_text"] for r in fold(night, hall, {1: recs}).ranking()}
    assert ranks == {"A": "=1", "B": "=1", "C": "=1", "D": "=1"}
    chained = Night.from_config({"id": "tb", "players": ["A", "B", "C", "D"], "rounds": 1,
                                 "hands": 3, "tie_breaks": ["marches", "games_won"]})
    ranks = {r["entrant"]: r["rank_text"] for r in fold(chained, hall, {1: recs}).ranking()}
    assert ranks == {"A": "=1", "C": "=1", "B": "=3", "D": "=3"}   # NS marched once
    h2h = Night.from_config({"id": "tb", "players": ["A", "B", "C", "D"], "rounds": 1,
                             "hands": 3, "tie_breaks": ["head_to_head"]})
    ranks = {r["entrant"]: r["rank_text"] for r in fold(h2h, hall, {1: recs}).ranking()}
    assert ranks == {"A": "=1", "B": "=1", "C": "=1", "D": "=1"}   # the round was tied


def test_renege_and_loner_variants_score_as_configured():
    club, minus, bonus = (Scoring.preset(n) for n in ("club", "minus", "loner-bonus"))
    assert score_hand(club, Outcome(makers="NS", tricks=2, alone="S")) == \
        {"N": 0, "E": 4, "S": 0, "W": 4}
    assert score_hand(minus, Outcome(makers="NS", tricks=1, alone="S")) == \
        {"N": -4, "E": 0, "S": -4, "W": 0}
    assert score_hand(bonus, Outcome(makers="NS", tricks=5, alone="S")) == \
        {"N": 4, "E": 0, "S": 5, "W": 0}
    assert score_hand(club, Outcome(makers="EW", tricks=5, alone="E", renege="EW")) == \
        {"N": 4, "E": 0, "S": 4, "W": 0}
    rec = {"status": "over", "result": {"makers": "EW", "tricks": {"NS": 1, "EW": 4},
                                        "alone": None, "defender_alone": None},
           "revokes": [{"side": "EW"}, {"side": "NS"}, {"side": "EW"}]}
    assert outcome_of_record(rec).renege == "EW"


def test_director_corrections_void_moves_and_credits_are_folded():
    night = Night.from_config({"id": "dir", "players": 9, "rounds": 2, "hands": 2,
                               "scoring": {"preset": "standard", "sit_out": "points",
                                           "sit_out_points": 7}})
    run = NightRun(night, seed=3, rounds=1)
    base = fold(night, run.hall, run.tables)
    seating = run.hall[1]["seating"]["1"]
    n_player = seating["N"]
    hall = run.hall + [
        {"seq": 90, "kind": "correct_hand", "table": 1, "round": 1, "hand": 1,
         "result": {"makers": "NS", "tricks": 5, "alone": "N"}, "director": "d", "reason": "x"},
        {"seq": 91, "kind": "void_hand", "table": 1, "round": 1, "hand": 2, "director": "d",
         "reason": "y"}]
    s = fold(night, hall, run.tables)
    assert s.entrants[n_player]["rounds"][1] == 4
    assert [h["status"] for h in s.rounds[1]["tables"][1]["hands"]] == ["scored", "void"]
    out = run.hall[1]["sitting_out"][0]
    assert base.entrants[out]["rounds"][1] == 7
    credited = fold(night, hall + [{"seq": 92, "kind": "sit_out_credit", "player": out,
                                    "round": 1, "points": 3, "director": "d", "reason": "z"}],
                    run.tables)
    assert credited.entrants[out]["rounds"][1] == 3
    moved = fold(night, hall + [{"seq": 93, "kind": "move_player", "player": out, "round": 1,
                                 "table": 1, "seat": "N", "director": "d", "reason": "w"}],
                 run.tables)
    assert moved.entrants[out]["rounds"][1] == 4 and moved.entrants[n_player]["rounds"][1] == 7
    assert len(moved.audit) == 3


@pytest.mark.parametrize("movement", ["round-robin", "swiss"])
def test_partnership_nights_rank_teams(movement):
    night = Night.from_config({"id": "pairs", "format": "partnership", "rounds": 3, "hands": 2,
                               "movement": movement,
                               "teams": [["A", "B"], ["C", "D"], ["E", "F"], ["G", "H"],
                                         {"name": "Jokers", "players": ["I", "J"]}]})
    run = NightRun(night, seed=4)
    ranking = fold(night, run.hall, run.tables).ranking()
    assert {r["entrant"] for r in ranking} == set(night.team_names)
    met = set()
    for ev in run.hall:
        if ev.get("kind") == "round_start":
            assert len(ev["sitting_out"]) == 2
            for s in ev["seating"].values():
                pair = frozenset((s["N"], s["E"]))
                assert pair not in met
                met.add(pair)
