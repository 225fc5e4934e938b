"""Shuffled k-ary randomized response on the dataset families, and the exact blanket view of Lemma 5.3.

Notation: ``p = e^{ε0}/(e^{ε0}+k−1)`` (keep), ``f = 1/(e^{ε0}+k−1)`` (flip),
``e = e^{ε0}``, ``ee = e^{ε}``.  Two neighbouring datasets differ in one user,
the *target*, who holds ``t`` in the first dataset and ``t'`` in the second;
the other ``n − 1`` users all hold the same value ``z``.  The families
(``docs/reference/blanket.md`` §4, this project's reading of "worst-case families"):

* ``"same"``: ``z`` is the target's value ``x`` (datasets ``x^n`` vs ``x' x^{n−1}``);
* ``"neighbour"``: ``z`` is the neighbour's value ``x'``;
* ``"third"`` (``k ≥ 3``): ``z`` is a third value.

Both directions of each pair are computed (``D(P‖P')`` and ``D(P'‖P)``) and
the maximum is returned unless ``direction`` is given.  Each family is one
set of neighbouring pairs, so its δ is a *lower* bound on the worst case over
all datasets; the families are not always the worst case (exhaustive check
with :mod:`exact.shuffled.enumerate`: 3-RR, n = 7, e^{ε0} = 4, e^ε = 3 has worst
case 0.015546… at others (1,1,1,1,1,2) against 0.014632… for the best family).
By the symmetry of k-RR, "same" and "neighbour" are the same set of neighbouring pairs, so their
two-direction maxima coincide (a test checks it).

**Sufficient statistic (derived, checked by brute force).**  With the others
i.i.d. ``~ μ_z``, the law of the shuffled histogram ``h`` is
``P(h) = Mult_n(h; μ_z)/n · Σ_y μ_t(y) h_y/μ_z(y)``, hence

    D_{e^ε}(P‖P') = (1/n) · E_{h ~ Mult_n(μ_z)} [ (Σ_y v_y h_y)_+ ],
    v_y = (μ_t(y) − e^ε μ_{t'}(y)) / μ_z(y),

i.e. ``(1/n) E[(Σ_{i=1}^n V_i)_+]`` for i.i.d. ``V_i`` with at most four
atoms (``y = t``, ``y = t'``, ``y = z``, "other").  For the third family with
``k ≥ 4`` the count of ``z`` is informative; lumping the histogram into
(``h_t``, ``h_{t'}``, rest) loses it and understates δ:
:func:`delta_krr_third_lumped` computes that lumped value and is **not** a
valid δ for ``k ≥ 4`` (it is a lower bound, by post-processing).

**Blanket view (Lemma 5.3, source-confirmed [SL]; Appendix A).**
``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``, ``L_i`` i.i.d. copies of
``L^ε_{x,x'}``; equivalently ``(1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` with
``V_i = L_i`` w.p. ``γ`` and ``0`` otherwise.  It is the hockey-stick
divergence of the view in which every other user's blanket draw is revealed,
so it upper-bounds δ for every dataset.  It is *not* always tight for 3-RR on
the third-value family (docs/reference/blanket.md says "tight"): it coincides at some
parameters, but e.g. ``e^{ε0} = 3, e^ε = 3/2, n = 5`` gives 619/6250 against
618/6250 for the third family, which is also the worst case over all datasets.

**Engine.**  All quantities are ``E[(Σ_{i=1}^n V_i)_+]`` for a four-atom ``V``
(atoms "bulk", "t", "t'", "rest").  Writing ``s = c_t + c_{t'}`` for the
counts of the two informative atoms, ``c_bulk | s ~ Bin(n−s, π_b/(π_b+π_r))``
and ``c_t | s ~ Bin(s, π_t/(π_t+π_{t'}))`` are *conditionally independent*, and
the sum ``a0 + u_n s + u_1 c_bulk + w c_t`` is linear in each count.  Two
engines (:func:`expected_positive_part` picks one; both on the shared
windowed-law engine :mod:`exact.laws.binomial`):

* **one-dimensional** (:func:`_fast_positive_part`, the default in ball
  arithmetic for every n when the bulk count is a function of ``s`` — the
  same/neighbour families, ``k = 2``, the blanket view of binary RR, the
  lumped view — and for ``n > GRID_MAX_N`` otherwise).  The ``c_t`` sum is a
  threshold sum in **closed form**: ``E[(c + wX)_+] = (c + w s ρ)·P(X ≥ τ) +
  w τ (1−ρ) P(X = τ)`` (binomial tail = regularized incomplete beta), and the
  pair ``(P(X = τ), P(X ≥ τ))`` is carried along ``s`` by exact one-step
  identities (:class:`_TailWalker`), O(1) ball operations per ``s``.  The
  bulk count (coefficient ``u_1 = O(ε)``, the *weak* dimension of the blanket
  view and of the third family) enters by convexity: Jensen at its mean
  (lower end) and a proved bound on the Jensen gap (upper end; Scarf and
  Bernstein bounds per kink), refined for ``n ≤ BLOCKS_MAX_N`` by cutting
  the bulk count into blocks (conditional Jensen and chords per block;
  ``docs/numerics.md`` k-RR section, Lemmas K1–K4).  Cost
  O(√n·√log(1/tol)) ball operations and memory.  Enclosure width: the
  windowing only (≈ 1e-15 relative or better) when the bulk count is
  degenerate; else relative width ≈ 6e-5 at n = 10⁴, 1.2e-6 at 10⁶ (blocks),
  1e-8 at 10⁹ (10-RR, ε0 = 1, δ ≈ 1e-6; it falls like 1/n).
* **grid** (exact rationals for ``n ≤ exact_max_n``; balls up to
  ``GRID_MAX_N`` when the bulk count is not degenerate).  For each ``s`` the
  inner expectation of the positive part of a sum of two independent monotone
  terms is evaluated with one pass over one pmf and suffix sums (CDF
  differences and partial means) of the other.  Cost ``O(W_s · (W_b + W_t))``
  = ``O(n log(1/tol))`` ball operations.

**Windowing and its rigorous error bound (grid engine).**  With exact rational inputs and
``n ≤ exact_max_n`` every window is the full support and the result is an
exact ``fmpq``.  Otherwise each binomial is kept on a window ``[lo, hi]``
around its mode whose left-out mass is certified by :func:`exact.laws.binomial.window_bounds`.
The total left-out mass
``Λ = tail_s + Σ_s P(s)·(tail_b(s) + tail_t(s))`` is carried as a ball;
every left-out outcome contributes between 0 and ``n·max_j(v_j)_+`` to
``E[(ΣV)_+]``, so ``[0, n·max(v)_+·Λ]`` is added to the window sum (which is
a lower bound: every term is ≥ 0).  Inside the windows, only the region where
the summand can be positive is evaluated (located by certified comparisons,
using monotonicity in each count).  pmf anchors come from :func:`exact.laws.binomial.pmf`
and exact-ratio steps.  Index guesses for the sign
changes use floating point *only as guesses*: every sign used is certified
by a ball comparison, and terms whose sign is not certified are summed as
``max(ball, 0)``.

**Stronger clones (k = 2).**  The blanket view of binary RR with ``e^{ε0}``
equals, exactly, the hockey-stick divergence of the "stronger clones" pair of
Feldman–McMillan–Talwar (SODA 2023) for any ε0-LDP randomizer:
:func:`delta_stronger_clones` (checked against a direct enumeration of the
pair in exact rationals, ``tests/test_krr.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any, NamedTuple

from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer, amplification_law, delta_at
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.calibrate import Bracket, epsilon_for_delta, float_bisect
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.runtime.progress import Progress
from flint import arb, ctx, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

FAMILIES = ("same", "neighbour", "third")
DIRECTIONS = (None, "forward", "backward")

#: default bound on the left-out probability mass of each window
DEFAULT_TOL = fmpq(1, 2**80)
#: exact rational arithmetic (no windows) up to this n when all inputs are exact
EXACT_MAX_N = 64


class DeltaArgs(NamedTuple):
    """The validated arguments of a δ(ε)-function that runs the binomial engine (see :func:`delta_args`)."""

    n: int
    ee: Enclosure
    tol: fmpq
    exact_max_n: int


def delta_args(mech: Randomizer, n: IntegerInput, opts: DeltaOptions, fn: str) -> DeltaArgs | None:
    """``(n, e^ε, tol, exact_max_n)`` of a δ-function ``fn`` taking ``**opts: Unpack[DeltaOptions]``, or ``None``
    when δ = 0 (ε ≥ ε0 certified).

    The keywords are checked (an unknown one is a ``TypeError``), ``n`` and ε as
    :func:`blanket.exact.mechanisms.finite.delta_query` does; ``tol`` (default :data:`DEFAULT_TOL`) is read as an
    exact number in ``(0, 1)`` and ``exact_max_n`` (default :data:`EXACT_MAX_N`) as an integer ``≥ 0``, both named
    in the error (every engine route then receives an exact ``tol``: the grid route refused a ball, the
    one-dimensional one a ``Fraction``).  O(1).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_args(KRR(4, epsilon0=1), 200, {"epsilon": "1/2", "tol": "1e-20"}, "f").tol
    1/100000000000000000000
    """
    q = delta_at(mech, n, opts, fn, DeltaOptions)
    return None if q is None else DeltaArgs(*q, *engine_options(opts))


def engine_options(opts: DeltaOptions) -> tuple[fmpq, int]:
    """``(tol, exact_max_n)`` of a δ-function's keywords, parsed and named in the error (see :func:`delta_args`)."""
    tol = arith.exact_in(opts.get("tol", DEFAULT_TOL), "tol", lo=0, hi=1, lo_open=True, hi_open=True)
    return tol, arith.integer_in(opts.get("exact_max_n", EXACT_MAX_N), "exact_max_n", lo=0)


