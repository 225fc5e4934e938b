"""The guided calibration (exact.numbers.guided): an expensive upper bound's certified ε, points chosen by a cheap one.

Independent checks: the crossing in closed form (a quadratic in ε), the plain certified search on the same function
(exact.numbers.calibrate), and every reported end re-classified here by an exact comparison.
"""

from __future__ import annotations

import math

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.mechanisms.oracles import OUE
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import validated_search
from blanket.exact.numbers.errors import InfeasibleTarget
from blanket.exact.numbers.guided import guided_epsilon_for_delta
from flint import arb, fmpq

T = fmpq(1, 10**6)
A, B, C = 40, 30, fmpq(1, 100)  # full(ε) = C·exp(−Aε − Bε²): crossing at the root of Bε² + Aε − log(C/T)


def _up(x: arb) -> fmpq:
    lo, hi = arith.endpoints(x)
    return fmpq(hi.numerator, hi.denominator)


def _full(e: fmpq) -> fmpq:
    with arith.precision(128):
        x = arb(e)
        return _up(arb(C) * (-A * x - B * x * x).exp())


def _cheap(e: fmpq) -> fmpq:  # above full everywhere on [0, 1]: the ratio e^{0.4 + 3ε} is >= 1 and smooth
    with arith.precision(128):
        x = arb(e)
        return _up(arb(C) * (-A * x - B * x * x + 0.4 + 3 * x).exp())


def _root() -> float:
    L = math.log(float(C / T))
    return (-A + math.sqrt(A * A + 4 * B * L)) / (2 * B)


class _Count:
    def __init__(self, f):
        self.f, self.calls = f, 0

    def __call__(self, e):
        self.calls += 1
        return self.f(e)


@pytest.mark.parametrize("lo_fails", [False, True])
def test_guided_bracket_is_certified_and_holds_the_crossing(lo_fails):
    r = _root()
    lo = fmpq(1, 10) if lo_fails else fmpq(0)
    assert _full(lo) > T
    rel = fmpq(1, 10**6)
    full = _Count(_full)
    br = guided_epsilon_for_delta(full, _cheap, T, lo=lo, hi=fmpq(1), rel_tol=rel, lo_fails=lo_fails)
    assert _full(br.upper) <= T < _full(br.lower)  # re-classified here, exactly
    assert br.upper - br.lower <= rel * br.upper
    assert float(br.lower) <= r <= float(br.upper)
    plain = _Count(_full)
    pb = validated_search(plain, T, lo, fmpq(1), meets_high=True, rel_tol=rel)
    assert pb.lower < br.upper and br.lower < pb.upper  # the same crossing
    assert full.calls <= 6 and full.calls < plain.calls, (full.calls, plain.calls)
    assert br.evaluations == full.calls


def test_a_misleading_cheap_bound_costs_evaluations_not_correctness():
    # cheap has a ratio that jumps (a staircase): the model is poor, the search still certifies the crossing
    def cheap(e):
        return _full(e) * (1 + int(float(e) * 200) % 3)

    br = guided_epsilon_for_delta(_full, cheap, T, lo=fmpq(0), hi=fmpq(1), rel_tol=fmpq(1, 10**6))
    assert _full(br.upper) <= T < _full(br.lower)
    assert float(br.lower) <= _root() <= float(br.upper)


def test_cheap_bound_infeasible_falls_back_and_full_infeasible_is_refused():
    # cheap above the target on the whole domain: the plain search on full decides
    br = guided_epsilon_for_delta(_full, lambda e: fmpq(1), T, lo=fmpq(0), hi=fmpq(1), rel_tol=fmpq(1, 10**4))
    assert _full(br.upper) <= T < _full(br.lower)
    with pytest.raises(InfeasibleTarget):
        guided_epsilon_for_delta(lambda e: fmpq(1), lambda e: fmpq(1), T, lo=fmpq(0), hi=fmpq(1), rel_tol=fmpq(1, 10))


