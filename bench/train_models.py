"""Fits Insane's models of how other players bid and play, from games between searching players, and writes engine/bots/models.py.

    python -m bench.train_models --hands 3000 --seed 11 --out engine/bots/models.py

Every seat is played by ``--level`` (default hard) with a fixed number of deals per
decision (no clock), so the same arguments give the same games and the same numbers.
Each bid and each card played with a choice is a record:

- bidding: per round and seat (counted from the dealer), a logistic curve of the chance
  to order (or call) against the hand's estimated tricks (``medium.bid_estimate``),
  and one curve for going alone;
- play: a conditional logit over the legal cards on ``inference.PLAY_FEATURES``, fitted
  by Newton's method with a little L2 shrinkage.

numpy does the fitting; the bots themselves read only the numbers written out.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

import numpy as np

from engine import Hand, Rules
from engine.bots import make_bot
from engine.bots.inference import (N_PLAY, PLAY_FEATURES, PlayContext, card_features,
                                   legal_mask)
from engine.bots.medium import bid_estimate
from engine.cards import SEATS, SUITS, mask_of


def _rel(seat: str, dealer: str) -> int:
    """Seat counted from the dealer's left: 1, 2 (the dealer's partner), 3, 0 (the dealer)."""
    return (SEATS.index(seat) - SEATS.index(dealer)) % 4


def bid_record(view, action) -> dict | None:
    """What the bidding model learns from one round-1 or round-2 decision."""
    rel = _rel(view.seat, view.dealer)
    up = view.upcard
    forbid = not view.rules.dealer_may_discard_upcard
    hand = {"cards": " ".join(view.cards), "upcard": str(up), "action": str(action)}
    if view.phase == "round 1":
        est = bid_estimate(view.cards, view.seat, view.dealer, up, up.suit, True, forbid)
        return {"round": 1, "rel": rel, "est": est, "bid": action.kind == "order",
                "alone": bool(action.alone), **hand}
    if view.phase == "round 2":
        if "pass" not in view.legal:
            return None      # a stuck dealer has no choice to learn from
        ests = {s: bid_estimate(view.cards, view.seat, view.dealer, up, s, False)
                for s in SUITS if s != up.suit}
        best = max(ests, key=ests.get)
        called = action.suit if action.kind == "call" else None
        return {"round": 2, "rel": rel, "est": ests[best],
                "called_est": ests[called] if called else None,
                "bid": called is not None, "alone": bool(action.alone), **hand}
    return None


def play_record(view, action) -> dict:
    """One card played with a choice: its context and the hand it was played from."""
    trick = tuple((SEATS.index(s), c.index) for s, c in view.trick)
    gone = 0 if view.dealer_took_upcard else view.upcard.bit
    for _, cards, _ in view.tricks:
        gone |= mask_of(c for _, c in cards)
    gone |= mask_of(c for _, c in view.trick)
    return {"trump": view.trump, "seat": SEATS.index(view.seat), "card": action.card.index,
            "trick": trick, "gone": gone, "maker": SEATS.index(view.maker),
            "nactive": 4 - len(view.sitting_out), "hand": mask_of(view.cards)}


def generate(hands: int, seed: int, level: str, rules: Rules, progress=None):
    """Self-play records: (bidding records, play records)."""
    bots = {s: make_bot(level, seed=seed * 7 + i, budget=None) for i, s in enumerate(SEATS)}
    bids, plays = [], []
    rng = random.Random(seed)
    t0 = time.process_time()
    for k in range(hands):
        h = Hand.deal(rules, dealer=SEATS[k % 4], rng=rng)
        while not h.is_over:
            seat = h.to_act
            view = h.view(seat)
            action = bots[seat].choose(view)
            if len(view.legal) > 1:
                if view.phase == "play":
                    plays.append(play_record(view, action))
                else:
                    r = bid_record(view, action)
                    if r is not None:
                        bids.append(r)
            h.apply(action, seat=seat)
        if progress and (k + 1) % 100 == 0:
            progress(f"{k + 1} hands, {len(bids)} bids, {len(plays)} plays, "
                     f"{time.process_time() - t0:.0f} s CPU")
    return bids, plays


def fit_logistic(x, y, l2=1e-3, iters=50):
    """(a, b) of P(y) = sigmoid(a x + b), by Newton's method."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    X = np.stack([x, np.ones_like(x)], axis=1)
    w = np.zeros(2)
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(X @ w)))
        g = X.T @ (y - p) - l2 * w
        H = -(X.T * (p * (1 - p))) @ X - l2 * np.eye(2)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return float(w[0]), float(w[1])


def fit_bidding(bids) -> dict:
    """Per (round, seat from the dealer): the threshold and width of the bidding curve
    (P = sigmoid((est - threshold) / width)), and one curve for going alone."""
    out = {}
    for rnd in (1, 2):
        for rel in range(4):
            rows = [b for b in bids if b["round"] == rnd and b["rel"] == rel]
            if len(rows) < 30 or not any(b["bid"] for b in rows) or all(b["bid"] for b in rows):
                continue
            a, b = fit_logistic([r["est"] for r in rows], [r["bid"] for r in rows])
            if a <= 0:
                continue
            out[f"{rnd}{rel}"] = (round(-b / a, 3), round(1 / a, 3), len(rows))
    made = [b for b in bids if b["bid"]]
    a, b = fit_logistic([r["called_est"] if r["round"] == 2 else r["est"] for r in made],
                        [r["alone"] for r in made])
    out["alone"] = (round(-b / a, 3), round(1 / a, 3), len(made))
    return out


