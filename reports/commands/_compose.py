"""``--rounds T`` for ``blanket epsilon`` / ``blanket delta``: T composed shuffled rounds (certified accountant).

With ``--deployment FILE``: if FILE has a ``[[rounds]]`` schedule, the answer is for that whole schedule, and
``--rounds T`` repeats the whole schedule T times (e.g. a yearly schedule over T years; every count is multiplied
by T); the schedule fixes each round's mechanism, so ``--k``/``--epsilon0``/``-n`` are refused with it. If FILE
has no ``[[rounds]]``, ``--rounds T`` composes T rounds of its ``[randomizer]`` with its ``[users]`` (a ``matrix``
randomizer too: ``Shuffled(matrix, n)``, its curve pair / clone pair and binarized lower pair, as in Python).

The answer is an interval: the upper end is certified for the composition (product of dominating pairs,
pessimistic PLD); the lower end is certified for the mechanism itself (the T rounds run on one concrete pair
of datasets, optimistic PLD), so a claim below it is false. See ``docs/composition.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

from . import _plot
from . import _profile_common as common

if TYPE_CHECKING:
    import argparse

    from ._profile_common import Inputs


def _schedule(args):
    """The deployment file's ``[[rounds]]`` (a tuple, empty when none or no file); a file whose one round is
    ``sampling`` in ``[users]`` takes ``--sampling`` / ``--colluding`` in its place, as ``blanket certify`` does
    (:func:`blanket.reports.deployment.with_overrides`)."""
    if not getattr(args, "deployment", None):
        return ()
    from blanket.reports.deployment import with_overrides

    dep = common.load_cli_deployment(args)
    sampling, colluding = getattr(args, "sampling", None), getattr(args, "colluding", None)
    if _users_sampled(dep.rounds) and (sampling is not None or colluding is not None):
        dep = with_overrides(dep, sampling=sampling, colluding=colluding)
    return dep.rounds


def _users_sampled(sched) -> bool:
    """Whether a schedule is the one round of ``sampling`` in a file's ``[users]``.  O(1)."""
    return len(sched) == 1 and sched[0].field == "users"


def rounds(args: argparse.Namespace) -> int | None:
    """``T`` (``--rounds``), ``1`` for a deployment file with ``[[rounds]]`` and no ``--rounds``, else ``None``."""
    t = getattr(args, "rounds", None)
    if t is not None:
        return arith.integer_in(t, "--rounds", lo=1, hi=10**7)
    if _sampled(args) or getattr(args, "colluding", None) is not None:
        return 1  # a sampled round / colluders: the accountant's pairs (docs/composition.md §5f, fleets.md §7)
    return 1 if _schedule(args) else None


def _sampling_q(args) -> Any:
    """``--sampling`` as an exact ``q`` in (0, 1), ``None`` when not given or ``1`` (every user takes part: the
    plain round, with all of its routes).  Refuses by name.  O(1)."""
    from blanket.exact.accounting.sampled import check_sampling

    if getattr(args, "sampling", None) is None:
        return None
    q = arith.exact_in(args.sampling, "--sampling", lo=0, lo_open=True, hi=1)
    check_sampling(q, "--sampling", args.sampling)
    return None if q == 1 else q


def _sampled(args) -> bool:
    """Whether ``--sampling`` asks for a sampled round (given, below 1).  O(1)."""
    return _sampling_q(args) is not None


def _sampling_colluding(args, n: int) -> tuple:
    """``--sampling`` as an exact ``q`` in (0, 1) (``None``: not given, or 1) and ``--colluding`` as a number of
    users ``≤ n − 2``."""
    from blanket.reports.fleet import colluding_count

    q = _sampling_q(args)
    m = 0
    if getattr(args, "colluding", None) is not None:
        m = colluding_count(args.colluding, n, "--colluding")
        if n - m < 2:
            raise InvalidArgument("--colluding", args.colluding, f"must leave at least 2 honest users of {n}")
    return q, m


def _one_round_note(r: Any, bracket: str) -> str:
    """A sentence on the round's own certified ends when the accountant took them (its ``details["one_round"]``:
    a single round of a closed-form record, or a record round without a composed lower pair; docs/composition.md
    §5e "One round through the accountant"), else empty.  O(1)."""
    one = r.details.get("one_round")
    if not one:
        return ""
    if one["upper"] is None:  # a composition: the one-round lower end only
        return (
            f"\nOne round alone: certified lower end {one['lower'] or '0'} ({one['lower_from']}); reported: the lower "
            f"end from the {one['lower_decided_by']}."
        )
    return (
        f"\nOne round: its own certified {bracket} [{one['lower'] or '0'}, {one['upper']}] (upper: "
        f"{one['upper_from']}; lower: {one['lower_from']}); reported: the upper end from the "
        f"{one['upper_decided_by']}, the lower end from the {one['lower_decided_by']}."
    )


