"""The windowed-law engine: binomial pmf windows, tails and sums with certified error, two sound routes.

One engine for every computation that sums over binomial counts (shuffled
binary RR, the k-RR families and blanket view).  A *window* of ``Bin(m, q)``
is its pmf on ``lo..hi`` (about ``2·σ·sqrt(2 log(1/tol))`` outcomes around
the mode, ``σ² = m q (1−q)``) plus a certified upper bound ``tail`` on the
mass outside it.

Route (a) — ball arithmetic (python-flint ``arb``), any precision:

* :func:`pmf` — one pmf value, O(1) arb calls (``arb.bin_uiui`` and powers).
* :func:`tail` — ``P(Bin(m, q) ≥ k)`` as the regularized incomplete beta
  function ``I_q(k, m−k+1)`` (``arb.beta_lower``, C level): O(1) calls
  whatever ``m`` (measured 9 ms at m = 10⁹, 128 bits, relative width 1e-29).
  If flint returns a non-finite ball the value is summed from a window
  instead (never guessed).
* :func:`window` — the pmf window as a list of balls with its tail bound,
  O(W) ball operations from the mode by pmf ratios.

Route (b) — vectorised float64 (numpy) with a-priori error bounds proved in
``docs/numerics.md`` (only IEEE-754 ``+ − × ÷``, correctly rounded; every
transcendental value enters as an ``arb`` enclosure, converted with its error
counted; every result carries a *relative* error bound ``rel``: the true
value ``x`` of each entry ``v`` satisfies ``|v − x| ≤ rel·x``):

* :func:`float_window` — :class:`FloatLaw`: anchors every :data:`SEGMENT`
  outcomes computed in arb, the outcomes between by ``numpy.cumprod`` of
  float pmf ratios.  O(W) float operations + O(W/SEGMENT) arb calls.
* :func:`suffix_sums` — ``G[i] = Σ_{k ≥ i} v[k]`` of a non-negative array by
  blocked cumulative sums (error ``γ_{2√W}``, not ``γ_W``).  O(W).
* :func:`dot_nonneg` — ``Σ x_i y_i`` of non-negative arrays (rows) by an
  explicit pairwise tree (error ``γ_{1+⌈log₂ W⌉}``).  O(W) per row.
* :func:`bernoulli_step` — the window of ``X + Bernoulli(s)`` from the window
  of ``X`` (a convex combination, error ``+ 2u + e_s`` per step).  O(W).
* :func:`to_ball` — the ball ``[v/(1+rel), v/(1−rel)]`` enclosing the true value.

Every float kernel refuses (raises :class:`FloatRouteUnavailable`) when its
proof does not cover the input (``m ≥ 2⁵³``, a cut-off below 2⁻⁹⁰⁰ where
subnormal numbers would break the relative error model, a relative bound that
is not small); callers then use route (a).

>>> from flint import arb, ctx, fmpq
>>> ctx.prec = 128
>>> q = arb(fmpq(1, 3))
>>> t = tail(10**6, q, 334000)          # P(Bin(10^6, 1/3) >= 334000)
>>> 0.078 < float(t.mid()) < 0.080 and t.rad() < 1e-30
True
>>> w = float_window(10**6, q, fmpq(1, 2**60))
>>> w.rel < 1e-12 and to_ball(w.values[w.index(333333)], w.rel).overlaps(pmf(10**6, q, 333333))
True
"""

from __future__ import annotations

import functools
import math
import operator
import sys
from dataclasses import dataclass

import numpy as np
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure
from flint import arb, arb_poly, ctx, fmpq, fmpz, fmpz_poly

#: unit roundoff of IEEE-754 binary64 (round to nearest)
U = fmpq(1, 2**53)
#: outcomes between two arb anchors of a float window (the float chain length; error ∝ SEGMENT·u)
SEGMENT = 256
#: smallest cut-off the float route accepts (values stay far above the subnormal range 2^-1022)
MIN_FLOAT_TOL = fmpq(1, 2**400)
#: smallest positive value a float window may hold (products of two stay normal: > 2^-1000)
MIN_FLOAT_VALUE = 2.0**-500
#: absolute error one binary64 operation may add on top of its relative error (gradual underflow, Lemma 6)
ETA = fmpq(1, 2**1074)
#: largest m for which m − i and i + 1 are exact binary64 integers
MAX_FLOAT_M = 2**53


class FloatRouteUnavailable(ArithmeticError):
    """The float route's proof does not cover these parameters: use the ball route (a)."""


# ---------------------------------------------------------------- small exact helpers
@functools.lru_cache(maxsize=4096)
def gamma(k: int) -> fmpq:
    """Higham's ``γ_k = k u / (1 − k u)`` as an exact rational (``(1+u)^k − 1 ≤ γ_k`` for ``k u < 1``)."""
    if k * U >= 1:
        raise FloatRouteUnavailable(f"gamma_{k}: k*u >= 1")
    return k * U / (1 - k * U)


