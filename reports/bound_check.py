"""Certified counterexample search for a researcher's amplification-by-shuffling bound.

A researcher hands in a bound on the central privacy of shuffled randomized
response — a δ(ε, ε0, n, k) or an ε(δ, ε0, n, k) — and gets back either a
**certified counterexample** (parameters and a neighbouring dataset pair where
the true hockey-stick divergence provably exceeds the bound) or a **certified
statement of where it was checked and how tight it is**.

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

What is checked, and what "certified" means
-------------------------------------------
For a δ-bound at a point ``(k, ε0, n, ε)``: the true worst case
``δ_n(ε) = max over neighbouring datasets of D_{e^ε}`` is enclosed from below
by (a) the exact worst case over *all* datasets for small ``n``
(:func:`exact.shuffled.enumerate.worst_cases`), (b) the dataset families at larger
``n`` (:func:`exact.shuffled.binary.delta_binary_worst` — all datasets — for ``k = 2``,
:func:`exact.shuffled.krr.delta_krr_family` for ``k ≥ 3``).  A violation is
``lower(exact) > upper(bound)``; the witness dataset pair is re-computed
independently (:func:`exact.shuffled.enumerate.delta_dataset`, no symmetry reduction)
when ``n`` is small.  For an ε-bound at ``(k, ε0, n, δ)`` the claim is
``δ_n(ε_b) ≤ δ``; since ``δ_n`` is non-increasing in ε, the check evaluates
``δ_n`` at the certified *lower* end of ``ε_b`` (or 0 if that is negative) and
claims a violation when its lower end exceeds ``δ``.  A family witness is
re-computed by :func:`exact.shuffled.enumerate.delta_class` (a separate code path from
``exact.shuffled.binary`` / ``exact.shuffled.krr``) when that costs at most
:data:`REVERIFY_COST` elementary steps; the report marks it "re-verified".

Tightness: at every point that holds, ``bound / exact`` (how loose the bound
is against the exact lower value) and, for δ-bounds where Balle et al.'s
blanket view applies (k-RR), ``blanket / bound`` (the exact Lemma 5.3 upper
bound over all datasets relative to the bound: below 1 means the bound is
weaker than what the blanket view already certifies).

Search phases (within ``budget`` seconds, cheapest first)
    1. exhaustive: every ``n`` from the domain's lower end to ``n_exhaustive``
       on a grid of ``(k, ε0, ε or δ)``;
    2. families: a log-spaced grid of larger ``n`` up to ``n_max``;
    3. hypothesis: a random search (``hypothesis.find``, derandomized) over
       the small-``n`` domain whose shrinking drives a violation towards its
       smallest ``n``; finally every violation's parameters are re-scanned
       from the smallest ``n`` upwards, so the first violation listed is the
       smallest ``n`` at which the bound fails at those parameters.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import pathlib
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp
from blanket.exact.mechanisms import oracles as O
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from blanket.exact.numbers.guards import check_epsilon0, max_memory
from blanket.exact.runtime.progress import Progress
from blanket.exact.shuffled.binary import delta_binary_worst
from blanket.exact.shuffled.enumerate import delta_class, delta_dataset, worst_cases
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.exact.shuffled.oracles import OracleMatrix, blanket_view_delta_fast, same_family_delta
from blanket.proofs.core import get
from blanket.reports import latex
from blanket.reports.bound_values import FLOAT_MODEL, BoundValue
from blanket.reports.bound_worker import BoundNotEvaluable, BoundProcess
from blanket.reports.formula import parse_formula
from blanket.reports.output import write_document
from flint import arb, ctx, fmpq
from sympy.functions.combinatorial.numbers import partition

from .latex import display as latex_display
from .latex import display_result as latex_display_result

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from blanket.exact.mechanisms.finite import FiniteRandomizer, Randomizer
    from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput
    from blanket.reports.output import Written

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
PRECS = (128, 256, 512)
#: with ``max_evaluations``, a dataset-family computation at n users is charged n // FAMILY_COST_N evaluations
#: (the exact side's cost grows with n; charging it keeps an evaluation budget meaningful and deterministic)
FAMILY_COST_N = 2000
#: seconds past the budget a bound evaluation may take before its process is killed
DEADLINE_GRACE = 1.0


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


# ============================================================ the search
@dataclasses.dataclass
class Point:
    """One checked parameter point and its outcome."""

    phase: str
    k: int
    n: int
    epsilon0: fmpq
    param: fmpq  # epsilon (delta-bound) or delta (epsilon-bound)
    outcome: str  # "violated", "holds", "within-float-error", "undecided", "invalid", "outside-hypotheses"
    bound: Any = None  # BoundValue
    exact: Any = None  # enclosure of the exact (lower) value compared
    exact_kind: str = ""  # "worst case over all datasets", "family third", ...
    witness: dict | None = None
    blanket: Any = None  # blanket-view upper bound (delta-bounds)
    eps_used: Any = None  # epsilon-bounds: the epsilon at which delta was evaluated
    note: str = ""
    reverified: bool | None = None

    def key(self) -> tuple:
        return (self.k, self.n, self.epsilon0, self.param)


class _Budget(Exception):
    pass


class _HardStop(BaseException):
    """Raised by SIGALRM at the wall-clock budget's end (the search stops wherever it is)."""


