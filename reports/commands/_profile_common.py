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
from typing import TYPE_CHECKING

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

if TYPE_CHECKING:
    import argparse
    from typing import Any

    from blanket.exact.accounting.query import Query
    from blanket.exact.mechanisms.finite import Randomizer
    from blanket.exact.numbers.types import NumberOrBall
    from blanket.proofs.core import Result
    from blanket.reports.deployment import Deployment
    from flint import fmpq

DATASET_HELP = (
    "which neighbouring datasets. EXACT: worst (the maximum over all datasets for k = 2; for k > 2 the "
    "certified bracket). BRACKET: bracket (certified [concrete dataset, blanket view] containing the worst "
    "case, in seconds). LOWER bounds on the protocol's value (one pair of datasets): c=INT (INT ones among "
    "the other n-1 users; k = 2), same, neighbour, third (k-RR families). UPPER bound: blanket (Lemma 5.3 "
    "blanket view, every dataset). Default worst"
)


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """``--workers N`` and ``--scheduler ADDRESS``: where the exact worst-case sweep runs (exact.runtime.executors)."""
    for opt, metavar, text in (
        (
            "--workers",
            "N",
            "local processes for the exact worst case over all datasets (default: every core; 1 = no pool)",
        ),
        (
            "--scheduler",
            "ADDRESS",
            "run the worst-case sweep on a Dask cluster, e.g. tcp://10.0.0.5:8786 (default: $BLANKET_SCHEDULER; "
            "needs pip install 'blanket[dask]')",
        ),
    ):
        p.add_argument(opt, default=None, metavar=metavar, help=text)


def executor_options(args: argparse.Namespace) -> tuple:
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


