"""Blanket: certified privacy accounting for the shuffle model.

The public API.  Everything a caller needs is importable from here; the
layers live in :mod:`blanket.exact` (verified arithmetic: the true
quantities), :mod:`blanket.proofs` (the papers' results as symbolic objects)
and :mod:`blanket.reports` (certificates, reports, figures, the command line).

Names are loaded lazily, so ``import blanket`` is cheap.

>>> import blanket
>>> rr = blanket.BinaryRR(epsilon0="2")
>>> d = blanket.delta(rr, 1000, epsilon="0.3", dataset="c=0")
>>> d.relation, d.value > 0
('lower', True)

One validated query (:func:`make_query`, the record the command line and deployment files build too) serves
every entry point: it is checked once, and ``delta``/``epsilon`` and the accountant take it as it is.

>>> q = blanket.make_query(mechanism="rr", epsilon0="2", n=1000, epsilon="0.3", dataset="c=0")
>>> r = blanket.delta(q)
>>> (r.value.mid(), r.value.rad()) == (d.value.mid(), d.value.rad())
True
>>> blanket.make_query(mechanism="rr", epsilon0="2", n=1, epsilon="0.3")
Traceback (most recent call last):
...
blanket.exact.numbers.errors.InvalidArgument: n must be >= 2, got 1
"""

from __future__ import annotations

import importlib

# The three layers are blanket/exact, blanket/proofs, blanket/reports: in a source checkout (and an editable
# install) committed links to the top-level folders exact/, proofs/, reports/; in a wheel the folders themselves.

#: public name -> "module:attribute" (module relative to this package)
_API = {
    # numbers and errors
    "InvalidArgument": "exact.numbers.errors:InvalidArgument",
    "BlanketError": "exact.numbers.errors:BlanketError",
    "precision": "exact.numbers.arith:precision",
    # mechanisms (local randomizers)
    "KRR": "exact.mechanisms.finite:KRR",
    "BinaryRR": "exact.mechanisms.finite:BinaryRR",
    "FiniteRandomizer": "exact.mechanisms.finite:FiniteRandomizer",
    # privacy profiles of one shuffled round
    "delta": "exact.accounting.profiles:delta",
    "epsilon": "exact.accounting.profiles:epsilon",
    # composition of shuffled rounds (certified accountant, dp_accounting vocabulary)
    "ShuffleAccountant": "exact.accounting.accountant:ShuffleAccountant",
    "ShuffledRR": "exact.accounting.accountant:ShuffledRR",
    "Shuffled": "exact.accounting.accountant:Shuffled",
    "Sampled": "exact.accounting.sampled:Sampled",
    "make_mechanism": "exact.mechanisms.registry:make_mechanism",
    "make_query": "exact.accounting.query:make_query",
    "Query": "exact.accounting.query:Query",
    "Kind": "exact.mechanisms.registry:Kind",
    # certificates
    "load_deployment": "reports.deployment:load_deployment",
    "certify": "reports.certificate:certify",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    try:
        target = _API[name]
    except KeyError:
        raise AttributeError(f"module 'blanket' has no attribute {name!r}") from None
    mod, _, attr = target.partition(":")
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
