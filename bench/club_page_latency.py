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
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

NIGHT = "latency"

# How the page shows a table's progress, per page: the night's big screen (each table's
# card says "hand k/N": a hand's last event is the one whose effect shows), or a page
# with a data-stored attribute per table (the highest seq the hall holds).
HANDS_OBSERVER = """
window.__seen = [];
const box = document.getElementById('tables');
const look = () => { for (const c of box.children) {
  const m = /hand (\\d+)|(\\d+) hands/.exec(c.children[3].textContent);
  if (m) window.__seen.push([c.children[0].textContent, +(m[1] || m[2]), Date.now()]);
}};
new MutationObserver(look).observe(box, {subtree: true, childList: true, characterData: true});
look();
"""
HANDS_READY = "return document.querySelectorAll('#tables .tcard').length"
HANDS_STATE = """return {reconnecting: document.body.classList.contains('reconnecting'),
                         version: window.hallRendered || 0}"""

OBSERVER = """
window.__seen = [];
const record = (el) => window.__seen.push([el.dataset.table, +el.dataset.stored, Date.now()]);
new MutationObserver((ms) => { for (const m of ms) {
  if (m.type === 'attributes' && m.target.dataset && m.target.dataset.table) record(m.target);
  for (const n of (m.addedNodes || [])) if (n.dataset && n.dataset.table) record(n);
}}).observe(document.body, {attributes: true, attributeFilter: ['data-stored'], subtree: true,
                            childList: true});
"""


STORED_READY = "return document.querySelectorAll('[data-table]').length"
STORED_STATE = """return {reconnecting: document.body.dataset.connection === 'reconnecting',
                         version: +document.body.dataset.version}"""


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
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical",
                                           timeout_graceful_shutdown=0.5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    return server, thread


def run(night, make_app, tables: int = 40, rate: float = 20.0, base_s: float = 10.0,
        burst_s: float = 5.0, burst_factor: float = 10.0, folder=None, progress=print,
        probe: str = "stored", path: str = "/") -> dict:
    """``night``: a NightAPI; ``make_app(source)``: the page's app; ``probe``: "stored"
    (every event: a data-stored attribute per table) or "hands" (the night's big screen:
    each hand's last event, shown as the table's hand count). Returns the figures."""
    from engine.referee import Referee
    from hall.service import OVER_PHASES
    ready, state_js, observer = ((STORED_READY, STORED_STATE, OBSERVER) if probe == "stored"
                                 else (HANDS_READY, HANDS_STATE, HANDS_OBSERVER))
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
        # Each table logs the hall's seating for round 1 (as controller.club.ClubTable
        # does when the hall's "round" command comes), so its hands count in the round.
        deadline = time.monotonic() + 20
        start = None
        while start is None and time.monotonic() < deadline:
            start, _ = service.current_round()
            time.sleep(0.05)
        for t in links:
            logs[t].append({"type": "club_round", "night": NIGHT, "round": start["round"],
                            "table": t, "seating": start["seating"][str(t)]}, at=time.time())
            links[t].poke()
        while time.monotonic() < deadline and not all(
                service.progress[t].round == start["round"] for t in links):
            time.sleep(0.05)
        driver.get(f"http://127.0.0.1:{port}{path}")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if driver.execute_script(ready) >= tables:
                break
            time.sleep(0.1)
        driver.execute_script(observer)
        # Each table plays random legal hands; its events are appended at the pace asked.
        scripts = {t: [] for t in links}
        dealers = {t: rng.choice("NESW") for t in links}
        appended = []      # (table, seq or hand number, unix ms of the append, phase)
        referees = {t: Referee(rules) for t in links}
        ended = {t: 0 for t in links}

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
                ev = next_event(t)
                rec = logs[t].append(ev, at=time.time())
                links[t].poke()
                if probe == "stored":
                    appended.append((t, rec.seq, rec.at * 1000.0, label))
                    continue
                before = referees[t].state["phase"]
                referees[t].feed(ev, seq=rec.seq)
                if referees[t].state["phase"] in OVER_PHASES and before not in OVER_PHASES:
                    ended[t] += 1          # this event ends a hand: the card shows it
                    appended.append((t, ended[t], rec.at * 1000.0, label))
        # Warm-up (not measured): each table a random way into its hand, so that hands
        # end all through the steady phase and the burst, not all at once.
        for t in links:
            for _ in range(rng.randrange(0, 27)):
                ev = next_event(t)
                rec = logs[t].append(ev, at=time.time())
                before = referees[t].state["phase"]
                referees[t].feed(ev, seq=rec.seq)
                if referees[t].state["phase"] in OVER_PHASES and before not in OVER_PHASES:
                    ended[t] += 1
            links[t].poke()
        time.sleep(2.0)
        phase(base_s, rate, "steady")
        phase(burst_s, rate * burst_factor, "burst")
        time.sleep(3.0)
        seen = driver.execute_script("return window.__seen")
        if os.environ.get("LATENCY_DEBUG"):
            print(len(seen), seen[:5], driver.execute_script(
                "return document.body.innerText.slice(0, 600)"), file=sys.stderr)
        first: dict = {}
        for t, shown_n, ms in seen:
            t = int(t)
            for n in range(first.get((t, "top"), 0) + 1, shown_n + 1):
                first.setdefault((t, n), ms)
            first[(t, "top")] = max(first.get((t, "top"), 0), shown_n)
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
        result = {"tables": tables, "probe": probe, "samples": len(appended),
                  "events": int(base_s * rate + burst_s * rate * burst_factor), "rate_per_s": rate,
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
            if driver.execute_script(state_js)["reconnecting"]:
                shown = round(time.monotonic() - t_down, 2)
                break
            time.sleep(0.05)
        version = driver.execute_script(state_js)["version"]
        server, thread = serve(make_app(service), port)
        t_up = time.monotonic()
        back = None
        logs[1].append(next_event(1), at=time.time())     # something new to show
        links[1].poke()
        while time.monotonic() < t_up + 10:
            st = driver.execute_script(state_js)
            if not st["reconnecting"] and st["version"] > version:
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
    p.add_argument("--seconds", type=float, default=60.0, help="seconds at that rate")
    p.add_argument("--burst-seconds", type=float, default=6.0, help="seconds at ten times the rate")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    from hall.service import HallConfig, load_night_api
    from hall.web import make_app
    cfg = HallConfig(night_id=NIGHT, tables=list(range(1, a.tables + 1)),
                     night={"players": 4 * a.tables, "rounds": 1, "hands": 40,
                            "movement": "rotation"})
    night = load_night_api(cfg)
    r = run(night, make_app, tables=a.tables, rate=a.rate, base_s=a.seconds,
            burst_s=a.burst_seconds, probe="hands", path="/")
    print(json.dumps(r) if a.json else "\n".join(f"  {k:<32} {v}" for k, v in r.items()))
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
