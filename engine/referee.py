"""The referee of a real-card table: a pure fold from table events to verdicts and table state.

The table's camera, buttons and card reader turn what happens into events (JSON objects,
see ``docs/events.md``); :class:`Referee` folds them, one at a time, into the state of the
game and says for each whether it stands and why not. It knows the hands of some seats
(computer seats, or every seat when the deal is scanned) from ``dealt`` events and reasons
about the others from what they show: a seat that does not follow suit when it might have
is a *possible revoke*, proven the moment that seat shows a card of the suit it failed to
follow. No I/O, no clock: the state after event n depends only on events 1..n.

>>> from engine import Rules
>>> ref = Referee(Rules.preset("standard"))
>>> ref.feed({"type": "hand", "dealer": "S"}).ok
True
>>> ref.feed({"type": "upcard", "card": "JH"}).ok
True
>>> v = ref.feed({"type": "bid", "seat": "N", "bid": "pass"})
>>> v.ok, v.reason
(False, "Not North's turn: West is to bid")
"""
from __future__ import annotations

import dataclasses

import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from engine.cards import (EFFECTIVE_SUIT, SEAT_NAMES, SEATS, SUIT_MASK, SUIT_NAMES, Card, CardError,
                          mask_of, next_seat, other_team, parse_seat, parse_suit, team_of)
from engine.hand import Action, Hand, IllegalAction
from engine.rules import Rules

EVENT_TYPES = ("game", "hand", "dealt", "upcard", "bid", "discard", "play", "collect", "faced",
               "penalty", "undo", "void", "score", "computer", "removed", "vision_error")
"""Every event type the referee understands (``docs/events.md`` describes each)."""

MAX_EVENT_CHARS = 10_000
"""The longest event text the referee reads; a real event is a few dozen characters."""
_MAX_FIELD_CHARS = 200      # a card, a seat, a bid, a reason: short words
_MAX_DEPTH = 4              # events are flat: at most a list of cards in a field
_MAX_REASON = 400

_BID_KINDS = ("pass", "order", "call", "take", "defend")
# Texts that are real playing cards but not Euchre cards: one of them in the deal is a
# card from outside the 24-card pack (a "25th card"), not a misread.
_FOREIGN_CARD = re.compile(r"^\s*(?:[2-8][SHDC♠♥♦♣♤♡♢♧]|JOKER|JK)\s*$", re.IGNORECASE)


class Refusal(Exception):
    """An event that does not count, with the reason a player can act on.

    ``record`` marks an irregularity that is refused yet kept in the hand's record
    (a lead out of turn), ``kind`` names it."""

    def __init__(self, reason: str, kind: Optional[str] = None, record: bool = False):
        super().__init__(reason)
        self.reason, self.kind, self.record = reason, kind, record


