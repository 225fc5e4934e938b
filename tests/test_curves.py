"""Worst-case privacy curves as pairs (exact/accounting/curves.py; docs/composition.md §6).

Independent routes: the exact worst case over all datasets of binary RR (exact rationals, every dataset, both
orders: exact.shuffled.binary.delta_binary), exact products of finite pairs, and the stronger-clone pair's atoms.
"""

from __future__ import annotations

import pytest
from blanket.exact.accounting import curves
from blanket.exact.accounting.accountant import CURVE_AUTO_N, ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.pld import dominating_pair, hockey_stick, product_atoms
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.binary import _other_law_exact, delta_binary
from flint import fmpq, fmpq_poly
from hypothesis import given
from hypothesis import strategies as st

ALPHAS = [fmpq(1), fmpq(11, 10), fmpq(5, 4), fmpq(3, 2), fmpq(2), fmpq(5, 2), fmpq(3), fmpq(4)]


def exhaustive_worst(mech, n, alpha):
    """max over every c and both directions of the exact δ at e^ε = alpha (alpha ≥ 1), rationals."""
    return max(delta_binary(mech, n, c, exp_epsilon=alpha) for c in range(n))


@pytest.mark.parametrize("n", [2, 3, 7, 12])
def test_binary_curve_pair_is_above_the_exhaustive_worst_case_and_within_float_rounding(n):
    mech = BinaryRR(exp_epsilon0=3)
    pr = curves.binary_worst_pair(mech, n)
    assert sum(p for _, p, _ in pr.masses) == 1 and sum(q for _, _, q in pr.masses) == 1
    assert pr.mass_at_infinity == 0 and pr.max_ratio <= 3
    for a in ALPHAS:
        h, w = pr.hockey_stick(a), exhaustive_worst(mech, n, a)
        assert h >= w and h - w <= fmpq(1, 10**12), (n, a)
    # alpha < 1 follows by reflection: E(1/a) = 1 - 1/a + E(a)/a
    for a in ALPHAS[1:]:
        assert pr.hockey_stick(1 / a) >= 1 - 1 / a + exhaustive_worst(mech, n, a) / a


def test_binary_curve_pair_is_below_the_stronger_clone_pair():
    mech = BinaryRR(exp_epsilon0=3)
    n = 9
    pr = curves.binary_worst_pair(mech, n)
    clone = dominating_pair(mech, n).atoms()
    gaps = [hockey_stick(clone, a) - pr.hockey_stick(a) for a in ALPHAS[:-2]]
    assert all(g >= -fmpq(1, 10**12) for g in gaps) and max(gaps) > fmpq(1, 1000)  # strictly tighter somewhere


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 100)), min_size=1, max_size=6), st.integers(0, 6))
def test_pair_from_values_reproduces_its_hull_and_refining_never_raises(raw, extra):
    # a valid curve: values of a real pair's H (binary RR, n = 5) at grid points, so every U_j >= E(alpha_j)
    mech = BinaryRR(exp_epsilon0=3)
    truth = curves.binary_worst_pair(mech, 5)
    grid = sorted({fmpq(10 + a, 10) for a, _ in raw if fmpq(10 + a, 10) <= 3})
    vals = [(a, truth.hockey_stick(a) + fmpq(b, 1000)) for a, b in [(g, 0) for g in grid]]
    pr = curves.pair_from_values(vals, alpha_max=3)
    # the pair's curve passes through every vertex of the hull and lies at or below every given point
    verts = curves.lower_convex_hull([(fmpq(0), fmpq(1)), (fmpq(3), fmpq(0)), *vals])
    for a, v in verts:
        assert pr.hockey_stick(a) == v
    for a, u in vals:
        assert pr.hockey_stick(a) <= u and pr.hockey_stick(a) >= truth.hockey_stick(a)
    # refining: more certified points never raise the curve anywhere
    finer = vals + [(fmpq(10 + extra, 10) + fmpq(1, 20), truth.hockey_stick(fmpq(10 + extra, 10) + fmpq(1, 20)))]
    pf = curves.pair_from_values(finer, alpha_max=3)
    for a in ALPHAS + [fmpq(1, 2), fmpq(1, 3)]:
        assert pf.hockey_stick(a) <= pr.hockey_stick(a)


