"""The researcher's report: every registered result against exact values (LaTeX/PDF + JSON).

For each result of ``proofs.core.results(paper)`` the report gives its label,
paper, status (with the status note and the section of ``docs/reference/``
that states it, whose README explains the statuses), its statement typeset by
``sympy.latex`` from the very object that is evaluated, the outcome of
:meth:`~proofs.core.Result.check_symbolic`, and a bound-versus-exact table
over ``Result.grid`` with ``Result.exact`` as the reference.  Nothing here is
result-specific: registering a result makes it appear.

Verdict per grid point (three-valued, on enclosures):

* upper bound vs a reference that is ``"exact"`` or ``"lower"``: the point is
  a **counterexample** when the bound is certified *below* the reference;
  **consistent** when the bound is certified ≥ an exact reference (or when
  the reference is only a lower bound and is not above the bound);
* lower bound vs ``"exact"`` / ``"upper"`` reference: counterexample when the
  bound is certified *above* it;
* no reference: the statement's own evaluation (``Result.evaluate``) where it
  has two evaluable sides, else the bound's value only.

Each row with a bound and a certainly positive reference also carries the
certified ratio bound/reference (how much a bound loses against the exact value).

``known_false`` results are expected to be refuted: the report says whether
the refutation was found ("caught") — if not, that is flagged.  Points whose
hypotheses fail are listed with the failing hypothesis; undecided points
(precision cap) are listed as undecided, never guessed.
"""

from __future__ import annotations

import importlib
import pathlib
from typing import TYPE_CHECKING, Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, Undecided
from blanket.exact.runtime.progress import Progress
from blanket.reports.certificate import to_json
from blanket.reports.certificate import versions as v
from blanket.reports.output import write_document

from .latex import PREAMBLE, TeX, display_result, render

if TYPE_CHECKING:
    from blanket.exact.runtime.progress import Progress
    from blanket.proofs.core import Result

    from .output import Written

DIGITS = 6
#: grid points per result with ``quick=True``
QUICK_POINTS = 1


#: quantities that are >= 0 by definition: a reference enclosure reaching below 0 is printed from 0, with the reason
NONNEG_QUANTITIES = frozenset({"delta", "epsilon", "renyi", "mse", "mass", "std", "probability", "failure"})


def _interval(v, nonneg: bool = False) -> dict | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return arith.nonneg_interval(v, DIGITS) if nonneg else arith.decimal_interval(v, DIGITS)
    except (BlanketError, TypeError, ValueError):
        return {"lower": str(v), "upper": str(v)}


def _ratio(bound, reference) -> dict | None:
    """Certified ``bound / reference`` (outward-rounded interval) when the reference is certainly positive."""
    try:
        if arith.sign(reference) != 1 or arith.sign(bound) is None:
            return None
        return arith.decimal_interval(arith.ball(bound) / arith.ball(reference), 4)
    except (BlanketError, TypeError, ValueError):
        return None


def _params_text(params) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def check_point(result: Result, params: dict, *, prec: int = arith.DEFAULT_PREC) -> dict:
    """Bound versus reference at one grid point (plain data)."""
    row: dict[str, Any] = {
        "params": {k: str(v) for k, v in params.items()},
        "params_text": _params_text(params),
        "bound": None,
        "reference": None,
        "reference_what": None,
        "reference_relation": None,
        "ratio": None,
        "outcome": "",
        "detail": "",
    }
    try:
        bound = None
        if result.kind in ("upper_bound", "lower_bound"):

            def compute(p):
                try:
                    return result.bound(**params)
                except Undecided:
                    return None

            bound, _ = arith.escalate(compute, lambda v: v is not None, start=prec, what=f"bound of {result.key}")
            row["bound"] = _interval(bound)
        ref = None
        if result.exact is not None:
            with arith.precision(prec):
                ref = result.exact(**params)
            row["reference"] = _interval(ref.value, nonneg=result.quantity in NONNEG_QUANTITIES)
            row["reference_what"] = ref.what
            row["reference_relation"] = ref.relation
        if ref is not None and bound is not None:
            row["ratio"] = _ratio(bound, ref.value)
            row["outcome"], detail = _compare_with_reference(result.kind, bound, ref)
            if detail:
                row["detail"] = detail
        else:
            ev = result.evaluate(prec=prec, **params)
            row["lhs"], row["rhs"] = _interval(ev.lhs), _interval(ev.rhs)
            if ev.lhs is not None and row["bound"] is None:
                row["bound"] = row["rhs"]
            if ev.holds is True:
                row["outcome"] = "holds"
            elif ev.holds is False:
                row["outcome"] = "counterexample"
                row["detail"] = "the statement's two sides are certified to violate the relation"
            elif ev.lhs is None:
                row["outcome"] = "bound only"
                row["detail"] = "no exact reference registered for this result"
            elif result.kind == "identity" and arith.ball(ev.lhs).overlaps(arith.ball(ev.rhs)):
                # balls can refute an equality but never certify one between irrational values
                row["outcome"] = "consistent"
                row["detail"] = (
                    "both sides' enclosures overlap (an equality of irrational values cannot be certified "
                    "numerically; see the symbolic check)"
                )
            else:
                row["outcome"] = "undecided"
    except HypothesisViolation as exc:
        row["outcome"] = "outside hypotheses"
        row["detail"] = f"hypothesis fails: {exc.hypothesis}"
    except Undecided as exc:
        row["outcome"] = "undecided"
        row["detail"] = str(exc)
    except BlanketError as exc:
        row["outcome"] = "error"
        row["detail"] = str(exc)
    return row


