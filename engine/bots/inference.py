"""Reading the other players: how likely their bids and plays are for a given imagined deal.

Insane keeps the imagined deals in proportion to how well they explain what the other
players did. Two models give the probabilities, both in the players' own terms:

- bidding: a player orders (or calls) with a probability that rises smoothly with its
  hand's estimated tricks (``medium.bid_estimate``), around thresholds fitted to how a
  searching player bids, per round and seat; likewise for going alone;
- play: a player chooses among its legal cards with the probabilities of a conditional
  logit model over a few features a player would name ("wins the trick", "overtakes the
  partner", "lowest card of the suit", "leads trump as maker", "throws an ace"...).

Both models' numbers are fitted offline by ``bench/train_models.py`` on games between
searching players, and kept in ``engine/bots/models.py``.

A model only ever sees what the player it models could see: its own cards in the
imagined deal and the public history.
"""
from __future__ import annotations

import math

from engine.bots.medium import ORDER_AT, bid_estimate, estimate
from engine.cards import EFFECTIVE_SUIT, POWER, SAME_COLOUR, SEATS, SUIT_MASK, SUITS, cards_of

MEMO_LIMIT = 200_000
"""Most remembered likelihoods (of a play, of a seat's bids) a model keeps before it
forgets them all: a bound on memory, not on speed."""

# --------------------------------------------------------------------------- play model

PLAY_FEATURES = (
    # leading
    "lead trump as maker", "lead trump as defender", "lead the top trump",
    "lead trump holding 3+", "lead an off-suit ace", "lead an off-suit top card (not ace)",
    "lead a singleton", "lead the lowest of a suit", "lead a low card (9, 10)",
    "lead an off-suit king", "lead next (trump's colour)",
    # following suit
    "overtake the partner", "win over an opponent", "cheapest winner",
    "lowest legal card", "highest legal card", "win as last to play", "top card of the suit",
    "follow high without winning",
    # void in the suit led
    "trump in over an opponent", "trump the partner's trick", "cheapest winning trump",
    "trump without winning", "throw the lowest of a suit", "throw a singleton",
    "throw an ace", "throw a top card", "throw a low card (9, 10)",
    # any
    "right bower", "left bower", "trump, maker's side",
)
N_PLAY = len(PLAY_FEATURES)
_F = {name: i for i, name in enumerate(PLAY_FEATURES)}


def _above_masks():
    """Per trump, per card: the cards of the same suit (under that trump) that beat it."""
    out = {}
    for t in SUITS:
        eff, power = EFFECTIVE_SUIT[t], POWER[t]
        out[t] = tuple(
            sum(1 << j for j in range(24) if eff[j] == eff[i] and power[j] > power[i])
            for i in range(24))
    return out


_ABOVE = _above_masks()
_LOW = tuple(i % 6 <= 1 for i in range(24))       # nines and tens
_ACE = tuple(i % 6 == 5 for i in range(24))
_KING = tuple(i % 6 == 4 for i in range(24))


class PlayContext:
    """The public situation of one past play: everything but the player's own cards.

    ``trick`` holds ``(seat_index, card_index)`` played before this card in the same
    trick; ``gone`` the cards the player knows are out of play (every card played
    before, and the up-card when it was turned down)."""

    __slots__ = ("trump", "seat", "card", "trick", "gone", "maker_side", "is_maker",
                 "last", "led", "follow", "win_seat", "win_power", "partner_winning")

    def __init__(self, trump, seat, card, trick, gone, maker, nactive):
        self.trump = trump
        self.seat = seat
        self.card = card
        self.trick = trick
        self.gone = gone
        self.maker_side = (seat & 1) == (maker & 1)
        self.is_maker = seat == maker
        self.last = len(trick) == nactive - 1
        eff, power = EFFECTIVE_SUIT[trump], POWER[trump]
        if trick:
            self.led = eff[trick[0][1]]
            self.follow = SUIT_MASK[trump][self.led]
            ws, wp = trick[0][0], power[trick[0][1]]
            for q, i in trick[1:]:
                if (eff[i] == trump or eff[i] == self.led) and power[i] > wp:
                    ws, wp = q, power[i]
            self.win_seat, self.win_power = ws, wp
            self.partner_winning = (ws & 1) == (seat & 1)
        else:
            self.led = None
            self.follow = 0
            self.win_seat, self.win_power, self.partner_winning = None, 0, False


