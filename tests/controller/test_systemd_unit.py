"""The systemd unit: `systemd-analyze verify` prints nothing and the exposure score is at most 4.0."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "euchre-table.service"
ANALYZE = shutil.which("systemd-analyze")
pytestmark = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze missing: make setup installs systemd")


@pytest.fixture
def unit(tmp_path):
    # ExecStart must exist for verify: point it at this test's venv.
    exe = Path(sys.executable).parent / "euchre-table"
    assert exe.exists(), "the euchre-table console script is installed by make setup"
    text = UNIT.read_text().replace("/opt/euchre-table/.venv/bin/euchre-table", str(exe))
    path = tmp_path / "euchre-table.service"
    path.write_text(text)
    return path


def test_verify_prints_nothing(unit):
    # It only warns on misspelled keys (exit 0), so any output at all is a failure.
    p = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p.stdout + p.stderr


def test_security_exposure_at_most_4(unit):
    p = subprocess.run([ANALYZE, "security", "--offline=true", str(unit)],
                       capture_output=True, text=True)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", p.stdout)
    assert m, p.stdout + p.stderr
    assert float(m.group(1)) <= 4.0


def test_unit_keeps_devices_reachable_and_runs_as_its_own_user():
    text = UNIT.read_text()
    assert not re.search(r"^PrivateDevices=", text, re.M)
    assert "Type=notify" in text and "WatchdogSec=" in text and "Restart=on-failure" in text
    groups = re.search(r"^SupplementaryGroups=(.*)$", text, re.M).group(1).split()
    assert set(groups) >= {"gpio", "i2c", "video", "audio", "dialout"}
    assert re.search(r"^User=euchre-table$", text, re.M) and "StateDirectory=euchre-table" in text
