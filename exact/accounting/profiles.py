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
is a certified :class:`~exact.accounting.calibrate.Bracket` (the reported ε is its upper
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
import re
from dataclasses import dataclass

from blanket.exact.accounting.calibrate import Bracket, epsilon0_for, epsilon_for_delta, gaussian_epsilon_guess
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from flint import arb, fmpq

DATASETS = ("worst", "bracket", "c=INT", "same", "neighbour", "third", "blanket")
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


def parse_dataset(dataset, n: int | None = None):
    """``(kind, c)`` from a dataset string: ``"worst"``, ``"c=INT"``, ``"same"``, ``"neighbour"`` (or
    ``"neighbor"``), ``"third"``, ``"blanket"``.

    >>> parse_dataset("c=3", 10), parse_dataset("worst")
    (('c', 3), ('worst', None))
    >>> parse_dataset("c=10", 10)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: dataset must be c=INT with 0 <= INT <= n-1 = 9, got 'c=10'
    """
    if not isinstance(dataset, str):
        raise InvalidArgument("dataset", dataset, f"must be one of {', '.join(DATASETS)}")
    s = dataset.strip().lower()
    if s == "neighbor":
        s = "neighbour"
    if s in ("worst", "bracket", "same", "neighbour", "third", "blanket"):
        return s, None
    m = re.fullmatch(r"c\s*=\s*(\d+)", s)
    if m:
        c = int(m.group(1))
        if n is not None and not 0 <= c <= n - 1:
            raise InvalidArgument("dataset", dataset, f"must be c=INT with 0 <= INT <= n-1 = {n - 1}")
        return "c", c
    raise InvalidArgument("dataset", dataset, f"must be one of {', '.join(DATASETS)}")


@dataclass(frozen=True)
class DeltaProfile:
    """δ at one ε: ``value`` (enclosure), the dataset it is about, and how it relates to the protocol's DP δ.

    ``relation``: ``"exact"`` (the worst case over all datasets), ``"lower"``
    (one pair of datasets: a lower bound on the DP δ), ``"upper"`` (the
    blanket view: an upper bound) or ``"bracket"`` (``value`` encloses
    ``[lower_bound.value, upper_bound.value]``, which contains the worst case).
    ``attained``: the dataset attaining the worst case (``worst``) or the
    dataset itself.  ``ties``: further datasets not separated from the
    maximum (worst case only).
    """

    value: object
    dataset: str
    relation: str
    attained: str
    prec: int
    c: int | None = None
    direction: str | None = None
    ties: tuple = ()
    lower_bound: DeltaProfile | None = None
    upper_bound: DeltaProfile | None = None

    @property
    def rel_width(self):
        """Relative width ``(upper end − lower end)/upper end`` of ``value`` (exact fmpq; 0 if the upper end is 0)."""
        lo, hi = arith.endpoints(self.value)
        lo = max(lo, 0)
        w = (hi - lo) / hi if hi > 0 else 0
        return fmpq(w.numerator, w.denominator) if w else fmpq(0)

    note: str = ""  # why the enclosure is wider than the requested relative width (empty when it is not)


@dataclass(frozen=True)
class EpsilonProfile:
    """The smallest ε with δ(ε) ≤ target: a certified bracket (report ``upper``).

    For ``relation="bracket"`` the two ends come from different bounds:
    ``lower_source`` (a concrete dataset: δ there exceeds the target at
    ``lower``, hence so does the worst case) and ``upper_source`` (the blanket
    view: it meets the target at ``upper``, hence so does every dataset).
    ``decided_by`` names the bound that certified the reported upper end.
    """

    bracket: Bracket
    dataset: str
    relation: str
    attained: str
    c: int | None = None
    direction: str | None = None
    sweeps: int = 0
    total_evaluations: int | None = None
    lower_source: str | None = None
    upper_source: str | None = None
    decided_by: str | None = None

    @property
    def evaluations(self) -> int:
        """Single-dataset evaluations of δ over all calibration rounds (full sweeps counted in ``sweeps``)."""
        return self.total_evaluations if self.total_evaluations is not None else self.bracket.evaluations

    @property
    def lower(self):
        return self.bracket.lower

    @property
    def upper(self):
        return self.bracket.upper


# ---------------------------------------------------------------- helpers
def _k(mech) -> int:
    k = getattr(mech, "k", None)
    if k is None:
        raise InvalidArgument(
            "mech", getattr(mech, "name", mech), "must be k-ary randomized response (exact.mechanisms.finite.KRR)"
        )
    return k


def _need_binary(mech, kind):
    if _k(mech) != 2:
        hint = (
            "use dataset same|neighbour|third (exact on those families, lower bounds on the worst case) "
            "or blanket (an upper bound on every dataset)"
        )
        raise InvalidArgument(
            "dataset", kind, f"is only available for binary RR (k = 2), not k = {_k(mech)}", hint=hint
        )


def _worst_kwargs(fn, workers, scheduler) -> dict:
    """``workers=`` / ``scheduler=`` for ``fn`` if it accepts them (they are dropped otherwise)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return {}
    kw = {}
    if "workers" in params:
        kw["workers"] = workers
    if "scheduler" in params:
        kw["scheduler"] = scheduler
    return kw


def sweep_worst(mech, n, epsilon=None, exp_epsilon=None, progress=False, workers=None, scheduler=None):
    """:func:`exact.shuffled.binary.delta_binary_worst` on the chosen executor (current precision)."""
    from blanket.exact.shuffled.binary import delta_binary_worst

    return delta_binary_worst(
        mech,
        n,
        epsilon=epsilon,
        exp_epsilon=exp_epsilon,
        progress=progress,
        **_worst_kwargs(delta_binary_worst, workers, scheduler),
    )


def check_worst_cost(n, *, workers=None, scheduler=None, epsilon0=None) -> tuple:
    """Raise :class:`~exact.runtime.budget.TooExpensive` if the exact worst-case sweep at ``n`` cannot finish in
    reasonable time or memory on the executor chosen by ``workers`` / ``scheduler``; else ``(seconds, bytes)``."""
    from blanket.exact.runtime.budget import check_worst_case
    from blanket.exact.runtime.executors import executor_cores
    from blanket.exact.shuffled.binary import delta_binary_worst

    if n <= 4096:  # seconds at most on any machine: no need to look at the executor
        return check_worst_case(n, workers=1, max_seconds=float("inf"))
    e0 = None
    if epsilon0 is not None:  # an exact number for the estimate (a ball's upper end)
        if isinstance(epsilon0, (fmpq, int)):
            e0 = fmpq(epsilon0)
        else:
            hi = arith.endpoints(arith.ball(epsilon0))[1]
            e0 = fmpq(hi.numerator, hi.denominator)
    kw = _worst_kwargs(delta_binary_worst, workers, scheduler)
    if not kw:  # this exact.shuffled.binary runs the sweep in-process
        return check_worst_case(n, workers=1, where="in one process", epsilon0=e0)
    cores, where = executor_cores(kw.get("workers"), kw.get("scheduler"))
    return check_worst_case(n, workers=cores, where=where, epsilon0=e0)


def eps0_of(mech):
    """The local ε0 of ``mech`` (exact if known, else a ball), only to refine the cost estimate."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None:
        return e0
    try:
        return mech.epsilon0()
    except Exception:  # pragma: no cover - the estimate then assumes a typical window
        return None


def _delta_raw(mech, n, kind, c, epsilon=None, exp_epsilon=None, progress=False, workers=None, scheduler=None):
    """The δ enclosure at the current precision (no escalation): value, extra info."""
    if kind == "worst":
        _need_binary(mech, kind)
        w = sweep_worst(mech, n, epsilon, exp_epsilon, progress, workers, scheduler)
        return w.value, w
    if kind == "c":
        _need_binary(mech, "c=INT")
        from blanket.exact.shuffled.binary import delta_binary

        return delta_binary(mech, n, c, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    from blanket.exact.shuffled import krr  # engineer B's module (lazy: profiles works for k = 2 without it)

    if kind == "blanket":
        return krr.delta_blanket_view(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    return krr.delta_krr_family(mech, n, kind, epsilon=epsilon, exp_epsilon=exp_epsilon), None


def _tight(v, prec, rel_tol=None) -> bool:
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


def _stalled(prev, v) -> bool:
    """True when doubling the precision did not even halve the radius: the width comes from the method
    (a certified truncation tolerance), not from rounding, so more precision would not help."""
    if prev is None or isinstance(v, fmpq) or isinstance(prev, fmpq) or not v.is_finite() or not prev.is_finite():
        return False
    return prev.rad() > 0 and v.rad() * 2 > prev.rad()


def _width_note(v, rel_tol, cap, stalled=False) -> str:
    """Why the enclosure at the cap is wider than asked (empty when it is not)."""
    if _tight(v, cap, rel_tol):
        return ""
    want = "2^-40" if rel_tol is None else arith.decimal_string(arith.exact(rel_tol), 3, up=True)
    if stalled:
        return (
            f"the enclosure's relative width is above {want} and doubling the precision (now {cap} bits) no "
            "longer narrows it: its width comes from the method's certified truncation, not from rounding"
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


def _attained(kind, c, n, w=None):
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
def lower_datasets(mech) -> list:
    """The concrete datasets whose exact δ bounds the worst case from below in the cheap bracket:
    ``c=0`` for binary RR (both directions), the families ``same``/``neighbour``/``third`` for k-RR."""
    k = _k(mech)
    return ["c=0"] if k == 2 else ["same", "neighbour", "third"]


def _bracket_value(lo, hi):
    """A ball containing ``[lower end of lo, upper end of hi]``."""
    with arith.precision(max(arith.DEFAULT_PREC, 64)):
        return arith.ball(lo).union(arith.ball(hi))


def delta_bracket(
    mech, n, *, epsilon=None, exp_epsilon=None, start_prec: int = arith.DEFAULT_PREC, cap: int = arith.MAX_PREC
) -> DeltaProfile:
    """The certified bracket on the worst-case δ(ε): ``[max over lower_datasets, blanket view]``.

    Both ends are exact values of a named quantity: the largest δ over the
    concrete datasets of :func:`lower_datasets` (a lower bound on the worst
    case) and the blanket view of Lemma 5.3 (an upper bound on every
    dataset).  Cost: one blanket-view evaluation plus one per dataset
    (:mod:`exact.shuffled.krr`, :mod:`exact.shuffled.binary`), no sweep.
    """
    n = arith.integer_in(n, "n", lo=2)
    up = delta(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, dataset="blanket", start_prec=start_prec, cap=cap)
    lows = [
        delta(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, dataset=d, start_prec=start_prec, cap=cap)
        for d in lower_datasets(mech)
    ]
    lo = max(lows, key=lambda r: arith.endpoints(r.value)[0])
    attained = f"between {lo.dataset} ({lo.attained}) and the blanket view"
    return DeltaProfile(
        _bracket_value(lo.value, up.value),
        "bracket",
        "bracket",
        attained,
        max(lo.prec, up.prec),
        lo.c,
        lower_bound=lo,
        upper_bound=up,
    )


def delta(
    mech,
    n,
    *,
    epsilon=None,
    exp_epsilon=None,
    dataset="worst",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: bool = False,
    workers=None,
    scheduler=None,
    rel_tol=None,
) -> DeltaProfile:
    """δ(ε) of the shuffled mechanism on ``dataset`` (see the module table), as a :class:`DeltaProfile`.

    Precision escalates (doubling from ``start_prec``) until the enclosure's
    relative width is ≤ ``rel_tol`` (default 2⁻⁴⁰; an enclosure containing 0
    is never accepted early); at the cap the last (valid, wider) enclosure is
    returned and ``note`` says why it is wider than asked.  Cost: one evaluation per precision step — see
    :mod:`exact.shuffled.binary` (k = 2) and :mod:`exact.shuffled.krr` (families, blanket).
    ``dataset="worst"``: binary RR runs the exact sweep on ``workers`` local
    processes or the Dask ``scheduler`` (:mod:`exact.runtime.executors`) after
    :func:`check_worst_cost`; k > 2 returns :func:`delta_bracket`.
    """
    n = arith.integer_in(n, "n", lo=2)
    kind, c = parse_dataset(dataset, n)
    if kind == "bracket" or (kind == "worst" and _k(mech) != 2):
        return delta_bracket(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, start_prec=start_prec, cap=cap)
    _k(mech)
    if kind == "worst" and not (epsilon is not None and arith.exact(epsilon, "epsilon") >= _epsilon_hi(mech)):
        # (ε ≥ ε0: δ = 0 on every dataset, no sweep runs)
        check_worst_cost(n, workers=workers, scheduler=scheduler, epsilon0=eps0_of(mech))
    prec = start_prec
    prev = None
    stalled = False
    while True:
        with arith.precision(prec):
            v, w = _delta_raw(mech, n, kind, c, epsilon, exp_epsilon, progress, workers, scheduler)
            done = _tight(v, prec, rel_tol)
        if done or prec >= cap:
            break
        if _stalled(prev, v):
            stalled = True
            break
        prev = v
        prec = min(2 * prec, cap)
    note = "" if done else _width_note(v, rel_tol, prec, stalled)
    if kind == "worst" and w is not None:
        return DeltaProfile(v, "worst", "exact", _attained(kind, c, n, w), prec, w.c, w.direction, w.ties, note)
    return DeltaProfile(
        v, dataset if kind != "c" else f"c={c}", RELATION[kind], _attained(kind, c, n), prec, c, note=note
    )


# ---------------------------------------------------------------- ε(δ)
def _guess(mech, n, target) -> float | None:
    """Float estimate of ε (Gaussian approximation of the count; only seeds the certified search)."""
    try:
        ee0 = mech.exp_epsilon0()
        e = float(arith.ball(ee0).mid())
        k = _k(mech)
        p, f = e / (e + k - 1), 1 / (e + k - 1)
        var = n * (p * f if k == 2 else 2 * f)
        mu = (p - f) / math.sqrt(var)
        tq = int(target.p) / int(target.q)
        return gaussian_epsilon_guess(mu, tq)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def _epsilon_hi(mech) -> fmpq:
    """An exact rational ≥ ε0 (δ(ε) = 0 from ε0 on)."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None:
        return e0
    with arith.precision(arith.DEFAULT_PREC):
        lo, hi = arith.endpoints(mech.epsilon0())
    return fmpq(hi.numerator, hi.denominator)


def epsilon_bracket(
    mech,
    n,
    *,
    delta,
    rel_tol="1e-6",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: bool = False,
) -> EpsilonProfile:
    """The certified bracket on the worst-case ε(δ): lower end from the concrete datasets, upper end from the blanket view.

    ``upper``: the blanket view meets the target there (certified), hence
    every dataset does.  ``lower``: the largest certified failing point over
    :func:`lower_datasets` -- δ on that dataset exceeds the target there, hence
    so does the worst case (``lower = 0`` if every one of them meets the
    target at ε = 0).  Each end is calibrated to ``rel_tol``; the bracket's
    own relative width (``bracket.rel_width()``) measures how far apart the
    two bounds are.  Cost: 1 + len(lower_datasets) calibrations (5–9
    evaluations each), no sweep.
    """
    n = arith.integer_in(n, "n", lo=2)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    best = None
    evaluations = 0
    for d in lower_datasets(mech):
        pr = epsilon(
            mech, n, delta=delta, dataset=d, rel_tol=rel_tol, start_prec=start_prec, cap=cap, progress=progress
        )
        evaluations += pr.evaluations
        fails = pr.lower < pr.upper  # the lower end is certified to fail only then
        key = pr.lower if fails else fmpq(-1)
        if best is None or key > best[0]:
            best = (key, pr, fails)
    _, lo, fails = best
    lower = lo.lower if fails else fmpq(0)
    # the upper end: the blanket view fails wherever the lower dataset fails (it is larger), so its
    # calibration searches [lower, ε0] only, seeded just above the lower end
    from blanket.exact.runtime.progress import Progress

    hi = _epsilon_hi(mech)
    guess = float(lower.p) / float(lower.q) * 1.1 if fails and lower > 0 else _guess(mech, n, target)
    if guess is not None and not (float(lower.p) / float(lower.q) < guess < float(hi.p) / float(hi.q)):
        guess = None
    with Progress(None, "epsilon on blanket", enabled=None if progress else False, unit="eval") as bar:

        def fun(eps):
            v = _delta_raw(mech, n, "blanket", None, epsilon=eps)[0]
            bar.update(1, note=f"epsilon={float(eps.p) / float(eps.q):.6g}")
            return v

        up = epsilon_for_delta(
            fun, target, hi=hi, lo=lower if fails else 0, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap
        )
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
        br,
        "bracket",
        "bracket",
        f"between {lo.dataset} (lower end) and the blanket view (upper end)",
        lo.c,
        total_evaluations=evaluations,
        lower_source=lower_source,
        upper_source="the blanket view of Lemma 5.3 (an upper bound on every dataset)",
        decided_by="blanket view",
    )


def epsilon(
    mech,
    n,
    *,
    delta,
    dataset="worst",
    rel_tol="1e-6",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    progress: bool = False,
    workers=None,
    scheduler=None,
) -> EpsilonProfile:
    """The smallest central ε with δ(ε) ≤ ``delta`` on ``dataset``, certified (see the module docstring).

    ``result.upper`` is proven to meet the target; ``result.lower`` is proven
    to fail it (on the dataset; for ``worst``, on the attaining dataset and
    hence in the worst case).  Relative width ≤ ``rel_tol`` (for the
    bracket, each end; see :func:`epsilon_bracket`).  ``dataset="worst"``:
    k > 2 gives :func:`epsilon_bracket`; binary RR checks the sweep's cost
    (:func:`check_worst_cost`) and runs it on ``workers`` / ``scheduler``.
    """
    n = arith.integer_in(n, "n", lo=2)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    kind, c = parse_dataset(dataset, n)
    _k(mech)
    if kind == "bracket" or (kind == "worst" and _k(mech) != 2):
        return epsilon_bracket(
            mech, n, delta=target, rel_tol=rel_tol, start_prec=start_prec, cap=cap, progress=progress
        )
    hi = _epsilon_hi(mech)
    guess = _guess(mech, n, target)
    if guess is not None and not (0 < guess < float(hi.p) / float(hi.q)):
        guess = None
    if kind != "worst":
        if kind == "c":
            _need_binary(mech, "c=INT")

        from blanket.exact.runtime.progress import Progress

        with Progress(None, f"epsilon on {dataset}", enabled=None if progress else False, unit="eval") as bar:

            def fun(eps):
                v = _delta_raw(mech, n, kind, c, epsilon=eps)[0]
                bar.update(1, note=f"epsilon={float(eps.p) / float(eps.q):.6g}")
                return v

            br = epsilon_for_delta(fun, target, hi=hi, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap)
        return EpsilonProfile(br, dataset if kind != "c" else f"c={c}", RELATION[kind], _attained(kind, c, n), c)
    _need_binary(mech, "worst")
    check_worst_cost(n, workers=workers, scheduler=scheduler, epsilon0=eps0_of(mech))
    from blanket.exact.shuffled.binary import WorstCase, forward_single, rr_params

    def sweep(eps, what):
        def compute(prec):
            return sweep_worst(mech, n, epsilon=eps, progress=progress, workers=workers, scheduler=scheduler)

        return arith.escalate(
            compute, lambda w: arith.le(w.value, target) is not None, start=start_prec, cap=cap, what=what
        )[0]

    def blanket_certifies(eps) -> bool:
        """The cheap upper bound first: the blanket view at ``eps`` certainly ≤ target (then no sweep is needed)."""
        from blanket.exact.shuffled import krr

        def compute(prec):
            return krr.delta_blanket_view(mech, n, epsilon=eps)

        try:
            v = arith.escalate(
                compute,
                lambda v: arith.le(v, target) is not None,
                start=start_prec,
                cap=cap,
                what=f"blanket view at epsilon={eps}",
            )[0]
        except Undecided:
            return False
        return arith.le(v, target) is True

    # 1. first candidate: c = 0 in the reverse direction (forward index n−1), cheap to calibrate on; the
    #    upper end is then certified by the blanket view if it can, else by a sweep over all datasets,
    #    which names the true maximiser if it is another dataset
    j = n - 1
    sweeps = 0
    total = 0
    tried = set()
    while True:
        tried.add(j)

        def fun(eps, j=j):
            ee0, p, f = rr_params(mech)
            return forward_single(n, j, ee0, p, f, arith.exp_param(epsilon=eps))

        br = epsilon_for_delta(fun, target, hi=hi, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap)
        total += br.evaluations
        att = WorstCase(fmpq(1), j, "1|0", (j,), n).dataset
        if br.upper != br.lower and blanket_certifies(br.upper):
            return EpsilonProfile(
                br,
                "worst",
                "exact",
                att,
                j,
                "1|0",
                sweeps,
                total + 1,
                lower_source=att,
                upper_source="the blanket view of Lemma 5.3",
                decided_by="blanket view",
            )
        cert = sweep(br.upper, f"worst case at epsilon={br.upper}")
        sweeps += 1
        if arith.le(cert.value, target):
            if br.upper == br.lower:
                return EpsilonProfile(
                    br,
                    "worst",
                    "exact",
                    cert.dataset,
                    cert.c,
                    cert.direction,
                    sweeps,
                    total,
                    upper_source="the exact worst case",
                    decided_by="exact worst case",
                )
            return EpsilonProfile(
                br,
                "worst",
                "exact",
                att,
                j,
                "1|0",
                sweeps,
                total,
                lower_source=att,
                upper_source="the exact worst case over all datasets",
                decided_by="exact worst case",
            )
        # a worse dataset exists at br.upper: calibrate on it
        if cert.c in tried:
            raise Undecided(
                "the worst-case calibration did not settle on a dataset (the maximiser changes with epsilon); "
                "try a larger precision cap"
            )
        j = cert.c
        guess = float(br.upper.p) / float(br.upper.q)


def epsilon0(
    n,
    *,
    epsilon,
    delta,
    k=2,
    dataset="worst",
    rel_tol="1e-6",
    hi="20",
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
) -> Bracket:
    """The largest local ε0 of k-RR such that the shuffled mechanism meets (ε, δ) on ``dataset``.

    A certified :class:`~exact.accounting.calibrate.Bracket` with ``lower`` proven to
    meet the target and ``upper`` proven to fail (δ is non-decreasing in ε0:
    RR with a smaller ε0 is a post-processing of RR with a larger one).  For
    ``worst`` every evaluation is a full sweep over all datasets (cost: about
    8 sweeps).  ``hi`` caps the search domain.
    """
    from blanket.exact.mechanisms.finite import KRR

    n = arith.integer_in(n, "n", lo=2)
    k = arith.integer_in(k, "k", lo=2)
    eps = arith.exact_in(epsilon, "epsilon", lo=0)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    kind, c = parse_dataset(dataset, n)
    if k != 2 and kind in ("worst", "c"):
        raise InvalidArgument("dataset", dataset, f"is only available for binary RR (k = 2), not k = {k}")
    hi_q = arith.exact_in(hi, "hi", lo=0, lo_open=True)
    lo_q = eps if eps < hi_q else fmpq(0)  # below ε0 = ε the target is met trivially (δ = 0)

    def fun(e0):
        return _delta_raw(KRR(k, epsilon0=e0), n, kind, c, epsilon=eps)[0]

    return epsilon0_for(fun, target, lo=lo_q, hi=hi_q, rel_tol=rel_tol, start_prec=start_prec, cap=cap)
