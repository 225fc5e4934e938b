"""Decide cheapest first: the cheap certified bounds (blanket view above, a concrete dataset below) decide a claim
whenever they can, the exact worst-case sweep runs only in between, and the verdicts agree with the full sweep."""

from __future__ import annotations

import json

import pytest
from blanket.exact.accounting.profiles import delta, epsilon, epsilon_bracket
from blanket.exact.mechanisms.finite import KRR, BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.runtime.budget import TooExpensive, check_worst_case, fallback_cost
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.reports.certificate import certify, render_tex
from blanket.reports.cli import main
from blanket.reports.deployment import parse_deployment
from flint import fmpq


def dep_text(n, claims, *, e0="3", targets=(), mechanism="binary_rr", k=None, options=""):
    mech = f'mechanism = "{mechanism}"\n' + (f"k = {k}\n" if k else "") + f'exp_epsilon0 = "{e0}"\n'
    s = f'name = "t"\n[randomizer]\n{mech}[users]\nn = {n}\n'
    for eps, d in claims:
        s += f'[[claims]]\nepsilon = "{eps}"\ndelta = "{d}"\n'
    for d in targets:
        s += f'[[targets]]\ndelta = "{d}"\n'
    return parse_deployment(s + options)


def dec(q, up):
    return arith.decimal_string(q, 30, up=up)


def _ends(v):
    """The two ends of an enclosure as exact fmpq."""
    return tuple(fmpq(f.numerator, f.denominator) for f in arith.endpoints(v))


# ---------------------------------------------------------------- binary RR: the three routes and their agreement
@pytest.mark.parametrize("n, e0, ee", [(6, 3, 1), (40, 3, fmpq(3, 2)), (150, 5, 2), (1000, 7, 2)])
def test_cheap_route_verdicts_agree_with_the_full_sweep(n, e0, ee):
    """Claims above the blanket view, below c = 0 and in between; each verdict checked against the exact worst
    case (brute-force enumeration for the smallest n), and the deciding bound named."""
    mech = BinaryRR(exp_epsilon0=e0)
    eps_claim = "0" if ee == 1 else None
    if ee != 1:
        # a rational epsilon whose e^epsilon is not rational: use the mechanism's exact ball route
        eps_claim = "0.4"
    with arith.precision(200):
        eps = arith.exact(eps_claim)
        worst = delta_binary_worst(mech, n, epsilon=eps).value
        c0 = delta_binary(mech, n, 0, epsilon=eps)
        blanket = delta_blanket_view(mech, n, epsilon=eps)
    if n <= 6:  # independent ground truth
        truth = max(
            delta_brute(mech, [1] * c + [0] * (n - 1 - c) + [x], [1] * c + [0] * (n - 1 - c) + [1 - x], exp_epsilon=1)
            for c in range(n)
            for x in (0, 1)
        )
        assert truth == worst
    w_lo, w_hi = _ends(worst)
    c_lo, c_hi = _ends(c0)
    b_lo, b_hi = _ends(blanket)
    assert c_lo <= w_hi and w_lo <= b_hi  # the bracket contains the worst case
    above = b_hi * fmpq(11, 10)  # the blanket view decides HOLDS
    below = c_lo * fmpq(9, 10)  # c = 0 decides FAILS
    claims = [(eps_claim, dec(above, True)), (eps_claim, dec(below, False))]
    between, expect_between = [], []
    if c_hi < w_lo:  # a worse dataset than c = 0: a claim between them fails, decided by the sweep only
        between.append((eps_claim, dec((c_hi + w_lo) / 2, False)))
        expect_between.append("FAILS")
    assert w_hi < b_lo  # the blanket view is strictly above the worst case here
    between.append((eps_claim, dec((w_hi + b_lo) / 2, True)))
    expect_between.append("HOLDS")
    cert = certify(dep_text(n, claims + between, e0=str(e0)), plot=False)
    got = cert["claims"]
    assert got[0]["verdict"] == "HOLDS" and got[0]["decided_by"]["bound"] == "upper"
    assert got[0]["exact_sweep"].startswith("not needed")
    assert got[1]["verdict"] == "FAILS" and got[1]["decided_by"]["bound"] == "lower"
    assert got[1]["exact_sweep"].startswith("not needed") and "c=0" in got[1]["witness"]["dataset"]
    for rec, verdict in zip(got[2:], expect_between):
        assert rec["verdict"] == verdict and rec["decided_by"]["bound"] == "exact"
        assert rec["exact_sweep"].startswith("ran")
    # the same verdicts from the full sweep alone (the route certify took before)
    for (_e, d), rec in zip(claims + between, got):
        expect = "HOLDS" if arith.le(worst, arith.exact(d)) else "FAILS"
        assert rec["verdict"] == expect


