"""The laws of the amplification variable ``L`` of the continuous randomizers, derived in sympy (issue 27).

For inputs ``x, x'`` and the blanket ``ω`` of Lemma 5.1, ``L(y) = γ(r_x(y) − e^ε r_{x'}(y))`` with
``r_x = μ_x / inf_z μ_z`` (docs/reference/blanket.md §4; the code: :mod:`blanket.exact.mechanisms.continuous`).
:func:`check_symbolic` establishes, each by sympy outright (``simplify`` to zero, or an exact integral):

* Laplace ``R(x) = x + Lap(1/ε0)`` on [0, 1]: ``inf_z μ_z(y) = μ_far(y)`` with ``far`` the endpoint farther from
  ``y``; the ratio ``r_x(y) = exp(−ε0(|y − x| − max(|y|, |y − 1|)))`` on each piece; for the pair (0, 1) the two
  atoms ``L = γ(e^{ε0} − e^ε)`` below 0 and ``L = γ(1 − e^{ε+ε0})`` above 1, each of blanket mass ``γe^{−ε0/2}/2``;
  the continuous part ``γe^{ε0(1−2y)} − γe^ε`` on [0, 1/2] and ``γ − γe^{ε+ε0(2y−1)}`` on [1/2, 1] (monotone:
  one cell per piece); ``∫γω L = 1 − e^ε`` (the mean, as ``∫(μ_0 − e^ε μ_1)``); ``γ = e^{−ε0/2}``.
* Gaussian ``R(x) = x + N(0, σ²)``: ``r_x(y) = exp((x − c)(2y − x − c)/(2σ²))`` with ``c = 1`` below 1/2 and
  ``c = 0`` above (the farther input); the blanket's distribution function ``γΩ`` (``Φ((y − 1)/σ)`` below 1/2,
  ``Φ(−1/(2σ)) + Φ(y/σ) − Φ(1/(2σ))`` above) has derivative ``inf_z μ_z``, is continuous at 1/2 and tends to
  ``γ = 2Φ(−1/(2σ))``.

Not registered as results (no bound is stated): these are the inputs of the exact blanket view, checked against
python-flint's rigorous ``acb.integral`` in tests/test_continuous_laws.py.  Status: derived.  Cost: a few seconds
of sympy.
"""

from __future__ import annotations

import sympy as sp
from blanket.proofs.core import SymbolicCheck

__all__ = ["check_symbolic", "LAPLACE_PIECES", "GAUSSIAN_RATIO"]

y = sp.Symbol("y", real=True)
e0 = sp.Symbol("epsilon0", positive=True)
eps = sp.Symbol("epsilon", nonnegative=True)
sigma = sp.Symbol("sigma", positive=True)
x = sp.Symbol("x", real=True)
c = sp.Symbol("c", real=True)


def _lap(x0, yy=y):
    """The Laplace density of ``x0 + Lap(1/ε0)`` at ``yy`` (without the absolute value: the caller's piece)."""
    return e0 / 2 * sp.exp(-e0 * sp.Abs(yy - x0))


GAMMA_LAPLACE = sp.exp(-e0 / 2)
#: the continuous part of L for the pair (0, 1): (interval, expression)
LAPLACE_PIECES = (
    ((sp.Integer(0), sp.Rational(1, 2)), GAMMA_LAPLACE * sp.exp(e0 * (1 - 2 * y)) - GAMMA_LAPLACE * sp.exp(eps)),
    ((sp.Rational(1, 2), sp.Integer(1)), GAMMA_LAPLACE - GAMMA_LAPLACE * sp.exp(eps + e0 * (2 * y - 1))),
)
#: the Gaussian ratio μ_x/μ_c (c the farther input)
GAUSSIAN_RATIO = sp.exp((x - c) * (2 * y - x - c) / (2 * sigma**2))


