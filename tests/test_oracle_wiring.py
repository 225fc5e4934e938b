"""Every randomizer end to end: the certified bounds against the exhaustive worst case, and CLI / TOML / API.

Ground truth: the exact worst case over all datasets (exact/shuffled/enumerate.py) on each record's explicit
matrix at small k and n — every reported upper bound must be above it and every lower bound below it.
"""

from __future__ import annotations

import itertools
import json

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.accounting import pld
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, clone_pair, four_value_lower_pair
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.shuffled import oracles as shuffled_oracles
from blanket.exact.shuffled.enumerate import worst_case
from blanket.reports.certificate import FAILS, HOLDS, certify
from blanket.reports.cli import main
from blanket.reports.deployment import parse_deployment
from flint import fmpq

ALL_MAPS_3_2 = list(itertools.product(range(2), repeat=3))  # every hash [3] -> [2]

RECORDS = {
    "oue": oracles.OUE(3, exp_epsilon0=3),
    "sue": oracles.SUE(3, exp_half_epsilon0=2),
    "olh-family": oracles.OLH(3, 2, exp_epsilon0=3, family=ALL_MAPS_3_2, constant="family"),
    "hadamard": oracles.Hadamard(3, exp_epsilon0=3),
    "subset": oracles.Subset(4, 2, exp_epsilon0=2),
    "geometric": oracles.Geometric(3, alpha="1/2"),
}
EXP_EPS = [fmpq(1), fmpq(3, 2)]


@pytest.mark.parametrize("name", list(RECORDS))
@pytest.mark.parametrize("n", [2, 3])
def test_upper_above_and_lower_below_the_exhaustive_worst_case(name, n):
    mech = RECORDS[name]
    for ee in EXP_EPS:
        worst = worst_case(mech.matrix(), n, exp_epsilon=ee).value
        ups = cb.upper_bounds(mech, n, exp_epsilon=ee)
        assert cb.CLONE in ups and len(ups) >= 2  # at least the clone pair and a blanket view
        for bname, v in ups.items():
            assert v >= worst, (name, n, ee, bname, v, worst)
        best, bname, every = cb.best_upper(mech, n, exp_epsilon=ee)
        assert best == min(every.values()) and every[bname] == best
        lo, _ = cb.lower_bound(mech, n, exp_epsilon=ee)
        assert lo is not None and lo <= worst, (name, n, ee, lo, worst)
        # the accountant's concrete pair (a post-processing of the same dataset) is below too
        if isinstance(mech, oracles.FourValue):
            for direction in ("forward", "backward"):
                pair = four_value_lower_pair(mech, n, direction)
                assert pld.hockey_stick(pair.atoms(), ee) <= lo


def test_olh_record_without_constant_hashes_still_bounds_a_family_that_has_them():
    # constant = 0 (the default) is a valid blanket for every family: its bounds stay above the family's worst case
    fam = oracles.OLH(3, 2, exp_epsilon0=3, family=ALL_MAPS_3_2, constant="family")
    rec = oracles.OLH(3, 2, exp_epsilon0=3, collision=fam.collision)
    for n in (2, 3):
        worst = worst_case(fam.matrix(), n, exp_epsilon=fmpq(3, 2)).value
        assert all(v >= worst for v in cb.upper_bounds(rec, n, exp_epsilon=fmpq(3, 2)).values())


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ldp_clone_bound_above_every_member_and_lower_below_binary_rr(n):
    ldp = oracles.LDP(exp_epsilon0=3)
    members = [KRR(2, exp_epsilon0=3), KRR(3, exp_epsilon0=3), oracles.OUE(3, exp_epsilon0=3).matrix()]
    for ee in EXP_EPS:
        up = cb.best_upper(ldp, n, exp_epsilon=ee)[0]
        worsts = [worst_case(m, n, exp_epsilon=ee).value for m in members]
        assert all(up >= w for w in worsts)
        lo, where = cb.lower_bound(ldp, n, exp_epsilon=ee)
        # binary RR (c = 0) or 3-RR (others on a third value), whichever is larger: below that member's worst case
        member = worsts[0] if "binary randomized response" in where else worsts[1]
        assert lo <= member and "randomized response" in where
    # the accountant's clone pair is the FOCS'21 pair: its hockey stick is clone_delta, exactly
    for ee in EXP_EPS:
        assert pld.hockey_stick(clone_pair(ldp, n).atoms(), ee) == shuffled_oracles.clone_delta(ldp, n, exp_epsilon=ee)


