"""δ(ε) = 0 for ε ≥ ε0 is decided exactly when ε and ε0 are both exact: at ε = ε0 the balls e^ε and e^{ε0}
overlap, and the engines used to be asked for δ there (the geometric engine then met a weight enclosed by a
ball around 0 and fell back to its O(n) grid: a certificate at n = 10^6 ran for many minutes)."""

from blanket.exact.mechanisms.finite import KRR, delta_query, exact_epsilon0
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.shuffled.geometric import geometric_upper
from flint import fmpq


def test_epsilon_equal_to_epsilon0_is_exactly_zero():
    assert delta_query(KRR(3, "1"), 10, "1", None) is None
    assert delta_query(KRR(3, "1"), 10, "3/2", None) is None
    assert delta_query(KRR(3, "1"), 10, "0.999", None) is not None
    g = Geometric(8, epsilon0=fmpq(2))
    v = geometric_upper(g, 10**4, epsilon=fmpq(2))
    assert isinstance(v, fmpq) and v == 0


def test_exact_epsilon0_of_records():
    assert exact_epsilon0(KRR(3, "1/3")) == fmpq(1, 3)
    assert exact_epsilon0(KRR(3, exp_epsilon0=3)) is None
    assert exact_epsilon0(Geometric(8, epsilon0=fmpq(2))) == 2
    assert exact_epsilon0(Geometric(8, alpha=fmpq(1, 2))) is None
