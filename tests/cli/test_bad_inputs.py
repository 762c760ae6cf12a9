"""No traceback anywhere: every subcommand of the command line against a battery of bad inputs.

The subcommands come from the command line's own parser (``tests/cli/battery.py`` says
how the cases are made), so a subcommand added later is in the battery without a change
here. Each subcommand runs in its own process (a command may change global state: signal
handlers, the pin factory, logging).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser
from tests.cli.battery import cases, make_files, subcommands

ROOT = Path(__file__).resolve().parents[2]
SUBCOMMANDS = [" ".join(words) for words, _ in subcommands(build_parser())]


def test_the_battery_knows_every_subcommand():
    # The parser is the list: at least the commands of the README are there.
    for name in ("simulate", "play", "run", "referee", "stats", "match", "recognize",
                 "stickers", "calibrate deck", "mat", "board-sim", "board-monitor"):
        assert name in SUBCOMMANDS


def test_each_option_meets_every_kind_of_bad_input(tmp_path):
    words, parser = next((w, p) for w, p in subcommands(build_parser()) if w == ("referee",))
    f = make_files(tmp_path)
    argvs = [" ".join(a) for a, _ in cases(words, parser, f, tmp_path)]
    for kind in ("empty.txt", "binary.bin", "huge.png", "folder", "readonly", "nothing.here",
                 "abc", "--no-such-option", "deep.jsonl", "foreign.sqlite"):
        assert any(kind in a for a in argvs), kind


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_no_bad_input_ends_in_a_traceback(command, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), GPIOZERO_PIN_FACTORY="")
    env.pop("GPIOZERO_PIN_FACTORY")
    r = subprocess.run([sys.executable, "-m", "tests.cli.battery", command, str(tmp_path)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    results = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert r.returncode == 0, r.stderr[-3000:]
    assert len(results) >= 8
    failed = [f"{' '.join(x['argv'])[:200]} (stdin {x['stdin']!r}): {x['stderr'].strip()[-600:]}"
              for x in results if x["failed"]]
    assert not failed, f"{len(failed)} of {len(results)} cases failed:\n" + "\n".join(failed[:15])
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
