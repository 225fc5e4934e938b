"""The paper-check references of the continuous randomizers (proofs/continuous_refs.py, issue 27).

Independent routes: E_ω[L²] by acb.integral against the closed form of Lemma 5.8 (2) at {0, 1} (sympy-derived,
proofs/blanket.py) and against an mpmath quadrature at 30 digits for an inner pair; the largest L against the closed
form of Lemma 5.8 (1).
"""

from __future__ import annotations

import mpmath as mp
from blanket.exact.mechanisms.continuous import Laplace
from blanket.exact.numbers import arith
from blanket.proofs import blanket as B
from blanket.proofs import continuous_refs as cr
from flint import fmpq


def test_second_moment_at_zero_one_is_the_closed_form():
    for e0, eps in (("1", "1/4"), ("2", "1/2"), ("1/2", "0"), ("1", "1")):
        m = Laplace(arith.exact(e0))
        ee = arith.exp_ball(arith.exact(eps))
        v = cr._second_moment(m, fmpq(0), fmpq(1), ee)
        bound = B.LEMMA_5_8_2.bound(epsilon0=e0, epsilon=eps)
        assert v.overlaps(bound) and v.rad() < 1e-10, (e0, eps, v, bound)
        ref = cr.laplace_second_moment(e0, eps, bound)
        assert "18 of the 18" in ref.what and ref.relation == "lower"


def test_second_moment_of_an_inner_pair_against_mpmath():
    x, x2, e0, eps = mp.mpf(1) / 4, mp.mpf(3) / 4, mp.mpf(1), mp.mpf(1) / 2
    with mp.workdps(30):
        g = mp.e ** (-e0 / 2)

        def mu(a, y):
            return e0 / 2 * mp.e ** (-e0 * abs(y - a))

        def omega(y):  # the farther input's density over γ
            return mu(1 if y <= mp.mpf(1) / 2 else 0, y) / g

        f = lambda y: (mu(x, y) - mp.e**eps * mu(x2, y)) ** 2 / omega(y)  # noqa: E731
        ref = mp.quad(f, [-mp.inf, 0, x, mp.mpf(1) / 2, x2, 1, mp.inf])
    v = cr._second_moment(Laplace(1), fmpq(1, 4), fmpq(3, 4), arith.exp_ball(fmpq(1, 2)))
    assert abs(float(v.mid()) - float(ref)) < 1e-12 * float(ref)


def test_sup_L_is_attained_at_zero_one_below_zero():
    bound = B.LEMMA_5_8_1.bound(epsilon0="1", epsilon="1/4")
    ref = cr.laplace_sup_L("1", "1/4", bound)
    assert ref.value.overlaps(bound) and "(x, x') = (0, 1)" in ref.what and "18 of the 18" in ref.what
