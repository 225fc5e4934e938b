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

import copy
import pathlib
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import jinja2
import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.types import NumberOrBall
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.pretty_symbology import pretty_use_unicode
from sympy.printing.pretty.stringpict import prettyForm

from .numtext import exact_string  # noqa: F401  (re-exported)
from .tex_build import INSTALL_HINT, CompileResult, compile_pdf, log_excerpt, tex_available  # noqa: F401  (re-exported)

TEMPLATES = pathlib.Path(__file__).parent / "templates"


class TeX(str):
    """A string that is already LaTeX (produced by this program); it is not escaped again."""

    __slots__ = ()

    def __add__(self, other):
        return TeX(str.__add__(self, other if isinstance(other, TeX) else escape(other)))


_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
    "\n": " ",
    "\r": " ",
    "\t": " ",
    "\f": " ",
    "\v": " ",
}
_GREEK = {
    "α": r"\ensuremath{\alpha}",
    "β": r"\ensuremath{\beta}",
    "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}",
    "ε": r"\ensuremath{\varepsilon}",
    "λ": r"\ensuremath{\lambda}",
    "μ": r"\ensuremath{\mu}",
    "ω": r"\ensuremath{\omega}",
    "τ": r"\ensuremath{\tau}",
    "σ": r"\ensuremath{\sigma}",
    "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "×": r"\ensuremath{\times}",
    "✔": r"\ensuremath{\checkmark}",
    "§": r"\S{}",
    "∞": r"\ensuremath{\infty}",
    "⊥": r"\ensuremath{\perp}",
    "≈": r"\ensuremath{\approx}",
    "∈": r"\ensuremath{\in}",
    "√": r"\ensuremath{\surd}",
    "′": "'",
    "≠": r"\ensuremath{\neq}",
    "Ω": r"\ensuremath{\Omega}",
    "Δ": r"\ensuremath{\Delta}",
    "Γ": r"\ensuremath{\Gamma}",
    "ρ": r"\ensuremath{\rho}",
    "θ": r"\ensuremath{\theta}",
    "π": r"\ensuremath{\pi}",
    "η": r"\ensuremath{\eta}",
    "ν": r"\ensuremath{\nu}",
    "κ": r"\ensuremath{\kappa}",
    "ϵ": r"\ensuremath{\epsilon}",
    "φ": r"\ensuremath{\varphi}",
    "ψ": r"\ensuremath{\psi}",
    "χ": r"\ensuremath{\chi}",
    "ζ": r"\ensuremath{\zeta}",
    "ξ": r"\ensuremath{\xi}",
    "→": r"\ensuremath{\to}",
    "⌊": r"\ensuremath{\lfloor}",
    "⌋": r"\ensuremath{\rfloor}",
    "⌈": r"\ensuremath{\lceil}",
    "⌉": r"\ensuremath{\rceil}",
    "²": r"\ensuremath{^2}",
    "³": r"\ensuremath{^3}",
    "₀": r"\ensuremath{_0}",
    "₁": r"\ensuremath{_1}",
    "₂": r"\ensuremath{_2}",
    "±": r"\ensuremath{\pm}",
    "∑": r"\ensuremath{\sum}",
    "≃": r"\ensuremath{\simeq}",
    "⁻": r"\ensuremath{^-}",
    "¹": r"\ensuremath{^1}",
    "⁴": r"\ensuremath{^4}",
    "°": r"\ensuremath{^\circ}",
    "Σ": r"\ensuremath{\Sigma}",
    "₊": r"\ensuremath{_+}",
    "∫": r"\ensuremath{\int}",
    "ₘ": r"\ensuremath{_m}",
    "ₙ": r"\ensuremath{_n}",
    "ᵢ": r"\ensuremath{_i}",
    "ⁿ": r"\ensuremath{^n}",
    "∧": r"\ensuremath{\wedge}",
    "∨": r"\ensuremath{\vee}",
    "⋅": r"\ensuremath{\cdot}",
    "∂": r"\ensuremath{\partial}",
    "ℓ": r"\ensuremath{\ell}",
    "Λ": r"\ensuremath{\Lambda}",
    "Π": r"\ensuremath{\Pi}",
    "Θ": r"\ensuremath{\Theta}",
    "Φ": r"\ensuremath{\Phi}",
    "⟨": r"\ensuremath{\langle}",
    "⟩": r"\ensuremath{\rangle}",
    "≪": r"\ensuremath{\ll}",
    "≫": r"\ensuremath{\gg}",
    "∀": r"\ensuremath{\forall}",
    "∃": r"\ensuremath{\exists}",
    "⊆": r"\ensuremath{\subseteq}",
    "∘": r"\ensuremath{\circ}",
    "∪": r"\ensuremath{\cup}",
    "∩": r"\ensuremath{\cap}",
    "⇔": r"\ensuremath{\Leftrightarrow}",
    "⇒": r"\ensuremath{\Rightarrow}",
    "⇐": r"\ensuremath{\Leftarrow}",
    "↦": r"\ensuremath{\mapsto}",
    "≲": r"\ensuremath{\lesssim}",
    "≳": r"\ensuremath{\gtrsim}",
    "ℝ": r"\ensuremath{\mathbb{R}}",
    "ℕ": r"\ensuremath{\mathbb{N}}",
    "ℤ": r"\ensuremath{\mathbb{Z}}",
    "½": r"\ensuremath{\tfrac{1}{2}}",
    "¼": r"\ensuremath{\tfrac{1}{4}}",
    "¾": r"\ensuremath{\tfrac{3}{4}}",
    "₋": r"\ensuremath{_-}",
    "₃": r"\ensuremath{_3}",
    "₄": r"\ensuremath{_4}",
    "ₖ": r"\ensuremath{_k}",
    "ⱼ": r"\ensuremath{_j}",
    "⁺": r"\ensuremath{^+}",
    "⁵": r"\ensuremath{^5}",
    "∉": r"\ensuremath{\notin}",
    "∅": r"\ensuremath{\emptyset}",
    "⊂": r"\ensuremath{\subset}",
    "⊇": r"\ensuremath{\supseteq}",
    "∝": r"\ensuremath{\propto}",
    "≡": r"\ensuremath{\equiv}",
    "∓": r"\ensuremath{\mp}",
    "≅": r"\ensuremath{\cong}",
    "←": r"\ensuremath{\leftarrow}",
    "↔": r"\ensuremath{\leftrightarrow}",
    "⊗": r"\ensuremath{\otimes}",
    "∗": r"\ensuremath{\ast}",
    "∣": r"\ensuremath{\mid}",
    "ϕ": r"\ensuremath{\phi}",
    "ϑ": r"\ensuremath{\vartheta}",
    "ς": r"\ensuremath{\varsigma}",
    "υ": r"\ensuremath{\upsilon}",
    "ι": r"\ensuremath{\iota}",
    "ο": "o",
    "Ψ": r"\ensuremath{\Psi}",
    "Ξ": r"\ensuremath{\Xi}",
    "Υ": r"\ensuremath{\Upsilon}",
    "\u00a0": "~",
    "\u2009": r"\,",
    "\u202f": r"\,",
    "\u2011": "-",
    "‐": "-",
    "‒": "--",
    "⩽": r"\ensuremath{\le}",
    "⩾": r"\ensuremath{\ge}",
    "✓": r"\ensuremath{\checkmark}",
    "✗": r"\ensuremath{\times}",
    "•": r"\textbullet{}",
    "µ": r"\ensuremath{\mu}",
    "ε̄": r"\ensuremath{\bar\varepsilon}",
    "∼": r"\ensuremath{\sim}",
    "‖": r"\ensuremath{\|}",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "−": "-",
    "·": r"\ensuremath{\cdot}",
}
#: combining marks over a letter typeset as math accents (n̄, γ̄, x̂, x̃)
_MATH_ACCENTS = {"\u0304": r"\bar", "\u0302": r"\hat", "\u0303": r"\tilde", "\u0307": r"\dot"}
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0327": "c", "\u030c": "v"}


