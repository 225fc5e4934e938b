"""``blanket delta|epsilon --mechanism laplace|gaussian``: the certified blanket view of the continuous randomizers.

The upper end is the exact blanket view of Balle et al. Lemma 5.3 (an upper bound on the shuffled mechanism's
δ for every dataset), enclosed by :mod:`blanket.exact.shuffled.continuous`; the lower end of the printed bracket
(``delta``/``epsilon`` with ``relation: "bracket"``) is the mechanism's own: the exact δ of the datasets 0^n vs
1 0^(n−1) (the lower side of its lattice enclosure, :mod:`blanket.exact.shuffled.continuous_dataset`); the blanket
view's own enclosure (``blanket_view_delta``/``blanket_view_epsilon``) bounds the blanket view, not the mechanism.
Over ``--rounds T`` the T-fold product of a pair that those
datasets dominate (certified lines below their whole curve; docs/reference/blanket.md §4).  The Gaussian mechanism
is not ε0-LDP: ``--epsilon0`` and ``--bound`` are refused for it by name.

``--rounds T`` composes T rounds with the accountant (:class:`blanket.exact.accounting.continuous_rounds.ShuffledContinuous`:
the pair of the hull of certified blanket-view values, docs/composition.md §5d); ``--plot FILE`` draws the privacy
curve (single round: the certificate's sources; composed: the accountant's).

``--deployment FILE`` (:func:`deployment_of`): a file whose ``[randomizer]`` is Laplace/Gaussian gives the
mechanism, n and ε (first claim) or δ (first target, else first claim), the options overriding it; a file whose
``[[rounds]]`` schedule has a Laplace/Gaussian round is answered for the whole schedule (``--rounds T`` repeats it
T times; its k-RR rounds compose alongside), and the options that fix a round are refused.  The composed upper end
rests on the worst-pair assumption (0, 1) of the blanket view (docs/reference/blanket.md §4), said in the output.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from blanket.reports.commands import _plot
from blanket.reports.commands import _profile_common as common

if TYPE_CHECKING:
    import argparse

    from blanket.reports.deployment import Deployment

#: the --mechanism words routed here
WORDS = ("laplace", "gaussian")


#: what the composed upper end assumes when a Gaussian round is in it (said in every composed answer)
ASSUMPTION = (
    "the blanket view of each Laplace/Gaussian round is computed for the inputs (0, 1), assumed to be the worst "
    "pair for the Gaussian rounds (a certified grid search, not a proof) and proved the worst pair for the Laplace "
    "rounds (docs/reference/blanket.md section 4)"
)
#: the same sentence when every continuous round is Laplace
ASSUMPTION_LAPLACE = (
    "the blanket view of each Laplace round is computed for the inputs (0, 1), proved to be the worst pair "
    "(L_{x,x'} <=_cx L_{0,1}; docs/reference/blanket.md section 4, proofs/continuous_worst_pair.py)"
)


def _one_round(kind: str) -> str:
    """The worst-pair sentence of one round of the mechanism ``kind``.  O(1)."""
    from blanket.reports.continuous_certificate import worst_pair

    return worst_pair(kind).split("; the lower ends")[0]


def _assumption(kinds: set) -> str:
    """The worst-pair sentence for composed rounds of the mechanisms ``kinds`` ("laplace", "gaussian").  O(1)."""
    return ASSUMPTION_LAPLACE if kinds == {"laplace"} else ASSUMPTION


def deployment_of(args: argparse.Namespace) -> Deployment | None:
    """The deployment of ``--deployment FILE`` when this route answers it (its ``[randomizer]`` is Laplace or
    Gaussian, or its ``[[rounds]]`` has such a round), else ``None``.  O(size of the file)."""
    path = getattr(args, "deployment", None)
    if not path:
        return None
    from blanket.reports.deployment import ContinuousRound

    dep = common.load_cli_deployment(args)
    if dep.mechanism in WORDS or any(isinstance(r, ContinuousRound) for r in dep.rounds):
        return dep
    return None


def _from_deployment(args: argparse.Namespace, dep, quantity: str) -> None:
    """Fill the options the command line left out from a single-randomizer deployment (mechanism, its parameter,
    n, ε or δ), as ``read_inputs`` does for the other randomizers; the options override the file."""
    from blanket.exact.numbers.errors import InvalidArgument

    if args.mechanism is not None and args.mechanism != dep.mechanism:
        raise InvalidArgument(
            "--mechanism",
            args.mechanism,
            f"differs from the {dep.mechanism} randomizer of {args.deployment}",
            hint="drop --mechanism, or give all options without --deployment",
        )
    if dep.groups or dep.colluding:
        raise InvalidArgument(
            "--deployment", args.deployment, "has colluding users; blanket delta/epsilon take every user as honest"
        )
    args.mechanism = dep.mechanism
    own = ("epsilon0", "scale") if dep.mechanism == "laplace" else ("sigma",)
    from blanket.reports.numtext import exact_string

    if all(getattr(args, key, None) is None for key in own):
        for key, v in dep.params.items():
            setattr(args, key, exact_string(v))
    if args.n is None:
        args.n = str(dep.n)
    if quantity == "epsilon" and args.delta is None:
        d = dep.targets[0].delta if dep.targets else dep.claims[0].delta if dep.claims else None
        args.delta = None if d is None else exact_string(d)
    if quantity == "delta" and args.epsilon is None and dep.claims:
        args.epsilon = exact_string(dep.claims[0].epsilon)


def _record(args: argparse.Namespace):
    from blanket.exact.mechanisms.continuous import Gaussian, Laplace
    from blanket.exact.numbers.errors import InvalidArgument

    for opt in ("k", "g", "d", "m", "alpha", "collision", "constant"):
        if getattr(args, opt, None) is not None:
            raise InvalidArgument("--" + opt, getattr(args, opt), f"does not apply to --mechanism {args.mechanism}")
    if args.mechanism == "gaussian":
        if args.epsilon0 is not None or getattr(args, "scale", None) is not None:
            raise InvalidArgument(
                "--epsilon0" if args.epsilon0 is not None else "--scale",
                args.epsilon0 if args.epsilon0 is not None else args.scale,
                "does not apply: the Gaussian mechanism is not epsilon0-LDP for any epsilon0; give --sigma",
            )
        if getattr(args, "sigma", None) is None:
            raise InvalidArgument(
                "--sigma", None, "is required for --mechanism gaussian (the noise's standard deviation, > 0)"
            )
        return Gaussian(args.sigma)
    if getattr(args, "sigma", None) is not None:
        raise InvalidArgument(
            "--sigma", args.sigma, "applies to --mechanism gaussian; the Laplace mechanism takes --epsilon0 or --scale"
        )
    if args.epsilon0 is None and getattr(args, "scale", None) is None:
        raise InvalidArgument("--epsilon0", None, "is required for --mechanism laplace (or --scale = 1/epsilon0)")
    return Laplace(args.epsilon0, scale=getattr(args, "scale", None))


def _lattice(n: int):
    from flint import fmpq

    return fmpq(1, 64) if n <= 10**5 else fmpq(1, 16)


def _bracket_lattice(mech, n: int):
    """The lattice step of ``blanket epsilon``'s bracket: the blanket view's ε to about 1e-3 relative (n <= 10^5)
    or 1e-2 (beyond), measured with the atom-aligned steps of :func:`blanket.exact.shuffled.continuous.aligned_step`
    (tests/benchmarks/bench_continuous.py)."""
    from blanket.exact.mechanisms.continuous import Laplace
    from flint import fmpq

    if n > 10**5:
        return fmpq(1, 8)
    return fmpq(1, 32) if isinstance(mech, Laplace) else fmpq(1, 16)


def run(args: argparse.Namespace, quantity: str) -> int:
    """Run ``blanket delta`` (``quantity = "delta"``) or ``blanket epsilon`` for a continuous randomizer."""
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.exact.shuffled.continuous import blanket_view, epsilon_bracket, quantised_epsilon_lower
    from flint import fmpq

    dep = deployment_of(args)
    if dep is not None and dep.rounds:
        return _run_schedule(args, dep, quantity)
    if dep is not None:
        _from_deployment(args, dep, quantity)
    from blanket.reports.commands._compose import _sampled

    for opt in ("sampling", "colluding"):  # no sampled or colluding route here: refuse rather than ignore (tryout11)
        v = getattr(args, opt, None)
        if v is not None and (opt == "colluding" or _sampled(args)):  # --sampling 1: the plain round
            raise InvalidArgument(
                "--" + opt,
                v,
                f"is not supported for --mechanism {args.mechanism} (no sampled or colluding pair for the continuous "
                "randomizers)",
                hint="drop the option; with colluding users, give -n as the number of honest users",
            )
    if args.bound is not None or args.variant is not None:
        if args.mechanism == "gaussian":
            raise InvalidArgument(
                "--bound",
                args.bound,
                "needs epsilon0, and the Gaussian mechanism is not epsilon0-LDP (its blanket view is certified without --bound)",
            )
        return -1  # the caller runs the bound
    mech = _record(args)
    if args.n is None:
        raise InvalidArgument("-n", None, "is required (the number of users, >= 2)")
    n = arith.integer_in(args.n, "-n", lo=2)
    digits = int(args.digits)
    h = _lattice(n)
    if args.dataset != "worst":
        raise InvalidArgument(
            "--dataset",
            args.dataset,
            f"must be 'worst' for --mechanism {args.mechanism} (the blanket view holds for every dataset)",
        )
    if getattr(args, "plot", None) is not None:
        _plot.check(args)  # a bad --plot FILE is refused before anything is computed
    if getattr(args, "rounds", None) is not None:
        return _run_rounds(args, mech, n, quantity, arith.integer_in(args.rounds, "--rounds", lo=1, hi=10**7))
    t0 = time.monotonic()
    desc = {**mech.describe(), "n": n, "pair": "(0, 1)", "lattice_step": str(h)}
    if dep is not None:
        desc["deployment"] = dep.source
    if quantity == "epsilon":
        if args.delta is None:
            raise InvalidArgument("--delta", None, "is required (the target delta, 0 < D < 1)")
        delta = arith.exact_in(args.delta, "--delta", lo=0, hi=1, lo_open=True, hi_open=True)
        # the lattice's own width limits the bracket: stop at 1e-3 (n <= 10^5) or 1e-2 (coarser lattice) at the finest
        floor = 1e-3 if n <= 10**5 else 1e-2
        h = _bracket_lattice(mech, n)
        desc["lattice_step"] = str(h)
        br = epsilon_bracket(mech, n, delta, h=h, rel_tol=max(float(common.rel_tol(args)), floor))
        lo = arith.decimal_string(br.lo, digits, up=False)
        hi = arith.decimal_string(br.hi, digits, up=True)
        from blanket.exact.shuffled.continuous_dataset import dataset_epsilon_lower

        q_th = quantised_epsilon_lower(mech, n, delta)
        q_ds = dataset_epsilon_lower(mech, n, delta, h=fmpq(1, 32) if n <= 10**5 else fmpq(1, 16))
        lower_from = (
            "the mechanism's exact delta on the datasets 0^n vs 1 0^(n-1) (lower side of its lattice enclosure)"
            if q_ds > q_th
            else "quantised outputs (threshold 1/2): exact shuffled binary RR, datasets 0^n vs 1 0^(n-1)"
        )
        qlo = arith.decimal_string(max(q_th, q_ds), digits, up=False)
        payload = {
            "command": "epsilon",
            **desc,
            "delta": str(args.delta),
            "epsilon": {"lower": qlo, "upper": hi},
            "relation": "bracket",
            "bracket": {
                "lower": {"from": lower_from, "value": qlo},
                "upper": {"from": "blanket view (Lemma 5.3), pair (0, 1)", "value": hi},
            },
            "blanket_view_epsilon": {"lower": lo, "upper": hi},
            "certified": "blanket view delta_BV(epsilon.upper) <= target is proven; delta_BV(epsilon.lower) > target is proven",
            "evaluations": br.evaluations,
            "assumption": _one_round(mech.kind),
        }
        text = (
            f"epsilon = {hi} (certified upper end: the blanket view of Lemma 5.3 is <= delta = {args.delta} there)\n"
            f"for the {mech.kind} mechanism on [0, 1] ({', '.join(f'{k} = {v}' for k, v in mech.describe().items() if k != 'type')}), "
            f"shuffled among n = {n} users, every dataset ({_one_round(mech.kind)}).\n"
            f"Certified bracket of the mechanism's epsilon: [{qlo}, {hi}] — lower end: {lower_from} "
            f"(delta exceeds the target there); upper end: the blanket view.\n"
            f"The blanket view's own epsilon lies in [{lo}, {hi}] (relative width {br.rel_width():.2e}; "
            f"{br.evaluations} enclosures, lattice step {h}, {time.monotonic() - t0:.1f} s)."
        )
    else:
        if args.epsilon is None:
            raise InvalidArgument("--epsilon", None, "is required (the central epsilon, >= 0)")
        eps = arith.exact_in(args.epsilon, "--epsilon", lo=0)
        v = blanket_view(mech, n, epsilon=eps, h=h)
        lo = arith.decimal_string(v.lower, digits, up=False)
        hi = arith.decimal_string(v.upper, digits, up=True)
        own, own_from = _own_delta_lower(mech, n, eps)
        mlo = arith.decimal_string(own, digits, up=False)
        payload = {
            "command": "delta",
            **desc,
            "epsilon": str(args.epsilon),
            "delta": {"lower": mlo, "upper": hi},
            "relation": "bracket",
            "bracket": {
                "lower": {"value": mlo, "from": own_from, "kind": "lower bound (a concrete pair of datasets)"},
                "upper": {
                    "value": hi,
                    "from": "blanket view (Lemma 5.3), pair (0, 1)",
                    "kind": "upper bound (every dataset)",
                },
            },
            "blanket_view_delta": {"lower": lo, "upper": hi},
            "certified": "the mechanism's delta(epsilon) lies in [delta.lower, delta.upper]; the blanket view "
            "delta_BV(epsilon), an upper bound and not the mechanism, lies in blanket_view_delta",
            "assumption": _one_round(mech.kind),
        }
        text = (
            f"delta <= {hi} (certified: the blanket view of Lemma 5.3, an upper bound for every dataset; "
            f"{_one_round(mech.kind)})\n"
            f"for the {mech.kind} mechanism on [0, 1], epsilon = {args.epsilon}, n = {n}.\n"
            f"Certified bracket of the mechanism's delta: [{mlo}, {hi}] — lower end: {own_from}; upper end: the "
            f"blanket view.\n"
            f"The blanket view's own delta lies in [{lo}, {hi}] (lattice step {h}, {time.monotonic() - t0:.1f} s)."
        )
    common.emit(args, payload, text)
    _draw(args, mech, n, quantity, None)
    return 0


def _own_delta_lower(mech, n: int, eps) -> tuple:
    """The lower end of the mechanism's δ(ε) bracket and where it comes from: the mechanism's own δ on the datasets
    ``0^n`` vs ``1·0^{n−1}`` (both orders, lower side of their lattice enclosure,
    :func:`blanket.exact.shuffled.continuous_dataset.dataset_delta_lower`), else ``0`` when nothing was certified.
    Cost: two lower-side lattice sums of n copies (seconds at n = 10^6)."""
    from blanket.exact.numbers.errors import BlanketError
    from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower
    from blanket.reports.continuous_certificate import dataset_lattice
    from flint import fmpq

    try:
        own = max(dataset_delta_lower(mech, n, epsilon=eps, h=dataset_lattice(n), direction=d) for d in ("1|0", "0|1"))
    except BlanketError as e:
        return fmpq(0), f"none certified (the mechanism's own delta on 0^n vs 1 0^(n-1) was not computed: {e}); 0"
    if own <= 0:
        return fmpq(0), "0 (the mechanism's own delta on the datasets 0^n vs 1 0^(n-1) was not certified above 0)"
    return own, (
        "the mechanism's exact delta on the datasets 0^n vs 1 0^(n-1) (lower side of its lattice enclosure, both orders)"
    )


def _dec(x, up: bool, digits: int) -> str:
    from blanket.exact.numbers import arith
    from flint import fmpq

    return arith.decimal_string(fmpq(x.numerator, x.denominator), digits, up=up)


def _run_rounds(args: argparse.Namespace, mech, n: int, quantity: str, T: int) -> int:
    """``--rounds T``: T composed rounds (the accountant; upper end for every dataset, lower end the datasets
    ``0^n`` vs ``1·0^{n−1}`` in every round, through a pair their privacy curve dominates)."""
    from blanket.exact.accounting.accountant import ShuffleAccountant
    from blanket.exact.accounting.continuous_rounds import ShuffledContinuous
    from blanket.reports.composition import announce_cost

    acc = ShuffleAccountant().compose(ShuffledContinuous(mech, n, h=_lattice(n)), count=T)
    announce_cost(acc)  # refused up front over BLANKET_MAX_SECONDS, shown from 10 s (issue 26)
    what = f"{T} composed rounds of the {mech.kind} mechanism on [0, 1] ({_params(mech)}), n = {n} per round"
    desc = {**mech.describe(), "n": n, "rounds": T, "relation": "composition"}
    if getattr(args, "deployment", None):
        desc["deployment"] = args.deployment
    return _emit_composed(args, acc, quantity, what, desc, mech, n, [(mech, n)])


def _emit_composed(
    args: argparse.Namespace, acc, quantity: str, what: str, desc: dict, mech, n: int, singles: list
) -> int:
    """Print the composed answer of ``acc`` (``blanket epsilon``: ε at ``--delta``; ``blanket delta``: δ at
    ``--epsilon``) with its sources and the worst-pair assumption, then draw ``--plot``.  The lower end is the
    larger of the accountant's (thresholded outputs composed) and one round's own (``singles``: ``[(record, n)]``,
    :func:`blanket.reports.continuous_certificate.one_round_lower`)."""
    from fractions import Fraction

    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.reports.continuous_certificate import one_round_lower

    note = _assumption({m.kind for m, _ in singles})
    composed_lower = (
        "the datasets 0^n vs 1 0^(n-1) in every Laplace/Gaussian round, through a pair their privacy curve dominates "
        "(the ROC hull of certified tests of their lattice law; docs/reference/blanket.md section 4)"
    )

    def lower(acc_lower, **at):
        one = one_round_lower(singles, **at)
        if one is not None and Fraction(int(one[0].p), int(one[0].q)) > acc_lower:
            return Fraction(int(one[0].p), int(one[0].q)), one[1]
        return acc_lower, composed_lower

    digits = int(args.digits)
    t0 = time.monotonic()
    if quantity == "epsilon":
        if args.delta is None:
            raise InvalidArgument("--delta", None, "is required (the target delta, 0 < D < 1)")
        delta = arith.exact_in(args.delta, "--delta", lo=0, hi=1, lo_open=True, hi_open=True)
        e = acc.get_epsilon(delta)
        lo, lower_from = lower(e.lower, delta=delta)
        up = "inf" if e.upper == float("inf") else _dec(e.upper, True, digits)
        iv = {"lower": _dec(lo, False, digits), "upper": up}
        payload = {"command": "epsilon", **desc, "delta": str(args.delta), "epsilon": iv, "route": e.route}
        payload.update(pairs=e.details.get("pairs", []), grid=str(e.grid), assumption=note)
        payload["lower_from"] = lower_from
        text = (
            f"epsilon = {up} (certified upper end for {what}; the mechanism's epsilon lies in [{iv['lower']}, {up}])\n"
            f"for delta = {args.delta}. Upper end: the pair of the hull of certified blanket-view values (Lemma 5.3), "
            f"pessimistic PLD on grid {e.grid}; decided by the {e.route} route; {note}.\n"
            f"Lower end: {lower_from} ({time.monotonic() - t0:.1f} s)."
        )
    else:
        if args.epsilon is None:
            raise InvalidArgument("--epsilon", None, "is required (the central epsilon, >= 0)")
        eps = arith.exact_in(args.epsilon, "--epsilon", lo=0)
        acc.get_epsilon("1e-6")  # choose the grid (bracket, else sandwich, within 2 % around delta = 1e-6)
        r = acc.get_delta(eps)
        lo, lower_from = lower(r.lower, epsilon=eps)
        iv = {"lower": _dec(lo, False, digits), "upper": _dec(r.upper, True, digits)}
        payload = {"command": "delta", **desc, "epsilon": str(args.epsilon), "delta": iv, "route": r.route}
        payload.update(assumption=note, lower_from=lower_from)
        text = (
            f"delta(epsilon = {args.epsilon}) in [{iv['lower']}, {iv['upper']}] for {what}.\n"
            f"Upper end: certified for every dataset (the hull of certified blanket-view values, pessimistic PLD, "
            f"grid {r.grid}; {note}); lower end: {lower_from}; "
            f"decided by the {r.route} route ({time.monotonic() - t0:.1f} s)."
        )
    common.emit(args, payload, text)
    _draw(args, mech, n, quantity, acc)
    return 0


def _run_schedule(args: argparse.Namespace, dep, quantity: str) -> int:
    """``--deployment FILE`` with a ``[[rounds]]`` schedule holding a Laplace/Gaussian round: the whole schedule
    (times ``--rounds T``) composed by the accountant; the options that fix a round are refused."""
    from blanket.exact.accounting.accountant import ShuffleAccountant, check_total_rounds
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.reports.commands._compose import _sampled
    from blanket.reports.deployment import ContinuousRound
    from blanket.reports.numtext import exact_string

    for opt in ("mechanism", "k", "epsilon0", "sigma", "scale", "n", "sampling", "colluding", "bound", "variant"):
        v = getattr(args, opt, None)
        if v is not None and (opt != "sampling" or _sampled(args)):  # --sampling 1: the plain round
            raise InvalidArgument(
                "-n" if opt == "n" else "--" + opt,
                v,
                f"cannot be combined with {args.deployment}, whose [[rounds]] schedule fixes each round",
                hint="edit the [[rounds]] entries, or drop the option",
            )
    if args.dataset != "worst":
        raise InvalidArgument("--dataset", args.dataset, "is not used with a [[rounds]] schedule (every dataset)")
    if getattr(args, "plot", None) is not None:
        _plot.check(args)
    T = 1 if getattr(args, "rounds", None) is None else arith.integer_in(args.rounds, "--rounds", lo=1, hi=10**7)
    total = T * sum(r.count for r in dep.rounds)
    check_total_rounds(total, name="--rounds", value=T, what=f" ({T} x the rounds of {args.deployment})")
    from blanket.reports.composition import announce_cost

    acc = ShuffleAccountant(workers=common.executor_options(args)[0] if hasattr(args, "workers") else None)
    for r in dep.rounds:
        acc.compose(r.event(), count=r.count * T)
    announce_cost(acc)  # refused up front over BLANKET_MAX_SECONDS, shown from 10 s (issue 26)
    texts = []
    for r in dep.rounds:
        if isinstance(r, ContinuousRound):
            texts.append(r.text().replace(f"{r.count} x", f"{r.count * T} x", 1))
        else:
            what = "binary" if r.k == 2 else f"{r.k}-ary"
            texts.append(
                f"{r.count * T} x {what} randomized response (epsilon0 = {exact_string(r.epsilon0)}, n = {r.n})"
            )
    rep = "" if T == 1 else f"{T} x "
    what = f"{total} composed rounds ({rep}the [[rounds]] schedule of {args.deployment}: {'; '.join(texts)})"
    desc = {"deployment": dep.source, "rounds": T, "total_rounds": total, "relation": "composition"}
    if quantity == "epsilon":
        d = args.delta
        if d is None:
            d = dep.targets[0].delta if dep.targets else dep.claims[0].delta if dep.claims else None
        if d is None:
            raise InvalidArgument("--delta", None, "is required (the target delta, 0 < D < 1)")
        args.delta = exact_string(d)
    elif args.epsilon is None and dep.claims:
        args.epsilon = exact_string(dep.claims[0].epsilon)
    singles = [(r.event().mechanism, r.n) for r in dep.rounds if isinstance(r, ContinuousRound)]
    return _emit_composed(args, acc, quantity, what, desc, None, 0, singles)


def _params(mech) -> str:
    return ", ".join(f"{k} = {v}" for k, v in mech.describe().items() if k != "type")


def _draw(args: argparse.Namespace, mech, n: int, quantity: str, acc) -> None:
    """``--plot FILE``: the privacy curve with the answer marked (a no-op without ``--plot``)."""
    import sys
    from types import SimpleNamespace

    if getattr(args, "plot", None) is None:
        return
    from blanket.exact.numbers import arith
    from blanket.reports import certificate as C
    from blanket.reports import curve
    from blanket.reports.deployment import Deployment
    from blanket.reports.figures.privacy_curve import Marker, write_png
    from flint import fmpq

    payload = getattr(args, _plot.PAYLOAD, None) or {}
    inp = SimpleNamespace(
        epsilon=None if getattr(args, "epsilon", None) is None else arith.exact(args.epsilon),
        delta=None if getattr(args, "delta", None) is None else arith.exact(args.delta),
        n=n,
    )
    marker, focus = _plot._marker(quantity, inp, payload)  # type: ignore[arg-type]
    markers = [marker] if marker is not None else []
    delta = inp.delta if inp.delta is not None else fmpq(1, 10**6)
    e0 = getattr(mech, "epsilon0", None)
    if acc is not None:
        basic = acc.basic_upper()
        pic = curve.composition(
            acc,
            title=f"The privacy curve of {acc.rounds} composed shuffled rounds"
            + (f" (n = {n} per round)" if mech is not None else ""),
            focus=focus,
            eps0_total=None if basic is None else fmpq(basic.numerator, basic.denominator),
            delta=delta,
            markers=markers,
            claim=Marker(marker.label, float(acc.rounds), marker.eps) if marker and quantity == "epsilon" else None,
        )
    else:
        dep = Deployment(
            name="command line",
            description="",
            mechanism=mech.kind,
            params={k: arith.exact(v) for k, v in mech.describe().items() if k != "type"},
            n=n,
            n_is_lower_bound=False,
            claims=(),
            targets=(),
            neighbouring="replace-one",
            precision=128,
            precision_cap=arith.MAX_PREC,
            sha256="",
            source="command line",
        )
        srcs = C.sources(dep, None)
        cands = C.candidate_results(dep)
        pic = curve.single_round(
            srcs,
            cands,
            lambda r, e, d: C.evaluate_bound(r, dep, None, e, d),
            title=f"The privacy curve of the {mech.kind} mechanism on [0, 1] ({_params(mech)}), shuffled among "
            f"n = {n} users",
            focus=focus,
            eps0=e0,
            delta=delta,
            markers=markers,
        )
    written = write_png(pic, args.plot)
    sys.stderr.write(f"blanket: wrote the privacy curve to {written}\n")
