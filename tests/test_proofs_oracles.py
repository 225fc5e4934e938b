"""The derivations of proofs/oracles.py: symbolic checks succeed, fail when a closed form is wrong, and agree with exact/oracles."""

import pytest
import sympy as sp
from blanket.exact.mechanisms.oracles import LDP, OLH, OUE, Geometric, Hadamard, Subset
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import HypothesisViolation
from blanket.exact.shuffled.oracles import clone_delta
from blanket.proofs import core
from blanket.proofs import oracles as po
from flint import arb

#: the derived results: each oracle's γ and law of L, the geometric mechanism's γ, the merged view, the clone identity
ORACLE_KEYS = [f"FO {what} [{oracle}]" for oracle in ("ue", "olh", "hadamard", "subset") for what in ("gamma", "L law")]
KEYS = [
    "FO merged blanket view",
    *ORACLE_KEYS,
    "FO gamma [geometric]",
    "FO clone identity",
    "FO triple law [olh]",
    "FO single-hit every family [olh]",
]


@pytest.mark.parametrize("key", KEYS)
def test_derivation_is_proved_symbolically(key):
    r = core.get(key)
    assert r.status == "derived" and r.paper in core.PAPERS
    chk = r.check_symbolic()
    assert chk.proved is True, chk.detail
    assert r.latex()


@pytest.mark.parametrize(
    "name,check,wrong",
    [
        ("GAMMA_UE", po._check_ue, po.GAMMA_UE + po.q**po.k / 7),
        ("LAW_UE", po._check_ue, {**po.LAW_UE, po.pi_both: po.LAW_UE[po.pi_both] * 2}),
        ("GAMMA_HR", po._check_hadamard, 2 * (po.K + po.E0) / (po.K * (po.E0 + 1))),
        ("LAW_HR", po._check_hadamard, {**po.LAW_HR, po.pi_both: (po.K / 4) * po.PL_HR / po.GAMMA_HR}),
        ("GAMMA_SUBSET", po._check_subset, po.k / (po.d * po.E0 + po.k)),
        ("GAMMA_OLH", po._check_olh, po.g * po.PL_OLH),
        ("LAW_OLH", po._check_olh, {**po.LAW_OLH, po.pi_t: (1 - po.c) * po.PH_OLH / po.GAMMA_OLH}),
    ],
)
def test_a_wrong_closed_form_is_not_proved(monkeypatch, name, check, wrong):
    monkeypatch.setattr(po, name, wrong)
    assert check(None).proved is not True


@pytest.mark.parametrize(
    "key,wrong",
    [((1, 1, 0), (po.c - po.t3) * po.PH_OLH), ((0, 0, 1), po.c * po.PH_OLH), ((1, 1, 1), po.t3 * po.PL_OLH)],
)
def test_a_wrong_triple_law_is_not_proved(monkeypatch, key, wrong):
    monkeypatch.setattr(po, "TRIPLE_OLH", {**po.TRIPLE_OLH, key: wrong})
    assert po._check_olh_triple(None).proved is not True


def test_triple_law_is_the_one_exact_evaluates():
    from blanket.exact.shuffled.oracle_exact import triple_hit_law

    for cc, tt, gg in (("1/4", "1/16", 4), ("1/3", "1/3", 3), ("1/5", "1/20", 5)):
        m = OLH(9, gg, exp_epsilon0=3, collision=cc, triple=tt)
        law = triple_hit_law(m)
        sub = {po.g: gg, po.c: sp.Rational(cc), po.t3: sp.Rational(tt), po.E0: sp.Integer(3)}
        for key, v in po.TRIPLE_OLH.items():
            assert sp.Rational(str(law[key])) == sp.simplify(v.subs(sub)), (cc, tt, key)


