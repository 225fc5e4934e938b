"""The frequency oracles' exact blanket view at every n, and strong concrete-dataset lower ends.

**Exact view** (:func:`blanket_view_exact`).  Balle et al. Lemma 5.3 for a four-value record
(:class:`blanket.exact.mechanisms.oracles.FourValue`) is ``(1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` with a
*five*-atom ``V`` (0 w.p. ``1−γ`` and the four values of ``L`` w.p. ``γπ``).  The four-atom engine
(:func:`blanket.exact.shuffled.krr.expected_positive_part`) takes one atom less, so the fast route of
:mod:`blanket.exact.shuffled.oracles` brackets the value by convex order (loose at moderate n).  Here the
count ``C`` of one *ancillary* atom (value ``v_j``: "both", 0 or "rest"; the one whose count has the
smallest variance) is summed out exactly: given ``C = c``, the other ``n − c`` users are i.i.d. with the
remaining four atoms (conditional law), and the constant ``c·v_j`` is spread over them (every value
shifted by ``c·v_j/(n−c)``), so

    E[(Σ V_i)_+] = Σ_c P(C = c) · E[(Σ_{i ≤ n−c} (V'_i + c v_j/(n−c)))_+],      C ~ Bin(n, π_j),

one engine call per ``c`` (docs/reference/oracles.md §"The exact view").  ``C`` is windowed by
:func:`blanket.exact.laws.binomial.window_bounds` (left-out mass ``Λ`` certified); a left-out ``c``
contributes between 0 and ``n·(v_t)_+`` (``v_t`` the largest value), so ``[0, Λ·n·(v_t)_+]`` is added.
Every engine call carries its own certified windowing error.  Exact ``fmpq`` for exact inputs and
``n ≤ exact_max_n``.  Cost: ``W_C`` engine calls, ``W_C = O(√(nπ_j) · √log(1/tol))``; each costs
``O(n log(1/tol))`` on the grid route (``n ≤ 20000``) or ``O(√n)`` on the one-dimensional route: refused
(``None`` from :func:`exact_view_or_none`) above :data:`MAX_CALLS` calls.

**Lower ends** (:func:`third_value_delta`, :func:`best_lower`).  A concrete pair of neighbouring datasets has
an exact δ, a certified lower bound on the worst case.  The family "all others hold a third value z"
(``x z^{n−1}`` vs ``x' z^{n−1}``), post-processed to each report's two *hit* bits ``(h_x, h_{x'})`` (data
processing can only lower δ, so the post-processed δ is still a certified lower bound), is a four-atom sum:
the engine again.  The hit law comes from the triple law ``P_z(h_x, h_{x'}, h_z)`` of the record
(:func:`triple_hit_law`; the likelihood ratio of every output is ``e^{ε0(h_u − h_z)}``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.oracles import OLH, FourValue, Hadamard, Subset, UnaryEncoding, cancellation_precision
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput
from blanket.exact.shuffled import olh_every
from blanket.exact.shuffled.krr import GRID_MAX_N, delta_args, expected_positive_part
from blanket.exact.shuffled.positive_part import chernoff_upper
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "MAX_CALLS",
    "REFINE_REL",
    "THIRD_GRID_MAX_N",
    "blanket_view_exact",
    "exact_view_or_none",
    "exact_view_calls",
    "exact_view_work",
    "triple_hit_law",
    "olh_triple_law_at",
    "every_family_delta",
    "third_cells",
    "is_exact",
    "third_value_delta",
    "best_lower",
]

#: :func:`exact_view_or_none` refuses (returns None) when the window of the summed-out count is wider than this
MAX_CALLS = 600
#: the grid pass of :func:`blanket_view_exact` stops when the enclosure's radius is below this fraction of its value
REFINE_REL = 2e-3
_TOL = fmpq(1, 2**80)
#: :func:`third_value_delta` uses the engine's grid route (O(n log(1/tol)), narrow) up to this n
THIRD_GRID_MAX_N = 2000
#: from this many users on, :func:`third_value_delta`'s ``"hits"`` and ``"zero-hit"`` statistics run the engine's
#: ``"1d-jensen"`` route (no blocks of the weak count; :func:`_third_engine`)
THIRD_JENSEN_MIN_N = 10**5


def _is_exact(x) -> bool:
    return isinstance(x, fmpq)


def _is_zero(x) -> bool:
    return (isinstance(x, fmpq) and x == 0) or (isinstance(x, arb) and x.is_zero())


def _four(mech: object) -> FourValue:
    return guards.require_instance(
        mech, FourValue, "mech", "must be one of OUE, SUE, OLH, Hadamard, Subset", shown="kind"
    )


def _float(x) -> float:
    return float(arith.ball(x).mid())


def _atoms5(mech: FourValue, ee) -> tuple:
    """``(γ, [(prob, value)] * 5)`` of ``V``: 0, both, t, t', rest."""
    g = mech.gamma()
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = mech.l_law(exp_epsilon=ee)
    return g, [(mech.gamma_complement(), fmpq(0)), (g * pb, vb), (g * pt, vt), (g * pn, vn), (g * pr, vr)]


