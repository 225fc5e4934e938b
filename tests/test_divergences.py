"""Tests for exact.laws.divergences: hockey-stick, TV, Rényi, LLR, windowed tails.

Independent routes: Python Fractions for exact rational inputs, mpmath at
100 digits for transcendental ones (e^ε, non-integer orders, logarithms),
and full-versus-windowed distributions for the tail handling.
"""

from fractions import Fraction

import mpmath
import pytest
from blanket.exact.laws.divergences import (
    Windowed,
    align,
    hockey_stick,
    llr_distance,
    renyi,
    renyi_moment,
    total_variation,
)
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath's precision is global state: 100 digits inside each test, restored after."""
    with mpmath.workdps(100):
        yield


def F(q):
    return Fraction(int(q.p), int(q.q))


def mp_of(q):
    return mpmath.mpf(int(q.p)) / int(q.q)


@st.composite
def dist_pairs(draw, positive=False, size=None):
    n = draw(st.integers(1, 7)) if size is None else size
    lo = 1 if positive else 0
    a = [draw(st.integers(lo, 9)) for _ in range(n)]
    b = [draw(st.integers(lo, 9)) for _ in range(n)]
    if sum(a) == 0:
        a[0] = 1
    if sum(b) == 0:
        b[-1] = 1
    return [fmpq(v, sum(a)) for v in a], [fmpq(v, sum(b)) for v in b]


ees = st.builds(lambda a, b: fmpq(b + a, b), st.integers(0, 10), st.integers(1, 6))
decimal_eps = st.builds(lambda a: f"{a / 100:.2f}", st.integers(0, 300))


def within(ball, ref, tol_digits=80):
    """mpmath reference lies in the ball up to mpmath's own 1e-80 error."""
    lo, hi = arith.endpoints(ball)
    slack = mpmath.mpf(10) ** -tol_digits
    return mpmath.mpf(lo.numerator) / lo.denominator - slack <= ref <= mpmath.mpf(hi.numerator) / hi.denominator + slack


# ---------------------------------------------------------------- hockey-stick and TV
@given(dist_pairs(), ees)
def test_hockey_stick_exact_rationals(pq, ee):
    p, q = pq
    want = sum(max(F(a) - F(ee) * F(b), Fraction(0)) for a, b in zip(p, q))
    got = hockey_stick(p, q, exp_epsilon=ee)
    assert isinstance(got, fmpq) and F(got) == want
    # sup-identity: equals the max over events of p(E) - e^eps q(E)
    best = Fraction(0)
    n = len(p)
    for mask in range(1 << n):
        s = sum(F(p[i]) - F(ee) * F(q[i]) for i in range(n) if mask >> i & 1)
        best = max(best, s)
    assert F(got) == best


@given(dist_pairs(), decimal_eps)
def test_hockey_stick_decimal_epsilon_against_mpmath(pq, eps):
    p, q = pq
    with arith.precision(300):
        got = hockey_stick(p, q, epsilon=eps)
        e = mpmath.exp(mpmath.mpf(eps))
        ref = sum(max(mp_of(a) - e * mp_of(b), 0) for a, b in zip(p, q))
        assert within(arith.ball(got), ref)
        assert arith.ball(got).rad() < fmpq(1, 10**80)


@given(dist_pairs())
def test_total_variation(pq):
    p, q = pq
    tv = total_variation(p, q)
    assert F(tv) == sum(abs(F(a) - F(b)) for a, b in zip(p, q)) / 2
    # identity (2): TV = 1 - sum min
    assert F(tv) == 1 - sum(min(F(a), F(b)) for a, b in zip(p, q))


@given(dist_pairs(size=8), st.integers(1, 6), st.integers(0, 2), ees)
def test_windowed_hockey_stick_encloses_full_value(pq, width, start, ee):
    p, q = pq
    full = hockey_stick(p, q, exp_epsilon=ee)
    stop = min(start + width, len(p))
    tail_p = sum(p[:start] + p[stop:], fmpq(0))
    tail_q = sum(q[:start] + q[stop:], fmpq(0))
    got = hockey_stick(p[start:stop], q[start:stop], exp_epsilon=ee, p_tail=tail_p, q_tail=tail_q)
    if tail_p == 0:
        assert got == full
    else:
        lo, hi = arith.endpoints(got)
        assert lo <= F(full) <= hi
        # width is the tail, up to arb's outward rounding of the radius (30-bit mantissa)
        assert hi - lo <= F(tail_p) * (1 + Fraction(1, 2**20))


