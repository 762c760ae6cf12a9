"""Prototype 3: vectorized junction finder."""
from __future__ import annotations
import cv2
import numpy as np
from vision.plainx.find import Outline, colour_gradient, _order_clockwise, aspect_of

WORK_WIDTH = 640


def polylines(edges, eps=1.5, lmin=16):
    cs, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    return [cv2.approxPolyDP(c, eps, True).reshape(-1, 2).astype(np.float32)
            for c in cs if len(c) >= 2 * lmin]


def junctions(polys, lmin=16.0, max_gap=0.25, max_cos=0.34):
    """(corner, u, w, a, b) arrays: corner points, unit side directions, side lengths."""
    Cs, Us, Ws, As, Bs = [], [], [], [], []
    for v in polys:
        m = len(v)
        if m < 3:
            continue
        nxt = np.roll(v, -1, axis=0)
        d = nxt - v
        L = np.linalg.norm(d, axis=1)
        u = d / np.maximum(L, 1e-6)[:, None]
        for skip in (1, 2, 3):
            if skip >= m:
                break
            j = (np.arange(m) + skip) % m
            mid = np.zeros(m, np.float32)
            for k in range(1, skip):
                mid += L[(np.arange(m) + k) % m]
            ok = (L >= lmin) & (L[j] >= lmin) & (mid <= max_gap * np.minimum(L, L[j]))
            ok &= np.abs((u * u[j]).sum(1)) <= max_cos
            if not ok.any():
                continue
            i = np.nonzero(ok)[0]
            jj = j[i]
            p0, d1, q0, d2 = v[i], u[i], v[jj], u[jj]
            det = d1[:, 0] * (-d2[:, 1]) + d2[:, 0] * d1[:, 1]
            r = q0 - p0
            t = (r[:, 0] * (-d2[:, 1]) + d2[:, 0] * r[:, 1]) / np.where(np.abs(det) < 1e-6, 1e-6, det)
            C = p0 + t[:, None] * d1
            p1 = nxt[i]
            q1 = nxt[jj]
            near = (np.linalg.norm(C - p1, axis=1) <= 0.3 * L[i] + 4) & \
                   (np.linalg.norm(C - q0, axis=1) <= 0.3 * L[jj] + 4)
            if not near.any():
                continue
            Cs.append(C[near]); Us.append(-d1[near]); Ws.append(d2[near])
            As.append(np.linalg.norm(p0 - C, axis=1)[near]); Bs.append(np.linalg.norm(q1 - C, axis=1)[near])
    if not Cs:
        z = np.zeros((0, 2), np.float32)
        return z, z, z, np.zeros(0, np.float32), np.zeros(0, np.float32)
    return (np.concatenate(Cs), np.concatenate(Us), np.concatenate(Ws),
            np.concatenate(As), np.concatenate(Bs))


def hypotheses(J, aspect, sizes=(), tol=0.12):
    C, U, W, A, B = J
    quads = []
    for lu, lw in _side_options(A, B, aspect, sizes, tol):
        pass
    # vectorized options
    opts = []
    r = np.minimum(A, B) / np.maximum(np.maximum(A, B), 1e-6)
    whole = np.abs(r - aspect) < tol * aspect
    # each junction: both sides whole
    opts.append((A, B, whole & (((A < B) & (aspect < 1)) | ((A >= B) & (aspect < 1)))))
    for lu, lw in ((A, A * aspect), (A, A / aspect), (B * aspect, B), (B / aspect, B)):
        opts.append((lu, lw, (lu >= 0.8 * A) & (lw >= 0.8 * B)))
    for L in sizes:
        for lu, lw in ((np.full_like(A, L), np.full_like(A, L * aspect)), (np.full_like(A, L * aspect), np.full_like(A, L))):
            opts.append((lu, lw, (lu >= 0.8 * A) & (lw >= 0.8 * B)))
    for lu, lw, ok in opts:
        if not ok.any():
            continue
        c, u, w, lu, lw = C[ok], U[ok], W[ok], lu[ok], lw[ok]
        q = np.stack([c, c + lu[:, None] * u, c + lu[:, None] * u + lw[:, None] * w, c + lw[:, None] * w], axis=1)
        quads.append(q)
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    return np.concatenate(quads).astype(np.float32)


def _side_options(*a):
    return []


def _normalize_orientation(Q):
    """Make every quad clockwise (in image coordinates, y down) starting anywhere."""
    v1 = Q[:, 1] - Q[:, 0]
    v2 = Q[:, 3] - Q[:, 0]
    cross = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0]
    Q = Q.copy()
    flip = cross < 0
    Q[flip] = Q[flip][:, ::-1]
    return Q


