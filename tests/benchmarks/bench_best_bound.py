"""Timing of "best certified bound wins" (exact.accounting.certified) for every oracle kind.  Not a test.

Run: ``python tests/benchmarks/bench_best_bound.py [--quick]``.  For each kind (ε0 = 1, ε = 0.1) and n it
prints the seconds (wall) for every applicable upper bound plus the concrete-dataset lower bound, the bound
that wins, the certified upper and lower values, the relative width (upper − lower)/upper and the peak RSS
of this process.  This is what one ``blanket delta --mechanism KIND`` evaluation costs at 128 bits.

Wall-clock numbers depend on the load of the shared machine.
"""

from __future__ import annotations

import resource
import sys
import time

from blanket.exact.accounting import certified as cb
from blanket.exact.mechanisms import registry
from blanket.exact.numbers import arith

KINDS = {
    "ldp": {},
    "oue": {"k": 128},
    "sue": {"k": 128},
    "olh": {"k": 1 << 20, "g": 4},
    "hadamard": {"k": 1023},
    "subset": {"k": 64, "d": 8},
    "geometric": {"m": 5},
}


def main(quick: bool) -> None:
    ns = [10**3, 10**4] if quick else [10**3, 10**4, 10**5, 10**6]
    print(
        f"{'kind':10} {'n':>8} {'seconds':>8} {'winner':48} {'upper':>12} {'lower':>12} {'rel.width':>9} {'RSS MiB':>8}"
    )
    for kind, keys in KINDS.items():
        mech = registry.build(kind, registry.parse_params(kind, {**keys, "epsilon0": "1"}))
        for n in ns:
            t = time.perf_counter()
            with arith.precision(128):
                up, name, _ = cb.best_upper(mech, n, epsilon="0.1")
                lo, _ = cb.lower_bound(mech, n, epsilon="0.1")
                u = arith.endpoints(arith.ball(up))[1]
                low = max(0, arith.endpoints(arith.ball(lo))[0]) if lo is not None else None
            dt = time.perf_counter() - t
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            width = "-" if low is None or u == 0 else f"{float((u - low) / u):.3g}"
            print(
                f"{kind:10} {n:>8} {dt:>8.2f} {name[:48]:48} {float(u):>12.4g} "
                f"{(float(low) if low is not None else float('nan')):>12.4g} {width:>9} {rss:>8.0f}"
            )


if __name__ == "__main__":
    main("--quick" in sys.argv)
