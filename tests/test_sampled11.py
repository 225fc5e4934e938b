"""Task sampled11: a sampled matrix (or four-value oracle) round's upper end is the curve pair of the sampled randomizer ``R_q`` (the
shuffle of ``n`` outputs of ``R_q`` is the round itself, docs/composition.md §5f, Lemma S0), beside the clone pair.

Cross-checks: the exhaustive worst case of the sampled round by naive enumeration in exact rationals (n = 2, 3;
tests/test_seams11.py's helpers, which build ``R_q`` independently of the code under test); mutants that forget
that the count is seen or claim more sampling fall below it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import curve_pairs
from blanket.exact.accounting.accountant import SAMPLED_MATRIX_CURVE, ShuffleAccountant, Shuffled, clone_pair
from blanket.exact.accounting.sampled import Sampled, SampledFourValue, sampled_randomizer
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

from tests.test_seams11 import M3, _fr, _hockey, _sampled_rows, _worst

ALPHAS = [Fraction(1), Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(3)]


def _h(pair, alphas=ALPHAS) -> list:
    if not hasattr(pair, "hockey_stick"):  # a ShiftPair (the clone pair): its exact atoms
        P = {key: _fr(a) for key, a, _b in pair.atoms()}
        Q = {key: _fr(b) for key, _a, b in pair.atoms()}
        return [_hockey(P, Q, a) for a in alphas]
    return [_fr(pair.hockey_stick(fmpq(a.numerator, a.denominator))) for a in alphas]


def test_sampled_randomizer_is_r_q_exactly():
    q = Fraction(1, 5)
    rq = sampled_randomizer(FiniteRandomizer(M3), "1/5")
    assert [[_fr(v) for v in row] for row in rq.matrix()] == _sampled_rows(q)
    assert rq.exp_epsilon0() == FiniteRandomizer(M3).exp_epsilon0()  # the ⊥ column's ratio is 1
    assert rq.gamma() == 1 - fmpq(1, 5) + fmpq(1, 5) * FiniteRandomizer(M3).gamma()
    with pytest.raises(InvalidArgument, match="q must be > 0"):
        sampled_randomizer(FiniteRandomizer(M3), 0)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 5)])
def test_sampled_matrix_curve_pair_dominates_the_exhaustive_worst_case(n, q):
    """The accountant's curve pair of a sampled 3x3 matrix round is at or above the exhaustive worst H_alpha of the
    sampled round (both orders, every dataset), and at or below the clone pair's, at several alpha."""
    ev = Sampled(Shuffled(FiniteRandomizer(M3), n), str(q))
    acc = ShuffleAccountant().compose(ev)
    cp = acc._curve_of(ev)
    assert cp is not None and SAMPLED_MATRIX_CURVE in cp.description
    worst = _worst(_sampled_rows(q), n, ALPHAS)
    new = _h(cp)
    assert all(w <= v for w, v in zip(worst, new)), (worst, new)
    clone = _h(clone_pair(FiniteRandomizer(M3), n))
    assert all(v <= c for v, c in zip(new, clone)) and new[2] < clone[2]
    # the unsampled R's curve pair (a mutant with q = 1) is valid but looser: the new pair uses q
    plain = _h(curve_pairs.curve_pair(FiniteRandomizer(M3), n, max_points=32))
    assert new[2] < plain[2]
    # the composed one-round delta's upper end is at or above the exhaustive worst delta at a rational e^eps
    # (H is non-increasing in alpha; 1.64873 > e^{1/2} = 1.6487212...: its worst H is at most the worst delta(1/2))
    d = acc.get_delta("1/2")
    assert 0 < d.lower <= d.upper
    assert Fraction(str(d.upper)) >= _worst(_sampled_rows(q), n, [Fraction(164873, 100000)])[0]


def _mutant_rows(kind: str, q: Fraction) -> list:
    rows = [[Fraction(str(v)) for v in row] for row in M3]
    if kind == "no-bottom":  # the count of reports not seen: ⊥'s mass spread over the real outputs
        k = len(rows[0])
        return [[q * v + (1 - q) / k for v in row] for row in rows]
    assert kind == "q-squared"  # more sampling claimed than there is
    return _sampled_rows(q * q)


@pytest.mark.parametrize("kind", ["no-bottom", "q-squared"])
def test_mutant_sampled_randomizers_fall_below_the_worst_case(kind):
    """The check above can fail: the same curve route on a wrong R_q (the count of reports forgotten, or q^2 for q)
    lies below the exhaustive worst case of the sampled round at some alpha."""
    n, q = 3, Fraction(1, 2)
    worst = _worst(_sampled_rows(q), n, ALPHAS)
    wrong = FiniteRandomizer([[str(v) for v in row] for row in _mutant_rows(kind, q)])
    vals = _h(curve_pairs.curve_pair(wrong, n, max_points=32))
    assert any(v < w for v, w in zip(vals, worst))


