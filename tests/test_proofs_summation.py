"""Tests for proofs/summation.py: every registered Section-4 result against exact values.

Independent routes: the variance formula against a plain-Fraction
enumeration of the algorithm; the Theorem 4.1/4.2 bounds against the
protocol's exact worst-case MSE; the lemmas on random exact randomizers with
exact shuffled δ (``exact.protocols.summation`` brute force, cross-checked in
``test_summation.py`` against ``exact.shuffled.enumerate``); mpmath for Λ in the
choice of k.  Known-false variants must be detected as false.
"""

from __future__ import annotations

import importlib
import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import HypothesisViolation
from blanket.exact.protocols import summation as xs
from blanket.proofs import summation as S
from blanket.proofs.core import arb_eval, results
from flint import arb, fmpq
from hypothesis import assume, given
from hypothesis import strategies as st

from tests._helpers import stochastic_rows

KEYS = [
    "BBGN19 Algorithms 2-3",
    "BBGN19 Theorem 4.1 [exact variance]",
    "BBGN19 Theorem 4.1 [worst case]",
    "BBGN19 Theorem 4.1",
    "BBGN19 Theorem 4.1 [privacy]",
    "BBGN19 Corollary 4.1.1",
    "BBGN19 Lemma 4.1",
    "BBGN19 Lemma 4.2",
    "BBGN19 Lemma 4.3 [exact]",
    "BBGN19 Lemma 4.3",
    "BBGN19 Lemma 4.4",
    "BBGN19 Lemma 4.5",
    "BBGN19 Theorem 4.2 [m]",
    "BBGN19 Theorem 4.2",
]


def mine():
    return [r for r in results("BBGN19") if r.key in KEYS]


def test_all_registered_with_status_grid_and_latex():
    got = {r.key for r in mine()}
    assert got == set(KEYS)
    for r in mine():
        assert r.grid, r.key
        assert r.status in ("source-confirmed", "derived", "uncertain", "this project's reading")
        assert r.latex()
        d = r.describe()
        assert d["key"] == r.key
    assert "product" in S.THEOREM_4_2.notes and "min{e^{−ε}, 1/2 − δ}" in S.THEOREM_4_2.notes


@pytest.mark.parametrize("key", KEYS)
def test_grid_points_hold_and_bounds_respect_exact_values(key):
    r = next(x for x in mine() if x.key == key)
    for g in r.grid:
        ev = r.evaluate(**g)
        if ev.lhs is not None:
            assert ev.holds is True, (key, g, ev)
        if r.exact is not None:
            ref = r.exact(**g)
            if r.kind == "upper_bound" and ref.relation in ("exact", "lower"):
                assert arith.le(ref.value, ev.rhs) is True, (key, g)
            if key == "BBGN19 Theorem 4.1 [privacy]":  # the blanket view (an upper bound on δ) certifies the claim
                assert ref.relation == "upper" and arith.le(ref.value, ev.rhs) is True, (key, g)
            if r.kind == "lower_bound" and ref.relation in ("exact", "upper"):
                assert arith.ge(ref.value, ev.rhs) is True, (key, g)


def test_symbolic_proofs():
    for r in (S.ALGORITHMS, S.VARIANCE, S.WORST_CASE, S.LEMMA_4_3):
        chk = r.check_symbolic()
        assert chk.proved is True, (r.key, chk)


# ------------------------------------------------------------ variance formula vs plain Fractions
def ref_mse(x: F, k: int, g: F) -> F:
    j = math.floor(x * k)
    p = x * k - j
    atoms = {}
    for lev, pr in ((j, 1 - p), (j + 1, p)):
        if pr:
            atoms[lev] = atoms.get(lev, 0) + (1 - g) * pr
    for lev in range(k + 1):
        atoms[lev] = atoms.get(lev, 0) + g / (k + 1)
    return sum(pr * ((F(lev, k) - g / 2) / (1 - g) - x) ** 2 for lev, pr in atoms.items())


@given(
    x=st.fractions(0, 1, max_denominator=300), k=st.integers(1, 15), g=st.fractions(0, F(99, 100), max_denominator=300)
)
def test_variance_formula_equals_enumeration(x, k, g):
    v = arb_eval(
        S.PER_USER_VARIANCE, {"x": fmpq(x.numerator, x.denominator), "k": k, "gamma": fmpq(g.numerator, g.denominator)}
    )
    r = ref_mse(x, k, g)
    assert v == fmpq(r.numerator, r.denominator)


@given(n=st.integers(1, 10**6), k=st.integers(1, 50), g=st.fractions(0, F(99, 100), max_denominator=1000))
def test_worst_case_bound_vs_exact(n, k, g):
    gq = fmpq(g.numerator, g.denominator)
    exact = xs.Protocol1D(k, gq).worst_mse(n)
    assert exact <= S.WORST_CASE.bound(n=n, k=k, gamma=gq)