def test_a_false_upper_bound_would_be_caught():
    # the check above can fail: a bound scaled down by 1/2 drops below the exhaustive worst case
    mech = RECORDS["oue"]
    worst = worst_case(mech.matrix(), 3, exp_epsilon=fmpq(1)).value
    assert cb.best_upper(mech, 3, exp_epsilon=fmpq(1))[0] / 4 < worst


# ---------------------------------------------------------------- CLI
CLI = {
    "ldp": [],
    "oue": ["--k", "16"],
    "sue": ["--k", "16"],
    "olh": ["--k", "64", "--g", "3"],
    "hadamard": ["--k", "15"],
    "subset": ["--k", "10", "--d", "3"],
    "geometric": ["--m", "3"],
}


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kind", list(CLI))
def test_cli_delta_reports_the_best_named_upper_and_a_lower(capsys, kind):
    code, out, err = _run(
        capsys, "delta", "--mechanism", kind, *CLI[kind], "--epsilon0", "1", "-n", "12", "--epsilon", "0.2", "--json"
    )
    assert code == 0, err
    r = json.loads(out)
    assert r["mechanism"] == kind and r["relation"] == "bracket"
    ups = r["upper_bounds"]
    assert r["upper"]["from"] in ups
    best = min(float(v["upper"]) for v in ups.values())
    assert float(r["upper"]["value"]) == best
    assert float(r["delta"]["lower"]) <= float(r["delta"]["upper"])


@pytest.mark.parametrize("kind", ["ldp", "olh"])
def test_cli_epsilon_bracket(capsys, kind):
    code, out, err = _run(
        capsys, "epsilon", "--mechanism", kind, *CLI[kind], "--epsilon0", "1", "-n", "100", "--delta", "1e-3", "--json"
    )  # n = 100: the same routes as at 300 (OLH: the exact five-atom view; ldp: Lemma G1) in a third of the time
    assert code == 0, err
    r = json.loads(out)
    assert 0 < float(r["epsilon"]["lower"]) <= float(r["epsilon"]["upper"]) <= 1
    assert r["upper"]["from"].startswith(("clone", "blanket", "Lemma G1"))


def test_cli_refuses_a_dataset_of_another_family(capsys):
    code, out, err = _run(
        capsys, "delta", "--mechanism", "oue", "--k", "4", "--epsilon0", "1", "-n", "10", "--epsilon", "0.1",
        "--dataset", "c=2",
    )  # fmt: skip
    assert code == 2 and "--dataset must be one of worst, bracket, blanket, same" in err


# ---------------------------------------------------------------- TOML and certify
TOML = {
    "ldp": "",
    "oue": "k = 16",
    "sue": "k = 16",
    "olh": "k = 64\ng = 3",
    "hadamard": "k = 15",
    "subset": "k = 10\nd = 3",
    "geometric": "m = 3",
}
#: the local level's key per kind (the geometric mechanism's lower bound needs its exact alpha)
EPS0 = {"geometric": 'alpha = "1/2"'}


@pytest.mark.parametrize("kind", list(TOML))
def test_certify_each_kind_holds_and_fails(kind):
    eps_line = EPS0.get(kind, 'epsilon0 = "1"')
    text = (
        f'name = "t"\n[mechanism]\ntype = "{kind}"\n{TOML[kind]}\n{eps_line}\n[users]\nn = 8\n'
        '[[claims]]\nepsilon = "2"\ndelta = "1e-9"\n'  # at epsilon >= epsilon0 every bound is 0: HOLDS
        '[[claims]]\nepsilon = "0"\ndelta = "1e-9"\n'  # at epsilon = 0 a concrete dataset has delta > 1e-9: FAILS
    )
    dep = parse_deployment(text)
    assert dep.mechanism == kind
    cert = certify(dep, plot=False)
    c_hold, c_fail = cert["claims"]
    assert c_hold["verdict"] == HOLDS and c_hold["decided_by"]["bound"] == "upper"
    assert c_fail["verdict"] == FAILS and c_fail["decided_by"]["bound"] == "lower"
    names = [u["source"] for u in c_hold["upper_candidates"]]
    assert any(s.startswith("clone pair") for s in names)
    if kind == "ldp":
        assert any("only assumption is that it is epsilon0-LDP" in a for a in cert["assumptions"])


