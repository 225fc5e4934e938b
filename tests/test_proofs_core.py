"""Tests of the Result framework (proofs/core.py): evaluation, hypotheses, domains, registry."""

import pytest
import sympy as sp
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import HypothesisViolation, InvalidArgument
from blanket.proofs import core
from blanket.proofs.core import Hypothesis, Result, arb_eval
from flint import arb, fmpq

eps = sp.Symbol("epsilon", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
delta = sp.Symbol("delta")


def _toy(**kw):
    base = dict(
        key="BBGN19 toy",
        paper="BBGN19",
        label="toy",
        title="toy bound",
        status="derived",
        statement=sp.Le(delta, sp.exp(-eps * n)),
        symbols={eps: "ε > 0", n: "n ≥ 2", delta: "δ"},
        hypotheses=(Hypothesis(sp.Ge(n, 2), "n >= 2"), Hypothesis(eps > 0, "epsilon > 0")),
        kind="upper_bound",
        quantity="delta",
    )
    base.update(kw)
    return Result(**base)


def _toy_identity(key, title, statement, x):
    """An identity in the positive symbol ``x`` (no hypotheses)."""
    return _toy(
        key=key, title=title, statement=statement, symbols={x: "x > 0"}, hypotheses=(), kind="identity", quantity=None
    )


def test_rationals_stay_exact_and_floats_are_refused():
    x = sp.Symbol("x")
    assert arb_eval(sp.Rational(1, 3) * x + 1, {x: "1/2"}) == fmpq(7, 6)
    with pytest.raises(core.EvaluationError, match="binary float"):
        arb_eval(sp.Float("0.86") * x, {x: 1})


def test_transcendental_value_is_enclosed():
    import mpmath

    x = sp.Symbol("x")
    with precision(128), mpmath.workdps(60):
        v = arb_eval(sp.exp(x) * sp.log(1 + x), {x: "0.3"})
        ref = mpmath.exp(mpmath.mpf(3) / 10) * mpmath.log(1 + mpmath.mpf(3) / 10)
        assert v.rad() < arb("1e-30") and abs(v - arb(mpmath.nstr(ref, 50))) < arb("1e-30")


def test_bound_is_evaluated_inside_hypotheses():
    r = _toy()
    with precision(128):
        b = r.bound(epsilon="0.1", n=10)
        assert b.rad() < arb("1e-30") and abs(b - arb(-1).exp()) < arb("1e-30")


def test_failed_hypothesis_is_named():
    r = _toy()
    with pytest.raises(HypothesisViolation, match="n >= 2"):
        r.bound(epsilon="0.1", n=1)


def test_symbol_domain_is_enforced_even_when_sympy_simplifies_the_hypothesis_away():
    # eps is declared positive, so sympy turns the hypothesis "epsilon > 0" into True;
    # the domain check must still refuse epsilon = -1 (and name it).
    r = _toy()
    assert sp.sympify(eps > 0) is sp.true
    with pytest.raises(HypothesisViolation, match="epsilon > 0"):
        r.bound(epsilon="-1", n=10)
    with pytest.raises(HypothesisViolation, match="n is an integer"):
        r.bound(epsilon="1", n="5/2")


def test_unknown_and_missing_parameters_are_named():
    r = _toy()
    with pytest.raises(InvalidArgument, match="not a parameter"):
        r.bound(epsilon="1", n=3, k=2)
    with pytest.raises(InvalidArgument, match="miss n"):
        r.bound(epsilon="1")


def test_equality_between_balls_is_not_escalated_to_the_cap():
    x = sp.Symbol("x", positive=True)
    r = _toy_identity("BBGN19 toy identity", "identity", sp.Eq(sp.exp(2 * x), sp.exp(x) ** 2, evaluate=False), x)
    ev = r.evaluate(x="0.5")
    assert ev.holds is None and ev.prec == 128
    assert r.check_symbolic().proved is True


def test_unequal_identity_is_refuted():
    x = sp.Symbol("x", positive=True)
    r = _toy_identity("BBGN19 toy false identity", "false", sp.Eq(sp.exp(x), 1 + x, evaluate=False), x)
    assert r.evaluate(x="0.5").holds is False


def test_result_validation_and_registry():
    with pytest.raises(InvalidArgument, match="status"):
        _toy(status="probably")
    with pytest.raises(InvalidArgument, match="paper"):
        _toy(paper="XYZ")
    keys = [r.key for r in core.results()]
    assert len(keys) == len(set(keys)) and len(keys) > 50
    with pytest.raises(InvalidArgument, match="not a registered result"):
        core.get("No Such Lemma")
    for paper in ("blanket", "renyi", "erlingsson", "pure-dp"):
        assert core.results(paper), paper


def test_every_registered_result_typesets_and_describes_itself():
    for r in core.results():
        assert r.status in core.STATUSES
        d = r.describe()
        assert d["latex"] and d["label"] and d["paper"] in core.PAPERS
