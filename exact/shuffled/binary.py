"""Exact privacy profiles of shuffled binary randomized response, on any dataset and in the worst case.

Model (replace-one neighbouring).  Each of ``n`` users holds a bit and
reports it through binary RR with ``e^{ε0}``: the bit is kept with
probability ``p = e^{ε0}/(1+e^{ε0})`` and flipped with probability
``f = 1/(1+e^{ε0})``.  The shuffler's output is equivalent to the number
``K`` of 1-reports (a sufficient statistic: the multiset of bits).  A dataset
is described by ``c``, the number of ones among the ``n − 1`` users other
than the differing one, and by the differing user's bit ``x``:

* ``K_other = Bin(c, p) + Bin(n−1−c, f)`` with law ``g`` (a Poisson-binomial
  law, hence log-concave with contiguous support);
* ``P_x(K = k) = f·g(k) + p·g(k−1)`` for ``x = 1`` and ``p·g(k) + f·g(k−1)``
  for ``x = 0``.

``δ_c(ε)`` is the larger of the two hockey-stick divergences
``D_{e^ε}(P_1‖P_0)`` ("forward", direction ``"1|0"``) and
``D_{e^ε}(P_0‖P_1)`` ("reverse", ``"0|1"``).  The worst case over all
datasets is ``max_c δ_c``.

Facts used (proved here, tested in ``tests/test_binary.py``):

1. *Monotone likelihood ratio.*  With ``r(k) = g(k−1)/g(k)`` (non-decreasing
   in ``k`` by log-concavity of ``g``; ``r(0) = 0``, ``r(n) = ∞``),
   ``P_1(k)/P_0(k) = (f + p·r)/(p + f·r)``, which is non-decreasing in ``r``
   because its derivative has the sign of ``p² − f² ≥ 0``.  Hence
   ``{k : P_1(k) > e^ε P_0(k)}`` is an upper interval ``{k ≥ t*}``, and
   ``d(k) = P_1(k) − e^ε P_0(k) < 0`` for every ``k < t*``.  The forward
   divergence lives in the *upper* tail of the count.
2. *Bit-flip symmetry.*  Flipping every input and every report maps the
   count ``K`` to ``n − K`` (a bijection of outputs, which preserves every
   hockey-stick divergence) and the dataset ``(c, x)`` to ``(n−1−c, 1−x)``;
   so ``D(P_0^{(c)}‖P_1^{(c)}) = D(P_1^{(n−1−c)}‖P_0^{(n−1−c)})``: the
   reverse direction at ``c`` is the forward direction at ``n−1−c``, and the
   worst case over all datasets and both directions is
   ``max_{0≤j≤n−1} forward(j)``.
3. *Post-processing.*  For ``e^ε ≥ e^{ε0}`` every ``d(k) ≤ 0`` (each report
   is ε0-LDP), so ``δ = 0`` exactly; the functions return the exact ``0``.
4. *The worst ``c`` is not always 0.*  ``Var(K_other) = (n−1)pf`` for every
   ``c``; datasets differ only in skewness and in the position of the mean
   on the lattice, so ``δ_c`` oscillates in ``c`` and the maximiser is near
   (not always at) the ends of the range.  :func:`delta_binary_worst`
   evaluates *every* ``c``.

Windowing (ball path).  The binomial laws are computed on windows around
their modes; the mass left out is bounded rigorously by a geometric series
(past the mode the pmf ratio ``b(i+1)/b(i) = (m−i)ρ/(i+1)`` is decreasing, so
the tail beyond ``i`` is at most ``b(i)·r/(1−r)`` with ``r`` the ratio at
``i``; the same below the window).  If the two factors leave out masses
``T_A`` and ``T_B``, the true ``g(k)`` lies in ``[g_window(k), g_window(k) + T]``
with ``T = T_A + T_B`` and ``g`` has mass at most ``T`` outside the window;
every ``d(k)`` is widened accordingly and ``[0, T]`` is added for outcomes
outside the window.

Fast routes (:mod:`exact.laws.binomial`).  One dataset: ``δ = max_t h(t)`` with
``h(t) = a·Ḡ(t) + b·Ḡ(t−1)`` (``Ḡ`` the upper tail of K_other,
``a = f − e^ε p``, ``b = p − e^ε f``; ``h(t) − h(t+1) = d(t)``, so by fact 1
``h`` is maximal at ``t*`` and every ``h(t)`` is a lower bound).  For
``c ∈ {0, n−1}`` K_other is one binomial, ``t*`` is in closed form and ``Ḡ``
an incomplete beta function: O(1) arb calls whatever ``n``.  Otherwise the
narrower binomial is windowed, the wider one computed exactly on the one range
the dot products touch: O(√n) ball operations (:func:`_directions_fast`).  The
worst case over all datasets runs in independent blocks on float64 kernels
with proved error bounds (``docs/numerics.md``), every candidate for the
maximum recomputed in balls (:func:`delta_binary_worst`).

Exact path.  When ``e^{ε0}`` and ``e^ε`` are rational and ``n`` is small
(≤ :data:`EXACT_MAX_N`), everything is computed in exact rationals
(``fmpq_poly``), which the tests use as ground truth for the ball path.

>>> from blanket.exact.mechanisms.finite import BinaryRR
>>> rr = BinaryRR(exp_epsilon0=3)
>>> delta_binary(rr, 2, 0, exp_epsilon=1)        # n = 2: total variation
3/8
>>> delta_binary(rr, 5, 2, exp_epsilon=3)        # ε ≥ ε0: exactly 0
0
>>> w = delta_binary_worst(rr, 6, exp_epsilon=2)
>>> w.value == max(delta_binary(rr, 6, c, exp_epsilon=2) for c in range(6))
True
"""

from __future__ import annotations

import math
import operator
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, SweepOptions
from blanket.exact.runtime.budget import SWEEP_BLOCK
from blanket.exact.runtime.executors import map_blocks
from blanket.exact.runtime.progress import Progress
from flint import arb, arb_poly, ctx, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

from blanket.exact.shuffled.binary_dataset import (  # noqa: F401  (re-exported: the one-dataset names, as before the split)
    EXACT_MAX_N,
    FAST_MIN_N,
    MAX_TSTAR_CANDIDATES,
    TAIL_EXTRA_BITS,
    _binom_exact,
    _binom_window,
    _check_c,
    _check_mech,
    _check_n,
    _ConvLaw,
    _ConvLawR,
    _directions_fast,
    _directions_single,
    _forward_ball,
    _forward_binomial,
    _forward_exact,
    _forward_fast,
    _interval,
    _is_zero_regime,
    _max,
    _max_of,
    _nonneg,
    _other_law_ball,
    _other_law_exact,
    _RangeMiss,
    _suffix_sums,
    _tau,
    _use_exact,
    count_law,
    delta_binary,
    forward_single,
    rr_params,
    smaller_group_first,
)


