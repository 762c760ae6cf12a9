"""Statistics over finished games: per player and per difficulty, as card-game apps keep them."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Iterable, Optional

from engine.cards import SEATS, team_of


@dataclass
class GameSummary:
    """One finished game as statistics need it.

    ``players`` maps each seat to the player's name; ``levels`` maps computer seats to
    their level; ``hands`` are the hands' results (``engine.HandResult`` or dicts of the
    same fields); ``score`` is the final score, ``winner`` "NS" or "EW"."""

    players: dict
    hands: list
    score: dict
    winner: str
    levels: dict = field(default_factory=dict)
    ended_at: Optional[float] = None


@dataclass
class PlayerStats:
    """A player's record. ``streak`` is the win streak going on now; ``longest_streak``
    the longest ever; ``biggest_margin`` the widest winning margin."""

    games: int = 0
    wins: int = 0
    biggest_margin: int = 0
    streak: int = 0
    longest_streak: int = 0
    contracts: int = 0
    made: int = 0
    marches: int = 0
    euchred: int = 0        # contracts of this player's side that were euchred
    euchres: int = 0        # euchres this player's side inflicted
    lone_hands: int = 0     # lone hands this player played
    lone_made: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["win_rate"] = round(self.win_rate, 3)
        return d


def _get(result, name):
    return result[name] if isinstance(result, dict) else getattr(result, name)


def compute_stats(games: Iterable[GameSummary]) -> dict:
    """Per-player records, and per-difficulty records of the people who played against
    (or with) computer players of each level.

    >>> g = GameSummary(players={"N": "Ann", "E": "Pi", "S": "Cy", "W": "Pi2"},
    ...                 hands=[], score={"NS": 10, "EW": 4}, winner="NS", levels={"E": "hard"})
    >>> s = compute_stats([g]); s["players"]["Ann"].wins, s["players"]["Ann"].biggest_margin
    (1, 6)
    >>> s["by_level"]["hard"]["Ann"].games
    1
    """
    players: dict = {}
    by_level: dict = {}
    for g in games:
        level = max(g.levels.values(), key=["easy", "medium", "hard", "insane"].index) \
            if g.levels else None
        for seat in SEATS:
            name = g.players[seat]
            team = team_of(seat)
            records = [players.setdefault(name, PlayerStats())]
            if level is not None and seat not in g.levels:
                records.append(by_level.setdefault(level, {}).setdefault(name, PlayerStats()))
            for rec in records:
                _add_game(rec, g, seat, team)
    return {"players": players, "by_level": by_level}


def _add_game(rec: PlayerStats, g: GameSummary, seat: str, team: str) -> None:
    rec.games += 1
    other = "EW" if team == "NS" else "NS"
    if g.winner == team:
        rec.wins += 1
        rec.streak += 1
        rec.longest_streak = max(rec.longest_streak, rec.streak)
        rec.biggest_margin = max(rec.biggest_margin, g.score[team] - g.score[other])
    else:
        rec.streak = 0
    for r in g.hands:
        if _get(r, "thrown_in"):
            continue
        makers = _get(r, "makers")
        if makers == team:
            rec.contracts += 1
            if _get(r, "euchred"):
                rec.euchred += 1
            else:
                rec.made += 1
                rec.marches += bool(_get(r, "march"))
        elif _get(r, "euchred"):
            rec.euchres += 1
        if _get(r, "alone") == seat:
            rec.lone_hands += 1
            rec.lone_made += not _get(r, "euchred")


COLUMNS = [
    # (header, width, value of a PlayerStats, what it means)
    ("games", 6, lambda r: r.games, "games played"),
    ("won", 5, lambda r: r.wins, "games won"),
    ("win%", 6, lambda r: f"{r.win_rate:.0%}", "share of games won"),
    ("margin", 7, lambda r: r.biggest_margin, "widest winning margin, in points"),
    ("streak", 7, lambda r: r.longest_streak, "longest run of games won"),
    ("called", 7, lambda r: r.contracts, "hands where this player's side named trump"),
    ("made", 5, lambda r: r.made, "... and took 3 tricks or more"),
    ("march", 6, lambda r: r.marches, "... and took all 5"),
    ("set", 5, lambda r: r.euchred, "... and were euchred (fewer than 3)"),
    ("euchs", 6, lambda r: r.euchres, "hands where this player's side euchred the makers"),
    ("alone", 6, lambda r: r.lone_hands, "lone hands this player played"),
]


def format_stats(stats: dict) -> str:
    """The statistics as a table for people, with a key to the columns.

    >>> text = format_stats(compute_stats([GameSummary(players=dict(N="Ann", E="Bo", S="Cy",
    ...     W="Di"), hands=[], score={"NS": 10, "EW": 4}, winner="NS")]))
    >>> print(text.splitlines()[1])
    player       games  won  win% margin streak called made march  set euchs alone
    """
    head = f"{'player':<12}" + "".join(f"{h:>{w}}" for h, w, _, _ in COLUMNS)

    def rows(table):
        return [f"{name[:11]:<12}" + "".join(f"{get(r)!s:>{w}}" for _, w, get, _ in COLUMNS)
                for name, r in sorted(table.items())]

    lines = ["All games", head, *rows(stats["players"])]
    for level in ("easy", "medium", "hard", "insane"):
        if level in stats["by_level"]:
            lines += ["", f"People's games against computer players at {level}", head,
                      *rows(stats["by_level"][level])]
    lines += ["", "Columns: " + "; ".join(f"{h}: {what}" for h, _, _, what in COLUMNS) + "."]
    return "\n".join(lines[:-1] + textwrap.wrap(lines[-1], 88, subsequent_indent="  "))
