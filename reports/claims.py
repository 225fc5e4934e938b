"""Deciding one claim of a certificate: the sources of certified values, the registered bounds, the verdict.

Cheapest first.  A claim is first compared with the cheap certified bounds
only -- an upper bound valid for every dataset (the blanket view, and every
registered bound that applies) and a lower bound from a concrete dataset
(``c = 0`` for binary RR, the families for k-RR); HOLDS or FAILS as soon as
one of them decides.  The exact worst-case sweep (binary RR, an
``expensive`` source) runs only when the claim falls between them, and only
after :mod:`exact.runtime.budget` has checked that it can finish (else INCONCLUSIVE,
with the estimate and the options).  Each claim's record says which bound
decided (``decided_by``) and whether the sweep ran (``exact_sweep``).
Targets (ε for a δ) report the certified bracket: the upper end from the
blanket view, the lower end from the concrete datasets
(:func:`exact.accounting.profiles.epsilon_bracket`), refined by the exact worst case for
binary RR only when that is cheap (:data:`blanket.reports.certificate.CHEAP_SWEEP_SECONDS`).

Where the numbers come from (:func:`sources`), tightest first:

* binary RR: the exact worst case over all datasets
  (``exact.shuffled.binary.delta_binary_worst``), which is at once the upper and the
  lower bound -- expensive, so the blanket view (upper) and the dataset
  ``c = 0`` (lower) are tried first;
* any finite randomizer at small ``n`` (estimated work ≤
  :data:`ENUMERATION_WORK`): the exact worst case by exhaustive enumeration of
  dataset classes (``exact.shuffled.enumerate.worst_case``), again both bounds;
* k-RR, k > 2, at large ``n``: upper bound the exact blanket view of
  Lemma 5.3 (``exact.shuffled.krr.delta_blanket_view``), lower bound the maximum of the
  exact δ over the dataset families ``same`` / ``neighbour`` / ``third``
  (``exact.shuffled.krr.delta_krr_family``);
* every registered result (``proofs.core.results()``) that is an upper bound
  on ``delta`` or on ``epsilon`` for the deployment's mechanism family and
  whose hypotheses hold — its value is listed, and it may decide HOLDS
  (an ε-bound ε̄(δ) ≤ ε_claim implies δ(ε_claim) ≤ δ because δ(·) is
  non-increasing); results whose hypotheses fail are listed with the failing
  hypothesis.  Known-false variants are never used.

Adding a result to the registry makes it appear in certificates with no code
here.  Exact routines that are not installed yet (other modules of the
project) are skipped, and the certificate says which ones were used.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp
from blanket.exact.accounting import certified as cb
from blanket.exact.accounting import curve_pairs, matrix_lower, same_randomizer
from blanket.exact.accounting.profiles import (
    Effort,
    check_worst_cost,
    eps0_of,
    sweep_start_precision,
    sweep_worst,
)
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from blanket.exact.runtime.budget import TooExpensive
from blanket.exact.shuffled import binary, krr, matrix_view
from blanket.exact.shuffled import enumerate as en
from blanket.exact.shuffled.positive_part import DEFAULT_TOL
from blanket.proofs import core
from flint import arb, ctx, fmpq
from sympy.core.function import AppliedUndef

from . import continuous_certificate
from .deployment import ORACLE_WORDS, Deployment
from .latex import exact_string
from .verdict import FAILS, HOLDS, INCONCLUSIVE

if TYPE_CHECKING:
    from blanket.exact.mechanisms.finite import Randomizer
    from blanket.proofs.core import Result

    from .deployment import Claim

#: largest (dataset classes × histograms) for which the exhaustive worst case is computed
ENUMERATION_WORK = 40000
DIGITS = 6


def mechanism_assumptions(dep: Deployment) -> list:
    """What the certificate assumes about the randomizer itself, for the closed-form records."""
    if dep.mechanism == "ldp" and dep.params.get("same_randomizer"):
        return [same_randomizer.ASSUMPTION + " " + LDP_LOWER]
    if dep.mechanism == "ldp":
        return [LDP_MODEL + " " + LDP_LOWER]
    if dep.mechanism == "matrix" and dep.params.get("same_randomizer"):
        return [
            "The randomizer is exactly the stated matrix, fixed before the round and run by every user on their own "
            "value (same_randomizer = true): Lemma G1 (the blanket view of binary randomized response with the "
            "matrix's epsilon0; this project's derivation, status derived, docs/mechanisms.md) is among the upper "
            "bounds, without the stronger clones' condition."
        ]
    if dep.mechanism == "olh":
        p = dep.params
        c = exact_string(p["collision"]) if "collision" in p else f"1/{p['g']} (a pairwise-independent family)"
        kap = exact_string(p["constant"]) if "constant" in p else "0"
        return [
            f"The randomizer is local hashing as stated; its hash family has pair-collision probability {c} for every "
            f"pair of values and is constant on the domain with probability {kap} (stated assumptions on the family)."
        ]
    if dep.mechanism in continuous_certificate.WORDS:
        return [
            "The randomizer is exactly the stated one on the input range [0, 1]; the upper end: "
            + continuous_certificate.WORST_PAIR
            + "."
        ]
    if dep.mechanism in ORACLE_WORDS:
        return [
            "The randomizer is exactly the stated one (its closed-form output law, docs/mechanisms.md); the "
            "certified bounds use its exact epsilon0, its blanket decomposition and the law of L."
        ]
    return []


#: the plain ``ldp`` record's model, in words (FMT21: adaptive randomizers on the permuted data; not client-specific)
LDP_MODEL = (
    "The randomizer: the only assumption is that it is epsilon0-LDP with the stated epsilon0, in Feldman-McMillan-"
    "Talwar's model (FOCS 2021): the users' randomizers may be chosen adaptively, each from the earlier reports, and "
    "are applied to the randomly permuted data; the upper bound is the smaller of the FOCS 2021 clone pair and Lemma "
    "G1 (the blanket view of binary randomized response with the same epsilon0; proved for that model in "
    "docs/mechanisms.md, this project's derivation, status derived). "
    "Client-specific randomizers (user i always runs its own R_i, whatever the permutation) are not covered: with "
    "users 2..n on a constant randomizer there is no amplification at all."
)
LDP_LOWER = (
    "The lower bound comes from one member of the class (binary or 3-ary randomized response with the same "
    "epsilon0, on a concrete pair of datasets)."
)

MONOTONICITY = (
    "The worst-case delta(epsilon) is non-increasing in n: a replace-one neighbouring pair of n+1 users is a pair of n "
    "users plus one common user z, and the shuffled view of the n+1 users is the view of the n users with z's "
    "independent report added and the whole re-shuffled, which is a post-processing. Hence an upper bound certified at "
    "n = n_min holds for every n >= n_min; a failure at n = n_min refutes the claim for every n >= n_min."
)

FAMILY_TEXT = {
    "same": "every other user holds the differing user's first value x",
    "neighbour": "every other user holds the differing user's second value x'",
    "third": "every other user holds a third value, different from x and x'",
}


# ================================================================ sources of certified values
@dataclasses.dataclass
class Source:
    """A certified value of δ(ε) for the deployment: ``role`` is ``"exact"`` (both bounds), ``"upper"`` or ``"lower"``.

    ``compute(eps)`` runs at flint's current precision and returns
    ``(value, witness)`` where ``witness`` describes the dataset (for lower
    and exact values) or ``None``.
    """

    key: str
    role: str
    title: str
    compute: Callable[[fmpq], tuple]
    results: tuple = ()  # registry labels (paper, label) of the results this source rests on
    module: str = ""
    expensive: bool = False  # run only when the cheap sources leave the claim undecided
    #: ``compute(eps, tol=T)`` accepts an absolute windowing tolerance (the enclosure's radius from its tails, which
    #: does not shrink with the precision): a claim's δ below the default tolerance passes one that can resolve it
    takes_tol: bool = False


#: a tolerance-taking source evaluated for a claim (ε, δ) gets the absolute tolerance min(default, δ·2^-CLAIM_TOL_BITS)
#: (:func:`claim_tolerance`), so that its enclosure can decide δ at the first pass
CLAIM_TOL_BITS = 8


def claim_tolerance(delta: Any) -> fmpq | None:
    """The windowing tolerance a claim's δ asks of a tolerance-taking source (:attr:`Source.takes_tol`): ``None``
    (the routine's default, :data:`blanket.exact.shuffled.positive_part.DEFAULT_TOL` = 2^-80) when δ·2^-8 is not
    below it (or δ = 0), else ``δ·2^-8``, so that the enclosure's radius (about the tolerance) cannot straddle a
    tiny δ: at δ = 10^-100 the default tolerance leaves the blanket view's ball [-6e-33, 2.4e-24] around its
    value 3.9e-90, undecided at every precision.  A choice only (the enclosure is certified at any tolerance); the
    routine's cost grows like √log(1/tol).  ``None`` also for ``delta=None`` (no claim).  O(1)."""
    if delta is None:
        return None
    d = fmpq(delta)
    if d <= 0:
        return None
    t = d / 2**CLAIM_TOL_BITS
    return t if t < DEFAULT_TOL else None


def _dataset_text(others, x, x2, n):
    counts: dict[int, int] = {}
    for v in others:
        counts[v] = counts.get(v, 0) + 1
    parts = (
        ", ".join(f"{c} user{'s' if c != 1 else ''} hold {v}" for v, c in sorted(counts.items())) or "no other users"
    )
    return f"of the other {n - 1} users, {parts}; the differing user holds {x} versus {x2}"


def _enumeration_work(mech, n) -> int | None:
    k_in = getattr(mech, "k_in", None) or len(mech.matrix())  # never build a k x k matrix just to count
    if math.comb(n + k_in - 2, k_in - 1) > 50 * ENUMERATION_WORK:  # multisets of the others: cheap upper estimate
        return None
    try:
        classes = en.count_classes(mech, n)
    except BlanketError:
        return None
    k_out = len(mech.row(0))
    if getattr(mech, "symmetric", False):
        k_out = min(k_out, 4)  # k-RR lumps the unused outputs
    return classes * math.comb(n + k_out - 1, k_out - 1)


def _blanket_source(mech, n, krr) -> Source:
    def comp(eps, mech=mech, tol=None):
        opts = {} if tol is None else {"tol": tol}
        return krr.delta_blanket_view(mech, n, epsilon=eps, **opts), None

    return Source(
        "blanket-view",
        "upper",
        "exact blanket view of Lemma 5.3 (an upper bound on the worst case)",
        comp,
        results=(("BBGN19", "Lemma 5.3"),),
        module="exact.shuffled.krr.delta_blanket_view",
        takes_tol=True,
    )


#: the matrix's own blanket view (any n) and its binarized lower pair: source keys
MATRIX_VIEW_KEY = "matrix-blanket-view"
MATRIX_LOWER_KEY = "matrix-binarized"
#: above the enumeration limit, a matrix's Lemma 5.3 view is also enumerated (tighter than the spread view) up to this n
#: when it has more than four atoms (the enumeration costs O(n^{A-1}) terms)
MATRIX_ENUMERATED_VIEW_MAX_N = 40


def matrix_sources(mech: Randomizer, n: int) -> list[Source]:
    """A ``matrix`` randomizer above the enumeration limit: its own Lemma 5.3 blanket view at any n
    (:func:`blanket.exact.shuffled.matrix_view.matrix_blanket_view`, three atoms at every n and four up to
    :data:`blanket.exact.accounting.curve_pairs.MATRIX_FOUR_MAX_N` users when a pair has more; upper) and the binarized
    count of one concrete dataset (:func:`blanket.exact.accounting.matrix_lower.lower_delta`; lower).  O(1) to build."""
    if not matrix_view.is_matrix(mech):
        return []
    out: list[Source] = []
    three = matrix_view.atom_count(mech) <= 3
    sizes = [3] if three or n > curve_pairs.MATRIX_FOUR_MAX_N else [3, 4]
    for atoms in sizes:
        eng = None if atoms == 3 or n <= curve_pairs.MATRIX_GRID_MAX_N else "1d"

        @_memo
        def comp_view(eps, atoms=atoms, eng=eng):
            return matrix_view.matrix_blanket_view(mech, n, atoms=atoms, engine=eng, epsilon=eps), None

        spread = "" if three else f", {atoms} atoms" + (" (spread)" if matrix_view.atom_count(mech) > atoms else "")
        out.append(
            Source(
                f"{MATRIX_VIEW_KEY}-{atoms}",
                "upper",
                f"blanket view of Lemma 5.3 for the matrix{spread} (an upper bound on every dataset)",
                comp_view,
                results=(("BBGN19", "Lemma 5.3"),),
                module="exact.shuffled.matrix_view.matrix_blanket_view",
            )
        )

    @_memo
    def comp_lower(eps):
        v, text = matrix_lower.lower_delta(mech, n, eps)
        return fmpq(v.numerator, v.denominator), {"dataset": text}

    out.append(
        Source(
            MATRIX_LOWER_KEY,
            "lower",
            "exact delta of a concrete dataset's binarized count (a lower bound on the worst case)",
            comp_lower,
            results=("Matrix binarized lower pair",),  # proofs/composition.py (docs/composition.md §5e)
            module="exact.accounting.matrix_lower.lower_delta",
        )
    )
    return out


def _stronger_clone_source(mech, n) -> Source:
    """The SODA 2023 stronger-clone pair (``stronger_clones = true`` of a ``matrix`` randomizer), after its sufficient
    condition is checked on the exact matrix (:func:`blanket.exact.accounting.stronger_clones.check_condition`:
    refused, naming the violating output, when it fails).  Its δ is the Lemma 5.3 blanket view of binary RR with the
    matrix's ``e^{ε0}`` (:func:`blanket.exact.shuffled.krr.delta_stronger_clones`)."""
    from blanket.exact.accounting import stronger_clones as sc

    sc.check_condition(mech)
    e = mech.exp_epsilon0()

    def comp(eps, e=e):
        return krr.delta_stronger_clones(n, exp_epsilon0=e, epsilon=eps), None

    return Source(
        "stronger-clones",
        "upper",
        sc.DESCRIPTION,
        comp,
        module="exact.accounting.stronger_clones",
    )


def _same_randomizer_source(mech, n) -> Source:
    """Lemma G1 for a ``matrix`` randomizer stated as one randomizer for every user (``same_randomizer = true``): the
    Lemma 5.3 blanket view of binary RR with the matrix's ``e^{ε0}``
    (:func:`blanket.exact.shuffled.generic_ldp.same_randomizer_delta`); no condition on the matrix."""
    from blanket.exact.shuffled import generic_ldp

    def comp(eps, mech=mech):
        return generic_ldp.same_randomizer_delta(mech, n, epsilon=eps), None

    return Source(
        "same-randomizer",
        "upper",
        same_randomizer.DESCRIPTION,
        comp,
        results=(same_randomizer.RESULT_KEY,),
        module="exact.shuffled.generic_ldp.same_randomizer_delta",
    )


def sources(
    dep: Deployment, mech: Randomizer | None, *, workers: int | None = None, scheduler: str | None = None
) -> list[Source]:
    """The exact routines that apply to ``dep`` (see the module docstring), cheap ones first.

    ``workers`` / ``scheduler`` choose where the exact worst-case sweep runs (:mod:`exact.runtime.executors`).
    """
    out: list[Source] = []
    n = dep.n
    if dep.mechanism in continuous_certificate.WORDS:  # Laplace / Gaussian: blanket view above, thresholds below
        return continuous_certificate.sources(dep, Source)
    if mech is None:
        return out
    if dep.mechanism in ORACLE_WORDS:
        return oracle_sources(mech, n)
    k = getattr(mech, "k", None)
    is_krr = dep.mechanism in ("krr", "binary_rr")
    if dep.mechanism == "matrix" and dep.params.get("stronger_clones"):  # checked (or refused) first, at every n
        out.append(_stronger_clone_source(mech, n))
    if dep.mechanism == "matrix" and dep.params.get("same_randomizer"):  # Lemma G1: stated, nothing to check
        out.append(_same_randomizer_source(mech, n))
    if is_krr and k == 2:
        out.append(_blanket_source(mech, n, krr))

        def comp_c0(eps, mech=mech):
            return binary.delta_binary(mech, n, 0, epsilon=eps), {
                "dataset": f"c=0: all other {n - 1} users hold 0, the differing user holds 1 versus 0 (both directions)",
                "c": 0,
            }

        out.append(
            Source(
                "dataset-c0",
                "lower",
                "exact delta on the dataset c = 0 (a lower bound on the worst case)",
                comp_c0,
                module="exact.shuffled.binary.delta_binary",
            )
        )

        def comp(eps, mech=mech):
            w = sweep_worst(mech, n, epsilon=eps, progress=True, workers=workers, scheduler=scheduler)
            text = getattr(w, "dataset", None) or f"c={w.c} ones among the other {n - 1} users ({w.direction})"
            return w.value, {"dataset": text, "c": w.c, "direction": str(w.direction)}

        out.append(
            Source(
                "exact-worst-binary",
                "exact",
                "exact worst case over all datasets (binary RR)",
                comp,
                module="exact.shuffled.binary.delta_binary_worst",
                expensive=True,
            )
        )
        return out
    work = _enumeration_work(mech, n)
    if work is not None and work <= ENUMERATION_WORK:

        def comp(eps, mech=mech):
            w = en.worst_case(mech, n, epsilon=eps)
            return w.value, {
                "dataset": _dataset_text(w.others, w.x, w.x2, n),
                "others": list(w.others),
                "x": w.x,
                "x2": w.x2,
                "classes": w.classes,
            }

        out.append(
            Source(
                "exact-worst-enumeration",
                "exact",
                "exact worst case over all datasets (exhaustive enumeration of dataset classes)",
                comp,
                module="exact.shuffled.enumerate.worst_case",
            )
        )
        return out
    if is_krr:
        out.append(_blanket_source(mech, n, krr))
    if dep.mechanism == "matrix" and matrix_view.is_matrix(mech):
        # Lemma 5.3 by enumeration (O(n^{A-1}) terms, A atoms): only where the matrix view spreads atoms (more than
        # four) and n is small; else the matrix view is Lemma 5.3's own value (or the enumeration is out of reach)
        if matrix_view.atom_count(mech) > 4 and n <= MATRIX_ENUMERATED_VIEW_MAX_N:
            out.append(_blanket_source(mech, n, krr))
        out += matrix_sources(mech, n)
    if is_krr:
        for fam in ("same", "neighbour", "third"):
            if fam == "third" and k is not None and k < 3:
                continue

            def comp_family(eps, mech=mech, fam=fam, tol=None):
                opts = {} if tol is None else {"tol": tol}
                return krr.delta_krr_family(mech, n, fam, epsilon=eps, **opts), {
                    "dataset": f"family '{fam}': {FAMILY_TEXT[fam]}",
                    "family": fam,
                }

            out.append(
                Source(
                    f"family-{fam}",
                    "lower",
                    f"exact delta on the dataset family '{fam}'",
                    comp_family,
                    module="exact.shuffled.krr.delta_krr_family",
                    takes_tol=True,
                )
            )
    return out


def _memo(fn: Callable[[fmpq], tuple]) -> Callable[[fmpq], tuple]:
    """``fn`` remembering its answers by ``(ε, flint's precision)``: a certificate asks an oracle's routes (seconds
    each at n = 10^6) at the same ε for a claim, the target's calibration and the picture.  Failures are not
    remembered.  O(1) per repeated call."""
    seen: dict = {}

    def wrapped(eps):
        if not isinstance(eps, fmpq):  # only exact ε are remembered (a ball is not a key)
            return fn(eps)
        key = (eps, ctx.prec)
        if key not in seen:
            seen[key] = fn(eps)
        return seen[key]

    return wrapped


def oracle_sources(mech: Randomizer, n: int) -> list[Source]:
    """Sources for a closed-form record (exact/mechanisms/oracles.py): every applicable certified upper bound of
    :mod:`exact.accounting.certified` (the smallest decides: best certified bound wins) and the concrete-dataset lower
    bound, so that a claim can FAIL."""
    out: list[Source] = []
    for r in cb.upper_routes(mech, n):

        @_memo
        def comp(eps, r=r):
            return r.compute(epsilon=eps), None

        out.append(
            Source(
                "upper: " + r.name,
                "upper",
                f"{r.name} (an upper bound on every dataset)",
                comp,
                results=tuple(k for k in r.results),
                module=r.module,
            )
        )

    @_memo
    def comp_lower(eps):
        v, where = cb.lower_bound(mech, n, epsilon=eps)
        if v is None:
            raise Undecided(where)
        return v, {"dataset": where}

    out.append(
        Source(
            "lower: concrete dataset",
            "lower",
            "exact delta on a concrete dataset (a lower bound on the worst case)",
            comp_lower,
            module="exact.accounting.certified.lower_bound",
        )
    )
    return out


# ================================================================ registered bounds
_FAMILIES = {
    "binary_rr": {"any", "finite", "rr", "krr", "k-rr", "binary", "binary_rr", "2rr"},
    "krr": {"any", "finite", "rr", "krr", "k-rr"},
    "matrix": {"any", "finite", "matrix"},
    "laplace": {"any", "laplace"},
    "gaussian": {"gaussian"},  # not epsilon0-LDP: no "any" (epsilon0) result applies
    # every oracle record is an epsilon0-LDP randomizer: results for "ldp" apply to all of them
    **{w: {"any", "ldp", w} for w in ("ldp", "oue", "sue", "olh", "hadamard", "subset", "geometric")},
}


def candidate_results(dep: Deployment) -> list:
    """Registered upper bounds on δ or ε whose mechanism family covers the deployment (known-false ones excluded).

    The bounded quantity (the statement's left side) must be the symbol
    ``delta`` / ``epsilon`` itself or an applied function naming the
    mechanism's quantity (e.g. ``DeltaShuffled(k, n, epsilon0, epsilon)``);
    results about another quantity (a composed ``epsilon_total``) are not
    candidates even when their symbols share names with the deployment's.
    """
    fams = _FAMILIES[dep.mechanism]
    if dep.mechanism == "binary_rr" or (dep.mechanism == "krr" and dep.params.get("k") == 2):
        fams = _FAMILIES["binary_rr"]
    out = []
    # selected by metadata first: only the paper modules holding such a result are imported (proofs.core._index)
    for r in core.results(include_false=False, kind="upper_bound", quantities=("delta", "epsilon"), mechanisms=fams):
        lhs = getattr(r.statement, "lhs", None)
        if lhs is None or (not getattr(lhs, "args", ()) and getattr(lhs, "name", None) != r.quantity):
            continue  # the bounded quantity is not the central delta/epsilon itself (e.g. a composed epsilon_total)
        rhs = getattr(r.statement, "rhs", None)
        if rhs is not None and rhs.atoms(AppliedUndef):
            continue  # the bound is a quantity an engine computes (e.g. the fleet view of Lemma F1), not a closed form
        out.append(r)
    return out


def _provided(dep: Deployment, mech, claim_eps, claim_delta) -> dict:
    p: dict[str, Any] = {"n": dep.n, "epsilon": claim_eps, "delta": claim_delta}
    if "k" in dep.params:
        p["k"] = dep.params["k"]
    if "epsilon0" in dep.params:
        p["epsilon0"] = dep.params["epsilon0"]
    elif "exp_epsilon0" in dep.params:  # epsilon0 = its log as a ball; results receive the exact form (below)
        p["exp_epsilon0"] = dep.params["exp_epsilon0"]
        p["epsilon0"] = arith.log_ball(dep.params["exp_epsilon0"])
    if mech is not None:
        try:
            if callable(getattr(mech, "gamma", None)):  # an ldp record has no known blanket
                p["gamma"] = mech.gamma()
            if mech.exp_epsilon0() is not None and "epsilon0" not in p:
                e0 = mech.exp_epsilon0()
                p["epsilon0"] = arb(e0).log() if isinstance(e0, fmpq) else e0.log()
        except BlanketError:
            pass
    return p


_ARGS_DOC = re.compile(r"Arguments\s*``\(([^)]*)\)``")


def _lhs_arg_names(lhs) -> list | None:
    """Parameter names of the arguments of the bounded quantity ``lhs`` (an applied sympy function).

    Taken from the function class's ``arg_names`` attribute, or from a
    docstring line ``Arguments ``(k, n, epsilon0, epsilon)``;`` (the
    convention of ``proofs/``); ``None`` when neither is there.
    """
    names = getattr(type(lhs), "arg_names", None)
    if names:
        return list(names)
    m = _ARGS_DOC.search(type(lhs).__doc__ or "")
    if m:
        return [a.strip() for a in m.group(1).split(",")]
    return None


def lhs_applies(result: Result, dep: Deployment, provided: dict) -> tuple:
    """Is the quantity the result bounds the deployment's own δ(ε) (or ε(δ))?  ``(True, note)`` or ``(False, why)``.

    * ``lhs`` a plain symbol (``delta <= ...``): yes, it is the quantity of
      the mechanism the result's ``mechanisms`` names.
    * ``lhs`` an applied function (e.g. ``DeltaShuffled(k, n, epsilon0, epsilon)``)
      whose arguments are all plain symbols: yes.
    * an argument that is an *expression* (e.g. Theorem 3.1's ε0 as a
      function of γ(ε, δ)): the result is about another mechanism.  For
      k-RR and ``epsilon0`` it still applies when the deployment's ε0 is
      certified ≤ that expression, because k-RR with a smaller ε0 is k-RR
      with a larger ε0 followed by mixing each report with the uniform
      distribution (a post-processing that commutes with shuffling), so the
      worst-case δ is non-decreasing in ε0.  Otherwise it is not used.
    """

    lhs = getattr(result.statement, "lhs", None)
    if lhs is None or isinstance(lhs, sp.Symbol) or not getattr(lhs, "args", ()):
        return True, ""
    if all(isinstance(a, (sp.Symbol, sp.Number)) for a in lhs.args):
        return True, ""
    names = _lhs_arg_names(lhs)
    if names is None or len(names) != len(lhs.args):
        return False, "the bounded quantity is not recognisably this deployment's (its arguments are not named)"
    env = {k: v for k, v in provided.items()}
    notes = []
    for name, arg in zip(names, lhs.args):
        if isinstance(arg, (sp.Symbol, sp.Number)):
            continue
        if name != "epsilon0" or dep.mechanism not in ("krr", "binary_rr") or "epsilon0" not in provided:
            return False, f"the result bounds the mechanism with {name} = {arg}, not this deployment's"
        try:
            val = core.arb_eval(arg, env)
        except BlanketError as exc:
            return False, f"its {name} = {arg} could not be evaluated ({exc})"
        ok = arith.le(provided["epsilon0"], val)
        if ok is True:
            notes.append(
                f"it bounds k-RR with epsilon0 = {arith.decimal_string(val, DIGITS, up=False)}, at least the "
                "deployment's epsilon0 (delta is non-decreasing in epsilon0 for k-RR)"
            )
        elif ok is False:
            return False, (
                f"it bounds k-RR with epsilon0 = {arith.decimal_string(val, DIGITS, up=True)} (a function of "
                "epsilon and delta), below the deployment's epsilon0"
            )
        else:
            return False, f"undecided whether the deployment's epsilon0 is at most its epsilon0 = {arg}"
    return True, "; ".join(notes)


def evaluate_bound(
    result: Result, dep: Deployment, mech: Randomizer | None, claim_eps: fmpq, claim_delta: fmpq
) -> dict:
    """Evaluate one registered bound at the deployment (current precision).

    Returns ``{"applies": bool, "value": ball|None, "reason": str, "params": names}``.
    """
    names = {s.name for s in result.symbols}
    provided = _provided(dep, mech, claim_eps, claim_delta)
    lhs = getattr(result.statement, "lhs", None)
    lhs_name = getattr(lhs, "name", None) if lhs is not None and not getattr(lhs, "args", ()) else None
    params = {nm: provided[nm] for nm in names if nm in provided and nm != lhs_name}
    if "epsilon0" in params and "exp_epsilon0" in provided:  # ε0 in its exact form (proofs.core.Result._env): the
        del params["epsilon0"]  # symbolic sides take its log, an exact mechanism (Lemma 5.3's blanket view) e^{ε0}
        params["exp_epsilon0"] = provided["exp_epsilon0"]
    try:
        value = result.bound(**params)
        ok, note = lhs_applies(result, dep, {**provided, **params})
        if not ok:
            return {"applies": False, "value": None, "reason": note}
    except HypothesisViolation as exc:
        return {"applies": False, "value": None, "reason": f"hypothesis fails: {exc.hypothesis}"}
    except InvalidArgument as exc:
        missing = sorted(names - set(provided) - {lhs_name})
        why = f"needs {', '.join(missing)}, which the deployment does not determine" if missing else str(exc)
        return {"applies": False, "value": None, "reason": why}
    except Undecided as exc:
        return {"applies": False, "value": None, "reason": f"undecided at this precision ({exc})"}
    except BlanketError as exc:
        return {"applies": False, "value": None, "reason": f"not evaluable: {exc}"}
    if isinstance(value, arb) and not value.is_finite():
        return {"applies": False, "value": None, "reason": "not finite at these parameters"}
    return {"applies": True, "value": value, "reason": note}


# ================================================================ deciding one claim
def _upper_end(v):
    return arith.endpoints(v)[1]


def _lower_end(v):
    return arith.endpoints(v)[0]


def _interval(v, *, decide=None, above=None) -> dict:
    """Outward-rounded decimals of a δ or ε (both >= 0: a negative lower end is printed as 0, with the reason).

    With ``decide`` (a threshold), as many digits as it takes for the printed interval to decide the
    comparison (``above=True``: lower end > threshold; ``above=False``: upper end <= threshold), so that
    every verdict can be re-checked from the printed numbers.
    """
    if decide is not None:
        return arith.decisive_interval(v, decide, digits=DIGITS, above=above)
    return arith.nonneg_interval(v, DIGITS)


def _find_results(paper, label) -> list:
    return core.results(paper, label=label, include_false=False)


def _evaluate_all(dep, mech, srcs, cands, eps, delta, prec):
    """Every source and candidate bound at one precision; failures of one source do not stop the others."""
    vals, errors = [], []
    tol = claim_tolerance(delta)
    with arith.precision(prec):
        for s in srcs:
            try:
                v, wit = s.compute(eps, tol=tol) if (s.takes_tol and tol is not None) else s.compute(eps)
            except Undecided as exc:
                errors.append((s.key, f"undecided: {exc}"))
                continue
            except BlanketError as exc:
                errors.append((s.key, str(exc)))
                continue
            if isinstance(v, arb) and not v.is_finite():
                errors.append((s.key, "not finite at this precision"))
                continue
            vals.append((s, v, wit))
        bounds = [(r, evaluate_bound(r, dep, mech, eps, delta)) for r in cands]
    return vals, bounds, errors


def _width(uppers, lowers) -> Fraction:
    """Total width of the best upper and lower enclosures (exact Fraction), to detect stalled escalation
    (``blanket delta`` of a matrix deployment; a claim's escalation uses :func:`_open_widths`)."""
    total = Fraction(0)
    for group, pick in ((uppers, _upper_end), (lowers, _lower_end)):
        if group:
            v = (min if group is uppers else max)((t[1] for t in group), key=pick)
            lo, hi = arith.endpoints(v)
            total += hi - lo
    return total


def _open_widths(uppers, lowers, bounds, eps, delta) -> dict:
    """The enclosures that could still decide the claim at a higher precision, by name, with their widths (exact):
    an upper bound on δ not certainly above ``delta``, a lower bound not certainly below it, a registered bound on ε
    not certainly above ``eps``.  The others cannot decide it at any precision (their side of the claim is settled).
    O(number of enclosures)."""
    out: dict = {}

    def put(tag, name, v):
        lo, hi = arith.endpoints(v)
        out[(tag, name)] = hi - lo

    for name, v, _r, _s in uppers:
        if arith.gt(v, delta) is not True:
            put("upper", name, v)
    for name, v, _w, _s in lowers:
        if arith.lt(v, delta) is not True:
            put("lower", name, v)
    for r, b in bounds:
        if b["applies"] and r.quantity == "epsilon" and arith.gt(b["value"], eps) is not True:
            put("epsilon", r.key, b["value"])
    return out


def _escalate(dep, mech, eps, delta, srcs, cands, start, cap):
    """Evaluate ``srcs`` and ``cands`` with precision doubling from ``start`` until the claim is decided,
    the cap is reached, no enclosure can decide it any more (``"between"``: every upper bound is certainly above
    δ, every lower bound certainly below) or none of those that could has narrowed (at least halved its width) since
    the previous precision (``stalled``: their widths are set by a windowing tolerance, not by the precision);
    returns the final state.  Each pass costs what its sources cost at that precision (the c = 0 dataset of binary
    RR: ~25 s at 1024 bits for n = 5000), so no pass is repeated that cannot decide."""
    prec = start
    last: dict | None = None
    stalled: bool | str = False
    while True:
        vals, bounds, errors = _evaluate_all(dep, mech, srcs, cands, eps, delta, prec)
        uppers = [(s.title, v, None, s) for s, v, w in vals if s.role in ("exact", "upper")]
        for r, b in bounds:
            if b["applies"] and r.quantity == "delta":
                uppers.append((f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else ""), b["value"], r, None))
        lowers = [(s.title, v, w, s) for s, v, w in vals if s.role in ("exact", "lower")]
        eps_certifiers = [
            (r, b) for r, b in bounds if b["applies"] and r.quantity == "epsilon" and arith.le(b["value"], eps) is True
        ]
        holds = any(arith.le(v, delta) is True for _, v, _, _ in uppers) or bool(eps_certifiers)
        fails = any(arith.gt(v, delta) is True for _, v, _, _ in lowers)
        if holds or fails or prec >= cap:
            break
        widths = _open_widths(uppers, lowers, bounds, eps, delta)
        if not widths:  # the claim lies strictly inside the gap between the bounds: more precision cannot decide it
            return vals, bounds, errors, uppers, lowers, eps_certifiers, holds, fails, prec, "between"
        if last is not None and all(k in last and w * 2 > last[k] for k, w in widths.items()):
            stalled = True  # the open enclosures are limited by a windowing tolerance, not by precision
            break
        last = widths
        prec = min(2 * prec, cap)
    return vals, bounds, errors, uppers, lowers, eps_certifiers, holds, fails, prec, stalled


