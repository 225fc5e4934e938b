"""Benchmark: rounds with sampled participation (``Sampled(event, q)``, docs/composition.md §5f) beside the same
rounds without sampling.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_sampled.py [--quick]``

Per case: the certified ε (upper end), the optimistic end of the PLD sandwich, the certified lower bound on the
mechanism (a concrete dataset pair), the route that decided, the Rényi route's ε on the same pairs (Rényi
divergences of the same dominating pairs added over rounds, CKS20 conversion), seconds (wall and this process's
CPU) and peak RSS.  The target of issue 29: n = 10^6, q = 10^-2, T = 10^4, binary RR ε0 = 2 certified in ≤ 5 min.
The Rényi bound of Girgis et al. for the subsampled shuffle is not encoded (its sampling model, k of n without
replacement, differs from Poisson participation with the count seen), so the sampled row has no Girgis value; the
unsampled row prints Girgis et al.'s route where it applies: GDDSK21 Theorem 3.1 (RDP of one shuffled ε0-LDP round,
ball arithmetic) added over the T rounds and converted at δ by the better of the standard conversion
``T·r(λ) + log(1/δ)/(λ − 1)`` and the improved one ``T·r(λ) + log((λ − 1)/λ) − (log δ + log λ)/(λ − 1)`` (CKS20),
minimised over integer orders λ ∈ [2, 512] (a certified upper end: each value is a ball's upper end).
"""

from __future__ import annotations

import argparse
import resource
import time

from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.sampled import Sampled


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def girgis_route(epsilon0: int, n: int, T: int, delta: str = "1e-6") -> float:
    """Girgis et al.'s route for T unsampled rounds (see the module docstring): the smallest certified upper end
    over integer orders λ = 2 … 512 (about 60 orders on a geometric grid).  O(orders) bound evaluations."""
    import blanket.proofs.renyi  # noqa: F401  (registers the GDDSK21 results)
    from blanket.proofs.core import get
    from flint import arb

    thm = get("GDDSK21 Theorem 3.1")
    d = arb(delta)
    best = float("inf")
    orders = sorted({int(round(2 * 256 ** (i / 59))) for i in range(60)})
    for lam in orders:
        r = T * thm.bound(epsilon0=str(epsilon0), n=n, **{"lambda": lam})
        std = r + (-d.log()) / (lam - 1)
        imp = r + arb(lam - 1).log() - arb(lam).log() - (d.log() + arb(lam).log()) / (lam - 1)
        best = min(best, float(std.upper()), float(imp.upper()))
    return best


def run(case: str, ev: object, T: int, delta: str = "1e-6") -> dict:
    t0, c0 = time.time(), time.process_time()
    e = ShuffleAccountant().compose(ev, count=T).get_epsilon(delta)  # type: ignore[arg-type]
    return {
        "case": case,
        "T": T,
        "eps": float(e),
        "sandwich": float(e.pair_lower),
        "mech_lower": float(e.lower),
        "route": e.route,
        "renyi": float(e.renyi_upper) if e.renyi_upper is not None else float("inf"),
        "grid": str(e.grid),
        "wall": time.time() - t0,
        "cpu": time.process_time() - c0,
        "rss": _rss_mb(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="T = 365 and n = 10^5 only")
    ap.add_argument("--only", choices=("sampled", "unsampled"), help="run one of the two cases")
    a = ap.parse_args()
    n, T = (10**5, 365) if a.quick else (10**6, 10**4)
    q = "1/100"
    cases = [
        ("binary RR, ε0 = 2, q = 10⁻² (sampled blanket view)", Sampled(ShuffledRR(k=2, epsilon0=2, n=n), q)),
        ("binary RR, ε0 = 2, every user reports (blanket view)", ShuffledRR(k=2, epsilon0=2, n=n)),
    ]
    print(
        "| case | n | T | ε (certified) | sandwich lower | mechanism lower | route | Rényi route ε "
        "| Girgis et al. route ε | grid | wall s | CPU s | RSS MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    if a.only:
        cases = cases[:1] if a.only == "sampled" else cases[1:]
    for name, ev in cases:
        r = run(name, ev, T)
        girgis = "n/a (k-of-n sampling)" if isinstance(ev, Sampled) else f"{girgis_route(2, n, T):.6f}"
        print(
            f"| {name} | {n:.0e} | {T} | {r['eps']:.6f} | {r['sandwich']:.6f} | {r['mech_lower']:.6f} | {r['route']} "
            f"| {r['renyi']:.6f} | {girgis} | {r['grid']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