def _play_matrix(rec):
    ctx = PlayContext(rec["trump"], rec["seat"], rec["card"], tuple(map(tuple, rec["trick"])),
                      rec["gone"], rec["maker"], rec["nactive"])
    legal = legal_mask(ctx, rec["hand"])
    rows, chosen = [], None
    m = legal
    while m:
        low = m & -m
        j = low.bit_length() - 1
        m ^= low
        f = np.zeros(N_PLAY)
        f[card_features(ctx, rec["hand"], legal, j)] = 1.0
        if j == rec["card"]:
            chosen = len(rows)
        rows.append(f)
    return np.array(rows), chosen


def fit_play(plays, l2=1.0, iters=30):
    """Weights of the conditional logit, and the mean log-likelihood per decision."""
    data = [_play_matrix(r) for r in plays]
    data = [(X, c) for X, c in data if c is not None and len(X) > 1]
    w = np.zeros(N_PLAY)
    for _ in range(iters):
        g = -l2 * w
        H = -l2 * np.eye(N_PLAY)
        for X, c in data:
            s = X @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            mean = p @ X
            g += X[c] - mean
            H -= (X.T * p) @ X - np.outer(mean, mean)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w, log_likelihood(w, data), data


def log_likelihood(w, data) -> tuple:
    """(mean log-likelihood per decision, share of decisions where the chosen card is
    the model's most likely one)."""
    ll, hit = 0.0, 0
    for X, c in data:
        s = X @ w
        ll += s[c] - s.max() - math.log(np.exp(s - s.max()).sum())
        hit += int(np.argmax(s) == c)
    return ll / len(data), hit / len(data)


def write_models(path, bidding, weights, meta):
    lines = [
        '"""Insane\'s fitted models of how players bid and play (written by bench/train_models.py; do not edit).',
        "",
        f"Fitted with: {meta['command']}",
        f"on {meta['hands']} hands of {meta['level']} self-play: {meta['bids']} bidding decisions, "
        f"{meta['plays']} plays with a choice;",
        f"held-out plays: mean log-likelihood {meta['heldout_ll']:.3f} per play "
        f"(uniform choice {meta['uniform_ll']:.3f}), most likely card chosen "
        f"{100 * meta['heldout_hit']:.1f}% of the time.",
        '"""',
        "",
        "# (round, seat from the dealer: 1, 2 = the dealer's partner, 3, 0 = the dealer) ->",
        "# (threshold, width) of P(bid) = sigmoid((estimated tricks - threshold) / width)",
        "BID_CURVES = {",
    ]
    for key in sorted(k for k in bidding if k != "alone"):
        t, wd, n = bidding[key]
        lines.append(f"    ({key[0]}, {key[1]}): ({t!r}, {wd!r}),   # {n} decisions")
    lines.append("}")
    t, wd, n = bidding["alone"]
    lines.append(f"ALONE_CURVE = ({t!r}, {wd!r})   # P(alone | bid), {n} bids")
    lines.append("")
    lines.append("# One weight per inference.PLAY_FEATURES entry, in that order.")
    lines.append("PLAY_WEIGHTS = (")
    for name, x in zip(PLAY_FEATURES, weights):
        lines.append(f"    {round(float(x), 4)!r},   # {name}")
    lines.append(")")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.train_models", description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=3000, help="self-play hands (default 3000)")
    p.add_argument("--seed", type=int, default=11, help="seed of the deals and bots (default 11)")
    p.add_argument("--level", default="hard", help="the level that plays every seat (default hard)")
    p.add_argument("--rules", default="standard", help="rules preset (default standard)")
    p.add_argument("--out", default=None, help="write the models module here")
    p.add_argument("--data", default=None, help="keep the records in this JSON file (or reuse it)")
    args = p.parse_args(argv)
    if args.hands < 50:
        print("train_models: --hands must be at least 50", file=sys.stderr)
        return 2
    rules = Rules.parse(args.rules)
    log = lambda m: print(m, file=sys.stderr, flush=True)
    bids = plays = None
    if args.data:
        try:
            with open(args.data) as f:
                saved = json.load(f)
            if saved["args"] == [args.hands, args.seed, args.level, args.rules]:
                bids, plays = saved["bids"], saved["plays"]
                log(f"reusing {args.data}")
        except (OSError, ValueError, KeyError):
            pass
    if bids is None:
        bids, plays = generate(args.hands, args.seed, args.level, rules, progress=log)
        if args.data:
            with open(args.data, "w") as f:
                json.dump({"args": [args.hands, args.seed, args.level, args.rules],
                           "bids": bids, "plays": plays}, f)
    bidding = fit_bidding(bids)
    # Fit the play model on 80% of the hands' plays and report the held-out 20%.
    cut = int(len(plays) * 0.8)
    w, (train_ll, train_hit), _ = fit_play(plays[:cut])
    held = [_play_matrix(r) for r in plays[cut:]]
    held = [(X, c) for X, c in held if c is not None and len(X) > 1]
    ll, hit = log_likelihood(w, held)
    uniform = sum(-math.log(len(X)) for X, _ in held) / len(held)
    w_all, _, _ = fit_play(plays)
    command = (f"python -m bench.train_models --hands {args.hands} --seed {args.seed} "
               f"--level {args.level} --rules {args.rules}")
    meta = {"command": command,
            "hands": args.hands, "level": args.level, "bids": len(bids), "plays": len(plays),
            "heldout_ll": ll, "heldout_hit": hit, "uniform_ll": uniform}
    print(json.dumps({"bidding": bidding, "train_ll": train_ll, "train_hit": train_hit,
                      "heldout_ll": ll, "heldout_hit": hit, "uniform_ll": uniform,
                      "weights": dict(zip(PLAY_FEATURES, map(float, w_all)))}, indent=1))
    if args.out:
        write_models(args.out, bidding, w_all, meta)
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
