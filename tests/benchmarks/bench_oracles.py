"""Timing and tables of exact.mechanisms.oracles (frequency oracles, generic LDP).  Not a test.

Run: ``python tests/benchmarks/bench_oracles.py [--quick | --fast-only [--n9]]``.  Prints

0. the fast certified blanket view (exact.shuffled.oracles.blanket_view_delta_fast): n, wall and CPU seconds
   per δ(ε), relative width of the enclosure, the δ upper end, and the process's peak RSS so far
   (``--n9`` adds n = 10^9);
1. seconds per δ(ε) (wall and CPU of this process) for the merged blanket
   view, the FOCS 2021 clone pair and the same-family lower bound, n up to
   10^6 (the issue's target: ≤ 5 s per δ(ε) at n = 10^6);
2. the loss of the merged blanket view against the exact Lemma 5.3 mixture
   (n ≤ 1000, where the mixture is affordable: it costs O(n^{3/2}) engine work);
3. ε(n) at δ = 1e-6 for every mechanism at ε0 = 2: certified upper end of
   the best fast upper bound and certified lower end of the same-family
   lower bound (the data of the issue's figure).

``--bracket [--exact-view] [--only TEXT] [--third-work W] [--ns N,N]`` prints only table B (issue 25): per oracle and n, the certified ε bracket at
δ = 1e-6, ε0 = 2 — lower end from exact.accounting.certified.lower_value (the larger of the same-family and the
third-value dataset), upper end from upper_value (the best certified route) — the ratio upper/lower, the seconds
(total, of which the lower end), the number of evaluations of the exact five-atom view (``#xv``) and their seconds,
and which bound decided each end.  Each end is a bisection on ε (14 halvings of [0, ε0]): the lower end is the
largest ε tried with a certified lower δ above the target, the upper end the smallest with a certified upper δ at
or below it (the routes of certified.upper_routes, the exact five-atom view evaluated last and only where no cheaper
route meets the target and ε is above the certified lower end: the same answer as certified.best_upper, fewer
evaluations).  The exact view is a route of certified.upper_routes where its cost guard allows (n = 10³ here);
``--exact-view`` adds it at every n (exact.shuffled.oracle_exact.exact_view_or_none: slow, about 100 s per δ at
n = 10⁴).  The rows are those of :func:`mechanisms`, local hashing with a
stated 3-wise independent family and local hashing k = 64, g = 3; ``--only TEXT`` keeps the rows whose label contains TEXT; ``--third-work W`` raises
the cost guards of the unary-encoding third value's full view (exact.shuffled.oracle_third.MAX_WORK, the sorted route
up to n = 2000, and BINNED_MAX_WORK, the binned route above, off by default; 5e8 covers n = 10⁴ at ε0 = 2, 5–10 CPU s
per δ); ``--ns`` picks the n (default 1000,10000).

``--geometric`` prints only table G: the fast geometric engine (exact.shuffled.geometric, docs/numerics.md
Lemma O2): n = 10^4, 10^6, 10^9, seconds for the certified upper end (one δ(ε)), its relative width, the
bracket's lower end (a lower bound on the Lemma 5.3 value), the FOCS 2021 clone bound and the concrete-dataset
lower bound on δ (exact.shuffled.geometric.geometric_lower_dataset).
Table G2: the dominating law's set-up at m = 20..400, the O(m² log m) route against the O(m³) one.

Wall-clock numbers depend on the load of the shared machine.
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction

from blanket.exact.mechanisms.oracles import LDP, OLH, OUE, SUE, Hadamard, Subset
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.shuffled.oracles import (
    blanket_view_delta,
    blanket_view_delta_merged,
    clone_delta,
    epsilon_upper,
    same_family_delta,
)
from flint import arb, fmpq


def timed(f, *a, **kw):
    t, c = time.perf_counter(), time.process_time()
    v = f(*a, **kw)
    return v, time.perf_counter() - t, time.process_time() - c


def up(v):
    return arith.decimal_interval(v, 5)["upper"]


def width(v):
    if isinstance(v, fmpq):
        return "exact"
    lo, hi = arith.endpoints(v)
    return f"{float(hi - lo):.1e}"


def mechanisms(eps0: str):
    e = math.exp(float(eps0))
    g = max(2, round(e + 1))
    d = max(1, math.ceil(100 / (e + 1)))
    return [
        ("oue k=128", OUE(128, epsilon0=eps0)),
        ("sue k=128", SUE(128, epsilon0=eps0)),
        (f"olh k=2^20 g={g}", OLH(2**20, g, epsilon0=eps0)),
        ("hadamard k=1000", Hadamard(1000, epsilon0=eps0)),
        (f"subset k=100 d={d}", Subset(100, d, epsilon0=eps0)),
    ]


def peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def rel_width(v) -> str:
    if isinstance(v, fmpq):
        return "exact"
    lo, hi = arith.endpoints(v)
    return f"{float((hi - lo) / lo):.1e}" if lo > 0 else f"abs {float(hi - lo):.1e}"


def fast_table(ns, eps0: str = "2"):
    from blanket.exact.shuffled.oracles import blanket_view_delta_fast

    print(f"== 0. fast blanket view (convex-order bracket), ε0 = {eps0}, ε = 6/isqrt(n) (128-bit balls, tol 2^-80)")
    print(
        f"{'mechanism':>20} {'n':>11} {'wall s':>7} {'cpu s':>7} {'rel width':>9} {'delta (upper)':>14} {'RSS MiB':>8}"
    )
    for name, m in mechanisms(eps0):
        for n in ns:
            eps = fmpq(6, math.isqrt(n))
            with arith.precision(128):
                v, w, c = timed(blanket_view_delta_fast, m, n, epsilon=eps)
            print(f"{name:>20} {n:>11} {w:7.2f} {c:7.2f} {rel_width(v):>9} {up(v):>14} {peak_rss_mib():8.0f}")


def geometric_table(ns=(10**4, 10**6, 10**9), eps0: str = "1"):
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.shuffled.geometric import geometric_bracket, geometric_lower_dataset, geometric_upper

    print(f"== G. geometric mechanism, fast engine (Lemma O2), ε0 = {eps0}, ε = 3/isqrt(n) (balls, tol 2^-80)")
    print(
        f"{'mechanism':>16} {'n':>11} {'wall s':>7} {'cpu s':>7} {'rel width':>9} {'delta (upper)':>14}"
        f" {'LV lower':>12} {'clone':>12} {'dataset low':>12} {'RSS MiB':>8}"
    )
    for m in (3, 10, 50, 100):
        g = Geometric(m, epsilon0=eps0)
        for n in ns:
            eps = fmpq(3, math.isqrt(n))
            v, w, c = timed(geometric_upper, g, n, epsilon=eps)
            lo = arith.decimal_interval(geometric_bracket(g, n, epsilon=eps).lower, 5)["lower"]
            cl = up(clone_delta(g, n, epsilon=eps))
            dl = arith.decimal_interval(geometric_lower_dataset(g, n, epsilon=eps)[0], 5)["lower"]
            print(
                f"{'geometric m=' + str(m):>16} {n:>11} {w:7.2f} {c:7.2f} {rel_width(v):>9} {up(v):>14}"
                f" {lo:>12} {cl:>12} {dl:>12} {peak_rss_mib():8.0f}"
            )
    geometric_setup_table(eps0)


def geometric_setup_table(eps0: str = "1"):
    """Table G2: the dominating law's set-up (one ε), the O(m² log m) route against the O(m³) one it replaced
    (docs/mechanisms.md "The dominating law in O(m² log m)"; the O(m³) route up to m = 100 only)."""
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.shuffled.geometric import _dominating_law

    print(f"== G2. geometric dominating law's set-up, ε0 = {eps0}, e^ε = 1.2 (balls)")
    print(f"{'m':>5} {'fast cpu s':>11} {'O(m^3) cpu s':>13} {'same weights':>13}")
    ee = arb("1.2")
    for m in (20, 50, 100, 200, 400):
        g = Geometric(m, epsilon0=eps0)
        fast, _, cf = timed(_dominating_law, g, None, ee, fast=True)
        if m <= 100:
            slow, _, cs = timed(_dominating_law, g, None, ee, fast=False)
            same = fast[0] == slow[0] and all(
                arith.ball(a).contains(arith.ball(b)) or arith.ball(b).contains(arith.ball(a))
                for a, b in zip(fast[1], slow[1])
            )
            print(f"{m:>5} {cf:11.3f} {cs:13.3f} {str(same):>13}")
        else:
            print(f"{m:>5} {cf:11.3f} {'-':>13} {'-':>13}")


def main(quick: bool = False):
    ns = [10**3, 10**4, 10**5] if quick else [10**3, 10**4, 10**5, 10**6]
    fast_table([10**4, 10**6] if quick else [10**4, 10**5, 10**6])
    geometric_table((10**4, 10**6) if quick else (10**4, 10**6, 10**9))
    with arith.precision(128):
        print("== 1. seconds per δ(ε), ε0 = 2, ε = 2/sqrt(n) (128-bit balls, tol 2^-80)")
        print(
            f"{'mechanism':>20} {'routine':>14} {'n':>8} {'wall s':>7} {'cpu s':>7} {'width':>8} {'delta (upper)':>14}"
        )
        for name, m in mechanisms("2"):
            for n in ns:
                eps = fmpq(2 * 10**6 // int(math.isqrt(n) * 1000), 10**3)
                for rname, f in (
                    ("merged BV", blanket_view_delta_merged),
                    ("clone", clone_delta),
                    ("same (lower)", same_family_delta),
                ):
                    v, w, c = timed(f, m, n, epsilon=eps)
                    print(f"{name:>20} {rname:>14} {n:>8} {w:7.2f} {c:7.2f} {width(v):>8} {up(v):>14}")
        print("\n== 2. merged blanket view vs the exact Lemma 5.3 mixture (ε0 = 2)")
        print(f"{'mechanism':>20} {'n':>6} {'eps':>6} {'exact BV':>14} {'merged BV':>14} {'ratio':>7} {'mixture s':>9}")
        for name, m in mechanisms("2"):
            for n, eps in ((200, "0.3"), (1000, "0.15")):
                ex, w, _ = timed(blanket_view_delta, m, n, epsilon=eps)
                mg = blanket_view_delta_merged(m, n, epsilon=eps)
                r = (
                    float(arith.ball(mg).mid()) / float(arith.ball(ex).mid())
                    if float(arith.ball(ex).mid()) > 0
                    else float("nan")
                )
                print(f"{name:>20} {n:>6} {eps:>6} {up(ex):>14} {up(mg):>14} {r:7.4f} {w:9.2f}")
        print(
            "\n== 3. ε(n) at δ = 1e-6, ε0 = 2: certified upper end (best fast bound) and lower end (same-family dataset)"
        )
        print(f"{'mechanism':>20} {'n':>8} {'eps upper':>10} {'which':>10} {'eps lower':>10} {'calib s':>8}")
        all_m = mechanisms("2") + [("ldp (any)", LDP(epsilon0="2"))]
        for name, m in all_m:
            for n in ns[:2] if quick else ns[:3]:
                t = time.perf_counter()
                bc = epsilon_upper(lambda e: clone_delta(m, n, epsilon=e), "1e-6", hi=2)
                best, which = bc.upper, "clone"
                if not isinstance(m, LDP):
                    from blanket.exact.shuffled.oracles import blanket_view_upper

                    bb = epsilon_upper(lambda e: blanket_view_upper(m, n, epsilon=e), "1e-6", hi=2)
                    if bb.upper < best:
                        best, which = bb.upper, "blanket"
                # the lower end of the bracket fails the target: the true ε of this dataset pair is above it
                # (for ldp the witness is binary RR with the same ε0)
                lo = epsilon_for_delta(lambda e: same_family_delta(m, n, epsilon=e), "1e-6", hi=2, rel_tol="1e-4")
                lo_s = f"{float(lo.lower):.5f}"
                print(f"{name:>20} {n:>8} {float(best):10.5f} {which:>10} {lo_s:>10} {time.perf_counter() - t:8.1f}")


def _bisect(pred, lo: float, hi: float, steps: int = 14) -> tuple[float, float]:
    """``pred`` true at ``lo``, false at ``hi`` (monotone): the last true and first false points after ``steps``."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


