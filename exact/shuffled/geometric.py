"""Fast certified blanket view (Balle et al. Lemma 5.3) of the truncated geometric mechanism, every n.

For the truncated geometric mechanism on ``{0, …, m−1}``
(:class:`blanket.exact.mechanisms.oracles.Geometric`) the privacy
amplification variable ``L^ε_{x,x'}`` takes ``m`` values, and the
Lemma 5.3 bound is ``max_{x≠x'} (1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` with
``V = L^ε_{x,x'}`` w.p. ``γ``, else 0 (``m + 1`` atoms).  The project's fast
engine (:func:`blanket.exact.shuffled.krr.expected_positive_part`, O(√n)
ball operations) takes four atoms.  This module brackets the value by
**convex order** (docs/numerics.md, Lemma O2):

* **upper end** — one law ``W`` on three fixed knots ``s₁ < s₂ < s₃``
  (:func:`default_knots`: ``γ(1 − ee·e^{ε0}) < 0 < γ(e^{ε0} − ee)``, the
  smallest value of any ``L``, the blanket's own atom, the largest value)
  that dominates *every* pair's ``V`` in the increasing convex order: its
  stop-loss function ``ψ_W(t) = E[(W − t)_+]`` interpolates, at the knots,
  the maximum over the pairs of ``ψ_V(s_j)``.  ``x ↦ (x)_+`` is increasing
  and convex and the order is preserved by sums of independent copies, so
  one engine call bounds the maximum over all ``m(m−1)`` ordered pairs.
  With three values the engine's bulk count is degenerate, so its route is
  exact up to the windowing (no weak-count gap): the enclosure is as narrow
  as binary RR's;
* **lower end** — the pair ``(0, m−1)``'s ``V`` with its atoms merged, cell by
  cell of the knots (nearest knot), into their conditional means (a
  mean-preserving contraction): a lower bound on that pair's value, hence on
  the maximum.

The upper end is a certified upper bound on δ(ε) of the shuffled mechanism
(the Lemma 5.3 view is); the lower end bounds the Lemma 5.3 value (not δ).
For ``m = 2`` (binary RR) the pair's atoms are on the knots and the bracket
is one point.  For larger ``m`` the values of ``L`` between the knots are
spread onto them and the upper end is above the Lemma 5.3 value (for m = 10,
ε0 = 1 the bracket is about a factor 3 wide at n = 10⁴–10⁶, while the upper
end is about 100× below the FOCS 2021 clone bound; ``tests/benchmarks/bench_oracles.py``).
Four knots (``knots=``) are accepted too (the engine's weak count then
enters through its Jensen-gap bound: slower and wider at large ``n``, found
no tighter in measurements).

>>> from blanket.exact.mechanisms.oracles import Geometric, cancellation_precision
>>> from blanket.exact.shuffled.oracles import blanket_view_delta_enumerate
>>> g = Geometric(4, alpha="1/2")
>>> b = geometric_bracket(g, 5, exp_epsilon=2)
>>> b.lower <= blanket_view_delta_enumerate(g, 5, exp_epsilon=2) <= b.upper
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from blanket.exact.mechanisms.oracles import Geometric, cancellation_precision
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, DeltaOptions, Enclosure
from blanket.exact.shuffled.krr import delta_args, expected_positive_part
from blanket.exact.shuffled.positive_part import chernoff_capped
from flint import fmpq

if TYPE_CHECKING:
    from blanket.exact.mechanisms.oracles import Geometric
    from typing_extensions import Unpack

__all__ = [
    "GeometricBracket",
    "geometric_bracket",
    "geometric_upper",
    "dominating_law",
    "pair_atoms",
    "MAX_GEOMETRIC_M",
    "default_knots",
    "geometric_lower_dataset",
    "count_signal",
    "SampledGeometric",
    "sampled_geometric_upper",
]

#: refused above this range size (the default knots' set-up costs O(m² log m) ball operations, given knots O(m³))
MAX_GEOMETRIC_M = 400


@dataclass(frozen=True)
class GeometricBracket:
    """``lower ≤ max_{x≠x'} Lemma 5.3 value ≤ upper`` (each already divided by ``γn``; exact or balls)."""

    lower: object
    upper: object
    knots: tuple
    weights: tuple


def _check(mech):
    guards.require_instance(
        mech,
        Geometric,
        "mech",
        "must be a Geometric record (exact.mechanisms.oracles.Geometric)",
        shown="kind",
        hint="for the four-value oracles use exact.shuffled.oracles.blanket_view_upper",
    )
    if mech.m > MAX_GEOMETRIC_M:
        raise InvalidArgument(
            "m", mech.m, f"must be <= {MAX_GEOMETRIC_M} for the geometric engine (its set-up grows as m^2 log m)"
        )
    return mech


def _ratios(mech) -> tuple:
    """``(γ, ω, r)``: the blanket's similarity, its law ``ω(y)`` and the ratios ``r[x][y] = R_x(y)/min_z R_z(y)``."""
    rows = mech.rows()
    m = mech.m
    # R_z(y) as a function of z falls away from y, so its minimum is at an end point z = 0 or z = m − 1
    mins = [arith.minimum(rows[0][y], rows[m - 1][y]) for y in range(m)]
    g = mech.gamma()
    omega = [mn / g for mn in mins]
    r = [[rows[x][y] / mins[y] for y in range(m)] for x in range(m)]
    return g, omega, r


def pair_atoms(mech: Geometric, x: int, x2: int, **at: Unpack[At]) -> list:
    """The ``m + 1`` atoms ``(probability, value)`` of ``V`` (``L^ε_{x,x'}`` w.p. γ, else 0).  O(m²)."""
    _check(mech)
    ee = guards.exp_at("pair_atoms", at)
    for nm, v in (("x", x), ("x2", x2)):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < mech.m:
            raise InvalidArgument(nm, v, f"must be an input value in 0..{mech.m - 1}")
    g, omega, r = _ratios(mech)
    return _atoms(g, omega, r, x, x2, ee)


def _atoms(g, omega, r, x, x2, ee) -> list:
    return [(1 - g, fmpq(0))] + [(g * w, g * (r[x][y] - ee * r[x2][y])) for y, w in enumerate(omega)]


def _stop_loss(atoms, t):
    """``ψ(t) = E[(V − t)_+] = Σ π (v − t)_+`` (an enclosure)."""
    out = fmpq(0)
    for p, v in atoms:
        out = arith.add(out, p * arith.positive_part(v - t))
    return out


def default_knots(mech: Geometric, ee: Enclosure) -> tuple:
    """The three knots ``γ(1 − ee·e^{ε0}) < 0 < γ(e^{ε0} − ee)``: the smallest value of any ``L``, the blanket's
    own atom and the largest value (exact rationals; for balls the outer end points, so that they cover)."""
    g, e = mech.gamma(), mech.exp_epsilon0()
    lo, hi = g * (1 - ee * e), g * (e - ee)
    if isinstance(lo, fmpq) and isinstance(hi, fmpq):
        return (lo, fmpq(0), hi)
    a, b = arith.endpoints(lo)[0], arith.endpoints(hi)[1]
    return (fmpq(a.numerator, a.denominator), fmpq(0), fmpq(b.numerator, b.denominator))


def dominating_law(mech: Geometric, *, knots: tuple | None = None, **at: Unpack[At]) -> tuple:
    """``(knots, weights)``: a law ``W`` on the knots with ``V_{x,x'} ≤_icx W`` for every ordered pair ``x ≠ x'``.

    ``ψ_W`` is the piecewise-linear interpolation at the knots of
    ``Φ(t) = max_{x≠x'} E[(V_{x,x'} − t)_+]`` (slope −1 left of ``s₁``, 0 right
    of the last knot); its masses are the jumps of its slope.  Needs the last knot ``≥`` every
    value of every ``L`` (the default knots satisfy it: every ratio ``r`` lies
    in ``[1, e^{ε0}]``); three or four knots.

    Cost: with the default (three) knots O(m² log m) ball or rational operations (:func:`_phi_fast`: ``Φ(s₁)`` in
    closed form, ``Φ(0)`` from the rows' prefix sums by the monotone likelihood ratio, docs/mechanisms.md "The
    dominating law in O(m² log m)"); with given knots O(m³) (every pair's stop-loss values; the pairs ``(x, x')`` and
    ``(m−1−x, m−1−x')`` are mirror images: half are evaluated).

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    _check(mech)
    ee = guards.exp_at("dominating_law", at)
    return _dominating_law(mech, knots, ee, fast=knots is None)


def _dominating_law(mech: Geometric, knots, ee, *, fast: bool) -> tuple:
    """:func:`dominating_law` on a checked record; ``fast``: :func:`_phi_fast` (default knots only, O(m² log m)),
    else every pair's stop-loss values (:func:`_phi_direct`, O(m³))."""
    s = tuple(default_knots(mech, ee) if knots is None else knots)
    if len(s) not in (3, 4):
        raise InvalidArgument("knots", s, "must be three or four increasing values")
    g, omega, r = _ratios(mech)
    m = mech.m
    if fast and knots is None and arith.lt(s[0], 0) is True:
        # every value of L is g·(r[x][y] − ee·r[x'][y]) <= g·(max_x r[x][y] − ee·min_x r[x][y]): certify the top knot
        # column by column, O(m²) (a ball overlapping it raises it to the ball's exact upper end point)
        for y in range(m):
            col = [r[x][y] for x in range(m)]
            lo_r = col[0]
            for c in col[1:]:
                lo_r = arith.minimum(lo_r, c)
            v = g * (arith.maximum(col) - ee * lo_r)
            if not _certified_le(v, s[-1]):
                if isinstance(v, fmpq):
                    raise InvalidArgument("knots", s, "must end at or above every value of L (s4 >= max L)")
                top = arith.endpoints(v)[1]
                s = (*s[:-1], fmpq(top.numerator, top.denominator))
        phi = _phi_fast(mech, g, ee, s)
    else:
        pairs = [
            _atoms(g, omega, r, x, x2, ee)
            for x in range(m)
            for x2 in range(m)
            if x != x2 and (m - 1 - x, m - 1 - x2) >= (x, x2)  # the mirror pair has the same law of L
        ]
        for atoms in pairs:
            for _, v in atoms:
                if not _certified_le(v, s[-1]):
                    if knots is not None or isinstance(v, fmpq):
                        raise InvalidArgument("knots", s, "must end at or above every value of L (s4 >= max L)")
                    # a ball value overlapping the default top knot (equal in exact arithmetic): raise the knot to
                    # the ball's exact upper end point (compared exactly, as a rational)
                    top = arith.endpoints(v)[1]
                    s = (*s[:-1], fmpq(top.numerator, top.denominator))
        phi = _phi_direct(pairs, s)
    k = len(s)
    slopes = [fmpq(-1)] + [(phi[j + 1] - phi[j]) / (s[j + 1] - s[j]) for j in range(k - 1)] + [fmpq(0)]
    weights = tuple(slopes[j + 1] - slopes[j] for j in range(k))
    return s, weights


def _phi_fast(mech: Geometric, g, ee, s) -> list:
    """``Φ`` at the three default knots ``s₁ < 0 < s₃`` without the O(m³) loop (docs/mechanisms.md "The dominating
    law in O(m² log m)").

    * ``Φ(s₁) = γ(1 − ee) − s₁``: every value of every ``V`` is ``≥ s₁``, so ``ψ_V(s₁) = E[V] − s₁`` and
      ``E[V] = γ(1 − ee)`` for every pair (closed form, the same for all pairs);
    * ``Φ(0) = γ·max_{x<x'} Σ_y (R_x(y) − ee·R_{x'}(y))_+`` (the pairs ``x > x'`` are mirror images).  For ``x < x'``
      the ratio ``R_x(y)/R_{x'}(y)`` is non-increasing in ``y``, so the positive terms are a prefix ``y < k``: ``k``
      is chosen in floats (bisection), certified by ``d_{k−1} ≥ 0`` and ``d_k ≤ 0`` (``d_y = R_x(y) − ee·R_{x'}(y)``),
      and the sum is then ``F_x(k) − ee·F_{x'}(k)`` (prefix sums of the rows); a pair whose cut is not certified
      (a tie within the balls) is summed term by term;
    * ``Φ(s₃) = 0``.

    O(m²) for the prefix sums plus O(log m) per pair: O(m² log m) ball or rational operations."""
    m = mech.m
    rows = mech.rows()
    pre = []
    for row in rows:
        acc, out = fmpq(0), [fmpq(0)]
        for v in row:
            acc = arith.add(acc, v)
            out.append(acc)
        pre.append(out)
    fl = [[float(arith.ball(v).mid()) for v in row] for row in rows]
    eef = float(arith.ball(ee).mid())
    best = None
    for x in range(m):
        rx = rows[x]
        for x2 in range(x + 1, m):
            rx2 = rows[x2]
            lo, hi = 0, m  # k = the first y with a float d_y < 0 (the sign of d_y is non-increasing in y)
            while lo < hi:
                mid = (lo + hi) // 2
                if fl[x][mid] - eef * fl[x2][mid] >= 0:
                    lo = mid + 1
                else:
                    hi = mid
            k = lo
            ok = (k == 0 or arith.ge(rx[k - 1] - ee * rx2[k - 1], 0) is True) and (
                k == m or arith.le(rx[k] - ee * rx2[k], 0) is True
            )
            if ok:
                hs = pre[x][k] - ee * pre[x2][k]
            else:
                hs = fmpq(0)
                for y in range(m):
                    hs = arith.add(hs, arith.positive_part(rx[y] - ee * rx2[y]))
            best = hs if best is None else arith.maximum((best, hs))
    return [g * (1 - ee) - s[0], g * best, fmpq(0)]


def _phi_direct(pairs, s) -> list:
    """``Φ(s_j) = max`` over the pairs' atoms of ``ψ_V(s_j)`` (``Φ`` of the last knot is 0).  O(pairs·m·knots)."""
    k = len(s)
    phi: list = [None] * k
    for atoms in pairs:
        for j in range(k - 1):
            v = _stop_loss(atoms, s[j])
            phi[j] = v if phi[j] is None else arith.maximum((phi[j], v))
    phi[k - 1] = fmpq(0)
    return phi


def _certified_le(v, q: fmpq) -> bool:
    """``v ≤ q`` certified, comparing the ball's exact upper end point with the rational (no rounding of ``q``)."""
    if isinstance(v, fmpq):
        return v <= q
    return arith.endpoints(v)[1] <= Fraction(int(q.p), int(q.q))


def _engine(n, atoms, g, *, tol, exact_max_n, label):
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=label) / (g * n)


