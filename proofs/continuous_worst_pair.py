"""The worst pair of inputs of the shuffled Laplace mechanism's blanket view is (0, 1): the symbolic steps (issue 27).

Theorem (docs/reference/blanket.md §4, "Worst pair", status: proved).  For ``R(x) = x + Lap(1/ε0)`` on [0, 1] with
its blanket ``ω`` (Lemma 5.1 (2)) and any ``a = e^ε > 0``, the amplification variable
``L_{x,x'} = (μ_x − a μ_{x'})/ω`` (``W ~ ω``) satisfies ``L_{x,x'} ≤_cx L_{0,1}`` for all ``x, x' ∈ [0, 1]``; hence
``δ_BV(x, x'; ε) ≤ δ_BV(0, 1; ε)`` for every ``n`` and ``ε`` (convex order is kept by the mixture with the atom 0,
by independent sums, and ``(·)_+`` is convex).  The proof compares ``Φ_t(x, x') = ∫(μ_x − aμ_{x'} − tω)_+`` with
``Φ_t(0, 1)`` for every ``t`` through ``∫(h₁)_+ − ∫(h₂)_+ ≤ ∫_A (h₁ − h₂)``, ``A = {h₁ > 0}``, where ``A`` is a
half-line or an interval on one side of 1/2 by the monotone ratios below.

:func:`check_symbolic` establishes the identities and sign facts the argument uses, each by sympy outright:

* the blanket is the location member at 1/2: ``γ μ_{1/2} = inf_z μ_z`` on each side of 1/2 (``γ = e^{−ε0/2}``);
* (F3) for ``θ ≤ θ'`` the log ratio ``log(μ_{θ'}/μ_θ)`` is constant below ``θ``, has derivative ``2ε0 > 0``
  between, and is constant above ``θ'`` (monotone likelihood ratio with the flat ends the proof needs);
* (F2) for ``θ ∈ [0, 1/2]`` and ``y ≤ 1/2``: ``|y − 1| − |y − θ| ≥ 0`` on both pieces (``μ_θ ≥ μ_1`` left of 1/2);
* (F4) the reflection ``y ↦ 1 − y`` maps ``μ_x`` to ``μ_{1−x}`` and fixes ``μ_{1/2}``;
* the means: ``∫(μ_x − aμ_{x'} − tμ_{1/2}) = 1 − a − t`` (so ``Φ_t − Ψ_t`` does not depend on the pair, with
  ``Ψ_t = ∫(aμ_{x'} + tμ_{1/2} − μ_x)_+``; the case ``t < 0`` is argued on ``Ψ``).

The case analysis (which set is a half-line, which comparison pair is used) is in the docs; the theorem is
checked numerically against mpmath quadrature in tests/test_continuous_worst_pair.py.  The Gaussian is not
covered: its blanket is not a location member and its ratios have no flat ends.  Cost: a few seconds of sympy.
"""

from __future__ import annotations

import sympy as sp
from blanket.proofs.core import SymbolicCheck

__all__ = ["check_symbolic", "STATEMENT"]

#: the theorem in one line (certificates quote it)
STATEMENT = (
    "Laplace: (0, 1) is the worst pair of inputs of the blanket view (L_{x,x'} <=_cx L_{0,1} for all x, x' in [0, 1]; "
    "proved in docs/reference/blanket.md §4, proofs/continuous_worst_pair.py)"
)

y = sp.Symbol("y", real=True)
e0 = sp.Symbol("epsilon0", positive=True)
th = sp.Symbol("theta", real=True)
p = sp.Symbol("p", nonnegative=True)
q = sp.Symbol("q", nonnegative=True)
r = sp.Symbol("r", nonnegative=True)
a = sp.Symbol("a", positive=True)
t = sp.Symbol("t", real=True)
xs = sp.Symbol("x", real=True)


def _mu(x0, yy=y):
    return e0 / 2 * sp.exp(-e0 * sp.Abs(yy - x0))


