"""The search of :mod:`reports.bound_check`: the parameter points, the exact side compared at each, and the phases.

What is checked, and what "certified" means
-------------------------------------------
For a δ-bound at a point ``(k, ε0, n, ε)``: the true worst case
``δ_n(ε) = max over neighbouring datasets of D_{e^ε}`` is enclosed from below
by (a) the exact worst case over *all* datasets for small ``n``
(:func:`exact.shuffled.enumerate.worst_cases`), (b) the dataset families at larger
``n`` (:func:`exact.shuffled.binary.delta_binary_worst` — all datasets — for ``k = 2``,
:func:`exact.shuffled.krr.delta_krr_family` for ``k ≥ 3``).  A violation is
``lower(exact) > upper(bound)``; the witness dataset pair is re-computed
independently (:func:`exact.shuffled.enumerate.delta_dataset`, no symmetry reduction)
when ``n`` is small.  For an ε-bound at ``(k, ε0, n, δ)`` the claim is
``δ_n(ε_b) ≤ δ``; since ``δ_n`` is non-increasing in ε, the check evaluates
``δ_n`` at the certified *lower* end of ``ε_b`` (or 0 if that is negative) and
claims a violation when its lower end exceeds ``δ``.  A family witness is
re-computed by :func:`exact.shuffled.enumerate.delta_class` (a separate code path from
``exact.shuffled.binary`` / ``exact.shuffled.krr``) when that costs at most
:data:`REVERIFY_COST` elementary steps; the report marks it "re-verified".

Tightness: at every point that holds, ``bound / exact`` (how loose the bound
is against the exact lower value) and, for δ-bounds where Balle et al.'s
blanket view applies (k-RR), ``blanket / bound`` (the exact Lemma 5.3 upper
bound over all datasets relative to the bound: below 1 means the bound is
weaker than what the blanket view already certifies).

Search phases (within ``budget`` seconds, cheapest first)
    1. exhaustive: every ``n`` from the domain's lower end to ``n_exhaustive``
       on a grid of ``(k, ε0, ε or δ)``;
    2. families: a log-spaced grid of larger ``n`` up to ``n_max``;
    3. hypothesis: a random search (``hypothesis.find``, derandomized) over
       the small-``n`` domain whose shrinking drives a violation towards its
       smallest ``n``; finally every violation's parameters are re-scanned
       from the smallest ``n`` upwards, so the first violation listed is the
       smallest ``n`` at which the bound fails at those parameters.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import signal
import tempfile
import threading
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from blanket.exact.runtime.progress import Progress
from blanket.exact.shuffled.binary import delta_binary_worst
from blanket.exact.shuffled.enumerate import delta_class, delta_dataset, worst_cases
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.exact.shuffled.oracles import blanket_view_delta_fast, same_family_delta
from blanket.reports.bound_load import Bound, _exact_str, is_oracle, mechanism_matrix, mechanism_record
from blanket.reports.bound_values import BoundValue
from blanket.reports.bound_worker import BoundNotEvaluable
from flint import fmpq
from sympy.functions.combinatorial.numbers import partition

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


PRECS = (128, 256, 512)
#: with ``max_evaluations``, a dataset-family computation at n users is charged n // FAMILY_COST_N evaluations
#: (the exact side's cost grows with n; charging it keeps an evaluation budget meaningful and deterministic)
FAMILY_COST_N = 2000
#: seconds past the budget a bound evaluation may take before its process is killed
DEADLINE_GRACE = 1.0


# ============================================================ the search
@dataclasses.dataclass
class Point:
    """One checked parameter point and its outcome."""

    phase: str
    k: int
    n: int
    epsilon0: fmpq
    param: fmpq  # epsilon (delta-bound) or delta (epsilon-bound)
    outcome: str  # "violated", "holds", "within-float-error", "undecided", "invalid", "outside-hypotheses"
    bound: Any = None  # BoundValue
    exact: Any = None  # enclosure of the exact (lower) value compared
    exact_kind: str = ""  # "worst case over all datasets", "family third", ...
    witness: dict | None = None
    blanket: Any = None  # blanket-view upper bound (delta-bounds)
    eps_used: Any = None  # epsilon-bounds: the epsilon at which delta was evaluated
    note: str = ""
    reverified: bool | None = None

    def key(self) -> tuple:
        return (self.k, self.n, self.epsilon0, self.param)


class _Budget(Exception):
    pass


class _HardStop(BaseException):
    """Raised by SIGALRM at the wall-clock budget's end (the search stops wherever it is)."""


