"""Deployment files with [[users]] groups, colluding users and personalised ε0 (reports/fleet.py), and their
certificates (reports/fleet_certificate.py)."""

from __future__ import annotations

import math
import pathlib
import subprocess
import sys
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import fleet as F
from blanket.reports.certificate import certify
from blanket.reports.deployment import parse_deployment
from blanket.reports.fleet import parse_eps0_csv
from flint import fmpq

ROOT = pathlib.Path(__file__).resolve().parent.parent

TWO = """
name = "two versions"
[[users]]
n = 40
[users.mechanism]
type = "binary_rr"
exp_epsilon0 = "3"
[[users]]
n = 60
colluding = 2
[users.mechanism]
type = "binary_rr"
exp_epsilon0 = "2"
[[claims]]
epsilon = "{eps}"
delta = "{delta}"
"""


def test_groups_parsed_exactly() -> None:
    d = parse_deployment(TWO.format(eps="1/2", delta="1e-3"))
    assert [g.n for g in d.groups] == [40, 60]
    assert [g.colluding for g in d.groups] == [0, 2]
    assert d.groups[1].params["exp_epsilon0"] == fmpq(2)
    assert d.as_dict()["groups"][1]["colluding"] == 2


@pytest.mark.parametrize(
    "text,field",
    [
        (TWO.replace("[[users]]\nn = 40", "[mechanism]\ntype='rr'\nepsilon0=1\n[[users]]\nn = 40", 1), "mechanism"),
        (TWO.replace("n = 40", "n = 0"), r"users\[0\]\.n"),
        (TWO.replace("n = 40", "n = 40\nn_min = 50"), r"users\[0\]\.n"),
        (TWO.replace("n = 40", "n = 40\nsize = 3"), r"users\[0\]\.size"),
        (TWO.replace("colluding = 2", "colluding = 61"), r"users\[1\]\.colluding"),
        (TWO.replace("colluding = 2", "colluding = \"-1\""), r"users\[1\]\.colluding"),
        (TWO.replace("exp_epsilon0 = \"3\"", "exp_epsilon0 = \"1/2\""), r"users\[0\]\.mechanism\.exp_epsilon0"),
        ('colluding = 200\n' + TWO, "colluding"),
    ],
)
def test_bad_fleets_refused_by_name(text: str, field: str) -> None:
    with pytest.raises(InvalidArgument, match=f"^{field}"):
        parse_deployment(text.format(eps="1/2", delta="1e-3"))


def test_single_users_colluding_and_top_level_refused() -> None:
    base = 'name = "x"\n[mechanism]\ntype = "rr"\nexp_epsilon0 = "3"\n[users]\nn = 30\n{c}[[claims]]\nepsilon = "1/2"\ndelta = "0.01"\n'
    d = parse_deployment(base.format(c="colluding = \"0.1\"\n"))
    assert d.colluding == 3 and not d.groups
    with pytest.raises(InvalidArgument, match="^users.colluding"):
        parse_deployment(base.format(c="colluding = 30\n"))
    with pytest.raises(InvalidArgument, match="^colluding"):
        parse_deployment("colluding = 2\n" + base.format(c=""))


def test_eps0_csv_and_list() -> None:
    rows = parse_eps0_csv("epsilon0,count\n1,4\n# note\n2,6\n", "f")
    assert [(e, c) for e, c, _ in rows] == [(fmpq(1), 4), (fmpq(2), 6)]
    for bad, where in (("1,2,3\n", "row 1"), ("x,4\n", "row 1 epsilon0"), ("1,0\n", "row 1 count"), ("", "f")):
        with pytest.raises(InvalidArgument, match=where):
            parse_eps0_csv(bad, "f")
    text = (
        'name = "p"\n[[users]]\nepsilon0_list = ["1", "1", "2", "0.5"]\n[users.mechanism]\ntype = "krr"\nk = 3\n'
        '[[claims]]\nepsilon = "1"\ndelta = "0.5"\n'
    )
    d = parse_deployment(text)
    assert sorted((g.params["epsilon0"], g.n) for g in d.groups) == [(fmpq(1, 2), 1), (fmpq(1), 2), (fmpq(2), 1)]
    with pytest.raises(InvalidArgument, match=r"^users\[0\]\.mechanism\.epsilon0"):
        parse_deployment(text.replace('k = 3', 'k = 3\nepsilon0 = "1"'))


