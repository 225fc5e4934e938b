"""Issue 26's small holes: the formula parser's positions (1-based, in the formula's text) and the oracle blanket
view's upper end at small ε (a certified Chernoff bound where the windowing tolerance would set it)."""

from __future__ import annotations

import re

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
