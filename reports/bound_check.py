"""Certified counterexample search for a researcher's amplification-by-shuffling bound.

A researcher hands in a bound on the central privacy of shuffled randomized
response — a δ(ε, ε0, n, k) or an ε(δ, ε0, n, k) — and gets back either a
**certified counterexample** (parameters and a neighbouring dataset pair where
the true hockey-stick divergence provably exceeds the bound) or a **certified
statement of where it was checked and how tight it is**.

The pieces: :mod:`reports.bound_load` reads a bound (file formats, the float model, the registry's results),
:mod:`reports.bound_search` runs the search (what is checked, the exact side, the phases), and this module turns a
search into the report (JSON, LaTeX, PDF).  The loader's and the search's public names are re-exported here.
"""

from __future__ import annotations

import json
import pathlib
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.reports import latex
from blanket.reports.bound_load import (  # noqa: F401  (re-exported: the loader's public names)
    MECHANISMS,
    ORACLES,
    QUANTITIES,
    REGISTERED_DOMAIN,
    Bound,
    _exact_str,
    _norm_mechanism,
    is_oracle,
    load_bound,
    mechanism_matrix,
    mechanism_record,
    parse_domain,
    registered_bound,
    restrict_domain,
)
from blanket.reports.bound_search import (  # noqa: F401  (re-exported: the search's public names)
    DEADLINE_GRACE,
    EPS0_ZERO_KIND,
    FAMILY_COST_N,
    PRECS,
    REVERIFY_COST,
    Point,
    Search,
    exhaustive_classes,
)
from blanket.reports.bound_values import FLOAT_MODEL, BoundValue  # noqa: F401
from blanket.reports.output import write_document
from flint import fmpq

if TYPE_CHECKING:
    from blanket.exact.numbers.types import IntegerInput, NumberInput
    from blanket.reports.output import Written


# ============================================================ the report
def check_bound(
    bound: Bound,
    *,
    k: IntegerInput | None = None,
    n_max: IntegerInput | None = None,
    n_exhaustive: IntegerInput = 8,
    budget: NumberInput = 120,
    progress: bool = True,
    max_evaluations: IntegerInput | None = None,
) -> dict:
    """Run the search and return the report as plain data (JSON-ready); see :func:`write_report`.

    ``budget`` (seconds) is a hard wall-clock limit; ``max_evaluations`` (optional) is a deterministic
    budget counted in evaluations of the bound (a family computation at n users counts n // FAMILY_COST_N
    more) — tests use it, so that their outcome does not depend on the machine's speed or load.
    """
    budget = arith.exact_in(budget, "--budget", lo=1, hi=10**6)
    if max_evaluations is not None:
        max_evaluations = arith.integer_in(max_evaluations, "--max-evaluations", lo=1, hi=10**9)
    s = Search(
        bound,
        k=k,
        n_max=n_max,
        n_exhaustive=n_exhaustive,
        budget=float(Fraction(int(budget.p), int(budget.q))),
        progress=progress,
        max_evaluations=max_evaluations,
    )
    s.run()
    return _report(s)


def _iv(x, nonneg: bool = False):
    if x is None:
        return None
    d = arith.nonneg_interval(x, 8) if nonneg else arith.decimal_interval(x, 8)
    if isinstance(x, fmpq):
        d["exact"] = _exact_str(x)
    return d


def _point_json(s: Search, p: Point) -> dict:
    out = {
        "phase": p.phase,
        "k": p.k,
        "n": p.n,
        "epsilon0": _exact_str(p.epsilon0),
        s.other: _exact_str(p.param),
        "outcome": p.outcome,
    }
    if p.bound is not None:
        out["bound"] = {
            "enclosure": _iv(p.bound.value) if p.bound.value is not None else "+inf",
            "floating_point": p.bound.floating,
            "returned": p.bound.raw,
        }
    if p.exact is not None:
        out["exact"] = _iv(p.exact, nonneg=True)  # an exact delta is >= 0 by definition
        out["exact_kind"] = p.exact_kind
        if p.outcome == "violated":  # as many digits as it takes for the printed numbers to show the violation
            _decisive_violation(s, p, out)
    if p.eps_used is not None:
        out["epsilon_checked"] = _exact_str(p.eps_used) if len(str(p.eps_used)) < 40 else _iv(p.eps_used)
    if p.witness:
        w = dict(p.witness)
        w.pop("class", None)
        w["value"] = _iv(w["value"])
        out["witness"] = w
    if p.reverified is not None:
        out["witness_reverified"] = p.reverified
    r = _ratio(s, p)
    if r is not None:
        out["ratio"] = r
    if p.blanket is not None:
        out["blanket_view"] = _iv(p.blanket)
        if p.bound is not None and p.bound.value is not None and arith.gt(p.bound.value, 0):
            out["blanket_over_bound"] = _iv(arith.ball(p.blanket) / arith.ball(p.bound.value))
    if p.note:
        out["note"] = p.note
    return out


