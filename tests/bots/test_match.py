"""The duplicate-deal match: its machinery, the command, the peers, and short strength checks."""
import argparse
import json

import pytest

from bench import cli_match
from bench.match import Table, deal_for, match, run_pairs
from engine import Rules
from engine.bots import make_bot


def test_same_level_on_both_sides_scores_exactly_zero():
    # Medium is deterministic and the two tables are mirror images: every pair cancels.
    # A swap of the wrong seats or a deal that differs between tables would break this.
    part = run_pairs("medium", "medium", Rules.preset("standard"), seed=4, start=0, count=25)
    assert part["diffs"] == [0.0] * 25
    r = match("medium", "medium", pairs=25, seed=4)
    assert r["mean"] == 0.0 and r["ci95"] == [0.0, 0.0]
    assert r["rates"]["a"]["maker_rate"] == pytest.approx(r["rates"]["b"]["maker_rate"])


def test_both_tables_get_the_same_cards():
    rules = Rules.preset("standard")
    assert deal_for(rules, 9, 3) == deal_for(rules, 9, 3)
    assert deal_for(rules, 9, 3) != deal_for(rules, 9, 4)
    assert [deal_for(rules, 9, k)["dealer"] for k in range(4)] == ["N", "E", "S", "W"]


def test_medium_beats_random_by_a_wide_margin():
    r = match("medium", "random", pairs=20, seed=7)
    assert r["ci95"][0] > 0.5, r
    assert r["games"] >= 1 and r["a_game_win_rate"] > 0.5
    assert set(r["decision_ms"]) == {"medium", "random"}


def test_hard_beats_random():
    r = match("hard", "random", pairs=6, seed=3, budget=None, samples=6)
    assert r["ci95"][0] > 0, r


def test_game_scores_run_to_the_target():
    rules = Rules.preset("standard").replace(target=3)
    bots = {s: make_bot("medium") for s in "NESW"}
    table = Table(rules, bots, a_team=0)
    times = {}
    for k in range(30):
        table.play(deal_for(rules, 1, k), times, {s: "medium" for s in "NESW"})
        assert max(table.score) < 3
    assert len(table.games) >= 3


