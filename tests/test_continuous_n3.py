"""The blanket view at n = 3 against an independent mpmath quadrature at 50 digits (issue 27).

For the Laplace randomizer on [0, 1], inputs (0, 1), ``L`` has two atoms (``y < 0``, ``y > 1``, each of blanket
mass ``p = e^{−ε0/2}/2``) and is decreasing on [0, 1/2] and on [1/2, 1] with closed-form inverses, so
``F(c) = E_ω[(c + L)_+]`` is a closed form (the root of ``c + L`` by the inverse, the pieces by distribution
functions).  With ``I(c) = ∫_0^1 F(c + L(y)) ω(y) dy`` (a quadrature split wherever ``c + L(y)`` meets a kink of
``F``, so every piece is analytic):

    E_1 = F(0),  E_2 = p(F(a) + F(b)) + I(0),
    E_3 = p²(F(2a) + 2F(a+b) + F(2b)) + 2p(I(a) + I(b)) + ∫_0^1 I(L(y)) ω(y) dy   (split where L(y) + L(end) is a kink),
    δ_BV(3) = (1−γ)² E_1 + γ(1−γ) E_2 + (γ²/3) E_3        (Lemma 5.3 with M ~ Bin(3, γ)).

Everything is mpmath at 50 digits (its own exp/log and Gauss–Legendre quadrature to degree 3 on analytic pieces,
whose error estimate, ~1e-14, is added on both sides; no code shared with the engine).  The n = 2 value of the same
model is checked too (cheap), as the one-step-smaller case.  About 8 s (slow).
"""

from __future__ import annotations

import mpmath as mp
import pytest
from blanket.exact.mechanisms.continuous import Laplace
from blanket.exact.shuffled.continuous import blanket_view
from flint import fmpq

E0, EPS = fmpq(1), fmpq(1, 2)