#: the exact side where the ε compared is ≥ ε0: every mechanism here is ε0-LDP, so the shuffled mechanism is ε0-DP
#: (post-processing of the parallel composition of ε0-DP randomizers on neighbouring datasets, which differ in one
#: user) and δ(ε) = 0 exactly (docs/researcher.md, "delta = 0 for epsilon >= epsilon0")
EPS0_ZERO_KIND = "delta = 0 exactly for epsilon >= epsilon0 (the shuffled mechanism is epsilon0-DP)"

#: largest estimated number of dataset classes of the exhaustive phase at one (k, n)
MAX_EXHAUSTIVE_CLASSES = 10**6


def exhaustive_classes(k: int, n: int) -> int:
    """Upper estimate of the dataset classes :func:`exact.shuffled.enumerate.worst_cases` visits for k-RR at n users.

    k-RR classes are (holder counts of the two differing values, a partition of the rest): at most
    ``n^2 * p(n-1)`` (``p`` the partition function) and at most the multisets ``C(n+k-2, k-1)``.
    O(1) for small n (sympy's ``npartitions``).

    >>> exhaustive_classes(2, 8), exhaustive_classes(10**9, 8) < 10**4
    (8, True)
    """

    multisets = math.comb(n + k - 2, k - 1) if k - 1 <= n else None
    parts = n * n * int(partition(n - 1))
    return min(parts, multisets) if multisets is not None else parts


