"""How long computations run: local process pools and Dask, progress bars, up-front cost refusal.

Modules: ``budget``, ``executors``, ``progress``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('budget', 'executors', 'progress')
_EXPORTS = {
    'Progress': 'progress',
    'SCHEDULER_ENV': 'executors',
    'TooExpensive': 'budget',
    'available_cores': 'executors',
    'available_memory': 'budget',
    'bars_enabled': 'progress',
    'block_ranges': 'executors',
    'check_worst_case': 'budget',
    'refuse_over_limits': 'budget',
    'executor_cores': 'executors',
    'fallback_cost': 'budget',
    'is_quiet': 'progress',
    'map_blocks': 'executors',
    'resolve_scheduler': 'executors',
    'resolve_workers': 'executors',
    'set_quiet': 'progress',
    'shutdown': 'executors',
    'time_limit': 'budget',
    'worst_cost': 'budget',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
