"""Bound files for :mod:`reports.bound_check`: what a researcher hands in, read as data (or run in a sandbox).

Bound files
-----------
*Python module* (``*.py``)::

    NAME = "Doe 2025, Theorem 2"           # optional, shown in the report
    MECHANISM = "krr"                        # "krr" (k-ary RR), "binary" (k = 2), or a frequency oracle
                                             #   on k values: "oue", "sue", "hadamard", "olh:g=2", "subset:d=2"
    QUANTITY = "delta"                       # "delta" (define delta(...)) or "epsilon" (define epsilon(...))
    DOMAIN = {"epsilon0": ("0.1", "3"),      # the region the bound claims to cover (closed ranges);
              "n": (2, 10**6),               #   exact numbers: ints, Fractions or decimal strings —
              "k": (2, 10),                  #   never floats
              "epsilon": ("0.01", "2")}      # for QUANTITY = "epsilon": "delta": ("1e-10", "0.1")

    def delta(epsilon, epsilon0, n, k):      # any subset of these parameter names
        ...

The function receives ``fractions.Fraction`` (``n``, ``k`` as ``int``) and may
return an exact number (``int``, ``Fraction``, ``flint.fmpq``), a certified
ball (``flint.arb``), a sympy expression (evaluated rigorously by
:func:`proofs.core.arb_eval`) or a ``float`` / ``mpmath.mpf``.

*Symbolic file* (``*.txt``): ``key: value`` lines, ``#`` comments::

    mechanism: krr
    quantity: delta
    epsilon0: 0.1 .. 3
    n: 2 .. 1000000
    k: 2 .. 10
    epsilon: 0.01 .. 2
    bound: exp(epsilon0) * sqrt(8*log(4/epsilon)/n)

The ``bound`` is parsed by sympy with decimals made exact rationals, and
evaluated in ball arithmetic — a symbolic bound is checked rigorously, with no
floating-point caveat.  The formula is read by an explicit whitelist grammar
(:mod:`reports.formula`: numbers, the parameter names, ``+ - * / ^``,
parentheses and a fixed list of functions); nothing in it is ever run as
Python, and any other token is refused, named in the error.

A ``.py`` file **is code**: it is imported and called only in a separate
process (:mod:`reports.bound_worker`) with a memory limit (``--max-memory``)
and a hard wall-clock limit (``--budget``).  ``SystemExit`` (any code), a
crash, running out of memory or time inside it means "the bound could not be
evaluated" (exit 2), never "not refuted".  Only check files you would run.

*Registered results*: :func:`registered_bound` wraps a result of the
``proofs`` registry (its ``Result.bound``), so the paper-check report and this
one share the same search.

Float model
-----------
A float (or ``mpmath.mpf``) result ``b`` is treated as the interval
``[b − e, b + e]`` with ``e = 1e-12·|b| + 1e-300`` (relative error 1e-12 plus
absolute 1e-300: the plausible accumulated rounding of a few dozen
double-precision operations, and underflow).  A violation is claimed only when
the exact divergence's certified lower end exceeds ``b + e``; points inside
the error band are reported as "within float error", never as violations.
``nan`` results are reported as invalid evaluations; ``+inf`` is a (trivially
true) bound.

"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import pathlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy as sp
from blanket.exact.mechanisms import oracles as O
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from blanket.exact.numbers.guards import check_epsilon0, max_memory
from blanket.exact.shuffled.oracles import OracleMatrix
from blanket.proofs.core import get
from blanket.reports.bound_values import BoundValue
from blanket.reports.bound_worker import BoundProcess
from blanket.reports.formula import parse_formula
from flint import arb, ctx, fmpq

from .latex import display as latex_display
from .latex import display_result as latex_display_result

if TYPE_CHECKING:
    from collections.abc import Iterable

    from blanket.exact.mechanisms.finite import FiniteRandomizer, Randomizer
    from blanket.exact.numbers.types import Enclosure, NumberInput

#: the registry's kinds check-bound judges with its own engines -> their names here
MECHANISMS = {"krr": "krr", "binary_rr": "binary"}
#: frequency oracles on k input values (exact.mechanisms.oracles) and their one extra parameter, if any:
#: ``MECHANISM = "subset:d=2"`` (subset size), ``"olh:g=2"`` (hash range; the family of all maps [k] -> [g])
ORACLES = {"oue": None, "sue": None, "hadamard": None, "olh": "g", "subset": "d"}
QUANTITIES = ("delta", "epsilon")
#: default region for registered results (their hypotheses cut it further)
REGISTERED_DOMAIN = {
    "epsilon0": ("0.1", "3"),
    "n": (2, 10**4),
    "k": (2, 10),
    "epsilon": ("0.05", "2"),
    "delta": ("1e-10", "0.1"),
}


# ============================================================ bounds
@dataclasses.dataclass
class Bound:
    """A bound under test: what it claims (mechanism, quantity, domain) and how to evaluate it.

    ``evaluate(params)`` takes ``{name: fmpq or int}`` and returns a
    :class:`BoundValue`; it may raise :class:`HypothesisViolation` (the point
    is outside the bound's hypotheses; skipped) or anything else (recorded as
    an invalid evaluation).
    """

    name: str
    source: str
    kind: str  # "python", "sympy", "registered"
    mechanism: str  # "krr", "binary" or a frequency oracle ("oue", "subset:d=2", ...)
    quantity: str  # "delta" or "epsilon"
    domain: dict[str, tuple[Any, Any]]  # name -> (lo, hi) exact (fmpq; ints for n, k)
    evaluate: Callable[[dict], BoundValue]
    sha256: str | None = None
    text: str = ""  # the formula or source excerpt shown in the report
    latex: str = ""  # LaTeX of a symbolic bound (produced by sympy)
    worker: Any = None  # the BoundProcess running the bound's code (files only)

    def close(self) -> None:
        """Stop the sandbox process that runs a bound file's code (``.py``, and the formula of a ``.txt``), and
        every process of its group; nothing for a registered result.  Idempotent.  After it, ``evaluate`` raises
        :class:`~reports.bound_worker.BoundNotEvaluable`.  The process otherwise lives as long as this object (a
        library caller that loads many bounds should close each, or use ``with load_bound(path) as b:``).  O(1)
        (waits at most about 2 s for the child to exit)."""
        if self.worker is not None:
            self.worker.close()

    def __enter__(self) -> Bound:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> dict:
        """The report's plain-data record: the plain fields as they are, the domain's ends as exact strings."""
        plain = {name: getattr(self, name) for name in ("name", "source", "kind", "mechanism", "quantity", "sha256")}
        domain = {k: [_exact_str(lo), _exact_str(hi)] for k, (lo, hi) in self.domain.items()}
        return {**plain, "domain": domain, "text": self.text}


def _exact_str(q) -> str:
    if isinstance(q, int):
        return str(q)
    q = arith.exact(q)
    s = arith.decimal_string(q, 12, up=True)
    return s if arith.exact(s) == q else f"{q.p}/{q.q}"  # flint str: no 4300-digit limit


def _parse_range(name: str, value: object, integer: bool = False) -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidArgument(f"DOMAIN[{name!r}]", value, "must be a pair (lo, hi)")
    if integer:
        ilo = arith.integer_in(value[0], f"DOMAIN[{name!r}] lower end", lo=1)
        ihi = arith.integer_in(value[1], f"DOMAIN[{name!r}] upper end", lo=ilo)
        return ilo, ihi
    lo = arith.exact(value[0], f"DOMAIN[{name!r}] lower end")
    hi = arith.exact(value[1], f"DOMAIN[{name!r}] upper end")
    if hi < lo:
        raise InvalidArgument(f"DOMAIN[{name!r}]", f"({value[0]}, {value[1]})", "must have lo <= hi")
    return lo, hi


def parse_domain(domain: dict, quantity: str, mechanism: str) -> dict[str, tuple[Any, Any]]:
    """Validate a ``DOMAIN`` dict: exact ranges for ``epsilon0``, ``n``, ``k`` and ``epsilon`` or ``delta``.

    >>> d = parse_domain({"epsilon0": ("0.5", "1"), "n": (2, 100), "epsilon": ("0.1", "1")}, "delta", "binary")
    >>> d["k"], d["n"]
    ((2, 2), (2, 100))
    >>> parse_domain({"epsilon0": (0.5, 1)}, "delta", "krr")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.FloatRefused: DOMAIN['epsilon0'] lower end must be exact (int, Fraction, flint.fmpq or a decimal string such as '0.3' or '1e-8'), not a binary float, got 0.5 (pass DOMAIN['epsilon0'] lower end='0.5' as a string, or allow_float=True to use the float's exact binary value)
    """
    if not isinstance(domain, dict):
        raise InvalidArgument("DOMAIN", domain, "must be a dict {name: (lo, hi)}")
    other = "epsilon" if quantity == "delta" else "delta"
    allowed = {"epsilon0", "n", "k", other}
    for key in domain:
        if key not in allowed:
            raise InvalidArgument("DOMAIN key", key, f"must be one of {sorted(allowed)} for a {quantity}-bound")
    out: dict[str, tuple[Any, Any]] = {}
    for key in ("epsilon0", other):
        if key not in domain:
            raise InvalidArgument("DOMAIN", sorted(domain), f"must give a range for {key!r}")
        out[key] = _parse_range(key, domain[key])
    if out["epsilon0"][0] <= 0:
        raise InvalidArgument("DOMAIN['epsilon0'] lower end", str(out["epsilon0"][0]), "must be > 0")

    check_epsilon0(out["epsilon0"][1], "DOMAIN['epsilon0'] upper end")
    if other == "epsilon" and out["epsilon"][0] < 0:
        raise InvalidArgument("DOMAIN['epsilon'] lower end", str(out["epsilon"][0]), "must be >= 0")
    if other == "delta" and not (0 < out["delta"][0] and out["delta"][1] < 1):
        raise InvalidArgument("DOMAIN['delta']", f"({out['delta'][0]}, {out['delta'][1]})", "must lie inside (0, 1)")
    if "n" not in domain:
        raise InvalidArgument("DOMAIN", sorted(domain), "must give a range for 'n'")
    out["n"] = _parse_range("n", domain["n"], integer=True)
    if out["n"][0] < 2:
        raise InvalidArgument("DOMAIN['n'] lower end", out["n"][0], "must be >= 2 (shuffling needs two users)")
    if mechanism == "binary":
        if "k" in domain and tuple(_parse_range("k", domain["k"], integer=True)) != (2, 2):
            raise InvalidArgument("DOMAIN['k']", domain["k"], "must be (2, 2) for a binary-RR bound (or be left out)")
        out["k"] = (2, 2)
    else:
        if "k" not in domain:
            raise InvalidArgument("DOMAIN", sorted(domain), "must give a range for 'k' for a k-RR bound")
        out["k"] = _parse_range("k", domain["k"], integer=True)
        if out["k"][0] < 2:
            raise InvalidArgument("DOMAIN['k'] lower end", out["k"][0], "must be >= 2")
        if mechanism.startswith("subset:"):
            d = int(mechanism.partition("=")[2])
            if out["k"][0] < d + 1:
                raise InvalidArgument(
                    "DOMAIN['k'] lower end", out["k"][0], f"must be >= d + 1 = {d + 1} for {mechanism}"
                )
    return out


def _norm_mechanism(m, where="MECHANISM"):
    """``"krr"``, ``"binary"`` or a frequency oracle in canonical form (``"subset:d=2"``, ``"olh:g=2"``, ``"oue"``).

    Words come from the one vocabulary (:data:`blanket.exact.mechanisms.registry.WORDS`, with its aliases and
    "did you mean"); ``"rr"`` is k-ary RR here because a bound's domain always ranges over ``k``
    (``DOMAIN['k'] = [2, 2]`` is binary RR).  ``rr2`` is kept as an old spelling of binary RR.

    >>> _norm_mechanism("Subset: d = 2"), _norm_mechanism("rr"), _norm_mechanism("RAPPOR")
    ('subset:d=2', 'krr', 'sue')
    """
    key = str(m).strip().lower().replace(" ", "")
    word, _, rest = key.partition(":")
    if word in ("rr", "rr2") and not rest:
        return "krr" if word == "rr" else "binary"
    if word not in registry.WORDS:
        raise InvalidArgument(
            where,
            m,
            "must be k-ary or binary randomized response ('krr', 'binary') or a frequency oracle "
            "'oue', 'sue', 'hadamard', 'olh:g=<range>', 'subset:d=<size>'",
            hint=registry.did_you_mean(word, [*registry.WORDS, *MECHANISMS]),
        )
    kind = registry.resolve(word, k=3)
    if kind in (registry.Kind.KRR, registry.Kind.BINARY_RR) and not rest:
        return MECHANISMS[kind.value]
    if kind.value not in ORACLES:
        raise InvalidArgument(
            where,
            m,
            f"names '{kind.value}', which check-bound cannot judge (it needs an explicit randomizer on k values: "
            "k-ary or binary RR, 'oue', 'sue', 'hadamard', 'olh:g=<range>', 'subset:d=<size>')",
        )
    kind_word = kind.value
    extra = ORACLES[kind_word]
    if extra is None:
        if rest:
            raise InvalidArgument(where, m, f"takes no parameter for '{kind_word}' (write just '{kind_word}')")
        return kind_word
    name, _, value = rest.partition("=")
    if name != extra or not value.isdigit() or int(value) < (2 if extra == "g" else 1):
        raise InvalidArgument(
            where, m, f"must name its {extra} for '{kind_word}', e.g. '{kind_word}:{extra}=2' (an integer >= 1)"
        )
    return f"{kind_word}:{extra}={int(value)}"


def is_oracle(mechanism: str) -> bool:
    """True for a frequency-oracle mechanism string (canonical form)."""
    return mechanism.partition(":")[0] in ORACLES


def mechanism_record(mechanism: str, k: int, epsilon0: NumberInput) -> Randomizer:
    """The randomizer a bound is judged against at ``(k, ε0)`` (ε0 exact; balls at the current precision).

    ``krr``/``binary``: :class:`KRR`; a frequency oracle: its record from
    :mod:`exact.mechanisms.oracles` (``olh``: the family of all maps
    ``[k] → [g]``, pairwise independent; constant maps included and credited
    to the blanket).
    """
    if not is_oracle(mechanism):
        return KRR(k, epsilon0=epsilon0)

    kind, _, rest = mechanism.partition(":")
    val = int(rest.partition("=")[2]) if rest else None
    if kind == "oue":
        return O.OUE(k, epsilon0=epsilon0)
    if kind == "sue":
        return O.SUE(k, epsilon0=epsilon0)
    if kind == "hadamard":
        return O.Hadamard(k, epsilon0=epsilon0)
    assert val is not None  # "subset:d=D" and "olh:g=G" carry their parameter (_norm_mechanism)
    if kind == "subset":
        return O.Subset(k, val, epsilon0=epsilon0)
    fam = list(itertools.product(range(val), repeat=k))
    return O.OLH(k, val, epsilon0=epsilon0, family=fam, constant="family")


def mechanism_matrix(mechanism: str, k: int, epsilon0: NumberInput) -> FiniteRandomizer:
    """The explicit randomizer for the exhaustive worst case: :class:`KRR` or
    :class:`exact.shuffled.oracles.OracleMatrix` (ball entries, proportional columns merged)."""
    rec = mechanism_record(mechanism, k, epsilon0)
    if isinstance(rec, KRR):  # krr/binary: the record is its matrix (a frequency oracle's record is not KRR)
        return rec

    return OracleMatrix(rec)


def _norm_quantity(q, where="QUANTITY"):
    key = str(q).strip().lower()
    if key not in QUANTITIES:
        raise InvalidArgument(
            where, q, "must be 'delta' (the file defines delta(...)) or 'epsilon' (defines epsilon(...))"
        )
    return key


def load_bound(path: str | pathlib.Path, *, deadline: float | None = None) -> Bound:
    """Load a bound file (``.py`` module or ``.txt`` symbolic file); validates everything it declares.

    The file's code (``.py``) and the formula's evaluation (``.txt``) run in a separate process
    (:mod:`reports.bound_worker`) with a memory limit and, when ``deadline`` (``time.monotonic()``) is
    given, a hard wall-clock limit; :class:`~reports.bound_worker.BoundNotEvaluable` (exit 2) when it
    crashes, exits or does not answer in time.
    """
    path = pathlib.Path(path)
    if not os.path.lexists(path):
        raise InvalidArgument("FILE", str(path), "does not exist")
    data = guards.read_capped(path, MAX_BOUND_FILE_BYTES, name="FILE")  # regular files only, capped before reading
    sha = hashlib.sha256(data).hexdigest()
    if path.suffix == ".py":
        return _load_python(path, sha, deadline)
    if path.suffix in (".txt", ".bound"):
        return _load_text(path, data.decode("utf-8", errors="replace"), sha, deadline)
    raise InvalidArgument("FILE", str(path), "must be a Python module (.py) or a symbolic bound file (.txt)")


#: largest bound file accepted (bytes)
MAX_BOUND_FILE_BYTES = 1 << 20


def _worker_evaluate(worker, quantity_other: str):
    """``evaluate(params)`` of a :class:`Bound` whose code runs in ``worker`` (a BoundProcess)."""

    def evaluate(params):
        where = ", ".join(f"{k}={_exact_str(v)}" for k, v in sorted(params.items()))
        msg = worker.evaluate(params, _prec(), where)
        if msg[0] == "skip":
            kind, text = msg[1], msg[2]
            if kind == "outside-hypotheses":
                raise HypothesisViolation("bound", text)
            if kind == "undecided":
                raise Undecided(text)
            raise _InvalidEvaluation(text)
        val, floating, raw, center = msg[1]
        value: Enclosure | None = None
        if val is not None:
            lo, hi, is_exact = val
            if is_exact and lo == hi:
                value = fmpq(lo.numerator, lo.denominator)
            else:
                value = arb(fmpq(lo.numerator, lo.denominator)).union(arb(fmpq(hi.numerator, hi.denominator)))
        return BoundValue(value, floating, raw, center)

    return evaluate


def _prec() -> int:

    return ctx.prec


class _InvalidEvaluation(BlanketError):
    """The bound raised an ordinary exception at one point (recorded as an invalid evaluation there)."""


def _load_python(path: pathlib.Path, sha: str, deadline: float | None = None) -> Bound:

    worker = BoundProcess(path, "python", memory=max_memory(), deadline=deadline)
    meta = worker.meta
    try:
        for attr in ("MECHANISM", "DOMAIN"):
            if not meta["has"][attr]:
                raise InvalidArgument("FILE", str(path), f"must define {attr} (see `blanket check-bound --help`)")
        mechanism = _norm_mechanism(meta["MECHANISM"])
        quantity = _norm_quantity(meta["QUANTITY"])
        if not meta.get("callable"):
            raise InvalidArgument(
                "FILE", str(path), f"must define a function {quantity}(...) for QUANTITY = {quantity!r}"
            )
        domain = parse_domain(meta["DOMAIN"], quantity, mechanism)
        allowed = {"epsilon0", "n", "k", "epsilon" if quantity == "delta" else "delta"}
        for name, kind, has_default in meta["params"]:
            if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
                continue
            if name not in allowed and not has_default:
                raise InvalidArgument(f"{quantity}() parameter", name, f"must be one of {sorted(allowed)}")
    except BaseException:
        worker.close()
        raise
    name = meta["NAME"] or path.stem
    b = Bound(
        name,
        str(path),
        "python",
        mechanism,
        quantity,
        domain,
        _worker_evaluate(worker, quantity),
        sha,
        meta.get("text", ""),
    )
    b.worker = worker
    return b


#: the keys of a symbolic bound file (``.txt``), in the order documented
TEXT_KEYS = ("name", "mechanism", "quantity", "epsilon0", "n", "k", "epsilon", "delta", "bound")


def _load_text(path: pathlib.Path, text: str, sha: str, deadline: float | None = None) -> Bound:

    fields: dict[str, str] = {}
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            raise InvalidArgument(f"{path.name} line {lineno}", line[:200], "must look like 'key: value'")
        key, val = (s.strip() for s in line.split(":", 1))
        key = key.lower()
        if key not in TEXT_KEYS:
            raise InvalidArgument(
                f"{path.name} line {lineno}",
                key[:80],
                "is not a known key",
                hint="; ".join(
                    x for x in (registry.did_you_mean(key, TEXT_KEYS), f"known keys: {', '.join(TEXT_KEYS)}") if x
                ),
            )
        if key in fields:  # two `bound:` lines (or two of any key) would silently keep the last one
            raise InvalidArgument(
                f"{path.name} line {lineno}",
                f"{key}: {val[:80]}",
                f"repeats the key '{key}' of line {seen[key]}",
                hint="keep one of them",
            )
        fields[key], seen[key] = val, lineno
    for req in ("mechanism", "bound"):
        if req not in fields:
            raise InvalidArgument("FILE", str(path), f"must have a '{req}:' line")
    mechanism = _norm_mechanism(fields["mechanism"], "mechanism")
    quantity = _norm_quantity(fields.get("quantity", "delta"), "quantity")
    dom = {}
    for key in ("epsilon0", "n", "k", "epsilon", "delta"):
        if key in fields:
            parts = [s.strip() for s in fields[key].split("..")]
            if len(parts) != 2:
                raise InvalidArgument(key, fields[key], "must be a range 'lo .. hi'")
            dom[key] = tuple(parts)
    domain = parse_domain(dom, quantity, mechanism)
    names = ["epsilon0", "n", "k", "epsilon" if quantity == "delta" else "delta"]
    # an explicit whitelist grammar (reports.formula): no Python is ever evaluated from the file
    expr = parse_formula(fields["bound"], names)
    worker = BoundProcess(
        fields["bound"], "sympy", names=names, memory=max_memory(), deadline=deadline, label=str(path)
    )
    b = Bound(
        fields.get("name", path.stem),
        str(path),
        "sympy",
        mechanism,
        quantity,
        domain,
        _worker_evaluate(worker, quantity),
        sha,
        fields["bound"],
        str(latex_display(sp.Le(sp.Symbol(quantity), expr, evaluate=False))),
    )
    b.worker = worker
    return b


def registered_bound(label: str, variant: str | None = None, *, mechanism: str | None = None) -> Bound:
    """A registered result of the four papers as a :class:`Bound` (its ``Result.bound`` side).

    The result must be an upper bound on ``delta`` or ``epsilon`` that
    applies to randomized response (``mechanisms`` containing ``"rr"``,
    ``"krr"`` or ``"any"``).  Its symbols are fed from ``epsilon0, n, k,
    epsilon | delta`` and ``gamma = k/(e^{ε0}+k−1)`` (the k-RR TV similarity,
    Lemma 5.1); points outside its hypotheses are skipped.
    """

    res = get(label, variant)
    if res.kind != "upper_bound" or res.quantity not in QUANTITIES:
        raise InvalidArgument(
            "--registered",
            res.key,
            f"is not an upper bound on delta or epsilon (kind {res.kind}, quantity {res.quantity})",
        )
    mechs = {str(m).lower() for m in res.mechanisms}
    if not mechs & {"rr", "krr", "any", "binary", "binary-rr", "ldp"}:  # ldp: every ε0-LDP randomizer, k-RR included
        raise InvalidArgument(
            "--registered", res.key, f"does not apply to randomized response (mechanisms {sorted(mechs)})"
        )
    mech = mechanism or ("binary" if mechs <= {"binary", "binary-rr"} else "krr")
    names = {s.name for s in res.symbols}
    supplied = {"epsilon0", "n", "k", "epsilon", "delta", "gamma"}
    unknown = names - supplied - set(res._quantity_symbols())
    needed = {nm for nm in unknown if not res._is_bound_var(nm)}
    if needed:
        raise InvalidArgument(
            "--registered", res.key, f"needs parameters {sorted(needed)} that check-bound cannot supply"
        )
    quantity = res.quantity
    if quantity in names and not res._is_bound_var(quantity):
        raise InvalidArgument(
            "--registered",
            res.key,
            f"must be a bound {quantity}(...) of the other parameters; this result takes {quantity} "
            "as an input, so check-bound cannot search it (see `blanket check-papers`)",
        )
    dom = {
        k: v
        for k, v in REGISTERED_DOMAIN.items()
        if k in ("epsilon0", "n", "k", "epsilon" if quantity == "delta" else "delta")
    }
    if mech == "binary":
        dom.pop("k")
    domain = parse_domain(dom, quantity, mech)

    def evaluate(params):
        p = dict(params)
        if "gamma" in names:
            e0 = arith.exp_ball(p["epsilon0"])
            p["gamma"] = p["k"] / (e0 + p["k"] - 1)
        p = {k: v for k, v in p.items() if k in names and k not in res._quantity_symbols()}
        p = {k: (fmpq(v) if isinstance(v, int) else v) for k, v in p.items()}
        return BoundValue(res.bound(**p), False, "")

    return Bound(
        res.key,
        f"registered result {res.key} ({res.status})",
        "registered",
        mech,
        quantity,
        domain,
        evaluate,
        None,
        res.title,
        str(latex_display_result(res)),
    )


def restrict_domain(bound: Bound, overrides: Iterable[str], *, within_declared: bool = True) -> Bound:
    """Narrow a bound's domain with ``["epsilon0=0.1..0.5", "n=1000..10000", ...]`` (CLI ``--domain``).

    For a bound file the new ranges must lie inside the declared domain (a
    bound is only checked where it claims to hold); for registered results
    (``within_declared=False``) they replace the default region.

    >>> b = Bound("b", "-", "python", "krr", "delta", {"epsilon0": (fmpq(1, 10), fmpq(3)), "n": (2, 100), "k": (2, 10),
    ...           "epsilon": (fmpq(1, 10), fmpq(1))}, lambda p: None)
    >>> restrict_domain(b, ["n=5..50"]).domain["n"]
    (5, 50)
    >>> restrict_domain(b, ["n=5..500"])
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: --domain n=5..500 must lie inside the declared domain [2, 100], got '5..500'
    """
    dom = dict(bound.domain)
    for item in overrides or ():
        if "=" not in item or ".." not in item:
            raise InvalidArgument("--domain", item, "must look like NAME=LO..HI, e.g. epsilon0=0.1..0.5")
        name, rng = (t.strip() for t in item.split("=", 1))
        if name not in dom:
            raise InvalidArgument("--domain", item, f"must name one of {sorted(dom)}")
        lo, hi = (t.strip() for t in rng.split("..", 1))
        new = _parse_range(name, (lo, hi), integer=name in ("n", "k"))
        if within_declared and not (dom[name][0] <= new[0] and new[1] <= dom[name][1]):
            raise InvalidArgument(
                f"--domain {item.split('=')[0]}={rng}".split(" ", 1)[0] + " " + f"{name}={rng}",
                rng,
                f"must lie inside the declared domain [{_exact_str(dom[name][0])}, {_exact_str(dom[name][1])}]",
            )
        dom[name] = new
    fixed = parse_domain(
        {
            k: ((str(v[0]), str(v[1])) if k not in ("n", "k") else v)
            for k, v in dom.items()
            if not (k == "k" and bound.mechanism == "binary")
        },
        bound.quantity,
        bound.mechanism,
    )
    return dataclasses.replace(bound, domain=fixed)
