"""The exact rules of Euchre: cards, rule options, one hand, a game; no I/O.

>>> from engine import Rules, Hand
>>> hand = Hand.deal(Rules.preset("standard"), dealer="S", seed=42)
>>> hand.to_act
'W'
"""
from engine.cards import DECK, SEATS, SUITS, Card, CardError, parse_cards  # noqa: F401
from engine.game import Game  # noqa: F401
from engine.hand import Action, Hand, HandResult, IllegalAction, View, score_hand  # noqa: F401
from engine.rules import Rules, RulesError  # noqa: F401
