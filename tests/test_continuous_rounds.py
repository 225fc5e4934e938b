"""Composed rounds of the continuous randomizers (issue 27): the dominating pair from certified blanket-view values.

Independent checks: the hull's hockey-stick curve against (a) the certified values it was built from (never below
them at their points: the hull is a minorant of *valid upper values*, so it must equal or exceed nothing smaller than
the true curve — here: it is at least the exact δ of a concrete pair of datasets, the thresholded binary RR computed
by the k-RR engine at the same α) and (b) the composition: the accountant's certified ends are ordered and the
composed lower end (concrete datasets, a different engine) lies below the composed upper end.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant
from blanket.exact.accounting.continuous_rounds import ShuffledContinuous, continuous_record
from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.continuous import quantised_rr
from blanket.exact.shuffled.krr import delta_krr_family
from flint import fmpq


@pytest.fixture(scope="module")
def laplace_round():
    return ShuffledContinuous({"type": "laplace", "epsilon0": "1"}, 40, h="1/8", points=4)


def test_pair_lies_above_a_concrete_dataset_and_reproduces_its_values(laplace_round):
    ev = laplace_round
    vals, amax = ev.curve_values()
    pr = ev.dominating_pair()
    assert vals[0][0] == 1 and amax is not None and amax >= fmpq(271828, 100000)
    assert pr.mass_at_infinity == 0 and pr.hockey_stick(amax) == 0
    rr = quantised_rr(ev.mechanism)
    for a, u in vals:
        h = pr.hockey_stick(a)
        assert h <= u  # the greatest convex minorant of the points: at or below each certified value
        with arith.precision(128):
            low = delta_krr_family(rr, ev.n, "same", exp_epsilon=a)
        assert arith.le(low, h) is True  # ... and above the exact delta of a concrete pair of datasets
    # the reflection: E(1/α) = 1 − 1/α + E(α)/α for the pair's curve
    a = vals[1][0]
    assert pr.hockey_stick(1 / a) == 1 - 1 / a + pr.hockey_stick(a) / a


def test_composed_laplace_rounds(laplace_round):
    acc = ShuffleAccountant().compose(laplace_round, count=3)
    e = acc.get_epsilon("1e-3")
    assert 0 < e.lower <= e.pair_lower <= e.upper
    assert e.upper <= acc.basic_upper() == 3  # pure DP basic composition of three 1-LDP rounds bounds it
    assert "blanket view" in acc.pair_descriptions()[0]
    d = acc.get_delta(e.upper)
    assert d.upper <= Fraction(1, 1000) and d.lower <= d.upper
    # one round composed once: the certified delta is at least the single round's concrete-dataset delta
    one = ShuffleAccountant().compose(laplace_round, count=1).get_delta("1/4")
    with arith.precision(128):
        low = delta_krr_family(quantised_rr(laplace_round.mechanism), 40, "same", epsilon=fmpq(1, 4))
    assert arith.le(low, one.upper) is True


def test_gaussian_round_has_no_pure_or_renyi_route():
    ev = ShuffledContinuous(Gaussian(2), 20, h="1/2", points=3)
    pr = ev.dominating_pair()
    assert pr.mass_at_infinity > 0  # not epsilon0-LDP: the last certified value stays at +infinity
    acc = ShuffleAccountant().compose(ev, count=2)
    assert acc.basic_upper() is None
    e = acc.get_epsilon("1e-2")
    assert e.route == "PLD" and e.renyi_upper is None
    assert 0 <= e.lower <= e.upper < math.inf


def test_records_and_refusals():
    assert isinstance(continuous_record({"type": "laplace", "scale": "2"}), Laplace)
    assert continuous_record({"type": "laplace", "scale": "2"}).epsilon0 == fmpq(1, 2)
    with pytest.raises(InvalidArgument, match="sigma"):
        continuous_record({"type": "gaussian"})
    with pytest.raises(InvalidArgument, match="epsilon0"):
        continuous_record({"type": "gaussian", "sigma": "1", "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="type"):
        continuous_record({"type": "krr"})
    with pytest.raises(InvalidArgument, match="n"):
        ShuffledContinuous({"type": "laplace", "epsilon0": "1"}, None)
