"""Hostile probes (session 15): the holes session 14 left (see tests/benchmarks/probe15.py for the sweep).

References are tests/benchmarks/probe14.py's own (the same-family pair's trinomial law from each oracle's textbook
definition, mpmath) or exact rationals.  Found this session (each test below failed before its fix):
* ``oracles.same_family_delta`` called directly at a huge ε0 at the default precision: ``±7.5e28`` (OUE k = 8,
  ε0 = 100, n = 120), minutes at n = 10^6; the LDP record ``±1.5e29``; above ε0 ≈ 709.8 (e^{ε0} beyond the float
  range) the engine's window was left unscaled (SUE ε0 = 800: ``±2.9e4`` at any precision);
* SUE k = 8, ε0 = 40, n = 10^6: upper end 1 (true 0.9999999958): the spread and merged views' weak-count bound,
  divided by γ ≈ 2e-9; the zeroed view (docs/numerics.md) is exact up to the windowing there.
"""

from __future__ import annotations

import pathlib
import sys
from fractions import Fraction

import mpmath as mp
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "benchmarks"))
import probe14 as R  # noqa: E402


@pytest.mark.parametrize(
    "kind,kw,e0",
    # SUE was 800 (e^{ε0} beyond the float range); the records now refuse ε0 > 500 (tests/test_bounded15.py)
    [("oue", {}, "100"), ("olh", {"g": 8}, "100"), ("sue", {}, "500")],
)
def test_same_family_delta_safe_at_a_huge_eps0(kind, kw, e0):
    from blanket.exact.mechanisms.oracles import OLH, OUE, SUE
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled.oracles import same_family_delta

    mech = {
        "oue": lambda: OUE(8, epsilon0=e0),
        "olh": lambda: OLH(64, 8, epsilon0=e0),
        "sue": lambda: SUE(8, epsilon0=e0),
    }
    n = 60
    with arith.precision(53):  # the default precision, as a direct caller has it
        v = same_family_delta(mech[kind](), n, epsilon="1")
    assert v.is_finite() and v.rad() < 1e-10, v
    with mp.workdps(int(e0) + 60):
        e = mp.e ** mp.mpf(e0)
        ref = R.same_family_ref(*R.oracle_ratio_law(kind, e, **kw), e, n, mp.e)
    assert abs(v.mid() - arith.ball(mp.nstr(ref, 30))) < 1e-12, (v, ref)


def test_same_family_delta_ldp_record_at_a_huge_eps0():
    # the LDP record's witness is binary RR at ε0 = 100: δ(1) of x^n vs x^{n-1}x' is 1 − O(n e^{-100}) at any n
    from blanket.exact.mechanisms.oracles import LDP
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled.oracles import same_family_delta

    with arith.precision(53):
        v = same_family_delta(LDP(epsilon0="100"), 120, epsilon="1")
    assert v.is_finite() and v.rad() < 1e-10 and abs(float(v.mid()) - 1) < 1e-12, v


def test_zeroed_view_dominates_the_exact_blanket_view():
    # exact rationals: the zeroed view's E[(ΣV_0)_+]/(γn) ≥ the exact Lemma 5.3 value (blanket_view_delta), and at a
    # large e^{ε0} it is close (the rest users' pull is ~γ); a wrong zeroing (v_t raised instead) would fail the bound
    from blanket.exact.mechanisms.oracles import OUE, SUE
    from blanket.exact.shuffled.oracles import _atoms5, blanket_view_delta, zeroed_atoms
    from blanket.exact.shuffled.positive_part import expected_positive_part
    from flint import fmpq

    for mech in (OUE(3, exp_epsilon0=3), SUE(4, exp_half_epsilon0=5), OUE(4, exp_epsilon0=2**12)):
        for n in (2, 5, 9):
            ee = fmpq(3, 2)
            g, masses, values = _atoms5(mech, ee)
            z = expected_positive_part(n, zeroed_atoms(masses, values), exact_max_n=10**6) / (g * n)
            ex = blanket_view_delta(mech, n, exp_epsilon=ee, exact_max_n=10**6)
            assert isinstance(z, fmpq) and isinstance(ex, fmpq) and z >= ex, (mech, n, z, ex)
    with pytest.raises(Exception, match="v_both <= 0"):
        zeroed_atoms(masses, (fmpq(1), values[1], values[2], values[3]))


