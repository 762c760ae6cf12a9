"""Insane's fast paths give exactly what the plain ways of computing the same things give: the same numbers, the same deals, the same decisions."""
import random

import pytest

from engine import Rules
from engine.bots import InsaneBot
from engine.bots import deals as deals_module
from engine.bots import inference
from engine.bots.deals import PlaySampler, _assign, mask_of_indices
from engine.bots.inference import (BidEvidence, BidModel, PlayEvidence, PlayModel, card_features,
                                   card_scores, legal_mask, play_contexts)
from engine.bots.insane import playout
from engine.bots.models import ALONE_CURVE, BID_CURVES, PLAY_WEIGHTS
from engine.cards import SEATS, cards_of

from ._util import random_position

STD = Rules.preset("standard")


def _bits(mask):
    return [i for i in range(24) if mask >> i & 1]


def slow_scores(w, ctx, hand, legal, cards):
    """The score of each legal card the plain way: its features' weights added up."""
    return [sum(w[f] for f in card_features(ctx, hand, legal, j)) for j in cards]


def slow_draw(sampler, rng):
    """PlaySampler.draw as first written, with rng.sample."""
    voids = sampler.voids
    for fixed, need, seats in sampler.variants:
        for attempt in range(sampler.tries):
            left = sampler.pool[:]
            hands = list(fixed)
            order = seats if attempt == 0 else rng.sample(seats, len(seats))
            for p in order:
                v = voids[p]
                allowed = [i for i in left if not v >> i & 1] if v else left
                n = need[p]
                if len(allowed) < n:
                    break
                m = 0
                for i in rng.sample(allowed, n):
                    m |= 1 << i
                hands[p] |= m
                left = [i for i in left if not m >> i & 1]
            else:
                return hands
    return _assign(rng, mask_of_indices(sampler.pool), list(sampler.fallback[0]),
                   sampler.fallback[1], [0, 0, 0, 0], 1)


def slow_play_likelihood(model, view, seat, hand_now):
    """log P(every card ``seat`` played | it holds ``hand_now``), nothing remembered."""
    total = 0.0
    hand = hand_now
    for ctx in reversed([c for c in play_contexts(view) if c.seat == seat]):
        hand |= 1 << ctx.card
        total += model.log_prob(ctx, hand)
    return total


def _play_positions(count, seed):
    out = []
    k = seed
    while len(out) < count:
        k += 1
        h = random_position(STD, k, want_phase="play")
        if h is None:
            continue
        rng = random.Random(k)
        for _ in range(rng.randrange(0, 17)):
            if h.is_over:
                break
            h.apply(rng.choice(h.legal_actions()))
        if not h.is_over and h.phase == "play":
            out.append(h)
    return out


def test_card_scores_are_the_features_weights_added_in_order():
    w = PlayModel(PLAY_WEIGHTS).w
    rng = random.Random(5)
    checked = 0
    for h in _play_positions(60, 500):
        for seat in SEATS:
            view = h.view(seat)
            for ctx in play_contexts(view):
                # The hand the player held at that play, or any hand holding the card:
                # forced, following, void, leading; bowers and aces all turn up.
                others = [i for i in range(24) if i != ctx.card and not ctx.gone >> i & 1]
                for size in (1, 2, 4):
                    hand = (1 << ctx.card) | mask_of_indices(rng.sample(others, min(size, len(others))))
                    legal = legal_mask(ctx, hand)
                    cards = _bits(legal)
                    assert card_scores(w, ctx, hand, legal, cards) == slow_scores(w, ctx, hand, legal, cards)
                    checked += 1
    assert checked > 1000


def test_remembered_play_likelihoods_equal_the_plain_sum():
    model = PlayModel(PLAY_WEIGHTS)
    fresh = PlayModel(PLAY_WEIGHTS)
    rng = random.Random(6)
    checked = 0
    for h in _play_positions(40, 600):
        view = h.view(h.to_act)
        ev = PlayEvidence(model, view)      # one model for every view: its memory carries over
        played = deals_module.played_masks(view)
        for q in ev.by_seat:
            # The true hand, hands drawn as Insane draws them, and hands that break a
            # shown void (then the plays are impossible: -inf).
            sampler = PlaySampler(view)
            hands = [h.hands[q]] + [sampler.draw(rng)[q] for _ in range(6)]
            n = h.hands[q].bit_count()
            hands += [mask_of_indices(rng.sample([i for i in range(24) if not played[q] >> i & 1], n))
                      for _ in range(3)]
            for now in hands:
                assert ev.log_likelihood(q, now) == slow_play_likelihood(fresh, view, q, now)
                checked += 1
    assert checked > 300


