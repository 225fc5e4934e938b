"""``--same-randomizer`` on the command line (issue 25): Lemma G1 for ``--mechanism ldp``, refused for every other
randomizer (one line, exit 2), and the one-line hint after a plain ``ldp`` answer.

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


def test_flag_gives_lemma_g1_and_matches_the_deployment_key(capsys, tmp_path):
    plain = _json(capsys, ["delta", *LDP_ARGS, "--epsilon", "0.4"])
    same = _json(capsys, ["delta", *LDP_ARGS, "--epsilon", "0.4", "--same-randomizer"])
    with arith.precision(128):
        g1 = g.same_randomizer_delta(LDP(2, same_randomizer=True), 1000, epsilon="0.4")
    lo = arith.endpoints(g1)[0]  # the true value is at least this: an upper end printed below it would be wrong
    assert Fraction(same["delta"]["upper"]) >= lo  # outward rounded
    assert Fraction(same["delta"]["upper"]) < Fraction(plain["delta"]["upper"])  # tighter than the clone pair
    assert "one randomizer for every user" in same["upper"]["from"]
    assert same["delta"]["lower"] == plain["delta"]["lower"]  # the lower end is the same concrete member
    # the plain answer names the option and Lemma G1's number, which is the flagged run's upper end's source
    hint = plain["same_randomizer_hint"]
    assert "--same-randomizer" in hint["text"] and Fraction(hint["delta_upper"]) >= lo
    assert "same_randomizer_hint" not in same
    # the deployment file's key gives the same answer
    f = tmp_path / "d.toml"
    f.write_text(
        'name = "x"\n[mechanism]\ntype = "ldp"\nepsilon0 = "2"\nsame_randomizer = true\n[users]\nn = 1000\n[options]\ntarget_delta = "1e-6"\n'
    )
    dep = _json(capsys, ["delta", "--deployment", str(f), "--epsilon", "0.4"])
    assert dep["delta"] == same["delta"]


def test_epsilon_hint_carries_lemma_g1_epsilon(capsys):
    plain = _json(capsys, ["epsilon", *LDP_ARGS, "--delta", "1e-6"])
    same = _json(capsys, ["epsilon", *LDP_ARGS, "--delta", "1e-6", "--same-randomizer"])
    g1_eps = Fraction(plain["same_randomizer_hint"]["epsilon_upper"])
    assert Fraction(same["epsilon"]["upper"]) < Fraction(plain["epsilon"]["upper"])
    # Lemma G1's delta at the hint's epsilon is at most the target (certified upper end of the search)
    with arith.precision(128):
        d = g.same_randomizer_delta(LDP(2, same_randomizer=True), 1000, epsilon=arith.exact(str(g1_eps)))
    assert arith.endpoints(d)[0] <= Fraction(1, 10**6)
    assert g1_eps >= Fraction(same["epsilon"]["lower"])
    # the human text: one line
    assert main(["epsilon", *LDP_ARGS, "--delta", "1e-6"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "--same-randomizer" in ln]
    assert len(lines) == 1 and "Lemma G1" in lines[0]


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


def test_composed_plain_ldp_says_so_without_a_number(capsys):
    out = _json(
        capsys, ["epsilon", "--mechanism", "ldp", "--epsilon0", "1", "-n", "300", "--delta", "1e-3", "--rounds", "2"]
    )
    assert "--same-randomizer" in out["same_randomizer_hint"]["text"]
    same = _json(
        capsys,
        [
            "epsilon",
            "--mechanism",
            "ldp",
            "--epsilon0",
            "1",
            "-n",
            "300",
            "--delta",
            "1e-3",
            "--rounds",
            "2",
            "--same-randomizer",
        ],
    )
    assert "same_randomizer_hint" not in same
    assert Fraction(same["epsilon"]["upper"]) < Fraction(out["epsilon"]["upper"])
    assert any("Lemma G1" in p for p in same["pairs"])


def test_certify_plain_ldp_prints_the_hint(capsys, tmp_path):
    f = tmp_path / "d.toml"
    f.write_text(
        'name = "x"\n[mechanism]\ntype = "ldp"\nepsilon0 = "2"\n[users]\nn = 100\n[[claims]]\nepsilon = "1"\ndelta = "0.1"\n'
    )
    assert main(["certify", str(f), "-o", str(tmp_path / "out"), "--no-pdf", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert sum("same_randomizer = true in its [mechanism] table" in ln for ln in out.splitlines()) == 1
    f.write_text(f.read_text().replace('epsilon0 = "2"\n', 'epsilon0 = "2"\nsame_randomizer = true\n'))
    assert main(["certify", str(f), "-o", str(tmp_path / "out2"), "--no-pdf", "--no-plot"]) == 0
    assert "same_randomizer = true in its" not in capsys.readouterr().out
