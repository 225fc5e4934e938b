"""Auditor certificates: one deployment → a verdict per claim, the certified numbers behind it, the lemma chain.

The verdict logic (kept honest, see the project's issue 7):

* **HOLDS** only when a *certified upper bound* on the worst-case δ(ε) over
  all replace-one neighbouring datasets is ≤ the claimed δ (three-valued
  comparison on enclosures);
* **FAILS** only when a *certified lower bound* — the exact δ(ε) of one named
  neighbouring pair of datasets — is > the claimed δ; the dataset is the
  witness;
* otherwise **INCONCLUSIVE** (precision is escalated from
  ``options.precision`` doubling up to ``options.precision_cap`` /
  ``--max-prec`` first).

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
binary RR only when that is cheap (:data:`CHEAP_SWEEP_SECONDS`).

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

Monotonicity in ``n`` (for ``n_min``): a replace-one neighbouring pair of
``n + 1`` users is a pair of ``n`` users plus one common user ``z``; the
shuffled view of ``n + 1`` users is obtained from that of ``n`` by adding
``z``'s independent report and re-shuffling — a post-processing — so the
worst-case δ_{n+1}(ε) ≤ δ_n(ε).  A certified upper bound at ``n_min`` is thus
valid for every ``n ≥ n_min``; a FAILS at ``n_min`` refutes the claim "for
every n ≥ n_min" (it fails at ``n = n_min``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import pathlib
import re
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp
from blanket.exact.accounting import certified as cb
from blanket.exact.accounting import curve_steps, curves, profiles
from blanket.exact.accounting.profiles import Effort, check_worst_cost, eps0_of, sweep_worst
from blanket.exact.mechanisms import oracles as O
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import epsilon_for_delta, float_bisect
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InfeasibleTarget, InvalidArgument, Undecided
from blanket.exact.runtime.budget import TooExpensive, worst_cost
from blanket.exact.shuffled import binary, krr
from blanket.exact.shuffled import enumerate as en
from blanket.proofs import core
from blanket.reports.composition import certify_composition
from blanket.reports.fleet_certificate import certify_fleet
from blanket.reports.latex import PREAMBLE, render
from blanket.reports.output import write_document
from flint import arb, fmpq

from . import continuous_certificate, curve
from .deployment import ORACLE_WORDS, Deployment, as_deployment
from .figures.privacy_curve import Picture, draw_png
from .latex import TeX, exact_string, exact_to_tex
from .verdict import (  # noqa: F401  (re-exported: the verdicts, assumptions and statement of a certificate)
    ASSUMPTIONS,
    EXIT_CODES,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    result_entry,
    statement,
    versions,
)

if TYPE_CHECKING:
    from blanket.exact.mechanisms.finite import Randomizer
    from blanket.exact.runtime.progress import Progress
    from blanket.proofs.core import Result

    from .deployment import Claim, Target

#: largest (dataset classes × histograms) for which the exhaustive worst case is computed
ENUMERATION_WORK = 40000
#: a target's bracket is refined by the exact worst-case calibration (binary RR) when the model of
#: exact.runtime.budget estimates its two sweeps below this many seconds on ONE core (deterministic in n and
#: epsilon0, whatever the machine; on the default two workers that is about half as much wall time).  30 covers
#: n = 10^5 at epsilon0 = 2 (the README example: about 12 one-core seconds), i.e. a bracket of relative width 1e-4
#: instead of the 25 % between the blanket view and the dataset c = 0
CHEAP_SWEEP_SECONDS = 30.0
DIGITS = 6


def mechanism_assumptions(dep: Deployment) -> list:
    """What the certificate assumes about the randomizer itself, for the closed-form records."""
    if dep.mechanism == "ldp":
        return [
            "The randomizer: the only assumption is that it is epsilon0-LDP with the stated epsilon0 (any such "
            "randomizer, adaptively chosen or not); the upper bound is the FOCS 2021 clone pair, valid for all of "
            "them, and the lower bound comes from one member of the class (binary randomized response)."
        ]
    if dep.mechanism == "olh":
        p = dep.params
        c = exact_string(p["collision"]) if "collision" in p else f"1/{p['g']} (a pairwise-independent family)"
        kap = exact_string(p["constant"]) if "constant" in p else "0"
        return [
            f"The randomizer is local hashing as stated; its hash family has pair-collision probability {c} for every "
            f"pair of values and is constant on the domain with probability {kap} (stated assumptions on the family)."
        ]
    if dep.mechanism in ORACLE_WORDS:
        return [
            "The randomizer is exactly the stated one (its closed-form output law, docs/mechanisms.md); the "
            "certified bounds use its exact epsilon0, its blanket decomposition and the law of L."
        ]
    return []


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
    def comp(eps, mech=mech):
        return krr.delta_blanket_view(mech, n, epsilon=eps), None

    return Source(
        "blanket-view",
        "upper",
        "exact blanket view of Lemma 5.3 (an upper bound on the worst case)",
        comp,
        results=(("BBGN19", "Lemma 5.3"),),
        module="exact.shuffled.krr.delta_blanket_view",
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
    if is_krr or dep.mechanism == "matrix":
        out.append(_blanket_source(mech, n, krr))
    if is_krr:
        for fam in ("same", "neighbour", "third"):
            if fam == "third" and k is not None and k < 3:
                continue

            def comp_family(eps, mech=mech, fam=fam):
                return krr.delta_krr_family(mech, n, fam, epsilon=eps), {
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
                )
            )
    return out


def oracle_sources(mech: Randomizer, n: int) -> list[Source]:
    """Sources for a closed-form record (exact/mechanisms/oracles.py): every applicable certified upper bound of
    :mod:`exact.accounting.certified` (the smallest decides: best certified bound wins) and the concrete-dataset lower
    bound, so that a claim can FAIL."""
    out: list[Source] = []
    for r in cb.upper_routes(mech, n):

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
    out = []
    for r in core.results():
        if r.known_false or r.kind != "upper_bound" or r.quantity not in ("delta", "epsilon"):
            continue
        lhs = getattr(r.statement, "lhs", None)
        if lhs is None or (not getattr(lhs, "args", ()) and getattr(lhs, "name", None) != r.quantity):
            continue  # the bounded quantity is not the central delta/epsilon itself (e.g. a composed epsilon_total)
        mechs = {str(m).lower() for m in r.mechanisms}
        if dep.mechanism == "binary_rr" or (dep.mechanism == "krr" and dep.params.get("k") == 2):
            fams = _FAMILIES["binary_rr"]
        if mechs & fams:
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
    return [r for r in core.results(paper) if r.label == label and not r.known_false]


def _evaluate_all(dep, mech, srcs, cands, eps, delta, prec):
    """Every source and candidate bound at one precision; failures of one source do not stop the others."""
    vals, errors = [], []
    with arith.precision(prec):
        for s in srcs:
            try:
                v, wit = s.compute(eps)
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
    """Total width of the best upper and lower enclosures (exact Fraction), to detect stalled escalation."""
    total = Fraction(0)
    for group, pick in ((uppers, _upper_end), (lowers, _lower_end)):
        if group:
            v = (min if group is uppers else max)((t[1] for t in group), key=pick)
            lo, hi = arith.endpoints(v)
            total += hi - lo
    return total


def _escalate(dep, mech, eps, delta, srcs, cands, start, cap):
    """Evaluate ``srcs`` and ``cands`` with precision doubling from ``start`` until the claim is decided,
    the cap is reached or the enclosures stop narrowing; returns the final state."""
    prec = start
    last_width, stalled = None, False
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
        # the claim lies strictly inside the gap between the bounds: more precision cannot decide it
        between = (
            all(arith.gt(v, delta) is True for _, v, _, _ in uppers)
            and all(arith.lt(v, delta) is True for _, v, _, _ in lowers)
            and all(arith.gt(b["value"], eps) is True for r, b in bounds if b["applies"] and r.quantity == "epsilon")
        )
        if between:
            return vals, bounds, errors, uppers, lowers, eps_certifiers, holds, fails, prec, "between"
        width = _width(uppers, lowers)
        if last_width is not None and width is not None and width * 2 > last_width:
            stalled = True  # the enclosures are limited by a windowing tolerance, not by precision
            break
        last_width = width
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
                else f"the upper bound valid for every dataset, the {_short(name)}"
            )
            return {"bound": "upper", "source": name, "text": f"{kind}{skipped}"}
        r, b = eps_certifiers[0]
        name = f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else "")
        return {"bound": "epsilon", "source": name, "text": f"the registered bound on epsilon {name}{skipped}"}
    return None


def _sweep_budget(dep, mech, effort: Effort) -> str | None:
    """``None`` if the exact worst case at ``dep.n`` can run on the effort's executor, else the reason it is not run."""

    try:
        check_worst_cost(dep.n, workers=effort.workers, scheduler=effort.scheduler, epsilon0=eps0_of(mech))
    except TooExpensive as exc:
        return (
            str(exc)
            .replace("(--dataset bracket: a concrete dataset below, the blanket view above)", "(the bounds above)")
            .replace("or one dataset (--dataset c=0)", "or a smaller n")
        )
    return None


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
        skipped = _sweep_budget(dep, mech, effort)
        if skipped is None:
            state = _escalate(dep, mech, eps, delta, srcs, cands, start, cap)
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


