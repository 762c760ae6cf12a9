"""The OLED status screen: what it shows (trump, maker, score, turn) and the luma device it shows it on."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from PIL import Image, ImageDraw, ImageFont

from engine.cards import SEAT_NAMES, SUIT_SYMBOLS, Card, parse_seat, parse_suit

log = logging.getLogger(__name__)

FONT_PATH = Path(__file__).with_name("fonts") / "DejaVuSans-Bold.ttf"
"""DejaVu Sans Bold, shipped with the package so that every machine draws the same pixels
(Pillow's built-in font has no ♠♥♦♣)."""

SCREENS = ("play", "hand_over", "game_over", "fault", "resumed")
"""The kinds of screen :func:`render` draws."""

ELLIPSIS = "…"


def _team(text, what: str) -> str:
    t = str(text).replace("-", "").replace("/", "").upper()
    if t in ("NS", "SN"):
        return "NS"
    if t in ("EW", "WE"):
        return "EW"
    raise ValueError(f"{what}={text!r} is not a side: use 'NS' (North-South) or 'EW' (East-West)")


def _pair(value, what: str) -> dict:
    """Both sides' numbers as {"NS": int, "EW": int}, with a readable error otherwise."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a dict like {{'NS': 3, 'EW': 2}}, not {value!r}")
    out = {"NS": 0, "EW": 0}
    for key, n in value.items():
        side = _team(key, f"{what} key")
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"{what}[{key!r}] must be a whole number, not {n!r}")
        out[side] = n
    return out


@dataclass
class TableStatus:
    """Everything the status screen shows, as plain values.

    Seats are ``N E S W``, suits ``S H D C`` (symbols and names are accepted and
    normalised), sides ``"NS"``/``"EW"``.

    >>> s = TableStatus(trump="♥", maker="north", dealer="W", to_act="E",
    ...                 score={"NS": 6, "EW": 4}, tricks={"NS": 2, "EW": 1})
    >>> s.trump, s.maker, s.screen
    ('H', 'N', 'play')
    """

    screen: str = "play"
    trump: Optional[str] = None
    maker: Optional[str] = None
    lone: Optional[str] = None
    dealer: Optional[str] = None
    to_act: Optional[str] = None
    score: dict = field(default_factory=lambda: {"NS": 0, "EW": 0})
    tricks: dict = field(default_factory=lambda: {"NS": 0, "EW": 0})
    target: int = 10
    upcard: Optional[str] = None
    bidding_round: Optional[int] = None
    message: str = ""
    hand_points: Optional[dict] = None
    """Points the hand just scored, on the ``hand_over`` screen: {"NS": 1, "EW": 0}."""
    winner: Optional[str] = None
    """The side that won the game, on the ``game_over`` screen (else the side ahead)."""

    def __post_init__(self):
        if self.screen not in SCREENS:
            raise ValueError(f"screen={self.screen!r} is unknown: use one of {', '.join(SCREENS)}")
        if self.trump is not None:
            self.trump = parse_suit(self.trump)
        for name in ("maker", "lone", "dealer", "to_act"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, parse_seat(value))
        self.score = _pair(self.score, "score")
        self.tricks = _pair(self.tricks, "tricks")
        if self.hand_points is not None:
            self.hand_points = _pair(self.hand_points, "hand_points")
        if self.winner is not None:
            self.winner = _team(self.winner, "winner")
        if self.upcard is not None:
            self.upcard = Card(self.upcard)
        if self.bidding_round not in (None, 1, 2):
            raise ValueError(f"bidding_round={self.bidding_round!r}: use 1, 2 or None")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise ValueError(f"target={self.target!r} must be a positive whole number of points")
        self.message = " ".join(str(self.message or "").split())  # one line, however it came


EXAMPLES = {
    "bidding": TableStatus(dealer="S", to_act="W", upcard="JH", bidding_round=1,
                           score={"NS": 6, "EW": 4}, message="West: pass or order"),
    "bidding_round2": TableStatus(dealer="S", to_act="N", upcard="JH", bidding_round=2,
                                  score={"NS": 6, "EW": 4}, message="Hearts turned down: name another suit"),
    "lone_hand": TableStatus(trump="H", maker="N", lone="N", dealer="E", to_act="W",
                             score={"NS": 6, "EW": 9}, tricks={"NS": 2, "EW": 1},
                             message="Must follow ♥"),
    "revoke": TableStatus(trump="S", maker="E", dealer="N", to_act="S", score={"NS": 8, "EW": 9},
                          tricks={"NS": 1, "EW": 3}, message="Revoke by W in trick 2: 3 points to N-S"),
    "hand_over": TableStatus(screen="hand_over", trump="H", maker="W", dealer="E",
                             score={"NS": 8, "EW": 4}, tricks={"NS": 3, "EW": 2},
                             hand_points={"NS": 2, "EW": 0}),
    "game_over": TableStatus(screen="game_over", score={"NS": 10, "EW": 7}, winner="NS",
                             message="ORDER: new game"),
    "fault": TableStatus(screen="fault", message="Camera not answering: check its cable. "
                                                 "Play on with the buttons."),
}
"""The main screens with typical values: golden-image tests and ``bench/show_screens.py`` use them."""

_FONTS: dict = {}


def font(size: int) -> ImageFont.FreeTypeFont:
    """The shipped bold font at ``size`` pixels (cached)."""
    if size not in _FONTS:
        _FONTS[size] = ImageFont.truetype(str(FONT_PATH), size)
    return _FONTS[size]


def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` in the shipped font."""
    return int(font(size).getlength(text))


def fit_text(text: str, size: int, width: int) -> str:
    """``text`` if it fits ``width`` pixels, else shortened at a whole character with "…".

    Whole characters only, so a suit symbol is either drawn or replaced by the ellipsis,
    never half drawn.

    >>> fit_text("Must follow ♥", 10, 200)
    'Must follow ♥'
    >>> fit_text("Revoke by W in trick 2: 3 points to N-S", 10, 120)
    'Revoke by W in tric…'
    """
    if text_width(text, size) <= width:
        return text
    chars = list(text)
    while chars and text_width("".join(chars).rstrip() + ELLIPSIS, size) > width:
        chars.pop()
    return "".join(chars).rstrip() + ELLIPSIS if chars else ""


def _centre(draw, cx: int, y: int, text: str, size: int, fill=1):
    draw.text((cx - text_width(text, size) // 2, y), text, font=font(size), fill=fill)


def _side_label(team: str) -> str:
    return "N-S" if team == "NS" else "E-W"


MESSAGE_SIZE = 10
MESSAGE_HEIGHT = 12


def _message_line(draw, status, width, height, scroll):
    """The bottom line: the message, shortened with "…" or scrolled by ``scroll`` pixels."""
    if not status.message:
        return
    y = height - MESSAGE_HEIGHT
    draw.line((0, y - 2, width - 1, y - 2), fill=1)
    if scroll is None:
        draw.text((1, y), fit_text(status.message, MESSAGE_SIZE, width - 2), font=font(MESSAGE_SIZE), fill=1)
    else:
        # A ticker: the text and a gap repeat, so it wraps round smoothly.
        loop = text_width(status.message + "     ", MESSAGE_SIZE)
        x = 1 - (scroll % loop)
        draw.text((x, y), status.message, font=font(MESSAGE_SIZE), fill=1)
        draw.text((x + loop, y), status.message, font=font(MESSAGE_SIZE), fill=1)


def message_overflows(status: TableStatus, width: int = 128) -> bool:
    """True when the message is too long for one line and is worth scrolling."""
    return text_width(status.message, MESSAGE_SIZE) > width - 2


def _compass(draw, status, cx, cy):
    """Seats as a compass, N at the top. The seat to act is inverted, with an arrow
    from the middle pointing at it; the dealer's letter has a box round it."""
    dx, dy = 14, 15
    pos = {"N": (cx, cy - dy), "S": (cx, cy + dy), "W": (cx - dx, cy), "E": (cx + dx, cy)}
    size = 10
    for seat, (x, y) in pos.items():
        w = text_width(seat, size)
        box = (x - 5, y - 6, x + 5, y + 5)
        if seat == status.to_act:
            draw.rectangle(box, fill=1)
            draw.text((x - w // 2, y - 6), seat, font=font(size), fill=0)
        else:
            draw.text((x - w // 2, y - 6), seat, font=font(size), fill=1)
        if seat == status.dealer:
            draw.rectangle((box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1), outline=1)
    if status.to_act:
        # A filled triangle in the middle pointing toward the seat to act.
        tips = {"N": [(cx, cy - 5), (cx - 4, cy), (cx + 4, cy)],
                "S": [(cx, cy + 5), (cx - 4, cy), (cx + 4, cy)],
                "W": [(cx - 5, cy), (cx, cy - 4), (cx, cy + 4)],
                "E": [(cx + 5, cy), (cx, cy - 4), (cx, cy + 4)]}
        draw.polygon(tips[status.to_act], fill=1)
    else:
        draw.rectangle((cx - 1, cy - 1, cx + 1, cy + 1), fill=1)


def _scores(draw, status, x0, x1, y0):
    """Both sides: label, game score (large, right-aligned at ``x1``) and this hand's
    tricks as one pip per trick under the label."""
    for row, team in enumerate(("NS", "EW")):
        y = y0 + row * 23
        draw.text((x0, y + 4), team, font=font(9), fill=1)
        score = str(status.score[team])
        draw.text((x1 - text_width(score, 16), y), score, font=font(16), fill=1)
        for i in range(min(status.tricks[team], 5)):
            px = x0 + i * 7
            draw.rectangle((px, y + 17, px + 4, y + 19), fill=1)


def _trump_block(draw, status, x0, y0, w):
    """Left block: the trump suit large with the maker under it, or during bidding the
    up-card (in round 2 "no ♥": its suit was turned down)."""
    cx = x0 + w // 2
    if status.trump:
        _centre(draw, cx, y0 - 6, SUIT_SYMBOLS[status.trump], 34)
        if status.lone:
            label = f"{status.lone} alone"
            tw = text_width(label, 9)
            draw.rectangle((cx - tw // 2 - 2, y0 + 30, cx + tw // 2 + 1, y0 + 40), fill=1)
            _centre(draw, cx, y0 + 30, label, 9, fill=0)
        elif status.maker:
            _centre(draw, cx, y0 + 30, f"by {status.maker}", 10)
    elif status.upcard:
        card = Card(status.upcard)
        if status.bidding_round == 2:
            # Round 2: the up-card's suit was turned down and may not be named.
            symbol = SUIT_SYMBOLS[card.suit]
            total = text_width("no", 10) + 2 + text_width(symbol, 18)
            left = cx - total // 2
            draw.text((left, y0 + 5), "no", font=font(10), fill=1)
            draw.text((left + text_width("no", 10) + 2, y0 - 1), symbol, font=font(18), fill=1)
        else:
            _centre(draw, cx, y0 - 1, card.symbol, 18)
        _centre(draw, cx, y0 + 21, f"round {status.bidding_round or 1}", 9)
        _centre(draw, cx, y0 + 31, "bidding", 9)
    else:
        _centre(draw, cx, y0 + 10, "no trump", 9)


def _render_play(draw, status, width, height):
    _trump_block(draw, status, 0, 1, 44)
    draw.line((45, 0, 45, height - MESSAGE_HEIGHT - 4), fill=1)
    _scores(draw, status, 47, width - 43, 1)
    _compass(draw, status, width - 21, 22)


def _render_hand_over(draw, status, width, height):
    """The hand's result: who made or was euchred, then tricks, points for the hand
    and the game score, each for N-S and E-W in two columns."""
    title = "HAND OVER"
    maker_team = None
    if status.maker:
        maker_team = "NS" if status.maker in ("N", "S") else "EW"
        won = status.tricks[maker_team]
        verdict = "MARCH" if won == 5 else "MADE IT" if won >= 3 else "EUCHRED"
        title = f"{_side_label(maker_team)} {verdict}"
    _centre(draw, width // 2, 0, fit_text(title, 12, width), 12)
    draw.line((0, 15, width - 1, 15), fill=1)
    pts = status.hand_points or {"NS": 0, "EW": 0}
    bid = ""
    if status.maker:
        bid = status.maker + (" " + SUIT_SYMBOLS[status.trump] if status.trump else "")
        bid += " alone" if status.lone else ""
    rows = ((bid, "NS", "EW"),
            ("tricks", str(status.tricks["NS"]), str(status.tricks["EW"])),
            ("points", f"+{pts['NS']}" if pts["NS"] else "0", f"+{pts['EW']}" if pts["EW"] else "0"),
            (f"game to {status.target}", str(status.score["NS"]), str(status.score["EW"])))
    centres = (width - 46, width - 16)  # N-S and E-W columns, numbers centred under the labels
    for r, (label, ns, ew) in enumerate(rows):
        y = 17 + r * 11
        draw.text((1, y), fit_text(label, 10, centres[0] - 12), font=font(10), fill=1)
        _centre(draw, centres[0], y, ns, 10)
        _centre(draw, centres[1], y, ew, 10)


def _render_game_over(draw, status, width, height):
    winner = status.winner or ("NS" if status.score["NS"] >= status.score["EW"] else "EW")
    loser = "EW" if winner == "NS" else "NS"
    _centre(draw, width // 2, 0, "GAME OVER", 12)
    names = " & ".join(SEAT_NAMES[s] for s in winner)  # "North & South"
    _centre(draw, width // 2, 15, fit_text(f"{names} win", 10, width), 10)
    line = f"{status.score[winner]} – {status.score[loser]}"
    _centre(draw, width // 2, 27, line, 18)


def _render_notice(draw, status, width, height):
    """Fault and resumed screens: a title and the message wrapped over several lines."""
    title = "FAULT" if status.screen == "fault" else "RESUMED"
    tw = text_width(title, 12)
    draw.rectangle((0, 0, width - 1, 15), fill=1)
    draw.text(((width - tw) // 2, 1), title, font=font(12), fill=0)
    lines, line = [], ""
    for word in status.message.split():
        trial = f"{line} {word}".strip()
        if text_width(trial, 10) <= width - 2 or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    max_lines = (height - 18) // 11
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = fit_text(lines[-1] + " " + ELLIPSIS * 4, 10, width - 2)
    for i, text in enumerate(lines):
        draw.text((1, 18 + i * 11), fit_text(text, 10, width - 2), font=font(10), fill=1)


def render(status: TableStatus, width: int = 128, height: int = 64,
           scroll: Optional[int] = None) -> Image.Image:
    """The status screen as a 1-bit image of ``width`` × ``height`` pixels.

    A message too long for the bottom line is shortened with "…"; pass ``scroll``
    (pixels) to draw it as a ticker instead, as :class:`Screen` does.

    >>> img = render(TableStatus(trump="H", maker="N", to_act="E"))
    >>> img.mode, img.size
    ('1', (128, 64))
    """
    if width < 96 or height < 48:
        raise ValueError(f"a {width}x{height} screen is too small: the layout needs at least 96x48")
    image = Image.new("1", (width, height), 0)
    draw = ImageDraw.Draw(image)
    if status.screen in ("fault", "resumed"):
        _render_notice(draw, status, width, height)
        return image
    {"play": _render_play, "hand_over": _render_hand_over,
     "game_over": _render_game_over}[status.screen](draw, status, width, height)
    if status.screen != "hand_over":  # the hand-over table fills the screen and says it all
        _message_line(draw, status, width, height, scroll)
    return image


class Screen:
    """The status screen on a luma device, robust to a missing or failing display.

    ``opener`` builds the luma device (called again after a fault), or pass a built
    ``device``. A failure is logged once, kept in :attr:`fault`, and the device is
    reopened at the next :meth:`show`. Call :meth:`show` and :meth:`step` from one
    thread (the service's loop).

    >>> from luma.core.device import dummy
    >>> screen = Screen(device=dummy(width=128, height=64, mode="1"))
    >>> screen.show(TableStatus(trump="S", maker="W", to_act="N"))
    True
    >>> screen.device.image.size, screen.fault
    ((128, 64), None)
    """

    def __init__(self, opener: Optional[Callable] = None, device=None):
        if opener is None and device is None:
            raise ValueError("Screen needs a device or an opener that builds one (see make_display)")
        self._opener = opener
        self.device = device
        self.fault: Optional[str] = None
        self.status: Optional[TableStatus] = None
        self.last_image: Optional[Image.Image] = None
        self._scroll = 0

    def _ensure_device(self):
        if self.device is None:
            self.device = self._opener()
        return self.device

    def show(self, status: TableStatus) -> bool:
        """Draw ``status``; True when it reached the display, False after a fault."""
        if status != self.status:
            self._scroll = 0
        self.status = status
        return self._draw()

    def step(self, pixels: int = 2) -> bool:
        """Advance a long message's ticker by ``pixels`` and redraw. The service calls
        this on its clock (a few times a second); nothing happens when the message fits.
        Returns True when something was redrawn."""
        if self.status is None or not message_overflows(self.status, self._size()[0]):
            return False
        self._scroll += pixels
        return self._draw()

    def _size(self):
        dev = self.device
        return (dev.width, dev.height) if dev is not None else (128, 64)

    def _draw(self) -> bool:
        width, height = self._size()
        overflow = message_overflows(self.status, width)
        try:
            device = self._ensure_device()
            width, height = device.width, device.height
            image = render(self.status, width, height,
                           scroll=self._scroll if overflow and self._scroll else None)
            device.display(image if device.mode == "1" else image.convert(device.mode))
        except ValueError:
            raise  # a status or size the screen cannot draw is a bug to see, not a fault to ride out
        except Exception as exc:  # luma raises its own Error types as well as OSError
            text = f"display not answering: {type(exc).__name__}: {exc}"
            if text != self.fault:
                log.warning("%s (will retry at the next update)", text)
            self.fault = text
            if self._opener is not None:
                self.device = None  # reopen next time: the display may have been reconnected
            return False
        if self.fault:
            log.info("display back after fault: %s", self.fault)
        self.fault = None
        self.last_image = image
        return True

    def clear(self):
        """Blank the display (at shutdown)."""
        try:
            if self.device is not None:
                self.device.clear()
        except Exception as exc:  # a dying display must not stop the shutdown
            log.warning("display clear failed: %s", exc)


DRIVERS = ("ssd1306", "sh1106", "dummy", "gif", "capture")
_KEYS = {
    "driver": str, "port": int, "address": int, "rotate": int, "contrast": int,
    "width": int, "height": int, "filename": str, "file_template": str, "scale": int,
    "duration": float,
}


def check_display_config(config: dict) -> dict:
    """The display configuration with defaults filled in, or ValueError naming the bad key.

    >>> check_display_config({"driver": "dummy"})["width"]
    128
    >>> check_display_config({"driver": "ssd1306", "adress": 60})
    Traceback (most recent call last):
    ...
    ValueError: display config: unknown key 'adress' (known keys: address, contrast, driver, duration, file_template, filename, height, port, rotate, scale, width)
    """
    if not isinstance(config, dict):
        raise ValueError(f"display config must be a mapping like {{'driver': 'ssd1306'}}, not {config!r}")
    out = {"driver": "ssd1306", "port": 1, "address": 0x3C, "rotate": 0, "contrast": 255,
           "width": 128, "height": 64, "filename": "table_screen.gif",
           "file_template": "screen_{0:06}.png", "scale": 2, "duration": 0.5}
    for key, value in config.items():
        if key not in _KEYS:
            raise ValueError(f"display config: unknown key {key!r} (known keys: {', '.join(sorted(_KEYS))})")
        want = _KEYS[key]
        if key == "address" and isinstance(value, str):
            try:
                value = int(value, 0)
            except ValueError:
                raise ValueError(f"display config: address={value!r} is not a number; write 0x3C or 60") from None
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, want):
            raise ValueError(f"display config: {key}={value!r} should be a {want.__name__}")
        out[key] = value
    if out["driver"] not in DRIVERS:
        raise ValueError(f"display config: driver={out['driver']!r} is unknown; use one of {', '.join(DRIVERS)}")
    if out["rotate"] not in (0, 2):
        # The layout is landscape; a quarter turn would leave a 64-pixel-wide screen.
        raise ValueError(f"display config: rotate={out['rotate']!r}: use 0, or 2 for a display "
                         "mounted upside down (the layout is landscape)")
    if not 0 <= out["contrast"] <= 255:
        raise ValueError(f"display config: contrast={out['contrast']!r}: use 0..255")
    if not 0x03 <= out["address"] <= 0x77:
        raise ValueError(f"display config: address={out['address']:#x} is not a 7-bit I2C address (0x3C or 0x3D usually)")
    return out


def build_device(config: dict, bus=None):
    """The luma device the configuration names (may raise if the hardware is absent).

    ``bus`` replaces the smbus object of the I2C interface, for tests.
    """
    c = check_display_config(config)
    size = dict(width=c["width"], height=c["height"], rotate=c["rotate"])
    if c["driver"] in ("ssd1306", "sh1106"):
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled

        serial = i2c(bus=bus, port=c["port"], address=c["address"])
        device = getattr(oled, c["driver"])(serial, **size)
    elif c["driver"] == "dummy":
        from luma.core.device import dummy

        device = dummy(mode="1", **size)
    else:
        # luma.emulator pulls in pygame: import it only for the virtual table.
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        from luma.emulator import device as emulator

        if c["driver"] == "gif":
            device = emulator.gifanim(mode="1", filename=c["filename"], scale=c["scale"],
                                      duration=c["duration"], **size)
        else:
            device = emulator.capture(mode="1", file_template=c["file_template"],
                                      scale=c["scale"], **size)
    device.contrast(c["contrast"])
    return device


def make_display(config: dict, bus=None) -> Screen:
    """The status :class:`Screen` for a configuration such as
    ``{"driver": "ssd1306", "port": 1, "address": 0x3C, "rotate": 0, "contrast": 255}``.

    The configuration is checked at once (ValueError naming the key); the device
    itself is opened at the first ``show``, so a display missing at start-up is a
    :attr:`Screen.fault`, not a crash.

    >>> screen = make_display({"driver": "dummy"})
    >>> screen.show(TableStatus(trump="C")), screen.device.image.getbbox() is not None
    (True, True)
    """
    checked = check_display_config(config)
    return Screen(opener=lambda: build_device(checked, bus=bus))
