"""Discrete and truncated discrete Laplace laws, Pólya shares, and the Cheu–Yan relaxed aggregator.

This module is the exact side of the Cheu–Yan paper (reference
``docs/reference/pure_dp.md``, paper key CY21).

Parametrisation
---------------
Every law here is parametrised by the ratio ``r = e^{-1/s}``.  Pass **either**
``r`` (an exact rational in (0, 1): every mass is then an exact ``fmpq``, the
route the tests use) **or** the scale ``s`` (an exact positive number: ``r``
is then an ``arb`` ball at the current precision).  See :func:`ratio`.

Laws
----
* ``DLap(mu, s)``: ``Pr[z] = (1-r)/(1+r) r^{|z-mu|}`` on the integers
  (:func:`dlap_pmf`, :func:`dlap_tail`); status *derived* (standard).
* ``TDLap(mu, s, tau)``: ``Pr[z] = r^{|z-mu|} / Z_tau`` for ``|z-mu| <= tau``
  with the closed-form normaliser ``Z_tau = (1 + r - 2 r^{tau+1})/(1-r)``
  (:func:`tdlap_normaliser`, :func:`tdlap_masses`); status *derived*,
  argument order uncertain in the paper.
* ``Pólya(alpha, r)`` (negative binomial with real shape) and the Fact 2.4
  check that ``n`` i.i.d. shares ``Pólya(1/n, r) - Pólya(1/n, r)`` sum to
  ``DLap(s)`` (:func:`polya_masses`, :func:`polya_share_check`).

The relaxed aggregator (Section 3) — *this project's reading*
----------------------------------------------------------------
The paper's Section 3 formulas are not available; the reference (``docs/reference/pure_dp.md``) fixes one reading
and every object below is a **statement in this project's reading of the
construction**.  :class:`RelaxedAggregator` holds, for each input
``x in Z_m``, the mixture ``hat D_x = (1-q) D_x + q E_x`` on ``{0..ell}``,
``ell = m(2 tau + 1) - 1``, of

* the lattice component ``D_x[x + m(tau+z)] = T[z]``, ``T = TDLap(s, tau)``
  (:func:`lattice_component`), and
* the mirrored component ``E_x[y] ∝ r^{-|y - mu_x|/m}``, ``mu_x = x + m tau``
  (:func:`mirrored_component`),

or **any user-supplied component** (``component=`` a callable ``x -> masses``
or a sequence of ``m`` mass vectors), so that the printed construction can be
plugged in.  The shuffled output is equivalent to the total count
``S(x) = sum_i eta_i`` whose law is the convolution of the users' mixtures;
the analyzer outputs ``S mod m``.

Convolutions use ``flint.fmpq_poly`` (exact) or ``flint.arb_poly`` (balls):
C-speed multiplication, ``O(L log L)``-ish in the support size ``L`` (ball
multiplication in arb is block-wise and keeps each coefficient's *relative*
accuracy).  Supports are tracked separately with exact 0/1 integer
convolutions (``fmpz_poly``) so that a structurally zero mass is an exact
zero, never a ball that merely contains 0: the LLR distance is ``None``
(= +∞) exactly when the supports differ.

Exactness of the mirrored component: ``E_x`` needs ``rho = r^{1/m}``; it is an
exact rational when ``r`` is the ``m``-th power of a rational (use
:func:`r_from_rho` to build such an ``r``), otherwise a ball.

>>> from flint import fmpq
>>> agg = RelaxedAggregator(3, 2, q=fmpq(1, 10), r=r_from_rho(fmpq(9, 10), 3))
>>> agg.exact
True
>>> agg.pair_llr(0, 0) == 0
True
>>> RelaxedAggregator(3, 2, q=0, r=fmpq(1, 2)).pair_llr(1, 2) is None   # q = 0: infinite LLR
True
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from blanket.exact.laws.divergences import hockey_stick
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from blanket.exact.runtime.progress import Progress
from flint import arb, arb_poly, fmpq, fmpq_poly, fmpz_poly
from sympy import integer_nthroot

__all__ = [
    "ratio",
    "r_from_rho",
    "dlap_pmf",
    "dlap_tail",
    "dlap_moment",
    "tdlap_normaliser",
    "tdlap_masses",
    "tdlap_pmf",
    "tdlap_moment",
    "geo_moment",
    "polya_masses",
    "polya_share_check",
    "PolyaCheck",
    "lattice_component",
    "mirrored_component",
    "RelaxedAggregator",
    "llr_exact_or_ball",
    "max_ratio",
    "analyzer",
    "Groups",
    "pairwise_llr_certified",
]


# ============================================================ parameters
def ratio(*, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``r = e^{-1/s}``: exact ``fmpq`` when ``r`` is given (0 < r < 1), a ball when ``s`` is given (s > 0).

    >>> ratio(r="1/2")
    1/2
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(64):
    ...     ratio(s=1)
    [0.367879441171442322 +/- ...]
    >>> ratio(s=0)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: s must be > 0, got 0
    """
    if (s is None) == (r is None):
        raise InvalidArgument("s", s, "must be given (or r = e^{-1/s} instead), not both or neither")
    if r is not None:
        if isinstance(r, arb):
            if not (r > 0 and r < 1):
                raise InvalidArgument("r", str(r), "must be certainly in (0, 1)")
            return r
        return arith.exact_in(r, "r", lo=0, hi=1, lo_open=True, hi_open=True)
    if isinstance(s, arb):
        if not (s > 0):
            raise InvalidArgument("s", str(s), "must be certainly > 0")
        return (-1 / s).exp()
    sq = arith.exact_in(s, "s", lo=0, lo_open=True)
    return (-arb(1) / arb(sq)).exp()


