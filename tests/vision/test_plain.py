"""Tests of vision.plain as a whole: cards found and read in frames (cloth, the printed mat, wood; with and without the learnt table), sightings, the deck file.

Frames are composed at test time from the KDE card art (vision.synth); the benchmark
bench/vision_plain.py runs the long version.
"""
import json

import numpy as np
import pytest

from bench.plain_tuning.scenes import art_deck, corner_error, on, place, scene
from engine.cards import Card
from vision import art, plain
from vision.plain.background import TableModel
from vision.recognize import recognize

pytestmark = pytest.mark.skipif(not art.art_available(),
                                reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")

TRICK = [place("JH", "N", 0), place("9S", "E", 90), place("AD", "S", 183), place("10C", "W", 251)]


@pytest.fixture(scope="module")
def deck():
    return art_deck("standard")


def _named(sightings):
    return [s.card for s in sightings if s.card is not None]


def test_a_trick_on_a_cloth_is_read_in_a_single_photo(deck):
    frame, _, truth = scene(TRICK, seed=3, cloth="green", blur=0.6, noise=3, jpeg=85)
    found = on(plain.recognize_plain(frame, deck), truth)
    for t, sightings in zip(truth, found):
        named = [s for s in sightings if s.card is not None]
        assert [s.card for s in named] == [t["card"]], (t["card"], [(s.card, s.reason) for s in sightings])
        assert corner_error(named[0].corners, t["corners"]) < 4.0
        assert named[0].confidence >= 0.9 and named[0].zone is None


def test_a_trick_on_the_printed_mat_is_read_with_the_learnt_table(deck):
    frame, empty, truth = scene([place("QD", (190, 45), 12), place("KC", (205, 235), -8),
                                 place("9H", (330, 150), 35), place("AS", (90, 150), 95)],
                                seed=5, paper=True, blur=0.5, noise=2)
    table = TableModel()
    table.learn(empty)
    found = on(plain.recognize_plain(frame, deck, table=table), truth)
    assert [_named(f) for f in found] == [[t["card"]] for t in truth]


def test_the_corners_start_at_the_cards_own_top_left(deck):
    frame, _, truth = scene([place("KC", "S", 180)], seed=4, markers=False)
    (s,) = plain.recognize_plain(frame, deck)
    assert s.card == Card("KC")
    assert np.hypot(*(np.asarray(s.corners[0]) - truth[0]["corners"][0])) < 4.0


def test_a_hand_over_a_card_is_refused_and_the_others_read(deck):
    frame, empty, truth = scene(TRICK, seed=2, hand=2, hand_cover=0.45)
    assert truth[2]["covered_by_hand"]
    table = TableModel()
    table.learn(empty)
    sightings = plain.recognize_plain(frame, deck, table=table)
    found = on(sightings, truth)
    assert _named(found[2]) == []
    assert found[2], "the hand over the card is reported (a refusal), so the tracker holds the card"
    for t, f in zip(truth[:2] + truth[3:], found[:2] + found[3:]):
        assert all(c == t["card"] for c in _named(f))


def _lamp_at_one_side(frame, change):
    """The frame under a lamp at its left: brighter there and darker at the right by
    ``change`` in all."""
    w = frame.shape[1]
    ramp = 1 + change * (0.5 - np.arange(w) / (w - 1))
    return np.clip(frame * ramp[None, :, None], 0, 255).astype(np.uint8)


@pytest.mark.parametrize("surface", [dict(paper=True), dict(paper=True, cloth="wood")])
def test_a_change_of_light_across_the_table_is_not_taken_for_a_hand(deck, surface):
    # The light has changed across the table since it was learnt empty (a lamp switched
    # on at one side): one gain for the whole frame leaves the mat's far side unlike the
    # table, which was reported as something lying there (six or seven places).
    frame, empty, truth = scene(TRICK, seed=5 if "cloth" not in surface else 7, blur=0.5, noise=2, **surface)
    table = TableModel()
    table.learn(empty)
    sightings = plain.recognize_plain(_lamp_at_one_side(frame, 0.3), deck, table=table)
    assert [s.reason for s in sightings if s.card is None] == []
    assert [_named(f) for f in on(sightings, truth)] == [[t["card"]] for t in truth]


def test_a_hand_is_reported_under_a_lamp_at_one_side(deck):
    frame, empty, truth = scene(TRICK, seed=2, hand=2, hand_cover=0.45)
    table = TableModel()
    table.learn(empty)
    found = on(plain.recognize_plain(_lamp_at_one_side(frame, 0.3), deck, table=table), truth)
    assert _named(found[2]) == [] and found[2]
    for t, f in zip(truth[:2] + truth[3:], found[:2] + found[3:]):
        assert _named(f) == [t["card"]]


def test_the_zone_of_each_sighting_comes_from_the_zone_map(deck):
    frame, _, truth = scene(TRICK[:2], seed=6, markers=False)
    sightings = plain.recognize_plain(frame, deck, zones=lambda p: "N" if p[1] < 150 else "E")
    assert sorted(s.zone for s in sightings if s.card) == ["E", "N"]


def test_bad_frames_are_refused_with_a_reason(deck):
    with pytest.raises(ValueError, match="BGR colour image"):
        plain.recognize_plain(np.zeros((48, 64), np.uint8), deck)
    with pytest.raises(ValueError, match="8-bit"):
        plain.recognize_plain(np.zeros((48, 64, 3), np.float32), deck)


def test_recognize_reports_refusals_only_when_asked(deck):
    frame, empty, truth = scene(TRICK[:2], seed=1, hand=0, hand_cover=0.45)
    assert truth[0]["covered_by_hand"]
    table = TableModel()
    table.learn(empty)
    plain_only = recognize(frame, mode="plain", deck=deck)
    with_refusals = recognize(frame, mode="plain", deck=deck, refusals=True, table=table)
    assert [s["card"] for s in plain_only] == ["9S"]
    assert "9S" in [s["card"] for s in with_refusals] and None in [s["card"] for s in with_refusals]
    assert all("guess" not in s for s in with_refusals)


def test_sighting_as_dict_is_json_ready(deck):
    frame, _, _ = scene([place("AH", "S", 0)], seed=13, markers=False)
    (s,) = plain.recognize_plain(frame, deck)
    d = json.loads(json.dumps(s.as_dict()))
    assert d["card"] == "AH" and len(d["corners"]) == 4 and d["reason"] is None


def test_deck_file_round_trip(deck, tmp_path):
    path = deck.save(tmp_path / "standard.npz")
    again = plain.load_deck(path)
    assert again.cards == deck.cards and again.name == "standard" and again.card_px is None
    assert again.aspect == pytest.approx(deck.aspect)
    assert all(np.array_equal(a, b) for a, b in zip(again.faces, deck.faces))
    frame, _, _ = scene([place("KD", "S", 33)], seed=12, markers=False)
    assert _named(plain.recognize_plain(frame, again)) == [Card("KD")]


def test_a_deck_written_before_sizes_were_of_the_short_side_keeps_its_cards_size(deck, tmp_path):
    # A deck file without ``card_px_of`` measured its card against the frame's height:
    # in a portrait picture its card is looked for at that height's share, as before.
    from vision.plain.deck import card_size_in
    deck.card_px = 0.25
    try:
        path = deck.save(tmp_path / "sized.npz")
    finally:
        deck.card_px = None
    portrait = np.zeros((800, 600, 3), np.uint8)
    assert card_size_in(plain.load_deck(path), portrait) == pytest.approx(150)
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        faces = {k: data[k] for k in data.files if k != "meta"}
    del meta["card_px_of"]
    np.savez_compressed(tmp_path / "older.npz", meta=np.array(json.dumps(meta)), **faces)
    assert card_size_in(plain.load_deck(tmp_path / "older.npz"), portrait) == pytest.approx(200)


def test_missing_and_foreign_files_are_not_decks(tmp_path):
    with pytest.raises(plain.DeckError, match="calibrate deck"):
        plain.load_deck(tmp_path / "nope.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a deck at all")
    with pytest.raises(plain.DeckError, match="not a plain-deck file"):
        plain.load_deck(bad)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "something else"})))
    with pytest.raises(plain.DeckError, match="not a plain-deck file"):
        plain.load_deck(other)


