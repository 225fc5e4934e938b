"""``--help`` of every subcommand, as a newcomer reads it (tryout12): the quiet flag is one option (``renyi`` listed
``--quiet`` and ``-q`` as two), and the ``--paper`` help of ``bounds`` and ``check-papers`` names every registered
paper (check-papers named four, bounds missed SCW25). Parser only: no computation."""

from __future__ import annotations

import pytest
from blanket.proofs.core import PAPERS
from blanket.reports import cli

COMMANDS = ["bounds", "certify", "check-bound", "check-papers", "delta", "epsilon", "figure", "renyi"]


def _help(capsys: pytest.CaptureFixture[str], command: str) -> str:
    with pytest.raises(SystemExit) as e:
        cli.main([command, "--help"])
    assert e.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", COMMANDS)
def test_quiet_is_one_option(capsys: pytest.CaptureFixture[str], command: str) -> None:
    out = _help(capsys, command)
    assert "-q, --quiet no progress bars" in out
    assert out.count("no progress bars") == 1


@pytest.mark.parametrize("command", ["bounds", "check-papers"])
def test_paper_help_names_every_registered_paper(capsys: pytest.CaptureFixture[str], command: str) -> None:
    out = _help(capsys, command)
    missing = [p for p in PAPERS if p not in out]
    assert not missing, f"{command} --help does not name {missing}"
