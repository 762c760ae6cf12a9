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


def page_app():
    try:
        from hall.web import make_app
        return make_app
    except ImportError:
        from .minipage import make_app
        return make_app


def test_events_reach_the_page_and_the_page_comes_back_after_a_server_restart(tmp_path):
    from bench.club_page_latency import run
    r = run(StandInNight(tables=8, rounds=1, hands_per_round=50), page_app(), tables=8,
            rate=10.0, base_s=3.0, burst_s=1.0, folder=tmp_path, progress=lambda s: None)
    assert r["missing_on_page"] == 0, r
    assert r["p95_ms"] is not None and r["p95_ms"] < 2000, r
    assert r["reconnecting_shown_after_s"] is not None, r
    assert r["live_again_after_restart_s"] is not None and r["live_again_after_restart_s"] <= 3.0, r
