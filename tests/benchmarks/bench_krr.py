"""Timing of exact.krr (prints tables: n, seconds, enclosure width, value).

Run: ``python tests/benchmarks/bench_krr.py [--quick]``.  Not a test; the
numbers depend on the machine's load (the project's machine is a shared
2-core box).  Target of the issue: k = 10, third-value family and blanket
view, n = 10^5 in <= 60 s each at 128 bits.
"""

from __future__ import annotations

import sys
import time

from flint import fmpq

from blanket.exact import arith
from blanket.exact.krr import delta_blanket_view, delta_krr_family, delta_krr_third_lumped
from blanket.exact.mechanisms import KRR


def width(v):
    if isinstance(v, fmpq):
        return "exact"
    lo, hi = arith.endpoints(v)
    return f"{float(hi - lo):.2e}"


def value(v):
    return arith.decimal_interval(v, 6)["upper"]


def timed(f, *a, **kw):
    """(value, wall seconds, CPU seconds of this process): on a shared machine the CPU time is the honest cost."""
    t, c = time.perf_counter(), time.process_time()
    v = f(*a, **kw)
    return v, time.perf_counter() - t, time.process_time() - c


def main(quick: bool = False):
    ns = [10 ** 3, 10 ** 4] if quick else [10 ** 3, 10 ** 4, 10 ** 5]
    settings = [("3", "0.1"), ("1", "0.02"), ("5", "0.3")]
    routines = [
        ("third", lambda m, n, e: delta_krr_family(m, n, "third", epsilon=e)),
        ("blanket view", lambda m, n, e: delta_blanket_view(m, n, epsilon=e)),
        ("same", lambda m, n, e: delta_krr_family(m, n, "same", epsilon=e)),
        ("lumped (not a δ)", lambda m, n, e: delta_krr_third_lumped(m, n, epsilon=e)),
    ]
    print("== shuffled 10-RR, 128-bit balls, default tol 2^-80 (load-dependent wall-clock seconds)")
    print(f"{'routine':>17} {'eps0':>5} {'eps':>5} {'n':>8} {'wall s':>8} {'cpu s':>7} {'width':>9} {'delta (upper)':>14}")
    with arith.precision(128):
        for eps0, eps in settings:
            mech = KRR(10, epsilon0=eps0)
            for name, f in routines:
                if quick and name in ("same", "lumped (not a δ)"):
                    continue
                for n in ns:
                    v, t, c = timed(f, mech, n, eps)
                    print(f"{name:>17} {eps0:>5} {eps:>5} {n:>8} {t:8.2f} {c:7.2f} {width(v):>9} {value(v):>14}", flush=True)
    print("== exact rationals (e^eps0 = 3, e^eps = 5/4), small n")
    mech = KRR(10, exp_epsilon0=3)
    for n in ([8, 16, 32] if quick else [8, 16, 32, 64]):
        v, t, c = timed(delta_krr_family, mech, n, "third", exp_epsilon=fmpq(5, 4))
        print(f"{'third':>17} {n:>8} {t:8.2f} {c:7.2f} exact {float(v.p) / float(v.q):.6e}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
