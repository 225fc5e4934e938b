"""Privacy profiles δ(ε) and certified ε(δ) of shuffled randomized response, per dataset — the dispatcher
used by the ``blanket delta`` / ``blanket epsilon`` commands and by the certificates.

``dataset`` selects which neighbouring datasets the number is about:

========== ===================================================== ===================================
dataset    meaning                                               relation to the DP δ of the protocol
========== ===================================================== ===================================
worst      maximum over *all* datasets and both directions        exact (binary RR); k > 2: the bracket
bracket    [best concrete dataset, blanket view], certified       contains it (both ends certified)
c=INT      binary RR: INT ones among the other n−1 users          a lower bound (one pair of datasets)
same       others all hold the target's value (exact.shuffled.krr)        a lower bound
neighbour  others all hold the neighbour's value (exact.shuffled.krr)     a lower bound
third      others all hold a third value, k ≥ 3 (exact.shuffled.krr)      a lower bound
blanket    the Lemma 5.3 blanket view (exact.shuffled.krr)                 an upper bound (every dataset)
========== ===================================================== ===================================

Every δ is an enclosure (ball or exact rational) computed with precision
escalation until its relative width is at most 2⁻⁴⁰ (or the cap); every ε
is a certified :class:`~exact.numbers.calibrate.Bracket` (the reported ε is its upper
end, proven to meet the target).  ``δ(ε) = 0`` exactly for ε ≥ ε0.

Cheapest first.  The worst case is bracketed by two cheap certified bounds:
a concrete dataset (``c = 0`` for binary RR, the worst of the families
``same``/``neighbour``/``third`` for k-RR) from below and the blanket view
(valid for every dataset) from above.  ``dataset="bracket"`` (and
``"worst"`` for k > 2, where no exact sweep exists at scale) returns that
bracket, labelled ``relation="bracket"``, with its relative width; the exact
sweep over all datasets (binary RR, ``"worst"``) is checked against
:mod:`exact.runtime.budget` first and refused up front (:class:`~exact.runtime.budget.TooExpensive`)
when it cannot finish in reasonable time or memory on the executor chosen by
``workers`` / ``scheduler`` (:mod:`exact.runtime.executors`).

For the worst case over all datasets of binary RR, ε is calibrated on a
*candidate* dataset (first c = 0, then the maximiser found by the last sweep)
with cheap single-dataset evaluations, and the upper end is then certified by
a full sweep over all datasets (repeated with the new maximiser if that sweep
finds a worse dataset) -- unless the blanket view already certifies the
upper end (then no sweep runs; ``decided_by`` says which bound decided).
The lower end fails on the candidate dataset, hence also in the worst case.  Cost: two sweeps (see
:func:`exact.shuffled.binary.delta_binary_worst`) plus 5–9 single-dataset evaluations.

k > 2 datasets (``same``/``neighbour``/``third``/``blanket``) are computed
by :mod:`exact.shuffled.krr`.

>>> from blanket.exact.mechanisms.finite import BinaryRR
>>> r = delta(BinaryRR(exp_epsilon0=3), 6, exp_epsilon=2, dataset="c=0")
>>> r.value, r.relation
(243/4096, 'lower')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from blanket.exact.accounting.query import DATASETS, Query, binary_only, make_query, parse_dataset, require
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import Bracket, epsilon_for_delta, gaussian_epsilon_guess, validated_search
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure
from blanket.exact.runtime.budget import check_worst_case
from blanket.exact.runtime.executors import executor_cores
from blanket.exact.runtime.progress import Progress, check_time
from blanket.exact.shuffled import krr
from blanket.exact.shuffled.binary import (
    ARB_SWEEP_MAX_N,
    WorstCase,
    ball_route_precision,
    ball_route_seconds,
    delta_binary,
    delta_binary_worst,
    forward_single,
    rr_params,
)
from flint import arb, fmpq

__all__ = [
    "DATASETS",
    "DeltaProfile",
    "Effort",
    "EpsilonProfile",
    "check_worst_cost",
    "delta",
    "delta_bracket",
    "eps0_of",
    "epsilon",
    "epsilon0",
    "epsilon_bracket",
    "lower_datasets",
    "parse_dataset",
    "sweep_worst",
]

RELATION = {
    "worst": "exact",
    "c": "lower",
    "same": "lower",
    "neighbour": "lower",
    "third": "lower",
    "blanket": "upper",
    "bracket": "bracket",
}
#: relative width at which :func:`delta` stops escalating precision
REL_WIDTH_BITS = 40


@dataclass(frozen=True)
class Effort:
    """How a profile is computed, never what it is: the precision escalates from ``start_prec`` bits, doubling, up to
    ``cap``; ``progress`` shows a progress bar; an exact worst-case sweep runs on ``workers`` local processes or the
    Dask ``scheduler`` (:mod:`exact.runtime.executors`).  Built once by the public functions from their keywords."""

    start_prec: int = arith.DEFAULT_PREC
    cap: int = arith.MAX_PREC
    progress: Any = False
    workers: int | None = None
    scheduler: str | None = None

    def sweep(self) -> dict:
        """``progress`` / ``workers`` / ``scheduler``: the keywords of :func:`sweep_worst`."""
        return {"progress": self.progress, "workers": self.workers, "scheduler": self.scheduler}


@dataclass(frozen=True)
class _Profile:
    """What a profile is about: the ``dataset`` asked for, how its number relates to the protocol's DP parameter
    (``relation``: ``"exact"``, the worst case over all datasets; ``"lower"``, one pair of datasets: a lower bound;
    ``"upper"``, the blanket view: an upper bound; ``"bracket"``, a certified bracket containing the worst case),
    ``attained``: the dataset attaining the worst case (``worst``) or the dataset itself, and binary RR's ``c`` and
    ``direction`` of that dataset.  The number itself is a subclass's (keyword-only) field."""

    dataset: str
    relation: str
    attained: str
    c: int | None = None
    direction: str | None = None