def test_a_deck_file_of_the_older_reader_asks_for_a_new_calibration(tmp_path):
    # The older reader's files held signatures and bands, version 3.
    old = tmp_path / "old.npz"
    np.savez(old, meta=np.array(json.dumps({"format": "euchre-table plain deck", "version": 3,
                                            "cards": ["9S"], "aspect": 0.7})),
             signatures=np.zeros((1, 4)), bands=np.zeros((1, 4)))
    with pytest.raises(plain.DeckError, match="calibrate the deck again"):
        plain.load_deck(old)


def _two_cards_counting(monkeypatch, module, name):
    """Two cards of a trick on a learnt table (the frame, the table, where the cards lie)
    and a list that grows by one at each call of ``module.name``."""
    frame, empty, truth = scene(TRICK[:2], seed=9, markers=False)
    table = TableModel()
    table.learn(empty)
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(1) or real(*a, **k))
    return frame, table, truth, calls


def test_a_still_table_is_not_read_again(deck, monkeypatch):
    import vision.plain.find as find
    frame, table, _, calls = _two_cards_counting(monkeypatch, find, "find_outlines")
    first = plain.recognize_plain(frame, deck, table=table)
    noisy = np.clip(frame + np.random.default_rng(0).normal(0, 1.5, frame.shape), 0, 255).astype(np.uint8)
    again = plain.recognize_plain(noisy, deck, table=table)          # the same view, new noise
    assert len(calls) == 1
    assert [s.card for s in again] == [s.card for s in first] and again[0] is not first[0]
    moved = frame.copy()
    moved[200:260, 300:360] = 255                                     # something changes in view
    plain.recognize_plain(moved, deck, table=table)
    # Read again: found again (and, the white square being explained by no outline,
    # looked at once more with faint edges).
    assert len(calls) in (2, 3)


