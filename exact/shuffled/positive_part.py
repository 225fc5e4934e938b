"""The binomial engine: ``E[(Σ_{i=1}^n V_i)_+]`` for i.i.d. ``V`` with at most four atoms, as an enclosure.

The shuffled k-RR routes (:mod:`blanket.exact.shuffled.krr`), the frequency oracles and the Rényi and curve
sweeps reduce their hockey-stick divergences to this expectation.

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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from blanket.exact.laws import binomial as laws
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from blanket.exact.runtime.progress import Progress
from flint import arb, ctx, fmpq

if TYPE_CHECKING:
    pass

#: default bound on the left-out probability mass of each window
DEFAULT_TOL = fmpq(1, 2**80)
#: exact rational arithmetic (no windows) up to this n when all inputs are exact
EXACT_MAX_N = 64


#: above this n the automatic engine choice is the one-dimensional route even when the bulk count is not degenerate
GRID_MAX_N = 20000
#: ... unless the caller has raised the precision above the default (it is escalating to decide a
#: comparison): then the grid engine up to this n
GRID_ESCALATION_MAX_N = 200000
#: the engines of :func:`expected_positive_part` (``None``: automatic)
ENGINES = (None, "grid", "1d", "1d-jensen")
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
    if isinstance(x, arb):
        return float(x.mid())
    try:
        return int(x.p) / int(x.q)
    except OverflowError:  # beyond the float range (an exact e^{ε0} = α^{-(m-1)} with α = 1e-400): ±inf, via a ball
        return float(arb(x).mid())


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


#: terms of :func:`_fast_positive_part`'s sum per update of its progress bar (an update reads the clock for the time
#: budget: a few microseconds, about a tenth of a term's cost)
_BAR_STRIDE = 256


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
            if idx % _BAR_STRIDE == _BAR_STRIDE - 1:  # the bar (and the time budget) every few hundred terms
                bar.update(_BAR_STRIDE)
        bar.update(len(Ps) % _BAR_STRIDE)
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


# ---------------------------------------------------------------- a cheap certified upper bound
#: the largest λ :func:`chernoff_upper` takes (a choice only: every λ > 0 gives a valid bound; it matters only when
#: every value is below about 800/2^40 ≈ 7e-10, e.g. all ≤ 0 at e^ε = e^{ε0}, where a larger λ would multiply the
#: values' ball radii into an infinite exponential)
LAMBDA_MAX = 2.0**40


def chernoff_upper(n: int, atoms: Sequence) -> Enclosure:
    """A certified **upper** bound on ``E[(Σ_{i=1}^n V_i)_+]`` for i.i.d. ``V`` with finitely many atoms ``(π, v)``.

    For every ``λ > 0``, ``x_+ ≤ e^{λx−1}/λ`` (``e^{y−1} ≥ y``), so ``E[(S)_+] ≤ M(λ)^n/(eλ)`` with
    ``M(λ) = Σ π e^{λv}`` (docs/numerics.md, Lemma K5).  ``λ`` is chosen by a float search (any
    ``λ > 0`` is valid: the float only picks the point) and the bound is evaluated in ball arithmetic
    at that exact rational ``λ``.  Used to skip a lower-bound route that cannot win
    (:func:`blanket.exact.shuffled.oracle_exact.best_lower`).  Cost O(len(atoms)) ball operations plus a
    float search of 200 steps.

    >>> from flint import fmpq
    >>> half = fmpq(1, 2)
    >>> bool(chernoff_upper(2, [(half, 1), (half, -1)]) >= half)   # E[(±1 ± 1)_+] = 1/2
    True
    """
    live = [(p, v) for p, v in atoms if not _is_zero(p)]
    if not live:
        return arb(0)
    fp = [(_float_of(arith.ball(p)), _float_of(arith.ball(v))) for p, v in live]
    vmax = max(v for _, v in fp)
    if vmax <= 0:  # (the exact bound would be 0; the float sign is a guess: keep the general route)
        vmax = 1e-300

    def g(lam: float) -> float:
        # log of the bound (floats, only to choose λ); log-sum-exp for stability
        top = max(lam * v for _, v in fp)
        m = sum(p * math.exp(lam * v - top) for p, v in fp)
        if not m > 0:
            return math.inf
        return n * (top + math.log(m)) - 1 - math.log(lam)

    lo, hi = math.log(1e-12), math.log(max(1e-9, 800.0 / max(vmax, 1e-300)))
    if hi <= lo:
        hi = lo + 1
    # golden-section search on log λ (the log-bound is convex in λ: a log-MGF plus −log λ; any λ > 0 is valid)
    a, b = lo, hi
    r = (math.sqrt(5) - 1) / 2
    c, d = b - r * (b - a), a + r * (b - a)
    gc, gd = g(math.exp(c)), g(math.exp(d))
    for _ in range(200):
        if gc <= gd:
            b, d, gd = d, c, gc
            c = b - r * (b - a)
            gc = g(math.exp(c))
        else:
            a, c, gc = c, d, gd
            d = a + r * (b - a)
            gd = g(math.exp(d))
    # capped (LAMBDA_MAX): with every float value <= 0 the search ran to λ = 800/1e-300 and the conversion below
    # overflowed (`blanket epsilon --mechanism oue --k 4 --epsilon0 2 -n 50 --delta 1e-6 --rounds 1`: the curve's top)
    best = min(math.exp((a + b) / 2), LAMBDA_MAX)
    lam = fmpq(max(1, round(best * 2**40)), 2**40)
    m = arb(0)
    for p, v in live:
        m = arith.ball(p) * (arith.ball(v) * lam).exp() + m
    return m**n / (arith.ball(lam) * arb(1).exp())


# ---------------------------------------------------------------- four-atom engine
def _weak_count_degenerate(atoms) -> bool:
    """True when the bulk count is determined by ``s`` (``π_b = 0``, ``π_r = 0`` or ``v_b = v_r`` exactly)."""
    (pb, vb), _, _, (pr, vr) = atoms
    return _is_zero(pb) or _is_zero(pr) or (isinstance(vb, (int, fmpq)) and isinstance(vr, (int, fmpq)) and vb == vr)


#: the largest positive atom value up to which the windows' left-out mass is ``tol`` itself (see value_scaled_tol)
VALUE_SCALE_FROM = 2**20


def chernoff_capped(value: Enclosure, n: int, atoms: Sequence, scale: NumberOrBall) -> Enclosure:
    """``value``, an enclosure of ``E[(Σ_{i≤n} V_i)_+]/scale`` (``scale > 0``), intersected with ``[0, C]``, ``C`` the
    certified :func:`chernoff_upper` bound on the same quantity, when ``C`` is below its upper end (else ``value``).

    Deep in the tail (small ε, large n) the engine's windowing tolerance, not the value, sets the upper end
    (absolute, about ``n·2^-80``: OUE k = 128, n = 10⁶, ε = 0.02: 6.8e-11 against 6.5e-115; the geometric
    dominating law m = 5, n = 10⁴, ε = 0.3: 8.8e-24 against a lower end 1.6e-216).  Both enclose the same
    nonnegative value, so their intersection does too.  Exact values are returned as they are.  O(number of atoms)
    ball operations plus :func:`chernoff_upper`'s float search."""
    if isinstance(value, fmpq) or not value.is_finite():
        return value
    cb = chernoff_upper(n, atoms) / arith.ball(scale)
    lo, hi = arith.endpoints(value)
    # compared as balls first: at a huge e^{ε0} the Chernoff bound can be astronomically large (or not finite), and
    # its exact rational endpoint would take minutes to build (probe13: OUE, ε0 = 60, n = 4)
    if not (cb.is_finite() and cb < arb(fmpq(hi.numerator, hi.denominator))):
        return value
    ch = arith.endpoints(cb)[1]
    if not ch < hi:
        return value
    c = arb(fmpq(ch.numerator, ch.denominator))
    if lo <= 0:
        return arb(0).union(c)
    if lo >= ch:  # both enclosures hold the value: only where it equals ch up to rounding
        return c
    return arb(fmpq(lo.numerator, lo.denominator)).union(c)


