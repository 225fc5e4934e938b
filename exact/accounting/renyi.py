"""Exact Rényi divergence of shuffled randomized response (binary RR and k-RR dataset families).

Notation (``docs/reference/renyi.md`` §0).  For neighbouring datasets
``D = (d_1..d_{n-1}, x)`` and ``D' = (d_1..d_{n-1}, x')`` the *Rényi moment*
of order ``λ > 1`` is

    ``E_λ(D‖D') = E_{h ~ M(D')}[(M(D)(h)/M(D')(h))^λ] = Σ_h M(D)(h)^λ M(D')(h)^{1−λ}``

and the Rényi divergence is ``D_λ = log(E_λ)/(λ−1)``.  Every routine here
returns a certified enclosure (exact ``fmpq`` for integer λ, rational
``e^{ε0}`` and small n; otherwise an ``arb`` ball at the current flint
precision, see :func:`exact.numbers.arith.precision`).

The module is split by job: this file holds the exact and ball routes, the worst case over datasets, the k-RR
families' nested route and the binomial central moments; :mod:`exact.accounting.renyi_float` the float64 kernels
with proved bounds (routes (b) and (b'), which the worst-case scan runs on); :mod:`exact.accounting.renyi_core`
the small pieces both use (the order, ``r^λ``, binary RR's parameters, a window's certified error);
:mod:`exact.accounting.renyi_families` the k-RR families at scale and the dispatcher :func:`renyi`.

Two engines:

* **binary RR, any dataset** (``c`` ones among the ``n−1`` other users):
  the count of 1-reports of the others is ``B = Bin(c, keep) ⊛ Bin(n−1−c, flip)``
  (each binomial windowed with a certified geometric tail, the convolution
  done by ``arb_poly`` multiplication in C); the differing user adds a
  Bernoulli.  The worst case over datasets scans ``c = 0..⌊(n−1)/2⌋`` (the map
  0↔1 sends ``c`` to ``n−1−c`` and swaps the two directions), first at low
  precision, then recomputing only the datasets whose upper end reaches the
  best certified lower end (a rigorous pruning).
* **i.i.d. others** (the k-RR families *same*, *neighbour*, *third*, and
  binary RR with ``c = 0`` or ``c = n−1``): when the other users are i.i.d.
  with report law ``μ_z``, ``M(D)(h) = Q_n(h)·S_x(h)/n`` with
  ``Q_n = Multinomial(n, μ_z)`` and ``S_x(h) = Σ_y μ_x(y) h_y / μ_z(y)``
  (derived: ``Q_{n-1}(h−e_y) = Q_n(h)·h_y/(n μ_z(y))``), so

      ``E_λ(D‖D') = E_{h~Q_n}[S_x(h)^λ S_{x'}(h)^{1−λ}] / n``.

  For k-RR ``S_x`` depends on ``h`` only through the counts of ``x``, ``x'`` and
  ``z`` (the *third* value's count is part of the sufficient statistic when
  ``k ≥ 4``; lumping it with the other values would be wrong), so the sum is
  1-, 2- or 3-dimensional over nested conditional binomials.

Windowing (rigorous).  Binomial windows stop where the geometric bound on
the left-out mass (the pmf ratio ``pmf(j+1)/pmf(j)`` is decreasing, so the
tail beyond ``K`` is ≤ ``pmf(K)·ρ_K/(1−ρ_K)``) is below ``tol``.  Every
left-out term of a Rényi moment is ``P(h)·(P(h)/P'(h))^{λ−1} ≤
e^{ε0(λ−1)}·P(h)``, and the left-out ``P``-mass is bounded by the left-out
mass of the underlying law times ``e^{ε0}`` (i.i.d. engine) or by the
windows' tails plus the two edge atoms (binary engine); the result is the
ball ``[S, S + e^{ε0 λ}·(left-out mass)]`` where ``S`` is the window sum
(i.i.d. engine, whose in-window terms are exact).  In the binary engine the
in-window values of the convolved count law are under-estimates, which
also widens the ball downwards by ``(λ−1)e^{ε0λ}·tail`` (convexity of
``P^λ Q^{1−λ}``; see :func:`_binary_window_error`).

Engines.  Binomial windows come from the shared windowed-law engine
:mod:`exact.laws.binomial` (ball windows :func:`~exact.laws.binomial.window`,
float windows :func:`~exact.laws.binomial.float_window`); this module adds
what the Rényi moment needs on top: both directions of every dataset in one
pass, the tail rule (left-out terms weighted by ``e^{ε0(λ−1)}``), the float
moment kernels (docs/numerics.md, Lemmas R1–R4) and the *excess* kernel for
``E − 1`` (Lemmas R5–R7), which separates datasets whose moments agree to
``10⁻¹²``.  The worst case scans every dataset with the excess kernel, prunes on
``E − 1`` and computes the few datasets left in balls.

Complexities: one binary dataset O(W log W) with ``W = O(√(n·log(1/tol)))``
window width (the two binomial windows, their ``arb_poly`` product, the
moment sum); the worst case O(n·B·W) float operations (blocks of B datasets);
k-RR families: O(1) in n by the Taylor kernel of
:mod:`exact.accounting.renyi_families` at scale; the nested route (*same*/*neighbour* O(W²), *third*
O(W²) for k = 3 and O(W³) for k ≥ 4) for small n and as the reference (``moment_krr_family_nested``).

>>> from blanket.exact.mechanisms.finite import BinaryRR
>>> rr = BinaryRR(exp_epsilon0=3)
>>> moment_binary(rr, 2, 0, order=2, x=1)   # brute force: see tests/test_renyi.py
5/3
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np
from blanket.exact.accounting.renyi_core import binary_params as _binary_params
from blanket.exact.accounting.renyi_core import binary_window_error as _binary_window_error
from blanket.exact.accounting.renyi_core import check_krr as _check_mech
from blanket.exact.accounting.renyi_core import integer_order as _int_order
from blanket.exact.accounting.renyi_core import is_integer_order as _is_int
from blanket.exact.accounting.renyi_core import order_power as _pow
from blanket.exact.accounting.renyi_core import parse_order
from blanket.exact.accounting.renyi_float import (
    RECOMPUTE_MAX,
    SWEEP_BLOCK,
    float_excess_block,
    float_moments_binary_block,
)
from blanket.exact.accounting.renyi_float import float_down as _down
from blanket.exact.accounting.renyi_float import float_up as _up_f
from blanket.exact.laws import binomial
from blanket.exact.laws.binomial import (
    FloatRouteUnavailable,
)
from blanket.exact.laws.divergences import Windowed
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.runtime.budget import refuse_over_limits
from blanket.exact.runtime.executors import block_ranges, executor_cores, map_blocks
from blanket.exact.runtime.progress import Progress, check_time
from flint import arb, arb_poly, ctx, fmpq, fmpq_poly
from threadpoolctl import threadpool_limits

#: exact (rational) computation is used up to this many users when every input is exact
EXACT_MAX_N = 200

FAMILIES = ("same", "neighbour", "third")


# ============================================================ arguments
def _exact(x: object) -> TypeGuard[fmpq]:
    return isinstance(x, fmpq)


def _add(a, b):
    return b + a if isinstance(b, arb) else a + b


def _mul(a, b):
    return b * a if isinstance(b, arb) else a * b


def _tol_for(mech, lam):
    """Window tolerance: 2^-(prec+16) divided by the factor e^{ε0 λ} that multiplies left-out mass."""
    e0 = arith.ball(mech.exp_epsilon0())
    f = e0.upper() ** int(math.ceil(float(arb(lam).upper().mid()) + 1))
    return arb(2) ** (-(ctx.prec + 16)) / f


# ============================================================ binomial windows
def binomial_window(N: int, p: NumberOrBall, *, tol: NumberOrBall | None = None) -> Windowed:
    """The law of ``Bin(N, p)`` on a window around its mode, with a certified bound on the left-out mass.

    ``p`` exact (``fmpq``) or a ball in [0, 1].  With exact ``p`` and
    ``N ≤ EXACT_MAX_N`` (or ``tol=None`` and exact ``p``) the whole support is
    returned exactly (``tail = 0``).  Otherwise the window grows from the
    mode until its certified geometric tail bound is below ``tol/2`` on each side
    (:func:`exact.laws.binomial.window_to_tail`, the shared engine's pmf ratios; one pass).  Cost O(W) ball operations for a window
    of W atoms.

    >>> binomial_window(3, fmpq(1, 2)).mass
    [1/8, 3/8, 3/8, 1/8]
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(64):
    ...     w = binomial_window(10**6, fmpq(1, 3), tol=arb(2)**-80)
    >>> len(w.mass) < 20000 and w.tail < arb(2)**-80
    True
    """
    if N < 0:
        raise InvalidArgument("N", N, "must be >= 0")
    if not isinstance(p, arb):
        p = arith.exact(p, "p")  # an exact p given as int, string or Fraction takes the exact route too
    if _exact(p):
        if p < 0 or p > 1:
            raise InvalidArgument("p", str(p), "must be in [0, 1]")
        if p == 0:
            return Windowed([fmpq(1)], 0, fmpq(0))
        if p == 1:
            return Windowed([fmpq(1)], N, fmpq(0))
        if tol is None or N <= EXACT_MAX_N:
            q = 1 - p
            mass = [fmpq(math.comb(N, j)) * p**j * q ** (N - j) for j in range(N + 1)]
            return Windowed(mass, 0, fmpq(0))
    if tol is None:
        raise InvalidArgument("tol", None, "must be given for a ball-valued p (windowed binomial)")
    if N == 0:
        return Windowed([fmpq(1)], 0, fmpq(0))
    # the shared engine (route (a)): pmf ratios from the mode, certified geometric tails, each side
    # stopped once its tail bound is below tol/2 (one pass; formerly retried with cut-offs tol/4·16^-j)
    mass, offset, tail = binomial.window_to_tail(N, p, arith.ball(tol))
    if offset == 0 and offset + len(mass) == N + 1:
        return Windowed(mass, 0, fmpq(0))  # the whole support: nothing left out
    return Windowed(mass, offset, tail)


# ============================================================ binary RR, any dataset
# windows at least this long (both) are multiplied by the exact integer product (binomial.ball_product)
FMPZ_PRODUCT_MIN = 512


def others_count_law(
    mech: KRR, n: IntegerInput, c: IntegerInput, *, tol: NumberOrBall | None = None, product: str | None = None
) -> Windowed:
    """Law of the number of 1-reports among the ``n−1`` other users, ``c`` of whom hold 1 (binary RR).

    ``Bin(c, keep) ⊛ Bin(n−1−c, flip)``; windowed, the tail bound is the sum of
    both binomials' tails (a left-out pair has at least one left-out factor).
    Cost O(W log W): windows of ball values are multiplied by one exact integer product
    (:func:`exact.laws.binomial.ball_product`, docs/numerics.md Lemma R8) when both have at least
    ``FMPZ_PRODUCT_MIN`` atoms, else by ``arb_poly``; ``product="arb"`` / ``"fmpz"`` forces one
    (both enclose the same law).

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> others_count_law(BinaryRR(exp_epsilon0=3), 3, 1).mass
    [3/16, 5/8, 3/16]
    """
    keep, flip = _binary_params(mech)
    n = arith.integer_in(n, "n", lo=1)
    c = arith.integer_in(c, "c", lo=0, hi=n - 1)
    a = binomial_window(c, keep, tol=tol)
    b = binomial_window(n - 1 - c, flip, tol=tol)
    if all(_exact(v) for v in a.mass + b.mass):
        out = [fmpq(0)] * (len(a.mass) + len(b.mass) - 1)
        for i, u in enumerate(a.mass):
            if u == 0:
                continue
            for j, v in enumerate(b.mass):
                out[i + j] += u * v
        return Windowed(out, a.offset + b.offset, fmpq(0))
    if product not in (None, "arb", "fmpz"):
        raise InvalidArgument("product", product, 'must be None, "arb" or "fmpz"')
    bits = None
    if product != "arb" and tol is not None:
        # fixed exponent s: the absolute rounding 2^-s per entry, over all L outcomes, stays below tol·2^-32
        # (entries with < 24 accurate bits are then below the moment loop's lumping threshold)
        M, E = arith.ball(tol).upper().man_exp()
        bits = -(int(E) + int(M).bit_length()) + (len(a.mass) + len(b.mass)).bit_length() + 32
    use_fmpz = product == "fmpz" or (
        product is None and min(len(a.mass), len(b.mass)) >= FMPZ_PRODUCT_MIN and bits is not None and bits <= 700
    )
    if use_fmpz:
        prod = binomial.ball_product(a.mass, b.mass, bits=bits)
    else:
        pa = arb_poly(a.mass if all(isinstance(v, arb) for v in a.mass) else [arith.ball(v) for v in a.mass])
        pb = arb_poly(b.mass if all(isinstance(v, arb) for v in b.mass) else [arith.ball(v) for v in b.mass])
        prod = (pa * pb).coeffs()
    if _exact(a.tail) and _exact(b.tail) and a.tail == 0 and b.tail == 0:
        return Windowed(prod, a.offset + b.offset, fmpq(0))
    tail = arith.ball(a.tail) + arith.ball(b.tail)
    return Windowed(prod, a.offset + b.offset, tail)


def _binary_moment_from_B(B: Windowed, keep, flip, lam, x, e0, support_max=None):
    """E_λ(D‖D') with the differing user x in D and 1−x in D', given the others' count law B."""
    px = keep if x == 1 else flip  # Pr[differing user in D reports 1]
    py = flip if x == 1 else keep  # same in D'
    mass = B.mass
    W = len(mass)
    exact_all = _exact(B.tail) and B.tail == 0
    # k ranges over offset .. offset+W (the differing user adds 0 or 1).  At a window edge that is
    # not an end of the support (0 or n−1 = support_max), the outermost k gets unknown mass from
    # outside and is left out of the sum (its mass is bounded below).
    s = fmpq(0)
    at_lo = exact_all or B.offset == 0
    at_hi = exact_all or (support_max is not None and B.offset + W - 1 == support_max)
    lo_k = 0 if at_lo else 1
    hi_k = W if at_hi else W - 1
    for j in range(lo_k, hi_k + 1):
        b0 = mass[j] if j < W else fmpq(0)
        b1 = mass[j - 1] if j >= 1 else fmpq(0)
        P = _add(_mul(b0, 1 - px), _mul(b1, px))
        Q = _add(_mul(b0, 1 - py), _mul(b1, py))
        if _exact(P) and P == 0:
            continue
        s = _add(s, _mul(Q, _pow(P / Q, lam)))
    if exact_all:
        return s
    # left-out P-mass: B's tail plus the two edge atoms (their mass may land outside the summed range)
    up, down = _binary_window_error(B, mass, at_lo, at_hi, lam, e0)
    sb = arith.ball(s)
    return (sb - down).union(sb + up)


def moment_binary(
    mech: KRR, n: IntegerInput, c: IntegerInput, *, order: NumberInput, x: int = 1, tol: NumberOrBall | None = None
) -> Enclosure:
    """Rényi moment ``E_λ(D‖D')`` of shuffled binary RR; ``D`` = (c ones among n−1 others, differing user ``x``), ``D'`` the same with ``1−x``.

    ``order`` λ > 1 (integer or not).  Exact for exact ``mech`` (rational
    ``e^{ε0}``), integer λ and ``n ≤ EXACT_MAX_N``; otherwise a ball with the
    window error included (see the module docstring).  Cost O(W log W).

    Theorem 3.4 of Girgis et al. is ``moment_binary(mech, n, 0, order=λ, x=1)``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> moment_binary(BinaryRR(exp_epsilon0=1), 5, 2, order=3)   # ε0 = 0: no information
    1
    """
    keep, flip = _binary_params(mech)
    n = arith.integer_in(n, "n", lo=1)
    c = arith.integer_in(c, "c", lo=0, hi=n - 1)
    lam = parse_order(order)
    if x not in (0, 1):
        raise InvalidArgument("x", x, "must be 0 or 1 (the differing user's value in D)")
    return _moments_binary(mech, n, c, lam, (x,), tol)[0]


def _moments_binary(mech, n, c, lam, xs, tol=None):
    """The moments for the directions ``xs`` on dataset ``c`` (one count law shared)."""
    keep, flip = mech.keep(), mech.flip()
    e0 = mech.exp_epsilon0()
    exact_mode = _exact(e0) and _is_int(lam) and n <= EXACT_MAX_N
    if exact_mode:
        B = others_count_law(mech, n, c)
    else:
        B = others_count_law(mech, n, c, tol=tol if tol is not None else _tol_for(mech, lam))
    if not exact_mode and set(xs) <= {0, 1}:
        both = _binary_moments_balls(B, keep, flip, lam, e0, n - 1)
        return [both[x] for x in xs]
    return [_binary_moment_from_B(B, keep, flip, lam, x, e0, n - 1) for x in xs]


def _binary_moments_balls(B: Windowed, keep, flip, lam, e0, support_max):
    """Both directions at once on balls: ``{1: Σ Q r^λ, 0: Σ P r^{−λ}}`` with ``P``/``Q`` the laws for x = 1 / x = 0.

    Same enclosure as :func:`_binary_moment_from_B` (same summed range and
    the same left-out bound), one pass: swapping the differing user's value
    swaps ``P`` and ``Q``.  O(W) ball operations.
    """
    mass = B.mass if all(isinstance(v, arb) for v in B.mass) else [arith.ball(v) for v in B.mass]
    W = len(mass)
    zero = arb(0)
    exact_all = _exact(B.tail) and B.tail == 0
    at_lo = exact_all or B.offset == 0
    at_hi = exact_all or B.offset + W - 1 == support_max
    lo_k = 0 if at_lo else 1
    hi_k = W if at_hi else W - 1
    kb, fb = arith.ball(keep), arith.ball(flip)
    kint = _int_order(lam)  # None for a non-integer λ
    lamb = arb(lam)
    s1 = arb(0)
    s0 = arb(0)
    # a ball that may contain 0 or be wide (an outcome far in the tails, from the integer product's
    # absolute rounding, Lemma R8): the true P, Q are ≥ 0 with P/Q in [e^-ε0, e^ε0], so Q r^λ = P r^{λ-1}
    # lies in [0, P·e^{ε0(λ-1)}] and P r^-λ = Q r^{-(λ-1)} in [0, Q·e^{ε0(λ-1)}] (used when the ratio ball
    # is not inside [e^-ε0, e^ε0] or its power may contain 0; the arb_poly route's balls never get there)
    cap = _pow(arith.ball(e0).upper(), lam - 1)
    ratio_range = (1 / arith.ball(e0)).lower().union(arith.ball(e0).upper())

    def guarded(j0, j1, s1, s0):
        for j in range(j0, j1):
            b0 = mass[j] if j < W else zero
            b1 = mass[j - 1] if j >= 1 else zero
            P = b0 * fb + b1 * kb
            Q = b0 * kb + b1 * fb
            t = None
            if P > 0 and Q > 0:
                r = P / Q
                if ratio_range.contains(r):
                    t = r**kint if kint is not None else (r.log() * lamb).exp()
            if t is None or not t > 0:
                s1 += zero.union(P.upper() * cap)
                s0 += zero.union(Q.upper() * cap)
                continue
            s1 += Q * t
            s0 += P / t
        return s1, s0

    # the guarded loop only where a mass ball is not accurate (a prefix and a suffix: the balls of the
    # integer product are poor only far in the tails); the plain loop in between, and the guarded loop
    # everywhere if that gives a non-finite ball (any finite ball result is a valid enclosure)
    # (lumped only below thr: all lumped atoms together weigh < 2^-(prec+24)/cap, far below the window error)
    thr = arb(2) ** (-(ctx.prec + 24)) / ((W + 1) * cap)

    def poor(x):
        return x.rel_accuracy_bits() < 24 and x < thr

    # P, Q at j use mass[j] and mass[j-1]: the plain loop gets the j whose two atoms are not poor
    p = 0
    while p < W and poor(mass[p]):
        p += 1
    if p == W:
        g_lo = g_hi = hi_k + 1
    else:
        q = W - 1
        while q > p and poor(mass[q]):
            q -= 1
        g_lo = max(lo_k, p + 1 if p > 0 else lo_k)
        g_hi = max(g_lo, min(hi_k + 1, q + 1 if q < W - 1 else hi_k + 1))
    m1, m0 = arb(0), arb(0)
    for j in range(g_lo, g_hi):
        b0 = mass[j] if j < W else zero
        b1 = mass[j - 1] if j >= 1 else zero
        P = b0 * fb + b1 * kb  # differing user holds 1: reports 1 w.p. keep
        Q = b0 * kb + b1 * fb  # differing user holds 0
        if kint is not None:
            t = (P / Q) ** kint
        else:
            t = ((P / Q).log() * lamb).exp()
        m1 += Q * t
        m0 += P / t
    if m1.is_finite() and m0.is_finite():
        # the inaccurate prefix and suffix, lumped: Σ_j P_j and Σ_j Q_j over j in [j0, j1) are at most the
        # mass of the atoms j0−1 .. j1−1 (keep + flip = 1), so these terms add [0, cap·that mass] (as above)
        s1, s0 = s1 + m1, s0 + m0
        for j0, j1 in ((lo_k, g_lo), (g_hi, hi_k + 1)):
            if j1 > j0:
                lump = zero.union(sum(mass[max(j0 - 1, 0) : min(j1, W)], arb(0)).upper() * cap)
                s1 += lump
                s0 += lump
    else:
        s1, s0 = guarded(lo_k, hi_k + 1, s1, s0)
    if exact_all:
        return {1: s1, 0: s0}
    up, down = _binary_window_error(B, mass, at_lo, at_hi, lam, e0)
    return {1: (s1 - down).union(s1 + up), 0: (s0 - down).union(s0 + up)}


def sweep_block(n: int) -> int:
    """Datasets per block of the float scan at ``n`` users: ``2^round(log₂(√n/8))`` within ``[16, SWEEP_BLOCK]``.

    A block costs ``3·W_a·W_b`` for its three window convolutions plus ``O(B·W)`` per dataset (the
    ``B × B`` by ``B × W`` product and the element-wise terms), so the best ``B`` grows like ``√W ∝ n^{1/4}``;
    measured on the project machine: 16–32 at n = 10^4, 32 at 10^5, 64–128 at 10^6 (flat there).  A
    function of ``n`` only, so every executor cuts the same blocks.

    >>> sweep_block(10**4), sweep_block(10**5), sweep_block(10**6)
    (16, 32, 128)
    """
    return max(16, min(SWEEP_BLOCK, 2 ** round(math.log2(max(math.sqrt(n) / 8, 1)))))


def _scan_block(mech, n: int, lam, start: int, stop: int, block: int | None = None) -> tuple:
    """One block of the worst-case sweep (module level: shipped to worker processes / a Dask cluster).

    Returns ``(start, lo, hi)``: float arrays of shape ``(stop − start, 2)`` (column ``x`` = the
    direction) with ``lo ≤ E_λ(c, x) − 1 ≤ hi`` (outward-rounded ends of certified enclosures of the
    *excess*).  Integer λ: the excess kernel (:func:`float_excess_block`, Lemmas R5–R7) in sub-blocks
    of ``block`` datasets (default :func:`sweep_block`, the fastest size at ``n``; any size certifies the
    same); where it refuses, the moment kernel (:func:`float_moments_binary_block`,
    its bounds minus 1 rounded outward); otherwise, or where neither float proof applies, the ball
    route at the current precision (``E − 1`` in ball arithmetic).  BLAS runs on one thread here
    (:func:`_one_blas_thread`).  Cost O((stop − start)·(W_a·W_b/B + B·W + W log λ)) float operations.
    """
    with _one_blas_thread():
        return _scan_block_body(mech, n, lam, start, stop, sweep_block(n) if block is None else block)


def _one_blas_thread():
    """A context limiting BLAS (numpy's ``@``) to one thread in this process (threadpoolctl).

    The scan's matrix products are small (``SWEEP_BLOCK × SWEEP_BLOCK`` by ``SWEEP_BLOCK × W``); the
    parallelism is over blocks (one process per core), and a multi-threaded BLAS inside every worker only
    oversubscribes the cores (measured: ≈ 4× the CPU time per product on the shared 2-core machine).
    Changes no value: the products' error bound (Lemma R6) holds for any summation order."""
    return threadpool_limits(limits=1, user_api="blas")


def _scan_block_body(mech, n: int, lam, start: int, stop: int, block: int) -> tuple:

    inf = np.inf
    lo = np.empty((stop - start, 2))
    hi = np.empty((stop - start, 2))
    c = start
    while c < stop:
        B = min(block, stop - c)
        i = c - start
        try:
            lo1, hi1, lo0, hi0 = float_excess_block(mech, n, c, B, lam)
        except FloatRouteUnavailable:
            try:
                lo1, hi1, lo0, hi0 = float_moments_binary_block(mech, n, c, B, lam, bounds=True)
                lo1, lo0 = (np.nextafter(v - 1.0, -inf) for v in (lo1, lo0))
                hi1, hi0 = (np.nextafter(v - 1.0, inf) for v in (hi1, hi0))
            except FloatRouteUnavailable:
                lo1, hi1, lo0, hi0 = (np.empty(B) for _ in range(4))
                for j, cc in enumerate(range(c, c + B)):
                    # the ball route can take seconds per dataset (large λ): honour --time-budget inside a block
                    check_time(f"Rényi worst case, n = {n}, λ = {lam}: scan", f"{cc - start}/{stop - start}")
                    m1, m0 = _moments_binary(mech, n, cc, lam, (1, 0))
                    x1, x0 = arith.ball(m1) - 1, arith.ball(m0) - 1
                    lo1[j], hi1[j], lo0[j], hi0[j] = _down(x1), _up_f(x1), _down(x0), _up_f(x0)
        lo[i : i + B, 1], hi[i : i + B, 1], lo[i : i + B, 0], hi[i : i + B, 0] = lo1, hi1, lo0, hi0
        c += B
        check_time(f"Rényi worst case, n = {n}, λ = {lam}: scan", f"{c - start}/{stop - start}")
    return start, lo, hi


def _div_from_moment(m: Enclosure, lam: fmpq) -> Enclosure:
    if _exact(m) and m == 1:
        return fmpq(0)
    return arith.ball(m).log() / (arb(lam) - 1)


@dataclass(frozen=True)
class RenyiValue:
    """A certified Rényi divergence and where it is attained.

    ``value``: ball (or exact 0) enclosing D_λ; ``moment``: enclosure of the
    Rényi moment E_λ; ``c``: the dataset (number of ones among the others,
    binary RR) or ``None``; ``x``: the differing user's value in ``D`` (the
    direction); ``order``: λ.
    """

    value: Enclosure
    moment: Enclosure
    order: fmpq
    c: int | None = None
    x: int | None = None
    family: str | None = None
    #: worst case only: candidate datasets not recomputed in balls (their scan bounds enter ``value``)
    unresolved: int = 0


def _max_ball(vals: list) -> Enclosure:
    """Enclosure of the max of enclosures (exact when all exact)."""
    if all(_exact(v) for v in vals):
        return max(vals)
    out = arith.ball(vals[0])
    for v in vals[1:]:
        out = out.max(arith.ball(v))
    return out


def renyi_binary(
    mech: KRR, n: IntegerInput, c: IntegerInput, *, order: NumberInput, tol: NumberOrBall | None = None
) -> RenyiValue:
    """``D_λ`` of shuffled binary RR on the dataset with ``c`` ones among the others, max over both directions.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(64):
    ...     r = renyi_binary(BinaryRR(epsilon0="1"), 10**6, 0, order=2)
    >>> 0 < r.value < arb("1e-5")
    True
    """
    _check_mech(mech)
    _binary_params(mech)
    n = arith.integer_in(n, "n", lo=1)
    c = arith.integer_in(c, "c", lo=0, hi=n - 1)
    lam = parse_order(order)
    m1, m0 = _moments_binary(mech, n, c, lam, (1, 0), tol)
    # which direction is larger (if decided); the value is the max either way
    x = 1 if arith.ge(m1, m0) else (0 if arith.gt(m0, m1) else None)
    m = _max_ball([m1, m0])
    return RenyiValue(_div_from_moment(m, lam), m, lam, c=c, x=x)


def worst_cost(n: int, order: NumberInput, *, workers: int = 1) -> tuple[float, int]:
    """``(wall seconds, peak bytes)`` model of :func:`renyi_binary_worst` on ``workers`` cores.

    Calibrated on the project machine (2 shared cores): the float scan costs about 0.5 CPU seconds
    at n = 10^4 and grows like n^{3/2} (n/2 datasets, O(B·W) each, W ∝ √n; measured 16 CPU s at
    10^5 and 390 CPU s at 10^6 under heavy load); the ball scan (non-integer λ) about 30× more.  Memory: one 4-tuple per dataset and direction (~300 bytes
    per dataset) plus the windows.  A model, not a measurement.
    """
    lam = parse_order(order)
    base = 0.5 if _int_order(lam) is not None else 18.0
    seconds = base * (n / 1e4) ** 1.5 / max(1, workers)
    nbytes = 300 * n + 100 * 2**20
    return seconds, nbytes


def check_worst_cost(
    n: int, order: NumberInput, *, workers: int | None = None, scheduler: Any = None
) -> tuple[float, int]:
    """Raise :class:`exact.runtime.budget.TooExpensive` (naming the estimate and the options) before a worst-case
    sweep that cannot finish within ``BLANKET_MAX_SECONDS`` or the available memory; else the estimate."""

    if n <= 4096:
        return worst_cost(n, order)
    cores, where = executor_cores(workers, scheduler)
    seconds, nbytes = worst_cost(n, order, workers=cores)
    return refuse_over_limits(
        seconds,
        nbytes,
        what=f"the exact Rényi worst case over all {n} datasets",
        where=where,
        options="a Dask cluster (--scheduler tcp://HOST:8786), one dataset (--dataset c=INT, e.g. c=0: "
        "a certified lower bound), or a registered upper bound (--bound 'GDDSK21 Theorem 3.3')",
    )


def renyi_binary_worst(
    mech: KRR,
    n: IntegerInput,
    *,
    order: NumberInput,
    scan_prec: int = 53,
    progress: bool | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    task_size: int | None = None,
    recompute_max: int = RECOMPUTE_MAX,
) -> RenyiValue:
    """The exact worst case of ``D_λ`` of shuffled binary RR over all neighbouring datasets.

    Datasets are determined by ``c`` (ones among the others) and the
    direction; flipping 0↔1 maps ``(c, x)`` to ``(n−1−c, 1−x)`` so
    ``c ≤ ⌊(n−1)/2⌋`` with both directions covers all.  Rigorous pruning:
    every ``c`` is first enclosed cheaply (the *scan*, on the excess ``E − 1``:
    integer λ by the float excess kernel in blocks sharing one convolution,
    :func:`float_excess_block`, about ``10⁻¹³·√n`` relative on ``E − 1`` — the
    moment itself, ``E ≈ 1``, would keep only ``10⁻¹²/(E − 1)``, too little to
    separate datasets at large n; otherwise balls at ``scan_prec`` bits);
    those whose upper end is below the largest certified lower end
    cannot be the maximum; the rest are recomputed by the ball route at the
    caller's precision.  The returned value is the max of enclosures, so it
    encloses the true maximum; ``c``/``x`` name the dataset whose enclosure
    has the largest upper end (with unresolved candidates, see below: the
    recomputed dataset with the largest lower end).  At most ``recompute_max`` candidates are
    recomputed (largest upper ends first); when more survive the pruning
    (at large n many datasets near c = 0 differ by less than the scan's
    width), the others' certified upper ends enter the maximum, so the
    enclosure stays certified but is only as narrow as the pruning's bounds;
    ``RenyiValue.unresolved`` counts them.

    The scan is split into independent blocks of ``c`` (``task_size``
    datasets each) run by :func:`exact.runtime.executors.map_blocks`: ``workers``
    local processes (``None``: every core) or a Dask cluster
    (``scheduler``); the result does not depend on the executor.
    ``progress``: ``None`` (a bar on a terminal), ``False`` or ``True``.

    Cost: O(n·B·W) float operations for the scan (``B`` =
    :data:`SWEEP_BLOCK`, ``W = O(√(n log(1/tol)))``; O(n·W log W) ball
    operations for non-integer λ), plus O(W log W) per surviving dataset.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> r = renyi_binary_worst(BinaryRR(exp_epsilon0=2), 6, order=2)
    >>> r.c, r.x, r.moment
    (0, 0, 11191/10206)
    """

    mech = _check_mech(mech)
    _binary_params(mech)
    n = arith.integer_in(n, "n", lo=1)
    lam = parse_order(order)
    cs = range(0, (n - 1) // 2 + 1)
    e0 = mech.exp_epsilon0()
    exact_mode = _exact(e0) and _is_int(lam) and n <= EXACT_MAX_N
    if exact_mode:
        best: tuple | None = None
        for c in cs:
            for x, m in zip((0, 1), _moments_binary(mech, n, c, lam, (0, 1))):
                if best is None or m > best[0]:
                    best = (m, c, x)
        assert best is not None  # cs is never empty (n >= 1)
        m, c, x = best
        return RenyiValue(_div_from_moment(m, lam), m, lam, c=c, x=x)
    check_worst_cost(n, lam, workers=workers, scheduler=scheduler)
    final_prec = ctx.prec
    integer = _int_order(lam) is not None
    if task_size is None:
        task_size = sweep_block(n) * 8 if integer else 256
    ranges = block_ranges(len(cs), max(1, -(-len(cs) // task_size)))
    tasks = [(mech, n, lam, a, b) for a, b in ranges]
    if len(tasks) <= 1:
        workers = 1
    label = f"Rényi worst case, n = {n}, λ = {lam}: scan"
    # the float route takes its anchors at >= 128 bits; the ball fallback scans at scan_prec
    with arith.precision(max(final_prec, 128) if integer else scan_prec):
        parts = map_blocks(
            _scan_block,
            tasks,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            desc=label,
            sizes=[b - a for a, b in ranges],
        )
    best_lo = max(float(lo.max()) for _, lo, _ in parts)
    survivors = []  # (certified upper end of E − 1, c, x)
    for start, _lo, hi in parts:
        for i, x in zip(*np.nonzero(hi >= best_lo)):
            survivors.append((float(hi[i, x]), start + int(i), int(x)))
    # the candidates with the largest upper ends first; beyond `recompute_max` of them the scan's own
    # (certified, wider) upper ends enter the maximum instead of a recomputation
    survivors.sort(key=lambda t: (-t[0], t[1], -t[2]))
    todo, rest = survivors[:recompute_max], survivors[recompute_max:]
    results = []
    with arith.precision(final_prec):
        with Progress(
            len(todo),
            f"Rényi worst case, n = {n}: {len(todo)} candidate datasets at {final_prec} bits",
            enabled=progress,
        ) as bar:
            for _, c, x in todo:
                results.append((moment_binary(mech, n, c, order=lam, x=x), c, x))
                bar.update(1)
        m = _max_ball([r[0] for r in results])
        if rest:
            hi_rest = 1 + arb(max(h for h, _, _ in rest))  # the keys are upper ends of E − 1 (exact sum in arb)
            m = arith.ball(m)
            if not (hi_rest <= m.upper()):
                m = m.union(arb(m.lower()).union(hi_rest))
        if rest:  # the maximiser is not resolved: name a dataset with the largest certified lower end
            top = max(results, key=lambda r: arith.ball(r[0]).lower())
        else:
            top = max(results, key=lambda r: arith.ball(r[0]).upper())
        return RenyiValue(_div_from_moment(m, lam), m, lam, c=top[1], x=top[2], unresolved=len(rest))


# ============================================================ i.i.d. others: k-RR families
class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _nested_moment(n, probs, S_num, S_den, lam, e0, tol, exact_mode):
    """``E_{h~Mult(n, probs ∪ rest)}[S_num(h)^λ S_den(h)^{1−λ}]/n`` over the first ``len(probs)`` counts.

    ``probs``: cell probabilities of the tracked counts (the remainder cell
    has probability ``1 − Σ probs``, possibly 0).  Nested conditional
    binomials; returns ``(window_sum, left_out_mass_bound)``.
    """
    d = len(probs)
    total = fmpq(0)
    left_out = fmpq(0) if exact_mode else arb(0)

    def rec(level, counts, remaining, weight, rest_p):
        nonlocal total, left_out
        if level == d:
            if not (_exact(rest_p) and rest_p == 0) or remaining == 0:
                pass
            if _exact(rest_p) and rest_p == 0 and remaining != 0:
                return
            h = counts
            a = S_num(h)
            b = S_den(h)
            if _exact(a) and a == 0:
                return
            total = _add(total, _mul(weight, _mul(b, _pow(a / b, lam))))
            return
        p = probs[level]
        cond = p / rest_p if not (_exact(rest_p) and rest_p == 1) else p
        if _exact(cond) and cond > 1:
            cond = fmpq(1)
        w = binomial_window(remaining, cond, tol=None if exact_mode else tol)
        if not exact_mode:
            if not (_exact(w.tail) and w.tail == 0):
                left_out = left_out + _mul(weight, arith.ball(w.tail))
        last_rest = rest_p - p
        if not exact_mode and level == d - 1 and not (_exact(last_rest) and last_rest == 0):
            # innermost level on balls: S and S' are affine in the last count j (one pass, no recursion)
            s0 = arith.ball(S_num(counts + (0,)))
            s1 = arith.ball(S_num(counts + (1,))) - s0
            t0 = arith.ball(S_den(counts + (0,)))
            t1 = arith.ball(S_den(counts + (1,))) - t0
            kint = _int_order(lam)  # None for a non-integer λ
            lamb = arb(lam)
            acc = arb(0)
            for i, pm in enumerate(w.mass):
                j = w.offset + i
                a = s0 + s1 * j
                b = t0 + t1 * j
                r = a / b
                acc += pm * b * (r**kint if kint is not None else (r.log() * lamb).exp())
            total = _add(total, _mul(weight, acc))
            return
        bar = Progress(len(w.mass), f"Renyi moment, nested windows ({d} counts)") if level == 0 else None
        with bar if bar is not None else _NoBar():
            for i, pm in enumerate(w.mass):
                j = w.offset + i
                if bar is not None:
                    bar.update(1)
                if _exact(pm) and pm == 0:
                    continue
                rec(level + 1, counts + (j,), remaining - j, _mul(weight, pm), last_rest)

    rec(0, (), n, fmpq(1), fmpq(1))
    return total / n, left_out


def _family_setup(mech, family):
    keep, flip = mech.keep(), mech.flip()
    k = mech.k
    rx: tuple[fmpq, ...]
    rxp: tuple[fmpq, ...]
    if family == "same":  # others hold x (the value of the differing user in D)
        # tracked counts: (h_x, h_x'); mu_z = row x
        probs = [keep, flip]
        rx = (fmpq(1), fmpq(1))  # mu_x(y)/mu_z(y) for y = x, x'; rest 1
        rxp = (flip / keep, keep / flip)
    elif family == "neighbour":  # others hold x'
        probs = [flip, keep]
        rx = (keep / flip, flip / keep)
        rxp = (fmpq(1), fmpq(1))
    elif family == "third":
        if k < 3:
            raise InvalidArgument("family", family, "needs k >= 3 (a value other than the two differing ones)")
        # tracked counts (h_x, h_x', h_z); mu_z = row z
        probs = [flip, flip, keep]
        rx = (keep / flip, fmpq(1), flip / keep)
        rxp = (fmpq(1), keep / flip, flip / keep)
    else:
        raise InvalidArgument("family", family, f"must be one of {', '.join(FAMILIES)}")
    if k == 2 and family in ("same", "neighbour"):
        probs = probs[:1]
    if k == 3 and family == "third":
        probs = probs[:2]
        # remainder cell = z
    return probs, rx, rxp


def _S_factory(n, rx, probs_len, k, family):
    """S(h) = Σ_y (mu_x(y)/mu_z(y)) h_y with the untracked cells' ratio."""
    # untracked cells: ratio of the last tracked-out coordinates
    if family in ("same", "neighbour"):
        rest_ratio = fmpq(1)
        full = rx  # ratios for (x, x')
        if k == 2:
            # h_x' = n - h_x
            def S(h):
                return _add(_mul(full[0], fmpq(h[0])), _mul(full[1], fmpq(n - h[0])))

            return S
    else:
        full = rx  # (x, x', z)
        if k == 3:

            def S(h):
                return _add(
                    _add(_mul(full[0], fmpq(h[0])), _mul(full[1], fmpq(h[1]))), _mul(full[2], fmpq(n - h[0] - h[1]))
                )

            return S
        rest_ratio = fmpq(1)

    def S_general(h):
        out = fmpq(n - sum(h)) * rest_ratio
        for r, hy in zip(full, h):
            out = _add(out, _mul(r, fmpq(hy)))
        return out

    return S_general


def moment_krr_family_nested(
    mech: KRR, n: int, family: str, *, order: NumberInput, x_in_D: str = "x", tol: NumberInput | None = None
) -> Enclosure:
    """Rényi moment of shuffled k-RR on a dataset family, one direction: the nested-window (reference) route.

    ``family``: ``"same"`` (the n−1 others hold the value ``x`` of the
    differing user in ``D``), ``"neighbour"`` (they hold ``x'``, its value in
    ``D'``), ``"third"`` (they hold a third value ``z``, k ≥ 3).  The moment is
    ``E_{h~M(D')}[(M(D)(h)/M(D')(h))^λ]``.  By the symmetry of k-RR the
    labels do not matter.  Uses the i.i.d. engine (module docstring);
    exact for exact mechanisms, integer λ and ``n ≤ EXACT_MAX_N``.
    Cost O(W^d), ``d`` = 1 (k = 2), 2 (same/neighbour, or third with k = 3),
    3 (third with k ≥ 4).

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> from blanket.exact.accounting.renyi import moment_binary
    >>> rr = BinaryRR(exp_epsilon0=3)
    >>> moment_krr_family_nested(rr, 4, "same", order=2) == moment_binary(rr, 4, 0, order=2, x=0)
    True
    """
    mech = _check_mech(mech)
    n = arith.integer_in(n, "n", lo=1)
    lam = parse_order(order)
    if family not in FAMILIES:
        raise InvalidArgument("family", family, f"must be one of {', '.join(FAMILIES)}")
    probs, rx, rxp = _family_setup(mech, family)
    k = mech.k
    S = _S_factory(n, rx, len(probs), k, family)
    Sp = _S_factory(n, rxp, len(probs), k, family)
    e0 = mech.exp_epsilon0()
    exact_mode = _exact(e0) and _is_int(lam) and n <= EXACT_MAX_N
    if tol is None and not exact_mode:
        tol = _tol_for(mech, lam)
    s, left = _nested_moment(n, probs, S, Sp, lam, e0, tol, exact_mode)
    if exact_mode or (_exact(left) and left == 0) or (isinstance(left, arb) and left.is_zero()):
        return s
    # left-out terms: Q(h)·S'(h)/n·r^λ ≤ e^{ε0 λ}·Q(h)  (S/n ≤ e^{ε0}, r ≤ e^{ε0})
    extra = _pow(arith.ball(e0), lam) * arith.ball(left)
    sb = arith.ball(s)
    return sb.union(sb + extra.upper())


# ============================================================ binomial central moments (Theorem 3.4)
_BERN_CUMULANTS = [fmpq_poly([0, 1])]  # κ_1(p) = p


def bernoulli_cumulant(r: int) -> fmpq_poly:
    """The r-th cumulant of Bernoulli(p) as an exact polynomial in p: κ_1 = p, κ_{r+1} = p(1−p)κ_r'(p).

    >>> bernoulli_cumulant(3)
    2*x^3 + (-3)*x^2 + x
    """
    if r < 1:
        raise InvalidArgument("r", r, "must be >= 1")
    pq = fmpq_poly([0, 1, -1])
    while len(_BERN_CUMULANTS) < r:
        _BERN_CUMULANTS.append(pq * _BERN_CUMULANTS[-1].derivative())
    return _BERN_CUMULANTS[r - 1]


def binomial_central_moment(n: NumberOrBall, p: NumberOrBall, i: int) -> Enclosure:
    """``E[(K − np)^i]`` for ``K ~ Bin(n, p)``: exact for exact ``n, p``, a ball otherwise.

    Computed from the cumulants ``κ_r = n·κ_r(Bernoulli(p))`` by the moment–cumulant
    recursion ``μ_m = Σ_{j=0}^{m−2} C(m−1, j) κ_{m−j} μ_j`` (μ_0 = 1, μ_1 = 0).
    Cost O(i²) — independent of n.

    >>> binomial_central_moment(10, fmpq(1, 4), 3)   # n p (1-p)(1-2p)
    15/16
    """
    i = int(i)
    if i < 0:
        raise InvalidArgument("i", i, "must be >= 0")
    kap = [None] + [_mul(n, _eval_poly(bernoulli_cumulant(r), p)) for r in range(1, i + 1)]
    mu = [fmpq(1), fmpq(0)]
    for m in range(2, i + 1):
        s = fmpq(0)
        for j in range(0, m - 1):
            s = _add(s, _mul(fmpq(math.comb(m - 1, j)), _mul(kap[m - j], mu[j])))
        mu.append(s)
    return mu[i]


def _eval_poly(poly: fmpq_poly, p):
    coeffs = poly.coeffs()
    out = fmpq(0)
    for cf in reversed(coeffs):
        out = _add(_mul(out, p), fmpq(cf))
    return out
