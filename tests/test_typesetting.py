"""The reports typeset: no ``[U+…]`` placeholder, no raw TeX in the text layer, no overfull box wider than a few points.

Every registered result's statement, title, status note and notes are typeset (the paper-check
report with its parameter grids left out, so that the test does not evaluate 600 grid points),
plus the grids of one paper and a certificate.  The .tex is compiled here with ``pdflatex`` so
that the LaTeX log can be read; the text layer comes from ``pdftotext``.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from blanket.proofs.core import results
from blanket.reports.cli import main
from blanket.reports.latex import PREAMBLE, TeX, display, escape, prose, render
from blanket.reports.paper_check import check_result

from tests._helpers import paper_check_report
from tests.test_latex import require_tex

#: an overfull box wider than this (in points) fails the test
TOLERANCE_PT = 5.0
#: raw TeX that must never reach the text layer
RAW_TEX = re.compile(r"\\[A-Za-z]+|[_^]\{|\u02c6")  # any control word, a script group, a typeset ^


def _compile(tmp_path, tex: str, name: str):
    (tmp_path / f"{name}.tex").write_text(tex, encoding="utf-8")
    for _ in range(2):  # longtable needs two passes to settle its column widths
        subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
            cwd=tmp_path,
            capture_output=True,
            timeout=600,
        )
    pdf = tmp_path / f"{name}.pdf"
    log = (tmp_path / f"{name}.log").read_text(encoding="utf-8", errors="replace")
    assert pdf.exists(), "LaTeX failed:\n" + "\n".join(line for line in log.splitlines() if line.startswith("!"))
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    return text, log


def _check(text: str, log: str):
    placeholders = sorted(set(re.findall(r"\[U\+[0-9A-F]+\]", text)))
    assert not placeholders, f"Unicode characters without a LaTeX form: {placeholders}"
    raw = sorted({m.group(0) for m in RAW_TEX.finditer(text)})
    assert not raw, f"raw TeX in the text layer: {raw}"
    wide = [float(w) for w in re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide\)", log)]
    too_wide = [w for w in wide if w > TOLERANCE_PT]
    assert not too_wide, f"{len(too_wide)} overfull boxes wider than {TOLERANCE_PT}pt (widest {max(too_wide)}pt)"


def _skeleton(r) -> dict:
    d = r.describe()
    return {
        **d,
        "display": display(r.statement, [h.relation for h in r.hypotheses]),
        "symbolic": {"text": "not run", "method": "typesetting test", "detail": "", "proved": None},
        "rows": [],
        "counterexamples": [],
        "finding": "not evaluated",
    }


@pytest.mark.tex
def test_paper_check_typesets(tmp_path):
    require_tex()
    items = [_skeleton(r) for r in results()]
    items += [check_result(r, quick=True) for r in results("EFMRTT19")]  # one paper's grid tables
    papers = {}
    for it in items:
        papers.setdefault(it["paper"], []).append(it)
    report = paper_check_report(
        [{"key": k, "title": k, "results": v} for k, v in papers.items()],
        grid_points=0,
        counterexamples=0,
        quick=True,
        command="pytest",
    )
    tex = render("paper_check.tex.j2", report=report, preamble=PREAMBLE, TeX=TeX)
    text, log = _compile(tmp_path, tex, "paper-check")
    _check(text, log)
    assert "Bennett" in text


@pytest.mark.tex
def test_certificate_typesets(tmp_path):
    require_tex()
    from pathlib import Path

    rc = main(
        ["certify", str(Path(__file__).parent.parent / "examples" / "fails.toml"), "-o", str(tmp_path), "--no-pdf"]
    )
    assert rc == 1
    text, log = _compile(tmp_path, (tmp_path / "certificate.tex").read_text(encoding="utf-8"), "certificate")
    _check(text, log)
    assert "FAILS" in text


def test_check_catches_each_kind_of_defect():
    """The checks above must be able to fail: feed them each defect."""
    with pytest.raises(AssertionError, match="Unicode"):
        _check("a [U+222A] b", "")
    with pytest.raises(AssertionError, match="raw TeX"):
        _check(r"D_{e^eps} and \frac{1}{2}", "")
    with pytest.raises(AssertionError, match="raw TeX"):
        _check(r"W \cup Y", "")
    with pytest.raises(AssertionError, match="overfull"):
        _check("fine", r"Overfull \hbox (42.0pt too wide) in paragraph")
    _check("fine", r"Overfull \hbox (2.1pt too wide) in paragraph")


def test_every_symbol_in_the_registry_has_a_latex_form():
    """No registered title, note or symbol description escapes to a [U+…] placeholder."""
    for r in results():
        for field in (r.title, r.status_note, r.notes, *r.symbols.values()):
            out = str(prose(field))
            assert "[U+" not in out, (r.key, field, out)
            assert "[U+" not in escape(field), (r.key, field)


def test_prose_typesets_plain_text_math_and_keeps_names():
    assert str(prose("D_{e^ε}")) == r"\ensuremath{D_{e^{\varepsilon }}}"
    assert str(prose("delta_binary_worst")) == r"delta\_binary\_worst"
    assert r"\inf_{x}" in str(prose("inf_x μ_x(y)"))
    assert r"\bar{n}" in str(prose("n̄"))
    assert "[U+" not in str(prose("∪ ⇔ ⇒ ↦ ≲ ℝ ½ b₋"))
    assert str(prose(r"\mathbb{E}[L] \cup")) == r"\ensuremath{\mathbb{E}}[L] \ensuremath{\cup }"
    assert str(prose(r"\input{/etc/passwd}")) == r"\textbackslash{}input\{/etc/passwd\}"  # anything else escaped


def test_display_breaks_instead_of_scaling():
    import sympy as sp

    x = sp.symbols("x1:30", positive=True)
    long_sum = sp.Add(*[sp.exp(-xi) / (1 + xi**2) for xi in x])
    out = str(display(sp.Le(sp.Symbol("delta"), long_sum)))
    assert out.startswith(r"\begin{align*}") and out.count(r"\\") >= 3
    assert "resizebox" not in out and "fitmath" not in out
    k, e = sp.symbols("k e", positive=True)
    assert r"- \frac{k}" not in str(display(sp.Le(sp.Symbol("d"), 1 - k / (k + e - 1))))  # combined: (e-1)/(k+e-1)


def test_no_scaled_formulas_in_templates():
    from blanket.reports.latex import TEMPLATES

    for t in TEMPLATES.glob("*.j2"):
        assert "fitmath" not in t.read_text() and "resizebox" not in t.read_text(), t.name


@pytest.mark.tex
def test_fleet_certificate_typesets(tmp_path, monkeypatch):
    require_tex()
    from tests.test_fleet_deployment import TWO

    monkeypatch.chdir(tmp_path)  # short paths in the recorded command line
    (tmp_path / "fleet.toml").write_text(TWO.format(eps="1/2", delta="0.3"), encoding="utf-8")
    rc = main(["certify", "fleet.toml", "-o", "c", "--no-pdf", "--no-plot"])
    assert rc == 0
    text, log = _compile(tmp_path, (tmp_path / "c" / "certificate.tex").read_text(encoding="utf-8"), "certificate")
    _check(text, log)
    assert "98 honest users" in text