def float_upper(x: Enclosure) -> float:
    """A binary64 number ≥ the exact rational or ball ``x`` (an upper bound as a float).  O(1).

    >>> float_upper(fmpq(1, 3)) > 1 / 3
    True
    """
    if isinstance(x, arb):  # its exact dyadic upper end, no Fraction (docs/numerics.md "Exact dyadic ends of a ball")
        return arith.float_above(x)
    if isinstance(x, fmpq):
        num, den = int(x.p), int(x.q)
    else:
        return math.nextafter(float(x), math.inf)
    try:
        v = num / den  # correctly rounded (Python int true division)
    except OverflowError:  # beyond binary64: +inf, or the most negative finite
        return math.inf if num > 0 else -sys.float_info.max
    return math.nextafter(v, math.inf)  # one ulp up covers the rounding of the division


def float_ball(x: float) -> arb:
    """The binary64 number ``x`` as an exact ball (radius 0).  O(1).

    >>> float_ball(0.1).rad() == 0
    True
    """
    return arb(fmpq(*float(x).as_integer_ratio()))


def _rel_of(b: arb, v: float) -> fmpq:
    """Exact rational ``r`` with ``|v − x| ≤ r·x`` for every ``x`` in the positive ball ``b``."""
    if not (b > 0):
        raise FloatRouteUnavailable("a parameter ball contains 0 (precision too low for the float route)")
    fv = arb(v)  # exact (binary64 fits any precision >= 53)
    dev = (fv - b).abs_upper()  # max |v − x| over x in b, rounded up
    r = arb(dev) / arb(b.lower())  # rounded outward: its upper end bounds the relative error
    return _fmpq_of(arb(r.upper()))


def _fmpq_of(x: arb) -> fmpq:
    """The exact value of an exact ball (its midpoint) as an fmpq."""
    mz, ez = x.mid().man_exp()
    m, e = int(mz), int(ez)
    return fmpq(m * 2**e) if e >= 0 else fmpq(m, 2**-e)


def _float_of_ball(b: arb) -> float:
    return float(b.mid())


# ---------------------------------------------------------------- route (a): balls
def _mode(m: int, q: arb) -> int:
    u = ((m + 1) * q).mid().floor().unique_fmpz()
    if u is None:  # the midpoint of a ball is one binary number: its floor is one integer
        raise ValueError(f"no integer floor for the mode of Bin({m}, {q})")
    i0 = int(u)
    return max(0, min(m, i0))


def pmf(m: int, q: Enclosure, k: int) -> arb:
    """``P(Bin(m, q) = k)`` as a ball: ``C(m, k) q^k (1−q)^(m−k)``.  O(1) arb calls (O(log m) multiplications)."""
    if k < 0 or k > m:
        return arb(0)
    q = arith.ball(q)
    return arb.bin_uiui(m, k) * arith.int_power(q, k) * arith.int_power(1 - q, m - k)


def tail(m: int, q: Enclosure, k: int) -> arb:
    """``P(Bin(m, q) ≥ k)`` as a ball, via ``I_q(k, m − k + 1)`` (flint's ``arb_hypgeom_beta_lower``, regularized).

    O(1) arb calls whatever ``m`` (the hypergeometric series is evaluated in C
    with its own rigorous error bound; a tail asked before is looked up in :data:`_TAIL_MEMO`).  Falls back to summing a window
    (route (a), O(√m)) if flint returns a non-finite ball.
    """
    if k <= 0:
        return arb(1)
    if k > m:
        return arb(0)
    q = arith.ball(q)
    key = (m, k, ctx.prec, q.mid().man_exp(), q.rad().man_exp()) if q.is_finite() else None
    v = _TAIL_MEMO.get(key)
    if v is not None:
        return v
    v = q.beta_lower(arb(k), arb(m - k + 1), 1)
    if v.is_finite():
        if not (v >= 0):  # a probability: replace the part of the ball below 0 by the hull [0, upper]
            v = arb(0).union(arb(v.upper()))
    else:
        v = _tail_by_window(m, q, k)
    if key is not None:
        if len(_TAIL_MEMO) >= _TAIL_MEMO_MAX:
            _TAIL_MEMO.clear()
        _TAIL_MEMO[key] = v
    return v


#: :func:`tail`'s balls by (m, k, working precision, q's midpoint and radius as exact binary numbers): the same
#: tail is asked again and again at large m (the datasets c and n − 1 − c, both directions, the calibration's
#: steps), and each costs tens of milliseconds there.  A ball is immutable, so a remembered one is the one the
#: computation would return again.  Emptied when it reaches :data:`_TAIL_MEMO_MAX` entries.
_TAIL_MEMO: dict = {}
_TAIL_MEMO_MAX = 4096


