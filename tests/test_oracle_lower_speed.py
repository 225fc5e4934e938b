"""The third-value lower end's cheaper routes (exact.shuffled.oracle_exact.third_value_delta): both directions in
one engine call on the hull of their atoms, and the Jensen route of the weak-count statistics at large n.

Independent routes: the two directions computed separately (as before), exact rationals, and the grid engine.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.mechanisms.oracles import OLH, OUE, SUE, Hadamard, Subset
from blanket.exact.numbers import arith
from blanket.exact.shuffled import oracle_exact as X
from flint import arb, fmpq


def _lo(v) -> Fraction:
    return Fraction(int(v.p), int(v.q)) if isinstance(v, fmpq) else arith.endpoints(v)[0]


def _overlap(a, b) -> bool:
    return bool(arith.ball(a).overlaps(arith.ball(b)))


MECHS = [
    OUE(16, epsilon0=2),
    SUE(16, epsilon0=2),
    Subset(12, 3, epsilon0=2),
    Hadamard(16, epsilon0=2),
    OLH(16, 4, epsilon0=2, triple="1/64"),
]


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.kind)
@pytest.mark.parametrize("statistic", X.LOWER_STATISTICS)
def test_one_call_on_the_hull_agrees_with_both_directions(monkeypatch, mech, statistic):
    # ball mode on the one-dimensional route (n above the grid's range): the hull's enclosure overlaps the max of
    # the two directions computed separately and its lower end is as good (the hull is as narrow as either list)
    n, eps = 3000, "0.3"
    one = X.third_value_delta(mech, n, epsilon=eps, statistic=statistic)
    q = X._third_atoms(mech, n, {"epsilon": eps}, "test", statistic)
    assert X._joint_atoms(*q[4]) is not None  # every triple law here is symmetric in (h_x, h_x')
    with monkeypatch.context() as mp:
        mp.setattr(X, "_joint_atoms", lambda a, b: None)
        two = X.third_value_delta(mech, n, epsilon=eps, statistic=statistic)
    assert _overlap(one, two)
    assert _lo(one) >= _lo(two) - abs(_lo(two)) * Fraction(1, 10**6) - Fraction(1, 10**30)


@pytest.mark.parametrize("mech", [OUE(4, exp_epsilon0=3), Subset(6, 2, exp_epsilon0=3), Hadamard(5, exp_epsilon0=3)])
def test_one_call_is_exact_with_exact_atoms(monkeypatch, mech):
    # exact rationals: the two directions are equal (symmetric triple law), so one call gives the same rational
    for statistic in X.LOWER_STATISTICS:
        one = X.third_value_delta(mech, 30, exp_epsilon=fmpq(5, 4), statistic=statistic)
        with monkeypatch.context() as mp:
            mp.setattr(X, "_joint_atoms", lambda a, b: None)
            two = X.third_value_delta(mech, 30, exp_epsilon=fmpq(5, 4), statistic=statistic)
        assert isinstance(one, fmpq) and one == two


def test_joint_atoms_refuses_lists_that_differ():
    a = [(fmpq(1, 2), fmpq(1)), (fmpq(1, 2), fmpq(-1))]
    assert X._joint_atoms(a, [(fmpq(1, 2), fmpq(1)), (fmpq(1, 2), fmpq(-2))]) is None  # exact and different
    b = [(arb(0.5, 1e-12), arb(1, 1e-12)), (arb(0.5, 1e-12), arb(-1, 1e-12))]
    c = [(arb(0.5, 1e-12), arb(1 + 1e-9, 1e-12)), (arb(0.5, 1e-12), arb(-1, 1e-12))]
    assert X._joint_atoms(b, c) is None  # disjoint balls
    wide = [(arb(0.5, 1e-12), arb(1 + 1e-11, 1e-10)), (arb(0.5, 1e-12), arb(-1, 1e-12))]
    assert X._joint_atoms(b, wide) is None  # overlapping, but the hull is much wider than the narrower ball
    d = [(arb(0.5, 1e-12), arb(1, 1.5e-12)), (arb(0.5, 1e-12), arb(-1, 1e-12))]
    joint = X._joint_atoms(b, d)
    assert joint is not None and all(bool(j[1].contains(x[1]) and j[1].contains(y[1])) for j, x, y in zip(joint, b, d))
    assert X._joint_atoms(a, a[:1]) is None


def _jensen_against(mech, n, eps, reference) -> None:
    """The weak-count statistics on the Jensen route against ``reference`` (statistic -> enclosure, another route):
    they overlap, and where the value is not tiny the Jensen lower end is within 0.5 % of the reference's."""
    checked = 0
    for s in X.THIRD_STATISTICS:
        v = X.third_value_delta(mech, n, epsilon=eps, statistic=s)
        assert _overlap(v, reference[s]), s
        if _lo(reference[s]) > Fraction(1, 10**9):  # (the Jensen gap's absolute width hides values below ~1e-14)
            assert _lo(v) >= Fraction(995, 1000) * _lo(reference[s]), s
            checked += 1
    assert checked >= 1


def test_jensen_route_at_its_threshold_against_the_blocks(monkeypatch):
    # at THIRD_JENSEN_MIN_N users the Jensen route against the blocked route it replaces (Lemma K4's bound)
    mech, n, eps = OUE(32, epsilon0=2), X.THIRD_JENSEN_MIN_N, "0.015"
    assert X._third_engine(n, "zero-hit") == "1d-jensen" and X._third_engine(n, "joined") == "1d"
    assert X._third_engine(n - 1, "hits") == "1d"
    with monkeypatch.context() as mp:
        mp.setattr(X, "THIRD_JENSEN_MIN_N", 10 * n)
        blocks = {s: X.third_value_delta(mech, n, epsilon=eps, statistic=s) for s in X.THIRD_STATISTICS}
    _jensen_against(mech, n, eps, blocks)


@pytest.mark.slow
def test_jensen_route_against_the_grid(monkeypatch, slow_level):
    # the Jensen route (threshold lowered to 2·10^4 users) against the grid engine, a narrow enclosure by another
    # route (3–7 s per mechanism)
    mechs = [OUE(32, epsilon0=2), SUE(32, epsilon0=2), Subset(24, 3, epsilon0=2)]
    for mech in mechs[: 1 if slow_level == "reduced" else None]:
        n, eps = 20000, "0.04"
        with monkeypatch.context() as mp:
            mp.setattr(X, "THIRD_GRID_MAX_N", n)
            grid = {s: X.third_value_delta(mech, n, epsilon=eps, statistic=s) for s in X.THIRD_STATISTICS}
        with monkeypatch.context() as mp:
            mp.setattr(X, "THIRD_JENSEN_MIN_N", n)
            _jensen_against(mech, n, eps, grid)
