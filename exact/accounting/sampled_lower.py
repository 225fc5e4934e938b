"""Third-value lower pairs of sampled rounds: the banded third-value statistic of ``R_q`` (a lower pair only).

A sampled round (participation ``q``) is the shuffle of ``R_q = (1 − q)·⊥ + q·R`` (Lemma S0, ``docs/composition.md``
§5f).  Run it on the third-value datasets ``x z^{n−1}`` vs ``x' z^{n−1}`` and keep the statistic of
:mod:`blanket.exact.accounting.banded`: ``N`` reports in the two informative classes (``x`` and ``x'`` for k-RR; the
classes ``(1, 0)``/``(0, 1)`` of a frequency oracle's triple law) and ``K`` of them in the first.  ``⊥`` belongs to
neither class, so each user's ``R_q`` lands in a class w.p. ``q`` times ``R``'s: the statistic is the unsampled one
with ``π_I → q·π_I`` (the others), ``a → q·a`` (the target), ``b = 1 − q·a``, ``u`` unchanged (Lemma S5, §5f,
status derived).  The banded garbling then applies word for word (its argument uses only ``a + b = 1``, the
others' classes each w.p. ``π_I/2``, and the target's ``u``), so the result is a post-processing of one sampled round
on a concrete dataset pair: its ``T``-fold product's δ is a certified lower bound on ``T`` sampled rounds.

Members: k-ary RR with ``k ≥ 3`` (:func:`krr_third_pair`), ``ldp`` through 3-ary RR with the same ε0 (one member of
the class, as the unsampled ``ldp`` lower end), and the four-value frequency oracles with a triple hit law
(:func:`four_value_third_pair`); for the oracles also the two-stratum count ``D = Σ y(report)`` of
:mod:`blanket.exact.accounting.stratum_lower` with ``y(⊥) = 0`` (:func:`four_value_stratum_pair`): a sum over the
multiset of reports, so again a post-processing of one sampled round; the law of ``y`` under ``R_q`` is ``q`` times
``R``'s plus ``1 − q`` at ``y = 0``.
"""

from __future__ import annotations

import math
from typing import Any

from blanket.exact.accounting import banded as _banded
from blanket.exact.accounting import oracle_lower as _oracle_lower
from blanket.exact.accounting import stratum_lower as _stratum
from blanket.exact.accounting.banded import BandedPair
from blanket.exact.accounting.pairs import ShiftPair, _krr_params
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import FourValue, cancellation_bits, cancellation_precision
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import ctx, fmpq

__all__ = ["DROP_Z", "four_value_stratum_pair", "four_value_third_pair", "krr_third_pair", "scaled_third_pair"]

#: the cells ``N < m_lo`` are dropped, ``m_lo`` this many standard deviations below the mean of ``N``
DROP_Z = _oracle_lower.DROP_Z


def _extra_bits(q: fmpq) -> int:
    """Bits beyond the working precision that keep ``q·a``'s digits in ``1 − q·a`` when ``q`` is tiny:
    :func:`~blanket.exact.numbers.arith.cancellation_bits` of ``1/q`` (``⌈log2(1/q)⌉ + 1`` from ``q ≤ 2^{−20}``, else
    0).  O(1)."""
    return arith.cancellation_bits(1 / q)


def scaled_third_pair(
    n: int,
    pi_i: Any,
    a: Any,
    u: Any,
    q: fmpq,
    *,
    label: str,
    bands: int = _banded.BANDS,
) -> tuple[ShiftPair, BandedPair | ShiftPair] | None:
    """``(one level, banded)``: the third-value statistic of a randomizer whose ``(π_I, a, u)`` are given, sampled
    with participation ``q`` (module docstring), garbled to one level and per band; ``None`` when no positive level
    is found.  ``pi_i``, ``a``, ``u`` exact rationals or balls.  O(bands)."""
    n = arith.integer_in(n, "n", lo=2)
    with arith.precision(max(ctx.prec, 128) + _extra_bits(q)):
        pq, aq = q * pi_i, q * a
        bq = 1 - aq
        pf = float(arith.ball(pq).mid())
        mean, sd = (n - 1) * pf, math.sqrt((n - 1) * pf * (1 - pf))
        m_lo = max(1, min(n, int(math.floor(mean + 1 - DROP_Z * sd))))
        floor = _banded.band_level(n, pq, aq, bq, m_lo)
    if floor <= 0:
        return None

    def make(lo: int, hi: int | None, w: fmpq) -> ShiftPair:
        band = f"N >= {lo}" if hi is None else f"{lo} <= N <= {hi}"
        return _banded.band_pair(
            n,
            pq,
            aq,
            bq,
            u,
            lo,
            hi,
            w,
            kind="dataset",
            description=f"{label}, participation q = {q}; garbled to w = {float(w):.4g}, {band}",
        )

    one = make(m_lo, None, floor)
    if bands == 1:
        return one, one
    edges = _banded.band_edges(n, m_lo, mean, sd, bands)
    parts = _banded.banded(n, pq, aq, bq, edges, floor, make) if len(edges) > 1 else []
    if not parts:
        return one, one
    return one, BandedPair(
        parts=tuple(parts),
        description=f"{label}, participation q = {q}; garbled per band ({len(parts)} bands of N from {m_lo})",
    )