def test_certificate_names_the_deciding_bound_in_json_statement_and_tex():
    mech = BinaryRR(exp_epsilon0=3)
    with arith.precision(128):
        b = _ends(delta_blanket_view(mech, 500, epsilon=fmpq(1, 2)))[1]
    cert = certify(dep_text(500, [("1/2", dec(2 * b, True))]), plot=False)
    c = cert["claims"][0]
    assert c["decided_by"]["bound"] == "upper" and "blanket view" in c["decided_by"]["text"]
    assert "decided by" in cert["statement"] and "blanket view" in cert["statement"]
    tex = render_tex(cert)
    assert "Decided by" in tex and "Exact sweep over all datasets" in tex
    src = {s["key"]: s for s in cert["sources"]}
    assert src["exact-worst-binary"]["expensive"] and not src["exact-worst-binary"]["used"]
    assert src["blanket-view"]["used"]
    # the chain names Lemma 5.3, the result the deciding bound rests on
    assert any(r["label"] == "Lemma 5.3" for r in cert["chain"])


def test_sweep_refused_by_the_budget_gives_inconclusive_with_the_estimate(monkeypatch):
    n = 5000
    mech = BinaryRR(exp_epsilon0=3)
    with arith.precision(128):
        lo = _ends(delta_binary(mech, n, 0, epsilon=fmpq(1, 10)))[1]
        hi = _ends(delta_blanket_view(mech, n, epsilon=fmpq(1, 10)))[0]
    assert lo < hi
    mid = (lo + hi) / 2
    monkeypatch.setenv("BLANKET_MAX_SECONDS", "0.001")
    cert = certify(dep_text(n, [("1/10", dec(mid, True))]), plot=False)
    c = cert["claims"][0]
    assert c["verdict"] == "INCONCLUSIVE" and c["decided_by"] is None
    assert c["exact_sweep"].startswith("not run") and "would take" in c["exact_sweep"]
    assert "not run" in c["reason"]
    # the claim lies strictly between the tight cheap bounds: no precision escalation was attempted
    assert c["between_bounds"] and c["precision"] == cert["reproducibility"]["precision_start"]


# ---------------------------------------------------------------- k-RR, k > 2: the bracket, labelled
def test_krr_worst_is_the_certified_bracket_with_both_ends():
    mech = KRR(4, exp_epsilon0=fmpq(5))
    n, eps = 300, fmpq(1, 2)
    r = delta(mech, n, epsilon=eps, dataset="worst")
    assert r.relation == "bracket" and r.dataset == "bracket"
    fams = [delta_krr_family(mech, n, f, epsilon=eps) for f in ("same", "neighbour", "third")]
    with arith.precision(128):
        bl = delta_blanket_view(mech, n, epsilon=eps)
    best = max(_ends(v)[0] for v in fams)
    lo, hi = _ends(r.value)
    assert lo <= best and hi >= _ends(bl)[1]
    assert r.rel_width == (hi - max(lo, 0)) / hi
    e = epsilon(mech, n, delta="1e-6", dataset="worst", rel_tol="1e-4")
    assert e.relation == "bracket" and e.lower < e.upper
    # the upper end meets the target on the blanket view (every dataset), the lower end fails on a family
    with arith.precision(128):
        assert arith.le(delta_blanket_view(mech, n, epsilon=e.upper), fmpq(1, 10**6)) is True
        assert max(
            arith.gt(delta_krr_family(mech, n, f, epsilon=e.lower), fmpq(1, 10**6)) is True
            for f in ("same", "neighbour", "third")
        )


