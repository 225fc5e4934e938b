"""Probe (floats, not certified): the two partial revealings of docs/reference/oracles.md §6 at moderate n.

For unary encoding (own bit p, other bits q, mark probability t = (p − q)/(1 − q)) and the datasets
"target + B holders of x' + C users on one third value" (A = 0, one group: Conjecture M, uncertain), prints

    b1 = E_{m ~ Bin(B, 1−t)} δ(target + m pure draws + C on z)     (the holders' marks revealed)
    b2 = E_{m ~ Bin(C, 1−t)} δ(target + B on x' + m pure draws)    (the third-value users' marks revealed)

and max_B min(b1, b2) against the third-value dataset, the same family and "every mark revealed" (γ = 1 − t).
Each δ is exact up to float rounding: the shuffled likelihood ratio is X/X' with X = E_1 Σ_{c=1} f(a) + E_0 Σ_{c=0} f(a)
(E_c an elementary symmetric polynomial of the informative column's f-values), and given that column's counts and the
target's bits the counts of a (and b) are independent binomials.  Cost O(n³ log n) per dataset, O(n²) datasets
(B on a grid, m on 6-sd windows).  Agrees with the exact rationals of tests/test_oracle_worst_structure.py's
enumeration at n = 4 … 6.

    python3 tests/benchmarks/probe_oracle_reveal.py --n 40 --p 0.5 --q 0.25 --exp-eps 1.25 --step 3
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.stats import binom


def _pmf(n: int, s: float) -> np.ndarray:
    return binom.pmf(np.arange(n + 1), n, s)


def _hs(xv: np.ndarray, xp: np.ndarray, yv: np.ndarray, yp: np.ndarray, ee: float) -> float:
    """Σ_{x,y} P(x) P(y) (1 − ee·y/x)_+ (x > 0), by one sort and suffix sums: O((|x| + |y|) log |x|)."""
    o = np.argsort(xv)
    xv, xp = xv[o], xp[o]
    s0 = np.concatenate([np.cumsum(xp[::-1])[::-1], [0.0]])
    s1 = np.concatenate([np.cumsum((xp / xv)[::-1])[::-1], [0.0]])
    thr = ee * yv
    i = np.searchsorted(xv, thr, side="right")
    return float(np.sum(yp * (s0[i] - thr * s1[i])))


def _esym(f1: float, k1: int, f0: float, k0: int, c: int) -> float:
    """e_c of the multiset {f1 × k1, f0 × k0}: O(c)."""
    return sum(
        math.comb(k1, i) * f1**i * math.comb(k0, c - i) * f0 ** (c - i) for i in range(max(0, c - k0), min(k1, c) + 1)
    )


def _weights(n: int, n1: int, c: int, f1: float, f0: float) -> tuple[float, float]:
    e1 = _esym(f1, n1 - 1, f0, n - n1, c) if n1 >= 1 else 0.0
    e0 = _esym(f1, n1, f0, n - 1 - n1, c) if n - n1 >= 1 else 0.0
    return e1, e0


def _x(e1: float, e0: float, n1: int, n: int, s1: np.ndarray, s0: np.ndarray, f1: float, f0: float) -> np.ndarray:
    return (
        e1 * (s1[:, None] * f1 + (n1 - s1[:, None]) * f0) + e0 * (s0[None, :] * f1 + (n - n1 - s0[None, :]) * f0)
    ).ravel()


def delta_third(n: int, m: int, c: int, p: float, q: float, ee: float) -> float:
    """δ of target + m pure draws + c users on one third value (n = 1 + m + c reports; both directions equal)."""
    f1, f0 = p / q, (1 - p) / (1 - q)
    tot = 0.0
    for ct, pc in ((1, q), (0, 1 - q)):
        for k, pk in enumerate(np.convolve(_pmf(c, p), _pmf(m, q))):
            if pk < 1e-300:
                continue
            n1 = k + ct
            e1, e0 = _weights(n, n1, c, f1, f0)
            bv1, bv0 = np.arange(n1 + 1), np.arange(n - n1 + 1)
            y = _x(e1, e0, n1, n, bv1, bv0, f1, f0)
            py = (_pmf(n1, q)[:, None] * _pmf(n - n1, q)[None, :]).ravel()
            for at, pa in ((1, p), (0, 1 - p)):
                a1 = np.arange(n1 - ct + 1) + (at if ct == 1 else 0)
                a0 = np.arange(n - n1 - (1 - ct) + 1) + (at if ct == 0 else 0)
                px = (_pmf(n1 - ct, q)[:, None] * _pmf(n - n1 - (1 - ct), q)[None, :]).ravel()
                tot += pc * pk * pa * _hs(_x(e1, e0, n1, n, a1, a0, f1, f0), px, y, py, ee)
    return tot


def delta_holders(n: int, b: int, m: int, p: float, q: float, ee: float) -> float:
    """δ of target + b holders of x' + m pure draws (n = 1 + b + m reports), the larger direction."""
    f1, f0 = p / q, (1 - p) / (1 - q)
    out = []
    for fwd in (True, False):
        pa_t, pb_t = (p, q) if fwd else (q, p)
        tot = 0.0
        for bt, pbt in ((1, pb_t), (0, 1 - pb_t)):
            for k, pk in enumerate(np.convolve(_pmf(b, p), _pmf(m, q))):
                if pk < 1e-300:
                    continue
                nb = k + bt
                e1, e0 = _weights(n, nb, b, f1, f0)
                yc = e1 * nb * f1 + e0 * (n - nb) * f0
                for at, pa in ((1, pa_t), (0, 1 - pa_t)):
                    a1 = np.arange(nb - bt + 1) + (at if bt == 1 else 0)
                    a0 = np.arange(n - nb - (1 - bt) + 1) + (at if bt == 0 else 0)
                    x = _x(e1, e0, nb, n, a1, a0, f1, f0)
                    px = (_pmf(nb - bt, q)[:, None] * _pmf(n - nb - (1 - bt), q)[None, :]).ravel()
                    if fwd:
                        tot += pbt * pk * pa * _hs(x, px, np.array([yc]), np.array([1.0]), ee)
                    else:
                        tot += pbt * pk * pa * float(np.sum(px * np.clip(1 - ee * x / yc, 0, None)))
        out.append(tot)
    return max(out)


