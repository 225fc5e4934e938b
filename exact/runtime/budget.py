"""Say up front when the exact worst case cannot finish in reasonable time or memory, instead of starting it.

The exact worst case of binary RR over all datasets (:func:`exact.shuffled.binary.delta_binary_worst`)
sweeps every one of the ``n`` datasets; its cost is estimated by
:func:`estimate_worst_cost` ``(n, ...) -> (seconds, bytes)`` (the sweep's cost model, kept here below the sweep
so that the guard imports nothing above it), or by the coarse model :func:`fallback_cost` (calibrated on
the n^{3/2} sweep: about 5 s at n = 10^4 on one core of the project machine).
:func:`check_worst_case` compares the estimate, spread over the cores that
will run it (local processes or the Dask cluster's workers), with

* the wall-clock limit ``BLANKET_MAX_SECONDS`` (default :data:`DEFAULT_MAX_SECONDS`, one hour), and
* the memory this machine has available (``MemAvailable`` of ``/proc/meminfo``;
  the coordinating process holds the result list whatever executes the blocks),

and raises :class:`TooExpensive` (one line, exit 2 on the command line) naming the
estimate and the options: a Dask cluster (``--scheduler``), the certified
bracket (``--dataset bracket``: worst family / ``c = 0`` below, blanket view above),
or one dataset (``--dataset c=INT``).

>>> s, b = fallback_cost(10**4)
>>> 1 < s < 20 and b < 10**9
True
>>> check_worst_case(10**9, workers=2, max_seconds=3600)   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
blanket.exact.runtime.budget.TooExpensive: the exact worst case over all 1000000000 datasets would take about ...
"""

from __future__ import annotations

import math
import os

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, InvalidArgument
from blanket.exact.numbers.types import NumberOrBall
from flint import arb

#: default wall-clock limit (seconds) for the exact worst case; override with BLANKET_MAX_SECONDS
DEFAULT_MAX_SECONDS = 3600.0
MAX_SECONDS_ENV = "BLANKET_MAX_SECONDS"

#: datasets per block of the worst-case sweep of binary RR (exact.shuffled.binary; fixed, so that results never depend
#: on the executor)
SWEEP_BLOCK = 256


class TooExpensive(BlanketError):
    """A requested computation would not finish in reasonable time or memory (the message names the options)."""


def fallback_cost(n: int) -> tuple:
    """``(seconds on one core, peak bytes)`` of the worst-case sweep at ``n`` (a model, not a measurement).

    O(n^{3/2}) time (``n/64`` blocks, each a windowed convolution of width
    O(√n) plus O(√n) work per dataset), O(n) memory (one enclosure per dataset).
    """
    seconds = 5.0 * (n / 1e4) ** 1.5
    nbytes = 160 * n + 50 * 2**20
    return seconds, nbytes


def estimate_worst_cost(n: int, *, workers: int = 1, epsilon0: NumberOrBall | None = None) -> tuple:
    """``(seconds, bytes)``: an *estimate* of the wall time and peak memory of :func:`exact.shuffled.binary.delta_binary_worst` at
    ``n`` on ``workers`` otherwise idle cores (at 128 bits).  An estimate, not a bound.

    Model with measured constants (CPU time per dataset of :func:`exact.shuffled.binary._sweep_block`,
    tests/benchmarks/bench_binary.py, project machine): ``3.5e-5 + 7.4e-9·W``
    seconds per dataset, ``W = 29·sqrt(n p f) + 10`` the window width (``pf``
    from ``epsilon0`` if given, else 0.2), plus 0.5 s; blocks spread evenly
    over the workers (measured CPU: 0.8 s at n = 10⁴, 6.5 s at 10⁵, ≈ 130 s at
    10⁶; n = 10⁹ would need ≈ 3·10⁶ core-seconds).  On a shared machine the
    wall time is longer by the load factor.  Memory: about 150 bytes per
    dataset (one enclosure) in the calling process plus ~80 MB per process
    and ``2·SWEEP_BLOCK·W`` floats per worker.
    """
    n = arith.integer_in(n, "n", lo=2)
    workers = max(1, int(workers))
    pf = 0.2
    if epsilon0 is not None:
        # an estimate only: a ball's midpoint is as good as an exact value here
        e0 = arith.ball(epsilon0).mid() if isinstance(epsilon0, arb) else arith.exact(epsilon0, "epsilon0")
        e = math.exp(float(e0))
        pf = e / (1 + e) ** 2
    W = 29 * math.sqrt(n * pf) + 10
    per = 3.5e-5 + 7.4e-9 * W
    seconds = 0.5 + n * per / workers
    nbytes = 150 * n + 80 * 2**20 * (1 + workers) + workers * 16 * SWEEP_BLOCK * int(W)
    return seconds, nbytes


