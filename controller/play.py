"""`euchre-table play`: a person plays one seat in the terminal against computer players.

What the terminal shows is what a player at a real table would see: the person's own
cards, the up-card, the bids, the cards played, who won each trick and who deals; never
another player's cards, and never the dealer's discard unless the person is the dealer
(it is laid aside face down). Cards are written one way throughout, with suit symbols
(``A♦``); the person may type them either way (``AD``, ``ad``, ``A♦``, ``10h``, ``th``).
"""
from __future__ import annotations

import random
import re
from typing import Callable, Optional

from engine import Game, Rules
from engine.bots import make_bot
from engine.cards import SEAT_NAMES, SUIT_NAMES, SUIT_SYMBOLS, Card, CardError, partner
from engine.hand import Action, IllegalAction

LEVELS = ["easy", "medium", "hard", "insane"]


def card_text(card) -> str:
    """``A♦`` for the ace of diamonds: the one notation for cards in the terminal."""
    return Card(card).symbol


def action_words(action: Action, seat: str, you: str, upcard_suit: Optional[str] = None) -> str:
    """An action as a sentence: ``North orders up hearts``, ``You play A♦``."""
    who = "You" if seat == you else SEAT_NAMES[seat]
    s = seat != you          # third person: verbs take an s
    k = action.kind
    alone = " alone" if action.alone else ""
    if k == "pass":
        return f"{who} pass{'es' if s else ''}"
    if k == "order":
        suit = SUIT_NAMES[upcard_suit] if upcard_suit else "the up-card's suit"
        return f"{who} order{'s' if s else ''} up {suit}{alone}"
    if k == "call":
        return f"{who} call{'s' if s else ''} {SUIT_NAMES[action.suit]}{alone}"
    if k == "take":
        return f"{who} take{'s' if s else ''} it alone"
    if k == "defend":
        return f"{who} defend{'s' if s else ''} alone"
    if k == "discard":
        return f"{who} discard{'s' if s else ''} {card_text(action.card)}"
    if k == "play":
        return f"{who} play{'s' if s else ''} {card_text(action.card)}"
    return f"{who}: {action}"


def legal_words(action: Action, upcard_suit: Optional[str]) -> str:
    """A legal action as a menu item: ``order up ♥``, ``play A♦``, ``call ♠ alone``."""
    alone = " alone" if action.alone else ""
    if action.kind == "order":
        return f"order up {SUIT_SYMBOLS[upcard_suit]}{alone}" if upcard_suit else str(action)
    if action.kind == "call":
        return f"call {SUIT_SYMBOLS[action.suit]}{alone}"
    if action.kind in ("play", "discard"):
        return f"{action.kind} {card_text(action.card)}"
    return str(action)


def parse_answer(answer: str, legal: list, phase: str) -> tuple:
    """What the person typed, as ``(action, None)`` or ``(None, why not)``: a menu
    number, a card (``AD``, ``A♦``), or an action's text (``pass``, ``call H alone``)."""
    text = answer.strip()
    if text.isdigit():
        n = int(text)
        if 1 <= n <= len(legal):
            return legal[n - 1], None
        return None, f"Type 1 to {len(legal)}"
    if phase in ("play", "discard"):
        try:
            card = Card(text)
        except (CardError, ValueError):
            card = None
        if card is not None:
            return Action(f"{phase} {card}"), None
    try:
        return Action(text), None
    except (IllegalAction, CardError, ValueError) as exc:
        return None, f"{exc}" if str(exc) else f"{text!r} is not an action"


def play(args, input_fn: Callable[[str], str] = input, out: Callable[[str], None] = print,
         game: Optional[Game] = None) -> int:
    """A person plays one seat; the others are computer players (the partner at least
    Hard). Type a number, a card, an action, h for a hint, q to quit. ``game`` (tests)
    replaces the seeded game."""
    rules = Rules.parse(args.rules)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    you = args.seat
    bots = {}
    for i, s in enumerate("NESW"):
        if s == you:
            continue
        level = args.level
        if s == partner(you):
            level = max(level, "insane" if level == "insane" else "hard", key=LEVELS.index)
        bots[s] = make_bot(level, seed=seed + i)
    adviser = make_bot("hard", seed=seed)
    if game is None:
        game = Game(rules, first_dealer=random.Random(seed).choice("NESW"), seed=seed)
    out(f"You are {SEAT_NAMES[you]}; your partner is {SEAT_NAMES[partner(you)]}. Rules "
        f"{rules.name}, to {rules.target} points; seed {seed}. Type a number, a card (A♦ or "
        "AD) or an action (pass, order, call H); h for a hint, q to quit.")
    reported_hands = 0
    announced = None
    while not game.is_over:
        hand = game.hand
        if announced is not hand:
            announced = hand
            out(f"\nHand {len(game.hands)}: {_who(hand.dealer_seat, you)} "
                f"deal{'s' if hand.dealer_seat != you else ''}; the up-card is "
                f"{card_text(hand.upcard)}. Score: North-South {game.score['NS']}, "
                f"East-West {game.score['EW']}")
        seat = hand.to_act
        upsuit = Card(hand.upcard).suit
        tricks_before = len(hand.tricks)
        if seat != you:
            action = bots[seat].choose(hand.view(seat))
            phase = hand.phase
            game.apply(action)
            if phase == "discard":
                # Face down: the others see only that the dealer discarded.
                out(f"  {SEAT_NAMES[seat]} takes the up-card and discards face down")
            else:
                out(f"  {action_words(action, seat, you, upsuit)}")
        else:
            action = _ask(game, you, input_fn, out, adviser, upsuit)
            if action is None:
                out("Game left unfinished.")
                return 0
        if len(hand.tricks) > tricks_before:
            winner = "NESW"[hand.tricks[-1][2]]
            out(f"  {_who(winner, you)} win{'s' if winner != you else ''} trick "
                f"{len(hand.tricks)}")
        done = [h for h in game.hands if h.is_over]
        for h in done[reported_hands:]:
            reported_hands += 1
            out(result_words(h, you))
    w = game.winner
    out(f"\nGame over: {_side(w)} win, {game.score[w]} to "
        f"{game.score['EW' if w == 'NS' else 'NS']}. "
        + ("You win!" if w in (("NS" if you in "NS" else "EW"),) else "Your side lost."))
    return 0


