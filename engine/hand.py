"""One deal of Euchre as a state machine: bidding, the dealer's pick-up, lone hands, play, score."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from engine.cards import (DECK, SAME_COLOUR, EFFECTIVE_SUIT, POWER, SEAT_NAMES, SEATS, SUIT_MASK, SUIT_NAMES,
                          SUIT_SINGULAR, SUITS, Card, CardError, cards_of, mask_of, parse_cards,
                          parse_suit)
from engine.rules import Rules

# Phases of a hand, in the order they can occur.
BID1, OVERCALL, BID2, DISCARD, DEFEND, PLAY, OVER = (
    "round 1", "overcall", "round 2", "discard", "defend", "play", "over")


class IllegalAction(ValueError):
    """An action the rules do not allow now. The message tells the player why,
    in words they can act on ("Must follow suit: hearts were led")."""


class Action(str):
    """A player's action, which *is* its text: ``pass``, ``order``, ``order alone``,
    ``call H``, ``call H alone``, ``discard 9S``, ``play JH``, ``defend alone``,
    ``take alone``. There is one object per action.

    >>> a = Action("call h alone")
    >>> a, a.kind, a.suit, a.alone
    (Action('call H alone'), 'call', 'H', True)
    >>> Action("play T♥").card
    Card('10H')
    """

    kind: str
    suit: Optional[str]
    card: Optional[Card]
    alone: bool

    def __new__(cls, text):
        if type(text) is cls:
            return text
        try:
            return _ACTIONS[text]
        except (KeyError, TypeError):
            pass
        return _parse_action(text)

    @classmethod
    def _make(cls, text, kind, suit=None, card=None, alone=False):
        a = str.__new__(cls, text)
        a.kind, a.suit, a.card, a.alone = kind, suit, card, alone
        return a

    def __repr__(self):
        return f"Action({str.__repr__(self)})"

    def __reduce__(self):
        return (Action, (str(self),))


def _build_actions():
    table = {}

    def add(a):
        table[str(a)] = a
        return a

    add(Action._make("pass", "pass"))
    add(Action._make("order", "order"))
    add(Action._make("order alone", "order", alone=True))
    add(Action._make("defend alone", "defend", alone=True))
    add(Action._make("take alone", "take", alone=True))
    add(Action._make("discard", "discard"))  # the dealer discarded, card not seen
    for s in SUITS:
        add(Action._make(f"call {s}", "call", suit=s))
        add(Action._make(f"call {s} alone", "call", suit=s, alone=True))
    plays = tuple(add(Action._make(f"play {c}", "play", card=c)) for c in DECK)
    discards = tuple(add(Action._make(f"discard {c}", "discard", card=c)) for c in DECK)
    return table, plays, discards


_ACTIONS, PLAY_ACTIONS, DISCARD_ACTIONS = _build_actions()
PASS, ORDER, ORDER_ALONE = _ACTIONS["pass"], _ACTIONS["order"], _ACTIONS["order alone"]
DEFEND_ALONE, TAKE_ALONE, DISCARD_UNSEEN = (_ACTIONS["defend alone"], _ACTIONS["take alone"],
                                            _ACTIONS["discard"])
CALLS = {s: _ACTIONS[f"call {s}"] for s in SUITS}
# Play actions of a bitmask of cards, filled as masks are met: legal_actions is the hot path.
_PLAYS_OF: dict = {}
CALLS_ALONE = {s: _ACTIONS[f"call {s} alone"] for s in SUITS}


def _parse_action(text) -> Action:
    if not isinstance(text, str):
        raise IllegalAction(f"{text!r} is not an action")
    words = text.strip().lower().split()
    try:
        if words and words[0] in ("play", "discard") and len(words) == 2:
            return _ACTIONS[f"{words[0]} {Card(words[1])}"]
        if words and words[0] == "call" and len(words) in (2, 3):
            key = f"call {parse_suit(words[1])}" + (" alone" if len(words) == 3 else "")
            return _ACTIONS[key]
        return _ACTIONS[" ".join(words)]
    except (KeyError, CardError) as exc:
        detail = f" ({exc})" if isinstance(exc, CardError) else ""
        raise IllegalAction(
            f"{text!r} is not an action{detail}: use pass, order, order alone, call H, "
            "call H alone, discard 9S, play JH, defend alone or take alone") from None


@dataclass(frozen=True)
class HandResult:
    """How a hand ended. ``points`` are what each side scores for it.

    ``thrown_in`` is True when all passed twice (no points; the deal passes on)."""

    makers: Optional[str]
    maker: Optional[str]
    trump: Optional[str]
    tricks: dict
    points: dict
    euchred: bool = False
    march: bool = False
    alone: Optional[str] = None
    defender_alone: Optional[str] = None
    thrown_in: bool = False

    def to_dict(self) -> dict:
        return dict(makers=self.makers, maker=self.maker, trump=self.trump, tricks=dict(self.tricks),
                    points=dict(self.points), euchred=self.euchred, march=self.march,
                    alone=self.alone, defender_alone=self.defender_alone, thrown_in=self.thrown_in)


@dataclass(frozen=True)
class View:
    """What one seat may know of a hand: its own cards, the up-card, who dealt, every
    bid, every card played, its own discard, and nothing else. Computer players get
    only this; two deals that differ only in cards this seat cannot see give equal views."""

    seat: str
    rules: Rules
    dealer: str
    upcard: Optional[Card]
    cards: tuple
    phase: str
    to_act: Optional[str]
    bids: tuple            # ((seat, action text), ...) bidding, overcall and defend actions
    trump: Optional[str]
    maker: Optional[str]
    alone: Optional[str]
    defender_alone: Optional[str]
    sitting_out: tuple
    dealer_took_upcard: bool
    discard: Optional[Card]  # only the dealer's own view shows it
    tricks: tuple          # completed tricks: ((leader, ((seat, card), ...), winner), ...)
    trick: tuple           # cards of the trick in progress: ((seat, card), ...)
    tricks_won: tuple      # (NS, EW)
    legal: tuple           # this seat's legal actions when it is to act, else ()
    score: Optional[tuple] = None  # game score (NS, EW) before this hand, when a Game runs it

    def legal_actions(self) -> list:
        return list(self.legal)


def score_hand(rules: Rules, makers_tricks: int, alone: bool, defender_alone: bool) -> tuple:
    """Points (makers, defenders) for a played hand, by the common scoring table (docs/engine.md).

    >>> score_hand(Rules.preset("standard"), 5, True, False)
    (4, 0)
    >>> score_hand(Rules.preset("somerset-1888"), 2, True, False)
    (0, 4)
    """
    if makers_tricks == 5:
        return (4 if alone else 2), 0
    if makers_tricks >= 3:
        return 1, 0
    points = 2
    if alone:
        points = max(points, rules.lone_euchre_points)
    if defender_alone:
        points = max(points, rules.lone_defender_march_points if makers_tricks == 0
                     else rules.lone_defender_euchre_points)
    return 0, points


def _seat_index(seat) -> int:
    try:
        return SEATS.index(seat)
    except ValueError:
        raise IllegalAction(f"{seat!r} is not a seat: use N, E, S or W") from None


def _name(i: int) -> str:
    return SEAT_NAMES[SEATS[i]]


class Hand:
    """One deal: from the first bid to the last trick.

    >>> h = Hand.deal(Rules.preset("standard"), dealer="S",
    ...     hands={"N": "9S 10S JS QS KS", "E": "AS 9H 10H JH QH", "S": "KH AH 9D 10D JD",
    ...            "W": "QD KD AD 9C 10C"}, upcard="JC")
    >>> h.to_act, [str(a) for a in h.legal_actions()]
    ('W', ['pass', 'order', 'order alone'])
    >>> h.apply("order"); h.to_act, h.phase
    ('S', 'discard')
    """

    __slots__ = ("rules", "dealer", "upcard", "kitty", "initial", "known", "hands", "unseen",
                 "phase", "to_act_i", "passes", "trump", "maker", "alone", "defender_alone",
                 "out", "dealer_took", "discarded", "overcall_from", "defend_asked",
                 "history", "tricks", "trick", "leader", "won", "played", "played_by", "result",
                 "score", "_bids")

    # ----------------------------------------------------------------- creation
    @classmethod
    def deal(cls, rules: Rules, dealer: str = "S", hands: Optional[dict] = None,
             upcard=None, kitty=None, seed: Optional[int] = None, rng=None) -> "Hand":
        """A new hand. Give every seat's cards and the up-card, or a ``seed`` (or ``rng``)
        to shuffle. A seat given as ``None`` (or left out, when ``upcard`` is given)
        has unknown cards: the referee of a real table knows only some hands."""
        if hands is None and upcard is None:
            r = rng if rng is not None else random.Random(seed)
            deck = list(DECK)
            r.shuffle(deck)
            d = SEATS.index(dealer)
            # Cards go out in packets of 2 and 3 from the dealer's left (the 1888 laws, law 42);
            # with a shuffled deck the packets change nothing, so deal them in order.
            hands = {SEATS[(d + 1 + i) % 4]: deck[5 * i:5 * i + 5] for i in range(4)}
            upcard, kitty = deck[20], deck[21:24]
        h = cls.__new__(cls)
        h._setup(rules, dealer, hands or {}, upcard, kitty)
        return h

    def _setup(self, rules, dealer, hands, upcard, kitty):
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules (e.g. Rules.preset('standard'))")
        self.rules = rules
        self.dealer = _seat_index(dealer)
        if upcard is None:
            raise IllegalAction("A hand needs its up-card")
        self.upcard = Card(upcard)
        known, masks = [], []
        seen = self.upcard.bit
        for s in SEATS:
            cards = hands.get(s)
            if cards is None:
                known.append(False)
                masks.append(0)
                continue
            cs = parse_cards(cards)
            m = mask_of(cs)
            if len(cs) != 5 or bin(m).count("1") != 5:
                raise IllegalAction(f"{SEAT_NAMES[s]} must hold five different cards, not {len(cs)}"
                                    f" ({' '.join(cs)})")
            if m & seen:
                dup = cards_of(m & seen)[0]
                raise IllegalAction(f"The {dup.name} is dealt twice: check the pack")
            seen |= m
            known.append(True)
            masks.append(m)
        self.kitty = tuple(parse_cards(kitty)) if kitty is not None else None
        if self.kitty is not None:
            km = mask_of(self.kitty)
            if km & seen or len(self.kitty) != 3:
                raise IllegalAction("The kitty must be three cards not dealt to any seat")
            seen |= km
        self.known = tuple(known)
        self.initial = tuple(masks)
        self.hands = list(masks)
        # Cards that no known hand holds and that are not the up-card: where an unknown
        # seat's cards (and the kitty) must come from.
        self.unseen = ((1 << 24) - 1) & ~seen
        self.phase = BID1
        self.to_act_i = (self.dealer + 1) % 4
        self.passes = 0
        self.trump = None
        self.maker = None
        self.alone = None
        self.defender_alone = None
        self.out = ()
        self.dealer_took = False
        self.discarded = None
        self.overcall_from = None
        self.defend_asked = 0
        self.history = []
        self.tricks = []
        self.trick = []
        self.leader = None
        self.won = [0, 0]
        self.played = 0
        self.played_by = [0, 0, 0, 0]
        self.result = None
        self.score = getattr(self, "score", None)
        self._bids = []

    # ----------------------------------------------------------------- queries
    @property
    def to_act(self) -> Optional[str]:
        """The seat to act, or None when the hand is over."""
        return None if self.phase == OVER else SEATS[self.to_act_i]

    @property
    def dealer_seat(self) -> str:
        return SEATS[self.dealer]

    @property
    def maker_seat(self) -> Optional[str]:
        return None if self.maker is None else SEATS[self.maker]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def actions(self) -> list:
        """Every action so far, as ``(seat, Action)``."""
        return list(self.history)

    def cards(self, seat: str) -> list:
        """The cards a known seat holds now."""
        return cards_of(self.hands[_seat_index(seat)])

    def is_known(self, seat: str) -> bool:
        return self.known[_seat_index(seat)]

    def legal_actions(self) -> list:
        """The actions the seat to act may take now."""
        p = self.to_act_i
        ph = self.phase
        if ph == PLAY:
            m = self._legal_play_mask(p)
            try:
                return list(_PLAYS_OF[m])
            except KeyError:
                plays = _PLAYS_OF[m] = tuple(PLAY_ACTIONS[c.index] for c in cards_of(m))
                return list(plays)
        if ph == BID1:
            if self.rules.canadian_loner and p == (self.dealer + 2) % 4:
                return [PASS, ORDER_ALONE]
            return [PASS, ORDER, ORDER_ALONE]
        if ph == BID2:
            up = self.upcard.suit
            out = [] if (self.rules.stick_the_dealer and p == self.dealer) else [PASS]
            for s in SUITS:
                if s != up:
                    out.append(CALLS[s])
                    out.append(CALLS_ALONE[s])
            return out
        if ph == DISCARD:
            if not self.known[p]:
                return [DISCARD_UNSEEN]
            m = self.hands[p]
            if not self.rules.dealer_may_discard_upcard:
                m &= ~self.upcard.bit
            return [DISCARD_ACTIONS[c.index] for c in cards_of(m)]
        if ph in (OVERCALL, DEFEND):
            return [PASS, TAKE_ALONE if ph == OVERCALL else DEFEND_ALONE]
        return []

    def _legal_play_mask(self, p: int) -> int:
        if not self.known[p]:
            return self._possible_mask(p)
        m = self.hands[p]
        if self.trick:
            follow = m & SUIT_MASK[self.trump][EFFECTIVE_SUIT[self.trump][self.trick[0][1].index]]
            if follow:
                return follow
        return m

    def possible_cards(self, seat: str) -> list:
        """Cards ``seat`` could hold now as far as the table knows: its own cards when its
        hand is known; otherwise every card not seen elsewhere (not in a known hand, not
        played, not the turned-down up-card; the up-card for a dealer who took it)."""
        p = _seat_index(seat)
        return cards_of(self.hands[p] if self.known[p] else self._possible_mask(p))

    def _possible_mask(self, p: int) -> int:
        """Cards an unknown seat could still play: not in a known hand, not yet played,
        not the up-card unless this seat is the dealer who took it."""
        m = self.unseen & ~self._played_mask()
        if self.dealer_took and p == self.dealer and not (self._played_mask() & self.upcard.bit):
            if self.discarded is None or self.discarded != self.upcard:
                m |= self.upcard.bit
        return m

    def _played_mask(self) -> int:
        return self.played_by[0] | self.played_by[1] | self.played_by[2] | self.played_by[3]

    # ----------------------------------------------------------------- actions
    def apply(self, action, seat: Optional[str] = None) -> None:
        """Apply the action of the seat to act (text or Action). With ``seat``, check
        that it is that seat's turn. Raises IllegalAction with a reason a player can read."""
        a = action if type(action) is Action else Action(action)
        p = self.to_act_i
        if seat is not None and seat != SEATS[p]:
            self._turn_error(seat)
        ph = self.phase
        if ph == PLAY and a.kind == "play":
            self._play(p, a)
        elif ph == BID1:
            self._bid1(p, a)
        elif ph == BID2:
            self._bid2(p, a)
        elif ph == DISCARD:
            self._discard(p, a)
        elif ph == OVERCALL:
            self._overcall(p, a)
        elif ph == DEFEND:
            self._defend(p, a)
        else:
            self._phase_error(a)
        self.history.append((SEATS[p], a))

    def _turn_error(self, seat):
        s = _seat_index(seat)
        if self.phase == OVER:
            raise IllegalAction("The hand is over")
        if s in self.out:
            raise IllegalAction(f"{_name(s)} sits out this hand: {self._alone_words()}")
        verb = "play" if self.phase == PLAY else "bid" if self.phase in (BID1, BID2) else "act"
        raise IllegalAction(f"Not {_name(s)}'s turn: {_name(self.to_act_i)} is to {verb}")

    def _alone_words(self):
        if self.alone is not None:
            return f"{_name(self.alone)} plays alone"
        return f"{_name(self.defender_alone)} defends alone"

    def _phase_error(self, a):
        if self.phase == OVER:
            raise IllegalAction("The hand is over: no more actions")
        who = _name(self.to_act_i)
        need = {PLAY: f"{who} must play a card", DISCARD: f"{who} must discard a card",
                BID1: f"{who} must pass or order up", BID2: f"{who} must pass or name a suit",
                OVERCALL: f"{who} may take it alone or pass",
                DEFEND: f"{who} may defend alone or pass"}[self.phase]
        raise IllegalAction(f"Cannot {a} now: {need}")

    def _bid1(self, p, a):
        if a is PASS:
            self.passes += 1
            self._bids.append((p, a))
            if p == self.dealer:
                self.phase = BID2
            self.to_act_i = (p + 1) % 4
            return
        if a.kind == "call":
            if a.suit == self.upcard.suit:
                raise IllegalAction(
                    f"In the first round say 'order' to make {SUIT_NAMES[a.suit]} trump")
            raise IllegalAction(f"First round: order up {SUIT_NAMES[self.upcard.suit]} or pass; "
                                "other suits can be named only after the up-card is turned down")
        if a.kind != "order":
            self._phase_error(a)
        if self.rules.canadian_loner and not a.alone and p == (self.dealer + 2) % 4:
            raise IllegalAction("Canadian loner: the dealer's partner who orders up must go alone")
        self._bids.append((p, a))
        self.trump = self.upcard.suit
        self.maker = p
        self.alone = p if a.alone else None
        if self.rules.overcall_alone and p in ((self.dealer + 1) % 4, (self.dealer + 2) % 4):
            self.phase = OVERCALL
            self.overcall_from = p
            self.to_act_i = (p + 2) % 4
            return
        self._after_round1()

    def _overcall(self, p, a):
        if a is TAKE_ALONE:
            self.maker = p
            self.alone = p
        elif a is not PASS:
            self._phase_error(a)
        self._bids.append((p, a))
        self._after_round1()

    def _after_round1(self):
        partner_alone = self.alone is not None and self.alone == (self.dealer + 2) % 4
        if partner_alone and not self.rules.dealer_picks_up_when_partner_alone:
            self._after_discard()
            return
        self.dealer_took = True
        if self.known[self.dealer]:
            self.hands[self.dealer] |= self.upcard.bit
        self.phase = DISCARD
        self.to_act_i = self.dealer

    def _bid2(self, p, a):
        if a is PASS:
            if self.rules.stick_the_dealer and p == self.dealer:
                raise IllegalAction("The dealer must name a suit (stick the dealer)")
            self.passes += 1
            self._bids.append((p, a))
            if p == self.dealer:
                self._finish_thrown_in()
                return
            self.to_act_i = (p + 1) % 4
            return
        if a.kind == "order":
            raise IllegalAction(f"{SUIT_NAMES[self.upcard.suit].capitalize()} were turned down: "
                                "name another suit")
        if a.kind != "call":
            self._phase_error(a)
        if a.suit == self.upcard.suit:
            raise IllegalAction(f"{SUIT_NAMES[a.suit].capitalize()} were turned down: "
                                "name another suit")
        self._bids.append((p, a))
        self.trump = a.suit
        self.maker = p
        self.alone = p if a.alone else None
        self._after_discard()

    def _discard(self, p, a):
        if a.kind != "discard":
            self._phase_error(a)
        if a.card is None:
            if self.known[p]:
                raise IllegalAction(f"Say which card {_name(p)} discards")
        elif self.known[p]:
            if not self.hands[p] & a.card.bit:
                raise IllegalAction(f"{_name(p)} does not hold the {a.card.name}")
            if a.card == self.upcard and not self.rules.dealer_may_discard_upcard:
                raise IllegalAction("The up-card may not be discarded: discard another card")
            self.hands[p] &= ~a.card.bit
        else:
            if not self._possible_mask(p) & a.card.bit:
                raise IllegalAction(f"{_name(p)} cannot hold the {a.card.name}: it is seen elsewhere")
            if a.card == self.upcard and not self.rules.dealer_may_discard_upcard:
                raise IllegalAction("The up-card may not be discarded: discard another card")
            self.unseen &= ~a.card.bit
        self.discarded = a.card
        self._after_discard()

    def _after_discard(self):
        if self.rules.defend_alone:
            first = (self.dealer + 1) % 4
            if (first - self.maker) % 2 == 0:
                first = (first + 1) % 4
            self.phase = DEFEND
            self.defend_asked = 0
            self.to_act_i = first
            return
        self._start_play()

    def _defend(self, p, a):
        if a is DEFEND_ALONE:
            self._bids.append((p, a))
            self.defender_alone = p
            self._start_play()
            return
        if a is not PASS:
            self._phase_error(a)
        self._bids.append((p, a))
        self.defend_asked += 1
        if self.defend_asked == 2:
            self._start_play()
        else:
            self.to_act_i = (p + 2) % 4

    def _start_play(self):
        out = []
        if self.alone is not None:
            out.append((self.alone + 2) % 4)
        if self.defender_alone is not None:
            out.append((self.defender_alone + 2) % 4)
        self.out = tuple(out)
        r = self.rules
        if self.defender_alone is not None and self.alone is not None and r.lone_defender_leads:
            lead = self.defender_alone
        elif r.lone_lead == "left_of_loner" and (self.alone is not None or self.defender_alone is not None):
            loner = self.defender_alone if self.alone is None else self.alone
            lead = (loner + 1) % 4
        else:
            lead = (self.dealer + 1) % 4
        while lead in self.out:
            lead = (lead + 1) % 4
        self.phase = PLAY
        self.leader = lead
        self.to_act_i = lead

    def _play(self, p, a):
        c = a.card
        bit = c.bit
        if self.known[p]:
            m = self.hands[p]
            if not m & bit:
                raise IllegalAction(self._not_held(p, c))
            if self.trick:
                follow = m & SUIT_MASK[self.trump][EFFECTIVE_SUIT[self.trump][self.trick[0][1].index]]
                if follow and not follow & bit:
                    raise IllegalAction(self._follow_error(p, c))
            self.hands[p] = m & ~bit
        elif not self._possible_mask(p) & bit:
            raise IllegalAction(self._not_held(p, c))
        self.played_by[p] |= bit
        trick = self.trick
        trick.append((p, c))
        self.played += 1
        n_active = 4 - len(self.out)
        if len(trick) < n_active:
            nxt = (p + 1) % 4
            while nxt in self.out:
                nxt = (nxt + 1) % 4
            self.to_act_i = nxt
            return
        # The trick is complete: the highest trump wins, else the highest of the suit led.
        t = self.trump
        eff, power = EFFECTIVE_SUIT[t], POWER[t]
        led = eff[trick[0][1].index]
        best_p, best = trick[0][0], power[trick[0][1].index]
        for q, card in trick[1:]:
            s = eff[card.index]
            if s == t or s == led:
                v = power[card.index]
                if v > best:
                    best_p, best = q, v
        self.tricks.append((self.leader, tuple(trick), best_p))
        self.won[best_p & 1] += 1
        self.trick = []
        if len(self.tricks) == 5:
            self._finish()
        else:
            self.leader = best_p
            self.to_act_i = best_p

    def _not_held(self, p, c):
        if self._played_mask() & c.bit:
            return f"The {c.name} has already been played"
        if c == self.upcard and not self.dealer_took:
            return f"The {c.name} was the up-card, turned down: it is out of this hand"
        if self.discarded == c:
            return f"The {c.name} was discarded"
        if self.known[p]:
            return f"{_name(p)} does not hold the {c.name}"
        return f"{_name(p)} cannot hold the {c.name}: it is seen elsewhere"

    def _follow_error(self, p, c):
        t = self.trump
        led_card = self.trick[0][1]
        led = EFFECTIVE_SUIT[t][led_card.index]
        msg = f"Must follow suit: {SUIT_NAMES[led]} were led"
        if c.is_left_bower(t) and c.suit == led:
            # The player thinks the jack follows its printed suit.
            return (f"The {c.name} is the left bower: it counts as a {SUIT_SINGULAR[t]}. " + msg)
        left = Card("J" + SAME_COLOUR[t])
        if led == t and self.hands[p] & left.bit:
            return msg + f". The {left.name} is the left bower: it counts as a {SUIT_SINGULAR[t]}"
        return msg

    # ----------------------------------------------------------------- results
    def _finish_thrown_in(self):
        self.phase = OVER
        self.result = HandResult(makers=None, maker=None, trump=None,
                                 tricks={"NS": 0, "EW": 0}, points={"NS": 0, "EW": 0},
                                 thrown_in=True)

    def _finish(self):
        self.phase = OVER
        mk = self.maker & 1
        makers = "NS" if mk == 0 else "EW"
        defenders = "EW" if mk == 0 else "NS"
        taken = self.won[mk]
        mp, dp = score_hand(self.rules, taken, self.alone is not None,
                            self.defender_alone is not None)
        self.result = HandResult(
            makers=makers, maker=SEATS[self.maker], trump=self.trump,
            tricks={"NS": self.won[0], "EW": self.won[1]}, points={makers: mp, defenders: dp},
            euchred=taken < 3, march=taken == 5,
            alone=None if self.alone is None else SEATS[self.alone],
            defender_alone=None if self.defender_alone is None else SEATS[self.defender_alone])

    # ----------------------------------------------------------------- undo, copy
    def undo(self):
        """Take back the last action exactly; returns it as ``(seat, Action)``."""
        if not self.history:
            raise IllegalAction("Nothing to undo in this hand")
        history = self.history[:-1]
        last = self.history[-1]
        hands = {s: cards_of(m) if k else None for s, m, k in zip(SEATS, self.initial, self.known)}
        score = self.score
        self._setup(self.rules, SEATS[self.dealer], hands, self.upcard, self.kitty)
        self.score = score
        for _seat, a in history:
            self.apply(a)
        return last

    def copy(self) -> "Hand":
        """An independent copy (for search)."""
        h = Hand.__new__(Hand)
        for k in Hand.__slots__:
            setattr(h, k, getattr(self, k))
        h.hands = list(self.hands)
        h.history = list(self.history)
        h.tricks = list(self.tricks)
        h.trick = list(self.trick)
        h.won = list(self.won)
        h.played_by = list(self.played_by)
        h._bids = list(self._bids)
        return h

    def state_key(self) -> tuple:
        """Everything that defines the state, for exact comparisons in tests."""
        return (self.rules, self.dealer, self.upcard, self.kitty, self.initial, self.known,
                tuple(self.hands), self.unseen, self.phase, self.to_act_i, self.passes, self.trump,
                self.maker, self.alone, self.defender_alone, self.out, self.dealer_took,
                self.discarded, self.overcall_from, self.defend_asked, tuple(self.history),
                tuple(self.tricks), tuple(self.trick), self.leader, tuple(self.won), self.played,
                tuple(self.played_by), self.result, tuple(self._bids))

    # ----------------------------------------------------------------- views, text
    def view(self, seat: str) -> View:
        """What ``seat`` may know now (see View)."""
        s = _seat_index(seat)
        over = self.phase == OVER
        own = self.hands[s]
        return View(
            seat=SEATS[s], rules=self.rules, dealer=SEATS[self.dealer], upcard=self.upcard,
            cards=tuple(cards_of(own)), phase=self.phase, to_act=self.to_act,
            bids=tuple((SEATS[q], str(a)) for q, a in self._bids),
            trump=self.trump, maker=self.maker_seat,
            alone=None if self.alone is None else SEATS[self.alone],
            defender_alone=None if self.defender_alone is None else SEATS[self.defender_alone],
            sitting_out=tuple(SEATS[q] for q in self.out), dealer_took_upcard=self.dealer_took,
            discard=self.discarded if s == self.dealer else None,
            tricks=tuple((SEATS[l], tuple((SEATS[q], c) for q, c in t), SEATS[w])
                         for l, t, w in self.tricks),
            trick=tuple((SEATS[q], c) for q, c in self.trick),
            tricks_won=tuple(self.won),
            legal=tuple(self.legal_actions()) if (not over and s == self.to_act_i) else (),
            score=self.score)

    def to_dict(self) -> dict:
        """The deal and the actions: enough to replay the hand exactly."""
        return {
            "dealer": SEATS[self.dealer],
            "hands": {s: (" ".join(cards_of(m)) if k else None)
                      for s, m, k in zip(SEATS, self.initial, self.known)},
            "upcard": str(self.upcard),
            "kitty": None if self.kitty is None else " ".join(self.kitty),
            "actions": [[s, str(a)] for s, a in self.history],
        }

    @classmethod
    def from_dict(cls, rules: Rules, data: dict) -> "Hand":
        h = cls.deal(rules, dealer=data["dealer"], hands=data["hands"], upcard=data["upcard"],
                     kitty=data.get("kitty"))
        for seat, a in data["actions"]:
            h.apply(a, seat=seat)
        return h

    def __repr__(self):
        return f"<Hand dealer={SEATS[self.dealer]} phase={self.phase} to_act={self.to_act}>"
