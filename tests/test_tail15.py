"""Task tail15: certified upper ends in three deep corners.

1. One sampled binary RR round's δ upper end is the smaller of the exact worst case's (Lemma S4, cut at its window)
   and the blanket view of ``R_q`` capped by its Chernoff bound (``exact.shuffled.oracles.blanket_view_upper_end``).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled, SampledBinaryRR
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import Subset
from blanket.exact.numbers import arith
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled.oracles import blanket_view_upper_end
from flint import fmpq


def _worst_mpmath(e0: mpmath.mpf, q: mpmath.mpf, n: int, alpha: mpmath.mpf) -> mpmath.mpf:
    """max over C = 1..n of H_α(P_C ‖ P_{C−1}), the laws of (reports, 1-reports) built user by user in mpmath (an
    independent route: no code of the project)."""
    p, f = e0 / (1 + e0), 1 / (1 + e0)
    one = {(0, 0): 1 - q, (1, 0): q * f, (1, 1): q * p}
    zero = {(0, 0): 1 - q, (1, 0): q * p, (1, 1): q * f}

    def conv(a: dict, b: dict) -> dict:
        out: dict = {}
        for (m1, k1), x in a.items():
            for (m2, k2), y in b.items():
                out[(m1 + m2, k1 + k2)] = out.get((m1 + m2, k1 + k2), 0) + x * y
        return out

    best = mpmath.mpf(0)
    for c in range(1, n + 1):
        rest: dict = {(0, 0): mpmath.mpf(1)}
        for i in range(n - 1):
            rest = conv(rest, one if i < c - 1 else zero)
        pc, pc1 = conv(rest, one), conv(rest, zero)
        h = sum(max(pc.get(z, 0) - alpha * pc1.get(z, 0), 0) for z in set(pc) | set(pc1))
        best = max(best, h)
    return best


@pytest.mark.parametrize("e0", [3, "1"])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 10)])
@pytest.mark.parametrize("n", [2, 5, 9])
def test_blanket_upper_end_at_least_the_exact_worst_case(e0: object, q: Fraction, n: int) -> None:
    """The new upper end is at least the exact worst case over every dataset, computed independently in mpmath
    (ε0 = log 3 and ε0 = 1, several ε)."""
    base = Subset(2, 1, exp_epsilon0=3) if e0 == 3 else Subset(2, 1, 1)
    rec = SampledBinaryRR(base, fmpq(q.numerator, q.denominator))
    with mpmath.workdps(50):
        me0 = mpmath.mpf(3) if e0 == 3 else mpmath.e
        for eps in (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
            ref = _worst_mpmath(me0, mpmath.mpf(q.numerator) / q.denominator, n, mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator))
            up = blanket_view_upper_end(rec, n, fmpq(eps.numerator, eps.denominator))
            assert mpmath.mpf(int(up.p)) / int(up.q) >= ref * (1 - mpmath.mpf(10) ** -40), (n, q, eps)


def test_deep_tail_upper_end_below_the_window_cut() -> None:
    """n = 200, q = 1/10, ε0 = 1, ε = 1/2: the exact worst case's upper end stops at its window cut (about 2e-44,
    its lower end 2.7e-70); the accountant's one-round upper end is now the capped blanket view (about 3.8e-62),
    strictly below it, and still at least the exact worst case's certified lower end."""
    n, q, eps = 200, fmpq(1, 10), fmpq(1, 2)
    r = ShuffleAccountant().compose(Sampled(Shuffled(KRR(2, epsilon0=1), n), "1/10")).get_delta("1/2")
    one = r.details["one_round"]
    assert "blanket view" in one["upper_from"] and one["upper_decided_by"] != "composition"
    with arith.precision(128):
        e0 = SampledBinaryRR(Subset(2, 1, 1), q).exp_epsilon0()
    lo, old_up = sb.one_round_delta(sb.sampled_binary_worst(e0, q, n), eps)
    assert r.upper < Fraction(int(old_up.p), int(old_up.q)) / 10**10
    assert r.upper >= Fraction(int(lo.p), int(lo.q)) and r.lower <= r.upper
