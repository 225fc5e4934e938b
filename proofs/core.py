"""The shape every encoded result takes: one object per result of a paper.

A :class:`Result` carries its label as printed ("Lemma 5.7"), its paper, its
status from ``docs/reference/`` (source-confirmed / derived / uncertain / this
project's reading), its symbols with their domains, its hypotheses, and its
statement as a **sympy** relation.  From that single object come

* :meth:`Result.latex` — ``sympy.latex`` of the statement and hypotheses, so a
  report shows exactly what was checked;
* :meth:`Result.evaluate` — both sides as ``arb`` balls (or exact ``fmpq``),
  through :func:`arb_eval`, a tree-walking evaluator that keeps rationals
  exact and never goes through a binary float (it is the project's
  "custom printer": ``lambdify`` would turn ``Rational(1, 3)`` into ``1/3``);
  the hypotheses are checked first and a failing one raises
  :class:`~exact.numbers.errors.HypothesisViolation` naming it;
* :meth:`Result.check_symbolic` — what sympy establishes outright;
* a registry entry (:func:`register`), so the tests and reports iterate over
  every result.

A paper module registers its results through a :class:`ResultTable`: the
descriptive data of each result (label, title, status, notes, symbols and their
domains, grid, …) sits in the module's TOML table ``proofs/<module>.toml``, the
code (statement, hypotheses, numeric/symbolic/exact callables) in the module,
joined by key (CONTRIBUTING.md, "Adding a result").

A bound is written once: the sympy statement *is* the formula that gets
evaluated.  Where a side needs an algorithm rather than a closed form (a sum
over ``n = 10^6`` terms, an expectation over a binomial), the result names an
``exact/`` routine in ``numeric`` and the docstring says how that routine
relates to the sympy statement; the sympy form is still what is typeset, and
tests compare the two on small cases.
"""

from __future__ import annotations

import importlib
import importlib.resources
import math
import pkgutil
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from flint import arb, fmpq, fmpz

STATUSES = ("source-confirmed", "derived", "uncertain", "this project's reading")
KINDS = ("definition", "identity", "upper_bound", "lower_bound", "inequality", "equality", "statement")

PAPERS = {
    "BBGN19": "Balle, Bell, Gascón, Nissim, The Privacy Blanket of the Shuffle Model (CRYPTO 2019)",
    "CY21": "Cheu, Yan, Pure Differential Privacy from Secure Intermediaries (arXiv 2112.10032)",
    "GDDSK21": "Girgis, Data, Diggavi, Suresh, Kairouz, On the Rényi Differential Privacy of the Shuffle Model (CCS 2021)",
    "EFMRTT19": "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, Amplification by Shuffling (SODA 2019)",
    "FMT21": "Feldman, McMillan, Talwar, Hiding Among the Clones: A Simple and Nearly Optimal Analysis of Privacy "
    "Amplification by Shuffling (FOCS 2021, arXiv 2012.12803)",
    "FO": "Frequency oracles (unary encoding and local hashing: Wang, Blocki, Li, Jha, USENIX Security 2017; Hadamard "
    "response: Acharya, Sun, Zhang, AISTATS 2019; subset selection: Ye, Barg 2018) and the clamped geometric "
    "mechanism: blanket decompositions derived by this project; also this project's bounds for a generic "
    "epsilon0-LDP randomizer (Lemma G1: one randomizer, and FMT21's adaptive model)",
    "WANG24": "Wang et al., Unified, Tight, and Fast Privacy Amplification in the Shuffle Model of Differential "
    "Privacy (cited here as VLDB 2024; code and parameter table: wangsw/PrivacyAmplification)",
    "SCW25": "Su, Cheng, Wang, Decomposition-Based Optimal Bounds for Privacy Amplification via Shuffling (arXiv "
    "2504.07414; code: Optimal-amplification-bound/Decomposition-Based-Optimal-Bounds-for-Shuffle-DP)",
    "ZDW22": "Zhu, Dong, Wang, Optimal Accounting of Differential Privacy via Characteristic Function (AISTATS 2022)",
    "PLD": "Privacy loss distributions: Meiser, Mohammadi (CCS 2018); Koskela, Jälkö, Honkela (AISTATS 2020); "
    "Doroshenko, Ghazi, Kamath, Kumar, Manurangsi (PETS 2022)",
}
#: short paper names accepted on the command line
PAPER_ALIASES = {
    "blanket": "BBGN19",
    "pure_dp": "CY21",
    "pure-dp": "CY21",
    "cheu-yan": "CY21",
    "renyi": "GDDSK21",
    "girgis": "GDDSK21",
    "erlingsson": "EFMRTT19",
    "composition": "ZDW22",
    "wang": "WANG24",
    "variation-ratio": "WANG24",
    "scw": "SCW25",
    "su-cheng-wang": "SCW25",
    "zhu-dong-wang": "ZDW22",
    "pld": "PLD",
}


# ============================================================ sympy -> ball evaluation
class EvaluationError(BlanketError):
    """A sympy expression contains something :func:`arb_eval` cannot evaluate rigorously."""


def _to_num(v):
    """Environment values: exact numbers become fmpq, balls stay balls; floats are refused."""
    if isinstance(v, arb):
        return v
    if isinstance(v, (fmpq,)):
        return v
    return arith.exact(v)


def _is_exact(x):
    return isinstance(x, fmpq)


def _as_arb(x):
    return x if isinstance(x, arb) else arb(x)


def _raise(msg):
    raise EvaluationError(msg)


