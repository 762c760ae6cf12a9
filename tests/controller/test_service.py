"""The table service with fake devices: camera frames, the bid panel, faults, resume after a crash."""
import pytest

from controller.config import check_config
from controller.service import TableService, computer_levels
from engine.cards import Card
from vision.art import art_available

needs_art = pytest.mark.skipif(not art_available(), reason="KDE card art missing: make setup installs it")

W_CARDS = ["JH", "JD", "AH", "9C", "10S"]


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class SceneCamera:
    """A fake camera that draws whatever lies on the table into clean frames."""

    def __init__(self):
        import numpy as np
        self.on_table = {}
        self.rng = np.random.default_rng(3)
        self.closed = False
        self.fail = False

    def read(self):
        from vision.sources import CameraError
        from vision.synth import compose_frame
        if self.fail:
            raise CameraError("unplugged")
        frame, _ = compose_frame([{"card": c, "at": z} for c, z in self.on_table.items()],
                                 size=(640, 480), rng=self.rng)
        return frame

    def close(self):
        self.closed = True


class Recorder:
    def __init__(self):
        self.said, self.shown, self.legal = [], [], []

    def say(self, text, priority=False):
        self.said.append(text)

    def show(self, status):
        self.shown.append(status)

    def set_legal(self, legal):
        self.legal = list(legal)

    def get(self, timeout=None):
        return None


def config(tmp_path, zones=False):
    vision = {"k": 2, "m": 2}
    if zones:
        # Calibrate the zones from a frame of the empty mat, as `euchre-table` does at set-up.
        import numpy as np
        from vision.synth import compose_frame
        from vision.zones import calibrate
        frame, _ = compose_frame([], size=(640, 480), rng=np.random.default_rng(1))
        calibrate(frame).save(tmp_path / "zones.json")
        vision["zones"] = "zones.json"
    # These tests lay the Pi's cards face up on the old rack spot: a practice game's choice.
    return check_config({"table": {"state_dir": str(tmp_path), "first_dealer": "S"},
                         "seats": {"W": {"kind": "computer", "level": "medium"}},
                         "vision": vision, "reader": {"kind": "rack", "practice": True}})


def make_service(tmp_path, camera=None, open_camera=None, clock=None):
    rec = Recorder()
    cfg = config(tmp_path, zones=camera is not None or open_camera is not None)
    svc = TableService(cfg, camera=camera, open_camera=open_camera, screen=rec,
                       speaker=rec, panel=rec, clock=clock or Clock(), monotonic=clock or Clock())
    return svc, rec


def steps_until(svc, predicate, limit=40):
    for _ in range(limit):
        svc.step()
        if predicate():
            return True
    return False


def test_computer_levels_partner_of_a_person_at_least_hard():
    cfg = check_config({"seats": {"W": {"kind": "computer", "level": "easy"}}})
    assert computer_levels(cfg) == {"W": "hard"}
    cfg = check_config({"table": {"partner_at_least_hard": False},
                        "seats": {"W": {"kind": "computer", "level": "easy"}}})
    assert computer_levels(cfg) == {"W": "easy"}


@needs_art
def test_cards_seen_by_the_camera_reach_the_referee_and_the_computer_bids(tmp_path):
    cam = SceneCamera()
    svc, rec = make_service(tmp_path, camera=cam)
    svc.step()
    assert svc.ctl.referee.state["dealer"] == "S"          # the first hand started itself
    for card in W_CARDS:                                    # the Pi's cards, practice rack
        cam.on_table = {card: "RACK"}
        assert steps_until(svc, lambda c=card: c in svc.ctl.computers["W"].slots)
    cam.on_table = {"KH": "UP"}
    assert steps_until(svc, lambda: svc.ctl.referee.state["upcard"] == "KH")
    # W, left of the dealer, bids at once and says so; the panel now offers North's bids.
    bids = [r.body for r in svc.log.records() if '"bid"' in r.body]
    assert len(bids) == 1 and '"W"' in bids[0] and any("West" in s for s in rec.said)
    assert svc.ctl.referee.state["to_act"] == "N" and "pass" in rec.legal
    svc.on_panel(("bid", "pass"))
    assert svc.ctl.referee.state["to_act"] == "E"
    assert rec.shown[-1].to_act == "E"


