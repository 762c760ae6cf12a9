"""The configuration file: the example loads; every mistake is refused with the key named."""
from pathlib import Path

import pytest

from controller.config import ConfigError, check_config, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "table.toml"


def test_the_commented_example_loads():
    cfg = load_config(EXAMPLE)
    assert cfg.rules.name == "standard" and cfg.computer_seats == ["W"]
    assert cfg.seats["W"].level == "hard" and cfg.display["address"] == 0x3C
    assert cfg.camera["kind"] == "picamera" and cfg.vision["k"] == 3


def test_defaults_without_a_file_section():
    cfg = check_config({})
    assert cfg.rules.name == "standard" and cfg.computer_seats == [] and cfg.camera is None


@pytest.mark.parametrize("data,message", [
    ({"tabel": {}}, r"unknown section \[tabel\]"),
    ({"table": {"nmae": "x"}}, r"\[table\] unknown key 'nmae'"),
    ({"table": {"deal_scan": "yes"}}, r"\[table\] deal_scan = 'yes': write true or false"),
    ({"table": {"first_dealer": "X"}}, r"first_dealer = 'X'"),
    ({"rules": {"preset": "euchre"}}, r"\[rules\] Unknown rules preset 'euchre'"),
    ({"rules": {"stick_dealer": True}}, r"\[rules\] unknown rule option 'stick_dealer'"),
    ({"rules": {"target": 0}}, r"\[rules\] target must be between"),
    ({"seats": {"X": {}}}, r"unknown seat 'X'"),
    ({"seats": {"W": {"kind": "robot"}}}, r"\[seats.W\] kind = 'robot'"),
    ({"seats": {"W": {"kind": "computer", "level": "expert"}}}, r"level = 'expert'"),
    ({"seats": {"N": {"level": "hard"}}}, r"level applies only to a computer seat"),
    ({"seats": {"N": {"kind": "computer"}, "E": {"kind": "computer"}}}, r"several computer seats"),
    ({"seats": {"N": {"kind": "computer"}, "E": {"kind": "computer"}},
      "reader": {"kind": "rack", "practice": True}}, r"several computer seats"),
    ({"reader": {"kind": "rack"}}, r"practice games"),
    ({"reader": {"kind": "window"}}, r"needs \[reader.camera\]"),
    ({"reader": {"kind": "scanner"}}, r"add the \[board\]"),
    ({"reader": {"kind": "window", "camera": {"kind": "v4l2", "device": 1}, "mode": "plain"}},
     r"calibrate the deck through the reader camera"),
    ({"reader": {"kind": "window", "camera": {"kind": "v4l2", "lens": 2}}},
     r"\[reader.camera\] unknown key 'lens'"),
    ({"reader": {"kind": "window", "camera": {"kind": "v4l2"}, "window": [0.9, 0, 0.1, 1]}},
     r"\[reader\] window"),
    ({"reader": {"kind": "teleport"}}, r"\[reader\] kind = 'teleport'"),
    ({"vision": {"mode": "plain"}}, r"needs deck"),
    ({"vision": {"k": 0}}, r"\[vision\] k = 0"),
    ({"camera": {"kind": "webcam"}}, r"\[camera\] kind = 'webcam'"),
    ({"camera": {"kind": "v4l2", "resolution": 720}}, r"unknown key 'resolution'"),
    ({"display": {"driver": "ssd1306", "adress": 60}}, r"\[display\].*unknown key 'adress'"),
    ({"panel": {"pins": {"spades": 26}}}, r"\[panel\].*no button 'spades'"),
    ({"speaker": {"voise": "en"}}, r"\[speaker\].*unknown key 'voise'"),
    ({"board": {"kind": "usb"}}, r"\[board\].*board kind 'usb' unknown"),
])
def test_mistakes_are_refused_with_the_key_named(data, message):
    with pytest.raises(ConfigError, match=message):
        check_config(data, source="t.toml")


def test_unreadable_files_say_so(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nname = 1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


def test_deal_scan_allows_several_computer_seats():
    cfg = check_config({"table": {"deal_scan": True},
                        "seats": {"N": {"kind": "computer"}, "E": {"kind": "computer"}}})
    assert cfg.computer_seats == ["N", "E"]


def _run_check(tmp_path, text):
    import subprocess
    import sys
    path = tmp_path / "t.toml"
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(path),
                           "--check"], capture_output=True, text=True)


def test_run_check_needs_a_private_reader_for_a_computer_seat(tmp_path):
    seat = '[table]\nstate_dir = "%s"\n[seats.W]\nkind = "computer"\n' % tmp_path
    r = _run_check(tmp_path, seat)
    assert r.returncode == 2 and "[reader] is missing" in r.stderr and "Traceback" not in r.stderr
    r = _run_check(tmp_path, seat + '[reader]\nkind = "rack"\npractice = true\n')
    assert r.returncode == 0 and "PRACTICE: everyone sees the computer's cards" in r.stdout
    r = _run_check(tmp_path, seat + '[reader]\nkind = "window"\n[reader.camera]\nkind = "v4l2"\n'
                   'device = 1\n')
    assert r.returncode == 0 and "reader: window camera v4l2 1, sticker mode" in r.stdout
    r = _run_check(tmp_path, seat + '[reader]\nkind = "window"\nmode = "plain"\n'
                   'deck = "missing.npz"\n[reader.camera]\nkind = "v4l2"\n')
    assert r.returncode == 2 and "[reader] deck = 'missing.npz' cannot be used" in r.stderr


def test_the_example_configuration_has_the_reader():
    from pathlib import Path
    from controller.config import load_config, reader_problem
    cfg = load_config(Path(__file__).resolve().parents[2] / "examples" / "table.toml")
    assert cfg.reader["kind"] == "window" and cfg.reader["camera"]["camera_num"] == 1
    assert reader_problem(cfg) is None
