"""Tests of vision.plain: plain-deck cards found on the cloth and read against a calibrated deck.

Frames are composed at test time from the KDE card art (vision.synth); the benchmark
bench/vision_plain.py runs the long version over every design.
"""
import json

import cv2
import numpy as np
import pytest

from engine.cards import DECK, Card
from vision import art, plain
from vision.deck_calibration import build_deck, face_from_image

pytestmark = pytest.mark.skipif(not art.art_available(),
                                reason="KDE card art (kdegames-card-data-kf5, librsvg2-bin) not installed")


def _deck(design):
    faces = {c: face_from_image(art.card_image(design, c, 350)) for c in DECK}
    return build_deck(faces, name=design)


@pytest.fixture(scope="module")
def standard():
    return _deck("standard")


def _compose(placements, **conditions):
    from vision.synth import compose_frame
    return compose_frame(placements, **conditions)


def _match(sightings, truth):
    """For each true card, the sightings whose centre lies on it."""
    out = []
    for t in truth:
        poly = np.asarray(t["corners"], np.float32)
        out.append([s for s in sightings if cv2.pointPolygonTest(poly, s.center, False) >= 0])
    return out


def _corner_error(sighting, truth_corners) -> float:
    """Largest distance from a found corner to the nearest true corner."""
    t = np.asarray(truth_corners, float)
    return max(float(np.min(np.hypot(*(t - p).T))) for p in np.asarray(sighting.corners, float))


def test_clean_frame_reads_every_card_at_any_rotation(standard):
    placements = [{"card": "JH", "at": "N", "rotation": 0, "sticker": False},
                  {"card": "9S", "at": "E", "rotation": 90, "sticker": False},
                  {"card": "AD", "at": "S", "rotation": 183, "sticker": False},
                  {"card": "10C", "at": "W", "rotation": 251, "sticker": False}]
    img, truth = _compose(placements, size=(640, 480), rng=3, cloth="green")
    sightings = plain.recognize_plain(img, standard)
    for t, found in zip(truth, _match(sightings, truth)):
        assert [s.card for s in found] == [t["card"]], (t["card"], [(s.card, s.reason) for s in found])
        assert _corner_error(found[0], t["corners"]) < 4.0
        assert found[0].confidence >= standard.min_score
        assert found[0].margin >= standard.min_margin
        assert found[0].zone is None  # no zone map given


def test_corners_start_at_the_upright_top_left(standard):
    # Turned half round, the card's own top-left corner is at the bottom right of the image.
    img, truth = _compose([{"card": "KC", "at": "S", "rotation": 180, "sticker": False}],
                          size=(640, 480), rng=4)
    (s,), = _match(plain.recognize_plain(img, standard), truth)
    assert s.card == Card("KC")
    tl = np.asarray(truth[0]["corners"][0])
    assert np.hypot(*(np.asarray(s.corners[0]) - tl)) < 4.0


def test_spades_and_clubs_of_the_same_rank_are_told_apart(standard):
    # The pairs that differ only in the shape of small pips.
    pairs = [("9S", "9C"), ("10S", "10C"), ("AS", "AC"), ("QS", "QC")]
    for k, (a, b) in enumerate(pairs):
        img, truth = _compose([{"card": a, "at": "N", "rotation": 30 + k * 40, "sticker": False},
                               {"card": b, "at": "S", "rotation": 200 + k * 25, "sticker": False}],
                              size=(640, 480), rng=10 + k, blur=0.8, noise=3, jpeg=80)
        got = [[s.card for s in f] for f in _match(plain.recognize_plain(img, standard), truth)]
        assert got == [[Card(a)], [Card(b)]]


