"""The bound-check report typesets every kind of bound: a symbolic ``.txt`` bound's formula is set in display math
(a bare ``\\frac`` outside math mode made LaTeX fail and ``check-bound`` exit 3 on every ``.txt`` example)."""

import pathlib
from fractions import Fraction

import pytest

from tests._helpers import run_cli

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "bounds"


@pytest.mark.tex
@pytest.mark.parametrize("name", ["theorem_5_3_slide.txt"])
def test_txt_bound_report_compiles(tmp_path, name):
    from blanket.reports import latex

    if not latex.tex_available():
        pytest.skip("TeX Live not installed")
    out = tmp_path / "out"
    r = run_cli(f"check-bound {EXAMPLES / name} --max-evaluations 30 --n-max 3 --budget 120 -o {out}", timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert (out / "bound_check.pdf").is_file()
    tex = (out / "bound_check.tex").read_text()
    body = tex[tex.index(r"\end{tabular}") :]
    # the formula sits in display math (\[ … \] or an align* environment), never bare in the text
    first = body.index(r"\frac")
    opened = max(body.rfind(r"\[", 0, first), body.rfind(r"\begin{align", 0, first))
    assert opened != -1 and body.rfind(r"\]", 0, first) < opened, body[:600]


def test_note_names_the_budget_that_stopped_the_search():
    # a valid bound and a small evaluation budget under a generous clock: the evaluation budget stops the
    # hypothesis search, and the note says so (it used to say "time budget" whatever stopped it)
    from blanket.reports import bound_check as bc

    r = bc.check_bound(
        bc.load_bound(EXAMPLES / "hoeffding_krr.py"), max_evaluations=60, budget=900, progress=False, n_exhaustive=3
    )
    stops = [n for n in r["notes"] if "hypothesis search stopped" in n]
    assert stops == ["hypothesis search stopped at the evaluation budget"], r["notes"]


def test_ratios_of_nonnegative_quantities_never_print_a_negative_lower_end():
    # an exact δ enclosed by a ball around a tiny value (lower end < 0) over a positive target: the printed
    # ratio's lower end is 0 with the reason, not the ball's negative end (it printed "from -3.3e-24 to …")
    from types import SimpleNamespace

    from blanket.reports import bound_check as bc
    from flint import arb, fmpq

    s = SimpleNamespace(bound=SimpleNamespace(quantity="epsilon"))
    p = SimpleNamespace(exact=arb(0, fmpq(1, 10**20)), bound=SimpleNamespace(value=fmpq(1, 10)), param=fmpq(1, 10**6))
    r = bc._ratio(s, p)["exact_delta_over_target"]
    assert r["lower"] == "0" and "lower_clamped" in r
    assert Fraction(r["upper"]) >= Fraction(1, 10**14)  # the upper end is kept (outward: ≥ 10^-20 / 10^-6)
