"""Tests of vision.deck_calibration and the `calibrate deck` command: a deck from the camera or from photos, that cannot lie about itself."""
import argparse

import cv2
import numpy as np
import pytest

from bench.plain_tuning.scenes import place, scene
from bench.vision_photo import cards_to_take_again
from engine.cards import DECK, Card
from vision import art, cli_plain, plain
from vision.deck_calibration import (EMPTY_FRAMES, CalibrationError, build_deck, calibrate_from_dir, calibrate_live,
                                     close_pairs, face_from_image, fresh_views, self_check)

needs_art = pytest.mark.skipif(not art.art_available(),
                               reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")
SPOTS = [((150, 100), 20), ((260, 190), -35), ((330, 90), 80), ((110, 210), 160)]


def _photo(card, k, cloth="blue"):
    """A photo of a card lying alone on a cloth, as the table's camera takes it."""
    at, turn = SPOTS[k % len(SPOTS)]
    frame, _, _ = scene([place(str(card), at, turn)], seed=100 + k, cloth=cloth, markers=False,
                        blur=0.5, noise=2, jpeg=90)
    return frame


@pytest.fixture(scope="module")
def photo_dir(tmp_path_factory):
    """A folder with a photo of each card lying alone on a cloth (JH.jpg ...)."""
    if not art.art_available():
        pytest.skip("KDE card art not installed")
    folder = tmp_path_factory.mktemp("deck-photos")
    for k, card in enumerate(DECK):
        cv2.imwrite(str(folder / f"{card}.jpg"), _photo(card, k))
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
def test_photos_of_cards_on_a_table_make_a_deck_of_the_cards_shape(photo_dir):
    deck = calibrate_from_dir(photo_dir, name="standard")
    assert deck.cards == list(DECK)
    # The shape is the straightened card's (the art's 0.74), not the photo's (0.75 = 480/640).
    assert deck.aspect == pytest.approx(0.74, abs=0.02)
    # Through one camera: the card's size in the photos is kept, to look for cards of it.
    assert deck.card_px == pytest.approx(88 * 0.92 * 480 / 297 / 480, rel=0.1)


@needs_art
def test_a_photo_without_a_card_is_refused_saying_so(photo_dir, tmp_path):
    folder = _copy(photo_dir, tmp_path / "one-empty")
    frame, empty, _ = scene([place("QH", (210, 150), 0)], seed=7, cloth="blue", markers=False)
    cv2.imwrite(str(folder / "QH.jpg"), empty)                 # the table alone
    with pytest.raises(CalibrationError, match=r"QH\.jpg: no card found in it"):
        calibrate_from_dir(folder)


@needs_art
def test_a_photo_whose_card_the_first_look_missed_is_looked_at_again_with_the_decks_shape(photo_dir, tmp_path,
                                                                                          monkeypatch):
    # On the Blender world's A4 mat one photo's card (a 9♦ along the mat's printed boxes)
    # was found only with the deck's shape and size known; looked for with any shape, no
    # card came out, and no deck was made. The first look is made to miss the queen of
    # hearts here: the second, with the others' shape and size, finds her.
    import vision.deck_calibration as dc
    real = dc.lone_card

    def missing_the_queen(frame, table=None, what="the picture"):
        if what == "QH.jpg":
            raise dc.NoCardFound(f"{what}: no card found in it")
        return real(frame, table, what)

    monkeypatch.setattr(dc, "lone_card", missing_the_queen)
    deck = calibrate_from_dir(photo_dir, name="standard")
    assert deck.cards == list(DECK)
    face = deck.faces[deck.index(Card("QH"))]
    assert face.shape[1] / face.shape[0] == pytest.approx(deck.aspect, rel=0.04)
    # A photo of the table alone is still refused: the second look finds no card there.
    folder = _copy(photo_dir, tmp_path / "one-empty")
    _, empty, _ = scene([place("QH", (210, 150), 0)], seed=7, cloth="blue", markers=False)
    cv2.imwrite(str(folder / "QH.jpg"), empty)
    with pytest.raises(CalibrationError, match=r"QH\.jpg: no card found in it"):
        calibrate_from_dir(folder)


def test_the_mats_markers_are_never_taken_for_cards():
    # A marker in its white margin can have a card's shape; the mat around the markers is
    # too large to be a card. Neither is kept; the card is.
    from vision.plain.calibration import not_the_mat
    from vision.plain.outline import Outline
    markers = np.float64([[30, 30], [570, 30], [570, 370], [30, 370]])
    mat = Outline(np.float32([[0, 0], [600, 0], [600, 400], [0, 400]]), inside=[1, 2])
    marker = Outline(np.float32([[10, 5], [52, 5], [52, 60], [10, 60]]))
    card = Outline(np.float32([[200, 100], [290, 100], [290, 225], [200, 225]]))
    assert [o.long_side for o in not_the_mat([mat, marker, card], markers)] == [125.0]
    # With one marker seen, the mat's size is not judged, but its marker is still dropped.
    assert [o.long_side for o in not_the_mat([marker, card], markers[:1])] == [125.0]


def test_two_cards_in_one_calibration_photo_are_refused():
    canvas = np.full((400, 600, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(canvas, (60, 80), (180, 250), (250, 250, 250), -1)
    cv2.rectangle(canvas, (330, 80), (450, 250), (250, 250, 250), -1)
    with pytest.raises(CalibrationError, match="2 cards found"):
        face_from_image(canvas, "JH.png")


def _on_a_light_patch(angle, card=True):
    """A plain white card (160 px) on a light grey surface, a patch of the surface as
    light as its paper (a white tile beside grey marble) under 30% of one long side, so
    that no step shows there; without ``card``, the surface alone. And the card's corners."""
    from tests.vision.test_plain_find import _plain_card
    s, (w, h) = 4, (640, 480)
    big = np.full((h * s, w * s, 3), 190, np.uint8)
    outline, corners = _plain_card(angle, 160, 0.05, (w / 2, h / 2), s)
    a, b = corners[0], corners[1]
    along = (b - a) / np.linalg.norm(b - a)
    out = a - corners.mean(axis=0)
    out = out - (out @ along) * along
    out /= np.linalg.norm(out)
    length = np.linalg.norm(b - a)
    patch = [a + along * 0.3 * length - out * 5, a + along * 0.6 * length - out * 5,
             a + along * 0.6 * length + out * 40, a + along * 0.3 * length + out * 40]
    cv2.fillPoly(big, [np.round(np.array(patch) * s * 16).astype(np.int32)], (240, 240, 240), cv2.LINE_AA, shift=4)
    if card:
        cv2.fillPoly(big, [np.round(outline * 16).astype(np.int32)], (240, 240, 240), cv2.LINE_AA, shift=4)
    frame = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return np.clip(frame + np.random.default_rng(1).normal(0, 2, frame.shape), 0, 255).astype(np.uint8), corners


@pytest.mark.parametrize("angle", [0.0, 10.0, 25.0])
def test_a_calibration_photo_whose_card_shows_no_step_along_part_of_a_side_is_taken(angle):
    # Every side of an outline must lie on a step over 80% of its length; here one lies
    # on the light patch for 30% of it, and no card was found (a light card on marble,
    # a white tile under its side, in the Blender world). A calibration photo holds one
    # card: as a last resort one side may show its step over 60% (the face is then held
    # to the others' shape and size and read back). The patch alone is no card.
    from bench.plain_tuning.scenes import corner_error
    from vision.plain.calibration import NoCardFound, lone_card
    from vision.plain.find import find_outlines
    frame, corners = _on_a_light_patch(angle)
    assert find_outlines(frame, None) == []
    assert corner_error(lone_card(frame).corners, corners) < 1.5
    with pytest.raises(NoCardFound):
        lone_card(_on_a_light_patch(angle, card=False)[0])


@needs_art
def test_a_court_found_as_its_two_heads_is_taken_as_one_card():
    # Half a card has about a card's shape: this generated queen's two heads, split by a
    # line printed across its middle, are found as two card-shaped outlines while the
    # deck's shape is not known yet. They share a whole side, so they are one card.
    from bench import vision_sets as vs
    from bench.plain_tuning.scenes import corner_error
    from bench.plain_tuning.textures import registered
    from vision.plain.calibration import lone_card
    from vision.plain.find import find_outlines, top_level
    with registered():
        rng = np.random.default_rng([1, 3])
        s = vs.draw_session(rng, "tuning", size=(960, 540), design="gen-7", surface="wood:oak:matte",
                            profile="webcam")
        for card in ("KD", "KS", "QH"):             # the third photo of this draw is the one
            places, _ = vs.frame_placements(s, rng, "alone", cards=[card])
            frame, truth = vs.compose(s, places, rng)
    halves = top_level(find_outlines(frame, None))
    assert len(halves) == 2 and all(o.long_side < 0.7 * truth[0]["card_px"] for o in halves)
    card = lone_card(frame)
    assert corner_error(card.corners, truth[0]["corners"]) < 4.0


def _plaid_photo(k: int, cards=("QH",)):
    """A tuning photo of generated cards on the tools' plaid cloth (the second card, if
    any, 90 mm to the side of the first), with the truth of the first."""
    from bench import vision_sets as vs
    from bench.plain_tuning.textures import registered
    with registered():
        rng = np.random.default_rng([k, 11])
        s = vs.draw_session(rng, "tuning", size=(960, 540), design="gen-2", surface="tune:plaid")
        places, _ = vs.frame_placements(s, rng, "alone", cards=[cards[0]])
        x, y = places[0]["at"]
        places += [dict(places[0], card=c, at=(x + 90 * (i + 1), y)) for i, c in enumerate(cards[1:])]
        frame, truth = vs.compose(s, places, rng)
    return frame, truth[0]


@needs_art
def test_a_card_on_a_plaid_cloth_is_told_from_the_cloths_squares():
    # The cloth's squares are card-shaped outlines too, but their colours are the cloth's.
    from bench.plain_tuning.scenes import corner_error
    from vision.plain.calibration import TABLE_LIKE, lone_card, table_likeness
    from vision.plain.find import find_outlines, top_level
    from vision.zones import detect_markers
    frame, truth = _plaid_photo(1)
    outlines = top_level(find_outlines(frame, None))
    like, _ = table_likeness(frame, [o.corners for o in outlines])
    markers = sum(len(c) for c in detect_markers(frame).values())
    assert (like >= TABLE_LIKE).sum() >= 2 and (like < TABLE_LIKE).sum() == 1 + markers
    assert corner_error(lone_card(frame).corners, truth["corners"]) < 4.0


@needs_art
def test_an_outline_taking_in_a_row_of_a_ginghams_checks_is_not_taken_for_the_card():
    # This tuning photo's nine of hearts is found only with a row of the cloth's checks
    # beside its short side (18 px off): unlike the table as a whole, but one band along
    # its sides has the cloth's own texture and colours. Found at its own outline, or
    # said to hold a strip of the table (the calibration then looks for the card again
    # with the deck's shape and size), never taken as the card.
    from vision.plain.calibration import StripTaken
    from bench.plain_tuning.photo_tuning import DESIGNS, tuning_tables
    from bench.plain_tuning.scenes import corner_error
    from bench.plain_tuning.textures import registered
    from bench.vision_photo import calibration_photos
    from vision.plain.calibration import lone_card
    with registered():
        s, rng = next(tuning_tables(957, "tuning", DESIGNS["generated"], ("tune:gingham",)))
        frame, truth = next((f, t) for c, f, t in calibration_photos(s, rng) if c == "9H")
    frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR)
    try:
        outline = lone_card(frame)
    except StripTaken as taken:
        assert corner_error(taken.outline.corners, truth["corners"]) > 4.0
        return
    assert corner_error(outline.corners, truth["corners"]) < 4.0


@needs_art
def test_a_square_of_a_plaid_unlike_its_mix_is_not_taken_for_the_card_beside_which_the_cloth_was_taken():
    # This tuning photo's ten of spades is found only with a strip of the plaid beside it,
    # and a square of the cloth's darker stripes (0.15 of the card's area, its colours
    # unlike the cloth's mix) lies apart. The card is the one found with the strip (moved
    # in to its edge, or said to hold a strip of the table), not the square.
    from bench.plain_tuning.photo_tuning import DESIGNS, tuning_tables
    from bench.plain_tuning.scenes import corner_error
    from bench.plain_tuning.textures import registered
    from bench.vision_photo import calibration_photos
    from vision.plain.calibration import StripTaken, lone_card
    with registered():
        tables = tuning_tables(957, "tuning", DESIGNS["generated"], ("tune:gingham", "tune:plaid"))
        s, rng = next(t for k, t in enumerate(tables) if k == 2)
        frame, truth = next((f, t) for c, f, t in calibration_photos(s, rng) if c == "10S")
    frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR)
    try:
        outline = lone_card(frame)
    except StripTaken as taken:
        outline = taken.outline
    assert corner_error(outline.corners, truth["corners"]) < 30.0


@needs_art
def test_a_card_found_only_as_pieces_of_its_print_is_looked_for_again_with_the_decks_size(tmp_path):
    # On this striped tuning cloth the queen of hearts' white edge against a light stripe
    # was not found, but the two halves of her print were: "QH.jpg: 2 cards found; lay
    # one card at a time", again when the photo was taken again, and no deck was made.
    # Both lie within one card of the deck's size: the photo is looked at again with the
    # deck's shape and size, as one in which no card was found.
    from bench.plain_tuning.photo_tuning import DESIGNS, tuning_tables
    from bench.plain_tuning.scenes import corner_error
    from bench.plain_tuning.textures import registered
    from bench.vision_photo import calibration_photos
    from vision.plain.calibration import SeveralFound, lone_card
    with registered():
        tables = tuning_tables(961, "tuning", DESIGNS["generated"], ("tune:gingham", "tune:plaid", "tune:stripes"))
        s, rng = next(t for k, t in enumerate(tables) if k == 1)
        assert s.surface == "tune:stripes"
        truth = {}
        for card, frame, t in calibration_photos(s, rng):
            cv2.imwrite(str(tmp_path / f"{card}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
            truth[str(card)] = t["corners"]
    with pytest.raises(SeveralFound) as pieces:
        lone_card(cv2.imread(str(tmp_path / "QH.jpg")))
    assert len(pieces.value.pieces) == 2
    deck = calibrate_from_dir(tmp_path)
    assert Card("QH") in self_check(deck, fresh_views(tmp_path, deck))["ok"]
    seen = plain.recognize_plain(cv2.imread(str(tmp_path / "QH.jpg")), deck)
    named = [r for r in seen if r.card is not None]
    assert [r.card for r in named] == [Card("QH")]
    assert corner_error(named[0].corners, truth["QH"]) < 6


@needs_art
def test_two_cards_on_a_plaid_cloth_are_still_two():
    from vision.plain.calibration import lone_card
    frame, _ = _plaid_photo(1, ("QH", "9S"))
    with pytest.raises(CalibrationError, match="2 cards found"):
        lone_card(frame)


@needs_art
def test_a_lone_cards_photo_leaves_the_cloths_squares_out_before_they_are_grown(monkeypatch):
    # On a plaid every square is card-shaped: thousands of outlines, each looked around
    # for the card's edge (grown, pulled in) at seconds a photo. In a photo of one card
    # lying alone they share the cloth's colours and are left out first; the card is
    # still found at its own outline.
    from bench.plain_tuning.scenes import corner_error
    from vision.plain import find
    from vision.plain.calibration import lone_card
    frame, truth = _plaid_photo(1)
    handed, stop = [], {"now": True}
    grow = find.grow_outlines

    class Counted(Exception):
        pass

    def counting(frame, outlines, *args, **kw):
        handed.append(len(outlines))
        if stop["now"]:
            raise Counted
        return grow(frame, outlines, *args, **kw)

    monkeypatch.setattr(find, "grow_outlines", counting)
    with pytest.raises(Counted):
        find.find_outlines(frame, None)           # not known to be alone: every outline
    every = handed.pop()
    stop["now"] = False
    assert corner_error(lone_card(frame).corners, truth["corners"]) < 4.0
    assert every > 1000 and handed[0] < every / 5, (every, handed)


@needs_art
def test_a_crop_with_transparency_is_taken_as_it_is():
    rgba = art.card_image("standard", "KS", 300)
    face = face_from_image(rgba, "KS.png")
    assert face.shape[:2] == rgba.shape[:2]


def test_missing_extra_and_doubled_pictures_are_named(tmp_path):
    folder = tmp_path / "pictures"
    folder.mkdir()
    blank = np.full((40, 30, 3), 255, np.uint8)
    for card in DECK:
        if card not in (Card("JH"), Card("9C")):
            cv2.imwrite(str(folder / f"{card}.png"), blank)
    cv2.imwrite(str(folder / "2S.png"), blank)
    cv2.imwrite(str(folder / "notes.png"), blank)
    cv2.imwrite(str(folder / "T H.png"), blank)
    cv2.imwrite(str(folder / "TD.jpg"), blank)              # 10D.png is there too
    with pytest.raises(CalibrationError) as err:
        calibrate_from_dir(folder)
    text = str(err.value)
    assert "missing: JH 9C" in text and "2S.png" in text and "notes.png" in text
    assert "the same card twice" in text and "TD.jpg" in text
    with pytest.raises(CalibrationError, match="is not a folder"):
        calibrate_from_dir(tmp_path / "nowhere")


def test_a_deck_of_landscape_cards_is_refused():
    faces = {c: np.full((50, 120, 3), 255, np.uint8) for c in DECK}
    with pytest.raises(CalibrationError, match="times as wide as tall"):
        build_deck(faces)


@needs_art
def test_the_check_reads_fresh_views_and_catches_a_wrong_picture(photo_dir, tmp_path):
    deck = calibrate_from_dir(photo_dir)
    views = fresh_views(photo_dir, deck)
    # Fresh views: the photo turned, moved, relit and recompressed, not the picture itself.
    original = cv2.imread(str(photo_dir / "JH.jpg"))
    assert views[Card("JH")][0].shape == original.shape
    assert np.abs(views[Card("JH")][0].astype(int) - original).mean() > 10
    check = self_check(deck, views)
    assert sorted(check["ok"]) == sorted(DECK) and check["bad"] == {}
    pairs = close_pairs(check)
    assert pairs and all(0 < m <= 1 for _, _, m in pairs)
    # A picture of the queen of hearts saved as the jack of hearts: the deck made from
    # it cannot read the real jack back (more photos, JH-2.jpg, are the fresh views).
    wrong = _copy(photo_dir, tmp_path / "wrong")
    (wrong / "JH.jpg").write_bytes((photo_dir / "QH.jpg").read_bytes())
    cv2.imwrite(str(wrong / "JH-2.jpg"), _photo("JH", 9))
    bad = calibrate_from_dir(wrong)
    result = self_check(bad, fresh_views(wrong, bad))
    assert Card("JH") in result["bad"]


@needs_art
def test_calibrate_deck_command_writes_a_deck_that_passed_its_check(photo_dir, tmp_path, capsys):
    out = tmp_path / "standard.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(photo_dir), "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "24 of 24 cards read back as themselves" in printed and "closest cards" in printed
    assert plain.load_deck(out).cards == list(DECK)
    # What it is doing is said as it goes (on a busy cloth a Raspberry Pi takes minutes).
    assert printed.index("looking for the card in each of 24 photos") \
        < printed.index("looking at each photo again with the deck's shape and size") \
        < printed.index("checking the deck on 24 other views") < printed.index("self-check:")


def test_calibration_from_photos_counts_the_photos_done_when_it_takes_long(tmp_path, monkeypatch):
    # Each photo takes 4 s of the clock: a count every third photo; none while it is quick.
    from vision import deck_calibration
    folder = tmp_path / "photos"
    folder.mkdir()
    told, now = [], [0.0]
    read = deck_calibration._read_picture

    def slow_read(path):
        now[0] += 4.0
        return read(path)

    monkeypatch.setattr(deck_calibration, "_read_picture", slow_read)
    clock = lambda: now[0]          # noqa: E731
    for card in DECK:
        cv2.imwrite(str(folder / f"{card}.png"), np.full((60, 80, 3), 90, np.uint8))
    with pytest.raises(CalibrationError, match="no card found"):
        calibrate_from_dir(folder, progress=told.append, clock=clock)
    assert told[0] == "looking for the card in each of 24 photos"
    assert told[1:] == [f"  {k} of 24 photos done" for k in (3, 6, 9, 12, 15, 18, 21)]
    told.clear()
    with pytest.raises(CalibrationError, match="no card found"):
        calibrate_from_dir(folder, progress=told.append)
    assert told == ["looking for the card in each of 24 photos"]


@needs_art
def test_calibrate_deck_command_writes_nothing_when_a_photo_has_no_card(photo_dir, tmp_path, capsys):
    folder = _copy(photo_dir, tmp_path / "no-card")
    _, empty, _ = scene([place("9C", (210, 150), 0)], seed=8, cloth="blue", markers=False)
    cv2.imwrite(str(folder / "9C.jpg"), empty)
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 1
    assert "9C.jpg: no card found in it" in capsys.readouterr().err
    assert not out.exists()


@needs_art
def test_calibrate_deck_command_names_every_photo_without_a_card_in_one_message(photo_dir, tmp_path, capsys):
    # All the photos are looked at, so that the user learns at once which to take again.
    folder = _copy(photo_dir, tmp_path / "three-empty")
    _, empty, _ = scene([place("9C", (210, 150), 0)], seed=8, cloth="blue", markers=False)
    for name in ("9C.jpg", "JH.jpg", "AS.jpg"):
        cv2.imwrite(str(folder / name), empty)
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err            # one line
    assert "no card found in 3 of 24 photos" in err
    assert all(name in err for name in ("9C.jpg", "JH.jpg", "AS.jpg"))
    assert not out.exists() and "colour of the table" not in err      # white cards on a blue cloth
    # The photo benchmark's user takes again the photos named, and only those.
    assert set(cards_to_take_again(err)) == {Card("9C"), Card("JH"), Card("AS")}


def test_a_failed_calibration_of_cards_the_tables_colour_says_to_lay_them_on_a_darker_cloth(tmp_path, capsys):
    # Tuning photos of a light grey deck on light grey glazed tiles (photo_tuning --camera
    # tuning --seed 998 --surfaces tune:glaze, table t0, oxygen-air), two of them of the
    # bare floor: the command names those two, and says why cards on such a floor are
    # hard to see and what to do about it.
    from bench import vision_sets as vs
    from bench.plain_tuning import textures
    from bench.plain_tuning.photo_tuning import tuning_tables
    from bench.vision_photo import calibration_photos
    from vision.synth import compose_scene
    if not art.art_available():
        pytest.skip("KDE card art not installed")
    cv2.setNumThreads(1)
    with textures.registered():
        s, rng = next(tuning_tables(998, "tuning", vs.TUNING_DESIGNS, ("tune:glaze",)))
        assert (s.design, s.surface) == ("oxygen-air", "tune:glaze")
        for card, frame, _ in calibration_photos(s, rng):
            cv2.imwrite(str(tmp_path / f"{card}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        floor = compose_scene([], size=s.size, rng=rng, **s.conditions()).shoot(rng)[0]
    for name in ("9S.jpg", "QH.jpg"):
        cv2.imwrite(str(tmp_path / name), floor, [cv2.IMWRITE_JPEG_QUALITY, 95])
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "no card found in 2 of 24 photos: 9S.jpg, QH.jpg" in err
    assert "the cards' paper is nearly the colour of the table" in err and "darker cloth" in err
    assert not out.exists()


@needs_art
def test_one_message_names_a_photo_without_a_card_and_a_card_of_another_size(photo_dir, tmp_path, capsys):
    # The cards found are checked even when a photo holds none, so that the user takes
    # every photo that needs it again at once, not one more each time the command runs.
    folder = _copy(photo_dir, tmp_path / "empty-and-near")
    _, empty, _ = scene([place("9C", (210, 150), 0)], seed=8, cloth="blue", markers=False)
    cv2.imwrite(str(folder / "9C.jpg"), empty)
    # The jack of hearts taken with the camera further away: its card a quarter smaller.
    photo, _, _ = scene([place("JH", (320, 240), 20)], seed=101, cloth="blue", markers=False,
                        blur=0.5, noise=2, jpeg=90)
    far = cv2.copyMakeBorder(cv2.resize(photo, (480, 360), interpolation=cv2.INTER_AREA), 60, 60, 80, 80,
                             cv2.BORDER_REFLECT)
    cv2.imwrite(str(folder / "JH.jpg"), far)
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "9C.jpg: no card found in it" in err and "larger or smaller than the others: JH;" in err
    assert set(cards_to_take_again(err)) == {Card("9C"), Card("JH")}
    assert not out.exists()


@needs_art
def test_calibrate_deck_command_sets_aside_a_card_taken_for_another_in_its_check(photo_dir, tmp_path, capsys):
    # The ten of hearts photographed under the ten of diamonds' name: the two templates are
    # one face, so each card's fresh views are taken for the other and refused only by
    # the margin. The deck is written with both set aside: they are never named (nor a
    # card that looks like them), the other cards are.
    folder = _copy(photo_dir, tmp_path / "twice")
    (folder / "10D.jpg").write_bytes((photo_dir / "10H.jpg").read_bytes())
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "set aside" in err and "10D.jpg" in err and "10H.jpg" in err
    # The cards the command says to take again, not those they were taken for, come first.
    told = [line.split(":")[0].strip() for line in err.splitlines() if "take this card again" in line]
    assert told and [str(c) for c in cards_to_take_again(err)][:len(told)] == told
    deck = plain.load_deck(out)
    assert sorted(map(str, deck.held)) == ["10D", "10H"]
    ten = plain.recognize_plain(cv2.imread(str(photo_dir / "10H.jpg")), deck)
    assert ten and all(s.card is None for s in ten)
    nine = plain.recognize_plain(cv2.imread(str(photo_dir / "9H.jpg")), deck)
    assert [str(s.card) for s in nine] == ["9H"]
    # A card set aside is refused even where its view is clear, and so is a card whose
    # view looked nearly as much like it.
    deck.held = [Card("9H")]
    nine = plain.recognize_plain(cv2.imread(str(photo_dir / "9H.jpg")), deck)
    assert [s.card for s in nine] == [None] and "9H is set aside" in nine[0].reason
    king = plain.recognize_plain(cv2.imread(str(photo_dir / "KS.jpg")), deck)
    assert [str(s.card) for s in king] == ["KS"]


def test_calibrate_deck_command_writes_nothing_when_many_cards_are_taken_for_others(photo_dir, tmp_path, capsys):
    # Three pairs not told apart (six cards, more than MAX_HELD): the photos are too poor
    # to trust, and no deck is written.
    folder = _copy(photo_dir, tmp_path / "thrice")
    for rank in ("10", "J", "Q"):
        (folder / f"{rank}D.jpg").write_bytes((photo_dir / f"{rank}H.jpg").read_bytes())
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert "not written" in err and "QD" in err
    assert not out.exists()


def test_calibrate_deck_command_explains_what_is_missing(tmp_path, capsys):
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path)) == 2
    assert "--out FILE" in capsys.readouterr().err
    assert _run_cli("calibrate", "deck", "--out", str(tmp_path / "d.npz")) == 2
    assert "--from-dir DIR" in capsys.readouterr().err
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path), "--out", str(tmp_path / "d.npz")) == 1
    assert "missing: 9S" in capsys.readouterr().err
    # An iPhone's photos (HEIC) are not read by OpenCV: the message says so, rather than
    # only that every card is missing.
    for card in DECK:
        (tmp_path / f"{card}.HEIC").write_bytes(b"\0\0\0\x18ftypheic")
    assert _run_cli("calibrate", "deck", "--from-dir", str(tmp_path), "--out", str(tmp_path / "d.npz")) == 1
    err = capsys.readouterr().err
    assert "24 photos in a format OpenCV cannot read (10C.HEIC" in err and "JPEG" in err
    assert not (tmp_path / "d.npz").exists()


def _camera(cards, seed=3, still=8):
    """A camera's frames during a live pass: the empty table, then each card laid alone
    and left still (fresh sensor noise each frame), taken away between cards."""
    rng = np.random.default_rng(seed)
    _, empty, _ = scene([place("9S", (210, 150), 0)], seed=seed, cloth="green", markers=False)
    noisy = lambda img: np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)  # noqa: E731
    for _ in range(6):
        yield noisy(empty)
    for k, card in enumerate(cards):
        frame, _, _ = scene([place(str(card), *SPOTS[k % len(SPOTS)])], seed=seed, cloth="green",
                            markers=False)
        for _ in range(2):
            yield noisy(empty)
        for _ in range(still):
            yield noisy(frame)


