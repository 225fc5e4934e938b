"""Local randomizers: finite matrices (k-RR, binary RR, any FiniteRandomizer) and the frequency oracles.

Modules: ``finite``, ``oracles``, ``registry``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('finite', 'oracles', 'registry')
_EXPORTS = {
    'Kind': 'registry',
    'WORDS': 'registry',
    'SCHEMAS': 'registry',
    'resolve': 'registry',
    'parse_params': 'registry',
    'build': 'registry',
    'did_you_mean': 'registry',
    'BinaryRR': 'finite',
    'FiniteRandomizer': 'finite',
    'Geometric': 'oracles',
    'Hadamard': 'oracles',
    'KRR': 'finite',
    'Randomizer': 'finite',
    'LDP': 'oracles',
    'MAX_MATRIX_OUTPUTS': 'oracles',
    'OLH': 'oracles',
    'OUE': 'oracles',
    'SUE': 'oracles',
    'Subset': 'oracles',
    'UnaryEncoding': 'oracles',
    'amplification_law': 'finite',
    'delta_query': 'finite',
    'best_upper_delta': 'oracles',
    'blanket_view_delta': 'oracles',
    'blanket_view_delta_enumerate': 'oracles',
    'blanket_view_delta_merged': 'oracles',
    'clone_delta': 'oracles',
    'clone_pair_law': 'oracles',
    'epsilon_upper': 'oracles',
    'make_mechanism': 'oracles',
    'same_family_delta': 'oracles',
    'variation_ratio_delta': 'oracles',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