# ================================================================ targets: certified epsilon for a delta
def _epsilon_hi(mech, dep) -> fmpq:
    """A rational ≥ ε0 (δ(ε0) = 0 for any shuffled ε0-LDP mechanism), or 64 if ε0 = ∞."""
    if "epsilon0" in dep.params:
        return dep.params["epsilon0"]
    e0 = mech.exp_epsilon0() if mech is not None else None
    if e0 is None:
        return fmpq(64)
    with arith.precision(128):
        up = _upper_end(arb(e0).log() if isinstance(e0, fmpq) else e0.log())
    return fmpq(math.ceil(up * 10**6), 10**6)


#: relative width of the calibration brackets in certificates
_CALIBRATION_REL_TOL = fmpq(1, 10**4)
#: relative width of the calibrated *lower* end of an oracle bracket (the bracket itself is far wider)
_BRACKET_LOWER_REL_TOL = fmpq(1, 100)


def _calibrate(delta_of, target: fmpq, hi: fmpq, *, start: int, cap: int, rel_tol=_CALIBRATION_REL_TOL):
    """``(upper, lower, evaluations)`` by :func:`exact.numbers.calibrate.epsilon_for_delta` on ``delta_of``.

    ``upper``: δ(upper) ≤ target certified; ``lower``: δ(lower) > target
    certified (``None`` when the target is met already at ε = 0);
    ``(None, None, k)`` when no certified upper end exists in ``[0, hi]``.
    ``delta_of(eps)`` returns a ball at the current precision, or ``None``
    (no source evaluable: an unbounded ball, so nothing is certified there).
    """

    def fun(eps):
        v = delta_of(eps)
        return arb(0, arb("inf")) if v is None else v

    try:
        br = epsilon_for_delta(fun, target, hi=hi, rel_tol=rel_tol, start_prec=start, cap=cap)
    except (InfeasibleTarget, Undecided):
        return None, None, 0
    return br.upper, (br.lower if br.lower < br.upper else None), br.evaluations


