"""Cost model of a composition (:class:`~blanket.exact.accounting.accountant.ShuffleAccountant`): an estimate of the
whole run before it starts, so that a run of minutes says so and a run of hours is refused (issue 26).

A composed query does three kinds of work, each modelled from the parameters alone (O(1) per ledger entry, nothing
is computed):

* **the worst-case curve sweep** of binary RR (:func:`blanket.exact.accounting.curve_steps.sweep_seconds`; over
  every dataset, spread over the local cores by :func:`blanket.exact.runtime.executors.map_blocks`);
* **the curve pairs** of k-RR and the oracles (:func:`blanket.exact.accounting.curve_pairs.curve_seconds`; one
  core);
* **the PLDs**: each round's pairs discretised by the survival kernel (:func:`discretise_seconds`, a few passes: the
  grid search and the lower pairs) and the products of the self-compositions (:func:`products_seconds`; one core);
  a fleet round with sampling also its concrete lower pairs (:func:`fleet_lower_seconds`); binary RR rounds also
  the summed lower pair's search and certified thresholds (:func:`summed_seconds`), and when every round is binary
  RR on its split curve pair the grid search stops at the mechanism's bracket, on a coarser grid
  (:func:`bracket_grid_length` replaces the sandwich's composed length);
* for a certificate, **its picture** (one query per scaled schedule, :data:`SECONDS_PICTURE_FIXED`) and **its PDF**
  (:data:`SECONDS_PDF`), counted apart (``picture``, ``pdf``) and never in a refusal.

Every number here is an *estimate* that chooses or refuses work; none is a bound, and no verdict rests on one.
The constants were measured on the project machine (2 cores shared with other work), 2026-11-29.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blanket.exact.runtime.budget import human_duration, human_size

__all__ = [
    "CompositionCost",
    "blanket_gamma",
    "kernel_passes_seconds",
    "continuous_seconds",
    "discretise_seconds",
    "products_seconds",
    "composed_length",
    "products_bytes",
    "curve_length",
    "sampled_view_seconds",
    "fleet_lower_seconds",
    "bracket_grid_length",
    "summed_seconds",
    "picture_summed_seconds",
    "lower_refine_seconds",
    "bracket_pass_seconds",
    "one_round_seconds",
    "sampled_full_seconds",
]

#: survival kernel (:func:`blanket.exact.accounting.pld.discretise_both`) per outer count C and per point of the
#: inner window, and per outer count: binary RR's blanket view measured 1.1 / 4.1 / 33 s at n = 10^5 / 10^6 / 10^7
#: (ε0 = 1), 10-RR 2.3 s at 10^6
SECONDS_PER_OUTER = 1e-4
SECONDS_PER_OUTER_INNER = 2.2e-8
SECONDS_KERNEL_FIXED = 0.3
#: passes of the survival kernel per round: the dominating pair on the grid search's grids (counted: 3 at binary RR,
#: n = 10^5, T = 365; it was 2 in the 3-RR fit), the two lower pairs on the last.  Checked off the 3-RR fit on
#: 2026-11-29 (CPU of the whole command, loaded machine, against the model with 2 passes): binary RR n = 10^5,
#: T = 365, --curves off 16 s (model 7.4 s), 10-RR ε0 = 2, n = 10^5, T = 50: 7.7 s (3.3 s), OUE k = 8, n = 10^4,
#: T = 100: 4.5 s (2.9 s); about 2 s of each is the interpreter's start and imports, the rest the load
DOMINATING_PASSES = 3
LOWER_PASSES = 2
#: the products: ``c·L·log2 L`` per composed PLD of final length ``L`` (one self-composition: the squarings before
#: the last add up to about one more product), PRODUCT_UNITS of them per query (upper and lower of the dominating
#: pairs, the grid search's coarser grids about 10 % more) plus as many for the two lower pairs, whose grid is 4Δ
#: beyond 1000 rounds (``lower_factor`` 1/4).  Recalibrated 2026-11-29 evening (CPU of ``PLD.compose`` alone, timed
#: inside the query, 2-core machine at load 2.5-8): binary RR ε0 = 1, T = 365, --curves off, n = 10⁵ / 10⁶: L =
#: 1.34·10⁵ / 1.38·10⁵, 2.06 / 1.7 s (c = 2.3·10⁻⁷ / 1.9·10⁻⁷); n = 2 (its curve pair, the length of
#: :func:`bracket_grid_length`), T = 10⁵ / 10⁶: L = 2.19·10⁶ / 6.80·10⁶, 22.8 / 96.2 s (1.8·10⁻⁷ / 2.2·10⁻⁷); 10-RR
#: n = 10⁶, T = 365, --curves off: L = 1.27·10⁵, 1.6 s (1.9·10⁻⁷); 3-RR n = 2000, T = 365: 1.98 s with its curve
#: pairs (2.3·10⁻⁷).  The constant before, 6.5·10⁻⁷, was fitted on whole queries on a loaded machine and made the
#: composition of binary RR at T = 365 about twice its cost (11.1 s modelled, 5.6 s measured)
SECONDS_PER_PRODUCT_TERM = 2.5e-7
PRODUCT_UNITS = 2.2
#: the curve pairs of k-RR and the oracles (the hull of certified curve values, ``cupper``/``clower``): their atoms
#: spread the loss more widely than the blanket view does (the hull's last chords run out to ``e^{ε0}``), so their
#: composed support grows more slowly with T and faster with n than the dominating pairs': about
#: ``CURVE_POINTS·T^CURVE_T_POWER·n^CURVE_N_POWER`` points, at least the dominating pairs' (measured at ε0 = 1, the
#: upper side: 10-RR n = 10⁶, T = 365 / 50: 9.2·10⁵ / 3.95·10⁵ (the dominating pairs' 1.27·10⁵ / 2.2·10⁴); n = 10⁵,
#: T = 365: 5.4·10⁵; 3-RR n = 10⁶, T = 365: 6.5·10⁵; n = 2000: 8.8·10⁴ (the model 9.2 / 3.9 / 5.4 / 9.2 / 2.2·10⁵)); and
#: a base that wide makes the squarings products of about the final length: both sides cost ``CURVE_UNITS +
#: CURVE_UNITS_PER_DOUBLING·log2 r`` (``r`` the ratio of the two lengths; at most ``log2 T``) products of that
#: length (CPU of the curve pairs' products, same runs: 10-RR n = 10⁶, T = 365 / 50: 32 / about 7 s, model 34 / 10 s;
#: n = 10⁵: about 10 s, model 15 s; 3-RR n = 10⁶: about 21 s, model 34 s)
CURVE_POINTS = 3050.0
CURVE_T_POWER = 0.43
CURVE_N_POWER = 0.23
CURVE_UNITS = 1.5
CURVE_UNITS_PER_DOUBLING = 2.0
#: the lower kind refined (:func:`lower_refine_seconds`): its own constant per ``L·log2 L`` (a discretisation on the
#: finer grid and its self-compositions, calibrated as a whole: see REFINE_PRODUCTS)
SECONDS_PER_REFINE_TERM = 4.6e-7
#: the composed support after the grid search: about ``LOSS_POINTS · T^LOSS_POWER`` points (the grid refines like
#: 1/T while the search's steps last, the support grows like sqrt(T) to T loss steps; fitted between binary RR's
#: and 3-RR's measured lengths above)
LOSS_POINTS = 680
LOSS_POWER = 0.87
#: the exact ROC hull of binary RR for n <= CURVE_AUTO_N: O(n²), about a second at n = 256
SECONDS_ROC_HULL = 1.5e-5


def _window(n: float, q: float) -> float:
    """Points of a binomial window (mode ± 13.5 sd, as :func:`blanket.exact.accounting.pld._window_bounds`)."""
    return 27.0 * math.sqrt(max(n * q * (1.0 - q), 1.0)) + 7.0


def discretise_seconds(outer_n: int, outer_q: float | None, inner_q: float = 0.5) -> float:
    """Estimated one-core seconds of one survival-kernel pass over a shift pair whose outer count is
    ``Bin(outer_n, outer_q)`` (``None``: the fixed count ``outer_n``) and whose inner law is ``Bin(C, inner_q)``:
    ``W_C · (a + b·W)`` (``W_C``, ``W`` the outer and inner windows).  O(1).

    >>> 0.5 < discretise_seconds(10**6, 0.54) < 20
    True
    """
    if outer_q is None:
        wc, c = 1.0, float(outer_n)
    else:
        wc, c = _window(outer_n, outer_q), outer_n * outer_q
    return SECONDS_KERNEL_FIXED + wc * (SECONDS_PER_OUTER + SECONDS_PER_OUTER_INNER * _window(c, inner_q))


#: the hull pair of the sampled blanket view (:func:`blanket.exact.accounting.sampled.sampled_krr_pair`: sampled
#: rounds of k-RR, fleet rounds with q < 1), O(W²) with ``W = 24·sqrt(2·q·γ·n)`` (``γ = k/(e^{ε0} + k − 1)``, the
#: blanket probability): one-core seconds per W² of building the pair alone (its lower pairs and products are
#: counted by :func:`products_seconds`).  Recalibrated 2026-11-29 evening (CPU, 2-core machine at load 5, the pair
#: alone): 3.8 s at binary RR ε0 = 1, q = 1/2, n = 10⁴ (W² = 3.1·10⁶), 3.3 s at ε0 = 2, q = 1/100, n = 999 900
#: (2.75·10⁶; examples/fleet_daily.toml), 10.5 s at ε0 = 1, q = 1/10, n = 10⁵ (6.2·10⁶); rounded up.  (The
#: constant before, 4e-6, was fitted on a whole query, products included, which products_seconds counts again.)
SECONDS_PER_SAMPLED_W2 = 2e-6
SECONDS_SAMPLED_FIXED = 0.5
#: the concrete lower pairs of a fleet round with sampling and several groups (Lemma F6,
#: :func:`blanket.exact.accounting.fleet_rounds.fleet_lower_pair`): discretised on the query's final grid, whose
#: step falls like ε/T (ε grows like √T and falls like 1/√n), so their support spans J ∝ √(T·n) points (one
#: discretisation SECONDS_FLEET_LOWER_DISCRETISE, each query's self-compositions of both pairs
#: SECONDS_FLEET_LOWER_QUERY, at n = 10⁶, T = 365; scaled by √(n/10⁶ · T/365), ``T`` the query's composed rounds).
#: Recalibrated 2026-11-29 evening (CPU, 2-core machine at load 5, examples/fleet_daily.toml: n = 10⁶, q = 1/100,
#: ε0* = 2): since the pair drops its tails' atoms (``fleet_rounds.LOWER_TAIL_CUT``) its support is 3.2·10³ points on
#: the chosen grid: one discretisation 0.02 s, the two pairs' self-compositions 0.024 / 0.08 / 0.18 / 0.39 s at
#: T = 6 / 23 / 92 / 365; rounded up.  (The constants before, 4.5 s and 10 s, came from before that cut and made the
#: certificate's estimate 69 s where it took 10 CPU s.)
SECONDS_FLEET_LOWER_DISCRETISE = 0.1
SECONDS_FLEET_LOWER_QUERY = 0.5
#: the certificate's picture of a composition (:func:`blanket.reports.curve.composition`): drawing and the curve's
#: grid of cached queries (a few seconds; measured 2–3 s), plus one query per scaled schedule (counted apart)
SECONDS_PICTURE_FIXED = 3.0
#: the picture's δ(ε) grid: ``reports.curve.GRID_POINTS + 1`` queries of the composed distributions, each evaluating
#: binary RR's summed lower pair again (both orders) when the ledger has binary RR rounds: per point
#: SECONDS_PICTURE_SUMMED_PER_OUTCOME per outcome ``W_S`` of the sum (:func:`picture_summed_seconds`; measured task
#: calib11, CPU at load 7-8: binary RR ε0 = 1, n = 10⁵, T = 365, W_S = 8.6·10⁴: 0.68 s per point, 11.6 of the
#: picture's 12.6 CPU s; n = 10⁴, T = 10: the whole picture 2.3 s).  The point count is checked against the report's
#: grid in tests/test_calib11.py
PICTURE_DELTA_POINTS = 17
SECONDS_PICTURE_SUMMED_PER_OUTCOME = 8e-6
#: LaTeX of a composition certificate with its figure (latexmk, pdflatex: measured 1.3 CPU s; rounded up)
SECONDS_PDF = 2.0
#: a continuous round (:class:`blanket.exact.accounting.continuous_rounds.ShuffledContinuous`): one certified
#: blanket view per curve point (``points`` plus up to ``points`` refined), each O(S) for the lattice's support
#: ``S ≈ 2·13.5·sqrt(n)/h`` (measured: Laplace ε0 = 1, T = 10, get_epsilon: 22 s at n = 1000, h = 1/64, loaded
#: machine; rounded up)
SECONDS_PER_CONTINUOUS_POINT_SUPPORT = 1.5e-5
SECONDS_CONTINUOUS_FIXED = 1.0


def blanket_gamma(k: int, exp_epsilon0: float) -> float:
    """``γ = k/(e^{ε0} + k − 1)``, the blanket probability of k-RR (a float: a cost model only).  O(1)."""
    return k / (exp_epsilon0 + k - 1)


def kernel_passes_seconds(shape: object, passes: int = DOMINATING_PASSES + LOWER_PASSES) -> float:
    """One-core seconds of ``passes`` survival-kernel passes (default :data:`DOMINATING_PASSES` +
    :data:`LOWER_PASSES`) over a ``ShiftPair``-shaped pair (``outer_n``, ``outer_q``, ``inner_q`` balls or
    ``None``).  O(1)."""
    from flint import arb

    oq = getattr(shape, "outer_q", None)
    iq = getattr(shape, "inner_q", None)
    one = discretise_seconds(
        int(getattr(shape, "outer_n", 1)),
        None if oq is None else float(arb(oq).mid()),
        0.5 if iq is None else float(arb(iq).mid()),
    )
    return one * passes


def sampled_view_seconds(n: int, q: float, gamma: float) -> float:
    """Estimated one-core seconds of the sampled blanket view's pair (sampled k-RR rounds, fleets with ``q < 1``) at
    ``n`` users, participation ``q``, blanket probability ``gamma``: ``a + b·W²``, ``W = 24·sqrt(2qγn)``.  O(1).

    >>> 3 < sampled_view_seconds(10**4, 0.5, 0.54) < 15
    True
    """
    w = 24.0 * math.sqrt(max(2.0 * q * gamma * n, 1.0))
    return SECONDS_SAMPLED_FIXED + SECONDS_PER_SAMPLED_W2 * w * w


#: a sampled binary RR round's dataset-curve lower pair (:mod:`blanket.exact.accounting.sampled_binary_lower`), beyond
#: the route's preparation it shares with the round's curve: the certified test points and their exact hull, once per
#: round (n = 1000, q = 1/10, load 8: 0.22 CPU s for both orders; discretising the pair costs what the count pair's
#: survival kernel did, 0.07 s against 0.04 s at Δ = 1/16384).  A sweep more when the chosen ``C`` or its mirror was
#: not prepared (never in the cases measured: ``C = 1``) is not counted
SECONDS_SAMPLED_DATASET_CURVE = 0.3


def fleet_lower_seconds(n: int, rounds: int, *, discretise: bool = True) -> float:
    """Estimated one-core seconds of one query's work on the concrete lower pairs of a fleet round with sampling and
    several groups (:data:`SECONDS_FLEET_LOWER_QUERY`; with ``discretise``, also their discretisation, done once per
    grid): ``c·√(n/10⁶ · T/365)`` (``n`` honest users, ``T`` composed rounds of the query's grid).  O(1).

    >>> fleet_lower_seconds(10**4, 10) < fleet_lower_seconds(10**6, 365) < 1
    True
    """
    c = SECONDS_FLEET_LOWER_QUERY + (SECONDS_FLEET_LOWER_DISCRETISE if discretise else 0.0)
    return c * math.sqrt(max(n, 1) / 1e6 * max(rounds, 1) / 365)


def continuous_seconds(n: int, points: int, h: float) -> float:
    """Estimated one-core seconds of a continuous round's pairs at ``n`` users: ``2·points`` blanket views over a
    support of ``27·sqrt(n)/h`` lattice points (``h`` the lattice step), and two lattice sums on the step ``h/2`` (as four views) for the lower pair
    (:meth:`~blanket.exact.accounting.continuous_rounds.ShuffledContinuous.lower_pair`).  O(1).

    >>> continuous_seconds(1000, 16, 1 / 64) < continuous_seconds(10**5, 16, 1 / 64)
    True
    """
    support = 27.0 * math.sqrt(max(n, 1)) / h
    return SECONDS_CONTINUOUS_FIXED + SECONDS_PER_CONTINUOUS_POINT_SUPPORT * (2 * points + 4) * support


#: a geometric round's dataset-curve lower pair (exact.accounting.geometric_lower.curve_lower_pair): two lower-side
#: lattice sums of n copies over the window of ``curve_window`` cells, linear in the cells.  Measured (session 15,
#: CPU of ``curve_lower_pair`` alone, ε0 = 1, load 8–9 on 2 cores): m = 20, n = 10³ 1.5·10⁵ cells 0.65 s; n = 10⁴
#: 4.7·10⁵ cells 2.0 s (m = 5, 20, 100 alike); n = 10⁵ 7.5·10⁵ cells 3.1 s; n = 2·10⁵ 1.06·10⁶ cells 4.6 s
SECONDS_PER_GEOMETRIC_CURVE_CELL = 4.4e-6


def geometric_curve_seconds(cells: float) -> float:
    """Estimated one-core seconds of a geometric round's dataset-curve lower pair over a lattice window of ``cells``
    cells (:func:`blanket.exact.accounting.geometric_lower.curve_window`; :data:`SECONDS_PER_GEOMETRIC_CURVE_CELL`
    each).  O(1).

    >>> 1.5 < geometric_curve_seconds(474_284) < 2.5
    True
    """
    return SECONDS_PER_GEOMETRIC_CURVE_CELL * cells


#: binary RR with its grid-free summed lower end (the accountant's grid search stops at the first grid where the
#: mechanism's bracket is narrow, ``docs/composition.md`` §3 "Choosing the grid"): the composed support spans about
#: SPAN_SDS standard deviations of the T-round loss, ``σ1 ≈ (p − f)/sqrt(n p f)`` per round (the blanket view's loss
#: is about linear in the count of 1s); the split curve pair's upper end exceeds its limit by about
#: ``SPLIT_ERROR·sqrt(T)·Δ²/σ1`` (fitted 2026-11-29 on ε0 = 1: n = 10⁴, T = 10⁴ and n = 10⁶, T = 365 on Δ = 5·2⁻¹¹:
#: 0.027 and 0.029, the model 0.030 and 0.057), against ``ε ≈ 4.75·σ1·sqrt(T) + T·σ1²/2`` (δ = 10⁻⁶, a Gaussian loss)
SPAN_SDS = 24.0
SPLIT_ERROR = 0.5
#: the summed pair's work per order (two orders): a float search over ``W_S ≈ 32·sqrt(N p f)`` outcomes of the sum
#: (an FFT product) and a few certified thresholds (two certified binomial tails each).  Measured 2026-11-29 (CPU,
#: 2-core machine at load 2, NumPy search): 0.28–0.34 s per order at N = 3.65·10⁸ (W_S = 2.7·10⁵), 0.21 s at
#: N = 10⁸ (1.4·10⁵); the model gives 0.42 and 0.29
SECONDS_SUMMED_FIXED = 0.15
SECONDS_SUMMED_PER_OUTCOME = 1e-6


def _binary_loss_sd(n: int, exp_epsilon0: float) -> float:
    """``σ1 = (p − f)/sqrt(n p f)``: about the sd of one binary RR round's privacy loss, at most ``ε0`` (the loss lies
    in ``[−ε0, ε0]``; at ε0 = 60 and n = 4 the formula gave 10⁶ and a refused run of "2.4 h") (a cost model only).
    O(1)."""
    p = exp_epsilon0 / (1.0 + exp_epsilon0)
    f = 1.0 - p
    e0 = math.log(max(exp_epsilon0, 1.0 + 1e-12))
    return min(e0, max(p - f, 1e-12) / math.sqrt(max(n * p * f, 1e-12)))


def bracket_grid_length(n: int, exp_epsilon0: float, rounds: int, rel_width: float) -> float:
    """Modelled length of the composed PLD of ``rounds`` binary RR rounds of ``n`` users when the grid search stops at
    the mechanism's bracket: the first grid ``Δ0 = ε0/400`` if the split curve pair's modelled excess there is at
    most half of ``rel_width`` of the modelled ε, else one refinement (``Δ0/64``, the most one step refines); the
    support spans :data:`SPAN_SDS` standard deviations of the composed loss, and never more than the composed loss's
    range ``[−T·ε0, T·ε0]``.  O(1).

    >>> [round(bracket_grid_length(n, math.e, T, 0.02), -3) for n, T in ((10**4, 10**4), (10**6, 365))]
    [10000.0, 12000.0]
    """
    e0 = math.log(max(exp_epsilon0, 1.0 + 1e-12))
    s1 = _binary_loss_sd(n, exp_epsilon0)
    T = max(1, rounds)
    g0 = max(e0, 1e-6) / 400.0
    eps = 4.75 * s1 * math.sqrt(T) + T * s1 * s1 / 2
    g = g0 if SPLIT_ERROR * math.sqrt(T) * g0 * g0 / s1 <= rel_width * eps / 2 else g0 / 64
    return max(2.0, min(SPAN_SDS * math.sqrt(T) * s1, 2.0 * T * e0) / g)


#: the deciding lower kind composed again on a grid ``f`` times finer (accountant ``_refined_lower``): its
#: discretisation and self-compositions, modelled as REFINE_FIXED plus REFINE_PRODUCTS products of the refined
#: composed length ``f·L`` (``L`` its composed length on the lower grid), ``c·fL·log2(fL)`` each
#: (:data:`SECONDS_PER_REFINE_TERM`).  Calibrated 2026-11-29 evening (CPU, 2-core machine at load 5-9): 10-RR ε0 = 1,
#: n = 10⁶, T = 365, the backward concrete pair, L = 124 324: 13.1 CPU s on the grid ÷ 4, model 13.2 s (÷ 2: model
#: 6.35 s); OUE k = 128, n = 10⁶, T = 365, the banded third-value pair, L = 67 065: 3.8 CPU s on ÷ 2, model 3.35 s;
#: 3-RR n = 200, T = 10, L = 2294: 0.14 s on ÷ 2, 0.40 s on ÷ 4, model 0.28 / 0.37 s
REFINE_PRODUCTS = 3.0
REFINE_FIXED = 0.2


def lower_refine_seconds(length: int, factor: int) -> float:
    """Estimated one-core seconds of composing one lower kind again on a grid ``factor`` times finer, from its composed
    length ``length`` on the coarser grid (:data:`REFINE_FIXED` and :data:`REFINE_PRODUCTS` products of length
    ``factor·length``).  O(1).

    >>> 3 < lower_refine_seconds(67065, 2) < lower_refine_seconds(67065, 4) < 2.2 * lower_refine_seconds(67065, 2)
    True
    """
    L = max(2.0, float(factor) * max(1, length))
    return REFINE_FIXED + REFINE_PRODUCTS * SECONDS_PER_REFINE_TERM * L * math.log2(L)


#: one more query on a grid ``f`` times finer (the accountant's bracket refinement, ``_refine_bracket``): each
#: composed PLD of the query (length ``L`` on the coarser grid) composed again at length ``f·L``, BRACKET_PASS_UNITS
#: products of that length each (``SECONDS_PER_PRODUCT_TERM·fL·log2(fL)``: the squarings of a self-composition add
#: up to about two products of the final length), plus BRACKET_PASS_FIXED (the curve pairs' discretisation; the
#: survival kernel's passes are counted by the accountant from the rounds' shapes).  Checked on one case (task grid12,
#: CPU at load 2-3): 10-RR ε0 = 1, n = 10³, T = 365, the pass on 5/65536 after 5/32768 (six composed PLDs of
#: 4.6·10⁴-1.03·10⁵ points): 6.6 s, the model 8.8 s with the kernel's passes; its lower step (the backward concrete
#: pair ÷2, :func:`lower_refine_seconds`) about 1.4 s, modelled 3.1 s.  High on purpose: a budget choice, never a bound
BRACKET_PASS_UNITS = 2.0
BRACKET_PASS_FIXED = 0.3


def bracket_pass_seconds(lengths: list, factor: int = 2) -> float:
    """Estimated one-core seconds of the products of one query on a grid ``factor`` times finer, from the lengths of
    the composed PLDs on the coarser grid (:data:`BRACKET_PASS_UNITS` products of length ``factor·L`` each, and
    :data:`BRACKET_PASS_FIXED`).  O(len(lengths)).

    >>> 1 < bracket_pass_seconds([10**5, 10**5], 2) < bracket_pass_seconds([10**5, 10**5], 4) < 10
    True
    """
    total = BRACKET_PASS_FIXED
    for length in lengths:
        L = max(2.0, float(factor) * max(1, int(length)))
        total += BRACKET_PASS_UNITS * SECONDS_PER_PRODUCT_TERM * L * math.log2(L)
    return total


#: a single round's own certified searches (the accountant's ``_one_round``, ``certified.one_round_epsilon``: the
#: lower end's search, then the upper end's over every route): ONE_ROUND_FIXED, plus, where the exact five-atom
#: blanket view of a four-value record is a route (``certified.EXACT_VIEW_MAX_N`` / ``EXACT_VIEW_MAX_WORK``),
#: SECONDS_PER_EXACT_WORK per unit of its cost measure (``oracle_exact.exact_view_work``: engine calls × n) — the
#: searches evaluate it at a few ε.  Measured (task grid12, CPU of ``_one_round`` at δ = 10⁻⁶, load 5-7): OUE k = 128,
#: n = 10³, ε0 = 1 (work 1.43·10⁵) 29 s, ε0 = 2 (5.5·10⁴) 17 s (the model 32 and 13 s); see docs/composition.md §5e
#: "One round through the accountant"
ONE_ROUND_FIXED = 1.0
SECONDS_PER_EXACT_WORK = 2.2e-4
#: a geometric record's searches, in evaluations of its dominating-law route (``route_seconds``: one curve point's
#: model, curve_pairs.point_seconds): 11 upper evaluations and 12 cheaper lower ones (about an eighth each) at
#: m = 400, n = 10⁴, δ = 10⁻⁶ (task bounded14, profiled); rounded up.  Before, the fixed second alone; the whole
#: ``--rounds 1`` run took 14.1 CPU s (load 11) where this models 18.5 s of searches and 2.7 s of PLDs
ONE_ROUND_ROUTE_EVALUATIONS = 13


#: a geometric record's full view (exact.shuffled.geometric_dataset) in its one-round lower search, per √n: about
#: seven lattice sums of n copies (the first point's three, the later points' one each, the dataset text's three),
#: measured 6.5–7.4 extra CPU s at n = 10⁴ and 2.3–3.1 at n = 10³ (m = 5, 20, 100, ε0 = 1, δ = 10⁻⁶; load 5–12)
FULL_VIEW_SECONDS_PER_SQRT_N = 0.07


#: a δ query's one-round route (``certified.one_round_delta``, at doubling precision) beside the ε searches that
#: choose its grid: this share of the searches' work-dependent part.  Measured (session 15, CPU, load 6-7): one δ
#: against the ε searches, OUE k = 128, ε0 = 2, n = 10³ 5.7 / 12.2 s; SUE k = 16 11.9 / 21.1 s; geometric m = 20,
#: ε0 = 1, n = 10⁴ 1.5 / 8.8 s
ONE_ROUND_DELTA_SHARE = 0.5


def one_round_seconds(
    exact_work: int | None,
    route_seconds: float | None = None,
    full_view_n: int | None = None,
    quantity: str = "epsilon",
) -> float:
    """Estimated one-core seconds of a single round's own certified searches: :data:`ONE_ROUND_FIXED`, plus
    :data:`SECONDS_PER_EXACT_WORK` times ``exact_work`` (the exact five-atom view's cost measure where it is a route,
    else ``None``), plus :data:`ONE_ROUND_ROUTE_EVALUATIONS` times ``route_seconds`` (one evaluation of a geometric
    record's dominating-law route, else ``None``), plus :data:`FULL_VIEW_SECONDS_PER_SQRT_N` times ``√full_view_n``
    (a geometric record's full view over ``full_view_n`` users, else ``None``).  ``quantity="delta"``: ``blanket
    delta``'s path, those searches (its grid is chosen as for ε) and its one δ evaluation,
    :data:`ONE_ROUND_DELTA_SHARE` of their work-dependent part.  O(1).

    >>> one_round_seconds(None) < 2 < 20 < one_round_seconds(143_000) < 40
    True
    >>> 12 < one_round_seconds(None, 1.0) < 16
    True
    >>> one_round_seconds(143_000) < one_round_seconds(143_000, quantity="delta") < 1.6 * one_round_seconds(143_000)
    True
    """
    work = (
        (SECONDS_PER_EXACT_WORK * exact_work if exact_work else 0.0)
        + (ONE_ROUND_ROUTE_EVALUATIONS * route_seconds if route_seconds else 0.0)
        + (FULL_VIEW_SECONDS_PER_SQRT_N * full_view_n**0.5 if full_view_n else 0.0)
    )
    return ONE_ROUND_FIXED + work * (1 + (ONE_ROUND_DELTA_SHARE if quantity == "delta" else 0.0))


#: the sampled full view's search (the accountant's ``_sampled_full_one_round``: one evaluation at the composed lower
#: end, then usually 3–5 of the crossing): SAMPLED_FULL_EVALS evaluations of SECONDS_PER_SAMPLED_WORK per unit of
#: ``oracle_third.sampled_full_work``.  Measured (session 14, CPU of one δ, load 11–12): OUE k = 128, ε0 = 2,
#: n = 10³, q = 1/10 (work 2.5·10⁷) 1.1–2 s; SUE (3.1·10⁷) 2–3 s
SAMPLED_FULL_EVALS = 6
SECONDS_PER_SAMPLED_WORK = 7e-8


def sampled_full_seconds(work: int, evaluations: int = SAMPLED_FULL_EVALS) -> float:
    """Estimated one-core seconds of ``evaluations`` evaluations of the sampled full view of cost measure ``work``
    (:func:`blanket.exact.shuffled.oracle_third.sampled_full_work`): its ε search by default
    (:data:`SAMPLED_FULL_EVALS`), one for a δ query.  O(1).

    >>> 5 < sampled_full_seconds(25_000_000) < 20
    True
    >>> 1 < sampled_full_seconds(25_000_000, 1) < 3
    True
    """
    return evaluations * SECONDS_PER_SAMPLED_WORK * work


#: the binned route's evaluations (``oracle_third.sampled_binned_lower``, above the sorted route's guard), per unit of
#: ``oracle_third.sampled_binned_work``.  Measured (session 15, CPU of one δ, load 7–9): OUE k = 128, ε0 = 2,
#: n = 10⁴, q = 1/2 (work 6·10⁸) 3.7–4 s; n = 10³, q = 1/2 (1.4·10⁸) 1.5–3.6 s
SECONDS_PER_BINNED_WORK = 1e-8


def sampled_binned_seconds(work: int, evaluations: int = SAMPLED_FULL_EVALS) -> float:
    """Estimated one-core seconds of ``evaluations`` evaluations of the sampled full view on the binned route
    (:func:`blanket.exact.shuffled.oracle_third.sampled_binned_work`): its ε search by default
    (:data:`SAMPLED_FULL_EVALS`), one for a δ query.  O(1).

    >>> 10 < sampled_binned_seconds(600_000_000) < 60
    True
    """
    return evaluations * SECONDS_PER_BINNED_WORK * work


def summed_seconds(others: int, rounds: int, exp_epsilon0: float) -> float:
    """Estimated one-core seconds of binary RR's summed lower pair, both orders (:mod:`blanket.exact.accounting.
    summed_lower`): ``N = others`` other slots, ``T = rounds``.  O(1).

    >>> 0.3 < summed_seconds(365 * (10**6 - 1), 365, math.e) < 2
    True
    """
    return 2 * (SECONDS_SUMMED_FIXED + SECONDS_SUMMED_PER_OUTCOME * _summed_outcomes(others, rounds, exp_epsilon0))


def _summed_outcomes(others: int, rounds: int, exp_epsilon0: float) -> float:
    """``W_S = 32·sqrt((N + T)·p·(1 − p))``, ``p = e^{ε0}/(1 + e^{ε0})``: the summed pair's outcomes searched."""
    p = exp_epsilon0 / (1.0 + exp_epsilon0)
    return 32.0 * math.sqrt(max((others + rounds) * p * (1.0 - p), 1.0))


def picture_summed_seconds(others: int, rounds: int, exp_epsilon0: float) -> float:
    """Estimated one-core seconds of binary RR's summed lower pair over a certificate picture's δ(ε) grid
    (:data:`PICTURE_DELTA_POINTS` points, both orders each): ``N = others`` other slots, ``T = rounds``.  O(1).

    >>> 5 < picture_summed_seconds(365 * (10**5 - 1), 365, math.e) < 20
    True
    """
    return PICTURE_DELTA_POINTS * SECONDS_PICTURE_SUMMED_PER_OUTCOME * _summed_outcomes(others, rounds, exp_epsilon0)


def composed_length(rounds: int, length: float | None = None) -> float:
    """Modelled length of a query's composed PLD (the dominating pairs' final grid): ``LOSS_POINTS·T^LOSS_POWER`` (the
    grid the PLD sandwich asks for), or ``length`` when given (:func:`bracket_grid_length`: binary RR on its curve
    pair, where the grid search stops at the mechanism's bracket; at n = 2 that grid does not refine with T, so it can
    be the longer one: 6.5·10⁴ points at T = 100, modelled 7.1·10⁴, where the sandwich's model says 3.7·10⁴).  O(1).

    >>> composed_length(10**4, length=10**4)
    10000.0
    """
    return float(LOSS_POINTS * max(1, rounds) ** LOSS_POWER if length is None else length)


#: peak memory of a composed query: the interpreter with its libraries and one round's pairs (PLD_BYTES_FIXED), and
#: PLD_BYTES_PER_POINT per point of the composed length ``L`` (:func:`composed_length`, plus the curve pairs',
#: :func:`curve_length`): the cached composed PLDs (exact ``fmpz`` masses of about 100 bits: ~56 bytes a point with
#: their float estimates) and, during the last squaring, the two factors, the integer product before and after its
#: rescaling (~2·bits + log₂ L bits a point) and the float FFT estimating the masses (complex arrays of the next power
#: of two).  Measured 2026-11-29 evening (maximum RSS, ``resource.getrusage``, 2-core machine at load 2-8): binary RR
#: ε0 = 1, n = 2 (L modelled by :func:`bracket_grid_length`), T = 10⁴ / 10⁵ / 10⁶: L = 7.0·10⁵ / 2.19·10⁶ /
#: 6.80·10⁶, 336 MiB / 1.10 GiB / 2.70 GiB (model 474 MiB / 1.15 GiB / 3.31 GiB); the run of 10⁷ rounds of the session
#: before: 8.2 GB (model 10.1 GiB at L = 2.24·10⁷); binary RR n = 10⁵, T = 365, --curves off: 128 MiB (model 203 MiB);
#: 10-RR n = 10⁵ / 10⁶, T = 365 with curve pairs of 5.4·10⁵ / 9.2·10⁵ points: 295 / 572 MiB (model 395 / 613 MiB)
PLD_BYTES_FIXED = 150 << 20
PLD_BYTES_PER_POINT = 480
#: the printed estimate names the peak memory from this many bytes on
MEMORY_SHOWN_BYTES = 1 << 30


def products_bytes(rounds: int, length: float | None = None, curve_len: float = 0.0) -> float:
    """Estimated peak bytes of one composed query of ``rounds`` rounds: :data:`PLD_BYTES_FIXED` plus
    :data:`PLD_BYTES_PER_POINT` per point of :func:`composed_length` (``length`` as there) and of the curve pairs'
    composed length ``curve_len`` (:func:`curve_length`; both are cached side by side).  A model that refuses work,
    never a bound.  O(1).

    >>> 5e8 < products_bytes(10**5, length=2.2e6) < 2e9
    True
    """
    return PLD_BYTES_FIXED + PLD_BYTES_PER_POINT * (composed_length(rounds, length) + curve_len)


def curve_length(n: int, rounds: int, length: float) -> float:
    """Modelled composed length of a round's curve pair (k-RR, the oracles: ``cupper``/``clower``) at ``n`` users over
    ``rounds`` rounds: ``CURVE_POINTS·T^CURVE_T_POWER·n^CURVE_N_POWER``, at least the dominating pairs' composed
    ``length``.  O(1).

    >>> round(curve_length(10**6, 365, 1.2e5), -4), curve_length(2, 10**4, 2e6)
    (920000.0, 2000000.0)
    """
    return max(float(length), CURVE_POINTS * max(rounds, 1) ** CURVE_T_POWER * max(n, 1) ** CURVE_N_POWER)


def products_seconds(
    rounds: int,
    entries: int = 1,
    lower_factor: float = 1.0,
    length: float | None = None,
    curve_len: float = 0.0,
) -> float:
    """Estimated one-core seconds of the products of one composed query of ``rounds`` rounds in ``entries`` ledger
    entries: :data:`PRODUCT_UNITS` self-compositions of the final length ``L`` (:func:`composed_length`; the grid the
    PLD sandwich asks for; ``length``, when given, replaces it: :func:`composed_length`) for the
    dominating pairs and as many of length ``lower_factor·L`` for the lower pairs, each
    ``SECONDS_PER_PRODUCT_TERM·L·log2 L``; with ``curve_len`` (the curve pairs' composed length, :func:`curve_length`),
    also ``CURVE_UNITS + CURVE_UNITS_PER_DOUBLING·log2(curve_len/L)`` (at most ``log2 T``) products of that length.
    O(1).

    >>> products_seconds(365) < 20 < products_seconds(10**4, lower_factor=0.25) < 200
    True
    >>> products_seconds(10**4, length=10**4) < 1
    True
    """
    length = composed_length(rounds, length)
    low = max(2.0, lower_factor * length)

    def one(L: float) -> float:
        return SECONDS_PER_PRODUCT_TERM * L * math.log2(max(L, 2))

    units = CURVE_UNITS + CURVE_UNITS_PER_DOUBLING * math.log2(max(1.0, curve_len / length))
    curves = min(units, math.log2(max(rounds, 2))) * one(curve_len) if curve_len > 0 else 0.0
    return max(1, entries) * PRODUCT_UNITS * (one(length) + one(low)) + curves


@dataclass(frozen=True)
class CompositionCost:
    """An estimate of one composed query (one-core seconds per kind of work), and the cores the sweep runs on.

    ``unmodelled``: ledger entries without a cost model (a custom :class:`RoundEvent`), not counted; sampled rounds,
    fleets and continuous rounds have their own (coarse) models, counted in ``pld``.  ``memory``: the estimated peak
    bytes of the composed PLDs (:func:`products_bytes`), ``length`` the modelled composed length it rests on.
    """

    sweep: float
    curves: float
    pld: float
    cores: int
    unmodelled: int = 0
    picture: float = 0.0
    pdf: float = 0.0
    #: a single round's own certified searches (the accountant's ``_one_round``: :func:`one_round_seconds`)
    one_round: float = 0.0
    memory: float = 0.0
    length: float = 0.0

    @property
    def seconds(self) -> float:
        """Estimated wall-clock seconds: the sweep spread over ``cores``, the rest on one core (with a certificate's
        ``picture`` and ``pdf`` when they are counted)."""
        return self.sweep / max(1, self.cores) + self.curves + self.pld + self.one_round + self.picture + self.pdf

    def parts(self) -> str:
        """The parts that are not negligible, e.g. ``"worst-case curve sweep 7 min, PLDs 12 s"``."""
        out = []
        if self.sweep >= 1:
            out.append(f"worst-case curve sweep {human_duration(self.sweep / max(1, self.cores))}")
        if self.curves >= 1:
            out.append(f"curve pairs {human_duration(self.curves)}")
        out.append(f"PLDs {human_duration(self.pld)}")
        if self.one_round >= 1:
            out.append(f"one-round searches {human_duration(self.one_round)}")
        if self.picture >= 1:
            out.append(f"picture {human_duration(self.picture)}")
        if self.pdf >= 1:
            out.append(f"PDF {human_duration(self.pdf)}")
        if self.unmodelled:
            out.append(f"{self.unmodelled} ledger entries without a cost model not counted")
        if self.memory >= MEMORY_SHOWN_BYTES:
            out.append(f"peak memory about {human_size(self.memory)}")
        return ", ".join(out)

    def text(self) -> str:
        """``"about 7 min on 2 cores (worst-case curve sweep 7 min, PLDs 12 s)"``."""
        k = self.cores
        return f"about {human_duration(self.seconds)} on {k} core{'s' if k != 1 else ''} ({self.parts()})"

    def as_dict(self) -> dict:
        return {
            "seconds": round(self.seconds, 1),
            "cores": self.cores,
            "sweep_seconds": round(self.sweep, 1),
            "curve_pair_seconds": round(self.curves, 1),
            "pld_seconds": round(self.pld, 1),
            "one_round_seconds": round(self.one_round, 1),
            "unmodelled_entries": self.unmodelled,
            "picture_seconds": round(self.picture, 1),
            "pdf_seconds": round(self.pdf, 1),
            "memory_bytes": int(self.memory),
        }