def probe(n: int, p: float, q: float, ee: float, step: int) -> dict:
    t = (p - q) / (1 - q)
    d1: dict = {}
    d2: dict = {}

    def g1(m: int, c: int) -> float:
        if (m, c) not in d1:
            d1[m, c] = delta_third(1 + m + c, m, c, p, q, ee)
        return d1[m, c]

    def g2(b: int, m: int) -> float:
        if (b, m) not in d2:
            d2[b, m] = delta_holders(1 + b + m, b, m, p, q, ee)
        return d2[b, m]

    def win(N: int) -> range:
        mu, sd = N * (1 - t), math.sqrt(N * t * (1 - t)) + 1
        return range(max(0, int(mu - 6 * sd)), min(N, int(mu + 6 * sd)) + 1)

    rows = []
    for b in range(0, n, step):
        c = n - 1 - b
        b1 = sum(binom.pmf(m, b, 1 - t) * g1(m, c) for m in win(b))
        b2 = sum(binom.pmf(m, c, 1 - t) * g2(b, m) for m in win(c))
        rows.append((min(b1, b2), b))
    best = max(rows)
    every = sum(binom.pmf(m, n - 1, 1 - t) * g1(m, 0) for m in win(n - 1))
    third, same = g1(0, n - 1), g2(n - 1, 0)
    closed = (every - best[0]) / (every - max(third, same))
    return {
        "third": third,
        "same": same,
        "min_b1_b2": best[0],
        "at_B": best[1],
        "all_revealed": every,
        "closed": closed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--q", type=float, default=0.25)
    ap.add_argument("--exp-eps", type=float, default=1.25)
    ap.add_argument("--step", type=int, default=2, help="grid step in B (holders of x')")
    a = ap.parse_args()
    t0 = time.time()
    r = probe(a.n, a.p, a.q, a.exp_eps, a.step)
    print(
        f"n={a.n} p={a.p} q={a.q:.4f} e^eps={a.exp_eps}: third {r['third']:.6g}  same {r['same']:.6g}  "
        f"max_B min(b1,b2) {r['min_b1_b2']:.6g} (B={r['at_B']})  all revealed {r['all_revealed']:.6g}  "
        f"gap closed {r['closed']:.3f}  [{time.time() - t0:.0f} s]"
    )


if __name__ == "__main__":
    main()