def _rounded(x, how: str):
    """``floor`` or ``ceil`` (``how``) of an exact number or a ball, as an exact integer; a ball whose rounding is not
    one integer at this precision raises :class:`Undecided` (precision escalates)."""
    if _is_exact(x):
        return fmpq(getattr(x, how)())
    u = getattr(x, how)().unique_fmpz()
    if u is None:
        raise Undecided(f"{'floor' if how == 'floor' else 'ceiling'} of {x} is not determined at this precision")
    return fmpq(u)


def _floor(x):
    return _rounded(x, "floor")


def _ceil(x):
    return _rounded(x, "ceil")


def _minmax(args, is_max):
    if all(_is_exact(a) for a in args):
        return max(args) if is_max else min(args)
    out = _as_arb(args[0])
    for a in args[1:]:
        out = out.max(_as_arb(a)) if is_max else out.min(_as_arb(a))
    return out


def _rel(op, a, b) -> bool | None:
    if op == "<=":
        return arith.le(a, b)
    if op == "<":
        return arith.lt(a, b)
    if op == ">=":
        return arith.ge(a, b)
    if op == ">":
        return arith.gt(a, b)
    if op == "==":
        if _is_exact(a) and _is_exact(b):
            return a == b
        d = _as_arb(a) - _as_arb(b)
        if not d.contains(0):
            return False
        return None
    if op == "!=":
        r = _rel("==", a, b)
        return None if r is None else (not r)
    raise EvaluationError(f"unknown relation {op}")


def arb_eval(expr: Any, env: Mapping[Any, Any]) -> Any:
    """Evaluate a sympy expression rigorously: ``fmpq`` where exact, ``arb`` ball otherwise.

    ``env`` maps sympy symbols (or their names) to exact numbers or balls.
    Relations evaluate to ``True``/``False``/``None`` (undecided).  Floats in
    the expression are refused.  The ball precision is flint's current one
    (see :func:`exact.numbers.arith.precision`).

    >>> x = sp.Symbol("x", positive=True)
    >>> arb_eval(sp.Rational(1, 3) + x, {x: 1})
    4/3
    >>> from blanket.exact.numbers.arith import precision
    >>> with precision(64):
    ...     arb_eval(sp.exp(x) - 2, {"x": "1e-1"}) < 0
    True
    >>> arb_eval(sp.Float(0.5) * x, {x: 1})
    Traceback (most recent call last):
    ...
    blanket.proofs.core.EvaluationError: binary float 0.500000000000000 in a certified expression; write it as a Rational
    """
    env2 = {}
    for k, v in env.items():
        name = k.name if isinstance(k, sp.Symbol) else str(k)
        env2[name] = v if isinstance(v, (arb, fmpq)) else _to_num(v)
    return _ev(sp.sympify(expr), env2)


def _ev_atom(e, env):
    """Constants and symbols: exact rationals, ``e``, ``pi``, the value of a symbol in ``env``; no float, no infinity."""
    if e is sp.true:
        return True
    if e is sp.false:
        return False
    if isinstance(e, sp.Integer):
        return fmpq(int(e))
    if isinstance(e, sp.Rational):
        return fmpq(int(e.p), int(e.q))
    if isinstance(e, sp.Float):
        raise EvaluationError(f"binary float {e} in a certified expression; write it as a Rational")
    if isinstance(e, sp.Symbol):
        if e.name not in env:
            raise EvaluationError(f"no value for symbol {e.name}")
        return env[e.name]
    if e is sp.E:
        return arb(1).exp()
    if e is sp.pi:
        return arb.pi()
    if e is sp.oo or e is sp.zoo or e is sp.nan or e is -sp.oo:
        raise EvaluationError(f"{e} in an evaluated expression")
    return _NOT_AN_ATOM


_NOT_AN_ATOM = object()


def _ev_add(e, env):
    out = fmpq(0)
    for a in e.args:
        out = arith.add(out, _ev(a, env))
    return out


def _ev_mul(e, env):
    out = fmpq(1)
    for a in e.args:
        out = arith.mul(out, _ev(a, env))
    return out


def _ev_pow(e, env):
    """``b**x``: exact for an exact base and integer exponent, a square root for ``x = 1/2``, else ``exp(x log b)``
    for a base certified positive (:class:`Undecided` while its sign is not)."""
    b = _ev(e.base, env)
    x = _ev(e.exp, env)
    if _is_exact(x) and x.q == 1:
        k = int(x.p)
        if _is_exact(b) and b == 0 and k < 0:
            raise EvaluationError(f"division by zero in {e}")
        return b**k
    if _is_exact(x) and x == fmpq(1, 2):
        if _is_exact(b) and b < 0:
            raise EvaluationError(f"square root of a negative number in {e}")
        return _as_arb(b).sqrt()
    bb = _as_arb(b)
    if _is_exact(b) and b == 0:
        return fmpq(0) if (_is_exact(x) and x > 0) else _raise(f"0 to a non-positive power in {e}")
    if not (bb > 0):
        if bb < 0:
            raise EvaluationError(f"real power of a negative base in {e}")
        raise Undecided(f"sign of the base of {e} undecided")
    return (bb.log() * _as_arb(x)).exp()


def _ev_exp(e, env):
    v = _ev(e.args[0], env)
    if _is_exact(v) and v == 0:
        return fmpq(1)
    return _as_arb(v).exp()


def _ev_log(e, env):
    if len(e.args) != 1:
        raise EvaluationError("log with a base: write log(x)/log(b)")
    v = _ev(e.args[0], env)
    if _is_exact(v):
        if v <= 0:
            raise EvaluationError(f"log of non-positive {v} in {e}")
        if v == 1:
            return fmpq(0)
    return _as_arb(v).log()


def _ev_minmax(e, env):
    return _minmax([_ev(a, env) for a in e.args], isinstance(e, sp.Max))