# ---------------------------------------------------------------- guided calibration (oracle records)
def _gauss_positive_part(atoms, n: int) -> float:
    """Float *estimate* of ``E[(Σ_{i≤n} V_i)_+]`` for i.i.d. ``V`` with ``atoms = [(prob, value), ...]``: the sum replaced
    by a normal law of the same mean and variance.  Only chooses where a certified search evaluates."""
    m = sum(a * v for a, v in atoms)
    var = max(sum(a * v * v for a, v in atoms) - m * m, 1e-300)
    mu, sd = n * m, math.sqrt(n * var)
    z = mu / sd
    return mu * 0.5 * math.erfc(-z / math.sqrt(2)) + sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _f(x) -> float:
    return float(arith.ball(x).mid())


def _oracle_models(mech, n: int):
    """``(upper_model, lower_model)``: float estimates ``ε ↦ δ`` of the blanket view (four-value records) or the clone
    pair (``ldp``), and of the concrete-dataset lower bound ``x^n`` vs ``x^{n−1}x'`` (four-value records); ``None``
    where no model is known.  Gaussian approximations (relative error about 1e-3 in δ at n = 10^6, so about 1e-4
    in ε): guesses only, never a result."""

    try:
        e = _f(mech.exp_epsilon0())
    except (BlanketError, TypeError, AttributeError):
        return None, None
    if not e > 1:
        return None, None
    if isinstance(mech, O.LDP):
        p = 1 / e

        def clone(eps):
            ee = math.exp(eps)
            atoms = [(p / 2, 2 * (e - ee) / (e + 1)), (p / 2, 2 * (1 - ee * e) / (e + 1)), (1 - p, 0.0)]
            return _gauss_positive_part(atoms, n) / (p * n)

        return clone, None
    if not (hasattr(mech, "l_probs") and hasattr(mech, "ratio_law")):
        return None, None
    g = _f(mech.gamma())
    pb, pt, pr = (_f(x) for x in mech.l_probs())
    a, b = (_f(x) for x in mech.ratio_law())

    def view(eps):
        ee = math.exp(eps)
        atoms = [(1 - g, 0.0), (g * pb, g * e * (1 - ee)), (g * pt, g * (e - ee)), (g * pt, g * (1 - ee * e))]
        return _gauss_positive_part(atoms + [(g * pr, g * (1 - ee))], n) / (g * n)

    def same(eps):
        ee = math.exp(eps)
        fwd = [(1 - a - b, 1 - ee), (a, 1 - ee / e), (b, 1 - ee * e)]
        bwd = [(1 - a - b, 1 - ee), (b, e - ee), (a, 1 / e - ee)]
        return max(_gauss_positive_part(fwd, n), _gauss_positive_part(bwd, n)) / n

    return view, same