def test_known_false_naive_bound_without_one_minus_gamma_factors():
    """n(1/(4k²) + γ/2) (the paper's form read literally, dropping the (1−γ) factors) is false."""
    naive = n_ = sp.Symbol("n")
    naive = n_ * (1 / (4 * S.k**2) + S.gamma / 2)
    found = False
    for k, g in ((1, "1/2"), (4, "1/10"), (20, "0.01"), (3, "0.9")):
        P = xs.Protocol1D(k, g)
        if P.worst_mse(100) > arb_eval(naive, {"n": 100, "k": k, "gamma": arith.exact(g)}):
            found = True
    assert found


# ------------------------------------------------------------ Theorem 4.1 / Corollary 4.1.1 / Theorem 4.2 vs exact
params = st.tuples(
    st.one_of(st.builds(lambda e, a: a * 10**e, st.integers(3, 8), st.integers(1, 9)), st.integers(10**3, 10**9)),
    st.sampled_from(["1", "0.9", "0.5", "0.3", "0.1"]),
    st.sampled_from(["0.1", "1e-3", "1e-6", "1e-9", "1e-12"]),
)


def _feasible(n, eps, d):
    try:
        hyp = S.THEOREM_4_1.check_hypotheses(n=n, epsilon=eps, delta=d)
    except HypothesisViolation:
        return False
    return hyp is None


@given(p=params)
def test_theorem_4_1_bound_vs_exact_mse(p):
    n, eps, d = p
    assume(_feasible(n, eps, d))
    k, g, P = S.theorem_4_1_parameters(n, eps, d)
    exact = P.worst_mse(n)
    bound = S.THEOREM_4_1.bound(n=n, epsilon=eps, delta=d)
    assert arith.le(exact, bound) is True
    assert arith.le(arb(exact).sqrt(), S.COROLLARY_4_1_1.bound(n=n, epsilon=eps, delta=d)) is True
    # privacy side: γ is at least Theorem 3.1's γ with k+1 levels, and at most γ̄
    with arith.precision(128):
        gamma31 = S.protocol_gamma(k, n, arith.exact(eps), arith.exact(d))
        assert arith.ge(g, gamma31) is True
        assert (
            arith.le(g, arb_eval(S.GAMMA_BAR, {"n": n, "epsilon": arith.exact(eps), "delta": arith.exact(d)})) is True
        )
    # Theorem 4.2 (any protocol) is below this protocol's MSE
    assert arith.le(S.THEOREM_4_2.bound(n=n, epsilon=eps, delta=d), exact) is True


@given(p=params)
def test_theorem_4_1_k_is_minimal_mpmath(p):
    n, eps, d = p
    k = S.theorem_4_1_k(n, eps, d)
    mpmath.mp.dps = 50
    lam = max(14 * mpmath.log(2 / mpmath.mpf(d)), mpmath.mpf(27))
    target = n * mpmath.mpf(eps) ** 2
    assert lam * k**3 >= target
    assert k == 1 or lam * (k - 1) ** 3 < target


@given(n=st.integers(8, 10**9), eps=st.sampled_from(["0", "0.5", "1", "3"]), d=st.sampled_from(["0", "0.1", "0.49"]))
def test_theorem_4_2_explicit_below_m_form(n, eps, d):
    m = xs.cbrt_ceil(n)
    explicit = S.THEOREM_4_2.bound(n=n, epsilon=eps, delta=d)
    assert arith.le(explicit, S.THEOREM_4_2_RESULT_M.bound(n=n, epsilon=eps, delta=d, m=m)) is True
    mb, best = S.theorem_4_2_best(n, eps, d)
    assert arith.ge(best, S.THEOREM_4_2_RESULT_M.bound(n=n, epsilon=eps, delta=d, m=m)) is True


def test_hypotheses_enforced():
    with pytest.raises(HypothesisViolation, match="epsilon <= 1"):
        S.THEOREM_4_1.bound(n=10**6, epsilon="2", delta="1e-6")
    with pytest.raises(HypothesisViolation, match="delta < 1/2"):
        S.THEOREM_4_2.bound(n=10**6, epsilon="1", delta="0.5")
    with pytest.raises(HypothesisViolation, match="n large enough"):
        S.THEOREM_4_1.bound(n=100, epsilon="1", delta="1e-6")


# ------------------------------------------------------------ Lemma 4.3
def test_lemma_4_3_exact_minimum_and_known_false_constant():
    for m in range(2, 120):
        s = xs.midpoint_sum_min(m)
        assert s == arb_eval(S.S_M, {"m": m})
        assert s >= arb_eval(S.S_M_LOWER, {"m": m})
    # a larger constant (1/(11m) instead of 1/(12m)) is false: odd m has equality
    assert xs.midpoint_sum_min(7) < fmpq(6 * 5, 11 * 7)


# ------------------------------------------------------------ Lemma 4.5
def test_lemma_4_5_grid_points_are_certified_dp():
    enum = importlib.import_module("blanket.exact.shuffled.enumerate")
    for g in S.LEMMA_4_5.grid:
        pxy, pyy = arith.exact(g["p_xy"]), arith.exact(g["p_yy"])
        mech = KRR(2, exp_epsilon0=pyy / pxy)
        assert mech.row(0) == [pyy, pxy]
        with arith.precision(128):
            w = enum.worst_case(mech, g["n"], epsilon=g["epsilon"])
            assert arith.le(w.value, arith.exact(g["delta"])) is True, g


