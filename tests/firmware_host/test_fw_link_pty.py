"""Tests of BoardLink over pyserial against the simulated board on a real pty: noise,
unplug and replug at the same path, heartbeat loss, versions, exclusivity."""
import os
import statistics
import subprocess
import sys
import threading
import time

import pytest

from firmware_host.link import BoardLink
from firmware_host.messages import Beep, BoardFault, ButtonEvent, CardScanned, SetLeds
from firmware_host.protocol import BoardUnavailable, IncompatibleBoard
from firmware_host.simboard import SimulatedBoard

FAST = dict(retry_timeout=0.01, heartbeat_interval=0.05, heartbeat_timeout=0.5,
            identify_interval=0.02, reopen_interval=0.2)


@pytest.fixture
def board():
    with SimulatedBoard(seed=3, retry_timeout=0.01, heartbeat_interval=0.05) as sim:
        yield sim


def wait_for(condition, timeout, what):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"{what} did not happen within {timeout} s"
        time.sleep(0.005)


def test_connect_command_and_events(board):
    statuses = []
    with BoardLink(board.path, on_status=lambda s, r: statuses.append(s), **FAST) as link:
        info = link.wait_connected(timeout=2)
        assert info.name == "euchre-sim" and info.major == 1
        assert link.connected and statuses == ["connecting", "connected"]
        delivery = link.send(SetLeds(((2, 0, 255, 0),)), timeout=2)
        assert delivery.error is None
        board.click(4)
        board.scan("th")
        board.fault(7, "scanner jammed")
        got = [link.events.get(timeout=2) for _ in range(4)]
        assert got == [ButtonEvent(4, True), ButtonEvent(4, False), CardScanned("th"),
                       BoardFault(7, "scanner jammed")]
        assert got[2].card == "10H"
        assert board.received == [SetLeds(((2, 0, 255, 0),))]
    assert link.status == "stopped"


def test_ten_percent_noise_both_ways_each_message_once_and_in_order(board):
    n = 200
    options = dict(FAST, retry_timeout=0.004, max_retries=500, heartbeat_timeout=3.0)
    board.protocol.retry_timeout = 0.004
    with BoardLink(board.path, send_timeout=30, **options) as link:
        link.wait_connected(timeout=2)
        board.corrupt = 0.10

        def press_all():
            for i in range(n):
                while len(board.protocol.tx_queue) > 30:
                    time.sleep(0.002)
                board.press(i % 256) if i % 2 else board.scan(f"{i}")

        presser = threading.Thread(target=press_all)
        presser.start()
        for i in range(n):
            link.send(Beep(i, 10))
        presser.join()
        events = [link.events.get(timeout=20) for _ in range(n)]
        time.sleep(0.05)
        counts = link.counters
    assert board.received == [Beep(i, 10) for i in range(n)]
    assert events == [ButtonEvent(i % 256, True) if i % 2 else CardScanned(f"{i}") for i in range(n)]
    assert link.events.empty()
    # The noise really was there, and was survived by retransmission.
    assert board.bytes_corrupted > 1000
    assert counts["bad_crc"] + counts["bad_cobs"] > 100
    assert counts["retransmissions"] > n
    assert counts.get("losses", 0) == 0


def test_unplug_and_replug_at_the_same_path_recovers_within_2_s(board):
    recoveries = []
    with BoardLink(board.path, **FAST) as link:
        link.wait_connected(timeout=2)
        for cycle in range(3):
            board.unplug()
            assert link.wait_status("unplugged", timeout=1)
            assert link.reason.startswith("board unplugged")
            assert not os.path.exists(board.path)
            queued = link.send_nowait(Beep(100 + cycle, 5))     # waits for the board
            board.press(cycle)                                  # the board keeps it too
            time.sleep(0.3)
            assert not queued.done
            replugged = time.monotonic()
            board.replug()
            link.wait_connected(timeout=2)
            assert queued.wait(2) and queued.error is None
            recoveries.append(time.monotonic() - replugged)
            assert link.events.get(timeout=2) == ButtonEvent(cycle, True)
        assert link.send(Beep(1, 1), timeout=2).error is None
    assert board.received == [Beep(100, 5), Beep(101, 5), Beep(102, 5), Beep(1, 1)]
    assert max(recoveries) < 2.0, recoveries
    print(f"recovery after replug: median {statistics.median(recoveries) * 1000:.0f} ms")


