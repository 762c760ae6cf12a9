"""The hall's page in Debian's headless Chromium (Selenium): every view's DOM, in-place
updates from server-sent events, the reconnect banner, and golden screenshots."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from hall.night import Night
from hall.web import make_app
from tests.hall.helpers import FakeSource, NightRun, Server, free_port

GOLDEN = Path(__file__).parent / "golden"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
                                reason="Debian's chromium and chromium-driver (make setup)")


def browser(width, height):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="hall-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              f"--window-size={width},{height}", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              "--disable-quic", "--hide-scrollbars", "--force-device-scale-factor=1",
              f"--user-data-dir={profile}"):
        opts.add_argument(a)
    d = webdriver.Chrome(options=opts, service=Service(DRIVER))
    # The viewport itself at width x height (a window of that size has less room inside).
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": width < 600})
    d.profile = profile
    return d


def close(d):
    d.quit()
    shutil.rmtree(d.profile, ignore_errors=True)


def wait(d, js, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        v = d.execute_script(js)
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {js}")


NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou", "Max",
         "Ned", "Olga", "Pat", "Quin", "Rae", "Sam", "Tess", "Ugo", "Val", "Walt", "Xena",
         "Yuri", "Zoe", "Abe", "Bea", "Cal", "Dot", "Eli", "Fay", "Gil", "Hope", "Ike", "Jan",
         "Kay", "Leo", "Mia", "Nat", "Otto", "Pia"]


def make_source(hide_last=0, rounds_played=3, minutes=None, live_states=True):
    cfg = {"id": "fri", "name": "Friday euchre", "players": NAMES, "rounds": 6, "hands": 4,
           "movement": "rotation", "scoring": "club", "hide_last": hide_last,
           "directors": {"alice": "4821"}}
    if minutes:
        cfg["minutes"] = minutes
    night = Night.from_config(cfg)
    run = NightRun(night, seed=11, rounds=rounds_played - 1)
    run.play_round(extra_hands=-2)        # the current round: half its hands played
    run.hall = [e for e in run.hall if not (e.get("kind") == "round_end"
                                            and e["round"] == rounds_played)]
    live = {}
    if live_states:
        for t in range(1, night.tables + 1):
            live[t] = {"online": True, "last_seen": 1990.0, "device": f"pi-{t}"}
        live[3] = {"online": False, "last_seen": 1500.0, "device": "pi-3"}
        live[5] = {"online": True, "last_seen": 1700.0, "device": "pi-5"}
    src = FakeSource(night, run.hall, run.tables, live=live, now=2000.0)
    src.run = run
    return src


@pytest.fixture(scope="module")
def screen():
    d = browser(1920, 1080)
    yield d
    close(d)


@pytest.fixture(scope="module")
def phone():
    d = browser(390, 844)
    yield d
    close(d)


@pytest.fixture()
def served():
    servers = []

    def serve(src):
        s = Server(make_app(src))
        servers.append(s)
        return s
    yield serve
    for s in servers:
        s.stop()


def snap_rows(src):
    return src.snapshot()["screen"]["standings"]


def test_big_screen_shows_standings_round_and_tables_readable_from_the_back(screen, served):
    src = make_source()
    s = served(src)
    screen.get(s.url + "/")
    wait(screen, "return window.hallRendered > 0")
    rows = screen.execute_script(
        "return Array.from(document.querySelectorAll('#standings .row')).map(r => "
        "[r.children[0].textContent, r.children[1].textContent, r.children[2].textContent])")
    want = [[r["rank_text"], r["entrant"], str(r["total"])] for r in snap_rows(src)]
    assert rows == want
    assert any(r[0].startswith("=") for r in rows), "this night has shared places"
    assert screen.execute_script("return document.getElementById('round-label').textContent") \
        == "Round 3 of 6"
    # standings text at least 1/40 of the screen's height
    size = screen.execute_script("return parseFloat(getComputedStyle("
                                 "document.querySelector('#standings .row')).fontSize)")
    assert size >= 1080 / 40
    visible = screen.execute_script("return Array.from(document.querySelectorAll('#standings .row'))"
                                    ".filter(r => !r.hidden && r.getBoundingClientRect().bottom <= innerHeight).length")
    assert visible >= 20
    cards = screen.execute_script(
        "return Array.from(document.querySelectorAll('#tables .tcard')).map(c => [c.className, "
        "c.children[0].textContent, c.children[2].textContent])")
    assert len(cards) == 10
    states = {c[1]: c[0] for c in cards}
    assert "state-offline" in states["3"] and "state-stale" in states["5"]
    assert "state-live" in states["1"]
    t1 = src.snapshot()["tables"][0]
    assert cards[0][2] == f"{t1['score']['NS']}–{t1['score']['EW']}"


def test_the_page_updates_in_place_from_server_sent_events(screen, served):
    src = make_source()
    s = served(src)
    screen.get(s.url + "/")
    wait(screen, "return window.hallRendered > 0")
    screen.execute_script("window.firstRow = document.querySelector('#standings .row');"
                          "window.card1 = document.querySelector('#tables .tcard');")
    # table 1 enters one more result (a march for North-South)
    seating = src.run.hall[-1]["seating"]["1"]
    recs = src.tables[1]
    recs.append({"seq": recs[-1]["seq"] + 1, "at": 2000.0, "type": "result", "makers": "NS",
                 "tricks": 5, "alone": None})
    src.changed()
    want = src.snapshot()["tables"][0]["score"]
    wait(screen, "return document.querySelector('#tables .tcard').children[2].textContent == "
         f"'{want['NS']}–{want['EW']}'")
    assert screen.execute_script("return document.querySelector('#tables .tcard') === window.card1"
                                 " && document.body.contains(window.firstRow)")
    north = next(r for r in snap_rows(src) if r["entrant"] == seating["N"])
    got = screen.execute_script(
        "return Array.from(document.querySelectorAll('#standings .row')).find(r => "
        f"r.children[1].textContent == '{seating['N']}').children[2].textContent")
    assert got == str(north["total"])


def test_hiding_the_last_rounds_keeps_the_finish_a_surprise(screen, served):
    src = make_source(hide_last=3, rounds_played=4)
    s = served(src)
    screen.get(s.url + "/")
    wait(screen, "return window.hallRendered > 0")
    note = screen.execute_script("return document.getElementById('hidden-note').textContent")
    assert note == "Round 4 is hidden: the finish stays a surprise"
    totals = screen.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('#standings .row'))"
        ".map(r => [r.children[1].textContent, +r.children[2].textContent]))")
    upto3 = {r["entrant"]: r["total"] for r in src.folder.fold(src.hall, src.tables).ranking(3)}
    assert totals == upto3
    full = {r["entrant"]: r["total"] for r in src.snapshot()["standings"]}
    assert totals != full


def test_when_a_round_closes_the_screen_and_the_phones_say_where_to_go(screen, phone, served):
    from hall.movements import plan_round
    src = make_source()
    src.add_hall({"kind": "round_end", "round": 3, "by": "hands"})
    st = src.folder.fold(src.hall, src.tables)
    src.next_round = plan_round(src.night, src.hall, st)
    src.changed()
    s = served(src)
    screen.get(s.url + "/")
    wait(screen, "return window.hallRendered > 0")
    assert screen.execute_script("return document.getElementById('tables-box').hidden")
    assert screen.execute_script("return document.getElementById('moves-title').textContent") \
        == "Round 4: go to"
    lines = screen.execute_script("return Array.from(document.querySelectorAll('#moves li'))"
                                  ".map(l => l.textContent)")
    t1 = src.next_round["seating"]["1"]
    assert lines[0] == f"Table 1N {t1['N']} · E {t1['E']} · S {t1['S']} · W {t1['W']}"
    assert any(x.startswith("Sit out") for x in lines)
    who = t1["E"]
    phone.get(f"{s.url}/me/{who}")
    wait(phone, "return window.hallRendered > 0")
    assert phone.execute_script("return document.getElementById('me-next').textContent") \
        == "Next: table 1, East"
    row = next(r for r in src.snapshot()["standings"] if r["entrant"] == who)
    assert phone.execute_script("return document.getElementById('me-total').textContent") \
        == f"{row['total']} points"
    assert phone.execute_script("return document.getElementById('me-rank').textContent") \
        == f"place {row['rank_text']}"


def test_the_phone_view_from_a_tables_qr_code_lists_its_players(phone, served):
    src = make_source()
    s = served(src)
    phone.get(s.url + "/t/2")
    wait(phone, "return window.hallRendered > 0")
    names = phone.execute_script("return Array.from(document.querySelectorAll('#choices a'))"
                                 ".map(a => a.textContent)")
    seat = src.snapshot()["tables"][1]["seating"]
    assert names == [seat[k] for k in "NESW"]
    phone.execute_script("document.querySelector('#choices a').click()")
    wait(phone, f"return location.pathname == '/me/{seat['N']}' && window.hallRendered > 0")
    now = phone.execute_script("return document.getElementById('me-now').textContent")
    assert now == f"Now: Table 2, North, partner {seat['S']}"
    qr = urllib.request.urlopen(s.url + "/qr").read().decode()
    assert qr.count("<svg") == 10 and f"{s.url}/t/10" in qr


def test_the_director_signs_in_corrects_a_hand_and_sees_the_trail(screen, served):
    src = make_source()
    s = served(src)
    screen.get(s.url + "/director")
    wait(screen, "return !document.getElementById('signin').hidden")
    assert screen.execute_script("return document.getElementById('desk').hidden")
    screen.execute_script("document.getElementById('pin').value = '1111';"
                          "document.getElementById('signin-btn').click()")
    wait(screen, "return document.getElementById('signin-msg').textContent.startsWith('Wrong director PIN')")
    assert src.hall[-1]["kind"] == "refused"
    screen.execute_script("document.getElementById('pin').value = '4821';"
                          "document.getElementById('signin-btn').click()")
    wait(screen, "return !document.getElementById('desk').hidden && window.hallRendered > 0")
    cells = screen.execute_script("return document.querySelectorAll('#grid-body td.cell').length")
    assert cells == 10 * 3
    states = screen.execute_script("return Array.from(document.querySelectorAll('#grid-body tr'))"
                                   ".map(tr => tr.lastChild.className)")
    assert "state-offline" in states[2] and "state-stale" in states[4]
    refused = screen.execute_script("return document.querySelector('#refused li').textContent")
    assert "Wrong director PIN" in refused
    screen.execute_script("""
      const set = (id, v) => { document.getElementById(id).value = v; };
      set('act-kind', 'correct_hand'); document.getElementById('act-kind').onchange();
      set('act-table', 2); set('act-round', 1); set('act-hand', 1); set('act-makers', 'EW');
      set('act-tricks', 5); set('act-alone', 'W'); set('act-reason', 'camera misread');
      document.getElementById('act-send').click();""")
    wait(screen, "return document.getElementById('act-msg').textContent.includes('corrected')")
    ev = src.hall[-1]
    assert ev["kind"] == "correct_hand" and ev["director"] == "alice"
    assert ev["result"] == {"makers": "EW", "tricks": 5, "alone": "W"}
    wait(screen, "return (document.querySelector('#audit li') || {}).textContent == "
         "'#%d alice: correct hand R1 T2 hand 1 → EW 5 (camera misread)'" % ev["seq"])
    assert "corrected" in screen.execute_script(
        "return document.querySelectorAll('#grid-body tr')[1].children[1].className")


def test_printable_results_cards_csv_and_json(screen, served):
    src = make_source()
    s = served(src)
    screen.get(s.url + "/results")
    rows = screen.execute_script("return Array.from(document.querySelectorAll('.result-row'))"
                                 ".map(r => [r.children[0].textContent, r.children[1].textContent,"
                                 " r.querySelector('.total').textContent])")
    assert rows == [[r["rank_text"], r["entrant"], str(r["total"])] for r in snap_rows(src)]
    text = urllib.request.urlopen(s.url + "/results.csv").read().decode()
    lines = text.strip().splitlines()
    assert lines[0].startswith("rank,player,round 1,round 2,round 3,total")
    assert len(lines) == 1 + len(NAMES)
    data = json.loads(urllib.request.urlopen(s.url + "/results.json").read())
    assert data["standings"][0]["entrant"] == rows[0][1]
    who = rows[0][1]
    screen.get(f"{s.url}/card/{who}")
    head = screen.execute_script("return document.getElementById('card-name').textContent")
    assert head.startswith(f"{who}: {rows[0][2]} points")
    assert screen.execute_script("return document.querySelectorAll('#card tr').length") == 1 + 3 + 1


def test_the_page_shows_it_is_reconnecting_and_comes_back(screen):
    src = make_source()
    port = free_port()
    s = Server(make_app(src), port=port)
    try:
        screen.get(s.url + "/")
        wait(screen, "return window.hallRendered > 0")
        assert screen.execute_script("return document.getElementById('status').hidden")
        s.stop()
        wait(screen, "return !document.getElementById('status').hidden", timeout=10)
        banner = screen.execute_script("return document.getElementById('status').textContent")
        assert "Reconnecting" in banner
        s = Server(make_app(src), port=port)
        t0 = time.time()
        wait(screen, "return document.getElementById('status').hidden", timeout=5)
        assert time.time() - t0 <= 3.0
    finally:
        s.stop()


def golden(d, name, url, js_ready):
    d.get(url)
    wait(d, js_ready)
    time.sleep(0.3)
    path = GOLDEN / f"{name}.png"
    got = Path(tempfile.mkdtemp()) / f"{name}.png"
    d.save_screenshot(str(got))
    if os.environ.get("REGOLDEN") or not path.exists():
        shutil.copy(got, path)
    from PIL import Image, ImageChops
    a, b = Image.open(path).convert("RGB"), Image.open(got).convert("RGB")
    assert a.size == b.size == tuple(map(int, name.split("-")[1].split("x")))
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = sum(diff.histogram()[255:]) / (a.size[0] * a.size[1])
    assert changed < 0.01, f"{name}: {changed:.2%} of pixels differ from {path} (look at {got})"


def test_golden_screenshots(screen, phone, served):
    src = make_source()
    s = served(src)
    golden(screen, "screen-1920x1080", s.url + "/", "return window.hallRendered > 0")
    who = src.snapshot()["standings"][0]["entrant"]
    golden(phone, "phone-390x844", f"{s.url}/me/{who}", "return window.hallRendered > 0")
