"""The accountant's automatic PLD grid (``ShuffleAccountant._auto_grid``): ``rel_width`` bounds the certified bracket
of the *mechanism's* ε where a mechanism lower end is at hand (binary RR's grid-free summed pair), else the dominating
pairs' PLD sandwich as before; the grid is never finer than the sandwich criterion alone chooses."""

from fractions import Fraction

from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR
from blanket.exact.mechanisms import oracles

REL = Fraction(2, 100)


def _sandwich_only(ev, T):
    """The same ledger with the mechanism's bracket left out of the grid choice (the criterion before 29 Nov)."""
    acc = ShuffleAccountant().compose(ev, count=T)
    acc._mechanism_lower = lambda grid, dt: None
    return acc.get_epsilon("1e-6")


def test_the_bracket_decides_the_grid_when_the_summed_pair_is_at_hand():
    ev, T = ShuffledRR(k=2, epsilon0="1", n=150), 60
    e = ShuffleAccountant().compose(ev, count=T).get_epsilon("1e-6")
    assert e.details["lower_pair"].startswith("summed counts")
    assert e.rel_width == (e.upper - e.lower) / e.upper <= REL  # the bracket the CLI prints
    assert e.sandwich_width == (e.upper - e.pair_lower) / e.upper
    old = _sandwich_only(ev, T)
    # a coarser grid (5/2048 against 13/16384 at this commit): the sandwich alone is wider than rel_width there
    assert e.grid > old.grid and e.sandwich_width > REL
    # the old grid's bracket is no narrower than rel_width allows either: both answers certify the same mechanism
    assert old.lower == e.lower and old.rel_width <= REL


def test_without_a_mechanism_lower_end_the_sandwich_decides_as_before(monkeypatch):
    # a round without a composed lower pair (no mechanism lower end for the grid search; the geometric mechanism until
    # session 13, here with its threshold count switched off): its lower end is the one round's alone
    # (docs/composition.md §5e, a post-processing; before session 11 it was 0), far below the upper end, so the
    # bracket never meets REL and the sandwich decides the grid
    geo = Shuffled(oracles.Geometric(3, alpha="1/2"), 200)
    with_pair = ShuffleAccountant().compose(geo, count=10).get_epsilon("1e-6")
    monkeypatch.setattr(Shuffled, "lower_pair", lambda self, direction="forward": None)
    monkeypatch.setattr(Shuffled, "has_lower_pair", lambda self: False)  # decided without building it (estimates15)
    monkeypatch.setattr(ShuffleAccountant, "_summed_pairs", lambda self: None)
    e = ShuffleAccountant().compose(geo, count=10).get_epsilon("1e-6")
    assert with_pair.lower > e.lower  # session 13: the composed threshold count lies above the one round's end
    assert e.details["lower_pair"].startswith("one round alone")
    assert 0 < e.lower < e.upper and e.rel_width > REL and e.sandwich_width <= REL
    assert e.grid == _sandwich_only(geo, 10).grid
    # 3-RR has composed lower pairs but no grid-free one: none is composed for the test, the grid is as before
    # (its bracket is now within REL too: the banded lower pair and the lower kind's finer grid, session 10)
    krr = ShuffledRR(k=3, epsilon0="1", n=300)
    e = ShuffleAccountant().compose(krr, count=10).get_epsilon("1e-6")
    assert e.lower > 0 and e.sandwich_width <= REL
    assert e.grid == _sandwich_only(krr, 10).grid


def test_a_bracket_out_of_reach_falls_back_to_the_sandwich():
    """n = 50, T = 100: the curve pair lies 3 % above the summed lower end whatever the grid (the summed statistic
    and the composed lower pairs lose more at small n, docs/composition.md §5h): the sandwich accepts the grid."""
    ev = ShuffledRR(k=2, epsilon0="1", n=50)
    e = ShuffleAccountant().compose(ev, count=100).get_epsilon("1e-6")
    assert e.lower > 0 and e.sandwich_width <= REL < e.rel_width
