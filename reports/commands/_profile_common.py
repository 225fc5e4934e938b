"""Shared parts of ``blanket delta`` and ``blanket epsilon``: arguments, inputs, registered bounds, output.

Inputs come from the command line or from a deployment file
(``--deployment FILE``, the format of :mod:`reports.deployment`, e.g.
``examples/telemetry.toml``); command-line values override the file's.
Every number is parsed exactly (``"1e-6"`` is 10⁻⁶); bad input raises
:class:`~exact.numbers.errors.InvalidArgument` naming the argument, which the CLI
prints as one line (exit 2).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

DATASET_HELP = (
    "which neighbouring datasets. EXACT: worst (the maximum over all datasets for k = 2; for k > 2 the "
    "certified bracket). BRACKET: bracket (certified [concrete dataset, blanket view] containing the worst "
    "case, in seconds). LOWER bounds on the protocol's value (one pair of datasets): c=INT (INT ones among "
    "the other n-1 users; k = 2), same, neighbour, third (k-RR families). UPPER bound: blanket (Lemma 5.3 "
    "blanket view, every dataset). Default worst"
)


def add_executor_arguments(p):
    """``--workers N`` and ``--scheduler ADDRESS``: where the exact worst-case sweep runs (exact.runtime.executors)."""
    p.add_argument(
        "--workers",
        default=None,
        metavar="N",
        help="local processes for the exact worst case over all datasets (default: every core; 1 = no pool)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the worst-case sweep on a Dask cluster, e.g. tcp://10.0.0.5:8786 (default: $BLANKET_SCHEDULER; "
        "needs pip install 'blanket[dask]')",
    )


def executor_options(args) -> tuple:
    """``(workers, scheduler)`` from the options, validated (errors name the option)."""
    workers = getattr(args, "workers", None)
    if workers is not None:
        workers = arith.integer_in(workers, "--workers", lo=1, hi=4096)
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None:
        scheduler = scheduler.strip()
        if not scheduler:
            raise InvalidArgument(
                "--scheduler", args.scheduler, "must be a Dask scheduler address such as tcp://HOST:8786"
            )
    return workers, scheduler


def add_common_arguments(p, quantity: str):
    """Arguments shared by both commands; ``quantity`` is the input the command takes (``epsilon``/``delta``)."""
    p.add_argument(
        "--mechanism",
        choices=("rr", "krr"),
        default=None,
        help="local randomizer: rr (k-ary randomized response; binary when --k is not given) or krr (the same, --k required)",
    )
    p.add_argument(
        "--k", default=None, metavar="K", help="alphabet size of k-ary RR (>= 2; default 2 with --mechanism rr)"
    )
    p.add_argument("--epsilon0", default=None, metavar="E0", help="local epsilon0 (exact decimal, e.g. 2 or 0.5)")
    p.add_argument("-n", "--n", dest="n", default=None, metavar="N", help="number of users (>= 2)")
    if quantity == "epsilon":
        p.add_argument("--epsilon", default=None, metavar="E", help="central epsilon (exact decimal, >= 0)")
    else:
        p.add_argument("--delta", default=None, metavar="D", help="target delta, 0 < D < 1 (e.g. 1e-6)")
    p.add_argument("--dataset", default="worst", help=DATASET_HELP)
    p.add_argument(
        "--deployment",
        default=None,
        metavar="FILE",
        help="read mechanism, n and epsilon/delta from a deployment TOML file (e.g. examples/telemetry.toml); "
        "command-line options override it",
    )
    p.add_argument(
        "--bound",
        default=None,
        metavar="LABEL",
        help="evaluate a registered bound (e.g. 'BBGN19 Theorem 5.3') instead of the exact quantity",
    )
    p.add_argument("--variant", default=None, metavar="V", help="variant of the --bound result (e.g. rr)")
    p.add_argument(
        "--digits", default="10", metavar="D", help="significant digits printed (outward rounded; default 10)"
    )
    from blanket.reports.commands._options import add_max_memory, add_precision

    add_precision(p, old="--max-prec")
    add_max_memory(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (inputs and the certified interval)")
    add_executor_arguments(p)
    p.add_argument(
        "--rounds",
        default=None,
        metavar="T",
        help="T composed shuffled rounds (certified composition of dominating pairs; see docs/composition.md)",
    )


@dataclass
class Inputs:
    """Validated inputs of one run."""

    mechanism: object | None  # exact.mechanisms.finite.KRR, or None (only with --bound)
    k: int | None
    epsilon0: object | None  # fmpq
    n: int
    dataset: str
    epsilon: object | None = None
    delta: object | None = None
    digits: int = 10
    cap: int = arith.MAX_PREC
    source: str | None = None
    extra: dict = field(default_factory=dict)
    workers: int | None = None
    scheduler: str | None = None

    def describe(self, bound: bool = False) -> dict:
        d = {
            "mechanism": ("rr" if self.k == 2 else "krr") if self.k else None,
            "k": self.k,
            "epsilon0": _s(self.epsilon0),
            "n": self.n,
        }
        if not bound:  # a registered bound is not about a dataset
            d["dataset"] = self.dataset
        if self.source:
            d["deployment"] = self.source
        return d


def _s(q):
    if q is None:
        return None
    from blanket.reports.latex import exact_string

    return exact_string(q)


def read_inputs(args, quantity: str, *, need_mechanism: bool) -> Inputs:
    """Combine the deployment file (if any) and the options; validate everything (errors name the option)."""
    dep = None
    if args.deployment:
        from blanket.reports.deployment import load_deployment

        dep = load_deployment(args.deployment)
        if dep.mechanism not in ("krr", "binary_rr"):
            raise InvalidArgument(
                "--deployment",
                args.deployment,
                f"describes a {dep.mechanism} randomizer; blanket delta/epsilon handle k-ary randomized response only",
            )
    mech_kind = args.mechanism
    k = args.k
    if k is None and dep is not None:
        k = dep.params["k"]
    # --mechanism rr is k-ary randomized response (k = 2, binary RR, when --k is not given);
    # --mechanism krr is the same family but requires --k.
    if k is None:
        k = 2 if mech_kind in (None, "rr") else None
    if k is None:
        raise InvalidArgument("--k", None, "is required with --mechanism krr (the alphabet size, >= 2)")
    k = arith.integer_in(k, "--k", lo=2)
    e0 = args.epsilon0
    exp_e0 = None
    if e0 is None and dep is not None:
        e0 = dep.params.get("epsilon0")
        exp_e0 = dep.params.get("exp_epsilon0")
    if e0 is not None:
        e0 = arith.exact_in(e0, "--epsilon0", lo=0)
    if args.n is not None:
        n = arith.integer_in(args.n, "-n", lo=2)
    elif dep is not None:
        n = dep.n
    else:
        raise InvalidArgument("-n", None, "is required (the number of users, >= 2)")
    mech = None
    if e0 is not None or exp_e0 is not None:
        from blanket.exact.mechanisms.finite import KRR

        mech = KRR(k, epsilon0=e0) if e0 is not None else KRR(k, exp_epsilon0=exp_e0)
    elif need_mechanism:
        raise InvalidArgument("--epsilon0", None, "is required (the local epsilon0 of the randomizer, >= 0)")
    try:
        digits = int(args.digits)
    except (TypeError, ValueError):
        raise InvalidArgument("--digits", args.digits, "must be an integer between 3 and 60") from None
    if not 3 <= digits <= 60:
        raise InvalidArgument("--digits", args.digits, "must be an integer between 3 and 60")
    cap = arith.MAX_PREC
    if args.precision is not None:
        cap = arith.integer_in(args.precision, "--precision", lo=64, hi=1 << 16)
    from blanket.exact.numbers import guards
    from blanket.reports.commands._options import apply_max_memory

    apply_max_memory(args)
    if e0 is not None:
        guards.check_epsilon0(e0, "--epsilon0" if args.epsilon0 is not None else "randomizer.epsilon0")
    if exp_e0 is not None and arith.exact(exp_e0) > arith.exact(10) ** 200:
        raise InvalidArgument(
            "randomizer.exp_epsilon0", str(exp_e0), "must be at most 1e200 (epsilon0 <= 460, the supported range)"
        )
    if getattr(args, "bound", None) is None:  # a registered bound's closed form needs no memory linear in n
        guards.check_evaluation_memory(n, name="-n" if args.n is not None else "users.n")
    from blanket.exact.accounting.profiles import parse_dataset

    parse_dataset(args.dataset, n)
    workers, scheduler = executor_options(args)
    inp = Inputs(
        mech,
        k,
        e0,
        n,
        args.dataset.strip().lower().replace("neighbor", "neighbour"),
        digits=digits,
        cap=cap,
        source=dep.source if dep else None,
        workers=workers,
        scheduler=scheduler,
    )
    if quantity == "epsilon":
        eps = args.epsilon
        if eps is None and dep is not None and dep.claims:
            eps = dep.claims[0].epsilon
        if eps is None:
            raise InvalidArgument("--epsilon", None, "is required (the central epsilon, >= 0)")
        inp.epsilon = arith.exact_in(eps, "--epsilon", lo=0)
    else:
        d = args.delta
        if d is None and dep is not None:
            if dep.targets:
                d = dep.targets[0].delta
            elif dep.claims:
                d = dep.claims[0].delta
        if d is None:
            raise InvalidArgument("--delta", None, "is required (the target delta, 0 < delta < 1)")
        inp.delta = arith.exact_in(d, "--delta", lo=0, hi=1, lo_open=True, hi_open=True)
    return inp


# ---------------------------------------------------------------- registered bounds
def bound_result(args):
    """The registered :class:`proofs.core.Result` named by ``--bound``/``--variant``."""
    if args.variant is not None and args.bound is None:
        raise InvalidArgument("--variant", args.variant, "needs --bound LABEL")
    from blanket.exact.numbers.errors import BlanketError

    try:
        from blanket.proofs.core import get

        r = get(args.bound, args.variant)
    except BlanketError:
        raise
    except Exception as exc:  # a broken proofs module must not show a traceback to the user
        raise InvalidArgument(
            "--bound",
            args.bound,
            f"could not be looked up: the registry of results failed to load ({type(exc).__name__}: {exc})",
        ) from None
    if r.kind not in ("upper_bound", "lower_bound"):
        raise InvalidArgument("--bound", args.bound, f"is not a bound (it is a {r.kind}); pick an upper or lower bound")
    return r


def bound_params(result, inp: Inputs, **fixed) -> dict:
    """The CLI values named like the result's symbols (epsilon, epsilon0, n, k, delta), plus ``fixed``."""
    names = {s.name for s in result.symbols}
    quantity_syms = result._quantity_symbols() if hasattr(result, "_quantity_symbols") else set()
    available = {"epsilon0": inp.epsilon0, "n": inp.n, "k": inp.k, "epsilon": inp.epsilon, "delta": inp.delta}
    available.update(fixed)
    params = {}
    for name, val in available.items():
        if name in names and name not in quantity_syms and val is not None:
            params[name] = val if not isinstance(val, int) else arith.exact(val)
    return params


