"""Tests of proofs.renyi (GDDSK21): every bound against the exact worst case of shuffled binary RR,
the exact identity behind Theorem 3.4, the Corollary 3.5 repair and its known-false Jensen step."""

import pytest
import sympy as sp
from blanket.exact.accounting import renyi as xr
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.mechanisms.finite import KRR, BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import HypothesisViolation
from blanket.proofs import renyi as R
from blanket.proofs.core import arb_eval, get, results
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

from tests._helpers import assert_refused, hypothesis_cases

eps0_s = st.sampled_from(["0", "1/10", "1/4", "1/2", "1", "3/2", "2", "3"])
n_s = st.integers(2, 60)


def _cmp(bound_result, params, relation):
    with precision(128):
        b = bound_result.bound(**params)
        ref = R.exact_rdp(**params)
        # a tight bound may equal the exact value: require "not certainly violated" on narrow balls
        violated = arith.lt(b, ref) if relation == "upper" else arith.gt(b, ref)
        assert arith.ball(ref).rad() < arb(2) ** -60 and arith.ball(b).rad() < arb(2) ** -60
    assert violated is not True, (bound_result.key, params, b, ref)


@given(n=n_s, e0=eps0_s, lam=st.integers(2, 8))
def test_upper_bounds_above_exact_worst_case(n, e0, lam):
    p = {"n": str(n), "epsilon0": e0, "lambda": str(lam)}
    for r in (R.THEOREM_3_1, R.THEOREM_3_3, R.BOUND_9):
        _cmp(r, p, "upper")


@given(n=n_s, e0=eps0_s, lam=st.sampled_from(["3/2", "5/2", "7/2", "13/3"]))
def test_noninteger_upper_bounds(n, e0, lam):
    p = {"n": str(n), "epsilon0": e0, "lambda": lam}
    _cmp(R.THEOREM_3_3, p, "upper")
    if fmpq(*map(int, lam.split("/"))) >= 2:
        _cmp(R.NONINTEGER_REMARK, p, "upper")


@given(n=n_s, e0=eps0_s, lam=st.integers(2, 8))
def test_lower_bounds_below_exact_worst_case(n, e0, lam):
    p = {"n": str(n), "epsilon0": e0, "lambda": str(lam)}
    for r in (R.THEOREM_3_4, R.COROLLARY_3_5):
        _cmp(r, p, "lower")
    with precision(128):  # Corollary 3.5 <= Theorem 3.4 (dropped terms are >= 0)
        assert arith.gt(R.COROLLARY_3_5.bound(**p), R.THEOREM_3_4.bound(**p)) is not True


def test_corollary_3_2_on_its_domain():
    for p in ({"n": "600", "epsilon0": "1/10", "lambda": "2"}, {"n": "400", "epsilon0": "1/20", "lambda": "2"}):
        _cmp(R.COROLLARY_3_2, p, "upper")
    with pytest.raises(HypothesisViolation, match="lambda\\^4"):
        R.COROLLARY_3_2.bound(n="100", epsilon0="1", lambda_="2") if False else R.COROLLARY_3_2.bound(
            **{"n": "100", "epsilon0": "1", "lambda": "2"}
        )


def test_theorem_3_1_hypotheses_enforced():
    with pytest.raises(HypothesisViolation, match="integer"):
        R.THEOREM_3_1.bound(**{"n": "100", "epsilon0": "1", "lambda": "5/2"})
    with pytest.raises(HypothesisViolation, match="lambda > 1"):
        R.THEOREM_3_3.bound(**{"n": "100", "epsilon0": "1", "lambda": "1"})


@given(n=st.integers(1, 40), e=st.fractions(min_value=1, max_value=8, max_denominator=5), lam=st.integers(2, 7))
def test_theorem_3_4_is_exactly_the_binary_rr_moment(n, e, lam):
    """Exact rationals (rational e^{ε0}): the log-argument of (10) equals the enumerated/convolved moment."""
    ee = sp.Symbol("ee", positive=True)
    expr = R.LB_ARG.subs(R.epsilon0, sp.log(ee))
    val = arb_eval(expr, {"ee": fmpq(e.numerator, e.denominator), "n": n, "lambda": lam})
    mom = xr.moment_binary(BinaryRR(exp_epsilon0=fmpq(e.numerator, e.denominator)), n, 0, order=lam, x=1)
    assert isinstance(val, fmpq) and val == mom


def test_theorem_3_4_symbolic_identity():
    chk = R.THEOREM_3_4.check_symbolic()
    assert chk.proved is True, chk


def test_corollary_3_5_symbolic_repair():
    upto, det = R._odd_central_moment_proof(7)
    assert det == [3, 5, 7]


def test_odd_central_moments_nonnegative_beyond_proof():
    # certified pointwise for i up to 21 on a range of n and p <= 1/2 (exact rationals)
    for nn in (1, 2, 3, 7, 20, 50):
        for p in (fmpq(1, 2), fmpq(1, 3), fmpq(1, 10), fmpq(49, 100)):
            for i in range(3, 22, 2):
                assert xr.binomial_central_moment(nn, p, i) >= 0
    # and negative for p > 1/2 (the hypothesis p <= 1/2 matters)
    assert xr.binomial_central_moment(5, fmpq(3, 4), 3) < 0