@needs_art
def test_live_calibration_takes_each_card_once_it_lies_still_and_checks_it_on_later_frames():
    cards = [Card("9S"), Card("JH"), Card("JD"), Card("AC")]
    said = []
    deck, faces = calibrate_live(_camera(cards), announce=said.append, stable=4, cards=cards, name="live")
    assert deck.cards == sorted(cards, key=lambda c: c.index)
    assert len(said) == 4 and "jack of hearts" in said[1]
    assert sorted(deck.check["ok"]) == sorted(cards) and deck.check["bad"] == {}
    assert deck.card_px == pytest.approx(88 * 0.92 * 480 / 297 / 480, rel=0.1)


@needs_art
def test_a_live_pass_takes_faces_with_no_reach_over_the_tables_hidden_edges(monkeypatch):
    # In play the table's edges just beyond what differs from it may count as hidden
    # (``TableModel.hidden_reach``); a calibration pass keeps none, taking a card whose
    # corner is vetoed from a later frame, so that its face is cut at its own outline.
    import vision.deck_calibration as dc
    from vision.plain.background import TableModel
    reaches = []

    class Recording(TableModel):
        def table_edges(self, frame=None):
            if frame is not None:
                reaches.append(self.hidden_reach)
            return super().table_edges(frame)

    monkeypatch.setattr(dc, "TableModel", Recording)
    cards = [Card("9S"), Card("JH")]
    deck, _ = calibrate_live(_camera(cards), announce=lambda m: None, stable=4, cards=cards)
    assert deck.cards == sorted(cards, key=lambda c: c.index)
    assert reaches and set(reaches) == {0}
    assert TableModel().hidden_reach > 0


