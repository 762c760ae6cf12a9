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
        _play_some(h, rng, rng.randrange(6, 10), out)
    return out


def _play_some(h, rng, cards, out):
    """Play up to ``cards`` random legal cards of ``h``; keep it in ``out`` if not over."""
    for _ in range(cards):
        if h.is_over:
            break
        h.apply(rng.choice(h.legal_actions()))
    if not h.is_over:
        out.append(h)


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


# --------------------------------------------------------------------------- reference
# A second, plain reference: full minimax on bitmasks with a table of exact trick counts
# at trick starts, no pruning, no merging of equal cards, no bounds. Cheap enough for
# whole deals, so the solver's cut-offs, bounds and card merging are checked from the
# first lead on, with lone hands and lone defenders.

def reference_tricks(trump, maker_team, out, hands, leader, trick=(), memo=None):
    """The makers' tricks still to come with perfect play by all (from ``trick`` in
    progress, the seat after its last card to play)."""
    from engine.cards import EFFECTIVE_SUIT, POWER
    eff, power = EFFECTIVE_SUIT[trump], POWER[trump]
    active = [p for p in range(4) if p not in out]
    memo = {} if memo is None else memo

    def nxt(p):
        q = (p + 1) % 4
        while q in out:
            q = (q + 1) % 4
        return q

    def cards(m):
        return [i for i in range(24) if m >> i & 1]

    def winner(t):
        led = eff[t[0][1]]
        best = max(t, key=lambda pc: power[pc[1]] if eff[pc[1]] in (trump, led) else 0)
        return best[0]

    def play(h, p, t):
        if len(t) == len(active):
            w = winner(t)
            return ((w & 1) == maker_team) + start(h, w)
        legal = cards(h[p])
        if t:
            led = eff[t[0][1]]
            follow = [i for i in legal if eff[i] == led]
            legal = follow or legal
        vals = []
        for i in legal:
            nh = list(h)
            nh[p] &= ~(1 << i)
            vals.append(play(tuple(nh), nxt(p), t + ((p, i),)))
        return max(vals) if (p & 1) == maker_team else min(vals)

    def start(h, leader):
        if not h[leader]:
            return 0
        key = (h, leader)
        if key not in memo:
            memo[key] = play(h, leader, ())
        return memo[key]

    h = tuple(hands)
    if not trick:
        return start(h, leader)
    return play(h, nxt(trick[-1][0]), tuple(trick))


RULES_THAT_CHANGE_PLAY = [
    ("standard", {}),
    ("standard", {"lone_lead": "left_of_loner"}),
    ("standard", {"defend_alone": True}),
    ("standard", {"defend_alone": True, "lone_defender_leads": True}),
    ("standard", {"canadian_loner": True, "dealer_picks_up_when_partner_alone": True}),
    ("standard", {"dealer_may_discard_upcard": False, "stick_the_dealer": True}),
    ("somerset-1888", {"overcall_alone": True}),
]


def random_hands(rules, seed, count):
    """Hands at random points from the first lead to the last trick, bid at random
    (lone hands, lone defenders and overcalls taken often)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        h = Hand.deal(rules, dealer=rng.choice("NESW"), rng=rng)
        while h.phase != "play" and not h.is_over:
            legal = h.legal_actions()
            bold = [a for a in legal if a.alone or a.kind in ("order", "call", "take")]
            h.apply(rng.choice(bold if bold and rng.random() < 0.6 else legal))
        if h.is_over:
            continue
        _play_some(h, rng, rng.choice([0, 0, 1, 2, 3, 5, 6, 9, 11]), out)
    return out


@pytest.mark.parametrize("preset,options", RULES_THAT_CHANGE_PLAY)
def test_solver_matches_reference_on_whole_deals_and_lone_hands(preset, options):
    rules = Rules.preset(preset).replace(**options) if options else Rules.preset(preset)
    seed = 500 + RULES_THAT_CHANGE_PLAY.index((preset, options))
    kinds = set()
    for n, h in enumerate(random_hands(rules, seed, 40)):
        hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
        trick = tuple((p, c.index) for p, c in h.trick)
        mk = h.maker & 1
        exact = reference_tricks(h.trump, mk, h.out, hands, h.to_act_i, trick)
        won = h.won[mk]
        left = hands[h.to_act_i].bit_count() + (1 if trick else 0)
        # One solver per deal, asked in a shuffled order, as the bots reuse it: bounds
        # learnt from one question must never spoil another.
        s = Solver(h.trump, mk, h.out)
        needs = list(range(0, left + 2))
        random.Random(n).shuffle(needs)
        for need in needs:
            assert s.at_least(hands, h.to_act_i, need, trick) == (exact >= need), (h.to_dict(), need)
        fresh = Solver(h.trump, mk, h.out)
        assert fresh.maker_tricks(hands, h.to_act_i, (1, 2, 3, 4, 5), trick, won) == won + exact
        assert fresh.maker_tricks(hands, h.to_act_i, (3, 5), trick, won) == max(
            [won] + [t for t in (3, 5) if won + exact >= t])
        kinds.add((len(h.out), bool(trick), left == 5))
    # The sample covers lone hands, mid-trick positions and whole deals.
    assert any(k[2] for k in kinds) and any(k[0] >= 1 for k in kinds) and any(k[1] for k in kinds)
    if options.get("defend_alone"):
        assert any(k[0] == 2 for k in kinds)


def test_solver_values_every_card_of_many_deals_like_the_reference():
    # As the play search asks: one solver per deal, every legal card in turn.
    from engine.bots.search import _thresholds
    rules = Rules.preset("standard").replace(defend_alone=True)
    checked = 0
    for h in random_hands(rules, 531, 60):
        mk = h.maker & 1
        s = Solver(h.trump, mk, h.out)
        th = _thresholds(rules, h.alone, h.defender_alone)
        for a in h.legal_actions():
            g = h.copy()
            g.apply(a)
            if g.is_over:
                continue
            hands = [m if p not in g.out else 0 for p, m in enumerate(g.hands)]
            trick = tuple((p, c.index) for p, c in g.trick)
            won = g.won[mk]
            exact = won + reference_tricks(g.trump, mk, g.out, hands, g.to_act_i, trick)
            want = max([won] + [t for t in th if exact >= t])
            assert s.maker_tricks(hands, g.to_act_i, th, trick, won) == want, (g.to_dict(), str(a))
            checked += 1
    assert checked > 100


def test_work_units_follow_the_nodes():
    from engine.bots.solver import NODE_WORK, TWO_WORK
    from engine.cards import mask_of, parse_cards
    hands = [mask_of(parse_cards(t)) for t in ("JH AH 9C", "9S 10S KC", "JD KH QC", "QS KS AC")]
    s = Solver("H", maker_team=0)
    assert s.work == 0
    s.maker_tricks(hands, 0, (1, 2, 3))
    assert s.nodes > 0 and s.work == round(s.nodes * NODE_WORK + s.twos * TWO_WORK)
