"""Tests of `blanket delta` and `blanket epsilon` (reports/commands/delta.py, epsilon.py, _profile_common.py).

The CLI's numbers are checked against direct calls of exact.accounting.profiles (a
different path: no argument parsing, no decimal rounding) and against
closed forms via mpmath for the --bound tests; bad input must give one line
on stderr, exit code 2 and never a traceback.
"""

import json
import pathlib
import shlex
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from blanket.exact.accounting.profiles import delta as delta_profile
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.reports.cli import main

from tests._helpers import run_cli

ROOT = pathlib.Path(__file__).resolve().parents[1]
TELEMETRY = ROOT / "examples" / "telemetry.toml"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli(capsys, line: str):
    """``run`` on a command line as a user types it (split like a shell does)."""
    return run(capsys, *shlex.split(line))


def D(s) -> Fraction:
    return Fraction(Decimal(s))


# ---------------------------------------------------------------- delta
def test_delta_json_encloses_direct_computation(capsys):
    code, out, err = cli(capsys, "delta --mechanism rr --epsilon0 2 -n 800 --epsilon 0.3 --dataset worst --json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["n"] == 800 and payload["epsilon"] == "0.3" and payload["epsilon0"] == "2" and payload["k"] == 2
    assert payload["relation"] == "exact" and "c=" in payload["attained_by"]
    direct = delta_profile(BinaryRR(epsilon0="2"), 800, epsilon="0.3")
    lo, hi = arith.endpoints(direct.value)
    assert D(payload["delta"]["lower"]) <= lo and hi <= D(payload["delta"]["upper"])
    assert payload["c"] == direct.c


def test_delta_text_is_a_readable_paragraph(capsys):
    code, out, err = run(
        capsys, "delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "500", "--epsilon", "0.2", "--dataset", "c=3"
    )
    assert code == 0 and err == ""
    assert "delta(epsilon = 0.2)" in out and "LOWER bound" in out and "c=3" in out and "\n" in out.strip()


def test_delta_zero_at_epsilon0(capsys):
    code, out, _ = run(capsys, "delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "500", "--epsilon", "1", "--json")
    assert code == 0 and json.loads(out)["delta"] == {"lower": "0", "upper": "0"}


def test_delta_krr_family(capsys):
    code, out, err = cli(capsys, "delta --mechanism krr --k 3 --epsilon0 1 -n 200 --epsilon 0.3 --dataset third --json")
    assert code == 0, err
    assert json.loads(out)["relation"] == "lower"


def test_rr_with_k_is_k_ary_rr(capsys):
    # the interface: `--mechanism rr --k K` is k-ary randomized response (same as krr)
    outs = []
    for mech in ("rr", "krr"):
        code, out, err = cli(
            capsys, f"delta --mechanism {mech} --k 3 --epsilon0 1 -n 50 --epsilon 0.3 --dataset third --json"
        )
        assert code == 0, err
        outs.append(json.loads(out)["delta"])
    assert outs[0] == outs[1]


# ---------------------------------------------------------------- epsilon
def test_epsilon_json_bracket_is_certified(capsys):
    code, out, err = cli(capsys, "epsilon --mechanism rr --epsilon0 2 -n 3000 --delta 1e-6 --dataset c=0 --json")
    assert code == 0, err
    p = json.loads(out)
    lo, hi = D(p["epsilon"]["lower"]), D(p["epsilon"]["upper"])
    assert lo < hi and (hi - lo) / hi < Fraction(2, 10**6)
    assert p["delta"] == "1e-6" and p["evaluations"] <= 12
    from blanket.exact.shuffled.binary import delta_binary

    rr = BinaryRR(epsilon0="2")
    with arith.precision(192):  # the printed upper end (rounded up) still meets the target, the lower end fails
        assert arith.le(delta_binary(rr, 3000, 0, epsilon=f"{hi}"), arith.exact("1e-6")) is True
        assert (
            arith.gt(delta_binary(rr, 3000, 0, epsilon=f"{lo.numerator}/{lo.denominator}"), arith.exact("1e-6")) is True
        )


def test_epsilon_worst_case_reports_dataset(capsys):
    code, out, err = run(
        capsys, "epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "1000", "--delta", "1e-6", "--json"
    )
    assert code == 0, err
    p = json.loads(out)
    # ε* of the worst case over all datasets (independently: the c = 0 value is 0.32327896…, the worst case is larger)
    assert D(p["epsilon"]["lower"]) > Fraction("0.3233") and D(p["epsilon"]["upper"]) < Fraction("0.3234")
    assert p["relation"] == "exact" and p["c"] not in (0, 999)


def test_deployment_file(capsys):
    code, out, err = run(capsys, "epsilon", "--deployment", str(TELEMETRY), "--dataset", "c=0", "--json")
    assert code == 0, err
    p = json.loads(out)
    assert p["n"] == 100000 and p["delta"] == "1e-8" and p["deployment"] == "telemetry.toml"
    code, out, err = run(capsys, "delta", "--deployment", str(TELEMETRY), "--dataset", "c=0", "--json")
    assert code == 0, err
    assert json.loads(out)["epsilon"] == "0.05"


# ---------------------------------------------------------------- bad input
BAD = [  # (command line, the name the one-line error must contain)
    ("delta --mechanism rr --epsilon0 -1 -n 10 --epsilon 0.1", "--epsilon0"),
    ("delta --mechanism rr --epsilon0 1 -n 1 --epsilon 0.1", "-n"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon abc", "--epsilon"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon -0.5", "--epsilon"),
    ("delta --mechanism rr --epsilon0 1 -n 10", "--epsilon"),
    ("delta --mechanism krr --k 1 --epsilon0 1 -n 10 --epsilon 0.1", "--k"),
    ("delta --mechanism rr --k x --epsilon0 1 -n 10 --epsilon 0.1", "--k"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon 0.1 --dataset c=10", "dataset"),
    ("delta --mechanism krr --k 3 --epsilon0 1 -n 10 --epsilon 0.1 --dataset c=3", "dataset"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon 0.1 --workers 0", "--workers"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 1e-6 --workers two", "--workers"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon 0.1 --scheduler ' '", "--scheduler"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 0", "--delta"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 1", "--delta"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 1e-6x", "--delta"),
    ("epsilon --mechanism rr --epsilon0 1 -n 2.5 --delta 1e-6", "-n"),
    ("epsilon --mechanism rr -n 10 --delta 1e-6", "--epsilon0"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 1e-6 --rel-tol 0", "--rel-tol"),
    ("epsilon --deployment /nonexistent/x.toml", "deployment file"),
    ("epsilon --mechanism rr --epsilon0 1 -n 10 --delta 1e-6 --variant rr", "--variant"),
    ("delta --mechanism rr --epsilon0 1 -n 10 --epsilon 0.1 --bound 'No Such Thing'", "bound"),
]


@pytest.mark.parametrize("line, name", BAD)
def test_bad_input_one_line_exit_2(capsys, line, name):
    code, out, err = cli(capsys, line)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert name in err


def test_bad_choice_through_argparse(capsys):
    # (laplace was the example of a word --mechanism refused; it is a mechanism of its own since issue 27)
    with pytest.raises(SystemExit) as exc:
        main(["delta", "--mechanism", "no-such-randomizer", "--epsilon0", "1", "-n", "10", "--epsilon", "0.1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_malformed_deployment(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(
        "name = \"x\"\n[mechanism]\ntype = \"krr\"\nk = 2\nepsilon0 = \"-3\"\n[users]\nn = 10\n[[claims]]\n"
        "epsilon = \"1\"\ndelta = \"1e-6\"\n"
    )
    code, out, err = run(capsys, "delta", "--deployment", str(f))
    assert code == 2 and "epsilon0" in err and err.count("\n") == 1
    f.write_text("name = [\n")
    code, out, err = run(capsys, "delta", "--deployment", str(f))
    assert code == 2 and "TOML" in err


def test_subprocess_never_shows_a_traceback():
    r = run_cli("epsilon --mechanism rr --epsilon0 x -n 10 --delta 1e-6", cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1


# ---------------------------------------------------------------- --bound
@pytest.fixture(scope="module")
def tiny_bounds():
    from blanket.proofs.core import REGISTRY, Hypothesis, Result, register

    eps, n, delta_, e0 = sp.symbols("epsilon n delta epsilon0", real=True)

    def add(variant, title, statement, symbols, hypothesis):
        key = f"EFMRTT19 CLI test bound [{variant}]"
        if key not in REGISTRY:
            register(
                Result(
                    key=key,
                    paper="EFMRTT19",
                    label="CLI test bound",
                    variant=variant,
                    title=title,
                    status="this project's reading",
                    statement=statement,
                    symbols=symbols,
                    hypotheses=(hypothesis,),
                    kind="upper_bound",
                    quantity=variant,
                )
            )
        return key

    key_d = add(
        "delta",
        "test: delta <= exp(-n eps/100)",
        sp.Le(delta_, sp.exp(-n * eps / 100)),
        {eps: "epsilon > 0", n: "n", delta_: "delta"},
        Hypothesis(eps > 0, "epsilon > 0"),
    )
    key_e = add(
        "epsilon",
        "test: eps <= eps0 sqrt(log(1/delta)/n)",
        sp.Le(eps, e0 * sp.sqrt(sp.log(1 / delta_) / n)),
        {eps: "epsilon", n: "n", delta_: "delta", e0: "epsilon0"},
        Hypothesis(n >= 10, "n >= 10"),
    )
    yield key_d, key_e
    REGISTRY.pop(key_d, None)
    REGISTRY.pop(key_e, None)


def test_delta_bound(capsys, tiny_bounds):
    key_d, _ = tiny_bounds
    code, out, err = run(capsys, "delta", "--bound", key_d, "-n", "100", "--epsilon", "1", "--json")
    assert code == 0, err
    p = json.loads(out)
    with mpmath.workdps(30):
        ref = mpmath.exp(-1)
        assert mpmath.mpf(p["delta"]["lower"]) <= ref <= mpmath.mpf(p["delta"]["upper"])
    assert p["relation"] == "upper" and p["bound"] == key_d


def test_epsilon_from_delta_bound_calibrates(capsys, tiny_bounds):
    key_d, _ = tiny_bounds
    code, out, err = cli(
        capsys, "epsilon --bound 'EFMRTT19 CLI test bound' --variant delta -n 100 --epsilon0 10 --delta 1e-3 --json"
    )
    assert code == 0, err
    p = json.loads(out)
    star = mpmath.log(1000)  # exp(-100 eps/100) = 1e-3
    assert mpmath.mpf(p["epsilon"]["lower"]) < star <= mpmath.mpf(p["epsilon"]["upper"])


def test_epsilon_bound_evaluated_directly(capsys, tiny_bounds):
    _, key_e = tiny_bounds
    code, out, err = run(
        capsys, "epsilon", "--bound", key_e, "-n", "100", "--epsilon0", "1", "--delta", "1e-6", "--json"
    )
    assert code == 0, err
    p = json.loads(out)
    with mpmath.workdps(30):
        ref = mpmath.sqrt(mpmath.log(10**6) / 100)
        assert mpmath.mpf(p["epsilon"]["lower"]) <= ref <= mpmath.mpf(p["epsilon"]["upper"])


def test_bound_outside_hypotheses_exits_2(capsys, tiny_bounds):
    key_d, key_e = tiny_bounds
    code, out, err = run(capsys, "delta", "--bound", key_d, "-n", "100", "--epsilon", "0")
    assert code == 2 and "epsilon > 0" in err and err.count("\n") == 1
    code, out, err = run(capsys, "epsilon", "--bound", key_e, "-n", "5", "--epsilon0", "1", "--delta", "1e-6")
    assert code == 2 and "n >= 10" in err
    code, out, err = run(capsys, "delta", "--bound", key_e, "-n", "100", "--epsilon", "0.1", "--epsilon0", "1")
    assert code == 2 and "blanket epsilon --bound" in err


def test_real_erlingsson_bound_if_registered(capsys):
    from blanket.proofs.core import REGISTRY, results

    results()
    if "BBGN19 Theorem 5.1" not in REGISTRY:
        pytest.skip("BBGN19 Theorem 5.1 is not registered yet")
    code, out, err = cli(capsys, "epsilon --bound 'BBGN19 Theorem 5.1' --epsilon0 0.5 -n 10000 --delta 1e-6 --json")
    assert code == 0, err
    p = json.loads(out)
    ref = 12 * mpmath.mpf("0.5") * mpmath.sqrt(mpmath.log(10**6) / 10000)
    assert mpmath.mpf(p["epsilon"]["lower"]) <= ref <= mpmath.mpf(p["epsilon"]["upper"])
    code, out, err = run(
        capsys, "epsilon", "--bound", "BBGN19 Theorem 5.1", "--epsilon0", "0.5", "-n", "100", "--delta", "1e-6"
    )
    assert code == 2 and "1000" in err
