"""Geometric rounds composed with the dataset-curve lower pair (issue 25, session 14): the ROC hull of certified tests
of the datasets ``(m−1, 0^{n−1})`` vs ``0^n`` (:func:`blanket.exact.shuffled.geometric_dataset.dataset_roc_points`,
:func:`blanket.exact.accounting.geometric_lower.curve_lower_pair`), checked against exact enumeration of the two
datasets' histogram laws (T = 1 and the exact product at T = 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import curves
from blanket.exact.accounting import geometric_lower as gl
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import geometric_dataset as gd
from blanket.exact.shuffled.enumerate import histogram_law
from flint import fmpq

ALPHAS = [fmpq(k, 8) for k in range(1, 9)] + [fmpq(k, 4) for k in range(5, 17)]


def _exact_laws(mech: Geometric, n: int) -> tuple[list, list]:
    """``(P, Q)`` = the histogram laws of ``(m−1, 0^{n−1})`` and ``0^n`` on a common support (exact rationals, by
    enumeration: independent of the lattice engine)."""
    rows = mech.rows()
    p = histogram_law(rows, [mech.m - 1] + [0] * (n - 1))
    q = histogram_law(rows, [0] * n)
    keys = sorted(set(p) | set(q))
    return [fmpq(p.get(k, 0)) for k in keys], [fmpq(q.get(k, 0)) for k in keys]


def _hs(pairs: list, alpha: fmpq) -> fmpq:
    return sum((a - alpha * b for a, b in pairs if a - alpha * b > 0), fmpq(0))


def _product(pairs: list) -> list:
    return [(a1 * a2, b1 * b2) for a1, b1 in pairs for a2, b2 in pairs]


def _roc_pairs(pr: curves.FinitePair) -> list:
    return [(p, q) for _r, p, q in pr.masses]


@pytest.mark.parametrize("m,n,alpha", [(3, 3, "1/2"), (4, 3, "2/3"), (3, 4, "1/3")])
def test_curve_pair_below_exact_pair_t1_t2(m, n, alpha):
    """One round and the exact T = 2 product of the ROC pair lie at or below the exact datasets' (both orders), and
    close to them (so the check is not vacuous); raising every test point by 1/100 breaks it."""
    mech = Geometric(m, alpha=alpha)
    P, Q = _exact_laws(mech, n)
    fwd = list(zip(P, Q))
    bwd = list(zip(Q, P))
    pts = gd.dataset_roc_points(mech, n, h=fmpq(1, 256), lines=128)
    low = curves.pair_from_roc(pts)
    lf, lb = _roc_pairs(low), _roc_pairs(curves.swapped(low))
    for lo_pairs, ex_pairs in ((lf, fwd), (lb, bwd)):
        l2, e2 = _product(lo_pairs), _product(ex_pairs)
        for a in ALPHAS:
            assert _hs(lo_pairs, a) <= _hs(ex_pairs, a)
            assert _hs(l2, a) <= _hs(e2, a)
        # close: at alpha = 1 (total variation) within 5 % of the exact value at T = 2
        assert _hs(l2, fmpq(1)) >= fmpq(95, 100) * _hs(e2, fmpq(1))
    raised = curves.pair_from_roc([(x, min(fmpq(1), y + fmpq(1, 100))) for x, y in pts])
    r2, e2 = _product(_roc_pairs(raised)), _product(fwd)
    assert any(_hs(r2, a) > _hs(e2, a) for a in ALPHAS)


def test_accountant_two_rounds_below_exact_product():
    """The accountant's composed lower δ for T = 2 geometric rounds (m = 3, n = 3) is at most the exact δ of the
    datasets' T = 2 product in the worse order, and above the one-round exact δ (it composes)."""
    mech = Geometric(3, alpha="1/2")
    P, Q = _exact_laws(mech, 3)
    acc = ShuffleAccountant().compose(Shuffled(mech, 3), count=2)
    ev = Shuffled(mech, 3)
    assert isinstance(ev.lower_pair(), curves.FinitePair)
    eps = Fraction(1, 2)
    d = acc.get_delta(str(eps))
    ee = fmpq(1648721270700128, 10**15)  # below e^{1/2} = 1.6487212707001282...: the exact δ is then an upper bound
    exact2 = max(_hs(_product(list(zip(P, Q))), ee), _hs(_product(list(zip(Q, P))), ee))
    one = max(_hs(list(zip(P, Q)), ee), _hs(list(zip(Q, P)), ee))
    lower = Fraction(str(d.lower))
    assert lower <= Fraction(int(exact2.p), int(exact2.q))
    assert lower > Fraction(int(one.p), int(one.q)) * Fraction(101, 100)


def test_lower_pair_size_limits_and_errors():
    """Above the size limits the threshold count is the round's lower pair; bad arguments name themselves."""
    big = Geometric(20, epsilon0=40)  # r = R_19/R_0 up to e^40: the window is far too long
    assert gl.curve_lower_pair(big, 1000) is None
    assert not isinstance(Shuffled(big, 1000).lower_pair(), curves.FinitePair)
    assert gl.curve_lower_pair(Geometric(5, epsilon0=1), 10**6) is None
    with pytest.raises(InvalidArgument, match="direction"):
        gl.curve_lower_pair(Geometric(5, epsilon0=1), 100, "sideways")
    with pytest.raises(InvalidArgument, match="h"):
        gd.dataset_roc_points(Geometric(5, epsilon0=1), 100, h=0)


def test_registered_check_covers_geometric_and_can_fail(monkeypatch):
    """The registered statement's geometric instance (proofs/composition.py, part of ``DATASET_CURVE``'s check)
    passes, and fails when the geometric test points are raised by 1/50 (a wrong engine); its own mutant fails."""
    from blanket.proofs import composition as comp

    assert comp.geometric_dataset_curve_instance() == (True, True)
    assert comp.geometric_dataset_curve_instance(fmpq(1, 100))[1] is False
    real = gd.dataset_roc_points
    monkeypatch.setattr(
        gd,
        "dataset_roc_points",
        lambda *a, **k: [(x, min(fmpq(1), y + fmpq(1, 50))) for x, y in real(*a, **k)],
    )
    assert comp.geometric_dataset_curve_instance()[1] is False


def test_accountant_lower_end_rises_with_the_curve_pair(monkeypatch):
    """m = 20, n = 200, T = 10: the composed lower ε with the curve pair is above the one with the threshold count
    alone (the curve pair switched off), and below the upper end (unchanged)."""
    mech = Geometric(20, epsilon0=1)
    with_curve = ShuffleAccountant().compose(Shuffled(mech, 200), count=10).get_epsilon("1e-6")
    gl._curve_pair.cache_clear()
    monkeypatch.setattr(gl, "curve_lower_pair", lambda *a, **k: None)
    without = ShuffleAccountant().compose(Shuffled(mech, 200), count=10).get_epsilon("1e-6")
    assert without.lower < with_curve.lower < with_curve.upper
    assert with_curve.upper == without.upper