def evaluate_bound(result, params, cap):
    """The bound side at ``params`` with precision escalation until its relative width is ≤ 2^-40."""
    from flint import fmpq

    prec = arith.DEFAULT_PREC
    while True:
        with arith.precision(prec):
            v = result.bound(**params)
            if isinstance(v, fmpq) or (
                v.is_finite() and (v.rad() == 0 or (v.mid() != 0 and v.rad() <= abs(v.mid()) * fmpq(1, 2**40)))
            ):
                return v, prec
        if prec >= cap:
            if not v.is_finite():
                from blanket.exact.numbers.errors import Undecided

                raise Undecided(f"{result.key} could not be evaluated to a finite enclosure below {cap} bits")
            return v, prec
        prec = min(2 * prec, cap)


# ---------------------------------------------------------------- output
def direct_bound(result, inp: Inputs, *, command: str, quantity: str, given: tuple):
    """Evaluate a registered bound on ``quantity`` directly at the CLI's parameters.

    ``given = (name, value)`` is the command's input (``("epsilon", ε)`` for ``delta``).
    Returns ``(payload, params, value, prec, side, where)``: the JSON payload, the parameters
    passed, the enclosure, the precision used, ``"upper"``/``"lower"``, and the parameter list
    as text for the human-readable output.
    """
    params = bound_params(result, inp)
    v, prec = evaluate_bound(result, params, inp.cap)
    side = "upper" if result.kind == "upper_bound" else "lower"
    payload = {
        "command": command,
        **inp.describe(bound=True),
        given[0]: _s(given[1]),
        "bound": result.key,
        "status": result.status,
        quantity: interval(v, inp.digits),
        "relation": side,
        "parameters": {k: _s(val) for k, val in params.items()},
        "precision_bits": prec,
    }
    where = ", ".join(f"{k} = {_s(val)}" for k, val in params.items())
    return payload, params, v, prec, side, where