class Search:
    """The search state: the bound, the limits, and every checked point."""

    def __init__(
        self,
        bound: Bound,
        *,
        k=None,
        n_max=None,
        n_exhaustive=8,
        budget=120,
        progress=True,
        grid_size=4,
        max_evaluations: int | None = None,
    ):
        self.bound = bound
        self.t0 = time.monotonic()
        self.budget = budget
        if getattr(bound, "worker", None) is not None:  # the bound's process is killed at the budget's end
            bound.worker.deadline = self.t0 + budget + DEADLINE_GRACE
        #: a deterministic budget counted in evaluations of the bound (tests, reproducible runs); the
        #: wall-clock ``budget`` stays the hard limit
        self.max_evaluations = max_evaluations
        self.evaluations = 0
        self.progress = progress
        d = bound.domain
        if k is not None:
            k = arith.integer_in(k, "--k", lo=2)
            if not d["k"][0] <= k <= d["k"][1]:
                raise InvalidArgument(
                    "--k", k, f"must lie in the bound's declared domain k in [{d['k'][0]}, {d['k'][1]}]"
                )
            self.ks = [k]
        else:
            lo, hi = d["k"]
            self.ks = sorted({lo, hi, min(max(lo, 3), hi), min(max(lo, 4), hi)})
        self.n_lo, n_hi = d["n"]
        if n_max is not None:
            n_max = arith.integer_in(n_max, "--n-max", lo=2)
            if n_max < self.n_lo:
                raise InvalidArgument("--n-max", n_max, f"must be >= the domain's smallest n ({self.n_lo})")
        self.n_hi = min(n_hi, n_max) if n_max is not None else n_hi
        self.n_exhaustive = min(arith.integer_in(n_exhaustive, "--n-exhaustive", lo=2), self.n_hi)
        for kk in self.ks if not is_oracle(bound.mechanism) else []:
            est = exhaustive_classes(kk, self.n_exhaustive)
            if est > MAX_EXHAUSTIVE_CLASSES:
                ok = max(
                    [m for m in range(2, self.n_exhaustive) if exhaustive_classes(kk, m) <= MAX_EXHAUSTIVE_CLASSES]
                    or [2]
                )
                raise InvalidArgument(
                    "--n-exhaustive",
                    n_exhaustive,
                    f"needs an estimated {float(est):.3g} dataset classes at k = {kk} (more than "
                    f"{MAX_EXHAUSTIVE_CLASSES:.0e}, far beyond any time budget)",
                    hint=f"use --n-exhaustive {ok} or less; larger n are checked by the dataset families",
                )
        self.other = "epsilon" if bound.quantity == "delta" else "delta"
        self.eps0_grid = _grid(*d["epsilon0"], grid_size, log=True)
        self.param_grid = _grid(*d[self.other], grid_size, log=True)
        self.points: list[Point] = []
        self.phases: list[dict] = []
        self.notes: list[str] = []
        self._seen: set[tuple] = set()
        self.hypothesis_info: dict[str, Any] = {}
        #: the budgets that cut the search short, in the order they did: "evaluation" (``max_evaluations``) and/or
        #: "time" (the wall-clock ``budget``); empty when every phase ran to its end
        self.stopped_by: list[str] = []

    # ---------------------------------------------------------------- helpers
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def time_left(self, share: float = 1.0) -> float:
        """What is left of the budget's ``share``: seconds, or evaluations when ``max_evaluations`` is set."""
        if self.max_evaluations is not None:
            if self.elapsed() >= self.budget:
                return 0
            return self.max_evaluations * share - self.evaluations
        return self.budget * share - self.elapsed()

    def out_of_budget(self, share: float = 1.0) -> bool:
        """Whether the budget's ``share`` is used up (:meth:`time_left`); if so, records which budget stopped the
        search (:attr:`stopped_by`)."""
        if self.time_left(share) > 0:
            return False
        self._stopped(self.budget_kind())
        return True

    def _stopped(self, kind: str) -> None:
        if kind not in self.stopped_by:
            self.stopped_by.append(kind)

    def budget_kind(self) -> str:
        """Which budget ran out: ``"time"`` (the wall-clock ``budget``, always a hard limit) or ``"evaluation"``
        (``max_evaluations``, when given and the clock has not run out)."""
        if self.max_evaluations is not None and self.elapsed() < self.budget:
            return "evaluation"
        return "time"

    def params(self, k: int, n: int, e0: fmpq, v: fmpq) -> dict:
        p = {"epsilon0": e0, "n": n, self.other: v}
        p["k"] = k
        return p

    def eval_bound(self, k: int, n: int, e0: fmpq, v: fmpq) -> tuple[BoundValue | None, str, str]:
        self.evaluations += 1
        try:
            with arith.precision(128):
                bv = self.bound.evaluate(self.params(k, n, e0, v))
            return bv, "", ""
        except BoundNotEvaluable:
            raise  # SystemExit, crash, timeout or memory: the whole check is "could not be evaluated" (exit 2)
        except HypothesisViolation as exc:
            return None, "outside-hypotheses", str(exc)
        except Undecided as exc:
            return None, "undecided", str(exc)
        except BlanketError as exc:
            return None, "invalid", str(exc)
        except Exception as exc:  # the researcher's code raised: record it, keep searching
            return None, "invalid", f"{type(exc).__name__}: {exc}"

    # ---------------------------------------------------------------- the exact side
    def _eps_for_check(self, bv: BoundValue) -> fmpq:
        """Certified lower end of a claimed ε (0 if negative): δ_n is non-increasing in ε."""
        lo, _ = arith.endpoints(bv.value)
        return fmpq(0) if lo <= 0 else fmpq(lo.numerator, lo.denominator)

    def _compare(self, exact_val, bv: BoundValue, target=None) -> str:
        """Outcome at one point: violated / holds / within-float-error / undecided.

        δ-bounds (bound enclosure ``[B_lo, B_hi]``, exact enclosure
        ``[E_lo, E_hi]``): violated iff ``E_lo > B_hi``; holds iff
        ``E_hi <= B_lo`` — for a float ``f`` (``B = [f−e, f+e]``) holds iff
        ``E_hi <= f`` and "within float error" iff ``f < E_lo`` but not
        ``E_lo > f + e``; anything else is undecided (precision escalates).
        ε-bounds: ``exact_val`` encloses ``δ_n`` at the certified lower end of
        the claimed ε; violated iff its lower end exceeds the target δ, holds
        iff its upper end does not.
        """
        if self.bound.quantity == "epsilon":
            c = arith.gt(exact_val, target)
            return "violated" if c else ("holds" if c is False else "undecided")
        if bv.value is None:
            return "holds"
        b = arith.ball(bv.value)
        if arith.gt(exact_val, b.upper()):
            return "violated"
        if bv.floating:
            assert bv.center is not None  # a floating value carries its exact center
            f = fmpq(bv.center.numerator, bv.center.denominator)
            if arith.le(exact_val, f):
                return "holds"
            if arith.gt(exact_val, f):
                return "within-float-error"
            return "undecided"
        if isinstance(bv.value, fmpq):
            c = arith.le(exact_val, bv.value)
            return "holds" if c else ("violated" if c is False else "undecided")
        return "holds" if arith.le(exact_val, b.lower()) else "undecided"

    def _ldp_zero(self, phase: str, k: int, n: int, e0: fmpq, v: fmpq, bv: Any) -> Point | None:
        """The point decided by :data:`EPS0_ZERO_KIND` when the ε compared is ≥ ε0 (``None`` otherwise).

        Every mechanism of a bound file is ε0-LDP, so its shuffled mechanism is ε0-DP and δ(ε) = 0 exactly for
        ε ≥ ε0 (docs/researcher.md, "delta = 0 for epsilon >= epsilon0"): the exact side is the rational 0, no computation.  A δ-bound then holds iff
        its certified lower end is ≥ 0 and is violated iff its upper end is < 0; a ball straddling 0 (a bound equal
        to 0 computed in ball arithmetic) stays undecided, with a note.  ε-bounds: δ at the claimed ε is 0 ≤ target.
        """
        e = v if self.bound.quantity == "delta" else self._eps_for_check(bv)
        if e < e0:
            return None
        zero = fmpq(0)
        oc = self._compare(zero, bv, target=None if self.bound.quantity == "delta" else v)
        pt = Point(
            phase,
            k,
            n,
            e0,
            v,
            oc,
            bv,
            zero,
            EPS0_ZERO_KIND,
            None,
            eps_used=e if self.bound.quantity == "epsilon" else None,
        )
        if oc == "undecided":
            pt.note = (
                "delta = 0 exactly here (epsilon >= epsilon0); the bound's enclosure contains 0 and negative "
                "values, so its sign (>= 0: holds, < 0: violated) is not decided at this precision"
            )
        return pt

    def check_small(self, phase: str, k: int, n: int, e0: fmpq, values: Sequence[fmpq]) -> list[Point]:
        """Exhaustive worst case at small n for several ε / δ at once (precision escalates per point)."""

        out = []
        bvs = []
        for v in values:
            bv, outcome, note = self.eval_bound(k, n, e0, v)
            bvs.append((v, bv, outcome, note))
        todo = []
        for v, bv, oc, note in bvs:
            if bv is None:
                out.append(Point(phase, k, n, e0, v, oc, note=note))
                continue
            zero = self._ldp_zero(phase, k, n, e0, v, bv)
            if zero is not None:
                out.append(zero)
            else:
                todo.append((v, bv))
        if not todo:
            return out
        pending = todo
        for prec in PRECS:
            with arith.precision(prec):
                mech = mechanism_matrix(self.bound.mechanism, k, e0)
                eps = [v if self.bound.quantity == "delta" else self._eps_for_check(bv) for v, bv in pending]
                wcs = worst_cases(mech, n, epsilons=eps)
                nxt = []
                for (v, bv), e, wc in zip(pending, eps, wcs):
                    oc = self._compare(
                        wc.value if self.bound.quantity == "delta" else wc.value,
                        bv,
                        target=None if self.bound.quantity == "delta" else v,
                    )
                    if oc == "undecided" and prec != PRECS[-1]:
                        nxt.append((v, bv))
                        continue
                    d1, d2 = wc.pair()
                    pt = Point(
                        phase,
                        k,
                        n,
                        e0,
                        v,
                        oc,
                        bv,
                        wc.value,
                        "exact worst case over all datasets",
                        {
                            "dataset": d1,
                            "neighbour": d2,
                            "direction": "D(M(dataset) || M(neighbour))",
                            "value": wc.witness_value,
                        },
                        eps_used=e if self.bound.quantity == "epsilon" else None,
                    )
                    if oc == "violated":
                        self._reverify(pt, mech, wc, e, bv, v)
                    out.append(pt)
                pending = nxt
            if not pending:
                break
        return out

    def _reverify(self, pt: Point, mech, wc, e, bv, v):
        """Recompute the witness pair without any symmetry reduction and re-compare."""

        try:
            val = delta_dataset(mech, wc.others, wc.x, wc.x2, epsilon=e)
        except BlanketError:
            pt.reverified = None
            return
        oc = self._compare(val, bv, target=None if self.bound.quantity == "delta" else v)
        pt.reverified = oc == "violated"
        assert pt.witness is not None  # a re-verified point has a witness
        pt.witness["value"] = val
        pt.exact = val
        if not pt.reverified:
            pt.outcome = "undecided"
            pt.note = "witness re-computation did not confirm the violation"

    def check_large(self, phase: str, k: int, n: int, e0: fmpq, v: fmpq) -> list[Point]:
        """Dataset families at larger n: certified lower bounds on the worst case (one point)."""
        if self.max_evaluations is not None:  # deterministic cost model: the exact side at n costs n/FAMILY_COST_N
            self.evaluations += n // FAMILY_COST_N
        bv, oc, note = self.eval_bound(k, n, e0, v)
        if bv is None:
            return [Point(phase, k, n, e0, v, oc, note=note)]
        zero = self._ldp_zero(phase, k, n, e0, v, bv)
        if zero is not None:
            return [zero]
        for prec in PRECS:
            with arith.precision(prec):
                mech = mechanism_record(self.bound.mechanism, k, e0)
                e = v if self.bound.quantity == "delta" else self._eps_for_check(bv)
                try:
                    val, kind, witness = (
                        _family_lower(mech, n, e) if isinstance(mech, KRR) else _oracle_family_lower(mech, n, e)
                    )
                except BlanketError as exc:
                    return [Point(phase, k, n, e0, v, "undecided", bv, note=str(exc))]
                except Exception as exc:  # internal failure of an exact/ routine: never a verdict, never a traceback
                    msg = f"internal error in the exact computation: {type(exc).__name__}: {exc}"
                    _INTERNAL_ERRORS.append(msg + f" (k={k}, n={n}, epsilon0={_exact_str(e0)})")
                    return [Point(phase, k, n, e0, v, "undecided", bv, note=msg)]
                oc = self._compare(val, bv, target=None if self.bound.quantity == "delta" else v)
                if oc != "undecided" or prec == PRECS[-1]:
                    pt = Point(
                        phase,
                        k,
                        n,
                        e0,
                        v,
                        oc,
                        bv,
                        val,
                        kind,
                        witness,
                        eps_used=e if self.bound.quantity == "epsilon" else None,
                    )
                    # a k-RR witness names its class (_family_lower, _krr_families); an oracle's has none
                    if oc == "violated" and isinstance(mech, KRR) and witness.get("class") is not None:
                        again = _reverify_class(mech, n, e, witness["class"])
                        if again is not None:
                            pt.reverified = (
                                self._compare(again, bv, target=None if self.bound.quantity == "delta" else v)
                                == "violated"
                            )
                            if not pt.reverified:
                                pt.outcome = "undecided"
                                pt.note = (
                                    "witness re-computation (exact.shuffled.enumerate) did not confirm the violation"
                                )
                    return [pt]
        return []  # pragma: no cover

    def add(self, pts: Iterable[Point]) -> None:
        for p in pts:
            self.points.append(p)

    # ---------------------------------------------------------------- phases
    def run(self) -> Search:
        del _INTERNAL_ERRORS[:]
        # the backstop for the exact side fires after the bound's own deadline (budget + grace), so that a bound
        # stuck at that moment is reported as such (could not be evaluated), not as a stopped search
        alarm = _arm_alarm(self.budget + DEADLINE_GRACE + 1.0 - self.elapsed())
        try:
            self._run()
        except _HardStop:
            self._stopped("time")
            self.notes.append(
                f"the search was stopped at the wall-clock budget of {self.budget:g} s (hard limit); "
                "the phases after the interruption were not run"
            )
        finally:
            _disarm_alarm(alarm)
            for msg in dict.fromkeys(_INTERNAL_ERRORS):
                self.notes.append(msg)
        return self

    def _run(self):
        self.phase_exhaustive(0.45)
        self.phase_families(0.70)
        self.phase_hypothesis(0.90)
        self.phase_smallest_n()
        self.phase_tightness()
        return self

    def phase_exhaustive(self, share: float) -> None:

        ns = list(range(self.n_lo, self.n_exhaustive + 1))
        jobs = [(n, k, e0) for n in ns for k in self.ks for e0 in self.eps0_grid]
        done = 0
        with Progress(len(jobs), "exhaustive small n", enabled=None if self.progress else False) as bar:
            for n, k, e0 in jobs:
                if self.out_of_budget(share):
                    break
                self.add(self.check_small("exhaustive", k, n, e0, self.param_grid))
                done += 1
                bar.update(note=f"n={n} k={k}")
        reached = jobs[done - 1][0] if done else None
        self.phases.append(
            {
                "phase": "exhaustive",
                "what": "exact worst case over all datasets (exact.shuffled.enumerate)",
                "jobs": len(jobs),
                "done": done,
                "n": [self.n_lo, reached],
                "k": self.ks,
                "epsilon0": [_exact_str(x) for x in self.eps0_grid],
                self.other: [_exact_str(x) for x in self.param_grid],
                "complete": done == len(jobs),
            }
        )

    def phase_families(self, share: float) -> None:

        lo = max(self.n_exhaustive + 1, self.n_lo)
        if lo > self.n_hi:
            self.phases.append(
                {
                    "phase": "families",
                    "what": "skipped: the domain's n range is covered exhaustively",
                    "done": 0,
                    "jobs": 0,
                    "complete": True,
                }
            )
            return
        ns = _int_grid(lo, self.n_hi, 6)
        jobs = [(n, k, e0, v) for n in ns for k in self.ks for e0 in self.eps0_grid for v in self.param_grid]
        done = 0
        reached = None
        cost: dict[tuple[int, int], float] = {}  # (k, n) -> seconds of the last job: predicts the next n (cost ~ n^1.5)
        stopped = set()
        with Progress(len(jobs), "dataset families", enabled=None if self.progress else False) as bar:
            for n, k, e0, v in jobs:
                if self.out_of_budget(share):
                    break
                if k in stopped:
                    bar.update()
                    continue
                prev = [(m, c) for (kk, m), c in cost.items() if kk == k and m < n]
                if prev and self.max_evaluations is None:  # a time prediction: only with a wall-clock budget
                    m, c = max(prev)
                    if c * (n / m) ** 1.5 > max(self.time_left(share) / 4, 0):
                        stopped.add(k)
                        self._stopped("time")
                        self.notes.append(
                            f"families phase: k={k} stopped before n={n} (predicted cost exceeds the budget)"
                        )
                        bar.update()
                        continue
                t = time.monotonic()
                self.add(self.check_large("families", k, n, e0, v))
                cost[(k, n)] = max(cost.get((k, n), 0), time.monotonic() - t)
                done += 1
                reached = n if reached is None else max(reached, n)
                bar.update(note=f"n={n} k={k}")
        self.phases.append(
            {
                "phase": "families",
                "what": "certified lower bounds from dataset families (binary RR: exact worst case, "
                "exact.shuffled.binary; k-RR: same/neighbour/third families, exact.shuffled.krr)",
                "jobs": len(jobs),
                "done": done,
                "n": [lo, reached],
                "n_grid": ns,
                "k": self.ks,
                "complete": done == len(jobs),
            }
        )

    def phase_hypothesis(self, share: float) -> None:
        # hypothesis (a dependency) is imported here: it takes a while, and only this phase uses it
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis import strategies as st
        from hypothesis.errors import NoSuchExample

        d = self.bound.domain
        n_top = self.n_exhaustive
        if n_top < self.n_lo:
            self.phases.append(
                {
                    "phase": "hypothesis",
                    "what": "skipped: the domain's smallest n is above the exhaustive range (n <= %d)" % n_top,
                    "done": 0,
                }
            )
            return
        e0_lo, e0_hi = d["epsilon0"]
        v_lo, v_hi = d[self.other]
        k_lo, k_hi = d["k"]
        if len(self.ks) == 1:
            k_lo = k_hi = self.ks[0]
        STEPS = 1000
        tried = []
        found = []

        def point(t):
            k, n, i, j = t
            e0 = e0_lo + (e0_hi - e0_lo) * fmpq(i, STEPS)
            v = v_lo + (v_hi - v_lo) * fmpq(j, STEPS)
            return k, n, e0, v

        def violated(t):
            if self.out_of_budget(share):
                raise _Budget()
            k, n, e0, v = point(t)
            pts = self.check_small("hypothesis", k, n, e0, [v])
            tried.append(t)
            self.add(pts)
            bad = any(p.outcome == "violated" for p in pts)
            if bad:
                found.append(t)
            return bad

        strat = st.tuples(
            st.integers(k_lo, min(k_hi, max(k_lo, 12))),
            st.integers(self.n_lo, n_top),
            st.integers(0, STEPS),
            st.integers(0, STEPS),
        )
        result = None
        # hypothesis caches constants of "local" modules under ./.hypothesis: point it at a temporary directory
        # (removed afterwards) so that nothing outside the output directory is ever written
        from hypothesis import configuration as hconf

        old_home = getattr(hconf, "__hypothesis_home_directory", None)
        home = tempfile.mkdtemp(prefix="blanket-hypothesis-")
        from blanket.reports import supervise

        supervise.note(supervise.TREE, home)
        hconf.set_hypothesis_home_dir(home)
        try:
            result = find(
                strat,
                violated,
                settings=settings(
                    max_examples=200,
                    database=None,
                    derandomize=True,
                    deadline=None,
                    phases=[Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck),
                ),
            )
        except NoSuchExample:
            pass
        except _Budget:
            self.notes.append(f"hypothesis search stopped at the {self.budget_kind()} budget")
            if found:  # shrinking was cut short: report the smallest violating example seen
                result = min(found, key=lambda t: (t[1], t[0], t[2], t[3]))
        finally:
            hconf.set_hypothesis_home_dir(old_home)
            shutil.rmtree(home, ignore_errors=True)
        self.hypothesis_info = {
            "examples": len(tried),
            "violations": len(found),
            "shrunk_to": (lambda p: {"k": p[0], "n": p[1], "epsilon0": _exact_str(p[2]), self.other: _exact_str(p[3])})(
                point(result)
            )
            if result
            else None,
        }
        self.phases.append(
            {
                "phase": "hypothesis",
                "what": "random search over the small-n domain with shrinking (hypothesis.find, derandomized)",
                "done": len(tried),
                "n": [self.n_lo, n_top],
                **self.hypothesis_info,
            }
        )

    def phase_smallest_n(self) -> None:
        """For each distinct (k, ε0, param) that was violated (at most 5), scan n upwards from the domain's smallest n.

        Small n (exhaustive range): every n.  Above it (families): every n up
        to 200 steps past the start, then geometric steps of 5%; the report
        then says "smallest n found" rather than "smallest n".  The scan stops
        at the first violating n (it is listed first in the report).
        """
        viol = [p for p in self.points if p.outcome == "violated"]
        seen: set[tuple] = set()
        budget_share = 1.0
        for p in sorted(viol, key=lambda p: (p.n, p.k)):
            key = (p.k, p.epsilon0, p.param)
            if key in seen or len(seen) >= 5:
                continue
            seen.add(key)
            found = False
            for n in range(self.n_lo, min(p.n, self.n_exhaustive + 1)):
                if self.out_of_budget(budget_share):
                    return
                pts = self.check_small("smallest-n", p.k, n, p.epsilon0, [p.param])
                self.add(pts)
                if any(q.outcome == "violated" for q in pts):
                    found = True
                    break
            if found or p.n <= self.n_exhaustive:
                continue
            start = max(self.n_lo, self.n_exhaustive + 1)
            n = start
            while n < p.n:
                if self.out_of_budget(budget_share):
                    return
                pts = self.check_large("smallest-n", p.k, n, p.epsilon0, p.param)
                self.add(pts)
                if any(q.outcome == "violated" for q in pts):
                    break
                n = n + 1 if n - start < 200 else max(n + 1, int(n * 1.05))
            if n - start >= 200:
                self.notes.append(
                    f"smallest-n scan above n = {start + 200} used 5% steps: the first violation listed "
                    f"for k={p.k}, epsilon0={_exact_str(p.epsilon0)}, {self.other}={_exact_str(p.param)} "
                    f"(at n={n}) is the smallest n found, not "
                    "necessarily the smallest n"
                )

    def phase_tightness(self) -> None:
        """Blanket-view upper bounds at the grid points that hold (δ-bounds only; a few points)."""
        if self.bound.quantity != "delta":
            return
        holds = [
            p
            for p in self.points
            if p.outcome == "holds"
            and p.bound is not None
            and p.bound.value is not None
            and p.phase in ("exhaustive", "families")
        ]
        chosen: dict[tuple[int, int], Point] = {}
        for p in holds:
            chosen.setdefault((p.k, p.n), p)
        for p in list(chosen.values())[:40]:
            if self.out_of_budget(1.0):
                break
            try:
                with arith.precision(128):
                    if is_oracle(self.bound.mechanism):
                        rec = mechanism_record(self.bound.mechanism, p.k, p.epsilon0)
                        p.blanket = blanket_view_delta_fast(rec, p.n, epsilon=p.param)
                    else:
                        p.blanket = delta_blanket_view(KRR(p.k, epsilon0=p.epsilon0), p.n, epsilon=p.param)
            except BlanketError as exc:
                p.note = (p.note + "; " if p.note else "") + f"blanket view: {exc}"


