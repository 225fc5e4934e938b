"""Issue 26: a composition says what it will cost before it starts, refuses what exceeds the limit, and has a fast
route (``--curves off``) that says it is the looser one.

The estimate is a cost model (blanket.exact.accounting.composition_cost), never a bound: the tests check that it is
shown, that it decides the refusal, that a time budget takes over from it, and that the fast route is no tighter
than the default one -- not how many seconds anything takes (no test depends on the machine's speed).
"""

from __future__ import annotations

import json
import math

import pytest
from blanket.exact.accounting import accountant as acc_mod
from blanket.exact.accounting import composition_cost as cost
from blanket.exact.accounting import curve_pairs as _curve_pairs
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR
from blanket.exact.numbers.errors import OutOfTime
from blanket.exact.runtime.budget import TooExpensive

from tests.test_fault_injection import HANG, check, cli

RR300 = ShuffledRR(k=2, epsilon0=1, n=300)  # above CURVE_AUTO_N: the stepped sweep, a fraction of a second


def test_estimate_has_each_part_and_follows_curves():
    """Binary RR at n = 10^6: the sweep is most of the default's cost and none of ``curves=False``'s; 10-RR at
    10^6 users: a curve pair under "auto", none with False; the PLD part is smaller on the curve route (its pair is
    discretised in exact rationals; the survival kernel runs on the lower pairs only), and its products are shorter
    (the grid search stops at the mechanism's bracket: composition_cost.bracket_grid_length)."""
    auto = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0=1, n=10**6), count=365).estimate(workers=2)
    off = ShuffleAccountant(curves=False).compose(ShuffledRR(k=2, epsilon0=1, n=10**6), count=365).estimate()
    assert auto.sweep > auto.pld > 0 and auto.cores == 2
    assert off.sweep == 0 and off.curves == 0 and off.pld > cost.products_seconds(365)
    bracket = cost.products_seconds(365, length=cost.bracket_grid_length(10**6, math.e, 365, 0.02))
    assert off.pld > auto.pld > bracket + cost.summed_seconds(365 * (10**6 - 1), 365, math.e)
    assert bracket < cost.products_seconds(365)
    assert off.seconds < auto.seconds and "sweep" not in off.text()
    assert auto.text().startswith("about ") and "on 2 cores (worst-case curve sweep" in auto.text()
    k10 = Shuffled({"type": "krr", "k": 10, "epsilon0": "1"}, 10**6)
    assert ShuffleAccountant().compose(k10, count=365).estimate().curves > 0
    assert ShuffleAccountant(curves=False).compose(k10, count=365).estimate().curves == 0
    # more rounds cost more (the products), more users cost more (the kernel's windows)
    small = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0=1, n=2000), count=10).estimate()
    many = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0=1, n=2000), count=10**4).estimate()
    big = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0=1, n=10**7), count=10).estimate()
    assert small.pld < many.pld and small.pld < big.pld


def test_memoised_curve_counts_nothing():
    """The exact ROC hull at n = 200 (the sweep's memo is the same table): counted until this process has it."""
    rr = ShuffledRR(k=2, epsilon0=1, n=200)
    acc_mod._CURVE_PAIRS.clear()  # the memo is per process: an earlier test in this worker may have filled it
    acc = ShuffleAccountant().compose(rr, count=2)
    assert acc.estimate().curves > 0
    acc_mod._binary_curve_pair(rr.mechanism(), 200)
    assert acc.estimate().curves == 0


def test_check_cost_refuses_naming_the_estimate_and_the_fast_route(monkeypatch):
    acc = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0=1, n=10**6), count=365)
    with pytest.raises(TooExpensive) as exc:
        acc.check_cost(max_seconds=1)
    msg = str(exc.value)
    assert "the composition of 365 rounds would take about" in msg and "not started" in msg
    assert "curves=False (the fast, looser blanket-view / clone pairs: about" in msg and "a time budget" in msg
    assert acc.check_cost(max_seconds=1e9).seconds == acc.estimate().seconds
    # nothing to gain from curves=False (no curve pair under "auto" at this n, the grid route's mid range, when the
    # mid-range budget is 0): the option is not offered
    monkeypatch.setattr(acc_mod, "CURVE_PAIR_MID_SECONDS", 0.0)
    plain = ShuffleAccountant().compose(ShuffledRR(k=3, epsilon0=1, n=_curve_pairs.JENSEN_MIN_N - 1), count=10**4)
    with pytest.raises(TooExpensive, match="Options: a time budget or fewer rounds or users"):
        plain.check_cost(max_seconds=1)


def test_curves_off_is_the_looser_pair_and_auto_is_no_looser():
    """n = 300 (the sweep): the default composes the worst-case curve, ``curves=False`` the blanket view; both are
    certified upper ends, so the curve's is the smaller (or equal) and both lie above the common lower end."""
    a = ShuffleAccountant().compose(RR300, count=3).get_epsilon("1e-6")
    b = ShuffleAccountant(curves=False).compose(RR300, count=3).get_epsilon("1e-6")
    assert "worst-case privacy curve" in " ".join(a.details["pairs"])
    assert "blanket view" in " ".join(b.details["pairs"])
    assert max(a.lower, b.lower) <= a.upper <= b.upper