def test_camera_faults_give_refusals_not_wrong_cards(standard):
    rng = np.random.default_rng(5)
    correct = total = 0
    for f in range(6):
        cards = rng.choice(24, size=4, replace=False)
        placements = [{"card": DECK[int(c)], "at": z, "rotation": float(rng.uniform(0, 360)),
                       "sticker": False} for c, z in zip(cards, "NESW")]
        img, truth = _compose(placements, size=(640, 480), rng=rng, cloth="random",
                              roll=float(rng.uniform(-10, 10)), perspective=0.04, blur=1.0,
                              noise=4, light=0.4, glare=0.3, jpeg=70)
        for t, found in zip(truth, _match(plain.recognize_plain(img, standard), truth)):
            named = [s.card for s in found if s.card is not None]
            assert all(c == t["card"] for c in named), (f, t["card"], named)
            total += 1
            correct += bool(named)
    assert correct >= 0.85 * total


def test_a_hand_over_a_card_is_refused_not_guessed(standard):
    placements = [{"card": c, "at": z, "rotation": r, "sticker": False}
                  for c, z, r in (("QH", "N", 10), ("9D", "E", 80), ("KS", "S", 200), ("AC", "W", 300))]
    for seed in range(4):
        img, truth = _compose(placements, size=(640, 480), rng=seed, hand=2, hand_cover=0.4)
        found = _match(plain.recognize_plain(img, standard), truth)
        assert truth[2]["covered_by_hand"]
        assert not [s.card for s in found[2] if s.card is not None]
        for t, f in zip(truth[:2] + truth[3:], found[:2] + found[3:]):
            assert all(s.card in (None, t["card"]) for s in f)


def _patch(img, corners, colour, fraction, rng):
    """``img`` with an ellipse of ``colour`` (BGR) over ``fraction`` of the card with these
    corners, wholly inside its outline (a cover the outline check cannot see)."""
    poly = np.asarray(corners, np.float32)
    centre = poly.mean(axis=0)
    w = float(np.hypot(*(poly[1] - poly[0])))
    h = float(np.hypot(*(poly[3] - poly[0])))
    ax = np.sqrt(fraction * w * h / np.pi / 1.5)
    angle = np.degrees(np.arctan2(*(poly[3] - poly[0])[::-1]))
    offset = rng.uniform(-0.1, 0.1, 2) * [w, h]
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(mask, tuple(int(v) for v in centre + offset), (int(ax * 1.5), int(ax)), angle,
                0, 360, 255, -1, cv2.LINE_AA)
    alpha = cv2.GaussianBlur(mask, (0, 0), 1.0)[:, :, None] / 255.0
    shade = 0.9 + 0.1 * rng.random(img.shape[:2] + (1,))
    return (np.asarray(colour, np.float32) * shade * alpha + img * (1 - alpha)).astype(np.uint8)


def test_a_cover_inside_a_face_is_refused_and_glare_is_not(standard):
    from vision.synth import SKIN
    placements = [{"card": c, "at": z, "rotation": r, "sticker": False}
                  for c, z, r in (("QH", "N", 10), ("9D", "E", 80), ("KS", "S", 200), ("AC", "W", 300))]
    img, truth = _compose(placements, size=(640, 480), rng=8, cloth="green", blur=0.6, jpeg=85)
    rng = np.random.default_rng(8)
    refused = named_right = 0
    covers = list(SKIN) + [(40, 40, 40)]  # five skin tones and a dark grey sleeve
    for colour in covers:
        for k, t in enumerate(truth):
            patched = _patch(img, t["corners"], colour, rng.uniform(0.12, 0.3), rng)
            found = _match(plain.recognize_plain(patched, standard), truth)[k]
            assert found and all(s.card in (None, t["card"]) for s in found)
            refused += all(s.card is None for s in found)
            named_right += any(s.card == t["card"] for s in found)
            if all(s.card is None for s in found):
                # (skin over a black card's pips makes its ink look red: also a refusal)
                assert any(w in found[0].reason for w in ("covered", "not clearly", "ink's colour"))
    # Patches over the middle of a court card's busy picture are the hardest: 18 of 24
    # were refused when this test was written (the grey-only check it replaced, 12),
    # and every card named under a patch was the right one.
    assert refused >= 0.7 * len(covers) * len(truth), (refused, named_right)
    # Glare over the middle of a card washes it out but covers nothing: it is read.
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for t in truth:
        cx, cy = np.asarray(t["corners"], np.float32).mean(axis=0)
        spot = 0.35 * 255 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 30.0 ** 2))
        glared = np.clip(img + spot[:, :, None], 0, 255).astype(np.uint8)
        found = _match(plain.recognize_plain(glared, standard), [t])[0]
        assert [s.card for s in found] == [t["card"]], [(s.card, s.reason) for s in found]


