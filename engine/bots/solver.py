"""Exact double-dummy solver for the tricks left in a hand: alpha-beta on bitmasks with a transposition table of bounds.

Euchre has at most 20 cards in play, so with every hand known the rest of a hand can be
solved exactly. The search answers yes/no questions ("can the makers still take 3
tricks?"): points change only at a few trick counts (3 and 5, and 1 against a lone
defender), so two or three such zero-window searches give the exact score, and a yes/no
search prunes far more than one that counts tricks. Scores are monotone in the makers'
tricks, so the side maximising tricks also maximises points: solving for tricks is exact.

With two tricks left a question is whether one side takes both (the makers for "2 more?",
the defenders for "not even 1?"); each player's first card fixes its last, so only the
first of the two tricks is searched (``Solver._both``).

>>> from engine.cards import mask_of, parse_cards
>>> s = Solver("H", maker_team=0)
>>> hands = [mask_of(parse_cards(t)) for t in ("JH AH", "9S 10S", "JD KH", "QS KS")]
>>> s.at_least(hands, leader=0, need=2)
True
"""
from __future__ import annotations

from engine.cards import DECK, EFFECTIVE_SUIT, POWER, SUIT_MASK, SUITS

# Per trump: each suit's cards as bits, strongest first (for grouping equal cards).
_SUIT_ORDER = {
    t: tuple(tuple(sorted((c.bit for c in DECK if EFFECTIVE_SUIT[t][c.index] == s),
                          key=lambda b: -POWER[t][b.bit_length() - 1])) for s in SUITS)
    for t in SUITS}
_SUIT_MASKS = {t: tuple(SUIT_MASK[t][s] for s in SUITS) for t in SUITS}
# Ordered moves per trump suit, shared by all solvers (see Solver._play); cleared when big.
_MOVE_CACHE: dict = {t: {} for t in SUITS}
_SUIT_CACHE: dict = {t: {} for t in SUITS}
_SPAN_CACHE: dict = {t: {} for t in SUITS}
# Per trump: the two sides' live trumps -> who holds the top ones (``Solver._run``); at most
# 3 ** 7 entries per trump.
_RUNS: dict = {t: {} for t in SUITS}


_FOLLOW_OF = {t: tuple(SUIT_MASK[t][EFFECTIVE_SUIT[t][i]] for i in range(24)) for t in SUITS}
_NEXT_SEATS: dict = {}


def _next_seats(out: tuple) -> tuple:
    """(the next active seat after each seat, the number of active seats, the active
    seats in playing order from each seat) with the seats of ``out`` sitting out."""
    got = _NEXT_SEATS.get(out)
    if got is None:
        nxt = [0] * 4
        for p in range(4):
            q = (p + 1) % 4
            while q in out:
                q = (q + 1) % 4
            nxt[p] = q
        nactive = sum(1 for p in range(4) if p not in out)
        rounds = []
        for p in range(4):
            seats = [p]
            while len(seats) < nactive:
                seats.append(nxt[seats[-1]])
            rounds.append(tuple(seats))
        got = _NEXT_SEATS[out] = (tuple(nxt), nactive, tuple(rounds))
    return got


def _NEG_POWER(m):
    return -m[2]


def _POWER(m):
    return m[2]


_CACHE_LIMIT = 200_000
NODE_WORK = 0.94
"""Work units (Insane's budget, ``engine.bots.insane``) charged for one search node.

A unit stands for a fixed amount of CPU time (about 1.5 us on the development machine;
``python -m bench.solver_speed`` measures it), so that a budget of units takes the same
time on a machine whatever the solver does per node. Measured in Insane's decisions,
a node (three or more tricks left) costs about 0.94 of the CPU time of a node of the
first solver, which defined the unit (one node each)."""
TWO_WORK = 1.9
"""Work units charged for each question about a position with two tricks left
(``Solver.twos``), however it is answered (bounds already known, the top trumps, or
``_both``). Measured like ``NODE_WORK``, in Insane's decisions: about 1.9 units of CPU
time on average."""
# Move-list keys for a leader (any card) and for a follower whose partner is winning.
_LEAD = -2
_PARTNER_WINS = -1


