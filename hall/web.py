"""The hall's page: a big screen for the room, a phone view per player, the director's grid, printable results; live through server-sent events.

``make_app(source)`` builds the Starlette app. ``source`` is what the hall service (or a
test) provides:

- ``snapshot() -> dict``: the night now, as :func:`build_snapshot` makes it;
- ``changes()``: an async iterator that yields whenever the snapshot may have changed
  (a new one for every page that listens);
- ``director(pin, action) -> (ok, message)``: a director's action (``hall.director.act``);
  ``{"action": "login"}`` only checks the PIN.

The page is plain HTML, CSS and a few lines of JavaScript served from ``hall/static``
(nothing from the internet: a hall often has none). Each page receives the snapshot as
JSON over ``/events`` and updates its text in place.
"""
from __future__ import annotations

import asyncio
import csv
import html
import io
import json
import secrets
from importlib import resources
from typing import Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (HTMLResponse, JSONResponse, Response,
                                 StreamingResponse)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

STALE_AFTER = 120.0     # seconds without an event from a table that says it is online
MOVES_SHOWN = 180.0     # seconds the seating of a new round stays on the big screen
SEATS = ("N", "E", "S", "W")
SEAT_WORDS = {"N": "North", "E": "East", "S": "South", "W": "West"}
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
COOKIE = "hall_director"


# ------------------------------------------------------------------ the snapshot
def build_snapshot(night, hall_events: list, standings, live: Optional[dict] = None,
                   now: float = 0.0, next_round: Optional[dict] = None,
                   version: int = 0) -> dict:
    """The JSON-able state every view renders, from the night, the hall's events, the
    folded standings, each table's link (``live = {table: {"online": bool, "last_seen":
    at, "device": id}}``, from the hub), the hall's clock ``now`` and, once a round has
    closed, the next round's planned ``round_start`` (for the move instructions).

    Keys: ``night``, ``now``, ``version``, ``round``, ``standings``, ``screen`` (the big
    screen's standings, the last ``hide_last`` rounds left out), ``tables``, ``moves``,
    ``seating`` (player -> where they sit now, and ``next``), ``messages``; ``director``
    (grid, problems, audit trail, refused inputs: only for the director's view) and
    ``archive`` (every round's seating and hands, for results and cards: never streamed).
    """
    live = live or {}
    rounds = standings.rounds
    R = standings.current_round
    rd = rounds.get(R)
    starts = {e["round"]: e for e in hall_events if e.get("kind") == "round_start"}
    state = "not started"
    if rd is not None:
        state = rd["status"]
        if state == "closed" and R >= night.rounds:
            state = "over"
    ends_at = None
    if R in starts:
        ev = starts[R]
        ends_at = ev.get("ends_at")
        if ends_at is None and night.minutes and isinstance(ev.get("at"), (int, float)):
            ends_at = ev["at"] + 60 * night.minutes
    full = standings.ranking()
    shown_upto = None
    hidden = []
    if night.hide_last:
        # hide the night's last rounds once they are being played
        first_hidden = night.rounds - night.hide_last + 1
        hidden = [r for r in sorted(rounds) if r >= first_hidden]
        if hidden:
            shown_upto = first_hidden - 1
    screen = standings.ranking(shown_upto) if hidden else full
    tables = []
    if rd is not None:
        for t in range(1, night.tables + 1):
            tab = rd["tables"].get(t)
            link = live.get(t) or live.get(str(t)) or {}
            st = _table_state(night, rd, tab, link, now)
            tables.append({
                "table": t, "state": st,
                "seating": dict(tab["seating"]) if tab else {},
                "score": dict(tab["score"]) if tab else {"NS": 0, "EW": 0},
                "hands": tab["counted"] if tab else 0, "of": night.hands,
                "last_seen": link.get("last_seen"), "device": link.get("device"),
                "online": link.get("online")})
    moves, where = [], {}
    if rd is not None:
        for t, s in rd["seating"].items():
            for seat, p in s.items():
                where[p] = {"table": t, "seat": seat, "partner": s.get(PARTNER[seat])}
        for p in rd["sitting_out"]:
            where[p] = {"table": None, "seat": None, "partner": None}
    nxt = None
    if next_round is not None and next_round.get("round") == R + 1 and state == "closed":
        nxt = next_round
        prev = where
    elif R in starts and R > 1 and isinstance(starts[R].get("at"), (int, float)) \
            and now - starts[R]["at"] < MOVES_SHOWN:
        nxt = starts[R]
        prev = {}
        if R - 1 in rounds:
            for t, s in rounds[R - 1]["seating"].items():
                for seat, p in s.items():
                    prev[p] = {"table": t, "seat": seat}
    if nxt is not None:
        for t, s in sorted(nxt["seating"].items(), key=lambda x: int(x[0])):
            for seat in SEATS:
                p = s.get(seat)
                if p is None:
                    continue
                frm = (prev.get(p) or {}).get("table")
                moves.append({"player": p, "table": int(t), "seat": seat, "from": frm})
                if nxt is not starts.get(R):
                    where.setdefault(p, {})["next"] = {"table": int(t), "seat": seat}
        for p in nxt.get("sitting_out", []):
            moves.append({"player": p, "table": None, "seat": None,
                          "from": (prev.get(p) or {}).get("table")})
            if nxt is not starts.get(R):
                where.setdefault(p, {})["next"] = {"table": None, "seat": None}
    snap = {
        "night": {"id": night.id, "name": night.name or night.id, "format": night.format,
                  "rounds": night.rounds, "hands": night.hands, "minutes": night.minutes,
                  "movement": night.movement, "tables": night.tables,
                  "hide_last": night.hide_last},
        "now": now, "version": version,
        "round": {"number": R, "state": state, "ends_at": ends_at, "hands": night.hands,
                  "moves_for": None if nxt is None else nxt["round"]},
        "standings": [_row(r) for r in full],
        "screen": {"standings": [_row(r) for r in screen], "hidden_rounds": hidden},
        "tables": tables, "moves": moves, "seating": where,
        "messages": [m for m in standings.messages if m.get("table") is None][-3:],
    }
    snap["director"] = _director_part(night, standings, live, now)
    snap["archive"] = {"rounds": {str(r): {"seating": {str(t): s for t, s in x["seating"].items()},
                                           "sitting_out": x["sitting_out"],
                                           "tables": {str(t): {"score": tab["score"],
                                                               "hands": tab["hands"]}
                                                      for t, tab in x["tables"].items()}}
                                  for r, x in sorted(rounds.items())}}
    return snap


