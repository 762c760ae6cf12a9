"""Tests of vision.art: KDE card faces rendered on demand and cached outside the repository."""
import numpy as np
import pytest

from engine.cards import Card
from vision import art

needs_art = pytest.mark.skipif(not art.art_available(),
                               reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")


def test_element_ids_follow_kde_names():
    assert art.element_id(Card("AS")) == "1_spade"
    assert art.element_id("JH") == "jack_heart"
    assert art.element_id("10D") == "10_diamond"
    assert art.element_id("QC") == "queen_club"


def test_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert art.cache_dir() == tmp_path / "euchre-table" / "art"


@needs_art
def test_kde_decks_lists_installed_designs():
    decks = art.kde_decks()
    assert "standard" in decks
    assert all("/" not in d and not d.startswith("svg-") for d in decks)
    assert set(art.english_index_decks()) <= set(decks)


@needs_art
def test_card_image_is_trimmed_bgra_at_requested_height(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    face = art.card_image("standard", Card("JH"), height=200)
    assert face.dtype == np.uint8 and face.ndim == 3 and face.shape[2] == 4
    assert face.shape[0] == 200
    assert 0.55 < face.shape[1] / face.shape[0] < 0.85  # a portrait card
    alpha = face[:, :, 3]
    # trimmed: every border row and column holds some opaque pixel
    for line in (alpha[0], alpha[-1], alpha[:, 0], alpha[:, -1]):
        assert line.max() > 8
    assert (tmp_path / "euchre-table" / "art" / "standard" / "JH_200.png").is_file()
    again = art.card_image("standard", "JH", height=200)   # from the cache
    assert np.array_equal(face, again)


@needs_art
def test_different_cards_render_differently(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    a = art.card_image("standard", "9S", height=120).astype(int)
    b = art.card_image("standard", "9H", height=120).astype(int)
    w = min(a.shape[1], b.shape[1])
    assert np.abs(a[:, :w] - b[:, :w]).mean() > 5


def test_unknown_deck_names_the_installed_ones():
    with pytest.raises(art.ArtError, match="no KDE SVG deck named 'no-such-deck'"):
        art.card_image("no-such-deck", "JH")


def test_tiny_height_is_refused():
    with pytest.raises(ValueError, match="too small"):
        art.card_image("standard", "JH", height=4)
