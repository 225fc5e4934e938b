"""Benchmark: the worst-case privacy curve of shuffled binary RR and the composition built from it (issue 25).

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_curve.py [--quick] [--full] [--large] [--targets]``

Table 1 -- the curve: per n, seconds of the certified curve (the exact ROC hull for n <= 256, the block sweep on
1024 grid points above), its value at alpha = 1 (total variation) and at e^eps = e^0.1, and the blanket view /
stronger-clone pair's value there (the curve float tools compose), with their ratio.

Table 2 -- composition, epsilon0 = 1, delta = 1e-6, side by side: the certified epsilon composed from the curve
pair, from the blanket-view (stronger-clone) pair, and the certified lower bound on the mechanism (one dataset pair,
c = 0, run in every round), with upper / lower.  ``rel_width`` of the PLD sandwich is 0.5 % (the default 2 % would
hide the gain).  Wall seconds on a shared machine (other jobs contaminate them); the curve is computed once per n.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import time

import blanket.exact.accounting.accountant as accountant
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.pld import dominating_pair, hockey_stick
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from flint import fmpq


def _live_children_cpu() -> float:
    """CPU seconds of this process's live child processes (the executor's pool outlives a call, so getrusage's
    RUSAGE_CHILDREN, which counts finished children only, misses it): /proc on Linux, 0 elsewhere."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for f in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with open(f) as fh:
            pids = fh.read().split()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _cpu() -> float:
    """CPU seconds of this process, its finished children and its live pool workers (the wall seconds are
    contaminated by other jobs)."""
    return _live_children_cpu() + sum(
        resource.getrusage(w).ru_utime + resource.getrusage(w).ru_stime
        for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )


def curve_row(n: int, e0: str = "1") -> dict:
    mech = BinaryRR(epsilon0=e0)
    t, c = time.time(), _cpu()
    # through the accountant's memo: Table 2 composes the same pair without sweeping again
    pr = accountant._binary_curve_pair(mech, n)
    sec, cpu = time.time() - t, _cpu() - c
    a01 = fmpq(11051709, 10**7)  # just below e^0.1
    row = {
        "n": n,
        "seconds": sec,
        "cpu": cpu,
        "atoms": len(pr.masses),
        "tv": pr.hockey_stick(1),
        "h01": pr.hockey_stick(a01),
    }
    if n <= 2000:  # the blanket-view pair's atoms (O(n^2)): small n only
        bv = dominating_pair(mech, n).atoms()
        with arith.precision(128):
            row["bv01"] = float(arith.ball(hockey_stick(bv, a01)).mid())
    return row


def compose_row(n: int, T: int, delta: str = "1e-6") -> dict:
    ev = ShuffledRR(k=2, epsilon0="1", n=n)
    t = time.time()
    e = ShuffleAccountant(rel_width="0.005").compose(ev, count=T).get_epsilon(delta)
    sec = time.time() - t
    old_n = accountant.CURVE_GRID_N
    accountant.CURVE_GRID_N = 0  # the blanket-view / stronger-clone pair, as before issue 25
    try:
        t = time.time()
        o = ShuffleAccountant(rel_width="0.005").compose(ShuffledRR(k=2, epsilon0="1", n=n), count=T).get_epsilon(delta)
        sec_o = time.time() - t
    finally:
        accountant.CURVE_GRID_N = old_n
    lower = max(e.lower, o.lower)
    return {
        "n": n,
        "T": T,
        "curve": float(e.upper),
        "clone": float(o.upper),
        "lower": float(lower),
        "ratio": float(e.upper) / float(lower),
        "ratio_clone": float(o.upper) / float(lower),
        "s": sec,
        "s_clone": sec_o,
    }


def target_row(case: str, k: int, n: int, T: int, delta: str = "1e-6") -> dict:
    """One row of issue 25's target table: the default accountant's certified upper end (``curve``; for binary RR
    the worst-case curve pair when its sweep is within ``CURVE_SWEEP_SECONDS``), the pre-issue-25 pair's
    (``CURVE_GRID_N = 0``: blanket view / stronger clones), the certified lower end, ratios, wall and CPU seconds."""
    t, c = time.time(), _cpu()
    e = ShuffleAccountant(rel_width="0.005").compose(ShuffledRR(k=k, epsilon0="1", n=n), count=T).get_epsilon(delta)
    sec, cpu = time.time() - t, _cpu() - c
    old_n = accountant.CURVE_GRID_N
    accountant.CURVE_GRID_N = 0
    try:
        o = ShuffleAccountant(rel_width="0.005").compose(ShuffledRR(k=k, epsilon0="1", n=n), count=T).get_epsilon(delta)
    finally:
        accountant.CURVE_GRID_N = old_n
    lower = max(e.lower, o.lower)
    return {
        "case": case,
        "n": n,
        "T": T,
        "clone": float(o.upper),
        "curve": float(e.upper),
        "lower": float(lower),
        "r_clone": float(o.upper) / float(lower),
        "r_curve": float(e.upper) / float(lower),
        "s": sec,
        "cpu": cpu,
    }