def _outer_index(atoms5: list) -> int:
    """The ancillary atom (0, both or rest: indices 0, 1, 4) whose count has the smallest variance."""
    cands = [j for j in (1, 0, 4) if not _is_zero(atoms5[j][0])]
    return min(cands, key=lambda j: _float(atoms5[j][0]) * (1 - _float(atoms5[j][0])))


def exact_view_calls(mech: FourValue, n: int, tol: fmpq = _TOL) -> int:
    """The number of engine calls :func:`blanket_view_exact` makes at ``n`` (the window of the summed-out count).

    O(1) ball operations.  Does not depend on ε (the atoms' probabilities do not).  At
    :func:`~blanket.exact.mechanisms.oracles.cancellation_precision` (SUE k = 8, ε0 = 500, n = 10⁶: the atoms were NaN
    at the caller's 53 bits and the window's float conversion an internal error, exit 4).
    """
    rec = _four(mech)
    with arith.precision(cancellation_precision(rec)):
        g, atoms5 = _atoms5(rec, fmpq(1))
        j = _outer_index(atoms5)
        lo, hi, _ = laws.window_bounds(n, arith.ball(atoms5[j][0]), tol)
    return hi - lo + 1


def exact_view_work(mech: FourValue, n: IntegerInput, tol: fmpq = _TOL) -> int:
    """A cost measure of :func:`blanket_view_exact` at ``n``: its engine calls times ``n`` (each call's grid pass is
    ``O(n log(1/tol))``).  For cost guards: measured on a loaded core, about 25 µs per unit at n = 10³ (OUE k = 128,
    55 calls, 5 s per δ; Hadamard k = 1000, 160 calls, 8 s) and 50 µs at n = 10⁴ (OUE, 198 calls, 100 s).
    O(1) ball operations.
    """
    nn = arith.integer_in(n, "n", lo=1)
    return exact_view_calls(mech, nn, tol) * nn


