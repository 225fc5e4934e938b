"""Protocols built on shuffling: real summation and the Cheu–Yan truncated discrete Laplace aggregator.

Modules: ``summation``, ``tdlap`` (laws and the relaxed aggregator), ``pure_sum`` (the exact quantities of the
Cheu–Yan claims and protocol).
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('summation', 'tdlap', 'pure_sum')
_EXPORTS = {
    'Groups': 'tdlap',
    'PolyaCheck': 'tdlap',
    'Protocol1D': 'summation',
    'RelaxedAggregator': 'tdlap',
    'aggregator': 'pure_sum',
    'analyzer': 'tdlap',
    'calibrated_protocol': 'summation',
    'carry_pairs': 'pure_sum',
    'cbrt_ceil': 'summation',
    'certified_epsilon': 'summation',
    'claim38_ratio': 'pure_sum',
    'claim38_same_index_ratio': 'pure_sum',
    'claims_pair_bound': 'pure_sum',
    'closed_pairing_ratio': 'pure_sum',
    'cor37_exact': 'pure_sum',
    'dlap_moment': 'tdlap',
    'dlap_pmf': 'tdlap',
    'dlap_shift_llr': 'pure_sum',
    'dlap_tail': 'tdlap',
    'error_second_moment': 'pure_sum',
    'geo_moment': 'tdlap',
    'group_mass': 'pure_sum',
    'groups_at_rho': 'pure_sum',
    'histogram_law': 'summation',
    'interval_index': 'summation',
    'interval_probabilities': 'summation',
    'is_beta_correct': 'pure_sum',
    'is_llr_secure': 'pure_sum',
    'is_pure_dp': 'pure_sum',
    'is_relaxation': 'pure_sum',
    'lattice_component': 'tdlap',
    'lemma_4_4_terms': 'summation',
    'llr_distance': 'pure_sum',
    'llr_exact_or_ball': 'tdlap',
    'max_ratio': 'tdlap',
    'midpoint_sum': 'summation',
    'midpoint_sum_min': 'summation',
    'midpoints': 'summation',
    'mirrored_component': 'tdlap',
    'mixture': 'tdlap',
    'no_carry_gap': 'pure_sum',
    'noise_pmf': 'pure_sum',
    'pair_delta': 'summation',
    'pairwise_llr_certified': 'tdlap',
    'perfect_security_failure': 'pure_sum',
    'polya_masses': 'tdlap',
    'polya_share_check': 'tdlap',
    'posterior_mean_randomizer': 'summation',
    'protocol_error_law': 'pure_sum',
    'protocol_mse': 'pure_sum',
    'protocol_mse_bruteforce': 'summation',
    'r_from_rho': 'tdlap',
    'ratio': 'tdlap',
    'ratio_in': 'pure_sum',
    'rational_upper': 'summation',
    'single_error': 'summation',
    'sum_protocol_mse': 'summation',
    'tdlap_masses': 'tdlap',
    'tdlap_moment': 'tdlap',
    'tdlap_normaliser': 'tdlap',
    'tdlap_pmf': 'tdlap',
    'worst_delta_bruteforce': 'summation',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
