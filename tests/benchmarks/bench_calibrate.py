"""Benchmark of exact.numbers.calibrate / exact.accounting.profiles.epsilon: evaluations of δ(ε) per certified calibration.

Run: ``python tests/benchmarks/bench_calibrate.py [--quick]``.  For each case prints the
number of single-dataset δ evaluations (target: ≤ ~12 per calibration; for the worst case over
all datasets the total over the calibration rounds, plus the number of full sweeps), the certified bracket, its relative width
(target: ≤ 1e-6) and the wall time (2 shared cores: expect noise).
"""

import argparse
import time

from blanket.exact.accounting.profiles import epsilon
from blanket.exact.mechanisms.finite import KRR


def main(quick):
    cases = [
        (2, "2", 1000, "1e-6", "c=0"),
        (2, "2", 10**5, "1e-6", "c=0"),
        (2, "2", 10**6, "1e-8", "c=0"),
        (2, "0.5", 10**4, "1e-6", "c=0"),
        (2, "2", 10**4, "1e-10", "c=3"),
        (2, "2", 1000, "1e-6", "worst"),
        (3, "1", 2000, "1e-6", "third"),
    ]
    if not quick:
        cases.append((2, "2", 10**4, "1e-6", "worst"))
    print(
        f"{'k':>2} {'eps0':>5} {'n':>8} {'delta':>6} {'dataset':>8} {'evals':>5} {'sweeps':>6} "
        f"{'epsilon lower':>16} {'epsilon upper':>16} {'rel.width':>9} {'seconds':>8}"
    )
    for k, e0, n, d, ds in cases:
        t = time.perf_counter()
        r = epsilon(KRR(k, epsilon0=e0), n, delta=d, dataset=ds)
        dt = time.perf_counter() - t
        br = r.bracket
        print(
            f"{k:>2} {e0:>5} {n:>8} {d:>6} {ds:>8} {r.evaluations:>5} {r.sweeps:>6} "
            f"{float(br.lower):>16.10f} {float(br.upper):>16.10f} {float(br.rel_width()):>9.1e} {dt:>8.2f}"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    main(ap.parse_args().quick)