@dataclass(frozen=True)
class Verdict:
    """What the referee says about one event.

    ``ok`` is True when the event counts; otherwise ``reason`` says why not and what to do.
    ``effect`` names what changed (``"play"``, ``"trick"``, ``"hand over"``, ``"misdeal"`` …),
    ``message`` is what the table announces, ``revoke`` describes a revoke proven by this
    event, ``possible_revoke`` a failure to follow suit that may be one, ``irregularity``
    names an irregularity this event is or reveals.

    >>> Verdict(7, False, reason="Not East's turn: West is to play").to_dict()
    {'seq': 7, 'ok': False, 'reason': "Not East's turn: West is to play"}
    """

    seq: int
    ok: bool
    reason: Optional[str] = None
    effect: Optional[str] = None
    message: Optional[str] = None
    revoke: Optional[dict] = None
    possible_revoke: Optional[dict] = None
    irregularity: Optional[str] = None

    def to_dict(self) -> dict:
        """``seq``, ``ok``, ``reason`` always; the other fields when they say something."""
        d = {"seq": self.seq, "ok": self.ok, "reason": self.reason}
        for k in ("effect", "message", "revoke", "possible_revoke", "irregularity"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d

    def explain(self) -> str:
        """One line for people: ``#12 refused: Not East's turn: West is to play``."""
        if not self.ok:
            return f"#{self.seq} refused: {self.reason}"
        text = f"#{self.seq} {self.message or self.effect or 'ok'}"
        if self.revoke and self.revoke["message"] not in text:
            text += f"\n     REVOKE: {self.revoke['message']}"
        return text


def _name(seat: str) -> str:
    return SEAT_NAMES[seat]


def _side_words(team: str) -> str:
    return "North-South" if team == "NS" else "East-West"


def _sym(card: Card) -> str:
    return card.symbol


@dataclass
class HandRecord:
    """One hand as the table saw it: the deal as far as known, bids, tricks, result and
    every irregularity. :meth:`to_dict` is the hand record (``engine.records`` prints it)."""

    number: int
    game: int
    dealer: str
    first_seq: int
    score_before: dict
    dealt: dict = field(default_factory=lambda: {s: [] for s in SEATS})
    upcard: Optional[Card] = None
    hand: Optional[Hand] = None
    status: str = "dealing"     # dealing, playing, over, thrown in, misdeal, void
    awaiting_collect: bool = False
    possible: list = field(default_factory=list)
    proven: list = field(default_factory=list)
    irregularities: list = field(default_factory=list)
    result: Optional[dict] = None
    score_after: Optional[dict] = None
    last_seq: Optional[int] = None
    expect: dict = field(default_factory=dict)  # seat -> card a computer seat said it plays
    calls: list = field(default_factory=list)   # law 52 calls not yet answered
    call_failures: list = field(default_factory=list)  # called suit not led by an unknown seat

    def to_dict(self) -> dict:
        h = self.hand
        known = {s: (" ".join(self.dealt[s]) if (h is not None and h.is_known(s)) or
                     (h is None and self.dealt[s]) else None) for s in SEATS}
        bids: list = []
        discard: Optional[str] = None
        tricks: list = []
        if h is not None:
            for seat, a in h.history:
                if a.kind in _BID_KINDS:
                    bids.append([seat, str(a)])
                elif a.kind == "discard":
                    discard = str(a.card) if a.card is not None else "unseen"
            for leader, cards, winner in h.tricks:
                tricks.append({"leader": SEATS[leader],
                               "cards": [[SEATS[q], str(c)] for q, c in cards],
                               "winner": SEATS[winner]})
            if h.trick:
                tricks.append({"leader": SEATS[h.trick[0][0]],
                               "cards": [[SEATS[q], str(c)] for q, c in h.trick],
                               "winner": None})
        return {
            "hand": self.number, "game": self.game, "dealer": self.dealer, "status": self.status,
            "first_seq": self.first_seq, "last_seq": self.last_seq,
            "known": known, "upcard": None if self.upcard is None else str(self.upcard),
            "bids": bids, "discard": discard,
            "trump": None if h is None else h.trump,
            "maker": None if h is None else h.maker_seat,
            "alone": None if h is None or h.alone is None else SEATS[h.alone],
            "defender_alone": (None if h is None or h.defender_alone is None
                               else SEATS[h.defender_alone]),
            "tricks": tricks, "result": self.result,
            "revokes": [dict(r) for r in self.proven],
            "possible_revokes": [dict(r) for r in self.possible if not r.get("proven")],
            "irregularities": [dict(i) for i in self.irregularities],
            "score_before": dict(self.score_before),
            "score_after": None if self.score_after is None else dict(self.score_after),
        }


class _Table:
    """The state that the fold builds; rebuilt from the journal when an event is undone."""

    def __init__(self):
        self.game = 1
        self.score = {"NS": 0, "EW": 0}
        self.winner: Optional[str] = None
        self.games: list = []
        self.hands: list = []
        self.next_dealer: Optional[str] = None

    @property
    def current(self) -> Optional[HandRecord]:
        return self.hands[-1] if self.hands else None


class Referee:
    """Folds table events into verdicts and the state of the game.

    ``known_seats`` are seats whose cards the referee is always told (computer seats):
    a hand cannot start until each has been dealt five cards. Any other seat becomes known
    for a hand when ``dealt`` events give it cards (the dealer deals through the reader).

    >>> ref = Referee(Rules.preset("standard"))
    >>> for e in ({"type": "hand", "dealer": "S"}, {"type": "upcard", "card": "9S"}):
    ...     _ = ref.feed(e)
    >>> ref.state["to_act"], ref.state["phase"]
    ('W', 'deal')
    """

    def __init__(self, rules: Rules, known_seats=()):
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules, e.g. Rules.preset('standard')")
        self.rules = rules
        self.known_seats = frozenset(parse_seat(s) for s in known_seats)
        self._t = _Table()
        self._journal: list = []     # (seq, event, accepted): what changed the table, in order
        self.corrections: list = []  # director corrections, never rebuilt away
        self.messages: deque = deque(maxlen=8)
        self.last_seq = 0
        self._replaying = False
        self._ids: dict = {}         # event id -> seq of its first arrival

    # ------------------------------------------------------------------ feeding
    def feed(self, event, seq: Optional[int] = None) -> Verdict:
        """Fold one event (a dict, or one line of text as received) and say what it did.

        Never raises for bad input: a malformed event gets ``ok=False`` and a reason."""
        ev, problem = _parse_event(event)
        if seq is None:
            s = ev.get("seq") if ev is not None else None
            seq = s if isinstance(s, int) and not isinstance(s, bool) else self.last_seq + 1
        self.last_seq = seq
        if problem is None and "id" in ev:
            problem, first = self._check_id(ev["id"], seq)
            if problem is None and first is not None:
                v = Verdict(seq, False, effect="duplicate", irregularity="duplicate",
                            reason=f"Already received as #{first} (id {_shown(ev['id'], 40)}): "
                                   "this copy is ignored")
                self.messages.append(f"#{seq} refused: {v.reason}")
                return v
        if problem is not None:
            v = Verdict(seq, False, reason=problem, irregularity="malformed event")
        else:
            v = self._fold(seq, ev)
        if v.reason is not None and len(v.reason) > _MAX_REASON:
            # Whatever a field held, a reason stays readable: its start says what is
            # wrong, its end what to do.
            v = dataclasses.replace(v, reason=v.reason[:_MAX_REASON - 120] + " ... "
                                    + v.reason[-115:])
        self.messages.append(f"#{seq} " + (v.message or v.effect or "ok") if v.ok
                             else f"#{seq} refused: {v.reason}")
        return v

    def _check_id(self, ident, seq: int) -> tuple:
        """(problem, None) for an id that cannot be one; (None, first seq) for an id seen
        before; (None, None) for a new id, now remembered. A source that may send an input
        twice (after a reconnect, or its own restart) gives each input an ``id``: the
        copy is refused, whatever became of the first."""
        if isinstance(ident, bool) or not isinstance(ident, (str, int)) or \
                (isinstance(ident, str) and not ident.strip()):
            return ("An event's id is a short text or a number that names the input, e.g. "
                    '"id": "board-7-31"'), None
        key = f"{type(ident).__name__}:{ident}"
        if key in self._ids:
            return None, self._ids[key]
        self._ids[key] = seq
        return None, None

    def _fold(self, seq: int, ev: dict) -> Verdict:
        kind = ev["type"]
        # What the camera reports beyond placements changes nothing at the table: a card
        # taken away is noted, a contradiction is a misread to show again. Neither is
        # journaled, so the director's undo never lands on one.
        if kind == "removed":
            return Verdict(seq, True, effect="noted")
        if kind == "vision_error":
            reason = str(ev.get("reason") or "the camera saw something it cannot read")
            return Verdict(seq, False, irregularity="misread",
                           reason=f"Misread: {reason}. Show the card again")
        try:
            if kind == "undo":
                return self._undo(seq, ev)
            v = getattr(self, "_on_" + kind)(seq, ev)
        except Refusal as r:
            if r.record:
                self._journal.append((seq, ev, False))
            return Verdict(seq, False, reason=r.reason, irregularity=r.kind)
        except (IllegalAction, CardError) as exc:
            return Verdict(seq, False, reason=str(exc))
        self._journal.append((seq, ev, True))
        cur = self._t.current
        if cur is not None:
            cur.last_seq = seq
        return v

    def _undo(self, seq, ev):
        """Take back the last accepted event by replaying the journal without it."""
        for i in range(len(self._journal) - 1, -1, -1):
            if self._journal[i][2]:
                break
        else:
            raise Refusal("Nothing to undo: no event has been accepted yet")
        taken_seq, taken, _ = self._journal[i]
        journal = self._journal[:i] + self._journal[i + 1:]
        self._t = _Table()
        self._journal = []
        self._replaying = True
        try:
            for s, e, _ in journal:
                self._fold(s, e)
        finally:
            self._replaying = False
        what = _event_words(taken)
        by = ev.get("by", "director")
        self.corrections.append({"seq": seq, "kind": "undo", "by": by, "undone_seq": taken_seq,
                                 "undone": what, "hand": len(self._t.hands) or None})
        return Verdict(seq, True, effect="undo",
                       message=f"Undone by the {by}: #{taken_seq} {what}. " + self._turn_words())

    # ------------------------------------------------------------------ events
    def _on_game(self, seq, ev):
        t = self._t
        if t.current is not None and t.current.status in ("dealing", "playing"):
            raise Refusal("A hand is in progress: finish it, or void it ({\"type\": \"void\"}) "
                          "before starting a new game")
        self._new_game()
        return Verdict(seq, True, effect="new game", message=f"Game {t.game}: score 0–0")

    def _new_game(self):
        t = self._t
        if t.hands:
            t.game += 1
        t.score = {"NS": 0, "EW": 0}
        t.winner = None
        t.next_dealer = None

    def _on_hand(self, seq, ev):
        t = self._t
        dealer = _seat_field(ev, "dealer")
        cur = t.current
        if cur is not None and cur.status in ("dealing", "playing"):
            raise Refusal(f"Hand {cur.number} is not over ({self._turn_words()}). To abandon it, "
                          "the director voids it: {\"type\": \"void\"}")
        prefix = ""
        if t.winner is not None:
            self._new_game()
            prefix = f"Game {t.game}. "
        if t.next_dealer is not None and dealer != t.next_dealer:
            raise Refusal(f"{_name(t.next_dealer)} deals this hand, not {_name(dealer)}: "
                          "the deal passes to the left")
        rec = HandRecord(number=len(t.hands) + 1, game=t.game, dealer=dealer, first_seq=seq,
                         score_before=dict(t.score))
        t.hands.append(rec)
        return Verdict(seq, True, effect="hand",
                       message=prefix + f"Hand {rec.number}: {_name(dealer)} deals")

    def _dealing(self, what: str) -> HandRecord:
        cur = self._t.current
        if cur is None or cur.status not in ("dealing", "playing"):
            raise Refusal(f"No hand is being dealt: start one with a hand event "
                          f"({{\"type\": \"hand\", \"dealer\": \"S\"}}) before {what}")
        if cur.status != "dealing":
            raise Refusal(f"The deal is over (bidding has begun): {what} comes too late")
        return cur

    def _on_dealt(self, seq, ev):
        cur = self._dealing("dealing cards")
        seat = _seat_field(ev, "seat")
        text = _field(ev, "card")
        if isinstance(text, str) and _FOREIGN_CARD.match(text):
            return self._misdeal(seq, cur, f"the card {text.strip()} was dealt: it is not in a "
                                 "Euchre pack (24 cards, 9 to ace); take it out and deal again",
                                 same_dealer=True, law="law 33")
        card = _card_field(ev)
        for s in SEATS:
            if card in cur.dealt[s]:
                return self._misdeal(seq, cur, f"the {card.name} was dealt twice ({_name(s)} "
                                     f"and {_name(seat)}): a duplicate card; check the pack "
                                     "and deal again", same_dealer=True, law="law 33")
        if card == cur.upcard:
            return self._misdeal(seq, cur, f"the {card.name} was dealt to {_name(seat)} but is "
                                 "the up-card: a duplicate card; check the pack and deal again",
                                 same_dealer=True, law="law 33")
        if len(cur.dealt[seat]) >= 5:
            return self._misdeal(seq, cur, f"{_name(seat)} was dealt a sixth card "
                                 f"({_sym(card)})", same_dealer=False, law="law 42")
        cur.dealt[seat].append(card)
        return Verdict(seq, True, effect="dealt",
                       message=f"{_name(seat)} is dealt a card ({len(cur.dealt[seat])} of 5)")

    def _on_upcard(self, seq, ev):
        cur = self._dealing("the up-card")
        text = _field(ev, "card")
        if isinstance(text, str) and _FOREIGN_CARD.match(text):
            return self._misdeal(seq, cur, f"the up-card {text.strip()} is not in a Euchre pack",
                                 same_dealer=True, law="law 33")
        card = _card_field(ev)
        if cur.upcard is not None:
            if cur.upcard == card:
                return Verdict(seq, True, effect="upcard",
                               message=f"The up-card {_sym(card)} (seen again)")
            raise Refusal(f"The up-card is already the {cur.upcard.name}, not the {card.name}: "
                          "show the up-card again, or the director undoes the first reading")
        for s in SEATS:
            if card in cur.dealt[s]:
                return self._misdeal(seq, cur, f"the up-card {_sym(card)} was also dealt to "
                                     f"{_name(s)}: a duplicate card; check the pack and deal again",
                                     same_dealer=True, law="law 33")
        cur.upcard = card
        return Verdict(seq, True, effect="upcard",
                       message=f"Up-card {_sym(card)}; {_name(next_seat(cur.dealer))} bids first")

    def _misdeal(self, seq, cur, what, same_dealer, law):
        cur.status = "misdeal"
        nxt = cur.dealer if same_dealer else next_seat(cur.dealer)
        self._t.next_dealer = nxt
        cur.score_after = dict(self._t.score)
        why = ("the same dealer deals again" if same_dealer
               else f"the deal is lost: {_name(nxt)} deals")
        msg = f"Misdeal: {what}. No score; {why} ({law})"
        cur.irregularities.append({"seq": seq, "kind": "misdeal", "message": msg})
        return Verdict(seq, True, effect="misdeal", message=msg, irregularity="misdeal")

    def _start(self, seq, what) -> HandRecord:
        """The deal is over once anyone bids: check it and build the engine's hand."""
        cur = self._t.current
        if cur is None or cur.status not in ("dealing", "playing"):
            raise Refusal(f"No hand is being played: start one with a hand event "
                          f"({{\"type\": \"hand\", \"dealer\": \"S\"}}) before {what}")
        if cur.status == "playing":
            return cur
        if cur.upcard is None:
            raise Refusal(f"The up-card has not been seen: turn it up (show it to the camera) "
                          f"before {what}")
        known = {}
        for s in SEATS:
            n = len(cur.dealt[s])
            if n or s in self.known_seats:
                if n != 5:
                    raise _MisdealNow(f"{_name(s)} was dealt {n} cards, not five")
                known[s] = cur.dealt[s]
        cur.hand = Hand.deal(self.rules, dealer=cur.dealer, hands=known, upcard=cur.upcard)
        cur.hand.score = (self._t.score["NS"], self._t.score["EW"])
        cur.status = "playing"
        return cur

    def _begin(self, seq, what):
        try:
            return self._start(seq, what), None
        except _MisdealNow as m:
            return None, self._misdeal(seq, self._t.current, str(m), same_dealer=False,
                                       law="law 42")

    def _on_bid(self, seq, ev):
        seat = _seat_field(ev, "seat")
        text = _text_field(ev, "bid", '"pass" or "call H"')
        action = Action(text)
        if action.kind not in _BID_KINDS:
            raise Refusal(f"{_shown(text)} is not a bid: bid pass, order, order alone, call H, "
                          "call H alone, take alone or defend alone")
        cur, misdeal = self._begin(seq, "bidding")
        if misdeal:
            return misdeal
        cur.hand.apply(action, seat=seat)
        words = _bid_words(seat, action, cur.hand)
        if cur.hand.is_over:
            return self._end_hand(seq, cur, words)
        return Verdict(seq, True, effect="bid", message=f"{words}. {self._turn_words()}")

    def _on_discard(self, seq, ev):
        seat = _seat_field(ev, "seat")
        card = ev.get("card")
        cur, misdeal = self._begin(seq, "the discard")
        if misdeal:
            return misdeal
        action = Action("discard" if card in (None, "") else f"discard {_card_field(ev)}")
        cur.hand.apply(action, seat=seat)
        return Verdict(seq, True, effect="discard",
                       message=f"{_name(seat)} discards. {self._turn_words()}")

    def _on_computer(self, seq, ev):
        """The computer seat's decision, announced: the card it will put down next. A
        different card put down for that seat is refused ("Wrong card for West")."""
        seat = _seat_field(ev, "seat")
        action = Action(_text_field(ev, "action", '"play JH"'))
        cur = self._t.current
        if cur is None or cur.hand is None or cur.status != "playing":
            raise Refusal("No hand is being played: nothing for the computer to play")
        if action.kind != "play":
            raise Refusal(f"The computer's decision {action!r} is not a play: bids and discards "
                          "are logged as bid and discard events")
        if cur.hand.to_act != seat:
            raise Refusal(f"Not {_name(seat)}'s turn: {self._turn_words()}")
        cur.expect[seat] = action.card
        return Verdict(seq, True, effect="computer",
                       message=f"{_name(seat)} plays {_sym(action.card)}: put it in "
                               f"{_name(seat)}'s play area")

    def _on_play(self, seq, ev):
        seat = _seat_field(ev, "seat")
        card = _card_field(ev)
        cur, misdeal = self._begin(seq, "a card is played")
        if misdeal:
            return misdeal
        expected = cur.expect.get(seat)
        if expected is not None and expected != card:
            raise Refusal(f"Wrong card for {_name(seat)}: expected {_sym(expected)}, not "
                          f"{_sym(card)}. Take it back and put down {_sym(expected)}")
        cur.expect.pop(seat, None)
        h = cur.hand
        p = SEATS.index(seat)
        if h.phase == "play":
            problem = self._cannot_hold(cur, p, card)
            if problem:
                raise Refusal(problem)
            if SEATS[h.to_act_i] != seat and p not in h.out and not h.trick:
                return self._lead_out_of_turn(seq, cur, seat, card)
        called = self._answer_calls(cur, seat, p, card, seq) if h.phase == "play" else None
        # The engine checks turn, phase and, for known seats, following suit.
        possible = self._possible_revoke(cur, p, card) if h.phase == "play" else None
        trick_no = len(h.tricks) + 1
        h.apply(Action(f"play {card}"), seat=seat)
        cur.awaiting_collect = False
        msg = f"{_name(seat)} plays {_sym(card)}"
        if called:
            msg += f" ({called})"
        if possible is not None:
            cur.possible.append(possible)
            msg += f" (did not follow {SUIT_NAMES[possible['led']]})"
        revoke = self._prove(cur, p, card, seq, trick_no)
        if revoke:
            msg += ". " + revoke["message"]
        if len(h.tricks) == trick_no:  # this card completed the trick
            leader, cards, winner = h.tricks[-1]
            msg += f". {_name(SEATS[winner])} wins trick {trick_no}"
            if h.is_over:
                v = self._end_hand(seq, cur, msg)
                return Verdict(seq, True, effect=v.effect, message=v.message, revoke=revoke,
                               possible_revoke=None if possible is None else dict(possible),
                               irregularity="revoke" if revoke else None)
            cur.awaiting_collect = True
            effect = "trick"
        else:
            effect = "play"
        return Verdict(seq, True, effect=effect, message=f"{msg}. {self._turn_words()}",
                       revoke=revoke, possible_revoke=None if possible is None else dict(possible),
                       irregularity="revoke" if revoke else None)

    def _cannot_hold(self, cur, p, card) -> Optional[str]:
        """Why ``card`` cannot come from seat ``p`` now (seen elsewhere), or None."""
        h = cur.hand
        again = "a second pack, or a misread? Show the card again"
        for q, by in enumerate(h.played_by):
            if by & card.bit:
                return f"The {card.name} has already been played by {_name(SEATS[q])}: {again}"
        if card == h.upcard:
            if not h.dealer_took:
                return f"The {card.name} was the up-card, turned down: it is out of this hand ({again})"
            if p != h.dealer:
                return (f"{_name(SEATS[p])} cannot hold the {card.name}: it is the up-card, "
                        f"taken by {_name(SEATS[h.dealer])} ({again})")
        for q in range(4):
            if q != p and h.known[q] and h.initial[q] & card.bit:
                return (f"{_name(SEATS[p])} cannot hold the {card.name}: it was dealt to "
                        f"{_name(SEATS[q])} ({again})")
        if h.discarded == card and p != h.dealer:
            return f"{_name(SEATS[p])} cannot hold the {card.name}: it was discarded ({again})"
        return None

    # ------------------------------------------------------------------ law 52 calls
    def _binding_calls(self, cur, seat: str):
        """The calls that bind ``seat`` now: the called card (when it must be played now)
        and the called suit (when ``seat`` is to lead)."""
        h = cur.hand
        t = h.trump
        leading = not h.trick
        led = None if leading else EFFECTIVE_SUIT[t][h.trick[0][1].index]
        for c in cur.calls:
            if c["kind"] == "card" and c["seat"] == seat:
                called = Card(c["card"])
                # The called card is played at the first chance that costs no revoke:
                # when its seat leads, or when its suit is led.
                if leading or led == EFFECTIVE_SUIT[t][called.index]:
                    yield c
            elif c["kind"] == "suit" and seat in c["seats"] and leading:
                yield c

    def _answer_calls(self, cur, seat, p, card, seq) -> Optional[str]:
        """Enforce the opponents' choice after a lead out of turn (law 52); returns words
        for the message when this play answers a call, raises Refusal when it defies one."""
        h = cur.hand
        t = h.trump
        words = None
        for c in list(self._binding_calls(cur, seat)):
            side = _side_words(c["by"])
            if c["kind"] == "card":
                called = Card(c["card"])
                if card != called:
                    verb = "lead" if not h.trick else "play"
                    raise Refusal(f"{side} called the {called.symbol} (law 52): {_name(seat)} "
                                  f"must {verb} it now. Take back the {_sym(card)}",
                                  kind="called card")
                cur.calls.remove(c)
                words = f"the {called.symbol} called by {side}"
                continue
            suit = c["suit"]
            if EFFECTIVE_SUIT[t][card.index] != suit:
                if h.known[p]:
                    holding = [x for x in h.cards(seat) if EFFECTIVE_SUIT[t][x.index] == suit]
                    if holding:
                        raise Refusal(f"{side} called {SUIT_NAMES[suit]} (law 52): {_name(seat)} "
                                      f"must lead {SUIT_NAMES[suit]}, holding the "
                                      f"{holding[0].name}. Take back the {_sym(card)}",
                                      kind="called suit")
                else:
                    # A seat whose cards are unknown may have none: the lead stands, and
                    # a card of that suit shown later proves the call was defied.
                    cur.call_failures.append({"seat": seat, "suit": suit, "trick": len(h.tricks) + 1,
                                              "led": str(card), "by": c["by"]})
                words = f"{side} had called {SUIT_NAMES[suit]}"
            else:
                words = f"{SUIT_NAMES[suit]}, as {side} called"
            cur.calls.remove(c)
        for f in list(cur.call_failures):
            if f["seat"] == seat and EFFECTIVE_SUIT[t][card.index] == f["suit"] \
                    and f["trick"] < len(h.tricks) + 1:
                cur.call_failures.remove(f)
                msg = (f"{_name(seat)} was called to lead {SUIT_NAMES[f['suit']]} (law 52) and "
                       f"led {Card(f['led']).symbol} in trick {f['trick']} while holding the "
                       f"{card.name}, now shown")
                cur.irregularities.append({"seq": seq, "kind": "called suit not led",
                                           "seat": seat, "message": msg})
                words = (words + "; " if words else "") + msg
        return words

    def _lead_out_of_turn(self, seq, cur, seat, card):
        h = cur.hand
        leader = SEATS[h.to_act_i]
        opp = other_team(team_of(seat))
        msg = (f"Lead out of turn (law 52): {_name(leader)} is to lead, not {_name(seat)}. "
               f"{_name(seat)}, take back the {_sym(card)}. {_side_words(opp)} may call that card, "
               f"or call a suit from {_name(seat)} or {_name(_partner(seat))} at their next lead")
        cur.irregularities.append({"seq": seq, "kind": "lead out of turn", "seat": seat,
                                   "card": str(card), "trick": len(h.tricks) + 1,
                                   "message": msg, "choice": None})
        raise Refusal(msg, kind="lead out of turn", record=True)

    def _possible_revoke(self, cur, p, card) -> Optional[dict]:
        h = cur.hand
        if h.known[p] or not h.trick or SEATS[h.to_act_i] != SEATS[p]:
            return None
        t = h.trump
        led = EFFECTIVE_SUIT[t][h.trick[0][1].index]
        if EFFECTIVE_SUIT[t][card.index] == led:
            return None
        # Engine's own account of what an unknown seat may still hold.
        could = mask_of(h.possible_cards(SEATS[p])) & SUIT_MASK[t][led] & ~card.bit
        if not could:
            return None
        return {"seat": SEATS[p], "trick": len(h.tricks) + 1, "led": led, "played": str(card),
                "cards": [[SEATS[q], str(c)] for q, c in h.trick] + [[SEATS[p], str(card)]],
                "proven": False, "outcome": "open"}

    def _prove(self, cur, p, card, seq, trick_no) -> Optional[dict]:
        """A seat showing a card of a suit it earlier failed to follow proves the revoke."""
        t = cur.hand.trump
        suit = EFFECTIVE_SUIT[t][card.index]
        for r in cur.possible:
            # Every card a seat plays later was in its hand when it failed to follow.
            if r["seat"] == SEATS[p] and not r["proven"] and r["led"] == suit \
                    and r["trick"] < trick_no:
                r["proven"] = True
                cards = " ".join(f"{s} {Card(c).symbol}" for s, c in r["cards"])
                lead = Card(r["cards"][0][1])
                if lead.is_left_bower(t):
                    cards += f"; the {lead.symbol} led is the left bower, a trump"
                held = "the left bower, a trump" if card.is_left_bower(t) else f"the {card.name}"
                proof = dict(r, shown=str(card), proven_seq=seq, side=team_of(SEATS[p]),
                             message=(f"Revoke by {_name(SEATS[p])} in trick {r['trick']}: "
                                      f"{SUIT_NAMES[r['led']]} were led ({cards}) and "
                                      f"{_name(SEATS[p])} played {Card(r['played']).symbol} while "
                                      f"holding {held}, now shown. " + self._penalty_words(cur)))
                del proof["proven"], proof["outcome"]
                r["outcome"] = "proven"
                cur.proven.append(proof)
                cur.irregularities.append({"seq": seq, "kind": "revoke", "seat": SEATS[p],
                                           "message": proof["message"]})
                return proof
        return None

    def _penalty_words(self, cur) -> str:
        lone = cur.hand.alone is not None or cur.hand.defender_alone is not None
        if self.rules.revoke_penalty == "points":
            return (f"Penalty {5 if lone else 3} points to the other side, scored at the end of "
                    "the hand before the tricks (laws 63, 4); equal revokes cancel (law 71)")
        return ("The revoking side loses the hand, scored at the end of the hand: makers who "
                f"revoke are euchred, defenders who revoke give a march ({4 if lone else 2} points)")

    def _on_collect(self, seq, ev):
        cur = self._t.current
        if cur is None or cur.hand is None:
            raise Refusal("No trick to collect: no hand is being played")
        if cur.awaiting_collect:
            cur.awaiting_collect = False
            return Verdict(seq, True, effect="collect",
                           message=f"Trick collected. {self._turn_words()}")
        h = cur.hand
        if h.trick and h.phase == "play":
            missing = self._missing_players(h)
            if self._law50_applies(h, missing):
                who = [s for s in missing if (SEATS.index(s) - h.alone) % 2 == 1]
                return self._law50(seq, cur, f"{' and '.join(_name(s) for s in who)} did not play "
                                   f"to trick {len(h.tricks) + 1}")
            raise Refusal(f"The trick is not complete: {' and '.join(_name(s) for s in missing)} "
                          f"{'has' if len(missing) == 1 else 'have'} not played. "
                          f"{self._turn_words()}")
        raise Refusal(f"No trick to collect. {self._turn_words()}")

    def _missing_players(self, h):
        played = {q for q, _ in h.trick}
        return [SEATS[q] for q in range(4) if q not in played and q not in h.out]

    def _law50_applies(self, h, seats) -> bool:
        return (self.rules.lone_hand_forfeit_points > 0 and h.alone is not None
                and any((SEATS.index(s) - h.alone) % 2 == 1 for s in seats))

    def _law50(self, seq, cur, what):
        h = cur.hand
        lone = team_of(SEATS[h.alone])
        msg = (f"Law 50: {what} against {_name(SEATS[h.alone])}'s lone hand: "
               f"{_side_words(lone)} score {self.rules.lone_hand_forfeit_points}")
        cur.irregularities.append({"seq": seq, "kind": "law 50", "message": msg})
        points = {"NS": 0, "EW": 0}
        points[lone] = self.rules.lone_hand_forfeit_points
        return self._score_hand(seq, cur, {"law": 50, "makers": lone, "trump": h.trump,
                                           "tricks": {"NS": h.won[0], "EW": h.won[1]},
                                           "points": points, "revoke_points": {"NS": 0, "EW": 0},
                                           "alone": SEATS[h.alone]}, msg, "law 50")

    def _on_faced(self, seq, ev):
        seat = _seat_field(ev, "seat")
        cur = self._t.current
        if cur is None or cur.status not in ("dealing", "playing"):
            raise Refusal("No hand is being played: nothing to lay face up")
        h = cur.hand
        if h is not None and h.phase == "play" and self._law50_applies(h, [seat]):
            return self._law50(seq, cur, f"{_name(seat)} laid the hand face up")
        msg = (f"{_name(seat)} laid cards face up (law 48): they are exposed and the opponents "
               "may call them")
        cur.irregularities.append({"seq": seq, "kind": "exposed cards", "seat": seat,
                                   "message": msg})
        return Verdict(seq, True, effect="recorded", message=msg, irregularity="exposed cards")

    def _on_penalty(self, seq, ev):
        seat = _seat_field(ev, "seat")
        choice = _text_field(ev, "choice", '"card", "suit" or "none"')
        cur = self._t.current
        open_ = [i for i in (cur.irregularities if cur else ())
                 if i["kind"] == "lead out of turn" and i["choice"] is None]
        if not open_:
            raise Refusal("No lead out of turn is waiting for the opponents' choice")
        irr = open_[-1]
        if team_of(seat) == team_of(irr["seat"]):
            raise Refusal(f"The choice belongs to the opponents of {_name(irr['seat'])}, "
                          f"not to {_name(seat)}")
        if choice == "card":
            words = f"call the {Card(irr['card']).symbol}"
        elif choice == "suit":
            try:
                suit = parse_suit(_text_field(ev, "suit", '"C"'))
            except ValueError as exc:
                raise Refusal(str(exc)) from None
            words = f"call {SUIT_NAMES[suit]} from {_name(irr['seat'])} or {_name(_partner(irr['seat']))} at their next lead"
        elif choice == "none":
            words = "no penalty"
        else:
            raise Refusal(f"The opponents' choice is 'card', 'suit' (with \"suit\") or 'none', "
                          f"not {_shown(choice)}")
        irr["choice"] = {"seq": seq, "by": seat, "choice": choice, "words": words}
        # The choice binds the offending side from now on (enforced in _on_play).
        if choice == "card":
            cur.calls.append({"kind": "card", "seat": irr["seat"], "card": irr["card"],
                              "by": team_of(seat), "seq": seq})
        elif choice == "suit":
            cur.calls.append({"kind": "suit", "seats": [irr["seat"], _partner(irr["seat"])],
                              "suit": suit, "by": team_of(seat), "seq": seq})
        return Verdict(seq, True, effect="recorded",
                       message=f"{_name(seat)} chooses: {words} (law 52)")

    def _on_void(self, seq, ev):
        cur = self._t.current
        if cur is None or cur.status not in ("dealing", "playing"):
            raise Refusal("No hand is in progress to void")
        by = ev.get("by", "director")
        why = ev.get("reason", "a wrong or incomplete pack (law 33)")
        cur.status = "void"
        cur.awaiting_collect = False
        cur.score_after = dict(self._t.score)
        self._t.next_dealer = cur.dealer
        msg = (f"Hand {cur.number} voided by the {by}: {why}. Points already scored stand; "
               f"{_name(cur.dealer)} deals again")
        cur.irregularities.append({"seq": seq, "kind": "void", "by": by, "message": msg})
        if not self._replaying:
            self.corrections.append({"seq": seq, "kind": "void", "by": by, "hand": cur.number})
        return Verdict(seq, True, effect="void", message=msg)

    def _on_score(self, seq, ev):
        new = {}
        for team in ("NS", "EW"):
            v = _field(ev, team)
            if type(v) is not int or not 0 <= v < 1000:
                raise Refusal(f"The score of {team} must be a whole number of points "
                              f"(e.g. {{\"type\": \"score\", \"NS\": 4, \"EW\": 7}}), not {_shown(v)}")
            new[team] = v
        by = ev.get("by", "director")
        old = dict(self._t.score)
        self._t.score = new
        self._t.winner = None
        self._check_winner()
        if not self._replaying:
            self.corrections.append({"seq": seq, "kind": "score", "by": by, "from": old,
                                     "to": dict(new)})
        cur = self._t.current
        if cur is not None:
            cur.irregularities.append({"seq": seq, "kind": "score set", "by": by,
                                       "message": f"Score set by the {by}: NS {new['NS']}, "
                                                  f"EW {new['EW']} (was {old['NS']}–{old['EW']})"})
        return Verdict(seq, True, effect="score",
                       message=f"Score set by the {by}: NS {new['NS']}, EW {new['EW']}")

    # ------------------------------------------------------------------ scoring
    def _end_hand(self, seq, cur, words) -> Verdict:
        h = cur.hand
        res = h.result
        if res.thrown_in:
            cur.status = "thrown in"
            cur.result = res.to_dict()
            cur.score_after = dict(self._t.score)
            nxt = next_seat(cur.dealer)
            self._t.next_dealer = nxt
            return Verdict(seq, True, effect="hand over",
                           message=f"{words}. All passed: the hand is thrown in; "
                                   f"{_name(nxt)} deals")
        result = res.to_dict()
        points = dict(res.points)
        revoke_points = {"NS": 0, "EW": 0}
        penalty = None
        if cur.proven:
            n = {"NS": 0, "EW": 0}
            for r in cur.proven:
                n[r["side"]] += 1
            net = n["NS"] - n["EW"]
            lone = res.alone is not None or res.defender_alone is not None
            if net == 0:
                penalty = "Equal revokes on both sides cancel (law 71)"
            else:
                offender = "NS" if net > 0 else "EW"
                other = other_team(offender)
                if self.rules.revoke_penalty == "points":
                    revoke_points[other] = abs(net) * (5 if lone else 3)
                    penalty = (f"Revoke: {revoke_points[other]} points to {_side_words(other)}, "
                               "scored first (laws 63, 4)")
                else:
                    p = 4 if lone else 2
                    points = {"NS": 0, "EW": 0}
                    points[other] = p
                    if offender == res.makers:
                        penalty = (f"Revoke by the makers: {_side_words(offender)} are euchred, "
                                   f"{p} points to {_side_words(other)}")
                    else:
                        penalty = (f"Revoke by the defenders: {_side_words(other)} score a march, "
                                   f"{p} points")
        result.update(points=points, revoke_points=revoke_points, penalty=penalty,
                      played_points=dict(res.points))
        made = (f"{_side_words(res.makers)} {'are euchred' if res.euchred else 'make it'}: "
                f"tricks NS {res.tricks['NS']}, EW {res.tricks['EW']}")
        msg = f"{words}. {made}" + (f". {penalty}" if penalty else "")
        return self._score_hand(seq, cur, result, msg, "hand over")

    def _score_hand(self, seq, cur, result, msg, effect) -> Verdict:
        t = self._t
        cur.status = "over"
        cur.awaiting_collect = effect == "hand over"
        # Law 4: revoke points come before all other scores, so they may end the game
        # before the hand's own points are counted.
        for team, p in result.get("revoke_points", {}).items():
            t.score[team] += p
        self._check_winner()
        if t.winner is None:
            for team, p in result["points"].items():
                t.score[team] += p
            self._check_winner()
        cur.result = result
        cur.score_after = dict(t.score)
        t.next_dealer = next_seat(cur.dealer)
        msg += f". Score NS {t.score['NS']}, EW {t.score['EW']}"
        if t.winner is not None:
            msg += f". {_side_words(t.winner)} win the game"
        else:
            msg += f". {_name(t.next_dealer)} deals next"
        # After five tricks every seat that played has shown every card it held in play,
        # so a failure to follow that nothing proved was no revoke: the seat was void.
        # A hand ended early (law 50) leaves it unknown.
        for r in cur.possible:
            if not r["proven"]:
                r["outcome"] = "cleared" if effect == "hand over" else "never proven"
        return Verdict(seq, True, effect=effect, message=msg)

    def _check_winner(self):
        t = self._t
        if t.winner is not None:
            return
        for team in ("NS", "EW"):
            if t.score[team] >= self.rules.target:
                t.winner = team
                t.games.append({"game": t.game, "winner": team, "score": dict(t.score)})
                return

    # ------------------------------------------------------------------ views
    def _turn_words(self) -> str:
        t = self._t
        cur = t.current
        if t.winner is not None and (cur is None or cur.status not in ("dealing", "playing")):
            return f"{_side_words(t.winner)} have won the game"
        if cur is None or cur.status not in ("dealing", "playing"):
            return f"{_name(t.next_dealer)} deals next" if t.next_dealer else "Deal the first hand"
        if cur.status == "dealing":
            if cur.upcard is None:
                return f"{_name(cur.dealer)} is dealing: turn up the up-card"
            return f"{_name(next_seat(cur.dealer))} is to bid"
        h = cur.hand
        if h is None or h.to_act is None:   # a hand that is playing always has both
            return "Play on"
        seat = _name(h.to_act)
        if h.phase in ("round 1", "round 2"):
            return f"{seat} is to bid"
        if h.phase == "discard":
            return f"{seat} (dealer) is to discard"
        if h.phase in ("overcall", "defend"):
            return f"{seat} may go alone or pass"
        if cur.awaiting_collect:
            return f"Collect the trick; {seat} leads"
        return f"{seat} is to {'lead' if not h.trick else 'play'}"

    @property
    def state(self) -> dict:
        """The table now: score, hand, phase, whose turn, trump, tricks, revokes, messages.

        A plain dict of plain values: two referees fed the same events give equal states."""
        t = self._t
        cur = t.current
        st = {"seq": self.last_seq, "game": t.game, "score": dict(t.score), "winner": t.winner,
              "target": self.rules.target, "hand": None, "dealer": None, "phase": "no hand",
              "to_act": None, "upcard": None, "trump": None, "maker": None, "alone": None,
              "defender_alone": None, "trick": [], "tricks": {"NS": 0, "EW": 0},
              "known": [], "revokes": [], "possible_revokes": [],
              "next_dealer": t.next_dealer, "turn": self._turn_words(),
              "messages": list(self.messages)}
        if cur is None:
            return st
        st.update(hand=cur.number, dealer=cur.dealer,
                  upcard=None if cur.upcard is None else str(cur.upcard),
                  revokes=[r["message"] for r in cur.proven],
                  possible_revokes=[{k: r[k] for k in ("seat", "trick", "led", "played")}
                                    for r in cur.possible if r["outcome"] == "open"])
        if cur.status == "dealing":
            st.update(phase="deal", to_act=next_seat(cur.dealer) if cur.upcard else None,
                      known=[s for s in SEATS if cur.dealt[s]])
            return st
        h = cur.hand
        if h is None:
            st["phase"] = cur.status
            return st
        st.update(phase=h.phase if cur.status == "playing" else cur.status,
                  to_act=h.to_act if cur.status == "playing" else None,
                  trump=h.trump, maker=h.maker_seat,
                  alone=None if h.alone is None else SEATS[h.alone],
                  defender_alone=None if h.defender_alone is None else SEATS[h.defender_alone],
                  trick=[[SEATS[q], str(c)] for q, c in h.trick],
                  tricks={"NS": h.won[0], "EW": h.won[1]},
                  known=[s for s in SEATS if h.is_known(s)])
        return st

    def expected(self, seat: str) -> Optional[Card]:
        """The card a computer seat announced (``computer`` event) and has not yet put down."""
        cur = self._t.current
        return None if cur is None else cur.expect.get(parse_seat(seat))

    @property
    def games(self) -> list:
        """Finished games: ``{"game", "winner", "score"}`` each."""
        return [dict(g) for g in self._t.games]

    def view(self, seat: str):
        """What ``seat`` may know of the hand in play (``engine.hand.View``), or None when
        no hand is being played. A computer seat decides from this alone."""
        cur = self._t.current
        seat = parse_seat(seat)
        if cur is not None and cur.status == "dealing":
            # Bidding may start before anyone has bid: once the up-card is seen, a seat
            # sees the hand as it will be when the deal closes (its cards, if read).
            if cur.upcard is None or len(cur.dealt[seat]) not in (0, 5):
                return None
            known = {s: cur.dealt[s] for s in SEATS if len(cur.dealt[s]) == 5}
            try:
                hand = Hand.deal(self.rules, dealer=cur.dealer, hands=known, upcard=cur.upcard)
            except IllegalAction:
                return None  # a misdeal: the first bid will say so
            v = hand.view(seat)
            return dataclasses.replace(v, score=(self._t.score["NS"], self._t.score["EW"]))
        if cur is None or cur.hand is None or cur.status != "playing":
            return None
        v = cur.hand.view(seat)
        legal = v.legal
        if legal and cur.calls and cur.hand.phase == "play":
            # A law 52 call narrows what this seat may play (a computer seat obeys it).
            t = cur.hand.trump
            for c in self._binding_calls(cur, seat):
                if c["kind"] == "card":
                    only = [a for a in legal if a.card == Card(c["card"])]
                else:
                    only = [a for a in legal if EFFECTIVE_SUIT[t][a.card.index] == c["suit"]]
                legal = tuple(only) or legal
        return dataclasses.replace(v, legal=legal,
                                   score=(self._t.score["NS"], self._t.score["EW"]))

    def records(self) -> list:
        """Every hand so far as a hand record (dicts; see ``engine.records``)."""
        out = []
        for rec in self._t.hands:
            d = rec.to_dict()
            d["corrections"] = [c for c in self.corrections if c.get("hand") == rec.number]
            out.append(d)
        return out


class _MisdealNow(Exception):
    pass


def _partner(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 2) % 4]


