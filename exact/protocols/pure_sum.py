"""Exact quantities of the Cheu–Yan pure-DP summation (paper key CY21): the relaxed aggregator of Section 3 and
the protocol of Section 4, in this project's reading (``docs/reference/pure_dp.md``).

Moved from ``proofs/pure_dp.py`` (issue 15: ``proofs/`` holds statements and their symbolic derivations and
evaluates them through ``exact/``).  Everything here computes an exact rational or a ball that encloses the true
value; nothing here knows about sympy.  The component laws and their convolutions come from
:mod:`blanket.exact.protocols.tdlap` (:class:`~blanket.exact.protocols.tdlap.RelaxedAggregator`,
:class:`~blanket.exact.protocols.tdlap.Groups`).

* predicates of Definitions 2.1, 2.2, 2.7–2.9 (three-valued, precision escalates): :func:`llr_distance`,
  :func:`is_pure_dp`, :func:`is_llr_secure`, :func:`is_beta_correct`, :func:`is_relaxation`;
* Theorem 2.3: :func:`dlap_shift_llr`;
* Claims 3.3, 3.6, 3.8, Corollary 3.7, Claim 3.10: exact masses and ratios of the four groups
  (:func:`no_carry_gap`, :func:`group_mass`, :func:`cor37_exact`, :func:`claim38_ratio`,
  :func:`claim38_same_index_ratio`, :func:`closed_pairing_ratio`, :func:`claims_pair_bound`,
  :func:`perfect_security_failure`);
* Theorem 4.1: the exact error law of the protocol (:func:`noise_pmf`, :func:`protocol_error_law`,
  :func:`error_second_moment`, :func:`protocol_mse`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.protocols import tdlap as xt
from flint import arb, fmpq

Number = fmpq | arb


def ratio_in(v: NumberOrBall) -> Number:
    """The TDLap ratio ``r = e^{-1/s}`` as given: a ball passes through, anything else is read exactly in (0, 1)."""
    return v if isinstance(v, arb) else arith.exact_in(v, "r", lo=0, hi=1, lo_open=True, hi_open=True)


def aggregator(
    m: IntegerInput, tau: IntegerInput, q: NumberOrBall, *, r: NumberOrBall | None = None, s: NumberOrBall | None = None
) -> xt.RelaxedAggregator:
    """The relaxed aggregator with modulus ``m >= 2``, truncation ``tau >= 0``, mixing weight ``q`` and ratio ``r``
    (read exactly by :func:`ratio_in`) or scale ``s``; integers may be given as ints, integral fmpq or strings."""
    mm, tt = arith.integer_in(m, "m", lo=2), arith.integer_in(tau, "tau", lo=0)
    if r is not None:
        return xt.RelaxedAggregator(mm, tt, q=q, r=ratio_in(r))
    return xt.RelaxedAggregator(mm, tt, q=q, s=s)


# ============================================================ predicates (Definitions 2.1, 2.2, 2.7-2.9)
def llr_distance(p: Sequence, q_: Sequence) -> Enclosure | None:
    """Definition 2.1 on exact laws (aligned mass vectors): ball/fmpq, or ``None`` for +∞."""
    return xt.llr_exact_or_ball(p, q_)


def is_pure_dp(laws: Mapping, neighbours: Iterable, eps: NumberOrBall) -> bool | None:
    """Definition 2.2 on exact laws: ``d_LLR(M(x), M(x')) <= eps`` for every neighbouring pair (three-valued).

    ``laws`` maps each input to its output law (aligned mass vectors, exact or balls); ``neighbours`` is an
    iterable of input pairs.  ``False`` as soon as one pair is certainly above ``eps`` (or has different
    supports: LLR = +inf), ``None`` if some pair is undecided at the laws' precision, else ``True``.
    O(total support) per pair.
    """
    target = arith.exact_in(eps, "epsilon", lo=0) if not isinstance(eps, arb) else eps
    out: bool | None = True
    for x, x2 in neighbours:
        if x not in laws or x2 not in laws:
            raise InvalidArgument("neighbours", (x, x2), "must name inputs that have a law in `laws`")
        v = llr_distance(laws[x], laws[x2])
        verdict = False if v is None else arith.le(v, target)
        if verdict is False:
            return False
        if verdict is None:
            out = None
    return out


def _decide(compute, what):
    """Three-valued verdict with precision escalation (128 → 4096 bits); ``None`` only at the cap."""
    try:
        v, _ = arith.escalate(lambda prec: compute(), lambda v: v is not None, what=what)
        return v
    except Undecided:
        return None


def is_llr_secure(agg: xt.RelaxedAggregator, n_: int, eps: NumberOrBall) -> bool | None:
    """Definition 2.8 with SIM(c) = the protocol on (c, 0, …, 0): three-valued ``max_x d_LLR <= eps`` (small n, m).

    Exact-rational aggregators decide at once; ball aggregators (built from ``s``) are
    evaluated at the precision they were built with, escalating the comparison only.
    """
    target = arith.exact(eps, "epsilon") if not isinstance(eps, arb) else eps

    def compute():
        val, _ = agg.llr_security(n_)
        return False if val is None else arith.le(val, target)

    return _decide(compute, "LLR security")


def is_beta_correct(agg: xt.RelaxedAggregator, n_: int, beta_: NumberOrBall) -> bool | None:
    """Definition 2.7 with POST = mod m: three-valued ``max_x Pr[POST(S) != sum x mod m] <= beta``."""
    target = arith.exact(beta_, "beta") if not isinstance(beta_, arb) else beta_

    def compute():
        val, _ = agg.correctness_failure_max(n_)
        return arith.le(val, target)

    return _decide(compute, "beta-correctness")


def is_relaxation(agg: xt.RelaxedAggregator, n_: int, eps: NumberOrBall, beta_: NumberOrBall) -> bool | None:
    """Definition 2.9: (eps, beta)-relaxation of the aggregator (both predicates; three-valued)."""
    s1, s2 = is_llr_secure(agg, n_, eps), is_beta_correct(agg, n_, beta_)
    if s1 is False or s2 is False:
        return False
    return None if (s1 is None or s2 is None) else True


def dlap_shift_llr(epsilon: NumberOrBall, k: IntegerInput = 1) -> fmpq:
    """Exact LLR between DLap(0, k/eps) and DLap(k, k/eps).

    ``log(Pr[z]/Pr'[z]) = -(|z| - |z-k|) eps/k`` is *linear* in the exponent,
    so the LLR is ``(eps/k) max_z ||z| - |z-k||`` exactly; the max is attained on
    ``0..k`` and is constant outside (``|z| - |z-k| = ±k`` for ``z <= 0`` or
    ``z >= k``), so the window ``-1..k+1`` is the whole maximisation.
    """
    e = arith.exact(epsilon, "epsilon")
    k = arith.integer_in(k, "k", lo=1)
    return max(abs(abs(z) - abs(z - k)) for z in range(-1, k + 2)) * e / k


def no_carry_gap(m: IntegerInput, tau: IntegerInput, r: NumberOrBall, a: IntegerInput, b: IntegerInput) -> Enclosure:
    agg = aggregator(m, tau, 0, r=r)
    G = xt.Groups(agg)
    cc = (arith.integer_in(a, "a") + arith.integer_in(b, "b")) % agg.m
    p, q_ = G.conv("D", arith.integer_in(a, "a"), "D", arith.integer_in(b, "b")), G.conv("D", cc, "D", 0)
    return arith.maximum([abs(x - y) for x, y in zip(p, q_)])


def group_mass(
    X: str, x: int, Y: str, y_: int, rho: NumberOrBall, tau: IntegerInput, m: IntegerInput, yy_: int
) -> Enclosure:
    """Exact (X_x * Y_y)[yy] from the engine (rational rho: exact rationals)."""
    G = groups_at_rho(rho, tau, m)
    v = G.conv(X, x, Y, y_)
    return v[yy_] if 0 <= yy_ < len(v) else fmpq(0)


_GROUPS_CACHE: dict = {}


def groups_at_rho(rho: NumberOrBall, tau: IntegerInput, m: IntegerInput) -> xt.Groups:
    """:class:`exact.protocols.tdlap.Groups` of the aggregator with ``r = rho^m`` (cached; q is irrelevant to the groups)."""
    key = (str(rho), int(tau), int(m))
    if key not in _GROUPS_CACHE:
        rr = (
            xt.r_from_rho(rho, arith.integer_in(m, "m", lo=2))
            if not isinstance(rho, arb)
            else rho ** arith.integer_in(m, "m", lo=2)
        )
        if len(_GROUPS_CACHE) > 64:
            _GROUPS_CACHE.clear()
        _GROUPS_CACHE[key] = xt.Groups(aggregator(m, tau, fmpq(1, 2), r=rr))
    return _GROUPS_CACHE[key]


def cor37_exact(r: NumberOrBall, tau: IntegerInput, q: NumberOrBall, m: IntegerInput) -> Enclosure:
    """Exact ``log max`` over carry pairs, both directions and all y, of the group-1 ratio of Corollary 3.7."""
    agg = aggregator(m, tau, q, r=r)
    G = xt.Groups(agg)
    qq = agg.q
    best: Enclosure = fmpq(1)
    for a_ in range(agg.m):
        for b_ in range(agg.m):
            if a_ + b_ < agg.m:
                continue
            c_ = (a_ + b_) % agg.m
            for pa, pb, pc, pd in ((a_, b_, c_, 0), (c_, 0, a_, b_)):
                num = G.conv("D", pa, "D", pb)
                den_parts = (
                    G.conv("D", pc, "D", pd),
                    G.conv("E", pc, "D", pd),
                    G.conv("D", pc, "E", pd),
                    G.conv("E", pc, "E", pd),
                )
                for y, x in enumerate(num):
                    if arith.is_zero(x):
                        continue
                    den = (
                        (1 - qq) ** 2 * den_parts[0][y]
                        + qq * (1 - qq) * (den_parts[1][y] + den_parts[2][y])
                        + qq**2 * den_parts[3][y]
                    )
                    best = arith.maximum([best, (1 - qq) ** 2 * x / den])
    return arith.ball(best).log() if not (isinstance(best, fmpq) and best == 1) else fmpq(0)


def pair_directions(m: int) -> Iterator[tuple[int, int, int, int]]:
    """Every ordered input pair ``(a, b)`` in ``0..m-1`` against ``(c, 0)``, ``c = (a + b) mod m``, in both
    directions: ``(a, b, c, 0)`` then ``(c, 0, a, b)``.  O(m^2) tuples."""
    for a_ in range(m):
        for b_ in range(m):
            c_ = (a_ + b_) % m
            yield (a_, b_, c_, 0)
            yield (c_, 0, a_, b_)


def max_ratio_on_support(best: Number, lhs: Iterable[Number], rhs: Iterable[Number]) -> Number:
    """``max(best, max_y lhs[y]/rhs[y])`` over the ``y`` where ``lhs[y]`` is not certainly zero (exact or a ball
    enclosing the max).  The caller guarantees ``rhs[y] > 0`` there.  O(len(lhs))."""
    for x, y in zip(lhs, rhs):
        if not arith.is_zero(x):
            best = arith.maximum([best, x / y])
    return best


def claim38_ratio(X: str, Y: str, r: NumberOrBall, tau: IntegerInput, m: IntegerInput) -> Enclosure:
    """``max_y (X_a*Y_b)[y] / RHS(y)`` over all pairs and both directions (<= 1 iff Claim 3.8 holds there)."""
    agg = aggregator(m, tau, fmpq(1, 2), r=r)
    G = xt.Groups(agg)
    best: Number = fmpq(0)
    for pa, pb, pc, pd in pair_directions(agg.m):
        best = max_ratio_on_support(best, G.conv(X, pa, Y, pb), G.pairing_rhs(X, pa, Y, pb, pc, pd))
    return best


def claim38_same_index_ratio(r: NumberOrBall, tau: IntegerInput, m: IntegerInput) -> Enclosure:
    """``max_y (E_a*E_b)[y] / K (E_c*E_d)[y]`` over pairs and directions (<= 1 iff the same-index pairing holds)."""
    agg = aggregator(m, tau, fmpq(1, 2), r=r)
    G = xt.Groups(agg)
    best: Number = fmpq(0)
    for pa, pb, pc, pd in pair_directions(agg.m):
        best = max_ratio_on_support(best, G.conv("E", pa, "E", pb), G.same_index_rhs(pa, pb, pc, pd))
    return best


def claims_pair_bound(agg: xt.RelaxedAggregator) -> Enclosure | None:
    """Certified upper bound on the pairwise LLR (5) built from Claims 3.3/3.4/3.8 (this project's reading).

    For every pair and direction, ``P[y] <= B(y) = sum_groups weight · RHS_group(y)``
    (each ``RHS`` from :meth:`exact.protocols.tdlap.Groups.pairing_rhs`, certified
    pointwise by Claim 3.8's checks), so ``max_y B(y)/Q[y] >= max_y P[y]/Q[y]``:
    the log of the max is a certified upper bound on the exact pairwise LLR.
    Returns ``None`` (=∞) if some ``B(y) > 0`` meets ``Q[y] = 0``.
    Cost: ``O(m^2)`` pairs × 4 groups × a few convolutions of length ``2 ell``.
    """
    G = xt.Groups(agg)
    qq = agg.q
    w = {("D", "D"): (1 - qq) ** 2, ("E", "D"): qq * (1 - qq), ("D", "E"): qq * (1 - qq), ("E", "E"): qq**2}
    best: Enclosure = fmpq(1)
    for a_ in range(1, agg.m):
        for b_ in range(a_, agg.m):
            c_ = (a_ + b_) % agg.m
            for pa, pb, pc, pd in ((a_, b_, c_, 0), (c_, 0, a_, b_)):
                B: list | None = None
                for (X, Y), wt in w.items():
                    if arith.is_zero(wt):
                        continue
                    rhs = G.pairing_rhs(X, pa, Y, pb, pc, pd)
                    if (X, Y) == ("E", "E"):  # Claim 3.8 [EE same-index]: take the smaller valid bound pointwise
                        rhs = [arith.minimum(x, v) for x, v in zip(rhs, G.same_index_rhs(pa, pb, pc, pd))]
                    B = [wt * v for v in rhs] if B is None else [x + wt * v for x, v in zip(B, rhs)]
                if B is None:  # every weight is zero: nothing to bound
                    continue
                Q = agg.pair_law(pc, pd)
                for x, y in zip(B, Q):
                    if arith.is_zero(x):
                        continue
                    if arith.is_zero(y):
                        return None
                    best = arith.maximum([best, x / y])
    return arith.ball(best).log() if not (isinstance(best, fmpq) and best == 1) else fmpq(0)


def perfect_security_failure(m: IntegerInput) -> fmpq:
    """Best minimax failure of POST = mod m for a perfectly secure (input-independent) intermediary.

    The output law is the aggregator's law on the all-zero input (any fixed law works);
    whatever POST, ``sum_c Pr[POST = c] = 1`` so some input sum ``c`` fails with
    probability ``>= 1 - 1/m``; here: ``1 - min_c Pr[S ≡ c]`` for the mod-m POST.
    """
    mm = arith.integer_in(m, "m", lo=2)
    agg = xt.RelaxedAggregator(mm, 1, q=fmpq(1, 2), r=fmpq(1, 2) ** mm)
    law = agg.sum_law([0, 0])
    classes = [sum((law[y] for y in range(cc, len(law), mm)), fmpq(0)) for cc in range(mm)]
    return 1 - min(classes)


def noise_pmf(t: int, r_: Enclosure) -> Enclosure:
    """``Pr[eta_1 + eta_2 = t]`` for i.i.d. ``eta_i ~ DLap`` with ratio ``r``:
    ``((1-r)/(1+r))^2 r^{|t|} (|t| + 1 + 2 r^2/(1-r^2))`` (derived; tested against an exact convolution)."""
    return ((1 - r_) / (1 + r_)) ** 2 * r_ ** abs(t) * (abs(t) + 1 + 2 * r_**2 / (1 - r_**2))


def protocol_error_law(
    xs: Sequence[NumberInput], epsilon_: NumberOrBall, k_: IntegerInput, m_: IntegerInput, *, window: int | None = None
) -> tuple[dict, Enclosure]:
    """Exact error law of Theorem 4.1's protocol (this project's reading) for small inputs, all users honest.

    User ``i`` rounds ``x_i in [0,1]`` (exact rationals) to ``floor(k x_i) + Bernoulli(frac(k x_i))``
    (unbiased), adds a noise share ``Pólya(2/n, r) - Pólya(2/n, r)`` with ``r = e^{-eps/k}`` (Fact 2.4
    twice: the shares sum to ``eta_1 + eta_2``, ``eta_j ~ DLap(k/eps)``), and the aggregator returns the
    sum mod ``m``; the analyzer takes the representative ``v`` of the residue nearest to ``k·n/2``
    (``m > n k``) and outputs ``v / k``.  Returns ``(law, tail)``: ``law`` maps the error
    ``output - sum x_i`` (an exact rational) to a ball, exact up to ``tail`` = the certified noise mass
    left out (``|t| > W``, ``W = 40 m`` by default), which the caller adds where needed.
    O(W + m · (n k + 1)) after the rounding convolution (the noise is folded mod m first).
    """
    xq = [arith.exact_in(x, "x", lo=0, hi=1) for x in xs]
    nn = len(xq)
    kk = arith.integer_in(k_, "k", lo=1)
    mm = arith.integer_in(m_, "m", lo=2)
    if mm <= nn * kk:
        raise InvalidArgument("m", mm, f"must exceed n k = {nn * kk} so that the rounded sum does not wrap")
    e = arith.exact_in(epsilon_, "epsilon", lo=0, lo_open=True)
    rr = (-arith.ball(e) / kk).exp()
    W = window or 40 * mm
    rounding = {0: fmpq(1)}
    for x in xq:
        lo = (kk * x).floor()
        frac = kk * x - lo
        new: dict = {}
        for v, pv in rounding.items():
            for add, pa in ((int(lo), 1 - frac), (int(lo) + 1, frac)):
                if pa != 0:
                    new[v + add] = new.get(v + add, fmpq(0)) + pv * pa
        rounding = new
    total = sum(xq, fmpq(0))
    centre = fmpq(nn * kk, 2)
    # representative of each residue nearest to n k / 2, and the noise masses, tabulated once
    rep = [res + mm * int(((centre - res) / mm + fmpq(1, 2)).floor()) for res in range(mm)]
    noise = [noise_pmf(t, rr) for t in range(-W, W + 1)]
    # fold the noise mod m first: law of (t mod m) — then combine with the rounding law (O(m · |rounding|))
    folded = [arb(0)] * mm
    for i, p in enumerate(noise):
        folded[(i - W) % mm] += p
    law: dict = {}
    for v, pv in rounding.items():
        for t_res in range(mm):
            err = fmpq(rep[(v + t_res) % mm], kk) - total
            contrib = pv * folded[t_res]
            law[err] = law[err] + contrib if err in law else contrib
    tail = 2 * xt.dlap_tail(W // 2, r=rr)
    return law, tail


def error_second_moment(epsilon_: NumberOrBall, m_: IntegerInput, *, window: int | None = None) -> arb:
    """E[err^2] of Theorem 4.1's protocol on binary data (k = 1), all users honest, exactly up to a certified tail.

    Total noise ``N = eta_1 + eta_2``, ``eta_i ~ DLap(1/eps)`` i.i.d.; closed form
    ``Pr[N = t] = ((1-r)/(1+r))^2 r^{|t|} (|t| + 1 + 2 r^2/(1-r^2))`` (derived, tested against a
    convolution).  The analyzer outputs the centred residue mod ``m``: ``err = cen(N mod m)``.
    Window ``|t| <= W`` (default ``W = 40 m``); the left-out mass ``<= 2 Pr[|eta| > W/2]`` times
    ``(m/2)^2`` is added to the upper end.  O(W).
    """
    e = arith.exact_in(epsilon_, "epsilon", lo=0, lo_open=True)
    mm = arith.integer_in(m_, "m", lo=2)
    W = window or 40 * mm
    rr = xt.ratio(s=1 / e)
    c0 = ((1 - rr) / (1 + rr)) ** 2
    acc = arb(0)
    for t in range(-W, W + 1):
        p = c0 * rr ** abs(t) * (abs(t) + 1 + 2 * rr**2 / (1 - rr**2))
        res = t % mm
        cen = res if res <= mm // 2 else res - mm
        acc += p * cen**2
    tail = 2 * xt.dlap_tail(W // 2, r=rr) * fmpq(mm * mm, 4)
    return acc + arb(0).union(arith.ball(tail))


def protocol_mse(
    n_: IntegerInput, k_: IntegerInput, m_: IntegerInput, epsilon_: NumberOrBall, *, window: int | None = None
) -> arb:
    """Exact E[err^2] of the protocol (:func:`protocol_error_law`) on the input x_i = 1/(2k) (maximal rounding
    variance), as a ball whose upper end includes the left-out noise mass times the largest squared error.
    ``window``: noise window ``|t| <= W`` (default ``40 m``); O(W + m (n k + 1))."""
    nn, kk, mm = arith.integer_in(n_, "n", lo=1), arith.integer_in(k_, "k", lo=1), arith.integer_in(m_, "m", lo=2)
    law, tail = protocol_error_law([fmpq(1, 2 * kk)] * nn, epsilon_, kk, mm, window=window)
    acc = sum((e * e * p for e, p in law.items()), arb(0))
    worst = (fmpq(mm + nn * kk, 2 * kk)) ** 2
    return acc + arb(0).union(arith.ball(tail) * worst)


# ============================================================ Claim 3.8 in closed form: the exact side
def carry_pairs(m: int, carry: bool) -> Iterator[tuple[int, int, int, int]]:
    """Pairs ``(a, b)``, ``1 <= a <= b <= m-1``, with (``a + b >= m``) or without a carry, in both directions:
    ``(a, b, c, 0)`` and ``(c, 0, a, b)`` with ``c = (a + b) mod m``.  O(m^2) tuples."""
    for a_ in range(1, m):
        for b_ in range(a_, m):
            if (a_ + b_ >= m) == carry:
                c_ = (a_ + b_) % m
                yield (a_, b_, c_, 0)
                yield (c_, 0, a_, b_)


def closed_pairing_ratio(
    groups: xt.Groups,
    m: int,
    group: str,
    carry: bool,
    constants: Callable[[int, int], tuple[Number, Number]],
) -> Number | None:
    """``max`` over :func:`carry_pairs`, both directions and ``y`` of ``LHS(y)/RHS(y)`` for a closed-form Claim 3.8.

    ``group``: ``"mixed"`` (``LHS = P_mix = E_x1*D_x2 + D_x1*E_x2``, ``RHS = A Q_mix + B Q_EE``) or ``"mirrored"``
    (``LHS = P_EE = E_x1*E_x2``, ``RHS = A Q_EE``), ``Q_*`` the same groups of the other law; ``constants(y, j)``
    returns ``(A, B)`` at the outcome ``y`` and the carry ``j = (x1 + x2 - x3 - x4)/m`` of the comparison.  Masses
    from ``groups`` (exact rationals for rational ``rho``).  ``None`` (= +inf) if an RHS vanishes where the LHS does
    not; ``<= 1`` iff the closed form holds at this point.  O(m^2) convolutions of length ``2 ell + 1``.
    """
    best: Number = fmpq(0)
    for x1, x2, x3, x4 in carry_pairs(m, carry):
        j_ = (x1 + x2 - x3 - x4) // m
        qe = groups.conv("E", x3, "E", x4)
        if group == "mirrored":
            lhs, qm = groups.conv("E", x1, "E", x2), [fmpq(0)] * len(qe)
        else:
            lhs = [p1 + p2 for p1, p2 in zip(groups.conv("E", x1, "D", x2), groups.conv("D", x1, "E", x2))]
            qm = [p1 + p2 for p1, p2 in zip(groups.conv("E", x3, "D", x4), groups.conv("D", x3, "E", x4))]
        for y_, (x, vm, ve) in enumerate(zip(lhs, qm, qe)):
            if arith.is_zero(x):
                continue
            A_, B_ = constants(y_, j_)
            rhs = A_ * ve if group == "mirrored" else A_ * vm + B_ * ve
            if arith.is_zero(rhs):
                return None
            best = arith.maximum([best, x / rhs])
    return best
