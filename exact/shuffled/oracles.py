"""The shuffled δ of the oracle records (:mod:`blanket.exact.mechanisms.oracles`): certified bounds and the fast view.

Certified upper bounds (δ(ε) of the shuffled mechanism, replace-one
neighbours, n users):

* :func:`blanket_view_delta` — Balle et al. Lemma 5.3,
  ``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``, evaluated as the
  binomial mixture over ``M`` of the four-atom engine
  :func:`exact.shuffled.krr.expected_positive_part` applied to the law of ``L``.
  Cost ``O(W_M · n log(1/tol))`` (``W_M`` the window of ``M``): fine for
  ``n`` up to a few thousand, **not** the ``n = 10^6`` target — that needs a
  five-atom engine (V = 0 and the four values of L; two informative atoms
  and *three* ancillary ones instead of two).
* :func:`clone_delta` — Feldman–McMillan–Talwar FOCS 2021 clone pair, valid
  for *every* ε0-LDP randomizer: equal to ``(1/(p n)) E[(Σ_{i=1}^n V_i)_+]``
  with ``p = e^{−ε0}`` and ``V ∈ {2(e−ee)/(e+1), 2(1−ee·e)/(e+1)}`` w.p. ``p/2``
  each, else 0 — three atoms, so the fast engine applies directly
  (``O(n log(1/tol))``).  The identity with the pair's definition is
  checked by enumerating the pair in the tests.

Certified lower bound: :func:`same_family_delta` — the exact δ between the
datasets ``x^n`` and ``x^{n−1}x'`` (both directions), from the law of the
likelihood ratio ``R(x')(Y)/R(x)(Y)``, ``Y ~ R(x)``, which takes the values
``e, 1/e, 1`` (:meth:`FourValue.ratio_law`).

A published pair, to be judged, not a certified bound: :func:`variation_ratio_delta`.

**Fast certified blanket view** (Balle et al. Lemma 5.3) of the frequency oracles: OUE/SUE, OLH, Hadamard, subset.

For these mechanisms (records of :mod:`exact.mechanisms.oracles`) the privacy
amplification variable ``L`` takes four values (both, t, t', rest) and the
blanket view is ``(1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` with ``V = L`` w.p. ``γ``,
else 0: a **five**-atom ``V`` —

    0            w.p. 1 − γ
    γe(1 − ee)   w.p. γπ_both      ("both")
    γ(e − ee)    w.p. γπ_t         ("t")
    γ(1 − ee·e)  w.p. γπ_t         ("t'")
    γ(1 − ee)    w.p. γπ_rest      ("rest")

while the project's fast engine (:func:`exact.shuffled.krr.expected_positive_part`,
one-dimensional route, O(√n) ball operations) takes four atoms.  Three of
the five atoms are *ancillary* (values 0, ``v_r = γ(1−ee)`` and
``v_b = e·v_r``, all ≤ 0 for ``ε ≥ 0``).  This module encloses the five-atom
value between two four-atom values by **convex order** (docs/numerics.md,
"Frequency oracles: the blanket view by convex order", Lemma O1):

* lower end — "both" and "rest" merged into one atom at their mean
  ``(π_b v_b + π_r v_r)/(π_b + π_r)`` (a mean-preserving contraction);
* upper end — "rest" spread onto its neighbours 0 and ``v_b``: since
  ``v_r = (1/e)·v_b + (1 − 1/e)·0``, mass ``γπ_r/e`` moves to ``v_b`` and
  ``γπ_r(1 − 1/e)`` to 0 (a mean-preserving spread).

``V ≤_cx V'`` implies ``Σ V_i ≤_cx Σ V'_i`` for i.i.d. copies, and
``x ↦ (x)_+`` is convex, so the two four-atom values bracket the exact one.
Both ends have the same mean as the exact ``V``; they differ from it by a
variance change ``O(ε²)`` per user, so the bracket is narrow where it
matters (relative width ≈ 1e-5 at n = 10⁶, ε ≈ 2/√n; see
``tests/benchmarks/bench_oracles.py``) and wide only for small ``n``, where
:func:`blanket_view_delta_fast` uses the exact mixture instead
(``exact_below``).  When ``π_both = 0`` or ``π_rest = 0`` exactly, ``V`` has
four atoms and one engine call is exact (up to the engine's windowing).

>>> from blanket.exact.mechanisms.oracles import OUE
>>> m = OUE(4, exp_epsilon0=3)
>>> b = blanket_view_bracket(m, 30, exp_epsilon=2)     # the bracket, exact rationals
>>> b.lower <= blanket_view_delta(m, 30, exp_epsilon=2) <= b.upper
True
>>> blanket_view_delta_fast(m, 30, exp_epsilon=2) == blanket_view_delta(m, 30, exp_epsilon=2)   # n < exact_below
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer, finite_exp_epsilon0
from blanket.exact.mechanisms.oracles import (
    LDP,
    MAX_MATRIX_OUTPUTS,
    OLH,
    OUE,
    SUE,
    FourValue,
    Geometric,
    Hadamard,
    Subset,
    cancellation_precision,
)
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import At, DeltaOptions, Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.shuffled.krr import (
    delta_args,
    delta_blanket_view,
    delta_krr_family,
    engine_options,
    expected_positive_part,
)
from flint import arb, fmpq

if TYPE_CHECKING:
    from blanket.exact.numbers.calibrate import Bracket
    from typing_extensions import Unpack

__all__ = [
    "blanket_view_delta_fast",
    "blanket_view_bracket",
    "Bracket5",
    "FAST_EXACT_BELOW",
    "OracleMatrix",
    "blanket_view_upper",
    "blanket_view_delta",
    "blanket_view_delta_merged",
    "best_upper_delta",
    "epsilon_upper",
    "clone_delta",
    "clone_pair_law",
    "same_family_delta",
    "blanket_view_delta_enumerate",
    "variation_ratio_delta",
]

#: below this n (and with exact inputs) :func:`blanket_view_delta_fast` returns the exact Lemma 5.3 mixture
FAST_EXACT_BELOW = 48


@dataclass(frozen=True)
class Bracket5:
    """The two four-atom values bracketing ``E[(Σ V_i)_+]``, already divided by ``γn`` (exact or balls)."""

    lower: Enclosure
    upper: Enclosure


def _is_exact(x) -> bool:
    return isinstance(x, fmpq)


def _is_zero(x) -> bool:
    return (isinstance(x, fmpq) and x == 0) or (isinstance(x, arb) and x.is_zero())


def _check_mech(mech: object) -> FourValue:
    if not isinstance(mech, FourValue):  # the records with l_law, l_probs and gamma
        raise InvalidArgument(
            "mech",
            getattr(mech, "kind", mech),
            "must be one of OUE, SUE, OLH, Hadamard, Subset",
            hint="for LDP use clone_delta; for the geometric mechanism blanket_view_delta_enumerate",
        )
    return mech


def _atoms5(mech, ee):
    g = mech.gamma()
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = mech.l_law(exp_epsilon=ee)
    return g, (mech.gamma_complement(), g * pb, g * pt, g * pn, g * pr), (vb, vt, vn, vr)


def zeroed_atoms(masses: tuple, values: tuple) -> list:
    """The four-atom engine's input for the zeroed view (docs/numerics.md, "The zeroed view"): the masses
    ``(1 − γ, γπ_b, γπ_t, γπ_t, γπ_r)`` and values ``(v_b, v_t, v_{t'}, v_r)`` of :func:`_atoms5` with ``v_b`` and
    ``v_r`` raised to 0 (an upper bound on ``E[(Σ V)_+]`` when both are ``≤ 0``, i.e. ``ee ≥ 1``; refused otherwise).
    Three values: the engine's bulk count is degenerate.  O(1)."""
    (a0, ab, at, an, ar), (vb, vt, vn, vr) = masses, values
    if not (_upper_end(vb) <= 0 and _upper_end(vr) <= 0):
        raise InvalidArgument("values", (vb, vr), "the zeroed view needs v_both <= 0 and v_rest <= 0 (e^eps >= 1)")
    return [(a0 + ab + ar, fmpq(0)), (at, vt), (an, vn), (fmpq(0), fmpq(0))]


def blanket_view_bracket(
    mech: Randomizer,
    n: int,
    *,
    merged: bool = True,
    with_lower: bool = True,
    engine: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Bracket5:
    """The convex-order bracket of the blanket view: :class:`Bracket5` ``(lower, upper)``, each ``E[...]/(γn)``.

    Each end is one call of the four-atom engine, so the cost is that of the
    k-RR blanket view: O(√n·√log(1/tol)) ball operations and memory for
    ``n > exact_max_n`` (one-dimensional route), exact rationals below.
    The true Lemma 5.3 value lies in ``[lower, upper]`` (of the balls:
    ``[lower.lower(), upper.upper()]``).  ``upper`` is itself a certified
    upper bound on δ(ε) of the shuffled mechanism: the smaller (by upper
    end) of the convex-order spread and, with ``merged``, the merged view
    (:func:`blanket_view_delta_merged`, one more
    engine call with a degenerate weak count, cheaper than the other two),
    computed only where the spread's enclosure is wide (relative radius above
    :data:`MERGED_WHEN_WIDER`, deep in the tail): where it is narrow the
    merged view, whose mean is larger, does not win.  Where the result is still wide or above 1, with ``merged``
    also the zeroed view (docs/numerics.md, "The zeroed view": "both" and "rest" raised to 0; one more engine call,
    exact up to the windowing; it wins at a large ε0, SUE k = 8, ε0 = 40, n = 10⁶).
    ``with_lower=False`` skips the lower end's engine call and returns 0 as the
    (trivial, still valid) lower end: for callers that need only the upper bound.
    ``engine`` is passed to every engine call (:func:`exact.shuffled.krr.expected_positive_part`; e.g.
    ``"1d-jensen"``, the cheaper route the privacy curves use at large n).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    Runs at :func:`~blanket.exact.mechanisms.oracles.cancellation_precision` (``2·log2 e^{ε0}`` more bits from
    ε0 ≈ 13.8): the atoms' probabilities are ``~e^{−2ε0}`` and their values ``~e^{ε0}``, so at a huge ε0 a ball at
    the caller's precision (53 or 256 bits) lost every digit (OUE k = 3, n = 4, ε0 = 100 sampled, ε0 = 500; SUE from ε0 = 40: NaN).
    """
    rec = _check_mech(mech)
    with arith.precision(cancellation_precision(rec)):
        return _blanket_view_bracket(rec, n, merged=merged, with_lower=with_lower, engine=engine, opts=opts)


def _blanket_view_bracket(
    rec: FourValue, n: int, *, merged: bool, with_lower: bool, engine: str | None, opts: DeltaOptions
) -> Bracket5:
    """:func:`blanket_view_bracket`'s body at the precision it chose.  Same cost."""
    q = delta_args(rec, n, opts, "blanket_view_bracket")
    if q is None:
        return Bracket5(fmpq(0), fmpq(0))
    n, ee, tol, exact_max_n = q
    g, (a0, ab, at, an, ar), (vb, vt, vn, vr) = _atoms5(rec, ee)
    label = f"{rec.kind} blanket view n={n}"

    def run(atoms):
        v = expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=label, engine=engine)
        return v / (g * n)

    if _is_zero(ab) or _is_zero(ar):
        # V has four atoms: one engine call is the exact value
        v = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vb if _is_zero(ar) else vr)])
        return Bracket5(v, v)
    vm = (ab * vb + ar * vr) / (ab + ar)
    lower = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vm)]) if with_lower else fmpq(0)
    lam = 1 / rec.exp_epsilon0()  # v_r = lam·v_b + (1 − lam)·0
    spread = [(a0 + ar * (1 - lam), fmpq(0)), (at, vt), (an, vn), (ab + ar * lam, vb)]
    upper = run(spread)
    capped = _chernoff_capped(upper, n, spread, g)
    if capped is not upper:  # the Chernoff bound is below the spread's upper end: the merged view cannot help ...
        if not (merged and _above_one(capped)):
            return Bracket5(lower, capped)
        # ... except where both are above 1 (no information): OLH k = 64, g = 8, ε0 = 40, n = 10^6 had the spread at
        # ±4e11 and the cap at 3.9e9 (γ ~ 3e-17 divides the 1-D route's absolute errors) and the merged view 0.875
        upper = capped
    if merged and _wide(upper):
        # "both" raised to the "rest" value (v_b ≤ v_r): also an upper bound, and its enclosure is narrower
        # deep in the tail (δ far below 1e-9 at n = 10^6), where the spread's weak count widens the engine's ball;
        # where the spread's enclosure is narrow the merged view (a larger mean) does not win: not computed then
        # a NaN spread (OUE k = 8, ε0 = 100, n = 10^6: the 1-D route's weak-count gap with |u_1| ~ e^{ε0}) has no
        # upper end to compare: the merged view then wins if it is finite (the NaN once dropped the whole route)
        alt = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vr)])
        if arith.ball(alt).is_finite() and (not arith.ball(upper).is_finite() or _upper_end(alt) < _upper_end(upper)):
            upper = alt
    if merged and (_wide(upper) or _above_one(upper)) and _upper_end(vb) <= 0 and _upper_end(vr) <= 0:
        # "both" and "rest" raised to 0 (docs/numerics.md, "the zeroed view"): three values, so the engine's bulk count
        # is degenerate and its 1-D route exact up to the windowing; at a large ε0 the rest atom's pull is negligible
        # and the other routes' weak-count bound is not (SUE k = 8, ε0 = 40, n = 10^6: merged 1 ± 1.7e-6, the spread
        # ±4e11, an upper end of 1 against the true 0.9999999958; zeroed 0.99999999587344440635 ± 1e-28)
        alt = run(zeroed_atoms((a0, ab, at, an, ar), (vb, vt, vn, vr)))
        if arith.ball(alt).is_finite() and (not arith.ball(upper).is_finite() or _upper_end(alt) < _upper_end(upper)):
            upper = alt
    if not arith.ball(upper).is_finite():  # both NaN (OLH k = 64, g = 8, ε0 = 100, n = 10^6): this route says nothing
        raise Undecided(f"the {rec.kind} blanket view's enclosure is not finite at n = {n} (the engine's 1-D route)")
    return Bracket5(lower, upper)


