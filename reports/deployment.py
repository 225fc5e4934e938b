"""Deployment files (TOML): what an auditor describes, parsed exactly and validated field by field.

Format (every number may be a TOML number or a string; TOML floats are read
from their *decimal text*, never through a binary float, so ``delta = 1e-6``
is exactly 10⁻⁶)::

    name = "Telemetry"                      # required, free text (escaped in LaTeX)
    description = "..."                     # optional
    neighbouring = "replace-one"            # optional; the only relation supported

    [randomizer]                            # the local randomizer, one for all users
    mechanism = "krr"                       # krr | binary_rr | matrix | laplace | ldp | oue | sue | olh | hadamard | subset | geometric
    k = 4                                   # krr: alphabet size (>= 2)
    epsilon0 = 1.5                          # local ε0 (or exp_epsilon0 = "3" for a rational e^ε0)
    # matrix = [["3/4", "1/4"], ["1/4", "3/4"]]   # matrix: exact row-stochastic P[x][y]
    # matrix_file = "rr.csv"                # ... or a file (relative to this TOML, under its directory or an
                                            #     --allow-path directory; at most 1 MB) of exact entries

    [users]
    n = 100000                              # exactly n users
    # n_min = 100000                        # ... or at least n_min users

    [[claims]]                              # one or more central (ε, δ) claims
    epsilon = 1
    delta = 1e-6

    [[targets]]                             # optional: report the certified ε for a target δ
    delta = 1e-8

    [[rounds]]                              # optional: several shuffled rounds, composed (claims then
    mechanism = "krr"                       #   apply to all rounds together); fields default to
    k = 2                                   #   [randomizer] and [users]; count = repetitions (>= 1)
    epsilon0 = 1
    n = 1000000
    count = 365
    # sampling = "0.01"                     #   each user takes part w.p. q (0 < q <= 1; count seen)
    # (an entry may also be type = "ldp" with epsilon0 and same_randomizer, laplace / gaussian, "matrix" with
    #  matrix or matrix_file (read like the randomizer's), or oue / sue / olh / hadamard / subset / geometric with
    #  their keys: a RecordRound, composed as Shuffled(record, n))

    [options]                               # optional
    precision = 128                         # starting precision (bits)
    precision_cap = 4096                    # escalation cap (bits); a lower cap may give INCONCLUSIVE

The frequency oracles and the generic ε0-LDP randomizer take the keys of
:data:`blanket.exact.mechanisms.registry.SCHEMAS` (e.g. ``type = "olh"``, ``k``, ``g``,
``epsilon0``; the same keys as ``make_mechanism``).  Mechanism words and their aliases
come from the one vocabulary, :mod:`blanket.exact.mechanisms.registry` (``binary`` for
``binary_rr``; ``rr`` is randomized response: binary unless ``k`` is given); an unknown
word or key gets "did you mean …".  Other aliases: ``[mechanism]``
for ``[randomizer]``, ``kind``/``type`` for ``mechanism``, ``n``/``n_min`` at top level or in ``[population]``,
``claim`` for ``claims``, ``target_delta`` (top level or in ``[options]``).

Errors are :class:`~exact.numbers.errors.InvalidArgument` naming the field
(``claims[1].delta must be > 0 and < 1, got '-1'``).

>>> d = parse_deployment('name = "x"\\n[randomizer]\\nmechanism = "krr"\\nk = 3\\nepsilon0 = 1.0\\n'
...                      '[users]\\nn = 100\\n[[claims]]\\nepsilon = 0.5\\ndelta = 1e-6\\n')
>>> d.mechanism, d.params["k"], d.params["epsilon0"], d.n, d.claims[0].delta
('krr', 3, 1, 100, 1/1000000)
>>> parse_deployment('name = "x"\\n[randomizer]\\nmechanism = "krr"\\nk = 1\\nepsilon0 = 1\\n[users]\\nn = 10\\n[[claims]]\\nepsilon=1\\ndelta=0.1\\n')
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: randomizer.k must be >= 2, got 1
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import hashlib
import io
import pathlib
from typing import TYPE_CHECKING, Any

from blanket.exact.accounting.accountant import Shuffled, ShuffledRR, check_total_rounds
from blanket.exact.accounting.fleet_rounds import FleetRound
from blanket.exact.accounting.query import make_query
from blanket.exact.accounting.sampled import Sampled, check_sampling
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import guards
from blanket.reports import fleet
from blanket.reports.numtext import exact_string

if TYPE_CHECKING:
    from collections.abc import Iterable

    from blanket.exact.accounting.accountant import ShuffledRR
    from blanket.exact.accounting.query import Query
    from blanket.exact.mechanisms.finite import Randomizer
    from blanket.exact.numbers.types import NumberInput

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from blanket.exact.mechanisms import registry
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

#: the words a deployment's ``type`` accepts: those of the one vocabulary (exact/mechanisms/registry.py)
MECHANISMS = tuple(k.value for k in registry.Kind)
NEIGHBOURING = "replace-one"
MAX_N = 10**12
#: largest deployment text accepted (characters)
MAX_DEPLOYMENT_CHARS = 1 << 20


#: the kinds whose parameters are validated by the registry alone (closed-form records)
ORACLE_WORDS = frozenset(k.value for k in registry.ORACLE_KINDS)


class _Spelled(str):
    """A value shown as it is spelled (``got true``, not ``got 'true'``) in an error message."""

    def __repr__(self) -> str:
        return str(self)


def toml_value(value: object) -> object:
    """``value`` as a TOML file spells it, for error messages: a bool as ``true`` / ``false`` (Python would print
    ``True``); anything else as is.  O(1).

    >>> from blanket.exact.numbers.errors import InvalidArgument
    >>> str(InvalidArgument("randomizer.same_randomizer", toml_value(True), "applies to ldp only"))
    'randomizer.same_randomizer applies to ldp only, got true'
    """
    if isinstance(value, bool):
        return _Spelled("true" if value else "false")
    return value


class _TomlDecimal(str):
    """A TOML float kept as its decimal text (parsed exactly later)."""


@dataclasses.dataclass(frozen=True)
class Claim:
    """A central claim: the shuffled mechanism is (epsilon, delta)-DP."""

    epsilon: fmpq
    delta: fmpq
    field: str


@dataclasses.dataclass(frozen=True)
class Target:
    """A target δ for which the certified ε is reported."""

    delta: fmpq
    field: str


@dataclasses.dataclass(frozen=True)
class Round:
    """``count`` shuffled rounds of k-ary randomized response (``k``, local ``epsilon0``, ``n`` users), or with
    ``ldp`` of an ε0-LDP randomizer known only by ``epsilon0`` (``k`` is then 0; ``same_randomizer``: one randomizer
    for every user, Lemma G1)."""

    k: int
    epsilon0: fmpq
    n: int
    count: int
    field: str
    #: participation probability (``sampling = q`` in the entry): ``None`` when every user reports
    sampling: fmpq | None = None
    #: a fleet round: ``(n_g, KRR)`` per group (``n`` is then their total) and the colluders among them
    groups: tuple = ()
    colluding: int = 0
    #: an ``ldp`` round (``type = "ldp"``): any ε0-LDP randomizer (FMT21's model), or with ``same_randomizer`` one
    #: randomizer for every user
    ldp: bool = False
    same_randomizer: bool = False
    #: a geometric ``m = 2`` round written as the binary RR round it is (with colluding users,
    #: :func:`_geometric_binary_rounds`; registered 'Geometric m = 2 is binary RR')
    geometric: bool = False

    def event(self) -> ShuffledRR | Shuffled | Sampled | FleetRound:
        """The accountant's record (:class:`blanket.exact.accounting.accountant.ShuffledRR`; wrapped in
        :class:`blanket.exact.accounting.sampled.Sampled` when the entry gives ``sampling``; a
        :class:`blanket.exact.accounting.fleet_rounds.FleetRound` for a round of ``[[users]]`` groups)."""

        if self.groups:
            return FleetRound(self.groups, self.sampling, self.colluding)
        ev: ShuffledRR | Shuffled = (
            Shuffled(LDP(self.epsilon0, same_randomizer=self.same_randomizer), self.n)
            if self.ldp
            else ShuffledRR(k=self.k, epsilon0=self.epsilon0, n=self.n)
        )
        return ev if self.sampling is None else Sampled(ev, self.sampling)

    def title(self) -> str:
        """The randomizer in words: binary / k-ary randomized response, or an ldp round's model.  O(1)."""
        if self.ldp:
            return (
                "one epsilon0-LDP randomizer run by every user (same_randomizer = true, Lemma G1)"
                if self.same_randomizer
                else "any epsilon0-LDP randomizer (FMT21's model)"
            )
        if self.geometric:
            return "binary randomized response (the geometric mechanism with m = 2: the same 2 x 2 matrix)"
        return f"{'binary' if self.k == 2 else f'{self.k}-ary'} randomized response"

    def as_dict(self) -> dict:
        """The round as plain strings (the deployment's ``rounds`` entries): ``mechanism`` (``krr`` or ``ldp``, as the
        other rounds' ``mechanism`` names their randomizer) and its parameters."""
        head: dict = {"mechanism": "ldp", "type": "ldp"} if self.ldp else {"mechanism": "krr", "k": self.k}
        return (
            head
            | {"epsilon0": exact_string(self.epsilon0), "n": self.n, "count": self.count}
            | ({"same_randomizer": True} if self.same_randomizer else {})
            | ({"written_as": "geometric, m = 2"} if self.geometric else {})
            | ({} if self.sampling is None else {"sampling": exact_string(self.sampling)})
        )


