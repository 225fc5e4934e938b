"""Protocols built on shuffling: real summation (``summation``) and the Cheu–Yan truncated discrete Laplace
aggregator (``tdlap``: laws and the relaxed aggregator; ``pure_sum``: the exact quantities of the Cheu–Yan claims
and protocol)."""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'summation': 'Protocol1D calibrated_protocol cbrt_ceil certified_epsilon histogram_law interval_index interval_probabilities lemma_4_4_terms midpoint_sum midpoint_sum_min midpoints pair_delta posterior_mean_randomizer protocol_mse_bruteforce rational_upper single_error sum_protocol_mse worst_delta_bruteforce',
    'tdlap': 'Groups PolyaCheck RelaxedAggregator analyzer dlap_moment dlap_pmf dlap_tail geo_moment lattice_component llr_exact_or_ball max_ratio mirrored_component pairwise_llr_certified polya_masses polya_share_check r_from_rho ratio tdlap_masses tdlap_moment tdlap_normaliser tdlap_pmf',
    'pure_sum': 'aggregator carry_pairs claim38_ratio claim38_same_index_ratio claims_pair_bound closed_pairing_ratio cor37_exact dlap_shift_llr error_second_moment group_mass groups_at_rho is_beta_correct is_llr_secure is_pure_dp is_relaxation llr_distance no_carry_gap noise_pmf perfect_security_failure protocol_error_law protocol_mse ratio_in',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
