"""Worst-case privacy curves and the finite pairs they define (``docs/composition.md`` §5d).

A *privacy curve* is ``E(α) = sup H_α(M(D)‖M(D'))`` over ordered neighbouring datasets, ``α ≥ 0``.  It is convex,
non-increasing, ``E(0) = 1`` and ``E(α) ≥ (1 − α)_+``.  Every convex piecewise-linear curve with that boundary
behaviour is the hockey-stick curve of a *finite* pair ``(P, Q)`` (Zhu–Dong–Wang 2022; Doroshenko et al. 2022), and a
pair whose curve lies above ``E`` at every ``α`` dominates the mechanism, so the composition theorem of
``docs/composition.md`` §2 applies to its products.  Two ways to such a pair, both exact in rationals:

* :func:`pair_from_values` -- certified upper values ``U_j ≥ E(α_j)`` at grid points (any mix of certified bounds,
  the smallest at each point): the greatest convex minorant of the points, with ``(0, 1)``, the reflected points
  ``(1/α, 1 − 1/α + U/α)`` and ``(α_max, 0)`` for ``α_max ≥ e^{ε0}``, lies above ``E`` (``E`` is a convex minorant of
  the same points).
* :func:`pair_from_roc` -- certified *outer* points ``(x̲, ȳ)`` of the mechanism's tests (every pair of datasets and
  every rejection region: ``x = Q(S) ≥ x̲``, ``y = P(S) ≤ ȳ``): ``E(α) = sup (y − αx) ≤ sup (ȳ − αx̲)``, the support
  function of the upper concave hull of the outer points, which is the pair's curve.

:class:`FinitePair` holds the atoms ``(ratio, P, Q)`` (ratio ``None`` is the atom at ``+∞``: ``Q = 0``), evaluates its
``H_α`` exactly, and discretises its privacy loss ``log(P/Q)`` onto a grid on either side of a PLD sandwich
(:class:`~blanket.exact.accounting.pld.PLD`): the pessimistic side rounds each loss up (an upper ball end, so it is
never below the true loss) and ceils the survival function, the optimistic side rounds down and floors.

Complexity: the hulls are ``O(m log m)`` exact rational operations for ``m`` points; :meth:`FinitePair.discretise`
``O(a + J)`` for ``a`` atoms and ``J`` grid points.

>>> from flint import fmpq
>>> pr = pair_from_values([(fmpq(2), fmpq(1, 10))], alpha_max=fmpq(3))
>>> [pr.hockey_stick(a) for a in (0, 1, 2, 3)]
[1, 2/5, 1/10, 0]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from blanket.exact.accounting import curve_steps
from blanket.exact.accounting.pld import DEFAULT_TRUNCATION, PLD, SCALE_BITS, parse_grid
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import first_true
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import NumberInput
from blanket.exact.runtime.executors import map_blocks
from blanket.exact.shuffled.binary import worst_case_tests
from blanket.exact.shuffled.krr import delta_blanket_view
from flint import arb, ctx, fmpq, fmpz_poly
from threadpoolctl import threadpool_limits


def _q(x: object, name: str) -> fmpq:
    v = arith.exact(x, name)
    return v if isinstance(v, fmpq) else fmpq(v)


def _cross(o: tuple, a: tuple, b: tuple) -> fmpq:
    """``(a − o) × (b − o)``: > 0 for a left turn."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@dataclass(frozen=True)
