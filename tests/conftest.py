"""Shared test configuration.

* Hypothesis profiles: ``fast`` (default) and ``thorough``; choose with
  ``BLANKET_HYPOTHESIS_PROFILE=thorough``.
* ``@pytest.mark.slow`` sweeps are skipped unless ``BLANKET_SLOW`` is set
  (``BLANKET_SLOW=reduced`` in CI runs them on reduced grids; ``full`` runs
  them all).  Tests read the level from the ``slow_level`` fixture.
* With ``BLANKET_SLOW`` set, the slow tests run first (so that the xdist workers end evenly).
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
        # the slow sweeps (the longest tests, also in reduced form) first, in their collected order: with
        # `-n 2 --dist worksteal` the last tests to run are then short ones, so the two workers end together
        items.sort(key=lambda item: "slow" not in item.keywords)
        return
    skip = pytest.mark.skip(reason="slow sweep: set BLANKET_SLOW=reduced (CI) or BLANKET_SLOW=full to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