def test_jensen_step_is_caught_as_false():
    r = get("GDDSK21 Corollary 3.5", "Jensen step")
    assert r.known_false
    for g in r.grid:
        assert r.evaluate(**g).holds is False
    # it holds for even powers / non-negative atoms (the test can distinguish)
    assert r.evaluate(a="1", b="2", t="1/3", j="3").holds is True


@given(m=st.integers(1, 30), e0=eps0_s, lam=st.sampled_from(["2", "3", "5/2", "6"]))
def test_lemma_d1_monotone(m, e0, lam):
    ev = R.LEMMA_D_1.evaluate(m=str(m), epsilon0=e0, **{"lambda": lam})
    assert ev.holds in (True, None) and (ev.holds is True or e0 == "0")


@given(n=st.integers(2, 12), e0=eps0_s, lam=st.integers(2, 5))
def test_theorem_3_6_reduction(n, e0, lam):
    ev = R.THEOREM_3_6.evaluate(n=str(n), epsilon0=e0, **{"lambda": str(lam)})
    assert ev.holds is True or (e0 == "0" and ev.holds is None)


@given(m=st.integers(1, 40), e0=eps0_s, lam=st.integers(2, 7), k=st.integers(2, 4))
def test_theorem_3_7_against_binary_and_krr(m, e0, lam, k):
    p = {"m": str(m), "epsilon0": e0, "lambda": str(lam)}
    with precision(128):
        b = R.THEOREM_3_7.bound(**p)
        ref = R.THEOREM_3_7.exact(**p).value
        # tight at λ = 2: equality allowed.  The reference's width is the route's (the float route of
        # docs/numerics.md is ~1e-13 relative: m = 3, eps0 = 1/4 gives a radius of 3.3e-15), far below the gaps tested
        assert arith.lt(b, ref) is not True and arith.ball(ref).rad() < arb(2) ** -40
        km = rf.moment_krr_family(KRR(k, epsilon0=e0), m, "neighbour", order=lam) if m > 1 else None
        if km is not None:
            assert arith.lt(b, km) is not True and arith.ball(km).rad() < arb(2) ** -40


def test_theorem_3_7_tight_at_order_2():
    with precision(128):
        for m in (1, 5, 50):
            p = {"m": str(m), "epsilon0": "1", "lambda": "2"}
            b, ref = R.THEOREM_3_7.bound(**p), R.THEOREM_3_7.exact(**p).value
            assert (b - ref).contains(0)


def test_every_result_registered_with_grid():
    keys = {r.key for r in results("GDDSK21")}
    for label in (
        "Theorem 3.1",
        "Corollary 3.2",
        "Theorem 3.3",
        "Remark (non-integer λ)",
        "Bound (9)",
        "Theorem 3.4",
        "Corollary 3.5",
        "Theorem 3.6 [rr]",
        "Lemma D.1 [rr]",
        "Theorem 3.7",
        "RDP to DP [standard]",
        "RDP to DP [improved]",
    ):
        assert f"GDDSK21 {label}" in keys
    for r in results("GDDSK21"):
        assert r.grid, r.key
        assert r.latex()


def test_conversions_are_valid_against_exact_epsilon():
    n, e0, d = 200, fmpq(1, 2), "1e-3"
    mech = BinaryRR(epsilon0=e0)
    with precision(128):
        exact_eps = R.exact_epsilon_for_delta(n, e0, arith.exact(d))
        for method in ("standard", "improved"):
            eps, order = R.epsilon_via_rdp(
                lambda l: xr.renyi_binary_worst(mech, n, order=l).value,
                d,
                orders=[fmpq(k) for k in (2, 4, 8, 16, 32)],
                method=method,
            )
            assert arith.ge(eps, exact_eps.upper()) is True  # the RDP route can only cost
        # improved <= standard at the same order
        p = {"n": str(n), "epsilon0": "1/2", "delta": d, "lambda": "8"}
        assert arith.le(R.RDP_TO_DP_IMPROVED.bound(**p), R.RDP_TO_DP_STANDARD.bound(**p)) is True


def test_bound_9_worse_than_corollary_3_2_by_e4eps0_factor():
    # (9) / (λ-1)^{-1}·4C(λ,2)(e^{ε0}-1)²/n = e^{4ε0} exactly at first order
    sp.Symbol("epsilon0")
    lead32 = 4 * sp.binomial(R.lam, 2) * (sp.exp(R.epsilon0) - 1) ** 2 / R.n / (R.lam - 1)
    assert sp.simplify(R.BOUND9 / lead32 - sp.exp(4 * R.epsilon0)) == 0


@pytest.mark.parametrize("key, params, hyp", hypothesis_cases("GDDSK21"))
def test_hypotheses_are_not_vacuous(key, params, hyp):
    """Symbols carry no sympy assumptions, so the hypotheses are really checked."""
    assert_refused(key, params, hyp)


@pytest.mark.slow
def test_bounds_sweep_larger_n(slow_level):
    ns = (200, 1000) if slow_level == "reduced" else (200, 1000, 3000)
    lams = (2, 4, 16) if slow_level == "reduced" else (2, 3, 4, 8, 16, 32)
    for nn in ns:
        for e0 in ("1/10", "1", "3"):
            for lam in lams:
                p = {"n": str(nn), "epsilon0": e0, "lambda": str(lam)}
                for r in (R.THEOREM_3_1, R.THEOREM_3_3, R.BOUND_9):
                    _cmp(r, p, "upper")
                for r in (R.THEOREM_3_4, R.COROLLARY_3_5):
                    _cmp(r, p, "lower")
