"""Publish -> page, end to end in headless Chromium (Debian's chromium and chromedriver through Selenium): the hall service as the page's source over server-sent events, and a web-server restart.

Runs on the night's real page when it is installed (``hall.web``), else on a minimal page
that has the same DOM hooks, so that the transport's half (publisher, hub, store, fold,
the source's snapshot and changes) is tested either way. The figures are the benchmark's
(``bench/club_page_latency.py``); here the bounds are loose, for a loaded machine."""
import shutil

import pytest

from .standin import StandInNight

pytestmark = pytest.mark.skipif(shutil.which("chromedriver") is None and
                                not shutil.os.path.exists("/usr/bin/chromedriver"),
                                reason="chromium-driver is not installed (make setup installs it)")


def test_events_reach_the_minimal_page_and_it_comes_back_after_a_server_restart(tmp_path):
    from bench.club_page_latency import run

    from .minipage import make_app
    r = run(StandInNight(tables=8, rounds=1, hands_per_round=50), make_app, tables=8,
            rate=10.0, base_s=3.0, burst_s=1.0, folder=tmp_path, progress=lambda s: None)
    assert r["missing_on_page"] == 0 and r["samples"] > 0, r
    assert r["p95_ms"] is not None and r["p95_ms"] < 2000, r
    assert r["reconnecting_shown_after_s"] is not None, r
    assert r["live_again_after_restart_s"] is not None and r["live_again_after_restart_s"] <= 3.0, r


def test_hands_reach_the_hall_big_screen_and_it_comes_back_after_a_server_restart(tmp_path):
    """The night's real big screen, fed by the real hall service: every hand that ends at
    a table shows in its card; a restarted web server is shown as reconnecting, then live."""
    pytest.importorskip("hall.web")
    from bench.club_page_latency import run
    from hall.service import HallConfig, load_night_api
    from hall.web import make_app
    cfg = HallConfig(night_id="latency", tables=list(range(1, 9)),
                     night={"players": 32, "rounds": 1, "hands": 40, "movement": "rotation"})
    r = run(load_night_api(cfg), make_app, tables=8, rate=20.0, base_s=6.0, burst_s=1.5,
            folder=tmp_path, progress=lambda s: None, probe="hands")
    assert r["samples"] >= 4 and r["missing_on_page"] == 0, r
    assert r["p95_ms"] is not None and r["p95_ms"] < 2000, r
    assert r["reconnecting_shown_after_s"] is not None, r
    assert r["live_again_after_restart_s"] is not None and r["live_again_after_restart_s"] <= 3.0, r
