"""Helpers shared by several test files (import as ``from tests._helpers import …``)."""

import pathlib
import re
import shlex
import subprocess
import sys
import textwrap

import pytest
import tomllib
from blanket.exact.numbers.errors import HypothesisViolation
from blanket.proofs import core
from flint import arb, fmpq
from hypothesis import strategies as st

DATA = pathlib.Path(__file__).resolve().parent / "data"


def merged_atoms(atoms):
    """Merge privacy-loss atoms ``(label, P, Q)`` with equal exact ratio ``P/Q``: the loss law, for cheaper exact
    products (labels become ``(ratio,)``; atoms with ``P = 0`` are dropped).  Atoms given as balls are not merged
    (a ball is no dictionary key): then only the exact ``P = 0`` atoms are dropped."""
    if any(isinstance(P, arb) or isinstance(Q, arb) for _, P, Q in atoms):
        return [a for a in atoms if not (isinstance(a[1], fmpq) and a[1] == 0)]
    d = {}
    for _, P, Q in atoms:
        if P == 0:
            continue
        r = P / Q
        a, b = d.get(r, (fmpq(0), fmpq(0)))
        d[r] = (a + P, b + Q)
    return [((r,), P, Q) for r, (P, Q) in d.items()]


def paper_check_report(papers: list, *, grid_points: int, counterexamples: int, quick: bool, command: str) -> dict:
    """A ``blanket check-papers`` report around ``papers`` (``[{"key", "title", "results"}]``) with an otherwise
    empty summary, for rendering tests."""
    return {
        "papers": papers,
        "summary": {
            "results": sum(len(p["results"]) for p in papers),
            "grid_points": grid_points,
            "counterexamples": counterexamples,
            "false_statements": [],
            "known_false_caught": [],
            "known_false_missed": [],
            "symbolically_proved": 0,
            "by_status": {},
        },
        "paper": "all",
        "quick": quick,
        "reproducibility": {"command": command, "precision_start": 128, "precision_cap": 4096, "versions": {}},
    }


@st.composite
def stochastic_rows(draw, k_in, k_out, weight_min: int, weight_max: int) -> list:
    """Hypothesis: the rows of an exact row-stochastic ``k_in × k_out`` matrix (each size an int or a strategy of
    ints); a row is drawn as integer weights in ``[weight_min, weight_max]`` (an all-zero row becomes
    ``(1, 0, …)``) and normalised.  ``weight_min ≥ 1`` gives full support (finite ε0)."""
    ki = k_in if isinstance(k_in, int) else draw(k_in)
    ko = k_out if isinstance(k_out, int) else draw(k_out)
    rows = []
    for _ in range(ki):
        w = [draw(st.integers(weight_min, weight_max)) for _ in range(ko)]
        if sum(w) == 0:
            w[0] = 1
        rows.append([fmpq(v, sum(w)) for v in w])
    return rows


def run_cli(line: str, **kw) -> subprocess.CompletedProcess:
    """``python -m blanket.reports.cli`` on a command line (split like a shell does), in a new process, its output
    captured as text; ``kw`` go to :func:`subprocess.run` (e.g. ``cwd``, ``env``, ``timeout``)."""
    return subprocess.run(
        [sys.executable, "-m", "blanket.reports.cli", *shlex.split(line)], capture_output=True, text=True, **kw
    )


def write_dedented(directory: pathlib.Path, name: str, text: str) -> pathlib.Path:
    """Write ``text``, dedented (:func:`textwrap.dedent`), to the file ``name`` in ``directory``; return its path."""
    p = directory / name
    p.write_text(textwrap.dedent(text))
    return p


def hypothesis_cases(paper: str) -> list:
    """``pytest.param(key, params, hypothesis)`` for each case of tests/data/hypotheses.toml under ``paper``, one per
    result the case lists: a parameter point outside the result's hypotheses and the hypothesis its refusal names."""
    cases = tomllib.loads((DATA / "hypotheses.toml").read_text(encoding="utf-8"))[paper]
    return [
        pytest.param(key, case["params"], case["hypothesis"], id=f"{key}: {case['hypothesis']}")
        for case in cases
        for key in case["results"]
    ]


def assert_refused(key: str, params: dict, hypothesis: str) -> None:
    """The registered result ``key`` refuses ``params`` with a HypothesisViolation naming ``hypothesis`` (its text,
    matched literally)."""
    with pytest.raises(HypothesisViolation, match=re.escape(hypothesis)):
        core.get(key).bound(**params)
