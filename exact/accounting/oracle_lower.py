"""The frequency oracles' composable lower pair: the third-value dataset, post-processed to a :class:`ShiftPair`.

A lower end for ``T`` composed rounds needs a *pair of distributions* that is a post-processing of one round run on
a concrete pair of neighbouring datasets; its ``T``-fold product is then a post-processing of the ``T`` rounds run
on those datasets, so its δ is a certified lower bound on the composed mechanism's (docs/composition.md §"The
oracles' composition lower pair").  The strongest one-round lower end of OUE, SUE, subset selection and Hadamard
response is the third-value family ``x z^{n−1}`` vs ``x' z^{n−1}`` post-processed per report to the four classes of
:func:`blanket.exact.shuffled.oracle_exact.third_value_delta` (``statistic="zero-hit"``).  Its shuffled law is a
multinomial over four classes (three counts), not a :class:`~blanket.exact.accounting.pairs.ShiftPair`.  Two more
post-processings make it one:

1. **Keep the two informative classes only.**  Observe ``N`` = the number of reports in the classes ``(1, 0)`` or
   ``(0, 1)`` and ``K`` = the number in ``(1, 0)``.  The others land there w.p. ``π_I = P_z(1,0) + P_z(0,1)``, each
   class w.p. ½ (the triple law is symmetric in ``h_x, h_x'``); the target lands there w.p. ``a = P_x(1,0) +
   P_x(0,1)`` under both datasets, in ``(1, 0)`` w.p. ``u = P_x(1,0)/a`` under ``x`` and ``1 − u`` under ``x'``.
   So ``P(N = s) = a·bin(s−1) + b·bin(s)`` (``bin`` the pmf of ``Bin(n−1, π_I)``, ``b = 1 − a``) under both, and
   given ``N = s``, ``K = Bin(s−1, ½) + Bern(π(w_s))`` with ``w_s = a·bin(s−1)/P(N = s)`` (the posterior that the
   target is among the ``s``) and ``π_P(w) = w·u + (1−w)/2``, ``π_Q(w) = w·(1−u) + (1−w)/2``.
2. **Garble every cell to one level ``w_lo`` and drop the cells ``N < m_lo``.**  ``bin(s)/bin(s−1) =
   ((n−s)/s)·π_I/(1−π_I)`` decreases in ``s``, so ``w_s`` increases; with ``R = ((n−m_lo)/m_lo)·π_I/(1−π_I)``,
   ``w_lo = a/(a + b·R) ≤ w_s`` for every ``s ≥ m_lo``.  The reflection ``K → s − K`` applied w.p. ``θ_s`` with
   ``1 − 2θ_s = w_lo/w_s`` (it maps ``Bern(π)`` to ``Bern(1 − π)`` and keeps ``Bin(s−1, ½)``) turns the cell's pair
   into the one with ``π(w_lo)``: a post-processing (``s`` is observed).  Dropping cells lowers every hockey-stick
   divergence (each cell's term ``(P − αQ)_+`` is ≥ 0), and the optimistic PLD side handles the sub-probability.

The result is :class:`~blanket.exact.accounting.pairs.ShiftPair` with ``outer_mix = (a, b, m_lo, 0)`` (the same
outer form as the garbled blanket view, here on the lower side only).  Both orders of the datasets give the same
pair up to the relabelling ``x ↔ x'`` of the statistic, so one pair serves both directions.  ``m_lo`` is
:data:`DROP_Z` standard deviations below the mean of ``N``: at ``n = 10⁶`` the garbling costs about 1 % of the
signal; at ``n = 10³`` much more, so the accountant keeps the older lower pair beside it and reports the larger end.

**Bands** (:func:`third_value_banded_pair`, :class:`BandedPair`; what the accountant composes).  Step 2 needs only
``w ≤ w_s`` per cell, so the kept cells are cut into :data:`BANDS` ranges of ``N``, each garbled to the level of its
own lowest cell: one post-processing again, and never weaker than one level (n = 10³, ε0 = 1, T = 365, OUE k = 128:
composed lower end 1.438 → 1.934; docs/composition.md §1).
"""

from __future__ import annotations

import math

from blanket.exact.accounting import banded as _banded
from blanket.exact.accounting.banded import BANDS, BandedPair
from blanket.exact.accounting.pairs import ShiftPair
from blanket.exact.mechanisms.oracles import OLH, FourValue
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import oracle_exact
from flint import fmpq

__all__ = ["BANDS", "DROP_Z", "BandedPair", "third_value_banded_pair", "third_value_lower_pair"]

