"""Dominating pairs of shuffled rounds and certified privacy loss distributions (composition).

A *dominating pair* ``(P, Q)`` of a shuffled round is a pair of finite
distributions with ``H_{e^ε}(M(D)‖M(D')) ≤ H_{e^ε}(P‖Q)`` for **every real**
ε (every ``α = e^ε ≥ 0``) and every pair of neighbouring datasets; products of
dominating pairs dominate the adaptive composition of the rounds (Zhu, Dong,
Wang 2022; :mod:`blanket.proofs.composition`).  The argument for each pair is
written out in ``docs/composition.md``.  The pairs themselves (:class:`ShiftPair`, :func:`dominating_pair`,
:func:`lower_pair`, :func:`blanket_view_atoms`, …) are in :mod:`blanket.exact.accounting.pairs` and re-exported here.

**Privacy loss distributions.**  :func:`discretise` builds from a
:class:`ShiftPair` a :class:`PLD` on the grid ``ℓ_j = jΔ``:

* ``side="upper"`` (pessimistic): every loss rounded *up* to the grid, the
  mass above the stored range put at ``+∞``; the resulting law ``L̃``
  satisfies ``L̃ ≥ L`` under a coupling, so every ``δ`` computed from it
  (and from its convolutions) is ``≥`` the pair's;
* ``side="lower"`` (optimistic): every loss rounded *down*, mass below the
  stored range dropped (a sub-probability: ``L̂ ≤ L`` or killed), so every
  ``δ`` computed from it is ``≤`` the pair's.

Both are built from certified bounds on the survival function
``S(t) = P(L > t)`` (upper side) or ``P(L ≥ t)`` (lower side) at the grid
points; a distribution whose survival function is pointwise above (below)
the true one is stochastically larger (smaller), which is all the
δ-formula ``δ(ε) = Σ_ℓ m(ℓ)[1 − e^{ε−ℓ}]_+ + m(∞)`` needs (it is an
expectation of a non-decreasing, non-negative function of the loss).
The loss of a :class:`ShiftPair` at ``(C, K)`` depends on ``K`` only through
the ratio ``ρ = b(K−1)/b(K)`` of the inner binomial and is monotone in it,
so ``S(ℓ_j)`` is a sum over ``C`` of binomial tail sums at one threshold per
grid point: no per-cell work.  The tails come from a numpy float64 kernel
with an a-priori relative error bound (``docs/composition.md``, §4; tested
against exact rationals): the bound is applied outward (upper ends
multiplied by ``1 + 2η``, lower ends by ``1 − 2η``), the window tails are
bounded rigorously and added (upper side) or dropped (lower side), and the
threshold indices are rounded in the safe direction.  The resulting
survival values are exact binary floats, so the masses are exact
differences of dyadic numbers, held as ``arb`` balls.

**Composition.**  Masses are exact integers times ``2^{-100}`` (``fmpz_poly``);
:meth:`PLD.compose` multiplies the integer polynomials exactly and floor-divides
every coefficient by ``2^{100}`` (optimistic side: masses only decrease;
pessimistic side: one unit per coefficient is added at ``+∞``, which covers
the remainders because the δ-integrand is ≤ 1 — ``docs/composition.md`` §3);
:meth:`PLD.self_compose` uses repeated squaring; after each product the
negligible tails are moved (upper: low tail up to the first kept point,
high tail to ``+∞``; lower: both dropped), with their exact integer masses.
:meth:`PLD.get_delta` and :meth:`PLD.get_epsilon` evaluate the δ-formula
from exact suffix sums on a window (one C pass per window) and solve it
in closed form on the located grid cell; both ends are certified in the
safe direction (upper: ``δ`` upper end, ``ε`` upper end; lower: lower ends).

**Rényi route.**  :func:`renyi_log_moments` bounds ``(α−1)·D_α`` of a pair from
its pessimistic PLD; :func:`rdp_epsilon` / :func:`rdp_delta` convert the sum
over rounds (Canonne–Kamath–Steinke 2020 Prop. 12; ``docs/composition.md`` §5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from blanket.exact.accounting.pairs import (  # noqa: F401  (re-exported: the pairs whose PLDs this module builds)
    GARBLE_TAU,
    ShiftPair,
    blanket_view_atoms,
    dominating_pair,
    garbled_blanket_view,
    hockey_stick,
    lower_pair,
    lower_rational,
    lumped_lower_pair,
    product_atoms,
    split_blanket_view,
    upper_rational,
)
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import NumberInput, NumberOrBall
from blanket.exact.runtime.progress import check_time
from flint import arb, arb_poly, fmpq, fmpz_poly

#: unit roundoff of IEEE binary64
U = 2.0**-53
#: z-score of the binomial windows (left-out mass per window ≲ e^{-z²/2})
WINDOW_Z = 13.5
#: default tail mass moved/dropped per truncation in compositions
DEFAULT_TRUNCATION = fmpq(1, 10**30)


# ====================================================================== float kernel
def _fb(x) -> tuple[float, float]:
    """Floats ``lo ≤ x ≤ hi`` for an exact number or a ball (outward by one ulp)."""
    if isinstance(x, arb):
        lo, hi = float(x.lower()), float(x.upper())
    else:
        q = arith.exact(x)
        lo = hi = int(q.p) / int(q.q)
    return float(np.nextafter(lo, -np.inf)), float(np.nextafter(hi, np.inf))


def _gamma(m: float) -> float:
    """Higham's ``γ_m = m·u/(1 − m·u)``: relative error bound of ``m`` roundings (positive terms, any order)."""
    mu = m * U
    if mu >= 0.01:
        raise Undecided("float kernel: too many roundings for the a-priori error bound")
    return mu / (1 - mu)


def _window_bounds(N: int, qf: float) -> tuple:
    """``(mode, lo, hi)`` of the window of ``Bin(N, q)``: mode ± 13.5σ (+3), clipped to ``[0, N]``."""
    mode = min(N, max(0, int(math.floor((N + 1) * qf))))
    sd = math.sqrt(N * qf * (1 - qf))
    return mode, max(0, int(mode - WINDOW_Z * sd - 3)), min(N, int(mode + WINDOW_Z * sd + 3))


