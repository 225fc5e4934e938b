"""One-sided certified calibration: the smallest ε with δ(ε) ≤ target, the largest ε0 for a target (ε, δ).

The answer is a :class:`Bracket` of two *exact rationals*, each classified
by a certified three-valued comparison (precision escalates until the
comparison of the enclosure of δ with the target is decided, else
:class:`~exact.numbers.errors.Undecided`):

* :func:`epsilon_for_delta` — ``upper`` is certified to meet the target
  (``δ(upper) ≤ target`` proven), ``lower`` is certified to fail
  (``δ(lower) > target`` proven), so the true smallest ε lies in
  ``(lower, upper]``; report ``upper`` (a certified upper end, never a
  guess).  Needs δ(ε) non-increasing in ε.
* :func:`epsilon0_for` — ``lower`` is certified to meet the target, ``upper``
  certified to fail; the largest admissible ε0 lies in ``[lower, upper)``;
  report ``lower``.  Needs δ non-decreasing in ε0.

Search: a bracket around a starting point (a caller's cheap estimate if
given, e.g. a Gaussian approximation), then Illinois-modified regula falsi
on ``F(x) = log δ(x) − log target`` (log δ is smooth and nearly linear
locally, so steps converge superlinearly), and, once two successive
estimates agree to the tolerance, one pair of evaluations straddling the
estimate to close the bracket.  Estimates are computed from ball midpoints
in floating point — they only choose *where* to evaluate; every reported end
is an exact rational whose classification is certified.  With a reasonable
estimate a calibration to relative width 10⁻⁶ takes 5–9 evaluations of δ
(``tests/benchmarks/bench_calibrate.py`` prints the counts).

>>> from flint import fmpq
>>> from blanket.exact.numbers.arith import precision
>>> delta = lambda e: (-arb(e) * 10).exp()          # δ(ε) = e^{-10ε}, target 1e-3: ε* = log(1000)/10 = 0.69077552789…
>>> from flint import arb
>>> with precision(128):
...     br = epsilon_for_delta(delta, "1e-3", hi=5, rel_tol="1e-6")
>>> float(br.lower) < 0.6907755278982 < float(br.upper), br.rel_width() <= fmpq(1, 10**6), br.evaluations <= 12
(True, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InfeasibleTarget, OutOfTime, Undecided, WindowLimited
from blanket.exact.numbers.guards import check_options
from blanket.exact.numbers.types import NumberOrBall
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass(frozen=True)
class Bracket:
    """Result of a certified one-sided calibration.

    For :func:`epsilon_for_delta`: ``upper`` meets the target (certified),
    ``lower`` fails it (certified) unless ``lower == upper`` (the target is
    met at the left end of the search domain).  For :func:`epsilon0_for`
    the roles are mirrored: ``lower`` meets, ``upper`` fails (unless equal).
    ``delta_lower``/``delta_upper`` are the enclosures of δ at the two ends
    (``None`` where not evaluated), ``evaluations`` the number of evaluations
    of δ (each possibly at several precisions), ``prec`` the highest
    precision used.
    """

    lower: fmpq
    upper: fmpq
    evaluations: int
    delta_lower: object = None
    delta_upper: object = None
    prec: int = arith.DEFAULT_PREC
    meets: str = "upper"

    def rel_width(self) -> fmpq:
        """``(upper − lower)/upper`` (0 when both ends coincide)."""
        if self.upper == self.lower:
            return fmpq(0)
        return (self.upper - self.lower) / abs(self.upper if self.upper != 0 else self.lower)

    @property
    def certified(self) -> fmpq:
        """The end that is certified to meet the target (the number to report)."""
        return self.upper if self.meets == "upper" else self.lower


def _to_float(x) -> float:
    """Midpoint of a ball or an exact number as a float (only to *propose* evaluation points)."""
    if isinstance(x, arb):
        return float(x.mid())
    q = arith.exact(x)
    return int(q.p) / int(q.q)


def _log_excess(value, log_target: float) -> float:
    """``log δ − log target`` from the midpoint (−inf when δ may be 0)."""
    if isinstance(value, fmpq):
        if value <= 0:
            return -math.inf
        return math.log(int(value.p)) - math.log(int(value.q)) - log_target
    b = arith.ball(value)
    if not (b > 0):
        return -math.inf
    return float(b.log().mid()) - log_target


def _rational_near(x: float, lo: fmpq, hi: fmpq, resolution: float) -> fmpq | None:
    """An exact decimal rational near ``x`` strictly inside ``(lo, hi)`` (``None`` if none at this resolution)."""
    d = max(0, int(math.ceil(-math.log10(resolution))) + 2) if resolution > 0 else 12
    scale = 10**d
    q = fmpq(int(round(x * scale)), scale) if math.isfinite(x) else (lo + hi) / 2
    if not (lo < q < hi):
        q = (lo + hi) / 2
        if not (lo < q < hi):
            return None
    return q


class _Classifier:
    """Evaluates δ at exact points and classifies them with certified comparisons (counts evaluations)."""

    def __init__(self, fun, target, start_prec, cap):
        self.fun, self.target, self.start, self.cap = fun, target, start_prec, cap
        self.evaluations = 0
        self.prec = start_prec
        self.log_target = math.log(int(target.p)) - math.log(int(target.q))

    def __call__(self, x: fmpq):
        """``(meets, value)``: ``meets`` is ``δ(x) ≤ target`` (certain)."""
        self.evaluations += 1

        def compute(prec):
            return self.fun(x)

        widths: list = []  # the enclosure's width at each precision tried (exact), to tell a stall from a cap

        def decided(v) -> bool:
            if arith.le(v, self.target) is not None:
                return True
            try:
                lo, hi = arith.endpoints(v)
                widths.append(hi - lo)
            except (TypeError, ValueError, OverflowError):  # a non-finite ball: no width to compare
                widths.append(None)
            return False

        try:
            value, prec = arith.escalate(
                compute,
                # escalate hands back what compute returned (δ's value); its signature says object
                decided,
                start=self.start,
                cap=self.cap,
                what=f"comparison of delta({x}) with the target {self.target}",
            )
        except OutOfTime:
            raise  # the time budget, not the precision: said as such by the caller
        except Undecided:
            head = f"delta({_short(x)}) could not be separated from the target {_short(self.target)}"
            last, prev = (widths[-1], widths[-2]) if len(widths) >= 2 else (None, None)
            if last is not None and prev is not None and last > 0 and 2 * last > prev:
                w = arith.decimal_string(last, 2, up=True)
                raise WindowLimited(
                    f"{head}: its enclosure stayed about {w} wide up to the precision cap of {self.cap} bits "
                    f"(not halved by the last doubling of the precision)",
                    width=last,
                ) from None
            raise Undecided(f"{head} below the precision cap of {self.cap} bits") from None
        self.prec = max(self.prec, prec)
        return arith.le(value, self.target), value


def _short(q: fmpq) -> str:
    """``q`` for a message: as a fraction when short, else as a decimal (exact, or marked as rounded up): the target
    1e-300 was printed with its 300 zeros.  O(digits)."""
    s = str(q)
    if len(s) <= 40:
        return s
    d = arith.decimal_string(q, 10, up=True)
    return d if arith.exact(d) == q else f"{d} (rounded up)"


class _Search:
    """The state of one calibration and its named steps (see :func:`validated_search`).

    ``good``/``bad`` are ``(x, δ enclosure, F)`` of the certified meeting / failing points closest to the crossing
    (``F`` = log δ − log target from the midpoint, its sign fixed by the certified classification); ``bad`` is
    ``None`` until a failing point was evaluated.  ``history`` holds ``(x, F)`` of every evaluation (floats, only to
    *propose* points); ``stale``/``stale_count`` drive the Illinois modification of regula falsi.
    """

    def __init__(self, clf: _Classifier, lo: fmpq, hi: fmpq, *, meets_high: bool, rel_tol: fmpq) -> None:
        self.clf, self.lo, self.hi, self.meets_high, self.rel_tol = clf, lo, hi, meets_high, rel_tol
        self.tol_f = _to_float(rel_tol)
        # the end of the domain where the target must be met, and the other one
        self.good_end = hi if meets_high else lo
        self.bad_end = lo if meets_high else hi
        self.good: tuple = (self.good_end, None, -math.inf)
        self.bad: tuple | None = None
        self.history: list[tuple[float, float]] = []
        self.stale: str | None = None
        self.stale_count = 0
        self.last_estimate: float | None = None
        self.geo_steps = 0

    def check_feasible(self) -> None:
        """Evaluate the good end; :class:`InfeasibleTarget` if the target is not met there.  One evaluation."""
        ok, v = self.clf(self.good_end)
        if not ok:
            raise InfeasibleTarget(
                f"the target delta {self.clf.target} is not met even at "
                f"{'epsilon' if self.meets_high else 'epsilon0'} = {self.good_end} "
                f"(delta there is about {arith.decimal_string(v, 6, up=False)}); "
                f"the target cannot be reached in this search domain"
            )
        self.good = (self.good_end, v, _log_excess(v, self.clf.log_target))

    def record(self, x: fmpq, res: tuple) -> bool:
        """Enter the classified evaluation ``res = (meets, value)`` at ``x`` as the new good or bad end."""
        meets, value = res
        F = _log_excess(value, self.clf.log_target)
        # the certified classification fixes the sign of F (float noise must not contradict it)
        F = min(F, -1e-300) if meets else max(F, 1e-300)
        entry = (x, value, F)
        self.history.append((_to_float(x), entry[2]))
        if meets:
            self.good = entry
        else:
            self.bad = entry
        return meets

    def evaluate(self, x: fmpq) -> bool:
        """Evaluate δ at ``x`` and record it (one evaluation)."""
        return self.record(x, self.clf(x))

    def expand_from_guess(self, guess: NumberOrBall | float) -> None:
        """Initial bracket: evaluate the guess, then step geometrically (×(1 ± 1/20), steps ×4) towards the other
        side until the crossing is bracketed.  At most 7 evaluations."""
        g = arith.exact(guess, "guess", allow_float=True) if not isinstance(guess, fmpq) else guess
        if not (self.lo < g < self.hi):
            return
        met = self.evaluate(g)
        step = fmpq(1, 20)
        x = g
        for _ in range(6):
            if met and self.bad is None:
                nxt = x * (1 - step) if self.meets_high else x * (1 + step)
            elif not met and self.good[0] == self.good_end:
                nxt = x * (1 + step) if self.meets_high else x * (1 - step)
            else:
                break
            if not (self.lo < nxt < self.hi):
                break
            x = nxt
            met = self.evaluate(x)
            step = step * 4

    def closed(self) -> bool:
        """Whether the bracket is within the relative tolerance (or empty)."""
        gx = self.good[0]
        bx = self.bad[0] if self.bad is not None else self.bad_end
        width = abs(gx - bx)
        return bool(width == 0 or width <= self.rel_tol * abs(gx))

    def met_on_whole_domain(self) -> Bracket | None:
        """Evaluate the bad end: the degenerate bracket there if the target is met on the whole domain, else
        ``None`` (the bad end is recorded).  One evaluation."""
        met, v = self.clf(self.bad_end)
        if met:
            return Bracket(
                self.bad_end,
                self.bad_end,
                self.clf.evaluations,
                v,
                v,
                self.clf.prec,
                meets="upper" if self.meets_high else "lower",
            )
        self.record(self.bad_end, (met, v))
        return None

    def estimate(self) -> float:
        """The next crossing estimate: a geometric move towards the unevaluated end while no failing point is known,
        else Illinois-modified regula falsi on the ends, else a secant through the two latest finite points when it
        falls inside the bracket, else (geometric) bisection; an estimate within the tolerance of an end is pushed
        just beyond it, so that one evaluation can close the bracket."""
        gx = self.good[0]
        bx = self.bad[0] if self.bad is not None else self.bad_end
        Fg = self.good[2]
        Fb = self.bad[2] if self.bad is not None else math.nan
        xf_g, xf_b = _to_float(gx), _to_float(bx)
        lo_f, hi_f = min(xf_g, xf_b), max(xf_g, xf_b)
        est = None
        fin = [(x, F) for (x, F) in self.history[-2:] if math.isfinite(F)]
        if self.bad is None:
            est = xf_g / 4 if self.meets_high else xf_g * 4
            if not (lo_f < est < hi_f):
                est = None
        elif math.isfinite(Fg) and math.isfinite(Fb) and Fb > 0 > Fg:
            wg, wb = Fg, Fb
            if self.stale_count >= 2 and self.stale == "good":
                wg = Fg / 2 ** (self.stale_count - 1)
            elif self.stale_count >= 2 and self.stale == "bad":
                wb = Fb / 2 ** (self.stale_count - 1)
            est = xf_b + (xf_g - xf_b) * wb / (wb - wg)
        elif len(self.history) >= 2 and len(fin) == 2 and fin[0][1] != fin[1][1]:
            (x1, F1), (x2, F2) = fin
            cand = x2 - F2 * (x2 - x1) / (F2 - F1)
            if lo_f < cand < hi_f:
                est = cand
        if est is None:
            est = math.sqrt(xf_g * xf_b) if (xf_g > 0 and xf_b > 0) else (xf_g + xf_b) / 2
        if self.bad is not None:
            h = self.tol_f * abs(xf_g) / 2
            if abs(est - xf_g) < h:
                est = xf_g - h if xf_b < xf_g else xf_g + h
            elif abs(est - xf_b) < h:
                est = xf_b + h if xf_b < xf_g else xf_b - h
        return est

    def converging(self, est: float) -> bool:
        """Whether two successive estimates agree within half the tolerance (then :meth:`straddle` closes)."""
        return (
            self.last_estimate is not None
            and abs(est - self.last_estimate) <= self.tol_f * abs(est) / 2
            and self.bad is not None
        )

    def straddle(self, est: float) -> None:
        """Evaluate just below and just above ``est`` (±tol/4) to close the bracket in two evaluations."""
        resolution = self.tol_f * max(abs(est), 1e-300) / 8
        h = self.tol_f * abs(est) / 4
        pts = [est - h, est + h]
        if not self.meets_high:
            pts.reverse()
        for xe in pts:
            bx = self.bad[0] if self.bad is not None else self.bad_end  # converging() made sure bad is set
            lo_x, hi_x = (bx, self.good[0]) if bx < self.good[0] else (self.good[0], bx)
            q = _rational_near(xe, lo_x, hi_x, resolution)
            if q is not None:
                self.evaluate(q)
        self.last_estimate = None
        self.stale, self.stale_count = None, 0

    def step_at(self, est: float) -> bool:
        """Evaluate at an exact decimal near ``est`` inside the bracket and update the Illinois counters; ``False``
        when no such rational exists at the working resolution (the bracket cannot shrink further)."""
        gx = self.good[0]
        bx = self.bad[0] if self.bad is not None else self.bad_end
        lo_x, hi_x = (bx, gx) if bx < gx else (gx, bx)
        resolution = self.tol_f * max(abs(est), 1e-300) / 8
        self.last_estimate = est
        q = _rational_near(est, lo_x, hi_x, resolution)
        if q is None:
            return False
        met = self.evaluate(q)
        kept = "bad" if met else "good"
        self.stale_count = self.stale_count + 1 if kept == self.stale else 1
        self.stale = kept
        return True

    def bracket(self) -> Bracket:
        """The final certified bracket (the bad end evaluated now if no failing point was seen)."""
        bad = self.bad
        if bad is None:
            done = self.met_on_whole_domain()
            if done is not None:
                return done
            bad = self.bad if self.bad is not None else (self.bad_end, None, math.inf)  # recorded just now
        clf, good = self.clf, self.good
        if self.meets_high:
            return Bracket(bad[0], good[0], clf.evaluations, bad[1], good[1], clf.prec, meets="upper")
        return Bracket(good[0], bad[0], clf.evaluations, good[1], bad[1], clf.prec, meets="lower")


def validated_search(
    fun: Callable[[fmpq], object],
    target: fmpq,
    lo: fmpq,
    hi: fmpq,
    *,
    meets_high: bool,
    rel_tol: fmpq,
    guess: NumberOrBall | float | None = None,
    start_prec: int = arith.DEFAULT_PREC,
    cap: int = arith.MAX_PREC,
    max_evaluations: int = 200,
) -> Bracket:
    """Core of both calibrations, on **validated** arguments (a caller that validated its query once, e.g.
    :mod:`blanket.exact.accounting.profiles`): exact ``0 < target < 1``, ``0 <= lo < hi``, ``0 < rel_tol < 1``;
    nothing is checked again here (:func:`epsilon_for_delta` / :func:`epsilon0_for` check raw input).

    ``meets_high``: the target is met on ``[x*, hi]`` (δ non-increasing); else on ``[lo, x*]`` (δ
    non-decreasing).  The steps are :class:`_Search`'s methods.  Cost: usually 5–9 evaluations of ``fun``."""
    clf = _Classifier(fun, target, start_prec, cap)
    s = _Search(clf, lo, hi, meets_high=meets_high, rel_tol=rel_tol)
    s.check_feasible()
    if guess is not None:
        s.expand_from_guess(guess)
    while True:
        if clf.evaluations > max_evaluations:
            raise Undecided(f"calibration did not converge within {max_evaluations} evaluations")
        if s.closed():
            break
        if s.bad is None:
            # no failing point seen yet: after three geometric moves, try the unevaluated end itself
            s.geo_steps += 1
            if s.geo_steps > 3:
                done = s.met_on_whole_domain()
                if done is not None:
                    return done
                continue
        est = s.estimate()
        if s.converging(est):
            s.straddle(est)
            continue
        if not s.step_at(est):
            break
    return s.bracket()


