"""The one module of exception classes used throughout Blanket.

Every message names the argument, the value, and says what to do, e.g.
``epsilon0 must be >= 0, got -1``.  The CLI maps :class:`BlanketError` (and
its subclasses) to a one-line message and exit code 2.
"""

from __future__ import annotations

from fractions import Fraction


class BlanketError(Exception):
    """Base class of every error Blanket raises on purpose."""


class InvalidArgument(BlanketError, ValueError):
    """An argument is malformed or outside its domain (``value`` ``None``: it was not given, and is not shown).

    >>> raise InvalidArgument("epsilon0", -1, "must be >= 0")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be >= 0, got -1
    """

    def __init__(self, name, value, requirement, hint=None):
        self.name, self.value, self.requirement, self.hint = name, value, requirement, hint
        msg = f"{name} {requirement}" if value is None else f"{name} {requirement}, got {value!r}"  # None: not given
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class FloatRefused(InvalidArgument):
    """A binary float was passed where an exact number is required."""

    def __init__(self, name, value, hint=None):
        super().__init__(
            name,
            value,
            "must be exact (int, Fraction, flint.fmpq or a decimal string such as '0.3' or '1e-8'), not a binary float",
            hint=hint
            or f"pass {name}='{value!r}' as a string, or allow_float=True to use the float's exact binary value",
        )


class HypothesisViolation(BlanketError, ValueError):
    """A statement was evaluated outside its hypotheses."""

    def __init__(self, result_label, hypothesis, values=None):
        self.result_label, self.hypothesis, self.values = result_label, hypothesis, values
        detail = f" at {values}" if values else ""
        super().__init__(f"{result_label}: hypothesis '{hypothesis}' fails{detail}; the statement does not apply there")


class Undecided(BlanketError):
    """Precision escalation hit its cap before a comparison was decided.

    Callers turn this into an INCONCLUSIVE verdict; it is never a guess.
    """


class WindowLimited(Undecided):
    """An enclosure stopped narrowing with precision (its width at the cap was not half its width at the previous
    precision): the width is set by a windowing or tail tolerance of the computation, not by the working precision,
    so a higher precision cap will not decide it.  ``width`` is that width (exact rational, or ``None``)."""

    def __init__(self, message: str, width: Fraction | None = None) -> None:
        super().__init__(message)
        self.width = width


class OutOfTime(Undecided):
    """The run's time budget (``--time-budget``) ran out before the answer was certified: INCONCLUSIVE (exit 3),
    the message saying what was computed."""


class InfeasibleTarget(BlanketError, ValueError):
    """A calibration target cannot be met at all (e.g. delta target below delta(infinity))."""
