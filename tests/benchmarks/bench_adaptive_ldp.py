"""Benchmark / experiment: the exact worst case of FMT21's adaptive model at small n (issue 25), exact rationals.

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_adaptive_ldp.py [--quick]``

For each cell (domain size k, n, e^{ε0}, e^ε) it prints, all exact (flint fmpq; floats only for display):
the exact sup of ``H_{e^ε}`` over every adaptive sequence of ε0-LDP randomizers and every dataset of the others on a
k-value domain (both orders; ``tests/test_adaptive_ldp.py``'s recursion), the best single vertex randomizer run by every
user over the same datasets (a lower estimate of the same-randomizer worst case: that worst case need not sit at a
vertex, but Lemma G1 bounds it), Lemma G1's value (the binary-RR blanket view), the FOCS 2021 clone pair's and the
3-RR third-value lower end's, the witness dataset and the seconds per cell.  k = n + 1 covers every dataset of n users
(n ≤ 3 here; k = 5 at n = 4 ran over 20 min and was stopped).
"""

from __future__ import annotations

import argparse
import time

from flint import fmpq

from tests.test_adaptive_ldp import bounds, exact_worst, same_vertex_worst

FULL = [
    (3, 2, 2, ["1", "5/4", "3/2", "7/4"]),
    (3, 2, 3, ["1", "3/2", "2", "5/2"]),
    (4, 3, 2, ["1", "5/4", "3/2", "7/4"]),
    (4, 3, 3, ["1", "5/4", "3/2", "2", "5/2"]),
    (4, 4, 2, ["1", "5/4", "3/2"]),
    (4, 4, 3, ["1", "5/4", "3/2", "2"]),
    (3, 5, 2, ["1", "9/8", "5/4", "3/2"]),
    (3, 5, 3, ["1", "5/4", "3/2", "2"]),
    (3, 6, 2, ["1", "5/4", "3/2"]),
    (3, 6, 3, ["1", "5/4", "3/2", "2"]),
]
QUICK = [(3, 2, 2, ["1", "3/2"]), (4, 3, 3, ["1", "5/4"]), (3, 4, 3, ["1", "5/4"])]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(
        "| k | n | e^ε0 | e^ε | FMT21 adaptive worst | one vertex for all | Lemma G1 | FOCS21 clone | 3-RR third | worst/G1 | witness D | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, n, e, ees in QUICK if args.quick else FULL:
        for s in ees:
            t = time.time()
            ef, ee = fmpq(e), fmpq(s)
            worst, (d, _), _ = exact_worst(k, n, ef, ee)
            same = same_vertex_worst(k, n, ef, ee) if n <= 4 else None
            g1, clone, three = bounds(ef, n, ee)
            same_txt = "–" if same is None else f"{float(same):.6f}"
            print(
                f"| {k} | {n} | {e} | {s} | {float(worst):.6f} | {same_txt} | {float(g1):.6f} | {float(clone):.6f} | "
                f"{float(three):.6f} | {float(worst / g1):.4f} | {d} | {time.time() - t:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