#: the exact side where the ε compared is ≥ ε0: every mechanism here is ε0-LDP, so the shuffled mechanism is ε0-DP
#: (post-processing of the parallel composition of ε0-DP randomizers on neighbouring datasets, which differ in one
#: user) and δ(ε) = 0 exactly (docs/researcher.md, "delta = 0 for epsilon >= epsilon0")
EPS0_ZERO_KIND = "delta = 0 exactly for epsilon >= epsilon0 (the shuffled mechanism is epsilon0-DP)"

#: largest estimated number of dataset classes of the exhaustive phase at one (k, n)
MAX_EXHAUSTIVE_CLASSES = 10**6


def exhaustive_classes(k: int, n: int) -> int:
    """Upper estimate of the dataset classes :func:`exact.shuffled.enumerate.worst_cases` visits for k-RR at n users.

    k-RR classes are (holder counts of the two differing values, a partition of the rest): at most
    ``n^2 * p(n-1)`` (``p`` the partition function) and at most the multisets ``C(n+k-2, k-1)``.
    O(1) for small n (sympy's ``npartitions``).

    >>> exhaustive_classes(2, 8), exhaustive_classes(10**9, 8) < 10**4
    (8, True)
    """

    multisets = math.comb(n + k - 2, k - 1) if k - 1 <= n else None
    parts = n * n * int(partition(n - 1))
    return min(parts, multisets) if multisets is not None else parts


