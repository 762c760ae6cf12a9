"""`euchre-table play`: secrets kept, cards by name, the engine's reasons, one notation, words for people."""
from __future__ import annotations

import argparse
import re

from controller.play import _ask, parse_answer, play
from engine import Game, Rules
from engine.bots import make_bot

STANDARD = Rules.preset("standard")


def args(**kw):
    base = dict(seat="S", level="easy", rules="standard", seed=5)
    base.update(kw)
    return argparse.Namespace(**base)


def run_game(answer="1", **kw):
    lines = []
    assert play(args(**kw), input_fn=lambda prompt: answer, out=lines.append) == 0
    return lines


def test_a_whole_game_keeps_the_others_discards_secret_and_speaks_plainly():
    lines = run_game()
    text = "\n".join(lines)
    assert "Game over:" in lines[-1]
    others = [ln for ln in lines if re.search(r"(North|East|West)\b.*discard", ln)]
    assert others and all("discards face down" in ln for ln in others)
    assert not re.search(r"(North|East|West)[^\n]*discard[^\n]*[0-9JQKA][♠♥♦♣SHDC]\b", text)
    # One notation for cards: symbols, never JH-style letters (but the first line says
    # that AD may be typed).
    assert not re.search(r"\b(10|[9JQKA])[SHDC]\b", "\n".join(lines[1:]))
    # Who deals, who wins each trick, the hand's result in words (not a dict).
    assert re.search(r"Hand 1: (You|North|East|South|West) deals?", text)
    assert re.search(r"(You|North|East|West) wins? trick 5", text)
    assert "Hand over." in text and "{" not in text and "Score: North-South" in text


def test_an_illegal_card_gets_the_engines_reason_and_the_left_bower_is_named():
    game = Game(STANDARD, first_dealer="S", deals=[{
        "dealer": "S", "upcard": "9H", "kitty": ["9C", "10C", "JH"],
        "hands": {"S": "JD KD 9S 10S QS", "W": "AD AC KC QC JC", "N": "9D 10D JS KS AS",
                  "E": "QD AH KH QH 10H"}}])
    game.apply("order", seat="W")           # hearts are trump; South, the dealer, takes 9H
    game.apply("discard QS", seat="S")
    game.apply("play AD", seat="W")
    game.apply("play 9D", seat="N")
    game.apply("play QD", seat="E")
    answers = iter(["JD", "A♣", "K♦"])
    lines = []
    action = _ask(game, "S", lambda prompt: next(answers), lines.append,
                  make_bot("easy", seed=1), "H")
    text = "\n".join(lines)
    assert "Must follow suit: diamonds were led" in text
    assert "left bower" in text                       # the engine's own explanation
    assert "You do not hold the ace of clubs" in text
    assert str(action) == "play KD" and "You play K♦" in text


def test_cards_are_accepted_by_name_and_with_symbols():
    legal = []
    assert str(parse_answer("AD", legal, "play")[0]) == "play AD"
    assert str(parse_answer("a♦", legal, "play")[0]) == "play AD"
    assert str(parse_answer("10h", legal, "discard")[0]) == "discard 10H"
    assert str(parse_answer("call h alone", legal, "round 2")[0]) == "call H alone"
    assert parse_answer("7", ["pass"], "round 1")[1] == "Type 1 to 1"


def test_with_one_legal_card_enter_plays_it():
    # Diamonds led, South holds one diamond: it is the only legal card.
    game = Game(STANDARD, first_dealer="S", deals=[{
        "dealer": "S", "upcard": "9H", "kitty": ["9C", "10C", "JH"],
        "hands": {"S": "KD 9S 10S QS JS", "W": "AD AC KC QC JC", "N": "9D 10D JD KS AS",
                  "E": "QD AH KH QH 10H"}}])
    game.apply("order", seat="W")
    game.apply("discard QS", seat="S")
    game.apply("play AD", seat="W")
    game.apply("play 9D", seat="N")
    game.apply("play QD", seat="E")
    prompts, lines = [], []
    action = _ask(game, "S", lambda prompt: prompts.append(prompt) or "", lines.append,
                  make_bot("easy", seed=1), "H")
    assert str(action) == "play KD" and "Enter plays it" in prompts[0]


def test_end_of_input_leaves_the_game_without_a_traceback():
    def eof(prompt):
        raise EOFError
    lines = []
    assert play(args(), input_fn=eof, out=lines.append) == 0
    assert lines[-1] == "Game left unfinished."
