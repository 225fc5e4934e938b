"""The shuffled Laplace and Gaussian mechanisms: records, the certified blanket view, its bracket (issue 27).

Independent references: mpmath at 50 digits (its own erfc/exp, its own root finding and quadrature) for the
blanket view at n = 1 and n = 2 (Lemma 5.3: n = 1 is ∫(μ_x − e^ε μ_x')_+, n = 2 adds the two-user term
E[(L_1 + L_2)_+] as a quadrature over the first output of a closed-form inner integral).
"""

from __future__ import annotations

import mpmath as mp
import pytest
from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.continuous import (
    blanket_view,
    epsilon_bracket,
    leaf_laws,
    quantised_epsilon_lower,
    quantised_rr,
)
from blanket.exact.shuffled.krr import delta_krr_family
from blanket.proofs import blanket as B
from flint import arb, fmpq

mp.mp.dps = 50


# ---------------------------------------------------------------- an independent mpmath model
class _Ref:
    """Densities, distribution functions and L of a mechanism, in mpmath (no code shared with the engine)."""

    def __init__(self, kind: str, param: str, x: str, x2: str, eps: str):
        self.kind = kind
        self.p = mp.mpf(fmpq_str(param))
        self.x, self.x2 = mp.mpf(fmpq_str(x)), mp.mpf(fmpq_str(x2))
        self.ee = mp.e ** mp.mpf(fmpq_str(eps))
        if kind == "laplace":
            self.g = mp.e ** (-self.p / 2)
            self.breaks = [mp.mpf(0), self.x, self.x2, mp.mpf(1) / 2, mp.mpf(1)]
        else:
            self.g = 2 * mp.ncdf(-1 / (2 * self.p))
            T = 12 * self.p
            self.breaks = [-T, mp.mpf(1) / 2, 1 + T]
        self.breaks = sorted(set(self.breaks))

    def mu(self, x, y):
        if self.kind == "laplace":
            return self.p / 2 * mp.e ** (-self.p * abs(y - x))
        return mp.npdf(y, x, self.p)

    def F(self, x, y):
        if self.kind == "laplace":
            t = y - x
            return mp.e ** (self.p * t) / 2 if t <= 0 else 1 - mp.e ** (-self.p * t) / 2
        return mp.ncdf(y, x, self.p)

    def floor(self, y):  # inf_x mu_x(y): the farthest input in [0, 1]
        return self.mu(mp.mpf(1) if y <= mp.mpf(1) / 2 else mp.mpf(0), y)

    def Gfloor(self, y):  # ∫_{-∞}^y inf_x mu_x
        if y <= mp.mpf(1) / 2:
            return self.F(mp.mpf(1), y)
        return self.F(mp.mpf(1), mp.mpf(1) / 2) + self.F(mp.mpf(0), y) - self.F(mp.mpf(0), mp.mpf(1) / 2)

    def L(self, y):
        return self.g * (self.mu(self.x, y) - self.ee * self.mu(self.x2, y)) / self.floor(y)

    def pieces(self):
        return [(-mp.inf, self.breaks[0])] + list(zip(self.breaks, self.breaks[1:])) + [(self.breaks[-1], mp.inf)]

    def _int_L(self, a, b):  # ∫_a^b L ω = ∫_a^b (mu_x − e^ε mu_x')
        Fa = (lambda z: mp.mpf(0)) if a == -mp.inf else (lambda z: self.F(z, a))
        Fb = (lambda z: mp.mpf(1)) if b == mp.inf else (lambda z: self.F(z, b))
        return (Fb(self.x) - Fa(self.x)) - self.ee * (Fb(self.x2) - Fa(self.x2))

    def _mass(self, a, b):  # ω-mass of [a, b]
        ga = mp.mpf(0) if a == -mp.inf else self.Gfloor(a)
        gb = self.g if b == mp.inf else self.Gfloor(b)
        return (gb - ga) / self.g

    def e_pos(self, c):
        """E_ω[(c + L)_+]: L is monotone on each piece, so {c + L > 0} is a sub-interval found by bisection."""
        total = mp.mpf(0)
        for a, b in self.pieces():
            lo = a if a != -mp.inf else b - 60 * (self.p if self.kind == "gaussian" else 1 / self.p)
            hi = b if b != mp.inf else a + 60 * (self.p if self.kind == "gaussian" else 1 / self.p)
            fa, fb = c + self.L(lo + mp.mpf(10) ** -40), c + self.L(hi - mp.mpf(10) ** -40)
            if fa >= 0 and fb >= 0:
                seg = (a, b)
            elif fa < 0 and fb < 0:
                continue
            else:
                u = mp.findroot(
                    lambda y: c + self.L(y), (lo + mp.mpf(10) ** -40, hi - mp.mpf(10) ** -40), solver="anderson"
                )
                seg = (a, u) if fa >= 0 else (u, b)
            total += c * self._mass(*seg) + self._int_L(*seg)
        return total

    def view(self, n: int):
        d1 = self.e_pos(mp.mpf(0))
        if n == 1:
            return d1
        assert n == 2
        # E[(L1+L2)_+] = ∫ ω(y1) E[(L(y1)+L2)_+] dy1
        two = mp.mpf(0)
        for a, b in self.pieces():
            f = lambda y: self.floor(y) / self.g * self.e_pos(self.L(y))  # noqa: E731
            if self.kind == "laplace" and (b == 0 or a == 1):  # L constant below 0 and above 1
                two += self._mass(a, b) * self.e_pos(self.L(b - 1 if b == 0 else a + 1))
            else:
                two += mp.quad(f, [a, b])
        return (1 - self.g) * d1 + self.g / 2 * two