@needs_art
def test_live_calibration_says_when_the_camera_stops():
    # The nine of spades still lies there when the camera stops: the message says what
    # the pass was waiting for.
    frames = list(_camera([Card("9S")]))
    with pytest.raises(CalibrationError, match="stopped while waiting for the table to be seen empty "
                                               "before the jack of hearts.*1 of 2"):
        calibrate_live(frames, announce=lambda m: None, stable=4, cards=["9S", "JH"])


def _asking_camera(said, cut=(), still=12, cut_by=0.12, seed=5, out_of_view=(), table=None, cut_always=(),
                   learn=6, first_gap=2, spots=SPOTS, stretch=1.0):
    """A camera's frames during a live pass that shows the card each request names (as
    a person would): the empty table, then the card alone and still until the next
    request; the camera stops when nothing more is asked. A card in ``cut`` is, the
    first time, shown with a band of its side hidden (taken at the wrong outline); one
    in ``out_of_view`` is first laid mostly beyond the frame's edge (never found); one in
    ``cut_always`` is shown so every time.
    ``table``: the scene's table and deck (default: the standard deck on green cloth).
    ``learn``: frames of the empty table before the first request; ``first_gap``: after it,
    before the first card. ``spots``: where and how turned each card is laid, in turn;
    ``stretch``: the frames' width scaled so (a camera that sees the table wider than it
    is)."""
    import re
    rng = np.random.default_rng(seed)
    table = table or dict(cloth="green")
    _, empty, _ = scene([place("9S", (210, 150), 0)], seed=seed, markers=False, **table)
    def noisy(img):
        img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
        if stretch != 1.0:
            img = cv2.resize(img, (int(round(img.shape[1] * stretch)), img.shape[0]), interpolation=cv2.INTER_AREA)
        return img

    for _ in range(learn):
        yield noisy(empty)
    served, shown = 0, set()
    while served < len(said):
        served = len(said)
        card = re.search(r"\((\w+)\)", said[-1]).group(1)
        spot = ((-20, 150), 20) if card in out_of_view and card not in shown else spots[served % len(spots)]
        frame, _, truth = scene([place(card, *spot)], seed=seed, markers=False, **table)
        if card in cut_always or (card in cut and card not in shown):
            q = np.asarray(truth[0]["corners"], np.float32)
            band = np.array([q[0], q[0] + cut_by * (q[1] - q[0]), q[3] + cut_by * (q[2] - q[3]), q[3]])
            mask = np.zeros(frame.shape[:2], np.uint8)
            cv2.fillConvexPoly(mask, np.round(band).astype(np.int32), 1)
            frame = np.where(mask[:, :, None] > 0, empty, frame)
        shown.add(card)
        for _ in range(2 if served > 1 else first_gap):
            yield noisy(empty)
        for _ in range(still):
            if len(said) != served:
                break
            yield noisy(frame)