def _dataset_pair_atoms(mech, n, c):
    """The exact pair (P_1, P_0) of the dataset with c ones among the others, as atoms."""
    e = mech.exp_epsilon0()
    p, f = e / (e + 1), 1 / (e + 1)
    g = _other_law_exact(p, f, n, c)
    P1 = (g * fmpq_poly([f, p])).coeffs()
    P0 = (g * fmpq_poly([p, f])).coeffs()
    m = max(len(P1), len(P0))
    P1 += [fmpq(0)] * (m - len(P1))
    P0 += [fmpq(0)] * (m - len(P0))
    return [((k,), P1[k], P0[k]) for k in range(m)]


@pytest.mark.parametrize("T", [2, 3])
def test_composed_curve_pair_dominates_every_dataset_pair_and_is_below_the_clone_pair(T):
    mech = BinaryRR(exp_epsilon0=3)
    n = 5
    pr = curves.binary_worst_pair(mech, n)
    cur = [((i,), p, q) for i, (_, p, q) in enumerate(pr.masses)]
    clone = dominating_pair(mech, n).atoms()
    cur_T, clone_T = cur, clone
    for _ in range(T - 1):
        cur_T, clone_T = product_atoms(cur_T, cur), product_atoms(clone_T, clone)
    for c in range(n):
        d = _dataset_pair_atoms(mech, n, c)
        dT = d
        for _ in range(T - 1):
            dT = product_atoms(dT, d)
        for a in (fmpq(1), fmpq(3, 2), fmpq(2), fmpq(4)):
            assert hockey_stick(cur_T, a) >= hockey_stick(dT, a) - fmpq(1, 10**12), (c, a)
            # both orders (the reverse pair is (P_0, P_1))
            rev = [(k, q, p) for k, p, q in dT]
            assert hockey_stick(cur_T, a) >= hockey_stick(rev, a) - fmpq(1, 10**12), (c, a)
    for a in (fmpq(1), fmpq(3, 2), fmpq(2)):
        assert hockey_stick(cur_T, a) <= hockey_stick(clone_T, a) + fmpq(1, 10**12)  # float rounding of the curve


def test_discretised_curve_pair_sandwiches_its_exact_hockey_stick():
    mech = BinaryRR(exp_epsilon0=3)
    pr = curves.binary_worst_pair(mech, 8)
    up, lo = pr.discretise_both("1/64")
    for eps in ("0", "1/10", "1/2", "1"):
        with arith.precision(128):
            ee = arith.exp_param(eps, None)
            exact_h = sum(
                (arith.ball(p) - ee * q for _, p, q in pr.masses if arith.gt(arith.ball(p) - ee * q, 0) is not False),
                arith.ball(0),
            )
            assert arith.le(lo.get_delta(eps), up.get_delta(eps)) is not False
            assert up.get_delta(eps).upper() >= exact_h.lower()
            assert lo.get_delta(eps).lower() <= exact_h.upper()


def test_accountant_composes_the_curve_pair_for_small_binary_rr(monkeypatch):
    """Within CURVE_AUTO_N the certified composed epsilon is within 5 % of the mechanism's lower bound (n = 200,
    T = 50; 2 % of it is the default PLD sandwich width), and below what the blanket-view pair certifies."""
    from fractions import Fraction

    import blanket.exact.accounting.accountant as accountant

    ev = ShuffledRR(k=2, epsilon0="1", n=200)
    assert 200 <= CURVE_AUTO_N and isinstance(ev.dominating_pair(), curves.FinitePair)
    assert "worst-case privacy curve" in ev.dominating_pair().description
    e = ShuffleAccountant().compose(ev, count=50).get_epsilon("1e-6")
    assert e.lower <= e.upper <= e.lower * Fraction(105, 100)
    monkeypatch.setattr(accountant, "CURVE_GRID_N", 0)  # the blanket-view (stronger-clone) pair, as before
    old = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0="1", n=200), count=50).get_epsilon("1e-6")
    assert e.upper < old.upper and old.upper > max(e.lower, old.lower) * Fraction(110, 100)