def legal_mask(ctx: PlayContext, hand: int) -> int:
    """The cards of ``hand`` the player may play in ``ctx``."""
    if ctx.follow and hand & ctx.follow:
        return hand & ctx.follow
    return hand


def card_features(ctx: PlayContext, hand: int, legal: int, i: int) -> list:
    """Indices of the features (``PLAY_FEATURES``) that card ``i`` has when played from
    ``hand`` (the player's cards, ``i`` among them) with ``legal`` its legal cards."""
    t = ctx.trump
    eff, power = EFFECTIVE_SUIT[t], POWER[t]
    s = eff[i]
    p = power[i]
    is_trump = s == t
    suit_mask = SUIT_MASK[t][s]
    mine = hand & suit_mask
    outstanding = ~(hand | ctx.gone)
    top = not (_ABOVE[t][i] & outstanding)
    lowest_of_suit = not any(power[j] < p for j in _bits(mine))
    out = []
    if p == 13:
        out.append(_F["right bower"])
    elif p == 12:
        out.append(_F["left bower"])
    if is_trump and ctx.maker_side:
        out.append(_F["trump, maker's side"])
    if ctx.led is None:
        if is_trump:
            out.append(_F["lead trump as maker"] if ctx.maker_side else _F["lead trump as defender"])
            if top:
                out.append(_F["lead the top trump"])
            if (hand & SUIT_MASK[t][t]).bit_count() >= 3:
                out.append(_F["lead trump holding 3+"])
        else:
            if _ACE[i]:
                out.append(_F["lead an off-suit ace"])
            elif top:
                out.append(_F["lead an off-suit top card (not ace)"])
            if _KING[i] and not top:
                out.append(_F["lead an off-suit king"])
            if mine.bit_count() == 1:
                out.append(_F["lead a singleton"])
            elif lowest_of_suit:
                out.append(_F["lead the lowest of a suit"])
            if _LOW[i]:
                out.append(_F["lead a low card (9, 10)"])
            if s == SAME_COLOUR[t]:
                out.append(_F["lead next (trump's colour)"])
        return out
    # Plain cards rank 1-6 and trumps 7-13, so any trump beats a plain winner.
    wins = (s == t or s == ctx.led) and p > ctx.win_power
    if s == ctx.led:
        powers = [power[j] for j in _bits(legal)]
        if wins:
            if ctx.partner_winning:
                out.append(_F["overtake the partner"])
            else:
                out.append(_F["win over an opponent"])
                if not any(q > ctx.win_power and q < p for q in powers):
                    out.append(_F["cheapest winner"])
            if ctx.last:
                out.append(_F["win as last to play"])
        elif p != min(powers):
            out.append(_F["follow high without winning"])
        if p == min(powers):
            out.append(_F["lowest legal card"])
        if p == max(powers):
            out.append(_F["highest legal card"])
        if top:
            out.append(_F["top card of the suit"])
        return out
    # void in the suit led
    if is_trump:
        if wins:
            if ctx.partner_winning:
                out.append(_F["trump the partner's trick"])
            else:
                out.append(_F["trump in over an opponent"])
                cheaper = [power[j] for j in _bits(legal & SUIT_MASK[t][t])
                           if ctx.win_power < power[j] < p]
                if not cheaper:
                    out.append(_F["cheapest winning trump"])
        else:
            out.append(_F["trump without winning"])
        return out
    if mine.bit_count() == 1:
        out.append(_F["throw a singleton"])
    elif lowest_of_suit:
        out.append(_F["throw the lowest of a suit"])
    if _ACE[i]:
        out.append(_F["throw an ace"])
    elif top:
        out.append(_F["throw a top card"])
    if _LOW[i]:
        out.append(_F["throw a low card (9, 10)"])
    return out


