"""Helpers shared by the bot tests: hands played to a random point by random legal actions."""
import random

from engine import Hand


def random_position(rules, seed, want_phase=None, max_steps=None):
    """A hand dealt from ``seed`` and played by random legal actions to a random point
    (or to the first decision in ``want_phase``); None if that phase never came."""
    rng = random.Random(seed)
    hand = Hand.deal(rules, dealer=rng.choice("NESW"), rng=rng)
    steps = rng.randrange(0, 30) if max_steps is None else max_steps
    for _ in range(100):
        if hand.is_over:
            return None
        if want_phase is not None and hand.phase == want_phase:
            return hand
        if want_phase is None and steps <= 0:
            return hand
        hand.apply(rng.choice(hand.legal_actions()))
        steps -= 1
    return None
