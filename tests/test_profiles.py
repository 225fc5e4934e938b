"""Tests of exact.accounting.profiles (the dataset dispatcher and certified ε(δ), ε0 for a target).

Independent routes: exact.shuffled.krr (the four-atom engine) for the k = 2
families against exact.shuffled.binary, exact rationals, and direct re-evaluation of
calibrated ends at another precision.
"""

import pytest
from blanket.exact.accounting.profiles import DATASETS, delta, epsilon, epsilon0, parse_dataset
from blanket.exact.mechanisms.finite import KRR, BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st


def test_parse_dataset():
    assert parse_dataset("worst") == ("worst", None)
    assert parse_dataset(" C = 7 ", 10) == ("c", 7)
    assert parse_dataset("neighbor") == ("neighbour", None)
    for bad in ["c=-1", "c=x", "all", "", None, "c=10"]:
        with pytest.raises(InvalidArgument) as exc:
            parse_dataset(bad, 10)
        assert str(exc.value).startswith("dataset ")
    assert "c=INT" in DATASETS


def test_delta_worst_and_c_match_exact_binary():
    rr = BinaryRR(exp_epsilon0=3)
    w = delta(rr, 30, exp_epsilon=fmpq(5, 4))
    assert w.value == delta_binary_worst(rr, 30, exp_epsilon=fmpq(5, 4)).value
    assert w.relation == "exact" and "c=" in w.attained
    r = delta(rr, 30, exp_epsilon=fmpq(5, 4), dataset="c=4")
    assert r.value == delta_binary(rr, 30, 4, exp_epsilon=fmpq(5, 4)) and r.relation == "lower"


@settings(max_examples=10)
@given(
    e0=st.sampled_from(["3", "2", "7/2", "9"]),
    n=st.integers(2, 40),
    frac=st.fractions(min_value=0, max_value=1, max_denominator=4),
)
def test_binary_families_agree_with_krr_engine(e0, n, frac):
    """same/neighbour for k = 2 (exact.shuffled.krr) must equal c = 0 / c = n−1 of exact.shuffled.binary (exact rationals)."""
    rr = BinaryRR(exp_epsilon0=e0)
    ee = 1 + (arith.exact(e0) - 1) * arith.exact(frac)
    same = delta(rr, n, exp_epsilon=ee, dataset="same").value
    neigh = delta(rr, n, exp_epsilon=ee, dataset="neighbour").value
    assert same == delta_binary(rr, n, 0, exp_epsilon=ee)
    assert neigh == delta_binary(rr, n, n - 1, exp_epsilon=ee)


@settings(max_examples=8)
@given(
    e0=st.sampled_from(["3", "2", "9"]),
    n=st.integers(2, 25),
    frac=st.fractions(min_value=0, max_value=1, max_denominator=3),
)
def test_blanket_view_upper_bounds_worst_case(e0, n, frac):
    rr = BinaryRR(exp_epsilon0=e0)
    ee = 1 + (arith.exact(e0) - 1) * arith.exact(frac)
    b = delta(rr, n, exp_epsilon=ee, dataset="blanket")
    w = delta(rr, n, exp_epsilon=ee, dataset="worst")
    assert b.relation == "upper"
    assert arith.le(w.value, b.value) is not False


def test_krr_third_family_and_worst_is_the_bracket_for_k3():
    rr = KRR(3, epsilon0="2")
    r = delta(rr, 200, epsilon="0.5", dataset="third")
    assert r.relation == "lower" and r.value > 0
    with pytest.raises(InvalidArgument) as exc:
        delta(rr, 200, epsilon="0.5", dataset="c=3")
    assert "k = 2" in str(exc.value)
    # k > 2, dataset worst: the certified bracket [worst of the families, blanket view], labelled as such
    w = delta(rr, 200, epsilon="0.5", dataset="worst")
    assert w.relation == "bracket" and w.lower_bound.relation == "lower" and w.upper_bound.relation == "upper"
    fams = [delta(rr, 200, epsilon="0.5", dataset=d).value for d in ("same", "neighbour", "third")]
    best = max(fams, key=lambda v: arith.endpoints(v)[0])
    assert arith.endpoints(w.value)[0] <= arith.endpoints(best)[0]
    assert arith.endpoints(w.value)[1] >= arith.endpoints(delta(rr, 200, epsilon="0.5", dataset="blanket").value)[1]
    assert 0 < w.rel_width < 1


