"""Benchmark of exact.accounting.renyi: Rényi moments of shuffled RR at large n, the worst case over datasets, k-RR families,
and ``blanket renyi --delta`` end to end.

Run: ``python tests/benchmarks/bench_renyi.py [--quick] [--full] [--workers N]``.  Prints tables
(n, seconds, relative enclosure width, peak RSS of the process that ran the row) at 128 bits.
Every row runs in a fresh interpreter (subprocess), so its peak RSS is its own (for the worst case with
``--workers`` > 1 the pool's worker processes are not included).  Wall-clock times on whatever
machine runs it (the project machine has 2 cores shared by several people: expect noise).

Targets (issue 14, same as δ(ε)): one dataset at n = 10^6 in about a second and n = 10^9 in
seconds; the binary worst case over all datasets at n = 10^6 in minutes on 2 cores;
``blanket renyi --delta`` at n = 10^4 in seconds.

Measured 2026-11-25 on the project machine (2 cores, light load from other sessions; ε0 = 1, λ = 2
unless said), before → after issue 14:

* one dataset (ball route, the printed value): n = 10^6 c = n/3 0.065 s → 0.068 s; n = 10^9
  c = 0 0.75 s → 0.73 s, c = n/3 2.9 s / 550 MB → 3.9 s / 477 MB (unchanged route; float route
  for the pre-scan: 0.07 s at 10^6, 0.22 s at 10^9 with c = 0).
* worst case over all datasets: n = 10^4 15.8 s (one core) → 0.85 s (2 workers), same enclosure;
  λ = 64 1.2 s; λ = 5/2 (ball scan, parallel) 23 s; n = 10^5 (≈ 500 s extrapolated) → 19.5 s;
  n = 10^6 → 404 s under heavy load (load average ≈ 8; about 4:44 of scan CPU time, i.e. ≈ 2.5 min
  of scan on 2 idle cores), 294 MB, with an enclosure of relative width 5·10⁻⁶ (the pre-scan
  cannot separate the datasets there; see ``RenyiValue.unresolved``).
* ``blanket renyi -n 10000 --order 2 --delta 1e-6``: > 150 s (killed; the issue reports > 15 min)
  → 4.5 s end to end (2 workers).

Second round (branch renyi2, the excess kernel for E − 1 and deep cut-offs; 2026-11-25 02:10–03:20,
the machine shared by several sessions, load average 3–10 on 2 cores: every time is inflated,
compare CPU seconds where given):

* ``blanket renyi -n 10^4 --order 2 --delta 1e-6``: 40 s (task brief) / 145 s (load ≈ 5) → 4.2 s
  (load ≈ 2), 5.0 s (load ≈ 3.7).  The chosen order λ = 256 needs the window cut-off 2^-426: the
  float route refused it (cut-off limit 2^-400, and windows reaching the support end with values
  below 2^-500) and two ball sweeps ran; the worst case at λ = 256, n = 10^4: 22.8 s → 1.4–2.2 s.
* one dataset, ball route, n = 10^9, c = n/3: 4.6 s → 3.2–3.6 s (the shared engine's window);
  c = 0 0.56 s → 1.2 s (load).  Target ≤ 2 s not reached for c = n/3 (the arb_poly product of two
  windows of 2.3·10^5 and 3.3·10^5 balls takes ≈ 2.3 s).
* relative width on E − 1 of one dataset's float enclosure, moment kernel → excess kernel:
  n = 10^6 c = 0 4.3e-7 → 4.4e-10 (0.045 s), c = n/3 3.5e-6 → 3.8e-9 (0.13 s); n = 10^9 c = 0
  4.4e-4 → 1.4e-8 (0.43 s).
* worst case over all datasets, n = 10^6, 2 workers: 404 s with relative width 5·10⁻⁶ (unresolved)
  → 1315 s wall under load average 8–10 (the job got 64% of one core), 695 s user + 157 s system CPU
  (≈ 7 min on 2 idle cores), peak RSS 137 MB, c* = 0, relative width 1.0·10⁻²⁵, nothing unresolved.
  (The moment kernel's bounds overlapped for 981 888 of the 10^6 (c, x) pairs; the excess kernel
  costs ≈ 2–3× the moment kernel per block.)  n = 10^5: 33 s (load ≈ 4), width 1e-27.
* k-RR families unchanged (ball route, nested loops; load ≈ 9): k = 3 same 10^4 27.6 s, k = 10 same
  10^4 18.1 s, k = 3 third 10^4 4.1 s, k = 10 third n = 300 5.6 s (O(W³)).

Third round (branch renyi3, 2026-11-25 03:30, load average 1.2–1.5 on 2 cores, the full test suite
running on the other core for the last two rows): one dataset, ball route, ε0 = 1, λ = 2, before (main)
→ after, same enclosure (identical balls printed):

* n = 10^9, c = n/3: 3.58 s / 498 MB → 1.74–1.81 s / 355 MB (target ≤ 2 s met).  Of the 1.8 s: windows
  0.35 s (one pass, ``binomial.window_to_tail``; main computed each window 4 times, ≈ 1.1 s), the exact
  integer product with its radii (``binomial.ball_product``, Lemma R8) ≈ 0.8 s (main's ``arb_poly``
  product ≈ 2.0 s), the moment loop ≈ 0.55 s.  Row ``ball-arb_poly`` (new windows, old product): 2.95 s.
* n = 10^9, c = 0: 1.11 s → 0.60 s (one window; the windows in one pass).
* n = 10^6: c = 0 0.021 s → 0.020 s, c = n/3 0.072 s → 0.051 s (target ≤ 0.2 s).

Fourth round (branch rfam, the k-RR families by the Taylor kernel ``exact.accounting.renyi_families``,
docs/numerics.md Lemmas F1–F2; 2026-11-25 05:10–05:30, load average 3–11 on 2 cores: times inflated).
k = 10, ε0 = 1, 128 bits, every family (same / neighbour / third), λ = 2, 8, 32:

* n = 10^4, 10^5, 10^6, 10^9: 0.011–0.19 s per value, peak RSS 51–54 MB (the interpreter), relative width
  of D_λ 10⁻³⁵–10⁻²⁸ (targets: ≤ 2 s at 10^6, ≤ 60 s at 10^9, memory O(√n) — met; the kernel's cost and
  memory do not depend on n).  Before (nested windows, ``route="nested"`` rows, same machine):
  k = 10 same n = 10^4 3.8 s, k = 3 same 10^4 6.8 s, k = 3 third 10^4 2.7 s, k = 10 third n = 300 4.0 s,
  n = 1000 74.8 s (O(W³)); n ≥ 10^5 with k = 10 third not feasible.  After: 0.03, 0.03, 0.21, 0.21, 0.20 s.
* ε0 = 3, λ = 8, n = 10^5…10^9: 0.014–0.15 s; ε0 = 5, λ = 8, third: n = 10^6 0.26 s, 10^9 0.08 s.
* Not improved: large ε0 at small n, where the Taylor box does not close (ε0 = 5, k = 10, third,
  n = 10^4: the nested route, 152 s under load ≈ 11; it shows a progress bar).
* ``blanket renyi --k 10 --epsilon0 1 -n 10^9 --order 32 --dataset third``: refused before (the linear
  memory guard: "476.8 GiB") → 0.56 s end to end, 55 MB; with ``--delta 1e-6`` (15 orders) 0.4–1.5 s
  at n = 10^4…10^9.

Fifth round (branch rworst, the binary worst case, 2026-11-25 05:00–05:45, load average 5–10 on 2 cores: wall times inflated 3–7×,
compare CPU seconds, summed over the parent and the pool workers).  Profile (cProfile, n = 10^5; one block
at 10^6): OpenBLAS ran every ``B × B`` by ``B × W`` product of the scan multi-threaded inside each worker
process, ≈ 4× the CPU of one thread on the busy machine (1.8 ms vs 10–20 ms per product); then copies
(``ascontiguousarray`` + ``hstack`` of the shift matrices, ≈ 20% at 10^5), the element-wise passes and the
per-block window convolutions.  Changes: one BLAS thread per worker (threadpoolctl), the block size by n
(``sweep_block``: 32 at 10^5, 128 at 10^6), the three products as one, shift matrices filled in place,
Bernoulli rows cached, fewer passes (same values).  Worst case over all datasets, ε0 = 1, λ = 2:

* n = 10^5: 20–33 s wall (2 workers) → 11.5 s wall, 16.1 CPU s (2 workers, load ≈ 1).
* n = 10^6: 852 CPU s (695 user + 157 system; ≈ 7 min on 2 idle cores) → 238 s wall, 317 CPU s (2 workers,
  load average 2–3), peak RSS 88 MB parent / 245 MB worker, c* = 0, relative width 1.1·10⁻³¹, nothing
  unresolved (an earlier run at load 8–10: 1466 s wall, 390 CPU s).
"""

