"""Short versions of the plain-deck benchmarks (bench.vision_plain, bench.vision_sets, bench.vision_latency): scoring, sessions, the live calibration pass, and one small session read end to end."""
import collections

import numpy as np
import pytest

from bench import vision_plain as vp
from bench import vision_sets as vs
from engine.cards import Card


def _truth(card, corners, visible=1.0, hand=False):
    return {"card": Card(card), "corners": np.asarray(corners, float), "card_visible": visible,
            "covered_by_hand": hand}


SQUARE = [[100, 100], [160, 100], [160, 190], [100, 190]]
OTHER = [[300, 100], [360, 100], [360, 190], [300, 190]]


def _s(card, x, y, reason=None):
    return {"card": Card(card) if card else None, "centre": (x, y), "reason": reason}


def test_scoring_counts_correct_refused_wrong_and_cards_named_where_none_lies():
    truth = [_truth("JH", SQUARE), _truth("9S", OTHER)]
    out = vp.score_frame([_s("JH", 130, 140), _s(None, 330, 140, "not clearly told from 9C")],
                         truth, (640, 480))
    assert (out["in_view"], out["correct"], out["refused"], out["wrong"]) == (2, 1, 1, 0)
    assert out["reasons"] == collections.Counter({"not told from a close card": 1})
    out = vp.score_frame([_s("JD", 130, 140), _s("AS", 500, 400)], truth, (640, 480))
    assert out["wrong"] == 2 and out["correct"] == 0 and out["reasons"]["not found"] == 1
    assert any("where no card lies" in w for w in out["wrong_cards"])


def test_covered_and_cut_cards_are_not_counted_but_a_wrong_name_on_them_is():
    truth = [_truth("JH", SQUARE, hand=True), _truth("9S", [[-20, 100], [40, 100], [40, 190], [-20, 190]]),
             _truth("QC", OTHER, visible=0.5)]
    out = vp.score_frame([_s("JH", 130, 140), _s("9C", 10, 140)], truth, (640, 480))
    assert out["in_view"] == 0 and out["covered"] == 3 and out["covered_named"] == 1
    assert out["wrong"] == 1


def test_sessions_and_frames_follow_the_split_and_the_frame():
    rng = np.random.default_rng(3)
    for split in vs.SPLITS:
        for _ in range(4):
            s = vs.draw_session(rng, split, size=(640, 480))
            assert s.design in vs.designs(split) and s.surface in vs.surfaces(split)
            lo, hi = s.profile.card_px[640]
            assert lo - 1e-6 <= s.card_px() <= hi + 1e-6 or s.mat
            places, extra = vs.frame_placements(s, rng, "hand")
            assert len(places) == 4 and extra["hand_mode"] in ("over", "beside")
    s = vs.draw_session(rng, "validation", size=(960, 540), surface="tiles:marble", profile="webcam")
    assert 200 <= s.card_px() <= 260 and not s.markers
    with pytest.raises(ValueError, match="unknown frame kind"):
        vs.frame_placements(s, rng, "juggle")


def test_cards_laid_apart_are_whole_in_view_and_do_not_overlap(need_art):
    rng = np.random.default_rng(8)
    s = vs.draw_session(rng, "validation", size=(960, 540), surface="wood:pine:matte", profile="webcam")
    for _ in range(2):
        places, extra = vs.frame_placements(s, rng, "play")
        img, truth = vs.compose(s, places, rng, **extra)
        assert len(truth) == 4
        for t in truth:
            assert vp.in_full_view(t["corners"], s.size) and t["card_visible"] > 0.9


def test_the_live_calibration_pass_shows_the_card_the_reader_asks_for(need_art):
    rng = np.random.default_rng(2)
    s = vs.draw_session(rng, "tuning", "cloth", size=(320, 240), design="standard")
    cam = vs.LiveCalibration(s, rng, cards=["JH", "9C"], patience=3, gap=2)
    it = iter(cam)
    cam.announce("show the jack of hearts")
    frames = [next(it) for _ in range(4)]          # two of the empty table, then the jack
    assert [str(c) for c, _ in cam.shown] == ["JH"]
    assert np.abs(frames[0].astype(int) - frames[1].astype(int)).mean() < 10
    assert np.abs(frames[1].astype(int) - frames[3].astype(int)).mean() > 1
    assert len(list(it)) == 1                      # nobody asks again: the camera stops