def _composed_by(args: argparse.Namespace, T: int) -> tuple[str, object, str]:
    """What made the run a composition, as the user gave it: ``(name, value, phrase)`` for error messages —
    ``--rounds``, else ``--sampling`` / ``--colluding`` (one composed round), else the deployment file (its
    ``[[rounds]]``, ``sampling`` or ``colluding``).  Before session 15 the refusals named ``--rounds`` (``got 1``)
    when it was not given.  O(1) (the file is read again only when no option decides)."""
    if getattr(args, "rounds", None) is not None:
        return "--rounds", args.rounds, "--rounds"
    if _sampled(args):
        return "--sampling", args.sampling, "--sampling (one composed round)"
    if getattr(args, "colluding", None) is not None and not getattr(args, "colluding_from_file", False):
        return "--colluding", args.colluding, "--colluding (one composed round)"
    return "--deployment", args.deployment, f"a composed deployment ({args.deployment}: rounds, sampling or colluding)"


def run_if_composed(args: argparse.Namespace, inp: Inputs, quantity: str) -> int | None:
    """``blanket delta|epsilon`` with ``--rounds`` (or a deployment's ``[[rounds]]``): the composed run's exit code;
    ``None`` when the run is a single round.  ``quantity`` is the command's output (``"delta"``/``"epsilon"``)."""
    T = rounds(args)
    if T is None:
        return None
    if args.bound is not None:
        name, value, _ = _composed_by(args, T)
        raise InvalidArgument(name, value, "cannot be combined with --bound (a composed run)")
    return run_delta(args, inp, T) if quantity == "delta" else run_epsilon(args, inp, T)


def _what(args, T) -> str:
    sched = _schedule(args)
    if not sched:
        return f"{T} composed round{'' if T == 1 else 's'}"
    total = T * sum(r.count for r in sched)
    rep = "" if T == 1 else f"{T} x "
    return f"{total} composed round{'' if total == 1 else 's'} ({rep}the [[rounds]] schedule of {args.deployment})"


def _mech_line(args, inp, T) -> str:
    sched = _schedule(args)
    if not sched:
        extra = ""
        if getattr(args, "colluding", None) is not None:
            _q, m = _sampling_colluding(args, inp.n)
            extra += f", {m} of them colluding ({inp.n - m} honest users)"
        if _sampled(args):
            extra += f", each user taking part w.p. {args.sampling}"
        return f"{common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users per round{extra}"
    return "; ".join(
        r.text(count=r.count * T)  # a matrix or closed-form record round
        if hasattr(r, "text")
        else f"{r.count * T} x {r.title()} "
        f"(epsilon0 = {common._s(r.epsilon0)}, n = {r.n}"
        + ("" if getattr(r, "sampling", None) is None else f", each user taking part w.p. {common._s(r.sampling)}")
        + ")"
        for r in sched
    )


def _accountant(args, inp, T, quantity: str = "epsilon"):
    """The accountant of the run, its cost announced (:func:`blanket.reports.composition.announce_cost` for the query
    ``quantity``, ``"epsilon"`` or ``"delta"``: refused up front over the limit, printed when it takes more than
    seconds)."""
    from blanket.reports.commands._options import curves_mode
    from blanket.reports.composition import announce_cost

    acc = _ledger(args, inp, T, curves_mode(args))
    if getattr(args, "refine_seconds", None) is not None:  # the bracket's refinement budget (modelled seconds)
        acc.refine_seconds = float(arith.exact_in(args.refine_seconds, "--refine-seconds", lo=0, hi=10**7))
    if args.json:  # the JSON alone: no bars, no estimate line
        from blanket.exact.runtime.progress import set_quiet

        set_quiet(True)
    acc.workers = getattr(inp, "workers", None)  # --workers: the curve sweeps' processes (None: every core)
    args._estimate = announce_cost(acc, quantity=quantity)  # spread over those workers
    return acc


