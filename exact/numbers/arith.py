"""Exact inputs, precision management and three-valued comparisons on balls.

Everything certified in Blanket is either an exact rational (``flint.fmpq``) or
an ``arb`` ball that provably contains the true value.  This module is the
low layer every other module uses:

* :func:`exact` parses user numbers exactly (int, ``Fraction``, ``fmpq``,
  decimal strings such as ``"1e-8"`` or ``"0.3"``, fractions ``"1/3"``) and
  refuses binary floats unless explicitly allowed;
* :func:`precision` is a context manager around flint's *global* precision;
* :func:`exp_ball` / :func:`log_ball` give balls for exp/log of exact inputs;
* :func:`le`, :func:`lt`, :func:`ge`, :func:`gt` are three-valued comparisons
  (``True`` / ``False`` / ``None`` = undecided) — never use a bare ``<`` on
  overlapping balls, which silently returns ``False``;
* :func:`escalate` recomputes at doubling precision until a predicate decides
  (python-flint's ``good()`` idea), raising :class:`~exact.numbers.errors.Undecided`
  at the cap;
* :func:`decimal_interval` prints a ball as an outward-rounded decimal
  interval (lower end rounded down, upper end rounded up).

>>> from flint import fmpq
>>> exact("1e-8") == fmpq(1, 10**8)
True
>>> exact(0.5)
Traceback (most recent call last):
...
blanket.exact.numbers.errors.FloatRefused: value must be exact (int, Fraction, flint.fmpq or a decimal string such as '0.3' or '1e-8'), not a binary float, got 0.5 (pass value='0.5' as a string, or allow_float=True to use the float's exact binary value)
>>> with precision(128):
...     le(exp_ball(1), fmpq(272, 100))
True
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any, TypeVar

from blanket.exact.numbers.errors import FloatRefused, InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, NumberInput, NumberOrBall
from flint import arb, ctx, fmpq, fmpz

Exact = fmpq
Ball = arb
Number = fmpq | arb

#: default working precision (bits) for certified computations
DEFAULT_PREC = 128
#: default cap for precision escalation (bits)
MAX_PREC = 4096
#: largest |exponent| of a decimal number's text ("1e-100000" is accepted, "1e-1000000" is not)
MAX_DECIMAL_EXPONENT = 100_000
#: largest number of digits in a number's text
MAX_DIGITS = 100_000

_T = TypeVar("_T")

_DECIMAL = re.compile(r"^\s*([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\s*$")
_FRACTION = re.compile(r"^\s*([+-]?\d+)\s*/\s*(\d+)\s*$")


# ---------------------------------------------------------------- parsing
def exact(value: object, name: str = "value", *, allow_float: bool = False) -> fmpq:
    """Return ``value`` as an exact rational ``fmpq`` (a parser of input: any object is checked, hence ``object``).

    Accepts ``int``, ``fractions.Fraction``, ``flint.fmpq``, ``flint.fmpz``
    and strings in decimal (``"0.3"``, ``"1e-8"``, ``"-2.5E+3"``) or fraction
    (``"1/3"``) notation; all are converted without rounding.  A ``float``
    is refused (its decimal rendering is not the number it holds) unless
    ``allow_float=True``, in which case its exact binary value is used.
    ``bool`` is refused.  Infinite or nan values are refused.

    >>> exact("0.3")
    3/10
    >>> exact("1/3")
    1/3
    >>> exact(0.1, allow_float=True) == fmpq(3602879701896397, 36028797018963968)
    True
    >>> exact("abc", "epsilon")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon must be a number (int, decimal string like '0.3' or '1e-8', or fraction 'p/q'), got 'abc'
    """
    if isinstance(value, bool):
        raise InvalidArgument(name, value, "must be a number, not a boolean")
    if isinstance(value, fmpq):
        return value
    if isinstance(value, (int, fmpz)):
        return fmpq(int(value))
    if isinstance(value, Fraction):
        return fmpq(value.numerator, value.denominator)
    if isinstance(value, float):
        if not allow_float:
            raise FloatRefused(name, value)
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidArgument(name, value, "must be finite")
        f = Fraction(value)
        return fmpq(f.numerator, f.denominator)
    if isinstance(value, str):
        check_decimal_text(value, name)  # before 10**e is expanded: "1e-1000000000" is refused at once
        m = _DECIMAL.match(value)
        if m:
            sign, digits, expo = m.groups()
            if "." in digits:
                ip, fp = digits.split(".")
            else:
                ip, fp = digits, ""
            num = int((ip or "0") + fp) if (ip or fp) else 0
            e = (int(expo) if expo else 0) - len(fp)
            q = fmpq(num) * (fmpq(10) ** e if e >= 0 else fmpq(1, 10 ** (-e)))
            return -q if sign == "-" else q
        m = _FRACTION.match(value)
        if m:
            num_, den_ = int(m.group(1)), int(m.group(2))
            if den_ == 0:
                raise InvalidArgument(name, value, "has a zero denominator")
            return fmpq(num_, den_)
        raise InvalidArgument(
            name, value, "must be a number (int, decimal string like '0.3' or '1e-8', or fraction 'p/q')"
        )
    raise InvalidArgument(name, value, f"must be an exact number, not {type(value).__name__}")


def check_decimal_text(text: str, name: str) -> None:
    """Refuse a number's text whose exponent or length would take unbounded time to expand.

    >>> check_decimal_text("1e-8", "delta")
    >>> check_decimal_text("1e-1000000000", "epsilon")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon must have a decimal exponent between -100000 and 100000, got '1e-1000000000'
    """
    if len(text) > MAX_DIGITS:
        raise InvalidArgument(
            name, f"{text[:20]}... ({len(text)} characters)", f"must have at most {MAX_DIGITS} digits"
        )
    m = re.search(r"[eE]\s*([+-]?\d+)\s*$", text)
    if m:
        digits = m.group(1).lstrip("+-").lstrip("0")
        if len(digits) > 7 or (digits and int(digits) > MAX_DECIMAL_EXPONENT):
            raise InvalidArgument(
                name, text, f"must have a decimal exponent between -{MAX_DECIMAL_EXPONENT} and {MAX_DECIMAL_EXPONENT}"
            )


def exact_in(
    value: object,
    name: str,
    *,
    lo: NumberInput | None = None,
    hi: NumberInput | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_float: bool = False,
) -> fmpq:
    """Parse ``value`` exactly and check ``lo <(=) value <(=) hi``; errors name ``name``.

    >>> exact_in("0.5", "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    1/2
    >>> exact_in("-1", "epsilon0", lo=0)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be >= 0, got '-1'
    """
    q = exact(value, name, allow_float=allow_float)
    if lo is not None:
        lo_q = exact(lo)
        if (q <= lo_q) if lo_open else (q < lo_q):
            raise InvalidArgument(name, value, f"must be {'>' if lo_open else '>='} {lo}")
    if hi is not None:
        hi_q = exact(hi)
        if (q >= hi_q) if hi_open else (q > hi_q):
            raise InvalidArgument(name, value, f"must be {'<' if hi_open else '<='} {hi}")
    return q


def integer_in(value: object, name: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """Parse an integer argument (int, an integral ``fmpq`` or a decimal string of an integer) and check its range.

    >>> integer_in("10", "n", lo=2)
    10
    >>> integer_in(1, "n", lo=2)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: n must be >= 2, got 1
    """
    if isinstance(value, bool):
        raise InvalidArgument(name, value, "must be an integer, not a boolean")
    if isinstance(value, (int, fmpz)):
        v = int(value)
    elif isinstance(value, fmpq):
        if value.q != 1:
            raise InvalidArgument(name, value, "must be an integer")
        v = int(value.p)
    elif isinstance(value, str) and re.match(r"^\s*[+-]?\d+\s*$", value):
        check_decimal_text(value, name)
        v = int(value)
    elif isinstance(value, str) and _DECIMAL.match(value):
        q = exact(value, name)
        if q.q != 1:
            raise InvalidArgument(name, value, "must be an integer")
        v = int(q.p)
    else:
        raise InvalidArgument(name, value, "must be an integer")
    if lo is not None and v < lo:
        raise InvalidArgument(name, value, f"must be >= {lo}")
    if hi is not None and v > hi:
        raise InvalidArgument(name, value, f"must be <= {hi}")
    return v


# ---------------------------------------------------------------- precision
@contextlib.contextmanager
def precision(bits: int) -> Iterator[int]:
    """Set flint's global real precision to ``bits`` inside the block and restore it after.

    >>> from flint import ctx
    >>> old = ctx.prec
    >>> with precision(200):
    ...     ctx.prec
    200
    >>> ctx.prec == old
    True
    """
    if not isinstance(bits, int) or bits < 2:
        raise InvalidArgument("bits", bits, "must be an integer >= 2")
    old = ctx.prec
    ctx.prec = bits
    try:
        yield bits
    finally:
        ctx.prec = old


#: :func:`cancellation_bits` adds nothing for a ratio below this: ``e^{ε0} < 2^20`` is ``ε0 < 13.86`` (every usual
#: ε0 runs at the caller's precision), ``1/q < 2^20`` a participation ``q > 9.6e-7``
CANCELLATION_FROM = 2**20


def cancellation_bits(ratio: NumberOrBall, depth: int = 1, *, threshold: int = CANCELLATION_FROM) -> int:
    """The one rule for extra working-precision bits at a large ratio ``r`` (``e^{ε0}``, ``1/q``, or their product):
    ``depth·(⌈log2 r⌉ + 1)`` with ``r`` the ratio's upper end, from ``r ≥ threshold`` on, else 0 (also 0 for a ratio
    that is not a finite ball).  ``threshold`` is ``2^20`` (:data:`CANCELLATION_FROM`) except at the clone and
    blanket-view pairs, which keep the bits at every ε0 (``threshold=1``, as since session 13: there the bits also
    narrow the pair's loss balls, and dropping them below ``2^20`` changed a composition's answer in its 9th digit,
    ``telemetry_daily.toml --curves off``).

    What it protects: a small quantity ``s ≈ r^{−depth}`` read next to ``O(1)`` terms, through a complement ``1 − s``
    or a sum.  At ``p`` bits the ``O(1)`` term's ball has a radius about ``2^{−p}``, so ``s`` keeps only about
    ``p − log2(1/s)`` bits, and none (a ball containing 0, a NaN loss) once ``s < 2^{−p}``; ``depth·(⌈log2 r⌉ + 1)``
    more bits give ``s`` back the caller's ``p``.  The cancellations it serves (docs/numerics.md, "Extra bits at a
    large ratio"): ``1 − π_p = 1/(e^{ε0} + 1)`` of the clone and blanket-view pairs (depth 1,
    :mod:`~blanket.exact.accounting.pairs`); a frequency oracle's blanket-view atoms, probabilities ``~e^{−2ε0}``
    (OUE: two bits set w.p. ``q²``) and values ``~e^{ε0}`` (depth 2,
    :func:`blanket.exact.mechanisms.oracles.cancellation_precision`); ``1 − q·f`` (``f = 1/(e^{ε0} + k − 1)``) of a
    sampled k-RR round's count pair (``r = (e^{ε0} + k − 1)/q``) and ``1 − q·a`` of the sampled third-value and
    two-stratum pairs (``r = 1/q``, added to the oracles' bits).

    A precision choice, not a bound: every value is the same certified enclosure at any precision (narrower with
    more bits); too few bits show as a wide or NaN ball, never as a wrong one.  Below ``2^20`` it gives 0, so nothing
    changes at the usual ε0 and q.  Measured (session 13): ``log2 e^{ε0}`` bits kept the pairs' ``1 − π_p`` at every
    ε0 ≤ 500 (:data:`~blanket.exact.numbers.guards.MAX_EPSILON0`) but left SUE's blanket view NaN at ε0 = 200; twice
    that is enough up to ε0 = 500.  O(1) (``ratio`` read at 64 bits; ``⌈log2⌉`` of its upper end exactly, no float).

    >>> cancellation_bits(1000), cancellation_bits(2**20), cancellation_bits(2**20, depth=2), cancellation_bits(fmpq(3, 2**30))
    (0, 21, 42, 0)
    >>> cancellation_bits(fmpq(2**30, 3))
    30
    """
    if not isinstance(depth, int) or depth < 1:
        raise InvalidArgument("depth", depth, "must be an integer >= 1")
    if not isinstance(threshold, int) or threshold < 1:
        raise InvalidArgument("threshold", threshold, "must be an integer >= 1")
    with precision(64):
        r_hi = ball(ratio).upper()
    if not (r_hi.is_finite() and r_hi >= threshold):
        return 0
    man, exp = (int(v) for v in r_hi.mid().man_exp())  # r_hi = man·2^exp exactly, man > 0
    return depth * (exp + (man - 1).bit_length() + 1)  # ⌈log2 r_hi⌉ = exp + ⌈log2 man⌉


def cancellation_precision(bits: int, floor: int = 64) -> int:
    """The working precision for ``bits`` of :func:`cancellation_bits`: the current one when ``bits`` is 0 (nothing
    changes), else ``max(current, floor) + bits``.  O(1)."""
    return ctx.prec if bits == 0 else max(ctx.prec, floor) + bits


def ball(x: NumberOrBall) -> arb:
    """An ``arb`` ball for an exact number or a ball (at the current precision).

    Floats are refused: use :func:`exact` first.
    """
    if isinstance(x, arb):
        return x
    if isinstance(x, float):
        raise FloatRefused("x", x)
    return arb(exact(x))


def exp_ball(x: NumberOrBall) -> arb:
    """``exp(x)`` as a ball for exact ``x`` (or a ball)."""
    return ball(x).exp()


def log_ball(x: NumberOrBall) -> arb:
    """``log(x)`` as a ball for exact ``x > 0`` (or a ball)."""
    b = ball(x)
    if not isinstance(x, arb) and exact(x) <= 0:
        raise InvalidArgument("x", x, "must be > 0 to take its logarithm")
    return b.log()


def is_exact_number(x: object) -> bool:
    return isinstance(x, (int, fmpq, fmpz, Fraction)) and not isinstance(x, bool)


def is_zero(x: object) -> bool:
    """Certainly zero: an exact 0, or a ball of radius 0 centred at 0 (an ``arb`` that merely contains 0 is not).

    >>> is_zero(fmpq(0)), is_zero(arb(0)), is_zero(arb(0, 1e-10)), is_zero(0)
    (True, True, False, True)
    """
    if isinstance(x, arb):
        return bool(x.is_zero())
    if isinstance(x, (fmpq, fmpz, int, Fraction)) and not isinstance(x, bool):
        return x == 0
    return False


def add(a: Any, b: Any) -> Any:
    """``a + b`` where either side may be a ball: ``fmpq + arb`` is not defined in python-flint, so the ball goes
    first (addition commutes; the result is the same enclosure).

    >>> add(fmpq(1, 2), arb(1)).contains(fmpq(3, 2)), add(fmpq(1, 2), fmpq(1, 3))
    (True, 5/6)
    """
    return b + a if isinstance(b, arb) else a + b


def mul(a: Any, b: Any) -> Any:
    """``a * b`` where either side may be a ball (the ball goes first, as in :func:`add`)."""
    return b * a if isinstance(b, arb) else a * b


def power(r: Enclosure, lam: Enclosure) -> Enclosure:
    """``r^λ`` for ``r > 0``: exact for exact ``r`` and integral ``λ`` (an ``fmpq``), else ``exp(λ log r)`` as a ball.

    >>> power(fmpq(2, 3), fmpq(2)), power(fmpq(1), fmpq(1, 2))
    (4/9, 1)
    """
    if isinstance(lam, fmpq) and lam.q == 1 and lam >= 0:
        return int_power(r, int(lam.p))
    if isinstance(lam, fmpq) and lam.q == 1:
        return r ** int(lam.p)
    if isinstance(r, fmpq) and r == 1:
        return fmpq(1)
    return (ball(r).log() * arb(lam)).exp()


def int_power(x: Any, k: int) -> Any:
    """``x**k`` for a whole ``k ≥ 0``, safe for a ball that contains 0.

    python-flint's ``arb ** k`` (0.9) returns nan when the ball contains 0 (``arb(0, 1e-3) ** 2``), so every
    integer power of a ball that may straddle 0 goes through here: such a ball ``[-r, r]``-like gives the
    enclosure ``[0, a^k]`` (``k`` even) or ``[-a^k, a^k]`` (``k`` odd) with ``a = max |x|``.  Any other ball, and
    exact numbers, keep ``x ** k`` (unchanged values).  O(log k) ball operations.

    >>> int_power(arb(0, fmpq(1, 1000)), 2).upper() >= fmpq(1, 10**6), int_power(fmpq(2, 3), 2)
    (True, 4/9)
    >>> int_power(arb(0, fmpq(1, 1000)), 3).contains(0), int_power(arb(5), 0)
    (True, 1.00000000000000)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InvalidArgument("k", k, "must be a whole number >= 0 (the exponent)")
    if not isinstance(x, arb):
        return x**k
    if k == 0:
        return arb(1)
    if not x.contains(0):
        return x**k
    a = abs(x).upper()  # an exact point >= |x|
    top = repeated_product(a, k)  # a product of exact points: a ball containing a^k
    return top.union(arb(0)) if k % 2 == 0 else top.union(-top)


def repeated_product(x: Any, k: int) -> Any:
    """``x * x * … * x`` (``k ≥ 1`` factors) by repeated squaring, for any type with an associative ``*``
    (laws as polynomials, matrices, balls).  O(log k) multiplications.

    >>> repeated_product(fmpq(2, 3), 5), repeated_product(3, 1)
    (32/243, 3)
    """
    if k < 1:
        raise InvalidArgument("k", k, "must be a whole number >= 1 (the number of factors)")
    out = None
    while k:
        if k & 1:
            out = x if out is None else out * x
        k >>= 1
        if k:
            x = x * x
    return out


def maximum(values: Iterable) -> fmpq | arb:
    """The largest of exact numbers and balls: exact while every value is exact, else a ball enclosing the max.

    ``arb.max`` encloses ``max(a, b)`` for every pair of points of the two balls, so the result contains the true
    maximum.  An empty ``values`` gives exact 0 (the callers maximise non-negative ratios).  O(len(values)).

    >>> maximum([fmpq(1, 3), fmpq(1, 2)])
    1/2
    >>> maximum([])
    0
    """
    out = None
    for v in values:
        if out is None:
            out = v
        elif isinstance(out, fmpq) and isinstance(v, fmpq):
            out = max(out, v)
        else:
            out = ball(out).max(ball(v))
    return out if out is not None else fmpq(0)


def minimum(x: Enclosure, y: Enclosure) -> fmpq | arb:
    """The smaller of two exact numbers or balls (a ball min encloses the min of every pair of points).

    >>> minimum(fmpq(1, 3), fmpq(1, 2))
    1/3
    """
    if isinstance(x, fmpq) and isinstance(y, fmpq):
        return min(x, y)
    return ball(x).min(ball(y))


# ---------------------------------------------------------------- three-valued comparisons
def _bounds(x):
    """(lower, upper) of x as balls (exact numbers give exact endpoints)."""
    if isinstance(x, arb):
        if not x.is_finite():
            # arb nan/inf: treat as unbounded both ways
            return None, None
        return x.lower(), x.upper()
    q = exact(x)
    return q, q


def le(a: NumberOrBall, b: NumberOrBall) -> bool | None:
    """Three-valued ``a <= b``: ``True`` if certainly, ``False`` if certainly ``a > b``, ``None`` if undecided.

    >>> from flint import arb
    >>> le(arb(1), 2), le(3, arb(2)), le(arb(1, 2), 2) is None
    (True, False, True)
    """
    if is_exact_number(a) and is_exact_number(b):
        return exact(a) <= exact(b)
    d = ball(b) - ball(a)  # b - a >= 0 ?
    if not d.is_finite():
        return None
    if d >= 0:
        return True
    if d < 0:
        return False
    return None


def lt(a: NumberOrBall, b: NumberOrBall) -> bool | None:
    """Three-valued ``a < b`` (see :func:`le`)."""
    if is_exact_number(a) and is_exact_number(b):
        return exact(a) < exact(b)
    d = ball(b) - ball(a)
    if not d.is_finite():
        return None
    if d > 0:
        return True
    if d <= 0:
        return False
    return None


def ge(a: NumberOrBall, b: NumberOrBall) -> bool | None:
    """Three-valued ``a >= b``."""
    return le(b, a)


def gt(a: NumberOrBall, b: NumberOrBall) -> bool | None:
    """Three-valued ``a > b``."""
    return lt(b, a)


def sign(x: NumberOrBall) -> int | None:
    """Certain sign of ``x`` (-1, 0 only for exact zero, 1) or ``None`` if the ball contains 0 and is not exact 0."""
    if not isinstance(x, arb):  # an exact number (a decimal string too; anything else is refused by exact)
        q = exact(x)
        return (q > 0) - (q < 0)
    if x.is_zero():
        return 0
    if x > 0:
        return 1
    if x < 0:
        return -1
    return None


def positive_part(x: NumberOrBall) -> Enclosure:
    """``max(x, 0)`` for exact numbers or balls (ball result contains ``max`` of every point)."""
    if not isinstance(x, arb):
        q = exact(x)
        return q if q > 0 else fmpq(0)
    return x.max(arb(0))


def escalate(
    compute: Callable[[int], _T],
    decided: Callable[[_T], bool],
    *,
    start: int = DEFAULT_PREC,
    cap: int = MAX_PREC,
    what: str = "computation",
) -> tuple[_T, int]:
    """Run ``compute(prec)`` at ``start``, ``2*start``, … bits until ``decided(result)`` is true.

    ``compute`` is called inside :func:`precision` (the global precision is
    set to ``prec``).  Returns ``(result, prec)``.  If the cap is reached
    undecided, raises :class:`~exact.numbers.errors.Undecided` — the caller turns that
    into an INCONCLUSIVE answer, never a guess.

    >>> from flint import arb
    >>> r, p = escalate(lambda prec: arb(1).exp() - arb("2.718281828459045235360287471352662497757"), lambda r: r > 0, start=64)
    >>> p > 64
    True
    """
    prec = start
    while True:
        with precision(prec):
            result = compute(prec)
            ok = decided(result)
        if ok:
            return result, prec
        if prec >= cap:
            raise Undecided(f"{what} undecided at the precision cap of {cap} bits")
        prec = min(2 * prec, cap)


# ---------------------------------------------------------------- output
def _ball_endpoint_fraction(x: arb, upper: bool) -> Fraction:
    e = x.upper() if upper else x.lower()
    return _arf_fraction(e)


def _arf_fraction(a: arb) -> Fraction:
    """The exact midpoint of ``a`` (a binary number) as a Fraction."""
    m, e = a.mid().man_exp()
    man, ex = int(m), int(e)
    return Fraction(man * 2**ex) if ex >= 0 else Fraction(man, 2 ** (-ex))


def endpoints(x: NumberOrBall) -> tuple[Fraction, Fraction]:
    """Exact rational endpoints ``(lo, hi)`` of a finite ball (or ``(q, q)`` for an exact number).

    Computed from the exact midpoint and radius, so the result does not depend
    on flint's current precision (``x.lower()``/``x.upper()`` would round to it).
    A midpoint or radius below ``2^-ENDPOINT_BITS`` in magnitude is first rounded outward to that power
    (:data:`ENDPOINT_BITS`), so the time does not grow with the exponent.

    >>> from flint import arb
    >>> with precision(128):
    ...     x = arb(2).sqrt()
    >>> lo, hi = endpoints(x)
    >>> hi - lo < Fraction(1, 2**120)
    True
    """
    if not isinstance(x, arb):
        q = exact(x)
        f = Fraction(int(q.p), int(q.q))
        return f, f
    if not x.is_finite():
        raise InvalidArgument("x", str(x), "must be a finite ball to print it")
    with precision(64):  # radii have 30-bit mantissas: exact at 64 bits (upper() keeps it outward regardless)
        r = x.rad().upper()
    if _below(x) or _below(r):  # a part below 2^-ENDPOINT_BITS: replaced by that power, outward
        tiny = Fraction(1, 1 << ENDPOINT_BITS)
        mid = Fraction(0) if _below(x) else _arf_fraction(x)
        rad = (tiny if _below(x) else Fraction(0)) + (tiny if _below(r) else _arf_fraction(r))
        return mid - rad, mid + rad
    mid = _arf_fraction(x)
    rad = _arf_fraction(r)
    return mid - rad, mid + rad


#: parts of a ball below 2^-ENDPOINT_BITS in magnitude are rounded outward to it by :func:`endpoints` (exact
#: Fractions of 10^8 bits would take minutes to build and compare); far below every number a user can type
#: (10^-100000 is about 2^-332193), so no decision against an input changes
ENDPOINT_BITS = 1 << 20


def _below(a: arb) -> bool:
    """Whether the midpoint of ``a`` is non-zero and below ``2^-ENDPOINT_BITS`` in magnitude.  O(1)."""
    m, e = a.mid().man_exp()
    return int(m) != 0 and int(e) + int(m).bit_length() <= -ENDPOINT_BITS


def lower_exact(x: arb) -> arb:
    """An exact ball (radius 0) at or below every point of the finite ball ``x``: its lower end rounded toward −∞ to
    the current precision (arb's ``lower()``, ``arb_get_lbound_arf``), so at most ``2^-prec`` relative below the exact
    end that :func:`endpoints` gives, with no Fraction built.  Non-finite ``x``: :func:`endpoints`'s error.  O(1).

    >>> with precision(128):
    ...     x = arb(2).sqrt()
    >>> endpoints(lower_exact(x))[0] <= endpoints(x)[0] and lower_exact(x).rad() == 0
    True
    """
    if not x.is_finite():
        endpoints(x)
    return x.lower()


def upper_exact(x: arb) -> arb:
    """An exact ball (radius 0) at or above every point of the finite ball ``x`` (arb's ``upper()``, rounded toward
    +∞ to the current precision); see :func:`lower_exact`.  O(1)."""
    if not x.is_finite():
        endpoints(x)
    return x.upper()


def float_below(x: arb) -> float:
    """A binary64 number ≤ every point of the finite ball ``x``: ``fl(lower_exact(x))`` (round to nearest: within half
    an ulp, or half the smallest subnormal) moved one ulp toward 0 — the same argument as for a correctly rounded
    Fraction (docs/numerics.md, "Exact dyadic ends of a ball").  A positive ``x`` gives a number ``< x`` (possibly 0
    or negative where the ball's lower end is).  O(1)."""
    v = float(lower_exact(x))
    return math.nextafter(v, 0.0) if v > 0 else math.nextafter(v, -math.inf)


def float_above(x: arb) -> float:
    """A binary64 number ≥ every point of the finite ball ``x`` (``+inf`` beyond binary64): ``fl(upper_exact(x))``
    moved one ulp toward +∞ (at least ``-sys.float_info.max``).  O(1)."""
    return math.nextafter(float(upper_exact(x)), math.inf)


def _fraction_to_decimal(f: Fraction, digits: int, up: bool) -> str:
    """Render ``f`` rounded to ``digits`` significant decimal digits, toward +inf if ``up`` else toward -inf.

    One format throughout (Python's ``repr`` rule): plain decimals for ``10^-4 <= |f| < 10^16``, scientific
    notation (``1.16693e-5``) outside, so no certificate prints ``0.0000116693`` beside ``4.06726e-6``."""
    if f == 0:
        return "0"
    neg = f < 0
    a = -f if neg else f
    # exponent e with 10**e <= a < 10**(e+1): estimated from bit lengths (no str() of a huge integer), then corrected
    e = int((a.numerator.bit_length() - a.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    scale = Fraction(10) ** (digits - 1 - e)
    scaled = a * scale
    # rounding direction on the magnitude: toward +inf on the value means up for positives, down for negatives
    mag_up = (up and not neg) or (not up and neg)
    n = -((-scaled.numerator) // scaled.denominator) if mag_up else scaled.numerator // scaled.denominator
    val = Fraction(n) / scale
    if val == 0:
        return "0"
    ds = str(n)
    if len(ds) > digits:  # rounding carried into a new digit (e.g. 9.99 -> 10.0): the printed exponent
        e += len(ds) - digits
    if -4 <= e < 16:
        s = _format_fraction_decimal(val)
    else:  # scientific notation, still exact: mantissa n (digits digits) times 10**(e - digits + 1)
        mant = (ds[0] + "." + ds[1:]).rstrip("0").rstrip(".")
        s = f"{mant}e{e:+d}" if e < 0 else f"{mant}e+{e}"
    return ("-" + s) if neg else s


def _format_fraction_decimal(val: Fraction) -> str:
    """Exact decimal rendering of a rational whose denominator divides a power of ten."""
    d = val.denominator
    k = 0
    while (10**k) % d != 0:
        k += 1
    n = val.numerator * (10**k // d)
    s = str(abs(n)).rjust(k + 1, "0")
    if k:
        ip, fp = s[:-k], s[-k:].rstrip("0")
        s = ip + ("." + fp if fp else "")
    return ("-" if n < 0 else "") + s


#: a ball whose binary exponents exceed this (in absolute value) is printed through ball arithmetic
#: (:func:`_far_decimal`): the exact route would build 10^|e| and Fractions of |e| digits
FAR_BITS = 1 << 16
#: the same for an exact number (numerator or denominator bits): above every number a user can type
#: (MAX_DECIMAL_EXPONENT, MAX_DIGITS: about 332,000 bits), so inputs print exactly
FAR_BITS_EXACT = 400_000


def _log2_size(x: NumberOrBall) -> int:
    """A bound on the binary exponents in ``x`` (of its midpoint and radius, or of its numerator and denominator).
    O(1) for a ball; O(1) for an exact number (bit lengths)."""
    if isinstance(x, arb):
        if not x.is_finite():
            return 0
        size = 0
        for part in (x.mid(), x.rad()):
            m, e = part.man_exp()
            if int(m) != 0:
                size = max(size, abs(int(e)) + int(m).bit_length())
        return size
    q = exact(x)
    return max(int(q.p).bit_length(), int(q.q).bit_length())


def _floor_point(a: arb) -> int:
    """``⌊m⌋`` of the midpoint ``m = man·2^exp`` of ``a`` (an exact binary number; ``a``'s radius is ignored, so
    callers pass a point: an end or a midpoint).  O(bits of man)."""
    man, ex = (int(v) for v in a.mid().man_exp())
    return man << ex if ex >= 0 else man >> -ex


def _far_decimal(x: NumberOrBall, digits: int, up: bool) -> str:
    """:func:`decimal_string` of a number with a huge binary exponent, in time independent of the exponent.

    The end of ``x`` (upper if ``up`` else lower) is an exact binary number ``m·2^E`` (an fmpq is first enclosed in
    a ball); its decimal exponent ``e`` and the scaled mantissa ``end·10^(digits−1−e)`` are computed in ball
    arithmetic at ``4·digits + bits(E) + 64`` bits, and the mantissa is rounded outward from the ball's own end
    (ceiling of its upper end, floor of its lower end), so the printed value is ≥ (``up``) or ≤ the end: outward,
    at worst one unit in the last digit wider than the exact rounding.  O(log|E|) multiplications of that precision.
    """
    wp = 4 * digits + max(_log2_size(x), 1).bit_length() + 64
    with precision(wp):
        b = x if isinstance(x, arb) else arb(exact(x))
        end = b.upper() if up else b.lower()
        if end.is_zero():
            return "0"
        neg = bool(end < 0)
        mag = -end if neg else end
        mag_up = up != neg  # rounding toward +inf on the value: up on the magnitude for positives
        log10 = mag.log() / arb(10).log()
        e = _floor_point(log10.mid())
        for _ in range(4):  # the exponent estimate is off by at most one: normalise the mantissa
            scaled = mag * arb(10) ** (digits - 1 - e)
            n = -_floor_point(-scaled.upper()) if mag_up else _floor_point(scaled.lower())
            if n >= 10**digits:
                e += 1
            elif n < 10 ** (digits - 1):
                e -= 1
            else:
                break
    ds = str(n)
    mant = (ds[0] + "." + ds[1:]).rstrip("0").rstrip(".")
    s = f"{mant}e{e:+d}" if e < 0 else f"{mant}e+{e}"
    return ("-" + s) if neg else s


def decimal_string(x: NumberOrBall, digits: int = 10, *, up: bool) -> str:
    """One end of an outward rounding: ``x``'s upper end rounded up (``up=True``) or lower end rounded down.

    >>> from flint import fmpq
    >>> decimal_string(fmpq(1, 3), 4, up=True), decimal_string(fmpq(1, 3), 4, up=False)
    ('0.3334', '0.3333')
    >>> decimal_string(fmpq(-1, 3), 4, up=True)
    '-0.3333'
    >>> decimal_string(fmpq(2, 3 * 10**9), 3, up=True), decimal_string(fmpq(999999, 10**12), 2, up=True)
    ('6.67e-10', '1e-6')
    """
    if _log2_size(x) > (FAR_BITS if isinstance(x, arb) else FAR_BITS_EXACT):
        return _far_decimal(x, digits, up)
    lo, hi = endpoints(x)
    return _fraction_to_decimal(hi if up else lo, digits, up)


def printed(text: str) -> Enclosure:
    """A number this module printed (:func:`decimal_string`), read back: exact (an ``fmpq``) within the input range
    (:data:`MAX_DECIMAL_EXPONENT`), else a ball enclosing it (a printed ``2.7e-30103000`` comes from a
    number with a huge exponent, and ``10^30103000`` is not built).  O(length of the text) plus
    O(log |exponent|) ball multiplications.

    >>> printed("1.5e-6"), printed("2.5e-30103000") < fmpq(1, 10**100)
    (3/2000000, True)
    """
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d*)?)[eE]([+-]?\d+)\s*", text)
    if m is None or abs(int(m.group(2))) <= MAX_DECIMAL_EXPONENT:
        return exact(text)
    mant, e = exact(m.group(1)), int(m.group(2))
    with precision(64 + 2 * len(m.group(2)) * 4):
        return arb(mant) * arb(10) ** e


def decimal_interval(x: NumberOrBall, digits: int = 10) -> dict:
    """``{"lower": …, "upper": …}``: outward-rounded decimal strings enclosing ``x``.

    >>> from flint import arb
    >>> with precision(128):
    ...     decimal_interval(arb(2).sqrt(), 8)
    {'lower': '1.4142135', 'upper': '1.4142136'}
    """
    return {"lower": decimal_string(x, digits, up=False), "upper": decimal_string(x, digits, up=True)}


#: why a certified lower end below 0 is printed as 0 (δ, ε and Rényi divergences are non-negative)
NONNEG_REASON = (
    "the enclosure's lower end was below 0 and is printed as 0: the quantity is >= 0 by definition "
    "(a hockey-stick or Rényi divergence is non-negative), so [0, upper] still encloses it"
)


def nonneg_interval(x: NumberOrBall, digits: int = 10) -> dict:
    """:func:`decimal_interval` of a quantity that is >= 0 by definition (δ, ε, D_λ): a negative lower end
    (ball arithmetic's midpoint-radius form around a tiny value) becomes ``"0"``, and the key
    ``"lower_clamped"`` states why.

    >>> from flint import arb
    >>> nonneg_interval(arb(0, fmpq(1, 10**33)), 6)["lower"], "lower_clamped" in nonneg_interval(arb(1), 6)
    ('0', False)
    """
    iv = decimal_interval(x, digits)
    if iv["lower"].startswith("-"):
        iv["lower"] = "0"
        iv["lower_clamped"] = NONNEG_REASON
    return iv


def decisive_interval(
    x: NumberOrBall, threshold: NumberOrBall, *, digits: int = 6, above: bool, max_digits: int = 60, nonneg: bool = True
) -> dict:
    """Outward-rounded decimals of ``x`` with as many digits as it takes for the *printed* interval to decide
    the comparison with ``threshold``: ``above=True`` — the printed lower end is > threshold (e.g. a FAILS
    witness δ ≥ L > claimed δ); ``above=False`` — the printed upper end is <= threshold (HOLDS).  Starts at
    ``digits`` and adds digits up to ``max_digits``; if the comparison is not decided even then (the
    enclosure itself does not decide it), the ``digits`` rendering is returned.

    >>> x = fmpq(103351887591, 10**15)          # 0.000103351887591
    >>> decimal_interval(x, 6)["lower"], decisive_interval(x, fmpq(10335188759, 10**14), above=True)["lower"]
    ('0.000103351', '0.000103351887591')
    """
    t = exact(threshold)
    if _log2_size(x) > (FAR_BITS if isinstance(x, arb) else FAR_BITS_EXACT):  # no exact re-reading of 10^-10^8
        return nonneg_interval(x, digits) if nonneg else decimal_interval(x, digits)
    for d in range(digits, max_digits + 1):
        iv = nonneg_interval(x, d) if nonneg else decimal_interval(x, d)
        if above and exact(iv["lower"]) > t:
            return iv
        if not above and exact(iv["upper"]) <= t:
            return iv
    return nonneg_interval(x, digits) if nonneg else decimal_interval(x, digits)


def rel_width(x: NumberOrBall) -> Fraction | None:
    """Relative width ``(hi - lo) / |lo|`` of a ball, exact; ``None`` when ``lo`` is 0."""
    if isinstance(x, arb) and _log2_size(x) > FAR_BITS:  # in ball arithmetic: the ratio itself is moderate
        if not x.is_finite():
            raise InvalidArgument("x", str(x), "must be a finite ball")
        with precision(64):
            mag = abs(arb(x.mid())) - arb(x.rad())
            if not mag > 0:
                return None  # the ball reaches 0: no relative width
            return _arf_fraction((2 * arb(x.rad()) / mag).upper())
    lo, hi = endpoints(x)
    if lo == 0:
        return None
    return (hi - lo) / abs(lo)


def exp_param(
    epsilon: NumberOrBall | None = None, exp_epsilon: NumberOrBall | None = None, *, name: str = "epsilon"
) -> Enclosure:
    """``e^ε`` from exactly one of ``epsilon`` (exact, ≥ 0; result a ball unless ε = 0) or ``exp_epsilon`` (exact, ≥ 1).

    Rational ``e^ε`` keeps whole computations exact (tests use it); a decimal
    ``ε`` gives a ball at the current precision.

    >>> exp_param(exp_epsilon="3/2")
    3/2
    >>> exp_param(epsilon=0)
    1
    >>> exp_param()
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon must be given (or exp_epsilon instead), not both or neither
    """
    if (epsilon is None) == (exp_epsilon is None):
        raise InvalidArgument(name, epsilon, f"must be given (or exp_{name} instead), not both or neither")
    if exp_epsilon is not None:
        if isinstance(exp_epsilon, arb):
            return exp_epsilon
        return exact_in(exp_epsilon, f"exp_{name}", lo=1)
    if isinstance(epsilon, arb):
        return epsilon.exp()
    e = exact_in(epsilon, name, lo=0)
    return fmpq(1) if e == 0 else arb(e).exp()
