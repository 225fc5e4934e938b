"""Curve pairs for every shuffled randomizer: the hull of the best certified upper values of the privacy curve.

For a shuffled round of a randomizer ``mech`` with ``n`` users, the worst-case privacy curve
``E(α) = sup H_α(M(D)‖M(D'))`` is bounded above at each ``α = e^ε ≥ 1`` by every certified upper bound on δ(ε)
that applies to ``mech`` (each one is valid for every pair of neighbouring datasets and both orders).  At each grid
point ``α_j`` the smallest certified upper end of the available sources is taken, and the greatest convex minorant of
those points (with ``(0, 1)``, the reflections and ``(α_max, 0)``, :func:`blanket.exact.accounting.curves.pair_from_values`)
is the curve of a finite pair that dominates the round at every ``α`` (``docs/composition.md`` §5d, §5e).

Sources (:func:`curve_sources`):

* k-RR, ``k ≥ 3``: the exact Lemma 5.3 blanket view (:func:`blanket.exact.shuffled.krr.delta_blanket_view`); the
  accountant's garbled / split pair is itself a post-processing-dominating relaxation of that view, so it is never
  below it (it stays in the accountant's min as a separately composed route).
* the four-value frequency oracles (``oue``, ``sue``, ``olh``, ``hadamard``, ``subset``): the fast blanket view's
  certified upper end (:func:`blanket.exact.shuffled.oracles.blanket_view_upper`) and the FOCS 2021 clone pair's
  ``H_α`` (:func:`blanket.exact.shuffled.oracles.clone_delta`);
* the clamped geometric mechanism: the dominating-law bound (:func:`blanket.exact.shuffled.geometric.geometric_upper`)
  and the clone pair;
* ``ldp`` (known only by ε0) and any other randomizer: no curve (``ldp``'s pair is Lemma G1's, whose hull would only
  add chords; the accountant keeps it);
* ``stronger_clones=True`` (a randomizer checked to satisfy the SODA 2023 condition,
  :func:`blanket.exact.accounting.stronger_clones.check_condition`): the stronger-clone pair, which is the blanket
  view of binary RR with the same ε0;
* a randomizer given by its exact matrix (``type = "matrix"``, one randomizer run by every user, as its one-round
  certificate assumes): its own Lemma 5.3 blanket view (:func:`blanket.exact.shuffled.matrix_view.matrix_blanket_view`;
  spread to three atoms at every n, and on four atoms, Lemma 5.3's value for three outputs, up to
  :data:`MATRIX_FOUR_MAX_N` users), Lemma G1 when ``same_randomizer`` is stated, the stronger clones when
  ``stronger_clones`` is, and the clone pair (``docs/composition.md`` §5e, "The matrix randomizer").

The grid is adaptive (:func:`curve_values`): a few points geometric in ε up to where the cheapest source's δ is
below :data:`NEGLIGIBLE_DELTA` (from :data:`JENSEN_MIN_N` users for k-RR and the oracles, :data:`UPWARD_TOP_MIN_N`
for the others: :data:`LARGE_N_TOP_DELTA`, searched upwards from ``ε0/1024``), then bisection in ε of every interval where the chord lies above the value at the
midpoint by more than ``rtol`` (relative) — dense where the curve bends — within a budget of evaluations; a query
(δ over T rounds) adds at most :data:`TARGET_POINTS` more where the curve's values lie in its band
(:func:`query_band`, the accountant's ``get_epsilon``), where the base grid's chords are long at small δ.  Every
grid is valid; the grid only decides how close the hull comes to the sources' minimum.  Results are memoised per
(randomizer, n, options, band), the base grid's evaluations per (randomizer, n, options).

Complexity: ``points`` evaluations of each source plus the O(m log m) exact hull.  From :data:`JENSEN_MIN_N` users
the blanket views run the engine's ``"1d-jensen"`` route, O(√n) ball operations per evaluation (10-RR, ε0 = 1: about
0.01 one-core s per point at n = 10³, 0.02 s at 10⁴, 0.2-0.3 s at 10⁶; the oracles about twice that; below
:data:`JENSEN_MIN_N` the grid route, O(n) per evaluation; :func:`point_seconds` is the cost model).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from blanket.exact.accounting import curves as _curves
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer, finite_exp_epsilon0
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.runtime.progress import Progress
from blanket.exact.shuffled import geometric, matrix_view, oracle_exact, sampled_binary
from blanket.exact.shuffled import oracles as fast_oracles
from blanket.exact.shuffled.generic_ldp import same_randomizer_delta
from blanket.exact.shuffled.krr import GRID_MAX_N, delta_blanket_view
from flint import fmpq

__all__ = [
    "NEGLIGIBLE_DELTA",
    "CURVE_TOL",
    "CurveValues",
    "curve_sources",
    "curve_values",
    "curve_pair",
    "curve_seconds",
    "has_curve",
    "point_seconds",
    "query_band",
]

#: the curve's grid does not go beyond the ε where the cheapest source's certified δ is below this (one constant
#: for every curve grid: binary RR's, :data:`blanket.exact.accounting.curves.NEGLIGIBLE_DELTA`, 10⁻³⁰)
NEGLIGIBLE_DELTA = _curves.NEGLIGIBLE_DELTA
#: the engines' window tolerance for the curve's values (their enclosures' widths are about this, absolute)
CURVE_TOL = fmpq(1, 2**64)
#: refinement: an interval is split when its chord at the midpoint exceeds the value there by more than
#: ``RTOL·value + ATOL``
RTOL = fmpq(1, 500)
ATOL = fmpq(1, 10**15)
#: evaluations of the grid (per source) at most
MAX_POINTS = 48
#: from this many users on, the blanket views run the engine's ``"1d-jensen"`` route (no blocks of the weak count;
#: O(√n) per point: 10-RR, ε0 = 1, about 0.01-0.02 s per point at n = 10³-10⁴ where the grid route took 0.06-0.26 s,
#: and the grid's top searched upwards, :func:`_eps_top_doubling`).  Below it the grid route (exact enclosures): at
#: n = 200-500 the Jensen route's wider enclosures cost 0.1-0.7 % of a one-round ε; from 10³ users the composed ε is
#: the same or smaller (docs/composition.md §5e, "The mid range"); the curve needs 1e-3 relative only
JENSEN_MIN_N = 1000
#: a matrix randomizer's four-atom blanket view is a curve source up to this many users (its engine's weak count is not
#: weak for a general matrix: seconds per point above 10^3 users, 3-5 s per point at 10^5 and 5-16 s at 10^6 for a
#: 3 x 3 matrix); the three-atom spread (degenerate weak count, about 1 s per point at 10^6) is a source at every n
MATRIX_FOUR_MAX_N = 20000
#: up to this many users the matrix's four-atom view runs the engine's automatic route (the grid: exact enclosures,
#: about 0.4 s per point at 10^3 users), above it the one-dimensional route (0.1-1.5 % wide, about 1 s per point at
#: 10^4)
MATRIX_GRID_MAX_N = 1000


#: the grid's top is searched upwards (:func:`_eps_top_doubling`) from :data:`JENSEN_MIN_N` users for the randomizers
#: whose sources run the Jensen route there (k-RR, the four-value oracles: :func:`_jensen_sources`), from this many
#: users for the others (the matrix, geometric and stronger-clone sources; their grid is as before task midcurve11)
UPWARD_TOP_MIN_N = 10**5


def _jensen_sources(mech: Randomizer) -> bool:
    """Whether ``mech``'s blanket-view source runs :func:`_engine`'s route (k-RR and the four-value oracles, not a
    matrix randomizer).  O(1)."""
    return not matrix_view.is_matrix(mech) and isinstance(mech, (KRR, oracles.FourValue))


#: the four-value oracles' blanket view (two engine calls a point) runs the Jensen route from JENSEN_MIN_N users only
#: where the informative count's standard deviation ``sd = √(n·π_s(1−π_s))`` (:func:`point_seconds`) is at least this,
#: and from JENSEN_SD_MAX_N users whatever it is; below, the grid route (exact enclosures on the same grid points and
#: the same upward top, so never looser) is tighter by about 0.35 % or more, worth its cost (task grid12, OUE k = 128,
#: δ = 10⁻⁶, T = 10, composed upper end Jensen → grid, CPU s of the query: ε0 = 2, n = 10³ (sd 10.3) 0.940833 →
#: 0.934938 (−0.63 %, 1.4 → 5.2 s), n = 1750 (sd 13.6) 0.693477 → 0.691068 (−0.35 %), n = 2000 (sd 14.5) 0.645181 →
#: 0.643264 (−0.30 %, 1.9 → 6.5 s); ε0 = 3, n = 2000 (sd 9.5) −0.47 %; ε0 = 1, n = 10³ (sd 14.0) 0.353259 → 0.352693
#: (−0.16 %, 1.7 → 7.1 s: left on the Jensen route), n = 2000 (sd 19.8) −0.08 % for 2.2 → 12.5 s).  k-RR keeps
#: JENSEN_MIN_N (10-RR, ε0 = 1,
#: n = 10³, sd 11.9: −0.02 to −0.03 % for 3.5 times the curve's cost)
JENSEN_MIN_SD_ORACLE = 13.5
#: ... the grid route up to this many users at most (linear in n: about 0.3 s a point for an oracle at 2000)
JENSEN_SD_MAX_N = 2000


def jensen_min_n(mech: Randomizer | None = None) -> int:
    """The users from which ``mech``'s blanket-view source runs the Jensen route (:func:`_engine`):
    :data:`JENSEN_MIN_N`, and for a four-value oracle the first ``n`` whose informative count's sd reaches
    :data:`JENSEN_MIN_SD_ORACLE`, at most :data:`JENSEN_SD_MAX_N`.  A choice of route (floats), never a bound.  O(1)."""
    if mech is None or not isinstance(mech, oracles.FourValue) or matrix_view.is_matrix(mech):
        return JENSEN_MIN_N
    ps = 2 * float(arith.ball(mech.gamma() * mech.l_probs()[1]).mid())
    var = ps * (1 - ps)
    need = math.ceil(JENSEN_MIN_SD_ORACLE**2 / var) if var > 0 else JENSEN_SD_MAX_N
    return max(JENSEN_MIN_N, min(need, JENSEN_SD_MAX_N))


def _engine(n: int, mech: Randomizer | None = None) -> str | None:
    """The engine route of ``mech``'s blanket-view source at ``n`` users (see :func:`jensen_min_n`)."""
    return "1d-jensen" if n >= jensen_min_n(mech) else None


