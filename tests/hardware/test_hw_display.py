"""Tests of the OLED status screen: layout against golden images, the luma devices, faults.

Golden images live in tests/reference/display/. After a deliberate change of layout,
rewrite them with ``REGEN_GOLDEN=1 .venv/bin/pytest -q tests/hardware`` and look at them
(scaled up) before committing.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from hardware import display
from hardware.display import (EXAMPLES, Screen, TableStatus, check_display_config, fit_text,
                              make_display, render, text_width)

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "reference" / "display"
GOLDEN = ["bidding", "bidding_round2", "lone_hand", "revoke", "hand_over", "game_over", "fault"]


class FakeSMBus:
    """Stands in for smbus2.SMBus under luma's i2c interface: records every block
    write; ``fail`` > 0 makes that many writes fail as if nothing answered."""

    def __init__(self, fail: int = 0):
        self.writes = []
        self.fail = fail

    def write_i2c_block_data(self, address, register, data):
        if self.fail:
            self.fail -= 1
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.writes.append((address, register, list(data)))


def ssd1306_frame(writes, width=128, height=64) -> Image.Image:
    """Decode the last frame of display data sent to an SSD1306 (pages of 8 rows,
    one byte per column, low bit on top) back into an image."""
    data = [b for _, reg, chunk in writes if reg == 0x40 for b in chunk]
    frame = data[-width * height // 8:]
    img = Image.new("1", (width, height), 0)
    for page in range(height // 8):
        for x in range(width):
            byte = frame[page * width + x]
            for bit in range(8):
                if byte >> bit & 1:
                    img.putpixel((x, page * 8 + bit), 1)
    return img


@pytest.mark.parametrize("name", GOLDEN)
def test_screen_matches_golden_image(name, tmp_path):
    image = render(EXAMPLES[name])
    path = GOLDEN_DIR / f"{name}.png"
    if os.environ.get("REGEN_GOLDEN") == "1":
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        image.save(path)
    assert path.exists(), f"no golden image {path}: run with REGEN_GOLDEN=1 to create it"
    golden = Image.open(path).convert("1")
    diff = ImageChops.logical_xor(golden, image)
    changed = sum(diff.histogram()[1:])
    if changed:
        image.save(tmp_path / f"{name}.png")
    assert changed == 0, (f"{name}: {changed} pixels differ from {path}; the new rendering is in "
                          f"{tmp_path}. If the change is wanted, rerun with REGEN_GOLDEN=1.")


def test_golden_images_are_distinct_and_not_blank():
    seen = set()
    for name in GOLDEN:
        image = render(EXAMPLES[name])
        lit = sum(image.histogram()[1:])
        assert 300 < lit < 128 * 64 * 0.6, f"{name}: {lit} lit pixels is not a readable screen"
        seen.add(image.tobytes())
    assert len(seen) == len(GOLDEN)


def test_each_fact_changes_the_image():
    base = EXAMPLES["lone_hand"]
    variants = {
        "trump": dict(trump="S"), "lone": dict(lone=None), "to_act": dict(to_act="N"),
        "dealer": dict(dealer="S"), "score": dict(score={"NS": 7, "EW": 9}),
        "tricks": dict(tricks={"NS": 3, "EW": 1}), "message": dict(message="Must follow ♠"),
    }
    before = render(base).tobytes()
    for what, change in variants.items():
        fields = {**base.__dict__, **change}
        assert render(TableStatus(**fields)).tobytes() != before, f"changing {what} changed nothing"


def test_suit_symbols_are_real_glyphs_not_boxes():
    # Every suit must draw a different shape; a missing glyph draws the same box for all.
    shapes = {render(TableStatus(trump=s)).crop((0, 0, 44, 34)).tobytes() for s in "SHDC"}
    assert len(shapes) == 4


def test_long_message_is_shortened_with_ellipsis_at_a_whole_character():
    text = "Revoke by W in trick 2: 3 points to N-S ♥♥♥"
    short = fit_text(text, 10, 126)
    assert short.endswith("…") and text.startswith(short[:-1].rstrip())
    assert text_width(short, 10) <= 126
    # Symbols are whole: the shortened text never ends in part of a glyph.
    sym = fit_text("♥♦♣♠" * 10, 10, 60)
    assert set(sym[:-1]) <= set("♥♦♣♠") and sym.endswith("…")


def test_scrolled_message_shows_the_end_of_the_text():
    status = EXAMPLES["revoke"]
    static = render(status)
    moved = render(status, scroll=120)
    assert static.crop((0, 52, 128, 64)).tobytes() != moved.crop((0, 52, 128, 64)).tobytes()
    assert static.crop((0, 0, 128, 48)).tobytes() == moved.crop((0, 0, 128, 48)).tobytes()


def test_status_rejects_bad_values_with_readable_messages():
    with pytest.raises(ValueError, match="not a seat"):
        TableStatus(to_act="X")
    with pytest.raises(ValueError, match="not a suit"):
        TableStatus(trump="Z")
    with pytest.raises(ValueError, match="screen='scores' is unknown"):
        TableStatus(screen="scores")
    with pytest.raises(ValueError, match="score must be a dict"):
        TableStatus(score=5)
    with pytest.raises(ValueError, match="not a side"):
        TableStatus(score={"NE": 2})
    with pytest.raises(ValueError, match="bidding_round"):
        TableStatus(bidding_round=3)
    assert TableStatus(score={"N-S": 3, "ew": 1}).score == {"NS": 3, "EW": 1}
    assert TableStatus(message="two\nlines").message == "two lines"


def test_screen_draws_on_luma_dummy_through_canvas_size():
    device = dummy(width=128, height=64, mode="1")
    screen = Screen(device=device)
    assert screen.show(EXAMPLES["lone_hand"])
    assert device.image.tobytes() == render(EXAMPLES["lone_hand"]).tobytes()


def test_make_display_dummy_upside_down():
    screen = make_display({"driver": "dummy", "rotate": 2})
    assert screen.show(EXAMPLES["bidding"]) and screen.fault is None
    expected = render(EXAMPLES["bidding"]).rotate(180)
    assert screen.device.image.tobytes() == expected.tobytes()


def test_real_ssd1306_driver_sends_the_rendered_frame_over_i2c():
    bus = FakeSMBus()
    screen = make_display({"driver": "ssd1306", "address": "0x3D", "contrast": 128}, bus=bus)
    assert screen.show(EXAMPLES["hand_over"]), screen.fault
    assert {addr for addr, _, _ in bus.writes} == {0x3D}
    commands = [b for _, reg, chunk in bus.writes if reg == 0x00 for b in chunk]
    assert 0xAF in commands  # display on
    assert [0x81, 128] == commands[commands.index(0x81, commands.index(0xAF)):][:2]
    assert ssd1306_frame(bus.writes).tobytes() == render(EXAMPLES["hand_over"]).tobytes()


def test_sh1106_driver_also_constructs_and_sends():
    bus = FakeSMBus()
    screen = make_display({"driver": "sh1106"}, bus=bus)
    assert screen.show(EXAMPLES["game_over"]), screen.fault
    assert sum(len(c) for _, reg, c in bus.writes if reg == 0x40) >= 128 * 64 // 8


def test_missing_display_is_a_fault_then_recovers(caplog):
    bus = FakeSMBus(fail=1)  # the very first command gets no answer
    screen = make_display({"driver": "ssd1306"}, bus=bus)
    assert screen.show(EXAMPLES["bidding"]) is False
    assert "display not answering" in screen.fault and "0x3C" in screen.fault
    assert "will retry" in caplog.text
    assert screen.show(EXAMPLES["bidding"]) is True
    assert screen.fault is None
    assert ssd1306_frame(bus.writes).tobytes() == render(EXAMPLES["bidding"]).tobytes()


def test_fault_while_running_is_remembered_and_retried():
    bus = FakeSMBus()
    screen = make_display({"driver": "ssd1306"}, bus=bus)
    assert screen.show(EXAMPLES["bidding"])
    bus.fail = 3
    assert not screen.show(EXAMPLES["lone_hand"])
    assert screen.fault
    bus.fail = 0
    assert screen.show(EXAMPLES["lone_hand"]) and screen.fault is None


def test_step_scrolls_only_long_messages():
    screen = make_display({"driver": "dummy"})
    screen.show(EXAMPLES["lone_hand"])  # short message
    assert screen.step() is False
    screen.show(EXAMPLES["revoke"])
    first = screen.device.image.tobytes()
    assert screen.step(8) is True
    assert screen.device.image.tobytes() != first


@pytest.mark.parametrize("config, words", [
    ({"driver": "ssd1307"}, "driver='ssd1307' is unknown"),
    ({"adress": 0x3C}, "unknown key 'adress'"),
    ({"port": "one"}, "port='one' should be a int"),
    ({"rotate": 5}, "rotate=5"),
    ({"rotate": 1}, "landscape"),
    ({"contrast": 300}, "contrast=300"),
    ({"address": "sixty"}, "address='sixty' is not a number"),
    ({"address": 0x90}, "7-bit I2C address"),
])
def test_bad_display_config_names_the_key(config, words):
    with pytest.raises(ValueError) as err:
        make_display(config)
    assert words in str(err.value)


def test_config_defaults_are_the_usual_oled():
    c = check_display_config({})
    assert (c["driver"], c["port"], c["address"], c["rotate"], c["contrast"]) == ("ssd1306", 1, 0x3C, 0, 255)


def test_emulator_capture_writes_png(tmp_path):
    pytest.importorskip("luma.emulator")
    template = str(tmp_path / "screen_{0:03}.png")
    screen = make_display({"driver": "capture", "file_template": template, "scale": 1})
    assert screen.show(EXAMPLES["game_over"]), screen.fault
    files = sorted(tmp_path.glob("screen_*.png"))
    assert len(files) == 1
    assert Image.open(files[0]).size == (128, 64)


def test_font_ships_with_the_package():
    assert display.FONT_PATH.is_file()
    assert (display.FONT_PATH.parent / "LICENSE.txt").is_file()


def test_resumed_screen_wraps_its_message_and_too_small_screen_is_refused():
    image = render(TableStatus(screen="resumed", message="Power came back: hand 7, trick 3, "
                               "South to play. Check the cards on the table."))
    lit_rows = [y for y in range(64) if any(image.getpixel((x, y)) for x in range(128))]
    assert max(lit_rows) > 40  # the message runs over several lines
    with pytest.raises(ValueError, match="too small"):
        render(EXAMPLES["bidding"], width=64, height=32)
