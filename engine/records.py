"""Hand records from the referee (JSON and readable text), and the table events of an engine game."""
from __future__ import annotations

import random
from typing import Iterable, Optional

from engine.cards import SEAT_NAMES, SEATS, SUIT_NAMES, Card
from engine.game import Game
from engine.rules import Rules


def record_text(rec: dict) -> str:
    """A hand record (one item of ``Referee.records()``) as text people read.

    >>> print(record_text({"hand": 1, "game": 1, "dealer": "S", "status": "thrown in",
    ...     "known": {"N": None, "E": None, "S": None, "W": None}, "upcard": "JH", "bids": [],
    ...     "discard": None, "trump": None, "maker": None, "alone": None, "defender_alone": None,
    ...     "tricks": [], "result": None, "revokes": [], "possible_revokes": [],
    ...     "irregularities": [], "corrections": [], "score_before": {"NS": 0, "EW": 0},
    ...     "score_after": {"NS": 0, "EW": 0}, "first_seq": 1, "last_seq": 9}).splitlines()[0])
    Hand 1 (game 1), dealer South, events #1-#9: thrown in
    """
    out = [f"Hand {rec['hand']} (game {rec['game']}), dealer {SEAT_NAMES[rec['dealer']]}, "
           f"events #{rec['first_seq']}-#{rec['last_seq']}: {rec['status']}"]
    for s in SEATS:
        cards = rec["known"].get(s)
        shown = " ".join(Card(c).symbol for c in cards.split()) if cards else "(not seen)"
        out.append(f"  {SEAT_NAMES[s]:<6} {shown}")
    if rec["upcard"]:
        out.append(f"  Up-card {Card(rec['upcard']).symbol}")
    if rec["bids"]:
        out.append("  Bids: " + ", ".join(f"{s} {b}" for s, b in rec["bids"]))
    if rec["discard"]:
        d = rec["discard"]
        out.append(f"  Discard: {d if d == 'unseen' else Card(d).symbol}")
    if rec["trump"]:
        alone = f", {SEAT_NAMES[rec['alone']]} alone" if rec["alone"] else ""
        dal = f", {SEAT_NAMES[rec['defender_alone']]} defends alone" if rec["defender_alone"] else ""
        out.append(f"  Trump {SUIT_NAMES[rec['trump']]}, maker {SEAT_NAMES[rec['maker']]}{alone}{dal}")
    for i, t in enumerate(rec["tricks"], 1):
        cards = "  ".join(f"{s} {Card(c).symbol}" for s, c in t["cards"])
        won = f" -> {t['winner']}" if t["winner"] else " (in progress)"
        out.append(f"  Trick {i}: {cards}{won}")
    res = rec["result"]
    if res and not res.get("thrown_in"):
        pts = res["points"]
        played = " (euchre)" if res.get("euchred") else " (march)" if res.get("march") else ""
        out.append(f"  Result: tricks NS {res['tricks']['NS']}, EW {res['tricks']['EW']}{played}; "
                   f"points NS {pts['NS']}, EW {pts['EW']}")
        if res.get("penalty"):
            out.append(f"  Penalty: {res['penalty']}")
    for r in rec["revokes"]:
        out.append(f"  Revoke (#{r['proven_seq']}): {r['message']}")
    trump = rec["trump"]
    for r in rec["possible_revokes"]:
        # A failure to follow that the rest of the hand showed was no revoke (the seat
        # was void) is not worth a line; one still open, or left unproven when the hand
        # ended early, is.
        if r.get("outcome") == "cleared":
            continue
        who = SEAT_NAMES[r["seat"]]
        played = Card(r["played"])
        bower = " (the left bower, a trump)" if trump and played.is_left_bower(trump) else ""
        why = {"never proven": ": never proven (the hand ended early)",
               "open": ": open (proven if the seat shows a card of that suit)"}.get(
                   r.get("outcome"), "")
        out.append(f"  Possible revoke: {who} played {played.symbol}{bower} in trick "
                   f"{r['trick']} on a {SUIT_NAMES[r['led']][:-1]} lead{why}")
    for i in rec["irregularities"]:
        if i["kind"] != "revoke":
            extra = ""
            if i.get("choice"):
                extra = f" Choice of {SEAT_NAMES[i['choice']['by']]}: {i['choice']['words']}."
            out.append(f"  #{i['seq']} {i['kind']}: {i['message']}.{extra}")
    for c in rec.get("corrections", ()):
        if c["kind"] == "undo":
            out.append(f"  #{c['seq']} undo by the {c['by']}: #{c['undone_seq']} {c['undone']}")
    sb, sa = rec["score_before"], rec["score_after"]
    if sa:
        out.append(f"  Score after the hand: NS {sa['NS']}, EW {sa['EW']} "
                   f"(before: NS {sb['NS']}, EW {sb['EW']})")
    return "\n".join(out)


def events_of_game(game: Game, known_seats: Iterable[str] = (), collect: bool = True) -> list:
    """The table events that a game played in the engine would put in the log: the deal
    of ``known_seats`` (as ``dealt``), the up-card, bids, the discard (its card only when
    the dealer is known), plays and trick collections.

    >>> g = play_random_game(Rules.preset("standard"), seed=3)
    >>> evs = events_of_game(g, known_seats="E")
    >>> evs[0], evs[1]["type"]
    ({'type': 'hand', 'dealer': 'S'}, 'dealt')
    """
    known = set(known_seats)
    out = []
    for hand in game.hands:
        d = hand.to_dict()
        if not d["actions"]:
            continue
        out.append({"type": "hand", "dealer": d["dealer"]})
        for s in SEATS:
            if s in known:
                for c in d["hands"][s].split():
                    out.append({"type": "dealt", "seat": s, "card": c})
        out.append({"type": "upcard", "card": d["upcard"]})
        in_trick, active = 0, None
        for seat, a in d["actions"]:
            kind = a.split()[0]
            if kind == "play":
                out.append({"type": "play", "seat": seat, "card": a.split()[1]})
                if active is None:
                    active = 4 - len(_sitting_out(hand))
                in_trick += 1
                if in_trick == active:
                    in_trick = 0
                    if collect:
                        out.append({"type": "collect"})
            elif kind == "discard":
                ev = {"type": "discard", "seat": seat}
                if seat in known:
                    ev["card"] = a.split()[1]
                out.append(ev)
            else:
                out.append({"type": "bid", "seat": seat, "bid": a})
    return out


def _sitting_out(hand) -> tuple:
    return tuple(getattr(hand, "out", ()))


def play_random_game(rules: Rules, seed: int, first_dealer: str = "S",
                     max_hands: Optional[int] = 200) -> Game:
    """A whole game in the engine with random legal actions (for logs to replay)."""
    rng = random.Random(seed)
    game = Game(rules, first_dealer=first_dealer, seed=seed)
    n = 0
    while not game.is_over and (max_hands is None or len(game.hands) <= max_hands):
        game.apply(rng.choice(game.legal_actions()))
        n += 1
    return game