#: the continuous randomizers a ``[[rounds]]`` entry may name (their rounds compose through the hull of certified
#: blanket-view values, :class:`blanket.exact.accounting.continuous_rounds.ShuffledContinuous`)
CONTINUOUS_ROUND_KINDS = ("laplace", "gaussian")


@functools.lru_cache(maxsize=64)
def _continuous_event(kind: str, params: tuple, n: int) -> Any:
    """One :class:`~blanket.exact.accounting.continuous_rounds.ShuffledContinuous` per (randomizer, n): its
    dominating pair (one blanket view per curve point) is computed once however often a round is asked."""
    from blanket.exact.accounting.continuous_rounds import ShuffledContinuous

    return ShuffledContinuous({"type": kind, **{k: str(v) for k, v in params}}, n)


@dataclasses.dataclass(frozen=True)
class ContinuousRound:
    """``count`` shuffled rounds of the Laplace (``epsilon0``) or Gaussian (``sigma``) randomizer on [0, 1] among
    ``n`` users (``params``: the exact parameters, as ``((key, value), ...)``).  No sampling, groups or colluders
    (the fields exist so that a schedule's rounds read alike)."""

    kind: str
    params: tuple
    n: int
    count: int
    field: str
    sampling: None = None
    groups: tuple = ()
    colluding: int = 0

    def event(self) -> Any:
        """The accountant's record (cached per randomizer and n)."""
        return _continuous_event(self.kind, self.params, self.n)

    def as_dict(self) -> dict:
        """The round as plain strings (the deployment's and the certificate's ``rounds`` entries)."""
        return {
            "mechanism": self.kind,
            **{k: exact_string(v) for k, v in self.params},
            "n": self.n,
            "count": self.count,
        }

    def text(self) -> str:
        """The round in words: ``3 x the Laplace randomizer on [0, 1] (epsilon0 = 1, n = 1000)``."""
        ps = ", ".join(f"{k} = {exact_string(v)}" for k, v in self.params)
        return f"{self.count} x the {self.kind.capitalize()} randomizer on [0, 1] ({ps}, n = {self.n})"


#: the records a ``[[rounds]]`` entry composes through ``Shuffled(record, n)`` (the accountant's pairs for that record:
#: a matrix its curve pair / clone pair / stated Lemma G1 or SODA 2023 pair, a frequency oracle or the geometric
#: mechanism its curve pair and the clone pair, docs/composition.md §5d-§5e)
RECORD_ROUND_KINDS = ("matrix", "oue", "sue", "olh", "hadamard", "subset", "geometric")


def _freeze(value: Any) -> Any:
    """A parameter as a hashable value (a matrix as a tuple of tuples).  O(size)."""
    return tuple(tuple(row) for row in value) if isinstance(value, list) else value


def _thaw(value: Any) -> Any:
    return [list(row) for row in value] if isinstance(value, tuple) else value


@functools.lru_cache(maxsize=64)
def _record_event(kind: str, params: tuple, n: int, sampling: fmpq | None) -> Any:
    """One accountant record per (randomizer, n, q): its pairs (a curve pair's sweep) are computed once however often
    the round is asked.  O(1) after the first call."""
    table = {k: _thaw(v) for k, v in params}
    mech = registry.build(kind, table)
    ev = Shuffled(
        mech,
        n,
        stronger_clones=bool(table.get("stronger_clones", False)),
        same_randomizer=bool(table.get("same_randomizer", False)),
    )
    return ev if sampling is None else Sampled(ev, sampling)


@dataclasses.dataclass(frozen=True)
class RecordRound:
    """``count`` shuffled rounds of a ``matrix`` randomizer or a closed-form record (``oue``, ``sue``, ``olh``,
    ``hadamard``, ``subset``, ``geometric``) among ``n`` users (``params``: the exact parameters as
    ``((key, value), ...)``, a matrix as a tuple of rows), composed through
    :class:`blanket.exact.accounting.accountant.Shuffled` (wrapped in
    :class:`~blanket.exact.accounting.sampled.Sampled` with ``sampling``).  No groups or colluders."""

    kind: str
    params: tuple
    n: int
    count: int
    field: str
    sampling: fmpq | None = None
    matrix_source: str | None = None
    groups: tuple = ()
    colluding: int = 0

    def event(self) -> Any:
        """The accountant's record (cached per randomizer, n and q)."""
        return _record_event(self.kind, self.params, self.n, self.sampling)

    def title(self) -> str:
        """The randomizer in words: ``the finite randomizer of an exact 3 x 3 matrix (matrix_3x3.csv)``, ``Optimized
        Unary Encoding (k = 128, epsilon0 = 2)``.  O(1)."""
        table = dict(self.params)
        if self.kind == "matrix":
            m = table["matrix"]
            extra = [f"{key} = true" for key in ("same_randomizer", "stronger_clones") if table.get(key)]
            src = [self.matrix_source] if self.matrix_source else []
            inside = "; ".join(src + extra)
            return f"the finite randomizer of an exact {len(m)} x {len(m[0])} matrix" + (
                f" ({inside})" if inside else ""
            )
        title = registry.SCHEMAS[registry.Kind(self.kind)].title
        ps = ", ".join(f"{k} = {exact_string(v) if isinstance(v, fmpq) else v}" for k, v in self.params)
        return f"{title} ({ps})"

    def text(self, count: int | None = None) -> str:
        """The round in words: ``3 x <title>, n = 1000`` (``count``: another number of rounds)."""
        q = "" if self.sampling is None else f", each user taking part w.p. {exact_string(self.sampling)}"
        return f"{self.count if count is None else count} x {self.title()}, n = {self.n}{q}"

    def as_dict(self) -> dict:
        """The round as plain strings (the deployment's and the certificate's ``rounds`` entries)."""
        params: dict[str, Any] = {}
        for k, v in self.params:
            if k == "matrix":
                params[k] = [[exact_string(x) for x in row] for row in v]
            else:
                params[k] = exact_string(v) if isinstance(v, fmpq) else v
        return (
            {"mechanism": self.kind, **params, "n": self.n, "count": self.count}
            | ({"matrix_source": self.matrix_source} if self.matrix_source else {})
            | ({} if self.sampling is None else {"sampling": exact_string(self.sampling)})
        )


