"""``blanket delta|epsilon`` for the closed-form records (ldp, oue, sue, olh, hadamard, subset, geometric).

Best certified bound wins (:mod:`blanket.exact.accounting.certified`): every applicable certified upper
bound is evaluated and the smallest reported, named; the lower end is the exact δ of a concrete dataset.
``--dataset worst``/``bracket`` prints the certified bracket, ``blanket`` the best upper bound alone,
``same`` the concrete dataset alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.reports.commands import _profile_common as common

if TYPE_CHECKING:
    import argparse

    from blanket.exact.mechanisms.finite import Randomizer

    from ._profile_common import Inputs


def delta_ends(mech: Randomizer, n: int, eps: Any, ds: str | None, cap: int) -> tuple:
    """``(((upper ball, its bound's name, every bound), (lower ball, where)), precision)``: the one-round certified
    ends of δ(ε) (:func:`blanket.exact.accounting.certified.best_upper`, :func:`~blanket.exact.accounting.certified.
    lower_bound`; ``ds`` "blanket": no lower end, "same": no upper end) at doubling precision (:func:`_at_precision`).
    What ``blanket delta`` prints for one round (:func:`blanket.exact.accounting.certified.one_round_delta`)."""
    from blanket.exact.accounting import certified as cb

    return cb.one_round_delta(mech, n, eps, lower=ds != "blanket", upper=ds != "same", cap=cap)


def run_delta(args: argparse.Namespace, inp: Inputs) -> int:
    mech, n, eps, ds = inp.mechanism, inp.n, inp.epsilon, inp.dataset
    assert mech is not None  # read_inputs builds the record unless --bound is given, and --bound does not come here

    ((uv, uname, every), (lv, lwhere)), prec = delta_ends(mech, n, eps, ds, inp.cap)
    relation = {"blanket": "upper", "same": "lower"}.get(ds, "bracket")
    payload = {"command": "delta", **inp.describe(), "epsilon": common._s(eps), "relation": relation}
    if uv is not None:
        up_iv = common.delta_interval(uv, inp.digits)
        payload["upper"] = {"value": up_iv["upper"], "from": uname}
        if "upper_clamped" in up_iv:  # printed as 1: say why (the bound's ball reaches above 1)
            payload["upper"]["upper_clamped"] = up_iv["upper_clamped"]
        payload["upper_bounds"] = {k: common.delta_interval(v, inp.digits) for k, v in every.items()}
    if lv is not None:
        lo_iv = common.interval(lv, inp.digits)
        payload["lower"] = {"value": lo_iv["lower"], "from": lwhere}
        if "lower_clamped" in lo_iv:  # printed as 0: say why (the dataset's δ is a ball around a tiny value)
            payload["lower"]["lower_clamped"] = lo_iv["lower_clamped"]
    elif lwhere:
        payload["lower_unavailable"] = lwhere
    payload["delta"] = (
        common.delta_interval(uv, inp.digits)
        if relation == "upper"
        else common.interval(lv, inp.digits)
        if relation == "lower"
        else {"lower": payload.get("lower", {}).get("value", "0"), "upper": payload["upper"]["value"]}
    )
    payload["precision_bits"] = prec
    lines = [f"for {common.mechanism_phrase(inp)}, shuffled among n = {n} users."]
    if uv is not None:
        lines.append(
            f"Certified UPPER bound (every dataset): delta <= {payload['upper']['value']}, from the {uname}."
            + (f" Note: {payload['upper']['upper_clamped']}." if "upper_clamped" in payload["upper"] else "")
        )
        for k, v in every.items():
            lines.append(f"  {k}: <= {common.delta_interval(v, inp.digits)['upper']}")
    if lv is not None:
        lines.append(
            f"Certified LOWER bound (a concrete dataset): delta >= {payload['lower']['value']}, on the dataset where "
            f"{lwhere}."
            + (f" Note: {payload['lower']['lower_clamped']}." if "lower_clamped" in payload["lower"] else "")
        )
    elif lwhere:
        lines.append(f"No certified lower bound: {lwhere}.")
    d = payload["delta"]
    head = f"delta(epsilon = {common._s(eps)}) in [{d['lower']}, {d['upper']}]"
    if relation == "upper":
        head = f"delta(epsilon = {common._s(eps)}) <= {d['upper']}"
    elif relation == "lower":
        head = f"delta(epsilon = {common._s(eps)}) >= {d['lower']}"
    text = "\n".join(
        [head, *lines, f"(Certified enclosures, outward rounded; computed in ball arithmetic at {prec} bits.)"]
    )
    common.emit(args, payload, text)
    return 0


def epsilon_ends(mech: Randomizer, n: int, target: Any, ds: str | None, rel_tol: Any, cap: int) -> tuple:
    """``(lower ε or None, where, upper ε or None, its bound's name, every bound)``: the one-round certified ends of
    ε(δ) (``ds`` "blanket": no lower end, "same": no upper end), as
    :func:`blanket.exact.accounting.certified.one_round_epsilon` gives them (the accountant takes the same for a
    single round).  Cost: the two searches (seconds at n = 10^3 when the exact five-atom view is a route)."""
    from blanket.exact.accounting import certified as cb

    return cb.one_round_epsilon(mech, n, target, rel_tol=rel_tol, cap=cap, lower=ds != "blanket", upper=ds != "same")


def run_epsilon(args: argparse.Namespace, inp: Inputs) -> int:
    rel_tol = common.rel_tol(args)
    mech, n, target, ds = inp.mechanism, inp.n, inp.delta, inp.dataset
    # read_inputs builds the record unless --bound is given (which does not come here) and requires delta
    assert mech is not None and target is not None
    payload = {"command": "epsilon", **inp.describe(), "delta": common._s(target)}
    lines = [f"for {common.mechanism_phrase(inp)}, shuffled among n = {n} users."]
    lower: dict = {}
    lower_line = None
    lo_eps, lwhere, up_eps, uname, every = epsilon_ends(mech, n, target, ds, rel_tol, inp.cap)
    if ds != "blanket":
        if lo_eps is not None:
            lower = {"value": arith.decimal_string(lo_eps, inp.digits, up=False), "from": lwhere}
            lower_line = (
                f"Certified: delta({lower['value']}) > {common._s(target)} on the dataset where {lwhere}: "
                "no smaller epsilon can be claimed."
            )
        elif lwhere:
            lower_line = f"No certified lower end ({lwhere})."
    if ds != "same":
        assert up_eps is not None
        payload["upper"] = {"value": arith.decimal_string(up_eps, inp.digits, up=True), "from": uname}
        lines.append(
            f"Certified: delta({payload['upper']['value']}) <= {common._s(target)} by the {uname} "
            f"(the smallest of: {', '.join(every)})."
        )
    if lo_eps is not None:
        payload["lower"] = lower
    if lower_line is not None:
        lines.append(lower_line)
    relation = {"blanket": "upper", "same": "lower"}.get(ds, "bracket")
    payload["relation"] = relation
    payload["epsilon"] = {
        "lower": payload.get("lower", {}).get("value", "0"),
        "upper": payload.get("upper", {}).get("value", "inf"),
    }
    e = payload["epsilon"]
    head = f"epsilon(delta = {common._s(target)}) in [{e['lower']}, {e['upper']}]"
    common.emit(args, payload, "\n".join([head, *lines]))
    return 0