class Solver:
    """Solves positions of one hand: fixed trump, maker side and seats sitting out.

    Seats are indices 0..3 (N E S W); ``maker_team`` is 0 for N-S, 1 for E-W. Hands are
    four bitmasks (bit ``card.index``); a seat sitting out holds 0. One Solver keeps its
    transposition table between calls, so asking about several moves of the same deal
    reuses work. ``nodes`` counts the cards tried (search nodes) with three or more
    tricks left, ``twos`` the questions about positions with two tricks left (solved
    without the general search), over all calls.
    """

    __slots__ = ("trump", "mk", "nxt", "nactive", "power", "follow_of", "trump_mask",
                 "orders", "masks", "memo", "nodes", "cache", "suit_cache", "trump_order",
                 "span_cache", "rounds", "twos", "right", "left", "runs")

    def __init__(self, trump: str, maker_team: int, out=()):
        self.trump = trump
        self.mk = maker_team
        # A solver is made for every imagined deal: what depends only on the trump and
        # the seats sitting out is worked out once (``_FOLLOW_OF``, ``_next_seats``).
        self.nxt, self.nactive, self.rounds = _next_seats(tuple(out))
        self.power = POWER[trump]
        self.follow_of = _FOLLOW_OF[trump]
        self.trump_mask = SUIT_MASK[trump][trump]
        self.orders = _SUIT_ORDER[trump]
        self.trump_order = _SUIT_ORDER[trump][SUITS.index(trump)]
        self.masks = _SUIT_MASKS[trump]
        # (hands, leader) at the start of a trick -> (lo, hi): the makers surely take at
        # least lo and at most hi of the tricks left. Bounds, not answers, so that every
        # question about a position ("3 more?", "all 5?") narrows the same entry.
        self.memo: dict = {}
        self.nodes = 0
        self.twos = 0
        self.cache = _MOVE_CACHE[trump]
        self.suit_cache = _SUIT_CACHE[trump]
        self.span_cache = _SPAN_CACHE[trump]
        self.right, self.left = self.trump_order[0], self.trump_order[1]
        self.runs = _RUNS[trump]

    # ------------------------------------------------------------------ public
    @property
    def work(self) -> int:
        """The work units spent so far: ``nodes`` times ``NODE_WORK`` plus ``twos`` times
        ``TWO_WORK``."""
        return round(self.nodes * NODE_WORK + self.twos * TWO_WORK)

    def at_least(self, hands, leader: int, need: int, trick=()) -> bool:
        """Can the makers take ``need`` more tricks, both sides playing perfectly?

        ``trick`` is the trick in progress as ``((seat, card_index), ...)``; then the
        seat after the last card is to play and ``leader`` is ignored."""
        h = tuple(hands)
        if not trick:
            return self._win(h, leader, need)
        first = trick[0][1]
        follow = self.follow_of[first]
        best_p, best_pow = trick[0][0], self.power[first]
        tmask = 1 << first
        for p, i in trick[1:]:
            b = 1 << i
            tmask |= b
            if b & (follow | self.trump_mask) and self.power[i] > best_pow:
                best_p, best_pow = p, self.power[i]
        p = self.nxt[trick[-1][0]]
        return self._play(h, p, len(trick), follow, best_p, best_pow,
                          h[0] | h[1] | h[2] | h[3] | tmask, need)

    def maker_tricks(self, hands, leader: int, thresholds, trick=(), won: int = 0) -> int:
        """The makers' final trick count, exact at the given ``thresholds`` (sorted trick
        totals where the score changes): returns the largest threshold reached, or
        ``won`` if none is (then only "fewer than the lowest threshold" is known)."""
        result = won
        lo, hi = 0, len(thresholds)
        # Binary search over the thresholds: the score is monotone in tricks.
        while lo < hi:
            mid = (lo + hi) // 2
            t = thresholds[mid]
            if t - won <= 0:
                ok = True
            else:
                ok = self.at_least(hands, leader, t - won, trick)
            if ok:
                result = max(result, t)
                lo = mid + 1
            else:
                hi = mid
        return result

    # ------------------------------------------------------------------ search
    def _win(self, h, leader, need):
        if need <= 0:
            return True
        left = h[leader].bit_count()
        if need > left:
            return False
        if left == 1:
            # The last trick: every active seat plays its one card.
            i = h[leader].bit_length() - 1
            power = self.power
            follow = self.follow_of[i] | self.trump_mask
            best_p, best_pow = leader, power[i]
            p = self.nxt[leader]
            while p != leader:
                j = h[p].bit_length() - 1
                if h[p] & follow and power[j] > best_pow:
                    best_p, best_pow = p, power[j]
                p = self.nxt[p]
            return (best_p & 1) == self.mk
        key = (h, leader)
        if left == 2:
            # The last two tricks are solved directly (see ``_both``): "need 2" asks
            # whether the makers take both, "need 1" whether the defenders do not take
            # both. Counted (``twos``) however it is answered, bounds known or not.
            self.twos += 1
            # The bounds look-up below is written out here and after this branch rather
            # than called: this is the solver's innermost path, and a call per question
            # costs more than the lines it would save.
            got = self.memo.get(key)
            if got is None:
                lo, hi = self._sure(h, 2)
            else:
                lo, hi = got
            if need <= lo:
                return True
            if need > hi:
                return False
            if need == 2:
                r = self._both(h, self.rounds[leader], self.mk)
                if r:
                    lo = 2
                else:
                    hi = 1
            else:
                r = not self._both(h, self.rounds[leader], 1 - self.mk)
                if r:
                    lo = 1
                else:
                    hi = 0
            self.memo[key] = (lo, hi)
            return r
        got = self.memo.get(key)
        if got is None:
            lo, hi = self._sure(h, left)
        else:
            lo, hi = got
        if need <= lo:
            return True
        if need > hi:
            return False
        r = self._play(h, leader, 0, 0, leader, 0, h[0] | h[1] | h[2] | h[3], need)
        if r:
            lo = need
        else:
            hi = need - 1
        self.memo[key] = (lo, hi)
        return r

    def _both(self, h, seats, side):
        """With two tricks left, can team ``side`` take both? ``seats`` are the active
        seats in order from the leader. Each seat's first card fixes its second, so only
        the first trick is searched."""
        xs = h[side] | h[side + 2]
        alive = h[0] | h[1] | h[2] | h[3]
        return self._both_at(h, seats, 0, 0, 0, xs, alive, side)

    def _both_at(self, h, seats, i, follow, played, xs, alive, side):
        # Seat ``seats[i]`` chooses its first card (``follow``: the suit led, ``played``:
        # the cards down); the last seat's choice is looked at in the loop. A trick is
        # won by its highest trump (the right bower, the left, then by rank: bit order)
        # or, with none, by the highest card of the suit led (bit order too).
        p = seats[i]
        hand = h[p]
        legal = hand & follow if i and hand & follow else hand
        mine = (p & 1) == side
        low = legal & -legal
        before_last = i + 2 == len(seats)
        tm, right, left = self.trump_mask, self.right, self.left
        for b in (low, legal ^ low) if legal ^ low else (low,):
            f = self.follow_of[b.bit_length() - 1] if i == 0 else follow
            pl = played | b
            if not before_last:
                r = self._both_at(h, seats, i + 1, f, pl, xs, alive, side)
                if r is mine:
                    return r
                continue
            q = seats[i + 1]
            hq = h[q]
            lq = hq & f if hq & f else hq
            qmine = (q & 1) == side
            r = not qmine
            low_q = lq & -lq
            for c in (low_q, lq ^ low_q) if lq ^ low_q else (low_q,):
                t1 = pl | c
                t = t1 & tm
                if t:
                    w = right if t & right else left if t & left else 1 << (t.bit_length() - 1)
                else:
                    w = 1 << ((t1 & f).bit_length() - 1)
                if w & xs:
                    # The first trick's winner leads its other card to the second.
                    rest = alive ^ t1
                    t = rest & tm
                    if t:
                        w = right if t & right else left if t & left else 1 << (t.bit_length() - 1)
                    else:
                        lead2 = h[side if h[side] & w else side + 2] & ~t1
                        w = 1 << ((rest & self.follow_of[lead2.bit_length() - 1]).bit_length() - 1)
                    got = w & xs != 0
                else:
                    got = False
                if got is qmine:
                    r = got
                    break
            if r is mine:
                return r
        return not mine

    def _sure(self, h, left):
        """Bounds on the makers' tricks from the top trumps: the highest live trumps, as
        long as one side holds them all, each win the trick they fall in, and one
        player's cards fall in different tricks."""
        tm = self.trump_mask
        key = (h[0] | h[2]) & tm | ((h[1] | h[3]) & tm) << 24
        got = self.runs.get(key)
        if got is None:
            got = self._run(key)
        side, run = got
        if side < 0:
            return 0, left
        sure = max((h[side] & run).bit_count(), (h[side + 2] & run).bit_count())
        if side == self.mk:
            return sure, left
        return 0, left - sure

    def _run(self, key):
        """(the side holding the highest live trumps or -1, those trumps) for ``key``:
        each side's live trumps, the second side's shifted up 24 (see ``_sure``)."""
        a = key & 0xFFFFFF
        b = key >> 24
        run = 0
        side = -1
        for c in self.trump_order:
            if c & a:
                if side == 1:
                    break
                side = 0
            elif c & b:
                if side == 0:
                    break
                side = 1
            else:
                continue
            run |= c
        got = self.runs[key] = (side, run)
        return got

    def _moves(self, legal, alive, k, partner_winning, follow, best_pow):
        """The moves worth trying, as ``(bit, index, power)``, best-first (see ``_play``)."""
        moves = []
        suit_cache = self.suit_cache
        for s in range(4):
            m = self.masks[s]
            ls = legal & m
            if not ls:
                continue
            key = (ls, alive & m)
            got = suit_cache.get(key)
            if got is None:
                got = suit_cache[key] = self._suit_moves(s, ls, alive)
            moves += got
        if len(moves) > 1:
            # Try likely-best moves first so that cut-offs come early: leaders their
            # strongest card; followers the cheapest winner when an opponent is winning,
            # otherwise their lowest card.
            if k == 0:
                moves.sort(key=_NEG_POWER)
            elif partner_winning:
                moves.sort(key=_POWER)
            else:
                fm = follow | self.trump_mask
                moves.sort(key=lambda m: m[2] - 100 if (m[0] & fm and m[2] > best_pow) else m[2])
        return tuple(moves)

    def _span(self, hand):
        """The cards that lie, in some suit, between two of ``hand``'s (and those two):
        the only other cards that decide which of its cards are equal."""
        span = 0
        for order in self.orders:
            mine = [j for j, b in enumerate(order) if b & hand]
            if len(mine) > 1:
                for b in order[mine[0]:mine[-1] + 1]:
                    span |= b
        self.span_cache[hand] = span
        return span

    def _suit_moves(self, s, legal, alive):
        """One suit's moves, strongest first: of cards with no live card between them,
        only the strongest (they are equal)."""
        power = self.power
        out = []
        prev_mine = False
        for b in self.orders[s]:
            if not b & alive:
                continue
            if not b & legal:
                prev_mine = False
                continue
            if prev_mine:
                continue
            prev_mine = True
            i = b.bit_length() - 1
            out.append((b, i, power[i]))
        return tuple(out)

    def _play(self, h, p, k, follow, best_p, best_pow, alive, need):
        # ``alive``: the cards in the hands and in the trick, the same through a trick.
        self.nodes += 1
        hand = h[p]
        pw = (best_p & 1) == (p & 1)
        # The ordered moves depend only on a few small numbers, so they are cached per
        # trump suit for every solver (generating and sorting them was half of the time
        # per node): a leader's on its hand and the live cards; a follower's on the cards
        # it may play, the live cards that matter and what it must beat.
        if k and hand & follow:
            legal = hand & follow
            key = (legal, alive & follow, _PARTNER_WINS if pw else best_pow)
        else:
            legal = hand
            span = self.span_cache.get(hand)
            if span is None:
                span = self._span(hand)
            # Four items, not three: a void follower's or a leader's key must never equal
            # a key of a follower of suit (whose moves differ) for the same numbers.
            if k:
                key = (hand, alive & span, _PARTNER_WINS if pw else best_pow, 0)
            else:
                key = (hand, alive & span, _LEAD, 0)
        cache = self.cache
        moves = cache.get(key)
        if moves is None:
            if len(cache) > _CACHE_LIMIT:
                cache.clear()
                self.span_cache.clear()
            moves = cache[key] = self._moves(legal, alive, k, pw, follow, best_pow)
        maximizing = (p & 1) == self.mk
        last = k + 1 == self.nactive
        fm = follow | self.trump_mask
        for b, i, cp in moves:
            if p == 0:
                nh = (h[0] ^ b, h[1], h[2], h[3])
            elif p == 1:
                nh = (h[0], h[1] ^ b, h[2], h[3])
            elif p == 2:
                nh = (h[0], h[1], h[2] ^ b, h[3])
            else:
                nh = (h[0], h[1], h[2], h[3] ^ b)
            if k == 0:
                f, bp, bpow = self.follow_of[i], p, cp
            else:
                f, bp, bpow = follow, best_p, best_pow
                if b & fm and cp > bpow:
                    bp, bpow = p, cp
            if last:
                r = self._win(nh, bp, need - 1 if (bp & 1) == self.mk else need)
            else:
                r = self._play(nh, self.nxt[p], k + 1, f, bp, bpow, alive, need)
            if r is maximizing:
                return r
        return not maximizing