def _zero(expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


def _nonneg(expr) -> bool:
    return bool(sp.ask(sp.Q.nonnegative(sp.expand(expr))))


def _checks() -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    g = sp.exp(-e0 / 2)
    half = sp.Rational(1, 2)
    # the blanket: gamma * mu_{1/2} = inf_z mu_z = mu_1 left of 1/2 (y = 1/2 - p), mu_0 right of it (y = 1/2 + p)
    left = g * e0 / 2 * sp.exp(-e0 * p) - e0 / 2 * sp.exp(-e0 * (1 - (half - p)))
    right = g * e0 / 2 * sp.exp(-e0 * p) - e0 / 2 * sp.exp(-e0 * (half + p))
    out.append(("blanket: gamma*mu_{1/2} = mu_1 on y <= 1/2 and mu_0 on y >= 1/2", _zero(left) and _zero(right)))
    # F3: log(mu_{theta'}/mu_theta), theta' = theta + q (q >= 0), on the three pieces of y
    lr = lambda yy, d1, d2: -e0 * (d1 - d2)  # noqa: E731  (d1 = |y - theta'|, d2 = |y - theta|, resolved)
    below = lr(y, (th + q) - y, th - y)  # y <= theta
    between = lr(y, (th + q) - y, y - th)  # theta <= y <= theta'
    above = lr(y, y - (th + q), y - th)  # y >= theta'
    out.append(
        (
            "F3: log(mu_{theta+q}/mu_theta) is flat below theta, increasing (slope 2 eps0) between, flat above",
            _zero(sp.diff(below, y)) and _zero(sp.diff(between, y) - 2 * e0) and _zero(sp.diff(above, y)),
        )
    )
    # F2: theta in [0, 1/2], y <= 1/2: |y - 1| - |y - theta| >= 0.  Piece y <= theta (y = theta - r, theta = 1/2 - p):
    f2_a = (1 - (th - r)) - r
    # piece theta <= y <= 1/2: y = theta + q, with q = 1/2 - theta - r (r >= 0), theta >= 0 (theta = p)
    yb = p + (half - p - r)
    f2_b = (1 - yb) - (yb - p)
    out.append(
        (
            "F2: |y - 1| >= |y - theta| for y <= 1/2 and theta in [0, 1/2] (mu_theta >= mu_1 there)",
            _nonneg(f2_a.subs(th, half - p)) and _nonneg(f2_b),
        )
    )
    # F4: reflection
    out.append(
        (
            "F4: mu_{1-x}(1-y) = mu_x(y) and mu_{1/2}(1-y) = mu_{1/2}(y)",
            _zero(sp.simplify(_mu(1 - xs, 1 - y) - _mu(xs, y))) and _zero(sp.simplify(_mu(half, 1 - y) - _mu(half, y))),
        )
    )
    # the means: every Laplace density has mass 1, so the integral of mu_x - a mu_x' - t mu_{1/2} is 1 - a - t
    mass = sp.integrate(e0 / 2 * sp.exp(-e0 * (xs - y)), (y, -sp.oo, xs)) + sp.integrate(
        e0 / 2 * sp.exp(-e0 * (y - xs)), (y, xs, sp.oo)
    )
    out.append(
        (
            "means: integral of (mu_x - a mu_x' - t mu_{1/2}) = 1 - a - t (Phi_t - Psi_t is the same for every pair)",
            _zero(mass - 1) and _zero((mass - a * mass - t * mass) - (1 - a - t)),
        )
    )
    return out


def check_symbolic() -> list[SymbolicCheck]:
    """The symbolic steps of the worst-pair theorem as :class:`~blanket.proofs.core.SymbolicCheck` rows (``proved``
    True when sympy established the step outright).  A few seconds."""
    return [
        SymbolicCheck(True if ok else None, name, "" if ok else "sympy did not establish it") for name, ok in _checks()
    ]
