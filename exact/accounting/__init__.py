"""Privacy profiles, Rényi divergences, privacy loss distributions and the accountant.

The calibration searches (the smallest ε with δ(ε) ≤ target) are ``blanket.exact.numbers.calibrate``.

Names defined in several modules are not re-exported here: check_worst_cost.
"""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'accountant': 'CertifiedDelta CertifiedEpsilon ShuffleAccountant ShuffledRR Shuffled four_value_lower_pair',
    'sampled': 'CappedPair Sampled SampledView compact difference_law sampled_krr_pair sampled_krr_values sampled_view',
    'pairs': 'ShiftPair blanket_view_atoms clone_pair dominating_pair garbled_blanket_view hockey_stick lower_pair lumped_lower_pair product_atoms split_blanket_view',
    'pld': 'PLD discretise discretise_both parse_grid renyi_log_moments rdp_delta rdp_epsilon',
    'curves': 'FinitePair binary_worst_curve_epsilon binary_worst_curve_pair binary_worst_curve_values binary_worst_pair curve_grid inverse_alpha pair_from_roc pair_from_values',
    'curve_steps': 'allpass binary_worst_curve_stepped binary_worst_curve_values_stepped step_span sweep_seconds',
    'curve_pairs': 'CurveValues curve_pair curve_sources curve_values has_curve',
    'stronger_clones': 'check_condition condition_violation stronger_clone_pair',
    'same_randomizer': 'applies check_same_randomizer same_randomizer_pair',
    'oracle_lower': 'DROP_Z third_value_lower_pair',
    'banded': 'BandedPair lumped_banded_pair',
    'matrix_lower': 'Binarization candidates composition_choice shift_pair summed_pair',
    'geometric_lower': 'GeometricCount count_probability geometric_choice',
    'certified': 'best_upper lower_bound upper_bounds upper_routes',
    'profiles': 'DeltaProfile Effort EpsilonProfile delta delta_bracket epsilon epsilon0 epsilon_bracket lower_datasets',
    'query': 'Query make_query parse_dataset',
    'renyi': 'RenyiValue bernoulli_cumulant binomial_central_moment binomial_window moment_binary moment_krr_family_nested others_count_law renyi_binary renyi_binary_worst sweep_block worst_cost',
    'renyi_core': 'binary_params binary_window_error check_krr integer_order is_integer_order order_power parse_order window_error',
    'renyi_float': 'float_bounds float_excess_binary_block float_excess_block float_moments_binary float_moments_binary_block float_tol float_down float_up',
    'renyi_families': 'TaylorMoment family_steps joint_moments joint_moments_series moment_family renyi_family taylor_moment moment_krr_family renyi_krr_family renyi',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