def test_sampled_matrix_upper_end_at_scale_is_below_the_clone_pairs():
    """n = 2000, q = 1/10, 3 rounds: the composed upper end with the R_q curve is below the clone pair's (curves off)
    and still above the lower end."""
    ev = Sampled(Shuffled(FiniteRandomizer(M3), 2000), "1/10")
    on = ShuffleAccountant().compose(ev, count=3).get_epsilon("1e-6")
    off = ShuffleAccountant(curves=False).compose(ev, count=3).get_epsilon("1e-6")
    assert 0 < on.lower <= on.upper < off.upper / 2
    assert on.lower == off.lower
    assert any(SAMPLED_MATRIX_CURVE in p for p in on.details["pairs"])


def test_curve_event_only_below_q_one_and_for_matrix_or_four_value_records():
    from blanket.exact.mechanisms import oracles

    assert Sampled(Shuffled(FiniteRandomizer(M3), 100), 1).curve_event() is None
    assert Sampled(Shuffled(oracles.OUE(4, epsilon0=1), 100), 1).curve_event() is None
    ldp = Sampled(Shuffled(oracles.LDP(epsilon0=1), 100), "1/2").curve_event()  # binary RR's R_q (Lemma G1 [sampled])
    assert ldp is not None and isinstance(ldp.mechanism, SampledFourValue) and ldp.mechanism.base.k == 2
    assert Sampled(Shuffled(oracles.LDP(epsilon0=1), 100), 1).curve_event() is None
    ev = Sampled(Shuffled(oracles.OUE(4, epsilon0=1), 100), "1/2").curve_event()
    assert ev is not None and isinstance(ev.mechanism, SampledFourValue)


def _oracle_cases():
    from blanket.exact.mechanisms import oracles

    return [
        oracles.OUE(3, exp_epsilon0=3),
        oracles.SUE(3, exp_half_epsilon0=2),
        oracles.Hadamard(4, exp_epsilon0=3),
        oracles.Subset(4, 2, exp_epsilon0=3),
    ]


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 5)])
def test_sampled_four_value_record_is_r_q(case, q):
    """The record's gamma, e^eps0 and four-atom law of L equal those of the explicit matrix R_q (built here from the
    oracle's rows), for every ordered pair of inputs, at several e^eps; its ratio law and rows follow."""
    from blanket.exact.mechanisms.finite import amplification_law

    rec = _oracle_cases()[case]
    rows = [[_fr(v) for v in row] for row in rec.rows()]
    mq = FiniteRandomizer([[str(v) for v in row] for row in _sampled_rows(q, rows)])
    sv = SampledFourValue(rec, str(q))
    assert sv.gamma() == mq.gamma() and sv.exp_epsilon0() == mq.exp_epsilon0()
    assert [[_fr(v) for v in row] for row in sv.rows()] == _sampled_rows(q, rows)
    assert sv.output_count() == len(rows[0]) + 1 and sum(sv.l_probs()[:2]) + sv.l_probs()[1] + sv.l_probs()[2] == 1

    def merged(law):
        out: dict = {}
        for v, pr in law:
            if pr != 0:
                out[_fr(v)] = out.get(_fr(v), 0) + _fr(pr)
        return out

    for ee in (fmpq(1), fmpq(3, 2), fmpq(2), fmpq(5, 2)):
        mine = merged(sv.l_law(exp_epsilon=ee))
        for x, x2 in [(0, 1), (1, 0), (2, 1)]:
            assert mine == merged(amplification_law(mq, x, x2, exp_epsilon=ee))
    with pytest.raises(InvalidArgument, match="base"):
        SampledFourValue(sv, "1/2")


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 5)])
def test_sampled_oue_curve_pair_dominates_the_exhaustive_worst_case(n, q):
    """OUE k = 3, e^eps0 = 3: the accountant's curve pair of the sampled round is at or above the exhaustive worst
    H_alpha of R_q (exact rationals) and below the clone pair's."""
    rec = _oracle_cases()[0]
    ev = Sampled(Shuffled(rec, n), str(q))
    cp = ShuffleAccountant()._curve_of(ev)
    assert cp is not None and SAMPLED_MATRIX_CURVE in cp.description
    worst = _worst(_sampled_rows(q, [[_fr(v) for v in row] for row in rec.rows()]), n, ALPHAS)
    new = _h(cp)
    assert all(w <= v for w, v in zip(worst, new)), (worst, new)
    clone = _h(clone_pair(rec, n))
    assert all(v <= c for v, c in zip(new, clone)) and new[2] < clone[2]


