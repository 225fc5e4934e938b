"""Task sampldp12: a q-aware upper end for a sampled ``ldp`` round (Lemma G1 [sampled], docs/mechanisms.md "Lemma G1
under sampled participation"): FMT21's model with participation ``q`` is bounded by the blanket view of binary RR's
sampled randomizer ``(1 − q)⊥ + q·RR(ε0)``, which the accountant composes as Lemma S1's hull pair with ``k = 2``.

Independent routes: the exhaustive worst case of the sampled round by naive enumeration of every report vector in
exact rationals (``tests/test_seams11.py``'s helpers, which build ``R_q`` themselves), for binary RR, 3-RR and random
3 × 3 matrices with column ratios at most ``e^{ε0}``; the bound's own value is the four-atom engine's
(``generic_ldp.sampled_model_delta``), a second route beside the sampled view's windows (Lemmas S2–S3).  Mutants
(``q²`` for ``q``, ``q``·Lemma G1) fall below the worst case."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.shuffled import generic_ldp as g
from flint import fmpq

from tests.test_seams11 import _fr, _sampled_rows, _worst

E = Fraction(3)
ALPHAS = [Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(5, 2)]


def _q(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _rr(k: int, e: Fraction = E) -> list:
    return [[e / (e + k - 1) if j == i else 1 / (e + k - 1) for j in range(k)] for i in range(k)]


def _random_ldp_matrix(seed: int, k_in: int = 3, k_out: int = 3, e: Fraction = E) -> list:
    """A random k_in × k_out matrix with every column's max/min at most ``e`` (rejection sampling, exact)."""
    rng = random.Random(seed)
    while True:
        rows = []
        for _ in range(k_in):
            w = [rng.randint(1, 9) for _ in range(k_out)]
            rows.append([Fraction(v, sum(w)) for v in w])
        if all(max(c) <= e * min(c) for c in zip(*rows)):
            return rows


RANDOMIZERS = {
    "binary RR": _rr(2),
    "3-RR": _rr(3),
    "random 1": _random_ldp_matrix(1),
    "random 2": _random_ldp_matrix(2),
    "random 3 (2x3)": _random_ldp_matrix(3, 2, 3),
}


def _bound(n: int, q: Fraction, a: Fraction, e: Fraction = E) -> Fraction:
    v = g.sampled_model_delta(LDP(exp_epsilon0=_q(e)), n, _q(q), exp_epsilon=_q(a))
    assert isinstance(v, fmpq)  # exact at small n
    return _fr(v)


def _curve(n: int, q: Fraction, e: Fraction = E, mech=None):
    """The curve pair the accountant composes for a sampled ldp round (binary RR's R_q as a four-value record)."""
    ev = Sampled(Shuffled(mech if mech is not None else LDP(exp_epsilon0=_q(e)), n), _q(q))
    cp = ShuffleAccountant()._curve_of(ev)
    assert cp is not None and "Lemma G1 under sampled participation" in cp.description
    return cp


def _worst_sampled(rows: list, n: int, q: Fraction) -> list:
    return _worst(_sampled_rows(q, [[str(v) for v in r] for r in rows]), n, ALPHAS)


@pytest.mark.parametrize("name", list(RANDOMIZERS))
@pytest.mark.parametrize("n,q", [(2, Fraction(1, 2)), (2, Fraction(1, 5)), (3, Fraction(1, 3)), (3, Fraction(1, 5))])
def test_bound_is_above_the_exhaustive_worst_case(name, n, q):
    """Every dataset pair, both orders, five values of e^eps: the exact worst case of the sampled shuffled round of an
    epsilon0-LDP randomizer is at most Lemma G1 [sampled], and at most the pair the accountant composes for a sampled
    ldp round; and the bound is at most the unsampled Lemma G1 (q is exploited, never lost)."""
    rows = RANDOMIZERS[name]
    pair = _curve(n, q)
    for a, w in zip(ALPHAS, _worst_sampled(rows, n, q)):
        b = _bound(n, q, a)
        assert w <= b, (name, n, q, a)
        assert b <= _fr(pair.hockey_stick(_q(a)))
        assert b <= _fr(g.adaptive_model_delta(LDP(exp_epsilon0=_q(E)), n, exp_epsilon=_q(a)))


