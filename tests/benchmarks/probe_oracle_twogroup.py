"""Probe: Conjecture M (δ form, no holders) for two third-value groups at moderate n (docs/reference/oracles.md §8).

δ of (x, λ1·z1, λ2·z2) vs (x', λ1·z1, λ2·z2), λ1 + λ2 = n − 1, for unary encoding, against the base law "every report
Bern(q) on the four columns x, x', z1, z2" (the other bits are noise under every input).  By Lemma U the likelihood
ratio is L_x = (1/n) Σ_i f(a_i) R_i(ζ) with R_i(ζ) = P(ζ | target i)/P_0(ζ) = [X^{λ1}] Π_{j≠i} (g(c¹_j) X + g(c²_j))
/ C(n−1, λ1) (g = f: f(1) = p/q, f(0) = (1−p)/(1−q)), which depends only on the type (c¹_i, c²_i) of row i and the
counts N of the four row types.  Given N, X = Σ_t w_t (N_t f(0) + A_t (f(1) − f(0))) with A_t ~ Bin(N_t, q) and X' an
independent copy, and δ = Σ_N P_0(N) E[(X − e^ε X')_+] (both directions are equal: a, b exchangeable).
λ1 = n − 1 is the merged dataset (the third value).  Floats, not certified: evidence only.
Cost: O(n³) type-count vectors, each O(n²) for the polynomials and O(S log S) for E[(X − cX')_+], S ≤ (n/4 + 1)⁴.

    python3 tests/benchmarks/probe_oracle_twogroup.py --n 20 --p 1/2 --q 0.11920292202211755 --exp-eps 1.5,2
    python3 tests/benchmarks/probe_oracle_twogroup.py --check      # against the exact enumeration, n = 4
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction

import numpy as np


def delta_two(n: int, l1: int, p: float, q: float, ee: float) -> float:
    """δ of the dataset with λ1 = l1 holders of z1 and n − 1 − l1 of z2 (floats)."""
    g = {1: p / q, 0: (1 - p) / (1 - q)}
    types = [(0, 0), (0, 1), (1, 0), (1, 1)]
    pt = [(q if a else 1 - q) * (q if b else 1 - q) for a, b in types]
    cnorm = math.comb(n - 1, l1)
    blaw = {m: np.array([math.comb(m, i) * q**i * (1 - q) ** (m - i) for i in range(m + 1)]) for m in range(n + 1)}
    total = 0.0
    for head in itertools.product(range(n + 1), repeat=3):
        if sum(head) > n:
            continue
        cnt = (*head, n - sum(head))
        p_n = math.factorial(n) * math.prod(pt[t] ** cnt[t] / math.factorial(cnt[t]) for t in range(4))
        w = []
        for t in range(4):
            if cnt[t] == 0:
                w.append(0.0)
                continue
            poly = np.array([1.0])
            for t2, (a, b) in enumerate(types):
                for _ in range(cnt[t2] - (t2 == t)):
                    poly = np.convolve(poly, np.array([g[b], g[a]]))  # label 2: g(c²); label 1 (power of X): g(c¹)
            w.append(poly[l1] / cnorm / n)
        vals, probs = np.array([0.0]), np.array([1.0])
        for t in range(4):
            if cnt[t]:
                v = w[t] * (cnt[t] * g[0] + np.arange(cnt[t] + 1) * (g[1] - g[0]))
                vals = (vals[:, None] + v[None, :]).ravel()
                probs = (probs[:, None] * blaw[cnt[t]][None, :]).ravel()
        order = np.argsort(vals)
        vs, ps = vals[order], probs[order]
        t1 = np.cumsum((ps * vs)[::-1])[::-1]
        t0 = np.cumsum(ps[::-1])[::-1]
        idx = np.searchsorted(vs, ee * vs, side="right")
        j = np.minimum(idx, len(vs) - 1)
        inner = np.where(idx < len(vs), t1[j] - ee * vs * t0[j], 0.0)
        total += p_n * float(np.dot(ps, inner))
    return total


def _check() -> None:
    from blanket.exact.mechanisms.oracles import OUE
    from blanket.exact.shuffled.enumerate import delta_dataset
    from flint import fmpq

    mech = OUE(4, exp_epsilon0=3)
    for ee in (fmpq(3, 2), fmpq(2)):
        for others, l1 in (([2, 2, 2], 3), ([2, 2, 3], 2)):
            exact = float(delta_dataset(mech.matrix(), others, 0, 1, exp_epsilon=ee))
            here = delta_two(4, l1, 0.5, 0.25, float(ee.p) / float(ee.q))
            print(f"e^eps {ee} others {others}: exact {exact:.12g} probe {here:.12g}")
            assert abs(here - exact) <= 1e-12 * exact


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--p", default="1/2")
    ap.add_argument("--q", default="1/4")
    ap.add_argument("--exp-eps", default="1.5,2")
    ap.add_argument("--l1", default="", help="comma-separated λ1 values (default: n − 1 down to (n − 1)/2)")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.check:
        _check()
        return
    p, q = float(Fraction(a.p)), float(Fraction(a.q))
    for ee in (float(Fraction(x)) for x in a.exp_eps.split(",")):
        t = time.time()
        l1s = [int(x) for x in a.l1.split(",")] if a.l1 else list(range(a.n - 1, (a.n - 1) // 2 - 1, -1))
        d = [delta_two(a.n, l1, p, q, ee) for l1 in [a.n - 1, *(x for x in l1s if x != a.n - 1)]]
        ratios = " ".join(f"{x / d[0]:.4f}" for x in d)
        print(
            f"e^eps {ee}: merged {d[0]:.6e}; split/merged for λ1 = n−1 and {a.l1 or 'n−2, …'}: {ratios} ({time.time() - t:.0f} s)"
        )


if __name__ == "__main__":
    main()
