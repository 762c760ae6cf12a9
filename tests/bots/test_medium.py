"""Medium plays by the tips of seeds 000 and 004; Easy is rougher; hints give readable reasons."""
from engine import Hand, Rules
from engine.bots import make_bot
from engine.bots.medium import best_discard, estimate
from engine.cards import parse_cards

STD = Rules.preset("standard")


def deal(**hands):
    upcard = hands.pop("up")
    return Hand.deal(STD, dealer=hands.pop("dealer", "S"), hands=hands, upcard=upcard)


def test_orders_three_trumps_with_a_bower_and_says_why():
    h = deal(W="JH KH 9H 9C 10S", N="9S QS KS AS 10D", E="10H QH QC KC 9D",
             S="10C JC QD KD AD", up="AH")
    action, reason = make_bot("medium").advise(h.view("W"))
    assert action == "order"
    assert "right bower" in reason and "order it up" in reason


def test_orders_both_bowers_and_an_ace():
    h = deal(W="JH JD AS 9C 10S", N="9S QS KS 10C 10D", E="10H QH QC KC 9D",
             S="AC JC QD KD AD", up="9H")
    action, reason = make_bot("medium").advise(h.view("W"))
    assert action == "order" and "both bowers" in reason.lower()


def test_passes_a_weak_hand():
    h = deal(W="9H 9C 10S QD KC", N="9S QS KS AS 10D", E="10H QH QC AC 9D",
             S="10C JC JD KD AD", up="AH")
    assert make_bot("medium").choose(h.view("W")) == "pass"


def test_goes_alone_with_three_sure_tricks_and_a_chance_of_five():
    h = deal(W="JH JD AH KH AS", N="9S 10S QS KS 9C", E="9H 10H QC KC 9D",
             S="10D QD KD AD JC", up="QH")
    assert make_bot("medium").choose(h.view("W")) == "order alone"


def test_discard_makes_a_void():
    cards = parse_cards("JH AH KH 9S AC QH")
    assert best_discard(cards, "H") == parse_cards("9S")[0]
    # Never throws an ace to make a void; keeps the lone ace of clubs.
    assert best_discard(parse_cards("JH AH KH AC 10S 9S"), "H") == parse_cards("9S")[0]


def test_calls_next_in_round_two():
    h = deal(W="JH 9H QD AC 9S", N="10D QS KS AS 10C", E="10H QH QC KC 9C",
             S="10S JC KH KD AD", up="JD", dealer="S")
    for _ in range(4):
        h.apply("pass")
    action, reason = make_bot("medium").advise(h.view("W"))
    assert action == "call H" and "next" in reason


def _play_position(lead_cards):
    """Hearts trump, West made it; play the given cards from West on."""
    h = deal(W="JH AH 9H AC 9S", N="10S QS KS AS 10D", E="10H QH QC KC 9D",
             S="10C JC QD KD AD", up="KH")
    h.apply("order")            # West orders; South (dealer) takes the king
    h.apply("discard 10C")
    for c in lead_cards:
        h.apply(f"play {c}")
    return h


def test_maker_leads_trump():
    h = _play_position([])
    action, reason = make_bot("medium").advise(h.view("W"))
    assert action == "play JH" and "trump" in reason


def test_defender_leads_an_off_suit_ace():
    h = deal(W="AS 9C 10C QD 9D", N="JH AH KS QS 10D", E="10H QH QC KC KD",
             S="10S JC AC 9H AD", up="JD", dealer="S")
    for _ in range(5):
        h.apply("pass")
    h.apply("call H")        # North makes hearts; West, a defender, leads
    action, reason = make_bot("medium").advise(h.view("W"))
    assert action == "play AS" and "ace" in reason


def test_plays_low_when_partner_wins_with_the_ace():
    h = deal(W="AS 9C 10C QC KC", N="KS 10D JD QD KD", E="10H QH 9D 10S QS",
             S="9S JH AH 9H AD", up="JC", dealer="E")
    h.apply("pass"); h.apply("pass"); h.apply("pass"); h.apply("pass")
    h.apply("call H")        # South calls hearts
    h.apply("play 9S")       # South leads 9S
    h.apply("play AS")       # West wins with the ace so far
    h.apply("play KS")       # North cannot beat it
    action, reason = make_bot("medium").advise(h.view("E"))
    # East (West's partner) holds 10S QS: partner's ace wins, so play the ten, not the queen.
    assert action == "play 10S" and "partner" in reason.lower()


def test_trumps_in_when_void_and_opponent_winning():
    h = deal(W="AS 9C 10C QC KC", N="10H 10D JD QD KD", E="9H QH 9D 10S QS",
             S="9S JH AH KS AD", up="JC", dealer="E")
    h.apply("pass"); h.apply("pass"); h.apply("pass"); h.apply("pass")
    h.apply("call H")        # South calls hearts
    h.apply("play 9S")       # South leads a spade
    h.apply("play AS")       # West, an opponent, is winning
    action, reason = make_bot("medium").advise(h.view("N"))
    assert action == "play 10H" and "Trump in" in reason


def test_estimate_counts_bowers_above_small_trumps():
    assert estimate(parse_cards("JH JD 9C 10C 9S"), "H") > estimate(parse_cards("9H 10H 9C 10C 9S"), "H")


def test_easy_is_sometimes_careless_but_always_legal():
    h = _play_position([])
    v = h.view("W")
    picks = {make_bot("easy", seed=s).choose(v) for s in range(40)}
    assert picks <= set(v.legal)
    assert len(picks) > 1          # careless at times
    assert make_bot("medium").choose(v) in picks