def r_from_rho(rho: NumberOrBall, m: int) -> fmpq:
    """``r = rho^m`` for a rational ``rho`` in (0, 1): an ``r`` whose mirrored components are exact.

    >>> r_from_rho("1/2", 3)
    1/8
    """
    rq = arith.exact_in(rho, "rho", lo=0, hi=1, lo_open=True, hi_open=True)
    return rq ** arith.integer_in(m, "m", lo=1)


def _nth_root_exact(x: fmpq, m: int) -> fmpq | None:
    """The exact rational ``m``-th root of ``x > 0`` if there is one, else ``None``."""

    p, ok1 = integer_nthroot(int(x.p), m)
    q, ok2 = integer_nthroot(int(x.q), m)
    return fmpq(int(p), int(q)) if (ok1 and ok2) else None


def _is_exact(v: object) -> TypeGuard[fmpq]:
    return isinstance(v, fmpq)


def _is_zero(v) -> bool:
    """Certainly zero: an exact 0, or a ball of radius 0 centred at 0."""
    t = type(v)
    if t is arb:
        return v.is_zero()
    if t is fmpq:
        return v == 0
    return isinstance(v, arb) and v.is_zero() or isinstance(v, fmpq) and v == 0


def _tau(tau) -> int:
    return arith.integer_in(tau, "tau", lo=0)


# ============================================================ discrete Laplace
def dlap_pmf(z: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None, mu: int = 0) -> Enclosure:
    """``DLap(mu, s)[z] = (1-r)/(1+r) r^{|z-mu|}`` (status: derived, standard).  O(log |z|).

    >>> dlap_pmf(0, r="1/2"), dlap_pmf(-2, r="1/2")
    (1/3, 1/12)
    """
    rr = ratio(s=s, r=r)
    z = arith.integer_in(z, "z")
    return (1 - rr) / (1 + rr) * rr ** abs(z - int(mu))