#: above this n the automatic engine choice is the one-dimensional route even when the bulk count is not degenerate
GRID_MAX_N = 20000
#: ... unless the caller has raised the precision above the default (it is escalating to decide a
#: comparison): then the grid engine up to this n
GRID_ESCALATION_MAX_N = 200000
#: precomputed pmf ratio tables (a speed-up only) above this n
_TABLES_MIN_N = 2000


# ---------------------------------------------------------------- small helpers
def _is_zero(x) -> bool:
    if isinstance(x, fmpq):
        return x == 0
    return isinstance(x, arb) and x.is_zero()


def _sign(x, what):
    """Certified sign of ``x`` in {-1, 0, 1}; raises Undecided if the ball straddles 0."""
    if _is_zero(x):
        return 0
    if x > 0:
        return 1
    if x < 0:
        return -1
    raise Undecided(f"the sign of {what} is undecided at this precision; raise the precision")


def _to_ball_mode(x):
    """Exact zeros stay exact (they decide structure); everything else becomes a ball."""
    if isinstance(x, fmpq):
        return x if x == 0 or x == 1 else arb(x)
    return x


# ---------------------------------------------------------------- binomial laws on certified windows
def _float_of(x) -> float:
    return float(x.mid()) if isinstance(x, arb) else float(x.p) / float(x.q)


class _Binom:
    """``Bin(N, ρ)`` known on a window ``[lo, hi]`` with a certified bound ``tail`` on the mass outside it.

    Exact mode (the grid engine's rational path): the whole support, exact
    pmf.  Exact ``ρ`` ∈ {0, 1} or ``N = 0``: a point mass.  Ball mode: a thin
    view of the shared engine :mod:`exact.laws.binomial` — the window and its
    left-out mass from :func:`exact.laws.binomial.window_bounds`, the first pmf value
    of each sub-range from :func:`exact.laws.binomial.pmf`, then ratio walks:
    O(length of the sub-range).
    """

    def __init__(self, N: int, rho, exact_mode: bool, tol, tables=None):
        self.N, self.rho, self.exact = N, rho, exact_mode
        self.tail = fmpq(0)
        self._full: list | None = None
        self._logs: Enclosure | None = None  # r = ρ/(1−ρ), computed on first use (_ratio)
        self._tables = tables  # optional _RatioTables for this rho (speed only)
        if N == 0 or _is_zero(rho):
            self.lo = self.hi = 0
            self.point = True
        elif isinstance(rho, fmpq) and rho == 1:
            self.lo = self.hi = N
            self.point = True
        elif exact_mode:
            self.lo, self.hi, self.point = 0, N, False
        else:
            self.point = False
            self._window(tol)

    def _window(self, tol):
        self.lo, self.hi, t = laws.window_bounds(self.N, self.rho, tol)
        self.tail = t.upper()

    def _ratio(self) -> Enclosure:
        """The pmf ratio ``r = ρ/(1−ρ)`` (from the shared tables when given), computed once."""
        if self._logs is None:
            self._logs = self._tables.r if self._tables is not None else self.rho / (1 - self.rho)
        return self._logs

    def pmf(self, a: int, b: int) -> list:
        """``[P(X = j) for j in a..b]`` (``lo ≤ a ≤ b ≤ hi``)."""
        if self.point:
            return [fmpq(1)]
        N, rho = self.N, self.rho
        if self.exact:
            if self._full is None:
                q = 1 - rho
                r = rho / q
                pm = [q**N]
                for j in range(N):
                    pm.append(pm[-1] * r * fmpq(N - j, j + 1))
                self._full = pm
            return self._full[a : b + 1]
        r = self._ratio()
        j0 = min(max(int((N + 1) * _float_of(rho)), a), b)
        p0 = laws.pmf(N, rho, j0)
        right = []
        left = []
        tb = self._tables
        if tb is not None and b <= tb.size and j0 <= tb.size:
            up, down = tb.up, tb.down  # up[j] = r/(j+1), down[j] = j/r
            p = p0
            for j in range(j0, b):
                p = p * (N - j) * up[j]
                right.append(p)
            p = p0
            for j in range(j0, a, -1):
                p = p * down[j] / (N - j + 1)
                left.append(p)
        else:
            p = p0
            for j in range(j0, b):
                p = p * r * (N - j) / (j + 1)
                right.append(p)
            p = p0
            for j in range(j0, a, -1):
                p = p / r * j / (N - j + 1)
                left.append(p)
        left.reverse()
        return left + [p0] + right

    def walk_sums(self, a: int, b: int, from_top: bool) -> tuple:
        """One pass from the far end of ``a..b`` inward: pmf values and cumulative sums for suffix queries.

        ``from_top``: walk ``x = b, b−1, …, a``; index ``i = x − a``.  Otherwise
        walk ``x = a, …, b`` in the reflected coordinate ``x~ = −x``; index
        ``i = b − x``.  Returns ``(p, S0, R)`` with ``p[i]`` the pmf,
        ``S0[i] = Σ_{i' ≥ i} p[i']`` and ``R[i] = Σ_{i' > i} S0[i']`` (so that
        ``Σ_{i' ≥ i} (lo~ + i')·p[i'] = (lo~ + i)·S0[i] + R[i]``); 2 ball
        operations per value for the pmf (ratio step) and 2 for the sums.
        """
        W = b - a + 1
        zero: Enclosure = fmpq(0)
        S0 = [zero] * (W + 1)
        R = [zero] * (W + 1)
        if self.exact or self.point:
            p = self.pmf(a, b)
            if not from_top:
                p = p[::-1]
            a0 = a1 = zero
            for i in range(W - 1, -1, -1):
                R[i] = a1
                a0 = p[i] + a0
                S0[i] = a0
                a1 = a0 + a1
            return p, S0, R
        N = self.N
        r = self._ratio()
        j0 = b if from_top else a
        v = laws.pmf(N, self.rho, j0)
        p = [zero] * W
        a0 = a1 = zero
        tb = self._tables
        use = tb is not None and b <= tb.size
        # from_top: x = b down to a, index i = x - a; else x = a up to b, index i = b - x; walking i = W-1 .. 0
        x = j0
        for i in range(W - 1, -1, -1):
            p[i] = v
            R[i] = a1
            a0 = v + a0
            S0[i] = a0
            a1 = a0 + a1
            if i:
                if from_top:
                    v = v * tb.down[x] / (N - x + 1) if use else v / r * x / (N - x + 1)
                    x -= 1
                else:
                    v = v * (N - x) * tb.up[x] if use else v * r * (N - x) / (x + 1)
                    x += 1
        return p, S0, R


class _RatioTables:
    """``r = ρ/(1−ρ)``, ``up[j] = r/(j+1)``, ``down[j] = j/r`` for ``j ≤ size`` (balls): two-operation pmf ratio steps."""

    def __init__(self, rho, size: int):
        self.r = rho / (1 - rho)
        self.size = size
        ir = 1 / self.r
        self.up = [self.r / (j + 1) for j in range(size + 1)]
        self.down = [j * ir for j in range(size + 1)]


_POINT0 = _Binom(0, fmpq(0), True, None)


def _first_not_nonpositive(f, lo: int, hi: int, guess: int) -> int:
    """For ``f`` non-decreasing on ``lo..hi``: the smallest ``j`` such that ``f(j) ≤ 0`` is *not* certified (``hi+1`` if none).

    ``guess`` only speeds the search; every decision is a certified comparison.
    """
    j = min(max(guess, lo), hi + 1)
    while j > lo and not (f(j - 1) <= 0):
        j -= 1
    while j <= hi and (f(j) <= 0):
        j += 1
    return j


