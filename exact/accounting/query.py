"""One validated query: what a caller asks of one shuffled round, validated once at the boundary.

The command line (``blanket delta|epsilon``), a deployment file and the API (:func:`blanket.delta`,
:func:`blanket.epsilon`, :func:`blanket.make_query`, the accountant's ``Shuffled``) build the same
:class:`Query` through the one function :func:`make_query`; code below receives validated exact values
and does not validate them again.  Only the *names* in error messages differ by entry point
(``name(key)`` spells ``--k`` on the command line, ``randomizer.k`` in a deployment, ``k`` in the API);
the requirement text is the same.

The path of one argument, e.g. ``epsilon``: ``blanket delta --epsilon E`` → ``_profile_common.read_inputs``
→ :func:`make_query` (parsed exactly, checked ≥ 0, once) → :func:`blanket.exact.accounting.profiles.delta`
receives the :class:`Query` and dispatches on ``q.dataset_kind`` without checking anything → the kernels of
:mod:`blanket.exact.shuffled` (public API on their own: they keep their documented preconditions).  The API
``blanket.delta(mech, n, epsilon=E)`` calls :func:`make_query` itself, then takes the same path.

>>> q = make_query(mechanism="oue", k=8, epsilon0="1", n=100, epsilon="0.5")
>>> q.kind, q.params["k"], q.n, q.epsilon, type(q.mechanism).__name__
(<Kind.OUE: 'oue'>, 8, 100, 1/2, 'UnaryEncoding')
>>> make_query(mechanism="oue", k=8, epsilon0="1", n=1, epsilon="0.5")
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: n must be >= 2, got 1
>>> make_query(mechanism="oue", k=8, epsilon0="1", n=10, epsilon="0.5", name=lambda key: "--" + key)
... # doctest: +ELLIPSIS
Query(kind=<Kind.OUE: 'oue'>, ...)

A record built already (``blanket.KRR``, an oracle record) is accepted as ``mechanism``; the dataset is
parsed once (``dataset_kind``, ``c``):

>>> from blanket.exact.mechanisms.finite import KRR
>>> q = make_query(mechanism=KRR(2, epsilon0="1"), n=10, epsilon="1/2", dataset="c=3")
>>> q.kind, q.k, q.dataset, q.dataset_kind, q.c
(<Kind.BINARY_RR: 'binary_rr'>, 2, 'c=3', 'c', 3)
>>> make_query(mechanism=KRR(3, epsilon0="1"), n=10, dataset="c=3")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: dataset is only available for binary RR (k = 2), not k = 3, got 'c=3' (...)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR, Randomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import IntegerInput, NumberInput
from flint import fmpq

__all__ = ["Query", "make_query", "require", "parse_dataset", "binary_only", "DATASETS", "ORACLE_DATASETS"]

#: the datasets of k-ary randomized response (:mod:`blanket.exact.accounting.profiles` says what each means)
DATASETS = ("worst", "bracket", "c=INT", "same", "neighbour", "third", "blanket")
#: the datasets accepted for an oracle kind: worst/bracket (certified bracket), blanket (the best certified
#: upper bound over every dataset), same (the concrete dataset x^n vs x^{n-1}x', a lower bound)
ORACLE_DATASETS = ("worst", "bracket", "blanket", "same")
_BINARY_HINT = (
    "use dataset same|neighbour|third (exact on those families, lower bounds on the worst case) "
    "or blanket (an upper bound on every dataset)"
)


@dataclass(frozen=True)
class Query:
    """A validated query about one shuffled round (exact values; ``mechanism`` is the frozen record or ``None``
    when no local level was given, which only a registered bound can use).

    ``dataset`` is the normalised word (``"c=3"``, ``"neighbour"``); ``dataset_kind`` and ``c`` are its
    parsed form for k-ary randomized response (``("c", 3)``, ``("neighbour", None)``).
    """

    kind: registry.Kind
    params: Mapping[str, Any] = field(repr=False)
    mechanism: Randomizer | None = field(repr=False)
    n: int
    epsilon: fmpq | None = None
    delta: fmpq | None = None
    dataset: str = "worst"
    exp_epsilon: fmpq | None = None
    dataset_kind: str = "worst"
    c: int | None = None

    @property
    def k(self) -> int | None:
        return self.params.get("k")

    @property
    def epsilon0(self) -> fmpq | None:
        return self.params.get("epsilon0")


def parse_dataset(dataset: object, n: int | None = None, *, name: str = "dataset") -> tuple[str, int | None]:
    """``(kind, c)`` from a dataset word of k-ary RR: ``"worst"``, ``"bracket"``, ``"c=INT"``, ``"same"``,
    ``"neighbour"`` (or ``"neighbor"``), ``"third"``, ``"blanket"``.  O(len(dataset)).

    >>> parse_dataset("c=3", 10), parse_dataset("worst")
    (('c', 3), ('worst', None))
    >>> parse_dataset("c=10", 10)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: dataset must be c=INT with 0 <= INT <= n-1 = 9, got 'c=10'
    """
    if not isinstance(dataset, str):
        raise InvalidArgument(name, dataset, f"must be one of {', '.join(DATASETS)}")
    s = dataset.strip().lower()
    if s == "neighbor":
        s = "neighbour"
    if s in ("worst", "bracket", "same", "neighbour", "third", "blanket"):
        return s, None
    m = re.fullmatch(r"c\s*=\s*(\d+)", s)
    if m:
        c = int(m.group(1))
        if n is not None and not 0 <= c <= n - 1:
            raise InvalidArgument(name, dataset, f"must be c=INT with 0 <= INT <= n-1 = {n - 1}")
        return "c", c
    raise InvalidArgument(name, dataset, f"must be one of {', '.join(DATASETS)}")


def binary_only(dataset: object, k: int | None, *, name: str = "dataset") -> InvalidArgument:
    """The error for a dataset that only binary RR has (``c=INT``; the exact sweep ``worst`` where it is
    needed), asked of k-ary RR with ``k > 2`` (the caller raises it)."""
    return InvalidArgument(name, dataset, f"is only available for binary RR (k = 2), not k = {k}", hint=_BINARY_HINT)


#: what each quantity a query may be required to carry is, for the message
_REQUIRED = {"epsilon": "the central epsilon, >= 0", "delta": "the target delta, 0 < delta < 1"}


def require(q: Query, *keys: str, name: Callable[[str], str] = str) -> Query:
    """``q`` if it carries each quantity of ``keys`` (``"epsilon"``: ε or e^ε; ``"delta"``), else the error naming
    the first one missing.  O(1).

    >>> require(make_query(mechanism="ldp", epsilon0="1", n=10), "delta")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: delta is required (the target delta, 0 < delta < 1)
    """
    for key in keys:
        given = (q.epsilon, q.exp_epsilon) if key == "epsilon" else (getattr(q, key),)
        if all(v is None for v in given):
            raise InvalidArgument(name(key), None, f"is required ({_REQUIRED[key]})")
    return q


def _record(mech: Any) -> tuple[registry.Kind, dict]:
    """The kind and exact parameters of a record built already (it validated its own parameters)."""

    if isinstance(mech, KRR):
        params: dict = {"k": mech.k}
        if mech.epsilon0_exact is not None:
            params["epsilon0"] = mech.epsilon0_exact
        else:
            params["exp_epsilon0"] = mech.exp_epsilon0()
        return (registry.Kind.BINARY_RR if mech.k == 2 else registry.Kind.KRR), params
    word = getattr(mech, "kind", None)
    if isinstance(word, str) and word.strip().lower() in registry.WORDS and hasattr(mech, "exp_epsilon0"):
        kind = registry.resolve(word, k=getattr(mech, "k", None))
        return kind, ({"k": mech.k} if isinstance(getattr(mech, "k", None), int) else {})
    raise InvalidArgument(
        "mechanism",
        getattr(mech, "name", mech),
        "must be a mechanism word or a randomizer record (blanket.KRR, blanket.make_mechanism)",
    )


def make_query(
    *,
    mechanism: Any = "rr",
    n: IntegerInput | None = None,
    epsilon: NumberInput | None = None,
    delta: NumberInput | None = None,
    dataset: str = "worst",
    exp_epsilon: NumberInput | None = None,
    name: Callable[[str], str] = str,
    need_mechanism: bool = True,
    require: tuple[str, ...] = (),
    **params: Any,
) -> Query:
    """Validate one query (see the module docstring); ``params`` are the mechanism's keys (registry schema).

    ``mechanism`` is a word of the one vocabulary (:mod:`blanket.exact.mechanisms.registry`) with its keys in
    ``params``, or a record built already (then ``params`` must be empty).  ``name(key)`` spells each argument in
    error messages (``key`` ∈ mechanism, n, epsilon, exp_epsilon, delta, dataset and the mechanism's keys).
    Values ``None`` count as not given; ``require`` names the quantities that must be (:func:`require`).
    ``need_mechanism=False`` allows a query without the local level (only
    for evaluating a registered bound, or for a search over ε0).  Cost: O(1) besides parsing the numbers.
    """
    params = {k: v for k, v in params.items() if v is not None}
    if not isinstance(mechanism, (str, registry.Kind)):
        if params:
            raise InvalidArgument(name(next(iter(params))), params, "must not be given with a randomizer record")
        kind, exact_params = _record(mechanism)
        mech = mechanism
    else:
        kind = registry.resolve(mechanism, k=params.get("k"), name=name("mechanism"))
        sch = registry.SCHEMAS[kind]
        if need_mechanism or any(key in params for key in sch.eps0):
            exact_params = registry.parse_params(kind, params, name=name)
            mech = registry.build(kind, exact_params)
        else:
            registry.check_keys(kind, params, name=name)
            exact_params = {key: sch.parse[key](v, name(key)) for key, v in params.items()}
            if kind == registry.Kind.BINARY_RR:
                exact_params["k"] = 2
            mech = None
    if kind == registry.Kind.GEOMETRIC and mech is not None and getattr(mech, "m", None) == 2:
        # m = 2 is binary RR with e^{ε0} = 1/α (the same 2 × 2 matrix; docs/mechanisms.md): its exact engines
        mech = mech.as_binary_rr()  # type: ignore[attr-defined]
        kind, exact_params = _record(mech)
    if n is None:
        raise InvalidArgument(name("n"), None, "is required (the number of users, >= 2)")
    n = arith.integer_in(n, name("n"), lo=2)
    if epsilon is not None and exp_epsilon is not None:
        raise InvalidArgument(name("epsilon"), epsilon, "must be given (or exp_epsilon instead), not both or neither")
    eps = None if epsilon is None else arith.exact_in(epsilon, name("epsilon"), lo=0)
    exp_eps = None if exp_epsilon is None else arith.exact_in(exp_epsilon, name("exp_epsilon"), lo=1)
    dlt = None if delta is None else arith.exact_in(delta, name("delta"), lo=0, hi=1, lo_open=True, hi_open=True)
    ds = str(dataset).strip().lower().replace("neighbor", "neighbour")
    c = None
    if kind in registry.ORACLE_KINDS:
        if ds not in ORACLE_DATASETS:
            raise InvalidArgument(
                name("dataset"),
                dataset,
                f"must be one of {', '.join(ORACLE_DATASETS)} for {registry.SCHEMAS[kind].title}",
                hint=registry.did_you_mean(ds, ORACLE_DATASETS),
            )
        ds_kind = ds
    else:
        ds_kind, c = parse_dataset(dataset, n, name=name("dataset"))
        k = exact_params.get("k")
        if ds_kind == "c":
            ds = f"c={c}"
            if kind in registry.RR_KINDS and k != 2:
                raise binary_only(dataset, k, name=name("dataset"))
    q = Query(kind, exact_params, mech, n, eps, dlt, ds, exp_eps, ds_kind, c)
    return _require(q, *require, name=name)


_require = require  # make_query's keyword of the same name hides the function inside it