def test_bound_at_n_4_and_e_2():
    """n = 4 (binary RR, 3-RR) and e^eps0 = 2 (binary RR, n = 3): still above the exhaustive worst case."""
    for rows in (_rr(2), _rr(3)):
        for a, w in zip(ALPHAS, _worst_sampled(rows, 4, Fraction(1, 2))):
            assert w <= _bound(4, Fraction(1, 2), a)
    e2 = Fraction(2)
    ws = _worst(_sampled_rows(Fraction(1, 3), [[str(v) for v in r] for r in _rr(2, e2)]), 3, ALPHAS)
    for a, w in zip(ALPHAS, ws):
        assert w <= _bound(3, Fraction(1, 3), a, e2)


def test_tight_for_binary_rr_at_two_users():
    """At n = 2 and e^eps in {1, 2} binary RR's sampled round attains the bound (so a bound 5 % lower fails)."""
    for q in (Fraction(1, 2), Fraction(1, 5)):
        ws = _worst_sampled(_rr(2), 2, q)
        for a, w in zip(ALPHAS, ws):
            if a in (1, 2):
                assert w == _bound(2, q, a)
                assert w > Fraction(95, 100) * _bound(2, q, a)


def test_mutants_fall_below_the_worst_case():
    """q² for q, and q times the unsampled Lemma G1 (the 'q·δ' shortcut), are not bounds."""
    q, n = Fraction(1, 2), 2
    ws = _worst_sampled(_rr(2), n, q)
    assert any(w > _bound(n, q * q, a) for a, w in zip(ALPHAS, ws))
    g1 = [_fr(g.adaptive_model_delta(LDP(exp_epsilon0=_q(E)), n, exp_epsilon=_q(a))) for a in ALPHAS]
    assert any(w > q * v for w, v in zip(ws, g1))


def test_q_one_is_lemma_g1_and_the_view_is_above_the_engine():
    """q = 1 gives Lemma G1 exactly; at n = 50 and 2000 the composed curve pair's H (certified values of the four-value
    record's blanket view at grid points, their hull) lies above the four-atom engine's certified value of the same
    bound at every alpha tried."""
    for a in ALPHAS:
        assert g.sampled_model_delta(LDP(exp_epsilon0=3), 5, 1, exp_epsilon=_q(a)) == g.adaptive_model_delta(
            LDP(exp_epsilon0=3), 5, exp_epsilon=_q(a)
        )
    for n, q in ((50, Fraction(1, 2)), (2000, Fraction(1, 10))):
        pair = _curve(n, q, mech=LDP(1))
        for a in (Fraction(1), Fraction(21, 20), Fraction(11, 10), Fraction(13, 10)):
            with arith.precision(128):
                v = g.sampled_model_delta(LDP(1), n, _q(q), exp_epsilon=_q(a))
            lo = arith.endpoints(arith.ball(v))[0]
            assert lo <= _fr(pair.hockey_stick(_q(a)))


def test_composed_upper_end_uses_q():
    """T = 3 rounds at n = 2000, q = 1/10: the sampled ldp round's upper end is well below the unsampled Lemma G1's
    (which is still its fallback: with the curves off it is unchanged) and above binary RR's sampled lower end
    (binary RR is a member of the class); it is binary RR's sampled *blanket view* (Lemma G1 [sampled]), not binary
    RR's exact worst case (Lemma S4, affordable here since session 14), which is no bound for the class: the ldp
    upper end stays well above binary RR's exact upper end and within 1 % of its blanket-view composition."""
    n, q = 2000, "1/10"
    ldp = ShuffleAccountant().compose(Sampled(Shuffled(LDP(1), n), q), count=3).get_epsilon("1e-6")
    rr = ShuffleAccountant().compose(Sampled(Shuffled(g.krr_member(LDP(1), 2), n), q), count=3).get_epsilon("1e-6")
    rr_view = (
        ShuffleAccountant(curves=False)
        .compose(Sampled(Shuffled(g.krr_member(LDP(1), 2), n), q), count=3)
        .get_epsilon("1e-6")
    )
    off = ShuffleAccountant(curves=False).compose(Sampled(Shuffled(LDP(1), n), q), count=3).get_epsilon("1e-6")
    old = ShuffleAccountant(curves=False).compose(Shuffled(LDP(1), n), count=3).get_epsilon("1e-6")
    assert 0 < ldp.lower <= ldp.upper < old.upper / 2
    assert rr.lower <= rr.upper * Fraction(105, 100) < ldp.upper <= rr_view.upper * Fraction(101, 100)
    assert off.upper == old.upper


