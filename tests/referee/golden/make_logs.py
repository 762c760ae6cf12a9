"""Writes the recorded table logs of the golden replays (run once; the .jsonl files are kept).

Each log is the event stream a table would record for one situation, with deals chosen so
that the situation happens; ``test_golden.py`` replays them and compares with the saved
verdicts. Rerun this only when a scenario itself changes:
``python -m tests.referee.golden.make_logs``.
"""
from __future__ import annotations

import json
import os

from engine import Rules
from engine.records import events_of_game, play_random_game

HERE = os.path.dirname(os.path.abspath(__file__))

# Deal A: South deals, up-card 9H; the kitty is JS JC QD.
DEAL_A = {"W": "AC KC QC 9D 10D", "N": "AH KH JD 10S 9S", "E": "AS KS QS 9C 10C",
          "S": "JH QH 10H AD KD"}
# Deal B (left bower cases, every hand scanned): up-card 9H, kitty 10C JC QC.
DEAL_B = {"N": "JD 10S 9S AC 9C", "E": "KD QD 10H QS KS", "S": "AH KH QH JS KC",
          "W": "9D 10D AD JH AS"}


def hand(dealer="S"):
    return [{"type": "hand", "dealer": dealer}]


def dealt(deal, seats="NESW"):
    return [{"type": "dealt", "seat": s, "card": c} for s in seats for c in deal[s].split()]


def up(card):
    return [{"type": "upcard", "card": card}]


def bids(*pairs):
    return [{"type": "bid", "seat": s, "bid": b} for s, b in pairs]


def plays(*tricks):
    """Each trick: "W AC, N 9S, ..."; a collect follows each complete trick."""
    out = []
    for t in tricks:
        for item in t.split(","):
            s, c = item.split()
            out.append({"type": "play", "seat": s, "card": c})
        out.append({"type": "collect"})
    return out


def discard(card=None, seat="S"):
    ev = {"type": "discard", "seat": seat}
    if card:
        ev["card"] = card
    return [ev]


REVOKE_PLAY = ("W AC, N 9S, E AS, S AD",       # East does not follow clubs: possible revoke
               "W KC, N 10S, E 9C, S 10H",     # East shows a club: the revoke is proven
               "S JH, W 9D, N KH, E 10C",
               "S QH, W 10D, N AH, E QS",
               "N JD, E KS, S 9H, W QC")