def _roles(knots, weights) -> list:
    """The engine's four roles (bulk, t, t', rest): three knots (s₂, s₃, s₁, none); four (s₃, s₄, s₁, s₂)."""
    s, w = knots, weights
    if len(s) == 3:  # (s₁, s₂, s₃): bulk s₂, t = s₃, t' = s₁, no rest (the engine's exact degenerate route)
        return [(w[1], s[1]), (w[2], s[2]), (w[0], s[0]), (fmpq(0), s[1])]
    return [(w[2], s[2]), (w[3], s[3]), (w[0], s[0]), (w[1], s[1])]


def geometric_upper(mech: Geometric, n: int, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """A certified **upper bound** on δ(ε) of the shuffled geometric mechanism, every n (the bracket's upper end).

    One call of the four-atom engine (its exact degenerate route: a three-valued law) after the O(m² log m)
    set-up of :func:`dominating_law`: O(m² log m + √n·√log(1/tol)) ball operations (m = 10: about 0.1 s at
    n = 10⁶).  Exactly
    0 when ``ε ≥ ε0`` is certified.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    q = delta_args(_check(mech), n, opts, "geometric_upper")
    if q is None:
        return fmpq(0)
    # a large ε0 (from about 100: the law's probabilities ~e^{-ε0}, values ~e^{ε0}) gave a NaN window at the caller's
    # precision (an internal error): the frequency oracles' cancellation precision (exact inputs stay exact)
    with arith.precision(cancellation_precision(mech)):
        return _geometric_upper(mech, q)


def _geometric_upper(mech: Geometric, q: tuple) -> Enclosure:
    """:func:`geometric_upper`'s body at the precision it chose.  Same cost."""
    n, ee, tol, exact_max_n = q
    s, w = dominating_law(mech, exp_epsilon=ee)
    label = f"geometric blanket view (dominating law) n={n}"
    atoms = _roles(s, w)
    v = _engine(n, atoms, mech.gamma(), tol=tol, exact_max_n=exact_max_n, label=label)
    # deep in the tail the engine's windowing sets the upper end (m = 5, ε0 = 1, n = 10^4, ε = 0.3: 8.8e-24 against
    # a lower end 1.6e-216): capped by the Chernoff bound on the same value (docs/numerics.md Lemma K5)
    return chernoff_capped(v, n, atoms, arith.ball(mech.gamma()) * n)


def _contract(atoms, knots) -> list:
    """The pair's atoms merged, cell by cell, into four conditional means (a mean-preserving contraction).

    Cells: the nearest knot (ties and uncertain comparisons go to the cell of the smaller knot; any
    partition gives a valid contraction).  An empty cell keeps its knot with mass 0.
    """
    cells: list = [[] for _ in knots]
    for p, v in atoms:
        j = 0
        for i in range(1, len(knots)):
            mid = (knots[i - 1] + knots[i]) / 2
            if arith.gt(v, mid) is True:
                j = i
        cells[j].append((p, v))
    out = []
    for kn, cell in zip(knots, cells):
        if not cell:
            out.append((fmpq(0), kn))
            continue
        mass = fmpq(0)
        mom = fmpq(0)
        for p, v in cell:
            mass = arith.add(mass, p)
            mom = arith.add(mom, p * v)
        out.append((mass, mom / mass))
    return out


def geometric_bracket(mech: Geometric, n: int, **opts: Unpack[DeltaOptions]) -> GeometricBracket:
    """The convex-order bracket of the Lemma 5.3 value ``max_{x≠x'}`` (docs/numerics.md Lemma O2).

    ``upper`` is :func:`geometric_upper`; ``lower`` is the contraction of the
    pair ``(0, m−1)`` (one more engine call).  Exact rationals when every
    input is exact and ``n ≤ exact_max_n``, else balls (of the balls, the
    bracket is ``[lower.lower(), upper.upper()]``).  Cost two engine calls,
    O(m² log m + √n·√log(1/tol)).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    q = delta_args(_check(mech), n, opts, "geometric_bracket")
    if q is None:
        return GeometricBracket(fmpq(0), fmpq(0), (), ())
    n, ee, tol, exact_max_n = q
    s, w = dominating_law(mech, exp_epsilon=ee)
    g = mech.gamma()
    upper = _engine(n, _roles(s, w), g, tol=tol, exact_max_n=exact_max_n, label=f"geometric upper n={n}")
    gg, omega, r = _ratios(mech)
    c = _contract(_atoms(gg, omega, r, 0, mech.m - 1, ee), s)
    lower = _engine(
        n,
        _roles(tuple(v for _, v in c), tuple(p for p, _ in c)),
        g,
        tol=tol,
        exact_max_n=exact_max_n,
        label=f"geometric lower n={n}",
    )
    return GeometricBracket(lower, upper, s, w)


# ---------------------------------------------------------------- sampled participation: four knots
def sampled_geometric_upper(
    mech: Geometric, n: int, q: object, *, engine: str | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """A certified **upper bound** on δ(ε) of the shuffled geometric mechanism under Poisson participation ``q`` (each
    user reports w.p. ``q``, the multiset of reports is released), every n: Lemma 5.3's view of the sampled
    randomizer ``R_q = (1 − q)·⊥ + q·R`` bounded by one four-knot law (docs/composition.md §5f, "A sampled geometric
    round's upper end"; registered ``Sampled geometric round, four knots``).

    ``R_q``'s blanket takes all of ``⊥`` (``γ_q = 1 − q + qγ``) and its view's variable for the pair ``(x, x')`` is
    ``(γ_q/γ)·X``, ``X = (1 − q)·δ_c + q·V_{x,x'}`` (a mixture; ``c = γ(1 − e^ε)``, ``⊥``'s value for every pair), so
    with :func:`dominating_law`'s ``W`` (``V_{x,x'} ≤_icx W`` for every pair, Lemma O2) ``X ≤_icx (1 − q)·δ_c + q·W``
    and the view is at most ``(1/(γn)) E[(Σ_{i≤n} X_W,i)_+]``: the engine's four atoms ``0`` (bulk, mass ``q·w₂``),
    ``s₃`` (``q·w₃``), ``s₁`` (``q·w₁``) and ``c`` (rest, ``1 − q``).  ``q = 1`` is :func:`geometric_upper`.
    ``engine``: the route of :func:`~blanket.exact.shuffled.positive_part.expected_positive_part` (``None``:
    automatic).  Cost O(m² log m) for the law plus one engine call (O(√n·√log(1/tol)) on the one-dimensional routes, O(n
    log(1/tol)) on the grid).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import Geometric
    >>> g = Geometric(3, alpha="1/2")
    >>> sampled_geometric_upper(g, 3, "1/2", exp_epsilon=2) <= geometric_upper(g, 3, exp_epsilon=2)
    True
    """
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    qq = qq if isinstance(qq, fmpq) else fmpq(qq)
    args = delta_args(_check(mech), n, opts, "sampled_geometric_upper")
    if args is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = args
    s, w = dominating_law(mech, exp_epsilon=ee)
    g = mech.gamma()
    atoms = [(qq * w[1], s[1]), (qq * w[2], s[2]), (qq * w[0], s[0]), (1 - qq, g * (1 - ee))]
    label = f"sampled geometric blanket view (four knots) n={n}"
    try:
        v = expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=label, engine=engine)
    except InvalidArgument:  # a one-dimensional route refused (e.g. no mass below 0): the automatic route
        if engine is None:
            raise
        v = expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=label)
    return v / (g * n)


@dataclass(frozen=True)
class SampledGeometric:
    """The sampled randomizer ``R_q = (1 − q)·⊥ + q·R`` of a truncated geometric mechanism ``R`` as a record: its
    ``e^{ε0}`` is ``R``'s (``⊥``'s ratio is 1), ``γ_q = 1 − q + qγ``; a shuffled round of it is the sampled round
    (docs/composition.md §5f, Lemma S0) and its curve sources are :func:`sampled_geometric_upper` and the clone pair
    (:mod:`blanket.exact.accounting.curve_pairs`).  O(1) per method.

    >>> from blanket.exact.mechanisms.oracles import Geometric
    >>> SampledGeometric(Geometric(3, alpha="1/2"), "1/4").gamma()
    7/8
    """

    base: Geometric
    participation: fmpq
    kind: str = "sampled geometric"

    def __init__(self, base: Geometric, q: object) -> None:
        _check(base)
        qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        qq = qq if isinstance(qq, fmpq) else fmpq(qq)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "participation", qq)
        object.__setattr__(self, "kind", f"geometric, participation q = {qq}")

    @property
    def m(self) -> int:
        return self.base.m

    @property
    def epsilon0(self) -> object:
        return self.base.epsilon0

    def exp_epsilon0(self) -> Enclosure:
        return self.base.exp_epsilon0()

    def gamma(self) -> Enclosure:
        qq = self.participation
        return 1 - qq + qq * self.base.gamma()

    def delta_upper(self, n: int, *, engine: str | None = None, **opts: Unpack[DeltaOptions]) -> Enclosure:
        """:func:`sampled_geometric_upper` of this record (``engine``: the engine's route)."""
        return sampled_geometric_upper(self.base, n, self.participation, engine=engine, **opts)

    def describe(self) -> dict:
        return {
            "type": "sampled geometric",
            "q": str(self.participation),
            "base": str(sorted(self.base.describe().items())),
        }


# ---------------------------------------------------------------- a concrete-dataset lower bound, every n
def _count_delta(n, q0, q1, ee, direction: str, *, tol, exact_max_n):
    """Exact δ between ``Bin(n−1, q0) + Bern(q0)`` and ``Bin(n−1, q0) + Bern(q1)`` (``direction`` forward: first
    ‖ second).  By the sufficient statistic of :mod:`exact.shuffled.krr`: ``(1/n) E[(Σ_i v(Y_i))_+]``, ``Y_i ~
    Bern(q0)``, ``v(y) = 1 − ee·ratio(y)`` (forward) or ``ratio(y) − ee`` (backward), ``ratio = B(x')(y)/B(x)(y)``."""
    r_in, r_out = q1 / q0, (1 - q1) / (1 - q0)
    if direction == "forward":
        v_in, v_out = 1 - ee * r_in, 1 - ee * r_out
    else:
        v_in, v_out = r_in - ee, r_out - ee
    if arith.gt(v_in, v_out) is True:
        t, t2 = (q0, v_in), (1 - q0, v_out)
    elif arith.lt(v_in, v_out) is True:
        t, t2 = (1 - q0, v_out), (q0, v_in)
    else:
        return None
    atoms = [(fmpq(0), fmpq(0)), t, t2, (fmpq(0), fmpq(0))]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="geometric count") / n


