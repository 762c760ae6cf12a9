"""The night's configuration (the ``[night]`` table of hall.toml): who plays, how rounds end, the movement, the scoring, with one-line errors.

>>> n = Night.from_config({"id": "fri", "players": 9, "rounds": 4, "hands": 8})
>>> n.tables, n.byes, n.players[:3]
(2, 1, ('P1', 'P2', 'P3'))
>>> Night.from_config({"id": "fri", "players": 8, "movement": "shuffle"})
Traceback (most recent call last):
...
hall.night.NightError: movement 'shuffle' is not known: for a progressive night choose winners-up, rotation or whist
"""
from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from typing import Optional

from engine.rules import Rules, RulesError
from hall.scoring import Scoring, ScoringError

FORMATS = ("progressive", "partnership")
MOVEMENTS = {"progressive": ("winners-up", "rotation", "whist"),
             "partnership": ("round-robin", "swiss")}
TIE_BREAKS = ("games_won", "margin", "marches", "loners", "euchres", "head_to_head")
MAX_TABLES = 40
# No '.': the id goes into MQTT topics, which nats-server maps to subjects split at '.'.
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


class NightError(ValueError):
    """A night's configuration that cannot be used; the message says what to change."""


def read_toml(path) -> dict:
    """The hall's TOML file as a dict; NightError says in one line what is wrong with it
    (missing, a folder, far too big, not UTF-8 text, not TOML, unreadable)."""
    from controller.config import read_toml as read_config_file
    return read_config_file(path, NightError, "the hall's configuration file", "examples/hall.toml")


