"""Tiny participation q in the sampled frequency-oracle blanket view (session 12, task nan12).

The sampled record ``R_q`` has ``γ_q = 1 − q + q·γ``; the engines took its missing mass as ``1 − γ_q``, which at
the working precision is ``[0 ± 2^-prec]`` once ``q < 2^-prec`` (a ball over 0: the blanket view came out NaN, probe12's
"x must be a finite ball to print it, got 'nan'" at q = 1e-40), and Lemma 5.3's mixture over ``M ~ Bin(n, γ_q)``
took ``log(1 − γ_q)`` and a bulk probability ``π_rest/(π_rest + π_both)`` over 1 (NaN).  Now ``1 − γ_q = q(1 − γ)``
(:meth:`SampledFourValue.gamma_complement`) and the mixture swaps its two ancillary atoms when ``π_rest`` is within a
ball's rounding of 1.  Checked here against (1) the same record with exact rational entries (exact arithmetic, no
ball), (2) test_probe12's mpmath brute force of the shuffled sampled randomizer (every dataset, n = 3), at q = 1e-40,
1e-100, 1e-400.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from blanket.exact.accounting.sampled import SampledFourValue
from blanket.exact.mechanisms.oracles import OUE, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.shuffled.oracles import blanket_view_bracket, blanket_view_delta, blanket_view_delta_merged
from flint import arb, fmpq

from tests.test_probe12 import _sampled, _unary, worst_delta

TINY = ["1e-40", "1e-100", "1e-400"]
EE = fmpq(11, 10)  # e^ε, exact: the exact-entry record's views are exact rationals


def _inside(b, e) -> None:
    """The ball ``b`` is finite and holds the exact rational ``e`` (compared at the ball's exact endpoints)."""
    assert b.is_finite(), b
    lo, hi = arith.endpoints(b)
    assert lo <= Fraction(int(e.p), int(e.q)) <= hi, (b, e)


def _views(m, n=3):
    """Every blanket-view value of ``m`` at e^ε = 11/10 (the bracket's two ends, merged, Lemma 5.3): exact rationals
    for exact entries, else balls."""
    br = blanket_view_bracket(m, n, exp_epsilon=EE)
    return [
        br.lower,
        br.upper,
        blanket_view_delta_merged(m, n, exp_epsilon=EE),
        blanket_view_delta(m, n, exp_epsilon=EE),
    ]


@pytest.mark.parametrize("q", TINY)
def test_gamma_complement_keeps_the_digits(q):
    exact = SampledFourValue(UnaryEncoding(3, p=fmpq(1, 2), q=fmpq(1, 4)), q)
    qq = arith.exact(q)
    assert exact.gamma_complement() == 1 - exact.gamma() == qq * (1 - exact.base.gamma())  # exact: the same number
    with arith.precision(128):
        ball = SampledFourValue(UnaryEncoding(3, p=arb(fmpq(1, 2)), q=arb(fmpq(1, 4))), q)
        c = ball.gamma_complement()
        assert (1 - ball.gamma()).contains(0)  # the old form: no digit left
    _inside(c, exact.gamma_complement())
    assert c.rad() < c.mid() * arb(2) ** -100


@pytest.mark.parametrize("q", TINY)
def test_ball_views_enclose_the_exact_views(q):
    # p, q given as balls force the ball route (the old code: NaN at every q here); the exact entries give exact
    # rationals through the same formulas, an independent evaluation
    exact = _views(SampledFourValue(UnaryEncoding(3, p=fmpq(1, 2), q=fmpq(1, 4)), q))
    with arith.precision(128):
        ball = _views(SampledFourValue(UnaryEncoding(3, p=arb(fmpq(1, 2)), q=arb(fmpq(1, 4))), q))
    for b, e in zip(ball, exact):
        assert isinstance(e, fmpq) and isinstance(b, arb), (b, e)
        _inside(b, e)
        assert e > 0
        assert b.rad() < e * arb(2) ** -60  # narrow, not merely finite


@pytest.mark.parametrize("q", TINY)
def test_oue_views_bound_the_brute_force(q):
    # OUE k = 3, e^{ε0} = e (irrational: ball entries), n = 3: every upper end is at or above the exact worst δ of
    # the shuffled sampled randomizer, and the bracket holds Lemma 5.3's value
    with arith.precision(128):
        lo, up, merged, lemma = (arith.ball(v) for v in _views(SampledFourValue(OUE(3, epsilon0=fmpq(1)), q)))
    with mp.workdps(40):
        worst = worst_delta(_sampled(_unary(3, mp.mpf(1) / 2, 1 / (mp.e + 1)), mp.mpf(q)), 3, ee=mp.mpf(11) / 10)
        assert worst > 0
        for v in (up, merged, lemma):
            assert v.is_finite() and mp.mpf(v.upper().str(30, radius=False)) >= worst, (v, worst)
    assert all(v.is_finite() for v in (lo, up, merged, lemma))
    assert lo.lower() <= lemma.upper() and lemma.lower() <= up.upper()
    # δ scales like q here (n = 3): the upper end is within a factor 1.2 of the worst case, not a floor
    assert up.upper() < arb(fmpq(6, 5)) * arb(str(worst))


def test_refusal_below_the_floor_says_why():
    # the floor stays (docs/auditor.md): the refusal names the option, the value, and the limit that remains
    from blanket.exact.accounting.sampled import check_sampling
    from blanket.exact.numbers.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as ei:
        check_sampling(fmpq(1, 10**40), "--sampling", "1e-40")
    text = str(ei.value)
    assert text.startswith("--sampling must be >= 1e-30") and "'1e-40'" in text and "mass unit" in text, text
    assert "NaN" not in text
    check_sampling(fmpq(1, 10**30), "--sampling", "1e-30")  # the floor itself is taken