#: cost model of one engine call (one-core seconds; measured on the shared 2-core machine at load 7-9, 10-RR and
#: OUE k = 128, ε0 = 1, n = 200..10⁸, 29 Nov 2026, docs/composition.md §5e "The mid range"): the one-dimensional
#: Jensen route a fixed part (its tails' initialisation, windows) plus a part per standard deviation of the
#: informative count (10-RR per point: 0.0075 s at n = 10³, 0.022 s at 10⁴, 0.055 s at 10⁵, 0.17-0.3 s at 10⁶,
#: 0.65-0.9 s at 10⁷, 2-2.6 s at 10⁸), the blocked route about 10x that per sd (used by the curve only when
#: ``JENSEN_MIN_N`` is raised above ``GRID_MAX_N``), the grid route per user (0.0125 s per point at n = 200,
#: 0.07 s at 10³).  It chooses a route, it is never a bound.
SECONDS_PER_CALL_JENSEN = 5e-3
SECONDS_PER_SD_JENSEN = 6e-4
SECONDS_PER_SD_BLOCKED = 1e-2
SECONDS_PER_USER_GRID = 8e-5
#: a four-value oracle's engine call on the grid route, per unit of the informative count's variance ``sd²``
#: (task sandwich12, CPU of ``curve_values`` on 32 points / the evaluations, load 7-9; per point, two calls: OUE
#: k = 128 ε0 = 1 n = 200 (sd² 40) 0.021 s, n = 999 (196) 0.147; ε0 = 2 n = 500 (52) 0.030, n = 1000 (104) 0.085,
#: n = 1500 (156) 0.150; ε0 = 3 n = 500 (23) 0.013, n = 1000 (45) 0.027, n = 1999 (90) 0.068; SUE k = 16 ε0 = 1
#: n = 500 (102) 0.092; OUE k = 16 ε0 = 1 n = 200 (40) 0.023: model/measured 0.93-1.7; the per-user model it replaces,
#: 2·8e-5·n, was 4.7x high at ε0 = 3, n = 1999)
SECONDS_PER_VAR_GRID_ORACLE = 4.5e-4
#: grid evaluations beyond ``max_points`` (the search for the grid's top: :func:`_eps_top`, :func:`_eps_top_doubling`)
EXTRA_EVALUATIONS = 6
#: the query's band (:func:`query_band`): at most this many extra evaluations where the curve's values lie in it
TARGET_POINTS = 8
#: the band of values a query at δ over T rounds reads: ``[δ/(TARGET_SPAN·T), TARGET_SPAN·δ]``
TARGET_SPAN = 10


