"""Benchmark of exact.renyi: Rényi moments of shuffled RR at large n, the worst case over datasets, k-RR families.

Run: ``python tests/benchmarks/bench_renyi.py [--quick] [--full]``.  Prints tables
(n, seconds, relative enclosure width) at 128 bits.  Wall-clock times on whatever
machine runs it (the project machine has 2 cores shared by several people: expect
noise).  Targets (issue 5): one dataset at n = 10^6 ≤ 1 s; the worst case over
datasets at n = 10^4 ≤ 60 s.
"""

import argparse
import time

from blanket.exact import arith
from blanket.exact import renyi as xr
from blanket.exact.mechanisms import KRR, BinaryRR


def rel(v):
    if not hasattr(v, "rad"):
        return "exact"
    w = arith.rel_width(v)
    return f"{float(w):.1e}" if w is not None else "-"


def one_dataset(ns, order="2", eps0="1"):
    mech = BinaryRR(epsilon0=eps0)
    print(f"\nbinary RR, one dataset, both directions (epsilon0 = {eps0}, lambda = {order}), 128 bits")
    print(f"{'n':>9} {'c':>9} {'seconds':>8} {'D_lambda':>12} {'rel.width':>9}")
    for n in ns:
        for c in (0, n // 3):
            with arith.precision(128):
                t = time.perf_counter()
                r = xr.renyi_binary(mech, n, c, order=order)
                dt = time.perf_counter() - t
            print(f"{n:>9} {c:>9} {dt:>8.3f} {float(r.value.mid()):>12.4e} {rel(r.value):>9}")


def worst(ns, order="2", eps0="1"):
    mech = BinaryRR(epsilon0=eps0)
    print(f"\nbinary RR, worst case over all datasets (epsilon0 = {eps0}, lambda = {order}), 128 bits (scan at 53 bits + pruning)")
    print(f"{'n':>9} {'seconds':>8} {'c*':>6} {'D_lambda':>12} {'rel.width':>9}")
    for n in ns:
        with arith.precision(128):
            t = time.perf_counter()
            r = xr.renyi_binary_worst(mech, n, order=order)
            dt = time.perf_counter() - t
        print(f"{n:>9} {dt:>8.2f} {r.c:>6} {float(r.value.mid()):>12.4e} {rel(r.value):>9}")


def families(cases, order="2", eps0="1"):
    print(f"\nk-RR dataset families (max over both directions; epsilon0 = {eps0}, lambda = {order}), 128 bits")
    print(f"{'k':>4} {'family':>10} {'n':>7} {'seconds':>8} {'D_lambda':>12} {'rel.width':>9}")
    for k, fam, n in cases:
        mech = KRR(k, epsilon0=eps0)
        with arith.precision(128):
            t = time.perf_counter()
            r = xr.renyi_krr_family(mech, n, fam, order=order)
            dt = time.perf_counter() - t
        print(f"{k:>4} {fam:>10} {n:>7} {dt:>8.2f} {float(r.value.mid()):>12.4e} {rel(r.value):>9}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    a = ap.parse_args()
    if a.quick:
        one_dataset([10 ** 4, 10 ** 5])
        worst([300, 1000])
        families([(3, "same", 1000), (3, "third", 300), (10, "third", 100)])
        return
    one_dataset([10 ** 4, 10 ** 5, 10 ** 6])
    one_dataset([10 ** 6], order="5/2")
    worst([1000, 3000, 10 ** 4] if not a.full else [1000, 3000, 10 ** 4, 3 * 10 ** 4])
    families([(3, "same", 10 ** 3), (3, "same", 10 ** 4), (10, "same", 10 ** 4), (3, "third", 10 ** 4),
              (10, "third", 300), (10, "third", 1000)])


if __name__ == "__main__":
    main()
