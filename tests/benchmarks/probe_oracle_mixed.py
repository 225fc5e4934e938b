"""Probe: unary encoding's worst dataset is not always the third value or the same family (docs/reference/oracles.md §7).

The *one-group mixed family* is the pair (x, B·x', C·z) vs (x', B·x', C·z), B + C = n − 1 (B = 0: the third value;
C = 0: the same family).  Its δ (max of both directions) is computed from the counts of the eight cells (a, b, c) of
the bits at x, x', z (the other bits are i.i.d. Bern(q) noise under every input): against the base law "every report
Bern(q)³", the shuffled likelihood ratio of the first dataset is

    L_x = Π_j f(c_j) / (n·C(n−1, B)) · Σ_i f(a_i)/f(c_i) · e_B(g_j : j ≠ i),   g_j = f(b_j)/f(c_j),

f(1) = p/q, f(0) = (1−p)/(1−q), e_B the elementary symmetric polynomial (the permanent of the assignment of the
target, the B holders and the C third-value users to the n positions); L_x' has f(b_i) for f(a_i).  g takes three
values (ρ, 1, 1/ρ), so e_B(g_{−i}) depends on the counts only.  Cost: C(n+7, 7) count vectors, O(B²) each; exact
rationals (``--exact``) or floats (not certified).  It agrees with the enumeration of ``exact.shuffled.enumerate``
(tests/test_oracle_worst_structure.py checks the counterexamples in exact rationals by two routes).

    python3 tests/benchmarks/probe_oracle_mixed.py --n 6 --p 1/2 --q 1/4 --steps 40          # OUE e^{ε0} = 3
    python3 tests/benchmarks/probe_oracle_mixed.py --n 6 --p 1/2 --q 1/4 --exp-eps 23/10 --exact
    python3 tests/benchmarks/probe_oracle_mixed.py --exhaustive --n 6 --p 1/2 --q 1/4 --steps 40   # k = 4, every dataset

``--exhaustive`` enumerates every dataset at k = 4 (holders A of x, B of x', at most two third-value groups) with
``exact.shuffled.enumerate.histogram_law`` (exact rationals) and reports where the worst exceeds max(third value,
same family) and whether it ever lies outside the one-group mixed family (n = 6: 4–10 min on the shared machine).
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction


def _compositions(n: int, parts: int):
    if parts == 1:
        yield (n,)
        return
    for i in range(n + 1):
        for rest in _compositions(n - i, parts - 1):
            yield (i, *rest)


def delta_mixed(n: int, B: int, p, q, ee, *, exact: bool = True) -> tuple:
    """Both directions of (x, B·x', (n−1−B)·z) vs (x', B·x', (n−1−B)·z): O(C(n+7, 7)·B²)."""
    one = Fraction(1) if exact else 1.0
    if exact:
        p, q, ee = Fraction(p), Fraction(q), Fraction(ee)
    else:
        p, q, ee = float(Fraction(p)), float(Fraction(q)), float(Fraction(ee))
    f = {1: p / q, 0: (1 - p) / (1 - q)}
    rho = f[1] / f[0]
    cells = list(itertools.product((0, 1), repeat=3))  # (a, b, c)
    prob = {cl: math.prod((q if v else 1 - q) for v in cl) * one for cl in cells}
    norm = n * math.comb(n - 1, B)

    def gcls(b: int, c: int) -> int:  # index of g = f(b)/f(c) in (ρ, 1, 1/ρ)
        return 0 if (b, c) == (1, 0) else (2 if (b, c) == (0, 1) else 1)

    def e_b(cnt: list) -> object:
        tot = 0 * one
        for i in range(min(B, cnt[0]) + 1):
            for k in range(min(B - i, cnt[2]) + 1):
                j = B - i - k
                if j <= cnt[1]:
                    tot += math.comb(cnt[0], i) * math.comb(cnt[1], j) * math.comb(cnt[2], k) * rho ** (i - k)
        return tot

    fwd = bwd = 0 * one
    for cnt in _compositions(n, 8):
        g = [0, 0, 0]
        for cl, k in zip(cells, cnt, strict=True):
            g[gcls(cl[1], cl[2])] += k
        e = [e_b([v - (i == j) for i, v in enumerate(g)]) if g[j] else 0 * one for j in range(3)]
        lx = lx2 = 0 * one
        pc, pr = one, one * math.factorial(n)
        for (a, b, c), k in zip(cells, cnt, strict=True):
            if k:
                w = e[gcls(b, c)]
                lx += k * f[a] / f[c] * w
                lx2 += k * f[b] / f[c] * w
                pc *= f[c] ** k
                pr = pr * prob[(a, b, c)] ** k / math.factorial(k)
        lx, lx2 = lx * pc / norm, lx2 * pc / norm
        fwd += pr * max(0 * one, lx - ee * lx2)
        bwd += pr * max(0 * one, lx2 - ee * lx)
    return fwd, bwd


def _exhaustive(n: int, p: Fraction, q: Fraction, ees: list) -> None:
    from blanket.exact.shuffled.enumerate import histogram_law

    k = 4
    ys = list(itertools.product((0, 1), repeat=k))
    rows = [
        [math.prod(((p if j == u else q) if y[j] else 1 - (p if j == u else q)) for j in range(k)) for y in ys]
        for u in range(k)
    ]
    den = math.lcm(*(v.denominator for r in rows for v in r))
    irows = [[int(v * den) for v in r] for r in rows]
    scale = den**n
    datasets = []
    for a in range(n):
        for b in range(n - a):
            c = n - 1 - a - b
            for lam in [()] if c == 0 else [(c,)] + [(s, c - s) for s in range(1, c // 2 + 1)]:
                others = [0] * a + [1] * b + [2 + g for g, s in enumerate(lam) for _ in range(s)]
                laws = (histogram_law(irows, sorted([*others, 0])), histogram_law(irows, sorted([*others, 1])))
                datasets.append(((a, b, lam), laws))

    def hs(x: dict, y: dict, ee: Fraction) -> Fraction:
        u, v = ee.numerator, ee.denominator
        return Fraction(sum(max(0, v * w - u * y.get(h, 0)) for h, w in x.items()), v * scale)

    for ee in ees:
        d = {key: max(hs(x, y, ee), hs(y, x, ee)) for key, (x, y) in datasets}
        ref = max(d[(0, 0, (n - 1,))], d[(n - 1, 0, ())])
        fam = max(v for (a, b, lam), v in d.items() if len(lam) <= 1 and a * b == 0)
        worst = max(d, key=lambda key: d[key])
        if d[worst] > ref or d[worst] > fam:
            print(
                f"e^eps {ee}: worst {worst} {float(d[worst]):.6g}, max(third, same) {float(ref):.6g} "
                f"(ratio {float(d[worst] / ref):.4f}); outside the one-group mixed family: {d[worst] > fam}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--p", default="1/2", help="own-bit probability (rational text)")
    ap.add_argument("--q", required=True, help="other-bit probability (rational text)")
    ap.add_argument("--exp-eps", default=None, help="one e^ε (rational text); else a grid from 1 to p(1−q)/(q(1−p))")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--exhaustive", action="store_true")
    a = ap.parse_args()
    p, q = Fraction(a.p), Fraction(a.q)
    top = p * (1 - q) / (q * (1 - p))
    ees = [Fraction(a.exp_eps)] if a.exp_eps else [1 + (top - 1) * Fraction(s, a.steps) for s in range(a.steps)]
    t0 = time.time()
    if a.exhaustive:
        _exhaustive(a.n, p, q, ees)
    else:
        for ee in ees:
            res = [(b, max(delta_mixed(a.n, b, p, q, ee, exact=a.exact))) for b in range(a.n)]
            third, same = res[0][1], res[-1][1]
            b, best = max(res, key=lambda r: r[1])
            mark = "  <- mixed wins" if best > max(third, same) else ""
            print(
                f"e^eps {float(ee):.4f}: third {float(third):.6g} same {float(same):.6g} best B = {b} "
                f"{float(best):.6g} (ratio {float(best / max(third, same)):.4f}){mark}",
                flush=True,
            )
    print(f"{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