def _model_root(model, target: float, hi: float, scale: float = 1.0) -> float | None:
    """The float ε in ``(0, hi)`` with ``scale·model(ε) = target`` (bisection; ``None`` if not bracketed)."""

    try:
        if not (scale * model(0.0) > target) or scale * model(hi) > target:
            return None
        return float_bisect(lambda x: scale * model(x) > target, 0.0, hi, 80)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def _near(x: float, lo: fmpq, hi: fmpq, rel: float) -> fmpq | None:
    """A short decimal rational within ``rel/8`` (relative) of ``x`` and strictly inside ``(lo, hi)``."""
    if not (math.isfinite(x) and x > 0):
        return None
    d = max(0, math.ceil(-math.log10(rel * x / 8)))
    q = fmpq(round(x * 10**d), 10**d)
    return q if lo < q < hi else None


def _guided_calibrate(value_of, target: fmpq, hi: fmpq, model, *, rel_tol: fmpq, max_steps: int = 6):
    """``(good, bad, evaluations)``: certified ends by a float model corrected by each evaluation, or ``None``.

    ``value_of(x)`` returns an *exact* rational (or ``None``: not evaluable, counted as failing) that is
    non-increasing in ``x``; ``good`` meets (``value_of(good) ≤ target``, exact comparison), ``bad`` fails
    (``bad`` is ``None`` if no failing point was seen), and ``(good − bad)/good ≤ rel_tol``.  The model only
    chooses the points: after each evaluation it is rescaled to agree with the certified value there (``log δ``
    offset), its root recomputed and the next point put just beyond that root, on the side still missing.  With
    the Gaussian models of :func:`_oracle_models` this closes a 10⁻⁴ bracket in 2–3 evaluations.  ``None`` when
    the model has no root in ``(0, hi)`` or the bracket is not closed within ``max_steps`` (the caller then runs
    the general search of :mod:`exact.numbers.calibrate`).
    """
    tf, hf, tol = _f(target), _f(hi), _f(rel_tol)
    r = _model_root(model, tf, hf)
    if r is None:
        return None
    good = bad = None
    for step in range(max_steps):
        lo_x, hi_x = bad if bad is not None else fmpq(0), good if good is not None else hi
        if good is None:
            x = r * (1 + tol / 4)
        elif bad is None:
            x = r * (1 - tol / 4)
        else:
            x = min(max(r, _f(lo_x) + tol * _f(hi_x) / 4), _f(hi_x) * (1 - tol / 4))
        q = _near(x, lo_x, hi_x, tol)
        if q is None:
            return None
        v = value_of(q)
        if v is not None and v <= target:
            good = q
        else:
            bad = q
        if good is not None and bad is not None and good - bad <= rel_tol * good:
            return good, bad, step + 1
        if v is not None and v > 0:
            try:
                m = model(_f(q))
            except (OverflowError, ValueError, ZeroDivisionError):
                return None
            if not m > 0:
                return None
            r = _model_root(model, tf, hf, scale=_f(v) / m)
            if r is None:
                return None
    return None


def _worst_sweeps_cheap(n: int, epsilon0: Any = None) -> bool:
    """Whether the exact worst-case calibration (about two sweeps) is cheap by the cost model of exact.runtime.budget
    (one core, the window width set by ``epsilon0`` when it is known)."""

    return 2 * worst_cost(n, workers=1, epsilon0=epsilon0)[0] <= CHEAP_SWEEP_SECONDS