def _row(r):
    keep = ("rank", "rank_text", "entrant", "total", "rounds", "games_won", "margin",
            "marches", "loners", "euchres", "sat_out", "players")
    return {k: r[k] for k in keep}


def _table_state(night, rd, tab, link, now):
    if tab is not None and tab.get("missing"):
        return "missing"
    if rd["status"] == "closed":
        return "done"
    if tab is not None and night.hands and tab["counted"] >= night.hands \
            and not tab.get("in_progress"):
        return "done"
    if not link:
        return "waiting"
    if link.get("online") is False:
        return "offline"
    seen = link.get("last_seen")
    if isinstance(seen, (int, float)) and now - seen > STALE_AFTER:
        return "stale"
    return "live"


def _director_part(night, standings, live, now):
    rounds = sorted(standings.rounds)
    cells = {}
    for t in range(1, night.tables + 1):
        row = {}
        link = live.get(t) or live.get(str(t)) or {}
        for r in rounds:
            rd = standings.rounds[r]
            tab = rd["tables"].get(t)
            st = _table_state(night, rd, tab, link if r == standings.current_round else {}, now)
            if r != standings.current_round and st == "waiting":
                st = "done"
            row[str(r)] = {"state": st,
                           "score": None if tab is None else f"{tab['score']['NS']}–{tab['score']['EW']}",
                           "hands": None if tab is None else tab["counted"],
                           "corrected": bool(tab) and any(h.get("corrected_by") or h.get("voided_by")
                                                          for h in tab["hands"])}
        cells[str(t)] = row
    warnings = list(night.warnings)
    for r in rounds:
        warnings += standings.rounds[r].get("warnings", [])
    return {"grid": {"rounds": rounds, "tables": list(range(1, night.tables + 1)),
                     "cells": cells},
            "problems": list(standings.problems), "warnings": warnings,
            "audit": list(standings.audit), "refused": list(standings.refused)[-50:],
            "players": list(night.players)}


# ------------------------------------------------------------------ the app
def _static(name: str) -> str:
    return resources.files("hall").joinpath("static", name).read_text()


def _page(name: str, **values) -> HTMLResponse:
    text = _static(name)
    for k, v in values.items():
        text = text.replace("{{" + k + "}}", html.escape(str(v)))
    return HTMLResponse(text, headers={"Cache-Control": "no-store"})


def _public(snap: dict) -> dict:
    return {k: v for k, v in snap.items() if k not in ("director", "archive")}


