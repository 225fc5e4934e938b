"""The papers' results, one module per paper, each result a named symbolic object (see :mod:`proofs.core`)."""

from .core import REGISTRY, Result, ResultTable, get, register, results  # noqa: F401
