"""The matrix randomizer's own curve pair (issue 25): its Lemma 5.3 blanket view at any n, and the composition built
from it (docs/composition.md §5e, "The matrix randomizer").

Independent routes: the Lemma 5.3 view summed by enumeration of multinomial counts (krr.delta_blanket_view, exact
rationals), the exhaustive worst case over all datasets (enumerate.worst_case), and exact output laws of concrete
datasets composed by hand over two rounds (histogram_law, product laws).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as acc_mod
from blanket.exact.accounting import curve_pairs as cp
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import matrix_view as mv
from blanket.exact.shuffled.enumerate import histogram_law, worst_case
from blanket.exact.shuffled.krr import delta_blanket_view
from flint import fmpq

#: examples/matrix_3x3.csv (e^eps0 = 3)
M3 = FiniteRandomizer([["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]])
#: four outputs: five atoms of V for some pairs (the four-atom view spreads one), e^eps0 = 3
M4 = FiniteRandomizer([["3/8", "1/4", "1/4", "1/8"], ["1/8", "3/8", "1/4", "1/4"], ["1/4", "1/8", "3/8", "1/4"]])
GRID = (fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(5, 2))


def _e_pos(atoms: list, n: int) -> fmpq:
    """E[(Σ_{i≤n} V_i)_+] by brute force over every sequence of atoms (exact)."""
    tot = fmpq(0)
    for seq in itertools.product(atoms, repeat=n):
        p, s = fmpq(1), fmpq(0)
        for pi, v in seq:
            p *= pi
            s += v
        if s > 0:
            tot += p * s
    return tot


@pytest.mark.parametrize("n", [2, 4, 7])
def test_three_outputs_give_lemma_5_3_exactly(n):
    for ee in GRID:
        v = mv.matrix_blanket_view(M3, n, exp_epsilon=ee)
        assert v == delta_blanket_view(M3, n, exp_epsilon=ee)  # nothing spread: the enumeration's exact value
        assert mv.matrix_blanket_view(M3, n, atoms=3, exp_epsilon=ee) >= v  # the spread never lowers it


def test_spread_keeps_mass_and_mean_and_never_lowers_the_expectation():
    for x, x2 in itertools.permutations(range(3), 2):
        law = mv.pair_atoms(M4, x, x2, fmpq(6, 5))
        assert sum(p for p, _ in law) == 1
        for most in (3, 4):
            sp = mv.spread_atoms(law, most)
            assert len(sp) <= most
            assert sum(p for p, _ in sp) == 1
            assert sum(p * v for p, v in sp) == sum(p * v for p, v in law)
            for n in (2, 3):
                assert _e_pos(sp, n) >= _e_pos(law, n)
    with pytest.raises(InvalidArgument, match="most"):
        mv.spread_atoms(law, 5)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_spread_view_is_above_lemma_5_3_and_the_worst_case(n):
    assert mv.atom_count(M4) == 5 and mv.atom_count(M3) == 4
    for ee in GRID[1:]:
        view = delta_blanket_view(M4, n, exp_epsilon=ee)
        four = mv.matrix_blanket_view(M4, n, exp_epsilon=ee)
        three = mv.matrix_blanket_view(M4, n, atoms=3, exp_epsilon=ee)
        assert view <= four <= three
        assert worst_case(M4, n, exp_epsilon=ee).value <= view
    # a ball e^eps is replaced by a rational at or below it: still an upper bound
    with arith.precision(96):
        b = mv.matrix_blanket_view(M4, n, epsilon=fmpq(1, 3))
        exact = delta_blanket_view(M4, n, epsilon=fmpq(1, 3))
    assert arith.le(exact, b) is True


def test_refusals():
    with pytest.raises(InvalidArgument, match="exact matrix"):
        mv.matrix_blanket_view(KRR(3, exp_epsilon0=2), 5, exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="atoms"):
        mv.matrix_blanket_view(M3, 5, atoms=5, exp_epsilon=1)
    assert mv.matrix_blanket_view(M3, 5, exp_epsilon=3) == 0  # eps >= eps0


def test_large_n_routes_bracket_each_other():
    """n = 10^4: the three-atom view (degenerate weak count, exact up to windowing) lies above the four-atom one on
    the one-dimensional route, and that one's enclosure meets the grid route's (the automatic one there)."""
    ee = fmpq(103, 100)
    tol = fmpq(1, 2**64)
    one_d = mv.matrix_blanket_view(M3, 10**4, engine="1d", exp_epsilon=ee, tol=tol)
    three = mv.matrix_blanket_view(M3, 10**4, atoms=3, exp_epsilon=ee, tol=tol)
    lo, hi = arith.endpoints(one_d)
    assert arith.endpoints(three)[0] >= lo
    assert 0 < lo < hi < 1


@pytest.mark.parametrize("mech,n", [(M3, 3), (M4, 3)])
def test_curve_pair_is_above_the_exhaustive_worst_case_in_both_orders(mech, n):
    pr = cp.curve_pair(mech, n, max_points=12)
    assert "matrix" in pr.description
    e = mech.exp_epsilon0()
    for ee in (fmpq(1), fmpq(6, 5), fmpq(3, 2), fmpq(2), fmpq(14, 5)):
        w = worst_case(mech, n, exp_epsilon=ee).value  # max over both orders of every neighbouring pair
        assert w <= pr.hockey_stick(ee)
        # alpha < 1 (the reflection): H_{1/a}(P||Q) = 1 - 1/a + H_a(Q||P)/a, and the worst case is symmetric
        assert 1 - 1 / ee + w / ee <= pr.hockey_stick(1 / ee)
    assert pr.hockey_stick(e) == 0


def _concrete_t2(rows: list, others: list, x: int, x2: int, alpha: fmpq) -> fmpq:
    """Exact H_alpha of two rounds on the fixed datasets (others + x) vs (others + x2): product laws."""
    p1 = histogram_law(rows, [*others, x])
    q1 = histogram_law(rows, [*others, x2])
    tot = fmpq(0)
    for (h1, a1), (h2, a2) in itertools.product(p1.items(), p1.items()):
        v = fmpq(a1) * fmpq(a2) - alpha * fmpq(q1.get(h1, 0)) * fmpq(q1.get(h2, 0))
        if v > 0:
            tot += v
    return tot


def test_composed_t2_is_above_every_concrete_pair_and_below_the_clone_pair():
    n = 3
    rows = M3.matrix()
    ev = Shuffled(M3, n)
    curve = ShuffleAccountant(curves=True, grid="1/256").compose(ev, count=2)
    clone = ShuffleAccountant(curves=False, grid="1/256").compose(ev, count=2)
    for eps in (Fraction(1, 20), Fraction(1, 5), Fraction(1, 2), Fraction(1)):
        d = curve.get_delta(eps)
        c = clone.get_delta(eps)
        assert d.details["pair_route"] == "curve pairs"  # the matrix's own curve decided: the route under test
        assert any("matrix" in s for s in d.details["pairs"])
        assert "clone" in c.details["pairs"][0]
        with arith.precision(96):
            hi = arith.endpoints(arith.ball(fmpq(eps.numerator, eps.denominator)).exp())[1]
        a_hi = fmpq(hi.numerator, hi.denominator)  # >= e^eps: the concrete H there is <= its delta(eps)
        worst = fmpq(0)
        for others in itertools.product(range(3), repeat=n - 1):
            for x, x2 in itertools.permutations(range(3), 2):
                worst = max(worst, _concrete_t2(rows, list(others), x, x2, a_hi))
        assert Fraction(int(worst.p), int(worst.q)) <= d.upper <= c.upper


def test_same_randomizer_adds_lemma_g1_and_auto_follows_the_cost_model(monkeypatch):
    names = [s for s, _ in cp.curve_sources(M3, n=10)]
    assert names[0].startswith("blanket view (Lemma 5.3, matrix") and names[-1].startswith("clone pair")
    assert not any("Lemma G1" in s for s in names)
    assert any("Lemma G1" in s for s, _ in cp.curve_sources(M3, same_randomizer=True, n=10))
    assert not any("4 atoms" in s for s, _ in cp.curve_sources(M4, n=cp.MATRIX_FOUR_MAX_N + 1))
    # "auto": a matrix round composes its curve above CURVE_PAIR_AUTO_N users (on the full budget at every n), when
    # the cost model admits it (the decision only: curve_pair is replaced)
    acc = ShuffleAccountant()
    ev = Shuffled(M3, 10**4)
    est = cp.curve_seconds(M3, ev.n, acc_mod.CURVE_PAIR_AUTO_POINTS)
    assert est is not None and 0 < est <= acc_mod.CURVE_PAIR_SECONDS
    assert cp.curve_seconds(M3, 10**12, acc_mod.CURVE_PAIR_AUTO_POINTS) > acc_mod.CURVE_PAIR_SECONDS
    monkeypatch.setattr(cp, "curve_pair", lambda *a, **k: ("computed", k["same_randomizer"]))
    assert acc._curve_of(ev) == ("computed", False)
    assert acc._curve_of(Shuffled(M3, 10**4, same_randomizer=True)) == ("computed", True)
    assert acc._curve_of(Shuffled(M3, 10**12)) is None  # over the budget: the old pair only
    assert ShuffleAccountant(curves=False)._curve_of(ev) is None


def test_binary_rr_given_as_a_matrix_has_binary_rr_s_blanket_view():
    """At n = 100 (balls) the matrix route on binary RR's rows gives k-RR's own Lemma 5.3 value (its closed-form
    atoms), enclosures overlapping; exactly equal at n = 5."""
    m = FiniteRandomizer([["3/4", "1/4"], ["1/4", "3/4"]])
    rr = KRR(2, exp_epsilon0=3)
    for ee in (fmpq(1), fmpq(3, 2), fmpq(2)):
        assert mv.matrix_blanket_view(m, 5, exp_epsilon=ee) == delta_blanket_view(rr, 5, exp_epsilon=ee)
        a, b = mv.matrix_blanket_view(m, 100, exp_epsilon=ee), delta_blanket_view(rr, 100, exp_epsilon=ee)
        assert arith.le(a, b) is not False and arith.le(b, a) is not False