def value_scaled_tol(atoms: Sequence, tol: NumberOrBall) -> NumberOrBall:
    """The windows' left-out-mass target for :func:`expected_positive_part`: ``tol`` when every positive atom value is
    below :data:`VALUE_SCALE_FROM` (the numbers there unchanged), else ``tol / 2^b`` with ``2^b ≥ max(v)_+``.

    The engine adds ``[0, n·max(v)_+·Λ]`` for the left-out mass ``Λ ≤ tol``; at a huge ``e^{ε0}`` the values are
    about ``e^{ε0}`` (a frequency oracle's same-family pair: ``e − e^ε``), so with ``Λ = 2^-80`` the enclosure of
    δ = E[..]/n was ``±e^{ε0}·2^-80`` (OLH k = 64, g = 8, n = 1000, ε0 = 100: ``[± 9.9e18]``, a lower end of 0,
    at every precision).  Scaled, that term is at most ``n·tol``.  The float maximum only chooses ``b`` (a
    larger or smaller ``b`` changes the width, never the enclosure's validity).  Cost O(1); the windows widen
    by a factor ``√((80 + b)/80)``.
    """
    vmax, big = 0.0, 0
    for p, v in atoms:
        if _is_zero(p):
            continue
        fv = _float_of(v if isinstance(v, arb) else fmpq(v))
        if fv == math.inf:
            # beyond the float range (e^{ε0} from ε0 ≈ 709.8: the window was left unscaled, ±2.9e4 at SUE ε0 = 800):
            # ⌈log2⌉ of the value's upper end, exactly (arith.cancellation_bits at depth 1 is that plus 1)
            big = max(big, arith.cancellation_bits(v, threshold=1))
        elif not math.isfinite(fv):
            return tol
        else:
            vmax = max(vmax, fv)
    if vmax < VALUE_SCALE_FROM and not big:
        return tol
    b = max(math.frexp(vmax)[1], big)  # every value < 2^b
    return (tol if isinstance(tol, arb) else arith.exact(tol)) / 2**b


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
    ``"1d-jensen"`` — the same route without the blocks of the weak count (Lemma K3's Jensen-gap bound alone,
    never Lemma K4): several times cheaper at n ≈ 10⁶ and, there, about as narrow (used by the privacy curves,
    :mod:`blanket.exact.accounting.curve_pairs`, which need a relative width of 1e-3 only; exact inputs with
    ``n ≤ exact_max_n`` still give the exact value);
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
    if engine not in ENGINES:
        raise InvalidArgument("engine", engine, "must be None (automatic), 'grid', '1d' or '1d-jensen'")
    (pb, vb), (pt, vt), (pn, vn), (pr, vr) = atoms
    vals = [pb, vb, pt, vt, pn, vn, pr, vr]
    exact_mode = all(isinstance(v, (fmpq, int)) for v in vals) and n <= exact_max_n
    if not exact_mode:
        tol = value_scaled_tol(atoms, tol)
    degenerate = _weak_count_degenerate(atoms)
    # a caller escalating the precision wants a narrower enclosure: the 1-D route's width on a
    # non-degenerate bulk count is not a precision effect, so give it the grid where that is affordable
    escalating_any = ctx.prec > arith.DEFAULT_PREC
    escalating = escalating_any and n <= GRID_ESCALATION_MAX_N
    if engine == "1d-jensen" and not exact_mode:
        atoms_q = [(fmpq(a) if isinstance(a, int) else a, fmpq(b) if isinstance(b, int) else b) for a, b in atoms]
        v = _fast_positive_part(n, atoms_q, tol, blocks=False)
        if v is not None:
            return v
        raise InvalidArgument(
            "engine", engine, "needs v_t > v_t' (certified) and 0 < π_t/(π_t + π_t') < 1", hint="use engine='grid'"
        )
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
            if v is not None and not arith.ball(v).is_finite():
                # the caller's precision was for cancellation, not an escalation (a frequency oracle at a huge ε0,
                # values ~e^{ε0}: mechanisms.oracles.cancellation_precision); at the default precision the sum is
                # NaN (OLH k = 64, g = 8, n = 10^6, ε0 = 100: the blanket view's upper end was 1): keep its bits
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
