"""Task sampled11: a sampled matrix round's upper end is the curve pair of the sampled randomizer ``R_q`` (the
shuffle of ``n`` outputs of ``R_q`` is the round itself, docs/composition.md §5f, Lemma S0), beside the clone pair.

Cross-checks: the exhaustive worst case of the sampled round by naive enumeration in exact rationals (n = 2, 3;
tests/test_seams11.py's helpers, which build ``R_q`` independently of the code under test); mutants that forget
that the count is seen or claim more sampling fall below it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import curve_pairs
from blanket.exact.accounting.accountant import SAMPLED_MATRIX_CURVE, ShuffleAccountant, Shuffled, clone_pair
from blanket.exact.accounting.sampled import Sampled, sampled_randomizer
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


def test_sampled_oracle_round_has_no_curve_event():
    from blanket.exact.mechanisms import oracles

    assert Sampled(Shuffled(oracles.OUE(4, epsilon0=1), 100), "1/2").curve_event() is None
    assert Sampled(Shuffled(FiniteRandomizer(M3), 100), 1).curve_event() is None
