"""Benchmark of exact.shuffled.continuous: the certified blanket view of shuffled Laplace and Gaussian (issue 27).

Run: ``python tests/benchmarks/bench_continuous.py [--quick]``.

One table, δ = 1e-6, Laplace ε0 = 1 and Gaussian σ = 1, n = 10^4 and 10^6 (``--quick``: 10^4 only):
the certified bracket ``[ε_lo, ε_hi]`` of the blanket view's ε (``ε_hi``: δ_BV(ε_hi) ≤ δ proven on the
upper side; ``ε_lo``: δ_BV(ε_lo) > δ proven on the lower side), its relative width, the number of
enclosures, wall seconds, peak RSS; and beside it the encoded Balle et al. bounds at the same δ (Theorem 5.3
[laplace] = Hoeffding and the Bennett bound [laplace], calibrated by their own certified search) with the
ratio bound/ε_hi.  Targets (issue 27): n = 10^4 relative width ≤ 1e-3 in ≤ 10 s; n = 10^6 ≤ 1e-2 in ≤ 60 s.
The quantised lower end: a certified lower bound on the mechanism's own ε (outputs thresholded at 1/2,
exact shuffled binary RR on the datasets 0^n vs 1·0^{n−1}).  Not in the table: Su–Cheng–Wang's float FFT (not run here: no public
code installed on this machine).
"""

import argparse
import resource
import sys
import time

from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.shuffled.continuous import epsilon_bracket, quantised_epsilon_lower
from flint import fmpq

DELTA = "1e-6"


def _bound_eps(key: str, n: int) -> float | None:
    from blanket.exact.accounting.calibrate import epsilon_for_delta
    from blanket.exact.numbers import arith
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
    print(
        "| mechanism | n | h | eps_lo (view) | eps_hi (view) | rel width | enclosures | s | peak RSS MB "
        "| quantised lower end (mechanism) | s | Hoeffding/eps_hi | Bennett/eps_hi |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, mech in (("laplace eps0=1", Laplace(1)), ("gaussian sigma=1", Gaussian(1))):
        for n in ns:
            h = (fmpq(1, 128) if isinstance(mech, Laplace) else fmpq(1, 64)) if n <= 10**5 else fmpq(1, 16)
            t = time.monotonic()
            br = epsilon_bracket(mech, n, DELTA, h=h, rel_tol=1e-3 if n <= 10**5 else 1e-2)
            dt = time.monotonic() - t
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            t = time.monotonic()
            q = float(quantised_epsilon_lower(mech, n, DELTA))
            dq = time.monotonic() - t
            if isinstance(mech, Laplace):
                ho, be = _bound_eps("hoeffding", n), _bound_eps("bennett", n)
                ratios = f"{ho / float(br.hi):.3f} | {be / float(br.hi):.3f}"
            else:
                ratios = "n/a (not eps0-LDP) | n/a"
            print(
                f"| {name} | {n} | {h} | {float(br.lo):.6g} | {float(br.hi):.6g} | {br.rel_width():.2e} | "
                f"{br.evaluations} | {dt:.1f} | {rss:.0f} | {q:.6g} | {dq:.1f} | {ratios} |",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
