"""The empty table, learnt from the camera's frames: what differs from it is where cards (or hands) lie.

The camera above the table sees the empty table before every hand. ``TableModel``
keeps the empty table's picture (at up to 640 px wide) and its edges: the printed
mat's lines and markers, a cloth's pattern, wood grain. Two things come out of it:

- ``table_edges()``: where the table itself has edges. The card finder ignores edges
  there, so that a white card on the white mat is bounded by its own outline only,
  not by the mat's lines, and a card on wood is not joined to the grain.
- ``foreground(frame)``: the places whose colour differs from the table's (cards,
  hands), after matching the frame's light to the model (per channel, a gain and an
  offset that vary linearly across the frame, fitted over the places that still look
  like the table: a lamp switched on at one side, the camera's automatic exposure or
  white balance).

The model follows the table slowly wherever nothing lies (``LEARN_RATE`` per frame).

>>> import numpy as np
>>> table = TableModel()
>>> empty = np.full((120, 160, 3), (40, 110, 40), np.uint8)
>>> table.learn(empty)
>>> frame = empty.copy(); frame[40:80, 60:90] = 230
>>> mask = table.foreground(frame)
>>> bool(mask[60, 75]), bool(mask[10, 10])
(True, False)
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import cv2
import numpy as np

WORK_WIDTH = 640
"""Frames wider than this are modelled at this width (the finder's edge resolution)."""
COARSE = 8
"""The colour comparison is made on cells of this many work pixels a side."""
LEARN_RATE = 0.05
"""How fast the model follows the table where nothing lies (per frame)."""
FINE_EVERY = 5
"""The full-resolution picture of the table is updated every this many frames."""
EDGE_REFRESH = 25
"""The table's edges are recomputed from the model every this many updates."""
CARD_RIM = 0.2
"""Share of a card's size added round its outline where the table is not learnt
(:meth:`TableModel.follow`): its shadow, and an outline a little inside the card."""
MIN_SPREAD = 3.0
"""Least variation (colour units) assumed at any place."""
THRESHOLD = 4.0
"""A place is foreground when it differs from the table by this many times its spread ..."""
MIN_DIFFERENCE = 14.0
"""... and by at least this much (YCrCb units, chroma doubled)."""
SHAKE = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""Shifts (work px) of the empty table's picture whose effect on its cells is allowed for."""
BUSY_TABLE = 0.05
"""A table whose edges (work size, before dilation) cover more than this fraction of it is
busy: a texture (tuning tables: plain cloth, felt, wood, the printed mats 0.000-0.028;
carpet, grained wood, a woven mat, terrazzo 0.065-0.42)."""
DENSE_WINDOW = 41
DENSE_EDGES = 0.25
"""On a busy table, places where the table's edges cover more than this fraction of a
``DENSE_WINDOW``-pixel square are texture: their edges are not the table's lines (a mat's
lines reach 0.21 there, a loop carpet's or a woven mat's texture 0.33-0.46)."""
PLAIN_UNDER = 0.1
"""On a busy table, a place (a card's outline with its rim, a changed place) lies on a plain
part of it when less than this share of it is texture (``TableModel.dense``): the white A4
mat laid on the busy tuning textures (a card lying on the mat, and the mat's boxes: 0.0;
cards lying on the carpets, woven mat and terrazzo themselves 0.99-1.0, on grained wood
0.17-0.39)."""
HIDDEN_REACH = 4
"""How far (px at the model's working width) beyond the places that differ in colour from
the table (``foreground``, whose cells of 8 px fall short of a card's corners) the table's
edges count as hidden by a card while cards are read in play, where the frame's colour
there is not the table's (``TableModel.hidden_reach``, ``HIDDEN_CHROMA``).
Chosen on the Blender world's tuning pine table, a live deck of each design read on its
frames of play and hard frames: tigullio-international 18 of 27 whole cards with no reach,
22 with 4 px; gm-paris 24 of 27 both ways."""
HIDDEN_CHROMA = 8
"""... where a pixel's chroma (Cr or Cb) is off the table's by more than this: white paper
over orange pine differs, a mat's grey line beside a card keeps the table's colour. (Set, not
tuned: with it the tuning replays' readings did not change, and the pine table's did as
with a reach that took no account of colour.)"""
CHANGE_SHIFT = 1
"""``difference`` compares each pixel with the empty table's pixels up to this far (half-size
work px) from it, and keeps the least difference: a camera that shakes by a pixel, and a
busy pattern's steps, make no difference."""
SAME_GREY = 40
"""A pixel differing from the table by more grey levels than this has changed (a mat line
hidden by a card changes by far more; a card's blur spilling over a line beside it,
by less)."""


RELIT_CELL = 8
RELIT_MEDIAN = 9
RELIT_SMOOTH = 16.0
RELIT_LIKE = 0.01
"""``relit_difference``: the light's field is first the median over ``RELIT_MEDIAN`` cells of
``RELIT_CELL`` half-size work px a side, then a Gaussian (sigma ``RELIT_SMOOTH`` half-size
work px) fitted over the places within ``RELIT_LIKE`` (or three times the frame's spread) of
it. (Set on one tuning frame, an ivory felt under a lamp that moved, light group seed 918:
the table's own difference was then at most 0.023 at 999 pixels in 1,000, the card's
paper at least 0.047 at 9 in 10.)"""


def _work(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    if w <= WORK_WIDTH:
        return frame
    return cv2.resize(frame, (WORK_WIDTH, int(round(h * WORK_WIDTH / w))), interpolation=cv2.INTER_AREA)


def _ycc(img: np.ndarray) -> np.ndarray:
    ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb).astype(np.float32)
    ycc[:, :, 1:] *= 2.0
    return ycc


class TableModel:
    """A learnt picture of the empty table (see the module's description)."""

    def __init__(self):
        self.mean: Optional[np.ndarray] = None      # work-size BGR float32
        self.coarse: Optional[np.ndarray] = None    # coarse YCrCb float32
        self.spread: Optional[np.ndarray] = None    # coarse float32
        self.learnt = 0
        self.edges: Optional[np.ndarray] = None     # work-size uint8, dilated
        self.shape: Optional[tuple] = None          # frame (h, w)
        self.updates = 0
        self._busy = False
        self._dense: Optional[np.ndarray] = None
        self._last_fg: Optional[tuple] = None       # (frame, a sample of it, its foreground)
        self._to_learn: Optional[tuple] = None      # (frame, its light-matched cells, work picture, cells' mask)
        self._version = 0                           # counts the changes of ``mean``
        self._half: Optional[tuple] = None          # (version, padded half-size YCrCb of ``mean``)
        self._last_diff: Optional[tuple] = None     # (frame, its foreground, version, a sample, difference)
        self._relit_ref: Optional[tuple] = None     # (version, half-size YCrCb of ``mean``)
        self._last_edges: Optional[tuple] = None    # (frame, a sample, edges, foreground, state, its edges)
        # A calibration pass sets this to 0: there a card whose corner is vetoed is
        # taken from a later frame (on the tuning pine table, two of three live passes
        # with an earlier reach, blind to colour, set aside cards made without it).
        self.hidden_reach = HIDDEN_REACH

    @property
    def ready(self) -> bool:
        """True once the table has been seen."""
        return self.mean is not None

    def learn(self, frame: np.ndarray) -> None:
        """Take this frame as (more of) the empty table: the first frame starts the model
        (as does a frame of another size); more frames of the empty table are averaged
        in, and how much each place varies between them is kept."""
        work = _work(frame)
        small = self._coarse(work)
        if not self.ready or self.shape != frame.shape[:2]:
            self.mean = work.astype(np.float32)
            self.coarse = small
            self.shape = frame.shape[:2]
            self.learnt = 1
            # A patterned cloth's cells change more when the picture moves by a pixel or
            # two (the camera shakes, the cloth is nudged) than a plain one's: the change
            # under such a shift is allowed for. (A cell's difference from its neighbours
            # would be far more than that on a fine texture, a loop carpet, hiding a card.)
            spread = np.zeros(small.shape[:2], np.float32)
            for dx, dy in SHAKE:
                moved = self._coarse(np.roll(work, (dy, dx), axis=(0, 1)))
                spread = np.maximum(spread, np.sqrt(((small - moved) ** 2).sum(axis=2)))
            spread *= 1.5
            self.spread = cv2.dilate(np.maximum(spread, MIN_SPREAD), np.ones((3, 3), np.uint8))
        else:
            self.learnt += 1
            k = 1.0 / self.learnt
            self.spread = np.maximum(self.spread, 1.5 * np.sqrt(((small - self.coarse) ** 2).sum(axis=2)))
            cv2.accumulateWeighted(work.astype(np.float32), self.mean, k)
            cv2.accumulateWeighted(small, self.coarse, k)
        self.edges = None      # made again from the new picture when next needed
        self.updates = 0
        self._version += 1

    def _coarse(self, work: np.ndarray) -> np.ndarray:
        h, w = work.shape[:2]
        return _ycc(cv2.resize(work, (max(1, w // COARSE), max(1, h // COARSE)), interpolation=cv2.INTER_AREA))

    def _refresh_edges(self) -> None:
        from vision.plain.outline import edge_map
        mean = np.clip(self.mean, 0, 255).astype(np.uint8)
        luma, chroma = edge_map(mean, 1.0)
        both = luma | cv2.resize(chroma, (luma.shape[1], luma.shape[0]), interpolation=cv2.INTER_NEAREST)
        self._busy = float((both > 0).mean()) > BUSY_TABLE
        self._dense = None
        if self._busy:
            # A busy table (carpet loops, a woven mat, terrazzo): its edges are a texture,
            # not lines, and cover nearly everything once dilated, so that ruling them out
            # would rule out every card's side too. Where they are that dense they are left
            # to the finder (which looks for straight steps along a whole side).
            self._dense = cv2.boxFilter((both > 0).astype(np.float32), -1, (DENSE_WINDOW, DENSE_WINDOW)) > DENSE_EDGES
            both[self._dense] = 0
        self.edges = cv2.dilate(both, np.ones((3, 3), np.uint8))
        self.grey = cv2.cvtColor(mean, cv2.COLOR_BGR2GRAY)
        # For the reach in play (``_unlike_in_colour``): the table's colours, and where a
        # changed place can hide one of its edges (on it or beside it).
        self.ycc = cv2.cvtColor(mean, cv2.COLOR_BGR2YCrCb)
        self.edges_beside = cv2.dilate(self.edges, np.ones((3, 3), np.uint8))

    @property
    def busy(self) -> bool:
        """Whether the table is a busy texture (see ``BUSY_TABLE``): its edges say little
        about where a card's sides are, its colours more."""
        if not self.ready:
            return False
        if self.edges is None:
            self._refresh_edges()
        return self._busy

    @property
    def dense(self) -> Optional[np.ndarray]:
        """On a busy table, where the empty table's picture is a texture (bool, work size:
        its edges cover more than ``DENSE_EDGES`` of a ``DENSE_WINDOW`` square); None on a
        plain table or before learning."""
        if not self.busy:
            return None
        return self._dense

    def plain_under(self, mask: np.ndarray) -> bool:
        """Whether the place ``mask`` (bool or uint8, work size: ``dense``'s shape) lies on
        a plain part of the table (see ``PLAIN_UNDER``): always on a plain table, never
        for an empty mask."""
        dense = self.dense
        if dense is None:
            return True
        on = mask > 0
        return bool(on.any()) and float(dense[on].mean()) < PLAIN_UNDER

    def table_edges(self, frame: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        """Where the empty table has edges (uint8, work size), or None before learning.
        Given the frame, only the table's edges still seen there: where a card hides a
        mat line, the card's own edge along it is kept."""
        if not self.ready:
            return None
        if self.edges is None:
            self._refresh_edges()
        if frame is None:
            return self.edges
        seen = self._foreground_of(frame)
        # One frame's reading asks up to three times (the finder, again with faint edges,
        # and for the places that differ from the table): made once while nothing it
        # depends on has changed.
        state = (self._version, self.updates, self.hidden_reach)
        last = self._last_edges
        if last is not None and last[0] is frame and last[2] is self.edges and last[3] is seen \
                and last[4] == state and np.array_equal(last[1], _sample(frame)):
            return last[5]
        out = self._table_edges_now(frame, seen)
        self._last_edges = (frame, _sample(frame), self.edges, seen, state, out)
        return out

    def _table_edges_now(self, frame: np.ndarray, seen: np.ndarray) -> np.ndarray:
        work = _work(frame)                # resized once: the reach below reads it too
        grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        if grey.shape != self.grey.shape:
            return self.edges
        # The camera's exposure may have changed (a white card in view): match the
        # frame's grey to the table's first, over the places that still look alike.
        g, ref = grey[::4, ::4].astype(np.float32), self.grey[::4, ::4].astype(np.float32)
        ratio = np.median((ref + 8) / (g + 8))
        like = np.abs(g * ratio - ref) < 2 * SAME_GREY
        if like.sum() > 100:
            ratio = float(np.median((ref[like] + 8) / (g[like] + 8)))
        grey = cv2.convertScaleAbs(grey, alpha=ratio, beta=8 * (ratio - 1))
        changed = (cv2.absdiff(grey, self.grey) > SAME_GREY).astype(np.uint8)
        # A light card on light wood (pine, maple) hides the grain under paper of about
        # its grey: there the places that differ in colour from the table (``foreground``)
        # have changed too, so that the hidden grain does not pass for the table's edges
        # still seen, which veto the card's own sides (a Blender pine table: no card found).
        fg = cv2.resize(seen, (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_NEAREST)
        changed |= fg > 0
        if self.hidden_reach > 0:
            # Its coarse cells fall short of a card's corners: just beyond them, pixel
            # by pixel, the places whose colour is not the table's have changed too
            # (paper over pine), not those that keep it (a mat line beside the card).
            near = cv2.bitwise_and(cv2.dilate(fg, np.ones((2 * self.hidden_reach + 1,) * 2, np.uint8)),
                                   cv2.bitwise_not(fg))
            changed |= self._unlike_in_colour(work, fg, near)
        # A card's edge beside a hidden line differs within a pixel or two of it.
        changed = cv2.dilate(changed, np.ones((3, 3), np.uint8))
        return cv2.bitwise_and(self.edges, cv2.bitwise_not(changed * 255))

    def _unlike_in_colour(self, work: np.ndarray, fg: np.ndarray, near: np.ndarray) -> np.ndarray:
        """Of the places ``near`` (uint8, work size) that lie on or beside the table's
        edges (the only ones that can hide one), those where the frame's colour (``work``:
        the frame at the model's working size; chroma, pixel by pixel) is off the table's
        by more than ``HIDDEN_CHROMA``, once a shift of the camera's white balance (the
        median over what does not differ, ``fg`` 0) is taken away: a bool map, work size."""
        out = np.zeros(near.shape, bool)
        pts = cv2.findNonZero(cv2.bitwise_and(near, self.edges_beside))
        if pts is None:
            return out
        ycc = cv2.cvtColor(work, cv2.COLOR_BGR2YCrCb)
        shift = np.zeros(2, np.int16)
        table = fg[::4, ::4] == 0
        if table.any():
            d = (np.ascontiguousarray(ycc[::4, ::4, 1:]).astype(np.int16)
                 - np.ascontiguousarray(self.ycc[::4, ::4, 1:]))[table]
            shift = np.median(d, axis=0).astype(np.int16)
        pts = pts.reshape(-1, 2)
        xs, ys = pts[:, 0], pts[:, 1]
        d = ycc[ys, xs, 1:].astype(np.int16) - self.ycc[ys, xs, 1:] - shift
        off = np.abs(d).max(axis=1) > HIDDEN_CHROMA
        out[ys[off], xs[off]] = True
        return out

    def difference(self, frame: np.ndarray) -> Optional[np.ndarray]:
        """How much each place of ``frame`` differs in colour from the empty table (float32,
        at half the model's working size; YCrCb units, chroma doubled), pixel by pixel:
        the least difference from the table's pixels within ``CHANGE_SHIFT``, once the
        frame's light is matched to the table's (per channel, a gain and an offset fitted
        where ``foreground`` finds nothing). None before learning or for a frame of
        another size.

        The coarse ``foreground`` cells allow for a busy table's own variation within a
        cell (a camouflage print's cream and black): a white card lying over both
        differs there by less than that allowance, though pixel by pixel it differs from
        the table under it (on a Blender camouflage table, by 18 or more at 19 of 20 of
        its pixels; the empty table seen again, by at most 11 at 999 of 1,000).

        >>> import numpy as np
        >>> table = TableModel()
        >>> empty = np.zeros((64, 64, 3), np.uint8); empty[:, ::8] = 200    # stripes
        >>> table.learn(empty)
        >>> frame = empty.copy(); frame[16:48, 16:40] = 150
        >>> d = table.difference(frame)
        >>> bool(d[16, 14] > 40), bool(d[2, 2] < 5)
        (True, True)
        """
        if not self.ready or self.shape != frame.shape[:2]:
            return None
        # One frame's difference is asked for more than once (calibration looks for places
        # no outline covers, then for cards there): kept for the same frame, foreground
        # and table (callers read it, never change it).
        seen = self._foreground_of(frame)
        last = self._last_diff
        if last is not None and last[0] is frame and last[1] is seen and last[2] == self._version \
                and np.array_equal(last[3], _sample(frame)):
            return last[4]
        work = _work(frame)
        wh, ww = work.shape[:2]
        half = (max(1, ww // 2), max(1, wh // 2))
        s = CHANGE_SHIFT
        if self._half is None or self._half[0] != self._version:
            mean = _ycc(cv2.resize(np.clip(self.mean, 0, 255).astype(np.uint8), half, interpolation=cv2.INTER_AREA))
            self._half = (self._version, cv2.copyMakeBorder(mean, s, s, s, s, cv2.BORDER_REPLICATE))
        padded = self._half[1]
        ycc = _ycc(cv2.resize(work, half, interpolation=cv2.INTER_AREA))
        fg = cv2.resize(seen, half, interpolation=cv2.INTER_NEAREST)
        ref = padded[s:s + half[1], s:s + half[0]]
        table = fg[::2, ::2] == 0
        if table.sum() >= 50:
            for ch in range(3):
                gain, offset = _gain_and_offset(ycc[::2, ::2, ch][table], ref[::2, ::2, ch][table])
                ycc[:, :, ch] = gain * ycc[:, :, ch] + offset
        least = None
        ones = np.ones((1, 3), np.float32)
        for dy in range(-s, s + 1):
            for dx in range(-s, s + 1):
                diff = cv2.absdiff(ycc, padded[s + dy:s + dy + half[1], s + dx:s + dx + half[0]])
                d = cv2.transform(cv2.multiply(diff, diff), ones)
                least = d if least is None else cv2.min(least, d)
        out = cv2.sqrt(least)
        self._last_diff = (frame, seen, self._version, _sample(frame), out)
        return out

    def relit_difference(self, frame: np.ndarray) -> Optional[np.ndarray]:
        """How much each place of ``frame`` differs from the empty table once the change of
        light across the table is taken out (float32, at half the model's working size, as
        ``difference``): the frame's grey over the table's, and its chroma less the
        table's (over the table's grey), each less its own smooth field over the frame (the
        light), fitted where the frame still looks like the table; chroma doubled. A
        fraction: 0.05 is a place 5% lighter or darker than the light there makes the
        table. None before learning or for a frame of another size.

        A lamp that moves, or a person leaning over the table, lights the empty table
        unevenly by more than a light card on light cloth differs from it (ivory felt:
        the table's own difference up to 15 grey levels, the card's paper 5-7); the light
        changes over the width of several cards, a card's paper at its sides.

        >>> import numpy as np
        >>> table = TableModel()
        >>> empty = np.full((240, 320, 3), 150, np.uint8)
        >>> table.learn(empty)
        >>> ramp = np.linspace(0.8, 1.2, 320)[None, :, None]     # a lamp at the right
        >>> frame = empty * ramp; frame[80:160, 140:190] *= 0.95  # a card 5% darker
        >>> d = table.relit_difference(np.clip(frame, 0, 255).astype(np.uint8))
        >>> bool(d[60, 82] > 0.03), bool(d[20, 20] < 0.01), bool(d[20, 150] < 0.01)
        (True, True, True)
        """
        if not self.ready or self.shape != frame.shape[:2]:
            return None
        work = _work(frame)
        wh, ww = work.shape[:2]
        half = (max(1, ww // 2), max(1, wh // 2))
        if self._relit_ref is None or self._relit_ref[0] != self._version:
            # The table's side changes only when the table is learnt: made once per version.
            self._relit_ref = (self._version, cv2.cvtColor(cv2.resize(np.clip(self.mean, 0, 255).astype(np.uint8), half,
                                                                      interpolation=cv2.INTER_AREA),
                                                           cv2.COLOR_BGR2YCrCb).astype(np.float32))
        ref = self._relit_ref[1]
        now = cv2.cvtColor(cv2.resize(work, half, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2YCrCb).astype(np.float32)
        grey = ref[:, :, 0] + 8
        parts = [np.log((now[:, :, 0] + 8) / grey),
                 2 * (now[:, :, 1] - ref[:, :, 1]) / grey,
                 2 * (now[:, :, 2] - ref[:, :, 2]) / grey]
        # The light's field is worked out on cells (it is smooth), and only the
        # difference from it pixel by pixel.
        gw, gh = max(1, half[0] // RELIT_CELL), max(1, half[1] // RELIT_CELL)
        yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
        xx, yy = xx / gw - 0.5, yy / gh - 0.5
        terms = np.stack([np.ones_like(xx), xx, yy, xx * xx, xx * yy, yy * yy], axis=-1)
        sigma = RELIT_SMOOTH / RELIT_CELL
        out = np.zeros(grey.shape, np.float32)
        for r in parts:
            small = cv2.resize(r, (gw, gh), interpolation=cv2.INTER_AREA)
            # First a median over cells (the card's print, far from the table, moves it
            # little), then a smooth field fitted over the cells whose difference from
            # that is small: the card's paper, slightly off the table, does not pull the
            # field towards it and so vanish.
            q = np.clip(np.round(128 + small * 400), 0, 255).astype(np.uint8)
            k = min(RELIT_MEDIAN, 2 * (min(q.shape) // 2) - 1)
            res = small - ((cv2.medianBlur(q, k).astype(np.float32) - 128) / 400 if k >= 3 else small)
            for _ in range(2):
                spread = 1.4826 * float(np.median(np.abs(res))) + 1e-4
                like = cv2.erode((np.abs(res) < max(RELIT_LIKE, 3 * spread)).astype(np.uint8), np.ones((3, 3), np.uint8))
                # A smooth surface over the whole frame first, then what it leaves
                # smoothed locally: a Gaussian alone bends a lamp's slope at the frame's
                # borders and beside a card left out of it (0.02 there).
                flat = small - _surface(small, like, terms)
                like = like.astype(np.float32)
                field = cv2.GaussianBlur(flat * like, (0, 0), sigma) / \
                    np.maximum(cv2.GaussianBlur(like, (0, 0), sigma), 1e-3)
                res = flat - field
            light = cv2.resize(small - res, half, interpolation=cv2.INTER_LINEAR)
            out += cv2.blur(r - light, (3, 3)) ** 2
        return cv2.sqrt(out)

    def _matched(self, ycc: np.ndarray, ref: np.ndarray, like: np.ndarray) -> np.ndarray:
        out = ycc.copy()
        if like.sum() < 50:
            return out
        h, w = ycc.shape[:2]
        xx, yy = _unit_grid(h, w)
        # The fit reads only the places alike: their features are taken from those
        # places alone (the same values as the whole frame's, picked), and the whole
        # frame's only where the fit is kept.
        x_like, y_like = xx[like], yy[like]
        ones = np.ones(len(x_like), np.float32)
        for ch in range(3):
            frame_ch = ycc[:, :, ch]
            x, y = frame_ch[like], ref[:, :, ch][like]
            gain, offset = _gain_and_offset(x, y)
            out[:, :, ch] = gain * frame_ch + offset
            # A lamp at one side, a window's daylight: the light changes across the table,
            # brighter at one end than the other. A gain and an offset that vary linearly
            # across the frame are fitted to what the single gain leaves (slightly held
            # towards none, where the table's colours leave them undecided), kept while
            # the gain stays within the same bounds everywhere.
            mean = float(x.mean())
            v = x - mean
            a = np.stack((v, v * x_like, v * y_like, ones, x_like, y_like), axis=1).astype(np.float64)
            scale = np.sqrt((a ** 2).mean(axis=0)) + 1e-9
            a /= scale
            r = (y - out[:, :, ch][like]).astype(np.float64)
            coef = np.linalg.solve(a.T @ a + 1e-3 * len(r) * np.eye(a.shape[1]), a.T @ r) / scale
            corners = [gain + coef[0] + coef[1] * cx + coef[2] * cy for cx in (-0.5, 0.5) for cy in (-0.5, 0.5)]
            if min(corners) >= 0.6 and max(corners) <= 1.6:
                v = frame_ch - mean
                feats = (v, v * xx, v * yy, np.ones_like(v), xx, yy)
                out[:, :, ch] += sum(float(c) * f for c, f in zip(coef, feats))
        return out

    def _foreground_of(self, frame: np.ndarray) -> np.ndarray:
        """``foreground(frame)`` as last computed for this very frame (the reader asks for
        it, then the finder for the table's edges, in one frame's reading), else anew
        without learning."""
        last = self._last_fg
        if last is not None and last[0] is frame and np.array_equal(last[1], _sample(frame)):
            return last[2]
        return self.foreground(frame, update=False)

    def foreground(self, frame: np.ndarray, update: bool = True) -> np.ndarray:
        """Mask (uint8 0/255, the frame's size) of the places that differ in colour from
        the empty table, holes filled. With ``update``, the table is learnt a little
        more where nothing lies. A frame of another size starts a new model."""
        if not self.ready or self.shape != frame.shape[:2]:
            self.learn(frame)
            return np.zeros(frame.shape[:2], np.uint8)
        work = _work(frame)
        ycc = self._coarse(work)
        ref = self.coarse
        d = np.sqrt(((ycc - ref) ** 2).sum(axis=2))
        like = d < np.percentile(d, 50) + 2 * MIN_SPREAD
        matched = self._matched(ycc, ref, like)
        # Once matched, the places that look like the table are chosen again (a change
        # of light across it hid some) and the light matched over them.
        d = np.sqrt(((matched - ref) ** 2).sum(axis=2))
        like = d < np.percentile(d, 50) + 2 * MIN_SPREAD
        ycc = self._matched(ycc, ref, like)
        d = np.sqrt(((ycc - ref) ** 2).sum(axis=2))
        fg = ((d >= MIN_DIFFERENCE) & (d >= THRESHOLD * self.spread)).astype(np.uint8) * 255
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        cs, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(fg, cs, -1, 255, -1)
        wh, ww = work.shape[:2]
        fg_work = cv2.resize(fg, (ww, wh), interpolation=cv2.INTER_NEAREST)
        h, w = frame.shape[:2]
        out = cv2.resize(fg_work, (w, h), interpolation=cv2.INTER_NEAREST)
        self._last_fg = (frame, _sample(frame), out)
        self._to_learn = (frame, ycc, work, fg)
        if update:
            self.follow(frame)
        return out

    def follow(self, frame: np.ndarray, cards=()) -> None:
        """Learn the table a little more (``LEARN_RATE``) from ``frame``, whose
        :meth:`foreground` was just computed, wherever nothing lies: off its foreground
        and off ``cards`` (corners in frame px, each (4, 2): the outlines of the cards
        seen in it, with a rim ``CARD_RIM`` of their size for their shadow).

        A light card on light cloth differs from the table only by its print, so its
        paper is not foreground: learnt there, such a card lying still while the others
        are played became part of the table after some 40 changing frames and was lost
        (tuning light-table sessions), and so it is kept out by its outline too."""
        pending = self._to_learn
        if pending is None or pending[0] is not frame:
            return
        self._to_learn = None
        _, ycc, work, fg = pending
        wh, ww = work.shape[:2]
        busy = fg.copy()
        if len(cards):
            # Outlines drawn on the work picture, then on the coarse cells they touch.
            at = ww / frame.shape[1]
            covered = np.zeros((wh, ww), np.uint8)
            for q in cards:
                q = np.asarray(q, np.float32) * at
                centre = q.mean(axis=0)
                cv2.fillConvexPoly(covered, np.round(centre + (q - centre) * (1 + CARD_RIM)).astype(np.int32), 255)
            cells = cv2.resize(covered, (busy.shape[1], busy.shape[0]), interpolation=cv2.INTER_AREA)
            busy[cells > 0] = 255
        still = (cv2.dilate(busy, np.ones((3, 3), np.uint8)) == 0).astype(np.uint8)
        # The light-matched colour is learnt, so that a slow change of light is followed.
        cv2.accumulateWeighted(ycc, self.coarse, LEARN_RATE, mask=still)
        self.updates += 1
        if self.updates % FINE_EVERY == 0:
            still_work = cv2.resize(still, (ww, wh), interpolation=cv2.INTER_NEAREST)
            cv2.accumulateWeighted(work.astype(np.float32), self.mean,
                                   1 - (1 - LEARN_RATE) ** FINE_EVERY, mask=still_work)
            self._version += 1
        if self.updates % EDGE_REFRESH == 0:
            self._refresh_edges()


@lru_cache(maxsize=8)
def _unit_grid(h: int, w: int) -> tuple:
    """Each place's x and y across an h x w picture, from -0.5 to nearly 0.5 (float32),
    made once per size (read only)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx, yy = xx / w - 0.5, yy / h - 0.5
    xx.flags.writeable = False
    yy.flags.writeable = False
    return xx, yy


def _surface(values: np.ndarray, like: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """The least-squares surface (``terms``: the polynomial's terms at each place, h x w x
    k) through ``values`` where ``like`` is set; 0 where too few places are alike."""
    pick = like > 0
    if pick.sum() < 4 * terms.shape[-1]:
        return np.zeros_like(values)
    a = terms[pick].astype(np.float64)
    coef, *_ = np.linalg.lstsq(a, values[pick].astype(np.float64), rcond=None)
    return (terms @ coef.astype(np.float32)).astype(np.float32)


def _gain_and_offset(x: np.ndarray, y: np.ndarray) -> tuple:
    """The gain (least squares, held to 0.6-1.6; 1 where ``x`` hardly varies) and the
    offset (the median of what is left) that take one channel's values ``x`` of a frame
    to the table's ``y`` at the same places."""
    vx = float(x.var())
    gain = float(((x - x.mean()) * (y - y.mean())).mean() / vx) if vx > 1.0 else 1.0
    gain = float(np.clip(gain, 0.6, 1.6))
    return gain, float(np.median(y - gain * x))


def _sample(frame: np.ndarray) -> np.ndarray:
    """A few pixels of a frame, to tell a frame changed in place from the one it was."""
    return frame[::29, ::31].copy()
