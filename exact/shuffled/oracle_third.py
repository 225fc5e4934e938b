"""Unary encoding, every other user on a third value: the dataset's *exact* δ as a certified enclosure.

For unary encoding (OUE, SUE) and the datasets ``D = x z^{n−1}``, ``D' = x' z^{n−1}``, the likelihood ratio of a
shuffled output ``Y = {y_1, …, y_n}`` against ``z^n`` is ``P_D(Y)/P_{z^n}(Y) = (1/n) Σ_i e^{ε0(a_i − c_i)}`` with
``(a_i, b_i, c_i)`` the bits ``x, x', z`` of report ``i`` (``R(u)(y)/R(z)(y) = e^{ε0(y_u − y_z)}``).  So

    δ(ε) = (1/n) E_{z^n}[(X − e^ε X')_+],   X = Σ_i e^{ε0(a_i − c_i)},   X' = Σ_i e^{ε0(b_i − c_i)},

the exact δ of the full view of this pair (no post-processing; docs/reference/oracles.md §2, "The full view").
Under ``R(z)`` the three bits are independent, ``a, b ~ Bern(q)``, ``c ~ Bern(p)``.  Given ``C = Σ c_i = m``
(``C ~ Bin(n, p)``), ``X = (n − m) + m/e + (e − 1)U + (1 − 1/e)A`` with ``U ~ Bin(n − m, q)`` (the ``a = 1`` among
the ``c = 0`` reports) and ``A ~ Bin(m, q)`` (the ``a = 1`` among the ``c = 1``) independent, and ``X'`` an
independent copy (``U'``, ``A'``).  So, per ``m``,

    E[(X − cX')_+] = Σ_{x'} P(x') G(c x'),   G(t) = Σ_{x > t} P(x)(x − t) = T1(t) − t T0(t),

with the law of ``X`` on the ``W_U × W_A`` window points sorted once and its suffix sums ``T0``, ``T1``.

**Certification.**  Lower end: for *any* sets ``S(x')``, ``E[(X − cX')_+] ≥ Σ_{x'} P(x') ·
max(0, Σ_{x ∈ S(x')} P(x)(x − c x'))`` (``(s)_+ ≥ s`` and ``≥ 0``), and leaving out window points or values of ``m``
only drops non-negative terms.  ``S(x')`` is a suffix of the *float*-sorted window, so the float ordering need not be
exact.  Upper end: the suffix ``S'(x')`` starting a relative margin ``η`` below ``ĉX̂'`` holds every window point
with ``x > c x'`` (checked from the proved float errors), and its points with ``x ≤ c x'`` add at most ``2η``-ish
(a certified ``κ``) times ``x'``; the left-out windows add their certified mass times ``X ≤ n e^{ε0}``.  Every float
quantity has a proved relative error (docs/numerics.md Lemma T1: the binomial windows of Lemma 2, the suffix sums of
Lemma 3, the dot products of Lemma 4), and each difference is bounded by scaling its two terms by certified factors
before it is taken.  The outer sum over ``m`` is in ball arithmetic.  The result is a ball ``[L, H]`` containing this
pair's δ(ε): ``L`` is a certified lower bound on the shuffled mechanism's δ(ε).

Cost: ``W_C`` values of ``m`` (``O(√(np)·√log(1/tol))``), each a sort of ``W_U·W_A = O(n·q·log(1/tol))`` floats:
``O(n^{3/2} log n)`` float operations in all (n = 10³: 1–3 s; 10⁴: about 200 s on a loaded core, so the binned lower
end of Lemma T2 is used above :data:`BINNED_MIN_N`, 5–10 CPU s per δ at 10⁴).  Refused
(``None``) above :data:`MAX_WORK` (sorted) or :data:`BINNED_MAX_WORK` (binned; 0, off, by default; see
:func:`third_full_work`).

**Sampled rounds** (:func:`sampled_full_lower`, :func:`sampled_full_delta`; docs/reference/oracles.md §2 "Sampled
rounds: the full view").  With participation ``q`` the same dataset's δ is the sum over the number of reports
``M ~ Bin(n, q)`` of the per-``M`` quantity with every absent user adding 1 to ``X`` and ``X'``; the lower end sorts
one lattice per ``C`` and carries a row of weights per ``M`` (docs/numerics.md Lemma T3); above its work guard the
binned route :func:`sampled_binned_lower` (Lemma T4: regrouped by ``C`` alone, the law of ``(U, U')`` stepped by one
user per ``C``, both parts binned on one grid).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.oracles import FourValue, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput, NumberInput
from blanket.exact.shuffled.krr import delta_args
from blanket.exact.shuffled.positive_part import chernoff_upper
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "EXACT_N",
    "MAX_WORK",
    "SAMPLED_BINNED_MAX_WORK",
    "SAMPLED_MAX_WORK",
    "WINDOW_TOL",
    "sampled_binned_lower",
    "sampled_binned_work",
    "sampled_full_delta",
    "sampled_full_work",
    "third_full_delta",
    "third_full_upper",
    "third_full_work",
]

#: :func:`third_full_delta` returns None when :func:`third_full_work` exceeds this (OUE/SUE k = 128, ε0 = 2,
#: n = 10³: 0.8·10⁷ / 1.4·10⁷, 1–3 s per δ; ε0 = 1: 2·10⁷, refused; the work grows as n^{3/2}); pass ``max_work``
#: to go further
MAX_WORK = 15 * 10**6
#: the cut-off of every binomial window (its certified left-out mass widens the upper end only; ≈ 5e-20)
WINDOW_TOL = fmpq(1, 2**64)
_FLUSH = 2.0**-600  # differences below this are set to 0 (a lower bound may drop non-negative terms)
_P_MIN = 2.0**-200  # so are the terms of window points of smaller probability
#: above this n the lower end is binned (:func:`_per_m_binned`, Lemma T2: no sort; n = 10⁴: 12 s against 200 s) and the
#: upper end of the enclosure is the Chernoff bound :func:`third_full_upper`
BINNED_MIN_N = 2000
#: the binned route's work guard (:func:`third_full_work`): 0, i.e. off by default — at n = 5·10³ a certificate's
#: lower end took 15 → 73 s with it; OUE/SUE k = 128, ε0 = 2, n = 10⁴ need 2.8·10⁸ / 4·10⁸ (5–10 CPU s per δ; the
#: bench's ``--third-work`` sets it)
BINNED_MAX_WORK = 0
#: number of bins of the binned route (the bin width h ≈ span/BINS, a power of two)
BINS = 2**15
#: window cut-off of the binned route (a lower bound only: left-out mass only lowers it)
BINNED_TOL = fmpq(1, 2**40)
#: up to this n (and ``exact_max_n``), exact inputs give the exact rational δ (:func:`_exact_small`)
EXACT_N = 24
_CHUNK = 2**13  # floats per row chunk of _rows_lower
_ETA = fmpq(1, 2**30)  # relative margin of the upper end's suffix (covers the float error of X̂ and ĉ)


def _window(N: int, q, tol) -> tuple:
    """``(values, offset, rel, tail)`` of a float window of Bin(N, q) (Lemma 2; ``tail`` its certified left-out mass),
    ``([1], 0, 0, 0)`` when ``N = 0``."""
    if N == 0:
        return np.ones(1), 0, 0.0, arb(0)
    w = laws.float_window(N, q, tol)
    return w.values, w.offset, w.rel, arith.ball(w.tail)


def third_full_work(mech: UnaryEncoding, n: IntegerInput) -> int:
    """The cost measure of :func:`third_full_delta`: window width of ``C`` times that of ``U`` times that of ``A``
    (at ``m`` near ``np``), the number of floats sorted in all.  O(1) ball operations."""
    nn = arith.integer_in(n, "n", lo=1)
    lo, hi, _ = laws.window_bounds(nn, arith.ball(mech.p), WINDOW_TOL)
    m = (lo + hi) // 2
    lu, hu, _ = laws.window_bounds(nn - m, arith.ball(mech.q), WINDOW_TOL)
    la, ha, _ = laws.window_bounds(m, arith.ball(mech.q), WINDOW_TOL)
    return (hi - lo + 1) * (hu - lu + 1) * (ha - la + 1)


def _factor(x: arb, up: bool) -> float:
    """A binary64 number ≥ (``up``) or ≤ the positive ball ``x``: from its exact dyadic end (``arith.float_above`` /
    ``float_below``; no Fraction, docs/numerics.md "Exact dyadic ends of a ball").  O(1)."""
    return arith.float_above(x) if up else arith.float_below(x)


def _exact_lo(x: arb) -> arb:
    """An exact ball ≤ the ball ``x`` (its lower end rounded down to the current precision).  O(1)."""
    return arith.lower_exact(x)


def _exact_hi(x: arb) -> arb:
    """An exact ball ≥ the ball ``x`` (its upper end rounded up to the current precision).  O(1)."""
    return arith.upper_exact(x)


def _points(n: int, m: int, p_q, e_ball: arb, tol, users: int | None = None) -> tuple:
    """The float points of Lemma T1 for one ``m``: ``(X̂, P̂, ru, ra, tu, ta, r_x)``, ``X̂ = fl(α + βI + γJ)`` over the
    windows of ``U ~ Bin(users − m, ·)`` and ``A ~ Bin(m, ·)`` (relative error ``≤ r_x = (1 + max e)(1 + u)³ − 1``,
    positive terms), ``α = (n − m) + m/e``, ``P̂`` their window probabilities (relative error ``≤ (1 + ru)(1 + ra)(1 + u)
    − 1``), ``tu``, ``ta`` the windows' left-out masses.  ``users`` (default ``n``): the number of reports; fewer in a
    sampled round, whose ``n − users`` absent users each add 1 to ``X`` (:func:`sampled_full_delta`).  ``O(W_U·W_A)``
    float operations."""
    users = n if users is None else users
    N0 = users - m
    vu, lu, ru, tu = _window(N0, p_q, tol)
    va, la, ra, ta = _window(m, p_q, tol)
    alpha, e_al = laws.float_param(arb(n - m) + arb(m) / e_ball)
    beta, e_be = laws.float_param(e_ball - 1)
    gam, e_ga = laws.float_param(1 - 1 / e_ball)
    I = (lu + np.arange(len(vu), dtype=np.float64))[:, None]
    J = (la + np.arange(len(va), dtype=np.float64))[None, :]
    X = ((alpha + beta * I) + gam * J).ravel()
    P = (vu[:, None] * va[None, :]).ravel()
    r_x = laws.float_upper((1 + arb(max(e_al, e_be, e_ga))) * (1 + arb(fmpq(1, 2**53))) ** 3 - 1)
    return X, P, ru, ra, tu, ta, r_x


def _per_m(n: int, m: int, p_q, e_ball: arb, c_ball: arb, users: int | None = None) -> tuple[arb, arb]:
    """``(lo, hi)``: exact balls (radius 0) with ``lo ≤ E[(X − cX')_+ | C = m] ≤ hi`` (docs/numerics.md Lemma T1);
    ``users`` as in :func:`_points` (``X ≤ n e`` still).  ``O(W_U·W_A log(W_U·W_A))`` float operations."""
    X, P, ru, ra, tu, ta, r_x = _points(n, m, p_q, e_ball, WINDOW_TOL, users)
    order = np.argsort(X, kind="stable")
    X, P = X[order], P[order]
    u = arb(fmpq(1, 2**53))
    fb = laws.float_ball
    c_lo, c_hi = _exact_lo(c_ball), _exact_hi(c_ball)
    c_hat = float(c_ball.mid())
    r_p = laws.rel_combine(ru, ra, fmpq(1, 2**53))
    G0, r0 = laws.suffix_sums(P, r_p)
    G1, r1 = laws.suffix_sums(P * X, laws.rel_combine(r_p, r_x, fmpq(1, 2**53)))

    # lower: S(x') = the float-sorted suffix above ĉX̂'.  D(x') = Σ_S P(x)(x − c x') ≥ G1/(1+r1) −
    # c_hi·X̂'/(1−r_x)·G0/(1−r0); fl(fl(κ1 G1) − fl(fl(κ0 X̂') G0)) with κ1 = 1/((1+r1)(1+u)) rounded down and
    # κ0 = c_hi/((1−r_x)(1−r0)(1−u)²) rounded up is ≤ (1+u)·that lower bound when positive
    k1 = _factor(1 / ((1 + fb(r1)) * (1 + u)), up=False)
    k0 = _factor(c_hi / ((1 - fb(r_x)) * (1 - fb(r0)) * (1 - u) ** 2), up=True)
    idx = np.searchsorted(X, c_hat * X, side="right")
    d = k1 * G1[idx] - (k0 * X) * G0[idx]
    d[~(d >= _FLUSH) | ~(P >= _P_MIN)] = 0.0  # dropping terms lowers the bound; P·d stays normal (≥ 2^-800)
    lo = arb(0)
    if d.any():
        s, r_s = laws.dot_nonneg(P, d, r_p, 0.0)  # |s − Σ P d| ≤ r_s Σ P d (P the exact window probabilities)
        lo = _exact_lo(fb(float(s)) / (1 + fb(r_s)) / (1 + u))  # Σ P D ≥ Σ P d/(1+u) ≥ s/((1+r_s)(1+u))

    # upper: S'(x') = the suffix from t̂ = fl(fl(ĉ(1−η))·X̂') on, which holds every window x > c x' (checked below);
    # its points with x ≤ c x' add at most κ X̂' each (κ below), so
    # Σ_x P(x)(x − c x')_+ ≤ G1/(1−r1) − λ X̂' G0/(1+r0),  λ = c_lo/(1+r_x) − κ
    c_eta = _factor(arb(c_hat) * (1 - _ETA), up=False)  # ĉ(1 − η) rounded down: t̂ ≤ ĉ(1−η)X̂'(1+u)
    if not bool(arb(c_eta) * (1 + u) * (1 + fb(r_x)) < c_lo * (1 - fb(r_x))):
        raise ArithmeticError("oracle_third: the margin eta does not cover the float error of e^eps")
    kappa = c_hi / (1 - fb(r_x)) - arb(c_eta) * (1 - u) / (1 + fb(r_x))
    lam = c_lo / (1 + fb(r_x)) - kappa
    if not bool(lam > 0):
        raise ArithmeticError("oracle_third: no certified margin for the upper end")
    k1u = _factor(1 / ((1 - fb(r1)) * (1 - u)), up=True)
    k0u = _factor(lam / ((1 + fb(r0)) * (1 + u) ** 2), up=False)
    idx_u = np.searchsorted(X, c_eta * X, side="left")
    du = k1u * G1[idx_u] - (k0u * X) * G0[idx_u]
    np.maximum(du, 0.0, out=du)  # a − b ≤ 0 means the sum is 0; else it is ≤ fl(a − b)/(1 − u)
    su, r_su = laws.dot_nonneg(P, du, r_p, 0.0)
    x_max = arb(n) * e_ball  # every X ≤ n e
    hi = fb(float(su)) / (1 - fb(r_su)) / (1 - u) + arb(len(P) + 64) * arb(fmpq(1, 2**1070))
    hi = hi + 2 * (tu + ta) * x_max  # the x outside the window, and the x' outside it (G ≤ E[X] ≤ n e)
    return lo, _exact_hi(hi)


def _per_m_binned(n: int, m: int, p_q, e_ball: arb, c_ball: arb) -> arb:
    """A certified lower bound (exact ball) on ``E[(X − cX')_+ | C = m]`` by binning (docs/numerics.md Lemma T2):
    the points' ``X̂`` are put in bins of width ``h`` (a power of two, about :data:`BINS` bins), each bin carrying the
    lower value ``L̂_k = fl(X0 + (k−1)h)`` for ``x`` and the upper value ``Û_k = fl(X0 + (k+2)h)`` for ``x'``; then
    Lemma T1 (i) on the bins.  ``O(W_U·W_A)`` float operations (no sort) and ``O(BINS log BINS)``."""
    X, P, ru, ra, _, _, r_x = _points(n, m, p_q, e_ball, BINNED_TOL)
    u = arb(fmpq(1, 2**53))
    fb = laws.float_ball
    x0 = float(X.min())
    span = float(X.max()) - x0
    h = 2.0 ** math.floor(math.log2(span / BINS)) if span > 0 else 1.0
    k = np.floor((X - x0) / h).astype(np.int64)  # (X̂ − x0)/h within one bin of the exact quotient (Lemma T2)
    nb = int(k.max()) + 1
    Pb = np.bincount(k, weights=P, minlength=nb)  # sums of non-negative terms, ≤ K − 1 additions each
    kk = np.arange(nb, dtype=np.float64)
    L = x0 + (kk - 1.0) * h  # (k − 1)h exact (an integer times a power of two); one rounding of the sum
    Uv = x0 + (kk + 2.0) * h
    r_b = laws.float_upper((1 + fb(r_x)) * (1 + u) - 1)  # true X of a point in bin k: ≥ L̂/(1+r_b), ≤ Û/(1−r_b)
    r_p = laws.float_upper(
        (1 + fb(laws.rel_combine(ru, ra, fmpq(1, 2**53)))) * (1 + arb(laws.gamma(max(1, len(P))))) - 1
    )
    if not (L[0] > 0):
        raise ArithmeticError("oracle_third: a bin's lower value is not positive")
    G0, r0 = laws.suffix_sums(Pb, r_p)
    G1, r1 = laws.suffix_sums(Pb * L, laws.rel_combine(r_p, r_b, fmpq(1, 2**53)))
    c_hi = _exact_hi(c_ball)
    c_hat = float(c_ball.mid())
    k1 = _factor(1 / ((1 + fb(r1)) * (1 + u)), up=False)
    k0 = _factor(c_hi / ((1 - fb(r_b)) * (1 - fb(r0)) * (1 - u) ** 2), up=True)
    idx = np.searchsorted(L, c_hat * Uv, side="right")
    d = k1 * G1[idx] - (k0 * Uv) * G0[idx]
    d[~(d >= _FLUSH) | ~(Pb >= _P_MIN)] = 0.0
    if not d.any():
        return arb(0)
    s_, r_s = laws.dot_nonneg(Pb, d, r_p, 0.0)
    return _exact_lo(fb(float(s_)) / (1 + fb(r_s)) / (1 + u))


def _exact_small(n: int, p: fmpq, q: fmpq, e: fmpq, c: fmpq) -> fmpq:
    """The same δ(ε) in exact rationals, every ``m``, ``U``, ``A`` (no windows): ``O(n⁵)`` rational operations
    (sorting per ``m``); for ``n ≤`` :data:`EXACT_N` with exact inputs."""
    from bisect import bisect_right
    from math import comb

    total = fmpq(0)
    for m in range(n + 1):
        pm = comb(n, m) * p**m * (1 - p) ** (n - m)
        pts = sorted(
            (
                (n - m) + fmpq(m) / e + (e - 1) * i + (1 - 1 / e) * j,
                comb(n - m, i) * q**i * (1 - q) ** (n - m - i) * comb(m, j) * q**j * (1 - q) ** (m - j),
            )
            for i in range(n - m + 1)
            for j in range(m + 1)
        )
        xs = [x for x, _ in pts]
        t0, t1 = [fmpq(0)] * (len(pts) + 1), [fmpq(0)] * (len(pts) + 1)
        for k in range(len(pts) - 1, -1, -1):
            t0[k] = t0[k + 1] + pts[k][1]
            t1[k] = t1[k + 1] + pts[k][1] * pts[k][0]
        inner = fmpq(0)
        for x2, p2 in pts:
            k = bisect_right(xs, c * x2)
            inner += p2 * (t1[k] - c * x2 * t0[k])
        total += pm * inner
    return total / n


def third_full_upper(mech: FourValue, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure | None:
    """A cheap certified **upper** bound on :func:`third_full_delta` (``None`` when the record is not unary
    encoding): ``(1/n) E[(Σ V_i)_+]`` with ``V = e^{ε0(a−c)} − e^ε e^{ε0(b−c)}`` over the eight bit triples, bounded by
    :func:`~blanket.exact.shuffled.positive_part.chernoff_upper` (docs/numerics.md Lemma K5).  It lets
    :func:`blanket.exact.shuffled.oracle_exact.best_lower` skip the full view where it cannot win.  O(1) ball
    operations (a float search of 200 steps)."""
    if not isinstance(mech, UnaryEncoding) or mech.k < 3:  # k = 2: no third value z, no such dataset
        return None
    q = delta_args(mech, n, opts, "third_full_upper")
    if q is None:
        return fmpq(0)
    nn, ee = q[0], q[1]
    e = mech.exp_epsilon0()
    p, qq = mech.p, mech.q
    atoms = []
    for a in (0, 1):
        for b in (0, 1):
            for c in (0, 1):
                pr = (qq if a else 1 - qq) * (qq if b else 1 - qq) * (p if c else 1 - p)
                fa = (e if a else fmpq(1)) / (e if c else fmpq(1))
                fb = (e if b else fmpq(1)) / (e if c else fmpq(1))
                atoms.append((pr, fa - ee * fb))
    return chernoff_upper(nn, atoms) / nn


def third_full_delta(
    mech: FourValue, n: IntegerInput, *, max_work: int | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure | None:
    """The exact δ(ε) of ``x z^{n−1}`` vs ``x' z^{n−1}`` for unary encoding (the full view, no post-processing; module
    docstring) as a certified enclosure ``[L, H]`` (``L`` a lower bound on the mechanism's δ(ε)), or ``None`` when the
    record is not unary encoding (or has ``k < 3``: no third value), ``ε < 0``, or the work (:func:`third_full_work`) exceeds ``max_work`` (default
    :data:`MAX_WORK`), or when a ball is too wide for the float kernel's margins (``e^ε`` wider than about
    ``2⁻³⁰`` relative).  ``fmpq(0)`` when ``ε ≥ ε0`` (δ = 0); the exact rational δ for exact inputs and
    ``n ≤ min(EXACT_N, exact_max_n)`` (``O(n⁵)`` rational operations).  One direction suffices (``a`` and ``b`` are
    exchangeable under ``R(z)``, so both directions have the same δ).

    Cost ``O(n^{3/2} log n)`` float operations and ``O(√n)`` ball operations per window (module docstring).
    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``, ``exact_max_n``
    (``tol`` is accepted and ignored: the windows use :data:`WINDOW_TOL`).
    """
    if not isinstance(mech, UnaryEncoding) or mech.k < 3:  # k = 2: no third value z, no such dataset
        return None
    q = delta_args(mech, n, opts, "third_full_delta")
    if q is None:
        return fmpq(0)
    nn, ee = q[0], q[1]
    cap = max_work if max_work is not None else (BINNED_MAX_WORK if nn > BINNED_MIN_N else MAX_WORK)
    if cap < third_full_work(mech, nn):
        return None
    c_ball = arith.ball(ee)
    if not (c_ball >= 1):
        return None
    e0 = mech.exp_epsilon0()
    if nn <= min(EXACT_N, q[3]) and isinstance(e0, fmpq) and isinstance(ee, fmpq):
        if isinstance(mech.p, fmpq) and isinstance(mech.q, fmpq):
            return _exact_small(nn, mech.p, mech.q, e0, ee)
    e_ball = arith.ball(e0)
    p_ball, q_ball = arith.ball(mech.p), arith.ball(mech.q)
    if nn > BINNED_MIN_N:
        # the binned lower end (Lemma T2); the upper end is the Chernoff bound (third_full_upper)
        lo, hi, _ = laws.window_bounds(nn, p_ball, BINNED_TOL)
        low = arb(0)
        for m in range(lo, hi + 1):
            try:
                v = _per_m_binned(nn, m, q_ball, e_ball, c_ball)
            except (ArithmeticError, laws.FloatRouteUnavailable):
                return None
            low += _exact_lo(laws.pmf(nn, p_ball, m) * v)
        low = _exact_lo(low / nn)
        up = third_full_upper(mech, nn, **opts)
        high = _exact_hi(arith.ball(up)) if up is not None else arb(1)
        high = high if high > low else low  # (the Chernoff bound is above the value; kept an interval)
        return (low if low > 0 else arb(0)).union(high if high < 1 else arb(1))
    lo, hi, tail = laws.window_bounds(nn, p_ball, WINDOW_TOL)
    low, high = arb(0), arb(0)
    for m in range(lo, hi + 1):
        pm = laws.pmf(nn, p_ball, m)
        try:
            v_lo, v_hi = _per_m(nn, m, q_ball, e_ball, c_ball)
        except (ArithmeticError, laws.FloatRouteUnavailable):
            return None  # e^ε (or a parameter) too wide a ball for the margins of Lemma T1: not offered
        low += _exact_lo(pm * v_lo)
        high += _exact_hi(pm * v_hi)
    high += arith.ball(tail) * nn * e_ball  # the m outside the window: E[(X − cX')_+ | m] ≤ n e
    low, high = _exact_lo(low / nn), _exact_hi(high / nn)
    return (low if low > 0 else arb(0)).union(high if high < 1 else arb(1))


# ============================================================ sampled rounds: the full view of R_q = (1 − q)·⊥ + q·R
#: :func:`sampled_full_lower` and :func:`sampled_full_delta` return None when :func:`sampled_full_work` exceeds this
#: (OUE/SUE k = 128, ε0 = 2, n = 10³, q = 1/10: 2.5·10⁷ / 3.1·10⁷, about 1 CPU s per δ; q = 1/2: 4.4·10⁸ / 8.4·10⁸,
#: refused); pass ``max_work`` to go further
SAMPLED_MAX_WORK = 6 * 10**7
#: window cut-off of :func:`sampled_full_lower` (a lower bound only: left-out mass only lowers it; each left-out term
#: is at most ``e^{ε0}``, so this costs at most about ``4·2⁻⁴⁰·e^{ε0}`` of δ)
SAMPLED_TOL = fmpq(1, 2**40)


def _participation(q) -> fmpq:
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    return qq if isinstance(qq, fmpq) else fmpq(qq)


def sampled_full_work(mech: UnaryEncoding, n: IntegerInput, q: NumberInput) -> int:
    """The cost measure of :func:`sampled_full_lower` (and the guard of :func:`sampled_full_delta`): the window widths
    (cut-off :data:`SAMPLED_TOL`) of the number of reports ``M ~ Bin(n, q)``, of ``C ~ Bin(M, p)``, of ``U`` and of
    ``A`` at ``M``, ``C`` near their means, multiplied (the float operations in all, up to a constant).  O(1) ball
    operations."""
    nn = arith.integer_in(n, "n", lo=1)
    qq = _participation(q)
    lo, hi, _ = laws.window_bounds(nn, arith.ball(qq), SAMPLED_TOL)
    M = max(1, (lo + hi) // 2)
    lc, hc, _ = laws.window_bounds(M, arith.ball(mech.p), SAMPLED_TOL)
    m = (lc + hc) // 2
    lu, hu, _ = laws.window_bounds(M - m, arith.ball(mech.q), SAMPLED_TOL) if M > m else (0, 0, 0)
    la, ha, _ = laws.window_bounds(m, arith.ball(mech.q), SAMPLED_TOL) if m > 0 else (0, 0, 0)
    return (hi - lo + 1) * (hc - lc + 1) * (hu - lu + 1) * (ha - la + 1)


def _exact_small_sampled(n: int, p: fmpq, q: fmpq, s: fmpq, e: fmpq, c: fmpq) -> fmpq:
    """:func:`sampled_full_delta` in exact rationals, every ``M``, ``C``, ``U``, ``A`` (no windows): ``O(n⁶)``
    rational operations; for ``n ≤`` :data:`EXACT_N` with exact inputs."""
    from math import comb

    total = fmpq(0)
    for M in range(1, n + 1):
        pM = comb(n, M) * s**M * (1 - s) ** (n - M)
        for m in range(M + 1):
            pm = comb(M, m) * p**m * (1 - p) ** (M - m)
            pts = [
                (
                    (n - m) + fmpq(m) / e + (e - 1) * i + (1 - 1 / e) * j,
                    comb(M - m, i) * q**i * (1 - q) ** (M - m - i) * comb(m, j) * q**j * (1 - q) ** (m - j),
                )
                for i in range(M - m + 1)
                for j in range(m + 1)
            ]
            inner = fmpq(0)
            for x2, p2 in pts:
                for x1, p1 in pts:
                    if x1 > c * x2:
                        inner += p1 * p2 * (x1 - c * x2)
            total += pM * pm * inner
    return total / n


def _sampled_start(
    mech: UnaryEncoding,
    n: IntegerInput,
    qq: fmpq,
    max_work: int | None,
    opts: DeltaOptions,
    name: str,
    check_work: bool = True,
) -> tuple:
    """The common start of :func:`sampled_full_delta` and :func:`sampled_full_lower` (``q < 1``): ``(answer, None)``
    when the answer is known without the float route (``0`` beyond the mechanism's range, ``None`` above the work
    guard or for ``e^ε`` not certainly ``≥ 1``, the exact rational for exact inputs and ``n ≤ min(EXACT_N,
    exact_max_n)``), else ``(None, (n, e^ε, e^ε as a ball, e^{ε0}))``.  O(1) plus the exact route's ``O(n⁶)``."""
    got = delta_args(mech, n, opts, name)
    if got is None:
        return fmpq(0), None
    nn, ee = got[0], got[1]
    cap = max_work if max_work is not None else SAMPLED_MAX_WORK
    if check_work and cap < sampled_full_work(mech, nn, qq):
        return None, None
    c_ball = arith.ball(ee)
    if not (c_ball >= 1):
        return None, None
    e0 = mech.exp_epsilon0()
    if nn <= min(EXACT_N, got[3]) and isinstance(e0, fmpq) and isinstance(ee, fmpq):
        if isinstance(mech.p, fmpq) and isinstance(mech.q, fmpq):
            return _exact_small_sampled(nn, mech.p, mech.q, qq, e0, ee), None
    return None, (nn, ee, c_ball, e0)


def sampled_full_delta(
    mech: FourValue, n: IntegerInput, q: NumberInput, *, max_work: int | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure | None:
    """The exact δ(ε) of one round sampled with participation ``q`` (``R_q = (1 − q)·⊥ + q·R``) on ``x z^{n−1}`` vs
    ``x' z^{n−1}`` for unary encoding (the full view) as a certified enclosure ``[L, H]`` (``L`` a certified lower
    bound on the sampled round's δ(ε)), or ``None`` as :func:`third_full_delta` (not unary encoding, ``k < 3``, the
    work :func:`sampled_full_work` above ``max_work`` (default :data:`SAMPLED_MAX_WORK`), a ball too wide for the
    kernel's margins).

    The likelihood ratio of a report of ``R_q`` is that of ``R`` on a report and 1 on ``⊥``, so with ``M`` the number
    of reports and ``C`` the reports' ``z``-bits, ``X = (n − C) + C/e + (e − 1)U + (1 − 1/e)A`` with ``U ~
    Bin(M − C, q_R)``, ``A ~ Bin(C, q_R)`` (docs/reference/oracles.md §2, "Sampled rounds: the full view"):

        δ_q(ε) = (1/n) Σ_M Bin(n, q)(M) Σ_C Bin(M, p)(C) E[(X − e^ε X')_+ | M, C],

    each inner term Lemma T1's kernel (:func:`_per_m` with ``users = M``).  Exact rationals for exact inputs and
    ``n ≤ min(EXACT_N, exact_max_n)`` (``O(n⁶)``).  ``q = 1`` is :func:`third_full_delta`.

    Cost: :func:`sampled_full_work` floats sorted (``W_M·W_C·W_U·W_A``, ``O(n² q² log n)``-ish) and ``O(W_M·W_C)``
    ball operations.  Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or
    ``exp_epsilon``, ``exact_max_n``.
    """
    if not isinstance(mech, UnaryEncoding) or mech.k < 3:
        return None
    qq = _participation(q)
    if qq == 1:
        return third_full_delta(mech, n, max_work=max_work, **opts)
    done, start = _sampled_start(mech, n, qq, max_work, opts, "sampled_full_delta")
    if start is None:
        return done
    nn, ee, c_ball, e0 = start
    e_ball = arith.ball(e0)
    p_ball, q_ball, s_ball = arith.ball(mech.p), arith.ball(mech.q), arith.ball(qq)
    x_max = arb(nn) * e_ball  # every X ≤ n e: a left-out term adds at most this to E[(X − cX')_+]
    lo_m, hi_m, tail_m = laws.window_bounds(nn, s_ball, WINDOW_TOL)
    low, high = arb(0), arb(0)
    for M in range(max(lo_m, 1), hi_m + 1):  # M = 0: X = X' = n, the term is 0
        in_lo, in_hi = arb(0), arb(0)
        lo_c, hi_c, tail_c = laws.window_bounds(M, p_ball, WINDOW_TOL)
        for m in range(lo_c, hi_c + 1):
            pm = laws.pmf(M, p_ball, m)
            try:
                v_lo, v_hi = _per_m(nn, m, q_ball, e_ball, c_ball, users=M)
            except (ArithmeticError, laws.FloatRouteUnavailable):
                return None
            in_lo += _exact_lo(pm * v_lo)
            in_hi += _exact_hi(pm * v_hi)
        in_hi += arith.ball(tail_c) * x_max
        pM = laws.pmf(nn, s_ball, M)
        low += _exact_lo(pM * in_lo)
        high += _exact_hi(pM * in_hi)
    high += arith.ball(tail_m) * x_max
    low, high = _exact_lo(low / nn), _exact_hi(high / nn)
    return (low if low > 0 else arb(0)).union(high if high < 1 else arb(1))


def _float_lo(x: arb) -> float:
    """A binary64 number ≤ the ball ``x`` (its lower end rounded down; 0 when that is not positive).  O(1)."""
    v = float(x.lower())
    return math.nextafter(v, 0.0) if v > 0 else 0.0


def _rows_lower(n: int, m: int, users: list, wins: dict, q_ball, e_ball: arb, c_ball: arb) -> tuple:
    """``(s, r_s)``: for every ``M`` of ``users`` (each ``≥ m``), ``E[(X − cX')_+ | M, C = m] ≥ s[k]/((1 + r_s)(1 + u))``
    (``X = (n − m) + m/e + (e − 1)U + (1 − 1/e)A``, ``U ~ Bin(M − m, ·)``, ``A ~ Bin(m, ·)``).  Lemma T1 (i) row by
    row on one sort: the points of every ``M`` lie on the same lattice ``α + βI + γJ`` (only their weights depend on
    ``M``), so the lattice is sorted once and each ``M`` is a row of weights (0 outside its window of ``U``: a
    subset ``S(x')`` and left-out ``x'``, docs/numerics.md Lemma T3).  ``wins``: a cache of float windows by the
    binomial's size.  ``O(R·W_I·W_A)`` float operations (``R = len(users)``, ``W_I`` the union of the windows of
    ``U``) and one sort of ``W_I·W_A`` floats."""
    u = arb(fmpq(1, 2**53))
    fb = laws.float_ball

    def win(N: int) -> tuple:
        if N not in wins:
            wins[N] = _window(N, q_ball, SAMPLED_TOL)
        return wins[N]

    va, la, ra, _ = win(m)
    uw = [win(M - m) for M in users]
    i0 = min(w[1] for w in uw)
    i1 = max(w[1] + len(w[0]) - 1 for w in uw)
    wi, wa = i1 - i0 + 1, len(va)
    umat = np.zeros((len(users), wi))
    for k, (vu, lu, _, _) in enumerate(uw):
        umat[k, lu - i0 : lu - i0 + len(vu)] = vu
    ru = max(w[2] for w in uw)
    alpha, e_al = laws.float_param(arb(n - m) + arb(m) / e_ball)
    beta, e_be = laws.float_param(e_ball - 1)
    gam, e_ga = laws.float_param(1 - 1 / e_ball)
    r_x = laws.float_upper((1 + arb(max(e_al, e_be, e_ga))) * (1 + u) ** 3 - 1)
    I = (i0 + np.arange(wi, dtype=np.float64))[:, None]
    J = (la + np.arange(wa, dtype=np.float64))[None, :]
    X = ((alpha + beta * I) + gam * J).ravel()
    order = np.argsort(X, kind="stable")
    X = X[order]
    c_hi = _exact_hi(c_ball)
    c_hat = float(c_ball.mid())
    idx = np.searchsorted(X, c_hat * X, side="right")  # non-decreasing (fl(ĉx) is monotone in x)
    K = int(np.searchsorted(idx, len(X), side="left"))  # the x' with a point above ĉx'; the others' terms are 0
    if K == 0:
        return np.zeros(len(users)), 0.0
    lo_i = int(idx[:K].min())  # every suffix used starts at or after lo_i: only that part's suffix sums are formed

    r_p = laws.rel_combine(ru, ra, fmpq(1, 2**53))
    r_px = laws.rel_combine(r_p, r_x, fmpq(1, 2**53))
    j = idx[:K] - lo_i
    lows, tops = order[:K], order[lo_i:]
    # rows in chunks of about _CHUNK floats: every temporary stays small (large ones are mmap-allocated and freed each
    # time: 8·10⁵ page faults, as much system time as computing, per δ at n = 10³); the bounds do not depend on the rows
    step = max(1, _CHUNK // max(len(lows), len(tops)))
    out = np.zeros(len(users))
    r_s = 0.0
    il, al_ = lows // wa, va[lows % wa][None, :]
    it, at_ = tops // wa, va[tops % wa][None, :]
    xt, xl = X[None, lo_i:], X[:K]
    kap: tuple | None = None  # (κ1, κ0): r0, r1 depend only on the row length, the same for every chunk
    for r0_ in range(0, len(users), step):
        rows = umat[r0_ : r0_ + step]
        P_low = rows[:, il] * al_  # one rounding: rel (1 + ru)(1 + ra)(1 + u) − 1
        P_top = rows[:, it] * at_
        G0, r0 = laws.suffix_sums_rows(P_top, r_p)
        G1, r1 = laws.suffix_sums_rows(P_top * xt, r_px)
        if kap is None:
            kap = (
                _factor(1 / ((1 + fb(r1)) * (1 + u)), up=False),
                _factor(c_hi / ((1 - fb(r_x)) * (1 - fb(r0)) * (1 - u) ** 2), up=True),
            )
        k1, k0 = kap
        d = k1 * G1[:, j] - (k0 * xl)[None, :] * G0[:, j]
        d[~(d >= _FLUSH) | ~(P_low >= _P_MIN)] = 0.0
        s, rs = laws.dot_nonneg(P_low, d, r_p, 0.0)
        out[r0_ : r0_ + step] = s
        r_s = max(r_s, rs)
    return out, r_s


def sampled_full_lower(
    mech: FourValue, n: IntegerInput, q: NumberInput, *, max_work: int | None = None, **opts: Unpack[DeltaOptions]
) -> fmpq | None:
    """A certified **lower** bound on :func:`sampled_full_delta` (the full view of one round sampled with
    participation ``q`` on ``x z^{n−1}`` vs ``x' z^{n−1}``, unary encoding), so on the sampled round's δ(ε): an exact
    rational, or ``None`` as :func:`sampled_full_delta` (not unary encoding, ``k < 3``, the work above ``max_work``;
    a ball too wide for the kernel's margins).  Without ``max_work``, a round above :data:`SAMPLED_MAX_WORK` is
    handed to the binned route :func:`sampled_binned_lower` (Lemma T4; ``None`` above its own guard).  Exact for exact inputs and
    ``n ≤ min(EXACT_N, exact_max_n)``; ``q = 1``: the lower end of :func:`third_full_delta`.

    The sum over ``M`` and ``C`` of docs/reference/oracles.md §2 ("Sampled rounds: the full view") in floats with
    proved errors (docs/numerics.md Lemma T3): for each ``C = m`` one sort of the lattice of points and a row of
    weights per ``M`` (:func:`_rows_lower`), the weights ``Bin(n, q)(M)·Bin(M, p)(m)`` from float windows (Lemma 2),
    one dot product at the end; left-out ``M``, ``m`` and points only lower it.  Cost: :func:`sampled_full_work`
    float operations (``W_M·W_C·W_U·W_A``), ``W_C`` sorts of ``W_U·W_A`` floats, ``O(W_M + W_C)`` ball operations.
    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``, ``exact_max_n``.
    """
    if not isinstance(mech, UnaryEncoding) or mech.k < 3:
        return None
    qq = _participation(q)
    if qq == 1:
        v = third_full_delta(mech, n, max_work=max_work, **opts)
        return v if v is None or isinstance(v, fmpq) else max(fmpq(0), _exact_lo_q(v))
    if max_work is None and SAMPLED_MAX_WORK < sampled_full_work(mech, n, qq):
        return sampled_binned_lower(mech, n, qq, **opts)  # above the sorted route's guard: the binned one (Lemma T4)
    done, start = _sampled_start(mech, n, qq, max_work, opts, "sampled_full_lower")
    if start is None:
        return done
    nn, ee, c_ball, e0 = start
    e_ball = arith.ball(e0)
    p_ball, q_ball = arith.ball(mech.p), arith.ball(mech.q)
    u = arb(fmpq(1, 2**53))
    fb = laws.float_ball
    try:
        wm = laws.float_window(nn, arith.ball(qq), SAMPLED_TOL)
        cw = {M: _window(M, p_ball, SAMPLED_TOL) for M in range(max(wm.offset, 1), wm.hi + 1)}
        by_m: dict = {}  # m -> the M whose window of C holds m
        for M, (vc, lc, _, _) in cw.items():
            for m in range(lc, lc + len(vc)):
                if m <= M:
                    by_m.setdefault(m, []).append(M)
        wins: dict = {}
        weights, values, r_s = [], [], 0.0
        for m in sorted(by_m):
            Ms = by_m[m]
            s, r = _rows_lower(nn, m, Ms, wins, q_ball, e_ball, c_ball)
            r_s = max(r_s, r)
            for M, sv in zip(Ms, s):
                vc, lc, _, _ = cw[M]
                weights.append(wm.values[M - wm.offset] * vc[m - lc])
                values.append(sv)
    except (ArithmeticError, laws.FloatRouteUnavailable):
        return None
    if not weights:
        return fmpq(0)
    wts = np.array(weights)
    vals = np.array(values)
    keep = (wts >= _P_MIN) & (vals >= _FLUSH)  # dropped terms only lower the bound; the products stay normal
    wts, vals = wts[keep], vals[keep]
    if not len(wts):
        return fmpq(0)
    r_c = max(cw[M][2] for M in cw)
    r_w = laws.rel_combine(wm.rel, r_c, fmpq(1, 2**53))  # ŵ = fl(v̂_M·v̂_C): rel (1 + r_M)(1 + r_C)(1 + u) − 1
    tot, r_t = laws.dot_nonneg(wts, vals, r_w, 0.0)
    low = fb(float(tot)) / ((1 + fb(r_t)) * (1 + fb(r_s)) * (1 + u)) / nn
    return max(fmpq(0), _exact_lo_q(low))


def _exact_lo_q(x: arb) -> fmpq:
    lo = arith.endpoints(x)[0]
    return fmpq(lo.numerator, lo.denominator)


# ---------------------------------------------------------------- sampled rounds, binned (docs/numerics.md Lemma T4)
#: :func:`sampled_binned_lower` returns None when :func:`sampled_binned_work` exceeds this (OUE/SUE k = 128, ε0 = 2:
#: n = 10³, q = 1/2 1.4·10⁸ / 1.7·10⁸, 1.5–4 CPU s per δ; n = 10⁴, q = 1/2 6.0·10⁸ / 9.9·10⁸, 4–12 s; load 7–9)
SAMPLED_BINNED_MAX_WORK = 2 * 10**9
#: number of bins of the sampled binned route (the bin width h, a power of two, is about span/BINS)
SAMPLED_BINS = 2**17
_BIN_FLUSH = 2.0**-400  # bin masses below this are set to 0 (a lower bound may drop non-negative terms)
_LAW_FLUSH = 2.0**-600  # entries of the two-dimensional law below this are set to 0 (likewise)
_BIN_SLACK = 2  # bins read this many widths below their float index (Lemma T4: one for the rounding, one for the bin)


def _binned_ranges(n: int, s: fmpq, p, qr) -> tuple:
    """``(C window bounds, q', (u_lo, u_hi), (a_lo, a_hi))`` of Lemma T4: ``C ~ Bin(n, s·p)`` (the reports' z-bits),
    ``q' = s(1 − p)/(1 − s p)`` (a user without a z-bit report reports), the index ranges of ``U`` (marginally
    ``Bin(n − m, q'·q_R)``) and of ``A ~ Bin(m, q_R)`` over the window of ``m``.  O(1) ball operations."""
    sb, pb, qb = arith.ball(s), arith.ball(p), arith.ball(qr)
    cw = laws.window_bounds(n, sb * pb, BINNED_TOL)
    qprime = sb * (1 - pb) / (1 - sb * pb)
    m_lo, m_hi = cw[0], cw[1]
    if s == 1:
        lu = laws.window_bounds(n - m_hi, qb, BINNED_TOL)[0] if n > m_hi else 0
        hu = laws.window_bounds(n - m_lo, qb, BINNED_TOL)[1] if n > m_lo else 0
    else:
        lu = laws.window_bounds(n - m_hi, qprime * qb, BINNED_TOL)[0] if n > m_hi else 0
        hu = laws.window_bounds(n - m_lo, qprime * qb, BINNED_TOL)[1] if n > m_lo else 0
    la = laws.window_bounds(m_lo, qb, BINNED_TOL)[0] if m_lo > 0 else 0
    ha = laws.window_bounds(m_hi, qb, BINNED_TOL)[1] if m_hi > 0 else 0
    return cw, qprime, (lu, hu), (la, ha)


def sampled_binned_work(mech: UnaryEncoding, n: IntegerInput, q: NumberInput) -> int:
    """The cost measure of :func:`sampled_binned_lower`: the window width of ``C`` times the floats handled per ``C``
    (the two-dimensional laws of ``(U, U')`` and ``(A, A')`` and four passes over the bins).  O(1) ball
    operations."""
    nn = arith.integer_in(n, "n", lo=1)
    qq = _participation(q)
    cw, _, (lu, hu), (la, ha) = _binned_ranges(nn, qq, mech.p, mech.q)
    return (cw[1] - cw[0] + 1) * ((hu - lu + 1) ** 2 + (ha - la + 1) ** 2 + 4 * SAMPLED_BINS)


def _bin_index(s_hat: np.ndarray, h: float) -> tuple:
    """``(k, x0)``: bins ``k = ⌊fl(ŝ − x0)/h⌋`` with ``x0 = min ŝ``, so ``ŝ ≥ x0 + (k − 1)h`` (Lemma T4).  O(N)."""
    x0 = float(s_hat.min())
    return np.floor((s_hat - x0) / h).astype(np.int64), x0


def _binned_lower_core(n: int, s: fmpq, p, qr, e_ball: arb, c_ball: arb, bins: int = SAMPLED_BINS) -> arb:
    """A certified lower bound (exact ball) on ``δ_s(ε)``, the full view of ``x z^{n−1}`` vs ``x' z^{n−1}`` for unary
    encoding in a round with participation ``s`` (``s = 1``: the unsampled round), by Lemma T4 of docs/numerics.md:
    ``D = X − cX' = (1 − c)(n − γC) + β(U − cU') + γ(A − cA')``; given ``C = m`` the pair ``(U, U')`` (a two-dimensional
    law, stepped from ``m`` to ``m − 1`` by one user) is independent of ``(A, A')``; each is binned on one grid of width
    ``h`` by a certified lower value, and ``E[D_+ | m]`` is bounded below by sums over the bins (suffix sums, two dot
    products).  ``O(W_C·(W_U² + W_A² + bins))`` float operations and ``O(W_C)`` ball operations."""
    u = arb(fmpq(1, 2**53))
    fb = laws.float_ball
    (m_lo, m_hi, _), qprime, (u_lo, u_hi), (a_lo, a_hi) = _binned_ranges(n, s, p, qr)
    p_ball, q_ball = arith.ball(p), arith.ball(qr)
    wc = laws.float_window(n, arith.ball(s) * p_ball, BINNED_TOL)
    beta_ball, gam_ball = e_ball - 1, 1 - 1 / e_ball
    beta, e_be = laws.float_param(beta_ball)
    gam, e_ga = laws.float_param(gam_ball)
    c_hat, e_c = laws.float_param(c_ball)
    c_hi = _exact_hi(c_ball)
    # the certified lower values of the bins: |ŝ − s| ≤ β(u + c u')·R_s (three roundings, parameters of rel. e)
    R_s = (1 + arb(max(e_be, e_ga))) * (1 + arb(e_c)) * (1 + u) ** 3 - 1
    ui = np.arange(u_lo, u_hi + 1, dtype=np.float64)
    ai = np.arange(a_lo, a_hi + 1, dtype=np.float64)
    s1 = (beta * (ui[:, None] - c_hat * ui[None, :])).ravel()  # β(U − cU') over the (U, U') grid
    s2 = (gam * (ai[:, None] - c_hat * ai[None, :])).ravel()  # γ(A − cA') over the (A, A') grid
    span = max(float(s1.max() - s1.min()), float(s2.max() - s2.min()), 2.0**-40)
    h = 2.0 ** math.floor(math.log2(span / bins))
    if not (h >= 2.0**-100 and span * 2.0**-52 <= h):
        raise laws.FloatRouteUnavailable("sampled binned route: bin width out of range")
    k1, x1 = _bin_index(s1, h)
    k2, x2 = _bin_index(s2, h)
    k2 = k2.reshape(len(ai), len(ai))
    h_q = fmpq(*h.as_integer_ratio())
    B1, B2 = int(k1.max()) + 1, int(k2.max()) + 1
    E = (beta_ball * u_hi + gam_ball * a_hi) * (1 + c_hi) * R_s  # ≥ |ŝ1 − s1| + |ŝ2 − s2| at every grid point
    base = fb(x1) + fb(x2) - _BIN_SLACK * arb(h) - E  # ℓ1(k) + ℓ2(j) = base + (k + j)h ≤ β(u − cu') + γ(a − ca')

    # the two-dimensional law of (U, U') at N = n − m_hi users without a z-bit report: a mixture over the number
    # M0 ~ Bin(N, q') of them that report, of Bin(M0, q_R)⊗Bin(M0, q_R) (q' = 1: one product)
    W = u_hi - u_lo + 1
    flush = 2.0**-300  # window values below this are dropped (every product of three stays normal)

    def placed(N: int, lo: int, hi: int, pr) -> tuple:
        """The float window of Bin(N, pr) on the indices lo..hi (0 outside its window, values < 2⁻³⁰⁰ dropped)."""
        vals, off, rel, _ = _window(N, pr, BINNED_TOL)
        out = np.zeros(hi - lo + 1)
        a, b = max(off, lo), min(off + len(vals) - 1, hi)
        if a <= b:
            out[a - lo : b - lo + 1] = vals[a - off : b - off + 1]
        out[out < flush] = 0.0
        return out, rel

    N0 = n - m_hi
    if s == 1:  # every user without a z-bit reports: U, U' independent Bin(N0, q_R)
        v, r_v = placed(N0, u_lo, u_hi, q_ball)
        L = np.outer(v, v)
        r_L = (1 + arb(r_v)) ** 2 * (1 + u) - 1
    elif N0 == 0:
        L = np.zeros((W, W))
        L[0, 0] = 1.0 if u_lo == 0 else 0.0
        r_L = arb(0)
    else:
        fw = laws.float_window(N0, qprime, BINNED_TOL)
        rows, r_u = [], 0.0
        for M0 in range(fw.offset, fw.hi + 1):
            vrow, rr = placed(M0, u_lo, u_hi, q_ball)
            rows.append(vrow)
            r_u = max(r_u, rr)
        wts = fw.values.copy()
        wts[wts < flush] = 0.0
        V = np.array(rows)
        L = (V * wts[:, None]).T @ V  # non-negative sums: ≤ (1 + u)^(W_M0 + 1) times the exact products
        r_L = (1 + arb(fw.rel)) * (1 + arb(r_u)) ** 2 * (1 + u) ** (len(rows) + 1) - 1
    L[L < _LAW_FLUSH] = 0.0
    # one more user without a z-bit report: (U, U') += (0,0), (1,0), (0,1), (1,1) w.p. ρ0, ρ1, ρ1, ρ2
    r1_ball = qprime * q_ball * (1 - q_ball)
    r2_ball = qprime * q_ball * q_ball
    rho0, e0 = laws.float_param(1 - 2 * r1_ball - r2_ball)
    rho1, e1 = laws.float_param(r1_ball)
    rho2, e2 = laws.float_param(r2_ball)
    if not min(rho0, rho1, rho2) >= 2.0**-100:
        raise laws.FloatRouteUnavailable("sampled binned route: a step probability below 2^-100")
    step = (1 + arb(max(e0, e1, e2))) * (1 + u) ** 4  # each step: ≤ this factor times the exact step

    gam_w = [(m, wc.values[m - wc.offset]) for m in range(m_lo, m_hi + 1)]
    out_w, out_v = [], []
    r_a = 0.0
    for idx_m, (m, wgt) in enumerate(sorted(gam_w, reverse=True)):
        if idx_m > 0:  # N = n − m grew by one: one step of the stencil
            Ln = rho0 * L
            Ln[1:, :] += rho1 * L[:-1, :]
            Ln[:, 1:] += rho1 * L[:, :-1]
            Ln[1:, 1:] += rho2 * L[:-1, :-1]
            Ln[Ln < _LAW_FLUSH] = 0.0
            L = Ln
            r_L = (1 + r_L) * step - 1
        vals, off, r_av, _ = _window(m, q_ball, BINNED_TOL)  # A ~ Bin(m, q_R) on its own window (inside a_lo..a_hi)
        i0, i1 = max(off, a_lo), min(off + len(vals) - 1, a_hi)  # (the window lies inside; clipped to be sure)
        va = vals[i0 - off : i1 - off + 1]
        va = np.where(va >= flush, va, 0.0)
        r_a = max(r_a, r_av)
        sub = k2[i0 - a_lo : i1 - a_lo + 1, i0 - a_lo : i1 - a_lo + 1]
        P2 = np.bincount(sub.ravel(), weights=np.outer(va, va).ravel(), minlength=B2)
        # D ≥ (1 − c_hi)(n − γm) + base + (k + j)h =: A + (k + j)h; the terms with A_lo + (k + j)h > 0 are kept
        A_lo = arith.float_below((1 - c_hi) * (n - gam_ball * m) + base)
        K0 = int(math.floor(-fmpq(*A_lo.as_integer_ratio()) / h_q)) + 1
        eps = arith.float_below(arb(fmpq(*A_lo.as_integer_ratio()) + K0 * h_q))  # A_lo + K0·h in (0, h]
        eps = eps if eps >= 2.0**-100 else 0.0
        j_lo = max(0, K0 - B1 + 1)  # s = K0 − j < B1: a bin of U's part at or above s exists
        if j_lo >= B2:
            continue
        lo_s = max(0, K0 - B2 + 1)  # every s used is ≥ lo_s (or negative, and then lo_s = 0)
        P1 = np.bincount(k1, weights=L.ravel(), minlength=B1)[lo_s:]
        P1[P1 < _BIN_FLUSH] = 0.0
        P2 = P2[j_lo:]
        P2[P2 < _BIN_FLUSH] = 0.0
        G0 = np.zeros(len(P1) + 2)  # G0[t − lo_s] = Σ_{k ≥ t} P1(k)
        G0[: len(P1)] = np.cumsum(P1[::-1])[::-1]
        GG = np.zeros(len(P1) + 2)  # GG[t − lo_s] = Σ_{t' ≥ t} G0(t')
        GG[: len(P1) + 1] = np.cumsum(G0[: len(P1) + 1][::-1])[::-1]
        # j ≤ K0 (s = K0 − j ≥ 0): T = GG[s − lo_s + 1], M = G0[s − lo_s], s falling by one as j rises (reversed slices;
        # products summed by numpy, not BLAS's dot: its threads spin on a loaded machine, 20 ms a call here)
        j_mid = min(B2, K0 + 1)
        sa, sb = K0 - (j_mid - 1) - lo_s, K0 - j_lo - lo_s  # the s − lo_s of the last and of the first j
        st = P2[: j_mid - j_lo]
        val_t = float((st * GG[sa + 1 : sb + 2][::-1]).sum()) if j_mid > j_lo else 0.0
        val_m = float((st * G0[sa : sb + 1][::-1]).sum()) if j_mid > j_lo else 0.0
        if j_mid < B2:  # j > K0 (s < 0, lo_s = 0): T = GG(1) + (−s)·G0(0), M = G0(0)
            sn = P2[j_mid - j_lo :]
            tn = GG[1] + np.arange(j_mid - K0, B2 - K0, dtype=np.float64) * G0[0]
            val_t += float((sn * tn).sum())
            val_m += float(np.sum(sn)) * G0[0]
        val = h * val_t + eps * val_m
        out_w.append(wgt)
        out_v.append(val)
    wts_c = np.array(out_w)
    vals_c = np.array(out_v)
    keep = (wts_c >= _P_MIN) & (vals_c >= _FLUSH)
    if not keep.any():
        return arb(0)
    tot = float((wts_c[keep] * vals_c[keep]).sum())
    ops = W * W + len(ai) ** 2 + 2 * B1 + B2 + (m_hi - m_lo + 1) + 16
    phi = (1 + r_L) * (1 + arb(r_a)) ** 2 * (1 + arb(wc.rel)) * (1 + arb(laws.gamma(ops)))
    return _exact_lo(fb(tot) / phi / n)


def sampled_binned_lower(
    mech: FourValue, n: IntegerInput, q: NumberInput, *, max_work: int | None = None, **opts: Unpack[DeltaOptions]
) -> fmpq | None:
    """A certified **lower** bound on :func:`sampled_full_delta` by binning (docs/numerics.md Lemma T4): the full view
    of one round sampled with participation ``q`` on ``x z^{n−1}`` vs ``x' z^{n−1}`` (unary encoding), for the rounds
    above :func:`sampled_full_lower`'s work guard.  An exact rational, or ``None`` (not unary encoding, ``k < 3``,
    :func:`sampled_binned_work` above ``max_work`` (default :data:`SAMPLED_BINNED_MAX_WORK`), a parameter outside the
    float route's range).  Exact for exact inputs and ``n ≤ min(EXACT_N, exact_max_n)``.  Below the sorted route's
    value by the bins' width, about ``4h`` in ``X − cX'`` (h ≈ span/:data:`SAMPLED_BINS`).  Cost:
    :func:`sampled_binned_work` float operations (``W_C·(W_U² + W_A² + 4·bins)``), ``O(W_C)`` ball operations."""
    if not isinstance(mech, UnaryEncoding) or mech.k < 3:
        return None
    qq = _participation(q)
    if qq == 1:
        return sampled_full_lower(mech, n, q, max_work=max_work, **opts)
    cap = max_work if max_work is not None else SAMPLED_BINNED_MAX_WORK
    if cap < sampled_binned_work(mech, n, qq):
        return None
    done, start = _sampled_start(mech, n, qq, None, opts, "sampled_binned_lower", check_work=False)
    if start is None:
        return done
    nn, _, c_ball, e0 = start
    try:
        low = _binned_lower_core(nn, qq, mech.p, mech.q, arith.ball(e0), c_ball)
    except (ArithmeticError, laws.FloatRouteUnavailable):
        return None
    return max(fmpq(0), _exact_lo_q(low))