@needs_art
def test_the_first_card_laid_as_soon_as_the_table_is_learnt_is_taken():
    # The empty table is never seen between learning it and the first card: the table
    # was just learnt empty, so the first card is taken all the same.
    cards = [Card("9S"), Card("JH")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, learn=EMPTY_FRAMES, first_gap=0), announce=said.append,
                                 stable=4, cards=cards)
    assert sorted(faces) == sorted(cards)


@needs_art
def test_live_calibration_takes_a_card_again_when_its_face_is_not_the_decks_shape():
    # The jack of diamonds is first seen with a band of its side hidden, as when a line
    # of the mat is taken for its edge: its face is narrower than the deck's, and its
    # template would not tell it from its look-alikes. It is asked for again.
    cards = [Card("9S"), Card("JH"), Card("AC"), Card("JD"), Card("KS")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, cut={"JD"}), announce=said.append, stable=4,
                                 cards=cards)
    assert said[-1] == "show the jack of diamonds (JD) again, alone, face up"
    jd = faces[Card("JD")]
    assert jd.shape[1] / jd.shape[0] == pytest.approx(deck.aspect, rel=0.04)
    assert sorted(deck.check["ok"]) == sorted(cards) and not deck.check["confused"]


@needs_art
def test_a_camera_that_sees_the_table_wider_than_it_is_does_not_make_cards_lying_across_odd():
    # The frames are 4% narrower than the table (x over y), as the Blender world's webcam
    # on its A3 mat: a card lying along the frame's height looks 4% narrower than the
    # card, one lying across it 4% wider, and the two kinds of face differ in shape by 9%,
    # each well cut. Judged against each other with no stretch taken out, the cards lying
    # across were asked for again and again (a pass on that mat failed so); the stretch
    # is learnt from the faces and the angles they lay at.
    cards = [Card("9S"), Card("JH"), Card("AC"), Card("JD"), Card("KS"), Card("10C"), Card("QD"), Card("9H")]
    spots = [((150, 110), 0), ((250, 170), 90), ((320, 110), 3), ((140, 200), 88), ((220, 140), -4),
             ((300, 190), 92), ((180, 150), 2), ((280, 130), 87)]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, spots=spots, stretch=0.96, still=20), announce=said.append,
                                 stable=4, cards=cards)
    assert not [m for m in said if "again" in m], said
    assert deck.held == [] and sorted(deck.check["ok"]) == sorted(cards)
    shapes = sorted(f.shape[1] / f.shape[0] for f in faces.values())
    assert shapes[-1] / shapes[0] > 1.06     # the faces do differ so


@needs_art
def test_a_face_still_not_the_decks_shape_after_it_was_asked_for_again_is_set_aside_with_its_twin():
    # The jack of diamonds is seen with a band of its side hidden each time it is laid
    # (on tuning sessions: faces cut at a line of the mat or of their own print, 4-5%
    # off the deck's shape, still so after two requests, went into decks that passed
    # their check; a bent card is seen so every time). Its template would not tell it
    # from its twin: both are set aside, and the rest of the deck is made and read.
    cards = [Card("9S"), Card("JH"), Card("AC"), Card("JD"), Card("KS")]
    said = []
    deck, _ = calibrate_live(_asking_camera(said, cut_always={"JD"}), announce=said.append, stable=4, cards=cards)
    assert said.count("show the jack of diamonds (JD) again, alone, face up") == 4
    assert deck.held == [Card("JD"), Card("JH")] and deck.check["cut"] == [Card("JD")]
    for k, (card, named) in enumerate((("JD", None), ("JH", None), ("9S", "9S"), ("AC", "AC"))):
        seen = plain.recognize_plain(_photo(Card(card), k, cloth="green"), deck)
        # The jack of diamonds' view can look more like the jack of hearts' template than
        # like its own cut one: were the twin not set aside, it could be named so.
        assert [None if s.card is None else str(s.card) for s in seen] == [named], card


def test_calibrate_deck_command_says_which_cards_a_live_pass_set_aside_for_their_shape(tmp_path, capsys,
                                                                                        monkeypatch):
    # The live pass made the deck with the jack of diamonds never found at its own outline:
    # the command writes it and says which cards are set aside and why.
    rng = np.random.default_rng(1)
    deck = build_deck({c: rng.integers(0, 255, (88, 63, 3), np.uint8) for c in DECK}, name="d")
    deck.held = [Card("JD"), Card("JH")]
    deck.check = {"ok": [c for c in DECK if c not in deck.held], "bad": {}, "confused": {}, "wrong": {},
                  "margins": {}, "cut": [Card("JD")]}
    monkeypatch.setattr("vision.deck_calibration.calibrate_live", lambda *a, **k: (deck, {}))
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "0.png"), np.zeros((48, 64, 3), np.uint8))
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--frames", str(tmp_path / "frames"), "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "not found at its own outline" in err and "JD; set aside with its twin: JH" in err
    assert sorted(map(str, plain.load_deck(out).held)) == ["JD", "JH"]


@needs_art
def test_a_live_pass_with_too_many_faces_not_of_the_decks_shape_is_refused():
    # Three cards cut every time (with their twins, six cards set aside: more than
    # MAX_HELD): such a pass is not trusted, and no deck is made.
    cards = [Card("9S"), Card("JH"), Card("AC"), Card("JD"), Card("KS"), Card("QH")]
    said = []
    with pytest.raises(CalibrationError, match="not found at their own outline.*JD"):
        calibrate_live(_asking_camera(said, cut_always={"JD", "AC", "KS"}), announce=said.append, stable=4,
                       cards=cards)


@needs_art
def test_a_card_found_in_some_frames_only_is_taken_while_nothing_moves(monkeypatch):
    # A light card on a light terrazzo (tuning seed 708, 1280x720) was found in about one
    # frame in four, and in the others hardly differed from the table: each such frame
    # counted as the empty table and dropped the outlines found so far, so the card was
    # never found in five frames in a row; after three moves the camera stopped. While
    # nothing in view moves, the card still lies where it was found.
    import vision.deck_calibration as dc
    real, calls = dc._outlines_alone, [0]

    def now_and_then(frame, table, **kw):
        calls[0] += 1
        return real(frame, table, **kw) if calls[0] % 3 == 0 else []

    monkeypatch.setattr(dc, "_outlines_alone", now_and_then)
    monkeypatch.setattr(dc, "_differing_share", lambda table, frame: 0.0)
    monkeypatch.setattr(dc, "_table_clear", lambda table, frame: True)
    cards = [Card("9S"), Card("JH"), Card("AC")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, still=40), announce=said.append, stable=4, cards=cards)
    assert said == [f"show the {c.name} ({c}) alone, face up" for c in cards]
    assert sorted(deck.check["ok"]) == sorted(cards)


@needs_art
def test_once_most_cards_agree_on_their_size_a_card_is_never_looked_for_at_another(monkeypatch):
    # A cream jack on ivory cloth (tuning seed 983) is found at the size of the cards taken
    # only now and then; looked for at any size after a while, its court's frame was taken
    # (0.57 wide for the deck's 0.71) and the pass failed. Once a dozen cards agree on their
    # size, they were not all taken wrongly: the last card is looked for at that size only.
    # Here the finder misses it at the deck's size for twice the patience, and at any size
    # finds only an outline four fifths as large.
    import dataclasses
    import re

    import vision.deck_calibration as dc
    real, asked, misses = dc._outlines_alone, [], [0]

    def finder(frame, table, **kw):
        found = real(frame, table, **kw)
        if not asked or not re.search(r"\(QC\)", asked[-1]) or not found:
            return found
        if kw.get("size") is None:
            centre = found[0].corners.mean(axis=0)
            return [dataclasses.replace(found[0], corners=centre + 0.8 * (found[0].corners - centre))]
        misses[0] += 1
        return [] if misses[0] <= 2 * dc.HINT_PATIENCE else found

    monkeypatch.setattr(dc, "_outlines_alone", finder)
    cards = [Card(c) for c in ("9S", "10S", "JS", "QS", "KS", "AS", "9H", "10H", "JH", "QH", "KH", "AH", "QC")]
    deck, faces = calibrate_live(_asking_camera(asked, still=60), announce=asked.append, stable=4, cards=cards)
    assert misses[0] > 2 * dc.HINT_PATIENCE
    assert asked == [f"show the {c.name} ({c}) alone, face up" for c in cards]
    assert Card("QC") in deck.check["ok"]


@needs_art
def test_live_calibration_asks_to_move_a_card_it_sees_lying_but_cannot_find():
    # The jack of diamonds is first laid mostly beyond the frame's edge: something lies
    # there, but no card's outline is found. After a second of that the reader asks for
    # it to be moved, and takes it where it is laid then (before, the pass waited until
    # the camera stopped).
    cards = [Card("9S"), Card("JH"), Card("JD"), Card("KS")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, out_of_view={"JD"}, still=40), announce=said.append,
                                 stable=4, cards=cards)
    assert said[3] == "the jack of diamonds (JD) is not seen clearly there: move it a little, alone, face up"
    assert len(said) == 5 and sorted(deck.check["ok"]) == sorted(cards)


