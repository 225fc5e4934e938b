"""Benchmark: the generic ε0-LDP bracket (issue 25), one round and composed.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_generic_ldp.py [--quick] [--compose]``

One round (ε0 = 2, δ = 1e-6, n = 10³ and 10⁴): the certified ε of each route by a one-sided search
(:func:`blanket.exact.numbers.calibrate.epsilon_for_delta`, relative tolerance 1e-5; the upper end of the search for
an upper route, the lower end for a lower route) — the FOCS 2021 clone pair
(the ``ldp`` record's upper end before Lemma G1 [adaptive]; now the smaller of it and Lemma G1), Su–Cheng–Wang's general-clone value (refuted, not a bound), Lemma G1 (every user
runs one randomizer; derived, used when the deployment states it: ``same_randomizer``), 3-RR with the others on a third value (the new lower end) and
binary RR with ``c = 0`` (the old lower end) — with the ratios upper/lower, seconds per column and peak RSS.
``--compose``: ``ldp`` with ε0 = 1, n = 10⁶, T = 365 through the accountant (curves off): the upper end, the old
concrete pairs' lower ends (forward, backward) and the 3-RR third-value pair's (a few minutes on one core); then the
same with ``same_randomizer=True`` (one randomizer for every user: Lemma G1's binary-RR blanket-view pair).
Timings are wall-clock seconds on a shared machine.
"""

from __future__ import annotations

import argparse
import resource
import time

from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.shuffled import generic_ldp
from blanket.exact.shuffled.binary import delta_binary
from blanket.exact.shuffled.oracles import clone_delta


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_round(ns: list, eps0: int = 2, delta: str = "1e-6") -> None:
    mech = LDP(eps0)
    routes = {
        "FOCS21 clone": lambda n: lambda e: clone_delta(mech, n, epsilon=e),
        "general clone (refuted)": lambda n: lambda e: generic_ldp.scw_generic_delta(mech, n, epsilon=e),
        "Lemma G1 (one R)": lambda n: lambda e: generic_ldp.same_randomizer_delta(mech, n, epsilon=e),
        "3-RR third (lower)": lambda n: lambda e: generic_ldp.three_rr_third_delta(mech, n, epsilon=e),
        "binary RR c=0 (old lower)": lambda n: lambda e: delta_binary(KRR(2, eps0), n, 0, epsilon=e),
    }
    print(f"eps0 = {eps0}, delta = {delta}: certified eps (upper routes: upper end; lower routes: lower end), seconds")
    hdr = f"{'n':>7} " + " ".join(f"{k:>26}" for k in routes) + f" {'ldp up/low (old)':>18} {'G1/low':>7} {'RSS MB':>7}"
    print(hdr)
    print("-" * len(hdr))
    for n in ns:
        vals, cells = {}, []
        for name, f in routes.items():
            t = time.time()
            b = epsilon_for_delta(f(n), delta, hi=eps0, rel_tol="1e-5")
            end = b.lower if "lower" in name else b.upper  # a lower route: the certified lower end of its ε
            vals[name] = float(end)
            cells.append(f"{float(end):18.5f} ({time.time() - t:4.1f}s)")
        up, lo, old = vals["FOCS21 clone"], vals["3-RR third (lower)"], vals["binary RR c=0 (old lower)"]
        g1 = vals["Lemma G1 (one R)"]
        print(
            f"{n:7d} " + " ".join(f"{c:>26}" for c in cells) + f" {up / lo:8.3f} ({up / old:5.3f}) {g1 / lo:7.3f}"
            f" {_rss_mb():7.0f}",
            flush=True,
        )


def composed(n: int = 10**6, T: int = 365, eps0: int = 1, delta: str = "1e-6", same: bool = False) -> None:
    t0 = time.time()
    acc = ShuffleAccountant(curves=False).compose(Shuffled(LDP(eps0), n, same_randomizer=same), count=T)
    e = acc.get_epsilon(delta)
    g = acc._lower_grid(acc._cache["auto"])
    low = {}
    for k in ("low-fwd", "low-bwd", "low-3"):
        p = acc._pld(g, k)
        low[k] = float(p.get_epsilon(delta)) if p is not None else float("nan")
    old = max(low["low-fwd"], low["low-bwd"])
    print(
        f"ldp{' same_randomizer (Lemma G1 pair)' if same else ' (clone pair)'} eps0 = {eps0}, n = {n}, T = {T}, "
        f"delta = {delta}: upper {float(e):.6f}; lower old (fwd/bwd) "
        f"{low['low-fwd']:.6f}/{low['low-bwd']:.6f}, 3-RR third {low['low-3']:.6f}; reported {float(e.lower):.6f}; "
        f"ratio {float(e) / float(e.lower):.3f} (old {float(e) / old:.3f}); {time.time() - t0:.0f} s, {_rss_mb():.0f} MB",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 10^3 only")
    ap.add_argument("--compose", action="store_true", help="also the composed case (n = 10^6, T = 365)")
    a = ap.parse_args()
    one_round([1000] if a.quick else [1000, 10000])
    if a.compose:
        composed()
        composed(same=True)


if __name__ == "__main__":
    main()
