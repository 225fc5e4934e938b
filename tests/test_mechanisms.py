"""Tests for exact.mechanisms.finite: finite randomizers, LDP level, blanket decomposition, amplification law.

Independent routes: closed forms typed here from spec/blanket.md (Lemma 5.1(1),
Lemma 5.2, Lemma 5.4, Lemma 5.7), Python Fractions recomputing the matrix
quantities from scratch, and mpmath for the ball-valued entries.
"""

from fractions import Fraction

import mpmath
import pytest
from blanket.exact.mechanisms.finite import KRR, BinaryRR, FiniteRandomizer, amplification_law
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

from tests._helpers import stochastic_rows

e0s = st.builds(lambda a, b: fmpq(b + a, b), st.integers(0, 20), st.integers(1, 6))  # e^{eps0} >= 1
ees = st.builds(lambda a, b: fmpq(b + a, b), st.integers(0, 10), st.integers(1, 6))


def F(q):
    return Fraction(int(q.p), int(q.q))


@st.composite
def ldp_matrices(draw, full_support=True):
    return FiniteRandomizer(draw(stochastic_rows(st.integers(2, 4), st.integers(2, 5), 1 if full_support else 0, 9)))


# ---------------------------------------------------------------- k-RR
@given(st.integers(2, 12), e0s)
def test_krr_rows_and_lemma_5_1_gamma(k, e0):
    rr = KRR(k, exp_epsilon0=e0)
    E = F(e0)
    for x in range(k):
        row = rr.row(x)
        assert sum(row, fmpq(0)) == 1
        for y, v in enumerate(row):
            assert F(v) == (E if y == x else 1) / (E + k - 1)
    # Lemma 5.1(1): gamma = k / (e^eps0 + k - 1), blanket uniform
    assert F(rr.gamma()) == Fraction(k) / (E + k - 1)
    assert rr.blanket() == [fmpq(1, k)] * k
    # the generic matrix route gives the same decomposition and LDP level
    gen = FiniteRandomizer(rr.matrix())
    assert gen.gamma() == rr.gamma() and gen.blanket() == [fmpq(1, k)] * k
    assert gen.exp_epsilon0() == e0 == rr.exp_epsilon0()


def test_krr_ball_entries_against_mpmath():
    with mpmath.workdps(60), arith.precision(200):
        rr = KRR(5, epsilon0="0.7")
        keep, flip, g = rr.keep(), rr.flip(), rr.gamma()
        e = mpmath.exp(mpmath.mpf(7) / 10)
        for ball, ref in ((keep, e / (e + 4)), (flip, 1 / (e + 4)), (g, 5 / (e + 4))):
            assert abs(mpmath.mpf(ball.mid().str(50, radius=False)) - ref) < mpmath.mpf(10) ** -45
            assert ball.rad() < fmpq(1, 10**50)
        assert rr.epsilon0().contains(arb("0.7"))


def test_binary_rr_is_krr_with_k_2():
    b = BinaryRR(exp_epsilon0=3)
    assert b.k == 2 and b.row(0) == [fmpq(3, 4), fmpq(1, 4)] and b.gamma() == fmpq(1, 2)


def test_krr_epsilon0_zero_is_uniform():
    rr = KRR(4, epsilon0=0)
    assert rr.exp_epsilon0() == 1 and rr.gamma() == 1 and rr.row(2) == [fmpq(1, 4)] * 4


# ---------------------------------------------------------------- generic matrices
@given(ldp_matrices())
def test_lemma_5_2_gamma_at_least_exp_minus_eps0(mech):
    e0 = mech.exp_epsilon0()
    assert isinstance(e0, fmpq) and e0 >= 1
    assert mech.gamma() * e0 >= 1  # gamma >= e^{-eps0}, exactly
    # independent recomputation of gamma and e^{eps0} with Fractions
    M = [[F(v) for v in mech.row(x)] for x in range(mech.k_in)]
    g = sum(min(M[x][y] for x in range(mech.k_in)) for y in range(mech.k_out))
    assert F(mech.gamma()) == g
    ratio = max(M[x][y] / M[x2][y] for y in range(mech.k_out) for x in range(mech.k_in) for x2 in range(mech.k_in))
    assert F(e0) == ratio


@given(ldp_matrices(full_support=False))
def test_blanket_decomposition(mech):
    g = mech.gamma()
    if g == 0:
        with pytest.raises(InvalidArgument, match="total-variation similarity 0"):
            mech.blanket()
        return
    om = mech.blanket()
    assert sum(om, fmpq(0)) == 1 and all(v >= 0 for v in om)
    for x in range(mech.k_in):
        mu = mech.row(x)
        if g == 1:
            assert mu == om
            continue
        nu = [(m - g * w) / (1 - g) for m, w in zip(mu, om)]
        assert all(v >= 0 for v in nu) and sum(nu, fmpq(0)) == 1
        assert [(1 - g) * a + g * b for a, b in zip(nu, om)] == mu