class Search:
    """The search state: the bound, the limits, and every checked point."""

    def __init__(
        self,
        bound: Bound,
        *,
        k=None,
        n_max=None,
        n_exhaustive=8,
        budget=120,
        progress=True,
        grid_size=4,
        max_evaluations: int | None = None,
    ):
        self.bound = bound
        self.t0 = time.monotonic()
        self.budget = budget
        if getattr(bound, "worker", None) is not None:  # the bound's process is killed at the budget's end
            bound.worker.deadline = self.t0 + budget + DEADLINE_GRACE
        #: a deterministic budget counted in evaluations of the bound (tests, reproducible runs); the
        #: wall-clock ``budget`` stays the hard limit
        self.max_evaluations = max_evaluations
        self.evaluations = 0
        self.progress = progress
        d = bound.domain
        if k is not None:
            k = arith.integer_in(k, "--k", lo=2)
            if not d["k"][0] <= k <= d["k"][1]:
                raise InvalidArgument(
                    "--k", k, f"must lie in the bound's declared domain k in [{d['k'][0]}, {d['k'][1]}]"
                )
            self.ks = [k]
        else:
            lo, hi = d["k"]
            self.ks = sorted({lo, hi, min(max(lo, 3), hi), min(max(lo, 4), hi)})
        self.n_lo, n_hi = d["n"]
        if n_max is not None:
            n_max = arith.integer_in(n_max, "--n-max", lo=2)
            if n_max < self.n_lo:
                raise InvalidArgument("--n-max", n_max, f"must be >= the domain's smallest n ({self.n_lo})")
        self.n_hi = min(n_hi, n_max) if n_max is not None else n_hi
        self.n_exhaustive = min(arith.integer_in(n_exhaustive, "--n-exhaustive", lo=2), self.n_hi)
        for kk in self.ks if not is_oracle(bound.mechanism) else []:
            est = exhaustive_classes(kk, self.n_exhaustive)
            if est > MAX_EXHAUSTIVE_CLASSES:
                ok = max(
                    [m for m in range(2, self.n_exhaustive) if exhaustive_classes(kk, m) <= MAX_EXHAUSTIVE_CLASSES]
                    or [2]
                )
                raise InvalidArgument(
                    "--n-exhaustive",
                    n_exhaustive,
                    f"needs an estimated {float(est):.3g} dataset classes at k = {kk} (more than "
                    f"{MAX_EXHAUSTIVE_CLASSES:.0e}, far beyond any time budget)",
                    hint=f"use --n-exhaustive {ok} or less; larger n are checked by the dataset families",
                )
        self.other = "epsilon" if bound.quantity == "delta" else "delta"
        self.eps0_grid = _grid(*d["epsilon0"], grid_size, log=True)
        self.param_grid = _grid(*d[self.other], grid_size, log=True)
        self.points: list[Point] = []
        self.phases: list[dict] = []
        self.notes: list[str] = []
        self._seen: set[tuple] = set()
        self.hypothesis_info: dict[str, Any] = {}
        #: the budgets that cut the search short, in the order they did: "evaluation" (``max_evaluations``) and/or
        #: "time" (the wall-clock ``budget``); empty when every phase ran to its end
        self.stopped_by: list[str] = []

    # ---------------------------------------------------------------- helpers
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def time_left(self, share: float = 1.0) -> float:
        """What is left of the budget's ``share``: seconds, or evaluations when ``max_evaluations`` is set."""
        if self.max_evaluations is not None:
            if self.elapsed() >= self.budget:
                return 0
            return self.max_evaluations * share - self.evaluations
        return self.budget * share - self.elapsed()

    def out_of_budget(self, share: float = 1.0) -> bool:
        """Whether the budget's ``share`` is used up (:meth:`time_left`); if so, records which budget stopped the
        search (:attr:`stopped_by`)."""
        if self.time_left(share) > 0:
            return False
        self._stopped(self.budget_kind())
        return True

    def _stopped(self, kind: str) -> None:
        if kind not in self.stopped_by:
            self.stopped_by.append(kind)

    def budget_kind(self) -> str:
        """Which budget ran out: ``"time"`` (the wall-clock ``budget``, always a hard limit) or ``"evaluation"``
        (``max_evaluations``, when given and the clock has not run out)."""
        if self.max_evaluations is not None and self.elapsed() < self.budget:
            return "evaluation"
        return "time"

    def params(self, k: int, n: int, e0: fmpq, v: fmpq) -> dict:
        p = {"epsilon0": e0, "n": n, self.other: v}
        p["k"] = k
        return p

    def eval_bound(self, k: int, n: int, e0: fmpq, v: fmpq) -> tuple[BoundValue | None, str, str]:
        self.evaluations += 1
        try:
            with arith.precision(128):
                bv = self.bound.evaluate(self.params(k, n, e0, v))
            return bv, "", ""
        except BoundNotEvaluable:
            raise  # SystemExit, crash, timeout or memory: the whole check is "could not be evaluated" (exit 2)
        except HypothesisViolation as exc:
            return None, "outside-hypotheses", str(exc)
        except Undecided as exc:
            return None, "undecided", str(exc)
        except BlanketError as exc:
            return None, "invalid", str(exc)
        except Exception as exc:  # the researcher's code raised: record it, keep searching
            return None, "invalid", f"{type(exc).__name__}: {exc}"

    # ---------------------------------------------------------------- the exact side
    def _eps_for_check(self, bv: BoundValue) -> fmpq:
        """Certified lower end of a claimed ε (0 if negative): δ_n is non-increasing in ε."""
        lo, _ = arith.endpoints(bv.value)
        return fmpq(0) if lo <= 0 else fmpq(lo.numerator, lo.denominator)

    def _compare(self, exact_val, bv: BoundValue, target=None) -> str:
        """Outcome at one point: violated / holds / within-float-error / undecided.

        δ-bounds (bound enclosure ``[B_lo, B_hi]``, exact enclosure
        ``[E_lo, E_hi]``): violated iff ``E_lo > B_hi``; holds iff
        ``E_hi <= B_lo`` — for a float ``f`` (``B = [f−e, f+e]``) holds iff
        ``E_hi <= f`` and "within float error" iff ``f < E_lo`` but not
        ``E_lo > f + e``; anything else is undecided (precision escalates).
        ε-bounds: ``exact_val`` encloses ``δ_n`` at the certified lower end of
        the claimed ε; violated iff its lower end exceeds the target δ, holds
        iff its upper end does not.
        """
        if self.bound.quantity == "epsilon":
            c = arith.gt(exact_val, target)
            return "violated" if c else ("holds" if c is False else "undecided")
        if bv.value is None:
            return "holds"
        b = arith.ball(bv.value)
        if arith.gt(exact_val, b.upper()):
            return "violated"
        if bv.floating:
            assert bv.center is not None  # a floating value carries its exact center
            f = fmpq(bv.center.numerator, bv.center.denominator)
            if arith.le(exact_val, f):
                return "holds"
            if arith.gt(exact_val, f):
                return "within-float-error"
            return "undecided"
        if isinstance(bv.value, fmpq):
            c = arith.le(exact_val, bv.value)
            return "holds" if c else ("violated" if c is False else "undecided")
        return "holds" if arith.le(exact_val, b.lower()) else "undecided"

    def _ldp_zero(self, phase: str, k: int, n: int, e0: fmpq, v: fmpq, bv: Any) -> Point | None:
        """The point decided by :data:`EPS0_ZERO_KIND` when the ε compared is ≥ ε0 (``None`` otherwise).

        Every mechanism of a bound file is ε0-LDP, so its shuffled mechanism is ε0-DP and δ(ε) = 0 exactly for
        ε ≥ ε0 (docs/researcher.md, "delta = 0 for epsilon >= epsilon0"): the exact side is the rational 0, no computation.  A δ-bound then holds iff
        its certified lower end is ≥ 0 and is violated iff its upper end is < 0; a ball straddling 0 (a bound equal
        to 0 computed in ball arithmetic) stays undecided, with a note.  ε-bounds: δ at the claimed ε is 0 ≤ target.
        """
        e = v if self.bound.quantity == "delta" else self._eps_for_check(bv)
        if e < e0:
            return None
        zero = fmpq(0)
        oc = self._compare(zero, bv, target=None if self.bound.quantity == "delta" else v)
        pt = Point(
            phase,
            k,
            n,
            e0,
            v,
            oc,
            bv,
            zero,
            EPS0_ZERO_KIND,
            None,
            eps_used=e if self.bound.quantity == "epsilon" else None,
        )
        if oc == "undecided":
            pt.note = (
                "delta = 0 exactly here (epsilon >= epsilon0); the bound's enclosure contains 0 and negative "
                "values, so its sign (>= 0: holds, < 0: violated) is not decided at this precision"
            )
        return pt

    def check_small(self, phase: str, k: int, n: int, e0: fmpq, values: Sequence[fmpq]) -> list[Point]:
        """Exhaustive worst case at small n for several ε / δ at once (precision escalates per point)."""

        out = []
        bvs = []
        for v in values:
            bv, outcome, note = self.eval_bound(k, n, e0, v)
            bvs.append((v, bv, outcome, note))
        todo = []
        for v, bv, oc, note in bvs:
            if bv is None:
                out.append(Point(phase, k, n, e0, v, oc, note=note))
                continue
            zero = self._ldp_zero(phase, k, n, e0, v, bv)
            if zero is not None:
                out.append(zero)
            else:
                todo.append((v, bv))
        if not todo:
            return out
        pending = todo
        for prec in PRECS:
            with arith.precision(prec):
                mech = mechanism_matrix(self.bound.mechanism, k, e0)
                eps = [v if self.bound.quantity == "delta" else self._eps_for_check(bv) for v, bv in pending]
                wcs = worst_cases(mech, n, epsilons=eps)
                nxt = []
                for (v, bv), e, wc in zip(pending, eps, wcs):
                    oc = self._compare(
                        wc.value if self.bound.quantity == "delta" else wc.value,
                        bv,
                        target=None if self.bound.quantity == "delta" else v,
                    )
                    if oc == "undecided" and prec != PRECS[-1]:
                        nxt.append((v, bv))
                        continue
                    d1, d2 = wc.pair()
                    pt = Point(
                        phase,
                        k,
                        n,
                        e0,
                        v,
                        oc,
                        bv,
                        wc.value,
                        "exact worst case over all datasets",
                        {
                            "dataset": d1,
                            "neighbour": d2,
                            "direction": "D(M(dataset) || M(neighbour))",
                            "value": wc.witness_value,
                        },
                        eps_used=e if self.bound.quantity == "epsilon" else None,
                    )
                    if oc == "violated":
                        self._reverify(pt, mech, wc, e, bv, v)
                    out.append(pt)
                pending = nxt
            if not pending:
                break
        return out

    def _reverify(self, pt: Point, mech, wc, e, bv, v):
        """Recompute the witness pair without any symmetry reduction and re-compare."""

        try:
            val = delta_dataset(mech, wc.others, wc.x, wc.x2, epsilon=e)
        except BlanketError:
            pt.reverified = None
            return
        oc = self._compare(val, bv, target=None if self.bound.quantity == "delta" else v)
        pt.reverified = oc == "violated"
        assert pt.witness is not None  # a re-verified point has a witness
        pt.witness["value"] = val
        pt.exact = val
        if not pt.reverified:
            pt.outcome = "undecided"
            pt.note = "witness re-computation did not confirm the violation"

    def check_large(self, phase: str, k: int, n: int, e0: fmpq, v: fmpq) -> list[Point]:
        """Dataset families at larger n: certified lower bounds on the worst case (one point)."""
        if self.max_evaluations is not None:  # deterministic cost model: the exact side at n costs n/FAMILY_COST_N
            self.evaluations += n // FAMILY_COST_N
        bv, oc, note = self.eval_bound(k, n, e0, v)
        if bv is None:
            return [Point(phase, k, n, e0, v, oc, note=note)]
        zero = self._ldp_zero(phase, k, n, e0, v, bv)
        if zero is not None:
            return [zero]
        for prec in PRECS:
            with arith.precision(prec):
                mech = mechanism_record(self.bound.mechanism, k, e0)
                e = v if self.bound.quantity == "delta" else self._eps_for_check(bv)
                try:
                    val, kind, witness = (
                        _family_lower(mech, n, e) if isinstance(mech, KRR) else _oracle_family_lower(mech, n, e)
                    )
                except BlanketError as exc:
                    return [Point(phase, k, n, e0, v, "undecided", bv, note=str(exc))]
                except Exception as exc:  # internal failure of an exact/ routine: never a verdict, never a traceback
                    msg = f"internal error in the exact computation: {type(exc).__name__}: {exc}"
                    _INTERNAL_ERRORS.append(msg + f" (k={k}, n={n}, epsilon0={_exact_str(e0)})")
                    return [Point(phase, k, n, e0, v, "undecided", bv, note=msg)]
                oc = self._compare(val, bv, target=None if self.bound.quantity == "delta" else v)
                if oc != "undecided" or prec == PRECS[-1]:
                    pt = Point(
                        phase,
                        k,
                        n,
                        e0,
                        v,
                        oc,
                        bv,
                        val,
                        kind,
                        witness,
                        eps_used=e if self.bound.quantity == "epsilon" else None,
                    )
                    # a k-RR witness names its class (_family_lower, _krr_families); an oracle's has none
                    if oc == "violated" and isinstance(mech, KRR) and witness.get("class") is not None:
                        again = _reverify_class(mech, n, e, witness["class"])
                        if again is not None:
                            pt.reverified = (
                                self._compare(again, bv, target=None if self.bound.quantity == "delta" else v)
                                == "violated"
                            )
                            if not pt.reverified:
                                pt.outcome = "undecided"
                                pt.note = (
                                    "witness re-computation (exact.shuffled.enumerate) did not confirm the violation"
                                )
                    return [pt]
        return []  # pragma: no cover

    def add(self, pts: Iterable[Point]) -> None:
        for p in pts:
            self.points.append(p)

    # ---------------------------------------------------------------- phases
    def run(self) -> Search:
        del _INTERNAL_ERRORS[:]
        # the backstop for the exact side fires after the bound's own deadline (budget + grace), so that a bound
        # stuck at that moment is reported as such (could not be evaluated), not as a stopped search
        alarm = _arm_alarm(self.budget + DEADLINE_GRACE + 1.0 - self.elapsed())
        try:
            self._run()
        except _HardStop:
            self._stopped("time")
            self.notes.append(
                f"the search was stopped at the wall-clock budget of {self.budget:g} s (hard limit); "
                "the phases after the interruption were not run"
            )
        finally:
            _disarm_alarm(alarm)
            for msg in dict.fromkeys(_INTERNAL_ERRORS):
                self.notes.append(msg)
        return self

    def _run(self):
        self.phase_exhaustive(0.45)
        self.phase_families(0.70)
        self.phase_hypothesis(0.90)
        self.phase_smallest_n()
        self.phase_tightness()
        return self

    def phase_exhaustive(self, share: float) -> None:

        ns = list(range(self.n_lo, self.n_exhaustive + 1))
        jobs = [(n, k, e0) for n in ns for k in self.ks for e0 in self.eps0_grid]
        done = 0
        with Progress(len(jobs), "exhaustive small n", enabled=None if self.progress else False) as bar:
            for n, k, e0 in jobs:
                if self.out_of_budget(share):
                    break
                self.add(self.check_small("exhaustive", k, n, e0, self.param_grid))
                done += 1
                bar.update(note=f"n={n} k={k}")
        reached = jobs[done - 1][0] if done else None
        self.phases.append(
            {
                "phase": "exhaustive",
                "what": "exact worst case over all datasets (exact.shuffled.enumerate)",
                "jobs": len(jobs),
                "done": done,
                "n": [self.n_lo, reached],
                "k": self.ks,
                "epsilon0": [_exact_str(x) for x in self.eps0_grid],
                self.other: [_exact_str(x) for x in self.param_grid],
                "complete": done == len(jobs),
            }
        )

    def phase_families(self, share: float) -> None:

        lo = max(self.n_exhaustive + 1, self.n_lo)
        if lo > self.n_hi:
            self.phases.append(
                {
                    "phase": "families",
                    "what": "skipped: the domain's n range is covered exhaustively",
                    "done": 0,
                    "jobs": 0,
                    "complete": True,
                }
            )
            return
        ns = _int_grid(lo, self.n_hi, 6)
        jobs = [(n, k, e0, v) for n in ns for k in self.ks for e0 in self.eps0_grid for v in self.param_grid]
        done = 0
        reached = None
        cost: dict[tuple[int, int], float] = {}  # (k, n) -> seconds of the last job: predicts the next n (cost ~ n^1.5)
        stopped = set()
        with Progress(len(jobs), "dataset families", enabled=None if self.progress else False) as bar:
            for n, k, e0, v in jobs:
                if self.out_of_budget(share):
                    break
                if k in stopped:
                    bar.update()
                    continue
                prev = [(m, c) for (kk, m), c in cost.items() if kk == k and m < n]
                if prev and self.max_evaluations is None:  # a time prediction: only with a wall-clock budget
                    m, c = max(prev)
                    if c * (n / m) ** 1.5 > max(self.time_left(share) / 4, 0):
                        stopped.add(k)
                        self._stopped("time")
                        self.notes.append(
                            f"families phase: k={k} stopped before n={n} (predicted cost exceeds the budget)"
                        )
                        bar.update()
                        continue
                t = time.monotonic()
                self.add(self.check_large("families", k, n, e0, v))
                cost[(k, n)] = max(cost.get((k, n), 0), time.monotonic() - t)
                done += 1
                reached = n if reached is None else max(reached, n)
                bar.update(note=f"n={n} k={k}")
        self.phases.append(
            {
                "phase": "families",
                "what": "certified lower bounds from dataset families (binary RR: exact worst case, "
                "exact.shuffled.binary; k-RR: same/neighbour/third families, exact.shuffled.krr)",
                "jobs": len(jobs),
                "done": done,
                "n": [lo, reached],
                "n_grid": ns,
                "k": self.ks,
                "complete": done == len(jobs),
            }
        )

    def phase_hypothesis(self, share: float) -> None:
        # hypothesis (a dependency) is imported here: it takes a while, and only this phase uses it
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis import strategies as st
        from hypothesis.errors import NoSuchExample

        d = self.bound.domain
        n_top = self.n_exhaustive
        if n_top < self.n_lo:
            self.phases.append(
                {
                    "phase": "hypothesis",
                    "what": "skipped: the domain's smallest n is above the exhaustive range (n <= %d)" % n_top,
                    "done": 0,
                }
            )
            return
        e0_lo, e0_hi = d["epsilon0"]
        v_lo, v_hi = d[self.other]
        k_lo, k_hi = d["k"]
        if len(self.ks) == 1:
            k_lo = k_hi = self.ks[0]
        STEPS = 1000
        tried = []
        found = []

        def point(t):
            k, n, i, j = t
            e0 = e0_lo + (e0_hi - e0_lo) * fmpq(i, STEPS)
            v = v_lo + (v_hi - v_lo) * fmpq(j, STEPS)
            return k, n, e0, v

        def violated(t):
            if self.out_of_budget(share):
                raise _Budget()
            k, n, e0, v = point(t)
            pts = self.check_small("hypothesis", k, n, e0, [v])
            tried.append(t)
            self.add(pts)
            bad = any(p.outcome == "violated" for p in pts)
            if bad:
                found.append(t)
            return bad

        strat = st.tuples(
            st.integers(k_lo, min(k_hi, max(k_lo, 12))),
            st.integers(self.n_lo, n_top),
            st.integers(0, STEPS),
            st.integers(0, STEPS),
        )
        result = None
        # hypothesis caches constants of "local" modules under ./.hypothesis: point it at a temporary directory
        # (removed afterwards) so that nothing outside the output directory is ever written
        from hypothesis import configuration as hconf

        old_home = getattr(hconf, "__hypothesis_home_directory", None)
        home = tempfile.mkdtemp(prefix="blanket-hypothesis-")
        hconf.set_hypothesis_home_dir(home)
        try:
            result = find(
                strat,
                violated,
                settings=settings(
                    max_examples=200,
                    database=None,
                    derandomize=True,
                    deadline=None,
                    phases=[Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck),
                ),
            )
        except NoSuchExample:
            pass
        except _Budget:
            self.notes.append(f"hypothesis search stopped at the {self.budget_kind()} budget")
            if found:  # shrinking was cut short: report the smallest violating example seen
                result = min(found, key=lambda t: (t[1], t[0], t[2], t[3]))
        finally:
            hconf.set_hypothesis_home_dir(old_home)
            shutil.rmtree(home, ignore_errors=True)
        self.hypothesis_info = {
            "examples": len(tried),
            "violations": len(found),
            "shrunk_to": (lambda p: {"k": p[0], "n": p[1], "epsilon0": _exact_str(p[2]), self.other: _exact_str(p[3])})(
                point(result)
            )
            if result
            else None,
        }
        self.phases.append(
            {
                "phase": "hypothesis",
                "what": "random search over the small-n domain with shrinking (hypothesis.find, derandomized)",
                "done": len(tried),
                "n": [self.n_lo, n_top],
                **self.hypothesis_info,
            }
        )

    def phase_smallest_n(self) -> None:
        """For each distinct (k, ε0, param) that was violated (at most 5), scan n upwards from the domain's smallest n.

        Small n (exhaustive range): every n.  Above it (families): every n up
        to 200 steps past the start, then geometric steps of 5%; the report
        then says "smallest n found" rather than "smallest n".  The scan stops
        at the first violating n (it is listed first in the report).
        """
        viol = [p for p in self.points if p.outcome == "violated"]
        seen: set[tuple] = set()
        budget_share = 1.0
        for p in sorted(viol, key=lambda p: (p.n, p.k)):
            key = (p.k, p.epsilon0, p.param)
            if key in seen or len(seen) >= 5:
                continue
            seen.add(key)
            found = False
            for n in range(self.n_lo, min(p.n, self.n_exhaustive + 1)):
                if self.out_of_budget(budget_share):
                    return
                pts = self.check_small("smallest-n", p.k, n, p.epsilon0, [p.param])
                self.add(pts)
                if any(q.outcome == "violated" for q in pts):
                    found = True
                    break
            if found or p.n <= self.n_exhaustive:
                continue
            start = max(self.n_lo, self.n_exhaustive + 1)
            n = start
            while n < p.n:
                if self.out_of_budget(budget_share):
                    return
                pts = self.check_large("smallest-n", p.k, n, p.epsilon0, p.param)
                self.add(pts)
                if any(q.outcome == "violated" for q in pts):
                    break
                n = n + 1 if n - start < 200 else max(n + 1, int(n * 1.05))
            if n - start >= 200:
                self.notes.append(
                    f"smallest-n scan above n = {start + 200} used 5% steps: the first violation listed "
                    f"for k={p.k}, epsilon0={_exact_str(p.epsilon0)}, {self.other}={_exact_str(p.param)} "
                    f"(at n={n}) is the smallest n found, not "
                    "necessarily the smallest n"
                )

    def phase_tightness(self) -> None:
        """Blanket-view upper bounds at the grid points that hold (δ-bounds only; a few points)."""
        if self.bound.quantity != "delta":
            return
        holds = [
            p
            for p in self.points
            if p.outcome == "holds"
            and p.bound is not None
            and p.bound.value is not None
            and p.phase in ("exhaustive", "families")
        ]
        chosen: dict[tuple[int, int], Point] = {}
        for p in holds:
            chosen.setdefault((p.k, p.n), p)
        for p in list(chosen.values())[:40]:
            if self.out_of_budget(1.0):
                break
            try:
                with arith.precision(128):
                    if is_oracle(self.bound.mechanism):
                        rec = mechanism_record(self.bound.mechanism, p.k, p.epsilon0)
                        p.blanket = blanket_view_delta_fast(rec, p.n, epsilon=p.param)
                    else:
                        p.blanket = delta_blanket_view(KRR(p.k, epsilon0=p.epsilon0), p.n, epsilon=p.param)
            except BlanketError as exc:
                p.note = (p.note + "; " if p.note else "") + f"blanket view: {exc}"