def test_symbolic_closed_forms_are_the_ones_exact_evaluates():
    e0 = sp.Integer(3)
    # unary encoding (OUE, k = 5)
    m = OUE(5, exp_epsilon0=3)
    sub = {po.p: sp.Rational(1, 2), po.q: sp.Rational(1, 4), po.k: 5}
    assert sp.Rational(str(m.gamma())) == sp.simplify(po.GAMMA_UE.subs(sub))
    assert [sp.Rational(str(v)) for v in m.l_probs()] == [
        sp.simplify(po.LAW_UE[s].subs(sub)) for s in (po.pi_both, po.pi_t, po.pi_rest)
    ]
    # OLH with c = 1/4, κ = 1/8, g = 4
    m = OLH(6, 4, exp_epsilon0=3, collision="1/4", constant="1/8")
    sub = {po.g: 4, po.c: sp.Rational(1, 4), po.kappa: sp.Rational(1, 8), po.E0: e0}
    assert sp.Rational(str(m.gamma())) == sp.simplify(po.GAMMA_OLH.subs(sub))
    assert [sp.Rational(str(v)) for v in m.l_probs()] == [
        sp.simplify(po.LAW_OLH[s].subs(sub)) for s in (po.pi_both, po.pi_t, po.pi_rest)
    ]
    # Hadamard (k = 20 → K = 32), subset (k = 9, d = 3), geometric (m = 7)
    m = Hadamard(20, exp_epsilon0=3)
    sub = {po.K: 32, po.E0: e0}
    assert sp.Rational(str(m.gamma())) == sp.simplify(po.GAMMA_HR.subs(sub))
    assert [sp.Rational(str(v)) for v in m.l_probs()] == [
        sp.simplify(po.LAW_HR[s].subs(sub)) for s in (po.pi_both, po.pi_t, po.pi_rest)
    ]
    m = Subset(9, 3, exp_epsilon0=3)
    sub = {po.k: 9, po.d: 3, po.E0: e0}
    assert (
        sp.Rational(str(m.gamma()))
        == sp.simplify(po.GAMMA_SUBSET.subs(sub))
        == sp.simplify((sp.binomial(9, 3) / po.Z_SUBSET).subs(sub))
    )
    assert [sp.Rational(str(v)) for v in m.l_probs()] == [
        sp.simplify(po.LAW_SUBSET[s].subs(sub)) for s in (po.pi_both, po.pi_t, po.pi_rest)
    ]
    for mm in (2, 5, 6, 7):
        g = Geometric(mm, alpha="2/5")
        assert sp.Rational(str(g.gamma())) == sp.simplify(po.gamma_geometric(mm).subs(po.alpha, sp.Rational(2, 5)))
        # the registered statement (floor / Piecewise) agrees with the helper
        assert sp.simplify(
            po.FO_GAMMA_GEOMETRIC.statement.rhs.subs({po.m: mm, po.alpha: sp.Rational(2, 5)})
        ) == sp.simplify(po.gamma_geometric(mm).subs(po.alpha, sp.Rational(2, 5)))


def test_fmt21_closed_forms_are_consistent_with_the_exact_clone_pair():
    with precision(96):
        for n in (1000, 20000):
            p = core.get("FMT21 Theorem 3.1 [paper]").bound(epsilon0="1", n=n, delta="1e-6")
            c = core.get("FMT21 Theorem 3.1 [code]").bound(epsilon0="1", n=n, delta="1e-6")
            assert p <= c  # the code's variant is the larger one
            d = clone_delta(LDP(epsilon0=1), n, epsilon=p)  # the pair the proof bounds, at the closed-form ε
            assert d < arb("1e-6")
        # the condition is enforced
        with pytest.raises(HypothesisViolation, match="epsilon0 <= log"):
            core.get("FMT21 Theorem 3.1 [code]").bound(epsilon0="3", n=1000, delta="1e-6")


def test_new_results_are_not_candidates_for_existing_deployments():
    # mechanisms are the new families only: certificates of k-RR deployments are unchanged
    for key in ("FMT21 Theorem 3.1 [paper]", "FMT21 Theorem 3.1 [code]"):
        assert set(core.get(key).mechanisms) == {"ldp"}