def _ev_binomial(e, env):
    """``C(n, k)``: exact for integers (also negative ``n``), the falling factorial over ``k!`` for integer ``k >= 0``."""
    n = _ev(e.args[0], env)
    k = _ev(e.args[1], env)
    if _is_exact(n) and _is_exact(k) and n.q == 1 and k.q == 1:
        ni, ki = int(n.p), int(k.p)
        if ki < 0:
            return fmpq(0)
        if ni >= 0:
            return fmpq(math.comb(ni, ki)) if ki <= ni else fmpq(0)
        if hasattr(fmpz, "binomial"):  # python-flint versions with fmpz.binomial
            return fmpq(fmpz(ni).binomial(ki))  # type: ignore[attr-defined]
        return fmpq(_gen_binom(ni, ki))
    if _is_exact(k) and k.q == 1 and int(k.p) >= 0:
        out = fmpq(1)
        for j in range(int(k.p)):
            out = (n - j) * out
        return out / math.factorial(int(k.p))
    raise EvaluationError(f"binomial with non-integer lower argument in {e}")


def _ev_factorial(e, env):
    n = _ev(e.args[0], env)
    if _is_exact(n) and n.q == 1 and n >= 0:
        return fmpq(math.factorial(int(n.p)))
    return _as_arb(n + 1).gamma() if not _is_exact(n) else arb(n + 1).gamma()


def _ev_gamma(e, env):
    v = _ev(e.args[0], env)
    if _is_exact(v):
        if v.q == 1 and v > 0:
            return fmpq(math.factorial(int(v.p) - 1))
        return arb.gamma_fmpq(v) if hasattr(arb, "gamma_fmpq") else arb(v).gamma()
    return v.gamma()


def _ev_ball_function(e, env):
    """``erfc``, ``erf``, ``sinh``, ``cosh``, ``tanh`` of a ball (python-flint's rigorous implementations)."""
    v = _as_arb(_ev(e.args[0], env))
    return {sp.erfc: v.erfc, sp.erf: v.erf, sp.sinh: v.sinh, sp.cosh: v.cosh, sp.tanh: v.tanh}[type(e)]()


def _ev_piecewise(e, env):
    for val, cond in e.args:
        t = _ev(cond, env)
        if t is None:
            raise Undecided(f"condition {cond} of a piecewise expression undecided")
        if t:
            return _ev(val, env)
    raise EvaluationError(f"no branch of {e} applies")


def _ev_sum(e, env):
    """A finite ``Sum`` with integer limits, term by term (O(hi - lo) evaluations of the body)."""
    body = e.function
    ((var, lo, hi),) = e.limits
    lo_v, hi_v = _ev(lo, env), _ev(hi, env)
    if not (_is_exact(lo_v) and _is_exact(hi_v) and lo_v.q == 1 and hi_v.q == 1):
        raise EvaluationError(f"sum limits of {e} must evaluate to integers")
    out = fmpq(0)
    for j in range(int(lo_v.p), int(hi_v.p) + 1):
        env[var.name] = fmpq(j)
        out = arith.add(out, _ev(body, env))
    env.pop(var.name, None)
    return out


def _ev_relational(e, env):
    return _rel(e.rel_op, _ev(e.lhs, env), _ev(e.rhs, env))


def _ev_and(e, env):
    vals = [_ev(a, env) for a in e.args]
    if any(v is False for v in vals):
        return False
    return None if any(v is None for v in vals) else True


def _ev_or(e, env):
    vals = [_ev(a, env) for a in e.args]
    if any(v is True for v in vals):
        return True
    return None if any(v is None for v in vals) else False


def _ev_not(e, env):
    v = _ev(e.args[0], env)
    return None if v is None else (not v)


#: the evaluation step of each kind of node, tried in this order (subclasses before their bases)
_EV_STEPS: tuple = (
    (sp.Add, _ev_add),
    (sp.Mul, _ev_mul),
    (sp.Pow, _ev_pow),
    (sp.exp, _ev_exp),
    (sp.log, _ev_log),
    ((sp.Min, sp.Max), _ev_minmax),
    (sp.Abs, lambda e, env: abs(_ev(e.args[0], env))),
    (sp.floor, lambda e, env: _floor(_ev(e.args[0], env))),
    (sp.ceiling, lambda e, env: _ceil(_ev(e.args[0], env))),
    (sp.binomial, _ev_binomial),
    (sp.factorial, _ev_factorial),
    (sp.gamma, _ev_gamma),
    ((sp.erfc, sp.erf, sp.sinh, sp.cosh, sp.tanh), _ev_ball_function),
    (sp.Piecewise, _ev_piecewise),
    (sp.Sum, _ev_sum),
    (sp.core.relational.Relational, _ev_relational),
    (sp.And, _ev_and),
    (sp.Or, _ev_or),
    (sp.Not, _ev_not),
)


def _ev(e, env):
    """Evaluate the sympy expression ``e`` rigorously: an atom, else the first step of :data:`_EV_STEPS` whose kind
    ``e`` is, else a function node's own ``_arb_eval``.  O(size of ``e``) steps (a ``Sum`` repeats its body)."""
    v = _ev_atom(e, env)
    if v is not _NOT_AN_ATOM:
        return v
    for kind, step in _EV_STEPS:
        if isinstance(e, kind):
            return step(e, env)
    if isinstance(e, sp.Function) and hasattr(e, "_arb_eval"):
        return e._arb_eval(*[_ev(a, env) for a in e.args])
    raise EvaluationError(f"cannot evaluate {type(e).__name__} ({e}) rigorously; extend proofs.core.arb_eval")