#: the cells ``N < m_lo`` are dropped, ``m_lo`` this many standard deviations below the mean of ``N`` (left-out mass
#: about ``e^{−DROP_Z²/2} ≈ 2·10⁻¹¹`` per round)
DROP_Z = 7.0


def third_value_lower_pair(mech: FourValue, n: int, statistic: str | None = None) -> ShiftPair | None:
    """The composable lower pair of the module docstring, or ``None`` (no triple law; ``n < 2``; or no informative
    class).  Local hashing without a stated ``triple``: the zero-hit pair at the smallest admissible 3-wise
    collision, valid for every hash family (:func:`_law`); no ``"hits"`` pair.

    ``statistic``: ``"zero-hit"`` or ``"hits"`` (:data:`blanket.exact.shuffled.oracle_exact.THIRD_STATISTICS`), or
    ``None``: the one with the larger signal-to-noise ratio ``(π_P − π_Q)²/E[N]`` (the leading term of the loss's
    variance; it ranked the composed lower ends correctly on OUE, SUE and subset selection at n = 10⁴, 10⁵).
    Either is a valid lower pair; the choice only affects how tight it is.

    A post-processing of one round on ``x z^{n−1}`` vs ``x' z^{n−1}`` (and, relabelled, of the swapped order), so
    the δ of its ``T``-fold product is a certified lower bound on ``T`` rounds.  Exact ``fmpq`` parameters when the
    record is exact; otherwise balls, with ``w_lo`` an exact rational at or below the true level.  O(1).
    """
    if not isinstance(mech, FourValue):
        raise InvalidArgument("mech", mech, "must be one of OUE, SUE, Hadamard, Subset")
    if statistic is None:
        cands = [p for st in oracle_exact.THIRD_STATISTICS if (p := third_value_lower_pair(mech, n, st)) is not None]
        return max(cands, key=_snr) if cands else None
    if statistic not in oracle_exact.THIRD_STATISTICS:
        raise InvalidArgument("statistic", statistic, f"must be one of {', '.join(oracle_exact.THIRD_STATISTICS)}")
    q = _params(mech, n, statistic)
    if q is None:
        return None
    n, pi_i, a, b, u, mean, sd = q
    with arith.precision(128):
        m_lo = max(1, min(n, int(math.floor(mean + 1 - DROP_Z * sd))))
        # R >= bin(s)/bin(s−1) for every s >= m_lo; w_lo = a/(a + b·R) <= w_s, taken as an exact dyadic a little
        # below (short rationals keep the kernel's ball work cheap; any w <= w_s is valid)
        w_lo = _level(n, pi_i, a, b, m_lo)
    if w_lo <= 0:
        return None
    return _band(n, pi_i, a, b, u, m_lo, None, w_lo, _label(mech, statistic))


def _params(mech: FourValue, n: int, statistic: str) -> tuple | None:
    """``(n, π_I, a, b, u, mean, sd)`` of the module docstring (``mean``, ``sd`` floats of ``N − 1``), or ``None``.
    O(1)."""
    n = arith.integer_in(n, "n", lo=1)
    law = _law(mech, statistic)
    if law is None or n < 2:
        return None
    cells = oracle_exact.third_cells(law, mech.exp_epsilon0(), statistic)
    zero = (fmpq(0), fmpq(0), fmpq(0))
    (z10, x10, y10), (z01, x01, y01) = cells.get((1, 0), zero), cells.get((0, 1), zero)
    if oracle_exact.is_exact(z10) and oracle_exact.is_exact(z01) and (z10 != z01 or x10 != y01 or x01 != y10):
        raise AssertionError("the triple law is not symmetric in h_x, h_x'")
    pi_i = z10 + z01
    a = x10 + x01
    if not (arith.ball(pi_i) > 0 and arith.ball(a) > 0):
        return None
    b = 1 - a
    u = x10 / a
    pf = float(arith.ball(pi_i).mid())
    return n, pi_i, a, b, u, (n - 1) * pf, math.sqrt((n - 1) * pf * (1 - pf))


def _law(mech: FourValue, statistic: str) -> dict | None:
    """The triple hit law the pair is built from: the record's own, or, for local hashing without a stated 3-wise
    collision and the zero-hit statistic, the law at the smallest admissible ``t``
    (:func:`blanket.exact.shuffled.olh_every.olh_triple_range`).  The pair keeps only the counts of the classes
    ``(1, 0)`` and ``(0, 1)``, which under ``"zero-hit"`` are the reports hitting ``x`` alone and ``x'`` alone (each
    class's mass a fixed multiple of ``q(t)``, :mod:`blanket.exact.shuffled.olh_every`): their experiment at ``t_lo``
    is a garbling of the one at the family's ``t`` (docs/reference/oracles.md §2 "Without a stated 3-wise
    collision"), so the pair is a post-processing of one round for every hash family with the stated collision.
    Not for ``"hits"`` (its classes take reports hitting z, whose mass falls with ``t``).  O(1)."""
    law = oracle_exact.triple_hit_law(mech)
    if law is None and statistic == "zero-hit" and isinstance(mech, OLH) and mech.triple is None:
        from blanket.exact.shuffled.olh_every import olh_triple_range

        rng = olh_triple_range(mech)
        if rng is not None:
            law = oracle_exact.olh_triple_law_at(mech, rng[0])
    return law