def _below_masks():
    """Per trump, per card: the cards of the same suit (under that trump) it beats."""
    out = {}
    for t in SUITS:
        eff, power = EFFECTIVE_SUIT[t], POWER[t]
        out[t] = tuple(
            sum(1 << j for j in range(24) if eff[j] == eff[i] and power[j] < power[i])
            for i in range(24))
    return out


_BELOW = _below_masks()
(_RIGHT, _LEFT, _TRUMP_MK, _LT_MAKER, _LT_DEF, _LT_TOP, _LT_3, _L_ACE, _L_TOP, _L_KING, _L_SINGLE,
 _L_LOWEST, _L_LOW, _L_NEXT, _OVERTAKE, _WIN_OPP, _CHEAPEST, _LOWEST_LEGAL, _HIGHEST_LEGAL,
 _WIN_LAST, _TOP_SUIT, _FOLLOW_HIGH, _TRUMP_IN, _TRUMP_PARTNER, _CHEAPEST_TRUMP, _TRUMP_LOSE,
 _T_LOWEST, _T_SINGLE, _T_ACE, _T_TOP, _T_LOW) = (_F[name] for name in (
    "right bower", "left bower", "trump, maker's side", "lead trump as maker",
    "lead trump as defender", "lead the top trump", "lead trump holding 3+",
    "lead an off-suit ace", "lead an off-suit top card (not ace)", "lead an off-suit king",
    "lead a singleton", "lead the lowest of a suit", "lead a low card (9, 10)",
    "lead next (trump's colour)", "overtake the partner", "win over an opponent",
    "cheapest winner", "lowest legal card", "highest legal card", "win as last to play",
    "top card of the suit", "follow high without winning", "trump in over an opponent",
    "trump the partner's trick", "cheapest winning trump", "trump without winning",
    "throw the lowest of a suit", "throw a singleton", "throw an ace", "throw a top card",
    "throw a low card (9, 10)"))


