"""The frequency oracles' two-stratum lower pair: one weighted count of both strata of the third-value reports.

The composed lower pair :func:`blanket.exact.accounting.oracle_lower.third_value_banded_pair` sees each report of
one round on ``x z^{n−1}`` vs ``x' z^{n−1}`` through the *zero-hit* classes: the reports that hit ``z``
(``h_z = 1``) are lumped into the uninformative class.  They still carry signal (OUE at ε0 = 1: about 13 % of the
zero-hit statistic's large-n efficiency, docs/reference/oracles.md §5).  This pair keeps both strata in **one
integer per round**:

``D = Σ_reports y(report)``, ``y = w_0·(h_x − h_x')`` on a report with ``h_z = 0`` and ``y = w_1·(h_x − h_x')`` on a
report with ``h_z = 1``, for fixed integer weights ``(w_0, w_1)``.

``D`` is a deterministic function of the multiset of reports (a sum over it), so the pair ``(law of D under
x z^{n−1}, under x' z^{n−1})`` is a post-processing of one shuffled round and the δ of its ``T``-fold product a
certified lower bound on ``T`` rounds (docs/composition.md §1, "The two-stratum count").  The others' terms are
i.i.d. with the law ``ρ`` of ``y`` under ``R(z)``; the target's term has the law ``ρ_x`` (``ρ_{x'}``) of ``y`` under
``R(x)`` (``R(x')``).  With ``g_z(t) = Σ_y ρ(y) t^y`` the probability generating function (a Laurent polynomial):

``P = ρ_x * ρ^{*(n−1)}``, ``Q = ρ_{x'} * ρ^{*(n−1)}``  (``*`` convolution: the coefficients of ``g_x·g_z^{n−1}``).

The law of ``y`` is symmetric under ``h_x ↔ h_x'`` (every triple law here is), so ``Q`` is ``P`` mirrored
(``D → −D``): one pair for both orders.  The weights are chosen (floats: a choice only) to maximise the linear
statistic's efficiency ``(E_x y − E_{x'} y)²/Var_z y`` among small coprime integers (OUE ε0 = 1: ``(3, 1)``, about
e : 1, the ratio of the two strata's per-report signal-to-noise).

**Certified law** (:func:`_power_window`): ``g_z^{n−1}`` by repeated squaring in ball arithmetic, each product cut to
a window of the exponents ``±`` :data:`WINDOW_SD` standard deviations.  All coefficients are ≥ 0, so the mass cut off is at
most ``τ`` = the upper ends of the cut coefficients plus the factors' own ``τ_x + τ_y + τ_x·τ_y``; a product of two cut
polynomials ``(x_k + x_d)(y_k + y_d)`` differs from ``x_k·y_k`` on each kept exponent by a value in
``[0, max x_k·τ_y + max y_k·τ_x + τ_x·τ_y]``: that is added to the upper end.  The atoms whose ``P`` or ``Q`` window
is not entirely enclosed are dropped (a sub-probability pair: lower side only, like the banded pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd

import numpy as np
from blanket.exact.accounting import pld as _pld
from blanket.exact.accounting.pld import PLD
from blanket.exact.mechanisms.oracles import FourValue, cancellation_bits
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import oracle_exact
from flint import arb, arb_poly, fmpq, fmpq_poly

__all__ = ["MAX_WEIGHT", "WINDOW_SD", "StratumPair", "stratum_weights", "two_stratum_pair"]

#: the weights ``(w_0, w_1)`` are coprime integers at most this (the window of ``D`` grows with them)
MAX_WEIGHT = 4
#: working precision (bits) of the pair's parameters and law
PREC = 128
#: cost model of :meth:`StratumPair.seconds` (see there)
SECONDS_PER_WINDOW_TERM = 9e-6
SECONDS_LAW_FIXED = 0.1
#: half-width of the exponent window kept at every power, in standard deviations of that power's ``D``
WINDOW_SD = 20.0
#: plus this many times the largest ``|y|``: with ``p`` terms of variance ``σ²`` and ``|y| ≤ W`` Bernstein's inequality
#: bounds the mass beyond ``20σ√p + 41W`` by ``2e^{−61}`` at every ``p``.  Without it (``+W`` only) a sparse law (most
#: mass on ``y = 0``: OUE k = 8, ε0 = 14, n = 10^6, or ε0 = 10, n = 10^5) was cut at every early squaring, the cut
#: bound τ passed 1 and then squared into ``±10^186`` balls: no atom enclosed, "pair has no enclosed mass" (exit 2)
WINDOW_FLOOR = 41


def _classes(mech: FourValue, w0: int, w1: int) -> dict | None:
    """``{y: (P_z, P_x, P_x')}``: the law of one report's term ``y`` (module docstring) under ``R(z)``, ``R(x)``,
    ``R(x')``; ``None`` when the record has no triple law.  ``P_u = P_z·e^{ε0(h_u − h_z)}``.  O(1)."""
    law = oracle_exact.triple_hit_law(mech)
    if law is None:
        return None
    e = mech.exp_epsilon0()
    out: dict = {}
    for (a, b, c), pz in law.items():
        y = (w1 if c else w0) * (a - b)
        fx = (e if a else fmpq(1)) / (e if c else fmpq(1))
        fy = (e if b else fmpq(1)) / (e if c else fmpq(1))
        z0, x0, y0 = out.get(y, (fmpq(0), fmpq(0), fmpq(0)))
        out[y] = (z0 + pz, x0 + pz * fx, y0 + pz * fy)
    return out


def _efficiency(cls: dict) -> float:
    """``(E_x y − E_{x'} y)²/E_z y²`` (floats; only chooses the weights).  O(1)."""
    d = sum(y * (float(arith.ball(px).mid()) - float(arith.ball(py).mid())) for y, (_z, px, py) in cls.items())
    v = sum(y * y * float(arith.ball(pz).mid()) for y, (pz, _x, _y) in cls.items())
    return d * d / v if v > 0 else 0.0


def stratum_weights(mech: FourValue) -> tuple[int, int] | None:
    """The coprime weights ``(w_0, w_1)``, ``0 ≤ w ≤`` :data:`MAX_WEIGHT`, with the largest efficiency (module
    docstring; floats choose), ``None`` without a triple law or any signal.  ``(1, 0)`` is the zero-hit count alone.
    O(MAX_WEIGHT²)."""
    cands = [(a, b) for a in range(MAX_WEIGHT + 1) for b in range(MAX_WEIGHT + 1) if gcd(a, b) == 1]
    best, key = None, 0.0
    for w0, w1 in cands:
        cls = _classes(mech, w0, w1)
        if cls is None:
            return None
        f = _efficiency(cls)
        if f > key * (1 + 1e-9):
            best, key = (w0, w1), f
    return best


def _offset_poly(cls: dict, which: int, W: int, exact: bool):
    """The pgf of ``y`` under ``which`` (0: ``z``, 1: ``x``, 2: ``x'``) as a polynomial in ``t`` times ``t^W``."""
    cs = [fmpq(0)] * (2 * W + 1)
    for y, v in cls.items():
        cs[y + W] = cs[y + W] + v[which]
    if exact:
        return fmpq_poly(cs)
    return arb_poly([arith.ball(c) for c in cs])


def _upper(x: arb) -> float:
    """A float at or above the upper end of ``x``."""
    return math.nextafter(float(arith.endpoints(x)[1]), math.inf)


def _cut(cs: list, centre: int, half: int, carried: float) -> tuple[int, list, float]:
    """Keep the exponents ``centre ± half`` of the ball coefficients ``cs``: ``(first kept exponent, kept, τ)`` with
    ``τ`` a float upper bound on the true mass cut off: the upper ends of the cut coefficients plus ``carried`` (a
    bound on the mass the cut factors' cross terms add anywhere, module docstring).  O(len)."""
    lo, hi = max(0, centre - half), min(len(cs) - 1, centre + half)
    kept = cs[lo : hi + 1]
    s = arb(0)
    for c in cs[:lo] + cs[hi + 1 :]:
        s += c
    tau = (_upper(s) + carried) * (1 + 1e-12) if (lo > 0 or hi < len(cs) - 1 or carried > 0) else 0.0
    return lo, kept, tau


def _widen(cs: list, extra: float) -> list:
    """Each ball ``c`` replaced by one containing ``[c, c + extra]``.  O(len)."""
    if extra <= 0:
        return cs
    h = extra / 2  # exact in binary64 (extra is not subnormal: it is at least 1e-300)
    return [c + arb(h, h) for c in cs]


def _power_window(base: arb_poly, m: int, sd1: float, prec: int) -> tuple[int, list, float]:
    """``base^m`` (``base`` a probability pgf, ≥ 0 coefficients, sum 1; exponents shifted by its degree/2 per
    factor) cut to ``centre ± (WINDOW_SD·sd1·√(power) + WINDOW_FLOOR·W)`` at every step: ``(first kept exponent, ball coefficients, τ)``
    with ``τ`` the cut mass bound (module docstring).  O(log m) products of windows of ``O(sd1·√m)`` coefficients.
    """
    W = base.degree() // 2
    with arith.precision(prec):
        # (first exponent, coefficients, power, tau) for the result and the running square
        res = (0, [arb(1)], 0, 0.0)
        sq = (0, base.coeffs(), 1, 0.0)
        k = m
        while k:
            if k & 1:
                res = _mul(res, sq, W, sd1)
            k >>= 1
            if k:
                sq = _mul(sq, sq, W, sd1)
        return res[0], res[1], res[3]


def _mul(x: tuple, y: tuple, W: int, sd1: float) -> tuple:
    """The product of two cut powers (module docstring: widened by the cut masses), cut again.  O(len²) at worst
    (flint's ball polynomial product)."""
    xl, xc, xp, xt = x
    yl, yc, yp, yt = y
    prod = (arb_poly(xc) * arb_poly(yc)).coeffs()
    extra = 0.0
    if xt > 0 or yt > 0:
        mx = max((_upper(c) for c in xc), default=0.0)
        my = max((_upper(c) for c in yc), default=0.0)
        extra = (mx * yt + my * xt + xt * yt) * (1 + 1e-12) + 1e-300
    prod = _widen(prod, extra)
    p = xp + yp
    first = xl + yl
    centre = p * W - first  # the index of exponent 0 of D (offset p·W)
    half = int(math.ceil(WINDOW_SD * sd1 * math.sqrt(p))) + WINDOW_FLOOR * W
    # the cross terms' total mass is at most τ_y·Σx_k + τ_x·Σy_k + τ_x·τ_y <= τ_x + τ_y + τ_x·τ_y (each Σ <= 1)
    lo, kept, tau = _cut(prod, centre, half, xt + yt + xt * yt)
    return first + lo, kept, p, tau


@dataclass(frozen=True)
class StratumPair:
    """The two-stratum count of the module docstring as a lower pair: ``n`` users, weights ``(w0, w1)``, the report
    law ``classes`` (``{y: (P_z, P_x, P_x')}``).  Lower side only (its ball law drops far atoms)."""

    n: int
    w0: int
    w1: int
    classes: dict
    kind: str = "dataset-stratum"
    description: str = ""
    #: a floor on the per-report standard deviation that sizes the exponent windows (a choice only: every window is
    #: certified by its cut mass).  A sampled round's law (most mass on ``y = 0``) has heavier tails than its
    #: standard deviation says; its plain round's deviation keeps the cut mass negligible
    #: (:func:`blanket.exact.accounting.sampled_lower.four_value_stratum_pair`)
    window_sd1: float = 0.0
    #: bits beyond the caller's precision for the law and the losses (a large ε0: the classes' masses are
    #: ``~e^{−ε0}``; SUE k = 3, n = 4, q = 1/2, ε0 = 200 enclosed no atom at 128 bits;
    #: :func:`~blanket.exact.mechanisms.oracles.cancellation_bits`)
    extra_prec: int = 0
    #: the enclosed atoms ``(P lower end as a float rounded down, loss ball)``, computed once (every grid reuses them)
    _memo: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def _W(self) -> int:
        return max(abs(y) for y in self.classes)

    def exact(self) -> bool:
        return all(oracle_exact.is_exact(v) for t in self.classes.values() for v in t)

    def atoms(self) -> list:
        """All atoms ``((d,), P, Q)`` of ``D``, exact (``fmpq_poly`` power; an exact record only).
        ``O(n·W)`` atoms, small ``n`` only (tests)."""
        if not self.exact():
            raise InvalidArgument("mech", "a ball record", "atoms() needs an exact record (exp_epsilon0 rational)")
        W = self._W
        S = _offset_poly(self.classes, 0, W, True) ** (self.n - 1)
        P = S * _offset_poly(self.classes, 1, W, True)
        Q = S * _offset_poly(self.classes, 2, W, True)
        off = W * self.n
        L = max(P.degree(), Q.degree()) + 1
        out = []
        for i in range(L):
            p, q = P[i], Q[i]
            if p != 0 or q != 0:
                out.append(((i - off,), p, q))
        return out

    def window(self) -> float:
        """The length of the final exponent window of :meth:`law_balls` (float; a cost model).  O(1)."""
        var = max(sum(y * y * float(arith.ball(v[0]).mid()) for y, v in self.classes.items()), self.window_sd1**2)
        return 2 * WINDOW_SD * math.sqrt(max(var, 0.0) * self.n) + 2 * WINDOW_FLOOR * self._W + 1

    def seconds(self) -> float:
        """Estimated one-core seconds of :meth:`law_balls` and the atoms' loss balls (the first discretisation):
        ``SECONDS_PER_WINDOW_TERM·L·log2 L`` for the final window length ``L`` plus a fixed part.  Measured on the
        loaded machine (load 6), OUE k = 128, ε0 = 1: 0.64 CPU s at n = 10^4 (L ≈ 5.6·10^3), 7.4 s at 10^6 (L ≈ 5.6·10^4).
        An estimate only.  O(1)."""
        L = max(self.window(), 2.0)
        return SECONDS_LAW_FIXED + SECONDS_PER_WINDOW_TERM * L * math.log2(L)

    def law_balls(self, prec: int = 128) -> tuple[int, list, list]:
        """``(d0, P, Q)``: ball enclosures of ``P(D = d)``, ``Q(D = d)`` for ``d = d0, d0+1, …`` on the window where
        both are enclosed (module docstring, certified law); the rest of the mass is dropped.  ``O(log n)`` ball
        polynomial products of ``O(WINDOW_SD·sd·W)`` coefficients (``sd`` the standard deviation of one report's
        ``y``·√n)."""
        W = self._W
        with arith.precision(prec):
            base = _offset_poly(self.classes, 0, W, False)
            var = sum(y * y * float(arith.ball(v[0]).mid()) for y, v in self.classes.items())
            sd1 = max(math.sqrt(max(var, 1e-300)), self.window_sd1)
            first, S, _tau = _power_window(base, self.n - 1, sd1, prec)
            px = _offset_poly(self.classes, 1, W, False).coeffs()
            py = _offset_poly(self.classes, 2, W, False).coeffs()
            # the coefficients of S·p on the indices whose whole stencil lies in the window (outside it S is only
            # bounded by tau: those atoms are dropped); exponent of S index i is first + i − (n−1)·W
            Sp = arb_poly(S)
            P = (Sp * arb_poly(px)).coeffs()
            Q = (Sp * arb_poly(py)).coeffs()
            k = 2 * W  # P index j uses S indices j − 2W .. j
            full = first == 0 and len(S) == 2 * W * (self.n - 1) + 1  # nothing cut: S is 0 outside, all enclosed
            lo, hi = (0, len(P) - 1) if full else (k, len(S) - 1)
            P, Q = P[lo : hi + 1], Q[lo : hi + 1]
            d0 = first + lo - (self.n - 1) * W - W
        return d0, P, Q

    def _enclosed(self, prec: int) -> list:
        """The atoms with a positive ``P`` lower end and a finite loss ball: ``[(P lower end rounded down to a float,
        loss ball log(P/Q))]``, memoised.  :meth:`law_balls` plus ``O(atoms)`` ball logarithms."""
        if prec not in self._memo:
            out = []
            with arith.precision(prec + self.extra_prec):
                _d0, P, Q = self.law_balls(prec + self.extra_prec)
                for p, q in zip(P, Q):
                    plo = arith.endpoints(p)[0]
                    if plo <= 0 or not (q > 0):
                        continue
                    loss = (p / q).log()
                    m = math.nextafter(float(plo), 0.0)
                    if loss.is_finite() and m > 0:  # else too wide a ball: dropped (lower side)
                        out.append((m, loss))
            self._memo[prec] = out
        return self._memo[prec]

    def discretise(self, grid: Fraction | fmpq, side: str, *, prec: int = 128) -> PLD:
        """The optimistic (``side="lower"``) PLD on the grid ``jΔ``: each enclosed atom's ``P``-mass lower end at the
        grid point at or below the lower end of its loss ``log(P/Q)``; survival summed in floats from below and
        scaled down by the sum's relative error.  ``O(atoms)`` ball operations plus :meth:`law_balls`."""
        if side != "lower":
            raise InvalidArgument("side", side, "must be 'lower' (the two-stratum pair drops far atoms: lower only)")
        g = _pld.parse_grid(grid)
        with arith.precision(prec):
            gb = arith.ball(g)
            js, ms = [], []
            for m, loss in self._enclosed(prec):
                lo = arith.endpoints(loss / gb)[0]
                js.append(lo.numerator // lo.denominator)
                ms.append(m)
        if not js:
            raise InvalidArgument("pair", self.description, "has no enclosed mass (n too small or too large)")
        j = np.array(js)
        j0 = int(j.min())
        hist = np.zeros(int(j.max()) - j0 + 1)
        np.add.at(hist, j - j0, np.array(ms))
        S = np.cumsum(hist[::-1])[::-1]
        S = np.maximum(S * (1 - 4 * (len(ms) + 2) * _pld.U), 0.0)  # float sums of at most len(ms) terms, rounded down
        return PLD.from_survival(g, j0, S, "lower", prec=prec)


def two_stratum_pair(mech: FourValue, n: int, weights: tuple[int, int] | None = None) -> StratumPair | None:
    """The two-stratum lower pair of ``mech`` at ``n`` users (module docstring), or ``None`` (no triple law, ``n <
    2``, no signal).  ``weights``: ``(w_0, w_1)``, default :func:`stratum_weights`.  O(1) (the law is computed when
    the pair is discretised)."""
    if not isinstance(mech, FourValue):
        raise InvalidArgument("mech", mech, "must be one of OUE, SUE, Hadamard, Subset")
    n = arith.integer_in(n, "n", lo=1)
    if n < 2:
        return None
    if weights is None:
        weights = stratum_weights(mech)
        if weights is None:
            return None
    w0, w1 = (arith.integer_in(w, "weights", lo=0) for w in weights)
    if w0 == 0 and w1 == 0:
        raise InvalidArgument("weights", weights, "must not both be 0")
    extra = cancellation_bits(mech)
    with arith.precision(PREC + extra):
        cls = _classes(mech, w0, w1)
    if cls is None:
        return None
    return StratumPair(
        n=n,
        w0=w0,
        w1=w1,
        classes=cls,
        extra_prec=extra,
        description=(
            f"all other users hold a third value z, reports counted as {w0}·(h_x − h_x') when h_z = 0 and "
            f"{w1}·(h_x − h_x') when h_z = 1 (two-stratum count)"
        ),
    )