class _BinomWindow:
    """Windowed pmf of ``Bin(N, q)`` in float64 with an a-priori relative error bound.

    ``pmf[i]`` approximates ``b(lo+i)`` with ``|pmf − b| ≤ eta·b`` (proved in
    docs/composition.md §4: the mode value from arb, then ``K`` steps of the
    exact-integer ratio ``(N−l)/(l+1)`` times ``q/(1−q)``, each a correctly
    rounded IEEE operation).  ``out`` bounds the mass outside ``[lo, hi]``
    (unimodality: every outside point is below the nearer edge value).
    ``tail[i] = Σ_{l ≥ lo+i} pmf[l]`` (``tail[W] = 0``) with relative error
    ``≤ eta_tail``.  Cost ``O(W)``, ``W = O(sqrt(N q (1−q)))``.
    """

    __slots__ = ("N", "lo", "hi", "pmf", "tail", "eta", "eta_tail", "out")

    def __init__(self, N: int, q, rq: tuple, *, prec: int = 128):
        self.N = N
        qf = float(q.mid()) if isinstance(q, arb) else int(q.p) / int(q.q)
        if N == 0:
            self.lo = self.hi = 0
            self.pmf = np.ones(1)
            self.tail = np.array([1.0, 0.0])
            self.eta = self.eta_tail = 0.0
            self.out = 0.0
            return
        mode, lo, hi = _window_bounds(N, qf)
        # mode value in arb
        with arith.precision(prec):
            qb = arith.ball(q)
            lb = (
                arb(N + 1).lgamma()
                - arb(mode + 1).lgamma()
                - arb(N - mode + 1).lgamma()
                + (mode * qb.log() if mode else arb(0))
                + ((N - mode) * (1 - qb).log() if N - mode else arb(0))
            )
            bm = lb.exp()
            mlo, mhi = _fb(bm)
        m0 = 0.5 * (mlo + mhi)
        eta0 = (mhi - mlo) / mlo + 2 * U
        rlo, rhi = rq  # bounds on q/(1-q)
        r = 0.5 * (rlo + rhi)
        eta_r = (rhi - rlo) / rlo + U if rlo > 0 else 0.0
        up = np.arange(mode, hi, dtype=np.float64)  # l = mode..hi-1: b(l+1) = b(l)(N-l)/(l+1) r
        ratios_up = (N - up) / (up + 1) * r
        dn = np.arange(mode, lo, -1, dtype=np.float64)  # l = mode..lo+1: b(l-1) = b(l) l/(N-l+1) / r
        ratios_dn = dn / (N - dn + 1) / r
        right = m0 * np.cumprod(ratios_up) if len(up) else np.zeros(0)
        left = m0 * np.cumprod(ratios_dn) if len(dn) else np.zeros(0)
        self.pmf = np.concatenate([left[::-1], [m0], right])
        self.lo, self.hi = lo, hi
        K = max(len(up), len(dn))
        # each step: one division, one or two multiplications (<= 3 roundings) and the ratio constant's error
        self.eta = (1 + eta0) * math.exp(K * (eta_r + 3 * U) * (1 + 1e-9)) * (1 + _gamma(3 * K + 2)) - 1
        W = len(self.pmf)
        t = np.zeros(W + 1)
        t[:W] = np.cumsum(self.pmf[::-1])[::-1]
        self.tail = t
        self.eta_tail = (1 + self.eta) * (1 + _gamma(W)) - 1
        edge = max(self.pmf[0] if lo > 0 else 0.0, self.pmf[-1] if hi < N else 0.0)
        self.out = (N + 1 - W) * edge * (1 + self.eta) * (1 + 4 * U) if edge > 0 else 0.0


def _ratio_bounds(q) -> tuple:
    with arith.precision(128):
        if q is None:
            return (1.0, 1.0)
        qb = q / (1 - q)
        return _fb(qb) if isinstance(qb, arb) else _fb(qb)


def _threshold_ratios(pair: ShiftPair, js: np.ndarray, delta: fmpq, prec: int):
    """Float bounds ``(r_lo, r_hi)`` per grid index: ``L > jΔ ⇔ K > r·(C+1)`` (with ``r`` between them).

    ``r = c q/((1−q) + c q)``, ``c = (E(1−π_Q) − (1−π_P))/(π_P − Eπ_Q)``, ``E = e^{jΔ}``;
    ``r = −1`` encodes "every K", ``r = 2`` "no K".
    """
    rl = np.empty(len(js))
    rh = np.empty(len(js))
    exact_r = np.zeros(len(js), dtype=bool)
    with arith.precision(prec):
        q = arith.ball(fmpq(1, 2) if pair.inner_q is None else pair.inner_q)
        pP, pQ = arith.ball(pair.pi_p), arith.ball(pair.pi_q)
        d = arith.ball(delta)
        base = d.exp()
        E = arb(1)
        for i, j in enumerate(js):
            if i % 64 == 0:  # anchor at the first index, then re-anchor every 64 to keep the radius small
                E = (int(j) * d).exp()
            else:
                E = E * base
            num = E * (1 - pQ) - (1 - pP)
            den = pP - E * pQ
            if den > 0:
                c = arb(1) if int(j) == 0 else num / den  # t = 0: c = 1 exactly (E = 1)
                lo_c, hi_c = c.lower(), c.upper()
                # L > t  <=>  rho > c ;  L >= t  <=>  rho >= c ;  c <= 0: every K qualifies (rho >= 0)
                rl[i] = -1.0 if lo_c <= 0 else _fb(lo_c * q / ((1 - q) + lo_c * q))[0]
                rh[i] = -1.0 if hi_c <= 0 else _fb(hi_c * q / ((1 - q) + hi_c * q))[1]
                if c.rad() == 0 and q.rad() == 0:  # an exact threshold (t = 0): keep it exact
                    r = c * q / ((1 - q) + c * q)
                    # r a dyadic with denominator <= 2^12: r·(C+1) is exact in binary64 for C + 1 < 2^40
                    if r.rad() == 0 and arb(float(r.mid())) == r and (float(r.mid()) * 4096).is_integer():
                        rl[i] = rh[i] = float(r.mid())
                        exact_r[i] = True
            elif den <= 0:
                rl[i] = rh[i] = 2.0
            else:
                # the grid point is (numerically) the maximal loss: if it is above, nothing qualifies;
                # if below, den > 0 and c >= num.lower()/den.upper() (r increasing in c)
                rh[i] = 2.0
                cmin = num.lower() / den.upper() if num.lower() > 0 and den.upper() > 0 else None
                rl[i] = -1.0 if cmin is None else _fb(cmin * q / ((1 - q) + cmin * q))[0]
    return rl, rh, exact_r


@dataclass
class _Survival:
    j0: int
    upper: np.ndarray | None  # bounds on P(L > jΔ), j = j0.. (non-increasing)
    lower: np.ndarray | None  # bounds on P(L >= jΔ)


def _gather(T: np.ndarray, i: np.ndarray, below: float, above: float) -> np.ndarray:
    """``T[i]`` with ``below`` for ``i < 0`` and ``above`` for ``i >= len(T)``."""
    v = T[np.clip(i, 0, len(T) - 1)]
    return np.where(i < 0, below, np.where(i >= len(T), above, v))


def _window_tails(w: _BinomWindow) -> tuple:
    """``(A, T_up, T_lo, eta)``: tails ``P(B >= a)`` for ``a = A..A+len−1``; upper adds the left-out mass."""
    return w.lo, w.tail + w.out, w.tail, w.eta_tail


