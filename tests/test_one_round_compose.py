"""One round of a closed-form record (frequency oracles, ``ldp``, geometric) through the accountant: the round's own
one-round certified ends (exact.accounting.certified: the exact five-atom view, the full-view lower dataset) are taken
beside the composition's, the better of each reported and named (docs/composition.md §5e "One round through the
accountant"), by the library's ``ShuffleAccountant`` (so ``--rounds 1``, a certificate's single ``[[rounds]]`` entry
and Python alike); a composition with a geometric round takes that round's one-round lower end.

Independent routes: the one-round command (``blanket epsilon|delta`` without ``--rounds``) and
``certified.one_round_epsilon`` / ``lower_epsilon`` called directly, and the composition alone (the accountant with
its one-round step removed); every reported end is one of the two, and the ends are the better ones.  The
composition's own brackets are wider here (OUE k = 4, n = 50: its curve pair is the hull of the fast view), so a run
that dropped the one-round ends fails; mutants that swap the ends or drop the one-round lower end fail the checks."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from blanket.exact.accounting import certified
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.registry import make_mechanism
from blanket.reports.cli import main
from flint import fmpq

OUE = ["--mechanism", "oue", "--k", "4", "--epsilon0", "1", "-n", "50"]


def _json(capsys, argv: list) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _acc(monkeypatch=None) -> ShuffleAccountant:
    """One OUE round; with ``monkeypatch``: the composition alone (the one-round step removed)."""
    acc = ShuffleAccountant().compose(Shuffled({"type": "oue", "k": 4, "epsilon0": "1"}, 50), count=1)
    if monkeypatch is not None:
        monkeypatch.setattr(acc, "_one_round", lambda quantity, at: None)
    return acc


def test_epsilon_one_round_takes_the_better_ends(capsys, monkeypatch):
    comp = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "1"])
    one = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6"])
    e = _acc(monkeypatch).get_epsilon("1e-6")
    lo, up = Fraction(comp["epsilon"]["lower"]), Fraction(comp["epsilon"]["upper"])
    assert comp["epsilon"]["upper"] == one["epsilon"]["upper"] and comp["epsilon"]["lower"] == one["epsilon"]["lower"]
    assert up < e.upper and lo > e.lower  # the one round's ends are better here: both taken
    assert comp["one_round"]["upper_decided_by"] == "one round" == comp["one_round"]["lower_decided_by"]
    assert "exact five-atom" in comp["one_round"]["upper_from"]
    three = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "2"])  # two rounds: the accountant only
    assert "one_round" not in three
    fast = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "1", "--curves", "off"])  # the fast route
    assert "one_round" not in fast


def test_delta_one_round_takes_the_better_ends(capsys, monkeypatch):
    comp = _json(capsys, ["delta", *OUE, "--epsilon", "0.5", "--rounds", "1"])
    one = _json(capsys, ["delta", *OUE, "--epsilon", "0.5"])
    acc = _acc(monkeypatch)
    acc.get_epsilon("1e-6")  # as the command: the grid chosen at 1e-6
    d = acc.get_delta("0.5")
    lo, up = Fraction(comp["delta"]["lower"]), Fraction(comp["delta"]["upper"])
    assert comp["delta"] == one["delta"]
    assert up < d.upper and lo > d.lower
    assert comp["one_round"]["upper_decided_by"] == "one round"


def _check_one_round(e, alone, lo1, up1) -> None:
    """The accountant's T = 1 ends are the better of the round's own (``lo1``, ``up1``) and the composition's alone,
    within the composition's bracket, and named."""
    assert e.upper == min(up1, alone.upper) and e.lower == max(lo1, alone.lower)
    assert alone.lower <= e.lower <= e.upper <= alone.upper
    one = e.details["one_round"]
    assert one["upper_decided_by"] == ("one round" if up1 < alone.upper else "composition")
    assert one["lower_decided_by"] == ("one round" if lo1 > alone.lower else "composition")
    assert (e.route == "one round") == (up1 < alone.upper)


