"""Keeping the hidden cards secret until the hand ends: sealed log events, the reveal, and redacted words.

The log is the table's truth and anyone may read it (``referee``, ``stats``, a club's hall
reading the table's events live). So a card the people may not know yet (every ``dealt``
card, and a discard that names its card) is written *sealed*: the event is encrypted with
the table's own key, kept beside the log in a file only the service's user can read::

    {"type": "sealed", "kind": "dealt", "seat": "W", "box": "..."}

The seat and the kind stay readable (everyone saw West being dealt a card). When the hand
ends the table appends a ``reveal`` event with the sealed events in plain text, so the
finished hand's record is whole for any reader without the key::

    {"type": "reveal", "opened": [{"seq": 12, "event": {"type": "dealt", ...}}, ...]}

:func:`open_events` does that substitution for log readers; the table itself opens sealed
events with its key when it replays the log after a restart in the middle of a hand.

>>> import tempfile, os
>>> seal = Sealer.for_state_dir(tempfile.mkdtemp())
>>> sealed = seal.seal({"type": "dealt", "seat": "W", "card": "JH", "by": "reader"})
>>> sorted(sealed), sealed["type"], sealed["kind"], sealed["seat"]
(['box', 'kind', 'seat', 'type'], 'sealed', 'dealt', 'W')
>>> b'"card": "JH"' in base64.b64decode(sealed["box"])     # the box is not the plain event
False
>>> seal.open(sealed)["card"]
'JH'
"""
from __future__ import annotations

import base64
import json
import os
import re
import secrets
from pathlib import Path
from typing import Iterable, Iterator, Optional

KEY_FILE = "hand-seal.key"
"""The key's file name in the table's state directory (mode 0600)."""

SEALED_KINDS = ("dealt", "discard")
_AAD = b"euchre-table sealed event"


class SealError(RuntimeError):
    """A sealed event that cannot be opened (another table's key, a damaged record)."""


def is_secret(event) -> bool:
    """Whether an event names a card the people may not know yet: every dealt card, and a
    discard with its card."""
    if not isinstance(event, dict):
        return False
    kind = event.get("type")
    return kind == "dealt" or (kind == "discard" and bool(event.get("card")))


class Sealer:
    """Seals and opens events with a 32-byte key (AES-256-GCM from the ``cryptography``
    package: it hides the event and detects a wrong key or a damaged box)."""

    def __init__(self, key: bytes):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        if not isinstance(key, (bytes, bytearray)) or len(key) != 32:
            raise ValueError("a sealing key is 32 random bytes")
        self._aead = AESGCM(bytes(key))

    @classmethod
    def for_state_dir(cls, state_dir) -> "Sealer":
        """The table's sealer: its key from ``state_dir/hand-seal.key``, made (0600) on
        first use. Losing the file loses only the hand in progress (a finished hand is
        revealed in the log)."""
        path = Path(state_dir) / KEY_FILE
        try:
            return cls._make(path)
        except OSError as exc:
            raise SealError(f"the sealing key {path} cannot be read or made ({exc.strerror or exc}): "
                            "the state directory must be writable by the table's user") from None

    @classmethod
    def _make(cls, path: Path) -> "Sealer":
        try:
            return cls(bytes.fromhex(path.read_text().strip()))
        except FileNotFoundError:
            pass
        except ValueError:
            raise SealError(f"{path} is not a sealing key: delete it (the hand in progress "
                            "will have to be dealt again) and restart") from None
        key = secrets.token_bytes(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:   # another process made it first: use that one
            return cls(bytes.fromhex(path.read_text().strip()))
        with os.fdopen(fd, "w") as f:
            f.write(key.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        # The key must outlive a power cut as surely as the events it seals.
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        return cls(key)

    def seal(self, event: dict) -> dict:
        """The sealed form of a secret event: only ``type``, ``kind`` and ``seat`` readable."""
        plain = json.dumps(event, sort_keys=True, ensure_ascii=False).encode()
        nonce = secrets.token_bytes(12)
        box = nonce + self._aead.encrypt(nonce, plain, _AAD)
        sealed = {"type": "sealed", "kind": event.get("type"), "box": base64.b64encode(box).decode()}
        if event.get("seat"):
            sealed["seat"] = event["seat"]
        return sealed

    def open(self, sealed: dict) -> dict:
        """The plain event of a sealed one; SealError when it was not sealed with this key."""
        from cryptography.exceptions import InvalidTag
        try:
            raw = base64.b64decode(str(sealed["box"]), validate=True)
        except (KeyError, ValueError):
            raise SealError("a sealed event without a readable box") from None
        if len(raw) < 12 + 16 + 1:
            raise SealError("a sealed event too short to hold a card")
        try:
            plain = self._aead.decrypt(raw[:12], raw[12:], _AAD)
        except InvalidTag:
            raise SealError("a sealed event that this table's key does not open (the key file "
                            "was replaced, or the log comes from another table)") from None
        return json.loads(plain.decode())


def reveal_event(opened: list) -> dict:
    """The ``reveal`` event for ``[(seq, plain_event), ...]`` of a finished hand."""
    return {"type": "reveal", "opened": [{"seq": s, "event": e} for s, e in opened]}


def open_events(pairs: Iterable[tuple], sealer: Optional[Sealer] = None) -> Iterator[tuple]:
    """``(seq, event)`` pairs of a log, with every sealed event of a finished hand replaced
    by the plain event its ``reveal`` carries, and the reveals themselves left out (they
    are not table events). A sealed event of the hand in progress stays sealed (the
    referee refuses it: its card is not known yet) unless ``sealer`` opens it."""
    pairs = list(pairs)
    opened: dict = {}
    for _seq, ev in pairs:
        if isinstance(ev, dict) and ev.get("type") == "reveal":
            for item in ev.get("opened") or []:
                if isinstance(item, dict) and isinstance(item.get("event"), dict):
                    opened[item.get("seq")] = item["event"]
    for seq, ev in pairs:
        if isinstance(ev, dict) and ev.get("type") == "reveal":
            continue
        if isinstance(ev, dict) and ev.get("type") == "sealed":
            if seq in opened:
                ev = opened[seq]
            elif sealer is not None:
                try:
                    ev = sealer.open(ev)
                except SealError:
                    pass
        yield seq, ev


# ---------------------------------------------------------------------- words
def card_words(card) -> list:
    """Every way the table may write or say a card: ``JH``, ``J♥``, ``jack of hearts``, and
    ``TH`` for a ten."""
    from engine.cards import SUIT_SYMBOLS, Card
    c = Card(card)
    words = [str(c), c.rank + SUIT_SYMBOLS[c.suit], c.name]
    if c.rank == "10":
        words += ["T" + c.suit, "T" + SUIT_SYMBOLS[c.suit]]
    return words


def names_any(text: str, cards: Iterable) -> bool:
    """Whether ``text`` names any of ``cards`` in any of its forms (whole words only, so
    that "JH" is not found in "JHX" but is in "JH," and "the jack of hearts")."""
    if not text:
        return False
    for card in cards:
        for w in card_words(card):
            if re.search(r"(?<![0-9A-Za-z])" + re.escape(w) + r"(?![0-9A-Za-z])", text,
                         flags=re.IGNORECASE if " " in w else 0):
                return True
    return False
