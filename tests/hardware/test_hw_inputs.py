"""Tests of the bid panel and LEDs on gpiozero's own MockFactory pins."""
from __future__ import annotations

import time

import pytest

from hardware.inputs import (DEFAULT_BUTTON_PINS, DEFAULT_RACK_LED_PINS, DEFAULT_SEAT_LED_PINS,
                             BidComposer, check_leds_config, make_leds, make_panel)

ROUND1 = ["pass", "order", "order alone"]
ROUND2 = ["pass", "call S", "call D", "call C", "call S alone", "call D alone", "call C alone"]
STUCK_DEALER = [a for a in ROUND2 if a != "pass"]


class FakeClock:
    """Time that moves only when the test says so, for the debounce guard."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def pin(factory, name_or_number):
    number = DEFAULT_BUTTON_PINS.get(name_or_number, name_or_number)
    return factory.pin(number)


def press(factory, button, clock=None, pull_up=True):
    p = pin(factory, button)
    if pull_up:
        p.drive_low()
        p.drive_high()
    else:
        p.drive_high()
        p.drive_low()
    if clock is not None:
        clock.now += 1.0


def drain(panel):
    out = []
    while True:
        event = panel.get(timeout=0)
        if event is None:
            return out
        out.append(event)


# --- the composer alone (no pins) -----------------------------------------------------

@pytest.mark.parametrize("presses, legal, expected", [
    (["order"], ROUND1, ("bid", "order")),
    (["alone", "order"], ROUND1, ("bid", "order alone")),
    (["pass"], ROUND1, ("bid", "pass")),
    (["H"], ["pass", "call H", "call S"], ("bid", "call H")),
    (["alone", "C"], ROUND2, ("bid", "call C alone")),
    (["alone", "alone", "C"], ROUND2, ("bid", "call C")),
    (["alone", "order"], ["pass", "defend alone"], ("bid", "defend alone")),
])
def test_composer_builds_engine_action_text(presses, legal, expected):
    composer = BidComposer(legal)
    events = [composer.press(p) for p in presses]
    assert events[-1] == expected


def test_alone_is_pending_until_the_next_press_and_cancels_on_second_press():
    composer = BidComposer(ROUND2)
    assert composer.press("alone") == ("alone", True) and composer.alone_pending
    assert composer.press("alone") == ("alone", False) and not composer.alone_pending
    composer.press("alone")
    assert composer.press("hint") == ("hint",)
    assert composer.alone_pending  # HINT does not consume the pending ALONE
    assert composer.press("D") == ("bid", "call D alone")
    assert not composer.alone_pending


@pytest.mark.parametrize("presses, legal, reason", [
    (["H"], ROUND2, "Hearts cannot be named now"),
    (["S"], ROUND1, "Round 1: ORDER to order up"),
    (["order"], ROUND2, "Round 2: press a suit"),
    (["alone", "order"], ROUND2, "Press a suit after ALONE"),
    (["pass"], STUCK_DEALER, "The dealer must name a suit"),
    (["alone"], ["pass", "order"], "Going alone is not possible now"),
    (["order"], ["play JH", "play 9S"], "No bid is expected now"),
    (["order"], [], "No bid is expected now"),
])
def test_composer_refuses_illegal_presses_with_a_reason(presses, legal, reason):
    composer = BidComposer(legal)
    event = [composer.press(p) for p in presses][-1]
    assert event[0] == "refused" and reason in event[1]
    assert all(e[0] != "bid" for e in [event])


def test_composer_never_emits_an_action_outside_the_legal_set():
    for legal in (ROUND1, ROUND2, STUCK_DEALER, ["pass", "order"], ["pass", "call H"]):
        for first in ("alone", None):
            for button in ("pass", "order", "S", "H", "D", "C"):
                composer = BidComposer(legal)
                if first:
                    composer.press(first)
                event = composer.press(button)
                if event[0] == "bid":
                    assert event[1] in legal


def test_new_legal_set_clears_pending_alone():
    composer = BidComposer(ROUND1)
    composer.press("alone")
    composer.set_legal(ROUND1)
    assert composer.press("order") == ("bid", "order")


def test_unknown_button_name_is_an_error():
    with pytest.raises(ValueError, match="no button 'spade'"):
        BidComposer(ROUND1).press("spade")


# --- the panel on mock pins ---------------------------------------------------------

def test_presses_become_bid_events_on_the_queue_and_callback(factory):
    seen = []
    clock = FakeClock()
    panel = make_panel({"bounce_time": 0.05}, on_event=seen.append, clock=clock)
    panel.set_legal(ROUND1)
    press(factory, "alone", clock)
    press(factory, "order", clock)
    assert drain(panel) == [("alone", True), ("bid", "order alone")]
    assert seen == [("alone", True), ("bid", "order alone")]
    panel.set_legal(ROUND2)
    press(factory, "H", clock)
    press(factory, "D", clock)
    press(factory, "hint", clock)
    assert drain(panel) == [("refused", "Hearts cannot be named now: name another suit or PASS"),
                            ("bid", "call D"), ("hint",)]
    panel.close()


def test_pull_up_polarity_press_is_a_low_level(factory):
    clock = FakeClock()
    panel = make_panel({}, clock=clock)
    panel.set_legal(ROUND1)
    p = pin(factory, "pass")
    assert p.state == 1  # pulled up: idle high
    p.drive_high()
    assert drain(panel) == []
    p.drive_low()
    assert drain(panel) == [("bid", "pass")]
    p.drive_high()  # release of a plain button says nothing
    assert drain(panel) == []
    panel.close()


def test_pull_down_wiring_press_is_a_high_level(factory):
    clock = FakeClock()
    panel = make_panel({"pull_up": False}, clock=clock)
    panel.set_legal(ROUND1)
    p = pin(factory, "order")
    assert p.state == 0
    p.drive_high()
    assert drain(panel) == [("bid", "order")]
    p.drive_low()
    assert drain(panel) == []
    panel.close()


def test_bounces_within_bounce_time_count_once(factory):
    clock = FakeClock()
    panel = make_panel({"bounce_time": 0.05}, clock=clock)
    panel.set_legal(ROUND1)
    p = pin(factory, "alone")
    for _ in range(4):  # contact chatter: four edges within 30 ms
        p.drive_low()
        p.drive_high()
        clock.now += 0.01
    assert drain(panel) == [("alone", True)]
    clock.now += 0.2  # a real second press, later
    p.drive_low()
    p.drive_high()
    assert drain(panel) == [("alone", False)]
    panel.close()


def test_director_short_press_is_menu_long_press_is_undo(factory):
    clock = FakeClock()
    panel = make_panel({"hold_time": 0.1}, clock=clock)
    d = pin(factory, "director")
    d.drive_low()
    d.drive_high()
    assert drain(panel) == [("director",)]
    clock.now += 1
    d.drive_low()
    deadline = time.monotonic() + 3
    while panel.events.empty() and time.monotonic() < deadline:
        time.sleep(0.02)  # gpiozero's hold thread fires after hold_time
    d.drive_high()
    assert drain(panel) == [("undo",)]  # and no "director" on release after a hold
    panel.close()


def test_missing_button_pin_can_be_left_out(factory):
    panel = make_panel({"pins": {"hint": None}})
    assert "hint" not in panel.buttons and "pass" in panel.buttons
    panel.close()


@pytest.mark.parametrize("config, words", [
    ({"pin": {}}, "unknown key 'pin'"),
    ({"pins": {"spades": 26}}, "no button 'spades'"),
    ({"pins": {"pass": 6}}, "pin 6 is given to both 'pass' and 'order'"),
    ({"pins": {"pass": 5.5}}, "pins.pass: pin 5.5"),
    ({"bounce_time": "fast"}, "bounce_time='fast'"),
    ({"hold_time": 0}, "hold_time=0"),
    ({"pull_up": "yes"}, "pull_up='yes'"),
])
def test_bad_panel_config_names_the_key(config, words, factory):
    with pytest.raises(ValueError) as err:
        make_panel(config)
    assert words in str(err.value)


# --- LEDs ------------------------------------------------------------------------------

def test_seat_leds_light_one_at_a_time(factory):
    leds = make_leds({"rack": None})
    pins = {s: factory.pin(p) for s, p in DEFAULT_SEAT_LED_PINS.items()}
    for p in pins.values():
        p.clear_states()
    leds.seats.show_turn("W")
    leds.seats.show_turn("N")
    leds.seats.off()
    pins["W"].assert_states([False, True, False])
    pins["N"].assert_states([False, True, False])
    assert [s.state for s in pins["E"].states] == [False]
    assert [s.state for s in pins["S"].states] == [False]
    leds.close()


def test_computer_seat_blinks(factory):
    leds = make_leds({"rack": None, "blink": 0.02})
    p = factory.pin(DEFAULT_SEAT_LED_PINS["E"])
    p.clear_states()
    leds.seats.show_turn("E", computer=True)
    time.sleep(0.2)
    leds.seats.show_turn("S")
    changes = [s.state for s in p.states]
    assert changes[:4] == [False, True, False, True] and changes[-1] is False
    assert factory.pin(DEFAULT_SEAT_LED_PINS["S"]).state
    leds.close()


def test_rack_leds_blink_the_slot_to_play_and_only_it(factory):
    leds = make_leds({"seats": None, "blink": 0.04})
    pins = [factory.pin(p) for p in DEFAULT_RACK_LED_PINS]
    for p in pins:
        p.clear_states()
    leds.rack.point(5)  # the up-card's slot: discard it, or play it
    time.sleep(0.15)
    leds.rack.point(2)
    time.sleep(0.15)
    leds.rack.off()
    assert len(pins[5].states) >= 4 and len(pins[2].states) >= 4
    for i in (0, 1, 3, 4):
        assert [s.state for s in pins[i].states] == [False]
    assert not any(p.state for p in pins)
    with pytest.raises(ValueError, match="rack slot 6 does not exist"):
        leds.rack.point(6)
    leds.close()


def test_active_low_leds_invert_the_pin(factory):
    leds = make_leds({"active_high": False, "rack": None})
    leds.seats.show_turn("S")
    assert factory.pin(DEFAULT_SEAT_LED_PINS["S"]).state == 0
    assert factory.pin(DEFAULT_SEAT_LED_PINS["N"]).state == 1
    leds.close()


@pytest.mark.parametrize("config, words", [
    ({"seat": {}}, "unknown key 'seat'"),
    ({"seats": {"X": 3}}, "seats.X: no such seat"),
    ({"rack": [1, 2, 3]}, "rack must list 6 pins"),
    ({"seats": {"N": 7}}, "pin 7 is given to both 'N' and 'rack[0]'"),
    ({"blink": -1}, "blink=-1"),
])
def test_bad_leds_config_names_the_key(config, words):
    with pytest.raises(ValueError) as err:
        check_leds_config(config)
    assert words in str(err.value)


def test_toml_configuration_can_leave_parts_out(factory):
    import tomllib

    config = tomllib.loads("""
        [panel]
        pins = { hint = false, director = "none", pass = "GPIO21" }
        bounce_time = 0.02
        [leds]
        seats = {}
        rack = [7, 8, 9, 10, 11, 17]
    """)
    panel = make_panel(config["panel"])
    assert set(panel.buttons) == {"pass", "order", "alone", "S", "H", "D", "C"}
    panel.set_legal(ROUND1)
    factory.pin(21).drive_low()
    assert panel.get(timeout=1) == ("bid", "pass")
    panel.close()
    leds = make_leds(config["leds"])
    assert leds.seats is None and len(leds.rack.leds) == 6
    leds.close()


def test_a_second_computer_seat_has_its_own_rack_leds(factory):
    leds = make_leds({"seats": None, "rack": None, "racks": {"E": [7, 8, 9, 10, 11, 17]},
                      "blink": 0.04})
    assert leds.rack is None and leds.rack_of("E", first=False) is leds.racks["E"]
    assert leds.rack_of("W", first=False) is None
    leds.racks["E"].point(3)
    time.sleep(0.12)
    assert len(factory.pin(10).states) >= 3 and [s.state for s in factory.pin(7).states] == [False]
    leds.close()


@pytest.mark.parametrize("config, message", [
    ({"racks": {"Q": [1, 2, 3, 4, 5, 6]}}, "racks.Q: no such seat"),
    ({"racks": {"E": [1, 2]}}, "racks.E must list 6 pins"),
    ({"racks": {"E": [7, 30, 31, 32, 33, 34]}}, "pin 7 is given to both"),
])
def test_bad_rack_pins_are_refused(config, message):
    with pytest.raises(ValueError, match=message):
        check_leds_config(config)