def _bid_words(seat, action, hand) -> str:
    who = _name(seat)
    k = action.kind
    if k == "pass":
        return f"{who} passes"
    if k == "order":
        return f"{who} orders up {SUIT_NAMES[hand.trump]}" + (" alone" if action.alone else "")
    if k == "call":
        return f"{who} calls {SUIT_NAMES[action.suit]}" + (" alone" if action.alone else "")
    if k == "take":
        return f"{who} takes it alone"
    return f"{who} defends alone"


def _field(ev: dict, name: str):
    if name not in ev or ev[name] is None:
        example = {"seat": '"seat": "W"', "card": '"card": "JH"', "dealer": '"dealer": "S"',
                   "bid": '"bid": "pass"', "choice": '"choice": "card"', "suit": '"suit": "H"',
                   "NS": '"NS": 4', "EW": '"EW": 7'}.get(name, f'"{name}": ...')
        kind = str(ev.get("type"))
        article = "An" if kind[:1] in "aeiou" else "A"
        raise Refusal(f"{article} {kind} event needs the field {name!r} (e.g. {example})")
    return ev[name]


def _text_field(ev: dict, name: str, example: str) -> str:
    v = _field(ev, name)
    if not isinstance(v, str):
        raise Refusal(f"{name} must be text such as {example}, not {type(v).__name__} "
                      f"{_shown(_text_of(v), 40)}")
    return v