@dataclass(frozen=True)
class Night:
    """One club night. ``players`` are the players' names (ids) in the order of the draw;
    for a partnership night ``teams`` pairs them (each team a tuple of two names).

    ``hands`` ends a round after that many hands at a table, ``minutes`` after that long
    ("finish the hand already dealt"); either or both. ``tie_breaks`` is the ordered chain
    that separates equal totals (any of :data:`TIE_BREAKS`). ``hide_last`` hides the last
    rounds from the hall's big screen so the finish stays a surprise. ``directors`` maps a
    director's id to their PIN.
    """

    id: str
    name: str = ""
    format: str = "progressive"
    players: tuple = ()
    teams: tuple = ()
    team_names: tuple = ()
    rounds: int = 8
    hands: Optional[int] = 8
    minutes: Optional[int] = None
    movement: str = "winners-up"
    rules: str = "standard"
    scoring: Scoring = field(default_factory=lambda: Scoring.preset("standard"))
    tie_breaks: tuple = ("games_won", "margin", "head_to_head")
    hide_last: int = 0
    seed: int = 0
    directors: tuple = ()        # ((id, pin), ...)
    warnings: tuple = ()

    # ---------------------------------------------------------------- derived
    @property
    def tables(self) -> int:
        """Tables in play each round: every four players fill one."""
        return len(self.players) // 4

    @property
    def byes(self) -> int:
        """Players (or, for partnerships, teams' pairs) sitting out each round."""
        if self.format == "partnership":
            return 2 * (len(self.teams) % 2)
        return len(self.players) % 4

    @property
    def engine_rules(self) -> Rules:
        return Rules.parse(self.rules)

    def team_of_player(self) -> dict:
        """Player -> team name (partnership nights); empty for progressive nights."""
        return {p: name for name, team in zip(self.team_names, self.teams) for p in team}

    def entrant(self, player: str) -> str:
        """Who a player's points are banked for: the player, or their team."""
        return self.team_of_player().get(player, player) if self.teams else player

    @property
    def entrants(self) -> tuple:
        return self.team_names if self.format == "partnership" else self.players

    # ---------------------------------------------------------------- loading
    @classmethod
    def from_config(cls, cfg: dict) -> "Night":
        """From the ``[night]`` table (a dict). Raises :class:`NightError` with one line."""
        if isinstance(cfg, Night):
            return cfg
        if not isinstance(cfg, dict):
            raise NightError("[night] must be a table of settings (id, players, rounds, ...)")
        cfg = dict(cfg)
        known = {f.name for f in dataclasses.fields(cls)} - {"warnings", "team_names"}
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise NightError(f"[night] has an unknown setting {unknown[0]!r}: settings are "
                             + ", ".join(sorted(known)))
        nid = cfg.get("id")
        if not isinstance(nid, str) or not _ID.match(nid):
            raise NightError(f"id must be a short name of letters, digits, '-' or '_' (it names "
                             f"the night's topics), e.g. id = \"2026-11-14\", not {nid!r}")
        fmt = cfg.get("format", "progressive")
        if fmt not in FORMATS:
            raise NightError(f"format is 'progressive' or 'partnership', not {fmt!r}")
        teams, team_names = (), ()
        if fmt == "partnership":
            teams, team_names = _teams(cfg.get("teams"))
            players = tuple(p for t in teams for p in t)
            if "players" in cfg and tuple(_players(cfg["players"])) != players:
                raise NightError("a partnership night lists its players in teams; leave players out")
        else:
            if "teams" in cfg:
                raise NightError("teams are for format = \"partnership\"; a progressive night "
                                 "lists players")
            players = tuple(_players(cfg.get("players")))
        n_tables = len(players) // 4
        if n_tables < 1:
            raise NightError(f"a night needs at least 4 players (one table), not {len(players)}")
        if n_tables > MAX_TABLES:
            raise NightError(f"{len(players)} players make {n_tables} tables: at most "
                             f"{MAX_TABLES} tables ({4 * MAX_TABLES + 3} players)")
        movement = cfg.get("movement", MOVEMENTS[fmt][0])
        if movement not in MOVEMENTS[fmt]:
            raise NightError(f"movement {movement!r} is not known: for a {fmt} night choose "
                             + (" or ".join([", ".join(MOVEMENTS[fmt][:-1]), MOVEMENTS[fmt][-1]])
                                if len(MOVEMENTS[fmt]) > 2 else " or ".join(MOVEMENTS[fmt])))
        rounds = _int(cfg, "rounds", 8, 1, 200)
        hands = cfg.get("hands", None if "minutes" in cfg else 8)
        if hands is not None:
            hands = _int(cfg, "hands", 8, 1, 40)
        minutes = cfg.get("minutes")
        if minutes is not None:
            minutes = _int(cfg, "minutes", 20, 1, 300)
        if hands is None and minutes is None:
            raise NightError("a round ends after some hands or some minutes: set hands = 8 "
                             "or minutes = 20 (or both)")
        rules = cfg.get("rules", "standard")
        try:
            Rules.parse(str(rules))
        except RulesError as exc:
            raise NightError(f"rules: {exc}") from None
        try:
            scoring = Scoring.from_config(cfg.get("scoring"))
        except ScoringError as exc:
            raise NightError(f"scoring: {exc}") from None
        tie_breaks = cfg.get("tie_breaks", ["games_won", "margin", "head_to_head"])
        if isinstance(tie_breaks, str) or not all(isinstance(t, str) for t in tie_breaks):
            raise NightError("tie_breaks is a list, e.g. tie_breaks = [\"games_won\", \"margin\"]")
        for t in tie_breaks:
            if t not in TIE_BREAKS:
                raise NightError(f"tie break {t!r} is not known: choose from "
                                 + ", ".join(TIE_BREAKS))
        if len(set(tie_breaks)) != len(tie_breaks):
            raise NightError("tie_breaks names a tie break twice")
        hide_last = _int(cfg, "hide_last", 0, 0, rounds)
        seed = _int(cfg, "seed", 0, 0, 2 ** 31)
        directors = cfg.get("directors", {})
        if not isinstance(directors, dict):
            raise NightError("directors is a table of id = \"PIN\", e.g. [night.directors] "
                             "alice = \"4821\"")
        for did, pin in directors.items():
            if not _ID.match(str(did)):
                raise NightError(f"director id {did!r}: use letters, digits, '-' or '_'")
            if not isinstance(pin, str) or not re.fullmatch(r"[0-9]{4,12}", pin):
                raise NightError(f"the PIN of director {did!r} is 4 to 12 digits in quotes, "
                                 "e.g. \"4821\"")
        night = cls(id=nid, name=str(cfg.get("name", "")), format=fmt, players=players,
                    teams=teams, team_names=team_names, rounds=rounds, hands=hands,
                    minutes=minutes, movement=movement, rules=str(rules), scoring=scoring,
                    tie_breaks=tuple(tie_breaks), hide_last=hide_last, seed=seed,
                    directors=tuple(sorted((str(k), v) for k, v in directors.items())))
        from hall import movements  # the movement knows its own limits
        problem, warnings = movements.check(night)
        if problem:
            raise NightError(problem)
        return dataclasses.replace(night, warnings=tuple(warnings))

    @classmethod
    def from_toml(cls, text: str) -> "Night":
        """From the text of hall.toml (its ``[night]`` table)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise NightError(f"hall.toml is not valid TOML: {exc}") from None
        if "night" not in data:
            raise NightError("hall.toml has no [night] table: add one with id, players, "
                             "rounds and hands")
        return cls.from_config(data["night"])

    @classmethod
    def load(cls, path) -> "Night":
        data = read_toml(path)
        if "night" not in data:
            raise NightError(f"{path} has no [night] table: add one with id, players, "
                             "rounds and hands")
        return cls.from_config(data["night"])

    def to_config(self) -> dict:
        """The configuration as a JSON-able dict, for the night's first hall event.
        Directors' PINs are left out (their ids stay)."""
        d = {"id": self.id, "name": self.name, "format": self.format,
             "rounds": self.rounds, "hands": self.hands, "minutes": self.minutes,
             "movement": self.movement, "rules": self.rules,
             "scoring": {k: v for k, v in self.scoring.to_dict().items()},
             "tie_breaks": list(self.tie_breaks), "hide_last": self.hide_last,
             "seed": self.seed, "directors": {d: None for d, _ in self.directors}}
        if self.format == "partnership":
            d["teams"] = [{"name": n, "players": list(t)} for n, t in zip(self.team_names, self.teams)]
        else:
            d["players"] = list(self.players)
        if d["minutes"] is None:
            del d["minutes"]
        if d["hands"] is None:
            del d["hands"]
        return d

    @classmethod
    def from_event(cls, event: dict) -> "Night":
        """From the night's first hall event (``{"kind": "night", "config": {...}}``)."""
        cfg = dict(event["config"])
        sc = dict(cfg.get("scoring") or {})
        name = sc.pop("name", None)
        cfg["scoring"] = dict(sc, name=name) if name else sc
        cfg["directors"] = {}
        return cls.from_config(cfg)

    def pin_of(self, director: str) -> Optional[str]:
        return dict(self.directors).get(director)


