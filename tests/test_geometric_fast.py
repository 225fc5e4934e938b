"""The fast geometric engine (exact/shuffled/geometric.py, docs/numerics.md Lemma O2) against independent routes.

Independent routes: the Lemma 5.3 enumeration over every ordered pair and every
multinomial count of the m + 1 atoms (exact.shuffled.oracles.blanket_view_delta_enumerate,
exact rationals), and the exhaustive worst case over all datasets
(exact.shuffled.enumerate.worst_case).  Neither forms the dominating law nor its knots.  A
wrong law (e.g. interpolating one pair's stop-loss values instead of the maximum, a top knot
below the largest value, or the lower and upper ends swapped) puts an exact value outside.
"""

from fractions import Fraction

import pytest
from blanket.exact.accounting import certified
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.enumerate import worst_case
from blanket.exact.shuffled.geometric import (
    dominating_law,
    geometric_bracket,
    geometric_upper,
    pair_atoms,
)
from blanket.exact.shuffled.oracles import blanket_view_delta_enumerate, clone_delta
from flint import fmpq
from hypothesis import given
from hypothesis import strategies as st


def _stop_loss(atoms, t):
    return sum((p * max(v - t, fmpq(0)) for p, v in atoms), fmpq(0))


@given(
    m=st.integers(2, 5),
    a=st.sampled_from(["1/5", "1/3", "1/2", "3/5", "2/3", "4/5"]),
    n=st.integers(1, 4),
    ee=st.sampled_from([fmpq(1), fmpq(5, 4), fmpq(3, 2), fmpq(2)]),
)
def test_bracket_contains_the_enumerated_lemma_5_3_value(m, a, n, ee):
    g = Geometric(m, alpha=a)
    if arith.le(g.exp_epsilon0(), ee):
        return
    b = geometric_bracket(g, n, exp_epsilon=ee)
    exact = blanket_view_delta_enumerate(g, n, exp_epsilon=ee)
    assert isinstance(b.upper, fmpq) and isinstance(b.lower, fmpq)
    assert b.lower <= exact <= b.upper


@pytest.mark.parametrize("m,alpha", [(3, "1/2"), (4, "2/3"), (5, "3/4")])
def test_upper_above_exhaustive_worst_case_above_concrete_dataset(m, alpha):
    g = Geometric(m, alpha=alpha)
    fr = g.matrix()
    for n in (2, 3):
        for ee in (fmpq(1), fmpq(3, 2)):
            wc = worst_case(fr, n, exp_epsilon=ee).value
            lo = certified.lower_bound(g, n, exp_epsilon=ee)[0]
            up = geometric_upper(g, n, exp_epsilon=ee)
            assert lo <= wc <= up


def test_dominating_law_is_a_law_above_every_pair():
    g = Geometric(5, alpha="3/5")
    ee = fmpq(3, 2)
    knots, w = dominating_law(g, exp_epsilon=ee)
    assert all(x >= 0 for x in w) and sum(w) == 1
    law = list(zip(w, knots))
    grid = [fmpq(j, 8) * knots[0] for j in range(9)] + [fmpq(j, 8) * knots[-1] for j in range(9)]
    for x in range(5):
        for x2 in range(5):
            if x != x2:
                atoms = pair_atoms(g, x, x2, exp_epsilon=ee)
                assert sum(p for p, _ in atoms) == 1
                for t in grid + [knots[0] * 2]:
                    assert _stop_loss(atoms, t) <= _stop_loss(law, t)


def test_binary_rr_is_a_point():
    g = Geometric(2, alpha="1/3")
    b = geometric_bracket(g, 7, exp_epsilon=fmpq(3, 2))
    assert b.lower == b.upper == blanket_view_delta_enumerate(g, 7, exp_epsilon=fmpq(3, 2))


