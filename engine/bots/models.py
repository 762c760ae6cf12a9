"""Insane's fitted models of how players bid and play (written by bench/train_models.py; do not edit).

Fitted with: python -m bench.train_models --hands 60 --seed 3 --data /tmp/insane/tm_small.json --out engine/bots/models.py
on 60 hands of hard self-play: 220 bidding decisions, 675 plays with a choice;
held-out plays: mean log-likelihood -0.679 per play (uniform choice -1.087), most likely card chosen 73.3% of the time.
"""

# (round, seat from the dealer: 1, 2 = the dealer's partner, 3, 0 = the dealer) ->
# (threshold, width) of P(bid) = sigmoid((estimated tricks - threshold) / width)
BID_CURVES = {
    (1, 0): (1.611, 0.358),   # 42 decisions
    (1, 1): (3.44, 0.496),   # 60 decisions
    (1, 2): (2.073, 0.202),   # 58 decisions
}
ALONE_CURVE = (3.231, 0.228)   # P(alone | bid), 60 bids

# One weight per inference.PLAY_FEATURES entry, in that order.
PLAY_WEIGHTS = (
    -0.0062,   # lead trump as maker
    -0.5644,   # lead trump as defender
    1.9689,   # lead the top trump
    0.7748,   # lead trump holding 3+
    2.2017,   # lead an off-suit ace
    0.3408,   # lead an off-suit top card (not ace)
    0.1808,   # lead a singleton
    0.492,   # lead the lowest of a suit
    0.1128,   # lead a low card (9, 10)
    0.266,   # lead an off-suit king
    -0.3935,   # lead next (trump's colour)
    0.9436,   # overtake the partner
    0.9289,   # win over an opponent
    1.0512,   # cheapest winner
    0.2145,   # lowest legal card
    -0.3499,   # highest legal card
    0.1139,   # win as last to play
    0.5535,   # top card of the suit
    -2.8991,   # follow high without winning
    1.6294,   # trump in over an opponent
    1.0959,   # trump the partner's trick
    2.9653,   # cheapest winning trump
    -0.0631,   # trump without winning
    2.0977,   # throw the lowest of a suit
    1.9533,   # throw a singleton
    -1.638,   # throw an ace
    -0.1503,   # throw a top card
    1.05,   # throw a low card (9, 10)
    0.1705,   # right bower
    0.2429,   # left bower
    0.0893,   # trump, maker's side
)