def krr_third_pair(mech: KRR, n: int, q: fmpq, bands: int = _banded.BANDS) -> tuple | None:
    """k-ary RR (``k ≥ 3``) sampled with participation ``q``: every other user holds a third value ``z``, the
    target ``x`` vs ``x'``; the counts of ``x`` and ``x'`` reports (``π_I = 2f``, ``a = p + f``, ``u = p/(p + f)``
    before sampling).  ``(one level, banded)`` of :func:`scaled_third_pair`, or ``None`` for ``k = 2``.  O(bands)."""
    if not isinstance(mech, KRR):
        raise InvalidArgument("mechanism", mech, "must be k-ary randomized response")
    if mech.k < 3:
        return None
    with arith.precision(max(ctx.prec, 128)):
        _e, f, p = _krr_params(mech)
        pi_i, a = 2 * f, p + f
        u = p / a
    label = f"all other users hold a third value; {mech.k}-RR's counts of x and x' (bottom: neither)"
    return scaled_third_pair(n, pi_i, a, u, q, label=label, bands=bands)


def four_value_third_pair(mech: FourValue, n: int, q: fmpq, bands: int = _banded.BANDS) -> tuple | None:
    """A four-value frequency oracle with a triple hit law (:func:`blanket.exact.accounting.oracle_lower.
    third_value_lower_pair`'s statistic, its classes ``(1,0)``/``(0,1)``) sampled with participation ``q``; the
    statistic (zero-hit or hits) with the larger signal-to-noise ratio of the one-level pair.  ``(one level,
    banded)`` or ``None`` (no triple law, ``n < 2``, no informative class).  O(bands)."""
    if not isinstance(mech, FourValue):
        raise InvalidArgument("mech", mech, "must be one of OUE, SUE, Hadamard, Subset, OLH")
    cands = []
    # (π_I, a, u) and the pair keep e^{−ε0}-size digits at a large ε0 (SUE k = 3, n = 4, q = 1/2, ε0 = 40: the loss
    # range was NaN at 128 bits)
    with arith.precision(cancellation_precision(mech)):
        for st in _oracle_lower.oracle_exact.THIRD_STATISTICS:
            prm = _oracle_lower._params(mech, n, st)
            if prm is None:
                continue
            n_, pi_i, a, _b, u, _mean, _sd = prm
            label = (
                f"all other users hold a third value z, reports reduced to the {_oracle_lower._label(mech, st)} "
                "classes (1,0)/(0,1) (bottom: neither)"
            )
            got = scaled_third_pair(n_, pi_i, a, u, q, label=label, bands=bands)
            if got is not None:
                cands.append(got)
    return max(cands, key=lambda c: _oracle_lower._snr(c[0])) if cands else None


def four_value_stratum_pair(mech: FourValue, n: int, q: fmpq) -> _stratum.StratumPair | None:
    """The oracles' two-stratum count (:func:`blanket.exact.accounting.stratum_lower.two_stratum_pair`, the same
    weights: the efficiency ``(E_x y − E_{x'} y)²/E_z y²`` is ``q`` times the plain one for every weight, so its argmax
    is the plain one's) of a round sampled with participation ``q``: ``y(⊥) = 0``, so each report law is ``q`` times
    ``R``'s plus ``1 − q`` at ``y = 0`` (module docstring).  Windows sized by the plain law's standard deviation
    (:attr:`~blanket.exact.accounting.stratum_lower.StratumPair.window_sd1`).  ``None`` without a triple law, for
    ``n < 2`` or without signal.  O(1) (the law is computed when the pair is discretised)."""
    if not isinstance(mech, FourValue):
        raise InvalidArgument("mech", mech, "must be one of OUE, SUE, Hadamard, Subset, OLH")
    n = arith.integer_in(n, "n", lo=1)
    if n < 2:
        return None
    weights = _stratum.stratum_weights(mech)
    if weights is None:
        return None
    w0, w1 = weights
    extra = cancellation_bits(mech)
    with arith.precision(_stratum.PREC + _extra_bits(q) + extra):
        cls = _stratum._classes(mech, w0, w1)
        if cls is None:
            return None
        sd1 = math.sqrt(max(sum(y * y * float(arith.ball(v[0]).mid()) for y, v in cls.items()), 0.0))
        out = {y: (q * z, q * x, q * x2) for y, (z, x, x2) in cls.items()}
        z0, x0, y0 = out.get(0, (fmpq(0), fmpq(0), fmpq(0)))
        out[0] = (z0 + (1 - q), x0 + (1 - q), y0 + (1 - q))
    return _stratum.StratumPair(
        n=n,
        w0=w0,
        w1=w1,
        classes=out,
        description=(
            f"all other users hold a third value z, reports counted as {w0}·(h_x − h_x') when h_z = 0 and "
            f"{w1}·(h_x − h_x') when h_z = 1, no report 0 (two-stratum count, participation q = {q})"
        ),
        window_sd1=sd1,
        extra_prec=extra,
    )
