"""The one rule for extra bits at a large ratio (``arith.cancellation_bits``, docs/numerics.md "Extra bits at a large
ratio"), checked against an independent ``⌈log2⌉`` (exact rational comparisons, mpmath) and at the sites it protects.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from blanket.exact.accounting.pairs import clone_pair, split_blanket_view
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import LDP, SUE
from blanket.exact.mechanisms.oracles import cancellation_bits as oracle_bits
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq


def _ceil_log2(r: fmpq) -> int:
    # the least c with 2^c >= r, by exact comparisons (not the code under test)
    c = 0
    while fmpq(2) ** c < r:
        c += 1
    while c > 0 and fmpq(2) ** (c - 1) >= r:
        c -= 1
    return c


@pytest.mark.parametrize(
    "r",
    [fmpq(1000), fmpq(2**20 - 1), fmpq(2**20), fmpq(2**20 + 1), fmpq(3 * 2**40, 7), fmpq(10**30), fmpq(2**700 + 1)],
)
@pytest.mark.parametrize("depth", [1, 2])
def test_rule_against_exact_ceil_log2(r, depth):
    want = depth * (_ceil_log2(r) + 1) if r >= 2**20 else 0
    if r == 2**20 + 1:  # read at 64 bits: the upper end of 2^20 + 1 is itself (exact at 64 bits)
        assert want == depth * 22
    assert arith.cancellation_bits(r, depth) == want


def test_zero_below_the_threshold_and_at_the_usual_parameters():
    # e^{13.86} < 2^20 < e^{13.87} (ln 2^20 = 13.8629...): every usual ε0 and q gets nothing, the precision is the caller's
    assert math.log(2**20) == pytest.approx(13.8629, abs=1e-4)
    for e0 in ("0.1", "1", "2", "5", "10", "13", "13.86"):
        with arith.precision(128):
            assert arith.cancellation_bits(arb(e0).exp()) == 0
            assert arith.cancellation_bits(arb(e0).exp(), depth=2) == 0
    assert arith.cancellation_bits(arb("13.87").exp()) == 22  # e^{13.87} = 1056001.3: ⌈log2⌉ = 21
    for q in (fmpq(1, 2), fmpq(1, 10), fmpq(1, 10**6)):
        assert arith.cancellation_bits(1 / q) == 0
    assert arith.cancellation_bits(fmpq(10**7)) == 25  # q = 1e-7: ⌈log2 1e7⌉ = 24
    for prec in (53, 128, 300):
        with arith.precision(prec):
            assert arith.cancellation_precision(0) == prec
            assert arith.cancellation_precision(10) == max(prec, 64) + 10


@pytest.mark.parametrize("e0", ["14", "40", "60", "100", "200", "500"])
def test_large_epsilon0_against_mpmath(e0):
    # ⌈log2 e^{ε0}⌉ = ⌈ε0 / ln 2⌉ at 50 digits (none of these is within 10^-40 of an integer)
    with mp.workdps(50):
        c = int(mp.ceil(mp.mpf(e0) / mp.log(2)))
    with arith.precision(128):
        e = arb(e0).exp()
    assert arith.cancellation_bits(e) == c + 1
    assert oracle_bits(SUE(3, epsilon0=e0)) == 2 * (c + 1)  # the oracles' depth 2 (session 13's values)


def test_not_a_finite_ratio_and_bad_depth():
    assert arith.cancellation_bits(arb("inf")) == 0
    assert arith.cancellation_bits(arb("nan")) == 0
    with pytest.raises(InvalidArgument, match="depth"):
        arith.cancellation_bits(10**9, depth=0)


@pytest.mark.parametrize("e0", ["60", "200", "500"])
def test_pairs_keep_one_minus_pi_p(e0):
    # what the rule protects: 1 − π_p = 1/(e+1) of the clone and blanket-view pairs keeps its digits at a caller's 53
    # bits (without the extra bits the ball of π_p contains 1 and 1 − π_p has no digit)
    with mp.workdps(2 * int(e0) + 60):
        truth = 1 / (mp.e ** mp.mpf(e0) + 1)
    for pair in (clone_pair(LDP(epsilon0=e0), 5), split_blanket_view(KRR(2, e0), 5)):
        with arith.precision(53):
            d = 1 - arith.ball(pair.pi_p)
            assert d > 0
            assert float(d.rad() / d.mid()) < 2.0**-40
        with mp.workdps(40):
            lo, hi = mp.mpf(d.lower().str(40, radius=False)), mp.mpf(d.upper().str(40, radius=False))
            assert lo * (1 - mp.mpf(10) ** -30) <= truth <= hi * (1 + mp.mpf(10) ** -30)


def test_pairs_keep_their_bits_at_every_epsilon0():
    # the clone / blanket-view pairs take ⌈log2 e⌉ + 1 bits at every ε0 (threshold 1) over max(caller, 64): their
    # answers at the usual ε0 depend on these bits (telemetry_daily.toml --curves off changed in its 9th digit
    # without them), so they are session 13's: compare with its float formula and with the ball it computes
    for e0 in ("0.5", "1", "2", "5", "13"):
        with arith.precision(64):
            e_hi = arb(e0).exp().upper()
        want = math.ceil(math.log2(float(e_hi))) + 1
        assert arith.cancellation_bits(arb(e0).exp(), threshold=1) == want
        assert arith.cancellation_bits(arb(e0).exp()) == 0
        for prec in (53, 128):
            with arith.precision(prec):
                pair = clone_pair(LDP(epsilon0=e0), 5)
            with arith.precision(max(prec, 64) + want):
                e = arb(e0).exp()
                pi_p = e / (e + 1)
            assert pair.pi_p.mid() == pi_p.mid() and pair.pi_p.rad() == pi_p.rad()
    assert arith.cancellation_bits(fmpq(3), threshold=1) == 3 and arith.cancellation_bits(fmpq(1, 2), threshold=1) == 0
    with pytest.raises(InvalidArgument, match="threshold"):
        arith.cancellation_bits(3, threshold=0)
