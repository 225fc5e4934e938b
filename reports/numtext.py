"""Exact rationals as plain text (:func:`exact_string`), apart from :mod:`blanket.reports.latex`.

This module imports neither sympy nor Jinja2, so that the command line's JSON and text outputs stay cheap to
import; :mod:`blanket.reports.latex` re-exports :func:`exact_string`.
"""

from __future__ import annotations

from blanket.exact.numbers import arith
from blanket.exact.numbers.types import NumberOrBall


def exact_string(q: NumberOrBall) -> str:
    """An exact rational as a plain string: an exact decimal (``"1e-6"``, ``"0.25"``) when one of ≤ 40 digits exists, else ``"p/q"``.

    >>> exact_string(arith.exact("1e-6")), exact_string(arith.exact("0.25")), exact_string(arith.exact("1/3"))
    ('1e-6', '0.25', '1/3')
    """
    q = arith.exact(q)
    up = arith.decimal_string(q, 40, up=True)
    if arith.exact(up) == q:
        return up
    return f"{q.p}/{q.q}"  # flint's own str: no digit limit (Python's int str stops at 4300 digits)
