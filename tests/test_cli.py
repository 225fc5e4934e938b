"""Tests of the `blanket` entry point itself (reports/cli.py): discovery, exit codes, no tracebacks."""

import argparse

import pytest
from blanket.reports import cli


def test_every_documented_subcommand_is_discovered():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("certify", "check-papers", "check-bound", "bounds", "delta", "epsilon", "renyi", "figure"):
        assert name in sub.choices, name


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_unknown_option_is_one_line_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["delta", "--no-such-option"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_internal_error_is_one_line_exit_4(capsys, monkeypatch):
    def boom(args):
        raise RuntimeError("simulated bug")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser.set_defaults(func=boom)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["bounds"].set_defaults(func=boom)
    assert cli.main(["bounds"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "simulated bug" in err and "BLANKET_DEBUG" in err
    monkeypatch.setenv("BLANKET_DEBUG", "1")
    with pytest.raises(RuntimeError):
        cli.main(["bounds"])


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_quiet_holds_for_one_run(flag, capsys):
    """--quiet and --json silence the bars and the estimate line of their own run only: an in-process caller after
    them (a library user, the next test) gets its estimate line again (before: the silence stayed set for the rest of
    the process, and tests/test_certificate_estimate.py failed after tests/test_composition_cost.py)."""
    from blanket.exact.runtime.progress import is_quiet, set_quiet

    set_quiet(False)
    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "10", "--delta", "1/10", flag]
    assert cli.main(args) == 0
    assert not is_quiet()
    set_quiet(True)  # and a caller's own silence is kept
    assert cli.main(args[:-1]) == 0
    assert is_quiet()
    set_quiet(False)
    capsys.readouterr()