def test_zeroed_view_symbolic_check_can_fail(monkeypatch):
    from blanket.proofs import core
    from blanket.proofs import oracles as po

    assert core.get("FO zeroed blanket view").check_symbolic().proved is True
    wrong = {**po.L_VALUES, po.L_rest: po.gamma * (po.E - 1)}  # v_rest with the wrong sign
    monkeypatch.setattr(po, "L_VALUES", wrong)
    assert po._check_zeroed(None).proved is None


def test_sue_eps0_40_million_users_upper_end_below_one():
    # the true δ(1) is 0.99999999587 (the same-family pair, 0.9999999958661 at n = 10^6, is a lower bound; the grid
    # engine on the merged view, 0.99999999587344440633, an upper bound): the upper end was 1
    rc, d = R.cli_json("delta", "--mechanism", "sue", "--k", 8, "--epsilon0", 40, "-n", 10**6, "--epsilon", 1)
    assert rc == 0, d
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    assert mp.mpf("0.9999999958") <= lo <= hi <= mp.mpf("0.99999999590"), (lo, hi)


def clone_ref(n: int, e0, eps) -> mp.mpf:
    """δ of the clone pair (= binary RR's blanket view, Lemma 5.3; docs/mechanisms.md), max of both orders, summed in
    mpmath from its definition: ``C ~ Bin(n−1, 2/(e+1))``, ``A | C ~ Bin(C, 1/2)``, ``Δ ~ Bern(e/(e+1))``,
    ``P = (A + Δ, C − A + 1 − Δ)``, ``Q = (A + 1 − Δ, C − A + Δ)``.  O(n²) mpmath terms."""
    e, ee = mp.e ** mp.mpf(e0), mp.e ** mp.mpf(eps)
    pc, pd = 2 / (e + 1), e / (e + 1)
    fwd = bwd = mp.mpf(0)
    for C in range(n):
        wc = mp.binomial(n - 1, C) * pc**C * (1 - pc) ** (n - 1 - C)
        b = [mp.binomial(C, a) / mp.mpf(2) ** C for a in range(C + 1)] + [mp.mpf(0)]
        for a in range(C + 2):  # the first coordinate; the second is C + 1 − a
            P = b[a - 1] * pd + b[a] * (1 - pd) if a else b[a] * (1 - pd)
            Q = b[a] * pd + b[a - 1] * (1 - pd) if a else b[a] * pd
            fwd += wc * max(mp.mpf(0), P - ee * Q)
            bwd += wc * max(mp.mpf(0), Q - ee * P)
    return max(fwd, bwd)


def test_binary_blanket_view_deep_tail_is_chernoff_capped():
    # binary RR ε0 = 1, n = 200, ε = 0.9: the blanket view is 4.6e-25 (the clone pair in mpmath); the engine's
    # windowing left [0, 8.1e-22]; with the Chernoff cap the upper end is within a factor 10
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled.krr import delta_blanket_view

    v = delta_blanket_view(KRR(2, epsilon0="1"), 200, epsilon="0.9")
    with mp.workdps(30):
        ref = clone_ref(200, 1, "0.9")
    hi = arith.endpoints(v)[1]
    assert mp.mpf(hi.numerator) / hi.denominator >= ref and hi < Fraction(1, 10**23), (v, ref)


def test_geometric_upper_deep_tail_is_chernoff_capped():
    # the exact-rational route of the same dominating law (n = 300, e^ε = 7/2: 7.5e-28) lies in the ball route's
    # enclosure, whose upper end was the windowing's ~1e-24 and is now the Chernoff bound
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled.geometric import geometric_upper

    m = Geometric(3, alpha="1/2")
    exact = geometric_upper(m, 300, exp_epsilon="7/2", exact_max_n=10**6)
    ball = geometric_upper(m, 300, exp_epsilon="7/2", exact_max_n=0)
    lo, hi = arith.endpoints(ball)
    ex = Fraction(int(exact.p), int(exact.q))
    assert lo <= ex <= hi and hi < 10 * ex, (exact, ball)


