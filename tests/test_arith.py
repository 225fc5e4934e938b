"""Tests of exact.numbers.arith: exact parsing, precision context, three-valued comparisons, escalation, outward rounding.

Oracles: Python's ``fractions.Fraction`` (independent exact parser/arithmetic)
and ``decimal`` for the decimal strings.
"""

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument, Undecided
from flint import arb, ctx, fmpq
from hypothesis import given
from hypothesis import strategies as st


def F(q) -> Fraction:
    return Fraction(int(q.p), int(q.q))


# ---------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e-8", Fraction(1, 10**8)),
        ("0.3", Fraction(3, 10)),
        ("-2.5E+3", Fraction(-2500)),
        ("1/3", Fraction(1, 3)),
        ("  7 ", Fraction(7)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("+0.125", Fraction(1, 8)),
        ("-1/3", Fraction(-1, 3)),
        ("1E2", Fraction(100)),
        ("0.000", Fraction(0)),
        ("3e0", Fraction(3)),
    ],
)
def test_exact_parses_decimal_and_fraction_strings_exactly(text, expected):
    assert F(arith.exact(text)) == expected


@given(st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(lambda d: abs(d.adjusted()) < 60))
def test_exact_matches_decimal_module(d):
    # Decimal -> Fraction is exact: an independent parser of the same text
    text = str(d)
    assert F(arith.exact(text)) == Fraction(Decimal(text))


@given(st.fractions())
def test_exact_fraction_roundtrip(q):
    assert F(arith.exact(q)) == q
    assert F(arith.exact(f"{q.numerator}/{q.denominator}")) == q


def test_exact_int_fmpq_fmpz():
    from flint import fmpz

    assert arith.exact(3) == fmpq(3) and arith.exact(fmpz(4)) == fmpq(4) and arith.exact(fmpq(1, 7)) == fmpq(1, 7)


@pytest.mark.parametrize("bad", ["abc", "1/0", "1e", "--1", "1/-3", "inf", "nan", "", "0x10", "1 2"])
def test_exact_rejects_malformed_strings_naming_the_argument(bad):
    with pytest.raises(InvalidArgument) as exc:
        arith.exact(bad, "epsilon")
    msg = str(exc.value)
    assert msg.startswith("epsilon ") and repr(bad) in msg


def test_floats_refused_with_instructions():
    with pytest.raises(FloatRefused) as exc:
        arith.exact(0.1, "delta")
    msg = str(exc.value)
    assert "delta" in msg and "'0.1'" in msg and "string" in msg and "allow_float" in msg


def test_bool_and_other_types_refused():
    with pytest.raises(InvalidArgument):
        arith.exact(True, "x")
    with pytest.raises(InvalidArgument):
        arith.exact([1], "x")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_allow_float_gives_exact_binary_value(x):
    assert F(arith.exact(x, allow_float=True)) == Fraction(x)


@pytest.mark.parametrize("x", [float("nan"), float("inf"), float("-inf")])
def test_allow_float_refuses_non_finite(x):
    with pytest.raises(InvalidArgument):
        arith.exact(x, "x", allow_float=True)


