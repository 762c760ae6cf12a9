"""Fixtures for the club tests: a real mosquitto on a free loopback port, started and stopped by the test."""
import shutil

import pytest

from hall.broker import Broker

USERS = {"hall": "hallpw", **{str(t): f"pw{t}" for t in range(1, 11)}}


def needs(exe):
    return pytest.mark.skipif(shutil.which(exe) is None and not shutil.os.path.exists(f"/usr/sbin/{exe}"),
                              reason=f"{exe} is not installed (make setup installs it)")


@pytest.fixture
def broker(tmp_path):
    """mosquitto with a password for the hall and tables 1-10, and the club ACL."""
    b = Broker("mosquitto", users=USERS, folder=str(tmp_path / "broker")).start()
    yield b
    b.close()


@pytest.fixture
def open_broker(tmp_path):
    """mosquitto without users or ACL: lets a test send what a broker with the ACL would
    stop, to check that the hall refuses it too."""
    b = Broker("mosquitto", folder=str(tmp_path / "open-broker")).start()
    yield b
    b.close()


def wait_for(cond, timeout=10.0, step=0.02):
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()