def _arm_alarm(seconds: float):
    """SIGALRM in ``seconds`` raising :class:`_HardStop` (main thread, POSIX); returns the old handler or None."""

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return None

    def _stop(signum, frame):
        raise _HardStop()

    old = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
    return (old,)


def _disarm_alarm(token) -> None:
    if token is None:
        return

    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, token[0] if token[0] is not None else signal.SIG_DFL)


def _family_lower(mech: KRR, n: int, e):
    """Certified lower bound on the worst case at n: (value, kind, witness)."""
    if mech.k == 2:
        try:
            wc = delta_binary_worst(mech, n, epsilon=e)
        except BlanketError:
            raise
        except (
            Exception
        ) as exc:  # an internal failure of exact.shuffled.binary: fall back to the families (still certified)
            _INTERNAL_ERRORS.append(
                f"exact.shuffled.binary.delta_binary_worst(n={n}, epsilon0={_exact_str(mech.epsilon0_exact)}, "
                f"epsilon={_short(e)}) raised {type(exc).__name__}: {exc}; used the dataset families instead"
            )
            return _krr_families(mech, n, e, ("same",))
        c = wc.c
        [1] * c + [0] * (n - 1 - c)
        x, x2 = (1, 0) if wc.direction == "1|0" else (0, 1)
        # the same pair in exact.shuffled.enumerate.delta_class terms (values relabelled so the first dataset's user holds 0)
        cls = (c, n - 1 - c, (), 0) if wc.direction == "1|0" else (n - 1 - c, c, (), 0)
        return (
            wc.value,
            "exact worst case over all datasets (exact.shuffled.binary)",
            {
                "dataset": f"{c} users hold 1, {n - 1 - c} hold 0, differing user holds {x}",
                "neighbour": f"same, differing user holds {x2}",
                "direction": "D(M(dataset) || M(neighbour))",
                "value": wc.value,
                "class": cls,
            },
        )
    return _krr_families(mech, n, e, ("same", "third"))