def test_the_sweep_and_the_products_obey_the_time_budget():
    """The budget counts work, not time: already spent, the first check (in the sweep's top search) ends the query."""
    import time

    from blanket.exact.runtime.progress import set_time_budget

    acc = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0=1, n=301), count=2)
    set_time_budget(1e-6)
    try:
        time.sleep(0.01)
        with pytest.raises(OutOfTime, match=r"\(--time-budget\) ran out during .*nothing was certified"):
            acc.get_epsilon("1e-6")
    finally:
        set_time_budget(None)


def test_cli_json_carries_the_estimate_and_the_curves_mode(tmp_path):
    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "300", "--delta", "1e-6", "--rounds", "3"]
    run = cli(tmp_path, *args, "--curves", "off", "--json", timeout=HANG)
    check(run, 0)
    out = json.loads(run.out)
    model = ShuffleAccountant(curves=False).compose(RR300, count=3).estimate()
    assert out["curves"] == "off" and out["estimate"]["seconds"] == pytest.approx(model.seconds, abs=0.1)
    assert out["estimate"]["sweep_seconds"] == 0 and "blanket view" in out["pairs"][0]
    assert run.err == ""  # --json: no bar, no estimate line


def test_cli_curves_off_says_it_is_the_looser_pair(capsys):
    from blanket.reports import cli as blanket_cli

    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "300", "--delta", "1e-6", "--rounds", "3"]
    assert blanket_cli.main([*args, "--curves", "off"]) == 0
    assert "--curves off: the fast, looser pairs (blanket view / clone pair" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:  # argparse: exit 2, one usage line
        blanket_cli.main([*args, "--curves", "sometimes"])
    assert exc.value.code == 2
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


def test_cli_prints_the_estimate_before_the_work(monkeypatch, capsys):
    from blanket.reports import cli as blanket_cli
    from blanket.reports import composition

    monkeypatch.setattr(composition, "ESTIMATE_SHOWN_SECONDS", 0.0)
    args = ["delta", "--mechanism", "krr", "--k", "3", "--epsilon0", "1", "-n", "50", "--epsilon", "1", "--rounds", "2"]
    assert blanket_cli.main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith("blanket: composing 2 rounds: about ") and " on 1 core (PLDs " in err
    assert blanket_cli.main([*args, "--quiet"]) == 0
    assert "composing" not in capsys.readouterr().err


def test_cli_refuses_over_the_limit_up_front_and_a_budget_takes_over(tmp_path):
    """BLANKET_MAX_SECONDS=5 against the model's ~90 s (binary RR, n = 10^6, 365 rounds; --curves off ~30 s, cheaper,
    so offered): exit 2 at once, one line with the estimate and the options; with --time-budget the run starts and
    ends at the budget (exit 3)."""
    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "1000000", "--delta", "1e-6", "--rounds", "365"]
    env = {"BLANKET_MAX_SECONDS": "5"}
    run = cli(tmp_path, *args, env=env, timeout=HANG)
    check(
        run,
        2,
        contains=("the composition of 365 rounds would take about", "not started", "--curves off (the fast, looser"),
        within=30,
    )
    assert "--time-budget SECONDS" in run.err
    budget = cli(tmp_path, *args, "--time-budget", "0.001", env=env, timeout=HANG)
    check(budget, 3, contains=("time budget of 0.001 s (--time-budget) ran out during",), within=60)


def test_certify_refuses_a_rounds_deployment_over_the_limit(tmp_path):
    dep = tmp_path / "d.toml"
    dep.write_text(
        'name = "r"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "1"\n[users]\nn = 1000000\n'
        '[[rounds]]\ncount = 365\n[[claims]]\nepsilon = "1"\ndelta = "1e-6"\n'
    )
    run = cli(tmp_path, "certify", dep, "-o", tmp_path / "o", "--no-pdf", env={"BLANKET_MAX_SECONDS": "5"})
    check(run, 2, contains=("the composition of 365 rounds would take about", "--curves off"), within=30)


def test_curves_off_is_offered_only_when_estimated_cheaper():
    """The refusal names --curves off only when its own estimate is smaller (and prints differently): binary RR at
    n = 2 over 10^6 rounds composes its exact ROC hull either way (n <= CURVE_AUTO_N; next to nothing to build), so
    the option is not cheaper and not offered; binary RR at n = 10^6 over 365 rounds is cheaper with the looser
    pairs, so it is (with its estimate)."""
    from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
    from blanket.exact.runtime.budget import TooExpensive

    same = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0=1, n=2), count=10**6)
    off = ShuffleAccountant(curves=False).compose(ShuffledRR(k=2, epsilon0=1, n=2), count=10**6)
    assert off.estimate().seconds >= same.estimate().seconds
    with pytest.raises(TooExpensive) as e:
        same.check_cost(max_seconds=60, curves_option="--curves off")
    assert "--curves off" not in str(e.value) and "fewer rounds or users" in str(e.value)
    cheaper = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0=1, n=10**6), count=365)
    with pytest.raises(TooExpensive) as e:
        cheaper.check_cost(max_seconds=5, curves_option="--curves off")
    assert "--curves off (the fast, looser blanket-view / clone pairs: about " in str(e.value)
    # the same rule for the estimate line printed before a run (reports.composition.announce_cost)
    assert same.curves_off_estimate() is None and cheaper.curves_off_estimate() is not None


