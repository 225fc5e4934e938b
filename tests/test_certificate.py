"""Tests for reports.certificate and ``blanket certify``: known verdicts, witness, exit codes, determinism, PDF text."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.reports import latex
from blanket.reports.certificate import certify, render_tex, to_json
from blanket.reports.cli import main
from blanket.reports.deployment import load_deployment, parse_deployment
from flint import fmpq

from tests.test_latex import require_tex

ROOT = pathlib.Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def small(n, eps, delta, e0="3"):
    return parse_deployment(f'''name = "t"
[randomizer]
mechanism = "binary_rr"
exp_epsilon0 = "{e0}"
[users]
n = {n}
[[claims]]
epsilon = "{eps}"
delta = "{delta}"
''')


def brute_worst(n, exp_eps, e0=3):
    """Independent ground truth: enumerate every dataset (c ones among the others) and both directions."""
    m = BinaryRR(exp_epsilon0=e0)
    best = fmpq(0)
    for c in range(n):
        others = [1] * c + [0] * (n - 1 - c)
        for x, x2 in ((0, 1), (1, 0)):
            v = delta_brute(m, others + [x], others + [x2], exp_epsilon=exp_eps)
            best = max(best, v)
    return best


def test_verdicts_agree_with_brute_force():
    # e^eps = 1 (eps = 0): delta is the total variation; exact rational ground truth by enumeration
    n = 5
    truth = brute_worst(n, 1)
    above = truth + fmpq(1, 10**9)
    below = truth - fmpq(1, 10**9)
    c_hold = certify(small(n, 0, arith.decimal_string(above, 30, up=True)), plot=False)
    c_fail = certify(small(n, 0, arith.decimal_string(below, 30, up=False)), plot=False)
    assert c_hold["verdict"] == "HOLDS"
    assert c_fail["verdict"] == "FAILS"
    w = c_fail["claims"][0]["witness"]
    assert w and arith.exact(w["delta"]["lower"]) <= truth <= arith.exact(w["delta"]["upper"])


def test_example_verdicts_and_exit_codes(tmp_path):
    for name, code in (("holds", 0), ("fails", 1), ("inconclusive", 3)):
        rc = main(["certify", str(EX / f"{name}.toml"), "-o", str(tmp_path / name), "--no-pdf", "--no-plot"])
        assert rc == code, name
        data = json.loads((tmp_path / name / "certificate.json").read_text())
        assert data["verdict"] == {0: "HOLDS", 1: "FAILS", 3: "INCONCLUSIVE"}[code]
        assert (tmp_path / name / "certificate.tex").exists()


def test_fails_certificate_one_number_format():
    """examples/fails.toml's upper end (about 1.17e-5) is printed like its lower end 4.07e-6, in scientific
    notation, not as 0.0000116693 (polish15): the rule is Python's repr's (decimal for 1e-4 <= |x| < 1e16)."""
    cert = certify(load_deployment(EX / "fails.toml"), plot=False)
    text = json.dumps(cert) + render_tex(cert)
    assert "0.0000" not in text
    up = cert["claims"][0]["upper"]["value"]["upper"]
    assert "e-5" in up and arith.exact(up) >= arith.exact(cert["claims"][0]["lower"]["value"]["lower"])
    assert "\\times 10^{-5}" in render_tex(cert)
    # the rule at its edges, against exact rationals: rounding that carries into 10^-4 prints the decimal
    assert arith.decimal_string(arith.exact("0.000099999"), 3, up=True) == "0.0001"
    assert arith.decimal_string(arith.exact("0.000099999"), 3, up=False) == "9.99e-5"
    assert arith.decimal_string(arith.exact("0.00012"), 6, up=True) == "0.00012"


def test_inconclusive_is_decided_with_more_precision(tmp_path):
    rc = main(["certify", str(EX / "inconclusive.toml"), "-o", str(tmp_path), "--no-pdf", "--max-prec", "512"])
    assert rc == 1  # the claim is a truncation of the exact value, so it is below it


def test_fails_has_witness_and_exact_delta_above_claim():
    cert = certify(load_deployment(EX / "fails.toml"), plot=False)
    c = cert["claims"][0]
    assert c["verdict"] == "FAILS" and c["witness"]["dataset"]
    assert arith.exact(c["lower"]["value"]["lower"]) > arith.exact(c["delta"])


def test_bad_input_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'name = "x"\n[randomizer]\nmechanism = "krr"\nk = 2\nepsilon0 = -1\n[users]\nn = 10\n[[claims]]\nepsilon=1\ndelta=0.1\n'
    )
    assert main(["certify", str(bad), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "randomizer.epsilon0" in err and err.count("\n") == 1
    assert main(["certify", str(tmp_path / "missing.toml")]) == 2


def test_deterministic_tex_json_and_pdf(tmp_path, monkeypatch):
    # the same command twice gives the same bytes (the recorded command names the output directory, so both
    # runs write into the same one): the .tex and .json always, the PDF too where TeX Live is installed (always in
    # CI), with SOURCE_DATE_EPOCH set. One pair of runs for all three (it was two pairs, ~50 s of CPU each).
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pdf = latex.tex_available() and shutil.which("pdftotext") is not None
    if not pdf and os.environ.get("CI") == "true":
        require_tex()  # fails: in CI the PDF must be compared
    a = tmp_path / "a"
    args = ["certify", str(EX / "holds.toml"), "-o", str(a)] + ([] if pdf else ["--no-pdf"])
    main(args)
    names = ["certificate.tex", "certificate.json"] + (["certificate.pdf"] if pdf else [])
    first = [(a / n).read_bytes() for n in names]
    main(args)
    for n, want in zip(names, first):
        assert (a / n).read_bytes() == want, n


def test_injection_in_name_is_escaped():
    dep = parse_deployment(
        "name = '\\input{/etc/passwd} $ % # _ { } ~ ^ \\'\n"
        + '''[randomizer]
mechanism = "binary_rr"
exp_epsilon0 = "3"
[users]
n = 4
[[claims]]
epsilon = "1"
delta = "0.5"
'''
    )
    tex = render_tex(certify(dep))
    assert "\\input{/etc/passwd}" not in tex
    assert "\\textbackslash{}input\\{/etc/passwd\\}" in tex


@pytest.mark.tex
def test_pdf_text_has_verdict_and_numbers(tmp_path):
    require_tex()
    rc = main(["certify", str(EX / "fails.toml"), "-o", str(tmp_path)])
    assert rc == 1
    text = subprocess.run(["pdftotext", str(tmp_path / "certificate.pdf"), "-"], capture_output=True, text=True).stdout
    data = json.loads((tmp_path / "certificate.json").read_text())
    assert "FAILS" in text
    low = data["claims"][0]["lower"]["value"]["lower"]  # e.g. 4.06726e-6 -> "4.06726"
    assert low.split("e")[0] in text
    assert "Witness" in text


def test_registered_bounds_listed_with_failing_hypothesis():
    cert = certify(small(20, 1, "0.1"), plot=False)
    bounds = cert["claims"][0]["bounds"]
    assert bounds, "the registry should hold delta/epsilon bounds for randomized response"
    for b in bounds:
        assert b["applies"] or b["reason"]


def test_n_min_states_monotonicity():
    dep = parse_deployment('''name = "t"
[randomizer]
mechanism = "binary_rr"
exp_epsilon0 = "3"
[users]
n_min = 30
[[claims]]
epsilon = "1"
delta = "0.1"
''')
    cert = certify(dep, plot=False)  # the picture's determinism: test_deterministic_tex_json_and_pdf
    assert cert["monotonicity"] and "post-processing" in cert["monotonicity"]
    assert to_json(cert) == to_json(certify(dep, plot=False))


def test_registered_bounds_are_evaluated_for_an_exact_exp_epsilon0():
    """A deployment that gives exp_epsilon0: the registered results receive epsilon0 as log(exp_epsilon0) and the
    exact exp_epsilon0 (proofs.core.Result._env), so Lemma 5.3's blanket view -- which builds the exact k-RR -- is
    evaluated (it read 'does not apply: epsilon0 must be an exact number, not arb' before); its value meets the
    blanket view computed directly (both contain the true value), and a symbolic bound gives the same value as when
    evaluated at the ball."""
    import blanket.proofs.blanket as B
    from blanket.exact.shuffled.krr import delta_blanket_view
    from flint import arb

    dep = load_deployment(EX / "holds.toml")
    cert = json.loads(to_json(certify(dep, plot=False)))
    rows = {b["key"]: b for b in cert["claims"][0]["bounds"]}
    lemma = rows["BBGN19 Lemma 5.3"]
    assert lemma["applies"] is True, lemma
    direct = delta_blanket_view(BinaryRR(exp_epsilon0=3), 1000, epsilon="1/2")
    lo, hi = (arith.exact(x) for x in arith.endpoints(direct))
    # both enclose the same true value (computed at different precisions): they intersect
    assert arith.exact(lemma["value"]["lower"]) <= hi and lo <= arith.exact(lemma["value"]["upper"])
    # the exact form and the ball form of epsilon0 agree on a symbolic bound
    with arith.precision(128):
        at_exact = B.THEOREM_5_3_RR.bound(exp_epsilon0=3, n=1000, k=2, epsilon="1/2", delta="1e-6")
        at_ball = B.THEOREM_5_3_RR.bound(epsilon0=arb(3).log(), n=1000, k=2, epsilon="1/2", delta="1e-6")
    assert at_exact.overlaps(at_ball)
    with pytest.raises(Exception, match="both given"):
        B.THEOREM_5_3_RR.bound(exp_epsilon0=3, epsilon0="1", n=1000, k=2, epsilon="1/2", delta="1e-6")


def test_inconclusive_hint_names_a_precision_the_run_did_not_try(tmp_path, capsys):
    """The shipped INCONCLUSIVE example stops at its file's cap (32 bits): the hint names that cap and the next one
    it did not try (64), not a fixed 16384; with that cap the claim is decided (FAILS: a truncation of the exact
    value)."""
    rc = main(["certify", str(EX / "inconclusive.toml"), "-o", str(tmp_path / "a"), "--no-pdf", "--no-plot"])
    err = capsys.readouterr().err
    data = json.loads((tmp_path / "a" / "certificate.json").read_text())
    rep = data["reproducibility"]
    assert rc == 3 and rep["precision_used"] == rep["precision_cap"] == 32
    assert not data["claims"][0]["between_bounds"] and not data["claims"][0]["stalled"]
    assert "16384" not in err and "precision cap of 32 bits" in err, err
    nxt = 2 * rep["precision_cap"]
    assert f"--precision {nxt}" in err, err
    rc = main(
        ["certify", str(EX / "inconclusive.toml"), "-o", str(tmp_path / "b"), "--no-pdf", "--no-plot"]
        + ["--precision", str(nxt)]
    )
    assert rc == 1


def test_precision_hint_says_what_limits_the_run():
    from blanket.reports.certificate import MAX_PRECISION_CAP, precision_hint

    stalled = [{"verdict": "INCONCLUSIVE", "precision": 256, "stalled": True}, {"verdict": "HOLDS", "precision": 64}]
    assert "stopped narrowing at 256 bits" in precision_hint(
        stalled, 4096
    ) and "--precision 8192" not in precision_hint(stalled, 4096)
    capped = [{"verdict": "INCONCLUSIVE", "precision": 4096, "stalled": False}]
    h = precision_hint(capped, 4096)
    assert "--precision 8192" in h and "(the default)" in h and "default cap" not in h
    assert "not available" in precision_hint(capped, MAX_PRECISION_CAP)
    assert "--precision 1024" in precision_hint(capped, 512, from_file=False) and "(--precision)" in precision_hint(
        capped, 512, from_file=False
    )
