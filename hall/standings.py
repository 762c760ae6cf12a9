"""The night's standings as a pure fold of the tables' records and the hall's own events.

``fold(night, hall_events, tables)`` replays each table's records through the referee
(``engine.referee.Referee``, with the night's rules), takes a camera-less table's
``result`` records as whole hands, puts each hand in the round its table was seated for
(the ``club_round`` records), credits the players of that seating by the house scoring,
applies the director's events, and ranks the players (or teams) by total and the night's
tie-break chain. No I/O, no clock: the same inputs give the same standings.

:class:`Folder` does the same incrementally (it keeps one referee per table and feeds only
records it has not seen), for a hall that folds after every event.

>>> from hall.night import Night
>>> night = Night.from_config({"id": "n", "players": ["A", "B", "C", "D"], "rounds": 1, "hands": 1})
>>> seating = {"N": "A", "E": "B", "S": "C", "W": "D"}
>>> hall = [{"seq": 1, "at": 0, "kind": "night", "night": "n", "config": night.to_config()},
...         {"seq": 2, "at": 0, "kind": "round_start", "round": 1, "seating": {"1": seating},
...          "sitting_out": []}]
>>> t1 = [{"seq": 1, "at": 0, "type": "club_round", "night": "n", "round": 1, "table": 1,
...        "seating": seating},
...       {"seq": 2, "at": 0, "type": "result", "makers": "NS", "tricks": 5, "alone": None,
...        "entered_by": "N", "confirmed_by": "E"}]
>>> s = fold(night, hall, {1: t1})
>>> [(r["rank_text"], r["entrant"], r["total"]) for r in s.ranking()]
[('=1', 'A', 2), ('=1', 'C', 2), ('=3', 'B', 0), ('=3', 'D', 0)]
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional

from engine.referee import Referee
from hall.night import Night
from hall.scoring import (SEATS, ScoringError, outcome_of_record, outcome_of_result,
                          score_hand, team_of, team_points)

_NOT_FOR_REFEREE = ("club_round", "result")


@dataclass
class Standings:
    """What the fold gives: per round, per table, each hand and its points; per player (or
    team) the totals, per-round tallies and tie-break figures; the ranking; what the
    director changed; and ``problems``, lines for the director (a gap in a table's
    records, a hand played beyond the round, a seating the table did not confirm...)."""

    night: str
    rounds: dict = field(default_factory=dict)       # R -> round dict
    entrants: dict = field(default_factory=dict)     # entrant -> figures
    tie_breaks: tuple = ()
    problems: list = field(default_factory=list)
    audit: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    refused: list = field(default_factory=list)
    current_round: int = 0

    def ranking(self, upto_round: Optional[int] = None) -> list:
        """Entrants best first: ``rank`` (int), ``rank_text`` ("3", or "=3" when shared),
        ``entrant``, ``total``, ``rounds`` (points per round), and the tie-break figures.
        ``upto_round`` counts only rounds up to it (the big screen's "hide the last N")."""
        rows = []
        for name, e in self.entrants.items():
            per = {r: p for r, p in e["rounds"].items() if upto_round is None or r <= upto_round}
            rows.append(dict(
                entrant=name, players=list(e["players"]), total=sum(per.values()),
                rounds={str(r): p for r, p in sorted(per.items())},
                sat_out=[r for r in e["sat_out"] if upto_round is None or r <= upto_round],
                **{k: sum(v for r, v in e[k].items() if upto_round is None or r <= upto_round)
                   for k in ("games_won", "margin", "marches", "loners", "euchres")}))
        return _rank(rows, self.tie_breaks, self._meetings(upto_round))

    def _meetings(self, upto_round):
        """(a, b) -> round wins of a over b when they sat on opposite sides."""
        wins = defaultdict(int)
        for r, rd in self.rounds.items():
            if upto_round is not None and r > upto_round:
                continue
            for t in rd["tables"].values():
                w = t["winner"]
                if w is None:
                    continue
                side = {team: {t["entrants"][s] for s in SEATS if team_of(s) == team and
                               t["entrants"].get(s)} for team in ("NS", "EW")}
                loser = "EW" if w == "NS" else "NS"
                for a in side[w]:
                    for b in side[loser]:
                        wins[(a, b)] += 1
        return wins

    def to_dict(self, upto_round: Optional[int] = None) -> dict:
        """JSON-able: ``night``, ``current_round``, ``ranking``, ``rounds``, ``problems``,
        ``audit``, ``messages``, ``refused``."""
        return {"night": self.night, "current_round": self.current_round,
                "ranking": self.ranking(upto_round),
                "rounds": {str(r): rd for r, rd in sorted(self.rounds.items())},
                "problems": list(self.problems), "audit": list(self.audit),
                "messages": list(self.messages), "refused": list(self.refused)}


def _rank(rows, chain, meetings):
    groups = [sorted(rows, key=lambda r: r["entrant"])]
    keys = [("total", None)] + [(k, None) for k in chain]
    for key, _ in keys:
        out = []
        for g in groups:
            if len(g) == 1:
                out.append(g)
                continue
            if key == "head_to_head":
                names = {r["entrant"] for r in g}
                val = {r["entrant"]: sum(meetings.get((r["entrant"], o), 0) for o in names)
                       for r in g}
            else:
                val = {r["entrant"]: r[key] for r in g}
            for v in sorted(set(val.values()), reverse=True):
                out.append([r for r in g if val[r["entrant"]] == v])
        groups = out
    ranked, place = [], 1
    for g in groups:
        for r in g:
            r["rank"] = place
            r["rank_text"] = f"={place}" if len(g) > 1 else str(place)
            ranked.append(r)
        place += len(g)
    return ranked


class _TableReplay:
    """One table's records folded so far: the referee and the club records seen."""

    def __init__(self, rules):
        self.referee = Referee(rules)
        self.fed = 0          # records consumed
        self.last_seq = None
        self.first_seq = None
        self.clubs = []       # club_round records
        self.results = []     # result records
        self.gap = None       # the first missing seq, when the records have a gap


class Folder:
    """The fold, kept between calls: ``Folder(night).fold(hall_events, tables)`` gives the
    same :class:`Standings` as :func:`fold` but feeds each table's referee only the records
    added since the last call (it starts a table again when its records changed before)."""

    def __init__(self, night):
        self.night = night if isinstance(night, Night) else Night.from_config(night)
        self._rules = self.night.engine_rules
        self._tables = {}

    def _replay(self, table: int, records: list) -> _TableReplay:
        tr = self._tables.get(table)
        if tr is not None:
            n = tr.fed
            ok = (len(records) >= n and (n == 0 or (records[n - 1].get("seq") == tr.last_seq
                                                     and records[0].get("seq") == tr.first_seq)))
            if not ok or (tr.gap is not None and len(records) > n):
                tr = None
        if tr is None:
            tr = self._tables[table] = _TableReplay(self._rules)
        for rec in records[tr.fed:]:
            seq = rec.get("seq")
            if tr.last_seq is not None and seq != tr.last_seq + 1:
                tr.gap = tr.last_seq + 1
                break
            tr.fed += 1
            tr.last_seq = seq
            if tr.first_seq is None:
                tr.first_seq = seq
            kind = rec.get("type")
            if kind == "club_round":
                tr.clubs.append(rec)
            elif kind == "result":
                tr.results.append(rec)
            else:
                tr.referee.feed(rec, seq=seq)
        return tr

    def fold(self, hall_events: list, tables: dict) -> Standings:
        night = self.night
        st = Standings(night=night.id, tie_breaks=night.tie_breaks)
        events = sorted(hall_events, key=lambda e: e.get("seq", 0))
        # ---- rounds from the hall's events
        rounds = {}
        for ev in events:
            k = ev.get("kind")
            if k == "round_start":
                r = ev["round"]
                rounds[r] = {"round": r, "status": "playing", "closed_by": None,
                             "seating": {int(t): dict(s) for t, s in ev["seating"].items()},
                             "sitting_out": list(ev.get("sitting_out", [])),
                             "warnings": list(ev.get("warnings", [])), "tables": {}}
                for earlier in rounds.values():
                    if earlier["round"] < r and earlier["status"] == "playing":
                        earlier["status"], earlier["closed_by"] = "closed", "next round"
            elif k == "round_end" or k == "end_round":
                r = ev.get("round")
                if r in rounds:
                    rounds[r]["status"] = "closed"
                    rounds[r]["closed_by"] = ev.get("by", "director" if k == "end_round" else None)
            elif k == "move_player":
                r = ev.get("round")
                if r in rounds:
                    _move(rounds[r], ev["player"], int(ev["table"]), ev["seat"])
            elif k == "refused":
                st.refused.append({"seq": ev.get("seq"), "at": ev.get("at"),
                                   "what": ev.get("what"), "why": ev.get("why")})
            elif k == "message":
                st.messages.append({"seq": ev.get("seq"), "at": ev.get("at"),
                                    "text": ev.get("text"), "table": ev.get("table"),
                                    "director": ev.get("director")})
            if k in ("correct_hand", "void_hand", "move_player", "sit_out_credit", "end_round",
                     "message"):
                st.audit.append({key: v for key, v in ev.items()})
        st.current_round = max(rounds, default=0)
        # ---- hands from each table's records
        hands = defaultdict(list)     # (round, table) -> [hand dict]
        table_seating = {}            # (round, table) -> seating the table logged
        for table in sorted(tables):
            tr = self._replay(table, tables[table])
            if tr.gap is not None:
                st.problems.append(f"Table {table}: records from #{tr.gap} have not arrived; "
                                   f"standings use #{tr.first_seq}-#{tr.last_seq}")
            marks = [(c["seq"], c["round"]) for c in tr.clubs]
            for c in tr.clubs:
                table_seating[(c["round"], table)] = c.get("seating")

            def round_at(seq, marks=marks):
                r = None
                for s, rr in marks:
                    if s < seq:
                        r = rr
                return r

            items = []
            for rec in tr.referee.records():
                o = outcome_of_record(rec)
                status = rec["status"]
                if o is None and status in ("dealing", "playing"):
                    items.append((rec["first_seq"], "cards", None, "in progress"))
                elif o is not None:
                    items.append((rec["first_seq"], "cards", o,
                                  "thrown in" if o.thrown_in else "scored"))
            for res in tr.results:
                try:
                    items.append((res["seq"], "result", outcome_of_result(res), "scored"))
                except ScoringError as exc:
                    st.problems.append(f"Table {table}: result #{res['seq']} not counted: {exc}")
            unplaced = 0
            for seq, source, o, status in sorted(items, key=lambda x: x[0]):
                r = round_at(seq)
                if r is None:
                    unplaced += status != "in progress"
                    continue
                hands[(r, table)].append({"seq": seq, "source": source, "outcome": o,
                                          "status": status})
            if unplaced:
                st.problems.append(f"Table {table}: {unplaced} hand(s) before the table was "
                                   "seated for a round are not counted")
        # ---- the director's hand corrections, in order
        for ev in events:
            k = ev.get("kind")
            if k not in ("correct_hand", "void_hand"):
                continue
            lst = hands[(ev["round"], int(ev["table"]))]
            live = [h for h in lst if h["status"] != "in progress"]
            n = int(ev["hand"])
            while len(live) < n:
                h = {"seq": None, "source": "director", "outcome": None, "status": "missing"}
                lst.append(h)
                live.append(h)
            h = live[n - 1]
            if k == "void_hand":
                h["status"], h["voided_by"] = "void", ev.get("director")
            else:
                try:
                    h["outcome"] = outcome_of_result(ev["result"])
                except ScoringError as exc:
                    st.problems.append(f"Correction #{ev.get('seq')} not applied: {exc}")
                    continue
                h["status"], h["source"] = "scored", "director"
                h["corrected_by"] = ev.get("director")
        # ---- rounds the tables know of that the hall did not start (a restored hall)
        for (r, table) in list(hands) + list(table_seating):
            if r not in rounds:
                rounds[r] = {"round": r, "status": "playing", "closed_by": None, "seating": {},
                             "sitting_out": [], "warnings": [], "tables": {}}
            if table not in rounds[r]["seating"] and table_seating.get((r, table)):
                rounds[r]["seating"][table] = dict(table_seating[(r, table)])
        # ---- score every round's tables
        sc = night.scoring
        ent = {e: _blank(night, e) for e in night.entrants}
        for r in sorted(rounds):
            rd = rounds[r]
            for table in sorted(rd["seating"]):
                seating = rd["seating"][table]
                logged = table_seating.get((r, table))
                if logged is not None and dict(logged) != dict(seating):
                    st.problems.append(f"Table {table} logged a different seating for round {r} "
                                       "than the hall's: the hall's is used")
                rd["tables"][table] = _score_table(night, r, table, seating,
                                                   hands.get((r, table), []), rd, ent, st)
        # ---- sit-outs
        credits = {}
        for ev in events:
            if ev.get("kind") == "sit_out_credit":
                credits[(ev["player"], ev["round"])] = ev["points"]
        for r in sorted(rounds):
            sitting = [night.entrant(p) for p in rounds[r]["sitting_out"]]
            for e in dict.fromkeys(sitting):
                if e in ent:
                    ent[e]["sat_out"].append(r)
        for fig in ent.values():
            played = [p for rr, p in fig["rounds"].items() if rr not in fig["sat_out"]]
            for r in fig["sat_out"]:
                if sc.sit_out == "points":
                    fig["rounds"][r] = sc.sit_out_points
                elif sc.sit_out == "average":
                    fig["rounds"][r] = _round_half_up(sum(played), len(played)) if played else 0
                else:
                    fig["rounds"][r] = 0
        for (p, r), pts in credits.items():
            e = night.entrant(p)
            if e in ent:
                ent[e]["rounds"][r] = pts
                if r not in ent[e]["sat_out"]:
                    ent[e]["credited"].append(r)
        st.rounds = rounds
        st.entrants = ent
        return st


def fold(night, hall_events: list, tables: dict) -> Standings:
    """The standings of a night from its hall events and each table's records
    (``{table_number: [record, ...]}`` in seq order). Pure: same inputs, same output."""
    return Folder(night).fold(hall_events, tables)


def _blank(night, e):
    players = night.teams[night.team_names.index(e)] if night.format == "partnership" else (e,)
    return {"players": players, "rounds": {}, "sat_out": [], "credited": [],
            **{k: {} for k in ("games_won", "margin", "marches", "loners", "euchres")}}


def _round_half_up(total, n):
    return (2 * total + n) // (2 * n)


def _move(rd, player, table, seat):
    """Put ``player`` at ``table``/``seat`` for the round; whoever sat there takes the
    player's old place (their seat, or the bench)."""
    old = None
    for t, s in rd["seating"].items():
        for k, p in s.items():
            if p == player:
                old = (t, k)
    target = rd["seating"].setdefault(table, {})
    displaced = target.get(seat)
    if old is not None:
        rd["seating"][old[0]][old[1]] = displaced
        if displaced is None:
            del rd["seating"][old[0]][old[1]]
    else:
        if player in rd["sitting_out"]:
            rd["sitting_out"].remove(player)
        if displaced is not None:
            rd["sitting_out"].append(displaced)
    target[seat] = player


def _score_table(night, r, table, seating, hand_list, rd, ent, st):
    sc = night.scoring
    entrants = {s: night.entrant(p) for s, p in seating.items() if p}
    lines, score, counted, last_scorer = [], {"NS": 0, "EW": 0}, 0, None
    limit = night.hands
    number = 0
    for h in hand_list:
        if h["status"] == "in progress":
            lines.append({"hand": None, "status": "in progress", "source": h["source"],
                          "seq": h["seq"]})
            continue
        number += 1
        line = {"hand": number, "seq": h["seq"], "source": h["source"], "status": h["status"],
                "outcome": None if h["outcome"] is None else h["outcome"].to_dict()}
        for k in ("voided_by", "corrected_by"):
            if k in h:
                line[k] = h[k]
        lines.append(line)
        if h["status"] in ("void", "missing"):
            continue
        over = limit is not None and counted >= limit
        if over and not (sc.tie == "play off" and score["NS"] == score["EW"]):
            line["status"] = "extra"
            continue
        if over:
            line["play_off"] = True
        counted += 1
        o = h["outcome"]
        pts = score_hand(sc, o)
        team = team_points(sc, o)
        line["points"], line["team"] = pts, team
        for t in ("NS", "EW"):
            score[t] += team[t]
        if team["NS"] != team["EW"]:
            last_scorer = "NS" if team["NS"] > team["EW"] else "EW"
        if night.format == "partnership":
            credit = {entrants.get(s): team[team_of(s)] for s in SEATS if entrants.get(s)}
        else:
            credit = {entrants[s]: pts[s] for s in SEATS if s in entrants}
        for e, p in credit.items():
            if e in ent:
                ent[e]["rounds"][r] = ent[e]["rounds"].get(r, 0) + p
        seats_of = {t: [s for s in SEATS if team_of(s) == t] for t in ("NS", "EW")}
        if o.makers:
            for t in ("NS", "EW"):
                for e in {entrants.get(s) for s in seats_of[t]} - {None}:
                    if e not in ent:
                        continue
                    if t == o.makers and o.march:
                        ent[e]["marches"][r] = ent[e]["marches"].get(r, 0) + 1
                    if t != o.makers and o.euchred:
                        ent[e]["euchres"][r] = ent[e]["euchres"].get(r, 0) + 1
            if o.alone and o.tricks >= 3 and o.renege is None:
                e = entrants.get(o.alone)
                if e in ent:
                    ent[e]["loners"][r] = ent[e]["loners"].get(r, 0) + 1
    winner = None if score["NS"] == score["EW"] else ("NS" if score["NS"] > score["EW"] else "EW")
    for s, e in entrants.items():
        if e not in ent:
            continue
        ent[e]["rounds"].setdefault(r, 0)
        mine, theirs = score[team_of(s)], score["EW" if team_of(s) == "NS" else "NS"]
        if night.format == "partnership" and s in ("S", "W"):
            continue  # a team is credited once, from its first seat
        ent[e]["margin"][r] = mine - theirs
        ent[e]["games_won"][r] = 1 if winner == team_of(s) else 0
    closed = rd["status"] == "closed"
    missing = closed and (counted == 0 or (limit is not None and counted < limit))
    if missing:
        st.problems.append(f"Round {r}, table {table}: {counted} of "
                           f"{limit if limit is not None else 'some'} hands have a result")
    return {"table": table, "seating": dict(seating), "entrants": entrants, "hands": lines,
            "score": score, "counted": counted, "winner": winner,
            "mover": winner or last_scorer or "NS", "missing": missing,
            "in_progress": any(line["status"] == "in progress" for line in lines)}
