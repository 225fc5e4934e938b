"""Shuffled mechanisms: datasets, families, worst cases, blanket views, exhaustive small-n search.

Modules: ``amplification``, ``binary``, ``bruteforce``, ``certified``, ``enumerate``, ``geometric``, ``krr``, ``oracles``.
Public names are loaded lazily (importing the package imports no module).
Names defined in several modules are not re-exported here: WorstCase.
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('amplification', 'binary', 'bruteforce', 'certified', 'enumerate', 'geometric', 'krr', 'oracles')
_EXPORTS = {
    'best_upper': 'certified',
    'lower_bound': 'certified',
    'upper_bounds': 'certified',
    'upper_routes': 'certified',
    'Bracket5': 'oracles',
    'GeometricBracket': 'geometric',
    'geometric_bracket': 'geometric',
    'geometric_upper': 'geometric',
    'dominating_law': 'geometric',
    'DatasetDelta': 'enumerate',
    'FAST_EXACT_BELOW': 'oracles',
    'blanket_sum': 'amplification',
    'blanket_view_bracket': 'oracles',
    'blanket_view_delta_fast': 'oracles',
    'blanket_view_upper': 'oracles',
    'OracleMatrix': 'oracles',
    'calibrate_epsilon': 'krr',
    'compositions': 'krr',
    'count_classes': 'enumerate',
    'count_law': 'binary',
    'dataset_deltas': 'enumerate',
    'dataset_deltas_multi': 'enumerate',
    'delta_binary': 'binary',
    'delta_binary_worst': 'binary',
    'delta_blanket_view': 'krr',
    'delta_brute': 'bruteforce',
    'delta_class': 'enumerate',
    'delta_dataset': 'enumerate',
    'delta_krr_family': 'krr',
    'delta_krr_third_lumped': 'krr',
    'delta_stronger_clones': 'krr',
    'eplus_krr': 'amplification',
    'eplus_krr_sum': 'amplification',
    'eplus_law': 'amplification',
    'estimate_worst_cost': 'binary',
    'expected_positive_part': 'krr',
    'geometric_binomial_sum': 'amplification',
    'histogram_law': 'enumerate',
    'krr_law': 'amplification',
    'multiset_divergence': 'amplification',
    'shuffled_law': 'bruteforce',
    'worst_case': 'enumerate',
    'worst_cases': 'enumerate',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