def test_remembered_bid_likelihoods_equal_the_plain_ones():
    model = BidModel(BID_CURVES, ALONE_CURVE)
    rng = random.Random(7)
    checked = 0
    for k in range(40):
        h = random_position(STD, 700 + k, want_phase="play")
        if h is None:
            continue
        view = h.view(h.to_act)
        ev = BidEvidence(model, view)
        for seat in ev.seats():
            for _ in range(5):
                m = mask_of_indices(rng.sample(range(24), 5))
                assert ev.log_likelihood_of(seat, m) == ev.log_likelihood(seat, cards_of(m))
                assert ev.log_likelihood_of(seat, m) == ev.log_likelihood(seat, cards_of(m))  # remembered
                checked += 1
    assert checked > 100


def test_the_play_sampler_draws_the_deals_rng_sample_draws():
    for h in _play_positions(40, 800):
        view = h.view(h.to_act)
        sampler = PlaySampler(view)
        for s in range(20):
            assert sampler.draw(random.Random(s)) == slow_draw(sampler, random.Random(s))


def test_playouts_play_forced_cards_as_the_model_would():
    model = PlayModel(PLAY_WEIGHTS)

    def slow_playout(trump, maker, out, hands, gone, trick, won, p, rng):
        mk = maker & 1
        nactive = 4 - len(out)
        while hands[p]:
            j = model.draw(inference.PlayContext(trump, p, -1, trick, gone, maker, nactive), hands[p],
                           rng.random())
            hands[p] &= ~(1 << j)
            gone |= 1 << j
            trick += ((p, j),)
            if len(trick) == nactive:
                from engine.cards import Card, trick_winner_index
                best = trick[trick_winner_index([Card(i) for _, i in trick], trump)][0]
                won += (best & 1) == mk
                trick = ()
                p = best
            else:
                p = (p + 1) % 4
                while p in out:
                    p = (p + 1) % 4
        return won

    for h in _play_positions(40, 900):
        gone = (0 if h.dealer_took else h.upcard.bit) | h._played_mask()
        trick = tuple((q, c.index) for q, c in h.trick)
        args = (h.trump, h.maker, h.out)
        for s in range(5):
            a = playout(*args, list(h.hands), gone, trick, h.won[h.maker & 1], h.to_act_i, model,
                        random.Random(s))
            b = slow_playout(*args, list(h.hands), gone, trick, h.won[h.maker & 1], h.to_act_i,
                             random.Random(s))
            assert a == b


@pytest.fixture
def slow_paths(monkeypatch):
    """Every fast path of Insane's weighing and sampling replaced by the plain way."""
    def log_likelihood(self, seat, hand_now):
        total = 0.0
        hand = hand_now
        for ctx in reversed(self.by_seat.get(seat, ())):
            hand |= 1 << ctx.card
            total += self.model.log_prob(ctx, hand)
        return total

    monkeypatch.setattr(inference, "card_scores", slow_scores)
    monkeypatch.setattr(PlayEvidence, "log_likelihood", log_likelihood)
    monkeypatch.setattr(BidEvidence, "log_likelihood_of",
                        lambda self, seat, dealt: self.log_likelihood(seat, cards_of(dealt)))
    monkeypatch.setattr(PlaySampler, "draw", slow_draw)


def _decisions(positions, **options):
    bot = InsaneBot(seed=3, budget=None, **options)
    out = []
    for h in positions:
        view = h.view(h.to_act)
        action = bot.choose(view)
        race = bot.race
        out.append((action, bot.last_samples, bot.spent,
                    None if race is None else (race.counts, {a: race.values[a] for a in race.values})))
    return out


def _decision_positions():
    out = []
    for k in range(40):
        h = random_position(STD, 950 + k, max_steps=random.Random(k).randrange(0, 14))
        if h is not None and not h.is_over and len(h.legal_actions()) > 1:
            out.append(h)
    return out[:14]


def test_decisions_with_fixed_deals_equal_the_plain_way(request):
    positions = _decision_positions()
    assert any(h.phase == "play" for h in positions) and any(h.phase != "play" for h in positions)
    fast = _decisions(positions, samples=24)
    request.getfixturevalue("slow_paths")
    slow = _decisions(positions, samples=24)
    assert fast == slow
    # The fast paths are really replaced above (else this test proves nothing).
    assert inference.card_scores is slow_scores
