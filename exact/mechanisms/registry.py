"""The one vocabulary of local randomizers: kinds, accepted words, parameter schemas, builders.

Every entry point — the CLI's ``--mechanism``, a deployment's ``[mechanism] type``,
:func:`make_mechanism` and the accountant's
:class:`~blanket.exact.accounting.accountant.Shuffled` event — names a randomizer
through this module and nothing else:

* :class:`Kind` — the Enum of mechanism kinds (its values are the canonical words);
* :data:`WORDS` — the one table of accepted words and aliases (``"binary"`` → binary RR);
* :func:`resolve` — a word to its :class:`Kind`, with "did you mean …" for an unknown word;
* :data:`SCHEMAS` — each kind's required / optional keys and how each value is parsed (exactly);
* :func:`parse_params` — a plain table of parameters to validated exact values (errors name the
  argument as the entry point spells it: ``--k``, ``randomizer.k`` or ``k``);
* :func:`build` — validated parameters to the frozen record.

What ``"rr"`` means: **randomized response** — k-ary randomized response with ``k = 2`` (binary RR)
unless a ``k`` is given, then k-ary RR with that ``k``.  It is the only word whose kind depends on a
parameter (:func:`resolve` takes ``k``).

>>> resolve("binary"), resolve("RAPPOR"), resolve("rr"), resolve("rr", k=3)
(<Kind.BINARY_RR: 'binary_rr'>, <Kind.SUE: 'sue'>, <Kind.BINARY_RR: 'binary_rr'>, <Kind.KRR: 'krr'>)
>>> resolve("ldb")
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: mechanism must be one of rr, krr, binary_rr, matrix, ..., got 'ldb' (did you mean 'ldp'?)
>>> build(Kind.OUE, parse_params(Kind.OUE, {"k": 4, "exp_epsilon0": "3"})).gamma()
43/64
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blanket.exact.mechanisms import oracles as o
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import IntegerInput

if TYPE_CHECKING:
    from blanket.exact.mechanisms.finite import Randomizer

__all__ = [
    "Kind",
    "WORDS",
    "SCHEMAS",
    "Schema",
    "resolve",
    "parse_params",
    "build",
    "did_you_mean",
    "check_keys",
    "ORACLE_KINDS",
    "RR_KINDS",
]


class Kind(str, enum.Enum):
    """The kinds of local randomizer Blanket knows (the value is the canonical word)."""

    KRR = "krr"
    BINARY_RR = "binary_rr"
    MATRIX = "matrix"
    LAPLACE = "laplace"
    GAUSSIAN = "gaussian"
    LDP = "ldp"
    OUE = "oue"
    SUE = "sue"
    OLH = "olh"
    HADAMARD = "hadamard"
    SUBSET = "subset"
    GEOMETRIC = "geometric"

    def __str__(self) -> str:
        return self.value


#: k-ary randomized response (binary and k > 2): the kinds with the exact worst-case machinery
RR_KINDS = frozenset({Kind.KRR, Kind.BINARY_RR})
#: the kinds of exact/mechanisms/oracles.py (closed-form records, no explicit matrix needed)
ORACLE_KINDS = frozenset({Kind.LDP, Kind.OUE, Kind.SUE, Kind.OLH, Kind.HADAMARD, Kind.SUBSET, Kind.GEOMETRIC})

#: every accepted word (lower case, after stripping) -> its kind; "rr" is resolved by :func:`resolve`
WORDS: dict[str, Kind | None] = {
    **{k.value: k for k in Kind},
    "k-rr": Kind.KRR,
    "k_rr": Kind.KRR,
    "rr": None,  # randomized response: binary unless k is given (see the module docstring)
    "binary": Kind.BINARY_RR,
    "binary-rr": Kind.BINARY_RR,
    "finite": Kind.MATRIX,
    "generic": Kind.LDP,
    "generic_ldp": Kind.LDP,
    "rappor": Kind.SUE,
    "basic_rappor": Kind.SUE,
    "local_hashing": Kind.OLH,
    "hadamard_response": Kind.HADAMARD,
    "subset_selection": Kind.SUBSET,
    "truncated_geometric": Kind.GEOMETRIC,
}


#: the requirement an unknown word is told: the canonical words ("rr" first, the word the examples use) and the aliases
CHOICES = (
    f"must be one of rr, {', '.join(k.value for k in Kind)} "
    f"(aliases: {', '.join(w for w in WORDS if w != 'rr' and w not in {k.value for k in Kind})})"
)


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """``"did you mean 'x'?"`` for the closest of ``choices`` (difflib), or ``None``."""
    close = difflib.get_close_matches(str(word).strip().lower(), list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def resolve(word: object, *, k: IntegerInput | None = None, name: str = "mechanism") -> Kind:
    """The :class:`Kind` a word names (case-insensitive); ``k`` decides what ``"rr"`` means.  A parser of input:
    anything is checked (a :class:`Kind` is returned as it is, a non-word refused), hence ``object``."""
    if isinstance(word, Kind):
        return word
    if not isinstance(word, str) or word.strip().lower() not in WORDS:
        hint = did_you_mean(word, WORDS) if isinstance(word, str) else None
        raise InvalidArgument(name, word, CHOICES, hint=hint)
    kind = WORDS[word.strip().lower()]
    if kind is None:  # "rr"
        return Kind.BINARY_RR if k is None or str(k).strip() == "2" else Kind.KRR
    return kind


# ================================================================ parameter schemas
def _int(lo, hi=None):
    return lambda v, nm: arith.integer_in(_plain(v), nm, lo=lo, hi=hi)


def _exact(**limits):
    return lambda v, nm: arith.exact_in(_plain(v), nm, **limits)


def _plain(v):
    if isinstance(v, (dict, list, tuple)):
        raise InvalidArgument("value", v, "must be a number")
    return str(v) if isinstance(v, str) else v  # a str subclass (a TOML decimal) becomes its text


def _epsilon0(v, nm):
    q = arith.exact_in(_plain(v), nm, lo=0, lo_open=True)
    guards.check_epsilon0(q, nm)
    return q


def _flag(v: object, nm: str) -> bool:
    """A true/false option (``stronger_clones``, ``same_randomizer``): exactly a boolean, nothing else read as one."""
    if not isinstance(v, bool):
        raise InvalidArgument(nm, v, "must be true or false")
    return v


@dataclass(frozen=True)
class Schema:
    """A kind's parameters: ``required`` keys, ``optional`` keys, and ``eps0`` — the keys of which exactly
    one gives the local level; ``parse`` maps each key to its exact parser ``(value, name) -> value``."""

    required: tuple
    optional: tuple
    eps0: tuple
    parse: Mapping[str, Callable]
    title: str

    def keys(self) -> tuple:
        return (*self.required, *self.optional, *self.eps0)


_K = _int(2, 10**9)
_EXP = _exact(lo=1, lo_open=True, hi=10**200)
_RR_EPS = {"epsilon0": _epsilon0, "exp_epsilon0": _EXP}
#: one rule for every spelling of the local level, for every kind: ε0 > 0 (e^ε0 > 1, e^(ε0/2) > 1); ε0 = 0 is a
#: randomizer whose output ignores its input, refused alike in each spelling (it was accepted for the oracles only)
_ORACLE_EPS = _RR_EPS

SCHEMAS: dict[Kind, Schema] = {
    Kind.KRR: Schema(("k",), (), ("epsilon0", "exp_epsilon0"), {"k": _K, **_RR_EPS}, "k-ary randomized response"),
    Kind.BINARY_RR: Schema(
        (), ("k",), ("epsilon0", "exp_epsilon0"), {"k": _K, **_RR_EPS}, "binary randomized response"
    ),
    Kind.MATRIX: Schema(
        ("matrix",),
        ("stronger_clones", "same_randomizer"),
        (),
        {"matrix": lambda v, nm: v, "stronger_clones": _flag, "same_randomizer": _flag},
        "a finite randomizer given by its matrix",
    ),
    Kind.LAPLACE: Schema((), (), ("epsilon0",), {"epsilon0": _epsilon0}, "the Laplace randomizer"),
    Kind.GAUSSIAN: Schema(
        ("sigma",), (), (), {"sigma": _exact(lo=0, lo_open=True)}, "the Gaussian randomizer (not epsilon0-LDP)"
    ),
    Kind.LDP: Schema(
        (),
        ("same_randomizer",),
        ("epsilon0", "exp_epsilon0"),
        {**_ORACLE_EPS, "same_randomizer": _flag},
        "any epsilon0-LDP randomizer",
    ),
    Kind.OUE: Schema(
        ("k",), (), ("epsilon0", "exp_epsilon0"), {"k": _K, **_ORACLE_EPS}, "optimized unary encoding (OUE)"
    ),
    Kind.SUE: Schema(
        ("k",),
        (),
        ("epsilon0", "exp_half_epsilon0"),
        {"k": _K, "epsilon0": _epsilon0, "exp_half_epsilon0": _EXP},
        "symmetric unary encoding (basic RAPPOR)",
    ),
    Kind.OLH: Schema(
        ("k", "g"),
        ("collision", "constant", "triple"),
        ("epsilon0", "exp_epsilon0"),
        {
            "k": _K,
            "g": _int(2, 10**9),
            "collision": _exact(lo=0, hi=1),
            "constant": _exact(lo=0, hi=1),
            "triple": _exact(lo=0, hi=1),
            **_ORACLE_EPS,
        },
        "local hashing (OLH)",
    ),
    Kind.HADAMARD: Schema(
        ("k",), (), ("epsilon0", "exp_epsilon0"), {"k": _K, **_ORACLE_EPS}, "Hadamard response (K-ary)"
    ),
    Kind.SUBSET: Schema(
        ("k", "d"),
        (),
        ("epsilon0", "exp_epsilon0"),
        {"k": _K, "d": _int(1, 10**9), **_ORACLE_EPS},
        "subset selection",
    ),
    Kind.GEOMETRIC: Schema(
        ("m",),
        (),
        ("epsilon0", "alpha"),
        {
            "m": _int(2, 10**6),
            "epsilon0": _epsilon0,  # the supported range (ε0 = 1e400 was an internal error, a NaN window)
            "alpha": _exact(lo=0, hi=1, lo_open=True, hi_open=True),
        },
        "truncated geometric mechanism",
    ),
}


def check_keys(kind: Kind, keys: Iterable[str], *, name: Callable[[str], str] = str, extra: Iterable[str] = ()) -> None:
    """Refuse a key that ``kind`` does not take (naming it, with the accepted keys and "did you mean …")."""
    sch = SCHEMAS[kind]
    allowed = set(sch.keys()) | set(extra)
    for key in keys:
        if key not in allowed:
            hint = did_you_mean(key, allowed)
            raise InvalidArgument(
                name(key),
                key,
                f"is not a parameter of {sch.title} (type '{kind.value}'); accepted: {', '.join(sorted(allowed))}",
                hint=hint,
            )


def parse_params(
    kind: str | Kind, table: Mapping, *, name: Callable[[str], str] = str, extra: Iterable[str] = ()
) -> dict:
    """Validate ``table`` (plain data) for ``kind``: unknown keys, required keys, exactly one ε0 key, exact values.

    ``name(key)`` is how the entry point spells the key in errors (``--k``, ``randomizer.k``, ``k``);
    ``extra`` are keys the caller handles itself (e.g. ``type``).  Returns ``{key: exact value}`` for the
    keys given (``k = 2`` is filled in for binary RR).

    >>> parse_params("subset", {"k": 6, "d": "2", "epsilon0": "1"})
    {'k': 6, 'd': 2, 'epsilon0': 1}
    >>> parse_params("oue", {"k": 6, "epsilon0": "1", "exp_epsilon0": "3"})
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be given, or exp_epsilon0 instead — exactly one of them, got '1'
    """
    kind = resolve(kind, k=table.get("k"))
    sch = SCHEMAS[kind]
    check_keys(kind, table, name=name, extra=extra)
    for key in sch.required:
        if table.get(key) is None:
            raise InvalidArgument(name(key), None, f"is required for {sch.title} (type '{kind.value}')")
    out: dict = {}
    for key in (*sch.required, *sch.optional):
        if table.get(key) is not None:
            out[key] = sch.parse[key](table[key], name(key))
    given = [key for key in sch.eps0 if table.get(key) is not None]
    if sch.eps0 and len(given) != 1:
        first = sch.eps0[0]
        raise InvalidArgument(
            name(first),
            table.get(first),
            f"must be given, or {' or '.join(sch.eps0[1:])} instead — exactly one of them",
        )
    for key in given:
        out[key] = sch.parse[key](table[key], name(key))
    if kind == Kind.BINARY_RR:
        if out.get("k", 2) != 2:
            raise InvalidArgument(name("k"), out["k"], "must be 2 for binary_rr (use krr for k > 2)")
        out["k"] = 2
    if kind == Kind.SUBSET and out["d"] >= out["k"]:
        raise InvalidArgument(name("d"), out["d"], f"must be < k = {out['k']} (the subset size)")
    return out


def build(kind: str | Kind, params: Mapping) -> Randomizer | None:
    """The frozen record of ``kind`` from :func:`parse_params`' output (``None`` for laplace and gaussian: their
    blanket view is :mod:`blanket.exact.shuffled.continuous`, reached by ``blanket delta|epsilon``)."""
    kind = resolve(kind, k=params.get("k"))
    p = dict(params)
    e0 = {key: p[key] for key in ("epsilon0", "exp_epsilon0") if key in p}
    if kind in RR_KINDS:
        return KRR(p.get("k", 2), **e0)
    if kind == Kind.MATRIX:
        return FiniteRandomizer(p["matrix"])
    if kind in (Kind.LAPLACE, Kind.GAUSSIAN):
        return None
    if kind == Kind.LDP:
        return o.LDP(**e0, same_randomizer=bool(p.get("same_randomizer", False)))
    if kind == Kind.OUE:
        return o.OUE(p["k"], **e0)
    if kind == Kind.SUE:
        return o.SUE(p["k"], p.get("epsilon0"), exp_half_epsilon0=p.get("exp_half_epsilon0"))
    if kind == Kind.OLH:
        return o.OLH(
            p["k"], p["g"], collision=p.get("collision"), constant=p.get("constant", 0), triple=p.get("triple"), **e0
        )
    if kind == Kind.HADAMARD:
        return o.Hadamard(p["k"], **e0)
    if kind == Kind.SUBSET:
        return o.Subset(p["k"], p["d"], **e0)
    return o.Geometric(p["m"], alpha=p.get("alpha"), epsilon0=p.get("epsilon0"))


# ================================================================ records from plain data (deployment TOML / CLI)
def make_mechanism(spec: dict) -> Randomizer | None:
    """A record from plain data, e.g. a deployment's ``[mechanism]`` table: ``{"type": "oue", "k": 128, "epsilon0": "1"}``.

    The words, keys and parsing are those of this module (the one vocabulary): ``type`` ∈ ldp, oue, sue, olh, hadamard, subset, geometric (and krr, binary_rr,
    matrix); ε0 as ``epsilon0`` (exact string) or ``exp_epsilon0`` (``exp_half_epsilon0`` for
    sue, ``alpha`` for geometric).  Unknown or missing keys are refused with the key named.

    >>> make_mechanism({"type": "subset", "k": 6, "d": 2, "exp_epsilon0": "3"}).gamma()   # k/(de+k-d) = 6/10
    3/5
    >>> make_mechanism({"type": "oue", "k": 4, "epsilon": "1"})
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: mechanism key epsilon is not a parameter of optimized unary encoding (OUE) (type 'oue'); accepted: epsilon0, exp_epsilon0, k, type, got 'epsilon' (did you mean 'epsilon0'?)
    """

    if not isinstance(spec, dict):
        raise InvalidArgument("mechanism", spec, "must be a table of parameters")
    kind = resolve(spec.get("type"), k=spec.get("k"), name="mechanism type")
    params = parse_params(
        kind, {k: v for k, v in spec.items() if k != "type"}, name=lambda key: f"mechanism key {key}", extra=("type",)
    )
    return build(kind, params)