class FinitePair:
    """A finite pair ``(P, Q)``: ``masses``, atoms ``(ratio, p, q)`` with exact masses (``ratio = p/q``; ``None`` at ``+∞``).

    ``H_α(P‖Q) = Σ (p − α q)_+`` (:meth:`hockey_stick`, exact).  ``description`` names the curve it came from.
    """

    masses: tuple
    description: str = ""
    kind: str = "curve"

    def atoms(self) -> list:
        """``[(key, P, Q)]`` as :meth:`blanket.exact.accounting.pld.ShiftPair.atoms` (key: ``(ratio,)``)."""
        return [((r,), p, q) for r, p, q in self.masses]

    @property
    def max_ratio(self) -> fmpq | None:
        """The largest finite likelihood ratio (``None`` if there is none)."""
        rs = [r for r, p, q in self.masses if r is not None and p > 0]
        return max(rs) if rs else None

    def max_loss(self) -> arb:
        """A ball containing the largest finite privacy loss ``log(max ratio)`` (refused with mass at ``+∞``)."""
        if self.mass_at_infinity > 0 or self.max_ratio is None:
            raise InvalidArgument("pair", self.description, "has mass at +infinity: its loss is unbounded")
        return arith.ball(self.max_ratio).log()

    @property
    def mass_at_infinity(self) -> fmpq:
        return sum((p for r, p, q in self.masses if r is None), fmpq(0))

    def hockey_stick(self, alpha: NumberInput) -> fmpq:
        """``H_α(P‖Q)``, exact.  O(atoms)."""
        a = _q(alpha, "alpha")
        if a < 0:
            raise InvalidArgument("alpha", str(a), "must be >= 0")
        return sum((p - a * q for r, p, q in self.masses if p - a * q > 0), fmpq(0))

    def discretise(
        self,
        grid: NumberInput,
        side: str,
        *,
        prec: int = 128,
        bits: int = SCALE_BITS,
        truncation: NumberInput = DEFAULT_TRUNCATION,
        split: bool = False,
    ) -> PLD:
        """The pair's PLD on the grid ``jΔ``: ``side="upper"`` pessimistic, ``"lower"`` optimistic (docs/composition.md §3).

        Upper: each loss ``log r`` rounded up to the grid from the upper end of its ball, survival
        ``Ŝ_j = ⌈2^bits·P(L̃ > t_j)⌉`` (exact rationals), the atom at ``+∞`` kept there.  Lower: rounded down from the
        lower end, survival floored, the atom at ``+∞`` placed on the highest grid point (a smaller loss: still a
        lower bound of every non-decreasing integrand).  Before the scaling, the tails of exact ``P``-mass at most
        ``truncation/4`` each are moved as :meth:`PLD._truncate` moves a product's (upper: the high tail to ``+∞``,
        the low tail up to the first kept point; lower: both dropped), so that a far atom of negligible mass does
        not widen every product of a composition.  O(atoms + J) exact operations.

        ``split`` (upper side only): each atom whose loss lies between two grid points ``t_j < log r < t_{j+1}`` with
        ``e^{t_{j+1}}`` at most the largest finite ratio is *split* into atoms at the ratios ``a = e^{t_j}`` and
        ``b = e^{t_{j+1}}`` with the same total ``P`` and ``Q`` masses (``P``-mass ``p·b(1 − a/r)/(b − a)`` at ``b``,
        its upper end) instead of being rounded up: the atom is then a post-processing (merging) of the two, so the
        split pair dominates the pair at every α and its products dominate the products ("connect the dots",
        Doroshenko et al. 2022; docs/composition.md §3 "Splitting atoms").  Its error is second order in ``Δ``
        instead of first (rounding up adds about ``Δ/2`` of loss per round).  The other atoms are rounded up.
        """
        if side not in ("upper", "lower"):
            raise InvalidArgument("side", side, "must be 'upper' or 'lower'")
        g = parse_grid(grid)
        up = side == "upper"
        idx: dict[int, fmpq] = {}
        inf = fmpq(0)
        if split and not up:
            raise InvalidArgument("split", split, "applies to the upper (pessimistic) side only")
        r_top = self.max_ratio if split else None
        with arith.precision(prec):
            gb = arith.ball(g)
            top_lo = arith.endpoints(arith.ball(r_top).log())[0] if r_top is not None else None
            for r, p, _q0 in self.masses:
                if p == 0:
                    continue  # no P-mass: no loss value (ratio 0 is loss -inf)
                if r is None:
                    inf += p
                    continue
                lo, hi = arith.endpoints(arith.ball(r).log() / gb)
                j = -((-hi.numerator) // hi.denominator) if up else lo.numerator // lo.denominator
                jl = lo.numerator // lo.denominator
                if top_lo is not None and j - jl == 1 and arith.endpoints(j * gb)[1] <= top_lo:
                    p2 = _split_upper(r, p, jl, j, gb)
                    idx[j] = idx.get(j, fmpq(0)) + p2
                    idx[jl] = idx.get(jl, fmpq(0)) + (p - p2)
                    continue
                idx[j] = idx.get(j, fmpq(0)) + p
        if not idx and inf == 0:
            raise InvalidArgument("pair", self.description, "has no mass under P")
        inf += _cut_tails(idx, arith.exact(truncation) / 4, up)  # upper side: the high tail goes to +inf
        if not up and inf > 0:
            top = max(idx) if idx else 0
            idx[top] = idx.get(top, fmpq(0)) + inf
            inf = fmpq(0)
        j0, j1 = min(idx), max(idx)
        scale = fmpq(2) ** bits
        # survival S_i = P(L > t_{j0+i}) for i = 0..J-1 (plus the +inf mass), exact; then scaled
        masses = [idx.get(j, fmpq(0)) for j in range(j0, j1 + 1)]
        ints = []
        if up:
            tail = inf
            S = []
            for m in reversed(masses):
                S.append(tail)  # P(L > t) for the point t of this mass
                tail += m
            S.reverse()
            Si = [_ceil(s * scale) for s in S]
            total = 1 << bits
            ints = [total - Si[0]] + [Si[i - 1] - Si[i] for i in range(1, len(Si))]
            inf_int = Si[-1]
            if total - Si[0] < 0:  # the pair's total P-mass is 1: cannot happen for a valid pair
                raise InvalidArgument("pair", self.description, "has P-mass above 1")
        else:
            tail = fmpq(0)
            Sge = []
            for m in reversed(masses):
                tail += m
                Sge.append(tail)  # P(L >= t)
            Sge.reverse()
            Si = [_floor(s * scale) for s in Sge] + [0]
            ints = [Si[i] - Si[i + 1] for i in range(len(masses))]
            inf_int = 0
        pld = PLD(g, j0, fmpz_poly(ints), inf_int, side, bits=bits, prec=prec)
        return pld

    def discretise_both(self, grid: NumberInput, *, prec: int = 128, split: bool = False) -> tuple:
        """``(upper, lower)`` PLDs (:meth:`discretise`; ``split`` for the upper one)."""
        return self.discretise(grid, "upper", prec=prec, split=split), self.discretise(grid, "lower", prec=prec)


def _split_upper(r: fmpq, p: fmpq, jl: int, jh: int, g: arb) -> fmpq:
    """The ``P``-mass an atom ``(ratio r, P-mass p)`` puts at ``b = e^{jh·g}`` when split between ``a = e^{jl·g} ≤ r``
    and ``b ≥ r`` with its ``P`` and ``Q`` masses kept: ``p·b(1 − a/r)/(b − a)``, the upper end of its ball clipped
    to ``[0, p]`` (more mass at the larger loss: still pessimistic).  O(1) ball operations."""
    a, b = (jl * g).exp(), (jh * g).exp()
    w = b * (1 - a / arith.ball(r)) / (b - a)
    if not w.is_finite():
        return p
    wu = arith.endpoints(w)[1]
    wq = min(fmpq(1), max(fmpq(0), fmpq(wu.numerator, wu.denominator)))
    return p * wq


def _cut_tails(idx: dict, tau: fmpq, up: bool) -> fmpq:
    """Move (``up``) or drop the tails of ``idx`` (grid index → exact ``P``-mass) whose mass is at most ``tau``
    each, in place, always keeping at least one index; return the mass that goes to ``+∞``.  Upper side: the low
    tail's mass is added to the first kept index and the high tail's is returned (moving mass to higher losses keeps
    a pessimistic PLD pessimistic, docs/composition.md §3); lower side: both are dropped (a sub-measure stays
    optimistic), ``0`` returned.  O(atoms log atoms) exact operations."""
    if tau <= 0 or len(idx) < 2:
        return fmpq(0)
    ks = sorted(idx)
    lo, s = 0, fmpq(0)
    while lo < len(ks) - 1 and s + idx[ks[lo]] <= tau:
        s += idx[ks[lo]]
        lo += 1
    low = s
    hi, s = len(ks) - 1, fmpq(0)
    while hi > lo and s + idx[ks[hi]] <= tau:
        s += idx[ks[hi]]
        hi -= 1
    high = s
    for k in ks[:lo] + ks[hi + 1 :]:
        del idx[k]
    if not up:
        return fmpq(0)
    if low > 0:
        idx[ks[lo]] += low
    return high


def _ceil(x: fmpq) -> int:
    return int(-((-x.p) // x.q))


def _floor(x: fmpq) -> int:
    return int(x.p // x.q)


def _pair_from_vertices(verts: list, description: str) -> FinitePair:
    """The pair of a convex, non-increasing piecewise-linear curve through ``verts`` (``(α, value)``, α increasing,
    the first ``(0, 1)``), constant after the last vertex.  Q-mass at vertex ``i`` is the slope increment there,
    P = α·Q, the mass at ``+∞`` is the last value."""
    slopes = [(verts[i + 1][1] - verts[i][1]) / (verts[i + 1][0] - verts[i][0]) for i in range(len(verts) - 1)]
    slopes.append(fmpq(0))
    atoms: list[tuple] = []
    q0 = 1 + slopes[0]
    if q0 > 0:
        atoms.append((fmpq(0), fmpq(0), q0))
    for i in range(1, len(verts)):
        q = slopes[i] - slopes[i - 1]
        if q > 0:
            atoms.append((verts[i][0], verts[i][0] * q, q))
    last = verts[-1][1]
    if last > 0:
        atoms.append((None, last, fmpq(0)))
    return FinitePair(tuple(atoms), description)


def lower_convex_hull(points: Iterable[tuple]) -> list:
    """The vertices of the greatest convex minorant of ``points`` (``(x, y)`` exact), x increasing.  O(m log m)."""
    pts = sorted(set(points))
    hull: list = []
    for pt in pts:
        if hull and hull[-1][0] == pt[0]:
            continue  # same x: the sort put the smaller y first
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], pt) <= 0:
            hull.pop()
        hull.append(pt)
    return hull


def pair_from_values(
    values: Sequence[tuple], *, alpha_max: NumberInput | None, description: str = "privacy curve"
) -> FinitePair:
    """The pair of the greatest convex minorant of certified upper values ``(α_j, U_j)``, ``U_j ≥ E(α_j)``, ``α_j ≥ 1``.

    Adds ``(0, 1)``, the reflections ``(1/α, 1 − 1/α + U/α)`` (``E(1/α) = 1 − 1/α + E(α)/α`` by the symmetry of the
    neighbouring relation) and, when ``alpha_max`` (a rational ``≥ e^{ε0}``) is given, ``(α_max, 0)`` and its reflection
    ``(1/α_max, 1 − 1/α_max)``; beyond the
    last point the curve is constant (``E`` is non-increasing).  Each ``U_j`` is clipped below at ``0`` only if it
    is negative (an invalid upper value is refused).  O(m log m) exact operations.
    """
    pts = [(fmpq(0), fmpq(1))]
    for a, u in values:
        a, u = _q(a, "alpha"), _q(u, "value")
        if a < 1:
            raise InvalidArgument("alpha", str(a), "must be >= 1 (the values below 1 follow by reflection)")
        if u < 0:
            raise InvalidArgument("value", str(u), "must be >= 0 (an upper value of a hockey-stick divergence)")
        pts.append((a, u))
        if a > 1:
            pts.append((1 / a, 1 - 1 / a + u / a))
    if alpha_max is not None:
        am = _q(alpha_max, "alpha_max")
        if am < 1:
            raise InvalidArgument("alpha_max", str(am), "must be >= 1")
        pts.append((am, fmpq(0)))
        pts.append((1 / am, 1 - 1 / am))  # its reflection: E(α) = 1 − α for α ≤ 1/α_max
        pts = [(a, u) for a, u in pts if a <= am]
    verts = lower_convex_hull(pts)
    return _pair_from_vertices(verts, description)


def swapped(pr: FinitePair) -> FinitePair:
    """The pair ``(Q, P)`` of ``pr = (P, Q)`` (the other order of the same two laws; a lower pair stays one).  O(atoms)."""
    masses = tuple((None if p == 0 else (q / p if q > 0 else None), q, p) for r, p, q in pr.masses if q > 0)
    return FinitePair(masses, pr.description + " (backward direction)", kind=pr.kind)


def pair_from_roc(points: Iterable[tuple], description: str = "privacy curve (ROC hull)") -> FinitePair:
    """The pair of the upper concave hull of outer test points ``(x̲, ȳ)`` in ``[0, 1]²`` (see the module docstring).

    The points ``(0, 0)`` and ``(1, 1)`` (the empty and the full rejection region) are added.  Hull vertices
    ``v_0 = (0, 0), …, v_m = (1, 1)`` give one atom per segment: ``Q = Δx``, ``P = Δy`` (ratio ``Δy/Δx``; ``+∞``
    when ``Δx = 0``).  O(m log m) exact operations.
    """
    pts = {(fmpq(0), fmpq(0)), (fmpq(1), fmpq(1))}
    for x, y in points:
        x, y = _q(x, "x"), _q(y, "y")
        if x < 0 or y > 1:
            raise InvalidArgument("point", f"({x}, {y})", "must lie in [0, 1]^2 (clip outer ends at 0 and 1)")
        pts.add((x, y))
    # upper hull: sort by x, larger y first at equal x; keep right turns
    order = sorted(pts, key=lambda t: (t[0], -t[1]))
    hull: list = []
    for pt in order:
        if hull and hull[-1][0] == pt[0]:
            continue
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], pt) >= 0:
            hull.pop()
        hull.append(pt)
    # a vertical first segment (x = 0, y > 0) is the atom at +inf
    atoms = []
    top0 = max(y for x, y in pts if x == 0)
    if top0 > 0:
        atoms.append((None, top0, fmpq(0)))
        hull[0] = (fmpq(0), top0)
    for (x0, y0), (x1, y1) in zip(hull, hull[1:]):
        dx, dy = x1 - x0, y1 - y0
        if dx > 0 and dy >= 0:
            atoms.append((dy / dx, dy, dx))
    return FinitePair(tuple(atoms), description)


