"""A composable lower pair of the truncated geometric mechanism: one dataset pair, its reports counted above a threshold.

Every other user holds ``z ∈ {0, m − 1}``, the differing user holds ``m − 1`` (``P``) or ``0`` (``Q``); the adversary
keeps only ``S``, the number of reports ``≥ s`` (``1 ≤ s ≤ m − 1``).  ``S`` is a function of the shuffled output (a
post-processing of one concrete pair of neighbouring datasets), so ``H_α`` of its law bounds the mechanism's worst-case
``H_α`` from below at every ``α`` (``docs/composition.md`` §5e, "A geometric round's lower pair"; registered
``Geometric threshold-count lower pair``; status derived):

    S ~ Bin(n − 1, q_z) + Bern(q_{m−1})   under P,        S ~ Bin(n − 1, q_z) + Bern(q_0)   under Q,

with ``q_u = P(Y_u ≥ s)`` in closed form (``Y_u = clamp(u + Z, 0, m − 1)``, ``Z`` two-sided geometric):
``q_u = α^{s−u}/(1 + α)`` for ``s > u`` and ``1 − α^{u−s+1}/(1 + α)`` for ``s ≤ u``.  It is the matrix route's
binarized count (:mod:`blanket.exact.accounting.matrix_lower`) for the geometric mechanism's rows, written for every
``m`` and for a ball ``α`` (``ε0`` given instead of ``α``); over ``T`` rounds on the same datasets the sum of the
counts is ``Bin(T(n − 1), q_z) + Bin(T, q_{m−1})`` versus ``Bin(T, q_0)`` (the summed pair, "low-sum").

With Poisson participation ``q`` (each user reports w.p. ``q``; a user who does not report adds nothing to ``S``) the
same statement holds for the sampled randomizer ``R_q`` with every ``q_u`` scaled by ``q`` (``docs/composition.md``
§5f, "A sampled matrix round's lower pair": ``⊥`` is not in the counted set).

The choice of ``(z, s)``: the largest signal ``q·(q_{m−1} − q_0)²/(q_z(1 − q·q_z))`` (the squared mean shift per
standard deviation of one round's count, which drives the composed pair's ε; independent of ``n``).  For a fixed
threshold the pair ``(m − 1, 0)`` maximises ``|q_x − q_{x'}|`` (``q_u`` is non-decreasing in ``u``) and ``z ∈ {0,
m − 1}`` minimises ``q_z(1 − q·q_z)`` (concave in ``q_z``, which is monotone in ``z``), so the choice is the best
signal over every dataset of this form and every threshold set (the upper sets of the likelihood ratio of two rows
are thresholds).  The choice is made in floats; the chosen pair's parameters are exact rationals (``α`` exact) or
balls, and every value computed from them is certified.

The datasets' whole curve (:func:`curve_lower_pair`, session 14): with the others on 0 the ROC hull of certified tests
of ``(m − 1, 0^{n−1})`` vs ``0^n`` (:func:`blanket.exact.shuffled.geometric_dataset.dataset_roc_points`), a pair
Blackwell-dominated by the datasets' (docs/composition.md §5e, "A geometric round's dataset-curve lower pair";
registered ``Continuous dataset-curve lower pair``, stated for any record with a certified lattice lower side): the
round's ``lower_pair`` up to its size limits; the summed counts stay beside it.

Complexity: the choice ``O(m)`` floats; the pair O(1) exact or ball operations; the curve pair two lower-side lattice
sums of ``n`` copies.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from blanket.exact.accounting import curves as _curves
from blanket.exact.accounting import summed_lower
from blanket.exact.accounting.pairs import ShiftPair, count_pair
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, NumberInput
from blanket.exact.shuffled import geometric_dataset as _geo_data
from blanket.exact.shuffled.geometric import count_signal
from flint import ctx, fmpq

__all__ = [
    "GeometricCount",
    "count_probability",
    "curve_lower_cells",
    "curve_lower_pair",
    "curve_window",
    "geometric_choice",
    "shift_pair",
    "summed_pairs",
    "CURVE_MAX_CELLS",
]

#: the dataset-curve lower pair (:func:`curve_lower_pair`) is used when its lattice window (float estimate,
#: :func:`curve_window`) has at most this many cells, and ``n`` is at most ``geometric_dataset.FULL_VIEW_MAX_N``;
#: else the threshold count alone
CURVE_MAX_CELLS = 4_000_000


@dataclass(frozen=True)
class GeometricCount:
    """The chosen dataset and statistic: others hold ``z``, the target ``m − 1`` versus ``0``, ``S`` = the number of
    reports ``≥ s``; ``q`` the participation (1: every user reports)."""

    m: int
    z: int
    s: int
    q: fmpq

    def describe(self, n: int | None = None) -> str:
        """The dataset and the statistic, in words.  O(1)."""
        who = "all other users" if n is None else f"all other {n - 1} users"
        part = "" if self.q == 1 else f", participation q = {self.q}"
        return (
            f"{who} hold {self.z}; the differing user holds {self.m - 1} versus 0{part}; only the number of "
            f"reports >= {self.s} is kept"
        )


def _check(mech: object) -> Geometric:
    guards.require_instance(
        mech, Geometric, "mech", "must be a Geometric record (exact.mechanisms.oracles.Geometric)", shown="kind"
    )
    assert isinstance(mech, Geometric)
    return mech


def _participation(q: NumberInput | None) -> fmpq:
    if q is None:
        return fmpq(1)
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    return qq if isinstance(qq, fmpq) else fmpq(qq)


def count_probability(mech: Geometric, u: int, s: int) -> Enclosure:
    """``P(Y_u ≥ s)`` for ``1 ≤ s ≤ m − 1`` in closed form (exact for an exact ``α``, else a ball).  O(log m)."""
    mech = _check(mech)
    if not (isinstance(s, int) and 1 <= s <= mech.m - 1):
        raise InvalidArgument("s", s, f"must be a threshold in 1..{mech.m - 1}")
    if not (isinstance(u, int) and 0 <= u <= mech.m - 1):
        raise InvalidArgument("u", u, f"must be an input value in 0..{mech.m - 1}")
    a = mech.alpha
    if s > u:
        return a ** (s - u) / (1 + a)
    return 1 - a ** (u - s + 1) / (1 + a)


def geometric_choice(mech: Geometric, q: NumberInput | None = None) -> GeometricCount:
    """The ``(z, s)`` of largest signal (module docstring) for participation ``q`` (``None``: 1).  A choice only (every
    candidate gives a valid lower pair).  O(m) floats."""
    mech = _check(mech)
    qq = _participation(q)
    qf = float(qq)
    m = mech.m
    af = float(arith.ball(mech.alpha).mid())
    best, best_v = None, -math.inf
    for z in (0, m - 1):
        for s in range(1, m):
            sig = count_signal(af, m, z, s, qf)
            if sig > best_v:
                best, best_v = (z, s), sig
    assert best is not None
    return GeometricCount(m, best[0], best[1], qq)


def _params(mech: Geometric, c: GeometricCount) -> tuple:
    """``(q·q_z, q·q_{m−1}, q·q_0, 1 − q·q_z, 1 − q·q_{m−1}, 1 − q·q_0)`` (exact, or balls with ``log2(1/q)`` extra
    bits so that the complements keep the small probabilities' digits).  O(log m)."""
    qq = c.q
    extra = max(0, int(qq.q).bit_length() - int(qq.p).bit_length() + 1)
    with arith.precision(max(ctx.prec, 64) + extra):
        qz = qq * count_probability(mech, c.z, c.s)
        qx = qq * count_probability(mech, mech.m - 1, c.s)
        qx2 = qq * count_probability(mech, 0, c.s)
        return qz, qx, qx2, 1 - qz, 1 - qx, 1 - qx2


def shift_pair(
    mech: Geometric,
    n: int,
    direction: str = "forward",
    q: NumberInput | None = None,
    *,
    choice: GeometricCount | None = None,
) -> ShiftPair:
    """One round's pair as a :class:`~blanket.exact.accounting.pairs.ShiftPair` (``outer_q = None``): ``"forward"``
    ``(P, Q)`` with ``S``; ``"backward"`` ``(Q, P)`` written with ``n − S`` (the loss again non-decreasing in the
    count).  ``q``: Poisson participation.  ``choice``: a :class:`GeometricCount` (default :func:`geometric_choice`).
    O(m) for the choice, O(1) for the pair."""
    mech = _check(mech)
    n = arith.integer_in(n, "n", lo=1)
    c = geometric_choice(mech, q) if choice is None else choice
    qz, qx, qx2, nz, nx, nx2 = _params(mech, c)
    return count_pair(
        n, qz, qx, qx2, direction, kind="dataset-threshold", description=c.describe(), complements=(nz, nx, nx2)
    )


def summed_pairs(mech: Geometric, choice: GeometricCount, others: int, rounds: int) -> list[summed_lower.SummedPair]:
    """Both orders of the sum of the kept counts over ``rounds`` rounds of ``mech`` on the chosen datasets, ``others``
    other users' reports in all (``Σ count·(n − 1)``): :class:`~blanket.exact.accounting.summed_lower.SummedPair` s
    (forward: ``S``; backward: the reports below the threshold counted).  O(1)."""
    mech = _check(mech)
    qz, qx, qx2, nz, nx, nx2 = _params(mech, choice)
    base = f"geometric rounds (m = {mech.m}): {choice.describe()}; the sum of the counts ({rounds} rounds, {others} other users)"
    return [
        summed_lower.SummedPair(others, rounds, qz, qx, qx2, base + ", forward"),
        summed_lower.SummedPair(others, rounds, nz, nx2, nx, base + ", backward (the reports below the threshold)"),
    ]


def curve_window(mech: Geometric, n: int) -> float:
    """A float estimate (a choice only) of the cells of the dataset-curve pair's lattice window: ``40·σ·√n/h`` with
    ``σ`` the standard deviation of ``r(Y) = R_{m−1}(Y)/R_0(Y)``, ``Y ~ R_0``, and ``h`` the step
    :func:`~blanket.exact.shuffled.geometric_dataset.default_step`.  O(m) floats."""
    mech = _check(mech)
    n = arith.integer_in(n, "n", lo=1)
    rows = [[float(arith.ball(v).mid()) for v in row] for row in mech.rows()]
    r0, r1 = rows[0], rows[-1]
    var = sum(a * (b / a - 1) ** 2 for a, b in zip(r0, r1) if a > 0)
    h = _geo_data.default_step(n)
    return 40 * math.sqrt(var * n) / (float(h.p) / float(h.q)) + 1


def curve_lower_cells(mech: Geometric, n: int) -> float | None:
    """The lattice window (:func:`curve_window`, cells) of the round's dataset-curve lower pair when
    :func:`curve_lower_pair` builds one (``2 ≤ n ≤ FULL_VIEW_MAX_N`` and the window at most :data:`CURVE_MAX_CELLS`),
    else ``None``: the input of its cost model (:func:`blanket.exact.accounting.composition_cost.
    geometric_curve_seconds`).  O(m) floats."""
    mech = _check(mech)
    n = arith.integer_in(n, "n", lo=1)
    if n < 2 or n > _geo_data.FULL_VIEW_MAX_N:
        return None
    cells = curve_window(mech, n)
    return None if cells > CURVE_MAX_CELLS else cells


@functools.lru_cache(maxsize=32)
def _curve_pair(mech: Geometric, n: int) -> _curves.FinitePair:
    h = _geo_data.default_step(n)
    pts = _geo_data.dataset_roc_points(mech, n, h=h)
    return _curves.pair_from_roc(
        pts,
        description=f"datasets 0^n vs (m-1) 0^(n-1) (geometric, m = {mech.m}, n = {n}): ROC hull of {len(pts)} "
        f"certified tests of their exact lattice law (lattice step {h})",
    )


def curve_lower_pair(mech: Geometric, n: int, direction: str = "forward") -> _curves.FinitePair | None:
    """One geometric round's dataset-curve lower pair: the datasets ``(m−1, 0^{n−1})`` vs ``0^n`` through the ROC hull
    of certified tests of their whole privacy curve
    (:func:`blanket.exact.shuffled.geometric_dataset.dataset_roc_points`; Blackwell-dominated by the datasets' pair,
    so its composition is a lower bound: docs/composition.md §5e, "A geometric round's dataset-curve lower pair").
    ``"forward"``: ``(P, Q) = ((m−1, 0^{n−1}), 0^n)``, ``"backward"`` the swapped pair.  ``None`` when ``n`` exceeds
    ``FULL_VIEW_MAX_N`` or the window (:func:`curve_window`) exceeds :data:`CURVE_MAX_CELLS` (the threshold count is
    then the round's lower pair).  Cost: two lower-side lattice sums of ``n`` copies, once per ``(mech, n)``."""
    mech = _check(mech)
    n = arith.integer_in(n, "n", lo=2)
    if direction not in ("forward", "backward"):
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    if curve_lower_cells(mech, n) is None:
        return None
    pr = _curve_pair(mech, n)
    return pr if direction == "forward" else _curves.swapped(pr)
