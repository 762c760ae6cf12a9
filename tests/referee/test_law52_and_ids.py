"""Law 52 enforced (a called card must be played, a called suit led); an input sent twice counts once."""
from __future__ import annotations

from engine import Rules
from engine.referee import Referee

STANDARD = Rules.preset("standard")
DEAL_W = ["AC", "KC", "QC", "9D", "10D"]


def start(known=()):
    """South deals, hearts are trump (South orders up 9H); East leads the A♠ out of turn."""
    ref = Referee(STANDARD, known_seats=known)
    events = [{"type": "hand", "dealer": "S"}]
    if "W" in known:
        events += [{"type": "dealt", "seat": "W", "card": c} for c in DEAL_W]
    events += [{"type": "upcard", "card": "9H"}] + [
        {"type": "bid", "seat": s, "bid": b} for s, b in
        (("W", "pass"), ("N", "pass"), ("E", "pass"), ("S", "order"))] + [
        {"type": "discard", "seat": "S"}]
    for e in events:
        assert ref.feed(e).ok, e
    v = ref.feed({"type": "play", "seat": "E", "card": "AS"})
    assert not v.ok and v.irregularity == "lead out of turn"
    return ref


def play(ref, seat, card):
    return ref.feed({"type": "play", "seat": seat, "card": card})


def test_a_called_card_must_be_played_when_its_suit_is_led():
    ref = start()
    assert ref.feed({"type": "penalty", "seat": "N", "choice": "card"}).ok
    assert play(ref, "W", "KS").ok and play(ref, "N", "9S").ok     # spades led
    v = play(ref, "E", "QS")
    assert not v.ok and v.reason.startswith(
        "North-South called the A♠ (law 52): East must play it now. Take back the Q♠")
    v = play(ref, "E", "AS")
    assert v.ok and "the A♠ called by North-South" in v.message
    assert play(ref, "S", "10H").ok


def test_a_called_card_waits_while_another_suit_is_led():
    ref = start()
    assert ref.feed({"type": "penalty", "seat": "N", "choice": "card"}).ok
    assert play(ref, "W", "KC").ok and play(ref, "N", "9S").ok
    assert play(ref, "E", "9C").ok                                  # clubs led: free


def test_a_called_suit_binds_an_unknown_seat_and_a_card_shown_later_proves_the_defiance():
    ref = start()
    assert ref.feed({"type": "penalty", "seat": "S", "choice": "suit", "suit": "D"}).ok
    v = play(ref, "W", "KC")              # West may have no diamond: the lead stands
    assert v.ok and "North-South had called diamonds" in v.message
    for s, c in (("N", "AH"), ("E", "9C"), ("S", "10H")):
        assert play(ref, s, c).ok
    assert ref.feed({"type": "collect"}).ok
    for s, c in (("N", "10S"), ("E", "KS"), ("S", "QH")):
        assert play(ref, s, c).ok
    v = play(ref, "W", "9D")
    assert v.ok and "West was called to lead diamonds (law 52) and led K♣ in trick 1 while " \
                    "holding the nine of diamonds, now shown" in v.message
    kinds = [i["kind"] for i in ref.records()[0]["irregularities"]]
    assert "called suit not led" in kinds


def test_a_called_suit_is_enforced_on_a_known_hand_and_narrows_its_legal_plays():
    ref = start(known="W")
    assert ref.feed({"type": "penalty", "seat": "S", "choice": "suit", "suit": "D"}).ok
    assert [str(a) for a in ref.view("W").legal] == ["play 9D", "play 10D"]
    v = play(ref, "W", "KC")
    assert not v.ok and v.reason.startswith(
        "North-South called diamonds (law 52): West must lead diamonds, holding the nine of "
        "diamonds")
    v = play(ref, "W", "9D")
    assert v.ok and "diamonds, as North-South called" in v.message
    # The call is answered: the next leads are free again.
    assert not ref._t.current.calls


def test_an_input_sent_twice_is_applied_once_even_after_a_restart():
    events = [{"type": "hand", "dealer": "S", "id": "panel-1"},
              {"type": "upcard", "card": "9H", "id": "cam-1"},
              {"type": "bid", "seat": "W", "bid": "pass", "id": "panel-2"},
              {"type": "bid", "seat": "W", "bid": "pass", "id": "panel-2"}]   # re-sent
    ref = Referee(STANDARD)
    verdicts = [ref.feed(e) for e in events]
    assert [v.ok for v in verdicts] == [True, True, True, False]
    assert verdicts[3].effect == "duplicate"
    assert verdicts[3].reason == "Already received as #3 (id 'panel-2'): this copy is ignored"
    assert ref.state["to_act"] == "N"
    # A restart folds the same log: the same verdicts; and the copy after it still counts once.
    again = Referee(STANDARD)
    assert [again.feed(e).ok for e in events] == [True, True, True, False]
    assert not again.feed(dict(events[2])).ok and again.state["to_act"] == "N"
    # An input without an id is taken as it comes; an id that names nothing is refused.
    assert ref.feed({"type": "bid", "seat": "N", "bid": "pass"}).ok
    assert "id is a short text" in ref.feed({"type": "collect", "id": [1]}).reason


def test_the_table_log_keeps_the_copy_and_the_referee_refuses_it(tmp_path):
    from controller.log import RefereedLog
    path = str(tmp_path / "t.sqlite")
    table = RefereedLog(path, STANDARD)
    for e in ({"type": "hand", "dealer": "S", "id": 1}, {"type": "hand", "dealer": "S", "id": 1}):
        table.record(e, at=0.0)
    state = table.referee.state
    table.close()
    again = RefereedLog(path, STANDARD)        # the restart
    assert again.log.last_seq == 2 and again.referee.state == state
    assert again.referee.state["hand"] == 1
    again.close()
