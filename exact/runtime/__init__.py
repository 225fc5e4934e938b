"""How long computations run: local process pools and Dask, progress bars, up-front cost refusal.

Modules: ``budget``, ``executors``, ``progress``.
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

import importlib
from typing import Any

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
__all__ = [*_MODULES, *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