def _short(title: str) -> str:
    """A source title without its parenthetical remark."""
    return title.split(" (")[0]


def _decider(holds, fails, uppers, lowers, eps_certifiers, delta, sweep: bool = True) -> dict | None:
    """Which certified bound decided the claim: ``{"bound": "upper"|"lower"|"exact"|"epsilon", "source", "text"}``.

    ``sweep``: an exact sweep over all datasets exists for this deployment (the text then says it was not needed).
    """
    skipped = "; no sweep over all datasets was needed" if sweep else ""
    if fails:
        name, v, w, s = max((t for t in lowers if arith.gt(t[1], delta) is True), key=lambda t: _lower_end(t[1]))
        if s.role == "exact":
            return {"bound": "exact", "source": name, "text": "the exact worst case over all datasets"}
        return {
            "bound": "lower",
            "source": name,
            "text": f"the lower bound from a concrete dataset, {_short(name)}{skipped}",
        }
    if holds:
        deciding = [t for t in uppers if arith.le(t[1], delta) is True]
        if deciding:
            name, v, r, s = min(deciding, key=lambda t: _upper_end(t[1]))
            if s is not None and s.role == "exact":
                return {"bound": "exact", "source": name, "text": "the exact worst case over all datasets"}
            kind = (
                f"the registered bound {name}"
                if r is not None
                else f"the upper bound valid for every dataset: {_short(name)}"  # a name, not always a noun ("Lemma G1 ...")
            )
            return {"bound": "upper", "source": name, "text": f"{kind}{skipped}"}
        r, b = eps_certifiers[0]
        name = f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else "")
        return {"bound": "epsilon", "source": name, "text": f"the registered bound on epsilon {name}{skipped}"}
    return None