def test_a_card_beside_a_hand_is_read(standard):
    # Fingertips stop just short of the card: its outline joins the hand's, and the card
    # is found at its clean corners, at the size of the other cards in the frame.
    placements = [{"card": c, "at": z, "rotation": r, "sticker": False}
                  for c, z, r in (("QH", "N", 10), ("9D", "E", 80), ("KS", "S", 200), ("AC", "W", 300))]
    beside = read = 0
    for seed in range(12):
        img, truth = _compose(placements, size=(640, 480), rng=seed, hand=seed % 4, hand_cover=-0.04)
        found = _match(plain.recognize_plain(img, standard), truth)
        for t, f in zip(truth, found):
            assert all(s.card in (None, t["card"]) for s in f)
        t = truth[seed % 4]
        if not t["covered_by_hand"]:
            beside += 1
            read += any(s.card == t["card"] for s in found[seed % 4])
    # 5 of 6 when this test was written (4 before the corner search).
    assert beside == 6 and read >= 5, (read, beside)


def test_zone_of_each_sighting_comes_from_the_zone_map(standard):
    img, truth = _compose([{"card": "JD", "at": "W", "rotation": 15, "sticker": False},
                           {"card": "JC", "at": "E", "rotation": 95, "sticker": False}],
                          size=(640, 480), rng=6)
    calls = []

    def zones(point):
        calls.append(point)
        return "left" if point[0] < 320 else "right"

    by_card = {s.card: s for s in plain.recognize_plain(img, standard, zones=zones)}
    assert by_card[Card("JD")].zone == "left" and by_card[Card("JC")].zone == "right"
    assert len(calls) == 2


def test_dark_bordered_deck_on_dark_cloth_is_found():
    dondorf = _deck("dondorf")  # black-bordered faces: a brightness threshold loses them
    img, truth = _compose([{"card": "KH", "at": "N", "rotation": 40, "sticker": False},
                           {"card": "10S", "at": "S", "rotation": 130, "sticker": False}],
                          size=(640, 480), rng=7, deck="dondorf", cloth="dark", noise=2)
    got = [[s.card for s in f] for f in _match(plain.recognize_plain(img, dondorf), truth)]
    assert got == [[Card("KH")], [Card("10S")]]


def test_black_faces_on_grey_cloth_are_never_misread():
    # Near-black faces whose outline melts into a grey cloth: a known weak case (see
    # docs/vision-plain.md). Many are refused; none may be named wrongly, and the
    # outline recovery must keep reading at least a third of them.
    oxygen = _deck("oxygen")
    named = total = 0
    for seed in range(4):
        placements = [{"card": c, "at": z, "rotation": r + 30 * seed, "sticker": False}
                      for c, z, r in (("KS", "N", 20), ("9C", "S", 110), ("QC", "W", 200))]
        img, truth = _compose(placements, size=(640, 480), rng=seed, deck="oxygen", cloth="grey",
                              noise=3, light=0.3)
        for t, found in zip(truth, _match(plain.recognize_plain(img, oxygen), truth)):
            cards = [s.card for s in found if s.card is not None]
            assert all(c == t["card"] for c in cards)
            total += 1
            named += bool(cards)
    assert named >= total // 3


def test_larger_frames_are_read_too(standard):
    img, truth = _compose([{"card": "QD", "at": "N", "rotation": 60, "sticker": False},
                           {"card": "9H", "at": "S", "rotation": 270, "sticker": False}],
                          size=(1280, 720), rng=8, blur=1.0, noise=3)
    found = _match(plain.recognize_plain(img, standard), truth)
    assert [[s.card for s in f] for f in found] == [[Card("QD")], [Card("9H")]]
    assert _corner_error(found[0][0], truth[0]["corners"]) < 6.0


