"""The matrix randomizer's certified bracket at any n: one round and T rounds (issue 25, task matrix9).

The 3 × 3 matrix of ``examples/matrix_3x3.csv``, δ = 10⁻⁶.  One round: the upper end is the smallest ε whose matrix
blanket view (three atoms, and four up to ``curve_pairs.MATRIX_FOUR_MAX_N`` users) meets δ
(:func:`blanket.exact.numbers.calibrate.validated_search` on the view's exact upper end), the lower end the binarized
concrete-dataset pair's certified ε (:func:`blanket.exact.accounting.matrix_lower.lower_epsilon`).  T rounds:
:class:`blanket.exact.accounting.accountant.ShuffleAccountant` (upper from the matrix's curve pair, lower from the
binarized pairs, composed and summed).  Prints a markdown table: n, T, lower, upper, upper/lower, seconds.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_matrix_lower.py [--quick]`` (``--quick``: n ≤ 10⁴, one round and
T = 365 at n ≤ 10³).
"""

from __future__ import annotations

import sys
import time

from blanket.exact.accounting import curve_pairs, matrix_lower
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import validated_search
from blanket.exact.shuffled import matrix_view
from flint import fmpq

M3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]]
DELTA = fmpq(1, 10**6)


def one_round(m: FiniteRandomizer, n: int) -> tuple:
    sizes = [3, 4] if n <= curve_pairs.MATRIX_FOUR_MAX_N else [3]

    def up(eps: fmpq) -> fmpq:
        vals = []
        for a in sizes:
            eng = None if a == 3 or n <= curve_pairs.MATRIX_GRID_MAX_N else "1d"
            v = matrix_view.matrix_blanket_view(m, n, atoms=a, engine=eng, epsilon=eps)
            hi = v if isinstance(v, fmpq) else arith.exact(arith.endpoints(arith.ball(v))[1])
            vals.append(hi)
        return min(vals)

    e0 = arith.exact(arith.endpoints(arith.ball(m.exp_epsilon0()).log())[1])
    br = validated_search(up, DELTA, fmpq(0), e0, meets_high=True, rel_tol=fmpq(1, 1000))
    lo, _ = matrix_lower.lower_epsilon(m, n, DELTA)
    return lo, br.upper


def composed(m: FiniteRandomizer, n: int, T: int) -> tuple:
    acc = ShuffleAccountant()
    acc.compose(Shuffled(m, n), T)
    e = acc.get_epsilon(DELTA)
    return e.lower, e.upper


def main() -> None:
    quick = "--quick" in sys.argv
    m = FiniteRandomizer(M3)
    ns = [12, 10**3, 10**4] if quick else [12, 10**3, 10**4, 10**6]
    print("| n | T | lower | upper | upper/lower | seconds |")
    print("|---|---|---|---|---|---|")
    for n in ns:
        for T in (1, 365):
            if quick and T > 1 and n > 10**3:
                continue
            t0 = time.perf_counter()
            lo, up = one_round(m, n) if T == 1 else composed(m, n, T)
            dt = time.perf_counter() - t0
            ratio = f"{float(up) / float(lo):.4f}" if lo > 0 else "inf"
            print(f"| {n} | {T} | {float(lo):.6g} | {float(up):.6g} | {ratio} | {dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