def test_chain_names_lemma_g1_sampled(tmp_path):
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    dep = _dep(tmp_path, '[mechanism]\ntype = "ldp"\nepsilon0 = 1\n[users]\nn = 200\nsampling = "1/2"\n')
    chain = {e["key"]: e for e in certify_composition(dep, plot=False)["chain"]}
    assert "Lemma G1 [sampled]" in chain and "participation q = 1/2" in chain["Lemma G1 [sampled]"]["used_for"]
    assert "Lemma G1 [adaptive]" in chain  # the fallback pair, still composed beside the curve pair
    assert "Sampled four-value round through R_q" not in chain
    off = {e["key"]: e for e in certify_composition(dep, plot=False, curves=False)["chain"]}
    assert "Lemma G1 [sampled]" not in off
    plain = _dep(
        tmp_path, '[mechanism]\ntype = "ldp"\nepsilon0 = 1\n[users]\nn = 200\n[[rounds]]\ntype = "ldp"\n', "p.toml"
    )
    chain = {e["key"]: e for e in certify_composition(plain, plot=False)["chain"]}
    assert "Lemma G1 [adaptive]" in chain and "Lemma G1 [sampled]" not in chain


def test_registered_check_fails_with_q_squared(monkeypatch):
    """The registry's check is an exact instance check that can fail: with q² in the bound it does."""
    from blanket.proofs import core
    from blanket.proofs import oracles as po

    r = core.lookup("Lemma G1 [sampled]")
    assert r.symbolic(r).proved is None
    real = g.sampled_model_delta

    def q_squared(mech, n, q, **kw):
        return real(mech, n, fmpq(q) * fmpq(q), **kw)

    monkeypatch.setattr(g, "sampled_model_delta", q_squared)
    assert po._check_sampled_g1(r).proved is False


# ---------------------------------------------------------------- geometric rounds: their exact matrix's R_q
def test_sampled_geometric_round_uses_its_matrix_r_q():
    """An exact truncated geometric mechanism (m = 3, alpha = 1/2; n = 3, q = 1/2): the accountant's curve pair of its
    matrix's R_q lies above the exhaustive worst case of the sampled round (naive enumeration, exact), its lower pair
    below it; an irrational alpha or m above the cap takes R_q's four-knot record instead."""
    from blanket.exact.accounting import sampled
    from blanket.exact.accounting.pld import hockey_stick
    from blanket.exact.mechanisms.oracles import Geometric

    from tests.test_seams11 import _worst as worst_of

    geo = Geometric(3, alpha="1/2")
    rows = [[Fraction(int(v.p), int(v.q)) for v in r] for r in geo.rows()]
    q = Fraction(1, 2)
    ev = Sampled(Shuffled(geo, 3), _q(q))
    plain = ev.curve_event()
    assert plain is not None and [[_fr(v) for v in r] for r in plain.mechanism.matrix()] == _sampled_rows(
        q, [[str(v) for v in r] for r in rows]
    )
    cp = ShuffleAccountant()._curve_of(ev)
    worst = worst_of(_sampled_rows(q, [[str(v) for v in r] for r in rows]), 3, ALPHAS)
    for a, w in zip(ALPHAS, worst):
        assert w <= _fr(cp.hockey_stick(_q(a)))
    for direction in ("forward", "backward"):
        low = ev.lower_pair(direction)
        assert low is not None
        for a, w in zip(ALPHAS, worst):
            assert _fr(hockey_stick(low.atoms(), _q(a))) <= w
    # an irrational alpha or m above the cap: R_q's four-knot record (session 12, tests/test_sampled_geometric12.py)
    from blanket.exact.shuffled.geometric import SampledGeometric

    irr = Sampled(Shuffled(Geometric(3, epsilon0=1), 3), "1/2").curve_event()
    assert irr is not None and isinstance(irr.mechanism, SampledGeometric)
    big = Geometric(sampled.GEOMETRIC_MATRIX_MAX_M + 1, alpha="9/10")
    assert isinstance(Sampled(Shuffled(big, 3), "1/2").curve_event().mechanism, SampledGeometric)


def test_sampled_geometric_chain(tmp_path):
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    body = '[mechanism]\ntype = "geometric"\nm = 3\nalpha = "1/2"\n[users]\nn = 50\nsampling = "1/2"\n'
    chain = {e["key"]: e for e in certify_composition(_dep(tmp_path, body), plot=False)["chain"]}
    assert "Sampled matrix round through R_q" in chain and "Matrix binarized lower pair" in chain