def pair_from_roc_floats(
    xs: Sequence[float] | np.ndarray, ys: Sequence[float] | np.ndarray, description: str = "privacy curve (ROC hull)"
) -> FinitePair:
    """:func:`pair_from_roc` on outer points given as binary64 arrays (``x̲`` in ``xs``, ``ȳ`` in ``ys``).

    A float pass discards the points that are *certainly* under the upper hull (the monotone chain pops a point
    only when the float cross product exceeds its a-priori error bound, ``docs/numerics.md`` Lemma 9; a popped point
    lies under a segment of two points of the set, so the hull of the survivors is the hull of all), then the exact
    hull of the survivors (their exact dyadic values) gives the pair.  O(m log m) float and O(h log h) exact
    operations for ``m`` points and ``h`` survivors.
    """
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise InvalidArgument("xs", f"shape {x.shape} vs {y.shape}", "must be two 1-d arrays of the same length")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise InvalidArgument("xs", "non-finite", "must hold finite numbers")
    order = np.lexsort((-y, x))
    xl, yl = x[order].tolist(), y[order].tolist()
    g4 = 4 * 2.0**-53 / (1 - 4 * 2.0**-53)
    tiny = 2.0**-1000
    hx: list = []
    hy: list = []
    for px, py in zip([0.0, *xl, 1.0], [0.0, *yl, 1.0]):
        while len(hx) >= 2:
            ax, ay = hx[-1] - hx[-2], hy[-1] - hy[-2]
            bx, by = px - hx[-2], py - hy[-2]
            t1, t2 = ax * by, ay * bx
            # pop hull[-1] only when it is certainly on or under the segment hull[-2] -> p
            if t1 - t2 >= 2 * g4 * (abs(t1) + abs(t2)) + tiny:
                hx.pop()
                hy.pop()
            else:
                break
        hx.append(px)
        hy.append(py)
    pts = [(fmpq(*_dyadic(a)), fmpq(*_dyadic(b))) for a, b in zip(hx, hy)]
    return pair_from_roc(pts, description)


