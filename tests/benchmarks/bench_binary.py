"""Benchmark of exact.binary: one dataset at large n, and the exact worst case over all datasets.

Run: ``python tests/benchmarks/bench_binary.py [--quick] [--full]``.  Prints tables of
(n, seconds, relative enclosure width, …) at 128 bits.  Times are wall-clock on
whatever machine runs it (the project machine has 2 cores shared by several people:
expect noise).  Targets: one δ(ε) evaluation at n = 10^6 ≤ 0.5 s; the worst case at
n = 10^4 ≤ 20 s; the time at n = 10^5 is reported with ``--full``.
"""

import argparse
import time

from blanket.exact import arith
from blanket.exact.binary import delta_binary, delta_binary_worst
from blanket.exact.mechanisms import BinaryRR


def rel(v):
    w = arith.rel_width(v) if not getattr(v, "is_zero", lambda: False)() else None
    return f"{float(w):.1e}" if w is not None else "-"


EPS = {10**3: "0.3", 3000: "0.2", 10**4: "0.1", 10**5: "0.03", 10**6: "0.01"}


def one_dataset(ns, cs, eps0="2"):
    rr = BinaryRR(epsilon0=eps0)
    print(f"\none dataset, both directions (epsilon0 = {eps0}), 128 bits")
    print(f"{'n':>9} {'epsilon':>8} {'c':>9} {'seconds':>8} {'delta':>12} {'rel.width':>9}")
    for n in ns:
        eps = EPS[n]
        for c in cs:
            cc = min(int(c * (n - 1)), n - 1) if isinstance(c, float) else c
            with arith.precision(128):
                t = time.perf_counter()
                v = delta_binary(rr, n, cc, epsilon=eps)
                dt = time.perf_counter() - t
            print(f"{n:>9} {eps:>8} {cc:>9} {dt:>8.3f} {float(v.mid()) if hasattr(v, 'mid') else float(v):>12.4e} {rel(v):>9}")


def worst(ns, eps_of_n, eps0="2"):
    rr = BinaryRR(epsilon0=eps0)
    print(f"\nexact worst case over all datasets (epsilon0 = {eps0}), 128 bits")
    print(f"{'n':>9} {'epsilon':>8} {'seconds':>8} {'delta':>12} {'rel.width':>9} {'worst c (dir)':>16} {'ties':>5}")
    for n in ns:
        eps = eps_of_n(n)
        with arith.precision(128):
            t = time.perf_counter()
            w = delta_binary_worst(rr, n, epsilon=eps, progress=True)
            dt = time.perf_counter() - t
        print(f"{n:>9} {eps:>8} {dt:>8.2f} {float(w.value.mid()):>12.4e} {rel(w.value):>9} "
              f"{str(w.c) + ' (' + w.direction + ')':>16} {len(w.ties):>5}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true", help="include the worst case at n = 10^5 (minutes)")
    a = ap.parse_args()
    if a.quick:
        one_dataset([10**4, 10**5], [0, 0.3])
        worst([1000], EPS.get)
    else:
        one_dataset([10**4, 10**5, 10**6], [0, 3, 0.3, 0.5])
        worst([1000, 3000, 10000] + ([100000] if a.full else []), EPS.get)
