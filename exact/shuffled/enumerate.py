"""Exhaustive small-n worst case of a shuffled finite randomizer over *all* neighbouring datasets.

For a local randomizer ``R`` (a :class:`~exact.mechanisms.finite.FiniteRandomizer`)
and ``n`` users, the shuffled mechanism outputs the histogram of the ``n``
reports.  Neighbouring datasets differ in one user; because the output is a
histogram, a dataset is a *multiset* of inputs, so a neighbouring pair is
``(others + {x}, others + {x'})`` with ``others`` a multiset of ``n − 1``
inputs and ``x ≠ x'``.  This module computes

    δ_n(ε) = max over (others, x, x') of D_{e^ε}(M(others + {x}) ‖ M(others + {x'}))

exactly (``fmpq`` when every matrix entry and ``e^ε`` are rational) or as a
certified ball (``arb``), together with the dataset pair that attains it.
Both directions are covered because the maximum runs over *ordered* pairs.

How the laws are built (no ``k^n`` enumeration)
------------------------------------------------
The histogram of independent reports is the sum of one-hot vectors, so its law
is the convolution of the per-user output laws over count vectors (the product
of the per-user multinomial pgfs).  :func:`_convolve` adds one user to a law
held as ``dict[count tuple, weight]``.  Exact rows are scaled to integers over
a common denominator ``D`` (so the law of ``m`` users is an integer vector
over ``D^m``: Python integers, no rational normalisation on the way); ball
rows stay ``arb``.

Generic path (:func:`worst_case` on any matrix)
    The multisets of the ``n − 1`` other users are visited depth-first in
    non-decreasing order, so every multiset's law costs *one* convolution of
    its parent's law.  Identical input rows are merged (datasets that differ
    only by swapping them have the same output law).  Output columns that are
    proportional to each other (``P[x][y'] = c·P[x][y]`` for every ``x``) are
    merged: conditionally on a report in ``{y, y'}`` its value is ``y`` with
    probability ``1/(1+c)`` whatever the input, so the lumped count
    ``N_y + N_{y'}`` is sufficient and the hockey-stick divergence is
    unchanged (the argument is the one below).
    Cost: ``C(n+k_in−2, k_in−1)`` multisets, each one convolution over at most
    ``C(n+k_out−1, k_out−1)`` histograms times ``k_out``, plus
    ``k_in(k_in−1)`` hockey-stick sums.  A general 4×4 matrix with exact
    entries reaches ``n = 16`` in about 50 s (``n = 14`` in 25 s; growth
    ≈ ``n^7``) on the loaded development machine — see
    ``tests/benchmarks/bench_enumerate.py``.

k-RR path (automatic for :class:`~exact.mechanisms.finite.KRR`)
    k-RR commutes with every permutation of ``[k]`` (applied to inputs and
    outputs alike), and the hockey-stick divergence is invariant under a
    bijective relabelling of outcomes.  Hence every ordered pair ``(x, x')``
    can be mapped to ``(0, 1)``, and the others are described up to
    permutations of ``{2, …, k−1}`` by ``(a, b, λ)``: ``a`` users hold 0,
    ``b`` hold 1, and the rest hold values ``2, 3, …`` with multiplicities the
    partition ``λ`` (at most ``k − 2`` parts).  The output values that nobody
    holds form one lumped class ``U`` of size ``u = k − 2 − len(λ)``.

    *Lumping is exact (likelihood-ratio argument).*  Under either dataset of
    the pair, every user (the differing one included) reports each value of
    ``U`` with the same probability ``1/(e^{ε0}+k−1)``, because nobody holds
    it.  So conditionally on the reduced statistic ``T`` = (counts of the held
    values, total count ``N_U`` in ``U``), the split of ``N_U`` over ``U`` is
    multinomial(``N_U``, uniform) under *both* datasets: ``P(h) = P^T(T(h))
    K(h | T(h))`` and ``Q(h) = Q^T(T(h)) K(h | T(h))`` with the same kernel
    ``K``.  Therefore ``Σ_h [P(h) − e^ε Q(h)]_+ = Σ_t [P^T(t) − e^ε Q^T(t)]_+
    Σ_{h: T(h)=t} K(h | t) = D_{e^ε}(P^T ‖ Q^T)``: the lumped view has exactly
    the divergence of the full histogram.  (Lumping values that *someone*
    holds is not allowed — that is the deliberately wrong "(a, b, other)"
    view.)
    Per class the law lives on ``2 + len(λ) + [u > 0]`` categories; the number
    of classes is ``Σ_r (n − r) p_{≤k−2}(r)``.  k-RR with ``k ≤ 10`` reaches
    ``n = 8`` in about 5 s exact / 7 s in balls (k = 10, 120 classes; the
    cost depends on k only up to ``k = n + 1``), see the benchmarks.

Both paths are exact for exact inputs; the tests check them against each
other (the generic path run on a k-RR matrix) and against brute-force
enumeration of all ``k^n`` report vectors for ``n ≤ 5``.

>>> from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
>>> wc = worst_case(KRR(3, exp_epsilon0=2), 3, exp_epsilon=1)
>>> wc.value, wc.method, wc.classes
(5/32, 'krr-symmetry', 6)
>>> gen = worst_case(FiniteRandomizer(KRR(3, exp_epsilon0=2).matrix()), 3, exp_epsilon=1)
>>> gen.value == wc.value
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, AtMany, Enclosure, ProgressOptions
from blanket.exact.runtime.progress import Progress
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "WorstCase",
    "DatasetDelta",
    "worst_case",
    "worst_cases",
    "delta_dataset",
    "delta_class",
    "dataset_deltas",
    "dataset_deltas_multi",
    "histogram_law",
    "count_classes",
]


# ================================================================ results
@dataclass(frozen=True)
class DatasetDelta:
    """The hockey-stick divergence of one ordered neighbouring pair.

    ``value`` encloses ``D_{e^ε}(M(others + [x]) ‖ M(others + [x2]))``;
    ``others`` lists the other users' inputs (a representative of the
    symmetry class, sorted).
    """

    value: object
    others: tuple
    x: int
    x2: int

    def pair(self) -> tuple[list, list]:
        """The two full datasets (differing user last)."""
        return list(self.others) + [self.x], list(self.others) + [self.x2]


@dataclass(frozen=True)
class WorstCase:
    """Exact worst case over all neighbouring datasets at ``n`` users.

    ``value`` encloses the maximum over every ordered pair (exact ``fmpq``
    when the inputs are exact).  ``others``/``x``/``x2`` is a dataset pair
    whose own divergence ``witness_value`` has the highest lower end (it is
    the argmax when the computation is exact).  ``classes`` is the number of
    dataset classes (up to symmetry) that were enumerated, ``method``
    ``"krr-symmetry"`` or ``"generic"``.
    """

    value: object
    witness_value: object
    others: tuple
    x: int
    x2: int
    n: int
    classes: int
    method: str
    mechanism: dict = field(default_factory=dict)

    def pair(self) -> tuple[list, list]:
        return list(self.others) + [self.x], list(self.others) + [self.x2]

    def describe(self) -> dict:
        d1, d2 = self.pair()
        return {
            "n": self.n,
            "dataset": d1,
            "neighbour": d2,
            "differing_user": {"x": self.x, "x2": self.x2},
            "value": _show(self.value),
            "witness_value": _show(self.witness_value),
            "classes": self.classes,
            "method": self.method,
            "mechanism": self.mechanism,
        }


def _show(v):
    if isinstance(v, fmpq):
        return {"exact": str(v), **arith.decimal_interval(v, 12)}
    return arith.decimal_interval(v, 12)


# ================================================================ convolution over histograms
def _convolve(law: dict, row: list) -> dict:
    """Add one user whose report law (over categories) is ``row``: O(len(law) · len(row))."""
    out: dict = {}
    get = out.get
    nz = [(y, w) for y, w in enumerate(row) if not (isinstance(w, int) and w == 0)]
    for h, p in law.items():
        for y, w in nz:
            h2 = h[:y] + (h[y] + 1,) + h[y + 1 :]
            out[h2] = get(h2, 0) + p * w
    return out


def histogram_law(rows: list, users: list) -> dict:
    """Law of the histogram of the reports of ``users`` (a list of input values), rows given per input value.

    ``rows[v]`` is the report law of a user holding ``v`` (numbers of any one
    kind: ints, fmpq or arb).  Returns ``{count tuple: weight}``; only
    histograms of positive weight appear (exact zeros are skipped).

    >>> histogram_law([[fmpq(1, 2), fmpq(1, 2)], [fmpq(1, 4), fmpq(3, 4)]], [0, 1])
    {(2, 0): 1/8, (1, 1): 1/2, (0, 2): 3/8}
    """
    width = len(rows[0])
    law = {(0,) * width: 1}
    for v in users:
        law = _convolve(law, rows[v])
    return law


def _is_exact_row(row):
    return all(isinstance(v, fmpq) for v in row)


def _integer_rows(rows: list) -> tuple[list, int]:
    """Scale exact rows to integers over a common denominator ``D``: returns ``(int rows, D)``."""
    d = 1
    for row in rows:
        for v in row:
            d = math.lcm(d, int(v.q))
    return [[int(v.p) * (d // int(v.q)) for v in row] for row in rows], d


def _hockey(law_p: dict, law_q: dict, ee, scale) -> Enclosure:
    """``Σ_h [P(h) − e^ε Q(h)]_+ / scale`` over the union of supports.

    Integer laws with rational ``ee``: exact ``fmpq``.  Otherwise an ``arb``
    enclosure (each term's positive part is enclosed, so the sum encloses the
    true sum).  O(|supp P|).
    """
    exact_laws = isinstance(scale, int)
    if exact_laws and isinstance(ee, fmpq):
        u, v = int(ee.p), int(ee.q)
        acc = 0
        for h, p in law_p.items():
            t = v * p - u * law_q.get(h, 0)
            if t > 0:
                acc += t
        return fmpq(acc, v * scale)
    eb = arith.ball(ee)
    s = arb(0)
    zero = arb(0)
    for h, p in law_p.items():
        q = law_q.get(h, 0)
        t = (arb(p) if isinstance(p, int) else p) - eb * (arb(q) if isinstance(q, int) else q)
        if t > 0:
            s += t
        elif not (t <= 0):
            s += t.max(zero)
    return s / scale if not isinstance(scale, int) else s / arb(scale)


def _max(values):
    """Enclosure of the maximum of exact numbers / balls."""
    if all(isinstance(v, fmpq) for v in values):
        return max(values)
    out = None
    for v in values:
        b = arith.ball(v)
        out = b if out is None else out.max(b)
    return out


def _lower(v):
    return v if isinstance(v, fmpq) else v.lower()


# ================================================================ mechanism preparation
def _check_n(n):
    return arith.integer_in(n, "n", lo=1)


def _merge_columns(rows: list) -> list:
    """Merge output columns proportional to each other on the given rows (sufficient statistic; see module doc).

    Exact rows only (balls are left alone: proportionality is not decidable
    on balls).  Columns that are zero on every row are dropped.
    """
    if not all(_is_exact_row(r) for r in rows):
        return rows
    k_out = len(rows[0])
    groups: list[list[int]] = []
    keys: dict = {}
    for y in range(k_out):
        col = [r[y] for r in rows]
        piv = next((c for c in col if c != 0), None)
        if piv is None:
            continue
        key = tuple(c / piv for c in col)
        if key in keys:
            groups[keys[key]].append(y)
        else:
            keys[key] = len(groups)
            groups.append([y])
    return [[sum((r[y] for y in g), fmpq(0)) for g in groups] for r in rows]


def _distinct_inputs(mech: FiniteRandomizer) -> list[int]:
    """One representative per distinct input row (exact rows compared exactly; ball rows kept all)."""
    rows = mech.matrix()
    reps: list = []
    seen: list = []
    for x, r in enumerate(rows):
        if _is_exact_row(r) and any(_is_exact_row(s) and s == r for s in seen):
            continue
        reps.append(x)
        seen.append(r)
    return reps if len(reps) >= 2 else [0, 1]  # all rows equal: keep one pair (its divergence is 0)


def _use_krr_path(mech: object) -> TypeGuard[KRR]:
    return isinstance(mech, KRR)


# ================================================================ k-RR symmetry classes
def _partitions(r: int, max_parts: int, max_part: int | None = None):
    """Partitions of ``r`` into at most ``max_parts`` parts, parts non-increasing."""
    if max_part is None:
        max_part = r
    if r == 0:
        yield ()
        return
    if max_parts == 0:
        return
    for first in range(min(r, max_part), 0, -1):
        for rest in _partitions(r - first, max_parts - 1, first):
            yield (first,) + rest


def _krr_classes(k: int, n: int):
    """Yield ``(a, b, λ)`` for the k-RR dataset classes with ``n − 1`` other users (see module doc)."""
    m = n - 1
    for r in range(0, m + 1):
        for lam in _partitions(r, k - 2):
            for a in range(0, m - r + 1):
                yield a, m - r - a, lam


def count_classes(mech: FiniteRandomizer, n: int) -> int:
    """Number of dataset classes :func:`worst_case` enumerates (k-RR: up to symmetry; generic: multisets).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> count_classes(KRR(10, exp_epsilon0=2), 8)
    120
    """
    n = _check_n(n)
    if _use_krr_path(mech):
        return sum(1 for _ in _krr_classes(mech.k, n))
    k = len(_distinct_inputs(mech))
    return math.comb(n - 1 + k - 1, k - 1)


def _krr_rows(mech: KRR, p: int):
    """Per-category report laws for the class with ``p`` held 'other' values.

    Categories: 0, 1, the ``p`` held others, then ``U`` (if ``u = k−2−p > 0``).
    Returns ``(rows, scale)`` where ``rows[c]`` is the law of a user holding
    category ``c`` (``c < 2 + p``), with ``scale`` the common denominator
    (int rows over an int scale when ``e^{ε0}`` is exact, else ball rows and
    scale 1).
    """
    k = mech.k
    u = k - 2 - p
    width = 2 + p + (1 if u > 0 else 0)
    e = mech.exp_epsilon0()
    keep: int | arb
    flip: int | arb
    scale: int | None
    if isinstance(e, fmpq):
        tp, tq = int(e.p), int(e.q)
        keep, flip = tp, tq
        scale = tp + (k - 1) * tq
    else:
        den = e + (k - 1)
        keep, flip = e / den, 1 / den
        scale = None
    rows = []
    for c in range(2 + p):
        row = [keep if y == c else flip for y in range(2 + p)]
        if u > 0:
            row.append(u * flip)
        rows.append(row)
    return rows, scale, width


def _krr_others(a, b, lam):
    """Representative input list of the others for class ``(a, b, λ)``: values 2, 3, … for the parts of λ."""
    out = [0] * a + [1] * b
    for i, c in enumerate(lam):
        out += [2 + i] * c
    return tuple(out)


def _krr_class_delta(mech: KRR, n: int, a: int, b: int, lam: tuple, ee):
    """Both directions of the class ``(a, b, λ)``: returns ``(D(P0‖P1), D(P1‖P0))``."""
    rows, scale, _ = _krr_rows(mech, len(lam))
    users = [0] * a + [1] * b
    for i, c in enumerate(lam):
        users += [2 + i] * c
    law = histogram_law(rows, users)
    p0 = _convolve(law, rows[0])
    p1 = _convolve(law, rows[1])
    sc = scale**n if scale is not None else arb(1)
    return _hockey(p0, p1, ee, sc), _hockey(p1, p0, ee, sc)


# ================================================================ public API
def _law_pairs(mech: FiniteRandomizer, n: int, progress: bool):
    """Yield ``(others, [(x, x2, P, Q)], scale)`` for every dataset class (laws shared between ε values)."""
    if _use_krr_path(mech):
        classes = list(_krr_classes(mech.k, n))
        with Progress(len(classes), f"{mech.k}-RR n={n}", enabled=None if progress else False) as bar:
            for a, b, lam in classes:
                rows, scale, _ = _krr_rows(mech, len(lam))
                law = histogram_law(rows, list(_krr_others(a, b, lam)))
                p0, p1 = _convolve(law, rows[0]), _convolve(law, rows[1])
                sc = scale**n if scale is not None else arb(1)
                yield _krr_others(a, b, lam), [(0, 1, p0, p1), (1, 0, p1, p0)], sc
                bar.update()
        return
    xs = _distinct_inputs(mech)
    full = mech.matrix()
    rows = _merge_columns([full[x] for x in xs])
    if all(_is_exact_row(r) for r in rows):
        rows, den = _integer_rows(rows)
        scale = den**n
    else:
        rows = [[arith.ball(v) for v in r] for r in rows]
        scale = arb(1)
    idx = list(range(len(xs)))
    total = math.comb(n - 1 + len(xs) - 1, len(xs) - 1)
    width = len(rows[0])
    with Progress(total, f"{mech.k_in}x{mech.k_out} n={n}", enabled=None if progress else False) as bar:
        stack: list[tuple[dict, int, tuple[int, ...]]] = [({(0,) * width: 1}, 0, ())]
        while stack:  # depth-first over non-decreasing sequences: one convolution per multiset
            law, start, prefix = stack.pop()
            if len(prefix) == n - 1:
                finals = [_convolve(law, rows[i]) for i in idx]
                yield (
                    tuple(xs[i] for i in prefix),
                    [(xs[i], xs[j], finals[i], finals[j]) for i in idx for j in idx if i != j],
                    scale,
                )
                bar.update()
                continue
            for i in range(len(xs) - 1, start - 1, -1):
                stack.append((_convolve(law, rows[i]), i, prefix + (i,)))


def _ee_list(epsilons, exp_epsilons):
    if (epsilons is None) == (exp_epsilons is None):
        raise InvalidArgument("epsilons", epsilons, "must be given (or exp_epsilons instead), not both or neither")
    if epsilons is not None:
        return [arith.exp_param(e, None) for e in epsilons]
    return [arith.exp_param(None, e) for e in exp_epsilons]


def dataset_deltas_multi(mech: FiniteRandomizer, n: int, *, progress: Any = False, **at: Unpack[AtMany]) -> list:
    """``[[DatasetDelta for every class and direction] for each ε]``: the laws are built once for all ε.

    Complexity: that of one ε (module docstring) plus one hockey-stick sum per
    extra ε and ordered pair.

    Keywords (:class:`~blanket.exact.numbers.types.AtMany`): ``epsilons`` or ``exp_epsilons``.
    """
    guards.check_options("dataset_deltas_multi", at, AtMany)
    n = _check_n(n)
    ees = _ee_list(at.get("epsilons"), at.get("exp_epsilons"))
    out: list[list] = [[] for _ in ees]
    for others, pairs, scale in _law_pairs(mech, n, progress):
        for x, x2, p, q in pairs:
            for i, ee in enumerate(ees):
                out[i].append(DatasetDelta(_hockey(p, q, ee, scale), others, x, x2))
    return out


def dataset_deltas(mech: FiniteRandomizer, n: int, **opts: Unpack[ProgressOptions]) -> list:
    """Every dataset class and ordered pair with its divergence: a list of :class:`DatasetDelta`.

    k-RR: one entry per class ``(a, b, λ)`` and direction (representative
    values 0, 1 for the differing user).  Generic: one entry per multiset of
    the others and ordered pair ``x ≠ x'`` of distinct input rows.  Numbers
    are exact when the matrix and ``e^ε`` are exact, balls at the current
    precision otherwise.  Complexity: see the module docstring.

    Keywords (:class:`~blanket.exact.numbers.types.ProgressOptions`): ``epsilon`` or ``exp_epsilon``; ``progress``.
    """
    guards.check_options("dataset_deltas", opts, ProgressOptions)
    epsilon, exp_epsilon = opts.get("epsilon"), opts.get("exp_epsilon")
    return dataset_deltas_multi(
        mech,
        n,
        epsilons=None if epsilon is None else [epsilon],
        exp_epsilons=None if exp_epsilon is None else [exp_epsilon],
        progress=opts.get("progress", False),
    )[0]


def _summarise(mech, n, entries) -> WorstCase:
    value = _max([e.value for e in entries])
    best = max(entries, key=lambda e: arith.endpoints(_lower(e.value))[0])
    krr = _use_krr_path(mech)
    return WorstCase(
        value,
        best.value,
        best.others,
        best.x,
        best.x2,
        n,
        len(entries) // 2 if krr else count_classes(mech, n),
        "krr-symmetry" if krr else "generic",
        mech.describe(),
    )


def worst_cases(mech: FiniteRandomizer, n: int, *, progress: Any = False, **at: Unpack[AtMany]) -> list:
    """:func:`worst_case` at several ε at once (one :class:`WorstCase` per ε; laws built once)."""
    n = _check_n(n)
    return [_summarise(mech, n, e) for e in dataset_deltas_multi(mech, n, progress=progress, **at)]


def worst_case(mech: FiniteRandomizer, n: int, **opts: Unpack[ProgressOptions]) -> WorstCase:
    """Exact worst case ``δ_n(ε)`` over all neighbouring datasets (both directions), with a witness pair.

    Give ``epsilon`` (exact, ≥ 0; ``e^ε`` becomes a ball) or ``exp_epsilon``
    (exact rational ≥ 1).  k-RR uses the symmetry reduction, every other
    matrix the generic path (module docstring: proof of the reductions and
    complexities).  Balls are at flint's current precision; wrap in
    :func:`exact.numbers.arith.precision` / :func:`exact.numbers.arith.escalate`.

    Keywords (:class:`~blanket.exact.numbers.types.ProgressOptions`): ``epsilon`` or ``exp_epsilon``; ``progress``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> worst_case(BinaryRR(exp_epsilon0=3), 2, exp_epsilon=1).value   # total variation, n = 2
    3/8
    """
    n = _check_n(n)
    return _summarise(mech, n, dataset_deltas(mech, n, **opts))


def delta_class(
    mech: KRR, n: int, others_a: int, others_b: int, partition: Sequence[int] = (), **at: Unpack[At]
) -> tuple[Enclosure, Enclosure]:
    """k-RR: both directions ``(D(P0‖P1), D(P1‖P0))`` for the class where ``others_a`` others hold 0,
    ``others_b`` hold 1 and the rest hold further values with multiplicities ``partition``.

    E.g. the "same" family is ``(n−1, 0, ())``, the "third" family
    ``(0, 0, (n−1,))``.  These give certified *lower* bounds on the worst
    case at any ``n`` (cost ``n`` convolutions over at most
    ``C(n+c−1, c−1)`` histograms, ``c = 2 + len(partition) + [u > 0]``).

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_class(KRR(3, exp_epsilon0=2), 3, 0, 0, (2,), exp_epsilon=1)
    (5/32, 5/32)
    """
    guards.require_instance(mech, KRR, "mech", "must be a k-RR mechanism (KRR) for delta_class")
    n = _check_n(n)
    a = arith.integer_in(others_a, "others_a", lo=0)
    b = arith.integer_in(others_b, "others_b", lo=0)
    lam = tuple(sorted((arith.integer_in(c, "partition part", lo=1) for c in partition), reverse=True))
    if a + b + sum(lam) != n - 1:
        raise InvalidArgument("others_a + others_b + sum(partition)", a + b + sum(lam), f"must equal n - 1 = {n - 1}")
    if len(lam) > mech.k - 2:
        raise InvalidArgument("partition", lam, f"must have at most k - 2 = {mech.k - 2} parts")
    return _krr_class_delta(mech, n, a, b, lam, guards.exp_at("delta_class", at))


def delta_dataset(mech: FiniteRandomizer, others: Sequence[int], x: int, x2: int, **at: Unpack[At]) -> Enclosure:
    """``D_{e^ε}(M(others + [x]) ‖ M(others + [x2]))`` for one explicit dataset pair (no symmetry used).

    ``others`` is a list of input values (any order).  Used to re-verify a
    witness independently of the class enumeration.  Cost: ``n`` convolutions
    over at most ``C(n+k_out−1, k_out−1)`` histograms.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> delta_dataset(BinaryRR(exp_epsilon0=3), [1], 0, 1, exp_epsilon=1)   # (3-1)/16 + (10-6)/16
    3/8
    """
    ee = guards.exp_at("delta_dataset", at)
    others = list(others)
    for _i, v in enumerate(others + [x, x2]):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < mech.k_in:
            raise InvalidArgument("dataset", v, f"must hold input values in 0..{mech.k_in - 1}")
    full = mech.matrix()
    if all(_is_exact_row(r) for r in full):
        rows, den = _integer_rows(full)
        scale = den ** (len(others) + 1)
    else:
        rows = [[arith.ball(v) for v in r] for r in full]
        scale = arb(1)
    law = histogram_law(rows, others)
    return _hockey(_convolve(law, rows[x]), _convolve(law, rows[x2]), ee, scale)
