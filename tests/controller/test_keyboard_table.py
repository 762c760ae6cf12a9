"""Trying the service without a Pi: the example laptop configuration, fake pins, a table typed at the keyboard."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import load_config
from vision.art import art_available

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "laptop.toml"


def test_the_laptop_example_passes_the_check_with_fake_pins(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--config", str(EXAMPLE), "--check", "--keys"]) == 0
    assert "the table can run" in capsys.readouterr().out


@pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")
def test_the_real_service_referees_a_table_typed_at_the_keyboard(tmp_path, monkeypatch):
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from controller.keyboard_table import KeyboardTable, PrintedScreen
    from controller.service import TableService, build_devices
    monkeypatch.chdir(tmp_path)
    cfg = load_config(EXAMPLE)
    Path(cfg.state_dir).mkdir()                   # as `run` does
    cfg.display = dict(cfg.display, filename=str(tmp_path / "laptop-table" / "screen.gif"))
    Device.pin_factory = MockFactory()
    printed = []
    svc = loop = None
    try:
        devices = build_devices(cfg)
        devices["screen"] = PrintedScreen(devices["screen"], out=printed.append)
        devices["speaker"].stream = None          # keep the test's output quiet
        svc = TableService(cfg, **devices)
        table = KeyboardTable(svc, out=printed.append)
        svc.camera, svc.zones = table, table.calibration
        loop = threading.Thread(target=svc.run, daemon=True)
        loop.start()
        st = svc.ctl.referee.state
        deadline = time.time() + 30
        while svc.ctl.referee.state["phase"] == "no hand" and time.time() < deadline:
            time.sleep(0.05)
        for line in ("deal JH JD AH 9C 10S", "up 9H"):
            assert table.handle(line) is None
        deadline = time.time() + 10
        while svc.ctl.referee.state["upcard"] is None and time.time() < deadline:
            time.sleep(0.05)
        st = svc.ctl.referee.state
        assert st["upcard"] == "9H" and st["phase"] in ("deal", "round 1")
        assert svc.ctl.referee.records()[0]["known"]["W"] == "JH JD AH 9C 10S"
        ref = svc.ctl.referee

        def wait(cond, seconds=15):
            deadline = time.time() + seconds
            while not cond() and time.time() < deadline:
                time.sleep(0.05)
            return cond()

        # West, the Pi, bids by itself; if it passes, North orders up with the button.
        # The referee moves on before the service offers North's bids to the panel: a
        # press in between is refused ("No bid is expected now"), so wait for the panel.
        assert wait(lambda: ref.state["to_act"] != "W" and (
            ref.state["phase"] not in ("deal", "round 1")
            or any(a.startswith("order") for a in svc.panel.composer.legal)))
        if ref.state["phase"] in ("deal", "round 1"):
            assert table.handle("order") is None
            assert wait(lambda: ref.state["phase"] == "discard")
        assert ref.state["phase"] == "discard" and ref.state["to_act"] == "S"
        # South, the dealer, takes the up-card: the camera sees it leave, that is the discard.
        assert table.handle("up off") is None
        assert wait(lambda: ref.expected("W") is not None)
        card = ref.expected("W")                  # the Pi says which card to put down
        assert table.handle(f"W {card}") is None
        assert wait(lambda: ref.state["to_act"] == "N")
        assert ref.state["trick"] == [["W", str(card)]]
        assert table.handle("show").startswith("On the table:")
        assert "Not understood" in table.handle("shuffle the deck")
        assert any(line.startswith("[screen]") for line in printed)
    finally:
        if svc is not None:
            svc.stopping.set()
        if loop is not None:
            loop.join(timeout=10)
        Device.pin_factory.reset()
        Device.pin_factory = None
    assert svc.log.path.endswith("laptop-table/table-log.sqlite")