def targets() -> None:
    """Issue 25's targets, one table: binary RR n = 10^6, T = 365 and n = 10^4, T = 10^4 (upper <= 1.02 x lower),
    10-RR n = 10^6, T = 365 (upper <= 0.048398); epsilon0 = 1, delta = 1e-6."""
    print("Issue 25 targets: epsilon0 = 1, delta = 1e-6 (wall s and CPU s of the default accountant's composition)")
    print(
        f"{'case':>10} {'n':>8} {'T':>6} {'clone pair':>11} {'curve pair':>11} {'lower':>9} {'clone/low':>10} "
        f"{'curve/low':>10} {'wall s':>8} {'cpu s':>8}"
    )
    for case, k, n, T in (("binary RR", 2, 10**6, 365), ("binary RR", 2, 10**4, 10**4), ("10-RR", 10, 10**6, 365)):
        r = target_row(case, k, n, T)
        print(
            f"{r['case']:>10} {r['n']:>8} {r['T']:>6} {r['clone']:>11.6f} {r['curve']:>11.6f} {r['lower']:>9.6f} "
            f"{r['r_clone']:>10.4f} {r['r_curve']:>10.4f} {r['s']:>8.1f} {r['cpu']:>8.1f}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="n <= 10^4, T = 365 only")
    ap.add_argument("--full", action="store_true", help="also n = 10^5 (minutes) and T = 10^4 at n = 10^4")
    ap.add_argument(
        "--large",
        action="store_true",
        help="only the issue's targets: the curve at n = 10^5, 10^6 and T = 365 at n = 10^6",
    )
    ap.add_argument("--targets", action="store_true", help="only issue 25's target table (binary RR and 10-RR)")
    args = ap.parse_args()
    if args.targets:
        targets()
        return
    ns = [200, 1000, 10**4] + ([10**5] if args.full else [])
    if args.large:
        ns = [10**5, 10**6]
    print(
        f"Table 1: the certified worst-case curve of shuffled binary RR, epsilon0 = 1 (load {os.getloadavg()[0]:.1f})"
    )
    print(
        f"{'n':>8} {'seconds':>8} {'cpu s':>8} {'atoms':>6} {'H(1) = TV':>12} {'H(e^0.1)':>12} {'blanket view':>13} {'ratio':>7}"
    )
    for n in ns:
        r = curve_row(n)
        bv = r.get("bv01")
        h01 = float(r["h01"])
        print(
            f"{n:>8} {r['seconds']:>8.2f} {r['cpu']:>8.1f} {r['atoms']:>6} {float(r['tv']):>12.6g} {h01:>12.6g} "
            f"{(f'{bv:.6g}' if bv is not None else '-'):>13} {(f'{bv / h01:.3f}' if bv else '-'):>7}",
            flush=True,
        )
    cases = [(1000, 365), (10**4, 365)] + ([(10**4, 10**4)] if args.full else [])
    if args.large:
        cases = [(10**6, 365)]
    print()
    print("Table 2: composed binary RR, epsilon0 = 1, delta = 1e-6 (certified upper ends; lower: c = 0 in every round)")
    print(
        f"{'n':>6} {'T':>6} {'curve pair':>11} {'clone pair':>11} {'lower':>9} {'curve/lower':>12} "
        f"{'clone/lower':>12} {'s (curve)':>10} {'s (clone)':>10}"
    )
    for n, T in cases:
        r = compose_row(n, T)
        print(
            f"{n:>6} {T:>6} {r['curve']:>11.6f} {r['clone']:>11.6f} {r['lower']:>9.6f} {r['ratio']:>12.4f} "
            f"{r['ratio_clone']:>12.4f} {r['s']:>10.1f} {r['s_clone']:>10.1f}"
        )


if __name__ == "__main__":
    main()
