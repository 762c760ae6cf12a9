"""`run --check` checks what `run` needs; the no-GPIO line; the start-up line; the end of a recording."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from controller.cli import main
from controller.config import check_config
from controller.run_check import check_runnable, gpio_available

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text, name="c.toml"):
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    p = tmp_path / name
    p.write_text(f'[table]\nstate_dir = "{state}"\nfirst_dealer = "S"\n' + text)
    return str(p)


@pytest.mark.parametrize("section,words", [
    ('[vision]\nzones = "zones.json"\n', "zones file"),
    ('[vision]\nmode = "plain"\ndeck = "deck.npz"\n', "deck file"),
    ("[panel]\npins = { pass = 5 }\n[leds]\nseats = { N = 5, E = 23, S = 24, W = 25 }\n",
     "pin 5 is used twice: by the button pass in [panel] and by the LED of N in [leds]"),
    ('[display]\ndriver = "ssd1306"\n[panel]\npins = { pass = 3 }\n', "the screen's I2C bus"),
    ("[panel]\npins = { pass = 99 }\n", "pin 99 is not a GPIO"),
    ('[camera]\nkind = "folder"\npath = "/nonexistent/frames"\n', "does not exist"),
])
def test_check_finds_what_run_would_trip_on(tmp_path, capsys, monkeypatch, section, words):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    cfg = write(tmp_path, section)
    assert main(["run", "--config", cfg, "--check"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert all(line.startswith("euchre-table run: ") for line in err.strip().splitlines())


def test_check_loads_the_zones_and_deck_files(tmp_path, capsys, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    (state / "zones.json").write_text("[" * 5000 + "]" * 5000)
    np.save(state / "deck.npy", np.array([{"x": 1}], dtype=object))
    cfg = write(tmp_path, '[vision]\nzones = "zones.json"\nmode = "plain"\ndeck = "deck.npy"\n')
    assert main(["run", "--config", cfg, "--check"]) == 2
    err = capsys.readouterr().err
    assert "the zones file" in err and "cannot be used" in err and "the deck file" in err
    assert "pickle" not in err and "Traceback" not in err


def test_a_state_folder_that_cannot_be_written(tmp_path):
    cfg = check_config({"table": {"state_dir": "/proc/euchre-table-state"}})
    assert any("not writable" in p for p in check_runnable(cfg))


def test_a_good_configuration_passes_the_check(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    cfg = write(tmp_path, '[panel]\npins = { pass = "GPIO5", order = "BOARD31" }\n'
                          '[display]\ndriver = "ssd1306"\n')
    assert main(["run", "--config", cfg, "--check"]) == 0
    assert "the table can run" in capsys.readouterr().out


@pytest.mark.skipif(gpio_available(), reason="this machine has GPIO")
def test_off_a_pi_run_says_in_one_line_there_is_no_gpio(tmp_path):
    cfg = write(tmp_path, "[panel]\npins = { pass = 5 }\n")
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", cfg],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no GPIO" in lines[0] and "GPIOZERO_PIN_FACTORY=mock" in lines[0]


def test_run_logs_one_start_up_line_for_the_journal(tmp_path):
    from controller.log import EventLog
    cfg = write(tmp_path, "")
    with EventLog(str(tmp_path / "state" / "table-log.sqlite")) as log:
        for i, e in enumerate([{"type": "hand", "dealer": "S"}, {"type": "upcard", "card": "JH"}]):
            log.append(e, at=float(i))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", cfg],
                         cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        deadline = time.time() + 60
        while time.time() < deadline and "started" not in line:
            line = p.stderr.readline()
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    assert f"config {cfg}" in line and "table-log.sqlite (2 events replayed)" in line
    assert "resumed at event 2, hand 1" in line and "West is to bid" in line


def test_the_end_of_a_recorded_camera_source_is_not_a_cable_to_check(tmp_path):
    import cv2

    from controller.service import TableService
    from tests.controller.test_service import Recorder
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(3):
        cv2.imwrite(str(frames / f"{i}.png"), np.full((48, 64, 3), 90, np.uint8))
    cfg = check_config({"table": {"state_dir": str(tmp_path), "first_dealer": "S"},
                        "camera": {"kind": "folder", "path": str(frames)}})
    from controller.service import build_devices
    rec = Recorder()
    svc = TableService(cfg, screen=rec, speaker=rec, **build_devices(cfg))
    try:
        for _ in range(8):
            svc.step()
        said = " ".join(rec.said)
        assert "recording" in said and "has ended" in said
        assert "cable" not in said and "camera" not in svc.faults
        assert svc.camera is None and svc.open_camera is None     # not retried
        assert json.dumps(rec.said).count("has ended") == 1
    finally:
        svc.close()


def test_check_says_which_cards_a_plain_deck_sets_aside(tmp_path, capsys, monkeypatch):
    # A deck whose calibration could not tell two cards apart still runs the table; the
    # check says which cards it will refuse.
    from vision.plain.deck import PlainDeck
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    rng = np.random.default_rng(1)
    faces = [rng.integers(0, 255, (200, 140, 3), dtype=np.uint8) for _ in range(3)]
    cfg = write(tmp_path, '[vision]\nmode = "plain"\ndeck = "deck.npz"\n')
    deck = PlainDeck(name="d", cards=["9S", "10D", "10H"], faces=faces, aspect=0.7)
    deck.save(tmp_path / "state" / "deck.npz")
    assert main(["run", "--config", cfg, "--check"]) == 0
    assert "sets aside" not in capsys.readouterr().out
    deck.held = ["10D", "10H"]
    deck.save(tmp_path / "state" / "deck.npz")
    assert main(["run", "--config", cfg, "--check"]) == 0
    out = capsys.readouterr().out
    assert "the table can run" in out and "sets aside 10D 10H" in out


def test_run_logs_the_cards_a_plain_deck_sets_aside(tmp_path):
    from vision.plain.deck import PlainDeck
    rng = np.random.default_rng(2)
    faces = [rng.integers(0, 255, (200, 140, 3), dtype=np.uint8) for _ in range(3)]
    cfg = write(tmp_path, '[vision]\nmode = "plain"\ndeck = "deck.npz"\n')
    PlainDeck(name="d", cards=["9S", "QD", "QH"], faces=faces, aspect=0.7,
              held=["QD", "QH"]).save(tmp_path / "state" / "deck.npz")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", cfg],
                         cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not any("sets aside" in x for x in lines):
            lines.append(p.stderr.readline())
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    said = [x for x in lines if "sets aside" in x]
    assert said and "WARNING" in said[0] and "QD QH" in said[0]
    assert any("started" in x for x in lines[:lines.index(said[0])])
