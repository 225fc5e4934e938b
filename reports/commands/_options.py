"""Options shared by several subcommands: one precision option, the memory limit, the output directory.

``--precision BITS`` is the single precision option: the cap of precision
escalation (every computation starts at 128 bits and doubles until decided or
until BITS).  The old spellings ``--max-prec`` (delta, epsilon, certify) and
``--prec`` (renyi) are accepted as deprecated aliases and print a note.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

PRECISION_HELP = (
    "precision cap in bits: computations start at 128 bits and double until the answer is decided, "
    "up to BITS (default 4096; a higher cap turns some INCONCLUSIVE answers into decided ones). "
    "Deprecated spelling: {old}"
)


class _Precision(argparse.Action):
    """Store the value; a deprecated spelling prints a one-line note."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string and option_string != "--precision":
            sys.stderr.write(f"blanket: note: {option_string} is deprecated; use --precision {values}\n")
        setattr(namespace, self.dest, values)


def add_precision(p: argparse.ArgumentParser, *, old: str = "--max-prec") -> None:
    """``--precision BITS`` (dest ``precision``), with ``old`` as a deprecated alias."""
    p.add_argument(
        "--precision",
        old,
        dest="precision",
        default=None,
        metavar="BITS",
        action=_Precision,
        help=PRECISION_HELP.format(old=old),
    )


def add_max_memory(p: argparse.ArgumentParser) -> None:
    """``--max-memory SIZE`` (dest ``max_memory``): refuse computations estimated to need more."""
    p.add_argument(
        "--max-memory",
        default=None,
        metavar="SIZE",
        help="refuse a computation whose estimated memory exceeds SIZE (e.g. 2G, 500M; default: half of "
        "this machine's memory); the refusal names the estimate (exit 2)",
    )


def add_time_budget(p: argparse.ArgumentParser) -> None:
    """``--time-budget SECONDS`` (dest ``time_budget``): stop with INCONCLUSIVE (exit 3) when it runs out."""
    p.add_argument(
        "--time-budget",
        default=None,
        metavar="SECONDS",
        help="stop with INCONCLUSIVE (exit 3, saying what was computed) when the computation runs longer than "
        "SECONDS of wall-clock time (default: no limit; the exact worst case is refused up front when its "
        "estimate exceeds BLANKET_MAX_SECONDS)",
    )


CURVES: dict[str, bool | str] = {"auto": "auto", "on": True, "off": False}


def add_curves(p: argparse.ArgumentParser, *, rounds: str = "--rounds, [[rounds]]") -> None:
    """``--curves auto|on|off`` (dest ``curves``): which pairs a composition composes; ``rounds`` names where the
    command's rounds come from (``blanket certify`` has no ``--rounds``: only a deployment's ``[[rounds]]``)."""
    p.add_argument(
        "--curves",
        default="auto",
        choices=tuple(CURVES),
        help=f"pairs composed over rounds ({rounds}): auto (default: the tight curve pairs where their "
        "estimated cost is within minutes), on (at any cost; refused up front over BLANKET_MAX_SECONDS), off (the "
        "fast, looser blanket-view / clone pairs; the answer says so)",
    )


def curves_mode(args: argparse.Namespace) -> bool | str:
    """``--curves`` as the accountant's ``curves`` (``"auto"``, ``True``, ``False``)."""
    return CURVES[getattr(args, "curves", None) or "auto"]


def apply_max_memory(args: argparse.Namespace) -> None:
    """Validate ``--max-memory`` and make it the limit of :mod:`blanket.exact.numbers.guards` for this run; also
    start the run's ``--time-budget`` (:func:`blanket.exact.runtime.progress.set_time_budget`) when it has one."""
    from blanket.exact.numbers import arith, guards
    from blanket.exact.runtime.progress import set_time_budget

    value = getattr(args, "max_memory", None)
    if value is not None:
        guards.set_max_memory(guards.parse_size(value, "--max-memory"))
    budget = getattr(args, "time_budget", None)
    if budget is not None:
        set_time_budget(float(arith.exact_in(budget, "--time-budget", lo=0, lo_open=True, hi=10**7)))


def window_hint(width: Fraction | None) -> str:
    """The hint of an undecided comparison whose enclosure stopped narrowing with precision: what limits it (the
    computation's windowing/tail tolerance, about ``width`` wide), that more precision will not help, and what can:
    a target well above that width.  O(1)."""
    from blanket.exact.numbers import arith

    w = "its width" if width is None else f"about {arith.decimal_string(width, 2, up=True)}"
    return (
        f"what limits this answer is the computation's windowing/tail tolerance ({w}), not the precision: a higher "
        f"--precision will not help, and no option of this command narrows that tolerance; a target delta well above "
        f"{w.removeprefix('about ')} can be decided"
    )


def inconclusive_hint(args: argparse.Namespace | None, exc: BaseException | None = None) -> str:
    """The hint of an INCONCLUSIVE answer that has no more specific one (a single-round ``blanket delta`` /
    ``epsilon`` / ``renyi`` stopped by an undecided enclosure): the precision cap this run used (``--precision``, else
    the default, ``arith.MAX_PREC``) and the next cap it did not try; at the largest cap, that none is left; for a
    command without ``--precision``, that its precision is fixed; for ``--mechanism laplace|gaussian`` (whose route
    does not read ``--precision``), what limits it (``continuous_certificate.LIMIT``).  Certificates say what limited them
    (``cert["_inconclusive_hint"]``: :func:`blanket.reports.certificate.precision_hint`, the composed and fleet
    routes' own).  An enclosure that stopped narrowing with precision (``exc`` a
    :class:`~blanket.exact.numbers.errors.WindowLimited`) is said to be limited by a windowing/tail tolerance instead:
    no --precision hint (:func:`window_hint`).  O(1)."""
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import WindowLimited

    if isinstance(exc, WindowLimited):
        return window_hint(exc.width)

    if args is None or not hasattr(args, "precision"):
        return "the enclosures were too wide to decide at this command's fixed precision"
    if getattr(args, "mechanism", None) in ("laplace", "gaussian"):  # the continuous route: lattices, not bits
        from blanket.reports.continuous_certificate import LIMIT

        return LIMIT
    try:
        cap = arith.MAX_PREC if args.precision is None else int(args.precision)
    except (TypeError, ValueError):
        cap = arith.MAX_PREC
    where = "--precision" if args.precision is not None else "the default"
    if cap >= 1 << 16:
        return f"this run already went up to the largest precision cap, {cap} bits: more precision is not available"
    return f"this run stopped at its precision cap of {cap} bits ({where}); try the next cap, --precision {2 * cap}"
