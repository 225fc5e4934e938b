"""A sampled binary RR round's composable lower pair: the worst dataset's whole curve (docs/composition.md §5f, "The
worst dataset's whole curve"; registered ``Sampled binary RR dataset-curve lower pair``; status derived).

One dataset pair ``(P_C, P_{C−1})`` of the round (``C`` ones among the ``n`` users, the target's included; the
release ``(M, K)``) seen through the ROC hull of certified threshold tests of its exact law
(:meth:`blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows.roc_points`): the hull's curve is at most the
pair's ``H_β`` at every ``β ≥ 0``, so the pair Blackwell-dominates it, and ``T`` rounds on that one fixed pair of
datasets (the same ``C`` in every round: one concrete pair of neighbouring ledgers) dominate the ``T``-fold product.
Its composed ``δ`` is therefore a certified lower bound on the composed mechanism's, in both orders (``"backward"``
is the swapped pair: the datasets' other order).  The choice of ``C`` (a float choice, never a bound): the largest
symmetric divergence ``Σ (P − Q) log(P/Q)`` of the pair estimated from the route's binned masses (``C`` and its mirror
``n + 1 − C``), which drives the composed ``ε`` over many rounds; ``C = 1`` at ``q = 1/10``.

It replaces, where the exact worst case is affordable (:func:`blanket.exact.shuffled.sampled_binary.affordable`), the
count of ``x`` reports of the dataset ``C = 1`` (a post-processing of the same pair: never above its whole curve up
to the hull's sampling of thresholds); the summed counts ("low-sum") stay beside it.

Cost: the route's preparation (shared with the round's curve, :func:`~blanket.exact.shuffled.sampled_binary.
sampled_binary_worst`; a sweep more when ``C`` or its mirror is not prepared yet), then ``O(points)`` ball operations
and the exact hull of ``O(points)`` points; memoised per ``(e^{ε0}, q, n)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from blanket.exact.accounting import curves as _curves
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import sampled_binary as _sb

__all__ = ["ROC_POINTS", "curve_lower_pair", "dataset_choice", "dataset_curve_pair"]

#: thresholds (uniform in log r) and P-mass quantiles per side of the ROC points (a choice: more points, a curve
#: closer to the dataset's; n = 1000, q = 1/10: about 2400 distinct points, H within 10⁻¹⁵ of the exact value at α ≤ 1.05)
ROC_POINTS = 4096


def dataset_choice(w: Any) -> int:
    """The ``C`` whose pair ``(P_C, P_{C−1})`` has the largest estimated symmetric divergence ``J_C = Σ (P − Q)·log(P/Q)``
    (a float choice): from the route's binned outward masses (``pbu``, ``qbd``, bins of the float ratio ``≥ 1``) at
    the bins' log-midpoints, ``C``'s bins plus its mirror's (``C' = n + 1 − C``: its ratio-above-1 cells are ``C``'s
    ratio-below-1 cells, with ``P`` and ``Q`` swapped, and ``(P − Q) log(P/Q)`` is symmetric).  O(n·NB)."""
    edges = np.asarray(w.edges, dtype=np.float64)
    lmid = (np.log(edges[:-1]) + np.log(edges[1:])) / 2
    d = (np.asarray(w.pbu) - np.asarray(w.qbd)) @ lmid
    j = d + d[::-1]
    return int(np.argmax(j)) + 1


_MEMO: dict = {}


def dataset_curve_pair(exp_epsilon0: Any, q: Any, n: int, C: int | None = None) -> _curves.FinitePair:
    """The ROC pair of the dataset pair ``(P_C, P_{C−1})`` of the sampled binary RR round (``C`` from
    :func:`dataset_choice` when ``None``): :meth:`~blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows.
    roc_points` of the prepared route (:func:`~blanket.exact.shuffled.sampled_binary.sampled_binary_worst`, ``q < 1``),
    then :func:`~blanket.exact.accounting.curves.pair_from_roc`.  Memoised per ``(e^{ε0}, q, n, C)`` (at most 8).
    Cost: see the module docstring."""
    n = arith.integer_in(n, "n", lo=2)
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    if qq >= 1:
        raise InvalidArgument("q", str(qq), "must be below 1 (the route by rows of M; q = 1 is plain binary RR)")
    with arith.precision(128):
        key = (str(arith.ball(exp_epsilon0)), str(qq), n, C)
    held = _MEMO.get(key)
    if held is None:
        w = _sb.sampled_binary_worst(exp_epsilon0, qq, n)
        c = dataset_choice(w) if C is None else arith.integer_in(C, "C", lo=1, hi=n)
        why = "; the dataset whose pair has the largest divergence" if C is None else ""
        pts = w.roc_points(c, ROC_POINTS)
        held = _curves.pair_from_roc(
            pts,
            description=f"the dataset with C = {c} ones of {n} users vs C - 1 (sampled binary RR, participation "
            f"q = {qq}{why}): ROC hull of {len(pts)} certified threshold tests of its exact law (Lemma S4 by rows)",
        )
        if len(_MEMO) >= 8:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = held
    return held


def curve_lower_pair(exp_epsilon0: Any, q: Any, n: int, direction: str = "forward") -> _curves.FinitePair | None:
    """The round's dataset-curve lower pair (:func:`dataset_curve_pair`; ``"backward"``: swapped), or ``None`` when
    the exact worst case is not affordable at ``(n, q)`` (:func:`~blanket.exact.shuffled.sampled_binary.affordable`)
    or ``q = 1``.  Cost: :func:`dataset_curve_pair` once per ``(e^{ε0}, q, n)``."""
    if direction not in ("forward", "backward"):
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    if qq >= 1 or n < 2 or not _sb.affordable(n, qq):
        return None
    pr = dataset_curve_pair(exp_epsilon0, qq, n)
    return pr if direction == "forward" else _curves.swapped(pr)