@dataclass(frozen=True)
class WorstCase:
    """The exact worst case of δ(ε) over all datasets and both directions.

    ``value``: enclosure of ``max_c δ_c(ε)`` (exact fmpq on the exact path).
    ``c``, ``direction``: a dataset attaining it (``c`` ones among the others;
    ``"1|0"`` means ``D(P_{x=1}‖P_{x=0})``); by bit-flip symmetry the same
    value is attained at ``(n−1−c, other direction)``.
    ``ties``: every ``c`` (forward direction) whose enclosure could not be
    separated from the maximum at this precision (``(c,)`` when decided);
    when there are several, ``value`` is the maximum of their enclosures.
    ``values``: the forward-direction enclosure for every ``c`` (index = c).
    """

    value: Enclosure
    c: int
    direction: str
    ties: tuple
    n: int
    values: list = field(repr=False, default_factory=list)

    @property
    def dataset(self) -> str:
        if isinstance(self.value, fmpq) and self.value == 0:
            return "every dataset (delta = 0 exactly: epsilon >= epsilon0, or no dataset has positive delta)"
        other = "x=0 vs x=1" if self.direction == "1|0" else "x=1 vs x=0"
        mine = "x=1 vs x=0" if self.direction == "1|0" else "x=0 vs x=1"
        s = (
            f"c={self.c} ones among the other {self.n - 1} users, differing user {mine} "
            f"(equivalently c={self.n - 1 - self.c}, {other})"
        )
        if len(self.ties) > 1:
            s += f"; not separated at this precision from c in {list(self.ties)[:10]}{'…' if len(self.ties) > 10 else ''}"
        return s


def delta_binary_worst(mech: KRR, n: int, **opts: Unpack[SweepOptions]) -> WorstCase:
    """The exact worst case of δ(ε) over *all* datasets (every c in 0..n−1, both directions).

    By bit-flip symmetry (fact 2) this is ``max_j forward(j)`` over
    ``j = 0..n−1``.  Every ``j`` is evaluated (no assumption about where the
    maximum is), in independent blocks of :data:`SWEEP_BLOCK` datasets
    (:func:`_sweep_block`, float route with proved error bounds, see
    ``docs/numerics.md``) mapped by :func:`exact.runtime.executors.map_blocks`:
    ``workers`` local processes (default every core) or the Dask cluster at
    ``scheduler`` (or ``$BLANKET_SCHEDULER``); the result is the same, byte
    for byte, whatever the executor.  Datasets the float route cannot decide
    and every dataset that may attain the maximum are recomputed by the ball
    route (:func:`_directions_fast`), so ``value`` has the ball route's width.

    Complexity: O(n·W) float operations (a few dot products of length W per
    dataset plus Bernoulli steps of the windows) and O(n) ball operations,
    ``W ≈ 29·sqrt(n p f)`` at 128 bits, i.e. O(n^{3/2}) overall with a small
    constant, spread over the workers; memory O(n) enclosures in the calling
    process plus O(SWEEP_BLOCK·W) floats per worker.  Measured (2 shared
    cores, ε0 = 1): about 2.5 s at n = 10⁴, 15–30 s at n = 10⁵; see
    :func:`exact.runtime.budget.estimate_worst_cost` and ``tests/benchmarks/bench_binary.py``.
    On the exact path (rational ``e^{ε0}``, ``e^ε``, n ≤ EXACT_MAX_N): O(n³)
    rational operations.

    The maximum is certified: ``value`` encloses ``max_j forward(j)``; the
    attaining ``c`` is reported, with ``ties`` listing every ``j`` whose
    enclosure overlaps the maximum's lower end (increase the precision to
    separate them).

    Keywords (:class:`~blanket.exact.numbers.types.SweepOptions`): ``epsilon`` or ``exp_epsilon``; ``workers``, ``scheduler``, ``progress``.
    """
    guards.check_options("delta_binary_worst", opts, SweepOptions)
    _check_mech(mech)
    n = _check_n(n)
    ee0, p, f = rr_params(mech)
    epsilon = opts.get("epsilon")
    ee = arith.exp_param(epsilon, opts.get("exp_epsilon"))
    if _is_zero_regime(ee, ee0, mech, epsilon):
        # ε ≥ ε0: δ = 0 on every dataset (post-processing); every c attains it
        return WorstCase(fmpq(0), 0, "1|0", (0,), n, [fmpq(0)] * n)
    if _use_exact(n, ee0, ee):
        assert isinstance(p, fmpq) and isinstance(f, fmpq)  # rr_params: an exact e^{eps0} gives exact p, f
        vals = [_forward_exact(_other_law_exact(p, f, n, j), p, f, ee) for j in range(n)]
        best = max(vals)
        ties = tuple(j for j, v in enumerate(vals) if v == best)
        return WorstCase(best, ties[0], "1|0", ties, n, vals)
    e0spec = (
        _spec(ee0, "ball")
        if isinstance(ee0, fmpq)
        else (("log", str(mech.epsilon0_exact)) if getattr(mech, "epsilon0_exact", None) is not None else ("ball", ee0))
    )
    espec: tuple[str, str | arb]  # what _spec describes: ("exp" | "log", "p/q") or ("ball", arb)
    if isinstance(ee, fmpq):
        espec = ("exp", str(ee))
    elif epsilon is not None and not isinstance(epsilon, arb):
        espec = ("log", str(arith.exact(epsilon, "epsilon")))
    else:
        espec = ("ball", arith.ball(ee))
    progress, workers, scheduler = opts.get("progress", False), opts.get("workers"), opts.get("scheduler")
    vals = _sweep(n, p, f, ee, progress, e0spec=e0spec, espec=espec, workers=workers, scheduler=scheduler)
    _recheck_ties(vals, n, p, f, ee, set())
    return _worst_from_values(vals, n)


#: seconds per dataset and per unit of window width of the ball route (:func:`_forward_fast`, one core, 128 bits):
#: measured about 0.9 ms per dataset at n = 680 (W = 350) and 7 ms at n = 40 000 (W = 2 800), project machine
BALL_SECONDS_PER_W = 2.7e-6


def _pilot_specs(mech: KRR, n: int, epsilon: Any, exp_epsilon: Any) -> tuple | None:
    """``(e0spec, espec, p, f)`` of the pilot dataset's query, or ``None`` when no sweep's float route runs (the
    zero regime, or the exact route at small n).  O(1)."""
    ee0, p, f = rr_params(mech)
    ee = arith.exp_param(epsilon, exp_epsilon)
    if _is_zero_regime(ee, ee0, mech, epsilon) or _use_exact(n, ee0, ee):
        return None
    e0spec = (
        _spec(ee0, "ball")
        if isinstance(ee0, fmpq)
        else (("log", str(mech.epsilon0_exact)) if getattr(mech, "epsilon0_exact", None) is not None else ("ball", ee0))
    )
    if isinstance(ee, fmpq):
        espec: tuple = ("exp", str(ee))
    elif epsilon is not None and not isinstance(epsilon, arb):
        espec = ("log", str(arith.exact(epsilon, "epsilon")))
    else:
        espec = ("ball", arith.ball(ee))
    return e0spec, espec, p, f