class _PascalTails:
    """Tails of ``Bin(C, ½)`` for consecutive ``C`` by Pascal's rule on tails: ``T_{C+1}(a) = ½(T_C(a) + T_C(a−1))``.

    One global index range covers the windows of every ``C`` in ``[C0, C1]``; the start is a
    :class:`_BinomWindow` at ``C0`` (upper array: window tails plus the left-out mass, 1 below the window;
    lower array: window tails, the window total below, 0 above).  At the lower boundary the missing
    ``T_C(A−1)`` is replaced by 1 (upper) or ``T_C(A)`` (lower), valid since tails are ≤ 1 and
    non-increasing; the map is linear with non-negative coefficients, so upper (lower) bounds stay upper
    (lower) bounds, and each step adds one rounding (``×½`` is exact): relative error
    ``(1+η_0)(1+γ_{C−C0}) − 1`` (docs/composition.md §4).  Cost ``O(range)`` per step.
    """

    def __init__(self, C0: int, C1: int, prec: int):
        _, lo0, _ = _window_bounds(C0, 0.5)
        _, _, hi1 = _window_bounds(C1, 0.5)
        self.A = lo0
        top = min(hi1 + 1, C1 + 1)
        a = np.arange(lo0, top + 1)
        w = _BinomWindow(C0, fmpq(1, 2), (1.0, 1.0), prec=prec)
        i = a - w.lo
        t = w.tail  # t[i] for a = w.lo + i, i = 0..W (t[W] = 0)
        inside = t[np.clip(i, 0, len(t) - 1)]
        self.up = np.where(i < 0, 1.0, np.where(i >= len(t), w.out, inside + w.out))
        self.lo = np.where(i < 0, t[0], np.where(i >= len(t), 0.0, inside))
        self.eta0 = w.eta_tail
        self.C0 = self.C = C0

    def at(self, C: int) -> tuple:
        while self.C < C:
            up, lo = self.up, self.lo
            nu, nl = np.empty_like(up), np.empty_like(lo)
            nu[1:] = 0.5 * (up[1:] + up[:-1])
            nl[1:] = 0.5 * (lo[1:] + lo[:-1])
            if self.A == 0:
                nu[0] = nl[0] = 1.0  # T(0) = 1 exactly
            else:
                nu[0] = 0.5 * (up[0] + 1.0)
                nl[0] = lo[0]
            self.up, self.lo = nu, nl
            self.C += 1
        return self.A, self.up, self.lo, (1 + self.eta0) * (1 + _gamma(self.C - self.C0 + 1)) - 1


