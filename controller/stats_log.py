"""Finished games read back from the table's event log, for statistics."""
from __future__ import annotations

from typing import Optional

from controller.log import read_events
from controller.stats import GameSummary
from engine.referee import Referee
from engine.rules import Rules


def games_from_log(path: str, rules: Optional[Rules] = None, names: Optional[dict] = None,
                   levels: Optional[dict] = None) -> list:
    """Replay the log through the referee and return each finished game as a
    :class:`GameSummary`; ``names`` maps seats to players' names (default the seat),
    ``levels`` maps computer seats to their level."""
    ref = Referee(rules or Rules.preset("standard"), known_seats=list(levels or {}))
    for seq, event in read_events(path):
        ref.feed(event, seq=seq)
    players = {s: (names or {}).get(s, s) for s in "NESW"}
    records = ref.records()
    out = []
    for g in ref.games:
        results = [r["result"] for r in records
                   if r.get("game") == g["game"] and r.get("result")]
        out.append(GameSummary(players=players, hands=results, score=g["score"],
                               winner=g["winner"], levels=dict(levels or {})))
    return out