def _float_decides(n: int, j: int, e0spec: tuple, espec: tuple, prec: int, pilots: dict | None) -> bool:
    """Whether the float route decides dataset ``j`` at ``prec`` bits (:func:`_sweep_block` on that one dataset),
    remembered in ``pilots`` (keyed by ``(j, prec)``; the caller's dict for one query, so that
    :func:`ball_route_precision` and :func:`ball_route_seconds` share their pilots).  O(W) float operations the
    first time, O(1) after.  The windows' anchors are evaluated at :data:`PILOT_ANCHOR_PREC` bits (a choice only;
    at thousands of bits and n = 10⁹ the anchors were 90 % of a pilot's 1.7 s)."""
    key = (j, prec)
    if pilots is not None and key in pilots:
        return pilots[key]
    ok = _sweep_block(n, j, j + 1, e0spec, espec, prec, anchor_prec=PILOT_ANCHOR_PREC)[0] is not None
    if pilots is not None:
        pilots[key] = ok
    return ok


def ball_route_precision(
    mech: KRR,
    n: int,
    *,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    prec: int,
    cap: int,
    rel_tol: Any,
    pilots: dict | None = None,
) -> int:
    """The working precision at which a worst-case sweep that needs the ball route should start: ``prec`` when the
    float route decides the pilot dataset (the middle one; or no sweep runs), else the smallest ``prec·2^i ≤ cap``
    at which the ball route's radius on the pilot is at most ``rel_tol`` times a certified lower end of the worst
    case (the larger δ of the two end datasets, closed forms), so that the sweep's maximum can be tight at once
    (``cap`` when none is; ``prec`` when that lower end is not positive) — or, earlier, the first doubled
    precision at which the float route itself decides the pilot (its windows deepen with the precision).  Why: when δ is below the float route's resolution every dataset goes to the ball route, and a
    first pass at a precision that cannot resolve δ is a whole sweep spent in vain before the escalation doubles
    the precision (``--epsilon0 0.62 -n 40000 --epsilon 0.05``: 40 000 ball evaluations at 128 bits, minutes, where
    the float route decides at 256 bits in seconds; ``--epsilon 0.14``, δ ≈ 3.6·10⁻⁴⁸², needs 2048 bits: about
    3 h, refused at once instead of a pass per precision).  A choice only: the sweep's result is
    certified at any precision, and it still escalates if the worst dataset needs more.
    One ball evaluation of the pilot (its radius extrapolated as ``2^-prec``) and one float evaluation per doubling:
    O(W) ball plus O(W·log₂(cap/prec)) float operations, ``W`` the window width.  ``pilots``: a dict shared with
    :func:`ball_route_seconds` for the same query (the float pilots at each precision, evaluated once)."""
    _check_mech(mech)
    n = _check_n(n)
    specs = _pilot_specs(mech, n, epsilon, exp_epsilon)
    if specs is None:
        return prec
    e0spec, espec = specs[0], specs[1]
    j = (n - 1) // 2
    if _float_decides(n, j, e0spec, espec, prec, pilots):
        return prec
    with arith.precision(prec):  # a certified lower end of the worst case: the two end datasets (closed forms)
        params = _sweep_params(e0spec, espec)
        floor = max(arith.ball(_forward_fast(n, i, *params)).lower() for i in (0, n - 1))
    if not floor > 0:
        return prec
    need = arb(rel_tol) * floor  # the sweep's maximum is tight once every dataset's radius is below this
    if need < arb(2) ** (-(max(prec, cap) + RADIUS_FLOOR_BITS)):
        # below what any ball evaluation's radius reaches (the windows' tails, 2^-(prec+24), widen it; measured
        # >= 2^-(prec+26)): no precision up to cap passes the radius test, only the float pilots can stop earlier,
        # so the pilot's ball evaluation (seconds at n = 10^9) is not needed
        while prec < cap:
            prec = min(2 * prec, cap)
            if _float_decides(n, j, e0spec, espec, prec, pilots):
                return prec
        return cap
    with arith.precision(prec):
        t0 = time.process_time()
        r0 = arith.ball(_forward_fast(n, j, *_sweep_params(e0spec, espec))).rad()
        if pilots is not None:  # the same evaluation ball_route_seconds times: it is not run twice
            pilots[("ball seconds", j, prec)] = time.process_time() - t0
    start = prec
    while prec < cap:
        # the ball route's radius shrinks like 2^-prec (its windows' tolerance): extrapolated from one evaluation
        if r0 * arb(2) ** (start - prec) <= need:
            return prec
        prec = min(2 * prec, cap)
        if _float_decides(n, j, e0spec, espec, prec, pilots):
            return prec  # the float route's deeper windows at this precision decide the pilot: a fast sweep
    return cap


