"""House scoring of a club night: what each seat banks for a hand, with the named presets clubs use.

A progressive-euchre player banks the points of the team they sat with, hand by hand,
and clubs differ on the numbers: a euchre may give the defenders 2 or cost the makers 2,
a lone march may give the loner 5 and the partner 4, a renege may end the hand with 2 to
the other side. :class:`Scoring` holds every such number; :func:`score_hand` applies it to
one hand's outcome.

>>> s = Scoring.preset("standard")
>>> score_hand(s, Outcome(makers="NS", tricks=5, alone="N"))
{'N': 4, 'E': 0, 'S': 4, 'W': 0}
>>> score_hand(Scoring.preset("minus"), Outcome(makers="EW", tricks=2))
{'N': 0, 'E': -2, 'S': 0, 'W': -2}
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Optional

SEATS = ("N", "E", "S", "W")
TEAM_SEATS = {"NS": ("N", "S"), "EW": ("E", "W")}
SIDES = ("defenders", "makers")
TIES = ("stand", "play off")
SIT_OUTS = ("points", "average", "none")


class ScoringError(ValueError):
    """An unknown scoring option or preset, or a value out of range (one line that says which)."""


def team_of(seat: str) -> str:
    """``"NS"`` or ``"EW"``."""
    return "NS" if seat in ("N", "S") else "EW"


def other(team: str) -> str:
    return "EW" if team == "NS" else "NS"


@dataclass(frozen=True)
class Outcome:
    """How one hand ended, as the hall needs it: the making side, the tricks the makers took,
    who went alone (maker or defender), and which side reneged (a revoke proven at the
    table), if any. ``thrown_in`` is a hand all passed: no points, but a deal played.

    >>> Outcome(makers="NS", tricks=3).march
    False
    """

    makers: Optional[str] = None
    tricks: int = 0
    alone: Optional[str] = None
    defender_alone: Optional[str] = None
    renege: Optional[str] = None
    thrown_in: bool = False

    @property
    def march(self) -> bool:
        return not self.thrown_in and self.renege is None and self.tricks == 5

    @property
    def euchred(self) -> bool:
        return not self.thrown_in and self.renege is None and self.tricks < 3

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Scoring:
    """Every number of a club's house scoring. Points are per seat: a player banks
    what their seat scores. Each field is one variant clubs play.

    >>> Scoring.preset("club").replace(sit_out_points=7).sit_out_points
    7
    """

    name: str = "custom"
    #: makers take 3 or 4 tricks
    point: int = 1
    #: makers take all five
    march: int = 2
    #: makers take fewer than 3: ``euchre`` points to each defender, or (``euchre_to`` =
    #: "makers") minus ``euchre`` to each maker
    euchre: int = 2
    euchre_to: str = "defenders"
    #: a lone maker takes 3 or 4 tricks (both seats of the side)
    loner_point: int = 1
    #: a lone maker takes all five: the side scores ``loner_march``; the loner's own seat
    #: ``loner_march_loner`` (5 in the "5 to the loner, 4 to the partner" variant)
    loner_march: int = 4
    loner_march_loner: int = 4
    #: a lone maker is euchred: ``loner_euchred`` to each defender (4, 3 or 2), or minus it
    #: to each maker when ``loner_euchred_to`` is "makers"
    loner_euchred: int = 2
    loner_euchred_to: str = "defenders"
    #: a defender who went alone euchres the makers (both seats of the defending side)
    lone_defender_euchre: int = 4
    #: a renege (a revoke proven at the table): the other side scores this and the hand
    #: ends; ``renege_lone`` when a lone hand was being played
    renege: int = 2
    renege_lone: int = 4
    #: a tie between the two sides at the end of a round: it "stand"s, or is played off by
    #: one more hand ("play off"; further hands while the tie lasts)
    tie: str = "stand"
    #: a player who sits a round out is credited ``sit_out_points`` ("points"), their own
    #: average per round played ("average", rounded to the nearest point), or nothing
    sit_out: str = "average"
    sit_out_points: int = 8

    def __post_init__(self):
        _validate(self)

    @classmethod
    def preset(cls, name: str) -> "Scoring":
        """One of :data:`PRESETS` (``standard``, ``club``, ``minus``, ``loner-bonus``)."""
        try:
            options = PRESETS[name]
        except KeyError:
            raise ScoringError(f"Unknown scoring preset {name!r}: choose one of "
                               f"{', '.join(PRESETS)}") from None
        return cls(name=name, **options)

    def replace(self, **options) -> "Scoring":
        """A copy with some numbers changed (validated); its name says so."""
        unknown = sorted(set(options) - OPTION_NAMES - {"name"})
        if unknown:
            raise ScoringError(f"Unknown scoring option {unknown[0]!r}: options are "
                               + ", ".join(sorted(OPTION_NAMES)))
        changed = {k: v for k, v in options.items() if k != "name" and getattr(self, k) != v}
        name = options.get("name", self.name if not changed else self.name + "+" + ",".join(
            f"{k}={v}" for k, v in sorted(changed.items())))
        return dataclasses.replace(self, **{**options, "name": name})

    @classmethod
    def from_config(cls, value) -> "Scoring":
        """From the night's configuration: a preset name, or a table with ``preset`` and
        options (``{"preset": "club", "sit_out_points": 7}``)."""
        if value is None:
            return cls.preset("standard")
        if isinstance(value, Scoring):
            return value
        if isinstance(value, str):
            return cls.preset(value)
        if not isinstance(value, dict):
            raise ScoringError(f"scoring must be a preset name ({', '.join(PRESETS)}) or a "
                               f"table of options, not {value!r}")
        value = dict(value)
        base = cls.preset(value.pop("preset", "standard"))
        name = value.pop("name", None)
        s = base.replace(**value) if value else base
        return dataclasses.replace(s, name=name) if name else s

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _validate(s: Scoring) -> None:
    for f in fields(s):
        v = getattr(s, f.name)
        expected = {"int": int, "str": str}[f.type]
        if type(v) is not expected:
            raise ScoringError(f"Scoring option {f.name} must be {f.type}, not {v!r}")
    for k in ("point", "march", "euchre", "loner_point", "loner_march", "loner_march_loner",
              "loner_euchred", "lone_defender_euchre", "renege", "renege_lone"):
        if not 0 <= getattr(s, k) <= 10:
            raise ScoringError(f"{k} is 0 to 10 points, not {getattr(s, k)}")
    for k in ("euchre_to", "loner_euchred_to"):
        if getattr(s, k) not in SIDES:
            raise ScoringError(f"{k} is 'defenders' (points to them) or 'makers' (points off "
                               f"them), not {getattr(s, k)!r}")
    if s.tie not in TIES:
        raise ScoringError(f"tie is 'stand' or 'play off', not {s.tie!r}")
    if s.sit_out not in SIT_OUTS:
        raise ScoringError(f"sit_out is 'points', 'average' or 'none', not {s.sit_out!r}")
    if not 0 <= s.sit_out_points <= 40:
        raise ScoringError(f"sit_out_points is 0 to 40, not {s.sit_out_points}")


OPTION_NAMES = frozenset(f.name for f in fields(Scoring)) - {"name"}

PRESETS = {
    # The common card-party sheet: 1 a hand, 2 a march or a euchre, 4 a lone march; a
    # renege gives the other side 2 (4 against a loner); a sit-out is credited the
    # player's own average.
    "standard": {},
    # A club's 8-hand rounds: euchring a loner pays 4, a tied round is played off by one
    # more hand, a sit-out earns 8 points (one a hand).
    "club": dict(loner_euchred=4, tie="play off", sit_out="points", sit_out_points=8),
    # Euchres cost the makers instead of paying the defenders (-2, -4 for a loner);
    # sit-outs earn 7.
    "minus": dict(euchre_to="makers", loner_euchred=4, loner_euchred_to="makers",
                  sit_out="points", sit_out_points=7),
    # The loner is rewarded: 5 to the loner and 4 to the partner on a lone march; a
    # euchred loner gives the defenders 3.
    "loner-bonus": dict(loner_march_loner=5, loner_euchred=3, tie="play off"),
}


def score_hand(s: Scoring, o: Outcome) -> dict:
    """Points each seat banks for one hand (``{"N": .., "E": .., "S": .., "W": ..}``).

    >>> score_hand(Scoring.preset("loner-bonus"), Outcome(makers="EW", tricks=5, alone="W"))
    {'N': 0, 'E': 4, 'S': 0, 'W': 5}
    >>> score_hand(Scoring.preset("standard"), Outcome(makers="NS", tricks=4, renege="NS"))
    {'N': 0, 'E': 2, 'S': 0, 'W': 2}
    """
    pts = {seat: 0 for seat in SEATS}
    if o.thrown_in or o.makers is None:
        return pts

    def give(team, p):
        for seat in TEAM_SEATS[team]:
            pts[seat] += p

    makers, defenders = o.makers, other(o.makers)
    if o.renege is not None:
        give(other(o.renege), s.renege_lone if (o.alone or o.defender_alone) else s.renege)
        return pts
    if o.tricks >= 3:
        if o.alone:
            if o.tricks == 5:
                give(makers, s.loner_march)
                pts[o.alone] = s.loner_march_loner
            else:
                give(makers, s.loner_point)
        else:
            give(makers, s.march if o.tricks == 5 else s.point)
        return pts
    if o.defender_alone:
        p, to = s.lone_defender_euchre, "defenders"
    elif o.alone:
        p, to = s.loner_euchred, s.loner_euchred_to
    else:
        p, to = s.euchre, s.euchre_to
    if to == "defenders":
        give(defenders, p)
    else:
        give(makers, -p)
    return pts


def team_points(s: Scoring, o: Outcome) -> dict:
    """What each side scores for the hand, as the table's score counts it (the loner's
    personal bonus left out): ``{"NS": .., "EW": ..}``. Decides who won the round.

    >>> team_points(Scoring.preset("loner-bonus"), Outcome(makers="EW", tricks=5, alone="W"))
    {'NS': 0, 'EW': 4}
    """
    pts = score_hand(s, o)
    return {team: min(pts[a], pts[b]) for team, (a, b) in TEAM_SEATS.items()}


def outcome_of_record(rec: dict) -> Optional[Outcome]:
    """The :class:`Outcome` of a referee hand record (``engine.referee.Referee.records()``),
    or None when the hand gave no result (misdeal, void, or still being played).

    A renege is the side with more proven revokes (equal numbers cancel, law 71). A law-50
    forfeit counts as a march by the lone side."""
    status = rec.get("status")
    res = rec.get("result")
    if status == "thrown in":
        return Outcome(thrown_in=True)
    if status != "over" or not res:
        return None
    makers = res.get("makers")
    tricks = (res.get("tricks") or {}).get(makers, 0)
    if res.get("law") == 50:
        return Outcome(makers=makers, tricks=5, alone=res.get("alone"))
    n = {"NS": 0, "EW": 0}
    for r in rec.get("revokes") or ():
        if r.get("side") in n:
            n[r["side"]] += 1
    renege = None if n["NS"] == n["EW"] else ("NS" if n["NS"] > n["EW"] else "EW")
    return Outcome(makers=makers, tricks=tricks, alone=res.get("alone"),
                   defender_alone=res.get("defender_alone"), renege=renege)


def outcome_of_result(ev: dict) -> Outcome:
    """The :class:`Outcome` of a hand result entered at a table without a camera, or by the
    director: ``{"makers": "NS", "tricks": 3, "alone": null}``. Raises ``ScoringError``
    with one line for a result that cannot be."""
    makers = ev.get("makers")
    if makers not in ("NS", "EW"):
        raise ScoringError(f"makers is 'NS' or 'EW', not {makers!r}")
    tricks = ev.get("tricks")
    if type(tricks) is not int or not 0 <= tricks <= 5:
        raise ScoringError(f"tricks is the makers' tricks, 0 to 5, not {tricks!r}")
    alone = ev.get("alone")
    if alone is not None and (alone not in SEATS or team_of(alone) != makers):
        raise ScoringError(f"alone is the seat of the maker who went alone ({' or '.join(TEAM_SEATS[makers])}) "
                           f"or null, not {alone!r}")
    return Outcome(makers=makers, tricks=tricks, alone=alone)