def _gen_binom(n, k):
    out = fmpq(1)
    for j in range(k):
        out = out * (n - j)
    return out / math.factorial(k)


# ============================================================ unevaluated relations
# relations are built unevaluated: sympy's automatic evaluation of inequalities costs seconds at import
def Le(a: Any, b: Any) -> Any:
    """``a <= b`` as an unevaluated sympy relation."""
    return sp.Le(a, b, evaluate=False)


def Ge(a: Any, b: Any) -> Any:
    """``a >= b`` as an unevaluated sympy relation."""
    return sp.Ge(a, b, evaluate=False)


def Lt(a: Any, b: Any) -> Any:
    """``a < b`` as an unevaluated sympy relation."""
    return sp.Lt(a, b, evaluate=False)


def Gt(a: Any, b: Any) -> Any:
    """``a > b`` as an unevaluated sympy relation."""
    return sp.Gt(a, b, evaluate=False)


def Eq(a: Any, b: Any) -> Any:
    """``a = b`` as an unevaluated sympy relation."""
    return sp.Eq(a, b, evaluate=False)


# ============================================================ results
@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a result: a sympy relation (or boolean) in the result's symbols, and its wording."""

    relation: Any
    text: str = ""

    def describe(self) -> str:
        return self.text or str(self.relation)


@dataclass(frozen=True)
class SymbolicCheck:
    """Outcome of :meth:`Result.check_symbolic`.

    ``proved`` is ``True`` (sympy established the statement outright),
    ``False`` (sympy refuted it) or ``None`` (not proved symbolically; the
    numeric checks are what stands behind it).
    """

    proved: bool | None
    method: str
    detail: str = ""


@dataclass(frozen=True)
class Reference:
    """A certified value that a bound is compared with in tests and reports.

    ``value`` is a ball (or fmpq) enclosing ``what``; ``relation`` says how
    it relates to the true quantity the bound bounds: ``"exact"`` (it *is*
    that quantity, e.g. the exact worst case of binary RR), ``"lower"`` (a
    certified lower bound on it, e.g. the exact δ on one dataset family — an
    upper bound below it is refuted) or ``"upper"`` (a certified upper bound,
    e.g. the blanket view — a lower bound above it is refuted).
    """

    value: Any
    what: str
    relation: str = "exact"


@dataclass(frozen=True)
class Evaluation:
    """Both sides of a statement at one parameter point, and whether it holds there (three-valued)."""

    result_key: str
    params: Mapping[str, Any]
    lhs: Any
    rhs: Any
    relation: str
    holds: bool | None
    prec: int


