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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.laws.divergences import Windowed
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, Enclosure, NumberOrBall, SweepOptions
from blanket.exact.runtime.budget import SWEEP_BLOCK
from blanket.exact.runtime.executors import map_blocks
from blanket.exact.runtime.progress import Progress
from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: largest n for which exact-rational inputs are computed exactly (fmpq polynomials)
EXACT_MAX_N = 400
#: extra bits beyond the working precision for the window cut-off 2^-(prec+TAIL_EXTRA_BITS)
TAIL_EXTRA_BITS = 24


# ---------------------------------------------------------------- parameters
def _check_mech(mech):
    k = getattr(mech, "k", None)
    if k != 2 or not hasattr(mech, "exp_epsilon0"):
        raise InvalidArgument(
            "mech",
            getattr(mech, "name", mech),
            "must be binary randomized response (KRR with k = 2, e.g. BinaryRR(epsilon0=...))",
            hint="for k > 2 use exact.shuffled.krr",
        )
    return mech


def _check_n(n):
    return arith.integer_in(n, "n", lo=2)


def _check_c(c, n):
    return arith.integer_in(c, "c", lo=0, hi=n - 1)


def rr_params(mech: KRR) -> tuple[Enclosure, Enclosure, Enclosure]:
    """``(e^{ε0}, p, f)`` — exact fmpq when the mechanism is exact, else balls at the current precision."""
    ee0 = mech.exp_epsilon0()
    if isinstance(ee0, fmpq):
        return ee0, ee0 / (ee0 + 1), fmpq(1) / (ee0 + 1)
    e = arith.ball(ee0)
    f = 1 / (e + 1)
    return e, e * f, f