_INTERNAL_ERRORS: list = []


def _oracle_family_lower(mech, n: int, e):
    """Frequency oracle at n users: the exact δ of the dataset pair ``x^n`` vs ``x^{n−1}x'`` (both directions;
    :func:`exact.shuffled.oracles.same_family_delta`), a certified lower bound on the worst case.  O(√n)."""

    val = same_family_delta(mech, n, epsilon=e)
    return (
        val,
        "dataset family 'same' (exact.shuffled.oracles.same_family_delta)",
        {
            "dataset": f"{n - 1} users hold 0, differing user holds 0",
            "neighbour": "same, differing user holds 1",
            "direction": "max of both directions",
            "value": val,
        },
    )


def _short(e):
    s = str(e)
    return s if len(s) < 30 else arith.decimal_string(e, 10, up=False) + "..."


def _krr_families(mech, n, e, families):
    best = None
    for fam in families:
        for direction in ("forward", "backward"):
            val = delta_krr_family(mech, n, fam, epsilon=e, direction=direction)
            lo = arith.endpoints(val)[0]
            if best is None or lo > best[0]:
                best = (lo, val, fam, direction)
    assert best is not None  # families is not empty
    _, val, fam, direction = best
    z = {"same": 0, "third": 2}[fam]
    a, b = (0, 1) if direction == "forward" else (1, 0)
    cls = ((n - 1, 0, ()) if fam == "same" else (0, 0, (n - 1,))) + (0 if direction == "forward" else 1,)
    return (
        val,
        f"dataset family '{fam}' (exact.shuffled.krr; a lower bound on the worst case)",
        {
            "dataset": f"{n - 1} users hold {z}, differing user holds {a}",
            "neighbour": f"same, differing user holds {b}",
            "direction": "D(M(dataset) || M(neighbour))",
            "value": val,
            "class": cls,
        },
    )


