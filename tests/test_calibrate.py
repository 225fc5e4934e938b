"""Tests of exact.numbers.calibrate: certified one-sided brackets, evaluation counts, infeasible/undecided targets.

Oracles: closed-form profiles whose crossing mpmath computes independently,
and direct evaluations of exact.shuffled.binary at a higher precision.
"""

from fractions import Fraction

import mpmath
import pytest
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import Bracket, epsilon0_for, epsilon_for_delta, gaussian_epsilon_guess
from blanket.exact.numbers.errors import InfeasibleTarget, InvalidArgument, Undecided
from blanket.exact.shuffled.binary import delta_binary
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st


def fl(q) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def exp_profile(k):
    """δ(ε) = exp(−k ε²) as a ball (non-increasing on ε ≥ 0)."""
    kq = arith.exact(k)
    return lambda eps: (-(arb(eps) ** 2) * kq).exp()


@settings(max_examples=20)
@given(k=st.fractions(min_value=Fraction(1, 2), max_value=Fraction(2000), max_denominator=3), t_exp=st.integers(1, 12))
def test_bracket_contains_the_crossing_and_is_certified(k, t_exp):
    target = fmpq(1, 10**t_exp)
    with arith.precision(128):
        br = epsilon_for_delta(exp_profile(k), target, hi=100, rel_tol="1e-6")
    with mpmath.workdps(40):
        star = mpmath.sqrt(mpmath.log(mpmath.mpf(10) ** t_exp) / (mpmath.mpf(k.numerator) / k.denominator))
        assert fl(br.lower) < star <= fl(br.upper)
        # direct evaluation (independent of the search) at both ends
        kk = mpmath.mpf(k.numerator) / k.denominator
        assert mpmath.exp(-kk * fl(br.upper) ** 2) <= mpmath.mpf(10) ** -t_exp
        assert mpmath.exp(-kk * fl(br.lower) ** 2) > mpmath.mpf(10) ** -t_exp
    assert br.rel_width() <= fmpq(1, 10**6)
    assert br.meets == "upper" and br.certified == br.upper
    assert br.evaluations <= 20  # no guess: a few geometric steps first


@pytest.mark.parametrize("k, t", [(1, "1e-3"), (100, "1e-8"), (1000, "0.3"), (7, "1e-12")])
def test_at_most_12_evaluations_with_a_reasonable_guess(k, t):
    with mpmath.workdps(30):
        star = float(mpmath.sqrt(mpmath.log(1 / mpmath.mpf(t)) / k))
    for factor in (0.95, 1.0, 1.05):
        with arith.precision(128):
            br = epsilon_for_delta(exp_profile(k), t, hi=100, guess=star * factor)
        assert br.evaluations <= 12, (factor, br)
        assert br.rel_width() <= fmpq(1, 10**6)


def test_binary_rr_bracket_consistent_with_direct_evaluation():
    rr = BinaryRR(epsilon0="2")
    n, target = 3000, fmpq(1, 10**6)

    def fun(eps):
        return delta_binary(rr, n, 0, epsilon=eps)

    br = epsilon_for_delta(fun, target, hi=2, guess=0.2)
    assert br.evaluations <= 12
    with arith.precision(256):  # independent re-evaluation at a different precision
        assert arith.le(delta_binary(rr, n, 0, epsilon=br.upper), target) is True
        assert arith.gt(delta_binary(rr, n, 0, epsilon=br.lower), target) is True


def test_step_function_profile():
    # non-smooth: δ drops from 1/2 to 1/1000 at ε = 1/3 (exact values)
    def fun(eps):
        return fmpq(1, 2) if eps < fmpq(1, 3) else fmpq(1, 1000)

    br = epsilon_for_delta(fun, "0.01", hi=1, rel_tol="1e-6")
    assert br.lower < fmpq(1, 3) <= br.upper and br.rel_width() <= fmpq(1, 10**6)


def test_target_met_at_lower_end():
    br = epsilon_for_delta(lambda e: fmpq(1, 10**9), "1e-6", hi=1)
    assert br.lower == br.upper == 0


def test_infeasible_target():
    with pytest.raises(InfeasibleTarget):
        epsilon_for_delta(lambda e: fmpq(1, 2), "1e-6", hi=1)


def test_undecided_when_delta_cannot_be_separated_from_target():
    # δ(ε) is a ball that always straddles the target below ε = 1/2
    def fun(eps):
        return arb(fmpq(1, 1000), fmpq(1, 10**4)) if eps < fmpq(1, 2) else fmpq(0)

    with pytest.raises(Undecided):
        epsilon_for_delta(fun, "1e-3", hi=1, cap=256)


def test_epsilon0_for_increasing_profile():
    # δ(ε0) = 1 − exp(−ε0): largest ε0 with δ ≤ 1e-2 is −log(0.99) = 0.01005033585…
    def fun(e0):
        return 1 - (-arb(e0)).exp()

    br = epsilon0_for(fun, "1e-2", hi=5, rel_tol="1e-7")
    star = -mpmath.log(mpmath.mpf("0.99"))
    assert fl(br.lower) <= star < fl(br.upper)
    assert br.meets == "lower" and br.certified == br.lower
    assert br.rel_width() <= fmpq(1, 10**7)


def test_epsilon0_for_binary_rr_is_certified():
    n, eps, target = 500, fmpq(1, 2), fmpq(1, 10**6)

    def fun(e0):
        return delta_binary(BinaryRR(epsilon0=e0), n, 0, epsilon=eps)

    br = epsilon0_for(fun, target, lo=eps, hi=6, rel_tol="1e-5")
    with arith.precision(200):
        assert arith.le(fun(br.lower), target) is True
        assert arith.gt(fun(br.upper), target) is True


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(target_delta="0", hi=1), "delta"),
        (dict(target_delta="1", hi=1), "delta"),
        (dict(target_delta="1e-3", hi=0), "hi"),
        (dict(target_delta="1e-3", hi=1, rel_tol="0"), "rel_tol"),
        (dict(target_delta="x", hi=1), "delta"),
    ],
)
def test_bad_arguments(kwargs, name):
    with pytest.raises(InvalidArgument) as exc:
        epsilon_for_delta(lambda e: fmpq(0), **kwargs)
    assert str(exc.value).startswith(name + " ")


def test_gaussian_guess_is_reasonable():
    # the Gaussian-mechanism profile itself: its guess must solve it
    mu, d = 0.5, 1e-6
    g = gaussian_epsilon_guess(mu, d)
    Phi = lambda x: 0.5 * mpmath.erfc(-x / mpmath.sqrt(2))  # noqa: E731
    val = Phi(-g / mu + mu / 2) - mpmath.exp(g) * Phi(-g / mu - mu / 2)
    assert abs(val - d) < 1e-9
    assert gaussian_epsilon_guess(-1, d) is None


def test_bracket_rel_width():
    assert Bracket(fmpq(1), fmpq(1), 0).rel_width() == 0
    assert Bracket(fmpq(99, 100), fmpq(1), 0).rel_width() == fmpq(1, 100)
