"""`euchre-table simulate --engine-only`: a whole game of random legal play through the engine, printed."""
from __future__ import annotations

import json
import random

from engine import Game, Rules
from engine.cards import SEAT_NAMES, SEATS, SUIT_NAMES, SUIT_SYMBOLS, cards_of


def pretty(card) -> str:
    return card.rank + SUIT_SYMBOLS[card.suit]


def describe_hand(n: int, hand) -> str:
    """A hand as readable text: the deal, the bidding, each trick, the result."""
    lines = [f"Hand {n}: {SEAT_NAMES[hand.dealer_seat]} deals; up-card {pretty(hand.upcard)}"]
    for i, s in enumerate(SEATS):
        lines.append(f"  {SEAT_NAMES[s]:<6} {' '.join(pretty(c) for c in cards_of(hand.initial[i]))}")
    bids = [f"{s} {a}" for s, a in hand.history if a.kind not in ("play",)]
    lines.append("  Bids:  " + ", ".join(bids))
    r = hand.result
    if r.thrown_in:
        lines.append("  All passed twice: the hand is thrown in.")
        return "\n".join(lines)
    alone = f", {SEAT_NAMES[r.alone]} alone" if r.alone else ""
    lines.append(f"  Trump {SUIT_SYMBOLS[r.trump]} {SUIT_NAMES[r.trump]}, made by "
                 f"{SEAT_NAMES[r.maker]}{alone}")
    for k, (_leader, trick, winner) in enumerate(hand.tricks, 1):
        cards = "  ".join(f"{SEATS[q]}:{pretty(c):<4}" for q, c in trick)
        lines.append(f"  Trick {k}: {cards}  → {SEAT_NAMES[SEATS[winner]]}")
    scored = [f"{t} +{p}" for t, p in r.points.items() if p]
    what = "euchred" if r.euchred else "march" if r.march else "made it"
    n = r.tricks[r.makers]
    lines.append(f"  {r.makers} took {n} trick{'s' if n != 1 else ''}: {what}; {', '.join(scored)}")
    return "\n".join(lines)


def print_random_game(rules: Rules, seed: int, as_json: bool = False) -> int:
    """Play a game with random legal moves and print it hand by hand (or as JSON)."""
    rng = random.Random(seed)
    game = Game(rules, first_dealer=rng.choice(SEATS), seed=seed)
    printed = 0
    if not as_json:
        print(f"Euchre, rules {rules.name}, seed {seed}: random legal play, to {rules.target}\n")
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        if not as_json:
            finished = [h for h in game.hands if h.is_over]
            for h in finished[printed:]:
                printed += 1
                print(describe_hand(printed, h))
                print(f"  Score: NS {h.score[0] + h.result.points['NS']} - "
                      f"EW {h.score[1] + h.result.points['EW']}\n")
    results = [h.result for h in game.hands]
    summary = {
        "seed": seed, "rules": rules.name, "winner": game.winner, "score": game.score,
        "hands": len(game.hands), "games": game.games,
        "contracts": {t: sum(1 for r in results if r.makers == t) for t in ("NS", "EW")},
        "made": {t: sum(1 for r in results if r.makers == t and not r.euchred) for t in ("NS", "EW")},
        "marches": {t: sum(1 for r in results if r.makers == t and r.march) for t in ("NS", "EW")},
        "euchres": {t: sum(1 for r in results if r.makers and r.makers != t and r.euchred)
                    for t in ("NS", "EW")},
        "lone_hands": sum(1 for r in results if r.alone),
        "thrown_in": sum(1 for r in results if r.thrown_in),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        if rules.rubber:
            for i, g in enumerate(game.games, 1):
                print(f"Game {i}: {g['winner']} win {g['score']['NS']}-{g['score']['EW']} (NS-EW), "
                      f"worth {g['game_points']}")
            print(f"{game.winner} win the rubber: {game.rubber_points[game.winner]} rubber points "
                  f"after {len(game.hands)} hands.")
        else:
            print(f"{game.winner} win {game.score[game.winner]} to "
                  f"{game.score['EW' if game.winner == 'NS' else 'NS']} after {len(game.hands)} hands.")
        for t in ("NS", "EW"):
            print(f"  {t}: {summary['contracts'][t]} contracts, {summary['made'][t]} made, "
                  f"{summary['marches'][t]} marches, {summary['euchres'][t]} euchres")
        print(f"  lone hands: {summary['lone_hands']}, thrown in: {summary['thrown_in']}")
    return 0
