"""Kill the table service with SIGKILL while cards are being read; the restart loses nothing."""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vision.art import art_available

pytestmark = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")
ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys
import numpy as np
from controller.config import check_config
from controller.service import TableService
from vision.sources import SyntheticSource
from vision.synth import compose_frame
from vision.zones import calibrate

state = sys.argv[1]
frame, _ = compose_frame([], size=(640, 480), rng=np.random.default_rng(1))
calibrate(frame).save(state + "/zones.json")
cfg = check_config({"table": {"state_dir": state, "first_dealer": "S"},
                    "seats": {"W": {"kind": "computer", "level": "medium"}},
                    "vision": {"k": 2, "m": 2, "zones": "zones.json"}})
cards = ["JH", "JD", "AH", "9C", "10S"]
scenes = []
for c in cards:
    scenes += [[(c, "RACK")], []]
scenes += [[("KH", "UP")]]
svc = TableService(cfg, camera=SyntheticSource(scenes, frames=3, seed=2))
submit = svc.ctl.submit_quiet
def acked(event):
    v = submit(event)
    print("ack", svc.log.last_seq, flush=True)   # acknowledged: durable in the log
    return v
svc.ctl.submit_quiet = acked
orig = svc.ctl.submit
def acked2(event):
    v = orig(event)
    print("ack", svc.log.last_seq, flush=True)
    return v
svc.ctl.submit = acked2
for _ in range(200):
    svc.step()
print("done", flush=True)
"""


def test_sigkill_at_random_moments_loses_no_acknowledged_event(tmp_path):
    from controller.log import EventLog
    from controller.service import TableService
    from engine import Rules
    from engine.referee import Referee
    from tests.controller.test_service import config
    rng = random.Random(7)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kills = 0
    for run in range(5):
        state = tmp_path / f"run{run}"
        state.mkdir()
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(state)], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, text=True)
        want = rng.randint(1, 8)
        acked = 0
        deadline = time.time() + 60
        while acked < want and time.time() < deadline:
            line = child.stdout.readline()
            if not line or line.startswith("done"):
                break
            acked = max(acked, int(line.split()[1]))
        time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
        log = EventLog(str(state / "table-log.sqlite"))
        assert log.last_seq >= acked > 0
        ref = Referee(Rules.preset("standard"), known_seats=["W"])
        for rec in log.records():
            ref.feed(rec.event(), seq=rec.seq)
        log.close()
        cfg = config(state)
        svc = TableService(cfg)
        assert svc.ctl.resumed and svc.ctl.referee.state == ref.state
        svc.close()
    assert kills == 5
