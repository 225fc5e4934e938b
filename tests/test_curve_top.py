"""The worst-case curve's top point and the curve pair's tail cut (docs/composition.md §5d "The top point", §3).

Without a small certified value beyond the sweep's grid, the hull's last chord to ``(α_max, 0)`` puts the sweep's
a-priori slack (about 1e-11) as an atom at the loss ε0 (and its reflection at −ε0), and a composition carries it to
±3ε0: at n = 10^6, T = 365 the composed PLD was 1.5·10^6 points long instead of 1.3·10^5.  Independent routes: the
exact δ of every dataset (exact rationals, exact.shuffled.binary.delta_binary), the pair's exact hockey-stick curve.
"""

from __future__ import annotations

from blanket.exact.accounting import curve_steps, curves
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.shuffled.binary import delta_binary
from flint import fmpq


def _q(x) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _setup(e0: str, n: int) -> tuple:
    mech = BinaryRR(epsilon0=e0)
    e = mech.exp_epsilon0()
    hi = arith.endpoints(arith.ball(e))[1]
    am = fmpq(hi.numerator, hi.denominator)
    with arith.precision(96):
        lg = arith.endpoints(arith.ball(e).log())[1]
    top = curves._negligible_from(mech, n, fmpq(lg.numerator, lg.denominator))
    return mech, am, top, fmpq(lg.numerator, lg.denominator)


def test_top_point_is_above_every_dataset_and_beyond_the_grid():
    mech, am, top, e0 = _setup("1", 400)
    tp = curves._top_point(mech, 400, top, am, e0)
    assert tp is not None
    a, u = tp
    with arith.precision(128):
        assert arith.le(arith.ball(top).exp(), a) is True  # α ≥ e^top: E(α) ≤ E(e^top) ≤ the blanket view there
    assert a < am and 0 <= u <= curves.TOP_DELTA
    assert all(g < a for g in curves.curve_grid(top, 64))  # beyond every grid point
    with arith.precision(256):  # the values are about 1e-45: a wider ball would decide nothing
        for c in range(400):  # every dataset, both orders (the reverse of c is n - 1 - c)
            assert arith.le(delta_binary(mech, 400, c, exp_epsilon=a), u) is True, c


def test_no_top_point_where_the_grid_reaches_epsilon0():
    mech, am, top, e0 = _setup("1", 100)  # the blanket view is nowhere below 1e-30 before ε0 at n = 100
    assert top >= 1 and curves._top_point(mech, 100, top, am, e0) is None


def test_top_point_removes_the_far_atoms_and_never_raises_the_curve():
    n = 2000
    mech, am, top, e0 = _setup("1", n)
    grid = curves.curve_grid(top, 64)
    vals = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
    old = curves.pair_from_values(vals, alpha_max=am)
    new = curves.binary_worst_curve_pair(mech, n, points=64, workers=1, progress=False)
    # the old hull: the sweep's slack as an atom at α_max (the loss ε0); the new one: a negligible one
    far_old = sum((p for r, p, q in old.masses if r is not None and r >= am), fmpq(0))
    far_new = sum((p for r, p, q in new.masses if r is not None and r >= am), fmpq(0))
    assert far_old > fmpq(1, 10**14) and far_new < fmpq(1, 10**29)
    # one more certified point: the hull never rises (exact, at every vertex of either)
    for a in {r for r, p, q in old.masses + new.masses if r is not None} | {fmpq(1)}:
        assert new.hockey_stick(a) <= old.hockey_stick(a)
    # the discretised PLD: the far atom's mass goes to +inf (upper) or is dropped (lower), the support is the core's
    g = fmpq(1, 4096)
    up_old, up_new = old.discretise(g, "upper"), new.discretise(g, "upper")
    assert len(up_new) * 2 < len(up_old) and (up_new.offset + len(up_new)) * g < fmpq(1, 2) < len(up_old) * g / 2
    lo_new = new.discretise(g, "lower")
    for eps in (fmpq(0), fmpq(1, 100), fmpq(1, 10), fmpq(1, 4), fmpq(1, 2)):
        with arith.precision(128):
            ee = arith.ball(eps).exp()
            assert _q(arith.endpoints(up_new.get_delta(eps))[1]) >= new.hockey_stick(_q(arith.endpoints(ee)[1]))
            assert _q(arith.endpoints(lo_new.get_delta(eps))[0]) <= new.hockey_stick(_q(arith.endpoints(ee)[0]))


def test_cut_tails_sandwich_the_exact_curve_and_move_the_far_mass():
    """A pair with a far atom of mass ~1e-35 at ratio 8: both sides of its PLD still sandwich its exact curve, the
    far mass is at +inf (upper) or gone (lower), and with truncation 0 nothing is cut."""
    pr = curves.pair_from_values([(fmpq(3, 2), fmpq(1, 10)), (fmpq(2), fmpq(1, 10**35))], alpha_max=8)
    far = sum((p for r, p, q in pr.masses if r == 8), fmpq(0))
    assert 0 < far < fmpq(1, 10**34)
    g = fmpq(1, 64)
    up, lo = pr.discretise_both(g)
    up0 = pr.discretise(g, "upper", truncation=0)
    assert up.offset + len(up) - 1 < 133 <= up0.offset + len(up0) - 1  # log 8 / (1/64) = 133.08
    assert _q(arith.endpoints(up.inf)[0]) >= far and arith.endpoints(up0.inf)[1] == 0
    for eps in (fmpq(0), fmpq(1, 10), fmpq(2, 5), fmpq(7, 10), fmpq(2), fmpq(21, 10)):
        with arith.precision(128):
            ee = arith.ball(eps).exp()
            h_hi = pr.hockey_stick(_q(arith.endpoints(ee)[0]))  # H is non-increasing in α
            h_lo = pr.hockey_stick(_q(arith.endpoints(ee)[1]))
            assert _q(arith.endpoints(up.get_delta(eps))[1]) >= h_lo
            assert _q(arith.endpoints(lo.get_delta(eps))[0]) <= h_hi
            assert arith.le(lo.get_delta(eps), up.get_delta(eps)) is not False