def fmpq_str(s: str) -> str:
    q = fmpq(*map(int, s.split("/"))) if "/" in s else fmpq(int(s))
    return f"{q.p}/{q.q}" if q.q != 1 else str(q.p)


def _contains(v, ref) -> bool:
    lo, hi = mp.mpf(int(v.lower.p)) / int(v.lower.q), mp.mpf(int(v.upper.p)) / int(v.upper.q)
    return lo <= ref <= hi


# ---------------------------------------------------------------- records
def test_records_and_errors():
    assert Laplace(scale=2).epsilon0 == fmpq(1, 2)
    assert Laplace(1).gamma().overlaps(arb(-0.5).exp())
    assert Gaussian(1).exp_epsilon0() is None
    for bad in (lambda: Laplace(0), lambda: Laplace(1, scale=1), lambda: Gaussian(0), lambda: Gaussian("-1")):
        with pytest.raises(InvalidArgument):
            bad()
    with pytest.raises(InvalidArgument, match="x2"):
        blanket_view(Laplace(1), 3, epsilon=fmpq(1, 2), x=0, x2=0)
    with pytest.raises(InvalidArgument, match="Gaussian"):
        blanket_view(Gaussian(1), 3, epsilon=fmpq(1, 2), x=0, x2=fmpq(1, 2))


def test_cells_carry_the_whole_blanket_and_the_mean_of_L():
    """Σ masses = γ (leaf units within their rounding) and the upper law's mean is ≥ E[Y] = γ(1 − e^ε) ≥ the lower's."""
    for mech in (Laplace(1), Laplace(fmpq(1, 3)), Gaussian(1)):
        ee = arith.exp_ball(fmpq(1, 5))
        with arith.precision(192):
            up, lo, _, _, _ = leaf_laws(mech, fmpq(0), fmpq(1), ee, fmpq(1, 32))
            scale = 2**96
            mean = mech.gamma() * (1 - ee)
            m_up = sum(u * (up.offset + i) for i, u in enumerate(up.units)) / scale / 32
            m_lo = sum(u * (lo.offset + i) for i, u in enumerate(lo.units)) / scale / 32
            assert abs(sum(up.units) / scale - 1) < 1e-12 and abs(sum(lo.units) / scale - 1) < 1e-12
            assert float(mean.mid()) <= m_up + 1e-12 and m_lo <= float(mean.mid()) + 1e-12


@pytest.mark.parametrize(
    "kind,param,x,x2,eps",
    [
        ("laplace", "1", "0", "1", "1/2"),
        ("laplace", "2", "1/4", "3/4", "1/4"),
        ("laplace", "1/2", "1", "0", "1/10"),
        pytest.param("gaussian", "1", "0", "1", "1/4", marks=pytest.mark.slow),
    ],
)
def test_enclosure_contains_mpmath_quadrature(kind, param, x, x2, eps):
    ref = _Ref(kind, param, x, x2, eps)
    mech = Laplace(fmpq_str(param)) if kind == "laplace" else Gaussian(fmpq_str(param))
    v = blanket_view(mech, 1, epsilon=arith.exact(eps), x=arith.exact(x), x2=arith.exact(x2), h=fmpq(1, 64))
    r = ref.view(1)
    assert _contains(v, r), (float(v.lower), float(r), float(v.upper))
    assert v.width() < fmpq(1, 100) * v.upper


@pytest.mark.slow
def test_enclosure_contains_mpmath_quadrature_two_users():
    """n = 2: the two-user term by an outer mpmath quadrature (about a minute at 50 digits)."""
    ref = _Ref("laplace", "1", "0", "1", "1/2")
    v = blanket_view(Laplace(1), 2, epsilon=fmpq(1, 2), h=fmpq(1, 64))
    r = ref.view(2)
    assert _contains(v, r), (float(v.lower), float(r), float(v.upper))


def test_refining_the_lattice_narrows_the_enclosure():
    widths = []
    for h in (fmpq(1, 8), fmpq(1, 32), fmpq(1, 128)):
        v = blanket_view(Laplace(1), 30, epsilon=fmpq(1, 4), h=h)
        widths.append(v.width())
    assert widths[0] > widths[1] > widths[2] > 0


