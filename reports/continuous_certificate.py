"""Certificates for deployments of the continuous randomizers (``type = "laplace"`` or ``"gaussian"``, issue 27).

The certified numbers (docs/reference/blanket.md §4):

* **upper** — the exact blanket view of Balle et al. Lemma 5.3 for the inputs ``(0, 1)``, as an enclosure
  (:func:`blanket.exact.shuffled.continuous.blanket_view`, lattice step
  :func:`blanket.exact.accounting.continuous_rounds.default_lattice`); its exact upper end bounds δ(ε) for every
  pair of neighbouring datasets;
* **lower** — two certified lower bounds on the mechanism's δ on the datasets ``0^n`` vs ``1·0^{n−1}``, the larger
  deciding: (a) the mechanism's own exact δ there, the lower side of its lattice enclosure
  (:func:`blanket.exact.shuffled.continuous_dataset.dataset_delta_lower`, both orders of the pair; docs/reference/
  blanket.md §4, "The mechanism's lower end"), and (b) the outputs thresholded at 1/2
  (:func:`blanket.exact.shuffled.continuous.quantised_rr`: binary RR at a rational level at or below the
  thresholded channel's; :func:`blanket.exact.shuffled.krr.delta_krr_family`, family ``same``), a post-processing,
  so never above the true δ of (a), but its exact value can exceed (a)'s lattice lower side.  A claim below
  either FAILS with that witness (the larger names itself in ``decided_by``).

For Laplace every registered bound that applies (Theorem 5.3 [laplace], Bennett [laplace]) is evaluated beside
them and the smallest certified upper end decides.  Neither source narrows with more precision: the upper end's
width is the lattice's, and the gap to the lower end is the quantisation's.  Targets: the certified bracket of
:func:`blanket.exact.shuffled.continuous.epsilon_bracket` (upper end) and the larger of
:func:`~blanket.exact.shuffled.continuous_dataset.dataset_epsilon_lower` and
:func:`~blanket.exact.shuffled.continuous.quantised_epsilon_lower` (lower end); the record names which decided each
end (``upper_source``, ``lower_source``, and both lower candidates in ``lower_candidates``).

The upper end is the blanket view for the pair of inputs ``(0, 1)``.  For Laplace that pair is proved the worst
(``L_{x,x'} ≤_cx L_{0,1}``, docs/reference/blanket.md §4, :mod:`blanket.proofs.continuous_worst_pair`); for the
Gaussian it is a stated assumption (a certified grid search, not a proof).  :func:`worst_pair` gives the sentence
for a mechanism (``WORST_PAIR`` is the Gaussian's); the lower ends do not depend on it.

Cost: one enclosure per source evaluation (milliseconds to seconds for Laplace, seconds to tens of seconds for the
Gaussian, see :mod:`blanket.exact.shuffled.continuous`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError

if TYPE_CHECKING:
    from blanket.reports.deployment import Deployment, Target

#: the deployment words routed here
WORDS = ("laplace", "gaussian")
#: the words of the sources (for the picture's rule in reports/curve.py)
UPPER_KEY = "blanket-view-continuous"
#: the suffix of a source too slow to draw on the picture's grid (Gaussian, or n > 10^5)
SLOW = "-slow"
LOWER_KEY = "quantised-threshold"
#: the key of the mechanism's own exact δ on 0^n vs 1·0^(n−1) (lower side of its enclosure)
DATASET_KEY = "dataset-lower-continuous"
#: the upper end's stated assumption for the Gaussian (certificate targets and composed rounds say it)
WORST_PAIR = (
    "the blanket view is computed for the pair of inputs (0, 1), assumed to be the worst pair (a certified grid "
    "search over pairs, not a proof: docs/reference/blanket.md section 4); the lower ends do not depend on it"
)
#: the same place for Laplace: the pair is proved the worst
WORST_PAIR_PROVED = (
    "the blanket view is computed for the pair of inputs (0, 1), proved to be the worst pair for the Laplace "
    "mechanism (L_{x,x'} <=_cx L_{0,1} for all inputs: docs/reference/blanket.md section 4, "
    "proofs/continuous_worst_pair.py); the lower ends do not depend on it"
)


def worst_pair(kind: str) -> str:
    """What the upper end's pair of inputs (0, 1) rests on for the mechanism ``kind`` ("laplace": proved;
    "gaussian": assumed).  O(1)."""
    return WORST_PAIR_PROVED if kind == "laplace" else WORST_PAIR


def every_dataset(kind: str) -> str:
    """The parenthesis "(an upper bound on every dataset ...)" of the upper end, naming its proof or assumption."""
    why = "(0, 1) proved the worst pair" if kind == "laplace" else "assuming (0, 1) is the worst pair"
    return f"an upper bound on every dataset, {why}"


#: what limits an INCONCLUSIVE verdict here (the command's hint)
LIMIT = (
    "more precision cannot decide it: the upper end is the blanket view's enclosure on a lattice (its width) and "
    "the lower end the mechanism's own delta on 0^n vs 1 0^(n-1) on a lattice, or the outputs quantised at 1/2 "
    "(their gap to the worst case); a claim between them needs a tighter method, not bits"
)


def record(dep: Deployment) -> Any:
    """The :class:`~blanket.exact.mechanisms.continuous.Laplace` / ``Gaussian`` record of ``dep``.  O(1)."""
    from blanket.exact.accounting.continuous_rounds import continuous_record

    return continuous_record({"type": dep.mechanism, **{k: str(v) for k, v in dep.params.items()}})


def dataset_lattice(n: int) -> Any:
    """The lattice step of the mechanism's own δ on ``0^n`` vs ``1·0^{n−1}``: ``1/32`` up to ``n = 10^5``, ``1/16``
    beyond (as ``blanket epsilon``).  O(1)."""
    from flint import fmpq

    return fmpq(1, 32) if n <= 10**5 else fmpq(1, 16)


def sources(dep: Deployment, source: Callable[..., Any]) -> list:
    """The blanket view (upper), the thresholded datasets (lower) and the mechanism's own δ on the same datasets
    (lower; not drawn on the picture, :func:`blanket.reports.curve.slow_for_plot`) as certificate sources
    (``source``: the certificate's ``Source`` record, passed in so that this module does not import the
    certificate).  O(1)."""
    from blanket.exact.accounting.continuous_rounds import default_lattice
    from blanket.exact.mechanisms.continuous import Gaussian
    from blanket.exact.shuffled.continuous import blanket_view, quantised_rr
    from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower
    from blanket.exact.shuffled.krr import delta_krr_family

    mech = record(dep)
    n = dep.n
    h = default_lattice(n)
    slow = isinstance(mech, Gaussian) or n > 10**5

    def upper(eps, mech=mech):
        return blanket_view(mech, n, epsilon=eps, h=h).upper, None

    def lower(eps, mech=mech):
        return delta_krr_family(quantised_rr(mech), n, "same", epsilon=eps), {
            "dataset": f"all other {n - 1} users hold 0, the differing user holds 1 versus 0; outputs thresholded "
            "at 1/2 (a post-processing)",
            "family": "same",
        }

    hd = dataset_lattice(n)

    def own(eps, mech=mech):
        vals = {d: dataset_delta_lower(mech, n, epsilon=eps, h=hd, direction=d) for d in ("1|0", "0|1")}
        d = max(vals, key=lambda k: vals[k])
        order = "(1, 0^(n-1)) against 0^n" if d == "1|0" else "0^n against (1, 0^(n-1))"
        return vals[d], {
            "dataset": f"all other {n - 1} users hold 0, the differing user holds 1 versus 0 (the mechanism's own "
            f"outputs; delta of {order}, lower side of its enclosure on the lattice step {hd})",
            "family": "same",
        }

    return [
        source(
            UPPER_KEY + (SLOW if slow else ""),
            "upper",
            f"exact blanket view of Lemma 5.3 for the inputs (0, 1) ({every_dataset(mech.kind)}; enclosure "
            f"on the lattice step {h})",
            upper,
            results=(("BBGN19", "Lemma 5.3"),),
            module="exact.shuffled.continuous.blanket_view",
        ),
        source(
            LOWER_KEY,
            "lower",
            "exact delta of the outputs thresholded at 1/2 on the datasets 0^n vs 1 0^(n-1) (a lower bound on the "
            "mechanism)",
            lower,
            module="exact.shuffled.continuous.quantised_rr + exact.shuffled.krr.delta_krr_family",
        ),
        source(
            DATASET_KEY,
            "lower",
            "the mechanism's exact delta on the datasets 0^n vs 1 0^(n-1) (lower side of its lattice enclosure; a "
            "lower bound on the mechanism)",
            own,
            module="exact.shuffled.continuous_dataset.dataset_delta_lower",
        ),
    ]


def target(dep: Deployment, target: Target, rec: dict, source: Callable[..., Any], digits: int) -> dict:
    """Fill ``rec`` (the target's record, see ``certificate.certify_target``) with the certified bracket of ε at the
    target δ: upper end the blanket view, lower end the larger of the mechanism's own δ on ``0^n`` vs
    ``1·0^{n−1}`` and the thresholded outputs' (``lower_source`` names it, ``lower_candidates`` gives both).
    Cost: about a dozen enclosures, one calibration of binary RR, and one or two lower-side lattice sums."""
    from blanket.exact.accounting.continuous_rounds import default_lattice
    from blanket.exact.shuffled.continuous import epsilon_bracket, quantised_epsilon_lower
    from blanket.exact.shuffled.continuous_dataset import dataset_epsilon_lower

    mech = record(dep)
    h = default_lattice(dep.n)
    try:
        br = epsilon_bracket(mech, dep.n, target.delta, h=h, rel_tol=1e-3 if dep.n <= 10**5 else 1e-2)
        q_th = quantised_epsilon_lower(mech, dep.n, target.delta)
    except BlanketError as exc:
        rec["reason"] = str(exc)
        return rec
    try:
        q_ds = dataset_epsilon_lower(mech, dep.n, target.delta, h=dataset_lattice(dep.n))
    except BlanketError as exc:  # e.g. too large a lattice: the thresholded outputs' end stands
        q_ds, rec["lower_note"] = None, f"the mechanism's own delta was not computed: {exc}"
    rec["epsilon_upper"] = arith.decimal_string(br.hi, digits, up=True)
    src = sources(dep, source)
    rec["upper_source"] = src[0].title
    rec["upper_key"] = src[0].key
    rec["assumption"] = worst_pair(mech.kind)
    own = q_ds is not None and q_ds > q_th
    qlo = q_ds if own and q_ds is not None else q_th
    rec["lower_candidates"] = {
        src[2].key: None if q_ds is None else arith.decimal_string(q_ds, digits, up=False),
        src[1].key: arith.decimal_string(q_th, digits, up=False),
    }
    rec["kind"] = "bracket" if 0 < qlo < br.hi else "upper"
    if rec["kind"] == "bracket":
        rec["epsilon_lower"] = arith.decimal_string(qlo, digits, up=False)
        rec["lower_source"] = src[2].title if own else src[1].title
        rec["lower_key"] = src[2].key if own else src[1].key
        rec["lower_dataset"] = (
            "0^n vs 1 0^(n-1), the mechanism's own outputs" if own else "0^n vs 1 0^(n-1), outputs thresholded at 1/2"
        )
        rec["relative_width"] = arith.decimal_string(arith.exact((br.hi - qlo) / br.hi), 3, up=True)
    rec["blanket_view_epsilon"] = {
        "lower": arith.decimal_string(br.lo, digits, up=False),
        "upper": rec["epsilon_upper"],
        "lattice_step": str(h),
    }
    return rec


def one_round_lower(rounds: list, *, delta: Any = None, epsilon: Any = None) -> tuple | None:
    """The composition's lower end from one round alone: a composition is never below one of its rounds (the
    other rounds' outputs dropped: a post-processing), so the largest, over the Laplace/Gaussian ``rounds``
    (``[(record, n)]``), of the mechanism's own certified lower end on ``0^n`` vs ``1·0^{n−1}`` — the ε at ``delta``
    (:func:`~blanket.exact.shuffled.continuous_dataset.dataset_epsilon_lower`) or the δ at ``epsilon``
    (:func:`~blanket.exact.shuffled.continuous_dataset.dataset_delta_lower`, both orders).  Returns
    ``(value, text)`` or ``None`` when nothing positive was certified.  Cost: one or two lower-side lattice sums
    per round (seconds at n = 10^6)."""
    from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower, dataset_epsilon_lower
    from flint import fmpq

    best, text = fmpq(0), ""
    for mech, n in rounds:
        try:
            if delta is not None:
                v = dataset_epsilon_lower(mech, n, delta, h=dataset_lattice(n))
            else:
                v = max(
                    dataset_delta_lower(mech, n, epsilon=epsilon, h=dataset_lattice(n), direction=d)
                    for d in ("1|0", "0|1")
                )
        except BlanketError:
            continue
        if v > best:
            best = v
            text = (
                f"one round alone (the {mech.kind} randomizer, n = {n}): its own exact delta on the datasets "
                "0^n vs 1 0^(n-1), lower side of its lattice enclosure (a composition is never below one of its rounds)"
            )
    return (best, text) if best > 0 else None
