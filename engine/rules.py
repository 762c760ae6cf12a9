"""Rule options of Euchre, validated, with the named presets the table offers."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields


class RulesError(ValueError):
    """An unknown option, a value out of range, or options that contradict each other."""


LONE_LEADS = ("left_of_dealer", "left_of_loner")
REVOKE_PENALTIES = ("lose_hand", "points")


@dataclass(frozen=True)
class Rules:
    """The house rules a table plays by. Every field is one point where published rules
    differ; its comment says which source plays it which way (the sources are listed in
    ``docs/engine.md``: skill.games Euchre, Cardems Euchre, the Somerset Club's 1888
    *Rules of Euchre* with their law numbers, a general rules page, Solitaire Parlor
    Euchre).

    >>> Rules.preset("standard").target
    10
    >>> Rules.preset("standard").replace(stick_the_dealer=True).stick_the_dealer
    True
    """

    name: str = "custom"
    #: points to win a game (10; 5 in the 1888 laws, law 2)
    target: int = 10
    #: in round 2 the dealer may not pass (an option at skill.games, the default in Solitaire Parlor Euchre)
    stick_the_dealer: bool = False
    #: a dealer's partner who orders up in round 1 must play alone (the Canadian loner of skill.games)
    canadian_loner: bool = False
    #: the dealer still takes the up-card when the dealer's partner goes alone (skill.games and Solitaire Parlor
    #: Euchre: no)
    dealer_picks_up_when_partner_alone: bool = False
    #: who leads when someone is alone: left of the dealer (or the next seat if that one
    #: sits out; Solitaire Parlor Euchre) or left of the lone player (skill.games, the
    #: general rules page)
    lone_lead: str = "left_of_dealer"
    #: a defender may declare alone after trump is fixed and before the first lead (the general
    #: rules page)
    defend_alone: bool = False
    #: when both sides are alone the lone defender leads (the general rules page);
    #: off in OpenSpiel
    lone_defender_leads: bool = False
    #: a lone defender's side scores this for a euchre of 3 or 4 tricks (the general
    #: rules page: 2)
    lone_defender_euchre_points: int = 2
    #: … and this for taking all five (the general rules page: 4)
    lone_defender_march_points: int = 4
    #: defenders' points for euchring a lone maker (2 at skill.games, Cardems and
    #: Solitaire Parlor Euchre; 4 in the 1888 laws, law 3)
    lone_euchre_points: int = 2
    #: the 1888 laws, laws 74-76: after eldest orders, third hand may take over alone; after
    #: second hand assists, the dealer may take over alone
    overcall_alone: bool = False
    #: best of three games, scored as in the 1888 laws, laws 1 and 7
    rubber: bool = False
    #: "lose_hand" (makers revoking are euchred, defenders revoking give a march) or
    #: "points" (the 1888 laws, law 63: 3 points, 5 when a lone hand is involved)
    revoke_penalty: str = "lose_hand"
    #: the dealer may discard the up-card just taken (OpenSpiel forbids it)
    dealer_may_discard_upcard: bool = True
    #: the 1888 laws, law 50: when an opponent of a lone player throws the hand face up or fails
    #: to play to a trick, the lone side scores this many points (0: no such law)
    lone_hand_forfeit_points: int = 0

    def __post_init__(self):
        _validate(self)

    @classmethod
    def preset(cls, name: str) -> "Rules":
        """One of ``standard``, ``stick-the-dealer``, ``somerset-1888``, ``openspiel``."""
        try:
            options = PRESETS[name]
        except (KeyError, TypeError):
            raise RulesError(f"Unknown rules preset {str(name)[:40]!r}: choose one of "
                             f"{', '.join(PRESETS)}") from None
        return cls(name=name, **options)

    def replace(self, **options) -> "Rules":
        """A copy with some options changed (validated); the name says it was changed."""
        unknown = sorted(set(options) - OPTION_NAMES)
        if unknown:
            raise RulesError(f"Unknown rule option {unknown[0]!r}: options are "
                             + ", ".join(sorted(OPTION_NAMES)))
        changed = {k: v for k, v in options.items() if getattr(self, k) != v}
        name = options.get("name", self.name if not changed else self.name + "+" + ",".join(
            f"{k}={v}" for k, v in sorted(changed.items())))
        return dataclasses.replace(self, name=name, **{k: v for k, v in options.items() if k != "name"})

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Rules":
        unknown = sorted(set(data) - OPTION_NAMES - {"name"})
        if unknown:
            raise RulesError(f"Unknown rule option {unknown[0]!r}")
        return cls(**data)

    @classmethod
    def parse(cls, spec: str) -> "Rules":
        """A preset name, optionally followed by options: ``"standard,stick_the_dealer=true"``."""
        parts = [p.strip() for p in spec.split(",") if p.strip()]
        rules = cls.preset(parts[0]) if parts else cls.preset("standard")
        options = {}
        for part in parts[1:]:
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep:
                raise RulesError(f"Cannot read rule option {part[:40]!r}: write name=value, "
                                 "e.g. target=5")
            if key not in OPTION_NAMES:
                raise RulesError(f"Unknown rule option {key[:40]!r}: options are "
                                 + ", ".join(sorted(OPTION_NAMES)))
            if key in options:
                raise RulesError(f"The rule option {key} is given twice: give it once")
            options[key] = _coerce(key, raw)
        return rules.replace(**options) if options else rules


def _coerce(key: str, raw: str):
    kind = {f.name: f.type for f in fields(Rules)}[key]
    raw = raw.strip()
    if kind == "bool":
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise RulesError(f"{key} is on or off: write {key}=true or {key}=false, not {raw[:40]!r}")
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise RulesError(f"{key} is a whole number, not {raw[:40]!r}") from None
    if len(raw) > 40:
        raise RulesError(f"{key}={raw[:20]!r}...: too long for any setting of {key}")
    return raw


def _validate(r: Rules) -> None:
    for f in fields(r):
        value = getattr(r, f.name)
        # With postponed annotations a field's type is its name: "bool", "int", "str".
        expected = {"bool": bool, "int": int, "str": str}[str(f.type)]
        if type(value) is not expected:
            raise RulesError(f"Rule option {f.name} must be {f.type}, not {value!r}")
    if not 1 <= r.target <= 100:
        raise RulesError(f"target must be between 1 and 100 points, not {r.target}")
    if r.lone_lead not in LONE_LEADS:
        raise RulesError(f"lone_lead must be one of {', '.join(LONE_LEADS)}, not {r.lone_lead!r}")
    if r.revoke_penalty not in REVOKE_PENALTIES:
        raise RulesError(
            f"revoke_penalty must be one of {', '.join(REVOKE_PENALTIES)}, not {r.revoke_penalty!r}")
    if r.lone_euchre_points not in (2, 4):
        raise RulesError(f"lone_euchre_points is 2 or 4, not {r.lone_euchre_points}")
    if not 1 <= r.lone_defender_euchre_points <= r.lone_defender_march_points <= 8:
        raise RulesError("a lone defender's points must satisfy 1 <= lone_defender_euchre_points"
                         " <= lone_defender_march_points <= 8")
    if r.lone_defender_leads and not r.defend_alone:
        raise RulesError("lone_defender_leads only applies when defend_alone is on: "
                         "turn defend_alone on, or lone_defender_leads off")
    if not 0 <= r.lone_hand_forfeit_points <= 8:
        raise RulesError("lone_hand_forfeit_points is 0 (off) to 8, not "
                         f"{r.lone_hand_forfeit_points}")
    if r.canadian_loner and r.overcall_alone:
        # Under the Canadian loner the dealer's partner must order alone, and law 75 would
        # then let the dealer take that lone hand over: two rules claiming the same seat's
        # lone hand. No seed plays both; refuse rather than guess an order between them.
        raise RulesError("canadian_loner and overcall_alone cannot both be on: both decide "
                         "who plays the dealer's side alone. Choose one.")


OPTION_NAMES = frozenset(f.name for f in fields(Rules)) - {"name"}

PRESETS: dict[str, dict] = {
    # North American rules as skill.games and Cardems Euchre play them by default.
    "standard": dict(lone_lead="left_of_loner"),
    # Solitaire Parlor Euchre as played: stick the dealer on, the lead from left of the dealer.
    "stick-the-dealer": dict(stick_the_dealer=True, lone_lead="left_of_dealer"),
    # The Somerset Club of Boston's 1888 laws: 5-point games in rubbers, 4 for euchring a lone
    # hand, overcalls alone, revokes cost points. The turned card always goes to the dealer
    # when it is taken (laws 74-76 have no exception for a partner's lone hand).
    "somerset-1888": dict(target=5, lone_euchre_points=4, overcall_alone=True, rubber=True,
                          revoke_penalty="points", dealer_picks_up_when_partner_alone=True,
                          lone_lead="left_of_dealer", lone_hand_forfeit_points=5),
    # The rules of OpenSpiel's euchre, for move-by-move comparison (see tests).
    "openspiel": dict(stick_the_dealer=True, dealer_picks_up_when_partner_alone=True,
                      lone_lead="left_of_dealer", lone_defender_euchre_points=4,
                      lone_defender_march_points=4, dealer_may_discard_upcard=False),
}
