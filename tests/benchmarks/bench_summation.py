"""Timing of the summation routines (prints tables: n, seconds, enclosure width).

Run: ``python tests/benchmarks/bench_summation.py [--quick]``.  Not a test;
numbers depend on the machine's load.
"""

from __future__ import annotations

import sys
import time

from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.protocols import summation as xs
from blanket.proofs import summation as S
from flint import fmpq


def width(v):
    if isinstance(v, fmpq):
        return "exact"
    return f"{float(2 * v.rad()):.2e}"


def timed(f, *a, **kw):
    t = time.perf_counter()
    v = f(*a, **kw)
    return v, time.perf_counter() - t


def main(quick: bool = False):
    ns = [10**e for e in range(3, 9)]
    print("== exact worst-case MSE at Theorem 4.1's parameters (eps = 1, delta = 1e-6): O(k) exact rationals")
    print(
        f"{'n':>10} {'k':>4} {'sec params':>11} {'sec mse':>9} {'width':>7} {'sec thm4.1':>11} {'width':>9} {'sec thm4.2*':>12} {'m*':>5}"
    )
    for n in ns:
        (k, g, P), t1 = timed(S.theorem_4_1_parameters, n, "1", "1e-6")
        mse, t2 = timed(P.worst_mse, n)
        with arith.precision(128):
            b, t3 = timed(S.THEOREM_4_1.bound, n=n, epsilon="1", delta="1e-6")
            (m, lb), t4 = timed(S.theorem_4_2_best, n, "1", "1e-6")
        print(f"{n:>10} {k:>4} {t1:>11.3f} {t2:>9.4f} {width(mse):>7} {t3:>11.3f} {width(b):>9} {t4:>12.3f} {m:>5}")

    print("\n== exact per-user moments by enumeration (Protocol1D.user_moments): O(k)")
    print(f"{'k':>8} {'sec':>9}")
    for k in (10, 100, 1000, 10000):
        P = xs.Protocol1D(k, "1/100")
        _, t = timed(P.user_moments, "1/3")
        print(f"{k:>8} {t:>9.4f}")

    print("\n== exact shuffled delta by brute force (worst_delta_bruteforce), 3x3 matrix, e^eps = 2")
    mech = FiniteRandomizer([["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]])
    print(f"{'n':>4} {'sec':>9}")
    for n in (2, 4, 6, 8) if not quick else (2, 4):
        _, t = timed(xs.worst_delta_bruteforce, mech, n, exp_epsilon=2)
        print(f"{n:>4} {t:>9.3f}")

    print("\n== Lemma 4.3 brute-force minimum (midpoint_sum_min): O(m^2) exact")
    print(f"{'m':>6} {'sec':>9}")
    for m in (10, 100, 300) if quick else (10, 100, 300, 1000):
        _, t = timed(xs.midpoint_sum_min, m)
        print(f"{m:>6} {t:>9.3f}")

    print("\n== privacy at Theorem 4.1's gamma: blanket-view delta at eps = 1, and certified epsilon at delta = 1e-6")
    print(
        f"{'n':>10} {'k':>4} {'sec delta':>10} {'delta upper':>12} {'sec eps':>9} {'eps upper':>10} {'eps width':>10}"
    )
    for n in (10**4,) if quick else (10**4, 10**5, 10**6):
        k, g, P = S.theorem_4_1_parameters(n, "1", "1e-6")
        d, t1 = timed(S.blanket_view_delta, n, "1", "1e-6")
        br, t2 = timed(S.certified_epsilon_at_parameters, n, "1", "1e-6")
        print(
            f"{n:>10} {k:>4} {t1:>10.2f} {arith.decimal_string(d, 3, up=True):>12} {t2:>9.2f} "
            f"{arith.decimal_string(br.upper, 6, up=True):>10} {float(br.upper - br.lower):>10.1e}"
        )

    print(
        "\n== calibrated protocol (Theorem 4.1's k, smallest gamma certified by the exact blanket view), eps = 1, delta = 1e-6"
    )
    print(f"{'n':>10} {'k':>4} {'sec':>8} {'gamma':>12} {'gamma thm3.1':>13} {'mse':>10} {'mse thm4.1 params':>18}")
    for n in (10**3, 10**4) if quick else (10**2, 10**3, 10**4, 10**5, 10**6):
        k = S.theorem_4_1_k(n, "1", "1e-6")
        P, t = timed(xs.calibrated_protocol, k, n, "1", "1e-6")
        try:
            _, g31, P31 = S.theorem_4_1_parameters(n, "1", "1e-6")
            g31s, m31 = arith.decimal_string(g31, 4, up=True), arith.decimal_string(P31.worst_mse(n), 6, up=True)
        except Exception:  # Theorem 3.1's gamma >= 1: not runnable
            g31s, m31 = "> 1", "-"
        print(
            f"{n:>10} {k:>4} {t:>8.2f} {arith.decimal_string(P.gamma, 4, up=True):>12} {g31s:>13} "
            f"{arith.decimal_string(P.worst_mse(n), 6, up=True):>10} {m31:>18}"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
