"""Tests of vision.generated_decks: card designs drawn from a seed and rendered like the other art."""
import shutil

import numpy as np
import pytest

from bench import vision_sets as vs
from engine.cards import DECK, Card
from vision import art, generated_decks as gd

needs_rsvg = pytest.mark.skipif(shutil.which("rsvg-convert") is None,
                                reason="rsvg-convert (librsvg2-bin) not installed")


def test_a_seed_gives_the_same_design_and_seeds_differ():
    assert gd.design(5) == gd.design(5)
    designs = [gd.design(k) for k in range(1, 25)]
    assert len({(d.edge, d.paper, d.font, round(d.radius, 3)) for d in designs}) == 24
    # The 24 tuning designs hold every kind of edge, so none is left untried.
    assert {d.edge for d in designs} == set(gd.EDGES)


def test_names_are_checked():
    assert gd.is_generated("gen-12") and not gd.is_generated("gen-0") and not gd.is_generated("oxygen")
    assert gd.design_named("gen-3") == gd.design(3)
    with pytest.raises(ValueError, match="not a generated design"):
        gd.design_named("standard")


def test_generated_designs_are_tuning_data_only():
    assert set(vs.GENERATED_DESIGNS).isdisjoint(vs.VALIDATION_DESIGNS + vs.NPM_DESIGNS)
    assert all(gd.is_generated(d) for d in vs.GENERATED_DESIGNS)


def test_every_card_has_its_own_svg():
    d = gd.design(2)
    svgs = {gd.card_svg(d, c) for c in DECK}
    assert len(svgs) == len(DECK)
    # A four-colour design prints diamonds blue and clubs green.
    four = next(gd.design(k) for k in range(1, 200) if gd.design(k).four_colour)
    assert gd.FOUR_BLUE in gd.card_svg(four, "9D") and gd.FOUR_GREEN in gd.card_svg(four, "9C")
    assert gd.FOUR_BLUE not in gd.card_svg(four, "9H")


@needs_rsvg
def test_card_image_renders_a_generated_card_at_the_height_asked(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    face = art.card_image("gen-3", Card("KH"), height=240)
    d = gd.design(3)
    assert face.shape[0] == 240 and face.shape[2] == 4
    assert face.shape[1] / face.shape[0] == pytest.approx(d.width / d.height, abs=0.02)
    # Rounded corners are transparent, the middle is opaque.
    assert face[0, 0, 3] < 128 and face[120, face.shape[1] // 2, 3] == 255
    # Rendered once, then read from the cache.
    assert list(tmp_path.rglob("KH_240.png"))
    again = art.card_image("gen-3", Card("KH"), height=240)
    assert np.array_equal(face, again)


@needs_rsvg
def test_close_cards_differ_in_their_corner_index(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for name in ("gen-1", "gen-9"):
        d = gd.design_named(name)
        spade = art.card_image(name, "KS", height=300).astype(int)
        club = art.card_image(name, "KC", height=300).astype(int)
        # The top-left corner (where the index is) differs between K♠ and K♣.
        px = 300 / d.height
        x1 = int((d.index_x + d.rank_size) * px)
        y1 = int((d.index_y + d.rank_size + d.suit_size * 1.2) * px)
        corner = np.abs(spade[:y1, :x1, :3] - club[:y1, :x1, :3]).max(axis=2)
        assert (corner > 60).sum() > 20, name
