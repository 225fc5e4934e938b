"""Mixed fleets and colluding users in deployment files: ``[[users]]`` groups, ``colluding``, personalised ε0.

Syntax (``docs/reference/fleets.md`` §6)::

    [[users]]                       # one group: n (or n_min) users running its own randomizer
    n = 400000
    colluding = 10                  # optional: users of this group that reveal everything (or a fraction "0.01")
    [users.mechanism]               # the keys of today's [mechanism]
    type = "binary_rr"
    epsilon0 = "1"

    [[users]]                       # personalised ε0: one group per value, from a CSV of `epsilon0,count` rows
    epsilon0_counts = "eps0.csv"    # (or epsilon0_list = ["1", "1", "2"], one entry per user)
    [users.mechanism]
    type = "krr"
    k = 4

    colluding = 5                   # top level: 5 more users, chosen by the adversary (worst case)

A single ``[users]`` table with a top-level ``[mechanism]`` keeps its meaning; it may carry ``colluding``.
A fleet refuses a top-level ``[mechanism]``/``[randomizer]`` and ``n``/``n_min`` (named).  With ``[[rounds]]`` (entries
with ``count`` and ``sampling`` only) every round is a shuffle of the whole fleet (:func:`parse_fleet_rounds`).
Numbers are read exactly (the CSV with the csv module and exact rationals, never ``eval``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import pathlib
from collections.abc import Callable
from typing import Any

from blanket.exact.accounting.sampled import check_sampling
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import Randomizer
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

#: the largest number of groups of a fleet (personalised ε0 included)
MAX_GROUPS = 1000
#: the largest ε0 CSV file read
MAX_CSV_BYTES = 1 << 20
#: the largest number of users of a deployment (as reports/deployment.py)
MAX_N = 10**12

GROUP_KEYS = {"n", "n_min", "colluding", "mechanism", "randomizer", "epsilon0_counts", "epsilon0_list", "name"}


@dataclasses.dataclass(frozen=True)
class FleetGroup:
    """``n`` users (at least ``n`` when ``n_is_lower_bound``) running ``kind`` with ``params``; ``colluding`` of
    them reveal everything.  ``field`` names the table in errors and in the certificate."""

    kind: str
    params: dict
    n: int
    n_is_lower_bound: bool
    colluding: int
    field: str

    def build_mechanism(self) -> Randomizer | None:
        """The frozen record of the group's randomizer (:func:`blanket.exact.mechanisms.registry.build`)."""
        return registry.build(self.kind, self.params)

    @property
    def honest(self) -> int:
        """The group's honest users (its own colluders removed)."""
        return self.n - self.colluding

    def as_dict(self) -> dict:
        """The group as understood, as plain strings."""
        return {
            "field": self.field,
            "mechanism": self.kind,
            "parameters": {k: (arith_str(v) if isinstance(v, fmpq) else v) for k, v in self.params.items()},
            "n": self.n,
            "n_is_lower_bound": self.n_is_lower_bound,
            "colluding": self.colluding,
        }


def arith_str(q: fmpq) -> str:
    """An exact rational as text (``3/2``, ``1``)."""
    return str(q.p) if q.q == 1 else f"{q.p}/{q.q}"


def _text_of(value: object) -> object:
    # a TOML float arrives as its decimal text (a str subclass): read it as text
    return str(value) if isinstance(value, str) else value


def colluding_count(value: object, n: int, name: str, *, keep_one: bool = True) -> int:
    """``colluding`` as a number of users: an integer ``0 ≤ m < n``, or a fraction ``0 ≤ f < 1`` of ``n`` (rounded up:
    the certificate rests on fewer honest users, never more).  O(1).

    >>> colluding_count("0.1", 25, "users.colluding"), colluding_count(3, 25, "users.colluding")
    (3, 3)
    """
    if isinstance(value, (dict, list, bool)):
        raise InvalidArgument(name, value, "must be a number of users or a fraction of them, e.g. 10 or \"0.01\"")
    q = arith.exact(_text_of(value), name)
    if q < 0:
        raise InvalidArgument(name, value, "must be >= 0")
    if q.q != 1:
        if q >= 1:
            raise InvalidArgument(name, value, "must be an integer number of users or a fraction below 1")
        m = int(math.ceil(fmpq(n) * q))
    else:
        m = int(q.p)
    if m >= n + (0 if keep_one else 1):
        what = "must leave at least one honest user (the target) of" if keep_one else "must be at most the group's"
        raise InvalidArgument(name, value, f"{what} {n}")
    return m