def test_library_single_round_is_the_rounds_own_bracket(monkeypatch):
    """The library accountant (no CLI) at T = 1: its ends are ``certified.one_round_epsilon``'s where those are better,
    and a mutant swapping the one round's ends, or dropping its lower end, fails the same check."""
    mech = make_mechanism({"type": "oue", "k": 4, "epsilon0": "1"})
    target = fmpq(1, 10**6)
    lo1, _w, up1, _name, _every = certified.one_round_epsilon(mech, 50, target, rel_tol=fmpq(1, 10**6))
    lo1, up1 = Fraction(str(lo1)), Fraction(str(up1))
    e = _acc().get_epsilon("1e-6")
    alone = _acc(monkeypatch).get_epsilon("1e-6")
    assert lo1 > alone.lower and up1 < alone.upper  # both decide here: the checks below can see a dropped end
    _check_one_round(e, alone, lo1, up1)
    assert e.details["lower_pair"].startswith("one round alone")
    real = certified.one_round_epsilon

    def swapped(*a, **kw):
        lo, w, up, name, every = real(*a, **kw)
        return up, w, lo, name, every

    def no_lower(*a, **kw):
        return (None, *real(*a, **kw)[1:])

    for mutant in (swapped, no_lower):
        monkeypatch.setattr(certified, "one_round_epsilon", mutant)
        with pytest.raises(AssertionError):
            _check_one_round(_acc().get_epsilon("1e-6"), alone, lo1, up1)


def test_library_single_round_delta(monkeypatch):
    """``get_delta`` at T = 1: the better of ``certified.one_round_delta``'s ends and the composition's."""
    mech = make_mechanism({"type": "oue", "k": 4, "epsilon0": "1"})
    ((uv, _n, _e), (lv, _w)), _prec = certified.one_round_delta(mech, 50, fmpq(1, 2))
    from blanket.exact.numbers import arith

    up1, lo1 = min(Fraction(1), arith.endpoints(uv)[1]), max(Fraction(0), arith.endpoints(lv)[0])
    acc, alone = _acc(), _acc(monkeypatch)
    for a in (acc, alone):
        a.get_epsilon("1e-6")
    _check_one_round(acc.get_delta("0.5"), alone.get_delta("0.5"), lo1, up1)


def test_geometric_composition_composes_its_threshold_count(monkeypatch):
    """A geometric round composes its threshold-count lower pair (exact.accounting.geometric_lower): T = 2 rounds
    report a lower end above the one round's own (the independent one-round search) and below the composition's upper
    end; without the pair (the mutant: ``lower_pair`` None, the summed pairs dropped) the one-round lower end is
    taken instead, as before session 13."""
    spec = {"type": "geometric", "m": 4, "epsilon0": "1"}
    mech = make_mechanism(spec)
    br = certified.lower_epsilon(mech, 200, fmpq(1, 10**6), hi=certified.epsilon_hi(mech), rel_tol=fmpq(1, 10**6))
    e = ShuffleAccountant().compose(Shuffled(spec, 200), count=2).get_epsilon("1e-6")
    assert Fraction(str(br.lower)) < e.lower < e.upper
    assert not e.details["lower_pair"].startswith("one round alone")
    monkeypatch.setattr(Shuffled, "lower_pair", lambda self, direction="forward": None)
    monkeypatch.setattr(Shuffled, "has_lower_pair", lambda self: False)  # (decided without building the pair)
    acc = ShuffleAccountant().compose(Shuffled(spec, 200), count=2)
    monkeypatch.setattr(acc, "_summed_pairs", lambda: None)
    e2 = acc.get_epsilon("1e-6")
    assert e2.lower == Fraction(str(br.lower)) and e2.details["lower_pair"].startswith("one round alone")


def test_certificate_single_oracle_round_reports_the_rounds_own_bracket(tmp_path):
    """A certificate whose ``[[rounds]]`` is one OUE round (count 1): its target's ends are the one-round command's
    (``certified.one_round_epsilon``, the independent route), the route and lower source name the one round, the
    sandwich width stays the composition's own (not negative), and the chain lists the deciding route's results."""
    from blanket.reports.composition import certify_composition
    from blanket.reports.deployment import load_deployment

    p = tmp_path / "one.toml"
    p.write_text(
        'name = "x"\n[mechanism]\ntype = "oue"\nk = 4\nepsilon0 = "1"\n[users]\nn = 50\n[[rounds]]\ncount = 1\n'
        '[[targets]]\ndelta = "1e-6"\n'
    )
    cert = certify_composition(load_deployment(p), plot=False)
    t = cert["targets"][0]
    mech = make_mechanism({"type": "oue", "k": 4, "epsilon0": "1"})
    lo1, _w, up1, name, _every = certified.one_round_epsilon(mech, 50, fmpq(1, 10**6), rel_tol=fmpq(1, 10**6))
    from blanket.exact.numbers import arith

    assert t["epsilon_upper"] == arith.decimal_string(up1, 8, up=True)
    assert t["epsilon_lower"] == arith.decimal_string(lo1, 8, up=False)
    assert t["route"].startswith("one-round route") and t["one_round"]["upper_decided_by"] == "one round"
    assert t["lower_source"].startswith("one round alone") and not t["sandwich_width"].startswith("-")
    used = {e["key"]: e.get("used_for") for e in cert["chain"]}
    assert all(used.get(k) is not None for k in t["one_round"]["upper_results"]) and "exact five-atom" in name
    # the lower end is the round's alone: the chain names the statement it rests on (a composition is never below
    # one of its rounds), and only then (a two-round OUE schedule's lower end is the composed pairs')
    assert "Composition never below one round" in used
    p.write_text(p.read_text().replace("count = 1", "count = 2"))
    two = certify_composition(load_deployment(p), plot=False)
    assert "one_round" not in two["targets"][0]
    assert "Composition never below one round" not in {e["key"] for e in two["chain"]}


