"""Deployments of the continuous randomizers in ``blanket delta|epsilon --deployment`` and ``[[rounds]]`` (issue 27).

Independent references: the single-round answers are compared with the same command given by options (the round
trip); a composed schedule is checked against the exact composed δ of the thresholded outputs on 0^n vs 1·0^(n−1),
computed here by brute force in rationals (tests/test_continuous_rounds.py's helpers), and against the mechanism's
own one-round δ on that pair (the composition is never below one of its rounds).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.continuous import Laplace
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.continuous import quantised_rr
from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower
from blanket.reports.cli import main
from blanket.reports.deployment import ContinuousRound, parse_deployment
from flint import fmpq

from tests.test_continuous_rounds import _composed_hockey_stick, _threshold_pair

HEAD = 'name = "x"\n[randomizer]\nmechanism = "laplace"\nepsilon0 = 1\n[users]\nn = 20\n'
CLAIM = '[[claims]]\nepsilon = "1/2"\ndelta = "1e-3"\n'


def test_rounds_entries_parse_with_defaults():
    dep = parse_deployment(
        HEAD + '[[rounds]]\ncount = 2\n[[rounds]]\nmechanism = "gaussian"\nsigma = "3/2"\nn = 7\n'
        '[[rounds]]\nmechanism = "krr"\nk = 3\nepsilon0 = 1\n' + CLAIM
    )
    a, b, c = dep.rounds
    assert isinstance(a, ContinuousRound) and (a.kind, dict(a.params), a.n, a.count) == (
        "laplace",
        {"epsilon0": 1},
        20,
        2,
    )
    assert isinstance(b, ContinuousRound) and (b.kind, dict(b.params), b.n, b.count) == (
        "gaussian",
        {"sigma": fmpq(3, 2)},
        7,
        1,
    )
    assert not isinstance(c, ContinuousRound) and (c.k, c.n) == (3, 20)
    rows = dep.as_dict()["rounds"]
    assert rows[1] == {"mechanism": "gaussian", "sigma": "1.5", "n": 7, "count": 1} and rows[2]["k"] == 3
    assert a.event() is dep.rounds[0].event()  # one accountant event per randomizer and n (its pair is cached)


@pytest.mark.parametrize(
    "entry, field",
    [
        ('mechanism = "laplace"\nsampling = "1/2"\n', "rounds[0].sampling"),
        ('mechanism = "laplace"\nsigma = 1\n', "rounds[0].sigma"),
        ('mechanism = "gaussian"\n', "rounds[0].sigma"),
        ('mechanism = "gaussian"\nsigma = 1\nepsilon0 = 1\n', "rounds[0].epsilon0"),
        ('mechanism = "krr"\nk = 2\nsigma = 1\n', "rounds[0].sigma"),
    ],
)
def test_rounds_entries_refused_by_name(entry, field):
    with pytest.raises(InvalidArgument, match=field.replace("[", r"\[").replace("]", r"\]")):
        parse_deployment(HEAD + "[[rounds]]\n" + entry + CLAIM)


def test_colluding_refused_with_continuous_rounds():
    text = HEAD.replace("n = 20\n", "n = 20\ncolluding = 2\n") + "[[rounds]]\ncount = 2\n" + CLAIM
    with pytest.raises(InvalidArgument, match="colluding"):
        parse_deployment(text)


def _run(capsys, argv) -> dict:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_deployment_round_trip(tmp_path, capsys):
    p = tmp_path / "lap.toml"
    p.write_text(HEAD + CLAIM)
    opts = ["--mechanism", "laplace", "--epsilon0", "1", "-n", "20"]
    by_file = _run(capsys, ["delta", "--deployment", str(p)])
    by_opts = _run(capsys, ["delta", *opts, "--epsilon", "1/2"])
    assert by_file["delta"] == by_opts["delta"] and by_file["deployment"] == "lap.toml"
    assert "(0, 1)" in by_file.get("assumption", "(0, 1)")
    d_half = arith.exact(by_file["delta"]["upper"])
    # an option overrides the file; a different randomizer is refused by name
    over = _run(capsys, ["delta", "--deployment", str(p), "--epsilon", "1/4"])
    assert over["epsilon"] == "1/4" and arith.exact(over["blanket_view_delta"]["lower"]) > d_half  # falls with epsilon
    assert main(["delta", "--deployment", str(p), "--mechanism", "gaussian", "--sigma", "1"]) == 2
    assert "differs from the laplace randomizer" in capsys.readouterr().err


@pytest.mark.slow
def test_deployment_round_trip_epsilon(tmp_path, capsys):
    p = tmp_path / "lap.toml"
    p.write_text(HEAD + CLAIM)
    by_file = _run(capsys, ["epsilon", "--deployment", str(p)])
    by_opts = _run(capsys, ["epsilon", "--mechanism", "laplace", "--epsilon0", "1", "-n", "20", "--delta", "1e-3"])
    assert by_file["epsilon"] == by_opts["epsilon"] and arith.exact(by_file["delta"]) == fmpq(1, 1000)
    assert "(0, 1)" in by_file["assumption"]


@pytest.mark.slow
def test_schedule_composes_between_independent_ends(tmp_path, capsys):
    n, T = 10, 2
    p = tmp_path / "sched.toml"
    p.write_text(HEAD.replace("n = 20", f"n = {n}") + f"[[rounds]]\ncount = {T}\n" + CLAIM)
    out = _run(capsys, ["delta", "--deployment", str(p)])
    assert out["total_rounds"] == T and out["relation"] == "composition" and "(0, 1)" in out["assumption"]
    lo, hi = Fraction(out["delta"]["lower"]), Fraction(out["delta"]["upper"])
    assert 0 <= lo <= hi
    # the exact composed delta of the thresholded outputs (both orders), brute force in rationals
    e = quantised_rr(Laplace(1)).exp_epsilon0()
    P, Q = _threshold_pair(n, Fraction(int(e.p), int(e.q)))
    with arith.precision(128):
        a = arith.endpoints(arith.exp_ball(fmpq(1, 2)))
    exact = max(_composed_hockey_stick(P, Q, T, a[1]), _composed_hockey_stick(Q, P, T, a[1]))
    assert exact <= hi
    # the composition is at least one of its rounds: the mechanism's own delta on 0^n vs 1 0^(n-1) (lower side)
    own = max(
        dataset_delta_lower(Laplace(1), n, epsilon=fmpq(1, 2), h=fmpq(1, 32), direction=d) for d in ("1|0", "0|1")
    )
    assert Fraction(int(own.p), int(own.q)) <= hi
    # options that fix a round are refused with a schedule
    assert main(["delta", "--deployment", str(p), "-n", "12"]) == 2
    assert "fixes each round" in capsys.readouterr().err


@pytest.mark.slow
def test_one_round_lower_end_decides_a_single_round_schedule(tmp_path):
    from blanket.reports.certificate import certify

    n = 10
    own = max(
        dataset_delta_lower(Laplace(1), n, epsilon=fmpq(1, 2), h=fmpq(1, 32), direction=d) for d in ("1|0", "0|1")
    )
    e = quantised_rr(Laplace(1)).exp_epsilon0()
    P, Q = _threshold_pair(n, Fraction(int(e.p), int(e.q)))
    with arith.precision(128):
        a = arith.endpoints(arith.exp_ball(fmpq(1, 2)))
    thr = max(_composed_hockey_stick(P, Q, 1, a[0]), _composed_hockey_stick(Q, P, 1, a[0]))
    own_q = Fraction(int(own.p), int(own.q))
    assert own_q > thr  # the mechanism's own delta is the stronger lower end here (exact thresholded value)
    claim = (own_q + thr) / 2  # between the two lower ends: only the one-round lower end refutes it
    p = tmp_path / "one.toml"
    p.write_text(
        HEAD.replace("n = 20", f"n = {n}")
        + '[[rounds]]\ncount = 1\n[[claims]]\nepsilon = "1/2"\n'
        + f'delta = "{float(claim):.12e}"\n'
    )
    (c,) = certify(parse_deployment(p.read_text(), source="one.toml"), plot=False)["claims"]
    assert c["verdict"] == "FAILS" and "one round alone" in c["reason"]
    assert Fraction(c["delta_lower"]) <= own_q <= Fraction(c["delta_upper"])
