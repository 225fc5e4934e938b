"""Count laws: the windowed binomial engine, and divergences between finite distributions."""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'binomial': 'FloatLaw FloatRouteUnavailable ball_factor ball_product bernoulli_rel bernoulli_step dot_nonneg float_ball float_param float_window gamma pairwise_depth pairwise_sum pmf rel_combine suffix_sums tail tail_step to_ball float_upper window window_bounds window_to_tail window_dots',
    'divergences': 'Windowed align hockey_stick llr_distance renyi renyi_moment total_variation',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
