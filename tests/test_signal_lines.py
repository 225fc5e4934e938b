"""The one line a run stopped by a signal prints: the same shape for SIGINT, SIGTERM and SIGHUP, naming the signal
and the cleanup (reports/cli.py ``_stopped_line``).  Real signals: tests/test_fault_injection.py (SIGINT and SIGTERM
during LaTeX) and tests/test_signals_sweep.py (during the sweep, slow)."""

from __future__ import annotations

import signal

import pytest
from blanket.reports import cli, output
from blanket.reports.commands import epsilon as eps_cmd

ARGS = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "10", "--delta", "1e-6"]
TAIL = "; temporary files removed, no partial output left"


@pytest.mark.parametrize(
    "raise_it,rc,line",
    [
        (lambda: KeyboardInterrupt(), 130, "blanket: interrupted (SIGINT)" + TAIL),
        (lambda: output.Terminated(signal.SIGTERM), 143, "blanket: terminated (SIGTERM)" + TAIL),
        (lambda: output.Terminated(signal.SIGHUP), 129, "blanket: terminated (SIGHUP)" + TAIL),
    ],
)
def test_each_signal_prints_one_line_of_the_same_shape(monkeypatch, capsys, raise_it, rc, line):
    def run(args):
        raise raise_it()

    monkeypatch.setattr(eps_cmd, "run", run)
    before = signal.getsignal(signal.SIGINT)
    assert cli.main(ARGS) == rc
    err = capsys.readouterr().err
    assert err.replace("\r", "").splitlines() == [line], err
    assert signal.getsignal(signal.SIGINT) == before  # main() restores the handlers it changed
