"""Benchmark of exact.shuffled.fleet: one δ(ε) of a mixed k-RR fleet at n = 10^6 (issue 29).

Run: ``python tests/benchmarks/bench_fleet.py [--quick]``.

Rows: 2 groups (binary RR, ε0 = 1 and 2, 40 % / 60 %) and 10 groups (ε0 = 0.5, 0.75, …, 2.75, equal sizes), for
binary RR and 4-RR, at n = 10^6 (``--quick``: 10^5).  Columns: the certified upper end of the Poisson-binomial
view (max over target groups, :func:`delta_fleet_view`, relative bracket width 1 %), its relative width, wall and
CPU seconds of the view (the timed δ(ε)); the clone pair's upper end (Lemma F7, ``fleet_clones``; for k = 2 it is
the view) and its CPU seconds; the lower ends: the one-count concrete pair (:func:`delta_fleet_dataset`) and the
two-count pair (Lemma F8, ``fleet_lower``, k ≥ 3) with its CPU seconds; peak RSS.  Each row runs in a fresh
process.  Target (issue 29): one δ(ε) ≤ 5 s for 2 and 10 groups at n = 10^6.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _row(k: int, groups: int, n: int, eps: str) -> dict:
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled import fleet as F
    from blanket.exact.shuffled import fleet_clones as FC
    from blanket.exact.shuffled import fleet_lower as FL
    from blanket.exact.shuffled.krr import engine_options

    if groups == 2:
        spec = [(2 * n // 5, "1"), (n - 2 * n // 5, "2")]
    else:
        spec = [(n // groups, str(0.5 + 0.25 * i)) for i in range(groups)]
    fleet = [(m, KRR(k, epsilon0=e)) for m, e in spec]
    t0, c0 = time.time(), time.process_time()
    v = F.delta_fleet_view(fleet, epsilon=eps)
    wall, cpu = time.time() - t0, time.process_time() - c0
    lo = F.delta_fleet_dataset(fleet, epsilon=eps)
    c1 = time.process_time()
    clone = FC._shared_clone(
        F.check_fleet(fleet), fleet[-1][1], arith.exp_param(eps, None), engine_options({})[0], 64, F.DEFAULT_REL, 200
    )
    c2 = time.process_time()
    lo2 = FL.delta_fleet_two_counts(fleet, epsilon=eps)
    c3 = time.process_time()
    lo_e, hi_e = arith.endpoints(v)
    return {
        "k": k,
        "groups": groups,
        "n": n,
        "epsilon": eps,
        "upper": arith.decimal_string(v, 4, up=True),
        "width": f"{float((hi_e - lo_e) / hi_e) if hi_e else 0:.1e}",
        "clone": arith.decimal_string(clone, 4, up=True),
        "clone_cpu": round(c2 - c1, 2),
        "lower": arith.decimal_string(lo, 4, up=False),
        "lower2": arith.decimal_string(lo2, 4, up=False),
        "lower2_cpu": round(c3 - c2, 2),
        "wall": round(wall, 2),
        "cpu": round(cpu, 2),
        "rss": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--row", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.row:
        print(json.dumps(_row(*json.loads(a.row))))
        return
    n = 10**5 if a.quick else 10**6
    eps = {2: "0.01", 4: "0.02"}
    print(
        f"{'k':>3} {'groups':>6} {'n':>8} {'eps':>5} {'delta upper':>12} {'width':>8} {'wall s':>7} {'cpu s':>6} "
        f"{'clone upper':>12} {'cpu s':>6} {'lower 1 count':>13} {'lower 2 counts':>14} {'cpu s':>6} {'RSS MB':>7}"
    )
    for k in (2, 4):
        for g in (2, 10):
            out = subprocess.run(
                [sys.executable, __file__, "--row", json.dumps([k, g, n, eps[k]])],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            r = json.loads(out)
            print(
                f"{r['k']:>3} {r['groups']:>6} {r['n']:>8} {r['epsilon']:>5} {r['upper']:>12} {r['width']:>8} "
                f"{r['wall']:>7} {r['cpu']:>6} {r['clone']:>12} {r['clone_cpu']:>6} {r['lower']:>13} "
                f"{r['lower2']:>14} {r['lower2_cpu']:>6} {r['rss']:>7}"
            )


if __name__ == "__main__":
    main()