def make_app(source, base_url: Optional[str] = None) -> Starlette:
    """The hall's web app over ``source`` (see the module's docstring). ``base_url`` is the
    address phones use to reach the hall (for the QR codes); by default the address the
    printing browser used."""
    sessions: dict = {}      # token -> PIN of a signed-in director

    def director_pin(request: Request) -> Optional[str]:
        return sessions.get(request.cookies.get(COOKIE, ""))

    async def stream(request: Request, view):
        async def gen():
            yield "retry: 1000\n\n"
            last = None
            changes = source.changes().__aiter__()
            while True:
                snap = view(source.snapshot())
                if snap is None:
                    yield "event: signin\ndata: {}\n\n"
                    return
                text = json.dumps(snap, separators=(",", ":"))
                if text != last:
                    last = text
                    yield f"data: {text}\n\n"
                try:
                    await asyncio.wait_for(changes.__anext__(), timeout=15.0)
                except asyncio.TimeoutError:
                    yield ": keep-alive\n\n"
                except StopAsyncIteration:
                    return
        return StreamingResponse(gen(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def events(request: Request):
        return await stream(request, _public)

    async def director_events(request: Request):
        def view(snap):
            if director_pin(request) is None:
                return None
            return {k: v for k, v in snap.items() if k != "archive"}
        return await stream(request, view)

    async def screen(request):
        return _page("screen.html", title=source.snapshot()["night"]["name"])

    async def phone_table(request):
        t = request.path_params["table"]
        return _page("phone.html", title=f"Table {t}", table=t, player="")

    async def phone_player(request):
        p = request.path_params["player"]
        return _page("phone.html", title=p, table="", player=p)

    async def director(request):
        return _page("director.html", title="Director")

    async def login(request: Request):
        body = await _json(request)
        pin = str(body.get("pin", "")) if isinstance(body, dict) else ""
        ok, msg = source.director(pin, {"action": "login"})
        if not ok:
            return JSONResponse({"ok": False, "message": msg}, status_code=403)
        token = secrets.token_urlsafe(24)
        sessions[token] = pin
        resp = JSONResponse({"ok": True, "message": msg})
        resp.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return resp

    async def action(request: Request):
        pin = director_pin(request)
        body = await _json(request)
        if pin is None:
            return JSONResponse({"ok": False, "message": "Sign in with the director's PIN first"},
                                status_code=403)
        if not isinstance(body, dict):
            return JSONResponse({"ok": False, "message": "An action is a JSON object"},
                                status_code=400)
        ok, msg = source.director(pin, body)
        return JSONResponse({"ok": ok, "message": msg}, status_code=200 if ok else 400)

    async def snapshot(request):
        return JSONResponse(_public(source.snapshot()))

    async def results(request):
        return HTMLResponse(_results_html(source.snapshot()))

    async def results_json(request):
        snap = source.snapshot()
        return JSONResponse({"night": snap["night"], "standings": snap["standings"],
                             "rounds": snap["archive"]["rounds"]})

    async def results_csv(request):
        return Response(_results_csv(source.snapshot()), media_type="text/csv",
                        headers={"Content-Disposition": "attachment; filename=results.csv"})

    async def card(request):
        p = request.path_params["player"]
        snap = source.snapshot()
        if not any(p in r["players"] for r in snap["standings"]):
            return HTMLResponse(f"<p>{html.escape(p)} is not a player of this night</p>",
                                status_code=404)
        return HTMLResponse(_card_html(snap, p))

    async def qr_sheet(request):
        base = (base_url or str(request.base_url)).rstrip("/")
        snap = source.snapshot()
        return HTMLResponse(_qr_html(snap, base))

    async def qr_svg(request):
        base = (base_url or str(request.base_url)).rstrip("/")
        t = request.path_params["table"]
        return Response(_qr_svg(f"{base}/t/{t}"), media_type="image/svg+xml")

    static = StaticFiles(directory=str(resources.files("hall").joinpath("static")))
    routes = [
        Route("/", screen), Route("/t/{table:int}", phone_table),
        Route("/me/{player}", phone_player), Route("/director", director),
        Route("/events", events), Route("/director/events", director_events),
        Route("/director/login", login, methods=["POST"]),
        Route("/director/action", action, methods=["POST"]),
        Route("/api/snapshot", snapshot), Route("/results", results),
        Route("/results.json", results_json), Route("/results.csv", results_csv),
        Route("/card/{player}", card), Route("/qr", qr_sheet),
        Route("/qr/{table:int}.svg", qr_svg), Mount("/static", static),
    ]
    return Starlette(routes=routes)


async def _json(request):
    try:
        return await request.json()
    except ValueError:
        return None


# ------------------------------------------------------------------ printables
def _esc(x) -> str:
    return html.escape(str(x))


_PRINT_CSS = ("<link rel=stylesheet href='/static/hall.css'>"
              "<style>body{background:#fff;color:#000;font:14px sans-serif;margin:2em}"
              "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .5em;"
              "text-align:right}td.name,th.name{text-align:left}</style>")


def _results_html(snap) -> str:
    n = snap["night"]
    rounds = sorted(snap["archive"]["rounds"], key=int)
    head = "".join(f"<th>R{r}</th>" for r in rounds)
    rows = []
    for r in snap["standings"]:
        cells = "".join(f"<td>{_esc(r['rounds'].get(x, ''))}" + ("*" if int(x) in r["sat_out"] else "")
                        + "</td>" for x in rounds)
        name = _esc(r["entrant"])
        link = f"<a href='/card/{_esc(r['players'][0])}'>{name}</a>"
        rows.append(f"<tr class=result-row><td class=rank>{_esc(r['rank_text'])}</td>"
                    f"<td class=name>{link}</td>{cells}<td class=total><b>{r['total']}</b></td>"
                    f"<td>{r['games_won']}</td><td>{r['margin']}</td><td>{r['marches']}</td>"
                    f"<td>{r['loners']}</td></tr>")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>Results: {_esc(n['name'])}"
            f"</title>{_PRINT_CSS}</head><body class=print><h1>{_esc(n['name'])}: results</h1>"
            f"<p>Round {snap['round']['number']} of {n['rounds']} ({_esc(snap['round']['state'])})."
            f" * = sat out (credited). <a href='/results.csv'>CSV</a> · "
            f"<a href='/results.json'>JSON</a></p><table id=results><tr><th>Rank</th>"
            f"<th class=name>Player</th>{head}<th>Total</th><th>Won</th><th>Margin</th>"
            f"<th>Marches</th><th>Loners</th></tr>{''.join(rows)}</table></body></html>")


def _results_csv(snap) -> str:
    rounds = sorted(snap["archive"]["rounds"], key=int)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["rank", "player"] + [f"round {r}" for r in rounds] +
               ["total", "games_won", "margin", "marches", "loners", "euchres"])
    for r in snap["standings"]:
        w.writerow([r["rank_text"], r["entrant"]] + [r["rounds"].get(x, "") for x in rounds] +
                   [r["total"], r["games_won"], r["margin"], r["marches"], r["loners"],
                    r["euchres"]])
    return out.getvalue()