def _arm_alarm(seconds: float):
    """SIGALRM in ``seconds`` raising :class:`_HardStop` (main thread, POSIX); returns the old handler or None."""

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return None

    def _stop(signum, frame):
        raise _HardStop()

    old = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
    return (old,)


def _disarm_alarm(token) -> None:
    if token is None:
        return

    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, token[0] if token[0] is not None else signal.SIG_DFL)


def _family_lower(mech: KRR, n: int, e):
    """Certified lower bound on the worst case at n: (value, kind, witness)."""
    if mech.k == 2:
        try:
            wc = delta_binary_worst(mech, n, epsilon=e)
        except BlanketError:
            raise
        except (
            Exception
        ) as exc:  # an internal failure of exact.shuffled.binary: fall back to the families (still certified)
            _INTERNAL_ERRORS.append(
                f"exact.shuffled.binary.delta_binary_worst(n={n}, epsilon0={_exact_str(mech.epsilon0_exact)}, "
                f"epsilon={_short(e)}) raised {type(exc).__name__}: {exc}; used the dataset families instead"
            )
            return _krr_families(mech, n, e, ("same",))
        c = wc.c
        [1] * c + [0] * (n - 1 - c)
        x, x2 = (1, 0) if wc.direction == "1|0" else (0, 1)
        # the same pair in exact.shuffled.enumerate.delta_class terms (values relabelled so the first dataset's user holds 0)
        cls = (c, n - 1 - c, (), 0) if wc.direction == "1|0" else (n - 1 - c, c, (), 0)
        return (
            wc.value,
            "exact worst case over all datasets (exact.shuffled.binary)",
            {
                "dataset": f"{c} users hold 1, {n - 1 - c} hold 0, differing user holds {x}",
                "neighbour": f"same, differing user holds {x2}",
                "direction": "D(M(dataset) || M(neighbour))",
                "value": wc.value,
                "class": cls,
            },
        )
    return _krr_families(mech, n, e, ("same", "third"))