@dataclass(frozen=True, eq=False)
class Result:
    """One result of one paper, encoded once.

    Fields
    ------
    key: unique registry key, ``"<PAPER> <label>"`` plus a variant suffix, e.g. ``"BBGN19 Theorem 5.3 [rr]"``.
    paper: key of :data:`PAPERS`.
    label: as printed in the paper, e.g. ``"Lemma 5.7"``.
    title: a short human title.
    status: one of :data:`STATUSES` (explained in ``docs/reference/README.md``).
    statement: a sympy relation (``Le``, ``Ge``, ``Eq``, …) or boolean; for
        bounds, ``lhs`` is the bounded quantity's symbol or expression and
        ``rhs`` the bound (``quantity <= bound`` or ``quantity >= bound``).
    symbols: ``{Symbol: domain description}``.
    hypotheses: tuple of :class:`Hypothesis`.
    kind: one of :data:`KINDS`.
    quantity: what a bound bounds (``"delta"``, ``"epsilon"``, ``"renyi"``,
        ``"gamma"``, ``"mse"``, ``"llr"``, …) or ``None``.
    mechanisms: mechanism families it applies to (``"any"``, ``"rr"``,
        ``"krr"``, ``"laplace"``, ``"gaussian"``, …).
    variant: ``None`` or a variant name (``"generic"``, ``"rr"``, ``"laplace"``).
    status_note: why the status is what it is (carried into reports).
    spec: where in ``docs/reference/`` it is stated.
    notes: anything a reader must know (discrepancies, false variants).
    numeric: optional ``{side: callable(**params) -> ball}`` replacing
        :func:`arb_eval` for a side that is an algorithm (documented).
    symbolic: optional callable ``(result) -> SymbolicCheck``.
    exact: optional callable ``(**params) -> Reference`` giving a certified
        value of the quantity the bound side bounds (exact, or a certified
        lower/upper bound on it; see :class:`Reference`); used by the tests
        and by the paper-check report's bound-versus-exact tables.
    grid: parameter points (dicts of exact strings) for bound-versus-exact tables.
    known_false: ``True`` for encoded *false* variants (kept so that tests
        show they are caught).
    """

    key: str
    paper: str
    label: str
    title: str
    status: str
    statement: Any
    symbols: Mapping[Any, str] = field(default_factory=dict)
    hypotheses: Sequence[Hypothesis] = ()
    kind: str = "inequality"
    quantity: str | None = None
    mechanisms: Sequence[str] = ("any",)
    variant: str | None = None
    status_note: str = ""
    spec: str = ""
    notes: str = ""
    numeric: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    symbolic: Callable[[Result], SymbolicCheck] | None = None
    exact: Callable[..., Any] | None = None
    grid: Sequence[Mapping[str, Any]] = ()
    known_false: bool = False

    def __post_init__(self):
        if self.status not in STATUSES:
            raise InvalidArgument("status", self.status, f"must be one of {STATUSES}")
        if self.kind not in KINDS:
            raise InvalidArgument("kind", self.kind, f"must be one of {KINDS}")
        if self.paper not in PAPERS:
            raise InvalidArgument("paper", self.paper, f"must be one of {tuple(PAPERS)}")

    # ------------------------------------------------------------ presentation
    @property
    def free_symbols(self) -> list:
        return sorted(self.symbols, key=lambda s: s.name)

    def latex(self) -> str:
        """LaTeX of the statement (via ``sympy.latex``), followed by its hypotheses."""
        body = sp.latex(self.statement)
        # a hypothesis sympy folds to True (``s > 0`` on a positive symbol) is enforced by the domain check: not shown
        shown = [h for h in self.hypotheses if sp.sympify(h.relation) is not sp.true]
        if shown:
            hyps = ",\\ ".join(sp.latex(h.relation) for h in shown)
            body += "\\quad\\text{if}\\quad " + hyps
        return body

    def describe(self) -> dict:
        """Plain-data description used by reports and ``blanket bounds``."""
        return {
            "key": self.key,
            "paper": self.paper,
            "label": self.label,
            "title": self.title,
            "status": self.status,
            "status_note": self.status_note,
            "kind": self.kind,
            "quantity": self.quantity,
            "mechanisms": list(self.mechanisms),
            "variant": self.variant,
            "spec": self.spec,
            "notes": self.notes,
            "latex": self.latex(),
            "hypotheses": [h.describe() for h in self.hypotheses],
            "known_false": self.known_false,
            "symbols": {s.name: d for s, d in self.symbols.items()},
        }

    # ------------------------------------------------------------ evaluation
    def _env(self, params):
        """The values of the result's symbols from ``params``, parsed; ``exp_epsilon0`` (exact) may stand for
        ``epsilon0``: the symbolic sides get ``epsilon0 = log(exp_epsilon0)`` as a ball, and an evaluator that builds
        an exact mechanism (``numeric`` sides) receives the exact ``exp_epsilon0`` too."""
        names = {s.name: s for s in self.symbols}
        exact_e0 = None
        if "exp_epsilon0" in params and "exp_epsilon0" not in names and "epsilon0" in names:
            if "epsilon0" in params:
                raise InvalidArgument("exp_epsilon0", params["exp_epsilon0"], "and epsilon0 were both given: give one")
            exact_e0 = arith.exact_in(params["exp_epsilon0"], "exp_epsilon0", lo=1)
            params = {**{k: v for k, v in params.items() if k != "exp_epsilon0"}, "epsilon0": arith.log_ball(exact_e0)}
        env = {}
        for k, v in params.items():
            if k not in names:
                raise InvalidArgument(
                    k, v, f"is not a parameter of {self.key} (parameters: {', '.join(sorted(names))})"
                )
            env[k] = v if isinstance(v, (arb, fmpq)) else arith.exact(v, k)
        missing = [n for n in names if n not in env and not self._is_bound_var(n)]
        if missing:
            raise InvalidArgument("parameters", sorted(params), f"miss {', '.join(sorted(missing))} for {self.key}")
        if exact_e0 is not None:
            env["exp_epsilon0"] = exact_e0
        return env

    def _is_bound_var(self, name):
        # symbols that only appear bound (summation indices, the quantity itself) need no value
        st = self.statement
        free = {s.name for s in getattr(st, "free_symbols", set())}
        for h in self.hypotheses:
            free |= {s.name for s in getattr(sp.sympify(h.relation), "free_symbols", set())}
        return name not in free or name in self._quantity_symbols()

    def _quantity_symbols(self):
        if self.kind in ("upper_bound", "lower_bound") and isinstance(self.statement, sp.core.relational.Relational):
            lhs = self.statement.lhs
            if isinstance(lhs, sp.Symbol):
                return {lhs.name}
        return set()

    def check_hypotheses(self, **params: Any) -> None:
        """Raise :class:`HypothesisViolation` naming the first hypothesis that certainly fails.

        Undecided hypotheses escalate precision; at the cap they raise
        :class:`~exact.numbers.errors.Undecided`.
        """
        env = self._env(params)
        self._check_domains(env, params)
        for h in self.hypotheses:

            def compute(prec, h=h):
                try:
                    return _ev(sp.sympify(h.relation), dict(env))
                except Undecided:
                    return None

            val, _ = arith.escalate(compute, lambda v: v is not None, what=f"hypothesis '{h.describe()}' of {self.key}")
            if val is False:
                shown = {k: str(v) for k, v in params.items()}
                raise HypothesisViolation(self.key, h.describe(), shown)

    def _check_domains(self, env, params):
        """Enforce the sympy assumptions of each symbol (positive, nonnegative, integer, …) as hypotheses.

        A hypothesis such as ``epsilon > 0`` on a symbol declared
        ``positive=True`` simplifies to ``True`` in sympy and could never
        fail; the domain check here is what enforces it.
        """
        for sym in self.symbols:
            if sym.name not in env:
                continue
            v = env[sym.name]
            checks = []
            if sym.is_positive:
                checks.append((arith.gt(v, 0), f"{sym.name} > 0"))
            elif sym.is_nonnegative:
                checks.append((arith.ge(v, 0), f"{sym.name} >= 0"))
            if sym.is_negative:
                checks.append((arith.lt(v, 0), f"{sym.name} < 0"))
            if sym.is_integer:
                integral = (v.q == 1) if isinstance(v, fmpq) else (v.unique_fmpz() is not None)
                checks.append((integral, f"{sym.name} is an integer"))
            for ok, text in checks:
                if ok is False:
                    shown = {k: str(val) for k, val in params.items()}
                    raise HypothesisViolation(self.key, f"{text} (domain of {sym.name})", shown)

    def side(self, which: str, **params: Any) -> Any:
        """One side (``"lhs"`` or ``"rhs"``) at the current precision, hypotheses checked first."""
        self.check_hypotheses(**params)
        return self._side(which, self._env(params))

    def _side(self, which, env):
        if which in self.numeric:
            return self.numeric[which](**env)
        expr = getattr(self.statement, which)
        return _ev(expr, dict(env))

    def bound(self, **params: Any) -> Any:
        """The bound side (``rhs``) of an upper/lower bound at the current precision, hypotheses checked."""
        if self.kind not in ("upper_bound", "lower_bound"):
            raise InvalidArgument("result", self.key, "is not a bound (kind is %s)" % self.kind)
        return self.side("rhs", **params)

    def evaluate(self, *, prec: int = arith.DEFAULT_PREC, **params: Any) -> Evaluation:
        """Evaluate both sides and the relation at ``params`` (exact strings/rationals or balls).

        Raises :class:`HypothesisViolation` outside the hypotheses.  The
        relation's truth is three-valued; precision escalates (from ``prec``)
        until it is decided or the cap is reached, in which case ``holds`` is
        ``None``.
        """
        self.check_hypotheses(**params)
        env = self._env(params)
        st = self.statement
        if not isinstance(st, sp.core.relational.Relational):
            raise InvalidArgument("result", self.key, "has no two-sided statement to evaluate")
        rel = st.rel_op

        def compute(p):
            try:
                lhs = self._side("lhs", env) if (self.numeric.get("lhs") or not self._quantity_symbols()) else None
                rhs = self._side("rhs", env)
            except Undecided:
                return (None, None, None)
            if lhs is None:
                return (None, rhs, None)
            return (lhs, rhs, _rel(rel, lhs, rhs))

        def decided(r):
            if r[2] is not None or (r[0] is None and r[1] is not None):
                return True
            # equality between balls that overlap cannot be decided by more precision:
            # report it as "not refuted" (holds=None) at once instead of escalating to the cap
            return rel == "==" and r[0] is not None and r[1] is not None

        try:
            (lhs, rhs, holds), used = arith.escalate(compute, decided, start=prec)
        except Undecided:
            with arith.precision(arith.MAX_PREC):
                lhs, rhs, holds = compute(arith.MAX_PREC)
            used = arith.MAX_PREC
        return Evaluation(self.key, dict(params), lhs, rhs, rel, holds, used)

    def check_symbolic(self) -> SymbolicCheck:
        """What sympy can establish outright; see :class:`SymbolicCheck`."""
        if self.symbolic is not None:
            return self.symbolic(self)
        st = self.statement
        if self.kind in ("identity", "equality") and isinstance(st, sp.Equality):
            diff = sp.simplify(st.lhs - st.rhs)
            if diff == 0:
                return SymbolicCheck(True, "simplify(lhs - rhs) == 0")
            return SymbolicCheck(None, "simplify(lhs - rhs)", f"residual {diff}")
        return SymbolicCheck(None, "not attempted", "checked numerically against exact values")