def _guess_root(num, den) -> int:
    """floor(−num/den): exact for rationals, a float *guess* for balls."""
    if isinstance(num, fmpq) and isinstance(den, fmpq):
        return int((-num / den).floor())
    v = -_float_of(num) / _float_of(den)
    return int(v // 1) if v == v and abs(v) < 1e15 else 0


# ---------------------------------------------------------------- E[(A + uX·X + uY·Y)_+] for independent X, Y
def _pair_positive_part(A, uX, X: _Binom, uY, Y: _Binom):
    """``Σ_{x,y} P(X=x) P(Y=y) (A + uX·x + uY·y)_+`` over the windows of X and Y (a lower bound on the full sum).

    A coordinate with coefficient exactly 0 is summed over its *whole* law
    (mass 1).  The positive region is located first (certified, using the
    monotonicity of the summand in each coordinate), pmf values are computed
    only there, and the inner sums over ``x`` are suffix sums (CDF differences
    and partial means): O(len(x-range) + len(y-range)) operations.
    """
    if X.point and Y.point:
        return X.pmf(X.lo, X.lo)[0] * Y.pmf(Y.lo, Y.lo)[0] * arith.positive_part(A + uX * X.lo + uY * Y.lo)
    if X.point:
        return _pair_positive_part(A + uX * X.lo, uY, Y, fmpq(0), _POINT0)
    sx = _sign(uX, "a count coefficient")
    if sx == 0:
        return _pair_positive_part(A, uY, Y, fmpq(0), _POINT0) if not Y.point else arith.positive_part(A + uY * Y.lo)
    sy = 0 if Y.point else _sign(uY, "a count coefficient")
    if sy == 0 and not Y.point:
        return _pair_positive_part(A, uX, X, fmpq(0), _POINT0)
    # ---- y-range where some x gives a positive summand: c(y) + max_x uX·x not certainly <= 0
    Mx = uX * (X.hi if sx > 0 else X.lo)
    if sy >= 0:
        fy = lambda y: A + uY * y + Mx  # non-decreasing in y
        ya = Y.lo if Y.point else _first_not_nonpositive(fy, Y.lo, Y.hi, _guess_root(A + Mx, uY))
        yb = Y.hi
        if ya > yb:
            return fmpq(0)
        y_ext = yb
    else:
        fy = lambda t: A - uY * t + Mx  # t = -y, non-decreasing
        t = _first_not_nonpositive(fy, -Y.hi, -Y.lo, _guess_root(A + Mx, -uY))
        ya, yb = Y.lo, -t
        if yb < ya:
            return fmpq(0)
        y_ext = ya
    c_ext = A + uY * y_ext  # the largest c(y) over the y-range
    # ---- x-range below which every summand is certainly <= 0 (for every y: c(y) <= c_ext)
    if sx > 0:
        xa = _first_not_nonpositive(lambda x: c_ext + uX * x, X.lo, X.hi, _guess_root(c_ext, uX))
        if xa > X.hi:
            return fmpq(0)
        pX, S0, R = X.walk_sums(xa, X.hi, True)
        X_lo, uXr = xa, uX
    else:
        t = _first_not_nonpositive(lambda tt: c_ext - uX * tt, -X.hi, -X.lo, _guess_root(c_ext, -uX))
        xb = -t
        if xb < X.lo:
            return fmpq(0)
        pX, S0, R = X.walk_sums(X.lo, xb, False)  # reflected coordinate x~ = -x, coefficient -uX > 0
        X_lo, uXr = -xb, -uX
    pY = Y.pmf(ya, yb)
    W = len(pX)
    zero = fmpq(0)
    total = zero
    exact_guess = isinstance(A, fmpq) and isinstance(uY, fmpq) and isinstance(uXr, fmpq)
    if not exact_guess:
        fA, fuY, fuX = _float_of(A), _float_of(uY), _float_of(uXr)
    inv_u = 1 / uXr
    X_hi = X_lo + W - 1
    for i, q in enumerate(pY):
        c = A + uY * (ya + i)
        # since uXr > 0 (certified): c + uXr·x > 0  <=>  x > tau = −c/uXr
        tau = -c * inv_u
        # guess the sign change (float guess only), then certify it with comparisons against tau
        if exact_guess:
            g = int(tau.floor())
        else:
            gf = -(fA + fuY * (ya + i)) / fuX
            g = int(gf // 1) if abs(gf) < 1e15 else X_lo
        xp = min(max(g + 1, X_lo), X_hi + 1)  # smallest x with certainly x > tau
        while xp <= X_hi and not (xp > tau):
            xp += 1
        while xp > X_lo and (xp - 1 > tau):
            xp -= 1
        xn = xp - 1  # largest x with certainly x <= tau
        while xn >= X_lo and not (xn <= tau):
            xn -= 1
        if xp <= X_hi:
            ip = xp - X_lo  # Σ_{x ≥ xp} (c + uXr·x) p(x) = (c + uXr·xp)·S0 + uXr·R
            inner = (c + uXr * xp) * S0[ip] + uXr * R[ip]
        elif xn == X_hi:
            continue
        else:
            inner = zero
        for x in range(xn + 1, xp):  # uncertain signs: enclose max(ball, 0)
            inner = pX[x - X_lo] * arith.positive_part(c + uXr * x) + inner
        total = q * inner + total
    return total


# ---------------------------------------------------------------- one-dimensional engine (O(√n) per evaluation)
class _TailWalker:
    """``p = P(X = t)`` and ``G = P(X ≥ t)`` for ``X ~ Bin(N, ρ)``, moved by unit steps of ``t`` and ``N``.

    The state is an enclosure of the *full-law* values (not windowed): it is
    initialised once (:func:`_init_tail`: O(1) calls of :mod:`exact.laws.binomial`) and every step applies an
    exact identity, O(1) ball operations per step:

    * ``t → t+1``: ``G −= p``, ``p *= (N − t) r/(t + 1)`` (``r = ρ/(1−ρ)``);
    * ``t → t−1``: ``p *= t/((N − t + 1) r)``, ``G += p``;
    * ``N → N+1``: ``G += p · t(1−ρ)/(N − t + 1)`` (``P_{N+1}(X ≥ t) =
      P_N(X ≥ t) + ρ P_N(X = t−1)``), ``p *= (N + 1)(1−ρ)/(N + 1 − t)``.

    ``0 ≤ t ≤ N`` always (callers clamp).  The partial mean needs no third
    state: ``E[X; X ≥ t] = Nρ G + t(1−ρ) p`` (telescoping
    ``(x − Nρ) p(x) = x(1−ρ) p(x) − (x+1)(1−ρ) p(x+1)``).
    """

    __slots__ = ("N", "t", "p", "G", "rho", "q", "r", "ir")

    def __init__(self, N: int, rho, t: int):
        self.N, self.t = N, t
        self.rho, self.q = rho, 1 - rho
        self.r = rho / self.q
        self.ir = 1 / self.r
        self.p, self.G = _init_tail(N, rho, t)

    def up(self) -> None:
        N, t = self.N, self.t
        self.G = self.G - self.p
        self.p = self.p * (N - t) * self.r / (t + 1)
        self.t = t + 1

    def down(self) -> None:
        N, t = self.N, self.t
        self.p = self.p * t * self.ir / (N - t + 1)
        self.G = self.G + self.p
        self.t = t - 1

    def grow(self) -> None:
        N, t = self.N, self.t
        self.G = self.G + self.p * t * self.q / (N - t + 1)
        self.p = self.p * (N + 1) * self.q / (N + 1 - t)
        self.N = N + 1

    def shrink(self) -> None:
        """``N → N−1`` at fixed ``t ≤ N−1``: the inverse of :meth:`grow`."""
        N, t = self.N, self.t
        self.p = self.p * (N - t) / (N * self.q)
        self.G = self.G - self.p * t * self.q / (N - t)
        self.N = N - 1

    def copy(self) -> _TailWalker:
        c = _TailWalker.__new__(_TailWalker)
        for k in self.__slots__:
            setattr(c, k, getattr(self, k))
        return c

    def move_to(self, t: int) -> None:
        while self.t < t:
            self.up()
        while self.t > t:
            self.down()


def _init_tail(N: int, rho, t: int):
    """Enclosures of ``P(X = t)`` and ``P(X ≥ t)`` for ``X ~ Bin(N, ρ)``: :func:`exact.laws.binomial.pmf` and
    :func:`exact.laws.binomial.tail` (regularized incomplete beta, flint C level).  O(1) arb calls."""
    return laws.pmf(N, rho, t), laws.tail(N, rho, t)


#: exponent of the Bernstein radius beyond which the weak count's kinks are bounded all at once (e^{−L})
_BERNSTEIN_L = 25


def _excess(d, V, fd: float, fsd: float):
    """``β(d, V)`` ≥ ``E[(±(Y − E Y) − d)_+]`` for ``Y`` binomial with variance ``V`` and ``d ≥ 0`` (either sign).

    Either of two proved bounds (docs/numerics.md, k-RR section), chosen by
    the float guesses ``fd ≈ d``, ``fsd ≈ sqrt(V)`` (the choice affects only
    the width, never the validity): ``(sqrt(V + d²) − d)/2`` (the excess
    equals ``(E|Y − y| − d)/2`` and ``E|Y − y| ≤ sqrt(V + d²)`` by
    Cauchy–Schwarz), or for ``d > 0`` the Bernstein bound :func:`_bernstein`.  O(1).
    """
    if fd <= 2.5 * fsd or not (d > 0):
        return V / ((V + d * d).sqrt() + d) / 2
    return _bernstein(d, V)


def _bernstein(d, V):
    """``(2(V + d/3)/d)·exp(−d²/(2(V + d/3)))`` ≥ ``E[(±(Y − E Y) − d)_+]`` (``d > 0``), decreasing in ``d``.

    Bernstein's inequality ``P(±(Y − E Y) > z) ≤ exp(−z²/(2(V + z/3)))`` for a
    sum of independent Bernoulli variables, integrated over ``z ≥ d`` after
    ``z²/(V + z/3) ≥ z·d/(V + d/3)``.  O(1).
    """
    a = V + d / 3
    return 2 * a / d * (-(d * d) / (2 * a)).exp()


def _weak_gap(c, w, au1, iau1, walker, t: int, N2: int, vb1, Lb):
    """Upper bound on ``E_{X,Y}[(c + u_1(Y − E Y) + wX)_+] − E_X[(c + wX)_+]`` (the Jensen gap of the weak count ``Y``).

    ``Y ~ Bin(N2, ρ_b)`` with variance ``V``, ``X`` the walker's law (at
    ``t``, near the first ``x`` with ``c + wx > 0``).  For each ``x`` the
    summand is ``(c + wx + u_1(Y − E Y))_+``, whose excess over its value at
    ``E Y`` is ``|u_1|·E[(±(Y − E Y) − |d_x|)_+]`` with ``|d_x| = |c + wx|/|u_1|``:

    * at most ``|u_1|·β(|d_x|, V)`` (:func:`_excess`) for the ``x`` within
      ``ℓ = |u_1|ρ_Y/w`` (+2) of ``t``;
    * at most ``|u_1|·B(ρ_Y)`` for every other ``x`` (:func:`_bernstein`,
      decreasing in ``d``; ``ρ_Y = L/3 + sqrt(L²/9 + 2LV)`` makes its
      exponent ≤ −L); these ``x`` have total probability ≤ 1.

    Cost O(ℓ + 1) ball operations (ℓ = O(1) when ε = O(1/√n)).
    """
    s, p0 = walker.N, walker.p
    V = N2 * vb1
    rY = Lb / 3 + (Lb * Lb / 9 + 2 * Lb * V).sqrt()
    J = int(float(arith.ball(au1 * rY / w).upper())) + 2
    r, ir = walker.r, walker.ir
    fsd = float(V.mid()) ** 0.5
    fc, fw, fiu = float(c.mid()), float(w.mid()), float(iau1.mid())
    near = arb(0)
    # x = t, t+1, …, t+J−1
    p = p0
    x = t
    while x <= min(s, t + J - 1):
        near = p * _excess(abs(c + w * x) * iau1, V, abs(fc + fw * x) * fiu, fsd) + near
        p = p * (s - x) * r / (x + 1)
        x += 1
    # x = t−1, …, t−J
    p = p0
    x = t
    while x - 1 >= max(0, t - J):
        p = p * x * ir / (s - x + 1)
        x -= 1
        near = p * _excess(abs(c + w * x) * iau1, V, abs(fc + fw * x) * fiu, fsd) + near
    return au1 * (near + _bernstein(rY, V))


#: boundaries of the weak-count blocks, in standard deviations of Y around its mean (docs/numerics.md, Lemma K4)
_BLOCK_GRID = (-6.0, -4.0, -3.0, -2.0, -1.4, -0.9, -0.45, 0.0, 0.45, 0.9, 1.4, 2.0, 3.0, 4.0, 6.0)
#: a coarser grid (cheaper, about 4x wider) above BLOCKS_FINE_MAX_N
_BLOCK_GRID_COARSE = (-5.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 5.0)
BLOCKS_FINE_MAX_N = 3 * 10**5
#: the blocked weak-count bound is used up to this n (above it the Jensen + excess bound is already tight)
BLOCKS_MAX_N = 3 * 10**6
#: ... and when the weak count's standard deviation is at least this (else the grid engine is cheap anyway)
_BLOCKS_MIN_SD = 20


class _XClosedForm:
    """``H(c) = E[(c + wX)_+]`` for ``X ~ Bin(s, ρ_t)`` by Lemma K1 on a :class:`_TailWalker` (O(1) per call after a move)."""

    __slots__ = ("w", "wrt", "qt", "fw", "rho_t")

    def __init__(self, w, rho_t):
        self.w, self.rho_t = w, rho_t
        self.wrt, self.qt, self.fw = w * rho_t, 1 - rho_t, _float_of(w)

    def first_positive(self, c: Enclosure, s: int) -> int:
        """The first integer ``x`` with ``c + w x > 0`` certified (``s + 1`` if none in ``0..s``); float guess first.

        Since ``w > 0``, ``c + w x > 0`` exactly when ``x > τ = −c/w``; ``τ`` is one ball and each
        test is a certified comparison of an integer with it."""
        tau = -c / self.w
        g = float(tau.mid())
        t = int(g // 1) + 1 if abs(g) < 1e15 else (0 if g < 0 else s + 1)
        t = min(max(t, 0), s + 1)
        while t <= s and not (t > tau):
            t += 1
        while t > 0 and (t - 1 > tau):
            t -= 1
        return t

    def H(self, walker: _TailWalker | None, s: int, c: Enclosure) -> tuple:
        """``(H, walker)``; ``walker`` is created (O(1) laws calls) when ``None``, else grown to ``s`` and moved."""
        w = self.w
        if s == 0:
            return arith.positive_part(c), walker
        t = self.first_positive(c, s)
        tc = min(t, s)
        if walker is None:
            walker = _TailWalker(s, self.rho_t, tc)
        else:
            while walker.N < s:
                walker.grow()
            walker.move_to(tc)
        H = arb(0) if t > s else (c + self.wrt * s) * walker.G + w * t * self.qt * walker.p
        if t >= 1 and not (c + w * (t - 1) <= 0):
            if t >= 2 and not (c + w * (t - 2) <= 0):
                raise Undecided("several uncertain signs in the closed-form sum; raise the precision")
            pm1 = walker.p if t > s else walker.p * t * walker.ir / (s - t + 1)
            H = H + pm1 * arith.positive_part(c + w * (t - 1))
        return H, walker


class _Blocks:
    """Lemma K4: the weak count ``Y ~ Bin(N2, ρ_b)`` cut into blocks at fixed multiples of its sd around its mean.

    Per ``s``: the block masses and partial means from :class:`_TailWalker` s on
    ``Y`` at the boundaries (``N2`` shrinks by one per step, each boundary moves
    by O(1)), conditional Jensen per block (lower end), chords of the convex
    ``H`` on the inner blocks and the slope bound ``|H'| ≤ |u_1|`` on the two
    outer blocks (upper end).  O(len(grid)) walkers, O(1) ball operations each
    per ``s``.
    """

    def __init__(self, n, rho_b, u1, xf: _XClosedForm, grid=None):
        self.n, self.rho_b, self.qb, self.u1, self.xf = n, rho_b, 1 - rho_b, u1, xf
        self.grid = grid = _BLOCK_GRID if grid is None else grid
        self.au1 = abs(u1)
        self.neg = u1 < 0
        fr = _float_of(rho_b)
        self.fr = fr
        self.yw: list | None = None  # Y walkers at the boundaries
        self.xb = [None] * len(grid)  # X walkers for H at the boundaries
        self.xm = [None] * (len(grid) + 1)  # X walkers for H at the block means

    def bounds(self, s: int, c: Enclosure) -> tuple:
        """``(lower, upper)`` balls bracketing ``E_{X,Y}[(c + u_1 Y + wX)_+]`` given ``s`` (``c`` without the ``u_1 Y`` part)."""
        n, rho_b, qb, u1, xf = self.n, self.rho_b, self.qb, self.u1, self.xf
        N2 = n - s
        if N2 <= 2:  # (nearly) degenerate weak count: sum over its few values exactly
            tot = arb(0)
            for y in range(N2 + 1):
                h, self.xb[0] = xf.H(self.xb[0], s, c + u1 * y)
                tot = laws.pmf(N2, rho_b, y) * h + tot
            return tot, tot
        ybar = N2 * rho_b
        fy = N2 * self.fr
        fsd = (N2 * self.fr * (1 - self.fr)) ** 0.5
        bs = []
        prev = 1
        for a in self.grid:
            b = min(max(int(math.floor(fy + a * fsd)) + 1, prev), N2 - 1)
            bs.append(b)
            prev = b
        if self.yw is None:
            first = _TailWalker(N2, rho_b, bs[0])
            self.yw = []
            for b in bs:
                wk = first.copy()
                wk.move_to(b)
                self.yw.append(wk)
        else:
            for wk, b in zip(self.yw, bs):
                while wk.N > N2:
                    wk.shrink()
                wk.move_to(b)
        G = [wk.G for wk in self.yw]
        M = [N2 * rho_b * wk.G + b * qb * wk.p for wk, b in zip(self.yw, bs)]
        B = len(bs)
        P = [1 - G[0]] + [G[i - 1] - G[i] for i in range(1, B)] + [G[-1]]
        E = [ybar - M[0]] + [M[i - 1] - M[i] for i in range(1, B)] + [M[-1]]
        # H at the boundaries (X walkers cloned from the first one: all thresholds are close)
        Hb = []
        for i, b in enumerate(bs):
            if self.xb[i] is None and i > 0 and self.xb[0] is not None:
                self.xb[i] = self.xb[0].copy()
            h, self.xb[i] = xf.H(self.xb[i], s, c + u1 * b)
            Hb.append(h)
        # lower end: conditional Jensen per block
        lower = arb(0)
        for j in range(B + 1):
            if not (P[j] > 0):
                continue
            if self.xm[j] is None and self.xb[0] is not None:
                self.xm[j] = self.xb[0].copy()
            try:
                h, self.xm[j] = xf.H(self.xm[j], s, c + u1 * (E[j] / P[j]))
            except Undecided:
                continue  # dropping a non-negative term keeps a lower bound
            lower = P[j] * h + lower
        # upper end: chords on the inner blocks, slope bound on the outer ones
        upper = P[0] * Hb[0] + P[B] * Hb[-1]
        if self.neg:  # H non-increasing
            upper = upper + self.au1 * (bs[0] * P[0] - E[0])
        else:
            upper = upper + self.au1 * (E[B] - bs[-1] * P[B])
        for i in range(1, B):
            d = bs[i] - bs[i - 1]
            if d == 0:
                upper = upper + P[i] * Hb[i - 1]
            else:
                upper = upper + P[i] * Hb[i - 1] + (E[i] - bs[i - 1] * P[i]) * (Hb[i] - Hb[i - 1]) / d
        return lower, upper


def _vmax(atoms):
    vmax: Enclosure = fmpq(0)
    for p, v in atoms:
        if not _is_zero(p):
            vmax = arith.maximum((vmax, v))
    return vmax


def _refined_grid(level: int) -> tuple:
    """Block boundaries (in sd of the weak count) for escalation level ``level ≥ 1``: spacing ``0.9/2^level``
    on ``[−4, 4]`` (level capped at 4) plus ±5 and ±6.5; the width falls about 4× per level, the cost doubles."""
    h = 0.9 / 2 ** min(level, 4)
    m = int(4 / h)
    return tuple(sorted(set([j * h for j in range(-m, m + 1)] + [-6.5, -5.0, 5.0, 6.5])))


def _blocked_sum(n, Ps, s_lo, s_tail, a0, un, u1, rho_b, w, rho_t, atoms, level: int = 0):
    """The s-loop of :func:`_fast_positive_part` with the weak count cut into blocks (:class:`_Blocks`, Lemma K4).

    ``level`` > 0 (the caller escalated the precision ``level`` doublings above the default): a finer
    grid (:func:`_refined_grid`), so that escalation narrows the enclosure.  Cost O(W_s·len(grid))."""
    xf = _XClosedForm(w, rho_t)
    grid = _refined_grid(level) if level > 0 else (None if n <= BLOCKS_FINE_MAX_N else _BLOCK_GRID_COARSE)
    blk = _Blocks(n, rho_b, u1, xf, grid)
    lower = arb(0)
    upper = arb(0)
    with Progress(len(Ps), "E[(sum V)_+] (1-D, blocks)", enabled=None if len(Ps) > 5000 else False) as bar:
        for idx, P in enumerate(Ps):
            s = s_lo + idx
            c = a0 + un * s
            lo, hi = blk.bounds(s, c)
            lower = P * lo + lower
            upper = P * hi + upper
            bar.update()
    if not _is_zero(s_tail):
        upper = upper + arith.ball(s_tail) * arith.ball(_vmax(atoms)) * n
    return arb(lower.lower()).union(arb(upper.upper()))


def _fast_positive_part(n: int, atoms, tol, blocks=None, level: int = 0):
    """``E[(Σ_{i=1}^n V_i)_+]`` for a four-atom ``V`` in ball mode by the one-dimensional route; ``None`` if not applicable.

    Write ``Σ V_i = a0 + u_n·s + u_1·Y + w·X`` with ``s = c_t + c_{t'} ~ Bin(n, π_t+π_{t'})``,
    ``X = c_t | s ~ Bin(s, ρ_t)`` and ``Y = c_bulk | s ~ Bin(n−s, ρ_b)``
    (conditionally independent), ``w = v_t − v_{t'}``, ``u_1 = v_bulk − v_rest``.
    Needs ``w > 0`` (certified; true for every k-RR family and the blanket view).

    * ``X`` is summed in **closed form**: for ``c`` fixed and ``τ`` the first
      ``x`` with ``c + w x > 0``, ``E[(c + wX)_+] = (c + w s ρ_t)·P(X ≥ τ) +
      w τ (1−ρ_t) P(X = τ)``; the pair ``(P(X = τ), P(X ≥ τ))`` is carried by a
      :class:`_TailWalker` along ``s`` (``τ`` moves by O(1) per step).
    * ``Y`` (the *weak* count: ``|u_1|`` is O(ε) where ``w`` is O(1)) is
      handled by convexity: ``H(y) = E_X[(c + u_1 y + wX)_+]`` is convex, so
      ``H(E Y) ≤ E H(Y)`` (Jensen, lower end) and ``E H(Y) − H(E Y)`` is at
      most :func:`_weak_gap` (Scarf/Bernstein per kink; ``docs/numerics.md``
      k-RR section, Lemma K3); with ``blocks`` (default: ``n ≤ BLOCKS_MAX_N``
      and sd(Y) ≥ 20) the same per block of ``Y`` (:class:`_Blocks`, Lemma
      K4), about 35× tighter.  When ``Y`` is degenerate (same and neighbour
      families, ``k = 2``, the lumped view) the route is exact.
    * ``s`` is summed over its certified window (left-out mass ``Λ`` adds
      ``[0, n·max(v)_+·Λ]``).

    Cost: O(W_s + √n·√log(1/tol)) ball operations and O(W_s) memory,
    ``W_s = O(√n·√log(1/tol))`` — i.e. O(√n) per evaluation (times the
    number of block boundaries, 15, on the blocked route).
    """
    (pb, vb), (pt, vt), (pn, vn), (pr, vr) = atoms
    a0 = n * vr
    u1 = vb - vr
    un = vn - vr
    w = vt - vn
    if not (arith.ball(w) > 0):
        return None
    ps = fmpq(1) if (_is_zero(pb) and _is_zero(pr)) else pt + pn
    rho_t = pt / ps
    if _is_zero(rho_t) or (isinstance(rho_t, fmpq) and rho_t == 1):
        return None
    rho_t = arith.ball(rho_t)
    if not (rho_t > 0 and rho_t < 1):
        return None
    rho_b = fmpq(0) if _is_zero(pb) else (fmpq(1) if _is_zero(pr) else pb / (pb + pr))
    degenerate = _is_zero(u1) or (isinstance(rho_b, fmpq) and rho_b in (0, 1))
    a0, u1, un, w = (arith.ball(v) for v in (a0, u1, un, w))
    rho_b = arith.ball(rho_b)
    if isinstance(ps, fmpq) and ps == 1:
        Ps, s_lo, s_tail = [arb(1)], n, fmpq(0)
    else:
        Ps, s_lo, s_tail = laws.window(n, arith.ball(ps), tol)
    qt = 1 - rho_t
    wrt = w * rho_t
    fw = _float_of(w)
    au1 = abs(u1)
    if not degenerate:
        vb1 = rho_b * (1 - rho_b)
        iau1 = 1 / au1
        Lb = arb(_BERNSTEIN_L)
    lower = arb(0)
    gap = arb(0)
    walker: Any = None  # a _TailWalker once the first block starts
    fsdY = (n * (1 - _float_of(ps)) * _float_of(rho_b) * (1 - _float_of(rho_b))) ** 0.5
    if not degenerate and blocks is None:
        blocks = level > 0 or (n <= BLOCKS_MAX_N and fsdY >= _BLOCKS_MIN_SD)
    if not degenerate and blocks:
        return _blocked_sum(n, Ps, s_lo, s_tail, a0, un, u1, rho_b, w, rho_t, atoms, level)
    with Progress(len(Ps), "E[(sum V)_+] (1-D)", enabled=None if len(Ps) > 20000 else False) as bar:
        for idx, P in enumerate(Ps):
            s = s_lo + idx
            c = a0 + un * s + u1 * ((n - s) * rho_b)
            # τ = first x with c + w x > 0 (certified); float guess first
            g = -_float_of(c) / fw
            t = int(g // 1) + 1 if abs(g) < 1e15 else (0 if g < 0 else s + 1)
            t = min(max(t, 0), s + 1)
            while t <= s and not (c + w * t > 0):
                t += 1
            while t > 0 and (c + w * (t - 1) > 0):
                t -= 1
            if s == 0:
                H = arith.positive_part(c)
            else:
                tc = min(t, s)
                if walker is None:
                    walker = _TailWalker(s, rho_t, tc)
                else:
                    while walker.N < s:
                        walker.grow()
                    walker.move_to(tc)
                if t > s:
                    H = arb(0)
                else:
                    H = (c + wrt * s) * walker.G + w * t * qt * walker.p
                if t >= 1 and not (c + w * (t - 1) <= 0):
                    # one uncertain sign at t−1: enclose max(ball, 0)
                    if t >= 2 and not (c + w * (t - 2) <= 0):
                        raise Undecided("several uncertain signs in the closed-form sum; raise the precision")
                    pm1 = walker.p if t > s else walker.p * t * walker.ir / (s - t + 1)
                    H = H + pm1 * arith.positive_part(c + w * (t - 1))
            lower = P * H + lower
            if not degenerate and s < n and s > 0:
                gap = P * _weak_gap(c, w, au1, iau1, walker, walker.t, n - s, vb1, Lb) + gap
            elif not degenerate and s < n:
                gap = P * au1 * ((n - s) * vb1).sqrt() + gap
            bar.update()
    vmax: Enclosure = fmpq(0)
    for p, v in ((pb, vb), (pt, vt), (pn, vn), (pr, vr)):
        if not _is_zero(p):
            vmax = arith.maximum((vmax, v))
    extra = gap
    if not _is_zero(s_tail):
        extra = extra + arith.ball(s_tail) * arith.ball(vmax) * n
    if _is_zero(extra):
        return lower
    return lower.union(lower + extra)


# ---------------------------------------------------------------- four-atom engine
def _weak_count_degenerate(atoms) -> bool:
    """True when the bulk count is determined by ``s`` (``π_b = 0``, ``π_r = 0`` or ``v_b = v_r`` exactly)."""
    (pb, vb), _, _, (pr, vr) = atoms
    return _is_zero(pb) or _is_zero(pr) or (isinstance(vb, (int, fmpq)) and isinstance(vr, (int, fmpq)) and vb == vr)


def expected_positive_part(
    n: int,
    atoms: Sequence,
    *,
    tol: NumberOrBall = DEFAULT_TOL,
    exact_max_n: int = EXACT_MAX_N,
    label: str = "E[(sum V)_+]",
    engine: str | None = None,
) -> Enclosure:
    """``E[(Σ_{i=1}^n V_i)_+]`` for i.i.d. ``V`` with four atoms ``[(π_b, v_b), (π_t, v_t), (π_{t'}, v_{t'}), (π_r, v_r)]``.

    The probabilities must sum to exactly 1 (exact zeros allowed, except
    ``π_t + π_{t'} > 0``).  Exact ``fmpq`` result when every input is exact and
    ``n ≤ exact_max_n``; otherwise a ball containing the true value (windowed,
    with the left-out mass bounded as in the module docstring).

    ``engine``: ``"grid"`` — the two-dimensional sum below, cost
    ``O(W_s (W_b + W_t))`` = ``O(n log(1/tol))`` ball operations (only the
    part of each window where the summand can be positive is evaluated);
    ``"1d"`` — :func:`_fast_positive_part`, O(√n·√log(1/tol)) ball operations
    and memory, exact up to the windowing when the bulk count is degenerate
    (same/neighbour families, ``k = 2``), else an enclosure of relative width
    about 6e-5 at n = 10⁴ falling like ``1/n`` (the weak count's bound);
    ``None`` — exact rationals when possible, else ``"1d"`` when the bulk
    count is degenerate or ``n > GRID_MAX_N``, else ``"grid"``; when the
    precision is above ``arith.DEFAULT_PREC`` (a caller escalating to decide
    a comparison) the grid is used up to ``GRID_ESCALATION_MAX_N``, and above
    it the 1-D route refines its blocks with the escalation level (width about
    4× smaller and cost 2× larger per doubling, up to 4 levels), computing at
    the default precision (its width is not a rounding effect).

    >>> from flint import fmpq
    >>> half = fmpq(1, 2)
    >>> expected_positive_part(2, [(0, 0), (half, 1), (half, -1), (0, 0)])  # E[(±1 ± 1)_+]
    1/2
    """
    if engine not in (None, "grid", "1d"):
        raise InvalidArgument("engine", engine, "must be None (automatic), 'grid' or '1d'")
    (pb, vb), (pt, vt), (pn, vn), (pr, vr) = atoms
    vals = [pb, vb, pt, vt, pn, vn, pr, vr]
    exact_mode = all(isinstance(v, (fmpq, int)) for v in vals) and n <= exact_max_n
    degenerate = _weak_count_degenerate(atoms)
    # a caller escalating the precision wants a narrower enclosure: the 1-D route's width on a
    # non-degenerate bulk count is not a precision effect, so give it the grid where that is affordable
    escalating_any = ctx.prec > arith.DEFAULT_PREC
    escalating = escalating_any and n <= GRID_ESCALATION_MAX_N
    if engine == "1d" or (engine is None and not exact_mode and (degenerate or (n > GRID_MAX_N and not escalating))):
        atoms_q = [(fmpq(a) if isinstance(a, int) else a, fmpq(b) if isinstance(b, int) else b) for a, b in atoms]
        if degenerate or not escalating_any:
            v = _fast_positive_part(n, atoms_q, tol)
        else:
            # the width on a non-degenerate bulk count comes from the bound, not from rounding: refine
            # the blocks with the caller's escalation level and keep the arithmetic at the default precision
            level = max(1, (ctx.prec // arith.DEFAULT_PREC).bit_length() - 1)
            with arith.precision(arith.DEFAULT_PREC):
                v = _fast_positive_part(n, atoms_q, tol, level=level)
        if v is not None:
            return v
        if engine == "1d":
            raise InvalidArgument(
                "engine", engine, "needs v_t > v_t' (certified) and 0 < π_t/(π_t + π_t') < 1", hint="use engine='grid'"
            )
    vals = [fmpq(v) if isinstance(v, int) else v for v in vals]
    pb, vb, pt, vt, pn, vn, pr, vr = vals
    # differences first (exact when the inputs are exact, so that exact zeros stay exact)
    a0 = n * vr
    u1 = vb - vr
    ut = vt - vr
    un = vn - vr
    w = ut - un
    # exact structure: π_t + π_t' = 1 exactly when the bulk and rest atoms are absent
    ps = fmpq(1) if (_is_zero(pb) and _is_zero(pr)) else pt + pn
    if _is_zero(ps):
        raise InvalidArgument("atoms", "π_t + π_t' = 0", "must give the two informative atoms positive probability")
    rho_t = pt / ps
    rho_b = fmpq(0) if _is_zero(pb) else (fmpq(1) if _is_zero(pr) else pb / (pb + pr))
    if not exact_mode:
        pb, vb, pt, vt, pn, vn, pr, vr, a0, u1, un, w, ps, rho_t, rho_b = (
            _to_ball_mode(v) for v in (pb, vb, pt, vt, pn, vn, pr, vr, a0, u1, un, w, ps, rho_t, rho_b)
        )
    tab_b = tab_t = None
    if not exact_mode and n > _TABLES_MIN_N:
        tab_t = _RatioTables(rho_t, n) if not _is_zero(rho_t) and not (isinstance(rho_t, fmpq) and rho_t == 1) else None
        if not _is_zero(u1) and isinstance(rho_b, arb):
            tab_b = _RatioTables(rho_b, n)
    S = _Binom(n, ps, exact_mode, tol)
    Ps = S.pmf(S.lo, S.hi)
    total = fmpq(0)
    leftout = S.tail
    with Progress(len(Ps), label, enabled=None if len(Ps) > 200 else False) as bar:
        for idx, P in enumerate(Ps):
            s = S.lo + idx
            A = a0 + un * s
            B = _POINT0 if _is_zero(u1) else _Binom(n - s, rho_b, exact_mode, tol, tab_b)
            T = _Binom(s, rho_t, exact_mode, tol, tab_t)
            # suffix sums over the longer window, loop over the shorter one
            if (B.hi - B.lo) >= (T.hi - T.lo):
                inner = _pair_positive_part(A, u1, B, w, T)
            else:
                inner = _pair_positive_part(A, w, T, u1, B)
            total = P * inner + total
            if not (_is_zero(B.tail) and _is_zero(T.tail)):
                leftout = P * (B.tail + T.tail) + leftout
            bar.update()
    if _is_zero(leftout):
        return total
    vmax: Enclosure = fmpq(0)
    for p, v in ((pb, vb), (pt, vt), (pn, vn), (pr, vr)):
        if not _is_zero(p):
            vmax = arith.maximum((vmax, v))
    err = arith.ball(leftout) * arith.ball(vmax) * n
    t = arith.ball(total)
    return t.union(t + err)


# ---------------------------------------------------------------- k-RR dataset families
def _check_krr(mech, what):
    guards.require_instance(
        mech,
        KRR,
        "mech",
        f"must be a k-ary randomized response (exact.mechanisms.finite.KRR) for {what}",
        hint="for other randomizers use delta_blanket_view or exact.shuffled.bruteforce",
    )


def _family_atoms(mech: KRR, ee, role: str):
    """Four atoms ``(π under μ_z, v)`` for the target/neighbour/others roles ``role`` ∈ {z=t, z=t', third}."""
    k = mech.k
    e = mech.exp_epsilon0()
    p, f = mech.keep(), mech.flip()
    zero = fmpq(0)
    if role == "third":
        vz = (1 - ee) / e
        vt = e - ee
        vn = 1 - ee * e
        vo = 1 - ee
        return [(p, vz), (f, vt), (f, vn), ((k - 3) * f, vo)]
    vo = 1 - ee
    if role == "z=t":
        return [((k - 2) * f, vo), (p, 1 - ee / e), (f, 1 - ee * e), (zero, vo)]
    if role == "z=t'":
        return [((k - 2) * f, vo), (f, e - ee), (p, 1 / e - ee), (zero, vo)]
    raise AssertionError(role)


_ROLE = {
    ("same", "forward"): "z=t",
    ("same", "backward"): "z=t'",
    ("neighbour", "forward"): "z=t'",
    ("neighbour", "backward"): "z=t",
    ("third", "forward"): "third",
    ("third", "backward"): "third",
}


def delta_krr_family(
    mech: KRR,
    n: int,
    family: str,
    *,
    direction: str | None = None,
    engine: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """Exact δ(ε) of shuffled k-RR between the neighbouring datasets of a family (max over both directions).

    ``family`` ∈ {"same", "neighbour", "third"} (see the module docstring);
    ``direction`` ``None`` (max of both), ``"forward"`` (``D(P_x‖P_{x'})``, the
    target holds the family's ``x`` in the first dataset) or ``"backward"``.
    Returns an exact ``fmpq`` when the mechanism is given by a rational
    ``exp_epsilon0``, ``exp_epsilon`` is given, and ``n ≤ exact_max_n``;
    otherwise a ball enclosing the true δ.  Exactly ``0`` when ``ε ≥ ε0``.
    Status: derived (sufficient statistic above), ✔ against brute force.
    Cost: O(√n·√log(1/tol)) ball operations for "same"/"neighbour" (and for
    "third" when ``n > GRID_MAX_N``), else ``O(n log(1/tol))`` (grid engine);
    ``engine`` forces one (see :func:`expected_positive_part`).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> rr = KRR(3, exp_epsilon0=2)
    >>> delta_krr_family(rr, 2, "third", exp_epsilon=1)
    3/16
    >>> delta_krr_family(rr, 2, "third", exp_epsilon=2)
    0
    """
    _check_krr(mech, "the dataset families")
    if family not in FAMILIES:
        raise InvalidArgument("family", family, f"must be one of {', '.join(FAMILIES)}")
    if direction not in DIRECTIONS:
        raise InvalidArgument("direction", direction, "must be None (max of both), 'forward' or 'backward'")
    if family == "third" and mech.k < 3:
        raise InvalidArgument(
            "family",
            family,
            f"needs k >= 3 (a third value), but the mechanism has k = {mech.k}",
            hint="use family='same' or 'neighbour' for binary RR",
        )
    q = delta_args(mech, n, opts, "delta_krr_family")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    dirs = ["forward", "backward"] if direction is None else [direction]
    if family == "third":
        dirs = dirs[:1]  # both directions are equal by the symmetry t <-> t'
    out = []
    for d in dirs:
        atoms = _family_atoms(mech, ee, _ROLE[(family, d)])
        v = expected_positive_part(
            n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{mech.k}-RR {family} n={n}", engine=engine
        )
        out.append(v / n)
    return arith.maximum(out)  # dirs is never empty


def delta_krr_third_lumped(mech: KRR, n: int, *, engine: str | None = None, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """The third-value family's δ computed on the lumped statistic (h_x, h_{x'}, rest) — **NOT a valid δ for k ≥ 4**.

    Hockey-stick divergence between the laws of ``(h_x, h_{x'})`` under the
    two datasets (target ``x`` vs ``x'``, others a third value ``z``):
    ``(1/n) E_{Mult_n(f, f, 1−2f)}[((e−ee)a + (1−ee·e)b + (1−ee)(1−p−f)/(1−2f)·r)_+]``.
    It is a post-processing of the shuffled output, hence a *lower* bound on the
    true third-family δ, equal to it for ``k = 3`` and strictly below it for
    ``k ≥ 4`` (the count of ``z`` is informative).  Kept as a deliberately wrong
    "bound" for the paper checks.  Cost as :func:`delta_krr_family`.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> rr = KRR(5, exp_epsilon0="5/2")
    >>> delta_krr_third_lumped(rr, 4, exp_epsilon="3/2"), delta_krr_family(rr, 4, "third", exp_epsilon="3/2")
    (860/28561, 1020/28561)
    """
    _check_krr(mech, "the lumped third-value computation")
    if mech.k < 3:
        raise InvalidArgument("k", mech.k, "must be >= 3 for a third value")
    q = delta_args(mech, n, opts, "delta_krr_third_lumped")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = mech.exp_epsilon0()
    p, f = mech.keep(), mech.flip()
    wr = (1 - ee) * (1 - p - f) / (1 - 2 * f)
    atoms = [(fmpq(0), wr), (f, e - ee), (f, 1 - ee * e), (1 - 2 * f, wr)]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="lumped", engine=engine) / n


# ---------------------------------------------------------------- blanket view (Lemma 5.3)
def compositions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts ≥ 1`` non-negative integers summing to ``n`` (the multinomial counts), in
    lexicographic order.  ``C(n + parts − 1, parts − 1)`` tuples, O(parts) work each.

    >>> list(compositions(2, 2))
    [(0, 2), (1, 1), (2, 0)]
    """
    if parts == 1:
        yield (n,)
        return
    for c in range(n + 1):
        for rest in compositions(n - c, parts - 1):
            yield (c,) + rest


def _blanket_view_enumerate(mech: FiniteRandomizer, n: int, x: int, x2: int, ee, *, max_terms: int = 10**6):
    """``(1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` by summing over all multinomial counts of the atoms of ``V``.

    ``V = L^ε_{x,x'}`` w.p. γ, else 0.  Cost ``O(C(n+A−1, A−1)·A)`` with
    ``A`` = number of atoms (outputs in the blanket's support + 1).
    """
    g = mech.gamma()
    if _is_zero(g):
        raise InvalidArgument(
            "mech", mech.name, "has total-variation similarity gamma = 0: the blanket view is undefined"
        )
    law = amplification_law(mech, x, x2, exp_epsilon=ee) if not isinstance(ee, arb) else None
    if law is None:
        om = mech.blanket()
        mu, mu2 = mech.row(x), mech.row(x2)
        law = [((mu[y] - ee * mu2[y]) / w, w) for y, w in enumerate(om) if not _is_zero(w)]
    atoms = [(v, g * w) for v, w in law] + [(fmpq(0), 1 - g)]
    A = len(atoms)

    if comb(n + A - 1, A - 1) > max_terms:
        raise InvalidArgument(
            "n",
            n,
            f"is too large for exact enumeration with {A} atoms (more than {max_terms} terms)",
            hint="use a k-RR mechanism (fast path) or a smaller n",
        )
    fact = [1]
    for i in range(1, n + 1):
        fact.append(fact[-1] * i)
    total = fmpq(0)
    for cs in compositions(n, A):
        coef = fmpq(fact[n])
        for c in cs:
            coef = coef / fact[c]
        prob = coef
        val = fmpq(0)
        for c, (v, pi) in zip(cs, atoms):
            if c:
                prob = prob * pi**c
                val = arith.add(val, c * v)
        if _is_zero(prob):
            continue
        total = arith.add(total, prob * arith.positive_part(val))
    return total / (g * n)


def delta_blanket_view(
    mech: FiniteRandomizer,
    n: int,
    *,
    x: int | None = None,
    x2: int | None = None,
    method: str | None = None,
    engine: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """The exact right-hand side of Balle et al. Lemma 5.3: ``(1/(γn))·E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``.

    ``L_i`` are i.i.d. copies of ``L^ε_{x,x'}`` (docs/reference/blanket.md §4, Lemma 5.3,
    source-confirmed [SL]; Appendix A: it is the hockey-stick divergence of
    the view revealing every other user's blanket draw, so it upper-bounds
    the shuffled δ on *every* pair of neighbouring datasets differing in a
    user holding ``x`` vs ``x'``).  Without ``x, x2`` the maximum over ordered
    pairs ``x ≠ x'`` (for k-RR all pairs are equivalent).

    ``method``: ``"fast"`` (k-RR only: the four-atom engine — O(√n·√log(1/tol))
    for ``k = 2`` and for ``n > GRID_MAX_N``, else ``O(n log(1/tol))``;
    ``engine`` forces one, see :func:`expected_positive_part`),
    ``"enumerate"`` (any finite randomizer: exact sum over multinomial counts,
    ``O(C(n+A−1, A−1))``, small n), or ``None`` (fast for k-RR, else enumerate).
    Exact ``fmpq`` for exact inputs (and ``n ≤ exact_max_n`` on the fast path);
    exactly ``0`` when ``ε ≥ ε0``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_blanket_view(KRR(3, exp_epsilon0=2), 2, exp_epsilon=1)
    3/16
    """
    if not isinstance(mech, FiniteRandomizer):
        raise InvalidArgument(
            "mech", mech, "must be a finite randomizer (exact.mechanisms.finite.FiniteRandomizer or KRR)"
        )
    if method not in (None, "fast", "enumerate"):
        raise InvalidArgument("method", method, "must be None, 'fast' or 'enumerate'")
    if method == "fast" and not isinstance(mech, KRR):
        raise InvalidArgument(
            "method", method, "is only available for k-ary randomized response", hint="use method='enumerate'"
        )
    q = delta_args(mech, n, opts, "delta_blanket_view")
    if (x is None) != (x2 is None):
        raise InvalidArgument(
            "x2" if x2 is None else "x", None, "must be given together with the other input (or neither)"
        )
    if x is not None:
        for nm, val in (("x", x), ("x2", x2)):
            if not isinstance(val, int) or isinstance(val, bool) or not 0 <= val < mech.k_in:
                raise InvalidArgument(nm, val, f"must be an input value in 0..{mech.k_in - 1}")
        if x == x2:
            raise InvalidArgument("x2", x2, "must differ from x (a neighbouring pair changes the input)")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    if isinstance(mech, KRR) and method != "enumerate":
        # every ordered pair is equivalent under relabelling
        k = mech.k
        f, p = mech.flip(), mech.keep()
        kf = k * f
        atoms = [((k - 2) * f, kf * (1 - ee)), (f, k * (p - ee * f)), (f, k * (f - ee * p)), (1 - kf, fmpq(0))]
        v = expected_positive_part(
            n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{k}-RR blanket view n={n}", engine=engine
        )
        return v / (mech.gamma() * n)
    # x given: x2 was checked above to be an input value too
    pairs = (
        [(x, x2)]
        if x is not None and x2 is not None
        else [(a, b) for a in range(mech.k_in) for b in range(mech.k_in) if a != b]
    )
    return arith.maximum([_blanket_view_enumerate(mech, n, a, b, ee) for a, b in pairs])  # k_in >= 2: never empty


# ---------------------------------------------------------------- stronger clones (Feldman–McMillan–Talwar, SODA 2023)
def delta_stronger_clones(
    n: int,
    *,
    epsilon0: NumberOrBall | None = None,
    exp_epsilon0: NumberOrBall | None = None,
    method: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """``D_{e^ε}(P‖Q)`` for the stronger-clones pair of any ε0-LDP randomizer shuffled among ``n`` users.

    ``P = (A + Δ, C − A + 1 − Δ)``, ``Q = (A + 1 − Δ, C − A + Δ)`` with
    ``C ~ Bin(n−1, 2/(e^{ε0}+1))``, ``A ~ Bin(C, 1/2)``,
    ``Δ ~ Bern(e^{ε0}/(e^{ε0}+1))`` (spec/beyond_the_seeds.md; status
    recalled).  It is a dominating pair for every ε0-LDP randomizer, and it
    *equals* the blanket view of binary RR (derived here; a test checks the
    identity exactly against ``method="enumerate"``).

    ``method``: ``None``/``"blanket"`` — through :func:`delta_blanket_view` of
    ``KRR(2)``: O(√n·√log(1/tol)) ball operations (one-dimensional engine,
    exact rationals for ``n ≤ exact_max_n``); ``"enumerate"`` — the pair
    summed directly over ``(C, A, Δ)`` in exact rationals (needs exact
    ``e^{ε0}`` and ``e^ε``), O(n²), small n only.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> delta_stronger_clones(5, exp_epsilon0=3, exp_epsilon="3/2")
    33/256
    >>> delta_stronger_clones(5, exp_epsilon0=3, exp_epsilon="3/2", method="enumerate")
    33/256
    """
    if method not in (None, "blanket", "enumerate"):
        raise InvalidArgument("method", method, "must be None, 'blanket' or 'enumerate'")
    mech = KRR(2, epsilon0=epsilon0, exp_epsilon0=exp_epsilon0)
    if method != "enumerate":
        return delta_blanket_view(mech, n, **opts)
    guards.check_options("delta_stronger_clones", opts, DeltaOptions)
    n = arith.integer_in(n, "n", lo=1)
    e0 = mech.exp_epsilon0()
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    if not (isinstance(e0, fmpq) and isinstance(ee, fmpq)):
        raise InvalidArgument(
            "method", method, "needs exact e^{epsilon0} and e^{epsilon} (exp_epsilon0=, exp_epsilon=)"
        )

    g = fmpq(2) / (e0 + 1)
    pd = e0 / (e0 + 1)
    P: dict = {}
    Q: dict = {}
    for C in range(n):
        pc = comb(n - 1, C) * g**C * (1 - g) ** (n - 1 - C)
        for A in range(C + 1):
            pa = pc * fmpq(comb(C, A), 2**C)
            for D, pD in ((1, pd), (0, 1 - pd)):
                kp, kq = (A + D, C - A + 1 - D), (A + 1 - D, C - A + D)
                P[kp] = P.get(kp, fmpq(0)) + pa * pD
                Q[kq] = Q.get(kq, fmpq(0)) + pa * pD
    out: Enclosure = fmpq(0)
    for key in set(P) | set(Q):
        out += arith.positive_part(P.get(key, fmpq(0)) - ee * Q.get(key, fmpq(0)))
    return out


# ---------------------------------------------------------------- calibration (ε for a target δ)
VIEWS = ("blanket",) + FAMILIES


def _gaussian_guess(mech: KRR, n: int, view: str, target: float) -> float | None:
    """A float *guess* of the ε with δ(ε) = target: ``E[(ΣV)_+]`` with ``ΣV`` replaced by a normal law of the same
    mean and variance (only chooses where the certified search evaluates first)."""

    k = mech.k
    e0 = float(arith.ball(mech.exp_epsilon0()).mid())
    if e0 <= 1:
        return None
    p, f = e0 / (e0 + k - 1), 1 / (e0 + k - 1)

    def delta(eps):
        ee = math.exp(eps)
        if view == "blanket":
            kf = k * f
            atoms = [((k - 2) * f, kf * (1 - ee)), (f, k * (p - ee * f)), (f, k * (f - ee * p)), (1 - kf, 0.0)]
            scale = kf * n
        else:
            role = _ROLE[(view, "forward")]
            if role == "third":
                atoms = [(p, (1 - ee) / e0), (f, e0 - ee), (f, 1 - ee * e0), ((k - 3) * f, 1 - ee)]
            elif role == "z=t":
                atoms = [((k - 2) * f, 1 - ee), (p, 1 - ee / e0), (f, 1 - ee * e0), (0.0, 0.0)]
            else:
                atoms = [((k - 2) * f, 1 - ee), (f, e0 - ee), (p, 1 / e0 - ee), (0.0, 0.0)]
            scale = n
        m = sum(a * v for a, v in atoms)
        var = sum(a * v * v for a, v in atoms) - m * m
        mu, sd = n * m, math.sqrt(max(n * var, 1e-300))
        z = mu / sd
        return (mu * 0.5 * math.erfc(-z / math.sqrt(2)) + sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)) / scale

    lo, hi = 0.0, math.log(e0)
    if not delta(lo) > target:
        return None
    hi = float_bisect(lambda e: delta(e) > target, lo, hi, 60)
    return hi if 0 < hi < math.log(e0) else None


def calibrate_epsilon(
    mech: KRR,
    n: int,
    delta: NumberOrBall,
    *,
    view: str = "blanket",
    rel_tol: NumberOrBall = "1e-6",
    tol: NumberInput = DEFAULT_TOL,
    engine: str | None = None,
    on_evaluation: Callable[[fmpq], None] | None = None,
) -> Bracket:
    """Certified smallest central ε with ``δ(ε) ≤ delta`` for the blanket view or a dataset family of shuffled k-RR.

    Returns a :class:`exact.numbers.calibrate.Bracket`: ``upper`` is certified to meet
    the target (the *upper* end of the enclosure of δ(upper) is ≤ delta),
    ``lower`` certified to fail (the *lower* end of the enclosure of
    δ(lower) is > delta).  The search runs on the upper end of each enclosure
    (an exact number, so no comparison is ever undecided and the precision
    never escalates: the one-dimensional route's width is not a precision
    effect), then ``lower`` is certified separately — one more evaluation
    when the enclosure is narrower than the search tolerance, a few when the
    enclosure's relative width dominates (the bracket is then that much
    wider; its ``rel_width()`` says so).  A Gaussian float guess only picks
    the first evaluation points.  Cost: typically 4–9 evaluations of δ
    (``tests/benchmarks/bench_krr.py`` prints the count), each
    O(√n·√log(1/tol)) on the one-dimensional route.  ``on_evaluation(ε)``, if given, is called after each
    evaluation (a progress bar).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(128):
    ...     br = calibrate_epsilon(KRR(2, epsilon0=1), 10**5, "1e-6", view="blanket")
    >>> 0 < br.lower < br.upper and br.rel_width() <= fmpq(1, 10**6)
    True
    """

    if view not in VIEWS:
        raise InvalidArgument("view", view, f"must be one of {', '.join(VIEWS)}")
    _check_krr(mech, "calibration")
    n = arith.integer_in(n, "n", lo=1)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    if mech.epsilon0_exact is not None:
        hi = mech.epsilon0_exact
    else:
        e0 = arith.ball(mech.exp_epsilon0())
        hi = arith.exact(Fraction(*[int(v) for v in arith.endpoints(e0.log())[1].as_integer_ratio()]))
        hi = fmpq(int(hi.p) + 1, int(hi.q))  # strictly above log e^{ε0}: δ(hi) = 0 there

    def enclosure(eps):
        if view == "blanket":
            v = delta_blanket_view(mech, n, epsilon=eps, tol=tol, engine=engine)
        else:
            v = delta_krr_family(mech, n, view, epsilon=eps, tol=tol, engine=engine)
        if on_evaluation is not None:
            on_evaluation(eps)
        return v

    def upper_end(eps):
        v = enclosure(eps)
        if isinstance(v, fmpq):
            return v
        u = arith.endpoints(v)[1]
        return fmpq(u.numerator, u.denominator)

    guess = _gaussian_guess(mech, n, view, float(target.p) / float(target.q))
    g = None
    if guess is not None:
        g = fmpq(int(guess * 10**12), 10**12)
        if not (0 < g < hi):
            g = None
    br = epsilon_for_delta(upper_end, target, hi=hi, lo=0, rel_tol=rel_tol, guess=g)
    evaluations = br.evaluations
    if br.lower == br.upper:
        return br
    # certify the failing end on the true enclosure (its lower end must exceed the target)
    lower, step = br.lower, fmpq(0)
    widen = arith.exact(rel_tol, "rel_tol")
    for _ in range(40):
        x = lower - step
        if x <= 0:
            x = fmpq(0)
        v = enclosure(x)
        evaluations += 1
        if arith.gt(v, target) is True:
            return Bracket(x, br.upper, evaluations, v, br.delta_upper, br.prec, meets="upper")
        if x == 0:
            break
        step = widen * br.upper if step == 0 else step * 4
    raise Undecided(f"could not certify a failing epsilon below {br.upper} (delta enclosures too wide)")