@needs_art
def test_a_card_the_check_confuses_is_taken_again_with_the_card_it_was_taken_for(monkeypatch):
    # Either face of a confused pair may have been cut badly: the check's first reading
    # guesses the queen of clubs as the king (a refusal by a margin), so both are asked
    # for again, and the pass ends when the check reads every card as itself.
    import vision.deck_calibration as dc
    real, calls = dc.self_check, []

    def check(deck, views, table=None):
        out = real(deck, views, table)
        calls.append(out)
        if len(calls) == 1:
            out = {**out, "confused": {Card("QC"): "KC"}}
        return out

    monkeypatch.setattr(dc, "self_check", check)
    cards = [Card("9S"), Card("QC"), Card("KC"), Card("JH")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said), announce=said.append, stable=4, cards=cards)
    assert said[4:] == ["show the queen of clubs (QC) again, alone, face up",
                        "show the king of clubs (KC) again, alone, face up"]
    assert len(calls) == 2 and not deck.check["confused"] and not deck.check["wrong"]


def _window_camera(said, rooms, design="standard", seed=7, still=12, left_lying=None):
    """A reader window's frames during a live pass that shows the card each request names
    (as a person would lay it face down on the plate): the empty window, then the card,
    still, until the next request. The room's light through the guide's opening changes
    from card to card (``rooms[k]`` for the k-th card laid and the empty window before
    it), as when a lamp is switched on. ``left_lying``: after the first card is taken it
    stays on the plate (never taken away) while the light changes."""
    import re

    from vision.synth_window import compose_window_frame
    rng = np.random.default_rng(seed)
    reader = dict(view_mm=160.0, distance_mm=90.0, guide="black", card_turn=2.0)
    empty, _ = compose_window_frame(None, rng=rng, deck=design, room=rooms[0], **reader)
    for _ in range(6):
        yield empty
    served = 0
    while served < len(said):
        served = len(said)
        card = re.search(r"\((\w+)\)", said[-1]).group(1)
        room = rooms[(served - 1) % len(rooms)]
        if left_lying is not None and served > 1:
            card = left_lying          # the first card, never taken away
        else:
            empty, _ = compose_window_frame(None, rng=rng, deck=design, room=room, **reader)
            for _ in range(2):
                yield empty
        frame, _ = compose_window_frame(card, rng=rng, deck=design, sticker=False, room=room, **reader)
        for _ in range(still):
            if len(said) != served:
                break
            yield frame


@needs_art
def test_live_calibration_through_the_reader_window_is_not_stalled_by_the_rooms_light():
    # The room's light through the guide's opening changes from one card to the next (a
    # lamp switched on and off): the empty window is still seen as empty between two
    # cards, and each card is asked for and taken once.
    cards = [Card("9S"), Card("JH"), Card("AC"), Card("KD")]
    said = []
    deck, faces = calibrate_live(_window_camera(said, rooms=[0.0, 0.12, 0.02, 0.1]),
                                 announce=said.append, stable=4, cards=cards)
    assert [s.split("(")[1][:2] for s in said] == ["9S", "JH", "AC", "KD"]
    assert deck.cards == sorted(cards, key=lambda c: c.index)
    assert sorted(deck.check["ok"]) == sorted(cards)


@needs_art
def test_a_card_left_on_the_reader_window_is_not_taken_for_the_next_when_the_light_changes():
    said = []
    frames = _window_camera(said, rooms=[0.0, 0.3, 0.1, 0.35], left_lying="9S", still=30)
    with pytest.raises(CalibrationError, match="stopped while waiting for the table to be seen empty "
                                               "before the jack of hearts.*1 of 2"):
        calibrate_live(frames, announce=said.append, stable=4, cards=["9S", "JH"])


@needs_art
def test_the_empty_table_is_told_from_a_card_or_a_hand_under_a_changed_light():
    from vision.deck_calibration import _table_clear
    from vision.plain.background import TableModel
    card = [place("JH", (330, 240), 25)]
    _, empty, _ = scene(card, seed=11, cloth="green", markers=False, noise=2)
    table = TableModel()
    for _ in range(5):
        table.learn(empty)
    # A lamp switched on at one side: the light across the table is uneven now.
    _, lit, _ = scene(card, seed=11, cloth="green", markers=False, noise=2, light=0.5)
    assert float((table.foreground(lit, update=False) > 0).mean()) > 0.01   # not a gain change
    assert _table_clear(table, lit)
    # A card lying there, or a hand over it, under the same lamp: not the empty table.
    with_card, _, _ = scene(card, seed=11, cloth="green", markers=False, noise=2, light=0.5)
    assert not _table_clear(table, with_card)
    for cover in (0.5, 1.0):
        hand, _, _ = scene(card, seed=11, cloth="green", markers=False, noise=2, light=0.5, hand=0,
                           hand_cover=cover)
        assert not _table_clear(table, hand)


@needs_art
def test_the_reader_guides_opening_lit_by_the_room_is_no_card_and_the_window_is_empty():
    # A strong light through the opening shows its outline, card-shaped and a little
    # larger than a card, round nothing: it is not taken for a card, and the window is
    # empty; it stays the table's once seen, so that it is never taken later either.
    from vision.deck_calibration import _corner_shift, _outlines_alone, _table_clear
    from vision.plain.background import TableModel
    from vision.synth_window import compose_window_frame
    rng = np.random.default_rng(7)
    reader = dict(view_mm=160.0, distance_mm=90.0, guide="black")
    empty, _ = compose_window_frame(None, rng=rng, room=0.0, **reader)
    table = TableModel()
    for _ in range(5):
        table.learn(empty)
    lit_frame, _ = compose_window_frame(None, rng=rng, room=0.3, **reader)
    lit = []
    assert _outlines_alone(lit_frame, table, lit=lit) == [] and len(lit) == 1
    assert _table_clear(table, lit_frame)
    card, _ = compose_window_frame("JH", rng=rng, room=0.3, sticker=False, **reader)
    assert all(_corner_shift(o.corners, lit[0]) > 5 for o in _outlines_alone(card, table, lit=lit))


@needs_art
def test_live_calibration_on_a_loop_carpet_takes_every_card():
    # On a loop carpet the table's own edges are everywhere and a light-rimmed card hardly
    # differs from it by the usual measure: the pass waited for the first card until the
    # camera stopped. The card is now seen as a region unlike the learnt carpet.
    from bench.plain_tuning import textures
    cards = [Card("9S"), Card("JH"), Card("QC"), Card("AD")]
    said = []
    with textures.registered():
        deck, faces = calibrate_live(_asking_camera(said, seed=12, table=dict(surface="tune:berber", deck="oxygen-air")),
                                     announce=said.append, stable=4, cards=cards)
    assert deck.cards == sorted(cards, key=lambda c: c.index), said
    assert sorted(deck.check["ok"]) == sorted(cards), said



@needs_art
@pytest.mark.parametrize("texture", ["sisal", "berber"])
def test_a_light_card_on_the_white_mat_laid_on_a_carpet_is_found_alone_in_a_dim_room(texture):
    # The carpet round the mat makes the table busy, where an outline is kept only if the
    # card hides the table under it; in a dim room a light card on the white paper hides
    # almost nothing that differs: the pass never took the first card. On the mat's plain
    # paper it is told from the mat's boxes by its sides, as on a plain table.
    from bench.plain_tuning import textures
    from vision.deck_calibration import _corner_shift, _outlines_alone
    from vision.plain.background import TableModel
    with textures.registered():
        frame, empty, truth = scene([place("9S", (300, 230), 20)], seed=3, surface=f"mat:A4:white:tune:{texture}",
                                    deck="oxygen-air", markers=False)
    frame, empty = [(0.6 * img).astype(np.uint8) for img in (frame, empty)]
    table = TableModel()
    table.learn(empty)
    assert table.busy
    assert _outlines_alone(empty, table) == []               # the mat's boxes are no card
    found = _outlines_alone(frame, table)
    assert len(found) == 1 and _corner_shift(found[0].corners, np.asarray(truth[0]["corners"], np.float32)) < 6


@needs_art
@pytest.mark.parametrize("angle,seed", [(30, 1), (-35, 2)])
def test_a_card_with_a_frame_printed_inside_it_is_found_alone_on_a_gingham_cloth(angle, seed):
    # On a busy table, outlines that hide nothing of the table are dropped first; the
    # frame printed inside the card was then still taken for a second card (the list of
    # outlines inside the card pointed at outlines dropped), so the card never lay
    # "alone" and the pass asked for it to be moved until the camera stopped.
    from bench.plain_tuning import textures
    from vision.deck_calibration import _corner_shift, _outlines_alone
    from vision.plain.background import TableModel
    with textures.registered():
        frame, empty, truth = scene([place("JH", (320, 240), angle)], seed=seed, surface="tune:gingham",
                                    deck="gen-6", markers=False)
    table = TableModel()
    table.learn(empty)
    assert table.busy
    found = _outlines_alone(frame, table)
    assert len(found) == 1 and _corner_shift(found[0].corners, np.asarray(truth[0]["corners"], np.float32)) < 5


def _on_camouflage(seed: int, angle: float, card: bool = True, blobs: float = 1.0):
    """A tuning camouflage print (``tune:camouflage``: dark blobs on a light ground) seen
    by a fixed camera, with a plain card (150 px long, a few red pips) lying on it whose
    rim is a 2 px band of the ground's grey, as a card's edge in shade: its step lies at
    the rim's inner side over the ground and at its outer side over the blobs, so that
    its sides break where they cross a blob's edge. ``(frame, empty table, corners)``;
    without ``card``, the empty table seen again. ``blobs``: the print's scale (2: blobs
    twice as large)."""
    from bench.plain_tuning import textures
    from tests.vision.test_plain_find import _plain_card
    s, (w, h) = 4, (640, 480)
    rng = np.random.default_rng(seed)
    cloth = np.clip(textures.texture("camouflage", (h * s, w * s), blobs * 4.0 * s / 3, rng), 0, 255).astype(np.uint8)
    big = cloth.copy()
    outline, corners = _plain_card(angle, 150, 0.05, (w / 2 + 20, h / 2 - 10), s)
    if card:
        centre = outline.mean(axis=0)
        cv2.fillPoly(big, [np.round(outline * 16).astype(np.int32)], (150, 160, 165), cv2.LINE_AA, shift=4)
        inner = centre + (outline - centre) * (1 - 2.0 / (150 * 0.73 / 2))
        cv2.fillPoly(big, [np.round(inner * 16).astype(np.int32)], (225, 228, 230), cv2.LINE_AA, shift=4)
        span = outline.max(axis=0) - outline.min(axis=0)
        for f in (0.3, 0.5, 0.7):
            for g in (0.35, 0.65):
                pip = centre + (np.array([f, g]) - 0.5) * 0.48 * span
                cv2.circle(big, tuple(int(v) for v in pip), 5 * s, (40, 40, 200), -1, cv2.LINE_AA)

    def shot(img, k):
        f = cv2.GaussianBlur(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), (0, 0), 0.7)
        return np.clip(f + np.random.default_rng([seed, k]).normal(0, 2, f.shape), 0, 255).astype(np.uint8)
    return shot(big, 1), shot(cloth, 2), corners


