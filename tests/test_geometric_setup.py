"""The dominating law's O(m² log m) set-up (exact/shuffled/geometric.py ``_phi_fast``, docs/mechanisms.md "The
dominating law in O(m² log m)") against the O(m³) route it replaces (``_phi_direct``: every pair's stop-loss values
at every knot, the route given knots still take), and against a brute-force rational computation.

The direct route sums ``(v − t)_+`` over every pair's atoms and takes the maximum; the fast one uses ``E[V]`` in
closed form and prefix sums of the rows cut where ``R_x − ee·R_{x'}`` changes sign.  A wrong cut (one output too
many or too few), a wrong closed form or a missed pair changes an exact weight, which the equality below catches.
"""

import pytest
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers import arith
from blanket.exact.shuffled import geometric as G
from flint import arb, fmpq


def _both(mech, ee):
    return G._dominating_law(mech, None, ee, fast=False), G._dominating_law(mech, None, ee, fast=True)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 7, 20])
@pytest.mark.parametrize("a", ["1/3", "1/2", "4/5"])
@pytest.mark.parametrize("ee", [fmpq(1), fmpq(9, 8), fmpq(3, 2), fmpq(2)])
def test_exact_inputs_identical(m, a, ee):
    mech = Geometric(m, alpha=a)
    if ee >= mech.exp_epsilon0():  # delta is 0 there; the knots degenerate (no law is formed)
        return
    (s1, w1), (s2, w2) = _both(mech, ee)
    assert s1 == s2 and w1 == w2 and all(isinstance(w, fmpq) for w in w2)


def test_exact_ties_on_the_cut():
    # ee = α^{-t}: R_x(y) = ee·R_x'(y) exactly on a plateau of outputs (d_y = 0), decided exactly
    mech = Geometric(6, alpha="1/2")
    for t in (1, 2, 3):
        (s1, w1), (s2, w2) = _both(mech, fmpq(2**t))
        assert s1 == s2 and w1 == w2


def _contain(a, b):
    a, b = arith.ball(a), arith.ball(b)
    return a.contains(b) or b.contains(a)


@pytest.mark.parametrize("m", [5, 20])
@pytest.mark.parametrize("ee", [fmpq(1), fmpq(3, 2), arb("1.3")])
def test_ball_inputs_contain_each_other(m, ee):
    mech = Geometric(m, epsilon0=1)
    (s1, w1), (s2, w2) = _both(mech, ee)
    assert s1 == s2
    assert all(_contain(a, b) for a, b in zip(w1, w2)), (w1, w2)


def test_uncertain_cut_falls_back_and_agrees(monkeypatch):
    # ee = e^{ε0·2/(m−1)} = α^{-2} as a ball: the sign of d_y on a plateau is not decided, so the pairs concerned are
    # summed term by term; the result still overlaps the direct route's
    m = 5
    mech = Geometric(m, epsilon0=1)
    ee = (arb(2) / (m - 1)).exp()
    calls = []
    real = arith.positive_part
    monkeypatch.setattr(arith, "positive_part", lambda x: calls.append(1) or real(x))
    G._phi_fast(mech, mech.gamma(), ee, G.default_knots(mech, ee))
    assert calls  # the term-by-term sum ran for the undecided pairs
    monkeypatch.undo()
    (s1, w1), (s2, w2) = _both(mech, ee)
    assert s1 == s2
    assert all(arith.ball(a).overlaps(arith.ball(b)) for a, b in zip(w1, w2)), (w1, w2)


def test_against_brute_force_rationals():
    # Φ(0)/γ = max over ordered pairs of Σ_y (R_x(y) − ee·R_x'(y))_+ (Fractions, every pair, no mirror, no cut)
    from fractions import Fraction

    mech = Geometric(6, alpha="2/5")
    ee = fmpq(7, 5)
    rows = [[Fraction(int(v.p), int(v.q)) for v in row] for row in mech.rows()]
    e = Fraction(7, 5)
    hs = max(
        sum(max(rx - e * rz, Fraction(0)) for rx, rz in zip(rows[x], rows[z]))
        for x in range(6)
        for z in range(6)
        if x != z
    )
    g = mech.gamma()
    s = G.default_knots(mech, ee)
    phi = G._phi_fast(mech, g, ee, s)
    assert phi[1] == g * fmpq(hs.numerator, hs.denominator)
    assert phi[0] == g * (1 - ee) - s[0] and phi[2] == 0


def test_default_route_is_fast_at_m_100():
    # the public entry point takes the fast route with default knots: its weights equal the fast route's at m = 100
    mech = Geometric(100, alpha="49/50")
    s, w = G.dominating_law(mech, exp_epsilon=fmpq(11, 10))
    assert (s, w) == G._dominating_law(mech, None, fmpq(11, 10), fast=True)


def test_cost_model_composes_m_100():
    """The cost model (curve_pairs._geometric_point_seconds) charges the O(m² log m) set-up, so "auto" composes the
    m = 100 curve pair at n = 10⁴ (it declined it with the O(m³) charge: 8 s a point, 40 points above the 120 s
    budget).  The model's decision only; no timing."""
    import math

    from blanket.exact.accounting import accountant, curve_pairs
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled

    g = Geometric(100, epsilon0=1)
    assert ShuffleAccountant()._curve_points(Shuffled(g, 10**4)) == accountant.CURVE_PAIR_AUTO_POINTS
    base = curve_pairs._geometric_point_seconds(2, 0.5, 10**4)
    setup = [curve_pairs._geometric_point_seconds(m, 0.5, 10**4) - base for m in (100, 400)]
    assert setup[1] / setup[0] == pytest.approx(16 * math.log2(400) / math.log2(100), rel=0.02)
