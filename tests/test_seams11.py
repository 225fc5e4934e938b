"""Seams of session 11 (task seams11): a rounds certificate's JSON describes each round's own randomizer; a sampled
matrix round has a concrete lower pair (checked against the exhaustive worst case at tiny n, exact rationals) and
``[users] sampling`` accepts what ``--sampling`` accepts; the FOCS 2021 clone pair is a registry entry named in the
chain of the rounds that compose it."""

import dataclasses
import itertools
import pathlib
import shutil
from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
M3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]]  # examples/matrix_3x3.csv


def _dep(tmp_path, body: str, name: str = "d.toml"):
    from blanket.reports.deployment import load_deployment

    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    p = tmp_path / name
    p.write_text('name = "x"\n' + body + "[[claims]]\nepsilon = 2\ndelta = 1e-6\n[[targets]]\ndelta = 1e-6\n")
    return load_deployment(p)


# ---------------------------------------------------------------- item 1: each round's own randomizer in the JSON
def test_rounds_json_describes_each_round(tmp_path):
    from blanket.reports.composition import certify_composition

    dep = _dep(
        tmp_path,
        '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n[[rounds]]\ncount = 2\n'
        '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\ncount = 1\n',
    )
    cert = certify_composition(dep, plot=False, curves=False)
    d = cert["deployment"]
    assert d["mechanism"] == "binary_rr" and "default of the [[rounds]] entries" in d["mechanism_scope"]
    assert [r["mechanism"] for r in d["rounds"]] == ["krr", "matrix"]
    assert d["rounds"][0]["k"] == 2 and d["rounds"][1]["matrix"][2] == ["1/6", "1/3", "0.5"]
    rows = cert["composition"]["rounds"]
    assert [r["mechanism"] for r in rows] == ["krr", "matrix"]
    assert rows[0]["text"] == "2 x binary randomized response (epsilon0 = 1, n = 200)"
    assert rows[1]["text"].startswith("1 x the finite randomizer of an exact 3 x 3 matrix (matrix_3x3.csv)")
    assert "clone pair" in rows[1]["pair"] and "clone pair" not in rows[0]["pair"]
    # a deployment of one randomizer: the field describes every user's
    one = _dep(tmp_path, '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n', "one.toml")
    assert one.as_dict()["mechanism_scope"] == "every user's randomizer" and "rounds" not in one.as_dict()


# ---------------------------------------------------------------- item 2: the sampled matrix round's lower pair
def _sampled_rows(q: Fraction, rows: list = M3) -> list:
    """``R_q``: each row times q and a last column (no report) of mass 1 - q."""
    return [[q * Fraction(str(v)) for v in row] + [1 - q] for row in rows]


def _laws(rows: list, users: list) -> dict:
    """Exact histogram law of the shuffled reports (naive enumeration of every report vector)."""
    law: dict = {}
    for ys in itertools.product(range(len(rows[0])), repeat=len(users)):
        pr = Fraction(1)
        for u, y in zip(users, ys):
            pr *= rows[u][y]
        if pr:
            h = tuple(ys.count(y) for y in range(len(rows[0])))
            law[h] = law.get(h, 0) + pr
    return law


def _hockey(p: dict, q: dict, alpha: Fraction) -> Fraction:
    return sum((max(v - alpha * q.get(k, 0), Fraction(0)) for k, v in p.items()), Fraction(0))


def _worst(rows: list, n: int, alphas: list) -> list:
    """The exhaustive worst H_alpha over every neighbouring dataset pair (both orders), exact."""
    k = len(rows)
    pairs = [
        (_laws(rows, list(o) + [x]), _laws(rows, list(o) + [x2]))
        for o in itertools.combinations_with_replacement(range(k), n - 1)
        for x, x2 in itertools.permutations(range(k), 2)
    ]
    return [max(_hockey(a, b, al) for a, b in pairs) for al in alphas]


