"""Probe: is unary encoding's δ below the linear interpolation of its vertex datasets? (docs/reference/oracles.md §8)

Conjecture S ("route 2"): for every dataset D with A holders of x, B of x' and C third-value users (any groups),

    δ_D(ε) ≤ ((A + B)·δ_same(ε) + C·δ_third(ε)) / (n − 1),

i.e. the largest function convex in the others' summed law S with the vertex values (the linear one, §8) is an upper
bound.  It would give sup_D δ_D = max(δ_third, δ_same).  This probe computes the ratio δ_D / linear(D) for every
dataset at k = 4 (holders of x and x', at most two third-value groups) in exact rationals
(``exact.shuffled.enumerate.histogram_law``) and prints its maximum over the non-vertex datasets per e^ε.
Cost: O(#datasets · C(n + 15, 15)) (n = 6: a few minutes on the shared machine).  Evidence only, not certified use.

    python3 tests/benchmarks/probe_oracle_linear.py --n 5 --p 1/2 --q 1/4 --steps 20     # OUE e^{ε0} = 3
    python3 tests/benchmarks/probe_oracle_linear.py --n 5 --p 2/3 --q 1/3 --steps 20     # SUE e^{ε0/2} = 2
"""

from __future__ import annotations

import argparse
import itertools
import math
from fractions import Fraction


def dataset_laws(n: int, p: Fraction, q: Fraction) -> tuple[dict, int]:
    """{(A, B, λ): (law with target x, law with target x')} over every dataset at k = 4, and the common scale."""
    from blanket.exact.shuffled.enumerate import histogram_law

    k = 4
    ys = list(itertools.product((0, 1), repeat=k))
    rows = [
        [math.prod(((p if j == u else q) if y[j] else 1 - (p if j == u else q)) for j in range(k)) for y in ys]
        for u in range(k)
    ]
    den = math.lcm(*(v.denominator for r in rows for v in r))
    irows = [[int(v * den) for v in r] for r in rows]
    out = {}
    for a in range(n):
        for b in range(n - a):
            c = n - 1 - a - b
            for lam in [()] if c == 0 else [(c,)] + [(s, c - s) for s in range(1, c // 2 + 1)]:
                others = [0] * a + [1] * b + [2 + g for g, s in enumerate(lam) for _ in range(s)]
                out[(a, b, lam)] = (histogram_law(irows, [*others, 0]), histogram_law(irows, [*others, 1]))
    return out, den**n


def ratios(n: int, p: Fraction, q: Fraction, ees: list) -> list:
    """[(e^ε, max ratio δ_D / linear(D) over non-vertex datasets, its dataset, δ_third, δ_same)]."""
    laws, scale = dataset_laws(n, p, q)

    def hs(x: dict, y: dict, ee: Fraction) -> Fraction:
        u, v = ee.numerator, ee.denominator
        return Fraction(sum(max(0, v * w - u * y.get(h, 0)) for h, w in x.items()), v * scale)

    rows = []
    for ee in ees:
        d = {key: max(hs(x, y, ee), hs(y, x, ee)) for key, (x, y) in laws.items()}
        third, same = d[(0, 0, (n - 1,))], d[(n - 1, 0, ())]
        best = None
        for (a, b, lam), v in d.items():
            if (a + b == n - 1) or (a + b == 0 and len(lam) == 1):
                continue
            lin = ((a + b) * same + (n - 1 - a - b) * third) / (n - 1)
            r = v / lin
            if best is None or r > best[0]:
                best = (r, (a, b, lam))
        rows.append((ee, best[0], best[1], third, same))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=5)
    ap.add_argument("--p", default="1/2")
    ap.add_argument("--q", default="1/4")
    ap.add_argument("--steps", type=int, default=20, help="e^ε = 1 + i/steps·(e^{ε0} − 1), i < steps")
    a = ap.parse_args()
    p, q = Fraction(a.p), Fraction(a.q)
    top = (p * (1 - q)) / (q * (1 - p))
    ees = [1 + Fraction(i, a.steps) * (top - 1) for i in range(a.steps)]
    for ee, r, at, third, same in ratios(a.n, p, q, ees):
        flag = "  VIOLATED" if r > 1 else ""
        print(
            f"e^eps {float(ee):.4f}: max δ_D/linear {float(r):.4f} at {at}; third {float(third):.4g} same {float(same):.4g}{flag}"
        )


if __name__ == "__main__":
    main()
