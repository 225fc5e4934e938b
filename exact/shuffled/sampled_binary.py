"""The exact worst case over all datasets of a *sampled* binary RR round (``docs/composition.md`` §5f, Lemma S4).

Model: ``n`` users, each takes part independently with probability ``q`` (Poisson sampling) and reports its bit
through binary RR (kept w.p. ``p = e^{ε0}/(1 + e^{ε0})``, flipped w.p. ``f = 1 − p``); the shuffler releases the
multiset of reports, i.e. ``(M, K)``: the number of reports and the number of 1-reports.  A dataset is described by
``C``, the number of ones among all ``n`` users.

* Each 1-holder adds ``(0, 0)`` w.p. ``1 − q``, ``(1, 0)`` w.p. ``q f``, ``(1, 1)`` w.p. ``q p`` to ``(M, K)``; a
  0-holder ``(1, 0)`` w.p. ``q p`` and ``(1, 1)`` w.p. ``q f``.  With the generating polynomials
  ``a(s, t) = 1 − q + q s (f + p t)`` and ``b(s, t) = 1 − q + q s (p + f t)`` the law of ``(M, K)`` is
  ``P_C = a^C b^{n − C}`` (independent users).
* Neighbouring datasets (replace-one, target ``1`` vs ``0``, the others fixed with ``C − 1`` ones) give the pair
  ``(P_C, P_{C−1})``, ``C = 1..n``; the other order ``(P_{C−1}, P_C)`` is the pair ``(P_{C'}, P_{C'−1})`` with
  ``C' = n + 1 − C`` after relabelling every bit and every report (``(M, K) ↦ (M, M − K)``, a bijection of
  outputs).  So the worst case over all datasets and both orders is ``max_{1 ≤ C ≤ n} H_α(P_C ‖ P_{C−1})``.

The polynomials are encoded in one variable (Kronecker: ``s^m t^k ↦ z^{m(n+1)+k}``, ``k ≤ m ≤ n``), exact in
``fmpq_poly`` (:func:`worst_exact`, rational ``e^{ε0}``, small ``n``) or in ``arb_poly`` balls
(:class:`SampledBinaryWorst`).  The ball route prepares, per ``C``, the output points sorted by a float estimate of
their likelihood ratio with ball prefix sums, so that each ``α`` costs ``O(n log n²)`` plus the few points whose
ratio enclosure cannot be separated from ``α`` (docs/composition.md §5f, "Lemma S4").  Preparation:
``O(n · n² )`` ball operations (``n`` products of length ``n²`` and one pass over their coefficients), so this is a
small-``n`` route (:func:`build_seconds`, :data:`MAX_N`), used for ``q = 1`` and as an independent check.  For
``0 < q < 1`` :func:`sampled_binary_worst` takes the route by rows of ``M``
(:class:`blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows`, ``O(n·m_hi² + Σ_rows n·m²)``), and the
callers use the exact worst case when :func:`worst_seconds` is at most :data:`BUDGET_SECONDS` (:func:`affordable`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, arb_poly, fmpq, fmpq_poly

__all__ = [
    "BUDGET_SECONDS",
    "MAX_N",
    "SampledBinaryWorst",
    "affordable",
    "build_seconds",
    "sampled_binary_worst",
    "worst_exact",
    "worst_seconds",
    "laws_exact",
]

#: the largest ``n`` the Kronecker ball route is meant for (its preparation is ``O(n³)`` ball operations: measured in
#: docs/composition.md §5f, Lemma S4); :func:`sampled_binary_worst` uses it only for ``q = 1``
MAX_N = 160
#: the exact worst case is used (one round's both ends, a source of the sampled round's curve) when its modelled
#: preparation (:func:`worst_seconds`) is at most this many one-core seconds
BUDGET_SECONDS = 30.0
#: the route by rows is used only where its modelled memory (``sampled_binary_rows.route_bytes``) is at most this
#: (1 GiB: n ≤ about 13 000 users)
BUDGET_BYTES = 2**30
#: points whose ``P``-mass is below this are not prepared: their ``(P − αQ)_+ ≤ P`` is added to the upper end
DROP = arb(2) ** -130
#: relative margin of the float ratio enclosures and of α (each float conversion is within two ulps, ``2^-51`` relative)
_MARGIN = 2.0**-50
#: cost model of the preparation: seconds per Kronecker coefficient and per ``C`` (measured, see build_seconds).
#: Task bounded14 (30 Nov 2026, load 10.7-14, CPU s): n = 160 14.5 s at q = 1/2, 9.6 s at q = 1/10; n = 100 3.6 s at
#: q = 1/2 (the model at 6e-6 said 12.4 and 3.0 s: under by up to 1.2x); now 8e-6 (16.5 s and 4.0 s)
SECONDS_PER_COEFF = 8e-6


def _kron(q: Any, p: Any, f: Any, n: int, one: bool, poly: Any) -> Any:
    """``a`` (``one``) or ``b`` as a polynomial in ``z`` (``s ↦ z^{n+1}``, ``t ↦ z``).  O(n)."""
    B = n + 1
    c = [0] * (B + 2)
    c[0] = 1 - q
    c[B] = q * (f if one else p)
    c[B + 1] = q * (p if one else f)
    return poly(c)


def _support(n: int, rows: tuple | None = None) -> list:
    """The Kronecker indices ``m(n+1) + k`` with ``0 ≤ k ≤ m ≤ n`` (``m`` in ``rows = (first, last)`` when given).
    O(n²)."""
    B = n + 1
    m0, m1 = (0, n) if rows is None else rows
    return [m * B + k for m in range(m0, m1 + 1) for k in range(m + 1)]


def _rows(n: int, q: arb) -> tuple:
    """``((first, last), tail)``: a window of ``M ~ Bin(n, q)`` (the number of reports, the same law for every
    dataset) whose left-out mass is at most ``tail ≤ 2^-140`` (certified, ``laws.window_to_tail``).  O(W)."""
    from blanket.exact.laws import binomial as laws

    vals, off, tail = laws.window_to_tail(n, q, arb(2) ** -140)
    return (off, off + len(vals) - 1), arb(arb(tail).upper())


def laws_exact(exp_epsilon0: fmpq, q: fmpq, n: int) -> list:
    """``[P_0, …, P_n]`` as exact ``fmpq_poly`` (Kronecker encoding of ``(M, K)``).  O(n) products of length n²."""
    e = fmpq(exp_epsilon0)
    p, f = e / (e + 1), 1 / (e + 1)
    a, b = _kron(q, p, f, n, True, fmpq_poly), _kron(q, p, f, n, False, fmpq_poly)
    return [a**c * b ** (n - c) for c in range(n + 1)]


def _hockey_exact(P: Any, Q: Any, alpha: fmpq, idx: list) -> fmpq:
    s = fmpq(0)
    for i in idx:
        d = P[i] - alpha * Q[i]
        if d > 0:
            s += d
    return s


def worst_exact(exp_epsilon0: Any, q: Any, n: int, exp_epsilon: Any) -> tuple:
    """``(δ, C)``: the exact worst ``H_α`` (``α = exp_epsilon``) of the sampled binary RR round over every dataset and
    both orders, and the number ``C`` of ones (target's included) of a forward pair attaining it.  Exact rationals:
    ``exp_epsilon0``, ``q``, ``exp_epsilon`` rational.  O(n) products of length n² plus O(n³) comparisons."""
    e = arith.exact(exp_epsilon0, "exp_epsilon0")
    qq = arith.exact(q, "q")
    al = arith.exact(exp_epsilon, "exp_epsilon")
    laws = laws_exact(fmpq(e), fmpq(qq), n)
    idx = _support(n)
    best, arg = fmpq(0), 1
    for c in range(1, n + 1):
        v = _hockey_exact(laws[c], laws[c - 1], fmpq(al), idx)
        if v > best:
            best, arg = v, c
    return best, arg


@dataclass
class _Prepared:
    """One forward pair ``(P_C, P_{C−1})``: its points sorted by float ratio (descending), ball prefix sums, and the
    ratio enclosures' running bounds."""

    C: int
    pa: list  # ball prefix sums of P over the sorted points (length L + 1)
    pb: list  # of Q
    pmin: list  # pmin[j] = min over the first j points of the ratio's lower end (float, outward); pmin[0] = inf
    smax: list  # smax[j] = max over points j.. of the ratio's upper end (float, outward); smax[L] = -inf
    loose: list  # (P, Q) balls of points without a usable ratio enclosure (Q's ball contains 0, or wide)
    dropped: arb  # P-mass of the points not prepared (upper bound)


def _prepare(C: int, PC: list, PQ: list, idx: list, outside: arb) -> _Prepared:
    """The pair ``(P_C, P_{C−1})`` on the points ``idx`` (the rows of the window of ``M``; ``outside``: the certified
    ``P``-mass of the other rows, added to the dropped mass).  O(L log L), ``L = len(idx)``."""
    pts: list = []
    loose: list = []
    dropped = outside
    la, lb = len(PC), len(PQ)
    zero = arb(0)
    for i in idx:
        if i >= la:
            break  # idx is increasing; P_C has every point of P_{C−1}'s support (0 < q < 1) or none
        A = PC[i]
        B = PQ[i] if i < lb else zero
        up = A.upper()
        if up < DROP:
            if up > 0:
                dropped += up
            continue
        if not B > 0:
            loose.append((A, B))
            continue
        r = A / B
        lo, hi = float(r.lower()), float(r.upper())
        if not (lo > 0 and hi < math.inf) or hi - lo > 1e-6 * hi:
            loose.append((A, B))
            continue
        pts.append((-(lo + hi) / 2, lo * (1 - _MARGIN), hi * (1 + _MARGIN), A, B))
    pts.sort(key=lambda t: t[0])
    L = len(pts)
    pa, pb = [arb(0)] * (L + 1), [arb(0)] * (L + 1)
    pmin, smax = [math.inf] * (L + 1), [-math.inf] * (L + 1)
    for j, t in enumerate(pts):
        pa[j + 1] = pa[j] + t[3]
        pb[j + 1] = pb[j] + t[4]
        pmin[j + 1] = min(pmin[j], t[1])
    for j in range(L - 1, -1, -1):
        smax[j] = max(smax[j + 1], pts[j][2])
    return _Prepared(C, pa, pb, pmin, smax, loose, dropped)


def _pos(x: arb) -> tuple:
    """Lower and upper ends of ``x_+`` as arbs.  O(1)."""
    lo = x.lower()
    hi = x.upper()
    return (arb(lo) if lo > 0 else arb(0)), (arb(hi) if hi > 0 else arb(0))


def _value(pr: _Prepared, alpha: fmpq) -> tuple:
    """Ball lower and upper ends of ``H_α(P_C ‖ P_{C−1})``.  The first ``j1`` sorted points have ratio ``> α``
    (certified by the running minimum of their lower ends), the points from ``j2`` on ratio ``≤ α`` (running maximum
    of the upper ends); ``H_α = Σ_{j < j1}(P − αQ) + Σ_{j1 ≤ j < j2}(P − αQ)_+`` plus the loose and dropped points.
    O(log L + j2 − j1 + loose)."""
    af = float(alpha)
    a_hi, a_lo = af * (1 + _MARGIN), af * (1 - _MARGIN)
    L = len(pr.pmin) - 1
    # pmin is non-increasing: j1 = the largest j with pmin[j] > a_hi
    lo_j, hi_j = 0, L
    while lo_j < hi_j:
        mid = (lo_j + hi_j + 1) // 2
        if pr.pmin[mid] > a_hi:
            lo_j = mid
        else:
            hi_j = mid - 1
    j1 = lo_j
    # smax is non-increasing: j2 = the smallest j with smax[j] <= a_lo
    lo_j, hi_j = j1, L
    while lo_j < hi_j:
        mid = (lo_j + hi_j) // 2
        if pr.smax[mid] <= a_lo:
            hi_j = mid
        else:
            lo_j = mid + 1
    j2 = lo_j
    al = arb(alpha)
    base = pr.pa[j1] - al * pr.pb[j1]
    vlo, vhi = arb(base.lower()), arb(base.upper())
    for j in range(j1, j2):  # a point's P and Q as differences of the prefix sums (their radii: ~2^-128 absolute)
        lo, hi = _pos((pr.pa[j + 1] - pr.pa[j]) - al * (pr.pb[j + 1] - pr.pb[j]))
        vlo, vhi = vlo + lo, vhi + hi
    for A, B in pr.loose:
        lo, hi = _pos(A - al * B)
        vlo, vhi = vlo + lo, vhi + hi
    vhi = vhi + pr.dropped
    return vlo, vhi


class SampledBinaryWorst:
    """The prepared worst case of the sampled binary RR round (``n`` users, participation ``q``, ``e^{ε0}`` a ball or
    an exact rational) for certified values at any ``α ≥ 1`` (:meth:`value`).  Preparation O(n³) ball operations
    (``n`` Kronecker products of length ``n²``, one pass over each), memory O(n³) balls: a small-``n`` route."""

    def __init__(self, exp_epsilon0: Any, q: Any, n: int, prec: int = 128) -> None:
        n = arith.integer_in(n, "n", lo=1)
        qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        self.n = n
        self.q = qq
        with arith.precision(prec):
            e = arith.ball(exp_epsilon0)
            p, f = e / (e + 1), 1 / (e + 1)
            qb = arb(qq) if isinstance(qq, fmpq) else arith.ball(qq)
            self.pairs: list = []
            rows, outside = _rows(n, qb) if qq < 1 else ((n, n), arb(0))
            idx = _support(n, rows)
            three = ((1 - qb, qb * f, qb * p), (1 - qb, qb * p, qb * f))  # a, b: (z^0, z^B, z^{B+1}) coefficients

            def times(X: Any, which: int, k: int) -> Any:  # X·a^k (which = 0) or X·b^k: k three-term steps, O(k·L)
                c0, c1, c2 = three[which]
                for _ in range(k):
                    X = X * c0 + (X * c1).left_shift(n + 1) + (X * c2).left_shift(n + 2)
                return X

            def emit(c: int, X: Any) -> None:  # X = O_c = a^c b^{n−1−c}: the pair (P_{c+1}, P_c) = (X·a, X·b)
                self.pairs.append(_prepare(c + 1, times(X, 0, 1).coeffs(), times(X, 1, 1).coeffs(), idx, outside))

            def rec(c0: int, c1: int, X: Any) -> None:  # X = a^{c0} b^{n−1−c1}; emits O_c for c0 ≤ c ≤ c1
                if c0 == c1:
                    emit(c0, X)
                    return
                mid = (c0 + c1) // 2
                rec(c0, mid, times(X, 1, c1 - mid))
                rec(mid + 1, c1, times(X, 0, mid + 1 - c0))

            rec(0, n - 1, arb_poly([1]))

    def value(self, alpha: Any) -> tuple:
        """``(lo, hi, C)``: certified lower and upper ends (``fmpq``) of ``max_C H_α(P_C ‖ P_{C−1})`` — the worst
        case over every dataset and both orders — at ``α ≥ 1``, and a ``C`` attaining the largest upper end.
        O(n log n + undecided points)."""
        al = arith.exact(alpha, "alpha")
        al = al if isinstance(al, fmpq) else fmpq(al)
        if al < 1:
            raise InvalidArgument("alpha", str(al), "must be >= 1")
        best_lo, best_hi, arg = arb(0), arb(0), 1
        with arith.precision(128):
            for pr in self.pairs:
                lo, hi = _value(pr, al)
                if lo > best_lo:
                    best_lo = lo
                if hi > best_hi:
                    best_hi, arg = hi, pr.C
        lo_q = arith.endpoints(best_lo)[0]
        hi_q = arith.endpoints(best_hi)[1]
        return (
            max(fmpq(0), fmpq(lo_q.numerator, lo_q.denominator)),
            min(fmpq(1), fmpq(hi_q.numerator, hi_q.denominator)),
            arg,
        )


def build_seconds(n: int) -> float:
    """Estimated one-core seconds of :class:`SampledBinaryWorst`'s preparation: ``n`` pairs of about ``n²/2``
    coefficients each (:data:`SECONDS_PER_COEFF`).  A choice, never a bound.  O(1)."""
    return SECONDS_PER_COEFF * n * n * (n + 1) / 2


def worst_seconds(n: int, q: Any) -> float:
    """Modelled one-core seconds of :func:`sampled_binary_worst`'s preparation at ``n`` users, participation ``q``:
    the route by rows (:func:`blanket.exact.shuffled.sampled_binary_rows.route_seconds`) for ``q < 1``, the Kronecker
    route (:func:`build_seconds`) for ``q = 1``.  A choice, never a bound.  O(1)."""
    from blanket.exact.shuffled.sampled_binary_rows import route_seconds

    qf = float(arith.exact(q, "q"))
    return build_seconds(n) if qf >= 1 else route_seconds(n, qf)


def affordable(n: int, q: Any, budget: float | None = None) -> bool:
    """Whether the callers use the exact worst case at ``n`` users: :func:`worst_seconds` at most ``budget`` (default
    :data:`BUDGET_SECONDS`) and, by rows (``q < 1``), the modelled memory
    (:func:`~blanket.exact.shuffled.sampled_binary_rows.route_bytes`) at most :data:`BUDGET_BYTES` (at a tiny ``q`` the
    time model is small while the per-``C`` tables grow with ``n``: n = 10⁵, q = 10⁻⁵ took 5.7 GB).  O(1)."""
    from blanket.exact.shuffled.sampled_binary_rows import route_bytes

    if n < 1 or worst_seconds(n, q) > (BUDGET_SECONDS if budget is None else budget):
        return False
    qf = float(arith.exact(q, "q"))
    return qf >= 1 or route_bytes(n, qf) <= BUDGET_BYTES


_MEMO: dict = {}


def sampled_binary_worst(exp_epsilon0: Any, q: Any, n: int) -> Any:
    """The prepared exact worst case (``.value(α) -> (lo, hi, C)``): by rows of ``M``
    (:class:`~blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows`) for ``q < 1``, else
    :class:`SampledBinaryWorst`; memoised per ``(e^{ε0}, q, n)`` (at most 2 kept).  Cost :func:`worst_seconds`
    once."""
    from blanket.exact.shuffled.sampled_binary_rows import SampledBinaryRows

    with arith.precision(128):
        key = (str(arith.ball(exp_epsilon0)), str(q), n)
    held = _MEMO.get(key)
    if held is None:
        if len(_MEMO) >= 2:
            _MEMO.pop(next(iter(_MEMO)))
        qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        route = SampledBinaryRows if qq < 1 else SampledBinaryWorst
        held = _MEMO[key] = route(exp_epsilon0, q, n)
    return held


def _log_end(a: fmpq, up: bool) -> fmpq:
    """A rational end of ``log a`` (upper if ``up``).  O(1)."""
    with arith.precision(128):
        lo, hi = arith.endpoints(arith.ball(a).log())
    x = hi if up else lo
    return fmpq(x.numerator, x.denominator)


def _dyadic_between(a: fmpq, b: fmpq) -> fmpq:
    """A dyadic rational strictly between ``a < b`` with few bits (the midpoint rounded to 2⁻⁶⁰).  O(1)."""
    m = (a + b) / 2
    k = 60
    d = fmpq(int((m * 2**k).floor()), 2**k)
    return d if a < d < b else m


def one_round_epsilon(w: Any, delta: Any, e0_hi: fmpq, rel_tol: Any = None) -> tuple:
    """``(lower, upper)``: certified ends of ε(δ) of one sampled binary RR round from its exact worst case
    (Lemma S4): bisection on ``α ∈ [1, e0_hi]`` (``e0_hi ≥ e^{ε0}``, where δ is 0); an ``α`` whose upper value is
    at most ``δ`` bounds ε from above (``log α``), one whose lower value exceeds ``δ`` from below (``H`` is
    non-increasing in ``α``).  Stops at ``rel_tol`` (relative, in ε); where the enclosure straddles ``δ`` at some
    ``α``, each end is then searched on its own side (upper values for the upper end, lower values for the lower end;
    each point decided is certified on its own).  O(iterations · value)."""
    dt = arith.exact(delta, "delta")
    rel_tol = fmpq(1, 10**6) if rel_tol is None else arith.exact(rel_tol, "rel_tol")
    lo_a, hi_a = fmpq(1), fmpq(e0_hi)
    if w.value(lo_a)[1] <= dt:
        return fmpq(0), fmpq(0)
    lo_ok = w.value(lo_a)[0] > dt
    undecided = None
    for _ in range(200):
        if lo_ok and hi_a - lo_a <= rel_tol * (lo_a - 1) / 4:
            break
        m = _dyadic_between(lo_a, hi_a)
        v_lo, v_hi, _c = w.value(m)
        if v_hi <= dt:
            hi_a = m
        elif v_lo > dt:
            lo_a, lo_ok = m, True
        else:
            undecided = m
            break
    if undecided is not None:  # the enclosure straddles δ at m: each end on its own side, to the same tolerance
        tol = rel_tol * (max(lo_a, fmpq(1) + (undecided - 1) / 2) - 1) / 4
        a, b = undecided, hi_a  # the upper end: the smallest α with an upper value at most δ
        while b - a > tol:
            m = _dyadic_between(a, b)
            if w.value(m)[1] <= dt:
                b = m
            else:
                a = m
        hi_a = b
        a, b = lo_a, undecided  # the lower end: the largest α with a lower value above δ
        while b - a > tol:
            m = _dyadic_between(a, b)
            if w.value(m)[0] > dt:
                a, lo_ok = m, True
            else:
                b = m
        lo_a = a
    return (_log_end(lo_a, False) if lo_ok else fmpq(0)), _log_end(hi_a, True)


def one_round_delta(w: Any, epsilon: Any) -> tuple:
    """``(lower, upper)``: certified ends of δ(ε) of one sampled binary RR round (Lemma S4) at ``ε ≥ 0``: the values at
    rational ``α`` just above and below ``e^ε`` (``H`` is non-increasing in ``α``).  O(n log n)."""
    e = arith.exact(epsilon, "epsilon")
    with arith.precision(128):
        lo, hi = arith.endpoints(arith.ball(e).exp())
    a_lo = max(fmpq(1), fmpq(lo.numerator, lo.denominator))
    a_hi = max(fmpq(1), fmpq(hi.numerator, hi.denominator))
    return w.value(a_hi)[0], w.value(a_lo)[1]