@pytest.mark.parametrize("seed,angle", [(1, 0), (7, 17), (9, 0), (10, 17), (12, 40)])
def test_a_card_on_a_camouflage_print_is_found_alone_as_what_differs_from_the_table(seed, angle):
    # Its sides break into short pieces where they cross the print's blobs, and no
    # corner gives the card: the pass never took the first card (a Blender camouflage
    # table). Every pixel of it differs from the table's under it, by more than the
    # print's own steps do when the camera shakes by a pixel: that place is the card.
    from vision.deck_calibration import _corner_shift, _outlines_alone
    from vision.plain.background import TableModel
    from vision.plain.change import change_outlines
    from vision.plain.find import find_outlines
    frame, empty, corners = _on_camouflage(seed, angle)
    table = TableModel()
    table.learn(empty)
    assert table.busy and find_outlines(frame, None, table=table) == []
    found = _outlines_alone(frame, table)
    assert len(found) == 1 and _corner_shift(found[0].corners, np.float32(corners)) < 5
    # The table seen again, with fresh noise, is no card.
    again = _on_camouflage(seed, angle, card=False)[0]
    assert change_outlines(again, table, None, 50.0) == [] and _outlines_alone(again, table) == []


@pytest.mark.parametrize("seed,angle,blobs", [(1, 17, 2.5), (7, 17, 1.8), (12, 0, 1.8)])
def test_a_card_on_a_print_of_large_blobs_is_found_where_the_table_differs_and_no_outline_covers_it(
        seed, angle, blobs):
    # A print whose blobs are large is no busy table (its edges cover little of it), so
    # the whole frame is not looked at pixel by pixel; still the card's sides break where
    # they cross a blob (a Blender camouflage table: 2 of 7 cards found alone, one of
    # them only in part). The place that differs and that no outline covers is looked at.
    from vision.deck_calibration import _corner_shift, _outlines_alone
    from vision.plain.background import TableModel
    from vision.plain.find import faint_outlines, find_outlines
    frame, empty, corners = _on_camouflage(seed, angle, blobs=blobs)
    table = TableModel()
    table.learn(empty)
    assert not table.busy and find_outlines(frame, None, table=table) == []
    found = _outlines_alone(frame, table)
    assert len(found) == 1 and _corner_shift(found[0].corners, np.float32(corners)) < 5
    # In play too, the card is found in the place its outline left unexplained.
    kw = dict(sizes=(150.0,), min_long=0.85 * 150, max_long=1.18 * 150)
    played = faint_outlines(frame, table.foreground(frame, update=False), [], 0.73, table, **kw)
    assert len(played) == 1 and _corner_shift(played[0].corners, np.float32(corners)) < 5
    again = _on_camouflage(seed, angle, card=False, blobs=blobs)[0]
    assert _outlines_alone(again, table) == []


def _under_a_moved_lamp(seed: int, angle: float, card: bool = True, paper: float = 0.94):
    """An ivory felt (mottled over a few cards' lengths) seen by a fixed camera that blurs,
    with a plain card (130 px long, six dark pips) lying on it whose paper is ``paper``
    times the felt's grey: its sides are soft steps of a few grey levels. The empty table
    is seen under a lamp at one side, the frame under the lamp moved to another (each
    darkens the far side of the table by 35%). ``(frame, empty table, corners)``; without
    ``card``, the empty table seen again under the moved lamp."""
    from tests.vision.test_plain_find import _plain_card
    s, (w, h) = 4, (640, 480)
    rng = np.random.default_rng(seed)
    mottle = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (w * s, h * s), interpolation=cv2.INTER_CUBIC)
    felt = np.float32([196, 214, 222])[None, None, :] * (1 + 0.03 * mottle[:, :, None])
    big = felt.copy()
    outline, corners = _plain_card(angle, 130, 0.05, (w / 2 + 30, h / 2 - 20), s)
    if card:
        face = np.empty_like(big)
        face[:] = np.float32([205, 214, 218]) * paper
        centre = outline.mean(axis=0)
        span = outline.max(axis=0) - outline.min(axis=0)
        for f in (0.3, 0.5, 0.7):
            for g in (0.35, 0.65):
                pip = centre + (np.array([f, g]) - 0.5) * 0.48 * span
                cv2.circle(face, tuple(int(v) for v in pip), 5 * s, (40, 40, 40), -1, cv2.LINE_AA)
        mask = np.zeros(big.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        a = mask[:, :, None].astype(np.float32) / 255
        big = big * (1 - a) + face * a

    def shot(img, lamp, k):
        yy, xx = np.mgrid[0:h * s, 0:w * s].astype(np.float32)
        away = (xx / (w * s) - 0.5) * np.cos(lamp) + (yy / (h * s) - 0.5) * np.sin(lamp)
        lit = img * (1 - 0.35 * (away[:, :, None] + 0.5)) * 1.15
        f = cv2.GaussianBlur(cv2.resize(lit, (w, h), interpolation=cv2.INTER_AREA), (0, 0), 1.2)
        return np.clip(f + np.random.default_rng([seed, k]).normal(0, 2, f.shape), 0, 255).astype(np.uint8)
    return shot(big, 2.5, 1), shot(felt, 0.3, 2), corners


@pytest.mark.parametrize("seed,angle,paper", [(1, 0, 0.94), (3, 35, 1.04), (4, 60, 0.95)])
def test_a_light_card_on_light_felt_under_a_moved_lamp_is_found_once_the_light_is_taken_out(seed, angle, paper):
    # Its sides are steps of a few grey levels, too faint for the edges even at the faint
    # thresholds, and the lamp moved since the table was learnt changes the table itself
    # by more than the card's paper differs from it (a tuning ivory felt: the pass never
    # took the first card). Once the light's smooth change across the table is taken
    # out, the card's paper stands out from the felt around it.
    from vision.deck_calibration import _corner_shift, _outlines_alone
    from vision.plain.background import TableModel
    from vision.plain.change import relit_outlines
    frame, empty, corners = _under_a_moved_lamp(seed, angle, paper=paper)
    table = TableModel()
    table.learn(empty)
    assert not table.busy
    assert _outlines_alone(frame, table) == [] and _outlines_alone(frame, table, faint=True) == []
    found = _outlines_alone(frame, table, faint=True, relit=True)
    assert len(found) == 1 and _corner_shift(found[0].corners, np.float32(corners)) < 3
    # In play, with the card's size known, the same, and not where an outline lies.
    kw = dict(min_long=0.85 * 130, max_long=1.18 * 130)
    played = relit_outlines(frame, table, 0.73, **kw)
    assert len(played) == 1 and _corner_shift(played[0].corners, np.float32(corners)) < 3
    covered = np.full(frame.shape[:2], 255, np.uint8)
    cv2.fillConvexPoly(covered, np.round(played[0].corners).astype(np.int32), 0)
    assert relit_outlines(frame, table, 0.73, mask=cv2.erode(covered, np.ones((27, 27), np.uint8)), **kw) == []
    # The empty table under the moved lamp is no card.
    again = _under_a_moved_lamp(seed, angle, card=False)[0]
    assert _outlines_alone(again, table, faint=True, relit=True) == []


@needs_art
def test_a_card_the_check_does_not_read_back_is_taken_again_once(monkeypatch):
    # The check refuses the jack of hearts (no other card guessed): its face may have been
    # taken badly, so it is asked for again, once; the deck is made when it is read then.
    import vision.deck_calibration as dc
    real, calls = dc.self_check, []

    def check(deck, views, table=None):
        out = real(deck, views, table)
        calls.append(out)
        if len(calls) == 1:
            out = {**out, "ok": [c for c in out["ok"] if c != Card("JH")],
                   "bad": {**out["bad"], Card("JH"): "no card found"}}
        return out

    monkeypatch.setattr(dc, "self_check", check)
    cards = [Card("9S"), Card("QC"), Card("KC"), Card("JH")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said), announce=said.append, stable=4, cards=cards)
    assert said[4:] == ["show the jack of hearts (JH) again, alone, face up"]
    assert len(calls) == 2 and sorted(deck.check["ok"]) == sorted(cards)


@needs_art
def test_a_face_cut_inside_the_card_is_taken_again(monkeypatch):
    # Live, a face that lacks the deck's rim (cut inside the card: test_plain_rim) is
    # asked for again, though the check read it back; the deck is made from the new face.
    import vision.deck_calibration as dc
    real, calls = dc.inner_cuts, []

    def inner(faces, aspect):
        calls.append(faces[Card("JH")])
        return {Card("JH"): {("top", 0): 0.05}} if len(calls) == 1 else real(faces, aspect)

    monkeypatch.setattr(dc, "inner_cuts", inner)
    cards = [Card("9S"), Card("QC"), Card("KC"), Card("JH")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said), announce=said.append, stable=4, cards=cards)
    assert said[4:] == ["show the jack of hearts (JH) again, alone, face up"]
    assert len(calls) == 2 and calls[1] is faces[Card("JH")] and calls[1] is not calls[0]


@needs_art
def test_a_deck_whose_check_reads_back_too_few_cards_is_not_made(monkeypatch):
    # However often they are taken again, two of four cards are never read back: such a
    # deck would be refused half the time in play, and the pass says so instead.
    import vision.deck_calibration as dc
    real = dc.self_check

    def check(deck, views, table=None):
        out = real(deck, views, table)
        lost = [Card("QC"), Card("KC")]
        return {**out, "ok": [c for c in out["ok"] if c not in lost],
                "bad": {**out["bad"], **{c: "no card found" for c in lost}}}

    monkeypatch.setattr(dc, "self_check", check)
    cards = [Card("9S"), Card("QC"), Card("KC"), Card("JH")]
    said = []
    with pytest.raises(CalibrationError, match=r"only 2 of 4 cards were read back .*not: QC KC"):
        calibrate_live(_asking_camera(said), announce=said.append, stable=4, cards=cards)
    assert said[4:] == ["show the queen of clubs (QC) again, alone, face up",
                        "show the king of clubs (KC) again, alone, face up"]


