"""Timings of the table's output devices without hardware: screen rendering, a full frame
through the real SSD1306 driver to a fake I2C bus, and espeak-ng speech to WAV.

Usage: .venv/bin/python bench/bench_hardware.py [--repeat 50]
Prints the median (and 90th percentile) in milliseconds for each step.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time

from hardware.display import EXAMPLES, make_display, render
from hardware.phrases import bid_phrase, hand_phrase
from hardware.speaker import WavSpeaker


class NullBus:
    """An smbus stand-in that accepts every write, so only the driver's own work is timed."""

    def write_i2c_block_data(self, address, register, data):
        pass


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    rows = []
    for name in ("bidding", "lone_hand", "hand_over", "game_over"):
        rows.append((f"render {name}", *timed(lambda n=name: render(EXAMPLES[n]), args.repeat)))
    screen = make_display({"driver": "ssd1306"}, bus=NullBus())
    screen.show(EXAMPLES["bidding"])  # opens the device once
    statuses = [EXAMPLES["bidding"], EXAMPLES["lone_hand"]]
    flip = iter(range(10 ** 9))
    rows.append(("ssd1306 show (render + driver + I2C writes)",
                 *timed(lambda: screen.show(statuses[next(flip) % 2]), args.repeat)))
    with tempfile.TemporaryDirectory() as folder:
        speaker = WavSpeaker(folder)
        texts = [bid_phrase("W", "order alone", upcard_suit="H"),
                 hand_phrase("EW", {"NS": 2, "EW": 0}, euchred=True)]
        if speaker.fault:
            print(f"speech skipped: {speaker.fault}")
        else:
            for text in texts:
                def one(text=text):
                    speaker.say(text)
                    speaker.wait_idle(30)
                rows.append((f"espeak-ng WAV: {text!r}", *timed(one, max(5, args.repeat // 5))))
        speaker.close()
    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  median ms  p90 ms")
    for label, median, p90 in rows:
        print(f"{label:<{width}}  {median:9.2f}  {p90:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
