"""A matrix randomizer on the command line and in ``[[rounds]]`` (task seams10, items 1-2).

``blanket delta|epsilon --deployment MATRIX_FILE``: one round is the certificate's bracket, ``--rounds T`` the Python
accountant's composition.  Independent routes: every report vector enumerated (exact.shuffled.bruteforce, exact
rationals) for the one-round δ and the calibrated ε at n = 3; the Python accountant built by hand for ``--rounds``;
``blanket certify``'s own numbers for the same file.  ``[[rounds]]`` entries of type matrix / oue / … compose as
``Shuffled(record, n)`` does in Python.
"""

import json
import pathlib
import shutil

import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports import cli
from flint import arb, fmpq

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
MATRIX = [
    [fmpq(1, 2), fmpq(1, 4), fmpq(1, 4)],
    [fmpq(1, 4), fmpq(1, 2), fmpq(1, 4)],
    [fmpq(1, 6), fmpq(1, 3), fmpq(1, 2)],
]


def _json(capsys, argv):
    code = cli.main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _brute_worst(n: int, eps: fmpq) -> arb:
    """The worst case over every neighbouring pair at ``n`` users, every report vector enumerated (exact law; e^ε in
    balls)."""
    import itertools

    from blanket.exact.mechanisms.finite import FiniteRandomizer
    from blanket.exact.shuffled.bruteforce import shuffled_law

    m = FiniteRandomizer(MATRIX)
    best = None
    e = arb(eps).exp()
    for others in itertools.combinations_with_replacement(range(3), n - 1):
        for x, x2 in itertools.permutations(range(3), 2):
            p = shuffled_law(m, list(others) + [x])
            q = shuffled_law(m, list(others) + [x2])
            v = sum((max(arb(0), p.get(h, 0) - e * q.get(h, 0)) for h in set(p) | set(q)), arb(0))
            best = v if best is None or v.mid() > best.mid() else best
    return best


def test_matrix_delta_one_round_is_the_brute_force_worst_case(capsys):
    eps = fmpq(1, 2)
    d = _json(capsys, ["delta", "--deployment", str(EXAMPLES / "matrix.toml"), "-n", "3", "--epsilon", "0.5", "--json"])
    assert d["relation"] == "exact" and d["mechanism"] == "matrix" and d["matrix"] == "3 x 3"
    brute = _brute_worst(3, eps)
    from blanket.exact.numbers import arith

    lo, up = arith.exact(d["delta"]["lower"]), arith.exact(d["delta"]["upper"])
    # the printed enclosure (outward rounded, 10 digits) contains the brute-force value's enclosure
    v = float(brute.mid())  # exact law, e^eps as a ball: a narrow enclosure
    assert 0 < lo <= up
    assert float(lo) <= v * (1 + 1e-12) and float(up) >= v * (1 - 1e-12)  # the printed ends hold the value
    assert float(up) - float(lo) <= 1e-8 * v  # and are tight (the exact worst case, not a bracket)


def test_matrix_epsilon_one_round_brackets_the_brute_force_epsilon(capsys):
    from blanket.exact.numbers import arith

    d = _json(
        capsys, ["epsilon", "--deployment", str(EXAMPLES / "matrix.toml"), "-n", "3", "--delta", "0.05", "--json"]
    )
    up, lo = arith.exact(d["epsilon"]["upper"]), arith.exact(d["epsilon"]["lower"])
    assert 0 < lo < up
    target = 0.05
    assert float(_brute_worst(3, up).mid()) <= target  # delta at the upper end is below the target ...
    assert float(_brute_worst(3, lo).mid()) > target  # ... and above it at the lower end


def test_matrix_epsilon_matches_certify_at_large_n(capsys, tmp_path):
    """Above the enumeration limit: the CLI's bracket is certify's target bracket for the same file (view above,
    binarized count below, docs/composition.md §5e)."""
    from blanket.reports.certificate import certify

    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    dep = tmp_path / "m.toml"
    dep.write_text(
        'name = "m"\n[mechanism]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\n[users]\nn = 10000\n'
        '[[targets]]\ndelta = "1e-6"\n'
    )
    d = _json(capsys, ["epsilon", "--deployment", str(dep), "--json"])
    t = certify(str(dep))["targets"][0]
    assert d["epsilon"] == {"lower": t["epsilon_lower"], "upper": t["epsilon_upper"]}
    assert d["relation"] == "bracket" and "binarized" in d["lower_source"] and "matrix" in d["upper_source"]