def test_exact_in_bounds_and_messages():
    assert arith.exact_in("0.5", "delta", lo=0, hi=1, lo_open=True, hi_open=True) == fmpq(1, 2)
    for bad, req in [("0", "> 0"), ("1", "< 1"), ("-1e-9", "> 0")]:
        with pytest.raises(InvalidArgument, match=f"delta must be {req}"):
            arith.exact_in(bad, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    assert arith.exact_in("0", "e", lo=0) == 0  # closed end accepted


def test_integer_in():
    assert arith.integer_in("1e3", "n") == 1000
    assert arith.integer_in(" 12 ", "n", lo=2) == 12
    for bad in ["2.5", "x", 2.0, True]:
        with pytest.raises(InvalidArgument):
            arith.integer_in(bad, "n")
    with pytest.raises(InvalidArgument, match="n must be <= 5"):
        arith.integer_in(6, "n", hi=5)


# ---------------------------------------------------------------- precision
def test_precision_restores_on_exception():
    old = ctx.prec
    with pytest.raises(RuntimeError):
        with arith.precision(333):
            assert ctx.prec == 333
            raise RuntimeError("boom")
    assert ctx.prec == old


def test_precision_nested_and_validated():
    old = ctx.prec
    with arith.precision(200):
        with arith.precision(64):
            assert ctx.prec == 64
        assert ctx.prec == 200
    assert ctx.prec == old
    with pytest.raises(InvalidArgument):
        with arith.precision(1):
            pass


# ---------------------------------------------------------------- comparisons
def test_three_valued_comparisons_on_overlapping_balls():
    a = arb(1, fmpq(1, 2))  # [0.5, 1.5]
    b = arb(fmpq(5, 4))  # 1.25 inside a
    for f in (arith.le, arith.lt, arith.ge, arith.gt):
        assert f(a, b) is None
    assert arith.le(a, 2) is True and arith.lt(a, 2) is True
    assert arith.le(a, 0) is False and arith.gt(a, 0) is True
    # a bare `<` on overlapping balls silently says False; the three-valued one does not
    assert (a < b) is False and arith.lt(a, b) is None


def test_comparisons_exact_and_touching():
    assert arith.le(fmpq(1, 3), fmpq(1, 3)) is True and arith.lt(fmpq(1, 3), fmpq(1, 3)) is False
    assert arith.le(arb(1), arb(1)) is True and arith.lt(arb(1), arb(1)) is False
    assert arith.le(arb("nan"), 1) is None
    assert arith.sign(arb(0)) == 0 and arith.sign(arb(1, 2)) is None and arith.sign(fmpq(-1, 2)) == -1


@given(st.fractions(), st.fractions())
def test_comparisons_agree_with_fractions(x, y):
    qx, qy = arith.exact(x), arith.exact(y)
    with arith.precision(128):
        bx, by = arb(qx), arb(qy)
        assert arith.le(qx, qy) == (x <= y)
        for f, truth in ((arith.le, x <= y), (arith.lt, x < y), (arith.ge, x >= y), (arith.gt, x > y)):
            r = f(bx, by)
            assert r is None or r == truth


def test_positive_part():
    assert arith.positive_part(fmpq(-1, 2)) == 0 and arith.positive_part(fmpq(1, 2)) == fmpq(1, 2)
    pp = arith.positive_part(arb(0, 1))  # [-1, 1] -> contains [0, 1]
    assert pp.contains(arb(0)) and pp.contains(arb(1)) and not (pp < 0)


# ---------------------------------------------------------------- escalation
def test_escalate_decides_when_possible():
    # e - 2.718281828459045235360287471352662497757 > 0 needs more than 64 bits
    target = arb("2.718281828459045235360287471352662497757")
    calls = []

    def compute(prec):
        calls.append(prec)
        return arb(1).exp() - arb("2.718281828459045235360287471352662497757")

    r, prec = arith.escalate(compute, lambda v: v > 0, start=32)
    assert r > 0 and prec == calls[-1] and len(calls) >= 2 and calls == sorted(calls)
    del target


def test_escalate_raises_undecided_at_cap():
    def compute(prec):
        return arb(1).exp() - arb(1).exp()  # a ball around 0 at every precision: never decided

    with pytest.raises(Undecided):
        arith.escalate(compute, lambda v: (v > 0) or (v < 0), start=64, cap=256)


def test_escalate_restores_precision():
    old = ctx.prec
    arith.escalate(lambda p: arb(1), lambda v: True, start=300)
    assert ctx.prec == old


# ---------------------------------------------------------------- output
@given(
    st.fractions(min_value=Fraction(-(10**30)), max_value=Fraction(10**30)).filter(lambda q: q != 0),
    st.integers(min_value=1, max_value=25),
)
def test_decimal_string_is_outward_and_close(q, digits):
    qq = arith.exact(q)
    up = Fraction(Decimal(arith.decimal_string(qq, digits, up=True)))
    down = Fraction(Decimal(arith.decimal_string(qq, digits, up=False)))
    assert down <= q <= up
    # within one unit of the last printed digit
    e = Decimal(abs(q.numerator)) / Decimal(q.denominator)
    unit = Fraction(10) ** (e.adjusted() - digits + 1)
    assert up - down <= 2 * unit


@given(
    st.fractions(min_value=Fraction(-1000), max_value=Fraction(1000)),
    st.integers(min_value=1, max_value=10**6),
    st.integers(min_value=3, max_value=20),
)
def test_decimal_interval_contains_the_ball(mid, rad_denominator, digits):
    with arith.precision(64):
        b = arb(arith.exact(mid), fmpq(1, rad_denominator))
        iv = arith.decimal_interval(b, digits)
        lo, hi = arith.endpoints(b)
    assert Fraction(Decimal(iv["lower"])) <= lo and hi <= Fraction(Decimal(iv["upper"]))


def test_decimal_interval_examples():
    assert arith.decimal_interval(fmpq(1, 3), 4) == {"lower": "0.3333", "upper": "0.3334"}
    assert arith.decimal_interval(fmpq(-1, 3), 4) == {"lower": "-0.3334", "upper": "-0.3333"}
    assert arith.decimal_interval(fmpq(0), 4) == {"lower": "0", "upper": "0"}
    assert arith.decimal_string(fmpq(10**20 + 1), 3, up=True) == "1.01e+20"
    assert arith.decimal_string(fmpq(999, 10**9), 2, up=True) == "1e-6"


def test_endpoints_refuse_infinite_balls():
    with pytest.raises(InvalidArgument):
        arith.endpoints(arb("inf"))


def test_exp_param():
    assert arith.exp_param(exp_epsilon="3/2") == fmpq(3, 2)
    assert arith.exp_param(epsilon="0") == 1
    with arith.precision(64):
        assert arith.exp_param(epsilon="1").overlaps(arb(1).exp())
    with pytest.raises(InvalidArgument):
        arith.exp_param(epsilon="-1")
    with pytest.raises(InvalidArgument):
        arith.exp_param(exp_epsilon="1/2")
    with pytest.raises(InvalidArgument):
        arith.exp_param(epsilon="1", exp_epsilon="2")


def test_log_ball_refuses_non_positive():
    with pytest.raises(InvalidArgument):
        arith.log_ball(0)
    with arith.precision(64):
        assert arith.log_ball(1).contains(0)


def test_endpoints_do_not_depend_on_the_current_precision():
    """Regression: endpoints used x.lower()/x.upper(), which round to flint's *current* precision, so a
    128-bit ball printed after leaving the precision context had a relative width of 1e-16."""
    with arith.precision(128):
        x = arb(2).sqrt() / 3
        inside = arith.endpoints(x)
    with arith.precision(53):
        outside = arith.endpoints(x)
    assert inside == outside
    lo, hi = outside
    assert (hi - lo) / lo < Fraction(1, 10**35)
    # still an enclosure: lo^2 <= 2/9 <= hi^2
    assert lo * lo <= Fraction(2, 9) <= hi * hi


# ---------------------------------------------------------------- is_zero, maximum, minimum, integral fmpq
def test_is_zero_only_when_certainly_zero():
    assert arith.is_zero(fmpq(0)) and arith.is_zero(arb(0)) and arith.is_zero(0)
    assert not arith.is_zero(arb(0, 1e-30))  # contains 0 but is not certainly 0
    assert not arith.is_zero(fmpq(1, 10**50)) and not arith.is_zero(arb("1e-50"))


@given(st.lists(st.fractions(max_denominator=50), min_size=1, max_size=8))
def test_maximum_and_minimum_of_exact_values_match_fractions(vals):
    qs = [fmpq(v.numerator, v.denominator) for v in vals]
    assert F(arith.maximum(qs)) == max(vals)
    assert F(arith.minimum(qs[0], qs[-1])) == min(vals[0], vals[-1])


@given(st.lists(st.fractions(max_denominator=50), min_size=2, max_size=8))
def test_maximum_with_balls_encloses_the_true_maximum(vals):
    mixed = [
        arb(fmpq(v.numerator, v.denominator)) if i % 2 else fmpq(v.numerator, v.denominator) for i, v in enumerate(vals)
    ]
    top = max(vals)
    assert arith.maximum(mixed).contains(fmpq(top.numerator, top.denominator))
    assert arith.maximum([]) == 0


def test_integer_in_accepts_integral_fmpq_only():
    assert arith.integer_in(fmpq(6, 2), "m", lo=2) == 3
    with pytest.raises(InvalidArgument, match="m must be an integer"):
        arith.integer_in(fmpq(1, 2), "m")
    with pytest.raises(InvalidArgument, match="m must be >= 2"):
        arith.integer_in(fmpq(1), "m", lo=2)


# ---- integer powers of balls that contain 0 (python-flint 0.9: ``arb(0, r) ** 2`` is nan)
def test_int_power_ball_containing_zero_encloses_every_point_power():
    """``int_power`` of a ball straddling 0 is finite and contains ``t**k`` for points ``t`` of the ball (exact
    rationals, independent of arb's power); exact inputs and zero-free balls keep ``**``."""
    from blanket.exact.numbers.arith import int_power

    for mid, rad in ((fmpq(0), fmpq(1, 1000)), (fmpq(1, 3000), fmpq(1, 1000)), (fmpq(-1, 2), fmpq(3, 4))):
        ball = arb(mid, rad)
        for k in range(0, 7):
            out = int_power(ball, k)
            assert out.is_finite(), (mid, rad, k, out)
            for j in range(-8, 9):
                t = mid + rad * fmpq(j, 8)
                assert out.contains(arb(t**k)), (mid, rad, k, t, out)
    assert int_power(fmpq(2, 3), 3) == fmpq(8, 27)
    assert int_power(arb(3), 2).contains(9) and int_power(arb(3), 2).rad() == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidArgument):
            int_power(arb(2), bad)


