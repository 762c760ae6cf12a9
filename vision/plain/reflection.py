"""A lamp's reflection where the cards were calibrated: found from the deck's own faces and taken out of them.

A live calibration pass takes every card where it is laid, about the same place on the
table. Glossy cards under a lamp mirror it there: each face is taken with a bright,
washed-out patch over part of its print, a different part on each card as it is turned.
A card read later out of the reflection then looks more like a look-alike whose face was
taken clean than like its own washed-out face (the Blender world's tuning A4 mat table
under a lamp: three twins not told apart in 13 whole cards of one design).

The reflection stays where it is on the table while the cards' prints change, so it is
found in the table's frame: each face's paper level (the brightest print near each
place) and ink level (the darkest), mapped back to where the face lay, and their medians
over the cards that lay there (``reflection``). Where the paper is brighter than the
rest of the place by more than a lamp's smooth fall-off explains, a face's levels are
stretched back to the paper and ink seen elsewhere (``Reflection.face``).

>>> field = reflection([(face, corners) for face, corners in taken], frame.shape)  # doctest: +SKIP
>>> clean = field.face(face, corners) if field is not None else face                # doctest: +SKIP
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional

import cv2
import numpy as np

from vision.plain.straighten import portrait_orders

SCALE = 0.25
"""The reflection's map is kept at this fraction of the frame's size (it is smooth)."""
MIN_CARDS = 5
"""Least number of faces that lay over a place for its levels to be known there."""
BUMP = 0.1
"""Least rise of the paper's level above a plane fitted over the place (a lamp's smooth
fall-off across it) for a reflection to be found. (On the Blender world's tuning A4 mat
table under a lamp: 0.3.)"""
RISE = (0.04, 0.1)
"""Between these rises of the paper's level over its median, a face's levels are stretched
back in proportion (none below the first, all from the second)."""
MAX_STRETCH = 3.0
"""Most the print's contrast is stretched where the reflection washed it out (the noise
is stretched with it)."""


def _levels(face: np.ndarray) -> tuple:
    """The face's paper and ink levels near each place (float32, face size): the largest
    and smallest grey in a window a tenth of its width, smoothed."""
    grey = face.astype(np.float32).mean(axis=2)
    w = grey.shape[1]
    k = max(3, (w // 10) | 1)
    kernel = np.ones((k, k), np.uint8)
    paper = cv2.GaussianBlur(cv2.dilate(grey, kernel), (0, 0), w / 16)
    ink = cv2.GaussianBlur(cv2.erode(grey, kernel), (0, 0), w / 16)
    return paper, ink


def _frame_to_face(face: np.ndarray, corners: np.ndarray) -> np.ndarray:
    # As ``straighten.face_of`` warps the frame into the face.
    a, _ = portrait_orders(corners)
    h, w = face.shape[:2]
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    return cv2.getPerspectiveTransform(a.astype(np.float32), dst)


@dataclass
class Reflection:
    """A lamp's reflection over the place where the cards were calibrated: the paper's and
    the ink's level there (frame at ``SCALE``, in units of each face's own paper, 1 where
    unknown) and their medians."""

    paper: np.ndarray
    ink: np.ndarray
    paper_median: float
    ink_median: float

    def face(self, face: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The face (BGR, as taken at ``corners`` of the frame) with its print stretched
        back to the paper and ink levels seen out of the reflection."""
        h, w = face.shape[:2]
        to_face = _frame_to_face(face, corners) @ np.diag([1 / SCALE, 1 / SCALE, 1.0])
        paper = cv2.warpPerspective(self.paper, to_face, (w, h), flags=cv2.INTER_LINEAR,
                                    borderValue=float(self.paper_median))
        ink = cv2.warpPerspective(self.ink, to_face, (w, h), flags=cv2.INTER_LINEAR,
                                  borderValue=float(self.ink_median))
        p0, k0 = self.paper_median, self.ink_median
        share = np.clip((paper / p0 - 1 - RISE[0]) / (RISE[1] - RISE[0]), 0, 1)
        if not share.any():
            return face
        own = float(np.median(_levels(face)[0]))
        stretch = np.clip((p0 - k0) / np.maximum(paper - ink, 1e-3), 1.0, MAX_STRETCH)
        stretch = 1 + (stretch - 1) * share
        # The ink's level there is taken to the ink's level elsewhere, the paper's with it.
        shift = own * (k0 - stretch * ink) * share
        out = face.astype(np.float32) * stretch[..., None] + shift[..., None]
        return np.clip(out, 0, 255).astype(np.uint8)


def reflection(taken: list, frame_shape: tuple) -> Optional[Reflection]:
    """The lamp's reflection over the place where the faces in ``taken`` (``(face BGR,
    corners in the frame)``) lay, or None when the paper there is as bright everywhere as
    a smooth fall-off of the light explains (no reflection, or too few faces)."""
    if len(taken) < MIN_CARDS:
        return None
    fh, fw = frame_shape[:2]
    w, h = max(8, int(round(fw * SCALE))), max(8, int(round(fh * SCALE)))
    papers, inks, seen = [], [], []
    for face, corners in taken:
        paper, ink = _levels(face)
        own = float(np.median(paper))
        if own <= 0:
            continue
        to_map = np.diag([SCALE, SCALE, 1.0]) @ np.linalg.inv(_frame_to_face(face, corners))
        inside = cv2.erode(np.ones(paper.shape, np.float32), np.ones((9, 9), np.uint8))
        papers.append(cv2.warpPerspective(paper / own, to_map, (w, h), flags=cv2.INTER_LINEAR))
        inks.append(cv2.warpPerspective(ink / own, to_map, (w, h), flags=cv2.INTER_LINEAR))
        seen.append(cv2.warpPerspective(inside, to_map, (w, h), flags=cv2.INTER_NEAREST) > 0.5)
    if len(seen) < MIN_CARDS:
        return None
    seen_ = np.stack(seen)
    known = seen_.sum(axis=0) >= MIN_CARDS
    if known.sum() < 50:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # places no face covered
        paper = np.nanmedian(np.where(seen_, np.stack(papers), np.nan), axis=0)
        ink = np.nanpercentile(np.where(seen_, np.stack(inks), np.nan), 10, axis=0)
    p0, k0 = float(np.median(paper[known])), float(np.median(ink[known]))
    # A lamp's fall-off across the place is smooth: a plane. A reflection rises above it.
    ys, xs = np.nonzero(known)
    design = np.stack([np.ones(len(xs)), xs / w, ys / h], axis=1)
    coef, *_ = np.linalg.lstsq(design, paper[known], rcond=None)
    if float((paper[known] - design @ coef).max()) < BUMP * p0:
        return None
    paper = np.where(known, paper, p0).astype(np.float32)
    ink = np.where(known, ink, k0).astype(np.float32)
    return Reflection(cv2.GaussianBlur(paper, (0, 0), 2.0), cv2.GaussianBlur(ink, (0, 0), 2.0), p0, k0)
