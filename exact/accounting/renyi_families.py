"""Rényi moments of the shuffled k-RR dataset families at scale: a certified Taylor (moment) kernel, cost independent of n.

Setting (``docs/reference/renyi.md`` §0; the i.i.d. engine of :mod:`exact.accounting.renyi`).  In the
families *same*, *neighbour*, *third* the ``n − 1`` other users hold one value ``z``, so with ``Q_n =
Multinomial(n, μ_z)`` and ``s(y) = μ_x(y)/μ_z(y)``, ``s'(y) = μ_{x'}(y)/μ_z(y)``

    ``E_λ = E_{h~Q_n}[(S/n)^λ (S'/n)^{1−λ}]``,  ``S = Σ_y s(y) h_y``,  ``S' = Σ_y s'(y) h_y``.

Marginalisation: ``S`` and ``S'`` are sums over the ``n`` *reports* (a multinomial count vector is the
histogram of ``n`` i.i.d. reports ``Y_k ~ μ_z``), ``S/n = 1 + u``, ``S'/n = 1 + v`` with

    ``u = (1/n) Σ_k ξ(Y_k)``,  ``v = (1/n) Σ_k η(Y_k)``,  ``ξ = s − 1``,  ``η = s' − 1``,

i.i.d. steps with mean exactly 0 (``Σ_y μ_z(y) s(y) = Σ_y μ_x(y) = 1``).  Only the cells ``x, x', z`` have
a step other than ``(0, 0)``; every other value of the domain is lumped into one cell (its count enters
only through the multinomial marginal).  See :func:`family_steps`.

Kernel (docs/numerics.md, Lemma F1).  ``F(u, v) = (1+u)^λ (1+v)^{1−λ}`` is expanded to total degree ``M``
around ``(0, 0)``: ``T_M = Σ_{i+j≤M} C(λ,i) C(1−λ,j) u^i v^j``, whose expectation needs the joint moments
``E[u^i v^j]``; these come *exactly* (in balls) from the per-report cumulants by the bivariate
moment–cumulant recursion (cumulants of a sum of ``n`` i.i.d. steps are ``n`` times the step's), so no
sum over counts is done at all.  The error ``E[F − T_M]`` is bounded rigorously on the box
``B = {|u| ≤ δ, |v| ≤ δ}`` by the Lagrange remainder (``E[u^{M+1}]``, ``E[v^{M+1}]`` with ``M+1`` even, and
Young's inequality) and off the box by ``sup|F| + sup|T_M|`` times Bernstein's bound on ``P(B^c)`` (Chernoff's bound at
``δ = 1/2`` where Bernstein's would need a wider box).  The
parameters ``M`` and ``δ`` are chosen (with floats: a choice, not a certified number) to minimise the
certified bound.  The result is the ball ``E[T_M] ± bound``: a *method-limited* enclosure whose relative
width on ``E_λ − 1`` shrinks like ``(λ²σ²/n)^{(M−1)/2}`` (σ² the step variance).

Complexity: O(D⁴) ball operations with ``D = M + 1 ≤ 48`` for *third* (two-dimensional moments), O(D²) for
*same*/*neighbour* (one of ``u, v`` is identically 0); independent of ``n``; memory O(D²).  It applies when
a box with ``δ ≤ 1/2`` has negligible Bernstein mass (roughly ``n ≳ 40·(σ² + b)·(prec + 16)`` with ``b`` the
largest step): smaller ``n`` go to the nested-window route
:func:`exact.accounting.renyi.moment_krr_family_nested` (O(W^d)), which also runs when the Taylor enclosure
is not tight and the nested route is affordable; both are rigorous, so their intersection is returned.

The entry points over the families (:func:`moment_krr_family`, :func:`renyi_krr_family`) and the dispatcher
over every dataset (:func:`renyi`: binary RR's ``c=INT`` and ``worst`` come from :mod:`exact.accounting.renyi`)
sit here, above ``renyi.py``, so that the two modules import one way (``renyi_families → renyi``).

>>> from blanket.exact.mechanisms.finite import KRR
>>> from blanket.exact.numbers.arith import precision
>>> with precision(128):
...     m = moment_family(KRR(10, epsilon0=1), 10**9, "third", order=8)
>>> bool(0 < m - 1 < arb("1e-7")) and m.rad() < arb("1e-25")
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blanket.exact.accounting import renyi as xr
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput
from flint import arb, arb_series, ctx, fmpq

#: one report's step ``(probability, ξ, η)`` (exact rationals or balls)
Step = tuple

#: largest total degree of the Taylor expansion (two-dimensional: O(D^4) ball operations)
MAX_DEGREE_2D = 48
#: largest degree in the one-dimensional case (same / neighbour: O(D^2))
MAX_DEGREE_1D = 160
#: the Taylor box half-width must stay at or below this (the expansion of (1+u)^λ needs |u| < 1)
MAX_DELTA = fmpq(1, 2)
#: the nested-window route is run as well (and intersected) when its estimated cost, in ball terms, is below this
NESTED_BUDGET = 4 * 10**6


# ============================================================ the families as i.i.d. steps
def family_steps(mech: KRR, family: str) -> list:
    """The per-report steps ``(probability, ξ, η)`` of a k-RR dataset family (cells with probability 0 dropped).

    ``ξ = μ_x(y)/μ_z(y) − 1``, ``η = μ_{x'}(y)/μ_z(y) − 1`` for the report ``y ~ μ_z`` of one of the others
    (``z = x`` for *same*, ``z = x'`` for *neighbour*, a third value for *third*); the differing user is
    counted as one more report of ``μ_z`` (module docstring).  Exact for an exact ``e^{ε0}``.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> family_steps(KRR(4, exp_epsilon0=3), "third")
    [(1/6, 2, 0), (1/6, 0, 2), (1/2, -2/3, -2/3), (1/6, 0, 0)]
    """
    guards.require_instance(mech, KRR, "mech", "must be a k-ary randomized response (KRR)")
    keep, flip, e = mech.keep(), mech.flip(), mech.exp_epsilon0()
    k = mech.k
    up, down, zero = e - 1, 1 / e - 1, fmpq(0)
    steps: list[tuple[Enclosure, Enclosure, Enclosure]]
    if family == "same":
        steps = [(keep, zero, down), (flip, zero, up), ((k - 2) * flip, zero, zero)]
    elif family == "neighbour":
        steps = [(flip, up, zero), (keep, down, zero), ((k - 2) * flip, zero, zero)]
    elif family == "third":
        if k < 3:
            raise InvalidArgument("family", family, "needs k >= 3 (a value other than the two differing ones)")
        steps = [(flip, up, zero), (flip, zero, up), (keep, down, down), ((k - 3) * flip, zero, zero)]
    else:
        raise InvalidArgument("family", family, f"must be one of {', '.join(xr.FAMILIES)}")
    return [s for s in steps if not arith.is_zero(s[0])]


# ============================================================ exact joint moments of (u, v)
def _zero(x) -> bool:
    return arith.is_zero(x)


def _comb_table(d: int) -> list:
    return [[math.comb(i, a) for a in range(i + 1)] for i in range(d + 1)]


def joint_moments(steps: Sequence[Step], n: int, degree: int) -> list:
    """``m[i][j] = E[u^i v^j]`` for ``i + j ≤ degree``: ``(u, v)`` the mean of ``n`` i.i.d. steps (exact or balls).

    Per-step moments → per-step cumulants (bivariate moment–cumulant recursion, exponential generating
    functions: ``m_{i+1,j} = Σ_{a≤i, b≤j} C(i,a) C(j,b) κ_{a+1,b} m_{i−a,j−b}``), scaled to the mean of
    ``n`` steps (``κ_{ij} ↦ n^{1−i−j} κ_{ij}``; the first cumulants are exactly 0), and back to moments by
    the same recursion.  Cost O(degree⁴) operations (O(degree²) when ``ξ ≡ 0`` or ``η ≡ 0``), independent of n.

    >>> joint_moments([(fmpq(1, 2), fmpq(1), fmpq(0)), (fmpq(1, 2), fmpq(-1), fmpq(0))], 3, 2)[2][0]  # Var(mean)
    1/3
    """
    d = int(degree)
    C = _comb_table(d)
    one = fmpq(1)

    def pw(x, i):
        return one if i == 0 else x**i

    m1 = [[fmpq(0)] * (d + 1 - i) for i in range(d + 1)]
    for i in range(d + 1):
        for j in range(d + 1 - i):
            acc = fmpq(0)
            for p, xi, eta in steps:
                if (i and _zero(xi)) or (j and _zero(eta)):
                    continue
                acc = arith.add(acc, arith.mul(p, arith.mul(pw(xi, i), pw(eta, j))))
            m1[i][j] = acc
    m1[0][0] = one
    if d >= 1:  # mean zero, exactly (Σ_y μ_z(y) s(y) = 1)
        m1[1][0] = fmpq(0)
        m1[0][1] = fmpq(0)

    def cum_to_mom(kap):
        """moments from cumulants (kap[0][0] unused)."""
        m = [[fmpq(0)] * (d + 1 - i) for i in range(d + 1)]
        m[0][0] = one
        for j in range(d):  # m[0][j+1]
            acc = fmpq(0)
            for b in range(j + 1):
                kk = kap[0][b + 1]
                if _zero(kk) or _zero(m[0][j - b]):
                    continue
                acc = arith.add(acc, arith.mul(C[j][b], arith.mul(kk, m[0][j - b])))
            m[0][j + 1] = acc
        for i in range(d):
            for j in range(d - i):  # m[i+1][j]
                acc = fmpq(0)
                for a in range(i + 1):
                    for b in range(j + 1):
                        kk = kap[a + 1][b]
                        if _zero(kk):
                            continue
                        mm = m[i - a][j - b]
                        if _zero(mm):
                            continue
                        acc = arith.add(acc, arith.mul(C[i][a] * C[j][b], arith.mul(kk, mm)))
                m[i + 1][j] = acc
        return m

    # per-step cumulants from per-step moments: invert the recursion (the a=i, b=j term is κ_{i+1,j}·m_{00})
    k1 = [[fmpq(0)] * (d + 1 - i) for i in range(d + 1)]
    for j in range(d):
        acc = m1[0][j + 1]
        for b in range(j):
            kk = k1[0][b + 1]
            if _zero(kk) or _zero(m1[0][j - b]):
                continue
            acc = arith.add(acc, arith.mul(-C[j][b], arith.mul(kk, m1[0][j - b])))
        k1[0][j + 1] = acc
    for i in range(d):
        for j in range(d - i):
            acc = m1[i + 1][j]
            for a in range(i + 1):
                for b in range(j + 1):
                    if a == i and b == j:
                        continue
                    kk = k1[a + 1][b]
                    if _zero(kk) or _zero(m1[i - a][j - b]):
                        continue
                    acc = arith.add(acc, arith.mul(-C[i][a] * C[j][b], arith.mul(kk, m1[i - a][j - b])))
            k1[i + 1][j] = acc
    if d >= 1:
        k1[1][0] = fmpq(0)
        k1[0][1] = fmpq(0)
    nq = fmpq(int(n))
    kap = [[fmpq(0)] * (d + 1 - i) for i in range(d + 1)]
    for i in range(d + 1):
        for j in range(d + 1 - i):
            if i + j >= 2 and not _zero(k1[i][j]):
                kap[i][j] = arith.mul(k1[i][j], nq ** (1 - i - j))
    return cum_to_mom(kap)


def joint_moments_series(steps: Sequence[Step], n: int, degree: int) -> list:
    """``m[i][j] ⊇ E[u^i v^j]`` for ``i + j ≤ degree`` (balls), as :func:`joint_moments`, by C-level series.

    The bivariate exponential generating functions are truncated to total degree ``D`` and encoded in one
    variable (``s^i t^j ↦ z^{(i+j)(D+1)+j}``: products of terms of total degree ≤ D never alias, and a
    product of total degree > D lands at or beyond ``z^{(D+1)²}``, which the truncation drops), so the
    step's cumulant series is one ``arb_series.log`` and the moments of the *standardised* mean
    ``(√n·u, √n·v)`` one ``arb_series.exp`` (cumulants ``κ_{ij} n^{1−(i+j)/2}``: every coefficient O(1)).
    Cost O(D²) Python operations plus two series operations of length ``(D+1)²``; when ``ξ ≡ 0`` or
    ``η ≡ 0`` the series has one variable (length ``D+1``).

    >>> st = [(fmpq(1, 2), fmpq(1), fmpq(0)), (fmpq(1, 2), fmpq(-1), fmpq(0))]
    >>> bool(joint_moments_series(st, 3, 4)[2][0].overlaps(arb(1) / 3))
    True
    """
    d = int(degree)
    u_zero = all(_zero(xi) for _, xi, _ in steps)
    v_zero = all(_zero(eta) for _, _, eta in steps)
    stride = 1 if (u_zero or v_zero) else d + 1
    length = (d + 1) * stride

    def idx(i, j):
        return (i + j) * stride + (j if stride > 1 else 0)

    fact = [math.factorial(i) for i in range(d + 1)]
    coef = [arb(0)] * length
    for a in range(d + 1):
        for j in range(a + 1):
            i = a - j
            if (u_zero and i) or (v_zero and j) or (stride == 1 and not (u_zero or v_zero)):
                continue
            acc = arb(0)
            for p, xi, eta in steps:
                if (i and _zero(xi)) or (j and _zero(eta)):
                    continue
                acc += arith.ball(p) * (arith.ball(xi) ** i if i else 1) * (arith.ball(eta) ** j if j else 1)
            coef[idx(i, j)] = acc / (fact[i] * fact[j])
    coef[0] = arb(1)
    old_cap = ctx.cap
    try:
        ctx.cap = length
        k1 = arb_series(coef, prec=length).log().coeffs()
        k1 = list(k1) + [arb(0)] * (length - len(k1))
        nb = arb(int(n))
        rs = nb.rsqrt()
        scaled = [arb(0)] * length
        for a in range(2, d + 1):
            fa = nb * rs**a  # n^{1 − a/2}
            for j in range(a + 1):
                i = a - j
                if (u_zero and i) or (v_zero and j):
                    continue
                scaled[idx(i, j)] = k1[idx(i, j)] * fa
        mom = list(arb_series(scaled, prec=length).exp().coeffs())
        mom = mom + [arb(0)] * (length - len(mom))
    finally:
        ctx.cap = old_cap
    out = [[arb(0)] * (d + 1 - i) for i in range(d + 1)]
    for a in range(d + 1):
        back = rs**a
        for j in range(a + 1):
            i = a - j
            if (u_zero and i) or (v_zero and j):
                continue
            out[i][j] = mom[idx(i, j)] * (fact[i] * fact[j]) * back
    out[0][0] = arb(1)
    return out


# ============================================================ the certified Taylor enclosure
def _binom_gen(lam: fmpq, d: int) -> list:
    """``C(λ, i)`` for ``i = 0..d`` (generalised binomial coefficients, exact)."""
    out = [fmpq(1)]
    for i in range(1, d + 1):
        out.append(out[-1] * (lam - (i - 1)) / i)
    return out


def _pw(x: fmpq, e: fmpq):
    """``x^e`` for ``x > 0``: exact for an integer exponent, else a ball."""
    if e.q == 1:
        return x ** int(e.p)
    return (arb(x).log() * arb(e)).exp()


def _endmax(delta: fmpq, e: fmpq):
    """``max_{|t| ≤ δ} (1 + t)^e`` (monotone in t: the larger end value)."""
    if e == 0:
        return fmpq(1)
    return _pw(1 + delta, e) if e > 0 else _pw(1 - delta, e)


def _up(x) -> arb:
    """An upper bound of a nonnegative enclosure as a ball with radius 0."""
    return arb(arith.ball(x).upper())


@dataclass(frozen=True)
class TaylorMoment:
    """A certified Rényi moment from the Taylor kernel: ``value`` (ball) = ``E[T_M] ± error``.

    ``degree``: total degree ``M``; ``delta``: the box half-width; ``box``/``tail``: the two parts of the
    certified error bound (Lagrange remainder on the box, Bernstein mass off it).
    """

    value: arb
    error: arb
    degree: int
    delta: fmpq
    box: arb
    tail: arb


def _step_stats(steps):
    """``(σ_ξ², σ_η², b_ξ, b_η, r_max, s'_max)`` of the steps (balls / exact)."""
    var_u = fmpq(0)
    var_v = fmpq(0)
    for p, xi, eta in steps:
        var_u = arith.add(var_u, arith.mul(p, arith.mul(xi, xi)))
        var_v = arith.add(var_v, arith.mul(p, arith.mul(eta, eta)))
    bu = arith.maximum([abs(arith.ball(xi)).upper() for _, xi, _ in steps])
    bv = arith.maximum([abs(arith.ball(eta)).upper() for _, _, eta in steps])
    rmax = arith.maximum([_up((1 + arith.ball(xi)) / (1 + arith.ball(eta))) for _, xi, eta in steps])
    spmax = arith.maximum([_up(1 + arith.ball(eta)) for _, _, eta in steps])
    return var_u, var_v, arb(bu), arb(bv), rmax, spmax


def _bernstein(n: int, var, b, delta: fmpq):
    """``P(|mean of n steps| > δ) ≤ 2·exp(−n δ² / (2(σ² + bδ/3)))`` (steps of mean 0, |step| ≤ b); 0 if σ² = 0."""
    if arith.is_zero(var):
        return arb(0)
    d = arb(delta)
    return 2 * (-(arb(n) * d * d) / (2 * (arith.ball(var) + b * d / 3))).exp()


def _choose_delta(n: int, var, b, log_target: float) -> float:
    """The smallest δ with Bernstein exponent ≥ ``log_target`` (float choice; the bound is certified later)."""
    s2 = float(arith.ball(var).upper().mid())
    bb = float(arith.ball(b).upper().mid())
    L = max(log_target, 1.0)
    # n δ² ≥ 2L(σ² + bδ/3)  ⇔  n δ² − (2bL/3) δ − 2Lσ² ≥ 0
    a1 = 2 * bb * L / 3
    return (a1 + math.sqrt(a1 * a1 + 8 * n * s2 * L)) / (2 * n) * 1.0001


def _chernoff_theta(vals, delta: float) -> float:
    """θ ≥ 0 maximising ``θδ − log E[e^{θX}]`` (float choice): bisection on ``E_θ[X] = δ`` (tilted mean, increasing)."""

    def tilted_mean(t):
        top = max(t * x for _, x in vals)
        w = [(p * math.exp(t * x - top), x) for p, x in vals]
        z = sum(a for a, _ in w)
        return sum(a * x for a, x in w) / z

    lo, hi = 0.0, 1.0
    while tilted_mean(hi) < delta and hi < 1e6:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        if tilted_mean(mid) < delta:
            lo = mid
        else:
            hi = mid
    return lo


def chernoff_tail(steps: Sequence[Step], n: int, delta: fmpq, axis: int) -> arb:
    """Certified ``P(|mean of n steps along axis| > δ)`` by Chernoff's bound, both sides.

    ``P(u > δ) ≤ (E[e^{θξ}] e^{−θδ})^n`` for every ``θ ≥ 0`` (Markov's inequality on ``e^{θnu}``), likewise
    for ``−ξ``; θ is chosen in floats near the optimum and the bound evaluated in balls.  A side whose
    largest step is ``≤ δ`` has probability 0.  Cost O(cells) ball operations plus a float bisection.
    """
    total = arb(0)
    for sgn in (1, -1):
        vals = [(p, sgn * (xi if axis == 0 else eta)) for p, xi, eta in steps]
        xmax = arith.maximum([arith.ball(x).upper() for _, x in vals])
        if xmax <= arb(delta):
            continue  # the mean never exceeds δ on this side
        fv = [(float(arith.ball(p).mid()), float(arith.ball(x).mid())) for p, x in vals]
        theta = fmpq(math.floor(_chernoff_theta(fv, int(delta.p) / int(delta.q)) * 2**30), 2**30)
        phi = arb(0)
        for p, x in vals:
            phi += arith.ball(p) * (arith.ball(x) * arb(theta)).exp()
        total += ((phi.log() - arb(theta) * arb(delta)) * int(n)).exp()
    return arb(total.upper())


def _log2_of(x) -> float:
    """log2 of the upper end of a nonnegative enclosure (float, for choices only); −inf for 0."""
    b = arith.ball(x).upper()
    if b <= 0:
        return -math.inf
    return float(b.log().mid()) / math.log(2)


def taylor_moment(
    steps: Sequence[Step], n: int, order: NumberInput, *, degree: int | None = None, target: NumberInput | None = None
) -> TaylorMoment | None:
    """Certified ``E[(1+u)^λ (1+v)^{1−λ}]`` for the mean ``(u, v)`` of ``n`` i.i.d. steps (module docstring).

    ``target``: the error bound aimed at (default ``2^-(prec+16)``); ``degree``: the largest total degree
    tried (default :data:`MAX_DEGREE_2D` / :data:`MAX_DEGREE_1D`, grown from 16 while the bound is above
    target).  The box half-width δ is chosen by Bernstein's bound when that gives ``δ ≤ 1/2``, else
    ``δ = 1/2`` with Chernoff's bound (:func:`chernoff_tail`).  Returns ``None`` when no degree gives a
    finite bound with off-box part ≤ 1 (``n`` too small).
    Cost O(D⁴) (O(D²) one-dimensional), independent of n.
    """
    lam = xr.parse_order(order)
    n = arith.integer_in(n, "n", lo=1)
    one_d = all(_zero(xi) for _, xi, _ in steps) or all(_zero(eta) for _, _, eta in steps)
    dmax = int(degree) if degree is not None else (MAX_DEGREE_1D if one_d else MAX_DEGREE_2D)
    tgt = arb(2) ** (-(ctx.prec + 16)) if target is None else arith.ball(target)
    log2_tgt = _log2_of(tgt)
    var_u, var_v, bu, bv, rmax, spmax = _step_stats(steps)
    sup_f = _pw_ball(rmax, lam) * spmax
    # the box δ = 1/2 with Chernoff's bound: the fallback where Bernstein's bound needs δ > 1/2 (large ε0)
    wide = chernoff_tail(steps, n, MAX_DELTA, 0) + chernoff_tail(steps, n, MAX_DELTA, 1)
    cl = _binom_gen(lam, dmax + 1)
    cm = _binom_gen(1 - lam, dmax + 1)
    best: TaylorMoment | None = None
    d = min(16, dmax)
    while True:
        mom = joint_moments_series(steps, n, d)
        for M in range(1, d, 2):  # M + 1 even: E[u^{M+1}] ≥ 0 bounds E|u|^{M+1}
            cand = _bound_for(mom, M, n, lam, cl, cm, var_u, var_v, bu, bv, sup_f, log2_tgt, wide)
            if cand is not None and (best is None or cand.error < best.error):
                best = cand
        if best is not None and (best.error <= tgt or d >= dmax):
            return best
        if d >= dmax:
            return best
        if best is None and d >= 16:
            return None
        d = min(2 * d, dmax)


def _pw_ball(x, lam: fmpq) -> arb:
    x = arith.ball(x)
    if lam.q == 1:
        return x ** int(lam.p)
    return (x.log() * arb(lam)).exp()


def _bound_for(mom, M, n, lam, cl, cm, var_u, var_v, bu, bv, sup_f, log2_tgt, wide) -> TaylorMoment | None:
    """The certified enclosure for degree M (δ chosen so that the off-box part is about the target; where
    Bernstein's bound would need δ > 1/2, δ = 1/2 with the Chernoff mass ``wide``)."""
    # sup |T_M| on the support (|u| ≤ b_u, |v| ≤ b_v)
    ga = [abs(arb(c)) for c in cl[: M + 1]]
    gb = [abs(arb(c)) for c in cm[: M + 1]]
    sup_t = arb(0)
    for i in range(M + 1):
        if ga[i] == 0:
            continue
        bi = bu**i if i else arb(1)
        for j in range(M + 1 - i):
            if gb[j] == 0:
                continue
            sup_t += ga[i] * gb[j] * bi * (bv**j if j else arb(1))
    off_factor = sup_f + sup_t
    need = (_log2_of(off_factor) + 2 - log2_tgt) * math.log(2)
    dl = max(
        _choose_delta(n, var_u, bu, need) if not arith.is_zero(var_u) else 0.0,
        _choose_delta(n, var_v, bv, need) if not arith.is_zero(var_v) else 0.0,
    )
    if dl <= float(MAX_DELTA.p) / float(MAX_DELTA.q):
        delta = fmpq(max(1, math.ceil(dl * 2**40)), 2**40)
        tail = off_factor * (_bernstein(n, var_u, bu, delta) + _bernstein(n, var_v, bv, delta))
    else:
        delta = MAX_DELTA
        tail = off_factor * wide
        if not tail.is_finite() or tail > 1:
            return None
    # Lagrange remainder of total degree M+1 on the box: Σ_{i+j=M+1} A_i B_j |u|^i |v|^j
    # with A_i = |C(λ,i)| max(1±δ)^{λ−i}, B_j = |C(1−λ,j)| max(1±δ)^{1−λ−j};  |u|^i|v|^j ≤ (i u^{M+1} + j v^{M+1})/(M+1)
    K = M + 1
    mu = _up(mom[K][0])
    mv = _up(mom[0][K])
    box = arb(0)
    for i in range(K + 1):
        j = K - i
        if cl[i] == 0 or cm[j] == 0:
            continue
        a_i = abs(arb(cl[i])) * arith.ball(_endmax(delta, lam - i))
        b_j = abs(arb(cm[j])) * arith.ball(_endmax(delta, 1 - lam - j))
        box += a_i * b_j * (i * mu + j * mv) / K
    # E[T_M]
    t = fmpq(0)
    for i in range(M + 1):
        if cl[i] == 0:
            continue
        for j in range(M + 1 - i):
            if cm[j] == 0 or _zero(mom[i][j]):
                continue
            t = arith.add(t, arith.mul(cl[i] * cm[j], mom[i][j]))
    err = _up(box + tail)
    if not err.is_finite():
        return None
    value = arith.ball(t) + err * arb(0, 1)
    return TaylorMoment(value, err, M, delta, _up(box), _up(tail))


# ============================================================ the dispatcher
def _nested_cost(mech, n: int, family: str, lam) -> float:
    """Estimated ball terms of the nested-window route: ``W^d``, ``W ≈ 2·√(2·n·p·log(1/tol))``."""
    bits = ctx.prec + 16 + 2 * float(arb(lam).mid()) * float(arith.ball(mech.exp_epsilon0()).log().mid())
    w = 2 * math.sqrt(2 * n * 0.25 * bits * math.log(2)) + 2
    dims = 1 if mech.k == 2 else 2
    if family == "third" and mech.k >= 4:
        dims = 3
    return w**dims


def _tight(v, rel_bits: int = 40) -> bool:
    b = arith.ball(v)
    if not b.is_finite():
        return False
    excess = abs(b - 1)
    return b.rad() <= excess.lower() * arb(2) ** -rel_bits


def moment_family(mech: KRR, n: int, family: str, *, order: NumberInput, tol: NumberInput | None = None) -> Enclosure:
    """Certified Rényi moment of shuffled k-RR on a dataset family, one direction (the dispatcher).

    Same quantity as :func:`exact.accounting.renyi.moment_krr_family_nested` (the reference route).
    Exact (``fmpq``) for an exact mechanism, integer λ and ``n ≤ EXACT_MAX_N`` (nested route); otherwise
    the Taylor kernel :func:`taylor_moment` (O(D⁴), independent of n) when it applies, plus the nested
    route when the Taylor enclosure's relative width on ``E − 1`` is above 2^-40 and the nested route costs
    at most :data:`NESTED_BUDGET` terms (the two enclosures are intersected); the nested route alone when
    the Taylor kernel does not apply or its enclosure is wider than ``E − 1`` (small n).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> moment_family(KRR(3, exp_epsilon0=2), 4, "third", order=2)
    1233347/1098240
    """
    guards.require_instance(mech, KRR, "mech", "must be a k-ary randomized response (KRR)")
    n = arith.integer_in(n, "n", lo=1)
    lam = xr.parse_order(order)
    if family not in xr.FAMILIES:
        raise InvalidArgument("family", family, f"must be one of {', '.join(xr.FAMILIES)}")
    steps = family_steps(mech, family)
    e0 = mech.exp_epsilon0()
    exact_mode = isinstance(e0, fmpq) and lam.q == 1 and n <= xr.EXACT_MAX_N
    if exact_mode:
        return xr.moment_krr_family_nested(mech, n, family, order=lam, tol=tol)
    tm = taylor_moment(steps, n, lam)
    if tm is not None and _tight(tm.value):
        return tm.value
    # a Taylor enclosure wider than E − 1 itself says nothing: then the nested route runs whatever its cost
    useful = tm is not None and _tight(tm.value, rel_bits=1)
    if not useful or _nested_cost(mech, n, family, lam) <= NESTED_BUDGET:
        nested = arith.ball(xr.moment_krr_family_nested(mech, n, family, order=lam, tol=tol))
        if tm is None:
            return nested
        return nested.intersection(tm.value)
    assert tm is not None  # useful
    return tm.value


def renyi_family(
    mech: KRR, n: int, family: str, *, order: NumberInput, tol: NumberInput | None = None
) -> xr.RenyiValue:
    """``D_λ`` of shuffled k-RR on a dataset family, max over both directions (see
    :func:`exact.accounting.renyi.renyi_krr_family`), with :func:`moment_family` for each moment.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> renyi_family(KRR(3, exp_epsilon0=2), 4, "third", order=2).moment
    1233347/1098240
    """
    lam = xr.parse_order(order)
    if family not in xr.FAMILIES:
        raise InvalidArgument("family", family, f"must be one of {', '.join(xr.FAMILIES)}")
    if family in ("same", "neighbour"):
        ms = [
            moment_family(mech, n, "same", order=lam, tol=tol),
            moment_family(mech, n, "neighbour", order=lam, tol=tol),
        ]
    else:
        ms = [moment_family(mech, n, "third", order=lam, tol=tol)]
    m = arith.maximum(ms)
    value: Enclosure
    if isinstance(m, fmpq) and m == 1:
        value = fmpq(0)
    else:
        value = arith.ball(m).log() / (arb(lam) - 1)
    return xr.RenyiValue(value, m, lam, family=family)


# ============================================================ the k-RR families (fastest route), and the dispatcher over datasets
def moment_krr_family(
    mech: KRR, n: int, family: str, *, order: NumberInput, x_in_D: str = "x", tol: NumberInput | None = None
) -> Enclosure:
    """Rényi moment of shuffled k-RR on a dataset family, one direction: the fast route.

    Delegates to :func:`moment_family` (exact for tiny n, the Taylor
    kernel — cost independent of n — at scale, the nested route of :func:`exact.accounting.renyi.moment_krr_family_nested`
    in between); same arguments and meaning as :func:`exact.accounting.renyi.moment_krr_family_nested`.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> moment_krr_family(KRR(3, exp_epsilon0=2), 4, "third", order=2)
    1233347/1098240
    """

    return moment_family(mech, n, family, order=order, tol=tol)


def renyi_krr_family(
    mech: KRR, n: int, family: str, *, order: NumberInput, tol: NumberInput | None = None
) -> xr.RenyiValue:
    """``D_λ`` of shuffled k-RR on a dataset family, max over both directions of the neighbouring pair.

    Swapping the roles of ``D`` and ``D'`` maps the *same* family to the
    *neighbour* family (and *third* to itself with ``x ↔ x'``), so the max
    over both directions is the max of the *same* and *neighbour* moments
    (for *same*/*neighbour*) and the *third* moment (symmetric).

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> r = renyi_krr_family(KRR(3, exp_epsilon0=2), 4, "third", order=2)
    >>> r.moment
    1233347/1098240
    """

    return renyi_family(mech, n, family, order=order, tol=tol)


# ============================================================ dispatcher
def renyi(
    mech: KRR,
    n: IntegerInput,
    *,
    order: NumberInput,
    dataset: str = "worst",
    progress: bool | None = None,
    workers: int | None = None,
    scheduler: Any = None,
) -> xr.RenyiValue:
    """``D_λ`` of the shuffled mechanism on ``dataset`` ∈ worst | c=INT | same | neighbour | third.

    ``worst`` and ``c=INT`` need binary RR (for k-RR the worst case over all
    datasets is not computed here: use the families).
    """
    mech = guards.require_instance(
        mech, KRR, "mech", "must be a k-ary randomized response (exact.mechanisms.finite.KRR / BinaryRR)"
    )
    n = arith.integer_in(n, "n", lo=1)  # as every route reads it (int(n) on a string such as "1e3" raised ValueError)
    if not isinstance(dataset, str):
        raise InvalidArgument("dataset", dataset, "must be worst, c=INT, same, neighbour or third")
    if dataset == "worst":
        if mech.k != 2:
            raise InvalidArgument(
                "dataset", dataset, "is only available for binary RR (k = 2); for k > 2 use same, neighbour or third"
            )
        return xr.renyi_binary_worst(mech, n, order=order, progress=progress, workers=workers, scheduler=scheduler)
    if dataset.startswith("c="):
        if mech.k != 2:
            raise InvalidArgument("dataset", dataset, "(c=INT) is only available for binary RR (k = 2)")
        c = arith.integer_in(dataset[2:], "dataset c", lo=0, hi=n - 1)
        return xr.renyi_binary(mech, n, c, order=order)
    if dataset in xr.FAMILIES:
        return renyi_krr_family(mech, n, dataset, order=order)
    raise InvalidArgument("dataset", dataset, "must be worst, c=INT, same, neighbour or third")