def test_bad_curve_input_is_refused_by_name():
    with pytest.raises(InvalidArgument, match="alpha"):
        curves.pair_from_values([(fmpq(1, 2), fmpq(1, 10))], alpha_max=3)
    with pytest.raises(InvalidArgument, match="value"):
        curves.pair_from_values([(fmpq(2), fmpq(-1, 10))], alpha_max=3)
    with pytest.raises(InvalidArgument, match="point"):
        curves.pair_from_roc([(fmpq(-1, 10), fmpq(1, 2))])


@pytest.mark.parametrize("e0, n", [("1", 60), ("1/2", 150), ("2", 97)])
def test_grid_curve_values_are_certified_upper_values_of_the_exact_curve(e0, n):
    """The block sweep's values (float kernel, docs/numerics.md Lemma C1) against the exact ROC hull (independent:
    ball pmfs on the full support, every dataset and threshold): above it at every grid point, and within 1e-10."""
    mech = BinaryRR(epsilon0=e0)
    exact = curves.binary_worst_pair(mech, n)
    grid = curves.curve_grid(e0, 48)
    vals = curves.binary_worst_curve_values(mech, n, grid, workers=1, progress=False)
    for a, u in vals:
        h = exact.hockey_stick(a)
        assert u >= h - fmpq(1, 10**13), (a, u, h)  # the ROC route itself is exact to ~1e-15
        assert u - h <= fmpq(1, 10**10)


def test_grid_curve_pair_is_between_the_exact_curve_and_the_clone_pair_and_refining_never_raises():
    mech = BinaryRR(epsilon0="1")
    n = 80
    exact = curves.binary_worst_pair(mech, n)
    coarse = curves.binary_worst_curve_pair(mech, n, points=16, workers=1, progress=False)
    fine = curves.binary_worst_curve_pair(mech, n, points=64, workers=1, progress=False)
    clone = dominating_pair(mech, n).atoms()
    # the fine grid contains the coarse one (i/16 = 4i/64): more certified points, never a higher curve
    assert set(curves.curve_grid("1", 16)) <= set(curves.curve_grid("1", 64))
    for a in (fmpq(1, 2), fmpq(1), fmpq(21, 20), fmpq(6, 5), fmpq(3, 2), fmpq(2), fmpq(5, 2)):
        hf, hc, he = fine.hockey_stick(a), coarse.hockey_stick(a), exact.hockey_stick(a)
        assert he - fmpq(1, 10**12) <= hf <= hc + fmpq(1, 10**12)
        with arith.precision(128):
            assert arith.le(hf, arith.ball(hockey_stick(clone, a)) + fmpq(1, 10**12)) is not False


def test_curve_grid_is_dyadic_increasing_and_below_e_to_the_epsilon0():
    g = curves.curve_grid("1", 100)
    assert g[0] == 1 and all(a < b for a, b in zip(g, g[1:]))
    assert all(a.q & (a.q - 1) == 0 for a in g)  # powers of two: exact in binary64
    with arith.precision(64):
        assert arith.lt(g[-1], arith.ball(1).exp()) is True
    for a in curves.curve_grid("20", 16):  # large eps0: still exact in binary64 (50 significant bits)
        assert fmpq(*(int(a.p) / int(a.q)).as_integer_ratio()) == a
    with pytest.raises(InvalidArgument, match="alphas"):
        curves.binary_worst_curve_values(BinaryRR(epsilon0="1"), 10, [fmpq(1, 3) + 1])


def test_shuffled_binary_rr_given_by_exp_epsilon0_composes_the_curve_pair_too():
    from blanket.exact.accounting.accountant import Shuffled

    ev = Shuffled({"type": "krr", "k": 2, "exp_epsilon0": "3"}, 9)
    pr = ev.dominating_pair()
    assert isinstance(pr, curves.FinitePair)
    mech = BinaryRR(exp_epsilon0=3)
    for a in ALPHAS:
        assert pr.hockey_stick(a) >= exhaustive_worst(mech, 9, a)
    assert not isinstance(Shuffled({"type": "ldp", "epsilon0": "1"}, 9).dominating_pair(), curves.FinitePair)
    assert not isinstance(Shuffled({"type": "krr", "k": 3, "epsilon0": "1"}, 9).dominating_pair(), curves.FinitePair)
