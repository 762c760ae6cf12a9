"""Statistics per player and per difficulty, from finished games."""
from controller.stats import GameSummary, compute_stats, format_stats
from engine import HandResult

PLAYERS = {"N": "Ann", "E": "Pi", "S": "Cy", "W": "Bob"}


def result(makers, tricks, alone=None, march=False):
    other = "EW" if makers == "NS" else "NS"
    euchred = tricks < 3
    pts = {makers: 0 if euchred else (2 if march else 1), other: 2 if euchred else 0}
    return HandResult(makers=makers, maker=makers[0], trump="H",
                      tricks={makers: tricks, other: 5 - tricks}, points=pts,
                      euchred=euchred, march=march, alone=alone)


def test_wins_streaks_margins_and_contracts():
    g1 = GameSummary(PLAYERS, [result("NS", 5, march=True), result("EW", 2), result("NS", 3, alone="N")],
                     {"NS": 10, "EW": 3}, "NS", levels={"E": "hard"})
    g2 = GameSummary(PLAYERS, [result("EW", 4)], {"NS": 10, "EW": 8}, "NS", levels={"E": "hard"})
    g3 = GameSummary(PLAYERS, [], {"NS": 6, "EW": 10}, "EW", levels={"E": "easy"})
    s = compute_stats([g1, g2, g3])
    ann, bob = s["players"]["Ann"], s["players"]["Bob"]
    assert (ann.games, ann.wins, ann.longest_streak, ann.streak) == (3, 2, 2, 0)
    assert ann.biggest_margin == 7 and round(ann.win_rate, 2) == 0.67
    assert (ann.contracts, ann.made, ann.marches, ann.euchres, ann.lone_hands) == (2, 2, 1, 1, 1)
    assert (bob.contracts, bob.made, bob.euchred, bob.wins, bob.biggest_margin) == (2, 1, 1, 1, 4)
    assert s["by_level"]["hard"]["Ann"].games == 2 and s["by_level"]["easy"]["Ann"].wins == 0
    assert "Pi" not in s["by_level"]["hard"]   # the computer's own seat is not a person's record
    text = format_stats(s)
    assert "against computer players at hard" in text and "Ann" in text
    assert "called: hands where this player's side named trump" in " ".join(text.split())