def test_a_face_cut_inside_its_rim_is_grown_to_the_cards_edge_at_the_second_look(monkeypatch):
    # A light card on the white mat: the finder took a line printed inside the card (its
    # picture's frame, 19% of the width in and 11% down) for two of its sides, in every
    # frame, and its edge is too faint a step to be found with the deck's shape. The second
    # look grows that outline to the card's edge against the empty table's picture.
    import vision.deck_calibration as dc
    import vision.plain.find as find
    from bench.plain_tuning.scenes import art_deck, corner_error
    from vision.plain.outline import Outline
    frame, empty, truth = scene([place("JC", (300, 220), 17)], seed=2, deck="dondorf", markers=False, paper=True)
    tl, tr, br, bl = (np.asarray(c, np.float32) for c in truth[0]["corners"])

    def at(u, v):
        return tl + u * (tr - tl) + v * (bl - tl)
    cut = np.stack([at(0.19, 0.11), at(1, 0.11), at(1, 1), at(0.19, 1)]).astype(np.float32)
    monkeypatch.setattr(find, "find_outlines", lambda *a, **k: [Outline(cut.copy(), 1.0, 10.0)])
    aspect = art_deck("dondorf").aspect
    size = float(np.hypot(*(bl - tl)))
    assert dc._second_look([frame], aspect, size, odd=True) is None
    face, long_side = dc._second_look([frame], aspect, size, odd=True, pictures=[empty], with_size=True)
    assert abs(face.shape[1] / face.shape[0] / aspect - 1) <= dc.ODD_SHAPE
    assert abs(long_side / size - 1) <= dc.ODD_SIZE
    assert corner_error(cut, truth[0]["corners"]) > 15.0


def _tuning_photo(seed: int, table: int, card: Card, camera: str, path, surfaces=None):
    """The calibration photo of ``card`` that ``bench.plain_tuning.photo_tuning --camera
    CAMERA --seed SEED [--surfaces SURFACES]`` takes at table ``table`` (the photos before
    it drawn as the tool draws them), written to ``path`` as the tool writes it: (session,
    the card's truth)."""
    from itertools import islice

    from bench.plain_tuning.photo_tuning import SURFACES, tuning_tables
    from bench.vision_photo import calibration_photos
    session, photos = next(islice(tuning_tables(seed, camera, surfaces=surfaces or SURFACES), table, None))
    img, truth = next((img, truth) for c, img, truth in calibration_photos(session, photos) if c == card)
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return session, truth


@needs_art
def test_a_small_card_in_a_large_photo_is_found_at_the_photos_own_size(tmp_path):
    # A tuning phone photo (bench.plain_tuning.photo_tuning --camera tuning-slant-small
    # --seed 890, table 4: Penguins on oak, 1280x960): the ten of clubs lies alone, 81 px
    # long, a plank's seam across its corner. At the finder's working width (640) its sides
    # are lost and no card was found, so the deck could not be made.
    from vision.plain.calibration import lone_card
    path = tmp_path / "10C.jpg"
    session, truth = _tuning_photo(890, 4, Card("10C"), "tuning-slant-small", path)
    outline = lone_card(cv2.imread(str(path)))
    corners = np.asarray(truth["corners"], np.float32)
    assert np.linalg.norm(outline.corners.mean(axis=0) - corners.mean(axis=0)) < 5
    assert abs(outline.long_side - session.card_px()) < 0.1 * session.card_px()


@needs_art
@pytest.mark.parametrize("table", [3, 4])
def test_a_card_on_the_printed_mat_wholly_in_view_is_found_not_the_mat(tmp_path, table):
    # Tuning photos (bench.plain_tuning.photo_tuning --surfaces mat:A3:wood:oak:satin,
    # mat:A3:cloth:green,mat:A3:felt:navy --seed 962, tables 3 and 4: Dondorf on the mat on
    # navy felt, Penguins on the mat on oak, 960x540): the whole mat lies in view around
    # the card, and the mat's outline and its grey card area, each of a card's shape, were
    # cut instead of the card in every photo, so no deck could be made.
    from bench import vision_sets as vs
    from vision.plain.calibration import lone_card
    path = tmp_path / "9S.jpg"
    session, truth = _tuning_photo(962, table, Card("9S"), "tuning", path,
                                   surfaces=vs.SURFACES["tuning"]["mat"])
    assert session.mat == "A3"
    outline = lone_card(cv2.imread(str(path)))
    corners = np.asarray(truth["corners"], np.float32)
    assert np.linalg.norm(outline.corners.mean(axis=0) - corners.mean(axis=0)) < 5
    assert abs(outline.long_side - session.card_px()) < 0.1 * session.card_px()


@needs_art
def test_a_photo_cut_at_a_plank_seam_is_looked_at_again_with_the_other_cards_shape_and_size(tmp_path):
    # A tuning phone photo (bench.plain_tuning.photo_tuning --camera tuning-slant-small
    # --seed 892, table 3: Oxygen on satin oak, 1280x960): the ten of clubs, 114 px long,
    # was first found with one side on a plank's seam beyond the card, 135 px long, and
    # the deck was refused ("these cards look larger or smaller than the others: 10C").
    # The first look now finds the card's own outline (photo.pull_in_outlines); the size
    # the seam's outline gave is put in its place, as a face cut elsewhere would be.
    from vision.deck_calibration import _face_and_size, _refind_odd
    from vision.plain.calibration import check_shapes
    card, path = Card("10C"), tmp_path / "10C.jpg"
    _, truth = _tuning_photo(892, 3, card, "tuning-slant-small", path)
    face, size = _face_and_size(cv2.imread(str(path)), path.name)
    true_px = float(truth["card_px"])
    assert abs(size * 960 / true_px - 1) < 0.06
    size = 135 / 960                                     # the seam's outline, as first found before
    # The other cards' faces as a good pass took them: the deck's shape, the true size.
    blank = np.full((200, round(200 * 0.71), 3), 255, np.uint8)
    faces = {c: blank for c in DECK if c != card}
    sizes = {c: true_px / 960 for c in DECK if c != card}
    faces[card], sizes[card] = face, size
    with pytest.raises(CalibrationError, match="larger or smaller"):
        check_shapes(faces, sizes)
    _refind_odd({card: path}, faces, sizes)
    check_shapes(faces, sizes)
    assert abs(sizes[card] * 960 / true_px - 1) < 0.06


@needs_art
def test_a_photo_of_a_card_seen_at_a_slant_is_brought_back_to_the_decks_shape(tmp_path):
    # A tuning phone photo (bench.plain_tuning.photo_tuning --camera tuning-slant --seed 896,
    # table 3: Dondorf on gloss oak, 1280x960, the phone 24 degrees off straight down): the
    # ace of hearts, found at its own outline, looks 0.73 as wide as tall where the other
    # cards look 0.61, and the deck was refused ("not found whole").
    from vision.deck_calibration import _face_and_size, _refind_odd
    from vision.plain.calibration import check_shapes
    card, path = Card("AH"), tmp_path / "AH.jpg"
    _, truth = _tuning_photo(896, 3, card, "tuning-slant", path)
    face, size = _face_and_size(cv2.imread(str(path)), path.name)
    assert face.shape[1] / face.shape[0] > 1.2 * 0.61
    blank = np.full((200, 122, 3), 255, np.uint8)                # the other cards: 0.61
    faces = {c: blank for c in DECK if c != card}
    sizes = {c: size for c in DECK if c != card}
    faces[card], sizes[card] = face, size
    with pytest.raises(CalibrationError, match="not found whole"):
        check_shapes(faces, sizes)
    _refind_odd({card: path}, faces, sizes)
    check_shapes(faces, sizes)
    assert abs(faces[card].shape[1] / faces[card].shape[0] - 0.61) < 0.02
    assert abs(sizes[card] * 960 - float(truth["card_px"])) < 0.08 * float(truth["card_px"])


