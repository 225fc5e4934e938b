"""Session 14 (geofull14): the truncated geometric mechanism's full view of one dataset pair as the one-round lower end
(exact.shuffled.geometric_dataset).  Independent routes: the exact shuffled output enumerated histogram by histogram
(exact.shuffled.enumerate.delta_dataset) and the i.i.d. formula summed over every tuple of reports."""

from __future__ import annotations

import itertools

import pytest
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.enumerate import delta_dataset
from blanket.exact.shuffled.geometric import geometric_lower_dataset
from blanket.exact.shuffled.geometric_dataset import full_view_lower
from flint import fmpq

CASES = [(3, fmpq(1, 2)), (4, fmpq(2, 3))]
EES = [fmpq(1), fmpq(6, 5), fmpq(3, 2)]


def _pair(m: int, direction: str) -> tuple:
    return (0, m - 1) if direction == "forward" else (m - 1, 0)


def _iid_formula(rows: list, n: int, z: int, x: int, x2: int, ee: fmpq, blanket: int | None = None) -> fmpq:
    """``(1/n) Σ_{y ∈ m^n} Π_i ω(y_i) (Σ_i (R_x(y_i) − ee·R_{x2}(y_i))/ω(y_i))_+`` with ``ω = R_blanket`` (default
    ``R_z``): the module's identity, summed over every tuple.  O(m^n)."""
    w = rows[z if blanket is None else blanket]
    m = len(w)
    tot = fmpq(0)
    for ys in itertools.product(range(m), repeat=n):
        p = fmpq(1)
        s = fmpq(0)
        for y in ys:
            p *= w[y]
            s += (rows[x][y] - ee * rows[x2][y]) / w[y]
        if s > 0:
            tot += p * s
    return tot / n


@pytest.mark.parametrize("m,alpha", CASES)
def test_identity_matches_enumeration(m, alpha):
    """The blanket-view identity with ω = R_z, γ = 1 equals the exact δ of the shuffled histograms (every z, both
    orders); with the wrong blanket (ω = R_{m−1} for z = 0) it does not (so the comparison can fail)."""
    g = Geometric(m, alpha=alpha)
    rows = g.rows()
    n = 3
    for z in range(m):
        for d in ("forward", "backward"):
            x, x2 = _pair(m, d)
            for ee in EES:
                exact = delta_dataset(g.matrix(), [z] * (n - 1), x, x2, exp_epsilon=ee)
                assert _iid_formula(rows, n, z, x, x2, ee) == exact
    wrong = _iid_formula(rows, n, 0, m - 1, 0, fmpq(3, 2), blanket=m - 1)
    assert wrong != delta_dataset(g.matrix(), [0] * (n - 1), m - 1, 0, exp_epsilon=fmpq(3, 2))


@pytest.mark.parametrize("m,alpha", CASES)
def test_lower_side_below_exact_and_close(m, alpha):
    """The lattice lower side is at or below the exact δ of its datasets and within 15% of it (n = 4)."""
    g = Geometric(m, alpha=alpha)
    n = 4
    for z in range(m):
        for d in ("forward", "backward"):
            x, x2 = _pair(m, d)
            for ee in EES:
                exact = delta_dataset(g.matrix(), [z] * (n - 1), x, x2, exp_epsilon=ee)
                v = full_view_lower(g, n, z=z, direction=d, exp_epsilon=ee, h=fmpq(1, 256))
                assert v <= exact
                assert v >= exact * fmpq(85, 100), (z, d, ee, float(v), float(exact))


def test_full_view_raises_the_counts_lower_end():
    """m = 20, ε0 = 1, n = 2000, ε = 0.07: the full view is a larger certified lower bound than the counts (session 14
    measured 1.97e-6 for the counts, 2.58e-6 for the full view), and the one-round lower end keeps it."""
    g = Geometric(20, epsilon0=1)
    e = fmpq(7, 100)
    counts, _ = geometric_lower_dataset(g, 2000, epsilon=e, full_view=False)
    both, where = geometric_lower_dataset(g, 2000, epsilon=e)
    assert arith.endpoints(both)[0] > arith.endpoints(counts)[1] * 1.2
    assert "whole shuffled histogram, delta(0 || 19)" in where


def test_bad_input():
    g = Geometric(4, alpha=fmpq(1, 2))
    with pytest.raises(InvalidArgument, match="z"):
        full_view_lower(g, 3, z=4, exp_epsilon=2)
    with pytest.raises(InvalidArgument, match="direction"):
        full_view_lower(g, 3, direction="up", exp_epsilon=2)
    with pytest.raises(InvalidArgument, match="h"):
        full_view_lower(g, 3, h=0, exp_epsilon=2)
