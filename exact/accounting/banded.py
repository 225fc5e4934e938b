"""Banded garbling of a third-value statistic: a garbling level per band of cells (a lower pair only).

Both k-ary RR (:func:`lumped_banded_pair`) and the frequency oracles
(:func:`blanket.exact.accounting.oracle_lower.third_value_banded_pair`) compose a lower end from the same statistic
of one round on the third-value datasets ``x z^{n−1}`` vs ``x' z^{n−1}``: ``N`` reports in two informative classes
(``x`` and ``x'`` for k-RR), ``K`` of them in the first.  The others land there w.p. ``π_I`` each, half in each
class; the target w.p. ``a`` under both datasets, in the first class w.p. ``u`` (dataset ``x``) or ``1 − u``
(``x'``).  So ``P(N = s) = a·bin(s−1) + b·bin(s)`` (``bin`` the ``Bin(n−1, π_I)`` pmf, ``b = 1 − a``) and
``K | N = s ~ Bin(s−1, ½) + Bern(π(w_s))`` with ``π_P(w) = w·u + (1−w)/2``, ``π_Q(w) = w·(1−u) + (1−w)/2`` and
``w_s = a/(a + b·R_s)``, ``R_s = bin(s)/bin(s−1) = ((n−s)/s)·π_I/(1−π_I)``: ``w_s`` increases with ``s``.

Reflecting ``K → s − K`` w.p. ``θ_s`` with ``1 − 2θ_s = w/w_s`` maps cell ``s`` onto the pair with ``π(w)`` for any
``w ≤ w_s`` (a post-processing: ``s`` is observed).  Cutting the kept cells ``N ≥ m_lo`` into bands and garbling
each band to a level at most the posterior of its own lowest cell is one post-processing of the statistic; the
cells ``N < m_lo`` are dropped (every cell's term ``(P − αQ)_+`` is ≥ 0: a sub-probability, lower side only).  One
level for all cells (the old pairs) is a further garbling of the banded pair, so banding never lowers any
hockey-stick divergence (docs/composition.md §1, "A garbling level per band of cells").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from blanket.exact.accounting import pld as _pld
from blanket.exact.accounting.pairs import ShiftPair, _check_krr, krr_cancellation_bits, lower_rational, lumped_params
from blanket.exact.accounting.pld import PLD
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput
from flint import fmpq

__all__ = ["BANDS", "BandedPair", "band_edges", "band_level", "band_pair", "lumped_banded_pair"]

#: bands of cells of the banded pairs (each garbled to its own level)
BANDS = 24


@dataclass(frozen=True)
class BandedPair:
    """A third-value statistic with a garbling level per band of cells (lower side only): ``parts`` are
    :class:`~blanket.exact.accounting.pairs.ShiftPair` s on disjoint ranges of ``N`` (``outer_mix`` ``m_lo`` and
    ``outer_hi``), each garbled to a level at most the posterior of its own lowest cell.  One post-processing of the
    ``(N, K)`` statistic (``N`` is observed, and each cell ``N = s`` is reflected with its own probability), so a lower
    pair like the one-level pairs."""

    parts: tuple
    kind: str = "dataset"
    description: str = ""

    def atoms(self) -> list:
        """All atoms ``(key, P, Q)`` of every band (keys ``(C, K)``, disjoint across bands).  ``O(n²)`` atoms."""
        return [t for part in self.parts for t in part.atoms()]

    def discretise(self, grid: NumberInput, side: str, *, prec: int = 128) -> PLD:
        """The optimistic (``side="lower"``) PLD on the grid: the sum of the bands' certified lower survival bounds
        (disjoint cells; below a band's first grid point its survival is at least its value there, above its last
        it is ≥ 0), scaled down by the float sum's relative error.  Cost: one survival kernel per band
        (:func:`blanket.exact.accounting.pld.discretise`), ``O(W_C·(W + J))`` float operations in all plus
        ``O(bands·J)`` ball operations for the thresholds."""
        if side != "lower":
            raise InvalidArgument("side", side, "must be 'lower' (a banded pair drops cells: a lower pair only)")
        g = _pld.parse_grid(grid)
        runs = []
        with arith.precision(prec):
            for part in self.parts:
                sv, _js = _pld._survival(part, g, ("lower",), prec)
                assert sv.lower is not None  # the side asked for
                runs.append((sv.j0, sv.lower))
        j0 = min(r[0] for r in runs)
        j1 = max(r[0] + len(r[1]) for r in runs)
        S = np.zeros(j1 - j0)
        for r0, Sr in runs:
            S[: r0 - j0] += Sr[0] if len(Sr) else 0.0  # P(L >= t) >= P(L >= t_{r0}) below the band's range
            S[r0 - j0 : r0 - j0 + len(Sr)] += Sr
        S = np.maximum(S * (1 - 2 * (len(runs) + 2) * _pld.U), 0.0)  # the float sum of len(runs) terms, rounded down
        return _pld.PLD.from_survival(g, j0, S, "lower", prec=prec)


def band_level(n: int, pi_i: Enclosure, a: Enclosure, b: Enclosure, m_lo: int) -> fmpq:
    """An exact dyadic ``w ≤ w_s`` for every ``s ≥ m_lo`` (module docstring: ``a/(a + b·R_{m_lo})`` in ball
    arithmetic, its lower end rounded down to a multiple of ``2⁻⁴⁰``, short rationals keep the kernel's ball work
    cheap); 0 when none is found.  O(1)."""
    rb = arith.ball(fmpq(n - m_lo, m_lo)) * arith.ball(pi_i) / (1 - arith.ball(pi_i))
    wb = arith.ball(a) / (arith.ball(a) + arith.ball(b) * rb)
    w = lower_rational(wb)
    return fmpq(math.floor(float(w) * 2**40) - 1, 2**40) if w > 0 else fmpq(0)


def band_pair(
    n: int,
    pi_i: Enclosure,
    a: Enclosure,
    b: Enclosure,
    u: Enclosure,
    m_lo: int,
    m_hi: int | None,
    w: Enclosure,
    *,
    kind: str,
    description: str,
) -> ShiftPair:
    """The cells ``m_lo ≤ N ≤ m_hi`` (``None``: no upper end) garbled to the level ``w`` (at most ``w_{m_lo}``).
    O(1)."""
    half = fmpq(1, 2)
    return ShiftPair(
        outer_n=n - 1,
        outer_q=pi_i,
        inner_q=None,
        pi_p=w * u + (1 - w) * half,
        pi_q=w * (1 - u) + (1 - w) * half,
        null=fmpq(0),
        kind=kind,
        description=description,
        outer_mix=(a, b, m_lo, fmpq(0)),
        outer_hi=m_hi,
    )


def band_edges(n: int, m_lo: int, mean: float, sd: float, bands: int) -> list[int]:
    """The first cell of each band: ``bands`` equal widths from ``m_lo`` to two standard deviations above the mean of
    ``N`` (the last band open); every band starts at some ``N ≤ n``.  Floats only choose the cut.  O(bands)."""
    top = min(n, max(m_lo + bands, int(math.ceil(mean + 1 + 2 * sd))))
    return sorted({m_lo + (top - m_lo) * i // bands for i in range(bands)})


def banded(
    n: int,
    pi_i: Enclosure,
    a: Enclosure,
    b: Enclosure,
    edges: list[int],
    floor: fmpq,
    make: Callable[[int, int | None, fmpq], ShiftPair],
    bits: int = 0,
) -> list[ShiftPair]:
    """The bands ``[edges[i], edges[i+1] − 1]`` (the last open), band ``i`` garbled to
    ``max(band_level(edges[i]), floor)`` (``floor`` a level valid on every kept cell, e.g. the one-level pair's, so
    that the first band is exactly that pair's); ``make(lo, hi, w)`` builds a band.  Bands without a positive level
    are left out (dropped cells).  ``bits``: :func:`~blanket.exact.numbers.arith.cancellation_bits` of the caller's
    parameters (k-RR at a large ε0: the levels read ``1 − u``), added to the 128 bits.  O(bands)."""
    parts = []
    with arith.precision(128), arith.precision(arith.cancellation_precision(bits)):
        for i, lo in enumerate(edges):
            hi = edges[i + 1] - 1 if i + 1 < len(edges) else None
            w = band_level(n, pi_i, a, b, lo)
            if floor > w:  # a floor valid on every kept cell (<= w_lo <= w_s): exact rationals
                w = floor
            if w > 0:
                parts.append(make(lo, hi, w))
    return parts


def lumped_banded_pair(mech: KRR, n: IntegerInput, bands: int = BANDS) -> BandedPair | ShiftPair:
    """k ≥ 3: :func:`blanket.exact.accounting.pairs.lumped_lower_pair` with a garbling level per band of ``N``.

    The same statistic (every other user on a third value ``z``; ``N = h_x + h_{x'}``, ``A = h_x``), the same kept
    cells ``N ≥ m_lo``, cut into ``bands`` ranges (:func:`band_edges`); band ``i`` is garbled to the larger of its own
    lowest level (:func:`band_level`) and the one-level pair's ``w*``, so the first band is the one-level pair's own
    and every other is garbled less: the one-level pair is a further garbling of this one (never a larger δ).
    ``bands = 1`` (or too small an ``n`` for two bands) gives :func:`~blanket.exact.accounting.pairs.lumped_lower_pair`.
    O(bands).

    Why: ``w*`` sits six standard deviations below the mode of ``N``; at ``n = 10³`` (10-RR, ε0 = 1) it is about
    two thirds of the typical posterior (docs/composition.md §1).
    """
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=2)
    bands = arith.integer_in(bands, "bands", lo=1)
    one, (q, a, b, u, m_lo, w_star, mean, sd) = lumped_params(mech, n)
    if bands == 1:
        return one
    edges = band_edges(n, m_lo, mean, sd, bands)
    if len(edges) < 2:
        return one
    k = mech.k

    def make(lo: int, hi: int | None, w: fmpq) -> ShiftPair:
        band = f"N >= {lo}" if hi is None else f"{lo} <= N <= {hi}"
        return band_pair(n, q, a, b, u, lo, hi, w, kind="dataset-lumped", description=f"{k}-RR third-value band {band}")

    parts = banded(n, q, a, b, edges, w_star, make, bits=krr_cancellation_bits(mech))
    return BandedPair(
        parts=tuple(parts),
        kind="dataset-lumped",
        description=(
            "all other users hold a third value; the counts of x and x' are used, "
            f"garbled per band ({len(parts)} bands of N from {m_lo})"
        ),
    )
