"""Peer players for the benchmark: OpenSpiel's C++ ISMCTS, euchre-cli 0.7.0's computer and a perfect-information reference, behind our bot interface.

The first two are development dependencies (``open_spiel``, ``euchre-cli==0.7.0``) and
play under the ``openspiel`` preset. They answer ``choose(view)`` like our bots; the ISMCTS
player also needs the true deal (OpenSpiel searches from a full state and resamples from its
information state), which the match runner gives it through ``start_hand`` and
``observe``. Known leaks in the peers' favour, kept as they are upstream:
ISMCTS's resampling treats the kitty and the dealer's discard as known (4 cards).
The perfect-information player sees every card by design (see ``PerfectPlayer``).
"""
from __future__ import annotations

import random
import zlib

from engine.cards import SEATS, Card
from engine.hand import Action
from bench.openspiel_bridge import (ACTION_SUIT, ALONE, PASS, from_os_card,
                                    os_actions_for, os_state_for)

PEER_RULES = "openspiel"


def _check_rules(rules, who):
    from engine import Rules
    want = Rules.preset("openspiel")
    same = {k: getattr(rules, k) == getattr(want, k) for k in
            ("stick_the_dealer", "dealer_picks_up_when_partner_alone", "lone_lead",
             "canadian_loner", "overcall_alone", "dealer_may_discard_upcard")}
    if not all(same.values()):
        bad = [k for k, ok in same.items() if not ok]
        raise ValueError(f"{who} plays only under the openspiel preset (optionally with "
                         f"defend_alone): use --rules openspiel (differs in {', '.join(bad)})")


def make_peer(name: str, seed: int, rules, simulations: int = 1000):
    """``"ismcts"`` or ``"euchre-cli"`` (the openspiel preset), or ``"perfect"`` (any
    rules): a peer player for the benchmark. ``simulations`` is ISMCTS's search size."""
    if name == "ismcts":
        return IsmctsPlayer(seed, rules, simulations=simulations)
    if name == "euchre-cli":
        return EuchreCliPlayer(seed, rules)
    if name == "perfect":
        return PerfectPlayer(seed, rules)
    raise ValueError(f"Unknown peer {name!r}: use ismcts, euchre-cli or perfect")