@needs_art
def test_restart_after_a_crash_resumes_at_the_last_event(tmp_path):
    cam = SceneCamera()
    svc, rec = make_service(tmp_path, camera=cam)
    svc.step()
    for card in W_CARDS[:3]:
        cam.on_table = {card: "RACK"}
        assert steps_until(svc, lambda c=card: c in svc.ctl.computers["W"].slots)
    before = svc.ctl.referee.state
    last = svc.log.last_seq
    # No close(): the process is gone, and the kernel has dropped its lock on the log.
    svc.log._lock.release()
    # A new service on the same state directory:
    again, rec2 = make_service(tmp_path, camera=SceneCamera())
    assert again.ctl.resumed and again.log.last_seq == last
    assert again.ctl.referee.state == before
    assert "Resumed at event" in rec2.shown[-1].message and any("Resumed" in s for s in rec2.said)


def test_camera_lost_is_shown_and_spoken_then_recovers(tmp_path):
    from vision.sources import CameraError
    clock = Clock()
    attempts = []

    def open_camera():
        attempts.append(clock.t)
        if len(attempts) < 3:
            raise CameraError("no camera at /dev/video0")
        return SceneCamera()

    svc, rec = make_service(tmp_path, open_camera=open_camera, clock=clock)
    svc.step()
    assert "camera" in svc.faults and rec.shown[-1].screen == "fault"
    assert any("Camera not found" in s for s in rec.said)
    svc.step()
    assert len(attempts) == 1          # it waits before trying again
    for _ in range(2):
        clock.t += 2.5
        svc.step()
    assert len(attempts) == 3 and "camera" not in svc.faults
    assert rec.shown[-1].screen != "fault" and any("Camera back" in s for s in rec.said)
    svc.camera.fail = True             # unplugged while running
    svc.step()
    assert "camera" in svc.faults and svc.camera is None


class CountedCamera:
    """A camera of blank frames that stops the service after ``n`` reads; ``live`` as given."""

    def __init__(self, live, n=5):
        self.live, self.n, self.reads, self.service = live, n, 0, None

    def read(self):
        import numpy as np
        self.reads += 1
        if self.reads >= self.n:
            self.service.stopping.set()
        return np.zeros((480, 640, 3), np.uint8)

    def close(self):
        pass


@pytest.mark.parametrize("live", [True, False])
def test_a_live_camera_paces_the_loop_and_a_recording_is_read_at_the_loops_pace(tmp_path, live):
    # A live camera's read() waits for its next frame: a pause after each pass as well
    # would leave every new frame (a card just laid) waiting up to a frame period.
    import threading
    cam = CountedCamera(live)
    svc, _ = make_service(tmp_path, camera=cam)
    cam.service = svc
    waits = []
    real_wait = svc.stopping.wait
    svc.stopping.wait = lambda timeout=None: waits.append(timeout) or real_wait(timeout)
    loop = threading.Thread(target=svc.run, kwargs={"period": 0.01}, daemon=True)
    loop.start()
    loop.join(timeout=30)
    assert not loop.is_alive() and cam.reads == cam.n
    if live:
        assert waits == []
    else:
        assert len(waits) >= cam.n - 1 and all(0 < w <= 0.01 for w in waits)


def test_a_broken_log_stops_the_watchdog(tmp_path):
    from controller.log import LogError

    class Notes:
        def __init__(self):
            self.sent = []

        def notify(self, s):
            self.sent.append(s)

    notes = Notes()
    svc = TableService(config(tmp_path), notifier=notes, clock=Clock(), monotonic=Clock())
    svc.step()
    assert notes.sent.count("WATCHDOG=1") == 1

    def broken(*a, **k):
        raise LogError("disk full")

    class Panel:
        def __init__(self):
            self.events = [("bid", "pass")]

        def get(self, timeout=None):
            return self.events.pop() if self.events else None

    svc.log.append = broken
    svc.panel = Panel()
    svc.step()
    assert not svc.healthy and notes.sent.count("WATCHDOG=1") == 1