def _sweep_budget(dep, mech, effort: Effort, eps=None) -> str | None:
    """``None`` if the exact worst case at ``dep.n`` can run on the effort's executor, else the reason it is not run
    (:func:`_sweep_plan`'s reason)."""
    return _sweep_plan(dep, mech, effort, eps)[0]


def _sweep_plan(dep, mech, effort: Effort, eps=None) -> tuple[str | None, int]:
    """``(reason, start)``: ``reason`` is ``None`` if the exact worst case at ``dep.n`` can run on the effort's
    executor, else why it is not run; ``start`` is the precision the escalation with the sweep starts at.

    Binary RR at the claim's ``eps``, as ``blanket delta`` does (:func:`blanket.exact.accounting.profiles.delta`):
    the sweep starts at the precision that resolves the pilot dataset's δ
    (:func:`blanket.exact.accounting.profiles.sweep_start_precision`; ``effort.start_prec`` when the float route
    decides it), and the estimate includes the ball route at that precision when the pilot
    shows that the float route cannot decide the deltas (:func:`exact.shuffled.binary.ball_route_seconds`, sharing
    the same float pilots), so that a tiny δ is refused at once by its real cost instead of running pass after pass
    at a precision that cannot resolve it.  O(√n·log₂(cap/start)) float work and one ball evaluation per pilot."""
    start = effort.start_prec
    pilot = None
    if eps is not None and isinstance(mech, KRR) and mech.k == 2:
        pilots: dict = {}
        start = sweep_start_precision(mech, dep.n, epsilon=eps, prec=start, cap=effort.cap, pilots=pilots)
        pilot = (mech, eps, None, start, pilots)
    try:
        check_worst_cost(dep.n, workers=effort.workers, scheduler=effort.scheduler, epsilon0=eps0_of(mech), pilot=pilot)
    except TooExpensive as exc:
        return (
            str(exc)
            .replace("(--dataset bracket: a concrete dataset below, the blanket view above)", "(the bounds above)")
            .replace("or one dataset (--dataset c=0)", "or a smaller n")
        ), start
    return None, start


