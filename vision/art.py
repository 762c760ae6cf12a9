"""Card faces from the KDE card decks (kdegames-card-data-kf5), rendered on demand for tests and benchmarks.

The art is GPL and stays outside the repository: it is rendered from the system's
``/usr/share/carddecks/svg-*`` decks with ``rsvg-convert`` and cached under
``$XDG_CACHE_HOME/euchre-table/art`` (default ``~/.cache/euchre-table/art``).

>>> from engine.cards import Card
>>> if art_available():
...     face = card_image("standard", Card("JH"), height=350)
...     face.shape[0], face.shape[2]
... else:
...     (350, 4)
(350, 4)
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card

CARDDECKS_DIR = Path("/usr/share/carddecks")
"""Where kdegames-card-data-kf5 installs its decks, one ``svg-<name>`` folder each."""

_RANK_IDS = {"9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king", "A": "1"}
_SUIT_IDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}

# Which designs print an English corner index (rank letter + suit pip) that a
# plain-deck reader can learn. Checked by eye on renders of all 24 cards of each
# design (see docs/vision-plain.md); konqi and xskat hold only small bitmaps, so they
# are excluded from recognition benchmarks.
ENGLISH_INDEX_DECKS = (
    "ancient-egyptians", "dondorf", "gm-paris", "jolly-royal",
    "nicu-ornamental", "nicu-white", "oxygen", "oxygen-air", "oxygen-white",
    "penguins", "standard", "tigullio-international",
)


class ArtError(RuntimeError):
    """Card art that cannot be rendered, with a message saying what to install or fix."""


def element_id(card) -> str:
    """The SVG element id of a card in the KDE decks: ``element_id(Card("AS")) == "1_spade"``."""
    card = Card(card)
    return f"{_RANK_IDS[card.rank]}_{_SUIT_IDS[card.suit]}"


def kde_decks() -> list:
    """Names of the installed KDE SVG decks (``"standard"``, ``"oxygen"``, ...), sorted;
    an empty list when none are installed."""
    names = []
    for folder in sorted(CARDDECKS_DIR.glob("svg-*")):
        if _deck_file(folder) is not None:
            names.append(folder.name[len("svg-"):])
    return names


def art_available() -> bool:
    """True when at least one KDE SVG deck and ``rsvg-convert`` are installed."""
    return bool(kde_decks()) and shutil.which("rsvg-convert") is not None


def english_index_decks() -> list:
    """Installed KDE designs whose cards carry an English corner index."""
    installed = set(kde_decks())
    return [d for d in ENGLISH_INDEX_DECKS if d in installed]


def cache_dir() -> Path:
    """The folder where rendered faces are kept between runs."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "euchre-table" / "art"


def _deck_file(folder: Path):
    files = sorted(glob.glob(str(folder / "*.svgz"))) or sorted(glob.glob(str(folder / "*.svg")))
    return Path(files[0]) if files else None


def _render_png(svg: Path, ident: str, height: int) -> np.ndarray:
    if shutil.which("rsvg-convert") is None:
        raise ArtError("rsvg-convert is not installed: install the Debian package librsvg2-bin")
    proc = subprocess.run(
        ["rsvg-convert", "-i", ident, "-h", str(int(height)), str(svg)],
        capture_output=True, check=False)
    if proc.returncode != 0 or not proc.stdout:
        raise ArtError(f"rsvg-convert could not render element {ident!r} of {svg}: "
                       f"{proc.stderr.decode(errors='replace').strip() or 'no output'}")
    img = cv2.imdecode(np.frombuffer(proc.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3:
        raise ArtError(f"rsvg-convert gave an unreadable image for {ident!r} of {svg}")
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _opaque_box(img: np.ndarray):
    ys, xs = np.nonzero(img[:, :, 3] > 8)
    if len(xs) == 0:
        return None
    return xs.min(), ys.min(), xs.max() + 1, ys.max() + 1


def card_image(deck: str, card, height: int = 350) -> np.ndarray:
    """The face of ``card`` in KDE design ``deck``, as BGRA uint8, trimmed to its opaque
    box and scaled to ``height`` pixels (width follows the card's own proportions).

    >>> card_image("oxygen", "9C", height=200).shape[0]    # doctest: +SKIP
    200
    """
    card = Card(card)
    height = int(height)
    if height < 16:
        raise ValueError(f"height {height} is too small for a card face: ask for 16 px or more")
    folder = CARDDECKS_DIR / f"svg-{deck}"
    svg = _deck_file(folder) if folder.is_dir() else None
    if svg is None:
        have = ", ".join(kde_decks()) or "none (install kdegames-card-data-kf5)"
        raise ArtError(f"no KDE SVG deck named {deck!r}; installed decks: {have}")
    cached = cache_dir() / deck / f"{card}_{height}.png"
    if cached.is_file():
        img = cv2.imread(str(cached), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4 and img.shape[0] == height:
            return img
    ident = element_id(card)
    img = _render_png(svg, ident, height)
    box = _opaque_box(img)
    if box is None:
        raise ArtError(f"element {ident!r} of {svg} rendered fully transparent")
    x0, y0, x1, y1 = box
    if y1 - y0 < height - 1:
        # Loose bounding boxes (transparent margins) shrink the face after trimming:
        # render again larger, so the face itself ends up `height` tall at full detail.
        img = _render_png(svg, ident, int(round(height * img.shape[0] / (y1 - y0))) + 1)
        x0, y0, x1, y1 = _opaque_box(img)
    face = img[y0:y1, x0:x1]
    if face.shape[0] != height:
        width = max(1, int(round(face.shape[1] * height / face.shape[0])))
        face = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
    face = np.ascontiguousarray(face)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp.png")
        cv2.imwrite(str(tmp), face)
        os.replace(tmp, cached)  # atomic, since several test processes may render at once
    except OSError:
        pass  # a read-only home still renders, only slower
    return face
