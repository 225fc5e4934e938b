"""``blanket delta`` — the certified δ(ε) of shuffled randomized response (or of a registered bound).

``blanket delta --mechanism rr --epsilon0 2 -n 1000 --epsilon 0.3 [--dataset worst|bracket|c=INT|same|neighbour|third|blanket]
[--bound LABEL [--variant V]] [--deployment FILE] [--workers N] [--scheduler ADDRESS] [--json]``

Prints the enclosure of δ (outward-rounded decimals), what it means and the
dataset attaining it.  ``--dataset worst`` for binary RR sweeps every dataset
on ``--workers`` local processes or a Dask cluster (``--scheduler``), after
checking that it can finish (else one line with the estimate and the
options, exit 2); for k > 2 it prints the certified bracket.  Exit codes:
0 success, 2 bad input (one line on stderr), 3 inconclusive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.reports.commands import _profile_common as common
from blanket.reports.commands import _profile_run

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "certified delta(epsilon) of a shuffled local randomizer (randomized response, a frequency oracle, any "
    "eps0-LDP randomizer) on a dataset (worst case over all datasets by default), or of a registered bound",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    common.add_common_arguments(p, "epsilon")


def run(args: argparse.Namespace) -> int:
    return _profile_run.run_command(args, "delta", bound=_run_bound, profile=_run_profile)


def _run_profile(args: argparse.Namespace, inp: common.Inputs) -> int:
    from blanket.exact.accounting.profiles import delta

    rel_tol = None if args.rel_tol is None else common.rel_tol(args)  # None: delta's own default
    r = delta(
        inp.query,  # validated once by read_inputs (n, epsilon, dataset, the mechanism)
        cap=inp.cap,
        progress=True,
        rel_tol=rel_tol,
        workers=inp.workers,
        scheduler=inp.scheduler,
    )
    iv = common.delta_interval(r.value, inp.digits)
    payload = {
        "command": "delta",
        **inp.describe(),
        "epsilon": common._s(inp.epsilon),
        "delta": iv,
        "relation": r.relation,
        "attained_by": r.attained,
        "precision_bits": r.prec,
    }
    if r.relation == "bracket":
        lo, up = r.lower_bound, r.upper_bound
        assert lo is not None and up is not None  # a bracket carries both of its ends (profiles._delta_bracket)
        payload["bracket"] = common.bracket_payload(
            f"{lo.dataset}: {lo.attained}",
            common.interval(lo.value, inp.digits)["lower"],
            "the blanket view of Lemma 5.3",
            common.delta_interval(up.value, inp.digits)["upper"],
            r.rel_width,
            inp.digits,
        )
    if r.c is not None:
        payload["c"] = r.c
    if r.direction is not None:
        payload["direction"] = r.direction
    if r.note:
        payload["note"] = r.note
    if len(r.ties) > 1:  # datasets not separated from the maximum at the final precision (first 50)
        payload["ties"] = list(r.ties)[:50]
        payload["ties_count"] = len(r.ties)
    meaning = {
        "exact": "This is the exact worst case over all pairs of neighbouring datasets: the shuffled protocol is "
        "(epsilon, delta)-DP for every delta at or above the upper end, and for none below the lower end.",
        "lower": "This is delta for this pair of neighbouring datasets only: a certified LOWER bound on the "
        "protocol's delta (the worst case over all datasets can only be larger).",
        "upper": "This is the blanket view of Lemma 5.3: a certified UPPER bound on delta for every pair of "
        "neighbouring datasets.",
        "bracket": "This is the certified BRACKET on the worst case over all datasets: the lower end is the exact delta "
        "of a concrete dataset, the upper end the blanket view of Lemma 5.3 (an upper bound on every "
        "dataset); the protocol's delta lies in between.",
    }[r.relation]
    if r.relation == "bracket":
        assert r.lower_bound is not None  # as above
        meaning += (
            f"\nLower end from {r.lower_bound.dataset} ({r.lower_bound.attained}); relative width "
            f"{payload['bracket']['relative_width']}."
        )
    text = (
        f"delta(epsilon = {common._s(inp.epsilon)}) = {common.show(r.value, inp.digits)}\n"
        f"for {common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users, dataset: {inp.dataset}.\n"
        f"{meaning}\n"
        f"Attained by: {r.attained}.\n"
        f"(Certified enclosure, outward rounded; computed in ball arithmetic at {r.prec} bits.)"
        + (f"\nNote: {r.note}." if r.note else "")
        + (f"\nNote: {iv['lower_clamped']}." if "lower_clamped" in iv else "")
    )
    common.emit(args, payload, text)
    return 0


def _run_bound(args, inp) -> int:
    from blanket.exact.numbers.errors import InvalidArgument

    result = common.bound_result(args)
    if result.quantity != "delta":
        raise InvalidArgument(
            "--bound",
            args.bound,
            f"bounds {result.quantity!r}, not delta"
            + ("; use `blanket epsilon --bound`" if result.quantity == "epsilon" else ""),
        )
    return common.emit_direct_bound(args, result, inp, "delta")