def worst_cost(n: int, *, workers: int = 1, epsilon0: NumberOrBall | None = None) -> tuple:
    """``(wall seconds, peak bytes)`` of the exact worst case on ``workers`` cores.

    From :func:`estimate_worst_cost` (``epsilon0``, the local ε0, sets the window width);
    :func:`fallback_cost` is the coarse model for callers without a mechanism.
    """
    s, b = estimate_worst_cost(n, workers=workers, epsilon0=epsilon0)
    return float(s), int(b)


def available_memory() -> int | None:
    """Bytes of memory available to new work on this machine (``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def time_limit() -> float:
    """The wall-clock limit: ``BLANKET_MAX_SECONDS`` if set (a positive number), else one hour."""
    raw = os.environ.get(MAX_SECONDS_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_SECONDS
    try:
        v = float(raw)
    except ValueError:
        v = -1.0
    if not v > 0:
        raise InvalidArgument(MAX_SECONDS_ENV, raw, "must be a positive number of seconds")
    return v


def human_duration(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        return f"{s / 3600:.1f} h"
    if s < 2 * 365 * 86400:
        return f"{s / 86400:.0f} days"
    return f"{s / (365 * 86400):.3g} years"


def human_size(b: float) -> str:
    for unit, f in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20)):
        if b >= f:
            return f"{b / f:.1f} {unit}"
    return f"{b / 1024:.0f} kB"


OPTIONS = (
    "a Dask cluster (--scheduler ADDRESS or BLANKET_SCHEDULER), the certified bracket in seconds "
    "(--dataset bracket: a concrete dataset below, the blanket view above), or one dataset (--dataset c=0)"
)
_CLUSTER = "a Dask cluster (--scheduler ADDRESS or BLANKET_SCHEDULER), "


def check_worst_case(
    n: int,
    *,
    workers: int = 1,
    where: str = "",
    max_seconds: float | None = None,
    memory: int | None = None,
    options: str = OPTIONS,
    epsilon0: NumberOrBall | None = None,
    extra_seconds: float = 0.0,
) -> tuple:
    """Raise :class:`TooExpensive` if the exact worst case at ``n`` on ``workers`` cores exceeds the limits.

    Returns ``(seconds, bytes)`` (the estimate) when it fits.  ``where``
    describes the executor (e.g. ``"on 2 local cores"``); ``max_seconds`` /
    ``memory`` override the limits (tests).  ``extra_seconds``: wall seconds of work the sweep's model does not count (the ball route for datasets the
    float route cannot decide, :func:`exact.shuffled.binary.ball_route_seconds`, already divided by the cores
    where it runs on the executor).
    """
    seconds, nbytes = worst_cost(n, workers=workers, epsilon0=epsilon0)
    seconds += max(0.0, float(extra_seconds))
    # the per-dataset results are gathered in this process whatever executes the blocks: a cluster does not
    # help with memory
    memory_options = (
        options.replace(_CLUSTER, "") + " (a cluster would not help: the per-dataset results are "
        "gathered in this process)"
    )
    return refuse_over_limits(
        seconds,
        nbytes,
        what=f"the exact worst case over all {n} datasets"
        + (" (most of it the ball route: the float route cannot resolve deltas this small)" if extra_seconds else ""),
        where=where or f"on {workers} core{'s' if workers != 1 else ''}",
        options=options,
        memory_options=memory_options,
        max_seconds=max_seconds,
        memory=memory,
    )


def refuse_over_limits(
    seconds: float,
    nbytes: int,
    *,
    what: str,
    where: str,
    options: str,
    memory_options: str | None = None,
    max_seconds: float | None = None,
    memory: int | None = None,
) -> tuple[float, int]:
    """Raise :class:`TooExpensive` when an estimate exceeds the wall-clock limit or 80 % of the available memory.

    ``seconds`` is the estimated wall time ``where`` (e.g. ``"on 2 local cores"``),
    ``nbytes`` the peak memory; the limits are :func:`time_limit` and
    :func:`available_memory` unless ``max_seconds`` / ``memory`` override them
    (tests).  The message reads "``what`` would take about …; not started.
    Options: ``options``" (``memory_options`` instead, when given, if the memory
    is exceeded).  Returns ``(seconds, nbytes)`` when the estimate fits.  O(1).

    >>> refuse_over_limits(10.0, 0, what="x", where="here", options="none", max_seconds=60)
    (10.0, 0)
    """
    limit = max_seconds if max_seconds is not None else time_limit()
    mem = memory if memory is not None else available_memory()
    too_slow = seconds > limit
    too_big = mem is not None and nbytes > 0.8 * mem
    if not (too_slow or too_big):
        return seconds, nbytes
    why = []
    if too_slow:
        why.append(f"about {human_duration(seconds)} {where} (limit {human_duration(limit)}, {MAX_SECONDS_ENV})")
    if too_big:
        why.append(f"about {human_size(nbytes)} of memory ({human_size(mem or 0)} available)")
        if memory_options is not None:
            options = memory_options
    raise TooExpensive(f"{what} would take {' and '.join(why)}; not started. Options: {options}")
