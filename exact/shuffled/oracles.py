"""Fast certified blanket view (Balle et al. Lemma 5.3) of the frequency oracles: OUE/SUE, OLH, Hadamard, subset.

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

>>> from blanket.exact.mechanisms.oracles import OUE, blanket_view_delta
>>> m = OUE(4, exp_epsilon0=3)
>>> b = blanket_view_bracket(m, 30, exp_epsilon=2)     # the bracket, exact rationals
>>> b.lower <= blanket_view_delta(m, 30, exp_epsilon=2) <= b.upper
True
>>> blanket_view_delta_fast(m, 30, exp_epsilon=2) == blanket_view_delta(m, 30, exp_epsilon=2)   # n < exact_below
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from blanket.exact.mechanisms import oracles as O
from blanket.exact.mechanisms.finite import FiniteRandomizer, Randomizer
from blanket.exact.mechanisms.oracles import MAX_MATRIX_OUTPUTS, blanket_view_delta
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import DeltaOptions, Enclosure
from blanket.exact.shuffled.krr import delta_args, expected_positive_part
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "blanket_view_delta_fast",
    "blanket_view_bracket",
    "Bracket5",
    "FAST_EXACT_BELOW",
    "OracleMatrix",
    "blanket_view_upper",
]

#: below this n (and with exact inputs) :func:`blanket_view_delta_fast` returns the exact Lemma 5.3 mixture
FAST_EXACT_BELOW = 48


@dataclass(frozen=True)
class Bracket5:
    """The two four-atom values bracketing ``E[(Σ V_i)_+]``, already divided by ``γn`` (exact or balls)."""

    lower: Enclosure
    upper: Enclosure


def _is_zero(x) -> bool:
    return (isinstance(x, fmpq) and x == 0) or (isinstance(x, arb) and x.is_zero())


def _check_mech(mech: object) -> O.FourValue:
    if not isinstance(mech, O.FourValue):  # the records with l_law, l_probs and gamma
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
    return g, (1 - g, g * pb, g * pt, g * pn, g * pr), (vb, vt, vn, vr)


def blanket_view_bracket(
    mech: Randomizer, n: int, *, merged: bool = True, with_lower: bool = True, **opts: Unpack[DeltaOptions]
) -> Bracket5:
    """The convex-order bracket of the blanket view: :class:`Bracket5` ``(lower, upper)``, each ``E[...]/(γn)``.

    Each end is one call of the four-atom engine, so the cost is that of the
    k-RR blanket view: O(√n·√log(1/tol)) ball operations and memory for
    ``n > exact_max_n`` (one-dimensional route), exact rationals below.
    The true Lemma 5.3 value lies in ``[lower, upper]`` (of the balls:
    ``[lower.lower(), upper.upper()]``).  ``upper`` is itself a certified
    upper bound on δ(ε) of the shuffled mechanism: the smaller (by upper
    end) of the convex-order spread and, with ``merged``, the merged view
    (:func:`exact.mechanisms.oracles.blanket_view_delta_merged`, one more
    engine call with a degenerate weak count, cheaper than the other two),
    computed only where the spread's enclosure is wide (relative radius above
    :data:`MERGED_WHEN_WIDER`, deep in the tail): where it is narrow the
    merged view, whose mean is larger, does not win.
    ``with_lower=False`` skips the lower end's engine call and returns 0 as the
    (trivial, still valid) lower end: for callers that need only the upper bound.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    rec = _check_mech(mech)
    q = delta_args(rec, n, opts, "blanket_view_bracket")
    if q is None:
        return Bracket5(fmpq(0), fmpq(0))
    n, ee, tol, exact_max_n = q
    g, (a0, ab, at, an, ar), (vb, vt, vn, vr) = _atoms5(rec, ee)
    label = f"{rec.kind} blanket view n={n}"

    def run(atoms):
        return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=label) / (g * n)

    if _is_zero(ab) or _is_zero(ar):
        # V has four atoms: one engine call is the exact value
        v = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vb if _is_zero(ar) else vr)])
        return Bracket5(v, v)
    vm = (ab * vb + ar * vr) / (ab + ar)
    lower = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vm)]) if with_lower else fmpq(0)
    lam = 1 / rec.exp_epsilon0()  # v_r = lam·v_b + (1 − lam)·0
    upper = run([(a0 + ar * (1 - lam), fmpq(0)), (at, vt), (an, vn), (ab + ar * lam, vb)])
    if merged and _wide(upper):
        # "both" raised to the "rest" value (v_b ≤ v_r): also an upper bound, and its enclosure is narrower
        # deep in the tail (δ far below 1e-9 at n = 10^6), where the spread's weak count widens the engine's ball;
        # where the spread's enclosure is narrow the merged view (a larger mean) does not win: not computed then
        alt = run([(a0, fmpq(0)), (at, vt), (an, vn), (ab + ar, vr)])
        if _upper_end(alt) < _upper_end(upper):
            upper = alt
    return Bracket5(lower, upper)


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


def _upper_end(v):
    return v if isinstance(v, fmpq) else arith.endpoints(v)[1]


def blanket_view_upper(mech: Randomizer, n: int, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """A certified **upper bound** on δ(ε) of the shuffled mechanism (the bracket's upper end), as an enclosure.

    Unlike :func:`blanket_view_delta_fast` its width is only the engine's
    (it narrows as the precision escalates), so it is the δ-function to
    calibrate ε with (:func:`exact.numbers.calibrate.epsilon_for_delta`).
    Cost: that of :func:`blanket_view_bracket`.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    return blanket_view_bracket(mech, n, with_lower=False, **opts).upper


def blanket_view_delta_fast(
    mech: Randomizer, n: int, *, exact_below: int = FAST_EXACT_BELOW, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """Certified enclosure of the Lemma 5.3 blanket view δ(ε) of a frequency oracle, fast (n = 10⁶ in about a second).

    Same value as :func:`exact.mechanisms.oracles.blanket_view_delta` (the
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
        return O.OUE(mech.k, exp_epsilon0=3)
    if kind == "sue":
        return O.SUE(mech.k, exp_half_epsilon0=2)
    if kind == "olh":
        if mech.family is None:
            raise InvalidArgument("family", None, "must be given explicitly to build the matrix of local hashing")
        return O.OLH(mech.k, mech.g, exp_epsilon0=3, family=mech.family)
    if kind == "hadamard":
        return O.Hadamard(mech.k, exp_epsilon0=3)
    if kind == "subset":
        return O.Subset(mech.k, mech.d, exp_epsilon0=3)
    raise InvalidArgument("mech", kind, "must be one of oue, sue, olh, hadamard, subset")
