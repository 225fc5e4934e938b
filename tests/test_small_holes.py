"""Issue 26's small holes: the formula parser's positions (1-based, in the formula's text) and the oracle blanket
view's upper end at small ε (a certified Chernoff bound where the windowing tolerance would set it)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from blanket.exact.numbers.errors import InvalidArgument


@pytest.mark.parametrize(
    "text, token",
    [("$", "$"), ("n + $", "$"), ("  n*2 ;", ";"), ("n × 2 + foo", "foo"), ("exp(n) + __x", "__x"), ("n ** @", "@")],
)
def test_formula_error_position_is_one_based_in_the_formula(text, token):
    """The message's "character N of the formula (counting from 1)" points at the offending token: text[N - 1]
    starts it (an independent route: str.index on the text as given)."""
    from blanket.reports.formula import parse_formula

    with pytest.raises(InvalidArgument) as exc:
        parse_formula(text, ["n"])
    m = re.search(r"contains '(.+?)' at character (\d+) of the formula \(counting from 1\)", str(exc.value))
    assert m is not None, str(exc.value)
    assert m.group(1) == token
    n = int(m.group(2))
    assert n == text.index(token) + 1 and text[n - 1 :].startswith(token)


def test_huge_literal_position_is_one_based_too():
    from blanket.reports.formula import parse_formula

    text = "n + 1" + "0" * 1200
    with pytest.raises(InvalidArgument, match=r"at character 5 of the formula \(counting from 1\)"):
        parse_formula(text, ["n"])


def test_oracle_blanket_view_upper_end_capped_by_chernoff_contains_the_exact_value(monkeypatch):
    """OUE (k = 4, e^{ε0} = 3) at n = 200, e^ε = 2, on the windowed engine with a coarse tolerance (2^-20): the
    windowing sets the spread's upper end (about 3e-13); the Chernoff bound (about 1e-18) is far below it.  The capped upper end
    is still at or above the spread's exact value (the engine's exact-rational route, n ≤ exact_max_n: an
    independent route) and far below the uncapped one."""
    from blanket.exact.mechanisms.registry import make_mechanism
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled import oracles as O
    from blanket.exact.shuffled.krr import expected_positive_part
    from flint import fmpq

    mech = make_mechanism({"type": "oue", "k": 4, "exp_epsilon0": "3"})
    rec, n, ee = O._check_mech(mech), 200, fmpq(2)
    g, (a0, ab, at, an, ar), (vb, vt, vn, vr) = O._atoms5(rec, ee)
    lam = 1 / rec.exp_epsilon0()
    spread = [(a0 + ar * (1 - lam), fmpq(0)), (at, vt), (an, vn), (ab + ar * lam, vb)]
    ex = expected_positive_part(n, spread, exact_max_n=10**6) / (g * n)
    assert isinstance(ex, fmpq) and ex > 0
    exact = Fraction(int(ex.p), int(ex.q))
    capped = O.blanket_view_bracket(mech, n, exp_epsilon=ee, exact_max_n=0, tol=fmpq(1, 2**20), merged=False).upper
    monkeypatch.setattr(O, "_chernoff_capped", lambda upper, *a: upper)
    plain = O.blanket_view_bracket(mech, n, exp_epsilon=ee, exact_max_n=0, tol=fmpq(1, 2**20), merged=False).upper
    c_hi, p_hi = arith.endpoints(capped)[1], arith.endpoints(plain)[1]
    assert exact <= c_hi and c_hi * 10**5 < p_hi, (float(exact), float(c_hi), float(p_hi))
    assert arith.endpoints(capped)[0] <= exact  # the intersection still encloses the spread's value


@pytest.mark.slow  # ~10 CPU s (three engine calls at n = 10^6); one case, the same in the reduced run
def test_oracle_blanket_view_at_small_epsilon_is_tight_at_a_million_users():
    """The case of issue 26: OUE (k = 128, ε0 = 1), n = 10^6, ε = 0.02 -- the upper end was 6.8e-11 (the windowing
    tolerance); the Chernoff bound puts it below 1e-100."""
    from blanket.exact.mechanisms.registry import make_mechanism
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled import oracles as O
    from blanket.exact.shuffled.positive_part import chernoff_upper

    mech = make_mechanism({"type": "oue", "k": 128, "epsilon0": "1"})
    up = O.blanket_view_upper(mech, 10**6, epsilon=arith.exact("0.02"))
    assert 0 < arith.endpoints(up)[1] < Fraction(1, 10**100)
    # the same bound from the lemma directly on the five-atom law (not through the bracket)
    g, (a0, ab, at, an, ar), (vb, vt, vn, vr) = O._atoms5(O._check_mech(mech), arith.ball(arith.exact("0.02")).exp())
    lam = 1 / O._check_mech(mech).exp_epsilon0()
    direct = chernoff_upper(10**6, [(a0 + ar * (1 - lam), 0), (at, vt), (an, vn), (ab + ar * lam, vb)])
    # (the bracket's e^ε is a ball of its own and λ comes from a float search: equal to about 1e-5)
    assert arith.endpoints(up)[1] <= arith.endpoints(direct / (g * 10**6))[1] * (1 + Fraction(1, 1000))