def _compare_with_reference(kind: str, bound, ref) -> tuple:
    """``(outcome, detail)`` of a bound (``kind`` ``"upper_bound"``/``"lower_bound"``) against an exact reference
    whose ``relation`` to the bounded quantity is ``"exact"``, ``"lower"`` or ``"upper"``; ``detail`` may be "".

    A bound is refuted only by a reference on the other side of it (or the exact value) that it certifiably
    crosses; a reference on its own side cannot refute it.
    """
    upper = kind == "upper_bound"
    side, other = ("upper", "lower") if upper else ("lower", "upper")
    crossed = arith.lt(bound, ref.value) if upper else arith.gt(bound, ref.value)
    if ref.relation in ("exact", other) and crossed is True:
        what = "exact value" if ref.relation == "exact" else f"certified {other} bound"
        return (
            "counterexample",
            f"the {'bound' if upper else 'lower bound'} is certified {'below' if upper else 'above'} the {what}",
        )
    if ref.relation in ("exact", other) and crossed is False:
        lower_ref = upper and ref.relation == "lower"
        return "consistent", "the reference is a lower bound on the bounded quantity" if lower_ref else ""
    if ref.relation == side:
        a = "an" if upper else "a"
        return "no comparison", f"the reference is {a} {side} bound: it cannot refute {a} {side} bound"
    return "undecided", ""


def _symbolic(result) -> dict:
    try:
        sc = result.check_symbolic()
    except Exception as exc:  # noqa: BLE001 - sympy can raise anything; the report must go on
        return {
            "proved": None,
            "method": "check_symbolic raised",
            "detail": f"{type(exc).__name__}: {exc}"[:300],
            "text": "not proved (the symbolic check raised an error)",
        }
    text = {True: "proved by sympy", False: "refuted by sympy", None: "not proved symbolically"}[sc.proved]
    return {"proved": sc.proved, "method": sc.method, "detail": str(sc.detail)[:500], "text": text}


def check_result(result: Result, *, quick: bool = False, progress: Progress | None = None) -> dict:
    """One result's section of the report (plain data)."""
    d = result.describe()
    grid = list(result.grid)[:QUICK_POINTS] if quick else list(result.grid)
    rows = []
    for params in grid:
        rows.append(check_point(result, dict(params)))
        if progress is not None:
            progress.update(note=result.key[:40])
    counter = [r for r in rows if r["outcome"] == "counterexample"]
    if result.known_false:
        finding = "known false: refutation caught" if counter else "known false: NOT caught on this grid"
    elif counter:
        finding = "FALSE: certified counterexample"
    elif rows and all(r["outcome"] in ("consistent", "holds") for r in rows):
        finding = "consistent with exact values"
    elif rows:
        finding = "no counterexample found"
    else:
        finding = "no grid registered"
    return {
        **{
            k: d[k]
            for k in (
                "key",
                "paper",
                "label",
                "title",
                "status",
                "status_note",
                "kind",
                "quantity",
                "mechanisms",
                "variant",
                "spec",
                "notes",
                "latex",
                "hypotheses",
                "known_false",
                "symbols",
            )
        },
        "display": display_result(result),
        "symbolic": _symbolic(result),
        "rows": rows,
        "counterexamples": counter,
        "finding": finding,
    }


def check_papers(paper: str | None = None, *, quick: bool = False, progress: bool = True) -> dict:
    """The full report as plain data (JSON content)."""
    core = importlib.import_module("blanket.proofs.core")

    rs = core.results(paper)
    total = sum(min(len(r.grid), QUICK_POINTS) if quick else len(r.grid) for r in rs) or 1
    out = []
    with Progress(total, "check-papers", enabled=None if progress else False) as bar:
        for r in rs:
            out.append(check_result(r, quick=quick, progress=bar))
    papers = []
    for key, title in core.PAPERS.items():
        items = [x for x in out if x["paper"] == key]
        if items:
            papers.append({"key": key, "title": title, "results": items})
    summary = {
        "results": len(out),
        "grid_points": sum(len(x["rows"]) for x in out),
        "counterexamples": sum(len(x["counterexamples"]) for x in out),
        "false_statements": [x["key"] for x in out if x["counterexamples"] and not x["known_false"]],
        "known_false_caught": [x["key"] for x in out if x["known_false"] and x["counterexamples"]],
        "known_false_missed": [x["key"] for x in out if x["known_false"] and not x["counterexamples"]],
        "symbolically_proved": sum(1 for x in out if x["symbolic"]["proved"] is True),
        "by_status": {s: sum(1 for x in out if x["status"] == s) for s in core.STATUSES},
    }
    return {
        "format": "blanket-paper-check/1",
        "paper": paper or "all",
        "quick": quick,
        "papers": papers,
        "summary": summary,
        "reproducibility": {
            "command": "blanket check-papers" + (f" --paper {paper}" if paper else "") + (" --quick" if quick else ""),
            "precision_start": arith.DEFAULT_PREC,
            "precision_cap": arith.MAX_PREC,
            "versions": versions(),
        },
    }


def versions() -> dict:

    return v()


def render_tex(report: dict) -> str:
    return render("paper_check.tex.j2", report=report, preamble=PREAMBLE, TeX=TeX)


def write(report: dict, outdir: str | pathlib.Path, *, pdf: bool = True) -> Written:
    """Write ``paper-check.tex``, ``paper-check.json`` and (with TeX Live) ``paper-check.pdf`` (atomically)."""

    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    return write_document(out, "paper-check", to_json(report), render_tex(report), pdf=pdf)
