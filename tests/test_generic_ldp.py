"""Generic ε0-LDP (exact/shuffled/generic_ldp.py, issue 25): the 3-RR lower end, the same-randomizer bound, and the
refuted general-clone value.

Independent routes: the shuffled output law enumerated from the randomizer's matrix (exact rationals,
exact.shuffled.bruteforce and exact.shuffled.enumerate), the exhaustive worst case over all datasets of explicit
matrices (exact.shuffled.enumerate.worst_case), and the FOCS 2021 clone pair's own engine (clone_delta).
"""

from __future__ import annotations

import random

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.accounting import pld
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.stronger_clones import condition_violation
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.shuffled import generic_ldp as g
from blanket.exact.shuffled.binary import delta_binary
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.exact.shuffled.enumerate import worst_case
from blanket.exact.shuffled.oracles import clone_delta
from flint import fmpq

EXP_EPS = [fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2)]


@pytest.mark.parametrize("e", [fmpq(2), fmpq(3), fmpq(7), fmpq(15, 2)])
def test_three_rr_is_exactly_epsilon0_ldp(e):
    rows = KRR(3, exp_epsilon0=e).matrix()
    ratios = {rows[a][y] / rows[b][y] for a in range(3) for b in range(3) for y in range(3)}
    assert max(ratios) == e and min(ratios) == 1 / e
    assert all(sum(r) == 1 for r in rows)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_three_rr_third_value_delta_by_brute_force(n):
    e = fmpq(7)
    mech = KRR(3, exp_epsilon0=e)
    others = [2] * (n - 1)
    for ee in EXP_EPS:
        brute = max(
            delta_brute(mech, others + [0], others + [1], exp_epsilon=ee),
            delta_brute(mech, others + [1], others + [0], exp_epsilon=ee),
        )
        assert g.three_rr_third_delta(LDP(exp_epsilon0=e), n, exp_epsilon=ee) == brute


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_generic_lower_is_a_members_delta_and_below_every_upper(n):
    ldp = LDP(exp_epsilon0=7)
    for ee in EXP_EPS:
        lo, where = cb.lower_bound(ldp, n, exp_epsilon=ee)
        two = delta_binary(KRR(2, exp_epsilon0=7), n, 0, exp_epsilon=ee)
        three = g.three_rr_third_delta(ldp, n, exp_epsilon=ee)
        assert lo == max(two, three) and "randomized response" in where
        # a member's δ on a concrete dataset never exceeds that member's worst case, nor any certified upper bound
        assert lo <= worst_case(KRR(3 if lo == three else 2, exp_epsilon0=7), n, exp_epsilon=ee).value
        assert lo <= cb.best_upper(ldp, n, exp_epsilon=ee)[0]
        assert lo <= g.same_randomizer_delta(ldp, n, exp_epsilon=ee)


def test_three_rr_beats_binary_rr_at_large_n():
    # epsilon0 = 2, n = 10^3 and 10^4, at the epsilon binary RR needs for delta = 1e-6: 3-RR's delta is larger (balls)
    ldp = LDP(2)
    for n, eps in ((1000, "0.3233"), (10000, "0.0871")):
        two = delta_binary(KRR(2, 2), n, 0, epsilon=eps)
        three = g.three_rr_third_delta(ldp, n, epsilon=eps)
        assert arith.lt(two, three) is True
        assert arith.lt(three, cb.best_upper(ldp, n, epsilon=eps)[0]) is True
        assert arith.lt(three, g.same_randomizer_delta(ldp, n, epsilon=eps)) is True


def _random_ldp_matrices(count: int, seed: int) -> list:
    """Random exact matrices (3 or 4 inputs, 2 to 4 outputs) with column ratios pushed to the extremes."""
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        kin, kout, e = rnd.choice([3, 4]), rnd.choice([2, 3, 4]), rnd.choice([2, 3, 4])
        raw = [[rnd.choice([1, e, rnd.randint(1, e)]) * (j + 1) for j in range(kout)] for _ in range(kin)]
        rows = [[fmpq(v, sum(r)) for v in r] for r in raw]
        if len({tuple(r) for r in rows}) > 1:
            out.append(FiniteRandomizer(rows))
    return out


