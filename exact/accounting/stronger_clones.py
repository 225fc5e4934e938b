"""The SODA 2023 stronger clones, for the restricted class of randomizers where they hold (a checked option).

Feldman–McMillan–Talwar (SODA 2023, arXiv 2208.04591) state that the shuffled round of an ε0-LDP randomizer is
dominated by the pair ``C ~ Bin(n−1, 2/(e+1))``, ``A | C ~ Bin(C, ½)``, ``Δ ~ Bern(e/(e+1))`` vs ``Bern(1/(e+1))``
(``e = e^{ε0}``), the view ``(A + Δ, C − A + 1 − Δ)``; by their erratum this holds only for a restricted class.
Blanket uses it only for a randomizer given by its **matrix** that satisfies the sufficient condition

    R(x)(y) · (e + 1) ≥ R(x0)(y) + R(x1)(y)      for all inputs x, x0 ≠ x1 and every output y,

checked exactly (:func:`check_condition`).  Why it suffices (``docs/mechanisms.md``, "Generic ε0-LDP", this
project's derivation, status *derived*): for the pair ``x0, x1`` of the differing user put
``Q0 = (e·R(x0) − R(x1))/(e − 1)`` and ``Q1 = (e·R(x1) − R(x0))/(e − 1)`` (distributions, by ε0-LDP); then
``R(x0) = (e·Q0 + Q1)/(e + 1)``, ``R(x1) = (Q0 + e·Q1)/(e + 1)`` and, by the condition, every other user's
``R(x) = Q0/(e+1) + Q1/(e+1) + (e−1)/(e+1)·LO_x`` with ``LO_x`` a distribution.  The shuffled output is a
post-processing of the numbers of draws from ``Q0`` and from ``Q1`` (draw them, a uniformly random set of the other
users as the rest with their ``LO``, shuffle), which is the pair above.  That pair is exactly the Lemma 5.3
blanket view of binary RR with the same ``e`` (:func:`blanket.exact.accounting.pairs.dominating_pair` of
``KRR(2, e)``), so it is tight for binary RR, which satisfies the condition.

None of the four-value frequency oracles satisfies it (an output favoured by ``x0`` and ``x1`` but not by ``x``
needs ``e + 1 ≥ 2e``); k-RR does (with equality), but its own blanket view is tighter for ``k ≥ 3``.
Complexity: :func:`check_condition` O(k_in · k_out) exact operations.
"""

from __future__ import annotations

import dataclasses

from blanket.exact.accounting import pairs as _pairs
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

__all__ = ["check_condition", "condition_violation", "stronger_clone_pair", "DESCRIPTION"]

DESCRIPTION = (
    "stronger clone pair (Feldman-McMillan-Talwar SODA 2023; its condition checked on the randomizer's matrix)"
)


def _exact_matrix(mech: Randomizer) -> tuple[list, fmpq]:
    """The exact rows and ``e^{ε0}`` of ``mech`` (a k-RR record, a :class:`FiniteRandomizer`, or a record with an exact
    ``matrix()``), or :class:`InvalidArgument` naming what is missing."""
    m = mech
    if not isinstance(m, FiniteRandomizer):
        mat = getattr(m, "matrix", None)
        if not callable(mat):
            raise InvalidArgument(
                "mechanism",
                getattr(m, "kind", type(m).__name__),
                "is known only by its local level: the stronger-clone condition is checked on the randomizer's matrix",
                hint="give the randomizer as type = 'matrix' (its rows), or drop the stronger-clones option",
            )
        m = mat()
    rows = m.matrix() if callable(getattr(m, "matrix", None)) else None
    if not isinstance(rows, list) or not all(isinstance(v, fmpq) for r in rows for v in r):
        raise InvalidArgument(
            "mechanism",
            getattr(mech, "kind", type(mech).__name__),
            "has no exact matrix: the stronger-clone condition is checked in exact rationals",
            hint="give epsilon0 so that e^epsilon0 is rational (exp_epsilon0), or the matrix with exact entries",
        )
    e = m.exp_epsilon0()
    if not isinstance(e, fmpq):
        raise InvalidArgument(
            "mechanism", getattr(mech, "kind", type(mech).__name__), "has no exact e^epsilon0 (infinite or irrational)"
        )
    return rows, e


def condition_violation(mech: Randomizer) -> tuple | None:
    """``None`` when the condition holds, else a witness ``(y, x, x0, x1)`` with ``R(x)(y)·(e+1) < R(x0)(y) + R(x1)(y)``.

    Per output column: the smallest entry times ``e + 1`` against the sum of the two largest (from two rows).
    O(k_in · k_out) exact operations.
    """
    rows, e = _exact_matrix(mech)
    for y in range(len(rows[0])):
        col = sorted(((rows[x][y], x) for x in range(len(rows))), key=lambda t: t[0])
        lo, x = col[0]
        (a, x0), (b, x1) = col[-1], col[-2]
        if lo * (e + 1) < a + b:
            return (y, x, x0, x1)
    return None


def check_condition(mech: Randomizer) -> None:
    """Refuse (InvalidArgument naming the witness) a randomizer outside the stronger clones' class.  O(k_in · k_out)."""
    w = condition_violation(mech)
    if w is not None:
        y, x, x0, x1 = w
        raise InvalidArgument(
            "stronger_clones",
            True,
            f"does not apply: output {y} has R({x})({y})·(e^epsilon0 + 1) < R({x0})({y}) + R({x1})({y}), outside the "
            "class where the SODA 2023 stronger clones hold (their erratum)",
            hint="drop the option; the FOCS 2021 clone pair holds for every epsilon0-LDP randomizer",
        )


def stronger_clone_pair(mech: Randomizer, n: int) -> _pairs.ShiftPair:
    """The stronger-clone pair of ``n`` users for ``mech`` after :func:`check_condition`: the binary-RR blanket-view
    pair with the same ``e^{ε0}`` (:func:`blanket.exact.accounting.pairs.dominating_pair`).  O(k_in · k_out)."""
    check_condition(mech)
    _rows, e = _exact_matrix(mech)
    n = arith.integer_in(n, "n", lo=1)
    pr = _pairs.dominating_pair(KRR(2, exp_epsilon0=e), n)
    return dataclasses.replace(pr, kind="stronger-clone", description=DESCRIPTION)
