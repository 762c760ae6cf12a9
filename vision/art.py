"""Card faces from the KDE card decks (kdegames-card-data-kf5), from decks in npm and PyPI packages and from the generated designs (vision.generated_decks), rendered on demand for tests and benchmarks.

None of the art is in the repository. The KDE art (GPL) is rendered from the system's
``/usr/share/carddecks/svg-*`` decks; the npm decks (see ``NPM_DESIGNS``: each a pinned
package version with its registry integrity hash and licence) are downloaded from the
npm registry when first asked for, checked against that hash and unpacked; so are the
decks of PNG faces in PyPI wheels (``WHEEL_DESIGNS``, checked against PyPI's sha256).
SVG faces are rendered with ``rsvg-convert``; faces are cached under
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

import base64
import glob
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import urllib.request
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from engine.cards import DECK, Card
from vision import generated_decks

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


def _render_png(svg: Path, ident: Optional[str], height: int) -> np.ndarray:
    if shutil.which("rsvg-convert") is None:
        raise ArtError("rsvg-convert is not installed: install the Debian package librsvg2-bin")
    proc = subprocess.run(
        ["rsvg-convert"] + (["-i", ident] if ident else []) + ["-h", str(int(height)), str(svg)],
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
    if deck.endswith(FOUR_COLOUR):
        return four_colour(card_image(deck[:-len(FOUR_COLOUR)], card, height), card)
    if height < 16:
        raise ValueError(f"height {height} is too small for a card face: ask for 16 px or more")
    cached = cache_dir() / deck / f"{card}_{height}.png"
    if deck in WHEEL_DESIGNS:
        return _wheel_face(deck, card, height)
    if deck in FONT_DESIGNS:
        return _font_face(deck, card, height)
    if deck in NPM_DESIGNS:
        svg, ident = npm_card_file(deck, card)
    elif generated_decks.is_generated(deck):
        d = generated_decks.design_named(deck)
        cached = cache_dir() / f"generated-v{generated_decks.VERSION}" / deck / f"{card}_{height}.png"
        svg, ident = _generated_svg(d, card, cached.parent), None
    else:
        folder = CARDDECKS_DIR / f"svg-{deck}"
        svg = _deck_file(folder) if folder.is_dir() else None
        if svg is None:
            have = ", ".join(kde_decks()) or "none (install kdegames-card-data-kf5)"
            raise ArtError(f"no KDE SVG deck named {deck!r}; installed decks: {have}; "
                           f"npm decks: {', '.join(NPM_DESIGNS)}; generated designs: gen-1, gen-2, ...")
        ident = element_id(card)
    img = _cached_face(cached, height)
    if img is not None:
        return img
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
    _keep_face(cached, face)
    return face


def _cached_face(cached: Path, height: int) -> Optional[np.ndarray]:
    """A face kept by :func:`_keep_face`, or None when it is not there (or not whole)."""
    if cached.is_file():
        img = cv2.imread(str(cached), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4 and img.shape[0] == height:
            return img
    return None


def _keep_face(cached: Path, face: np.ndarray) -> None:
    """Write a rendered face into the cache."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp.png")
        cv2.imwrite(str(tmp), face)
        os.replace(tmp, cached)  # atomic, since several test processes may render at once
    except OSError:
        pass  # a read-only home still renders, only slower


def _generated_svg(d, card: Card, folder: Path) -> Path:
    """The SVG file of a generated design's card, written once into ``folder``."""
    path = folder / f"{card}.svg"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(generated_decks.card_svg(d, card))
        os.replace(tmp, path)
    return path


FOUR_COLOUR = "+4color"
"""Suffix of a KDE design's four-colour variant (``"standard+4color"``): diamonds printed
blue and clubs green, as four-colour decks print them, for tuning the reader on decks
whose suits are not only red and black (the four-colour npm decks are for validation)."""
_BLUE_INK = np.array([170.0, 60.0, 20.0])        # BGR of a four-colour deck's diamonds
_GREEN_INK = np.array([40.0, 120.0, 20.0])       # ... and of its clubs


