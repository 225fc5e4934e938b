"""Sampled rounds' third-value lower pairs (docs/composition.md §5f, Lemma S5; exact.accounting.sampled_lower).

Independent route: the sampled round on ``x z^{n−1}`` vs ``x' z^{n−1}`` enumerated by participation in exact rationals
(``proofs.composition._participation_law``: each user absent w.p. ``1 − q``, else one report of ``R``), never the
code's scaled parameters."""

import itertools

import pytest
import sympy as sp
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting import banded, sampled_lower
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR
from blanket.proofs import composition as comp
from flint import fmpq

R = sp.Rational
ALPHAS = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(3), R(5))


def _rat(x):
    return sp.Rational(int(x.p), int(x.q))


def _h(atoms, al):
    return sum((max(p - al * q, 0) for p, q in atoms), sp.Integer(0))


def _pair_h(pair, al):
    return _h([(_rat(p), _rat(q)) for _k, p, q in pair.atoms()], al)


def _full(m, users_p, users_q, q):
    lp = comp._participation_law(m, users_p, q)
    lq = comp._participation_law(m, users_q, q)
    return [(lp.get(h, 0), lq.get(h, 0)) for h in set(lp) | set(lq)]


def _krr_rows(k, e):
    return [[R(e) / (e + k - 1) if i == j else R(1) / (e + k - 1) for j in range(k)] for i in range(k)]


@pytest.mark.parametrize("k,e,n,q", [(3, 2, 6, R(1, 2)), (3, 2, 6, R(1, 5)), (4, 3, 5, R(1, 3)), (3, 3, 7, R(1, 10))])
def test_krr_pair_below_the_sampled_round_and_garbles_its_statistic(k, e, n, q):
    """Cell by cell a reflection garbling of the brute-force statistic, several bands, and ``H_α`` between the one-level
    pair and the whole sampled release (T = 1) at every α; T = 2 below the statistic's product."""
    got = comp.sampled_third_instance(k, e, n, q)
    assert got["cells"] and got["ok"]
    _one, bp = sampled_lower.krr_third_pair(KRR(k, exp_epsilon0=fmpq(e)), n, comp.int_q(q), 3)
    assert isinstance(bp, banded.BandedPair) and len(bp.parts) > 1
    assert got["banded"][0] > 0  # a real signal, not an empty pair


def test_unsampled_pair_is_above_the_sampled_round():
    """The mutant "q not applied" (the plain third-value pair) exceeds the sampled round's exact δ: the comparison
    with the enumerated release can fail."""
    k, e, n, q = 3, 2, 6, R(1, 5)
    full = _full(_krr_rows(k, e), [0] + [2] * (n - 1), [1] + [2] * (n - 1), q)
    _one, mutant = sampled_lower.krr_third_pair(KRR(k, exp_epsilon0=fmpq(e)), n, fmpq(1), 3)
    assert any(_pair_h(mutant, al) > _h(full, al) for al in ALPHAS)


def test_registered_check_passes_and_mutants_fail(monkeypatch):
    r = comp.SAMPLED_THIRD
    assert r.status == "derived" and "§5f" in r.spec and r.kind == "lower_bound"
    assert r.check_symbolic().proved is None
    good = sampled_lower.scaled_third_pair
    # q not applied at all (the plain pair): the cells are not the sampled statistic's
    monkeypatch.setattr(
        sampled_lower, "scaled_third_pair", lambda n, pi, a, u, q, **kw: good(n, pi, a, u, fmpq(1), **kw)
    )
    assert r.check_symbolic().proved is False
    # q on the others only (the target always reports)
    monkeypatch.setattr(sampled_lower, "scaled_third_pair", lambda n, pi, a, u, q, **kw: good(n, pi, a / q, u, q, **kw))
    assert r.check_symbolic().proved is False


def test_oracle_pair_below_the_sampled_round():
    """OUE (k = 3, e^ε0 = 3) and SUE (k = 3, e^(ε0/2) = 2), n = 4, q = 1/3: the sampled third-value pair (both the
    one-level and the banded one) lies below the exact δ of the round enumerated by participation at every α; the
    unsampled pair does not (mutant)."""
    n, q = 4, R(1, 3)
    for rec in (oracles.OUE(3, exp_epsilon0=3), oracles.SUE(3, exp_half_epsilon0=2)):
        m = [[_rat(v) for v in row] for row in rec.rows()]
        full = _full(m, [0] + [2] * (n - 1), [1] + [2] * (n - 1), q)
        got = sampled_lower.four_value_third_pair(rec, n, comp.int_q(q), 3)
        assert got is not None
        for pair in got:
            for al in ALPHAS:
                assert _pair_h(pair, al) <= _h(full, al)
        plain = sampled_lower.four_value_third_pair(rec, n, fmpq(1), 3)
        assert any(_pair_h(plain[1], al) > _h(full, al) for al in ALPHAS)


def test_accountant_composes_it_below_the_exact_products():
    """The accountant's certified lower δ of one and two sampled 3-RR rounds (n = 5, q = 1/2, exact e^ε0 = 2) is at
    most the exact δ of the datasets' release (T = 1) and of its product (T = 2), at e^ε ≥ 1.2 (checked at the
    rational 6/5 ≤ e^ε: H is non-increasing in α)."""
    k, e, n, q = 3, 2, 5, R(1, 2)
    full = _full(_krr_rows(k, e), [0] + [2] * (n - 1), [1] + [2] * (n - 1), q)
    ev = Sampled(A.Shuffled(KRR(k, exp_epsilon0=fmpq(e)), n), "1/2")
    assert ev.third_lower_bands() is not None
    eps = "0.1824"  # e^0.1824 = 1.20008 > 6/5
    for T, law in ((1, full), (2, [(a * c, b * d) for (a, b), (c, d) in itertools.product(full, full)])):
        acc = A.ShuffleAccountant().compose(ev, count=T)
        d = acc.get_delta(eps)
        assert d.lower <= _h(law, R(6, 5))
        assert acc.statements_used()["sampled_third"]


