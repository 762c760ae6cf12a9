"""Insane reads the others: its models make deals that explain the bids and plays seen more likely, and its hints say why in words."""
import random

from engine import Hand, Rules
from engine.bots import make_bot
from engine.bots.inference import (N_PLAY, BidEvidence, BidModel, PlayEvidence, PlayModel,
                                   play_contexts, play_log_likelihood)
from engine.bots.insane import InsaneBot, Race, action_words
from engine.bots.models import ALONE_CURVE, BID_CURVES, PLAY_WEIGHTS
from engine.cards import SEATS, mask_of, parse_cards

STD = Rules.preset("standard")


def _play_model():
    return PlayModel(PLAY_WEIGHTS)


def _partner_wins_with_the_ace():
    """Hearts trump (South called), South leads the ace of spades, West plays the king of
    spades although it could have played lower had it held a lower spade."""
    h = Hand.deal(STD, dealer="E", hands={
        "S": "AS JH AH 9H AD", "W": "KS 9C 10C QC KC", "N": "10H QH 9D 10D JD",
        "E": "9S 10S QS KD AC"}, upcard="JC")
    for _ in range(4):
        h.apply("pass")
    h.apply("call H")        # South makes hearts
    h.apply("play AS")
    h.apply("play KS")       # West: only spade is the king
    return h


def test_a_follower_who_played_high_probably_had_nothing_lower():
    h = _partner_wins_with_the_ace()
    view = h.view("N")
    model = _play_model()
    ev = PlayEvidence(model, view)
    west = SEATS.index("W")
    # West now holds four cards. Had it also held the nine of spades, the model says it
    # would rather have played the nine: such a deal explains the king worse.
    with_nine = mask_of(parse_cards("9S 9C 10C QC"))
    without = mask_of(parse_cards("9C 10C QC KC"))
    assert ev.log_likelihood(west, without) > ev.log_likelihood(west, with_nine) + 0.5
    # The same answer through the whole-deal function.
    hands = [0, 0, 0, 0]
    hands[west] = without
    a = play_log_likelihood(model, play_contexts(view), hands, skip=SEATS.index("N"))
    hands[west] = with_nine
    b = play_log_likelihood(model, play_contexts(view), hands, skip=SEATS.index("N"))
    assert a > b + 0.5


def test_a_round_one_passer_rarely_holds_both_bowers():
    hand = Hand.deal(STD, dealer="S", hands={
        "W": "9S 10S 9D 10D 9C", "N": "QS KS AS QD KD", "E": "JH JD AH KH 10C",
        "S": "AD QC KC AC JC"}, upcard="QH")
    for _ in range(3):
        hand.apply("pass")
    view = hand.view("S")
    ev = BidEvidence(BidModel(BID_CURVES, ALONE_CURVE), view)
    bowers = ev.log_likelihood("E", parse_cards("JH JD AH KH 10C"))
    junk = ev.log_likelihood("E", parse_cards("QD KD 10C 9H 10H"))
    assert junk > bowers + 2.0
    # A maker is expected to hold trumps.
    hand = Hand.deal(STD, dealer="S", hands={
        "W": "JH JD AH KH 10C", "N": "QS KS AS QD KD", "E": "9S 10S 9D 10D 9C",
        "S": "AD QC KC AC JC"}, upcard="QH")
    hand.apply("order")
    ev = BidEvidence(BidModel(BID_CURVES, ALONE_CURVE), hand.view("N"))
    assert ev.log_likelihood("W", parse_cards("JH JD AH KH 10C")) > \
        ev.log_likelihood("W", parse_cards("9S 10S 9D 10D 9C")) + 2.0


def test_models_fit_the_features():
    assert len(PLAY_WEIGHTS) == N_PLAY
    for rnd in (1, 2):
        for rel in range(4):
            t, w = BidModel(BID_CURVES, ALONE_CURVE).curves[(rnd, rel)]
            assert 0 < t < 5 and 0 < w < 3


def test_insane_solves_deals_that_explain_the_play():
    # North's view after the trick above: deals where West kept a lower spade are drawn
    # less often than chance would have them.
    h = _partner_wins_with_the_ace()
    view = h.view("N")
    bot = InsaneBot(seed=1, samples=200, budget=None, least=10_000)
    bot.choose(view)
    west = SEATS.index("W")
    total = sum(c for _, c in bot.worlds)
    lower_spade = mask_of(parse_cards("9S 10S QS"))
    share = sum(c for hands, c in bot.worlds if hands[west] & lower_spade) / total
    # Without reading the play: West holds one of the three low spades in most deals
    # (4 cards from the 11 unseen).
    plain = InsaneBot(seed=1, samples=200, budget=None, least=10_000, play_weight=0, bid_weight=0)
    plain.choose(view)
    ptotal = sum(c for _, c in plain.worlds)
    plain_share = sum(c for hands, c in plain.worlds if hands[west] & lower_spade) / ptotal
    assert share < plain_share - 0.2, (share, plain_share)