def dlap_tail(t: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``Pr[|Z| > t] = 2 r^{t+1}/(1+r)`` for ``Z ~ DLap(s)`` and integer ``t >= 0``.  O(log t).

    >>> dlap_tail(0, r="1/2")
    2/3
    """
    rr = ratio(s=s, r=r)
    t = arith.integer_in(t, "t", lo=0)
    return 2 * rr ** (t + 1) / (1 + rr)


def dlap_moment(k: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``E[Z^k]`` of ``DLap(s)`` for k in {1, 2, 4} (closed forms of ``docs/reference/pure_dp.md`` §1; odd moments vanish).

    ``E Z^2 = 2r/(1-r)^2``, ``E Z^4 = 2r(1+10r+r^2)/(1-r)^4``.

    >>> dlap_moment(2, r="1/2")
    4
    """
    rr = ratio(s=s, r=r)
    if k == 1:
        return fmpq(0)
    if k == 2:
        return 2 * rr / (1 - rr) ** 2
    if k == 4:
        return 2 * rr * (1 + 10 * rr + rr**2) / (1 - rr) ** 4
    raise InvalidArgument("k", k, "must be 1, 2 or 4")


# ============================================================ truncated discrete Laplace
def tdlap_normaliser(tau: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``Z_tau = sum_{|j|<=tau} r^{|j|} = (1 + r - 2 r^{tau+1})/(1 - r)`` (closed form).  O(log tau).

    >>> tdlap_normaliser(2, r="1/2"), 1 + 2 * (fmpq(1, 2) + fmpq(1, 4))
    (5/2, 5/2)
    """
    rr = ratio(s=s, r=r)
    tau = _tau(tau)
    return (1 + rr - 2 * rr ** (tau + 1)) / (1 - rr)


def tdlap_masses(tau: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> list:
    """Masses of ``TDLap(0, s, tau)`` at ``z = -tau .. tau`` (index ``z + tau``).  O(tau).

    >>> tdlap_masses(1, r="1/2")
    [1/4, 1/2, 1/4]
    """
    rr = ratio(s=s, r=r)
    tau = _tau(tau)
    Z = tdlap_normaliser(tau, r=rr)
    pw = [fmpq(1) if _is_exact(rr) else arb(1)]
    for _ in range(tau):
        pw.append(pw[-1] * rr)
    return [pw[abs(z)] / Z for z in range(-tau, tau + 1)]


def tdlap_pmf(
    z: int, *, tau: int, s: NumberOrBall | None = None, r: NumberOrBall | None = None, mu: int = 0
) -> Enclosure:
    """``TDLap(mu, s, tau)[z]``: ``r^{|z-mu|}/Z_tau`` inside the window, exact 0 outside.  O(log tau).

    >>> tdlap_pmf(3, tau=2, r="1/2"), tdlap_pmf(1, tau=2, r="1/2")
    (0, 1/5)
    """
    rr = ratio(s=s, r=r)
    tau = _tau(tau)
    d = abs(arith.integer_in(z, "z") - int(mu))
    if d > tau:
        return fmpq(0)
    return rr**d / tdlap_normaliser(tau, r=rr)


def tdlap_moment(k: int, tau: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``E[Z^k]`` for ``Z ~ TDLap(s, tau)`` by the exact finite sum ``2 sum_{j<=tau} j^k r^j / Z_tau`` (k even; 0 for odd k).  O(tau).

    >>> tdlap_moment(2, 1, r="1/2")
    1/2
    """
    k = arith.integer_in(k, "k", lo=0)
    rr = ratio(s=s, r=r)
    tau = _tau(tau)
    if k % 2 == 1:
        return fmpq(0)
    if k == 0:
        return fmpq(1)
    acc: Enclosure = fmpq(0)
    pw: Enclosure = fmpq(1)
    for j in range(1, tau + 1):
        pw = pw * rr
        acc = pw * j**k + acc if not _is_exact(pw) else acc + pw * j**k
    return 2 * acc / tdlap_normaliser(tau, r=rr)


def geo_moment(k: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> Enclosure:
    """``E[G^k]`` for ``G ~ Geo(p)``, ``p = 1 - r`` (failures before the first success), k in {1, 2, 4}.

    ``E G = (1-p)/p``, ``E G^2 = (1-p)(2-p)/p^2``, ``E G^4 = (1-p)(24 - 36p + 14p^2 - p^3)/p^4``
    (closed forms of ``docs/reference/pure_dp.md`` §4, Claim B.1; checked in the tests against the series).

    >>> geo_moment(2, r="1/2")                # Geo(1/2): mean 1, variance 2
    3
    """
    rr = ratio(s=s, r=r)
    p = 1 - rr
    if k == 1:
        return (1 - p) / p
    if k == 2:
        return (1 - p) * (2 - p) / p**2
    if k == 4:
        return (1 - p) * (24 - 36 * p + 14 * p**2 - p**3) / p**4
    raise InvalidArgument("k", k, "must be 1, 2 or 4")


# ============================================================ Pólya shares (Fact 2.4)
def polya_masses(alpha: NumberOrBall, J: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None) -> list:
    """``Pólya(alpha, r)[j] = Γ(j+alpha)/(Γ(alpha) j!) r^j (1-r)^alpha`` for ``j = 0..J``.  O(J).

    Computed by the exact ratio recurrence ``p_{j+1} = p_j (j+alpha) r/(j+1)`` from
    ``p_0 = (1-r)^alpha`` (exact when ``alpha`` is an integer and ``r`` exact, a ball otherwise).

    >>> polya_masses(1, 2, r="1/2")          # alpha = 1 is the geometric law
    [1/2, 1/4, 1/8]
    """
    a = alpha if isinstance(alpha, arb) else arith.exact_in(alpha, "alpha", lo=0, lo_open=True)
    rr = ratio(s=s, r=r)
    J = arith.integer_in(J, "J", lo=0)
    p0: Enclosure
    if isinstance(a, fmpq) and a.q == 1 and _is_exact(rr):
        p0 = (1 - rr) ** int(a.p)
    else:
        p0 = (arith.ball(a) * arith.ball(1 - rr).log()).exp()
    out = [p0]
    for j in range(J):
        out.append(out[-1] * ((j + a) * rr / (j + 1)))
    return out


@dataclass(frozen=True)
class PolyaCheck:
    """Outcome of :func:`polya_share_check`.

    ``window``: the z range checked (``-J..J``); ``lower[z+J]``: certified lower
    bound on ``Pr[sum of shares = z]`` (mass of the windowed convolution);
    ``tail``: certified bound on the left-out mass, so the true mass lies in
    ``[lower, lower + tail]``; ``holds``: three-valued — ``DLap(s)[z]`` lies in
    that interval for every ``|z| <= J``.
    """

    n: int
    J: int
    lower: list
    tail: object
    holds: bool | None


def polya_share_check(
    n: int, J: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None, shape: Any = None
) -> PolyaCheck:
    """Fact 2.4, certified on a window: ``n`` i.i.d. shares ``Pólya(1/n, r) - Pólya(1/n, r)`` sum to ``DLap(s)``.

    Route (independent of the claimed answer): the law of ``A = sum_i A_i``
    (``A_i ~ Pólya(1/n, r)``) on ``0..K`` is the ``n``-th power of the
    truncated Pólya polynomial, truncated at degree ``K = 2J``: exact on
    ``0..K`` because all masses are >= 0 and degree-``<= K`` coefficients only
    involve share values ``<= K``.  The left-out mass is
    ``t_A = 1 - sum_{a<=K} Pr[A=a]`` (computed, not assumed).  Then
    ``Pr[A - B = z] >= sum_{a, a-z in 0..K} Pr[A=a] Pr[B=a-z]`` and the
    difference is at most ``Pr[A > K] + Pr[B > K] = 2 t_A``.  O(n log n · K log K)
    ball arithmetic (``arb_poly`` powers).

    ``shape`` overrides the share shape ``1/n`` (tests use a wrong shape to
    see the check fail).

    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(128):
    ...     polya_share_check(3, 10, r="1/2").holds, polya_share_check(3, 10, r="1/2", shape="1/4").holds
    (True, False)
    """
    n = arith.integer_in(n, "n", lo=1)
    J = arith.integer_in(J, "J", lo=0)
    rr = ratio(s=s, r=r)
    K = 2 * J
    share = polya_masses(fmpq(1, n) if shape is None else shape, K, r=rr)
    poly = arb_poly([arith.ball(v) for v in share]) ** n
    law = [poly[i] for i in range(K + 1)]
    tail = 1 - sum(law, arb(0))
    tail = tail.max(arb(0)) if not (tail >= 0) else tail
    lower = []
    holds: bool | None = True
    for z in range(-J, J + 1):
        acc = arb(0)
        for a in range(max(0, z), min(K, K + z) + 1):
            acc += law[a] * law[a - z]
        lower.append(acc)
        target = dlap_pmf(z, r=rr)
        lo_ok = arith.le(acc, target)
        hi_ok = arith.le(target, acc + 2 * tail)
        if lo_ok is False or hi_ok is False:
            holds = False
        elif holds is not False and (lo_ok is None or hi_ok is None):
            holds = None
    return PolyaCheck(n, J, lower, 2 * tail, holds)


# ============================================================ components of the relaxed aggregator
def _ell(m: int, tau: int) -> int:
    return m * (2 * tau + 1) - 1


def lattice_component(
    x: int, m: int, tau: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None
) -> list:
    """``D_x``: mass ``T[z]`` at ``x + m(tau+z)``, ``z = -tau..tau``, exact 0 elsewhere on ``0..ell``.  O(m tau).

    Statement in this project's reading of the construction (the shape — support
    on the residue class of ``x`` with TDLap weights — is visible in the text).

    >>> lattice_component(1, 2, 1, r="1/2")
    [0, 1/4, 0, 1/2, 0, 1/4]
    """
    m = arith.integer_in(m, "m", lo=2)
    tau = _tau(tau)
    x = arith.integer_in(x, "x", lo=0, hi=m - 1)
    T = tdlap_masses(tau, s=s, r=r)
    out = [fmpq(0)] * (_ell(m, tau) + 1)
    for i, t in enumerate(T):
        out[x + m * i] = t
    return out


def mirrored_component(
    x: int, m: int, tau: int, *, s: NumberOrBall | None = None, r: NumberOrBall | None = None
) -> list:
    """``E_x[y] = rho^{-|y-mu_x|} / N_x`` on ``y = 0..ell``, ``rho = r^{1/m}``, ``mu_x = x + m tau``.  O(m tau).

    The normaliser ``N_x = sum_{y=0}^{ell} rho^{-|y-mu_x|}``.  *This project's
    reading* (the reference's choice, ``docs/reference/pure_dp.md`` §3.1): exponentially **more** mass far from the
    centre, leaving the residue class of ``x``.  Exact when ``r`` is an exact
    ``m``-th power of a rational (:func:`r_from_rho`), balls otherwise.

    >>> mirrored_component(0, 2, 1, r="1/4")     # rho = 1/2, mu = 2, ell = 5: weights 4,2,1,2,4,8
    [4/21, 2/21, 1/21, 2/21, 4/21, 8/21]
    """
    m = arith.integer_in(m, "m", lo=2)
    tau = _tau(tau)
    x = arith.integer_in(x, "x", lo=0, hi=m - 1)
    rr = ratio(s=s, r=r)
    rho: Any = _nth_root_exact(rr, m) if _is_exact(rr) else None
    if rho is None:
        rho = arith.ball(rr) ** (arb(1) / m) if not _is_exact(rr) else (arb(rr).log() / m).exp()
    inv = 1 / rho
    ell = _ell(m, tau)
    mu = x + m * tau
    dmax = max(mu, ell - mu)
    pw: list = [fmpq(1) if _is_exact(inv) else arb(1)]
    for _ in range(dmax):
        pw.append(pw[-1] * inv)
    w = [pw[abs(y - mu)] for y in range(ell + 1)]
    N = sum(w[1:], w[0])
    return [v / N for v in w]


def _component(component, x, m, tau, *, s=None, r=None):
    ell = _ell(m, tau)
    if component is None:
        return mirrored_component(x, m, tau, s=s, r=r)
    if callable(component):
        C = list(component(x))
    else:
        seq = list(component)
        if len(seq) != m:
            raise InvalidArgument(
                "component", f"sequence of {len(seq)}", f"must hold one mass vector per input x in 0..{m - 1}"
            )
        C = list(seq[x])
    if len(C) != ell + 1:
        raise InvalidArgument(
            "component",
            f"vector of length {len(C)} for x={x}",
            f"must have length ell+1 = {ell + 1} (support 0..ell, ell = m(2 tau+1)-1)",
        )
    out = []
    for i, v in enumerate(C):
        if isinstance(v, float):
            raise InvalidArgument("component", v, f"must hold exact masses or balls (entry {i} for x={x} is a float)")
        v = v if isinstance(v, arb) else arith.exact(v, "component")
        if arith.sign(v) == -1:
            raise InvalidArgument("component", str(v), f"must be non-negative (entry {i} for x={x})")
        out.append(v)
    tot = sum(out[1:], out[0])
    ok = (tot == 1) if _is_exact(tot) else (arb(tot).contains(1))
    if not ok:
        raise InvalidArgument("component", str(tot), f"must sum to 1 (x={x})")
    return out


# ============================================================ LLR helpers
def max_ratio(p: Sequence, q: Sequence) -> Enclosure | None:
    """``max_y max(p_y/q_y, q_y/p_y)`` over the common support, or ``None`` (=∞) if the supports differ.

    Certain zeros (exact 0, or a ball of radius 0 at 0) mark the support;
    exact inputs give an exact ``fmpq``, balls a ball enclosing the maximum
    (lower end = max of the lower ends, upper end = max of the upper ends).
    O(len), C-level loops where possible.

    >>> max_ratio([fmpq(1, 2), fmpq(1, 2)], [fmpq(1, 4), fmpq(3, 4)])
    2
    """
    p, q = list(p), list(q)
    if len(p) != len(q):
        raise InvalidArgument("q", f"length {len(q)}", f"must have the length of p ({len(p)})")
    zp = [_is_zero(a) for a in p]
    zq = [_is_zero(b) for b in q]
    if zp != zq:
        return None
    if any(zp):
        p = [a for a, z in zip(p, zp) if not z]
        q = [b for b, z in zip(q, zp) if not z]
    return _max_ratio_support(p, q)


def _max_ratio_support(p: list, q: list):
    """:func:`max_ratio` for two vectors of masses known to be non-zero (same support)."""
    if not p:
        return fmpq(1)
    if set(map(type, p)) == {fmpq} and set(map(type, q)) == {fmpq}:
        rs = [a / b for a, b in zip(p, q)]
        return max(max(rs), 1 / min(rs))
    if set(map(type, p)) != {arb}:
        p = [a if type(a) is arb else arith.ball(a) for a in p]
    if set(map(type, q)) != {arb}:
        q = [b if type(b) is arb else arith.ball(b) for b in q]
    rs = list(map(operator.truediv, p, q))
    # arb.max / arb.min of balls enclose the max / min of every choice of points
    hi = functools.reduce(arb.max, rs)
    lo = functools.reduce(arb.min, rs)
    if not (hi.is_finite() and lo.is_finite() and lo > 0):
        raise InvalidArgument("mass", str(lo), "must be certainly positive or a certain 0 (raise the precision)")
    return hi.max(1 / lo)


def _upper(x):
    return x.upper()


def _lower(x):
    return x.lower()


def _hull(lo: arb, hi: arb) -> arb:
    """The ball ``[lo, hi]`` (outward)."""
    return arb(lo).union(arb(hi))


def llr_exact_or_ball(p: Sequence, q: Sequence) -> Enclosure | None:
    """``d_LLR(p, q)`` as a ball (``0`` exactly when the laws coincide), ``None`` for +∞.  O(len)."""
    mr = max_ratio(p, q)
    if mr is None:
        return None
    if _is_exact(mr) and mr == 1:
        return fmpq(0)
    return arith.ball(mr).log()


def analyzer(total: int, m: int) -> int:
    """The analyzer POST: the shuffled bits' total count modulo ``m``.

    >>> analyzer(17, 5)
    2
    """
    return arith.integer_in(total, "total", lo=0) % arith.integer_in(m, "m", lo=2)


# ============================================================ the relaxed aggregator
class _Law:
    """A law on 0..L as a polynomial (fmpq_poly or arb_poly) with its exact support (fmpz_poly 0/1)."""

    __slots__ = ("poly", "supp", "exact", "length")

    def __init__(self, poly, supp, exact, length):
        # supp: fmpz_poly of 0/1 flags, or None when the support is all of 0..length-1
        self.poly, self.supp, self.exact, self.length = poly, supp, exact, length

    @classmethod
    def from_masses(cls, masses: Sequence) -> _Law:
        exact = all(_is_exact(v) for v in masses)
        flags = [0 if _is_zero(v) else 1 for v in masses]
        supp = None if all(flags) else fmpz_poly(flags)
        poly = fmpq_poly(list(masses)) if exact else arb_poly([arith.ball(v) for v in masses])
        return cls(poly, supp, exact, len(masses))

    def __mul__(self, other):
        if self.exact and other.exact:
            poly = self.poly * other.poly
        else:
            a = self.poly if not self.exact else arb_poly([arb(c) for c in self.poly.coeffs()])
            b = other.poly if not other.exact else arb_poly([arb(c) for c in other.poly.coeffs()])
            poly = a * b
        length = self.length + other.length - 1
        if self.supp is None and other.supp is None:
            s = None
        else:
            sa = self.supp if self.supp is not None else fmpz_poly([1] * self.length)
            sb = other.supp if other.supp is not None else fmpz_poly([1] * other.length)
            flags = [1 if c != 0 else 0 for c in (sa * sb).coeffs()]
            flags += [0] * (length - len(flags))
            s = None if all(flags) else fmpz_poly(flags)
        return _Law(poly, s, self.exact and other.exact, length)

    def __pow__(self, k):
        return arith.repeated_product(self, k)

    def reversed(self, length: int) -> _Law:
        """The law of ``length - 1 - Y`` (coefficients read backwards); O(length), no re-validation."""
        cs = list(self.poly.coeffs())
        cs += [fmpq(0) if self.exact else arb(0)] * (length - len(cs))
        cs = cs[:length][::-1]
        poly = fmpq_poly(cs) if self.exact else arb_poly(cs)
        supp = None
        if self.supp is not None:
            flags = list(self.supp.coeffs())
            flags += [0] * (length - len(flags))
            supp = fmpz_poly(flags[:length][::-1])
        return _Law(poly, supp, self.exact, length)

    def masses(self, length: int | None = None) -> list:
        if length is None:
            length = self.length
        coeffs = list(self.poly.coeffs())
        coeffs += [fmpq(0)] * (length - len(coeffs))
        coeffs = coeffs[:length]
        if self.supp is None:
            return coeffs
        flags = list(self.supp.coeffs())
        flags += [0] * (length - len(flags))
        zero = fmpq(0)
        return [c if f else zero for c, f in zip(coeffs, flags)]


@dataclass
class RelaxedAggregator:
    """The relaxed aggregator of Section 3 in this project's reading (docs/reference/pure_dp.md §3.1).

    Parameters: modulus ``m >= 2``, truncation ``tau >= 0``, mixing weight
    ``q in [0, 1)``, and ``r`` (exact rational) or ``s`` (scale; balls).
    ``component`` replaces the mirrored component ``E_x`` by a user-supplied
    one (callable ``x -> masses on 0..ell`` or a sequence of ``m`` mass
    vectors): the engine then checks *that* construction.

    Statement in this project's reading of the construction.

    Complexity: building the ``m`` mixtures is ``O(m · ell)``; the law of
    ``S`` for ``n`` users is ``O(log n)`` polynomial multiplications of
    length ``<= n·ell`` (C-speed); the pairwise quantity (5) is
    ``m(m-1)/2 + m`` multiplications of length ``ell + 1`` plus ``O(m^2 ell)``
    Python-level ratio evaluations — linear (up to logs) in the support size
    per convolution.
    """

    m: int
    tau: int
    q: Any = None  # given as a number, stored as an enclosure
    s: Any = None
    r: Any = None  # given as a number (or from s), stored as an enclosure
    component: object = None
    _laws: dict = field(default_factory=dict, repr=False)
    _pairs: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.m = arith.integer_in(self.m, "m", lo=2)
        self.tau = _tau(self.tau)
        if self.q is None:
            raise InvalidArgument("q", None, "must be given (the mixing weight, 0 <= q < 1)")
        self.q = self.q if isinstance(self.q, arb) else arith.exact_in(self.q, "q", lo=0, hi=1, hi_open=True)
        self.r = ratio(s=self.s, r=self.r)
        self.ell = _ell(self.m, self.tau)
        self.hat = [self.mixture(x) for x in range(self.m)]

    def mixture(self, x: int) -> list:
        """``hat D_x = (1-q) D_x + q C_x`` with ``C_x`` the mirrored component (default) or ``component(x)``.

        >>> RelaxedAggregator(2, 0, q="1/2", r="1/4").mixture(0)  # D_0 = [1, 0], E_0 = [1/3, 2/3]
        [2/3, 1/3]
        """
        D = lattice_component(x, self.m, self.tau, r=self.r)
        if _is_exact(self.q) and self.q == 0:
            return D
        C = _component(self.component, x, self.m, self.tau, r=self.r)
        return [(1 - self.q) * d + self.q * c for d, c in zip(D, C)]

    @property
    def exact(self) -> bool:
        """Whether every mass is an exact rational (then every LLR is ``log`` of an exact ratio)."""
        return all(_is_exact(v) for h in self.hat for v in h)

    # ------------------------------------------------------------ laws
    def law(self, x: int) -> _Law:
        if x not in self._laws:
            self._laws[x] = _Law.from_masses(self.hat[x])
        return self._laws[x]

    def sum_law(self, xs: Sequence[int]) -> list:
        """Masses of ``S(x) = sum_i eta_i`` on ``0..n·ell`` (exact zeros off the support).  O(log n) multiplications."""
        xs = self._inputs(xs)
        counts: dict[int, int] = {}
        for x in xs:
            counts[x] = counts.get(x, 0) + 1
        out: Any = None
        for x, k in sorted(counts.items()):
            part = self.law(x) ** k
            out = part if out is None else out * part
        return out.masses(len(xs) * self.ell + 1)

    def _inputs(self, xs):
        xs = [arith.integer_in(x, "x", lo=0, hi=self.m - 1) for x in xs]
        if not xs:
            raise InvalidArgument("xs", xs, "must hold at least one input")
        return xs

    def pair_law(self, a: int, b: int) -> list:
        """Masses of ``hat D_a * hat D_b`` on ``0..2 ell`` (cached)."""
        return self._pair_obj(a, b).masses(2 * self.ell + 1)

    # ------------------------------------------------------------ correctness
    def correctness_failure(self, xs: Sequence[int]) -> Enclosure:
        """``Pr[S(x) mod m != sum x_i mod m]`` exactly (fmpq or ball).  O(n·ell) after the convolution."""
        xs = self._inputs(xs)
        law = self.sum_law(xs)
        target = sum(xs) % self.m
        ok: Any = fmpq(0)
        for y in range(target, len(law), self.m):
            v = law[y]
            ok = v + ok if isinstance(v, arb) else ok + v
        return 1 - ok

    def correctness_failure_max(self, n: int) -> tuple:
        """Max of :meth:`correctness_failure` over all input multisets of size ``n`` (and the maximiser)."""
        n = arith.integer_in(n, "n", lo=1)
        best, arg = None, None
        for xs in itertools.combinations_with_replacement(range(self.m), n):
            v = self.correctness_failure(xs)
            if best is None or arith.gt(v, best) is True:
                best, arg = v, xs
            elif arith.gt(v, best) is None:
                best = arith.ball(best).max(arith.ball(v))
        return best, arg

    # ------------------------------------------------------------ security
    def pair_llr(self, a: int, b: int) -> Enclosure | None:
        """``d_LLR(hat D_a * hat D_b, hat D_c * hat D_0)``, ``c = (a+b) mod m`` — one term of (5); ``None`` = ∞."""
        c = (a + b) % self.m
        return llr_exact_or_ball(self.pair_law(a, b), self.pair_law(c, 0))

    def pair_ratio(self, a: int, b: int) -> Enclosure | None:
        """``exp`` of :meth:`pair_llr` (exact fmpq when the masses are exact); ``None`` = ∞."""
        c = (a + b) % self.m
        P, Q = self._pair_obj(a, b), self._pair_obj(c, 0)
        if P.supp is None and Q.supp is None:
            L = 2 * self.ell + 1
            qkey = ("masses", c)
            if qkey not in self._pairs:  # the m simulator laws are reused by many pairs
                self._pairs[qkey] = Q.masses(L)
            return _max_ratio_support(P.masses(L), self._pairs[qkey])
        return max_ratio(self.pair_law(a, b), self.pair_law(c, 0))

    def _pair_obj(self, a, b):
        key = ("obj", min(a, b), max(a, b))
        if key not in self._pairs:
            m1 = self.m - 1
            refl = ("obj", m1 - key[2], m1 - key[1])
            if self.component is None and refl in self._pairs:
                # reflection y -> ell - y maps hat D_x to hat D_{m-1-x} (T and the mirrored weights are symmetric),
                # so hat D_a * hat D_b is hat D_{m-1-a} * hat D_{m-1-b} read backwards: no new multiplication.
                self._pairs[key] = self._pairs[refl].reversed(2 * self.ell + 1)
            else:
                self._pairs[key] = self.law(key[1]) * self.law(key[2])
        return self._pairs[key]

    def pairwise_llr(self, *, progress: bool = False) -> tuple:
        """The pairwise quantity (5): ``max_{a,b} d_LLR(hat D_a*hat D_b, hat D_c*hat D_0)`` and a maximising pair.

        Returns ``(value, (a, b))``; ``value`` is ``None`` (=∞) if some pair
        has different supports.  The maximum is over unordered pairs
        ``1 <= a <= b <= m-1`` (``b = 0`` gives identical laws).  Values are
        enclosures; the pair reported maximises the upper ends.
        """
        pairs = [(a, b) for a in range(1, self.m) for b in range(a, self.m)]
        best: Enclosure = fmpq(1)
        arg = (0, 0)

        with Progress(len(pairs), "pairwise LLR") if progress else _null() as bar:
            for a, b in pairs:
                v = self.pair_ratio(a, b)
                if bar is not None:
                    bar.update(1) if hasattr(bar, "update") else None
                if v is None:
                    return None, (a, b)
                if _is_exact(best) and _is_exact(v):
                    if v > best:
                        best, arg = v, (a, b)
                else:
                    if arith.ball(v).upper() > arith.ball(best).upper():
                        arg = (a, b)
                    best = arith.ball(best).max(arith.ball(v))
        return (fmpq(0) if (_is_exact(best) and best == 1) else arith.ball(best).log()), arg

    def llr_security(self, n: int) -> tuple:
        """Exact LLR security for ``n`` users: ``max_x d_LLR(S(x), S(c,0,..,0))`` over input multisets.

        ``c = sum x_i mod m``.  Returns ``(value, maximising multiset)``;
        ``None`` = ∞.  Enumerates ``C(n+m-1, n)`` multisets: for small
        ``n`` and ``m``.
        """
        n = arith.integer_in(n, "n", lo=1)
        sims = {}
        best: Enclosure = fmpq(1)
        arg = None
        for xs in itertools.combinations_with_replacement(range(self.m), n):
            c = sum(xs) % self.m
            if c not in sims:
                sims[c] = self.sum_law([c] + [0] * (n - 1))
            v = max_ratio(self.sum_law(xs), sims[c])
            if v is None:
                return None, xs
            if _is_exact(best) and _is_exact(v):
                if v > best:
                    best, arg = v, xs
            else:
                if arg is None or arith.ball(v).upper() > arith.ball(best).upper():
                    arg = xs
                best = arith.ball(best).max(arith.ball(v))
        return (fmpq(0) if (_is_exact(best) and best == 1) else arith.ball(best).log()), arg

    def hockey_stick_profile(
        self, xs: Sequence[int], *, epsilon: NumberOrBall | None = None, exp_epsilon: NumberOrBall | None = None
    ) -> Enclosure:
        """``delta(eps) = max`` over both directions of ``D_{e^eps}(S(x) || S(c,0,..,0))``.

        It is 0 exactly when ``eps >= d_LLR`` of the two laws.  O(n·ell) after the convolutions.
        """
        xs = self._inputs(xs)
        c = sum(xs) % self.m
        p = self.sum_law(xs)
        q = self.sum_law([c] + [0] * (len(xs) - 1))
        d1 = hockey_stick(p, q, epsilon=epsilon, exp_epsilon=exp_epsilon)
        d2 = hockey_stick(q, p, epsilon=epsilon, exp_epsilon=exp_epsilon)
        if _is_exact(d1) and _is_exact(d2):
            return max(d1, d2)
        return arith.ball(d1).max(arith.ball(d2))


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


# ============================================================ the four groups of a pair, and the pairing bound (Claims 3.4, 3.8)
class Groups:
    """The components of a :class:`RelaxedAggregator` as laws, and their pairwise convolutions.

    ``conv(X, a, Y, b)`` is ``X_a * Y_b`` on ``0..2 ell`` for ``X, Y in {"D", "E"}``
    (``E`` = the aggregator's second component, mirrored or user-supplied).
    This project's reading of the construction.  Each convolution is one
    polynomial multiplication (cached).
    """

    def __init__(self, agg: RelaxedAggregator):
        self.agg = agg
        m, tau = agg.m, agg.tau
        self.comp = {
            "D": [lattice_component(x, m, tau, r=agg.r) for x in range(m)],
            "E": [_component(agg.component, x, m, tau, r=agg.r) for x in range(m)],
        }
        self._laws: dict[tuple[str, int], _Law] = {}
        self._conv: dict[tuple, list] = {}

    def law(self, X: str, x: int) -> _Law:
        key = (X, x)
        if key not in self._laws:
            self._laws[key] = _Law.from_masses(self.comp[X][x])
        return self._laws[key]

    def conv(self, X: str, a: int, Y: str, b: int) -> list:
        key = (X, a, Y, b)
        if key not in self._conv:
            self._conv[key] = (self.law(X, a) * self.law(Y, b)).masses(2 * self.agg.ell + 1)
        return self._conv[key]

    def conv_vec(self, u: list, v: list) -> list:
        """Convolution of two explicit mass vectors (exact zeros kept exact)."""
        return (_Law.from_masses(u) * _Law.from_masses(v)).masses(len(u) + len(v) - 1)

    def normaliser_ratio(self, X: str, a: int, c: int) -> Enclosure | None:
        """``C`` with ``X_a[v] = C · X_c[v + c - a]`` wherever both indices lie in ``0..ell``.

        ``1`` for the lattice component (an exact shift); ``N_c/N_a`` for the
        mirrored component (read off as ``E_a[mu_a]/E_c[mu_c]``); for a
        user-supplied component no such identity is known and ``None`` is returned.
        """
        if X == "D":
            return fmpq(1)
        if self.agg.component is not None:
            return None
        tau, m = self.agg.tau, self.agg.m
        return self.comp["E"][a][a + m * tau] / self.comp["E"][c][c + m * tau]

    def pairing_rhs(self, X: str, a: int, Y: str, b: int, c: int, d: int) -> list:
        """Right-hand side of the pairing inequality ``(X_a*Y_b)[y] <= RHS(y)`` (Claims 3.4 and 3.8).

        With ``a + b = c + d + j m`` (``j in {-1, 0, 1}``; Fact 3.2),
        ``C_X = X_a/X_c`` normaliser ratio (:meth:`normaliser_ratio`), and
        ``kappa = e^{1/s} = 1/r``::

            RHS = C_X C_Y [ kappa^{|j|} (X_c*Y_d) + U ] + R_bd

        * ``R_bd = X_a^bd * Y_b + X_a * Y_b^bd - X_a^bd * Y_b^bd`` where
          ``X_a^bd`` keeps the entries ``v`` of ``X_a`` whose partner
          ``v + c - a`` falls outside ``0..ell`` (at most ``|a-c| < m`` entries);
          this is an exact identity: ``X_a*Y_b - R_bd = (X_a - X_a^bd)*(Y_b - Y_b^bd)``
          and ``X_a - X_a^bd <= C_X · shift_{a-c} X_c`` pointwise.
        * ``(shift_{a-c} X_c) * (shift_{b-d} Y_d) = shift_{jm}(X_c * Y_d)``
          ``= X_c * shift_{jm} Y_d``, and ``Y_d[w - jm] <= kappa^{|j|} Y_d[w]``
          wherever ``Y_d[w] > 0`` (lattice: ``T[z-j]/T[z] <= e^{1/s}``;
          mirrored: ``rho^{-|w-jm-mu|+|w-mu|} <= rho^{-m} = e^{1/s}``);
          ``U = X_c * (shift_{jm} Y_d restricted to the w where Y_d[w] = 0)`` —
          the unpaired terms: one lattice point (``T[±tau]``, the "extra term"
          of Claim 3.4) or at most ``m`` window-edge points of the mirrored component.

        Returns the RHS masses on ``0..2 ell``.  Raises for a user-supplied
        component (no normaliser identity).
        """
        m = self.agg.m
        j, rem = divmod(a + b - c - d, m)
        if rem != 0 or j not in (-1, 0, 1):
            raise InvalidArgument("(a, b, c, d)", (a, b, c, d), "must satisfy a + b = c + d + j m with j in {-1, 0, 1}")
        CX, CY = self.normaliser_ratio(X, a, c), self.normaliser_ratio(Y, b, d)
        if CX is None or CY is None:
            raise InvalidArgument(
                "component",
                "user-supplied",
                "has no normaliser identity: the pairing bound needs the mirrored component",
            )
        L = self.agg.ell + 1
        zero = fmpq(0)
        Xa, Yb, Yd = self.comp[X][a], self.comp[Y][b], self.comp[Y][d]
        Xbd = [v if not (0 <= i + c - a < L) else zero for i, v in enumerate(Xa)]
        Ybd = [v if not (0 <= i + d - b < L) else zero for i, v in enumerate(Yb)]
        # shift_{jm} Y_d restricted to positions outside supp Y_d (positions may leave 0..ell: index them from -m)
        off = m
        Ush = [zero] * (L + 2 * m)
        for i, v in enumerate(Yd):
            w = i + j * m
            if _is_zero(v):
                continue
            if not (0 <= w < L) or _is_zero(Yd[w]):
                Ush[w + off] = v
        kap = 1 / self.agg.r
        base = self.conv(X, c, Y, d)
        out = [kap ** abs(j) * v if not _is_zero(v) else zero for v in base]
        if any(not _is_zero(v) for v in Ush):
            Uc = self.conv_vec(self.comp[X][c], Ush)  # index t corresponds to y = t - off
            for t, v in enumerate(Uc):
                y = t - off
                if not _is_zero(v) and 0 <= y < len(out):
                    out[y] = out[y] + v
        CC = CX * CY
        out = [CC * v if not _is_zero(v) else zero for v in out]
        for part, sign in ((self.conv_vec(Xbd, Yb), 1), (self.conv_vec(Xa, Ybd), 1), (self.conv_vec(Xbd, Ybd), -1)):
            for y, v in enumerate(part[: len(out)]):
                if not _is_zero(v):
                    out[y] = out[y] + v if sign > 0 else out[y] - v
        return out

    def same_index_rhs(self, a: int, b: int, c: int, d: int) -> list:
        """Same-index pairing for the mirrored group: ``(E_a*E_b)[y] <= K (E_c*E_d)[y]`` for every ``y``.

        ``E_a[v]/E_c[v] = (N_c/N_a) rho^{-|v-mu_a| + |v-mu_c|} <= (N_c/N_a) rho^{-|a-c|}`` (triangle
        inequality, ``|mu_a - mu_c| = |a - c|``) on the common window ``0..ell`` — no boundary terms.
        Hence ``K = (N_c N_d/(N_a N_b)) rho^{-(|a-c| + |b-d|)}``.  Mirrored component only.
        """
        CX, CY = self.normaliser_ratio("E", a, c), self.normaliser_ratio("E", b, d)
        if CX is None or CY is None:
            raise InvalidArgument(
                "component",
                "user-supplied",
                "has no normaliser identity: the pairing bound needs the mirrored component",
            )
        K = CX * CY * (1 / _rho(self.agg)) ** (abs(a - c) + abs(b - d))
        zero = fmpq(0)
        return [K * v if not _is_zero(v) else zero for v in self.conv("E", c, "E", d)]


def _rho(agg: RelaxedAggregator) -> Enclosure:
    """``rho = r^{1/m}``: exact when ``r`` is an exact ``m``-th power, a ball otherwise."""
    if _is_exact(agg.r):
        root = _nth_root_exact(agg.r, agg.m)
        if root is not None:
            return root
        return (arb(agg.r).log() / agg.m).exp()
    return agg.r ** (arb(1) / agg.m)


def pairwise_llr_certified(
    aggregator: Callable[[], RelaxedAggregator],
    *,
    decided: Callable[[Any], bool] | None = None,
    start: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
) -> tuple:
    """The pairwise quantity (5) with precision escalation: rebuild the aggregator at 128, 256, … bits.

    ``aggregator`` builds the :class:`RelaxedAggregator` at the current precision, e.g.
    ``functools.partial(RelaxedAggregator, m, tau, q=q, s=s)`` (its balls are computed when it is built).

    Escalates while a mass is not certainly positive (its ball straddles 0) or while
    ``decided(value)`` is false (default: relative width below 2^-40).  Returns
    ``(value, pair, prec)``; raises :class:`~exact.numbers.errors.Undecided` at ``cap``.
    ``value`` is ``None`` (=∞) when the supports differ (decided at once).
    """
    if decided is None:

        def decided(v):
            if v is None or isinstance(v, fmpq):
                return True
            return v.is_finite() and (v.rad() <= abs(v.mid()) * arb(2) ** -40 or v.rad() < arb(2) ** -120)

    def compute(prec):
        try:
            val, pair = aggregator().pairwise_llr()
            return (val, pair, True)
        except InvalidArgument as e:
            if "certainly positive" in str(e):
                return (None, None, False)
            raise

    (val, pair, ok), prec = arith.escalate(
        compute,
        lambda res: isinstance(res, tuple) and res[2] and decided(res[0]),
        start=start,
        cap=cap,
        what="pairwise LLR (5)",
    )
    return val, pair, prec