def point_seconds(mech: Randomizer, n: int) -> float | None:
    """Estimated one-core seconds of one grid point of :func:`curve_values` (every source) at ``n`` users, for
    k-RR (``k ≥ 3``), the four-value oracles, matrices and geometric records (plain and sampled); ``None`` for
    other randomizers (no model).  O(1).

    The engine's cost is set by the window of the informative count ``s`` (``sd = √(n·π_s(1−π_s))``, ``π_s`` the
    probability of the two informative atoms): :data:`SECONDS_PER_CALL_JENSEN` plus :data:`SECONDS_PER_SD_JENSEN`
    per sd on the route used from :data:`JENSEN_MIN_N` users, the blocked one-dimensional route above ``GRID_MAX_N``
    (only if ``JENSEN_MIN_N`` is raised above it), the grid below (linear in n: k-RR per user, an oracle per unit of
    ``sd²`` (:data:`SECONDS_PER_VAR_GRID_ORACLE`)).  An oracle point costs two engine
    calls (the spread view, sometimes the merged one; the clone pair is cheaper than either).

    Monotone in n on each route; at :data:`JENSEN_MIN_N` the route changes from the grid (O(n) per point) to the
    Jensen route (O(√n)), and the modelled cost drops there as the measured one does (10-RR: 0.07 s per point at
    n = 999, 0.0075 s at 10³).  From :data:`JENSEN_MIN_N` on it is increasing in n (so is ``sd``), so the accountant's ``"auto"`` decision is one cutoff in n."""
    if matrix_view.is_matrix(mech):
        return _matrix_point_seconds(mech, n)
    if isinstance(mech, geometric.SampledGeometric):
        return _sampled_geometric_point_seconds(mech, n)
    if isinstance(mech, oracles.Geometric):
        return _geometric_point_seconds(mech.m, float(arith.ball(mech.gamma()).mid()), n)
    if isinstance(mech, KRR) and mech.k >= 3:
        ps, calls = 2 * float(arith.ball(mech.flip()).mid()), 1
    elif isinstance(mech, oracles.FourValue):
        pt = mech.l_probs()[1]
        ps, calls = 2 * float(arith.ball(mech.gamma() * pt).mid()), 2
    else:
        return None
    sd = math.sqrt(max(n * ps * (1 - ps), 1.0))
    if n >= jensen_min_n(mech):
        per = SECONDS_PER_CALL_JENSEN + SECONDS_PER_SD_JENSEN * sd
    elif n > GRID_MAX_N:
        per = SECONDS_PER_SD_BLOCKED * sd
    elif calls == 2:  # an oracle's two-dimensional grid: set by the informative count's window, about sd² cells
        per = SECONDS_PER_VAR_GRID_ORACLE * sd * sd
    else:
        per = SECONDS_PER_USER_GRID * n
    return calls * per


#: cost model of a matrix randomizer's grid point (one-core seconds; measured task calib11, 29 Nov 2026, load 3-6,
#: examples/matrix_3x3.csv and its sampled R_q at q = 1/10, n = 10^3..10^6, per point and source): it is set by
#: ``sd = √(n·p/2)``, ``p`` the blanket's informative mass (:func:`_matrix_informative_mass`: ``γ`` less its
#: columns equal in every row, e.g. R_q's ``⊥``).  The three-atom view per ordered input pair: a fixed part plus a
#: part per sd (measured per pair 0.0009-0.0033 s at sd 6-18, 0.005-0.006 at sd 58-82, 0.010-0.012 at sd 183,
#: 0.024 at sd 577)
SECONDS_PER_PAIR_MATRIX = 3e-3
SECONDS_PER_SD_MATRIX = 4.5e-5
#: the four-atom view on the one-dimensional route (above :data:`MATRIX_GRID_MAX_N`), per pair and sd (measured
#: 1.3e-3 at sd 58 and 82; R_q at sd 18: 0.8e-3)
SECONDS_PER_SD_MATRIX_FOUR = 1.4e-3
#: the four-atom view on the grid route (up to :data:`MATRIX_GRID_MAX_N` users), per pair: a fixed part plus a part
#: per informative user ``n·p`` (measured per pair 0.088 s at n·p = 667, 0.0097 s at 67)
SECONDS_PER_PAIR_MATRIX_GRID = 1e-3
SECONDS_PER_USER_MATRIX_GRID = 1.3e-4
#: the clone pair, once per point, a fixed part plus a part per √n (measured 0.003 s at n = 10^3, 0.007-0.008 at
#: 10^4, 0.016-0.017 at 10^5, 0.041 at 10^6; the same for R and R_q)
SECONDS_PER_CALL_CLONE = 3e-3
SECONDS_PER_ROOT_N_CLONE = 4.5e-5


#: a sampled geometric round's grid point (task geosamp12, 30 Nov 2026, load 3.5, CPU s, ε0 = 1, q = 1/10): the
#: dominating law's set-up, once a point, and the four-atom engine's call on the Jensen route (with the set-up, m = 20:
#: 0.06-0.07 s at n = 10³-10⁴, 0.6 s at 10⁶).  The set-up is O(m² log m) since task geo100_13 (30 Nov 2026, load
#: 5.9, CPU s, ε0 = 1: m = 20: 0.002 s, 50: 0.011, 100: 0.044, 200: 0.19, 400: 0.9-1.0, i.e. 0.6-1.3e-6 per m²·log₂ m;
#: it was O(m³), 8e-6 per m³: 8 s at m = 100).  Task bounded14 (30 Nov 2026, load 12.6-13.9, CPU s of one
#: geometric_upper at n = 10⁴, set-up and engine): m = 100 0.067, 200 0.25-0.27, 400 1.16 (0.4-0.8e-6 per m²·log₂ m);
#: the model's 1.5e-6 announced 2.1 s per point at m = 400 (a whole T = 1 run: 141 s for 61 CPU s), now 1.0e-6: 1.42 s
SECONDS_PER_M2LOG_GEOMETRIC = 1.0e-6