def certify_target(
    dep: Deployment,
    mech: Randomizer | None,
    target: Target,
    srcs: list[Source],
    *,
    start: int,
    cap: int,
    workers: int | None = None,
    scheduler: str | None = None,
) -> dict:
    """The certified ε for a target δ: an upper end ε̄ with δ(ε̄) ≤ target certified, and a certified lower end.

    k-RR (binary and k > 2): the certified bracket of
    :func:`exact.accounting.profiles.epsilon_bracket` -- upper end from the blanket view
    (valid for every dataset), lower end from the concrete datasets (``c = 0``,
    or the families) -- reported with both sources and its relative width;
    for binary RR it comes from the worst-case privacy curve (one stepped sweep over all datasets,
    :func:`exact.accounting.curves.binary_worst_curve_epsilon`; lower end: the exact ε of the dataset attaining the
    curve) when :func:`exact.accounting.curve_steps.sweep_seconds` is within :data:`CHEAP_SWEEP_SECONDS`, else from
    the exact worst-case calibration (:func:`exact.accounting.profiles.epsilon`, ``dataset="worst"``) when that is
    cheap.  Other mechanisms: :mod:`exact.numbers.calibrate`
    on the exact sources.  Each end to relative width 10⁻⁴.
    """
    rec: dict[str, Any] = {
        "field": target.field,
        "delta": exact_string(target.delta),
        "epsilon_upper": None,
        "epsilon_lower": None,
        "upper_source": None,
        "lower_source": None,
        "lower_dataset": None,
        "kind": None,
        "relative_width": None,
        "upper_key": None,
    }
    if dep.mechanism in continuous_certificate.WORDS:
        rec = continuous_certificate.target(dep, target, rec, Source, DIGITS)
        return _target_verdict(rec)
    k = getattr(mech, "k", None)
    use_profiles = dep.mechanism in ("krr", "binary_rr") and not any(s.key == "exact-worst-enumeration" for s in srcs)
    if use_profiles:
        rel = "1e-4"
        pr = None
        try:
            e0f = eps0_of(mech)
            if (
                k == 2
                and isinstance(mech, KRR)
                and curve_steps.sweep_seconds(dep.n, float(e0f) if e0f is not None else 1.0) <= CHEAP_SWEEP_SECONDS
            ):
                # one stepped sweep gives the worst-case curve at every epsilon (docs/numerics.md Lemma C2): its
                # inverse at delta is the upper end; the dataset attaining the curve there gives the lower end
                e_up, c_star = curves.binary_worst_curve_epsilon(
                    mech, dep.n, target.delta, workers=workers, scheduler=scheduler, progress=False
                )
                lo_pr = profiles.epsilon(
                    mech, dep.n, delta=target.delta, dataset=f"c={c_star}", rel_tol=rel, start_prec=start, cap=cap
                )
                rec["kind"] = "exact"
                rec["upper_source"] = "exact worst-case privacy curve over all datasets (binary RR)"
                rec["upper_key"] = "exact-worst-binary"
                rec["epsilon_upper"] = arith.decimal_string(e_up, DIGITS, up=True)
                if lo_pr.lower is not None and 0 < lo_pr.lower < e_up:
                    rec["epsilon_lower"] = arith.decimal_string(lo_pr.lower, DIGITS, up=False)
                    rec["lower_source"] = "exact delta on the dataset attaining the worst-case curve"
                    rec["lower_dataset"] = lo_pr.attained or f"c={c_star}"
                    rec["relative_width"] = arith.decimal_string((e_up - lo_pr.lower) / e_up, 3, up=True)
            elif k == 2 and _worst_sweeps_cheap(dep.n, eps0_of(mech)):
                pr = profiles.epsilon(
                    mech,
                    dep.n,
                    delta=target.delta,
                    dataset="worst",
                    rel_tol=rel,
                    start_prec=start,
                    cap=cap,
                    workers=workers,
                    scheduler=scheduler,
                )
                rec["kind"] = "exact"
                rec["upper_source"] = (
                    "exact worst case over all datasets (binary RR)"
                    if pr.decided_by != "blanket view"
                    else "exact blanket view of Lemma 5.3"
                )
                rec["upper_key"] = "exact-worst-binary" if pr.decided_by != "blanket view" else "blanket-view"
                lower_source = "exact delta on the dataset attaining the worst case"
                lower_dataset: str | None = pr.attained
            else:
                pr = profiles.epsilon_bracket(mech, dep.n, delta=target.delta, rel_tol=rel, start_prec=start, cap=cap)
                rec["kind"] = "bracket"
                rec["upper_source"] = "exact blanket view of Lemma 5.3 (an upper bound on every dataset)"
                rec["upper_key"] = "blanket-view"
                lower_source = f"exact delta on a concrete dataset: {pr.lower_source}"
                lower_dataset = pr.lower_source
        except BlanketError as exc:
            rec["reason"] = str(exc)
        if pr is not None:
            rec["epsilon_upper"] = arith.decimal_string(pr.upper, DIGITS, up=True)
            if pr.lower is not None and 0 < pr.lower < pr.upper:
                rec["epsilon_lower"] = arith.decimal_string(pr.lower, DIGITS, up=False)
                rec["lower_source"] = lower_source
                rec["lower_dataset"] = lower_dataset
            rec["relative_width"] = arith.decimal_string(arith.exact(pr.bracket.rel_width()), 3, up=True)
    else:
        ups = [s for s in srcs if s.role in ("exact", "upper")]
        hi = _epsilon_hi(mech, dep)

        oracle = dep.mechanism in ORACLE_WORDS
        deciding: dict = {}  # ε -> the source with the smallest upper end there (best bound wins)

        def f(eps):
            vals = list(_evaluable_values(ups, eps))
            if not vals:
                return None
            best, deciding[eps] = min(vals, key=lambda t: _upper_end(t[0]))
            # an oracle bound's width comes from a windowing tolerance: its exact upper end (still a certified
            # upper bound) keeps every comparison with the target decidable
            return arith.exact(_upper_end(best)) if oracle else best

        models = _oracle_models(mech, dep.n) if oracle else (None, None)
        if ups:
            guided = None
            if models[0] is not None:  # cheapest first: a float model corrected by the certified values
                with arith.precision(start):
                    guided = _guided_calibrate(f, target.delta, hi, models[0], rel_tol=_CALIBRATION_REL_TOL)
            if guided is not None:
                upper, lower = guided[0], None  # the failing end is certified only for an upper bound's end
            else:
                upper, lower, _ = _calibrate(f, target.delta, hi, start=start, cap=cap)
            if upper is not None:
                rec["epsilon_upper"] = arith.decimal_string(upper, DIGITS, up=True)
                # the bound that certifies the upper end (best bound wins)
                best = deciding[upper] if upper in deciding else _best_at(ups, upper, start)
                rec["upper_source"] = best.title
                rec["upper_key"] = best.key
                rec["kind"] = "exact" if all(s.role == "exact" for s in ups) else "upper"
                los = [s for s in srcs if s.role == "lower"]
                if los and dep.mechanism in ORACLE_WORDS:
                    # the bracket is as wide as the gap between the bounds (tens of per cent for the oracles): its
                    # lower end to 1e-2 relative is informative enough and costs fewer evaluations
                    def lower_of(e):
                        return _lower_exact(_first_value(los, e))

                    guided_lo = None
                    if models[1] is not None:
                        with arith.precision(start):
                            guided_lo = _guided_calibrate(
                                lower_of, target.delta, hi, models[1], rel_tol=_BRACKET_LOWER_REL_TOL
                            )
                    if guided_lo is not None:
                        lo_end = guided_lo[1]  # certified: the lower bound's lower end exceeds the target there
                    else:
                        _, lo_end, _ = _calibrate(
                            lower_of, target.delta, hi, start=start, cap=cap, rel_tol=_BRACKET_LOWER_REL_TOL
                        )
                    if lo_end is not None and 0 < lo_end < upper:
                        rec["epsilon_lower"] = arith.decimal_string(lo_end, DIGITS, up=False)
                        rec["lower_source"] = los[0].title
                        rec["kind"] = "bracket"
                        rec["relative_width"] = arith.decimal_string(arith.exact((upper - lo_end) / upper), 3, up=True)
                        rec["lower_dataset"] = (los[0].compute(lo_end)[1] or {}).get("dataset")
            if lower is not None and lower > 0 and all(s.role == "exact" for s in ups):
                rec["epsilon_lower"] = arith.decimal_string(lower, DIGITS, up=False)
                rec["lower_source"] = ups[0].title
                rec["relative_width"] = arith.decimal_string(arith.exact((upper - lower) / upper), 3, up=True)
    return _target_verdict(rec)