def test_the_live_calibration_pass_shows_a_card_again_when_the_reader_names_it(need_art):
    rng = np.random.default_rng(2)
    s = vs.draw_session(rng, "tuning", "cloth", size=(320, 240), design="standard")
    cam = vs.LiveCalibration(s, rng, cards=["JH", "9C"], patience=3, gap=2)
    it = iter(cam)
    cam.announce("show the jack of hearts (JH) alone, face up")
    [next(it) for _ in range(4)]
    cam.announce("show the nine of clubs (9C) alone, face up")
    [next(it) for _ in range(4)]
    cam.announce("show the jack of hearts (JH) again, alone, face up")
    [next(it) for _ in range(4)]
    assert [str(c) for c, _ in cam.shown] == ["JH", "9C", "JH"]
    assert len(list(it)) == 1                      # nobody asks again: the camera stops


def test_a_small_session_is_calibrated_through_the_camera_and_read_without_a_wrong_card(need_art):
    # The bar of the benchmark, in small: 6 cards calibrated live on a tuning cloth,
    # then frames of the trick and of a hand. Reading may refuse; naming wrongly fails.
    rng = np.random.default_rng(11)
    s = vs.draw_session(rng, "tuning", "cloth", size=(640, 480), design="standard")
    res = vp.run_session(s, rng, 2, ["play", "hand"], cards=["9S", "9C", "JH", "JD", "KS", "KC"])
    assert res["calibration"]["ok"], res["calibration"]
    assert res["calibration"]["cards_taken"] == 6
    assert res["calibration"]["held"] == []          # every card told from the others
    for kind in ("play", "hand"):
        t = res[kind]
        assert t.n["wrong"] == 0, t.wrong_cards
    assert res["play"].n["in_view"] >= 6


def test_the_latency_of_a_stickered_card_through_the_service_is_measured(need_art, tmp_path):
    from bench import vision_latency as vl
    from vision.synth import compose_frame
    from vision.zones import MatLayout, calibrate
    rng = np.random.default_rng(5)
    s = vs.draw_session(rng, "tuning", size=(640, 480), surface="cloth:green", design="standard")
    layout = MatLayout.a3()
    s.camera.update(px_per_mm=0.9 * min(640 / layout.width_mm, 480 / layout.height_mm),
                    look_at=(210.0, 148.5), tilt_deg=2.0, roll_deg=0.0)
    s.markers = True
    empty, _ = compose_frame([], size=s.size, rng=rng, **s.conditions())
    calibrate(empty).save(tmp_path / "zones.json")
    r = vl.run_trial(s, rng, "sticker", tmp_path / "zones.json", None, "QH")
    assert r["read"]
    # The tracker needs the card in 3 frames: never sooner than two frame periods.
    assert 2000 / vl.FPS - 5 < r["latency_ms"] < 1500


def test_the_latency_bench_on_the_services_cpu_clock_with_a_hand_that_withdraws(need_art, tmp_path):
    from bench import vision_latency as vl
    from vision.synth import compose_frame
    from vision.zones import MatLayout, calibrate
    rng = np.random.default_rng(6)
    s = vs.draw_session(rng, "tuning", size=(640, 480), surface="cloth:green", design="standard")
    layout = MatLayout.a3()
    s.camera.update(px_per_mm=0.9 * min(640 / layout.width_mm, 480 / layout.height_mm),
                    look_at=(210.0, 148.5), tilt_deg=2.0, roll_deg=0.0)
    s.markers = True
    # The hand's frames: each new (the hand further back), unlike the same hand shot again.
    moving = vl.trial_frames(s, np.random.default_rng(1), "QH", True, hand="moving")
    still = vl.trial_frames(s, np.random.default_rng(1), "QH", True, hand="still")
    first = vl.LAID_AT - vl.HAND_FRAMES

    def change(frames):            # the share of pixels that changed by more than sensor noise
        return [float((np.abs(frames[i + 1].astype(int) - frames[i]).max(axis=2) > 40).mean())
                for i in range(first, vl.LAID_AT - 1)]
    assert min(change(moving)) > 0.005 and max(change(still)) < 0.0005
    empty, _ = compose_frame([], size=s.size, rng=rng, **s.conditions())
    calibrate(empty).save(tmp_path / "zones.json")
    r = vl.run_trial(s, rng, "sticker", tmp_path / "zones.json", None, "QH", clock=vl.CpuClock())
    assert r["read"]
    # On the service's own clock the frames come at their times: the still card's first
    # frame is read once it has come, and the play is never sooner than two frame periods.
    step = next(st for st in r["steps"] if st[0] == vl.LAID_AT)
    assert step[1] == 0.0 and step[3] >= 0.0
    assert 2000 / vl.FPS - 1 < r["latency_ms"] < 1500


