"""A calibration face straightened from a wrong outline (a corner found out on the table, the card cut off) is refused, naming the card; a well-cut deck passes."""
import cv2
import numpy as np
import pytest

from engine.cards import DECK, Card
from tests.vision.test_plain_twins import H, W, cut_off, miscut, seen_at, synthetic_face
from vision import art, deck_calibration
from vision.plain.calibration import miscut_faces, miscut_message


def _faces(long_side=240):
    return {Card(c): seen_at(synthetic_face(str(c)), long_side) for c in DECK}


def _cut_short(face, by):
    """The face straightened from an outline ``by`` of the card short at its bottom and
    right (the card cut off), stretched back to the face's size."""
    h, w = face.shape[:2]
    return cv2.resize(face[:int(round(h * (1 - by))), :int(round(w * (1 - by)))], (w, h))


@pytest.mark.parametrize("bad,how", [
    ("QH", lambda f: miscut(f, 0.2 * W, 0.04 * H)),       # bottom-left corner out on the table
    ("10C", lambda f: miscut(f, 0.15 * W, 0.0)),
    ("AS", lambda f: miscut(f, -0.2 * W, 0.1 * H)),        # off against its twin too
    ("JD", lambda f: _cut_short(f, 0.1)),                   # an outline cut 10% off the card
])
def test_a_face_cut_from_a_wrong_outline_is_named(bad, how):
    cv2.setNumThreads(1)
    faces = _faces()
    faces[Card(bad)] = how(faces[Card(bad)])
    assert set(miscut_faces(faces, W / H)) == {Card(bad)}
    said = miscut_message(faces, W / H, photos={c: f"{c}.jpg" for c in faces})
    assert f"{bad}.jpg ({bad}); if so, take these photos again" in said


def _shifted(face, by):
    """The face straightened from an outline ``by`` of its height lower than the card: its
    top cut off, a strip of wood below it."""
    h = face.shape[0]
    s = int(round(by * h))
    out = np.empty_like(face)
    out[:h - s] = face[s:]
    grain = np.random.default_rng(0).normal(0, 12, out[h - s:].shape[:2])[..., None]
    out[h - s:] = np.clip(np.array([70, 130, 180]) + grain, 0, 255).astype(np.uint8)
    return out


def test_a_ten_that_fits_none_of_its_rank_is_named():
    # Cut lower than the card and askew, the ten fits no other ten at all, so no move can
    # be measured against them; every deck prints its tens' pips alike, so it is cut wrongly.
    cv2.setNumThreads(1)
    faces = _faces()
    faces[Card("10H")] = miscut(_shifted(faces[Card("10H")], 0.12), -0.2 * W, 0.1 * H)
    assert set(miscut_faces(faces, W / H)) == {Card("10H")}
    said = miscut_message(faces, W / H, photos={c: f"{c}.jpg" for c in faces})
    assert "fits none of the others of its rank" in said and "10H.jpg (10H)" in said


def test_two_faces_of_a_rank_cut_wrongly_are_both_named():
    cv2.setNumThreads(1)
    faces = _faces()
    faces[Card("9H")] = miscut(faces[Card("9H")], 0.2 * W, 0.04 * H)
    faces[Card("9C")] = miscut(faces[Card("9C")], -0.15 * W, 0.06 * H)
    assert set(miscut_faces(faces, W / H)) == {Card("9H"), Card("9C")}


@pytest.mark.parametrize("long_side", [110, 240])
def test_a_well_cut_deck_passes(long_side):
    # Faces a few pixels off the card's outline (a slip the reader absorbs) are not
    # refused, nor are faces seen small and soft.
    cv2.setNumThreads(1)
    faces = _faces(long_side)
    faces[Card("KS")] = cut_off(faces[Card("KS")], -6, 5)
    faces[Card("10H")] = _cut_short(faces[Card("10H")], 0.03)
    assert miscut_faces(faces, W / H) == {}
    assert miscut_message(faces, W / H) is None


def _crop(face):
    """A tight crop of the face with transparency around it (as `calibrate deck` takes
    pictures of cards cut out)."""
    out = np.zeros((face.shape[0] + 2, face.shape[1] + 2, 4), np.uint8)
    out[1:-1, 1:-1, :3] = face
    out[1:-1, 1:-1, 3] = 255
    return out


def test_calibrate_deck_names_the_photo_of_a_face_cut_wrongly(tmp_path, capsys):
    from tests.vision.test_deck_calibration import _run_cli
    cv2.setNumThreads(1)
    faces = _faces()
    faces[Card("QD")] = miscut(faces[Card("QD")], 0.2 * W, 0.04 * H)
    folder = tmp_path / "photos"
    folder.mkdir()
    for c, f in faces.items():
        cv2.imwrite(str(folder / f"{c}.png"), _crop(f))
    out = tmp_path / "deck.npz"
    _run_cli("calibrate", "deck", "--from-dir", str(folder), "--out", str(out))
    err = capsys.readouterr().err
    assert "QD.png (QD)" in err and "not have been found at their own outline" in err and "QH.png" not in err


