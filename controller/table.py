"""The table controller: every input becomes a logged event, the referee folds it, the outputs follow.

One controller serves the real table (`run`) and the virtual one (`simulate`): inputs
arrive as table events (from the vision tracker, the bid panel, the board), each is
appended durably to the log *before* the referee sees it, and the referee's verdict drives
the screen, the speaker and the LEDs. The computer seats decide from the referee's view of
their own seat only, and their decisions are events too, so that the log alone replays
the table exactly.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Optional

from engine.cards import SEAT_NAMES, Card
from engine.referee import Referee, Verdict
from engine.rules import Rules

log = logging.getLogger(__name__)

OVER_PHASES = ("over", "thrown in", "misdeal", "void")


@dataclass
class ComputerSeat:
    """A seat the Pi plays: its bot and, for the rack LEDs, the slot of each card."""

    seat: str
    bot: object
    slots: dict = field(default_factory=dict)   # Card -> rack slot (0-4 as dealt, 5 up-card)


class TableController:
    """The table's one path from input to output.

    ``submit(event)`` appends the event to ``log`` with the time from ``clock``, folds it
    through the referee and updates the outputs; then, while a computer seat is to bid
    or discard, it decides and submits that too. For a play it announces the card and
    lights its rack slot, and the card counts only when it is seen in the seat's play area.

    The outputs are optional and duck-typed: ``screen.show(TableStatus)``,
    ``speaker.say(text, priority=)``, ``leds.seats.show_turn(seat, computer=)`` and
    ``leds.rack.point(slot)``, ``panel.set_legal(actions)``.
    """

    def __init__(self, rules: Rules, event_log, clock: Callable[[], float],
                 computers: Optional[dict] = None, known_seats=(), screen=None, speaker=None,
                 leds=None, panel=None, on_verdict: Optional[Callable] = None, sealer=None):
        self.rules = rules
        self.log = event_log
        self.clock = clock
        self.computers = {s: ComputerSeat(s, bot) for s, bot in (computers or {}).items()}
        self.referee = Referee(rules, known_seats=set(known_seats) | set(self.computers))
        self.screen, self.speaker, self.leds, self.panel = screen, speaker, leds, panel
        self.on_verdict = on_verdict
        self.fault: Optional[str] = None
        self.last_message = ""
        # Cards the people may not know yet are logged sealed (controller.secrecy) and
        # revealed in the log when the hand ends.
        self.sealer = sealer
        self._secrets: list = []          # (seq, plain event) sealed in this hand, unrevealed
        self._hidden_discards: dict = {}  # computer seat -> the card it laid aside face down
        self.dealt_cards: dict = {}       # seat -> cards dealt to it through the reader, this hand
        # Cards lying face up in view of everyone (the service passes the overhead
        # tracker's): one laid by mistake from the rack is no secret any more.
        self.exposed: Callable[[], set] = set
        # Resume: the state is a pure fold of the log, so replaying it is the restart.
        replayed = 0
        for rec in event_log.records():
            event = self._opened(rec.event(), rec.seq)
            replayed += 1
            if event is not None:
                self._fold(event, rec.seq, replay=True)
        self.resumed = replayed > 0
        self._reveal_if_over()
        if self.resumed:
            st = self.referee.state
            self.last_message = (f"Resumed at event {st['seq']}: score NS {st['score']['NS']}, "
                                 f"EW {st['score']['EW']}. {st['turn']}")
            self._say(self.last_message)
        self._show()

    # ------------------------------------------------------------------ input
    def submit(self, event) -> Verdict:
        """Log one input durably, then fold it; returns the referee's verdict. A card the
        people may not know yet (a dealt card, a discard's card) is logged sealed."""
        verdict = self._log_and_fold(event)
        self._computer_turns()
        return verdict

    def _log_and_fold(self, event) -> Verdict:
        from controller.secrecy import is_secret
        if self.sealer is not None and is_secret(event):
            plain = {k: v for k, v in event.items() if k not in ("seq", "at")}
            rec = self.log.append(self.sealer.seal(plain), at=self.clock())
            self._secrets.append((rec.seq, plain))
            verdict = self._fold(plain, rec.seq)
        else:
            rec = self.log.append(event, at=self.clock())
            verdict = self._fold(rec.event(), rec.seq)
        self._reveal_if_over()
        return verdict

    def _opened(self, event, seq: int):
        """A logged event as the referee must see it: sealed ones opened with the table's
        key; reveals are not table events (None)."""
        if not isinstance(event, dict):
            return event
        if event.get("type") == "reveal":
            revealed = {item.get("seq") for item in event.get("opened") or [] if isinstance(item, dict)}
            self._secrets = [(s, e) for s, e in self._secrets if s not in revealed]
            return None
        if event.get("type") != "sealed":
            return event
        from controller.secrecy import SealError
        try:
            if self.sealer is None:
                raise SealError("the table has no sealing key")
            plain = self.sealer.open(event)
        except SealError as exc:
            self.fault = (f"A sealed card (event {seq}) cannot be opened: {exc}. "
                          "Director: void this hand and deal again")
            log.error("%s", self.fault)
            return None
        self._secrets.append((seq, plain))
        return plain

    def _reveal_if_over(self) -> None:
        """When the hand has ended, append the plain text of its sealed events to the log,
        so that the finished hand reads whole without the key."""
        if not self._secrets or self.referee.state["phase"] not in OVER_PHASES:
            return
        from controller.secrecy import reveal_event
        opened, self._secrets = self._secrets, []
        self.log.append(reveal_event(opened), at=self.clock())
        self._hidden_discards = {}

    def _fold(self, event, seq: int, replay: bool = False) -> Verdict:
        v = self.referee.feed(event, seq=seq)
        if isinstance(event, dict):
            self._track_rack(event, v)
        if replay:
            return v
        if self.on_verdict is not None:
            self.on_verdict(event, v)
        if not v.ok and v.reason:
            self.last_message = v.reason
        elif v.message and v.effect not in ("noted", "dealt"):
            # The screen has one line: the first sentence says what just happened; the
            # arrow already shows whose turn it is.
            self.last_message = v.message.split(". ")[0]
        if v.ok and v.effect == "undo" and self.referee.corrections:
            undone = self.referee.corrections[-1].get("undone_seq")
            if undone in {s for s, _ in self._secrets}:
                # The referee's words would name the card taken back: it stays sealed.
                self.last_message = f"Undone by the director: #{undone}, a card read face down"
                self._untrack(dict(self._secrets)[undone])
        if not v.ok and v.reason:
            self._say(v.reason, priority=True)
        elif v.revoke:
            self._say(v.revoke.get("message", "Revoke"), priority=True)
        elif v.effect in ("hand over", "misdeal", "law 50", "trick") and v.message:
            self._say(_last_sentence(v.message, v.effect))
        self._show()
        return v

    def _track_rack(self, event: dict, v: Verdict) -> None:
        """Remember which rack slot holds each card of a computer seat."""
        if not v.ok:
            return
        kind = event.get("type")
        if kind == "hand":
            for c in self.computers.values():
                c.slots = {}
            self._hidden_discards = {}
            self.dealt_cards = {}
        if kind == "dealt":
            try:
                self.dealt_cards.setdefault(event.get("seat"), []).append(Card(event["card"]))
            except (KeyError, ValueError):
                pass
        if kind == "dealt" and event.get("seat") in self.computers:
            c = self.computers[event["seat"]]
            # The first free slot (a card taken back by the director frees its slot).
            c.slots[Card(event["card"])] = min(set(range(len(c.slots) + 1)) - set(c.slots.values()))
        elif kind == "discard" and event.get("seat") in self.computers and event.get("card"):
            c = self.computers[event["seat"]]
            self._hidden_discards[event["seat"]] = Card(event["card"])
            up = self.referee.state.get("upcard")
            if up and Card(up) not in c.slots:
                c.slots[Card(up)] = 5

    def _untrack(self, event: dict) -> None:
        """Forget a dealt card the director took back (its slot is free again)."""
        if event.get("type") != "dealt":
            return
        try:
            card = Card(event["card"])
        except (KeyError, ValueError):
            return
        cards = self.dealt_cards.get(event.get("seat"), [])
        if card in cards:
            cards.remove(card)
        comp = self.computers.get(event.get("seat"))
        if comp is not None:
            comp.slots.pop(card, None)

    # ------------------------------------------------------------------ computer seats
    def _computer_turns(self) -> None:
        """Let computer seats act while it is their turn to bid or discard; for a play,
        announce it once and wait for the card to be put down."""
        for _ in range(16):  # a bound: at most a round of bids and a discard per input
            st = self.referee.state
            seat = st["to_act"]
            if seat not in self.computers or st["phase"] in OVER_PHASES:
                break
            comp = self.computers[seat]
            view = self.referee.view(seat)
            if view is None or not view.legal:
                break
            phase = st["phase"]
            if phase == "play":
                if self.referee_expects(seat):
                    break
                action = comp.bot.choose(view)
                v = self.submit_quiet({"type": "computer", "seat": seat, "action": str(action)})
                if v.ok:
                    self._say(f"{SEAT_NAMES[seat]} plays the {action.card.name}")
                    self._point(comp, action.card)
                break
            action = comp.bot.choose(view)
            if phase == "discard":
                self._point(comp, action.card)
                self._say(f"{SEAT_NAMES[seat]} discards: take the card from slot "
                          f"{comp.slots.get(action.card, 0) + 1} and lay it aside face down")
                self.submit_quiet({"type": "discard", "seat": seat, "card": str(action.card)})
            else:
                self._say(_bid_words(seat, str(action), st.get("upcard")))
                self.submit_quiet({"type": "bid", "seat": seat, "bid": str(action),
                                   "by": "computer"})

    def submit_quiet(self, event) -> Verdict:
        """Log and fold without triggering the computer seats again (the caller loops)."""
        return self._log_and_fold(event)

    def announce(self, text: str, priority: bool = False) -> None:
        """Show ``text`` on the screen's message line and say it (the reader's "Cards for
        West", a device's state)."""
        self.last_message = text
        self._say(text, priority=priority)
        self._show()

    # ------------------------------------------------------------------ secrecy
    def hidden_cards(self) -> set:
        """The computer seats' cards the people may not know now: those in their racks not
        yet announced as played, and their discards; the up-card is public."""
        st = self.referee.state
        hidden = set()
        if st["phase"] in OVER_PHASES + ("no hand",):
            return hidden
        for seat, comp in self.computers.items():
            view = self.referee.view(seat)
            # While the deal goes on there is no view yet: the cards read so far are hidden.
            hidden |= set(view.cards or ()) if view is not None else set(comp.slots)
            expected = self.referee.expected(seat)
            if expected is not None:
                hidden.discard(expected)
        hidden |= set(self._hidden_discards.values())
        if st.get("upcard"):
            hidden.discard(Card(st["upcard"]))
        return hidden - {Card(c) for c in self.exposed()}

    def redact(self, text: str) -> str:
        """``text``, or a neutral line in its place when it names a hidden card (a
        referee's reason may name the card it compared with: never on the screen or aloud)."""
        from controller.secrecy import names_any
        if text and names_any(text, self.hidden_cards()):
            return "Refused: the reason names a card kept secret until the hand ends"
        return text

    def referee_expects(self, seat: str) -> Optional[Card]:
        """The card the computer seat announced and the table waits for, if any."""
        return self.referee.expected(seat)

    def _point(self, comp: ComputerSeat, card: Card) -> None:
        self.point_slot(comp.seat, comp.slots.get(card))

    def point_slot(self, seat: str, slot: Optional[int]) -> None:
        """Blink the LED over ``slot`` of ``seat``'s rack (None: dark): the seat's own rack
        (``leds.racks``), or the main rack for the first computer seat."""
        if self.leds is None:
            return
        first = bool(self.computers) and seat == next(iter(self.computers))
        rack_of = getattr(self.leds, "rack_of", None)
        rack = rack_of(seat, first) if rack_of is not None else \
            (getattr(self.leds, "rack", None) if first else None)
        if rack is not None:
            rack.point(slot)

    # ------------------------------------------------------------------ hand flow
    def next_hand_event(self) -> Optional[dict]:
        """The ``hand`` event that starts the next hand, when the last one is finished."""
        st = self.referee.state
        if st["phase"] not in OVER_PHASES + ("no hand",):
            return None
        dealer = st["next_dealer"]
        return None if dealer is None else {"type": "hand", "dealer": dealer}

    # ------------------------------------------------------------------ outputs
    def status(self):
        """The screen's picture of the table now (a hardware.display.TableStatus)."""
        from hardware.display import TableStatus
        st = self.referee.state
        phase = st["phase"]
        common = dict(score=st["score"], target=st["target"], dealer=st["dealer"])
        if self.fault:
            return TableStatus(screen="fault", message=self.redact(self.fault), **common)
        if st["winner"] and phase in OVER_PHASES:
            return TableStatus(screen="game_over", winner=st["winner"], message="Game over",
                               **common)
        if phase == "over":
            rec = self.referee.records()[-1]
            result = rec.get("result") or {}
            return TableStatus(screen="hand_over", trump=st["trump"], maker=st["maker"],
                               tricks=st["tricks"], hand_points=result.get("points"), **common)
        bidding = phase in ("round 1", "round 2", "deal")
        return TableStatus(
            trump=None if bidding else st["trump"], maker=None if bidding else st["maker"],
            lone=st["alone"] or st["defender_alone"], to_act=st["to_act"],
            tricks=st["tricks"], upcard=st["upcard"] if bidding else None,
            bidding_round=2 if phase == "round 2" else 1 if bidding else None,
            message=self.redact(self.last_message), **common)

    def _show(self) -> None:
        if self.screen is not None:
            self.screen.show(self.status())
        st = self.referee.state
        seats = getattr(self.leds, "seats", None) if self.leds is not None else None
        if seats is not None:
            seats.show_turn(st["to_act"], computer=st["to_act"] in self.computers)
        if self.panel is not None:
            # The computer bids by itself; its legal plays would list its cards.
            view = self.referee.view(st["to_act"]) if st["to_act"] and \
                st["to_act"] not in self.computers else None
            # A person's cards are unknown, but bids do not depend on them: the view of
            # the seat to act lists its legal bids all the same.
            self.panel.set_legal([str(a) for a in view.legal] if view is not None else [])

    def _say(self, text: str, priority: bool = False) -> None:
        if self.speaker is not None and text:
            from hardware.phrases import speakable
            self.speaker.say(speakable(self.redact(text)), priority=priority)


def _bid_words(seat: str, action: str, upcard: Optional[str]) -> str:
    from hardware.phrases import bid_phrase
    return bid_phrase(seat, action, upcard_suit=Card(upcard).suit if upcard else None)


def _last_sentence(message: str, effect: str) -> str:
    parts = [p.strip() for p in message.split(". ") if p.strip()]
    if effect == "trick":
        return next((p for p in parts if " wins trick " in p), parts[-1])
    return ". ".join(parts[-3:]) if effect == "hand over" else message
