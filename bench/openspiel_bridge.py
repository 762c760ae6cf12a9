"""Translation between our engine and OpenSpiel's euchre (cards, seats, actions), for tests and benchmarks."""
from __future__ import annotations

from engine.cards import DECK, SEATS, Card

# OpenSpiel: card = rank * 4 + suit, ranks 9 T J Q K A, suits C D H S; players 0..3 are
# N E S W, the next player is +1, as in our seat order.
_OS_SUITS = "CDHS"
PASS, ALONE, PARTNER = 24, 29, 30
SUIT_ACTION = {s: 25 + _OS_SUITS.index(s) for s in "CDHS"}
ACTION_SUIT = {v: k for k, v in SUIT_ACTION.items()}


def to_os_card(card: Card) -> int:
    return card.index % 6 * 4 + _OS_SUITS.index(card.suit)


def from_os_card(action: int) -> Card:
    rank, suit = divmod(action, 4)
    return DECK["SHDC".index(_OS_SUITS[suit]) * 6 + rank]


def os_state_for(game, dealer: str, hands: dict, upcard) -> "object":
    """A pyspiel state dealt exactly like one of our hands: OpenSpiel deals one card at a
    time starting with the dealer, so card k goes to seat (dealer + k) mod 4."""
    state = game.new_initial_state()
    d = SEATS.index(dealer)
    state.apply_action(d)
    per_seat = {s: [Card(c) for c in hands[s]] for s in SEATS}
    for k in range(20):
        seat = SEATS[(d + k) % 4]
        state.apply_action(to_os_card(per_seat[seat][k // 4]))
    state.apply_action(to_os_card(Card(upcard)))
    return state


def os_actions_for(phase_before: str, action, hand) -> list:
    """OpenSpiel's actions for one of ours, given the hand after it was applied.
    OpenSpiel asks the maker "alone or with partner?" after the bid (and after the
    dealer's discard in round 1); our maker says it with the bid."""
    alone_answer = ALONE if hand.alone is not None else PARTNER
    if phase_before == "defend":
        return [ALONE if action.kind == "defend" else PARTNER]
    if action.kind == "pass":
        return [PASS]
    if action.kind in ("order", "call"):
        suit = SUIT_ACTION[hand.trump]
        return [suit] if hand.phase == "discard" else [suit, alone_answer]
    if action.kind == "discard":
        return [to_os_card(action.card), alone_answer]
    return [to_os_card(action.card)]
