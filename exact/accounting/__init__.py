"""Privacy profiles, calibration, Rényi divergences, privacy loss distributions and the accountant.

Modules: ``accountant``, ``calibrate``, ``pld``, ``profiles``, ``query``, ``renyi``, ``renyi_families``.
Public names are loaded lazily (importing the package imports no module).
Names defined in several modules are not re-exported here: check_worst_cost.
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('accountant', 'calibrate', 'pld', 'profiles', 'query', 'renyi', 'renyi_families')
_EXPORTS = {
    'Query': 'query',
    'make_query': 'query',
    'Bracket': 'calibrate',
    'CertifiedDelta': 'accountant',
    'CertifiedEpsilon': 'accountant',
    'DeltaProfile': 'profiles',
    'EpsilonProfile': 'profiles',
    'PLD': 'pld',
    'RenyiValue': 'renyi',
    'ShiftPair': 'pld',
    'ShuffleAccountant': 'accountant',
    'ShuffledRR': 'accountant',
    'Shuffled': 'accountant',
    'clone_pair': 'accountant',
    'four_value_lower_pair': 'accountant',
    'bernoulli_cumulant': 'renyi',
    'binomial_central_moment': 'renyi',
    'binomial_window': 'renyi',
    'blanket_view_atoms': 'pld',
    'delta': 'profiles',
    'delta_bracket': 'profiles',
    'discretise': 'pld',
    'discretise_both': 'pld',
    'dominating_pair': 'pld',
    'epsilon': 'profiles',
    'epsilon0': 'profiles',
    'epsilon0_for': 'calibrate',
    'epsilon_bracket': 'profiles',
    'epsilon_for_delta': 'calibrate',
    'validated_search': 'calibrate',
    'float_bounds': 'renyi',
    'float_excess_binary_block': 'renyi',
    'float_excess_block': 'renyi',
    'float_moments_binary': 'renyi',
    'float_moments_binary_block': 'renyi',
    'float_tol': 'renyi',
    'gaussian_epsilon_guess': 'calibrate',
    'hockey_stick': 'pld',
    'lower_datasets': 'profiles',
    'lower_pair': 'pld',
    'moment_binary': 'renyi',
    'moment_krr_family': 'renyi',
    'moment_krr_family_nested': 'renyi',
    'TaylorMoment': 'renyi_families',
    'family_steps': 'renyi_families',
    'joint_moments': 'renyi_families',
    'joint_moments_series': 'renyi_families',
    'moment_family': 'renyi_families',
    'renyi_family': 'renyi_families',
    'taylor_moment': 'renyi_families',
    'others_count_law': 'renyi',
    'parse_dataset': 'query',
    'parse_order': 'renyi',
    'product_atoms': 'pld',
    'renyi': 'renyi',
    'renyi_binary': 'renyi',
    'renyi_binary_worst': 'renyi',
    'renyi_krr_family': 'renyi',
    'sweep_block': 'renyi',
    'worst_cost': 'renyi',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