def test_a_card_lying_still_is_not_read_again_while_the_view_changes_elsewhere(deck, monkeypatch):
    import vision.plain.decide as decide
    frame, table, truth, reads = _two_cards_counting(monkeypatch, decide, "read_views")
    first = plain.recognize_plain(frame, deck, table=table)
    assert len(reads) == 2
    # The camera brightens (a card laid elsewhere changes its exposure) and something
    # moves at the frame's edge: the frame is read again, but the two cards are not.
    brighter = np.clip(frame.astype(np.float32) * 1.06 + 3, 0, 255).astype(np.uint8)
    brighter[:40, :60] = 90
    again = plain.recognize_plain(brighter, deck, table=table)
    assert len(reads) == 2
    assert _named(again) == _named(first)
    # A finger over one card's corner: that card is read again (and no longer named as
    # it was on trust), the other is not.
    covered = brighter.copy()
    c = np.asarray(truth[0]["corners"], float)
    x, y = (0.75 * c[0] + 0.25 * c[2]).astype(int)
    covered[y - 12:y + 12, x - 12:x + 12] = (60, 90, 160)
    plain.recognize_plain(covered, deck, table=table)
    assert len(reads) == 3
    # A copy of the table (calibration freezes one) keeps no readings and the same deck.
    import copy
    frozen = copy.deepcopy(table)
    assert frozen.read_cache.entries == [] and frozen.read_cache.deck is deck


def test_prepare_works_out_every_look_alike_pair_before_play(deck):
    from vision.plain.deck import PlainDeck
    fresh = PlainDeck(name=deck.name, cards=deck.cards, faces=deck.faces, aspect=deck.aspect)
    assert fresh.prepare() is fresh
    for a in range(len(fresh.cards)):
        for b in fresh.alike[a]:
            if fresh.twins(a, b):       # twins are told apart by their suit signs only
                assert (a, b, False) in fresh._signs and (a, b, True) in fresh._signs
            else:
                assert (a, b, False) in fresh._places and (a, b, True) in fresh._places


def _cut_on_its_picture(truth, left=0.19, top=0.11):
    """A card's outline cut short as the finder found some live (tuning misses): its left
    and top sides on the frame of the card's picture (Dondorf's Jacks: 19% of the width in,
    beyond the index strip, and 11% of the height down)."""
    from vision.plain.outline import Outline
    tl, tr, br, bl = (np.asarray(c, np.float32) for c in truth["corners"])

    def at(u, v):
        return tl + u * (tr - tl) + v * (bl - tl)
    return Outline(np.stack([at(left, top), at(1, top), at(1, 1), at(left, 1)]).astype(np.float32), 1.0, 10.0)


