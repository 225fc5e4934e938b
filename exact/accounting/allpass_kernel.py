"""The all-pass step of :mod:`blanket.exact.accounting.curve_steps` compiled with numba, when it is installed.

numba is an *optional* dependency (``pip install 'blanket[fast]'``).  :data:`KERNEL` is ``None`` without it, and
:func:`blanket.exact.accounting.curve_steps.allpass` then uses ``scipy.signal.lfilter``.  With it, :data:`KERNEL`
evaluates, row by row, exactly the two roundings of docs/numerics.md Lemma C2 (iii) in the same order as
``lfilter``'s transposed direct form: ``y_i = fl(fl(ρ x_i) + d_{i−1})``, ``d_i = fl(x_i − fl(ρ y_i))`` from
``d_{−1} = 0``, compiled without fast-math (no reassociation, no contraction into a fused multiply-add), so the
vectors are the same bit for bit (tests/test_curve_steps.py compares them) and the lemma's bound covers them.  Four
rows run interleaved (independent recursions: the order of operations *within* a row is unchanged), which hides the
latency of each row's chain: measured 1.5–1.8 ns per entry against ``lfilter``'s 8 ns (C = 14 rows of W = 9300
and C = 178 of 3000, 2026-11-29), the stepped sweep at n = 10⁵ 7.8 → 4.8 one-core s.

The kernel is compiled when this module is imported (an explicit signature; numba's on-disk cache when one is
writable, about a second otherwise), which :func:`~blanket.exact.accounting.curve_steps.binary_worst_curve_stepped`
does before its pool forks (``preload``), so the workers inherit it.  Complexity O(rows·cols).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

_SIGNATURE = "float64[:, ::1](float64[:, ::1], float64)"


def _rows(X: Any, rho: float) -> Any:  # pragma: no cover - compiled by numba (its Python body is the reference)
    """``Y = Π A_ρ X`` row-wise (the recursion of the module docstring), four rows interleaved."""
    C, W = X.shape
    Y = np.empty_like(X)
    c = 0
    while c + 4 <= C:
        d0 = 0.0
        d1 = 0.0
        d2 = 0.0
        d3 = 0.0
        for i in range(W):
            x0 = X[c, i]
            x1 = X[c + 1, i]
            x2 = X[c + 2, i]
            x3 = X[c + 3, i]
            y0 = rho * x0 + d0
            y1 = rho * x1 + d1
            y2 = rho * x2 + d2
            y3 = rho * x3 + d3
            Y[c, i] = y0
            Y[c + 1, i] = y1
            Y[c + 2, i] = y2
            Y[c + 3, i] = y3
            d0 = x0 - rho * y0
            d1 = x1 - rho * y1
            d2 = x2 - rho * y2
            d3 = x3 - rho * y3
        c += 4
    while c < C:
        d = 0.0
        for i in range(W):
            x = X[c, i]
            y = rho * x + d
            Y[c, i] = y
            d = x - rho * y
        c += 1
    return Y


def _build() -> Callable | None:
    """The compiled :func:`_rows` (numba's cache if it can keep one, else compiled in memory), or ``None`` without
    numba.  O(1) after the first compilation."""
    try:
        numba = importlib.import_module("numba")
    except ImportError:
        return None
    for cache in (True, False):
        try:
            return numba.njit(_SIGNATURE, cache=cache, fastmath=False, nogil=True)(_rows)
        except Exception:  # noqa: BLE001 - no writable cache: compile in memory; anything else: lfilter
            continue
    return None


#: the compiled all-pass step, or ``None`` (numba not installed): see the module docstring
KERNEL: Callable | None = _build()