def run_cli(argv, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli_match.register(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr()


def test_match_command_prints_json(capsys):
    code, out = run_cli(["match", "--a", "medium", "--b", "easy", "--pairs", "4", "--seed", "2",
                         "--json"], capsys)
    assert code == 0
    r = json.loads(out.out)
    assert r["pairs"] == 4 and r["a"] == "medium" and len(r["ci95"]) == 2
    assert r["ci95"][0] <= r["mean"] <= r["ci95"][1]


def test_match_command_refuses_bad_input_with_a_reason(capsys):
    code, out = run_cli(["match", "--a", "medium", "--b", "easy", "--pairs", "0"], capsys)
    assert code == 2 and "pairs must be at least 1" in out.err
    code, out = run_cli(["match", "--a", "medium", "--b", "euchre-cli", "--pairs", "1",
                         "--rules", "standard"], capsys)
    assert code == 2 and "openspiel" in out.err
    with pytest.raises(SystemExit):
        run_cli(["match", "--a", "grandmaster", "--b", "easy"], capsys)


def test_euchre_cli_peer_plays_legally():
    pytest.importorskip("euchre.abstract")
    r = match("medium", "euchre-cli", pairs=10, seed=5, rules=Rules.preset("openspiel"))
    assert r["pairs"] == 10 and "euchre-cli" in r["decision_ms"]


def test_ismcts_peer_stays_in_step_with_the_table():
    pytest.importorskip("pyspiel")
    from bench.peers import IsmctsPlayer
    rules = Rules.preset("openspiel")
    ismcts = IsmctsPlayer(seed=1, rules=rules, simulations=40)
    players = {"N": ismcts, "S": ismcts, "E": make_bot("medium"), "W": make_bot("medium")}
    table = Table(rules, players, a_team=0)
    levels = {s: p.level for s, p in players.items()}
    for k in range(6):
        h = table.play(deal_for(rules, 3, k), {}, levels)
        assert h.is_over
        assert ismcts.state.is_terminal()
        assert ismcts.state.returns()[0] == h.result.points["NS"] - h.result.points["EW"]


def test_level_options_and_hybrids_are_parsed_or_refused_with_a_reason():
    from bench.match import make_player, parse_level
    assert parse_level("insane:scale=0.25") == [("insane", {"scale": 0.25})]
    assert parse_level("ismcts:sims=10000") == [("ismcts", {"sims": 10000})]
    assert [n for n, _ in parse_level("perfect/hard")] == ["perfect", "hard"]
    for bad, words in (("grandmaster", "Unknown level"), ("hard:speed=2", "Unknown level option"),
                       ("insane:scale=x", "must be a number"), ("a/b/c", "BID/PLAY"),
                       ("hard:z=2", "option of insane only")):
        with pytest.raises(ValueError, match=words):
            parse_level(bad)
    quarter = make_player("insane:scale=0.25", 1, Rules.preset("standard"), budget=None)
    full = make_player("insane", 1, Rules.preset("standard"), budget=None)
    assert quarter.samples * 4 == full.samples and quarter.work * 4 == full.work


def test_perfect_player_sees_everything_and_the_split_adds_up():
    r = match("perfect", "medium", pairs=12, seed=2, budget=None)
    assert r["mean"] > 0, r
    split = r["split"]
    assert split["same_contract"]["pairs"] + split["other_contract"]["pairs"] == 12
    assert split["same_contract"]["points"] + split["other_contract"]["points"] == pytest.approx(r["mean"], abs=1e-3)
    # Bidding like Medium and playing perfectly changes only the play (and, through the
    # game score, Medium's boldness near the end of a game): the contracts stay the same.
    r = match("medium/perfect", "medium", pairs=12, seed=2, budget=None)
    assert r["split"]["other_contract"]["pairs"] <= 2
    assert r["split"]["same_contract"]["points"] > 0


def test_first_bid_difference_names_the_decision_where_the_tables_parted():
    from bench.match import first_bid_difference
    # South (2) deals; West (3) is left of the dealer, North the dealer's partner.
    same = [(3, "pass"), (0, "pass"), (1, "order")]
    assert first_bid_difference((2, same), (2, list(same))) is None
    assert first_bid_difference((2, [(3, "pass"), (0, "order")]),
                                (2, [(3, "pass"), (0, "pass"), (1, "pass")])) == "round 1 partner"
    assert first_bid_difference((2, [(3, "order alone")]), (2, [(3, "order")])) == "alone round 1 left"
    r1 = [(3, "pass"), (0, "pass"), (1, "pass"), (2, "pass")]
    assert first_bid_difference((2, r1 + [(3, "call S")]), (2, r1 + [(3, "pass")])) == "round 2 left"
    r = match("hard", "medium", pairs=6, seed=3, budget=None, samples=4)
    firsts = r["split"]["first_bid_difference"]
    assert sum(v["pairs"] for v in firsts.values()) <= r["split"]["other_contract"]["pairs"]
    assert sum(v["points"] for v in firsts.values()) == pytest.approx(
        r["split"]["other_contract"]["points"], abs=1e-3)


def test_side_difference_says_whose_bid_the_parting_was():
    from bench.match import side_difference
    # A sits North-South at the first table, East-West at the second.
    assert side_difference(("N", "H", None, None), ("E", "H", None, None)) == "a named trump at both tables"
    assert side_difference(("W", "S", None, None), ("S", "S", None, None)) == "b named trump at both tables"
    assert side_difference(("E", "S", None, None), ("E", "S", "E", None)) == "a alone, b not"
    assert side_difference(("E", "S", "E", None), ("E", "S", None, None)) == "b alone, a not"
    assert side_difference(("N", "H", None, None), ("N", "H", None, None)) is None
    assert side_difference(("N", "H", None, None), ("N", "S", None, None)) is None
    r = match("medium", "easy", pairs=8, seed=5)
    by = r["split"]["by_side"]
    assert sum(v["pairs"] for v in by.values()) <= r["split"]["other_contract"]["pairs"]
    kinds = {"a named trump at both tables", "b named trump at both tables", "a alone, b not", "b alone, a not"}
    assert set(by) <= kinds