#: largest (histogram states x users x categories) for re-verifying a family witness with exact.shuffled.enumerate
REVERIFY_COST = 4 * 10**6


def _reverify_class(mech: KRR, n: int, e, cls):
    """Recompute a family witness with :func:`exact.shuffled.enumerate.delta_class` (an independent code path), or ``None`` if too costly."""

    a, b, lam, idx = cls
    cats = 2 + len(lam) + (1 if mech.k - 2 - len(lam) > 0 else 0)
    if math.comb(n + cats - 1, cats - 1) * n * cats > REVERIFY_COST:
        return None
    return delta_class(mech, n, a, b, lam, epsilon=e)[idx]


def _grid(lo: fmpq, hi: fmpq, size: int, log: bool = True) -> list:
    """Exact grid points in [lo, hi]: the ends and log-spaced interior points rounded to 2 significant digits.

    (Floats only choose *where* to look; every point is an exact decimal inside the range.)
    """
    if lo == hi:
        return [lo]
    pts = {lo, hi}
    flo, fhi = float(Fraction(int(lo.p), int(lo.q))), float(Fraction(int(hi.p), int(hi.q)))
    for i in range(1, size - 1):
        t = i / (size - 1)
        if log and flo > 0:
            x = flo * (fhi / flo) ** t
        else:
            x = flo + (fhi - flo) * t
        q = arith.exact(f"{x:.2g}")
        if lo < q < hi:
            pts.add(q)
    return sorted(pts)


def _int_grid(lo: int, hi: int, size: int) -> list:
    if hi <= lo:
        return [lo]
    pts = {lo, hi}
    for i in range(1, size - 1):
        x = lo * (hi / lo) ** (i / (size - 1))
        pts.add(int(round(float(f"{x:.2g}"))))
    return sorted(p for p in pts if lo <= p <= hi)
