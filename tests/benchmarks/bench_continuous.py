"""Benchmark of exact.shuffled.continuous: the certified blanket view of shuffled Laplace and Gaussian (issue 27).

Run: ``python tests/benchmarks/bench_continuous.py [--quick]``.

One table, δ = 1e-6, Laplace ε0 = 1 and Gaussian σ = 1, n = 10^4 and 10^6 (``--quick``: 10^4 only):
the certified bracket ``[ε_lo, ε_hi]`` of the blanket view's ε (``ε_hi``: δ_BV(ε_hi) ≤ δ proven on the
upper side; ``ε_lo``: δ_BV(ε_lo) > δ proven on the lower side), its relative width, the number of
enclosures, wall seconds, peak RSS; and beside it the encoded Balle et al. bounds at the same δ (Theorem 5.3
[laplace] = Hoeffding and the Bennett bound [laplace], calibrated by their own certified search) with the
ratio bound/ε_hi.  Targets (issue 27): n = 10^4 relative width ≤ 1e-3 in ≤ 10 s; n = 10^6 ≤ 1e-2 in ≤ 60 s.
The mechanism's lower end: certified lower bounds on the mechanism's own ε, from its exact δ on the datasets
0^n vs 1·0^{n−1} (exact.shuffled.continuous_dataset, lower side) and from the outputs thresholded at 1/2 (exact
shuffled binary RR on the same datasets).  Seconds: wall / CPU of this process (the machine's load is printed first).  Not in the table: Su–Cheng–Wang's float FFT (not run here: no public
code installed on this machine).
"""

import argparse
import os
import resource
import sys
import time

from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.shuffled.continuous import epsilon_bracket, quantised_epsilon_lower
from blanket.exact.shuffled.continuous_dataset import dataset_epsilon_lower
from flint import fmpq

DELTA = "1e-6"


def _bound_eps(key: str, n: int) -> float | None:
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.calibrate import epsilon_for_delta
    from blanket.proofs import blanket as B

    r = {"hoeffding": B.THEOREM_5_3_LAPLACE, "bennett": B.BENNETT_LAPLACE}[key]
    br = epsilon_for_delta(
        lambda e: r.bound(epsilon0="1", epsilon=e, n=n),
        arith.exact(DELTA),
        hi=arith.exact("1"),
        lo=arith.exact("1e-9"),
        rel_tol=arith.exact("1e-4"),
    )
    return float(br.upper)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    ns = (10**4,) if a.quick else (10**4, 10**6)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    print(
        "| mechanism | n | h | eps_lo (view) | eps_hi (view) | rel width | enclosures | wall / CPU s | peak RSS MB "
        "| mechanism lower end: exact on 0^n vs 1 0^(n-1) | thresholded at 1/2 | wall / CPU s | Hoeffding/eps_hi | Bennett/eps_hi |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, mech in (("laplace eps0=1", Laplace(1)), ("gaussian sigma=1", Gaussian(1))):
        for n in ns:
            # the command line's lattices (reports/commands/_continuous.py): atom-aligned steps
            h = (fmpq(1, 32) if isinstance(mech, Laplace) else fmpq(1, 16)) if n <= 10**5 else fmpq(1, 8)
            t, c = time.monotonic(), time.process_time()
            br = epsilon_bracket(mech, n, DELTA, h=h, rel_tol=1e-3 if n <= 10**5 else 1e-2)
            dt, dc = time.monotonic() - t, time.process_time() - c
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            t, c = time.monotonic(), time.process_time()
            q_th = float(quantised_epsilon_lower(mech, n, DELTA))
            q = float(dataset_epsilon_lower(mech, n, DELTA, h=fmpq(1, 32) if n <= 10**5 else fmpq(1, 16)))
            dq, dqc = time.monotonic() - t, time.process_time() - c
            if isinstance(mech, Laplace):
                ho, be = _bound_eps("hoeffding", n), _bound_eps("bennett", n)
                ratios = f"{ho / float(br.hi):.3f} | {be / float(br.hi):.3f}"
            else:
                ratios = "n/a (not eps0-LDP) | n/a"
            print(
                f"| {name} | {n} | {h} | {float(br.lo):.6g} | {float(br.hi):.6g} | {br.rel_width():.2e} | "
                f"{br.evaluations} | {dt:.1f} / {dc:.1f} | {rss:.0f} | {q:.6g} | {q_th:.6g} | {dq:.1f} / {dqc:.1f} | {ratios} |",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