def decide_claim(
    dep: Deployment,
    mech: Randomizer | None,
    claim: Claim,
    srcs: list[Source],
    cands: list[Result],
    effort: Effort,
) -> dict:
    """Decide one (ε, δ) claim with precision escalation (from ``effort.start_prec`` to ``effort.cap`` bits); returns
    a plain-data record (numbers as decimal strings).

    Cheapest first: the cheap sources and the registered bounds decide if they can; the expensive sources
    (the exact worst-case sweep) run only when the claim lies between them and the sweep fits the budget
    on the effort's executor (``workers`` / ``scheduler``).
    """
    eps, delta = claim.epsilon, claim.delta
    cheap = [s for s in srcs if not s.expensive]
    heavy = [s for s in srcs if s.expensive]
    start, cap = effort.start_prec, effort.cap
    state = _escalate(dep, mech, eps, delta, cheap, cands, start, cap)
    sweep_note = "not needed: the cheap bounds decided" if heavy else None
    if heavy and not (state[6] or state[7]):
        skipped, sweep_start = _sweep_plan(dep, mech, effort, eps)
        if skipped is None:  # from the precision that resolves the pilot's delta (binary RR), as blanket delta does
            state = _escalate(dep, mech, eps, delta, srcs, cands, max(start, min(sweep_start, cap)), cap)
            sweep_note = "ran: the claim lies between the cheap bounds"
        else:
            sweep_note = f"not run: {skipped}"
    vals, bounds, errors, uppers, lowers, eps_certifiers, holds, fails, prec, stalled = state

    best_upper = min(uppers, key=lambda t: _upper_end(t[1])) if uppers else None
    best_lower = max(lowers, key=lambda t: _lower_end(t[1])) if lowers else None
    refuted = []
    if fails:
        verdict = FAILS
        assert best_lower is not None  # FAILS rests on a lower bound above delta
        for name, v, r, _ in uppers:
            if r is not None and arith.lt(v, best_lower[1]) is True:
                refuted.append(name)
        for r, _b in eps_certifiers:
            refuted.append(f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else ""))
    elif holds:
        verdict = HOLDS
    else:
        verdict = INCONCLUSIVE

    rec: dict[str, Any] = {
        "field": claim.field,
        "epsilon": exact_string(eps),
        "delta": exact_string(delta),
        "verdict": verdict,
        "precision": prec,
        "stalled": stalled is True,
        "between_bounds": stalled == "between",
        "upper": None,
        "lower": None,
        "witness": None,
        "refuted_bounds": refuted,
        "source_errors": [{"source": k, "error": e} for k, e in errors],
        "epsilon_bound": None,
        "decided_by": _decider(holds and not fails, fails, uppers, lowers, eps_certifiers, delta, sweep=bool(heavy)),
        "exact_sweep": sweep_note,
    }
    if best_upper is not None:
        name, v, r, s = best_upper
        rec["upper"] = {
            "value": _interval(v, decide=delta, above=False) if verdict == HOLDS else _interval(v),
            "source": name,
            "kind": "exact"
            if (s is not None and s.role == "exact")
            else ("registered bound" if r is not None else "upper bound"),
            "module": s.module if s is not None else r.key,
            "key": s.key if s is not None else None,
        }
    if best_lower is not None:
        name, v, w, s = best_lower
        rec["lower"] = {
            "value": _interval(v, decide=delta, above=True) if verdict == FAILS else _interval(v),
            "source": name,
            "dataset": (w or {}).get("dataset"),
            "module": s.module,
            "key": s.key,
        }
    if eps_certifiers:
        r, b = min(eps_certifiers, key=lambda t: _upper_end(t[1]["value"]))
        rec["epsilon_bound"] = {
            "value": _interval(b["value"], decide=eps, above=False)
            if arith.le(b["value"], eps) is True
            else _interval(b["value"]),
            "source": f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else ""),
        }
    if dep.mechanism in ORACLE_WORDS:  # best certified bound wins: every upper bound evaluated, the smallest decides
        rec["upper_candidates"] = [{"source": s.title, "value": _interval(v)} for s, v, _w in vals if s.role == "upper"]
    rec["bounds"] = []
    for r, b in bounds:
        e = {
            "key": r.key,
            "label": r.label,
            "paper": r.paper,
            "variant": r.variant,
            "status": r.status,
            "quantity": r.quantity,
            "applies": b["applies"],
            "reason": b["reason"],
        }
        if b["applies"]:
            thr = delta if r.quantity == "delta" else eps
            e["value"] = (
                _interval(b["value"], decide=thr, above=arith.le(b["value"], thr) is False)
                if arith.le(b["value"], thr) is not None
                else _interval(b["value"])
            )
            if r.quantity == "delta":
                e["decides"] = {True: "certifies the claim", False: "above the claimed delta", None: "undecided"}[
                    arith.le(b["value"], delta)
                ]
            else:
                e["decides"] = {True: "certifies the claim", False: "above the claimed epsilon", None: "undecided"}[
                    arith.le(b["value"], eps)
                ]
        rec["bounds"].append(e)
    rec["reason"] = _claim_reason(dep, rec) + _decision_note(rec)
    if verdict == FAILS:
        rec["witness"] = {
            "dataset": rec["lower"]["dataset"],
            "delta": rec["lower"]["value"],
            "text": f"on the dataset pair where {rec['lower']['dataset']}, the exact delta({rec['epsilon']}) "
            f"is at least {rec['lower']['value']['lower']}, which exceeds the claimed {rec['delta']}",
        }
    return rec