def _sampled_geometric_point_seconds(mech: geometric.SampledGeometric, n: int) -> float:
    """One grid point of a sampled geometric round's curve: the four-knot law's set-up (O(m² log m)), one engine call (per
    standard deviation of the informative count on the Jensen route, per user on the automatic route below
    :data:`JENSEN_MIN_N`) and the clone pair.  A choice, never a bound.  O(1)."""
    return _geometric_point_seconds(mech.m, float(mech.participation) * float(arith.ball(mech.base.gamma()).mid()), n)


def _geometric_point_seconds(m: int, ps: float, n: int) -> float:
    """One grid point of a (sampled or plain) geometric round's curve, ``ps`` the blanket's mass (times q): the
    dominating law's set-up (O(m² log m)), one engine call and the clone pair (:func:`_sampled_geometric_point_seconds`).
    A plain round (session 12): its curve was never chosen by ``"auto"`` above 128 users for want of a model (m = 20,
    ε0 = 1, n = 10⁴, T = 10: clone pair 0.183424 where the curve pair gives 0.136528 in 4.9 CPU s).  O(1)."""
    sd = math.sqrt(max(n * ps * (1 - ps), 1.0))
    per = SECONDS_PER_CALL_JENSEN + SECONDS_PER_SD_JENSEN * sd if n >= JENSEN_MIN_N else SECONDS_PER_USER_GRID * n
    setup = SECONDS_PER_M2LOG_GEOMETRIC * m * m * math.log2(max(m, 2))
    return per + setup + SECONDS_PER_CALL_CLONE + SECONDS_PER_ROOT_N_CLONE * math.sqrt(n)


def _matrix_informative_mass(mech: FiniteRandomizer) -> float:
    """The blanket's mass on the columns that are not the same in every row (a float: it only chooses).  A column
    equal in every row has the same privacy-loss value as the blanket's rest for every pair, so it never enters the
    engine's informative count.  O(k_in · k_out) exact comparisons."""
    rows = mech.matrix()
    const = sum((col[0] for col in zip(*rows) if all(v == col[0] for v in col)), start=fmpq(0))
    return max(float(arith.ball(mech.gamma()).mid()) - float(arith.ball(const).mid()), 0.0)


def _matrix_point_seconds(mech: FiniteRandomizer, n: int) -> float:
    """One grid point of a matrix randomizer's curve: the three-atom view on every ordered pair (at most; the
    Chernoff bound skips some), the four-atom view up to :data:`MATRIX_FOUR_MAX_N` users (grid route, per informative
    user, up to :data:`MATRIX_GRID_MAX_N`, else the one-dimensional one per standard deviation), and the clone pair.
    Non-decreasing in n on each route (the four-atom view's grid route costs more per point at 10^3 users than the
    one-dimensional route just above it, as measured).  O(k_in · k_out)."""
    k = len(mech.matrix())
    pairs = k * (k - 1)
    p = _matrix_informative_mass(mech)
    sd = math.sqrt(max(n * p / 2, 1.0))
    out = pairs * (SECONDS_PER_PAIR_MATRIX + SECONDS_PER_SD_MATRIX * sd)
    out += SECONDS_PER_CALL_CLONE + SECONDS_PER_ROOT_N_CLONE * math.sqrt(n)
    if n <= MATRIX_FOUR_MAX_N and matrix_view.atom_count(mech) > 3:
        if n <= MATRIX_GRID_MAX_N:
            out += pairs * (SECONDS_PER_PAIR_MATRIX_GRID + SECONDS_PER_USER_MATRIX_GRID * n * p)
        else:
            out += pairs * SECONDS_PER_SD_MATRIX_FOUR * sd
    return out


def curve_seconds(
    mech: Randomizer, n: int, max_points: int = MAX_POINTS, target_points: int | None = None
) -> float | None:
    """Estimated one-core seconds of :func:`curve_pair` at ``n`` users on ``max_points`` points and at most
    ``target_points`` more in a query's band (``(max_points + EXTRA_EVALUATIONS + target_points)·point_seconds``);
    ``None`` when :func:`point_seconds` has no model.  O(1)."""
    ps = point_seconds(mech, n)
    tp = TARGET_POINTS if target_points is None else target_points
    # a sampled binary RR round's exact worst case (Lemma S4): its preparation, once (each point is then O(n log n))
    q = getattr(mech, "participation", None)
    once = (
        sampled_binary.worst_seconds(n, q)
        if getattr(mech, "exact_binary_worst", False) and sampled_binary.affordable(n, q)
        else 0.0
    )
    return None if ps is None else (max_points + EXTRA_EVALUATIONS + tp) * ps + once


def _upper(v) -> fmpq:
    """The certified upper end of an enclosure as an ``fmpq``, at most 1 (δ ≤ 1 always holds)."""
    if isinstance(v, fmpq):
        u = v
    else:
        hi = arith.endpoints(v)[1]
        u = fmpq(hi.numerator, hi.denominator)
    return min(u, fmpq(1))


def _stronger_clone_delta(mech: Randomizer, n: int, **kw) -> object:
    """The SODA 2023 stronger-clone pair's ``H_α``: the Lemma 5.3 blanket view of binary RR with the same ``e^{ε0}``
    (``docs/mechanisms.md``, Generic ε0-LDP).  Valid only for a randomizer that satisfies the condition."""
    e = finite_exp_epsilon0(mech, "the stronger clone pair")
    rr = KRR(2, exp_epsilon0=e)
    return delta_blanket_view(rr, n, **kw)


