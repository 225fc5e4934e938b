"""The issue-14 targets table in one run: every row measured by the kernel the topical benchmark uses.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_targets.py [--quick | --full] [--workers N]``.

Prints one table: computation, n, wall seconds, relative width of the certified enclosure, peak RSS of
the process that ran the row, the target (issue 14; 2 cores, δ = 1e-6, ε0 = 1) and the "before" figure
(the issue's measurements and the notes of earlier sessions, quoted, not re-measured).  Each row runs in a
fresh process through the function of the benchmark that owns it (nothing is re-implemented here):

* ``bench_binary.row_single`` / ``row_worst`` — binary RR, one dataset; the exact δ worst case;
* ``bench_krr.run`` — blanket view (k = 2, 10), k-RR families, certified calibration;
* ``bench_renyi._worst`` / ``cli_delta_row`` — the Rényi worst case, ``blanket renyi --delta``;
* ``bench_certify.run_certify`` — ``blanket certify examples/telemetry.toml`` (TeX included).

``--quick`` (about 3 minutes on 2 idle cores) keeps n ≤ 10^6 and the worst cases at n = 10^5; the default
adds n = 10^9; ``--full`` adds the two worst cases at n = 10^6 (minutes each).  ``bench_parallel.py`` has the
executor comparison (1 worker / 2 workers / Dask) and is not repeated here.

Wall-clock seconds on a shared machine are inflated by the others' load: the "cpu" note of the worst-case
rows gives the CPU seconds summed over the processes where the benchmark reports them.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_binary  # noqa: E402
import bench_certify  # noqa: E402
import bench_krr  # noqa: E402
import bench_renyi  # noqa: E402

HEAD = f"{'computation':<42} {'n':>7} {'seconds':>8} {'rel.width':>10} {'RSS MB':>7} {'target':>14}  before / notes"


def _n(n):
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10**e else str(n)


def line(what, n, sec, width, rss, target, before, note=""):
    rss = f"{rss:.0f}" if isinstance(rss, float | int) else rss
    s = f"{what:<42} {_n(n):>7} {sec:>8.2f} {width:>10} {rss:>7} {target:>14}  {before}"
    print(s + (f"; {note}" if note else ""), flush=True)


def binary_one(n, c, target, before):
    r = bench_binary.run(bench_binary.row_single, n, c)
    what = f"binary RR, one dataset c = {'0' if c == 0 else 'n/3'}, δ(ε)"
    line(what, n, r["sec"], r["rel"], r["rss"], target, before, f"ε = {r['eps']:.4g} calibrated in {r['calib']:.1f} s")


def binary_worst(n, workers, target, before):
    r = bench_binary.run(bench_binary.row_worst, n, workers)
    line(
        f"binary RR δ worst case, {workers} workers",
        n,
        r["sec"],
        r["rel"],
        r["rss"],
        target,
        before,
        f"c* = {r['c']} ({r['direction']}), estimate {r['est']:.0f} s",
    )


def krr(kind, k, n, target, before):
    eps, up, width, wall, cpu, rss, evals = bench_krr.run((kind, k, n, None))
    label = {"blanket": "blanket view, δ(ε)", "calibrate-blanket": "blanket view, calibration ε(δ)"}
    what = f"{k}-RR {label.get(kind, f'family {kind}, δ(ε)')}"
    line(what, n, wall, width, rss, target, before, evals or f"cpu {cpu:.2f} s")
    return cpu


def renyi_worst(n, workers, target, before):
    dt, ((c, v, w, unres), cpu), rss = bench_renyi.isolated(bench_renyi._worst_cpu, "1", n, "2", workers)
    line(
        f"Rényi worst case λ = 2, {workers} workers",
        n,
        dt,
        w,
        rss,
        target,
        before,
        f"cpu {cpu:.1f} s (all processes), c* = {c}, unresolved {unres} (RSS: the parent)",
    )


def renyi_delta(n, workers, target, before):
    dt, res = bench_renyi.cli_delta_row(n, workers)
    line("`blanket renyi --delta 1e-6`, end to end", n, dt, "-", "-", target, before, res[:70])


def renyi_one(n, c, target, before):
    dt, (v, w), rss = bench_renyi.isolated(bench_renyi._one, "1", n, c, "2", "ball")
    what = f"Rényi λ = 2, binary RR, one dataset c = {'0' if c == 0 else 'n/3'}"
    line(what, n, dt, w, rss, target, before, f"D_2 = {v:.4e}")


def renyi_family(fam, n, target, before):
    dt, (v, w), rss = bench_renyi.isolated(bench_renyi._family, 10, fam, n, "2", "1")
    line(f"Rényi λ = 2, 10-RR family {fam}", n, dt, w, rss, target, before, f"D_2 = {v:.4e}")


def certify(target, before):
    dt, _cpu, rss, verdict, how, rc = bench_certify.run_certify()
    line(
        "`blanket certify examples/telemetry.toml`",
        10**5,
        dt,
        "-",
        rss,
        target,
        before,
        f"{verdict} (exit {rc}); {how[:60]}",
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="n <= 10^6, worst cases at 10^5 (about 3 minutes)")
    ap.add_argument("--full", action="store_true", help="also the worst cases at n = 10^6 (minutes each)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    w = a.workers
    print("issue 14 targets (ε0 = 1, δ = 1e-6, 128 bits; wall seconds on a shared 2-core machine)")
    print(HEAD)
    certify("≤ 20 s", "~3 min")  # first: its peak RSS is read from RUSAGE_CHILDREN (the max over finished children)
    binary_one(10**6, 0, "≤ 0.2 s", "0.5 s")
    binary_one(10**6, 10**6 // 3, "≤ 0.2 s", "-")
    if not a.quick:
        binary_one(10**9, 0, "≤ 2 s", "8 GB in 60 s, no answer")
        binary_one(10**9, 10**9 // 3, "≤ 2 s", "8 GB in 60 s, no answer")
    ns = [10**6] if a.quick else [10**6, 10**9]
    one = {}
    for n in ns:
        one[(2, n)] = krr("blanket", 2, n, "≤ 1 s" if n == 10**6 else "≤ 10 s", "288 s, 205 MB" if n == 10**6 else "-")
    for n in ns:
        one[(10, n)] = krr(
            "blanket", 10, n, "≤ 2 s" if n == 10**6 else "≤ 60 s", "43-128 s at n = 10^5" if n == 10**6 else "-"
        )
    for fam in ("same", "neighbour", "third"):
        for n in ns:
            krr(fam, 10, n, "≤ 2 s" if n == 10**6 else "≤ 60 s", "-")
    for k in (2, 10):
        cpu = krr("calibrate-blanket", k, 10**6, "≤ 10 × one", "-")
        print(f"{'':<42} {'':>7} ratio to one evaluation (CPU seconds): {cpu / one[(k, 10**6)]:.1f}", flush=True)
    binary_worst(10**5, w, "much faster", "64-186 s (one core)")
    if a.full:
        binary_worst(10**6, w, "≤ 5 min", "-")
    for n in ns:
        for c in (0, n // 3):
            renyi_one(n, c, "≤ 0.2 s" if n == 10**6 else "≤ 2 s", "3.6 s (ball route, 10^9)" if n == 10**9 else "-")
    for fam in ("same", "neighbour", "third"):
        for n in ns:
            renyi_family(fam, n, "≤ 2 s" if n == 10**6 else "≤ 60 s", "third: O(W³), 62 s at n = 2000")
    renyi_delta(10**4, w, "seconds", "> 15 min, no output")
    renyi_worst(10**5, w, "much faster", "20-33 s")
    if a.full:
        renyi_worst(10**6, w, "≤ 5 min", "7 min (this session's start)")


if __name__ == "__main__":
    main()
