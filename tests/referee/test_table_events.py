"""Events the live table adds: the computer seat's announced play, cards taken away, misreads."""
from engine import Rules
from engine.referee import Referee

W_CARDS = ["JH", "JD", "AH", "9C", "10S"]


def start(known=("W",)):
    ref = Referee(Rules.preset("standard"), known_seats=known)
    events = [{"type": "hand", "dealer": "S"}]
    events += [{"type": "dealt", "seat": "W", "card": c} for c in W_CARDS]
    events += [{"type": "upcard", "card": "KH"}, {"type": "bid", "seat": "W", "bid": "order"},
               {"type": "discard", "seat": "S"}]
    for e in events:
        v = ref.feed(e)
        assert v.ok, (e, v.reason)
    return ref


def test_a_computer_seat_must_put_down_the_card_it_announced():
    ref = start()
    assert ref.state["to_act"] == "W"
    v = ref.feed({"type": "computer", "seat": "W", "action": "play AH"})
    assert v.ok and "West plays A♥" in v.message
    v = ref.feed({"type": "play", "seat": "W", "card": "JH"})
    assert not v.ok and v.reason.startswith("Wrong card for West: expected A♥, not J♥")
    assert ref.feed({"type": "play", "seat": "W", "card": "AH"}).ok
    assert ref.state["trick"] == [["W", "AH"]]


def test_the_computer_cannot_announce_out_of_turn_or_a_bid():
    ref = start()
    assert not ref.feed({"type": "computer", "seat": "N", "action": "play 9S"}).ok
    assert "not a play" in ref.feed({"type": "computer", "seat": "W", "action": "pass"}).reason


def test_removed_cards_are_noted_and_misreads_refused_without_touching_undo():
    ref = start()
    before = ref.state
    assert ref.feed({"type": "removed", "card": "KH", "zone": "UP"}).ok
    v = ref.feed({"type": "vision_error", "reason": "JH seen in two zones: N and UP", "cards": ["JH"]})
    assert not v.ok and v.irregularity == "misread" and "Show the card again" in v.reason
    assert {k: x for k, x in ref.state.items() if k not in ("seq", "messages")} == \
        {k: x for k, x in before.items() if k not in ("seq", "messages")}
    # The director's undo takes back the discard, not the camera's notes.
    v = ref.feed({"type": "undo", "by": "director"})
    assert v.ok and "discard" in v.message and ref.state["phase"] == "discard"


def test_view_of_the_computer_seat_shows_its_own_cards_only():
    ref = start()
    v = ref.view("W")
    assert sorted(v.cards) == sorted(W_CARDS) and v.trump == "H" and v.legal
    assert ref.view("N").cards == () and ref.view("N").legal == ()


def test_a_known_seat_can_see_its_hand_before_the_first_bid():
    ref = Referee(Rules.preset("standard"), known_seats=["W"])
    ref.feed({"type": "hand", "dealer": "S"})
    for c in W_CARDS:
        ref.feed({"type": "dealt", "seat": "W", "card": c})
    assert ref.view("W") is None          # no up-card yet
    ref.feed({"type": "upcard", "card": "KH"})
    v = ref.view("W")
    assert ref.state["phase"] == "deal" and v.to_act == "W"
    assert [str(a) for a in v.legal] == ["pass", "order", "order alone"]
    assert ref.view("N").cards == () and ref.view("N").legal == ()   # N's turn comes later
