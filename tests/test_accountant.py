"""ShuffleAccountant / ShuffledRR: certified intervals against exact products, API contract, dp_accounting export."""

from fractions import Fraction

import pytest
from blanket.exact.accounting import pld
from blanket.exact.accounting.accountant import CertifiedDelta, CertifiedEpsilon, ShuffleAccountant, ShuffledRR
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq

import blanket
from tests._helpers import merged_atoms


def _exact_T(atoms_list, ee):
    prod = [((), fmpq(1), fmpq(1))]
    for at in atoms_list:
        prod = merged_atoms(pld.product_atoms(prod, at))
    return pld.hockey_stick(prod, ee)


def test_public_api_and_records():
    assert blanket.ShuffleAccountant is ShuffleAccountant and blanket.ShuffledRR is ShuffledRR
    ev = ShuffledRR(k=2, epsilon0=0.5, n=10)  # a float: its exact binary value (0.5 is exact)
    assert ev.epsilon0 == Fraction(1, 2)
    assert ShuffledRR(k=2, epsilon0=0.1, n=10).epsilon0 == Fraction(0.1)  # exact binary value, not 1/10
    assert ShuffledRR(k=2, epsilon0="0.1", n=10).epsilon0 == Fraction(1, 10)
    with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError
        ev.n = 3  # frozen
    assert hash(ev) == hash(ShuffledRR(k=2, epsilon0=Fraction(1, 2), n=10))


@pytest.mark.parametrize(
    "kwargs,arg",
    [
        (dict(k=1, epsilon0="1", n=10), "k"),
        (dict(k=2, epsilon0="-1", n=10), "epsilon0"),
        (dict(k=2, epsilon0="1", n=0), "n"),
        (dict(k=2, epsilon0="abc", n=3), "epsilon0"),
    ],
)
def test_bad_events(kwargs, arg):
    with pytest.raises(InvalidArgument, match=arg):
        ShuffledRR(**kwargs)


def test_bad_accountant_input():
    with pytest.raises(InvalidArgument, match="neighbouring"):
        ShuffleAccountant(neighbouring="add-remove")
    acc = ShuffleAccountant()
    with pytest.raises(InvalidArgument, match="accountant"):
        acc.get_epsilon("1e-6")
    with pytest.raises(InvalidArgument, match="event"):
        acc.compose("rr")
    with pytest.raises(InvalidArgument, match="count"):
        acc.compose(ShuffledRR(k=2, epsilon0="1", n=10), count=0)
    acc.compose(ShuffledRR(k=2, epsilon0="1", n=10))
    with pytest.raises(InvalidArgument, match="target_delta"):
        acc.get_epsilon("2")


def test_shuffled_refuses_a_randomizer_without_finite_epsilon0():
    """A matrix whose supports differ has e^{ε0} = None (ε0 = ∞): refused when the round is built (it used to pass
    and crash later in clone_pair / the grid choice with a TypeError)."""
    from blanket.exact.accounting.accountant import Shuffled
    from blanket.exact.accounting.query import make_query
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    matrix = [[1, 0], ["1/2", "1/2"]]
    for given in (
        lambda: Shuffled(FiniteRandomizer(matrix), 10),
        lambda: Shuffled({"type": "matrix", "matrix": matrix}, 10),
        lambda: ShuffleAccountant().compose(make_query(mechanism="matrix", matrix=matrix, n=10)),
    ):
        with pytest.raises(InvalidArgument, match="mechanism has epsilon0 = infinity"):
            given()


@pytest.mark.parametrize("T", [1, 2, 3])
def test_interval_contains_exact_composition(T):
    """δ interval: upper ≥ exact product of dominating pairs ≥ ... and lower ≤ exact product on the concrete datasets."""
    ev = ShuffledRR(k=2, epsilon0="1", n=6)
    acc = ShuffleAccountant(grid="1/512").compose(ev, count=T)
    dom = merged_atoms(ev.dominating_pair().atoms())
    low = [merged_atoms(ev.lower_pair(d).atoms()) for d in ("forward", "backward")]
    for eps in ("0", "1/5", "1/2"):
        d = acc.get_delta(eps)
        assert isinstance(d, CertifiedDelta)
        with precision(128):
            ee = arb(fmpq(*map(int, eps.split("/"))) if "/" in eps else fmpq(int(eps))).exp()
            ex_pair = _exact_T([dom] * T, ee)
            ex_low = max(_exact_T([l] * T, ee) for l in low)
            F = lambda x: fmpq(x.numerator, x.denominator)  # noqa: E731
            assert ex_pair.lower() <= F(d.upper) and F(d.pair_lower) <= ex_pair.upper()
            assert F(d.lower) <= ex_low.upper()
            assert ex_low.upper() <= F(d.upper)
            assert d.lower <= d.upper