def escape(text: object) -> str:
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
    text = str(text)
    for i, ch in enumerate(text):
        if ch in _MATH_ACCENTS:
            continue  # typeset with the letter before it
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if nxt in _MATH_ACCENTS and (ch.isalpha() or ch in _GREEK):
            out.append(r"\ensuremath{" + _MATH_ACCENTS[nxt] + "{" + _math_char(ch) + "}}")
        elif ch in _SPECIALS:
            out.append(_SPECIALS[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ch in _GREEK:
            out.append(_GREEK[ch])
        else:
            decomp = unicodedata.normalize("NFD", ch)
            if len(decomp) == 2 and " " <= decomp[0] <= "~" and decomp[0].isalpha() and decomp[1] in _ACCENTS:
                out.append("\\" + _ACCENTS[decomp[1]] + "{" + decomp[0] + "}")
            elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0:
                out.append(" ")
            else:
                out.append(f"[U+{ord(ch):04X}]")
    return "".join(out)


def _math_char(ch: str) -> str:
    """One character as math-mode LaTeX (Greek and symbols by their macros, specials escaped)."""
    if ch in _GREEK:
        t = _GREEK[ch]
        t = t[len(r"\ensuremath{") : -1] if t.startswith(r"\ensuremath{") else escape(ch)
        return t + " " if re.search(r"\\[A-Za-z]+$", t) else t
    if ch == "−":
        return "-"
    if ch in "\\$&%#":
        return {"\\": r"\backslash{}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#"}[ch]
    if ch == "~":
        return r"\sim{}"
    if ch == " ":
        return r"\ "
    if ch == '"':
        return "''"
    if " " <= ch <= "~":
        return ch
    return escape(ch)


_OPERATORS = ("inf", "sup", "max", "min", "lim")
#: TeX commands allowed through :func:`prose` (from sympy symbol names); anything else is escaped
_TEX_WORDS = {
    "cup",
    "cap",
    "le",
    "ge",
    "leq",
    "geq",
    "sum",
    "int",
    "infty",
    "circ",
    "cdot",
    "times",
    "ldots",
    "sim",
    "to",
    "in",
    "mid",
    "varepsilon",
    "epsilon",
    "delta",
    "gamma",
    "lambda",
    "mu",
    "nu",
    "omega",
    "rho",
    "tau",
    "kappa",
    "sigma",
    "theta",
    "Phi",
    "Gamma",
    "Omega",
    "ell",
    "pm",
}
_TEX_FONT = re.compile(r"\\(?:mathbb|mathcal|mathrm)\{[A-Za-z]+\}")
_TEX_WORD = re.compile(r"\\([A-Za-z]+)")


def _is_letter(ch: str) -> bool:
    """A Greek letter (ε, λ, …): followed by a digit it reads as a subscript (ε0 is ε with subscript 0)."""
    return ch in _GREEK and unicodedata.category(ch).startswith("L")


def _script_arg(text: str, i: int) -> tuple[str, int]:
    """The argument of a ``^``/``_`` starting at ``text[i]``: a balanced ``{...}`` group or a short token."""
    if i < len(text) and text[i] == "{":
        depth, j = 0, i
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return text[i + 1 : j], j + 1
            j += 1
        return "", i  # unbalanced: not a script
    j = i
    sign = text[j] if j < len(text) and text[j] in "+-−" else ""
    if j + len(sign) < len(text) and text[j + len(sign)] == "(":  # r^(tau+1), e^-(D+1)
        depth, k = 0, j + len(sign)
        while k < len(text):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                inner = text[j + len(sign) + 1 : k]
                return (sign + "(" + inner + ")" if sign else inner), k + 1
            k += 1
        return "", i
    if j < len(text) and text[j] in _GREEK and not _is_letter(text[j]):  # ^∞
        return text[j], j + 1
    if j < len(text) and text[j] in "+-−'":
        j += 1
        if j >= len(text) or not ((text[j].isascii() and text[j].isalnum()) or _is_letter(text[j])):
            return text[i:j], j  # b_+, b_-
    while j < len(text) and ((text[j].isascii() and text[j].isalnum()) or _is_letter(text[j])):
        j += 1
    return text[i:j], j


def _math(text: str) -> str:
    """Plain-text math (``e^{−ε0}``, ``W_{1..m}``) as math-mode LaTeX; a Greek letter followed by a digit gets it as a subscript."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        m = (_TEX_FONT.match(text, i) or _TEX_WORD.match(text, i)) if ch == "\\" else None
        if m and (m.re is _TEX_FONT or m.group(1) in _TEX_WORDS):
            out.append(m.group(0) + ("" if m.re is _TEX_FONT else " "))
            i = m.end()
            continue
        if ch in "^_":
            arg, j = _script_arg(text, i + 1)
            if j > i + 1:
                out.append(ch + "{" + _math(arg) + "}")
                i = j
                continue
            out.append(r"\_" if ch == "_" else r"\hat{}")
        elif ch in "{}":
            out.append("\\" + ch)
        elif _is_letter(ch) and i + 1 < len(text) and text[i + 1] in "0123456789":
            out.append(_math_char(ch) + "_{" + text[i + 1] + "}")
            i += 2
            continue
        else:
            out.append(_math_char(ch))
        i += 1
    return "".join(out)


def prose(text: object) -> TeX:
    r"""Program-written text (titles, notes) with its plain-text math typeset: ``D_{e^ε}``, ``e^{−ε0}``, ``L_i``, ``ε0``.

    Everything is escaped as by :func:`escape`; only ``^``/``_`` scripts (a
    ``{...}`` group, or one short token after ``_`` on a one- or two-letter
    base — ``snake_case`` names stay literal) and a Greek letter followed by a
    digit (``ε0`` is ε with subscript 0) become math.  Use it for text this
    program writes, not for user-supplied names.

    >>> print(prose("D_{e^ε}(P ‖ Q) and ε0 ≤ 1/2"))
    \ensuremath{D_{e^{\varepsilon }}}(P \ensuremath{\|} Q) and \ensuremath{\varepsilon _{0}} \ensuremath{\le} 1/2
    >>> print(prose("exact.shuffled.binary.delta_binary_worst, L_i"))
    exact.shuffled.binary.delta\_binary\_worst, \ensuremath{L_{i}}
    """
    if isinstance(text, TeX):
        return text
    text = str(text)
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":  # a few TeX commands that sympy symbol names carry (\mathbb{E}, \cup, \{): typeset them
            m = _TEX_FONT.match(text, i) or _TEX_WORD.match(text, i)
            if m and (m.re is _TEX_FONT or m.group(1) in _TEX_WORDS):
                out.append(r"\ensuremath{" + m.group(0) + (" " if m.re is _TEX_WORD else "") + "}")
                i = m.end()
                continue
            if text[i + 1 : i + 2] in ("{", "}"):
                out.append("\\" + text[i + 1])
                i += 2
                continue
            if text[i + 1 : i + 2] == "|":
                out.append(r"\ensuremath{\|}")
                i += 2
                continue
        if ch in "^_":
            # the base: the run of letters/digits (or one Greek letter) just before the script
            k = i
            while k > 0 and ((text[k - 1].isascii() and text[k - 1].isalnum()) or _is_letter(text[k - 1])):
                k -= 1
            base = text[k:i]
            arg, j = _script_arg(text, i + 1)
            short_base = len(base) <= 2 or base in _OPERATORS or (len(base) <= 3 and base[-1].isdigit())
            is_script = j > i + 1 and (
                ch == "^"
                or text[i + 1] == "{"
                or (short_base and len(arg) <= 2 and not (j < len(text) and text[j].isalpha() and text[j] != "x"))
            )
            if ch == "_" and not text[i + 1 : i + 2] == "{" and not short_base:
                is_script = False
            if is_script and base in _OPERATORS and out and out[-1] == base:
                out.pop()
                out.append("\\ensuremath{\\" + base + ch + "{" + _math(arg) + "}}")
                i = j
                continue
            if is_script:
                # take the base into the math group when it was emitted as plain text just before
                if base and all(c.isascii() for c in base) and len(base) <= 2 and out and out[-1] == base:
                    out.pop()
                    out.append(r"\ensuremath{" + base + ch + "{" + _math(arg) + "}}")
                else:
                    out.append(r"\ensuremath{" + ch + "{" + _math(arg) + "}}")
                i = j
                continue
            out.append(escape(ch))
            i += 1
            continue
        if (
            _is_letter(ch)
            and i + 1 < len(text)
            and text[i + 1] in "0123456789"
            and not (text[i + 2 : i + 3] and text[i + 2] in "0123456789")
        ):
            out.append(r"\ensuremath{" + _math_char(ch) + "_{" + text[i + 1] + "}}")
            i += 2
            continue
        if ch.isascii() and ch.isalnum():
            j = i
            while (
                j < len(text) and text[j].isascii() and text[j].isalnum() and text[j + 1 : j + 2] not in _MATH_ACCENTS
            ):
                j += 1
            if j == i:  # a letter under a combining accent
                out.append(escape(text[i : i + 2]))
                i += 2
                continue
            out.append(text[i:j])
            i = j
            continue
        out.append(escape(text[i : i + 2]) if text[i + 1 : i + 2] in _MATH_ACCENTS else escape(ch))
        i += 2 if text[i + 1 : i + 2] in _MATH_ACCENTS else 1
    return TeX("".join(out))


def breakable(text: object) -> TeX:
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


def texttt(text: object) -> TeX:
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


def num_up(x: NumberOrBall, digits: int = 6) -> TeX:
    """The upper end of ``x`` (ball or exact) rounded *up* to ``digits`` significant digits, as LaTeX (math mode)."""
    return TeX(_sci_to_tex(arith.decimal_string(x, digits, up=True)))


def num_down(x: NumberOrBall, digits: int = 6) -> TeX:
    """The lower end of ``x`` rounded *down* to ``digits`` significant digits, as LaTeX (math mode)."""
    return TeX(_sci_to_tex(arith.decimal_string(x, digits, up=False)))


def decimal_to_tex(s: str) -> TeX:
    """A decimal string (already rounded, e.g. from JSON) as LaTeX math.

    >>> str(decimal_to_tex("1.5e-7"))
    '1.5\\\\times 10^{-7}'
    """
    if not re.fullmatch(r"-?[0-9.]+(e[+-]\d+)?", s):
        return TeX(escape(s))
    m = re.fullmatch(r"(-?)([1-9])(\d*?)(0{4,})", s)  # 223500000000000 -> 2.235e14 (the same number, narrower)
    if m:
        sign, lead, rest, zeros = m.groups()
        s = f"{sign}{lead}{'.' + rest if rest else ''}e+{len(rest) + len(zeros)}"
    return TeX(_sci_to_tex(s))


def exact_to_tex(q: NumberOrBall) -> TeX:
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


def interval(x: NumberOrBall, digits: int = 6) -> TeX:
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
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix="%%",
        line_comment_prefix="%#",
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters.update(
        e=lambda v: TeX(escape(v)),
        prose=prose,
        tt=texttt,
        brk=breakable,
        up=num_up,
        down=num_down,
        interval=interval,
        dec=decimal_to_tex,
        exact=exact_to_tex,
        tex=lambda v: TeX(str(v)),
    )
    return env


def render(template: str, **context: Any) -> str:
    """Render ``reports/templates/<template>`` with ``context``."""
    return environment().get_template(template).render(**context)


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
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5em}
\sloppy
""")


# ------------------------------------------------------------ display math
class _Printer(LatexPrinter):
    r"""sympy's LaTeX printer, except that ``e`` raised to a tall argument (one holding a fraction) is printed
    ``\exp\left(…\right)`` on the line: a fraction in a superscript is set in script size, unreadable."""

    def _print_ExpBase(self, expr: Any, exp: Any = None) -> str:
        arg = self._print(expr.args[0])
        if r"\frac" in arg:
            return self._do_exponent(r"\exp\left(%s\right)" % arg, exp)
        return super()._print_ExpBase(expr, exp)


def latex_of(expr: Any) -> str:
    r"""``sympy.latex(expr)`` with :class:`_Printer`'s rule for tall exponents.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> latex_of(sp.exp(-x)), latex_of(sp.exp(-x / (x + 1)))
    ('e^{- x}', '\\exp\\left(- \\frac{x}{x + 1}\\right)')
    """
    return _Printer().doprint(expr)


#: widest formula line, in characters of sympy's 2-D ``pretty`` form, that fits the text width at 10pt
MAX_WIDTH = 86
_REL = {"<=": r"\le", ">=": r"\ge", "<": "<", ">": ">", "==": "=", "!=": r"\ne"}


#: the 2-D pretty forms of the subexpressions already measured (expression -> form; the expression is the whole
#: key: its symbols carry their names and assumptions, and the printer's settings are fixed), emptied when it grows
#: past :data:`_PRETTY_MEMO_MAX` entries
_PRETTY_MEMO: dict = {}
_PRETTY_MEMO_MAX = 20000


class _MemoPrettyPrinter(PrettyPrinter):
    """sympy's 2-D pretty printer, except that the form of every subexpression is remembered in
    :data:`_PRETTY_MEMO`: the layout asks the width of an expression, then of its subexpressions
    (:meth:`_Namer.fit`) and of their rewritings (:func:`tidy`), which share most of their subtrees, so each subtree
    is printed once.  A form is handed out as a shallow copy (the printer sets ``baseline``/``binding`` on the forms
    it gets back; the lines themselves are never changed in place), so the output is the unmemoized printer's."""

    def __init__(self) -> None:
        super().__init__({"use_unicode": True, "wrap_line": False})

    def _print(self, expr: Any, **kwargs: Any) -> Any:
        if kwargs or not isinstance(expr, sp.Basic):
            return super()._print(expr, **kwargs)
        hit = _PRETTY_MEMO.get(expr)
        if hit is None:
            hit = super()._print(expr)
            if len(_PRETTY_MEMO) >= _PRETTY_MEMO_MAX:
                _PRETTY_MEMO.clear()
            _PRETTY_MEMO[expr] = copy.copy(hit)
            return hit
        return copy.copy(hit)


def _width(expr) -> int:
    """Width of ``expr`` when typeset, estimated by sympy's 2-D pretty form (fractions stack, as in LaTeX).
    O(size of ``expr``) printer calls for the subexpressions not measured before (:class:`_MemoPrettyPrinter`)."""

    try:
        if isinstance(expr, sp.Basic) and expr.has(
            sp.Min, sp.Max
        ):  # pretty prints Min/Max flat: give them 2-D arguments
            expr = expr.replace(sp.Min, lambda *a: sp.Function("min")(*a)).replace(
                sp.Max, lambda *a: sp.Function("max")(*a)
            )
        flag = pretty_use_unicode(True)  # as sympy.pretty does: the symbol tables read the global flag
        try:
            text = _MemoPrettyPrinter().doprint(expr)
        finally:
            pretty_use_unicode(flag)
        return max(len(line) for line in text.splitlines())
    except Exception:  # noqa: BLE001 - a custom printer may fail; fall back to the source length
        return len(sp.latex(expr)) // 2


def tidy(expr: Any) -> Any:
    """``expr`` with every sum of fractions combined where that makes it narrower (``1 − k/(k+e^{ε0}−1)``
    becomes ``(e^{ε0}−1)/(k+e^{ε0}−1)``).  ``sympy.together`` is an identity, so the statement is unchanged.

    >>> import sympy as sp
    >>> k, e = sp.symbols("k e", positive=True)
    >>> tidy(1 - k / (k + e - 1))
    (e - 1)/(e + k - 1)
    """

    def narrower(e):
        if not any(t.is_Mul or t.is_Pow for t in e.args):
            return e
        t = sp.together(e)
        return t if t != e and _width(t) < _width(e) else e

    try:
        return expr.replace(lambda e: isinstance(e, sp.Add), narrower)
    except Exception:  # noqa: BLE001 - leave an expression sympy cannot rebuild as it is
        return expr


def _bound_variables(exprs) -> set:

    out: set = set()
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, (sp.Sum, sp.Product, sp.Integral)):
                out |= {lim[0] for lim in node.limits}
            elif isinstance(node, sp.Lambda):
                out |= set(node.variables)
    return out


