"""One dataset of shuffled binary randomized response: the law of the count of ones and its hockey-stick divergences.

The model, the facts used (monotone likelihood ratio, bit-flip symmetry, post-processing), the windows and the fast
routes are in the docstring of :mod:`blanket.exact.shuffled.binary`, which adds the worst case over all datasets
(the sweep) on top of this module and re-exports its public names.

>>> from blanket.exact.mechanisms.finite import BinaryRR
>>> delta_binary(BinaryRR(exp_epsilon0=3), 2, 0, exp_epsilon=1)        # n = 2: total variation
3/8
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from blanket.exact.laws import binomial as laws
from blanket.exact.laws.divergences import Windowed
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, Enclosure, NumberOrBall
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
