"""Composed deployments ([[rounds]]): parsing, certificates (verdicts, JSON, LaTeX), and `--rounds` on the CLI."""

import json
from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.certificate import certify, render_tex
from blanket.reports.cli import main
from blanket.reports.deployment import parse_deployment

BASE = '''name = "composed"
[randomizer]
mechanism = "krr"
k = 2
epsilon0 = "1"
[users]
n = 2000
'''


def test_rounds_parse_with_defaults_and_errors():
    d = parse_deployment(
        BASE + '[[rounds]]\ncount = 20\n[[rounds]]\nk = 4\nepsilon0 = 2\nn = 1000\ncount = 5\n'
        '[[claims]]\nepsilon = 1\ndelta = 1e-6\n'
    )
    assert [(r.k, str(r.epsilon0), r.n, r.count) for r in d.rounds] == [(2, "1", 2000, 20), (4, "2", 1000, 5)]
    assert d.composed and d.as_dict()["rounds"][1]["k"] == 4
    single = parse_deployment(BASE + '[[claims]]\nepsilon = 1\ndelta = 1e-6\n')
    assert not single.composed and "rounds" not in single.as_dict()
    for bad, field in [
        ('[[rounds]]\ncount = 0\n', "rounds[0].count"),
        ('[[rounds]]\nmechanism = "matrix"\n', "rounds[0].mechanism"),
        ('[[rounds]]\ncount = 2\nfoo = 1\n', "rounds[0].foo"),
        ('[[rounds]]\nmechanism = "binary_rr"\nk = 3\n', "rounds[0].k"),
    ]:
        with pytest.raises(InvalidArgument, match=field.replace("[", r"\[").replace("]", r"\]")):
            parse_deployment(BASE + bad + '[[claims]]\nepsilon = 1\ndelta = 1e-6\n')


def test_composed_certificate_verdicts_and_typesetting():
    d = parse_deployment(
        BASE + '[[rounds]]\ncount = 20\n[[rounds]]\nk = 4\nepsilon0 = 2\nn = 1000\ncount = 5\n'
        '[[claims]]\nepsilon = 2\ndelta = 1e-6\n[[claims]]\nepsilon = "0.05"\ndelta = 1e-6\n'
        '[options]\ntarget_delta = 1e-6\n'
    )
    cert = certify(d, plot=False)
    assert [c["verdict"] for c in cert["claims"]] == ["HOLDS", "FAILS"]
    assert cert["verdict"] == "FAILS"
    # the same numbers from the library
    acc = (
        ShuffleAccountant()
        .compose(ShuffledRR(k=2, epsilon0="1", n=2000), 20)
        .compose(ShuffledRR(k=4, epsilon0="2", n=1000), 5)
    )
    e = acc.get_epsilon("1e-6")
    t = cert["targets"][0]
    assert Fraction(t["epsilon_upper"]) >= e.upper and Fraction(t["epsilon_lower"]) <= e.lower
    assert cert["composition"]["total_rounds"] == 25 and cert["composition"]["theorem"]["key"] == "ZDW22 Theorem 10"
    # the derived statements of the certified ends (issue 25): the curve pair's split atoms, binary RR's summed counts
    keys = [e["key"] for e in cert["chain"]]
    assert "PLD split atoms" in keys and "Binary RR summed-count lower pair" in keys
    assert "Banded third-value lower pair" in keys and acc.statements_used()["banded"]  # the 4-RR rounds' lower pair
    assert "Worst-case curve pair" in keys and acc.statements_used()["curve"]  # binary RR composes its curve
    assert (
        not ShuffleAccountant(curves=False).compose(ShuffledRR(k=4, epsilon0="2", n=1000), 5).statements_used()["curve"]
    )
    tex = render_tex(cert)
    assert "Composition" in tex and "ZDW22 Theorem 10" in tex and "\\Delta" in tex
    assert "Binary RR summed-count lower pair" in tex and "PLD split atoms" in tex
    json.dumps(cert)


