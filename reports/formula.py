"""A whitelist parser for the formula of a symbolic bound file: text in, sympy expression out, no code run.

The grammar is explicit and small (no ``eval``, ``sympify`` or ``parse_expr``
is ever applied to the text)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom (("^" | "**") unary)?          (right-associative)
    atom   := NUMBER | SYMBOL | CONSTANT | FUNCTION "(" expr ("," expr)* ")" | "(" expr ")"

* NUMBER: a decimal such as ``2``, ``0.5``, ``1e-8`` — read exactly (a
  rational), with the exponent range of :mod:`blanket.exact.numbers.guards`;
* SYMBOL: one of the names the caller allows (e.g. ``epsilon, epsilon0, n, k``);
* CONSTANT: ``pi``, ``e``;
* FUNCTION: one of :data:`FUNCTIONS` (``exp, log, sqrt, min, max, abs, floor,
  ceiling, erf, erfc, sinh, cosh, tanh, binomial, gamma``);
* ``−``, ``×``, ``·`` and ``÷`` are read as ``-``, ``*``, ``*`` and ``/``.

Anything else is refused with an :class:`~blanket.exact.numbers.errors.InvalidArgument`
naming the offending token and its position, counted from 1 in the formula's text as given (after ``bound:`` and
its surrounding spaces; :func:`_where`).  Powers are built unevaluated
(``10^10^10`` is not expanded; it is evaluated later in ball arithmetic).
Complexity: O(length of the text); nesting depth at most :data:`MAX_DEPTH`.

>>> import sympy as sp
>>> parse_formula("exp(epsilon0) * sqrt(8*log(4/epsilon)/n)", ["epsilon0", "epsilon", "n"]).free_symbols == {
...     sp.Symbol("epsilon0", positive=True), sp.Symbol("epsilon", positive=True), sp.Symbol("n", positive=True)}
True
>>> parse_formula("__import__('os').system('true')", ["n"])
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: bound contains '__import__' at character 1 of the formula (counting from 1), which is not allowed: a formula may use numbers, the symbols n, the constants pi and e, + - * / ^, parentheses and the functions exp, log, sqrt, min, max, abs, floor, ceiling, erf, erfc, sinh, cosh, tanh, binomial, gamma, got "__import__('os').system('true')"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

FUNCTIONS = {
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sqrt": sp.sqrt,
    "min": sp.Min,
    "max": sp.Max,
    "abs": sp.Abs,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "ceil": sp.ceiling,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "binomial": sp.binomial,
    "gamma": sp.gamma,
    "Min": sp.Min,
    "Max": sp.Max,
    "Abs": sp.Abs,
}
ARITY = {"min": None, "max": None, "Min": None, "Max": None, "binomial": 2}
CONSTANTS = {"pi": sp.pi, "e": sp.E, "E": sp.E}
MAX_DEPTH = 100
MAX_LENGTH = 10_000
#: most decimal digits of a number's numerator or denominator (a larger constant is written as a power, 10^100000,
#: which stays unevaluated; its digits would exceed what the reports can print)
MAX_LITERAL_DIGITS = 1000
_LISTED = "exp, log, sqrt, min, max, abs, floor, ceiling, erf, erfc, sinh, cosh, tanh, binomial, gamma"

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z][A-Za-z0-9]*)"
    r"|(?P<op>\*\*|[-+*/^(),\u2212\u00d7\u00b7\u00f7]))"
)
_UNICODE_OPS = {"\u2212": "-", "\u00d7": "*", "\u00b7": "*", "\u00f7": "/"}


def _where(pos: int) -> str:
    """The position of the 0-based index ``pos`` of the formula's text, as the messages print it: 1-based."""
    return f"character {pos + 1} of the formula (counting from 1)"