def card_scores(w, ctx: PlayContext, hand: int, legal: int, cards) -> list:
    """For each card index of ``cards`` (the bits of ``legal``, in order), the sum of the
    weights ``w`` of its features: ``sum(w[f] for f in card_features(ctx, hand, legal,
    j))``, the same numbers added in the same order, so the same floats.

    Written out by hand because it is the inner loop of Insane's weighing of imagined
    deals and of its playouts: the features that depend on the whole hand (the lowest
    legal card, the top outstanding card, the cheapest winner) are worked out once for
    all cards instead of once a card, and a feature is a bit test, not a list search.
    """
    t = ctx.trump
    eff, power, above, below = EFFECTIVE_SUIT[t], POWER[t], _ABOVE[t], _BELOW[t]
    masks = SUIT_MASK[t]
    covered = hand | ctx.gone          # a card above is no threat if held or gone
    maker_side = ctx.maker_side
    led = ctx.led
    out = []
    if led is None:
        lead_trump = w[_LT_MAKER] if maker_side else w[_LT_DEF]
        three = (hand & masks[t]).bit_count() >= 3
        nxt = SAME_COLOUR[t]
        for i in cards:
            p = power[i]
            ws = [w[_RIGHT]] if p == 13 else [w[_LEFT]] if p == 12 else []
            s = eff[i]
            top = not (above[i] & ~covered)
            if s == t:
                if maker_side:
                    ws.append(w[_TRUMP_MK])
                ws.append(lead_trump)
                if top:
                    ws.append(w[_LT_TOP])
                if three:
                    ws.append(w[_LT_3])
            else:
                r = i % 6
                if r == 5:
                    ws.append(w[_L_ACE])
                elif top:
                    ws.append(w[_L_TOP])
                if r == 4 and not top:
                    ws.append(w[_L_KING])
                mine = hand & masks[s]
                if mine.bit_count() == 1:
                    ws.append(w[_L_SINGLE])
                elif not mine & below[i]:
                    ws.append(w[_L_LOWEST])
                if r <= 1:
                    ws.append(w[_L_LOW])
                if s == nxt:
                    ws.append(w[_L_NEXT])
            out.append(sum(ws))
        return out
    win_power = ctx.win_power
    partner_winning = ctx.partner_winning
    if legal & masks[led] == legal and hand & masks[led]:
        # Following suit: every legal card is of the suit led.
        powers = [power[j] for j in cards]
        lo, hi = min(powers), max(powers)
        is_trump = led == t
        for i, p in zip(cards, powers, strict=True):
            ws = [w[_RIGHT]] if p == 13 else [w[_LEFT]] if p == 12 else []
            if is_trump and maker_side:
                ws.append(w[_TRUMP_MK])
            if p > win_power:
                if partner_winning:
                    ws.append(w[_OVERTAKE])
                else:
                    ws.append(w[_WIN_OPP])
                    if not any(win_power < q < p for q in powers):
                        ws.append(w[_CHEAPEST])
                if ctx.last:
                    ws.append(w[_WIN_LAST])
            elif p != lo:
                ws.append(w[_FOLLOW_HIGH])
            if p == lo:
                ws.append(w[_LOWEST_LEGAL])
            if p == hi:
                ws.append(w[_HIGHEST_LEGAL])
            if not (above[i] & ~covered):
                ws.append(w[_TOP_SUIT])
            out.append(sum(ws))
        return out
    # Void in the suit led: any card.
    trump_powers = [power[j] for j in cards if eff[j] == t]
    for i in cards:
        p = power[i]
        ws = [w[_RIGHT]] if p == 13 else [w[_LEFT]] if p == 12 else []
        s = eff[i]
        if s == t:
            if maker_side:
                ws.append(w[_TRUMP_MK])
            if p > win_power:
                if partner_winning:
                    ws.append(w[_TRUMP_PARTNER])
                else:
                    ws.append(w[_TRUMP_IN])
                    if not any(win_power < q < p for q in trump_powers):
                        ws.append(w[_CHEAPEST_TRUMP])
            else:
                ws.append(w[_TRUMP_LOSE])
        else:
            mine = hand & masks[s]
            if mine.bit_count() == 1:
                ws.append(w[_T_SINGLE])
            elif not mine & below[i]:
                ws.append(w[_T_LOWEST])
            r = i % 6
            if r == 5:
                ws.append(w[_T_ACE])
            elif not (above[i] & ~covered):
                ws.append(w[_T_TOP])
            if r <= 1:
                ws.append(w[_T_LOW])
        out.append(sum(ws))
    return out


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class PlayModel:
    """A conditional logit over legal cards: P(card) ∝ exp(Σ weights of its features)."""

    def __init__(self, weights) -> None:
        if len(weights) != N_PLAY:
            raise ValueError(f"the play model needs {N_PLAY} weights, not {len(weights)}")
        self.w = tuple(float(x) for x in weights)
        # (public context of a past play) -> {hand then: log_prob}. The same plays are
        # scored against the same hands over and over: by the candidate deals of one
        # decision and again at every later decision of the hand.
        self.memo: dict = {}

    def log_prob(self, ctx: PlayContext, hand: int) -> float:
        """log P(the card of ``ctx`` | the player held ``hand``), 0 when it was forced."""
        legal = legal_mask(ctx, hand)
        if not legal & (1 << ctx.card):
            return -math.inf
        if legal.bit_count() == 1:
            return 0.0
        cards = list(_bits(legal))
        scores = card_scores(self.w, ctx, hand, legal, cards)
        top = max(scores)
        total = sum(math.exp(v - top) for v in scores)
        return scores[cards.index(ctx.card)] - top - math.log(total)

    def draw(self, ctx: PlayContext, hand: int, u: float) -> int:
        """The card (index) the player chooses from ``hand`` in ``ctx``, drawn with the
        model's probabilities by the uniform number ``u`` in [0, 1)."""
        legal = legal_mask(ctx, hand)
        cards = list(_bits(legal))
        if len(cards) == 1:
            return cards[0]
        scores = card_scores(self.w, ctx, hand, legal, cards)
        top = max(scores)
        ps = [math.exp(v - top) for v in scores]
        x = u * sum(ps)
        for j, p in zip(cards, ps):
            x -= p
            if x < 0:
                return j
        return cards[-1]


