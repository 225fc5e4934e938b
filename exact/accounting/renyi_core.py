"""The small pieces every Rényi route shares: the order as an integer, ``r^λ``, the k-RR check, binary RR's
parameters and the certified error of a binomial window.

Below :mod:`exact.accounting.renyi` (exact and ball routes, the worst case, the k-RR families' nested route) and
:mod:`exact.accounting.renyi_float` (the float64 kernels with proved bounds), which both import them.  Each is
O(1) ball operations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from blanket.exact.laws.divergences import Windowed
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, NumberInput
from flint import arb, fmpq


def is_integer_order(q: object) -> TypeGuard[fmpq]:
    return isinstance(q, fmpq) and q.q == 1


def order_power(r: Enclosure, lam: Enclosure) -> Enclosure:
    """``r^λ`` for ``r > 0`` (exact for exact r and integer λ)."""
    if is_integer_order(lam):
        return r ** int(lam.p)
    if isinstance(r, fmpq) and r == 1:
        return fmpq(1)
    return (arith.ball(r).log() * arb(lam)).exp()


def check_krr(mech: object) -> KRR:
    return guards.require_instance(
        mech, KRR, "mech", "must be a k-ary randomized response (exact.mechanisms.finite.KRR / BinaryRR)"
    )


def binary_params(mech: object) -> tuple[Enclosure, Enclosure]:
    mech = check_krr(mech)
    if mech.k != 2:
        raise InvalidArgument(
            "mech", mech.name, "must be binary RR (k = 2) for the count-of-ones engine; use renyi_krr_family for k > 2"
        )
    return mech.keep(), mech.flip()


def binary_window_error(
    B: Windowed, mass: Sequence[Enclosure], at_lo: bool, at_hi: bool, lam: fmpq, e0: Enclosure
) -> tuple[arb, arb]:
    """Certified ``(up, down)``: the true moment lies in ``[S − down, S + up]`` for the window sum ``S``.

    The window values of ``B`` are *under*-estimates (pairs with a factor
    outside its binomial window are missing; their total mass is ≤ ``t =
    B.tail``).  With ``f(P, Q) = P^λ Q^{1−λ}`` (convex, 1-homogeneous) and the
    missing parts ``(ΔP, ΔQ)`` having ratio in ``[e^{−ε0}, e^{ε0}]``:
    subadditivity gives ``f(P+ΔP, Q+ΔQ) ≤ f(P, Q) + e^{ε0(λ−1)}ΔP``; the
    tangent plane gives ``≥ f(P, Q) − (λ−1)e^{ε0λ}ΔQ``.  Left-out outcomes
    (outside the summed range) add at most ``e^{ε0(λ−1)}`` times their
    ``P``-mass ≤ ``t`` + the edge atoms not at a support end.  Hence
    ``up = e^{ε0(λ−1)}(2t + edges)``, ``down = (λ−1)e^{ε0λ}t``.
    """
    t = arith.ball(B.tail)
    edges = arb(0)
    if not at_lo:
        edges += arith.ball(mass[0])
    if not at_hi:
        edges += arith.ball(mass[-1])
    e0b = arith.ball(e0)
    up = (order_power(e0b, lam - 1) * (2 * t + edges)).upper()
    down = ((arb(lam) - 1) * order_power(e0b, lam) * t).upper()
    return up, down


def window_error(t: Enclosure, edges: arb, lam: fmpq, e0: Enclosure) -> tuple[arb, arb]:
    """``(up, down)`` of :func:`binary_window_error` from the left-out mass bound ``t`` and the edge masses."""
    t = arith.ball(t)
    e0b = arith.ball(e0)
    up = (order_power(e0b, lam - 1) * (2 * t + edges)).upper()
    down = ((arb(lam) - 1) * order_power(e0b, lam) * t).upper()
    return up, down


def integer_order(lam: object) -> int | None:
    """λ as a Python int when it is an integer ≥ 2, else ``None`` (the float route needs integer λ)."""
    return int(lam.p) if is_integer_order(lam) else None


def parse_order(order: NumberInput, name: str = "order") -> fmpq:
    """The Rényi order λ > 1, exact (``fmpq``).

    >>> parse_order("5/2"), parse_order(2)
    (5/2, 2)
    >>> parse_order(1)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: order must be > 1, got 1
    """
    return arith.exact_in(order, name, lo=1, lo_open=True)
