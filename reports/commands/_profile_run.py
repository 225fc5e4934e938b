"""``blanket delta`` and ``blanket epsilon`` after their arguments are read: which route answers.

Above the shared parts (:mod:`reports.commands._profile_common`) and the two routes that use them
(:mod:`reports.commands._compose`: composed rounds; :mod:`reports.commands._oracle`: the closed-form records), so
that the three import one way.  Light at import (no engine): the engines load inside the routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.reports.commands import _compose, _oracle
from blanket.reports.commands import _profile_common as common

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from blanket.reports.commands._profile_common import Inputs


def run_command(
    args: argparse.Namespace,
    quantity: str,
    *,
    bound: Callable[[argparse.Namespace, Inputs], int],
    profile: Callable[[argparse.Namespace, Inputs], int],
) -> int:
    """``blanket delta|epsilon`` (``quantity`` is the command's output): read the inputs, then run the composed
    rounds (``--rounds``, or a deployment's ``[[rounds]]``), else ``bound`` (``--bound``/``--variant``), else the
    closed-form record's best certified bounds (``reports/commands/_oracle.py``), else ``profile`` (shuffled
    randomized response)."""
    inp = common.read_inputs(args, "delta" if quantity == "epsilon" else "epsilon", need_mechanism=args.bound is None)
    composed = _compose.run_if_composed(args, inp, quantity)
    if composed is not None:
        return composed
    if args.bound is not None or args.variant is not None:
        return bound(args, inp)
    if inp.oracle:
        return _oracle.run_delta(args, inp) if quantity == "delta" else _oracle.run_epsilon(args, inp)
    return profile(args, inp)