def _decisive_violation(s: Search, p: Point, out: dict) -> None:
    """Print the exact lower end and the bound's upper end (δ-bounds) or the target δ (ε-bounds) with enough
    digits that ``printed exact lower > printed bound upper`` (resp. ``> target``) holds (up to 60 digits)."""
    for d in range(8, 61):
        lo = arith.decimal_string(p.exact, d, up=False)
        if lo.startswith("-"):
            lo = "0"  # delta >= 0 (see arith.NONNEG_REASON)
        if s.bound.quantity == "delta":
            if p.bound is None or p.bound.value is None:
                return
            hi = arith.decimal_string(p.bound.value, d, up=True)
        else:
            hi = None
        if arith.exact(lo) > (arith.exact(hi) if hi is not None else arith.exact(p.param)):
            out["exact"]["lower"] = lo
            if hi is not None:
                out["bound"]["enclosure"]["upper"] = hi
            return


def _ratio(s: Search, p: Point):
    """δ-bounds: exact / bound (violations) or bound / exact (tightness); ε-bounds: exact δ at ε_b / target δ.

    Each is a ratio of quantities ≥ 0, printed with a negative lower end (a ball around a tiny exact δ) as 0."""
    if p.exact is None or p.bound is None or p.bound.value is None:
        return None
    if s.bound.quantity == "delta":
        if p.outcome == "violated":
            if arith.gt(p.bound.value, 0):
                return {"exact_over_bound": _iv(arith.ball(p.exact) / arith.ball(p.bound.value), nonneg=True)}
            return {"exact_over_bound": "infinite (the bound is <= 0)"}
        if arith.gt(p.exact, 0):
            return {"bound_over_exact": _iv(arith.ball(p.bound.value) / arith.ball(p.exact), nonneg=True)}
        return None
    return {"exact_delta_over_target": _iv(arith.ball(p.exact) / arith.ball(p.param), nonneg=True)}


def _report(s: Search) -> dict:
    pts = s.points
    counts: dict[str, int] = {}
    for p in pts:
        counts[p.outcome] = counts.get(p.outcome, 0) + 1
    viol = sorted(
        [p for p in pts if p.outcome == "violated"],
        key=lambda p: (p.n, p.k, -float(arith.endpoints(_ratio_num(s, p))[0]) if _ratio_num(s, p) is not None else 0),
    )
    # one violation per (k, n, ε0, param)
    uniq, seen = [], set()
    for p in viol:
        if p.key() not in seen:
            seen.add(p.key())
            uniq.append(p)
    holds = [p for p in pts if p.outcome == "holds" and p.exact is not None]
    tight = _tightness_summary(s, holds)
    invalid = [p for p in pts if p.outcome == "invalid"][:20]
    compared = counts.get("holds", 0) + counts.get("violated", 0) + counts.get("within-float-error", 0)
    verdict = "REFUTED" if uniq else ("NOT REFUTED" if compared else "NOT CHECKED")
    ns = [p.n for p in pts if p.outcome in ("holds", "violated", "within-float-error")]
    floating = any(p.bound is not None and p.bound.floating for p in pts)
    return {
        "tool": "blanket check-bound",
        "verdict": verdict,
        "bound": s.bound.describe() | {"latex": s.bound.latex},
        "evaluation": ("floating point (the bound returned floats; error model: " + FLOAT_MODEL + ")")
        if floating
        else "exact / ball arithmetic (no floating-point caveat)",
        "float_error_model": FLOAT_MODEL if floating else None,
        "budget_seconds": s.budget,
        "budget_evaluations": s.max_evaluations,
        "evaluations": s.evaluations,
        "elapsed_seconds": round(s.elapsed(), 1),
        "stopped_by": s.stopped_by,
        "counts": counts,
        "checked_region": {
            "k": [min(s.ks), max(s.ks)],
            "n": [min(ns), max(ns)] if ns else None,
            "n_exhaustive": s.n_exhaustive,
            "epsilon0": [_exact_str(x) for x in s.eps0_grid],
            s.other: [_exact_str(x) for x in s.param_grid],
        },
        "phases": s.phases,
        "violations": [_point_json(s, p) for p in uniq[:50]],
        "violations_total": len(uniq),
        "tightness": tight,
        "within_float_error": [_point_json(s, p) for p in pts if p.outcome == "within-float-error"][:20],
        "invalid_evaluations": [_point_json(s, p) for p in invalid],
        "notes": s.notes,
        "method": (
            "Exact values are enclosures (exact rationals or arb balls) that provably contain the true "
            "hockey-stick divergence of the shuffled output; a violation means the certified lower end of "
            "the exact value exceeds the certified upper end of the bound. Small n: exact worst case over "
            "all datasets (exact.shuffled.enumerate, k-RR symmetry classes with lumping of unheld values); larger n: "
            "dataset families, which are lower bounds on the worst case (so they can refute a bound but "
            "not confirm it). 'undecided' points are those where the two enclosures still overlap at 512 bits — "
            "typically where the bound equals the exact value (it is tight there); they are never counted as "
            "violations."
        ),
    }


