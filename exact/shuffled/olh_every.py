"""Local hashing without a stated 3-wise collision: the third-value lower end minimised over every hash family.

A local-hashing record (:class:`blanket.exact.mechanisms.oracles.OLH`) states the pairwise collision
``c = P_h[h(x) = h(x')]`` (the same for every pair) and ``constant``; its 3-wise collision
``t = P_h[h(x) = h(x') = h(z)]`` on a triple of distinct values is optional.  Without it, the family's ``t`` on the
chosen triple ``(x, x', z)`` is unknown, but it lies in the admissible interval :func:`olh_triple_range`
(``max(constant, (3c − 1)/2, 0) ≤ t ≤ c``; ``t = (3c − 1)/2`` when ``g = 2``).  For every ``t`` there, the
third-value pair ``x z^{n−1}`` vs ``x' z^{n−1}`` post-processed to a per-report statistic has the δ of
:func:`blanket.exact.shuffled.oracle_exact.third_value_delta` computed with the triple law at ``t``
(:func:`~blanket.exact.shuffled.oracle_exact.olh_triple_law_at`), so ``min_t δ_t`` is a certified lower bound on the
shuffled mechanism's δ for every family with the record's stated numbers
(:func:`blanket.exact.shuffled.oracle_exact.every_family_delta`; this module holds the admissible interval and
``q(t)``, below the engine's module).

The statistic is the *single-hit* one (``"single-hit"``: a report that hits exactly one of ``x``, ``x'``, ``z``
keeps which one, every other report is one lumped class).  Its law depends on the family only through
``q(t) = P_z(h_x = 1, h_{x'} = 0, h_z = 0) = (1 − 2c + t)·p_l``, non-decreasing in ``t`` (each kept class's mass is
a fixed multiple of ``q`` under every input: ``x`` alone ``(q, e q, q)``, ``x'`` alone ``(q, q, e q)``, ``z`` alone
``(e q, q, q)`` under ``(z, x, x')``), and the experiment at a smaller ``q`` is a garbling of the one at a larger
``q`` (send each single-hit report to the lumped class with probability ``1 − q_1/q_2``: the same kernel for ``x``,
``x'``, ``z``), so by data processing its δ is smallest at the admissible interval's left end ``t_lo``: one engine
call, no search over ``t`` (docs/reference/oracles.md §2 "Without a stated 3-wise collision"; status derived,
checked against explicit families).
"""

from __future__ import annotations

from blanket.exact.mechanisms.oracles import OLH
from blanket.exact.numbers import guards
from blanket.exact.numbers.types import Enclosure
from flint import fmpq

__all__ = ["olh_triple_range", "single_hit_mass"]


def _olh(mech: object) -> OLH:
    return guards.require_instance(mech, OLH, "mech", "must be a local-hashing record (OLH)", shown="kind")


def olh_triple_range(mech: OLH) -> tuple[fmpq, fmpq] | None:
    """``(t_lo, t_hi)``: every 3-wise collision ``t = P_h[h(x) = h(x') = h(z)]`` a family with the record's stated
    ``collision`` ``c`` and ``constant`` can have on a triple of distinct values, or ``None`` (``k < 3``, or no
    family exists).

    The hashed triple is all equal w.p. ``t``, equal on exactly one pair w.p. ``c − t`` each, all distinct w.p.
    ``1 − 3c + 2t`` (inclusion–exclusion), so ``t ≤ c`` and ``t ≥ (3c − 1)/2``; a constant hash is constant on
    the triple, so ``t ≥ constant``; with ``g = 2`` three values never hash to three buckets, so
    ``t = (3c − 1)/2``.  These are the constraints :class:`OLH` puts on a stated ``triple``.  O(1).
    """
    rec = _olh(mech)
    if rec.k < 3:
        return None
    c = rec.collision
    lo = max(rec.constant, (3 * c - 1) / 2, fmpq(0))
    hi = c if rec.g > 2 else (3 * c - 1) / 2
    if lo > hi:
        return None
    return lo, hi


def single_hit_mass(mech: OLH, t: fmpq) -> Enclosure:
    """``q(t) = P_z(h_x = 1, h_{x'} = 0, h_z = 0) = (1 − 2c + t)·p_l`` (``= P_z(0, 1, 0)``): the report ``y`` is
    ``h(x)``'s bucket, which holds neither ``x'`` nor ``z`` (probability ``1 − c − c + t`` by inclusion–exclusion) and
    is not ``h(z)``'s (``p_l``).  ``P_z(0, 0, 1) = e^{ε0} q(t)`` likewise (``h(z)``'s bucket holds neither ``x`` nor
    ``x'``, reported w.p. ``p_h``).  Non-decreasing in ``t``.  O(1)."""
    rec = _olh(mech)
    _ph, pl = rec._pq()
    return (1 - 2 * rec.collision + t) * pl
