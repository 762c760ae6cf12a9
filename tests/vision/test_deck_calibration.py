"""Tests of vision.deck_calibration and the `calibrate deck` command: templates from pictures or a camera."""
import argparse

import cv2
import numpy as np
import pytest

from engine.cards import DECK, Card
from vision import art, cli_plain, plain
from vision.deck_calibration import (CalibrationError, build_deck, calibrate_from_dir,
                                     calibrate_live, face_from_image, self_check)

needs_art = pytest.mark.skipif(not art.art_available(),
                               reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")


@pytest.fixture(scope="module")
def picture_dir(tmp_path_factory):
    """A folder with the 24 cards of the standard design as transparent PNGs (JH.png …)."""
    if not art.art_available():
        pytest.skip("KDE card art not installed")
    folder = tmp_path_factory.mktemp("deck-pictures")
    for card in DECK:
        cv2.imwrite(str(folder / f"{card}.png"), art.card_image("standard", card, 300))
    return folder


def _copy(src, dst, skip=()):
    dst.mkdir()
    for p in src.iterdir():
        if p.stem not in skip:
            (dst / p.name).write_bytes(p.read_bytes())
    return dst


def _run_cli(*argv):
    parser = argparse.ArgumentParser(prog="euchre-table")
    cli_plain.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.func(args)


@needs_art
def test_calibrate_from_dir_makes_all_24_templates(picture_dir):
    deck = calibrate_from_dir(picture_dir, name="standard")
    assert deck.cards == list(DECK)
    assert 0.6 < deck.aspect < 0.8
    w, h = deck.canon_size
    assert deck.faces.shape[0] == 24 and deck.signatures.shape[0] == 24
    assert h == plain.CANON_H and w == round(plain.CANON_H * deck.aspect)


@needs_art
def test_missing_cards_are_listed(picture_dir, tmp_path):
    folder = _copy(picture_dir, tmp_path / "partial", skip=("JH", "9C"))
    with pytest.raises(CalibrationError, match=r"missing: JH 9C"):
        calibrate_from_dir(folder)


@needs_art
def test_extra_and_doubled_pictures_are_named(picture_dir, tmp_path):
    folder = _copy(picture_dir, tmp_path / "extra")
    (folder / "2S.png").write_bytes((folder / "9S.png").read_bytes())
    (folder / "notes.png").write_bytes((folder / "9S.png").read_bytes())
    (folder / "TH.jpg").write_bytes((folder / "10H.png").read_bytes())
    with pytest.raises(CalibrationError) as err:
        calibrate_from_dir(folder)
    text = str(err.value)
    assert "2S.png" in text and "notes.png" in text
    assert "the same card twice" in text and "TH.jpg" in text and "10H.png" in text


@needs_art
def test_unreadable_picture_is_named(picture_dir, tmp_path):
    folder = _copy(picture_dir, tmp_path / "broken")
    (folder / "QD.png").write_bytes(b"\x89PNG broken")
    with pytest.raises(CalibrationError, match="cannot read these pictures.*QD.png"):
        calibrate_from_dir(folder)


def test_not_a_folder_is_refused(tmp_path):
    with pytest.raises(CalibrationError, match="is not a folder"):
        calibrate_from_dir(tmp_path / "nowhere")


@needs_art
def test_photo_of_a_card_on_the_cloth_is_straightened():
    face = face_from_image(art.card_image("standard", "KS", 300))
    h, w = face.shape[:2]
    canvas = np.full((500, 500, 3), (40, 110, 40), np.uint8)
    canvas[100:100 + h, 150:150 + w] = face
    rot = cv2.getRotationMatrix2D((250, 250), 23, 1.0)
    photo = cv2.warpAffine(canvas, rot, (500, 500), borderValue=(40, 110, 40))
    found = face_from_image(photo, "photo")
    assert abs(found.shape[0] - h) < 6 and abs(found.shape[1] - w) < 6
    a = cv2.resize(cv2.cvtColor(found, cv2.COLOR_BGR2GRAY), (60, 84)).astype(float)
    b = cv2.resize(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), (60, 84)).astype(float)
    # upright either way up: a king reads the same turned half round
    corr = max(np.corrcoef(a.ravel(), b.ravel())[0, 1], np.corrcoef(a[::-1, ::-1].ravel(), b.ravel())[0, 1])
    assert corr > 0.9