def test_the_speed_bench_times_and_scores_the_same_frames_again_after_keeping_them(need_art, tmp_path, capsys):
    from bench import vision_speed as vsp
    from bench.plain_tuning.scenes import art_deck
    from vision.synth import compose_scene
    rng = np.random.default_rng(5)
    s = vs.draw_session(rng, "tuning", "cloth", size=(640, 480), design="standard")
    empty = compose_scene([], size=s.size, rng=rng, **s.conditions())
    data = [{"label": "test", "size": s.size, "deck": art_deck("standard"),
             "empty": [empty.shoot(rng)[0] for _ in range(3)],
             "frames": vsp.session_frames(s, rng, 1, ["empty", "four", "add"])}]
    assert [f[0] for f in data[0]["frames"]] == ["empty", "four", "before add", "before add", "add"]
    assert [len(f[2]) for f in data[0]["frames"]] == [0, 4, 3, 3, 4]
    first = vsp.run(data, stages=True)
    assert all(r["ms"] > 0 for r in first["frames"])
    assert first["stages"][1]["find (all)"] > 0 and first["stages"][1]["read+decide (all)"] > 0
    vsp.save(data, tmp_path / "kept")
    again = vsp.run(vsp.load(tmp_path / "kept"))
    assert [(r["kind"], r["in_view"], r["named"]) for r in again["frames"]] == \
        [(r["kind"], r["in_view"], r["named"]) for r in first["frames"]]
    vsp.summary(again)
    out = capsys.readouterr().out
    assert "640x480" in out and "add" in out
    assert vsp.main(["--load", str(tmp_path / "missing")]) == 2


def test_the_generated_designs_are_refused_with_the_validation_split(capsys):
    # They are made by the project: tuning data only.
    assert vp.main(["--quick", "--designs", "generated", "--splits", "tuning,validation"]) == 2
    assert "the generated designs are tuning data" in capsys.readouterr().err
    assert vp.main(["--quick", "--designs", "generated,kde-validation", "--splits", "busy"]) == 2
    assert "the busy split is for tuning" in capsys.readouterr().err


def test_a_live_pass_sets_aside_the_cards_its_check_cannot_tell_apart(need_art, monkeypatch):
    # A check that takes the ten of diamonds for the ten of hearts every time (a deck whose
    # red tens this camera cannot tell apart): after their retakes the deck is made with
    # both set aside, never naming them; the other cards are named.
    from vision import deck_calibration as dc
    from vision.plain import recognize_plain
    real_check = dc.self_check

    def check(deck, views, table=None):
        out = real_check(deck, views, table)
        out["ok"] = [c for c in out["ok"] if c != Card("10D")]
        out["confused"][Card("10D")] = "10H"
        return out

    monkeypatch.setattr(dc, "self_check", check)
    rng = np.random.default_rng(12)
    s = vs.draw_session(rng, "tuning", "cloth", size=(640, 480), design="standard")
    cards = [Card(c) for c in ("9S", "10H", "10D", "KS", "JC", "AD", "QH", "9C")]
    cam = vs.LiveCalibration(s, rng, cards=cards)
    deck, _ = dc.calibrate_live(cam, announce=cam.announce, stable=5, cards=cards)
    assert sorted(map(str, deck.held)) == ["10D", "10H"]
    assert sum("(10D) again" in m for m in cam.messages) == dc.CHECK_RETAKES      # taken again first
    places, extra = vs.frame_placements(s, rng, "play", cards=[Card("10H"), Card("9S"), Card("KS")])
    img, truth = vs.compose(s, places, rng, **extra)
    seen = {}
    for sg in recognize_plain(img, deck):
        for t in truth:
            if vp.cv2.pointPolygonTest(np.float32(t["corners"]), tuple(map(float, sg.center)), False) >= 0:
                seen[str(t["card"])] = sg
    assert seen["10H"].card is None and "set aside" in seen["10H"].reason
    assert str(seen["9S"].card) == "9S" and str(seen["KS"].card) == "KS"