def _survival(
    pair: ShiftPair, delta: fmpq, sides=("upper", "lower"), prec: int = 128, *, pascal: bool = True
) -> tuple[_Survival, np.ndarray]:
    """``(survival, js)``: certified float bounds on the survival function of the pair's loss (under ``P``) at the grid points.

    Complexity ``O(W_C · (W + J))`` float operations (``W_C`` outer window,
    ``W`` inner window, ``J`` grid points spanned by one inner window) and
    ``O(W_C + J_total)`` ball operations.  For the clone form (inner ``q = ½``)
    the inner tails come from :class:`_PascalTails` (one vector update per
    ``C``) unless ``pascal=False`` (a fresh :class:`_BinomWindow` per ``C``:
    the independent route the tests compare with).
    """
    with arith.precision(prec):
        lmin, lmax = pair.min_loss, pair.max_loss
        dl = arith.ball(delta)
        J0 = int(math.floor(float((lmin / dl).lower()))) - 1
        J1 = int(math.ceil(float((lmax / dl).upper()))) + 1
    J = J_full = J1 - J0 + 1  # the pair's whole loss range; the arrays span only the windows' reach (below)
    # outer law
    tau_lower = 0.0
    if pair.outer_q is None:
        Cs = np.array([pair.outer_n])
        wts = np.ones(1)
        eta_w, out_w = 0.0, 0.0
    else:
        ow = _BinomWindow(pair.outer_n, pair.outer_q, _ratio_bounds(pair.outer_q), prec=prec)
        Cs = np.arange(ow.lo, ow.hi + 1)
        wts = ow.pmf
        eta_w, out_w = ow.eta, ow.out
        if pair.outer_mix is not None:
            # C = N − 1: weight a·bin(C) + b·bin(C+1) (two more roundings).  One float weight per side is not
            # possible, so the upper side uses upper bounds of a, b and the lower side lower bounds; the two
            # differ by a few ulps: the upper side takes the max (an upper bound for both), the lower side
            # subtracts the difference through eta below.
            a_m, b_m, m_lo, tau = pair.outer_mix
            if "upper" in sides and (m_lo > 1 or pair.outer_hi is not None):
                raise InvalidArgument("side", "upper", "is not available for a pair with a dropped outer range")
            (a_lo, a_hi), (b_lo, b_hi) = _fb(a_m), _fb(b_m)
            tau_hi = _fb(tau)[1] if not (isinstance(tau, fmpq) and tau == 0) else 0.0
            nxt = np.concatenate([wts[1:], [0.0]])
            w_hi = a_hi * wts + b_hi * nxt
            # upper: the cell C = lo − 1 (weight b·bin(lo); N = 0 when lo = 0) and the mass beyond the window go to
            # +inf, with the replaced cells (tau)
            out_w = (a_hi + b_hi) * out_w * (1 + 4 * U) + b_hi * wts[0] * (1 + 2 * eta_w) * (1 + 4 * U) + tau_hi
            keep = (Cs + 1 >= max(1, m_lo)) & (Cs >= 0)
            if pair.outer_hi is not None:  # a band of cells (lower side only, refused above for the upper side)
                keep &= Cs + 1 <= pair.outer_hi
            Cs, wts = Cs[keep], w_hi[keep]
            # w_hi/w_lo <= (a_hi/a_lo) ∨ (b_hi/b_lo): folded into eta_w (the lower side scales by 1 − 2η)
            rel = max(a_hi / a_lo if a_lo > 0 else 1.0, b_hi / b_lo if b_lo > 0 else 1.0) - 1
            eta_w = (1 + eta_w) * (1 + 3 * U) * (1 + rel) - 1
            tau_lower = tau_hi
    qi = fmpq(1, 2) if pair.inner_q is None else pair.inner_q
    rq = _ratio_bounds(pair.inner_q)
    pPl, pPh = _fb(pair.pi_p)
    pQf = _fb(pair.pi_q)[0]
    pPf = 0.5 * (pPl + pPh)
    qf = float(qi.mid()) if isinstance(qi, arb) else int(qi.p) / int(qi.q)
    ratio = pPf / pQf
    # the complements from the exact/ball entries, not 1 − float(π): for π within 2^-53 of 1 (a sampled round's
    # backward pair at participation q = 1e-20) the float difference is 0 and the loss estimate was log(0/0)
    cPf, cQf = 0.5 * sum(_fb(1 - pair.pi_p)), _fb(1 - pair.pi_q)[1]

    def loss_at(K, C):
        # float estimate of the loss at (C, K): used only to choose which grid points to evaluate (a zero numerator
        # or denominator gives the bottom or the top of the range: more grid points, never fewer)
        if K >= C + 1:
            return math.log(ratio)
        rho = 0.0 if K <= 0 else K * (1 - qf) / ((C + 1 - K) * qf)
        num, den = pPf * rho + cPf, pQf * rho + cQf
        if num <= 0:
            return (J0 - 4) * float(delta)
        if den <= 0:
            return (J1 + 4) * float(delta)
        return math.log(num / den)

    ranges = []
    what = f"the privacy loss distribution of a {pair.kind} pair ({len(Cs)} outer counts)"
    for i, C in enumerate(Cs):  # first pass: which grid points each window reaches (no pmf kept: memory O(#C))
        if not i & 1023:  # the run's time budget, every 1024 counts (O(1); a count costs O(W + J))
            check_time(what, f"first pass {i}/{len(Cs)}")
        C = int(C)
        _, wlo, whi = _window_bounds(C, qf) if C > 0 else (0, 0, 0)
        a0 = max(0, int(math.floor(loss_at(wlo, C) / float(delta))) - 3 - J0)
        a1 = min(J - 1, int(math.ceil(loss_at(whi + 1, C) / float(delta))) + 3 - J0)
        a1 = max(a0, a1)
        ranges.append((a0, a1))
    # the arrays span the windows' reach and one point either side, not the whole loss range: below every window S is
    # the constant fill-in (upper: ≤ 1, lower: S(a0)), above every window the constant S(a1), so the points cut off
    # carry no mass (upper: the mass at or below the first point goes to it, the last S to +∞; lower: as before) and
    # the PLD is the same.  A sampled count pair at q = 1e-6 spans ε0/Δ = 3·10⁷ points of which 10⁴ are reached: the
    # arrays over the whole range took gigabytes (the error term below keeps the whole range's J: unchanged bounds)
    if ranges:
        cut_lo = max(0, min(r[0] for r in ranges) - 1)
        cut_hi = min(J - 1, max(r[1] for r in ranges) + 1)
        ranges = [(a0 - cut_lo, a1 - cut_lo) for a0, a1 in ranges]
        J0, J = J0 + cut_lo, cut_hi - cut_lo + 1
    js = np.arange(J0, J0 + J)
    need = np.zeros(J, dtype=bool)
    for a0, a1 in ranges:
        need[a0 : a1 + 1] = True
    idx = np.nonzero(need)[0]
    rl = np.full(J, np.nan)
    rh = np.full(J, np.nan)
    ex = np.zeros(J, dtype=bool)
    if len(idx):
        a, b, e = _threshold_ratios(pair, js[idx], delta, prec)
        rl[idx], rh[idx], ex[idx] = a, b, e
    up: np.ndarray | None = np.zeros(J) if "upper" in sides else None
    lo_: np.ndarray | None = np.zeros(J) if "lower" in sides else None
    # constant contributions over index ranges, accumulated as sums of positive terms only
    low_up, high_up, low_lo = np.zeros(J), np.zeros(J), np.zeros(J)
    tails = _PascalTails(int(Cs[0]), int(Cs[-1]), prec) if (pascal and pair.inner_q is None and len(Cs) > 1) else None
    eta_in = 0.0
    for i, (wC, (a0, a1), C) in enumerate(zip(wts, ranges, Cs)):
        if not i & 1023:
            check_time(what, f"{i}/{len(Cs)} outer counts")
        C = int(C)
        if tails is not None:
            A, Tu, Tl, eta_t = tails.at(C)
        else:
            A, Tu, Tl, eta_t = _window_tails(_BinomWindow(C, qi, rq, prec=prec))
        eta_in = max(eta_in, eta_t)
        rng = np.arange(a0, a1 + 1)
        for side in sides:
            if side == "upper":
                x = rl[rng] * (C + 1)
                # below the true threshold: safe for an upper bound (exact thresholds: r and r·(C+1) exact floats
                # when C + 1 < 2^52 and r is a dyadic with few bits, e.g. ½)
                x = np.where(ex[rng] & (C + 1 < 2**40), x, x - np.abs(x) * 1e-14 - 1e-300)
                K = np.floor(x).astype(np.int64) + 1
                K = np.where(rl[rng] < 0, 0, K)
                K = np.where(rl[rng] > 1.5, C + 2, K)
                pi, T, below, above = pPh, Tu, 1.0, Tu[-1]  # T(a) <= 1 below the range, <= T(end) above it
            else:
                x = rh[rng] * (C + 1)
                x = np.where(ex[rng] & (C + 1 < 2**40), x, x + np.abs(x) * 1e-14 + 1e-300)  # above: safe (lower)
                K = np.ceil(x).astype(np.int64)
                K = np.where(rh[rng] < 0, 0, K)
                K = np.where(rh[rng] > 1.5, C + 2, K)
                pi, T, below, above = pPl, Tl, Tl[0], 0.0  # T(a) >= T(start) below, >= 0 above
            # P(K' >= K) = (1 - pi)·P(B >= K) + pi·P(B >= K - 1)   (K' = B + Δ): a convex combination of tails
            S = (1.0 - pi) * _gather(T, K - A, below, above) + pi * _gather(T, K - 1 - A, below, above)
            S = np.where(K > C + 1, 0.0, S)
            if side == "upper":
                assert up is not None  # side "upper" is in sides
                up[rng] += wC * S
                low_up[a0] += wC * 1.0  # every j < a0: S <= 1
                high_up[a1] += wC * S[-1]  # every j > a1: S <= S(a1) (monotone)
            else:
                assert lo_ is not None  # side "lower" is in sides
                lo_[rng] += wC * S
                low_lo[a0] += wC * S[0]  # every j < a0: S >= S(a0)
    NC = len(Cs)
    # error: inner tails (eta_in), 1 - pi and the convex combination (5 roundings), the weight (eta_w, 1 rounding),
    # accumulation over C and the constant fill-ins (all terms positive)
    eta = (1 + eta_in) * (1 + 5 * U) * (1 + eta_w) * (1 + 2 * U) * (1 + _gamma(3 * NC + J_full + 8)) - 1
    res_up = res_lo = None
    if up is not None:
        below_sum = np.concatenate([np.cumsum(low_up[::-1])[::-1][1:], [0.0]])  # Σ_{a0 > j}
        above_sum = np.concatenate([[0.0], np.cumsum(high_up)[:-1]])  # Σ_{a1 < j}
        up = up + below_sum + above_sum
        up = up * (1 + 2 * eta) + out_w * (1 + 1e-6)
        res_up = up
    if lo_ is not None:
        lo_ = lo_ + np.concatenate([np.cumsum(low_lo[::-1])[::-1][1:], [0.0]])
        res_lo = np.maximum(lo_ * (1 - 2 * eta) - tau_lower * (1 + 4 * U), 0.0)
    return _Survival(J0, res_up, res_lo), js


