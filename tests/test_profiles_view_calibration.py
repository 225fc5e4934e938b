"""``profiles.epsilon`` on a k-RR view or family (and the k > 2 bracket's blanket end) goes through
``krr.calibrate_epsilon``: no precision escalation, few evaluations, and the same certified bracket as the
general search (the route it replaces) — the two certified brackets of one quantity must intersect."""

import pytest
from blanket.exact.accounting import profiles
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.shuffled import krr
from flint import fmpq


@pytest.mark.parametrize("view", ["blanket", "same", "neighbour", "third"])
def test_view_calibration_agrees_with_the_general_search(view):
    mech, n, target = KRR(5, "1"), 5000, fmpq(1, 10**6)
    got = profiles.epsilon(mech, n, delta="1e-6", dataset=view)
    # no precision escalation (the enclosures' width is a windowing bound, not rounding), a few evaluations
    assert got.bracket.prec == arith.DEFAULT_PREC and got.evaluations <= 12
    assert got.lower < got.upper and (got.upper - got.lower) <= fmpq(1, 10**6) * got.upper * 2

    def fun(eps):
        if view == "blanket":
            return krr.delta_blanket_view(mech, n, epsilon=eps)
        return krr.delta_krr_family(mech, n, view, epsilon=eps)

    ref = epsilon_for_delta(fun, target, hi=fmpq(1), rel_tol=fmpq(1, 10**6))
    assert got.lower <= ref.upper and ref.lower <= got.upper
    # each end is certified on its own: δ(upper) ≤ target and δ(lower) > target
    assert fun(got.upper) <= target if isinstance(fun(got.upper), fmpq) else fun(got.upper).upper() <= target
    lo = fun(got.lower)
    assert (lo > target) if isinstance(lo, fmpq) else lo.lower() > target


def test_bracket_for_k_above_two_uses_the_view_calibration():
    pr = profiles.epsilon(KRR(10, "1"), 5000, delta="1e-6")  # worst: the certified bracket
    assert pr.bracket.lower <= pr.bracket.upper
    assert pr.total_evaluations <= 40  # 3 families and the blanket view, about 7 each (was 41 at 10^6)
