"""One outline per card: overlapping outlines merged (``_merge``), each knowing which others lie inside it."""
from __future__ import annotations

from typing import Optional

import numpy as np

from vision.plain.outline import _inside_convex, _overlap, _side_samples, clockwise
from vision.plain.photo import PULL_LEAST, _corner_check, _table_strips, corners_on_table


def _merge(outlines: list, colour: Optional[np.ndarray] = None) -> list:
    """One outline per card: of outlines that overlap without one lying inside the
    other (the card's true outline, and a quadrilateral made of some of its sides and a
    line of its picture or of the table), the best supported and, of those, the one
    with the strongest steps; and each outline knows which others lie inside it. Of
    two nearly the same, one around the other, the outer one, unless (given the frame,
    ``colour``: a single photo) it reaches onto the table around the inner one
    (:func:`_astray`)."""
    if not outlines:
        return outlines
    outlines.sort(key=lambda o: (-round(o.support, 2), -o.contrast))
    q = np.stack([o.corners for o in outlines])
    area = np.array([o.area for o in outlines])
    # Outlines whose boxes lie apart (by a pixel) do not overlap (``_overlap`` 0): only the
    # kept ones near each are looked at, in the same order. (A frame of a busy cloth has
    # a hundred outlines, and a thousand pairs of them far apart.)
    lo, hi = q.min(axis=1) - 1.0, q.max(axis=1) + 1.0
    keep = []
    for i in range(len(outlines)):
        clash = False
        kk = np.array(keep, np.int64)
        for k in kk[((lo[i] <= hi[kk]) & (lo[kk] <= hi[i])).all(axis=1)].tolist():
            ov = _overlap(q[i], q[k])
            if ov < 0.3:
                continue
            ratio = area[i] / area[k]
            if ov > 0.97 and colour is not None and (ASTRAY_AREA < ratio < 1.3 or ASTRAY_AREA < 1 / ratio < 1.3):
                # In a single photo, of two nearly the same, one around the other, the
                # inner one where the outer reaches onto the table.
                outer, inner = (i, k) if ratio > 1 else (k, i)
                if _astray(colour, q[outer], q[inner]):
                    if inner == i:
                        outlines[k] = outlines[i]
                        q[k], area[k], lo[k], hi[k] = q[i], area[i], lo[i], hi[i]
                    clash = True
                    break
            if ov > 0.97 and 1.0 < ratio < 1.3:
                # Nearly the same card, this one around the other: a card's outline and
                # a quadrilateral cut short by a line of its own picture. The outer one
                # is the card.
                outlines[k] = outlines[i]
                q[k], area[k], lo[k], hi[k] = q[i], area[i], lo[i], hi[i]
                clash = True
                break
            nested = ov > 0.97 and not 0.85 < ratio < 1.18
            if not nested:
                clash = True
                break
        if not clash:
            keep.append(i)
    kept = [outlines[i] for i in keep]
    q = q[keep]
    area = area[keep]
    within = _inside_convex(q, q.mean(axis=1)) & (area[None, :] < area[:, None])
    for i, o in enumerate(kept):
        o.inside = [int(j) for j in np.nonzero(within[i])[0]]
    return kept


ASTRAY_AREA = 1.08
"""Of two outlines nearly the same, the outer one is judged by its corners (``_astray``)
only where it is this many times the inner one's area: a dark line printed along a
card's edge makes a second outline a pixel or two inside the first."""


def _astray(colour: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> bool:
    """Whether ``outer`` reaches onto the table around ``inner``: it has a corner on the
    table, ``inner`` none, and along a side meeting that corner the strip between the two
    is the table's (as :func:`pull_in_outlines` judges a strip). The outer one is then a
    card's sides continued to a plank's seam, not the card whose picture's frame the
    inner one is."""
    o = clockwise(outer[None].astype(np.float32))[0]
    i = clockwise(inner[None].astype(np.float32))[0]
    astray, rims, short = _corner_check(colour, o)
    if not astray.any() or corners_on_table(colour, i).any():
        return False
    least = max(3.0, PULL_LEAST * short)
    base, normal, _ = _side_samples(o[None], 20, 0.05, 0.95)
    ib, inormal, _ = _side_samples(i[None], 2, 0.0, 1.0)
    for side in np.nonzero(astray | np.roll(astray, -1))[0]:       # side k joins corners k and k + 1
        j = int(np.argmax(inormal[0] @ normal[0, side]))            # the inner side facing the same way
        along = float(inormal[0, j] @ normal[0, side])
        if along < 0.9:
            continue
        # Where the ray inward from each point of the outer side meets the inner side.
        off = ((ib[0, j, 0] - base[0, side]) @ inormal[0, j]) / along
        if _table_strips(colour, base[0, side], normal[0, side], off[None].astype(np.float32), rims, least)[0]:
            return True
    return False
