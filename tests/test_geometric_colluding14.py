"""Geometric m = 2 with colluding users (task bounded14, item 2).  Session 13: a one-round geometric m = 2 deployment
with ``colluding`` went down the fleet path and was refused with "options.target_delta is supported for k-RR shuffles
only in a fleet yet, got 'given'", and a ``[[rounds]]`` one was refused as a record round that assumes every user
honest, while the same file written as ``binary_rr`` is certified.  m = 2 is binary RR (the same 2 x 2 matrix,
registered 'Geometric m = 2 is binary RR'), so the two files must give the same numbers; the certificate names the
identity.  Independent route: the ``binary_rr`` file, certified by the unchanged binary RR path."""

from __future__ import annotations

import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.certificate import certify
from blanket.reports.deployment import Round, parse_deployment, with_overrides

GEOMETRIC = 'type = "geometric"\nm = 2\nepsilon0 = "1"'
BINARY = 'type = "binary_rr"\nepsilon0 = "1"'


def _file(mechanism: str, *, n: int = 40, colluding: int | None = 4, rounds: str = "", users: str = "") -> str:
    col = "" if colluding is None else f"colluding = {colluding}\n"
    return (
        f'name = "m2"\nneighbouring = "replace-one"\n\n[mechanism]\n{mechanism}\n\n[users]\nn = {n}\n{col}{users}\n'
        f'{rounds}\n[[claims]]\nepsilon = "1"\ndelta = "1e-6"\n\n[options]\ntarget_delta = "1e-6"\n'
    )


def _numbers(cert: dict) -> tuple:
    return (
        cert["verdict"],
        [(c["verdict"], c["reason"]) for c in cert["claims"]],
        [(t["epsilon_upper"], t["epsilon_lower"]) for t in cert["targets"]],
    )


def _keys(cert: dict) -> list:
    return [c.get("key") for c in cert["chain"]]


def test_one_round_is_binary_rr_with_colluding_users() -> None:
    geo = certify(parse_deployment(_file(GEOMETRIC)), plot=False)
    rr = certify(parse_deployment(_file(BINARY)), plot=False)
    assert _numbers(geo) == _numbers(rr)
    assert geo["targets"][0]["epsilon_upper"] is not None
    assert geo["deployment"]["mechanism"] == "geometric" and geo["deployment"]["colluding"] == 4
    assert "Geometric m = 2 is binary RR" in _keys(geo) and "Geometric m = 2 is binary RR" not in _keys(rr)
    assert "certified as binary randomized response" in geo["mechanism_text"]
    assert "36 honest users" in geo["statement"]


@pytest.mark.parametrize("extra", [{"rounds": "[[rounds]]\ncount = 2\n"}, {"users": 'sampling = "1/2"\n'}])
def test_rounds_are_binary_rr_with_colluding_users(extra: dict) -> None:
    geo = certify(parse_deployment(_file(GEOMETRIC, n=20, **extra)), plot=False)
    rr = certify(parse_deployment(_file(BINARY, n=20, **extra)), plot=False)
    assert _numbers(geo) == _numbers(rr)
    assert "Geometric m = 2 is binary RR" in _keys(geo) and "Geometric m = 2 is binary RR" not in _keys(rr)
    assert "the geometric mechanism with m = 2" in geo["statement"]
    assert "16 honest users" in geo["statement"]


def test_colluding_from_the_command_line_option() -> None:
    dep = parse_deployment(_file(GEOMETRIC, n=20, colluding=None, rounds="[[rounds]]\ncount = 2\n"))
    (r,) = with_overrides(dep, colluding="4").rounds
    assert isinstance(r, Round) and r.k == 2 and r.geometric and r.colluding == 4 and r.n == 20


def test_alpha_is_refused_by_name() -> None:
    text = _file('type = "geometric"\nm = 2\nalpha = "1/3"', rounds="[[rounds]]\ncount = 2\n")
    with pytest.raises(InvalidArgument, match=r"users\.colluding needs rounds\[0\]'s geometric m = 2 .*epsilon0"):
        parse_deployment(text)


def test_target_delta_refusal_names_the_option_and_what_to_do() -> None:
    text = _file('type = "geometric"\nm = 3\nepsilon0 = "1"')
    with pytest.raises(InvalidArgument) as e:
        certify(parse_deployment(text), plot=False)
    msg = str(e.value)
    assert msg.startswith("options.target_delta is supported only when every shuffle is k-ary randomized response")
    assert "is geometric" in msg and "state [[claims]]" in msg and "yet" not in msg