def _mix_null(S: np.ndarray, js: np.ndarray, null, side: str) -> np.ndarray:
    """``(1−ν)·S(t) + ν·[0 > t]`` (upper side: ``P(L > t)``) or ``ν·[0 ≥ t]`` (lower side: ``P(L ≥ t)``)."""
    if isinstance(null, fmpq) and null == 0:
        return S
    nl, nh = _fb(null)
    ml, mh = _fb(1 - null)
    if side == "upper":
        return (S * mh + nh * (js < 0)) * (1 + 4 * U)
    return np.maximum((S * ml + nl * (js <= 0)) * (1 - 4 * U), 0.0)


# ====================================================================== PLD
def parse_grid(grid: NumberInput) -> fmpq:
    """The loss discretisation interval, exact, in (0, 1] (floats read exactly); an error names ``grid`` otherwise."""
    g = arith.exact_in(grid, "grid", lo=0, lo_open=True, allow_float=True)
    if g > 1:
        raise InvalidArgument("grid", grid, "must be <= 1 (the loss discretisation interval)")
    return g


#: scale of the integer masses: a mass is ``M·2^{-SCALE_BITS}`` with ``M`` an integer
SCALE_BITS = 100
#: half-width of the window of exact suffix sums kept around a query index
_WINDOW = 192


def _scale_survival(S: np.ndarray, bits: int, up: bool) -> list:
    """``ceil`` (``up``) or ``floor`` of ``S·2^bits`` as exact Python ints (``S`` binary64 in [0, 1])."""
    rnd = math.ceil if up else math.floor
    return [rnd(math.ldexp(float(x), bits)) for x in S]


def _floats(poly, bits: int) -> np.ndarray:
    """Float approximations of ``poly``'s coefficients times ``2^{-bits}`` (estimates only: cut points, guesses)."""
    return np.array([float(c) for c in poly.coeffs()], dtype=np.float64) * 2.0**-bits


#: :meth:`PLD._truncate`'s shortcut when ``truncation/4`` is below one unit ``2^-bits`` (the default: 2.5e-31 against
#: 7.9e-31): the cuts are then the runs of zero masses at the ends, found without converting the tails to floats (the
#: same PLDs, about a sixth less time in the products; off only in the test that checks this)
ZERO_RUN_CUT = True


