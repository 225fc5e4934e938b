"""The data of the privacy-curve picture (:mod:`blanket.reports.figures.privacy_curve`), sampled from the certificate's
own certified routines.

One shuffled round: on a grid of ε in ``[0, ε_max]`` each cheap certified source of the certificate
(:func:`blanket.reports.certificate.sources`: the blanket view, the concrete datasets, the clone pair, the oracles'
routes; the expensive sweep over all datasets is left out and the picture says so) is evaluated at the deployment's
starting precision; the upper line is the smallest certified upper end at each ε, the lower line the largest
certified lower end; between grid points the upper line is the chord in ``α = e^ε`` of the certified values (the
curve is convex in α: :func:`convex_upper`), drawn through a few points per interval.  Each registered closed-form bound that applies is drawn beside them: a bound on δ on the same
grid, a bound on ε as the points (ε̄(δ), δ) on a grid of δ.  A registered bound whose right side is an algorithm
(a function node with its own ``_arb_eval``, e.g. a Rényi sweep) is not drawn (named under the plot as expensive),
unless a drawn source is that very result (then it *is* the upper line).  ``ε_max`` is twice the largest ε of
interest (the claims', the targets' certified upper ends, the queried point), at most ε0: the picture shows where
the curves cross the claimed δ.

Composed rounds: δ(ε) of the composition from the certificate's own accountant (upper: the smallest certified
route, lower: one concrete pair of datasets), and the certified ε against the number of rounds (the schedule
scaled down, on the accountant's grid; :meth:`blanket.exact.accounting.accountant.ShuffleAccountant.scaled`).

Cost: ``SINGLE_ROUND_GRID_POINTS + 1`` evaluations of each cheap source and closed-form bound (about 1.4 s for the
README's example, n = 10^5) plus ``BOUND_DELTAS`` evaluations of each ε-bound; the rounds panel ``len(ROUND_FRACTIONS)``
self-compositions of cached single-round distributions.  Every value drawn is a certified end rounded to a float
for drawing only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp
from blanket.exact.accounting.curves import computed_curve_pair, lower_convex_hull
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError
from flint import arb, fmpq

from .claims import claim_tolerance
from .figures.privacy_curve import Line, Marker, Picture, Rounds

if TYPE_CHECKING:
    from blanket.exact.accounting.accountant import ShuffleAccountant
    from blanket.proofs.core import Result

#: grid intervals on [0, ε_max] (the claims' own ε are added to the grid)
GRID_POINTS = 16
#: grid intervals of a one-round picture's sources (cheap: about 1.4 s at the README's example, n = 10⁵): with the
#: chords of :func:`convex_upper` between them, 16 left visible scallops on the log axis
SINGLE_ROUND_GRID_POINTS = 32
#: grid intervals for a closed-form record (a frequency oracle, ldp): its routes cost about a second per point at
#: n = 10^6, so a coarser grid keeps the picture within seconds
ORACLE_GRID_POINTS = 8
#: δ values at which a registered bound on ε is evaluated
BOUND_DELTAS = 12
#: the rounds panel: fractions of the deployment's schedule (the last is the schedule itself)
ROUND_FRACTIONS = (Fraction(1, 64), Fraction(1, 16), Fraction(1, 4), Fraction(1))


def _upper_float(v: Any) -> float | None:
    """The upper end of a certified enclosure as a float (for drawing; ``None`` if it is not finite)."""
    if isinstance(v, arb) and not v.is_finite():
        return None
    hi = arith.endpoints(v)[1]
    return _to_float(hi)


def _lower_float(v: Any) -> float | None:
    """The lower end of a certified enclosure as a float (``None`` when it is ≤ 0: nothing to draw on a log axis)."""
    if isinstance(v, arb) and not v.is_finite():
        return None
    lo = arith.endpoints(v)[0]
    return _to_float(lo) if lo > 0 else None


def _to_float(q: Any) -> float | None:
    """An exact rational as the nearest float; below the float range it is ``None`` (not drawable)."""
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    if q <= 0:
        return None if q < 0 else 0.0
    try:
        x = q.numerator / q.denominator
    except OverflowError:
        return math.inf
    return x if x > 0 else None


#: points drawn inside each grid interval on the upper line (the chords of :func:`convex_upper` are straight in
#: α = e^ε, curved on the log axis: drawn through these points, not as one straight segment between grid points)
CHORD_POINTS = 4


def convex_upper(eps: Sequence[float], up: Sequence[float | None], between: int = CHORD_POINTS) -> tuple[list, list]:
    """The drawn upper line from certified upper values ``up[i]`` of the worst-case curve at ``eps[i]`` (increasing):
    the lower convex hull of the points ``(α_i, up[i])``, ``α_i = e^{ε_i}``, linear in α between its vertices, and
    never above the last certified value to its left; evaluated at ``eps`` and ``between`` more points inside each
    interval.  Returns ``(xs, ys)``.

    Why it is still an upper bound: the worst-case curve ``E(α)`` is convex and non-increasing in α
    (docs/composition.md, "Worst-case curve pair"), so for ``α_a ≤ α ≤ α_b`` it lies under the chord of
    ``E(α_a) ≤ up_a`` and ``E(α_b) ≤ up_b``, and under ``up_a``; a vertex of the hull is a certified value, the hull
    between vertices lies under every chord of the points, and above ``E``.  It removes the flat steps of a minimum
    of sources sampled on the grid (e.g. a worst-case curve pair's long last chord beside the blanket view) as far
    as convexity allows.  Drawing only (floats: each ``up[i]`` is already a certified end rounded up; the hull's own
    float rounding is far below the line width); ``None`` values are skipped, and nothing is drawn outside the
    first and last certified points.  O(m·between) for ``m`` grid points.
    """
    pts = [(math.exp(e), u, e) for e, u in zip(eps, up) if u is not None]
    xs: list[float] = []
    ys: list[float | None] = []
    if len(pts) < 2:
        return [e for e, u in zip(eps, up) if u is not None], [u for u in up if u is not None]
    hull = lower_convex_hull((a, u) for a, u, _e in pts)  # the same monotone chain as the curve pairs', in floats
    j = 0
    run_min = math.inf
    for (_a0, u0, e0), (_a1, _u1, e1) in zip(pts, pts[1:]):
        run_min = min(run_min, u0)
        for t in range(between + 1):
            e = e0 + (e1 - e0) * t / (between + 1)
            a = math.exp(e)
            while j + 1 < len(hull) - 1 and hull[j + 1][0] <= a:
                j += 1
            (ha, hu), (hb, hv) = hull[j], hull[j + 1]
            lam = min(1.0, max(0.0, (a - ha) / (hb - ha)))
            xs.append(e)
            ys.append(min(run_min, hu + lam * (hv - hu)))
    xs.append(pts[-1][2])
    ys.append(min(run_min, pts[-1][1]))
    return xs, ys


def grid(eps_max: fmpq, focus: Iterable[fmpq] = (), points: int = GRID_POINTS) -> list[fmpq]:
    """``eps_max·i/points`` for ``i = 0..points``, plus the ``focus`` values in that range, sorted (exact)."""
    out = {eps_max * fmpq(i, points) for i in range(points + 1)}
    out |= {f for f in focus if 0 <= f <= eps_max}
    return sorted(out)


def eps_max(focus: Iterable[fmpq], eps0: fmpq | None) -> fmpq:
    """Twice the largest ε of interest, at most ``eps0`` (``eps0`` itself when there is none)."""
    top = max([f for f in focus if f > 0], default=None)
    hi = eps0 if eps0 is not None and eps0 > 0 else fmpq(4)
    if top is None:
        return hi
    return min(hi, 2 * top)


def algorithmic(result: Result) -> bool:
    """Whether the result's bounding side is an algorithm (a function node evaluated by its own ``_arb_eval``)."""
    rhs = getattr(result.statement, "rhs", None)
    return rhs is not None and any(hasattr(a, "_arb_eval") for a in sp.preorder_traversal(rhs))


def _name(r: Result) -> str:
    return f"{r.paper} {r.label}" + (f" [{r.variant}]" if r.variant else "")


def single_round(
    srcs: Sequence[Any],
    cands: Sequence[Result],
    evaluate: Callable[[Result, fmpq, fmpq], dict],
    *,
    title: str,
    focus: Sequence[fmpq],
    eps0: fmpq | None,
    delta: fmpq,
    markers: Sequence[Marker] = (),
    prec: int = 128,
    points: int | None = None,
    mech: Any = None,
    curve_pair: Any = None,
    tol: fmpq | None = None,
    claim_uppers: Sequence[tuple[str, Marker]] = (),
) -> Picture:
    """The picture of one shuffled round from the certificate's sources and candidate bounds (``mech``: the
    randomizer record, which decides which sources are too slow to draw, :func:`slow_for_plot`).  ``curve_pair``
    (optional): a dominating pair of the worst-case curve over all datasets already computed (binary RR,
    :func:`blanket.exact.accounting.curves.computed_curve_pair`); its ``H_α`` at the lower end of ``e^ε`` (``H`` is
    non-increasing in α) is one more certified upper end at each ε, exact in rationals, and the legend names it.
    ``tol`` (optional): the windowing tolerance passed to tolerance-taking sources (``takes_tol``, the blanket view;
    :func:`blanket.reports.claims.claim_tolerance` of the smallest claimed δ), so that at a tiny δ the drawn upper
    line does not flatten at the default tolerance 2^-80 (about 1e-24) far above the certified values.
    ``claim_uppers`` (optional): ``(source key, marker)`` of each claim's certified upper bound; a marker is drawn
    when its source is one of ``srcs`` left out of the upper line (too slow to draw), so that a claim decided by it
    is not shown below a line that does not hold its deciding bound.

    ``srcs``: :class:`blanket.reports.certificate.Source` records (``role``, ``compute(eps)``, ``expensive``,
    ``title``, ``results``); ``cands``: registered results; ``evaluate(result, eps, delta)``: the certificate's
    evaluation of one bound (``{"applies", "value"}``); ``focus``: the ε of interest (claims, targets, the query);
    ``delta``: the δ at which the bounds' hypotheses are read (the first claim's); ``points``: grid intervals
    (default :data:`SINGLE_ROUND_GRID_POINTS`, :data:`ORACLE_GRID_POINTS` for a closed-form record).  The upper
    line is drawn through :func:`convex_upper` (chords in α = e^ε between the certified values, never a straight
    segment on the log axis, which could pass under the curve).  O(points × (sources +
    bounds)) certified evaluations.
    """
    if points is None:  # the oracles' sources are named "upper: …" / "lower: …" (certificate.oracle_sources)
        oracle = any(getattr(s, "key", "").startswith(("upper: ", "lower: ")) for s in srcs)
        points = ORACLE_GRID_POINTS if oracle else SINGLE_ROUND_GRID_POINTS
    top = eps_max(focus, eps0)
    eps = grid(top, focus, points)
    xs = [_to_float(e) or 0.0 for e in eps]
    cheap = [s for s in srcs if not s.expensive and slow_for_plot(s, mech) is None]
    skipped = [
        f"{s.title} (one sweep over all datasets per point)"
        for s in srcs
        if s.expensive and not (curve_pair is not None and getattr(s, "key", "") == "exact-worst-binary")
    ]
    skipped += [f"{s.title} ({why})" for s in srcs if not s.expensive and (why := slow_for_plot(s, mech))]
    drawn_results = {ref for s in cheap for ref in s.results}
    up_names: list[str] = []
    lo_names: list[str] = []
    up: list[float | None] = []
    lo: list[float | None] = []
    with arith.precision(prec):
        for e in eps:
            best_up: float | None = None
            best_lo: float | None = None
            for s in cheap:
                try:
                    v, _w = (
                        s.compute(e, tol=tol) if (tol is not None and getattr(s, "takes_tol", False)) else s.compute(e)
                    )
                except BlanketError:
                    continue
                if s.role in ("upper", "exact"):
                    u = _upper_float(v)
                    if u is not None and (best_up is None or u < best_up):
                        best_up = u
                    if s.title not in up_names:
                        up_names.append(s.title)
                if s.role in ("lower", "exact"):
                    lw = _lower_float(v)
                    if lw is not None and (best_lo is None or lw > best_lo):
                        best_lo = lw
                    if s.title not in lo_names:
                        lo_names.append(s.title)
            if curve_pair is not None and e >= 0:
                a_lo = arith.endpoints(arb(e).exp())[0]
                u = _to_float(curve_pair.hockey_stick(fmpq(a_lo.numerator, a_lo.denominator)))
                if u is not None and (best_up is None or u < best_up):
                    best_up = u
                if CURVE_TITLE not in up_names:
                    up_names.insert(0, CURVE_TITLE)
            up.append(best_up)
            lo.append(best_lo)
        bounds: list[Line] = []
        for r in cands:
            if (r.paper, r.label) in drawn_results or r.key in drawn_results:
                continue  # the upper line itself
            if algorithmic(r):
                skipped.append(f"{_name(r)} (an algorithm per point: too slow to draw)")
                continue
            line = _bound_line(r, evaluate, eps, xs, delta, top)
            if line is None:
                continue
            if isinstance(line, str):
                skipped.append(line)
            else:
                bounds.append(line)
    xs_up, up_drawn = convex_upper(xs, up)
    upper = (
        Line(_short("certified upper bound, every dataset", up_names) + UPPER_CHORDS, xs_up, up_drawn, "upper")
        if any(v is not None for v in up)
        else None
    )
    lower = (
        Line(_short("certified lower bound", lo_names, "largest"), xs, lo, "lower")
        if any(v is not None for v in lo)
        else None
    )
    if upper is None:
        skipped.append("no exact routine for this randomizer: only its registered bounds are drawn")
    drawn_keys = {getattr(s, "key", "") for s in cheap} | ({"exact-worst-binary"} if curve_pair is not None else set())
    undrawn = {getattr(s, "key", "") for s in srcs} - drawn_keys
    extra = [m for key, m in claim_uppers if key in undrawn]
    return Picture(title=title, upper=upper, lower=lower, bounds=bounds, markers=[*markers, *extra], skipped=skipped)


#: what the upper line is between its grid points (:func:`convex_upper`), appended to its legend
UPPER_CHORDS = (
    "; between grid points: chords in exp(epsilon) of the certified values (the curve is convex in exp(epsilon))"
)

#: the legend's name of the worst-case curve over all datasets (binary RR) when it is drawn
CURVE_TITLE = "worst-case privacy curve over all datasets, one sweep"


#: the role a source's title states, left out of a line's label (the label says it)
_ROLE = re.compile(r" \((an upper|a lower) bound on (the worst case|every dataset)\)$")


def slow_for_plot(source: Any, mech: Any) -> str | None:
    """Why a certificate's source is not drawn (seconds or more per point, measured once on the README's machine,
    so a picture of a few seconds cannot hold it), or ``None``.  A fixed rule, not a timer: the same deployment
    always gets the same picture.  Its value at each claim is in the certificate's tables.

    * the exact blanket view and the family ``third`` of k-ary RR with k > 2 (seconds per point at n = 10^4);
    * a frequency oracle's blanket-view route (seconds to minutes per point at n = 10^3 and beyond);
    * the continuous randomizers' blanket view for the Gaussian, or beyond n = 10^5 (seconds per point), and their
      own δ on 0^n vs 1·0^(n−1) (two lattice sums per point).
    """
    key = getattr(source, "key", "")
    if key in ("blanket-view", "family-third") and (getattr(mech, "k", None) or 2) > 2:
        return "seconds per point for k > 2: not drawn, its value at each claim is in the tables"
    if key.startswith("blanket-view-continuous") and key.endswith("-slow"):
        return "seconds per point (Gaussian, or n > 10^5): not drawn, its value at each claim is in the tables"
    if key == "dataset-lower-continuous":
        return "a lattice sum per point and direction: not drawn, its value at each claim is in the tables"
    if key.startswith("upper: ") and "blanket view" in key:
        return "seconds to minutes per point: not drawn, its value at each claim is in the tables"
    return None


def _short(head: str, names: list[str], best: str = "smallest") -> str:
    """A line's legend label: ``head`` and the routes drawn.  ``best``: which route is drawn at each point, the
    smallest (an upper line: every route is an upper bound) or the largest (a lower line).  O(len(names))."""
    if not names:
        return head
    parts = [_ROLE.sub("", n) for n in names]
    if len(parts) > 1:  # several routes: their short names (the best one is drawn at each point)
        return f"{head} (the {best} of: {'; '.join(p.split(' (')[0] for p in parts)})"
    return f"{head} ({parts[0]})"


def _bound_line(r: Result, evaluate, eps: list[fmpq], xs: list[float], delta: fmpq, top: fmpq) -> Line | str | None:
    """A registered bound's line, a note why it is not in view, or ``None`` (it applies nowhere on the grid)."""
    if r.quantity == "delta":
        ys: list[float | None] = []
        for e in eps:
            b = evaluate(r, e, delta)
            ys.append(_upper_float(b["value"]) if b["applies"] else None)
        if all(y is None for y in ys):
            return None
        return Line(f"{_name(r)} (registered, on delta)", xs, ys, "bound")
    # a bound on ε as a function of δ: the points (ε̄(δ), δ) on a log grid of δ from δ/10^6 to 1/2
    lo_exp = math.floor(math.log10(_to_float(delta) or 1e-300)) - 6
    exps = {round(lo_exp + (-1 - lo_exp) * i / (BOUND_DELTAS - 1)) for i in range(BOUND_DELTAS)}
    deltas = sorted({fmpq(1, 10**-x) for x in exps if x < 0} | {delta, fmpq(1, 2)})
    pts: list[tuple[float, float]] = []
    ever = False
    first: float | None = None
    for d in deltas:
        b = evaluate(r, eps[-1], d)
        if not b["applies"]:
            continue
        ever = True
        v = _upper_float(b["value"])
        if v is None:
            continue
        if d == delta:
            first = v
        if v <= _to_float(top) * 1.02:  # type: ignore[operator]  # top is a positive rational
            pts.append((v, _to_float(d) or 0.0))
    if not ever:
        return None
    if not pts:
        at = f" (epsilon <= {first:.3g} at delta = {arith.decimal_string(delta, 3, up=False)})" if first else ""
        return f"{_name(r)}, a bound on epsilon, lies right of the plotted range{at}"
    pts.sort()
    return Line(f"{_name(r)} (registered, on epsilon)", [p[0] for p in pts], [p[1] for p in pts], "bound")


def composition(
    acc: ShuffleAccountant,
    *,
    title: str,
    focus: Sequence[fmpq],
    eps0_total: fmpq | None,
    delta: fmpq,
    markers: Sequence[Marker] = (),
    claim: Marker | None = None,
    rounds: bool = True,
    points: int = GRID_POINTS,
) -> Picture:
    """The picture of composed rounds from ``acc`` (its single-round distributions already computed): δ(ε) of the
    composition on a grid, and (``rounds``) the certified ε at ``delta`` for the schedule scaled by
    :data:`ROUND_FRACTIONS`.  O(points) queries of the cached composed distributions, plus one self-composition per
    fraction."""
    top = eps_max(focus, eps0_total)
    eps = grid(top, focus, points)
    xs = [_to_float(e) or 0.0 for e in eps]
    up: list[float | None] = []
    lo: list[float | None] = []
    for e in eps:
        d = acc.get_delta(e, refine=False)  # the distributions the queries composed: no new band per point
        up.append(_to_float(d.upper))
        lo.append(_to_float(d.lower) if d.lower > 0 else None)
    # chords in e^eps between the certified values, as for one round (:func:`convex_upper`): the worst case over
    # all datasets of T composed rounds is a supremum of hockey-stick divergences, convex in alpha = e^eps; a
    # straight segment on the log axis could pass under it
    xs_up, up_drawn = convex_upper(xs, up)
    upper = Line(
        "certified upper end of the composed delta (smallest route: PLD, Renyi, basic)" + UPPER_CHORDS,
        xs_up,
        up_drawn,
        "upper",
    )
    lower = Line("certified lower end (the rounds on one concrete pair of datasets)", xs, lo, "lower")
    panel = None
    if rounds:
        total = acc.rounds
        ts: list[int] = []
        us: list[float | None] = []
        ls: list[float | None] = []
        for f in ROUND_FRACTIONS:
            sub = acc if f == 1 else acc.scaled(f)
            if ts and sub.rounds == ts[-1]:
                continue
            r = sub.get_epsilon(fmpq(int(delta.p), int(delta.q)))
            ts.append(sub.rounds)
            us.append(None if r.upper == float("inf") else _to_float(Fraction(r.upper)))
            ls.append(_to_float(Fraction(r.lower)) if r.lower > 0 else None)
        panel = Rounds(
            ts,
            us,
            ls,
            arith.decimal_string(delta, 6, up=False),
            claim=claim,
            rounds_label=f"composed rounds (the schedule scaled; {total} = the deployment)",
        )
    return Picture(title=title, upper=upper, lower=lower, markers=markers, rounds=panel)


# ---------------------------------------------------------------- a certificate's picture
def _num(text: str | None) -> fmpq | None:
    return None if text is None else arith.exact(text)


def claim_markers(cert: dict) -> tuple[list[Marker], list[fmpq]]:
    """The claims and targets of a certificate (plain data) as markers, and the ε of interest they give."""
    markers, focus = [], []
    for i, c in enumerate(cert["claims"], 1):
        e, d = _num(c["epsilon"]), _num(c["delta"])
        assert e is not None and d is not None  # a claim has both
        focus.append(e)
        markers.append(
            Marker(f"claim {i}: ({c['epsilon']}, {c['delta']}) {c['verdict']}", _f(e), _f(d), verdict=c["verdict"])
        )
    for t in cert["targets"]:
        up, lo, d = _num(t.get("epsilon_upper")), _num(t.get("epsilon_lower")), _num(t["delta"])
        assert d is not None  # a target has its delta
        if up is None:
            continue
        focus.append(up)
        rng = (_f(lo), _f(up)) if lo is not None else None
        where = f"[{t['epsilon_lower']}, {t['epsilon_upper']}]" if lo is not None else f"<= {t['epsilon_upper']}"
        markers.append(Marker(f"target delta = {t['delta']}: epsilon in {where}", _f(up), _f(d), None, rng))
    return markers, focus


def to_float(q: Any) -> float:
    """An exact rational as a float for drawing (0.0 below the float range)."""
    return _to_float(q) or 0.0


_f = to_float


def epsilon0_upper(mech: Any, params: dict) -> fmpq | None:
    """A rational ≥ the randomizer's ε0 (``params["epsilon0"]``, else the upper end of log e^{ε0}); ``None`` if
    unknown.  The curve is drawn on ε ∈ [0, ε0] at most: δ(ε) = 0 beyond."""
    if "epsilon0" in params:
        return arith.exact(params["epsilon0"])
    try:
        e0 = mech.exp_epsilon0() if mech is not None else None
    except BlanketError:
        return None
    if e0 is None:
        return None
    with arith.precision(128):
        up = arith.endpoints(arb(e0).log() if isinstance(e0, fmpq) else e0.log())[1]
    return fmpq(math.ceil(up * 10**6), 10**6)


def certificate_picture(
    cert: dict,
    srcs: Sequence[Any],
    cands: Sequence[Result],
    evaluate: Callable[[Result, fmpq, fmpq], dict],
    *,
    mech: Any,
    params: dict,
    prec: int,
) -> Picture:
    """The picture of a one-round certificate (``cert``: its plain data, claims and targets decided; ``mech`` and
    ``params``: the deployment's randomizer record and parameters)."""
    markers, focus = claim_markers(cert)
    uppers = []
    for i, c in enumerate(cert["claims"], 1):
        up = c.get("upper")
        val = _num(up["value"]["upper"]) if up and up.get("value") else None
        if val is not None and val > 0 and _num(c["epsilon"]) is not None:
            name = _ROLE.sub("", up["source"])
            label = f"claim {i}: certified upper bound delta <= {up['value']['upper']} ({name}; not drawn as a line)"
            uppers.append((up.get("key", ""), Marker(label, _f(_num(c["epsilon"])), _f(val), kind="upper")))
    deltas = [_num(c["delta"]) for c in cert["claims"]] + [_num(t["delta"]) for t in cert["targets"]]
    delta = next((d for d in deltas if d is not None), fmpq(1, 10**6))
    given = [d for d in deltas if d is not None and d > 0]
    tol = claim_tolerance(min(given)) if given else None  # the smallest claimed delta's windowing tolerance
    title = f"{cert['deployment']['name']}: the privacy curve ({cert['mechanism_text']}; n = {cert['deployment']['n']})"
    return single_round(
        srcs,
        cands,
        evaluate,
        title=title,
        focus=focus,
        eps0=epsilon0_upper(mech, params),
        delta=delta,
        markers=markers,
        prec=prec,
        mech=mech,
        curve_pair=computed_curve_pair(mech, cert["deployment"]["n"]),
        tol=tol,
        claim_uppers=uppers,
    )


def attach(cert: dict, pic: Picture) -> None:
    """Put the picture into the certificate: ``picture`` (what is drawn; ``file`` is set when it is written) and its
    plain data under the private key ``_picture`` (not part of the JSON file; drawn by
    :func:`blanket.reports.certificate.write`)."""
    cert["picture"] = {"file": None, **pic.describe()}
    cert["_picture"] = pic.as_data()


def composition_picture(cert: dict, acc: ShuffleAccountant) -> Picture:
    """The picture of a composition certificate (``cert``: its plain data, claims and targets decided; ``acc``: the
    accountant that decided them, its grid fixed)."""
    markers, focus = claim_markers(cert)
    deltas = [_num(t["delta"]) for t in cert["targets"]] + [_num(c["delta"]) for c in cert["claims"]]
    delta = next((d for d in deltas if d is not None), fmpq(1, 10**6))
    claim = None
    for m, c in zip(markers, cert["claims"]):
        if _num(c["delta"]) == delta:
            claim = Marker(m.label, float(acc.rounds), _f(_num(c["epsilon"]) or fmpq(0)), c["verdict"])
            break
    basic = acc.basic_upper()
    title = f"{cert['deployment']['name']}: the privacy curve of {cert['mechanism_text']}"
    return composition(
        acc,
        title=title,
        focus=focus,
        eps0_total=None if basic is None else fmpq(basic.numerator, basic.denominator),
        delta=delta,
        markers=markers,
        claim=claim,
    )