def ball_route_seconds(
    mech: KRR,
    n: int,
    *,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    prec: int | None = None,
    pilots: dict | None = None,
) -> float:
    """Estimated extra one-core seconds of the ball route in :func:`delta_binary_worst` (run on the sweep's
    executor, so a caller divides by its cores): ``0.0`` when the float sweep decides a pilot dataset, else the
    cost of re-evaluating all ``n`` datasets with balls: ``n`` times the larger of the model
    (``BALL_SECONDS_PER_W·W``, ``W`` the window width as in
    :func:`exact.runtime.budget.estimate_worst_cost`; the block-shared sweep used when ``n ≤ ARB_SWEEP_MAX_N``
    measured about the same per dataset) and the pilot dataset's own ball evaluation at ``prec`` bits (the
    sweep's working precision, :func:`ball_route_precision`; default the current one), timed
    (``time.process_time``; the middle dataset is about the dearest).  An *estimate*, not a bound: the float
    route fails on every dataset alike when δ is below its resolution (e.g. ``--epsilon0 0.62 -n 40000
    --epsilon 0.14``: 40 000 datasets at 10-20 ms each), which the float sweep's own estimate does not count.
    Above ``ARB_SWEEP_MAX_N`` the ball route runs on the sweep's executor (:func:`_ball_block`), at or below it in
    the calling process (:func:`_sweep_arb`).

    The pilot is the float route on the middle dataset (:func:`_sweep_block` on one dataset): O(W) float
    operations, W ≈ 29·sqrt(n p f), no sweep; ``pilots``: the dict :func:`ball_route_precision` filled for the same
    query (a float pilot already evaluated at ``prec`` is not run again).
    """
    _check_mech(mech)
    n = _check_n(n)
    specs = _pilot_specs(mech, n, epsilon, exp_epsilon)
    if specs is None:
        return 0.0
    e0spec, espec, p, f = specs
    prec = ctx.prec if prec is None else prec
    pilots = {} if pilots is None else pilots  # the middle dataset is also one of the spaced pilots below
    j = (n - 1) // 2
    if _float_decides(n, j, e0spec, espec, prec, pilots) and prec <= DEFAULT_SWEEP_PREC:
        return 0.0
    # the share of datasets the float route leaves to the ball route, from PILOTS evenly spaced ones (at a raised
    # precision the float route's deeper windows may decide some datasets and not others)
    js = sorted({j} | {(n - 1) * i // (PILOTS + 1) for i in range(1, PILOTS + 1)})
    failed = [i for i in js if not _float_decides(n, i, e0spec, espec, prec, pilots)]
    if not failed:
        return 0.0
    pf = float(arith.ball(p).mid()) * float(arith.ball(f).mid())
    W = 29 * math.sqrt(n * pf) + 10
    # a failing pilot's own ball evaluation, timed (the middle datasets are about the dearest): the model alone was
    # 2-3x short on a loaded machine (n = 40 000: 7 ms per dataset modelled, 13-17 ms measured)
    # (timed at the model's precision and both scaled linearly in the precision, as measured up to 1024 bits: a
    # timing at thousands of bits would itself take seconds at n = 10^6)
    jb = min(failed, key=lambda i: abs(i - j))
    measured = pilots.get(("ball seconds", jb, DEFAULT_SWEEP_PREC))  # timed by ball_route_precision already
    if measured is None:
        measured = _ball_pilot_seconds(n, jb, e0spec, espec, p, f)
    scale = max(1.0, prec / DEFAULT_SWEEP_PREC)
    return n * len(failed) / len(js) * max(BALL_SECONDS_PER_W * W, measured) * scale


#: pilot datasets besides the middle one for the ball route's share (:func:`ball_route_seconds`)
PILOTS = 8
#: a ball evaluation's radius at ``prec`` bits is above ``2^-(prec + RADIUS_FLOOR_BITS)`` (the windows' tails
#: widen it by about 2^-(prec+24); measured >= 2^-(prec+26) over eps0 0.62-3, n 5e3-1e7; a choice only)
RADIUS_FLOOR_BITS = 64
#: the window width the ball route's timing pilot is run at when the real one is wider (:func:`_ball_pilot_seconds`)
BALL_PILOT_W = 60_000
#: t* this many standard deviations or more from the mean: the ball route's fast windows miss it (its full-scan
#: fallback runs); at most ``_Z_NEAR``: they hold it.  The timing pilot is shrunk only within one of the two regimes
_Z_FAR, _Z_NEAR = 24.0, 8.0


def _ball_pilot_seconds(n: int, jb: int, e0spec: tuple, espec: tuple, p: Any, f: Any) -> float:
    """One-core seconds of the ball route (:func:`_forward_fast` at :data:`DEFAULT_SWEEP_PREC` bits) on dataset
    ``jb``, timed (``time.process_time``).  When its window ``W ≈ 29·sqrt(n p f)`` is wider than
    ``2·BALL_PILOT_W`` and ``t*`` lies in the same regime at both sizes (the Gaussian guess of its distance from the
    mean, ``z = σ·|log(−a/b)|``, at least ``_Z_FAR`` standard deviations at both or at most ``_Z_NEAR`` at both),
    the dataset at the same relative position of a smaller ``n'`` with window ``BALL_PILOT_W`` is timed instead
    and scaled by ``W log W / (W' log W')`` (the cost of its window product): at n = 10⁹, eps0 = 2, eps = 0.01
    0.8 s instead of 3.6 s, per-W cost within 10 % (measured 1.04e-5, 1.10e-5, 1.22e-5 s at n = 10⁷, 10⁸, 10⁹;
    W log W scaling: 1.27e-5, 1.21e-5).  An estimate; O(min(W, BALL_PILOT_W)·log) ball work."""
    pf_, ff_ = float(arith.ball(p).mid()), float(arith.ball(f).mid())

    def width(m: int) -> float:
        return 29 * math.sqrt(m * pf_ * ff_) + 10

    m, jm = n, jb
    W = width(n)
    if W > 2 * BALL_PILOT_W:
        n2 = max(2, int(((BALL_PILOT_W - 10) / 29) ** 2 / (pf_ * ff_)))
        with arith.precision(DEFAULT_SWEEP_PREC):
            _, _, ee = _sweep_params(e0spec, espec)
            ef = float(arith.ball(ee).mid())
        a, b = ff_ - ef * pf_, pf_ - ef * ff_
        if a < 0 < b:
            lr = abs(math.log(-a / b))
            z, z2 = math.sqrt(n * pf_ * ff_) * lr, math.sqrt(n2 * pf_ * ff_) * lr
            if (z >= _Z_FAR and z2 >= _Z_FAR) or (z <= _Z_NEAR and z2 <= _Z_NEAR):
                m, jm = n2, max(1, min(n2 - 2, round(jb * (n2 - 1) / max(1, n - 1))))
    with arith.precision(DEFAULT_SWEEP_PREC):
        params = _sweep_params(e0spec, espec)
        t0 = time.process_time()
        _forward_fast(m, jm, *params)
        measured = time.process_time() - t0
    if m != n:
        W2 = width(m)
        measured *= W * math.log(W) / (W2 * math.log(W2))
    return measured


#: the working precision the ball route's model (:data:`BALL_SECONDS_PER_W`) was measured at
DEFAULT_SWEEP_PREC = 128
#: the precision of the float pilots' window anchors (:func:`_float_decides`; binary64 keeps 53 bits of them)
PILOT_ANCHOR_PREC = 192


# ---------------------------------------------------------------- the sweep over all datasets (blocks)
#: candidate thresholds examined around the guess of t* per dataset in the float sweep
SWEEP_ROWS = 2


def _spec(x, what: str):
    """A picklable exact description of a parameter: ``("exp", "p/q")`` (e^{ε} rational), ``("log", "p/q")``
    (ε rational, e^{ε} = exp(ε) as a ball in the worker) or ``("ball", arb)`` (pickled exactly by
    :mod:`exact.runtime.executors`)."""
    if isinstance(x, fmpq):
        return ("exp", str(x))
    return ("ball", x) if what == "ball" else ("log", str(x))


def _from_spec(spec: tuple) -> Any:
    kind = spec[0]
    if kind == "exp":
        return arb(fmpq(*map(int, (spec[1].split("/") + ["1"])[:2])))
    if kind == "log":
        return arb(fmpq(*map(int, (spec[1].split("/") + ["1"])[:2]))).exp()
    return spec[1]


def _sweep_params(e0spec, espec):
    ee0 = _from_spec(e0spec)
    ee = _from_spec(espec)
    f = 1 / (ee0 + 1)
    return ee0 * f, f, ee


def _sweep_tol(prec: int) -> fmpq:
    return max(fmpq(1, 2 ** (prec + TAIL_EXTRA_BITS)), laws.MIN_FLOAT_TOL)


def _sweep_block(n: int, j0: int, j1: int, e0spec, espec, prec: int, anchor_prec: int | None = None) -> list:
    """forward(j) for ``j0 ≤ j < j1`` (ball enclosures; ``None`` where the float route could not decide).

    Module-level and picklable: only ints, exact parameter specs (:func:`_spec`)
    and the precision cross the process boundary, and the result depends on
    nothing else (no state carried between blocks), so every executor returns
    the same bytes.

    Float route (b) of :mod:`exact.laws.binomial` with proved bounds: the law of the
    others ``A_j * B_j`` (``A_j = Bin(j, p)``, ``B_j = Bin(n−1−j, f)``) is built
    from one float window of ``A_{j0}`` stepped up by ``+Bernoulli(p)``
    (:func:`exact.laws.binomial.bernoulli_step`) and one of ``B_{j1−1}`` with its suffix
    sums stepped down by ``+Bernoulli(f)``; the windows leave out mass ``T``.
    Per dataset, a few coefficients ``g(t)`` and ``Ḡ(t)`` near ``t*`` are dot
    products (:func:`exact.laws.binomial.window_dots`), turned into balls with their
    proved relative error, widened by ``T``; ``t*`` is certified by the signs
    of ``d`` in ball arithmetic and ``δ_j = max_t h(t)`` over the certified
    range (see :func:`_directions_fast`).  Cost O(W·(K + rows)) float
    operations for a block of K datasets plus O(W/256) arb calls,
    W ≈ 29·sqrt(n p f) at 128 bits; memory O(K·W).  ``anchor_prec``: the float windows' anchor precision
    (:func:`exact.laws.binomial.float_window`; the pilots' choice, the sweep leaves it ``None``).
    """
    with arith.precision(prec):
        p, f, ee = _sweep_params(e0spec, espec)
        a, b = f - ee * p, p - ee * f
        tol = _sweep_tol(prec)
        p_hat, e_p = laws.float_param(p)
        f_hat, e_f = laws.float_param(f)
        e_pf = max(e_p, e_f)
        K = j1 - j0
        try:
            if j0 == 0:
                av, oA, rA, TA = np.ones(1), 0, 0.0, arb(0)
            else:
                FA = laws.float_window(j0, p, tol, anchor_prec=anchor_prec)
                av, oA, rA, TA = FA.values, FA.offset, FA.rel, FA.tail
            mB = n - j1
            if mB == 0:
                bv, oB, rB, TB = np.ones(1), 0, 0.0, arb(0)
            else:
                FB = laws.float_window(mB, f, tol, anchor_prec=anchor_prec)
                bv, oB, rB, TB = FB.values, FB.offset, FB.rel, FB.tail
        except laws.FloatRouteUnavailable:
            return [None] * K
        Gv, rG = laws.suffix_sums(bv, rB)
        As = []
        for k in range(K):
            As.append(av)
            if k + 1 < K:
                av = laws.bernoulli_step(av, p_hat, f_hat)
        T = arb((TA + TB).upper())
        # gradual underflow (docs/numerics.md, Lemma 6): at most 2^-1074 absolute per operation on top of the
        # relative bounds; every value below passes fewer than 4K + 4W + 64 operations of that kind
        E = arb(laws.ETA) * (4 * K + 4 * (len(As[-1]) + len(bv) + K) + 64) * 16
        wide = (-E).union(arb((T + E).upper()))
        # one relative bound for the whole block (each bound grows with the number of Bernoulli steps, ≤ K,
        # and with the number S of sub-sums in window_dots, ≤ S_max for the fixed block length L)
        L = max(1, math.isqrt(len(As[-1])))
        S_max = -(-len(As[-1]) // L)
        gam = laws.gamma(L + S_max - 1)
        rAK = laws.bernoulli_rel(rA, e_pf, K)
        fac_g = laws.ball_factor(laws.rel_combine(rAK, laws.bernoulli_rel(rB, e_pf, K), gam))
        fac_G = laws.ball_factor(laws.rel_combine(rAK, laws.bernoulli_rel(rG, e_pf, K), gam))
        out = [None] * K
        # Gaussian guess of t* for the last dataset (speed only): g(k−1)/g(k) ≈ exp((2(k−μ)−1)/(2σ²))
        pf_, ff_ = float(p.mid()), float(f.mid())
        af, bf = float(a.mid()), float(b.mid())
        sig2 = (n - 1) * pf_ * ff_
        try:
            shift = sig2 * math.log(-af / bf) if af < 0 < bf else 0.0
        except (ValueError, ZeroDivisionError):
            shift = 0.0
        guess = None
        for k in range(K - 1, -1, -1):
            j = j0 + k
            if guess is None:
                guess = int(math.floor(j * pf_ + (n - 1 - j) * ff_ + 0.5 + shift)) + 1
            res = _float_forward(As[k], oA, bv, Gv, oB, a, b, af, bf, wide, fac_g, fac_G, L, guess)
            if res is not None:
                out[k], guess = res
            if k > 0:  # B_{j−1} = B_j + Bernoulli(f)
                bv = laws.bernoulli_step(bv, f_hat, p_hat)
                Gv = laws.tail_step(Gv, f_hat, p_hat)
        return out


def _float_forward(av, oA, bv, Gv, oB, a, b, af, bf, wide, fac_g, fac_G, L, guess):
    """``(enclosure of forward, t*)`` for the law ``A * B`` given as float windows, or ``None`` (see
    :func:`_sweep_block`); ``fac_g``/``fac_G`` turn a float into its enclosure (:func:`exact.laws.binomial.ball_factor`).
    O(rows·W) float operations and O(rows) ball operations."""
    R = SWEEP_ROWS
    base = oA + oB
    t0 = guess
    for _ in range(8):
        lo_t = t0 - R - 1  # rows: g(t) for t in lo_t .. t0 + R
        count = 2 * R + 2
        g, _ = laws.window_dots(av, bv, 0.0, lo_t - base, count, L)
        dfl = af * g[1:] + bf * g[:-1]  # d(t) for t in lo_t+1 .. t0+R (float: only to locate)
        pos = np.nonzero(dfl > 0)[0]
        if len(pos) == 0:
            t0 += 2 * R
            continue
        i = int(pos[0])
        if i == 0:
            t0 -= 2 * R
            continue
        gl = g.tolist()
        cache = {}

        def gb(t):
            if t not in cache:
                cache[t] = arb(gl[t - lo_t]) * fac_g + wide
            return cache[t]

        def d(t):
            return a * gb(t) + b * gb(t - 1)

        t1 = t2 = lo_t + 1 + i
        while t1 - 1 > lo_t and not (d(t1 - 1) < 0):
            t1 -= 1
        while t2 <= t0 + R and not (d(t2) > 0):
            t2 += 1
        if not (t1 - 1 > lo_t and t2 <= t0 + R):
            return None
        Gs, _ = laws.window_dots(av, Gv, float(Gv[0]), t2 - base, 1, L)
        G = {t2: arb(float(Gs[0])) * fac_G + wide}  # one dot product; Ḡ(t−1) = Ḡ(t) + g(t−1) in balls
        for t in range(t2, t1 - 1, -1):
            G[t - 1] = G[t] + gb(t - 1)
        best = _max_of(a * G[t] + b * G[t - 1] for t in range(t1, t2 + 1))
        return _nonneg(best), t2
    return None


def _sweep(
    n: int, p, f, ee, progress: bool, *, e0spec=None, espec=None, workers=None, scheduler=None, block: int | None = None
) -> list:
    """forward(j) for every j = 0..n−1: blocks of :data:`SWEEP_BLOCK` datasets (:func:`_sweep_block`) mapped
    by :func:`exact.runtime.executors.map_blocks`; datasets the float route leaves undecided are computed by the
    ball route (:func:`_forward_fast`).  See :func:`delta_binary_worst`."""

    K = block or SWEEP_BLOCK
    prec = ctx.prec
    if e0spec is None:
        e0spec, espec = ("ball", arith.ball(p) / arith.ball(f)), ("ball", arith.ball(ee))
    tasks = [(n, j0, min(n, j0 + K), e0spec, espec, prec) for j0 in range(0, n, K)]
    res = map_blocks(
        _sweep_block,
        tasks,
        workers=workers,
        scheduler=scheduler,
        progress=None if progress else False,
        desc=f"worst case over {n} datasets",
        sizes=[t[2] - t[1] for t in tasks],
    )
    vals = [v for r in res for v in r]
    p, f, ee = arith.ball(p), arith.ball(f), arith.ball(ee)
    todo = [j for j, v in enumerate(vals) if v is None]
    if len(todo) > RECHECK_MAX and n <= ARB_SWEEP_MAX_N:
        # many datasets the float route cannot decide (e.g. δ below the resolution everywhere): one
        # block-shared ball sweep is cheaper than a ball evaluation per dataset
        allv = _sweep_arb(n, p, f, ee, progress)  # its own bar: the float sweep's estimate did not count it
        for j in todo:
            vals[j] = allv[j]
    elif len(todo) > RECHECK_MAX:
        # the ball route for many datasets (all n when the float route resolves none, e.g. tiny deltas): blocks of
        # datasets on the same executor as the float sweep, under their own bar (ETA, and the run's --time-budget),
        # since the float sweep's estimate did not count them
        kb = max(1, min(BALL_BLOCK, -(-len(todo) // 64)))
        chunks = [tuple(todo[i : i + kb]) for i in range(0, len(todo), kb)]
        done = map_blocks(
            _ball_block,
            [(n, js, e0spec, espec, prec) for js in chunks],
            workers=workers,
            scheduler=scheduler,
            progress=None if progress else False,
            desc=f"ball route for {len(todo)} of {n} datasets (the float route could not decide them)",
            sizes=[len(js) for js in chunks],
        )
        for js, vs in zip(chunks, done):
            for j, v in zip(js, vs):
                vals[j] = v
    else:
        for j in todo:
            vals[j] = _forward_fast(n, j, p, f, ee)
    return vals


#: datasets per task of the ball route on the executor (:func:`_ball_block`; a task takes a few ms per dataset)
BALL_BLOCK = 256


def _ball_block(n: int, js: tuple, e0spec, espec, prec: int) -> list:
    """:func:`_forward_fast` (the ball route, certified) for the datasets ``js``, with the parameters rebuilt from
    their exact specs (:func:`_spec`), so that every executor returns the same bytes.  Module-level and picklable.
    O(len(js)·W) ball operations, ``W`` the window width (:data:`BALL_SECONDS_PER_W`)."""
    with arith.precision(prec):
        p, f, ee = _sweep_params(e0spec, espec)
        return [_forward_fast(n, j, p, f, ee) for j in js]


#: most datasets re-evaluated by the ball route per round of :func:`_recheck_ties`
RECHECK_MAX = 64
#: largest n for which undecided datasets may be settled by the previous all-ball sweep (:func:`_sweep_arb`)
ARB_SWEEP_MAX_N = 20000


def _recheck_ties(vals, n, p, f, ee, exact: set) -> None:
    """Replace float-route values that may attain the maximum by the ball route's (tight) values, in place.

    Rounds: every dataset whose enclosure reaches the largest lower end and
    was not re-evaluated yet is recomputed by :func:`_forward_fast` (at most
    :data:`RECHECK_MAX` per round, largest upper ends first), until every
    candidate is a ball-route value or a round brings nothing new; candidates
    left (e.g. when δ is below the resolution on many datasets) keep their
    valid float-route enclosures and are reported as ties.  Deterministic:
    depends only on ``vals``.
    """
    p, f, ee = arith.ball(p), arith.ball(f), arith.ball(ee)
    for _ in range(8):
        lower_max = max(arith.ball(v).lower() for v in vals)
        todo = [j for j, v in enumerate(vals) if j not in exact and not (arith.ball(v).upper() < lower_max)]
        if not todo:
            return
        todo.sort(key=lambda j: (-float(arith.ball(vals[j]).upper().mid()), j))
        for j in todo[:RECHECK_MAX]:
            vals[j] = _forward_fast(n, j, p, f, ee)
            exact.add(j)
        if len(todo) > RECHECK_MAX:
            return


def _worst_from_values(vals, n) -> WorstCase:
    lower_max: arb | None = None
    for v in vals:
        lo = arith.ball(v).lower()
        lower_max = lo if lower_max is None or lo > lower_max else lower_max
    assert lower_max is not None  # vals holds forward(j) for j = 0..n-1, n >= 2
    ties = tuple(j for j, v in enumerate(vals) if not (arith.ball(v).upper() < lower_max))
    # the j attaining lower_max is a tie (its upper end is at least its lower end): ties is never empty
    best = arith.maximum([arith.ball(vals[j]) for j in ties])
    # pick the representative: the tie with the largest midpoint
    rep = max(ties, key=lambda j: arith.ball(vals[j]).mid())
    return WorstCase(best, rep, "1|0", ties, n, vals)


def _sweep_arb(n: int, p: arb, f: arb, ee: arb, progress: bool, block: int | None = None) -> list:
    """forward(j) for every j = 0..n−1 — the previous all-ball sweep (kept as an independent route for the
    tests and the "before" column of the benchmark).

    Blocks of ``K`` consecutive ``j = j0 + i`` share the factor
    ``H = Bin(j0, p) * Bin(n − j0 − K, f)`` (one windowed convolution per
    block, defect ``T`` as in the module docstring); then
    ``g_j = H * s_i`` with the short exact law ``s_i = Bin(i, p) * Bin(K−1−i, f)``.
    With ``t_i = s_i·((f − e^ε p) + (p − e^ε f) z)``:

    * ``d_j(t) = Σ_l t_i(l) H(t−l)``  and
    * ``h_j(t) = Σ_{k≥t} d_j(k) = Σ_l t_i(l) G_H(t−l)``, ``G_H`` the suffix sums of ``H``,

    each true value within ``(|f − e^ε p| + |p − e^ε f|)·T`` of the value
    computed from the window.  By the monotone likelihood ratio ``h_j`` is
    unimodal with maximum ``D_j = h_j(t*)`` at the first ``t*`` with
    ``d_j(t*) > 0``; a range ``[t1, t2]`` is certified to contain ``t*``
    when ``d_j(t1−1) < 0`` and ``d_j(t2) > 0`` are certain, and then
    ``D_j`` is enclosed by the maximum of the balls ``h_j(t)``, ``t ∈ [t1, t2]``.
    The range starts around the previous ``j``'s ``t*`` and widens until
    certified (at the window's ends, the left-out mass is added).
    Cost per block (K = 64 datasets) O(W log W + W); per ``j`` O(K·range) ball operations (a few dot
    products of length K+1; the range is usually 5 outcomes).
    """

    tol = _tau(extra=max(1, int(math.log2(n)) + 1))
    K = block or 64
    K = max(1, min(K, n))
    a = f - ee * p
    b = p - ee * f
    ab = arb_poly([a, b])
    widen_factor = arb((abs(a) + abs(b)).upper())
    pw = [arb_poly([1])]
    fw = [arb_poly([1])]
    lin_p, lin_f = arb_poly([f, p]), arb_poly([p, f])
    for _ in range(K):
        pw.append(pw[-1] * lin_p)
        fw.append(fw[-1] * lin_f)
    t_cache: dict = {}

    def t_polys(Kb):
        if Kb not in t_cache:
            polys = [pw[i] * fw[Kb - 1 - i] * ab for i in range(Kb)]
            lists = [q.coeffs() + [arb(0)] * (Kb + 1 - len(q.coeffs())) for q in polys]
            t_cache[Kb] = list(zip(polys, lists))
        return t_cache[Kb]

    out = [None] * n
    t_guess = None
    with Progress(n, f"worst case over {n} datasets", enabled=None if progress else False) as bar:
        for j0 in range(0, n, K):
            Kb = min(K, n - j0)
            av, ao, at = _binom_window(j0, p, tol)
            bv, bo, bt = _binom_window(n - j0 - Kb, f, tol)
            Hc = (arb_poly(av) * arb_poly(bv)).coeffs()
            ho = ao + bo
            T = arb((at + bt).upper())
            # suffix sums G[i] = sum_{r >= i} Hc[r]
            G: list = [None] * (len(Hc) + 1)
            acc = arb(0)
            G[len(Hc)] = acc
            for r in range(len(Hc) - 1, -1, -1):
                acc = acc + Hc[r]
                G[r] = acc
            total = G[0]
            extra = arb(0, (widen_factor * T).upper()) if not T.is_zero() else None
            tps = t_polys(Kb)
            for i in range(Kb):
                j = j0 + i
                val, t_guess = _forward_block_one(Hc, G, total, ho, tps[i][0], Kb, T, extra, ee, t_guess, tps[i][1])
                out[j] = val
                bar.update()
    return out


def _window_slice(vals, offset, start, stop, left, right):
    """``arb_poly`` of the values at indices ``start..stop−1`` of a window (``left``/``right`` outside it)."""
    lo = start - offset
    hi = stop - offset
    n = len(vals)
    pre = [left] * max(0, min(hi, 0) - lo) if lo < 0 else []
    mid = vals[max(lo, 0) : max(0, min(hi, n))]
    post = [right] * max(0, hi - max(lo, n)) if hi > n else []
    return arb_poly(pre + mid + post)


def _conv_at(arr, off, t, tl, left, right):
    """``Σ_l tl[l]·arr(t − l)`` with ``arr(u) = arr[u − off]`` inside the window, ``left`` below it and
    ``right`` above it (one coefficient of the product, O(len(tl)) ball operations)."""
    L = len(tl)
    a = t - L + 1 - off
    b = t - off + 1
    n = len(arr)
    if a >= 0 and b <= n:
        seg = arr[a:b]
    else:
        seg = [arr[u] if 0 <= u < n else (left if u < 0 else right) for u in range(a, b)]
    return sum(map(operator.mul, tl, reversed(seg)), arb(0))


def _forward_block_one(Hc, G, total, ho, tpoly, Kb, T, extra, ee, t_guess, tl=None):
    """D_j from the block factor (see :func:`_sweep`); returns ``(enclosure, t*)``.

    With a guess of ``t*`` (the previous dataset's), the few needed values of
    ``d_j`` and ``h_j`` are single coefficients of the products (dot products
    of length K+1, :func:`_conv_at`); without one, whole products are formed.
    """
    L = Kb + 1  # t_i has degree Kb: indices l = 0..Kb
    lo = ho  # lowest index where d_j can be non-zero (from the window)
    hi = ho + len(Hc) - 1 + L  # one past the highest such index
    zero = arb(0)
    if t_guess is not None:
        # the previous dataset's t* may lie outside this block's window: clamp it, or the
        # widening steps below (proportional to t2 - t1) would not move and never end
        t_guess = min(max(t_guess, lo), hi)
    if t_guess is not None and tl is not None:

        def d_at(t):
            v = _conv_at(Hc, ho, t, tl, zero, zero)
            return v + extra if extra is not None else v

        def h_at(t):
            v = _conv_at(G, ho, t, tl, total, zero)
            return v + extra if extra is not None else v

        t1, t2 = max(lo, t_guess - 2), min(hi, t_guess + 2)
        while t2 - t1 <= 64:
            ok_lo = t1 <= lo or d_at(t1 - 1) < 0
            ok_hi = t2 >= hi or d_at(t2) > 0
            if ok_lo and ok_hi:
                return _finish_block_one([h_at(t) for t in range(t1, t2 + 1)], t1, t2, lo, hi, T, ee)
            step = 2 * max(t2 - t1 + 2, 2)
            if not ok_lo:
                t1 = max(lo, t1 - step)
            if not ok_hi:
                t2 = min(hi, t2 + step)
    if t_guess is None:
        t1, t2 = lo, hi
    else:
        t1, t2 = max(lo, t_guess - 2), min(hi, t_guess + 2)
    while True:
        # d(t) for t in [t1-1, t2], h(t) for t in [t1, t2]
        A = t1 - 1
        Hs = _window_slice(Hc, ho, A - L + 1, t2 + 1, zero, zero)
        dvals = (Hs * tpoly).coeffs()[L - 1 : L - 1 + (t2 - A + 1)]
        dvals = dvals + [zero] * ((t2 - A + 1) - len(dvals))
        if extra is not None:
            dvals = [v + extra for v in dvals]
        ok_lo = t1 <= lo or dvals[0] < 0
        ok_hi = t2 >= hi or dvals[-1] > 0
        if ok_lo and ok_hi:
            break
        step = 2 * max(t2 - t1 + 2, 2)
        if not ok_lo:
            t1 = max(lo, t1 - step)
        if not ok_hi:
            t2 = min(hi, t2 + step)
    Gs = _window_slice(G, ho, t1 - L + 1, t2 + 1, total, zero)
    hvals = (Gs * tpoly).coeffs()[L - 1 : L - 1 + (t2 - t1 + 1)]
    hvals = hvals + [zero] * ((t2 - t1 + 1) - len(hvals))
    if extra is not None:
        hvals = [v + extra for v in hvals]
    return _finish_block_one(hvals, t1, t2, lo, hi, T, ee)


def _finish_block_one(hvals, t1, t2, lo, hi, T, ee):
    """Enclosure of ``max_t h(t)`` from the (widened) values on a range certified to hold ``t*``."""
    best: arb | None = None
    best_t = t1
    for t, v in zip(range(t1, t2 + 1), hvals):
        if best is None or v.mid() > best.mid():
            best_t = t
        best = v if best is None else best.max(v)
    assert best is not None  # the range t1..t2 is not empty
    if not T.is_zero():
        Tu = arb(T.upper())
        if t1 <= lo:  # maximiser may lie below the window: h(t) <= h(lo) + (1 + e^ε)·T there
            best = best + _interval(0, (1 + ee) * Tu)
        if t2 >= hi:  # or above it: h(t) <= T there
            best = best.max(_interval(0, Tu))
    return _nonneg(best), best_t


# ---------------------------------------------------------------- the worst-case privacy curve (all epsilon at once)
#: largest n for which :func:`worst_case_tests` enumerates every dataset and every threshold (n² outer points)
ROC_MAX_N = 1000


def worst_case_tests(mech: KRR, n: int) -> tuple:
    """Outer points ``(x̲, ȳ)`` of every optimal test of every pair of neighbouring datasets (both orders), as two
    float64 arrays (``x̲`` rounded down, ``ȳ`` rounded up: each is a certified bound, ``docs/numerics.md`` Lemma 8).

    For the forward pair at ``j`` ones among the others (fact 1: the likelihood ratio is non-decreasing in the
    count), every optimal rejection region of every level ``α ≥ 0`` is an upper interval ``{K ≥ t}``; its
    probabilities are ``y = P_1(K ≥ t)``, ``x = P_0(K ≥ t)``; the reverse order is the forward pair at
    ``n − 1 − j`` (fact 2).  Hence ``E(α) = max_{j,t} (y − αx)`` for every ``α ≥ 0`` -- the worst-case privacy
    curve of the shuffled mechanism -- and ``E(α) ≤ max (ȳ − αx̲)`` for ``x̲ ≤ x``, ``ȳ ≥ y``
    (:func:`blanket.exact.accounting.curves.pair_from_roc` turns them into a dominating pair).

    The pmfs are balls on the full support (no window) at the current precision (exact inputs give exact
    balls); each ball's ends are rounded outward to binary64 and the tail sums are float sums of those ends,
    widened by the a-priori bound ``2γ_{n+1}`` of Lemma 8.  Complexity: ``n`` datasets × ``n + 1`` thresholds:
    O(n²) ball operations (polynomial products in C) plus O(n²) float conversions; ``n ≤ ROC_MAX_N``.
    """
    _check_mech(mech)
    n = _check_n(n)
    if n > ROC_MAX_N:
        raise InvalidArgument(
            "n", n, f"must be <= {ROC_MAX_N} for the enumeration of every test of every dataset (n² points)"
        )
    _ee0, p, f = rr_params(mech)
    pb, fb = arith.ball(p), arith.ball(f)
    up1, up0 = arb_poly([fb, pb]), arb_poly([pb, fb])
    powA = [arb_poly([1])]  # (f + p z)^j: the ones among the others
    for _ in range(n - 1):
        powA.append(powA[-1] * up1)
    xs, ys = [], []
    B = arb_poly([1])  # (p + f z)^(n-1-j), built from j = n-1 down
    for j in range(n - 1, -1, -1):
        g = powA[j] * B
        lo1, hi1 = _float_ends(g * up1, n + 1)
        lo0, _hi0 = _float_ends(g * up0, n + 1)
        # tails over t = n, n-1, ..., 1 (t = 0 is the full region (1, 1), which the hull adds)
        y = _widen(np.cumsum(hi1[:0:-1]), n + 1, up=True)
        x = _widen(np.cumsum(lo0[:0:-1]), n + 1, up=False)
        xs.append(np.maximum(x, 0.0))
        ys.append(np.minimum(y, 1.0))
        B = B * up0
    return np.concatenate(xs), np.concatenate(ys)


def _float_ends(poly: arb_poly, length: int) -> tuple:
    """Binary64 lower and upper ends of the coefficients of ``poly`` (padded with zeros to ``length``), each ≤ resp.
    ≥ the ball's end: ``mid ∓ rad`` evaluated in floats then moved three ulps outward (Lemma 8).  O(length)."""
    lo = np.zeros(length)
    hi = np.zeros(length)
    for i, c in enumerate(poly.coeffs()[:length]):
        m, r = float(c.mid()), float(c.rad())
        lo[i] = max(0.0, _ulps(m - r, -math.inf))
        hi[i] = _ulps(m + r, math.inf)
    return lo, hi


def _ulps(x: float, to: float) -> float:
    """``x`` moved three ulps towards ``to`` (Lemma 8: covers the three roundings of ``mid ∓ rad``)."""
    for _ in range(3):
        x = math.nextafter(x, to)
    return x


def _widen(sums: np.ndarray, m: int, *, up: bool) -> np.ndarray:
    """Float partial sums of ``m`` or fewer non-negative terms turned into certified bounds of the exact sums of the
    same terms: ``ŝ·(1 ± 2γ_m)`` moved one ulp outward (Lemma 8).  O(len)."""
    u = 2.0**-53
    gam = m * u / (1 - m * u)
    if up:
        return np.nextafter(sums * (1 + 2 * gam), np.inf)
    return np.nextafter(sums * (1 - 2 * gam), -np.inf)