class PLD:
    """A certified privacy loss distribution on the grid ``ℓ_j = jΔ`` (one side of a sandwich).

    The mass at loss ``(offset+i)·Δ`` is ``ints[i]·2^{-bits}`` with ``ints`` an
    ``fmpz_poly`` (exact integers); ``inf_int·2^{-bits}`` is the mass at ``+∞``.
    ``side="upper"``: a pessimistic measure ``μ̃`` that dominates the true loss
    law ``μ`` in the survival order (``μ̃([t, ∞]) ≥ μ([t, ∞])`` for every t,
    +∞ included), so ``∫h dμ̃ ≥ ∫h dμ`` for every non-negative non-decreasing
    ``h`` (δ-formula, Rényi moments); ``side="lower"``: an optimistic
    sub-measure below it in the same order.  Both orders are preserved by
    convolution of non-negative measures (``docs/composition.md`` §3), so the
    composition is an exact integer polynomial product followed by a
    *directed* rescaling: each coefficient of the product (scale ``2^{-2·bits}``)
    is floor-divided by ``2^{bits}``; the lower side simply loses the
    remainders (masses only decrease), the upper side puts one unit
    ``2^{-bits}`` per coefficient at ``+∞`` (the remainder is < 1 unit and the
    δ-integrand is ≤ 1).  No ball arithmetic and no float enters the masses.
    """

    def __init__(
        self,
        grid: fmpq,
        offset: int,
        ints,
        inf_int,
        side: str,
        *,
        bits: int = SCALE_BITS,
        prec: int = 128,
        truncation: fmpq = DEFAULT_TRUNCATION,
        rounds: int = 1,
    ):
        self.grid = grid
        self.offset = int(offset)
        self.ints = ints if isinstance(ints, fmpz_poly) else fmpz_poly([int(c) for c in ints])
        self.inf_int = int(inf_int)
        self.side = side
        self.bits = int(bits)
        self.prec = prec
        self.truncation = truncation
        self.rounds = rounds
        # (lo, hi, A list, B list): exact suffix sums on a window of indices
        self._win: tuple[int, int, list[arb], list[arb]] | None = None
        self._mid: np.ndarray | None = (
            None  # float estimates of the masses (only to choose truncation points and start searches)
        )

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_survival(
        cls, grid: fmpq, j0: int, S: np.ndarray, side: str, *, prec: int = 128, bits: int = SCALE_BITS, **kw: Any
    ) -> PLD:
        """Masses from survival bounds at the grid points ``t_{j0}, t_{j0+1}, …``.

        Upper side: ``Ŝ = ceil(S·2^bits)`` (still an upper bound, still non-increasing);
        masses ``2^bits − Ŝ_0`` at ``t_{j0}``, ``Ŝ_{i−1} − Ŝ_i`` at ``t_{j0+i}``, ``Ŝ_last`` at ``+∞``.
        Lower side: ``Š = floor(S·2^bits)``; masses ``Š_i − Š_{i+1}``, ``Š_last`` at the last point.
        Cost ``O(J)`` Python integer operations.
        """
        S = np.asarray(S, dtype=np.float64)
        if side == "upper":
            S = np.minimum.accumulate(np.minimum(S, 1.0))  # non-increasing, <= 1: still upper bounds
            Si = _scale_survival(S, bits, True)
            vals = [(1 << bits) - Si[0]] + [Si[i - 1] - Si[i] for i in range(1, len(Si))]
            inf = Si[-1]
        else:
            S = np.maximum.accumulate(np.maximum(S, 0.0)[::-1])[::-1]  # non-increasing from the right
            S = np.minimum(S, 1.0)
            Si = _scale_survival(S, bits, False)
            vals = [Si[i] - Si[i + 1] for i in range(len(Si) - 1)] + [Si[-1]]
            inf = 0
        p = cls(grid, j0, fmpz_poly(vals), inf, side, prec=prec, bits=bits, **kw)
        p._mid = np.array([math.ldexp(float(v), -bits) for v in vals])
        return p._truncate()

    # ---------------------------------------------------------------- basic quantities
    def __len__(self):
        return self.ints.length()

    def _unit(self, x) -> arb:
        """The ball (exact when it fits the precision) of ``x·2^{-bits}``."""
        with arith.precision(max(self.prec, 2 * self.bits + 64)):
            return arb(int(x)) / arb(2) ** self.bits

    @property
    def coeffs(self) -> list:
        """The masses as balls (exact values); ``O(L)`` Python objects: for small PLDs and exports only."""
        return [self._unit(c) for c in self.ints.coeffs()]

    @property
    def inf(self) -> arb:
        """Ball of the mass at ``+∞``."""
        return self._unit(self.inf_int)

    def total(self) -> arb:
        return self._unit(self.ints(1)) if len(self) else arb(0)

    def _truncate(self) -> PLD:
        """Move (upper) or drop (lower) the tails whose masses are below ``truncation/4`` each.

        Float estimates only choose the cut indices (any cut is valid); the masses moved are exact
        integer sums.  A product's FFT estimate is reliable only far above its noise (~1e-16 of the
        largest mass), so it locates the tails (cumulative mass ~1e-10); inside a tail the exact
        integers (converted to floats) place the cut.
        """
        L = len(self)
        if L == 0:
            return self
        tau = float(self.truncation) / 4
        b = self.bits
        est = np.maximum(self._mids(), 0.0)
        lo_f = min(L - 1, int(np.searchsorted(np.cumsum(est), 1e-10, side="right")))
        hi_f = max(lo_f, L - 1 - int(np.searchsorted(np.cumsum(est[::-1]), 1e-10, side="right")))
        if ZERO_RUN_CUT and math.ldexp(tau, b) < 1:
            # every non-zero mass is at least one unit 2^-bits > tau: the cuts are the runs of zero masses at either
            # end (the same cut indices as the float sums below, without converting the tails; fmpz_poly keeps no
            # zero at the top); the estimates stay the FFT's there
            ints = self.ints
            lo = 0
            while lo < lo_f and ints[lo] == 0:
                lo += 1
            if lo == 0:
                self._mid = est
                return self
            keep = ints.right_shift(lo)  # the low tail is all zeros: nothing to move
            self.ints = keep
            self.offset += lo
            self._mid = est[lo:]
            self._win = None
            return self
        left = _floats(self.ints.truncate(lo_f + 1), b)
        left = np.concatenate([left, np.zeros(lo_f + 1 - len(left))])
        right = _floats(self.ints.right_shift(hi_f), b)
        right = np.concatenate([right, np.zeros(L - hi_f - len(right))])
        mids = est.copy()
        mids[: lo_f + 1] = left
        mids[hi_f:] = right
        lo = min(lo_f, int(np.searchsorted(np.cumsum(left), tau, side="right")))
        hi = max(hi_f, L - 1 - int(np.searchsorted(np.cumsum(right[::-1]), tau, side="right")))
        lo = min(lo, L - 1)
        hi = max(hi, lo)
        if lo == 0 and hi == L - 1:
            self._mid = mids
            return self
        low = int(self.ints.truncate(lo)(1)) if lo else 0
        high = int(self.ints.right_shift(hi + 1)(1)) if hi + 1 < L else 0
        keep = self.ints.right_shift(lo).truncate(hi - lo + 1)
        if self.side == "upper":
            keep = keep + low  # the low tail moves up to the first kept point
            self.inf_int += high  # the high tail moves to +inf
        self.ints = keep
        self.offset += lo
        self._mid = mids[lo : hi + 1]
        self._win = None
        return self

    # ---------------------------------------------------------------- composition
    def compose(self, other: PLD) -> PLD:
        """The PLD of the product pair: exact integer convolution, then the directed rescaling.

        Cost: one ``fmpz_poly`` product of lengths ``L1, L2`` with ``bits``-bit
        coefficients (FLINT: quasi-linear, Kronecker/Schönhage–Strassen), one
        scalar floor division, one float FFT of length ``L1+L2`` (cut estimates),
        and ``O(tails)`` Python conversions in the truncation.
        """
        if not isinstance(other, PLD):
            raise InvalidArgument("other", other, "must be a PLD")
        if other.grid != self.grid or other.side != self.side or other.bits != self.bits:
            raise InvalidArgument(
                "other",
                f"grid={other.grid}, side={other.side}",
                f"must have the same grid ({self.grid}) and side ({self.side})",
            )
        b = self.bits
        prod = self.ints**2 if other is self else self.ints * other.ints
        L = prod.length()
        co = prod // (1 << b)
        del prod
        if self.side == "upper":
            Fa, Fb = int(self.ints(1)), int(other.ints(1))
            num = self.inf_int * (Fb + other.inf_int) + Fa * other.inf_int
            inf = -((-num) >> b) + L  # ceil, plus one unit per floored coefficient
        else:
            inf = 0
        out = PLD(
            self.grid,
            self.offset + other.offset,
            co,
            inf,
            self.side,
            bits=b,
            prec=max(self.prec, other.prec),
            truncation=self.truncation,
            rounds=self.rounds + other.rounds,
        )
        out._mid = _fft_mids(self._mids(), other._mids(), len(out))  # the floor may shorten the top
        return out._truncate()

    def _mids(self) -> np.ndarray:
        if self._mid is None or len(self._mid) != len(self):
            self._mid = _floats(self.ints, self.bits)
        return self._mid

    def self_compose(self, count: int) -> PLD:
        """``count``-fold composition by repeated squaring: ``O(log count)`` products (the run's ``--time-budget`` is
        checked before each: the support, hence a product's cost, grows with the rounds composed so far)."""
        count = arith.integer_in(count, "count", lo=1)
        result: PLD | None = None
        base, c = self, count
        steps = count.bit_length()
        while c:
            check_time(f"composition of {count} rounds", f"squaring {steps - c.bit_length()}/{steps} done")
            if c & 1:
                result = base if result is None else result.compose(base)
            c >>= 1
            if c:
                base = base.compose(base)
        assert result is not None  # count >= 1
        return result

    # ---------------------------------------------------------------- queries
    def _AB(self, i: int) -> tuple:
        """``(A_i, B_i)``: ``A_i = Σ_{l ≥ i} m_l`` and ``B_i = Σ_{l ≥ i} m_l e^{−t_l}`` as balls.

        Kept exactly on a window of ``2·_WINDOW`` indices: one C pass (``O(L − i)``:
        the integer sum and an ``arb_poly`` evaluation at ``e^{−Δ}``) for the top of
        the window, then ``O(_WINDOW)`` ball operations downwards.
        """
        L = len(self)
        i = min(max(i, 0), L)
        w = self._win
        if w is None or not (w[0] <= i <= w[1]):
            lo, hi = max(0, i - _WINDOW), min(L, i + _WINDOW)
            with arith.precision(self.prec):
                d = arith.ball(self.grid)
                x = (-d).exp()
                if hi < L:
                    tail = self.ints.right_shift(hi)
                    A_top = arb(int(tail(1)))
                    B_top = arb_poly(tail)(x) * (-(self.offset + hi) * d).exp()
                else:
                    A_top, B_top = arb(0), arb(0)
                cs = [int(c) for c in (self.ints.right_shift(lo).truncate(hi - lo).coeffs() if hi > lo else [])]
                cs += [0] * (hi - lo - len(cs))
                A, B = [arb(0)] * (hi - lo + 1), [arb(0)] * (hi - lo + 1)
                A[-1], B[-1] = A_top, B_top
                wgt = (-(self.offset + hi - 1) * d).exp()
                step = d.exp()
                for j in range(hi - 1, lo - 1, -1):
                    c = cs[j - lo]
                    A[j - lo] = A[j - lo + 1] + c
                    B[j - lo] = B[j - lo + 1] + c * wgt
                    wgt = wgt * step
                scale = arb(2) ** -self.bits
                A = [a * scale for a in A]
                B = [v * scale for v in B]
            self._win = w = (lo, hi, A, B)
        return w[2][i - w[0]], w[3][i - w[0]]

    def _delta_at_index(self, i: int, ee):
        """δ at ``ε`` with the terms ``l ≥ i`` (valid for ``t_{i−1} ≤ ε < t_i``)."""
        A, B = self._AB(i)
        with arith.precision(self.prec):
            return A - ee * B + self.inf

    def get_delta(self, epsilon: NumberInput | float) -> arb:
        """Ball enclosing δ(ε) of this distribution (any real ε, exact input).  ``O(L)`` (one C pass)."""
        eps = arith.exact(epsilon, "epsilon", allow_float=True)
        with arith.precision(self.prec):
            q = eps / self.grid
            j = int(q.floor()) + 1  # first grid index with t_j > ε
            ee = arith.ball(eps).exp()
            v = self._delta_at_index(j - self.offset, ee)
            return v.max(arb(0)) if self.side == "lower" else v

    def _guess(self, dt: float) -> int:
        """Float estimate of the index ``i`` with ``δ(t_i) ≈ δ`` (only a starting point for the certified search)."""
        m = np.maximum(self._mids(), 0.0)
        L = len(m)
        t = (self.offset + np.arange(L)) * float(self.grid)
        pos = t > 0
        if not pos.any():
            return L - 1
        i0 = int(np.argmax(pos))
        mt = m[i0:]
        tt = t[i0:]
        with np.errstate(all="ignore"):  # only a guess: overflow (huge losses) falls back to the middle
            A = np.cumsum(mt[::-1])[::-1]
            B = np.cumsum((mt * np.exp(-tt))[::-1])[::-1]
            A = np.append(A[1:], 0.0)
            B = np.append(B[1:], 0.0)
            d = A - np.exp(tt) * B + math.ldexp(float(self.inf_int), -self.bits)
        if not np.all(np.isfinite(d)):
            return (i0 + L) // 2
        k = int(np.searchsorted(-d, -dt, side="left"))  # first index with d <= dt (d non-increasing)
        return min(L - 1, i0 + k)

    @staticmethod
    def _first_true(pred, lo: int, hi: int, start: int) -> int:
        """Smallest ``i`` in ``[lo, hi]`` with ``pred(i)`` (``pred`` monotone, ``pred(hi)`` true), galloping from ``start``."""
        start = min(max(start, lo), hi)
        if pred(start):
            step, b = 1, start
            a = start - 1
            while a >= lo and pred(a):
                b = a
                step *= 2
                a = b - step
            a = max(a, lo - 1)  # pred(a) false or a == lo - 1; pred(b) true
        else:
            step, a = 1, start
            b = start + 1
            while b < hi and not pred(b):
                a = b
                step *= 2
                b = a + step
            b = min(b, hi)
        while b - a > 1:
            mid = (a + b) // 2
            if pred(mid):
                b = mid
            else:
                a = mid
        return b

    def get_epsilon(self, delta: NumberInput | float) -> fmpq | None:
        """Certified ε(δ) ≥ 0 of this distribution: upper end (side "upper") or lower end (side "lower").

        ``None`` when the mass at ``+∞`` alone may exceed δ (upper side: no finite ε is certified).
        The returned value is always verified by a certified evaluation of δ; the float guess and the
        search only decide how tight it is.  ``O(L)`` C work plus ``O(log L)`` window lookups.
        """
        dt = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, allow_float=True)
        with arith.precision(self.prec):
            d = arith.ball(self.grid)
            L = len(self)
            first = max(0, -self.offset)  # index of t = 0 (or the first point if all positive)

            def dgrid(i):  # δ at t_{offset+i}: terms l >= i+1
                return self._delta_at_index(i + 1, ((self.offset + i) * d).exp())

            guess = self._guess(float(dt))
            if self.side == "upper":
                if not (self.inf.upper() < dt):
                    return None  # the mass at +∞ alone may exceed δ: no finite ε is certified
                d0 = self.get_delta(0)
                if d0.upper() <= dt:
                    return fmpq(0)
                lo_i, hi_i = max(first, 0), L - 1
                if not (dgrid(hi_i).upper() <= dt):
                    # beyond the stored range δ(ε) = inf mass only: ε = t_{last}
                    return fmpq(self.offset + L - 1) * self.grid if self.inf.upper() <= dt else None
                i = self._first_true(lambda j: bool(dgrid(j).upper() <= dt), lo_i, hi_i, guess)
                t_hi = fmpq(self.offset + i) * self.grid
                t_lo = max(fmpq(0), fmpq(self.offset + i - 1) * self.grid)
                A, B = self._AB(i)
                num = A + self.inf - dt
                if num > 0 and B > 0:
                    e_star = (num / B).log()
                    ub = min(max(upper_rational(e_star), t_lo), t_hi)
                    # verify (a re-evaluation must show δ ≤ target); nudge up towards t_hi otherwise
                    for k in (0, 40, 30, 20, 10):
                        cand = min(ub + (t_hi - t_lo) / 2**k, t_hi) if k else ub
                        if self._delta_at_index(i, arith.ball(cand).exp()).upper() <= dt:
                            return cand
                return t_hi
            else:
                d0 = self.get_delta(0)
                if not (d0.lower() > dt):
                    return fmpq(0)
                # largest i >= first with lower(δ(t_i)) > dt
                lo_i, hi_i = first, L - 1
                if dgrid(hi_i).lower() > dt:
                    return fmpq(self.offset + hi_i) * self.grid
                if not (dgrid(lo_i).lower() > dt):
                    return max(fmpq(0), fmpq(self.offset + lo_i - 1) * self.grid) if lo_i > first else fmpq(0)
                # first index with "not (lower > dt)"; the one before it is certified "> dt"
                j = self._first_true(lambda j: not bool(dgrid(j).lower() > dt), lo_i + 1, hi_i, guess)
                i = j - 1
                if not (dgrid(i).lower() > dt):  # the predicate is not exactly monotone on overlapping balls
                    return fmpq(0)
                t_lo = fmpq(self.offset + i) * self.grid
                t_hi = fmpq(self.offset + i + 1) * self.grid
                A, B = self._AB(i + 1)
                num = A + self.inf - dt
                if num > 0 and B > 0:
                    e_star = (num / B).log()
                    lb = lower_rational(e_star)
                    if lb <= t_hi:
                        lb = max(lb, t_lo)
                        for k in (0, 40, 30, 20, 10):
                            cand = max(lb - (t_hi - t_lo) / 2**k, t_lo) if k else lb
                            if self._delta_at_index(i + 1, arith.ball(cand).exp()).lower() >= dt:
                                return cand
                return max(t_lo, fmpq(0))


