"""Timing of exact.shuffled.enumerate (exhaustive worst case over all datasets): prints tables (n, classes, seconds, width).

Run: ``python tests/benchmarks/bench_enumerate.py [--quick]``.  Not a test: numbers depend on the machine
(the shared 2-core development machine is loaded; expect 2-3x faster on an idle one).

Tables:
1. k-RR with exact e^{ε0} = 3, e^ε = 3/2 (exact rationals): n = 2..8 for k = 2, 3, 4, 6, 10 (target: n = 8, k ≤ 10 in ≤ 60 s).
2. k-RR with decimal ε0 = 1, ε = 1/2 (balls, 128 bits): same grid, with the relative enclosure width.
3. A general 4x4 matrix (exact entries, no symmetry): n = 2, 4, ... until one n exceeds 60 s.
"""

from __future__ import annotations

import sys
import time

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers.arith import precision, rel_width
from blanket.exact.shuffled.enumerate import count_classes, worst_case


def _row(cols):
    print("  ".join(f"{c:>12}" for c in cols), flush=True)


def krr_table(exact_inputs: bool, ks, n_top):
    print(f"\nk-RR, {'exact e^eps0=3, e^eps=3/2' if exact_inputs else 'balls eps0=1, eps=1/2 at 128 bits'}")
    _row(["k", "n", "classes", "seconds", "rel. width", "value"])
    for k in ks:
        for n in range(2, n_top + 1):
            t = time.perf_counter()
            with precision(128):
                if exact_inputs:
                    wc = worst_case(KRR(k, exp_epsilon0=3), n, exp_epsilon="3/2")
                else:
                    wc = worst_case(KRR(k, epsilon0="1"), n, epsilon="1/2")
                dt = time.perf_counter() - t
                w = rel_width(wc.value) if not exact_inputs else 0  # endpoints at the working precision
            _row(
                [
                    k,
                    n,
                    wc.classes,
                    f"{dt:.3f}",
                    "exact" if exact_inputs else (f"{float(w):.1e}" if w is not None else "-"),
                    f"{float(wc.value.mid() if hasattr(wc.value, 'mid') else wc.value):.6g}",
                ]
            )


def general_table(n_values, limit=60.0):
    m = FiniteRandomizer(
        [
            ["2/5", "3/10", "1/5", "1/10"],
            ["1/10", "2/5", "3/10", "1/5"],
            ["1/5", "1/5", "1/5", "2/5"],
            ["1/10", "1/10", "1/10", "7/10"],
        ]
    )
    print("\ngeneral 4x4 matrix (exact entries, e^eps = 6/5)")
    _row(["n", "multisets", "seconds", "value"])
    for n in n_values:
        t = time.perf_counter()
        wc = worst_case(m, n, exp_epsilon="6/5")
        dt = time.perf_counter() - t
        _row([n, count_classes(m, n), f"{dt:.2f}", f"{float(wc.value.p) / float(wc.value.q):.6g}"])
        if dt > limit:
            print(f"  (stopped: n = {n} took more than {limit:.0f} s)")
            break


def main(argv):
    quick = "--quick" in argv
    ks = [2, 3, 4, 6, 10] if not quick else [2, 10]
    krr_table(True, ks, 8 if not quick else 6)
    krr_table(False, ks, 8 if not quick else 6)
    general_table([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 28] if not quick else [2, 4, 8])


if __name__ == "__main__":
    main(sys.argv[1:])
