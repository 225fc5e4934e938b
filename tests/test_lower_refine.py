"""The deciding lower kind composed again on a finer grid when the cost model says it is cheap
(``ShuffleAccountant._refined_lower``, docs/composition.md §3 "The lower pair on a finer grid"): the reported lower end
is the largest over the grids evaluated, each a certified lower bound (the optimistic PLD of one concrete pair of
datasets), so it never falls, stays under the certified upper end, and the choice is a deterministic function of the
ledger (the cost model as in a fresh process), never of the machine's speed or of what this process memoised."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting import composition_cost as cost


def _acc(**kw):
    # the bracket's own refinement (_refine_bracket: finer grids while the bracket is wider than rel_width; tests/
    # test_bracket_refine.py) left out: these tests are about the one refined lower kind of a query
    return A.ShuffleAccountant(refine_seconds=0, **kw).compose(A.ShuffledRR(k=3, epsilon0="1", n=200), count=10)


def test_refined_lower_end_rises_and_stays_certified(monkeypatch):
    # the refinement's mechanics under a budget that admits it (which budget admits it is the cost model's choice,
    # tested below and in tests/test_composition_cost.py; it moves whenever the model is recalibrated)
    monkeypatch.setattr(A, "REFINE_SHARE", 1.0)
    refined = _acc().get_epsilon("1e-6")
    monkeypatch.setattr(A, "REFINE_FACTORS", ())
    plain = _acc().get_epsilon("1e-6")
    assert refined.upper == plain.upper and refined.grid == plain.grid  # the upper end and its grid are untouched
    assert refined.lower > plain.lower  # 3-RR n = 200, T = 10: 1.0503 against 1.0438 on the grid 2x coarser
    assert refined.lower <= refined.upper
    assert Fraction(refined.details["lower_grid"]) < Fraction(plain.details["lower_grid"]) == plain.grid
    # an independent route to the same pair's lower end: the same lower pair composed directly on the finer grid
    fine = Fraction(refined.details["lower_grid"])
    kind = next(k for k, v in A.LOWER_NAMES.items() if v == refined.details["lower_pair"])
    direct = A.ShuffleAccountant(grid=fine).compose(A.ShuffledRR(k=3, epsilon0="1", n=200), count=10)
    p = direct._pld(fine, kind)
    from flint import fmpq

    assert A._frac(p.get_epsilon(fmpq(1, 10**6))) == refined.lower


def test_no_refinement_without_budget_or_with_a_fixed_grid(monkeypatch):
    acc = _acc()
    e = acc.get_epsilon("1e-6")
    fixed = _acc(grid=e.grid).get_epsilon("1e-6")  # the caller's grid is kept as given
    assert fixed.details["lower_grid"] == str(e.grid) and fixed.lower <= e.lower
    monkeypatch.setattr(A, "REFINE_SHARE", 0.0)
    none = _acc().get_epsilon("1e-6")
    assert none.details["lower_grid"] == str(none.grid) and none.lower == fixed.lower


def test_the_choice_does_not_depend_on_memoised_work():
    acc = _acc()
    before = acc.estimate(fresh=True).seconds
    acc.get_epsilon("1e-6")
    assert acc.estimate(fresh=True).seconds == pytest.approx(before)  # the curve pair is memoised now
    assert acc.estimate().seconds <= before


def test_refine_model_grows_with_length_and_factor():
    assert cost.lower_refine_seconds(10**4, 2) < cost.lower_refine_seconds(10**4, 4)
    assert cost.lower_refine_seconds(10**4, 2) < cost.lower_refine_seconds(10**5, 2)
    # a fixed part and c·fL·log2(fL): doubling the factor a bit more than doubles the second
    f2, f4 = (cost.lower_refine_seconds(10**5, f) - cost.REFINE_FIXED for f in (2, 4))
    assert 2 < f4 / f2 < 2.2


def test_binary_rr_summed_pair_is_not_refined():
    """Binary RR's grid-free summed pair decides at n = 10^3, T = 10^3: nothing to refine."""
    acc = A.ShuffleAccountant().compose(A.ShuffledRR(k=2, epsilon0="1", n=1000), count=1000)
    e = acc.get_epsilon("1e-6")
    assert e.details["lower_pair"].startswith("summed")
    assert not any(isinstance(k, tuple) and k[0] == "refine" for k in acc._cache)


def test_estimate_counts_the_refinement_budget():
    """A round with a composed lower pair: the estimate counts the refinement at its largest budget (the ÷2 share,
    twice REFINE_SHARE, of the rest); binary RR alone (the summed pair decides) and a fixed grid: nothing added."""
    acc = _acc()
    base = acc.estimate(fresh=True, refine=False)
    full = acc.estimate(fresh=True)
    assert full.seconds == pytest.approx((1 + 2 * A.REFINE_SHARE) * base.seconds)
    assert A.refine_share(2) == 2 * A.refine_share(4) == 2 * A.REFINE_SHARE
    rr = A.ShuffleAccountant().compose(A.ShuffledRR(k=2, epsilon0="1", n=1000), count=1000)
    assert rr.estimate(fresh=True).seconds == pytest.approx(rr.estimate(fresh=True, refine=False).seconds)
    fixed = _acc(grid=Fraction(1, 1024))
    assert fixed.estimate(fresh=True).seconds == pytest.approx(fixed.estimate(fresh=True, refine=False).seconds)


def test_the_finer_lower_grid_is_not_chosen_on_a_knife_edge():
    """10-RR, ε0 = 1, n = 10⁶, T = 365 (the backward concrete pair decides, L = 124 324 on the lower grid, measured
    session 10): with one share for both factors its ÷2 was decided at 6.35 s modelled against a 6.67 s budget and
    flipped with the next recalibration; with the share growing as the factor falls (refine_share) each decision is a
    factor of more than 1.5 from its budget.  The cost model alone (nothing is composed)."""
    acc = A.ShuffleAccountant().compose(A.ShuffledRR(k=10, epsilon0="1", n=10**6), count=365)
    query = acc.estimate(fresh=True, refine=False, delta_band=False).seconds
    length = 124_324
    assert cost.lower_refine_seconds(length, 4) > 1.5 * A.refine_share(4) * query  # ÷4: clearly over
    assert cost.lower_refine_seconds(length, 2) < A.refine_share(2) * query / 1.5  # ÷2: clearly within