class IsmctsPlayer:
    """OpenSpiel's ``ISMCTSBot`` (C++), 1,000 simulations with random rollouts."""

    level = "ismcts"

    def __init__(self, seed: int, rules, simulations: int = 1000, uct_c: float = 2.0):
        _check_rules(rules, "ISMCTS")
        import pyspiel
        self.game = pyspiel.load_game("euchre", {"allow_lone_defender": rules.defend_alone,
                                                 "stick_the_dealer": True})
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self.bot = pyspiel.ISMCTSBot(seed, evaluator, uct_c, simulations, -1,
                                     pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        self.state = None
        self.pending_discard = None
        self.rng = random.Random(seed)

    def start_hand(self, hand) -> None:
        """Mirror a new deal in OpenSpiel (the runner knows every hand)."""
        hands = {s: hand.cards(s) for s in SEATS}
        self.state = os_state_for(self.game, hand.dealer_seat, hands, hand.upcard)
        self.pending_discard = None

    def observe(self, seat, action, phase_before, hand) -> None:
        """Apply an action taken at the table to the mirror state."""
        for a in os_actions_for(phase_before, Action(action), hand):
            self.state.apply_action(a)

    def choose(self, view) -> Action:
        st = self.state
        if st is None or st.current_player() != SEATS.index(view.seat):
            raise RuntimeError("ISMCTS mirror is out of step with the table: start_hand/observe missing")
        ph = view.phase
        if ph in ("round 1", "round 2"):
            a = self.bot.step(st)
            if a == PASS:
                return Action("pass")
            # Our bid carries "alone"; OpenSpiel asks it later: look ahead on a copy.
            clone = st.clone()
            clone.apply_action(a)
            if ph == "round 1":
                legal = clone.legal_actions()
                if view.seat == view.dealer:
                    d = self.bot.step(clone)
                    self.pending_discard = d
                else:
                    # The dealer has not discarded yet; ISMCTS treats the discard as
                    # known, so give it a random card of the dealer's rather than the real one.
                    d = self.rng.choice(legal)
                clone.apply_action(d)
            alone = self.bot.step(clone) == ALONE
            if ph == "round 1":
                return Action("order alone" if alone else "order")
            return Action(f"call {ACTION_SUIT[a]}" + (" alone" if alone else ""))
        if ph == "discard":
            d = self.pending_discard
            self.pending_discard = None
            if d is None or d not in st.legal_actions():
                d = self.bot.step(st)
            return Action(f"discard {from_os_card(d)}")
        if ph == "defend":
            return Action("defend alone" if self.bot.step(st) == ALONE else "pass")
        if ph == "play":
            return Action(f"play {from_os_card(self.bot.step(st))}")
        return view.legal[0]

    def advise(self, view):
        return self.choose(view), "OpenSpiel ISMCTS"


class EuchreCliPlayer:
    """euchre-cli 0.7.0's computer player (``euchre.abstract.Computer``): never alone,
    never defends alone; when stuck as dealer it names its longest suit."""

    level = "euchre-cli"

    def __init__(self, seed: int, rules):
        _check_rules(rules, "euchre-cli")
        # Only euchre.abstract: euchre.root configures logging into /var/log.
        from euchre.abstract import Card as CliCard, Computer, Face, Suit, Team
        self._CliCard = CliCard
        self.suits = {"S": Suit("Spade", "Black"), "C": Suit("Club", "Black"),
                      "D": Suit("Diamond", "Red"), "H": Suit("Heart", "Red")}
        self.faces = {"9": Face("Nine", 9), "10": Face("Ten", 10), "J": Face("Jack", 11),
                      "Q": Face("Queen", 12), "K": Face("King", 13), "A": Face("Ace", 14)}
        self.player = Computer("cpu", Team("cpu"))
        self.seed = seed
        self._back = {}

    def _cli(self, card: Card):
        c = self._CliCard(self.suits[card.suit], self.faces[card.rank])
        self._back[id(c)] = card
        return c

    def choose(self, view) -> Action:
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        # euchre-cli draws from the global random module ("order by accident" 1 in 11):
        # seed it per decision so a match replays exactly, then restore it.
        saved = random.getstate()
        random.seed(zlib.crc32(repr((self.seed, view.seat, view.bids, view.cards, view.trick,
                                     view.tricks)).encode()))
        try:
            a = self._choose(view, legal)
        finally:
            random.setstate(saved)
        return a if a in legal else legal[0]

    def _choose(self, view, legal):
        p = self.player
        p.is_dealer = view.seat == view.dealer
        self._back = {}
        ph = view.phase
        up = view.upcard
        if ph == "round 1":
            p.hand = [self._cli(c) for c in view.cards]
            partner_is_dealer = SEATS[(SEATS.index(view.seat) + 2) % 4] == view.dealer
            if p.call_pick_up(self._cli(up), partner_is_dealer) and Action("order") in legal:
                return Action("order")
            return Action("pass")
        if ph == "round 2":
            p.hand = [self._cli(c) for c in view.cards]
            suit = p.call_trump_suit(self.suits[up.suit])
            letter = next(k for k, v in self.suits.items() if v is suit)
            if letter != up.suit:
                return Action(f"call {letter}")
            if Action("pass") in legal:
                return Action("pass")
            counts = {s: sum(1 for c in view.cards if c.is_trump(s)) for s in "SHDC" if s != up.suit}
            return Action(f"call {max(counts, key=counts.get)}")
        if ph == "discard":
            p.hand = [self._cli(c) for c in view.cards if c != up]
            d = self._back[id(p.pick_up_card(self._cli(up)))]
            if Action(f"discard {d}") not in legal:
                d = min((a.card for a in legal), key=lambda c: (c.is_trump(view.trump), c.index))
            return Action(f"discard {d}")
        if ph == "play":
            p.hand = [self._cli(c) for c in view.cards]
            played = [self._cli(c) for _, c in view.trick]
            chosen = p.play_card(played, self.suits[view.trump])
            return Action(f"play {self._back[id(chosen)]}")
        return Action("pass") if Action("pass") in legal else legal[0]

    def advise(self, view):
        return self.choose(view), "euchre-cli 0.7.0"


class PerfectPlayer:
    """The perfect-information reference, for the benchmark only: it sees every card of
    the deal (the runner hands it the true hand through ``start_hand``), plays each card
    that is best when all four hands are known and played perfectly, and bids, discards
    and defends by trying each action on the true deal, the other seats bidding on by
    Medium's rules and the play solved exactly. Never at a table: it peeks by design,
    and the gap between it and a level shows how much is left to win."""

    level = "perfect"

    def __init__(self, seed: int, rules):
        from engine.bots.search import SearchBot
        self.search = SearchBot(seed=seed, samples=1, budget=None)
        self.hand = None

    def start_hand(self, hand) -> None:
        """The true hand, read (never changed) at each decision."""
        self.hand = hand

    def choose(self, view) -> Action:
        from engine.bots.search import play_values
        h = self.hand
        if h is None or h.to_act != view.seat or h.phase != view.phase:
            raise RuntimeError("The perfect player needs start_hand with the true hand")
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        rule = self.search.medium.choose(view)
        if view.phase == "play":
            hands = [m if p not in h.out else 0 for p, m in enumerate(h.hands)]
            values = play_values(view, hands, legal)
        else:
            my_team = SEATS.index(view.seat) & 1
            values = {}
            for a in legal:
                g = h.copy()
                g.apply(a)
                values[a] = self.search._score_hand(view, self.search._rollout(g), my_team)
        # Equal values: Medium's choice, else the first legal action (deterministic).
        return max(legal, key=lambda a: (values[a], a == rule))

    def advise(self, view):
        return self.choose(view), "perfect information (benchmark only)"


class Hybrid:
    """One player bidding like ``bidder`` (every phase before the play) and playing the
    cards like ``player``: splits a level's strength into bidding and play."""

    def __init__(self, bidder, player):
        self.bidder, self.player = bidder, player
        self.level = f"{bidder.level}/{player.level}"

    def start_hand(self, hand) -> None:
        for p in (self.bidder, self.player):
            if hasattr(p, "start_hand"):
                p.start_hand(hand)

    def observe(self, seat, action, phase_before, hand) -> None:
        for p in (self.bidder, self.player):
            if hasattr(p, "observe"):
                p.observe(seat, action, phase_before, hand)

    def choose(self, view) -> Action:
        return (self.player if view.phase == "play" else self.bidder).choose(view)

    def advise(self, view):
        return (self.player if view.phase == "play" else self.bidder).advise(view)
