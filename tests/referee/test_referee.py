"""The referee's rulings, one behaviour per test: each irregularity and the message it gets."""
from __future__ import annotations

import json
import os
import random

import pytest

from engine import Rules
from engine.records import events_of_game, play_random_game, record_text
from engine.referee import Referee

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
STANDARD = Rules.preset("standard")
SOMERSET = Rules.preset("somerset-1888")


def golden_events(name):
    with open(os.path.join(GOLDEN, name + ".jsonl"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def fold(events, rules=STANDARD, known=()):
    ref = Referee(rules, known_seats=known)
    return ref, [ref.feed(e) for e in events]


def by_seq(verdicts, seq):
    return next(v for v in verdicts if v.seq == seq)


@pytest.mark.parametrize("preset", ["standard", "somerset-1888", "stick-the-dealer"])
@pytest.mark.parametrize("known", ["", "E", "NESW"])
def test_clean_games_are_accepted_and_scored_as_the_engine_scores_them(preset, known):
    rules = Rules.preset(preset)
    for seed in range(4):
        game = play_random_game(rules, seed=seed)
        ref, verdicts = fold(events_of_game(game, known), rules, known)
        refused = [v for v in verdicts if not v.ok]
        assert not refused, refused[0]
        assert ref.state["score"] == game.score
        assert ref.state["winner"] == game.winner or rules.rubber
        assert not any(v.revoke for v in verdicts)
        assert len(ref.records()) == len([h for h in game.hands if h.history])


def test_a_play_out_of_turn_names_who_is_to_play():
    ref, vs = fold(golden_events("refusals"))
    v = by_seq(vs, 22)
    assert not v.ok and v.reason == "Not East's turn: North is to play"


def test_a_card_already_played_or_in_a_known_hand_or_turned_down_is_refused():
    ref, vs = fold(golden_events("refusals"))
    assert by_seq(vs, 24).reason.startswith("The ace of clubs has already been played by West")
    assert "Show the card again" in by_seq(vs, 24).reason
    assert by_seq(vs, 19).reason.startswith("West cannot hold the ace of hearts: it was dealt to North")
    assert by_seq(vs, 20).reason.startswith("The nine of hearts was the up-card, turned down")


def test_bids_the_rules_do_not_allow():
    ref, vs = fold(golden_events("refusals"))
    assert by_seq(vs, 11).reason.startswith("First round: order up hearts or pass")
    assert by_seq(vs, 15).reason == "Hearts were turned down: name another suit"
    std, vs_std = fold(golden_events("stick_the_dealer"), STANDARD)
    stick, vs_stick = fold(golden_events("stick_the_dealer"), Rules.preset("stick-the-dealer"))
    assert vs_stick[9].reason == "The dealer must name a suit (stick the dealer)"
    assert vs_std[9].ok and vs_std[9].effect == "hand over"   # thrown in without the option
    assert stick.state["trump"] == "S" and std.state["phase"] == "thrown in"


def test_misdeals_say_what_was_wrong_and_who_deals():
    _, vs = fold(golden_events("misdeal_count"))
    assert vs[6].irregularity == "misdeal"
    assert vs[6].message.startswith("Misdeal: North was dealt a sixth card (J♠)")
    assert "West deals (law 42)" in vs[6].message
    assert vs[13].message.startswith("Misdeal: North was dealt 4 cards, not five")
    _, vs = fold(golden_events("misdeal_duplicate"))
    assert "the king of clubs was dealt twice (West and East)" in vs[6].message
    assert "the same dealer deals again (law 33)" in vs[6].message
    assert "the up-card K♣ was also dealt to West" in vs[13].message
    assert "the nine of hearts was dealt to North but is the up-card" in vs[16].message
    _, vs = fold(golden_events("misdeal_25th"))
    assert vs[11].message.startswith("Misdeal: the card 8H was dealt: it is not in a Euchre pack")


def test_a_known_seat_that_does_not_follow_suit_is_stopped_before_the_card_counts():
    ref, vs = fold(golden_events("left_bower_known"))
    e = by_seq(vs, 30)
    assert not e.ok and e.reason == "Must follow suit: diamonds were led"
    assert by_seq(vs, 31).ok   # East then follows with the Q♦
    assert not any(v.revoke or v.possible_revoke for v in vs)


def test_left_bower_is_a_trump_for_following_suit():
    ref, vs = fold(golden_events("left_bower_known"))
    # Diamonds led, hearts trump: North's only "diamond" is the J♦, so any card may go.
    assert by_seq(vs, 29).ok and by_seq(vs, 29).message.startswith("North plays A♣")
    # The J♦ does not follow spades ...
    assert by_seq(vs, 36).reason == "Must follow suit: spades were led"
    # ... and must follow hearts.
    assert by_seq(vs, 41).reason == ("Must follow suit: hearts were led. The jack of diamonds is "
                                     "the left bower: it counts as a heart")
    assert ref.state["score"] == {"NS": 1, "EW": 0}


def test_the_left_bower_led_is_a_trump_lead_and_a_diamond_on_it_is_a_revoke():
    ref, vs = fold(golden_events("left_bower_unknown"))
    possible = by_seq(vs, 15).possible_revoke
    assert possible["seat"] == "S" and possible["led"] == "H" and possible["played"] == "KD"
    proof = by_seq(vs, 20).revoke
    assert proof["seat"] == "S" and proof["trick"] == 2 and proof["shown"] == "9H"
    assert "the J♦ led is the left bower, a trump" in proof["message"]
    assert ref.state["score"] == {"NS": 0, "EW": 2}  # makers revoked: euchred


def test_showing_the_left_bower_does_not_prove_a_failure_to_follow_its_printed_suit():
    events = [{"type": "hand", "dealer": "S"}, {"type": "upcard", "card": "9H"},
              {"type": "bid", "seat": "W", "bid": "pass"}, {"type": "bid", "seat": "N", "bid": "pass"},
              {"type": "bid", "seat": "E", "bid": "pass"}, {"type": "bid", "seat": "S", "bid": "order"},
              {"type": "discard", "seat": "S"},
              {"type": "play", "seat": "W", "card": "9D"}, {"type": "play", "seat": "N", "card": "9S"},
              {"type": "play", "seat": "E", "card": "AS"}, {"type": "play", "seat": "S", "card": "AD"},
              {"type": "play", "seat": "S", "card": "QH"}, {"type": "play", "seat": "W", "card": "10D"},
              {"type": "play", "seat": "N", "card": "JD"}]
    ref, vs = fold(events)
    assert vs[8].possible_revoke["led"] == "D"      # North did not follow diamonds ...
    assert vs[13].ok and vs[13].revoke is None      # ... and the J♦ shown later is a trump
    assert ref.state["possible_revokes"][0]["seat"] == "N"


@pytest.mark.parametrize("name,rules,points,winner", [
    ("revoke_defender", "standard", {"NS": 2, "EW": 0}, None),
    ("revoke_defender", "somerset-1888", {"NS": 4, "EW": 0}, None),
    ("revoke_maker", "standard", {"NS": 2, "EW": 0}, None),
    ("revoke_maker", "somerset-1888", {"NS": 5, "EW": 0}, "NS"),
    ("revoke_lone", "standard", {"NS": 4, "EW": 0}, None),
    ("revoke_lone", "somerset-1888", {"NS": 5, "EW": 0}, "NS"),
])
def test_a_proven_revoke_is_penalised_by_the_rules_option(name, rules, points, winner):
    ref, vs = fold(golden_events(name), Rules.preset(rules))
    proofs = [v for v in vs if v.revoke]
    assert len(proofs) == 1
    r = proofs[0].revoke
    assert (r["seat"], r["trick"], r["led"], r["played"], r["shown"]) == ("E", 1, "C", "AS", "9C")
    assert ref.state["score"] == points and ref.state["winner"] == winner
    result = ref.records()[0]["result"]
    if rules == "somerset-1888":
        lone = name == "revoke_lone"
        assert result["revoke_points"]["NS"] == (5 if lone else 3)
    else:
        assert result["revoke_points"] == {"NS": 0, "EW": 0}
        assert result["penalty"].startswith("Revoke by the")


@pytest.mark.parametrize("rules", ["standard", "somerset-1888"])
def test_equal_revokes_on_both_sides_cancel(rules):
    ref, vs = fold(golden_events("revoke_both"), Rules.preset(rules))
    assert [(v.revoke["seat"], v.revoke["trick"]) for v in vs if v.revoke] == [("E", 1), ("N", 3)]
    assert ref.state["score"] == {"NS": 1, "EW": 0}   # the makers' 4 tricks, nothing more
    assert ref.records()[0]["result"]["penalty"].startswith("Equal revokes on both sides cancel")


def test_a_possible_revoke_never_proven_costs_nothing_and_stays_in_the_record():
    ref, vs = fold(golden_events("revoke_never_proven"))
    assert vs[8].possible_revoke["seat"] == "E" and vs[8].possible_revoke["led"] == "D"
    assert not any(v.revoke for v in vs)
    assert ref.state["score"] == {"NS": 4, "EW": 0}   # the loner's march, nothing else
    rec = ref.records()[0]
    assert {"seat": "E", "trick": 1, "led": "D", "played": "QS"}.items() <= \
        rec["possible_revokes"][0].items()
    assert rec["possible_revokes"][0]["outcome"] == "cleared"
    # Kept in the record; not printed, since the hand showed East was void.
    assert "Possible revoke" not in record_text(rec)


def test_lead_out_of_turn_is_refused_recorded_with_the_opponents_choice():
    ref, vs = fold(golden_events("lead_out_of_turn"))
    assert vs[7].irregularity == "lead out of turn" and not vs[7].ok
    assert vs[7].reason.startswith("Lead out of turn (law 52): West is to lead, not East")
    assert not vs[8].ok and "belongs to the opponents of East" in vs[8].reason
    assert vs[9].ok
    irr = ref.records()[0]["irregularities"][0]
    assert irr["kind"] == "lead out of turn" and irr["choice"]["by"] == "S"
    assert irr["choice"]["words"] == "call clubs from East or West at their next lead"


def test_law_50_only_under_the_somerset_laws():
    ref, vs = fold(golden_events("law50"), SOMERSET)
    assert vs[-1].effect == "law 50" and ref.state["score"] == {"NS": 5, "EW": 0}
    assert vs[-1].message.startswith("Law 50: East did not play to trick 1 against South's lone hand")
    ref, vs = fold(golden_events("law50"), STANDARD)
    assert not vs[-1].ok and vs[-1].reason.startswith("The trick is not complete: East and South")


def test_director_corrections_undo_void_and_score_are_events_in_the_record():
    ref, vs = fold(golden_events("corrections"))
    assert vs[8].effect == "undo" and "#8 play seat=W card=KC" in vs[8].message
    assert by_seq(vs, 12).effect == "void" and "South deals again" in by_seq(vs, 12).message
    assert not by_seq(vs, 13).ok     # the same dealer deals again after a void
    assert by_seq(vs, 19).reason.startswith("The score of NS must be a whole number")
    kinds = [c["kind"] for c in ref.corrections]
    assert kinds == ["undo", "score", "void", "undo", "undo", "undo", "undo"]
    assert ref.state["phase"] == "discard" and ref.state["score"] == {"NS": 0, "EW": 0}


def test_undo_gives_the_state_of_the_log_without_the_undone_event():
    rules = STANDARD
    game = play_random_game(rules, seed=11)
    events = events_of_game(game, "E")
    rng = random.Random(5)
    for _ in range(25):
        n = rng.randrange(1, len(events))
        a, _ = fold(events[:n] + [events[n], {"type": "undo"}], rules, "E")
        b, _ = fold(events[:n], rules, "E")
        sa, sb = dict(a.state), dict(b.state)
        for s in (sa, sb):
            s.pop("messages"), s.pop("seq"), s.pop("turn")
        assert sa == sb, n


def test_the_fold_is_deterministic_and_each_state_depends_only_on_its_prefix():
    game = play_random_game(SOMERSET, seed=3)
    events = events_of_game(game, "NE")
    events[40:40] = ["junk", {"type": "undo"}, {"type": "play", "seat": "N", "card": "AS"}]
    full = Referee(SOMERSET, known_seats="NE")
    states = []
    for e in events:
        full.feed(e)
        states.append(json.dumps(full.state, sort_keys=True))
    for n in (1, 17, 41, 42, 43, 100, len(events)):
        part, _ = fold(events[:n], SOMERSET, "NE")
        assert json.dumps(part.state, sort_keys=True) == states[n - 1]


def test_hand_records_as_json_and_text():
    ref, _ = fold(golden_events("revoke_lone"))
    rec = ref.records()[0]
    json.dumps(rec)  # plain values only
    assert rec["upcard"] == "9H" and rec["trump"] == "H" and rec["alone"] == "S"
    assert rec["bids"][-1] == ["S", "order alone"] and rec["discard"] == "unseen"
    assert [t["winner"] for t in rec["tricks"]] == ["W", "S", "S", "S", "S"]
    text = record_text(rec)
    assert "Trick 1: W A♣  E A♠  S A♦ -> W" in text
    assert "Revoke (#13): Revoke by East in trick 1" in text
    assert "Score after the hand: NS 4, EW 0 (before: NS 0, EW 0)" in text
    ref, _ = fold(golden_events("left_bower_known"))
    assert ref.records()[0]["known"]["N"] == "JD 10S 9S AC 9C"


def test_known_seats_must_be_dealt_before_bidding():
    ref = Referee(STANDARD, known_seats="E")
    ref.feed({"type": "hand", "dealer": "S"})
    ref.feed({"type": "upcard", "card": "9H"})
    v = ref.feed({"type": "bid", "seat": "W", "bid": "pass"})
    assert v.irregularity == "misdeal" and "East was dealt 0 cards, not five" in v.message
