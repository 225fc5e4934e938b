"""Shuffled mechanisms: datasets, families, worst cases, blanket views, exhaustive small-n search.

Names defined in several modules are not re-exported here: WorstCase.
"""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'amplification': 'blanket_sum eplus_krr eplus_krr_sum eplus_law geometric_binomial_sum krr_law multiset_divergence',
    'binary': 'delta_binary_worst',
    'binary_dataset': 'count_law delta_binary',
    'bruteforce': 'delta_brute shuffled_law',
    'continuous': 'EpsilonBracket ViewEnclosure blanket_view epsilon_bracket quantised_epsilon_lower quantised_rr',
    'enumerate': 'DatasetDelta count_classes dataset_deltas dataset_deltas_multi delta_class delta_dataset histogram_law worst_case worst_cases',
    'fleet': 'Group check_fleet fleet_count_law delta_fleet_colluding delta_fleet_dataset delta_fleet_view fleet_view_target honest_fleet',
    'generic_ldp': 'generic_lower krr_member same_randomizer_delta scw_generic_delta three_rr_third_delta',
    'geometric': 'GeometricBracket geometric_bracket geometric_upper dominating_law',
    'krr': 'calibrate_epsilon compositions delta_blanket_view delta_krr_family delta_krr_third_lumped delta_stronger_clones',
    'matrix_view': 'atom_count is_matrix matrix_blanket_view pair_atoms spread_atoms',
    'positive_part': 'expected_positive_part',
    'oracle_exact': 'MAX_CALLS REFINE_REL THIRD_GRID_MAX_N best_lower blanket_view_exact exact_view_calls exact_view_or_none exact_view_work EVERY_STATISTIC every_family_delta is_exact olh_triple_law_at third_cells third_value_delta triple_hit_law',
    'olh_every': 'olh_triple_range single_hit_mass',
    'oracle_third': 'EXACT_N MAX_WORK WINDOW_TOL third_full_delta third_full_upper third_full_work',
    'oracles': 'Bracket5 FAST_EXACT_BELOW blanket_view_bracket blanket_view_delta_fast blanket_view_upper OracleMatrix best_upper_delta blanket_view_delta blanket_view_delta_enumerate blanket_view_delta_merged clone_delta clone_pair_law epsilon_upper same_family_delta variation_ratio_delta',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