# ============================================================ registry
REGISTRY: dict[str, Result] = {}


#: key -> the name of the module that registered it (orders :func:`results` independently of import order)
_ORIGIN: dict[str, str] = {}


def register(result: Result, *, origin: str = "") -> Result:
    """Add a result to the registry (keys are unique) and return it; ``origin`` is the registering module."""
    if result.key in REGISTRY:
        raise InvalidArgument("key", result.key, "is already registered")
    REGISTRY[result.key] = result
    _ORIGIN[result.key] = origin
    return result


_RELATIONS = {">=": sp.Ge, "<=": sp.Le, ">": sp.Gt, "<": sp.Lt}

#: the fields of a :class:`Result` that are descriptive data, read from a paper module's TOML table
TABLE_FIELDS = (
    "key",
    "paper",
    "label",
    "variant",
    "title",
    "status",
    "status_note",
    "spec",
    "notes",
    "kind",
    "quantity",
    "mechanisms",
    "symbols",
    "domains",
    "grid",
    "known_false",
)


def read_table(filename: str) -> dict:
    """The TOML table ``filename`` shipped in this package (``blanket.proofs``), as plain data."""
    text = importlib.resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")
    return tomllib.loads(text)


class ResultTable:
    """The descriptive metadata of one paper module's results, joined by key with the code that evaluates them.

    A paper module keeps in Python only what is code — the sympy ``statement``, the ``hypotheses``, and the
    optional ``numeric`` / ``symbolic`` / ``exact`` callables — and reads everything else (label, variant, title,
    status, status note, spec reference, notes, kind, quantity, mechanisms, symbols with their domains, grid,
    known_false) from a TOML file next to it (``proofs/<module>.toml``, package data)::

        paper = "BBGN19"                 # default paper of every entry
        [domains]                        # default domain text of each symbol, by symbol name
        k = "k ≥ 2, the alphabet size"
        [[result]]
        key = "BBGN19 Lemma 5.5 [krr]"
        label = "Lemma 5.5"
        variant = "krr"
        title = "…"
        status = "derived"
        kind = "upper_bound"
        symbols = ["k", "m"]             # names, in order; the text is [domains]' unless ``domains`` overrides it
        domains = { m = "m ≥ 1" }
        grid = [{ k = 2, m = "20" }]

    :meth:`register` builds the :class:`Result` (key must be in the table, once) and registers it;
    :meth:`complete` (called at the end of the module) fails if a table entry has no code.  A symbol name is
    resolved to the sympy symbol of that name among the ``symbols`` given to :meth:`register`, else in the statement or
    hypotheses, else in ``namespace`` (the module's globals); two different symbols of one name are an error.
    """

    def __init__(self, filename: str, namespace: Mapping[str, Any], *, data: Mapping[str, Any] | None = None) -> None:
        """``data``: the table's content given directly (a table built in memory, e.g. in tests) instead of
        reading ``filename``."""
        data = read_table(filename) if data is None else data
        self.filename = filename
        self.paper = data.get("paper")
        self.domains: dict[str, str] = dict(data.get("domains", {}))
        self.namespace = namespace
        self.entries: dict[str, dict] = {}
        for entry in data.get("result", []):
            unknown = set(entry) - set(TABLE_FIELDS)
            if unknown:
                raise InvalidArgument("table", filename, f"entry {entry.get('key')!r} has unknown fields {unknown}")
            if entry["key"] in self.entries:
                raise InvalidArgument("table", filename, f"lists {entry['key']!r} twice")
            self.entries[entry["key"]] = entry
        self.results: dict[str, Result] = {}

    def register(
        self,
        key: str,
        *,
        statement: Any,
        hypotheses: Sequence[Hypothesis] = (),
        numeric: Mapping[str, Callable[..., Any]] | None = None,
        symbolic: Callable[[Result], SymbolicCheck] | None = None,
        exact: Callable[..., Any] | None = None,
        symbols: Sequence[Any] = (),
    ) -> Result:
        """Register the result ``key`` of this table with its code; returns the :class:`Result`.  O(size of the
        statement)."""
        if key not in self.entries:
            raise InvalidArgument("key", key, f"has no entry in proofs/{self.filename}; add its metadata there")
        if key in self.results:
            raise InvalidArgument("key", key, "is already registered")
        entry = dict(self.entries[key])
        names = entry.pop("symbols", [])
        domains = {**self.domains, **entry.pop("domains", {})}
        known = {**self._symbols_of(statement, hypotheses), **{s.name: {s} for s in symbols}}
        syms = {}
        for name in names:
            if name not in domains:
                raise InvalidArgument("symbols", name, f"has no domain text for {key} in proofs/{self.filename}")
            syms[self._resolve(name, known, key)] = domains[name]
        meta = {"paper": self.paper, **entry}
        meta["mechanisms"] = tuple(meta.get("mechanisms", ("any",)))
        meta["grid"] = tuple(dict(p) for p in meta.get("grid", ()))
        result = Result(
            **meta,
            statement=statement,
            symbols=syms,
            hypotheses=tuple(hypotheses),
            numeric=dict(numeric or {}),
            symbolic=symbolic,
            exact=exact,
        )
        self.results[key] = register(result, origin=str(self.namespace.get("__name__", self.filename)))
        return result

    @staticmethod
    def _symbols_of(statement: Any, hypotheses: Sequence[Hypothesis]) -> dict[str, set]:
        out: dict[str, set] = {}
        atoms = set(getattr(statement, "atoms", lambda *_: set())(sp.Symbol))
        for h in hypotheses:
            atoms |= set(getattr(sp.sympify(h.relation), "atoms", lambda *_: set())(sp.Symbol))
        for s in atoms:
            out.setdefault(s.name, set()).add(s)
        return out

    def _resolve(self, name: str, known: Mapping[str, set], key: str) -> Any:
        cands = known.get(name, set())
        if not cands and self._module_symbols().get(name) is not None:
            cands = {self._module_symbols()[name]}
        if len(cands) != 1:
            what = "is ambiguous" if cands else "is not a symbol of the statement, hypotheses or module"
            raise InvalidArgument("symbols", name, f"{what} for {key}; pass it in register(..., symbols=...)")
        return next(iter(cands))

    def hyps(self, *texts: str, evaluate: bool = False) -> tuple[Hypothesis, ...]:
        """Hypotheses written as their text, ``"<symbol> <op> <expression>"`` with ``op`` one of ``>= <= > <``
        (``"k >= 2"``, ``"d <= k - 1"``): the symbol and the names of the expression are the module's (its
        ``namespace``), the relation is unevaluated unless ``evaluate`` (then sympy may fold it, e.g. to ``True``
        on a symbol declared positive).  A hypothesis with other wording is written as a :class:`Hypothesis`."""
        out = []
        for text in texts:
            parts = text.split(" ", 2)
            if len(parts) != 3 or parts[1] not in _RELATIONS:
                raise InvalidArgument("hypothesis", text, "must read '<symbol> <op> <expression>', op in >= <= > <")
            names = self._module_symbols()
            if names.get(parts[0]) is None:
                raise InvalidArgument("hypothesis", text, f"{parts[0]} is not one symbol of {self.filename}'s module")
            lhs, rhs = names[parts[0]], sp.sympify(parts[2], locals={k: v for k, v in names.items() if v is not None})
            rel = _RELATIONS[parts[1]]
            out.append(Hypothesis(rel(lhs, rhs, evaluate=True) if evaluate else rel(lhs, rhs, evaluate=False), text))
        return tuple(out)

    def _module_symbols(self) -> dict[str, Any]:
        """The module's sympy symbols by name: the global of that name if it is that symbol, else the one global
        symbol of that name (``None`` where several differ)."""
        names: dict[str, Any] = {}
        for v in self.namespace.values():
            if isinstance(v, sp.Symbol):
                names[v.name] = v if names.get(v.name, v) == v else None
        for name in names:
            v = self.namespace.get(name)
            if isinstance(v, sp.Symbol) and v.name == name:
                names[name] = v
        return names

    def __getitem__(self, key: str) -> Result:
        return self.results[key]

    def complete(self) -> None:
        """Fail if an entry of the table was not registered (metadata without code)."""
        missing = [k for k in self.entries if k not in self.results]
        if missing:
            raise InvalidArgument("table", self.filename, f"has entries without code: {missing}")


