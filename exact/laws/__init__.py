"""Count laws: the windowed binomial engine, and divergences between finite distributions.

Modules: ``binomial``, ``divergences``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('binomial', 'divergences')
_EXPORTS = {
    'FloatLaw': 'binomial',
    'FloatRouteUnavailable': 'binomial',
    'Windowed': 'divergences',
    'align': 'divergences',
    'ball_factor': 'binomial',
    'ball_product': 'binomial',
    'bernoulli_rel': 'binomial',
    'bernoulli_step': 'binomial',
    'dot_nonneg': 'binomial',
    'float_ball': 'binomial',
    'float_param': 'binomial',
    'float_window': 'binomial',
    'gamma': 'binomial',
    'hockey_stick': 'divergences',
    'llr_distance': 'divergences',
    'pairwise_depth': 'binomial',
    'pairwise_sum': 'binomial',
    'pmf': 'binomial',
    'rel_combine': 'binomial',
    'renyi': 'divergences',
    'renyi_moment': 'divergences',
    'suffix_sums': 'binomial',
    'tail': 'binomial',
    'tail_step': 'binomial',
    'to_ball': 'binomial',
    'total_variation': 'divergences',
    'float_upper': 'binomial',
    'window': 'binomial',
    'window_bounds': 'binomial',
    'window_to_tail': 'binomial',
    'window_dots': 'binomial',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