def test_cards_of_another_design_are_not_named(standard):
    img, truth = _compose([{"card": c, "at": z, "rotation": r, "sticker": False, "deck": "oxygen"}
                           for c, z, r in (("JH", "N", 5), ("9S", "S", 100), ("AC", "E", 190))],
                          size=(640, 480), rng=9)
    assert [s.card for s in plain.recognize_plain(img, standard) if s.card is not None] == []


def test_empty_cloth_has_no_sightings(standard):
    img, _ = _compose([], size=(640, 480), rng=11, cloth="blue", light=0.4, noise=4)
    assert plain.recognize_plain(img, standard) == []


def test_pair_test_points_to_the_closer_template(standard):
    i, j = standard.cards.index(Card("9S")), standard.cards.index(Card("9C"))
    a, b = standard.faces[i], standard.faces[j]
    # +1 / -1 exactly, but for the cap on how far a tiny difference is scaled up
    assert plain._pair_test(a, a, b) > 0.5
    assert plain._pair_test(b, a, b) < -0.5
    assert plain._pair_test(a, a, a) == 0.0  # identical templates tell nothing


def test_deck_file_round_trip(standard, tmp_path):
    path = standard.save(tmp_path / "standard.npz")
    again = plain.load_deck(path)
    assert again.cards == standard.cards and again.name == "standard"
    assert np.allclose(again.faces, standard.faces) and again.aspect == pytest.approx(standard.aspect)
    img, truth = _compose([{"card": "KD", "at": "S", "rotation": 33, "sticker": False}],
                          size=(640, 480), rng=12)
    assert [s.card for s in plain.recognize_plain(img, again)] == [Card("KD")]


def test_sighting_as_dict_is_json_ready(standard):
    img, _ = _compose([{"card": "AH", "at": "S", "rotation": 0, "sticker": False}], size=(640, 480), rng=13)
    (s,) = plain.recognize_plain(img, standard)
    d = json.loads(json.dumps(s.as_dict()))
    assert d["card"] == "AH" and len(d["corners"]) == 4 and d["reason"] is None


def test_missing_deck_file_says_how_to_make_one(tmp_path):
    with pytest.raises(plain.DeckError, match="calibrate deck"):
        plain.load_deck(tmp_path / "nope.npz")


def test_foreign_file_is_not_a_deck(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a deck at all")
    with pytest.raises(plain.DeckError, match="not a plain-deck file"):
        plain.load_deck(bad)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "something else"})),
             signatures=np.zeros(1), bands=np.zeros(1), checks=np.zeros(1), faces=np.zeros(1))
    with pytest.raises(plain.DeckError, match="not a plain-deck file"):
        plain.load_deck(other)