def _mechanism(g: dict, where: str) -> tuple[str, dict]:
    _one_of(g, where, ("mechanism", "randomizer"))
    table = g.get("mechanism", g.get("randomizer"))
    T = f"{where}.{'mechanism' if 'mechanism' in g else 'randomizer'}"
    if not isinstance(table, dict):
        raise InvalidArgument(T, table, f"is required: a [{T.split('[')[0]}.mechanism] table with type and its keys")
    names = ("mechanism", "kind", "type")
    _one_of(table, T + ".", names)
    word = next((table[k] for k in names if k in table), None)
    if word is None:
        raise InvalidArgument(f"{T}.type", None, "is required", hint="e.g. type = \"binary_rr\"")
    kind = registry.resolve(word, k=table.get("k"), name=f"{T}.type").value
    if kind == "matrix":
        raise InvalidArgument(f"{T}.type", word, "is not supported in a fleet group yet", hint="use krr or an oracle")
    rest = {k: _text_of(v) for k, v in table.items() if k not in names and k != "name"}
    return kind, rest


def _namer(where: str) -> Callable[[str], str]:
    """How a group's mechanism key is named in errors (``users[1].mechanism.epsilon0``)."""
    return lambda key: f"{where}.mechanism.{key}"


def _one_of(table: dict, where: str, keys: tuple) -> None:
    given = [k for k in keys if k in table]
    if len(given) > 1:
        raise InvalidArgument(f"{where}{given[1]}", None, f"cannot be combined with {where}{given[0]}: keep one")


def _eps0_counts(g: dict, where: str, base_dir: pathlib.Path | None, read: list) -> list[tuple[fmpq, int, str]]:
    """The ``(ε0, count, field)`` rows of a personalised group (``epsilon0_counts`` CSV or ``epsilon0_list``)."""
    if "epsilon0_list" in g:
        raw = g["epsilon0_list"]
        if not isinstance(raw, list) or not raw:
            raise InvalidArgument(f"{where}.epsilon0_list", raw, "must be a non-empty list of ε0 values, one per user")
        counts: dict[fmpq, int] = {}
        for i, v in enumerate(raw):
            e = arith.exact_in(_text_of(v), f"{where}.epsilon0_list[{i}]", lo=0, lo_open=True, hi=1000)
            counts[e] = counts.get(e, 0) + 1
        return [(e, c, f"{where}.epsilon0_list") for e, c in sorted(counts.items())]
    fname = g["epsilon0_counts"]
    if not isinstance(fname, str):
        raise InvalidArgument(f"{where}.epsilon0_counts", fname, "must be the name of a CSV file (in quotes)")
    base = (base_dir or pathlib.Path(".")).resolve()
    path = (base / fname).resolve()
    if base != path and base not in path.parents:
        raise InvalidArgument(f"{where}.epsilon0_counts", fname, "must be a file under the deployment file's directory")
    data = guards.read_capped(path, MAX_CSV_BYTES, name=f"{where}.epsilon0_counts")
    read.append(data)  # hashed into the certificate's input digest
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(f"{where}.epsilon0_counts", fname, "is not UTF-8 text") from None
    return parse_eps0_csv(text, f"{where}.epsilon0_counts ({fname})")


def parse_eps0_csv(text: str, name: str) -> list[tuple[fmpq, int, str]]:
    """Rows ``epsilon0,count`` (an optional header ``epsilon0,count``; blank lines and ``#`` lines skipped), read with
    the csv module and exact rationals; equal ε0 are merged.  O(rows).

    >>> [(str(e), c) for e, c, _ in parse_eps0_csv("epsilon0,count\\n1,40\\n2,60\\n1,5\\n", "f")]
    [('1', 45), ('2', 60)]
    """
    counts: dict[fmpq, int] = {}
    for i, row in enumerate(csv.reader(io.StringIO(text))):
        cells = [c.strip() for c in row]
        if not cells or cells == [""] or cells[0].startswith("#"):
            continue
        if i == 0 and [c.lower() for c in cells] == ["epsilon0", "count"]:
            continue
        where = f"{name} row {i + 1}"
        if len(cells) != 2:
            raise InvalidArgument(where, ",".join(cells), "must be two cells: epsilon0,count")
        e = arith.exact_in(cells[0], f"{where} epsilon0", lo=0, lo_open=True, hi=1000)
        c = arith.integer_in(cells[1], f"{where} count", lo=1, hi=MAX_N)
        counts[e] = counts.get(e, 0) + c
    if not counts:
        raise InvalidArgument(name, "no rows", "must hold at least one row epsilon0,count")
    return [(e, c, name) for e, c in sorted(counts.items())]