def _card_field(ev: dict, name: str = "card") -> Card:
    v = _field(ev, name)
    if not isinstance(v, str):
        raise Refusal(f"{name} must be card text such as \"JH\" or \"10S\", not {_shown(v)}")
    return Card(v)


def _seat_field(ev: dict, name: str) -> str:
    v = _field(ev, name)
    try:
        return parse_seat(v)
    except (ValueError, AttributeError):
        raise Refusal(f"{name} {_shown(v)} is not a seat: use N, E, S or W") from None


def _parse_event(event):
    """(event dict, None) or (None or partial dict, reason it cannot be used).

    Whatever arrives (any size, any depth, any type) is refused here with a short reason
    if it cannot be an event, so that nothing later has to guard against it."""
    if isinstance(event, dict) and "type" not in event and isinstance(event.get("raw"), str):
        event = event["raw"]  # the log's record of a line that was not a JSON object
    if isinstance(event, (bytes, bytearray)):
        event = bytes(event[:MAX_EVENT_CHARS * 4 + 1]).decode("utf-8", errors="replace")
    if isinstance(event, str):
        text = event.strip()
        if len(text) > MAX_EVENT_CHARS:
            return None, (f"An event of more than {MAX_EVENT_CHARS:,} characters "
                          f"({_shown(text)}): an event is one short JSON object, e.g. "
                          '{"type": "play", "seat": "W", "card": "JH"}')
        try:
            event = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return None, (f"Not JSON ({exc.__class__.__name__}: {str(exc)[:60]}): "
                          f"{_shown(text)}. Each event is one JSON object, e.g. "
                          '{"type": "play", "seat": "W", "card": "JH"}')
    if not isinstance(event, dict):
        return None, (f"An event must be a JSON object with a type, not "
                      f"{type(event).__name__} {_shown(_text_of(event), 40)}")
    problem = _shape_problem(event)
    if problem is not None:
        return None, problem
    kind = event.get("type")
    if kind is None:
        return event, ("The event has no type: add \"type\" (one of "
                       + ", ".join(EVENT_TYPES) + ")")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        return event, (f"Unknown event type {_shown(_text_of(kind), 40)}: known types are "
                       + ", ".join(EVENT_TYPES))
    return event, None