def _ledger(args, inp, T, curves):
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR, check_total_rounds

    if inp.mechanism is None:
        raise InvalidArgument("--rounds", T, "needs a mechanism (--mechanism rr --epsilon0 E0 -n N)")
    if inp.dataset != "worst":
        raise InvalidArgument(
            "--dataset",
            inp.dataset,
            f"is not used with {_composed_by(args, T)[2]} (the composition is certified for "
            "every dataset; the lower end is a concrete dataset pair)",
        )
    sched = _schedule(args)
    if sched:  # one cap on the total, before any work (the schedule's counts times --rounds)
        total = T * sum(r.count for r in sched)
        check_total_rounds(
            total,
            name="--rounds",
            value=T,
            what=f" ({T} x the {sum(r.count for r in sched)} rounds of {args.deployment})",
        )
        for opt, name in ((args.k, "--k"), (args.epsilon0, "--epsilon0"), (args.n, "-n")):
            if opt is not None:
                raise InvalidArgument(
                    name,
                    opt,
                    f"cannot be combined with {args.deployment}, whose [[rounds]] schedule fixes each round's "
                    "mechanism",
                    hint="edit the [[rounds]] entries, or drop the option",
                )
        given = ((args.sampling if _sampled(args) else None, "--sampling"), (args.colluding, "--colluding"))
        for opt, name in given:  # (--sampling 1 is the plain round: nothing to refuse)
            if opt is not None and not _users_sampled(sched):  # (that one round took them: _schedule)
                raise InvalidArgument(
                    name,
                    opt,
                    f"cannot be combined with {args.deployment}, whose [[rounds]] schedule fixes each round",
                    hint="give sampling in each [[rounds]] entry and colluding in [users]",
                )
        acc = ShuffleAccountant(curves=curves)
        for r in sched:
            acc.compose(r.event(), count=r.count * T)
        return acc
    from blanket.exact.accounting.fleet_rounds import FleetRound
    from blanket.exact.accounting.sampled import Sampled
    from blanket.exact.mechanisms.finite import KRR

    q, m = _sampling_colluding(args, inp.n)
    if inp.oracle:  # any other randomizer of the vocabulary: the FOCS 2021 clone pair per round (n − m honest users)
        ev = Shuffled(inp.mechanism, inp.n - m)
        return ShuffleAccountant(curves=curves).compose(ev if q is None else Sampled(ev, q), count=T)
    if inp.query is not None and inp.query.kind.value == "matrix":  # a matrix deployment: as the Python accountant
        params = inp.query.params  # its curve pair (own blanket view), the clone pair, the stated Lemma G1 / SODA 2023
        ev = Shuffled(
            inp.mechanism,
            inp.n - m,
            stronger_clones=bool(params.get("stronger_clones", False)),
            same_randomizer=bool(params.get("same_randomizer", False)),
        )
        return ShuffleAccountant(curves=curves).compose(ev if q is None else Sampled(ev, q), count=T)
    if inp.epsilon0 is None:
        raise InvalidArgument("--rounds", T, "needs --epsilon0 (exp_epsilon0 deployments are not supported here)")
    if m:  # colluders: the one-group fleet round resting on n − m honest users (Lemma F3)
        fr = FleetRound([(inp.n, KRR(int(inp.k), inp.epsilon0))], q=q, colluding=m)
        return ShuffleAccountant(curves=curves).compose(fr, count=T)
    rr = ShuffledRR(k=inp.k, epsilon0=inp.epsilon0, n=inp.n)
    return ShuffleAccountant(curves=curves).compose(rr if q is None else Sampled(rr, q), count=T)


def _pair_name(e) -> str:
    """The dominating pairs the rounds contribute, as the accountant names them (the worst-case curve, the
    Lemma 5.3 blanket view, the clone pair, …)."""
    return "; ".join(e.details.get("pairs") or ["Lemma 5.3 blanket view"])


def _curves_note(args) -> str:
    """With ``--curves off``: a sentence saying the answer rests on the looser pairs (else empty)."""
    if getattr(args, "curves", "auto") != "off":
        return ""
    return (
        "\n--curves off: the fast, looser pairs (blanket view / clone pair; no worst-case curve sweep, no curve "
        "pairs); --curves auto (the default) is tighter and may take minutes."
    )


def _dec(x, up, digits):
    from flint import fmpq

    return arith.decimal_string(fmpq(x.numerator, x.denominator), digits, up=up)


