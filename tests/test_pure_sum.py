"""Tests of exact.protocols.pure_sum (the Cheu–Yan claims' exact side).

The claims' values themselves are checked against their statements in tests/test_proofs_pure_dp.py; here the
pieces that moved out of proofs/ are checked by independent routes: brute-force enumeration of the pairs, a direct
convolution of the component laws, and input validation.
"""

import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.protocols import pure_sum as PS
from blanket.exact.protocols import tdlap as xt
from flint import fmpq


@pytest.mark.parametrize("m", [2, 3, 4, 5])
def test_carry_pairs_match_enumeration(m):
    for carry in (True, False):
        want = set()
        for a in range(1, m):
            for b in range(a, m):
                if (a + b >= m) is carry:
                    want |= {(a, b, (a + b) % m, 0), ((a + b) % m, 0, a, b)}
        got = list(PS.carry_pairs(m, carry))
        assert set(got) == want and len(got) == len(want)  # no tuple twice


def test_group_mass_is_the_convolution_of_the_components():
    rho, tau, m = fmpq(1, 2), 2, 3
    r = xt.r_from_rho(rho, m)
    e1, d0 = xt.mirrored_component(1, m, tau, r=r), xt.lattice_component(0, m, tau, r=r)
    conv = [
        sum((e1[i] * d0[y - i] for i in range(len(e1)) if 0 <= y - i < len(d0)), fmpq(0))
        for y in range(len(e1) + len(d0) - 1)
    ]
    for y in (0, 5, len(conv) // 2, len(conv) - 1):
        assert PS.group_mass("E", 1, "D", 0, rho, tau, m, y) == conv[y]
    assert PS.group_mass("E", 1, "D", 0, rho, tau, m, len(conv) + 3) == 0


def test_no_carry_gap_is_exactly_zero_and_carry_gap_is_not():
    assert PS.no_carry_gap(5, 2, "1/2", 1, 2) == 0
    assert PS.no_carry_gap(5, 2, "1/2", 3, 4) > 0  # a + b >= m: the claim's hypothesis fails, the gap is real


def test_aggregator_validates_its_arguments():
    with pytest.raises(InvalidArgument, match="m must be >= 2"):
        PS.aggregator(1, 2, fmpq(1, 2), r="1/2")
    with pytest.raises(InvalidArgument, match="r must be"):
        PS.aggregator(3, 2, fmpq(1, 2), r="1")
    with pytest.raises(InvalidArgument, match="tau must be an integer"):
        PS.aggregator(3, fmpq(1, 2), fmpq(1, 2), r="1/2")


def test_perfect_security_failure_is_at_least_one_minus_one_over_m():
    for m in (2, 3, 5):
        assert PS.perfect_security_failure(m) >= 1 - fmpq(1, m)
