"""Ground truth for small n: the shuffled output law by enumerating every report vector.

Deliberately naive, so that it shares no idea with the fast routines it
checks: :func:`shuffled_law` walks through all ``k_out^n`` report vectors
``(y_1, …, y_n)``, multiplies the per-user probabilities and adds the
product to the histogram of the vector.  ``n ≤ 8`` and at most
``MAX_VECTORS`` report vectors (a clear error otherwise).

>>> from blanket.exact.mechanisms.finite import KRR
>>> law = shuffled_law(KRR(2, exp_epsilon0=3), [0, 1])
>>> sorted(law.items())
[((0, 2), 3/16), ((1, 1), 5/8), ((2, 0), 3/16)]
>>> delta_brute(KRR(2, exp_epsilon0=3), [0, 0], [1, 0], exp_epsilon=1)
3/8
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from flint import arb, fmpq

#: largest n accepted by the enumeration
MAX_N = 8
#: largest number of report vectors k_out**n accepted
MAX_VECTORS = 2 * 10**6


def _dataset(mech: FiniteRandomizer, dataset, name: str) -> list:
    if not isinstance(dataset, (list, tuple)) or len(dataset) == 0:
        raise InvalidArgument(name, dataset, "must be a non-empty list of input values")
    out = []
    for i, v in enumerate(dataset):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < mech.k_in:
            raise InvalidArgument(f"{name}[{i}]", v, f"must be an input value in 0..{mech.k_in - 1}")
        out.append(v)
    if len(out) > MAX_N:
        raise InvalidArgument(
            f"len({name})",
            len(out),
            f"must be <= {MAX_N} for brute-force enumeration",
            hint="use exact.shuffled.krr or exact.shuffled.enumerate for larger n",
        )
    if mech.k_out ** len(out) > MAX_VECTORS:
        raise InvalidArgument(
            f"len({name})",
            len(out),
            f"gives {mech.k_out}^{len(out)} report vectors, more than the limit {MAX_VECTORS}",
            hint="use fewer users or a smaller output alphabet",
        )
    return out


def shuffled_law(mech: FiniteRandomizer, dataset: Sequence[int]) -> dict:
    """Law of the shuffled output (histogram tuple of length ``k_out``) by enumerating all ``k_out^n`` report vectors.

    Exact ``fmpq`` probabilities when the mechanism's entries are exact, balls
    otherwise (at the current precision).  Cost ``O(k_out^n · n)``.
    """
    data = _dataset(mech, dataset, "dataset")
    rows = [mech.row(x) for x in data]
    k = mech.k_out
    law: dict = {}
    for ys in itertools.product(range(k), repeat=len(data)):
        prob: fmpq | arb = fmpq(1)
        for row, y in zip(rows, ys):
            v = row[y]
            prob = v * prob if isinstance(v, arb) else prob * v
        if isinstance(prob, fmpq) and prob == 0:
            continue
        counts = [0] * k
        for y in ys:
            counts[y] += 1
        h = tuple(counts)
        old = law.get(h)
        law[h] = prob if old is None else (prob + old if isinstance(prob, arb) else old + prob)
    return law


def delta_brute(
    mech: FiniteRandomizer,
    d1: Sequence[int],
    d2: Sequence[int],
    *,
    epsilon: NumberOrBall | None = None,
    exp_epsilon: NumberOrBall | None = None,
) -> Enclosure:
    """One direction: ``D_{e^ε}(M(d1) ‖ M(d2)) = Σ_h [P_{d1}(h) − e^ε P_{d2}(h)]_+`` by enumeration.

    ``d1`` and ``d2`` are datasets of the same length (not required to be
    neighbouring).  Exact when the entries and ``e^ε`` are exact.
    """
    a = _dataset(mech, d1, "d1")
    b = _dataset(mech, d2, "d2")
    if len(a) != len(b):
        raise InvalidArgument("d2", f"{len(b)} users", f"must have as many users as d1 ({len(a)})")
    ee = arith.exp_param(epsilon, exp_epsilon)
    P, Q = shuffled_law(mech, a), shuffled_law(mech, b)
    total: fmpq | arb = fmpq(0)
    for h, p in P.items():
        q = Q.get(h, fmpq(0))
        t = arith.positive_part(p - ee * q)
        total = t + total if isinstance(t, arb) else total + t
    return total
