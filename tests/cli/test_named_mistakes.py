"""The mistakes that ended in a traceback, each now one line that says what is wrong and what to do, exit 2."""
from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parents[2]


def png(width, height) -> bytes:
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def one_line(capsys, argv, *words, code=2):
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out and "internal error" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_play_rules_and_end_of_input(capsys, monkeypatch):
    one_line(capsys, ["play", "--rules", "nope"], "Unknown rules preset 'nope'")
    monkeypatch.setattr("sys.stdin", open(os.devnull))
    assert main(["play", "--seed", "1"]) == 0
    assert "Game left unfinished" in capsys.readouterr().out


def test_stats_missing_log_and_bad_config(tmp_path, capsys):
    one_line(capsys, ["stats", "--log", str(tmp_path / "nope.sqlite")], "no such file")
    (tmp_path / "bad.toml").write_text("[table]\nstate_dir = 5\n")
    one_line(capsys, ["stats", "--config", str(tmp_path / "bad.toml")], "state_dir = 5")


def test_run_config_on_a_folder_or_not_utf8(tmp_path, capsys):
    one_line(capsys, ["run", "--config", str(tmp_path)], "is a folder")
    (tmp_path / "c.toml").write_bytes('[table]\nname = "caf\xe9"\n'.encode("latin-1"))
    one_line(capsys, ["run", "--config", str(tmp_path / "c.toml")], "not a text file in UTF-8")


def test_images_claiming_to_be_huge(tmp_path, capsys):
    (tmp_path / "huge.png").write_bytes(png(60000, 60000))
    one_line(capsys, ["recognize", str(tmp_path / "huge.png")], "too big", code=1)
    one_line(capsys, ["mat", "--calibrate", str(tmp_path / "huge.png"), "--out",
                      str(tmp_path / "z.json")], "too big")
    assert not (tmp_path / "z.json").exists()


def test_outputs_in_the_wrong_place(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("# readme\n")
    one_line(capsys, ["mat", "--pdf", "nosuchdir/mat.pdf"], "does not exist")
    one_line(capsys, ["stickers", "--png-dir", "README.md"], "is a file")
    one_line(capsys, ["simulate", "--out", "README.md", "--seed", "1"], "is a file")
    one_line(capsys, ["simulate", "--size", "1x1", "--seed", "1"], "320x240")
    assert (tmp_path / "README.md").read_text() == "# readme\n"


def test_a_deck_file_that_is_not_one(tmp_path, capsys):
    np.save(tmp_path / "deck.npy", np.array([{"x": 1}], dtype=object))
    (tmp_path / "frame.png").write_bytes(png(2, 2))
    line = one_line(capsys, ["recognize", "--mode", "plain", "--deck", str(tmp_path / "deck.npy"),
                             str(tmp_path / "frame.png")], "deck.npy")
    assert "pickle" not in line


def test_output_into_a_closed_pipe_is_quiet_and_does_not_blame_the_log(tmp_path):
    from engine import Rules
    from engine.records import events_of_game, play_random_game
    import json
    events = events_of_game(play_random_game(Rules.preset("standard"), seed=2))
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv in (["referee", str(log), "--json"], ["referee", str(log), "--records"],
                 ["simulate", "--engine-only", "--seed", "3"]):
        r = subprocess.run(f"{sys.executable} -m controller.cli {' '.join(argv)} | head -1",
                           shell=True, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
        assert r.stderr == "", r.stderr
        assert len(r.stdout.splitlines()) == 1


@pytest.mark.parametrize("argv,words", [
    (["board-monitor", "--port", "/dev/nonexistent-euchre", "--seconds", "0.3"],
     "waiting for /dev/nonexistent-euchre to appear"),
])
def test_board_monitor_says_it_waits_for_the_port(capsys, argv, words):
    assert main(argv) == 1           # never connected in the time given
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_board_monitor_refuses_a_regular_file(tmp_path, capsys):
    (tmp_path / "notaport").write_text("x")
    one_line(capsys, ["board-monitor", "--port", str(tmp_path / "notaport")],
             "is a regular file, not a serial port")