def _dyadic(v: float) -> tuple:
    """The exact value of a binary64 as ``(numerator, denominator)``."""
    return float(v).as_integer_ratio()


def roc_points_from_balls(sq: Sequence[arb | fmpq], sp: Sequence[arb | fmpq]) -> list:
    """Outer points ``(max(0, lower(SQ)), min(1, upper(SP)))`` of enclosures of ``(Q(S), P(S))``.  O(len)."""
    out = []
    for x, y in zip(sq, sp):
        if isinstance(x, fmpq) and isinstance(y, fmpq):
            out.append((x, y))
            continue
        lo = arith.endpoints(arith.ball(x))[0]
        hi = arith.endpoints(arith.ball(y))[1]
        xl = max(fmpq(0), fmpq(lo.numerator, lo.denominator))
        yh = min(fmpq(1), fmpq(hi.numerator, hi.denominator))
        out.append((xl, yh))
    return out


def clip_at(pair: FinitePair, alpha_max: NumberInput, description: str | None = None) -> FinitePair:
    """The pair of the hull of ``pair``'s own curve at its vertices ``α ≥ 1`` together with ``(α_max, 0)``.

    Valid when the mechanism's curve vanishes at ``α_max`` (``α_max ≥ e^{ε0}``: each shuffled round of an ε0-LDP
    randomizer is ε0-DP): the result lies above ``E`` and below ``pair``'s curve, and has no atom above ``α_max``
    (no mass at ``+∞``).  O(v²) exact operations for ``v`` vertices.
    """
    am = _q(alpha_max, "alpha_max")
    vals = [(r, pair.hockey_stick(r)) for r, p, q in pair.masses if r is not None and 1 <= r < am]
    vals.append((fmpq(1), pair.hockey_stick(1)))
    return pair_from_values(vals, alpha_max=am, description=description or pair.description)


def binary_worst_pair(mech: KRR, n: int, *, alpha_max: NumberInput | None = None) -> FinitePair:
    """The worst-case privacy curve of shuffled binary RR with ``n`` users, over every dataset and both orders, as a
    dominating :class:`FinitePair` (:func:`blanket.exact.shuffled.binary.worst_case_tests`, then
    :func:`pair_from_roc_floats`, then :func:`clip_at` ``α_max``: a rational ``≥ e^{ε0}``, by default the upper end
    of ``e^{ε0}``'s ball).  Its curve is within the float rounding (about 1e-15 absolute) of the exact ``E``.
    Complexity O(n²) (``n ≤ binary.ROC_MAX_N``): about 1 s at n = 200, a minute at n = 1000.
    """
    xs, ys = worst_case_tests(mech, n)
    desc = f"worst-case privacy curve of shuffled binary RR over all datasets (n = {n}, ROC hull)"
    pr = pair_from_roc_floats(xs, ys, desc)
    if alpha_max is None:
        e = mech.exp_epsilon0()
        hi = arith.endpoints(arith.ball(e))[1]
        alpha_max = fmpq(hi.numerator, hi.denominator)
    return clip_at(pr, alpha_max, desc)