def _interval_delta(n, p0, p1, ee, direction: str, *, tol, exact_max_n):
    """Exact δ of the dataset pair "all others hold 0, the target 0 versus m − 1" seen through the numbers of reports in
    three intervals (``p0``, ``p1``: the interval probabilities of ``R(0)`` and ``R(m − 1)``).  The count vector is
    ``Mult(n − 1, p0) + e_J``, ``J ~ p_x``, so its likelihood ratio is ``(1/n) Σ_j h_j r_j``, ``r_j = p1_j/p0_j``, and
    ``H = (1/n) E[(Σ_{i≤n} v(J_i))_+]``, ``J_i ~ p0`` i.i.d., ``v = 1 − ee·r`` (forward: target 0 first) or ``r − ee``
    (backward): the four-atom engine with three atoms (rest mass 0: its exact degenerate route).  O(√n·√log(1/tol))."""
    vals = [(1 - ee * (b / a)) if direction == "forward" else (b / a - ee) for a, b in zip(p0, p1)]
    order = [0, 1, 2]
    if arith.gt(vals[0], vals[2]) is True:
        order = [2, 1, 0]
    elif arith.lt(vals[0], vals[2]) is not True:
        return None
    lo, mid, hi = order
    atoms = [(p0[mid], vals[mid]), (p0[hi], vals[hi]), (p0[lo], vals[lo]), (fmpq(0), vals[mid])]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="geometric intervals") / n


