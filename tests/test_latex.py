"""Tests for reports.latex: escaping (injection strings), outward rounding, sandboxed compilation."""

import os
import shutil
import subprocess

import pytest
from blanket.exact.numbers import arith
from blanket.reports import latex
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

NEEDS_TEX = "TeX Live (latexmk/pdflatex) and pdftotext are needed to compile and read PDFs"


def require_tex():
    if latex.tex_available() and shutil.which("pdftotext"):
        return
    if os.environ.get("CI") == "true":
        pytest.fail(NEEDS_TEX + " (in CI they must be installed: see .ci/run)")
    pytest.skip(NEEDS_TEX)


INJECTIONS = [
    r"\input{/etc/passwd}",
    "$x$",
    "100%",
    "#1",
    "a_b",
    "{}",
    "~",
    "^",
    "\\",
    r"\def\x{1}\x",
    "&",
    "\\end{document}",
    "%\n\\input{/etc/passwd}",
]


@pytest.mark.parametrize("s", INJECTIONS)
def test_escape_leaves_no_active_specials(s):
    out = latex.escape(s)
    # every special is preceded by a backslash-command; no raw control sequence survives
    assert "\\input" not in out and "\\def" not in out and "\\end" not in out
    for ch in "$%#&_{}":
        i = out.find(ch)
        while i != -1:
            assert i > 0 and (out[i - 1] == "\\" or out[i - 3 : i + 1] == "{}" or ch in "{}"), (s, out)
            i = out.find(ch, i + 1)


@given(st.text(max_size=40))
def test_escape_total_ascii_output(s):
    out = latex.escape(s)
    assert all(" " <= c <= "~" for c in out)


@given(st.fractions(min_value=-(10**6), max_value=10**6).filter(lambda f: f != 0), st.integers(1, 12))
def test_num_outward(f, digits):
    q = fmpq(f.numerator, f.denominator)
    up = arith.exact(arith.decimal_string(q, digits, up=True))
    down = arith.exact(arith.decimal_string(q, digits, up=False))
    assert down <= q <= up


def test_interval_of_ball_contains_it():
    with arith.precision(128):
        x = arb(2).sqrt()
        lo, hi = arith.decimal_string(x, 6, up=False), arith.decimal_string(x, 6, up=True)
        assert arith.le(arith.exact(lo), x) and arith.ge(arith.exact(hi), x)
    assert str(latex.interval(fmpq(1, 3), 3)) == "[0.333,\\,0.334]"


def test_template_escapes_by_default():
    env = latex.environment()
    t = env.from_string(r"\VAR{x} \VAR{y}")
    assert t.render(x="$%", y=latex.TeX(r"\alpha")) == r"\$\% \alpha"


@pytest.mark.tex
def test_injection_typesets_literally(tmp_path):
    require_tex()
    body = " ".join(latex.escape(s) for s in INJECTIONS)
    src = str(latex.PREAMBLE) + "\\begin{document}\nSTART " + body + " END\n\\end{document}\n"
    res = latex.compile_pdf(src, tmp_path / "x.pdf", jobname="x")
    assert res.ok, res.log_excerpt
    text = subprocess.run(["pdftotext", str(tmp_path / "x.pdf"), "-"], capture_output=True, text=True).stdout
    assert "START" in text and "END" in text and "root:" not in text
    assert "input{/etc/passwd}" in text.replace("\n", " ")


@pytest.mark.tex
def test_latex_failure_reports_log_excerpt(tmp_path):
    require_tex()
    res = latex.compile_pdf(
        str(latex.PREAMBLE) + "\\begin{document}\\undefinedmacro\\end{document}\n", tmp_path / "y.pdf", jobname="y"
    )
    assert not res.ok and res.pdf is None
    assert "Undefined control sequence" in res.log_excerpt


@pytest.mark.tex
def test_pdf_is_reproducible(tmp_path):
    require_tex()
    src = str(latex.PREAMBLE) + "\\begin{document}Hello\\end{document}\n"
    a = latex.compile_pdf(src, tmp_path / "a.pdf", jobname="doc")
    b = latex.compile_pdf(src, tmp_path / "b.pdf", jobname="doc")
    assert a.ok and b.ok
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()