def _shape_problem(event: dict) -> Optional[str]:
    """Why a dict cannot be an event because of its shape (too deep, too big), or None.
    Iterative, so that no depth of nesting can exhaust the stack."""
    stack: list = [(event, 1)]
    count = 0
    while stack:
        obj, depth = stack.pop()
        if depth > _MAX_DEPTH:
            return (f"An event is a flat JSON object; this one nests more than {_MAX_DEPTH} "
                    "levels deep")
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for k, v in items:
            count += 1
            if count > 200:
                return "An event has a few fields; this one has more than 200 values"
            for part in ((k, v) if isinstance(obj, dict) else (v,)):
                if isinstance(part, str) and len(part) > _MAX_FIELD_CHARS:
                    return (f"A field of {len(part):,} characters ({_shown(part)}): an "
                            f"event's fields are short (a card, a seat, a bid)")
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
    return None


def _text_of(value) -> str:
    """``str(value)``, cut short for anything big or deep (``str`` of a list nested a
    thousand deep would exhaust the stack)."""
    if isinstance(value, str):
        return value
    import reprlib
    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxdict, r.maxstring, r.maxother = 3, 20, 20, 100, 100
    return r.repr(value)


def _shown(value, limit: int = 60) -> str:
    """A value as it appears in a message: its repr, cut to ``limit`` characters."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit - 3] + "...")
    import reprlib
    r = reprlib.Repr()
    r.maxstring = r.maxother = r.maxlong = limit
    r.maxlevel = 2
    text = r.repr(value)
    return text if len(text) <= limit + 2 else text[:limit] + "..."


def _event_words(ev: dict) -> str:
    parts = [str(ev.get("type"))]
    for k in ("seat", "dealer", "bid", "card", "NS", "EW"):
        if k in ev:
            parts.append(f"{k}={ev[k]}")
    return " ".join(parts)
