"""Certified references for the continuous randomizers' results in the paper-check harness (issue 27).

* :func:`laplace_sup_L` — Lemma 5.8 (1): the largest value of ``L`` for the Laplace randomizer on [0, 1] over a grid of
  input pairs ``x ≠ x'`` in ``{0, 1/4, 1/2, 3/4, 1}`` and outputs ``y`` (the atoms ``y < 0``, ``y > 1`` and a grid
  of step 1/32 on [0, 1] with every break point), each ``L(y) = γ(r_x(y) − e^ε r_{x'}(y))`` a ball: a certified
  *lower* bound on ``sup L`` (an attained value).
* :func:`laplace_second_moment` — Lemma 5.8 (2): ``E_ω[L²] = ∫(μ_x − e^ε μ_{x'})²/ω`` for every pair of the same
  grid, the atoms in closed form (``L`` is constant below 0 and above 1, their blanket masses are distribution
  functions) and [0, 1] by python-flint's rigorous ``acb.integral`` on the pieces between the break points
  ``{0, x, x', 1/2, 1}`` (where every density is one analytic exponential): the largest is a certified *lower*
  bound on ``sup_{x,x'} E[L²]``.
* :func:`gaussian_view` / :func:`gaussian_own_lower` — the Gaussian blanket-view curve (Lemma 5.3 for the inputs
  (0, 1), :func:`blanket.exact.shuffled.continuous.blanket_view`) and its reference, the mechanism's own δ on
  ``0^n`` vs ``1·0^{n−1}`` (lower side of its enclosure,
  :func:`blanket.exact.shuffled.continuous_dataset.dataset_delta_lower`): a certified lower bound on the mechanism's
  δ, so the curve's ratio to it is how far the blanket view can be from the truth.

Both Lemma 5.8 statements hold with equality at ``{x, x'} = {0, 1}``, so the bound and the reference agree there
and a ball comparison cannot order them; the references say, in ``what``, that every other pair of the grid is
certified strictly below the bound.  Status: derived (the pieces: docs/reference/blanket.md §4, proofs/continuous_laws.py).

Cost: Lemma 5.8 (1) ``O(20·40)`` ball evaluations; (2) 20 pairs × at most 6 pieces of ``acb.integral`` (milliseconds
each); the Gaussian view and its reference one lattice sum each (seconds at n = 10^3).
"""

from __future__ import annotations

from typing import Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import Undecided
from blanket.proofs.core import Reference
from flint import acb, arb, fmpq

__all__ = ["laplace_sup_L", "laplace_second_moment", "gaussian_view", "gaussian_own_lower", "GRID"]

#: the input pairs' grid
GRID = tuple(fmpq(i, 4) for i in range(5))
HALF = fmpq(1, 2)


def _pairs() -> list:
    return [(a, b) for a in GRID for b in GRID if a != b]


def _L(mech: Any, x: fmpq, x2: fmpq, ee: arb, y: fmpq) -> arb:
    return mech.gamma() * (mech.ratio(x, arb(y)) - ee * mech.ratio(x2, arb(y)))


def _best(vals: dict, bound: Any) -> tuple:
    """The pair with the largest value (by midpoint: any attained value is a valid lower bound) and how many of the
    others are certified strictly below ``bound``."""
    bad = [p for p in vals if not vals[p].is_finite()]
    if bad:
        raise Undecided(f"the value at the pair {bad[0]} is not finite at this precision")
    top = max(vals, key=lambda p: float(vals[p].mid()))
    others = [p for p in vals if set(p) != {fmpq(0), fmpq(1)}]
    below = sum(1 for p in others if arith.lt(vals[p], bound) is True)
    return top, below, len(others)


def laplace_sup_L(epsilon0: Any, epsilon: Any, bound: Any = None) -> Reference:
    """Lemma 5.8 (1)'s reference: the largest ``L`` over the grid of pairs and outputs (module docstring)."""
    from blanket.exact.mechanisms.continuous import Laplace

    mech = Laplace(arith.exact(epsilon0))
    ee = arith.exp_ball(arith.exact(epsilon))
    ys = sorted({fmpq(-1), fmpq(2), *(fmpq(i, 32) for i in range(33))})
    vals = {}
    for x, x2 in _pairs():
        best = None
        for y in ys:
            v = _L(mech, x, x2, ee, y)
            best = v if best is None or float(v.mid()) > float(best.mid()) else best
        vals[(x, x2)] = best
    return _reference(
        vals,
        bound,
        "the largest L(y) of the Laplace randomizer over the input pairs x != x' in {0, 1/4, 1/2, 3/4, 1} and "
        "outputs y < 0, y > 1 and y in [0, 1] (step 1/32)",
        "an attained value, so a lower bound on sup L",
    )


