"""The certified bracket within ``rel_width`` (``ShuffleAccountant._refine_bracket``, docs/composition.md §3 "The bracket
within rel_width"): a query whose bracket ``(upper − lower)/upper`` is wider than ``rel_width`` on the grid search's grid
composes its deciding lower kind on finer grids, then the whole query, while the refinement's budget admits it, and
keeps the better ends of the grids (each certified); when it stops short the answer says why
(``details["bracket"]``, the CLI's line).  The budget is forced here (``refine_seconds``), so that these tests are about
the mechanics, not about the cost model's choice."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting import composition_cost as cost
from blanket.exact.mechanisms import oracles
from blanket.exact.numbers.errors import OutOfTime
from blanket.exact.runtime import progress
from blanket.reports import cli
from flint import fmpq

# 3-RR, ε0 = 1, n = 200, T = 10, δ = 1e-6: 2.33 % on the grid search's grid (5/2048, at rel_width 2 %)
EV, T, DELTA = A.ShuffledRR(k=3, epsilon0="1", n=200), 10, "1e-6"


@pytest.fixture(autouse=True)
def _no_lower_kind_refinement(monkeypatch):
    """The query's own refinement of its deciding lower kind (_refined_lower, by the cost model's choice: it brings
    this case within 2 % by itself since session 12's refine_share) left out: these tests are about the bracket's."""
    monkeypatch.setattr(A, "REFINE_FACTORS", ())


def _acc(**kw):
    return A.ShuffleAccountant(**kw).compose(EV, count=T)


def _direct_lower(grid: Fraction, pair_name: str) -> Fraction:
    """An independent composition of the named lower pair on ``grid`` (a fixed-grid accountant's own PLD)."""
    kind = next(k for k, v in A.LOWER_NAMES.items() if v == pair_name)
    p = A.ShuffleAccountant(grid=grid).compose(EV, count=T)._pld(grid, kind)
    return A._frac(p.get_epsilon(fmpq(1, 10**6)))


@pytest.mark.parametrize("rel", ["0.02", "0.015"])
def test_a_wide_bracket_is_refined_within_rel_width_when_the_budget_admits_it(rel):
    plain = _acc(rel_width=rel, refine_seconds=0).get_epsilon(DELTA)
    assert plain.rel_width > Fraction(rel)  # outside without the refinement
    e = _acc(rel_width=rel, refine_seconds=10**6).get_epsilon(DELTA)
    b = e.details["bracket"]
    assert b["within"] and b["stopped_by"] is None and e.rel_width <= Fraction(rel)
    assert b["lower_steps"] >= 1 and b["width"] == A.arith.decimal_string(
        fmpq(e.rel_width.numerator, e.rel_width.denominator), 4, up=True
    )
    # never looser than the unrefined answer, and the two certified brackets of one mechanism meet
    assert e.lower >= plain.lower and e.upper <= plain.upper and e.lower <= plain.upper
    # the reported lower end is the named lower pair composed on the named grid, as a fixed-grid accountant composes it
    assert Fraction(e.details["lower_grid"]) < Fraction(plain.details["lower_grid"])
    assert _direct_lower(Fraction(e.details["lower_grid"]), e.details["lower_pair"]) == e.lower


def test_without_budget_the_answer_says_so():
    e = _acc(refine_seconds=0).get_epsilon(DELTA)
    b = e.details["bracket"]
    assert not b["within"] and b["stopped_by"] == "budget" and b["next_seconds"] > 0 and b["budget_seconds"] == 0
    assert b["passes"] == 0 and "lower_steps" not in b


def test_the_cli_line_and_json_field(capsys):
    args = ["epsilon", "--mechanism", "krr", "--k", "3", "--epsilon0", "1", "-n", "200", "--delta", "1e-6"]
    assert cli.main([*args, "--rounds", "10", "--refine-seconds", "0"]) == 0
    out = capsys.readouterr().out
    assert "Bracket 2.33 % wide, above rel_width 2 %: stopped by the refinement budget" in out
    assert "use --refine-seconds SECONDS to go on" in out
    assert cli.main([*args, "--rounds", "10", "--refine-seconds", "1000", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["bracket"]["within"] is True and payload["bracket"]["lower_steps"] >= 1
    assert cli.main([*args, "--rounds", "10", "--refine-seconds", "-1"]) == 2
    assert "--refine-seconds" in capsys.readouterr().err


def test_a_whole_pass_when_no_lower_step_applies(monkeypatch):
    monkeypatch.setattr(A.ShuffleAccountant, "_lower_at", lambda self, g, dt, finest: None)
    plain = _acc(refine_seconds=0).get_epsilon(DELTA)
    acc = _acc(refine_seconds=10**6)
    e = acc.get_epsilon(DELTA)
    b = e.details["bracket"]
    assert (
        b["passes"] >= 1
        and b["grids"][0] == str(plain.grid)
        and Fraction(b["grids"][-1]) == plain.grid / 2 ** b["passes"]
    )
    assert acc._cache["auto"] == Fraction(b["grids"][-1])  # the finer grid is the accountant's grid from now on
    assert e.lower >= plain.lower and e.upper <= plain.upper and e.rel_width < plain.rel_width
    # the coarser grid's PLDs are dropped (memory); the finer grid's ends are a fixed-grid accountant's there
    assert (plain.grid, "upper") not in acc._cache
    fixed = A.ShuffleAccountant(grid=Fraction(b["grids"][-1]), refine_seconds=0).compose(EV, count=T)
    assert fixed.get_epsilon(DELTA).upper == e.upper


def test_a_gap_no_grid_closes_costs_no_pass(monkeypatch):
    # the geometric mechanism's lower end is its one round's alone, far below: the excess over rel_width is more than
    # the discretisation's own width, so nothing more is composed
    geo = A.Shuffled(oracles.Geometric(3, alpha="1/2"), 200)
    acc = A.ShuffleAccountant(refine_seconds=10**6).compose(geo, count=10)
    calls = []
    real = acc._epsilon_on
    acc._epsilon_on = lambda g, dt: calls.append(g) or real(g, dt)
    e = acc.get_epsilon(DELTA)
    assert e.details["bracket"]["stopped_by"] == "gap" and not e.details["bracket"]["within"]
    assert len(calls) == 1 and e.details["bracket"]["passes"] == 0


def test_the_time_budget_stops_it_and_keeps_the_certified_answer(monkeypatch):
    plain = _acc(refine_seconds=0).get_epsilon(DELTA)
    with monkeypatch.context() as m:
        m.setattr(progress, "time_left", lambda: 0.0)
        e = _acc(refine_seconds=10**6).get_epsilon(DELTA)
    assert e.details["bracket"]["stopped_by"] == "time budget" and (e.lower, e.upper) == (plain.lower, plain.upper)
    # running out during a pass: that pass's partial work is dropped, the last grid's answer stands

    def out(self, *a, **k):
        raise OutOfTime("the time budget ran out")

    monkeypatch.setattr(A.ShuffleAccountant, "_lower_step", out)
    e = _acc(refine_seconds=10**6).get_epsilon(DELTA)
    assert e.details["bracket"]["stopped_by"] == "time budget" and (e.lower, e.upper) == (plain.lower, plain.upper)


def test_a_fixed_grid_is_kept():
    plain = _acc(refine_seconds=0).get_epsilon(DELTA)
    e = _acc(grid=plain.grid, refine_seconds=10**6).get_epsilon(DELTA)
    assert e.details["bracket"]["stopped_by"] == "grid" and e.grid == plain.grid and e.lower == plain.lower


def test_merge_keeps_the_better_end_of_each():
    def ans(lo, up, name):
        return A.CertifiedEpsilon(
            lower=Fraction(lo),
            upper=Fraction(up),
            pair_lower=Fraction(lo),
            grid=Fraction(1, 8),
            rounds=1,
            details={"lower_pair": name, "lower_grid": name},
        )

    m = A.ShuffleAccountant._merge(ans(1, 3, "old"), ans(2, 4, "new"))
    assert (m.lower, m.upper, m.details["lower_pair"]) == (2, 3, "new")
    m = A.ShuffleAccountant._merge(ans(2, 4, "old"), ans(1, 3, "new"))
    assert (m.lower, m.upper, m.details["lower_grid"]) == (2, 3, "old")


def test_the_pass_model_is_deterministic_and_grows_with_the_factor():
    acc = _acc(refine_seconds=0)
    e = acc.get_epsilon(DELTA)
    one = acc._bracket_pass_seconds(e.grid)
    assert one == acc._bracket_pass_seconds(e.grid) > 0
    lengths = acc._bracket_lengths(e.grid)
    assert lengths and cost.bracket_pass_seconds(lengths, 2) < cost.bracket_pass_seconds(lengths, 4)


def test_the_memory_limit_stops_a_whole_pass(monkeypatch):
    from blanket.exact.numbers import guards

    monkeypatch.setattr(A.ShuffleAccountant, "_lower_at", lambda self, g, dt, finest: None)
    monkeypatch.setattr(guards, "max_memory", lambda: 1)
    e = _acc(refine_seconds=10**6).get_epsilon(DELTA)
    assert e.details["bracket"]["stopped_by"] == "memory" and e.details["bracket"]["passes"] == 0


def test_the_reported_pairs_own_sandwich_above_rel_width_gets_a_whole_pass(monkeypatch):
    # OUE's reported upper end is its curve pair's, whose PLD sandwich the grid search does not judge; the grid search
    # is forced to a grid on which that sandwich is above rel_width (about 3 %) while the bracket's excess is the
    # pairs' gap (about 11 % wide): the refinement makes whole passes until the sandwich is within, no lower step
    ev, grid = A.Shuffled(oracles.OUE(16, 1), 200), Fraction(5, 1024)
    monkeypatch.setattr(A.ShuffleAccountant, "_auto_grid", lambda self, dt: self.grid or grid)

    def acc(budget):
        return A.ShuffleAccountant(refine_seconds=budget).compose(ev, count=T)

    plain = acc(0).get_epsilon(DELTA)
    assert "curve pairs" in plain.details["pld_routes"] and plain.route == "PLD"
    assert plain.sandwich_width > A.ShuffleAccountant().rel_width  # the reported pair's own width, above 2 %
    assert plain.rel_width - Fraction(1, 50) >= plain.sandwich_width  # the gap rule alone would stop here
    assert plain.details["bracket"]["stopped_by"] == "budget"  # not "gap": a finer grid narrows the sandwich
    e = acc(10**6).get_epsilon(DELTA)
    b = e.details["bracket"]
    assert b["passes"] >= 1 and b["sandwich_passes"] == b["passes"] and "lower_steps" not in b
    assert e.sandwich_width <= Fraction(1, 50) < plain.sandwich_width and b["stopped_by"] == "gap"
    assert e.upper <= plain.upper and e.lower >= plain.lower
    # the finer grid's upper end is what a fixed-grid accountant composes there (an independent query)
    fixed = A.ShuffleAccountant(grid=Fraction(b["grids"][-1]), refine_seconds=0).compose(ev, count=T)
    assert fixed.get_epsilon(DELTA).upper == e.upper and e.grid == Fraction(b["grids"][-1])


def test_scaled_and_regridded_accountants_keep_every_setting():
    """The picture's scaled accountants and a certificate's retry on a finer grid keep the caller's settings (the
    refinement budget and the one-round tolerance were dropped by the scaled one before)."""
    from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR

    acc = ShuffleAccountant(refine_seconds=0, one_round_rel_tol="1e-3", rel_width="0.05", curves=False, workers=1)
    acc.compose(ShuffledRR(k=2, epsilon0="1", n=10), count=4)
    for other in (acc.scaled("1/2"), acc.regridded("1/1024")):
        assert other.refine_seconds == 0 and other.one_round_rel_tol == acc.one_round_rel_tol
        assert (other.rel_width, other.curves, other.workers, other.prec) == (acc.rel_width, False, 1, acc.prec)
