"""Tests of the QR sticker payloads, printing and decoding: valid codes read right, anything else is refused."""
import json
import re

import cv2
import numpy as np
import pytest

from engine.cards import DECK, Card
from vision import stickers
from vision.stickers import (DECODERS, parse_payload, payload, qr_modules, read_stickers,
                             sticker_image, write_sticker_pdf, write_sticker_pngs)
from vision.synth import compose_frame

ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"


def test_every_card_round_trips_and_payloads_are_distinct():
    texts = [payload(c) for c in DECK]
    assert len(set(texts)) == 24
    for card, text in zip(DECK, texts):
        assert re.fullmatch(r"ET-(9|10|J|Q|K|A)[SHDC]-[0-9A-Z]{3}", text)
        assert parse_payload(text) is card
        assert parse_payload(text.encode()) is card


def test_any_single_character_change_is_refused():
    # Every one-character substitution, deletion and insertion of every payload.
    for card in DECK:
        text = payload(card)
        variants = set()
        for i in range(len(text)):
            variants.add(text[:i] + text[i + 1:])
            for ch in ALNUM:
                variants.add(text[:i] + ch + text[i + 1:])
                variants.add(text[:i] + ch + text[i:])
        variants.discard(text)
        for v in variants:
            assert parse_payload(v) is None, (card, v)


@pytest.mark.parametrize("text", ["", "JH", "ET-JH", "et-JH-" + payload("JH")[-3:], payload("JH") + " ",
                                  "XX-JH-" + payload("JH")[-3:], b"\xff\xfe", "ET-11H-000"])
def test_foreign_texts_are_refused(text):
    assert parse_payload(text) is None


def test_payload_fits_a_version_1_code_at_level_h():
    import segno
    for card in DECK:
        qr = segno.make_qr(payload(card), error="h", boost_error=False)
        assert (qr.version, qr.error) == (1, "H")
    assert qr_modules("10H").shape == (25, 25)