def _zero(expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


def _laplace_checks() -> list[tuple[str, bool]]:
    out = []
    # the ratio on each piece, from the densities: inf over z in [0, 1] of mu_z(y) is at the farther endpoint
    # (far = 1 below 1/2, far = 0 above), and on each sub-piece the absolute values resolve with the signs below
    yy = sp.Symbol("t", real=True)
    for far, pieces in (
        (1, ((-sp.oo, 0, -1), (0, sp.Rational(1, 2), 1))),
        (0, ((sp.Rational(1, 2), 1, 1), (1, sp.oo, 1))),
    ):
        for lo, hi, s_0 in pieces:
            s_f = 1 if far == 0 else -1  # sign of (y - far) on the piece
            for x0 in (0, 1):
                s_x = s_0 if x0 == 0 else (1 if lo >= 1 else -1)  # sign of (y - x0) on the piece
                ratio = _lap(x0, yy).subs(sp.Abs(yy - x0), s_x * (yy - x0)) / _lap(far, yy).subs(
                    sp.Abs(yy - far), s_f * (yy - far)
                )
                # the code's r_x = exp(-eps0(|y - x| - max(|y|, |y - 1|))), resolved on the piece
                claimed = sp.exp(-e0 * (s_x * (yy - x0) - s_f * (yy - far)))
                out.append((f"Laplace ratio r_{x0} on ({lo}, {hi})", _zero(ratio - claimed)))
    g = GAMMA_LAPLACE
    # atoms: L below 0 and above 1, and their blanket masses gamma * Omega
    r0_lo, r1_lo = sp.exp(-e0 * ((-y) - (1 - y))), sp.exp(-e0 * ((1 - y) - (1 - y)))
    out.append(
        (
            "Laplace atom below 0: L = gamma(e^eps0 - e^eps)",
            _zero(g * (r0_lo - sp.exp(eps) * r1_lo) - g * (sp.exp(e0) - sp.exp(eps))),
        )
    )
    r0_hi, r1_hi = sp.exp(-e0 * (y - y)), sp.exp(-e0 * ((y - 1) - y))
    out.append(
        (
            "Laplace atom above 1: L = gamma(1 - e^(eps+eps0))",
            _zero(g * (r0_hi - sp.exp(eps) * r1_hi) - g * (1 - sp.exp(eps + e0))),
        )
    )
    omega_lo = sp.integrate(e0 / 2 * sp.exp(e0 * (y - 1)), (y, -sp.oo, 0))  # inf_z mu_z below 0 is mu_1
    out.append(
        ("Laplace atom mass gamma*Omega(y < 0) = gamma e^(-eps0/2)/2", _zero(omega_lo - g * sp.exp(-e0 / 2) / 2))
    )
    # the continuous pieces from the ratio formula
    far_lo = sp.exp(-e0 * (y - (1 - y)))  # r_0 on [0, 1/2]: |y - 0| = y, far = 1 - y
    out.append(("Laplace piece on [0, 1/2]", _zero(g * (far_lo - sp.exp(eps)) - LAPLACE_PIECES[0][1])))
    r1_mid = sp.exp(-e0 * ((1 - y) - y))  # r_1 on [1/2, 1]: far = y
    out.append(("Laplace piece on [1/2, 1]", _zero(g * (1 - sp.exp(eps) * r1_mid) - LAPLACE_PIECES[1][1])))
    # monotone on each piece: the derivative has one sign
    d0 = sp.diff(LAPLACE_PIECES[0][1], y)
    d1 = sp.diff(LAPLACE_PIECES[1][1], y)
    out.append(
        (
            "Laplace L decreasing on [0, 1/2] and [1/2, 1]",
            bool(sp.ask(sp.Q.negative(d0))) and bool(sp.ask(sp.Q.negative(d1))),
        )
    )
    # the mean: the atoms and the pieces integrate against gamma*omega to 1 - e^eps
    w_lo = e0 / 2 * sp.exp(e0 * (y - 1))  # inf mu below 1/2 (mu_1, y <= 1/2)
    w_hi = e0 / 2 * sp.exp(-e0 * y)  # inf mu above 1/2 (mu_0, y >= 1/2)
    mean = (
        g * (sp.exp(e0) - sp.exp(eps)) * sp.integrate(w_lo, (y, -sp.oo, 0)) / g
        + sp.integrate(LAPLACE_PIECES[0][1] * w_lo / g, (y, 0, sp.Rational(1, 2)))
        + sp.integrate(LAPLACE_PIECES[1][1] * w_hi / g, (y, sp.Rational(1, 2), 1))
        + g * (1 - sp.exp(eps + e0)) * sp.integrate(w_hi, (y, 1, sp.oo)) / g
    )
    out.append(
        ("Laplace E_omega[L] * ... : integral of (mu_0 - e^eps mu_1) = 1 - e^eps", _zero(mean - (1 - sp.exp(eps))))
    )
    total = sp.integrate(w_lo, (y, -sp.oo, sp.Rational(1, 2))) + sp.integrate(w_hi, (y, sp.Rational(1, 2), sp.oo))
    out.append(("Laplace gamma = integral of inf_z mu_z = e^(-eps0/2)", _zero(total - g)))
    return out


def _gaussian_checks() -> list[tuple[str, bool]]:
    out = []
    mu = lambda x0: sp.exp(-((y - x0) ** 2) / (2 * sigma**2)) / (sigma * sp.sqrt(2 * sp.pi))  # noqa: E731
    out.append(
        (
            "Gaussian ratio mu_x/mu_c",
            _zero(sp.expand_log(sp.log(mu(x) / mu(c)), force=True) - sp.log(GAUSSIAN_RATIO).expand(force=True)),
        )
    )
    Phi = lambda z: (1 + sp.erf(z / sp.sqrt(2))) / 2  # noqa: E731
    F_lo = Phi((y - 1) / sigma)
    F_hi = Phi(-1 / (2 * sigma)) + Phi(y / sigma) - Phi(1 / (2 * sigma))
    out.append(("Gaussian d(gamma Omega)/dy = mu_1 below 1/2", _zero(sp.diff(F_lo, y) - mu(1))))
    out.append(("Gaussian d(gamma Omega)/dy = mu_0 above 1/2", _zero(sp.diff(F_hi, y) - mu(0))))
    out.append(
        (
            "Gaussian gamma Omega continuous at 1/2",
            _zero(F_lo.subs(y, sp.Rational(1, 2)) - F_hi.subs(y, sp.Rational(1, 2))),
        )
    )
    out.append(("Gaussian gamma = 2 Phi(-1/(2 sigma))", _zero(sp.limit(F_hi, y, sp.oo) - 2 * Phi(-1 / (2 * sigma)))))
    # the farther input: mu_1 <= mu_0 exactly when y <= 1/2
    out.append(
        (
            "Gaussian log(mu_0/mu_1) = (1 - 2y)/(2 sigma^2)",
            _zero(sp.expand_log(sp.log(mu(0) / mu(1)), force=True) - (1 - 2 * y) / (2 * sigma**2)),
        )
    )
    return out


def check_symbolic() -> list[SymbolicCheck]:
    """Every derivation step above as a :class:`~blanket.proofs.core.SymbolicCheck` (``proved`` True when sympy
    established it outright).  A few seconds."""
    return [
        SymbolicCheck(True if ok else None, name, "" if ok else "sympy did not establish it")
        for name, ok in _laplace_checks() + _gaussian_checks()
    ]
