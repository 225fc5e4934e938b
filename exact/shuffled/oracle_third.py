"""Unary encoding, every other user on a third value: a certified lower bound on the dataset's *exact* δ.

For unary encoding (OUE, SUE) and the datasets ``D = x z^{n−1}``, ``D' = x' z^{n−1}``, the likelihood ratio of a
shuffled output ``Y = {y_1, …, y_n}`` against ``z^n`` is ``P_D(Y)/P_{z^n}(Y) = (1/n) Σ_i e^{ε0(a_i − c_i)}`` with
``(a_i, b_i, c_i)`` the bits ``x, x', z`` of report ``i`` (``R(u)(y)/R(z)(y) = e^{ε0(y_u − y_z)}``).  So

    δ(ε) = (1/n) E_{z^n}[(X − e^ε X')_+],   X = Σ_i e^{ε0(a_i − c_i)},   X' = Σ_i e^{ε0(b_i − c_i)},

the exact δ of the full view of this pair (no post-processing; docs/reference/oracles.md §"The exact third value").
Under ``R(z)`` the three bits are independent, ``a, b ~ Bern(q)``, ``c ~ Bern(p)``.  Given ``C = Σ c_i = m``
(``C ~ Bin(n, p)``), ``X = (n − m) + m/e + (e − 1)U + (1 − 1/e)A`` with ``U ~ Bin(n − m, q)`` (the ``a = 1`` among
the ``c = 0`` reports) and ``A ~ Bin(m, q)`` (the ``a = 1`` among the ``c = 1``) independent, and ``X'`` an
independent copy (``U'``, ``A'``).  So, per ``m``,

    E[(X − cX')_+] = Σ_{x'} P(x') G(c x'),   G(t) = Σ_{x > t} P(x)(x − t) = T1(t) − t T0(t),

with the law of ``X`` on the ``W_U × W_A`` window points sorted once and its suffix sums ``T0``, ``T1``.

**Certification (a lower bound only).**  For *any* sets ``S(x')``, ``E[(X − cX')_+] ≥ Σ_{x'} P(x') ·
max(0, Σ_{x ∈ S(x')} P(x)(x − c x'))`` (``(s)_+ ≥ s`` and ``≥ 0``), and leaving out window points or values of ``m``
only drops non-negative terms.  ``S(x')`` is a suffix of the *float*-sorted window, so the float ordering need not be
exact; every float quantity has a proved relative error (docs/numerics.md Lemma T1: the binomial windows of Lemma 2,
the suffix sums of Lemma 3, the dot product of Lemma 4), and each difference is bounded below by scaling its two
terms by certified factors before it is taken.  The outer sum over ``m`` is in ball arithmetic.  The result is a ball
``[L, 1]``: ``L`` a certified lower bound on δ(ε) of this pair, hence on the shuffled mechanism's δ(ε); the upper
end is the trivial 1 (this route computes no upper bound).

Cost: ``W_C`` values of ``m`` (``O(√(np)·√log(1/tol))``), each a sort of ``W_U·W_A = O(n·q·log(1/tol))`` floats:
``O(n^{3/2} log n)`` float operations in all (n = 10³: about 1 s; 10⁴: about half a minute).  Refused
(``None``) above :data:`MAX_WORK` (see :func:`exact_third_work`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.oracles import FourValue, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput
from blanket.exact.shuffled.krr import delta_args
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MAX_WORK", "WINDOW_TOL", "exact_third_lower", "exact_third_work"]

#: :func:`exact_third_lower` returns None when :func:`exact_third_work` exceeds this (about 1.5·10⁷: n ≈ 10³ for
#: OUE/SUE at ε0 = 2, about a second per δ); pass ``max_work`` to go further
MAX_WORK = 5 * 10**7
#: the cut-off of every binomial window (left-out mass only lowers the lower bound; ≈ 5e-20)
WINDOW_TOL = fmpq(1, 2**64)
_U = 2.0**-53
_FLUSH = 2.0**-600  # differences below this are set to 0 (a lower bound may drop non-negative terms)


def _window(N: int, q, tol) -> tuple:
    """``(values, offset, rel)`` of a float window of Bin(N, q) (Lemma 2), ``([1], 0, 0)`` when ``N = 0``."""
    if N == 0:
        return np.ones(1), 0, 0.0
    w = laws.float_window(N, q, tol)
    return w.values, w.offset, w.rel


def exact_third_work(mech: UnaryEncoding, n: IntegerInput) -> int:
    """The cost measure of :func:`exact_third_lower`: window width of ``C`` times that of ``U`` times that of ``A``
    (at ``m`` near ``np``), the number of floats sorted in all.  O(1) ball operations."""
    nn = arith.integer_in(n, "n", lo=1)
    lo, hi, _ = laws.window_bounds(nn, arith.ball(mech.p), WINDOW_TOL)
    m = (lo + hi) // 2
    lu, hu, _ = laws.window_bounds(nn - m, arith.ball(mech.q), WINDOW_TOL)
    la, ha, _ = laws.window_bounds(m, arith.ball(mech.q), WINDOW_TOL)
    return (hi - lo + 1) * (hu - lu + 1) * (ha - la + 1)


def _factor(x: arb, up: bool) -> float:
    """A binary64 number ≥ (``up``) or ≤ the positive ball ``x``."""
    if up:
        return laws.float_upper(x)
    lo = arith.endpoints(x)[0]
    v = lo.numerator / lo.denominator
    return math.nextafter(v, 0.0)


def _per_m(n: int, m: int, p_q, e_ball: arb, c_hat: float, c_hi: arb) -> arb | None:
    """A certified lower bound on ``E[(X − cX')_+ | C = m]`` as the exact lower end of an arb (Lemma T1)."""
    N0 = n - m
    vu, lu, ru = _window(N0, p_q, WINDOW_TOL)
    va, la, ra = _window(m, p_q, WINDOW_TOL)
    alpha, e_al = laws.float_param(arb(N0) + arb(m) / e_ball)
    beta, e_be = laws.float_param(e_ball - 1)
    gam, e_ga = laws.float_param(1 - 1 / e_ball)
    I = (lu + np.arange(len(vu), dtype=np.float64))[:, None]
    J = (la + np.arange(len(va), dtype=np.float64))[None, :]
    X = ((alpha + beta * I) + gam * J).ravel()  # positive terms: rel ≤ (1 + max e)(1 + u)^3 − 1
    P = (vu[:, None] * va[None, :]).ravel()  # rel ≤ (1 + ru)(1 + ra)(1 + u) − 1
    order = np.argsort(X, kind="stable")
    X, P = X[order], P[order]
    u = arb(fmpq(1, 2**53))
    r_x = laws.float_upper((1 + arb(max(e_al, e_be, e_ga))) * (1 + u) ** 3 - 1)
    r_p = laws.rel_combine(ru, ra, fmpq(1, 2**53))
    G0, r0 = laws.suffix_sums(P, r_p)
    G1, r1 = laws.suffix_sums(P * X, laws.rel_combine(r_p, r_x, fmpq(1, 2**53)))
    # D(x') = Σ_{S(x')} P(x)(x − c x') ≥ G1/(1+r1) − c_hi·X̂'/(1−r_x)·G0/(1−r0) (exact); the float difference
    # fl(fl(κ1 G1) − fl(fl(κ0 X̂') G0)), κ1 = 1/((1+r1)(1+u)) rounded down, κ0 = c_hi/((1−r_x)(1−r0)(1−u)²) rounded up,
    # is ≤ (1+u)·that exact lower bound when positive (docs/numerics.md Lemma T1)
    k1 = _factor(1 / ((1 + laws.float_ball(r1)) * (1 + u)), up=False)
    k0 = _factor(
        c_hi / ((1 - laws.float_ball(r_x)) * (1 - laws.float_ball(r0)) * (1 - u) ** 2),
        up=True,
    )
    idx = np.searchsorted(X, c_hat * X, side="right")
    d = k1 * G1[idx] - (k0 * X) * G0[idx]
    d[~(d >= _FLUSH)] = 0.0
    if not d.any():
        return None
    s, r_s = laws.dot_nonneg(P, d, r_p, 0.0)  # |s − Σ P d| ≤ r_s Σ P d (P the exact window probabilities)
    lo = laws.float_ball(float(s)) / (1 + laws.float_ball(r_s)) / (1 + u)  # Σ P D ≥ Σ P d/(1+u) ≥ s/((1+r_s)(1+u))
    return arb(lo.lower())


def _lower_ball(x: arb) -> arb:
    """The exact lower end of a ball, as a ball of radius 0."""
    lo = arith.endpoints(x)[0]
    return arb(fmpq(lo.numerator, lo.denominator))


def exact_third_lower(
    mech: FourValue, n: IntegerInput, *, max_work: int | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure | None:
    """A certified lower bound on the exact δ(ε) of ``x z^{n−1}`` vs ``x' z^{n−1}`` for unary encoding (the full view,
    no post-processing; module docstring), as the ball ``[L, 1]`` (only ``L`` is computed), or ``None`` when the
    record is not unary encoding, ``ε < 0``, or the work (:func:`exact_third_work`) exceeds ``max_work`` (default
    :data:`MAX_WORK`).  ``fmpq(0)`` when ``ε ≥ ε0`` (δ = 0).  One direction suffices (``a`` and ``b`` are
    exchangeable under ``R(z)``, so both directions have the same δ).

    Cost ``O(n^{3/2} log n)`` float operations and ``O(√n)`` ball operations per window (module docstring).
    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon`` (``tol``,
    ``exact_max_n`` are accepted and ignored: the windows use :data:`WINDOW_TOL`).
    """
    if not isinstance(mech, UnaryEncoding):
        return None
    q = delta_args(mech, n, opts, "exact_third_lower")
    if q is None:
        return fmpq(0)
    nn, ee = q[0], q[1]
    if (max_work if max_work is not None else MAX_WORK) < exact_third_work(mech, nn):
        return None
    c_ball = arith.ball(ee)
    if not (c_ball >= 1):
        return None
    hi_c = arith.endpoints(c_ball)[1]
    c_hi = arb(fmpq(hi_c.numerator, hi_c.denominator))
    c_hat = float(c_ball.mid())
    e_ball = arith.ball(mech.exp_epsilon0())
    p_ball, q_ball = arith.ball(mech.p), arith.ball(mech.q)
    lo, hi, _ = laws.window_bounds(nn, p_ball, WINDOW_TOL)
    total = arb(0)
    for m in range(lo, hi + 1):
        v = _per_m(nn, m, q_ball, e_ball, c_hat, c_hi)
        if v is None:
            continue
        total += _lower_ball(laws.pmf(nn, p_ball, m) * v)
    low = _lower_ball(total / nn)
    return (low if low > 0 else arb(0)).union(arb(1))