def test_sampled_four_value_mutant_falls_below_the_worst_case():
    """q^2 for q (more sampling claimed than there is): the same route lies below the exhaustive worst case of the
    sampled round.  (A record whose pi_t is not scaled by q gamma/gamma_q is looser, not below: the law-equality test
    above and the registry check catch it.)"""
    rec = _oracle_cases()[0]
    n, q = 3, Fraction(1, 2)
    worst = _worst(_sampled_rows(q, [[_fr(v) for v in row] for row in rec.rows()]), n, ALPHAS)
    vals = _h(curve_pairs.curve_pair(SampledFourValue(rec, str(q * q)), n, max_points=32))
    assert any(v < w for v, w in zip(vals, worst)), (vals, worst)


def test_sampled_oracle_upper_end_at_scale():
    """OUE k = 16, eps0 = 2, n = 10^5, q = 1/10, T = 10: the composed upper end is below a fifth of the clone
    pair's (measured 0.0229 vs 0.156) and above the lower end, which is unchanged (the bracket refinement is off: it
    would refine the wider bracket's lower pairs further, a different mechanic)."""
    from blanket.exact.mechanisms import oracles

    ev = Sampled(Shuffled(oracles.OUE(16, epsilon0=2), 100000), "1/10")
    on = ShuffleAccountant(refine_seconds=0).compose(ev, count=10).get_epsilon("1e-6")
    off = ShuffleAccountant(curves=False, refine_seconds=0).compose(ev, count=10).get_epsilon("1e-6")
    assert 0 < on.lower == off.lower and on.lower <= on.upper < off.upper / 5


def test_registry_oracle_check_can_fail(monkeypatch):
    from blanket.proofs.core import get

    r = get("Sampled four-value round through R_q")
    assert r.status == "derived" and r.symbolic(r).proved is None
    base_probs = SampledFourValue.l_probs

    def unscaled(self):  # pi_t not scaled by q gamma / gamma_q
        pb, pt, pr = base_probs(self)
        t = self.base.l_probs()[1]
        return pb, t, 1 - pb - 2 * t

    monkeypatch.setattr(SampledFourValue, "l_probs", unscaled)
    curve_pairs._MEMO.clear()
    try:
        assert r.symbolic(r).proved is False
    finally:
        curve_pairs._MEMO.clear()


def test_registry_check_can_fail(monkeypatch):
    """The registered statement's exact check passes, and fails when R_q is built with q^2 or without the count."""
    from blanket.exact.accounting import sampled
    from blanket.proofs.core import get

    r = get("Sampled matrix round through R_q")
    assert r.status == "derived" and "§5f" in r.spec
    assert r.symbolic(r).proved is None
    true_rq = sampled.sampled_randomizer

    def q_squared(mech, q):
        return true_rq(mech, fmpq(q) * fmpq(q))

    monkeypatch.setattr(sampled, "sampled_randomizer", q_squared)
    assert r.symbolic(r).proved is False

    def no_count(mech, q):  # the no-report mass spread over R's outputs (the count forgotten), no ⊥ column
        qq = fmpq(q)
        k = mech.k_out
        return FiniteRandomizer([[qq * v + (1 - qq) / k for v in mech.row(x)] for x in range(mech.k_in)])

    monkeypatch.setattr(sampled, "sampled_randomizer", no_count)
    assert r.symbolic(r).proved is False


def test_chain_names_the_sampled_entries(tmp_path):
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    head = '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n'
    dep = _dep(tmp_path, head + '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\nsampling = "1/2"\n')
    on = {e["key"]: e for e in certify_composition(dep, plot=False)["chain"]}
    assert "participation q = 1/2" in on["Sampled matrix round through R_q"]["used_for"]
    assert "Sampled four-value round through R_q" not in on
    off = {e["key"]: e for e in certify_composition(dep, plot=False, curves=False)["chain"]}
    assert "Sampled matrix round through R_q" not in off
    oue = _dep(tmp_path, head + '[[rounds]]\ntype = "oue"\nk = 4\nepsilon0 = 1\nsampling = "1/2"\n', "o.toml")
    chain = {e["key"]: e for e in certify_composition(oue, plot=False)["chain"]}
    assert "participation q = 1/2" in chain["Sampled four-value round through R_q"]["used_for"]
    assert "Sampled matrix round through R_q" not in chain
