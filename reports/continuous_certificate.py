"""Certificates for deployments of the continuous randomizers (``type = "laplace"`` or ``"gaussian"``, issue 27).

The certified numbers (docs/reference/blanket.md §4):

* **upper** — the exact blanket view of Balle et al. Lemma 5.3 for the inputs ``(0, 1)``, as an enclosure
  (:func:`blanket.exact.shuffled.continuous.blanket_view`, lattice step
  :func:`blanket.exact.accounting.continuous_rounds.default_lattice`); its exact upper end bounds δ(ε) for every
  pair of neighbouring datasets;
* **lower** — outputs thresholded at 1/2 (:func:`blanket.exact.shuffled.continuous.quantised_rr`: binary RR at a
  rational level at or below the thresholded channel's); its exact δ on the datasets ``0^n`` vs ``1·0^{n−1}``
  (:func:`blanket.exact.shuffled.krr.delta_krr_family`, family ``same``) is a lower bound on the mechanism's
  δ there (data processing), so a claim below it FAILS with that witness.

For Laplace every registered bound that applies (Theorem 5.3 [laplace], Bennett [laplace]) is evaluated beside
them and the smallest certified upper end decides.  Neither source narrows with more precision: the upper end's
width is the lattice's, and the gap to the lower end is the quantisation's.  Targets: the certified bracket of
:func:`blanket.exact.shuffled.continuous.epsilon_bracket` (upper end) and
:func:`~blanket.exact.shuffled.continuous.quantised_epsilon_lower` (lower end).

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
#: what limits an INCONCLUSIVE verdict here (the command's hint)
LIMIT = (
    "more precision cannot decide it: the upper end is the blanket view's enclosure on a lattice (its width) and "
    "the lower end the outputs quantised at 1/2 (their gap to the mechanism); a claim between them needs a "
    "tighter method, not bits"
)


def record(dep: Deployment) -> Any:
    """The :class:`~blanket.exact.mechanisms.continuous.Laplace` / ``Gaussian`` record of ``dep``.  O(1)."""
    from blanket.exact.accounting.continuous_rounds import continuous_record

    return continuous_record({"type": dep.mechanism, **{k: str(v) for k, v in dep.params.items()}})


def sources(dep: Deployment, source: Callable[..., Any]) -> list:
    """The blanket view (upper) and the thresholded datasets (lower) as certificate sources (``source``: the
    certificate's ``Source`` record, passed in so that this module does not import the certificate).  O(1)."""
    from blanket.exact.accounting.continuous_rounds import default_lattice
    from blanket.exact.mechanisms.continuous import Gaussian
    from blanket.exact.shuffled.continuous import blanket_view, quantised_rr
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

    return [
        source(
            UPPER_KEY + (SLOW if slow else ""),
            "upper",
            f"exact blanket view of Lemma 5.3 for the inputs (0, 1) (an upper bound on every dataset; enclosure on the "
            f"lattice step {h})",
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
    ]


def target(dep: Deployment, target: Target, rec: dict, source: Callable[..., Any], digits: int) -> dict:
    """Fill ``rec`` (the target's record, see ``certificate.certify_target``) with the certified bracket of ε at the
    target δ.  Cost: about a dozen enclosures plus one calibration of binary RR."""
    from blanket.exact.accounting.continuous_rounds import default_lattice
    from blanket.exact.shuffled.continuous import epsilon_bracket, quantised_epsilon_lower

    mech = record(dep)
    h = default_lattice(dep.n)
    try:
        br = epsilon_bracket(mech, dep.n, target.delta, h=h, rel_tol=1e-3 if dep.n <= 10**5 else 1e-2)
        qlo = quantised_epsilon_lower(mech, dep.n, target.delta)
    except BlanketError as exc:
        rec["reason"] = str(exc)
        return rec
    rec["epsilon_upper"] = arith.decimal_string(br.hi, digits, up=True)
    src = sources(dep, source)
    rec["upper_source"] = src[0].title
    rec["upper_key"] = src[0].key
    rec["kind"] = "bracket" if 0 < qlo < br.hi else "upper"
    if rec["kind"] == "bracket":
        rec["epsilon_lower"] = arith.decimal_string(qlo, digits, up=False)
        rec["lower_source"] = src[1].title
        rec["lower_dataset"] = "0^n vs 1 0^(n-1), outputs thresholded at 1/2"
        rec["relative_width"] = arith.decimal_string(arith.exact((br.hi - qlo) / br.hi), 3, up=True)
    rec["blanket_view_epsilon"] = {
        "lower": arith.decimal_string(br.lo, digits, up=False),
        "upper": rec["epsilon_upper"],
        "lattice_step": str(h),
    }
    return rec