def _tail_by_window(m: int, q: arb, k: int) -> arb:
    tol = fmpq(1, 2 ** (ctx.prec + 24))
    vals, off, T = window(m, q, tol)
    s = arb(0)
    for i in range(max(k - off, 0), len(vals)):
        s += vals[i]
    return s + arb(0).union(arb(T.upper()))


def window(m: int, q: Enclosure, tol: Enclosure) -> tuple:
    """Window of the pmf of Bin(m, q) as balls: ``(values, offset, tail)``, ``tail`` an arb upper bound on
    the mass outside.  Cost O(W) ball operations, ``W ≈ 2σ·sqrt(2 log(1/tol)) + O(1)``.

    Starts at the mode ``i0 = floor((m+1)q)`` (computed from the ball's midpoint — the choice of the
    start affects only efficiency, never rigour), with ``C(m, i0) q^i0 (1−q)^(m−i0)`` evaluated in ball
    arithmetic, then multiplies by the pmf ratio up and down until a value is certainly below ``tol``.
    Left-out mass: past the window the ratio ``b(i+1)/b(i) = (m−i)ρ/(i+1)`` (ρ = q/(1−q)) decreases
    in ``i``, so the mass above the last index ``i`` is at most ``b(i)·r/(1−r)``, ``r`` the ratio at
    ``i`` (certainly < 1 there, else we continue); symmetrically below.
    """
    return _walk_window(m, q, tol, stop_below_half=False)


def window_bounds(m: int, q: Enclosure, tol: Enclosure) -> tuple:
    """``(lo, hi, tail)``: a window ``lo..hi`` of Bin(m, q) whose left-out mass is certified ``≤ tail ≤ 2·tol``
    (about; ``tail`` is the certified number).  O(1) arb calls (plus O(1) retries).

    Above ``hi`` the mass is at most ``b(hi+1)/(1 − r(hi+1))`` (ratio ``r(i) = (m−i)ρ/(i+1)``
    decreasing in ``i``, < 1 past the mode); below ``lo`` at most ``b(lo−1)/(1 − s(lo−1))``
    (``s(i) = i/((m−i+1)ρ)`` increasing in ``i``).
    """
    q = arith.ball(q)
    if m == 0:
        return 0, 0, arb(0)
    qf = float(q.mid())
    mean = m * qf
    sd = math.sqrt(max(m * qf * (1 - qf), 0.0)) + 1.0
    tol_q = arith.exact(tol)
    z = math.sqrt(2 * max(math.log(2) * (int(tol_q.q).bit_length() - int(tol_q.p).bit_length() + 1), 1.0)) + 1.0
    rho = q / (1 - q)
    hi = min(m, int(mean + z * sd) + 2)
    lo = max(0, int(mean - z * sd) - 2)
    tol_b = arb(tol_q)
    while True:
        if hi >= m:
            t_up = arb(0)
            break
        r = rho * fmpq(m - hi - 1, hi + 2)
        if r < 1:
            t_up = pmf(m, q, hi + 1) / (1 - r)
            if t_up < tol_b:
                break
        hi = min(m, hi + int(sd) + 1)
    while True:
        if lo <= 0:
            t_dn = arb(0)
            break
        s = fmpq(lo - 1, m - lo + 2) / rho
        if s < 1:
            t_dn = pmf(m, q, lo - 1) / (1 - s)
            if t_dn < tol_b:
                break
        lo = max(0, lo - int(sd) - 1)
    return lo, hi, arb((t_up + t_dn).upper())


# ---------------------------------------------------------------- route (b): float64 with proved bounds
@dataclass
class FloatLaw:
    """A float window: ``values[i] ≈ P(X = offset + i)`` with ``|values[i] − x| ≤ rel·x`` (proved,
    docs/numerics.md), and ``tail`` (arb) a certified bound on the mass outside ``offset..offset+len−1``."""

    values: np.ndarray
    offset: int
    rel: float
    tail: arb

    def index(self, k: int) -> int:
        return k - self.offset

    @property
    def hi(self) -> int:
        return self.offset + len(self.values) - 1


def float_param(x: Enclosure) -> tuple:
    """``(v, e)``: a binary64 ``v`` near the positive ball/rational ``x`` and an exact rational ``e`` with
    ``|v − x| ≤ e·x`` (Lemma 1 of docs/numerics.md)."""
    b = arith.ball(x)
    v = _float_of_ball(b)
    return v, _rel_of(b, v)


