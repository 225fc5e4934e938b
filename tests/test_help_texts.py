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


#: the arguments a subcommand requires (argparse checks them before it reports unrecognised ones)
REQUIRED = {"certify": ["deployment.toml"], "renyi": ["--epsilon0", "1", "-n", "10", "--order", "2"]}


@pytest.mark.parametrize("command", COMMANDS)
def test_unknown_option_points_to_the_subcommands_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    """An unrecognised option after a subcommand names that subcommand's help (session 13: ``bounds --foo`` and
    ``check-papers --frob`` pointed to ``blanket --help``); one line, exit 2.  The top level keeps its own hint."""
    with pytest.raises(SystemExit) as e:
        cli.main([command, *REQUIRED.get(command, []), "--frob-unknown=x"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unrecognized arguments: --frob-unknown=x" in err
    assert f"(see `blanket {command} --help`)" in err


def test_unknown_option_at_the_top_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--frob-unknown"])
    assert e.value.code == 2
    assert "(see `blanket --help`)" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--frob-unknown", "bounds"], ["-q", "--frob-unknown=1", "bounds"]])
def test_unknown_option_before_the_command_names_the_top_level(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown option given before the command is the top-level parser's: its hint is `blanket --help`
    (it said `blanket bounds --help` before)."""
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unrecognized arguments: --frob-unknown" in err
    assert "(see `blanket --help`)" in err