def blanket_view_exact(mech: FourValue, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """The exact Lemma 5.3 blanket view δ(ε) of a four-value record, as a certified enclosure, at every n.

    A certified **upper bound** on δ(ε) of the shuffled mechanism (every neighbouring pair), equal to
    :func:`blanket.exact.shuffled.oracles.blanket_view_delta` (the binomial mixture, ``O(n^{3/2})``),
    computed as in the module docstring.  Exact ``fmpq`` for exact inputs and ``n ≤ exact_max_n``.
    Cost: :func:`exact_view_calls` engine calls (``O(√n)`` of them), each ``O(n log(1/tol))`` ball
    operations on the grid route (``n ≤ 20000``), ``O(√n)`` above.  Exactly 0 when ``ε ≥ ε0``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``,
    ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import OUE
    >>> from blanket.exact.shuffled.oracles import blanket_view_delta
    >>> m = OUE(4, exp_epsilon0=3)
    >>> blanket_view_exact(m, 9, exp_epsilon=2) == blanket_view_delta(m, 9, exp_epsilon=2)
    True

    Runs at :func:`~blanket.exact.mechanisms.oracles.cancellation_precision` (more bits at a large ε0:
    SUE k = 3, n = 4, ε0 = 200 was NaN at 256 bits).
    """
    rec = _four(mech)
    with arith.precision(cancellation_precision(rec)):
        return _blanket_view_exact(rec, n, opts)


def _blanket_view_exact(rec: FourValue, n: IntegerInput, opts: DeltaOptions) -> Enclosure:
    """:func:`blanket_view_exact`'s body at the precision it chose.  Same cost."""
    q = delta_args(rec, n, opts, "blanket_view_exact")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    g, atoms5 = _atoms5(rec, ee)
    vals = [x for a in atoms5 for x in a] + [g]
    exact_mode = all(_is_exact(v) for v in vals) and n <= exact_max_n
    j = _outer_index(atoms5)
    pj, vj = atoms5[j]
    rest = [a for i, a in enumerate(atoms5) if i != j]
    cond = 1 - pj
    # engine order: (bulk, t, t', rest) -- the two informative atoms are t (index 2) and t' (index 3) of atoms5
    anc = [a for a in rest if a is not atoms5[2] and a is not atoms5[3]]
    (pa, va), (pc, vc) = anc
    pt, vt = atoms5[2]
    pn, vn = atoms5[3]
    if exact_mode:
        lo, hi, tail = 0, n, fmpq(0)
    else:
        lo, hi, tail = laws.window_bounds(n, arith.ball(pj), tol)
    if _is_zero(pj):
        lo = hi = 0
        tail = fmpq(0)
    # pmf of C on lo..hi: exact, or one anchor plus exact-ratio steps in balls
    if exact_mode:
        pmf = [_binom_exact(n, pj, c) for c in range(lo, hi + 1)]
    elif lo == hi == 0 and _is_zero(pj):
        pmf = [fmpq(1)]
    else:
        pmf = _pmf_balls(n, pj, lo, hi)
    pa_c, pt_c, pn_c = pa / cond, pt / cond, pn / cond
    pc_c = 1 - pa_c - pt_c - pn_c if _is_exact(cond) else pc / cond
    label = f"{rec.kind} exact blanket view n={n}"
    terms: list = []  # [c, weight, atoms, value, users]
    for c, w in zip(range(lo, hi + 1), pmf):
        m = n - c
        if m == 0:
            continue  # n·v_j ≤ 0: the positive part is 0
        sh = c * vj / m
        # certified skip: even if every other user drew the largest value, the sum is ≤ 0
        if arith.le(m * (vt + sh), 0) is True:
            continue
        atoms = [(pa_c, va + sh), (pt_c, vt + sh), (pn_c, vn + sh), (pc_c, vc + sh)]
        if exact_mode:
            v = expected_positive_part(m, atoms, tol=tol, exact_max_n=exact_max_n, label=label)
        else:  # first pass: the one-dimensional route, O(√m) (an enclosure, wide when the weak count matters)
            v = expected_positive_part(m, atoms, tol=tol, exact_max_n=-1, label=label, engine="1d")
        terms.append([c, w, atoms, v, m])
    if not exact_mode:
        _refine(terms, tol, label)
    total: Enclosure = fmpq(0)
    for _, w, _, v, _ in terms:
        total = total + w * v if (_is_exact(w) and _is_exact(v)) else w * v + total
    if not _is_zero(tail):
        err = arith.ball(tail) * arith.ball(vt).max(arb(0)) * n
        t = arith.ball(total)
        total = t.union(t + err)
    return total / (g * n)


def _rad(v) -> float:
    return 0.0 if _is_exact(v) else float(arith.ball(v).rad())


def _refine(terms: list, tol, label: str) -> None:
    """Second pass: recompute on the grid route (tight, ``O(m log(1/tol))``) the terms whose ``weight × radius``
    is largest, until the sum's radius is at most :data:`REFINE_REL` of its midpoint (or every term with
    ``m ≤ GRID_MAX_N`` is refined).  Every term stays a certified enclosure; only the width changes."""

    def total_rad():
        return sum(_float(w) * _rad(v) for _, w, _, v, _ in terms)

    mid = sum(_float(w) * _float(v) for _, w, _, v, _ in terms)
    order = sorted(range(len(terms)), key=lambda i: -_float(terms[i][1]) * _rad(terms[i][3]))
    rad = total_rad()
    for i in order:
        if rad <= REFINE_REL * max(mid, 0.0):
            break
        c, w, atoms, v, m = terms[i]
        if m > GRID_MAX_N:
            continue
        old = _float(w) * _rad(v)
        nv = expected_positive_part(m, atoms, tol=tol, exact_max_n=-1, label=label, engine="grid")
        terms[i][3] = nv if _rad(nv) < _rad(v) else v
        rad += _float(w) * _rad(terms[i][3]) - old


def _binom_exact(n: int, p: fmpq, c: int) -> fmpq:
    from math import comb

    return comb(n, c) * p**c * (1 - p) ** (n - c)


def _pmf_balls(n: int, p, lo: int, hi: int) -> list:
    """``[P(Bin(n, p) = c) for c in lo..hi]`` as balls: one anchor at the mode, then exact-ratio steps."""
    pb = arith.ball(p)
    r = pb / (1 - pb)
    j0 = min(max(int((n + 1) * _float(p)), lo), hi)
    p0 = laws.pmf(n, pb, j0)
    out = {j0: p0}
    v = p0
    for j in range(j0, hi):
        v = v * r * (n - j) / (j + 1)
        out[j + 1] = v
    v = p0
    for j in range(j0, lo, -1):
        v = v / r * j / (n - j + 1)
        out[j - 1] = v
    return [out[c] for c in range(lo, hi + 1)]


def exact_view_or_none(
    mech: FourValue,
    n: IntegerInput,
    *,
    max_calls: int = MAX_CALLS,
    max_work: int | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure | None:
    """:func:`blanket_view_exact`, or ``None`` when it would make more than ``max_calls`` engine calls (or, when
    ``max_work`` is given, when :func:`exact_view_work` exceeds it).

    For callers taking a min over routes (the exact view is then simply not a candidate).  O(1) plus the cost of
    :func:`blanket_view_exact` when run.
    """
    rec = _four(mech)
    nn = arith.integer_in(n, "n", lo=1)
    calls = exact_view_calls(rec, nn)
    if calls > max_calls or (max_work is not None and calls * nn > max_work):
        return None
    return blanket_view_exact(rec, nn, **opts)


# ================================================================ lower ends: the third-value family
def triple_hit_law(mech: FourValue) -> dict | None:
    """``{(h_x, h_x', h_z): P_z}``: the law of three distinct inputs' hit bits of one report ``Y ~ R(z)``.

    For these records ``R(u)(y) = c_y·e^{ε0 h_u(y)}``, so ``R(u)(y)/R(z)(y) = e^{ε0(h_u − h_z)}`` and the triple
    law is all the third-value family needs.  Closed forms (docs/reference/oracles.md §"Lower ends"): unary
    encoding — independent bits, ``h_z ~ Bern(p)``, ``h_x, h_x' ~ Bern(q)``; subset selection —
    ``P_z(a, b, c) = e^{ε0 c}·C(k−3, d−a−b−c)/Z``; Hadamard response with ``z+1 = (x+1) ⊕ (x'+1)`` (the
    GF(2)-dependent triple, ``k ≥ 3``) — ``P = (e^{ε0} if c else 1)·(2/(K(e+1)))·K/4`` on the patterns with
    ``(1−c) = (1−a) ⊕ (1−b)``.  Local hashing: from the stated ``collision`` and ``triple`` (the family's 3-wise
    collision, :func:`_olh_triple_law`); ``None`` when ``triple`` is not stated.  O(1).
    """
    e = mech.exp_epsilon0()
    if isinstance(mech, UnaryEncoding):
        if mech.k < 3:  # no third input value exists (k = 2): no third-value dataset
            return None
        p, q = mech.p, mech.q
        out = {}
        for a in (0, 1):
            for b in (0, 1):
                for c in (0, 1):
                    out[(a, b, c)] = (q if a else 1 - q) * (q if b else 1 - q) * (p if c else 1 - p)
        return out
    if isinstance(mech, Subset):
        from math import comb

        k, d = mech.k, mech.d
        if k < 3:
            return None
        Z = e * comb(k - 1, d - 1) + comb(k - 1, d)
        out = {}
        for a in (0, 1):
            for b in (0, 1):
                for c in (0, 1):
                    r = d - a - b - c
                    cnt = comb(k - 3, r) if 0 <= r <= k - 3 else 0
                    out[(a, b, c)] = (e if c else fmpq(1)) * cnt / Z
        return out
    if isinstance(mech, Hadamard):
        if mech.k < 3:
            return None
        out = {}
        for a in (0, 1):
            for b in (0, 1):
                for c in (0, 1):
                    ok = (1 - c) == ((1 - a) ^ (1 - b))
                    out[(a, b, c)] = (e if c else fmpq(1)) * 2 / (e + 1) / 4 if ok else fmpq(0)
        return out
    if isinstance(mech, OLH):
        return _olh_triple_law(mech)
    return None


def _olh_triple_law(mech: OLH) -> dict | None:
    """The triple hit law of local hashing from the stated ``collision`` ``c`` and ``triple`` ``t`` (``None`` when
    ``triple`` is not stated or ``k < 3``): :func:`olh_triple_law_at` at ``t``.  O(1)."""
    t = mech.triple
    if t is None or mech.k < 3:
        return None
    return olh_triple_law_at(mech, t)


def olh_triple_law_at(mech: OLH, t: Enclosure) -> dict:
    """The triple hit law of local hashing for a family with the record's ``collision`` ``c`` and the 3-wise
    collision ``t`` (an exact rational, or a ball: then every entry is a ball holding the law of every ``t`` in it).
    The hashed values of ``(x, x', z)`` are all equal w.p. ``t``, equal on exactly one pair w.p. ``c − t`` each, all
    distinct w.p. ``1 − 3c + 2t``; the report is ``y = h(z)`` w.p. ``p_h = e/(e+g−1)``, each other bucket w.p.
    ``p_l = 1/(e+g−1)``, and ``h_u = [h(u) = y]``.  Does not check ``t`` (:func:`olh_triple_range`).  O(1)."""
    c, g = mech.collision, mech.g
    ph, pl = mech._pq()
    out = {(a, b, cc): fmpq(0) for a in (0, 1) for b in (0, 1) for cc in (0, 1)}

    def add(key: tuple, v) -> None:
        out[key] = out[key] + v if _is_exact(out[key]) and _is_exact(v) else v + out[key]

    add((1, 1, 1), t * ph)  # all equal: y = h(z) hits all three, else none
    add((0, 0, 0), t * (g - 1) * pl)
    one = c - t
    for pair_hit, z_hit in (((1, 1, 0), (0, 0, 1)), ((0, 1, 0), (1, 0, 1)), ((1, 0, 0), (0, 1, 1))):
        # h(x) = h(x') != h(z); h(x) = h(z) != h(x'); h(x') = h(z) != h(x): y = h(z) hits z and its partner, the
        # other bucket of the triple hits the lone value, the g − 2 remaining buckets hit none
        add(z_hit, one * ph)
        add(pair_hit, one * pl)
        add((0, 0, 0), one * (g - 2) * pl)
    d = 1 - 3 * c + 2 * t
    if not _is_zero(d):  # three distinct buckets (g >= 3 then)
        add((0, 0, 1), d * ph)
        add((1, 0, 0), d * pl)
        add((0, 1, 0), d * pl)
        add((0, 0, 0), d * (g - 3) * pl)
    return out


#: the per-report statistics of :func:`third_value_delta` that the composed lower pair also takes
#: (:mod:`blanket.exact.accounting.oracle_lower`; each is one map for both directions)
THIRD_STATISTICS = ("hits", "zero-hit")
#: every statistic of :func:`third_value_delta` (one round): also ``"joined"``, a map per direction, and
#: ``"single-hit"`` (local hashing without a stated 3-wise collision, :mod:`blanket.exact.shuffled.olh_every`)
LOWER_STATISTICS = (*THIRD_STATISTICS, "joined", "single-hit")
#: the statistic of :func:`every_family_delta`
EVERY_STATISTIC = "single-hit"


def _third_key(a: int, b: int, c: int, statistic: str, forward: bool = True) -> tuple:
    """The class of the triple ``(h_x, h_x', h_z)`` under a per-report statistic (:func:`_third_cells`).  O(1)."""
    if statistic == "single-hit":  # exactly one of x, x', z hit: which one ((1, 1) stands for z alone)
        if a + b + c != 1:
            return (0, 0)
        return (a, b) if c == 0 else (1, 1)
    if statistic == "hits" or c == 0:
        return (a, b)
    if statistic == "joined" and (a, b) == ((0, 1) if forward else (1, 0)):
        return (1, 1)
    return (0, 0)


def _third_cells(law: dict, e, statistic: str, forward: bool = True) -> dict:
    """``{class: (P_z, P_x, P_x')}`` of the four classes of a per-report statistic of the triple ``(h_x, h_x', h_z)``:
    ``"hits"`` — the cell ``(h_x, h_x')``; ``"zero-hit"`` — the cell ``(h_x, h_x')`` of a report with ``h_z = 0``,
    and one class ``(0, 0)`` for the report with ``h_z = 0`` and ``h_x = h_x' = 0`` *or* any report with
    ``h_z = 1``; ``"joined"`` — as ``"zero-hit"``, except that the triple ``(0, 1, 1)`` (forward; backward
    ``(1, 0, 1)``) joins the class ``(1, 1)`` (docs/reference/oracles.md §2, "The joined statistic").
    ``P_u`` of a triple is ``P_z·e^{ε0(h_u − h_z)}``.  O(1)."""
    cells: dict = {}
    for (a, b, c), pz in law.items():
        if _is_zero(pz):
            continue
        key = _third_key(a, b, c, statistic, forward)
        z0, x0, y0 = cells.get(key, (fmpq(0), fmpq(0), fmpq(0)))
        fx = (e if a else fmpq(1)) / (e if c else fmpq(1))
        fy = (e if b else fmpq(1)) / (e if c else fmpq(1))
        cells[key] = (pz + z0, pz * fx + x0, pz * fy + y0)
    return cells


def third_cells(law: dict, e: Enclosure, statistic: str) -> dict:
    """The four classes of a per-report statistic, ``{class: (P_z, P_x, P_x')}`` (public name of the helper used by
    :func:`third_value_delta`; ``law`` from :func:`triple_hit_law`, ``e = e^{ε0}``).  O(1)."""
    return _third_cells(law, e, statistic)


def is_exact(x: object) -> bool:
    """Whether ``x`` is an exact rational (``fmpq``), not a ball.  O(1)."""
    return _is_exact(x)


def _third_atoms(
    mech: FourValue,
    n: IntegerInput,
    opts: DeltaOptions,
    who: str,
    statistic: str = "hits",
    law: dict | None = None,
) -> tuple[int, Any, int, FourValue, list] | fmpq | None:
    """The engine's four atoms of :func:`third_value_delta` for both directions: ``(n, tol, exact_max_n, record,
    [forward atoms, backward atoms])``, ``None`` (no triple law) or ``fmpq(0)`` (δ = 0 outright).  ``law``: a triple
    hit law to use instead of the record's (:func:`olh_triple_law_at`).  O(1)."""
    rec = _four(mech)
    if statistic not in LOWER_STATISTICS:
        raise InvalidArgument("statistic", statistic, f"must be one of {', '.join(LOWER_STATISTICS)}")
    if law is None:
        law = triple_hit_law(rec)
    if law is None:
        return None
    q = delta_args(rec, n, opts, who)
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    directions = []
    for forward in (True, False):
        cells = _third_cells(law, rec.exp_epsilon0(), statistic, forward)
        cell_atoms: dict = {}
        for ab, (pz, px, py) in cells.items():
            if ab[0] == ab[1] and statistic != "joined":
                # P_x = P_x' on these classes (each is closed under swapping h_x and h_x', and every triple law is
                # symmetric in them; not so under "joined"): keep the factor (1 − e^ε) exact (0 at ε = 0)
                if _is_exact(px) and _is_exact(py) and px != py:
                    raise AssertionError(f"asymmetric triple law on the class {ab}")
                num = px * (1 - ee)
            else:
                num = px - ee * py if forward else py - ee * px
            cell_atoms[ab] = (pz, num / pz)
        # engine order (bulk, t, t', rest): t the cell (1, 0) forward, (0, 1) backward (the larger value)
        tcell, ncell = ((1, 0), (0, 1)) if forward else ((0, 1), (1, 0))
        zero = (fmpq(0), fmpq(0))
        bulk, t, tn, r = (
            cell_atoms.get((1, 1), zero),
            cell_atoms[tcell],
            cell_atoms[ncell],
            cell_atoms.get((0, 0), zero),
        )
        if _is_zero(bulk[0]):
            bulk = (fmpq(0), r[1])
        if _is_zero(r[0]):
            r = (fmpq(0), bulk[1])
        atoms = [bulk, t, tn, r]
        directions.append(atoms)
    return n, tol, exact_max_n, rec, directions


def third_value_upper(
    mech: FourValue,
    n: IntegerInput,
    *,
    statistic: str = "hits",
    law: dict | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure | None:
    """A certified **upper** bound on :func:`third_value_delta` (``None`` when the record has no triple law): the
    Chernoff bound of :func:`~blanket.exact.shuffled.positive_part.chernoff_upper` on each direction, the max.

    It tells, in O(1) ball operations, when the third value cannot exceed another lower bound, so that its engine
    calls (seconds at n = 10⁶) can be skipped without changing which lower bound is reported.
    """
    q = _third_atoms(mech, n, opts, "third_value_upper", statistic, law)
    if q is None or not isinstance(q, tuple):
        return q
    n, _tol, _exact_max_n, _rec, directions = q
    return arith.maximum([chernoff_upper(n, atoms) / n for atoms in directions])


def third_value_delta(
    mech: FourValue,
    n: IntegerInput,
    *,
    statistic: str = "hits",
    law: dict | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure | None:
    """Exact δ(ε) of ``x z^{n−1}`` vs ``x' z^{n−1}`` post-processed to a per-report statistic of the hit bits: a
    certified **lower** bound on δ(ε) of the shuffled mechanism (max of both directions), or ``None`` when the record
    has no triple law (:func:`triple_hit_law`).

    ``statistic``: ``"hits"`` — each report reduced to ``(h_x, h_x')``; ``"zero-hit"`` — the same for the reports
    with ``h_z = 0`` and every report with ``h_z = 1`` lumped with the cell ``(0, 0)`` (:func:`_third_cells`);
    ``"joined"`` — as ``"zero-hit"`` but the triple ``(0, 1, 1)`` joins the class ``(1, 1)`` (backward: ``(1, 0, 1)``,
    a map per direction, each a post-processing of its own ordered pair).  The
    second keeps the informative cells of the reports that do not hit the others' value, which carry the signal
    undiluted by the factor ``e^{−ε0}`` of the ``h_z = 1`` reports (OUE k = 128, ε0 = 2, n = 10³: ε 0.199 → larger;
    docs/reference/oracles.md §"Lower ends").  Either map is applied to every report, so the shuffled output is
    post-processed and the value is a lower bound on this pair's δ.

    Post-processing each report to ``(h_x(Y), h_{x'}(Y))`` keeps the others i.i.d., so by the sufficient statistic
    of :mod:`blanket.exact.shuffled.krr` the value is ``(1/n) E[(Σ_i V_i)_+]`` over the four cells, ``V =
    (P_x − e^ε P_{x'})/P_z`` (backward: ``x ↔ x'``), one engine call per direction.  Cost that of the engine
    (exact rationals up to ``exact_max_n``, the grid up to :data:`THIRD_GRID_MAX_N`, else its one-dimensional
    route, ``O(√n)``).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``,
    ``exact_max_n``.
    """
    q = _third_atoms(mech, n, opts, "third_value_delta", statistic, law)
    if q is None or not isinstance(q, tuple):
        return q
    n, tol, exact_max_n, rec, directions = q
    joint = _joint_atoms(directions[0], directions[1])
    if joint is not None:
        # the two directions' atoms coincide up to rounding (every triple law here is symmetric in (h_x, h_x')):
        # one engine call on their entrywise hull encloses both values, hence their max
        directions = [joint]
    out = []
    for atoms in directions:
        exact_mode = n <= exact_max_n and all(_is_exact(x) for a in atoms for x in a)
        # ball mode: the grid (a narrow enclosure) up to THIRD_GRID_MAX_N users, else the one-dimensional route,
        # O(√n) (wider: its lower end is what a lower bound uses); without the blocks of the weak count from
        # THIRD_JENSEN_MIN_N users on for the statistics whose weak count is weak (O(ε) apart)
        engine = None if (exact_mode or n <= THIRD_GRID_MAX_N) else _third_engine(n, statistic)
        v = expected_positive_part(
            n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{rec.kind} third value n={n}", engine=engine
        )
        out.append(v / n)
    return arith.maximum(out)


def _third_engine(n: int, statistic: str) -> str:
    """The engine route of :func:`third_value_delta` in ball mode above :data:`THIRD_GRID_MAX_N` users:
    ``"1d-jensen"`` for ``"hits"`` and ``"zero-hit"`` from :data:`THIRD_JENSEN_MIN_N` users on (their weak count
    — the cells ``(1, 1)`` and ``(0, 0)`` — is O(ε) apart, so Lemma K3's Jensen gap alone is about as narrow as the
    blocks there, at a third of the cost), else ``"1d"``.  ``"joined"``'s weak count is not weak (the triple
    ``(0, 1, 1)`` in the class ``(1, 1)``): it keeps the blocks.  O(1)."""
    return "1d-jensen" if statistic != "joined" and n >= THIRD_JENSEN_MIN_N else "1d"


def _joint_atoms(a: list, b: list) -> list | None:
    """Entrywise hull of two engine atom lists ``[(π, v), ...]`` when they coincide up to rounding, else ``None``.

    Every entry pair must be the same exact rational (kept exact) or two overlapping balls whose hull is at most
    twice as wide as the narrower (the same quantity computed in another order).  The engine encloses its value for
    every atom list inside the input balls, and both true lists lie inside the hull: so one call on the hull gives
    an enclosure holding both values, and hence their max (:func:`third_value_delta`: both directions in one
    call, half the cost, when the triple law is symmetric in ``(h_x, h_{x'})``).  O(1).
    """
    if len(a) != len(b):
        return None
    out = []
    for pair_a, pair_b in zip(a, b):
        entry = []
        for x, y in zip(pair_a, pair_b):
            if _is_exact(x) and _is_exact(y):
                if x != y:
                    return None
                entry.append(x)
                continue
            bx, by = arith.ball(x), arith.ball(y)
            if not bx.overlaps(by):
                return None
            h = bx.union(by)
            if h.rad() > 2 * min(bx.rad(), by.rad()):
                return None
            entry.append(h)
        out.append(tuple(entry))
    return out


def best_lower(
    mech: FourValue, n: IntegerInput, *, full_view: bool = True, **opts: Unpack[DeltaOptions]
) -> tuple[Enclosure, str]:
    """``(value, dataset text)``: the largest (by lower end) of the same-family and the third-value lower bounds
    (the three statistics of :func:`third_value_delta`: ``"joined"``, ``"zero-hit"``, ``"hits"``), and for unary
    encoding the third value's full view (:func:`blanket.exact.shuffled.oracle_third.third_full_delta`; within its
    cost guard, about 1–2 s per δ at n = 10³).

    Each is the exact δ of a concrete neighbouring pair (the third value post-processed), so a certified lower bound.
    Cost: up to eight engine calls (plus the full view, ``O(n^{3/2} log n)`` floats); a statistic's two (and the full
    view) are skipped when its Chernoff upper bound (:func:`third_value_upper`,
    :func:`blanket.exact.shuffled.oracle_third.third_full_upper`, O(1)) is below the best lower end so far (it cannot
    win; same answer).  ``full_view=False`` leaves the full view out (the cheap candidates only: a calibration
    searches with them and evaluates the full view at the end, ``reports/commands/_oracle.py``).

    Runs at :func:`~blanket.exact.mechanisms.oracles.cancellation_precision` (more bits at a large ε0:
    SUE k = 3, n = 4, ε0 = 200 was NaN at 256 bits).
    """
    rec = _four(mech)
    with arith.precision(cancellation_precision(rec)):
        return _best_lower(rec, n, full_view, opts)


def _best_lower(rec: FourValue, n: IntegerInput, full_view: bool, opts: DeltaOptions) -> tuple[Enclosure, str]:
    """:func:`best_lower`'s body at the precision it chose.  Same cost."""
    from blanket.exact.shuffled.oracle_third import third_full_delta, third_full_upper
    from blanket.exact.shuffled.oracles import same_family_delta

    nn = arith.integer_in(n, "n", lo=1)
    same = same_family_delta(rec, nn, **opts)
    cands = [(same, f"all other {nn - 1} users hold the differing user's first value x (x^n versus x^(n-1) x')")]

    def lo(v) -> Fraction:
        return Fraction(int(v.p), int(v.q)) if _is_exact(v) else arith.endpoints(v)[0]

    # a third value wins only if its lower end exceeds the best so far: when a cheap certified upper bound on it
    # (Chernoff, O(1)) is already below that, its engine calls (seconds at n = 10^6) cannot change the answer
    for stat in ("joined", "zero-hit", "hits"):
        best_lo = max(lo(c[0]) for c in cands)
        third_hi = third_value_upper(rec, nn, statistic=stat, **opts)
        if third_hi is not None and (isinstance(third_hi, fmpq) or third_hi.is_finite()):
            # compared as balls: at a huge e^{ε0} the Chernoff bound can be astronomically large, and its exact
            # rational endpoint would take minutes to build (probe13: OUE, ε0 = 60, n = 4)
            if third_hi < arith.ball(fmpq(best_lo.numerator, best_lo.denominator)):
                continue
        try:
            third = third_value_delta(rec, nn, statistic=stat, **opts)
        except Undecided:  # a sign the engine needs is not decided at this precision: leave this statistic out
            third = None
        if third is not None:
            text = f"all other {nn - 1} users hold a third value z (x z^(n-1) versus x' z^(n-1))"
            if isinstance(rec, Hadamard):
                text += ", z+1 = (x+1) xor (x'+1)"
            if isinstance(rec, OLH):
                text += f", the stated P[h(x) = h(x') = h(z)] = {rec.triple}"
            if stat == "zero-hit":
                text += "; reports that hit z lumped"
            if stat == "joined":
                text += (
                    "; reports that hit z lumped, except those hitting x' and z (x and z backward): joined with x x'"
                )
            cands.append((third, text))
    if isinstance(rec, OLH) and rec.triple is None:
        # local hashing without a stated 3-wise collision: the single-hit statistic at the smallest admissible t,
        # valid for every hash family with the stated collision (exact.shuffled.olh_every); its Chernoff upper
        # bound first, as above
        every = _every_family_candidate(rec, nn, max(lo(c[0]) for c in cands), opts)
        if every is not None:
            cands.append(every)
    # unary encoding: the same dataset's exact δ (the full view, no statistic; exact.shuffled.oracle_third; None
    # above its cost guard), skipped when its Chernoff upper bound is below the best lower end so far
    if not full_view:
        return max(cands, key=lambda c: lo(c[0]))
    full_hi = third_full_upper(rec, nn, **opts)
    best_lo = max(lo(c[0]) for c in cands)
    cannot_win = (
        full_hi is not None
        and (isinstance(full_hi, fmpq) or full_hi.is_finite())
        and full_hi < arith.ball(fmpq(best_lo.numerator, best_lo.denominator))  # as balls (see the loop above)
    )
    full = None if cannot_win else third_full_delta(rec, nn, **opts)
    if full is not None:
        cands.append((full, f"all other {nn - 1} users hold a third value z (x z^(n-1) versus x' z^(n-1)), full view"))
    return max(cands, key=lambda c: lo(c[0]))


def every_family_delta(mech: OLH, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> tuple[Enclosure, fmpq] | None:
    """``(δ, t_lo)``: the third-value pair ``x z^{n−1}`` vs ``x' z^{n−1}`` post-processed by the single-hit statistic
    (:func:`third_value_delta`, ``statistic="single-hit"``) at the smallest admissible 3-wise collision ``t_lo``
    (:func:`blanket.exact.shuffled.olh_every.olh_triple_range`); ``None`` when no ``t`` is admissible.

    A certified **lower** bound on δ(ε) of the shuffled mechanism for *every* hash family with the record's stated
    ``collision`` and ``constant``, whatever its 3-wise collision on the triple: the single-hit experiment at
    ``t_lo`` is a garbling of the one at the family's ``t`` (:mod:`blanket.exact.shuffled.olh_every`), so its δ is
    at most that family's post-processed pair's δ.  Cost: one :func:`third_value_delta` (one engine call, the weak
    count degenerate).
    """
    rec = guards.require_instance(mech, OLH, "mech", "must be a local-hashing record (OLH)", shown="kind")
    rng = olh_every.olh_triple_range(rec)
    if rng is None:
        return None
    t_lo = rng[0]
    v = third_value_delta(rec, n, statistic=EVERY_STATISTIC, law=olh_triple_law_at(rec, t_lo), **opts)
    if v is None:
        return None
    return v, t_lo


def _every_family_candidate(rec: OLH, n: int, best_lo: Fraction, opts: DeltaOptions) -> tuple | None:
    """``(value, text)`` of :func:`every_family_delta` for :func:`best_lower`, or ``None`` (no admissible 3-wise
    collision, or its Chernoff upper bound is below ``best_lo``: it cannot win).  Cost: O(1) plus one engine call."""
    rng = olh_every.olh_triple_range(rec)
    if rng is None:
        return None
    t_lo, t_hi = rng
    hi = third_value_upper(rec, n, statistic=EVERY_STATISTIC, law=olh_triple_law_at(rec, t_lo), **opts)
    # compared as balls (as in best_lower): at a huge e^{ε0} the Chernoff bound is astronomically large and its exact
    # rational endpoint took minutes to build (OLH k = 4, g = 3, n = 4, ε0 = 60: over a minute)
    if (
        hi is not None
        and (isinstance(hi, fmpq) or hi.is_finite())
        and hi < arith.ball(fmpq(best_lo.numerator, best_lo.denominator))
    ):
        return None
    try:
        got = every_family_delta(rec, n, **opts)
    except Undecided:
        return None
    if got is None:
        return None
    value, t = got
    text = (
        f"all other {n - 1} users hold a third value z (x z^(n-1) versus x' z^(n-1)); reports hitting exactly one"
        f" of x, x', z keep which one, the rest lumped; third value, every hash family with the stated collision"
        f" {rec.collision}: the minimum over the 3-wise collision t in [{t_lo}, {t_hi}] sits at t = {t}"
    )
    return value, text