import argparse
import ast
import os
import subprocess
import sys
import time

from blanket.exact.accounting import renyi as xr
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.accounting import renyi_float as rfl
from blanket.exact.mechanisms.finite import KRR, BinaryRR
from blanket.exact.numbers import arith


def rel(v):
    if not hasattr(v, "rad"):
        return "exact"
    w = arith.rel_width(v)
    return f"{float(w):.1e}" if w is not None else "-"


def isolated(fn, *args):
    """``(seconds, result, peak RSS in MB)`` of ``fn(*args)`` run in a fresh interpreter (a subprocess: its
    peak RSS is its own, and the worst case may start its own process pool there)."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        f"import sys, time, resource; sys.path.insert(0, {here!r}); import bench_renyi as b; "
        f"t = time.perf_counter(); out = b.{fn.__name__}(*{args!r}); dt = time.perf_counter() - t; "
        "print(repr((dt, out, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "BLANKET_PROGRESS": "0"}
    )
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip()[-400:])
    return ast.literal_eval(res.stdout.strip().splitlines()[-1])


def _one(eps0, n, c, order, route):
    mech = BinaryRR(epsilon0=eps0)
    with arith.precision(128):
        if route in ("ball", "ball-arb_poly"):
            if route == "ball-arb_poly":
                xr.FMPZ_PRODUCT_MIN = 10**15  # the window product by arb_poly (before Lemma R8)
            r = xr.renyi_binary(mech, n, c, order=order)
            return float(r.value.mid()), rel(r.value)
        if route == "excess":
            e1, e0 = rfl.float_excess_binary_block(mech, n, c, 1, xr.parse_order(order))[0]
            m = e1.max(e0)
            return float(m.mid()), f"{float(m.rad() / m.mid()):.1e} (of E-1)"
        m1, m0 = rfl.float_moments_binary(mech, n, c, xr.parse_order(order))
        m = m1.max(m0)
        return float(m.mid()), f"{float(m.rad() / (m - 1).mid()):.1e} (of E-1)"


def one_dataset(ns, order="2", eps0="1", route="ball"):
    print(f"\nbinary RR, one dataset, both directions (epsilon0 = {eps0}, lambda = {order}), {route} route, 128 bits")
    head = {"ball": "D_lambda", "ball-arb_poly": "D_lambda", "float": "moment E", "excess": "E - 1"}[route]
    print(f"{'n':>11} {'c':>10} {'seconds':>8} {head:>12} {'rel.width':>18} {'RSS MB':>7}")
    for n in ns:
        for c in (0, n // 3):
            if route in ("float", "excess") and c and n > 10**7:
                continue  # O(W_a W_b) convolution: the float route is the sweep's kernel, not the one-dataset route
            dt, (v, w), rss = isolated(_one, eps0, n, c, order, route)
            print(f"{n:>11} {c:>10} {dt:>8.3f} {v:>12.4e} {w:>18} {rss:>7}")


def _worst(eps0, n, order, workers):
    mech = BinaryRR(epsilon0=eps0)
    with arith.precision(128):
        r = xr.renyi_binary_worst(mech, n, order=order, workers=workers, progress=False)
        return r.c, float(r.value.mid()), rel(r.value), r.unresolved


def _worst_cpu(eps0, n, order, workers):
    """:func:`_worst` and the CPU seconds (user + system) of this process and its finished pool workers."""
    import resource

    from blanket.exact.runtime import executors

    out = _worst(eps0, n, order, workers)
    executors.shutdown(wait=True)
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def worst(ns, order="2", eps0="1", workers=2):
    print(
        f"\nbinary RR, worst case over all datasets (epsilon0 = {eps0}, lambda = {order}), {workers} worker(s), 128 bits"
        " (float scan in blocks + pruning + ball route for the candidates)"
    )
    print(f"{'n':>9} {'seconds':>8} {'c*':>6} {'D_lambda':>12} {'rel.width':>9} {'unresolved':>10} {'RSS MB':>7}")
    for n in ns:
        dt, (c, v, w, unres), rss = isolated(_worst, eps0, n, order, workers)
        print(f"{n:>9} {dt:>8.2f} {c:>6} {v:>12.4e} {w:>9} {unres:>10} {rss:>7}")


def _family(k, fam, n, order, eps0, route="auto"):
    mech = KRR(k, epsilon0=eps0)
    with arith.precision(128):
        if route == "nested":  # the reference route (nested windows), as before issue 14
            lam = xr.parse_order(order)
            if fam in ("same", "neighbour"):
                ms = [xr.moment_krr_family_nested(mech, n, f, order=lam) for f in ("same", "neighbour")]
            else:
                ms = [xr.moment_krr_family_nested(mech, n, fam, order=lam)]
            m = arith.maximum(ms)
            v = arith.ball(m).log() / (arith.ball(lam) - 1)
            return float(v.mid()), rel(v)
        r = rf.renyi_krr_family(mech, n, fam, order=order)
        return float(arith.ball(r.value).mid()), rel(r.value)


def families(cases, order="2", eps0="1", route="auto"):
    what = {"auto": "dispatcher: Taylor kernel, nested windows for small n", "nested": "nested windows (before)"}[route]
    print(f"\nk-RR dataset families (max over both directions; epsilon0 = {eps0}, lambda = {order}), 128 bits ({what})")
    print(f"{'k':>4} {'family':>10} {'n':>10} {'seconds':>8} {'D_lambda':>12} {'rel.width':>9} {'RSS MB':>7}")
    for k, fam, n in cases:
        dt, (v, w), rss = isolated(_family, k, fam, n, order, eps0, route)
        print(f"{k:>4} {fam:>10} {n:>10} {dt:>8.3f} {v:>12.4e} {w:>9} {rss:>7}")


def families_scale(ns=(10**4, 10**5, 10**6, 10**9), orders=("2", "8", "32"), eps0="1", k=10):
    """The issue-14 targets for the families: k = 10, n up to 10^9 (≤ 2 s at 10^6, ≤ 60 s at 10^9)."""
    for order in orders:
        families([(k, fam, n) for fam in ("same", "neighbour", "third") for n in ns], order=order, eps0=eps0)


def cli_delta(ns, workers=2):
    print(
        f"\n`blanket renyi --epsilon0 1 -n N --order 2 --delta 1e-6 --workers {workers}` end to end (a fresh process)"
    )
    print(f"{'n':>9} {'seconds':>8}  result")
    for n in ns:
        dt, line = cli_delta_row(n, workers)
        print(f"{n:>9} {dt:>8.2f}  {line}")


def cli_delta_row(n, workers=2):
    """``(seconds, the result line)`` of ``blanket renyi … --delta 1e-6`` at ``n`` users, end to end in a fresh process."""
    t = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "blanket.reports.cli",
            "renyi",
            "--epsilon0",
            "1",
            "-n",
            str(n),
            "--order",
            "2",
            "--delta",
            "1e-6",
            "--workers",
            str(workers),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "BLANKET_PROGRESS": "0"},
    )
    dt = time.perf_counter() - t
    line = next((s.strip() for s in out.stdout.splitlines() if "(improved)" in s), out.stderr.strip()[-120:])
    return dt, line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    if a.quick:
        one_dataset([10**4, 10**6])
        one_dataset([10**6], route="float")
        one_dataset([10**6], route="excess")
        worst([1000, 10**4], workers=a.workers)
        cli_delta([10**4], workers=a.workers)
        families([(3, "same", 1000), (3, "third", 300), (10, "third", 100)])
        families_scale(ns=(10**4, 10**6), orders=("2",))
        return
    one_dataset([10**4, 10**6, 10**9])
    one_dataset([10**6, 10**9], route="ball-arb_poly")
    one_dataset([10**6], order="5/2")
    one_dataset([10**6, 10**9], route="float")
    one_dataset([10**6, 10**9], route="excess")
    worst([1000, 10**4, 10**5] + ([10**6] if a.full else []), workers=a.workers)
    worst([10**4], order="64", workers=a.workers)
    cli_delta([10**4, 10**5], workers=a.workers)
    families(
        [
            (3, "same", 10**3),
            (3, "same", 10**4),
            (10, "same", 10**4),
            (3, "third", 10**4),
            (10, "third", 300),
            (10, "third", 1000),
        ]
    )
    families([(3, "same", 10**4), (10, "same", 10**4), (3, "third", 10**4), (10, "third", 300)], route="nested")
    families_scale()
    families_scale(ns=(10**5, 10**6, 10**9), orders=("8",), eps0="3")


if __name__ == "__main__":
    main()