def test_after_a_restart_the_cards_on_the_table_are_not_new_plays(tmp_path):
    from controller.log import EventLog
    log = EventLog(str(tmp_path / "table-log.sqlite"))
    events = [{"type": "hand", "dealer": "S"}] + \
        [{"type": "dealt", "seat": "W", "card": c} for c in W_CARDS] + \
        [{"type": "upcard", "card": "KH"}, {"type": "bid", "seat": "W", "bid": "order"},
         {"type": "discard", "seat": "S"}, {"type": "play", "seat": "W", "card": "AH"},
         {"type": "play", "seat": "N", "card": "9S"}]
    for i, e in enumerate(events):
        log.append(e, at=1000.0 + i)
    log.close()
    svc, rec = make_service(tmp_path)
    assert svc.ctl.resumed and svc.ctl.referee.state["trick"] == [["W", "AH"], ["N", "9S"]]
    assert svc.tracker.placed() == {"AH": "W", "9S": "N"}
    for _ in range(4):
        assert svc.tracker.update([("AH", "W"), ("9S", "N")]) == []


def reader_config(tmp_path, reader, seats=("W",), zones=True):
    import numpy as np
    from vision.synth import compose_frame
    from vision.zones import calibrate
    vision = {"k": 2, "m": 2}
    if zones:
        frame, _ = compose_frame([], size=(640, 480), rng=np.random.default_rng(1))
        calibrate(frame).save(tmp_path / "zones.json")
        vision["zones"] = "zones.json"
    data = {"table": {"state_dir": str(tmp_path), "first_dealer": "S"},
            "seats": {s: {"kind": "computer", "level": "medium"} for s in seats},
            "vision": vision, "reader": reader}
    if reader.get("kind") == "scanner":
        data["board"] = {"kind": "simulated"}
    return check_config(data)


class ReaderCamera:
    """A fake camera under the reader's plate: draws the card lying on it, if any."""

    def __init__(self):
        import numpy as np
        self.card = None
        self.rng = np.random.default_rng(5)
        self.fail = False
        self.cache = {}

    def read(self):
        from vision.sources import CameraError
        from vision.synth_window import compose_window_frame
        if self.fail:
            raise CameraError("reader camera unplugged")
        if self.card not in self.cache:
            self.cache[self.card], _ = compose_window_frame(self.card, rng=self.rng, room=0.02)
        return self.cache[self.card]

    def close(self):
        pass


@needs_art
def test_a_face_up_card_on_the_old_rack_spot_is_refused_unless_practice(tmp_path):
    cam = SceneCamera()
    cfg = reader_config(tmp_path, {"kind": "window", "camera": {"kind": "v4l2", "device": 1}})
    rec = Recorder()
    svc = TableService(cfg, camera=cam, reader_camera=ReaderCamera(), screen=rec, speaker=rec,
                       panel=rec, clock=Clock(), monotonic=Clock())
    svc.step()
    cam.on_table = {"JH": "RACK"}
    steps_until(svc, lambda: False, limit=6)
    assert svc.ctl.computers["W"].slots == {}                       # not dealt
    refused = [r.body for r in svc.log.records() if '"vision_error"' in r.body]
    assert refused and "face up" in refused[0] and "JH" not in refused[0]
    assert any("face up" in s for s in rec.said) and not any("jack" in s.lower() for s in rec.said)
    # The same card in a practice game (the explicit opt-in) is the Pi's card.
    practice = tmp_path / "practice"
    practice.mkdir()
    cfg = reader_config(practice, {"kind": "rack", "practice": True})
    svc2 = TableService(cfg, camera=cam, screen=rec, speaker=rec, panel=rec, clock=Clock(),
                        monotonic=Clock())
    assert steps_until(svc2, lambda: Card("JH") in svc2.ctl.computers["W"].slots, limit=8)


@needs_art
def test_the_reader_camera_deals_sealed_and_its_faults_are_retried(tmp_path):
    from vision.sources import CameraError
    clock = Clock()
    opened = []

    def open_reader():
        opened.append(clock.t)
        if len(opened) == 1:
            raise CameraError("no camera at /dev/video1")
        return reader

    reader = ReaderCamera()
    cfg = reader_config(tmp_path, {"kind": "window", "camera": {"kind": "v4l2", "device": 1},
                                   "k": 2, "m": 2})
    rec = Recorder()
    svc = TableService(cfg, open_reader_camera=open_reader, screen=rec, speaker=rec, panel=rec,
                       clock=clock, monotonic=clock)
    svc.step()
    assert "reader" in svc.faults and any("Reader camera not found" in s for s in rec.said)
    clock.t += 2.5
    svc.step()
    assert "reader" not in svc.faults and any("Reader camera back" in s for s in rec.said)
    for card in W_CARDS:
        reader.card = card
        assert steps_until(svc, lambda c=card: Card(c) in svc.ctl.computers["W"].slots, limit=6)
        reader.card = None
        steps_until(svc, lambda: False, limit=2)
    bodies = [r.body for r in svc.log.records()]
    assert sum('"sealed"' in b for b in bodies) == 5
    assert not any(f'"{c}"' in b for b in bodies for c in W_CARDS)
    assert any("Cards for West" in s for s in rec.said)
    reader.fail = True                      # unplugged while running, after the deal:
    svc.step()                              # outside the deal it is looked at once a second
    assert "reader" not in svc.faults
    clock.t += 1.5
    svc.step()
    assert "reader" in svc.faults and svc.reader_camera is None
    # A restart in mid-hand opens the sealed cards with the table's key (the process is
    # gone: the kernel has dropped its lock on the log).
    svc.log._lock.release()
    again = TableService(cfg, screen=Recorder(), clock=clock, monotonic=clock)
    assert set(again.ctl.computers["W"].slots) == {Card(c) for c in W_CARDS}