def _abbreviate(exprs: list) -> tuple[list, list]:
    """Name the wide subexpressions that occur more than once (``sympy.cse``): ``(exprs, [(u_1, e_1), …])``."""

    try:
        repl, red = sp.cse(exprs, symbols=sp.numbered_symbols("_cse"), order="none")
    except Exception:  # noqa: BLE001
        return exprs, []
    bound = _bound_variables(exprs)
    kept: list = []
    subs: dict = {}
    for s, e in repl:
        e = e.xreplace(subs)
        uses = sum(str(x).count(str(s)) for x in [*red, *(v for _, v in repl)])
        if _width(e) <= 14 or uses <= 1 or (e.free_symbols & bound):
            subs[s] = e
        else:
            kept.append((s, e))
    red = [r.xreplace(subs) for r in red]
    kept = [(s, e.xreplace(subs)) for s, e in kept]
    names = {s: sp.Symbol(f"u_{{{i}}}") for i, (s, _) in enumerate(kept, 1)}
    return [r.xreplace(names) for r in red], [(names[s], e.xreplace(names)) for s, e in kept]


def _rows(lhs_tex: str, rel: str, rhs, lhs_width: int) -> list:
    """Rows ``lhs & rel t_1 + … \\\\ & \\quad + t_k …`` breaking a wide sum at its top-level terms."""

    if lhs_width > MAX_WIDTH // 3 and lhs_width + _width(rhs) + 3 > MAX_WIDTH:  # a wide left side gets a row of its own
        return [lhs_tex] + _rows("", rel, rhs, 0)
    room = max(MAX_WIDTH - lhs_width - 3, 30)
    if _width(rhs) <= room or not isinstance(rhs, sp.Add):
        return [f"{lhs_tex} &{rel} {latex_of(rhs)}"]
    rows: list = []
    line: list = []
    used = 0
    for i, t in enumerate(rhs.as_ordered_terms()):
        neg = t.could_extract_minus_sign()
        body = latex_of(-t if neg else t)
        if isinstance(-t if neg else t, sp.Add):
            body = r"\left(" + body + r"\right)"
        piece = ("- " if neg else ("" if i == 0 else "+ ")) + body
        w = _width(-t if neg else t) + 2
        if line and used + w > room:
            rows.append(line)
            line, used = [], 0
        line.append(piece)
        used += w
    rows.append(line)
    out = [f"{lhs_tex} &{rel} " + " ".join(rows[0])]
    out += [r"&\quad " + " ".join(r) for r in rows[1:]]
    return out