def test_race_drops_clearly_worse_actions():
    r = Race(["a", "b", "c"], z=3.0, least=8)
    rng = random.Random(1)
    for _ in range(8):
        x = rng.gauss(0, 1)
        r.add({"a": x + 1.0, "b": x + rng.gauss(0, 0.05), "c": x + 1.0}, 1)
    assert r.settled()            # b trails by a point; c equals a: one action is left
    assert r.live == ["a"]
    assert abs(r.mean("b") - (r.mean("a") - 1.0)) < 0.1


def test_insane_hints_speak_a_players_language():
    bot = make_bot("insane", seed=3, budget=None, samples=24)
    h = Hand.deal(STD, dealer="S", hands={
        "W": "JH JD AH KH AS", "N": "9S 10S QS KS 9C", "E": "9H 10H QC KC 9D",
        "S": "10D QD KD AD JC"}, upcard="QH")
    action, reason = bot.advise(h.view("W"))
    assert action.kind == "order"
    assert "Expect" in reason and "points" in reason
    assert "order alone" not in reason and "play " not in reason   # words, not commands
    h = _partner_wins_with_the_ace()
    view = h.view("N")
    action, reason = bot.advise(view)
    assert action in view.legal
    assert reason.endswith(".") and "Expect" in reason
    assert action_words(view, action).split()[0] == "Play"


def test_bids_get_bid_scale_times_the_deals_of_a_card():
    from engine import Hand, Rules
    h = Hand.deal(Rules.preset("standard"), dealer="S", seed=4)
    view = h.view(h.to_act)      # West weighs ordering up against passing
    few = InsaneBot(seed=1, samples=8, budget=None, least=10_000)
    more = InsaneBot(seed=1, samples=8, budget=None, least=10_000, bid_scale=3)
    few.choose(view)
    more.choose(view)
    # deals solved (each may stand for several draws of the same deal)
    assert len(few.race.counts) == 8 and len(more.race.counts) == 24


def test_alone_discount_lowers_only_the_lone_bids():
    h = Hand.deal(STD, dealer="S", hands={
        "W": "JH JD AH KH AS", "N": "9S 10S QS KS 9C", "E": "9H 10H QC KC 9D",
        "S": "10D QD KD AD JC"}, upcard="QH")
    view = h.view("W")           # two bowers, ace and king of hearts: alone is searched
    plain = InsaneBot(seed=1, samples=16, budget=None, least=10_000)
    wary = InsaneBot(seed=1, samples=16, budget=None, least=10_000, alone_discount=0.5)
    plain.choose(view)
    wary.choose(view)
    lone = [a for a in plain.race.values if a.alone]
    assert lone, "the lone bid should have been searched"
    for a in plain.race.values:
        shift = 0.5 if a.alone else 0.0
        assert abs(plain.race.mean(a) - shift - wary.race.mean(a)) < 1e-9
    # a discount larger than any hand's points: never alone
    assert not InsaneBot(seed=1, samples=16, budget=None, alone_discount=5).choose(view).alone


def test_pickup_and_assist_bonus_raise_only_the_dealer_sides_order():
    h = Hand.deal(STD, dealer="S", hands={
        "W": "9S 10S QS KS 9C", "N": "JH 10D AH KD AS", "E": "9H 10H QC KC 9D",
        "S": "KH QD JD AD JC"}, upcard="QH")
    h.apply("pass")                  # West
    view = h.view("N")               # the dealer's partner: order (assist) or pass
    for bonus, seat_view in (("assist_bonus", view), ("pickup_bonus", None)):
        if seat_view is None:
            h.apply("pass")          # North
            h.apply("pass")          # East
            seat_view = h.view("S")  # the dealer: pick it up or pass
        plain = InsaneBot(seed=1, samples=16, budget=None, least=10_000)
        bold = InsaneBot(seed=1, samples=16, budget=None, least=10_000, **{bonus: 0.4})
        plain.choose(seat_view)
        bold.choose(seat_view)
        assert any(a.kind == "order" and not a.alone for a in plain.race.values)
        for a in plain.race.values:
            shift = 0.4 if a.kind == "order" and not a.alone else 0.0
            assert abs(plain.race.mean(a) + shift - bold.race.mean(a)) < 1e-9
    # the other side's orders are untouched
    h2 = Hand.deal(STD, dealer="S", hands={
        "W": "JH JD AH KH AS", "N": "9S 10S QS KS 9C", "E": "9H 10H QC KC 9D",
        "S": "10D QD KD AD JC"}, upcard="QH")
    plain = InsaneBot(seed=1, samples=16, budget=None, least=10_000)
    bold = InsaneBot(seed=1, samples=16, budget=None, least=10_000, pickup_bonus=0.4, assist_bonus=0.4)
    plain.choose(h2.view("W"))
    bold.choose(h2.view("W"))
    assert all(abs(plain.race.mean(a) - bold.race.mean(a)) < 1e-9 for a in plain.race.values)
