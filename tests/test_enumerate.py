"""Tests for exact.shuffled.enumerate: the exhaustive small-n worst case over all datasets.

Independent routes:
* an in-file brute force over *all* k^n report vectors and *all* ordered
  datasets (lists, not multisets) with exact rationals — it shares no code
  with the module (no convolution, no symmetry, no lumping);
* ``exact.shuffled.bruteforce``, an independent brute force;
* the generic path run on a k-RR matrix versus the k-RR symmetry path;
* the binary-RR hockey-stick written out with binomial pmfs.
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.finite import KRR, BinaryRR, FiniteRandomizer
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.enumerate import count_classes, dataset_deltas, delta_dataset, histogram_law, worst_case
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st


# ------------------------------------------------------------ independent brute force
def _brute_law(matrix, dataset):
    """Law of the sorted report tuple, by enumerating every report vector (k_out^n)."""
    law = Counter()
    k_out = len(matrix[0])
    for reports in itertools.product(range(k_out), repeat=len(dataset)):
        p = Fraction(1)
        for x, y in zip(dataset, reports):
            p *= matrix[x][y]
            if p == 0:
                break
        if p:
            law[tuple(sorted(reports))] += p
    return law


def _brute_worst(matrix, n, ee):
    """max over *all* ordered neighbouring datasets (every list of n inputs, every position changed)."""
    k_in = len(matrix)
    best = Fraction(0)
    cache = {}

    def law(d):
        key = tuple(sorted(d))
        if key not in cache:
            cache[key] = _brute_law(matrix, key)
        return cache[key]

    for d in itertools.product(range(k_in), repeat=n):
        for i in range(n):
            for x2 in range(k_in):
                if x2 == d[i]:
                    continue
                d2 = d[:i] + (x2,) + d[i + 1 :]
                p, q = law(d), law(d2)
                s = sum(max(Fraction(0), p[h] - ee * q.get(h, 0)) for h in p)
                best = max(best, s)
    return best


def F(v):
    """fmpq -> Fraction (fmpq does not compare equal to Fraction)."""
    return Fraction(int(v.p), int(v.q))


def _frac_matrix(mech):
    return [[Fraction(int(v.p), int(v.q)) for v in row] for row in mech.matrix()]


rationals_ge1 = st.fractions(min_value=1, max_value=6, max_denominator=7)


# ------------------------------------------------------------ ground truth n <= 5
@settings(max_examples=6)
@given(
    k=st.integers(2, 3),
    n=st.integers(1, 4),
    e0=rationals_ge1,
    ee=st.fractions(min_value=1, max_value=3, max_denominator=5),
)
def test_krr_matches_brute_force(k, n, e0, ee):
    mech = KRR(k, exp_epsilon0=e0)
    wc = worst_case(mech, n, exp_epsilon=ee)
    assert F(wc.value) == _brute_worst(_frac_matrix(mech), n, ee)


@pytest.mark.parametrize("k,n", [(2, 5), (3, 5), (4, 4), (5, 3)])
def test_krr_matches_brute_force_fixed(k, n):
    mech = KRR(k, exp_epsilon0=3)
    ee = Fraction(3, 2)
    assert F(worst_case(mech, n, exp_epsilon=ee).value) == _brute_worst(_frac_matrix(mech), n, ee)


random_matrix = st.integers(2, 3).flatmap(
    lambda k: st.lists(
        st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(lambda r: sum(r) > 0), min_size=k, max_size=k
    )
)


@settings(max_examples=6)
@given(weights=random_matrix, n=st.integers(1, 4), ee=st.fractions(min_value=1, max_value=3, max_denominator=4))
def test_generic_matches_brute_force(weights, n, ee):
    matrix = [[Fraction(w, sum(r)) for w in r] for r in weights]
    mech = FiniteRandomizer([[str(v) for v in r] for r in matrix])
    assert F(worst_case(mech, n, exp_epsilon=ee).value) == _brute_worst(matrix, n, ee)


def test_generic_4x4_n5_matches_brute_force():
    weights = [[4, 3, 2, 1], [1, 4, 3, 2], [2, 2, 2, 4], [1, 1, 1, 7]]
    matrix = [[Fraction(w, sum(r)) for w in r] for r in weights]
    mech = FiniteRandomizer([[str(v) for v in r] for r in matrix])
    assert F(worst_case(mech, 5, exp_epsilon=Fraction(6, 5)).value) == _brute_worst(matrix, 5, Fraction(6, 5))


def test_bruteforce_module_agrees():
    bf = importlib.import_module("blanket.exact.shuffled.bruteforce")
    mech = KRR(3, exp_epsilon0=2)
    wc = worst_case(mech, 4, exp_epsilon="3/2")
    d1, d2 = wc.pair()
    assert bf.delta_brute(mech, d1, d2, exp_epsilon="3/2") == wc.witness_value


# ------------------------------------------------------------ paths agree with each other
@settings(max_examples=5)
@given(k=st.integers(3, 5), n=st.integers(2, 6), e0=rationals_ge1)
def test_krr_path_equals_generic_path(k, n, e0):
    mech = KRR(k, exp_epsilon0=e0)
    gen = FiniteRandomizer(mech.matrix())
    assert worst_case(mech, n, exp_epsilon=2).value == worst_case(gen, n, exp_epsilon=2).value


def test_witness_reverifies_with_explicit_dataset():
    mech = KRR(5, exp_epsilon0=4)
    wc = worst_case(mech, 6, exp_epsilon="5/4")
    assert delta_dataset(mech, wc.others, wc.x, wc.x2, exp_epsilon="5/4") == wc.value == wc.witness_value


def test_binary_rr_closed_form():
    # binary RR: the worst case over c = number of ones among the others, both directions, with binomial pmfs
    e0, ee, n = Fraction(3), Fraction(6, 5), 7
    p = e0 / (e0 + 1)

    def law(c, x):  # number of reported ones when c others hold 1 and the differing user holds x
        ones, zeros = c + x, n - c - x
        out = Counter()
        for i in range(ones + 1):
            for j in range(zeros + 1):
                out[i + j] += (
                    math.comb(ones, i)
                    * p**i
                    * (1 - p) ** (ones - i)
                    * math.comb(zeros, j)
                    * (1 - p) ** j
                    * p ** (zeros - j)
                )
        return out

    best = max(
        sum(max(Fraction(0), P[t] - ee * Q[t]) for t in range(n + 1))
        for c in range(n)
        for P, Q in [(law(c, 0), law(c, 1)), (law(c, 1), law(c, 0))]
    )
    assert F(worst_case(BinaryRR(exp_epsilon0=e0), n, exp_epsilon=ee).value) == best


def test_histogram_law_sums_to_one_and_balls_enclose_exact():
    mech_exact = KRR(4, exp_epsilon0=3)
    law = histogram_law(mech_exact.matrix(), [0, 1, 2, 2])
    assert sum(law.values(), fmpq(0)) == 1
    # e^{ε0} = 3 given as a ball: the ball worst case must contain the exact one
    with precision(128):
        ball_mech = KRR(4, epsilon0="1")  # different mechanism: check the ε route against exp_epsilon via its own exp
        wc_ball = worst_case(ball_mech, 4, epsilon="1/2")
        e0 = arb(1).exp()
        assert wc_ball.value.rad() < arb("1e-20")
        # cross-check the exact route at a rational bracket: δ is monotone in e^{ε0}
        lo = worst_case(KRR(4, exp_epsilon0=fmpq(2718, 1000)), 4, epsilon="1/2").value
        hi = worst_case(KRR(4, exp_epsilon0=fmpq(2719, 1000)), 4, epsilon="1/2").value
        assert e0 > fmpq(2718, 1000) and e0 < fmpq(2719, 1000)
        assert wc_ball.value > lo.lower() and wc_ball.value < hi.upper()


def test_count_classes_krr_and_generic():
    assert count_classes(KRR(10, exp_epsilon0=2), 8) == 120
    assert count_classes(KRR(2, exp_epsilon0=2), 8) == 8
    m = FiniteRandomizer([["1/2", "1/2", 0], [0, "1/2", "1/2"], ["1/3", "1/3", "1/3"]])
    assert count_classes(m, 5) == math.comb(4 + 2, 2)
    # both directions of every class are reported
    assert len(dataset_deltas(KRR(3, exp_epsilon0=2), 3, exp_epsilon=1)) == 2 * count_classes(KRR(3, exp_epsilon0=2), 3)


def test_duplicate_rows_and_proportional_columns_merged_without_changing_value():
    base = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"]]
    dup = FiniteRandomizer(base + [["1/2", "1/4", "1/4"]])  # row 2 duplicates row 0
    split = FiniteRandomizer(
        [["1/2", "1/8", "1/8", "1/4"], ["1/4", "1/4", "1/4", "1/4"]]
    )  # column 1 split in two halves
    plain = FiniteRandomizer(base)
    v = worst_case(plain, 5, exp_epsilon="6/5").value
    assert worst_case(dup, 5, exp_epsilon="6/5").value == v
    assert worst_case(split, 5, exp_epsilon="6/5").value == v


def test_bad_input():
    with pytest.raises(InvalidArgument, match="n must be >= 1"):
        worst_case(KRR(3, exp_epsilon0=2), 0, exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="epsilon"):
        worst_case(KRR(3, exp_epsilon0=2), 3)
    with pytest.raises(InvalidArgument, match="dataset"):
        delta_dataset(KRR(3, exp_epsilon0=2), [5], 0, 1, exp_epsilon=1)
    with pytest.raises(InvalidArgument):
        worst_case(KRR(3, exp_epsilon0=2), 3, epsilon=0.5)


def test_ball_route_encloses_exact_route():
    # e^ε = 3/2 exactly vs ε = log(3/2) as a ball is not expressible; use ε = 0 (e^ε = 1) both ways
    mech = KRR(4, exp_epsilon0=3)
    with precision(128):
        a = worst_case(mech, 5, epsilon=0).value
        b = worst_case(mech, 5, exp_epsilon=1).value
    assert a == b


def test_worst_cases_multi_equals_singles_and_delta_class_is_a_lower_bound():
    from blanket.exact.shuffled.enumerate import delta_class, worst_cases

    mech = KRR(4, exp_epsilon0=3)
    ees = [1, "6/5", 2]
    multi = worst_cases(mech, 5, exp_epsilons=ees)
    for ee, wc in zip(ees, multi):
        assert wc.value == worst_case(mech, 5, exp_epsilon=ee).value
        third = delta_class(mech, 5, 0, 0, (4,), exp_epsilon=ee)
        assert max(third) <= wc.value
        # the class value equals the explicit dataset computed without symmetry
        assert third[0] == delta_dataset(mech, [2, 2, 2, 2], 0, 1, exp_epsilon=ee)
    with pytest.raises(InvalidArgument, match="n - 1"):
        delta_class(mech, 5, 1, 1, (1,), exp_epsilon=1)


@pytest.mark.slow
def test_krr_matches_brute_force_n5_larger_k(slow_level):
    ks = [4] if slow_level == "reduced" else [4, 5, 6]
    for k in ks:
        mech = KRR(k, exp_epsilon0=Fraction(5, 2))
        ee = Fraction(5, 4)
        assert F(worst_case(mech, 5, exp_epsilon=ee).value) == _brute_worst(_frac_matrix(mech), 5, ee)
