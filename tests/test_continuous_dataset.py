"""The shuffled Laplace/Gaussian mechanism's own δ on 0^n vs 1·0^(n−1): the certified lower end (issue 27).

Independent references in mpmath (30 digits, its own exp/erfc/quadrature, no code shared with the engine):
n = 1 is ∫(μ_1 − e^ε μ_0)_+ resp. ∫(μ_0 − e^ε μ_1)_+; n = 2 (Laplace) is (1/2)E[(r(Y_1) + r(Y_2) − 2e^ε)_+] with
r = μ_1/μ_0, Y_i ~ μ_0, the inner expectation in closed form (r is increasing) and the outer by quadrature.
"""

from __future__ import annotations

import mpmath as mp
import pytest
from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.shuffled.continuous import blanket_view, quantised_epsilon_lower
from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower, dataset_epsilon_lower
from flint import fmpq

mp.mp.dps = 30


def _lap(x, y, e0):
    return e0 / 2 * mp.e ** (-e0 * abs(y - x))


def _lap_sf(x, y, e0):  # P(x + Lap(1/e0) > y)
    t = y - x
    return mp.e ** (-e0 * t) / 2 if t >= 0 else 1 - mp.e ** (e0 * t) / 2


def _ref_n1(kind: str, direction: str, eps) -> mp.mpf:
    ee = mp.e**eps
    if kind == "laplace":
        e0 = mp.mpf(1)

        def mu(x, y):
            return _lap(x, y, e0)

        pts = [-mp.inf, 0, mp.mpf(1) / 4, mp.mpf(1) / 2, mp.mpf(3) / 4, 1, mp.inf]
    else:

        def mu(x, y):
            return mp.npdf(y, x, 1)

        pts = [-mp.inf, -2, 0, mp.mpf(1) / 2, 1, 3, mp.inf]
    a, b = (1, 0) if direction == "1|0" else (0, 1)
    return mp.quad(lambda y: max(mu(a, y) - ee * mu(b, y), 0), pts)


def _ref_laplace_n2(eps) -> mp.mpf:
    """(1/2)E[(r(Y1) + r(Y2) − 2e^ε)_+], Laplace ε0 = 1, Y_i ~ μ_0; inner integral over y2 in closed form."""
    e0, ee = mp.mpf(1), mp.e**eps

    def r(y):
        return mp.e ** (-e0 * (abs(y - 1) - abs(y)))

    def inner(a):  # E[(a + r(Y) − 2e^ε)_+] = ∫_{y*}^∞ (a − 2e^ε)μ_0 + μ_1 with r(y*) = 2e^ε − a
        c = 2 * ee - a
        if c >= mp.e**e0:
            return mp.mpf(0)
        if c <= mp.e**-e0:
            return a - 2 * ee + 1
        ys = (mp.log(c) / e0 + 1) / 2
        return (a - 2 * ee) * _lap_sf(0, ys, e0) + _lap_sf(1, ys, e0)

    pts = [-mp.inf, 0, mp.mpf(1) / 2, 1, mp.inf]
    return mp.quad(lambda y: _lap(0, y, e0) * inner(r(y)), pts) / 2


@pytest.mark.parametrize("direction", ["1|0", "0|1"])
@pytest.mark.parametrize("kind", ["laplace", pytest.param("gaussian", marks=pytest.mark.slow)])
def test_n1_lower_end_below_and_near_mpmath(kind, direction):
    mech = Laplace(1) if kind == "laplace" else Gaussian(1)
    eps = fmpq(1, 4)
    ref = _ref_n1(kind, direction, mp.mpf(1) / 4)
    d = dataset_delta_lower(mech, 1, epsilon=eps, h=fmpq(1, 64), direction=direction)
    assert 0 < float(d) <= float(ref)
    assert float(d) > 0.97 * float(ref)


def test_n2_laplace_lower_end_below_and_near_mpmath():
    ref = _ref_laplace_n2(mp.mpf(1) / 4)
    d = dataset_delta_lower(Laplace(1), 2, epsilon=fmpq(1, 4), h=fmpq(1, 64))
    assert 0 < float(d) <= float(ref) and float(d) > 0.97 * float(ref)


def test_lower_end_lies_below_the_blanket_view_and_refines_upwards():
    """The blanket view bounds every dataset, so it bounds this one; a finer lattice raises the lower end."""
    n, eps = 300, fmpq(1, 8)
    view = blanket_view(Laplace(1), n, epsilon=eps, h=fmpq(1, 64))
    coarse = dataset_delta_lower(Laplace(1), n, epsilon=eps, h=fmpq(1, 8))
    fine = dataset_delta_lower(Laplace(1), n, epsilon=eps, h=fmpq(1, 64))
    assert 0 < coarse < fine <= view.upper


@pytest.mark.slow
def test_epsilon_lower_end_is_certified_and_below_the_upper_end():
    n, delta = 400, fmpq(1, 1000)
    e = dataset_epsilon_lower(Laplace(1), n, delta, h=fmpq(1, 32))
    assert e > 0
    assert (
        max(dataset_delta_lower(Laplace(1), n, epsilon=e, h=fmpq(1, 32), direction=d) for d in ("1|0", "0|1")) > delta
    )
    assert blanket_view(Laplace(1), n, epsilon=e, h=fmpq(1, 64)).upper > delta  # so e is below the view's epsilon
    assert e > quantised_epsilon_lower(Laplace(1), n, delta)  # the exact dataset beats the thresholded outputs here


def _roc_pair(mech, n, h=None):
    from blanket.exact.accounting.curves import pair_from_roc
    from blanket.exact.shuffled.continuous_dataset import dataset_roc_points

    return pair_from_roc(dataset_roc_points(mech, n, h=fmpq(1, 64) if h is None else h))


def _alpha(e: float) -> fmpq:
    return fmpq(int(mp.e**e * 2**40), 2**40)


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_roc_pair_curve_below_and_near_mpmath_at_n1(kind):
    """The dataset-curve lower pair (session 13) at n = 1 is (μ_1, μ_0) itself: its curve H_α must lie at or below
    the mpmath value at every α (α ≥ 1: ∫(μ_1 − αμ_0)_+; α < 1: 1 − α + α∫(μ_0 − μ_1/α)_+) and near it."""
    mech = Laplace(1) if kind == "laplace" else Gaussian(1)
    pr = _roc_pair(mech, 1)
    for e in (0.0, 0.125, 0.25, 0.5, 0.75):
        a = _alpha(e)
        ea = mp.log(mp.mpf(int(a.p)) / int(a.q))  # the exact rational's own log, for the reference
        fwd = _ref_n1(kind, "1|0", ea)
        assert 0 < float(pr.hockey_stick(a)) <= float(fwd) and float(pr.hockey_stick(a)) > 0.97 * float(fwd)
        ai = 1 / a
        bwd = 1 - mp.e**-ea + mp.e**-ea * _ref_n1(kind, "0|1", ea)  # F(1/a) = 1 − 1/a + G(a)/a
        h = pr.hockey_stick(ai)
        assert float(1 - ai) < float(h) <= float(bwd)
        assert float(h - (1 - ai)) > 0.97 * float(bwd - (1 - mp.e**-ea))


def test_roc_pair_curve_below_mpmath_at_n2_laplace():
    pr = _roc_pair(Laplace(1), 2)
    a = _alpha(0.25)
    ref = _ref_laplace_n2(mp.log(mp.mpf(int(a.p)) / int(a.q)))
    d = pr.hockey_stick(a)
    assert 0 < float(d) <= float(ref) and float(d) > 0.97 * float(ref)