def test_oracle_upper_epsilon_against_the_plain_search():
    # the exact five-atom view is a route here (n <= EXACT_VIEW_MAX_N): the guided bracket and the plain certified
    # search on upper_value (the old route of `blanket epsilon`) hold the same crossing; the named bound certifies it
    m, n = OUE(8, epsilon0=2), 60
    target, hi, rel = fmpq(1, 10**3), fmpq(2), fmpq(1, 10**4)
    assert any(r.name == cb.EXACT_FIVE for r in cb.upper_routes(m, n))
    br, name, cands = cb.upper_epsilon(m, n, target, hi=hi, rel_tol=rel)
    with arith.precision(arith.DEFAULT_PREC):
        plain = validated_search(
            lambda e: cb.upper_value(m, n, epsilon=e), target, fmpq(0), hi, meets_high=True, rel_tol=rel
        )
        assert cb.upper_value(m, n, epsilon=br.upper) <= target < cb.upper_value(m, n, epsilon=br.lower)
    assert plain.lower < br.upper and br.lower < plain.upper
    assert arith.le(cands[name], target) is True and name == min(cands, key=lambda k: cb.upper_end(cands[k]))


def _lower_full(e: fmpq) -> fmpq:  # a lower bound's exact lower end: the same closed form, rounded down
    with arith.precision(128):
        x = arb(e)
        lo, _hi = arith.endpoints(arb(C) * (-A * x - B * x * x).exp())
        return fmpq(lo.numerator, lo.denominator)


@pytest.mark.parametrize("guess", [None, fmpq(21, 100)])
def test_crossing_from_failing_is_certified_and_cheap(guess):
    """From a failing point 5 % below the crossing (closed form): a certified bracket holding the root, within the
    tolerance, in a few evaluations (the plain search from the same point needs more)."""
    from blanket.exact.numbers.guided import crossing_from_failing

    r = _root()
    bad = fmpq(round(r * 0.95 * 10**6), 10**6)
    rel = fmpq(1, 10**6)
    f = _Count(_lower_full)
    br = crossing_from_failing(f, T, bad=bad, bad_value=_lower_full(bad), hi=fmpq(1), rel_tol=rel, guess=guess)
    assert _lower_full(br.lower) > T >= _lower_full(br.upper)  # re-classified here, exactly
    assert float(br.lower) <= r <= float(br.upper) and br.upper - br.lower <= rel * br.upper
    plain = _Count(_lower_full)
    validated_search(plain, T, bad, fmpq(1), meets_high=True, rel_tol=rel)
    assert f.calls <= 6 and f.calls < plain.calls


def test_crossing_from_failing_falls_back_when_the_secant_cannot_run():
    """A step function (log δ flat, then 0): no secant; the general search still returns a certified bracket."""
    from blanket.exact.numbers.guided import crossing_from_failing

    def step(e: fmpq) -> fmpq:
        return fmpq(1, 1000) if e < fmpq(3, 10) else fmpq(0)

    br = crossing_from_failing(
        step, T, bad=fmpq(1, 10), bad_value=step(fmpq(1, 10)), hi=fmpq(1), rel_tol=fmpq(1, 10**4)
    )
    assert step(br.lower) > T >= step(br.upper) and br.lower < fmpq(3, 10) <= br.upper
    assert br.upper - br.lower <= fmpq(1, 10**4) * br.upper


def test_lower_epsilon_evaluates_the_full_view_at_the_end(monkeypatch):
    """OUE k = 8, ε0 = 2, n = 30 (the full view wins): cb.lower_epsilon's bracket is certified for the largest lower
    candidate (re-classified here with every candidate, full view included), meets the plain search on the same
    function, and evaluates the full view fewer times."""
    from blanket.exact.numbers.calibrate import epsilon_for_delta
    from blanket.exact.shuffled import oracle_third

    mech, n, rel = OUE(8, epsilon0=2), 30, fmpq(1, 10**6)
    calls = [0]
    full = oracle_third.third_full_delta

    def counted(*a, **k):
        calls[0] += 1
        return full(*a, **k)

    monkeypatch.setattr(oracle_third, "third_full_delta", counted)
    with arith.precision(arith.DEFAULT_PREC):
        br = cb.lower_epsilon(mech, n, T, hi=fmpq(2), rel_tol=rel)
        new_calls, calls[0] = calls[0], 0
        plain = epsilon_for_delta(lambda e: cb.lower_value(mech, n, epsilon=e), T, hi=fmpq(2), rel_tol=rel)
        assert cb.lower_value(mech, n, epsilon=br.lower) > T >= cb.lower_value(mech, n, epsilon=br.upper)
    assert br.upper - br.lower <= rel * br.upper
    assert br.lower < plain.upper and plain.lower < br.upper  # the same crossing
    assert 1 < new_calls < calls[0]  # the full view decided (more than the one check at the end), fewer calls
