"""Tiny-q composed rounds of sampled binary RR: the worst-case curve pair is composed (docs/composition.md §5f,
"Tiny q over several rounds").

Two fixes, both choices over certified values: the accountant measures a curve pair's discretised length on the losses
the discretisation keeps (``accountant._kept_log_span``), and a round with the exact worst case extends its curve
grid past the top (``curve_pairs._extend_top``).  Independent route: the exact rationals of the Kronecker laws
``a^C b^(n−C)`` (``sampled_binary.laws_exact``), every dataset, both orders, the T = 2 products by brute force."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as acc_mod
from blanket.exact.accounting import curve_pairs, curves
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR
from blanket.exact.accounting.pld import DEFAULT_TRUNCATION
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.finite import KRR
from flint import fmpq

from tests.test_samplow15 import _exact_pair as _pair
from tests.test_samplow15 import _hs


def test_kept_span_drops_far_atoms_of_negligible_mass() -> None:
    """The hull of values on losses up to 2e-4 whose last value is ``far``: its chord to ``(α_max = 3, 0)`` leaves atoms
    at the losses ±log 3 of P-mass about 1.5·far.  far = 1e-45 (below the discretisation's tail cut): the kept span
    is the core's (< 1e-3) while the raw span (the old measure) is 2 log 3; far = 1e-20: the far atoms are kept (the
    measure can fail both ways).  Either way the discretised PLD's support lies within the kept span."""
    assert DEFAULT_TRUNCATION / 4 > fmpq(3, 10**45)
    for far, cut in ((fmpq(1, 10**45), True), (fmpq(1, 10**20), False)):
        pts = [(fmpq(1), fmpq(1, 10**6)), (fmpq(*math.exp(1e-4).as_integer_ratio()), fmpq(1, 10**7))]
        pts.append((fmpq(*math.exp(2e-4).as_integer_ratio()), far))
        cp = curves.pair_from_values(pts, alpha_max=fmpq(3))
        logs = [math.log(float(r)) for r, p, _q in cp.masses if r is not None and r > 0 and p > 0]
        raw = max(logs) - min(logs)
        span = acc_mod._kept_log_span(cp)
        grid = fmpq(1, 2**14)
        up = cp.discretise(grid, "upper")
        assert (len(up.coeffs) - 1) * float(grid) <= span + 2 * float(grid)
        if cut:
            assert span < 1e-3 and raw > 2
        else:
            assert span == raw


def test_curve_values_extended_past_the_top_are_certified() -> None:
    """Sampled binary RR, n = 5, q = 1/1000, e^ε0 = 3: every curve value (the extended points too) is at or above the
    exhaustive worst case over every dataset and both orders (exact rationals), and the hull pair's H is too at
    every grid point and between them."""
    e, q, n = fmpq(3), fmpq(1, 1000), 5
    rnd = Sampled(Shuffled(KRR(2, exp_epsilon0=e), n), q)
    mech = rnd.curve_event().mechanism
    cv = curve_pairs.curve_values(mech, n, max_points=16)
    cp = curve_pairs.curve_pair(mech, n, max_points=16)
    pairs = [_pair(e, q, n, C) for C in range(1, n + 1)]
    alphas = [a for a, _u, _s in cv.points] + [fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(29, 10)]
    for a in alphas:
        exact = max(_hs(pr, a) for pr in pairs)
        assert cp.hockey_stick(a) >= exact
    for a, u, _s in cv.points:
        assert u >= max(_hs(pr, a) for pr in pairs)


def test_two_rounds_at_or_above_the_exact_worst_composition() -> None:
    """T = 2, n = 5, q = 1/1000: the accountant's upper δ is at or above the exact δ of every fixed dataset pair's
    product (both orders), its lower δ at or below the largest of them."""
    e, q, n = fmpq(3), fmpq(1, 1000), 5
    eps = Fraction(1, 10)
    al = fmpq(110517, 100000)  # below e^(1/10) = 1.1051709..: the exact δ at ε = 1/10 is at most H there
    al_hi = fmpq(110518, 100000)  # above it: at least H there
    rnd = Sampled(Shuffled(KRR(2, exp_epsilon0=e), n), q)
    d = ShuffleAccountant().compose(rnd, count=2).get_delta(eps)
    lo_ex, hi_ex = fmpq(0), fmpq(0)
    for C in range(1, n + 1):
        pr = _pair(e, q, n, C)
        for x in (pr, [(b, a) for a, b in pr]):
            sq = [(p1 * p2, q1 * q2) for p1, q1 in x for p2, q2 in x]
            lo_ex = max(lo_ex, _hs(sq, al_hi))
            hi_ex = max(hi_ex, _hs(sq, al))
    assert Fraction(int(lo_ex.p), int(lo_ex.q)) <= d.upper
    assert d.lower <= Fraction(int(hi_ex.p), int(hi_ex.q))


@pytest.mark.slow
def test_tiny_q_composes_the_curve_pair() -> None:
    """n = 2·10⁴, q = 10⁻⁴, T = 2, δ = 10⁻⁶ (5-13 CPU s): the curve pair (hull of the exact worst case) is composed,
    not left out (before: the sampled blanket view, upper end 2.6652e-4; the lower end 2.4799e-4), the bracket is
    within 2 %, and the curve grid was extended past its top (ε0/1024, value about 1e-17) to a value ≤ TOP_DELTA."""
    rnd = Sampled(ShuffledRR(k=2, epsilon0="1", n=20000), "1/10000")
    acc = ShuffleAccountant().compose(rnd, count=2)
    r = acc.get_epsilon(Fraction(1, 10**6))
    assert any(p.startswith("hull of certified curve values") for p in r.details["pairs"])
    assert r.lower <= r.upper < Fraction(102, 100) * r.lower
    cv = curve_pairs.curve_values(rnd.curve_event().mechanism, 20000, max_points=acc_mod.CURVE_PAIR_AUTO_POINTS)
    tops = [(a, u) for a, u, _s in cv.points if a > curve_pairs._dyadic_exp(fmpq(1, 1024))]
    assert tops and min(u for _a, u in tops) <= curves.TOP_DELTA
