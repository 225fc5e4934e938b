"""LaTeX for reports: a Jinja2 environment with LaTeX-safe delimiters, escaping, number formatting, compilation.

* :func:`environment` — templates in ``reports/templates/*.tex.j2`` use
  ``\\VAR{expr}`` for values, ``\\BLOCK{for ...}`` for statements and
  ``\\#{...}`` for comments (braces and ``%`` stay LaTeX's).  **Every value
  is escaped by default** (the environment's ``finalize`` escapes any plain
  string); only :class:`TeX` instances — LaTeX produced by this program, e.g.
  ``sympy.latex`` of a registered statement — pass through unchanged.  A
  deployment named ``\\input{/etc/passwd}`` therefore typesets literally.
* :func:`escape` — the escaping itself (all ten LaTeX specials, and any
  non-ASCII character that ``pdflatex`` may not know).
* :func:`num` / :func:`num_up` / :func:`num_down` / :func:`interval` —
  numbers printed from enclosures with outward rounding (an upper bound is
  rounded up, a lower bound down), as LaTeX.
* :func:`compile_pdf` — ``latexmk -pdf -halt-on-error -no-shell-escape`` in a
  temporary directory, with ``openin_any=p``/``openout_any=p`` (kpathsea's
  paranoid mode: no reading or writing of absolute paths or ``..``), a
  timeout, and a log excerpt when it fails.  PDFs are byte-reproducible: the
  templates set ``\\pdfinfoomitdate=1`` and an empty ``\\pdftrailerid``, and
  ``SOURCE_DATE_EPOCH`` is passed through (with ``FORCE_SOURCE_DATE=1``).

>>> escape(r"\\input{/etc/passwd} 50% $x_1$ #1 ~ ^")
'\\\\textbackslash{}input\\\\{/etc/passwd\\\\} 50\\\\% \\\\$x\\\\_1\\\\$ \\\\#1 \\\\textasciitilde{} \\\\textasciicircum{}'
>>> from flint import fmpq
>>> str(num_up(fmpq(1, 3), 3)), str(num_down(fmpq(1, 3), 3))
('0.334', '0.333')
>>> str(num_up(fmpq(1, 3 * 10**7), 3))
'3.34\\\\times 10^{-8}'
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unicodedata
from typing import Optional

import jinja2

from blanket.exact import arith

TEMPLATES = pathlib.Path(__file__).parent / "templates"

INSTALL_HINT = ("TeX Live is not installed, so no PDF was made (the .tex and .json were written); install it with "
                "`apt-get install texlive-latex-base texlive-latex-recommended latexmk` (Debian/Ubuntu) or "
                "`brew install --cask mactex-no-gui` (macOS) and run the command again, or compile the .tex with pdflatex")


class TeX(str):
    """A string that is already LaTeX (produced by this program); it is not escaped again."""

    __slots__ = ()

    def __add__(self, other):
        return TeX(str.__add__(self, other if isinstance(other, TeX) else escape(other)))


_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%",
    "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
    "\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " ",
}
_GREEK = {
    "α": r"\ensuremath{\alpha}", "β": r"\ensuremath{\beta}", "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}", "ε": r"\ensuremath{\varepsilon}", "λ": r"\ensuremath{\lambda}",
    "μ": r"\ensuremath{\mu}", "ω": r"\ensuremath{\omega}", "τ": r"\ensuremath{\tau}", "σ": r"\ensuremath{\sigma}",
    "≤": r"\ensuremath{\le}", "≥": r"\ensuremath{\ge}", "–": "--", "—": "---", "…": r"\ldots{}",
    "×": r"\ensuremath{\times}", "✔": r"\ensuremath{\checkmark}", "§": r"\S{}", "∞": r"\ensuremath{\infty}",
    "≈": r"\ensuremath{\approx}", "∈": r"\ensuremath{\in}", "√": r"\ensuremath{\surd}", "′": "'", "≠": r"\ensuremath{\neq}",
    "Ω": r"\ensuremath{\Omega}", "Δ": r"\ensuremath{\Delta}", "Γ": r"\ensuremath{\Gamma}", "ρ": r"\ensuremath{\rho}",
    "θ": r"\ensuremath{\theta}", "π": r"\ensuremath{\pi}", "η": r"\ensuremath{\eta}", "ν": r"\ensuremath{\nu}",
    "κ": r"\ensuremath{\kappa}", "ϵ": r"\ensuremath{\epsilon}", "φ": r"\ensuremath{\varphi}", "ψ": r"\ensuremath{\psi}",
    "χ": r"\ensuremath{\chi}", "ζ": r"\ensuremath{\zeta}", "ξ": r"\ensuremath{\xi}", "→": r"\ensuremath{\to}",
    "⌊": r"\ensuremath{\lfloor}", "⌋": r"\ensuremath{\rfloor}", "⌈": r"\ensuremath{\lceil}", "⌉": r"\ensuremath{\rceil}",
    "²": r"\ensuremath{^2}", "³": r"\ensuremath{^3}", "₀": r"\ensuremath{_0}", "₁": r"\ensuremath{_1}", "₂": r"\ensuremath{_2}",
    "±": r"\ensuremath{\pm}", "∑": r"\ensuremath{\sum}", "≃": r"\ensuremath{\simeq}", "⁻": r"\ensuremath{^-}",
    "¹": r"\ensuremath{^1}", "⁴": r"\ensuremath{^4}", "°": r"\ensuremath{^\circ}", "Σ": r"\ensuremath{\Sigma}", "₊": r"\ensuremath{_+}", "∫": r"\ensuremath{\int}",
    "ₘ": r"\ensuremath{_m}", "ₙ": r"\ensuremath{_n}", "ᵢ": r"\ensuremath{_i}", "ⁿ": r"\ensuremath{^n}", "∧": r"\ensuremath{\wedge}",
    "∨": r"\ensuremath{\vee}", "⋅": r"\ensuremath{\cdot}", "∂": r"\ensuremath{\partial}", "ℓ": r"\ensuremath{\ell}",
    "Λ": r"\ensuremath{\Lambda}", "Π": r"\ensuremath{\Pi}", "Θ": r"\ensuremath{\Theta}", "Φ": r"\ensuremath{\Phi}",
    "⟨": r"\ensuremath{\langle}", "⟩": r"\ensuremath{\rangle}", "≪": r"\ensuremath{\ll}", "≫": r"\ensuremath{\gg}",
    "∀": r"\ensuremath{\forall}", "∃": r"\ensuremath{\exists}", "⊆": r"\ensuremath{\subseteq}", "∘": r"\ensuremath{\circ}",
    "µ": r"\ensuremath{\mu}", "ε̄": r"\ensuremath{\bar\varepsilon}", "∼": r"\ensuremath{\sim}", "‖": r"\ensuremath{\|}", "’": "'", "‘": "`", "“": "``", "”": "''", "−": "-", "·": r"\ensuremath{\cdot}",
}
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0327": "c", "\u030c": "v"}


def escape(text) -> str:
    """Escape any value for LaTeX text mode so that it typesets literally.

    The ten specials ``\\ { } $ & % # _ ~ ^`` and ``< > | "`` are replaced by
    their text-mode commands; control characters become spaces; Greek letters
    and common symbols are mapped to math; accented Latin letters to accent
    commands; any other non-ASCII character is printed as ``[U+XXXX]`` (never
    passed raw to pdflatex, whose failure would lose the PDF).

    >>> escape("a_b & c")
    'a\\\\_b \\\\& c'
    >>> escape("Café ε")
    "Caf\\\\'{e} \\\\ensuremath{\\\\varepsilon}"
    >>> escape("日")
    '[U+65E5]'
    """
    if isinstance(text, TeX):
        return str(text)
    out = []
    for ch in str(text):
        if ch in _SPECIALS:
            out.append(_SPECIALS[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ch in _GREEK:
            out.append(_GREEK[ch])
        else:
            decomp = unicodedata.normalize("NFD", ch)
            if len(decomp) == 2 and " " <= decomp[0] <= "~" and decomp[0].isalpha() and decomp[1] in _ACCENTS:
                out.append("\\" + _ACCENTS[decomp[1]] + "{" + decomp[0] + "}")
            elif ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0:
                out.append(" ")
            else:
                out.append(f"[U+{ord(ch):04X}]")
    return "".join(out)


def breakable(text) -> TeX:
    """Escaped text with break points after ``/``, ``_``, ``.`` and ``-`` (for paths in narrow table columns).

    >>> print(breakable("a_b/c"))
    a\\_\\allowbreak{}b/\\allowbreak{}c
    """
    out = []
    for ch in str(text):
        out.append(escape(ch))
        if ch in "/_.-":
            out.append(r"\allowbreak{}")
    return TeX("".join(out))


def texttt(text) -> TeX:
    """User text in typewriter type, escaped, breakable (for paths, hashes, commands)."""
    return TeX(r"\texttt{" + escape(text) + "}")


# ------------------------------------------------------------ numbers
def _sci_to_tex(s: str) -> str:
    m = re.fullmatch(r"(-?[0-9.]+)e([+-]\d+)", s)
    if not m:
        return s
    mant, e = m.groups()
    e = int(e)
    return (mant + r"\times " if mant not in ("1", "-1") else ("-" if mant == "-1" else "")) + f"10^{{{e}}}"


def num_up(x, digits: int = 6) -> TeX:
    """The upper end of ``x`` (ball or exact) rounded *up* to ``digits`` significant digits, as LaTeX (math mode)."""
    return TeX(_sci_to_tex(arith.decimal_string(x, digits, up=True)))


def num_down(x, digits: int = 6) -> TeX:
    """The lower end of ``x`` rounded *down* to ``digits`` significant digits, as LaTeX (math mode)."""
    return TeX(_sci_to_tex(arith.decimal_string(x, digits, up=False)))


def decimal_to_tex(s: str) -> TeX:
    """A decimal string (already rounded, e.g. from JSON) as LaTeX math.

    >>> str(decimal_to_tex("1.5e-7"))
    '1.5\\\\times 10^{-7}'
    """
    if not re.fullmatch(r"-?[0-9.]+(e[+-]\d+)?", s):
        return TeX(escape(s))
    return TeX(_sci_to_tex(s))


def exact_to_tex(q) -> TeX:
    """An exact rational as LaTeX: decimal when it terminates within 12 digits, else a fraction.

    >>> str(exact_to_tex(arith.exact("1e-6"))), str(exact_to_tex(arith.exact("1/3")))
    ('10^{-6}', '\\\\frac{1}{3}')
    """
    s = exact_string(q)
    if "/" in s:
        p, d = s.split("/")
        sign = "-" if p.startswith("-") else ""
        return TeX(f"{sign}\\frac{{{p.lstrip('-')}}}{{{d}}}")
    return decimal_to_tex(s)


def exact_string(q) -> str:
    """An exact rational as a plain string: an exact decimal (``"1e-6"``, ``"0.25"``) when one of ≤ 40 digits exists, else ``"p/q"``.

    >>> exact_string(arith.exact("1e-6")), exact_string(arith.exact("0.25")), exact_string(arith.exact("1/3"))
    ('1e-6', '0.25', '1/3')
    """
    q = arith.exact(q)
    up = arith.decimal_string(q, 40, up=True)
    if arith.exact(up) == q:
        return up
    return f"{int(q.p)}/{int(q.q)}"


def interval(x, digits: int = 6) -> TeX:
    """``[lower, upper]`` outward rounded, or the single number when both ends print alike."""
    lo, hi = arith.decimal_string(x, digits, up=False), arith.decimal_string(x, digits, up=True)
    if lo == hi:
        return TeX(_sci_to_tex(lo))
    return TeX(f"[{_sci_to_tex(lo)},\\,{_sci_to_tex(hi)}]")


# ------------------------------------------------------------ templates
def _finalize(value):
    if value is None:
        return ""
    if isinstance(value, TeX):
        return str(value)
    return escape(value)


def environment() -> jinja2.Environment:
    """The Jinja2 environment for ``reports/templates`` (LaTeX-safe delimiters, escaping by default).

    >>> env = environment()
    >>> str(env.from_string(r"\\textbf{\\VAR{name}} \\VAR{tex}").render(name="a_b", tex=TeX(r"\\alpha")))
    '\\\\textbf{a\\\\_b} \\\\alpha'
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix="%%", line_comment_prefix="%#",
        trim_blocks=True, lstrip_blocks=True, autoescape=False,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters.update(e=lambda v: TeX(escape(v)), tt=texttt, brk=breakable, up=num_up, down=num_down,
                       interval=interval, dec=decimal_to_tex, exact=exact_to_tex, tex=lambda v: TeX(str(v)))
    return env


