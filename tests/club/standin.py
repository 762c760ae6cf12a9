"""A minimal stand-in for the night's format (the fold and the movement), written to the contract, for the transport's tests.

Fixed seat rotation (North stays, South one table down, East one up, West two up),
standard Euchre points banked by both players of a team, no director actions but a
PIN check. Deliberately small: the real format is the night's own modules."""
from __future__ import annotations

from engine.referee import Referee
from engine.rules import Rules
from hall.service import NightAPI

SEATS = "NESW"


class StandInNight(NightAPI):
    def __init__(self, tables: int, rounds: int = 2, hands_per_round: int = 2, minutes=None,
                 pin: str = "1234"):
        self.tables, self.rounds, self.hands_per_round, self.minutes = tables, rounds, hands_per_round, minutes
        self.rules = Rules.preset("standard")
        self.pin = pin
        self.players = [f"P{i:02d}" for i in range(1, 4 * tables + 1)]

    def config(self) -> dict:
        return {"format": "stand-in", "tables": self.tables, "rounds": self.rounds,
                "hands_per_round": self.hands_per_round}

    def seating(self, r: int) -> dict:
        n = self.tables
        out = {}
        for t in range(1, n + 1):
            out[str(t)] = {
                "N": self.players[4 * (t - 1)],
                "S": self.players[4 * ((t - 1 - (r - 1)) % n) + 2],
                "E": self.players[4 * ((t - 1 + (r - 1)) % n) + 1],
                "W": self.players[4 * ((t - 1 + 2 * (r - 1)) % n) + 3],
            }
        return out

    def plan_round(self, hall_events, standings):
        done = [e["round"] for e in hall_events if e["kind"] == "round_start"]
        r = (max(done) if done else 0) + 1
        if r > self.rounds:
            return None
        return {"kind": "round_start", "round": r, "seating": self.seating(r), "sitting_out": []}

    def fold(self, hall_events, tables):
        totals = {p: 0 for p in self.players}
        for _t, records in tables.items():
            ref = Referee(self.rules)
            marks = []
            for rec in records:
                if rec.get("type") == "club_round":
                    marks.append((rec["seq"], rec["seating"]))
                elif rec.get("type") == "result":
                    from controller.club import result_points
                    seating = marks[-1][1] if marks else {}
                    pts = result_points(rec)
                    for seat, p in seating.items():
                        totals[p] = totals.get(p, 0) + pts["NS" if seat in "NS" else "EW"]
                else:
                    ref.feed({k: v for k, v in rec.items() if k not in ("seq", "at")}, seq=rec["seq"])
            for h in ref.records():
                pts = (h.get("result") or {}).get("points")
                seating = {}
                for s, st in marks:
                    if s < h["first_seq"]:
                        seating = st
                if pts:
                    for seat, p in seating.items():
                        totals[p] = totals.get(p, 0) + pts["NS" if seat in "NS" else "EW"]
        return totals

    def standings_dict(self, standings):
        rows = sorted(standings.items(), key=lambda kv: (-kv[1], kv[0]))
        return [{"player": p, "points": pts} for p, pts in rows]

    def director(self, pin, action, hall_events, now=None):
        if pin != self.pin:
            return False, "Wrong director PIN", None
        event = {k: v for k, v in action.items() if k != "action"}
        event["kind"] = action["action"]
        return True, "ok", {**event, "director": "D1", "reason": action.get("reason", "")}
