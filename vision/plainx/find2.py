"""Prototype: card outlines from L-junctions of straight edges along edge contours."""
from __future__ import annotations
import cv2
import numpy as np
from vision.plainx.find import (Outline, colour_gradient, _order_clockwise, _sample, _crossings,
                                _line_through, aspect_of)

WORK_WIDTH = 640


def segments_of(contour, eps=1.5, lmin=16.0):
    """Vertices of the polyline approximating a closed contour."""
    poly = cv2.approxPolyDP(contour, eps, True).reshape(-1, 2).astype(np.float32)
    return poly


def junctions(edges, lmin=16.0, eps=1.5, max_gap_frac=0.25):
    cs, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in cs:
        if len(c) < 2 * lmin:
            continue
        v = segments_of(c, eps)
        m = len(v)
        if m < 3:
            continue
        seg_a = v
        seg_b = np.roll(v, -1, axis=0)
        lens = np.linalg.norm(seg_b - seg_a, axis=1)
        for i in range(m):
            if lens[i] < lmin:
                continue
            for skip in (1, 2, 3):
                j = (i + skip) % m
                if j == i or lens[j] < lmin:
                    continue
                mid = sum(lens[(i + k) % m] for k in range(1, skip))
                if mid > max_gap_frac * min(lens[i], lens[j]):
                    break
                p0, p1 = seg_a[i], seg_b[i]
                q0, q1 = seg_a[j], seg_b[j]
                d1 = (p1 - p0) / lens[i]
                d2 = (q1 - q0) / lens[j]
                cosang = float(abs(d1 @ d2))
                if cosang > 0.34:  # not within ~70..110 degrees
                    continue
                C = _intersect(p0, d1, q0, d2)
                if C is None:
                    continue
                # the corner must lie near p1 (end of seg i) and q0 (start of seg j)
                if np.linalg.norm(C - p1) > 0.3 * lens[i] + 4 or np.linalg.norm(C - q0) > 0.3 * lens[j] + 4:
                    continue
                u = -d1  # from the corner back along segment i
                w = d2
                a = float(np.linalg.norm(p0 - C))
                b = float(np.linalg.norm(q1 - C))
                out.append((C, u, w, a, b))
                break
    return out


def _intersect(p, d, q, e):
    det = d[0] * (-e[1]) + e[0] * d[1]
    if abs(det) < 1e-6:
        return None
    r = q - p
    t = (r[0] * (-e[1]) + e[0] * r[1]) / det
    return p + t * d


def hypotheses(junc, aspect, sizes=()):
    """Card quads from junctions: corner C with sides along u (length a) and w (length b)."""
    out = []
    for C, u, w, a, b in junc:
        cands = set()
        r = min(a, b) / max(a, b)
        if abs(r - aspect) < 0.12 * aspect:
            cands.add((a, b))
        # one side whole, the other from the aspect
        for lu, lw in ((a, a * aspect), (a, a / aspect), (b * aspect, b), (b / aspect, b)):
            if lu >= 0.8 * a and lw >= 0.8 * b:
                cands.add((lu, lw))
        for L in sizes:
            for lu, lw in ((L, L * aspect), (L * aspect, L)):
                if lu >= 0.8 * a and lw >= 0.8 * b:
                    cands.add((lu, lw))
        for lu, lw in cands:
            q = np.array([C, C + lu * u, C + lu * u + lw * w, C + lw * w], np.float32)
            out.append(q)
    return out


def side_profiles(labf, quad, reach, n=24, lo=0.12, hi=0.88, step=0.5):
    offs = np.arange(-reach, reach + step / 2, step, dtype=np.float32)
    c = quad.mean(axis=0)
    bases, normals, ts = [], [], np.linspace(lo, hi, n, dtype=np.float32)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        p = a + ts[:, None] * (b - a)
        d = (b - a) / max(np.linalg.norm(b - a), 1e-6)
        nrm = np.array([d[1], -d[0]], np.float32)
        if np.dot(nrm, (a + b) / 2 - c) < 0:
            nrm = -nrm
        bases.append(p)
        normals.append(nrm)
    bases, normals = np.stack(bases), np.stack(normals)
    o = np.concatenate([offs - 1.0, offs + 1.0])
    pts = bases[:, :, None, :] + normals[:, None, None, :] * o[None, None, :, None]
    s = _sample(labf, pts)
    k = len(offs)
    diff = s[:, :, k:] - s[:, :, :k]
    diff[..., 1:] *= 1.5
    return bases, normals, offs, ts, np.sqrt((diff ** 2).sum(-1))