def test_same_randomizer_bound_above_the_exhaustive_worst_case_outside_the_stronger_clone_class():
    # Lemma G1 (docs/mechanisms.md): every matrix, including those the SODA 2023 condition refuses
    mats = _random_ldp_matrices(12, seed=7)
    outside = 0
    for m in mats:
        e = m.exp_epsilon0()
        outside += condition_violation(m) is not None
        for n in (2, 3):
            for ee in (fmpq(1), (1 + e) / 2):
                if ee >= e:
                    continue
                worst = worst_case(m, n, exp_epsilon=ee).value
                bound = g.same_randomizer_delta(LDP(exp_epsilon0=e), n, exp_epsilon=ee)
                assert worst <= bound <= clone_delta(LDP(exp_epsilon0=e), n, exp_epsilon=ee)
    assert outside >= 6  # the check covers randomizers outside the stronger clones' sufficient condition


def test_same_randomizer_bound_is_tight_for_binary_rr_and_the_check_can_fail():
    # binary RR attains it at n = 2 and 3 (exact rationals), so a bound 10 % lower would fail the check above
    e = fmpq(3)
    for n in (2, 3):
        for ee in (fmpq(1), fmpq(3, 2)):
            bound = g.same_randomizer_delta(LDP(exp_epsilon0=e), n, exp_epsilon=ee)
            worst = worst_case(KRR(2, exp_epsilon0=e), n, exp_epsilon=ee).value
            assert worst == bound and worst > bound * fmpq(9, 10)


@pytest.mark.parametrize("n", [2, 5, 10])
def test_general_clone_value_is_a_fixed_fraction_of_the_clone_pair_and_is_refuted(n):
    e = fmpq(7)
    ldp = LDP(exp_epsilon0=e)
    for ee in (fmpq(11, 10), fmpq(3, 2)):
        scw = g.scw_generic_delta(ldp, n, exp_epsilon=ee)
        assert scw == (e + 1) / (2 * e) * clone_delta(ldp, n, exp_epsilon=ee)
        # certified counterexamples: binary RR (c = 0) and 3-RR (third value) exceed it, exact rationals
        lo, _ = g.generic_lower(ldp, n, exp_epsilon=ee)
        assert lo > scw


def test_general_clone_value_refuted_at_n_200():
    # docs/mechanisms.md: e^eps0 = 7, e^eps = 11/10, n = 200: 3-RR (third value) 0.04306 > 0.04239 (balls)
    ldp = LDP(exp_epsilon0=7)
    scw = g.scw_generic_delta(ldp, 200, exp_epsilon="11/10", exact_max_n=0)
    three = g.three_rr_third_delta(ldp, 200, exp_epsilon="11/10", exact_max_n=0)
    assert arith.lt(scw, three) is True


def test_accountant_composes_the_three_rr_lower_pair():
    ev = Shuffled(LDP(exp_epsilon0=7), 6)
    pair = ev.third_lower_pair()
    assert pair is not None and ev.third_lower_bands() is not None
    # the lumped pair is a post-processing of the 3-RR dataset pair: its hockey stick is at most the exact delta
    for ee in EXP_EPS:
        h = pld.hockey_stick(pair.atoms(), ee)
        assert h <= g.three_rr_third_delta(LDP(exp_epsilon0=7), 6, exp_epsilon=ee)
    acc = ShuffleAccountant(curves=False).compose(Shuffled(LDP(2), 1000), count=2)
    r = acc.get_epsilon("1e-6")
    assert r.lower <= r.pair_lower <= r.upper
    assert r.details["lower_pair"].startswith("third-value")


def test_general_clone_value_is_registered_as_refuted():
    from blanket.proofs import core
    from blanket.reports.paper_check import check_result

    r = core.get("SCW25 general clone [generic]")
    assert r.known_false and r.mechanisms[0].startswith("judged-only:")  # never a candidate bound
    out = check_result(r)
    assert out["finding"] == "known false: refutation caught"
    assert {row["reference_relation"] for row in out["rows"]} == {"lower"}


def test_same_randomizer_bound_takes_a_matrix_or_a_krr_record():
    # the randomizer's own e^eps0 (max column ratio 2 here) or exact epsilon0, read from the record
    m = FiniteRandomizer([["1/2", "1/3", "1/6"], ["1/3", "1/2", "1/6"], ["1/3", "1/3", "1/3"]])
    assert g.same_randomizer_delta(m, 4, exp_epsilon=1) == g.same_randomizer_delta(
        LDP(exp_epsilon0=2), 4, exp_epsilon=1
    )
    a = g.same_randomizer_delta(KRR(3, "1/2"), 4, epsilon="1/4")  # balls: the same computation, the same ends
    assert arith.endpoints(a) == arith.endpoints(g.same_randomizer_delta(LDP("1/2"), 4, epsilon="1/4"))
    assert worst_case(m, 4, exp_epsilon=1).value <= g.same_randomizer_delta(m, 4, exp_epsilon=1)
