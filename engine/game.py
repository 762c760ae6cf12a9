"""A game of Euchre: hands in sequence, the deal passing left, the score to the target, the rubber."""
from __future__ import annotations

import json
import random
from typing import Optional

from engine.cards import SEATS, next_seat, other_team
from engine.hand import Hand, IllegalAction
from engine.rules import Rules


class Game:
    """Hands played to the target (and, where the rules have one, a rubber of three games).

    >>> g = Game(Rules.preset("standard"), first_dealer="S", seed=1)
    >>> g.hand.dealer_seat, g.score
    ('S', {'NS': 0, 'EW': 0})

    ``apply`` plays the current hand's next action; when a hand ends it is scored and the
    next one is dealt by the player on the dealer's left, also after a hand thrown in.
    """

    def __init__(self, rules: Rules, first_dealer: str = "S", seed: Optional[int] = None,
                 deals: Optional[list] = None):
        if first_dealer not in SEATS:
            raise IllegalAction(f"{first_dealer!r} is not a seat: use N, E, S or W")
        self.rules = rules
        self.first_dealer = first_dealer
        self.seed = seed
        self._rng = random.Random(seed)
        self._deals = list(deals) if deals is not None else None
        self.hands: list = []          # every hand of the match, the current one last
        self.score = {"NS": 0, "EW": 0}
        self.games: list = []          # finished games: {"winner", "score", "game_points"}
        self.rubber_points = {"NS": 0, "EW": 0}
        self.winner: Optional[str] = None
        self._deal(first_dealer)

    # ---------------------------------------------------------------- play
    @property
    def hand(self) -> Hand:
        """The hand being played (the last one once the game is over)."""
        return self.hands[-1]

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def apply(self, action, seat: Optional[str] = None) -> None:
        """Play the current hand's next action; deals the next hand when this one ends."""
        if self.winner is not None:
            raise IllegalAction(f"The game is over: {self.winner} won")
        hand = self.hand
        hand.apply(action, seat=seat)
        if hand.is_over:
            self._end_of_hand(hand)

    def legal_actions(self) -> list:
        return [] if self.winner is not None else self.hand.legal_actions()

    def _deal(self, dealer: str) -> None:
        n = len(self.hands)
        # Always shuffle, even when a recorded deal is used, so that a replayed game
        # continues with the same deals the original would have had.
        hand = Hand.deal(self.rules, dealer=dealer, rng=self._rng)
        if self._deals is not None and n < len(self._deals):
            d = self._deals[n]
            if d["dealer"] != dealer:
                raise IllegalAction(f"Recorded hand {n + 1} was dealt by {d['dealer']}, "
                                    f"but the deal had passed to {dealer}")
            hand = Hand.deal(self.rules, dealer=dealer, hands=d["hands"], upcard=d["upcard"],
                             kitty=d.get("kitty"))
        hand.score = (self.score["NS"], self.score["EW"])
        self.hands.append(hand)

    def _end_of_hand(self, hand: Hand) -> None:
        for team, p in hand.result.points.items():
            self.score[team] += p
        target = self.rules.target
        leaders = [t for t in ("NS", "EW") if self.score[t] >= target]
        if leaders:
            # Both sides cannot reach the target in one hand: only one side scores per hand.
            self._end_of_game(leaders[0])
            if self.winner is not None:
                return
        self._deal(next_seat(hand.dealer_seat))

    def _end_of_game(self, team: str) -> None:
        if not self.rules.rubber:
            self.games.append({"winner": team, "score": dict(self.score), "game_points": 1})
            self.winner = team
            return
        # The 1888 laws, law 7: a game counts 1, or 2 when the losers scored nothing; the side
        # that wins two games takes the rubber and 2 points more.
        loser = other_team(team)
        gp = 2 if self.score[loser] == 0 else 1
        self.games.append({"winner": team, "score": dict(self.score), "game_points": gp})
        self.rubber_points[team] += gp
        if sum(1 for g in self.games if g["winner"] == team) == 2:
            self.rubber_points[team] += 2
            self.winner = team
            return
        self.score = {"NS": 0, "EW": 0}

    # ---------------------------------------------------------------- records
    def to_dict(self) -> dict:
        """Rules, first dealer, and every hand's deal and actions: replays exactly."""
        return {"rules": self.rules.to_dict(), "first_dealer": self.first_dealer,
                "seed": self.seed, "hands": [h.to_dict() for h in self.hands]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> "Game":
        """Rebuild a game by replaying its recorded deals and actions."""
        rules = Rules.from_dict(data["rules"])
        g = cls(rules, first_dealer=data["first_dealer"], seed=data.get("seed"),
                deals=data["hands"])
        for i, h in enumerate(data["hands"]):
            if len(g.hands) != i + 1:
                raise IllegalAction(f"Recorded hand {i + 1} comes after the game ended")
            for seat, a in h["actions"]:
                g.apply(a, seat=seat)
        return g

    @classmethod
    def from_json(cls, text: str) -> "Game":
        return cls.from_dict(json.loads(text))