@dataclass(frozen=True, kw_only=True)
class DeltaProfile(_Profile):
    """δ at one ε: ``value`` (enclosure), computed at ``prec`` bits; see :class:`_Profile` for the rest.

    For ``relation="bracket"``, ``value`` encloses ``[lower_bound.value, upper_bound.value]``.  ``ties``: further
    datasets not separated from the maximum (worst case only).
    """

    value: Enclosure
    prec: int
    ties: tuple = ()
    lower_bound: DeltaProfile | None = None
    upper_bound: DeltaProfile | None = None
    note: str = ""  # why the enclosure is wider than the requested relative width (empty when it is not)

    @property
    def rel_width(self) -> fmpq:
        """Relative width ``(upper end − lower end)/upper end`` of ``value`` (exact fmpq; 0 if the upper end is 0)."""
        lo, hi = arith.endpoints(self.value)
        lo = max(lo, Fraction(0))
        w = (hi - lo) / hi if hi > 0 else 0
        return fmpq(w.numerator, w.denominator) if w else fmpq(0)


@dataclass(frozen=True, kw_only=True)
class EpsilonProfile(_Profile):
    """The smallest ε with δ(ε) ≤ target: a certified ``bracket`` (report ``upper``); see :class:`_Profile` for the rest.

    For ``relation="bracket"`` the two ends come from different bounds:
    ``lower_source`` (a concrete dataset: δ there exceeds the target at
    ``lower``, hence so does the worst case) and ``upper_source`` (the blanket
    view: it meets the target at ``upper``, hence so does every dataset).
    ``decided_by`` names the bound that certified the reported upper end (it follows from ``upper_source``).
    """

    bracket: Bracket
    sweeps: int = 0
    total_evaluations: int | None = None
    lower_source: str | None = None
    upper_source: str | None = None

    @property
    def decided_by(self) -> str | None:
        """``"blanket view"`` or ``"exact worst case"``: the bound that certified the upper end (``None`` when the
        answer is about one dataset, which certifies its own ends)."""
        if self.upper_source is None:
            return None
        return "blanket view" if self.upper_source.startswith("the blanket view") else "exact worst case"

    @property
    def evaluations(self) -> int:
        """Single-dataset evaluations of δ over all calibration rounds (full sweeps counted in ``sweeps``)."""
        return self.total_evaluations if self.total_evaluations is not None else self.bracket.evaluations

    @property
    def lower(self) -> fmpq:
        return self.bracket.lower

    @property
    def upper(self) -> fmpq:
        return self.bracket.upper


# ---------------------------------------------------------------- the one validation
def _not_rr(mech: Any) -> InvalidArgument:
    return InvalidArgument(
        "mech", getattr(mech, "name", mech), "must be k-ary randomized response (exact.mechanisms.finite.KRR)"
    )


def _rr_query(mech: Any, n: Any, dataset: Any, **given: Any) -> Query:
    """The validated query of a public entry point of this module: the one validation (:func:`make_query`).

    ``mech`` is a :class:`~blanket.exact.accounting.query.Query` built already (then ``n``, ``dataset`` and
    ``given`` are left out: the query carries them) or a k-ary RR record; ``given`` holds the quantity the
    entry point takes (``epsilon``/``exp_epsilon`` or ``delta``).  Everything below takes the query as valid.
    """
    if isinstance(mech, Query):
        extra = [key for key, v in {"n": n, "dataset": dataset, **given}.items() if v is not None]
        if extra:
            raise InvalidArgument(extra[0], "given twice", "must not be given with a Query (the query carries it)")
        if mech.kind not in registry.RR_KINDS or not isinstance(mech.mechanism, KRR):
            raise _not_rr(mech.mechanism)
        return mech
    if not isinstance(mech, KRR):
        raise _not_rr(mech)
    return make_query(mechanism=mech, n=n, dataset="worst" if dataset is None else dataset, **given)


def _rr(q: Query) -> KRR:
    """The k-RR record of a query of :func:`_rr_query` (it refused every other record)."""
    assert isinstance(q.mechanism, KRR), q.mechanism
    return q.mechanism