@st.composite
def grid_randomizers(draw):
    """A randomizer on M (m = 2 or 3 inputs) with outputs at values in [0,1], exact entries."""
    rows = draw(stochastic_rows(st.integers(2, 3), st.integers(2, 3), 1, 8))
    m, kout = len(rows), len(rows[0])
    vals = [fmpq(draw(st.integers(0, 12)), 12) for _ in range(kout)]
    return m, FiniteRandomizer(rows), vals


@given(case=grid_randomizers(), n=st.integers(1, 4), ee=st.sampled_from([fmpq(1), fmpq(3, 2), fmpq(2), fmpq(4)]))
def test_lemma_4_5_and_its_inequality_1_on_random_randomizers(case, n, ee):
    m, mech, vals = case
    delta = xs.worst_delta_bruteforce(mech, n, exp_epsilon=ee)
    p = xs.interval_probabilities(mech, vals, m)
    # the interval-count randomizer (a post-processing): inequality (1) on the pair (y, x..x) vs (x..x)
    for x, y in itertools.permutations(range(m), 2):
        lhs = 1 - (1 - p[y][y]) * (1 - p[x][y]) ** (n - 1)
        rhs_event = ee * (1 - (1 - p[x][y]) ** n)
        dpair = xs.pair_delta(mech, [y] + [x] * (n - 1), [x] * n, exp_epsilon=ee)
        assert lhs <= rhs_event + dpair
        if delta < fmpq(1, 2):
            assert p[y][y] < fmpq(1, 2) or p[x][y] >= (fmpq(1, 2) - delta) / (ee * n)


def test_lemma_4_5_min_form_is_false():
    """p_xy ≥ min{e^{−ε}, 1/2 − δ}/n (the slides' min applied at the lemma's level) fails on certified DP:
    binary RR with e^{ε0} = 100 on M = {1/4, 3/4}, n = 1, e^ε = 100 is (ε, 0)-DP, p_yy = 100/101, p_xy = 1/101 < 1/100."""
    mech = KRR(2, exp_epsilon0=100)
    assert xs.worst_delta_bruteforce(mech, 1, exp_epsilon=100) == 0
    p = xs.interval_probabilities(mech, xs.midpoints(2), 2)
    assert p[1][1] >= fmpq(1, 2)
    assert p[0][1] < min(fmpq(1, 100), fmpq(1, 2)) / 1
    # while the encoded (product) form holds there
    assert p[0][1] >= fmpq(1, 100) * fmpq(1, 2) / 1


# ------------------------------------------------------------ Theorem 4.2: the proof chain on concrete randomizers
@given(case=grid_randomizers(), n=st.integers(2, 3), ee=st.sampled_from([fmpq(1), fmpq(2), fmpq(4)]))
def test_theorem_4_2_chain_on_random_randomizers(case, n, ee):
    """For an (ε,δ)-DP R on M (δ exact, < 1/2): n E[(R'(X)−X)²] ≥ ½ min{n/(8m²), e^{−ε}(½−δ)S_m}, R' = posterior mean."""
    m, mech, _ = case
    delta = xs.worst_delta_bruteforce(mech, n, exp_epsilon=ee)
    assume(delta < fmpq(1, 2))
    M = xs.midpoints(m)
    post, vals = xs.posterior_mean_randomizer(mech, M)
    mse_post = xs.sum_protocol_mse(post, vals, M, n)
    with arith.precision(128):
        bound = S.THEOREM_4_2_RESULT_M.bound(n=n, epsilon=arb(ee).log() if ee != 1 else fmpq(0), delta=delta, m=m)
    assert arith.ge(mse_post, bound) is True


def test_lemma_4_1_and_4_2_registry_sides():
    ev = S.LEMMA_4_1.evaluate(m=3, exp_epsilon0="2", n=5)
    assert ev.holds is True and ev.lhs < ev.rhs
    ev = S.LEMMA_4_2.evaluate(m=3, exp_epsilon0="2", n=5)
    assert ev.holds is True


@pytest.mark.slow
def test_privacy_overprovisioning_certified_epsilon(slow_level):
    """At Theorem 4.1's γ the certified ε (blanket view + calibration) is well below the target ε = 1."""
    ns = [10**4] if slow_level == "reduced" else [10**4, 10**5, 10**6]
    for n in ns:
        br = S.certified_epsilon_at_parameters(n, "1", "1e-6")
        assert br.lower <= br.upper < fmpq(1, 2)


def test_lemma_4_2_reverse_direction_is_false():
    """The direction matters: for a biased R and n ≥ 2 the inequality is strict, so '≤' (equality) is refuted."""
    mech = FiniteRandomizer([["3/4", "1/4"], ["1/2", "1/2"]])  # both inputs pushed towards the first output
    M = xs.midpoints(2)
    lhs = xs.sum_protocol_mse(mech, M, M, 3)
    rhs = 3 * xs.single_error(mech, M, M)
    assert lhs > rhs
    ev = S.LEMMA_4_2.evaluate(m=2, exp_epsilon0="3", n=3)
    assert ev.holds is True