def test_a_failed_pass_counts_the_cards_it_took_not_its_requests():
    # A pass that never took its first card asked four times (the card, then three times to
    # move it): none was taken, as its error says, and as its requests show.
    said = ["show the nine of spades (9S) alone, face up"] + 3 * [
        "the nine of spades (9S) is not seen clearly there: move it a little, alone, face up"]
    assert vp.taken_before_failing("the camera stopped while waiting for the nine of spades "
                                   "(0 of 24 cards taken)", said) == 0
    assert vp.taken_before_failing(None, said) == 0
    said += ["show the nine of clubs (9C) alone, face up", "show the nine of spades (9S) again, alone, face up",
             "show the jack of hearts (JH) alone, face up"]
    assert vp.taken_before_failing(None, said) == 2


def test_a_card_read_by_its_own_outline_is_judged_as_that_card_though_another_lies_on_its_centre():
    # A trick being gathered: the 9♦ lies on the 10♠ over the 10♠'s middle. The reader
    # found the 10♠ by its own outline and named it; judged by the top card under the
    # sighting's centre, it counted as a 10♠ named for the 9♦. A sighting with a card's
    # corners is that card's; one named otherwise on those corners is still wrong.
    ten = [[100, 100], [200, 100], [200, 240], [100, 240]]
    nine = [[120, 150], [220, 150], [220, 290], [120, 290]]
    truth = [_truth("9D", nine, visible=1.0), _truth("10S", ten, visible=0.6)]     # top card first

    def on(card, corners):
        q = np.asarray(corners, float)
        return {"card": Card(card), "centre": tuple(q.mean(axis=0)), "reason": None, "corners": q + 2}

    out = vp.score_frame([on("10S", ten), on("9D", nine)], truth, (640, 480))
    assert out["wrong"] == 0 and out["correct"] == 1 and out["covered_named"] == 1
    out = vp.score_frame([on("9H", ten), on("9D", nine)], truth, (640, 480))
    assert out["wrong_cards"] == ["9H for 10S"]
    # Without corners (or corners of no card), the top card under the centre judges.
    out = vp.score_frame([{"card": Card("10S"), "centre": (150, 170), "reason": None}], truth, (640, 480))
    assert out["wrong_cards"] == ["10S for 9D"]


def test_the_still_kind_reads_a_sequence_and_scores_its_last_frame(need_art):
    # A card lying still while another comes and goes beside it: 50 frames read with the
    # session's one table, the last scored (its two cards), and reported apart.
    import io
    rng = np.random.default_rng(12)
    s = vs.draw_session(rng, "tuning", "cloth", size=(640, 480), design="standard")
    reads = []
    real = vp.reader_for

    def counting(deck, empty_frames=()):
        read = real(deck, empty_frames)
        return lambda frame: reads.append(1) or read(frame)
    vp.reader_for = counting
    try:
        res = vp.run_session(s, rng, 1, [vp.STILL_KIND], cards=["9S", "9C", "JH", "JD", "KS", "KC"])
    finally:
        vp.reader_for = real
    assert res["calibration"]["ok"], res["calibration"]
    assert len(reads) == vp.STILL_FRAMES
    t = res[vp.STILL_KIND]
    assert t.n["in_view"] == 2 and t.n["wrong"] == 0
    assert t.n["correct"] == 2
    out = io.StringIO()
    rows = vp.report({("kde-tuning", "tuning", "cloth", vp.STILL_KIND): t}, [vp.STILL_KIND], out=out)
    assert "still frames" in out.getvalue() and rows[0]["frames"] == "still"
