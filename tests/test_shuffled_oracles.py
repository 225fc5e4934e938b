"""The fast blanket view of the frequency oracles (exact/shuffled/oracles.py) against the exact binomial mixture.

Independent route: exact.shuffled.oracles.blanket_view_delta — the mixture
over M ~ Bin(n, γ) of the four-atom engine applied to L (exact rationals for
small n, balls above), which never forms the five-atom V nor its convex-order
bracket.  A wrong bracket (e.g. the spread onto the wrong atoms, or the two
ends swapped) puts the exact value outside and fails these tests.
"""

import pytest
from blanket.exact.mechanisms import oracles as O
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import oracles as shuffled_oracles
from blanket.exact.shuffled.oracles import blanket_view_bracket, blanket_view_delta_fast
from flint import arb, fmpq

MECHS = [
    O.OUE(3, exp_epsilon0=3),
    O.OUE(6, exp_epsilon0="5/2"),
    O.SUE(4, exp_half_epsilon0="3/2"),
    O.OLH(5, 3, exp_epsilon0=3),
    O.OLH(8, 2, exp_epsilon0=2, constant="1/8"),
    O.Hadamard(5, exp_epsilon0=3),
    O.Hadamard(12, exp_epsilon0="3/2"),
    O.Subset(5, 2, exp_epsilon0=2),
    O.Subset(7, 3, exp_epsilon0=4),
    O.Subset(4, 1, exp_epsilon0=3),  # k-RR: π_both = 0, V has four atoms
]


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: f"{m.kind}")
@pytest.mark.parametrize("n,ee", [(1, fmpq(1)), (5, fmpq(3, 2)), (17, fmpq(6, 5)), (40, fmpq(11, 10))])
def test_bracket_contains_exact_value(mech, n, ee):
    exact = shuffled_oracles.blanket_view_delta(mech, n, exp_epsilon=ee)
    b = blanket_view_bracket(mech, n, exp_epsilon=ee)
    assert isinstance(b.lower, fmpq) and isinstance(b.upper, fmpq)
    assert b.lower <= exact <= b.upper
    if mech.l_probs()[0] == 0:
        assert b.lower == exact == b.upper


@pytest.mark.parametrize("mech", MECHS[:4] + MECHS[5:6], ids=lambda m: f"{m.kind}")
def test_fast_small_n_is_exact(mech):
    v = blanket_view_delta_fast(mech, 12, exp_epsilon=fmpq(5, 4))
    assert v == shuffled_oracles.blanket_view_delta(mech, 12, exp_epsilon=fmpq(5, 4))


@pytest.mark.parametrize(
    "mech",
    [
        O.OUE(16, epsilon0="1"),
        O.SUE(16, epsilon0="3/2"),
        O.OLH(1000, 4, epsilon0="1"),
        O.Hadamard(64, epsilon0="1"),
        O.Subset(20, 5, epsilon0="2"),
    ],
    ids=lambda m: m.kind,
)
def test_fast_balls_overlap_mixture(mech):
    # balls (irrational e^{ε0}), n in the hundreds: the mixture is affordable there
    n = 150
    with arith.precision(128):
        eps = fmpq(1, 5)
        fast = blanket_view_delta_fast(mech, n, epsilon=eps)
        ref = shuffled_oracles.blanket_view_delta(mech, n, epsilon=eps)
        assert isinstance(fast, arb) and fast.overlaps(arith.ball(ref))
        lo, hi = arith.endpoints(fast)
        rlo, rhi = arith.endpoints(ref)
        assert lo <= rhi and rlo <= hi
        assert hi < 2 * lo  # small n, ε = 1/5: the bracket is wide here (it narrows like ε², see the next test)


def test_zero_at_or_above_eps0_and_refusals():
    m = O.OUE(4, exp_epsilon0=3)
    assert blanket_view_delta_fast(m, 10**6, exp_epsilon=3) == 0
    for bad in (O.LDP(exp_epsilon0=3), O.Geometric(3, alpha="1/2")):
        with pytest.raises(InvalidArgument, match="mech"):
            blanket_view_delta_fast(bad, 10, exp_epsilon=2)
    with pytest.raises(InvalidArgument, match="n"):
        blanket_view_delta_fast(m, 0, exp_epsilon=2)


def test_large_n_enclosure_is_narrow():
    # n = 10^5, δ about 1e-6: the bracket (convex order) plus the engine's own width stay below 1e-3 relative
    with arith.precision(128):
        v = blanket_view_delta_fast(O.OUE(128, epsilon0="1"), 10**5, epsilon=fmpq(6, 1000))
    lo, hi = arith.endpoints(v)
    assert 0 < lo and (hi - lo) < lo / 1000
