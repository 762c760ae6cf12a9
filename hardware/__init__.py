"""The table's devices: OLED status screen, bid buttons and LEDs, speaker; real and fake.

- :mod:`hardware.display`: ``TableStatus``, ``render`` and the ``Screen`` on a luma device
  (``make_display``);
- :mod:`hardware.inputs`: the bid panel (``make_panel``) and the seat and rack LEDs
  (``make_leds``) on gpiozero;
- :mod:`hardware.speaker` and :mod:`hardware.phrases`: the voice (``make_speaker``) and
  what it says.

See docs/hardware.md for wiring, configuration keys and the fakes.
"""