def _matrix_sources(mech: FiniteRandomizer, n: int) -> list[tuple[str, Callable]]:
    """A matrix randomizer's own blanket views (:mod:`blanket.exact.shuffled.matrix_view`): three atoms at every n;
    four atoms (Lemma 5.3's own value when no pair has more) up to :data:`MATRIX_FOUR_MAX_N` users when some pair has
    four or more.  O(k_in² · k_out)."""
    three = matrix_view.atom_count(mech) <= 3
    out: list[tuple[str, Callable]] = [
        (
            "blanket view (Lemma 5.3, matrix)" if three else "blanket view (Lemma 5.3, matrix, spread to 3 atoms)",
            lambda n, **kw: matrix_view.matrix_blanket_view(mech, n, atoms=3, **kw),
        )
    ]
    if not three and n <= MATRIX_FOUR_MAX_N:
        eng = None if n <= MATRIX_GRID_MAX_N else "1d"
        out.append(
            (
                "blanket view (Lemma 5.3, matrix, 4 atoms)",
                lambda n, **kw: matrix_view.matrix_blanket_view(mech, n, atoms=4, engine=eng, **kw),
            )
        )
    return out


def curve_sources(
    mech: Randomizer, *, stronger_clones: bool = False, same_randomizer: bool = False, n: int | None = None
) -> list[tuple[str, Callable]]:
    """``[(name, δ-function)]``: the certified upper bounds on δ(ε) of a shuffled round of ``mech`` used for its curve
    (see the module docstring); each function takes ``(n, exp_epsilon=…, tol=…)``.  ``same_randomizer``: Lemma G1 is
    a source (a matrix stated as one randomizer for every user); ``n``: the round's users (a matrix's four-atom view
    is a source up to :data:`MATRIX_FOUR_MAX_N`; ``None``: every source).  O(k_in² · k_out)."""
    clone = ("clone pair (FOCS 2021)", lambda n, **kw: fast_oracles.clone_delta(mech, n, **kw))
    out: list[tuple[str, Callable]] = []
    if matrix_view.is_matrix(mech):
        out += _matrix_sources(mech, 0 if n is None else n)
        if same_randomizer:
            out.append(
                ("one randomizer for every user (Lemma G1)", lambda n, **kw: same_randomizer_delta(mech, n, **kw))
            )
    if isinstance(mech, KRR):
        out.append(("blanket view (Lemma 5.3)", lambda n, **kw: delta_blanket_view(mech, n, engine=_engine(n), **kw)))
        return out
    if (
        getattr(mech, "exact_binary_worst", False)
        and n is not None
        and sampled_binary.affordable(n, getattr(mech, "participation", 1))
    ):
        # a sampled binary RR round (never an ldp record's R_q): its exact worst case over datasets (§5f, Lemma S4)
        out.append(
            ("exact worst case (sampled binary RR, Lemma S4)", lambda n, **kw: _sampled_binary_delta(mech, n, **kw))
        )
    if isinstance(mech, oracles.FourValue):
        out.append(
            (
                "blanket view (Lemma 5.3, fast)",
                lambda n, **kw: fast_oracles.blanket_view_upper(mech, n, engine=_engine(n, mech), **kw),
            )
        )
        if _sampled_exact_five(mech, n):
            out.append(("blanket view, exact five-atom sum (Lemma 5.3)", lambda n, **kw: _exact_five(mech, n, **kw)))
    elif isinstance(mech, oracles.Geometric) and mech.m <= geometric.MAX_GEOMETRIC_M:
        out.append(("blanket view, dominating law", lambda n, **kw: geometric.geometric_upper(mech, n, **kw)))
    elif isinstance(mech, geometric.SampledGeometric):  # the sampled geometric R_q: the four-knot law (§5f)
        out.append(
            (
                "blanket view of R_q, four-knot dominating law",
                lambda n, **kw: mech.delta_upper(n, engine=_engine(n, mech), **kw),
            )
        )
    if stronger_clones:
        out.append(
            ("stronger clones (SODA 2023, condition checked)", lambda n, **kw: _stronger_clone_delta(mech, n, **kw))
        )
    out.append(clone)
    return out


#: a sampled four-value round's curve takes the exact five-atom Lemma 5.3 value of ``R_q`` as a source up to this
#: :func:`blanket.exact.shuffled.oracle_exact.exact_view_work` (docs/reference/oracles.md §2, "Sampled rounds: why the
#: bracket was 1.10"): OUE k = 128, ε0 = 2, n = 10³, q = 1/10 (work 2.5·10⁴) 0.1 s per point, q = 1/2 (4.1·10⁴) 0.5 s
#: (ε0 = 1, q = 1/2: 9.6·10⁴); n = 10⁴, q = 1/10 (5.5·10⁵) 2.3 s for 4 % of δ there, and q ≤ 1/100 (1.4–2.5·10⁵,
#: about a second per point, a curve has 40–60), left out
SAMPLED_EXACT_FIVE_MAX_WORK = 10**5
#: below this fast-view δ the exact five-atom source returns the fast value (its windowing error, an absolute
#: 10⁻¹⁷-ish, is not negligible there, and it costs seconds for nothing; as ``certified.EXACT_VIEW_MIN_DELTA``)
SAMPLED_EXACT_FIVE_MIN_DELTA = Fraction(1, 10**12)


def _sampled_exact_five(mech: Any, n: int | None) -> bool:
    """Whether the exact five-atom view is a curve source of ``mech``: a sampled unary-encoding record
    (``SampledFourValue`` of OUE/SUE, duck-typed: a four-value record with a ``participation`` and such a ``base``;
    not ``ldp``'s binary-RR ``R_q``, whose bound is Lemma G1's) of ``n`` users within
    :data:`SAMPLED_EXACT_FIVE_MAX_WORK`.  O(1) ball operations."""
    if n is None or n < 2 or getattr(mech, "participation", None) is None:
        return False
    if not isinstance(getattr(mech, "base", None), oracles.UnaryEncoding):
        return False
    return oracle_exact.exact_view_work(mech, n) <= SAMPLED_EXACT_FIVE_MAX_WORK