def test_two_cards_in_one_calibration_photo_are_refused():
    canvas = np.full((400, 600, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(canvas, (60, 80), (180, 250), (250, 250, 250), -1)
    cv2.rectangle(canvas, (330, 80), (450, 250), (250, 250, 250), -1)
    with pytest.raises(CalibrationError, match="2 cards found"):
        face_from_image(canvas, "JH.png")


def test_landscape_deck_shape_is_refused():
    faces = {c: np.full((50, 120, 3), 255, np.uint8) for c in DECK}
    with pytest.raises(CalibrationError, match="times as wide as tall"):
        build_deck(faces)


@needs_art
def test_self_check_reads_every_card_back(picture_dir):
    faces = {c: face_from_image(cv2.imread(str(picture_dir / f"{c}.png"), cv2.IMREAD_UNCHANGED))
             for c in DECK}
    deck = build_deck(faces, name="standard")
    result = self_check(deck, faces)
    assert sorted(result["ok"]) == sorted(DECK) and result["bad"] == {}
    # a deck missing the nine of clubs cannot read it back as itself
    partial = build_deck({c: f for c, f in faces.items() if c != Card("9C")})
    assert Card("9C") in self_check(partial, faces)["bad"]


@needs_art
def test_calibrate_deck_command_writes_a_loadable_deck(picture_dir, tmp_path, capsys):
    out = tmp_path / "standard.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(picture_dir), "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "24 of 24 cards read back" in printed
    deck = plain.load_deck(out)
    assert deck.cards == list(DECK)


def test_calibrate_deck_command_explains_what_is_missing(tmp_path, capsys):
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path)) == 2
    assert "--out FILE" in capsys.readouterr().err
    assert _run_cli("calibrate", "deck", "--out", str(tmp_path / "d.npz")) == 2
    assert "--from-dir DIR" in capsys.readouterr().err
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path), "--out", str(tmp_path / "d.npz")) == 2
    assert "missing: 9S" in capsys.readouterr().err


def _frames_showing(cards, rng):
    """Camera frames of a player showing each card in turn: an empty cloth, then the card
    lying still (with sensor noise) for six frames."""
    base = np.full((360, 480, 3), (40, 105, 45), np.uint8)
    for i, card in enumerate(cards):
        yield np.clip(base + rng.normal(0, 2, base.shape), 0, 255).astype(np.uint8)
        face = face_from_image(art.card_image("standard", card, 200))
        h, w = face.shape[:2]
        scene = base.copy()
        scene[80:80 + h, 150:150 + w] = face
        rot = cv2.getRotationMatrix2D((240, 180), 10 * i - 10, 1.0)
        scene = cv2.warpAffine(scene, rot, (480, 360), borderValue=(40, 105, 45))
        for _ in range(6):
            yield np.clip(scene + rng.normal(0, 2, scene.shape), 0, 255).astype(np.uint8)


@needs_art
def test_live_calibration_takes_each_card_once_it_lies_still():
    rng = np.random.default_rng(3)
    cards = [Card("9S"), Card("JH"), Card("AD")]
    said = []
    deck, faces = calibrate_live(_frames_showing(cards, rng), announce=said.append, stable=4,
                                 cards=cards, name="live")
    assert deck.cards == sorted(cards, key=lambda c: c.index)
    assert len(said) == 3 and "jack of hearts" in said[1]
    assert self_check(deck, faces)["bad"] == {}


@needs_art
def test_live_calibration_says_when_the_camera_stops():
    rng = np.random.default_rng(4)
    frames = list(_frames_showing([Card("9S")], rng))
    with pytest.raises(CalibrationError, match="stopped after 1 of 2 cards.*jack of hearts"):
        calibrate_live(frames, announce=lambda m: None, stable=4, cards=["9S", "JH"])