def render(template: str, **context) -> str:
    """Render ``reports/templates/<template>`` with ``context``."""
    return environment().get_template(template).render(**context)


# ------------------------------------------------------------ compilation
@dataclasses.dataclass(frozen=True)
class CompileResult:
    """Outcome of :func:`compile_pdf`: ``ok``, the PDF path (or ``None``) and, on failure, a message and log excerpt."""

    ok: bool
    pdf: Optional[pathlib.Path]
    message: str = ""
    log_excerpt: str = ""


def tex_available() -> bool:
    """True when ``latexmk`` and ``pdflatex`` are on the PATH."""
    return shutil.which("latexmk") is not None and shutil.which("pdflatex") is not None


def log_excerpt(log: str, *, context: int = 6, limit: int = 40) -> str:
    """The error lines of a LaTeX log (lines starting with ``!`` or ``file:line:`` and a few after), at most ``limit`` lines."""
    lines = log.splitlines()
    keep = []
    for i, line in enumerate(lines):
        if line.startswith("!") or re.match(r"^[^:\s]+\.tex:\d+:", line):
            keep.extend(lines[i:i + context])
            keep.append("...")
        if len(keep) >= limit:
            break
    if not keep:
        keep = lines[-limit:]
    return "\n".join(keep[:limit])