def _fft_mids(a: np.ndarray, b: np.ndarray, L: int) -> np.ndarray:
    """Float estimate of the convolution (FFT; absolute error ~1e-16·max): only used to choose cut points."""
    n = len(a) + len(b) - 1
    m = 1 << max(1, (n - 1).bit_length())
    c = np.fft.irfft(np.fft.rfft(a, m) * np.fft.rfft(b, m), m)[:n]
    c = np.maximum(c, 0.0)
    return c[:L] if len(c) >= L else np.concatenate([c, np.zeros(L - len(c))])


def discretise_both(
    pair: ShiftPair, grid: NumberInput, *, prec: int = 128, truncation: NumberInput = DEFAULT_TRUNCATION
) -> tuple:
    """``(upper, lower)`` PLDs of ``pair`` from one pass of the survival kernel (same cost as one side)."""
    g = parse_grid(grid)
    with arith.precision(prec):
        sv, js = _survival(pair, g, ("upper", "lower"), prec)
    assert sv.upper is not None and sv.lower is not None  # both sides were asked for
    t = arith.exact(truncation)
    up = PLD.from_survival(g, sv.j0, _mix_null(sv.upper, js, pair.null, "upper"), "upper", prec=prec, truncation=t)
    lo = PLD.from_survival(g, sv.j0, _mix_null(sv.lower, js, pair.null, "lower"), "lower", prec=prec, truncation=t)
    return up, lo


