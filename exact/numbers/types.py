"""The number types the signatures of :mod:`blanket.exact` speak of (types only; nothing here computes).

* :data:`Enclosure` — a certified value: an exact rational (``fmpq``) or a ball (``arb``) that contains the true
  value;
* :data:`NumberInput` — a number as a caller gives it, read exactly by :func:`blanket.exact.numbers.arith.exact`
  (``int``, a decimal or fraction string such as ``"1e-6"`` or ``"1/3"``, ``Fraction``, ``fmpq``, ``fmpz``);
* :data:`NumberOrBall` — the same, or a ball (routines that evaluate at the current precision accept one);
* :data:`IntegerInput` — an integer as a caller gives it (``int``, ``fmpz``, an integral ``fmpq`` or a string),
  read by :func:`blanket.exact.numbers.arith.integer_in`.

and the keyword options the δ(ε)-functions share, as ``TypedDict``s for ``**opts: Unpack[...]`` (a type checker
checks the names and types of the keywords at each call; at run time the function checks the names with
:func:`blanket.exact.numbers.guards.check_options`):

* :class:`At` — where δ(ε) is evaluated: ``epsilon`` or ``exp_epsilon``;
* :class:`DeltaOptions` — that and the binomial engine's accuracy, ``tol`` and ``exact_max_n``;
* :class:`AtMany` — several ε at once: ``epsilons`` or ``exp_epsilons``;
* :class:`ProgressOptions` — :class:`At` and ``progress``; :class:`Execution` — where and how visibly a computation
  in blocks runs: ``workers``, ``scheduler``, ``progress``; :class:`SweepOptions` — :class:`At` and :class:`Execution`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypedDict

from flint import arb, fmpq, fmpz

Enclosure = fmpq | arb
NumberInput = int | str | Fraction | fmpq | fmpz
NumberOrBall = int | str | Fraction | fmpq | fmpz | arb
IntegerInput = int | str | fmpz | fmpq


class At(TypedDict, total=False):
    """Where a δ(ε)-function is evaluated: exactly one of ``epsilon`` (ε ≥ 0) and ``exp_epsilon`` (e^ε ≥ 1).

    Exact inputs give exact results where the routine has an exact route; a ball is accepted and gives a ball.
    Every δ(ε) of an ε0-LDP randomizer is exactly 0 for ε ≥ ε0 (:func:`blanket.exact.mechanisms.finite.delta_query`).
    """

    epsilon: NumberOrBall | None
    exp_epsilon: NumberOrBall | None


class DeltaOptions(At, total=False):
    """:class:`At` and the accuracy of the windowed binomial engine (:mod:`blanket.exact.shuffled.krr`).

    ``tol`` — the certified mass the engine may leave out of its windows (an exact number in (0, 1), added to the
    enclosure's radius; default ``2^-80``, :data:`blanket.exact.shuffled.krr.DEFAULT_TOL`); ``exact_max_n`` — up to this n the engine sums
    every term in exact rationals when the inputs are exact (default :data:`blanket.exact.shuffled.krr.EXACT_MAX_N`).
    """

    tol: NumberInput
    exact_max_n: int


class AtMany(TypedDict, total=False):
    """Several ε at once: exactly one of ``epsilons`` and ``exp_epsilons`` (sequences, as in :class:`At`)."""

    epsilons: Sequence[NumberOrBall] | None
    exp_epsilons: Sequence[NumberOrBall] | None


class ProgressOptions(At, total=False):
    """:class:`At` and ``progress``: show a progress bar (or a :class:`blanket.exact.runtime.progress.Progress`)."""

    progress: Any


class Execution(TypedDict, total=False):
    """Where and how visibly a computation in blocks runs (its result never depends on these).

    ``workers`` — local processes (default: every core); ``scheduler`` — the address of a Dask cluster (default
    ``$BLANKET_SCHEDULER``); ``progress`` — a progress bar (``True``/``False``, or an object with ``update(k)``).
    """

    workers: int | None
    scheduler: Any
    progress: Any


class SweepOptions(At, Execution, total=False):
    """:class:`At` and :class:`Execution`: a sweep over every dataset at one ε."""


__all__ = [
    "At",
    "AtMany",
    "DeltaOptions",
    "Execution",
    "ProgressOptions",
    "SweepOptions",
    "Enclosure",
    "IntegerInput",
    "NumberInput",
    "NumberOrBall",
]