_OPAQUE_COUNT = [0]


def _opaque(statement):
    """Replace each application of a function with its own ``_latex`` (typeset without its arguments, e.g.
    ``δ_{S∘R^n}(ε)``) by a stand-in symbol that prints the same way, so that width estimates and
    abbreviations only see what is printed."""

    class _Opaque(sp.Symbol):
        def _latex(self, printer):
            return self._tex

        def _pretty(self, printer):
            return prettyForm("x" * self._w)

    subs = {}
    for f in sp.preorder_traversal(statement):
        if isinstance(f, sp.Function) and "_latex" in type(f).__dict__ and f not in subs:
            _OPAQUE_COUNT[0] += 1
            o = _Opaque(f"_opaque{_OPAQUE_COUNT[0]}")
            o._tex = latex_of(f)
            o._w = max(1, len(re.sub(r"\\[A-Za-z]+|[{}\\]", "", o._tex)) * 2 // 3)
            subs[f] = o
    return statement.xreplace(subs) if subs else statement


class _Namer:
    """Hands out the names ``u_1, u_2, …`` of abbreviated subexpressions and keeps their definitions."""

    def __init__(self, bound: set):

        self.bound, self._sp = bound, sp
        self.defs: list = []

    def new(self, e: Any) -> Any:
        sp = self._sp
        name = f"u_{{{len(self.defs) + 1}}}"
        args = sorted(e.free_symbols & self.bound, key=str)
        # a subexpression of a summation variable z is named as a function u_k(z)
        u = sp.Function(name)(*args) if args else sp.Symbol(name)
        self.defs.append((u, e))
        return u

    def fit(self, expr: Any, room: int) -> Any:
        """Name the widest subexpressions of ``expr`` (free of bound variables) until it is at most ``room`` wide."""
        sp = self._sp
        for _ in range(12):
            if _width(expr) <= room:
                break
            best, bw = None, 0
            for node in sp.preorder_traversal(expr):
                if (
                    node is expr
                    or node.is_Atom
                    or isinstance(node, (sp.logic.boolalg.Boolean, sp.Tuple))
                    or not node.free_symbols
                    or isinstance(node, (sp.Sum, sp.Integral, sp.Product))
                    or (node.free_symbols & self.bound and _bound_variables([node]))
                    or (node.is_Pow and node.exp.is_negative)
                ):
                    continue
                w = _width(node)
                if 10 <= w <= room and w > bw:
                    best, bw = node, w
            if best is None:
                break
            try:
                expr = expr.xreplace({best: self.new(best)})
            except (TypeError, ValueError):  # sympy cannot rebuild around a name there: leave it
                self.defs.pop()
                break
        return expr


def display(statement: Any, hypotheses: Sequence = ()) -> TeX:
    r"""A statement (sympy relation) and its hypotheses as display math that fits the page: sums of fractions
    combined (:func:`tidy`), subexpressions that repeat or are too wide named ``u_1, u_2, …`` ("where …"),
    long sums broken at their top-level terms, the hypotheses on lines of their own.  Never scaled.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> print(display(sp.Le(x, 1), [sp.Ge(x, 0)]))
    \[ x \leq 1\quad\text{if}\quad x \geq 0 \]
    """

    hyps = [h for h in hypotheses if sp.sympify(h) is not sp.true]
    hyp_tex = [latex_of(tidy(h)) for h in hyps]
    hyp_width = sum(_width(h) + 3 for h in hyps)
    if isinstance(statement, sp.And) and all(isinstance(a, sp.core.relational.Relational) for a in statement.args):
        # a conjunction of relations: one display per relation (the hypotheses after the last one)
        parts = [display(a, hypotheses if i == len(statement.args) - 1 else ()) for i, a in enumerate(statement.args)]
        return TeX("\n".join(str(t) for t in parts))
    if not isinstance(statement, sp.core.relational.Relational):
        body = latex_of(statement)
        if hyps:
            body += r"\quad\text{if}\quad " + r",\ ".join(hyp_tex)
        return TeX(r"\[ " + body + r" \]")
    statement = _opaque(statement)
    lhs, rhs = tidy(statement.lhs), tidy(statement.rhs)
    rel = _REL.get(statement.rel_op, sp.latex(statement.rel_op))
    if _width(lhs) + _width(rhs) + 3 + hyp_width <= MAX_WIDTH:
        one = latex_of(statement.func(lhs, rhs, evaluate=False))
        if hyps:
            one += r"\quad\text{if}\quad " + r",\ ".join(hyp_tex)
        return TeX(r"\[ " + one + r" \]")
    namer = _Namer(_bound_variables([lhs, rhs]))
    if _width(lhs) + _width(rhs) + 3 > MAX_WIDTH:
        (lhs, rhs), where = _abbreviate([lhs, rhs])
        for _u, e in where:
            namer.defs.append((sp.Symbol(f"u_{{{len(namer.defs) + 1}}}"), e))
        rename = {u: v for (u, _), (v, _) in zip(where, namer.defs, strict=True)}
        lhs, rhs = lhs.xreplace(rename), rhs.xreplace(rename)
        namer.defs = [(v, e.xreplace(rename)) for v, e in namer.defs]
    lhs = namer.fit(lhs, MAX_WIDTH // 2)
    room = max(MAX_WIDTH - _width(lhs) - 3, 30) if _width(lhs) <= MAX_WIDTH // 3 else MAX_WIDTH - 8

    def fitted(e, room):
        if isinstance(e, sp.Add):
            return sp.Add(*[namer.fit(t, room) for t in e.args], evaluate=False)
        return namer.fit(e, room)

    if isinstance(rhs, sp.Piecewise):  # one row per piece: "lhs <= e_i  if c_i"
        rows = []
        for e, c in rhs.args:
            cond = r"\quad\text{otherwise}" if c is sp.true else r"\quad\text{if}\ " + latex_of(namer.fit(c, 30))
            piece = _rows(latex_of(lhs), rel, fitted(e, room - 12), _width(lhs))
            rows += piece[:-1] + [piece[-1] + cond]
    else:
        rows = _rows(latex_of(lhs), rel, fitted(rhs, room), _width(lhs))
    i = 0
    while i < len(namer.defs):
        u, e = namer.defs[i]
        e = tidy(e)
        e = (
            namer.fit(e, MAX_WIDTH - 12)
            if not isinstance(e, sp.Add)
            else sp.Add(*[namer.fit(t, MAX_WIDTH - 12) for t in e.args], evaluate=False)
        )
        namer.defs[i] = (u, e)
        rows += _rows((r"\text{where}\ " if i == 0 else r"\text{and}\ ") + latex_of(u), "=", e, _width(u) + 7)
        i += 1
    if hyps:
        line: list = []
        hrows: list = []
        used = 0
        for t, h in zip(hyp_tex, hyps, strict=True):
            w = _width(h) + 3
            if line and used + w > MAX_WIDTH - 10:
                hrows.append(line)
                line, used = [], 0
            line.append(t)
            used += w
        hrows.append(line)
        rows.append(r"&\quad\text{if}\quad " + r",\ ".join(hrows[0]))
        rows += [r"&\quad\phantom{\text{if}}\quad " + r",\ ".join(r) for r in hrows[1:]]
    return TeX("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")


def display_result(result: Any) -> TeX:
    """:func:`display` of a registered result's statement and hypotheses (those sympy folds to True are not shown)."""
    return display(result.statement, [h.relation for h in result.hypotheses])
