"""Deck calibration: a plain deck's templates from one picture of each of its 24 cards.

A picture may be a tight crop of the card face (with or without transparency around
rounded corners) or a photo of the card lying alone on the cloth; in a photo the card
is found and straightened the same way as during play.

>>> deck = calibrate_from_dir("photos/", name="grandma's deck")   # doctest: +SKIP
>>> deck.save("grandma.npz")                                       # doctest: +SKIP
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Optional

import cv2
import numpy as np

from engine.cards import DECK, Card, CardError
from vision import plain

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CalibrationError(ValueError):
    """Pictures that cannot make a deck, with a message saying which and what to do."""


def face_from_image(img: np.ndarray, what: str = "image") -> np.ndarray:
    """The upright card face (BGR) in a picture: a tight crop as it is, transparency
    trimmed, or the one card found on a cloth background, straightened."""
    if img is None or img.ndim not in (2, 3):
        raise CalibrationError(f"{what}: not an image")
    if img.dtype != np.uint8:
        img = cv2.normalize(img, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        alpha = img[:, :, 3]
        ys, xs = np.nonzero(alpha > 8)
        if len(xs) == 0:
            raise CalibrationError(f"{what}: the picture is fully transparent")
        img = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        a = img[:, :, 3:4].astype(np.float32) / 255.0
        bgr = img[:, :, :3].astype(np.float32)
        # Fill the transparent rounded corners with the card's own edge colour so they
        # do not count as ink.
        edge = np.median(bgr[a[:, :, 0] > 0.9][:2000], axis=0) if (a > 0.9).any() else 255
        img = (bgr * a + edge * (1 - a)).astype(np.uint8)
        return _upright(img)
    quads = [q for q, _ in plain.find_card_quads(img, min_area_fraction=0.05) if q is not None]
    if len(quads) > 1:
        raise CalibrationError(f"{what}: {len(quads)} cards found; photograph one card at a time")
    if len(quads) == 1:
        order = plain._portrait_orders(quads[0])[0]
        w = int(np.hypot(*(order[0] - order[1])))
        h = int(np.hypot(*(order[1] - order[2])))
        if w >= 20 and h >= 20:
            dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
            m = cv2.getPerspectiveTransform(order.astype(np.float32), dst)
            return cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_AREA)
    return _upright(img)  # no cloth around it: the picture is the face itself


def _upright(face: np.ndarray) -> np.ndarray:
    if face.shape[1] > face.shape[0]:
        face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
    if min(face.shape[:2]) < 20:
        raise CalibrationError(f"the card picture is only {face.shape[1]}×{face.shape[0]} pixels: "
                               "use at least 100 pixels of card height")
    return face


def build_deck(faces: Mapping, name: str = "deck", **thresholds) -> plain.PlainDeck:
    """A :class:`vision.plain.PlainDeck` from upright faces (BGR), keyed by card.

    ``thresholds`` may set ``min_score``, ``min_margin``, ``max_cell_diff``, ``max_tint``,
    ``cover_tint`` and ``cover_dark``."""
    cards = sorted((Card(c) for c in faces), key=lambda c: c.index)
    if not cards:
        raise CalibrationError("no card pictures given")
    aspect = float(np.median([faces[c].shape[1] / faces[c].shape[0] for c in cards]))
    if not 0.4 < aspect < 1.0:
        raise CalibrationError(f"cards are {aspect:.2f} times as wide as tall: expected a "
                               "portrait card about 0.7 (crop each picture to one card)")
    sigs, bands, checks, pairs, tints = [], [], [], [], []
    for c in cards:
        s, b, k, p, t = plain.template_from_face(faces[c], aspect)
        sigs.append(s)
        bands.append(b)
        checks.append(k)
        pairs.append(p)
        tints.append(t)
    return plain.PlainDeck(name=name, cards=cards, aspect=aspect,
                           signatures=np.stack(sigs).astype(np.float32),
                           bands=np.stack(bands).astype(np.float32),
                           checks=np.stack(checks).astype(np.float32),
                           faces=np.stack(pairs).astype(np.float32),
                           tints=np.stack(tints).astype(np.float32), **thresholds)


def _card_of_filename(path: Path) -> Optional[Card]:
    stem = path.stem
    if not re.fullmatch(r"(?i)(10|[2-9TJQKA1])[SHDC]", stem):
        return None
    try:
        return Card(stem)
    except CardError:
        return None


def calibrate_from_dir(folder, name: Optional[str] = None, **thresholds) -> plain.PlainDeck:
    """Templates from a folder holding one picture per card named like ``JH.png``
    (``10H`` or ``TH`` for tens; any of .png .jpg .jpeg .bmp .tif .webp).

    All 24 cards must be there, each once, and nothing else that looks like a picture."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CalibrationError(f"{folder} is not a folder: give the folder holding JH.png, 9S.png, ...")
    pictures = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    found, extra, twice = {}, [], []
    for p in pictures:
        card = _card_of_filename(p)
        if card is None:
            extra.append(p.name)
        elif card in found:
            twice.append(f"{found[card].name} and {p.name}")
        else:
            found[card] = p
    problems = []
    missing = [str(c) for c in DECK if c not in found]
    if missing:
        problems.append("missing: " + " ".join(missing))
    if extra:
        problems.append("not a Euchre card (9 to ace, e.g. JH.png): " + ", ".join(extra))
    if twice:
        problems.append("the same card twice: " + "; ".join(twice))
    if problems:
        raise CalibrationError(f"{folder}: need one picture for each of the 24 cards, named "
                               "like JH.png; " + "; ".join(problems))
    faces, unreadable = {}, []
    for card, p in found.items():
        img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
        if img is None:
            unreadable.append(p.name)
            continue
        faces[card] = face_from_image(img, what=p.name)
    if unreadable:
        raise CalibrationError(f"{folder}: cannot read these pictures (damaged or not images): "
                               + ", ".join(unreadable))
    return build_deck(faces, name=name or folder.name, **thresholds)


