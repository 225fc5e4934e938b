"""``blanket delta`` — the certified δ(ε) of shuffled randomized response (or of a registered bound).

``blanket delta --mechanism rr --epsilon0 2 -n 1000 --epsilon 0.3 [--dataset worst|c=INT|same|neighbour|third|blanket]
[--bound LABEL [--variant V]] [--deployment FILE] [--json]``

Prints the enclosure of δ (outward-rounded decimals), what it means and the
dataset attaining it.  Exit codes: 0 success, 2 bad input (one line on
stderr), 3 inconclusive.
"""

from __future__ import annotations

from blanket.reports.commands import _profile_common as common


def register(sub):
    p = sub.add_parser("delta", help="certified delta(epsilon) of shuffled randomized response on a dataset "
                                     "(worst case over all datasets by default), or of a registered bound")
    common.add_common_arguments(p, "epsilon")
    p.set_defaults(func=run)


def run(args) -> int:
    inp = common.read_inputs(args, "epsilon", need_mechanism=args.bound is None)
    from blanket.reports.commands import _compose
    T = _compose.rounds(args)
    if T is not None:
        if args.bound is not None:
            from blanket.exact.errors import InvalidArgument
            raise InvalidArgument("--rounds", T, "cannot be combined with --bound")
        return _compose.run_delta(args, inp, T)
    if args.bound is not None or args.variant is not None:
        return _run_bound(args, inp)
    from blanket.exact.profiles import delta
    r = delta(inp.mechanism, inp.n, epsilon=inp.epsilon, dataset=inp.dataset, cap=inp.cap, progress=True)
    iv = common.interval(r.value, inp.digits)
    payload = {"command": "delta", **inp.describe(), "epsilon": common._s(inp.epsilon), "delta": iv,
               "relation": r.relation, "attained_by": r.attained, "precision_bits": r.prec}
    if r.c is not None:
        payload["c"] = r.c
    if r.direction is not None:
        payload["direction"] = r.direction
    if len(r.ties) > 1:  # datasets not separated from the maximum at the final precision (first 50)
        payload["ties"] = list(r.ties)[:50]
        payload["ties_count"] = len(r.ties)
    meaning = {
        "exact": "This is the exact worst case over all pairs of neighbouring datasets: the shuffled protocol is "
                 f"(epsilon, delta)-DP for every delta at or above the upper end, and for none below the lower end.",
        "lower": "This is delta for this pair of neighbouring datasets only: a certified LOWER bound on the "
                 "protocol's delta (the worst case over all datasets can only be larger).",
        "upper": "This is the blanket view of Lemma 5.3: a certified UPPER bound on delta for every pair of "
                 "neighbouring datasets.",
    }[r.relation]
    text = (f"delta(epsilon = {common._s(inp.epsilon)}) = {common.show(r.value, inp.digits)}\n"
            f"for {common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users, dataset: {inp.dataset}.\n"
            f"{meaning}\n"
            f"Attained by: {r.attained}.\n"
            f"(Certified enclosure, outward rounded; computed in ball arithmetic at {r.prec} bits.)")
    common.emit(args, payload, text)
    return 0


def _run_bound(args, inp) -> int:
    from blanket.exact.errors import InvalidArgument
    result = common.bound_result(args)
    if result.quantity != "delta":
        raise InvalidArgument("--bound", args.bound, f"bounds {result.quantity!r}, not delta"
                              + ("; use `blanket epsilon --bound`" if result.quantity == "epsilon" else ""))
    payload, params, v, prec, side, where = common.direct_bound(result, inp, command="delta", quantity="delta",
                                                                given=("epsilon", inp.epsilon))
    text = (f"{result.key} ({result.title}; status: {result.status}) evaluated at {where}:\n"
            f"  delta {'<=' if side == 'upper' else '>='} {common.show(v, inp.digits)}\n"
            f"The value is the bound's right-hand side, enclosed in ball arithmetic at {prec} bits (outward rounded); "
            f"it is an {side} bound on delta only as far as the paper's statement is right (see `blanket check-papers`).")
    common.emit(args, payload, text)
    return 0