@pytest.mark.skipif(not art.art_available(), reason="KDE card art not installed")
def test_live_calibration_takes_a_card_again_when_its_face_was_cut_from_a_wrong_outline(monkeypatch):
    # The queen of hearts' face is first straightened as from an outline with a corner
    # out on the table (its shape and size still the deck's): it fits the other queens
    # only reshaped, so it is asked for again, and the deck keeps the face taken then.
    from tests.vision.test_deck_calibration import _asking_camera
    average, calls = deck_calibration._average_face, []

    def taken(run, with_corners=False):
        out = average(run, with_corners=with_corners)
        calls.append(1)
        if len(calls) != 4:
            return out
        face = out[0] if with_corners else out
        bad = miscut(face, 0.2 * face.shape[1], 0.04 * face.shape[0])
        return (bad, out[1]) if with_corners else bad

    monkeypatch.setattr(deck_calibration, "_average_face", taken)
    # The check on later frames does not always catch such a face (it may read the
    # queen of hearts back as itself): here it is made not to, so that the face's own
    # check is what asks for the card again.
    check = deck_calibration.self_check

    def lenient(deck, views, table=None):
        out = check(deck, views, table)
        for k in ("wrong", "confused"):
            out[k] = {c: r for c, r in out[k].items() if c.rank != "Q"}
        return out

    monkeypatch.setattr(deck_calibration, "self_check", lenient)
    cards = [Card("9S"), Card("QD"), Card("QS"), Card("QH"), Card("QC")]
    said = []
    deck, faces = deck_calibration.calibrate_live(_asking_camera(said), announce=said.append, stable=4,
                                                  cards=cards)
    assert "show the queen of hearts (QH) again, alone, face up" in said[5:]
    assert miscut_faces(faces, deck.aspect) == {}


@pytest.mark.skipif(not art.art_available(), reason="KDE card art not installed")
@pytest.mark.parametrize("seed,card,by_corners", [(510, "KH", False), (510, "9C", False), (506, "9C", True)])
def test_a_white_card_alone_on_terrazzo_is_found_in_a_phone_photo_by_its_paper(seed, card, by_corners):
    # Oxygen-white on a terrazzo of coloured chips, through a phone (a photo-mode busy
    # tuning table): the chips touch the card's edge all round, so neither its edges nor
    # its region unlike the surface make a card's shape (the finder finds nothing), and
    # the calibration said "no card found in it". Its paper is the brightest thing in the
    # photo: that region, checked by the steps along its sides, is the card. In the
    # third photo three of the card's corners show as junctions of its sides: the
    # finder finds it by them (its sides to their far corners).
    from bench import vision_sets as vs
    from bench.plain_tuning import textures
    from bench.plain_tuning.scenes import corner_error
    from bench.vision_photo import DESIGN_GROUPS, photo_tables
    from vision.plain.calibration import lone_card
    from vision.plain.find import find_outlines, top_level
    cv2.setNumThreads(1)
    with textures.registered():
        session, _ = photo_tables(8, 501, ("phone",), DESIGN_GROUPS["kde-tuning"], ("busy",), mixed=False)[3]
        rng = np.random.default_rng([seed, 4])
        places, _ = vs.frame_placements(session, rng, "alone", cards=[Card(card)])
        frame, truth = vs.compose(session, places, rng)
    assert (session.design, session.surface, session.profile.name) == ("oxygen-white", "tune:terrazzo", "phone")
    frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR)
    found = top_level(find_outlines(frame, None))
    if by_corners:
        assert len(found) == 1 and corner_error(found[0].corners, truth[0]["corners"]) < 3.5
    else:
        assert found == []
    assert corner_error(lone_card(frame).corners, truth[0]["corners"]) < 3.5


def _printed_larger(face, by):
    """The face of a card whose print is ``by`` larger about its middle than the others'
    of its rank (a deck that prints its black aces unlike its red ones), cut at the
    card's own outline."""
    h, w = face.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 0, 1 + by)
    return cv2.warpAffine(face, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def test_aces_printed_unlike_the_other_colours_are_not_named():
    # Each black ace agrees with its twin; only the red aces differ from them, and a
    # deck that prints its aces so is cut well: it must not be refused.
    cv2.setNumThreads(1)
    faces = _faces()
    for c in ("AS", "AC"):
        faces[Card(c)] = _printed_larger(faces[Card(c)], 0.15)
    assert miscut_faces(faces, W / H) == {}
