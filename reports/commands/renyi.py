"""``blanket renyi`` — the certified Rényi divergence D_λ of shuffled randomized response (or a registered RDP bound).

``blanket renyi --mechanism rr --k K --epsilon0 E0 -n N --order LAMBDA
[--dataset worst|c=INT|same|neighbour|third] [--bound LABEL [--variant V]] [--json]``

Prints the enclosure of ε(λ) = D_λ (outward-rounded decimals) and what it
means.  ``worst`` (binary RR only) is the exact worst case over all
neighbouring datasets; ``c=INT`` one binary dataset (c ones among the other
n−1 users); ``same``/``neighbour``/``third`` the k-RR dataset families (max
over both directions).  With ``--bound`` the registered bound (quantity
``renyi``, e.g. ``"GDDSK21 Theorem 3.1"``) is evaluated at (n, ε0, λ)
instead.  Exit codes: 0 success, 2 bad input (one line on stderr), 3 inconclusive.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "certified Rényi divergence D_lambda of shuffled randomized response "
    "(worst case over datasets by default), or of a registered RDP bound",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", default="rr", help="local randomizer: rr (k-ary randomized response; default)")
    p.add_argument("--k", default="2", help="domain size of randomized response (default 2: binary RR)")
    p.add_argument("--epsilon0", required=True, help="local epsilon0 (exact: decimal like 0.5, or p/q)")
    p.add_argument("-n", "--n", dest="n", required=True, help="number of users")
    p.add_argument("--order", required=True, help="Rényi order lambda > 1 (integer or not, exact)")
    p.add_argument(
        "--dataset",
        default="worst",
        help="which neighbouring datasets. Exact: worst (the maximum over all "
        "datasets; k = 2). LOWER bounds on the protocol's RDP epsilon: c=INT "
        "(k = 2), same, neighbour, third (k-RR families). Default worst",
    )
    p.add_argument(
        "--delta",
        default=None,
        help="also convert RDP to (epsilon, delta)-DP at this delta (standard and improved "
        "conversions, optimised over lambda) and compare with the exact epsilon(delta)",
    )
    p.add_argument("--bound", default=None, help="evaluate a registered RDP bound instead, e.g. 'GDDSK21 Theorem 3.1'")
    p.add_argument("--variant", default=None, help="variant of the bound, if it has several")
    p.add_argument("--digits", default="10", help="significant digits printed (default 10)")
    from blanket.reports.commands._options import add_max_memory, add_precision, add_time_budget

    add_precision(p, old="--prec")
    add_max_memory(p)
    add_time_budget(p)
    p.add_argument("--workers", default=None, help="local processes for the worst-case sweep (default: every core)")
    p.add_argument(
        "--scheduler",
        default=None,
        help="Dask scheduler address (tcp://HOST:8786) for the worst-case sweep "
        "(default: $BLANKET_SCHEDULER, else local processes)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


#: largest Rényi order accepted
MAX_ORDER = 10**6


def _tight(v) -> bool:
    from flint import arb, fmpq

    if isinstance(v, fmpq):
        return True
    b = arith.ball(v)
    if not b.is_finite():
        return False
    if b.rad() == 0:
        return True
    return b > 0 and b.rad() <= abs(b.mid()) * arb(2) ** -40


def _emit(args, payload, text):
    print(json.dumps(payload, indent=2) if args.json else text)


def _show(iv):
    return f"[{iv['lower']}, {iv['upper']}]"


def run(args: argparse.Namespace) -> int:
    from blanket.exact.accounting import renyi as xr
    from blanket.exact.accounting import renyi_families as rf
    from blanket.exact.mechanisms import registry
    from blanket.exact.mechanisms.finite import KRR

    if registry.resolve(args.mechanism, k=args.k, name="--mechanism") not in registry.RR_KINDS:
        raise InvalidArgument(
            "--mechanism",
            args.mechanism,
            "must be rr (k-ary randomized response); other mechanisms are not supported by blanket renyi",
        )
    k = arith.integer_in(args.k, "--k", lo=2)
    e0 = arith.exact_in(args.epsilon0, "--epsilon0", lo=0)
    n = arith.integer_in(args.n, "-n", lo=1)
    order = xr.parse_order(args.order, "--order")
    digits = arith.integer_in(args.digits, "--digits", lo=1, hi=60)
    cap = (
        arith.MAX_PREC if args.precision is None else arith.integer_in(args.precision, "--precision", lo=32, hi=1 << 16)
    )
    prec = min(arith.DEFAULT_PREC, cap)
    from blanket.exact.numbers import guards
    from blanket.reports.commands._options import apply_max_memory

    apply_max_memory(args)
    guards.check_epsilon0(e0, "--epsilon0")
    if args.dataset in xr.FAMILIES:  # k-RR families: the Taylor kernel's memory does not grow with n
        guards.check_memory(guards.evaluation_bytes(n), "one family evaluation", name="-n", value=n)
    else:
        guards.check_memory(
            n * 512,
            "the exact computation over n users",
            name="-n",
            value=n,
            hint="the exact value needs memory linear in n; use a smaller n",
        )
    if arith.exact(order) > MAX_ORDER:
        raise InvalidArgument(
            "--order",
            args.order,
            f"must be at most {MAX_ORDER} (the supported range: the Rényi moment "
            "of order lambda has about lambda * n * log2(e^epsilon0) bits)",
        )
    base = {"command": "renyi", "mechanism": "rr", "k": k, "epsilon0": args.epsilon0, "n": n, "order": args.order}

    if args.bound is not None or args.variant is not None:
        if args.bound is None:
            raise InvalidArgument("--variant", args.variant, "needs --bound")
        return _run_bound(args, base, n, e0, order, digits, prec)

    dataset = args.dataset
    mech = KRR(k, epsilon0=e0)
    if args.quiet:
        from blanket.exact.runtime.progress import set_quiet

        set_quiet(True)
    workers = None if args.workers is None else arith.integer_in(args.workers, "--workers", lo=1)
    par = {"workers": workers, "scheduler": args.scheduler}
    prev = None
    while True:  # escalate until the enclosure is finite and its relative width is <= 2^-40, up to --precision
        with arith.precision(prec):
            r = rf.renyi(mech, n, order=order, dataset=dataset, progress=None, **par)
            val = r.value
            ok = _tight(val)
            # stop when doubling the precision did not halve the radius (the width then comes from the method,
            # e.g. datasets the pre-scan could not separate, not from rounding)
            stalled = prev is not None and arith.ball(val).rad() * 2 > prev
            prev = arith.ball(val).rad()
            if ok or stalled or prec >= cap:
                if not arith.ball(val).is_finite():
                    raise Undecided(f"the enclosure of D_lambda is not finite at the precision cap of {prec} bits")
                iv = arith.nonneg_interval(val, digits)
                mv = arith.nonneg_interval(r.moment, digits)
                break
        prec = min(2 * prec, cap)
    if dataset == "worst":
        relation = "exact"
        meaning = (
            "This is the exact worst case over all pairs of neighbouring datasets: the shuffled protocol is "
            f"(lambda, epsilon)-RDP at lambda = {args.order} exactly for epsilon at or above the upper end."
        )
    elif dataset.startswith("c="):
        relation = "lower"
        meaning = (
            "This is D_lambda for this dataset (both directions of the neighbouring pair): a certified LOWER "
            "bound on the protocol's RDP epsilon (the worst case over datasets can only be larger)."
        )
    else:
        relation = "lower"
        meaning = (
            f"This is D_lambda on the '{dataset}' dataset family (max over both directions): a certified LOWER "
            "bound on the protocol's RDP epsilon."
        )
    payload = {**base, "dataset": dataset, "renyi": iv, "moment": mv, "relation": relation, "precision_bits": prec}
    if r.c is not None:
        payload["c"] = r.c
    if getattr(r, "unresolved", 0):
        payload["unresolved_candidates"] = r.unresolved
        meaning += (
            f" {r.unresolved} further datasets are within the pre-scan's resolution of the maximum; their certified "
            "pre-scan bounds are part of the enclosure, which limits its width."
        )
    if r.x is not None:
        payload["direction"] = f"differing user holds {r.x} in D (moment E_(h~M(D'))[(M(D)/M(D'))^lambda])"
    conv_text = ""
    if args.delta is not None:
        conv, conv_text = _conversions(args, mech, n, order, dataset, prec, digits, r, par)
        payload["conversion"] = conv
    where = f", attained at c = {r.c} ones among the others" if (dataset == "worst" and r.c is not None) else ""
    if dataset == "worst" and getattr(r, "unresolved", 0):
        where = (
            f"; the maximising dataset is not resolved (c = {r.c} has the largest certified lower end, "
            f"{r.unresolved} other datasets are within the pre-scan's resolution)"
        )
    text = (
        f"D_lambda(lambda = {args.order}) = {_show(iv)}\n"
        f"for {k}-ary randomized response with epsilon0 = {args.epsilon0}, shuffled among n = {n} users, dataset: {dataset}{where}.\n"
        f"Rényi moment E = {_show(mv)}.\n{meaning}\n"
        f"(Certified enclosure, outward rounded; computed in ball arithmetic at {prec} bits.)" + conv_text
    )
    _emit(args, payload, text)
    return 0


#: orders tried by the RDP -> DP conversion (any order gives a valid epsilon; the best certified upper end is reported)
#: said when the best order is the grid's largest: the optimum over all orders may lie beyond the grid
_AT_TOP = ", the largest order of the grid: a larger order may give a smaller epsilon"
CONVERSION_ORDERS = ("3/2", "2", "3", "4", "6", "8", "12", "16", "24", "32", "48", "64", "96", "128", "256")


def _convert(method, rdp, lam, d):
    """The conversion of an RDP enclosure ``rdp`` at order ``lam`` to ε at δ = ``d`` (a ball)."""
    from flint import arb

    e = arith.ball(rdp)
    lb = arb(lam)
    if method == "standard":
        return e - arb(d).log() / (lb - 1)
    return e + ((lb - 1) / lb).log() - (arb(d).log() + lb.log()) / (lb - 1)


def _conversions(args, mech, n, order, dataset, prec, digits, r_main, par):
    """RDP -> (epsilon, delta), optimised over lambda; the exact epsilon(delta) for comparison.

    ``dataset = worst`` (binary RR): the order is *chosen* on a cheap certified lower curve (the
    datasets c = 0 and c = n−1, both directions: one window each), then *certified* by one
    worst-case evaluation at the chosen order per method (plus the --order already computed).  The
    reported ε is the certified upper end at the certified order; the lower curve also gives a
    certified floor: no order of the grid can give an ε below it.  Other datasets: their curve at
    every order of the grid (each evaluation is one dataset).
    """
    from blanket.exact.accounting import renyi_families as rf
    from blanket.exact.runtime.progress import Progress

    d = arith.exact_in(args.delta, "--delta", lo=0, lo_open=True, hi=1, hi_open=True)
    orders = sorted({arith.exact(o) for o in CONVERSION_ORDERS} | {order})
    out: dict[str, Any] = {}
    lines: list[str] = []
    with arith.precision(prec):
        if dataset == "worst":
            cheap = {}
            with Progress(len(orders), "RDP -> DP: lower curve (c = 0) at the orders of the grid") as bar:
                for lam in orders:
                    cheap[lam] = rf.renyi(mech, n, order=lam, dataset="c=0").value
                    bar.update(1)
            worst = {order: r_main.value}
            for method in ("standard", "improved"):
                floor = min(_convert(method, cheap[lam], lam, d).lower() for lam in orders)
                lam_star = min(orders, key=lambda lam: _convert(method, cheap[lam], lam, d).upper())
                if lam_star not in worst:
                    worst[lam_star] = rf.renyi(mech, n, order=lam_star, dataset="worst", progress=None, **par).value
                cands = {lam: _convert(method, v, lam, d).upper() for lam, v in worst.items()}
                lam_best = min(cands, key=cands.__getitem__)
                eps = cands[lam_best]
                out[method] = {
                    "epsilon_upper": arith.decimal_string(eps, digits, up=True),
                    "order": str(lam_best),
                    "order_is_grid_max": lam_best == orders[-1],
                    "grid_floor": arith.decimal_string(floor, digits, up=False),
                    "worst_case_orders": sorted(str(x) for x in worst),
                }
                lines.append(
                    f"  RDP -> DP ({method}): epsilon <= {out[method]['epsilon_upper']} (order lambda = {lam_best}"
                    f"{_AT_TOP if lam_best == orders[-1] else ''}); "
                    f"no order of the grid gives less than {out[method]['grid_floor']}"
                )
            try:
                from blanket.exact.accounting import profiles

                ex = profiles.epsilon(mech, n, delta=d, dataset="worst", progress=None, **par)
                out["exact"] = {
                    "lower": arith.decimal_string(ex.lower, digits, up=False),
                    "upper": arith.decimal_string(ex.upper, digits, up=True),
                }
                lines.append(
                    f"  exact epsilon(delta) of the shuffled protocol: [{out['exact']['lower']}, {out['exact']['upper']}] "
                    "(the RDP route costs the difference)"
                )
            except Exception as exc:  # noqa: BLE001 - reported, never silently dropped
                out["exact"] = None
                lines.append(f"  exact epsilon(delta) unavailable: {exc}")
            how = (
                "the order is chosen on the lower curve of the dataset c = 0 (certified, cheap) and the worst case "
                "over all datasets is computed at the chosen order"
            )
        else:
            cache = {}
            with Progress(len(orders), f"RDP -> DP: the {dataset} curve at the orders of the grid") as bar:
                for lam in orders:
                    cache[lam] = r_main.value if lam == order else rf.renyi(mech, n, order=lam, dataset=dataset).value
                    bar.update(1)
            for method in ("standard", "improved"):
                cands = {lam: _convert(method, v, lam, d).upper() for lam, v in cache.items()}
                lam_best = min(cands, key=cands.__getitem__)
                out[method] = {
                    "epsilon_upper": arith.decimal_string(cands[lam_best], digits, up=True),
                    "order": str(lam_best),
                    "order_is_grid_max": lam_best == orders[-1],
                }
                lines.append(
                    f"  RDP -> DP ({method}): epsilon <= {out[method]['epsilon_upper']} (best order lambda = {lam_best}"
                    f"{_AT_TOP if lam_best == orders[-1] else ''})"
                )
            how = "each order of the grid evaluated on this dataset"
    text = (
        f"\nConversion to (epsilon, delta = {args.delta})-DP (each epsilon is a certified upper end; "
        "the orders of the grid are " + ", ".join(str(o) for o in orders) + f"; {how}):\n" + "\n".join(lines)
    )
    return out, text


def _run_bound(args, base, n, e0, order, digits, prec) -> int:
    from blanket.proofs.core import get

    result = get(args.bound, args.variant)
    if result.quantity != "renyi":
        raise InvalidArgument(
            "--bound",
            args.bound,
            f"bounds {result.quantity!r}, not the RDP epsilon(lambda) "
            "(pick e.g. 'GDDSK21 Theorem 3.1'; `blanket bounds` lists them)",
        )
    params = {"n": str(n), "epsilon0": args.epsilon0, "lambda": args.order}
    names = {s.name for s in result.symbols}
    params = {k: v for k, v in params.items() if k in names}
    with arith.precision(prec):
        v = result.bound(**params)
        if not arith.ball(v).is_finite():
            raise Undecided(f"the bound's enclosure is not finite at {prec} bits")
        iv = arith.decimal_interval(v, digits)
    side = "upper" if result.kind == "upper_bound" else "lower"
    payload = {
        **base,
        "bound": result.key,
        "status": result.status,
        "renyi": iv,
        "relation": side,
        "parameters": params,
        "precision_bits": prec,
    }
    text = (
        f"{result.key} ({result.title}; status: {result.status}) at "
        + ", ".join(f"{k} = {val}" for k, val in params.items())
        + ":\n"
        f"  epsilon(lambda) {'<=' if side == 'upper' else '>='} {_show(iv)}\n"
        f"The value is the bound's right-hand side in ball arithmetic at {prec} bits (outward rounded); it is an "
        f"{side} bound only as far as the paper's statement is right (see `blanket check-papers`)."
    )
    _emit(args, payload, text)
    return 0