def test_worst_pair_on_a_grid_is_zero_one():
    """A certified search over a grid of pairs at small n: no pair's lower end exceeds the (0, 1) upper end.
    (A grid search of the engine itself; that (0, 1) is the worst pair of the continuum is proved,
    docs/reference/blanket.md §4, and checked by a closed-form oracle in tests/test_continuous_worst_pair.py.)"""
    grid = [fmpq(0), fmpq(1, 4), fmpq(1, 2), fmpq(3, 4), fmpq(1)]
    for n in (2, 20):
        best = blanket_view(Laplace(1), n, epsilon=fmpq(1, 4), h=fmpq(1, 64))
        for a in grid:
            for b in grid:
                if a != b and {a, b} != {0, 1}:
                    v = blanket_view(Laplace(1), n, epsilon=fmpq(1, 4), x=a, x2=b, h=fmpq(1, 64))
                    assert v.lower <= best.upper
                    assert v.upper < best.lower  # strictly smaller: (0, 1) is the unique worst of the grid


def test_encoded_laplace_bounds_are_above_the_exact_view():
    """Theorem 5.3 [laplace] (Hoeffding) and the Bennett bound [laplace] ≥ the blanket view's upper end."""
    for e0, eps, n in [("1", "1/2", 10), ("1", "1/4", 100), ("1/2", "1/10", 300), ("2", "1/2", 1000)]:
        v = blanket_view(Laplace(e0), n, epsilon=arith.exact(eps), h=fmpq(1, 32))
        for r in (B.THEOREM_5_3_LAPLACE, B.BENNETT_LAPLACE):
            bound = r.bound(epsilon0=e0, epsilon=eps, n=n)
            assert arith.le(arb(v.upper), bound) is True, (r.key, e0, eps, n)


def test_lemma_5_8_range_against_the_cells():
    """Lemma 5.8 (1): every cell's range of L lies within [e^{−ε0/2} − e^{ε+ε0/2}, e^{ε0/2} − e^{ε−ε0/2}]."""
    from blanket.exact.shuffled.continuous import cells

    for e0, eps in [(fmpq(1), fmpq(1, 2)), (fmpq(2), fmpq(1, 10))]:
        with arith.precision(128):
            ee = arith.exp_ball(eps)
            finite, _ = cells(Laplace(e0), fmpq(0), fmpq(1), ee, fmpq(1, 16))
            lo = arith.exp_ball(-e0 / 2) - arith.exp_ball(eps + e0 / 2)
            hi = arith.exp_ball(e0 / 2) - arith.exp_ball(eps - e0 / 2)
            slack = arb(2) ** -100
            assert all(c.lo.lower() >= lo.lower() - slack and c.hi.upper() <= hi.upper() + slack for c in finite)
            assert any(c.hi.overlaps(hi) for c in finite) and any(c.lo.overlaps(lo) for c in finite)


def test_epsilon_bracket_is_certified_both_ways():
    b = epsilon_bracket(Laplace(1), 200, "1e-3", h=fmpq(1, 64))
    assert 0 < b.lo < b.hi
    assert blanket_view(Laplace(1), 200, epsilon=b.hi, h=fmpq(1, 64)).upper <= fmpq(1, 1000)
    assert blanket_view(Laplace(1), 200, epsilon=b.lo, h=fmpq(1, 64)).lower > fmpq(1, 1000)


@pytest.mark.parametrize("mech", [Laplace(1), pytest.param(Gaussian(1), marks=pytest.mark.slow)])
def test_quantised_lower_end_lies_below_the_upper_end(mech):
    """The thresholded randomizer's exact δ on a concrete dataset ≤ the blanket view's upper end (both directions
    of the bracket: in δ at fixed ε, and in ε at fixed δ)."""
    rr = quantised_rr(mech)
    h = fmpq(1, 64) if isinstance(mech, Laplace) else fmpq(1, 8)
    for n, eps in [(50, fmpq(1, 4)), (400, fmpq(1, 8))]:
        v = blanket_view(mech, n, epsilon=eps, h=h)
        with arith.precision(128):
            d = delta_krr_family(rr, n, "same", epsilon=eps)
        assert arith.le(d, arb(v.upper)) is True
    b = epsilon_bracket(mech, 400, "1e-3", h=h)
    assert 0 < quantised_epsilon_lower(mech, 400, "1e-3") <= b.hi


def test_cli_prints_the_bracket(capsys):
    import json

    from blanket.reports.cli import main

    code = main(["epsilon", "--mechanism", "laplace", "--epsilon0", "1", "-n", "300", "--delta", "1e-3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and 0 < float(out["epsilon"]["lower"]) < float(out["epsilon"]["upper"])
    for argv, word in (
        (["--mechanism", "gaussian", "--epsilon0", "1"], "epsilon0"),
        (["--mechanism", "gaussian"], "--sigma"),
        (["--mechanism", "laplace", "--sigma", "1", "--epsilon0", "1"], "--sigma"),
    ):
        code = main(["epsilon", *argv, "-n", "300", "--delta", "1e-3"])
        err = capsys.readouterr().err
        assert code == 2 and word in err and "Traceback" not in err
