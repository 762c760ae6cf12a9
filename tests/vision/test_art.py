"""Tests of vision.art: KDE card faces rendered on demand and cached outside the repository."""
from pathlib import Path

import numpy as np
import pytest

from engine.cards import DECK, Card
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


# ------------------------------------------------------------------ npm decks
def _npm_or_skip(name):
    """The npm deck, downloaded once; skipped only when the registry cannot be reached."""
    try:
        return art.fetch_npm(name)
    except art.ArtError as exc:
        if "could not download" in str(exc):
            pytest.skip(f"npm registry not reachable: {exc}")
        raise


def test_npm_designs_are_pinned_with_integrity_licence_and_index():
    assert len(art.NPM_DESIGNS) >= 4
    for name, d in art.NPM_DESIGNS.items():
        assert d.name == name and d.version[0].isdigit() and d.integrity.startswith("sha512-")
        assert d.licence and d.art and isinstance(d.english_index, bool)
        assert set(d.ranks) == {"9", "10", "J", "Q", "K", "A"} and set(d.suits) == set("SHDC")
    assert not set(art.NPM_DESIGNS) & set(art.ENGLISH_INDEX_DECKS)


def _download_gives(monkeypatch, data: bytes) -> None:
    """Every download returns ``data``."""
    class Fake:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def read(self):
            return data

    monkeypatch.setattr(art.urllib.request, "urlopen", lambda url, timeout=None: Fake())


def test_a_tarball_that_does_not_match_its_integrity_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _download_gives(monkeypatch, b"not the package")
    with pytest.raises(art.ArtError, match="does not match its pinned integrity"):
        art.fetch_npm("bellot")
    assert not art.npm_dir(art.NPM_DESIGNS["bellot"]).exists()
    with pytest.raises(art.ArtError, match="no npm design named 'nope'"):
        art.fetch_npm("nope")


def _assert_portrait_faces(faces, height: int) -> None:
    """Each face is ``height`` tall, portrait, trimmed to the card and opaque."""
    for f in faces:
        assert f.shape[0] == height and f.shape[2] == 4 and 0.6 < f.shape[1] / height < 0.8
        for line in (f[0, :, 3], f[-1, :, 3], f[:, 0, 3], f[:, -1, 3]):
            assert line.max() > 8                      # trimmed to the card
        assert (f[:, :, 3] > 200).mean() > 0.9          # the card itself is opaque


@needs_art
@pytest.mark.parametrize("name", ["touati-standard", "kennard-4color", "bellot"])
def test_npm_cards_render_as_trimmed_portrait_faces(name):
    _npm_or_skip(name)
    faces = [art.card_image(name, c, height=150) for c in ("KS", "KC", "9D")]
    _assert_portrait_faces(faces, 150)
    w = min(f.shape[1] for f in faces)
    assert np.abs(faces[0][:, :w, :3].astype(int) - faces[1][:, :w, :3].astype(int)).mean() > 3


# ------------------------------------------------------------------ PyPI decks
def test_wheel_designs_are_pinned_with_sha256_and_licence():
    assert set(art.WHEEL_DESIGNS) == {"kenney", "knoll", "knoll-figures"}
    for name, d in art.WHEEL_DESIGNS.items():
        assert d.name == name and d.version[0].isdigit() and len(d.sha256) == 64
        assert d.url.endswith(f"-{d.version}-py3-none-any.whl") and d.licence and d.art
        assert set(d.ranks) == {"9", "10", "J", "Q", "K", "A"} and set(d.suits) == set("SHDC")
    assert not set(art.WHEEL_DESIGNS) & (set(art.NPM_DESIGNS) | set(art.ENGLISH_INDEX_DECKS))


def test_a_wheel_that_does_not_match_its_sha256_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _download_gives(monkeypatch, b"not the wheel")
    with pytest.raises(art.ArtError, match="does not match its pinned sha256"):
        art.fetch_wheel("knoll")
    assert not art.wheel_dir(art.WHEEL_DESIGNS["knoll"]).exists()
    with pytest.raises(art.ArtError, match="no PyPI design named 'nope'"):
        art.fetch_wheel("nope")


def test_a_wheel_deck_gives_trimmed_portrait_faces_that_differ():
    try:
        art.fetch_wheel("knoll")
    except art.ArtError as exc:
        if "could not download" in str(exc):
            pytest.skip(f"PyPI not reachable: {exc}")
        raise
    folder = art.wheel_dir(art.WHEEL_DESIGNS["knoll"]) / "knoll"
    assert sorted(p.stem for p in folder.glob("*.png")) == sorted(
        str(c) for c in DECK)
    faces = [art.card_image("knoll", c, height=150) for c in ("KS", "QS", "9D")]
    _assert_portrait_faces(faces, 150)
    w = min(f.shape[1] for f in faces)
    # The king and queen of spades differ only in their index letters.
    assert np.abs(faces[0][:, :w, :3].astype(int) - faces[1][:, :w, :3].astype(int)).mean() > 0.5
    # The same wheel's other design has figures on its courts, and the same nines.
    figure = art.card_image("knoll-figures", "KS", height=150)
    assert np.abs(figure[:, :w, :3].astype(int) - faces[0][:, :w, :3].astype(int)).mean() > 10
    assert np.array_equal(art.card_image("knoll-figures", "9D", height=150), faces[2])


needs_fonts = pytest.mark.skipif(not all(Path(d.font).is_file() for d in art.FONT_DESIGNS.values()),
                                 reason="the card fonts are not installed (make setup installs them)")


@needs_fonts
@pytest.mark.parametrize("name", list(art.FONT_DESIGNS))
def test_a_font_design_fills_its_glyphs_outline_as_a_portrait_card(name, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    faces = {c: art.card_image(name, c, 200) for c in ("AS", "AH", "KS", "KC")}
    for card, face in faces.items():
        h, w = face.shape[:2]
        assert face.shape == (200, w, 4) and 0.65 < w / h < 0.8, (card, face.shape)
        # opaque inside the outline, paper between the index and the picture, no alpha
        # left outside the rounded corner
        assert face[h // 2, w // 2, 3] == 255 and face[h // 2, w // 12, :3].min() > 230
        assert face[1, 1, 3] < 200 and face[h // 2, 2, 3] == 255
    # the ace's one big sign: black for spades, red for hearts
    ace_s, ace_h = faces["AS"][100, faces["AS"].shape[1] // 2, :3], faces["AH"][100, faces["AH"].shape[1] // 2, :3]
    assert ace_s.max() < 80 and ace_h[2] > 150 and ace_h[0] < 90
    assert np.abs(faces["KS"].astype(int) - faces["KC"].astype(int)).max() > 200


def test_a_missing_font_is_named_with_its_package(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(art.FONT_DESIGNS, "symbola",
                        art.FontDesign("symbola", "fonts-symbola", str(tmp_path / "none.ttf"), "", ""))
    with pytest.raises(art.ArtError, match="install Debian's fonts-symbola"):
        art.card_image("symbola", "AS", 100)
