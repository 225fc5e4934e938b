"""Tests for exact.shuffled.bruteforce: the k^n enumeration ground truth.

Independent routes: hand-derived closed forms for tiny cases, the
multinomial formula typed here, and basic invariants (mass 1, permutation
invariance of the shuffled output).
"""

from fractions import Fraction
from itertools import permutations
from math import factorial

import pytest
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.bruteforce import MAX_N, delta_brute, shuffled_law
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

from tests._helpers import stochastic_rows

rat_e = st.builds(lambda a, b: fmpq(a + b, b), st.integers(0, 8), st.integers(1, 5))  # e^{eps} >= 1, rational


@st.composite
def matrices(draw, k_in=None, k_out=None):
    sizes = st.integers(2, 3)
    return FiniteRandomizer(
        draw(stochastic_rows(sizes if k_in is None else k_in, sizes if k_out is None else k_out, 0, 6))
    )


def test_binary_rr_two_users_by_hand():
    # keep 3/4, flip 1/4; users hold 0 and 1
    law = shuffled_law(KRR(2, exp_epsilon0=3), [0, 1])
    assert law == {(2, 0): fmpq(3, 16), (1, 1): fmpq(9, 16) + fmpq(1, 16), (0, 2): fmpq(3, 16)}


@given(matrices(), st.integers(1, 4), st.data())
def test_law_is_a_probability_and_matches_multinomial_for_iid(mech, n, data):
    x = data.draw(st.integers(0, mech.k_in - 1))
    law = shuffled_law(mech, [x] * n)
    assert sum(law.values(), fmpq(0)) == 1
    row = [Fraction(int(v.p), int(v.q)) for v in mech.row(x)]
    for h, p in law.items():
        expected = Fraction(factorial(n))
        for c, r in zip(h, row):
            expected *= r**c / factorial(c)
        assert Fraction(int(p.p), int(p.q)) == expected


@given(matrices(), st.lists(st.integers(0, 1), min_size=2, max_size=4))
def test_law_invariant_under_permuting_users(mech, data):
    base = shuffled_law(mech, data)
    for perm in set(permutations(data)):
        assert shuffled_law(mech, list(perm)) == base


@given(matrices(), st.lists(st.integers(0, 1), min_size=1, max_size=4), rat_e)
def test_delta_of_identical_datasets_is_zero_and_bounded(mech, data, ee):
    assert delta_brute(mech, data, data, exp_epsilon=ee) == 0
    other = [1 - data[0]] + data[1:]
    d = delta_brute(mech, data, other, exp_epsilon=ee)
    assert 0 <= d <= 1


def test_delta_single_user_is_local_hockey_stick():
    # n = 1: D_{e^eps}(mu_0 || mu_1) = sum_y [mu_0(y) - e^eps mu_1(y)]_+ ; 3-RR, e^eps0 = 2: rows (1/2,1/4,1/4)
    mech = KRR(3, exp_epsilon0=2)
    assert delta_brute(mech, [0], [1], exp_epsilon="5/4") == fmpq(1, 2) - fmpq(5, 4) * fmpq(1, 4)


def test_ball_entries_give_enclosing_balls():
    # a decimal epsilon0 yields ball entries: the law still sums to (a ball containing) 1,
    # and the ball delta encloses the exact value computed with e^{eps0} = e^{eps} = exact rationals
    mech = KRR(3, epsilon0="0.5")
    law = shuffled_law(mech, [0, 1, 2])
    assert sum(law.values(), arb(0)).contains(1)
    # e^{eps0} = 2 exactly via a ball of log 2: compare with the exact mechanism
    from blanket.exact.numbers.arith import precision

    with precision(200):
        ball_mech = KRR(3, epsilon0="0.6931471805599453094172321214581765680755001343602552541206800094")
        d_ball = delta_brute(ball_mech, [0, 0], [1, 0], epsilon=0)
    d_exact = delta_brute(KRR(3, exp_epsilon0=2), [0, 0], [1, 0], exp_epsilon=1)
    # the decimal is log 2 to 64 digits: the two values differ by far less than 1e-50
    assert abs(d_ball - d_exact) < fmpq(1, 10**50)


def test_errors():
    mech = KRR(2, exp_epsilon0=3)
    with pytest.raises(InvalidArgument, match="len\\(dataset\\) must be <= 8"):
        shuffled_law(mech, [0] * (MAX_N + 1))
    with pytest.raises(InvalidArgument, match="dataset\\[1\\] must be an input value in 0..1, got 5"):
        shuffled_law(mech, [0, 5])
    with pytest.raises(InvalidArgument, match="dataset must be a non-empty list"):
        shuffled_law(mech, [])
    with pytest.raises(InvalidArgument, match="d2 must have as many users as d1"):
        delta_brute(mech, [0, 1], [0], exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="report vectors"):
        shuffled_law(KRR(10, exp_epsilon0=2), [0] * 7)
    with pytest.raises(InvalidArgument, match="epsilon"):
        delta_brute(mech, [0], [1], epsilon=0.5)
