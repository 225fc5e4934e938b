"""Protocols built on shuffling: real summation and the Cheu–Yan truncated discrete Laplace aggregator.

Modules: ``summation``, ``tdlap``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = ('summation', 'tdlap')
_EXPORTS = {
    'Groups': 'tdlap',
    'PolyaCheck': 'tdlap',
    'Protocol1D': 'summation',
    'RelaxedAggregator': 'tdlap',
    'analyzer': 'tdlap',
    'calibrated_protocol': 'summation',
    'cbrt_ceil': 'summation',
    'certified_epsilon': 'summation',
    'dlap_moment': 'tdlap',
    'dlap_pmf': 'tdlap',
    'dlap_tail': 'tdlap',
    'geo_moment': 'tdlap',
    'histogram_law': 'summation',
    'interval_index': 'summation',
    'interval_probabilities': 'summation',
    'lattice_component': 'tdlap',
    'lemma_4_4_terms': 'summation',
    'llr_exact_or_ball': 'tdlap',
    'max_ratio': 'tdlap',
    'midpoint_sum': 'summation',
    'midpoint_sum_min': 'summation',
    'midpoints': 'summation',
    'mirrored_component': 'tdlap',
    'mixture': 'tdlap',
    'pair_delta': 'summation',
    'pairwise_llr_certified': 'tdlap',
    'polya_masses': 'tdlap',
    'polya_share_check': 'tdlap',
    'posterior_mean_randomizer': 'summation',
    'protocol_mse_bruteforce': 'summation',
    'r_from_rho': 'tdlap',
    'ratio': 'tdlap',
    'rational_upper': 'summation',
    'single_error': 'summation',
    'sum_protocol_mse': 'summation',
    'tdlap_masses': 'tdlap',
    'tdlap_moment': 'tdlap',
    'tdlap_normaliser': 'tdlap',
    'tdlap_pmf': 'tdlap',
    'worst_delta_bruteforce': 'summation',
}
__all__ = [*_MODULES, *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