def add_common_arguments(p: argparse.ArgumentParser, quantity: str) -> None:
    """Arguments shared by both commands; ``quantity`` is the input the command takes (``epsilon``/``delta``)."""
    p.add_argument(
        "--mechanism",
        type=mechanism_word,
        default=None,
        metavar="KIND",
        help="local randomizer: rr (randomized response: binary, or k-ary with --k), krr (--k required), "
        "ldp (any epsilon0-LDP randomizer), oue/sue/hadamard (--k), olh (--k, --g), subset (--k, --d), "
        "geometric (--m), laplace (--epsilon0 or --scale), gaussian (--sigma); the words of deployment files "
        "(docs/auditor.md)",
    )
    p.add_argument(
        "--k", default=None, metavar="K", help="alphabet size (k-ary RR, frequency oracles; >= 2; default 2 with rr)"
    )
    for opt, text in (
        ("--g", "hash range of olh (>= 2)"),
        ("--d", "subset size of subset selection (1 <= d < k)"),
        ("--m", "input range of the geometric mechanism (>= 2)"),
        ("--alpha", "geometric: the exact ratio alpha in (0, 1) instead of --epsilon0"),
        ("--collision", "olh: the hash family's pair-collision probability (default 1/g)"),
        ("--constant", "olh: the probability that the hash is constant (default 0)"),
        ("--sigma", "gaussian: the noise's standard deviation (> 0; inputs in [0, 1])"),
        ("--scale", "laplace: the noise scale b = 1/epsilon0 instead of --epsilon0 (inputs in [0, 1])"),
    ):
        p.add_argument(opt, default=None, metavar=opt[2:].upper(), help=text)
    p.add_argument(
        "--same-randomizer",
        action="store_true",
        help="ldp only: state that every user runs one and the same epsilon0-LDP randomizer, fixed before the round "
        "(as same_randomizer = true in a deployment; the value is Lemma G1's either way, docs/mechanisms.md)",
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
        "--allow-path",
        action="append",
        default=[],
        metavar="DIR",
        help="also accept a matrix_file of --deployment FILE under DIR (by default only files under the deployment "
        "file's directory are read)",
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
    from blanket.reports.commands._options import add_curves, add_max_memory, add_precision, add_time_budget

    add_precision(p, old="--max-prec")
    add_max_memory(p)
    add_time_budget(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (inputs and the certified interval)")
    add_executor_arguments(p)
    p.add_argument(
        "--rounds",
        default=None,
        metavar="T",
        help="T composed shuffled rounds (certified composition of dominating pairs; see docs/composition.md)",
    )
    add_curves(p)
    p.add_argument(
        "--refine-seconds",
        default=None,
        metavar="SECONDS",
        help="with --rounds: the modelled one-core seconds a certified bracket wider than 2 %% may spend on finer "
        "grids (default: twice the query's estimate, at least 10 s; 0: none); the answer says when it stopped short",
    )
    p.add_argument(
        "--sampling",
        default=None,
        metavar="Q",
        help="each user takes part in each round with probability Q (0 < Q <= 1; the number of reports is seen), "
        "as sampling in a deployment; composed as --rounds (1 round by default)",
    )
    p.add_argument(
        "--colluding",
        default=None,
        metavar="M",
        help="M users (or a fraction, e.g. 0.01) reveal their values and randomness; the answer rests on the "
        "others, as colluding in a deployment; composed as --rounds (1 round by default)",
    )
    default, text = REL_TOL[quantity]
    p.add_argument("--rel-tol", default=default, metavar="R", help=text)
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="also draw the privacy curve (delta(epsilon) certified upper and lower, the registered bounds, the "
        "answer marked; for --rounds epsilon against rounds) into the PNG file FILE",
    )


#: ``--rel-tol`` (default, help) by the input quantity: ``blanket delta`` (given epsilon) narrows an enclosure of
#: δ, ``blanket epsilon`` (given delta) a bracket of ε
REL_TOL = {
    "epsilon": (
        None,
        "relative width of the certified enclosure: precision escalates until rad/|mid| <= R, "
        "up to --precision (default 2^-40 ~ 9.1e-13)",
    ),
    "delta": ("1e-6", "relative width of the certified bracket (default 1e-6)"),
}


def rel_tol(args: argparse.Namespace) -> fmpq:
    """``--rel-tol`` validated: an exact rational in (0, 0.5]."""
    return arith.exact_in(args.rel_tol, "--rel-tol", lo=0, hi="0.5", lo_open=True)


@dataclass
class Inputs:
    """Validated inputs of one run."""

    mechanism: Randomizer | None  # a randomizer record (exact.mechanisms), or None (only with --bound)
    k: int | None
    epsilon0: fmpq | None
    n: int
    dataset: str
    epsilon: fmpq | None = None
    delta: fmpq | None = None
    digits: int = 10
    cap: int = arith.MAX_PREC
    source: str | None = None
    extra: dict = field(default_factory=dict)
    workers: int | None = None
    scheduler: str | None = None
    query: Query | None = None  # the validated query

    @property
    def oracle(self) -> bool:
        """Whether the randomizer is a closed-form record of exact/mechanisms/oracles.py."""
        from blanket.exact.mechanisms import registry

        return self.query is not None and self.query.kind in registry.ORACLE_KINDS

    def describe(self, bound: bool = False) -> dict:
        if self.query is not None and self.query.kind.value in DEPLOYMENT_ONLY_KINDS:  # a matrix: its shape
            m = self.query.params["matrix"]
            d = {"mechanism": "matrix", "matrix": f"{len(m)} x {len(m[0])}", "n": self.n}
            d.update({k: v for k, v in self.query.params.items() if k in ("same_randomizer", "stronger_clones")})
        elif self.oracle and self.query is not None:
            d = {
                "mechanism": self.query.kind.value,
                **{k: _s(v) if not isinstance(v, int) else v for k, v in self.query.params.items()},
                "n": self.n,
            }
        else:
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
    from blanket.reports.numtext import exact_string

    return exact_string(q)


#: the words ``blanket delta|epsilon`` accept: every kind with a certified shuffled route
CLI_KINDS = ("krr", "binary_rr", "ldp", "oue", "sue", "olh", "hadamard", "subset", "geometric")
#: the kinds ``blanket delta|epsilon`` take from a deployment file only (a matrix has no command-line spelling):
#: one round is the certificate's bracket (reports/commands/_matrix.py), ``--rounds T`` the accountant's
DEPLOYMENT_ONLY_KINDS = ("matrix",)
#: the continuous randomizers, routed to reports/commands/_continuous.py (the blanket view's enclosure)
CONTINUOUS_KINDS = ("laplace", "gaussian")
#: the mechanism keys the command line takes, and their option names
_CLI_KEYS = ("k", "g", "d", "m", "alpha", "collision", "constant")


def mechanism_word(word: str) -> str:
    """``--mechanism``: a word of the one vocabulary (:mod:`exact.mechanisms.registry`) with a shuffled route."""
    import argparse

    from blanket.exact.mechanisms import registry

    try:
        kind = registry.resolve(word, name="--mechanism", k="3" if str(word).strip().lower() == "rr" else None)
    except InvalidArgument as exc:
        # argparse prefixes "argument --mechanism: " itself
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--mechanism ")) from None
    if kind.value in CONTINUOUS_KINDS:
        return kind.value
    if kind.value not in CLI_KINDS:
        raise argparse.ArgumentTypeError(
            f"--mechanism {word} has no certified shuffled route in blanket delta/epsilon; "
            f"choose one of rr, {', '.join(CLI_KINDS)} (a deployment file can still name it for certify)"
        )
    return "rr" if str(word).strip().lower() == "rr" else kind.value


def check_same_randomizer_flag(word: str, k: int | str | None = None) -> None:
    """``--same-randomizer`` applies to ``--mechanism ldp`` only (a matrix randomizer states it in a deployment file;
    k-RR and the frequency oracles are one stated randomizer already, with their own tighter views): refused by name
    otherwise.  O(1)."""
    from blanket.exact.mechanisms import registry

    kind = registry.resolve(word, name="--mechanism", k=k)
    if kind != registry.Kind.LDP:
        raise InvalidArgument(
            "--same-randomizer",
            None,  # a flag: no value to echo
            f"applies to --mechanism ldp only, not {word} (a stated k-RR, frequency oracle or continuous randomizer is "
            "one randomizer already, with its own tighter bound)",
            hint="drop --same-randomizer",
        )


def allow_paths(args: argparse.Namespace) -> list:
    """``--allow-path DIR`` (repeatable): the directories a deployment's ``matrix_file`` may also lie under.  O(1)."""
    return list(getattr(args, "allow_path", None) or [])


def quantity_command(quantity: str) -> str:
    """The command whose input is ``quantity``: ``blanket delta`` takes ε, ``blanket epsilon`` takes δ.  O(1)."""
    return "delta" if quantity == "epsilon" else "epsilon"


def cli_name(key: str) -> str:
    """How the command line spells a query key in error messages."""
    return {"n": "-n", "exp_epsilon0": "randomizer.exp_epsilon0"}.get(key, "--" + key.replace("_", "-"))


def load_cli_deployment(args: argparse.Namespace) -> Deployment:
    """``--deployment FILE`` of ``blanket delta`` / ``blanket epsilon``: a file without ``[[claims]]`` or
    ``[[targets]]`` is accepted when the command line gives what to compute (``--epsilon`` or ``--delta``); without
    either, the file's refusal stands ("claims must hold at least one …").  O(size of the file)."""
    from blanket.reports.deployment import load_deployment

    given = getattr(args, "epsilon", None) is not None or getattr(args, "delta", None) is not None
    return load_deployment(args.deployment, allow_paths=allow_paths(args), claims_required=not given)


def take_file_colluding(args: argparse.Namespace, dep: Deployment) -> None:
    """A one-randomizer file's ``colluding`` users (``[users] colluding``) for ``blanket delta|epsilon
    --deployment``: with a ``[[rounds]]`` schedule (or ``sampling`` in ``[users]``) each round already rests on the
    honest users (the file's rounds carry them); without one the file is the ``--colluding M`` query (one composed
    round of the honest users, Lemma F3), as ``blanket certify`` reads it; ``--colluding`` given on the command line
    takes its place.  Before session 15 such a file was refused ("use blanket certify for a mixed fleet").  O(1)."""
    if not dep.colluding or dep.rounds or getattr(args, "colluding", None) is not None:
        return
    if dep.n - dep.colluding < 2:
        raise InvalidArgument(
            "users.colluding",
            dep.colluding,
            f"must leave at least 2 honest users of {dep.n} for blanket delta/epsilon",
            hint=f"use `blanket certify {args.deployment}`",
        )
    args.colluding = str(dep.colluding)
    args.colluding_from_file = True  # error messages name the file, not --colluding (_compose._composed_by)


def read_inputs(args: argparse.Namespace, quantity: str, *, need_mechanism: bool) -> Inputs:
    """Combine the deployment file (if any) and the options into one validated query
    (:func:`blanket.exact.accounting.query.make_query`; errors name the option)."""
    from blanket.exact.accounting.query import make_query
    from blanket.exact.mechanisms import registry

    dep: Deployment | None = None
    if args.deployment:
        dep = load_cli_deployment(args)
        if dep.groups:
            raise InvalidArgument(
                "--deployment",
                args.deployment,
                "has [[users]] groups; blanket delta/epsilon take one randomizer",
                hint="use `blanket certify` for a mixed fleet",
            )
        take_file_colluding(args, dep)
        if dep.mechanism not in CLI_KINDS + DEPLOYMENT_ONLY_KINDS:
            raise InvalidArgument(
                "--deployment",
                args.deployment,
                f"describes a {dep.mechanism} randomizer; blanket {quantity_command(quantity)} handles "
                f"{', '.join(CLI_KINDS + DEPLOYMENT_ONLY_KINDS)}",
                hint=f"use `blanket certify {args.deployment}`",
            )
    word = args.mechanism or (dep.mechanism if dep is not None else "rr")
    table: dict = {}
    same_kind = dep is not None and (
        args.mechanism is None
        or registry.resolve(args.mechanism, k=args.k or dep.params.get("k")).value == dep.mechanism
    )
    if same_kind and dep is not None:
        table.update(dep.params)
    cli = {key: getattr(args, key, None) for key in _CLI_KEYS}
    cli["epsilon0"] = args.epsilon0
    cli = {key: v for key, v in cli.items() if v is not None}
    if "epsilon0" in cli or "alpha" in cli:
        for key in ("epsilon0", "exp_epsilon0", "exp_half_epsilon0", "alpha"):
            table.pop(key, None)
    table.update(cli)
    if getattr(args, "same_randomizer", False):
        check_same_randomizer_flag(word, k=table.get("k"))
        table["same_randomizer"] = True
    if word == "rr" and "k" not in table:
        table["k"] = 2

    def name(key):
        if dep is not None and key not in cli and key in (dep.params if same_kind else {}):
            return f"randomizer.{key}"
        return cli_name(key)

    n = args.n if args.n is not None else (dep.n if dep is not None else None)
    if quantity == "epsilon":
        eps = args.epsilon
        if eps is None and dep is not None and dep.claims:
            eps = dep.claims[0].epsilon
        given = {"epsilon": eps}
    else:
        d = args.delta
        if d is None and dep is not None:
            if dep.targets:
                d = dep.targets[0].delta
            elif dep.claims:
                d = dep.claims[0].delta
        given = {"delta": d}
    if (
        need_mechanism
        and "matrix" not in table  # a matrix implies its epsilon0
        and not any(key in table for key in ("epsilon0", "exp_epsilon0", "exp_half_epsilon0", "alpha"))
    ):
        raise InvalidArgument("--epsilon0", None, "is required (the local epsilon0 of the randomizer, >= 0)")
    q = make_query(
        mechanism=word,
        n=n,
        dataset=args.dataset,
        name=name,
        need_mechanism=need_mechanism,
        require=(quantity,),
        **given,
        **table,
    )
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
    if getattr(args, "bound", None) is None:  # a resource guard: memory O(sqrt n) per certified evaluation
        guards.check_evaluation_memory(q.n, name="-n" if args.n is not None else "users.n")
    workers, scheduler = executor_options(args)
    return Inputs(
        q.mechanism,
        q.k,
        q.epsilon0,
        q.n,
        q.dataset,
        epsilon=q.epsilon,
        delta=q.delta,
        digits=digits,
        cap=cap,
        source=dep.source if dep else None,
        workers=workers,
        scheduler=scheduler,
        query=q,
    )


# ---------------------------------------------------------------- registered bounds
def bound_result(args: argparse.Namespace) -> Result:
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


def bound_params(result: Result, inp: Inputs, **fixed: Any) -> dict:
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


def evaluate_bound(result: Result, params: dict, cap: int) -> tuple:
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
#: per command: the phrase before a directly evaluated bound's parameters, and the closing line
#: (formatted with ``prec``, the bits used, and ``side``, ``"upper"``/``"lower"``)
_DIRECT_BOUND_TEXT = {
    "delta": (
        "evaluated at",
        "The value is the bound's right-hand side, enclosed in ball arithmetic at {prec} bits (outward rounded); "
        "it is an {side} bound on delta only as far as the paper's statement is right (see `blanket check-papers`).",
    ),
    "epsilon": ("at", "(the bound's right-hand side in ball arithmetic at {prec} bits, outward rounded)"),
}


def emit_direct_bound(args: argparse.Namespace, result: Result, inp: Inputs, quantity: str) -> int:
    """``blanket delta|epsilon --bound``: evaluate a registered bound on ``quantity`` (``"delta"``/``"epsilon"``,
    also the command's name) directly at the CLI's parameters and print it; returns the exit code 0.

    The command's input is the other quantity.  The text names the result, the parameters, the value with its
    side (``<=`` for an upper bound) and the precision; the JSON payload holds the inputs, the interval and the
    parameters.
    """
    given = ("epsilon", inp.epsilon) if quantity == "delta" else ("delta", inp.delta)
    at, footer = _DIRECT_BOUND_TEXT[quantity]
    params = bound_params(result, inp)
    v, prec = evaluate_bound(result, params, inp.cap)
    side = "upper" if result.kind == "upper_bound" else "lower"
    payload = {
        "command": quantity,
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
    text = (
        f"{result.key} ({result.title}; status: {result.status}) {at} {where}:\n"
        f"  {quantity} {'<=' if side == 'upper' else '>='} {show(v, inp.digits)}\n"
        + footer.format(prec=prec, side=side)
    )
    emit(args, payload, text)
    return 0


def interval(x: NumberOrBall, digits: int, *, nonneg: bool = True) -> dict:
    """Outward-rounded decimal interval; with ``nonneg`` (δ and ε are ≥ 0 by definition) a lower end below 0 —
    which arb's midpoint-radius form produces for an interval [0, u] — is printed as 0, and the key
    ``lower_clamped`` states that reason (:data:`exact.numbers.arith.NONNEG_REASON`)."""
    return arith.nonneg_interval(x, digits) if nonneg else arith.decimal_interval(x, digits)


#: why a δ upper end above 1 is printed as 1 (:func:`delta_interval`)
DELTA_AT_MOST_ONE = (
    "delta <= 1 always (a hockey-stick divergence of probability laws): an upper end above 1 is printed as 1"
)


def delta_interval(x: NumberOrBall, digits: int) -> dict:
    """:func:`interval` of a δ: an upper end above 1 (a bound's ball around a value near 1, e.g. the geometric
    mechanism's clone pair at α = 1e-50: "1.000000001") is printed as ``"1"``, with the key ``upper_clamped``
    stating why (:data:`DELTA_AT_MOST_ONE`: δ ≤ 1 for every mechanism, so 1 is itself a certified upper end).  An
    upper end at most 1 is unchanged.  O(digits)."""
    iv = interval(x, digits)
    # float() only to compare with 1 (rounding is monotone and 1 is a float, so fl(u) > 1 implies u > 1); parsing the
    # string exactly would refuse an end like 2.97e-315653 (arith's decimal-exponent limit): CI found it
    if float(iv["upper"]) > 1:
        iv["upper"] = "1"
        iv["upper_clamped"] = DELTA_AT_MOST_ONE
    return iv


def bracket_payload(
    lower_name: str,
    lower_value: NumberOrBall,
    upper_name: str,
    upper_value: NumberOrBall,
    rel_width: NumberOrBall | None,
    digits: int,
) -> dict:
    """The two ends of a certified bracket, each with the bound it comes from, and its relative width."""
    from blanket.exact.numbers import arith as _a

    return {
        "lower": {"value": lower_value, "from": lower_name, "kind": "lower bound (a concrete dataset)"},
        "upper": {"value": upper_value, "from": upper_name, "kind": "upper bound (every dataset)"},
        "relative_width": _a.decimal_string(_a.exact(rel_width), 3, up=True),
    }


def show(x: NumberOrBall, digits: int) -> str:
    iv = interval(x, digits)
    return iv["lower"] if iv["lower"] == iv["upper"] else f"[{iv['lower']}, {iv['upper']}]"


#: the attribute of ``args`` that keeps the printed payload for ``--plot`` (reports/commands/_plot.py)
PAYLOAD = "_plot_payload"


def emit(args: argparse.Namespace, payload: dict, text: str) -> None:
    """Print the answer (``--json``: the payload); the payload is kept on ``args`` for ``--plot``."""
    setattr(args, PAYLOAD, payload)
    if args.json:
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text.rstrip() + "\n")


def mechanism_phrase(inp: Inputs) -> str:
    if inp.query is not None and inp.query.kind.value in DEPLOYMENT_ONLY_KINDS:
        return matrix_phrase(inp)
    if inp.oracle and inp.query is not None:
        from blanket.exact.mechanisms import registry

        sch = registry.SCHEMAS[inp.query.kind]
        ps = ", ".join(f"{k} = {_s(v) if not isinstance(v, int) else v}" for k, v in inp.query.params.items())
        return f"{sch.title} with {ps}"
    if inp.mechanism is None:
        return f"k = {inp.k}"
    e0 = _s(inp.epsilon0) if inp.epsilon0 is not None else f"log({inp.mechanism.exp_epsilon0()})"
    name = "binary randomized response" if inp.k == 2 else f"{inp.k}-ary randomized response"
    return f"{name} with local epsilon0 = {e0}"


def matrix_phrase(inp: Inputs) -> str:
    """The randomizer in words: ``the finite randomizer given by an exact 3 x 3 matrix (matrix.toml)``.  O(1)."""
    q = inp.query
    assert q is not None
    m = q.params["matrix"]
    extra = []
    if q.params.get("same_randomizer"):
        extra.append("run by every user, same_randomizer = true")
    if q.params.get("stronger_clones"):
        extra.append("stronger_clones = true")
    return (
        f"the finite randomizer given by an exact {len(m)} x {len(m[0])} matrix"
        + (f" ({'; '.join(extra)})" if extra else "")
        + (f" of {inp.source}" if inp.source else "")
    )