def four_colour(face: np.ndarray, card) -> np.ndarray:
    """A red-and-black face (BGRA) recoloured as a four-colour deck prints it: a
    diamond's red print turned blue, a club's black print turned green; hearts and
    spades as they are. Coloured parts of a club's picture keep their colour.

    >>> face = np.full((4, 4, 4), 255, np.uint8); face[1, 1, :3] = (0, 0, 0)
    >>> four_colour(face, Card("9C"))[1, 1, :3].tolist()
    [40, 120, 20]
    """
    card = Card(card)
    if card.suit not in "DC":
        return face
    out = face.copy()
    bgr = face[:, :, :3].astype(np.float32)
    b, g, r = bgr[:, :, 0], bgr[:, :, 1], bgr[:, :, 2]
    if card.suit == "D":
        # Red print: how far red stands above the other two is the ink's strength; the
        # rest is white paper. The same strength of blue ink is laid in its place.
        ink = np.clip((r - np.maximum(g, b)) / 255.0, 0.0, 1.0)
        ink = ink / max(float(ink.max()), 1e-3) if ink.max() > 0.3 else ink
        ink_colour = _BLUE_INK
        where = ink > 0.15
    else:
        # Black print: dark and colourless pixels, their darkness the ink's strength.
        chroma = bgr.max(axis=2) - bgr.min(axis=2)
        ink = np.clip(1.0 - bgr.mean(axis=2) / 255.0, 0.0, 1.0)
        ink_colour = _GREEN_INK
        where = (chroma < 40) & (ink > 0.1)
    paper = 255.0 * (1.0 - ink[..., None]) + ink_colour * ink[..., None]
    out[:, :, :3] = np.where(where[..., None], np.clip(paper, 0, 255), bgr).astype(np.uint8)
    return out


# ---------------------------------------------------------------------- npm decks
NPM_REGISTRY = "https://registry.npmjs.org"
"""The npm registry; ``NPM_CONFIG_REGISTRY`` (npm's own setting) points elsewhere."""


@dataclass(frozen=True)
class NpmDesign:
    """A card design published in an npm package: the pinned ``version`` and its
    registry ``integrity`` (sha512), where each card's SVG is in the package
    (``path``, with ``{rank}`` and ``{suit}``; ``element``: an element id in that
    file, or None when the file is the card), how ranks and suits are spelt there,
    whether the cards carry an English corner index (rank + suit sign), the
    package's licence and the art's author and licence."""

    name: str
    package: str
    version: str
    integrity: str
    path: str
    element: Optional[str]
    ranks: dict
    suits: dict
    english_index: bool
    licence: str
    art: str

    @property
    def tarball(self) -> str:
        base = self.package.split("/")[-1]
        return f"{self.package}/-/{base}-{self.version}.tgz"


_KENNARD = dict(
    package="@heruka_urgyen/react-playing-cards", version="0.5.0",
    integrity="sha512-o/tSxBIIdGJQYCwARHMzddjY0hYdxxYZXiyCVzg8FuQNCrnVl8n1moKjzjkRVK7qMQGR3FCpromg2kpw85pQ+A==",
    element=None, ranks={"9": "9", "10": "T", "J": "J", "Q": "Q", "K": "K", "A": "A"},
    suits={"S": "S", "H": "H", "D": "D", "C": "C"}, english_index=True,
    licence="MIT (package); the art is CC0",
    art="Adrian Kennard's SVG playing cards (CC0), in @heruka_urgyen/react-playing-cards")

