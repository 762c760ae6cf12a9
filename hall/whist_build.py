"""Builds ``hall/whist_bases.json``: the base rounds of whole whist tournaments Wh(v) for the sizes a night may have.

A whist tournament Wh(v) seats v players (v = 4n or 4n+1) so that every pair partners once
and opposes twice. Every one here is developed from one *base round* over an abelian group
G = Z_n1 x Z_n2 x ... (elements coded in mixed radix: code = x1 + n1*x2 + n1*n2*x3 ...):
round g adds g to every player. With 4n+1 players G has order v and 0 sits out of the base
round; with 4n players G has order v-1 and a player "inf" stays fixed (1-rotational).

Constructions, tried in this order (each result is checked by developing it and counting
partners and opponents before it is written):

1. *ring*: v = q1*q2*... with every qi a prime power = 1 (mod 4): in the ring
   R = GF(q1) x GF(q2) x ... take w with w^2 = -1; the tables are the orbits
   {x, wx, -x, -wx} of the non-zero elements (partners x, -x). Partner differences are
   2x once each; opponent differences the orbit of (1+w)x twice, and 2 and 1+w are units.
   (Baker's finite-field construction is the case of one field; ``hall.movements`` builds
   prime powers itself, so they are not stored.)
2. *product*: v = v1*v2 (both 4n+1), or v = m1*v2 + 1 with a 1-rotational Wh(m1+1) over G1:
   the smaller tournament on the subgroup, and each table (a, b, c, d) of the other lifted
   to the tables ((a, i), (b, 2i), (c, 3i), (d, 4i)) for every i of the lifting group (or
   i, x*i, x^2*i, x^3*i with x primitive in GF(p^k)), which needs the multipliers' pairwise
   differences to be units: a group of order prime to 6, or a field of 5 or more elements.
3. *pattern*: tables (a, c, -a, -c) (and (inf, x, 0, -x)): a quick annealing over pairings
   of difference classes; possible only when the sum of the squares of the classes allows.
4. *search*: simulated annealing of the whole base round (``hall/whist_kernel.c``, compiled
   with the system's C compiler), optionally under a multiplier group M (for m = 3q with q
   prime: the table (inf, q, 0, 2q) is fixed and the others come in M-orbits), seeds
   1, 2, ... until a time budget per size is spent.

Run it (deterministic: the same sizes, seeds and budget give the same file)::

    python -m hall.whist_build                  # every size 8..161 that is missing, 600 s each
    python -m hall.whist_build --sizes 32 44 --budget 1200 --rebuild
    python -m hall.whist_build --check          # only check every stored base

Sizes no construction reached within the budget are reported and keep the greedy chart
of ``hall.movements`` (no repeated partnership, fair byes). How long it took, per size, is
stored with each base (``seconds``, CPU time of this machine's run) so the cost of
rebuilding is on record.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hall.movements import (INF, _GF, _develop, _field_base, _prime_power, check_chart)

HERE = Path(__file__).resolve().parent
OUT = HERE / "whist_bases.json"
KERNEL = HERE / "whist_kernel.c"
SIZES = [v for v in range(8, 162) if v % 4 in (0, 1)]


# ------------------------------------------------------------------ groups
class Group:
    """Z_n1 x Z_n2 x ... with elements coded in mixed radix."""

    def __init__(self, moduli):
        self.moduli = list(moduli)
        self.order = math.prod(self.moduli)

    def digits(self, x):
        out = []
        for n in self.moduli:
            out.append(x % n)
            x //= n
        return out

    def code(self, digits):
        x, mul = 0, 1
        for d, n in zip(digits, self.moduli):
            x += (d % n) * mul
            mul *= n
        return x

    def add(self, x, y):
        return self.code([a + b for a, b in zip(self.digits(x), self.digits(y))])

    def neg(self, x):
        return self.code([-a for a in self.digits(x)])

    def sub(self, x, y):
        return self.add(x, self.neg(y))

    def times(self, k, x):
        return self.code([k * a for a in self.digits(x)])


def pair_code(g1: Group, x1, g2: Group, x2):
    """The code of (x1, x2) in G1 x G2 (G1's digits first)."""
    return x1 + g1.order * x2


def verify(v: int, base: dict) -> bool:
    """True when the base develops into a whole Wh(v): every pair partners once and
    opposes twice, everyone in every round once."""
    c = check_chart(v, _develop(v, base))
    pairs = v * (v - 1) // 2
    return (c["problems"] == [] and len(c["partner"]) == pairs and set(c["partner"].values()) == {1}
            and len(c["oppose"]) == pairs and set(c["oppose"].values()) == {2})


# ------------------------------------------------------------------ 1. ring
def _prime_power_factors(v):
    out, p = [], 2
    while v > 1:
        if v % p == 0:
            q = 1
            while v % p == 0:
                v //= p
                q *= p
            out.append(q)
        p += 1
    return out


def ring(v):
    """Wh(v) over GF(q1) x GF(q2) x ... when every prime-power factor qi of v is 1 (mod 4)."""
    qs = _prime_power_factors(v)
    if len(qs) < 2 or any(q % 4 != 1 for q in qs):
        return None
    fields = [_GF(*_prime_power(q)) for q in qs]
    moduli = [f.p for f in fields for _ in range(f.k)]
    omega = [f.pow(f.primitive(), (f.q - 1) // 4) for f in fields]

    def split(x):            # code -> one element per field
        out = []
        for f in fields:
            out.append(x % f.q)
            x //= f.q
        return out

    def join(parts):
        x, mul = 0, 1
        for f, a in zip(fields, parts):
            x += a * mul
            mul *= f.q
        return x

    def mul_w(x):
        return join([f.mul(w, a) for f, w, a in zip(fields, omega, split(x))])

    def neg(x):
        return join([f.neg(a) for f, a in zip(fields, split(x))])

    seen, tables = {0}, []
    for x in range(1, v):
        if x in seen:
            continue
        wx = mul_w(x)
        tab = [x, wx, neg(x), neg(wx)]
        seen.update(tab)
        tables.append(tab)
    return {"moduli": moduli, "tables": tables, "how": "ring " + " x ".join(f"GF({q})" for q in qs)}


# ------------------------------------------------------------------ 2. products
def lift_multipliers(g: Group):
    """Four maps i -> c*i of G whose pairwise differences are bijections (a difference
    matrix with four rows), or None."""
    if all(math.gcd(n, 6) == 1 for n in g.moduli):
        return [lambda i, k=k: g.times(k, i) for k in (1, 2, 3, 4)]
    p = g.moduli[0]
    if all(n == p for n in g.moduli) and _prime_power(p) == (p, 1) and g.order >= 5:
        f = _GF(p, len(g.moduli))
        x = f.primitive()
        cs = [f.pow(x, j) for j in range(4)]
        return [lambda i, c=c: f.mul(c, i) for c in cs]   # GF codes = the group's codes
    return None


def _tables_codes(base):
    return [[INF if x == INF or x == -1 else x for x in t] for t in base["tables"]]


def product_regular(v1, b1, v2, b2):
    """Wh(v1*v2) over G1 x G2 from regular Wh(v1) over G1 and Wh(v2) over G2 (G2 liftable)."""
    g1, g2 = Group(b1["moduli"]), Group(b2["moduli"])
    lift = lift_multipliers(g2)
    if lift is None:
        return None
    tables = [[pair_code(g1, 0, g2, x) for x in t] for t in b2["tables"]]
    for t in b1["tables"]:
        for i in range(g2.order):
            tables.append([pair_code(g1, a, g2, lift[k](i)) for k, a in enumerate(t)])
    return {"moduli": g1.moduli + g2.moduli, "tables": tables,
            "how": f"product Wh({v1}) x Wh({v2})"}


def product_rotational(v1, b1, v2, b2):
    """Wh((v1-1)*v2 + 1) over G1 x G2 from a 1-rotational Wh(v1) over G1 (G1 liftable) and
    a regular Wh(v2) over G2."""
    g1, g2 = Group(b1["moduli"]), Group(b2["moduli"])
    lift = lift_multipliers(g1)
    if lift is None:
        return None
    tables = [[INF if x == INF else pair_code(g1, x, g2, 0) for x in t]
              for t in _tables_codes(b1)]
    for t in b2["tables"]:
        for i in range(g1.order):
            tables.append([pair_code(g1, lift[k](i), g2, a) for k, a in enumerate(t)])
    return {"moduli": g1.moduli + g2.moduli, "tables": tables,
            "how": f"product Wh({v1}) x Wh({v2})"}


def products(v, known, regroup=None):
    """Every product construction of v from the bases known so far. ``regroup(v1, moduli)``
    may find an ingredient again over another group (Z_p^k for a field's lifting)."""
    out = []
    if v % 4 == 1:
        for v2 in range(5, v // 5 + 1):
            if v % v2 == 0 and v2 % 4 == 1 and (v // v2) % 4 == 1:
                v1 = v // v2
                for a, b in ((v1, v2), (v2, v1)):
                    if a in known and b in known:
                        out.append(lambda a=a, b=b: product_regular(a, known[a], b, known[b]))
    else:
        m = v - 1
        for m1 in range(3, m // 5 + 1):
            if m % m1 == 0 and m1 % 4 == 3 and (m // m1) % 4 == 1:
                v1, v2 = m1 + 1, m // m1
                if v1 in known and v2 in known:
                    out.append(lambda v1=v1, v2=v2: product_rotational(v1, known[v1], v2, known[v2]))
                pk = _prime_power(m1)
                if v2 in known and regroup and pk and pk[1] > 1:
                    def again(v1=v1, v2=v2, pk=pk):
                        b1 = regroup(v1, [pk[0]] * pk[1])
                        return b1 and product_rotational(v1, b1, v2, known[v2])
                    out.append(again)
    return out


# ------------------------------------------------------------------ 3. pattern
def pattern(v, steps=400_000, seeds=(1, 2, 3)):
    """Tables (a, c, -a, -c) over Z_m (and (inf, x, 0, -x) for 4n): a pairing of the
    difference classes whose sums and differences cover every class once."""
    inf = v % 4 == 0
    m = v - 1 if inf else v
    h = (m - 1) // 2
    S = sum(d * d for d in range(1, h + 1)) % m
    # sum of (a+c)^2 + (a-c)^2 = 2(a^2 + c^2): the classes' squares must allow it
    xs = [x for x in range(1, h + 1) if (x * x) % m == S] if inf else ([None] if S == 0 else [])
    if not xs:
        return None

    def cls(x):
        x %= m
        return min(x, m - x)

    for seed in seeds:
        rng = random.Random(seed)
        classes = list(range(1, h + 1))
        x = rng.choice(xs) if inf else None
        if inf:
            classes.remove(x)
        rng.shuffle(classes)
        pairs = [classes[2 * i:2 * i + 2] for i in range(len(classes) // 2)]
        cnt = [0] * (h + 1)
        if inf:
            cnt[x] += 1
        for a, c in pairs:
            cnt[cls(a + c)] += 1
            cnt[cls(a - c)] += 1
        cur = sum(abs(k - 1) for k in cnt[1:])
        for _ in range(steps):
            if cur == 0:
                break
            i, j = rng.randrange(len(pairs)), rng.randrange(len(pairs))
            if i == j:
                continue
            (a, c), (b, d) = pairs[i], pairs[j]
            n1, n2 = ([a, b], [c, d]) if rng.random() < 0.5 else ([a, d], [b, c])
            ch = {}
            for p, s in ((pairs[i], -1), (pairs[j], -1), (n1, 1), (n2, 1)):
                for e in (cls(p[0] + p[1]), cls(p[0] - p[1])):
                    ch[e] = ch.get(e, 0) + s
            dd = sum(abs(cnt[e] + s - 1) - abs(cnt[e] - 1) for e, s in ch.items())
            if dd <= 0 or rng.random() < math.exp(-dd / 0.5):
                for e, s in ch.items():
                    cnt[e] += s
                cur += dd
                pairs[i], pairs[j] = n1, n2
        if cur == 0:
            tables = [[a % m, c % m, (-a) % m, (-c) % m] for a, c in pairs]
            if inf:
                tables.insert(0, [INF, x, 0, m - x])
            return {"moduli": [m], "tables": tables, "how": "pattern (a, c, -a, -c)"}
    return None


# ------------------------------------------------------------------ 4. search
def _kernel_binary(workdir):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("whist_build: the search needs a C compiler (cc); install gcc")
    exe = os.path.join(workdir, "whist_kernel")
    subprocess.run([cc, "-O2", "-o", exe, str(KERNEL), "-lm"], check=True)
    return exe


def multiplier_for(v):
    """For 4n players with m = v-1 = 3q, q prime: (mu, r), mu = 1 (mod 3) of odd order r > 1
    mod q with 3(q-1)/r a multiple of 4; else None."""
    if v % 4 or (v - 1) % 3:
        return None
    m, q = v - 1, (v - 1) // 3
    if q < 5 or _prime_power(q) != (q, 1):
        return None
    g = _GF(q, 1).primitive()
    for r in sorted((d for d in range(3, q) if (q - 1) % d == 0 and d % 2 == 1), reverse=True):
        if (3 * (q - 1) // r) % 4 == 0:
            a = pow(g, (q - 1) // r, q)
            mu = next(x for x in range(m) if x % 3 == 1 and x % q == a)
            return mu, r
    return None


def problem(v, moduli, mult=None):
    """The kernel's problem file text and a decoder from its answer to a base."""
    g = Group(moduli)
    inf = v % 4 == 0
    m = g.order
    ncode = m + (1 if inf else 0)
    INFC = m
    fixed_tables = []
    if mult:
        mu, r = mult
        q = m // 3
        fixed_tables = [[INFC, q, 0, 2 * q]]
        free = [x for x in range(m) if x not in (0, q, 2 * q)]
        orbit = {}
        for x in free:
            o, y = [], x
            for _ in range(r):
                o.append(y)
                y = (y * mu) % m
            orbit[x] = o
    else:
        free = list(range(m)) + [INFC] if inf else list(range(1, m))
        orbit = {x: [x] for x in free}
    # classes: {d, -d}, merged over the multiplier's orbits
    cid, ncls = {0: 0}, 0
    for d in range(1, m):
        if d in cid:
            continue
        ncls += 1
        group = {d, g.neg(d)}
        if mult:
            y = d
            for _ in range(mult[1]):
                y = (y * mult[0]) % m
                group |= {y, g.neg(y)}
        for e in group:
            cid[e] = ncls
    C = [0] * (ncode * ncode)
    for x in range(m):
        for y in range(m):
            if x != y:
                C[x * ncode + y] = cid[g.sub(x, y)]
    PT, OT = [0] + [1] * ncls, [0] + [2] * ncls
    for t in fixed_tables:       # their differences are already in place
        for (i, j), T in (((0, 2), PT), ((1, 3), PT), ((0, 1), OT), ((0, 3), OT), ((2, 1), OT), ((2, 3), OT)):
            if t[i] != INFC and t[j] != INFC:
                T[C[t[i] * ncode + t[j]]] -= 1
    if any(x < 0 for x in PT + OT):
        return None, None
    reps, seen = [], set()
    for x in free:
        if x not in seen:
            seen.update(orbit[x])
            reps.append(x)
    if len(reps) % 4:
        return None, None
    lines = [f"{len(reps)} {ncode} {ncls}", " ".join(map(str, PT)), " ".join(map(str, OT)),
             " ".join(map(str, reps))]
    for x in range(ncode):
        o = orbit.get(x, [])
        lines.append(" ".join(map(str, [len(o)] + o)))
    for x in range(ncode):
        lines.append(" ".join(map(str, C[x * ncode:(x + 1) * ncode])))

    def decode(codes):
        tables = [list(t) for t in fixed_tables]
        for k in range(0, len(codes), 4):
            t = codes[k:k + 4]
            if mult:
                for j in range(mult[1]):
                    f = pow(mult[0], j, m)
                    tables.append([(x * f) % m for x in t])
            else:
                tables.append(t)
        return [[INF if x == INFC else x for x in t] for t in tables]

    return "\n".join(lines) + "\n", decode


def search(v, exe, workdir, budget, moduli=None, mult=None, T=0.5, steps=200_000_000):
    """Annealing runs with seeds 1, 2, ... until one finds a base or ``budget`` CPU
    seconds are spent."""
    moduli = moduli or [v - 1 if v % 4 == 0 else v]
    text, decode = problem(v, moduli, mult)
    if text is None:
        return None
    path = os.path.join(workdir, f"p{v}.txt")
    Path(path).write_text(text)
    spent, seed = 0.0, 0
    while spent < budget:
        seed += 1
        before = os.times()
        try:
            res = subprocess.run([exe, path, str(steps), str(T), str(seed)], capture_output=True,
                                 text=True, timeout=max(30.0, 3 * (budget - spent)))
            out = res.stdout.split()
        except subprocess.TimeoutExpired:
            out = []
        after = os.times()
        spent += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        if out and out[0] == "FOUND":
            how = "search" + (f" (multiplier {mult[0]} of order {mult[1]})" if mult else "")
            return {"moduli": moduli, "tables": decode(list(map(int, out[2:]))),
                    "how": f"{how}, seed {seed}"}
    return None


# ------------------------------------------------------------------ driver
def _field_known(v):
    b = _field_base(v)
    p, k = b["group"]
    return {"moduli": [p] * k, "tables": b["tables"], "how": "field"}


def load():
    if not OUT.exists():
        return {}
    return {int(k): b for k, b in json.loads(OUT.read_text()).items()}


def save(bases):
    text = json.dumps({str(v): bases[v] for v in sorted(bases)}, separators=(",", ":"))
    OUT.write_text(text.replace('},"', '},\n"') + "\n")


def build(sizes, budget, rebuild=False, log=print):
    stored = load()
    known = {}     # every base usable as an ingredient: stored ones and prime powers
    for v in SIZES:
        if v % 4 == 1 and _prime_power(v):
            known[v] = _field_known(v)
    known[5] = _field_known(5)
    for v, b in stored.items():
        known.setdefault(v, b)
    workdir = tempfile.mkdtemp(prefix="whist-")
    exe = None
    missing = []
    try:
        for v in sorted(sizes):
            if v % 4 == 1 and _prime_power(v):
                continue                       # built by hall.movements itself
            if v in stored and not rebuild:
                continue
            t0 = time.process_time()
            c0 = os.times()
            found = None
            def regroup(v1, moduli):
                nonlocal exe
                exe = exe or _kernel_binary(workdir)
                b1 = search(v1, exe, workdir, budget / 4, moduli=moduli)
                return b1 if b1 and verify(v1, b1) else None

            attempts = [lambda v=v: ring(v)] + products(v, known, regroup) + [lambda v=v: pattern(v)]
            for attempt in attempts:
                b = attempt()
                if b is not None and verify(v, b):
                    found = b
                    break
            if found is None:
                if exe is None:
                    exe = _kernel_binary(workdir)
                mult = multiplier_for(v)
                if mult:
                    found = search(v, exe, workdir, budget / 2, mult=mult)
                if found is None:
                    found = search(v, exe, workdir, budget if not mult else budget / 2)
                if found is not None and not verify(v, found):
                    raise SystemExit(f"whist_build: the search's base for {v} does not check")
            c1 = os.times()
            secs = (time.process_time() - t0) + (c1.children_user - c0.children_user)
            if found is None:
                missing.append(v)
                log(f"{v:4d}: not found within {budget:.0f} s")
                continue
            found["seconds"] = round(secs, 1)
            stored[v] = known[v] = found
            save(stored)
            log(f"{v:4d}: {found['how']} ({secs:.1f} s)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return missing


def check_all(log=print):
    bad = [v for v, b in sorted(load().items()) if not verify(v, b)]
    for v in bad:
        log(f"{v}: the stored base does not give a whole whist tournament")
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hall.whist_build", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", help="player counts (default: every 4n, 4n+1 from 8 to 161)")
    ap.add_argument("--budget", type=float, default=600.0, help="CPU seconds of search per size")
    ap.add_argument("--rebuild", action="store_true", help="build sizes already stored again")
    ap.add_argument("--check", action="store_true", help="only check the stored bases")
    a = ap.parse_args(argv)
    if a.check:
        return 1 if check_all() else 0
    sizes = a.sizes or SIZES
    wrong = [v for v in sizes if v % 4 not in (0, 1) or not 8 <= v <= 163]
    if wrong:
        print(f"whist_build: {wrong[0]} players has no whist tournament (use 4n or 4n+1, 8 to 161)",
              file=sys.stderr)
        return 2
    missing = build(sizes, a.budget, a.rebuild)
    if missing:
        print("not found:", " ".join(map(str, missing)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