def run_epsilon(args: argparse.Namespace, inp: Inputs, T: int) -> int:
    acc = _accountant(args, inp, T)
    setattr(args, _plot.ACCOUNTANT, acc)  # --plot draws from this accountant (its distributions are cached)
    acc.one_round_rel_tol = common.rel_tol(args)  # a single record round's own searches (as blanket epsilon)
    e = acc.get_epsilon(inp.delta)
    d = inp.digits
    e_up, e_lo, one, note = e.upper, e.lower, e.details.get("one_round"), _one_round_note(e, "bracket")
    up = "inf" if e_up == float("inf") else _dec(e_up, True, d)
    iv = {"lower": _dec(e_lo, False, d), "upper": up}
    payload = {
        "command": "epsilon",
        **inp.describe(),
        "rounds": T,
        "total_rounds": acc.rounds,
        "delta": common._s(inp.delta),
        "epsilon": iv,
        "sandwich_lower": _dec(e.pair_lower, False, d),
        "grid": str(e.grid),
        "relation": "composition",
        "route": e.route,
        "route_text": e.details["route"],
        "pld_upper": None if e.pld_upper is None else _dec(e.pld_upper, True, d),
        "renyi_upper": _dec(e.renyi_upper, True, d),
        "pairs": e.details.get("pairs", []),
        "lower_pair": e.details.get("lower_pair"),
        "lower_source": _lower_source(acc, e),
        "curves": getattr(args, "curves", "auto"),
        "estimate": getattr(args, "_estimate", None),
        "bracket": e.details.get("bracket"),
    }
    if one is not None:
        payload["one_round"] = one
    text = (
        f"epsilon = {up} (certified upper end for {_what(args, T)}; the mechanism's epsilon lies in "
        f"[{iv['lower']}, {up}])\n"
        f"for delta = {common._s(inp.delta)}, {_mech_line(args, inp, T)}.\n"
        f"Upper end: {_upper_intro(e)}product of dominating pairs ({_pair_name(e)}), pessimistic PLD on grid "
        f"{e.grid} ({_grid_note(e, payload)}); Renyi route {payload['renyi_upper']}; decided by the {e.route} route.\n"
        f"Lower end: the same rounds on one concrete pair of datasets{_lower_name(e)} (a claim below it is false)."
        + _bracket_note(e)
        + note
        + _curves_note(args)
    )
    common.emit(args, payload, text)
    return 0


#: why the bracket's refinement stopped above rel_width (the accountant's ``details["bracket"]["stopped_by"]``)
STOPPED = {
    "budget": "stopped by the refinement budget ({budget:g} s modelled; the next finer grid about {next:g} s); use "
    "--refine-seconds SECONDS to go on",
    "time budget": "stopped by the time budget (--time-budget; the next finer grid about {next:g} s); use a larger "
    "--time-budget to go on",
    "gap": "a finer grid would not close it (the discretisation's own width, the pair's PLD sandwich, is "
    "{sandwich:.2f} %): the rest is the gap between {between}",
    "passes": "stopped after {passes} finer grids",
    "memory": "stopped by the memory limit (a finer grid's PLDs would exceed it; --max-memory SIZE to go on)",
    "grid": "the grid was fixed",
}


def _bracket_note(e: Any) -> str:
    """One line when the certified bracket is wider than the accountant's ``rel_width`` after its refinement
    (``details["bracket"]``, :meth:`~blanket.exact.accounting.accountant.ShuffleAccountant._refine_bracket`): how
    wide, and what stopped it; else nothing.  O(1)."""
    b = e.details.get("bracket")
    if not b or b.get("within"):
        return ""
    from fractions import Fraction

    from blanket.exact.accounting.accountant import ONE_ROUND_NAME

    one = e.details.get("one_round") or {}
    up_one, lo_one = one.get("upper_decided_by") == ONE_ROUND_NAME, one.get("lower_decided_by") == ONE_ROUND_NAME
    rel = float(Fraction(b["rel_width"])) * 100
    if up_one and lo_one:  # both ends are the round's own (no grid is involved): say so, not the composed pairs' gap
        return (
            f"\nBracket {float(e.rel_width) * 100:.2f} % wide, above rel_width {rel:g} %: both ends are the round's "
            "own one-round bounds (below), which no grid changes."
        )
    between = (
        ("the round's own one-round upper bound" if up_one else "the composed pairs")
        + " and "
        + ("the round's own lower end on a concrete dataset" if lo_one else "the concrete lower pairs")
    )
    why = STOPPED.get(b.get("stopped_by") or "", "").format(
        budget=b.get("budget_seconds") or 0.0,
        next=b.get("next_seconds") or 0.0,
        passes=b.get("passes"),
        sandwich=float(e.sandwich_width) * 100,
        between=between,
    )
    return f"\nBracket {float(e.rel_width) * 100:.2f} % wide, above rel_width {rel:g} %" + (f": {why}." if why else ".")


