"""A δ query chooses its grid without the sampled full view's one-round ε search (task polish14, item 1).  Before,
``blanket delta`` called ``get_epsilon("1e-6")`` to choose its grid, which for one sampled OUE/SUE round ran the full
view's ε search (about six evaluations, ~10 CPU s at k = 128, n = 10³, q = 1/10) although the δ query reads the view
once at its ε.  Independent route: the old sequence (``get_epsilon`` then ``get_delta``) on a fresh accountant; the
number of full-view evaluations counted (no timing)."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction

from blanket.exact.accounting import accountant as A
from blanket.exact.accounting.accountant import Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.oracles import OUE
from blanket.exact.shuffled import oracle_third as T
from flint import fmpq


def _counting(monkeypatch) -> list:
    calls: list = []
    orig = T.sampled_full_lower

    def counted(*a, **k):
        calls.append(k.get("epsilon"))
        return orig(*a, **k)

    monkeypatch.setattr(T, "sampled_full_lower", counted)
    return calls


def _acc():
    acc = A.ShuffleAccountant(workers=1)
    return acc.compose(Sampled(Shuffled(OUE(3, exp_epsilon0=3), 8), Fraction(1, 2)))


def test_choose_grid_then_delta_is_the_old_bracket_with_one_evaluation(monkeypatch):
    target, eps = fmpq(1, 10**3), fmpq(1, 10)
    calls = _counting(monkeypatch)
    old = _acc()
    old.get_epsilon(target)
    assert len(calls) > 1  # the instance: get_epsilon runs the full view's epsilon search
    r_old = old.get_delta(eps)
    calls.clear()
    new = _acc()
    g = new.choose_grid(target)
    assert calls == []  # no full-view evaluation to choose the grid
    r_new = new.get_delta(eps)
    assert calls == [eps]  # the delta query's own one
    assert g == Fraction(r_new.grid) == Fraction(r_old.grid)
    assert r_new.upper <= r_old.upper and r_new.lower >= r_old.lower
    assert r_new.details["lower_pair"] == A.LOWER_NAMES["one-round"] + f" ({A.ONE_ROUND_LOWER_ROUTES['sampled-full']})"


def test_cli_delta_runs_no_epsilon_search(monkeypatch):
    from blanket.reports import cli

    calls = _counting(monkeypatch)
    argv = ["delta", "--mechanism", "oue", "--k", "16", "--epsilon0", "2", "-n", "200", "--sampling", "1/2"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli.main([*argv, "--epsilon", "0.3", "--workers", "1", "--json"]) == 0
    out = json.loads(buf.getvalue())
    assert calls == [fmpq(3, 10)]  # before: 7 (the epsilon search at delta = 1e-6, then this one)
    assert "full view" in out["one_round"]["lower_from"]
    assert Fraction(out["delta"]["lower"]) < Fraction(out["delta"]["upper"])
