"""Tests of plain-deck reading through a wide lens: cards near the frame's corners, squeezed by barrel distortion."""
from dataclasses import replace

import numpy as np
import pytest

from vision import art

needs_art = pytest.mark.skipif(not art.art_available(), reason="KDE card art not installed")

# A wide cheap lens over the table: 80 degrees across, barrel k1 = -0.14, tilted a little.
CAMERA = {"px_per_mm": 1.6, "k1": -0.14, "hfov_deg": 80, "tilt_deg": 4, "tilt_towards_deg": 0}
TABLE = dict(markers=False, shadows=False, surface="cloth:green", surface_seed=5, camera=CAMERA,
             read_noise=1.5, jpeg=92)


@pytest.fixture(scope="module")
def through_the_lens():
    from bench.vision_plain_classic import calibrated_deck
    from vision.plain.background import TableModel
    from vision.synth import compose_frame
    # The deck's size as a card in the frame's middle shows it (as a live calibration
    # pass would measure it), and the empty table learnt.
    _, truth = compose_frame([{"card": "KS", "at": (200.0, 150.0), "rotation": 0, "sticker": False}],
                             size=(640, 480), rng=1, **TABLE)
    deck = replace(calibrated_deck("standard"), card_px=truth[0]["card_px"] / 480).prepare()
    table = TableModel()
    for k in range(6):
        table.learn(compose_frame([], size=(640, 480), rng=10 + k, **TABLE)[0])
    return deck, table


@needs_art
@pytest.mark.parametrize("at, rotation", [((40.0, 40.0), 45), ((40.0, 40.0), -45), ((45.0, 255.0), -45)])
def test_a_card_near_the_frames_corner_is_read_through_a_wide_lens(through_the_lens, at, rotation):
    # The lens squeezes such a card along the line to the frame's middle: this deck's
    # cards, 0.74 wide for their length, are seen 0.59 or 0.93 wide, and one lying along
    # that line 0.73 as long as a card in the middle. A card all the same.
    from vision.plain import recognize_plain
    from vision.synth import compose_frame
    deck, table = through_the_lens
    frame, truth = compose_frame([{"card": "QH", "at": at, "rotation": rotation, "sticker": False}],
                                 size=(640, 480), rng=3, **TABLE)
    corners = np.asarray(truth[0]["corners"])
    assert (corners >= 0).all() and (corners[:, 0] < 640).all() and (corners[:, 1] < 480).all()
    seen = recognize_plain(frame, deck, table=table)
    assert [str(s.card) for s in seen] == ["QH"], [(s.card, s.reason) for s in seen]
