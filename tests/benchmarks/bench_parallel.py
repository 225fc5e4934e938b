"""Speed-up of the block executors (exact.runtime.executors.map_blocks) against one worker.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_parallel.py [--quick] [--n N ...] [--no-dask]``
from the top of the repository.

Two workloads, each timed on 1 worker (in-process), on 2, 4, … local
processes (up to the machine's cores) and on a Dask ``LocalCluster`` with 2
worker processes:

* ``worst``: the exact worst case over all datasets,
  ``exact.shuffled.binary.delta_binary_worst(..., workers=, scheduler=)`` -- only when
  that function accepts ``workers`` (branch ``binary``); otherwise skipped;
* ``blocks``: the same sweep done the plain way, ``δ_c(ε)`` for every
  ``c = 0 … n−1`` by :func:`exact.shuffled.binary.delta_binary` in blocks of
  consecutive ``c`` (a real ball-arithmetic workload of independent blocks).

Each row prints n, the executor, wall seconds, the speed-up against 1 worker,
the CPU seconds of this process and its local worker processes (not of Dask
workers), whether the results are bit-identical to the 1-worker results
(midpoints and radii as exact mantissa/exponent pairs) and the peak RSS of
this process (the workers' own memory is not included).  Times are
wall-clock on a shared machine: when other jobs keep the cores busy, the
speed-up is meaningless (compare wall seconds with CPU seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import resource
import sys
import time

from flint import arb, fmpq

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from blanket.exact.mechanisms.finite import BinaryRR  # noqa: E402
from blanket.exact.numbers import arith  # noqa: E402
from blanket.exact.runtime.executors import available_cores, block_ranges, map_blocks, shutdown  # noqa: E402


def delta_block(epsilon0: str, n: int, start: int, stop: int, epsilon: str) -> list:
    """``[δ_c(ε) for c in range(start, stop)]`` of shuffled binary RR (both directions)."""
    from blanket.exact.shuffled.binary import delta_binary

    rr = BinaryRR(epsilon0=epsilon0)
    return [delta_binary(rr, n, c, epsilon=epsilon) for c in range(start, stop)]


def signature(x):
    if isinstance(x, (list, tuple)):
        return [signature(v) for v in x]
    if isinstance(x, arb):
        return (x.mid().man_exp(), x.rad().man_exp()) if x.is_finite() else str(x)
    if hasattr(x, "value") and hasattr(x, "c"):
        return (signature(x.value), x.c, tuple(x.ties))
    return x


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """CPU time of this process and of its terminated (reaped) children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def timed(fn, *a, **kw):
    """``(result, wall seconds, CPU seconds)``; local pools are shut down (and reaped) inside the measurement."""
    c0 = cpu_seconds()
    t = time.perf_counter()
    res = fn(*a, **kw)
    dt = time.perf_counter() - t
    shutdown(wait=True)
    return res, dt, cpu_seconds() - c0


def executors(with_dask: bool):
    cores = available_cores()
    out = [("1 worker (in-process)", {"workers": 1})]
    w = 2
    while w <= max(2, cores):
        out.append((f"{w} local processes", {"workers": w}))
        w *= 2
    cluster = None
    if with_dask:
        try:
            from dask.distributed import LocalCluster
        except ImportError:
            print("(dask not installed: pip install 'blanket[dask]' for the LocalCluster rows)")
        else:
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
            out.append(("Dask LocalCluster, 2 workers", {"scheduler": cluster.scheduler_address}))
    return out, cluster


HEADER = f"{'n':>8} {'executor':<30} {'seconds':>8} {'speed-up':>8} {'CPU s':>7} {'identical':>9} {'peak RSS MB':>11}"


@contextlib.contextmanager
def executors_for_table(title: str, with_dask: bool):
    """Print the table's title and header; yields the executors, shut down (and the Dask cluster closed) after."""
    print(title)
    print(HEADER)
    exe, cluster = executors(with_dask)
    try:
        yield exe
    finally:
        shutdown()
        if cluster is not None:
            cluster.close()


def print_rows(n: int, exe, call, note: str = "") -> None:
    """One row per executor ``(name, kw)``: ``call(kw)`` gives ``(result, seconds, CPU seconds)`` (run at 128
    bits); speed-up and "identical" are against the first executor."""
    base = base_sig = None
    for name, kw in exe:
        with arith.precision(128):
            res, dt, cpu = call(kw)
        sig = signature(res)
        if base is None:
            base, base_sig = dt, sig
        print(
            f"{n:>8} {name:<30} {dt:>8.2f} {base / dt:>8.2f} {cpu:>7.1f} {str(sig == base_sig):>9} "
            f"{peak_mb():>11.0f}" + note
        )


def run_blocks(ns, eps, with_dask):
    from tests.benchmarks.bench_parallel import delta_block as fn  # by module name, so Dask workers can import it

    with executors_for_table("\nblocks: delta_c(epsilon) for every c, epsilon0 = 1, 128 bits", with_dask) as exe:
        for n in ns:
            tasks = [("1", n, a, b, eps) for a, b in block_ranges(n, 4 * max(2, available_cores()) * 4)]
            print_rows(n, exe, lambda kw, tasks=tasks: timed(map_blocks, fn, tasks, progress=False, **kw))


#: epsilon per n for the worst case (as in bench_binary.py, epsilon0 = 2): delta around 1e-6, a deployment regime
WORST_EPS = {10**3: "0.3", 2000: "0.25", 3000: "0.2", 10**4: "0.1", 20000: "0.07", 10**5: "0.03", 10**6: "0.01"}


def run_worst(ns, eps, with_dask):
    from blanket.exact.shuffled.binary import delta_binary_worst

    params = inspect.signature(delta_binary_worst).parameters
    if "workers" not in params:
        print("\nworst: exact.shuffled.binary.delta_binary_worst does not take workers= on this branch (skipped)")
        return
    rr = BinaryRR(epsilon0="2")
    with executors_for_table("\nworst: exact worst case over all datasets, epsilon0 = 2, 128 bits", with_dask) as exe:
        usable = [(name, kw) for name, kw in exe if "scheduler" not in kw or "scheduler" in params]
        for n in ns:
            eps = WORST_EPS.get(n, eps)
            print_rows(
                n,
                usable,
                lambda kw, n=n, eps=eps: timed(delta_binary_worst, rr, n, epsilon=eps, **kw),
                f"  (epsilon = {eps})",
            )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small n only")
    ap.add_argument("--n", type=int, nargs="*", default=None, help="values of n")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster rows")
    args = ap.parse_args()
    ns = args.n or ([2000] if args.quick else [20000, 100000])
    eps = fmpq(1, 20)
    print(f"cores available to this process: {available_cores()}; load average {os.getloadavg()[0]:.1f}")
    run_worst(ns, eps, not args.no_dask)
    run_blocks([max(500, n // 20) for n in ns], eps, not args.no_dask)


if __name__ == "__main__":
    main()