def test_infinite_epsilon0_when_supports_differ():
    m = FiniteRandomizer([[1, 0], ["1/2", "1/2"]])
    assert m.exp_epsilon0() is None and m.epsilon0() is None
    # an output nobody produces is ignored
    m2 = FiniteRandomizer([["1/2", "1/2", 0], ["1/4", "3/4", 0]])
    assert m2.exp_epsilon0() == 2


# ---------------------------------------------------------------- amplification variable L
@given(ldp_matrices(), ees, st.data())
def test_lemma_5_4_mean_range_second_moment(mech, ee, data):
    x = data.draw(st.integers(0, mech.k_in - 1))
    x2 = data.draw(st.integers(0, mech.k_in - 1).filter(lambda v: v != x))
    law = amplification_law(mech, x, x2, exp_epsilon=ee)
    assert sum((p for _, p in law), fmpq(0)) == 1
    mean = sum((v * p for v, p in law), fmpq(0))
    assert mean == 1 - ee  # Lemma 5.4(1), exactly
    g, e0 = mech.gamma(), mech.exp_epsilon0()
    # Lemma 5.4(2) with e^{eps0} rational: gamma (1/e0 - ee e0) <= L <= gamma (e0 - ee / e0)
    for v, _ in law:
        assert g * (1 / e0 - ee * e0) <= v <= g * (e0 - ee / e0)
    # Lemma 5.4(3): E[L^2] <= gamma (e0 (ee^2 + 1) - 2 gamma ee / e0^2)
    m2 = sum((v * v * p for v, p in law), fmpq(0))
    assert m2 <= g * (e0 * (ee**2 + 1) - 2 * g * ee / e0**2)


@given(st.integers(2, 8), e0s, ees)
def test_lemma_5_7_krr_law_and_second_moment(k, e0, ee):
    rr = KRR(k, exp_epsilon0=e0)
    g = rr.gamma()
    law = amplification_law(rr, 0, 1, exp_epsilon=ee)
    # L = gamma (1 - ee) + k (1 - gamma)(1[W = x] - ee 1[W = x'])
    expected = [g * (1 - ee) + k * (1 - g), g * (1 - ee) - k * (1 - g) * ee] + [g * (1 - ee)] * (k - 2)
    assert [v for v, _ in law] == expected and all(p == fmpq(1, k) for _, p in law)
    m2 = sum((v * v * p for v, p in law), fmpq(0))
    assert m2 == g * (2 - g) * (ee - 1) ** 2 + (1 - g) ** 2 * k * (ee**2 + 1)


def test_amplification_law_decimal_epsilon_is_ball_enclosing_exact():
    rr = KRR(3, exp_epsilon0=2)
    exact_law = amplification_law(rr, 0, 1, exp_epsilon=1)
    with arith.precision(128):
        law = amplification_law(rr, 0, 1, epsilon=0)
        assert len(law) == len(exact_law) == 3
        for (v, p), (w, q) in zip(law, exact_law):
            assert arith.ball(v).contains(w) and p == q
    with arith.precision(128):
        law = amplification_law(rr, 0, 1, epsilon="0.5")
        mean = sum((v * p for v, p in law), arb(0))
        assert mean.overlaps(1 - arb("0.5").exp())


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "matrix,match",
    [
        ([[1, 0]], "must have at least two rows"),
        ("abc", "must have at least two rows"),
        ([[1, 0], [1]], "matrix row 1 must have 2 entries like row 0"),
        ([[1, 0], []], "matrix row 1 must be a non-empty list"),
        ([["3/2", "-1/2"], [1, 0]], "matrix\\[0\\]\\[1\\] must be >= 0"),
        ([["1/2", "1/3"], [1, 0]], "matrix row 0 must sum to exactly 1, got '5/6'"),
        ([["x", 1], [1, 0]], "matrix\\[0\\]\\[0\\] must be a number"),
    ],
)
def test_matrix_validation(matrix, match):
    with pytest.raises(InvalidArgument, match=match):
        FiniteRandomizer(matrix)


def test_float_entries_refused():
    with pytest.raises(FloatRefused, match="matrix\\[0\\]\\[0\\] must be exact"):
        FiniteRandomizer([[0.5, 0.5], [1, 0]])


def test_krr_validation():
    with pytest.raises(InvalidArgument, match="k must be >= 2, got 1"):
        KRR(1, epsilon0=1)
    with pytest.raises(InvalidArgument, match="epsilon0 must be >= 0"):
        KRR(3, epsilon0="-0.1")
    with pytest.raises(InvalidArgument, match="exp_epsilon0 must be >= 1"):
        KRR(3, exp_epsilon0="1/2")
    with pytest.raises(InvalidArgument, match="not both or neither"):
        KRR(3)
    with pytest.raises(InvalidArgument, match="not both or neither"):
        KRR(3, epsilon0=1, exp_epsilon0=2)
    with pytest.raises(FloatRefused):
        KRR(3, epsilon0=0.5)
    with pytest.raises(InvalidArgument, match="x must be an input value in 0..2, got 3"):
        KRR(3, exp_epsilon0=2).row(3)
    with pytest.raises(InvalidArgument, match="not both or neither"):
        amplification_law(KRR(3, exp_epsilon0=2), 0, 1)