def test_cli_rounds(capsys):
    rc = main(
        ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "3000", "--delta", "1e-6", "--rounds", "12", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["rounds"] == 12
    lo, up = Fraction(out["epsilon"]["lower"]), Fraction(out["epsilon"]["upper"])
    # the sandwich's lower end bounds the curve pair's own epsilon; the mechanism's lower end (binary RR: the summed
    # counts of c = 0, exact) may lie above it -- both lie below the curve pair's epsilon, so below the upper end
    assert lo <= up and Fraction(out["sandwich_lower"]) <= up
    # one round: the upper end is the single-round blanket view's epsilon up to the grid
    rc = main(
        ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "3000", "--delta", "1e-6", "--rounds", "1", "--json"]
    )
    one = json.loads(capsys.readouterr().out)
    assert Fraction(one["epsilon"]["upper"]) < up
    assert (
        main(["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "3000", "--epsilon", "0.5", "--rounds", "0"]) == 2
    )
    assert main("delta --mechanism rr --epsilon0 1 -n 3000 --epsilon 0.5 --rounds 2 --dataset c=0".split()) == 2


def test_cli_deployment_schedule_and_rounds(tmp_path, capsys):
    """A file with [[rounds]]: the answer is for the whole schedule; --rounds T repeats it T times."""
    f = tmp_path / "sched.toml"
    f.write_text(
        BASE + '[[rounds]]\ncount = 3\n[[rounds]]\nk = 4\nepsilon0 = 2\nn = 1000\ncount = 2\n'
        '[[claims]]\nepsilon = 1\ndelta = 1e-6\n'
    )
    assert main(["epsilon", "--deployment", str(f), "--delta", "1e-6", "--json"]) == 0
    once = json.loads(capsys.readouterr().out)
    assert once["total_rounds"] == 5 and once["route"] in ("PLD", "Renyi")
    assert main(["epsilon", "--deployment", str(f), "--delta", "1e-6", "--rounds", "2", "--json"]) == 0
    twice = json.loads(capsys.readouterr().out)
    assert twice["total_rounds"] == 10
    # the same numbers from the library: the schedule repeated twice
    acc = (
        ShuffleAccountant()
        .compose(ShuffledRR(k=2, epsilon0="1", n=2000), 6)
        .compose(ShuffledRR(k=4, epsilon0="2", n=1000), 4)
    )
    e = acc.get_epsilon("1e-6")
    assert Fraction(twice["epsilon"]["upper"]) >= e.upper > Fraction(once["epsilon"]["upper"])
    assert main(["delta", "--deployment", str(f), "--epsilon", "1", "--rounds", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["total_rounds"] == 10 and Fraction(d["delta"]["upper"]) >= acc.get_delta("1").upper
    # the schedule fixes the mechanism: overriding it is an error that says what to do
    capsys.readouterr()
    assert main(["epsilon", "--deployment", str(f), "--delta", "1e-6", "--epsilon0", "1"]) == 2
    err = capsys.readouterr().err
    assert "--epsilon0" in err and "[[rounds]]" in err and err.count("\n") == 1


FLEET = '''name = "two versions"
colluding = 3
[[users]]
n = 300
[users.mechanism]
type = "binary_rr"
epsilon0 = "1"
[[users]]
n = 200
[users.mechanism]
type = "binary_rr"
epsilon0 = "2"
[[claims]]
epsilon = "0.5"
delta = "1e-3"
'''


@pytest.mark.parametrize(
    "text",
    [BASE + '[[rounds]]\ncount = 3\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n', FLEET],
    ids=["composed", "fleet"],
)
def test_certificate_bytes_reproducible_apart_from_run_block(tmp_path, capsys, text):
    """Two runs of one deployment write the same .tex bytes and the same JSON but for its ``run`` block (the wall
    clock): no timing in the certified content (polish15)."""
    f = tmp_path / "d.toml"
    f.write_text(text)
    outs = []
    for _ in range(2):  # the same command twice (the command line is part of the certificate)
        assert main(["certify", str(f), "-o", str(tmp_path / "o"), "--no-pdf", "--no-plot", "--quiet"]) in (0, 1, 3)
        outs.append(
            ((tmp_path / "o" / "certificate.tex").read_bytes(), (tmp_path / "o" / "certificate.json").read_text())
        )
    (tex_a, json_a), (tex_b, json_b) = outs
    assert tex_a == tex_b and b"~s)" not in tex_a
    a, b = json.loads(json_a), json.loads(json_b)
    assert set(a["run"]) == {"seconds"} and a["run"]["seconds"] >= 0  # the timing is there, in its own block
    a.pop("run"), b.pop("run")
    assert a == b and '"seconds"' not in json.dumps(a)
    # the rest of the file is its JSON text minus the block: byte-identical apart from it
    strip = lambda t: [ln for ln in t.splitlines() if '"seconds"' not in ln]  # noqa: E731
    assert strip(json_a) == strip(json_b)


def test_zero_mechanism_lower_bound_says_why():
    """A claim whose mechanism lower end is 0 (the concrete pair's composed delta rounds down to 0 far below the
    claim) prints why there is none, not "Mechanism lower bound >= 0" (polish15)."""
    d = parse_deployment(BASE + '[[rounds]]\ncount = 3\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n')
    cert = certify(d, plot=False)
    c = cert["claims"][0]
    assert c["verdict"] == "HOLDS" and c["delta_lower"] == "0" and c["delta_lower_none"].startswith("none above 0")
    tex = render_tex(cert)
    assert "Mechanism lower bound & none above 0" in tex and "Mechanism lower bound & $\\ge 0$" not in tex
    # a positive lower end is printed as before, without the note
    d = parse_deployment(
        BASE.replace("2000", "100") + '[[rounds]]\ncount = 3\n[[claims]]\nepsilon = "0.1"\ndelta = 1e-6\n'
    )
    c = certify(d, plot=False)["claims"][0]
    assert c["verdict"] == "FAILS" and Fraction(c["delta_lower"]) > 0 and "delta_lower_none" not in c
