"""Benchmark for exact.protocols.tdlap: the Cheu–Yan pairwise LLR (5), the n-user law, the claims' bound.

Run: ``python tests/benchmarks/bench_tdlap.py [--quick]``.  Prints tables of
(parameters, wall seconds, CPU seconds, enclosure width).  The issue's target:
the pairwise quantity for m <= 16 and tau up to 500 in <= 10 s.  On a shared,
loaded machine wall time overstates the cost; CPU time is printed too.

Complexity: pairwise LLR = about (m^2/2 + m)/2 ball polynomial multiplications of
length ell + 1 = m(2 tau + 1) (products of reflected pairs are reused) plus
O(m^2 · ell) C-level ratio/max operations.
"""

from __future__ import annotations

import sys
import time

from blanket.exact.numbers import arith
from blanket.exact.protocols import tdlap as xt
from flint import fmpq


def _timed(f):
    t, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - t, time.process_time() - c


def _width(v):
    if v is None:
        return "inf"
    if isinstance(v, fmpq):
        return "0 (exact)"
    return f"{float(v.rad()) * 2:.2e}"


def bench_pairwise(quick):
    print("pairwise LLR (5), ball mode, q = 1e-3, s = tau/(2 ln 1000) rounded (prec 128)")
    print(f"{'m':>3} {'tau':>5} {'ell+1':>7} {'wall s':>8} {'cpu s':>8} {'eps_pair (upper)':>18} {'width':>10}")
    grid = [(2, 50), (4, 100), (16, 100)] if quick else [(2, 50), (4, 200), (8, 200), (8, 500), (16, 200), (16, 500)]
    for m, tau in grid:
        s = fmpq(round(tau / 13.8155), 1) or fmpq(1)
        with arith.precision(128):
            (val, pair), w, c = _timed(lambda: xt.RelaxedAggregator(m, tau, q="1e-3", s=s).pairwise_llr())
        print(
            f"{m:>3} {tau:>5} {m * (2 * tau + 1):>7} {w:>8.2f} {c:>8.2f} "
            f"{arith.decimal_string(val, 8, up=True):>18} {_width(val):>10}"
        )


def bench_exact_mode(quick):
    print("\npairwise LLR (5), exact rationals (r = rho^m, rho = 19/20), q = 1/100")
    print(f"{'m':>3} {'tau':>5} {'wall s':>8} {'cpu s':>8}")
    for m, tau in [(3, 10), (3, 30)] if quick else [(3, 10), (3, 30), (4, 60)]:
        r = xt.r_from_rho(fmpq(19, 20), m)
        (val, _), w, c = _timed(lambda: xt.RelaxedAggregator(m, tau, q="1/100", r=r).pairwise_llr())
        print(f"{m:>3} {tau:>5} {w:>8.2f} {c:>8.2f}")


def bench_security(quick):
    print("\nexact LLR security max over input multisets (ball mode, s = 2, tau = 28, q = 1e-3)")
    print(f"{'m':>3} {'n':>3} {'multisets':>10} {'wall s':>8} {'cpu s':>8} {'eps (upper)':>14}")
    import math

    for m, n in [(2, 3), (3, 3)] if quick else [(2, 3), (3, 3), (3, 4), (4, 4)]:
        with arith.precision(128):
            (val, xs), w, c = _timed(lambda: xt.RelaxedAggregator(m, 28, q="1e-3", s=2).llr_security(n))
        print(
            f"{m:>3} {n:>3} {math.comb(n + m - 1, n):>10} {w:>8.2f} {c:>8.2f} {arith.decimal_string(val, 8, up=True):>14}"
        )


def bench_claims(quick):
    from blanket.proofs import pure_dp as P

    print(
        "\nclaims' bounds vs exact (q = 1e-3, tau = ceil(2 s ln 1000)): closed form (O(tau), no convolution)"
        " and pointwise (pairing RHS on exact masses)"
    )
    print(
        f"{'m':>3} {'s':>4} {'tau':>5} {'exact':>12} {'closed':>12} {'ratio':>7} {'wall s':>8} "
        f"{'pointwise':>12} {'ratio':>7} {'wall s':>8}"
    )
    import math

    grid = [(3, 2), (3, 4)] if quick else [(3, 2), (3, 4), (3, 8), (3, 16), (8, 8), (16, 36)]
    for m, s in grid:
        tau = math.ceil(2 * s * math.log(1000))
        with arith.precision(128):
            agg = xt.RelaxedAggregator(m, tau, q="1e-3", s=s)
            ex, _ = agg.pairwise_llr()
            cf, wc, _ = _timed(lambda: P.claims_closed_llr(s, tau, fmpq(1, 1000), m))
            bd, wp, _ = _timed(lambda: P.claims_pair_bound(agg)) if m <= 8 else (None, float("nan"), None)
        pw = (
            f"{arith.decimal_string(bd, 6, up=True):>12} {float((bd / ex).mid()):>7.3f} {wp:>8.2f}"
            if bd is not None
            else f"{'(skipped)':>12} {'':>7} {'':>8}"
        )
        print(
            f"{m:>3} {s:>4} {tau:>5} {arith.decimal_string(ex, 6, up=True):>12} {arith.decimal_string(cf, 6, up=True):>12} "
            f"{float((cf / ex).mid()):>7.3f} {wc:>8.2f} {pw}"
        )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    bench_pairwise(quick)
    bench_exact_mode(quick)
    bench_security(quick)
    bench_claims(quick)