def test_a_board_that_reboots_on_replug_is_identified_again():
    with SimulatedBoard(reboot_on_replug=True, retry_timeout=0.01) as board, \
            BoardLink(board.path, **FAST) as link:
        link.wait_connected(timeout=2)
        first = link.board.session
        board.unplug()
        assert link.wait_status("unplugged", timeout=1)
        board.replug()
        link.wait_connected(timeout=2)
        assert link.board.session != first and link.board.prev_session == 0
        link.send(Beep(5, 5), timeout=2)
        assert board.received == [Beep(5, 5)]


def test_send_times_out_while_unplugged_and_the_command_is_withdrawn(board):
    with BoardLink(board.path, **FAST) as link:
        link.wait_connected(timeout=2)
        board.unplug()
        assert link.wait_status("unplugged", timeout=1)
        with pytest.raises(BoardUnavailable, match="not confirmed within 0.3 s .*board unplugged.*withdrawn"):
            link.send(Beep(9, 9), timeout=0.3)
        board.replug()
        link.wait_connected(timeout=2)
        link.send(Beep(10, 10), timeout=2)
    assert board.received == [Beep(10, 10)]


def test_silent_board_is_marked_lost_and_the_link_reconnects(board):
    with BoardLink(board.path, **FAST) as link:
        link.wait_connected(timeout=2)
        board.freeze()
        frozen = time.monotonic()
        assert link.wait_status("lost", timeout=2)
        assert 0.4 < time.monotonic() - frozen < 2.0
        assert link.reason.startswith("board silent for")
        board.thaw()
        link.wait_connected(timeout=3)
        link.send(Beep(2, 2), timeout=2)
        statuses = [status for _, status, _ in link.status_history]
    assert statuses[:4] == ["connecting", "connected", "lost", "connecting"]
    assert statuses[-1] == "connected"
    assert board.received == [Beep(2, 2)]


def test_incompatible_board_on_a_port():
    with SimulatedBoard(major=2, minor=3) as board, BoardLink(board.path, **FAST) as link:
        with pytest.raises(IncompatibleBoard, match=r"protocol 2\.3, but this host supports only 1\.x"):
            link.wait_connected(timeout=2)
        assert link.status == "incompatible"
        with pytest.raises(IncompatibleBoard):
            link.send(Beep(1, 1))


def test_port_is_opened_exclusively(board):
    with BoardLink(board.path, **FAST) as first:
        first.wait_connected(timeout=2)
        second = BoardLink(board.path, **FAST).start()
        try:
            assert second.wait_status("unplugged", timeout=2)
            assert "exclusively lock" in second.reason
        finally:
            second.close()
        assert first.send(Beep(3, 3), timeout=2).error is None


def test_missing_port_is_reported_and_found_when_it_appears(tmp_path):
    path = str(tmp_path / "usb-board-if00")
    with BoardLink(path, **FAST) as link:
        assert link.wait_status("unplugged", timeout=1)
        assert f"cannot open {path}" in link.reason
        with SimulatedBoard(path) as board:
            link.wait_connected(timeout=2)
            board.press(1)
            assert link.events.get(timeout=2) == ButtonEvent(1, True)


def test_simboard_runs_by_hand(tmp_path):
    path = str(tmp_path / "board")
    with subprocess.Popen([sys.executable, "-m", "firmware_host.simboard", "--path", path],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as proc:
        run_by_hand(proc, path)


def run_by_hand(proc, path):
    try:
        assert proc.stdout.readline().startswith(f"simulated board at {path} -> /dev/pts/")
        proc.stdout.readline()
        with BoardLink(path, **FAST) as link:
            link.wait_connected(timeout=3)
            link.send(Beep(440, 100), timeout=2)
            assert proc.stdout.readline().strip() == "board got: Beep(frequency_hz=440, duration_ms=100)"
            proc.stdin.write("scan JH\n")
            proc.stdin.flush()
            assert link.events.get(timeout=2) == CardScanned("JH")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()


def test_a_failing_callback_does_not_stop_the_link(board, caplog):
    def broken(event):
        raise RuntimeError("handler bug")

    with BoardLink(board.path, on_event=broken, **FAST) as link:
        link.wait_connected(timeout=2)
        board.press(1)
        board.press(2)
        assert [link.events.get(timeout=2) for _ in range(2)] == [ButtonEvent(1, True), ButtonEvent(2, True)]
        assert link.send(Beep(4, 4), timeout=2).error is None
    assert "callback" in caplog.text and "handler bug" in caplog.text