def parse_fleet(data: dict, *, base_dir: pathlib.Path | None = None) -> tuple[tuple[FleetGroup, ...], int, bytes]:
    """The groups of a ``[[users]]`` deployment, its fleet-wide ``colluding`` count (worst-case choice) and the bytes
    of the ε0 CSV files read (hashed into the input digest).

    Refuses by name: a top-level ``[mechanism]``/``[randomizer]`` or ``n``/``n_min`` beside ``[[users]]``,
    unknown keys, ``n ≤ 0``, both ``n`` and ``n_min``, colluders leaving no honest user.
    O(groups + CSV rows).
    """
    for key in ("mechanism", "randomizer"):
        if key in data:
            raise InvalidArgument(
                key, "given", "cannot be combined with [[users]] groups: each group has its own [users.mechanism]"
            )
    for key in ("n", "n_min", "population"):
        if key in data:
            raise InvalidArgument(key, data[key], "cannot be combined with [[users]] groups: give n in each group")
    users = data["users"]
    files: list[bytes] = []
    if not users:
        raise InvalidArgument("users", users, "must hold at least one [[users]] group")
    groups: list[FleetGroup] = []
    for i, g in enumerate(users):
        where = f"users[{i}]"
        if not isinstance(g, dict):
            raise InvalidArgument(where, g, "must be a table with n and [users.mechanism]")
        unknown = sorted(set(g) - GROUP_KEYS)
        if unknown:
            hint = registry.did_you_mean(unknown[0], GROUP_KEYS)
            raise InvalidArgument(
                f"{where}.{unknown[0]}",
                g[unknown[0]],
                "is not a known field of a group",
                hint=hint or f"known fields: {', '.join(sorted(GROUP_KEYS))}",
            )
        kind, table = _mechanism(g, where)
        personal = "epsilon0_counts" in g or "epsilon0_list" in g
        if personal:
            _one_of(g, where + ".", ("epsilon0_counts", "epsilon0_list"))
            for key in ("n", "n_min"):
                if key in g:
                    raise InvalidArgument(f"{where}.{key}", g[key], "is given by the ε0 counts; remove it")
            for key in ("epsilon0", "exp_epsilon0"):
                if key in table:
                    raise InvalidArgument(
                        f"{where}.mechanism.{key}", table[key], "is given by the ε0 counts; remove it"
                    )
            rows = _eps0_counts(g, where, base_dir, files)
            total = sum(c for _, c, _ in rows)
            m_all = colluding_count(g["colluding"], total, f"{where}.colluding") if "colluding" in g else 0
            if m_all:
                raise InvalidArgument(
                    f"{where}.colluding",
                    g["colluding"],
                    "is not supported with personalised ε0 counts",
                    hint="use the top-level colluding (the adversary's worst choice)",
                )
            for e, c, field in rows:
                params = registry.parse_params(kind, {**table, "epsilon0": arith_str(e)}, name=_namer(where))
                _refuse_same_randomizer(params, where)
                groups.append(FleetGroup(kind, params, c, False, 0, f"{field} epsilon0={arith_str(e)}"))
        else:
            params = registry.parse_params(kind, table, name=_namer(where))
            _refuse_same_randomizer(params, where)
            if ("n" in g) == ("n_min" in g):
                raise InvalidArgument(f"{where}.n", g.get("n"), "must be given, or n_min — exactly one")
            key = "n" if "n" in g else "n_min"
            n = arith.integer_in(_text_of(g[key]), f"{where}.{key}", lo=1, hi=MAX_N)
            m = colluding_count(g["colluding"], n, f"{where}.colluding", keep_one=False) if "colluding" in g else 0
            groups.append(FleetGroup(kind, params, n, key == "n_min", m, where))
        if len(groups) > MAX_GROUPS:
            raise InvalidArgument("users", f"{len(groups)} groups", f"must have at most {MAX_GROUPS} groups")
    n_total = sum(g.n for g in groups)
    honest = sum(g.honest for g in groups)
    if honest < 1:
        raise InvalidArgument("users", "every user colludes", "must leave at least one honest user")
    extra = colluding_count(data["colluding"], honest, "colluding") if "colluding" in data else 0
    if n_total < 2:
        raise InvalidArgument("users", f"{n_total} user", "must hold at least 2 users in all")
    return tuple(groups), extra, b"".join(files)


