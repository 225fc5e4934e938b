"""Shared test configuration.

* Hypothesis profiles: ``fast`` (default) and ``thorough``; choose with
  ``BLANKET_HYPOTHESIS_PROFILE=thorough``.
* ``@pytest.mark.slow`` sweeps are skipped unless ``BLANKET_SLOW`` is set
  (``BLANKET_SLOW=reduced`` in CI runs them on reduced grids; ``full`` runs
  them all).  Tests read the level from the ``slow_level`` fixture.
* With ``BLANKET_SLOW`` set, the slow tests run first in each xdist worker's share (so that the workers end together).
* The autouse fixture restoring flint's global precision is in the root conftest.py
  (so that doctests get it too).
"""

import os

import pytest
from hypothesis import HealthCheck, settings

# "fast" (the default, and CI's) is derandomized: the same examples on every run, so CI never depends on luck;
# "thorough" explores randomly with many more examples
settings.register_profile(
    "fast", max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("BLANKET_HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture
def slow_level():
    """``"reduced"`` or ``"full"`` (slow tests only run when BLANKET_SLOW is set)."""
    return os.environ.get("BLANKET_SLOW", "reduced")


def pytest_collection_modifyitems(config, items):
    level = os.environ.get("BLANKET_SLOW")
    if level:
        items[:] = _slow_first(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1))
        return
    skip = pytest.mark.skip(reason="slow sweep: set BLANKET_SLOW=reduced (CI) or BLANKET_SLOW=full to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _slow_first(items, workers):
    """The slow sweeps (the longest tests, also in reduced form) at the front of each worker's share.

    ``--dist worksteal`` first gives the ``w`` workers consecutive shares of the collection (sizes ``N // w``, then
    of the rest in the same way) and later lets an idle worker take the tail of another's queue; so the slow tests
    are dealt round-robin to the fronts of those shares, and the last tests to run are short ones: the workers end
    together.  Without xdist (``w = 1``) the slow tests simply run first.  Order within each group is kept."""
    slow = [it for it in items if "slow" in it.keywords]
    rest = [it for it in items if "slow" not in it.keywords]
    sizes, left = [], len(items)
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    out = []
    for i, size in enumerate(sizes):
        mine = slow[i::workers]
        take = max(size - len(mine), 0)
        out += mine + rest[:take]
        rest = rest[take:]
    return out + rest