def results(
    paper: str | None = None,
    *,
    include_false: bool = True,
    label: str | None = None,
    kind: str | None = None,
    quantities: Collection[str] | None = None,
    mechanisms: Collection[str] | None = None,
) -> list[Result]:
    """Every registered result (of one paper if given), grouped by registering module (in name order) and in
    registration order within a module: the same order whichever module a process imported first.

    ``label``, ``kind``, ``quantities`` and ``mechanisms`` select by metadata (its label as printed, its kind, its
    quantity among ``quantities``, one of its mechanisms — lower-cased — among ``mechanisms``): the list is then the
    full list filtered, and only the paper modules holding a selected result are imported (each module's formulas
    are built on first use, :func:`_index`).  O(registry size) plus the imports."""
    if paper is not None:
        paper = PAPER_ALIASES.get(paper, paper)
        if paper not in PAPERS:
            raise InvalidArgument("paper", paper, f"must be one of {sorted(PAPERS) + sorted(PAPER_ALIASES)}")
    mechs = None if mechanisms is None else {str(m).lower() for m in mechanisms}

    def selected(meta: Any) -> bool:
        return (
            (paper is None or meta.paper == paper)
            and (include_false or not meta.known_false)
            and (label is None or meta.label == label)
            and (kind is None or meta.kind == kind)
            and (quantities is None or meta.quantity in quantities)
            and (mechs is None or bool({str(m).lower() for m in meta.mechanisms} & mechs))
        )

    if paper is None and label is None and kind is None and quantities is None and mechanisms is None:
        _load_all()
    else:
        _load_modules({module for module, meta in _index().values() if selected(meta)})
    ordered = sorted(REGISTRY.values(), key=lambda r: _ORIGIN.get(r.key, ""))  # stable: registration order kept
    return [r for r in ordered if selected(r)]


