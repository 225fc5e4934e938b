"""The k-RR family Rényi moments at scale (exact.accounting.renyi_families, issue 14).

Independent routes: brute-force enumeration of the shuffled histogram law (exact rationals, small n and k),
the nested-window route ``moment_krr_family_nested`` (exact for n ≤ EXACT_MAX_N, balls above), and for the
moments of the mean of i.i.d. steps a direct enumeration of the multinomial and the exact rational
recursion ``joint_moments`` (a different algorithm from the series route the kernel uses).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from blanket.exact.accounting import renyi as xr
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.protocols.summation import histogram_law
from flint import arb, fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------ brute force: the shuffled histogram law
def _row(mech, v):
    return [mech.keep() if y == v else mech.flip() for y in range(mech.k)]


def _hist_law(mech, n, z, last):
    """Law of the histogram of n reports: n − 1 users hold z, one holds ``last`` (exact dict)."""
    return histogram_law([_row(mech, z)] * (n - 1) + [_row(mech, last)])


def brute_moment(mech, n, family, lam):
    """``Σ_h M(D)(h)^λ M(D')(h)^{1−λ}`` with x = 0, x' = 1 (z = x, x' or 2), by enumeration."""
    z = {"same": 0, "neighbour": 1, "third": 2}[family]
    P = _hist_law(mech, n, z, 0)
    Q = _hist_law(mech, n, z, 1)
    out = fmpq(0)
    for h, p in P.items():
        out = arith.add(out, arith.mul(Q[h], arith.power(p / Q[h], lam)))
    return out


def brute_joint_moment(steps, n, i, j):
    """``E[u^i v^j]`` for the mean of n i.i.d. steps, by enumerating the multinomial counts (exact)."""
    cells = len(steps)
    out = fmpq(0)
    for counts in itertools.product(range(n + 1), repeat=cells - 1):
        rest = n - sum(counts)
        if rest < 0:
            continue
        cs = (*counts, rest)
        w = fmpq(math.factorial(n))
        for c, (p, _, _) in zip(cs, steps):
            w = w * p**c / math.factorial(c)
        u = sum((c * xi for c, (_, xi, _) in zip(cs, steps)), fmpq(0)) / n
        v = sum((c * eta for c, (_, _, eta) in zip(cs, steps)), fmpq(0)) / n
        out += w * u**i * v**j
    return out


def holds(ball, q) -> bool:
    """The exact rational ``q`` lies in the ball (exact endpoint comparison, no conversion of q)."""
    lo, hi = arith.endpoints(ball)
    return lo <= Fraction(int(q.p), int(q.q)) <= hi


rational_e = st.builds(lambda a, b: fmpq(a + b, b), st.integers(1, 6), st.integers(1, 4))


# ------------------------------------------------------------ the steps and their moments
@given(k=st.integers(3, 5), e=rational_e, family=st.sampled_from(xr.FAMILIES))
@SETTINGS
def test_steps_are_centred_and_sum_to_one(k, e, family):
    steps = rf.family_steps(KRR(k, exp_epsilon0=e), family)
    assert sum((p for p, _, _ in steps), fmpq(0)) == 1
    assert sum((p * xi for p, xi, _ in steps), fmpq(0)) == 0
    assert sum((p * eta for p, _, eta in steps), fmpq(0)) == 0


@given(k=st.integers(3, 4), e=rational_e, family=st.sampled_from(xr.FAMILIES), n=st.integers(1, 6))
@SETTINGS
def test_joint_moments_match_enumeration(k, e, family, n):
    steps = rf.family_steps(KRR(k, exp_epsilon0=e), family)
    m = rf.joint_moments(steps, n, 5)
    ms = rf.joint_moments_series(steps, n, 5)
    for i, j in [(0, 2), (2, 0), (1, 1), (2, 1), (1, 3), (0, 4), (3, 2), (5, 0)]:
        want = brute_joint_moment(steps, n, i, j)
        assert m[i][j] == want
        assert holds(ms[i][j], want)


@given(k=st.integers(2, 6), e=rational_e, family=st.sampled_from(xr.FAMILIES), n=st.integers(2, 10**7))
@SETTINGS
def test_series_moments_contain_exact_recursion(k, e, family, n):
    if family == "third" and k < 3:
        return
    steps = rf.family_steps(KRR(k, exp_epsilon0=e), family)
    d = 12
    m = rf.joint_moments(steps, n, d)
    ms = rf.joint_moments_series(steps, n, d)
    for i in range(d + 1):
        for j in range(d + 1 - i):
            assert holds(ms[i][j], m[i][j]), (i, j)


# ------------------------------------------------------------ the Taylor kernel against exact values
@given(
    k=st.integers(3, 4),
    e=st.builds(lambda a: fmpq(20 + a, 20), st.integers(1, 4)),
    family=st.sampled_from(xr.FAMILIES),
    n=st.integers(15, 30),
    lam=st.sampled_from([fmpq(2), fmpq(3), fmpq(5, 2)]),
)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_taylor_contains_brute_force(k, e, family, n, lam):
    """Small ε0 and a modest target (10^-10) let the Taylor box apply at small n, where enumeration is possible."""
    mech = KRR(k, exp_epsilon0=e)
    with arith.precision(128):
        tm = rf.taylor_moment(rf.family_steps(mech, family), n, lam, target=fmpq(1, 10**10))
        assert tm is not None
        want = brute_moment(mech, n, family, lam)
        assert holds(tm.value, want) if isinstance(want, fmpq) else tm.value.overlaps(want)
        assert tm.value.rad() < arb("1e-9")


def brute_tail(steps, n, delta, axis):
    """``P(|mean along axis| > δ)`` by enumerating the multinomial (exact)."""
    out = fmpq(0)
    for counts in itertools.product(range(n + 1), repeat=len(steps) - 1):
        rest = n - sum(counts)
        if rest < 0:
            continue
        cs = (*counts, rest)
        mean = sum((c * st_[1 + axis] for c, st_ in zip(cs, steps)), fmpq(0)) / n
        if abs(mean) > delta:
            w = fmpq(math.factorial(n))
            for c, (p, _, _) in zip(cs, steps):
                w = w * p**c / math.factorial(c)
            out += w
    return out


@given(k=st.integers(3, 4), e=rational_e, family=st.sampled_from(xr.FAMILIES), n=st.integers(1, 25))
@SETTINGS
def test_chernoff_tail_bounds_the_exact_tail(k, e, family, n):
    steps = rf.family_steps(KRR(k, exp_epsilon0=e), family)
    for axis in (0, 1):
        for delta in (fmpq(1, 10), fmpq(1, 2)):
            exact = brute_tail(steps, n, delta, axis)
            bound = rf.chernoff_tail(steps, n, delta, axis)
            lo, _ = arith.endpoints(bound)
            assert Fraction(int(exact.p), int(exact.q)) <= lo or holds(bound, exact)


@pytest.mark.parametrize("family", xr.FAMILIES)
@pytest.mark.parametrize("n", [40, 60])
def test_taylor_chernoff_box_contains_brute_force(family, n):
    """e^{ε0} = 2, small n: Bernstein would need δ > 1/2, the box δ = 1/2 with Chernoff's bound is used."""
    mech = KRR(3, exp_epsilon0=2)
    with arith.precision(96):
        tm = rf.taylor_moment(rf.family_steps(mech, family), n, 2, target=fmpq(1, 10**4))
        assert tm is not None
        if family == "third":
            assert tm.delta == fmpq(1, 2)
        assert holds(tm.value, brute_moment(mech, n, family, fmpq(2)))


@pytest.mark.parametrize("family,k,n", [("same", 5, 200), ("neighbour", 5, 200), ("third", 3, 200), ("third", 4, 60)])
@pytest.mark.parametrize("lam", [fmpq(2), fmpq(7)])
def test_taylor_contains_exact_nested(family, k, n, lam):
    """n ≤ EXACT_MAX_N: the nested route is exact there; ε0 = log(6/5)."""
    mech = KRR(k, exp_epsilon0=fmpq(6, 5))
    exact = xr.moment_krr_family_nested(mech, n, family, order=lam)
    assert isinstance(exact, fmpq)
    with arith.precision(128):
        tm = rf.taylor_moment(rf.family_steps(mech, family), n, lam)
        assert tm is not None and holds(tm.value, exact)
        assert tm.value.rad() < (tm.value - 1).mid() * arb("1e-20")


@pytest.mark.parametrize("family,k,n", [("same", 10, 1500), ("neighbour", 10, 1500), ("third", 3, 1500)])
def test_taylor_overlaps_nested_balls(family, k, n):
    """ε0 = 1 (irrational e^{ε0}), n above EXACT_MAX_N: both routes are enclosures of one number."""
    mech = KRR(k, epsilon0=1)
    with arith.precision(96):
        tm = rf.taylor_moment(rf.family_steps(mech, family), n, 3)
        nested = arith.ball(xr.moment_krr_family_nested(mech, n, family, order=3))
        assert tm is not None and tm.value.overlaps(nested)
        assert tm.value.rad() <= nested.rad() * 4


@pytest.mark.parametrize("n", [10**6, 10**9])
@pytest.mark.parametrize("lam", [2, 5])
def test_neighbour_integer_order_is_a_polynomial_moment(n, lam):
    """*neighbour*, integer λ: E = E[(1+u)^λ] = Σ_i C(λ,i) E[u^i] exactly (exact recursion, rational e^{ε0})."""
    mech = KRR(10, exp_epsilon0=fmpq(8, 3))
    steps = rf.family_steps(mech, "neighbour")
    m = rf.joint_moments(steps, n, lam)
    exact = sum((math.comb(lam, i) * m[i][0] for i in range(lam + 1)), fmpq(0))
    with arith.precision(128):
        got = rf.moment_family(mech, n, "neighbour", order=lam)
        assert holds(arith.ball(got), exact)
        assert arith.ball(got).rad() < (exact - 1) * arb("1e-25")


@pytest.mark.parametrize("family", xr.FAMILIES)
def test_targets_scale_k10(family):
    """The issue's setting (k = 10, ε0 = 1, λ = 8) at n = 10^9: tight, and the *third* moment is the largest."""
    mech = KRR(10, epsilon0=1)
    with arith.precision(128):
        r = rf.renyi_krr_family(mech, 10**9, family, order=8)
        v = arith.ball(r.value)
        assert v > 0 and v.rad() < v.mid() * arb("1e-20")
        if family == "third":
            other = arith.ball(rf.renyi_krr_family(mech, 10**9, "same", order=8).value)
            assert v > other


def test_dispatch_small_n_exact_and_fallback():
    mech = KRR(4, exp_epsilon0=3)
    assert rf.moment_family(mech, 5, "third", order=2) == brute_moment(mech, 5, "third", fmpq(2))
    assert rf.taylor_moment(rf.family_steps(mech, "third"), 30, 2) is None  # box too wide: nested route
    with arith.precision(64):
        got = arith.ball(rf.moment_family(mech, 300, "same", order=fmpq(5, 2)))
        ref = arith.ball(xr.moment_krr_family_nested(mech, 300, "same", order=fmpq(5, 2)))
        assert got.overlaps(ref)


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: rf.family_steps(KRR(2, exp_epsilon0=3), "third"), "needs k >= 3"),
        (lambda: rf.moment_family(KRR(3, exp_epsilon0=3), 10, "other", order=2), "family must be one of"),
        (lambda: rf.renyi_family(KRR(3, exp_epsilon0=3), 10, "other", order=2), "family must be one of"),
        (lambda: rf.moment_family(KRR(3, exp_epsilon0=3), 0, "same", order=2), "n must be"),
        (lambda: rf.moment_family(KRR(3, exp_epsilon0=3), 10, "same", order=1), "order must be > 1"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(InvalidArgument, match=msg):
        call()


@pytest.mark.parametrize("n", [10**4, 10**6])
@pytest.mark.parametrize("order", [fmpq(2), fmpq(8), fmpq(7, 2)])
def test_binary_families_agree_with_binary_engine(n, order):
    """k = 2: the *same* family (max over both directions) is the binary dataset c = 0, computed by the
    count-of-ones engine of renyi.py (windows and arb_poly products: an independent route)."""
    mech = KRR(2, epsilon0=1)
    with arith.precision(128):
        fam = arith.ball(rf.renyi_krr_family(mech, n, "same", order=order).value)
        ref = arith.ball(xr.renyi_binary(mech, n, 0, order=order).value)
        assert fam.overlaps(ref)
        assert fam.rad() < fam.mid() * arb("1e-25")