def _geometric_binary_rounds(rounds: tuple, colluding: int, where: str) -> tuple:
    """``rounds`` with each geometric ``m = 2`` :class:`RecordRound` written as the binary RR :class:`Round` it is
    (the same 2 x 2 matrix, registered 'Geometric m = 2 is binary RR'), so that ``colluding`` users apply to it as to
    binary RR; only when ``colluding`` (without colluders the accountant routes m = 2 to binary RR itself).  A round
    given by an irrational ``alpha`` (its ε0 = ln(1/α) is not an exact number) is refused, naming ``where`` (the
    colluding option) and what to do.  O(rounds)."""
    if not colluding:
        return rounds
    out = []
    for r in rounds:
        table = dict(r.params) if isinstance(r, RecordRound) and r.kind == "geometric" else {}
        if table.get("m") != 2:
            out.append(r)
            continue
        if "epsilon0" not in table:
            raise InvalidArgument(
                where,
                colluding,
                f"needs {r.field}'s geometric m = 2 randomizer given by epsilon0 (with colluding users it is composed "
                "as binary randomized response, whose rounds take an exact epsilon0), not by alpha",
                hint="give epsilon0 = ln(1/alpha) as an exact decimal, or drop the colluding users",
            )
        out.append(Round(2, table["epsilon0"], r.n, r.count, r.field, r.sampling, geometric=True))
    return tuple(out)


def _honest_only(r: Any) -> bool:
    """Whether a round's pairs assume every user honest (``colluding`` refused): ldp, Laplace, Gaussian, matrix and
    closed-form record rounds.  O(1)."""
    return isinstance(r, (ContinuousRound, RecordRound)) or getattr(r, "ldp", False)


@dataclasses.dataclass(frozen=True)
class Deployment:
    """A validated deployment.

    ``params`` holds the randomizer's exact parameters (``k``, ``epsilon0`` or
    ``exp_epsilon0``, ``matrix``).  ``n_is_lower_bound`` is ``True`` when the
    file gave ``n_min``.  ``sha256`` hashes the file's bytes (and those of a
    ``matrix_file``), ``source`` is the file name as given.
    """

    name: str
    description: str
    mechanism: str
    params: dict
    n: int
    n_is_lower_bound: bool
    claims: tuple
    targets: tuple
    neighbouring: str
    precision: int
    precision_cap: int
    sha256: str
    source: str
    matrix_source: str | None = None
    rounds: tuple = ()
    #: the table the file names the randomizer in (``[randomizer]`` or ``[mechanism]``): errors use its words
    table: str = "randomizer"
    #: ``[[users]]`` groups of a mixed fleet (:class:`blanket.reports.fleet.FleetGroup`; empty for one group)
    groups: tuple = ()
    #: users that reveal everything: ``[users] colluding``, or for a fleet the top-level count (worst-case choice)
    colluding: int = 0

    @property
    def composed(self) -> bool:
        """``True`` when the claims apply to several composed rounds (``[[rounds]]``)."""
        return bool(self.rounds)

    def build_mechanism(self) -> Randomizer | None:
        """The frozen record of the randomizer (:func:`blanket.exact.mechanisms.registry.build`): a KRR
        (entries are balls at the current precision unless e^ε0 is rational), a FiniteRandomizer, an oracle
        record of :mod:`exact.mechanisms.oracles`, or ``None`` for laplace (only registered bounds apply)."""
        return registry.build(self.mechanism, self.params)

    def query(
        self, *, epsilon: NumberInput | None = None, delta: NumberInput | None = None, dataset: str = "worst"
    ) -> Query:
        """The validated query (:func:`blanket.exact.accounting.query.make_query`, the one builder shared with the
        command line and the API) for this deployment's randomizer and users at one ``epsilon`` or ``delta``."""

        if self.groups or self.colluding:
            raise InvalidArgument(
                "deployment",
                self.source,
                "has [[users]] groups or colluding users: one query of one randomizer does not describe it",
                hint="use `blanket certify` (reports/fleet_certificate.py)",
            )
        names = {"n": "users.n", "epsilon": "claims.epsilon", "delta": "claims.delta", "dataset": "dataset"}
        return make_query(
            mechanism=self.mechanism,
            n=self.n,
            epsilon=epsilon,
            delta=delta,
            dataset=dataset,
            name=lambda key: names.get(key, f"{self.table}.{key}"),
            **self.params,
        )

    def mechanism_scope(self) -> str:
        """What ``mechanism`` and ``parameters`` of :meth:`as_dict` describe, in words: every user's randomizer, the
        default of the ``[[rounds]]`` entries (each round's own is ``rounds[i].mechanism``), or the first ``[[users]]``
        group's (each group's is ``groups[i]``).  O(1)."""
        if self.groups:
            return (
                "the first [[users]] group's randomizer (each group's own: groups[i]"
                + ("; the composed rounds: rounds[i]" if self.rounds else "")
                + ")"
            )
        if self.rounds and not (len(self.rounds) == 1 and self.rounds[0].field == "users"):
            return (
                "the [mechanism] table: the default of the [[rounds]] entries (each round's own randomizer: "
                "rounds[i].mechanism with its parameters)"
            )
        return "every user's randomizer" + (" (one sampled round: rounds[0])" if self.rounds else "")

    def as_dict(self) -> dict:
        """The deployment as understood, as plain strings (for JSON and the certificate); ``mechanism_scope`` says
        what ``mechanism`` and ``parameters`` describe (:meth:`mechanism_scope`)."""

        params: dict[str, Any] = {}
        for key, val in self.params.items():
            if key == "matrix":
                params[key] = [[exact_string(x) for x in row] for row in val]
            elif isinstance(val, fmpq):
                params[key] = exact_string(val)
            else:
                params[key] = val
        return {
            "name": self.name,
            "description": self.description,
            "mechanism": self.mechanism,
            "parameters": params,
            "mechanism_scope": self.mechanism_scope(),
            "n": self.n,
            "n_is_lower_bound": self.n_is_lower_bound,
            "claims": [{"epsilon": exact_string(c.epsilon), "delta": exact_string(c.delta)} for c in self.claims],
            "targets": [{"delta": exact_string(t.delta)} for t in self.targets],
            "neighbouring": self.neighbouring,
            "precision": self.precision,
            "precision_cap": self.precision_cap,
            "source": self.source,
            "sha256": self.sha256,
            "matrix_source": self.matrix_source,
            **({"rounds": [r.as_dict() for r in self.rounds]} if self.rounds else {}),
            **(fleet.fleet_as_dict(self.groups, self.colluding) if self.groups or self.colluding else {}),
        }


def _take(table: dict, where: str, allowed: set):
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InvalidArgument(
            f"{where}{unknown[0]}" if where else unknown[0],
            table[unknown[0]],
            "is not a known field",
            hint="; ".join(
                x
                for x in (
                    registry.did_you_mean(unknown[0], allowed),
                    f"known fields here: {', '.join(sorted(allowed))}",
                )
                if x
            ),
        )


def _one_of(table: dict, where: str, keys: tuple, what: str) -> None:
    """Refuse a table that gives two of ``keys`` (aliases of one field), naming both.  O(len(keys))."""
    given = [k for k in keys if k in table]
    if len(given) > 1:
        raise InvalidArgument(
            f"{where}{given[1]}",
            None,
            f"cannot be combined with {where}{given[0]}: the two {what} are aliases of one field",
            hint="keep one of them",
        )


def _as_list(raw) -> list:
    return [raw] if isinstance(raw, dict) else raw if isinstance(raw, list) else []


def _number(value, name, **limits) -> fmpq:
    if isinstance(value, (dict, list)):
        raise InvalidArgument(name, value, "must be a number")
    if isinstance(value, _TomlDecimal):
        value = str(value)
        if value.lstrip("+-") in ("inf", "nan"):
            raise InvalidArgument(name, value, "must be a finite number")
    return arith.exact_in(value, name, **limits)


def _sampling(value, name: str) -> fmpq | None:
    """A participation probability ``q`` in ``(0, 1]`` (``name``: the field, ``value``: its text), ``None`` for
    ``q = 1``: every user takes part, so the round is the plain (unsampled) round and every route of it applies
    (its one-round certified ends, its curve pair).  O(1)."""
    q = _number(value, name, lo=0, lo_open=True, hi=1)
    check_sampling(q, name, value)
    return None if q == 1 else q


