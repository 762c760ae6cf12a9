"""Insane's fitted models of how players bid and play (written by bench/train_models.py; do not edit).

Fitted with: python -m bench.train_models --hands 1200 --seed 11 --level hard --rules standard
on 1200 hands of hard self-play: 4432 bidding decisions, 13670 plays with a choice;
held-out plays: mean log-likelihood -0.567 per play (uniform choice -1.069), most likely card chosen 78.2% of the time.
"""

# (round, seat from the dealer: 1, 2 = the dealer's partner, 3, 0 = the dealer) ->
# (threshold, width) of P(bid) = sigmoid((estimated tricks - threshold) / width)
BID_CURVES = {
    (1, 0): (1.663, 0.341),   # 866 decisions
    (1, 1): (3.158, 0.301),   # 1200 decisions
    (1, 2): (2.243, 0.261),   # 1179 decisions
    (1, 3): (2.61, 0.229),   # 916 decisions
    (2, 1): (1.482, 0.236),   # 216 decisions
    (2, 2): (1.365, 0.402),   # 46 decisions
}
ALONE_CURVE = (3.142, 0.16)   # P(alone | bid), 1200 bids

# One weight per inference.PLAY_FEATURES entry, in that order.
PLAY_WEIGHTS = (
    0.7754,   # lead trump as maker
    -0.2433,   # lead trump as defender
    1.864,   # lead the top trump
    1.2945,   # lead trump holding 3+
    2.2002,   # lead an off-suit ace
    0.4855,   # lead an off-suit top card (not ace)
    0.5984,   # lead a singleton
    0.6514,   # lead the lowest of a suit
    0.0649,   # lead a low card (9, 10)
    0.4237,   # lead an off-suit king
    -0.1767,   # lead next (trump's colour)
    0.1514,   # overtake the partner
    3.3534,   # win over an opponent
    1.1707,   # cheapest winner
    0.3118,   # lowest legal card
    -0.2037,   # highest legal card
    -1.7518,   # win as last to play
    0.9151,   # top card of the suit
    -3.9419,   # follow high without winning
    4.2958,   # trump in over an opponent
    2.8725,   # trump the partner's trick
    3.4987,   # cheapest winning trump
    0.8063,   # trump without winning
    4.0553,   # throw the lowest of a suit
    4.3004,   # throw a singleton
    -2.2313,   # throw an ace
    -0.3871,   # throw a top card
    1.3785,   # throw a low card (9, 10)
    0.6259,   # right bower
    0.2877,   # left bower
    -0.3605,   # trump, maker's side
)
