"""Benchmark: evaluating every registered privacy-blanket bound at one parameter point.

Prints a table (result, n, seconds per evaluation, relative enclosure width)
for n = 10^2 … 10^8 at 128 bits.  Target: ≤ 50 ms per evaluation for every
δ- or ε-valued bound (Lemma 5.3's right side is the exact blanket view from
exact.shuffled.krr and is benchmarked separately, at small n only).  Also times one
certified calibration per bound.

Run: ``python tests/benchmarks/bench_bounds.py``  (numbers are from a shared,
loaded 2-core machine unless stated otherwise).
"""

from __future__ import annotations

import time

from blanket.exact.numbers import arith


def _time(f, reps=5):
    f()  # warm-up (sympy caches)
    t0 = time.perf_counter()
    for _ in range(reps):
        out = f()
    return (time.perf_counter() - t0) / reps, out


def _width(v):
    w = arith.rel_width(v) if not isinstance(v, (int,)) else 0
    return "exact" if w == 0 else ("-" if w is None else f"{float(w):.1e}")


def main():
    import blanket.proofs.blanket as B

    bounds = [
        B.THEOREM_5_3_GENERIC,
        B.THEOREM_5_3_RR,
        B.THEOREM_5_3_LAPLACE,
        B.THEOREM_5_3_PRE,
        B.THEOREM_5_3_SLIDE,
        B.BENNETT_GENERIC,
        B.BENNETT_RR,
        B.BENNETT_LAPLACE,
        B.THEOREM_5_1,
        B.COROLLARY_5_3_1,
    ]
    print(f"{'result':34s} {'n':>10s} {'seconds':>10s} {'rel. width':>11s}")
    worst = 0.0
    with arith.precision(128):
        for r in bounds:
            for n in (10**2, 10**4, 10**6, 10**8):
                names = {s.name for s in r.symbols}
                p = {"n": n}
                if "epsilon0" in names:
                    p["epsilon0"] = "1/2"
                if "k" in names:
                    p["k"] = 10
                if "gamma" in names:
                    p["gamma"] = "7/10"
                if r.quantity == "delta":
                    p["epsilon"] = "1/10"
                else:
                    p["delta"] = "1e-6"
                if r is B.THEOREM_5_1 and n < 1000:
                    continue
                if r is B.COROLLARY_5_3_1 and not (10**4 <= n <= 10**7):
                    continue
                secs, v = _time(lambda: r.bound(**p))
                worst = max(worst, secs)
                print(f"{r.key[7:]:34s} {n:>10d} {secs:>10.4f} {_width(v):>11s}")
        print(f"\nslowest single evaluation: {worst * 1000:.1f} ms (target 50 ms)")
        print(f"\n{'calibration (certified one-sided)':34s} {'n':>10s} {'seconds':>10s} {'evaluations':>11s}")
        for r in (B.THEOREM_5_3_GENERIC, B.BENNETT_GENERIC, B.THEOREM_5_3_RR, B.BENNETT_RR):
            for n in (10**3, 10**6):
                extra = {"k": 2} if r.variant == "rr" else {}
                t0 = time.perf_counter()
                br = B.calibrated_epsilon(r, delta="1e-6", epsilon0="1/2", n=n, **extra)
                print(f"{'eps: ' + r.key[7:]:34s} {n:>10d} {time.perf_counter() - t0:>10.4f} {br.evaluations:>11d}")
                t0 = time.perf_counter()
                br = B.calibrated_epsilon0(r, epsilon="1/10", delta="1e-6", n=n, **extra)
                print(f"{'eps0: ' + r.key[7:]:34s} {n:>10d} {time.perf_counter() - t0:>10.4f} {br.evaluations:>11d}")
        print(f"\n{'Lemma 5.3 (blanket view, exact.shuffled.krr)':34s} {'n':>10s} {'seconds':>10s} {'rel. width':>11s}")
        for n in (10, 100, 1000):
            secs, v = _time(lambda: B.LEMMA_5_3.bound(k=3, n=n, epsilon0="1", epsilon="1/4"), reps=1)
            print(f"{'Lemma 5.3 k=3':34s} {n:>10d} {secs:>10.4f} {_width(v):>11s}")
        t0 = time.perf_counter()
        ok, count = B.certify_corollary_5_3_1()
        print(f"\nCorollary 5.3.1 grid certification: {ok} on {count} points in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
