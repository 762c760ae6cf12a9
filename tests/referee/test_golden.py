"""Golden replays: recorded table logs through `euchre-table referee --json`, compared with saved verdicts.

The logs are in ``golden/*.jsonl`` (written by ``golden/make_logs.py``); the verdicts the
referee gave when they were reviewed are in ``golden/<log>.<rules>.expected.jsonl``. After a
deliberate change, rewrite them with ``REGOLDEN=1 .venv/bin/pytest tests/referee`` and review
the diff before keeping it.
"""
from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout

import pytest

from controller import cmd_referee

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
INDEX = json.load(open(os.path.join(HERE, "index.json")))
CASES = [(name, rules, spec["known"]) for name, spec in sorted(INDEX.items())
         for rules in spec["rules"]]


def replay(name, rules, known="", *extra) -> str:
    argv = ["referee", os.path.join(HERE, name + ".jsonl"), "--rules", rules, "--json", *extra]
    if known:
        argv += ["--known", ",".join(known)]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cmd_referee.main(argv) == 0
    return buf.getvalue()


@pytest.mark.parametrize("name,rules,known", CASES, ids=[f"{n}-{r}" for n, r, _ in CASES])
def test_golden_replay(name, rules, known):
    out = replay(name, rules, known)
    path = os.path.join(HERE, f"{name}.{rules}.expected.jsonl")
    if os.environ.get("REGOLDEN"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)
    with open(path, encoding="utf-8") as f:
        expected = f.read()
    got_lines, exp_lines = out.splitlines(), expected.splitlines()
    for i, (g, e) in enumerate(zip(got_lines, exp_lines)):
        assert json.loads(g) == json.loads(e), f"{name} ({rules}) line {i + 1} differs"
    assert len(got_lines) == len(exp_lines)


def test_every_line_of_a_log_gets_one_verdict():
    for name, spec in INDEX.items():
        with open(os.path.join(HERE, name + ".jsonl"), encoding="utf-8") as f:
            n = sum(1 for line in f if line.strip())
        out = replay(name, spec["rules"][0], spec["known"]).splitlines()
        assert len(out) == n + 1, name
        assert json.loads(out[-1])["final"] is True