def _upper_intro(r: Any) -> str:
    """``"the one round's own bound (below); the composition's: "`` when the round's own certified end decided the
    upper end (``route == "one round"``, :func:`_one_round_note`), else nothing: the line then describes the
    composition, which did.  O(1)."""
    from blanket.exact.accounting.accountant import ONE_ROUND_NAME

    return "the one round's own bound (below); the composition's: " if r.route == ONE_ROUND_NAME else ""


def _grid_note(e: Any, payload: dict) -> str:
    """How the grid relates to the two widths: the certified bracket's (what ``rel_width`` bounds) and the dominating
    pair's own PLD sandwich (the discretisation's width; its optimistic end may be 0 on a grid chosen for the bracket,
    which then says so instead of printing a 100 % sandwich).  O(1)."""
    bracket = f"bracket width {float(e.rel_width) * 100:.2f}%"
    if e.pair_lower is None or e.pair_lower <= 0:
        return f"{bracket}; the grid is too coarse for the pair's own optimistic PLD to give a lower end"
    return (
        f"{bracket}; the pair's PLD sandwich [{payload['sandwich_lower']}, {payload['pld_upper'] or 'inf'}], "
        f"width {float(e.sandwich_width) * 100:.2f}%"
    )


def _lower_source(acc: Any, r: Any) -> str | None:
    """The concrete pair that gave the composed lower end, in words (:func:`blanket.reports.composition.lower_source`:
    e.g. a sampled binary RR round's dataset ``C``), or ``None`` without a positive lower end.  O(rounds)."""
    from blanket.reports.composition import lower_source

    name = r.details.get("lower_pair")
    return lower_source(acc, name) if r.lower > 0 and name and name != "none" else None


def _lower_name(r: Any) -> str:
    """``", <the composed lower pair that decided>"`` (the accountant's ``details["lower_pair"]``), or nothing."""
    name = r.details.get("lower_pair")
    return f", {name}" if name and name != "none" else ""


def run_delta(args: argparse.Namespace, inp: Inputs, T: int) -> int:
    acc = _accountant(args, inp, T, "delta")  # its estimate models the delta path (choose_grid, one get_delta)
    setattr(args, _plot.ACCOUNTANT, acc)  # --plot draws from this accountant (its distributions are cached)
    acc.choose_grid("1e-6")  # the grid (bracket, else sandwich, within 2 % around delta = 1e-6); no one-round search
    r = acc.get_delta(inp.epsilon)
    d = inp.digits
    r_up, r_lo, one, note = r.upper, r.lower, r.details.get("one_round"), _one_round_note(r, "ends")
    iv = {"lower": _dec(r_lo, False, d), "upper": _dec(r_up, True, d)}
    payload = {
        "command": "delta",
        **inp.describe(),
        "rounds": T,
        "total_rounds": acc.rounds,
        "epsilon": common._s(inp.epsilon),
        "delta": iv,
        "sandwich_lower": _dec(r.pair_lower, False, d),
        "grid": str(r.grid),
        "relation": "composition",
        "route": r.route,
        "route_text": r.details["route"],
        "pairs": r.details.get("pairs", []),
        "lower_pair": r.details.get("lower_pair"),
        "lower_source": _lower_source(acc, r),
        "curves": getattr(args, "curves", "auto"),
        "estimate": getattr(args, "_estimate", None),
    }
    if one is not None:
        payload["one_round"] = one
    text = (
        f"delta(epsilon = {common._s(inp.epsilon)}) in [{iv['lower']}, {iv['upper']}] for {_what(args, T)}\n"
        f"for {_mech_line(args, inp, T)}.\n"
        f"Upper end: certified for every dataset ({_upper_intro(r)}dominating pairs, pessimistic PLD, grid "
        f"{r.grid}); "
        f"lower end: certified on one concrete pair of datasets{_lower_name(r)}; decided by the {r.route} route."
        + note
        + _curves_note(args)
    )
    common.emit(args, payload, text)
    return 0
