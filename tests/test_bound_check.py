"""Tests for reports.bound_check and ``blanket check-bound``.

Every refutation is re-checked here by an independent route: the witness
dataset pair's hockey-stick divergence is recomputed with mpmath at 60 digits
by enumerating all k^n report vectors (no convolution, no symmetry), and must
exceed the bound's upper end.  Wrong bounds must be refuted within a small
budget; valid bounds (the blanket view, the Hoeffding bound, the exact value
itself returned as a float) must not be.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from collections import Counter

import mpmath
import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports import bound_check as bc
from blanket.reports.bound_values import convert_result
from blanket.reports.cli import main

from tests._helpers import write_dedented

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples" / "bounds"


# ------------------------------------------------------------ independent oracle
def _mp_hockey(k, epsilon0, epsilon, d1, d2):
    """D_{e^ε}(M(d1) ‖ M(d2)) for shuffled k-RR with mpmath (60 digits), by enumerating all k^n report vectors."""
    with mpmath.workdps(60):
        e0 = mpmath.exp(mpmath.mpf(epsilon0.numerator) / epsilon0.denominator)
        ee = mpmath.exp(mpmath.mpf(epsilon.numerator) / epsilon.denominator)
        keep, flip = e0 / (e0 + k - 1), 1 / (e0 + k - 1)

        def law(d):
            out = Counter()
            for ys in itertools.product(range(k), repeat=len(d)):
                p = mpmath.mpf(1)
                for x, y in zip(d, ys):
                    p *= keep if x == y else flip
                out[tuple(sorted(ys))] += p
            return out

        P, Q = law(d1), law(d2)
        return sum(max(mpmath.mpf(0), P[h] - ee * Q.get(h, 0)) for h in P)


def _F(s):
    from fractions import Fraction

    q = bc.arith.exact(s)
    return Fraction(int(q.p), int(q.q))


#: a k-RR bound file on ``{domain}`` returning ``{value}`` of v, the exact worst case over all datasets at ``{prec}`` bits
_KRR_WORST_CASE = '''
    from blanket.exact.shuffled.enumerate import worst_case
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.numbers.arith import precision
    from flint import fmpq
    MECHANISM = "krr"
    DOMAIN = {domain}
    def delta(epsilon, epsilon0, n, k):
        with precision({prec}):
            v = worst_case(KRR(k, epsilon0=epsilon0), n, epsilon=epsilon).value
        return {value}
'''


def _check(path, **kw):
    # deterministic (issue 16, item 16): the search's budget is counted in evaluations of the bound, never in
    # seconds; the wall-clock budget is only a generous safety limit. ``budget=S`` of older tests is S*EVALS_PER_S.
    kw["max_evaluations"] = kw.pop("evaluations", None) or EVALS_PER_S * kw.pop("budget", 20)
    kw["budget"] = SAFETY_SECONDS
    kw.setdefault("progress", False)
    return bc.check_bound(bc.load_bound(path), **kw)


EVALS_PER_S = 25
SAFETY_SECONDS = 900


def _assert_witness_independent(report, k_default=None):
    """The first violation's witness, recomputed with mpmath by full enumeration, exceeds the bound's upper end."""
    v = report["violations"][0]
    w = v["witness"]
    assert isinstance(w["dataset"], list), "small-n witnesses are explicit datasets"
    k = v["k"]
    val = _mp_hockey(k, _F(v["epsilon0"]), _F(v["epsilon"]), w["dataset"], w["neighbour"])
    assert val > mpmath.mpf(v["bound"]["enclosure"]["upper"])
    assert mpmath.mpf(v["exact"]["lower"]) <= val <= mpmath.mpf(v["exact"]["upper"])
    return v


# ------------------------------------------------------------ wrong bounds are refuted
def test_binary_rr_times_0_9_is_refuted_with_certified_witness():
    r = _check(EXAMPLES / "binary_exact_times_0_9.py", n_max=8, n_exhaustive=5, budget=6)
    assert r["verdict"] == "REFUTED"
    v = _assert_witness_independent(r)
    assert v["n"] == 2  # the smallest n of the domain already fails
    assert v["witness_reverified"] is True
    assert float(v["ratio"]["exact_over_bound"]["lower"]) >= 1.11  # exactly 1/0.9 up to rounding


def test_lumped_view_is_refuted():
    r = _check(EXAMPLES / "krr_lumped_view.py", n_max=6, n_exhaustive=4, k=4, budget=6)
    assert r["verdict"] == "REFUTED"
    _assert_witness_independent(r)


def test_lumped_view_on_its_own_third_family_is_refuted(tmp_path):
    # the lumped view used as the bound for the *third* family itself: refuted by that family's exact histogram δ
    p = write_dedented(
        tmp_path,
        "lumped_third.py",
        '''
        from blanket.exact.shuffled.krr import delta_krr_third_lumped
        from blanket.exact.mechanisms.finite import KRR
        MECHANISM = "krr"
        DOMAIN = {"epsilon0": ("1", "2"), "n": (3, 5), "k": (5, 5), "epsilon": ("0.2", "0.5")}
        def delta(epsilon, epsilon0, n, k):
            return delta_krr_third_lumped(KRR(k, epsilon0=epsilon0), n, epsilon=epsilon)
    ''',
    )
    r = _check(p, n_exhaustive=5, budget=8)
    assert r["verdict"] == "REFUTED"
    _assert_witness_independent(r)


def test_float_bound_slightly_below_exact_is_refuted_but_exact_as_float_is_not(tmp_path):
    domain = '{"epsilon0": ("0.5", "2"), "n": (2, 4), "k": (2, 3), "epsilon": ("0.1", "1")}'
    low = write_dedented(
        tmp_path, "low.py", _KRR_WORST_CASE.format(domain=domain, prec=200, value="float(v.mid()) * (1 - 1e-6)")
    )
    same = write_dedented(
        tmp_path, "same.py", _KRR_WORST_CASE.format(domain=domain, prec=200, value="float(v.mid()) * 1")
    )
    r_low = _check(low, n_exhaustive=4, budget=6)
    assert r_low["verdict"] == "REFUTED"
    assert r_low["float_error_model"] == bc.FLOAT_MODEL
    _assert_witness_independent(r_low)
    r_same = _check(same, n_exhaustive=4, budget=4)
    assert r_same["verdict"] == "NOT REFUTED"  # float rounding of the exact value itself is never a violation
    assert r_same["counts"].get("violated", 0) == 0


def test_epsilon_bound_with_wrong_constant_is_refuted(tmp_path):
    p = write_dedented(
        tmp_path,
        "eps1.py",
        '''
        import math
        MECHANISM = "binary"
        QUANTITY = "epsilon"
        DOMAIN = {"epsilon0": ("0.5", "0.5"), "n": (20, 60), "delta": ("1e-10", "1e-6")}
        def epsilon(delta, epsilon0, n):
            return float(epsilon0) * math.sqrt(math.log(1 / float(delta)) / n)
    ''',
    )
    r = _check(p, n_exhaustive=2, budget=8)
    assert r["verdict"] == "REFUTED"
    v = r["violations"][0]
    # δ_n at the claimed ε exceeds the target δ; the exact.shuffled.binary witness was recomputed by exact.shuffled.enumerate
    assert mpmath.mpf(v["exact"]["lower"]) > mpmath.mpf(v["delta"])
    assert v["witness_reverified"] is True


# ------------------------------------------------------------ valid bounds are not refuted
def test_blanket_view_is_not_refuted():
    r = _check(EXAMPLES / "blanket_view.py", n_max=12, n_exhaustive=4, budget=5)
    assert r["verdict"] == "NOT REFUTED"
    assert r["counts"].get("holds", 0) > 10
    t = r["tightness"]
    assert t["points"] > 0 and float(t["min"]["upper"]) >= 1  # bound / exact >= 1 where it holds (= 1 where tight)


def test_hoeffding_float_bound_is_not_refuted_and_reports_float_model():
    r = _check(EXAMPLES / "hoeffding_krr.py", n_max=20, n_exhaustive=4, budget=4)
    assert r["verdict"] == "NOT REFUTED"
    assert "floating point" in r["evaluation"]


def test_symbolic_txt_bound_is_exact_and_not_refuted():
    b = bc.load_bound(EXAMPLES / "theorem_5_3_slide.txt")
    assert b.kind == "sympy" and "0.86" not in b.latex  # decimals became exact rationals
    r = bc.check_bound(b, n_max=12, n_exhaustive=4, budget=SAFETY_SECONDS, max_evaluations=100, progress=False)
    assert r["verdict"] == "NOT REFUTED"
    assert r["float_error_model"] is None


def test_registered_result_through_the_same_search():
    b = bc.registered_bound("BBGN19 Theorem 5.3", "rr")
    b = bc.restrict_domain(b, ["n=2..6", "k=2..3"], within_declared=False)
    r = bc.check_bound(b, n_exhaustive=4, budget=SAFETY_SECONDS, max_evaluations=100, progress=False)
    assert r["verdict"] == "NOT REFUTED"
    assert r["bound"]["kind"] == "registered"


# ------------------------------------------------------------ float model
def test_float_error_model_enclosure():
    v = convert_result(0.5)
    assert v.floating and v.center == 0.5
    lo, hi = bc.arith.endpoints(v.value)
    assert lo <= _F("0.5") - _F("5e-13") and hi >= _F("0.5") + _F("5e-13")
    assert convert_result(float("inf")).value is None
    with pytest.raises(InvalidArgument, match="nan"):
        convert_result(float("nan"))
    assert not convert_result(_F("1/3")).floating


# ------------------------------------------------------------ bad input
def test_registered_result_taking_delta_as_input_is_refused():
    with pytest.raises(InvalidArgument, match="takes delta as an input"):
        bc.registered_bound("BBGN19 Theorem 3.1")


def test_bad_files(tmp_path):
    with pytest.raises(InvalidArgument, match="does not exist"):
        bc.load_bound(tmp_path / "nope.py")
    p = write_dedented(tmp_path, "nomech.py", "DOMAIN = {}\ndef delta(epsilon): return 1\n")
    with pytest.raises(InvalidArgument, match="must define MECHANISM"):
        bc.load_bound(p)
    # a k-RR file returning 1, with the given range of epsilon0 and parameters of delta()
    stub = 'MECHANISM = "krr"\nDOMAIN = {{"epsilon0": {e0}, "n": (2, 10), "k": (2, 3), "epsilon": ("0.1", "1")}}\n'
    stub += "def delta({params}): return 1\n"
    p = write_dedented(tmp_path, "floatdom.py", stub.format(e0="(0.1, 3)", params="epsilon, epsilon0, n, k"))
    with pytest.raises(InvalidArgument, match="not a binary float"):
        bc.load_bound(p)
    p = write_dedented(tmp_path, "badparam.py", stub.format(e0='("0.1", "3")', params="epsilon, eps0, n, k"))
    with pytest.raises(InvalidArgument, match="eps0"):
        bc.load_bound(p)
    p = write_dedented(tmp_path, "syntax.py", "MECHANISM = 'krr'\nthis is not python\n")
    with pytest.raises(InvalidArgument, match="could not be imported"):
        bc.load_bound(p)
    p = write_dedented(
        tmp_path,
        "bad.txt",
        "mechanism: krr\nepsilon0: 0.1 .. 1\nn: 2 .. 5\nk: 2 .. 3\nepsilon: 0.1 .. 1\nbound: foo(epsilon)*\n",
    )
    with pytest.raises(InvalidArgument, match="bound"):
        bc.load_bound(p)


def test_cli_exit_codes(tmp_path, capsys):
    out = tmp_path / "out"
    # refuted -> 1, with JSON and TeX written
    rc = main(
        [
            "check-bound",
            str(EXAMPLES / "binary_exact_times_0_9.py"),
            "--n-max",
            "4",
            "--n-exhaustive",
            "3",
            "--budget",  # a safety limit only (it also covers the bound's process start, slow on a loaded machine)
            "600",
            "--max-evaluations",  # the search's budget, counted in evaluations (deterministic): 8 s x EVALS_PER_S
            str(8 * EVALS_PER_S),
            "-o",
            str(out),
            "--no-pdf",
        ]
    )
    assert rc == 1
    rep = json.loads((out / "bound_check.json").read_text())
    assert rep["verdict"] == "REFUTED"
    assert (out / "bound_check.tex").read_text().count("REFUTED") >= 1
    # bad input -> 2, one line, no traceback
    capsys.readouterr()
    rc = main(["check-bound", str(tmp_path / "missing.py"), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "does not exist" in err
    rc = main(["check-bound", str(EXAMPLES / "krr_lumped_view.py"), "--k", "99", "-o", str(out)])
    assert rc == 2
    rc = main(["check-bound", str(EXAMPLES / "krr_lumped_view.py"), "--mechanism", "binary", "-o", str(out)])
    assert rc == 2
    rc = main(["check-bound", str(EXAMPLES / "krr_lumped_view.py"), "--domain", "n=1..99999999", "-o", str(out)])
    assert rc == 2
    rc = main(["check-bound", "-o", str(out)])
    assert rc == 2


def test_bound_that_always_raises_is_not_checked_exit_3(tmp_path, capsys):
    p = write_dedented(
        tmp_path,
        "raises.py",
        '''
        MECHANISM = "binary"
        DOMAIN = {"epsilon0": ("0.5", "1"), "n": (2, 3), "epsilon": ("0.1", "0.5")}
        def delta(epsilon, epsilon0, n):
            raise ZeroDivisionError("oops")
    ''',
    )
    rc = main(["check-bound", str(p), "--budget", "60", "-o", str(tmp_path / "o"), "--no-pdf"])
    assert rc == 3
    rep = json.loads((tmp_path / "o" / "bound_check.json").read_text())
    assert rep["verdict"] == "NOT CHECKED" and "ZeroDivisionError" in rep["invalid_evaluations"][0]["note"]


def test_report_says_which_budget_stopped_the_search():
    """With ``max_evaluations`` the report names the evaluation budget when it stopped the search (it said "within a
    budget of 900.0 s" although the clock was far from its end), and keeps the wall-clock wording otherwise."""
    b = bc.registered_bound("BBGN19 Theorem 5.3", "rr")
    b = bc.restrict_domain(b, ["n=2..6", "k=2..3"], within_declared=False)
    r = bc.check_bound(b, n_exhaustive=4, budget=SAFETY_SECONDS, max_evaluations=20, progress=False)
    assert r["verdict"] == "NOT REFUTED" and r["stopped_by"] == ["evaluation"]
    tex = bc.render_tex(r)
    assert "within a budget of 20 evaluations of the bound, which stopped the search." in tex
    assert f"within a budget of {SAFETY_SECONDS}" not in tex
    # nothing stopped it (every phase ran to its end): the wall-clock budget, as before
    r = bc.check_bound(b, n_exhaustive=4, budget=SAFETY_SECONDS, progress=False)
    assert r["verdict"] == "NOT REFUTED" and r["stopped_by"] == []
    assert f"within a budget of {float(SAFETY_SECONDS)} s." in bc.render_tex(r)


def test_latex_escapes_user_strings(tmp_path):
    p = write_dedented(
        tmp_path,
        "evil.py",
        r'''
        NAME = r"\input{/etc/passwd} 100% $x_1$ #1"
        MECHANISM = "binary"
        DOMAIN = {"epsilon0": ("1", "1"), "n": (2, 2), "epsilon": ("0.5", "0.5")}
        def delta(epsilon, epsilon0, n):
            return 1  # \end{document}
    ''',
    )
    r = _check(p, n_exhaustive=2, budget=5)
    tex = bc.render_tex(r)
    assert r"\input{/etc/passwd}" not in tex
    assert r"\textbackslash{}input" in tex


@pytest.mark.tex
def test_pdf_compiles(tmp_path):
    from blanket.reports import latex

    if not latex.tex_available():
        pytest.skip("TeX Live not installed")
    r = _check(EXAMPLES / "binary_exact_times_0_9.py", n_max=4, n_exhaustive=3, budget=8)
    paths = bc.write_report(r, tmp_path)
    assert any(str(p).endswith(".pdf") for p in paths)


# (example, verdict at the CLI's defaults, largest n of the reduced form: None = the example's whole domain[,
# evaluations of the reduced form: default 1000 for a wrong bound, 250 for a valid one[, largest n of its exhaustive
# phase]])
_EXAMPLE_VERDICTS = [
    # the exact side at n = 2000 takes seconds per dataset family (the ball sweep: the float route cannot resolve
    # deltas near 1e-21); the reduced form stops the families at n = 200 (refuted in the exhaustive phase anyway;
    # at n = 700 it took ~2.5 min on a loaded machine, ~1 min at n = 200)
    ("binary_exact_times_0_9.py", "REFUTED", 200),
    # k-RR's lumped view: refuted at n = 2 within 100 evaluations (~5 s CPU); 1000 took ~15 min on a loaded machine
    ("krr_lumped_view.py", "REFUTED", 200, 100),
    # refuted within 100 evaluations (first violation at n = 92, ~3 s CPU); 200 for a margin (1000: ~15 min loaded)
    ("erlingsson_constant_1.py", "REFUTED", None, 200),
    ("blanket_view.py", "NOT REFUTED", None),
    ("hoeffding_krr.py", "NOT REFUTED", None),
    ("theorem_5_3_slide.txt", "NOT REFUTED", None),
    # refuted in the families phase (first at n = 150, k = 3 after 1000 evaluations on the whole domain: 16 min wall
    # at load ~10); reduced: n <= 150 and the exhaustive phase up to n = 3: refuted within 1000 evaluations (3 min)
    ("bennett_2019_krr.py", "REFUTED", 150, None, 3),
    ("bennett_2020_krr.py", "NOT REFUTED", None),
    # a valid bound uses its whole budget (250 evaluations took ~5 min at load 2-3): 80 in the reduced form
    ("erlingsson_theorem_7.txt", "NOT REFUTED", None, 80),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, verdict, reduced", [(e[0], e[1], e[2:]) for e in _EXAMPLE_VERDICTS], ids=[e[0] for e in _EXAMPLE_VERDICTS]
)
def test_examples_default_budget(slow_level, name, verdict, reduced):
    # the wrong examples are refuted and the valid ones are not, at the CLI's defaults (reduced: smaller budget);
    # budgets are counted in evaluations (deterministic under any load), see _check
    # a valid bound uses its whole budget; in reduced form give those fewer evaluations (still not refuted)
    reduced_n_max, reduced_evals, reduced_n_exhaustive = (*reduced, None, None)[:3]
    reduced = slow_level == "reduced"
    evals = (reduced_evals or (1000 if verdict == "REFUTED" else 250)) if reduced else 3000
    kw = {"n_exhaustive": reduced_n_exhaustive} if reduced and reduced_n_exhaustive else {}
    r = _check(EXAMPLES / name, evaluations=evals, n_max=reduced_n_max if reduced else None, **kw)
    assert r["verdict"] == verdict, name


def test_hypothesis_search_shrinks_to_smallest_n(tmp_path):
    # exact worst case (a valid, tight bound) for n < 5, then 0.9 x exact: the smallest violating n is 5
    domain = '{"epsilon0": ("1", "2"), "n": (2, 6), "k": (3, 3), "epsilon": ("0.1", "0.5")}'
    value = "v + v.rad() if n < 5 else fmpq(9, 10) * v"
    p = write_dedented(tmp_path, "late.py", _KRR_WORST_CASE.format(domain=domain, prec=300, value=value))
    s = bc.Search(bc.load_bound(p), n_exhaustive=6, budget=SAFETY_SECONDS, max_evaluations=500, progress=False)
    s.phase_hypothesis(1.0)
    assert s.hypothesis_info["violations"] > 0
    assert s.hypothesis_info["shrunk_to"]["n"] == 5
    assert all(pt.n >= 5 for pt in s.points if pt.outcome == "violated")


def test_summary_counts_points_and_distinct_counterexamples_separately():
    """A point checked in two phases is counted twice among the outcomes but once among the counterexamples:
    the summary must say which count it prints (it once read '156 violated' next to 'counterexample of 153')."""
    from blanket.reports.commands.check_bound import summary

    viol = {"n": 2, "k": 2, "epsilon0": "1/2", "epsilon": "1/10", "exact": {"lower": "0.13"}}
    viol["bound"] = {"enclosure": {"upper": "0.11"}}
    report = {
        "counts": {"violated": 3, "holds": 1},
        "checked_region": {"n": [2, 4], "k": [2, 2]},
        "budget_evaluations": None,
        "elapsed_seconds": 1.0,
        "budget_seconds": 10,
        "verdict": "REFUTED",
        "bound": {"name": "test bound"},
        "violations": [viol],
        "violations_total": 2,
    }
    text = summary(report, "delta")
    assert "checked at 4 points (1 hold, 3 violated)" in text
    assert "smallest of 2 distinct counterexamples (n, k, epsilon0, epsilon" in text
    assert "exact delta >= 0.13 > bound 0.11" in text