def calibrate_live(frames, announce=print, stable: int = 5, name: str = "deck",
                   cards=DECK, **thresholds):
    """Templates from a camera, one pass: each card is shown alone on the cloth in turn.
    Returns ``(deck, faces)``, the faces being the upright card pictures taken.

    ``frames`` is any iterable of BGR frames (a :mod:`vision.sources` source); ``announce``
    is told which card to show next. A card is taken once it has lain still (corners
    moving under 3 pixels) for ``stable`` frames; between two cards the camera must see
    no card for a moment, so that the same card is never taken twice."""
    faces = {}
    it = iter(frames)
    need_gap = False
    for card in cards:
        card = Card(card)
        announce(f"show the {card.name} ({card}) alone, face up")
        still, last = 0, None
        while True:
            frame = next(it, None)
            if frame is None:
                raise CalibrationError(f"the camera stopped after {len(faces)} of {len(cards)} "
                                       f"cards, while waiting for the {card.name}")
            quads = [q for q, _ in plain.find_card_quads(frame) if q is not None]
            if len(quads) != 1:
                need_gap, still, last = False, 0, None
                continue
            if need_gap:
                continue  # still the previous card: wait until it is taken away
            q = quads[0]
            if last is not None and _corner_shift(q, last) < 3.0:
                still += 1
            else:
                still = 0
            last = q
            if still + 1 >= stable:
                faces[card] = _warp_face(frame, q)
                need_gap = True
                break
    return build_deck(faces, name=name, **thresholds), faces


def _corner_shift(a: np.ndarray, b: np.ndarray) -> float:
    # The same quadrilateral may start at another corner: compare over the 4 rotations.
    return min(float(np.abs(np.roll(a, k, axis=0) - b).max()) for k in range(4))


def _warp_face(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    order = plain._portrait_orders(quad)[0]
    w = int(round(np.hypot(*(order[0] - order[1]))))
    h = int(round(np.hypot(*(order[1] - order[2]))))
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(order.astype(np.float32), dst)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA)


def self_check(deck: plain.PlainDeck, faces: Mapping, cloth=(40, 110, 40)) -> dict:
    """Read each calibration face back, laid on a plain cloth at a slant: the cards that
    come back as themselves, and the others with what was read instead. A deck whose
    cards do not all come back is not worth playing with."""
    ok, bad = [], {}
    for card, face in faces.items():
        h = 160
        f = cv2.resize(face, (max(8, int(round(h * face.shape[1] / face.shape[0]))), h),
                       interpolation=cv2.INTER_AREA)
        canvas = np.full((320, 320, 3), cloth, np.uint8)
        y0, x0 = (320 - f.shape[0]) // 2, (320 - f.shape[1]) // 2
        canvas[y0:y0 + f.shape[0], x0:x0 + f.shape[1]] = f
        rot = cv2.getRotationMatrix2D((160, 160), 17.0, 1.0)
        canvas = cv2.warpAffine(canvas, rot, (320, 320), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=cloth)
        seen = [s for s in plain.recognize_plain(canvas, deck)]
        named = [s.card for s in seen if s.card is not None]
        if named == [Card(card)]:
            ok.append(Card(card))
        else:
            bad[Card(card)] = [str(c) for c in named] or [s.reason for s in seen] or ["not found"]
    return {"ok": ok, "bad": bad}
