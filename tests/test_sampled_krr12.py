"""A sampled k-RR round composes the curve pair of k-RR's R_q (k-RR is subset selection with d = 1, so its R_q is a
:class:`SampledFourValue`) beside the sampled blanket view (Lemma S1), which is loose at small n (a hostile probe of
session 12: binary RR, e^{eps0} = 3, n = 30, q = 1/4, delta = 1e-3 gave 1.064 where the same randomizer as a matrix
deployment gave 0.262).

Cross-checks: the four-value record's rows against k-RR's explicit rows (exact rationals); the accountant's curve pair
against the exhaustive worst case of the sampled round by naive enumeration (tests/test_seams11.py's helpers, which
build R_q independently of the code under test)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled, SampledFourValue, krr_four_value
from blanket.exact.mechanisms.finite import KRR

from tests.test_sampled11 import ALPHAS, _h
from tests.test_seams11 import _sampled_rows, _worst


def _krr_rows(k: int, e: Fraction) -> list:
    z = e + k - 1
    return [[(e if i == j else Fraction(1)) / z for j in range(k)] for i in range(k)]


@pytest.mark.parametrize("k", [2, 3, 4])
def test_krr_four_value_record_is_krr(k):
    rec = krr_four_value(KRR(k, exp_epsilon0=3))
    got = [[Fraction(str(v)) for v in row] for row in rec.rows()]
    # the record's rows are over d-subsets = singletons, in some order: compare as multisets of rows' sorted values
    # and the diagonal structure (each input's own output carries e/(e+k-1))
    want = _krr_rows(k, Fraction(3))
    assert sorted(map(sorted, got)) == sorted(map(sorted, want))
    assert rec.gamma() == KRR(k, exp_epsilon0=3).gamma()


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 5)])
def test_sampled_krr_curve_pair_dominates_the_exhaustive_worst_case(k, q):
    n = 3
    ev = Sampled(Shuffled(KRR(k, exp_epsilon0=3), n), str(q))
    plain = ev.curve_event()
    assert plain is not None and isinstance(plain.mechanism, SampledFourValue)
    # two rounds: one sampled binary RR round alone composes no curve pair under "auto" (test_one_round_auto14)
    cp = ShuffleAccountant().compose(ev, count=2)._curve_of(ev)
    assert cp is not None
    worst = _worst(_sampled_rows(q, _krr_rows(k, Fraction(3))), n, ALPHAS)
    got = _h(cp)
    assert all(w <= v for w, v in zip(worst, got)), (worst, got)


def test_sampled_binary_rr_upper_end_uses_q_at_small_n():
    """The probe's case: the curve pair of R_q decides, far below the sampled blanket view alone (curves off)."""
    ev = Sampled(Shuffled(KRR(2, exp_epsilon0=3), 30), "1/4")
    on = ShuffleAccountant(refine_seconds=0).compose(ev).get_epsilon("1e-3")
    off = ShuffleAccountant(curves=False, refine_seconds=0).compose(ev).get_epsilon("1e-3")
    assert 0 < on.lower <= on.upper < off.upper / 2
