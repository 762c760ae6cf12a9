"""The double-dummy solver against plain minimax over the engine's own legal moves."""
import random

import pytest

from engine import Hand, Rules
from engine.bots.solver import Solver


def minimax_tricks(hand):
    """Makers' final tricks with perfect play, by brute force through the engine."""
    if hand.is_over:
        return hand.won[hand.maker & 1]
    vals = []
    for a in hand.legal_actions():
        h = hand.copy()
        h.apply(a)
        vals.append(minimax_tricks(h))
    maximizing = (hand.to_act_i & 1) == (hand.maker & 1)
    return max(vals) if maximizing else min(vals)


def positions(rules, seed, count, bid):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        h = Hand.deal(rules, dealer=rng.choice("NESW"), rng=rng)
        h.apply(bid)
        while h.phase != "play":
            h.apply(rng.choice([a for a in h.legal_actions() if a.kind != "defend"]))
        # Play a few cards so that mid-trick positions are covered too, keeping brute
        # force affordable (at most ~12 cards left).
        for _ in range(rng.randrange(6, 10)):
            if h.is_over:
                break
            h.apply(rng.choice(h.legal_actions()))
        if not h.is_over:
            out.append(h)
    return out


@pytest.mark.parametrize("bid", ["order", "order alone"])
def test_solver_agrees_with_minimax(bid):
    rules = Rules.preset("standard")
    checked = 0
    for h in positions(rules, 11 if bid == "order" else 12, 25, bid):
        exact = minimax_tricks(h)
        s = Solver(h.trump, h.maker & 1, h.out)
        hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
        trick = tuple((p, c.index) for p, c in h.trick)
        won = h.won[h.maker & 1]
        for n in range(won + 1, 6):
            assert s.at_least(hands, h.to_act_i, n - won, trick) == (exact >= n), (h.to_dict(), n)
        assert s.maker_tricks(hands, h.to_act_i, (1, 2, 3, 4, 5), trick, won) == exact
        checked += 1
    assert checked == 25


def test_solver_finds_the_only_winning_line():
    # Hearts trump, two tricks left, North (maker) to lead. Leading the right bower
    # pulls East's last trump and the ace of spades then wins too; leading the ace
    # first lets East trump it.
    from engine.cards import mask_of, parse_cards
    hands = [mask_of(parse_cards(t)) for t in ("JH AS", "9H 9C", "9D 10D", "10C QC")]
    s = Solver("H", maker_team=0)
    assert s.at_least(hands, leader=0, need=2)
    after_ace = [hands[0] & ~parse_cards("AS")[0].bit] + hands[1:]
    assert not s.at_least(after_ace, leader=0, need=2, trick=((0, parse_cards("AS")[0].index),))