def dedupe_quads(Q, tol):
    """Drop near-duplicate quads (same corners, in any rotation)."""
    if len(Q) == 0:
        return Q
    c = Q.mean(axis=1)
    key = np.round(c / tol).astype(np.int64)
    size = np.round(np.linalg.norm(Q[:, 0] - Q[:, 2], axis=1) / tol).astype(np.int64)
    ang = np.arctan2(*(Q[:, 1] - Q[:, 0]).T[::-1]) % (np.pi / 2)
    ak = np.round(ang / 0.08).astype(np.int64)
    keys = key[:, 0] * 10**9 + key[:, 1] * 10**5 + size * 100 + ak
    _, idx = np.unique(keys, return_index=True)
    return Q[np.sort(idx)]


def sample(img, pts):
    shp = pts.shape[:-1]
    p = pts.reshape(-1, 2).astype(np.float32)
    n = len(p)
    cols = 2048
    rows = -(-n // cols)
    pad = np.zeros((rows * cols, 2), np.float32)
    pad[:n] = p
    pad = pad.reshape(rows, cols, 2)
    out = cv2.remap(img, pad[:, :, 0], pad[:, :, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ch = (img.shape[2],) if img.ndim == 3 else ()
    return out.reshape((rows * cols,) + ch)[:n].reshape(shp + ch)


def profiles(labf, Q, offs, n=20, lo=0.12, hi=0.88, half=1.0):
    """Step strength (H, 4, n, k) across each side of each quad at the offsets (outward)."""
    t = np.linspace(lo, hi, n, dtype=np.float32)
    a = Q
    b = np.roll(Q, -1, axis=1)
    base = a[:, :, None, :] + (b - a)[:, :, None, :] * t[None, None, :, None]  # H,4,n,2
    d = (b - a) / np.maximum(np.linalg.norm(b - a, axis=2, keepdims=True), 1e-6)
    nrm = np.stack([d[..., 1], -d[..., 0]], axis=-1)  # H,4,2 (outward for clockwise in image coords)
    o = np.concatenate([offs - half, offs + half]).astype(np.float32)
    pts = base[:, :, :, None, :] + nrm[:, :, None, None, :] * o[None, None, None, :, None]
    s = sample(labf, pts)  # H,4,n,2k,3
    k = len(offs)
    diff = s[..., k:, :] - s[..., :k, :]
    diff[..., 1:] *= 1.5
    return base, nrm, t, np.sqrt((diff ** 2).sum(-1))


def quick_support(labf, Q, tau, reach=2.0):
    offs = np.arange(-reach, reach + 0.1, 1.0, dtype=np.float32)
    _, _, _, st = profiles(labf, Q, offs, n=12)
    best = st.max(axis=3)  # H,4,n
    return (best >= tau).mean(axis=2).min(axis=1)


def refine(labf, Q, reach, outermost=0.6, step=1.0, n=20):
    """Move each side of each quad to the outermost good straight step within reach."""
    offs = np.arange(-reach, reach + step / 2, step, dtype=np.float32)
    k = len(offs)
    base, nrm, t, st = profiles(labf, Q, offs, n=n)  # st: H,4,n,k
    H = len(Q)
    g = np.arange(k, dtype=np.float32)
    frac = (t - t[0]) / (t[-1] - t[0])
    pos = g[:, None, None] + (g[None, :, None] - g[:, None, None]) * frac[None, None, :]  # k,k,n
    lo_i = np.floor(pos).astype(np.int64)
    hi_i = np.minimum(lo_i + 1, k - 1)
    f = (pos - lo_i).astype(np.float32)
    rows = np.arange(n)[None, None, :]
    val = st[:, :, rows, lo_i] * (1 - f) + st[:, :, rows, hi_i] * f  # H,4,k,k,n
    score = val.mean(axis=-1)  # H,4,k,k
    best = score.reshape(H, 4, -1).max(axis=2)
    mean_off = (g[:, None] + g[None, :]) / 2
    ok = score >= outermost * best[:, :, None, None]
    pick = np.where(ok, mean_off[None, None] + score / (best[:, :, None, None] + 1e-6) * 1e-3, -1.0)
    idx = pick.reshape(H, 4, -1).argmax(axis=2)
    a0, a1 = idx // k, idx % k
    line_pos = a0[..., None] + (a1 - a0)[..., None] * frac  # H,4,n (index units)
    # sub-pixel: parabola at the profile peak nearest the chosen line (within +-1)
    li = np.clip(np.round(line_pos).astype(np.int64), 1, k - 2)
    cand = np.stack([li - 1, li, li + 1], axis=-1)
    vals = np.take_along_axis(st, cand, axis=3)
    j = np.take_along_axis(cand, vals.argmax(axis=-1)[..., None], axis=-1)[..., 0]
    j = np.clip(j, 1, k - 2)
    y0 = np.take_along_axis(st, (j - 1)[..., None], 3)[..., 0]
    y1 = np.take_along_axis(st, j[..., None], 3)[..., 0]
    y2 = np.take_along_axis(st, (j + 1)[..., None], 3)[..., 0]
    den = y0 - 2 * y1 + y2
    sub = np.clip(np.where(np.abs(den) > 1e-6, 0.5 * (y0 - y2) / np.where(np.abs(den) > 1e-6, den, 1), 0), -0.5, 0.5)
    off = offs[0] + (j + sub) * step
    pts = base + nrm[:, :, None, :] * off[..., None]  # H,4,n,2
    w = y1
    return fit_lines_corners(pts, w), best


def fit_lines_corners(pts, w):
    """Weighted TLS line per side (H,4), then corners as crossings."""
    for it in range(2):
        wsum = w.sum(axis=2, keepdims=True) + 1e-6
        c = (pts * w[..., None]).sum(axis=2) / wsum  # H,4,2
        d = pts - c[:, :, None, :]
        sxx = (w * d[..., 0] ** 2).sum(2)
        syy = (w * d[..., 1] ** 2).sum(2)
        sxy = (w * d[..., 0] * d[..., 1]).sum(2)
        ang = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        dirs = np.stack([np.cos(ang), np.sin(ang)], axis=-1)  # H,4,2
        nr = np.stack([-dirs[..., 1], dirs[..., 0]], axis=-1)
        res = np.abs((d * nr[:, :, None, :]).sum(-1))  # H,4,n
        if it == 0:
            med = np.median(res, axis=2, keepdims=True)
            w = np.where(res <= np.maximum(0.75, 2.5 * med), w, 0)
    # crossings of side i-1 and side i -> corner i
    p1, d1 = np.roll(c, 1, axis=1), np.roll(dirs, 1, axis=1)
    p2, d2 = c, dirs
    det = d1[..., 0] * (-d2[..., 1]) + d2[..., 0] * d1[..., 1]
    r = p2 - p1
    tt = (r[..., 0] * (-d2[..., 1]) + d2[..., 0] * r[..., 1]) / np.where(np.abs(det) < 1e-6, 1e-6, det)
    return (p1 + tt[..., None] * d1).astype(np.float32)


def quad_shape(Q):
    s = np.linalg.norm(Q - np.roll(Q, -1, axis=1), axis=2)  # side i: Q[i]->Q[i+1]
    a = (s[:, 0] + s[:, 2]) / 2
    b = (s[:, 1] + s[:, 3]) / 2
    skew = np.maximum(np.abs(s[:, 0] - s[:, 2]) / np.maximum(s[:, 0], s[:, 2]),
                      np.abs(s[:, 1] - s[:, 3]) / np.maximum(s[:, 1], s[:, 3]))
    return np.minimum(a, b) / np.maximum(np.maximum(a, b), 1e-6), np.maximum(a, b), skew


def find(frame, aspect=0.7, lo=40, hi=100, tau=10.0, min_support=0.8, min_long=40, stats=None):
    h, w = frame.shape[:2]
    s = min(1.0, WORK_WIDTH / w)
    work = frame if s == 1.0 else cv2.resize(frame, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(work, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    labf = lab.astype(np.float32)
    dx, dy, mag = colour_gradient(lab)
    edges = cv2.Canny(dx, dy, lo, hi)
    polys = polylines(edges)
    J = junctions(polys)
    Q = hypotheses(J, aspect)
    hh, ww = lab.shape[:2]
    if stats is not None:
        stats["junctions"] = len(J[0]); stats["hyp"] = len(Q)
    if len(Q) == 0:
        return []
    Q = _normalize_orientation(Q)
    inside = (Q.min(axis=(1, 2)) >= 1) & (Q[:, :, 0].max(axis=1) <= ww - 2) & (Q[:, :, 1].max(axis=1) <= hh - 2)
    asp, long_, skew = quad_shape(Q)
    Q = Q[inside & (long_ >= min_long)]
    Q = dedupe_quads(Q, 3.0)
    if stats is not None:
        stats["dedup"] = len(Q)
    if len(Q) == 0:
        return []
    qs = quick_support(labf, Q, tau)
    Q = Q[qs >= 0.5]
    if stats is not None:
        stats["quick"] = len(Q)
    if len(Q) == 0:
        return []
    R, _ = refine(labf, Q, reach=4.0)
    R, _ = refine(labf, R, reach=2.0)
    asp, long_, skew = quad_shape(R)
    ok = (np.abs(asp - aspect) <= 0.1 * aspect) & (long_ >= min_long) & (skew < 0.1)
    R = R[ok]
    if len(R) == 0:
        return []
    offs = np.array([-1, -0.5, 0, 0.5, 1], np.float32)
    _, _, _, st = profiles(labf, R, offs, n=32, lo=0.1, hi=0.9)
    best = st.max(axis=3)
    sup = (best >= tau).mean(axis=2).min(axis=1)
    con = np.median(best.reshape(len(R), -1), axis=1)
    keep = sup >= min_support
    outs = [Outline(_order_clockwise(r / s), float(su), float(co), "junction")
            for r, su, co in zip(R[keep], sup[keep], con[keep])]
    return _dedupe(outs)


def _dedupe(outs):
    outs = sorted(outs, key=lambda o: -o.support - o.contrast * 1e-4)
    kept = []
    for o in outs:
        size = aspect_of(o.corners)[1]
        dup = False
        for k in kept:
            d = min(np.abs(np.roll(o.corners, r, axis=0) - k.corners).max() for r in range(4))
            if d < 0.12 * size:
                dup = True
                break
        if not dup:
            kept.append(o)
    return kept


def segments(polys, lmin=16.0):
    P0, P1 = [], []
    for v in polys:
        nxt = np.roll(v, -1, axis=0)
        L = np.linalg.norm(nxt - v, axis=1)
        ok = L >= lmin
        P0.append(v[ok]); P1.append(nxt[ok])
    if not P0:
        return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
    P0, P1 = np.concatenate(P0), np.concatenate(P1)
    # drop the duplicate traced on the other side of a 1-px edge (same segment reversed)
    key = np.round(np.concatenate([np.minimum(P0, P1), np.maximum(P0, P1)], axis=1) / 3).astype(np.int64)
    _, idx = np.unique(key, axis=0, return_index=True)
    return P0[idx], P1[idx]


def pair_junctions(P0, P1, max_cos=0.34, gap_frac=0.3, gap_px=4.0):
    n = len(P0)
    if n < 2:
        z = np.zeros((0, 2), np.float32)
        return z, z, z, np.zeros(0, np.float32), np.zeros(0, np.float32)
    d = P1 - P0
    L = np.linalg.norm(d, axis=1)
    u = d / L[:, None]
    cos = np.abs(u @ u.T)
    I, Jx = np.nonzero((cos <= max_cos) & (np.triu(np.ones((n, n), bool), 1)))
    if len(I) == 0:
        z = np.zeros((0, 2), np.float32)
        return z, z, z, np.zeros(0, np.float32), np.zeros(0, np.float32)
    p, dd, q, ee = P0[I], u[I], P0[Jx], u[Jx]
    det = dd[:, 0] * (-ee[:, 1]) + ee[:, 0] * dd[:, 1]
    r = q - p
    t = (r[:, 0] * (-ee[:, 1]) + ee[:, 0] * r[:, 1]) / det   # C = p + t dd
    s = (dd[:, 0] * r[:, 1] - dd[:, 1] * r[:, 0]) / det      # C = q + s' ee ... solve
    C = p + t[:, None] * dd
    s = ((C - q) * ee).sum(1)
    Li, Lj = L[I], L[Jx]
    # position of C along each segment: t in [0, L] means inside; near an end means corner
    ti, sj = t, s
    gi, gj = gap_frac * Li + gap_px, gap_frac * Lj + gap_px
    near_i_start = (ti > -gi) & (ti < 0.25 * Li)   # corner at/before P0 end
    near_i_end = (ti < Li + gi) & (ti > 0.75 * Li)
    near_j_start = (sj > -gj) & (sj < 0.25 * Lj)
    near_j_end = (sj < Lj + gj) & (sj > 0.75 * Lj)
    ok = (near_i_start | near_i_end) & (near_j_start | near_j_end)
    ui = np.where(near_i_start[:, None], dd, -dd)   # from the corner towards the far end
    uj = np.where(near_j_start[:, None], ee, -ee)
    a = np.where(near_i_start, Li - ti, ti)
    b = np.where(near_j_start, Lj - sj, sj)
    return C[ok], ui[ok], uj[ok], a[ok], b[ok]


_find_orig = find


def find(frame, aspect=0.7, lo=40, hi=100, tau=10.0, min_support=0.8, min_long=40, stats=None, mode="pairs"):
    global junctions
    if mode == "pairs":
        saved = junctions
        def jfn(polys):
            return pair_junctions(*segments(polys))
        junctions = jfn
        try:
            return _find_orig(frame, aspect, lo, hi, tau, min_support, min_long, stats)
        finally:
            junctions = saved
    return _find_orig(frame, aspect, lo, hi, tau, min_support, min_long, stats)
