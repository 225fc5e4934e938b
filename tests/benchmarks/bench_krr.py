"""Timing of exact.shuffled.krr at deployment scale (issue 14): prints tables of n, seconds, enclosure width, peak RSS.

Run: ``python tests/benchmarks/bench_krr.py [--quick | --full]``.  Not a test;
the numbers depend on the machine's load (the project's machine is a shared
2-core box: report wall *and* CPU seconds).  Each measurement runs in a fresh
child process, so "peak RSS" is the peak of that one evaluation (plus the
interpreter and python-flint, about 40 MB).

Targets (2 cores, δ = 1e-6, ε0 = 1):

=========================================  ==============  ==============
computation                                n = 10^6        n = 10^9
=========================================  ==============  ==============
blanket view / stronger clones, k = 2      ≤ 1 s           ≤ 10 s
k-RR blanket view, k = 10                  ≤ 2 s           ≤ 60 s
k-RR families (same/neighbour/third)       ≤ 2 s           ≤ 60 s
calibration (ε for δ)                      ≤ 10 × one      same
=========================================  ==============  ==============

"before" rows run the previous (grid) engine, ``engine="grid"``, where it
finishes in reasonable time; the issue's measurements are quoted for the rest.
ε for each n is chosen so that δ ≈ 1e-6 (a Gaussian float guess, rounded to
four digits: the printed δ says where it landed).
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import sys
import time


def _child(job):
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled.krr import _gaussian_guess, calibrate_epsilon, delta_blanket_view, delta_krr_family
    from flint import fmpq

    kind, k, n, engine = job
    with arith.precision(128):
        mech = KRR(k, epsilon0=1)
        view = "blanket" if kind in ("blanket", "calibrate-blanket") else kind.replace("calibrate-", "")
        g = _gaussian_guess(mech, n, view, 1e-6)
        eps = arith.exact(f"{g:.4g}")  # the decimal string, parsed exactly
        t, c = time.perf_counter(), time.process_time()
        evals = ""
        if kind.startswith("calibrate-"):
            br = calibrate_epsilon(mech, n, "1e-6", view=view, engine=engine)
            v = None
            evals = f"{br.evaluations} evals, eps in [{float(br.lower):.7g}, {float(br.upper):.7g}]"
            eps = br.upper
        elif kind == "blanket":
            v = delta_blanket_view(mech, n, epsilon=eps, engine=engine)
        else:
            v = delta_krr_family(mech, n, kind, epsilon=eps, engine=engine)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if v is None:  # calibration: the bracket is in the notes
            width, up = "bracket", float(target_up(br))
        elif isinstance(v, fmpq):
            width, up = "exact", float(v.p) / float(v.q)
        else:
            lo, hi = arith.endpoints(v)
            width, up = f"{float((hi - lo) / hi) if hi > 0 else 0.0:.1e}", float(hi)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return float(eps), up, width, wall, cpu, rss, evals


def target_up(br):
    """The upper end of the enclosure of δ at the certified ε (≤ the target)."""
    from blanket.exact.numbers import arith

    d = br.delta_upper
    return float(arith.endpoints(d)[1]) if not hasattr(d, "p") else float(d.p) / float(d.q)


def run(job):
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(_child, (job,))


def row(label, k, n, job, target=""):
    eps, up, width, wall, cpu, rss, evals = run(job)
    print(
        f"{label:>22} {k:>3} {n:>11.0e} {eps:>11.4e} {up:>11.4e} {width:>8} {wall:>8.2f} {cpu:>7.2f} {rss:>7.0f} "
        f"{target:>8} {evals}",
        flush=True,
    )
    return cpu


def main(mode: str = "default"):
    big = {
        "quick": [10**4, 10**6],
        "default": [10**4, 10**5, 10**6, 10**7, 10**9],
        "full": [10**4, 10**5, 10**6, 10**7, 10**8, 10**9],
    }[mode]
    print(
        "== shuffled k-RR, ε0 = 1, δ ≈ 1e-6, 128-bit balls, tol 2^-80 (wall seconds are load-dependent; "
        "'width' = relative width of the enclosure of δ)"
    )
    print(
        f"{'computation':>22} {'k':>3} {'n':>11} {'eps':>11} {'delta (up)':>11} {'width':>8} {'wall s':>8} "
        f"{'cpu s':>7} {'RSS MB':>7} {'target':>8} notes"
    )
    targets = {(2, 10**6): "1 s", (2, 10**9): "10 s", (10, 10**6): "2 s", (10, 10**9): "60 s"}
    one = {}
    for n in big:
        one[("blanket", 2, n)] = row("blanket view k=2", 2, n, ("blanket", 2, n, None), targets.get((2, n), ""))
    for n in big:
        one[("blanket", 10, n)] = row("blanket view", 10, n, ("blanket", 10, n, None), targets.get((10, n), ""))
    for fam in ("same", "neighbour", "third"):
        for n in big:
            one[(fam, 10, n)] = row(f"family {fam}", 10, n, (fam, 10, n, None), targets.get((10, n), ""))
    print("== certified calibration (ε for δ = 1e-6): 'notes' gives the evaluations and the bracket; target ≤ 10 × one")
    cal_ns = [10**6] if mode != "full" else [10**6, 10**9]
    for n in cal_ns:
        for k, view in ((2, "blanket"), (10, "blanket"), (10, "same"), (10, "third")):
            w = row(f"calibrate {view}", k, n, (f"calibrate-{view}", k, n, None))
            base = one.get((view, k, n))
            if base:
                print(f"{'':>22} ratio to one evaluation (CPU seconds; wall is load-dependent): {w / base:.1f}")
    print("== before: the previous grid engine (engine='grid'), same machine; the issue's numbers for the rest")
    print("   issue: binary RR blanket view n = 10^6: 288 s, 205 MB; 10-RR blanket view n = 10^5: 43-128 s")
    for k, n in ((2, 10**4), (10, 10**4)) + (((2, 10**5), (10, 10**5)) if mode != "quick" else ()):
        row("blanket view (grid)", k, n, ("blanket", k, n, "grid"))
    for n in (10**4,) if mode == "quick" else (10**4, 10**5):
        row("family third (grid)", 10, n, ("third", 10, n, "grid"))


if __name__ == "__main__":
    main("quick" if "--quick" in sys.argv else "full" if "--full" in sys.argv else "default")