def test_epsilon_bracket_contains_the_exact_worst_case_epsilon_binary():
    mech = BinaryRR(epsilon0="2")
    n = 1000
    ex = epsilon(mech, n, delta="1e-6", dataset="worst", rel_tol="1e-6")
    br = epsilon_bracket(mech, n, delta="1e-6", rel_tol="1e-6")
    assert br.relation == "bracket" and br.decided_by == "blanket view"
    assert br.lower <= ex.lower and ex.upper <= br.upper
    assert "c=0" in br.lower_source or "c=0" in br.attained


def test_certify_target_reports_the_bracket_with_sources(monkeypatch):
    # the exact calibration is never "cheap" here: the bracket is reported
    import blanket.reports.certificate as certificate

    monkeypatch.setattr(certificate, "CHEAP_SWEEP_SECONDS", 0.0)
    cert = certify(dep_text(30000, [], e0="3", targets=["1e-8"]), plot=False)
    t = cert["targets"][0]
    assert t["kind"] == "bracket" and t["verdict"] == "HOLDS"
    assert "blanket view" in t["upper_source"] and "c=0" in t["lower_dataset"]
    assert arith.exact(t["epsilon_lower"]) < arith.exact(t["epsilon_upper"])
    assert 0 < arith.exact(t["relative_width"]) < 1
    assert "certified bracket" in cert["statement"]
    mech = BinaryRR(exp_epsilon0=3)
    with arith.precision(128):  # both ends re-checked independently
        up = arith.exact(t["epsilon_upper"])
        assert arith.le(delta_blanket_view(mech, 30000, epsilon=up), fmpq(1, 10**8)) is True
        lo = arith.exact(t["epsilon_lower"])
        assert arith.gt(delta_binary(mech, 30000, 0, epsilon=lo), fmpq(1, 10**8)) is True


def test_certify_target_small_n_uses_the_exact_worst_case(monkeypatch):
    import blanket.reports.certificate as certificate

    monkeypatch.setattr(certificate, "CHEAP_SWEEP_SECONDS", 1e9)  # always cheap enough
    cert = certify(dep_text(300, [], e0="3", targets=["1e-6"]), plot=False)
    t = cert["targets"][0]
    assert t["kind"] == "exact" and t["epsilon_lower"] is not None
    ex = epsilon(BinaryRR(exp_epsilon0=3), 300, delta="1e-6", dataset="worst", rel_tol="1e-4")
    # both brackets contain the true worst-case epsilon: they meet, and the certificate's is tight
    up, lo = arith.exact(t["epsilon_upper"]), arith.exact(t["epsilon_lower"])
    assert up >= ex.lower and lo <= ex.upper and (up - lo) / up <= fmpq(1, 1000)


def test_matrix_target_through_exact_calibrate():
    """The non-k-RR target path (formerly a private bisection) uses exact.numbers.calibrate on the exact sources."""
    dep = parse_deployment('''name = "m"
[randomizer]
mechanism = "matrix"
matrix = [["3/5", "1/5", "1/5"], ["1/5", "3/5", "1/5"], ["1/5", "1/5", "3/5"]]
[users]
n = 6
[[targets]]
delta = "1e-2"
''')
    cert = certify(dep, plot=False)
    t = cert["targets"][0]
    assert t["verdict"] == "HOLDS" and t["kind"] == "exact"
    up = arith.exact(t["epsilon_upper"])
    lo = arith.exact(t["epsilon_lower"])
    assert lo < up and (up - lo) / up < fmpq(1, 1000)
    from blanket.exact.shuffled.enumerate import worst_case

    mech = dep.build_mechanism()
    with arith.precision(128):
        assert arith.le(worst_case(mech, 6, epsilon=up).value, fmpq(1, 100)) is True
        assert arith.gt(worst_case(mech, 6, epsilon=lo).value, fmpq(1, 100)) is True