_INTERNAL_ERRORS: list = []


def _oracle_family_lower(mech, n: int, e):
    """Frequency oracle at n users: the exact δ of the dataset pair ``x^n`` vs ``x^{n−1}x'`` (both directions;
    :func:`exact.shuffled.oracles.same_family_delta`), a certified lower bound on the worst case.  O(√n)."""

    val = same_family_delta(mech, n, epsilon=e)
    return (
        val,
        "dataset family 'same' (exact.shuffled.oracles.same_family_delta)",
        {
            "dataset": f"{n - 1} users hold 0, differing user holds 0",
            "neighbour": "same, differing user holds 1",
            "direction": "max of both directions",
            "value": val,
        },
    )


def _short(e):
    s = str(e)
    return s if len(s) < 30 else arith.decimal_string(e, 10, up=False) + "..."


def _krr_families(mech, n, e, families):
    best = None
    for fam in families:
        for direction in ("forward", "backward"):
            val = delta_krr_family(mech, n, fam, epsilon=e, direction=direction)
            lo = arith.endpoints(val)[0]
            if best is None or lo > best[0]:
                best = (lo, val, fam, direction)
    assert best is not None  # families is not empty
    _, val, fam, direction = best
    z = {"same": 0, "third": 2}[fam]
    a, b = (0, 1) if direction == "forward" else (1, 0)
    cls = ((n - 1, 0, ()) if fam == "same" else (0, 0, (n - 1,))) + (0 if direction == "forward" else 1,)
    return (
        val,
        f"dataset family '{fam}' (exact.shuffled.krr; a lower bound on the worst case)",
        {
            "dataset": f"{n - 1} users hold {z}, differing user holds {a}",
            "neighbour": f"same, differing user holds {b}",
            "direction": "D(M(dataset) || M(neighbour))",
            "value": val,
            "class": cls,
        },
    )


