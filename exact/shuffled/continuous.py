"""The certified blanket view of the shuffled Laplace and Gaussian mechanisms (Balle et al. Lemma 5.3 with Lemma A.3).

``δ_BV(ε) = (1/(γn))·E[(Σ_{i≤n} Y_i)_+]`` with ``Y_i`` i.i.d., ``Y = L^ε_{x,x'}`` w.p. ``γ`` and ``0`` otherwise
(the binomial ``M ~ Bin(n, γ)`` of Lemma 5.3 written as a mixture), returned as an **enclosure**
``[lower, upper]`` of the true value (docs/reference/blanket.md §4, "The continuous randomizers: the exact
blanket view", status: derived).  The argument, in short:

* the output line is cut into cells ``C_j`` (for Laplace two atoms ``W < 0``, ``W > 1`` where ``L`` is constant;
  cells of ``[0, 1]`` on which ``L`` is monotone with range ≤ the lattice step ``h``; for Gaussian also two
  infinite cells beyond ``±T``); each cell's mass ``γΩ(C_j)`` and ``∫_{C_j}(μ_x − e^ε μ_{x'})`` are closed forms
  (distribution functions, ``erfc``) in ball arithmetic;
* **upper**: on each cell ``L`` is replaced by the two-point law on the lattice points just below and above its
  range with the same conditional mean — a mean-preserving spread, so ``Y ≤_cx Y_up`` and, ``(·)_+`` being
  convex and increasing, ``E[(ΣY)_+] ≤ E[(ΣY_up)_+]`` (convex order is closed under independent sums).
  The Gaussian cell where ``L`` is unbounded above is replaced by the constant ``L(−T)`` with the exact
  correction ``E_ω[(L − L(−T))1_C]`` per user;
* **lower**: on each cell ``L`` is replaced by its conditional mean (Jensen: ``E[(ΣY)_+] ≥ E[(ΣE[Y|cells])_+]``),
  rounded down to the lattice; the residuals ``r_i ∈ [0, h]`` sum to at least ``n·E[r] − u`` except with
  probability ``e^{−2u²/(nh²)}`` (Hoeffding), which is added back as a constant shift;
* the lattice laws (masses ``k·2^{−B}``, rounded up resp. down) are convolved by exact integer polynomial
  products (``fmpz_poly``) by repeated squaring; after each product the masses are rescaled with directed
  rounding and a window is kept: the upper side moves the mass below the window to its lower end and drops
  the mass above it, carrying that mass, and what the integer floors lost (< 1 unit per coefficient of the full
  product), at the largest possible value (``K·max``) into the final bound; the
  lower side drops the mass below and moves the mass above down to the window's upper end.

Complexity: ``O(C)`` ball evaluations for ``C`` cells (``C ≈ (range of L)/h``), then ``O(log n)`` integer
products of length ``≈ 25σ_S/h`` (``σ_S ≈ √(nγE[L²])``) with ``B + O(log n)``-bit coefficients.

>>> from blanket.exact.mechanisms.continuous import Laplace
>>> v = blanket_view(Laplace(1), 100, epsilon=fmpq(1, 2), h=fmpq(1, 32))
>>> v.lower < v.upper < fmpq(1, 100)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blanket.exact.mechanisms.continuous import Continuous, Gaussian, Laplace, normal_cdf
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.runtime.budget import TooExpensive
from blanket.exact.shuffled.krr import calibrate_epsilon
from flint import arb, ctx, fmpq, fmpz, fmpz_poly

__all__ = [
    "quantised_rr",
    "quantised_epsilon_lower",
    "ViewEnclosure",
    "EpsilonBracket",
    "blanket_view",
    "cells",
    "leaf_laws",
    "epsilon_bracket",
    "aligned_step",
    "view_bits",
    "DEFAULT_H",
]

#: default lattice step of L
DEFAULT_H = fmpq(1, 32)
#: bits of the integer masses (mass = k·2^-BITS)
BITS = 96
#: a window keeps all but 2^-DROP of a node's mass on each side
DROP = 80
#: a cell wider than h is kept when its mass·(range/h)² is below this (far tails)
SPLIT_MASS = fmpq(1, 10**5)
#: Gaussian: the cut-off T in units of σ beyond which L is replaced (upper) by a constant
GAUSS_CUT = 6
#: the lower side's residual shift fails with probability 2^-ETA_BITS (Bernstein)
ETA_BITS = 160


@dataclass(frozen=True)
class ViewEnclosure:
    """``lower ≤ δ_BV(ε) ≤ upper`` (exact rationals) and how they were computed."""

    lower: fmpq
    upper: fmpq
    h: fmpq
    cells: int
    length: int

    def width(self) -> fmpq:
        """``upper − lower``."""
        return self.upper - self.lower


# ---------------------------------------------------------------- the cells of the output line
@dataclass(frozen=True)
class Cell:
    """A cell of the output line: its blanket mass ``g = γΩ(C)``, ``I = ∫_C (μ_x − e^ε μ_{x'})``, the range
    ``[lo, hi]`` of ``L`` on it (``None`` when unbounded on that side) and whether it is an atom."""

    g: arb
    integral: arb
    lo: arb | None
    hi: arb | None


def _L(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, y: arb) -> arb:
    g = mech.gamma()
    return g * (mech.ratio(x, y) - ee * mech.ratio(x2, y))


def _cell(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, u: arb | None, v: arb | None) -> Cell:
    """The cell ``[u, v]`` (``None`` = ±∞); ``L`` monotone on it (docs/reference/blanket.md §4)."""
    Fu = (lambda z: arb(0)) if u is None else (lambda z: mech.cdf(z, u))
    Fv = (lambda z: arb(1)) if v is None else (lambda z: mech.cdf(z, v))
    gu = arb(0) if u is None else mech.floor_cdf(u)
    gv = mech.gamma() if v is None else mech.floor_cdf(v)
    integral = (Fv(x) - Fu(x)) - ee * (Fv(x2) - Fu(x2))
    ends = [_L(mech, x, x2, ee, t) for t in (u, v) if t is not None]
    lo = min((e.lower() for e in ends), default=None)
    hi = max((e.upper() for e in ends), default=None)
    if u is None or v is None:  # an infinite cell: lo = hi = L at its finite end (the caller knows the direction)
        return Cell(gv - gu, integral, ends[0], ends[0])
    return Cell(gv - gu, integral, arb(lo), arb(hi))


#: memo of the ε-free values at cell ends: (repr(mech), x, x2, precision) -> {(num, den) of u: (F_x(u), F_x2(u),
#: γΩ(≤u), γ·ratio(x, u), γ·ratio(x2, u))}
_POINTS: dict = {}


def _point(mech: Continuous, x: fmpq, x2: fmpq, u: fmpq) -> tuple:
    """The values at ``u`` that do not depend on ε (memoised: an ε search evaluates the same cell ends).  O(1)."""
    outer = (repr(mech), str(x), str(x2), ctx.prec)
    memo = _POINTS.get(outer)
    if memo is None:
        if len(_POINTS) > 16:
            _POINTS.clear()
        memo = _POINTS[outer] = {}
    key = (int(u.p), int(u.q))
    val = memo.get(key)
    if val is None:
        if len(memo) > 200_000:
            memo.clear()
        ub = arb(u)
        g = mech.gamma()
        val = (mech.cdf(x, ub), mech.cdf(x2, ub), mech.floor_cdf(ub), g * mech.ratio(x, ub), g * mech.ratio(x2, ub))
        memo[key] = val
    return val


def _finite_cell(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, u: fmpq, v: fmpq) -> Cell:
    """:func:`_cell` for a finite cell ``[u, v]`` with exact ends, from memoised end values.  O(1)."""
    Fu, F2u, gu, ru, r2u = _point(mech, x, x2, u)
    Fv, F2v, gv, rv, r2v = _point(mech, x, x2, v)
    integral = (Fv - Fu) - ee * (F2v - F2u)
    ends = (ru - ee * r2u, rv - ee * r2v)
    return Cell(gv - gu, integral, arb(min(e.lower() for e in ends)), arb(max(e.upper() for e in ends)))


def _split(mech, x, x2, ee, u: fmpq, v: fmpq, h: fmpq, out: list, depth: int = 0) -> None:
    c = _finite_cell(mech, x, x2, ee, u, v)
    assert c.lo is not None and c.hi is not None
    rng = c.hi - c.lo
    # split while the range exceeds h and the cell's mass·range² (its share of the spread's extra variance) matters
    if depth < 40 and rng > arb(h) and c.g * rng * rng > arb(h) * arb(h) * SPLIT_MASS:
        m = (u + v) / 2
        _split(mech, x, x2, ee, u, m, h, out, depth + 1)
        _split(mech, x, x2, ee, m, v, h, out, depth + 1)
    else:
        out.append(c)


def cells(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, h: fmpq) -> tuple[list, list]:
    """``(finite, infinite)``: the finite cells (atoms included) with L's range ≤ ``h`` where it is continuous,
    and the Gaussian's two infinite cells ``[(cell, "up"), (cell, "down")]`` (L unbounded above on the first,
    below on the second).  O(range(L)/h) cells, each O(1) ball operations."""
    finite: list = []
    infinite: list = []
    if isinstance(mech, Laplace):
        lo_end, hi_end = fmpq(0), fmpq(1)
        # the two atoms: L is constant below 0 and above 1
        finite.append(_atom(mech, x, x2, ee, None, arb(0), arb(-1)))
        finite.append(_atom(mech, x, x2, ee, arb(1), None, arb(2)))
    elif isinstance(mech, Gaussian):
        T = GAUSS_CUT * mech.sigma
        lo_end, hi_end = -T, 1 + T
        infinite.append((_cell(mech, x, x2, ee, None, arb(lo_end)), "up"))
        infinite.append((_cell(mech, x, x2, ee, arb(hi_end), None), "down"))
    else:
        raise InvalidArgument("mech", mech, "must be a Laplace or Gaussian record (exact.mechanisms.continuous)")
    pts = sorted(
        {lo_end, hi_end, x, x2, fmpq(1, 2)} & {p for p in (lo_end, hi_end, x, x2, fmpq(1, 2)) if lo_end <= p <= hi_end}
    )
    for u, v in zip(pts, pts[1:]):
        _split(mech, x, x2, ee, u, v, h, finite)
    return finite, infinite


def _atom(mech, x, x2, ee, u, v, at) -> Cell:
    c = _cell(mech, x, x2, ee, u, v)
    val = _L(mech, x, x2, ee, at)
    return Cell(c.g, c.integral, val, val)


# ---------------------------------------------------------------- the lattice laws of Y
def aligned_step(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, h: fmpq) -> fmpq:
    """A lattice step ``h' ≤ h`` (exact, dyadic) that puts the Laplace law's atoms near lattice points.

    ``Y`` has three atoms: ``0`` (mass ``1 − γ``; always a lattice point), and for Laplace ``L``'s constant values
    on ``W < 0`` and ``W > 1`` (mass ``≈ γΩ``, about 0.18 each at ε0 = 1).  An atom off the lattice costs the lower
    side a merge with far-away mass (first order in its distance to the lattice) and the upper side a spread.  The
    step is ``h' = ⌊v_max/a⌋`` (just below, so the largest atom sits a hair above the lattice point ``a·h'``), with
    ``a ∈ [⌈v_max/h⌉, 1.25⌈v_max/h⌉]`` chosen so that the smallest atom sits closest below a lattice point.  Any
    step is sound (the enclosure holds for every ``h' > 0``): this only narrows it.  Returns ``h`` unchanged for
    the Gaussian (one atom, at 0) or when the largest atom is below ``h``.  O(a) float and O(1) ball operations."""
    if not isinstance(mech, Laplace):
        return h
    hb = arb(h)
    ends = (_L(mech, x, x2, ee, arb(-1)), _L(mech, x, x2, ee, arb(2)))
    top = max(ends, key=lambda z: float(z.mid()))
    bot = min(ends, key=lambda z: float(z.mid()))
    tf, bf = float(top.mid()), float(bot.mid())
    if not (top > hb):
        return h
    a0 = _int_ceil(top.upper() / hb)

    def gap(a: int) -> float:  # the smallest atom's distance up to the next lattice point, in steps
        if bf >= 0:
            return 0.0
        q = -bf / (tf / a)
        return q - math.floor(q)

    a = min(range(a0, a0 + max(1, a0 // 4) + 1), key=gap)
    # a margin of 2^-60 below top/a keeps top/h' > a in ball arithmetic
    hq = fmpq(_int_floor((top.lower() / a) * arb(2) ** 60) - 1, 1 << 60)
    return hq if 0 < hq <= h else h


def _exact_point(z: arb) -> fmpq:
    """The exact value of an exact point ball (an ``arf``: mantissa·2^exponent), as a rational."""
    man, ex = z.mid().man_exp()
    m, e = int(man), int(ex)
    return fmpq(m << e) if e >= 0 else fmpq(m, 1 << -e)


def _int_floor(z: arb) -> int:
    """``⌊t⌋`` for every point ``t`` of the ball ``z`` (the floor of its lower end), at any precision."""
    if not z.is_finite():
        raise InvalidArgument("value", z, "must be finite (raise the working precision)")
    q = _exact_point(z.lower())
    return int(q.floor())


def _int_ceil(z: arb) -> int:
    """``⌈t⌉`` for every point ``t`` of the ball ``z`` (the ceiling of its upper end), at any precision."""
    if not z.is_finite():
        raise InvalidArgument("value", z, "must be finite (raise the working precision)")
    q = _exact_point(z.upper())
    return int(q.ceil())


def _units(p: arb, up: bool, bits: int = BITS) -> int:
    """``⌈p·2^B⌉`` (upper end) or ``max(0, ⌊p·2^B⌋)`` (lower end), ``B = bits``."""
    s = p * arb(2) ** bits
    if up:
        return max(0, _int_ceil(s))
    return max(0, _int_floor(s.lower()))


@dataclass
class LeafLaw:
    """A lattice law: ``units[i]·2^{-B}`` at ``(offset + i)·h``; ``shift`` a constant added to the sum of ``n``
    copies (lower side: ``n·E[r] − u``), ``slack`` a constant added to the final value (Hoeffding's
    exceptional event on the lower side, negative; the Gaussian tail correction on the upper side)."""

    offset: int
    units: list
    top: int  # the largest index carrying mass (its value bounds every copy)
    bits: int = BITS  # masses are units·2^-bits


def leaf_laws(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, h: fmpq, bits: int = BITS) -> tuple:
    """``(upper, lower, correction_up, resid_mean, resid_max, ncells)``: the two lattice laws of ``Y`` (masses in
    units of ``2^-bits``),
    the upper side's per-user correction (Gaussian tail; ``0`` for Laplace), the lower side's residual
    mean (a ball) and the residual bound.  O(cells)."""
    finite, infinite = cells(mech, x, x2, ee, h)
    g = mech.gamma()
    up: dict[int, int] = {0: _units(1 - g, True, bits)}
    lo: dict[int, int] = {0: _units(1 - g, False, bits)}
    corr = arb(0)
    rmean = arb(0)
    rmax = arb(0)
    rsq = arb(0)
    hb = arb(h)

    def add(d, k, u):
        d[k] = d.get(k, 0) + u

    def two_point(gm, mean, a, b):
        if a == b:
            add(up, a, _units(gm, True, bits))
            return
        ph = gm * (mean - a * hb) / ((b - a) * hb)
        add(up, b, _units(ph, True, bits))
        add(up, a, _units(gm - ph, True, bits))

    def spread(gm, mean, lo_v, hi_v):
        a, b = _int_floor(lo_v.lower() / hb), _int_ceil(hi_v.upper() / hb)
        if b - a <= 1 or not (hi_v.lower() > lo_v.upper()):
            two_point(gm, mean, a, b)
            return
        # the range straddles a lattice point: first the two-point law on the range's ends with the same mean
        # (the extreme law of the cell in convex order), then each end onto its two neighbouring lattice points
        lo_x, hi_x = arb(lo_v.lower()), arb(hi_v.upper())
        ph = gm * (mean - lo_x) / (hi_x - lo_x)
        two_point(ph, hi_x, _int_floor(hi_x / hb), _int_ceil(hi_x / hb))
        two_point(gm - ph, lo_x, _int_floor(lo_x / hb), _int_ceil(lo_x / hb))

    pts: list = []  # (value, mass) of the conditional-mean law L_c

    for c in finite:
        if c.g == 0:
            continue
        mean = g * c.integral / c.g
        spread(c.g, mean, c.lo, c.hi)
        pts.append((mean, c.g))
    for c, direction in infinite:
        pts.append((g * c.integral / c.g, c.g))
        val = c.lo  # L at the finite end
        if direction == "up":
            # L >= L(end) on the cell: replace by the constant, add E_w[(L - L(end))1_C] per user
            spread(c.g, val, val, val)
            corr += c.integral - val * c.g / g
        else:
            # L <= L(end): replace by the constant (pointwise larger)
            add(up, _int_ceil(val.upper() / hb), _units(c.g, True, bits))
    chunks, used = _chunks(pts, hb, 1 - g)
    lo[0] = _units(1 - g - used, False, bits)
    for k, gm, r in chunks:
        add(lo, k, _units(gm, False, bits))
        rmean += gm * r
        rsq += gm * r * r
        rmax = r.upper() if r.upper() > rmax else rmax
    return _law(up, bits), _law(lo, bits), corr, (rmean, rsq, rmax), len(finite) + len(infinite)


def _chunks(pts: list, hb: arb, zero: arb) -> tuple[list, arb]:
    """Partition the conditional-mean law ``[(value, mass)]`` into chunks whose averages sit (just above) lattice
    points: ``([(k, mass, r)], t)`` with ``r = average − k·h ≥ 0``.  Replacing each chunk by ``k·h`` is a
    conditional expectation followed by a decrease, so the result is ``≤_icx`` the law (docs/reference/blanket.md
    §4).  Values below a cut are chunked upwards from the minimum, those above downwards from the maximum; the
    cut is the first value above ``3h`` (else the median), so the two leftover chunks have averages ``≥ h`` and a
    mass ``t`` of the exact atom at 0 (at most ``zero``) mixed into each brings its average onto a lattice point.
    O(len(pts)) ball operations."""
    pts = sorted(pts, key=lambda vm: float(vm[0].mid()))
    cut = next((i for i, (v, _) in enumerate(pts) if v.lower() > 3 * hb), None)
    if cut is None or cut == 0:
        total = sum((m for _, m in pts), arb(0))
        half, acc, cut = total / 2, arb(0), len(pts)
        for i, (_, m) in enumerate(pts):
            acc += m
            if acc > half:
                cut = i
                break
    out: list = []
    used = arb(0)
    for side in (_chunk_side(pts[:cut], hb, out, up=True), _chunk_side(pts[cut:][::-1], hb, out, up=False)):
        if side is None:
            continue
        S, M = side
        k = _int_floor((S / M).lower() / hb)
        if k >= 1:
            # mix a mass t of the atom at 0: S/(M + t) >= kh for t <= S/(kh) - M (its lower end)
            t = arb(max(0, (S / (k * hb) - M).lower()))
            if (used + t).upper() <= zero.lower():
                used += t
                M = M + t
        out.append((k, M, S / M - k * hb))
    return out, used


def _chunk_side(pts: list, hb: arb, out: list, *, up: bool) -> tuple | None:
    S = M = arb(0)
    empty = True
    for v, m in pts:
        rem = m
        while True:
            if empty:
                S, M, empty = v * rem, rem, False
                break
            avg = S / M
            k = _int_ceil(avg.upper() / hb) if up else _int_floor(avg.lower() / hb)
            kh = k * hb
            closes = (v.lower() > kh) if up else (v.upper() < kh)
            if closes:
                # the mass t taken from v that brings the average exactly to kh (an end on the safe side)
                t_ball = (kh * M - S) / (v - kh) if up else (S - kh * M) / (kh - v)
                t = t_ball.upper() if up else arb(max(0, t_ball.lower()))
                if t >= 0 and t < rem.lower():
                    S, M = S + t * v, M + t
                    out.append((k, M, S / M - kh))
                    empty = True
                    rem = rem - t
                    continue
            S, M = S + rem * v, M + rem
            break
    return None if empty else (S, M)


def _law(d: dict, bits: int) -> LeafLaw:
    ks = [k for k, u in d.items() if u > 0]
    a, b = min(ks), max(ks)
    units = [d.get(k, 0) for k in range(a, b + 1)]
    return LeafLaw(a, units, b, bits)


# ---------------------------------------------------------------- the sum of n copies
@dataclass
class _Node:
    offset: int
    poly: fmpz_poly
    top: int  # an index bounding every value this node can take
    drop: fmpq  # upper side: mass dropped above the windows, carried at value top·h
    count: int  # the number of copies summed
    mu: float  # float mean and variance of one copy, in lattice units (only to guess windows)
    var: float
    bits: int  # masses are units·2^-bits


def _mass(p: fmpz_poly) -> int:
    return int(p(1)) if p.length() else 0


def _prefix(p: fmpz_poly, k: int) -> int:
    return _mass(p.truncate(k)) if k > 0 else 0


def _window(p: fmpz_poly, thr: int) -> tuple[int, int, int, int]:
    """``(a, b, below, above)``: the narrowest window ``[a, b]`` of coefficient indices with at most ``thr`` units
    below and above it (exact integer masses, summed from both ends).  O(length of the two tails)."""
    L = p.length()
    # the largest tails of mass <= thr, read off the exact coefficients from both ends (O(the tails' length))
    a, below = 0, 0
    while a < L - 1:
        c = int(p[a])
        if below + c > thr:
            break
        below += c
        a += 1
    b, above = L - 1, 0
    while b > a:
        c = int(p[b])
        if above + c > thr:
            break
        above += c
        b -= 1
    return a, b, below, above


def _product(A: _Node, B: _Node, side: str, drop_bits: int = DROP, total: int = 1) -> _Node:
    C = A.poly * B.poly
    # floor: the upper side carries what the floors lost (< 1 unit per coefficient of the full product, whose length
    # is len(A) + len(B) - 1 before the floor can trim it) at the largest possible value, with the dropped mass
    lost = A.poly.length() + B.poly.length() - 1 if side == "upper" else 0
    bits = A.bits
    C = C // (fmpz(2) ** bits)
    off = A.offset + B.offset
    count = A.count + B.count
    # a node of `count` copies enters the sum of `total` about total/count times: its windows may leave out
    # 2^-drop_bits·count/total, so that what all products leave out is about 2^-drop_bits per level
    a, b, below, above = _window(C, (count << (bits - drop_bits)) // max(total, count))
    W = C.truncate(b + 1).right_shift(a) if a > 0 else C.truncate(b + 1)
    drop = fmpq(0)
    if side == "upper":
        W = W + fmpz_poly([below])
        drop = fmpq(above + lost, 1 << bits)
        ma, mb = fmpq(_mass(A.poly), 1 << bits), fmpq(_mass(B.poly), 1 << bits)
        drop += A.drop * mb + B.drop * ma + A.drop * B.drop
    else:
        W = W + fmpz_poly([0] * (b - a) + [above])
    return _Node(off + a, W, A.top + B.top, drop, count, A.mu, A.var, bits)


def _power(leaf: LeafLaw, n: int, side: str, drop_bits: int = DROP) -> _Node:
    total = n
    tot = sum(leaf.units)
    mu = sum(u * (leaf.offset + i) for i, u in enumerate(leaf.units)) / tot
    var = sum(u * (leaf.offset + i - mu) ** 2 for i, u in enumerate(leaf.units)) / tot
    base = _Node(leaf.offset, fmpz_poly(leaf.units), leaf.top, fmpq(0), 1, mu, var, leaf.bits)
    acc: _Node | None = None
    while True:
        if n & 1:
            acc = base if acc is None else _product(acc, base, side, drop_bits, total)
        n >>= 1
        if not n:
            break
        base = _product(base, base, side, drop_bits, total)
    assert acc is not None
    return acc


def _positive_mean(node: _Node, h: fmpq, shift: arb) -> arb:
    """``Σ_k w_k ((offset+k)h + shift)_+`` in ball arithmetic (exact integer sums above the kink)."""
    coeffs = node.poly.coeffs()
    hb = arb(h)
    # indices with (offset+k)h + shift certainly > 0 from k1 on
    k1 = max(0, _int_floor(-shift.upper() / hb) - node.offset + 1)
    s0 = sum((int(c) for c in coeffs[k1:]), 0)
    s1 = sum((int(c) * (node.offset + k) for k, c in enumerate(coeffs[k1:], start=k1)), 0)
    out = (arb(s1) * hb + arb(s0) * shift) if s0 else arb(0)
    k0 = max(0, _int_floor(-shift.upper() / hb) - node.offset - 1)
    for k in range(k0, min(k1, len(coeffs))):
        v = (node.offset + k) * hb + shift
        out += int(coeffs[k]) * arith.positive_part(v)
    return out / arb(2) ** node.bits


def _lower_value(lo: _Node, resid: tuple, n: int, hq: fmpq, g: arb) -> fmpq:
    """The lower end ``E[(Σ Y_lo)_+]/(γn)`` from the lower side's n-fold node, with the residual shift: the
    residuals ``r_i ≥ 0`` sum to ``≥ c = nE[r] − u`` except with probability ``η = 2^-ETA_BITS`` (Bernstein).
    O(length of the node)."""
    hb = arb(hq)
    rmean, rsq, rmax = resid
    log_eta = arb(2).log() * ETA_BITS
    b3 = rmax * log_eta / 3
    u = b3 + (b3 * b3 + 2 * n * rsq * log_eta).sqrt()
    c = n * rmean.lower() - u
    if c > 0:
        e_lo = _positive_mean(lo, hq, c.lower())
        e_lo -= (max(0, lo.top) * hb * n + c.upper()) * arb(2) ** -ETA_BITS
    else:
        e_lo = _positive_mean(lo, hq, arb(0))
    d_lo = e_lo / (g * n)
    return max(fmpq(0), _q(d_lo.lower(), up=False)) if d_lo.lower() > 0 else fmpq(0)


def _q(x: arb, up: bool) -> fmpq:
    man, ex = x.mid().man_exp()
    m, e = int(man), int(ex)
    v = fmpq(m * 2**e) if e >= 0 else fmpq(m, 2 ** (-e))
    r = x.rad()
    if r != 0:
        rm, re_ = r.mid().man_exp()
        rv = fmpq(int(rm) * 2 ** int(re_)) if int(re_) >= 0 else fmpq(int(rm), 2 ** (-int(re_)))
        v = v + rv if up else v - rv
    return v


def blanket_view(
    mech: Continuous,
    n: int,
    *,
    epsilon: fmpq | None = None,
    exp_epsilon: arb | fmpq | None = None,
    x: object = 0,
    x2: object = 1,
    h: object = DEFAULT_H,
    align: bool = True,
    drop_bits: int | None = None,
    bits: int | None = None,
) -> ViewEnclosure:
    """An enclosure ``[lower, upper]`` of ``δ_BV(ε)`` for the pair ``(x, x2)`` (default ``(0, 1)``) and lattice step ``h``.

    ``align`` (Laplace): use the step :func:`aligned_step` (``≤ h``) that puts the law's atoms on the lattice; the
    returned ``h`` is the step used.  ``drop_bits``: each window of a partial sum keeps all but ``2^-drop_bits`` of
    its mass on either side (default ``DROP``; :func:`epsilon_bracket` sets it from δ); what is left out is carried
    rigorously either way, so this only trades width for speed.  ``bits``: masses are integers times ``2^-bits``
    (default ``BITS``); each product's floors lose < 1 unit per coefficient, carried rigorously at the largest
    value (a smaller ``bits`` is faster and wider by about ``Σ lengths · 2^-bits · max L / γ``).

    ``epsilon`` exact (≥ 0) or ``exp_epsilon`` a ball/exact ≥ 1.  Halving ``h`` narrows the enclosure
    (about fourfold: both sides' errors are second order in ``h``, except the lower side's Hoeffding shift,
    first order in ``h√n``).  Cost: see the module docstring.
    """
    n = arith.integer_in(n, "n", lo=1)
    xq = Continuous.check_input(x, "x")
    x2q = Continuous.check_input(x2, "x2")
    if xq == x2q:
        raise InvalidArgument("x2", x2, "must differ from x (a neighbouring pair changes the input)")
    hq = arith.exact_in(h, "h", lo=0)
    if hq == 0:
        raise InvalidArgument("h", h, "must be > 0 (the lattice step)")
    if isinstance(mech, Gaussian) and {xq, x2q} != {fmpq(0), fmpq(1)}:
        raise InvalidArgument(
            "x",
            x,
            "must be 0 or 1 with x2 the other one for the Gaussian mechanism (the pair whose L is monotone on each piece)",
        )
    if isinstance(mech, Gaussian) and xq == 1:
        xq, x2q = fmpq(0), fmpq(1)  # the reflection y -> 1 - y maps (1, 0) to (0, 1)
    if (epsilon is None) == (exp_epsilon is None):
        raise InvalidArgument("epsilon", epsilon, "must be given (or exp_epsilon instead), not both or neither")
    if epsilon is not None:
        eq = arith.exact_in(epsilon, "epsilon", lo=0)
        ee = arith.exp_ball(eq)
    else:
        ee = arith.ball(arith.exact(exp_epsilon) if not isinstance(exp_epsilon, arb) else exp_epsilon)
        if ee < 1:
            raise InvalidArgument("exp_epsilon", exp_epsilon, "must be >= 1")
    nb = BITS if bits is None else arith.integer_in(bits, "bits", lo=32, hi=4096)
    db = min(DROP, nb - 8) if drop_bits is None else arith.integer_in(drop_bits, "drop_bits", lo=8, hi=nb - 8)
    check_cost(mech, ee, hq)
    with arith.precision(192):
        if align:
            hq = aligned_step(mech, xq, x2q, ee, hq)
        up_law, lo_law, corr, resid, ncells = leaf_laws(mech, xq, x2q, ee, hq, nb)
        g = mech.gamma()
        up = _power(up_law, n, "upper", db)
        lo = _power(lo_law, n, "lower", db)
        hb = arb(hq)
        # upper
        e_up = _positive_mean(up, hq, arb(0))
        top_val = max(0, up.top) * hb
        e_up += arb(up.drop) * top_val
        d_up = e_up / (g * n) + corr
        lower = _lower_value(lo, resid, n, hq, g)
        upper = _q(d_up.upper(), up=True)
    return ViewEnclosure(lower, upper, hq, ncells, max(up.poly.length(), lo.poly.length()))


#: the largest lattice length of one copy's law (range of L over h) an enclosure is attempted for
MAX_LEAF_LENGTH = 2**20


def _log_ratio_top(mech: Continuous) -> float:
    """A float estimate of ``x0``, the log of L's largest likelihood ratio: ``ε0`` (Laplace) or
    ``(1 + 2T)/(2σ²)`` (Gaussian, ``T = GAUSS_CUT·σ``).  It only steers effort.  O(1)."""
    if isinstance(mech, Laplace):
        return float(mech.epsilon0)
    assert isinstance(mech, Gaussian)
    sg = float(mech.sigma)
    return (1 + 2 * GAUSS_CUT * sg) / (2 * sg * sg)


def check_cost(mech: Continuous, ee: arb, h: fmpq) -> None:
    """Refuse (:class:`~blanket.exact.runtime.budget.TooExpensive`) a view whose one-copy law would span more than
    ``MAX_LEAF_LENGTH`` lattice points: the range of L is about ``γ·e^{x0}·(1 + e^ε)`` with ``x0 = ε0`` (Laplace) or
    ``(1 + 2T)/(2σ²)`` (Gaussian, ``T = 6σ``), a float estimate in logarithms (it only steers effort).  O(1)."""
    with arith.precision(64):
        le = float(arith.ball(ee).log().upper())
        lg = float(mech.gamma().log().upper())
    x0 = _log_ratio_top(mech)
    log_len = lg + x0 + (le if le > 30 else math.log1p(math.exp(le))) - math.log(float(h))
    if log_len > math.log(MAX_LEAF_LENGTH):
        raise TooExpensive(
            f"the blanket view of {mech!r} at e^epsilon = {float(arith.ball(ee).mid()):.4g} would span about "
            f"e^{log_len:.1f} lattice points (limit {MAX_LEAF_LENGTH}): L's range grows like e^epsilon0 (Laplace) or "
            "e^(1/(2 sigma^2)) (Gaussian); use a smaller epsilon or epsilon0, a larger sigma or a coarser lattice step"
        )


@dataclass(frozen=True)
class EpsilonBracket:
    """``ε_lo ≤ ε_BV(δ) ≤ ε_hi`` for the blanket view's ``ε_BV(δ) = inf{ε : δ_BV(ε) ≤ δ}``: ``δ_BV(ε_hi) ≤ δ`` and
    ``δ_BV(ε_lo) > δ`` are certified (``ε_lo = 0`` when nothing above 0 was certified); ``evaluations`` views."""

    lo: fmpq
    hi: fmpq
    h: fmpq
    evaluations: int

    def rel_width(self) -> float:
        """``(ε_hi − ε_lo)/ε_hi``."""
        return float((self.hi - self.lo) / self.hi)


def _clt_guess(mech: Continuous, n: int, delta: float) -> float:
    """A float guess of ε_BV(δ) from the normal approximation of the sum (only a starting point)."""
    g = float(mech.gamma().mid())
    if isinstance(mech, Laplace):
        e0 = float(mech.epsilon0)
        s2 = (2 * math.exp(e0 / 2) + math.exp(-e0)) / 3 * 2 - 2 * (2 * math.exp(-e0 / 2) - math.exp(-e0))
    else:
        assert isinstance(mech, Gaussian)
        # E_ω[L²] at ε = 0: 2γ(e^{1/σ²}Φ(3/(2σ)) − 2Φ(1/(2σ)) + Φ(−1/(2σ)))
        sg = float(mech.sigma)

        def ncdf(z: float) -> float:
            return 0.5 * math.erfc(-z / math.sqrt(2))

        s2 = 2 * g * (math.exp(1 / sg**2) * ncdf(1.5 / sg) - 2 * ncdf(0.5 / sg) + ncdf(-0.5 / sg))

    def d(eps: float) -> float:
        m = n * g * (1 - math.exp(eps))
        sd = math.sqrt(n * g * max(s2, 1e-9))
        z = m / sd
        return (sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) + m * 0.5 * math.erfc(-z / math.sqrt(2))) / (g * n)

    lo, hi = 0.0, 1.0
    while d(hi) > delta and hi < 64:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return hi


def view_bits(mech: Continuous, n: int, delta: float, epsilon: float, h: object = DEFAULT_H) -> tuple[int, int]:
    """``(bits, drop_bits)`` for a :func:`blanket_view` near ``δ``.  What the windows leave out is carried at the
    largest value ``n·max L`` (``max L ≈ γe^{x0}(1 + e^ε)``, see :func:`check_cost`); with the per-node share of
    :func:`_product` it adds at most about ``2log2(n)·2^-drop·max L/γ``; what the floors lose (< 1 unit per
    coefficient per product, a node entering ``n/count`` times) adds at most about
    ``4n·(max L/h)·2^-bits·max L/γ``.  Both are set ``≤ 2^-24·δ``.  A float estimate: it only sets the effort,
    the enclosure is certified for any values.  O(1)."""
    x0 = _log_ratio_top(mech)
    lg = math.log2(float(mech.gamma().mid()))
    log2_max = (x0 + min(epsilon, 700.0)) / math.log(2) + 1 + lg
    tail = log2_max - lg - math.log2(delta) + 24
    drop = int(math.ceil(math.log2(2 * max(2, n).bit_length()) + tail))
    bits = int(math.ceil(math.log2(4 * n) + log2_max - math.log2(float(arith.exact(h))) + tail))
    drop = max(32, min(drop, DROP))
    return max(64, min(bits, 2 * BITS)), drop


def _float_view(mech: Continuous, n: int, eps: float, h: fmpq, x: fmpq, x2: fmpq) -> tuple[float, float]:
    """A float *estimate* ``(lower, upper)`` of the two lattice laws' ``δ`` at ``ε`` (numpy FFT of the same leaf
    laws, circular on a window of ``±40`` standard deviations plus the law's range; no windows, floors or
    residual shift).  It only steers :func:`epsilon_bracket` to where the certified evaluations go; it never
    certifies anything.  O(leaf laws) + O(N log N), ``N ≈ 80σ_S/h``."""
    import numpy as np

    out = []
    with arith.precision(64):
        ee = arith.exp_ball(_rat(eps))
        hq = aligned_step(mech, x, x2, ee, h)
        up, lo, corr, _, _ = leaf_laws(mech, x, x2, ee, hq, 60)
        g = float(mech.gamma().mid())
        hf = float(hq)
        for law in (lo, up):
            p = np.array([float(u) for u in law.units]) / 2.0**60
            p /= p.sum()
            idx = np.arange(len(p)) + law.offset
            mu = float(p @ idx)
            sd = math.sqrt(max(float(p @ (idx - mu) ** 2), 1e-12) * n)
            N = 1 << int(math.ceil(math.log2(80 * sd + 8 * len(p) + 64)))
            P = np.fft.rfft(p, N) ** n
            q = np.fft.irfft(P, N)
            # circular index j stands for the sum index k = n·offset + j (mod N), placed around the mean
            base = n * law.offset
            k = base + np.arange(N)
            k = k - N * np.floor((k - (n * mu - N / 2)) / N)
            e_pos = float(np.clip(q, 0, None) @ np.clip(k * hf, 0, None))
            out.append(e_pos / (g * n) + (float(corr.mid()) if law is up else 0.0))
    return out[0], out[1]


def _float_roots(mech: Continuous, n: int, delta: float, h: fmpq, x: fmpq, x2: fmpq, guess: float) -> tuple | None:
    """Float estimates ``(ε_lower_law, ε_upper_law)`` where the two lattice laws' δ (:func:`_float_view`) cross
    ``δ``: secant steps on ``log δ`` from the normal-approximation guess, bisection when a step leaves the
    bracket; ``None`` when it does not settle.  A guess only.  O(about 8 float views)."""
    ld = math.log(delta)
    memo: dict = {}

    def f(e: float, side: int) -> float:
        if e not in memo:
            memo[e] = _float_view(mech, n, e, h, x, x2)
        v = memo[e][side]
        return math.log(v) - ld if v > 0 else -1e3

    roots = []
    start = guess
    for side in (1, 0):  # the upper law first; the lower law's root lies just below it
        a, fa = start, f(start, side)
        b = a * ((1.02 if fa > 0 else 0.98) if side else (1 - 1e-3))
        fb = f(b, side)
        lo_b = hi_b = None  # a bracket: f(lo_b) > 0 >= f(hi_b)
        for e, fe in ((a, fa), (b, fb)):
            if fe > 0 and (lo_b is None or e > lo_b):
                lo_b = e
            if fe <= 0 and (hi_b is None or e < hi_b):
                hi_b = e
        for _ in range(30):
            if fa == fb:
                return None
            c = b - fb * (b - a) / (fb - fa)
            if lo_b is not None and hi_b is not None and not (lo_b < c < hi_b):
                c = (lo_b + hi_b) / 2
            elif c <= 0 or not math.isfinite(c):
                c = min(a, b) / 2
            fc = f(c, side)
            if fc > 0 and (lo_b is None or c > lo_b):
                lo_b = c
            if fc <= 0 and (hi_b is None or c < hi_b):
                hi_b = c
            a, fa, b, fb = b, fb, c, fc
            if abs(b - a) <= 1e-6 * abs(b) or abs(fb) < 1e-6:
                break
        else:
            return None
        roots.append(b)
        start = b
    return roots[1], roots[0]


def _rat(x: float) -> fmpq:
    return fmpq(int(round(x * 2**40)), 2**40)


def epsilon_bracket(
    mech: Continuous,
    n: int,
    delta: object,
    *,
    h: object = DEFAULT_H,
    rel_tol: float = 1e-3,
    max_evaluations: int = 12,
    x: object = 0,
    x2: object = 1,
) -> EpsilonBracket:
    """A certified bracket of the blanket view's ε at ``δ`` (:class:`EpsilonBracket`), for lattice step ``h``.

    Secant steps on ``log δ_BV`` for each side (one :func:`blanket_view` per step gives both ends), from a
    normal-approximation guess; stops when ``(ε_hi − ε_lo)/ε_hi ≤ rel_tol`` or after ``max_evaluations``
    views (the lattice's own width then limits the bracket: halve ``h``).  The search is one-sided: a
    reported ``ε_hi`` is certified, never interpolated.
    """
    dq = arith.exact_in(delta, "delta", lo=0)
    if dq == 0 or dq >= 1:
        raise InvalidArgument("delta", delta, "must be in (0, 1)")
    ld = math.log(float(dq))
    guess = _clt_guess(mech, n, float(dq))
    bits, drop = view_bits(mech, n, float(dq), 2 * guess, h)
    hi: fmpq | None = None
    lo = fmpq(0)
    pts_up: list = []
    pts_lo: list = []
    evals = 0

    def evaluate(eps: float) -> None:
        nonlocal hi, lo, evals
        e = _rat(max(eps, 1e-12))
        v = blanket_view(mech, n, epsilon=e, h=h, x=x, x2=x2, bits=bits, drop_bits=drop)
        evals += 1
        if v.upper <= dq and (hi is None or e < hi):
            hi = e
        if v.lower > dq and e > lo:
            lo = e
        if v.upper > 0:
            pts_up.append((float(e), math.log(float(v.upper)) - ld))
        if v.lower > 0:
            pts_lo.append((float(e), math.log(float(v.lower)) - ld))

    def secant(pts: list, bias: float) -> float | None:
        if len(pts) < 2:
            return None
        (e1, f1), (e2, f2) = sorted(pts, key=lambda p: abs(p[1]))[:2]
        if f1 == f2:
            return None
        return (e1 - f1 * (e2 - e1) / (f2 - f1)) * (1 + bias)

    # the float estimate of both laws' roots on the same lattice; then one certified view just above the upper
    # law's root and one just below the lower law's (each retried a little farther out if it misses)
    xq, x2q = Continuous.check_input(x, "x"), Continuous.check_input(x2, "x2")
    if isinstance(mech, Gaussian) and xq == 1:
        xq, x2q = x2q, xq
    try:
        roots = _float_roots(mech, n, float(dq), arith.exact_in(h, "h", lo=0), xq, x2q, guess)
    except (ValueError, OverflowError, ZeroDivisionError):  # pragma: no cover - a float guess only
        roots = None
    if roots is not None:
        r_lo, r_hi = roots
        s = 1e-5
        while evals < max_evaluations and (hi is None or lo == 0) and s < 0.1:
            if hi is None:
                evaluate(r_hi * (1 + s))
            if lo == 0 and evals < max_evaluations:
                evaluate(r_lo * (1 - s))
            s *= 8
        if hi is not None and lo > 0:
            return EpsilonBracket(lo, hi, arith.exact_in(h, "h"), evals)
    evaluate(guess * 1.02)
    evaluate(guess * 0.98)
    while evals < max_evaluations:
        if hi is not None and lo > 0 and float((hi - lo) / hi) <= rel_tol:
            break
        nxt_hi = secant(pts_up, rel_tol / 8)
        nxt_lo = secant(pts_lo, -rel_tol / 8)
        todo = []
        if hi is None or (nxt_hi is not None and nxt_hi < float(hi) * (1 - rel_tol / 16)):
            todo.append(nxt_hi if nxt_hi is not None else float(hi or guess) * 1.5)
        if nxt_lo is not None and nxt_lo > float(lo) * (1 + rel_tol / 16) and (hi is None or nxt_lo < float(hi)):
            todo.append(nxt_lo)
        if not todo:
            break
        for e in todo:
            if evals < max_evaluations:
                evaluate(e)
    if hi is None:
        raise InvalidArgument(
            "delta", delta, f"was not certified within {max_evaluations} evaluations (raise max_evaluations)"
        )
    return EpsilonBracket(lo, hi, arith.exact_in(h, "h"), evals)


# ---------------------------------------------------------------- the mechanism's lower end: quantised outputs
def quantised_rr(mech: Continuous) -> KRR:
    """The binary randomizer ``x ↦ 1[R(x) ≥ 1/2]`` on the inputs {0, 1}, as binary RR with a *rational*
    ``e^{ε0'}`` at or below its true level ``P(R(0) < 1/2)/P(R(0) ≥ 1/2)`` (``2e^{ε0/2} − 1`` for Laplace,
    ``Φ(1/(2σ))/Φ(−1/(2σ))`` for Gaussian).  Binary RR at a lower level is a post-processing of the one at the
    true level, which is a post-processing (thresholding) of the mechanism on {0, 1}: by data processing every
    shuffled δ of the returned record on datasets in {0, 1}^n is ≤ the mechanism's.  O(1)."""
    with arith.precision(128):
        if isinstance(mech, Laplace):
            r = 2 * (arb(mech.epsilon0) / 2).exp() - 1
        elif isinstance(mech, Gaussian):
            z = 1 / (2 * arb(mech.sigma))
            r = normal_cdf(z) / normal_cdf(-z)
        else:
            raise InvalidArgument("mech", mech, "must be a Laplace or Gaussian record (exact.mechanisms.continuous)")
        q = fmpq(_int_floor(r.lower() * arb(2) ** 40), 2**40)
    return KRR(2, exp_epsilon0=q)


def quantised_epsilon_lower(mech: Continuous, n: int, delta: object) -> fmpq:
    """A certified lower bound on the shuffled mechanism's ε at ``δ`` (for all datasets): the certified lower end of
    the calibration of the thresholded binary randomizer (:func:`quantised_rr`) on the concrete pair of datasets
    ``0^n`` vs ``1·0^{n−1}`` (the "same" family of :func:`blanket.exact.shuffled.krr.calibrate_epsilon`, exact δ):
    its δ exceeds ``δ`` there, and the mechanism's δ on the same datasets is at least as large.  The threshold
    1/2 is the symmetric one (other thresholds give asymmetric binary channels, which the binary engine does not
    take).  Cost: one calibration, O(√n) per evaluation."""
    with arith.precision(128):
        br = calibrate_epsilon(
            quantised_rr(mech), arith.integer_in(n, "n", lo=2), arith.exact(delta), view="same", rel_tol="1e-4"
        )
    return br.lower