def test_undecided_claim_retries_without_searching_the_one_round_again(monkeypatch):
    """A claim inside the one round's own bracket stays undecided on every grid (the round's ends do not depend on
    the grid): the certificate retries on grid ÷4 twice, and the one-round δ is searched once, not three times
    (``ShuffleAccountant.regridded`` carries it); the bracket reported is the one-round command's, computed directly
    (``certified.one_round_delta``, the independent route)."""
    from blanket.exact.numbers import arith
    from blanket.reports import composition
    from blanket.reports.deployment import parse_deployment

    calls: list = []
    orig = certified.one_round_delta

    def counting(*a, **k):
        calls.append(a[:3])
        return orig(*a, **k)

    monkeypatch.setattr(certified, "one_round_delta", counting)
    dep = parse_deployment(
        'name = "x"\n[mechanism]\ntype = "oue"\nk = 4\nepsilon0 = "1"\n[users]\nn = 50\n[[rounds]]\ncount = 1\n'
        '[[claims]]\nepsilon = "0.5"\ndelta = "3e-7"\n'
    )
    r = composition.decide_claim(dep, dep.claims[0])
    assert r["verdict"] == "INCONCLUSIVE" and len(r["reason"].split("on grids ")[1].split(", ")) == 3  # three grids
    assert len(calls) == 1
    ((uv, _name, _every), (lv, _where)), _prec = orig(
        make_mechanism({"type": "oue", "k": 4, "epsilon0": "1"}), 50, fmpq(1, 2)
    )
    assert r["delta_upper"] == arith.decimal_string(uv, 8, up=True)
    assert r["delta_lower"] == arith.decimal_string(lv, 8, up=False)


def test_the_estimate_counts_a_single_rounds_own_searches():
    """A single round of a closed-form record runs its own certified searches (seconds: OUE k = 128, ε0 = 1, n = 10³
    about 29 CPU s, the exact five-atom view a route there): the estimate (what the CLI prints before the work) counts
    them (composition_cost.one_round_seconds of the exact view's cost measure); not at T = 2, not with curves=False
    (neither runs them), and not in the estimate the refinement budgets rest on (one_round=False: their choices are
    as before).  The model alone: nothing is computed."""
    from blanket.exact.accounting import composition_cost as cost
    from blanket.exact.shuffled import oracle_exact

    oue = make_mechanism({"type": "oue", "k": 128, "epsilon0": "1"})
    one = ShuffleAccountant().compose(Shuffled(oue, 1000), count=1).estimate(fresh=True)
    assert one.one_round == cost.one_round_seconds(oracle_exact.exact_view_work(oue, 1000)) > 10
    assert "one-round searches" in one.text() and one.as_dict()["one_round_seconds"] == round(one.one_round, 1)
    assert one.seconds == pytest.approx(one.curves + one.pld + one.one_round)
    two = ShuffleAccountant().compose(Shuffled(oue, 1000), count=2).estimate(fresh=True)
    assert two.one_round == 0 and "one-round" not in two.text()
    assert ShuffleAccountant(curves=False).compose(Shuffled(oue, 1000), count=1).estimate(fresh=True).one_round == 0
    base = ShuffleAccountant().compose(Shuffled(oue, 1000), count=1).estimate(fresh=True, one_round=False)
    assert base.one_round == 0 and base.seconds == pytest.approx(one.seconds - one.one_round)
    # above the exact view's guard (n = 10⁴: 100 s per δ) it is not a route: the fixed part only
    big = ShuffleAccountant().compose(Shuffled(oue, 10**4), count=1).estimate(fresh=True)
    assert big.one_round == cost.ONE_ROUND_FIXED
