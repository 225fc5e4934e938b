"""``Bound.close()`` and ``with load_bound(path) as b:`` stop a bound file's sandbox process (reports.bound_load).

Checked from outside: the child's pid no longer names a live process (``os.kill(pid, 0)``) once closed.
"""

from __future__ import annotations

import os
import pathlib

import pytest
from blanket.reports import bound_check as bc
from blanket.reports.bound_worker import BoundNotEvaluable
from flint import fmpq

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "bounds"
POINT = {"epsilon0": fmpq(1), "n": 50, "k": 3, "epsilon": fmpq(1, 2)}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("name", ["hoeffding_krr.py", "theorem_5_3_slide.txt"])
def test_close_stops_the_sandbox_process(name):
    b = bc.load_bound(EXAMPLES / name)
    pid = b.worker.proc.pid
    assert _alive(pid)
    b.close()
    assert not _alive(pid)
    b.close()  # idempotent
    with pytest.raises(BoundNotEvaluable):
        b.evaluate(dict(POINT, k=2 if "slide" in name else 3))


def test_context_manager_closes_on_exit_and_on_error():
    with bc.load_bound(EXAMPLES / "hoeffding_krr.py") as b:
        pid = b.worker.proc.pid
        b.evaluate(POINT)  # evaluable inside the block
        assert _alive(pid)
    assert not _alive(pid)
    with pytest.raises(RuntimeError), bc.load_bound(EXAMPLES / "hoeffding_krr.py") as b2:
        pid2 = b2.worker.proc.pid
        raise RuntimeError("the caller's own error")
    assert not _alive(pid2)


def test_registered_bound_has_nothing_to_close():
    with bc.registered_bound("BBGN19 Theorem 5.3", "rr") as b:
        assert b.worker is None
    b.close()