def _int(cfg, key, default, lo, hi):
    v = cfg.get(key, default)
    if type(v) is not int or not lo <= v <= hi:
        raise NightError(f"{key} is a whole number from {lo} to {hi}, not {v!r}")
    return v


def _players(value):
    if type(value) is int:
        if not 4 <= value <= 4 * MAX_TABLES + 3:
            raise NightError(f"players = {value}: a night has 4 to {4 * MAX_TABLES + 3} players")
        return [f"P{i}" for i in range(1, value + 1)]
    if not isinstance(value, list) or not value:
        raise NightError("players is a list of names (players = [\"Ann\", \"Bob\", ...]) or a "
                         "count (players = 24)")
    return _names(value)


def _names(value):
    out, seen = [], set()
    for p in value:
        if not isinstance(p, str) or not p.strip() or len(p) > 40:
            raise NightError(f"a player's name is text of 1 to 40 characters, not {p!r}")
        p = p.strip()
        if p in seen:
            raise NightError(f"player {p!r} is listed twice: give each player a distinct name")
        seen.add(p)
        out.append(p)
    return out


def _teams(value):
    if not isinstance(value, list) or len(value) < 2:
        raise NightError("a partnership night lists at least two teams: teams = "
                         "[[\"Ann\", \"Bob\"], [\"Cy\", \"Di\"]] or [{name = \"Aces\", players = [...]}]")
    teams, names = [], []
    for i, t in enumerate(value, 1):
        name = None
        if isinstance(t, dict):
            name, t = t.get("name"), t.get("players")
        if not isinstance(t, list) or len(t) != 2:
            raise NightError(f"team {i} must be two players, e.g. [\"Ann\", \"Bob\"]")
        teams.append(tuple(t))
        names.append(str(name) if name else f"{t[0]} & {t[1]}")
    _names([p for t in teams for p in t])
    if len(set(names)) != len(names):
        raise NightError("two teams have the same name")
    return tuple(teams), tuple(names)
