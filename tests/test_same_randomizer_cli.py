"""``--same-randomizer`` on the command line (issue 25): the statement "one randomizer for every user" for
``--mechanism ldp`` (as ``same_randomizer = true`` in a deployment), refused for every other randomizer (one line, exit
2); and ``[[rounds]]`` entries of ``type = "ldp"``.

Independent routes: Lemma G1's value computed directly (generic_ldp.same_randomizer_delta, i.e. the binary-RR blanket
view) and the same statement given in a deployment file (same_randomizer = true).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.shuffled import generic_ldp as g
from blanket.reports.cli import main

LDP_ARGS = ["--mechanism", "ldp", "--epsilon0", "2", "-n", "1000"]


def _json(capsys, argv: list) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_flag_states_one_randomizer_and_matches_the_deployment_key(capsys, tmp_path):
    """--same-randomizer is the deployment key same_randomizer = true on the command line: the same certified numbers
    (Lemma G1 holds in FMT21's adaptive model too, so for ldp the value does not change), the statement recorded."""
    plain = _json(capsys, ["delta", *LDP_ARGS, "--epsilon", "0.4"])
    same = _json(capsys, ["delta", *LDP_ARGS, "--epsilon", "0.4", "--same-randomizer"])
    with arith.precision(128):
        g1 = g.same_randomizer_delta(LDP(2, same_randomizer=True), 1000, epsilon="0.4")
    lo = arith.endpoints(g1)[0]  # the true value is at least this: an upper end printed below it would be wrong
    assert Fraction(same["delta"]["upper"]) >= lo  # outward rounded
    assert same["delta"] == plain["delta"]
    assert same["same_randomizer"] in (True, "True") and "same_randomizer" not in plain
    f = tmp_path / "d.toml"
    f.write_text(
        'name = "x"\n[mechanism]\ntype = "ldp"\nepsilon0 = "2"\nsame_randomizer = true\n[users]\nn = 1000\n'
        '[options]\ntarget_delta = "1e-6"\n'
    )
    dep = _json(capsys, ["delta", "--deployment", str(f), "--epsilon", "0.4"])
    assert dep["delta"] == same["delta"]
    e_same = _json(capsys, ["epsilon", *LDP_ARGS, "--delta", "1e-6", "--same-randomizer"])
    e_dep = _json(capsys, ["epsilon", "--deployment", str(f), "--delta", "1e-6"])
    assert e_same["epsilon"] == e_dep["epsilon"]


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--mechanism", "oue", "--k", "4", "--epsilon0", "2", "-n", "100", "--delta", "1e-6"],
        ["delta", "--mechanism", "rr", "--epsilon0", "2", "-n", "100", "--epsilon", "0.5"],
        ["epsilon", "--mechanism", "laplace", "--epsilon0", "2", "-n", "100", "--delta", "1e-6"],
    ],
    ids=["oue", "rr", "laplace"],
)
def test_refused_for_other_randomizers_one_line_exit_2(capsys, argv):
    assert main([*argv, "--same-randomizer"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--same-randomizer" in err[0] and "ldp only" in err[0]


def test_composed_flagged_ldp_composes_lemma_g1(capsys):
    argv = ["epsilon", "--mechanism", "ldp", "--epsilon0", "1", "-n", "300", "--delta", "1e-3", "--rounds", "2"]
    same = _json(capsys, [*argv, "--same-randomizer"])
    assert any("Lemma G1" in p for p in same["pairs"])
    assert same["epsilon"] == _json(capsys, argv)["epsilon"]


# ------------------------------------------------------------------ [[rounds]] entries of type = "ldp"
def _rounds_dep(entry: str, n: int = 3, extra: str = ""):
    from blanket.reports.deployment import parse_deployment

    return parse_deployment(
        f'name = "x"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "1"\n[users]\nn = {n}\n{extra}'
        f'[[rounds]]\ncount = 2\ntype = "ldp"\nepsilon0 = "1"\n{entry}[options]\ntarget_delta = "1e-3"\n'
    )


def test_ldp_rounds_compose_above_every_dataset_pair_of_a_member_of_the_class():
    """[[rounds]] type = "ldp" (with and without same_randomizer): the composed certified delta(eps) of two rounds is
    above the exact two-round H of 3-RR with the same epsilon0 (one randomizer for all, a member of the class) on
    every neighbouring dataset pair (n = 3, product of the exact histogram laws, balls for e^1)."""
    import itertools

    from blanket.exact.accounting.accountant import ShuffleAccountant
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.shuffled.enumerate import histogram_law
    from flint import arb, fmpq

    plain, same = _rounds_dep(""), _rounds_dep("same_randomizer = true\n")
    assert plain.rounds[0].ldp and not plain.rounds[0].same_randomizer and same.rounds[0].same_randomizer
    assert plain.as_dict()["rounds"][0]["type"] == "ldp" and same.as_dict()["rounds"][0]["same_randomizer"] is True
    ups = []
    for dep in (plain, same):
        acc = ShuffleAccountant(grid="1/512")
        for r in dep.rounds:
            acc.compose(r.event(), count=r.count)
        ups.append(acc.get_delta(Fraction(1, 2)).upper)
    assert ups[1] == ups[0]  # Lemma G1's pair in both models (FMT21's adaptive one, and one randomizer)
    with arith.precision(128):
        rows = KRR(3, epsilon0=1).matrix()
        al = arb(fmpq(1, 2)).exp()
        worst = arb(0)
        for others in itertools.product(range(3), repeat=2):
            for x, x2 in itertools.permutations(range(3), 2):
                p1, q1 = histogram_law(rows, [*others, x]), histogram_law(rows, [*others, x2])
                h = arb(0)
                for (h1, a1), (h2, a2) in itertools.product(p1.items(), p1.items()):
                    v = a1 * a2 - al * q1.get(h1, 0) * q1.get(h2, 0)
                    if v > 0:
                        h += v
                worst = worst.max(h) if worst != 0 else h
        assert arith.endpoints(worst)[1] <= ups[1]


LDP_ROUND = (
    'name = "x"\n[mechanism]\ntype = "ldp"\nepsilon0 = "1"\n[users]\nn = 10\n{users}[[rounds]]\ncount = 2\n{entry}'
)


@pytest.mark.parametrize(
    "users, entry, named",
    [
        ("", "k = 3\n", "rounds[0].k"),
        ("", 'same_randomizer = "yes"\n', "rounds[0].same_randomizer"),
        ("colluding = 1\n", "", "users.colluding"),
    ],
    ids=["k", "not-a-boolean", "colluding"],
)
def test_ldp_round_refusals(users, entry, named):
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.reports.deployment import parse_deployment

    text = LDP_ROUND.format(users=users, entry=entry) + '[options]\ntarget_delta = "1e-3"\n'
    with pytest.raises(InvalidArgument) as ei:
        parse_deployment(text)
    assert ei.value.name == named
    # without the bad key the same file is accepted, its [mechanism] ldp inherited by the round
    ok = parse_deployment(LDP_ROUND.format(users="", entry="") + '[options]\ntarget_delta = "1e-3"\n')
    assert ok.rounds[0].ldp and ok.rounds[0].epsilon0 == 1


def test_same_randomizer_refused_on_a_krr_round():
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.reports.deployment import parse_deployment

    with pytest.raises(InvalidArgument, match="ldp rounds only") as ei:
        parse_deployment(
            'name = "x"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "1"\n[users]\nn = 10\n'
            '[[rounds]]\ncount = 2\nsame_randomizer = true\n[options]\ntarget_delta = "1e-3"\n'
        )
    assert ei.value.name == "rounds[0].same_randomizer"