def test_large_n_lower_end_is_the_third_value_pair_and_tighter():
    """10-RR, ε0 = 1, n = 10^4, q = 1/10, T = 2, δ = 10⁻⁶ on a fixed grid: the reported lower end comes from the
    third-value pair ("low-3"), is above the forward concrete pair's composed lower end and below the upper end."""
    from fractions import Fraction

    g = Fraction(1, 2**12)
    ev = Sampled(A.ShuffledRR(k=10, epsilon0="1", n=10**4), "1/10")
    acc = A.ShuffleAccountant(grid=g).compose(ev, count=2)
    e = acc.get_epsilon("1e-6")
    assert e.details["lower_pair"] == A.LOWER_NAMES["low-3"]
    assert 0 < e.lower <= e.upper
    fwd = acc._pld(g, "low-fwd").get_epsilon(fmpq(1, 10**6))
    assert fmpq(e.lower.numerator, e.lower.denominator) > fwd


def test_ldp_uses_three_rr_and_q_one_is_the_plain_round():
    ev = Sampled(A.Shuffled(oracles.LDP(epsilon0="1"), 1000), "1/10")
    mine = ev.third_lower_bands()
    want = sampled_lower.krr_third_pair(KRR(3, fmpq(1)), 1000, fmpq(1, 10))[1]

    def key(p):
        return (p.outer_mix[2], p.outer_hi, str(p.outer_q), str(p.pi_p), str(p.pi_q))

    assert [key(p) for p in mine.parts] == [key(p) for p in want.parts] and len(want.parts) > 1
    assert "3-RR" in mine.description
    plain = A.Shuffled(oracles.OUE(8, epsilon0="1"), 100)
    assert Sampled(plain, 1).third_lower_bands() is not None
    binary = Sampled(A.ShuffledRR(k=2, epsilon0="1", n=100), "1/2")
    assert binary.third_lower_pair() is None  # binary RR: no third value


def test_tiny_q_stays_finite():
    """q = 10⁻²⁰: the pair's entries keep q·a's digits (``1 − q·a`` at the working precision alone would be a ball
    wider than ``q·a``): every band's shift probabilities are certified apart, π_P > π_Q, and its lower PLD is finite."""
    from blanket.exact.numbers import arith

    ev = Sampled(A.ShuffledRR(k=4, epsilon0="1", n=1000), "1e-20")
    bp = ev.third_lower_bands()
    assert bp is not None
    parts = bp.parts if isinstance(bp, banded.BandedPair) else (bp,)
    for p in parts:
        assert arith.ball(p.pi_p - p.pi_q) > 0 and arith.ball(p.outer_q) > 0
        assert arith.ball(p.outer_mix[0]) > 0 and arith.ball(p.outer_mix[1]) < 1


def test_sampled_stratum_pair_is_the_push_forward_and_the_check_can_fail(monkeypatch):
    """OUE k = 3: the sampled two-stratum count's exact atoms are the push-forward of the round enumerated by
    participation by D (no report: 0), below the release's H; the registered check fails when the pair ignores q."""
    assert comp.sampled_stratum_instance(3, 3, R(1, 2)) and comp.sampled_stratum_instance(3, 3, R(1, 5))
    good = sampled_lower.four_value_stratum_pair
    monkeypatch.setattr(sampled_lower, "four_value_stratum_pair", lambda mech, n, q: good(mech, n, fmpq(1)))
    assert not comp.sampled_stratum_instance(3, 3, R(1, 5))
    assert comp.SAMPLED_THIRD.check_symbolic().proved is False


def test_sampled_stratum_law_is_narrow_at_scale(monkeypatch):
    """OUE k = 128, ε0 = 2, n = 10^4, q = 1/10: the certified ball law of D keeps (nearly) all the mass with narrow
    balls (the windows sized by the plain law's deviation; with the sampled law's own, the certified cut mass widened
    every ball: radii up to 5·10⁻⁴, mids summing to 1.9); the round composes it as "low-3s" and it decides among the
    composed pairs (the one-round full view, binned since session 15 and above it there, 0.02156 against 0.02134, is
    switched off here by its work guard)."""
    from blanket.exact.shuffled import oracle_third

    monkeypatch.setattr(oracle_third, "SAMPLED_BINNED_MAX_WORK", 0)
    ev = Sampled(A.Shuffled(oracles.OUE(128, epsilon0="2"), 10**4), "1/10")
    pr = ev.stratum_lower_pair()
    _d0, P, Q = pr.law_balls()
    lo = sum(float(p.mid()) - float(p.rad()) for p in P)
    hi = sum(float(p.mid()) + float(p.rad()) for p in P)
    assert 1 - 1e-9 < lo <= hi < 1 + 1e-9
    e = A.ShuffleAccountant().compose(ev).get_epsilon("1e-6")
    assert e.details["lower_pair"] == A.LOWER_NAMES["low-3s"] and 0 < e.lower <= e.upper
