"""`euchre-table simulate --engine-only`: a whole game of random legal play, printed and as JSON."""
import json

from controller.cli import main


def test_simulate_prints_a_whole_game(capsys):
    assert main(["simulate", "--engine-only", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1:" in out and "Trick 5:" in out and " win " in out


def test_simulate_json_is_replayable_by_seed(capsys):
    main(["simulate", "--engine-only", "--seed", "11", "--json"])
    first = json.loads(capsys.readouterr().out)
    main(["simulate", "--engine-only", "--seed", "11", "--json"])
    assert json.loads(capsys.readouterr().out) == first
    assert first["score"][first["winner"]] >= 10


def test_simulate_refuses_bad_rules_with_a_reason(capsys):
    assert main(["simulate", "--rules", "standard,target=ten"]) == 2
    assert "target is a whole number" in capsys.readouterr().err
