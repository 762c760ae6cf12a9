"""The solver's direct answer with two tricks left against its general search: the same answers, the same values and best cards."""
import random

import pytest

from engine import Hand, Rules
from engine.bots import solver as solver_module
from engine.bots.search import _thresholds
from engine.bots.solver import NODE_WORK, TWO_WORK, Solver


class GeneralSolver(Solver):
    """The solver with two tricks left answered by its general search (alpha-beta over
    both tricks)."""
    __slots__ = ()

    def _both(self, h, seats, side):
        leader = seats[0]
        alive = h[0] | h[1] | h[2] | h[3]
        if side == self.mk:
            return self._play(h, leader, 0, 0, leader, 0, alive, 2)
        return not self._play(h, leader, 0, 0, leader, 0, alive, 1)


RULES = [Rules.preset("standard"), Rules.preset("standard").replace(defend_alone=True)]


def played_to(rules, seed, cards_left):
    """A hand bid at random (lone hands and lone defenders often) and played at random
    until its player to act holds ``cards_left`` cards (mid-trick or not); None if over."""
    rng = random.Random(seed)
    h = Hand.deal(rules, dealer=rng.choice("NESW"), rng=rng)
    while h.phase != "play" and not h.is_over:
        legal = h.legal_actions()
        bold = [a for a in legal if a.alone or a.kind in ("order", "call", "take")]
        h.apply(rng.choice(bold if bold and rng.random() < 0.5 else legal))
    while not h.is_over and (h.hands[h.to_act_i].bit_count() > cards_left
                             or (h.trick and rng.random() < 0.5)):
        h.apply(rng.choice(h.legal_actions()))
    return None if h.is_over else h


def _args(h):
    hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
    return hands, tuple((p, c.index) for p, c in h.trick), h.maker & 1


@pytest.mark.parametrize("rules", RULES)
def test_both_answers_as_the_general_search_on_two_trick_positions(rules):
    seen = set()
    for seed in range(1500):
        h = played_to(rules, seed, 2)
        if h is None or h.trick or h.hands[h.to_act_i].bit_count() != 2:
            continue
        hands, _, mk = _args(h)
        s, g = Solver(h.trump, mk, h.out), GeneralSolver(h.trump, mk, h.out)
        seats = s.rounds[h.to_act_i]
        for side in (0, 1):
            assert s._both(tuple(hands), seats, side) == g._both(tuple(hands), seats, side), \
                (h.to_dict(), side)
        seen.add(len(seats))
    # Four, three (a lone hand) and two seats (a lone defender against a lone hand).
    assert seen == ({4, 3, 2} if rules.defend_alone else {4, 3})


@pytest.mark.parametrize("rules", RULES)
def test_values_and_best_cards_match_the_general_search(rules):
    # As the play search asks: one solver per position, every legal card in turn.
    checked = 0
    for seed in range(400):
        h = played_to(rules, 10_000 + seed, random.Random(seed).choice([2, 3, 3, 4, 5]))
        if h is None:
            continue
        mk = h.maker & 1
        th = _thresholds(rules, h.alone, h.defender_alone)
        s, g = Solver(h.trump, mk, h.out), GeneralSolver(h.trump, mk, h.out)
        values, general = {}, {}
        for a in h.legal_actions():
            nxt = h.copy()
            nxt.apply(a)
            if nxt.is_over:
                continue
            hands, trick, _ = _args(nxt)
            won = nxt.won[mk]
            values[str(a)] = s.maker_tricks(hands, nxt.to_act_i, th, trick, won)
            general[str(a)] = g.maker_tricks(hands, nxt.to_act_i, th, trick, won)
            for need in range(0, 4):
                assert s.at_least(hands, nxt.to_act_i, need, trick) == g.at_least(
                    hands, nxt.to_act_i, need, trick), (nxt.to_dict(), need)
        assert values == general, h.to_dict()
        if values:
            pick = max if (h.to_act_i & 1) == mk else min
            assert ({a for a, v in values.items() if v == pick(values.values())}
                    == {a for a, v in general.items() if v == pick(general.values())})
            checked += 1
    assert checked > 250


def test_work_counts_nodes_and_two_trick_questions_whatever_the_shared_tables():
    # A second solver of the same deal finds the per-trump tables filled by the first,
    # yet spends the same work: a budget of work plays the same way whatever was solved
    # before.
    rules = Rules.preset("standard")
    checked = 0
    for seed in range(40):
        h = played_to(rules, seed, 5)
        if h is None:
            continue
        hands, trick, mk = _args(h)
        th = _thresholds(rules, h.alone, h.defender_alone)
        for table in (solver_module._MOVE_CACHE, solver_module._SUIT_CACHE,
                      solver_module._SPAN_CACHE, solver_module._RUNS):
            table[h.trump].clear()
        first = Solver(h.trump, mk, h.out)
        first.maker_tricks(hands, h.to_act_i, th, trick, h.won[mk])
        second = Solver(h.trump, mk, h.out)
        second.maker_tricks(hands, h.to_act_i, th, trick, h.won[mk])
        assert (first.work, first.twos, first.nodes) == (second.work, second.twos, second.nodes)
        assert first.work == round(first.nodes * NODE_WORK + first.twos * TWO_WORK)
        checked += first.twos > 0
    assert checked > 20