NPM_DESIGNS = {
    "touati-standard": NpmDesign(
        "touati-standard", "@younestouati/playing-cards-standard-deck", "3.0.0",
        "sha512-w+hMe//3YLu5XR1dmq6Xi/BoMcqEMKeIlg+4QUiF7y5PymeSGeT7ozKV1fADmmuFBBVbjB2pCcR5EKKC9qIVOQ==",
        "package/cards/{rank}{suit}.svg", None,
        {"9": "9", "10": "10", "J": "11", "Q": "12", "K": "13", "A": "1"},
        {"S": "s", "H": "h", "D": "d", "C": "c"}, True, "LGPL-3.0",
        "Responsive Playing Cards, after Chris Aguilar's Vectorized Playing Cards (LGPL-3.0); "
        "ace of spades by Byron Knoll (public domain)"),
    "kennard-2color": NpmDesign("kennard-2color", path="package/src/images/2color/{rank}{suit}.svg", **_KENNARD),
    "kennard-2color-big": NpmDesign("kennard-2color-big", path="package/src/images/2color-bf/{rank}{suit}.svg",
                                    **_KENNARD),
    "kennard-4color": NpmDesign("kennard-4color", path="package/src/images/4color/{rank}{suit}.svg", **_KENNARD),
    "kennard-4color-big": NpmDesign("kennard-4color-big", path="package/src/images/4color-bf/{rank}{suit}.svg",
                                    **_KENNARD),
    "bellot": NpmDesign(
        "bellot", "svg-cards", "4.0.2",
        "sha512-YQVC0+bVQtvGbKoQZAHPgVSrKUymPK+aG9NQjJul9jp/a+lFcm8aWKh7YmKVinSjpaBTbogTLKAPi5YQEFRYLg==",
        "package/svg-cards.svg", "{suit}_{rank}",
        {"9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king", "A": "1"},
        {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}, True, "LGPL-2.1",
        "David Bellot's SVG-cards (LGPL-2.1), as packaged by Huub de Beer"),
}
"""Card designs from npm packages, by name. All carry an English corner index. The
four ``kennard-*`` designs are one package's four decks: two colours or four (green
clubs, blue diamonds), normal or big faces. They are validation designs: no reader
is tuned on them."""


def npm_designs() -> list:
    """Names of the npm designs (downloaded when first used)."""
    return list(NPM_DESIGNS)


def npm_dir(design: NpmDesign) -> Path:
    """Where a design's package is unpacked."""
    return cache_dir() / "npm" / f"{design.package.replace('/', '+')}-{design.version}"


def fetch_npm(name: str) -> Path:
    """Download and unpack the package holding npm design ``name`` (once), checking
    the tarball against the pinned sha512 integrity. Returns the unpacked folder.
    Raises ArtError naming the package and what went wrong."""
    try:
        design = NPM_DESIGNS[name]
    except KeyError:
        raise ArtError(f"no npm design named {name!r}; known: {', '.join(NPM_DESIGNS)}") from None
    folder = npm_dir(design)
    done = folder / ".complete"
    if done.is_file():
        return folder
    registry = (os.environ.get("NPM_CONFIG_REGISTRY") or os.environ.get("npm_config_registry")
                or NPM_REGISTRY).rstrip("/")
    url = f"{registry}/{design.tarball}"
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            data = resp.read()
    except OSError as exc:
        raise ArtError(f"could not download {design.package}@{design.version} from {url} ({exc}): "
                       "the npm decks need the npm registry once, then they are cached") from None
    algo, _, want = design.integrity.partition("-")
    got = base64.b64encode(hashlib.new(algo, data).digest()).decode()
    if got != want:
        raise ArtError(f"{design.package}@{design.version} from {url} does not match its pinned "
                       f"integrity ({algo} {got[:16]}... instead of {want[:16]}...): not unpacked")
    tmp = folder.with_name(folder.name + f".{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.startswith("package/")
                   and ".." not in Path(m.name).parts
                   and (m.name.endswith(".svg") or Path(m.name).name in ("LICENSE", "package.json",
                                                                          "README.md", "AUTHORS"))]
        for m in members:
            out = tmp / m.name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(tar.extractfile(m).read())
    (tmp / ".complete").write_text(f"{design.package}@{design.version} {design.integrity}\n")
    try:
        os.replace(tmp, folder)          # another process may have won the race
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def npm_card_file(name: str, card) -> tuple:
    """``(svg path, element id or None)`` of a card of npm design ``name`` (fetched on
    first use)."""
    design = NPM_DESIGNS[name]
    card = Card(card)
    folder = fetch_npm(name)
    rank, suit = design.ranks[card.rank], design.suits[card.suit]
    path = folder / design.path.format(rank=rank, suit=suit)
    if not path.is_file():
        raise ArtError(f"{design.package}@{design.version} has no {path.name} for {card}")
    ident = design.element.format(rank=rank, suit=suit) if design.element else None
    return path, ident


