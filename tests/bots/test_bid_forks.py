"""bench.bid_forks: every bid Insane searched is played out on the true deal, and the outcomes judge its predictions."""
import json

from bench import bid_forks
from engine import Hand, Rules
from bench.match import deal_for, make_player
from engine.cards import SEATS


def test_forks_give_every_searched_bid_an_outcome(tmp_path):
    out = tmp_path / "forks.json"
    r = bid_forks.run("insane:samples=8", "medium", seed=3, deals=3, out=str(out))
    assert json.loads(out.read_text())["deals"] == 3
    recs = r["records"]
    assert recs, "Insane searched no bids in three deals"
    for rec in recs:
        assert rec["chosen"] in rec["outcome"]
        assert set(rec["outcome"]) == set(rec["means"])      # every bid searched was played out
        assert all(isinstance(v, int) and -4 <= v <= 4 for v in rec["outcome"].values())
    s = r["summary"]
    assert s["decisions"] == len(recs)
    assert sum(v["n"] for v in s["chosen"].values()) == len(recs)
    assert s["blend"]["alternatives"] >= len(recs)
    assert set(s["blend"]["mse_by_exact_weight"]) == {str(w / 10) for w in range(11)}
    # no correction: the same bids; a huge pick-up bonus: the dealer always picks up
    assert all(bid_forks.choose(rec) == rec["chosen"] for rec in recs)
    for rec in recs:
        if rec["phase"] == "round 1" and rec["rel"] == 0 and "order" in rec["means"]:
            assert bid_forks.choose(rec, pickup_bonus=100) == "order"


def test_a_lone_bid_can_be_judged_by_its_playouts_alone():
    # The race's mean is half the exact solver's points and half the playouts': judged by
    # the playouts alone (alone_mix=0), a lone bid the solver underrates is chosen.
    rec = {"phase": "round 1", "rel": 1, "chosen": "order", "mix": 0.5,
           "means": {"order": 1.0, "order alone": 0.9, "pass": 0.2},
           "exact": {"order": 1.0, "order alone": 0.5, "pass": 0.2},
           "playouts": {"order": 1.0, "order alone": 1.3, "pass": 0.2}}
    assert bid_forks.choose(rec) == "order"
    assert bid_forks.choose(rec, alone_mix=rec["mix"]) == "order"
    assert bid_forks.choose(rec, alone_mix=0.0) == "order alone"      # 0.9 + 0.5 * 0.8 = 1.3
    assert bid_forks.choose(rec, alone_mix=1.0) == "order"            # 0.9 - 0.5 * 0.8 = 0.5


def test_the_chosen_bids_outcome_is_the_hand_as_played():
    rules = Rules.preset("standard")
    deal = deal_for(rules, 3, 1)
    players = {s: make_player("insane:samples=8" if i % 2 == 0 else "medium", 3 * 31 + i, rules, budget=None)
               for i, s in enumerate(SEATS)}
    recs = bid_forks.play_deal(deal, players, rules, ["N", "S"])
    assert len(recs) == 3
    assert bid_forks.play_deal(deal, players, rules, []) == []   # nothing recorded
    # the same hand played without forks: the chosen bids' outcome is its score
    h = Hand.deal(rules, dealer=deal["dealer"], hands=deal["hands"], upcard=deal["upcard"], kitty=deal["kitty"])
    h.score = (0, 0)
    h = bid_forks._finish(h, players)
    ns = h.result.points["NS"] - h.result.points["EW"]
    for rec in recs:
        assert rec["seat"] in "NS"
        assert rec["outcome"][rec["chosen"]] == ns


def test_a_level_that_is_not_insane_is_refused():
    import pytest
    with pytest.raises(ValueError, match="not Insane"):
        bid_forks.run("hard", "medium", seed=1, deals=1)


def test_an_out_file_that_cannot_be_written_is_one_line(tmp_path, capsys):
    assert bid_forks.main(["--deals", "1", "--out", str(tmp_path / "no" / "such" / "forks.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err