def _ratio_num(s, p):
    if p.bound is None or p.bound.value is None or p.exact is None:
        return None
    if s.bound.quantity == "delta":
        return arith.ball(p.exact) / arith.ball(p.bound.value) if arith.gt(p.bound.value, 0) else None
    return arith.ball(p.exact) / arith.ball(p.param)


def _tightness_summary(s: Search, holds: list) -> dict:
    rows = []
    zero = 0
    for p in holds:
        if p.phase not in ("exhaustive", "families"):
            continue
        if arith.le(p.exact, 0):
            zero += 1
            continue
        r = _ratio(s, p)
        if r is None:
            continue
        rows.append(_point_json(s, p))
    key = "bound_over_exact" if s.bound.quantity == "delta" else "exact_delta_over_target"
    vals = [r["ratio"][key] for r in rows if key in r.get("ratio", {})]
    summary: dict[str, Any] = {
        "measure": (
            "bound / exact δ (≥ 1 when the bound holds; 1 = tight)"
            if s.bound.quantity == "delta"
            else "exact δ at the claimed ε / target δ (≤ 1 when the bound holds; 1 = tight)"
        ),
        "points": len(rows),
        "zero_points": zero,
    }
    if vals:
        summary["min"] = min(vals, key=lambda d: Fraction(d["lower"]))
        summary["max"] = max(vals, key=lambda d: Fraction(d["upper"]))
    # a readable sample: the tightest and loosest few
    rows.sort(key=lambda r: Fraction(r["ratio"][key]["lower"]) if key in r.get("ratio", {}) else Fraction(0))
    summary["table"] = rows[:8] + rows[-4:] if len(rows) > 12 else rows
    bl = [r for r in rows if "blanket_over_bound" in r]
    if bl:
        summary["blanket_over_bound"] = {
            "points": len(bl),
            "min": min((r["blanket_over_bound"] for r in bl), key=lambda d: Fraction(d["lower"])),
            "max": max((r["blanket_over_bound"] for r in bl), key=lambda d: Fraction(d["upper"])),
        }
    return summary


def write_report(report: dict, outdir: str | pathlib.Path, *, stem: str = "bound_check", pdf: bool = True) -> list:
    """Write ``<stem>.json`` and ``<stem>.tex`` (and ``<stem>.pdf`` when TeX Live is available) into ``outdir``; the paths."""
    w = write_report_files(report, outdir, stem=stem, pdf=pdf)
    return [w.json, w.tex] + ([w.pdf] if w.pdf else [])


def write_report_files(
    report: dict, outdir: str | pathlib.Path, *, stem: str = "bound_check", pdf: bool = True
) -> Written:
    """As :func:`write_report`, atomically (:func:`reports.output.write_document`); returns the ``Written`` record."""

    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return write_document(
        outdir, stem, json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", render_tex(report), pdf=pdf
    )


def render_tex(report: dict) -> str:

    return latex.render("bound_check.tex.j2", r=report, preamble=latex.PREAMBLE, TeX=latex.TeX)
