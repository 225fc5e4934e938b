"""``blanket delta|epsilon`` for the closed-form records (ldp, oue, sue, olh, hadamard, subset, geometric).

Best certified bound wins (:mod:`blanket.exact.accounting.certified`): every applicable certified upper
bound is evaluated and the smallest reported, named; the lower end is the exact δ of a concrete dataset.
``--dataset worst``/``bracket`` prints the certified bracket, ``blanket`` the best upper bound alone,
``same`` the concrete dataset alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.exact.numbers import arith
from blanket.reports.commands import _profile_common as common

if TYPE_CHECKING:
    import argparse

    from ._profile_common import Inputs

_REL = arith.exact("1e-12")
_ABS = arith.exact("1e-30")


#: a doubling of the precision that narrows the total width by less than this factor shows that the width comes
#: from a method's tolerance (which some engines tie loosely to the precision), not from rounding: a
#: rounding-limited width shrinks by about ``2^prec`` per doubling
_STALL_FACTOR = 1024


def _at_precision(fun, cap: int):
    """``fun()`` at doubling precision until every ball in its result is narrow (relative 1e-12, or absolute
    1e-30), the cap is hit, or doubling stops narrowing them fast (by less than :data:`_STALL_FACTOR`: a windowing
    tolerance, not precision, limits them — e.g. OLH's blanket view at n = 10^6 narrows about 4× per doubling,
    and 4096 bits would cost minutes for a fourth digit of a certified upper bound).  Every answer is certified
    whichever precision stops; only its width depends on the rule.  At most ``log2(cap/DEFAULT_PREC) + 1`` calls."""
    prec, last = arith.DEFAULT_PREC, None
    while True:
        with arith.precision(prec):
            out = fun()
            vals = [v for v in _values(out) if v is not None]
            width = sum(_width(v) for v in vals)
            if prec >= cap or all(_narrow(v) for v in vals) or (last is not None and _STALL_FACTOR * width > last):
                return out, prec
        last = width
        prec = min(2 * prec, cap)


def _width(v):
    from flint import arb

    if not isinstance(v, arb):
        return 0
    if not v.is_finite():
        return arith.exact(10) ** 300
    lo, hi = arith.endpoints(v)
    return arith.exact(hi - lo)


def _values(out):
    for x in out if isinstance(out, tuple) else (out,):
        if isinstance(x, tuple):
            yield from _values(x)
        elif isinstance(x, dict):
            yield from x.values()
        elif not isinstance(x, str):
            yield x


def _narrow(v) -> bool:
    from flint import arb

    if not isinstance(v, arb):
        return True
    if not v.is_finite():
        return False
    lo, hi = arith.endpoints(v)
    return arith.exact(hi - lo) <= max(_REL * arith.exact(abs(hi)), _ABS)


def delta_ends(mech, n: int, eps, ds: str | None, cap: int) -> tuple:
    """``(((upper ball, its bound's name, every bound), (lower ball, where)), precision)``: the one-round certified
    ends of δ(ε) (:func:`blanket.exact.accounting.certified.best_upper`, :func:`~blanket.exact.accounting.certified.
    lower_bound`; ``ds`` "blanket": no lower end, "same": no upper end) at doubling precision (:func:`_at_precision`).
    What ``blanket delta`` prints for one round, and what ``--rounds 1`` takes beside the accountant's ends."""
    from blanket.exact.accounting import certified as cb

    def fun():
        up = cb.best_upper(mech, n, epsilon=eps) if ds != "same" else (None, None, {})
        lo = cb.lower_bound(mech, n, epsilon=eps) if ds != "blanket" else (None, None)
        return up, lo

    return _at_precision(fun, cap)


def run_delta(args: argparse.Namespace, inp: Inputs) -> int:
    mech, n, eps, ds = inp.mechanism, inp.n, inp.epsilon, inp.dataset
    assert mech is not None  # read_inputs builds the record unless --bound is given, and --bound does not come here

    ((uv, uname, every), (lv, lwhere)), prec = delta_ends(mech, n, eps, ds, inp.cap)
    relation = {"blanket": "upper", "same": "lower"}.get(ds, "bracket")
    payload = {"command": "delta", **inp.describe(), "epsilon": common._s(eps), "relation": relation}
    if uv is not None:
        payload["upper"] = {"value": common.interval(uv, inp.digits)["upper"], "from": uname}
        payload["upper_bounds"] = {k: common.interval(v, inp.digits) for k, v in every.items()}
    if lv is not None:
        lo_iv = common.interval(lv, inp.digits)
        payload["lower"] = {"value": lo_iv["lower"], "from": lwhere}
        if "lower_clamped" in lo_iv:  # printed as 0: say why (the dataset's δ is a ball around a tiny value)
            payload["lower"]["lower_clamped"] = lo_iv["lower_clamped"]
    elif lwhere:
        payload["lower_unavailable"] = lwhere
    payload["delta"] = (
        common.interval(uv, inp.digits)
        if relation == "upper"
        else common.interval(lv, inp.digits)
        if relation == "lower"
        else {"lower": payload.get("lower", {}).get("value", "0"), "upper": payload["upper"]["value"]}
    )
    payload["precision_bits"] = prec
    lines = [f"for {common.mechanism_phrase(inp)}, shuffled among n = {n} users."]
    if uv is not None:
        lines.append(f"Certified UPPER bound (every dataset): delta <= {payload['upper']['value']}, from the {uname}.")
        for k, v in every.items():
            lines.append(f"  {k}: <= {common.interval(v, inp.digits)['upper']}")
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


def _epsilon_hi(mech):
    """A rational ≥ ε0: every certified bound here is 0 at ε ≥ ε0."""
    with arith.precision(128):
        e = mech.exp_epsilon0()
        lnv = arith.ball(e).log()
        hi = arith.exact(arith.endpoints(lnv)[1])
    return max(hi, arith.exact("1e-6"))


def epsilon_ends(mech, n: int, target, ds: str | None, rel_tol, cap: int) -> tuple:
    """``(lower ε or None, where, upper ε or None, its bound's name, every bound)``: the one-round certified ends of
    ε(δ) (``ds`` "blanket": no lower end, "same": no upper end): the lower end first
    (:func:`blanket.exact.accounting.certified.lower_epsilon`, a concrete dataset), whose certified failing end
    starts the upper end's search (:func:`~blanket.exact.accounting.certified.upper_epsilon`, the smallest certified
    bound).  What ``blanket epsilon`` prints for one round, and what ``--rounds 1`` takes beside the accountant's ends.
    Cost: the two searches (seconds at n = 10^3 when the exact five-atom view is a route)."""
    from blanket.exact.accounting import certified as cb
    from blanket.exact.numbers.errors import InfeasibleTarget, Undecided

    hi = _epsilon_hi(mech)
    lo_eps = lo_fail = lwhere = None
    if ds != "blanket":  # the lower end first: its certified failing end starts the upper end's search
        try:
            with arith.precision(arith.DEFAULT_PREC):
                lv, lwhere = cb.lower_bound(mech, n, epsilon=0)
            if lv is not None:
                # the cheap candidates steer the search; the full view is evaluated at its end (cb.lower_epsilon)
                lbr = cb.lower_epsilon(mech, n, target, hi=hi, rel_tol=rel_tol, cap=cap)
                if lbr.lower < lbr.upper:
                    lo_eps = lbr.lower
                    # δ ≥ the lower bound > target there (certified): every upper bound fails at lo_eps
                    lo_fail = lo_eps if lo_eps > 0 else None
        except (InfeasibleTarget, Undecided):
            lo_eps = None
    up_eps = uname = None
    every: dict = {}
    if ds != "same":
        br, uname, every = cb.upper_epsilon(mech, n, target, hi=hi, rel_tol=rel_tol, lo=lo_fail, cap=cap)
        up_eps = br.upper
    return lo_eps, lwhere, up_eps, uname, every


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