def _target_verdict(rec: dict) -> dict:
    """The verdict and reason of a target's record (HOLDS when an upper end was certified).  O(1)."""
    if rec["epsilon_upper"] is None:
        rec["verdict"] = INCONCLUSIVE
        rec["reason"] = (
            rec.get("reason")
            or "no certified upper bound on delta(epsilon) meets the target for epsilon up to epsilon0"
        )
    else:
        rec["verdict"] = HOLDS
        rec["reason"] = (
            f"({rec['epsilon_upper']}, {rec['delta']})-DP is certified (delta({rec['epsilon_upper']}) <= "
            f"{rec['delta']} by the {rec['upper_source']})"
        )
        if rec["kind"] == "bracket":
            rec["reason"] += (
                f"; the worst-case epsilon lies in the certified bracket [{rec['epsilon_lower'] or '0'}, "
                f"{rec['epsilon_upper']}] (relative width {rec['relative_width']}), its lower end from "
                f"{rec['lower_dataset']}"
            )
    return rec


def _best_at(ups, eps, prec):
    """The upper source with the smallest certified upper end at ``eps`` (the one that certifies it)."""
    best, best_end = ups[0], None
    with arith.precision(prec):
        for s in ups:
            try:
                v, _ = s.compute(eps)
            except BlanketError:
                continue
            if isinstance(v, arb) and not v.is_finite():
                continue
            if best_end is None or _upper_end(v) < best_end:
                best, best_end = s, _upper_end(v)
    return best


def _lower_exact(v):
    """The exact lower end (at least 0) of a lower bound's enclosure: still a certified lower bound, always comparable."""
    if v is None or isinstance(v, fmpq):
        return v
    return max(fmpq(0), arith.exact(_lower_end(v)))


