"""Tests of exact.laws.binomial: the float route (b) against the ball route (a), and route (a) against exact rationals.

Each float kernel's widened result (:func:`laws.to_ball` with its proved relative bound) must contain the
arb value at random parameters (hypothesis); the arb tail (incomplete beta) must contain the exact
rational tail for small m.
"""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from blanket.exact.laws import binomial as laws
from blanket.exact.numbers import arith
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

qs = st.fractions(min_value=Fraction(1, 50), max_value=Fraction(49, 50), max_denominator=97)
ms = st.one_of(st.integers(1, 300), st.integers(300, 10**5), st.integers(10**5, 3 * 10**7))


def contains(ball, q):
    lo, hi = arith.endpoints(ball)
    return lo <= q <= hi


@settings(max_examples=20)
@given(m=st.integers(1, 120), q=qs, data=st.data())
def test_tail_and_pmf_contain_exact_rationals(m, q, data):
    k = data.draw(st.integers(-2, m + 2))
    with arith.precision(128):
        qa = arb(fmpq(q.numerator, q.denominator))
        exact_tail = sum(
            (Fraction(comb(m, j)) * q**j * (1 - q) ** (m - j) for j in range(max(k, 0), m + 1)), Fraction(0)
        )
        assert contains(laws.tail(m, qa, k), exact_tail)
        if 0 <= k <= m:
            assert contains(laws.pmf(m, qa, k), Fraction(comb(m, k)) * q**k * (1 - q) ** (m - k))


@settings(max_examples=25)
@given(m=ms, q=qs, data=st.data())
def test_float_window_widened_contains_arb(m, q, data):
    with arith.precision(128):
        qa = arb(fmpq(q.numerator, q.denominator))
        w = laws.float_window(m, qa, fmpq(1, 2**100), segment=data.draw(st.sampled_from([1, 7, 64, 256])))
        assert w.rel < 1e-12
        for _ in range(5):
            k = data.draw(st.integers(w.offset, w.hi))
            assert laws.to_ball(w.values[w.index(k)], w.rel).overlaps(laws.pmf(m, qa, k))
        # suffix sums: inside the window the tail is P(X >= k) minus the mass above the window, in [P - T, P]
        G, rel = laws.suffix_sums(w.values, w.rel)
        k = data.draw(st.integers(w.offset, w.hi))
        Gb = laws.to_ball(G[w.index(k)], rel)
        P = laws.tail(m, qa, k)
        T = w.tail
        assert Gb.upper() >= (P - T).lower() and Gb.lower() <= P.upper()
        # the certified tail: every outcome outside the window together has mass <= T
        inside = laws.tail(m, qa, w.offset) - laws.tail(m, qa, w.hi + 1)
        assert (1 - inside).lower() <= T.upper()