def _label(mech: FourValue, statistic: str) -> str:
    """The statistic's name in a pair's description (every hash family: the ``t`` it is taken at).  O(1)."""
    if statistic == "zero-hit" and isinstance(mech, OLH) and mech.triple is None:
        from blanket.exact.shuffled.olh_every import olh_triple_range

        rng = olh_triple_range(mech)
        if rng is not None:
            return f"zero-hit (every hash family, t = {rng[0]})"
    return statistic


def _level(n: int, pi_i, a, b, m_lo: int) -> fmpq:
    """An exact dyadic ``w ≤ w_s`` for every ``s ≥ m_lo`` (module docstring, step 2; :func:`blanket.exact.accounting.
    banded.band_level`); 0 when none is found.  O(1)."""
    return _banded.band_level(n, pi_i, a, b, m_lo)


def _band(n: int, pi_i, a, b, u, m_lo: int, m_hi: int | None, w_lo: fmpq, statistic: str) -> ShiftPair:
    """The cells ``m_lo ≤ N ≤ m_hi`` (``None``: no upper end) garbled to the level ``w_lo``.  O(1)."""
    band = f"N >= {m_lo}" if m_hi is None else f"{m_lo} <= N <= {m_hi}"
    return _banded.band_pair(
        n,
        pi_i,
        a,
        b,
        u,
        m_lo,
        m_hi,
        w_lo,
        kind="dataset",
        description=(
            f"all other users hold a third value z, reports reduced to the {statistic} classes (1,0)/(0,1), "
            f"garbled to w = {float(w_lo):.4g}, {band}"
        ),
    )


def third_value_banded_pair(
    mech: FourValue, n: int, statistic: str | None = None, bands: int = BANDS
) -> BandedPair | ShiftPair | None:
    """:func:`third_value_lower_pair` with a garbling level per band: the cells ``N ≥ m_lo`` cut into ``bands``
    ranges (equal widths from ``m_lo`` to two standard deviations above the mean of ``N``, the last one open),
    each garbled to its own lowest posterior level ``w`` (module docstring, step 2 per band).  ``bands = 1`` gives
    :func:`third_value_lower_pair`'s pair.  Same statistic choice.  O(bands).

    Why: the one level ``w_lo`` of the lowest kept cell, 7 standard deviations below the mean, costs about half the
    signal at ``n = 10³`` (docs/reference/oracles.md §2, "Banded garbling").
    """
    bands = arith.integer_in(bands, "bands", lo=1)
    one = third_value_lower_pair(mech, n, statistic)
    if one is None or bands == 1:
        return one
    assert one.outer_mix is not None  # the third-value pairs have one
    statistic = "zero-hit" if "zero-hit" in one.description else "hits"
    q = _params(mech, n, statistic)
    assert q is not None  # one exists
    n, pi_i, a, b, u, mean, sd = q
    label = _label(mech, statistic)
    m_lo = int(one.outer_mix[2])
    edges = _banded.band_edges(n, m_lo, mean, sd, bands)
    with arith.precision(128):
        floor = _level(n, pi_i, a, b, m_lo)  # the one-level pair's own level: the first band is that pair

    def make(lo: int, hi: int | None, w: fmpq) -> ShiftPair:
        return _band(n, pi_i, a, b, u, lo, hi, w, label)

    parts = _banded.banded(n, pi_i, a, b, edges, floor, make)
    if not parts:
        return one
    return BandedPair(
        parts=tuple(parts),
        description=(
            f"all other users hold a third value z, reports reduced to the {label} classes (1,0)/(0,1), "
            f"garbled per band ({len(parts)} bands of N from {m_lo})"
        ),
    )


def _snr(pair: ShiftPair) -> float:
    """``(π_P − π_Q)²/E[N]`` (float; only chooses between two valid pairs)."""
    d = float(arith.ball(pair.pi_p - pair.pi_q).mid())
    assert pair.outer_q is not None  # the third-value pairs have a binomial outer law
    return d * d / (float(arith.ball(pair.outer_q).mid()) * pair.outer_n + 1)
