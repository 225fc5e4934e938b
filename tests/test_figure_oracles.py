"""reports/figures/oracles.py: the ε(n) curves are certified (checked through independent routes at n = 1000;
reduced: n = 200)."""

from __future__ import annotations

import pytest
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.shuffled.oracles import blanket_view_delta, clone_delta, same_family_delta
from blanket.reports.figures import oracles as F
from flint import fmpq


@pytest.mark.slow
def test_curves_at_n_1000_are_certified(slow_level):
    # full: n = 1000 (the exact Lemma 5.3 mixture of OUE k=128 takes minutes there); reduced: n = 200 (seconds),
    # the same two routes, the same independent re-evaluations
    n = 1000 if slow_level == "full" else 200
    rows = F._series(True, ns=[n], only=("OUE k=128", "any eps0-LDP (clone)"))
    mechs = dict(F.mechanisms())
    assert len(rows) == 2
    target = fmpq(1, 10**6)
    with arith.precision(128):
        for r in rows:
            m, n = mechs[r["mechanism"]], r["n"]
            assert 0 < r["eps_lower"] < r["eps_upper"] < 2
            # upper end: re-evaluated with the exact Lemma 5.3 mixture (not the fast convex-order bracket)
            up = (
                clone_delta(m, n, epsilon=r["eps_upper"])
                if isinstance(m, LDP)
                else blanket_view_delta(m, n, epsilon=r["eps_upper"])
            )
            assert arith.le(up, target) is True
            # lower end: the dataset pair's exact δ certainly exceeds the target there
            assert arith.gt(same_family_delta(m, n, epsilon=r["eps_lower"]), target) is True


def test_registered_and_listed():
    from blanket.reports.figures import get_figure

    assert get_figure("oracles-epsilon").make is F.make


@pytest.mark.slow
def test_quick_figure_files(tmp_path, monkeypatch, slow_level):
    if slow_level != "full":  # reduced: two of the curves at n = 300, 1000 (the quick figure's n = 10^4 takes minutes)
        series = F._series
        monkeypatch.setattr(
            F, "_series", lambda quick: series(quick, ns=[300, 1000], only=("OUE k=128", "any eps0-LDP (clone)"))
        )
    paths = F.make(tmp_path, quick=True)
    assert sorted(p.name for p in paths) == ["oracles-epsilon.csv", "oracles-epsilon.pdf", "oracles-epsilon.png"]
    assert (tmp_path / "oracles-epsilon.png").read_bytes()[:4] == b"\x89PNG"
