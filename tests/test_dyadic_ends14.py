"""Exact dyadic ends of a ball (exact.numbers.arith.lower_exact / upper_exact / float_below / float_above), used by
the unary-encoding full view (exact.shuffled.oracle_third) and laws.float_upper in place of Fraction endpoints (task
polish14, item 3).  Independent route: the exact Fraction endpoints of arith.endpoints (from the midpoint's and the
radius's mantissa and exponent)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError
from flint import arb, fmpq


def _balls() -> list:
    rng = random.Random(14)
    out = []
    with arith.precision(128):
        for _ in range(300):
            mid = arb(fmpq(rng.randrange(-(10**12), 10**12), rng.randrange(1, 10**12)))
            e = rng.choice([0, 1, -1, 30, -30, 500, -500, 1020, -1020, -1070, -1080, 1030])
            x = mid * arb(2) ** e
            x = x + arb(0, rng.choice([0, 1e-30, 1e-10, 1e-3]) * abs(float(mid)))  # a radius
            out.append(x)
        out += [arb(2).sqrt(), arb(1) / 3, -arb(1) / 3, arb(0), arb(2) ** -1100, -(arb(2) ** 2000)]
    return out


@pytest.mark.parametrize("prec", [53, 128])
def test_ends_are_on_the_safe_side(prec):
    for x in _balls():
        lo, hi = arith.endpoints(x)
        with arith.precision(prec):
            le, ue = arith.lower_exact(x), arith.upper_exact(x)
            fl, fu = arith.float_below(x), arith.float_above(x)
        assert le.rad() == 0 and ue.rad() == 0
        lq, uq = arith.endpoints(le)[0], arith.endpoints(ue)[0]
        assert lq <= lo and uq >= hi
        if lo != 0:  # no looser than the precision's rounding (tiny parts of endpoints are rounded out by it)
            assert lo - lq <= abs(lo) * Fraction(1, 2 ** (prec - 1)) or lq >= lo - Fraction(1, 2**1000)
        if not math.isinf(fl):
            assert Fraction(fl) <= lo
        if not math.isinf(fu):
            assert Fraction(fu) >= hi
        elif fu > 0:
            assert hi > Fraction(2) ** 1023


def test_non_finite_ball_refused_as_before():
    for f in (arith.lower_exact, arith.upper_exact, arith.float_below, arith.float_above):
        with pytest.raises(BlanketError):
            f(arb("inf"))


def test_full_view_builds_no_fraction(monkeypatch):
    """The float kernels of the full view take their ends without arith.endpoints (it was ~40 % of a call); the value
    still encloses the exact rational route's."""
    from blanket.exact.mechanisms.oracles import OUE
    from blanket.exact.shuffled import oracle_third as T

    mech, ee = OUE(3, exp_epsilon0=3), fmpq(5, 4)
    exact = T.third_full_delta(mech, 4, exp_epsilon=ee)
    exact_s = T.sampled_full_delta(mech, 4, fmpq(1, 2), exp_epsilon=ee)
    assert isinstance(exact, fmpq) and isinstance(exact_s, fmpq)

    def refuse(x):
        raise AssertionError("arith.endpoints called")

    monkeypatch.setattr(arith, "endpoints", refuse)
    v = T.third_full_delta(mech, 4, exp_epsilon=ee, exact_max_n=0)
    s = T.sampled_full_delta(mech, 4, fmpq(1, 2), exp_epsilon=ee, exact_max_n=0)
    monkeypatch.undo()
    for ball, q in ((v, exact), (s, exact_s)):
        lo, hi = arith.endpoints(ball)
        assert lo <= Fraction(int(q.p), int(q.q)) <= hi
        assert hi - lo <= Fraction(1, 10**6) * hi