_CARD_WORD = re.compile(r"\b(10|[9TJQKA])([SHDC])\b")


def symbols(text: str) -> str:
    """Card texts in a sentence written with suit symbols: ``play JD`` -> ``play J♦``."""
    return _CARD_WORD.sub(lambda m: card_text(m.group(1) + m.group(2)), text)


def _who(seat: str, you: str) -> str:
    return "You" if seat == you else SEAT_NAMES[seat]


def _side(team: str) -> str:
    return "North-South" if team == "NS" else "East-West"


def result_words(h, you: str) -> str:
    """A finished hand in words: who made trump, tricks, points, the score after."""
    r = h.result
    before = {"NS": h.score[0], "EW": h.score[1]}
    after = {t: before[t] + r.points[t] for t in before}
    if r.thrown_in:
        return "All passed twice: the hand is thrown in."
    makers = _side(r.makers)
    other = "EW" if r.makers == "NS" else "NS"
    alone = f", {_who(r.alone, you).lower() if r.alone == you else SEAT_NAMES[r.alone]} alone" \
        if r.alone else ""
    n = r.tricks[r.makers]
    if r.euchred:
        what = (f"{makers} called {SUIT_NAMES[r.trump]}{alone} and took {n} trick"
                f"{'s' if n != 1 else ''}: euchred, {r.points[other]} points to {_side(other)}")
    else:
        how = "a march" if r.march else "made it"
        what = (f"{makers} called {SUIT_NAMES[r.trump]}{alone} and took {n} tricks: {how}, "
                f"{r.points[r.makers]} point{'s' if r.points[r.makers] != 1 else ''}")
    return (f"Hand over. {what}. Score: North-South {after['NS']}, East-West {after['EW']}.")


def _ask(game: Game, you: str, input_fn, out, adviser, upsuit: str) -> Optional[Action]:
    """Ask the person until a legal action is given; None at the end of the input or q."""
    hand = game.hand
    view = hand.view(you)
    legal = list(view.legal)
    trump = f"trump {SUIT_SYMBOLS[hand.trump]} ({SUIT_NAMES[hand.trump]})" if hand.trump else \
        f"up-card {card_text(hand.upcard)}"
    out(f"\nYour cards: {' '.join(card_text(c) for c in view.cards)}   {trump}")
    if view.trick:
        out("Trick so far: " + ", ".join(f"{_who(s, you)} {card_text(c)}" for s, c in view.trick))
    out("  " + "   ".join(f"{i + 1}) {legal_words(a, upsuit)}" for i, a in enumerate(legal)))
    single = len(legal) == 1 and legal[0].kind == "play"
    while True:
        try:
            answer = input_fn("> " if not single else "> (Enter plays it) ")
        except EOFError:
            out("")
            return None
        answer = answer.strip()
        if answer.lower() in ("q", "quit"):
            return None
        if answer.lower() in ("h", "hint", "?"):
            action, reason = adviser.advise(view)
            out(f"Hint: {legal_words(action, upsuit)}. {symbols(reason)}")
            continue
        if not answer:
            if single:
                action = legal[0]
            else:
                out(f"Type 1 to {len(legal)}, a card, h for a hint or q to quit")
                continue
        else:
            action, why = parse_answer(answer, legal, hand.phase)
            if action is None:
                out(why)
                continue
        try:
            game.apply(action, seat=you)
        except IllegalAction as exc:
            # The engine's reason ("Must follow suit: hearts were led. The jack of
            # diamonds is the left bower ..."), said to the person.
            out(str(exc).replace(f"{SEAT_NAMES[you]} does not", "You do not"))
            continue
        out(f"  {action_words(action, you, you, upsuit)}")
        return action
