"""Records made from an irrational e^{ε0} follow the working precision (lazypq12).

OUE/SUE given ε0 compute p, q, and the geometric mechanism given ε0 computes α, at flint's *current* precision
(memoised per precision), so precision escalation narrows what depends on them.  Independent route: mpmath at 300
digits (the closed forms p, q, α, γ and a brute-force multinomial sum of Lemma 5.3 at small n).
"""

from __future__ import annotations

import copy
import itertools
import math
import pickle
from fractions import Fraction

import mpmath
import pytest
from blanket.exact.mechanisms.oracles import OUE, SUE, Geometric, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.shuffled.oracles import blanket_view_delta
from flint import arb, fmpq


def _contains(ball: arb, x: mpmath.mpf) -> bool:
    """``ball`` contains the mpmath value ``x`` (given to 300 digits, far below both radii tested)."""
    lo, hi = arith.endpoints(ball)
    return lo <= Fraction(mpmath.nstr(x, 290, strip_zeros=False)) <= hi


def _width(ball: arb) -> float:
    return float(ball.rad().mid())


def _mp_oue(k: int, eps0: int):
    """(p, q, γ, e^{ε0}) of OUE at 300 digits, from the closed forms (not from the code under test)."""
    with mpmath.workdps(300):
        e = mpmath.exp(eps0)
        p, q = mpmath.mpf(1) / 2, 1 / (e + 1)
        rho0 = (1 - p) / (1 - q)
        g = rho0 * (1 - q**k) + p * q ** (k - 1)
        return p, q, g, e


def _mp_lemma53(k: int, eps0: int, n: int, ee: int):
    """``(1/(γn)) E[(Σ_{i≤n} V_i)_+]`` for OUE by brute force over the 5^n outcomes' multinomial counts (mpmath)."""
    with mpmath.workdps(300):
        p, q, g, e = _mp_oue(k, eps0)
        rho0 = (1 - p) / (1 - q)
        both = rho0 * q * q * (1 - q ** (k - 2)) / g
        t = rho0 * q * (1 - q) / g
        rest = 1 - both - 2 * t
        atoms = [
            (1 - g, mpmath.mpf(0)),
            (g * both, g * e * (1 - ee)),
            (g * t, g * (e - ee)),
            (g * t, g * (1 - ee * e)),
            (g * rest, g * (1 - ee)),
        ]
        total = mpmath.mpf(0)
        for c in itertools.product(range(n + 1), repeat=4):
            if sum(c) > n:
                continue
            cnt = (n - sum(c), *c)
            s = sum(ci * v for ci, (_, v) in zip(cnt, atoms))
            if s <= 0:
                continue
            w = mpmath.mpf(math.factorial(n))
            for ci, (pr, _) in zip(cnt, atoms):
                w = w * pr**ci / math.factorial(ci)
            total += w * s
        return total / (g * n)


def test_oue_q_and_gamma_narrow_with_precision():
    m = OUE(16, epsilon0=2)
    _, q_mp, g_mp, _ = _mp_oue(16, 2)
    with arith.precision(53):
        q53, g53 = m.q, m.gamma()
    with arith.precision(512):
        q512, g512 = m.q, m.gamma()
    for b, x in ((q53, q_mp), (q512, q_mp), (g53, g_mp), (g512, g_mp)):
        assert _contains(b, x)
    assert _width(q53) > 1e-18 and _width(q512) < 1e-140  # > 120 orders of magnitude narrower
    assert _width(g53) > 1e-18 and _width(g512) < 1e-140


def test_sue_and_geometric_narrow_with_precision():
    s = SUE(8, epsilon0=3)
    with mpmath.workdps(300):
        h = mpmath.exp(mpmath.mpf(3) / 2)
        p_mp, q_mp = h / (h + 1), 1 / (h + 1)
        a_mp = mpmath.exp(-mpmath.mpf(1) / 4)
    g = Geometric(5, epsilon0=1)
    with arith.precision(53):
        w53 = [_width(s.p), _width(s.q), _width(g.alpha)]
        assert _contains(s.p, p_mp) and _contains(s.q, q_mp) and _contains(g.alpha, a_mp)
    with arith.precision(512):
        w512 = [_width(s.p), _width(s.q), _width(g.alpha)]
        assert _contains(s.p, p_mp) and _contains(s.q, q_mp) and _contains(g.alpha, a_mp)
    assert all(a > 1e-18 and b < 1e-140 for a, b in zip(w53, w512))


def test_lemma53_delta_narrows_and_contains_mpmath():
    """A downstream certified δ (the four-value Lemma 5.3 route, OUE k = 6, ε0 = 2, n = 4, e^ε = 2)."""
    m = OUE(6, epsilon0=2)
    ref = _mp_lemma53(6, 2, 4, 2)
    with arith.precision(53):
        d53 = blanket_view_delta(m, 4, exp_epsilon=2)
    with arith.precision(512):
        d512 = blanket_view_delta(m, 4, exp_epsilon=2)
    assert _contains(d53, ref) and _contains(d512, ref)
    assert _width(d53) > 1e-17 and _width(d512) < 1e-130


def test_exact_records_stay_exact():
    m = OUE(4, exp_epsilon0=3)
    s = SUE(4, exp_half_epsilon0=2)
    g = Geometric(3, alpha="1/3")
    with arith.precision(512):
        assert (m.p, m.q, s.p, s.q, g.alpha) == (fmpq(1, 2), fmpq(1, 4), fmpq(2, 3), fmpq(1, 3), fmpq(1, 3))
        assert isinstance(m.gamma(), fmpq) and isinstance(g.gamma(), fmpq)


def test_equality_and_hash_do_not_depend_on_precision():
    with arith.precision(53):
        a, ga = OUE(8, epsilon0=1), Geometric(4, epsilon0="1/2")
        a.q, ga.alpha  # fill the memo at 53 bits
    with arith.precision(300):
        b, gb = OUE(8, epsilon0=1), Geometric(4, epsilon0="1/2")
        b.q, gb.alpha
    assert a == b and hash(a) == hash(b) and ga == gb and hash(ga) == hash(gb)
    assert a != OUE(8, epsilon0=2) and a != SUE(8, epsilon0=1) and ga != Geometric(5, epsilon0="1/2")
    # the description (also used as a key) is the same at every precision
    with arith.precision(400):
        assert a.describe() == OUE(8, epsilon0=1).describe() and ga.describe() == gb.describe()
    assert a.describe() == b.describe()


def test_pickle_and_copy_drop_the_memo():
    m = OUE(8, epsilon0=1)
    with arith.precision(200):
        m.q
    for c in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert c == m and c._memo == {}
        with arith.precision(200):
            assert c.q.overlaps(m.q) and c.q.rad() < arb(2) ** -190


def test_unary_encoding_needs_p_and_q_unless_from_eps0():
    with pytest.raises(Exception, match="p must be given with q"):
        UnaryEncoding(k=3, p=fmpq(1, 2))
    with pytest.raises(Exception, match="p must be given with q"):
        UnaryEncoding(k=3, epsilon0=fmpq(1), kind="ue")
