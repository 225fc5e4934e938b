"""positive_part.chernoff_upper at values that are all <= 0 (the curve's top, e^ε = e^{ε0}), and the one-round text.

Before session 11's fix the λ search ran to 800/1e-300 there and `round(λ·2^40)` overflowed: `blanket epsilon
--mechanism oue --k 4 --epsilon0 2 -n 50 --delta 1e-6 --rounds 1` (and `--rounds 2`) stopped with an internal error."""

from fractions import Fraction

from blanket.exact.mechanisms.oracles import OUE
from blanket.exact.numbers import arith
from blanket.exact.shuffled import oracles as fast_oracles
from blanket.exact.shuffled.positive_part import LAMBDA_MAX, chernoff_upper
from blanket.reports import cli
from flint import fmpq


def test_nonpositive_values_give_a_finite_valid_bound():
    # E[(sum of 50 draws of {0, -1})_+] = 0 exactly: the bound is finite, >= 0, and small (λ at its cap)
    v = chernoff_upper(50, [(fmpq(1, 2), fmpq(0)), (fmpq(1, 2), fmpq(-1))])
    lo, hi = arith.endpoints(v)
    assert 0 <= lo <= hi < Fraction(1, 2**50)  # (1/2)^50 / (λ e) with λ = 2^40
    assert LAMBDA_MAX == 2.0**40


def test_ball_values_around_zero_at_the_curves_top():
    # OUE e^{ε0} = e^2 (a ball) at e^ε = e^{ε0}: the "t" value γ(e − e^ε) is a ball around 0 and the others are < 0;
    # Lemma 5.3's δ is 0 there, the certified upper end must be a finite ball containing it
    m = OUE(4, epsilon0=2)
    lo, hi = arith.endpoints(fast_oracles.blanket_view_upper(m, 50, exp_epsilon=m.exp_epsilon0()))
    assert lo <= 0 <= hi < Fraction(1, 10**10)


def test_one_round_through_the_cli_runs_and_says_which_bound_decided(capsys):
    args = ["epsilon", "--mechanism", "oue", "--k", "4", "--epsilon0", "2", "-n", "50", "--delta", "1e-6"]
    assert cli.main([*args, "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "decided by the one round route" in out
    assert "Upper end: the one round's own bound (below); the composition's: product of dominating pairs" in out
    assert cli.main([*args, "--rounds", "2"]) == 0  # no one-round end at T = 2: the line describes the composition
    out = capsys.readouterr().out
    assert "Upper end: product of dominating pairs" in out and "one round's own bound" not in out