def _is_zero_regime(ee, ee0, mech=None, epsilon=None) -> bool:
    """True when ``ε ≥ ε0`` is certain (then δ = 0 exactly): compared exactly when both are given as exact
    numbers (so that ε = ε0 given as the same decimal is decided), else ``e^ε ≥ e^{ε0}`` on balls."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None and epsilon is not None and not isinstance(epsilon, arb):
        return arith.exact(epsilon, "epsilon") >= e0
    return arith.ge(ee, ee0) is True


def _use_exact(n, *vals) -> bool:
    return n <= EXACT_MAX_N and all(isinstance(v, fmpq) for v in vals)


def _tau(prec: int | None = None, extra: int = 0) -> fmpq:
    prec = ctx.prec if prec is None else prec
    return fmpq(1, 2 ** (prec + TAIL_EXTRA_BITS + extra))


# ---------------------------------------------------------------- binomial laws
def _binom_exact(m: int, q: fmpq) -> list:
    """Exact pmf of Bin(m, q) as a list of fmpq (O(m) operations on growing rationals)."""
    out = [fmpq(0)] * (m + 1)
    out[0] = (1 - q) ** m
    if out[0] == 0:  # q == 1
        out[m] = fmpq(1)
        return out
    rho = q / (1 - q)
    for i in range(m):
        out[i + 1] = out[i] * fmpq(m - i, i + 1) * rho
    return out


def _binom_window(m: int, q: arb, tol: fmpq):
    """Window of the pmf of Bin(m, q) as balls: ``(values, offset, tail)`` — :func:`exact.laws.binomial.window`."""
    return laws.window(m, q, tol)


def _other_law_ball(p, f, n: int, c: int, tol: fmpq):
    """``(arb_poly g', offset, T)``: window of the law of K_other (see module docstring)."""
    a_vals, a_off, a_tail = _binom_window(c, p, tol)
    b_vals, b_off, b_tail = _binom_window(n - 1 - c, f, tol)
    g = arb_poly(a_vals) * arb_poly(b_vals)
    return g, a_off + b_off, arb((a_tail + b_tail).upper())


def _other_law_exact(p: fmpq, f: fmpq, n: int, c: int) -> fmpq_poly:
    return fmpq_poly(_binom_exact(c, p)) * fmpq_poly(_binom_exact(n - 1 - c, f))


# ---------------------------------------------------------------- public: laws
def count_law(mech: KRR, n: int, c: int, x: int, *, tol: NumberOrBall | None = None) -> Windowed:
    """Law of the number of 1-reports among all ``n`` users (c ones among the others, differing user holds ``x``).

    Exact (``tail = 0``, full support ``0..n``) when ``e^{ε0}`` is rational and
    ``n ≤ EXACT_MAX_N``; otherwise a window of balls at the current
    precision whose ``tail`` is a certified upper bound on the mass outside
    (``tol`` is the cut-off for the window's end values, default
    ``2^-(prec+24)``; the true mass of every outcome inside the window lies
    in ``[value, value + tail]``).  Cost O(n²) exact, O(W log W) balls.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> w = count_law(BinaryRR(exp_epsilon0=3), 2, 0, 1)
    >>> w.mass, w.tail
    ([3/16, 5/8, 3/16], 0)
    """
    _check_mech(mech)
    n = _check_n(n)
    c = _check_c(c, n)
    if x not in (0, 1):
        raise InvalidArgument("x", x, "must be 0 or 1 (the differing user's bit)")
    ee0, p, f = rr_params(mech)
    if _use_exact(n, ee0):
        assert isinstance(p, fmpq) and isinstance(f, fmpq)  # rr_params: an exact e^{eps0} gives exact p, f
        g = _other_law_exact(p, f, n, c)
        lin = fmpq_poly([f, p]) if x == 1 else fmpq_poly([p, f])
        cs = (g * lin).coeffs()
        cs = cs + [fmpq(0)] * (n + 1 - len(cs))
        return Windowed(cs, 0, fmpq(0))
    tol_q = _tau() if tol is None else arith.exact_in(tol, "tol", lo=0, lo_open=True)
    gb, off, T = _other_law_ball(arith.ball(p), arith.ball(f), n, c, tol_q)
    lin_b = arb_poly([f, p]) if x == 1 else arb_poly([p, f])
    return Windowed((gb * lin_b).coeffs(), off, T)


# ---------------------------------------------------------------- forward divergence from g
def _forward_exact(g: fmpq_poly, p, f, ee, reverse: bool = False) -> fmpq:
    """``D_{e^ε}(P_1‖P_0) = Σ_k [d(k)]_+`` exactly (O(n)); ``reverse``: ``D_{e^ε}(P_0‖P_1)``."""
    d = g * (fmpq_poly([p - ee * f, f - ee * p]) if reverse else fmpq_poly([f - ee * p, p - ee * f]))
    s = fmpq(0)
    for v in d.coeffs():
        if v > 0:
            s += v
    return s


def _forward_ball(g: arb_poly, T: arb, p, f, ee, reverse: bool = False) -> arb:
    """Enclosure of ``D_{e^ε}(P_1‖P_0)`` from a window ``g'`` of the law of K_other with defect ``T``.

    ``d'(k) = (f − e^ε p) g'(k) + (p − e^ε f) g'(k−1)`` (one polynomial
    product); the true ``d(k)`` lies in ``d'(k) ± (|f − e^ε p| + |p − e^ε f|)·T``.
    Scanning from the top of the window down, certainly non-negative terms
    are added, undecided ones through their positive part, and the scan stops
    at the first certainly negative term: by the monotone likelihood ratio
    (fact 1) every true ``d`` below it is negative.  Outcomes outside the
    window add at most their ``P_1``-mass ``≤ T``.  Cost O(W log W) for the
    product plus O(W) for the scan.
    """
    a = f - ee * p
    b = p - ee * f
    if reverse:
        # D(P_0‖P_1): d_rev(k) = (p − e^ε f) g(k) + (f − e^ε p) g(k−1) is positive on a *lower* set of k
        # (the likelihood ratio P_0/P_1 is non-increasing), so the same scan runs from the bottom up
        a, b = b, a
        d = (g * arb_poly([a, b])).coeffs()
    else:
        d = (g * arb_poly([a, b])).coeffs()[::-1]
    widen = (abs(arb(a)) + abs(arb(b))) * T
    extra = arb(0, widen.upper()) if not T.is_zero() else None
    s = arb(0)
    zero = arb(0)
    for v in d:
        if extra is not None:
            v = v + extra
        if v >= 0:
            s += v
        elif v < 0:
            break
        else:
            s += v.max(zero)
    if not T.is_zero():
        s = s + _interval(0, arb(T.upper()))
    return _nonneg(s)


def _nonneg(v):
    """A hockey-stick divergence is ≥ 0: replace a ball's negative part (rounding of [0, T] terms) by 0."""
    if isinstance(v, fmpq) or v >= 0 or not v.is_finite():
        return v
    return _interval(0, arb(v.upper()))


def _interval(lo, hi) -> arb:
    """The ball hull of the real interval [lo, hi] (lo, hi exact or balls)."""
    return arith.ball(lo).union(arith.ball(hi))


# ---------------------------------------------------------------- fast single-dataset route (exact.laws.binomial)
#: most candidate values of t* a single evaluation examines before falling back to the full scan
MAX_TSTAR_CANDIDATES = 16


#: below this n the single-dataset ball path uses the full scan (:func:`_forward_ball`), cheaper there
FAST_MIN_N = 2000


def _forward_fast(n: int, j: int, p: arb, f: arb, ee: arb) -> arb:
    """forward(j) = ``D_{e^ε}(P_1‖P_0)`` for the dataset with ``j`` ones among the others (balls);
    see :func:`_directions_fast`."""
    return _directions_fast(n, j, p, f, ee, ("1|0",))["1|0"]


def _directions_fast(n: int, c: int, p: arb, f: arb, ee: arb, which=("1|0", "0|1")) -> dict:
    """``{direction: D}`` for the dataset with ``c`` ones among the others, ball route (a).

    Forward: ``δ = max_t h(t)`` with ``h(t) = a·Ḡ(t) + b·Ḡ(t−1)`` (``Ḡ`` the
    upper tail of K_other, ``a = f − e^ε p``, ``b = p − e^ε f``):
    ``h(t) − h(t+1) = d(t)`` is negative below ``t*`` and positive from ``t*``
    on (fact 1), so ``h`` is maximal at ``t*`` and every ``h(t)`` is a lower
    bound; a range of candidates certified to contain ``t*`` gives the
    enclosure.  Reverse: the mirror image with the lower tail ``F(s) = P(K ≤ s)``:
    ``δ_rev = max_t [b·F(t−1) + a·F(t−2)]``, maximal at the first ``t`` with
    ``d_rev(t) = b·g(t) + a·g(t−1) ≤ 0``.

    * ``c ∈ {0, n−1}``: K_other is one binomial; ``t*`` in closed form
      (:func:`_forward_binomial`; reverse = forward at ``n−1−c``, fact 2) and
      ``Ḡ`` an incomplete beta function (:func:`exact.laws.binomial.tail`): O(1) arb
      calls whatever ``n`` (about 10–30 ms at 128 bits).
    * otherwise: :class:`_ConvLaw`, O(W) ball operations (``W ≈ 29σ`` at 128
      bits, ``σ² = (n−1)pf``), both directions from the same windows.

    Falls back to the full scan :func:`_forward_ball` (O(W log W)) when the
    candidates cannot be certified in a few steps (``t*`` outside the window,
    e.g. ε very close to ε0) and for ``n < FAST_MIN_N``.
    """
    a = f - ee * p
    b = p - ee * f
    out = {}
    conv: Any = None  # a _ConvLawR, or the _ConvLaw fallback
    for w in which:
        j = c if w == "1|0" else n - 1 - c
        v = None
        if n >= FAST_MIN_N:
            if j == 0 or j == n - 1:
                v = _forward_binomial(n - 1, f if j == 0 else p, a, b)
            else:
                if conv is None:
                    try:
                        conv = _ConvLawR(n, c, p, f, a, b)
                    except _RangeMiss:
                        conv = _ConvLaw(n, c, p, f, a, b)
                try:
                    v = conv.forward() if w == "1|0" else conv.reverse()
                except _RangeMiss:
                    conv = _ConvLaw(n, c, p, f, a, b)
                    v = conv.forward() if w == "1|0" else conv.reverse()
        if v is None:
            g, _, T = _other_law_ball(p, f, n, c, _tau())
            v = _forward_ball(g, T, p, f, ee, reverse=(w == "0|1"))
        out[w] = _nonneg(v)
    return out


def _max_of(vals):
    best = None
    for v in vals:
        best = v if best is None else best.max(v)
    return best


def _forward_binomial(m: int, q: arb, a: arb, b: arb):
    """``max_t h(t)`` when K_other = Bin(m, q) (``m ≥ 1``); ``None`` if undecided.  O(1) arb calls.

    For ``1 ≤ k ≤ m``: ``d(k) > 0 ⇔ b·g(k−1) > −a·g(k) ⇔ k·α > −a(m+1)q`` with
    ``α = (1−q)b − aq > 0`` (``g(k−1)/g(k) = k(1−q)/((m−k+1)q)``); ``d(0) < 0`` and
    ``d(m+1) = b·g(m) > 0``.  So ``t* = ⌊k0⌋ + 1`` with ``k0 = −a(m+1)q/α ∈ (0, m+1)``.
    """
    alpha = (1 - q) * b - a * q
    if not (alpha > 0 and b > 0):
        return None
    k0 = -a * (m + 1) * q / alpha
    if not k0.is_finite():
        return None
    # the ends of a finite ball are exact binary numbers: their floors are single integers
    t_lo = int(k0.lower().floor().unique_fmpz()) + 1  # type: ignore[arg-type]
    t_hi = int(k0.upper().floor().unique_fmpz()) + 1  # type: ignore[arg-type]
    t_lo, t_hi = max(t_lo, 1), min(t_hi, m + 1)
    if t_hi - t_lo + 1 > MAX_TSTAR_CANDIDATES:
        return None
    tails = {t: laws.tail(m, q, t) for t in range(t_lo - 1, t_hi + 1)}
    return _max_of(a * tails[t] + b * tails[t - 1] for t in range(t_lo, t_hi + 1))


def _suffix_sums(values: list, last) -> list:
    """``[S_0, …, S_L]`` with ``S_L = last`` and ``S_r = values[r] + S_{r+1}`` (balls; O(L))."""
    out = [None] * (len(values) + 1)
    acc = last
    out[len(values)] = acc
    for r in range(len(values) - 1, -1, -1):
        acc = acc + values[r]
        out[r] = acc
    return out


def smaller_group_first(n: int, c: int, p: Any, f: Any) -> tuple[int, Any, int, Any]:
    """``(mA, qA, mB, qB)``: the two binomial groups of the other ``n - 1`` users (``c`` holders of 1 reporting 1 with
    probability ``p``, ``n - 1 - c`` holders of 0 with probability ``f``), the smaller group first (its window is the
    one walked; the windows' cost is linear in the group sizes).  O(1)."""
    mA, qA, mB, qB = c, p, n - 1 - c, f
    if mA > mB:
        mA, qA, mB, qB = mB, qB, mA, qA
    return mA, qA, mB, qB


class _ConvLaw:
    """K_other = Bin(c, p) + Bin(n−1−c, f) on windows, for both directions of one dataset (``0 < c < n−1``).

    Windows of both laws (route (a), :func:`exact.laws.binomial.window`), suffix sums of
    the wider one (``B``); every needed value is one dot product over the
    narrower window ``A``: ``g(t) = Σ_i A(i) B(t−i)``, ``Ḡ(t) = Σ_i A(i) Ḡ_B(t−i)``,
    ``F(s) = Σ_i A(i) F_B(s−i)`` (prefix sums ``F_B``).  The windows leave out
    mass ``T = T_A + T_B``; the true ``g``, ``Ḡ``, ``F`` lie in
    ``[value, value + T]`` (module docstring), so ``d`` and ``h`` are widened by
    ``±(|a| + |b|)·T``.  ``t*`` is guessed in floats (route (b), bisection on the
    sign of ``d``; only speed depends on it) and certified by sign tests of ``d``.
    Cost O(W_A + W_B) ball operations (about 6 dot products of length W_A per
    direction); memory O(W).
    """

    def __init__(self, n, c, p, f, a, b):
        mA, qA, mB, qB = self.params = smaller_group_first(n, c, p, f)
        self.a, self.b = a, b
        tol = _tau()
        self.Av, self.oA, TA = laws.window(mA, qA, tol)
        self.Bv, self.oB, TB = laws.window(mB, qB, tol)
        self._GB = self._FB = None
        self._gcache = {}
        T = arb((TA + TB).upper())
        e = arb(((abs(a) + abs(b)) * T).upper()) if not T.is_zero() else arb(0)
        self.extra = (-e).union(e)
        self.lo, self.hi = self.oA + self.oB, self.oA + self.oB + len(self.Av) + len(self.Bv) - 2
        pre = [arb(0)]
        for v in self.Av:
            pre.append(pre[-1] + v)
        self.Apre = pre
        self._float: tuple | bool | None = None  # (window A, window B), or False: no float route

    @property
    def GB(self) -> list:
        """Suffix sums of the window of B (``GB[len] = 0``), built on first use: O(W_B)."""
        if self._GB is None:
            self._GB = _suffix_sums(self.Bv, arb(0))
        return self._GB

    @property
    def FB(self) -> list:
        """Prefix sums of the window of B (lower tails without cancellation), built on first use: O(W_B)."""
        if self._FB is None:
            FB = [None] * len(self.Bv)
            acc = arb(0)
            for r, v in enumerate(self.Bv):
                acc = acc + v
                FB[r] = acc
            self._FB = FB
        return self._FB

    def g(self, t: int) -> arb:
        if t in self._gcache:
            return self._gcache[t]
        Av, Bv, oA, oB = self.Av, self.Bv, self.oA, self.oB
        i0 = max(0, t - oA - oB - len(Bv) + 1)
        i1 = min(len(Av) - 1, t - oA - oB)
        if i1 < i0:
            v = arb(0)
        else:
            v = sum(map(operator.mul, Av[i0 : i1 + 1], reversed(Bv[t - oA - i1 - oB : t - oA - i0 - oB + 1])), arb(0))
        self._gcache[t] = v
        return v

    def Gbar(self, t: int) -> arb:
        """Windowed ``P(K ≥ t)``: ``Ḡ_B(s) = GB[0]`` for ``s ≤ oB``, ``GB[s − oB]`` inside, 0 above."""
        Av, GB, oA, oB = self.Av, self.GB, self.oA, self.oB
        WA, WB = len(Av), len(GB) - 1
        i_full = t - oA - oB  # i >= i_full: s <= oB
        i0 = max(0, t - oA - oB - WB + 1)
        i1 = min(WA - 1, i_full - 1)
        s = arb(0)
        if i1 >= i0:
            s = sum(map(operator.mul, Av[i0 : i1 + 1], reversed(GB[t - oA - i1 - oB : t - oA - i0 - oB + 1])), arb(0))
        k = max(0, i_full)
        if k < WA:
            s = s + (self.Apre[WA] - self.Apre[k]) * GB[0]
        return s

    def F(self, t: int) -> arb:
        """Windowed ``P(K ≤ t)``: ``F_B(s) = 0`` for ``s < oB``, ``FB[s − oB]`` inside, ``FB[-1]`` above."""
        Av, FB, oA, oB = self.Av, self.FB, self.oA, self.oB
        WA, WB = len(Av), len(FB)
        i_top = t - oA - oB - WB + 1  # i <= i_top - 1... s = t - oA - i >= oB + WB - 1 for i <= t - oA - oB - WB + 1
        i0 = max(0, i_top + 1)
        i1 = min(WA - 1, t - oA - oB)
        s = arb(0)
        if i1 >= i0:
            s = sum(map(operator.mul, Av[i0 : i1 + 1], reversed(FB[t - oA - i1 - oB : t - oA - i0 - oB + 1])), arb(0))
        k = min(WA, i_top + 1)
        if k > 0:
            s = s + self.Apre[k] * FB[-1]
        return s

    def _guess(self, reverse):
        """Float guess of the threshold (first t with d(t) > 0, or d_rev(t) ≤ 0), by bisection; speed only."""
        if self._float is None:
            mA, qA, mB, qB = self.params
            try:
                tol = fmpq(1, 2**60)
                self._float = (laws.float_window(mA, qA, tol), laws.float_window(mB, qB, tol))
            except laws.FloatRouteUnavailable:
                self._float = False
        if self._float is False:
            return (self.lo + self.hi) // 2
        assert isinstance(self._float, tuple)
        A, B = self._float
        af, bf = float(self.a.mid()), float(self.b.mid())
        if reverse:
            af, bf = bf, af
        WA, WB = len(A.values), len(B.values)

        def g(t):
            i0 = max(0, t - B.offset - WB + 1 - A.offset)
            i1 = min(WA - 1, t - B.offset - A.offset)
            if i1 < i0:
                return 0.0
            s0 = t - A.offset - i1 - B.offset
            return float((A.values[i0 : i1 + 1] * B.values[s0 : s0 + i1 - i0 + 1][::-1]).sum())  # no BLAS: see _guess

        L, R = A.offset + B.offset, A.hi + B.hi + 1
        center = (L + R) // 2
        while R - L > 1:
            mid = (L + R) // 2
            g1, g0 = g(mid), g(mid - 1)
            if g1 == 0.0 and g0 == 0.0:  # outside the float windows: the threshold is towards the centre
                after = mid > center
            else:
                after = (af * g1 + bf * g0 > 0) != reverse
            if after:
                R = mid
            else:
                L = mid
        return R

    def _range(self, d, want_lo, want_hi, t0):
        """``[t1, t2]`` around ``t0`` with ``want_lo(d(t1−1))`` and ``want_hi(d(t2))`` certain, else None."""
        t1 = t2 = min(max(t0, self.lo + 1), self.hi)
        for _ in range(MAX_TSTAR_CANDIDATES):
            ok1, ok2 = want_lo(d(t1 - 1)), want_hi(d(t2))
            if ok1 and ok2:
                return t1, t2
            if not ok1:
                t1 -= 1
            if not ok2:
                t2 += 1
            if t1 <= self.lo or t2 >= self.hi:
                return None
        return None

    def forward(self) -> arb | None:
        a, b, x = self.a, self.b, self.extra
        r = self._range(
            lambda t: a * self.g(t) + b * self.g(t - 1) + x, lambda v: v < 0, lambda v: v > 0, self._guess(False)
        )
        if r is None:
            return None
        t1, t2 = r
        G = {t2: self.Gbar(t2)}  # one dot product; the others by Ḡ(t−1) = Ḡ(t) + g(t−1)
        for t in range(t2, t1 - 1, -1):
            G[t - 1] = G[t] + self.g(t - 1)
        return _max_of(a * G[t] + b * G[t - 1] + x for t in range(t1, t2 + 1))

    def reverse(self) -> arb | None:
        a, b, x = self.a, self.b, self.extra
        # d_rev(t) = b g(t) + a g(t−1) > 0 below the threshold, ≤ 0 from it on; h_rev(t) = Σ_{k<t} d_rev(k)
        r = self._range(
            lambda t: b * self.g(t) + a * self.g(t - 1) + x, lambda v: v > 0, lambda v: v < 0, self._guess(True)
        )
        if r is None:
            return None
        t1, t2 = r
        F = {t1 - 2: self.F(t1 - 2)}  # one dot product; the others by F(s+1) = F(s) + g(s+1)
        for s_ in range(t1 - 1, t2):
            F[s_] = F[s_ - 1] + self.g(s_)
        return _max_of(b * F[t - 1] + a * F[t - 2] + x for t in range(t1, t2 + 1))


class _RangeMiss(Exception):
    """A query of :class:`_ConvLawR` needs B outside the range it built (the caller falls back)."""


class _ConvLawR(_ConvLaw):
    """As :class:`_ConvLaw`, but the wider law ``B`` is not windowed: it is computed *exactly* (balls, no
    truncation) on the one range of outcomes the dot products near the thresholds touch, anchored by
    one pmf value and by incomplete-beta tails at the range's ends (:func:`exact.laws.binomial.tail`).

    The range has length ``W_A + |t*_fwd − t*_rev| + O(1)``, so the cost is O(W_A) ball operations
    for A and B together (instead of O(W_A + W_B)): for ``c`` near 0 or n−1 the narrower law is tiny and
    the whole evaluation costs O(1) arb calls plus O(W_A).  The only left-out mass is A's window defect
    ``T = T_A``: the true ``g``, ``Ḡ``, ``F`` lie in ``[value, value + T_A]`` (``B`` and its tails are
    at most 1).  Both thresholds are guessed in floats first (speed only); a query outside the built
    range raises :class:`_RangeMiss` (the caller then uses the windowed route).
    """

    MARGIN = MAX_TSTAR_CANDIDATES + 4

    def __init__(self, n, c, p, f, a, b):
        mA, qA, mB, qB = self.params = smaller_group_first(n, c, p, f)
        self.a, self.b = a, b
        self.mB, self.qB = mB, qB
        self.Av, self.oA, TA = laws.window(mA, qA, _tau())
        T = arb(TA.upper())
        e = arb(((abs(a) + abs(b)) * T).upper()) if not T.is_zero() else arb(0)
        self.extra = (-e).union(e)
        pre = [arb(0)]
        for v in self.Av:
            pre.append(pre[-1] + v)
        self.Apre = pre
        self._float = None
        self._gcache = {}
        WA = len(self.Av)
        # provisional limits for the float guesses: the support of A + B
        self.lo, self.hi = self.oA, self.oA + WA - 1 + mB
        tf, tr = self._guess(False), self._guess(True)
        M = self.MARGIN
        self.lo, self.hi = min(tf, tr) - M, max(tf, tr) + M  # queries t stay in [lo − 2, hi]
        self.sb = max(0, self.lo - 2 - self.oA - (WA - 1))
        self.se = min(mB, self.hi - self.oA)
        if self.sb > self.se:
            raise _RangeMiss("empty range")
        q = qB
        rho = q / (1 - q)
        v = laws.pmf(mB, q, self.sb)
        Bv = [v]
        for s_ in range(self.sb, self.se):
            v = v * (mB - s_) * rho / (s_ + 1)
            Bv.append(v)
        self.Bv = Bv
        self._GB = self._FB = None

    @property
    def GB(self) -> list:
        """``Ḡ_B(sb + r)`` for ``r = 0..len`` (exact tails: a beta anchor above the range plus suffix sums)."""
        if self._GB is None:
            self._GB = _suffix_sums(self.Bv, laws.tail(self.mB, self.qB, self.se + 1))
        return self._GB

    @property
    def FB(self) -> list:
        """``P(B ≤ sb + r)`` for ``r = 0..len−1`` (a beta anchor below the range — the upper tail of the
        mirrored law, no cancellation — plus prefix sums)."""
        if self._FB is None:
            acc = laws.tail(self.mB, 1 - self.qB, self.mB - self.sb + 1)  # P(B <= sb − 1)
            FB = [None] * len(self.Bv)
            for r, v in enumerate(self.Bv):
                acc = acc + v
                FB[r] = acc
            self._FB = FB
        return self._FB

    def _dot(self, t, arr, below, above):
        """``Σ_i A(i)·X(t − oA − i)`` with ``X(s) = arr[s − sb]`` on the range, ``below`` for ``s < 0``
        and ``above`` for ``s > mB`` (each 0 or 1)."""
        if not (self.lo - 2 <= t <= self.hi):
            raise _RangeMiss(t)
        Av, oA, sb, se, mB = self.Av, self.oA, self.sb, self.se, self.mB
        WA = len(Av)
        base = t - oA  # s = base − i
        # i with s > mB (i < base − mB) and with s < 0 (i > base)
        i_hi_above = min(WA, max(0, base - mB))  # i in [0, i_hi_above): s > mB
        i_lo_below = max(0, min(WA, base + 1))  # i in [i_lo_below, WA): s < 0
        i0, i1 = i_hi_above, i_lo_below - 1  # s in [0, mB]
        acc = arb(0)
        if i1 >= i0:
            s_top, s_bot = base - i0, base - i1
            if s_bot < sb or s_top > se:
                raise _RangeMiss(t)
            acc = sum(map(operator.mul, Av[i0 : i1 + 1], reversed(arr[s_bot - sb : s_top - sb + 1])), arb(0))
        if above and i_hi_above > 0:
            acc = acc + self.Apre[i_hi_above]
        if below and i_lo_below < WA:
            acc = acc + (self.Apre[WA] - self.Apre[i_lo_below])
        return acc

    def g(self, t: int) -> arb:
        if t not in self._gcache:
            self._gcache[t] = self._dot(t, self.Bv, 0, 0)
        return self._gcache[t]

    def Gbar(self, t: int) -> arb:
        return self._dot(t, self.GB, 1, 0)

    def F(self, t: int) -> arb:
        return self._dot(t, self.FB, 0, 1)


def _directions_single(n: int, c: int, ee0, p, f, ee, zero: bool = False, which=("1|0", "0|1")) -> dict:
    """``{direction: D}`` for the dataset with ``c`` ones among the others, both directions from one law ``g``."""
    if zero or _is_zero_regime(ee, ee0):
        return {w: fmpq(0) for w in which}
    if _use_exact(n, ee0, ee):
        g = _other_law_exact(p, f, n, c)
        return {w: _forward_exact(g, p, f, ee, reverse=(w == "0|1")) for w in which}
    return _directions_fast(n, c, arith.ball(p), arith.ball(f), arith.ball(ee), which)


def forward_single(
    n: int, j: int, ee0: Enclosure, p: Enclosure, f: Enclosure, ee: Enclosure, zero: bool = False
) -> Enclosure:
    """forward(j) = D_{e^ε}(P_1‖P_0) for the dataset with ``j`` ones among the others."""
    return _directions_single(n, j, ee0, p, f, ee, zero, ("1|0",))["1|0"]


def _max(a, b):
    if isinstance(a, fmpq) and isinstance(b, fmpq):
        return max(a, b)
    return arith.ball(a).max(arith.ball(b))


def delta_binary(mech: KRR, n: int, c: int, *, direction: str = "max", **at: Unpack[At]) -> Enclosure:
    """δ(ε) of shuffled binary RR between the neighbouring datasets "c ones among the other n−1 users,
    differing user 0" and "… differing user 1".

    ``direction``: ``"max"`` (default, the DP δ of this pair: the larger of
    both directions), ``"1|0"`` (``D_{e^ε}(P_1‖P_0)``) or ``"0|1"``.
    Returns an exact ``fmpq`` when ``e^{ε0}``, ``e^ε`` are rational and
    ``n ≤ EXACT_MAX_N``, else a ball at the current precision (wrap in
    :func:`exact.numbers.arith.precision`).  ``δ = 0`` exactly for ``ε ≥ ε0``.

    Complexity (ball path, :func:`_directions_fast`): for ``c ∈ {0, n−1}``
    O(1) arb calls (closed-form ``t*``, binomial tails as incomplete beta
    functions; ~10–60 ms whatever n, memory O(1)); for other ``c`` O(W) ball
    operations, ``W ≈ 2·sqrt(2 (prec+24) log 2 · n p f)`` (about 1.3·10⁴ at
    n = 10⁶ and 4·10⁵ at n = 10⁹, ε0 = 1: ~0.1 s and ~1–2 s), memory O(W);
    both directions share the windows.  Below n = 2000 the full windowed scan
    (O(W log W)).  O(n²) rational operations on the exact path.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> rr = BinaryRR(exp_epsilon0=3)
    >>> delta_binary(rr, 3, 0, exp_epsilon=2), delta_binary(rr, 3, 0, exp_epsilon=2, direction="1|0")
    (9/64, 1/32)
    """
    guards.check_options("delta_binary", at, At)
    _check_mech(mech)
    n = _check_n(n)
    c = _check_c(c, n)
    if direction not in ("max", "1|0", "0|1"):
        raise InvalidArgument("direction", direction, "must be 'max', '1|0' or '0|1'")
    ee0, p, f = rr_params(mech)
    epsilon = at.get("epsilon")
    ee = arith.exp_param(epsilon, at.get("exp_epsilon"))
    zero = _is_zero_regime(ee, ee0, mech, epsilon)
    if direction != "max":
        return _directions_single(n, c, ee0, p, f, ee, zero, (direction,))[direction]
    both = _directions_single(n, c, ee0, p, f, ee, zero)
    return _max(both["1|0"], both["0|1"])


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


def ball_route_seconds(mech: KRR, n: int, *, epsilon: Any = None, exp_epsilon: Any = None) -> float:
    """Estimated extra seconds (one core, the calling process) of the ball route in :func:`delta_binary_worst`:
    ``0.0`` when the float sweep decides a pilot dataset, else the cost of re-evaluating all ``n`` datasets
    with balls (``n·BALL_SECONDS_PER_W·W``, ``W`` the window width as in
    :func:`exact.runtime.budget.estimate_worst_cost`; the block-shared sweep used when ``n ≤ ARB_SWEEP_MAX_N``
    measured about the same per dataset).  An *estimate*, not a bound: the float route fails on every dataset alike when δ
    is below its resolution (e.g. ``--epsilon0 0.62 -n 40000 --epsilon 0.14``: about 300 s), which the
    float sweep's own estimate does not count.

    The pilot is the float route on the middle dataset (:func:`_sweep_block` on one dataset): O(W) float
    operations, W ≈ 29·sqrt(n p f), no sweep.
    """
    _check_mech(mech)
    n = _check_n(n)
    ee0, p, f = rr_params(mech)
    ee = arith.exp_param(epsilon, exp_epsilon)
    if _is_zero_regime(ee, ee0, mech, epsilon) or _use_exact(n, ee0, ee):
        return 0.0
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
    j = (n - 1) // 2
    if _sweep_block(n, j, j + 1, e0spec, espec, ctx.prec)[0] is not None:
        return 0.0
    pf = float(arith.ball(p).mid()) * float(arith.ball(f).mid())
    W = 29 * math.sqrt(n * pf) + 10
    seconds = n * BALL_SECONDS_PER_W * W
    return seconds


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


def _sweep_block(n: int, j0: int, j1: int, e0spec, espec, prec: int) -> list:
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
    W ≈ 29·sqrt(n p f) at 128 bits; memory O(K·W).
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
                FA = laws.float_window(j0, p, tol)
                av, oA, rA, TA = FA.values, FA.offset, FA.rel, FA.tail
            mB = n - j1
            if mB == 0:
                bv, oB, rB, TB = np.ones(1), 0, 0.0, arb(0)
            else:
                FB = laws.float_window(mB, f, tol)
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
    else:
        # the ball route, one dataset at a time: its own bar (ETA, and the run's --time-budget), since the float
        # sweep's estimate did not count it (all n datasets when the float route resolves none, e.g. tiny deltas)
        what = f"ball route for {len(todo)} of {n} datasets (the float route could not decide them)"
        with Progress(len(todo), what, enabled=None if progress and len(todo) > RECHECK_MAX else False) as bar:
            for j in todo:
                vals[j] = _forward_fast(n, j, p, f, ee)
                bar.update()
    return vals


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
