"""Rényi moments of shuffled binary RR in float64 with proved bounds: routes (b) and (b') of
:mod:`exact.accounting.renyi` (docs/numerics.md, Lemmas R1–R7).

* :func:`float_moments_binary` / :func:`float_moments_binary_block` — the moments ``E_λ`` of one dataset or of a
  block of consecutive datasets, each with a certified relative error;
* :func:`float_excess_block` / :func:`float_excess_binary_block` — the excess ``E_λ − 1`` with an absolute error
  bound (integer λ), what the worst-case scan prunes on;
* :func:`float_bounds`, :func:`float_tol` — the window and its cut-off.

Used by the worst-case scan of :mod:`exact.accounting.renyi`; every value here is a certified enclosure.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from blanket.exact.accounting.renyi_core import (
    binary_params,
    check_krr,
    integer_order,
    order_power,
    parse_order,
    window_error,
)
from blanket.exact.laws import binomial
from blanket.exact.laws.binomial import (
    FloatRouteUnavailable,
    U,
    bernoulli_rel,
    bernoulli_rows,
    float_ball,
    float_param,
    float_upper,
    float_window,
    gamma,
    pairwise_depth,
    pairwise_sum,
    to_ball,
)
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput, NumberOrBall
from flint import arb, fmpq

# ============================================================ route (b): float64 moments with proved bounds
# docs/numerics.md, section "Rényi moments of shuffled binary RR", Lemmas R1–R4.

#: largest ε0·λ for which the float route is tried (powers r^λ stay far inside binary64's range)
FLOAT_MAX_EPS_LAMBDA = 280
#: the float route's window cut-off is 2^-(FLOAT_TOL_BITS + ⌈λ log₂ e^{ε0}⌉) (window error ≪ rounding error)
FLOAT_TOL_BITS = 56
#: datasets per block of the worst-case sweep at most (one shared convolution per block); see :func:`sweep_block`
SWEEP_BLOCK = 128
#: smallest window cut-off of the float route: λ·log₂ e^{ε0} ≤ FLOAT_MAX_EPS_LAMBDA·log₂ e ≈ 404 plus
#: FLOAT_TOL_BITS stays above it; window values are still checked ≥ 2^-500 (Lemma 2), and every
#: product and term is range-checked (Lemma R2), so the proof does not depend on this number
FLOAT_MIN_TOL = fmpq(1, 2**470)
#: candidate datasets the worst case recomputes in balls after the pruning (the rest keep their scan bounds)
RECOMPUTE_MAX = 512
_TINY = 2.0**-1000


def _pow_int(r, k: int):
    """``(r^k, k−1)``: the element-wise power by binary powering, and the bound ``k−1`` on the rounding
    factors it multiplies in (any product tree with ``k`` leaves, unfolded, has ``k−1``
    multiplications; Lemma R2).  O(log k) numpy passes."""

    return np.asarray(arith.repeated_product(r, k), dtype=np.float64), k - 1


def float_tol(e0: NumberOrBall, lam: NumberInput) -> fmpq:
    """The float route's window cut-off ``2^-(FLOAT_TOL_BITS + ⌈λ·log₂ e^{ε0}⌉)`` (exact): the window error
    ``≈ e^{ε0 λ}·tol`` stays below ``2^-FLOAT_TOL_BITS``, far below the rounding error; a smaller cut-off is
    always sound, only slower."""
    bits = FLOAT_TOL_BITS + int(
        math.ceil(float((arith.ball(lam) * arith.ball(e0).log() / arb(2).log()).upper().mid()) + 1e-9)
    )
    return fmpq(1, 2 ** max(bits, FLOAT_TOL_BITS))


def _float_checks(mech: object, lam: NumberInput) -> tuple[Enclosure, Enclosure, fmpq, int, Enclosure]:
    keep, flip = binary_params(mech)
    lam = parse_order(lam)
    k_int = integer_order(lam)
    if k_int is None:
        raise FloatRouteUnavailable("non-integer order")
    e0 = check_krr(mech).exp_epsilon0()
    if float(arith.ball(e0).log().upper().mid()) * k_int > FLOAT_MAX_EPS_LAMBDA:
        raise FloatRouteUnavailable("epsilon0*lambda too large for binary64 powers")
    return keep, flip, lam, k_int, e0


def float_bounds(m: int, q: NumberOrBall, tol: NumberInput) -> tuple[int, int, arb]:
    """``(lo, hi, tail)``: a window of Bin(m, q) with certified left-out mass ``tail < tol`` whose edge
    values are not far below ``tol`` (at least ``tol·2^-24``, so deep cut-offs keep every window value
    above the float route's 2^-500).  O(log m) arb pmf calls.

    Starts from :func:`exact.laws.binomial.window_bounds` (whose Gaussian estimate overshoots the
    light binomial tails) and moves each edge inward by bisection to the outermost index whose pmf
    is ≥ ``tol·2^-24`` (the pmf is unimodal).  The left-out mass beyond the new edge is bounded as in
    :func:`~exact.laws.binomial.window_bounds` (geometric, decreasing pmf ratios); when that bound is
    not below ``tol/2`` per side the old edge is kept.

    >>> lo, hi, t = float_bounds(10**4, fmpq(1, 3), fmpq(1, 2**400))
    >>> 0 < lo < hi < 10**4 and t < arb(2) ** -400
    True
    """
    q = arith.ball(q)
    tol_q = arith.exact(tol, "tol")  # exact: the cut-off is read exactly (a ball is refused, as it was)
    lo, hi, T = binomial.window_bounds(m, q, tol_q)
    tol_b = arb(tol_q)
    floor_v = tol_b * arb(2) ** -24
    mode = max(lo, min(hi, int(float((arb(m + 1) * q).mid()))))
    rho = q / (1 - q)

    def big(k):
        return bool(binomial.pmf(m, q, k) >= floor_v)

    def below(k):  # certified mass of the indices < k: ratio pmf(i−1)/pmf(i) at i = k − 1, increasing in i
        if k <= 0:
            return arb(0)
        s_ = fmpq(k - 1, m - k + 2) / rho
        return binomial.pmf(m, q, k - 1) / (1 - s_) if s_ < 1 else arb(1)

    def above(k):  # certified mass of the indices > k: ratio pmf(i+1)/pmf(i) at i = k + 1, decreasing in i
        if k >= m:
            return arb(0)
        r_ = rho * fmpq(m - k - 1, k + 2)
        return binomial.pmf(m, q, k + 1) / (1 - r_) if r_ < 1 else arb(1)

    def innermost_big(out, inn):  # not big(out), big(inn), pmf unimodal: the big index nearest to `out`
        while abs(inn - out) > 1:
            mid = (out + inn) // 2
            out, inn = (out, mid) if big(mid) else (mid, inn)
        return inn

    new_lo, new_hi = lo, hi
    if big(mode):
        if not big(lo):  # lowest index in [lo, mode] with pmf >= floor (pmf increasing there)
            b = innermost_big(lo, mode)
            new_lo = b if below(b) < tol_b / 2 else lo
        if not big(hi):
            a = innermost_big(hi, mode)
            new_hi = a if above(a) < tol_b / 2 else hi
    if (new_lo, new_hi) == (lo, hi):
        return lo, hi, T
    # recertify the whole left-out mass for the chosen edges
    t = below(new_lo) + above(new_hi)
    if not (t < tol_b):
        return lo, hi, T
    return new_lo, new_hi, arb(t.upper())


def _float_law(m: int, q, tol):
    """Float window of Bin(m, q) (:func:`exact.laws.binomial.float_window`) trimmed to the support:
    ``(values, offset, rel, tail)``."""

    if m == 0:
        return np.ones(1), 0, 0.0, arb(0)
    w = float_window(m, q, tol, min_tol=FLOAT_MIN_TOL, bounds=float_bounds(m, q, tol))
    vals = w.values
    if w.offset + len(vals) - 1 > m:
        vals = vals[: m - w.offset + 1]
    return vals, w.offset, w.rel, w.tail


def _drop_small(G, off: int, rel: float, thr: float):
    """Left-out mass instead of tiny values (Lemma R3): entries of the rows ``G`` below ``thr`` become 0 and
    whole edge columns that are 0 in every row are cut; ``extra[j]`` (arb) bounds the mass row ``j`` lost.

    The kept values stay under-estimates of the true law and the left-out mass is bounded, which is
    all the window error lemma (:func:`binary_window_error`) needs.  O(B·W).
    """

    small = G < thr
    if not small.any():
        return G, off, [arb(0)] * G.shape[0]
    lost = pairwise_sum(np.where(small, G, 0.0))
    r = float_upper((1 + float_ball(rel)) * (1 + arb(gamma(pairwise_depth(G.shape[1])))) - 1)
    extra = [arb(to_ball(v, r).upper()) for v in lost]
    G = np.where(small, 0.0, G)
    keep_cols = np.nonzero(G.max(axis=0) > 0)[0]
    if len(keep_cols) == 0:
        raise FloatRouteUnavailable("no outcome above the cut-off")
    i0, i1 = int(keep_cols[0]), int(keep_cols[-1]) + 1
    return G[:, i0:i1], off + i0, extra


def _float_moment_rows(
    G, off: int, rel_g: float, Ts: list, n: int, keep, flip, lam, k_int: int, e0, bounds: bool = False
):
    """Both moments of every row of ``G`` (under-estimated count laws of the others with common offset,
    relative error ``rel_g``, left-out mass ``Ts[j]``, arb or float upper bounds).

    Lemma R2 (terms ``Q·(P/Q)^λ``, ``P·(Q/P)^λ`` by binary powering), Lemma 4 (explicit pairwise sums),
    and the window error of :func:`binary_window_error`.  Returns ``[(E(x=1), E(x=0)), ...]`` as balls,
    or with ``bounds=True`` four float arrays ``(lo1, hi1, lo0, hi0)`` (Lemma R4: the same enclosure
    evaluated with every float operation rounded outward by one ulp).  O(B·W log λ).
    """

    B, W = G.shape
    exact_all = all(T == 0 for T in Ts)
    at_lo = exact_all or off == 0
    at_hi = exact_all or off + W - 1 == n - 1
    lo_k = 0 if at_lo else 1
    hi_k = W if at_hi else W - 1
    Gp = np.zeros((B, W + 2))
    Gp[:, 1 : W + 1] = G
    b0 = Gp[:, 1 + lo_k : 2 + hi_k]  # g(k)
    b1 = Gp[:, lo_k : hi_k + 1]  # g(k−1)
    kh, ek = float_param(keep)
    fh, ef = float_param(flip)
    e_c = max(ek, ef)
    P = b0 * fh + b1 * kh  # x = 1: the differing user reports 1 w.p. keep
    Q = b0 * kh + b1 * fh  # x = 0
    dead = Q == 0  # P = Q = 0 exactly where both counts were dropped (term 0)
    some_dead = bool(dead.any())
    if some_dead:
        if dead.all():
            raise FloatRouteUnavailable("no outcome left")
        P[dead] = 1.0
        Q[dead] = 1.0
    if min(P.min(), Q.min()) < _TINY:
        raise FloatRouteUnavailable("P or Q underflows")
    rel_PQ = (1 + float_ball(rel_g)) * (1 + arb(e_c)) * (1 + arb(gamma(2))) - 1
    r = P / Q
    rel_r = (1 + rel_PQ) * (1 + arb(gamma(1))) / (1 - rel_PQ) - 1
    pw, M = _pow_int(r, k_int)
    if not (pw.min() > _TINY and pw.max() < 2.0**1000):
        raise FloatRouteUnavailable("r^lambda out of range")
    rel_pw = (1 + rel_r) ** k_int * (1 + arb(gamma(M))) - 1 if M else (1 + rel_r) ** k_int - 1
    t1 = Q * pw
    t0 = np.divide(P, pw, out=P)
    if min(t1.min(), t0.min()) < _TINY:
        raise FloatRouteUnavailable("a moment term underflows")
    if some_dead:
        t1[dead] = 0.0
        t0[dead] = 0.0
    rel_t1 = (1 + rel_PQ) * (1 + rel_pw) * (1 + arb(gamma(1))) - 1
    rel_t0 = (1 + rel_PQ) * (1 + arb(gamma(1))) / (1 - rel_pw) - 1
    depth = arb(gamma(pairwise_depth(t1.shape[1])))
    s1 = pairwise_sum(t1)
    s0 = pairwise_sum(t0)
    r1a = (1 + rel_t1) * (1 + depth) - 1
    r0a = (1 + rel_t0) * (1 + depth) - 1
    r1, r0 = float_upper(r1a), float_upper(r0a)
    if not (r1 < 1e-6 and r0 < 1e-6):
        raise FloatRouteUnavailable("relative error bound too large")
    if bounds:
        return _outward_bounds(s1, s0, r1a, r0a, G, rel_g, Ts, at_lo, at_hi, exact_all, lam, e0)
    out = []
    for j in range(B):
        S1, S0 = to_ball(s1[j], r1), to_ball(s0[j], r0)
        if exact_all:
            out.append((S1, S0))
            continue
        edges = arb(0)
        if not at_lo:
            edges += to_ball(G[j, 0], rel_g)
        if not at_hi:
            edges += to_ball(G[j, -1], rel_g)
        up, down = window_error(Ts[j], edges, lam, e0)
        out.append(((S1 - down).union(S1 + up), (S0 - down).union(S0 + up)))
    return out


def _outward_bounds(s1, s0, r1a, r0a, G, rel_g, Ts, at_lo, at_hi, exact_all, lam, e0):
    """Float ``(lo1, hi1, lo0, hi0)`` arrays enclosing the moments of every row (Lemma R4).

    The enclosure is the one of the ball finisher: ``[S/(1+r) − down, S/(1−r) + up]`` with
    ``up = e^{ε0(λ−1)}(2T + edges)``, ``down = (λ−1)e^{ε0λ}T``; its scalar factors are rounded outward
    in arb, and every array operation on non-negative floats is followed by ``nextafter`` in the
    outward direction (a round-to-nearest result is within half a spacing of the exact value, also
    for subnormals and at binade boundaries).  O(B·W) (the edges), O(B) otherwise.
    """

    inf = np.inf

    def up(x):
        return np.nextafter(x, inf)

    def dn(x):
        return np.nextafter(x, -inf)

    out = []
    B = G.shape[0]
    if exact_all:
        T = np.zeros(B)
        edges = np.zeros(B)
    else:
        T = np.array([float_upper(arith.ball(t)) for t in Ts])
        edges = np.zeros(B)
        inv_g = float_upper(1 / (1 - arb(rel_g)))
        if not at_lo:
            edges = up(edges + up(G[:, 0] * inv_g))
        if not at_hi:
            edges = up(edges + up(G[:, -1] * inv_g))
    e0b = arith.ball(e0)
    A = float_upper(order_power(e0b, lam - 1))
    Bf = float_upper((arb(lam) - 1) * order_power(e0b, lam))
    upw = up(A * up(up(2.0 * T) + edges))
    dnw = up(Bf * T)
    for s, ra in ((s1, r1a), (s0, r0a)):
        f_hi = float_upper(1 / (1 - ra))
        f_lo = -float_upper(-(1 / (1 + ra)))
        hi = up(up(s * f_hi) + upw)
        lo = dn(dn(s * f_lo) - dnw)
        out.extend([lo, hi])
    return tuple(out)


def float_moments_binary(
    mech: KRR, n: IntegerInput, c: IntegerInput, lam: NumberInput, *, tol: NumberInput | None = None
) -> tuple[arb, arb]:
    """``(E_λ(x=1), E_λ(x=0))`` of shuffled binary RR on dataset ``c`` by the float route (b): two arb balls.

    Integer ``λ ≥ 2`` only.  The two binomial windows come from
    :func:`exact.laws.binomial.float_window` (Lemma 2 of docs/numerics.md), their
    convolution from ``numpy.convolve`` (Lemma R1), values below the cut-off
    are moved to the left-out mass (Lemma R3), the moment terms and sums by
    Lemma R2 and Lemma 4; the certified window errors are added in ball
    arithmetic as on the ball route (:func:`binary_window_error`).
    Proved: each returned ball contains the true moment.  Accuracy about
    ``10⁻¹²`` relative, fixed (the ball route gives more digits).  Raises
    :class:`exact.laws.binomial.FloatRouteUnavailable` outside the proof's range
    (non-integer λ, ``ε0·λ > FLOAT_MAX_EPS_LAMBDA``, underflow).
    Cost: O(W_a·W_b) for the convolution (O(W) when ``c = 0``), O(W log λ)
    for the moments, ``W = O(√(n log(1/tol)))``.
    """

    keep, flip, lam, k_int, e0 = _float_checks(mech, lam)
    n = arith.integer_in(n, "n", lo=1)
    c = arith.integer_in(c, "c", lo=0, hi=n - 1)
    tol = float_tol(e0, lam) if tol is None else arith.exact(tol, "tol")
    a, ao, ra, ta = _float_law(c, keep, tol)
    b, bo, rb, tb = _float_law(n - 1 - c, flip, tol)
    g = np.convolve(a, b)  # Lemma R1
    rel_g = float_upper((1 + float_ball(ra)) * (1 + float_ball(rb)) * (1 + arb(gamma(min(len(a), len(b))))) - 1)
    G, off, extra = _drop_small(g[None, :], ao + bo, rel_g, float(tol) * 2.0**-8)
    return _float_moment_rows(G, off, rel_g, [ta + tb + extra[0]], n, keep, flip, lam, k_int, e0)[0]


def _block_checks(
    mech: object, n: int, c0: int, B: int, lam: NumberInput, tol: NumberInput | None
) -> tuple[Enclosure, Enclosure, fmpq, int, Enclosure, fmpq]:
    """``(keep, flip, λ, int λ, e^{ε0}, tol)`` for a block ``c0..c0+B−1`` of the float route (the proof's range checked,
    the block inside ``0..n−1``, the default cut-off :func:`float_tol`)."""
    keep, flip, lam, k_int, e0 = _float_checks(mech, lam)
    if not (1 <= B and c0 >= 0 and n - c0 - B >= 0):
        raise InvalidArgument("B", B, f"must be >= 1 with c0 + B <= n (c0 = {c0}, n = {n})")
    return keep, flip, lam, k_int, e0, float_tol(e0, lam) if tol is None else arith.exact(tol, "tol")


def float_moments_binary_block(
    mech: KRR, n: int, c0: int, B: int, lam: NumberInput, *, tol: NumberInput | None = None, bounds: bool = False
) -> Any:
    """``[(E_λ(x=1), E_λ(x=0)) for c in c0..c0+B−1]`` by the float route (b), sharing one convolution.

    ``g_c = H ⊛ R_{c−c0}`` with ``H = Bin(c0, keep) ⊛ Bin(n−c0−B, flip)`` (windowed, one
    ``numpy.convolve``) and ``R_j = Bin(j, keep) ⊛ Bin(B−1−j, flip)`` (complete: ``B−1`` vectorised
    Bernoulli steps, Lemma 5 of docs/numerics.md), then ``g_c`` row by row (``numpy.convolve`` with
    ``B`` products per entry, Lemma R1) and the moments of all rows at once.  ``H``'s left-out mass is
    also the left-out mass of every ``g_c`` (convolving with a probability law keeps the defect).
    Proved: each ball contains the true moment.  Cost O(W_a·W_b + B²·W + B·W log λ) for the block:
    O(B·W) per dataset instead of O(W_a·W_b).
    """

    keep, flip, lam, k_int, e0, tol = _block_checks(mech, n, c0, B, lam, tol)
    a, ao, ra, ta = _float_law(c0, keep, tol)
    b, bo, rb, tb = _float_law(n - c0 - B, flip, tol)
    H = np.convolve(a, b)
    rel_H = (1 + float_ball(ra)) * (1 + float_ball(rb)) * (1 + arb(gamma(min(len(a), len(b))))) - 1
    kh, ek = float_param(keep)
    fh, ef = float_param(flip)
    R = bernoulli_rows(B, kh, fh)
    rel_R = float_ball(bernoulli_rel(0.0, max(ek, ef), B - 1)) if B > 1 else arb(0)
    WH = len(H)
    G = np.empty((B, WH + B - 1))
    for j in range(B):
        G[j] = np.convolve(R[j], H)
    rel_g = float_upper((1 + rel_H) * (1 + rel_R) * (1 + arb(gamma(B))) - 1)  # Lemma R1 (≤ B products per entry)
    G, off, extra = _drop_small(G, ao + bo, rel_g, float(tol) * 2.0**-8)
    return _float_moment_rows(G, off, rel_g, [ta + tb + x for x in extra], n, keep, flip, lam, k_int, e0, bounds=bounds)


# ============================================================ route (b'): the excess E − 1 with an absolute error bound
# docs/numerics.md, "Rényi moments", Lemmas R5–R7.

#: below this, P̂ or Q̂ is not used for a likelihood ratio; the outcome's term is bounded by its mass (Lemma R7)
_EXCESS_SMALL = 2.0**-800
#: absolute allowance for gradual underflow in the excess kernel (Lemma R7)
_EXCESS_SLACK = fmpq(1, 2**550)


def _shift_rows(vs, B: int):
    """``M[s, i·V + k] = v_i[k − s]`` (zero outside) for the vectors ``v_i`` (all of length ``L``, ``V = L + B − 1``),
    shape ``(B, len(vs)·V)``: ``(R @ M)[:, i·V : (i+1)·V]`` convolves every row of ``R`` with ``v_i``.  One copy
    per entry.  O(B·V) per vector."""

    L = len(vs[0])
    V = L + B - 1
    M = np.empty((B, len(vs) * V))
    pad = np.zeros(L + 2 * (B - 1))
    for i, v in enumerate(vs):
        pad[B - 1 : B - 1 + L] = v
        win = np.lib.stride_tricks.sliding_window_view(pad, V)
        M[:, i * V : (i + 1) * V] = win[::-1]
    return M


def _float_diff_binomial(b, bo: int, rb: float, m: int, q):
    """``(db, kappa1, kappa2)``: the first difference ``Δb̃(k) = b̃(k−1) − b̃(k)`` of the window ``b̃`` of Bin(m, q)
    (zero outside ``bo..bo+len(b)−1``; ``db[j]`` is at ``k = bo + j``, ``j = 0..len(b)``) and exact bounds
    ``|db̂[j] − Δb̃| ≤ kappa1·|db̂[j]| + kappa2·b̂[j]`` (``b̂[len(b)] = 0``), Lemma R5.

    Inside the window ``Δb(k) = b(k)·(k − (m+1)q)/((m−k+1)q)``: the cancellation in ``k − (m+1)q`` is done on
    exact integers ``k − M`` and the fractional part ``φ = (m+1)q − M`` (a ball rounded once), so the
    result is accurate relative to ``|Δb|``, not to ``b``.  O(W).
    """

    W = len(b)
    db = np.empty(W + 1)
    db[0] = -b[0]
    db[W] = b[W - 1]
    rb_ = float_ball(rb)
    edge = rb_ / (1 - rb_)  # |b̂ − b| ≤ rb·b ≤ rb/(1−rb)·b̂ at the two edges
    if W == 1:
        return db, float_upper(edge), 0.0
    qb = arith.ball(q)
    mu = arb(m + 1) * qb
    M_z = mu.mid().floor().unique_fmpz()
    assert M_z is not None  # the floor of a midpoint (a ball of radius 0, of m + 1 < 2^prec) is one integer
    M = int(M_z)
    phi = mu - M
    phih = float(phi.mid())
    e_phi = arb((float_ball(phih) - phi).abs_upper())
    qh, e_q = float_param(qb)
    ks = float(bo) + np.arange(1, W, dtype=np.float64)  # exact integers < 2^53
    d = (ks - float(M)) - phih  # k − M exact; one rounding
    den = (float(m) - ks + 1.0) * qh  # (m − k + 1) exact; one rounding
    db[1:W] = (b[1:W] * d) / den
    den_min = float(den[-1])  # fl is monotone: the smallest denominator is at k = hi
    if not den_min > 0:
        raise FloatRouteUnavailable("binomial difference: empty denominator")
    u = arb(U)
    eq = arb(e_q)
    Phi = (1 + rb_) * (1 + u) ** 2 / ((1 - eq) * (1 - u)) - 1
    K0 = (1 + eq) * (1 + u) / (1 - rb_)
    k1 = K0 * (Phi * (1 + u) + u * (1 + Phi)) / (1 - u) ** 2
    k2 = K0 * e_phi * (1 + 2 * Phi) / float_ball(den_min)
    return db, max(float_upper(k1), float_upper(edge)), float_upper(k2)


def _geom_pow_sum(r, k: int):
    """``(S, depth)``: ``S = 1 + r + … + r^{k−1}`` element-wise by binary powering (``S_{2m} = S_m(1 + r^m)``,
    ``S_{m+1} = S_m + r^m``) and the number of rounding factors any of its monomials carries (Lemma R6).
    O(log k) numpy passes."""

    w = np.asarray(r, dtype=np.float64)
    s = None  # S_1 = 1: the first doubling is fl(1 + w) (multiplying by the exact 1 is exact; same values)
    dw, ds = 0, 0
    bits = bin(k)[3:]
    for i, bit in enumerate(bits):
        s = 1.0 + w if s is None else s * (1.0 + w)
        ds = ds + dw + 2
        last = i == len(bits) - 1
        if bit == "1" or not last:  # the last square is needed only by a final increment
            w = w * w
            dw = 2 * dw + 1
        if bit == "1":
            s = s + w
            ds = max(ds, dw) + 1
            if not last:
                w = w * r
                dw = dw + 1
    return (np.ones_like(w) if s is None else s), ds


def float_excess_block(
    mech: KRR, n: int, c0: int, B: int, lam: NumberInput, *, tol: NumberInput | None = None
) -> tuple[Any, Any, Any, Any]:
    """Certified float bounds on the *excess* ``E_λ − 1`` of the datasets ``c0..c0+B−1``:
    ``(lo1, hi1, lo0, hi0)`` arrays of length ``B`` (direction ``x = 1`` and ``x = 0``), ``lo ≤ E − 1 ≤ hi``.

    The moment ``E ≈ 1`` loses ``E − 1`` to rounding (relative ``10⁻¹²`` on ``E``).  Here
    ``Q(r^λ − 1) = (P − Q)·(1 + r + … + r^{λ−1})`` with ``P − Q = (keep − flip)·(g(k−1) − g(k))``, and the
    first difference of the count law ``g`` is computed without cancellation: the closed form for the
    wider binomial (Lemma R5), then convolutions with the other binomial window and the block's
    Bernoulli rows (signed sums with an absolute bound, Lemma R6); the window error is the ball route's.
    Proved (docs/numerics.md, Lemmas R5–R7): the bounds enclose the true excess.  Accuracy about
    ``10⁻¹³·σ`` relative on ``E − 1`` (``σ² = n·keep·flip``): enough to separate neighbouring datasets.
    Integer ``λ ≥ 2`` only; raises :class:`exact.laws.binomial.FloatRouteUnavailable` outside the proof.
    Cost O(W_a·W_b + B²·W + B·W log λ) for the block (three convolutions of the two windows, three
    ``B × B`` by ``B × W`` products).
    """

    keep, flip, lam, k_int, e0, tol = _block_checks(mech, n, c0, B, lam, tol)
    a, ao, ra, ta = _float_law(c0, keep, tol)
    mb = n - c0 - B
    b, bo, rb, tb = _float_law(mb, flip, tol)
    db, k1, k2 = _float_diff_binomial(b, bo, rb, mb, flip) if mb > 0 else (np.array([-1.0, 1.0]), 0.0, 0.0)
    H = np.convolve(a, b)
    dH = np.convolve(a, db)
    X = np.convolve(a, np.abs(db))
    u = arb(U)
    L = max(min(len(a), len(db)), 1)
    gL = arb(gamma(L))
    ra_, rb_ = float_ball(ra), float_ball(rb)
    ra1 = ra_ / (1 - ra_)
    # Lemma R6 (level H): |dH^ − ΔH| ≤ h1·X^ + h2·H^
    h1 = (gL + ra1 + (1 + ra1) * float_ball(k1)) / (1 - gL)
    h2 = (1 + ra1) * float_ball(k2) / (1 - gL)
    rel_H = (1 + ra_) * (1 + rb_) * (1 + arb(gamma(max(min(len(a), len(b)), 1)))) - 1
    kh, ek = float_param(keep)
    fh, ef = float_param(flip)
    R = bernoulli_rows(B, kh, fh)
    rel_R = float_ball(bernoulli_rel(0.0, max(ek, ef), B - 1)) if B > 1 else arb(0)
    rR1 = rel_R / (1 - rel_R)
    gB = arb(gamma(B))
    Hp = np.append(H, 0.0)  # H̃ on k = 0..WH (zero at the top)
    # g_c on 0..W (W = WH + B − 1; the last entry is 0), its difference and Z: one matrix product
    Wg = len(Hp) + B - 1
    GdGZ = R @ _shift_rows((Hp, dH, X), B)
    G, dG, Z = GdGZ[:, :Wg], GdGZ[:, Wg : 2 * Wg], GdGZ[:, 2 * Wg :]
    rel_g = (1 + rel_H) * (1 + rel_R) * (1 + gB) - 1
    # level G: |dG^ − ΔG| ≤ z1·Z^ + z2·G^
    z1 = ((gB + rR1) * (1 + gL) / (1 - gL) + (1 + rR1) * h1) / (1 - gB)
    z2 = (1 + rR1) * h2 / (1 - gB)
    W = G.shape[1] - 1
    off = ao + bo
    T = arith.ball(ta) + arith.ball(tb)
    exact_all = T.is_zero()
    at_lo = exact_all or off == 0
    at_hi = exact_all or off + W - 1 == n - 1
    lo_k = 0 if at_lo else 1
    hi_k = W if at_hi else W - 1
    b0 = G[:, lo_k : hi_k + 1]  # g(k)
    Gm = np.zeros_like(G)
    Gm[:, 1:] = G[:, :-1]
    b1 = Gm[:, lo_k : hi_k + 1]  # g(k − 1)
    dGk = dG[:, lo_k : hi_k + 1]
    Zk = Z[:, lo_k : hi_k + 1]
    P = b0 * fh + b1 * kh  # x = 1
    Q = b0 * kh + b1 * fh  # x = 0
    small = (P < _EXCESS_SMALL) | (Q < _EXCESS_SMALL)
    n_small = small.sum(axis=1)
    any_small = bool(n_small.any())  # the masked stores below are no-ops otherwise (skipped: same values)
    if any_small:
        P[small] = 1.0
        Q[small] = 1.0
    e_c = max(ek, ef)
    rel_g2 = (1 + rel_g) * (1 + arb(fmpq(1, 2**200))) - 1  # gradual underflow upstream of P, Q ≥ 2^-800
    rel_PQ = (1 + rel_g2) * (1 + arb(e_c)) * (1 + arb(gamma(2))) - 1
    rel_r = (1 + rel_PQ) * (1 + u) / (1 - rel_PQ) - 1
    dh, e_d = float_param(arith.ball(keep) - arith.ball(flip))
    ed = arb(e_d)
    z1f, z2f = float_upper(z1), float_upper(z2)
    errG = z1f * Zk + z2f * b0
    d_dG = dh * dGk  # fl(d̂·ΔĜ), the same array in both directions
    d_err = dh * errG
    depth = arb(gamma(pairwise_depth(b0.shape[1])))
    e0b = arith.ball(e0)
    small_b = arb(fmpq(1, 2**799)) * order_power(e0b, lam + 1)
    out = []
    for r_arr, sign in ((P / Q, 1.0), (Q / P, -1.0)):
        S, ds = _geom_pow_sum(r_arr, k_int)
        rho_S = (1 + rel_r) ** (k_int - 1) * (1 + arb(gamma(ds))) - 1
        if not (rho_S < arb("1e-6")):
            raise FloatRouteUnavailable("relative error bound too large")
        t = d_dG * S
        Bv = d_err * S
        if any_small:
            t[small] = 0.0
            Bv[small] = 0.0
        s_sum = sign * pairwise_sum(t)
        A = pairwise_sum(np.abs(t))
        Bs = pairwise_sum(Bv)
        Th = (1 + ed) * (1 + rho_S) * (1 + u) ** 2 - 1
        Kt = 1 / ((1 - ed) * (1 - rho_S) * (1 - u) ** 2)
        KB = Kt / (1 - u) ** 2
        cA = arb(float_upper((depth + Th * Kt) / (1 - depth)))
        cB = arb(float_upper((1 + 2 * Th) * KB / (1 - depth)))
        out.append((s_sum, A, Bs, cA, cB))
    # Lemma R7 (iv), evaluated on arrays with every operation rounded outward (as in Lemma R4)
    inf = np.inf

    def upr(x):
        return np.nextafter(x, inf)

    def dnr(x):
        return np.nextafter(x, -inf)

    small_f = float_upper(small_b)
    slack_f = float_upper(arb(_EXCESS_SLACK))
    edges = np.zeros(B)
    if not exact_all:
        inv_g = float_upper(1 / (1 - rel_g))
        if not at_lo:
            edges = upr(edges + upr(G[:, 0] * inv_g))
        if not at_hi:
            edges = upr(edges + upr(G[:, W - 1] * inv_g))
        T_f = float_upper(T)
        A_e = float_upper(order_power(e0b, lam - 1))
        B_e = float_upper((arb(lam) - 1) * order_power(e0b, lam))
        up_w = upr(A_e * upr(upr(2.0 * T_f) + edges))
        down_w = np.full(B, upr(B_e * T_f))
        missing = upr(T_f + edges)
    else:
        up_w = down_w = missing = np.zeros(B)
    res = []
    for s_sum, A, Bs, cA, cB in out:
        err = upr(float_upper(cA) * A)
        err = upr(err + upr(float_upper(cB) * Bs))
        err = upr(err + upr(small_f * n_small.astype(np.float64)))
        err = upr(err + slack_f)
        hi = upr(upr(s_sum + err) + up_w)
        lo = dnr(dnr(dnr(s_sum - err) - missing) - down_w)
        res.extend([lo, hi])
    return tuple(res)


def float_excess_binary_block(
    mech: KRR, n: int, c0: int, B: int, lam: NumberInput, *, tol: NumberInput | None = None
) -> list[tuple[arb, arb]]:
    """``[(E_λ(x=1) − 1, E_λ(x=0) − 1) for c in c0..c0+B−1]`` as balls (:func:`float_excess_block`).

    >>> from blanket.exact.accounting.renyi import moment_binary  # the exact route, to compare
    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(128):
    ...     e1, e0 = float_excess_binary_block(BinaryRR(epsilon0="1"), 10**5, 0, 1, 2)[0]
    ...     m1, m0 = moment_binary(BinaryRR(epsilon0="1"), 10**5, 0, order=2, x=1), None
    >>> bool(e1.contains(m1 - 1)) and float(e1.rad() / e1.mid()) < 1e-8
    True
    """
    lo1, hi1, lo0, hi0 = float_excess_block(mech, n, c0, B, lam, tol=tol)
    return [(arb(lo1[j]).union(arb(hi1[j])), arb(lo0[j]).union(arb(hi0[j]))) for j in range(B)]


def float_down(x: NumberOrBall) -> float:
    """A binary64 number ≤ the ball or rational ``x``."""

    return -float_upper(-arith.ball(x))


def float_up(x: NumberOrBall) -> float:
    """A binary64 number ≥ the ball or rational ``x``."""

    return float_upper(arith.ball(x))