def _evaluable_values(srcs, eps):
    """``(value, source)`` for each of ``srcs`` at ``eps``, in order, leaving out each source that fails or gives a
    non-finite ball."""
    for s in srcs:
        try:
            v, _ = s.compute(eps)
        except BlanketError:
            continue
        if not (isinstance(v, arb) and not v.is_finite()):
            yield v, s


def _first_value(srcs, eps):
    """The first evaluable value among ``srcs`` at ``eps`` (``None`` if none is)."""
    return next((v for v, _ in _evaluable_values(srcs, eps)), None)


# ================================================================ the certificate
def _mechanism_text(dep: Deployment) -> str:
    p = dep.params
    e0 = (
        f"epsilon0 = {exact_string(p['epsilon0'])}"
        if "epsilon0" in p
        else f"exp(epsilon0) = {exact_string(p['exp_epsilon0'])}"
        if "exp_epsilon0" in p
        else ""
    )
    if dep.mechanism == "krr":
        return f"k-ary randomized response with k = {p['k']}, {e0}"
    if dep.mechanism == "binary_rr":
        return f"binary randomized response, {e0}"
    if dep.mechanism == "laplace":
        return f"Laplace randomizer, {e0}"
    if dep.mechanism == "gaussian":
        return f"Gaussian randomizer, sigma = {exact_string(p['sigma'])}"
    if dep.mechanism in ORACLE_WORDS:
        title = registry.SCHEMAS[registry.Kind(dep.mechanism)].title
        ps = ", ".join(f"{k} = {exact_string(v) if isinstance(v, fmpq) else v}" for k, v in p.items())
        return f"{title}, {ps}"
    m = p["matrix"]
    return f"finite randomizer given by an exact {len(m)} x {len(m[0])} matrix"


def certify(
    dep: Deployment | str | pathlib.Path,
    *,
    max_prec: int | None = None,
    command: str | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    plot: bool = True,
) -> dict:
    """Compute the certificate of ``dep`` as plain data (the JSON content).

    ``max_prec`` overrides ``options.precision_cap``.  ``command`` is the
    command line recorded for reproducibility (default ``blanket certify
    <file name>``).  ``workers`` / ``scheduler``: where the exact worst-case
    sweep runs when it is needed (:mod:`exact.runtime.executors`); the certificate
    does not depend on them.  ``plot``: draw the privacy curve
    (:mod:`reports.curve`; ``picture`` in the data, the PNG written by :func:`write`).
    """
    dep = as_deployment(dep)  # the API validates like the command line (a path is read; anything else refused)
    if workers is not None:
        workers = arith.integer_in(workers, "workers", lo=1, hi=4096)
    cap = max_prec if max_prec is not None else dep.precision_cap
    if max_prec is not None:
        arith.integer_in(max_prec, "--max-prec", lo=32, hi=1 << 16)
    if dep.groups or dep.colluding:  # a mixed fleet or colluding users: reports/fleet_certificate.py
        return certify_fleet(dep, certify_one=certify, max_prec=max_prec, command=command, progress=progress)
    if getattr(dep, "rounds", ()):  # several composed rounds: the composition certificate (reports/composition.py)
        return certify_composition(dep, max_prec=max_prec, command=command, progress=progress, plot=plot)
    start = min(dep.precision, cap)
    mech = dep.build_mechanism()
    srcs = sources(dep, mech, workers=workers, scheduler=scheduler)
    cands = candidate_results(dep)
    effort = Effort(start, cap, workers=workers, scheduler=scheduler)
    claims = []
    for c in dep.claims:
        claims.append(decide_claim(dep, mech, c, srcs, cands, effort))
        if progress:
            progress.update()
    targets = []
    for t in dep.targets:
        targets.append(certify_target(dep, mech, t, srcs, start=start, cap=cap, workers=workers, scheduler=scheduler))
        if progress:
            progress.update()
    verdicts = [c["verdict"] for c in claims] + [t["verdict"] for t in targets]
    verdict = FAILS if FAILS in verdicts else INCONCLUSIVE if INCONCLUSIVE in verdicts else HOLDS

    # the chain of results used
    chain_keys: list = []
    chain = []
    used = {e["key"] for c in claims for e in (c["upper"], c["lower"]) if e and e.get("key")}
    used |= {t["upper_key"] for t in targets if t.get("upper_key")}
    for s in srcs:
        if s.key not in used:
            continue
        for ref in s.results:
            if isinstance(ref, str):  # a registry key
                found = [core.REGISTRY[ref]] if ref in core.REGISTRY else []
            else:  # (paper, label)
                found = _find_results(*ref)
            for r in found:
                if r.key not in chain_keys:
                    chain_keys.append(r.key)
                    chain.append(result_entry(r))
    for c in claims:
        for b in c["bounds"]:
            if b["applies"] and b.get("decides") == "certifies the claim" and b["key"] not in chain_keys:
                chain_keys.append(b["key"])
                chain.append(result_entry(core.REGISTRY[b["key"]]))
    if dep.mechanism in ("krr", "binary_rr"):
        for r in _find_results("BBGN19", "Lemma 5.1"):
            if r.key not in chain_keys and (r.variant in (None, "rr", "krr") or "rr" in str(r.variant)):
                chain_keys.append(r.key)
                chain.append(result_entry(r))
    bounds_table = []
    seen = set()
    for c in claims:
        for b in c["bounds"]:
            if b["key"] not in seen:
                seen.add(b["key"])
                bounds_table.append(b["key"])

    cert = {
        "format": "blanket-certificate/1",
        "verdict": verdict,
        "deployment": dep.as_dict(),
        "mechanism_text": _mechanism_text(dep),
        "n_text": (
            f"at least {dep.n} users (certified at n = {dep.n}, valid for every n >= {dep.n})"
            if dep.n_is_lower_bound
            else f"exactly {dep.n} users"
        ),
        "claims": claims,
        "targets": targets,
        "sources": [
            {
                "key": s.key,
                "role": s.role,
                "title": s.title,
                "module": s.module,
                "used": s.key in used,
                "expensive": s.expensive,
            }
            for s in srcs
        ],
        "chain": chain,
        "assumptions": list(ASSUMPTIONS) + mechanism_assumptions(dep),
        "monotonicity": MONOTONICITY if dep.n_is_lower_bound else None,
        "reproducibility": {
            "command": command
            or f"blanket certify {dep.source}" + (f" --max-prec {max_prec}" if max_prec is not None else ""),
            "input": dep.source,
            "input_sha256": dep.sha256,
            "versions": versions(),
            "precision_start": start,
            "precision_cap": cap,
            "precision_used": max([c["precision"] for c in claims] or [start]),
        },
    }
    cert["statement"] = statement(cert)
    if verdict == INCONCLUSIVE:  # what limits the answer, for the command's hint (not part of the JSON file)
        if dep.mechanism in continuous_certificate.WORDS:
            cert["_inconclusive_hint"] = continuous_certificate.LIMIT
        elif claims and all(c["between_bounds"] for c in claims if c["verdict"] == INCONCLUSIVE):
            cert["_inconclusive_hint"] = (
                "more precision cannot decide it: the claim lies strictly between the certified bounds"
            )
    if plot:
        pic = curve.certificate_picture(
            cert,
            srcs,
            cands,
            lambda r, e, d: evaluate_bound(r, dep, mech, e, d),
            mech=mech,
            params=dep.params,
            prec=start,
        )
        curve.attach(cert, pic)
    return cert