def test_deployment_unknown_field_did_you_mean():
    text = 'name = "t"\n[mechanism]\ntype = "olh"\nk = 4\ngg = 3\nepsilon0 = "1"\n[users]\nn = 8\n[[claims]]\nepsilon = "1"\ndelta = "1e-9"\n'
    with pytest.raises(Exception) as exc:
        parse_deployment(text)
    assert "mechanism.gg is not a known field" in str(exc.value) and "did you mean 'g'?" in str(exc.value)


# ---------------------------------------------------------------- API: the accountant
@pytest.mark.parametrize(
    "spec",
    [
        {"type": "ldp", "exp_epsilon0": "3"},
        {"type": "oue", "k": 8, "exp_epsilon0": "3"},
        {"type": "subset", "k": 6, "d": 2, "exp_epsilon0": "3"},
        {"type": "geometric", "m": 3, "alpha": "1/2"},
    ],
    ids=lambda s: s["type"],
)
def test_accountant_one_round_sandwiches_the_certified_bounds(spec):
    n = 40
    ev = Shuffled(spec, n)
    # the dominating-pair route alone (curves=False): the clone pair's pessimistic PLD
    acc = ShuffleAccountant(grid="1/256", curves=False).compose(ev, count=1)
    d = acc.get_delta("1/2")
    # with the curve pairs (default): never above it, never below the concrete dataset's lower end
    dc = ShuffleAccountant(grid="1/256").compose(ev, count=1).get_delta("1/2")
    assert dc.lower <= dc.upper <= d.upper
    mech = ev.mechanism
    # the round's pair: ldp composes Lemma G1's pair (FMT21's adaptive model), every other record the clone pair
    if spec["type"] == "ldp":
        from blanket.exact.shuffled import generic_ldp

        clone = generic_ldp.adaptive_model_delta(mech, n, epsilon="1/2")
        assert clone < shuffled_oracles.clone_delta(mech, n, epsilon="1/2")
    else:
        clone = shuffled_oracles.clone_delta(mech, n, epsilon="1/2")
    from blanket.exact.numbers import arith

    with arith.precision(128):
        # the pessimistic PLD of the clone pair is >= the pair's delta (both certified: compare the safe ends)
        assert d.upper >= arith.endpoints(arith.ball(clone))[0]
        lo, _ = cb.lower_bound(mech, n, epsilon="1/2")
        if lo is not None:  # the accountant's lower end is a post-processing of the same dataset
            assert d.lower <= arith.endpoints(arith.ball(lo))[1]
    assert 0 <= d.lower <= d.upper


def test_cli_precision_escalation_stops_when_a_tolerance_limits_the_width():
    """A width that only shrinks 4x per doubling of the precision (a windowing tolerance, as OLH's blanket view at
    n = 10^6) stops the escalation after one such doubling instead of running to the cap (4096 bits took
    ~10 min); a rounding-limited width (shrinking by 2^prec) is followed until it is narrow.  Counted in calls."""
    from blanket.exact.accounting.certified import _at_precision
    from blanket.exact.numbers import arith
    from flint import arb

    calls = []

    def tolerance_limited():
        calls.append(1)
        k = len(calls)
        return arb(1, arith.exact(1, 4**k) * arith.exact("1e-3"))

    _, prec = _at_precision(tolerance_limited, 4096)
    assert len(calls) == 2 and prec == 2 * arith.DEFAULT_PREC

    calls.clear()

    def rounding_limited():
        calls.append(1)
        return arb(1, arith.exact(2) ** (-8 * 2 ** len(calls)))  # 2^-16, 2^-32, 2^-64 (narrow: < 1e-12)

    _, prec = _at_precision(rounding_limited, 4096)
    assert len(calls) == 3