def play_contexts(view) -> list:
    """The public context of every card played so far in ``view``, in order."""
    trump = view.trump
    if trump is None:
        return []
    maker = SEATS.index(view.maker)
    nactive = 4 - len(view.sitting_out)
    gone = 0 if view.dealer_took_upcard else view.upcard.bit
    out = []
    tricks = [cards for _, cards, _ in view.tricks] + ([view.trick] if view.trick else [])
    for cards in tricks:
        trick: tuple = ()
        for seat, c in cards:
            q = SEATS.index(seat)
            out.append(PlayContext(trump, q, c.index, trick, gone, maker, nactive))
            trick = trick + ((q, c.index),)
            gone |= c.bit
    return out


class PlayEvidence:
    """The cards each seat played in ``view``, ready to be scored against the cards an
    imagined deal says it holds now (``log_likelihood``)."""

    def __init__(self, model: PlayModel, view):
        self.model = model
        self.by_seat: dict = {}
        # The model keeps the memos of this view's plays only (those of an earlier hand
        # are never asked again), and forgets them all if they grow too many.
        old = model.memo
        if sum(len(m) for m in old.values()) > MEMO_LIMIT:
            old = {}
        memo = model.memo = {}
        # Per seat, its plays latest first, each with the memo of its log_prob by hand.
        self._scored: dict = {}
        for ctx in play_contexts(view):
            self.by_seat.setdefault(ctx.seat, []).append(ctx)
            # Everything log_prob reads of the context (is_maker is not read).
            key = (ctx.trump, ctx.seat, ctx.card, ctx.trick, ctx.gone, ctx.maker_side, ctx.last)
            memo[key] = old.get(key) or {}
            self._scored.setdefault(ctx.seat, []).insert(0, (ctx, memo[key]))

    def log_likelihood(self, seat: int, hand_now: int) -> float:
        """log P(every card ``seat`` played | it holds ``hand_now`` now): at each play
        its hand was ``hand_now`` plus the cards it played from then on."""
        total = 0.0
        hand = hand_now
        log_prob = self.model.log_prob
        for ctx, memo in self._scored.get(seat, ()):
            hand |= 1 << ctx.card
            # A player who could follow suit chose among its cards of the suit led, and
            # nothing else in its hand changes the odds: remember them by those cards.
            key = hand & ctx.follow or hand
            lp = memo.get(key)
            if lp is None:
                lp = memo[key] = log_prob(ctx, hand)
            total += lp
        return total


def play_log_likelihood(model: PlayModel, contexts, hands_now, skip: int) -> float:
    """log P(every play in ``contexts``, by every seat but ``skip``) when the seats now
    hold ``hands_now`` (four bitmasks): each player's hand at a play is what it holds
    now plus what it has played since."""
    total = 0.0
    later = [0, 0, 0, 0]
    for ctx in reversed(contexts):
        q = ctx.seat
        later[q] |= 1 << ctx.card
        if q != skip:
            total += model.log_prob(ctx, hands_now[q] | later[q])
    return total


# --------------------------------------------------------------------------- bid model

def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x > -30 else x


class BidModel:
    """How likely a player is to bid (order, call) or pass, and to go alone, given its
    hand's estimated tricks: ``curves[(round, seat from the dealer)] = (threshold,
    width)``, P(bid) = sigmoid((estimate - threshold) / width)."""

    def __init__(self, curves: dict, alone: tuple):
        # Medium's own threshold wherever the fitted data had too few decisions.
        self.curves = {(r, s): curves.get((r, s), (ORDER_AT, 0.35)) for r in (1, 2) for s in range(4)}
        self.alone = alone
        # (what a seat bid, and the table it bid at) -> {cards dealt as a bitmask: log
        # likelihood}: a seat's bids are scored against the same hands at every decision.
        self.memo: dict = {}

    def threshold(self, rnd: int, rel: int) -> float:
        return self.curves[(rnd, rel)][0]

    def log_bid(self, rnd: int, rel: int, est: float, bid: bool) -> float:
        t, w = self.curves[(rnd, rel)]
        x = (est - t) / w
        return _log_sigmoid(x) if bid else _log_sigmoid(-x)

    def log_alone(self, est: float, alone: bool) -> float:
        t, w = self.alone
        x = (est - t) / w
        return _log_sigmoid(x) if alone else _log_sigmoid(-x)