@needs_art
def test_a_black_card_whose_duels_go_round_is_not_guessed_as_the_red_card_that_lost_them(tmp_path):
    # Photo tuning seed 974, table 1 (`bench.plain_tuning.photo_tuning --camera
    # tuning-slant`): Oxygen on navy felt, a phone held at a slant. The self-check's view
    # of the 10♣ is refused (its print's colour is unclear and the black tens and nines
    # beat each other by their shapes); the reader's walk through its duels ended on the
    # 10♥, which loses to every black card there, and took it for the guess: the check
    # said the 10♣ was "taken for 10H" and the deck was not written. The guess is the
    # card whose worst duel is best: a black card, and the deck is made.
    from itertools import islice

    from bench.plain_tuning.photo_tuning import tuning_tables
    from bench.vision_photo import calibration_photos
    s, photos = next(islice(tuning_tables(974, "tuning-slant"), 1, None))
    assert (s.design, s.surface) == ("oxygen", "felt:navy")
    for card, frame, _ in calibration_photos(s, photos):
        cv2.imwrite(str(tmp_path / f"{card}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    deck = calibrate_from_dir(tmp_path)
    views = fresh_views(tmp_path, deck)
    seen = [r for v in views[Card("10C")] for r in plain.recognize_plain(v, deck)]
    assert seen and all(r.card in (None, Card("10C")) for r in seen)
    assert all((r.guess or r.card).suit in "SC" for r in seen)
    check = self_check(deck, views)
    assert not check["confused"] and not check["wrong"]


def test_calibrate_deck_command_writes_nothing_when_the_check_reads_back_almost_nothing(photo_dir, tmp_path,
                                                                                       capsys):
    # Every photo shows the same card (as when something card-shaped around each card, a
    # mat's own outline, is cut instead of it): no view reads back as its card, and such
    # a deck would read nothing in play.
    folder = tmp_path / "same"
    folder.mkdir()
    for card in DECK:
        (folder / f"{card}.jpg").write_bytes((photo_dir / "9H.jpg").read_bytes())
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert "cards were read back" in err and "not written" in err and "Traceback" not in err
    assert not out.exists()


@needs_art
def test_a_cream_card_on_a_white_felt_is_fitted_at_the_size_of_the_cards_taken(monkeypatch, tmp_path):
    # A generated tuning design with no edge printed, its paper of a snow-white felt's
    # shade: no outline is found, even with faint edges and the light taken out; only its
    # print differs from the empty table. A card of the size and shape of those taken so
    # far (three at least), fitted over the print, lies at its corners. The empty table
    # gives nothing, and a card fitted at a slant (part of the print outside it) is not kept.
    from bench import vision_sets as vs
    from bench.plain_tuning.scenes import corner_error
    from vision.deck_calibration import _fitted_alone, _outlines_alone
    from vision.plain import fit
    from vision.plain.background import TableModel
    from vision.plain.outline import Outline
    from vision.synth import compose_scene
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    rng = np.random.default_rng([6, 93])
    session = vs.draw_session(rng, "tuning", size=(640, 480), design="gen-3", surface="felt:snow")
    empty = compose_scene([], size=session.size, rng=rng, **session.conditions())
    table = TableModel()
    for _ in range(5):
        table.learn(empty.shoot(rng)[0])
    px = session.card_px()
    face = art.card_image("gen-3", "AS", height=300)
    # Three cards taken so far (the hints' least), of the design's shape and this size.
    blank = np.zeros((200, int(round(200 * face.shape[1] / face.shape[0])), 3), np.uint8)
    taken = {Card(c): blank for c in ("9S", "KS", "QS")}
    sizes = {c: px / session.size[1] for c in taken}
    for card in ("10S", "AS"):
        places, _ = vs.frame_placements(session, rng, "alone", cards=[Card(card)])
        shot = compose_scene(places, size=session.size, rng=rng, **session.conditions())
        frame, truth = shot.shoot(rng)[0], np.asarray(shot.truth[0]["corners"], np.float32)
        assert _outlines_alone(frame, table, faint=True, relit=True) == [], card
        got = _fitted_alone(frame, table, sizes, taken)
        assert len(got) == 1 and corner_error(got[0].corners, truth) < 0.04 * px, card
    assert _fitted_alone(empty.shoot(rng)[0], table, sizes, taken) == []
    # With fewer than three cards taken, nothing is fitted: one card's face may be cut wrongly.
    assert _fitted_alone(frame, table, {Card("9S"): sizes[Card("9S")]}, {Card("9S"): blank}) == []
    centre = truth.mean(axis=0)
    turn = np.float32([[np.cos(0.8), -np.sin(0.8)], [np.sin(0.8), np.cos(0.8)]])
    for corners, kept in ((truth, 1), ((truth - centre) @ turn.T + centre, 0)):
        monkeypatch.setattr(fit, "fitted_outlines", lambda *a, c=corners: [Outline(np.float32(c), 1.0, 0.0)])
        assert len(_fitted_alone(frame, table, sizes, taken)) == kept


@needs_art
def test_a_fault_of_the_check_is_reported_as_a_bug_not_as_the_users_mistake(photo_dir, tmp_path, capsys,
                                                                           monkeypatch):
    # numpy's words about arrays printed as what the user did wrong would send them
    # retaking good photos: a fault inside the reader is named as a bug to report.
    import vision.deck_calibration as dc

    def broken(*_a, **_k):
        raise ValueError("could not broadcast input array from shape (0,24) into shape (23,24)")
    monkeypatch.setattr(dc, "self_check", broken)
    monkeypatch.delenv("EUCHRE_TABLE_DEBUG", raising=False)
    from controller.cli import main
    out = tmp_path / "d.npz"
    assert main(["calibrate", "deck", "--from-dir", str(photo_dir), "--out", str(out)]) == 70
    err = capsys.readouterr().err
    assert "internal error (a bug" in err and "Traceback" not in err and not out.exists()


@needs_art
def test_a_card_whose_face_may_be_cut_wrongly_is_set_aside_with_its_twin(photo_dir, tmp_path, capsys,
                                                                        monkeypatch):
    # Read with a template cut beside the card, a 10♥ was named 10♦: such a card and its
    # twin are refused until its photo is taken again.
    import vision.plain.calibration as calibration
    monkeypatch.setattr(calibration, "miscut_faces", lambda faces, aspect: {Card("10H"): 1.0})
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(photo_dir), "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "10H.jpg (10H)" in err and "2 cards set aside, as a face may be cut wrongly: 10H 10D" in err
    assert "until you take 10H.jpg again" in err
    assert set(plain.load_deck(out).held) == {Card("10H"), Card("10D")}


@needs_art
def test_a_face_named_only_for_its_move_is_not_set_aside(photo_dir, tmp_path, capsys, monkeypatch):
    # Some decks print a rank's faces unlike each other: a face that fits the others only
    # moved is named, and read.
    import vision.plain.calibration as calibration
    monkeypatch.setattr(calibration, "miscut_faces", lambda faces, aspect: {Card("QD"): 0.14})
    out = tmp_path / "d.npz"
    assert _run_cli("calibrate", "deck", "--from-dir", str(photo_dir), "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "QD.jpg (QD)" in err and "moved by 14%" in err and "set aside" not in err
    assert plain.load_deck(out).held == []


@needs_art
def test_an_ace_on_a_table_as_light_as_its_paper_is_taken(monkeypatch, tmp_path):
    # A generated tuning design with no edge printed, on ivory felt under a poor tuning
    # camera: the ace of spades differs from the empty table only at its pip, less than
    # what keeps the table from being seen empty. The pass took that for nothing lying
    # there and never looked with fainter edges; the camera stopped waiting for the ace
    # (a tuning session of clean_cases seed 898 failed so). Anything that differs at all
    # is now looked at.
    from bench import vision_sets as vs
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cv2.setNumThreads(1)
    rng = np.random.default_rng([1, 94])
    session = vs.draw_session(rng, "tuning", size=(1280, 720), design="gen-15", surface="felt:ivory",
                              profile="tuning-hard")
    cards = [Card(c) for c in ("9S", "KS", "QS", "AS")]
    camera = vs.LiveCalibration(session, rng, cards=cards)
    deck, faces = calibrate_live(camera, announce=camera.announce, stable=5, cards=cards)
    assert sorted(faces) == sorted(cards) and sorted(deck.check["ok"]) == sorted(cards)


@needs_art
def test_a_face_cut_askew_with_a_wedge_of_the_table_is_taken_again(monkeypatch):
    # The live pass took a card from an outline one of whose corners lay out on the table
    # (tigullio-international's A♠ on the grey A4 mat, studied run 1104): its face held a
    # wedge of the mat along one side, 0.1 of the width at one end and nothing at the
    # other, which neither the second look nor the rim's check mended, and in play the
    # card lost to the A♥. A face the askew check names (calibration.askew_cuts, tested on
    # such faces there) is asked for again, as a face cut inside the card is.
    import vision.deck_calibration as dc
    from vision.plain import calibration
    real, named = calibration.askew_cuts, []

    def askew_once(faces):
        found = real(faces)
        if not named and Card("AS") in faces:
            named.append(Card("AS"))
            found[Card("AS")] = {"left": 0.1}
        return found

    monkeypatch.setattr(dc, "askew_cuts", askew_once)
    cards = [Card("9S"), Card("JH"), Card("AS"), Card("KC")]
    said = []
    deck, faces = calibrate_live(_asking_camera(said, still=14), announce=said.append, stable=4, cards=cards)
    assert said[4:] == ["show the ace of spades (AS) again, alone, face up"]
    assert sorted(deck.check["ok"]) == sorted(cards)


def test_a_view_refused_among_many_outlines_is_told_in_one_short_phrase():
    # On a gingham every check is a card-shaped outline: a view of the Q♥ gave twenty
    # refusals, and the command printed each ("taken for 9H, matches no card well (best
    # 9H, 0.31), taken for 9C, ...") on one line per card. The refusal that was about
    # the card comes first, and the rest are counted.
    from vision.deck_calibration import _why_refused
    from vision.plain import Sighting

    def refused(guess, confidence, reason):
        return Sighting(None, [], confidence, reason=reason, guess=Card(guess))

    seen = [refused("9H", 0.31, "matches no card well (best 9H, 0.31)"),
            refused("QH", 0.53, "matches no card well (best QH, 0.53)"),
            refused("KS", 0.60, "matches no card well (best KS, 0.60)")]
    assert _why_refused(seen, Card("QH")) == "matches no card well (best QH, 0.53); 2 other outlines refused"
    assert _why_refused(seen[:1] + seen[2:], Card("QH")) == \
        "taken for KS, matches no card well (best KS, 0.60); 1 other outline refused"
    assert _why_refused([], Card("QH")) == "no card found"


def test_a_view_refused_on_a_busy_cloth_is_confused_with_the_likeliest_outlines_guess_only(monkeypatch):
    # On a plaid a view of the 10♣ was refused, with 29 other outlines (squares of the
    # cloth) refused beside it: the check said "10C: taken for 9S, KD, KD, KS, ..." and
    # every card so named was set aside with it, too many for the deck to be made. The
    # guess of the likeliest outline, the card's, is the one that says what the deck
    # confuses.
    from vision import deck_calibration
    from vision.deck_calibration import held_by_check
    from vision.plain import Sighting

    def refused(guess, confidence):
        return Sighting(None, [], confidence, reason="refused only by the margin", guess=Card(guess))

    table = [refused(g, 0.2 + 0.01 * i) for i, g in enumerate(["9S", "KD", "KS", "AH", "JD", "JC"])]
    views = {"10C": [np.zeros((8, 8, 3), np.uint8)]}
    monkeypatch.setattr(deck_calibration, "recognize_plain", lambda *a, **k: [*table, refused("10S", 0.8)])
    check = self_check(None, views)
    assert check["confused"] == {Card("10C"): "10S"}
    assert held_by_check(check) == [Card("10C"), Card("10S")]
    # A view in which some outline was guessed as the card is not confused at all.
    monkeypatch.setattr(deck_calibration, "recognize_plain", lambda *a, **k: [*table, refused("10C", 0.1)])
    assert self_check(None, views)["confused"] == {}


@needs_art
def test_a_phone_held_upright_calibrates_a_deck_that_reads_its_upright_photos(tmp_path):
    # A phone held upright keeps its photos lying on their side and marks them to be
    # turned (EXIF orientation 6), as `recognize` turns them. Calibration read them
    # unturned: a card's size was measured against the side that is the photo's width
    # in play, and in a 16:9 photo every card was then looked for 1.78 times too large
    # (none of these four found). Sizes are now measured against the short side, and a photo
    # is turned the same way in calibration as in play.
    from PIL import Image
    exif = Image.Exif()
    exif[0x0112] = 6

    def save(frame, path):
        Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)).save(path, quality=92, exif=exif)

    folder = tmp_path / "upright-phone"
    folder.mkdir()
    for k, card in enumerate(DECK):
        at, turn = SPOTS[k % len(SPOTS)]
        frame, _, _ = scene([place(str(card), at, turn)], seed=300 + k, size=(854, 480),
                            cloth="blue", markers=False, blur=0.5, noise=2, jpeg=90)
        save(frame, folder / f"{card}.jpg")
    deck = calibrate_from_dir(folder)
    cards = ["QH", "9S", "AD", "JC"]
    # The phone held a little higher than for the calibration photos (cards 10% smaller).
    frame, _, _ = scene([place(c, at, turn) for c, (at, turn) in zip(cards, SPOTS)], seed=333, size=(854, 480),
                        px_per_mm=0.9 * 0.92 * 480 / 297, cloth="blue", markers=False, blur=0.5, noise=2, jpeg=90)
    save(frame, tmp_path / "play.jpg")
    upright = cv2.imread(str(tmp_path / "play.jpg"), cv2.IMREAD_COLOR)
    assert upright.shape[:2] == (854, 480)
    seen = plain.recognize_plain(upright, deck)
    assert sorted(str(s.card) for s in seen if s.card is not None) == sorted(cards)