def refine_quad(labf, quad, reach=None, outermost=0.6):
    """Each side moved to the best straight step within reach: a 2-parameter search
    (offset at either end) over the step profiles; the outermost line scoring within
    `outermost` of the best wins."""
    q = quad.astype(np.float32)
    side = min(np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4))
    if reach is None:
        reach = max(3.0, 0.06 * side)
    bases, normals, offs, ts, st = side_profiles(labf, q, reach)
    k = len(offs)
    grid = np.arange(k)
    lines = []
    for i in range(4):
        S = st[i]  # (n, k)
        # line from offset index g0 at t=lo to g1 at t=hi
        g0 = grid[:, None, None]
        g1 = grid[None, :, None]
        frac = ((ts - ts[0]) / (ts[-1] - ts[0]))[None, None, :]
        pos = g0 + (g1 - g0) * frac  # (k, k, n)
        lo_i = np.clip(np.floor(pos).astype(int), 0, k - 1)
        hi_i = np.clip(lo_i + 1, 0, k - 1)
        f = pos - lo_i
        rows = np.arange(len(ts))[None, None, :]
        val = S[rows, lo_i] * (1 - f) + S[rows, hi_i] * f
        score = val.mean(axis=2)
        # exclude steep tilts: |g1-g0| limited
        best = score.max()
        ok = score >= outermost * best
        mean_off = (g0[..., 0] + g1[..., 0]) / 2.0
        cand = np.where(ok, mean_off, -1)
        a0, a1 = np.unravel_index(np.argmax(cand + score / (best + 1e-6) * 1e-3), score.shape)
        # sub-pixel: peak of each profile near the chosen line
        line_pos = a0 + (a1 - a0) * frac[0, 0]
        pts, wts = [], []
        for r in range(len(ts)):
            lo_k = int(max(0, np.floor(line_pos[r]) - 2))
            hi_k = int(min(k, np.ceil(line_pos[r]) + 3))
            seg = S[r, lo_k:hi_k]
            j = int(np.argmax(seg)) + lo_k
            if 0 < j < k - 1:
                y0, y1, y2 = S[r, j - 1], S[r, j], S[r, j + 1]
                den = y0 - 2 * y1 + y2
                sub = 0.5 * (y0 - y2) / den if abs(den) > 1e-6 else 0.0
                sub = float(np.clip(sub, -0.5, 0.5))
            else:
                sub = 0.0
            o = offs[j] + sub * (offs[1] - offs[0])
            pts.append(bases[i][r] + normals[i] * o)
            wts.append(S[r, j])
        pts, wts = np.array(pts), np.array(wts)
        keep = wts > 0.3 * np.median(wts)
        lines.append(_line_through(pts[keep], wts[keep]) if keep.sum() >= 5 else _line_through(pts, wts))
    return _crossings(lines)


def support(labf, quad, tau=10.0):
    bases, normals, offs, ts, st = side_profiles(labf, quad, 1.0, n=32, lo=0.1, hi=0.9)
    best = st.max(axis=2)
    frac = (best >= tau).mean(axis=1)
    return float(frac.min()), float(np.median(best))


def find(frame, aspect=0.7, lo=40, hi=100, tau=10.0, min_support=0.8):
    h, w = frame.shape[:2]
    s = min(1.0, WORK_WIDTH / w)
    work = frame if s == 1.0 else cv2.resize(frame, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(work, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    labf = lab.astype(np.float32)
    dx, dy, mag = colour_gradient(lab)
    edges = cv2.Canny(dx, dy, lo, hi)
    junc = junctions(edges)
    hyps = hypotheses(junc, aspect)
    hh, ww = lab.shape[:2]
    found = []
    for q in hyps:
        if q.min() < 0 or q[:, 0].max() > ww - 1 or q[:, 1].max() > hh - 1:
            continue
        r = refine_quad(labf, q)
        if r is None:
            continue
        r = refine_quad(labf, r, reach=2.0)
        if r is None:
            continue
        asp, long_ = aspect_of(r)
        if abs(asp - aspect) > 0.1 * aspect or long_ < 40:
            continue
        sup, con = support(labf, r, tau)
        if sup < min_support:
            continue
        found.append(Outline(_order_clockwise(r / s), sup, con, "junction"))
    return dedupe(found), edges, junc


def dedupe(outs):
    outs = sorted(outs, key=lambda o: -o.support)
    kept = []
    for o in outs:
        c = o.corners.mean(axis=0)
        if any(np.linalg.norm(c - k.corners.mean(axis=0)) < 0.2 * aspect_of(k.corners)[1] and
               np.abs(_match_corners(o.corners, k.corners)).max() < 0.15 * aspect_of(k.corners)[1] for k in kept):
            continue
        kept.append(o)
    return kept


def _match_corners(a, b):
    best = None
    for r in range(4):
        d = np.roll(a, r, axis=0) - b
        if best is None or np.abs(d).max() < np.abs(best).max():
            best = d
    return best