class BidEvidence:
    """The bids and passes of ``view``, seat by seat, ready to be scored against the
    cards an imagined deal gives each seat (``log_likelihood``)."""

    def __init__(self, model: BidModel, view):
        self.model = model
        self.up = view.upcard
        self.dealer = view.dealer
        self.forbid = not view.rules.dealer_may_discard_upcard
        self.trump = view.trump
        dealer = SEATS.index(view.dealer)
        stick = view.rules.stick_the_dealer
        self.by_seat: dict = {}
        stage = 1
        for seat, text in view.bids:
            words = text.split()
            rel = (SEATS.index(seat) - dealer) % 4
            if seat != view.seat:
                self.by_seat.setdefault(seat, []).append((stage, rel, words, stick and rel == 0))
            if words[0] in ("order", "call"):
                stage = 3
            elif stage == 1 and words[0] == "pass" and rel == 0:
                stage = 2
        # As PlayEvidence: the model keeps the memos of this view's bids only.
        old = model.memo
        if sum(len(m) for m in old.values()) > MEMO_LIMIT:
            old = {}
        memo = model.memo = {}
        self._memos = {}
        for seat, bids in self.by_seat.items():
            # Everything log_likelihood reads, per seat.
            key = (seat, self.up.index, self.dealer, self.forbid, self.trump,
                   tuple((st, rel, tuple(words), stuck) for st, rel, words, stuck in bids))
            memo[key] = self._memos[seat] = old.get(key) or {}

    def seats(self):
        return self.by_seat.keys()

    def log_likelihood_of(self, seat: str, dealt: int) -> float:
        """``log_likelihood`` for the cards of the bitmask ``dealt``, remembered."""
        memo = self._memos.get(seat)
        if memo is None:
            return 0.0
        ll = memo.get(dealt)
        if ll is None:
            ll = memo[dealt] = self.log_likelihood(seat, cards_of(dealt))
        return ll

    def log_likelihood(self, seat: str, cards) -> float:
        """log P(``seat``'s bids and passes | it was dealt ``cards``). For a dealer who
        took the up-card, ``cards`` may be its hand after the discard, up-card included."""
        model, up = self.model, self.up
        total = 0.0
        for stage, rel, words, stuck in self.by_seat.get(seat, ()):
            if stage == 1:
                if rel == 0 and up in cards:
                    est = estimate(cards, up.suit)   # already holds the up-card
                else:
                    est = bid_estimate(cards, seat, self.dealer, up, up.suit, True, self.forbid)
                bid = words[0] != "pass"
                total += model.log_bid(1, rel, est, bid)
                if bid:
                    total += model.log_alone(est, len(words) > 1)
            elif stage == 2:
                if words[0] == "pass":
                    best = max(bid_estimate(cards, seat, self.dealer, up, s, False)
                               for s in SUITS if s != up.suit)
                    total += model.log_bid(2, rel, best, False)
                else:
                    est = bid_estimate(cards, seat, self.dealer, up, words[1], False)
                    if not stuck:
                        total += model.log_bid(2, rel, est, True)
                    total += model.log_alone(est, len(words) > 2)
            elif words[0] in ("take", "defend"):
                est = bid_estimate(cards, seat, self.dealer, up, self.trump or up.suit, False)
                total += model.log_alone(est, True)
        return total


def bid_log_likelihood(model: BidModel, view, dealt: dict) -> float:
    """log P(the bids and passes seen in ``view``) for the hands of ``dealt`` (seat ->
    the five cards dealt): each seat but the viewer's is scored by ``model``. A stuck
    dealer's call says nothing; a lone defender or an overcall is scored like a lone bid."""
    ev = BidEvidence(model, view)
    return sum(ev.log_likelihood(seat, dealt[seat]) for seat in ev.seats() if seat in dealt)