class _Parser:
    def __init__(self, text: str, names, field: str):
        self.text, self.field = text, field
        self.names = list(names)
        self.symbols = {nm: sp.Symbol(nm, positive=True) for nm in self.names}
        self.tokens = self._tokenize(text)
        self.i = 0
        self.depth = 0

    def _error(self, token: str, pos: int, why: str = "which is not allowed"):
        allowed = (
            f"a formula may use numbers, the symbols {', '.join(self.names)}, the constants pi and e, "
            f"+ - * / ^, parentheses and the functions {_LISTED}"
        )
        shown = self.text if len(self.text) <= 200 else self.text[:200] + "..."
        return InvalidArgument(self.field, shown, f"contains {token!r} at {_where(pos)}, {why}: {allowed}")

    def _tokenize(self, text):
        out, pos = [], 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                j = pos
                while j < len(text) and text[j].isspace():
                    j += 1
                bad = re.match(r"[A-Za-z_][A-Za-z0-9_]*|\S", text[j:]).group(0)  # type: ignore[union-attr]  # \S matches
                raise self._error(bad, j)
            kind = m.lastgroup
            assert kind is not None  # every alternative of _TOKEN is a named group
            val = m.group(kind)
            start = m.start(kind)
            if kind == "name":
                # an identifier glued to '_' or another character is one offending token
                end = m.end(kind)
                if end < len(text) and text[end] == "_":
                    bad = re.match(r"[A-Za-z0-9_]+", text[start:]).group(0)  # type: ignore[union-attr]  # a name
                    raise self._error(bad, start)
            if kind == "op":
                val = _UNICODE_OPS.get(val, val)
            out.append((kind, val, start))
            pos = m.end()
        out.append(("end", "", len(text)))
        return out

    # -------------------------------------------------------------- grammar
    def peek(self) -> tuple:
        return self.tokens[self.i]

    def take(self) -> tuple:
        t = self.tokens[self.i]
        self.i += 1
        return t

    def expect(self, op: str) -> None:
        kind, val, pos = self.take()
        if kind != "op" or val != op:
            raise self._error(val or "end of formula", pos, f"where {op!r} was expected")

    def parse(self) -> sp.Expr:
        e = self.expr()
        kind, val, pos = self.peek()
        if kind != "end":
            raise self._error(val, pos, "which cannot follow a complete expression")
        return e

    def _enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            kind, val, pos = self.peek()
            raise self._error(val, pos, f"nested more than {MAX_DEPTH} levels deep")

    def expr(self) -> sp.Expr:
        self._enter()
        e = self.term()
        while self.peek()[0] == "op" and self.peek()[1] in "+-":
            op = self.take()[1]
            r = self.term()
            e = sp.Add(e, r) if op == "+" else sp.Add(e, sp.Mul(-1, r))
        self.depth -= 1
        return e

    def term(self) -> sp.Expr:
        e = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            r = self.unary()
            e = sp.Mul(e, r) if op == "*" else sp.Mul(e, sp.Pow(r, -1, evaluate=False))
        return e

    def unary(self) -> sp.Expr:
        kind, val, pos = self.peek()
        if kind == "op" and val in "+-":
            self.take()
            self._enter()
            e = self.unary()
            self.depth -= 1
            return e if val == "+" else sp.Mul(-1, e)
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if self.peek()[0] == "op" and self.peek()[1] in ("^", "**"):
            self.take()
            self._enter()
            ex = self.unary()
            self.depth -= 1
            return sp.Pow(base, ex, evaluate=False)
        return base

    def atom(self) -> sp.Expr:
        kind, val, pos = self.take()
        if kind == "num":
            q = arith.exact(val, self.field)
            p, d = int(q.p), int(q.q)
            if max(abs(p), d).bit_length() > MAX_LITERAL_DIGITS * 3.33:  # ~ 10^MAX_LITERAL_DIGITS; O(1)
                raise InvalidArgument(
                    self.field,
                    f"{val[:40]} at {_where(pos)}",
                    f"must not contain a number of more than {MAX_LITERAL_DIGITS} digits",
                    hint="write a large or tiny constant as a power, e.g. 10^100000, which is kept unevaluated",
                )
            return sp.Rational(p, d)
        if kind == "name":
            if val in self.symbols:
                return self.symbols[val]
            if val in CONSTANTS:
                return CONSTANTS[val]
            if val in FUNCTIONS:
                self.expect("(")
                args = [self.expr()]
                while self.peek()[0] == "op" and self.peek()[1] == ",":
                    self.take()
                    args.append(self.expr())
                self.expect(")")
                want = ARITY.get(val, 1)
                if want is not None and len(args) != want:
                    raise self._error(
                        val, pos, f"which takes {want} argument{'s' if want > 1 else ''}, not {len(args)}"
                    )
                if val in ("min", "max", "Min", "Max") and len(args) < 2:
                    raise self._error(val, pos, "which takes at least 2 arguments")
                return FUNCTIONS[val](*args, evaluate=False)  # nothing is expanded here (binomial(10^9, ...))
            raise self._error(val, pos)
        if kind == "op" and val == "(":
            self._enter()
            e = self.expr()
            self.depth -= 1
            self.expect(")")
            return e
        raise self._error(val or "end of formula", pos, "where a number, a symbol, a function or '(' was expected")


def parse_formula(text: str, names: Sequence[str], *, field: str = "bound") -> sp.Expr:
    """The sympy expression of ``text`` in the symbols ``names`` (positive reals); see the module grammar."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(field, text, "must be a non-empty formula")
    if len(text) > MAX_LENGTH:
        raise InvalidArgument(field, f"{len(text)} characters", f"must be at most {MAX_LENGTH} characters long")
    return _Parser(text, names, field).parse()