# ====================================================================== binary RR at large n: the curve on a grid
#: worst-case curve sweep: most datasets per block (one shared window convolution per block, docs/numerics.md Lemma C1)
CURVE_BLOCK = 128


def curve_block(n: int) -> int:
    """Datasets per block at ``n`` users: ``2^round(log₂(√n/8))`` within ``[16, CURVE_BLOCK]`` (a block costs one
    ``W_a·W_b`` convolution plus ``B·W`` per dataset; a function of ``n`` only, so every executor cuts the same
    blocks)."""
    return max(16, min(CURVE_BLOCK, 2 ** round(math.log2(max(math.sqrt(n) / 8, 1)))))


#: window cut-off of the curve sweep's binomial windows
CURVE_TOL = fmpq(1, 2**80)
_U = 2.0**-53


def dyadic50(x: fmpq | Fraction, up: bool = False) -> fmpq:
    """``x > 0`` rounded down (``up``: up) to 50 significant bits: a dyadic rational exact in binary64 (any
    magnitude: ``x ≥ 2^50`` rounds its integer part).  O(1)."""
    k = 50 - max(1, (x.numerator // x.denominator).bit_length())
    if k >= 0:
        num, den = x.numerator << k, x.denominator
        m = -((-num) // den) if up else num // den
        return fmpq(m, 1 << k)
    num, den = x.numerator, x.denominator << -k
    m = -((-num) // den) if up else num // den
    return fmpq(m << -k)


def curve_grid(epsilon0: NumberInput, points: int = 1024) -> list:
    """``points`` dyadic rationals ``α_i = e^{ε_i}`` (``ε_i = i·ε_top/points`` with ``ε_top = epsilon0``, rounded
    down to 50 significant bits), exact in binary64, from ``α_0 = 1`` up to below ``e^{ε_top}``.  Any grid is
    valid; a finer one brings the hull closer to the curve (its chords lie above the convex curve by
    O(spacing²)); :func:`binary_worst_curve_pair` passes an ``ε_top`` below ``ε0`` where the curve is already
    negligible, so that the points fall where it matters."""
    e0 = _q(epsilon0, "epsilon0")
    pts = arith.integer_in(points, "points", lo=1, hi=1 << 16)
    out: list[fmpq] = []
    with arith.precision(96):
        for i in range(pts):
            a = arith.ball(e0 * i / pts).exp()
            lo = arith.endpoints(a)[0]
            v = dyadic50(lo)  # 50 significant bits: exact in binary64
            if not out or v > out[-1]:
                out.append(v)
    return out


def _rel(x) -> arb:
    return arb(fmpq(*float(x).as_integer_ratio())) if not isinstance(x, arb) else x


#: blocks of the curve sweep per task of the executor (amortises the per-task set-up)
CURVE_TASK_BLOCKS = 8


def _curve_task(n: int, start: int, stop: int, block: int, e0spec: tuple, alphas: tuple, prec: int) -> tuple:
    """:func:`_curve_block` over the blocks of ``block`` datasets in ``start..stop−1`` (BLAS on one thread: the
    parallelism is over tasks); the maximum of their values and of their slacks.  Module level, picklable."""
    best = None
    slack = 0.0
    with threadpool_limits(limits=1, user_api="blas"):
        for c0 in range(start, stop, block):
            v, s = _curve_block(n, c0, min(stop, c0 + block), e0spec, alphas, prec)
            best = v if best is None else np.maximum(best, v)
            slack = max(slack, s)
    return best, slack


def _curve_block(n: int, c0: int, c1: int, e0spec: tuple, alphas: tuple, prec: int) -> tuple:
    """Upper bounds (binary64, before the absolute slack) of ``max_{c0 ≤ c < c1} D̃_c(α)`` at every ``α`` of
    ``alphas`` and the block's absolute slack (a float upper bound).  Module level, picklable arguments.

    For each dataset ``c`` of the block (``c`` ones among the others, forward order): ``g_c = H ⊛ R_{c−c0}``
    (``H`` windowed, ``R_j`` complete; Lemma R1 and Lemma 5), ``P̂_1 = f̂·ĝ + p̂·ĝ(·−1)``, ``P̂_0 = p̂·ĝ + f̂·ĝ(·−1)``,
    their suffix sums (``numpy.cumsum``), the likelihood ratio ``r̂ = P̂_1/P̂_0``; for each ``α`` the threshold
    ``t̂`` = the first index with ``r̂ > α`` and the value ``SP̂/(1−r_S) − α·SQ̂/(1+r_S)`` there (docs/numerics.md
    Lemma C1 bounds what the float location of ``t̂`` can miss).  Cost O(W_a·W_b + B·(B·W + G log W)).
    """
    with arith.precision(prec):
        ee0 = arb(fmpq(*map(int, e0spec[1].split("/")))) if e0spec[0] == "exp" else e0spec[1]
        ee0 = arith.ball(ee0)
        f = 1 / (ee0 + 1)
        p = ee0 * f
        B = c1 - c0
        tol = CURVE_TOL
        if c0 == 0:
            a, ra, ta = np.ones(1), 0.0, arb(0)
        else:
            wa = laws.float_window(c0, p, tol)
            a, ra, ta = wa.values, wa.rel, wa.tail
        mb = n - c0 - B
        if mb == 0:
            b, rb, tb = np.ones(1), 0.0, arb(0)
        else:
            wb = laws.float_window(mb, f, tol)
            b, rb, tb = wb.values, wb.rel, wb.tail
        H = np.convolve(a, b)
        rel_H = (1 + _rel(ra)) * (1 + _rel(rb)) * (1 + arb(laws.gamma(min(len(a), len(b))))) - 1
        ph, ep = laws.float_param(p)
        fh, ef = laws.float_param(f)
        e = max(ep, ef)
        R = laws.bernoulli_rows(B, ph, fh)
        rel_R = _rel(laws.bernoulli_rel(0.0, e, B - 1)) if B > 1 else arb(0)
        rel_g = (1 + rel_H) * (1 + rel_R) * (1 + arb(laws.gamma(B))) - 1
        rel_P = (1 + rel_g) * (1 + arb(e)) * (1 + arb(laws.gamma(2))) - 1
        W = len(H) + B  # length of every P row
        rel_S = (1 + rel_P) * (1 + arb(laws.gamma(W))) - 1
        rho = (1 + rel_P) * (1 + arb(laws.U)) / (1 - rel_P) - 1
        T = arb((ta + tb).upper())
        up_f = float(laws.float_upper(1 / (1 - rel_S)))
        dn_f = float(arb((1 / (1 + rel_S)).lower()).mid())
        dn_f = math.nextafter(dn_f, 0.0)
        al = np.asarray(alphas, dtype=np.float64)
        # every row g_c = R_j ⊛ H at once: G = R @ M with M[s, k] = H[k − s] (sums of at most B non-negative
        # products by rounded + and ×, whatever the BLAS order: Lemma R1); one BLAS thread (parallel over blocks)
        V = len(H) + B - 1
        pad = np.zeros(len(H) + 2 * (B - 1))
        pad[B - 1 : B - 1 + len(H)] = H
        M = np.lib.stride_tricks.sliding_window_view(pad, V)[::-1]
        G = np.asarray(R) @ M
        P1 = np.zeros((B, V + 1))
        P0 = np.zeros((B, V + 1))
        P1[:, :-1] += fh * G
        P1[:, 1:] += ph * G
        P0[:, :-1] += ph * G
        P0[:, 1:] += fh * G
        SP = np.cumsum(P1[:, ::-1], axis=1)[:, ::-1]
        SQ = np.cumsum(P0[:, ::-1], axis=1)[:, ::-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(P0 > 0, P1 / np.where(P0 > 0, P0, 1.0), np.where(P1 > 0, np.inf, -np.inf))
        rm = np.maximum.accumulate(r, axis=1)
        T_idx = np.stack([np.searchsorted(rm[j], al, side="right") for j in range(B)])  # first index with r > alpha
        ok = T_idx < V + 1
        tt = np.minimum(T_idx, V)
        rows = np.arange(B)[:, None]
        v = np.where(ok, SP[rows, tt] * up_f - al[None, :] * (SQ[rows, tt] * dn_f), 0.0)
        best = v.max(axis=0)
        # absolute slack: Lemma C1 (rho·max(1, alpha) ≤ rho·alpha_max), the window defect T, and the float
        # evaluation of the value (a few roundings of numbers ≤ 1 + alpha)
        amax = float(al.max()) if len(al) else 1.0
        slack = rho * max(1.0, amax) + T + arb(8 * _U) * (1 + amax) + arb(2.0**-1000)
        return best, float(laws.float_upper(slack))


def binary_worst_curve_values(mech: KRR, n: int, alphas: Sequence, **run: Any) -> list:
    """Certified upper values ``(α, U)`` with ``U ≥ E(α)``, the worst case over all datasets of shuffled binary RR,
    at the dyadic ``alphas`` (each ``≥ 1``): every dataset is swept in blocks of :func:`curve_block` datasets
    (:func:`_curve_block`, float kernel with the a-priori bounds of docs/numerics.md Lemma C1), on the executor of
    ``run`` (``workers``, ``scheduler``, ``progress``: :func:`blanket.exact.runtime.executors.map_blocks`).
    Complexity: O(n·(B·W + G log W) + (n/B)·W_a·W_b) float operations, ``W ≈ 2·13.5·sqrt(n p f)``.
    """
    n = arith.integer_in(n, "n", lo=2)
    als = [_q(a, "alpha") for a in alphas]
    for a in als:
        if a < 1 or fmpq(*_as_float(a).as_integer_ratio()) != a:
            raise InvalidArgument("alphas", str(a), "must be >= 1 and exact in binary64 (use curve_grid)")
    prec = max(ctx_prec(), 128)
    with arith.precision(prec):  # a tight ball: the windows' anchors are as accurate as e^{ε0} is
        ee0 = mech.exp_epsilon0()
        e0spec = ("exp", str(ee0)) if isinstance(ee0, fmpq) else ("ball", arith.ball(ee0))
    fl = tuple(_as_float(a) for a in als)
    blk = curve_block(n)
    span = blk * CURVE_TASK_BLOCKS
    tasks = [(n, c0, min(n, c0 + span), blk, e0spec, fl, prec) for c0 in range(0, n, span)]
    res = map_blocks(
        _curve_task, tasks, desc=f"worst-case curve over {n} datasets", sizes=[t[2] - t[1] for t in tasks], **run
    )
    best = np.full(len(fl), -np.inf)
    slack = 0.0
    for v, s in res:
        best = np.maximum(best, v)
        slack = max(slack, s)
    out = []
    for a, v in zip(als, best.tolist()):
        u = fmpq(*float(max(v, 0.0)).as_integer_ratio()) + fmpq(*float(slack).as_integer_ratio())
        out.append((a, min(u, fmpq(1))))
    return out


def _as_float(a: fmpq) -> float:
    """The binary64 nearest to ``a`` (exact for a dyadic ``a`` that fits)."""
    return int(a.p) / int(a.q)


def ctx_prec() -> int:
    return int(ctx.prec)


#: above the epsilon where the blanket view's certified delta is below this, the grid of the curve is not refined.
#: The certified values carry an a-priori slack of about 1e-12 to 1e-11 (Lemma C2), so grid points where the curve
#: is below that show mostly the slack; but a composition adds those small deltas over its rounds: with 1e-14 the
#: README's 52-round example (n = 10^5) came out 0.2 % looser (0.085982 against 0.085821 with 1e-30), so the grid
#: keeps reaching down to 1e-30 (tried 2026-11-29)
NEGLIGIBLE_DELTA = fmpq(1, 10**30)


def _negligible_from(mech: Any, n: int, e0: fmpq) -> fmpq:
    """The smallest ``ε0·k/64`` (``k = 1..64``) at which the blanket view's certified δ is below
    :data:`NEGLIGIBLE_DELTA` (the curve is below it there and beyond), else ``e0``: only where the grid points go
    (a choice; every grid is valid).  O(log 64) blanket-view evaluations."""
    lo, hi = 1, 64
    if n < 64:
        return e0
    with arith.precision(128):

        def small(k: int) -> bool:
            v = delta_blanket_view(mech, n, epsilon=e0 * k / 64, tol=fmpq(1, 2**200))
            return arith.lt(v, NEGLIGIBLE_DELTA) is True

        if not small(hi - 1):
            return e0
        hi = first_true(small, lo, hi)
    return e0 * hi / 64


#: the top point's value is searched down to this (``ε0·k/64`` steps beyond the grid's top): far below the PLD's
#: truncation (``DEFAULT_TRUNCATION/4``), so that the atom the hull leaves at ``α_max`` (``P``-mass at most
#: ``α_max·U/(α_max − α)``, ``≤ 64·U`` on these steps) is cut from the discretised PLD
TOP_DELTA = fmpq(1, 10**40)


def _top_point(mech: KRR, n: int, top: fmpq, am: fmpq, e0: fmpq) -> tuple | None:
    """``(α, U)``: ``α`` a dyadic rational ``≥ e^{ε}`` (50 significant bits) and ``U`` the upper end of the blanket
    view's certified δ at ``ε`` (Lemma 5.3: ``U ≥ E(e^ε) ≥ E(α)``, ``E`` non-increasing), for the first
    ``ε = top + j·ε0/64`` (``j ≥ 0``, ``ε < ε0``) where ``U ≤`` :data:`TOP_DELTA` (else the last of them), with
    ``α < am``; ``None`` when ``top ≥ ε0``.  Added to the sweep's values (docs/composition.md §5d, "the top point"):
    the sweep's values carry an a-priori slack of about 10⁻¹¹ (docs/numerics.md Lemma C2), and without a small value
    beyond the grid the hull's last chord to ``(α_max, 0)`` puts that slack as an atom at the loss ``ε0`` (and its
    reflection at ``−ε0``), which a composition of ``T`` rounds carries to ``±3ε0``: a support ten times wider than
    the core's at ``n = 10⁶``.  A few blanket-view evaluations (about 0.1 s each at ``n = 10⁶``)."""
    best = None
    eps = top
    while 0 < eps < e0:
        with arith.precision(128):
            v = delta_blanket_view(mech, n, epsilon=eps, tol=fmpq(1, 2**200))
            u = arith.endpoints(v)[1]
            hi = arith.endpoints(arith.ball(eps).exp())[1]
        a = dyadic50(hi, up=True)  # rounded up: a >= e^eps
        if not a < am:
            break
        best = (a, min(fmpq(1), max(fmpq(0), fmpq(u.numerator, u.denominator))))
        if best[1] <= TOP_DELTA:
            break
        eps += e0 / 64
    return best


def binary_worst_curve_pair(mech: KRR, n: int, *, points: int = 1024, method: str = "steps", **run: Any) -> FinitePair:
    """The dominating pair of the hull of the certified worst-case values on :func:`curve_grid` (``points``),
    with ``α_max`` the upper end of ``e^{ε0}`` (``docs/composition.md`` §5d).  ``method="steps"`` (default):
    :func:`blanket.exact.accounting.curve_steps.binary_worst_curve_values_stepped` (O(W) per dataset);
    ``"block"``: :func:`binary_worst_curve_values` (the block sweep, O(B·W) per dataset; a cross-check)."""
    return _binary_worst_curve(mech, n, points=points, method=method, **run)[0]


def local_grid(epsilon_lo: NumberInput, epsilon_hi: NumberInput, points: int) -> list:
    """``points`` dyadic rationals ``α_i ≈ e^{ε_i}``, ``ε_i`` evenly spaced over ``[epsilon_lo, epsilon_hi]`` (each
    rounded down to 50 significant bits as in :func:`curve_grid`, ``≥ 1``): extra grid points where one δ is asked
    (:func:`binary_worst_curve_epsilon`; a choice, every grid is valid).  O(points) ball operations."""
    lo, hi = _q(epsilon_lo, "epsilon_lo"), _q(epsilon_hi, "epsilon_hi")
    pts = arith.integer_in(points, "points", lo=2, hi=1 << 16)
    if not 0 <= lo < hi:
        raise InvalidArgument("epsilon_hi", f"{hi} (epsilon_lo = {lo})", "must satisfy 0 <= epsilon_lo < epsilon_hi")
    out: list[fmpq] = []
    with arith.precision(96):
        for i in range(pts):
            a = arith.ball(lo + (hi - lo) * i / (pts - 1)).exp()
            v = arith.endpoints(a)[0]
            q = max(fmpq(1), dyadic50(v))
            if not out or q > out[-1]:
                out.append(q)
    return out


def _binary_worst_curve(
    mech: KRR, n: int, *, points: int, method: str, near: NumberInput | None = None, **run: Any
) -> tuple:
    """``(pair, grid, datasets)``: :func:`binary_worst_curve_pair`, its grid, and per grid point the dataset whose
    bound is the largest there (``None`` entries for the block sweep).  ``near`` (an ε, optional): ``points``
    more grid points on ``[near·(1 − 10⁻³), near·(1 + 10⁻²)]`` (:func:`local_grid`)."""
    if method not in ("steps", "block"):
        raise InvalidArgument("method", method, "must be 'steps' or 'block'")
    e = mech.exp_epsilon0()
    hi = arith.endpoints(arith.ball(e))[1]
    am = fmpq(hi.numerator, hi.denominator)
    with arith.precision(96):
        e0 = arith.endpoints(arith.ball(e).log())[1]
    top = _negligible_from(mech, n, fmpq(e0.numerator, e0.denominator))
    top_pt = _top_point(mech, n, top, am, fmpq(e0.numerator, e0.denominator))
    grid = curve_grid(top, points)
    if near is not None:
        c = _q(near, "near")
        if c > 0:
            extra = [a for a in local_grid(c * fmpq(999, 1000), c * fmpq(101, 100), points) if a < am]
            grid = sorted(set(grid) | set(extra))
    if method == "steps":
        vals, ks = curve_steps.binary_worst_curve_stepped(mech, n, grid, **run)
    else:
        vals, ks = binary_worst_curve_values(mech, n, grid, **run), [None] * len(grid)
    if top_pt is not None:  # the sweep's values carry ~1e-11 of slack; the blanket view is far below it there
        vals = [*vals, top_pt]
    desc = f"worst-case privacy curve of shuffled binary RR over all datasets (n = {n}, {len(grid)} grid points)"
    pair = pair_from_values(vals, alpha_max=am, description=desc)
    _remember(mech, n, pair)
    return pair, grid, ks


#: the worst-case curve pairs computed in this process, per (e^{ε0}, n): what a picture draws (at most 16 kept)
_COMPUTED: dict = {}


def _remember(mech: KRR, n: int, pair: FinitePair) -> None:
    if len(_COMPUTED) >= 16:
        _COMPUTED.clear()
    _COMPUTED[(str(mech.exp_epsilon0()), int(n))] = pair


def computed_curve_pair(mech: Any, n: int) -> FinitePair | None:
    """The dominating pair of the worst-case curve of shuffled binary RR ``mech`` with ``n`` users if this process
    has already swept it (:func:`binary_worst_curve_pair`, :func:`binary_worst_curve_epsilon`; any grid: each is
    a certified upper curve at every α), else ``None``; never computes.  O(1)."""
    if not (isinstance(mech, KRR) and mech.k == 2):
        return None
    return _COMPUTED.get((str(mech.exp_epsilon0()), int(n)))


def inverse_alpha(pair: FinitePair, delta: NumberInput) -> fmpq:
    """The smallest ``α ≥ 1`` with ``H_α(P‖Q) ≤ delta`` for the pair's convex, non-increasing, piecewise-linear
    curve (exact: a binary search over the atoms' ratios, then the segment's linear equation); ``1`` when
    ``H_1 ≤ delta``.  Refused when the mass at ``+∞`` exceeds ``delta`` (no such ``α``).  O(a log a) exact
    operations for ``a`` atoms."""
    d = _q(delta, "delta")
    if not 0 < d < 1:
        raise InvalidArgument("delta", str(d), "must lie in (0, 1)")
    if pair.mass_at_infinity > d:
        raise InvalidArgument("delta", str(d), "is below the pair's mass at +infinity: no alpha reaches it")
    if pair.hockey_stick(1) <= d:
        return fmpq(1)
    rs = sorted({r for r, p, q in pair.masses if r is not None and r > 1})
    lo, hi = 0, len(rs) - 1  # H(rs[hi]) <= d: the largest finite ratio leaves only the mass at +inf
    if not rs or pair.hockey_stick(rs[hi]) > d:
        raise InvalidArgument("delta", str(d), "is not reached at the pair's largest ratio")
    a0 = fmpq(1)
    if pair.hockey_stick(rs[0]) <= d:
        hi = 0
    else:
        while hi - lo > 1:  # invariant: H(rs[lo]) > d >= H(rs[hi])
            mid = (lo + hi) // 2
            if pair.hockey_stick(rs[mid]) <= d:
                hi = mid
            else:
                lo = mid
        a0 = rs[lo]
    a1 = rs[hi]
    h0, h1 = pair.hockey_stick(a0), pair.hockey_stick(a1)
    return a0 + (h0 - d) * (a1 - a0) / (h0 - h1)


def binary_worst_curve_epsilon(
    mech: KRR, n: int, delta: NumberInput, *, points: int = 4096, near: NumberInput | None = None, **run: Any
) -> tuple:
    """``(ε̄, c)``: a certified upper end ``ε̄`` (a rational ``≥ log α*``, ``α*`` = :func:`inverse_alpha` of the
    worst-case curve pair at ``delta``) of the smallest ε with ``δ(ε) ≤ delta`` over every dataset of shuffled binary
    RR, and the dataset ``c`` whose bound was the largest at the grid point below ``α*`` (its exact ε at ``delta``
    is a certified lower end).  ``points`` grid points (4096 by default: the hull's chords sit above the convex
    curve by O(spacing²), about 10⁻⁴ relative in ε at 4096 and 10⁻³ at 1024 for the README example); with ``near``
    (a guess of the answer, e.g. a certified lower end from one dataset) ``points`` on the whole range and ``points``
    more on ``[near·(1 − 10⁻³), near·(1 + 10⁻²)]``: 2·256 points then give the answer to about 10⁻⁶ relative when
    it falls in that band (a choice of grid: the result is certified wherever it falls).  Cost: one stepped sweep
    (:func:`binary_worst_curve_pair`), its threshold work proportional to the number of grid points."""
    pair, grid, ks = _binary_worst_curve(mech, n, points=points, method="steps", near=near, **run)
    a = inverse_alpha(pair, delta)
    with arith.precision(128):
        up = arith.endpoints(arith.ball(a).log())[1]
    j = max(0, max((i for i, g in enumerate(grid) if g <= a), default=0))
    return max(fmpq(0), fmpq(up.numerator, up.denominator)), ks[j]
