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
from flint import arb, fmpq, fmpz, fmpz_poly

__all__ = [
    "quantised_rr",
    "quantised_epsilon_lower",
    "ViewEnclosure",
    "EpsilonBracket",
    "blanket_view",
    "cells",
    "leaf_laws",
    "epsilon_bracket",
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


def _split(mech, x, x2, ee, u: fmpq, v: fmpq, h: fmpq, out: list, depth: int = 0) -> None:
    c = _cell(mech, x, x2, ee, arb(u), arb(v))
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


def _units(p: arb, up: bool) -> int:
    """``⌈p·2^B⌉`` (upper end) or ``max(0, ⌊p·2^B⌋)`` (lower end)."""
    s = p * arb(2) ** BITS
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


def leaf_laws(mech: Continuous, x: fmpq, x2: fmpq, ee: arb, h: fmpq) -> tuple:
    """``(upper, lower, correction_up, resid_mean, resid_max, ncells)``: the two lattice laws of ``Y``,
    the upper side's per-user correction (Gaussian tail; ``0`` for Laplace), the lower side's residual
    mean (a ball) and the residual bound.  O(cells)."""
    finite, infinite = cells(mech, x, x2, ee, h)
    g = mech.gamma()
    up: dict[int, int] = {0: _units(1 - g, True)}
    lo: dict[int, int] = {0: _units(1 - g, False)}
    corr = arb(0)
    rmean = arb(0)
    rmax = arb(0)
    rsq = arb(0)
    hb = arb(h)

    def add(d, k, u):
        d[k] = d.get(k, 0) + u

    def spread(gm, mean, lo_v, hi_v):
        a, b = _int_floor(lo_v.lower() / hb), _int_ceil(hi_v.upper() / hb)
        if a == b:
            add(up, a, _units(gm, True))
            return
        ph = gm * (mean - a * hb) / ((b - a) * hb)
        add(up, b, _units(ph, True))
        add(up, a, _units(gm - ph, True))

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
            add(up, _int_ceil(val.upper() / hb), _units(c.g, True))
    chunks, used = _chunks(pts, hb, 1 - g)
    lo[0] = _units(1 - g - used, False)
    for k, gm, r in chunks:
        add(lo, k, _units(gm, False))
        rmean += gm * r
        rsq += gm * r * r
        rmax = r.upper() if r.upper() > rmax else rmax
    return _law(up), _law(lo), corr, (rmean, rsq, rmax), len(finite) + len(infinite)


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


def _law(d: dict) -> LeafLaw:
    ks = [k for k, u in d.items() if u > 0]
    a, b = min(ks), max(ks)
    units = [d.get(k, 0) for k in range(a, b + 1)]
    return LeafLaw(a, units, b)


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


def _mass(p: fmpz_poly) -> int:
    return int(p(1)) if p.length() else 0


def _prefix(p: fmpz_poly, k: int) -> int:
    return _mass(p.truncate(k)) if k > 0 else 0


def _window(p: fmpz_poly, offset: int, count: int, mu: float, var: float, thr: int) -> tuple[int, int, int, int]:
    """``(a, b, below, above)``: a window ``[a, b]`` of coefficient indices with at most ``thr`` units below and
    above it (exact integer masses; the float mean and variance only guess it, then it widens until the
    exact masses pass).  O(L) per try."""
    L = p.length()
    total = _mass(p)
    c = 12.0
    sd = math.sqrt(max(var * count, 1.0))
    while True:
        a = max(0, min(L - 1, int(math.floor(mu * count - c * sd)) - offset))
        below = _prefix(p, a)
        if below <= thr or a == 0:
            break
        c *= 1.25
    c = 12.0
    while True:
        b = max(a, min(L - 1, int(math.ceil(mu * count + c * sd)) - offset))
        above = total - _prefix(p, b + 1)
        if above <= thr or b == L - 1:
            break
        c *= 1.25
    return a, b, below, above


def _product(A: _Node, B: _Node, side: str) -> _Node:
    C = A.poly * B.poly
    # floor: the upper side carries what the floors lost (< 1 unit per coefficient of the full product, whose length
    # is len(A) + len(B) - 1 before the floor can trim it) at the largest possible value, with the dropped mass
    lost = A.poly.length() + B.poly.length() - 1 if side == "upper" else 0
    C = C // (fmpz(2) ** BITS)
    off = A.offset + B.offset
    count = A.count + B.count
    a, b, below, above = _window(C, off, count, A.mu, A.var, 1 << (BITS - DROP))
    W = C.truncate(b + 1).right_shift(a) if a > 0 else C.truncate(b + 1)
    drop = fmpq(0)
    if side == "upper":
        W = W + fmpz_poly([below])
        drop = fmpq(above + lost, 1 << BITS)
        ma, mb = fmpq(_mass(A.poly), 1 << BITS), fmpq(_mass(B.poly), 1 << BITS)
        drop += A.drop * mb + B.drop * ma + A.drop * B.drop
    else:
        W = W + fmpz_poly([0] * (b - a) + [above])
    return _Node(off + a, W, A.top + B.top, drop, count, A.mu, A.var)


def _power(leaf: LeafLaw, n: int, side: str) -> _Node:
    tot = sum(leaf.units)
    mu = sum(u * (leaf.offset + i) for i, u in enumerate(leaf.units)) / tot
    var = sum(u * (leaf.offset + i - mu) ** 2 for i, u in enumerate(leaf.units)) / tot
    base = _Node(leaf.offset, fmpz_poly(leaf.units), leaf.top, fmpq(0), 1, mu, var)
    acc: _Node | None = None
    while True:
        if n & 1:
            acc = base if acc is None else _product(acc, base, side)
        n >>= 1
        if not n:
            break
        base = _product(base, base, side)
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
    return out / arb(2) ** BITS


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
) -> ViewEnclosure:
    """An enclosure ``[lower, upper]`` of ``δ_BV(ε)`` for the pair ``(x, x2)`` (default ``(0, 1)``) and lattice step ``h``.

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
    check_cost(mech, ee, hq)
    with arith.precision(192):
        up_law, lo_law, corr, resid, ncells = leaf_laws(mech, xq, x2q, ee, hq)
        g = mech.gamma()
        up = _power(up_law, n, "upper")
        lo = _power(lo_law, n, "lower")
        hb = arb(hq)
        # upper
        e_up = _positive_mean(up, hq, arb(0))
        top_val = max(0, up.top) * hb
        e_up += arb(up.drop) * top_val
        d_up = e_up / (g * n) + corr
        # lower: the residuals r_i >= 0 sum to >= c = n E[r] - u except w.p. eta (Bernstein)
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
        lower = max(fmpq(0), _q(d_lo.lower(), up=False)) if d_lo.lower() > 0 else fmpq(0)
        upper = _q(d_up.upper(), up=True)
    return ViewEnclosure(lower, upper, hq, ncells, max(up.poly.length(), lo.poly.length()))


#: the largest lattice length of one copy's law (range of L over h) an enclosure is attempted for
MAX_LEAF_LENGTH = 2**20


def check_cost(mech: Continuous, ee: arb, h: fmpq) -> None:
    """Refuse (:class:`~blanket.exact.runtime.budget.TooExpensive`) a view whose one-copy law would span more than
    ``MAX_LEAF_LENGTH`` lattice points: the range of L is about ``γ·e^{x0}·(1 + e^ε)`` with ``x0 = ε0`` (Laplace) or
    ``(1 + 2T)/(2σ²)`` (Gaussian, ``T = 6σ``), a float estimate in logarithms (it only steers effort).  O(1)."""
    with arith.precision(64):
        le = float(arith.ball(ee).log().upper())
        lg = float(mech.gamma().log().upper())
    if isinstance(mech, Laplace):
        x0 = float(mech.epsilon0)
    else:
        assert isinstance(mech, Gaussian)
        sg = float(mech.sigma)
        x0 = (1 + 2 * GAUSS_CUT * sg) / (2 * sg * sg)
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
        s2 = 2.0 * math.exp(1 / float(mech.sigma) ** 2)

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
    hi: fmpq | None = None
    lo = fmpq(0)
    pts_up: list = []
    pts_lo: list = []
    evals = 0

    def evaluate(eps: float) -> None:
        nonlocal hi, lo, evals
        e = _rat(max(eps, 1e-12))
        v = blanket_view(mech, n, epsilon=e, h=h, x=x, x2=x2)
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
