"""Shuffled k-ary randomized response on the dataset families, and the exact blanket view of Lemma 5.3.

Notation: ``p = e^{ε0}/(e^{ε0}+k−1)`` (keep), ``f = 1/(e^{ε0}+k−1)`` (flip),
``e = e^{ε0}``, ``ee = e^{ε}``.  Two neighbouring datasets differ in one user,
the *target*, who holds ``t`` in the first dataset and ``t'`` in the second;
the other ``n − 1`` users all hold the same value ``z``.  The families
(``docs/reference/blanket.md`` §4, this project's reading of "worst-case families"):

* ``"same"``: ``z`` is the target's value ``x`` (datasets ``x^n`` vs ``x' x^{n−1}``);
* ``"neighbour"``: ``z`` is the neighbour's value ``x'``;
* ``"third"`` (``k ≥ 3``): ``z`` is a third value.

Both directions of each pair are computed (``D(P‖P')`` and ``D(P'‖P)``) and
the maximum is returned unless ``direction`` is given.  Each family is one
set of neighbouring pairs, so its δ is a *lower* bound on the worst case over
all datasets; the families are not always the worst case (exhaustive check
with :mod:`exact.shuffled.enumerate`: 3-RR, n = 7, e^{ε0} = 4, e^ε = 3 has worst
case 0.015546… at others (1,1,1,1,1,2) against 0.014632… for the best family).
By the symmetry of k-RR, "same" and "neighbour" are the same set of neighbouring pairs, so their
two-direction maxima coincide (a test checks it).

The hockey-stick divergence of each pair is ``(1/n) E[(Σ V_i)_+]`` for i.i.d. ``V_i`` with at most four atoms
(the sufficient statistic); the certified engine for that expectation is
:func:`blanket.exact.shuffled.positive_part.expected_positive_part` (its docstring has the derivation, the windows
and the two engines).

**Stronger clones (k = 2).**  The blanket view of binary RR with ``e^{ε0}``
equals, exactly, the hockey-stick divergence of the "stronger clones" pair of
Feldman–McMillan–Talwar (SODA 2023) for any ε0-LDP randomizer:
:func:`delta_stronger_clones` (checked against a direct enumeration of the
pair in exact rationals, ``tests/test_krr.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, NamedTuple

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer, amplification_law, delta_at
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.calibrate import Bracket, epsilon_for_delta, float_bisect
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput, NumberInput, NumberOrBall
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

from blanket.exact.shuffled.positive_part import (  # noqa: F401  (re-exported: the engine's names, as before the split)
    _BLOCKS_MIN_SD,
    _TABLES_MIN_N,
    BLOCKS_FINE_MAX_N,
    BLOCKS_MAX_N,
    DEFAULT_TOL,
    EXACT_MAX_N,
    GRID_ESCALATION_MAX_N,
    GRID_MAX_N,
    _Binom,
    _fast_positive_part,
    _is_zero,
    _sign,
    _to_ball_mode,
    chernoff_capped,
    expected_positive_part,
)

FAMILIES = ("same", "neighbour", "third")
DIRECTIONS = (None, "forward", "backward")


class DeltaArgs(NamedTuple):
    """The validated arguments of a δ(ε)-function that runs the binomial engine (see :func:`delta_args`)."""

    n: int
    ee: Enclosure
    tol: fmpq
    exact_max_n: int


def delta_args(mech: Randomizer, n: IntegerInput, opts: DeltaOptions, fn: str) -> DeltaArgs | None:
    """``(n, e^ε, tol, exact_max_n)`` of a δ-function ``fn`` taking ``**opts: Unpack[DeltaOptions]``, or ``None``
    when δ = 0 (ε ≥ ε0 certified).

    The keywords are checked (an unknown one is a ``TypeError``), ``n`` and ε as
    :func:`blanket.exact.mechanisms.finite.delta_query` does; ``tol`` (default :data:`DEFAULT_TOL`) is read as an
    exact number in ``(0, 1)`` and ``exact_max_n`` (default :data:`EXACT_MAX_N`) as an integer ``≥ 0``, both named
    in the error (every engine route then receives an exact ``tol``: the grid route refused a ball, the
    one-dimensional one a ``Fraction``).  O(1).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_args(KRR(4, epsilon0=1), 200, {"epsilon": "1/2", "tol": "1e-20"}, "f").tol
    1/100000000000000000000
    """
    q = delta_at(mech, n, opts, fn, DeltaOptions)
    return None if q is None else DeltaArgs(*q, *engine_options(opts))


def engine_options(opts: DeltaOptions) -> tuple[fmpq, int]:
    """``(tol, exact_max_n)`` of a δ-function's keywords, parsed and named in the error (see :func:`delta_args`)."""
    tol = arith.exact_in(opts.get("tol", DEFAULT_TOL), "tol", lo=0, hi=1, lo_open=True, hi_open=True)
    return tol, arith.integer_in(opts.get("exact_max_n", EXACT_MAX_N), "exact_max_n", lo=0)