def test_matrix_delta_bracket_at_large_n_holds_the_certified_ends(capsys):
    from blanket.exact.numbers import arith

    d = _json(
        capsys, ["delta", "--deployment", str(EXAMPLES / "matrix.toml"), "-n", "10000", "--epsilon", "0.031", "--json"]
    )
    assert d["relation"] == "bracket"
    lo, up = arith.exact(d["delta"]["lower"]), arith.exact(d["delta"]["upper"])
    assert 0 < lo < up
    # consistent with the epsilon bracket of the example's header (delta = 1e-6: epsilon in [0.0300118, 0.0326681]):
    # at epsilon = 0.031 inside it, 1e-6 lies between the two ends
    assert lo <= fmpq(1, 10**6) <= up


def test_matrix_rounds_is_the_python_accountant(capsys):
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.mechanisms.finite import FiniteRandomizer
    from blanket.exact.numbers import arith

    d = _json(
        capsys,
        ["epsilon", "--deployment", str(EXAMPLES / "matrix.toml"), "--rounds", "3", "--delta", "1e-6", "--json"]
        + ["--curves", "off"],
    )
    acc = ShuffleAccountant(curves=False).compose(Shuffled(FiniteRandomizer(MATRIX), 12), count=3)
    e = acc.get_epsilon("1e-6")
    assert arith.exact(d["epsilon"]["upper"]) >= fmpq(e.upper.numerator, e.upper.denominator)
    assert arith.exact(d["epsilon"]["lower"]) <= fmpq(e.lower.numerator, e.lower.denominator)
    assert d["total_rounds"] == 3 and "clone pair" in " ".join(d["pairs"])


def test_matrix_refusals_name_the_option(capsys):
    m = str(EXAMPLES / "matrix.toml")
    for argv, words in (
        (["delta", "--deployment", m, "--dataset", "c=0"], "--dataset is not supported for a matrix"),
        (["epsilon", "--deployment", m, "--bound", "BBGN19 Theorem 5.3"], "--bound is not evaluated for the matrix"),
    ):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


# ---------------------------------------------------------------- [[rounds]] of a matrix and of the oracles
def _dep(tmp_path, rounds: str, head: str = '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n', users: str = ""):
    from blanket.reports.deployment import load_deployment

    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    p = tmp_path / "d.toml"
    p.write_text(f'name = "x"\n{head}[users]\nn = 50\n{users}{rounds}[[claims]]\nepsilon = 1\ndelta = 1e-6\n')
    return load_deployment(p)


def test_rounds_accept_matrix_file_and_oracles(tmp_path):
    from blanket.reports.deployment import RecordRound

    dep = _dep(
        tmp_path,
        '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\ncount = 2\n'
        '[[rounds]]\ntype = "oue"\nk = 8\nepsilon0 = 1\ncount = 3\nn = 40\n'
        + "".join(
            f'[[rounds]]\ntype = "{t}"\nk = 8\n{extra}epsilon0 = 1\n'
            for t, extra in (("sue", ""), ("olh", "g = 3\n"), ("hadamard", ""), ("subset", "d = 2\n"))
        ),
    )
    kinds = [r.kind for r in dep.rounds]
    assert kinds == ["matrix", "oue", "sue", "olh", "hadamard", "subset"]
    assert all(isinstance(r, RecordRound) for r in dep.rounds)
    m = dep.rounds[0]
    assert dict(m.params)["matrix"] == tuple(tuple(row) for row in MATRIX) and m.matrix_source == "matrix_3x3.csv"
    assert dep.rounds[1].n == 40 and dep.rounds[1].count == 3 and dep.rounds[2].n == 50


def test_round_matrix_file_is_hashed_and_restricted(tmp_path):
    from blanket.reports.deployment import load_deployment

    a = _dep(tmp_path, '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\n')
    (tmp_path / "matrix_3x3.csv").write_text("1/2, 1/4, 1/4\n1/4, 1/2, 1/4\n1/3, 1/3, 1/3\n")
    b = load_deployment(tmp_path / "d.toml")
    assert a.sha256 != b.sha256
    outside = tmp_path / "inner"
    outside.mkdir()
    (outside / "d.toml").write_text(
        'name = "x"\n[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 50\n'
        '[[rounds]]\ntype = "matrix"\nmatrix_file = "../matrix_3x3.csv"\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n'
    )
    with pytest.raises(InvalidArgument, match=r"^rounds\[0\]\.matrix_file must be a file under the deployment"):
        load_deployment(outside / "d.toml")
    assert load_deployment(outside / "d.toml", allow_paths=[tmp_path]).rounds[0].kind == "matrix"