@pytest.mark.parametrize("decoder", sorted(DECODERS))
def test_clean_stickers_decode_with_each_decoder(decoder):
    for card in ("9S", "10H", "JD", "AC"):
        img = np.array(sticker_image(card, module_px=6))
        img = cv2.copyMakeBorder(img, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        found = read_stickers(img, decoder=decoder)
        assert [s.card for s in found] == [Card(card)]
        assert found[0].confidence == 1.0
        assert np.asarray(found[0].corners).shape == (4, 2)


def test_unknown_decoder_is_named_in_the_error():
    with pytest.raises(ValueError, match="zxing or zbar"):
        stickers.get_decoder("opencv")


def test_foreign_and_damaged_codes_are_refused_not_misread():
    import segno
    mods = np.pad(np.array(segno.make_qr("ET-JH-000", error="h").matrix, np.uint8), 2)
    foreign = cv2.resize((1 - mods) * 255, None, fx=6, fy=6, interpolation=cv2.INTER_NEAREST)
    good = np.array(sticker_image("QS", module_px=6, label=False))
    canvas = np.full((260, 420), 255, np.uint8)
    canvas[20:20 + foreign.shape[0], 20:20 + foreign.shape[1]] = foreign
    canvas[20:20 + good.shape[0], 240:240 + good.shape[1]] = good
    refused = []
    found = read_stickers(canvas, refused=refused)
    assert [s.card for s in found] == [Card("QS")]
    assert [t for t, _ in refused] == ["ET-JH-000"]
    # Damage a third of the good code: it must read as QS or not at all.
    damaged = canvas.copy()
    damaged[20:20 + good.shape[0] // 3, 240:240 + good.shape[1]] = 0
    assert {s.card for s in read_stickers(damaged)} <= {Card("QS")}


def test_sticker_pngs_are_named_per_card_and_decode(tmp_path):
    paths = write_sticker_pngs(tmp_path)
    assert sorted(p.name for p in paths) == sorted(f"{c}.png" for c in DECK)
    for name in ("JH.png", "10C.png"):
        img = cv2.imread(str(tmp_path / name), cv2.IMREAD_GRAYSCALE)
        img = cv2.copyMakeBorder(img, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        assert [s.card for s in read_stickers(img)] == [Card(name[:-4])]


def test_sticker_pdf_is_a4_at_true_size(tmp_path):
    path = write_sticker_pdf(tmp_path / "s.pdf")
    data = path.read_bytes()
    boxes = re.findall(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", data)
    assert len(boxes) == 2  # 20 stickers of 45 mm fit a page
    for w, h in boxes:
        assert abs(float(w) / 72 * 25.4 - 210) < 1 and abs(float(h) / 72 * 25.4 - 297) < 1
    with pytest.raises(ValueError, match="20–90 mm"):
        write_sticker_pdf(tmp_path / "t.pdf", size_mm=5)


def test_frames_with_hard_conditions_never_name_a_wrong_card(need_art):
    rng = np.random.default_rng(5)
    wrong = read = readable = 0
    for _ in range(12):
        cards = rng.choice(24, 4, replace=False)
        zones = ["N", "E", "S", "W"]
        places = [(DECK[c], z, float(rng.uniform(0, 360))) for c, z in zip(cards, zones)]
        img, truth = compose_frame(places, size=(1280, 720), rng=rng, deck="random",
                                   cloth="random", perspective=0.05, roll=rng.uniform(-20, 20),
                                   blur=rng.uniform(0, 1.2), noise=rng.uniform(0, 6),
                                   light=rng.uniform(0, 0.5), glare=rng.uniform(0, 0.5),
                                   jpeg=int(rng.integers(50, 95)), hand=True)
        seen = read_stickers(img)
        truth_cards = {t["card"] for t in truth}
        wrong += sum(s.card not in truth_cards for s in seen)
        visible = {t["card"] for t in truth if t["code_in_frame"] and t["code_visible"] > 0.99}
        readable += len(visible)
        read += len(visible & {s.card for s in seen})
    assert wrong == 0
    assert readable >= 30 and read / readable >= 0.9


def test_recognize_cli_prints_one_json_object_per_image(need_art, tmp_path, capsys):
    img, _ = compose_frame([("JH", "S", 10), ("AS", "N", 200)], size=(1280, 720), rng=3)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    cv2.imwrite(str(tmp_path / "b.png"), np.zeros((100, 100, 3), np.uint8))
    assert _run(["recognize", str(tmp_path / "a.png"), str(tmp_path / "b.png"), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    first, second = (json.loads(line) for line in lines)
    assert sorted(c["card"] for c in first["cards"]) == ["AS", "JH"]
    assert all(set(c) == {"card", "zone", "corners", "confidence"} for c in first["cards"])
    assert second["cards"] == []


def test_recognize_cli_says_what_is_wrong(tmp_path, capsys):
    assert _run(["recognize", str(tmp_path / "missing.png")]) == 1
    assert "not a readable image" in capsys.readouterr().err
    assert _run(["recognize", str(tmp_path / "x.png"), "--mode", "plain"]) == 2
    assert "--deck FILE" in capsys.readouterr().err
    assert _run(["stickers"]) == 2
    assert "--png-dir" in capsys.readouterr().err


def _run(argv):
    import argparse

    from vision import cli
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.mark.parametrize("decoder", sorted(DECODERS))
def test_codes_with_flipped_modules_read_right_or_not_at_all(decoder):
    # Flip random data modules (up to 35%): Reed–Solomon repairs up to ~30%;
    # beyond that the decoder may fail, and the payload check must catch the rest.
    rng = np.random.default_rng(1)
    right = 0
    for trial in range(96):
        card = DECK[trial % 24]
        mods = qr_modules(card).copy()
        inner = mods[2:-2, 2:-2]
        flip = rng.random(inner.shape) < (trial % 8) * 0.05
        for r, c in ((0, 0), (0, 13), (13, 0)):  # spare the finder patterns, to reach decoding
            flip[r:r + 8, c:c + 8] = False
        inner[flip] ^= 1
        img = cv2.resize(((1 - mods) * 255).astype(np.uint8), None, fx=5, fy=5,
                         interpolation=cv2.INTER_NEAREST)
        img = cv2.copyMakeBorder(img, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        found = {s.card for s in read_stickers(img, decoder=decoder)}
        assert found <= {card}
        right += found == {card}
    assert right >= 18  # undamaged (12) and most lightly damaged ones are still read


def test_short_benchmark_run_reads_and_never_misreads(need_art):
    import io

    from bench.vision_stickers import run
    threads = cv2.getNumThreads()
    try:
        rows = run(6, [(640, 480)], ["zxing"], ["oxygen"], seed=3, out=io.StringIO())
    finally:
        cv2.setNumThreads(threads)  # the benchmark pins OpenCV to one core
    (row,) = rows
    assert row["sightings"] >= 15 and row["wrong"] == 0
    assert row["correct"] >= 0.95 * row["sightings"]


def test_recognize_plain_mode_goes_through_vision_plain(need_art):
    from vision.art import card_image
    from vision.deck_calibration import build_deck
    from vision.recognize import recognize

    def upright(card):
        face = card_image("standard", card, height=350)
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        return (face[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)

    deck = build_deck({c: upright(c) for c in DECK}, name="standard")
    img, truth = compose_frame([("JH", "S", 10, False), ("9C", "W", 100, False)],
                               size=(1280, 720), rng=2)
    layout, h_inv = truth.layout, np.linalg.inv(truth.homography)

    def zone_of(point):
        p = h_inv @ np.array([point[0], point[1], 1.0])
        return layout.zone_at(p[:2] / p[2])

    found = recognize(img, mode="plain", deck=deck, zones=zone_of)
    assert all(set(f) == {"card", "zone", "corners", "confidence"} for f in found)
    got = {(f["card"], f["zone"]) for f in found}
    assert got and got <= {("JH", "S"), ("9C", "W")}  # wired through, zones named, no guess


def test_an_unreadable_photo_is_told_in_one_line_without_opencvs_own_log(tmp_path):
    # A phone's HEIC photo: OpenCV logged "[ERROR:0@0.4] global loadsave.cpp ... can't
    # read header" on stderr before the command's own line.
    import subprocess
    import sys
    photo = tmp_path / "IMG_0001.heic"
    photo.write_bytes(b"\0\0\0\x18ftypheic")
    run = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
                          "recognize", str(photo)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [f"euchre-table: recognize: {photo} is not a readable image "
                                               "(PNG or JPEG)"]