def lookup(key: str) -> Result | None:
    """The result registered under ``key`` (its paper module imported if it is not yet), or ``None``.  O(1) once the
    module is imported."""
    if key not in REGISTRY and key in _index():
        _load_modules({_index()[key][0]})
    return REGISTRY.get(key)


def get(key_or_label: str, variant: str | None = None) -> Result:
    """Find a result by key, or by a label like ``"BBGN19 Theorem 5.3"`` plus ``variant``.  Imports only the paper
    modules that hold a result of that key or label."""
    if key_or_label in REGISTRY and variant is None:
        return REGISTRY[key_or_label]
    _load_modules(
        {
            module
            for key, (module, meta) in _index().items()
            if key_or_label in (key, f"{meta.paper} {meta.label}", meta.label)
        }
    )
    if key_or_label in REGISTRY and variant is None:
        return REGISTRY[key_or_label]
    cands = [
        r
        for r in REGISTRY.values()
        if (r.key == key_or_label or f"{r.paper} {r.label}" == key_or_label or r.label == key_or_label)
        and (variant is None or r.variant == variant)
    ]
    if len(cands) == 1:
        return cands[0]
    if not cands and variant is not None:  # the label exists, the variant does not: name the variant
        same = sorted(
            {str(r.variant) for r in REGISTRY.values() if key_or_label in (r.key, f"{r.paper} {r.label}", r.label)}
        )
        if same:
            has = f"its variants: {', '.join(same)}" if same != ["None"] else "it has no variants (drop --variant)"
            raise InvalidArgument("--variant", variant, f"is not a variant of {key_or_label!r}; {has}")
    if not cands:
        raise InvalidArgument("bound", key_or_label, "is not a registered result (run `blanket bounds` for the list)")
    variants = sorted({str(r.variant) for r in cands})
    raise InvalidArgument(
        "bound", key_or_label, f"has several variants; pick one with --variant ({', '.join(variants)})"
    )


_LOADED = False


def _load_all():
    """Import every paper module of ``proofs`` so that its results are registered."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True

    for m in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        if m.name not in ("core",) and not m.name.startswith("_"):
            importlib.import_module(f"blanket.proofs.{m.name}")


@dataclass(frozen=True)
class _Meta:
    """A result's metadata as its module's TOML table gives it (what :func:`results` selects on)."""

    paper: str
    label: str
    kind: str
    quantity: str | None
    mechanisms: tuple
    known_false: bool


_INDEX: dict[str, tuple[str, _Meta]] | None = None


def _index() -> dict[str, tuple[str, _Meta]]:
    """Every result key of every paper module's table (``proofs/<module>.toml``) -> (module, metadata), read from the
    tables alone: which modules to import for a key, a label or a selection, without building any formula (a paper
    module's import builds all of its sympy statements, ~0.1–1.4 s each).  Read once per process, O(table size)."""
    global _INDEX
    if _INDEX is None:
        index = {}
        for f in sorted(importlib.resources.files(__package__).iterdir(), key=lambda f: f.name):
            if not f.name.endswith(".toml"):
                continue
            data = tomllib.loads(f.read_text(encoding="utf-8"))
            for e in data.get("result", []):
                meta = _Meta(
                    paper=e.get("paper", data.get("paper")),
                    label=e.get("label", ""),
                    kind=e.get("kind", "inequality"),
                    quantity=e.get("quantity"),
                    mechanisms=tuple(e.get("mechanisms", ("any",))),
                    known_false=bool(e.get("known_false", False)),
                )
                index[e["key"]] = (f.name[: -len(".toml")], meta)
        _INDEX = index
    return _INDEX


def _load_modules(names: Collection[str]) -> None:
    """Import the paper modules ``names`` (their results register themselves); a no-op for one already imported."""
    for name in sorted(names):
        importlib.import_module(f"blanket.proofs.{name}")
