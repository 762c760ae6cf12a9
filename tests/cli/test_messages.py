"""Messages and scripts: rule options named, referee --strict, huge fields cut, the words of match and stats."""
from __future__ import annotations

import json

import pytest

from controller.cli import main
from engine import Rules
from engine.referee import Referee
from engine.rules import RulesError


@pytest.mark.parametrize("command", [["referee", "events.jsonl"], ["simulate", "--engine-only"],
                                     ["play"], ["match", "--a", "random", "--b", "random"]])
def test_an_unknown_rule_option_is_named_with_the_options(tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "events.jsonl").write_text('{"type": "hand", "dealer": "S"}\n')
    assert main(command + ["--rules", "standard,foo=1"]) == 2
    err = capsys.readouterr().err
    assert "Unknown rule option 'foo': options are" in err and "stick_the_dealer" in err
    assert "write name=value" not in err


def test_a_repeated_rule_option_is_refused():
    with pytest.raises(RulesError, match="target is given twice"):
        Rules.parse("standard,target=5,target=7")
    with pytest.raises(RulesError, match="write name=value"):
        Rules.parse("standard,target")


def test_referee_strict_counts_the_refusals_and_exits_non_zero(tmp_path, capsys):
    log = tmp_path / "events.jsonl"
    log.write_text('{"type": "hand", "dealer": "S"}\nnot json\n{"type": "collect"}\n')
    assert main(["referee", str(log)]) == 0
    out = capsys.readouterr().out
    assert "3 events, 2 refused" in out
    assert main(["referee", str(log), "--strict"]) == 1
    assert "2 of 3 events refused (--strict)" in capsys.readouterr().err
    assert main(["referee", str(log), "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["events"] == 3 and final["refused"] == 2
    log.write_text('{"type": "hand", "dealer": "S"}\n')
    assert main(["referee", str(log), "--strict"]) == 0


@pytest.mark.parametrize("event", [
    {"type": "play", "seat": "W", "card": "J" * 100000},
    {"type": "hand", "dealer": "S" * 5000},
    {"type": "x" * 100000},
    {"type": "bid", "seat": "W", "bid": list(range(150))},
    {"type": "vision_error", "reason": "r" * 100000},
    "z" * 50000,
])
def test_huge_fields_are_cut_in_messages(event):
    ref = Referee(Rules.preset("standard"))
    ref.feed({"type": "hand", "dealer": "S"})
    v = ref.feed(event)
    assert not v.ok and len(v.reason) < 400 and len(v.explain()) < 420


def test_match_says_what_it_counts(capsys):
    assert main(["match", "--a", "random", "--b", "random", "--pairs", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "names trump in" in out and "makes trump" not in out
    assert main(["match", "--a", "random", "--b", "random", "--pairs", "2", "--json"]) == 0
    rates = json.loads(capsys.readouterr().out)["rates"]["a"]
    assert "called" in rates and "made" not in rates


def test_stats_headers_come_with_a_key(tmp_path, capsys):
    from engine.records import events_of_game, play_random_game
    log = tmp_path / "e.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in events_of_game(
        play_random_game(Rules.preset("standard"), seed=4))) + "\n")
    assert main(["stats", "--log", str(log)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 finished game in" in out
    for words in ("called: hands where this player's side named trump",
                  "made: ... and took 3 tricks or more", "set: ... and were euchred"):
        assert words in out