@settings(max_examples=20)
@given(n=st.integers(1, 3000), seed=st.integers(0, 2**32 - 1))
def test_dot_and_suffix_sums_of_exact_floats(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(n) * 2.0 ** rng.integers(-60, 5, n)
    y = rng.random((3, n))
    s, rel = laws.dot_nonneg(x, y)
    G, relG = laws.suffix_sums(x, 0.0, block=int(rng.integers(1, 80)))
    for r in range(3):
        exact = sum(Fraction(a) * Fraction(b) for a, b in zip(x.tolist(), y[r].tolist()))
        assert abs(Fraction(float(s[r])) - exact) <= Fraction(rel) * exact
    for i in rng.integers(0, n, 5).tolist() + [0, n]:
        exact = sum((Fraction(a) for a in x[i:].tolist()), Fraction(0))
        assert abs(Fraction(float(G[i])) - exact) <= Fraction(relG) * exact


@settings(max_examples=15)
@given(m=st.integers(1, 5000), q=qs, s=qs, steps=st.integers(1, 20))
def test_bernoulli_steps_contain_the_convolved_law(m, q, s, steps):
    with arith.precision(128):
        qa = arb(fmpq(q.numerator, q.denominator))
        sa = arb(fmpq(s.numerator, s.denominator))
        w = laws.float_window(m, qa, fmpq(1, 2**80))
        s_hat, e_s = laws.float_param(sa)
        t_hat, e_t = laws.float_param(1 - sa)
        v = w.values
        for _ in range(steps):
            v = laws.bernoulli_step(v, s_hat, t_hat)
        rel = laws.bernoulli_rel(w.rel, max(e_s, e_t), steps)
        # exact law of Bin(m, q) + Bin(steps, s) at the window's middle, as balls (outside mass is < T)
        k = w.offset + len(w.values) // 2
        true = sum((laws.pmf(m, qa, k - j) * laws.pmf(steps, sa, j) for j in range(steps + 1)), arb(0))
        got = laws.to_ball(v[k - w.offset], rel)
        assert got.lower() <= true.upper() and (got.upper() + w.tail).upper() >= true.lower()


def test_float_route_refuses_outside_its_proof():
    with pytest.raises(laws.FloatRouteUnavailable):
        laws.float_window(2**53, arb("0.3"), fmpq(1, 2**60))
    with pytest.raises(laws.FloatRouteUnavailable):
        laws.float_window(100, arb("0.3"), fmpq(1, 2**1000))


def test_tail_at_a_billion_is_tight_and_matches_the_window_sum():
    with arith.precision(128):
        q = 1 / (1 + arb(1).exp())
        m = 10**9
        w = laws.float_window(m, q, fmpq(1, 2**80))
        k = w.offset + len(w.values) // 2 + 1234
        G, rel = laws.suffix_sums(w.values, w.rel)
        t = laws.tail(m, q, k)
        assert t.rad() < t.mid() * fmpq(1, 10**25)
        assert laws.to_ball(G[w.index(k)], rel).overlaps(t)


@settings(max_examples=20)
@given(
    wa=st.integers(1, 400),
    wx=st.integers(1, 400),
    k0=st.integers(-50, 900),
    count=st.integers(1, 6),
    below=st.sampled_from([0.0, 1.0, 0.37]),
    seed=st.integers(0, 2**32 - 1),
)
def test_window_dots_against_exact_rationals(wa, wx, k0, count, below, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(wa) * 2.0 ** rng.integers(-40, 1, wa)
    x = rng.random(wx) * 2.0 ** rng.integers(-40, 1, wx)
    L = int(rng.integers(1, 30))
    s, gam = laws.window_dots(a, x, below, k0, count, L if L <= wa else None)
    for r in range(count):
        exact = Fraction(0)
        for i in range(wa):
            m = k0 + r - i
            xv = Fraction(below) if m < 0 else (Fraction(float(x[m])) if m < wx else Fraction(0))
            exact += Fraction(float(a[i])) * xv
        assert abs(Fraction(float(s[r])) - exact) <= Fraction(int(gam.p), int(gam.q)) * exact


@settings(max_examples=15)
@given(m=st.integers(1, 3000), q=qs, s=qs)
def test_tail_step_gives_the_tails_of_the_convolved_law(m, q, s):
    with arith.precision(128):
        qa, sa = arb(fmpq(q.numerator, q.denominator)), arb(fmpq(s.numerator, s.denominator))
        w = laws.float_window(m, qa, fmpq(1, 2**80))
        G, rG = laws.suffix_sums(w.values, w.rel)
        s_hat, e_s = laws.float_param(sa)
        t_hat, e_t = laws.float_param(1 - sa)
        G2 = laws.tail_step(G, s_hat, t_hat)
        rel = laws.bernoulli_rel(rG, max(e_s, e_t))
        for k in (w.offset - 3, w.offset, w.offset + len(w.values) // 2, w.hi + 1):
            # true P(X + Bern(s) >= k), X ~ Bin(m, q); the window misses mass <= tail
            true = laws.tail(m, qa, k) * (1 - sa) + laws.tail(m, qa, k - 1) * sa
            r = k - w.offset
            v = G2[max(r, 0)] if r < len(G2) else 0.0
            got = laws.to_ball(v, rel)
            assert got.lower() <= true.upper() and (got.upper() + w.tail).upper() >= true.lower()


def test_float_window_anchors_at_a_lower_precision_keep_the_proved_bound():
    """float_window(anchor_prec=192) at 1024 bits (the pilots' choice): the same window, and every value within its
    own proved relative bound of the pmf evaluated independently at 1024 bits (arb), as without the option."""
    B = laws
    m, q, tol = 200_000, fmpq(3, 10), fmpq(1, 2**400)
    with arith.precision(1024):
        full = B.float_window(m, q, tol)
        cheap = B.float_window(m, q, tol, anchor_prec=192)
        assert (cheap.offset, len(cheap.values)) == (full.offset, len(full.values))
        W = len(cheap.values)
        for i in sorted({0, 1, 255, 256, 257, W // 3, W // 2, W - 1}):
            k = cheap.offset + i
            exact = B.pmf(m, arb(q), k)
            for law in (full, cheap):
                dev = abs(arb(float(law.values[i])) - exact)
                assert dev <= arb(law.rel) * exact, (i, law.rel)