class Search(TypedDict, total=False):
    """The keywords of both calibrations (:func:`epsilon_for_delta`, :func:`epsilon0_for`), and of the front-ends that
    pass them on (a front-end that knows a safe upper end supplies ``hi`` itself, e.g.
    :func:`blanket.exact.protocols.summation.certified_epsilon`).

    ``hi`` (required by the searches: a missing one is a ``TypeError``, as for a signature) and ``lo`` (default 0):
    the search domain ``[lo, hi]``; ``rel_tol`` (default ``"1e-6"``): the
    relative width the bracket is narrowed to; ``guess``: a cheap estimate of the crossing to start from (a float is
    accepted: it only chooses where to evaluate); ``start_prec`` (default ``arith.DEFAULT_PREC``) and ``cap``
    (default ``arith.MAX_PREC``): the working precision in bits and the most it escalates to.
    """

    hi: NumberOrBall
    lo: NumberOrBall
    rel_tol: NumberOrBall
    guess: NumberOrBall | float | None
    start_prec: int
    cap: int


def _checked_search(
    fn: str, fun: Callable[[fmpq], object], target_delta: NumberOrBall, meets_high: bool, search: Search
) -> Bracket:
    """Validate the arguments of the public calibration ``fn`` (its :class:`Search` keywords by name, as Python
    checks a signature; then each value exact and in range, named) and run :func:`validated_search`."""
    check_options(fn, search, Search)
    if "hi" not in search:
        raise TypeError(f"{fn}() missing 1 required keyword argument: 'hi'")
    target = arith.exact_in(target_delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    lo_q = arith.exact_in(search.get("lo", 0), "lo", lo=0)
    hi_q = arith.exact_in(search["hi"], "hi", lo=lo_q, lo_open=True)
    rt = arith.exact_in(search.get("rel_tol", "1e-6"), "rel_tol", lo=0, hi=1, lo_open=True, hi_open=True)
    return validated_search(
        fun,
        target,
        lo_q,
        hi_q,
        meets_high=meets_high,
        rel_tol=rt,
        guess=search.get("guess"),
        start_prec=search.get("start_prec", arith.DEFAULT_PREC),
        cap=search.get("cap", arith.MAX_PREC),
    )


def first_true(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest ``j`` in ``(lo, hi]`` with ``pred(j)`` for a predicate monotone in ``j`` (false, then true),
    ``hi`` when ``pred(hi − 1)`` is false.  O(log(hi − lo)) calls of ``pred``.

    >>> first_true(lambda j: j * j >= 50, 0, 64)
    8
    """
    if not pred(hi - 1):
        return hi
    while lo < hi - 1:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


def float_bisect(above: Callable[[float], bool], lo: float, hi: float, steps: int) -> float:
    """``steps`` bisection steps on ``[lo, hi]`` for a predicate true below the crossing and false above it; returns
    the final ``hi``.  Binary floats: only to *propose* a starting point for a certified search, never a result."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if above(mid):
            lo = mid
        else:
            hi = mid
    return hi


def epsilon_for_delta(
    delta_of_epsilon: Callable[[fmpq], object], target_delta: NumberOrBall, **search: Unpack[Search]
) -> Bracket:
    """The smallest ε in ``[lo, hi]`` with ``δ(ε) ≤ target_delta``, as a certified :class:`Bracket`.

    ``delta_of_epsilon(eps: fmpq)`` must return an enclosure (ball or exact)
    of δ at ``eps`` computed at flint's current precision (it is called
    inside :func:`exact.numbers.arith.precision`; precision escalates until the
    comparison with the target is decided) and δ must be non-increasing in ε.
    ``bracket.upper`` is certified (δ(upper) ≤ target), ``bracket.lower`` is
    certified to fail (δ(lower) > target) unless ``lower == upper == lo``
    (the target is met at ``lo``).  Raises
    :class:`~exact.numbers.errors.InfeasibleTarget` if ``δ(hi) > target``.

    Cost: usually 5–9 evaluations of δ with a ``guess`` within a few percent,
    2–4 more without.

    Keywords (:class:`~blanket.exact.numbers.calibrate.Search`): ``hi``, ``lo``, ``rel_tol``, ``guess``, ``start_prec``, ``cap``.
    """
    return _checked_search("epsilon_for_delta", delta_of_epsilon, target_delta, True, search)


def epsilon0_for(
    delta_of_epsilon0: Callable[[fmpq], object], target_delta: NumberOrBall, **search: Unpack[Search]
) -> Bracket:
    """The largest local ε0 in ``[lo, hi]`` whose central δ (at a fixed central ε) is ≤ ``target_delta``.

    ``delta_of_epsilon0(eps0: fmpq)`` returns an enclosure of δ for the
    mechanism with local ε0 = ``eps0`` and must be non-decreasing in ε0 (true
    for randomized response: RR with a smaller ε0 is a post-processing of RR
    with a larger one).  ``bracket.lower`` is certified to meet the target,
    ``bracket.upper`` to fail it (unless both equal ``hi``: the target is met
    on the whole domain).  Raises :class:`~exact.numbers.errors.InfeasibleTarget` if
    even ``lo`` fails.

    Keywords (:class:`~blanket.exact.numbers.calibrate.Search`): ``hi``, ``lo``, ``rel_tol``, ``guess``, ``start_prec``, ``cap``.
    """
    return _checked_search("epsilon0_for", delta_of_epsilon0, target_delta, False, search)


def gaussian_epsilon_guess(mu: float, delta: float) -> float | None:
    """Float estimate of ε for a Gaussian privacy-loss profile with parameter ``mu`` (only to seed a search).

    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2); solved by bisection in floats.
    """
    if not (mu > 0 and 0 < delta < 1):
        return None

    def Phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))

    def d(e):
        return Phi(-e / mu + mu / 2) - math.exp(e) * Phi(-e / mu - mu / 2)

    lo, hi = 0.0, max(1.0, 10 * mu + 10 * mu * mu)
    if d(lo) <= delta:
        return 0.0
    return float_bisect(lambda e: d(e) > delta, lo, hi, 200)