def test_round_matrix_inherits_the_randomizer_and_refusals(tmp_path):
    head = '[mechanism]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\nsame_randomizer = true\n'
    dep = _dep(tmp_path, "[[rounds]]\ncount = 4\n", head=head)
    (r,) = dep.rounds
    assert r.kind == "matrix" and r.count == 4 and dict(r.params)["same_randomizer"] is True
    assert r.event().dominating_pair().kind == "same-randomizer"  # Lemma G1's pair, as Shuffled(..., same_randomizer)
    for rounds, match in (
        ('[[rounds]]\ntype = "oue"\ncount = 2\n', r"^rounds\[0\]\.mechanism needs its parameters in the entry"),
        ('[[rounds]]\ntype = "oue"\nk = 8\nepsilon0 = 1\ng = 3\n', r"^rounds\[0\]\.g is not a known field"),
        ('[[rounds]]\ntype = "matrix"\nmatrix = [["1/2", "1/4"]]\n', r"^rounds\[0\]"),
    ):
        with pytest.raises(InvalidArgument, match=match):
            _dep(tmp_path, rounds)
    with pytest.raises(InvalidArgument, match=r"^users\.colluding is not supported with .*matrix or frequency-oracle"):
        _dep(
            tmp_path,
            '[[rounds]]\ntype = "oue"\nk = 8\nepsilon0 = 1\n',
            head='[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n',
            users="colluding = 2\n",
        )


def test_record_rounds_compose_as_the_python_accountant(tmp_path):
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.mechanisms.finite import FiniteRandomizer
    from blanket.reports.composition import _accountant

    dep = _dep(
        tmp_path,
        '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\ncount = 2\n'
        '[[rounds]]\ntype = "oue"\nk = 8\nepsilon0 = 1\ncount = 3\n',
    )
    got = _accountant(dep, curves=False).get_epsilon("1e-6")
    acc = ShuffleAccountant(curves=False)
    acc.compose(Shuffled(FiniteRandomizer(MATRIX), 50), count=2)
    acc.compose(Shuffled({"type": "oue", "k": 8, "epsilon0": "1"}, 50), count=3)
    want = acc.get_epsilon("1e-6")
    assert (got.upper, got.lower) == (want.upper, want.lower)


def test_delta_epsilon_take_allow_path_for_a_matrix_file(capsys, tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    dep = inner / "m.toml"
    dep.write_text(
        'name = "m"\n[mechanism]\ntype = "matrix"\nmatrix_file = "../matrix_3x3.csv"\n[users]\nn = 3\n'
        "[[claims]]\nepsilon = 1\ndelta = 0.01\n"
    )
    assert cli.main(["delta", "--deployment", str(dep)]) == 2
    assert "--allow-path" in capsys.readouterr().err
    d = _json(capsys, ["delta", "--deployment", str(dep), "--allow-path", str(tmp_path), "--json"])
    assert d["relation"] == "exact" and d["n"] == 3


def test_round_matrix_stronger_clones_condition_checked_when_read(tmp_path):
    good = '[["1/2", "1/3", "1/6"], ["1/3", "1/2", "1/6"], ["1/3", "1/3", "1/3"]]'  # inside the SODA 2023 class
    bad = '[["2/5", "2/5", "1/5"], ["2/5", "1/5", "2/5"], ["1/5", "2/5", "2/5"]]'  # output 0: outside it
    dep = _dep(tmp_path, f'[[rounds]]\ntype = "matrix"\nmatrix = {good}\nstronger_clones = true\n')
    assert dep.rounds[0].event().dominating_pair().kind != "clone"  # the stronger-clone pair, not FOCS 2021's
    with pytest.raises(InvalidArgument) as e:
        _dep(tmp_path, f'[[rounds]]\ntype = "matrix"\nmatrix = {bad}\nstronger_clones = true\n')
    assert str(e.value).startswith("rounds[0].stronger_clones does not apply: output 0") and "got true" in str(e.value)


def test_record_round_inherits_the_mechanism_and_the_cli_composes_the_schedule(capsys, tmp_path):
    head = '[mechanism]\ntype = "olh"\nk = 16\ng = 4\nepsilon0 = 1\n'
    dep = _dep(tmp_path, "[[rounds]]\ncount = 3\n", head=head)
    (r,) = dep.rounds
    assert r.kind == "olh" and dict(r.params) == {"k": 16, "g": 4, "epsilon0": 1} and r.count == 3
    assert dep.as_dict()["rounds"] == [{"mechanism": "olh", "epsilon0": "1", "g": 4, "k": 16, "n": 50, "count": 3}]
    d = _json(
        capsys, ["epsilon", "--deployment", str(tmp_path / "d.toml"), "--delta", "1e-6", "--curves", "off", "--json"]
    )
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled

    want = ShuffleAccountant(curves=False).compose(Shuffled({"type": "olh", "k": 16, "g": 4, "epsilon0": "1"}, 50), 3)
    e = want.get_epsilon("1e-6")
    from blanket.exact.numbers import arith

    assert d["total_rounds"] == 3
    assert arith.exact(d["epsilon"]["upper"]) >= fmpq(e.upper.numerator, e.upper.denominator)
    assert arith.exact(d["epsilon"]["upper"]) - fmpq(e.upper.numerator, e.upper.denominator) < fmpq(1, 10**8)