def bracket_mechanisms(eps0: str = "2") -> list:
    """:func:`mechanisms`, local hashing with a stated 3-wise independent family (``triple = 1/g²``: the
    third-value lower end, issue 25) and local hashing with k = 64, g = 3 (no stated 3-wise collision)."""
    e = math.exp(float(eps0))
    g = max(2, round(e + 1))
    return [
        *mechanisms(eps0),
        (f"olh 3-wise g={g}", OLH(2**20, g, epsilon0=eps0, triple=fmpq(1, g * g))),
        ("olh k=64 g=3", OLH(64, 3, epsilon0=eps0)),
    ]


def bracket_table(
    ns=(10**3, 10**4), eps0: str = "2", target: str = "1e-6", exact_view: bool = False, only: str | None = None
):
    from blanket.exact.accounting import certified as cb
    from blanket.exact.shuffled import oracle_exact

    tq = arith.exact(target)
    t = Fraction(int(tq.p), int(tq.q))
    print(f"\nB. certified epsilon bracket at delta = {target}, eps0 = {eps0} (14 bisection steps per end)")
    print(
        f"{'oracle':>22} {'n':>8} {'lower':>9} {'upper':>9} {'ratio':>7} {'sec':>7} {'low s':>7} {'#xv':>4} {'xv s':>7}"
        "  lower from / upper from"
    )
    for label, m in bracket_mechanisms(eps0):
        if only is not None and only not in label:
            continue
        for n in ns:
            t0 = time.perf_counter()
            lo_from: list = []

            def low_ok(e, m=m, n=n, lo_from=lo_from):
                v, where = cb.lower_bound(m, n, epsilon=f"{e:.6f}")
                ok = v is not None and arith.endpoints(v)[0] > t
                if ok:
                    stat = ", joined statistic" if "joined" in where else ", hits of reports missing z"
                    stat = ", full view" if "full view" in where else stat
                    if "every hash family" in where:  # OLH without a stated 3-wise collision (exact.shuffled.olh_every)
                        stat = ", single-hit, every hash family, t = " + where.rsplit("t = ", 1)[1]
                    lo_from[:] = [where.split(" (")[0] + (stat if ("lumped" in where or "full view" in where) else "")]
                return ok

            up_from: list = []
            evals = [0, 0.0]  # exact five-atom view: evaluations, seconds

            def up_ok(e, m=m, n=n, up_from=up_from, evals=evals):
                # the routes of cb.upper_routes, the exact five-atom view last and only when needed: at e at or below
                # the certified lower end no upper bound can meet the target (δ(e) ≥ δ(lower end) > target), and
                # when a cheaper route already meets it the answer is decided; otherwise the same as cb.best_upper
                es = f"{e:.6f}"
                if e <= lo:
                    return False
                routes = cb.upper_routes(m, n)
                if exact_view and not any(r.name == cb.EXACT_FIVE for r in routes):
                    routes.append(
                        cb.Route(cb.EXACT_FIVE, lambda **kw: oracle_exact.exact_view_or_none(m, n, **kw), (), "bench")
                    )
                for r in sorted(routes, key=lambda r: r.name == cb.EXACT_FIVE):
                    t1 = time.perf_counter()
                    v = r.compute(epsilon=es)
                    if r.name == cb.EXACT_FIVE:
                        evals[0] += 1
                        evals[1] += time.perf_counter() - t1
                    if v is not None and cb.upper_end(v) <= t:
                        up_from[:] = [r.name]
                        return True
                return False

            lo, _ = _bisect(low_ok, 0.0, float(eps0))
            t_lo = time.perf_counter() - t0
            _, hi = _bisect(lambda e: not up_ok(e), 0.0, float(eps0))
            sec = time.perf_counter() - t0
            print(
                f"{label:>22} {n:>8} {lo:9.5f} {hi:9.5f} {hi / lo if lo else float('inf'):7.3f} {sec:7.1f} {t_lo:7.1f}"
                f" {evals[0]:>4} {evals[1]:7.1f}  "
                f"{(lo_from or ['-'])[0]} / {(up_from or ['-'])[0]}",
                flush=True,
            )


if __name__ == "__main__":
    if "--bracket" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        if "--third-work" in sys.argv:  # lift the full-view third value's cost guard (exact.shuffled.oracle_third)
            from blanket.exact.shuffled import oracle_third

            oracle_third.MAX_WORK = oracle_third.BINNED_MAX_WORK = int(
                float(sys.argv[sys.argv.index("--third-work") + 1])
            )
        ns = (10**3, 10**4)
        if "--ns" in sys.argv:  # e.g. --ns 10000 (comma-separated)
            ns = tuple(int(float(v)) for v in sys.argv[sys.argv.index("--ns") + 1].split(","))
        bracket_table(ns=ns, exact_view="--exact-view" in sys.argv, only=only)
    elif "--geometric" in sys.argv:
        geometric_table()
    elif "--fast-only" in sys.argv:
        fast_table([10**4, 10**6] + ([10**9] if "--n9" in sys.argv else []))
    else:
        main(quick="--quick" in sys.argv)