def to_json(cert: dict) -> str:
    """Deterministic JSON (sorted keys, two-space indent, trailing newline)."""
    return json.dumps(cert, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_tex(cert: dict) -> str:
    """The certificate as LaTeX (``reports/templates/certificate.tex.j2``)."""

    template = (
        "composition.tex.j2"
        if cert.get("composition")
        else "fleet.tex.j2"
        if cert.get("fleet")
        else "certificate.tex.j2"
    )
    return render(template, cert=cert, preamble=PREAMBLE, TeX=TeX, to_tex=exact_to_tex)


from .output import Written  # noqa: E402  (re-exported: the paths written and the LaTeX outcome)


def write(cert: dict, outdir: str | pathlib.Path, *, pdf: bool = True, stem: str = "certificate") -> Written:
    """Write ``<stem>.tex``, ``<stem>.json``, the picture ``<stem>-curve.png`` (when the certificate has one) and
    (when TeX Live is installed) ``<stem>.pdf`` into ``outdir``.

    Atomic and consistent (see :func:`reports.output.write_document`): an old PDF that this run cannot
    replace is removed, never left beside a new JSON.
    """

    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    picture = f"{stem}-curve.png"  # the privacy curve (reports/curve.py), when the certificate has one
    png = None
    if cert.get("_picture") is not None and cert.get("picture"):
        png = draw_png(Picture.from_data(cert["_picture"]))  # before any file is written: all or nothing
        cert = {**cert, "picture": {**cert["picture"], "file": picture}}
    tex = render_tex(cert) if stem == "certificate" else cert["_tex"]
    return write_document(
        out,
        stem,
        to_json({k: v for k, v in cert.items() if not k.startswith("_")}),
        tex,
        pdf=pdf,
        files={picture: png} if png is not None else None,
        stale_files=(picture,),
    )


def input_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
