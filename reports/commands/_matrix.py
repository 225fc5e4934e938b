"""``blanket delta|epsilon --deployment FILE`` for a ``matrix`` randomizer, one round: the certificate's bracket.

The numbers are those ``blanket certify`` reports for the same file: the certificate's sources for the matrix
(:func:`blanket.reports.claims.sources`: the exact worst case by enumeration where it is within reach, else the
matrix's own Lemma 5.3 blanket view above and one concrete dataset's binarized count below, docs/composition.md
§5e; the SODA 2023 stronger clones / Lemma G1 when the file states them).  ``blanket epsilon`` is the certificate's
target calibration (:func:`blanket.reports.certificate.certify_target`); ``blanket delta`` evaluates the same
sources at ε (the smallest certified upper end, the largest certified lower end), escalating the precision until
each end's enclosure is narrow (relative radius ≤ 2⁻⁴⁰) or stops narrowing.  Composed rounds (``--rounds T``) go
through the accountant instead (reports/commands/_compose.py).  The engines are imported inside the functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blanket.exact.numbers.errors import InvalidArgument

from . import _profile_common as common

if TYPE_CHECKING:
    import argparse

    from blanket.reports.deployment import Deployment

    from ._profile_common import Inputs

#: relative radius at which an end's enclosure is narrow enough (as ``blanket delta``'s default for k-RR)
_NARROW = 2**-40


def is_matrix(inp: Inputs) -> bool:
    """Whether the run's randomizer is a ``matrix`` (from a deployment file).  O(1)."""
    return inp.query is not None and inp.query.kind.value == "matrix"


def check_options(args: argparse.Namespace, inp: Inputs) -> None:
    """Refuse, by name, what a matrix randomizer's one-round route does not take: ``--dataset`` other than
    ``worst`` (the bracket is about the worst case; its lower end is a concrete dataset already), ``--bound`` (the
    registered bounds need ε0 and the paper's model: ``blanket certify FILE`` evaluates those that apply).  O(1)."""
    if args.bound is not None or args.variant is not None:
        raise InvalidArgument(
            "--bound",
            args.bound if args.bound is not None else args.variant,
            f"is not evaluated for the matrix randomizer of {args.deployment}",
            hint=f"drop --bound (the matrix's certified bracket), or run `blanket certify {args.deployment}`, which "
            "lists every registered bound that applies",
        )
    if inp.dataset != "worst":
        raise InvalidArgument(
            "--dataset",
            inp.dataset,
            "is not supported for a matrix randomizer (its answer is the certified bracket on the worst case over all "
            "datasets, whose lower end is already a concrete dataset)",
            hint="drop --dataset",
        )


def deployment_of(inp: Inputs, precision: int = 128) -> Deployment:
    """The one-round deployment the run is about (the file's randomizer with the command line's ``-n``), as the
    certificate's sources take it.  O(1)."""
    from blanket.reports.deployment import Deployment

    q = inp.query
    assert q is not None
    return Deployment(
        name="command line",
        description="",
        mechanism=q.kind.value,
        params=dict(q.params),
        n=q.n,
        n_is_lower_bound=False,
        claims=(),
        targets=(),
        neighbouring="replace-one",
        precision=precision,
        precision_cap=inp.cap,
        sha256="",
        source=inp.source or "command line",
    )


def _best(vals: list, role: tuple, upper: bool) -> Any:
    from blanket.reports.claims import _lower_end, _upper_end

    group = [t for t in vals if t[0].role in role]
    if not group:
        return None
    return min(group, key=lambda t: _upper_end(t[1])) if upper else max(group, key=lambda t: _lower_end(t[1]))


def _narrow(v: Any) -> bool:
    from flint import arb, fmpq

    if isinstance(v, fmpq) or not isinstance(v, arb):
        return True
    return v.rad() == 0 or (v.mid() != 0 and v.rad() <= abs(v.mid()) * _NARROW)


def delta_ends(inp: Inputs) -> tuple:
    """``(upper, lower, prec)``: the best certified upper end (``(source, value, witness)``) and lower end of δ(ε) at
    the run's ε, from the certificate's sources; the precision doubles from 128 bits until both ends are narrow, the
    cap is reached or the enclosures stop narrowing.  Cost: the sources' (enumeration O(classes · outputs), the
    matrix view O(√n) per atom pair, the binarized count O(√n)) per precision."""
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import Undecided
    from blanket.reports.certificate import sources
    from blanket.reports.claims import _evaluate_all, _width

    dep = deployment_of(inp)
    assert inp.query is not None and inp.epsilon is not None
    srcs = sources(dep, inp.mechanism, workers=inp.workers, scheduler=inp.scheduler)
    prec, last = arith.DEFAULT_PREC, None
    while True:
        vals, _b, errors = _evaluate_all(dep, inp.mechanism, srcs, [], inp.epsilon, None, prec)
        up = _best(vals, ("exact", "upper"), True)
        lo = _best(vals, ("exact", "lower"), False)
        if up is None:
            raise Undecided(
                "no certified upper bound on delta could be evaluated for the matrix at "
                f"{prec} bits ({'; '.join(f'{k}: {e}' for k, e in errors) or 'no source applies'})"
            )
        done = _narrow(up[1]) and (lo is None or _narrow(lo[1]))
        width = _width([(None, up[1])], [(None, lo[1])] if lo is not None else [])
        if done or prec >= inp.cap or (last is not None and width * 2 > last):
            return up, lo, prec
        last, prec = width, min(2 * prec, inp.cap)