# ---------------------------------------------------------------- k-RR dataset families
def _check_krr(mech, what):
    guards.require_instance(
        mech,
        KRR,
        "mech",
        f"must be a k-ary randomized response (exact.mechanisms.finite.KRR) for {what}",
        hint="for other randomizers use delta_blanket_view or exact.shuffled.bruteforce",
    )


def _family_atoms(mech: KRR, ee, role: str):
    """Four atoms ``(π under μ_z, v)`` for the target/neighbour/others roles ``role`` ∈ {z=t, z=t', third}."""
    k = mech.k
    e = mech.exp_epsilon0()
    p, f = mech.keep(), mech.flip()
    zero = fmpq(0)
    if role == "third":
        vz = (1 - ee) / e
        vt = e - ee
        vn = 1 - ee * e
        vo = 1 - ee
        return [(p, vz), (f, vt), (f, vn), ((k - 3) * f, vo)]
    vo = 1 - ee
    if role == "z=t":
        return [((k - 2) * f, vo), (p, 1 - ee / e), (f, 1 - ee * e), (zero, vo)]
    if role == "z=t'":
        return [((k - 2) * f, vo), (f, e - ee), (p, 1 / e - ee), (zero, vo)]
    raise AssertionError(role)


_ROLE = {
    ("same", "forward"): "z=t",
    ("same", "backward"): "z=t'",
    ("neighbour", "forward"): "z=t'",
    ("neighbour", "backward"): "z=t",
    ("third", "forward"): "third",
    ("third", "backward"): "third",
}


