"""Unary encoding's third value, full view (exact.shuffled.oracle_third): a certified lower bound on the exact δ.

Independent routes: the explicit output matrix enumerated over histograms (exact.shuffled.enumerate.delta_dataset),
a brute-force sum over the 8-cell multinomial of the bits (x, x', z) in exact rationals, and the post-processed
"joined" statistic (exact.shuffled.oracle_exact), which can only be smaller.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.oracles import OUE, SUE, Hadamard, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.shuffled import oracle_exact as X
from blanket.exact.shuffled import oracle_third as T
from blanket.exact.shuffled.enumerate import delta_dataset
from flint import fmpq


def _q(v) -> Fraction:
    return Fraction(int(v.p), int(v.q)) if isinstance(v, fmpq) else arith.endpoints(v)[0]


@pytest.mark.parametrize("mech", [OUE(3, exp_epsilon0=3), SUE(3, exp_half_epsilon0=2)], ids=["oue", "sue"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("ee", [fmpq(1), fmpq(5, 4), fmpq(2)])
def test_full_view_against_the_matrix(mech, n, ee):
    # the explicit matrix of the record, every histogram of n reports: x z^(n-1) vs x' z^(n-1), both orders
    x, x2, z = 0, 1, 2
    fwd = _q(delta_dataset(mech.matrix(), [z] * (n - 1), x, x2, exp_epsilon=ee))
    bwd = _q(delta_dataset(mech.matrix(), [z] * (n - 1), x2, x, exp_epsilon=ee))
    assert fwd == bwd  # the two directions agree (a, b exchangeable), so one suffices
    assert _q(T.third_full_delta(mech, n, exp_epsilon=ee)) == fwd  # the exact rational route (small n)
    v = T.third_full_delta(mech, n, exp_epsilon=ee, exact_max_n=0)  # the float kernel (Lemma T1)
    lo, hi = arith.endpoints(v)
    assert fwd <= hi <= fwd * (1 + Fraction(1, 10**6))
    assert lo <= fwd
    assert lo >= fwd * (1 - Fraction(1, 10**6))  # tight, not merely valid


def _brute_multinomial(n: int, p: Fraction, q: Fraction, E: Fraction, c: Fraction) -> Fraction:
    """(1/n) E[(X − cX')_+] over every count vector of the 8 cells (a, b, z-bit), exact rationals."""
    cells = [(a, b, z) for a in (0, 1) for b in (0, 1) for z in (0, 1)]
    pr = [(q if a else 1 - q) * (q if b else 1 - q) * (p if z else 1 - p) for a, b, z in cells]
    ratio = [(E ** (a - z), E ** (b - z)) for a, b, z in cells]
    total = Fraction(0)

    def rec(i: int, left: int, prob: Fraction, x: Fraction, xp: Fraction) -> None:
        nonlocal total
        if i == len(cells) - 1:
            prob2 = prob * pr[i] ** left
            s = x + left * ratio[i][0] - c * (xp + left * ratio[i][1])
            if s > 0:
                total += prob2 * s
            return
        for k in range(left + 1):
            rec(
                i + 1,
                left - k,
                prob * math.comb(left, k) * pr[i] ** k,
                x + k * ratio[i][0],
                xp + k * ratio[i][1],
            )

    rec(0, n, Fraction(1), Fraction(0), Fraction(0))
    return total / n


@pytest.mark.parametrize("c", [Fraction(1), Fraction(3, 2), Fraction(3)])
def test_full_view_against_the_multinomial(c):
    # OUE with e^{ε0} = 7, n = 9 (the matrix route would need 2^k outputs per report; the bits suffice)
    n, E = 9, 7
    mech = UnaryEncoding(k=5, p=fmpq(1, 2), q=fmpq(1, E + 1), kind="oue")
    exact = _brute_multinomial(n, Fraction(1, 2), Fraction(1, E + 1), Fraction(E), c)
    cq = fmpq(c.numerator, c.denominator)
    assert T.third_full_delta(mech, n, exp_epsilon=cq) == fmpq(exact.numerator, exact.denominator)
    v = T.third_full_delta(mech, n, exp_epsilon=cq, exact_max_n=0)
    lo, hi = arith.endpoints(v)
    assert lo <= exact <= hi <= exact * (1 + Fraction(1, 10**6))
    # the Chernoff bound best_lower uses to skip the full view is above the exact value
    assert arith.endpoints(T.third_full_upper(mech, n, exp_epsilon=cq))[0] >= exact
    assert lo >= exact * (1 - Fraction(1, 10**6))


@pytest.mark.parametrize("mech", [OUE(16, epsilon0=2), SUE(16, epsilon0=2)], ids=["oue", "sue"])
def test_full_view_is_above_the_joined_statistic(mech):
    # the joined statistic is a post-processing of this very pair: its exact δ is below the full view's
    n, eps = 200, "0.4"
    full = T.third_full_delta(mech, n, epsilon=eps)
    joined = X.third_value_delta(mech, n, epsilon=eps, statistic="joined")
    assert _q(full) >= arith.endpoints(joined)[1]
    assert arith.endpoints(T.third_full_upper(mech, n, epsilon=eps))[0] >= arith.endpoints(full)[1]
    v, where = X.best_lower(mech, n, epsilon=eps)
    assert "full view" in where and _q(v) == _q(full)


def test_full_view_refusals():
    from flint import arb

    wide = arb(fmpq(3, 2), fmpq(1, 10**6))  # e^ε known to 1e-6 only: wider than the kernel's margin
    assert T.third_full_delta(OUE(8, epsilon0=2), 60, exp_epsilon=wide) is None
    assert T.third_full_delta(Hadamard(8, epsilon0=2), 50, epsilon="0.3") is None
    assert T.third_full_delta(OUE(8, epsilon0=1), 50, epsilon=1) == 0
    m = OUE(8, epsilon0=2)
    assert T.third_full_delta(m, 200, epsilon="0.3", max_work=T.third_full_work(m, 200) - 1) is None
    assert T.third_full_delta(m, 200, epsilon="0.3", max_work=T.third_full_work(m, 200)) is not None


def test_binned_lower_end(monkeypatch):
    # the binned route (Lemma T2) against the sorted one (Lemma T1) and, at n = 9, the exact rational value
    m, n, eps = OUE(16, epsilon0=2), 100, "0.5"
    sorted_v = T.third_full_delta(m, n, epsilon=eps)
    monkeypatch.setattr(T, "BINNED_MIN_N", 0)
    monkeypatch.setattr(T, "BINNED_MAX_WORK", 10**9)  # (off by default)
    binned = T.third_full_delta(m, n, epsilon=eps)
    lo_s, hi_s = arith.endpoints(sorted_v)
    lo_b, hi_b = arith.endpoints(binned)
    assert lo_b <= hi_s and lo_b >= lo_s * Fraction(98, 100)
    assert hi_b >= lo_s  # (its upper end is the Chernoff bound)
    n, E, c = 7, 7, Fraction(3, 2)
    mech = UnaryEncoding(k=5, p=fmpq(1, 2), q=fmpq(1, E + 1), kind="oue")
    exact = _brute_multinomial(n, Fraction(1, 2), Fraction(1, E + 1), Fraction(E), c)
    lo, hi = arith.endpoints(T.third_full_delta(mech, n, exp_epsilon=fmpq(3, 2), exact_max_n=0))
    assert 0 < lo <= exact <= hi