def count_signal(af: float, m: int, z: int, s: int, q: float = 1.0) -> float:
    """Float score of the threshold count (others hold ``z``, the target ``m − 1`` versus 0, reports ``≥ s``, every
    user reporting w.p. ``q``): ``q·(q_{m−1} − q_0)²/(q_z(1 − q·q_z))`` with ``q_u = P(Y_u ≥ s)`` in closed form at the
    float ``α = af`` (the squared mean shift per standard deviation of the count; to choose only).  O(1)."""

    def pge(u: int) -> float:
        return af ** (s - u) / (1 + af) if s > u else 1 - af ** (u - s + 1) / (1 + af)

    qz = q * pge(z)
    d = q * (pge(m - 1) - pge(0))
    v = qz * (1 - qz)
    return float("inf") if v <= 0 else d * d / v


def geometric_lower_dataset(mech: Geometric, n: int, *, full_view: bool = True, **opts: Unpack[DeltaOptions]) -> tuple:
    """``(value, dataset text)``: a certified **lower** bound on δ(ε) of the shuffled geometric mechanism, every n.

    Datasets: all other ``n − 1`` users hold 0, the differing user 0 versus ``m − 1``.  The shuffled histogram is
    post-processed to the number of reports ``≥ s`` (a function of the histogram, so its δ is at most the
    datasets' δ, itself at most the worst case); that count is ``Bin(n−1, q0) + Bern(q0)`` versus
    ``+ Bern(q1)``, ``q_x = P(Y_x ≥ s)``, whose δ (both directions) is one call of the four-atom engine on its
    exact degenerate route.  The maximum over the thresholds ``s`` (every ``s`` for ``m ≤ 8``, else ``1``,
    ``⌈(m−1)/2⌉``, ``m − 1`` and the three around the largest :func:`count_signal`, the composed lower pair's
    choice) is kept; then (``m ≥ 3``) the numbers of reports in three intervals, cut at that threshold and at one of
    up to six second cuts, whose δ is again one engine call (:func:`_interval_delta`; a refinement of the count, so
    never below it: docs/mechanisms.md "The geometric mechanism's lower end"); then (``full_view``) the same datasets'
    whole histogram (:func:`blanket.exact.shuffled.geometric_dataset.best_full_view`, a lattice lower side of the
    exact full view; ``n ≤ FULL_VIEW_MAX_N``), and the largest value is returned.
    Cost O(m·(thresholds + cuts) + (thresholds + cuts)·√n·√log(1/tol)), plus three lattice sums of n copies
    (``full_view``; O(log n) integer-polynomial products of length O(√n/h), about 1.3 s in all at n = 10⁴).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import Geometric
    >>> from blanket.exact.shuffled.enumerate import delta_dataset
    >>> g = Geometric(3, alpha="1/2")
    >>> v, _ = geometric_lower_dataset(g, 4, exp_epsilon=fmpq(3, 2))
    >>> v <= delta_dataset(g.matrix(), [0, 0, 0], 0, 2, exp_epsilon=fmpq(3, 2))
    True
    """
    q = delta_args(_check(mech), n, opts, "geometric_lower_dataset")
    if q is None:
        return fmpq(0), "epsilon >= epsilon0: delta is 0 on every dataset"
    n, ee, tol, exact_max_n = q
    m = mech.m
    rows = mech.rows()
    af = float(arith.ball(mech.alpha).mid())
    top = max(range(1, m), key=lambda t: count_signal(af, m, 0, t))  # the composed pair's choice (z = 0)
    near = {t for t in (top - 1, top, top + 1) if 1 <= t <= m - 1}
    thresholds = range(1, m) if m <= 8 else sorted({1, (m - 1 + 1) // 2, m - 1} | near)
    best, best_s = None, None
    for s in thresholds:
        q0 = q1 = fmpq(0)
        for y in range(s, m):
            q0 = arith.add(q0, rows[0][y])
            q1 = arith.add(q1, rows[m - 1][y])
        for direction in ("forward", "backward"):
            v = _count_delta(n, q0, q1, ee, direction, tol=tol, exact_max_n=exact_max_n)
            if v is None:
                continue
            if best is None or arith.gt(v, best) is True:
                best, best_s = v, s
    if best is None:
        return None, "no threshold count separates the two inputs at this precision"
    what = f"post-processed to the number of reports >= {best_s}"
    if m >= 3:  # three intervals: the best threshold and a second cut (a refinement of the count: never worse)
        seconds = {round(top * k / 4) for k in (1, 2, 3)} | {top + round((m - top) * k / 4) for k in (1, 2, 3)}
        for o in sorted(t for t in seconds if 1 <= t <= m - 1 and t != top):
            a, b = min(o, top), max(o, top)
            cells = ((0, a), (a, b), (b, m))
            p0 = [_sum_row(rows[0], u, w) for u, w in cells]
            p1 = [_sum_row(rows[m - 1], u, w) for u, w in cells]
            for direction in ("forward", "backward"):
                v = _interval_delta(n, p0, p1, ee, direction, tol=tol, exact_max_n=exact_max_n)
                if v is not None and arith.gt(v, best) is True:
                    best, what = (
                        v,
                        f"post-processed to the numbers of reports in [0, {a}), [{a}, {b}) and [{b}, {m - 1}]",
                    )
    from blanket.exact.shuffled.geometric_dataset import FULL_VIEW_MAX_N, best_full_view

    if full_view and n <= FULL_VIEW_MAX_N:  # the same datasets' whole histogram: never below a count
        v, _, direction = best_full_view(mech, n, exp_epsilon=ee)
        if arith.gt(v, best) is True:
            first = f"0 || {m - 1}" if direction == "forward" else f"{m - 1} || 0"
            best, what = v, f"the whole shuffled histogram, delta({first}), lattice lower side"
    return best, f"all other {n - 1} users hold 0; the differing user holds 0 versus {m - 1} ({what})"


def _sum_row(row, u: int, w: int):
    out = fmpq(0)
    for y in range(u, w):
        out = arith.add(out, row[y])
    return out