def compile_pdf(tex_source: str, pdf_path: pathlib.Path, *, jobname: str = "document", timeout: int = 600) -> CompileResult:
    """Compile ``tex_source`` to ``pdf_path`` with latexmk in a fresh temporary directory.

    Runs ``latexmk -pdf -halt-on-error -no-shell-escape -interaction=nonstopmode``
    with kpathsea's paranoid file access (``openin_any=p``, ``openout_any=p``).
    Returns a :class:`CompileResult`; never raises for a LaTeX error (the
    caller has already written the .tex and .json).
    """
    pdf_path = pathlib.Path(pdf_path)
    if not tex_available():
        return CompileResult(False, None, INSTALL_HINT)
    env = dict(os.environ)
    env.update(openin_any="p", openout_any="p", shell_escape="f")
    if "SOURCE_DATE_EPOCH" in env:
        env["FORCE_SOURCE_DATE"] = "1"
    with tempfile.TemporaryDirectory(prefix="blanket-tex-") as tmp:
        tmpdir = pathlib.Path(tmp)
        (tmpdir / f"{jobname}.tex").write_text(tex_source, encoding="utf-8")
        cmd = ["latexmk", "-pdf", "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode",
               "-file-line-error", f"-jobname={jobname}", f"{jobname}.tex"]
        # own process group, so that an interruption (SIGTERM, Ctrl-C, timeout) kills pdflatex too before
        # the temporary directory is removed
        try:
            proc = subprocess.Popen(cmd, cwd=tmpdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            return CompileResult(False, None, f"could not run latexmk: {exc}")
        try:
            out, _ = proc.communicate(timeout=timeout)
        except BaseException as exc:
            _kill_group(proc)
            if isinstance(exc, subprocess.TimeoutExpired):
                return CompileResult(False, None, f"LaTeX compilation timed out after {timeout} s")
            raise
        produced = tmpdir / f"{jobname}.pdf"
        if proc.returncode != 0 or not produced.exists():
            log_file = tmpdir / f"{jobname}.log"
            log = (log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else
                   (out or b"").decode("utf-8", errors="replace"))
            return CompileResult(False, None, f"LaTeX failed (latexmk exit {proc.returncode})", log_excerpt(log))
        from .output import atomic_write
        pdf_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(pdf_path, produced.read_bytes())
    return CompileResult(True, pdf_path)


def _kill_group(proc) -> None:
    """Kill ``proc``'s whole process group (latexmk and its pdflatex) and reap it."""
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass


PREAMBLE = TeX(r"""\pdfinfoomitdate=1
\pdftrailerid{}
\pdfsuppressptexinfo=-1
\documentclass[10pt,a4paper]{article}
\usepackage[T1]{fontenc}
\IfFileExists{lmodern.sty}{\usepackage{lmodern}}{}
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{array,booktabs,longtable}
\newcommand{\fitmath}[1]{\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{$\displaystyle #1$}}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5em}
\sloppy
""")
