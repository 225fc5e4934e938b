"""Snapshot of everything the proofs registry exposes, to guard refactorings of ``proofs/`` (issue 15).

``registry_snapshot()`` records, for every registered result in registration order, every :class:`Result` field
that is data (key, paper, label, variant, title, status, status_note, spec, notes, kind, quantity, mechanisms with
their container type, symbols with their sympy assumptions, hypotheses with their relations, the grid with its
value types, known_false), ``describe()``, the typeset display and which code fields are present.
``report_snapshot()`` is the full ``check_papers`` report (every grid point evaluated, every symbolic check run)
without the version stamp.  The committed files ``tests/data/proofs_registry.json`` and
``tests/data/proofs_report.json`` were written by the unchanged code (main at 17029f6) with::

    PYTHONPATH=. python3 tests/proofs_snapshot.py write

Results registered since are added without rewriting the rest (the full ``write`` takes ~30 min): the registry file
by ``proofs_snapshot.py registry`` (quick), the report by appending ``check_result(get(key), quick=False)`` to its
paper's section and updating the summary's counts (session 10: "Worst-case curve pair", "Matrix binarized lower
pair").
"""

from __future__ import annotations

import json
import pathlib
import sys

DATA = pathlib.Path(__file__).parent / "data"
REGISTRY_FILE = DATA / "proofs_registry.json"
REPORT_FILE = DATA / "proofs_report.json"


def _value(v):
    return {"type": type(v).__name__, "value": str(v)}


def _symbol(s):
    return {"name": s.name, "assumptions": sorted(k for k, v in s.assumptions0.items() if v)}


_SYMBOL_CALL = __import__("re").compile(r"(Symbol|Dummy)\('([^']*)'((?:, \w+=\w+)*)\)")


def _srepr(expr) -> str:
    """``sympy.srepr`` with each symbol's assumptions in sorted order: sympy caches a symbol with the keyword order
    of its first construction, so the plain srepr depended on which module (or test) built ``n`` first."""

    def canon(m):
        kw = sorted(a for a in m.group(3).split(", ") if a)
        return f"{m.group(1)}('{m.group(2)}'" + "".join(", " + a for a in kw) + ")"

    return _SYMBOL_CALL.sub(canon, __import__("sympy").srepr(expr))


def result_snapshot(r) -> dict:
    from blanket.reports.latex import display_result

    return {
        "key": r.key,
        "describe": r.describe(),
        "display": display_result(r),
        "statement": {"srepr": _srepr(r.statement)},
        "symbols": [[_symbol(s), d] for s, d in r.symbols.items()],
        "hypotheses": [[_srepr(h.relation), h.text] for h in r.hypotheses],
        "mechanisms_type": type(r.mechanisms).__name__,
        "hypotheses_type": type(r.hypotheses).__name__,
        "grid_type": type(r.grid).__name__,
        "grid": [{k: _value(v) for k, v in p.items()} for p in r.grid],
        "numeric_sides": sorted(r.numeric),
        "has_symbolic": r.symbolic is not None,
        "has_exact": r.exact is not None,
    }


def registry_snapshot() -> list:
    from blanket.proofs import core

    return [result_snapshot(r) for r in core.results()]


def report_snapshot() -> dict:
    from blanket.reports.paper_check import check_papers

    rep = check_papers(quick=False, progress=False)
    rep["reproducibility"].pop("versions", None)
    return json.loads(json.dumps(rep, default=str))


def main(argv):
    if argv[1:] == ["write"]:
        DATA.mkdir(exist_ok=True)
        REGISTRY_FILE.write_text(json.dumps(registry_snapshot(), indent=1, ensure_ascii=False) + "\n")
        REPORT_FILE.write_text(json.dumps(report_snapshot(), indent=1, ensure_ascii=False) + "\n")
    elif argv[1:] == ["registry"]:
        DATA.mkdir(exist_ok=True)
        REGISTRY_FILE.write_text(json.dumps(registry_snapshot(), indent=1, ensure_ascii=False) + "\n")
    else:
        raise SystemExit("usage: proofs_snapshot.py write|registry")


if __name__ == "__main__":
    main(sys.argv)