def test_certificate_matches_the_engine() -> None:
    """HOLDS just above the certified view, FAILS just below the concrete-dataset lower end (engine called directly)."""
    eps = "0.4"
    up = F.delta_fleet_colluding([(40, KRR(2, exp_epsilon0=3)), (60, KRR(2, exp_epsilon0=2))], 0, epsilon=eps)
    # group 1's 2 colluders: the honest fleet is 40 + 58 users
    lo = F.delta_fleet_dataset([(40, KRR(2, exp_epsilon0=3)), (58, KRR(2, exp_epsilon0=2))], epsilon=eps)
    up_q = arith.endpoints(up)[1]
    lo_q = arith.endpoints(lo)[0]
    hi_delta = fmpq(math.ceil(up_q * 10**6) + 10, 10**6)
    cert = certify(parse_deployment(TWO.format(eps=eps, delta=str(hi_delta))), plot=False)
    assert cert["verdict"] == "HOLDS"
    assert cert["fleet"]["honest_users"] == 98
    lo_delta = fmpq(math.floor(lo_q * 10**6) - 10, 10**6)
    assert lo_delta > 0
    cert = certify(parse_deployment(TWO.format(eps=eps, delta=str(lo_delta))), plot=False)
    assert cert["verdict"] == "FAILS"
    assert "98 honest users" in cert["statement"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "blanket.reports.cli", *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )


def test_cli_small_fleet_and_bad_input(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture) -> None:
    from blanket.reports.cli import main

    good = tmp_path / "fleet.toml"
    good.write_text(TWO.format(eps="1/2", delta="0.3"))
    assert main(["certify", str(good), "-o", str(tmp_path / "c"), "--no-pdf", "--no-plot"]) == 0
    assert "98 honest users" in capsys.readouterr().out
    assert main(["delta", "--deployment", str(good), "--epsilon", "0.5"]) == 2
    assert "--deployment" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_bad_fleet_one_line(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(TWO.format(eps="1/2", delta="0.3") + '\n[mechanism]\ntype = "rr"\n')
    r = _cli("certify", str(bad), "-o", str(tmp_path / "d"), "--no-pdf")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "mechanism" in r.stderr


@pytest.mark.slow
def test_example_certifies(tmp_path: pathlib.Path) -> None:
    r = _cli("certify", str(ROOT / "examples" / "mixed_fleet.toml"), "-o", str(tmp_path / "c"), "--no-pdf", "--no-plot")
    assert r.returncode == 0, r.stderr
    assert "999900 honest users" in r.stdout


def test_eps0_csv_file_read_and_hashed(tmp_path: pathlib.Path) -> None:
    from blanket.reports.deployment import load_deployment

    (tmp_path / "e.csv").write_text("epsilon0,count\n1,40\n2,60\n")
    toml = tmp_path / "p.toml"
    toml.write_text(
        'name = "p"\n[[users]]\nepsilon0_counts = "e.csv"\n[users.mechanism]\ntype = "krr"\nk = 4\n'
        '[[claims]]\nepsilon = "1"\ndelta = "0.2"\n'
    )
    d = load_deployment(toml)
    assert sorted((g.params["epsilon0"], g.n) for g in d.groups) == [(fmpq(1), 40), (fmpq(2), 60)]
    (tmp_path / "e.csv").write_text("epsilon0,count\n1,41\n2,60\n")
    assert load_deployment(toml).sha256 != d.sha256
    toml.write_text(toml.read_text().replace('"e.csv"', '"../e.csv"'))
    with pytest.raises(InvalidArgument, match=r"^users\[0\]\.epsilon0_counts"):
        load_deployment(toml)


def test_fleet_certificate_picture(tmp_path: pathlib.Path) -> None:
    """A one-round fleet certificate has a picture: at every ε of its grid the upper line is the certified view
    (at least the engine's concrete-dataset lower end there) and lies above the lower line; the claim is a marker;
    the PNG is written beside the certificate."""
    from blanket.reports.certificate import write

    cert = certify(parse_deployment(TWO.format(eps="1/2", delta="0.3")))
    pic = cert["_picture"]
    up, lo, xs = pic["upper"]["delta"], pic["lower"]["delta"], pic["upper"]["eps"]
    assert len(xs) >= 9 and any(v is not None for v in lo)
    for u, lw in zip(up, lo):
        assert u is not None and (lw is None or lw <= u)
    # an independent point: the engine's concrete-dataset lower end at ε = 1/4 lies below the picture's upper line
    i = min(range(len(xs)), key=lambda j: abs(xs[j] - 0.25))
    e = arith.exact(str(fmpq(round(xs[i] * 10**6), 10**6)))
    low = F.delta_fleet_dataset([(40, KRR(2, exp_epsilon0=3)), (58, KRR(2, exp_epsilon0=2))], epsilon=e)
    assert float(arith.endpoints(arith.ball(low))[0]) <= up[i] * (1 + 1e-9) + 1e-12
    assert any("claim 1" in m["label"] for m in pic["markers"])
    write(cert, tmp_path / "c", pdf=False)
    assert (tmp_path / "c" / "certificate-curve.png").stat().st_size > 1000
    assert "certificate-curve.png" in (tmp_path / "c" / "certificate.tex").read_text()


KRR3 = """
name = "two versions, 3-RR"
[[users]]
n = 12
[users.mechanism]
type = "krr"
k = 3
exp_epsilon0 = "5"
[[users]]
n = 10
[users.mechanism]
type = "krr"
k = 3
exp_epsilon0 = "2"
[[claims]]
epsilon = "{eps}"
delta = "{delta}"
"""


def test_krr3_fleet_certificate_names_the_deciding_bound_and_both_lower_ends() -> None:
    """A 3-RR fleet: the claim's route names the upper candidate that decided (Lemma F1 vs F7), the chain carries the
    two-count lower pair (Lemma F8), and the FAILS side rests on the larger of the two lower ends."""
    from blanket.exact.shuffled import fleet_clones as FC
    from blanket.exact.shuffled import fleet_lower as FL

    groups = [(12, KRR(3, exp_epsilon0=5)), (10, KRR(3, exp_epsilon0=2))]
    eps = "0.2"
    up, name = FC.delta_fleet_upper(groups, epsilon=eps)
    lo = arith.maximum([F.delta_fleet_dataset(groups, epsilon=eps), FL.delta_fleet_two_counts(groups, epsilon=eps)])
    up_hi, lo_lo = arith.endpoints(up)[1], arith.endpoints(lo)[0]
    assert 0 < lo_lo <= up_hi
    cert = certify(
        parse_deployment(KRR3.format(eps=eps, delta=str(Fraction(up_hi) * Fraction(1001, 1000)))), plot=False
    )
    sh = cert["claims"][0]["shuffles"][0]
    assert cert["verdict"] == "HOLDS" and sh["upper_decided_by"] == name
    assert "Fleet two-count lower pair" in [c["key"] for c in cert["chain"]]
    cert = certify(parse_deployment(KRR3.format(eps=eps, delta=str(Fraction(lo_lo) * Fraction(999, 1000)))), plot=False)
    assert cert["verdict"] == "FAILS"
    # the two-count lower end decides here: the one-count pair alone is below this δ
    assert arith.endpoints(F.delta_fleet_dataset(groups, epsilon=eps))[1] < Fraction(lo_lo) * Fraction(999, 1000)