@pytest.mark.parametrize("surface", [dict(cloth="green"), dict(paper=True)])
def test_a_live_outline_cut_short_by_a_line_printed_inside_the_card_is_grown_to_its_edge(surface, monkeypatch):
    # The finder sometimes takes a line printed inside the card (its picture's frame, the
    # inner edge of its index strip) for a side: the face read from that outline lacks its
    # index and matches no card well. A refused live outline is grown outward to the
    # card's edge (a step with the empty table beyond it) and read again.
    import vision.plain.find as find
    from vision.plain.outline import Outline
    frame, empty, truth = scene([place("JC", (300, 220), 17)], seed=2, deck="dondorf", markers=False, **surface)
    cut = _cut_on_its_picture(truth[0])
    assert corner_error(cut.corners, truth[0]["corners"]) > 15.0
    monkeypatch.setattr(find, "find_outlines", lambda *a, **k: [Outline(cut.corners.copy(), 1.0, 10.0)])
    table = TableModel()
    table.learn(empty)
    deck = art_deck("dondorf")
    (s,) = [s for s in plain.recognize_plain(frame, deck, table=table) if s.reason is None or "hand" not in s.reason]
    assert s.card == Card("JC"), s.reason
    assert corner_error(s.corners, truth[0]["corners"]) < 5.0
    # Without the learnt table (a single photo) the refused outline is grown to the first
    # straight step beyond it (``_mended_reading``): here the card's edge too.
    (s,) = plain.recognize_plain(frame, deck)
    assert s.card == Card("JC"), s.reason
    assert corner_error(s.corners, truth[0]["corners"]) < 5.0


def test_a_cut_outline_is_not_grown_onto_the_card_lying_over_its_edge():
    # The nine lies over the Jack's index strip: beyond the Jack's cut side is the nine, not
    # the table, so that side does not move, and the outline (the right shape only with
    # all its sides on the card's edge) is not grown at all.
    from vision.plain.seat import grow_to_table
    frame, empty, truth = scene([place("JC", (300, 220), 0), place("9H", (251, 220), 0)], seed=2, deck="dondorf",
                                markers=False, cloth="green")
    table = TableModel()
    table.learn(empty)
    cut = _cut_on_its_picture(truth[0])
    assert grow_to_table(frame, cut, table, art_deck("dondorf").aspect, 60, 400, others=[cut]) is None
    alone, empty, truth = scene([place("JC", (300, 220), 0)], seed=2, deck="dondorf", markers=False, cloth="green")
    table = TableModel()
    table.learn(empty)
    cut = _cut_on_its_picture(truth[0])
    grown = grow_to_table(alone, cut, table, art_deck("dondorf").aspect, 60, 400, others=[cut])
    assert corner_error(grown.corners, truth[0]["corners"]) < 5.0


@pytest.mark.parametrize("relit", [True, False])
def test_cards_are_looked_for_once_the_light_is_taken_out_only_with_a_deck_calibrated_so(deck, monkeypatch, relit):
    # The look costs 5-10 ms a frame: it is made in play only for a deck whose calibration
    # found cards only so (``deck.meta["relit"]``), and it finds cards there as in
    # calibration (tests.vision.test_deck_calibration: a light card on light felt under a
    # moved lamp).
    import copy

    import vision.plain.change as change
    frame, empty, truth = scene([place("QD", (190, 45), 12)], seed=5, paper=True, blur=0.5, noise=2)
    table = TableModel()
    table.learn(empty)
    ours = copy.copy(deck)
    ours.card_px, ours.meta = 0.3, {"relit": relit}
    looked = []
    real = change.relit_outlines

    def relit_outlines(*args, **kw):
        looked.append(kw.get("mask"))
        return real(*args, **kw)
    monkeypatch.setattr(change, "relit_outlines", relit_outlines)
    plain.recognize_plain(frame, ours, table=table)
    assert len(looked) == (1 if relit else 0)