def _target(q: Query) -> fmpq:
    """The target δ of a query that carries one (``require(q, "delta")`` refused it without)."""
    assert q.delta is not None
    return q.delta


def _rel_tol(rel_tol: Any) -> fmpq:
    return arith.exact_in(rel_tol, "rel_tol", lo=0, hi=1, lo_open=True, hi_open=True)


def _on(q: Query, word: str) -> Query:
    """``q`` on another dataset of :func:`lower_datasets` or the blanket view (valid words: no check)."""
    kind, c = ("c", 0) if word == "c=0" else (word, None)
    return replace(q, dataset=word, dataset_kind=kind, c=c)


def sweep_worst(
    mech: KRR,
    n: int,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    progress: Any = False,
    workers: int | None = None,
    scheduler: str | None = None,
) -> WorstCase:
    """:func:`exact.shuffled.binary.delta_binary_worst` on the chosen executor (current precision)."""

    return delta_binary_worst(
        mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, progress=progress, workers=workers, scheduler=scheduler
    )


def check_worst_cost(
    n: int,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    epsilon0: Any = None,
    pilot: tuple | None = None,
) -> tuple:
    """Raise :class:`~exact.runtime.budget.TooExpensive` if the exact worst-case sweep at ``n`` cannot finish in
    reasonable time or memory on the executor chosen by ``workers`` / ``scheduler``; else ``(seconds, bytes)``.
    ``pilot = (mech, epsilon, exp_epsilon[, prec[, pilots]])``: also count the ball route when the float route cannot
    decide a pilot dataset (:func:`exact.shuffled.binary.ball_route_seconds` at the sweep's precision ``prec``,
    O(sqrt(n)) work; ``pilots``: the dict of float pilots :func:`exact.shuffled.binary.ball_route_precision` filled
    for the same query, so that none runs twice)."""

    if n <= 4096:  # seconds at most on any machine: no need to look at the executor
        return check_worst_case(n, workers=1, max_seconds=float("inf"))
    extra = 0.0
    if pilot is not None:
        mech, epsilon, exp_epsilon = pilot[:3]
        prec = pilot[3] if len(pilot) > 3 else None
        pilots = pilot[4] if len(pilot) > 4 else None
        extra = ball_route_seconds(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, prec=prec, pilots=pilots)
    e0 = None
    if epsilon0 is not None:  # an exact number for the estimate (a ball's upper end)
        if isinstance(epsilon0, (fmpq, int)):
            e0 = fmpq(epsilon0)
        else:
            hi = arith.endpoints(arith.ball(epsilon0))[1]
            e0 = fmpq(hi.numerator, hi.denominator)
    cores, where = executor_cores(workers, scheduler)
    if n > ARB_SWEEP_MAX_N:  # the ball route's blocks run on the executor (below it: the calling process)
        extra /= max(1, cores)
    return check_worst_case(n, workers=cores, where=where, epsilon0=e0, extra_seconds=extra)