def _exact_five(mech: Any, n: int, *, exp_epsilon: Any, tol: Any = None) -> Any:
    """Lemma 5.3's exact five-atom value for the four-value record ``mech`` (:func:`blanket.exact.shuffled.
    oracle_exact.blanket_view_exact`, a certified enclosure, the same bound the fast view brackets from above), or the
    fast view's value where that is below :data:`SAMPLED_EXACT_FIVE_MIN_DELTA`.  ``W_C`` engine calls
    (:func:`~blanket.exact.shuffled.oracle_exact.exact_view_calls`)."""
    kw = {"exp_epsilon": exp_epsilon} if tol is None else {"exp_epsilon": exp_epsilon, "tol": tol}
    fast = fast_oracles.blanket_view_upper(mech, n, engine=_engine(n, mech), **kw)
    if arith.endpoints(arith.ball(fast))[1] < SAMPLED_EXACT_FIVE_MIN_DELTA:
        return fast
    return oracle_exact.blanket_view_exact(mech, n, exp_epsilon=exp_epsilon)


def _sampled_binary_delta(mech: Any, n: int, *, exp_epsilon: Any, tol: Any = None) -> fmpq:
    """The certified upper end of the sampled binary RR round's exact worst case at ``e^ε = exp_epsilon``
    (:func:`blanket.exact.shuffled.sampled_binary.sampled_binary_worst`, prepared once per ``(e^{ε0}, q, n)``).
    O(n + log L) per call after the preparation (:func:`~blanket.exact.shuffled.sampled_binary.worst_seconds`)."""
    with arith.precision(128):  # the same ball as the one-round route's: one preparation (the memo's key)
        e0 = mech.exp_epsilon0()
    w = sampled_binary.sampled_binary_worst(e0, mech.participation, n)
    return w.value(exp_epsilon)[1]


def has_curve(mech: Randomizer, *, stronger_clones: bool = False) -> bool:
    """Whether the curve can improve on the accountant's pair for ``mech``: k-RR with ``k ≥ 3``, the four-value
    oracles, the geometric mechanism, a randomizer given by its matrix, or a randomizer with the stronger clones
    (binary RR has its own exact curve, :mod:`blanket.exact.accounting.curves`; ``ldp`` composes Lemma G1's pair
    itself).  O(k_in · k_out)."""
    if isinstance(mech, KRR):
        return mech.k >= 3
    if stronger_clones or matrix_view.is_matrix(mech):
        return True
    return isinstance(mech, (oracles.FourValue, geometric.SampledGeometric)) or (
        isinstance(mech, oracles.Geometric) and mech.m <= geometric.MAX_GEOMETRIC_M
    )


@dataclass(frozen=True)
class CurveValues:
    """Certified upper values of the curve: ``points`` ``(α, U, source name)`` (α increasing, dyadic), the
    evaluations made, and ``alpha_max`` (a rational ``≥ e^{ε0}``: the curve is 0 from there on)."""

    points: tuple
    evaluations: int
    alpha_max: fmpq

    def winners(self) -> dict[str, int]:
        """``{source: number of grid points where it gave the smallest value}``."""
        out: dict[str, int] = {}
        for _a, _u, s in self.points:
            out[s] = out.get(s, 0) + 1
        return out


def _dyadic_exp(eps: fmpq) -> fmpq:
    """A dyadic rational ``≤ e^ε`` with 50 significant bits (exact in binary64), at least 1."""
    with arith.precision(96):
        lo = arith.endpoints(arith.ball(eps).exp())[0]
    return max(fmpq(1), _curves.dyadic50(lo))


#: from JENSEN_MIN_N users on (k-RR and the oracles; UPWARD_TOP_MIN_N for the others), the grid's top is the first ``ε0·2^j/1024`` where the cheapest source's δ is below
#: this (the engines' enclosures are about 1e-16 wide there, so 10^-30 is never certified; and an evaluation at a
#: large ε costs ten times one near the curve's bend); above the top the hull is a chord to ``(α_max, 0)``
LARGE_N_TOP_DELTA = fmpq(1, 10**14)


def _eps_top_doubling(best: Callable, e0: fmpq) -> fmpq:
    """The smallest ``ε0·2^j/1024`` (``j = 0..10``) where ``best`` is certainly below :data:`LARGE_N_TOP_DELTA`, else
    ε0: at most 11 evaluations, cheapest first (the large-n grid top; δ is non-increasing in ε)."""
    for j in range(11):
        eps = e0 * 2**j / 1024
        if best(_dyadic_exp(eps))[0] < LARGE_N_TOP_DELTA:
            return eps
    return e0


def _eps_top(best: Callable, e0: fmpq) -> fmpq:
    """The smallest ``ε0·k/64`` (``k = 1..64``) where ``best`` is certainly below :data:`NEGLIGIBLE_DELTA` (bisection:
    O(log 64) evaluations; δ is non-increasing in ε), else ε0."""
    lo, hi = 0, 64
    while lo < hi - 1:
        mid = (lo + hi) // 2
        if best(_dyadic_exp(e0 * mid / 64))[0] < NEGLIGIBLE_DELTA:
            hi = mid
        else:
            lo = mid
    return e0 * hi / 64


def query_band(delta: object, rounds: int) -> tuple[fmpq, fmpq]:
    """The curve values a query at ``δ`` over ``rounds`` rounds reads (a choice of where to refine, never a bound):
    ``[δ/(TARGET_SPAN·T), min(1, TARGET_SPAN·δ)]`` — one round reads the curve where it is about δ, T rounds also
    where it is about δ/T.  O(1)."""
    d = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True, allow_float=True)
    t = arith.integer_in(rounds, "rounds", lo=1)
    return d / (TARGET_SPAN * t), min(fmpq(1), d * TARGET_SPAN)


#: per (randomizer, n, options): the base grid's values and its evaluations (a query's band pass starts from them)
_EVALS: dict = {}