def _card_html(snap, player) -> str:
    row = next(r for r in snap["standings"] if player in r["players"])
    lines = []
    for rn, rd in sorted(snap["archive"]["rounds"].items(), key=lambda x: int(x[0])):
        pts = row["rounds"].get(rn, "")
        if player in rd["sitting_out"]:
            lines.append(f"<tr><td>{rn}</td><td colspan=3 class=name>sat out</td><td>{pts}</td></tr>")
            continue
        for t, s in rd["seating"].items():
            for seat, p in s.items():
                if p == player:
                    partner = s.get(PARTNER[seat], "")
                    opp = " & ".join(s.get(x, "") for x in SEATS if x not in (seat, PARTNER[seat]))
                    lines.append(f"<tr><td>{rn}</td><td>{t} {SEAT_WORDS[seat]}</td>"
                                 f"<td class=name>{_esc(partner)}</td><td class=name>{_esc(opp)}</td>"
                                 f"<td>{pts}</td></tr>")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{_esc(player)}</title>"
            f"{_PRINT_CSS}</head><body class=print><h1>{_esc(snap['night']['name'])}</h1>"
            f"<h2 id=card-name>{_esc(player)}: {row['total']} points, place "
            f"{_esc(row['rank_text'])}</h2><table id=card><tr><th>Round</th><th>Table</th>"
            f"<th class=name>Partner</th><th class=name>Opponents</th><th>Points</th></tr>"
            f"{''.join(lines)}<tr><td colspan=4 class=name><b>Total</b></td>"
            f"<td><b>{row['total']}</b></td></tr></table></body></html>")


def _qr_svg(url: str) -> str:
    import segno
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=6, border=2, xmldecl=False)
    return buf.getvalue().decode()


def _qr_html(snap, base) -> str:
    cards = []
    for t in range(1, snap["night"]["tables"] + 1):
        url = f"{base}/t/{t}"
        cards.append(f"<div class=qr-card><h2>Table {t}</h2>{_qr_svg(url)}"
                     f"<p>Scan for your score and your next table<br><small>{_esc(url)}</small></p></div>")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>QR codes</title>"
            f"{_PRINT_CSS}<style>.qr-card{{display:inline-block;width:45%;margin:1em;"
            f"text-align:center;page-break-inside:avoid;border:1px dashed #999;padding:1em}}"
            f"</style></head><body class=print>{''.join(cards)}</body></html>")