def test_epsilon_interval_and_float():
    acc = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0="1", n=2000), count=10)
    e = acc.get_epsilon("1e-6")
    assert isinstance(e, CertifiedEpsilon)
    # the pair's sandwich [pair_lower, upper] contains the pair's own epsilon, which is >= the mechanism's >= lower;
    # with the worst-case curve pair (binary RR, n <= CURVE_GRID_N) pair_lower may dip below lower
    assert e.lower <= e.upper and e.pair_lower <= e.upper
    assert e.rel_width <= Fraction(2, 100)
    assert Fraction(float(e)) >= e.upper and float(e) == pytest.approx(float(e.upper), rel=1e-15)
    # δ at the reported ε meets the target (the same pessimistic PLD)
    assert acc.get_delta(e.upper).upper <= Fraction(1, 10**6)
    # a claim below the certified lower end is false: the mechanism's δ there exceeds the target
    assert acc.get_delta(e.lower * Fraction(99, 100)).lower > Fraction(1, 10**6)
    assert "epsilon in [" in str(e)


def test_heterogeneous_order_independent():
    a, b = ShuffledRR(k=2, epsilon0="1", n=500), ShuffledRR(k=3, epsilon0="2", n=300)
    # the grid is incidental to the point (order independence, more rounds cost more): 1/1024, a quarter of the
    # 1/4096 this test had, costs about a quarter
    x = ShuffleAccountant(grid="1/1024").compose(a, 2).compose(b, 3).get_delta("0.3")
    y = ShuffleAccountant(grid="1/1024").compose(b, 3).compose(a, 2).get_delta("0.3")
    assert x == y
    z = ShuffleAccountant(grid="1/1024").compose(a, 2).get_delta("0.3")
    assert z.upper < x.upper  # more rounds cost more


def test_to_dp_accounting():
    dpl = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    acc = ShuffleAccountant(grid=Fraction(1, 2048)).compose(ShuffledRR(k=2, epsilon0="1", n=1000), count=4)
    ours = acc.get_delta("0.2")
    theirs = acc.to_dp_accounting()
    assert isinstance(theirs, dpl.PrivacyLossDistribution)
    v = theirs.get_delta_for_epsilon(0.2)
    # float export of the same pessimistic masses (rounded up): agrees with the certified upper end
    assert v == pytest.approx(float(ours.upper), rel=1e-6)
    with pytest.raises(InvalidArgument, match="grid"):
        acc.to_dp_accounting(grid="1/3")


def test_renyi_route_beside_the_pld_route():
    """Both routes are reported; the smaller certified upper end wins and names its route."""
    acc = ShuffleAccountant(grid="1/1024").compose(ShuffledRR(k=2, epsilon0="1", n=200), count=5)
    e = acc.get_epsilon("1e-6")
    assert e.upper == min(e.pld_upper, e.renyi_upper)
    assert e.route == ("Renyi" if e.renyi_upper < e.pld_upper else "PLD")
    assert e.route == "PLD" and e.renyi_upper > e.pld_upper  # the PLD is nearly exact here
    d = acc.get_delta(e.upper)
    assert d.upper == min(d.pld_upper, d.renyi_upper) <= Fraction(1, 10**6)
    # at a δ far below the truncated mass (1e-30) the PLD route certifies no finite ε: the Rényi route decides
    tiny = acc.get_epsilon("1e-45")
    assert tiny.pld_upper is None and tiny.route == "Renyi"
    assert tiny.upper == tiny.renyi_upper < 60 and tiny.lower <= tiny.upper


def test_basic_route_wins_for_many_rounds_of_a_large_epsilon0():
    """Σ ε0 is an upper end the PLD/Rényi routes can miss (grid and conversion losses); it is reported as a route.

    Independent check: the pure-DP sum is computed here by hand, and the basic route can only win when it is below
    both other routes' certified ends (which the object reports beside it).
    """
    from fractions import Fraction

    from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR

    acc = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0="8", n=3), count=40)
    assert acc.basic_upper() == Fraction(320)
    e = acc.get_epsilon("1e-6")
    assert e.upper <= Fraction(320)
    assert e.lower <= e.upper
    if e.route == "basic":
        assert e.upper == 320 and min(e.renyi_upper, e.pld_upper or float("inf")) > 320
    else:
        assert e.upper < 320
    d = acc.get_delta(320)
    assert d.upper == 0 and d.route == "basic" and d.lower == 0
    d2 = acc.get_delta("319")
    assert d2.route != "basic" and d2.upper > 0