def test_cost_model_constants_are_positive():
    assert 0 < cost.discretise_seconds(10**5, 0.5) < cost.discretise_seconds(10**7, 0.5)
    assert cost.discretise_seconds(10, None) < cost.discretise_seconds(10**6, 0.5)
    assert cost.products_seconds(10) < cost.products_seconds(10**4)


def test_the_survival_kernel_obeys_the_time_budget():
    """A round of 10^12 users with --time-budget (the up-front refusal is then off) must not run for hours inside
    one discretisation: the kernel checks the budget every 1024 outer counts (here spent before the first)."""
    import time

    from blanket.exact.accounting import pld
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.runtime.progress import set_time_budget

    pair = pld.dominating_pair(KRR(2, exp_epsilon0=3), 10**6)
    set_time_budget(1e-6)
    try:
        time.sleep(0.01)
        with pytest.raises(OutOfTime, match=r"ran out during the privacy loss distribution of a blanket-view pair"):
            pld.discretise_both(pair, "1/512")
    finally:
        set_time_budget(None)


# ------------------------------------------------------------------ memory (the composed PLDs' peak, a model)
BIG = ShuffledRR(k=2, epsilon0=1, n=2)  # n = 2: the loss spreads like the rounds, the composed PLD grows like sqrt(T)


def test_memory_model_refuses_up_front_and_a_normal_run_passes():
    """The composed PLDs' peak memory is modelled from the parameters alone (composition_cost.products_bytes): 10^7
    rounds of binary RR at n = 2 (about 2.2e7 points, ~10 GB) are refused under a 2 GB limit whatever the machine
    (the limit is set here, the estimate is the model's), by check_memory and by check_cost even with time to spare,
    naming the estimate, the limit and --max-memory; 1000 rounds pass; the memory grows with the rounds."""
    from blanket.exact.numbers import guards

    huge = ShuffleAccountant().compose(BIG, count=10**7)
    small = ShuffleAccountant().compose(BIG, count=1000)
    assert small.estimate().memory < 2 << 30 < huge.estimate().memory
    assert cost.products_bytes(10**3) < cost.products_bytes(10**5) < cost.products_bytes(10**7)
    guards.set_max_memory(2 << 30)
    try:
        for refuse in (huge.check_memory, lambda: huge.check_cost(max_seconds=1e9)):
            with pytest.raises(TooExpensive) as exc:
                refuse()
            msg = str(exc.value)
            assert "the composition of 10000000 rounds would need about" in msg and "of memory" in msg, msg
            assert "limit 2.0 GB, --max-memory" in msg and "not started" in msg and "take about" not in msg
        assert small.check_memory().memory == small.estimate().memory
        assert small.check_cost(max_seconds=1e9).seconds == small.estimate().seconds
        # both limits exceeded: one line naming both, with both options
        with pytest.raises(TooExpensive) as exc:
            huge.check_cost(max_seconds=1, budget_option="--time-budget")
        assert "take about" in str(exc.value) and "need about" in str(exc.value) and "--time-budget" in str(exc.value)
    finally:
        guards.set_max_memory(None)


def test_memory_model_length_is_the_composed_length():
    """The length the memory (and products) model rests on is the accountant's real composed length within 10 % (binary
    RR at n = 2 on its curve pair, 300 rounds: composition_cost.bracket_grid_length), counted here on the PLD."""
    acc = ShuffleAccountant().compose(BIG, count=300)
    res = acc.get_epsilon("1e-6")
    real = len(acc._pld(res.grid, "upper"))
    assert real == pytest.approx(acc.estimate().length, rel=0.1), (real, acc.estimate().length)


def test_cli_refuses_a_composition_over_the_memory_limit(tmp_path):
    """--max-memory 2G against the model's ~10 GB for 10^7 rounds at n = 2: exit 2 at once (one line naming the
    estimate and --max-memory), with or without a time budget (which bounds the time, not the memory); 100 rounds run,
    and the JSON's estimate carries the modelled memory."""
    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "2", "--delta", "1e-6", "--max-memory", "2G"]
    for extra in ((), ("--time-budget", "60")):
        run = cli(tmp_path, *args, "--rounds", "10000000", *extra, timeout=HANG)
        check(run, 2, contains=("would need about", "of memory", "--max-memory"), within=30)
    ok = cli(tmp_path, *args, "--rounds", "100", "--json", timeout=HANG)
    check(ok, 0)
    model = ShuffleAccountant().compose(BIG, count=100).estimate()
    assert json.loads(ok.out)["estimate"]["memory_bytes"] == int(model.memory) < 2 << 30
