"""``--workers`` counts for a composition (issue 26): the accountant's curve sweeps run on ``workers`` processes and
its estimate spreads the sweep over them; the CLI passes ``--workers`` on (a spy records what the sweep received)."""

from __future__ import annotations

import pytest
from blanket.exact.accounting import accountant as acc_mod
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.numbers.errors import InvalidArgument, OutOfTime


@pytest.fixture
def spy(monkeypatch):
    seen: list = []

    def record(mech, n, **kw):
        seen.append(kw.get("workers", "absent"))
        raise OutOfTime("stopped by the spy")  # what the sweep was given is all this test needs

    monkeypatch.setattr(acc_mod._curves, "binary_worst_curve_pair", record)
    monkeypatch.setattr(acc_mod, "_CURVE_PAIRS", {})
    return seen


def test_estimate_spreads_the_sweep_over_the_accountants_workers() -> None:
    ev = ShuffledRR(k=2, epsilon0="1", n=10**5)
    one = ShuffleAccountant(curves=True, workers=1).compose(ev, 3).estimate()
    two = ShuffleAccountant(curves=True, workers=2).compose(ev, 3).estimate()
    assert (one.cores, two.cores) == (1, 2)
    assert one.sweep == two.sweep > 0  # the same one-core work ...
    assert two.seconds == pytest.approx(one.seconds - one.sweep / 2)  # ... spread over two cores
    # an explicit argument still wins (ShuffleAccountant.check_cost's callers)
    assert ShuffleAccountant(curves=True, workers=2).compose(ev, 3).estimate(1).cores == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_workers_validated(bad) -> None:
    with pytest.raises(InvalidArgument, match="^workers must be a positive integer"):
        ShuffleAccountant(workers=bad)


def test_the_sweep_runs_on_the_accountants_workers(spy) -> None:
    acc = ShuffleAccountant(curves=True, workers=1).compose(ShuffledRR(k=2, epsilon0="0.9871", n=3000), 2)
    with pytest.raises(OutOfTime):
        acc.get_epsilon("1e-6")
    assert spy == [1]
    assert acc_mod._SWEEP_WORKERS == [None]  # restored after the query
    scaled = acc.scaled("1/2")
    assert scaled.workers == 1


def test_cli_passes_workers_to_the_sweep(spy, capsys) -> None:
    from blanket.reports import cli as blanket_cli

    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "0.9873", "-n", "3000", "--delta", "1e-6", "--rounds", "2"]
    assert blanket_cli.main([*args, "--curves", "on", "--workers", "1"]) == 3  # the spy's stop: exit 3
    assert spy == [1]
    assert "stopped by the spy" in capsys.readouterr().err
