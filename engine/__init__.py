"""The exact rules of Euchre: cards, rule options, one hand, a game; no I/O."""
from engine.cards import Card, DECK, SEATS, SUITS, parse_cards  # noqa: F401
