"""Building test deals: give some seats' cards and the up-card, the rest is filled in deck order."""
from engine import DECK, Hand, Rules
from engine.cards import SEATS, parse_cards


def make_hand(rules="standard", dealer="S", upcard="JC", **given) -> Hand:
    """A hand where the named seats hold the given cards (``W="JH JD AD 9C 10C"``) and
    the other seats get the remaining cards in deck order."""
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    hands = {s: parse_cards(given[s]) for s in SEATS if s in given}
    used = {c for cs in hands.values() for c in cs} | {parse_cards(upcard)[0]}
    rest = [c for c in DECK if c not in used]
    for s in SEATS:
        if s not in hands:
            hands[s], rest = rest[:5], rest[5:]
    return Hand.deal(rules, dealer=dealer, hands=hands, upcard=upcard, kitty=rest[:3])


def play(hand, *actions):
    for a in actions:
        hand.apply(a)
    return hand


def texts(actions):
    return [str(a) for a in actions]