def run_delta(args: argparse.Namespace, inp: Inputs) -> int:
    """``blanket delta --deployment MATRIX_FILE``: print the certified δ(ε) (exact, or the bracket).  Exit 0."""
    from blanket.reports.claims import _lower_end, _upper_end

    check_options(args, inp)
    up, lo, prec = delta_ends(inp)
    exact = up[0].role == "exact"
    value_lo = _lower_end(lo[1]) if lo is not None else 0
    iv = {
        "lower": common.interval(value_lo, inp.digits)["lower"],
        "upper": common.delta_interval(_upper_end(up[1]), inp.digits)["upper"],
    }
    dataset = ((lo[2] or {}).get("dataset") if lo is not None else None) or "none"
    payload = {
        "command": "delta",
        **inp.describe(),
        "epsilon": common._s(inp.epsilon),
        "delta": iv,
        "relation": "exact" if exact else "bracket",
        "upper_source": up[0].title,
        "lower_source": lo[0].title if lo is not None else None,
        "attained_by": dataset,
        "precision_bits": prec,
    }
    if not exact:
        payload["bracket"] = common.bracket_payload(
            lo[0].title if lo is not None else "none", iv["lower"], up[0].title, iv["upper"], _rel(iv), inp.digits
        )
    meaning = (
        "This is the exact worst case over all pairs of neighbouring datasets (exhaustive enumeration of dataset "
        "classes), as `blanket certify` computes it."
        if exact
        else "This is the certified BRACKET on the worst case over all datasets, as `blanket certify` computes it: "
        f"the upper end from the {up[0].title}, the lower end from the {lo[0].title if lo else 'none'} "
        f"({dataset}); relative width {payload['bracket']['relative_width'] if not exact else 0}."
    )
    text = (
        f"delta(epsilon = {common._s(inp.epsilon)}) = "
        + (iv["lower"] if iv["lower"] == iv["upper"] else f"[{iv['lower']}, {iv['upper']}]")
        + f"\nfor {common.matrix_phrase(inp)}, shuffled among n = {inp.n} users, dataset: worst.\n{meaning}\n"
        f"Attained by: {dataset}.\n(Certified enclosure, outward rounded; computed in ball arithmetic at {prec} bits.)"
    )
    common.emit(args, payload, text)
    return 0


def _rel(iv: dict) -> Any:
    """The printed bracket's relative width (upper − lower)/upper, exact (0 for a zero upper end).  O(1)."""
    from blanket.exact.numbers import arith

    up, lo = arith.exact(iv["upper"]), arith.exact(iv["lower"])
    return up * 0 if up == 0 else (up - lo) / up


def run_epsilon(args: argparse.Namespace, inp: Inputs) -> int:
    """``blanket epsilon --deployment MATRIX_FILE``: the certificate's target calibration at ``--delta``
    (:func:`blanket.reports.certificate.certify_target`).  Exit 0; :class:`~blanket.exact.numbers.errors.Undecided`
    (exit 3) when no upper end is certified.  Cost: the certificate's calibration (tens of evaluations of the
    sources, each as in :func:`delta_ends`)."""
    from blanket.reports.certificate import certify_target, sources
    from blanket.reports.deployment import Target

    check_options(args, inp)
    assert inp.delta is not None
    dep = deployment_of(inp)
    srcs = sources(dep, inp.mechanism, workers=inp.workers, scheduler=inp.scheduler)
    rec = certify_target(
        dep, inp.mechanism, Target(inp.delta, "--delta"), srcs, start=dep.precision, cap=inp.cap, workers=inp.workers
    )
    if rec["epsilon_upper"] is None:  # exit 3 through the CLI's one line for an undecided answer
        from blanket.exact.numbers.errors import Undecided

        raise Undecided(rec["reason"])
    iv = {"lower": rec["epsilon_lower"] or "0", "upper": rec["epsilon_upper"]}
    payload = {
        "command": "epsilon",
        **inp.describe(),
        "delta": common._s(inp.delta),
        "epsilon": iv,
        "relation": rec["kind"],
        "upper_source": rec["upper_source"],
        "lower_source": rec["lower_source"],
        "attained_by": rec["lower_dataset"],
        "relative_width": rec["relative_width"],
        "certified": "delta(epsilon.upper) <= target is proven; delta(epsilon.lower) > target is proven",
    }
    text = (
        f"epsilon = {iv['upper']} (certified upper end; the smallest epsilon lies in [{iv['lower']}, {iv['upper']}])\n"
        f"for delta = {common._s(inp.delta)}, {common.matrix_phrase(inp)}, shuffled among n = {inp.n} users, dataset: worst.\n"
        f"Meaning: delta(epsilon) <= {common._s(inp.delta)} is proven at the upper end (by the {rec['upper_source']})"
        + (
            f" and disproven at the lower end (by the {rec['lower_source']}"
            + (f": {rec['lower_dataset']})" if rec["lower_dataset"] else ")")
            if rec["epsilon_lower"]
            else " (no certified lower end above 0)"
        )
        + f"; relative width {rec['relative_width']}; the same bracket as `blanket certify`'s target."
    )
    common.emit(args, payload, text)
    return 0
