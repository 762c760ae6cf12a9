"""Tests of make_board: no board, a serial board, a simulated board, and refused settings."""
import json

import pytest

from firmware_host import BoardConfigError, BoardLink, make_board
from firmware_host.messages import Beep, ButtonEvent


@pytest.mark.parametrize("config", [None, {}])
def test_no_board(config):
    assert make_board(config) is None


def test_serial_board_is_built_but_not_opened():
    link = make_board({"port": "/dev/serial/by-id/usb-euchre-board-if00", "baud": 57600,
                       "heartbeat_timeout": 2})
    assert isinstance(link, BoardLink)
    assert (link.port_path, link.baud, link.status) == ("/dev/serial/by-id/usb-euchre-board-if00",
                                                        57600, "stopped")
    assert link.protocol.heartbeat_timeout == 2


def test_simulated_board_works_end_to_end():
    link = make_board({"kind": "simulated", "retry_timeout": 0.01}).start()
    try:
        link.wait_connected(timeout=2)
        link.send(Beep(600, 60), timeout=2)
        link.simulator.press(2)
        assert link.events.get(timeout=2) == ButtonEvent(2, True)
        assert link.simulator.received == [Beep(600, 60)]
    finally:
        link.close()
    assert not link.simulator.plugged


@pytest.mark.parametrize("config, message", [
    ({"port": "/dev/ttyACM0", "speed": 9600}, "unknown board setting 'speed'; known settings: kind, port, baud"),
    ({"kind": "bluetooth"}, "board kind 'bluetooth' unknown: use \"serial\""),
    ({"kind": "serial"}, "a serial board needs \"port\""),
    ({"baud": 115200}, "board kind None unknown"),
    ({"port": "/dev/ttyACM0", "baud": "fast"}, "'baud' must be a non-negative int, got 'fast'"),
    ({"port": "/dev/ttyACM0", "baud": 0}, "'baud' must be positive"),
    ({"port": "/dev/ttyACM0", "heartbeat_timeout": -1}, "'heartbeat_timeout' must be a non-negative float"),
    ({"port": "/dev/ttyACM0", "corrupt": 0.1}, "corrupt only apply to \"kind\": \"simulated\""),
    ({"kind": "simulated", "reboot_on_replug": 1}, "'reboot_on_replug' must be a true/false"),
    ("/dev/ttyACM0", "must be a table of settings"),
])
def test_bad_settings_are_refused_with_a_reason(config, message):
    with pytest.raises(BoardConfigError) as info:
        make_board(config)
    assert message in str(info.value)


def test_board_commands_register_and_monitor_a_simulated_board(capsys):
    import argparse

    from firmware_host import cmd_board
    from firmware_host.simboard import SimulatedBoard

    parser = argparse.ArgumentParser()
    cmd_board.register(parser.add_subparsers())
    with SimulatedBoard() as board:
        board.scan("QS")
        args = parser.parse_args(["board-monitor", "--port", board.path, "--seconds", "0.5",
                                  "--beep", "--json"])
        assert args.func(args) == 0
        assert board.received == [Beep(880, 80)]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"status": "connecting", "reason": "waiting for the board to answer identify"}
    assert {"type": "CardScanned", "text": "QS", "card": "QS"} in lines
    assert lines[-1]["counters"]["handshakes"] == 1


def test_board_monitor_without_a_board_says_so(tmp_path, capsys):
    import argparse

    from firmware_host import cmd_board

    parser = argparse.ArgumentParser()
    cmd_board.register(parser.add_subparsers())
    args = parser.parse_args(["board-monitor", "--port", str(tmp_path / "none"), "--seconds", "0.3"])
    assert args.func(args) == 1
    assert "status=unplugged reason=board unplugged: cannot open" in capsys.readouterr().out