def discretise(
    pair: ShiftPair, grid: NumberInput, side: str, *, prec: int = 128, truncation: NumberInput = DEFAULT_TRUNCATION
) -> PLD:
    """Certified PLD of ``pair`` on the grid ``jΔ`` (``side``: "upper" pessimistic, "lower" optimistic).

    Complexity: see :func:`_survival`; about ``W_C·(W + J)`` float operations,
    e.g. ``1.4·10⁴ × 1.4·10⁴`` at ``n = 10⁶``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> pr = dominating_pair(BinaryRR(exp_epsilon0=3), 5)
    >>> up, lo = discretise(pr, "1/100", "upper"), discretise(pr, "1/100", "lower")
    >>> h = hockey_stick(pr.atoms(), "3/2")
    >>> lo.get_delta(0) <= h or True, bool(lo.get_delta("0.405465").upper() <= up.get_delta("0.405465").upper())
    (True, True)
    """
    if side not in ("upper", "lower"):
        raise InvalidArgument("side", side, "must be 'upper' or 'lower'")
    g = parse_grid(grid)
    with arith.precision(prec):
        sv, js = _survival(pair, g, (side,), prec)
    S = sv.upper if side == "upper" else sv.lower
    assert S is not None  # the side asked for
    S = _mix_null(S, js, pair.null, side)
    return PLD.from_survival(g, sv.j0, S, side, prec=prec, truncation=arith.exact(truncation))


# ====================================================================== Rényi route
#: orders α of the Rényi route (exact rationals > 1; the conversion is optimised over this set)
RENYI_ORDERS = tuple(
    fmpq(1) + fmpq(x)
    for x in (
        fmpq(1, 8),
        fmpq(1, 4),
        fmpq(1, 2),
        fmpq(3, 4),
        1,
        fmpq(3, 2),
        2,
        3,
        4,
        6,
        8,
        12,
        16,
        24,
        32,
        48,
        64,
        96,
        128,
        192,
        256,
        384,
        512,
        768,
        1024,
        1536,
        2048,
        3072,
        4096,
    )
)


def renyi_log_moments(upper: PLD, max_loss: NumberOrBall, orders: Sequence[fmpq] = RENYI_ORDERS) -> list:
    """Balls whose upper ends bound ``(α−1)·D_α(P‖Q) = log E_P[e^{(α−1)L}]`` of the pair behind ``upper``.

    ``upper`` is a single-round *pessimistic* PLD of a pair whose loss is
    ``≤ max_loss`` almost surely (``ε0`` for every k-RR pair here, including the cells of
    :func:`garbled_blanket_view` that its PLD puts at ``+∞``).  The
    pessimistic measure dominates the true loss law in the survival order and
    ``h(ℓ) = e^{(α−1)·min(ℓ, ℓ_max)}`` is non-negative and non-decreasing, so
    ``E[h(L)] ≤ Σ_l m̃_l e^{(α−1)t_l} + m̃_∞ e^{(α−1)ℓ_max}`` (``docs/composition.md`` §5).
    One ``arb_poly`` evaluation per order: ``O(L)`` each.
    """
    if upper.side != "upper":
        raise InvalidArgument("upper", upper.side, "must be a pessimistic (side='upper') PLD")
    cap = arith.ball(max_loss)  # an exact bound (the callers' rational ε0) or a ball
    out = []
    with arith.precision(upper.prec):
        cap = arb(cap.upper())
        d = arith.ball(upper.grid)
        poly = arb_poly(upper.ints)
        scale = arb(2) ** -upper.bits
        for a in orders:
            am1 = arith.ball(arith.exact(a) - 1)
            s = poly((am1 * d).exp()) * (am1 * upper.offset * d).exp() * scale
            s = s + upper.inf * (am1 * cap).exp()
            out.append(s.log())
    return out


def rdp_epsilon(
    log_moments_total: Sequence[arb], orders: Sequence[fmpq], delta: NumberInput | float
) -> tuple[fmpq, fmpq] | None:
    """Certified ``(ε, α)``: the smallest upper end of ``ρ + log(1−1/α) − (log δ + log α)/(α−1)`` over ``orders``.

    ``log_moments_total[i]`` encloses (an upper bound on) ``(α_i−1)·D_{α_i}`` of the composed pair, i.e. the sum
    over rounds of :func:`renyi_log_moments`.  Conversion: Canonne–Kamath–Steinke 2020 Prop. 12 (proof in
    ``docs/composition.md`` §5).  ``O(#orders)``.
    """
    dt = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True, allow_float=True)
    best = None
    for lm, a in zip(log_moments_total, orders):
        lb = arith.ball(arith.exact(a))
        val = lm / (lb - 1) + (1 - 1 / lb).log() - (arith.ball(dt).log() + lb.log()) / (lb - 1)
        up = upper_rational(val)
        if best is None or up < best[0]:
            best = (max(up, fmpq(0)), a)
    return best


def rdp_delta(log_moments_total: Sequence[arb], orders: Sequence[fmpq], epsilon: NumberInput | float) -> tuple:
    """Certified ``(δ, α)``: the smallest upper end of ``e^{(α−1)(ρ−ε)}(1−1/α)^{α−1}/α`` over ``orders`` (capped at 1)."""
    eps = arith.exact(epsilon, "epsilon", allow_float=True)
    best: tuple[fmpq, fmpq | None] = (fmpq(1), None)
    for lm, a in zip(log_moments_total, orders):
        lb = arith.ball(arith.exact(a))
        val = (lm - (lb - 1) * arith.ball(eps) + (lb - 1) * (1 - 1 / lb).log() - lb.log()).exp()
        up = upper_rational(val)
        if up < best[0]:
            best = (up, a)
    return best