def test_cli_deep_tail_brackets():
    # 'delta --mechanism rr -n 10000 --epsilon0 1 --epsilon 0.5 --dataset bracket' printed [0, 7.5e-24] (δ ≈ 1e-381);
    # geometric m = 5, n = 10^4, ε = 0.3 printed an upper end 8.8e-24 beside a lower end 1.6e-216
    rc, d = R.cli_json(
        "delta", "--mechanism", "rr", "-n", 10**4, "--epsilon0", 1, "--epsilon", "0.5", "--dataset", "bracket"
    )
    assert rc == 0, d
    assert mp.mpf(d["delta"]["upper"]) < mp.mpf("1e-300"), d["delta"]
    rc, d = R.cli_json("delta", "--mechanism", "geometric", "--m", 5, "--epsilon0", 1, "-n", 10**4, "--epsilon", "0.3")
    assert rc == 0, d
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    assert 0 < lo <= hi < mp.mpf("1e-100"), d["delta"]


def geometric_pair_ref(m: int, e0, n: int, eps) -> mp.mpf:
    """δ (max of both orders) of the shuffled geometric mechanism (m = 3) on ``0^n`` versus ``(m−1) 0^{n−1}``, summed in
    mpmath over the multinomial counts of the outputs under ``0^n`` (probe12's rows from the definition,
    ``α = e^{−ε0/(m−1)}``): the likelihood ratio is ``(1/n)Σ_i r(Y_i)``, ``r = R_{m−1}/R_0``.  O(n²) terms."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import test_probe12 as T12

    rows = T12._geometric(m, mp.e ** (-mp.mpf(e0) / (m - 1)))
    ee = mp.e ** mp.mpf(eps)
    r = [rows[m - 1][y] / rows[0][y] for y in range(m)]
    fwd = bwd = mp.mpf(0)
    for c0 in range(n + 1):
        for c1 in range(n - c0 + 1):
            c2 = n - c0 - c1
            pr = mp.factorial(n) / (mp.factorial(c0) * mp.factorial(c1) * mp.factorial(c2))
            pr *= rows[0][0] ** c0 * rows[0][1] ** c1 * rows[0][2] ** c2
            L = (c0 * r[0] + c1 * r[1] + c2 * r[2]) / n
            fwd += pr * max(mp.mpf(0), L - ee)
            bwd += pr * max(mp.mpf(0), 1 - ee * L)
    return max(fwd, bwd)


def test_geometric_large_eps0_full_view_is_bounded():
    # m = 3, ε0 = 30, n = 60: the full view's lattice spanned e^{ε0}/h cells (ε0 = 10: minutes, killed); the step is
    # now coarsened. The lower end is a lower bound on the pair 0^n vs (m-1)0^(n-1), the upper end bounds every pair
    rc, d = R.cli_json("delta", "--mechanism", "geometric", "--m", 3, "--epsilon0", 30, "-n", 60, "--epsilon", "0.1")
    assert rc == 0, d
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    with mp.workdps(40):
        ref = geometric_pair_ref(3, 30, 60, "0.1")
    assert lo <= ref * (1 + R.SLACK) and hi >= ref * (1 - R.SLACK) and lo > mp.mpf("0.99999"), (lo, ref, hi)


def test_geometric_refuses_eps0_above_the_supported_range():
    # '--epsilon0 1e400' was an internal error (a NaN window); the other mechanisms refuse above 500
    from blanket.exact.mechanisms.registry import Kind, parse_params
    from blanket.exact.numbers.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="at most 500") as exc:
        parse_params(Kind.GEOMETRIC, {"m": 3, "epsilon0": "1e400"})
    assert "0000000000" not in str(exc.value), str(exc.value)


def test_geometric_huge_eps0_and_tiny_alpha():
    # ε0 = 100..500 (m = 3, n = 100) was an internal error (NaN window: geometric_upper at the caller's precision);
    # '--alpha 1e-400' an internal error (float overflow), now refused as above the supported range
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.numbers.errors import InvalidArgument

    rc, d = R.cli_json("delta", "--mechanism", "geometric", "--m", 3, "--epsilon0", 300, "-n", 100, "--epsilon", "0.1")
    assert rc == 0, d
    assert mp.mpf("0.9999999999") <= mp.mpf(d["delta"]["lower"]) <= mp.mpf(d["delta"]["upper"]) <= 1, d["delta"]
    with pytest.raises(InvalidArgument, match="at most 500"):
        Geometric(3, alpha="1e-400")
    assert Geometric(3, alpha="1e-100").m == 3  # ε0 = 460.5: accepted