#: largest (histogram states x users x categories) for re-verifying a family witness with exact.shuffled.enumerate
REVERIFY_COST = 4 * 10**6


def _reverify_class(mech: KRR, n: int, e, cls):
    """Recompute a family witness with :func:`exact.shuffled.enumerate.delta_class` (an independent code path), or ``None`` if too costly."""

    a, b, lam, idx = cls
    cats = 2 + len(lam) + (1 if mech.k - 2 - len(lam) > 0 else 0)
    if math.comb(n + cats - 1, cats - 1) * n * cats > REVERIFY_COST:
        return None
    return delta_class(mech, n, a, b, lam, epsilon=e)[idx]


def _grid(lo: fmpq, hi: fmpq, size: int, log: bool = True) -> list:
    """Exact grid points in [lo, hi]: the ends and log-spaced interior points rounded to 2 significant digits.

    (Floats only choose *where* to look; every point is an exact decimal inside the range.)
    """
    if lo == hi:
        return [lo]
    pts = {lo, hi}
    flo, fhi = float(Fraction(int(lo.p), int(lo.q))), float(Fraction(int(hi.p), int(hi.q)))
    for i in range(1, size - 1):
        t = i / (size - 1)
        if log and flo > 0:
            x = flo * (fhi / flo) ** t
        else:
            x = flo + (fhi - flo) * t
        q = arith.exact(f"{x:.2g}")
        if lo < q < hi:
            pts.add(q)
    return sorted(pts)


def _int_grid(lo: int, hi: int, size: int) -> list:
    if hi <= lo:
        return [lo]
    pts = {lo, hi}
    for i in range(1, size - 1):
        x = lo * (hi / lo) ** (i / (size - 1))
        pts.add(int(round(float(f"{x:.2g}"))))
    return sorted(p for p in pts if lo <= p <= hi)


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