def test_powers_of_balls_near_zero_in_callers_are_not_nan():
    """The callers that raise a ball to a whole power: ``arith.power`` and the binomial pmf with ``q`` a ball
    containing 0 (and ``1 − q`` a ball containing 0) enclose the exact values at the exact ``q`` inside."""
    from blanket.exact.laws import binomial
    from blanket.exact.numbers.arith import power

    sq = power(arb(0, fmpq(1, 1000)), fmpq(2))
    assert sq.is_finite() and sq.contains(0) and sq.contains(arb(fmpq(1, 10**6)))
    q_ball = arb(0, fmpq(1, 10**4))
    for k in range(4):
        p = binomial.pmf(5, q_ball, k)
        assert p.is_finite(), (k, p)
        qe = fmpq(1, 2 * 10**4)
        exact = fmpq(math.comb(5, k)) * qe**k * (1 - qe) ** (5 - k)
        assert p.contains(arb(exact)), (k, p, exact)
    top = binomial.pmf(4, 1 - q_ball, 4)  # 1 - q ∋ 1: fine; q = 1 - (ball ∋ 0): (1 - q) ** 0 and q ** 4
    assert top.is_finite()
    low = binomial.pmf(4, 1 - q_ball, 2)  # (1 - q)^2 with 1 - q a ball containing 0
    assert low.is_finite() and low.contains(0)
