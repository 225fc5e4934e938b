"""Splitting a finite pair's atoms between grid points (``FinitePair.discretise(..., split=True)``, docs/composition.md
§3 "Splitting atoms").

Independent routes: the pair's exact hockey-stick curve and the exact hockey-stick curve / Rényi moments of its
T-fold product (brute force over atom tuples, exact rationals or 200-bit balls)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import curves
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.pld import RENYI_ORDERS, renyi_log_moments
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq


def _pair() -> curves.FinitePair:
    # a hull of exact values (three interior points) with alpha_max = 3
    vals = [(fmpq(11, 10), fmpq(3, 10)), (fmpq(3, 2), fmpq(3, 20)), (fmpq(2), fmpq(1, 20)), (fmpq(5, 2), fmpq(1, 100))]
    return curves.pair_from_values(vals, alpha_max=fmpq(3))


def _product_h(pair: curves.FinitePair, T: int, eps: fmpq) -> Fraction:
    """Upper end of the exact ``H_{e^ε}`` of the T-fold product (atoms at +∞ have ratio None: Q = 0)."""
    atoms = [(p, q) for _r, p, q in pair.masses]
    with arith.precision(200):
        a = arith.ball(eps).exp()
        tot = arb(0)
        for tup in itertools.product(atoms, repeat=T):
            P, Q = fmpq(1), fmpq(1)
            for p, q in tup:
                P, Q = P * p, Q * q
            t = P - a * Q
            if t > 0:
                tot += t
            elif not (t < 0):
                tot += arb(0).union(t)
        return Fraction(arith.endpoints(tot)[1])


@pytest.mark.parametrize("grid", ["1/50", "1/7", "1/3"])
def test_split_is_between_the_pair_and_the_rounded_pld(grid):
    """One round: at every ε the split PLD's δ is at least the pair's exact H and at most the rounded-up PLD's."""
    pr = _pair()
    up = pr.discretise(grid, "upper", split=True)
    rd = pr.discretise(grid, "upper")
    for k in range(0, 40):
        eps = fmpq(k, 30)
        with arith.precision(200):
            h = Fraction(arith.endpoints(sum_h(pr, eps))[0])
        d_split = arith.endpoints(up.get_delta(eps))
        d_round = arith.endpoints(rd.get_delta(eps))
        assert d_split[1] >= h
        assert d_split[0] <= d_round[1]


def sum_h(pr: curves.FinitePair, eps: fmpq) -> arb:
    a = arith.ball(eps).exp()
    tot = arb(0)
    for _r, p, q in pr.masses:
        t = p - a * q
        if t > 0:
            tot += t
    return tot


@pytest.mark.parametrize("T", [2, 3])
def test_split_composition_dominates_the_exact_product(T):
    pr = _pair()
    up = pr.discretise("1/20", "upper", split=True).self_compose(T)
    for k in (0, 3, 10, 20, 30):
        eps = fmpq(k, 10)
        assert arith.endpoints(up.get_delta(eps))[1] >= _product_h(pr, T, eps)


def test_split_renyi_moments_bound_the_pair():
    """The Rényi moments read from the split PLD bound the pair's exact log E_P[(P/Q)^(α−1)]."""
    pr = _pair()
    up = pr.discretise("1/8", "upper", split=True)
    lm = renyi_log_moments(up, pr.max_loss())
    with arith.precision(200):
        for a, m in zip(RENYI_ORDERS[:12], lm):
            am1 = arith.ball(a - 1)
            ex = sum((arith.ball(p) * (arith.ball(r).log() * am1).exp() for r, p, _q in pr.masses if p > 0), arb(0))
            assert arith.endpoints(ex.log())[0] <= arith.endpoints(m)[1]


def test_split_is_refused_on_the_lower_side():
    with pytest.raises(InvalidArgument, match="split"):
        _pair().discretise("1/8", "lower", split=True)


def test_accountant_split_never_looser(monkeypatch):
    """The same grid, binary RR n = 100 (exact ROC hull pair), T = 10: the split upper end is below the rounded one."""
    from blanket.exact.accounting import accountant

    ev = ShuffledRR(k=2, epsilon0="1", n=100)
    a = ShuffleAccountant(grid="1/4096").compose(ev, count=10).get_epsilon("1e-6")
    monkeypatch.setattr(accountant, "SPLIT_ATOMS", False)
    b = ShuffleAccountant(grid="1/4096").compose(ev, count=10).get_epsilon("1e-6")
    assert a.upper < b.upper and a.lower == b.lower


def test_binary_worst_pair_split_above_every_dataset():
    """n = 6, e^{ε0} = 3: the split PLD of the exact ROC hull pair stays above the worst case over datasets."""
    from blanket.exact.shuffled.binary import delta_binary

    mech = KRR(2, exp_epsilon0=3)
    pr = curves.binary_worst_pair(mech, 6)
    up = pr.discretise("1/16", "upper", split=True)
    for k in range(0, 12):
        eps = fmpq(k, 10)
        with arith.precision(200):
            worst = max(Fraction(arith.endpoints(delta_binary(mech, 6, c, epsilon=eps))[0]) for c in range(6))
        assert arith.endpoints(up.get_delta(eps))[1] >= worst
