"""A certified calibration of an expensive upper bound, guided by a cheap one (issue 25: ``blanket epsilon`` for the
frequency oracles at n ≤ 10³, where the exact five-atom blanket view costs seconds per δ and the fast view a tenth).

:func:`guided_epsilon_for_delta` returns the same kind of :class:`~blanket.exact.numbers.calibrate.Bracket` as
:func:`~blanket.exact.numbers.calibrate.epsilon_for_delta` on ``full``: ``upper`` certified to meet the target
(``full(upper) ≤ target``, an exact comparison), ``lower`` certified to fail it (``full(lower) > target``, or the
caller's ``lo`` when it states that ``lo`` fails), ``(upper − lower)/upper ≤ rel_tol``.  Only *where* ``full`` is
evaluated changes:

1. the cheap bound's crossing is found first (to a relative 10⁻²; ``full ≤ cheap`` everywhere, so a point where
   ``cheap`` meets is certified to meet for ``full`` too, without evaluating it);
2. the *ratio* ``ρ(ε) = log full(ε) − log cheap(ε)`` varies much more slowly than either (OUE k = 128, ε0 = 2,
   n = 10³ near ε = 0.27: slope about −4.6 against −56 for ``log cheap``), so the model ``log cheap(ε) + ρ̂(ε)``, with
   ``ρ̂`` the line through the last two evaluations of ``ρ`` (a constant after the first), locates the crossing of
   ``full`` far better than a secant on ``full`` alone; its root is found with cheap evaluations only;
3. ``full`` is evaluated just beside each model root (a quarter of the tolerance on the side still missing), and
   once two successive roots agree to an eighth of the tolerance, on both sides, which closes the bracket.

Every model quantity is a float and only chooses points; every reported end is an exact rational classified by an
exact comparison.  When the model fails (a zero value, no root, too many evaluations) the general search of
:mod:`blanket.exact.numbers.calibrate` finishes on the bracket found so far.  Cost: 4–6 evaluations of ``full``
and 10–20 of ``cheap`` (the plain search: 8–10 of ``full``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from blanket.exact.numbers.calibrate import Bracket, validated_search
from blanket.exact.numbers.errors import InfeasibleTarget
from flint import fmpq

__all__ = ["guided_epsilon_for_delta", "crossing_from_failing"]

#: the relative width to which the cheap bound's crossing is located first
CHEAP_REL_TOL = fmpq(1, 100)


def _ln(v: fmpq) -> float:
    """``log v`` of a positive exact rational in floats (``-inf`` at 0).  O(size of v)."""
    if v <= 0:
        return -math.inf
    return math.log(int(v.p)) - math.log(int(v.q))


def _near(x: float, lo: fmpq, hi: fmpq, rel: float) -> fmpq | None:
    """A short decimal rational within ``rel/8`` (relative) of ``x``, strictly inside ``(lo, hi)``.  O(1)."""
    if not (math.isfinite(x) and x > 0):
        return None
    d = max(0, math.ceil(-math.log10(rel * x / 8)) + 1)
    q = fmpq(round(x * 10**d), 10**d)
    return q if lo < q < hi else None


def guided_epsilon_for_delta(
    full: Callable[[fmpq], fmpq],
    cheap: Callable[[fmpq], fmpq],
    target: fmpq,
    *,
    lo: fmpq,
    hi: fmpq,
    rel_tol: fmpq,
    lo_fails: bool = False,
    max_full: int = 8,
) -> Bracket:
    """The smallest ε in ``(lo, hi]`` with ``full(ε) ≤ target``, as a certified bracket (module docstring).

    ``full(ε)`` and ``cheap(ε)`` return **exact rationals** that are certified upper bounds on the same δ(ε),
    non-increasing in ε, with ``full(ε) ≤ cheap(ε)`` (e.g. ``full`` the smallest of every bound, ``cheap`` the
    smallest of the cheap ones); ``target``, ``lo < hi`` and ``0 < rel_tol < 1`` exact (validated by the caller).
    ``lo_fails``: the caller has certified ``full(lo) > target`` (e.g. a certified lower bound on δ above the target
    there), so ``lo`` may serve as the failing end without an evaluation.  ``evaluations`` in the result counts the
    evaluations of ``full``.  Raises :class:`~blanket.exact.numbers.errors.InfeasibleTarget` when ``full(hi)`` is
    above the target.  Cost: module docstring.
    """
    tol = float(rel_tol)
    lnT = _ln(target)
    lnc: dict = {}
    fv: dict = {}

    cv: dict = {}

    def cheap_memo(x: fmpq) -> fmpq:
        if x not in cv:
            cv[x] = cheap(x)
            lnc[x] = _ln(cv[x])
        return cv[x]

    def ln_cheap(x: fmpq) -> float:
        cheap_memo(x)
        return lnc[x]

    def full_memo(x: fmpq) -> fmpq:
        if x not in fv:
            fv[x] = full(x)
        return fv[x]

    good: tuple | None = None  # (x, full(x) or None when only the cheap bound was evaluated there)
    bad: tuple | None = (lo, None) if lo_fails else None
    rho: list[tuple[float, float]] = []  # (x, log full(x) − log cheap(x)) at every evaluation of full
    last_x: list[fmpq] = []  # the points of rho, exact

    def evaluate(x: fmpq) -> None:
        nonlocal good, bad
        v = full_memo(x)
        if v <= target:
            good = (x, v)
        else:
            bad = (x, v)
        lc = ln_cheap(x)
        if math.isfinite(lc) and v > 0:
            rho.append((float(x), _ln(v) - lc))
            last_x.append(x)

    def closed() -> bool:
        return good is not None and bad is not None and good[0] - bad[0] <= rel_tol * good[0]

    def finish() -> Bracket:
        if closed():
            assert good is not None and bad is not None
            return Bracket(bad[0], good[0], len(fv), bad[1], good[1])
        a = bad[0] if bad is not None else lo
        b = good[0] if good is not None else hi
        br = validated_search(full_memo, target, a, b, meets_high=True, rel_tol=rel_tol)
        if bad is not None and br.lower == br.upper == a:
            raise AssertionError(f"the certified failing end {a} met the target")
        return Bracket(br.lower, br.upper, len(fv), br.delta_lower, br.delta_upper, br.prec)

    # 1. the cheap bound's crossing: a certified meeting point for full (full ≤ cheap)
    try:
        cbr = validated_search(
            cheap_memo,
            target,
            lo,
            hi,
            meets_high=True,
            rel_tol=max(rel_tol, CHEAP_REL_TOL),
            guess=lo * fmpq(21, 20) if lo_fails and lo > 0 else None,
        )
    except InfeasibleTarget:
        return finish()
    if cbr.upper == lo:  # the cheap bound meets on the whole domain
        if lo_fails:
            raise AssertionError(f"the certified failing end {lo} met the target")
        return Bracket(lo, lo, 0, cbr.delta_upper, cbr.delta_upper, cbr.prec)
    good = (cbr.upper, None)

    def model_root(x0: fmpq) -> float | None:
        """The root of ``log cheap(x) + ρ̂(x) − log target`` by a secant on cheap evaluations, from ``x0`` (the
        latest evaluation of full, whose cheap value is known)."""
        if len(rho) >= 2 and rho[-1][0] != rho[-2][0]:
            (x1, r1), (x2, r2) = rho[-2], rho[-1]
            slope, at, base = (r2 - r1) / (x2 - x1), x2, r2
        else:
            slope, at, base = 0.0, rho[-1][0], rho[-1][1]

        def g(q: fmpq | None) -> float | None:
            c = ln_cheap(q) if q is not None else math.nan
            return c + base + slope * (float(q) - at) - lnT if (q is not None and math.isfinite(c)) else None

        # the second point: the cheap point already evaluated nearest x0 (within 1 %), else 0.1 % below it
        near = [q for q in lnc if q != x0 and abs(float(q) / float(x0) - 1) < 1e-2]
        qb = min(near, key=lambda q: abs(float(q) - float(x0))) if near else _near(float(x0) * (1 - 1e-3), lo, hi, tol)
        xa, xb = float(x0), float(qb) if qb is not None else math.nan
        ga, gb = g(x0), g(qb)
        for _ in range(8):
            if ga is None or gb is None or ga == gb:
                return None
            xc = xb - gb * (xb - xa) / (gb - ga)
            if not (float(lo) < xc < float(hi)):
                return None
            if abs(xc - xb) <= tol * xc / 32:
                return xc
            xa, ga, xb, gb = xb, gb, xc, g(_near(xc, lo, hi, tol / 64))
        return None

    # 2.–3. full beside each model root, on the side whose end is farther from it; on both once the roots agree
    evaluate(good[0])
    last: float | None = None
    while not closed() and len(fv) < max_full and rho:
        est = model_root(last_x[-1])
        if est is None:
            break
        converged = last is not None and abs(est - last) <= tol * est / 8
        last = est
        assert good is not None
        d_good = float(good[0]) - est
        d_bad = est - float(bad[0]) if bad is not None else math.inf
        sides = [1 - tol / 4, 1 + tol / 4] if d_bad >= d_good else [1 + tol / 4, 1 - tol / 4]
        stepped = False
        for s in sides if converged else sides[:1]:
            lo_x = bad[0] if bad is not None else lo
            q = _near(est * s, lo_x, good[0], tol)
            if q is not None and not closed():
                evaluate(q)
                stepped = True
        if not stepped:
            break
    return finish()


#: the most evaluations :func:`crossing_from_failing` spends on its secant steps before the general search finishes
SECANT_MAX = 8


def crossing_from_failing(
    fun: Callable[[fmpq], fmpq],
    target: fmpq,
    *,
    bad: fmpq,
    bad_value: fmpq,
    hi: fmpq,
    rel_tol: fmpq,
    guess: fmpq | None = None,
    cap: int | None = None,
) -> Bracket:
    """The crossing of a non-increasing ``fun`` (exact rationals; e.g. the lower end of a lower bound on δ(ε)) above
    a point ``bad`` where it is known to fail (``fun(bad) = bad_value > target``), as a certified bracket: ``lower``
    fails (``fun > target``, an exact comparison; ``bad`` itself if nothing better), ``upper`` meets, ``(upper −
    lower)/upper ≤ rel_tol``.

    Points are chosen by a secant on ``log fun`` (nearly linear in ε where these bounds cross a small target: OUE
    k = 128, ε0 = 2, n = 10³: slope about −56), from ``guess`` (default ``bad·(1 + 10⁻³)``); once two successive
    estimates agree to an eighth of the tolerance, ``fun`` is evaluated a quarter of the tolerance on each side,
    which closes the bracket.  The floats only choose points; after :data:`SECANT_MAX` evaluations (or a zero value,
    or a step out of range) the general search of :mod:`blanket.exact.numbers.calibrate` finishes on the bracket
    found so far.  Cost: usually 3–5 evaluations of ``fun`` (the general search from ``bad``: about 10)."""
    tol = float(rel_tol)
    good: tuple | None = None
    fails: tuple = (bad, bad_value)
    pts: list[tuple[float, float]] = [(float(bad), _ln(bad_value))]
    evals = 0

    def closed() -> bool:
        return good is not None and good[0] - fails[0] <= rel_tol * good[0]

    def evaluate(x: fmpq) -> None:
        nonlocal good, fails, evals
        v = fun(x)
        evals += 1
        if v <= target:
            if good is None or x < good[0]:
                good = (x, v)
        elif x > fails[0]:
            fails = (x, v)
        if v > 0:
            pts.append((float(x), _ln(v)))

    lnT = _ln(target)
    x = guess if guess is not None else bad * fmpq(1001, 1000)
    last: float | None = None
    while not closed() and evals < SECANT_MAX:
        top = good[0] if good is not None else hi
        if not (fails[0] < x < top):
            break
        evaluate(x)
        if closed() or len(pts) < 2 or pts[-1][0] == pts[-2][0] or pts[-1][1] == pts[-2][1]:
            break
        (x1, l1), (x2, l2) = pts[-2], pts[-1]
        est = x2 - (l2 - lnT) * (x2 - x1) / (l2 - l1)
        top = good[0] if good is not None else hi
        if not (float(fails[0]) < est < float(top)):
            break
        if last is not None and abs(est - last) <= tol * est / 8:  # converged: close on both sides
            for side in (1 - tol / 4, 1 + tol / 4):
                q = _near(est * side, fails[0], good[0] if good is not None else hi, tol)
                if q is not None and not closed():
                    evaluate(q)
            break
        last = est
        q = _near(est, fails[0], top, tol / 64)
        if q is None:
            break
        x = q
    if closed():
        assert good is not None
        return Bracket(fails[0], good[0], evals, fails[1], good[1])
    kw = {} if cap is None else {"cap": cap}
    br = validated_search(
        fun, target, fails[0], good[0] if good is not None else hi, meets_high=True, rel_tol=rel_tol, **kw
    )
    lower = max(br.lower, fails[0]) if br.lower < br.upper else fails[0]
    return Bracket(lower, br.upper, evals + br.evaluations, br.delta_lower, br.delta_upper, br.prec)
