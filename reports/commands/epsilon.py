"""``blanket epsilon`` — the certified smallest central ε with δ(ε) ≤ target for shuffled randomized response.

``blanket epsilon --mechanism rr --epsilon0 2 -n 1000 --delta 1e-6 [--dataset …] [--bound LABEL [--variant V]]
[--deployment FILE] [--json]``

The answer is a bracket ``[lower, upper]`` of exact rationals (printed
outward rounded): ``delta(upper) <= target`` is proven (report ``upper``),
``delta(lower) > target`` is proven.  For a registered bound on δ the same
one-sided search is run with the bound as δ(ε); a bound on ε (e.g.
Erlingsson et al.'s 12ε0√(log(1/δ)/n)) is evaluated directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.reports.commands import _profile_common as common
from blanket.reports.commands import _profile_run

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "certified smallest central epsilon with delta(epsilon) <= target for a shuffled local randomizer "
    "(randomized response, a frequency oracle, any eps0-LDP randomizer; worst case over all datasets by default), "
    "or from a bound",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    common.add_common_arguments(p, "delta")


def run(args: argparse.Namespace) -> int:
    return _profile_run.run_command(args, "epsilon", bound=_run_bound, profile=_run_profile)


def _run_profile(args: argparse.Namespace, inp: common.Inputs) -> int:
    from blanket.exact.accounting.profiles import epsilon

    rt = common.rel_tol(args)
    r = epsilon(
        inp.query,  # validated once by read_inputs (n, delta, dataset, the mechanism)
        rel_tol=rt,
        cap=inp.cap,
        progress=True,
        workers=inp.workers,
        scheduler=inp.scheduler,
    )
    br = r.bracket
    iv = _bracket_interval(br, inp.digits)
    payload = {
        "command": "epsilon",
        **inp.describe(),
        "delta": common._s(inp.delta),
        "epsilon": iv,
        "relation": r.relation,
        "attained_by": r.attained,
        "certified": "delta(epsilon.upper) <= target is proven; delta(epsilon.lower) > target is proven"
        if br.lower != br.upper
        else "delta(epsilon.upper) <= target is proven",
        "evaluations": r.evaluations,
        "precision_bits": br.prec,
    }
    if r.c is not None:
        payload["c"] = r.c
    if r.sweeps or r.dataset == "worst":
        payload["worst_case_sweeps"] = r.sweeps
    if r.decided_by:
        payload["upper_end_certified_by"] = r.decided_by
    if r.relation == "bracket" or (r.dataset == "worst" and r.upper_source):
        # worst-case answers report both ends the same way: each end with the bound it comes from
        assert r.upper_source is not None  # a bracket names the bound of its upper end (profiles._epsilon_bracket)
        payload["bracket"] = common.bracket_payload(
            r.lower_source or r.attained, iv["lower"], r.upper_source, iv["upper"], br.rel_width(), inp.digits
        )
    meaning = {
        "exact": "for every pair of neighbouring datasets (worst case over all datasets)",
        "lower": "for this pair of neighbouring datasets only (the protocol's epsilon can only be larger)",
        "upper": "for the blanket view of Lemma 5.3 (an upper bound: the protocol is at least this private)",
        "bracket": "for the worst case over all datasets: a certified BRACKET, its upper end from the blanket view "
        "of Lemma 5.3 (valid for every dataset), its lower end from a concrete dataset, where delta "
        "exceeds the target",
    }[r.relation]
    if r.relation == "bracket":
        meaning += f" ({r.lower_source}); relative width {payload['bracket']['relative_width']}"
    elif r.decided_by == "blanket view" and r.relation == "exact":
        meaning += " (the upper end is certified by the blanket view, so no sweep over all datasets was needed)"
    text = (
        f"epsilon = {iv['upper']} (certified upper end; the smallest epsilon lies in [{iv['lower']}, {iv['upper']}])\n"
        f"for delta = {common._s(inp.delta)}, {common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users, "
        f"dataset: {inp.dataset}.\n"
        f"Meaning: delta(epsilon) <= {common._s(inp.delta)} is proven at the upper end and disproven at the lower end, "
        f"{meaning}.\n"
        f"Attained by: {r.attained}.\n"
        f"({r.evaluations} evaluations of delta on single datasets"
        + (f" and {r.sweeps} sweeps over all datasets" if r.sweeps else "")
        + f", up to {br.prec} bits.)"
    )
    common.emit(args, payload, text)
    return 0


def _bracket_interval(br, digits):
    from blanket.exact.numbers import arith

    return {
        "lower": arith.decimal_string(br.lower, digits, up=False),
        "upper": arith.decimal_string(br.upper, digits, up=True),
    }


def _run_bound(args, inp) -> int:
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.calibrate import epsilon_for_delta
    from blanket.exact.numbers.errors import InvalidArgument

    rt = common.rel_tol(args)
    result = common.bound_result(args)
    if result.quantity == "epsilon":
        return common.emit_direct_bound(args, result, inp, "epsilon")
    if result.quantity != "delta":
        raise InvalidArgument(
            "--bound", args.bound, f"bounds {result.quantity!r}; blanket epsilon needs a bound on delta or epsilon"
        )
    if result.kind != "upper_bound":
        raise InvalidArgument(
            "--bound", args.bound, "is a lower bound on delta; calibrating epsilon needs an upper bound"
        )
    if inp.epsilon0 is not None:
        hi = inp.epsilon0
    else:
        hi = arith.exact("100")
    fixed = {k: v for k, v in common.bound_params(result, inp).items() if k != "epsilon"}

    def fun(eps):
        return result.bound(**fixed, epsilon=eps)

    br = epsilon_for_delta(fun, inp.delta, hi=hi, rel_tol=rt, cap=inp.cap)
    iv = _bracket_interval(br, inp.digits)
    payload = {
        "command": "epsilon",
        **inp.describe(bound=True),
        "delta": common._s(inp.delta),
        "bound": result.key,
        "status": result.status,
        "epsilon": iv,
        "relation": "upper",
        "parameters": {k: common._s(val) for k, val in fixed.items()},
        "certified": "bound(epsilon.upper) <= target is proven; bound(epsilon.lower) > target is proven",
        "evaluations": br.evaluations,
        "precision_bits": br.prec,
    }
    text = (
        f"epsilon = {iv['upper']} from {result.key} ({result.title}; status: {result.status})\n"
        f"the smallest epsilon in [0, {common._s(hi)}] at which the bound is <= delta = {common._s(inp.delta)} "
        f"lies in [{iv['lower']}, {iv['upper']}] (both ends certified; {br.evaluations} evaluations).\n"
        f"This epsilon is valid only as far as the paper's bound is right (see `blanket check-papers`)."
    )
    common.emit(args, payload, text)
    return 0