# ---------------------------------------------------------------------- PyPI decks
PYPI_FILES = "https://files.pythonhosted.org/packages"
"""Where PyPI serves its files; ``EUCHRE_PYPI_FILES`` points to a mirror of that tree."""


@dataclass(frozen=True)
class WheelDesign:
    """A card design shipped as one PNG face per card inside a wheel on PyPI: the pinned
    ``version``, the wheel's ``url`` under PyPI's file tree and its ``sha256`` (as PyPI
    lists it), where each card's face is in the wheel (``path``, with ``{rank}`` and
    ``{suit}``; ``courts``: another path for the jacks, queens and kings, where the wheel
    holds two sets of them), how ranks and suits are spelt there, the package's licence
    and the art's author and licence. Every one carries an English corner index."""

    name: str
    package: str
    version: str
    url: str
    sha256: str
    path: str
    ranks: dict
    suits: dict
    licence: str
    art: str
    courts: Optional[str] = None

    def member(self, card: Card) -> str:
        """The path of ``card``'s face in the wheel."""
        path = self.courts if self.courts and card.rank in "JQK" else self.path
        return path.format(rank=self.ranks[card.rank], suit=self.suits[card.suit])


WHEEL_DESIGNS = {
    "kenney": WheelDesign(
        "kenney", "arcade", "3.3.3",
        "a9/c9/5888ddef3668caee10b6111dfb98a96addacef40b9b098213497a8ed614e/arcade-3.3.3-py3-none-any.whl",
        "25f4e0e5b8bcbe7a7d087c0a23b19e9f423b0c70ec00945c8712c9a3e541ebd2",
        "arcade/resources/assets/images/cards/card{suit}{rank}.png",
        {"9": "9", "10": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"},
        {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"},
        "MIT (package); the art is CC0 (its License.txt)",
        "Kenney's Playing Cards Pack (kenney.nl, CC0), in arcade's resources: flat print, "
        "courts a crown, 140x190 px faces"),
    "knoll": WheelDesign(
        "knoll", "blackjack-gui", "1.8.1",
        "fb/7b/f494848c7907617cb3dc4b6ac4f1154e8585c7c0f5617628ac3f8368e769/blackjack_gui-1.8.1-py3-none-any.whl",
        "e0a50d19a97da388aa1fda875a22f8c6dd8832d690dd79d7b15c83d6dc1bcf6f",
        "blackjack_gui/images/{rank}_of_{suit}.png",
        {"9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"},
        {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
        "MIT (package); the art is public domain",
        "Byron Knoll's Vector Playing Cards (public domain), as blackjack-gui's PNGs: courts "
        "a large suit sign under the index, 500x726 px faces"),
}
WHEEL_DESIGNS["knoll-figures"] = replace(
    WHEEL_DESIGNS["knoll"], name="knoll-figures", courts="blackjack_gui/images/{rank}_of_{suit}2.png",
    art="Byron Knoll's Vector Playing Cards (public domain), as blackjack-gui's PNGs, with its "
        "second set of courts: figures after Chris Aguilar's (as touati-standard's), 500x726 px faces")
"""Card designs from PyPI wheels, by name. Which are validation data and which tuning is
``bench.vision_sets``' to say (knoll is tuning data, the other two validation)."""


def wheel_dir(design: WheelDesign) -> Path:
    """Where a wheel's designs keep their faces (a folder each)."""
    return cache_dir() / "pypi" / f"{design.package}-{design.version}"


def fetch_wheel(name: str) -> Path:
    """Download the wheel holding design ``name`` (once), check it against the pinned
    sha256 and keep its 24 Euchre faces. Returns the folder. Raises ArtError naming the
    package and what went wrong."""
    try:
        design = WHEEL_DESIGNS[name]
    except KeyError:
        raise ArtError(f"no PyPI design named {name!r}; known: {', '.join(WHEEL_DESIGNS)}") from None
    folder = wheel_dir(design) / design.name
    if (folder / ".complete").is_file():
        return folder
    url = f"{(os.environ.get('EUCHRE_PYPI_FILES') or PYPI_FILES).rstrip('/')}/{design.url}"
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:
            data = resp.read()
    except OSError as exc:
        raise ArtError(f"could not download {design.package}=={design.version} from {url} ({exc}): "
                       "the PyPI decks need PyPI once, then they are cached") from None
    got = hashlib.sha256(data).hexdigest()
    if got != design.sha256:
        raise ArtError(f"{design.package}=={design.version} from {url} does not match its pinned "
                       f"sha256 ({got[:16]}... instead of {design.sha256[:16]}...): not unpacked")
    tmp = folder.with_name(folder.name + f".{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        for card in DECK:
            member = design.member(card)
            try:
                (tmp / f"{card}.png").write_bytes(wheel.read(member))
            except KeyError:
                shutil.rmtree(tmp, ignore_errors=True)
                raise ArtError(f"{design.package}=={design.version} has no {member} for {card}") from None
    (tmp / ".complete").write_text(f"{design.package}=={design.version} sha256:{design.sha256}\n")
    try:
        os.replace(tmp, folder)          # another process may have won the race
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _wheel_face(name: str, card: Card, height: int) -> np.ndarray:
    """A wheel design's face (BGRA), trimmed to its opaque box and scaled to ``height``."""
    path = fetch_wheel(name) / f"{card}.png"
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3:
        raise ArtError(f"{path} is not a readable image: delete {path.parent} to fetch it again")
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    box = _opaque_box(img)
    if box is None:
        raise ArtError(f"{path} is fully transparent")
    x0, y0, x1, y1 = box
    face = img[y0:y1, x0:x1]
    width = max(1, int(round(face.shape[1] * height / face.shape[0])))
    # A PNG face is enlarged smoothly where a frame shows it larger than it was drawn.
    inter = cv2.INTER_AREA if height <= face.shape[0] else cv2.INTER_CUBIC
    return np.ascontiguousarray(cv2.resize(face, (width, height), interpolation=inter))


def wheel_designs() -> list:
    """Names of the PyPI designs (downloaded when first used)."""
    return list(WHEEL_DESIGNS)


@dataclass(frozen=True)
class FontDesign:
    """A card design drawn as the glyphs of Unicode's playing cards (U+1F0A1 on) in a font
    from a Debian package: the ``package``, the ``font`` file it installs, its licence and
    the art's author. A glyph is the card's outline and its print in one ink; the face is
    the glyph filled white inside its outline, in black for spades and clubs and red for
    hearts and diamonds."""

    name: str
    package: str
    font: str
    licence: str
    art: str


FONT_DESIGNS = {
    "symbola": FontDesign(
        "symbola", "fonts-symbola", "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
        "free for any use (the package's copyright file)",
        "George Douros's Symbola 2.60: line-drawn figure courts, a thin inner frame"),
    "noto-symbols": FontDesign(
        "noto-symbols", "fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
        "OFL-1.1",
        "Google's Noto Sans Symbols 2: solid figure courts in a frame, bold indices"),
}
"""Card designs from fonts, by name (validation data: ``bench.vision_sets``)."""

# Unicode's playing cards: a block of 16 per suit, the ace at 1 and the knight (not in
# Euchre) at 12 between the jack and the queen.
_FONT_SUIT_BASE = {"S": 0x1F0A0, "H": 0x1F0B0, "D": 0x1F0C0, "C": 0x1F0D0}
_FONT_RANK = {"A": 1, "9": 9, "10": 10, "J": 11, "Q": 13, "K": 14}
_FONT_INK = {"S": (20, 20, 20), "C": (20, 20, 20), "H": (40, 30, 205), "D": (40, 30, 205)}   # BGR


def font_designs() -> list:
    """Names of the font designs (their fonts come from Debian packages)."""
    return list(FONT_DESIGNS)


def _font_face(name: str, card: Card, height: int) -> np.ndarray:
    """A font design's face (BGRA), its glyph filled inside its outline, ``height`` tall."""
    # Pillow draws the glyph: OpenCV's own text covers only its Hershey fonts.
    from PIL import Image, ImageDraw, ImageFont
    design = FONT_DESIGNS[name]
    cached = cache_dir() / "font" / name / f"{card}_{height}.png"
    img = _cached_face(cached, height)
    if img is not None:
        return img
    if not Path(design.font).is_file():
        raise ArtError(f"design {name!r} needs the font {design.font}: install Debian's {design.package} "
                       "(make setup does)")
    # Drawn at about three times the height asked for, so that scaling down smooths it.
    size = max(64, 3 * height)
    font = ImageFont.truetype(design.font, size)
    glyph = chr(_FONT_SUIT_BASE[card.suit] + _FONT_RANK[card.rank])
    canvas = Image.new("L", (2 * size, 2 * size), 0)
    ImageDraw.Draw(canvas).text((size // 4, size // 4), glyph, fill=255, font=font)
    ink = np.asarray(canvas)
    ys, xs = np.nonzero(ink > 0)
    if len(ys) == 0:
        raise ArtError(f"{design.font} has no glyph for {card} (U+{ord(glyph):X})")
    ink = np.pad(ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1], 2)
    # The card is what the outline encloses: everything not reached from the border
    # without crossing the ink.
    reach = (ink < 128).astype(np.uint8)
    fill = np.zeros((reach.shape[0] + 2, reach.shape[1] + 2), np.uint8)
    cv2.floodFill(reach, fill, (0, 0), 2)
    outside = reach == 2
    cover = ink.astype(np.float32) / 255.0
    colour = np.array(_FONT_INK[card.suit], np.float32)
    bgr = 255.0 * (1.0 - cover[..., None]) + colour * cover[..., None]
    bgr[outside] = colour
    alpha = np.where(outside, ink, 255).astype(np.float32)
    face = np.dstack([bgr, alpha])
    box = _opaque_box(face.astype(np.uint8))
    x0, y0, x1, y1 = box
    face = face[y0:y1, x0:x1]
    width = max(1, int(round(face.shape[1] * height / face.shape[0])))
    face = np.ascontiguousarray(np.clip(cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
                                        + 0.5, 0, 255).astype(np.uint8))
    _keep_face(cached, face)
    return face


def all_designs() -> list:
    """Every design :func:`card_image` can render here: the KDE designs with an English
    index that are installed, then the npm, PyPI and font designs."""
    return english_index_decks() + npm_designs() + wheel_designs() + font_designs()


def main(argv=None) -> int:
    """``python -m vision.art fetch``: download the npm and PyPI decks now (set-up time)."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if args != ["fetch"]:
        print("usage: python -m vision.art fetch   (downloads the npm and PyPI card decks into the cache)",
              file=sys.stderr)
        return 2
    failed = 0
    for name in npm_designs() + wheel_designs():
        try:
            print(f"{name}: {fetch_npm(name) if name in NPM_DESIGNS else fetch_wheel(name)}")
        except ArtError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
