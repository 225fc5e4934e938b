"""Seams of session 10 (task seams10, items 3-6): refusals spell a TOML bool as TOML does; ``certify --help`` does not
name ``--rounds``; the matrix binarized lower pair is registered with a check that can fail and cited where used; a
rounds certificate's chain lists the pairs its rounds used, worded for their mechanism."""

import pathlib
import shutil

import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports import cli

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def test_refusals_spell_a_toml_bool_as_toml(tmp_path):
    from blanket.reports.deployment import parse_deployment

    text = (
        'name = "x"\n[mechanism]\ntype = "krr"\nk = 3\nepsilon0 = 1\nsame_randomizer = true\n[users]\nn = 10\n'
        "[[claims]]\nepsilon = 1\ndelta = 1e-6\n"
    )
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(text)
    assert str(e.value).startswith("mechanism.same_randomizer applies to an ldp or matrix randomizer only")
    assert "got true" in str(e.value) and "True" not in str(e.value)
    rounds = (
        'name = "x"\n[mechanism]\ntype = "krr"\nk = 3\nepsilon0 = 1\n[users]\nn = 10\n'
        "[[rounds]]\nsame_randomizer = false\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n"
    )
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(rounds)
    assert "got false" in str(e.value) and "False" not in str(e.value)


def test_certify_help_does_not_offer_rounds(capsys):
    with pytest.raises(SystemExit):
        cli.main(["certify", "--help"])
    out = capsys.readouterr().out
    assert "--rounds" not in out and "[[rounds]]" in out
    with pytest.raises(SystemExit):
        cli.main(["epsilon", "--help"])
    assert "(--rounds, [[rounds]])" in " ".join(capsys.readouterr().out.split())


# ---------------------------------------------------------------- the registry: the matrix binarized lower pair
def test_matrix_binarized_pair_is_registered_and_its_check_can_fail(monkeypatch):
    import dataclasses

    from blanket.exact.accounting import matrix_lower
    from blanket.proofs import composition as comp
    from blanket.proofs.core import get

    r = get("Matrix binarized lower pair")
    assert r is comp.MATRIX_BINARIZED and r.status == "derived" and r.kind == "lower_bound"
    assert r.symbolic(r).proved is None  # an instance, passing
    true_choice = matrix_lower.composition_choice

    def wrong(m):  # the target's two values swapped: the closed form no longer matches the histogram laws
        c = true_choice(m)
        return dataclasses.replace(c, x=c.x2, x2=c.x)

    monkeypatch.setattr(matrix_lower, "composition_choice", wrong)
    assert r.symbolic(r).proved is False

    def wider(m):  # B with one more output than the probabilities say
        c = true_choice(m)
        extra = next(y for y in range(3) if y not in c.outputs)
        return dataclasses.replace(c, outputs=(*c.outputs, extra))

    monkeypatch.setattr(matrix_lower, "composition_choice", wider)
    assert r.symbolic(r).proved is False


def _rounds_dep(tmp_path, rounds: str, n: int = 200):
    from blanket.reports.deployment import load_deployment

    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    p = tmp_path / "d.toml"
    p.write_text(
        f'name = "x"\n[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = {n}\n{rounds}'
        "[[claims]]\nepsilon = 2\ndelta = 1e-6\n[[targets]]\ndelta = 1e-6\n"
    )
    return load_deployment(p)


def _chain(dep, curves=False):
    from blanket.reports.composition import certify_composition

    cert = certify_composition(dep, plot=False, curves=curves)
    out = {e["key"]: e for e in cert["chain"]}
    out["composition pair"] = cert["composition"]["pair"]  # the pair statement the PDF typesets
    return out


def test_chain_cites_the_matrix_binarized_pair_for_matrix_rounds(tmp_path):
    with_matrix = _chain(
        _rounds_dep(tmp_path, '[[rounds]]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\ncount = 2\n')
    )
    assert "Matrix binarized lower pair" in with_matrix
    without = _chain(_rounds_dep(tmp_path, '[[rounds]]\ntype = "oue"\nk = 4\nepsilon0 = 1\ncount = 2\n'))
    assert "Matrix binarized lower pair" not in without
    assert "PLD blanket view dominating pair" not in without  # an OUE round composes the clone pair, not k-RR's view


def test_one_round_matrix_certificate_cites_the_binarized_pair_for_its_lower_end(tmp_path):
    from blanket.reports.certificate import certify

    shutil.copy(EXAMPLES / "matrix_3x3.csv", tmp_path)
    p = tmp_path / "m.toml"
    p.write_text(
        'name = "m"\n[mechanism]\ntype = "matrix"\nmatrix_file = "matrix_3x3.csv"\n[users]\nn = 10000\n'
        '[[targets]]\ndelta = "1e-6"\n'
    )
    cert = certify(str(p))
    assert cert["targets"][0]["lower_key"] == "matrix-binarized"
    assert "Matrix binarized lower pair" in {e["key"] for e in cert["chain"]}


def test_chain_lists_the_pairs_used_worded_for_the_mechanism(tmp_path):
    # binary RR at n = 200 composes its worst-case curve pair: the k-RR blanket-view entry is not listed
    rr = _chain(_rounds_dep(tmp_path, "[[rounds]]\ncount = 3\n"))
    assert "Worst-case curve pair" in rr and "PLD blanket view dominating pair" not in rr
    assert rr["Worst-case curve pair"]["used_for"].startswith("binary RR, epsilon0 = 1, n = 200")
    assert rr["composition pair"]["key"] == "Worst-case curve pair"
    # ldp rounds: the blanket-view pair through Lemma G1, said so (binary RR with the same epsilon0)
    ldp = _chain(_rounds_dep(tmp_path, '[[rounds]]\ntype = "ldp"\nepsilon0 = 1\ncount = 2\n'))
    entry = ldp["PLD blanket view dominating pair"]
    assert "through Lemma G1" in entry["used_for"] and entry["used_for"].startswith("ldp, epsilon0 = 1, n = 200")
    assert "Lemma G1 [adaptive]" in ldp
    # 3-RR rounds: the k-RR blanket view itself, for those rounds
    krr = _chain(_rounds_dep(tmp_path, '[[rounds]]\ntype = "krr"\nk = 3\ncount = 2\n', n=1000))
    assert krr["PLD blanket view dominating pair"]["used_for"].startswith("3-ary RR, epsilon0 = 1, n = 1000")
    assert krr["composition pair"]["key"] == "PLD blanket view dominating pair"