def test_old_deck_format_asks_for_a_new_calibration(standard, tmp_path):
    path = standard.save(tmp_path / "d.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["version"] = 0
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    with pytest.raises(plain.DeckError, match="calibrate the deck again"):
        plain.load_deck(path)


def test_bad_frames_are_refused_with_a_reason(standard):
    with pytest.raises(ValueError, match="BGR colour image"):
        plain.recognize_plain(np.zeros((48, 64), np.uint8), standard)
    with pytest.raises(ValueError, match="8-bit"):
        plain.recognize_plain(np.zeros((48, 64, 3), np.float32), standard)


def test_recognize_reports_refusals_only_when_asked(standard):
    from vision.recognize import recognize
    placements = [{"card": "QH", "at": "N", "rotation": 10, "sticker": False},
                  {"card": "9D", "at": "E", "rotation": 80, "sticker": False}]
    img, truth = _compose(placements, size=(640, 480), rng=1, hand=0, hand_cover=0.4)
    assert truth[0]["covered_by_hand"]
    plain_only = recognize(img, mode="plain", deck=standard)
    with_refusals = recognize(img, mode="plain", deck=standard, refusals=True)
    assert [s["card"] for s in plain_only] == ["9D"]
    assert sorted(str(s["card"]) for s in with_refusals) == ["9D", "None"]
    assert all("guess" not in s for s in with_refusals)


def test_benchmark_counts_refusals_by_reason(capsys):
    from types import SimpleNamespace
    from bench import vision_plain as bench
    assert bench.reason_class([]) == "not found"
    told = SimpleNamespace(reason="9C is not clearly told from 9S (0.07 < 0.15)")
    assert bench.reason_class([told]) == "not told from a close card"
    assert bench.reason_class([SimpleNamespace(reason="part of the card differs in colour from KD (15.7): covered?")]) \
        == "covered (colour)"
    assert bench.in_full_view([[1, 1], [50, 1], [50, 80], [1, 80]], (640, 480))
    assert not bench.in_full_view([[-3, 1], [50, 1], [50, 80], [1, 80]], (640, 480))
    assert bench.main(["--decks", "standard", "--frames", "2", "--seed", "0", "--reasons",
                       "--sizes", "640x480"]) == 0
    out = capsys.readouterr().out
    assert "refused cards by reason" in out and "standard" in out


def _upright_view(img, corners, deck, i):
    """The warped view of a card at its true corners, the way up that suits card ``i``."""
    ranked, views = plain._read(img, plain._clockwise(np.asarray(corners, np.float32)), deck)
    xs = [plain._pair_image(v[2]) for v in views]
    return views[int(np.argmax([float((x * deck.faces[i]).sum()) for x in xs]))]


def test_the_ink_tells_red_from_black_under_a_coloured_light(standard):
    # Pairs a grey test finds close: same rank, one red, one black. A warm and a cool
    # cast over the whole frame must not change what colour the ink is.
    idx = {c: k for k, c in enumerate(standard.cards)}
    for cast in ((1.0, 1.0, 1.0), (0.8, 0.95, 1.15), (1.15, 1.0, 0.85)):   # B, G, R gains
        for red, black in (("JD", "JS"), ("QH", "QC"), ("9D", "9C"), ("AH", "AS")):
            img, truth = _compose([{"card": red, "at": "N", "rotation": 25, "sticker": False},
                                   {"card": black, "at": "S", "rotation": 160, "sticker": False}],
                                  size=(640, 480), rng=3, blur=0.8, noise=3, jpeg=80)
            img = np.clip(img * np.array(cast, np.float32), 0, 255).astype(np.uint8)
            r, k = idx[Card(red)], idx[Card(black)]
            for t, want_red in zip(truth, (True, False)):
                view = _upright_view(img, t["corners"], standard, r if want_red else k)
                s = plain._ink_redness(plain._tint_image(plain._white_balanced(view[3])), standard.tints[r], standard.tints[k])
                assert (s >= plain.INK_RED) if want_red else (s <= plain.INK_BLACK), (cast, t["card"], s)
            got = [[s.card for s in f] for f in _match(plain.recognize_plain(img, standard), truth)]
            # Never the other colour's card; under a coloured light the cover check may
            # still refuse a red court card (its colour check matches white balance by
            # an offset only: a known limit, see docs/vision-plain.md).
            assert got[1] == [Card(black)] and got[0] in ([Card(red)], [None]), (cast, got)
            if cast == (1.0, 1.0, 1.0):
                assert got == [[Card(red)], [Card(black)]]


def test_half_a_card_is_not_read_as_a_card():
    # A band of cloth across a card (a dark face melting into the cloth does this) leaves
    # two halves of nearly a card's proportions (Oxygen's cards are 0.71 wide, about
    # 1/√2): only their size gives them away.
    oxygen = _deck("oxygen")
    img, truth = _compose([{"card": c, "at": z, "rotation": r, "sticker": False}
                           for c, z, r in (("9S", "N", 0), ("KD", "S", 180), ("AC", "E", 90))],
                          size=(640, 480), rng=4, cloth="green", noise=2, deck="oxygen")
    q = plain._clockwise(np.asarray(truth[0]["corners"], np.float32))
    long_side = 0 if np.hypot(*(q[0] - q[1])) > np.hypot(*(q[1] - q[2])) else 1
    a, b = q[long_side], q[long_side + 1]
    c, d = q[(long_side + 2) % 4], q[(long_side + 3) % 4]
    cloth = img[5, 320].tolist()
    cut = img.copy()
    cv2.line(cut, tuple(np.int32((a + b) / 2)), tuple(np.int32((c + d) / 2)), cloth, 9)
    found = plain.recognize_plain(cut, oxygen)
    halves = _match(found, truth)[0]
    assert halves, "the halves are found (and refused)"
    assert all(s.card is None for s in halves)
    assert any("smaller than the other cards" in s.reason for s in halves), [s.reason for s in halves]
    # The whole cards beside them are still read.
    assert [[s.card for s in f] for f in _match(found, truth)[1:]] == [[Card("KD")], [Card("AC")]]


def test_a_card_a_few_pixels_from_the_frame_edge_is_read(standard):
    # Its top side runs along the frame's edge, a few pixels from it (a closing that
    # counted the world beyond the edge as set joined the two, and the card was taken
    # for one cut by the edge).
    img, truth = _compose([{"card": "QS", "at": "N", "rotation": 0, "sticker": False},
                           {"card": "10H", "at": "S", "rotation": 95, "sticker": False}],
                          size=(640, 480), rng=12, noise=2, blur=0.6)
    top = int(np.floor(min(p[1] for p in truth[0]["corners"])))
    for gap in (2, 3, 4):
        frame = np.ascontiguousarray(img[top - gap:])
        got = [s.card for s in plain.recognize_plain(frame, standard) if s.card is not None]
        assert Card("QS") in got, (gap, [(s.card, s.reason) for s in plain.recognize_plain(frame, standard)])


def test_an_ace_the_whole_face_takes_upside_down_is_still_read():
    # Seen in the benchmark (dondorf, seed 2000, frame 4, 1280×720, heavy noise and
    # JPEG): an ace is the same both ways up but for its centre pip, the whole face
    # preferred the wrong way by 0.4%, and judged that way the ace of spades lost to
    # the ace of clubs turned round. The candidate is now judged the other way up too.
    from bench.vision_plain import frame_cards, random_conditions
    from vision.synth import compose_frame
    dondorf = _deck("dondorf")
    rng = np.random.default_rng([2000, 4])
    cards = frame_cards(rng, 4)
    cond = random_conditions(rng)
    img, truth = compose_frame(cards, size=(1280, 720), rng=rng, deck="dondorf", **cond)
    k = [str(t["card"]) for t in truth].index("AS")
    found = _match(plain.recognize_plain(img, dondorf), truth)
    assert [s.card for s in found[k]] == [Card("AS")], [(s.card, s.reason) for s in found[k]]
    assert all(s.card in (None, t["card"]) for t, f in zip(truth, found) for s in f)


def test_a_card_touched_by_an_arm_from_the_frame_edge_is_read(standard):
    # A hand always reaches in from outside the frame, so a card whose outline joins the
    # hand's is in a blob cut by the frame's edge; such blobs used to be dropped whole.
    from vision.synth import SKIN
    img, truth = _compose([{"card": "10H", "at": "N", "rotation": 35, "sticker": False},
                           {"card": "KS", "at": "S", "rotation": 100, "sticker": False}],
                          size=(640, 480), rng=5, cloth="green", noise=2, blur=0.5)
    corners = np.asarray(truth[0]["corners"], np.float32)
    top = corners[int(np.argmin(corners[:, 1]))]
    arm = img.copy()
    x, y = int(top[0]), int(top[1]) + 4          # the arm covers the card's top corner a little
    cv2.rectangle(arm, (x - 25, 0), (x + 25, y), tuple(int(v) for v in SKIN[0]), -1)
    found = _match(plain.recognize_plain(arm, standard), truth)
    assert [s.card for s in found[0]] == [Card("10H")], [(s.card, s.reason) for s in found[0]]
    assert [s.card for s in found[1]] == [Card("KS")]
