"""One validated query: what a caller asks of one shuffled round, validated once at the boundary.

The command line (``blanket delta|epsilon``), a deployment file and the API build the same
:class:`Query` through the one function :func:`make_query`; code below receives validated exact values
and does not validate them again.  Only the *names* in error messages differ by entry point
(``name(key)`` spells ``--k`` on the command line, ``randomizer.k`` in a deployment, ``k`` in the API);
the requirement text is the same.

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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from blanket.exact.mechanisms import registry
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import IntegerInput, NumberInput
from flint import fmpq

__all__ = ["Query", "make_query", "ORACLE_DATASETS"]

#: the datasets accepted for an oracle kind: worst/bracket (certified bracket), blanket (the best certified
#: upper bound over every dataset), same (the concrete dataset x^n vs x^{n-1}x', a lower bound)
ORACLE_DATASETS = ("worst", "bracket", "blanket", "same")


@dataclass(frozen=True)
class Query:
    """A validated query about one shuffled round (exact values; ``mechanism`` is the frozen record or ``None``
    when no local level was given, which only a registered bound can use)."""

    kind: registry.Kind
    params: Mapping = field(repr=False)
    mechanism: object = field(repr=False)
    n: int
    epsilon: object = None
    delta: object = None
    dataset: str = "worst"

    @property
    def k(self) -> int | None:
        return self.params.get("k")

    @property
    def epsilon0(self) -> fmpq | None:
        return self.params.get("epsilon0")


def make_query(
    *,
    mechanism: str | registry.Kind = "rr",
    n: IntegerInput | None = None,
    epsilon: NumberInput | None = None,
    delta: NumberInput | None = None,
    dataset: str = "worst",
    name: Callable[[str], str] = str,
    need_mechanism: bool = True,
    **params: Any,
) -> Query:
    """Validate one query (see the module docstring); ``params`` are the mechanism's keys (registry schema).

    ``name(key)`` spells each argument in error messages (``key`` ∈ mechanism, n, epsilon, delta, dataset
    and the mechanism's keys).  Values ``None`` count as not given.  ``need_mechanism=False`` allows a query
    without the local level (only for evaluating a registered bound).
    """
    params = {k: v for k, v in params.items() if v is not None}
    kind = registry.resolve(mechanism, k=params.get("k"), name=name("mechanism"))
    sch = registry.SCHEMAS[kind]
    has_eps0 = any(key in params for key in sch.eps0)
    if need_mechanism or has_eps0:
        exact_params = registry.parse_params(kind, params, name=name)
        mech = registry.build(kind, exact_params)
    else:
        registry.check_keys(kind, params, name=name)
        exact_params = {key: sch.parse[key](v, name(key)) for key, v in params.items()}
        if kind == registry.Kind.BINARY_RR:
            exact_params["k"] = 2
        mech = None
    if n is None:
        raise InvalidArgument(name("n"), None, "is required (the number of users, >= 2)")
    n = arith.integer_in(n, name("n"), lo=2)
    if epsilon is not None:
        epsilon = arith.exact_in(epsilon, name("epsilon"), lo=0)
    if delta is not None:
        delta = arith.exact_in(delta, name("delta"), lo=0, hi=1, lo_open=True, hi_open=True)
    ds = str(dataset).strip().lower().replace("neighbor", "neighbour")
    if kind in registry.ORACLE_KINDS:
        if ds not in ORACLE_DATASETS:
            raise InvalidArgument(
                name("dataset"),
                dataset,
                f"must be one of {', '.join(ORACLE_DATASETS)} for {sch.title}",
                hint=registry.did_you_mean(ds, ORACLE_DATASETS),
            )
    else:
        from blanket.exact.accounting.profiles import parse_dataset

        parse_dataset(dataset, n)
    return Query(kind, exact_params, mech, n, epsilon, delta, ds)
