"""Count laws: the windowed binomial engine, and divergences between finite distributions.

Modules: ``binomial``, ``divergences``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = ('binomial', 'divergences')
_EXPORTS = {
    'FloatLaw': 'binomial',
    'FloatRouteUnavailable': 'binomial',
    'Windowed': 'divergences',
    'align': 'divergences',
    'ball_factor': 'binomial',
    'bernoulli_rel': 'binomial',
    'bernoulli_step': 'binomial',
    'dot_nonneg': 'binomial',
    'exact_ball': 'binomial',
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
    'up_float': 'binomial',
    'window': 'binomial',
    'window_bounds': 'binomial',
    'window_dots': 'binomial',
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