def test_windowed_and_align():
    a = Windowed([fmpq(1, 2), fmpq(1, 4)], offset=3, tail=fmpq(1, 4))
    b = Windowed([fmpq(1, 2)], offset=4, tail=fmpq(1, 2))
    pa, pb, off = align(a, b)
    assert off == 3 and pa == [fmpq(1, 2), fmpq(1, 4)] and pb == [0, fmpq(1, 2)]
    assert a.stop == 5 and a.at(2) == 0 and a.at(4) == fmpq(1, 4)


def test_hockey_stick_examples_by_hand():
    p, q = [fmpq(1, 2), fmpq(1, 2)], [fmpq(1, 4), fmpq(3, 4)]
    assert hockey_stick(p, q, exp_epsilon=1) == fmpq(1, 4)
    assert hockey_stick(p, q, exp_epsilon=2) == 0
    assert hockey_stick(p, q, exp_epsilon="3/2") == fmpq(1, 8)


# ---------------------------------------------------------------- Rényi
@given(dist_pairs(positive=True), st.integers(2, 6))
def test_renyi_integer_order_exact(pq, lam):
    p, q = pq
    m = renyi_moment(p, q, lam)
    assert isinstance(m, fmpq)
    assert F(m) == sum(F(a) ** lam / F(b) ** (lam - 1) for a, b in zip(p, q))
    assert m >= 1  # Jensen: the moment of a divergence is >= 1
    with arith.precision(300):
        d = renyi(p, q, lam)
        ref = mpmath.log(mp_of(m)) / (lam - 1)
        assert within(d, ref)


@given(dist_pairs(positive=True), st.sampled_from(["3/2", "2.5", "1.1", "7/3"]))
def test_renyi_non_integer_order_against_mpmath(pq, lam):
    p, q = pq
    with arith.precision(300):
        d = renyi(p, q, lam)
        L = mpmath.mpf(F(arith.exact(lam)).numerator) / F(arith.exact(lam)).denominator
        mom = sum(mp_of(a) ** L * mp_of(b) ** (1 - L) for a, b in zip(p, q) if a != 0)
        assert within(d, mpmath.log(mom) / (L - 1))


def test_renyi_zero_entries_and_infinite_case():
    p, q = [fmpq(1), fmpq(0)], [fmpq(1, 2), fmpq(1, 2)]
    assert renyi_moment(p, q, 2) == 2  # p = 0 contributes 0
    with pytest.raises(InvalidArgument, match="Rényi divergence is infinite"):
        renyi_moment(q, p, 2)
    with pytest.raises(InvalidArgument, match="order must be > 1"):
        renyi_moment(p, q, 1)


# ---------------------------------------------------------------- LLR distance
@given(dist_pairs(positive=True))
def test_llr_distance_against_mpmath(pq):
    p, q = pq
    with arith.precision(300):
        d = llr_distance(p, q)
        ref = max(abs(mpmath.log(mp_of(a) / mp_of(b))) for a, b in zip(p, q))
        assert within(arith.ball(d), ref)


def test_llr_distance_special_cases():
    h = fmpq(1, 2)
    assert llr_distance([h, h], [h, h]) == 0
    assert llr_distance([fmpq(1), fmpq(0)], [h, h]) is None  # supports differ: +infinity
    assert llr_distance([fmpq(1), fmpq(0)], [fmpq(1), fmpq(0)]) == 0  # common zero ignored
    with arith.precision(128):
        assert llr_distance([h, h], [fmpq(1, 4), fmpq(3, 4)]).contains(arb(2).log())
        with pytest.raises(InvalidArgument, match="certainly positive"):
            llr_distance([arb(0, 1e-3), fmpq(1)], [h, h])


# ---------------------------------------------------------------- validation
def test_validation():
    h = fmpq(1, 2)
    with pytest.raises(InvalidArgument, match="q must have as many entries as p \\(2\\)"):
        hockey_stick([h, h], [fmpq(1)], exp_epsilon=1)
    with pytest.raises(FloatRefused):
        hockey_stick([0.5, 0.5], [h, h], exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="exp_epsilon must be >= 1"):
        hockey_stick([h, h], [h, h], exp_epsilon="1/2")
    with pytest.raises(InvalidArgument, match="epsilon must be >= 0"):
        hockey_stick([h, h], [h, h], epsilon="-1")
    with pytest.raises(InvalidArgument, match="not both or neither"):
        hockey_stick([h, h], [h, h])
