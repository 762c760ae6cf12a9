"""Publish -> hall page latency, end to end, in headless Chromium: table log append, publisher, broker, hub, store, fold, server-sent events, the page's DOM.

40 tables (their real publishers, each on its own log) append events at a steady rate,
then ten times as fast for a burst; the hall service (real hub, store and the night's
fold) serves the page with uvicorn on loopback; Debian's Chromium, headless through
Selenium, shows the big screen. A MutationObserver in the page notes when each table's
``data-stored`` reaches each seq; the latency of an event is that moment minus the
moment the table appended it (one clock: same machine). Then the web server is
stopped and started again: the page must show that it is reconnecting and be live
again within 3 s.

    .venv/bin/python -m bench.club_page_latency            # the night's real page
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

NIGHT = "latency"

OBSERVER = """
window.__seen = [];
const record = (el) => window.__seen.push([el.dataset.table, +el.dataset.stored, Date.now()]);
new MutationObserver((ms) => { for (const m of ms) {
  if (m.type === 'attributes' && m.target.dataset && m.target.dataset.table) record(m.target);
  for (const n of (m.addedNodes || [])) if (n.dataset && n.dataset.table) record(n);
}}).observe(document.body, {attributes: true, attributeFilter: ['data-stored'], subtree: true,
                            childList: true});
"""


def chromium(width=1920, height=1080):
    """Debian's Chromium, headless, through Selenium and Debian's chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def serve(app, port):
    import uvicorn
    # A page holds its event stream open: a restart must not wait for it to end.
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=0.5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    return server, thread


def run(night, make_app, tables: int = 40, rate: float = 20.0, base_s: float = 10.0,
        burst_s: float = 5.0, burst_factor: float = 10.0, folder=None, progress=print) -> dict:
    """``night``: a NightAPI; ``make_app(source)``: the page's app. Returns the figures."""
    import random
    from controller.club import ClubConfig, ClubLink, hand_events, next_dealer
    from controller.log import EventLog
    from engine import Rules
    from hall.broker import Broker, free_port
    from hall.service import HallConfig, HallService

    folder = Path(folder or tempfile.mkdtemp(prefix="club-latency-"))
    users = {"hall": "hallpw", **{str(t): f"pw{t}" for t in range(1, tables + 1)}}
    broker = Broker("mosquitto", users=users, folder=str(folder / "broker")).start()
    cfg = HallConfig(night_id=NIGHT, tables=list(range(1, tables + 1)),
                     store=str(folder / "hall.sqlite"),
                     broker={"host": "127.0.0.1", "port": broker.port, "username": "hall",
                             "password": "hallpw"}, pause=3600, end_by="director")
    service = HallService(cfg, night).start()
    port = free_port()
    server, thread = serve(make_app(service), port)
    logs, links = {}, {}
    rng = random.Random(1)
    rules = Rules.preset("standard")
    driver = None
    try:
        for t in range(1, tables + 1):
            logs[t] = EventLog(str(folder / f"table-{t}.sqlite"))
            c = ClubConfig(night=NIGHT, table=t, port=broker.port, password=f"pw{t}",
                           keepalive=10, heartbeat=5.0)
            links[t] = ClubLink(c, logs[t].path, device=f"dev-{t}", poll=0.05).start()
        driver = chromium()
        driver.get(f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if driver.execute_script("return document.querySelectorAll('[data-table]').length") >= tables:
                break
            time.sleep(0.1)
        driver.execute_script(OBSERVER)
        # Each table plays random legal hands; its events are appended at the pace asked.
        scripts = {t: [] for t in links}
        dealers = {t: rng.choice("NESW") for t in links}
        appended = []      # (table, seq, unix time of the append)

        def next_event(t):
            if not scripts[t]:
                scripts[t] = hand_events(rules, dealers[t], rng)
                dealers[t] = next_dealer(dealers[t])
            return scripts[t].pop(0)

        def phase(seconds, per_second, label):
            n = int(seconds * per_second)
            t0 = time.monotonic()
            for i in range(n):
                wait = t0 + i / per_second - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                t = 1 + i % tables
                rec = logs[t].append(next_event(t), at=time.time())
                links[t].poke()
                appended.append((t, rec.seq, rec.at * 1000.0, label))
        phase(base_s, rate, "steady")
        phase(burst_s, rate * burst_factor, "burst")
        time.sleep(3.0)
        seen = driver.execute_script("return window.__seen")
        first: dict = {}
        for t, stored, ms in seen:
            t = int(t)
            for seq in range(first.get((t, "top"), 0) + 1, stored + 1):
                first.setdefault((t, seq), ms)
            first[(t, "top")] = max(first.get((t, "top"), 0), stored)
        lat = {"steady": [], "burst": []}
        missing = 0
        for t, seq, ms, label in appended:
            if (t, seq) in first:
                lat[label].append(first[(t, seq)] - ms)
            else:
                missing += 1
        every = lat["steady"] + lat["burst"]

        def pct(xs, q):
            xs = sorted(xs)
            return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1) if xs else None
        result = {"tables": tables, "events": len(appended), "rate_per_s": rate,
                  "burst_per_s": rate * burst_factor, "missing_on_page": missing,
                  "p50_ms": pct(every, 0.5), "p95_ms": pct(every, 0.95), "max_ms": pct(every, 1.0),
                  "steady_p95_ms": pct(lat["steady"], 0.95), "burst_p95_ms": pct(lat["burst"], 0.95),
                  "median_ms": round(statistics.median(every), 1) if every else None}
        # The web server restarts: the page says it is reconnecting, then comes back.
        server.should_exit = True
        thread.join(10)
        t_down = time.monotonic()
        shown = None
        while time.monotonic() < t_down + 5:
            if driver.execute_script("return document.body.dataset.connection") == "reconnecting":
                shown = round(time.monotonic() - t_down, 2)
                break
            time.sleep(0.05)
        version = driver.execute_script("return +document.body.dataset.version")
        server, thread = serve(make_app(service), port)
        t_up = time.monotonic()
        back = None
        logs[1].append(next_event(1), at=time.time())     # something new to show
        links[1].poke()
        while time.monotonic() < t_up + 10:
            live = driver.execute_script("return document.body.dataset.connection") == "live"
            if live and driver.execute_script("return +document.body.dataset.version") > version:
                back = round(time.monotonic() - t_up, 2)
                break
            time.sleep(0.05)
        result.update(reconnecting_shown_after_s=shown, live_again_after_restart_s=back)
        result["ok"] = (missing == 0 and result["p95_ms"] is not None and result["p95_ms"] <= 250
                        and shown is not None and back is not None and back <= 3.0)
        return result
    finally:
        if driver is not None:
            driver.quit()
        for link in links.values():
            link.stop(goodbye=False)
        server.should_exit = True
        thread.join(10)
        service.close()
        broker.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.club_page_latency", description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=40)
    p.add_argument("--rate", type=float, default=20.0, help="events per second before the burst")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    from hall.service import HallConfig, load_night_api
    from hall.web import make_app
    cfg = HallConfig(night_id=NIGHT, tables=list(range(1, a.tables + 1)),
                     night={"tables": a.tables, "rounds": 1, "hands": 8})
    night = load_night_api(cfg)
    r = run(night, make_app, tables=a.tables, rate=a.rate)
    print(json.dumps(r) if a.json else "\n".join(f"  {k:<32} {v}" for k, v in r.items()))
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