def _fr(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _cases():
    from blanket.exact.mechanisms import oracles

    oue = oracles.OUE(3, exp_epsilon0=3)
    rr = [["3/4", "1/4"], ["1/4", "3/4"]]  # binary RR, e^eps0 = 3: a member of the ldp class
    return [
        ("matrix", FiniteRandomizer(M3), M3, Fraction(1, 2)),
        ("matrix", FiniteRandomizer(M3), M3, Fraction(1, 5)),
        ("oue", oue, oue.matrix().matrix(), Fraction(1, 3)),
        ("ldp", oracles.LDP(exp_epsilon0=3), rr, Fraction(1, 2)),
    ]


@pytest.mark.parametrize("case", range(4))
def test_sampled_lower_pair_is_below_the_exhaustive_worst_case(case):
    """A sampled matrix / oracle / ldp round's concrete lower pair (and the accountant's composed lower end) lies
    below the exhaustive worst case of the sampled randomizer R_q (for ldp: of binary RR's, one member of the class),
    by naive enumeration in exact rationals, n = 3, and is > 0."""
    _name, mech, rows, q = _cases()[case]
    n = 3
    ev = Sampled(Shuffled(mech, n), str(q))
    rq = _sampled_rows(q, rows)
    alphas = [Fraction(1), Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(3)]
    worst = _worst(rq, n, alphas)
    for direction in ("forward", "backward"):
        pr = ev.lower_pair(direction)
        assert pr is not None and "participation q = " + str(q) in pr.description
        P = {key: _fr(a) for key, a, _b in pr.atoms()}
        Q = {key: _fr(b) for key, _a, b in pr.atoms()}
        assert sum(P.values()) == 1 and sum(Q.values()) == 1
        vals = [_hockey(P, Q, al) for al in alphas]
        assert vals[0] > 0  # a real lower end
        assert all(v <= w for v, w in zip(vals, worst))
    # the accountant's composed lower end (optimistic PLD or summed count): > 0, below its own upper end and below the
    # exact worst delta(1/4): H at the rational lower end of e^{1/4} (a ball) bounds it above (H is non-increasing in
    # alpha)
    # (ldp: its lower end also composes 3-RR's sampled third-value pair, session 13, so the member whose worst case
    # bounds it is binary RR or 3-RR with the same e^eps0: the larger of the two)
    d = ShuffleAccountant(curves=False).compose(ev).get_delta("1/4")
    assert 0 < d.lower <= d.upper
    ee_lo = arith.endpoints(arb(fmpq(1, 4)).exp())[0]
    members = [rq]
    if _name == "ldp":
        t = Fraction(1, 5)  # 3-RR, e^eps0 = 3: 3/5 on the diagonal, 1/5 elsewhere
        members.append(_sampled_rows(q, [[3 * t if i == j else t for j in range(3)] for i in range(3)]))
    assert d.lower <= max(_worst(m, n, [ee_lo])[0] for m in members)


def test_sampled_matrix_bracket_at_scale_is_a_real_bracket():
    acc = ShuffleAccountant(curves=False).compose(Sampled(Shuffled(FiniteRandomizer(M3), 10000), "1/10"), count=3)
    e = acc.get_epsilon("1e-6")
    assert 0 < e.lower <= e.upper  # (before: the round was left out of the lower end, which was 0)
    from blanket.reports.composition import lower_source

    assert "participation q = 1/10" in lower_source(acc, e.details.get("lower_pair"))


def test_users_sampling_accepts_what_the_option_accepts(tmp_path):
    from blanket.reports.deployment import RecordRound, with_overrides

    body = '[mechanism]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\n[users]\nn = 2000\n'
    in_file = _dep(tmp_path, body.replace("n = 2000\n", 'n = 2000\nsampling = "1/10"\n'), "f.toml")
    by_option = with_overrides(_dep(tmp_path, body, "o.toml"), sampling="1/10")
    for dep in (in_file, by_option):
        (r,) = dep.rounds
        assert isinstance(r, RecordRound) and r.kind == "matrix" and r.sampling == fmpq(1, 10)
        assert isinstance(r.event(), Sampled) and r.event().lower_pair() is not None
    assert in_file.rounds[0].event() is by_option.rounds[0].event()  # one cached record: the same round
    # a record and ldp too; the Laplace randomizer is refused the same way by both, naming the option or field
    oue = _dep(
        tmp_path, '[mechanism]\ntype = "oue"\nk = 4\nepsilon0 = 1\n[users]\nn = 100\nsampling = "0.5"\n', "u.toml"
    )
    assert oue.rounds[0].kind == "oue"
    ldp = _dep(tmp_path, '[mechanism]\ntype = "ldp"\nepsilon0 = 1\n[users]\nn = 100\nsampling = "0.5"\n', "l.toml")
    assert ldp.rounds[0].ldp and ldp.rounds[0].sampling == fmpq(1, 2)
    lap = '[mechanism]\ntype = "laplace"\nepsilon0 = 1\n[users]\nn = 100\n'
    with pytest.raises(InvalidArgument) as e1:
        _dep(tmp_path, lap.replace("n = 100\n", 'n = 100\nsampling = "0.5"\n'), "a.toml")
    with pytest.raises(InvalidArgument) as e2:
        with_overrides(_dep(tmp_path, lap, "b.toml"), sampling="0.5")
    assert str(e1.value).startswith("users.sampling is not supported for laplace")
    assert str(e2.value).startswith("--sampling is not supported for laplace")
    # colluders need every round's pair to rest on honest users: refused for a matrix
    with pytest.raises(InvalidArgument, match="users.colluding"):
        _dep(tmp_path, body.replace("n = 2000\n", 'n = 2000\nsampling = "0.1"\ncolluding = 3\n'), "c.toml")


# ---------------------------------------------------------------- item 3: the clone pair in the registry and chain
def test_clone_pair_is_registered_with_a_check_that_can_fail(monkeypatch):
    from blanket.exact.accounting import pairs
    from blanket.proofs import composition as comp
    from blanket.proofs.core import get

    r = get("FMT21 clone pair")
    assert r is comp.CLONE_PAIR and r.status == "uncertain" and "beyond.md §1" in r.spec
    assert r.symbolic(r).proved is None  # instances, passing
    true_pair = pairs.clone_pair

    def every_user_a_clone(mech, n):  # too much noise: binary RR's worst case lies above this pair
        return dataclasses.replace(true_pair(mech, n), outer_q=fmpq(1))

    monkeypatch.setattr(pairs, "clone_pair", every_user_a_clone)
    assert r.symbolic(r).proved is False


def _chain(dep):
    from blanket.reports.composition import certify_composition

    return {e["key"]: e for e in certify_composition(dep, plot=False, curves=False)["chain"]}


def test_chain_names_the_clone_pair_for_the_rounds_that_compose_it(tmp_path):
    head = '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n'
    oue = _chain(_dep(tmp_path, head + '[[rounds]]\ntype = "oue"\nk = 4\nepsilon0 = 1\ncount = 2\n'))
    assert oue["FMT21 clone pair"]["used_for"].startswith("optimized unary encoding (OUE)")
    sampled = _chain(
        _dep(tmp_path, head + '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\nsampling = "1/2"\n')
    )
    assert "participation q = 1/2" in sampled["FMT21 clone pair"]["used_for"]
    assert "Matrix binarized lower pair" in sampled
    assert "Sampled blanket view dominating pair" not in sampled  # that statement is k-RR's
    rr = _chain(_dep(tmp_path, head + '[[rounds]]\ncount = 2\nsampling = "1/2"\n'))
    assert "FMT21 clone pair" not in rr and "Sampled blanket view dominating pair" in rr


def test_sampled_record_round_cost_model_counts_no_curve_sweep():
    """A sampled matrix / oracle round never composes the plain round's curve pair: it composes the clone pair and
    (task sampled11) the curve pair of R_q, so its estimate (a model, machine-independent) is the plain round of
    R_q's."""
    from blanket.exact.accounting.sampled import SampledFourValue, sampled_randomizer
    from blanket.exact.mechanisms import oracles

    for mech in (FiniteRandomizer(M3), oracles.OUE(16, epsilon0=2)):
        plain = ShuffleAccountant().compose(Shuffled(mech, 100000), count=10).estimate(fresh=True)
        sampled = ShuffleAccountant().compose(Sampled(Shuffled(mech, 100000), "1/10"), count=10).estimate(fresh=True)
        assert plain.curves > 0 and sampled.sweep == 0 and sampled.pld > 0
        rq_mech = (
            sampled_randomizer(mech, "1/10") if isinstance(mech, FiniteRandomizer) else SampledFourValue(mech, "1/10")
        )
        rq = Shuffled(rq_mech, 100000)
        assert sampled.curves == ShuffleAccountant().compose(rq, count=10).estimate(fresh=True).curves > 0


def test_matrix_only_chain_does_not_name_binary_rrs_summed_pair(tmp_path):
    """A deployment of matrix rounds only: its summed counts rest on the matrix binarized statement, so the chain names
    that one and not binary RR's summed-count pair (which a binary RR round beside it brings back)."""
    head = '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n'
    matrix = '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\ncount = 2\n'
    only = _chain(_dep(tmp_path, head + matrix))
    assert "Matrix binarized lower pair" in only and "Binary RR summed-count lower pair" not in only
    both = _chain(_dep(tmp_path, head + matrix + "[[rounds]]\ncount = 2\n", "b.toml"))
    assert "Matrix binarized lower pair" in both and "Binary RR summed-count lower pair" in both


def test_one_round_clone_routes_cite_the_clone_pair():
    """The one-round clone-pair routes (the pair's H and its Rényi route) rest on FMT21's reduction: they cite the
    registry entry, which a certificate's chain then lists when such a route decides an end."""
    from blanket.exact.accounting import certified
    from blanket.exact.mechanisms import oracles
    from blanket.proofs.core import lookup

    routes = {r.name: r for r in certified.upper_routes(oracles.OUE(4, epsilon0=1), 100)}
    for name in (certified.CLONE, certified.RENYI):
        assert "FMT21 clone pair" in routes[name].results and "FO clone identity" in routes[name].results
    assert lookup("FMT21 clone pair") is not None


def test_epsilon_sampling_option_replaces_a_users_sampled_round(tmp_path, capsys):
    """``blanket epsilon --deployment FILE --sampling Q`` on a file whose one round is ``sampling`` in [users] answers
    for Q, as the file with ``sampling = Q`` does (and as ``certify --sampling`` does); a real schedule still refuses."""
    import json

    from blanket.reports.cli import main

    body = '[mechanism]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\n[users]\nn = 2000\nsampling = "{q}"\n'
    _dep(tmp_path, body.format(q="0.1"), "a.toml")
    _dep(tmp_path, body.format(q="0.2"), "b.toml")
    outs = []
    for name, extra in (("a.toml", ["--sampling", "0.2"]), ("b.toml", [])):
        args = ["epsilon", "--deployment", str(tmp_path / name), "--delta", "1e-6", "--json", *extra]
        assert main(args) == 0
        outs.append(json.loads(capsys.readouterr().out)["epsilon"])
    assert outs[0] == outs[1] and Fraction(outs[0]["lower"]) > 0
    _dep(tmp_path, '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 200\n[[rounds]]\ncount = 2\n', "c.toml")
    assert main(["epsilon", "--deployment", str(tmp_path / "c.toml"), "--delta", "1e-6", "--sampling", "0.2"]) == 2
    assert capsys.readouterr().err.startswith("blanket: error: --sampling cannot be combined")
