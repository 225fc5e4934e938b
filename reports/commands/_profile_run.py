"""``blanket delta`` and ``blanket epsilon`` after their arguments are read: which route answers.

Above the shared parts (:mod:`reports.commands._profile_common`) and the two routes that use them
(:mod:`reports.commands._compose`: composed rounds; :mod:`reports.commands._oracle`: the closed-form records), so
that the three import one way.  Light at import (no engine): the engines load inside the routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.reports.commands import _compose, _continuous, _matrix, _oracle, _plot
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
    closed-form record's best certified bounds (``reports/commands/_oracle.py``), a matrix deployment's certificate
    bracket (``reports/commands/_matrix.py``), else ``profile`` (shuffled
    randomized response)."""
    cdep = _continuous.deployment_of(args)
    if getattr(args, "mechanism", None) in common.CONTINUOUS_KINDS or cdep is not None:
        if getattr(args, "same_randomizer", False):  # refused by name before any work: a continuous randomizer
            common.check_same_randomizer_flag(args.mechanism or (cdep.mechanism if cdep is not None else "laplace"))
        done = _continuous.run(args, quantity)  # the continuous randomizers' blanket view (-1: run the --bound)
        if done >= 0:
            return done
    _plot.check(args)  # a bad --plot FILE is refused before anything is computed
    inp = common.read_inputs(args, "delta" if quantity == "epsilon" else "epsilon", need_mechanism=args.bound is None)
    _plot.check_inputs(args, inp)
    code = _compose.run_if_composed(args, inp, quantity)
    if code is None:
        if _matrix.is_matrix(inp):  # one round of a matrix deployment: the certificate's bracket
            code = _matrix.run_delta(args, inp) if quantity == "delta" else _matrix.run_epsilon(args, inp)
        elif args.bound is not None or args.variant is not None:
            code = bound(args, inp)
        elif inp.oracle:
            code = _oracle.run_delta(args, inp) if quantity == "delta" else _oracle.run_epsilon(args, inp)
        else:
            code = profile(args, inp)
    if code == 0:
        _plot.draw(args, inp, quantity)
    return code
