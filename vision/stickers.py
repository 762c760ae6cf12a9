"""QR stickers that name cards: payloads with a check, printing, and decoding frames into card sightings.

Each card gets one QR code (version 1, error correction level H) whose text is
``ET-<card>-<check>``, e.g. ``ET-JH-MUD``: a prefix, the card, and three base-36
characters of a CRC-16 over the prefix and card. A decoded text is accepted only if
it is exactly one of the 24 valid payloads, so a damaged or foreign code is refused,
never read as another card.

>>> payload("JH")
'ET-JH-MUD'
>>> parse_payload("ET-JH-MUD")
Card('JH')
>>> parse_payload("ET-JH-MUE") is None      # wrong check: refused
True
"""
from __future__ import annotations

import binascii
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from engine.cards import DECK, Card

PREFIX = "ET"
STICKER_MM = 45.0
"""Printed sticker side (mm), quiet zone included: the code itself is 21/25 of it,
about 38 mm, which is 80–85 px in the image with the A3 mat filling a 1280×720 frame
(or the A4 mat a 640×480 one). See docs/vision.md."""
QUIET_MODULES = 2
"""White border in modules; zxing-cpp and zbar both read QR codes with 2 reliably."""
_B36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _check(card: str) -> str:
    crc = binascii.crc_hqx(f"{PREFIX}-{card}".encode("ascii"), 0xFFFF) % 36 ** 3
    return _B36[crc // 1296] + _B36[crc // 36 % 36] + _B36[crc % 36]


def payload(card) -> str:
    """The text of a card's sticker: ``payload("10H") == "ET-10H-" + check``."""
    card = Card(card)
    return f"{PREFIX}-{card}-{_check(card)}"


_VALID = {payload(c): c for c in DECK}


def parse_payload(text) -> Optional[Card]:
    """The card named by a sticker text, or None for anything that is not exactly a
    valid payload (wrong prefix, unknown card, bad check, extra characters)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            return None
    return _VALID.get(text)


def qr_modules(card) -> np.ndarray:
    """The card's QR code as a 0/1 module matrix (1 = dark), quiet zone included."""
    return _qr_modules(Card(card)).copy()


@functools.lru_cache(maxsize=None)
def _qr_modules(card: Card) -> np.ndarray:
    import segno  # encoding takes ~10 ms: worth caching for composed frames
    qr = segno.make_qr(payload(card), error="h", boost_error=False)
    return np.pad(np.array(qr.matrix, np.uint8), QUIET_MODULES)


def sticker_image(card, module_px: int = 12, label: bool = True):
    """A printable sticker (PIL, greyscale): the code with its quiet zone and, below
    it, the card in words so the right sticker goes on the right card."""
    from PIL import Image, ImageDraw

    from vision.zones import label_font
    m = qr_modules(card)
    side = m.shape[0] * module_px
    code = Image.fromarray(((1 - m) * 255).astype(np.uint8)).resize((side, side), Image.NEAREST)
    if not label:
        return code
    band = round(side * 0.16)
    img = Image.new("L", (side, side + band), 255)
    img.paste(code, (0, 0))
    draw = ImageDraw.Draw(img)
    c = Card(card)
    text = f"{c.symbol}  {c.name}"
    size = round(band * 0.7)
    font = label_font(size)
    tw = draw.textlength(text, font=font)
    while tw > side * 0.94 and size > 6:  # "10♥  ten of hearts" must fit the sticker
        size -= 1
        font = label_font(size)
        tw = draw.textlength(text, font=font)
    draw.text(((side - tw) / 2, side), text, fill=0, font=font)
    return img


def write_sticker_pngs(directory, module_px: int = 12) -> list:
    """Write ``JH.png`` … for all 24 cards into ``directory`` (created if missing)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for card in DECK:
        p = directory / f"{card}.png"
        sticker_image(card, module_px).save(p)
        paths.append(p)
    return paths


def write_sticker_pdf(path, size_mm: float = STICKER_MM, dpi: int = 300) -> Path:
    """Write the 24 stickers at ``size_mm`` (quiet zone included) on A4 pages with
    cut lines, at true physical size."""
    from PIL import Image, ImageDraw
    if not 20 <= size_mm <= 90:
        raise ValueError(f"sticker size {size_mm} mm is out of range: use 20–90 mm "
                         f"(default {STICKER_MM:g} mm, see docs/vision.md)")
    px = dpi / 25.4
    page_w, page_h = round(210 * px), round(297 * px)
    modules = qr_modules(DECK[0]).shape[0]
    module_px = max(1, round(size_mm * px / modules))
    cell_w = round((size_mm + 5) * px)
    cell_h = round((size_mm * 1.16 + 6) * px)
    cols, rows = max(1, int((page_w - 10 * px) // cell_w)), max(1, int((page_h - 10 * px) // cell_h))
    pages, page, draw = [], None, None
    for n, card in enumerate(DECK):
        slot = n % (cols * rows)
        if slot == 0:
            page = Image.new("L", (page_w, page_h), 255)
            draw = ImageDraw.Draw(page)
            pages.append(page)
        x = round(5 * px) + (slot % cols) * cell_w
        y = round(5 * px) + (slot // cols) * cell_h
        st = sticker_image(card, module_px)
        page.paste(st, (x + (cell_w - st.width) // 2, y + round(2 * px)))
        draw.rectangle([x, y, x + cell_w, y + cell_h], outline=190, width=1)
    path = Path(path)
    pages[0].save(path, "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:])
    return path


# ---------------------------------------------------------------- decoding

class ZxingDecoder:
    """QR decoding with zxing-cpp: the default (fastest and most reliable here)."""

    name = "zxing"

    def __init__(self):
        import zxingcpp
        self._zx = zxingcpp
        self._formats = zxingcpp.BarcodeFormat.QRCode

    def decode(self, gray: np.ndarray) -> list:
        """``[(text, corners 4×2 in code order TL, TR, BR, BL)]``."""
        out = []
        # Inverted codes never occur on printed stickers, and codes sized as documented
        # (80–110 px) need neither downscaled passes nor the 1D-barcode rotations:
        # measured here, the same reads in 60% of the time (docs/vision.md).
        for b in self._zx.read_barcodes(gray, formats=self._formats, try_invert=False,
                                        try_rotate=False, try_downscale=False):
            p = b.position
            corners = np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                [p.bottom_right.x, p.bottom_right.y],
                                [p.bottom_left.x, p.bottom_left.y]], np.float64)
            out.append((b.text, corners))
        return out


class ZbarDecoder:
    """QR decoding with pyzbar (needs Debian's ``libzbar0``)."""

    name = "zbar"

    def __init__(self):
        from pyzbar import pyzbar
        self._zbar = pyzbar
        self._symbols = [pyzbar.ZBarSymbol.QRCODE]

    def decode(self, gray: np.ndarray) -> list:
        out = []
        for r in self._zbar.decode(gray, symbols=self._symbols):
            poly = np.array([(pt.x, pt.y) for pt in r.polygon], np.float64)
            if len(poly) != 4:
                x, y, w, h = r.rect
                poly = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
            out.append((r.data, poly))
        return out


DECODERS = {"zxing": ZxingDecoder, "zbar": ZbarDecoder}
DEFAULT_DECODER = "zxing"
"""Chosen by ``bench/vision_stickers.py``: zxing-cpp read 99.99% of 22,142 sightings against
zbar's 97.9%, at a twentieth of the time; neither named a wrong card (docs/vision.md)."""
_decoder_cache: dict = {}


def get_decoder(name: str = DEFAULT_DECODER):
    """A decoder by name (``zxing`` or ``zbar``); ValueError names the choices and
    says which package is missing."""
    if not isinstance(name, str):
        return name  # already a decoder object
    if name not in DECODERS:
        raise ValueError(f"unknown QR decoder {name!r}: choose {' or '.join(DECODERS)}")
    if name not in _decoder_cache:
        try:
            _decoder_cache[name] = DECODERS[name]()
        except ImportError as exc:
            hint = {"zxing": "pip install zxing-cpp",
                    "zbar": "pip install pyzbar and apt install libzbar0"}[name]
            raise ValueError(f"QR decoder {name!r} is not available ({exc}): {hint}") from None
    return _decoder_cache[name]


@dataclass
class Sighting:
    """One card seen in one frame.

    ``corners`` are the four image corners of what identified it (the QR code in
    sticker mode); ``zone`` is the mat zone under its centre (None when no zone map
    was given or it lies outside every zone); ``confidence`` is 1.0 for a sticker whose
    payload and check are valid: anything less is refused rather than reported.
    """

    card: Card
    corners: np.ndarray
    zone: Optional[str] = None
    confidence: float = 1.0
    method: str = "sticker"

    @property
    def centre(self) -> tuple:
        c = np.asarray(self.corners, np.float64).mean(axis=0)
        return (float(c[0]), float(c[1]))

    def to_json(self) -> dict:
        """``{"card", "zone", "corners", "confidence"}`` as printed by ``recognize --json``."""
        return {"card": str(self.card), "zone": self.zone,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "confidence": round(float(self.confidence), 3)}


def read_stickers(frame: np.ndarray, decoder="zxing",
                  zones: Optional[Callable] = None, refused: Optional[list] = None) -> list:
    """Card sightings from the QR stickers in a BGR or grey frame.

    ``zones`` is any callable ``image point -> zone name or None`` (a
    :class:`vision.zones.Calibration` is one). Codes whose text is not a valid
    payload are left out, and appended to ``refused`` (as ``(text, corners)``) when
    a list is given. The same code found twice at one place counts once; the same
    card at two places is reported twice, for the tracker to flag.
    """
    import cv2
    dec = get_decoder(decoder)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    sightings: list = []
    for text, corners in dec.decode(gray):
        card = parse_payload(text)
        if card is None:
            if refused is not None:
                refused.append((text, corners))
            continue
        s = Sighting(card, corners)
        side = float(np.linalg.norm(corners[0] - corners[1]))
        if any(o.card == card and np.hypot(o.centre[0] - s.centre[0], o.centre[1] - s.centre[1])
               < max(side, 10.0) / 2 for o in sightings):
            continue
        if zones is not None:
            s.zone = zones(s.centre)
        sightings.append(s)
    return sightings
