"""One validated query: the CLI, a deployment TOML and the API build the same record with the same errors."""

from __future__ import annotations

import pytest
from blanket.exact.accounting.query import Query, make_query
from blanket.exact.mechanisms.registry import Kind
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.cli import build_parser
from blanket.reports.commands import _profile_common as common
from blanket.reports.deployment import parse_deployment
from flint import fmpq

CASES = [
    # (CLI options, TOML [mechanism] lines, API keywords)
    (["--mechanism", "oue", "--k", "8"], 'type = "oue"\nk = 8', {"mechanism": "oue", "k": 8}),
    (["--mechanism", "ldp"], 'type = "ldp"', {"mechanism": "ldp"}),
    (
        ["--mechanism", "olh", "--k", "16", "--g", "3"],
        'type = "olh"\nk = 16\ng = 3',
        {"mechanism": "olh", "k": 16, "g": 3},
    ),
    (
        ["--mechanism", "subset", "--k", "6", "--d", "2"],
        'type = "subset"\nk = 6\nd = 2',
        {"mechanism": "subset", "k": 6, "d": 2},
    ),
    (["--mechanism", "hadamard", "--k", "5"], 'type = "hadamard"\nk = 5', {"mechanism": "hadamard", "k": 5}),
    (["--mechanism", "sue", "--k", "4"], 'type = "sue"\nk = 4', {"mechanism": "sue", "k": 4}),
    (["--mechanism", "krr", "--k", "3"], 'type = "krr"\nk = 3', {"mechanism": "krr", "k": 3}),
    (["--mechanism", "binary"], 'type = "binary"', {"mechanism": "binary"}),
    (["--mechanism", "rr"], 'type = "rr"', {"mechanism": "rr"}),
]


def _cli_query(opts, *, epsilon0="1", n="200", epsilon="1/2") -> Query:
    args = build_parser().parse_args(["delta", *opts, "--epsilon0", epsilon0, "-n", n, "--epsilon", epsilon])
    return common.read_inputs(args, "epsilon", need_mechanism=True).query


def _toml(lines, *, epsilon0="1", n="200") -> str:
    return (
        f'name = "q"\n[mechanism]\n{lines}\nepsilon0 = "{epsilon0}"\n[users]\nn = {n}\n'
        '[[claims]]\nepsilon = "1/2"\ndelta = "1e-6"\n'
    )


def _toml_query(lines, **kw) -> Query:
    dep = parse_deployment(_toml(lines, **kw))
    return dep.query(epsilon=dep.claims[0].epsilon)


def _same(a: Query, b: Query):
    assert (a.kind, dict(a.params), a.n, a.epsilon, a.delta, a.dataset) == (
        b.kind,
        dict(b.params),
        b.n,
        b.epsilon,
        b.delta,
        b.dataset,
    )
    assert type(a.mechanism) is type(b.mechanism)
    if hasattr(a.mechanism, "gamma") and a.kind is not Kind.LDP:
        from blanket.exact.numbers import arith

        with arith.precision(128):
            assert a.mechanism.gamma().overlaps(b.mechanism.gamma())


@pytest.mark.parametrize("opts, lines, api", CASES, ids=[c[2]["mechanism"] for c in CASES])
def test_three_entry_points_give_the_same_record(opts, lines, api):
    q_cli = _cli_query(opts)
    q_toml = _toml_query(lines)
    q_api = make_query(**api, epsilon0="1", n=200, epsilon="1/2")
    _same(q_cli, q_api)
    _same(q_toml, q_api)
    assert q_api.epsilon == fmpq(1, 2) and q_api.n == 200


def _errors(opts, lines, api, **bad):
    out = []
    for build in (
        lambda: _cli_query(opts, **bad),
        lambda: _toml_query(lines, **bad),
        lambda: make_query(**api, **{"epsilon0": "1", "n": 200, "epsilon": "1/2", **bad}),
    ):
        with pytest.raises(InvalidArgument) as exc:
            build()
        out.append(exc.value)
    return out


@pytest.mark.parametrize(
    "bad, names",
    [
        ({"epsilon0": "-1"}, ("--epsilon0", "randomizer.epsilon0", "epsilon0")),
        ({"n": "1"}, ("-n", "users.n", "n")),
    ],
)
def test_same_error_text_from_every_entry_point(bad, names):
    errs = _errors(["--mechanism", "oue", "--k", "8"], 'type = "oue"\nk = 8', {"mechanism": "oue", "k": 8}, **bad)
    assert len({e.requirement for e in errs}) == 1, [str(e) for e in errs]
    assert tuple(e.name for e in errs) == names


def test_same_error_for_an_out_of_range_key():
    errs = []
    with pytest.raises(InvalidArgument) as exc:
        _cli_query(["--mechanism", "olh", "--k", "1", "--g", "3"])
    errs.append(exc.value)
    with pytest.raises(InvalidArgument) as exc:
        _toml_query('type = "olh"\nk = 1\ng = 3')
    errs.append(exc.value)
    with pytest.raises(InvalidArgument) as exc:
        make_query(mechanism="olh", k=1, g=3, epsilon0="1", n=200, epsilon="1/2")
    errs.append(exc.value)
    assert [e.name for e in errs] == ["--k", "randomizer.k", "k"]
    assert len({e.requirement for e in errs}) == 1


def test_unknown_word_same_requirement_and_suggestion():
    msgs = []
    with pytest.raises(SystemExit):  # argparse: one line, exit 2
        build_parser().parse_args(["delta", "--mechanism", "hadamrd"])
    with pytest.raises(InvalidArgument) as exc:
        _toml_query('type = "hadamrd"\nk = 3')
    msgs.append(exc.value)
    with pytest.raises(InvalidArgument) as exc:
        make_query(mechanism="hadamrd", k=3, epsilon0="1", n=200, epsilon="1/2")
    msgs.append(exc.value)
    assert len({(e.requirement, e.hint) for e in msgs}) == 1
    assert msgs[0].hint == "did you mean 'hadamard'?"


def test_cli_prints_one_line_for_an_unknown_word(capsys):
    from blanket.reports.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["delta", "--mechanism", "hadamrd", "--epsilon0", "1", "-n", "10", "--epsilon", "0.1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'hadamard'?" in err


def test_oracle_datasets_are_checked():
    with pytest.raises(InvalidArgument, match="dataset must be one of worst, bracket, blanket, same"):
        make_query(mechanism="ldp", epsilon0="1", n=10, epsilon="0", dataset="c=3")