# ---------------------------------------------------------------- the budget and the CLI
def test_budget_model_and_refusal():
    s4, b4 = fallback_cost(10**4)
    s6, b6 = fallback_cost(10**6)
    assert s6 / s4 == pytest.approx(1000) and b6 > b4  # n^{3/2} time, O(n) memory
    assert check_worst_case(1000, workers=1, max_seconds=10)[0] < 10
    with pytest.raises(TooExpensive, match="would take about .* on 4 cores"):
        check_worst_case(10**8, workers=4, max_seconds=3600, memory=2**40)
    with pytest.raises(TooExpensive, match="of memory") as exc:
        check_worst_case(10**9, workers=10**6, max_seconds=1e30, memory=2**30)
    assert "--scheduler" not in str(exc.value) and "a cluster would not help" in str(exc.value)


def test_one_refusal_serves_both_worst_case_budgets(monkeypatch):
    from blanket.exact.accounting.renyi import check_worst_cost
    from blanket.exact.runtime.budget import refuse_over_limits

    kw = {"what": "the job", "where": "here", "options": "A", "memory_options": "B"}
    assert refuse_over_limits(5.0, 10, max_seconds=10, memory=100, **kw) == (5.0, 10)
    with pytest.raises(TooExpensive, match=r"^the job would take about 20 s here \(limit 10 s.*Options: A$"):
        refuse_over_limits(20.0, 10, max_seconds=10, memory=100, **kw)
    with pytest.raises(TooExpensive, match=r"of memory .*Options: B$"):  # memory exceeded: the memory options
        refuse_over_limits(5.0, 81, max_seconds=10, memory=100, **kw)
    assert refuse_over_limits(5.0, 80, max_seconds=10, memory=100, **kw) == (5.0, 80)  # 80 % is still accepted
    monkeypatch.setenv("BLANKET_MAX_SECONDS", "1")
    with pytest.raises(TooExpensive, match=r"^the exact Rényi worst case over all 1000000000 datasets would take"):
        check_worst_cost(10**9, 2, workers=1)
    assert check_worst_cost(100, 2, workers=1)[0] < 1  # small n: never refused


