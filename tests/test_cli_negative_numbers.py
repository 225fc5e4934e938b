"""A negative number in scientific notation after an option is read as that option's value, so the range check
names the argument and the value (argparse alone said "expected one argument")."""

import pytest
from blanket.reports.cli import main


@pytest.mark.parametrize(
    "argv, want",
    [
        (["--delta", "-1e-6"], "--delta must be > 0, got '-1e-6'"),
        (["--delta", "1e-6", "--epsilon0", "-2.5E+0"], "--epsilon0 must be > 0, got '-2.5E+0'"),
    ],
)
def test_negative_scientific_value_is_range_checked(capsys, argv, want):
    base = ["epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "1000"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and want in err[0], err
