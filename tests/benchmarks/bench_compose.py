"""Benchmark: certified composition of shuffled rounds (issue 17 targets), beside dp_accounting and naive composition.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_compose.py [--quick] [--skip-long]``
or ``... bench_compose.py --pairs [--n N] [--T T] [--curves auto|on]`` (issue 25: per randomizer, the old dominating
pair against the curve pair, beside the certified lower bound)
or ``... bench_compose.py --binary 1e4:1e4 1e6:365 [--split-off]`` (issue 25: binary RR's bracket and its ratio)
or ``... bench_compose.py --matrix 1e4:365 1e6:365`` (issue 25: the 3 x 3 matrix of examples/matrix_3x3.csv, its
composition before (the clone pair, ``curves=False``) and after (its own curve pair, ``"auto"``))
or ``... bench_compose.py --grid rr:1e6:365 oue128:1e6:365`` (issue 25: the bracket's grid; one spec per process).

Prints one table: per case the certified ε (upper end), the optimistic end of the PLD sandwich, the
certified lower bound on the mechanism, the sandwich's relative width, the grid, seconds and peak RSS;
then dp_accounting on the *same* single-round pessimistic PLD and grid (its own float64 FFT self-composition),
and naive basic/advanced composition of the single-round certified (ε, δ), with ratios to the certified ε.
Timings are wall-clock and CPU seconds of this process on a shared machine: other processes contaminate the
wall-clock column (the CPU column is this process only); RSS is the peak of the whole run so far.
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from fractions import Fraction

from blanket.exact.accounting import pld
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR


def _rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def single_round_epsilon(ev, delta, grid):
    p = pld.discretise(ev.dominating_pair(), grid, "upper")
    return float(p.get_epsilon(delta))


def dp_accounting_same(ev, T, delta, grid):
    try:
        from dp_accounting.pld import privacy_loss_distribution as dpl  # noqa: F401
    except ImportError:
        return None, None
    acc = ShuffleAccountant(grid=grid).compose(ev, count=1)
    base = acc.to_dp_accounting()
    t = time.time()
    comp = base.self_compose(T)
    v = comp.get_epsilon_for_delta(delta)
    return v, time.time() - t


def run(case, ev, T, delta="1e-6", with_dp=True):
    t0 = time.time()
    c0 = time.process_time()
    acc = ShuffleAccountant().compose(ev, count=T)
    e = acc.get_epsilon(delta)
    sec = time.time() - t0
    cpu = time.process_time() - c0
    d = float(Fraction(delta))
    row = {
        "case": case,
        "T": T,
        "eps_upper": float(e),
        "pair_lower": float(e.pair_lower),
        "mech_lower": float(e.lower),
        "rel_width": float(e.sandwich_width),
        "grid": str(e.grid),
        "seconds": sec,
        "cpu": cpu,
        "rss_mb": _rss_mb(),
        "route": e.route,
        "renyi": float(e.renyi_upper),
    }
    # naive composition of the single-round certified (ε, δ) (same grid; single-round ε upper ends)
    g1 = Fraction(e.grid)
    e_basic = T * single_round_epsilon(ev, Fraction(delta) / T, g1)
    e1 = single_round_epsilon(ev, Fraction(delta) / (2 * T), g1)
    e_adv = math.sqrt(2 * T * math.log(2 / d)) * e1 + T * e1 * math.expm1(e1)
    row.update(basic=e_basic, advanced=e_adv)
    if with_dp:
        v, s = dp_accounting_same(ev, T, d, e.grid)
        row.update(dp_value=v, dp_seconds=s)
    return row


#: the randomizers of the --pairs table (epsilon0 = 1)
PAIR_CASES = [
    ("10-RR", {"type": "krr", "k": 10, "epsilon0": "1"}),
    ("OUE k=128", {"type": "oue", "k": 128, "epsilon0": "1"}),
    ("SUE k=16", {"type": "sue", "k": 16, "epsilon0": "1"}),
    ("OLH k=64 g=3", {"type": "olh", "k": 64, "g": 3, "epsilon0": "1"}),
    # local hashing with a stated 3-wise independent family (triple = 1/g²: the third-value lower pair applies)
    ("OLH 3-wise g=3", {"type": "olh", "k": 64, "g": 3, "epsilon0": "1", "triple": "1/9"}),
    ("Hadamard k=15", {"type": "hadamard", "k": 15, "epsilon0": "1"}),
    ("subset k=6 d=2", {"type": "subset", "k": 6, "d": 2, "epsilon0": "1"}),
    ("ldp", {"type": "ldp", "epsilon0": "1"}),
]


def pairs_table(n: int, T: int, curves, delta: str = "1e-6", only: str = "") -> None:
    """Issue 25's table: per randomizer the certified eps with the old pairs (curves=False) and with the curve
    pairs (``curves``: "auto" or True), the mechanism lower bound, the ratios, the deciding route and seconds."""
    hdr = (
        f"{'case':16} {'n':>8} {'T':>5} {'old pair':>10} {'curve pair':>10} {'lower':>10} {'old/low':>8} "
        f"{'curve/low':>9} {'decided':>17} {'s old':>7} {'s curve':>7}"
    )
    print(hdr)
    print("-" * len(hdr))
    for name, spec in PAIR_CASES:
        if only and only not in name:
            continue
        ev = ShuffledRR(k=spec["k"], epsilon0=spec["epsilon0"], n=n) if spec["type"] == "krr" else Shuffled(spec, n)
        t0 = time.time()
        old = ShuffleAccountant(curves=False).compose(ev, count=T).get_epsilon(delta)
        t1 = time.time()
        new = ShuffleAccountant(curves=curves).compose(ev, count=T).get_epsilon(delta)
        t2 = time.time()
        lo = float(new.lower) or float("nan")
        print(
            f"{name:16} {n:8d} {T:5d} {float(old):10.6f} {float(new):10.6f} {float(new.lower):10.6f} "
            f"{float(old) / lo:8.4f} {float(new) / lo:9.4f} {new.details['pair_route']:>17} {t1 - t0:7.1f} "
            f"{t2 - t1:7.1f}",
            flush=True,
        )


#: the matrix of examples/matrix_3x3.csv (e^epsilon0 = 3)
MATRIX_3X3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]]


def matrix_table(specs: list[str], delta: str = "1e-6") -> None:
    """Issue 25: the matrix randomizer's composed eps before (curves=False: the FOCS 2021 clone pair) and after
    (curves="auto": the hull of its own blanket view's certified values, min with the clone pair), the lower end
    (none for a matrix: 0 unless another route gives one), the ratio before/after, the curve's sources, seconds."""
    hdr = (
        f"{'case':12} {'n':>8} {'T':>5} {'before':>10} {'after':>10} {'before/after':>12} {'pair route':>17} "
        f"{'s before':>8} {'s after':>8}  sources"
    )
    print(hdr)
    print("-" * len(hdr))
    for spec in specs:
        n_s, t_s = spec.split(":")
        n, T = int(float(n_s)), int(float(t_s))
        ev = Shuffled({"type": "matrix", "matrix": MATRIX_3X3}, n)
        t0 = time.time()
        old = ShuffleAccountant(curves=False).compose(ev, count=T).get_epsilon(delta)
        t1 = time.time()
        new = ShuffleAccountant(curves="auto").compose(ev, count=T).get_epsilon(delta)
        t2 = time.time()
        print(
            f"{'matrix 3x3':12} {n:8d} {T:5d} {float(old):10.6f} {float(new):10.6f} {float(old) / float(new):12.4f} "
            f"{new.details['pair_route']:>17} {t1 - t0:8.1f} {t2 - t1:8.1f}  {'; '.join(new.details['pairs'])}",
            flush=True,
        )


def lower_table(n: int, T: int, delta: str = "1e-6", only: str = "") -> None:
    """Issue 25: per frequency oracle the composed lower end of the old concrete pairs (forward, backward) and of the
    third-value pair (``Shuffled.third_lower_pair``), on the accountant's own grid (chosen by the dominating pairs,
    as with curves on: the lower end does not depend on the curve pairs), and which one the accountant reports."""
    hdr = f"{'case':16} {'n':>8} {'T':>5} {'old fwd':>10} {'old bwd':>10} {'third':>10} {'lower':>10} {'decided':>12} {'s':>6}"
    print(hdr)
    print("-" * len(hdr))
    for name, spec in PAIR_CASES:
        if spec["type"] in ("krr", "ldp") or (only and only not in name):
            continue
        ev = Shuffled(spec, n)
        t0 = time.time()
        acc = ShuffleAccountant(curves=False).compose(ev, count=T)
        e = acc.get_epsilon(delta)
        g = acc._lower_grid(acc._cache["auto"])
        vals = []
        for k in ("low-fwd", "low-bwd", "low-3"):
            p = acc._pld(g, k)
            v = p.get_epsilon(delta) if p is not None else None
            vals.append(f"{float(v):10.6f}" if v is not None else f"{'-':>10}")
        print(
            f"{name:16} {n:8d} {T:5d} {' '.join(vals)} {float(e.lower):10.6f} "
            f"{e.details['lower_pair'][:12]:>12} {time.time() - t0:6.1f}",
            flush=True,
        )


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the worst-case curve sweep's worker processes)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def binary_table(cases: list[str], delta: str = "1e-6", split_off: bool = False) -> None:
    """Issue 25 (binary RR, ε0 = 1): per ``N:T`` the certified bracket, its ratio, which lower end decided, the
    sandwich's optimistic end, the grid, wall and CPU seconds of this process and of its worker processes ("+ pool":
    the worst-case curve sweep, the first time an ``n`` is asked in the process).  ``split_off``: the curve pair's pessimistic PLD rounds atoms up
    (accountant.SPLIT_ATOMS = False, the code before splitting), for a before/after on the same run."""
    from blanket.exact.accounting import accountant as _acc

    if split_off:
        _acc.SPLIT_ATOMS = False
    hdr = (
        f"{'case':24} {'n':>8} {'T':>6} {'lower':>12} {'upper':>12} {'ratio':>7} {'sandwich lo':>12} {'grid':>10} "
        f"{'wall s':>7} {'cpu s':>7} {'+ pool':>7} {'lower decided by':>20}"
    )
    print(hdr)
    print("-" * len(hdr))
    for spec in cases:
        n, T = (int(float(x)) for x in spec.split(":"))
        ev = ShuffledRR(k=2, epsilon0="1", n=n)
        t0, c0, k0 = time.time(), time.process_time(), _children_cpu()
        e = ShuffleAccountant().compose(ev, count=T).get_epsilon(delta)
        wall, cpu = time.time() - t0, time.process_time() - c0
        kids = _children_cpu() - k0
        name = "binary RR, eps0=1" + (" (split off)" if split_off else "")
        print(
            f"{name:24} {n:8d} {T:6d} {float(e.lower):12.6f} {float(e.upper):12.6f} "
            f"{float(e.upper) / float(e.lower):7.4f} {float(e.pair_lower):12.6f} {str(e.grid):>10} {wall:7.1f} "
            f"{cpu:7.1f} {kids:7.1f} {e.details.get('lower_pair', '-')[:20]:>20}",
            flush=True,
        )


#: the --grid rows (issue 25, the bracket's grid): name -> round of n users
GRID_CASES = {
    "rr": lambda n: ShuffledRR(k=2, epsilon0="1", n=n),
    "10rr": lambda n: ShuffledRR(k=10, epsilon0="1", n=n),
    "oue128": lambda n: Shuffled({"type": "oue", "k": 128, "epsilon0": "1"}, n),
    "ldp": lambda n: Shuffled({"type": "ldp", "epsilon0": "1"}, n),
}


def grid_rows(specs: list[str], delta: str = "1e-6") -> None:
    """Issue 25's grid rows, one ``CASE:N:T`` per spec (CASE in :data:`GRID_CASES`, ε0 = 1), each in this process
    (run one spec per process for clean timings: the worst-case sweep is memoised): the certified bracket, its ratio,
    the sandwich's optimistic end, the grid, wall seconds, CPU seconds of this process and of its finished worker
    processes, the 1-minute load average at the start, and the bracket's relative width with how its refinement ended
    (``details["bracket"]``: "ok" within rel_width, else what stopped it; ``+L``/``+P`` lower steps / whole passes)."""
    import os

    hdr = (
        f"{'case':8} {'n':>8} {'T':>6} {'lower':>12} {'upper':>12} {'ratio':>8} {'sandwich lo':>12} {'grid':>11} "
        f"{'wall s':>7} {'cpu s':>7} {'+ pool':>7} {'load':>5} {'width':>7} bracket"
    )
    print(hdr)
    print("-" * len(hdr))
    for spec in specs:
        name, n_s, t_s = spec.split(":")
        n, T = int(float(n_s)), int(float(t_s))
        load = os.getloadavg()[0]
        t0, c0, k0 = time.time(), time.process_time(), _children_cpu()
        e = ShuffleAccountant().compose(GRID_CASES[name](n), count=T).get_epsilon(delta)
        wall, cpu, kids = time.time() - t0, time.process_time() - c0, _children_cpu() - k0
        lo = float(e.lower)
        ratio = f"{float(e.upper) / lo:8.5f}" if lo > 0 else f"{'-':>8}"
        print(
            f"{name:8} {n:8d} {T:6d} {lo:12.8f} {float(e.upper):12.8f} {ratio} {float(e.pair_lower):12.8f} "
            f"{str(e.grid):>11} {wall:7.1f} {cpu:7.1f} {kids:7.1f} {load:5.1f} {float(e.rel_width) * 100:6.2f}% "
            f"{_bracket_word(e.details.get('bracket') or {})}",
            flush=True,
        )


def _bracket_word(b: dict) -> str:
    """``ok`` / the reason the refinement stopped, with ``+L``/``+P`` for its lower steps / whole passes."""
    word = "ok" if b.get("within", True) else str(b.get("stopped_by"))
    steps = (f" +{b['lower_steps']}L" if b.get("lower_steps") else "") + (
        f" +{b['passes']}P" if b.get("passes") else ""
    )
    return word + steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="n = 10^5 instead of 10^6")
    ap.add_argument("--skip-long", action="store_true", help="skip T = 10^4")
    ap.add_argument("--pairs", action="store_true", help="the old-pair / curve-pair table per randomizer (issue 25)")
    ap.add_argument("--n", type=int, default=10**6, help="users per round for --pairs")
    ap.add_argument("--T", type=int, default=365, help="rounds for --pairs")
    ap.add_argument("--lower", action="store_true", help="the oracles' composed lower ends, old pairs and third value")
    ap.add_argument("--only", default="", help="--pairs, --lower: only the cases whose name contains this text")
    ap.add_argument("--curves", choices=["auto", "on"], default="auto", help="curve pairs for --pairs")
    ap.add_argument(
        "--binary",
        nargs="+",
        metavar="N:T",
        help="issue 25's binary RR rows (eps0 = 1): bracket, ratio, deciding lower end, seconds (e.g. 1e4:1e4 1e6:365)",
    )
    ap.add_argument("--split-off", action="store_true", help="--binary with the curve pair's atoms rounded up")
    ap.add_argument(
        "--matrix", nargs="+", metavar="N:T", help="issue 25's 3 x 3 matrix rows: clone pair before, curve pair after"
    )
    ap.add_argument(
        "--grid",
        nargs="+",
        metavar="CASE:N:T",
        help="issue 25's grid rows (rr, 10rr, oue128, ldp; eps0 = 1): bracket, ratio, grid, wall/CPU s, load, width",
    )
    a = ap.parse_args()
    if a.matrix:
        matrix_table(a.matrix)
        return
    if a.grid:
        grid_rows(a.grid)
        return
    if a.binary:
        binary_table(a.binary, split_off=a.split_off)
        return
    if a.lower:
        lower_table(a.n, a.T, only=a.only)
        return
    if a.pairs:
        pairs_table(a.n, a.T, True if a.curves == "on" else "auto", only=a.only)
        return
    n = 10**5 if a.quick else 10**6
    cases = [
        ("binary RR, eps0=1", ShuffledRR(k=2, epsilon0="1", n=n), 365),
        ("10-RR, eps0=1", ShuffledRR(k=10, epsilon0="1", n=n), 365),
    ]
    if not a.skip_long:
        cases.append(("binary RR, eps0=1", ShuffledRR(k=2, epsilon0="1", n=n), 10**4))
        cases.append(("10-RR, eps0=1", ShuffledRR(k=10, epsilon0="1", n=n), 10**4))
    hdr = (
        f"{'case':20} {'n':>8} {'T':>6} {'eps (cert.)':>12} {'sandwich lo':>12} {'mech. lower':>12} {'width':>7} "
        f"{'grid':>12} {'sec':>7} {'cpu s':>7} {'RSS MB':>7} {'Renyi eps':>10} {'route':>5} | "
        f"{'dp_acc eps':>11} {'dp sec':>7} {'ratio':>6} | "
        f"{'basic':>9} {'ratio':>7} {'advanced':>9} {'ratio':>6}"
    )
    print(hdr)
    print("-" * len(hdr))
    for name, ev, T in cases:
        r = run(name, ev, T)
        dpv = (
            f"{r['dp_value']:11.6f} {r['dp_seconds']:7.1f} {r['dp_value'] / r['eps_upper']:6.3f}"
            if r.get("dp_value")
            else f"{'n/a':>11} {'':>7} {'':>6}"
        )
        print(
            f"{name:20} {ev.n:8d} {T:6d} {r['eps_upper']:12.6f} {r['pair_lower']:12.6f} {r['mech_lower']:12.6f} "
            f"{100 * r['rel_width']:6.2f}% {r['grid']:>12} {r['seconds']:7.1f} {r['cpu']:7.1f} {r['rss_mb']:7.0f} "
            f"{r['renyi']:10.6f} {r['route']:>5} | {dpv} | "
            f"{r['basic']:9.4f} {r['basic'] / r['eps_upper']:7.2f} {r['advanced']:9.4f} {r['advanced'] / r['eps_upper']:6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
