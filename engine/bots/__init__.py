"""Computer players for any seat at four levels (easy, medium, hard, insane) that see only their own view.

>>> from engine import Hand, Rules
>>> from engine.bots import make_bot
>>> hand = Hand.deal(Rules.preset("standard"), dealer="S", seed=42)
>>> bot = make_bot("medium", seed=7)
>>> bot.choose(hand.view(hand.to_act)) in hand.legal_actions()
True

Every bot has ``choose(view)`` → action and ``advise(view)`` → ``(action, reason)``,
where ``view`` is ``hand.view(seat)`` for the seat to act. Hard and Insane search within a
time budget per decision (seconds, ``budget=``), read through an injectable ``clock``
(default ``time.perf_counter``): the only clock the engine package reads, and only
inside the bots' search loop.
"""
from __future__ import annotations

import time
from typing import Callable, Iterable, Optional

from engine.bots.medium import EasyBot, MediumBot, RandomBot
from engine.bots.insane import InsaneBot
from engine.bots.search import SearchBot

LEVELS = ("easy", "medium", "hard", "insane")
"""The playing levels, weakest first (seed 000)."""

DEFAULTS = {
    # Per-decision budget and the most deals solved; sized so that the median decision
    # stays under 100 ms (Hard) and 300 ms (Insane) on one core of a desktop machine.
    "hard": dict(samples=48, budget=0.08),
    "insane": dict(samples=160, budget=0.25, work=150_000),
}


def make_bot(level: str, seed: Optional[int] = None, budget=...,
             samples: Optional[int] = None, clock: Callable[[], float] = time.perf_counter,
             scale: float = 1.0):
    """A computer player. ``level`` is one of LEVELS (or ``"random"``, a floor for
    benchmarks). For Hard and Insane, ``budget`` is the time per decision in seconds
    (None: no limit, exactly ``samples`` deals, fully reproducible) and ``clock`` the
    monotonic clock it is measured with. ``scale`` multiplies the level's own budget and
    deals (``scale=0.25``: a quarter of them, as on a machine four times slower).

    >>> make_bot("hard", seed=1, budget=0.05).level
    'hard'
    """
    name = str(level).strip().lower()
    if name == "easy":
        return EasyBot(seed)
    if name == "medium":
        return MediumBot(seed)
    if name == "random":
        return RandomBot(seed)
    if name in DEFAULTS:
        options: dict = dict(DEFAULTS[name])
        if scale <= 0:
            raise ValueError(f"scale must be above 0, not {scale}")
        options["samples"] = max(1, round(options["samples"] * scale))
        options["budget"] = options["budget"] * scale
        if options.get("work") is not None:
            options["work"] = max(1, round(options["work"] * scale))
        if budget is not ...:
            options["budget"] = budget
        if samples is not None:
            options["samples"] = samples
        if name == "insane":
            return InsaneBot(seed=seed, clock=clock, **options)
        return SearchBot(seed=seed, clock=clock, level=name, **options)
    raise ValueError(f"Unknown computer level {level!r}: choose one of {', '.join(LEVELS)}")


def partner_level(level: str) -> str:
    """The level of the computer partnering a person: at least Hard, and Insane on the
    Insane level (seed 000).

    >>> partner_level("easy"), partner_level("insane")
    ('hard', 'insane')
    """
    name = str(level).strip().lower()
    if name not in LEVELS:
        raise ValueError(f"Unknown computer level {level!r}: choose one of {', '.join(LEVELS)}")
    return name if LEVELS.index(name) >= LEVELS.index("hard") else "hard"


def seat_levels(human_seats: Iterable[str], level: str) -> dict:
    """The level of each computer seat at a table where people sit in ``human_seats``:
    a person's partner plays at least Hard, the opponents at the chosen level.

    >>> seat_levels(["S"], "medium")
    {'N': 'hard', 'E': 'medium', 'W': 'medium'}
    """
    partners = {"N": "S", "S": "N", "E": "W", "W": "E"}
    humans = set(human_seats)
    unknown = humans - set(partners)
    if unknown:
        raise ValueError(f"{sorted(unknown)[0]!r} is not a seat: use N, E, S or W")
    own = partner_level(level) and str(level).strip().lower()
    return {s: (partner_level(level) if partners[s] in humans else own)
            for s in ("N", "E", "S", "W") if s not in humans}


__all__ = ["LEVELS", "make_bot", "partner_level", "seat_levels", "EasyBot", "MediumBot",
           "RandomBot", "SearchBot", "InsaneBot"]