def test_balls_large_n_and_clone():
    # ε0 given: α is a ball; the upper end is a narrow certified enclosure at n = 10^5 and beats the clone pair
    g = Geometric(6, epsilon0="1")
    u = geometric_upper(g, 10**5, epsilon="1/50")
    lo, hi = arith.endpoints(u)
    assert 0 < lo <= hi and (hi - lo) <= hi / 1000
    assert hi < arith.endpoints(clone_delta(g, 10**5, epsilon="1/50"))[0]
    b = geometric_bracket(g, 10**5, epsilon="1/50")
    assert arith.endpoints(b.lower)[0] <= hi


def test_exact_alpha_and_ball_alpha_agree():
    # the ball route (windowed engine, exact_max_n=0) must enclose the exact-rational route
    ge = Geometric(4, alpha="4/5")
    v_exact = geometric_upper(ge, 30, exp_epsilon=fmpq(6, 5))
    with arith.precision(200):
        v_ball = geometric_upper(ge, 30, exp_epsilon=fmpq(6, 5), exact_max_n=0)
    lo, hi = arith.endpoints(v_ball)
    assert lo <= Fraction(int(v_exact.p), int(v_exact.q)) <= hi


def test_route_registered_and_wins_over_clone():
    g = Geometric(5, epsilon0="1")
    v, name, every = certified.best_upper(g, 10**4, epsilon="1/20")
    assert certified.GEOMETRIC_FAST in every and certified.CLONE in every
    assert name == certified.GEOMETRIC_FAST


def test_bad_input():
    with pytest.raises(InvalidArgument, match="mech"):
        geometric_upper(object(), 3, exp_epsilon=2)
    with pytest.raises(InvalidArgument, match="x2"):
        pair_atoms(Geometric(3, alpha="1/2"), 0, 3, exp_epsilon=2)
    with pytest.raises(InvalidArgument, match="knots"):
        dominating_law(Geometric(3, alpha="1/2"), exp_epsilon=2, knots=(fmpq(-1), fmpq(0), fmpq(1, 100)))


def test_registered_result_is_proved():
    import blanket.proofs.oracles  # noqa: F401  (registers)
    from blanket.proofs import core

    r = core.get("FO geometric dominating law")
    assert r.status == "derived" and r.check_symbolic().proved is True
    route = [x for x in certified.upper_routes(Geometric(3, alpha="1/2"), 50) if x.name == certified.GEOMETRIC_FAST]
    assert route and "FO geometric dominating law" in route[0].results


@pytest.mark.parametrize("m,alpha", [(3, "1/2"), (4, "2/3"), (5, "3/4"), (9, "4/5")])
def test_threshold_count_lower_bound_below_the_dataset_delta(m, alpha):
    from blanket.exact.shuffled.enumerate import delta_dataset
    from blanket.exact.shuffled.geometric import geometric_lower_dataset

    g = Geometric(m, alpha=alpha)
    for n in (2, 3) if m == 9 else (2, 3, 5):
        for ee in (fmpq(1), fmpq(5, 4)):
            v, text = geometric_lower_dataset(g, n, exp_epsilon=ee)
            d = max(  # both orders: the full view (session 14) may be the order m - 1 || 0
                getattr(d, "value", d)
                for d in (
                    delta_dataset(g.matrix(), [0] * (n - 1), 0, m - 1, exp_epsilon=ee),
                    delta_dataset(g.matrix(), [0] * (n - 1), m - 1, 0, exp_epsilon=ee),
                )
            )
            assert 0 < v <= d, (m, n, ee)
            # a threshold, three intervals or the whole histogram
            assert "reports >=" in text or "reports in [0, " in text or "whole shuffled histogram" in text


def test_lower_bound_every_n_and_below_upper():
    g = Geometric(10, epsilon0="1")
    lo, where = certified.lower_bound(g, 10**5, epsilon="1/100")
    assert lo is not None and ("reports >=" in where or "reports in [0, " in where or "whole shuffled" in where)
    up = certified.best_upper(g, 10**5, epsilon="1/100")[0]
    assert 0 < arith.endpoints(lo)[0] and arith.endpoints(lo)[1] <= arith.endpoints(up)[0]