def curve_values(
    mech: Randomizer,
    n: int,
    *,
    stronger_clones: bool = False,
    same_randomizer: bool = False,
    max_points: int = MAX_POINTS,
    rtol: object = None,
    target: tuple | None = None,
    target_points: int | None = None,
) -> CurveValues:
    """Certified upper values of the worst-case curve of ``mech`` shuffled among ``n`` users on an adaptive grid.

    At each grid point the smallest certified upper end over :func:`curve_sources` (each source valid for every
    neighbouring pair); the grid: 9 points uniform in ε on ``[0, ε_top]`` and 6 geometric ones below ``ε_top/8``
    (``ε_top``: :func:`_eps_top`), then midpoints in ε of intervals whose chord exceeds the midpoint's value by more
    than ``rtol·U + ATOL`` until ``max_points`` points.  ``target``: a band ``(lo, hi)`` of values a query reads
    (:func:`query_band`): then at most ``target_points`` (default :data:`TARGET_POINTS`) more midpoints of intervals whose values meet the band and
    whose chord exceeds the midpoint's value by more than ``rtol·U`` (relative only; :func:`_refine_band`).  The base
    grid's evaluations are memoised, so a band pass costs its own points only.  O((max_points + target_points) ·
    sources) evaluations.
    """
    n = arith.integer_in(n, "n", lo=1)
    max_points = arith.integer_in(max_points, "max_points", lo=4, hi=4096)
    target_points = TARGET_POINTS if target_points is None else target_points
    target_points = arith.integer_in(target_points, "target_points", lo=0, hi=4096)
    rt = RTOL if rtol is None else arith.exact_in(rtol, "rtol", lo=0)
    srcs = curve_sources(mech, stronger_clones=stronger_clones, same_randomizer=same_randomizer, n=n)
    e = finite_exp_epsilon0(mech, "the privacy curve")
    hi = arith.endpoints(arith.ball(e))[1]
    am = fmpq(hi.numerator, hi.denominator)
    with arith.precision(96):
        e0h = arith.endpoints(arith.ball(e).log())[1]
    e0 = fmpq(e0h.numerator, e0h.denominator)
    # the routes' switches are part of the key (a test may change them between calls)
    switches = (
        JENSEN_MIN_N,
        JENSEN_MIN_SD_ORACLE,
        JENSEN_SD_MAX_N,
        UPWARD_TOP_MIN_N,
        MATRIX_FOUR_MAX_N,
        MATRIX_GRID_MAX_N,
        str(LARGE_N_TOP_DELTA),
        str(ATOL),
    )
    ekey = (_key(mech, n, stronger_clones, max_points, same_randomizer), str(rt), switches)
    base = _EVALS.get(ekey)
    memo: dict = dict(base[1]) if base is not None else {}
    count = [0]
    extra = target_points if target is not None else 0
    total = extra if base is not None else max_points + EXTRA_EVALUATIONS + extra
    # a bar on stderr (a terminal, not --quiet) with the remaining time; each update also checks the run's time budget
    label = f"curve values of {getattr(mech, 'name', type(mech).__name__)}, n = {n}"
    with Progress(max(total, 1), label, unit="points") as bar:

        def best(alpha: fmpq) -> tuple:
            if alpha not in memo:
                vals = []
                with arith.precision(128):
                    for name, fn in srcs:
                        vals.append((_upper(fn(n, exp_epsilon=alpha, tol=CURVE_TOL)), name))
                count[0] += 1
                memo[alpha] = min(vals, key=lambda t: t[0])
                bar.update()
            return memo[alpha]

        if base is None:
            upward = n >= (JENSEN_MIN_N if _jensen_sources(mech) else UPWARD_TOP_MIN_N)
            # an exact worst case (sampled binary RR) is certified far below the engines' floors: its top is extended
            top_extend = any(name.startswith("exact worst case") for name, _fn in srcs)
            cv = _refine(best, memo, count, e0, am, n, rt, max_points, upward, top_extend)
            if len(_EVALS) >= 64:
                _EVALS.pop(next(iter(_EVALS)))
            _EVALS[ekey] = (cv, dict(memo))
        else:
            cv = base[0]
        if target is None or not target_points:
            return cv
        lo, up = (arith.exact_in(v, "target", lo=0) for v in target)
        before = count[0]  # the base grid's evaluations when this call made them (already in cv.evaluations)
        _refine_band(best, memo, lo, up, rt, target_points)
        pts = tuple((a, memo[a][0], memo[a][1]) for a in sorted(memo))
        return CurveValues(pts, cv.evaluations + count[0] - before, am)


def _refine_band(best: Callable, memo: dict, lo: fmpq, hi: fmpq, rt: fmpq, budget: int) -> None:
    """A query's pass (:func:`curve_values` with ``target``): intervals between neighbouring grid points whose values
    meet ``[lo, hi]`` are split at their geometric midpoint in α (the midpoint in ε, rounded to a binary64 value) when
    the chord there exceeds the value by more than ``rt·U``, the one with the largest ``log(U_a/U_b)²`` (the chord's
    relative excess if the curve were exponential there; a float, it orders the work only) first; at most ``budget``
    new points.  O(budget · log budget) besides the evaluations."""
    start = len(memo)
    heap: list = []

    def push(a: fmpq, b: fmpq) -> None:
        ua, ub = best(a)[0], best(b)[0]
        if max(ua, ub) < lo or min(ua, ub) > hi:
            return  # the interval's values miss the band
        fa, fb = float(ua), float(ub)
        pr = math.inf if min(fa, fb) <= 0 else math.log(max(fa, fb) / min(fa, fb)) ** 2
        heapq.heappush(heap, (-pr, len(heap) + len(memo), a, b))

    alphas = sorted(memo)
    for a, b in zip(alphas, alphas[1:]):
        push(a, b)
    while heap and len(memo) < start + budget:
        _p, _i, a, b = heapq.heappop(heap)
        mf = math.sqrt(float(a)) * math.sqrt(float(b))  # a·b overflows a float above e^709 (ε0 > 354)
        m = fmpq(*float(mf).as_integer_ratio())
        if not a < m < b:
            continue
        ua, ub = best(a)[0], best(b)[0]
        chord = ua + (ub - ua) * (m - a) / (b - a)
        u = best(m)[0]
        if chord - u > rt * u:
            push(a, m)
            push(m, b)