class _Model:
    def __init__(self, e0: fmpq, eps: fmpq):
        self.e0 = mp.mpf(int(e0.p)) / int(e0.q)
        self.ee = mp.e ** (mp.mpf(int(eps.p)) / int(eps.q))
        self.g = mp.e ** (-self.e0 / 2)
        g, e0_, ee = self.g, self.e0, self.ee
        self.a = g * (mp.e**e0_ - ee)  # L below 0
        self.b = g * (1 - ee * mp.e**e0_)  # L above 1
        self.p = mp.e ** (-e0_ / 2) / 2  # blanket mass of each atom
        self.ends = [self.L(mp.mpf(0)), self.L(mp.mpf(1) / 2), self.L(mp.mpf(1))]
        self.kinks = sorted({-self.a, -self.b, *(-t for t in self.ends)})

    # the continuous part: decreasing on [0, 1/2] and on [1/2, 1]
    def L(self, y):
        g, e0, ee = self.g, self.e0, self.ee
        if y <= mp.mpf(1) / 2:
            return g * mp.e ** (e0 * (1 - 2 * y)) - g * ee
        return g - g * ee * mp.e ** (e0 * (2 * y - 1))

    def Linv(self, t, half: int):
        """The y in piece ``half`` (0: [0, 1/2], 1: [1/2, 1]) with L(y) = t, or None."""
        g, e0, ee = self.g, self.e0, self.ee
        if half == 0:
            z = t / g + ee
            y = (1 - mp.log(z) / e0) / 2 if z > 0 else None
            return y if y is not None and 0 <= y <= mp.mpf(1) / 2 else None
        z = 1 - t / g
        y = (1 + (mp.log(z / ee)) / e0) / 2 if z > 0 else None
        return y if y is not None and mp.mpf(1) / 2 <= y <= 1 else None

    def omega(self, y):  # the blanket density: the farther input's density over γ
        far = 1 if y <= mp.mpf(1) / 2 else 0
        return self.e0 / 2 * mp.e ** (-self.e0 * abs(y - far)) / self.g

    def _cdf(self, x, y):
        t = y - x
        return mp.e ** (self.e0 * t) / 2 if t <= 0 else 1 - mp.e ** (-self.e0 * t) / 2

    def _seg(self, c, u, v):
        """∫_u^v (c + L) ω = c·Ω[u, v] + ∫_u^v (μ_0 − e^ε μ_1)."""
        far = 1 if v <= mp.mpf(1) / 2 else 0
        mass = (self._cdf(far, v) - self._cdf(far, u)) / self.g
        return c * mass + (self._cdf(0, v) - self._cdf(0, u)) - self.ee * (self._cdf(1, v) - self._cdf(1, u))

    def F(self, c):
        """E_ω[(c + L)_+], closed form: L decreasing on each half, so {c + L > 0} = [start, y*)."""
        tot = self.p * max(c + self.a, 0) + self.p * max(c + self.b, 0)
        for half, (u, v) in enumerate(((mp.mpf(0), mp.mpf(1) / 2), (mp.mpf(1) / 2, mp.mpf(1)))):
            if c + self.L(v) >= 0:
                tot += self._seg(c, u, v)
            elif c + self.L(u) > 0:
                tot += self._seg(c, u, self.Linv(-c, half))
        return tot

    def _splits(self, targets):
        """Points of [0, 1] where L(y) equals one of ``targets`` (each half), with 0, 1/2, 1."""
        pts = {mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1)}
        for t in targets:
            for half in (0, 1):
                y = self.Linv(t, half)
                if y is not None:
                    pts.add(y)
        return sorted(pts)

    def _quad(self, f, pts):
        total, err = mp.mpf(0), mp.mpf(0)
        for u, v in zip(pts, pts[1:]):
            if v - u > mp.mpf(10) ** -45:
                val, e = mp.quad(f, [u, v], method="gauss-legendre", error=True, maxdegree=3)
                total, err = total + val, err + e
        return total, err

    def inner_integral(self, c):
        """∫_0^1 F(c + L(y)) ω(y) dy, split where c + L(y) is a kink of F."""
        return self._quad(lambda y: self.F(c + self.L(y)) * self.omega(y), self._splits([k - c for k in self.kinks]))

    def view(self, n: int):
        g, p, a, b = self.g, self.p, self.a, self.b
        E1 = self.F(mp.mpf(0))
        i0, e0 = self.inner_integral(mp.mpf(0))
        E2 = p * (self.F(a) + self.F(b)) + i0
        if n == 2:
            return (1 - g) * E1 + g / 2 * E2, e0
        ia, ea = self.inner_integral(a)
        ib, eb = self.inner_integral(b)
        outer_kinks = [k - t for k in self.kinks for t in self.ends]
        errs = []

        def inner(y):
            v, e = self.inner_integral(self.L(y))
            errs.append(e)
            return v * self.omega(y)

        i3, e3 = self._quad(inner, self._splits(outer_kinks))
        E3 = p * p * (self.F(2 * a) + 2 * self.F(a + b) + self.F(2 * b)) + 2 * p * (ia + ib) + i3
        err = (1 - g) * g * e0 + g * g / 3 * (2 * p * (ea + eb) + e3 + max(errs))
        return (1 - g) ** 2 * E1 + g * (1 - g) * E2 + g * g / 3 * E3, err


def _contains(v, ref, err) -> bool:
    lo, hi = mp.mpf(int(v.lower.p)) / int(v.lower.q), mp.mpf(int(v.upper.p)) / int(v.upper.q)
    return lo <= ref - err and ref + err <= hi


@pytest.mark.slow
def test_n3_enclosure_contains_mpmath_quadrature_50_digits():
    with mp.workdps(50):
        model = _Model(E0, EPS)
        r2, e2 = model.view(2)
        v2 = blanket_view(Laplace(E0), 2, epsilon=EPS, h=fmpq(1, 64))
        assert e2 < mp.mpf(10) ** -12 and _contains(v2, r2, e2), (float(v2.lower), float(r2), float(v2.upper))
        r3, e3 = model.view(3)
        v3 = blanket_view(Laplace(E0), 3, epsilon=EPS, h=fmpq(1, 64))
        assert e3 < mp.mpf(10) ** -12, e3
        assert _contains(v3, r3, e3), (float(v3.lower), float(r3), float(v3.upper))
        assert v3.width() < fmpq(1, 100) * v3.upper  # and the enclosure is narrow
