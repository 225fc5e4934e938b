"""Tests of proofs.erlingsson (EFMRTT19): hypotheses enforced, bounds above exact references, the certified chain."""

import math

import mpmath
import pytest
from blanket.exact.numbers import arith
from blanket.exact.numbers.arith import precision
from blanket.proofs import erlingsson as E
from blanket.proofs.core import results
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

from tests._helpers import assert_refused, hypothesis_cases


def test_registered():
    keys = {r.key for r in results("EFMRTT19")}
    for k in ("Theorem 7", "Theorem 8", "Corollary 9", "Theorem 2", "Lemma 4", "Theorem 8 [per-step chain]"):
        assert f"EFMRTT19 {k}" in keys
    for r in results("EFMRTT19"):
        assert r.grid and r.latex()


@pytest.mark.parametrize("key, params, hyp", hypothesis_cases("EFMRTT19"))
def test_hypotheses_enforced(key, params, hyp):
    assert_refused(key, params, hyp)


def test_theorem_7_value_against_mpmath():
    with precision(128):
        b = E.THEOREM_7.bound(n="1000", epsilon0="1/4", delta="1e-6")
    with mpmath.workdps(40):
        ref = 12 * mpmath.mpf(1) / 4 * mpmath.sqrt(mpmath.log(mpmath.mpf(10) ** 6) / 1000)
        lo, hi = arith.endpoints(b)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref * (1 + mpmath.mpf(10) ** -30)
        assert ref <= mpmath.mpf(hi.numerator) / hi.denominator * (1 + mpmath.mpf(10) ** -30)


def test_theorem_7_above_exact_shuffled_rr():
    """Sanity of the spec: the exact ε(δ) of shuffled binary RR is far below 12 ε0 √(log(1/δ)/n)."""
    p = {"n": "1000", "epsilon0": "1/4", "delta": "1e-6"}
    with precision(128):
        b = E.THEOREM_7.bound(**p)
        ref = E.THEOREM_7.exact(**p).value
        assert arith.ge(b, ref) is True
        assert ref < b / 5


@given(
    kk=st.integers(1, 60),
    eps=st.sampled_from(["1/100", "1/20", "1/10", "1/2"]),
    d=st.sampled_from(["1e-3", "1e-6", "1e-9"]),
)
def test_advanced_composition_against_exact_rr_composition(kk, eps, d):
    """At ε' = bound the exact δ of k-fold RR must be ≤ δ' (the theorem with δ_step = 0)."""
    with precision(128):
        b = E.THEOREM_2.bound(k=str(kk), epsilon=eps, delta=d)
        dd = E.rr_composition_delta(kk, arith.exact(eps), b.upper())
        assert arith.le(dd, arith.exact(d)) is True


def test_rr_composition_delta_brute_force():
    # k = 3: enumerate the 8 outcome triples of RR(0)^3 vs RR(1)^3 with e^ε = 2 (ε = log 2 as a ball)
    from fractions import Fraction as F
    from itertools import product

    p = F(2, 3)
    et = F(5, 2)  # e^{ε'} with ε' = log(5/2)
    tot = F(0)
    for ys in product((0, 1), repeat=3):
        P = math.prod(p if y == 0 else 1 - p for y in ys)
        Q = math.prod(1 - p if y == 0 else p for y in ys)
        tot += max(P - et * Q, 0)
    with precision(128):
        got = E.rr_composition_delta(3, arb(2).log(), arb(F(5, 2).numerator / 1) if False else arb(fmpq(5, 2)).log())
        assert got.contains(arb(fmpq(tot.numerator, tot.denominator)))


@given(eps=st.sampled_from(["0", "1/10", "1", "3"]), q=st.fractions(min_value=0, max_value=1, max_denominator=50))
def test_subsampling_tight_for_rr(eps, q):
    p = {"epsilon": eps, "q": f"{q.numerator}/{q.denominator}"}
    with precision(128):
        b = E.LEMMA_4.bound(**p)
        ref = E.LEMMA_4.exact(**p).value
        # valid (not below) and tight (the binary-RR pair attains it)
        assert arith.lt(b, ref) is not True
        assert (arith.ball(b) - ref).contains(0)


def test_chain_certified_on_box():
    chk = E.CHAIN_RESULT.check_symbolic()
    assert chk.proved is True
    with precision(128):
        r = E.certify_chain_box()
        assert r < 1 and r > arb("0.85")  # the spec's numerical maximum is 0.86


@given(
    n=st.integers(1000, 10**9),
    e0=st.fractions(
        min_value=fmpq(1, 1000).__float__() and 0, max_value=fmpq(1, 2).__float__() and 0.5, max_denominator=1000
    ),
    L=st.integers(5, 60),
)
def test_chain_pointwise(n, e0, L):
    if e0 <= 0:
        return
    d = f"1e-{L // 2 + 2}"
    ev = E.CHAIN_RESULT.evaluate(n=str(n), epsilon0=f"{e0.numerator}/{e0.denominator}", delta=d)
    assert ev.holds is True


def test_chain_fails_outside_box():
    """The chain's constant 12 needs ε0 ≤ 1/2: at ε0 = 2 the inequality is certified false (the test can fail)."""
    r = E.CHAIN_RESULT
    with precision(128):
        chain = r._side("lhs", r._env({"n": "1000", "epsilon0": "2", "delta": "1/100"}))
        target = r._side("rhs", r._env({"n": "1000", "epsilon0": "2", "delta": "1/100"}))
        assert arith.gt(chain, target) is True