def _decision_note(rec) -> str:
    """Which bound decided, and why the exact sweep over all datasets did or did not run."""
    d, sweep = rec.get("decided_by"), rec.get("exact_sweep")
    if d is not None:
        return f" (decided by {d['text']})"
    if sweep and sweep.startswith("not run"):
        return f"; the exact worst case over all datasets was {sweep}"
    return ""


def _claim_reason(dep, rec) -> str:
    v = rec["verdict"]
    up, lo = rec["upper"], rec["lower"]
    if v == HOLDS:
        if up is not None and arith.le(arith.printed(up["value"]["upper"]), arith.exact(rec["delta"])) is True:
            return (
                f"the certified upper bound {up['value']['upper']} on the worst-case delta({rec['epsilon']}) "
                f"({up['source']}) is at most the claimed {rec['delta']}"
            )
        eb = rec.get("epsilon_bound")
        if eb:
            return (
                f"{eb['source']} certifies epsilon <= {eb['value']['upper']} at delta = {rec['delta']}, at most the "
                f"claimed {rec['epsilon']} (delta(epsilon) is non-increasing)"
            )
        return (
            f"a certified upper bound on the worst-case delta({rec['epsilon']}) is at most the claimed {rec['delta']}"
        )
    if v == FAILS:
        return (
            f"the exact delta({rec['epsilon']}) on a named dataset pair is at least {lo['value']['lower']} "
            f"({lo['source']}), above the claimed {rec['delta']}; witness: {lo['dataset']}"
        )
    bits = []
    if up is not None:
        bits.append(f"the best certified upper bound is {up['value']['upper']} ({up['source']})")
    else:
        bits.append("no certified upper bound applies to this deployment")
    if lo is not None:
        bits.append(f"the best certified lower bound is {lo['value']['lower']} ({lo['source']})")
    else:
        bits.append("no exact lower bound is available for this mechanism and n")
    where = (
        f"at {rec['precision']} bits (it lies strictly between the certified bounds: more precision cannot decide it)"
        if rec.get("between_bounds")
        else f"at {rec['precision']} bits (doubling the precision no longer narrowed the enclosures: their width "
        "comes from a certified windowing tolerance)"
        if rec.get("stalled")
        else f"at the precision cap of {rec['precision']} bits"
    )
    return f"the claimed delta {rec['delta']} lies between what could be certified {where}: " + "; ".join(bits)