def _refuse_same_randomizer(params: dict, where: str) -> None:
    """A group's ``same_randomizer = true`` is refused: groups are client-specific randomizers, and Lemma G1 needs one
    randomizer for every user of the shuffle (docs/mechanisms.md).  O(1)."""
    if params.get("same_randomizer"):
        raise InvalidArgument(
            f"{where}.mechanism.same_randomizer",
            True,
            "does not apply in a fleet of [[users]] groups (client-specific randomizers; Lemma G1 needs one "
            "randomizer for every user)",
            hint="drop the option",
        )


def fleet_as_dict(groups: tuple[FleetGroup, ...], colluding: int) -> dict[str, Any]:
    """The fleet as understood (for the certificate's JSON)."""
    return {"groups": [g.as_dict() for g in groups], "colluding": colluding}


ROUND_KEYS = {"count", "sampling"}


def parse_fleet_rounds(raw: object, groups: tuple[FleetGroup, ...]) -> list[tuple[int, fmpq | None, str]]:
    """``[[rounds]]`` entries of a fleet deployment: ``(count, sampling q or None, field)`` per entry.  Every round
    is one shuffle of the whole fleet, so an entry holds only ``count`` (default 1) and ``sampling`` (``0 < q ≤ 1``;
    ``q = 1`` is read as no sampling, ``None``);
    the groups must be k-RR on one alphabet with ``epsilon0`` given (one shuffle, Lemma F5 of
    ``docs/reference/fleets.md``).  Refuses by name.  O(entries + groups).

    >>> g = (FleetGroup("binary_rr", {"epsilon0": fmpq(1)}, 10, False, 0, "users[0]"),)
    >>> parse_fleet_rounds([{"count": 3, "sampling": "0.5"}], g)
    [(3, 1/2, 'rounds[0]')]
    """
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise InvalidArgument("rounds", raw, "must be a list of [[rounds]] tables (count, sampling)")
    if len(raw) > 10000:
        raise InvalidArgument("rounds", f"{len(raw)} entries", "must have at most 10000 entries (use count)")
    ks = set()
    for g in groups:
        if g.kind not in ("krr", "binary_rr"):
            raise InvalidArgument(
                f"{g.field}.mechanism.type",
                g.kind,
                "must be krr or binary_rr in a fleet with [[rounds]] (composed fleet rounds cover k-RR groups "
                "on one alphabet)",
            )
        if "epsilon0" not in g.params:
            raise InvalidArgument(
                f"{g.field}.mechanism.epsilon0", None, "is required in a fleet with [[rounds]] (give epsilon0 exactly)"
            )
        ks.add(int(g.params.get("k", 2)))
    if len(ks) > 1:
        raise InvalidArgument(
            "users",
            f"alphabets {sorted(ks)}",
            "must share one alphabet in a fleet with [[rounds]] (different output spaces are separate shuffles)",
        )
    out: list[tuple[int, fmpq | None, str]] = []
    for i, r in enumerate(raw):
        where = f"rounds[{i}]"
        if not isinstance(r, dict):
            raise InvalidArgument(where, r, "must be a table with count and (optionally) sampling")
        for key in r:
            if key not in ROUND_KEYS:
                raise InvalidArgument(
                    f"{where}.{key}",
                    r[key],
                    "is not a field of a fleet round (the users and their randomizers come from the [[users]] groups)",
                    hint="keep count and sampling",
                )
        cnt = arith.integer_in(_text_of(r.get("count", 1)), f"{where}.count", lo=1, hi=10**7)
        q = None
        if "sampling" in r:
            q = arith.exact_in(_text_of(r["sampling"]), f"{where}.sampling", lo=0, lo_open=True, hi=1)
            q = q if isinstance(q, fmpq) else fmpq(q)
            check_sampling(q, f"{where}.sampling", _text_of(r["sampling"]))
            q = None if q == 1 else q  # every user takes part: the plain fleet round
        out.append((cnt, q, where))
    return out