def test_the_boards_scanner_deals_the_computers_cards(tmp_path):
    import time as _time
    from firmware_host.config import make_board
    cfg = reader_config(tmp_path, {"kind": "scanner"}, zones=False)
    board = make_board(cfg.board).start()
    rec = Recorder()
    try:
        assert board.wait_connected(5.0)
        svc = TableService(cfg, board=board, screen=rec, speaker=rec, panel=rec, clock=Clock(),
                           monotonic=Clock())
        svc.step()
        from vision.stickers import payload
        board.simulator.scan("ET-JH-XXX")          # a damaged code: scan again
        board.simulator.scan(payload("JH"))        # a sticker's payload
        for card in W_CARDS[1:]:
            board.simulator.scan(card)             # or the card as plain text
        board.simulator.scan("JD")                 # scanned twice: counts once
        deadline = _time.monotonic() + 10
        while len(svc.ctl.computers["W"].slots) < 5 and _time.monotonic() < deadline:
            svc.step()
            _time.sleep(0.02)
    finally:
        board.close()
    assert set(svc.ctl.computers["W"].slots) == {Card(c) for c in W_CARDS}
    assert any("damaged or foreign code" in s for s in rec.said)
    bodies = [r.body for r in svc.log.records()]
    assert sum('"sealed"' in b for b in bodies) == 5 and not any('"JH"' in b for b in bodies)


class PlainCamera(SceneCamera):
    """The fake camera with plain cards (no stickers) on the printed mat."""

    def read(self):
        from vision.synth import compose_frame
        frame, _ = compose_frame([{"card": c, "at": z, "sticker": False} for c, z in self.on_table.items()],
                                 size=(640, 480), rng=self.rng, paper=True)
        return frame


@needs_art
def test_plain_cards_on_the_printed_mat_reach_the_referee_through_the_learnt_table(tmp_path):
    # Plain mode: the service keeps a model of the empty table, fed by its camera's frames,
    # against which the white cards on the white paper mat are found.
    import numpy as np
    from bench.plain_tuning.scenes import art_deck
    from vision.synth import compose_frame
    from vision.zones import calibrate
    frame, _ = compose_frame([], size=(640, 480), rng=np.random.default_rng(1), paper=True)
    calibrate(frame).save(tmp_path / "zones.json")
    art_deck("standard").save(tmp_path / "deck.npz")
    cfg = check_config({"table": {"state_dir": str(tmp_path), "first_dealer": "S"},
                        "seats": {"W": {"kind": "computer", "level": "medium"}},
                        "vision": {"k": 2, "m": 2, "mode": "plain", "deck": "deck.npz",
                                   "zones": "zones.json"},
                        "reader": {"kind": "rack", "practice": True}})
    rec, cam = Recorder(), PlainCamera()
    svc = TableService(cfg, camera=cam, screen=rec, speaker=rec, panel=rec, clock=Clock(),
                       monotonic=Clock())
    for _ in range(3):                                      # the empty table, seen first
        svc.step()
    assert svc.table is not None and svc.table.ready
    for card in W_CARDS[:3]:
        cam.on_table = {card: "RACK"}
        assert steps_until(svc, lambda card=card: card in svc.ctl.computers["W"].slots), card
    cam.on_table = {"KH": "UP"}
    assert steps_until(svc, lambda: svc.ctl.referee.state["upcard"] == "KH")