def interval(x, digits, *, nonneg: bool = True) -> dict:
    """Outward-rounded decimal interval; with ``nonneg`` (δ and ε are ≥ 0 by definition) a lower end below 0 —
    which arb's midpoint-radius form produces for an interval [0, u] — is printed as 0, and the key
    ``lower_clamped`` states that reason (:data:`exact.numbers.arith.NONNEG_REASON`)."""
    return arith.nonneg_interval(x, digits) if nonneg else arith.decimal_interval(x, digits)


def bracket_payload(lower_name, lower_value, upper_name, upper_value, rel_width, digits) -> dict:
    """The two ends of a certified bracket, each with the bound it comes from, and its relative width."""
    from blanket.exact.numbers import arith as _a

    return {
        "lower": {"value": lower_value, "from": lower_name, "kind": "lower bound (a concrete dataset)"},
        "upper": {"value": upper_value, "from": upper_name, "kind": "upper bound (every dataset)"},
        "relative_width": _a.decimal_string(_a.exact(rel_width), 3, up=True),
    }


def show(x, digits) -> str:
    iv = interval(x, digits)
    return iv["lower"] if iv["lower"] == iv["upper"] else f"[{iv['lower']}, {iv['upper']}]"


def emit(args, payload: dict, text: str) -> None:
    if args.json:
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text.rstrip() + "\n")


def mechanism_phrase(inp: Inputs) -> str:
    if inp.mechanism is None:
        return f"k = {inp.k}"
    e0 = _s(inp.epsilon0) if inp.epsilon0 is not None else f"log({inp.mechanism.exp_epsilon0()})"
    name = "binary randomized response" if inp.k == 2 else f"{inp.k}-ary randomized response"
    return f"{name} with local epsilon0 = {e0}"