def _integer(value, name, **limits) -> int:
    if isinstance(value, _TomlDecimal):
        value = str(value)
    if isinstance(value, (dict, list)):
        raise InvalidArgument(name, value, "must be an integer")
    return arith.integer_in(value, name, **limits)


def _text(value, name, *, required=True) -> str:
    if value is None:
        if required:
            raise InvalidArgument(name, None, "is required", hint="add it to the deployment file")
        return ""
    if not isinstance(value, str) or isinstance(value, _TomlDecimal):
        raise InvalidArgument(name, value, "must be a string (in double quotes)")
    if required and not value.strip():
        raise InvalidArgument(name, value, "must not be empty")
    if len(value) > 2000:
        raise InvalidArgument(name, f"{len(value)} characters", "must be at most 2000 characters")
    return value


#: largest matrix_file accepted (bytes)
MAX_MATRIX_FILE_BYTES = 1 << 20


def _resolve_matrix_file(
    name: str, base_dir: pathlib.Path | None, allow_paths=(), *, field: str = "randomizer.matrix_file"
) -> pathlib.Path:
    """The matrix file's path, accepted only under the deployment's directory or an ``--allow-path`` directory
    (``field``: the key refusals name)."""
    base = (base_dir or pathlib.Path(".")).resolve()
    path = (base / name).resolve()
    roots = [base] + [pathlib.Path(a).resolve() for a in allow_paths]
    if not any(path == r or r in path.parents for r in roots):
        raise InvalidArgument(
            field,
            name,
            "must be a file under the deployment file's directory",
            hint="move it there, or pass --allow-path DIR for the directory that holds it",
        )
    return path