def test_cli_refuses_infeasible_worst_case_up_front(capsys, monkeypatch):
    rc = main(
        ["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "1000000000", "--epsilon", "0.01", "--workers", "2"]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "would take" in err and "--dataset bracket" in err and "--dataset c=0" in err
    # limited by time only (a tiny limit): a cluster is one of the options
    monkeypatch.setenv("BLANKET_MAX_SECONDS", "0.01")
    rc = main(["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "50000", "--epsilon", "0.01", "--workers", "2"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--scheduler" in err and "on 2 local cores" in err
    monkeypatch.delenv("BLANKET_MAX_SECONDS")
    rc = main(["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "1000000000", "--delta", "1e-6"])
    assert rc == 2 and "would take" in capsys.readouterr().err


def test_cli_bracket_output(capsys):
    rc = main(["delta", "--mechanism", "krr", "--k", "5", "--epsilon0", "2", "-n", "400", "--epsilon", "0.5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["relation"] == "bracket"
    assert out["bracket"]["upper"]["from"].startswith("the blanket view")
    assert arith.exact(out["bracket"]["lower"]["value"]) <= arith.exact(out["bracket"]["upper"]["value"])
    rc = main(
        ["epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "500", "--delta", "1e-6", "--dataset", "bracket"]
    )
    text = capsys.readouterr().out
    assert rc == 0 and "BRACKET" in text and "relative width" in text


def test_quiet_flag_before_and_after_the_command(capsys, tmp_path, monkeypatch):
    """--quiet is honoured before and after the command's name; it silences that run only (main() restores the
    previous state afterwards, tests/test_cli.py)."""
    from blanket.exact.runtime import progress

    seen: list[bool] = []
    real = progress.set_quiet

    def record(quiet: bool = True) -> None:
        seen.append(bool(quiet))
        real(quiet)

    monkeypatch.setattr(progress, "set_quiet", record)
    args = ["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "10", "--epsilon", "0.1"]
    for argv, quiet in ((["--quiet", *args], True), ([*args, "--quiet"], True), (args, False)):
        seen.clear()
        assert main(argv) == 0
        assert seen[0] is quiet  # the run's own setting, first thing after parsing
        assert not progress.is_quiet()  # and the state before the run afterwards
    capsys.readouterr()


def test_telemetry_example_claim_is_decided_without_any_sweep(monkeypatch, tmp_path):
    """The README's main command: the claim is decided by the blanket view, so the exact sweep over all 100 000
    datasets never runs for it (it would raise here); the target (epsilon for delta = 1e-8) is the one place where
    the sweep runs, because its two sweeps are cheap by the one-core cost model (a tight bracket, issue 25)."""
    import dataclasses
    import pathlib

    from blanket.exact.accounting import profiles
    from blanket.reports import certificate as certificate_module
    from blanket.reports.deployment import load_deployment

    def no_sweep(*a, **k):
        raise AssertionError("the exact worst-case sweep must not run for the claim of examples/telemetry.toml")

    monkeypatch.setattr(profiles, "sweep_worst", no_sweep)
    dep = load_deployment(pathlib.Path(__file__).resolve().parents[1] / "examples" / "telemetry.toml")
    cert = certify(dataclasses.replace(dep, targets=()), plot=False)
    assert cert["verdict"] == "HOLDS"
    c = cert["claims"][0]
    assert c["decided_by"]["bound"] == "upper" and c["exact_sweep"].startswith("not needed")
    # the target's rule: the exact worst-case calibration is chosen for this deployment, not for ten times its n
    assert certificate_module._worst_sweeps_cheap(dep.n, "2") is True
    assert certificate_module._worst_sweeps_cheap(10 * dep.n, "2") is False


@pytest.mark.slow
def test_telemetry_example_target_is_a_tight_exact_bracket(slow_level):
    """The README example's target: the exact worst case over all datasets, both ends certified, relative width
    <= 1e-3 (it was 0.249 with the blanket view against the dataset c = 0); each end re-checked independently.
    The full grid runs the example itself (n = 100 000, ~50 s of CPU); CI's reduced form the same deployment at
    n = 10 000 (the same routes: the exact sweep over all datasets for the target)."""
    import dataclasses
    import pathlib

    from blanket.reports.deployment import load_deployment

    dep = load_deployment(pathlib.Path(__file__).resolve().parents[1] / "examples" / "telemetry.toml")
    assert dep.n == 100_000
    if slow_level != "full":
        dep = dataclasses.replace(dep, n=10_000)
    cert = certify(dep, plot=False)
    t = cert["targets"][0]
    assert t["kind"] == "exact" and t["upper_key"] in ("exact-worst-binary", "blanket-view")
    assert arith.exact(t["relative_width"]) <= fmpq(1, 1000)
    mech = BinaryRR(epsilon0="2")
    lo = arith.exact(t["epsilon_lower"])
    with arith.precision(128):  # the lower end fails on a concrete dataset (a lower bound on the worst case)
        c = int(t["lower_dataset"].split(" ")[0].removeprefix("c="))
        assert arith.gt(delta_binary(mech, dep.n, c, epsilon=lo), fmpq(1, 10**8)) is True


def test_worst_case_epsilon_reports_both_ends_with_their_sources(capsys):
    """Binary RR, exact worst case: the lower end fails on a named dataset, the upper end is certified by the
    exact worst case (or the blanket view); both are reported as for the bracket."""
    rc = main(
        ["epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "600", "--delta", "1e-6", "--json", "--workers", "1"]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["relation"] == "exact"
    b = out["bracket"]
    assert b["lower"]["value"] == out["epsilon"]["lower"] and b["upper"]["value"] == out["epsilon"]["upper"]
    assert "c=" in b["lower"]["from"] and b["upper"]["from"] in (
        "the exact worst case over all datasets",
        "the blanket view of Lemma 5.3",
    )
    assert arith.exact(b["relative_width"]) <= fmpq(2, 10**6)
    # independent check of both ends on the exact worst case
    rr = BinaryRR(epsilon0="2")
    with arith.precision(128):
        assert (
            arith.le(delta_binary_worst(rr, 600, epsilon=arith.exact(out["epsilon"]["upper"])).value, fmpq(1, 10**6))
            is True
        )
        assert (
            arith.gt(delta_binary_worst(rr, 600, epsilon=arith.exact(out["epsilon"]["lower"])).value, fmpq(1, 10**6))
            is True
        )