def float_window(
    m: int,
    q: Enclosure,
    tol: Enclosure,
    *,
    segment: int = SEGMENT,
    bounds: tuple | None = None,
    min_tol: fmpq = MIN_FLOAT_TOL,
    anchor_prec: int | None = None,
) -> FloatLaw:
    """Float window of Bin(m, q) (route (b)); see docs/numerics.md, Lemma 2.

    Anchors ``b(lo + s·L)`` (``L = segment``) are arb balls (:func:`pmf`)
    rounded to binary64; the other values are ``numpy.cumprod`` of the float
    ratios ``((m − i)·ρ̂)/(i + 1)``.  Proved: ``|v − x| ≤ rel·x`` with
    ``rel = (1+e_a)(1+e_ρ)^L (1+u)^{3L} − 1``.  Cost: O(W) float
    operations and ``W/L`` arb pmf evaluations (O(log m) multiplications each).
    Raises :class:`FloatRouteUnavailable` outside the proof's range
    (``m ≥ 2⁵³``, ``tol < min_tol``, ``q`` not certainly in (0, 1), a window value below
    :data:`MIN_FLOAT_VALUE`).  ``min_tol`` (default :data:`MIN_FLOAT_TOL`) only limits the work: the
    proof rests on the check that every window value is ≥ :data:`MIN_FLOAT_VALUE`, which is made
    whatever ``tol``; a caller whose later steps tolerate smaller values (the Rényi moments, Lemma R2)
    may pass a smaller ``min_tol`` (never below :data:`MIN_FLOAT_VALUE`).  ``anchor_prec``: evaluate the anchors
    at ``min(ctx.prec, anchor_prec)`` bits instead of the working precision (each is still a certified ball, and
    ``e_a`` is measured on it, so the proof is unchanged; only speed: at 4096 bits an anchor of Bin(5·10⁸, ·)
    costs ~0.4 ms, at 192 bits ~20 times less, and binary64 keeps 53 bits of it either way).
    """
    tol = arith.exact(tol)
    min_tol = max(arith.exact(min_tol), fmpq(1, 2**500))
    if m >= MAX_FLOAT_M:
        raise FloatRouteUnavailable(f"m = {m} >= 2^53")
    if tol < min_tol:
        raise FloatRouteUnavailable(f"tol below the cut-off limit 2^{-(int(min_tol.q).bit_length() - 1)}")
    q = arith.ball(q)
    if not (q > 0 and q < 1):
        raise FloatRouteUnavailable("q not certainly in (0, 1)")
    lo, hi, T = bounds if bounds is not None else window_bounds(m, q, tol)
    W = hi - lo + 1
    L = max(1, min(segment, W))
    S = -(-W // L)
    rho_hat, e_rho = float_param(q / (1 - q))
    idx = lo + np.arange(S * L, dtype=np.float64)  # exact integers (< 2^53)
    ratios = ((float(m) - idx) * rho_hat) / (idx + 1.0)  # ratio b(i+1)/b(i) at i = idx
    R = np.empty((S, L), dtype=np.float64)
    R[:, 1:] = ratios.reshape(S, L)[:, : L - 1]
    e_a = fmpq(0)
    aprec = ctx.prec if anchor_prec is None else max(64, min(ctx.prec, anchor_prec))
    for s in range(S):
        k = lo + s * L
        if k <= m and aprec != ctx.prec:
            with arith.precision(aprec):
                a = pmf(m, q, k)
        else:
            a = pmf(m, q, k) if k <= m else arb(0)
        if k > m:
            R[s, 0] = 0.0
            continue
        v = _float_of_ball(a)
        if not (v > MIN_FLOAT_VALUE):
            raise FloatRouteUnavailable("an anchor is below 2^-500")
        R[s, 0] = v
        e_a = max(e_a, _rel_of(a, v))
    vals = np.cumprod(R, axis=1).reshape(-1)[:W]
    # outside the support (k > m) the ratio (m - i) is <= 0: those entries are exactly 0 or negative — zero them
    if lo + W - 1 > m:
        vals[m - lo + 1 :] = 0.0
    np.maximum(vals, 0.0, out=vals)
    pos = vals[vals > 0]
    if len(pos) and not (pos.min() >= MIN_FLOAT_VALUE):
        raise FloatRouteUnavailable("a window value is below 2^-500 (subnormal products possible)")
    rel = (1 + arb(e_a)) * (1 + arb(e_rho)) ** (L - 1) * (1 + arb(gamma(3 * (L - 1)))) - 1  # outward-rounded
    return FloatLaw(vals, lo, _checked_rel(rel), T)


def _checked_rel(rel) -> float:
    r = float_upper(rel)
    if not r < 1e-6:
        raise FloatRouteUnavailable(f"relative error bound {r:.1e} too large")
    return r


def suffix_sums(v: np.ndarray, rel: float = 0.0, block: int | None = None) -> tuple:
    """``(G, rel')``: ``G[i] ≈ Σ_{k ≥ i} v[k]`` for a non-negative array (entries with relative error
    ``rel``), computed by blocked cumulative sums: each term passes ≤ ``(L−1) + (S−1) + 1`` roundings
    (``L`` block length, ``S`` blocks), so ``rel' = (1+rel)(1+γ_{L+S−1}) − 1`` (docs/numerics.md,
    Lemma 3).  O(W).  ``G`` has ``len(v) + 1`` entries (``G[len(v)] = 0``).
    """
    W = len(v)
    L = block or max(1, int(math.isqrt(max(W, 1))))
    S = -(-W // L) if W else 1
    P = np.zeros(S * L, dtype=np.float64)
    P[:W] = v
    P2 = P.reshape(S, L)
    within = np.cumsum(P2[:, ::-1], axis=1)[:, ::-1]  # suffix sums inside each block
    totals = within[:, 0]
    later = np.zeros(S, dtype=np.float64)
    if S > 1:
        later[:-1] = np.cumsum(totals[::-1])[::-1][1:]  # total of all later blocks
    G = np.empty(W + 1, dtype=np.float64)
    G[:W] = (within + later[:, None]).reshape(-1)[:W]
    G[W] = 0.0
    r = (1 + float_ball(rel)) * (1 + arb(gamma(L + S - 1))) - 1
    return G, float_upper(r)


def suffix_sums_rows(v: np.ndarray, rel: float = 0.0) -> tuple:
    """:func:`suffix_sums` of every row of a non-negative matrix (along the last axis), the same blocked cumulative
    sums with the same block length, so the same bound ``rel' = (1+rel)(1+γ_{L+S−1}) − 1`` holds for every row
    (docs/numerics.md, Lemma 3, row by row).  ``G`` has ``v.shape[1] + 1`` columns (the last 0).  O(rows·W)."""
    R, W = v.shape
    L = max(1, int(math.isqrt(max(W, 1))))
    S = -(-W // L) if W else 1
    P = np.zeros((R, S * L), dtype=np.float64)
    P[:, :W] = v
    P3 = P.reshape(R, S, L)
    within = np.cumsum(P3[:, :, ::-1], axis=2)[:, :, ::-1]
    totals = within[:, :, 0]
    later = np.zeros((R, S), dtype=np.float64)
    if S > 1:
        later[:, :-1] = np.cumsum(totals[:, ::-1], axis=1)[:, ::-1][:, 1:]
    G = np.empty((R, W + 1), dtype=np.float64)
    G[:, :W] = (within + later[:, :, None]).reshape(R, -1)[:, :W]
    G[:, W] = 0.0
    r = (1 + float_ball(rel)) * (1 + arb(gamma(L + S - 1))) - 1
    return G, float_upper(r)


def pairwise_sum(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis by an explicit pairwise tree: every term passes ≤ ⌈log₂ W⌉ additions."""
    x = np.asarray(x, dtype=np.float64)
    while x.shape[-1] > 1:
        W = x.shape[-1]
        if W % 2:
            x = np.concatenate([x, np.zeros(x.shape[:-1] + (1,))], axis=-1)
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0]


def pairwise_depth(W: int) -> int:
    return max(0, math.ceil(math.log2(W))) if W > 1 else 0


def dot_nonneg(x: np.ndarray, y: np.ndarray, rel_x: float = 0.0, rel_y: float = 0.0) -> tuple:
    """``(s, rel)``: ``Σ_i x_i y_i`` over the last axis for non-negative arrays (broadcast: ``y`` may be a
    matrix of rows), products then :func:`pairwise_sum`; ``rel = (1+rel_x)(1+rel_y)(1+γ_{1+⌈log₂W⌉}) − 1``
    (docs/numerics.md, Lemma 4).  O(W) per row.
    """
    s = pairwise_sum(np.multiply(x, y))
    W = np.shape(x)[-1] if np.ndim(x) else 1
    r = (1 + float_ball(rel_x)) * (1 + float_ball(rel_y)) * (1 + arb(gamma(1 + pairwise_depth(W)))) - 1
    return s, float_upper(r)


def bernoulli_step(v: np.ndarray, s_hat: float, t_hat: float) -> np.ndarray:
    """Window of ``X + Bernoulli(s)`` from the window ``v`` of ``X`` (one longer): ``w[i] = t·v[i] + s·v[i−1]``
    with ``t = 1 − s`` (both given as floats with their own relative errors).  Error: the new relative
    bound is ``(1 + rel)(1 + e)(1 + γ_2) − 1`` with ``e = max(e_s, e_t)`` (docs/numerics.md, Lemma 5).
    O(W).  The same recursion maps suffix sums of ``X`` to suffix sums of ``X + Bernoulli(s)``.
    """
    w = np.empty(len(v) + 1, dtype=np.float64)
    w[:-1] = t_hat * v
    w[-1] = 0.0
    w[1:] += s_hat * v
    return w


def bernoulli_rel(rel: float, e: fmpq, steps: int = 1) -> float:
    """The relative bound after ``steps`` applications of :func:`bernoulli_step` (Lemma 5)."""
    r = (1 + float_ball(rel)) * ((1 + arb(e)) * (1 + arb(gamma(2)))) ** steps - 1
    return float_upper(r)


def ball_factor(rel: float) -> arb:
    """The ball ``[1/(1+rel), 1/(1−rel)]`` (outward): ``arb(v) * ball_factor(rel)`` encloses ``[v/(1+rel), v/(1−rel)]``
    for ``v ≥ 0`` — the fast form of :func:`to_ball` when many values share one bound."""
    r = float_ball(rel)
    lo, hi = 1 / (1 + r), 1 / (1 - r)
    return arb(lo.lower()).union(arb(hi.upper()))


def to_ball(v: float, rel: float) -> arb:
    """The ball ``[v/(1+rel), v/(1−rel)]`` containing every ``x ≥ 0`` with ``|v − x| ≤ rel·x`` (exact
    endpoints, rounded outward).  O(1)."""
    v = float(v)
    if v == 0.0:
        return arb(0)
    fv = arb(fmpq(*v.as_integer_ratio()))
    r = arb(fmpq(*float(rel).as_integer_ratio()))
    lo = fv / (1 + r)
    hi = fv / (1 - r)
    return arb(lo.lower()).union(arb(hi.upper()))


def window_dots(a: np.ndarray, x: np.ndarray, x_below: float, k0: int, count: int, L: int | None = None) -> tuple:
    """``(s, gamma)``: ``s[r] = Σ_i a[i]·x̃[k0 + r − i]`` for ``r = 0..count−1``, where ``x̃[m] = x[m]`` inside,
    ``x_below`` for ``m < 0`` and ``0`` for ``m ≥ len(x)`` (a few coefficients of a convolution).

    Every entry is a dot product of non-negative numbers computed as
    products then sums over blocks of ``L ≈ √W`` terms and a sum of the ``S``
    block sums: whatever order numpy uses inside a reduction, each product
    passes ≤ ``(L−1) + (S−1)`` additions, so with entries of relative errors
    ``r_a``, ``r_x`` the result has relative error
    ``≤ (1+r_a)(1+r_x)(1+gamma) − 1`` with ``gamma = γ_{L+S−1}`` returned as an
    exact rational (docs/numerics.md, Lemma 4').  O(count·W) operations,
    W = len(a).  ``L`` (default ``⌊√W⌋``) may be fixed by the caller to share one bound over many calls.
    """
    a = np.asarray(a, dtype=np.float64)
    WA = len(a)
    L = max(1, math.isqrt(WA)) if L is None else L
    S = -(-WA // L)
    WL = S * L
    m_lo = k0 - WL + 1
    N = WL + count - 1  # xp[q] = x̃[m_lo + q]
    xp = np.zeros(N, dtype=np.float64)
    nb = min(max(0, -m_lo), N)  # entries with m < 0
    if nb:
        xp[:nb] = x_below
    lo_in, hi_in = max(m_lo, 0), min(m_lo + N, len(x))
    if hi_in > lo_in:
        xp[lo_in - m_lo : hi_in - m_lo] = x[lo_in:hi_in]
    arev = np.zeros(WL, dtype=np.float64)
    arev[WL - WA :] = a[::-1]
    st = xp.strides[0]
    rows = np.lib.stride_tricks.as_strided(xp, shape=(count, WL), strides=(st, st), writeable=False)
    prod = rows * arev
    s = prod.reshape(count, S, L).sum(axis=2).sum(axis=1)
    return s, gamma(L + S - 1)


def rel_combine(*parts: float | fmpq) -> float:
    """``∏(1 + part) − 1`` rounded up, for relative bounds (floats or exact rationals)."""
    r = arb(1)
    for x in parts:
        r = r * (1 + (arb(x) if isinstance(x, fmpq) else float_ball(x)))
    return float_upper(r - 1)


def tail_step(G: np.ndarray, s_hat: float, t_hat: float) -> np.ndarray:
    """Suffix sums of ``X + Bernoulli(s)`` from the suffix sums ``G`` of ``X`` (``G[0]`` the total, ``G[-1] = 0``):
    ``G'[r] = t·G[r] + s·G[r−1]`` with ``G[−1] = G[0]`` (the mass below the window is counted in the total).
    Same error bound as :func:`bernoulli_step` (Lemma 5).  O(W)."""
    w = bernoulli_step(G, s_hat, t_hat)  # length len(G) + 1; its last entry is s·G[-1] = 0
    w[0] = w[0] + s_hat * G[0]
    return w


def _scaled_ints(v: list, s: int) -> tuple:
    """``(A, rho, eta_bad)`` for :func:`ball_product`: ``A_i = ⌊mid(v_i)·2^s⌋`` (0 where that is ≤ 0), the
    relative radius bound ``rho ≥ rad(v_i)/(A_i 2^{-s})`` over ``A_i > 0`` (a float, rounded up with a
    margin; see docs/numerics.md Lemma R8) and ``eta_bad`` (an arb) bounding ``|v_i − 0|`` where ``A_i = 0``."""

    v = [x if isinstance(x, arb) else arith.ball(x) for x in v]
    A = [(M << k) if k >= 0 else (M >> -k) for M, E in (x.mid().man_exp() for x in v) for k in (int(E) + s,)]
    # each radius a mag (30-bit mantissa): exact in binary64 unless below 2^-1022; + 2^-1000 makes each an
    # upper bound in every case (an overflow gives inf: checked below)
    tiny = 2.0**-1000
    rads = [float(x.rad()) + tiny for x in v]
    bad = arb(0)
    if min(A) <= 0:
        zero = fmpz(0)
        for i, a in enumerate(A):
            if a <= 0:
                A[i] = zero
                rads[i] = 0.0
                bad = arb.max(bad, abs(v[i].mid()) + v[i].rad())
        rho = max((r / float(a) for r, a in zip(rads, A) if a > 0), default=0.0)
    else:
        rho = max(map(operator.truediv, rads, map(float, A)))
    if not math.isfinite(rho):
        raise FloatingPointError("ball_product: radius ratio out of binary64 range")
    return A, rho, bad


def ball_product(a: list, b: list, *, bits: int | None = None) -> list:
    """The coefficients of the product of two polynomials with ball coefficients, by one exact integer product.

    Each ball's midpoint is scaled to an integer at the fixed binary exponent ``s = bits`` (floored), the two
    integer vectors are multiplied exactly (``fmpz_poly``, FLINT's Kronecker/Schönhage–Strassen product),
    and every rounding and every input radius is carried into a rigorous radius (docs/numerics.md,
    Lemma R8): coefficient ``k`` of the result is the ball ``C_k 2^{-2s}·(1 ± ρ) ± η`` with ``C`` the exact
    integer product, ``ρ = ρ_a + ρ_b + ρ_a ρ_b`` (the inputs' relative radii) and
    ``η = η_b(1+ρ_a)Σα + η_a(1+ρ_b)Σβ + min(L_a, L_b) η_a η_b`` (the absolute parts: the floor ``2^{-s}``
    and the inputs that round to 0).  Every true product coefficient (for any choice of the inputs inside
    their balls) lies in the returned ball.  Intended for non-negative vectors (laws); signed input is
    valid but its negative entries count as absolute error.

    ``bits=None`` picks ``s = ctx.prec + 2·⌈log2 L⌉ + 8 − e_min`` with ``2^{e_min}`` about the smallest
    positive midpoint (every entry then keeps about ``ctx.prec`` bits).  Cost: ``O(L_a + L_b)`` Python
    steps to scale, plus one integer product of ``(s + O(log L))``-bit coefficients, ``Õ(L·s)``
    bit operations (about 0.35 s for ``2.3·10^5 × 3.3·10^5`` at ``s = 180``).

    >>> from flint import arb_poly
    >>> a = [arb(1) / 3, arb(2) / 3]; b = [arb(1) / 7, arb(6) / 7]
    >>> c = ball_product(a, b)
    >>> all(x.overlaps(y) and x.rad() < 2**-45 for x, y in zip(c, (arb_poly(a) * arb_poly(b)).coeffs()))
    True
    """

    if not a or not b:
        return []
    a = [x if isinstance(x, arb) else arith.ball(x) for x in a]
    b = [x if isinstance(x, arb) else arith.ball(x) for x in b]
    La, Lb = len(a), len(b)
    if bits is None:
        emin = None
        for x in a + b:
            m = x.mid()
            if m > 0:
                M, E = m.man_exp()
                e = int(E) + int(M).bit_length()
                emin = e if emin is None or e < emin else emin
        bits = ctx.prec + 2 * max(La, Lb).bit_length() + 8 - (emin if emin is not None else 0)
    s = int(bits)
    if not 0 <= s <= 700:
        raise InvalidArgument("bits", s, "must be in [0, 700] (the exponent of the integer scaling)")
    A, ra, bad_a = _scaled_ints(a, s)
    B, rb, bad_b = _scaled_ints(b, s)
    fa, fb = fmpz_poly(A), fmpz_poly(B)
    C = fa * fb
    # the relative radii as certified balls: each computed ratio carries ≤ 2 roundings (float(A), the
    # division; rel. 2^-53 each) and possibly an underflow (abs. 2^-1074): widen both ways
    slack = 2.0**-40
    rho_a = arb(ra) * (1 + arb(slack)) * arb(2) ** s + arb(2) ** (s - 1000)
    rho_b = arb(rb) * (1 + arb(slack)) * arb(2) ** s + arb(2) ** (s - 1000)
    rho = (rho_a + rho_b + rho_a * rho_b).upper()
    unit = arb(2) ** (-s)
    eta_a = unit + bad_a
    eta_b = unit + bad_b
    sum_a = arb(fa(1)) * unit
    sum_b = arb(fb(1)) * unit
    eta = (eta_b * (1 + rho_a) * sum_a + eta_a * (1 + rho_b) * sum_b + min(La, Lb) * eta_a * eta_b).upper()
    L = La + Lb - 1
    P = arb_poly(C) * (arb(2) ** (-2 * s))
    P = P * arb(1, rho)
    P = P + arb_poly([arb(0, eta)] * L)
    out = P.coeffs()
    out += [arb(0, eta)] * (L - len(out))  # trailing zero coefficients of C (dropped by the poly type)
    return out


def window_to_tail(m: int, q: Enclosure, tol: Enclosure) -> tuple:
    """Like :func:`window`, but stops each side as soon as its certified geometric tail bound is below
    ``tol/2``: ``(values, offset, tail)`` with ``tail < tol`` guaranteed, in one pass.

    :func:`window` stops where a *value* is below its cut-off; its tail bound ``b(i)·r/(1−r)`` can be
    ~√m times larger (``r → 1`` near the mode at large ``m``), so a caller needing ``tail < tol`` had to
    retry with deeper cut-offs (each retry recomputing the window).  Same values, same tail argument
    (past index ``i`` with ratio ``r < 1`` the left-out mass is ``≤ b(i)·r/(1−r)``); the rule is checked
    only once a value is below ``tol``, so the extra cost is a few ball operations per atom past that.
    Cost O(W) ball operations.

    >>> from flint import fmpq
    >>> vals, off, t = window_to_tail(10**6, fmpq(1, 3), arb(2) ** -60)
    >>> t < arb(2) ** -60 and len(vals) < 10**4
    True
    """
    return _walk_window(m, q, tol, stop_below_half=True)


def _walk_window(m: int, q: Enclosure, tol: Enclosure, stop_below_half: bool) -> tuple:
    """The walk of :func:`window` (``stop_below_half`` false) and :func:`window_to_tail` (true): from the mode
    up and down by the pmf ratio; a side stops once a value is below ``tol`` and its ratio ``r`` is < 1, and,
    with ``stop_below_half``, only once its geometric tail bound ``b(i)·r/(1−r)`` is also below ``tol/2``.
    Cost O(W) ball operations.
    """
    if m == 0:
        return [arb(1)], 0, arb(0)
    q = arith.ball(q)
    one_minus = 1 - q
    rho = q / one_minus
    i0 = _mode(m, q)
    v0 = arb.bin_uiui(m, i0) * arith.int_power(q, i0) * arith.int_power(one_minus, m - i0)
    tol_b = arb(tol)
    half = tol_b / 2
    inv_rho = one_minus / q
    up: list = []
    append = up.append
    v, i = v0, i0
    tail_up = arb(0)
    while i < m:
        if i > i0 and v < tol_b:
            r = rho * fmpq(m - i, i + 1)
            if r < 1:
                t = v * r / (1 - r)
                if not stop_below_half or t < half:
                    tail_up = t
                    break
        v = v * (m - i) * rho / (i + 1)  # b(i+1) = b(i)·(m−i)ρ/(i+1); int operands are exact
        i += 1
        append(v)
    down: list = []
    append = down.append
    v, i = v0, i0
    tail_down = arb(0)
    while i > 0:
        if i < i0 and v < tol_b:
            s = fmpq(i, m - i + 1) / rho
            if s < 1:
                t = v * s / (1 - s)
                if not stop_below_half or t < half:
                    tail_down = t
                    break
        v = v * i * inv_rho / (m - i + 1)  # b(i−1) = b(i)·i/((m−i+1)ρ)
        i -= 1
        append(v)
    vals = down[::-1] + [v0] + up
    offset = i0 - len(down)
    t = tail_up + tail_down
    return vals, offset, arb(t.upper())


@functools.lru_cache(maxsize=8)
def bernoulli_rows(B: int, kh: float, fh: float) -> np.ndarray:
    """``R[j] = Bin(j, keep) ⊛ Bin(B−1−j, flip)`` for ``j < B`` (complete laws, a ``B × B`` float array): step ``s``
    adds Bernoulli(keep) when ``s < j``, else Bernoulli(flip) (Lemma 5: relative error ``bernoulli_rel(0, e, B − 1)``).
    O(B²), cached (a pure function of its float arguments; the array is read-only, every block of a sweep reuses
    it).  Used by the Rényi route's and the worst-case curve's block sweeps."""
    R = np.zeros((B, B))
    R[:, 0] = 1.0
    js = np.arange(B)
    for s in range(B - 1):
        sv = np.where(s < js, kh, fh)[:, None]  # probability of a 1 at this step
        tv = np.where(s < js, fh, kh)[:, None]  # probability of a 0
        new = np.zeros_like(R)
        new[:, : s + 2] = tv * R[:, : s + 2]
        new[:, 1 : s + 2] += sv * R[:, : s + 1]
        R = new
    R.flags.writeable = False
    return R
