"""What the speaker says: announcements in words, built from the game's facts."""
from __future__ import annotations

import re
from typing import Optional

from engine.cards import SEAT_NAMES, SUIT_NAMES, Card, parse_seat, parse_suit

_NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()


def number(n: int) -> str:
    """A small number in words, as a caller would say it: ``number(2) == "two"``."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def side(team_or_seat: str) -> str:
    """``"NS"`` (or ``"N-S"``, or a seat of it) → ``"North and South"``."""
    t = str(team_or_seat).replace("-", "").upper()
    if t in ("N", "S", "NS", "SN"):
        return "North and South"
    if t in ("E", "W", "EW", "WE"):
        return "East and West"
    raise ValueError(f"{team_or_seat!r} is not a side: use NS or EW")


def _team(team_or_seat: str) -> str:
    return "NS" if side(team_or_seat) == "North and South" else "EW"


def _points(n: int) -> str:
    return f"{number(n)} point" + ("" if n == 1 else "s")


def bid_phrase(seat: str, action: str, upcard_suit: Optional[str] = None,
               dealer: Optional[str] = None) -> str:
    """A bid in words. ``dealer`` lets the dealer's "order" be said as picking it up.

    >>> bid_phrase("W", "order alone", upcard_suit="H")
    'West orders up hearts and goes alone'
    >>> bid_phrase("W", "call S")
    'West calls spades'
    >>> bid_phrase("S", "order", upcard_suit="D", dealer="S")
    'South picks up diamonds'
    >>> bid_phrase("N", "pass")
    'North passes'
    """
    who = SEAT_NAMES[parse_seat(seat)]
    words = str(action).split()
    if not words:
        raise ValueError("an empty bid: expected pass, order, order alone, call H ...")
    alone = " and goes alone" if words[-1] == "alone" else ""
    if words[0] == "pass":
        return f"{who} passes"
    if words[0] == "order":
        suit = f" {SUIT_NAMES[parse_suit(upcard_suit)]}" if upcard_suit else ""
        if dealer is not None and parse_seat(dealer) == parse_seat(seat):
            return f"{who} picks up{suit or ' the up-card'}{alone}"
        return f"{who} orders up{suit or ' the up-card'}{alone}"
    if words[0] == "call" and len(words) >= 2:
        return f"{who} calls {SUIT_NAMES[parse_suit(words[1])]}{alone}"
    if words[:2] == ["defend", "alone"]:
        return f"{who} defends alone"
    if words[:2] == ["take", "alone"]:
        return f"{who} takes it alone"
    if words[0] == "discard":
        return f"{who} has discarded"  # the discard is secret: never say the card
    if words[0] == "play" and len(words) == 2:
        return play_phrase(seat, words[1])
    raise ValueError(f"{action!r} is not a bid: expected pass, order, order alone, call H, call H alone")


def play_phrase(seat: str, card) -> str:
    """``play_phrase("W", "JH") == "West plays the jack of hearts"``."""
    return f"{SEAT_NAMES[parse_seat(seat)]} plays the {Card(card).name}"


def trump_phrase(trump: str) -> str:
    """``trump_phrase("H") == "Hearts are trump"``."""
    return f"{SUIT_NAMES[parse_suit(trump)].capitalize()} are trump"


def turn_phrase(seat: str, bidding: bool = False) -> str:
    """``turn_phrase("E") == "East to play"``; ``bidding=True`` → ``"East to bid"``."""
    return f"{SEAT_NAMES[parse_seat(seat)]} to {'bid' if bidding else 'play'}"


def trick_phrase(winner: str) -> str:
    """Who takes the trick: a side or a seat.

    >>> trick_phrase("NS")
    'North and South take the trick'
    >>> trick_phrase("E")
    'East takes the trick'
    """
    if len(str(winner).replace("-", "")) == 2:
        return f"{side(winner)} take the trick"
    return f"{SEAT_NAMES[parse_seat(winner)]} takes the trick"


def hand_phrase(makers: str, points: dict, euchred: bool = False, march: bool = False,
                alone: Optional[str] = None) -> str:
    """The end of a hand in words, from the engine's result fields.

    >>> hand_phrase("EW", {"NS": 2, "EW": 0}, euchred=True)
    'East and West are euchred: two points to North and South'
    >>> hand_phrase("NS", {"NS": 1, "EW": 0})
    'North and South make it: one point'
    >>> hand_phrase("NS", {"NS": 4, "EW": 0}, march=True, alone="N")
    'North marches alone: four points to North and South'
    """
    maker_team = _team(makers)
    defenders = "EW" if maker_team == "NS" else "NS"
    makers_words = side(maker_team)
    if euchred:
        return f"{makers_words} are euchred: {_points(points.get(defenders, 0))} to {side(defenders)}"
    won = _points(points.get(maker_team, 0))
    if march and alone:
        return f"{SEAT_NAMES[parse_seat(alone)]} marches alone: {won} to {makers_words}"
    if march:
        return f"{makers_words} march: {won}"
    return f"{makers_words} make it: {won}"


def hand_phrase_from(result) -> str:
    """:func:`hand_phrase` from an engine hand result (``.makers .points .euchred .march .alone``)."""
    return hand_phrase(result.makers, result.points, euchred=result.euchred,
                       march=result.march, alone=result.alone)


def score_phrase(score: dict) -> str:
    """``score_phrase({"NS": 6, "EW": 4}) == "North and South six, East and West four"``."""
    return f"North and South {number(score['NS'])}, East and West {number(score['EW'])}"


def game_phrase(winner: str, score: dict) -> str:
    """``game_phrase("NS", {"NS": 10, "EW": 7}) == "North and South win the game, ten to seven"``."""
    team = _team(winner)
    loser = "EW" if team == "NS" else "NS"
    return f"{side(team)} win the game, {number(score[team])} to {number(score[loser])}"


_SYMBOLS = {"♠": "spades", "♥": "hearts", "♦": "diamonds", "♣": "clubs"}
_CARD_RE = re.compile(r"\b(10|[9JQKAT])([SHDC])\b")
_SEAT_RE = re.compile(r"\b([NESW])\b")
_SIDE_RE = re.compile(r"\b(N-S|E-W|NS|EW)\b")


def speakable(text: str) -> str:
    """A message for the screen turned into words a speech synthesiser reads well:
    suit symbols, cards, seat letters and sides become words.

    >>> speakable("Revoke by W in trick 2: 3 points to N-S")
    'Revoke by West in trick 2: 3 points to North and South'
    >>> speakable("Must follow ♥")
    'Must follow hearts'
    >>> speakable("JH is not in your hand")
    'jack of hearts is not in your hand'
    """
    for sym, name in _SYMBOLS.items():
        text = re.sub(rf"(\b(10|[9JQKAT]))?{sym}", lambda m, n=name: (
            Card(m.group(1) + {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}[n]).name
            if m.group(1) else n), text)
    text = _CARD_RE.sub(lambda m: Card(m.group(0)).name, text)
    text = _SIDE_RE.sub(lambda m: side(m.group(1)), text)
    return _SEAT_RE.sub(lambda m: SEAT_NAMES[m.group(1)], text)