def scenarios():
    s = {}
    game = play_random_game(Rules.preset("standard"), seed=7)
    s["clean_game"] = (events_of_game(game, known_seats="E"), ["standard"], "E")

    s["misdeal_count"] = (
        hand("S") + dealt(DEAL_A, "N") + [{"type": "dealt", "seat": "N", "card": "JS"}]
        + hand("W") + dealt({"N": "AH KH JD 10S"}, "N") + up("9H") + bids(("N", "pass"))
        + hand("N"), ["standard"], "")
    s["misdeal_duplicate"] = (
        hand("S") + dealt(DEAL_A, "W") + [{"type": "dealt", "seat": "E", "card": "KC"}]
        + hand("S") + dealt(DEAL_A, "W") + up("KC") + hand("S") + up("9H")
        + [{"type": "dealt", "seat": "N", "card": "9H"}], ["standard"], "")
    s["misdeal_25th"] = (
        hand("S") + dealt(DEAL_A, "WN") + [{"type": "dealt", "seat": "E", "card": "8H"}]
        + hand("S"), ["standard"], "")
    s["lead_out_of_turn"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))
        + discard() + [{"type": "play", "seat": "E", "card": "AS"},
                       {"type": "penalty", "seat": "W", "choice": "card"},
                       {"type": "penalty", "seat": "S", "choice": "suit", "suit": "C"}]
        + plays(*REVOKE_PLAY[:1]), ["standard", "somerset-1888"], "")
    s["revoke_defender"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))
        + discard() + plays(*REVOKE_PLAY), ["standard", "somerset-1888"], "")
    s["revoke_both"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))
        + discard() + plays("W AC, N 9S, E AS, S AD",     # East does not follow clubs
                            "W KC, N KH, E 9C, S JH",     # ... and shows a club
                            "S 10H, W 9D, N 10S, E 10C",  # North does not follow hearts
                            "S QH, W 10D, N AH, E QS",    # ... and shows a heart
                            "N JD, E KS, S 9H, W QC"),
        ["standard", "somerset-1888"], "")
    s["revoke_maker"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "order"))
        + discard() + plays(*REVOKE_PLAY), ["standard", "somerset-1888"], "")
    s["revoke_lone"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"),
                                    ("S", "order alone"))
        + discard() + plays("W AC, E AS, S AD", "W KC, E 9C, S 10H", "S JH, W 9D, E 10C",
                            "S QH, W 10D, E QS", "S 9H, W QC, E KS"),
        ["standard", "somerset-1888"], "")
    s["revoke_never_proven"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"),
                                    ("S", "order alone"))
        + discard() + plays("W 9D, E QS, S AD",       # East plays a spade on diamonds
                            "S JH, W 10D, E 9C",      # East never shows a diamond
                            "S QH, W AC, E 10C", "S 10H, W KC, E KS", "S 9H, W QC, E AS"),
        ["standard", "somerset-1888"], "")
    s["left_bower_known"] = (
        hand("S") + dealt(DEAL_B) + up("9H")
        + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order")) + discard("KC")
        + [{"type": "play", "seat": "W", "card": "AD"}, {"type": "play", "seat": "N", "card": "AC"},
           {"type": "play", "seat": "E", "card": "10H"}]   # East holds diamonds: refused
        + plays("E QD, S 9H")[:-1] + [{"type": "collect"}]
        + [{"type": "play", "seat": "S", "card": "JS"}, {"type": "play", "seat": "W", "card": "AS"},
           {"type": "play", "seat": "N", "card": "JD"}]    # the left bower is no spade: refused
        + plays("N 10S, E KS")
        + [{"type": "play", "seat": "W", "card": "JH"},
           {"type": "play", "seat": "N", "card": "9C"}]    # must play the left bower: refused
        + plays("N JD, E 10H, S AH", "W 9D, N 9S, E KD, S QH", "S KH, W 10D, N 9C, E QS"),
        ["standard"], "NESW")
    s["left_bower_unknown"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))
        + discard() + plays("W AC, N AH, E 9C, S 10H",
                            "N JD, E 10C, S KD, W 9D",   # J♦ led is a trump lead
                            "N 10S, E AS, S 9H, W KC",   # South shows a heart: revoke proven
                            "S JH, W 10D, N KH, E KS", "S QH, W QC, N 9S, E QS"),
        ["standard", "somerset-1888"], "")
    s["law50"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"),
                                    ("S", "order alone"))
        + discard() + [{"type": "play", "seat": "W", "card": "AC"},
                       {"type": "play", "seat": "S", "card": "AD"}, {"type": "collect"}],
        ["standard", "somerset-1888"], "")
    s["refusals"] = (
        hand("S") + dealt(DEAL_A, "N") + up("9H")
        + bids(("N", "pass"), ("W", "pass"), ("W", "order"), ("N", "call C"), ("N", "pass"),
               ("E", "pass"), ("S", "pass"), ("W", "call H"), ("W", "order"), ("W", "call C"))
        + [{"type": "play", "seat": "N", "card": "AH"},            # not North's turn
           {"type": "play", "seat": "W", "card": "AH"},            # North holds the A♥
           {"type": "play", "seat": "W", "card": "9H"},            # turned down
           {"type": "play", "seat": "W", "card": "AC"},
           {"type": "play", "seat": "E", "card": "KC"},            # not East's turn
           {"type": "play", "seat": "N", "card": "9S"},
           {"type": "play", "seat": "E", "card": "AC"},            # already played
           {"type": "collect"},                                    # trick not complete
           {"type": "hand", "dealer": "W"}],                       # hand not over
        ["standard"], "")
    s["stick_the_dealer"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "pass"),
                                    ("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "pass"),
                                    ("S", "call H"), ("S", "call S")),
        ["stick-the-dealer", "standard"], "")
    s["corrections"] = (
        hand("S") + up("9H") + bids(("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))
        + discard() + [{"type": "play", "seat": "W", "card": "KC"},  # a misread
                       {"type": "undo", "by": "director"},
                       {"type": "play", "seat": "W", "card": "AC"},
                       {"type": "score", "NS": 4, "EW": 7, "by": "director"},
                       {"type": "void", "by": "director", "reason": "two nines of spades"},
                       {"type": "hand", "dealer": "W"},               # the same dealer deals again
                       {"type": "undo"}, {"type": "undo"},
                       {"type": "hand", "dealer": "S"}, {"type": "undo"}, {"type": "undo"},
                       {"type": "score", "NS": "four", "EW": 7}],
        ["standard"], "")
    s["malformed"] = (
        ["this is not json", "[1, 2, 3]", '{"seat": "N"}', '{"type": "shuffle"}',
         {"type": "hand"}, {"type": "hand", "dealer": "X"}, {"type": "hand", "dealer": "S"},
         {"type": "upcard", "card": "ZZ"}, {"type": "upcard"}, {"type": "upcard", "card": 7},
         '{"type": "upcard", "card": "9H"', {"type": "upcard", "card": "9H"},
         {"type": "bid", "seat": "W"}, {"type": "bid", "seat": "W", "bid": "order spades"},
         {"type": "play", "seat": "W", "card": "AC"}, "", "\u0000\u00ff\ufffd",
         {"type": 5}, {"type": "bid", "seat": "W", "bid": "pass"}],
        ["standard"], "")
    return s


def write():
    for name, (events, _rules, _known) in scenarios().items():
        with open(os.path.join(HERE, name + ".jsonl"), "w", encoding="utf-8") as f:
            for e in events:
                f.write((e if isinstance(e, str) else json.dumps(e)) + "\n")
    with open(os.path.join(HERE, "index.json"), "w") as f:
        json.dump({n: {"rules": r, "known": k} for n, (_, r, k) in scenarios().items()}, f,
                  indent=1, sort_keys=True)


if __name__ == "__main__":
    write()