def eps0_of(mech: Any) -> Any:
    """The local ε0 of ``mech`` (exact if known, else a ball), only to refine the cost estimate."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None:
        return e0
    try:
        return mech.epsilon0()
    except Exception:  # pragma: no cover - the estimate then assumes a typical window
        return None


def _delta_raw(
    mech: KRR, n: int, kind: str, c: int | None, epsilon: Any = None, exp_epsilon: Any = None, **sweep: Any
) -> tuple:
    """The δ enclosure at the current precision (no escalation): value, extra info.  Validated arguments (the
    dataset fits ``mech``: ``c`` and ``worst`` are binary RR's).  ``sweep``: ``progress``/``workers``/``scheduler`` of
    :func:`sweep_worst`."""
    if kind == "worst":
        w = sweep_worst(mech, n, epsilon, exp_epsilon, **sweep)
        return w.value, w
    if kind == "c":
        assert c is not None  # the dataset "c=INT" carries its c (parse_dataset)
        return delta_binary(mech, n, c, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    if kind == "blanket":
        return krr.delta_blanket_view(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    return krr.delta_krr_family(mech, n, kind, epsilon=epsilon, exp_epsilon=exp_epsilon), None


def _tight(v: Any, prec: int, rel_tol: Any = None) -> bool:
    """True when the enclosure's relative width ``rad/|mid|`` is at most ``rel_tol`` (default 2^-40).

    A ball that still contains 0 is never tight (its relative width is unbounded): precision escalates, so a
    tiny δ (1e-72) gets a meaningful enclosure instead of [0, 1e-49].
    """
    if isinstance(v, fmpq):
        return True
    if not v.is_finite():
        return False
    if v.rad() == 0:
        return True
    mid = abs(v.mid())
    if mid == 0 or not (v > 0):
        return False
    tol = arb(2) ** (-REL_WIDTH_BITS) if rel_tol is None else arb(rel_tol)
    return v.rad() <= mid * tol


def _stalled(prev: Any, v: Any) -> bool:
    """True when doubling the precision did not even halve the radius: the width comes from the method
    (a certified truncation tolerance), not from rounding, so more precision would not help."""
    if prev is None or isinstance(v, fmpq) or isinstance(prev, fmpq) or not v.is_finite() or not prev.is_finite():
        return False
    return prev.rad() > 0 and v.rad() * 2 > prev.rad()


def _out_of_reach(prev: Any, v: Any, prec: int, cap: int, rel_tol: Any = None) -> bool:
    """True when, at the rate the last doubling narrowed the enclosure, the doublings left before ``cap`` cannot
    bring its relative width to ``rel_tol`` (default 2^-40): escalating further would only spend time (issue 26:
    k-RR's blanket view climbed to 4096 bits, 89 s, for a width set by the kernel's a-priori error bound).
    A float projection that only steers the effort; the enclosure returned is certified either way.  O(1)."""
    if prev is None or isinstance(v, fmpq) or isinstance(prev, fmpq) or not v.is_finite() or not prev.is_finite():
        return False
    if not (v > 0) or v.rad() == 0 or prev.rad() == 0:
        return False
    try:
        rate = float(prev.rad() / v.rad())  # the factor one doubling gained
        width = float(v.rad() / abs(v.mid()))
        tol = 2.0**-REL_WIDTH_BITS if rel_tol is None else float(arb(rel_tol))
    except (OverflowError, ValueError, ZeroDivisionError):
        return False
    if width <= tol or rate <= 1.0:
        return False
    needed = math.log(width / tol) / math.log(rate)
    left = math.log2(cap / prec)
    return needed > left + 0.5


def _width_note(v: Any, rel_tol: Any, cap: int, stalled: bool = False) -> str:
    """Why the enclosure at the cap is wider than asked (empty when it is not)."""
    if _tight(v, cap, rel_tol):
        return ""
    want = "2^-40" if rel_tol is None else arith.decimal_string(arith.exact(rel_tol), 3, up=True)
    if stalled:
        return (
            f"the enclosure's relative width is above {want}, and doubling the precision (now {cap} bits) no "
            "longer narrows it enough to get there before the cap: its width comes from the method's certified "
            "truncation (the kernel's a-priori error bound), not from rounding; --rel-tol sets the width asked for"
        )
    if isinstance(v, arb) and v.is_finite() and not (v > 0):
        return (
            f"the enclosure still contains 0 at the precision cap of {cap} bits (relative width above {want}); "
            "raise the cap with --precision BITS"
        )
    return (
        f"the enclosure's relative width is above {want} at the precision cap of {cap} bits; "
        "raise the cap with --precision BITS"
    )


def _attained(kind: str, c: int | None, n: int, w: Any = None) -> str:
    if kind == "worst":
        return w.dataset if w is not None else "all datasets (exact value 0)"
    if kind == "c":
        return f"c={c} ones among the other {n - 1} users, differing user 0 vs 1 (both directions)"
    return {
        "same": "the other users all hold the target's value",
        "neighbour": "the other users all hold the neighbour's value",
        "third": "the other users all hold a third value",
        "blanket": "the blanket view of Lemma 5.3 (an upper bound over all datasets)",
    }[kind]


# ---------------------------------------------------------------- δ(ε)
def lower_datasets(mech: KRR) -> list[str]:
    """The concrete datasets whose exact δ bounds the worst case from below in the cheap bracket:
    ``c=0`` for binary RR (both directions), the families ``same``/``neighbour``/``third`` for k-RR."""
    return ["c=0"] if mech.k == 2 else ["same", "neighbour", "third"]


def _bracket_value(lo: Any, hi: Any) -> arb:
    """A ball containing ``[lower end of lo, upper end of hi]``."""
    with arith.precision(max(arith.DEFAULT_PREC, 64)):
        return arith.ball(lo).union(arith.ball(hi))


def delta_bracket(
    mech: Any,
    n: Any = None,
    *,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
) -> DeltaProfile:
    """The certified bracket on the worst-case δ(ε): ``[max over lower_datasets, blanket view]``.

    Both ends are exact values of a named quantity: the largest δ over the
    concrete datasets of :func:`lower_datasets` (a lower bound on the worst
    case) and the blanket view of Lemma 5.3 (an upper bound on every
    dataset).  ``mech`` is a k-RR record or a validated
    :class:`~blanket.exact.accounting.query.Query` (its dataset is not used).  Cost: one blanket-view
    evaluation plus one per dataset (:mod:`exact.shuffled.krr`, :mod:`exact.shuffled.binary`), no sweep.
    """
    q = _rr_query(mech, n, None, epsilon=epsilon, exp_epsilon=exp_epsilon)
    require(q, "epsilon")
    return _delta_bracket(q, Effort(start_prec, cap))


def _delta_bracket(q: Query, effort: Effort) -> DeltaProfile:
    up = _delta(_on(q, "blanket"), effort)
    lows = [_delta(_on(q, d), effort) for d in lower_datasets(_rr(q))]
    lo = max(lows, key=lambda r: arith.endpoints(r.value)[0])
    attained = f"between {lo.dataset} ({lo.attained}) and the blanket view"
    return DeltaProfile(
        "bracket",
        "bracket",
        attained,
        lo.c,
        value=_bracket_value(lo.value, up.value),
        prec=max(lo.prec, up.prec),
        lower_bound=lo,
        upper_bound=up,
    )


def delta(
    mech: Any,
    n: Any = None,
    *,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    dataset: str | None = None,
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: Any = False,
    workers: int | None = None,
    scheduler: str | None = None,
    rel_tol: Any = None,
) -> DeltaProfile:
    """δ(ε) of the shuffled mechanism on ``dataset`` (see the module table; default ``"worst"``), as a
    :class:`DeltaProfile`.

    ``mech`` is a k-RR record (then ``n``, one of ``epsilon``/``exp_epsilon`` and ``dataset`` are validated here,
    once, by :func:`~blanket.exact.accounting.query.make_query`) or a validated
    :class:`~blanket.exact.accounting.query.Query` that carries them (the command line passes its query).
    Precision escalates (doubling from ``start_prec``) until the enclosure's
    relative width is ≤ ``rel_tol`` (default 2⁻⁴⁰; an enclosure containing 0
    is never accepted early); at the cap the last (valid, wider) enclosure is
    returned and ``note`` says why it is wider than asked.  Cost: one evaluation per precision step — see
    :mod:`exact.shuffled.binary` (k = 2) and :mod:`exact.shuffled.krr` (families, blanket).
    ``dataset="worst"``: binary RR runs the exact sweep on ``workers`` local
    processes or the Dask ``scheduler`` (:mod:`exact.runtime.executors`) after
    :func:`check_worst_cost`; k > 2 returns :func:`delta_bracket`.
    """
    q = _rr_query(mech, n, dataset, epsilon=epsilon, exp_epsilon=exp_epsilon)
    require(q, "epsilon")
    rt = None if rel_tol is None else _rel_tol(rel_tol)
    return _delta(q, Effort(start_prec, cap, progress, workers, scheduler), rel_tol=rt)


def sweep_start_precision(
    mech: KRR,
    n: int,
    *,
    epsilon: Any = None,
    exp_epsilon: Any = None,
    prec: int,
    cap: int,
    rel_tol: Any = None,
    pilots: dict | None = None,
) -> int:
    """The precision binary RR's exact worst-case sweep at ``epsilon`` starts at (``blanket delta`` and certify's
    claims alike): ``prec`` when ``ε ≥ ε0`` (every δ is 0, no sweep runs) or the float route decides the pilot
    dataset, else :func:`exact.shuffled.binary.ball_route_precision` with the relative tolerance ``rel_tol`` (default
    ``2^-REL_WIDTH_BITS``), capped at ``cap``.  ``pilots``: the dict of float pilots to share with the estimate
    (:func:`check_worst_cost`'s ``pilot``).  A choice only.  O(√n·log₂(cap/prec)) float work, one ball evaluation."""
    if epsilon is not None and arith.exact(epsilon, "epsilon") >= _epsilon_hi(mech):
        return prec
    return ball_route_precision(
        mech,
        n,
        epsilon=epsilon,
        exp_epsilon=exp_epsilon,
        prec=prec,
        cap=max(prec, cap),
        rel_tol=arb(2) ** (-REL_WIDTH_BITS) if rel_tol is None else rel_tol,
        pilots=pilots,
    )


def _delta(q: Query, effort: Effort, rel_tol: fmpq | None = None) -> DeltaProfile:
    """:func:`delta` on a validated query."""
    mech, n, kind, c = _rr(q), q.n, q.dataset_kind, q.c
    if kind == "bracket" or (kind == "worst" and mech.k != 2):
        return _delta_bracket(q, effort)
    prec, cap = effort.start_prec, effort.cap
    if kind == "worst" and not (q.epsilon is not None and q.epsilon >= _epsilon_hi(mech)):
        # (ε ≥ ε0: δ = 0 on every dataset, no sweep runs.)  When the ball route must run, start at the precision
        # that resolves the pilot dataset's δ, so that no whole sweep is spent in vain before an escalation; the
        # estimate below shares the float pilots (none runs twice)
        pilots: dict = {}
        prec = sweep_start_precision(
            mech, n, epsilon=q.epsilon, exp_epsilon=q.exp_epsilon, prec=prec, cap=cap, rel_tol=rel_tol, pilots=pilots
        )
        pilot = (mech, q.epsilon, q.exp_epsilon, prec, pilots)
        check_worst_cost(n, workers=effort.workers, scheduler=effort.scheduler, epsilon0=eps0_of(mech), pilot=pilot)
    prev = None
    stalled = False
    while True:
        with arith.precision(prec):
            v, w = _delta_raw(mech, n, kind, c, q.epsilon, q.exp_epsilon, **effort.sweep())
            done = _tight(v, prec, rel_tol)
        if done or prec >= cap:
            break
        if _stalled(prev, v) or _out_of_reach(prev, v, prec, cap, rel_tol):
            stalled = True
            break
        prev = v
        prec = min(2 * prec, cap)
        check_time(f"precision escalation (now {prec} bits)")
    note = "" if done else _width_note(v, rel_tol, prec, stalled)
    if kind == "worst" and w is not None:
        attained = _attained(kind, c, n, w)
        return DeltaProfile("worst", "exact", attained, w.c, w.direction, value=v, prec=prec, ties=w.ties, note=note)
    return DeltaProfile(q.dataset, RELATION[kind], _attained(kind, c, n), c, value=v, prec=prec, note=note)


# ---------------------------------------------------------------- ε(δ)
def _guess(mech: KRR, n: int, target: fmpq) -> float | None:
    """Float estimate of ε (Gaussian approximation of the count; only seeds the certified search)."""
    try:
        ee0 = mech.exp_epsilon0()
        e = float(arith.ball(ee0).mid())
        k = mech.k
        p, f = e / (e + k - 1), 1 / (e + k - 1)
        var = n * (p * f if k == 2 else 2 * f)
        mu = (p - f) / math.sqrt(var)
        tq = int(target.p) / int(target.q)
        return gaussian_epsilon_guess(mu, tq)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def _epsilon_hi(mech: KRR) -> fmpq:
    """An exact rational ≥ ε0 (δ(ε) = 0 from ε0 on)."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None:
        return e0
    with arith.precision(arith.DEFAULT_PREC):
        lo, hi = arith.endpoints(mech.epsilon0())
    return fmpq(hi.numerator, hi.denominator)


def _calibrate(
    fun: Any, target: fmpq, lo: fmpq, hi: fmpq, rel_tol: fmpq, guess: float | None, effort: Effort
) -> Bracket:
    """The smallest ε in ``[lo, hi]`` with ``fun(ε) <= target`` (validated arguments; an empty domain, ε0 = 0,
    goes to :func:`~blanket.exact.numbers.calibrate.epsilon_for_delta`, which says so)."""
    start_prec, cap = effort.start_prec, effort.cap
    if not lo < hi:
        return epsilon_for_delta(fun, target, hi=hi, lo=lo, rel_tol=rel_tol, start_prec=start_prec, cap=cap)
    return validated_search(
        fun, target, lo, hi, meets_high=True, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap
    )


#: the k-RR blanket view and dataset families: calibrated by :func:`blanket.exact.shuffled.krr.calibrate_epsilon`
KRR_VIEWS = ("blanket", "same", "neighbour", "third")


def _calibrate_view(q: Query, rel_tol: fmpq, progress: Any) -> Bracket:
    """The certified ε(δ) bracket of the k-RR blanket view or a dataset family of ``q``.

    :func:`blanket.exact.shuffled.krr.calibrate_epsilon` searches on the exact upper end of each enclosure, so no
    comparison is undecided and the precision never escalates (the width of these enclosures comes from a windowing
    bound, not from rounding), then certifies the failing end: typically 5–9 evaluations where the general search
    escalated to 256 bits and spent about 11.  Cost: that many evaluations, each O(√n).
    """
    bar = Progress(None, f"epsilon on {q.dataset}", enabled=None if progress else False, unit="eval")

    def tick(eps: fmpq) -> None:
        bar.update(1, note=f"epsilon={float(eps.p) / float(eps.q):.6g}")

    with bar:
        return krr.calibrate_epsilon(_rr(q), q.n, _target(q), view=q.dataset_kind, rel_tol=rel_tol, on_evaluation=tick)


def _on_dataset(q: Query, desc: str, progress: Any) -> tuple:
    """δ(ε) on the (validated) dataset of ``q`` at the current precision, counting evaluations on a progress bar;
    returns ``(bar, fun)`` (use ``bar`` as a context manager)."""

    bar = Progress(None, desc, enabled=None if progress else False, unit="eval")

    def fun(eps: fmpq) -> Any:
        v = _delta_raw(_rr(q), q.n, q.dataset_kind, q.c, epsilon=eps)[0]
        bar.update(1, note=f"epsilon={float(eps.p) / float(eps.q):.6g}")
        return v

    return bar, fun


def epsilon_bracket(
    mech: Any,
    n: Any = None,
    *,
    delta: Any = None,
    rel_tol: Any = "1e-6",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: Any = False,
) -> EpsilonProfile:
    """The certified bracket on the worst-case ε(δ): lower end from the concrete datasets, upper end from the blanket view.

    ``upper``: the blanket view meets the target there (certified), hence
    every dataset does.  ``lower``: the largest certified failing point over
    :func:`lower_datasets` -- δ on that dataset exceeds the target there, hence
    so does the worst case (``lower = 0`` if every one of them meets the
    target at ε = 0).  Each end is calibrated to ``rel_tol``; the bracket's
    own relative width (``bracket.rel_width()``) measures how far apart the
    two bounds are.  ``mech``: a k-RR record or a validated query (as for :func:`epsilon`).  Cost: 1 +
    len(lower_datasets) calibrations (5–9 evaluations each), no sweep.
    """
    q = _rr_query(mech, n, None, delta=delta)
    require(q, "delta")
    return _epsilon_bracket(q, _rel_tol(rel_tol), Effort(start_prec, cap, progress))


def _epsilon_bracket(q: Query, rel_tol: fmpq, effort: Effort) -> EpsilonProfile:
    mech = _rr(q)
    best = None
    evaluations = 0
    for d in lower_datasets(mech):  # concrete datasets: no sweep, so the effort's executor is not used
        pr = _epsilon(_on(q, d), rel_tol, effort)
        evaluations += pr.evaluations
        fails = pr.lower < pr.upper  # the lower end is certified to fail only then
        key = pr.lower if fails else fmpq(-1)
        if best is None or key > best[0]:
            best = (key, pr, fails)
    assert best is not None  # lower_datasets is never empty
    _, lo, fails = best
    lower = lo.lower if fails else fmpq(0)
    # the upper end: the blanket view's calibration (its Gaussian guess starts it next to the crossing)
    up = _calibrate_view(_on(q, "blanket"), rel_tol, effort.progress)
    evaluations += up.evaluations
    br = Bracket(
        min(lower, up.upper),
        up.upper,
        evaluations,
        lo.bracket.delta_lower if fails else None,
        up.delta_upper,
        max(lo.bracket.prec, up.prec),
    )
    lower_source = lo.attained if fails else "none of the concrete datasets fails at epsilon = 0"
    return EpsilonProfile(
        "bracket",
        "bracket",
        f"between {lo.dataset} (lower end) and the blanket view (upper end)",
        lo.c,
        bracket=br,
        total_evaluations=evaluations,
        lower_source=lower_source,
        upper_source="the blanket view of Lemma 5.3 (an upper bound on every dataset)",
    )


def epsilon(
    mech: Any,
    n: Any = None,
    *,
    delta: Any = None,
    dataset: str | None = None,
    rel_tol: Any = "1e-6",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: Any = False,
    workers: int | None = None,
    scheduler: str | None = None,
) -> EpsilonProfile:
    """The smallest central ε with δ(ε) ≤ ``delta`` on ``dataset`` (default ``"worst"``), certified (see the
    module docstring).

    ``mech`` is a k-RR record (then ``n``, ``delta`` and ``dataset`` are validated here, once, by
    :func:`~blanket.exact.accounting.query.make_query`) or a validated
    :class:`~blanket.exact.accounting.query.Query` that carries them.
    ``result.upper`` is proven to meet the target; ``result.lower`` is proven
    to fail it (on the dataset; for ``worst``, on the attaining dataset and
    hence in the worst case).  Relative width ≤ ``rel_tol`` (for the
    bracket, each end; see :func:`epsilon_bracket`).  ``dataset="worst"``:
    k > 2 gives :func:`epsilon_bracket`; binary RR checks the sweep's cost
    (:func:`check_worst_cost`) and runs it on ``workers`` / ``scheduler``.
    """
    q = _rr_query(mech, n, dataset, delta=delta)
    require(q, "delta")
    return _epsilon(q, _rel_tol(rel_tol), Effort(start_prec, cap, progress, workers, scheduler))


def _epsilon(q: Query, rel_tol: fmpq, effort: Effort) -> EpsilonProfile:
    """:func:`epsilon` on a validated query."""
    mech, n, kind, c = _rr(q), q.n, q.dataset_kind, q.c
    if kind == "bracket" or (kind == "worst" and mech.k != 2):
        return _epsilon_bracket(q, rel_tol, effort)
    if kind in KRR_VIEWS:
        br = _calibrate_view(q, rel_tol, effort.progress)
        return EpsilonProfile(q.dataset, RELATION[kind], _attained(kind, c, n), c, bracket=br)
    hi = _epsilon_hi(mech)
    guess = _guess(mech, n, _target(q))
    if guess is not None and not (0 < guess < float(hi.p) / float(hi.q)):
        guess = None
    if kind != "worst":
        bar, fun = _on_dataset(q, f"epsilon on {q.dataset}", effort.progress)
        with bar:
            br = _calibrate(fun, _target(q), fmpq(0), hi, rel_tol, guess, effort)
        return EpsilonProfile(q.dataset, RELATION[kind], _attained(kind, c, n), c, bracket=br)
    check_worst_cost(n, workers=effort.workers, scheduler=effort.scheduler, epsilon0=eps0_of(mech))
    return _epsilon_worst(q, rel_tol, hi, guess, effort)


def _worst_profile(
    br: Bracket, where: tuple, sweeps: int, evaluations: int, upper_source: str, lower_source: str | None
) -> EpsilonProfile:
    """The worst-case answer: ``where = (attained, c, direction)``; ``upper_source`` names the bound that
    certified the upper end (the blanket view or the exact worst case)."""
    return EpsilonProfile(
        "worst",
        "exact",
        *where,
        bracket=br,
        sweeps=sweeps,
        total_evaluations=evaluations,
        lower_source=lower_source,
        upper_source=upper_source,
    )


def _epsilon_worst(q: Query, rel_tol: fmpq, hi: fmpq, guess: float | None, effort: Effort) -> EpsilonProfile:
    """The worst case over all datasets of binary RR (see the module docstring): calibrate on a candidate
    dataset, certify the upper end by the blanket view or a sweep, move to the sweep's maximiser if worse."""

    mech, n, target = _rr(q), q.n, _target(q)

    def decided(v: Any) -> bool:
        return arith.le(v, target) is not None

    def sweep(eps: fmpq) -> Any:
        return arith.escalate(
            lambda prec: sweep_worst(mech, n, epsilon=eps, **effort.sweep()),
            # escalate hands back what sweep_worst returned (a WorstCase); its signature says object
            lambda w: decided(w.value),
            start=effort.start_prec,
            cap=effort.cap,
            what=f"worst case at epsilon={eps}",
        )[0]

    def blanket_certifies(eps: fmpq) -> bool:
        """The cheap upper bound first: the blanket view at ``eps`` certainly ≤ target (then no sweep is needed)."""
        try:
            v = arith.escalate(
                lambda prec: krr.delta_blanket_view(mech, n, epsilon=eps),
                decided,
                start=effort.start_prec,
                cap=effort.cap,
                what=f"blanket view at epsilon={eps}",
            )[0]
        except Undecided:
            return False
        return arith.le(v, target) is True

    # first candidate: c = 0 in the reverse direction (forward index n−1), cheap to calibrate on; the upper end is
    # then certified by the blanket view if it can, else by a sweep over all datasets, which names the true
    # maximiser if it is another dataset
    j = n - 1
    sweeps = 0
    total = 0
    tried = set()
    while True:
        tried.add(j)

        def fun(eps: fmpq, j: int = j) -> Any:
            ee0, p, f = rr_params(mech)
            return forward_single(n, j, ee0, p, f, arith.exp_param(epsilon=eps))

        br = _calibrate(fun, target, fmpq(0), hi, rel_tol, guess, effort)
        total += br.evaluations
        att = WorstCase(fmpq(1), j, "1|0", (j,), n).dataset

        if br.upper != br.lower and blanket_certifies(br.upper):
            return _worst_profile(br, (att, j, "1|0"), sweeps, total + 1, "the blanket view of Lemma 5.3", att)
        cert = sweep(br.upper)
        sweeps += 1
        if arith.le(cert.value, target):
            if br.upper == br.lower:  # the target is met at ε = 0: the sweep's maximiser attains it
                where = (cert.dataset, cert.c, cert.direction)
                return _worst_profile(br, where, sweeps, total, "the exact worst case", None)
            return _worst_profile(br, (att, j, "1|0"), sweeps, total, "the exact worst case over all datasets", att)
        # a worse dataset exists at br.upper: calibrate on it
        if cert.c in tried:
            raise Undecided(
                "the worst-case calibration did not settle on a dataset (the maximiser changes with epsilon); "
                "try a larger precision cap"
            )
        j = cert.c
        guess = float(br.upper.p) / float(br.upper.q)


def epsilon0(
    n: Any,
    *,
    epsilon: Any,
    delta: Any,
    k: Any = 2,
    dataset: str = "worst",
    rel_tol: Any = "1e-6",
    hi: Any = "20",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
) -> Bracket:
    """The largest local ε0 of k-RR such that the shuffled mechanism meets (ε, δ) on ``dataset``.

    A certified :class:`~exact.numbers.calibrate.Bracket` with ``lower`` proven to
    meet the target and ``upper`` proven to fail (δ is non-decreasing in ε0:
    RR with a smaller ε0 is a post-processing of RR with a larger one).  For
    ``worst`` every evaluation is a full sweep over all datasets (cost: about
    8 sweeps).  ``hi`` caps the search domain.  The arguments are validated once
    (:func:`~blanket.exact.accounting.query.make_query`, a query without the local level).
    """
    q = make_query(mechanism="rr", k=k, n=n, epsilon=epsilon, delta=delta, dataset=dataset, need_mechanism=False)
    require(q, "epsilon", "delta")
    if q.k != 2 and q.dataset_kind == "worst":
        raise binary_only(dataset, q.k)
    hi_q = arith.exact_in(hi, "hi", lo=0, lo_open=True)
    rt = _rel_tol(rel_tol)
    eps, kk, kind, c = q.epsilon, q.k, q.dataset_kind, q.c
    # epsilon is required above (given as epsilon, never exp_epsilon); make_query sets k for randomized response
    assert eps is not None and kk is not None
    lo_q = eps if eps < hi_q else fmpq(0)  # below ε0 = ε the target is met trivially (δ = 0)

    def fun(e0: fmpq) -> Any:
        return _delta_raw(KRR(kk, epsilon0=e0), q.n, kind, c, epsilon=eps)[0]

    return validated_search(fun, _target(q), lo_q, hi_q, meets_high=False, rel_tol=rt, start_prec=start_prec, cap=cap)