def _refine(
    best: Callable,
    memo: dict,
    count: list,
    e0: fmpq,
    am: fmpq,
    n: int,
    rt: fmpq,
    max_points: int,
    upward: bool,
    top_extend: bool = False,
) -> CurveValues:
    """The grid of :func:`curve_values` (its body after the sources are chosen): ``ε_top`` (searched upwards,
    :func:`_eps_top_doubling`, when ``upward``, else :func:`_eps_top`), the first 15 points, then the adaptive
    refinement; ``top_extend``: then points past the top (:func:`_extend_top`).  O(max_points) calls of ``best``."""

    top = e0 if n < 2 else (_eps_top_doubling(best, e0) if upward else _eps_top(best, e0))
    eps_pts = sorted({top * j / 8 for j in range(9)} | {top / 8 / fmpq(2) ** j for j in range(1, 7)})
    for x in eps_pts:
        best(_dyadic_exp(x))
    # adaptive refinement in ε: the open interval with the largest estimated chord excess is split first; an interval
    # whose chord at the midpoint is within rtol·U + ATOL of the value there is settled
    heap: list = []
    order: list = []

    def push(ea: fmpq, eb: fmpq) -> None:
        if eb - ea > fmpq(1, 10**9):
            # priority: the chord's excess at the midpoint if the curve were exponential there, (√U_a − √U_b)²/2
            # (a float: it orders the work only)
            ua, ub = float(best(_dyadic_exp(ea))[0]), float(best(_dyadic_exp(eb))[0])
            heapq.heappush(heap, (-((math.sqrt(ua) - math.sqrt(ub)) ** 2) / 2, len(order), ea, eb))
            order.append(None)

    for ea, eb in zip(eps_pts, eps_pts[1:]):
        push(ea, eb)
    while heap and len(memo) < max_points:
        _d, _i, ea, eb = heapq.heappop(heap)
        a, b = _dyadic_exp(ea), _dyadic_exp(eb)
        em = (ea + eb) / 2
        m = _dyadic_exp(em)
        if not a < m < b:
            continue
        ua, ub = best(a)[0], best(b)[0]
        chord = ua + (ub - ua) * (m - a) / (b - a)
        u = best(m)[0]
        if chord - u > rt * u + ATOL:
            push(ea, em)
            push(em, eb)
    if top_extend:
        _extend_top(best, top, e0)
    pts = tuple((a, memo[a][0], memo[a][1]) for a in sorted(memo))
    return CurveValues(pts, count[0], am)


#: at most this many points past the grid's top (:func:`_extend_top`; each one doubles ε)
TOP_EXTEND_POINTS = 12


def _extend_top(best: Callable, top: fmpq, e0: fmpq) -> None:
    """More certified points past the grid's top for a round with an exact worst case (sampled binary RR, Lemma S4),
    whose values keep falling far below the engines' floors: at ``ε = top·2^j`` (``j = 1, 2, …``, ``ε < ε0``, at
    most :data:`TOP_EXTEND_POINTS`) until the value is at most :data:`~blanket.exact.accounting.curves.TOP_DELTA`.
    The top is sized by ε0 (``ε0/1024`` at least), but at a tiny ``q`` the curve lives on ``O(q)`` losses: the
    value at the top (about 10⁻¹⁷ at n = 2·10⁴, q = 10⁻⁴) then became, by the hull's last chord to
    ``(α_max, 0)``, an atom at the loss ``ε0`` of ``P``-mass above the discretisation's tail cut, and the pair's PLD
    spanned ``±ε0`` on a grid of ``O(q)`` (about 10⁶ points: the accountant left the pair out, ``_curve_too_long``).
    Each added value is a certified upper value of ``E`` at its point, and adding points never raises the hull
    (docs/composition.md §5d, "Certified values are enough"; the same argument as ``curves._top_point``).
    O(TOP_EXTEND_POINTS) calls of ``best``."""
    eps = top
    for _ in range(TOP_EXTEND_POINTS):
        if best(_dyadic_exp(eps))[0] <= _curves.TOP_DELTA:
            return
        eps = eps * 2
        if eps >= e0:
            return


_MEMO: dict = {}


def _key(mech: Randomizer, n: int, stronger_clones: bool, max_points: int, same_randomizer: bool = False) -> tuple:
    d = getattr(mech, "describe", None)
    desc = tuple(sorted((str(k), str(v)) for k, v in d().items())) if callable(d) else (repr(mech),)
    if matrix_view.is_matrix(mech):  # a matrix is known by its rows
        desc = tuple(("row", ",".join(str(v) for v in row)) for row in mech.matrix())
    k = getattr(mech, "k", None)
    with arith.precision(128):  # a ball's text depends on the working precision: the key must not (get_delta's)
        e = str(mech.exp_epsilon0())
    return (type(mech).__name__, k, desc, e, n, stronger_clones, same_randomizer, max_points)


def curve_pair(
    mech: Randomizer,
    n: int,
    *,
    stronger_clones: bool = False,
    same_randomizer: bool = False,
    max_points: int = MAX_POINTS,
    target: tuple | None = None,
) -> _curves.FinitePair:
    """The dominating :class:`~blanket.exact.accounting.curves.FinitePair` of the hull of :func:`curve_values`
    (``α_max`` the upper end of ``e^{ε0}``), memoised per (randomizer, n, options, ``target``; at most 64 kept).  Its
    ``description`` names the sources that gave the hull's values.  ``target``: a query's band (:func:`query_band`),
    refined on top of the base grid (every grid is valid; the band only adds points).  Cost: :func:`curve_values`
    once (the base grid's evaluations are shared between targets)."""
    if not has_curve(mech, stronger_clones=stronger_clones):
        raise InvalidArgument(
            "mechanism",
            getattr(mech, "name", type(mech).__name__),
            "has no curve pair here (binary RR: accounting.curves; ldp: Lemma G1's pair itself is composed)",
            hint="pass stronger_clones=True for a randomizer that satisfies the SODA 2023 condition",
        )
    key = _key(mech, n, stronger_clones, max_points, same_randomizer)
    if target is not None:
        key = (*key, str(target[0]), str(target[1]))
    if key not in _MEMO:
        cv = curve_values(
            mech,
            n,
            stronger_clones=stronger_clones,
            same_randomizer=same_randomizer,
            max_points=max_points,
            target=target,
        )
        src = ", ".join(f"{s}: {c}" for s, c in sorted(cv.winners().items()))
        desc = f"hull of certified curve values ({len(cv.points)} points; smallest at each point: {src})"
        pair = _curves.pair_from_values([(a, u) for a, u, _ in cv.points], alpha_max=cv.alpha_max, description=desc)
        if len(_MEMO) >= 64:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = pair
    return _MEMO[key]