def _chernoff_capped(upper: Enclosure, n: int, spread: list, g: Enclosure) -> Enclosure:
    """``upper``, the engine's enclosure of the spread's ``E[(Σ V)_+]/(γn)``, intersected with ``[0, C]``, ``C`` the
    certified Chernoff bound on the same value (:func:`blanket.exact.shuffled.positive_part.chernoff_capped`,
    docs/numerics.md Lemma K5).  O(number of atoms) ball operations."""
    from blanket.exact.shuffled.positive_part import chernoff_capped

    return chernoff_capped(upper, n, spread, arith.ball(g) * n)


#: the merged view is computed only when the spread's enclosure has a relative radius above this (or contains 0)
MERGED_WHEN_WIDER = fmpq(1, 16)


def _wide(v) -> bool:
    """Whether an enclosure's radius exceeds :data:`MERGED_WHEN_WIDER` times its midpoint (exact values: never)."""
    if isinstance(v, fmpq):
        return False
    if not arith.ball(v).is_finite():
        return True
    lo, hi = arith.endpoints(v)
    return bool(lo <= 0 or (hi - lo) * int(MERGED_WHEN_WIDER.q) > int(MERGED_WHEN_WIDER.p) * (hi + lo))


def _above_one(v) -> bool:
    """Whether an enclosure is not finite or its upper end is above 1 (a δ bound that says nothing).  O(1)."""
    return not arith.ball(v).is_finite() or _upper_end(v) > 1


