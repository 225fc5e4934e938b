"""``--rounds 1`` of a closed-form record (frequency oracles, ``ldp``, geometric): the round's own one-round certified
ends (exact.accounting.certified: the exact five-atom view, the full-view lower dataset) are taken beside the
accountant's, the better of each reported and named (docs/composition.md §5e "One round through the accountant").

Independent routes: the one-round command (``blanket epsilon|delta`` without ``--rounds``, the same certified
routines) and the accountant alone (``ShuffleAccountant`` in Python); every reported end is one of the two, and the
ends are the better ones.  The accountant's own brackets are wider here (OUE k = 4, n = 50: its curve pair is the
hull of the fast view), so a run that dropped the one-round ends fails."""

from __future__ import annotations

import json
from fractions import Fraction

from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.reports.cli import main

OUE = ["--mechanism", "oue", "--k", "4", "--epsilon0", "1", "-n", "50"]


def _json(capsys, argv: list) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _acc() -> ShuffleAccountant:
    return ShuffleAccountant().compose(Shuffled({"type": "oue", "k": 4, "epsilon0": "1"}, 50), count=1)


def test_epsilon_one_round_takes_the_better_ends(capsys):
    comp = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "1"])
    one = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6"])
    e = _acc().get_epsilon("1e-6")
    lo, up = Fraction(comp["epsilon"]["lower"]), Fraction(comp["epsilon"]["upper"])
    assert comp["epsilon"]["upper"] == one["epsilon"]["upper"] and comp["epsilon"]["lower"] == one["epsilon"]["lower"]
    assert up < e.upper and lo > e.lower  # the one round's ends are better here: both taken
    assert comp["one_round"]["upper_decided_by"] == "one round" == comp["one_round"]["lower_decided_by"]
    assert "exact five-atom" in comp["one_round"]["upper_from"]
    three = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "2"])  # two rounds: the accountant only
    assert "one_round" not in three
    fast = _json(capsys, ["epsilon", *OUE, "--delta", "1e-6", "--rounds", "1", "--curves", "off"])  # the fast route
    assert "one_round" not in fast


def test_delta_one_round_takes_the_better_ends(capsys):
    comp = _json(capsys, ["delta", *OUE, "--epsilon", "0.5", "--rounds", "1"])
    one = _json(capsys, ["delta", *OUE, "--epsilon", "0.5"])
    acc = _acc()
    acc.get_epsilon("1e-6")  # as the command: the grid chosen at 1e-6
    d = acc.get_delta("0.5")
    lo, up = Fraction(comp["delta"]["lower"]), Fraction(comp["delta"]["upper"])
    assert comp["delta"] == one["delta"]
    assert up < d.upper and lo > d.lower
    assert comp["one_round"]["upper_decided_by"] == "one round"