def _read_matrix_file(path: pathlib.Path, field: str) -> tuple:
    """(rows of cell strings, raw bytes); size-capped; errors never echo the content."""
    raw = guards.read_capped(path, MAX_MATRIX_FILE_BYTES, name=field, shown=path.name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(field, path.name, "is not UTF-8 text (a CSV of exact numbers)") from None
    rows: list[list[str]] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            cells = next(csv.reader(io.StringIO(line))) if "," in line else line.split()
        except (csv.Error, StopIteration):
            raise InvalidArgument(field, path.name, f"row {len(rows)} is not a CSV row of exact numbers") from None
        rows.append([c.strip() for c in cells if c.strip()])
    return rows, raw


def _parse_matrix(table: dict, where: str, base_dir, allow_paths, digest) -> tuple:
    """``(matrix, FiniteRandomizer, matrix_source)`` of a table giving ``matrix`` (inline) or ``matrix_file`` (read
    only from under ``base_dir`` or an ``--allow-path`` directory, at most 1 MB, its bytes added to ``digest``; its
    entries never echoed in errors); ``where`` prefixes the field names (``randomizer``, ``rounds[0]``).  The caller
    checks that exactly one of the two keys is given.  O(size of the matrix)."""
    matrix_source = None
    if "matrix_file" in table:
        mf = _text(table["matrix_file"], f"{where}.matrix_file")
        path = _resolve_matrix_file(mf, base_dir, allow_paths, field=f"{where}.matrix_file")
        raw, raw_bytes = _read_matrix_file(path, f"{where}.matrix_file")
        digest.update(raw_bytes)
        matrix_source = mf
    else:
        raw = table["matrix"]
    if not isinstance(raw, list) or not all(isinstance(r, list) for r in raw):
        raise InvalidArgument(
            f"{where}.matrix",
            _short(raw),
            "must be a list of rows, e.g. [[\"3/4\", \"1/4\"], [\"1/4\", \"3/4\"]]",
        )
    if len(raw) > 1000 or any(len(r) > 1000 for r in raw):
        raise InvalidArgument(f"{where}.matrix", f"{len(raw)} rows", "must have at most 1000 rows and columns")
    if matrix_source is not None:  # entries of a file are never echoed (the file could be anything)

        def entry(v, i, j):
            try:
                return _number(v, f"{where}.matrix_file row {i + 1} column {j + 1}", lo=0, hi=1)
            except InvalidArgument as exc:
                raise InvalidArgument(
                    f"{where}.matrix_file ({matrix_source}) row {i + 1} column {j + 1}",
                    "(not shown)",
                    exc.requirement,
                ) from None
    else:

        def entry(v, i, j):
            return _number(v, f"{where}.matrix[{i}][{j}]", lo=0, hi=1)

    matrix = [[entry(v, i, j) for j, v in enumerate(row)] for i, row in enumerate(raw)]
    try:
        fr = FiniteRandomizer(matrix)  # validates shape and row sums (errors name the row)
    except InvalidArgument as exc:
        if matrix_source is None:  # inline: the field named as the file spells it (the value is the file's own)
            raise InvalidArgument(f"{where}.{exc.name}", exc.value, exc.requirement, hint=exc.hint) from None
        raise InvalidArgument(f"{where}.matrix_file ({matrix_source})", "(not shown)", exc.requirement) from None
    return matrix, fr, matrix_source


def parse_deployment(
    text: str,
    *,
    source: str = "<string>",
    base_dir: pathlib.Path | None = None,
    extra_bytes: bytes = b"",
    allow_paths: Iterable[str | pathlib.Path] = (),
    claims_required: bool = True,
) -> Deployment:
    """Parse and validate a deployment from TOML text (see the module docstring for the format).

    A ``matrix_file`` is read only from under ``base_dir`` (the deployment
    file's directory) or one of ``allow_paths``.  ``claims_required=False`` accepts a file without ``[[claims]]``
    and ``[[targets]]`` (``blanket delta --deployment FILE --epsilon X``: the command line gives what to compute).
    O(size of the text) (a matrix: its size).
    """
    if len(text) > MAX_DEPLOYMENT_CHARS:
        raise InvalidArgument(
            "deployment file", source, f"has {len(text)} characters; at most {MAX_DEPLOYMENT_CHARS} are accepted"
        )
    try:
        data = tomllib.loads(text, parse_float=_TomlDecimal)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidArgument(
            "deployment file",
            source,
            f"is not valid TOML ({exc})",
            hint="check quotes, brackets and `key = value` lines",
        ) from None
    except RecursionError:
        raise InvalidArgument(
            "deployment file", source, "is nested too deeply", hint="a deployment has at most two levels of tables"
        ) from None
    digest = hashlib.sha256(text.encode("utf-8"))

    top_allowed = {
        "name",
        "description",
        "neighbouring",
        "neighboring",
        "randomizer",
        "mechanism",
        "users",
        "population",
        "n",
        "n_min",
        "claims",
        "claim",
        "targets",
        "target",
        "target_delta",
        "options",
        "precision_cap",
        "rounds",
        "colluding",
    }
    _take(data, "", top_allowed)
    fleet_groups: tuple = ()
    fleet_colluding = 0
    if isinstance(data.get("users"), list):  # [[users]] groups: a mixed fleet (reports/fleet.py parses them)
        fleet_groups, fleet_colluding, csv_bytes = fleet.parse_fleet(data, base_dir=base_dir)
        digest.update(csv_bytes)
        stand_in = {"type": fleet_groups[0].kind, **fleet_groups[0].params}  # claims etc. parse as for one group
        data = {k: v for k, v in data.items() if k != "colluding"}
        data.update(mechanism=stand_in, users={"n": max(2, sum(g.n for g in fleet_groups))})
    elif "colluding" in data:
        raise InvalidArgument("colluding", data["colluding"], "belongs in [users] (or in each [[users]] group)")
    # two spellings of one thing would be resolved silently (the first wins): refuse them
    _one_of(data, "", ("randomizer", "mechanism"), "tables")
    _one_of(data, "", ("users", "population"), "tables")
    _one_of(data, "", ("claims", "claim"), "tables")
    _one_of(data, "", ("targets", "target"), "tables")
    _one_of(data, "", ("neighbouring", "neighboring"), "keys")
    name = _text(data.get("name"), "name")
    description = _text(data.get("description"), "description", required=False)

    relation = data.get("neighbouring", data.get("neighboring", NEIGHBOURING))
    if not isinstance(relation, str) or relation.strip().lower().replace("_", "-") not in (
        "replace-one",
        "replace one",
        "substitution",
    ):
        raise InvalidArgument(
            "neighbouring",
            relation,
            "must be \"replace-one\" (datasets differ in one user's value; "
            "the only relation the encoded results cover)",
        )

    # ---------------- randomizer
    rand = data.get("randomizer", data.get("mechanism"))
    T = "randomizer" if "randomizer" in data else "mechanism"  # errors name the table the file uses
    if rand is None:
        raise InvalidArgument(
            "randomizer", None, "is required", hint="add a [randomizer] table with mechanism = \"krr\", k and epsilon0"
        )
    if not isinstance(rand, dict):
        raise InvalidArgument(T, rand, f"must be a table ([{T}])")
    kind_raw = rand.get("mechanism", rand.get("kind", rand.get("type")))
    if kind_raw is None:
        key = "type" if T == "mechanism" else "mechanism"
        raise InvalidArgument(f"{T}.{key}", None, "is required", hint=f"one of {', '.join(MECHANISMS)}")
    _one_of(rand, f"{T}.", ("mechanism", "kind", "type"), "keys")
    used = next(k for k in ("mechanism", "kind", "type") if k in rand)
    kind = registry.resolve(kind_raw, k=rand.get("k"), name=f"{T}.{used}").value
    names = {"mechanism", "kind", "type", "name"}
    allowed = names | set(registry.SCHEMAS[registry.Kind(kind)].keys()) | {"matrix", "matrix_file"}
    if kind == "matrix":  # refused below with a clearer message ("implied by the matrix")
        allowed |= {"k", "epsilon0", "exp_epsilon0"}
    if "same_randomizer" in rand and "same_randomizer" not in allowed:  # what to do, not only "unknown field"
        raise InvalidArgument(
            f"{T}.same_randomizer",
            toml_value(rand["same_randomizer"]),
            f"applies to an ldp or matrix randomizer only, not {kind} (a stated k-RR or frequency oracle is one "
            "randomizer already, with its own tighter blanket view)",
            hint="drop the option",
        )
    _take(rand, f"{T}.", allowed)
    params: dict[str, Any] = {}
    matrix_source = None
    if kind != "matrix":
        if "matrix" in rand or "matrix_file" in rand:
            raise InvalidArgument(f"{T}.matrix", "given", f"is only for mechanism = \"matrix\", not {kind}")
        params = registry.parse_params(
            kind, {k: v for k, v in rand.items() if k not in names}, name=lambda key: f"{T}.{key}"
        )
    else:  # matrix
        if ("matrix" in rand) == ("matrix_file" in rand):
            raise InvalidArgument(f"{T}.matrix", None, "must be given inline or as matrix_file, exactly one of them")
        for extra in ("k", "epsilon0", "exp_epsilon0"):
            if extra in rand:
                raise InvalidArgument(f"{T}.{extra}", rand[extra], "is implied by the matrix; remove it")
        matrix, fr, matrix_source = _parse_matrix(rand, T, base_dir, allow_paths, digest)
        params["matrix"] = matrix
        if "stronger_clones" in rand:  # the SODA 2023 stronger clones: their condition checked on the matrix now
            on = registry.SCHEMAS[registry.Kind.MATRIX].parse["stronger_clones"](
                rand["stronger_clones"], f"{T}.stronger_clones"
            )
            if on:
                from blanket.exact.accounting import stronger_clones

                try:
                    stronger_clones.check_condition(fr)
                except InvalidArgument as exc:
                    raise InvalidArgument(
                        f"{T}.stronger_clones", toml_value(True), exc.requirement, hint=exc.hint
                    ) from None
            params["stronger_clones"] = on
        if "same_randomizer" in rand:  # one randomizer for every user (Lemma G1): stated, nothing to check
            params["same_randomizer"] = registry.SCHEMAS[registry.Kind.MATRIX].parse["same_randomizer"](
                rand["same_randomizer"], f"{T}.same_randomizer"
            )
    digest.update(extra_bytes)

    # ---------------- users
    users = data.get("users", data.get("population", {}))
    if not isinstance(users, dict):
        raise InvalidArgument("users", users, "must be a table ([users] with n = … or n_min = …)")
    _take(users, "users.", {"n", "n_min", "colluding", "sampling"})
    for key in ("n", "n_min"):
        if key in data and (key in users or "users" in data or "population" in data):
            raise InvalidArgument(
                key, data[key], "is given both at top level and beside a [users] table", hint="give it once, in [users]"
            )
    n_val = users.get("n", data.get("n"))
    nmin_val = users.get("n_min", data.get("n_min"))
    if (n_val is None) == (nmin_val is None):
        raise InvalidArgument(
            "users.n", n_val, "must be given (the number of users), or n_min (a lower bound on it) — exactly one"
        )
    if n_val is not None:
        n, lower = _integer(n_val, "users.n", lo=2, hi=MAX_N), False
    else:
        n, lower = _integer(nmin_val, "users.n_min", lo=2, hi=MAX_N), True
    colluding = fleet.colluding_count(users["colluding"], n, "users.colluding") if "colluding" in users else 0

    # ---------------- claims and targets
    raw_claims = data.get("claims", data.get("claim", []))
    if isinstance(raw_claims, dict):
        raw_claims = [raw_claims]
    if not isinstance(raw_claims, list):
        raise InvalidArgument("claims", raw_claims, "must be a list of [[claims]] tables with epsilon and delta")
    claims = []
    for i, c in enumerate(raw_claims):
        where = f"claims[{i}]"
        if not isinstance(c, dict):
            raise InvalidArgument(where, c, "must be a table with epsilon and delta")
        _take(c, where + ".", {"epsilon", "delta"})
        for f in ("epsilon", "delta"):
            if f not in c:
                raise InvalidArgument(f"{where}.{f}", None, "is required")
        eps = _number(c["epsilon"], f"{where}.epsilon", lo=0, hi=1000)
        delta = _number(c["delta"], f"{where}.delta", lo=0, hi=1, lo_open=True, hi_open=True)
        claims.append(Claim(eps, delta, where))
    raw_targets = data.get("targets", data.get("target", []))
    if isinstance(raw_targets, dict):
        raw_targets = [raw_targets]
    if not isinstance(raw_targets, list):
        raise InvalidArgument("targets", raw_targets, "must be a list of [[targets]] tables with delta")
    opts = data.get("options", {})
    if not isinstance(opts, dict):
        raise InvalidArgument("options", opts, "must be a table")
    _take(opts, "options.", {"precision", "precision_cap", "target_delta"})
    extra_targets = [("target_delta", data["target_delta"])] if "target_delta" in data else []
    if "target_delta" in opts:
        extra_targets.append(("options.target_delta", opts["target_delta"]))
    targets = []
    for i, t in enumerate(raw_targets):
        where = f"targets[{i}]"
        if not isinstance(t, dict):
            raise InvalidArgument(where, t, "must be a table with delta")
        _take(t, where + ".", {"delta"})
        if "delta" not in t:
            raise InvalidArgument(f"{where}.delta", None, "is required")
        targets.append(Target(_number(t["delta"], f"{where}.delta", lo=0, hi=1, lo_open=True, hi_open=True), where))
    for where, v in extra_targets:
        targets.append(Target(_number(v, where, lo=0, hi=1, lo_open=True, hi_open=True), where))
    if not claims and not targets and claims_required:
        raise InvalidArgument(
            "claims", None, "must hold at least one [[claims]] entry (epsilon, delta) or a [[targets]] delta"
        )

    # sampling = 1 in [users]: every user takes part, the plain deployment (as without the key)
    users_q = _sampling(users["sampling"], "users.sampling") if "sampling" in users else None
    if fleet_groups and "rounds" in data:  # a fleet: every round is one shuffle of all its groups
        rounds = _fleet_rounds(data["rounds"], fleet_groups, fleet_colluding)
    elif users_q is not None:  # one sampled round: composed as a one-entry schedule (docs/composition.md §5f)
        if "rounds" in data:
            raise InvalidArgument(
                "users.sampling",
                users["sampling"],
                "cannot be combined with [[rounds]]",
                hint="give sampling in each [[rounds]] entry",
            )
        rounds = (sampled_round(kind, params, n, users_q, colluding, T, matrix_source),)
    else:
        rounds = _parse_rounds(
            data.get("rounds"), kind, params, n, (base_dir, tuple(allow_paths), digest, matrix_source)
        )
        rounds = _geometric_binary_rounds(rounds, colluding, "users.colluding")
        if colluding and any(_honest_only(r) for r in rounds):
            raise InvalidArgument(
                "users.colluding",
                colluding,
                "is not supported with ldp, Laplace, Gaussian, matrix or frequency-oracle rounds (their pairs assume "
                "every user is honest)",
            )
        if colluding:  # each round rests on its honest users (Lemma F3): a one-group fleet round
            rounds = tuple(
                dataclasses.replace(r, groups=((r.n, KRR(r.k, r.epsilon0)),), colluding=colluding)
                if r.n - colluding >= 2
                else _too_many(r, colluding)
                for r in rounds
            )
    if lower and any(isinstance(r, dict) and "n" in r for r in _as_list(data.get("rounds"))):
        ri = next(i for i, r in enumerate(_as_list(data.get("rounds"))) if isinstance(r, dict) and "n" in r)
        raise InvalidArgument(
            f"rounds[{ri}].n",
            _as_list(data["rounds"])[ri]["n"],
            "cannot be combined with users.n_min (a lower bound on the users, for one round)",
            hint="give users.n, or drop n from the [[rounds]] entries",
        )

    prec = _integer(opts.get("precision", arith.DEFAULT_PREC), "options.precision", lo=32, hi=1 << 16)
    cap = _integer(
        opts.get("precision_cap", data.get("precision_cap", arith.MAX_PREC)), "options.precision_cap", lo=32, hi=1 << 16
    )
    if cap < prec:
        raise InvalidArgument("options.precision_cap", cap, f"must be >= options.precision ({prec})")
    return Deployment(
        name=name,
        description=description,
        mechanism=kind,
        params=params,
        n=n,
        n_is_lower_bound=lower,
        claims=tuple(claims),
        targets=tuple(targets),
        neighbouring=NEIGHBOURING,
        precision=prec,
        precision_cap=cap,
        sha256=digest.hexdigest(),
        source=source,
        matrix_source=matrix_source,
        rounds=rounds,
        table=T,
        groups=fleet_groups,
        colluding=fleet_colluding if fleet_groups else colluding,
    )


def with_overrides(dep: Deployment, *, sampling: object = None, colluding: object = None) -> Deployment:
    """The deployment with the command line's ``--sampling Q`` / ``--colluding M`` in place of (or added to) the
    file's ``sampling`` in ``[users]`` and ``colluding`` (``[users]``, or top level for ``[[users]]`` groups).  A
    ``[[rounds]]`` schedule refuses ``--sampling`` (give it per entry), a fleet without rounds too (a sampled
    fleet round is a ``[[rounds]]`` entry).  ``--sampling 1`` is the plain round: it drops the file's ``[users]``
    sampling and is accepted wherever no sampling is.  O(rounds)."""
    one_sampled = len(dep.rounds) == 1 and dep.rounds[0].field == "users"
    if sampling is not None and _sampling(_text_of_cli(sampling), "--sampling") is None:  # q = 1: every user reports
        sampling = None
        if one_sampled:  # the file's sampled round, back to the plain deployment (as parse_deployment builds it)
            dep = dataclasses.replace(dep, rounds=())
            one_sampled = False
    if sampling is not None and (dep.groups or (dep.rounds and not one_sampled)):
        raise InvalidArgument(
            "--sampling",
            sampling,
            f"cannot be combined with {dep.source}: its "
            + ("[[rounds]] schedule fixes each round" if dep.rounds else "[[users]] groups need a [[rounds]] entry"),
            hint="give sampling in each [[rounds]] entry (count = 1 for one round)",
        )
    m = dep.colluding
    if colluding is not None:
        honest = sum(g.honest for g in dep.groups) if dep.groups else dep.n
        m = fleet.colluding_count(_text_of_cli(colluding), honest, "--colluding")
    if dep.groups:
        if dep.rounds:
            total = dep.rounds[0].n
            if total - m < 2:
                raise InvalidArgument("--colluding", colluding, f"must leave at least 2 honest users of {total}")
            rounds = tuple(dataclasses.replace(r, colluding=m) for r in dep.rounds)
            return dataclasses.replace(dep, colluding=m, rounds=rounds)
        return dataclasses.replace(dep, colluding=m)
    q = sampling if sampling is not None else (dep.rounds[0].sampling if one_sampled else None)
    if q is not None:
        where = "--sampling" if sampling is not None else "users.sampling"
        qq = _number(str(q), where, lo=0, lo_open=True, hi=1)
        return dataclasses.replace(
            dep,
            colluding=m,
            rounds=(sampled_round(dep.mechanism, dep.params, dep.n, qq, m, dep.table, dep.matrix_source, where),),
        )
    if dep.rounds and m:
        dep = dataclasses.replace(dep, rounds=_geometric_binary_rounds(dep.rounds, m, "--colluding"))
    if dep.rounds and m and any(_honest_only(r) for r in dep.rounds):
        raise InvalidArgument(
            "--colluding",
            m,
            "is not supported with ldp, Laplace, Gaussian, matrix or frequency-oracle rounds (their pairs assume "
            "every user is honest)",
        )
    if dep.rounds:
        rounds = tuple(
            dataclasses.replace(r, groups=((r.n, KRR(r.k, r.epsilon0)),), colluding=m)
            if r.n - m >= 2
            else _too_many(r, m)
            for r in dep.rounds
        )
        return dataclasses.replace(dep, colluding=m, rounds=rounds)
    return dataclasses.replace(dep, colluding=m)


def _text_of_cli(value: object) -> object:
    return str(value)


def _too_many(r: Round, colluding: int) -> Round:
    raise InvalidArgument("users.colluding", colluding, f"must leave at least 2 honest users of {r.field}'s {r.n}")


def sampled_round(
    kind: str,
    params: dict,
    n: int,
    q: fmpq,
    colluding: int,
    table: str = "randomizer",
    matrix_source: str | None = None,
    name: str = "users.sampling",
) -> Round | RecordRound:
    """The one round of a single-``[users]`` deployment with ``sampling = q`` (``--sampling Q`` on the command line
    builds the same round): k-RR with ``epsilon0`` given, a :class:`Round` whose event is ``Sampled(ShuffledRR)``, or
    with ``colluding`` users a one-group :class:`~blanket.exact.accounting.fleet_rounds.FleetRound` resting on
    ``n − colluding`` honest users (Lemma F3); ``ldp`` a :class:`Round` of ``Sampled(Shuffled(LDP))``; a matrix or a
    closed-form record (:data:`RECORD_ROUND_KINDS`) a :class:`RecordRound` of ``Sampled(Shuffled(record))`` (the
    record's own pairs, as ``blanket epsilon --sampling Q`` composes them).  Refuses the Laplace / Gaussian randomizers
    and colluders beside the rounds that assume every user honest, by name (``name``: the option or field that asked
    for sampling).  A geometric ``m = 2`` randomizer with colluders is the binary RR round it is
    (:func:`_geometric_binary_rounds`).  O(1) (a matrix: its size)."""
    geometric = kind == "geometric" and params.get("m") == 2 and bool(colluding)
    if geometric:
        probe = RecordRound(kind, tuple(sorted(params.items())), n, 1, "users", q)
        (r,) = _geometric_binary_rounds((probe,), colluding, "users.colluding")
        kind, params = "binary_rr", {"k": 2, "epsilon0": r.epsilon0}
    if kind in RECORD_ROUND_KINDS or kind == "ldp":
        if colluding:
            raise InvalidArgument(
                "users.colluding",
                colluding,
                "is not supported with ldp, matrix or frequency-oracle rounds (their pairs assume every user is "
                "honest)",
                hint="drop colluding, or use a krr / binary_rr randomizer",
            )
        if kind == "ldp":
            if "epsilon0" not in params:
                raise InvalidArgument(f"{table}.epsilon0", None, "is required with sampling (give epsilon0 exactly)")
            return Round(
                0, params["epsilon0"], n, 1, "users", q, ldp=True, same_randomizer=bool(params.get("same_randomizer"))
            )
        frozen = tuple(sorted((key, _freeze(v)) for key, v in params.items()))
        return RecordRound(kind, frozen, n, 1, "users", q, matrix_source)
    if kind not in ("krr", "binary_rr"):
        raise InvalidArgument(
            name,
            exact_string(q),
            f"is not supported for {kind} (sampled rounds: krr, binary_rr, ldp, {', '.join(RECORD_ROUND_KINDS)})",
            hint="drop sampling (the Laplace / Gaussian rounds have no sampled pair)",
        )
    if "epsilon0" not in params:
        raise InvalidArgument(f"{table}.epsilon0", None, "is required with sampling (give epsilon0 exactly)")
    mech = registry.build(kind, params)
    assert isinstance(mech, KRR)  # kind is krr or binary_rr
    if colluding:
        if n - colluding < 2:
            raise InvalidArgument("users.colluding", colluding, f"must leave at least 2 honest users of {n}")
        return Round(
            mech.k, params["epsilon0"], n, 1, "users", q, groups=((n, mech),), colluding=colluding, geometric=geometric
        )
    return Round(mech.k, params["epsilon0"], n, 1, "users", q)


def _fleet_rounds(raw, groups: tuple, extra_colluding: int) -> tuple:
    """``[[rounds]]`` of a fleet (:func:`blanket.reports.fleet.parse_fleet_rounds`) as :class:`Round` records: the
    groups' honest users (their own colluders removed) and the fleet-wide colluders."""
    entries = fleet.parse_fleet_rounds(raw, groups)
    members = []
    for g in groups:
        if g.honest > 0:
            mech = g.build_mechanism()
            assert isinstance(mech, KRR)  # parse_fleet_rounds checked the kinds
            members.append((g.honest, mech))
    total = sum(m for m, _ in members)
    if total - extra_colluding < 2:
        raise InvalidArgument("colluding", extra_colluding, f"must leave at least 2 honest users of {total}")
    k = members[0][1].k
    e0 = max(fmpq(g.params["epsilon0"]) for g in groups)
    out = tuple(
        Round(k, e0, total, cnt, where, q, groups=tuple(members), colluding=extra_colluding)
        for cnt, q, where in entries
    )
    check_total_rounds(sum(r.count for r in out), name="rounds", value=f"{len(out)} entries", what=" in all")
    return out


def _parse_rounds(raw, kind, params, n, matrix_ctx: tuple = (None, (), None, None)) -> tuple:
    """``[[rounds]]`` entries (k-ary randomized response, ``ldp``; the Laplace / Gaussian randomizer: a
    :class:`ContinuousRound`; a matrix or a frequency oracle / geometric record: a :class:`RecordRound`); missing
    fields default to [randomizer]/[users].  ``matrix_ctx`` is ``(base_dir, allow_paths, digest, matrix_source)``:
    where a round's ``matrix_file`` is read from (as the randomizer's), the hash its bytes are added to, and the
    randomizer's own matrix file (inherited with its matrix)."""
    if raw is None:
        return ()
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise InvalidArgument("rounds", raw, "must be a list of [[rounds]] tables (mechanism, k, epsilon0, n, count)")
    if len(raw) > 10000:
        raise InvalidArgument("rounds", f"{len(raw)} entries", "must have at most 10000 entries (use count)")
    out: list[Round | ContinuousRound | RecordRound] = []
    for i, r in enumerate(raw):
        where = f"rounds[{i}]"
        if not isinstance(r, dict):
            raise InvalidArgument(where, r, "must be a table with mechanism, k, epsilon0, n and count")
        mk = r.get("mechanism", r.get("kind", r.get("type")))
        rk = kind
        if mk is not None:
            try:
                rk = registry.resolve(mk, k=r.get("k")).value
            except InvalidArgument:
                rk = None
        if rk in RECORD_ROUND_KINDS:  # a matrix or a closed-form record: the accountant's pairs for that record
            out.append(_record_round(r, where, rk, kind, params, n, matrix_ctx))
            continue
        _take(
            r,
            where + ".",
            {"mechanism", "kind", "type", "k", "epsilon0", "n", "count", "sampling", "sigma", "same_randomizer"},
        )
        if rk in CONTINUOUS_ROUND_KINDS:
            if "same_randomizer" in r:
                raise InvalidArgument(
                    f"{where}.same_randomizer",
                    toml_value(r["same_randomizer"]),
                    "applies to ldp and matrix rounds only",
                )
            out.append(_continuous_round(r, where, rk, kind, params, n))
            continue
        if rk == "ldp":
            out.append(_ldp_round(r, where, mk, kind, params, n))
            continue
        if rk not in ("krr", "binary_rr"):
            raise InvalidArgument(
                f"{where}.mechanism",
                mk if mk is not None else kind,
                f"must be one of krr, binary_rr, ldp, laplace, gaussian, {', '.join(RECORD_ROUND_KINDS)} (the "
                "randomizers whose rounds compose)",
            )
        if "same_randomizer" in r:
            raise InvalidArgument(
                f"{where}.same_randomizer",
                toml_value(r["same_randomizer"]),
                "applies to ldp rounds only (a stated k-RR is one randomizer already, with its own tighter view)",
                hint="drop the option",
            )
        if "sigma" in r:
            raise InvalidArgument(f"{where}.sigma", r["sigma"], "applies to gaussian rounds only")
        if "k" in r:
            k = _integer(r["k"], f"{where}.k", lo=2, hi=10**9)
        elif mk is None and "k" in params:
            k = params["k"]
        elif rk == "binary_rr":
            k = 2
        else:
            raise InvalidArgument(f"{where}.k", None, "is required for k-ary randomized response")
        if rk == "binary_rr" and k != 2:
            raise InvalidArgument(f"{where}.k", k, "must be 2 for binary_rr")
        if "epsilon0" in r:
            e0 = _number(r["epsilon0"], f"{where}.epsilon0", lo=0, lo_open=True, hi=1000)
        elif "epsilon0" in params:
            e0 = params["epsilon0"]
        else:
            raise InvalidArgument(f"{where}.epsilon0", None, "is required (the local epsilon0 of the round)")
        rn = _integer(r["n"], f"{where}.n", lo=2, hi=MAX_N) if "n" in r else n
        cnt = _integer(r.get("count", 1), f"{where}.count", lo=1, hi=10**7)
        sq = _sampling(r["sampling"], f"{where}.sampling") if "sampling" in r else None
        out.append(Round(k, e0, rn, cnt, where, sq))
    check_total_rounds(sum(r.count for r in out), name="rounds", value=f"{len(out)} entries", what=" in all")
    return tuple(out)


def _record_round(r: dict, where: str, rk: str, kind: str, params: dict, n: int, matrix_ctx: tuple) -> RecordRound:
    """A ``[[rounds]]`` entry of a ``matrix`` (``matrix`` or ``matrix_file``, read as the randomizer's: under the
    deployment's directory or an ``--allow-path`` directory; optional ``same_randomizer``, ``stronger_clones``) or of
    a closed-form record (the keys of :data:`blanket.exact.mechanisms.registry.SCHEMAS`, e.g. ``k`` and ``epsilon0``
    for ``oue``).  With none of its keys given, the randomizer is the ``[randomizer]``'s (when that is the same
    kind).  ``n``, ``count`` and ``sampling`` as for k-RR rounds.  O(size of the matrix)."""
    base_dir, allow_paths, digest, own_source = matrix_ctx
    schema = registry.SCHEMAS[registry.Kind(rk)]
    keys = set(schema.keys()) | ({"matrix", "matrix_file"} if rk == "matrix" else set())
    _take(r, where + ".", {"mechanism", "kind", "type", "n", "count", "sampling"} | keys)
    given = {key: r[key] for key in keys if key in r}
    source = None
    if not ({"matrix", "matrix_file"} & set(given) if rk == "matrix" else given):
        if rk != kind:
            need = "matrix or matrix_file" if rk == "matrix" else ", ".join(sorted(k for k in schema.keys()))
            raise InvalidArgument(f"{where}.mechanism", rk, f"needs its parameters in the entry ({need})")
        table = dict(params)
        source = own_source
        if rk == "matrix":  # the randomizer's matrix, with the entry's own statements where given
            for key in ("same_randomizer", "stronger_clones"):
                if key in given:
                    table[key] = schema.parse[key](given[key], f"{where}.{key}")
    elif rk == "matrix":
        if "matrix" in given and "matrix_file" in given:
            raise InvalidArgument(
                f"{where}.matrix", None, "must be given inline or as matrix_file, exactly one of them"
            )
        if digest is None:
            digest = hashlib.sha256()  # parsed without a file: nothing to record
        matrix, _fr, source = _parse_matrix(r, where, base_dir, allow_paths, digest)
        table = {"matrix": matrix}
        for key in ("same_randomizer", "stronger_clones"):
            if key in given:
                table[key] = schema.parse[key](given[key], f"{where}.{key}")
    else:
        table = registry.parse_params(rk, given, name=lambda key: f"{where}.{key}")
    rn = _integer(r["n"], f"{where}.n", lo=2, hi=MAX_N) if "n" in r else n
    cnt = _integer(r.get("count", 1), f"{where}.count", lo=1, hi=10**7)
    sq = _sampling(r["sampling"], f"{where}.sampling") if "sampling" in r else None
    out = RecordRound(rk, tuple(sorted((k, _freeze(v)) for k, v in table.items())), rn, cnt, where, sq, source)
    try:  # the record and its statements checked now (e.g. stronger_clones' condition on the matrix)
        out.event()
    except InvalidArgument as exc:
        sc = bool(table.get("stronger_clones"))
        raise InvalidArgument(
            f"{where}.stronger_clones" if sc else where,
            toml_value(True) if sc else None,
            exc.requirement,
            hint=exc.hint,
        ) from None
    return out


def _ldp_round(r: dict, where: str, mk: object, kind: str, params: dict, n: int) -> Round:
    """A ``[[rounds]]`` entry of ``type = "ldp"`` (an ε0-LDP randomizer known only by ``epsilon0``; ``same_randomizer``
    states one randomizer for every user, Lemma G1); ``epsilon0`` and ``same_randomizer`` default to the
    ``[randomizer]``'s when that is ``ldp`` too.  O(1)."""
    if "k" in r:
        raise InvalidArgument(f"{where}.k", r["k"], "is not a key of the ldp randomizer (give epsilon0)")
    inherit = kind == "ldp"
    if "epsilon0" in r:
        e0 = _number(r["epsilon0"], f"{where}.epsilon0", lo=0, lo_open=True, hi=1000)
    elif inherit and "epsilon0" in params:
        e0 = params["epsilon0"]
    else:
        raise InvalidArgument(f"{where}.epsilon0", None, "is required (the local epsilon0 of the round)")
    if "same_randomizer" in r:
        same = r["same_randomizer"]
        if not isinstance(same, bool):
            raise InvalidArgument(f"{where}.same_randomizer", toml_value(same), "must be true or false")
    else:
        same = bool(params.get("same_randomizer", False)) if inherit else False
    rn = _integer(r["n"], f"{where}.n", lo=2, hi=MAX_N) if "n" in r else n
    cnt = _integer(r.get("count", 1), f"{where}.count", lo=1, hi=10**7)
    sq = _sampling(r["sampling"], f"{where}.sampling") if "sampling" in r else None
    return Round(0, e0, rn, cnt, where, sq, ldp=True, same_randomizer=same)


def _continuous_round(r: dict, where: str, rk: str, kind: str, params: dict, n: int) -> ContinuousRound:
    """A ``[[rounds]]`` entry of the Laplace (``epsilon0``) or Gaussian (``sigma``) randomizer; its parameters default
    to the ``[randomizer]``'s when that is the same randomizer.  O(1)."""
    if "sampling" in r and _sampling(r["sampling"], f"{where}.sampling") is not None:  # q = 1: the plain round
        raise InvalidArgument(
            f"{where}.sampling", r["sampling"], f"is not supported for {rk} rounds (the sampled blanket view is k-RR's)"
        )
    keys = {"epsilon0"} if rk == "laplace" else {"sigma"}
    for key in ("k", "epsilon0", "sigma"):
        if key in r and key not in keys:
            raise InvalidArgument(
                f"{where}.{key}", r[key], f"is not a key of the {rk} randomizer (give {' or '.join(sorted(keys))})"
            )
    given = {key: r[key] for key in keys if key in r}
    if not given and rk == kind:
        table = dict(params)
    else:
        table = registry.parse_params(rk, given, name=lambda key: f"{where}.{key}")
    rn = _integer(r["n"], f"{where}.n", lo=2, hi=MAX_N) if "n" in r else n
    cnt = _integer(r.get("count", 1), f"{where}.count", lo=1, hi=10**7)
    return ContinuousRound(rk, tuple(sorted(table.items())), rn, cnt, where)


def load_deployment(
    path: str | pathlib.Path, *, allow_paths: Iterable[str | pathlib.Path] = (), claims_required: bool = True
) -> Deployment:
    """Read and validate a deployment file; errors name the file or the field.

    A ``matrix_file`` must lie under the file's directory or one of ``allow_paths`` (``--allow-path``).
    ``claims_required``: as :func:`parse_deployment`'s.  O(size of the file).
    """
    path = pathlib.Path(path)
    try:  # a regular file of at most 4 MB, checked before reading (a FIFO or /dev/zero is refused at once)
        raw = guards.read_capped(path, MAX_DEPLOYMENT_CHARS * 4, name="deployment file")
    except InvalidArgument as exc:
        if "could not be read" not in exc.requirement:
            raise
        raise InvalidArgument(
            "deployment file",
            str(path),
            exc.requirement,
            hint="give the path of a TOML file, e.g. examples/telemetry.toml",
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument("deployment file", str(path), "is not UTF-8 text") from None
    return parse_deployment(
        text, source=path.name, base_dir=path.parent, allow_paths=allow_paths, claims_required=claims_required
    )


def as_deployment(value: object, name: str = "dep") -> Deployment:
    """The :class:`Deployment` an API function was given: a Deployment as is, a path (``str`` or ``os.PathLike``)
    read with :func:`load_deployment` (errors name the file or the field, as on the command line); anything
    else is refused naming ``name`` and its type.  Also refuses a deployment too large for one certified
    evaluation (:func:`check_deployment_size`), as ``blanket certify`` does.  O(size of the file).

    >>> as_deployment(None)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: dep must be a Deployment (blanket.load_deployment(path)) or the path of a deployment file, got 'NoneType'
    """
    import os

    if isinstance(value, (str, os.PathLike)) and not isinstance(value, _TomlDecimal):
        value = load_deployment(pathlib.Path(value))
    if not isinstance(value, Deployment):
        raise InvalidArgument(
            name,
            type(value).__name__,
            "must be a Deployment (blanket.load_deployment(path)) or the path of a deployment file",
        )
    check_deployment_size(value)
    return value


def check_deployment_size(dep: Deployment) -> None:
    """Refuse (exit 2, with the estimate) a deployment whose certified evaluations would exceed the memory limit."""

    guards.check_evaluation_memory(dep.n, name="users.n")


def _short(v) -> str:
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."
