"""How long computations run: local process pools and Dask, progress bars, up-front cost refusal."""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'budget': 'SWEEP_BLOCK TooExpensive available_memory check_worst_case estimate_worst_cost refuse_over_limits fallback_cost time_limit worst_cost',
    'executors': 'SCHEDULER_ENV available_cores block_ranges executor_cores map_blocks resolve_scheduler resolve_workers shutdown',
    'progress': 'Progress bars_enabled is_quiet set_quiet',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