def delta_krr_family(
    mech: KRR,
    n: int,
    family: str,
    *,
    direction: str | None = None,
    engine: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """Exact δ(ε) of shuffled k-RR between the neighbouring datasets of a family (max over both directions).

    ``family`` ∈ {"same", "neighbour", "third"} (see the module docstring);
    ``direction`` ``None`` (max of both), ``"forward"`` (``D(P_x‖P_{x'})``, the
    target holds the family's ``x`` in the first dataset) or ``"backward"``.
    Returns an exact ``fmpq`` when the mechanism is given by a rational
    ``exp_epsilon0``, ``exp_epsilon`` is given, and ``n ≤ exact_max_n``;
    otherwise a ball enclosing the true δ.  Exactly ``0`` when ``ε ≥ ε0``.
    Status: derived (sufficient statistic above), ✔ against brute force.
    Cost: O(√n·√log(1/tol)) ball operations for "same"/"neighbour" (and for
    "third" when ``n > GRID_MAX_N``), else ``O(n log(1/tol))`` (grid engine);
    ``engine`` forces one (see :func:`expected_positive_part`).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> rr = KRR(3, exp_epsilon0=2)
    >>> delta_krr_family(rr, 2, "third", exp_epsilon=1)
    3/16
    >>> delta_krr_family(rr, 2, "third", exp_epsilon=2)
    0
    """
    _check_krr(mech, "the dataset families")
    if family not in FAMILIES:
        raise InvalidArgument("family", family, f"must be one of {', '.join(FAMILIES)}")
    if direction not in DIRECTIONS:
        raise InvalidArgument("direction", direction, "must be None (max of both), 'forward' or 'backward'")
    if family == "third" and mech.k < 3:
        raise InvalidArgument(
            "family",
            family,
            f"needs k >= 3 (a third value), but the mechanism has k = {mech.k}",
            hint="use family='same' or 'neighbour' for binary RR",
        )
    q = delta_args(mech, n, opts, "delta_krr_family")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    dirs = ["forward", "backward"] if direction is None else [direction]
    if family == "third":
        dirs = dirs[:1]  # both directions are equal by the symmetry t <-> t'
    out = []
    for d in dirs:
        atoms = _family_atoms(mech, ee, _ROLE[(family, d)])
        v = expected_positive_part(
            n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{mech.k}-RR {family} n={n}", engine=engine
        )
        out.append(v / n)
    return arith.maximum(out)  # dirs is never empty


def delta_krr_third_lumped(mech: KRR, n: int, *, engine: str | None = None, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """The third-value family's δ computed on the lumped statistic (h_x, h_{x'}, rest) — **NOT a valid δ for k ≥ 4**.

    Hockey-stick divergence between the laws of ``(h_x, h_{x'})`` under the
    two datasets (target ``x`` vs ``x'``, others a third value ``z``):
    ``(1/n) E_{Mult_n(f, f, 1−2f)}[((e−ee)a + (1−ee·e)b + (1−ee)(1−p−f)/(1−2f)·r)_+]``.
    It is a post-processing of the shuffled output, hence a *lower* bound on the
    true third-family δ, equal to it for ``k = 3`` and strictly below it for
    ``k ≥ 4`` (the count of ``z`` is informative).  Kept as a deliberately wrong
    "bound" for the paper checks.  Cost as :func:`delta_krr_family`.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> rr = KRR(5, exp_epsilon0="5/2")
    >>> delta_krr_third_lumped(rr, 4, exp_epsilon="3/2"), delta_krr_family(rr, 4, "third", exp_epsilon="3/2")
    (860/28561, 1020/28561)
    """
    _check_krr(mech, "the lumped third-value computation")
    if mech.k < 3:
        raise InvalidArgument("k", mech.k, "must be >= 3 for a third value")
    q = delta_args(mech, n, opts, "delta_krr_third_lumped")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = mech.exp_epsilon0()
    p, f = mech.keep(), mech.flip()
    wr = (1 - ee) * (1 - p - f) / (1 - 2 * f)
    atoms = [(fmpq(0), wr), (f, e - ee), (f, 1 - ee * e), (1 - 2 * f, wr)]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="lumped", engine=engine) / n


# ---------------------------------------------------------------- blanket view (Lemma 5.3)
def compositions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts ≥ 1`` non-negative integers summing to ``n`` (the multinomial counts), in
    lexicographic order.  ``C(n + parts − 1, parts − 1)`` tuples, O(parts) work each.

    >>> list(compositions(2, 2))
    [(0, 2), (1, 1), (2, 0)]
    """
    if parts == 1:
        yield (n,)
        return
    for c in range(n + 1):
        for rest in compositions(n - c, parts - 1):
            yield (c,) + rest


def _blanket_view_enumerate(mech: FiniteRandomizer, n: int, x: int, x2: int, ee, *, max_terms: int = 10**6):
    """``(1/(γn)) E[(Σ_{i=1}^n V_i)_+]`` by summing over all multinomial counts of the atoms of ``V``.

    ``V = L^ε_{x,x'}`` w.p. γ, else 0.  Cost ``O(C(n+A−1, A−1)·A)`` with
    ``A`` = number of atoms (outputs in the blanket's support + 1).
    """
    g = mech.gamma()
    if _is_zero(g):
        raise InvalidArgument(
            "mech", mech.name, "has total-variation similarity gamma = 0: the blanket view is undefined"
        )
    law = amplification_law(mech, x, x2, exp_epsilon=ee) if not isinstance(ee, arb) else None
    if law is None:
        om = mech.blanket()
        mu, mu2 = mech.row(x), mech.row(x2)
        law = [((mu[y] - ee * mu2[y]) / w, w) for y, w in enumerate(om) if not _is_zero(w)]
    atoms = [(v, g * w) for v, w in law] + [(fmpq(0), 1 - g)]
    A = len(atoms)

    if comb(n + A - 1, A - 1) > max_terms:
        raise InvalidArgument(
            "n",
            n,
            f"is too large for exact enumeration with {A} atoms (more than {max_terms} terms)",
            hint="use a k-RR mechanism (fast path) or a smaller n",
        )
    fact = [1]
    for i in range(1, n + 1):
        fact.append(fact[-1] * i)
    total = fmpq(0)
    for cs in compositions(n, A):
        coef = fmpq(fact[n])
        for c in cs:
            coef = coef / fact[c]
        prob = coef
        val = fmpq(0)
        for c, (v, pi) in zip(cs, atoms):
            if c:
                prob = prob * pi**c
                val = arith.add(val, c * v)
        if _is_zero(prob):
            continue
        total = arith.add(total, prob * arith.positive_part(val))
    return total / (g * n)


def delta_blanket_view(
    mech: FiniteRandomizer,
    n: int,
    *,
    x: int | None = None,
    x2: int | None = None,
    method: str | None = None,
    engine: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """The exact right-hand side of Balle et al. Lemma 5.3: ``(1/(γn))·E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``.

    ``L_i`` are i.i.d. copies of ``L^ε_{x,x'}`` (docs/reference/blanket.md §4, Lemma 5.3,
    source-confirmed [SL]; Appendix A: it is the hockey-stick divergence of
    the view revealing every other user's blanket draw, so it upper-bounds
    the shuffled δ on *every* pair of neighbouring datasets differing in a
    user holding ``x`` vs ``x'``).  Without ``x, x2`` the maximum over ordered
    pairs ``x ≠ x'`` (for k-RR all pairs are equivalent).

    ``method``: ``"fast"`` (k-RR only: the four-atom engine — O(√n·√log(1/tol))
    for ``k = 2`` and for ``n > GRID_MAX_N``, else ``O(n log(1/tol))``;
    ``engine`` forces one, see :func:`expected_positive_part`),
    ``"enumerate"`` (any finite randomizer: exact sum over multinomial counts,
    ``O(C(n+A−1, A−1))``, small n), or ``None`` (fast for k-RR, else enumerate).
    Exact ``fmpq`` for exact inputs (and ``n ≤ exact_max_n`` on the fast path);
    exactly ``0`` when ``ε ≥ ε0``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_blanket_view(KRR(3, exp_epsilon0=2), 2, exp_epsilon=1)
    3/16
    """
    if not isinstance(mech, FiniteRandomizer):
        raise InvalidArgument(
            "mech", mech, "must be a finite randomizer (exact.mechanisms.finite.FiniteRandomizer or KRR)"
        )
    if method not in (None, "fast", "enumerate"):
        raise InvalidArgument("method", method, "must be None, 'fast' or 'enumerate'")
    if method == "fast" and not isinstance(mech, KRR):
        raise InvalidArgument(
            "method", method, "is only available for k-ary randomized response", hint="use method='enumerate'"
        )
    q = delta_args(mech, n, opts, "delta_blanket_view")
    if (x is None) != (x2 is None):
        raise InvalidArgument(
            "x2" if x2 is None else "x", None, "must be given together with the other input (or neither)"
        )
    if x is not None:
        for nm, val in (("x", x), ("x2", x2)):
            if not isinstance(val, int) or isinstance(val, bool) or not 0 <= val < mech.k_in:
                raise InvalidArgument(nm, val, f"must be an input value in 0..{mech.k_in - 1}")
        if x == x2:
            raise InvalidArgument("x2", x2, "must differ from x (a neighbouring pair changes the input)")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    if isinstance(mech, KRR) and method != "enumerate":
        # every ordered pair is equivalent under relabelling
        k = mech.k
        f, p = mech.flip(), mech.keep()
        kf = k * f
        atoms = [((k - 2) * f, kf * (1 - ee)), (f, k * (p - ee * f)), (f, k * (f - ee * p)), (1 - kf, fmpq(0))]
        v = expected_positive_part(
            n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{k}-RR blanket view n={n}", engine=engine
        )
        # deep in the tail the engine's windowing sets the upper end (binary RR, ε0 = 1, n = 10^4, ε = 0.5: 7.5e-24
        # against δ ≈ 1e-381): capped by the Chernoff bound on the same value (docs/numerics.md Lemma K5)
        return chernoff_capped(v / (mech.gamma() * n), n, atoms, arith.ball(mech.gamma()) * n)
    # x given: x2 was checked above to be an input value too
    pairs = (
        [(x, x2)]
        if x is not None and x2 is not None
        else [(a, b) for a in range(mech.k_in) for b in range(mech.k_in) if a != b]
    )
    return arith.maximum([_blanket_view_enumerate(mech, n, a, b, ee) for a, b in pairs])  # k_in >= 2: never empty


# ---------------------------------------------------------------- stronger clones (Feldman–McMillan–Talwar, SODA 2023)
def delta_stronger_clones(
    n: int,
    *,
    epsilon0: NumberOrBall | None = None,
    exp_epsilon0: NumberOrBall | None = None,
    method: str | None = None,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """``D_{e^ε}(P‖Q)`` for the stronger-clones pair of any ε0-LDP randomizer shuffled among ``n`` users.

    ``P = (A + Δ, C − A + 1 − Δ)``, ``Q = (A + 1 − Δ, C − A + Δ)`` with
    ``C ~ Bin(n−1, 2/(e^{ε0}+1))``, ``A ~ Bin(C, 1/2)``,
    ``Δ ~ Bern(e^{ε0}/(e^{ε0}+1))`` (spec/beyond_the_seeds.md; status
    recalled).  It is a dominating pair for every ε0-LDP randomizer, and it
    *equals* the blanket view of binary RR (derived here; a test checks the
    identity exactly against ``method="enumerate"``).

    ``method``: ``None``/``"blanket"`` — through :func:`delta_blanket_view` of
    ``KRR(2)``: O(√n·√log(1/tol)) ball operations (one-dimensional engine,
    exact rationals for ``n ≤ exact_max_n``); ``"enumerate"`` — the pair
    summed directly over ``(C, A, Δ)`` in exact rationals (needs exact
    ``e^{ε0}`` and ``e^ε``), O(n²), small n only.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> delta_stronger_clones(5, exp_epsilon0=3, exp_epsilon="3/2")
    33/256
    >>> delta_stronger_clones(5, exp_epsilon0=3, exp_epsilon="3/2", method="enumerate")
    33/256
    """
    if method not in (None, "blanket", "enumerate"):
        raise InvalidArgument("method", method, "must be None, 'blanket' or 'enumerate'")
    mech = KRR(2, epsilon0=epsilon0, exp_epsilon0=exp_epsilon0)
    if method != "enumerate":
        return delta_blanket_view(mech, n, **opts)
    guards.check_options("delta_stronger_clones", opts, DeltaOptions)
    n = arith.integer_in(n, "n", lo=1)
    e0 = mech.exp_epsilon0()
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    if not (isinstance(e0, fmpq) and isinstance(ee, fmpq)):
        raise InvalidArgument(
            "method", method, "needs exact e^{epsilon0} and e^{epsilon} (exp_epsilon0=, exp_epsilon=)"
        )

    g = fmpq(2) / (e0 + 1)
    pd = e0 / (e0 + 1)
    P: dict = {}
    Q: dict = {}
    for C in range(n):
        pc = comb(n - 1, C) * g**C * (1 - g) ** (n - 1 - C)
        for A in range(C + 1):
            pa = pc * fmpq(comb(C, A), 2**C)
            for D, pD in ((1, pd), (0, 1 - pd)):
                kp, kq = (A + D, C - A + 1 - D), (A + 1 - D, C - A + D)
                P[kp] = P.get(kp, fmpq(0)) + pa * pD
                Q[kq] = Q.get(kq, fmpq(0)) + pa * pD
    out: Enclosure = fmpq(0)
    for key in set(P) | set(Q):
        out += arith.positive_part(P.get(key, fmpq(0)) - ee * Q.get(key, fmpq(0)))
    return out


# ---------------------------------------------------------------- calibration (ε for a target δ)
VIEWS = ("blanket",) + FAMILIES


def _gaussian_guess(mech: KRR, n: int, view: str, target: float) -> float | None:
    """A float *guess* of the ε with δ(ε) = target: ``E[(ΣV)_+]`` with ``ΣV`` replaced by a normal law of the same
    mean and variance (only chooses where the certified search evaluates first)."""

    k = mech.k
    e0 = float(arith.ball(mech.exp_epsilon0()).mid())
    if e0 <= 1:
        return None
    p, f = e0 / (e0 + k - 1), 1 / (e0 + k - 1)

    def delta(eps):
        ee = math.exp(eps)
        if view == "blanket":
            kf = k * f
            atoms = [((k - 2) * f, kf * (1 - ee)), (f, k * (p - ee * f)), (f, k * (f - ee * p)), (1 - kf, 0.0)]
            scale = kf * n
        else:
            role = _ROLE[(view, "forward")]
            if role == "third":
                atoms = [(p, (1 - ee) / e0), (f, e0 - ee), (f, 1 - ee * e0), ((k - 3) * f, 1 - ee)]
            elif role == "z=t":
                atoms = [((k - 2) * f, 1 - ee), (p, 1 - ee / e0), (f, 1 - ee * e0), (0.0, 0.0)]
            else:
                atoms = [((k - 2) * f, 1 - ee), (f, e0 - ee), (p, 1 / e0 - ee), (0.0, 0.0)]
            scale = n
        m = sum(a * v for a, v in atoms)
        var = sum(a * v * v for a, v in atoms) - m * m
        mu, sd = n * m, math.sqrt(max(n * var, 1e-300))
        z = mu / sd
        return (mu * 0.5 * math.erfc(-z / math.sqrt(2)) + sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)) / scale

    lo, hi = 0.0, math.log(e0)
    if not delta(lo) > target:
        return None
    hi = float_bisect(lambda e: delta(e) > target, lo, hi, 60)
    return hi if 0 < hi < math.log(e0) else None


def calibrate_epsilon(
    mech: KRR,
    n: int,
    delta: NumberOrBall,
    *,
    view: str = "blanket",
    rel_tol: NumberOrBall = "1e-6",
    tol: NumberInput = DEFAULT_TOL,
    engine: str | None = None,
    on_evaluation: Callable[[fmpq], None] | None = None,
) -> Bracket:
    """Certified smallest central ε with ``δ(ε) ≤ delta`` for the blanket view or a dataset family of shuffled k-RR.

    Returns a :class:`exact.numbers.calibrate.Bracket`: ``upper`` is certified to meet
    the target (the *upper* end of the enclosure of δ(upper) is ≤ delta),
    ``lower`` certified to fail (the *lower* end of the enclosure of
    δ(lower) is > delta).  The search runs on the upper end of each enclosure
    (an exact number, so no comparison is ever undecided and the precision
    never escalates: the one-dimensional route's width is not a precision
    effect), then ``lower`` is certified separately — one more evaluation
    when the enclosure is narrower than the search tolerance, a few when the
    enclosure's relative width dominates (the bracket is then that much
    wider; its ``rel_width()`` says so).  A Gaussian float guess only picks
    the first evaluation points.  Cost: typically 4–9 evaluations of δ
    (``tests/benchmarks/bench_krr.py`` prints the count), each
    O(√n·√log(1/tol)) on the one-dimensional route.  ``on_evaluation(ε)``, if given, is called after each
    evaluation (a progress bar).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(128):
    ...     br = calibrate_epsilon(KRR(2, epsilon0=1), 10**5, "1e-6", view="blanket")
    >>> 0 < br.lower < br.upper and br.rel_width() <= fmpq(1, 10**6)
    True
    """

    if view not in VIEWS:
        raise InvalidArgument("view", view, f"must be one of {', '.join(VIEWS)}")
    _check_krr(mech, "calibration")
    n = arith.integer_in(n, "n", lo=1)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    if mech.epsilon0_exact is not None:
        hi = mech.epsilon0_exact
    else:
        e0 = arith.ball(mech.exp_epsilon0())
        hi = arith.exact(Fraction(*[int(v) for v in arith.endpoints(e0.log())[1].as_integer_ratio()]))
        hi = fmpq(int(hi.p) + 1, int(hi.q))  # strictly above log e^{ε0}: δ(hi) = 0 there

    def enclosure(eps):
        if view == "blanket":
            v = delta_blanket_view(mech, n, epsilon=eps, tol=tol, engine=engine)
        else:
            v = delta_krr_family(mech, n, view, epsilon=eps, tol=tol, engine=engine)
        if on_evaluation is not None:
            on_evaluation(eps)
        return v

    def upper_end(eps):
        v = enclosure(eps)
        if isinstance(v, fmpq):
            return v
        u = arith.endpoints(v)[1]
        return fmpq(u.numerator, u.denominator)

    guess = _gaussian_guess(mech, n, view, int(target.p) / int(target.q))
    g = None
    if guess is not None:
        g = fmpq(int(guess * 10**12), 10**12)
        if not (0 < g < hi):
            g = None
    br = epsilon_for_delta(upper_end, target, hi=hi, lo=0, rel_tol=rel_tol, guess=g)
    evaluations = br.evaluations
    if br.lower == br.upper:
        return br
    # certify the failing end on the true enclosure (its lower end must exceed the target)
    lower, step = br.lower, fmpq(0)
    widen = arith.exact(rel_tol, "rel_tol")
    for _ in range(40):
        x = lower - step
        if x <= 0:
            x = fmpq(0)
        v = enclosure(x)
        evaluations += 1
        if arith.gt(v, target) is True:
            return Bracket(x, br.upper, evaluations, v, br.delta_upper, br.prec, meets="upper")
        if x == 0:
            break
        step = widen * br.upper if step == 0 else step * 4
    raise Undecided(f"could not certify a failing epsilon below {br.upper} (delta enclosures too wide)")