def _upper_end(v):
    return v if isinstance(v, fmpq) else arith.endpoints(v)[1]


def blanket_view_upper(
    mech: Randomizer, n: int, *, engine: str | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """A certified **upper bound** on δ(ε) of the shuffled mechanism (the bracket's upper end), as an enclosure.

    Unlike :func:`blanket_view_delta_fast` its width is only the engine's
    (it narrows as the precision escalates), so it is the δ-function to
    calibrate ε with (:func:`exact.numbers.calibrate.epsilon_for_delta`).
    Cost: that of :func:`blanket_view_bracket` (``engine`` is passed to it).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    return blanket_view_bracket(mech, n, with_lower=False, engine=engine, **opts).upper


def blanket_view_upper_end(mech: Randomizer, n: int, epsilon: NumberInput) -> fmpq:
    """A certified **upper bound** (an exact rational) on δ(ε) of the shuffled four-value record ``mech``: the smaller
    of :func:`blanket_view_upper`'s upper end and the Chernoff bound (docs/numerics.md, Lemma K5,
    :func:`~blanket.exact.shuffled.positive_part.chernoff_upper`) on the exact blanket view ``E[(Σ_{i≤n} V_i)_+]/(γn)``
    itself (``V = L^ε`` w.p. ``γ``, else 0; Lemma 5.3), which is at least δ.  Deep in the tail the engine's windowing
    sets the first (binary RR as ``Subset(2, 1)``, sampled at ``q = 1/10``, ε0 = 1, n = 1000, ε = 0.3: 4.4e-29, not
    capped there since the four-atom branch of :func:`blanket_view_bracket` returns the engine's value as it is) and
    the second is far smaller (9.0e-114).  Runs at ``max(128, cancellation_precision)`` bits.  Cost: that of
    :func:`blanket_view_bracket` without its lower end, plus O(1) ball operations and a 200-step float search."""
    from blanket.exact.shuffled.positive_part import chernoff_upper

    rec = _check_mech(mech)
    e = arith.exact(epsilon, "epsilon")
    with arith.precision(max(128, cancellation_precision(rec))):
        v = blanket_view_upper(rec, n, epsilon=e)
        if isinstance(v, arb) and not (v.is_finite() and v < 2):
            up = fmpq(1)  # δ ≤ 1 always; an astronomically large end is never turned into an exact rational
        else:
            u = _upper_end(v)
            up = u if isinstance(u, fmpq) else fmpq(u.numerator, u.denominator)
        g, masses, values = _atoms5(rec, arith.ball(e).exp())
        atoms = [(a, v) for a, v in zip(masses, (fmpq(0), *values)) if not _is_zero(a)]
        # masses (1 − γ, γπ_b, γπ_t, γπ_t', γπ_r) against values (0, v_b, v_t, v_t', v_r); the ball e^ε encloses it
        c = chernoff_upper(n, atoms) / (arith.ball(g) * n)
    if c.is_finite() and c < 2:  # only a bound below 2 can be the smaller end (an end like e^(10^9) at a huge ε0
        # would cost gigabytes as an exact rational: the CI run that found it was killed at 23 GB)
        ch = arith.endpoints(c)[1]
        if fmpq(ch.numerator, ch.denominator) < up:
            up = fmpq(ch.numerator, ch.denominator)
    return up


def blanket_view_delta_fast(
    mech: Randomizer, n: int, *, exact_below: int = FAST_EXACT_BELOW, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """Certified enclosure of the Lemma 5.3 blanket view δ(ε) of a frequency oracle, fast (n = 10⁶ in about a second).

    Same value as :func:`blanket_view_delta` (the
    binomial mixture, O(n^{3/2})), enclosed differently: for exact inputs and
    ``n < exact_below`` that exact ``fmpq`` is returned; otherwise the ball
    ``[lower, upper]`` of :func:`blanket_view_bracket` (convex order,
    docs/numerics.md Lemma O1), which contains the exact value.  Its upper
    end is a certified upper bound on δ(ε) of the shuffled mechanism, its
    lower end a certified lower bound on the Lemma 5.3 value (not on δ).

    Complexity: three calls of the four-atom engine, O(√n·√log(1/tol)) ball
    operations and memory each (about 15× that on its blocked route,
    n ≤ 3·10⁶).  Measured: about 1.8 CPU s at n = 10⁶, 16–19 CPU s at n = 10⁹
    (tests/benchmarks/bench_oracles.py).  The enclosure is narrow where δ
    matters (relative width ≤ 1e-4 at n = 10⁶, δ ≈ 1e-6) but its width is
    absolute, about 1e-10 at n = 10⁶ (the engine's bound on its weak count),
    so far below that a δ is not resolved.  Returns ``0`` exactly when ``ε ≥ ε0`` is certified.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    q = delta_args(_check_mech(mech), n, opts, "blanket_view_delta_fast")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    if n < exact_below and getattr(mech, "is_exact", False) and isinstance(ee, fmpq):
        return blanket_view_delta(mech, n, exp_epsilon=ee, tol=tol, exact_max_n=max(exact_max_n, exact_below))
    br = blanket_view_bracket(mech, n, exp_epsilon=ee, tol=tol, exact_max_n=exact_max_n)
    lo, hi = br.lower, br.upper
    if isinstance(lo, fmpq) and isinstance(hi, fmpq):
        return lo if lo == hi else arb(lo).union(arb(hi))
    lo_b, hi_b = arith.ball(lo), arith.ball(hi)
    return arb(lo_b.lower()).union(arb(hi_b.upper()))


# ================================================================ the explicit matrix with ball entries (small k)
class OracleMatrix(FiniteRandomizer):
    """The explicit randomizer of a frequency-oracle record whose ``e^{ε0}`` is a ball (ε0 exact), for the
    exhaustive worst case (:mod:`exact.shuffled.enumerate`) at small ``k`` and ``n``.

    ``FiniteRandomizer`` itself takes exact entries only; here the entries are
    balls at the current precision (``KRR(k, epsilon0=...)`` does the same).
    Output columns proportional on every row are merged (a sufficient
    statistic): in these records each column is ``c_y·(a or b per input)``
    with ``a > b`` (the input "hits" y or not), so columns with the same hit
    pattern are proportional for every ``e^{ε0}``; the pattern is read from
    the exact record at ``e^{ε0} = 3`` (any value > 1 gives the same
    pattern: it compares ``a`` with ``b``).  Cost ``O(k·outputs)``; refused
    above ``MAX_MATRIX_OUTPUTS`` outputs.

    >>> from blanket.exact.mechanisms.oracles import Subset
    >>> m = OracleMatrix(Subset(4, 2, epsilon0="1"))
    >>> m.k_in, m.k_out, m.row(0)[0].overlaps(arb(1).exp() / (3 * arb(1).exp() + 3))
    (4, 6, True)
    """

    def __init__(self, mech):
        _check_mech(mech)
        surrogate = _surrogate(mech)
        pattern_rows = surrogate.rows()
        k_in = len(pattern_rows)
        if getattr(mech, "output_count", None) and mech.output_count() > _max_outputs():
            raise InvalidArgument(
                "output space", mech.output_count(), f"must be <= {_max_outputs()} for the explicit matrix"
            )
        rows = mech.rows()
        groups: dict = {}
        for y in range(len(pattern_rows[0])):
            col = [r[y] for r in pattern_rows]
            top = max(col)
            if len(set(col)) > 2:
                raise InvalidArgument("mech", mech.kind, "has a column with more than two values (not an oracle)")
            groups.setdefault(tuple(c == top for c in col), []).append(y)
        merged = []
        for r in rows:
            out = []
            for ys in groups.values():
                s = fmpq(0)
                for y in ys:
                    s = r[y] + s if isinstance(r[y], arb) else s + r[y]
                out.append(s)
            merged.append(out)
        self._rows = merged
        self.k_in = k_in
        self.k_out = len(groups)
        self.name = mech.kind
        self._mech = mech

    @property
    def is_exact(self) -> bool:
        return bool(self._mech.is_exact)

    def exp_epsilon0(self) -> Enclosure:
        return self._mech.exp_epsilon0()

    def describe(self) -> dict:
        return {**self._mech.describe(), "columns": "merged by hit pattern"}


def _max_outputs() -> int:

    return MAX_MATRIX_OUTPUTS


def _surrogate(mech):
    """The same record with the exact ``e^{ε0} = 3`` (for the column pattern only)."""

    kind = mech.kind
    if kind == "oue":
        return OUE(mech.k, exp_epsilon0=3)
    if kind == "sue":
        return SUE(mech.k, exp_half_epsilon0=2)
    if kind == "olh":
        if mech.family is None:
            raise InvalidArgument("family", None, "must be given explicitly to build the matrix of local hashing")
        return OLH(mech.k, mech.g, exp_epsilon0=3, family=mech.family)
    if kind == "hadamard":
        return Hadamard(mech.k, exp_epsilon0=3)
    if kind == "subset":
        return Subset(mech.k, mech.d, exp_epsilon0=3)
    raise InvalidArgument("mech", kind, "must be one of oue, sue, olh, hadamard, subset")


# ================================================================ certified upper bounds
def _check_n(n: object) -> int:
    return arith.integer_in(n, "n", lo=1)


def _chernoff_tail(N: int, rho, m: int, upper: bool, rho_c=None):
    """Chernoff–Hoeffding ``P(X ≥ m)`` (upper, needs m ≥ Nρ) or ``P(X ≤ m)`` (m ≤ Nρ) for ``X ~ Bin(N, ρ)``, as a ball.
    ``rho_c``: ``1 − ρ`` when the caller has it without cancellation (default ``1 − ρ``)."""
    mean = N * arith.ball(rho)
    rc = arith.ball(1 - rho if rho_c is None else rho_c)
    expo = arb(0)
    if m > 0:
        expo += m * (arb(m) / mean).log()
    if m < N:
        expo += (N - m) * (arb(N - m) / (N * rc)).log()
    return (-expo).exp()


def _binom_window(N: int, rho, tol, rho_c=None):
    """``[lo, hi]`` around ``Nρ`` with a certified bound on the mass outside (each side ≤ tol/2); ``rho_c`` as in
    :func:`_chernoff_tail`."""
    r = float(arith.ball(rho).mid())
    mu, sd = N * r, math.sqrt(max(N * r * (1 - r), 1.0))
    z = math.sqrt(2 * max(1.0, math.log(2 / float(tol)))) + 2
    while True:
        lo, hi = max(0, int(mu - z * sd)), min(N, int(math.ceil(mu + z * sd)))
        tail = arb(0)
        ok = True
        if lo > 0:
            if not (lo <= N * arith.ball(rho)):
                ok = False
            else:
                tail += _chernoff_tail(N, rho, lo - 1, upper=False, rho_c=rho_c)
        if hi < N and ok:
            if not (hi + 1 >= N * arith.ball(rho)):
                ok = False
            else:
                tail += _chernoff_tail(N, rho, hi + 1, upper=True, rho_c=rho_c)
        if ok and (tail <= arb(tol) or (lo == 0 and hi == N)):
            return lo, hi, tail
        z *= 1.5


def _binom_pmf_range(N: int, rho, lo: int, hi: int, exact_mode: bool, rho_c=None) -> list:
    """``Bin(N, ρ)(j)`` for ``lo ≤ j ≤ hi`` (exact, or balls from one lgamma and ratio steps); ``rho_c``: ``1 − ρ``
    without cancellation when the caller has it (``ρ`` within a ball's rounding of 1: a sampled record's ``γ_q``).
    O(hi − lo) operations."""
    if rho_c is None:
        rho_c = 1 - rho
    if exact_mode:
        return [math.comb(N, j) * rho**j * rho_c ** (N - j) for j in range(lo, hi + 1)]
    r, rc = arith.ball(rho), arith.ball(rho_c)
    lr, l1r = r.log(), rc.log()
    first = (arb(N + 1).lgamma() - arb(lo + 1).lgamma() - arb(N - lo + 1).lgamma() + lo * lr + (N - lo) * l1r).exp()
    out = [first]
    ratio = r / rc
    for j in range(lo, hi):
        out.append(out[-1] * ratio * (N - j) / (j + 1))
    return out


def _mixture_over_M(n: int, gamma, l_atoms, *, tol, exact_max_n: int, gamma_c=None):
    """``(1/(γn)) Σ_M Bin(n, γ)(M) · E[(Σ_{i≤M} L_i)_+]`` for a four-atom L (both, t, t', rest); ``gamma_c``: ``1 − γ``
    without cancellation (:meth:`~blanket.exact.mechanisms.oracles.FourValue.gamma_complement`)."""
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = l_atoms
    vals = [gamma, vb, pb, vt, pt, vn, pn, vr, pr]
    exact_mode = all(_is_exact(v) for v in vals) and n <= exact_max_n
    engine_atoms = [(pr, vr), (pt, vt), (pn, vn), (pb, vb)]
    if not exact_mode and not arith.ball(pr) < 1:
        # π_rest within a ball's rounding of 1 (a sampled record at q below 2^-prec): the engine's bulk probability
        # π_rest/(π_rest + π_both) would be a ball over 1 and its complement's log NaN; the same sum with the two
        # ancillary atoms swapped takes π_both/(π_both + π_rest), which keeps its digits
        engine_atoms = [(pb, vb), (pt, vt), (pn, vn), (pr, vr)]
    if exact_mode:
        lo, hi, tail = 0, n, fmpq(0)
    else:
        lo, hi, tail = _binom_window(n, gamma, tol, rho_c=gamma_c)
    weights = _binom_pmf_range(n, gamma, lo, hi, exact_mode, rho_c=gamma_c)
    total: Enclosure = fmpq(0)
    for M, w in zip(range(lo, hi + 1), weights):
        if M == 0:
            continue
        v = expected_positive_part(
            M, engine_atoms, tol=tol, exact_max_n=exact_max_n if exact_mode else -1, label=f"blanket view M={M}"
        )
        total = w * v + total if not (_is_exact(w) and _is_exact(v)) else total + w * v
    if not _is_zero(tail):
        vmax: Enclosure = fmpq(0)
        for v, p in ((vb, pb), (vt, pt), (vn, pn), (vr, pr)):
            if not _is_zero(p):
                vmax = arith.ball(vmax).max(arith.ball(v))
        err = arith.ball(tail) * arith.ball(vmax).max(arb(0)) * n
        t = arith.ball(total)
        total = t.union(t + err)
    return total / (gamma * n)


def _four_value(
    mech: Randomizer, accepted: str = "OUE, SUE, OLH, Hadamard, Subset", hint: str | None = None
) -> FourValue:
    """``mech`` when it is a four-value mechanism, else :class:`InvalidArgument` naming ``accepted`` (and ``hint``)."""
    return guards.require_instance(mech, FourValue, "mech", f"must be one of {accepted}", shown="kind", hint=hint)


def blanket_view_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Balle et al. Lemma 5.3 for a four-value mechanism: ``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``.

    A certified **upper bound** on δ(ε) of the shuffled mechanism over every
    pair of neighbouring datasets (it is the hockey-stick divergence of the
    view that reveals the other users' blanket draws; all ordered pairs
    x ≠ x' have the same L-law).  Exact ``fmpq`` when ``e^{ε0}`` and ``e^ε``
    are exact and ``n ≤ exact_max_n``; otherwise a ball (the window of M and
    each engine call carry their certified left-out mass).  Exactly 0 when
    ``ε ≥ ε0``.  Cost ``O(W_M · n log(1/tol))``, ``W_M = O(sqrt(n log(1/tol)))``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> blanket_view_delta(Subset(3, 1, exp_epsilon0=2), 2, exp_epsilon=1)   # = 3-RR, exact.shuffled.krr gives 3/16
    3/16
    """
    hint = "for the geometric mechanism use blanket_view_delta_enumerate; for LDP use clone_delta"
    mech = _four_value(mech, hint=hint)
    q = delta_args(mech, n, opts, "blanket_view_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    return _mixture_over_M(
        n, mech.gamma(), mech.l_law(exp_epsilon=ee), tol=tol, exact_max_n=exact_max_n, gamma_c=mech.gamma_complement()
    )


def blanket_view_delta_merged(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """A certified upper bound on :func:`blanket_view_delta`, fast: the "both" atom of L merged into "rest".

    For ``ε ≥ 0`` the value ``γe(1−ee)`` of the "both" atom is ``≤ γ(1−ee)``
    (the "rest" value, itself ``≤ 0``), and ``x ↦ (x)_+`` is non-decreasing,
    so replacing it by the rest value can only increase
    ``E[(Σ V_i)_+]``.  The merged ``V`` has four atoms (0, t, t', rest): one
    call of the four-atom engine, ``O(n log(1/tol))`` — the speed of the
    k-RR blanket view.  The loss against the exact Lemma 5.3 value is
    reported by ``tests/benchmarks/bench_oracles.py`` (it vanishes when
    ``π_both = 0``, e.g. subset selection with d = 1 = k-RR).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> m = OUE(3, exp_epsilon0=3)
    >>> blanket_view_delta_merged(m, 4, exp_epsilon=1) >= blanket_view_delta(m, 4, exp_epsilon=1)
    True
    """
    mech = _four_value(mech)
    q = delta_args(mech, n, opts, "blanket_view_delta_merged")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    gm = mech.gamma()
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = mech.l_law(exp_epsilon=ee)
    atoms = [(mech.gamma_complement(), fmpq(0)), (gm * pt, vt), (gm * pn, vn), (gm * (pb + pr), vr)]
    return expected_positive_part(
        n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{mech.kind} blanket view (merged) n={n}"
    ) / (gm * n)


def best_upper_delta(
    mech: Randomizer, n: IntegerInput, *, exhaustive_max_n: int = 2000, **opts: Unpack[DeltaOptions]
) -> tuple[Enclosure, str, dict[str, Enclosure]]:
    """Every applicable certified upper bound on δ(ε), and the smallest: ``(value, name, {name: value})``.

    Candidates: the FOCS 2021 clone pair (every mechanism), the fast
    blanket view's certified upper end (four-value mechanisms:
    :func:`exact.shuffled.oracles.blanket_view_upper`, the convex-order
    spread or the merged view), and the exact Lemma 5.3 mixture
    when ``n ≤ exhaustive_max_n`` (it is ``O(n^{3/2})``).  The smallest is
    chosen by upper ends of the enclosures (a ball's upper end is what is
    certified).  An :class:`LDP` record has only the clone bound.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    guards.check_options("best_upper_delta", opts, DeltaOptions)
    n = _check_n(n)
    cands = {"clone pair (FOCS 2021)": clone_delta(mech, n, **opts)}
    if isinstance(mech, FourValue):
        # the convex-order upper end (blanket_view_upper) already takes the merged view when it is smaller
        cands["blanket view, fast upper end (Lemma 5.3)"] = blanket_view_upper(mech, n, **opts)
        if n <= exhaustive_max_n:
            cands["blanket view (Lemma 5.3)"] = blanket_view_delta(mech, n, **opts)

    def upper(v):
        return v if _is_exact(v) else arith.endpoints(v)[1]

    name = min(cands, key=lambda k: upper(cands[k]))
    return cands[name], name, cands


def epsilon_upper(
    delta_of_epsilon: Callable[[fmpq], Enclosure],
    target_delta: NumberInput,
    *,
    hi: NumberInput,
    rel_tol: NumberInput = "1e-4",
) -> Bracket:
    """Certified upper end of the smallest ε with ``δ(ε) ≤ target`` for one of this module's δ-functions.

    ``delta_of_epsilon(ε)`` is e.g. ``lambda e: clone_delta(mech, n, epsilon=e)``
    (non-increasing in ε); ``hi`` a point where the target is met (ε0 always
    is: every bound here is 0 at ε ≥ ε0).  Delegates to
    :func:`exact.numbers.calibrate.epsilon_for_delta`; returns its Bracket.
    """

    return epsilon_for_delta(delta_of_epsilon, target_delta, hi=hi, rel_tol=rel_tol)


def clone_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """``H_{e^ε}(P‖Q)`` of the FOCS 2021 clone pair: a certified upper bound on δ(ε) for **every** ε0-LDP randomizer.

    Pair (Feldman–McMillan–Talwar, FOCS 2021; structure corroborated by the
    authors' code, see docs/mechanisms.md): ``C ~ Bin(n−1, e^{−ε0})``,
    ``A ~ Bin(C, 1/2)``, ``Δ ~ Bern(e/(e+1))``, ``P = (A+Δ, C−A+1−Δ)``,
    ``Q = (A+1−Δ, C−A+Δ)``.  Evaluated through the identity (derived; tested
    against the enumerated pair) ``H = (1/(p n)) E[(Σ_{i=1}^n V_i)_+]``,
    ``p = e^{−ε0}``, ``V = 2(e−ee)/(e+1)`` or ``2(1−ee·e)/(e+1)`` w.p. ``p/2``
    each, else 0.  ``mech`` is anything with ``exp_epsilon0()`` (an
    :class:`LDP` record, or any mechanism of this module).  The pair is
    symmetric, so one direction suffices.  Cost ``O(n log(1/tol))``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> P, Q = clone_pair_law(2, 3)                     # the pair by its definition
    >>> clone_delta(LDP(exp_epsilon0=3), 2, exp_epsilon=2), sum(max(P[o] - 2 * Q.get(o, 0), 0) for o in P)
    (5/24, 5/24)
    """
    q = delta_args(mech, n, opts, "clone_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = finite_exp_epsilon0(mech, "the clone pair")
    p = 1 / e
    atoms = [(fmpq(0), fmpq(0)), (p / 2, 2 * (e - ee) / (e + 1)), (p / 2, 2 * (1 - ee * e) / (e + 1)), (1 - p, fmpq(0))]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"clone pair n={n}") / (p * n)


def clone_pair_law(n: int, exp_epsilon0: NumberInput, clone_prob: NumberInput | None = None) -> tuple[dict, dict]:
    """The clone pair ``(P, Q)`` by its definition, as exact dicts ``{(u, v): prob}`` (small n; tests).

    ``clone_prob`` defaults to ``e^{−ε0}`` (FOCS 2021).  Cost ``O(n^2)``.
    """
    n = _check_n(n)
    e = arith.exact_in(exp_epsilon0, "exp_epsilon0", lo=1)
    pc = 1 / e if clone_prob is None else arith.exact_in(clone_prob, "clone_prob", lo=0, hi=1)
    dl = e / (e + 1)
    P: dict = {}
    Q: dict = {}
    for c in range(n):
        wc = math.comb(n - 1, c) * pc**c * (1 - pc) ** (n - 1 - c)
        for a in range(c + 1):
            wa = wc * fmpq(math.comb(c, a), 2**c)
            for d, wd in ((1, dl), (0, 1 - dl)):
                kp = (a + d, c - a + 1 - d)
                kq = (a + 1 - d, c - a + d)
                P[kp] = P.get(kp, fmpq(0)) + wa * wd
                Q[kq] = Q.get(kq, fmpq(0)) + wa * wd
    return P, Q


def same_family_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Exact δ(ε) between the datasets ``x^n`` and ``x^{n−1} x'`` (max of both directions): a certified **lower** bound.

    By the sufficient statistic of ``exact/shuffled/krr.py`` (others i.i.d. ``R(x)``):
    forward ``(1/n) E[(Σ_i (1 − ee·Λ_i))_+]``, backward
    ``(1/n) E[(Σ_i (Λ_i − ee))_+]``, ``Λ = R(x')(Y)/R(x)(Y)``, ``Y ~ R(x)``,
    which takes the values ``1/e`` (w.p. a), ``e`` (w.p. b), 1.
    For an :class:`LDP` record (any ε0-LDP randomizer) the witness is
    binary randomized response with the same ε0 — one member of the class.
    Cost: the bulk count is degenerate (the engine's fourth atom has mass 0), so each
    direction is one call of the engine's one-dimensional route, O(√n·√log(1/tol)) ball operations
    (about 0.08 CPU s at n = 10⁶), exact rationals for exact inputs and ``n ≤ EXACT_MAX_N``.
    Runs at :func:`~blanket.exact.mechanisms.oracles.cancellation_precision` (safe at any ε0 by itself); a ball
    that is still not finite raises :class:`~blanket.exact.numbers.errors.Undecided` (never NaN).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.shuffled.krr import delta_krr_family
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> same_family_delta(Subset(3, 1, exp_epsilon0=2), 2, exp_epsilon=1), delta_krr_family(KRR(3, exp_epsilon0=2), 2, "same", exp_epsilon=1)
    (3/16, 3/16)
    """
    if not isinstance(mech, LDP):
        mech = _four_value(mech, accepted="LDP, OUE, SUE, OLH, Hadamard, Subset")
    # at the caller's precision a huge ε0 lost every digit (values ~e^{ε0}: OUE k = 8, ε0 = 100 gave ±7.5e28 at
    # n = 120 and ran for minutes at n = 10^6 at 53 bits; LDP ε0 = 100: ±1.5e29); the body runs at the oracles'
    # cancellation precision
    prec = cancellation_precision(mech)
    with arith.precision(prec):
        if isinstance(mech, LDP):
            # a concrete ε0-LDP randomizer: binary randomized response, through the k-RR family engine (the
            # subset-selection route k = 2, d = 1 has a 'rest' mass that is a ball around 0 when ε0 is given, and
            # the engine then returned nan)
            rr = KRR(2, mech.epsilon0, exp_epsilon0=mech.exp_epsilon0_exact)
            out = delta_krr_family(rr, _check_n(n), "same", **opts)
        else:
            out = _same_family_delta(mech, n, opts)
    if isinstance(out, arb):
        out = +out  # rounded to the caller's precision (still an enclosure)
    if isinstance(out, arb) and not out.is_finite():
        raise Undecided(
            f"the {mech.kind} same-family pair's δ is not finite at n = {n} at {prec} bits; raise the precision"
        )
    return out


def _same_family_delta(mech: FourValue, n: IntegerInput, opts: DeltaOptions) -> Enclosure:
    """:func:`same_family_delta`'s body for a four-value record, at the precision it chose.  Same cost."""
    q = delta_args(mech, n, opts, "same_family_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = mech.exp_epsilon0()
    a, b = mech.ratio_law()
    rest = 1 - a - b
    out = []
    for forward in (True, False):
        # the two informative atoms in decreasing order of value (the sum is symmetric in the atoms): the
        # engine's one-dimensional route needs v_t > v_t', and this law's bulk count is degenerate (π_r = 0),
        # so both directions take it (exact up to the windowing, O(√n)); in the other order the backward
        # direction fell back to the two-dimensional grid, O(n log(1/tol)) -- 5 s at n = 10^6
        if forward:
            hi_atom, lo_atom, v1 = (a, 1 - ee / e), (b, 1 - ee * e), 1 - ee
        else:
            hi_atom, lo_atom, v1 = (b, e - ee), (a, 1 / e - ee), 1 - ee
        atoms = [(rest, v1), hi_atom, lo_atom, (fmpq(0), v1)]
        out.append(expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="same family") / n)
    return arith.maximum(out)  # exact max of exact values, else the ball max


# ================================================================ small-n enumeration (any finite L law)
def blanket_view_delta_enumerate(mech: Randomizer, n: IntegerInput, **at: Unpack[At]) -> Enclosure:
    """Lemma 5.3 for a mechanism with an explicit matrix (here: :class:`Geometric`), max over ordered pairs; small n.

    Sums over the multinomial counts of the atoms of ``V`` (``L`` w.p. γ,
    else 0): cost ``O(m^2 · C(n+A−1, A−1))``, ``A ≤ m+1`` atoms.  Exact for
    exact inputs; more than 10⁶ terms are refused (``InvalidArgument`` naming ``n``).  A fast engine for this
    case needs a sum over an m-atom law — e.g. a lattice convolution when the values of L are commensurable —
    which is left for the engine rewrite.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.shuffled.krr import delta_blanket_view
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> blanket_view_delta_enumerate(Geometric(2, alpha="1/2"), 2, exp_epsilon=1), delta_blanket_view(KRR(2, exp_epsilon0=2), 2, exp_epsilon=1)
    (2/9, 2/9)
    """

    guards.check_options("blanket_view_delta_enumerate", at, At)
    # a record's explicit matrix; a FiniteRandomizer is used as it is (its own matrix() is the list of rows)
    fr = mech.matrix() if isinstance(mech, (FourValue, Geometric)) else mech
    fr = guards.require_instance(
        fr, FiniteRandomizer, "mech", "must be a finite randomizer (exact.mechanisms.finite.FiniteRandomizer or KRR)"
    )
    n = _check_n(n)
    return delta_blanket_view(fr, n, method="enumerate", **at)


# ================================================================ a published bound, to be judged (not a certified bound)
def variation_ratio_delta(
    n: IntegerInput, p: NumberOrBall, beta: NumberOrBall, q: NumberOrBall | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """δ(ε) of the variation-ratio pair of Wang et al. (VLDB 2024) — **a published bound, not certified by Blanket**.

    This is this project's exact reading of the authors' ``Delta(ep, alpha, r0, r1, n, p)``
    (``wangsw/PrivacyAmplification``, ``unifiedamplification.py``, HEAD 34ca048) for
    ``q0 = q1 = q``.  ``α = β/(p−1)``, ``r = αp/q``.  The other users are i.i.d.
    on {0, 1, N} with masses ``(r, r, 1−2r)``.  The differing user has
    ``(pα, α, 1−α−pα)`` under one hypothesis and ``(α, pα, ·)`` under the other.
    By the sufficient statistic of exact/shuffled/krr.py,
    ``δ = (1/n) E[(Σ_i V_i)_+]`` with ``V = (p−ee)α/r``, ``(1−ee·p)α/r`` (mass ``r`` each)
    or ``(1−α−pα)(1−ee)/(1−2r)``.  The authors' float code agrees to 7+ digits at
    5 test points (docs/mechanisms.md).  ``p, beta, q`` are exact (``q`` defaults to ``p``).
    Cost ``O(n log(1/tol))``.

    For k-RR with the README's parameters ``p = q = e``, ``β = (e−1)/(e+k−1)`` it equals
    the *lumped* third-value view (exact.shuffled.krr.delta_krr_third_lumped).  That view is
    below the exact worst case for k ≥ 4: see tests/test_oracles.py for the counterexample.

    With the generic β = (e−1)/(e+1) it is the SODA 2023 stronger-clone pair, that is, the blanket view of binary RR:

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.shuffled.krr import delta_blanket_view
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> variation_ratio_delta(4, 3, fmpq(1, 2), exp_epsilon=fmpq(3, 2)) == delta_blanket_view(KRR(2, exp_epsilon0=3), 4, exp_epsilon=fmpq(3, 2))
    True
    """
    guards.check_options("variation_ratio_delta", opts, DeltaOptions)
    n = _check_n(n)
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    tol, exact_max_n = engine_options(opts)
    p = p if isinstance(p, arb) else arith.exact_in(p, "p", lo=1, lo_open=True)
    beta = beta if isinstance(beta, arb) else arith.exact_in(beta, "beta", lo=0, hi=1, lo_open=True)
    q = p if q is None else (q if isinstance(q, arb) else arith.exact_in(q, "q", lo=1))
    alpha = beta / (p - 1)
    r = alpha * p / q
    neutral_n = 1 - alpha - p * alpha
    if _is_exact(r) and not (0 < r and 2 * r <= 1) or (_is_exact(neutral_n) and neutral_n < 0):
        raise InvalidArgument("beta", str(beta), "gives clone masses outside [0, 1]; check (p, beta, q)")
    vN = fmpq(0) if _is_zero(neutral_n) else neutral_n * (1 - ee) / (1 - 2 * r)
    rest = 1 - 2 * r
    atoms = [(rest, vN), (r, (p - ee) * alpha / r), (r, (1 - ee * p) * alpha / r), (fmpq(0), vN)]
    # every value ≤ 0 (ε ≥ log p): the positive part of the sum is exactly 0, returned as the rational 0 rather than a
    # ball around 0.  vN ≤ 0 needs only ee ≥ 1: the neutral mass 1 − α − pα of the pair is ≥ 0 (checked exactly
    # above for exact inputs; for balls, e.g. 0 as a ball when β = (p−1)/(p+1), part of the pair's definition)
    if arith.le(1, ee) is True and all(arith.le(v, 0) is True for _, v in atoms[1:3]):
        return fmpq(0)
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="variation-ratio pair") / n
