"""Session 15, deploy15: every entry point gives the command line's answer (regressions of the defects found).

The brackets compared here are each computed by an independent entry point (the command line's options, a
deployment file, ``blanket certify``); no expected value comes from the code under test alone.
"""

from __future__ import annotations

import json

import pytest
from blanket.reports.cli import main

_PLAIN = """name = "deploy15"
neighbouring = "replace-one"
[mechanism]
type = "binary_rr"
epsilon0 = "2"
[users]
n = 50
{users}
{rounds}
[[claims]]
epsilon = "0.9"
delta = "0.1"
"""

_FLEET = """name = "deploy15 fleet"
neighbouring = "replace-one"
colluding = 3
[[users]]
n = 30
[users.mechanism]
type = "binary_rr"
epsilon0 = "1"
[[users]]
n = 20
[users.mechanism]
type = "binary_rr"
epsilon0 = "2"
[[claims]]
epsilon = "0.9"
delta = "0.1"
"""

_ARGS = ["epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "50", "--delta", "0.1", "--json"]


def _eps(capsys) -> tuple:
    out = json.loads(capsys.readouterr().out)
    return out["epsilon"]["lower"], out["epsilon"]["upper"], out["total_rounds"], " ".join(out["pairs"])


@pytest.mark.parametrize(
    ("users", "rounds", "cli"),
    [
        ("colluding = 3", "", ["--colluding", "3"]),  # one round: the file is the --colluding query
        (
            "colluding = 3",
            '[[rounds]]\ncount = 2\nsampling = "0.5"',
            ["--colluding", "3", "--sampling", "0.5", "--rounds", "2"],
        ),
    ],
)
def test_file_colluding_is_the_cli_query(tmp_path, capsys, users, rounds, cli):
    """``blanket epsilon --deployment FILE`` with ``colluding`` in ``[users]`` (one randomizer) was refused ("use
    blanket certify for a mixed fleet"); it now answers with the same bracket as ``--colluding M`` on the command
    line (the honest users' rounds, Lemma F3)."""
    f = tmp_path / "d.toml"
    f.write_text(_PLAIN.format(users=users, rounds=rounds))
    assert main(["epsilon", "--deployment", str(f), "--json"]) == 0
    from_file = _eps(capsys)
    assert main([*_ARGS, *cli]) == 0
    from_cli = _eps(capsys)
    assert from_file == from_cli and "n = 47" in from_cli[3]
    assert float(from_cli[0]) <= float(from_cli[1])
    # without the colluders the answer is a different (more private: more honest users) one
    f.write_text(_PLAIN.format(users="", rounds=rounds))
    assert main(["epsilon", "--deployment", str(f), "--json", *(["--rounds", "1"] if not rounds else [])]) == 0
    plain = _eps(capsys)
    assert float(plain[1]) < float(from_cli[1])


def test_file_colluding_command_line_overrides(tmp_path, capsys):
    """``--colluding`` beside a file's own ``colluding`` (no rounds) takes its place, as ``blanket certify`` does."""
    f = tmp_path / "d.toml"
    f.write_text(_PLAIN.format(users="colluding = 10", rounds=""))
    assert main(["epsilon", "--deployment", str(f), "--json", "--colluding", "3"]) == 0
    over = _eps(capsys)
    assert main([*_ARGS, "--colluding", "3"]) == 0
    assert over == _eps(capsys)


def test_fleet_file_still_refused_in_one_line(tmp_path, capsys):
    """A ``[[users]]`` fleet is still one line, exit 2, pointing at ``blanket certify``; so is a file whose
    colluders leave fewer than 2 honest users (named by its field)."""
    f = tmp_path / "f.toml"
    f.write_text(_FLEET)
    assert main(["epsilon", "--deployment", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blanket: error: --deployment ") and "blanket certify" in err and err.count("\n") == 1
    f.write_text(_PLAIN.format(users="colluding = 49", rounds=""))
    assert main(["epsilon", "--deployment", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blanket: error: users.colluding ") and err.count("\n") == 1


def test_fleet_target_lower_end_is_bisected_on_its_own(tmp_path):
    """A colluding file's certified ε for a target δ (``certify``, fleet route): the lower end is now a bisection of
    its own on the concrete datasets' δ, not the largest failing midpoint of the upper end's bisection (which gave
    1.5 here, against the exact 1.5060425 of the 47 honest users).  Checked against ``blanket.epsilon`` of the
    honest users alone, an independent route (the exact worst case over every dataset); each end names its bound."""
    from blanket.reports.deployment import load_deployment

    import blanket

    f = tmp_path / "d.toml"
    f.write_text(_PLAIN.format(users="colluding = 3", rounds='[options]\ntarget_delta = "1e-3"'))
    cert = blanket.certify(load_deployment(f))
    t = cert["targets"][0]
    exact = blanket.epsilon(blanket.BinaryRR("2"), 47, delta="1e-3")  # c = 0 is the worst dataset here
    lo, up = float(t["epsilon_lower"]), float(t["epsilon_upper"])
    assert lo <= float(exact.upper) <= up
    assert lo >= float(exact.lower) * (1 - 1e-5)  # the old midpoint, 1.5, fails this
    assert "blanket view" in t["upper_source"] and "concrete datasets" in t["lower_source"]
    from blanket.reports.verdict import statement

    text = statement(cert)  # the printed paragraph names the bound behind each end too
    assert f"is {t['epsilon_upper']} (Poisson-binomial blanket view" in text
    assert f"epsilon >= {t['epsilon_lower']} is necessary (the exact delta of concrete datasets" in text


@pytest.mark.parametrize(
    ("extra", "users", "named"),
    [
        (["--colluding", "3"], "", "--colluding"),
        (["--sampling", "0.5"], "", "--sampling"),
        (["--rounds", "2"], "", "--rounds"),
        ([], "colluding = 3", "--deployment"),
    ],
)
def test_composed_refusals_name_what_the_user_gave(tmp_path, capsys, extra, users, named):
    """``--bound`` / ``--dataset`` beside a composed run are refused (one line, exit 2) naming the option or file
    that made it composed; before session 15 they named ``--rounds`` ("got 1") when it was not given."""
    f = tmp_path / "d.toml"
    f.write_text(_PLAIN.format(users=users, rounds=""))
    base = ["epsilon", "--deployment", str(f), *extra]
    assert main([*base, "--bound", "BBGN19 Theorem 5.3", "--variant", "rr"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"blanket: error: {named} cannot be combined with --bound") and err.count("\n") == 1
    assert main([*base, "--dataset", "c=0"]) == 2
    err = capsys.readouterr().err
    what = "a composed deployment" if named == "--deployment" else named
    assert err.startswith(f"blanket: error: --dataset is not used with {what}")
    assert err.count("\n") == 1
