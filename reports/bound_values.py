"""A researcher's bound, evaluated at one point: what its function returned, as an enclosure.

Shared by the search (:mod:`reports.bound_check`, the parent) and the child process that runs the bound's code
(:mod:`reports.bound_worker`), so that neither imports the other's side.

* :class:`BoundValue` — an enclosure (or ``None``: +∞), whether it came from a float, and the raw value;
* :func:`convert_result` — turn what the function returned into a :class:`BoundValue` (a binary float is widened
  by the error model :data:`FLOAT_MODEL`; a boolean, nan or -inf is refused);
* :func:`call_with` / :func:`user_params` — call the function with the parameters its signature names, as exact
  ``Fraction`` (reals) and ``int`` (``n``, ``k``).

Complexity: O(1) per value (a sympy value: one ball evaluation).
"""

from __future__ import annotations

import dataclasses
import decimal
import inspect
import sys
from fractions import Fraction
from typing import Any

import mpmath
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq

FLOAT_REL_ERR = Fraction(1, 10**12)
FLOAT_ABS_ERR = Fraction(1, 10**300)
FLOAT_MODEL = "relative 1e-12 plus absolute 1e-300"


@dataclasses.dataclass
class BoundValue:
    """A bound evaluated at one point: ``value`` an enclosure (fmpq or arb) or ``None`` (+∞);
    ``floating`` when it came from a float; ``raw`` the value as returned (for the report)."""

    value: Any
    floating: bool
    raw: str
    center: Fraction | None = None  # the float's exact value (floating only)


def convert_result(v: object) -> BoundValue:
    """Turn what a user's function returned into a :class:`BoundValue` (floats with the error model)."""

    raw = repr(v)
    if isinstance(v, bool):
        raise InvalidArgument("bound value", v, "must be a number, not a boolean")
    if isinstance(v, (int, Fraction, fmpq)):
        return BoundValue(arith.exact(v), False, raw)

    if isinstance(v, decimal.Decimal):  # exact decimal: no float caveat
        if not v.is_finite():
            if v == decimal.Decimal("Infinity"):
                return BoundValue(None, False, raw)
            raise InvalidArgument("bound value", raw, "must be a finite number or +inf")
        f = Fraction(v)
        return BoundValue(fmpq(f.numerator, f.denominator), False, raw)
    if isinstance(v, arb):
        if not v.is_finite():
            raise InvalidArgument("bound value", str(v), "must be a finite ball")
        return BoundValue(v, False, raw)
    if isinstance(v, mpmath.mpf):
        if mpmath.isinf(v) and v > 0:
            return BoundValue(None, True, raw)
        if not mpmath.isfinite(v):
            raise InvalidArgument("bound value", raw, "must be a number, not nan or -inf")
        sign, man, exp, _ = v._mpf_
        f = Fraction(int(man) * 2**exp) if exp >= 0 else Fraction(int(man), 2 ** (-exp))
        return float_ball(-f if sign else f, raw)
    if isinstance(v, float):
        if v != v:
            raise InvalidArgument("bound value", raw, "must be a number, not nan")
        if v == float("inf"):
            return BoundValue(None, True, raw)
        if v == float("-inf"):
            raise InvalidArgument("bound value", raw, "must not be -inf")
        return float_ball(Fraction(v), raw)
    sp = sys.modules.get("sympy")  # a sympy value implies the bound imported sympy (not imported here: it is slow)
    if sp is not None and isinstance(v, sp.Basic):
        if v.free_symbols:
            raise InvalidArgument("bound value", raw, "has free symbols left; substitute every parameter")
        from blanket.proofs.core import arb_eval

        val = arb_eval(v, {})
        return BoundValue(val, False, raw)
    if hasattr(v, "__float__"):  # numpy scalars and the like: their float value, float model
        return convert_result(float(v))
    raise InvalidArgument("bound value", raw, "must be a number (int, Fraction, float, flint.arb/fmpq, sympy)")


def float_ball(f: Fraction, raw: str) -> BoundValue:
    err = FLOAT_REL_ERR * abs(f) + FLOAT_ABS_ERR
    lo, hi = f - err, f + err
    b = arb(fmpq(lo.numerator, lo.denominator)).union(arb(fmpq(hi.numerator, hi.denominator)))
    return BoundValue(b, True, raw, f)


def call_with(fn: Any, params: dict) -> object:
    """Call the bound's function ``fn`` (any callable) with the parameters its signature names (all of them when it
    takes ``**kwargs``); a required parameter not supplied is refused.  O(number of parameters)."""
    sig = inspect.signature(fn)
    kwargs = {}
    accepts_var = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in params:
            kwargs[name] = params[name]
        elif p.default is p.empty:
            raise InvalidArgument(
                "bound function parameter", name, f"is not one of the supplied parameters {sorted(params)}"
            )
    if accepts_var:
        kwargs = dict(params)
    return fn(**kwargs)


def user_params(params: dict) -> dict:
    """Exact values as the user's function sees them: Fraction for reals, int for n and k."""
    out: dict[str, int | Fraction] = {}
    for k, v in params.items():
        if k in ("n", "k"):
            out[k] = int(v)
        else:
            q = arith.exact(v)
            out[k] = Fraction(int(q.p), int(q.q))
    return out
