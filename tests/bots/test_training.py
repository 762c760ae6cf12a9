"""The offline fitting of Insane's models runs end to end and writes a module the bots can load; the decision benchmark scores levels on the true deal."""
import importlib.util
import json

from bench import decisions, train_models
from engine.bots.inference import N_PLAY


def test_training_writes_a_loadable_models_module(tmp_path, capsys):
    out = tmp_path / "models.py"
    # Medium self-play is fast; the fitting is the same as for the real models.
    code = train_models.main(["--hands", "60", "--seed", "5", "--level", "medium", "--out", str(out)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    # Medium plays by fixed rules: the fitted model predicts its cards far better than chance.
    assert report["heldout_ll"] > report["uniform_ll"] + 0.2
    spec = importlib.util.spec_from_file_location("fitted", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert len(mod.PLAY_WEIGHTS) == N_PLAY
    assert (1, 1) in mod.BID_CURVES and len(mod.ALONE_CURVE) == 2
    # Medium orders at an estimate of 1.9 tricks: the fitted thresholds find it.
    assert all(1.5 < t < 2.3 for (rnd, _), (t, w) in mod.BID_CURVES.items() if rnd == 1)
    assert "--hands 60 --seed 5 --level medium" in out.read_text()


def test_training_refuses_too_few_hands(capsys):
    assert train_models.main(["--hands", "5"]) == 2
    assert "at least 50" in capsys.readouterr().err


def test_decision_benchmark_scores_levels_on_the_true_deal(capsys):
    assert decisions.main(["--level", "perfect", "--level", "random", "--hands", "3", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["levels"]["perfect"]["regret_per_decision"] == 0.0
    assert r["levels"]["random"]["regret_per_decision"] > 0.0
    assert decisions.main(["--level", "grandmaster"]) == 2
    assert "Unknown level" in capsys.readouterr().err


def test_solver_speed_benchmark_reports_deals_per_second(capsys):
    from bench import solver_speed
    assert solver_speed.main(["--deals", "20", "--hands", "1", "--scale", "0.1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["solver"]["deals_per_second"] > 0 and r["solver"]["nodes_per_deal"] > 10
    assert r["insane"]["decisions"] > 0 and r["insane"]["work_budget"] == 15000
    assert r["insane"]["samples"] == 16 and r["insane"]["deals_per_decision_mean"] > 0
    assert 0 <= r["insane"]["stopped_on_work"] <= 1
    assert solver_speed.main(["--deals", "0"]) == 2
    assert solver_speed.main(["--samples", "0"]) == 2
