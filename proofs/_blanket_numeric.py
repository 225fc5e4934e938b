"""Algorithmic sides of the privacy-blanket results — moved to :mod:`blanket.exact.shuffled.amplification` (issue 14).

The numerics live in ``exact/`` (dependencies point reports → proofs →
exact); this module keeps every public name of the old
``proofs/_blanket_numeric`` working for ``proofs/blanket.py`` and the tests.
"""

from blanket.exact.shuffled.amplification import (  # noqa: F401
    blanket_sum,
    eplus_krr,
    eplus_krr_sum,
    eplus_law,
    geometric_binomial_sum,
    krr_law,
    multiset_divergence,
)

__all__ = [
    "krr_law",
    "eplus_krr",
    "eplus_krr_sum",
    "eplus_law",
    "blanket_sum",
    "geometric_binomial_sum",
    "multiset_divergence",
]