def _reference(vals: dict, bound: Any, what: str, why: str) -> Reference:
    """The reference of the largest of ``vals`` (pair -> ball; :func:`_best`, against ``bound`` or else the value at
    {0, 1}), described as ``what`` and ``why``."""
    top, below, others = _best(vals, bound if bound is not None else vals[(fmpq(0), fmpq(1))])
    return Reference(
        vals[top],
        f"{what}, attained at (x, x') = ({top[0]}, {top[1]}); {why}; {below} of the {others} pairs other than "
        "{0, 1} are certified below the bound (equality at {0, 1})",
        "lower",
    )


def _density(e0: arb, x: fmpq, side: int):
    """``μ_x(y) = (ε0/2)·exp(−ε0·side·(y − x))`` on a piece where ``sign(y − x) = side`` (analytic there)."""
    return lambda y: acb(e0) / 2 * (-acb(e0) * side * (y - acb(arb(x)))).exp()


def _second_moment(mech: Any, x: fmpq, x2: fmpq, ee: arb) -> arb:
    """``E_ω[L²]`` for the pair ``(x, x')`` (module docstring): atoms in closed form, [0, 1] by ``acb.integral``."""
    g = mech.gamma()
    e0 = arb(mech.epsilon0)
    below = mech.floor_cdf(arb(0)) / g  # Ω((−∞, 0])
    above = 1 - mech.floor_cdf(arb(1)) / g  # Ω([1, ∞))
    lo_atom, hi_atom = _L(mech, x, x2, ee, fmpq(-1)), _L(mech, x, x2, ee, fmpq(2))
    total = lo_atom * lo_atom * below + hi_atom * hi_atom * above  # (not ** 2: a ball around 0 would give nan)
    cuts = sorted({fmpq(0), x, x2, HALF, fmpq(1)})
    for u, v in zip(cuts, cuts[1:]):
        mid = (u + v) / 2
        mx = _density(e0, x, 1 if mid > x else -1)
        mx2 = _density(e0, x2, 1 if mid > x2 else -1)
        far = fmpq(1) if mid <= HALF else fmpq(0)  # the blanket's density is the farther input's, divided by γ
        mf = _density(e0, far, 1 if mid > far else -1)
        cee, cg = acb(ee), acb(g)

        def f(y, _analytic, mx=mx, mx2=mx2, mf=mf, cee=cee, cg=cg):
            d = mx(y) - cee * mx2(y)
            return d * d * cg / mf(y)

        total += acb.integral(f, acb(arb(u)), acb(arb(v))).real
    return total


def laplace_second_moment(epsilon0: Any, epsilon: Any, bound: Any = None) -> Reference:
    """Lemma 5.8 (2)'s reference: the largest ``E_ω[L²]`` over the grid of pairs (module docstring)."""
    from blanket.exact.mechanisms.continuous import Laplace

    mech = Laplace(arith.exact(epsilon0))
    ee = arith.exp_ball(arith.exact(epsilon))
    vals = {p: _second_moment(mech, p[0], p[1], ee) for p in _pairs()}
    return _reference(
        vals,
        bound,
        "the largest E[L^2] of the Laplace randomizer over the input pairs x != x' in {0, 1/4, 1/2, 3/4, 1}, "
        "by rigorous quadrature (acb.integral) between the break points and the atoms in closed form",
        "a lower bound on the supremum over pairs",
    )


def _view_h(n: int) -> fmpq:
    return fmpq(1, 32) if n <= 10**4 else fmpq(1, 16)


def gaussian_view(sigma: Any, n: Any, epsilon: Any) -> arb:
    """The Gaussian blanket view's enclosure ``[lower, upper]`` as a ball (inputs (0, 1), lattice 1/32 up to
    n = 10^4, 1/16 beyond): the curve point of the report."""
    from blanket.exact.mechanisms.continuous import Gaussian
    from blanket.exact.shuffled.continuous import blanket_view

    nn = int(arith.exact(n))
    v = blanket_view(Gaussian(arith.exact(sigma)), nn, epsilon=arith.exact(epsilon), h=_view_h(nn))
    return arith.ball((v.lower + v.upper) / 2) + arith.ball((v.upper - v.lower) / 2) * arb(0, 1)


def gaussian_own_lower(sigma: Any, n: Any, epsilon: Any) -> Reference:
    """The Gaussian mechanism's own δ on ``0^n`` vs ``1·0^{n−1}`` (the larger order; lower side of its enclosure):
    a certified lower bound on the shuffled mechanism's δ."""
    from blanket.exact.mechanisms.continuous import Gaussian
    from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower

    nn = int(arith.exact(n))
    mech = Gaussian(arith.exact(sigma))
    eq = arith.exact(epsilon)
    d = max(dataset_delta_lower(mech, nn, epsilon=eq, h=_view_h(nn), direction=o) for o in ("1|0", "0|1"))
    return Reference(
        arith.ball(d),
        f"the shuffled Gaussian mechanism's own delta on the datasets 0^n vs 1 0^(n-1) (n={nn}; lower side of its "
        "lattice enclosure, both orders): a lower bound on its delta",
        "lower",
    )