def test_delta_zero_at_epsilon0():
    for ds in ("worst", "c=2", "same"):
        r = delta(BinaryRR(epsilon0="1.5"), 1000, epsilon="1.5", dataset=ds)
        assert r.value == 0 and isinstance(r.value, fmpq)


def test_delta_is_tight():
    r = delta(BinaryRR(epsilon0="2"), 5000, epsilon="0.2", dataset="c=0")
    assert r.value.rad() <= r.value.mid() * fmpq(1, 2**40)


def test_epsilon_single_dataset_is_certified_by_direct_evaluation():
    rr = BinaryRR(epsilon0="2")
    n, target = 4000, fmpq(1, 10**7)
    e = epsilon(rr, n, delta=target, dataset="c=3")
    assert e.bracket.evaluations <= 12
    assert e.bracket.rel_width() <= fmpq(1, 10**6)
    with arith.precision(192):
        assert arith.le(delta_binary(rr, n, 3, epsilon=e.upper), target) is True
        assert arith.gt(delta_binary(rr, n, 3, epsilon=e.lower), target) is True


def test_epsilon_worst_case_certified_and_above_single_datasets():
    rr = BinaryRR(epsilon0="2")
    n, target = 1000, fmpq(1, 10**6)
    w = epsilon(rr, n, delta=target)
    c0 = epsilon(rr, n, delta=target, dataset="c=0")
    assert w.relation == "exact" and w.bracket.rel_width() <= fmpq(1, 10**6)
    with arith.precision(160):
        assert arith.le(delta_binary_worst(rr, n, epsilon=w.upper).value, target) is True
        # the lower end fails on the attaining dataset (hence in the worst case)
        assert arith.gt(delta_binary(rr, n, w.c, epsilon=w.lower, direction="1|0"), target) is True
    # the worst case is strictly worse than c = 0 here (the maximiser is c = 2, reverse direction)
    assert c0.upper < w.lower
    assert w.c not in (0, n - 1)


def test_epsilon_krr_family_and_blanket_order():
    rr = KRR(3, epsilon0="1")
    third = epsilon(rr, 300, delta="1e-4", dataset="third")
    blanket = epsilon(rr, 300, delta="1e-4", dataset="blanket")
    assert third.relation == "lower" and blanket.relation == "upper"
    # δ_third ≤ δ_blanket pointwise, so ε*_third ≤ ε*_blanket; with both brackets certified:
    assert third.lower < blanket.upper


def test_epsilon0_for_target():
    n, eps, target = 800, fmpq(1, 2), fmpq(1, 10**6)
    br = epsilon0(n, epsilon=eps, delta=target, dataset="c=0", rel_tol="1e-5")
    with arith.precision(192):
        assert arith.le(delta_binary(BinaryRR(epsilon0=br.lower), n, 0, epsilon=eps), target) is True
        assert arith.gt(delta_binary(BinaryRR(epsilon0=br.upper), n, 0, epsilon=eps), target) is True


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(delta="0"), "delta"),
        (dict(delta="1.5"), "delta"),
        (dict(delta="x"), "delta"),
        (dict(delta="1e-6", dataset="c=99"), "dataset"),
        (dict(delta="1e-6", dataset="nope"), "dataset"),
    ],
)
def test_epsilon_bad_input(kwargs, name):
    with pytest.raises(InvalidArgument) as exc:
        epsilon(BinaryRR(epsilon0="1"), 50, **kwargs)
    assert str(exc.value).startswith(name + " ")


def test_delta_bad_n():
    with pytest.raises(InvalidArgument, match="^n must be >= 2"):
        delta(BinaryRR(epsilon0="1"), 1, epsilon="0.1")
