"""The laws of L (issue 27): sympy derivations (proofs/continuous_laws.py) and the cells' closed forms checked against
python-flint's rigorous numerical integration ``acb.integral`` of the densities (an independent route: no distribution
function, no erfc, only the density written out here)."""

from __future__ import annotations

import pytest
from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.numbers import arith
from blanket.exact.shuffled.continuous import _cell
from blanket.proofs.continuous_laws import check_symbolic
from flint import acb, arb, fmpq


def test_every_derivation_step_is_proved_by_sympy():
    checks = check_symbolic()
    assert len(checks) >= 20
    assert all(c.proved is True for c in checks), [c.method for c in checks if c.proved is not True]


def _laplace_density(e0: arb, x0: int, side: int):
    """``(ε0/2)·exp(−ε0·side·(y − x0))`` (``side`` the sign of ``y − x0`` on the interval)."""
    return lambda y, _analytic: acb(e0) / 2 * (-acb(e0) * side * (y - x0)).exp()


def _gauss_density(s: arb, x0: int):
    return lambda y, _analytic: (-((y - x0) ** 2) / (2 * acb(s) ** 2)).exp() / (acb(s) * acb(2 * arb.pi()).sqrt())


def _close(a: arb, b: acb) -> bool:
    return abs(a - b.real) < arb(10) ** -12 and a.overlaps(b.real)


@pytest.mark.parametrize(("u", "v"), [(fmpq(0), fmpq(1, 4)), (fmpq(1, 4), fmpq(1, 2)), (fmpq(1, 2), fmpq(9, 10))])
def test_laplace_cells_match_acb_integral(u, v):
    with arith.precision(128):
        m, ee = Laplace(fmpq(3, 2)), arith.exp_ball(fmpq(1, 5))
        e0 = arb(m.epsilon0)
        c = _cell(m, fmpq(0), fmpq(1), ee, arb(u), arb(v))
        upper_half = u >= fmpq(1, 2)
        mu0 = _laplace_density(e0, 0, 1)  # y >= 0 on every interval here
        mu1 = _laplace_density(e0, 1, -1)  # y <= 1
        floor = mu0 if upper_half else mu1  # the farther input's density
        g = acb.integral(floor, acb(arb(u)), acb(arb(v)))
        i = acb.integral(lambda y, a: mu0(y, a) - acb(ee) * mu1(y, a), acb(arb(u)), acb(arb(v)))
        assert _close(c.g, g) and _close(c.integral, i)


@pytest.mark.parametrize(("u", "v"), [(fmpq(-2), fmpq(-1, 2)), (fmpq(0), fmpq(1, 2)), (fmpq(1, 2), fmpq(3))])
def test_gaussian_cells_match_acb_integral(u, v):
    with arith.precision(128):
        m, ee = Gaussian(fmpq(3, 4)), arith.exp_ball(fmpq(1, 3))
        s = arb(m.sigma)
        c = _cell(m, fmpq(0), fmpq(1), ee, arb(u), arb(v))
        mu0, mu1 = _gauss_density(s, 0), _gauss_density(s, 1)
        floor = mu0 if u >= fmpq(1, 2) else mu1
        g = acb.integral(floor, acb(arb(u)), acb(arb(v)))
        i = acb.integral(lambda y, a: mu0(y, a) - acb(ee) * mu1(y, a), acb(arb(u)), acb(arb(v)))
        assert _close(c.g, g) and _close(c.integral, i)
