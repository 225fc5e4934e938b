"""``--sampling`` and ``--colluding`` on ``blanket delta|epsilon --mechanism laplace|gaussian`` are refused (one line,
exit 2), not ignored: tryout11 found both silently dropped (``--colluding 500`` of 1000 printed the answer for 1000
honest users).  The refusal comes before any computation, so these runs are fast."""

from __future__ import annotations

import pytest

CASES = [
    (["epsilon", "--mechanism", "laplace", "--epsilon0", "1", "-n", "1000", "--delta", "1e-6"], "--sampling", "1/10"),
    (["epsilon", "--mechanism", "laplace", "--epsilon0", "1", "-n", "1000", "--delta", "1e-6"], "--colluding", "500"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "-n", "1000", "--epsilon", "0.5"], "--sampling", "1/10"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "-n", "1000", "--epsilon", "0.5"], "--colluding", "3"),
    (
        ["epsilon", "--mechanism", "laplace", "--epsilon0", "1", "-n", "1000", "--delta", "1e-6", "--rounds", "2"],
        "--sampling",
        "1/10",
    ),
]


@pytest.mark.parametrize(("base", "opt", "value"), CASES)
def test_continuous_refuses_sampling_and_colluding(base, opt, value, capsys):
    from blanket.reports import cli as blanket_cli

    assert blanket_cli.main([*base, opt, value]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and opt in lines[0] and value in lines[0] and "not supported" in lines[0], cap.err
