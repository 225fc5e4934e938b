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
        ({"epsilon0": "-1"}, ("--epsilon0", "mechanism.epsilon0", "epsilon0")),  # the [mechanism] table of _toml
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
    assert [e.name for e in errs] == ["--k", "mechanism.k", "k"]
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


# ---------------------------------------------------------------- the profiles and the accountant take the query
def _counting(monkeypatch, module, attr):
    calls = []
    real = getattr(module, attr)

    def wrapped(*a, **kw):
        calls.append(a)
        return real(*a, **kw)

    monkeypatch.setattr(module, attr, wrapped)
    return calls


def test_profiles_validate_once(monkeypatch):
    """A raw call parses its dataset once (the bracket's four inner evaluations do not validate again); a call
    with a query parses nothing.  Before the one validation, each inner evaluation re-parsed (five calls)."""
    from blanket.exact.accounting import profiles, query
    from blanket.exact.mechanisms.finite import KRR

    calls = _counting(monkeypatch, query, "parse_dataset")
    mech = KRR(3, exp_epsilon0=4)
    r = profiles.delta(mech, 30, exp_epsilon="3/2", dataset="bracket")
    assert r.relation == "bracket" and len(calls) == 1
    q = make_query(mechanism=mech, n=30, exp_epsilon="3/2", dataset="bracket")
    calls.clear()
    r2 = profiles.delta(q)
    assert calls == [] and (r2.value.mid(), r2.value.rad()) == (r.value.mid(), r.value.rad())  # the same ball
    calls.clear()
    e = profiles.epsilon(mech, 30, delta="1e-2", rel_tol="1e-3")  # k = 3, worst: the ε bracket, 4 calibrations
    assert e.relation == "bracket" and len(calls) == 1


def test_delta_from_a_query_matches_brute_force():
    """δ on c = INT by a query, against enumeration of the shuffled laws (exact rationals, both directions)."""
    from blanket.exact.accounting.profiles import delta
    from blanket.exact.mechanisms.finite import BinaryRR
    from blanket.exact.shuffled.bruteforce import delta_brute

    n, c = 6, 2
    q = make_query(mechanism="rr", exp_epsilon0="3", n=n, exp_epsilon="2", dataset=" C = 2 ")
    assert (q.dataset, q.dataset_kind, q.c) == ("c=2", "c", 2)
    r = delta(q)
    others = [1] * c + [0] * (n - 1 - c)
    mech = BinaryRR(exp_epsilon0=3)
    want = max(
        delta_brute(mech, others + [0], others + [1], exp_epsilon=2),
        delta_brute(mech, others + [1], others + [0], exp_epsilon=2),
    )
    assert r.value == want and r.dataset == "c=2" and r.relation == "lower"


def test_a_query_carries_its_arguments():
    from blanket.exact.accounting.profiles import delta, epsilon

    q = make_query(mechanism="rr", epsilon0="1", n=50, epsilon="1/2")
    with pytest.raises(InvalidArgument, match="^n must not be given with a Query"):
        delta(q, 50)
    with pytest.raises(InvalidArgument, match="^delta is required"):
        epsilon(q)  # the query has no target delta
    oue = make_query(mechanism="oue", k=4, epsilon0="1", n=50, epsilon="1/2")
    with pytest.raises(InvalidArgument, match="^mech .*must be k-ary randomized response"):
        delta(oue)
    with pytest.raises(InvalidArgument, match="^mech .*must be k-ary randomized response"):
        delta("rr", 50, epsilon="1/2")


def test_binary_only_dataset_same_words_everywhere(capsys):
    """c=INT on k-ary RR: one requirement text from the API, a query, the profiles and the command line."""
    from blanket.exact.accounting.profiles import delta, epsilon0
    from blanket.exact.mechanisms.finite import KRR
    from blanket.reports.cli import main

    errs = []
    for build in (
        lambda: make_query(mechanism="krr", k=3, epsilon0="1", n=10, epsilon="0.1", dataset="c=3"),
        lambda: delta(KRR(3, epsilon0="1"), 10, epsilon="0.1", dataset="c=3"),
        lambda: epsilon0(10, epsilon="0.1", delta="1e-3", k=3, dataset="c=3"),
        lambda: epsilon0(10, epsilon="0.1", delta="1e-3", k=3, dataset="worst"),
    ):
        with pytest.raises(InvalidArgument) as exc:
            build()
        errs.append(exc.value)
    assert {e.requirement for e in errs} == {"is only available for binary RR (k = 2), not k = 3"}
    assert {e.name for e in errs} == {"dataset"}
    argv = ["delta", "--mechanism", "krr", "--k", "3", "--epsilon0", "1", "-n", "10", "--epsilon", "0.1"]
    assert main([*argv, "--dataset", "c=3"]) == 2
    err = capsys.readouterr().err
    assert "--dataset is only available for binary RR (k = 2), not k = 3" in err and err.count("\n") == 1


def test_cli_missing_quantity_message_unchanged(capsys):
    from blanket.reports.cli import main

    assert main(["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "10"]) == 2
    assert "--epsilon is required (the central epsilon, >= 0)" in capsys.readouterr().err
    assert main(["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "10"]) == 2
    assert "--delta is required (the target delta, 0 < delta < 1)" in capsys.readouterr().err


def test_worst_case_note_is_the_note():
    """At a precision cap too low for the requested width, the worst case's note says why (it used to land in
    ``lower_bound``)."""
    from blanket.exact.accounting.profiles import delta
    from blanket.exact.mechanisms.finite import BinaryRR

    r = delta(BinaryRR(epsilon0="1"), 40, epsilon="1/10", dataset="worst", start_prec=16, cap=16)
    assert r.relation == "exact" and r.lower_bound is None
    assert "precision cap of 16 bits" in r.note


def test_accountant_takes_a_query():
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR

    q = make_query(mechanism="krr", k=3, epsilon0="1/2", n=200)
    assert ShuffledRR.from_query(q) == ShuffledRR(k=3, epsilon0="1/2", n=200)
    a = ShuffleAccountant().compose(q, count=2).get_epsilon("1e-5")
    b = ShuffleAccountant().compose(ShuffledRR(k=3, epsilon0="1/2", n=200), count=2).get_epsilon("1e-5")
    assert (a.lower, a.upper) == (b.lower, b.upper)
    ldp = make_query(mechanism="ldp", epsilon0="1", n=200)
    ev = Shuffled(ldp)
    assert ev.n == 200 and ev.mechanism is ldp.mechanism
    with pytest.raises(InvalidArgument, match="^n must not be given with a Query"):
        Shuffled(ldp, 200)


def test_missing_k_same_requirement_everywhere():
    """krr without k: the registry's one check answers the command line, a deployment file and the API."""
    errs = []
    for build in (
        lambda: _cli_query(["--mechanism", "krr"]),
        lambda: _toml_query('type = "krr"'),
        lambda: make_query(mechanism="krr", epsilon0="1", n=200, epsilon="1/2"),
    ):
        with pytest.raises(InvalidArgument) as exc:
            build()
        errs.append(exc.value)
    assert [e.name for e in errs] == ["--k", "mechanism.k", "k"]
    assert len({e.requirement for e in errs}) == 1
