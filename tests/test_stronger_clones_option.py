"""The SODA 2023 stronger clones as a deployment option of a ``matrix`` randomizer (``stronger_clones = true``, issue 25).

The option's condition is checked on the exact matrix when the deployment is read (refused by name, one line, exit 2,
when it fails); the source it adds to a certificate is checked against the exhaustive worst case over all datasets
(exact rationals, exact.shuffled.enumerate), an independent route.
"""

from __future__ import annotations

import pytest
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.enumerate import worst_case
from blanket.reports.claims import sources
from blanket.reports.deployment import parse_deployment
from flint import fmpq

from tests._helpers import run_cli

#: satisfies R(x)(y)·(e + 1) >= R(x0)(y) + R(x1)(y) (e^eps0 = 2) and is not k-RR
GOOD = '[["1/2", "1/3", "1/6"], ["1/3", "1/2", "1/6"], ["1/3", "1/3", "1/3"]]'
#: output 0 is favoured by inputs 0 and 1 but not by 2: (1/5)·3 < 2/5 + 2/5
BAD = '[["2/5", "2/5", "1/5"], ["2/5", "1/5", "2/5"], ["1/5", "2/5", "2/5"]]'


def _toml(matrix: str, option: str = "true", n: int = 4) -> str:
    return f"""
name = "stronger clones"
[mechanism]
type = "matrix"
matrix = {matrix}
stronger_clones = {option}
[users]
n = {n}
[[claims]]
epsilon = "0.5"
delta = "0.1"
"""


@pytest.mark.parametrize("n", [3, 4])
def test_the_option_adds_a_source_above_the_exhaustive_worst_case(n):
    dep = parse_deployment(_toml(GOOD, n=n))
    assert dep.params["stronger_clones"] is True
    mech = dep.build_mechanism()
    src = {s.key: s for s in sources(dep, mech)}
    assert "stronger-clones" in src and src["stronger-clones"].role == "upper"
    for eps in (fmpq(0), fmpq(1, 10), fmpq(1, 2)):
        up, _ = src["stronger-clones"].compute(eps)
        worst = worst_case(FiniteRandomizer(mech.matrix()), n, epsilon=eps).value
        assert arith.le(worst, up) is True


def test_without_the_option_no_source():
    dep = parse_deployment(_toml(GOOD, option="false"))
    assert "stronger-clones" not in {s.key for s in sources(dep, dep.build_mechanism())}


def test_outside_the_class_is_refused_by_name():
    with pytest.raises(InvalidArgument, match="stronger_clones") as ei:
        parse_deployment(_toml(BAD))
    assert ei.value.name == "mechanism.stronger_clones" and "output 0" in ei.value.requirement
    with pytest.raises(InvalidArgument, match="true or false"):
        parse_deployment(_toml(GOOD, option='"yes"'))
    with pytest.raises(InvalidArgument, match="stronger_clones"):  # not a key of the other kinds
        parse_deployment(
            _toml(GOOD).replace('type = "matrix"\nmatrix = ' + GOOD, 'type = "oue"\nk = 4\nepsilon0 = "1"')
        )


def test_cli_refusal_is_one_line_exit_2(tmp_path):
    (tmp_path / "bad.toml").write_text(_toml(BAD))
    r = run_cli(f"certify {tmp_path / 'bad.toml'} -o {tmp_path / 'out'} --no-pdf --no-plot")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "mechanism.stronger_clones" in r.stderr
