"""Tests for proofs/blanket.py (Balle et al., privacy blanket): every bound against the exact value it bounds.

Independent routes: exact rationals (rational e^{ε0}, e^ε) through exact/ (A, B),
brute force over report vectors / datasets for small n, mpmath quadrature for
the continuous mechanisms, a separate convolution (``eplus_law``) for
E[(Σ L_i)_+].  Known-false variants must be detected as false.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, amplification_law
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import HypothesisViolation, InvalidArgument
from blanket.exact.shuffled import amplification as num
from blanket.proofs import blanket as B
from blanket.proofs.core import arb_eval, get, results
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

_X0, _X1 = sp.Symbol("X0", positive=True), sp.Symbol("X1", positive=True)


def exact_eval(expr, e0, ee, **others):
    """Evaluate a sympy expression of ε0, ε exactly at rational e^{ε0} = e0, e^ε = ee (ε0 = log e0 substituted)."""
    e = sp.sympify(expr).subs({B.epsilon0: sp.log(_X0), B.epsilon: sp.log(_X1)})
    return arb_eval(e, {"X0": fmpq(e0), "X1": fmpq(ee), **others})


def L(x):
    """ε as a ball from an exact e^ε (so that exact references can use the rational e^ε)."""
    return arb(fmpq(x)).log() if fmpq(x) != 1 else fmpq(0)


# ------------------------------------------------------------------ strategies
def ldp_matrices(max_k_in=3, max_k_out=3):
    """Random finite randomizers with strictly positive rational entries (so ε0 < ∞)."""

    @st.composite
    def build(draw):
        ki = draw(st.integers(2, max_k_in))
        ko = draw(st.integers(2, max_k_out))
        rows = []
        for _ in range(ki):
            w = [draw(st.integers(1, 6)) for _ in range(ko)]
            s = sum(w)
            rows.append([Fraction(v, s) for v in w])
        return FiniteRandomizer(rows)

    return build()


exp_eps = st.sampled_from([fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(3)])


# ------------------------------------------------------------------ registry
EXPECTED = [
    "Definition TV similarity",
    "Definition blanket",
    "Definition hockey-stick",
    "Definition L",
    "Theorem 3.1",
    "Algorithm 1 epsilon0",
    "Lemma 5.1 [krr]",
    "Lemma 5.1 [laplace]",
    "Lemma 5.1 [gaussian]",
    "Lemma 5.2",
    "Lemma 5.3",
    "Lemma A.3",
    "Lemma 5.4 (1)",
    "Lemma 5.4 (2)",
    "Lemma 5.4 (3)",
    "Lemma 5.5",
    "Lemma A.4",
    "Lemma 5.6",
    "Lemma 5.6 [2019]",
    "Lemma 5.7 (1)",
    "Lemma 5.7 (2)",
    "Lemma 5.8 (1)",
    "Lemma 5.8 (2)",
    "Theorem 5.3 [generic]",
    "Theorem 5.3 [rr]",
    "Theorem 5.3 [laplace]",
    "Theorem 5.3 [pre]",
    "Theorem 5.3 [slide]",
    "Bennett bound [generic]",
    "Bennett bound [rr]",
    "Bennett bound [laplace]",
    "Theorem 5.1",
    "Corollary 5.3.1",
]


def test_every_result_is_registered_with_latex_and_status():
    keys = {r.key for r in results("BBGN19")}
    for label in EXPECTED:
        assert f"BBGN19 {label}" in keys, label
    for r in results("BBGN19"):
        if not r.key.startswith("BBGN19 ") or r.spec.find("blanket.md") < 0:
            continue
        assert r.latex()
        assert r.status_note
        r.describe()


def test_cli_variants_resolve_for_delta_bounds():
    for label in ("BBGN19 Theorem 5.3", "BBGN19 Bennett bound"):
        for v in ("generic", "rr", "laplace"):
            r = get(label, v)
            assert r.quantity == "delta" and r.variant == v
            names = {s.name for s in r.symbols}
            assert {"epsilon", "epsilon0", "n"} <= names
            assert ("k" in names) == (v == "rr")
    with pytest.raises(InvalidArgument, match="several variants"):
        get("BBGN19 Theorem 5.3")


# ------------------------------------------------------------------ Theorem 3.1
def test_gamma_theorem_3_1_matches_mpmath():
    for k, n, eps, d in [(2, 10**6, "1", "1e-6"), (10, 5000, "0.5", "1e-3"), (3, 100000, "0.05", "0.5")]:
        with mpmath.workdps(40):
            e, dd = mpmath.mpf(eps), mpmath.mpf(d)
            want = max(14 * k * mpmath.log(2 / dd) / ((n - 1) * e**2), 27 * k / ((n - 1) * e))
        g = B.gamma_theorem_3_1(k, n, eps, d)
        assert g.contains(arb(mpmath.nstr(want, 35)).mid()) or abs(float(g.mid()) - float(want)) < 1e-25


def test_gamma_theorem_3_1_hypotheses():
    with pytest.raises(HypothesisViolation, match="epsilon <= 1"):
        B.gamma_theorem_3_1(2, 1000, "2", "1e-6")
    with pytest.raises(HypothesisViolation, match="<= 1 \\(implicit\\)"):
        B.gamma_theorem_3_1(2, 50, "1", "1e-6")  # γ > 1


def test_theorem_3_1_exact_delta_below_target():
    r = B.THEOREM_3_1
    for g in r.grid[:1]:
        ref = r.exact(**g)
        assert arith.le(ref.value, arith.exact(g["delta"])) is True


def test_algorithm_1_epsilon0_inverts_lemma_5_1():
    assert B.ALGORITHM_1_EPS0.check_symbolic().proved is True
    # independent: k-RR with e^{ε0} = 1 + k(1−γ)/γ has γ exactly
    for k, g in [(2, fmpq(1, 2)), (5, fmpq(1, 7))]:
        e0 = 1 + k * (1 - g) / g
        assert KRR(k, exp_epsilon0=e0).gamma() == g
        assert B.epsilon0_algorithm_1(k, g).overlaps(arb(e0).log())


# ------------------------------------------------------------------ Lemma 5.1, 5.2
@pytest.mark.parametrize("res", ["krr", "laplace", "gaussian"])
def test_lemma_5_1_derived_symbolically(res):
    assert get("BBGN19 Lemma 5.1", res).check_symbolic().proved is True


def test_lemma_5_1_krr_against_matrix():
    for k, e0 in [(2, fmpq(3)), (7, fmpq(5, 2)), (100, fmpq(20))]:
        g = KRR(k, exp_epsilon0=e0).gamma()  # Σ_y min_x P[x][y], exact
        val = arb_eval(B.GAMMA_KRR, {"k": k, "epsilon0": arb(e0).log()})
        assert val.contains(g)
        lhs = B.LEMMA_5_1_KRR.side("lhs", k=k, epsilon0=arb(e0).log())
        assert lhs.contains(g)


def test_lemma_5_1_continuous_against_mpmath():
    with mpmath.workdps(30):
        for e0 in ["0.5", "2"]:
            e = mpmath.mpf(e0)
            lap = lambda y, c: e / 2 * mpmath.exp(-e * abs(y - c))  # noqa: E731
            want = mpmath.quad(lambda y: min(lap(y, 0), lap(y, 1)), [-mpmath.inf, 0, 0.5, 1, mpmath.inf])
            got = B.LEMMA_5_1_LAPLACE.side("lhs", epsilon0=e0)
            assert abs(float(got.mid()) - float(want)) < 1e-12
            assert B.LEMMA_5_1_LAPLACE.side("rhs", epsilon0=e0).overlaps(got)
        for s in ["0.5", "2"]:
            sg = mpmath.mpf(s)
            phi = lambda y, c: mpmath.npdf(y, c, sg)  # noqa: E731
            want = mpmath.quad(lambda y: min(phi(y, 0), phi(y, 1)), [-mpmath.inf, 0, 0.5, 1, mpmath.inf])
            got = B.LEMMA_5_1_GAUSSIAN.side("lhs", sigma=s)
            assert abs(float(got.mid()) - float(want)) < 1e-12
            assert B.LEMMA_5_1_GAUSSIAN.side("rhs", sigma=s).overlaps(got)


@given(ldp_matrices())
def test_lemma_5_2_on_random_ldp_matrices(mech):
    e0 = mech.exp_epsilon0()
    g = mech.gamma()
    assert g >= 1 / e0  # exact
    assert g >= exact_eval(B.LEMMA_5_2.statement.rhs, e0, 1)
    if e0 > 1:
        assert arith.ge(g, B.LEMMA_5_2.side("rhs", gamma=g, epsilon0=arb(e0).log())) is True


# ------------------------------------------------------------------ Lemma 5.4 on random matrices
@given(ldp_matrices(), exp_eps)
def test_lemma_5_4_on_random_ldp_matrices(mech, ee):
    e0 = mech.exp_epsilon0()
    g = mech.gamma()
    hi = exact_eval(B.LEMMA_5_4_2.statement.rhs, e0, ee, gamma=g)  # exact rationals: ties decide
    lo = exact_eval(B.LEMMA_5_4_2_LO.statement.rhs, e0, ee, gamma=g)
    sq = exact_eval(B.LEMMA_5_4_3.statement.rhs, e0, ee, gamma=g)
    assert isinstance(hi, fmpq) and isinstance(sq, fmpq)
    for x in range(mech.k_in):
        for x2 in range(mech.k_in):
            if x == x2:
                continue
            law = amplification_law(mech, x, x2, exp_epsilon=ee)
            mean = sum((v * p for v, p in law), fmpq(0))
            assert mean == 1 - ee  # Lemma 5.4 (1), exact
            assert arith.le(max(v for v, _ in law), hi) is True  # (2) upper
            assert arith.ge(min(v for v, _ in law), lo) is True  # (2) lower
            second = sum((v * v * p for v, p in law), fmpq(0))
            assert arith.le(second, sq) is True  # (3)


# ------------------------------------------------------------------ Lemmas 5.5, 5.6 (generic) on random matrices
@settings(max_examples=15)
@given(ldp_matrices(max_k_out=3), st.sampled_from([fmpq(11, 10), fmpq(3, 2), fmpq(2)]), st.integers(1, 5))
def test_lemmas_5_5_and_5_6_on_random_ldp_matrices(mech, ee, mm):
    law = amplification_law(mech, 0, 1, exp_epsilon=ee)
    exact_e = num.eplus_law(law, mm)
    vals = [v for v, _ in law]
    a = ee - 1
    b = max(vals) - min(vals)
    bp = max(vals)
    c = sum((v * v * p for v, p in law), fmpq(0))
    if b > 0:
        hoeff = B.LEMMA_5_5.side("rhs", a=a, b=b, m=mm)
        assert arith.le(exact_e, hoeff) is True
    if bp > 0:
        benn = B.LEMMA_5_6.side("rhs", a=a, b_plus=bp, c=c, m=mm)
        assert arith.le(exact_e, benn) is True
    else:
        assert exact_e == 0


def test_eplus_krr_matches_convolution_of_the_exact_law():
    for k, e0, ee in [(2, fmpq(3), fmpq(3, 2)), (3, fmpq(2), fmpq(1)), (5, fmpq(4), fmpq(6, 5))]:
        mech = KRR(k, exp_epsilon0=e0)
        law = amplification_law(mech, 0, 1, exp_epsilon=ee)
        atoms = num.krr_law(k, e0, ee)
        expanded = atoms[:2] + [(atoms[2][0], fmpq(1, k))] * (k - 2) if k > 2 else atoms
        assert sorted(law) == sorted(expanded)
        for mm in range(0, 5):
            assert num.eplus_krr(mm, k, e0, ee) == num.eplus_law(law, mm)


def test_lemma_5_6_2019_form_is_caught_false():
    r = B.LEMMA_5_6_2019
    assert r.known_false
    point = {"k": 2, "epsilon0": "2", "epsilon": "1/2", "m": 20}
    assert point in r.grid, "the counterexample point must be in the grid so that reports show it"
    ev = r.evaluate(**point)
    assert ev.holds is False, "the 2019 Bennett form must be refuted at 2-RR, eps0=2, eps=0.5, m=20"
    assert abs(float(ev.lhs.mid()) - 0.2958) < 1e-3 and abs(float(ev.rhs.mid()) - 0.2423) < 1e-3
    # the corrected form holds at the same point
    assert B.LEMMA_5_6_KRR.evaluate(**point).holds is True
    assert B.LEMMA_5_5_KRR.evaluate(**point).holds is True


@pytest.mark.parametrize("res", [B.LEMMA_5_5_KRR, B.LEMMA_5_6_KRR])
def test_instance_lemmas_hold_on_their_grid(res):
    for g in res.grid:
        assert res.evaluate(**g).holds is True


# ------------------------------------------------------------------ Lemmas 5.7, 5.8, A.3, A.4
def test_lemma_5_7_symbolic_and_exact():
    assert B.LEMMA_5_7_1.check_symbolic().proved is True
    assert B.LEMMA_5_7_2.check_symbolic().proved is True
    for k, e0, ee in [(2, fmpq(3), fmpq(3, 2)), (6, fmpq(5), fmpq(2))]:
        law = amplification_law(KRR(k, exp_epsilon0=e0), 0, 1, exp_epsilon=ee)
        second = sum((v * v * p for v, p in law), fmpq(0))
        env = {"k": k, "epsilon0": L(e0), "epsilon": L(ee)}
        assert arb_eval(B.L_SQ_KRR, env).contains(second)
        assert arb_eval(B.L_HI_KRR, env).contains(max(v for v, _ in law))
        assert arb_eval(B.L_LO_KRR, env).contains(min(v for v, _ in law))


def test_lemma_5_8_symbolic_and_mpmath():
    assert B.LEMMA_5_8_2.check_symbolic().proved is True
    with mpmath.workdps(30):
        e0, eps = mpmath.mpf(1), mpmath.mpf("0.3")
        mu = lambda y, c: e0 / 2 * mpmath.exp(-e0 * abs(y - c))  # noqa: E731
        omega = lambda y: e0 / 2 * mpmath.exp(-e0 * abs(y - mpmath.mpf(1) / 2))  # noqa: E731
        Lv = lambda y: (mu(y, 0) - mpmath.exp(eps) * mu(y, 1)) / omega(y)  # noqa: E731
        second = mpmath.quad(lambda y: Lv(y) ** 2 * omega(y), [-mpmath.inf, 0, 0.5, 1, mpmath.inf])
        # the supremum of L over y
        ys = [mpmath.mpf(i) / 100 for i in range(-300, 400)]
        lmax = max(Lv(t) for t in ys)
    env = {"epsilon0": 1, "epsilon": "0.3"}
    assert abs(float(arb_eval(B.L_SQ_LAPLACE, env).mid()) - float(second)) < 1e-12  # equality at (0, 1)
    assert float(lmax) <= float(arb_eval(B.L_HI_LAPLACE, env).mid()) + 1e-15


def test_lemma_a3_exact_equality():
    for k, e0, ee, mm in [(2, fmpq(3), fmpq(3, 2), 3), (3, fmpq(2), fmpq(1), 2), (3, fmpq(4), fmpq(5, 4), 3)]:
        mech = KRR(k, exp_epsilon0=e0)
        lhs = num.multiset_divergence(mech, mm, 0, 1, ee)
        assert lhs == num.eplus_krr(mm + 1, k, e0, ee) / (mm + 1)


@settings(max_examples=10)
@given(ldp_matrices(max_k_out=3), exp_eps, st.integers(0, 3))
def test_lemma_a3_on_random_matrices(mech, ee, mm):
    lhs = num.multiset_divergence(mech, mm, 0, 1, ee)
    law = amplification_law(mech, 0, 1, exp_epsilon=ee)
    assert lhs == num.eplus_law(law, mm + 1) / (mm + 1)


def test_lemma_a4_integral_step():
    chk = B.LEMMA_A_4.check_symbolic()
    assert "equals" in chk.detail


# ------------------------------------------------------------------ Lemma 5.3 and the amplification bounds vs exact δ
def _exact_worst(k, e0, n, ee):
    mech = KRR(k, exp_epsilon0=e0)
    if k == 2:
        from blanket.exact.shuffled.binary import delta_binary_worst

        # the fast kernels take delta as a difference of two tails: at flint's default 53 bits a delta of
        # 1e-31 is enclosed only to about 1e-22 absolutely, so the sweep runs at 256 bits
        with arith.precision(256):
            return delta_binary_worst(mech, n, exp_epsilon=ee).value
    from blanket.exact.shuffled.enumerate import worst_case

    return worst_case(mech, n, exp_epsilon=ee).value


def test_lemma_5_3_blanket_view_bounds_exact_worst_case():
    from blanket.exact.shuffled.krr import delta_blanket_view

    for k, e0, n, ee in [(2, fmpq(3), 6, fmpq(3, 2)), (3, fmpq(4), 5, fmpq(5, 4)), (2, fmpq(2), 12, fmpq(1))]:
        mine = num.blanket_sum(n, fmpq(k) / (e0 + k - 1), lambda mm: num.eplus_krr(mm, k, e0, ee))
        theirs = delta_blanket_view(KRR(k, exp_epsilon0=e0), n, exp_epsilon=ee)
        assert arith.le(theirs, mine) is not False and arith.ge(theirs, mine) is not False  # same quantity
        worst = _exact_worst(k, e0, n, ee)
        assert worst <= mine
        # the registered numeric side agrees with arb_eval of the sympy Sum
        params = {"k": k, "n": n, "epsilon0": L(e0), "epsilon": L(ee)}
        s = arb_eval(B.LEMMA_5_3.statement.rhs, params)
        assert s.contains(mine)


RR_POINTS = [
    (2, fmpq(3), 50, fmpq(3, 2)),
    (2, fmpq(2), 200, fmpq(6, 5)),
    (2, fmpq(7), 100, fmpq(2)),
    (3, fmpq(3), 8, fmpq(3, 2)),
    (4, fmpq(5), 6, fmpq(2)),
]


@pytest.mark.parametrize(
    "key",
    [
        "BBGN19 Theorem 5.3 [rr]",
        "BBGN19 Bennett bound [rr]",
        "BBGN19 Theorem 5.3 [generic]",
        "BBGN19 Bennett bound [generic]",
    ],
)
def test_amplification_bounds_above_exact_worst_case(key):
    r = get(key)
    for k, e0, n, ee in RR_POINTS:
        params = {"epsilon0": L(e0), "epsilon": L(ee), "n": n}
        if r.variant == "rr":
            params["k"] = k
        bound = r.bound(**params)
        worst = _exact_worst(k, e0, n, ee)
        assert arith.le(worst, bound) is True, (key, k, e0, n, ee)


@settings(max_examples=8)
@given(ldp_matrices(max_k_in=2, max_k_out=3), exp_eps, st.integers(2, 5))
def test_generic_bounds_above_brute_force_on_random_matrices(mech, ee, n):
    from blanket.exact.shuffled.enumerate import worst_case

    e0 = mech.exp_epsilon0()
    worst = worst_case(mech, n, exp_epsilon=ee).value
    if ee == 1:
        return  # a = 0: the bounds' hypotheses exclude ε = 0
    for r in (B.THEOREM_5_3_GENERIC, B.BENNETT_GENERIC):
        if e0 == 1:
            continue
        assert arith.le(worst, r.bound(epsilon0=L(e0), epsilon=L(ee), n=n)) is True
    # the pre-form and the slide form at the mechanism's own γ
    g = mech.gamma()
    pre = B.THEOREM_5_3_PRE.bound(epsilon0=L(e0), epsilon=L(ee), n=n, gamma=g) if e0 != 1 else None
    if pre is not None:
        assert arith.le(worst, pre) is True
        assert arith.le(pre, B.THEOREM_5_3_SLIDE.bound(epsilon0=L(e0), epsilon=L(ee), n=n, gamma=g)) is True


def test_krr_bounds_above_dataset_families_large_k():
    from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family

    for k, e0, n, ee in [(10, fmpq(5), 300, fmpq(3, 2)), (100, fmpq(50), 500, fmpq(11, 10))]:
        mech = KRR(k, exp_epsilon0=e0)
        fam = max((delta_krr_family(mech, n, f, exp_epsilon=ee) for f in ("same", "third")), key=lambda v: arb(v).mid())
        bv = delta_blanket_view(mech, n, exp_epsilon=ee)
        params = {"k": k, "epsilon0": L(e0), "epsilon": L(ee), "n": n}
        for r in (B.THEOREM_5_3_RR, B.BENNETT_RR):
            bound = r.bound(**params)
            assert arith.le(fam, bound) is True
            assert arith.le(bv, bound) is True


@pytest.mark.parametrize("r", [B.BENNETT_GENERIC, B.BENNETT_RR, B.BENNETT_LAPLACE])
def test_bennett_closed_form_equals_the_sympy_sum(r):
    for n in (1, 2, 7, 15):
        params = {"epsilon0": "1", "epsilon": "1/4", "n": n}
        if r.variant == "rr":
            params["k"] = 3
        env = r._env(params)
        with arith.precision(128):
            closed = r.numeric["rhs"](**env)
            summed = arb_eval(r.statement.rhs, env)
            assert closed.overlaps(summed) and abs(float(((closed - summed) / summed).mid())) < 1e-30


def test_slide_form_is_weaker_than_pre_form():
    for g in ["1/2", "9/10"]:
        for e0, eps, n in [("1", "1/4", 1000), ("2", "1/2", 300), ("1/2", "1/10", 10**5)]:
            p = dict(gamma=g, epsilon0=e0, epsilon=eps, n=n)
            if arith.lt(arith.exact(g), arb(-arith.exact(e0)).exp()):
                continue
            assert arith.le(B.THEOREM_5_3_PRE.bound(**p), B.THEOREM_5_3_SLIDE.bound(**p)) is True


def test_bound_versus_exact_grids():
    """Every grid point of an upper bound with an exact reference: bound ≥ reference (when relation is exact/lower)."""
    for r in (B.THEOREM_5_3_RR, B.BENNETT_RR, B.THEOREM_5_3_GENERIC, B.LEMMA_5_3):
        for g in r.grid[:2]:
            ref = r.exact(**g)
            bound = r.bound(**g)
            assert ref.relation in ("exact", "lower")
            assert arith.le(ref.value, bound) is not False, (r.key, g)


def test_epsilon_bounds_above_binary_rr_epsilon():
    """ε-valued bounds vs a certified lower end of binary RR's true ε (relation 'lower': a bound below it is refuted)."""
    for r in (B.COROLLARY_5_3_1, B.THEOREM_5_1):
        g = r.grid[0] if r is B.COROLLARY_5_3_1 else r.grid[1]
        ref = r.exact(**g)
        assert ref.relation == "lower"
        assert arith.lt(ref.value, r.bound(**g)) is True
        # the reference is genuinely a failing ε for binary RR: its exact δ at the reference exceeds the target
        from blanket.exact.shuffled.binary import delta_binary

        n = int(g["n"])
        with arith.precision(128):
            ds = [delta_binary(KRR(2, epsilon0=g["epsilon0"]), n, c, epsilon=ref.value) for c in (0, 1, n - 2, n - 1)]
        assert any(arith.gt(d, arith.exact(g["delta"])) is True for d in ds)


# ------------------------------------------------------------------ hypotheses enforced
def test_hypotheses_are_enforced_with_clear_errors():
    with pytest.raises(HypothesisViolation, match="epsilon0 <= 1/2"):
        B.THEOREM_5_1.bound(epsilon0="0.6", n=1000, delta="1e-6")
    with pytest.raises(HypothesisViolation, match="n >= 1000"):
        B.THEOREM_5_1.bound(epsilon0="0.5", n=999, delta="1e-6")
    with pytest.raises(HypothesisViolation, match="delta < 1/100"):
        B.THEOREM_5_1.bound(epsilon0="0.5", n=1000, delta="0.01")
    with pytest.raises(HypothesisViolation, match="epsilon > 0"):
        B.THEOREM_5_3_RR.bound(epsilon0="1", n=100, k=2, epsilon=0)
    with pytest.raises(HypothesisViolation, match=r"log\(n/log\(1/delta\)\)/2"):
        B.COROLLARY_5_3_1.bound(epsilon0="2", n=10**4, delta="1e-300")
    with pytest.raises(HypothesisViolation, match="certified box"):
        B.COROLLARY_5_3_1.bound(epsilon0="3", n=10**7, delta="1e-6")
    with pytest.raises(InvalidArgument, match="is not a parameter"):
        B.THEOREM_5_3_GENERIC.bound(epsilon0="1", n=10, epsilon="1", k=2)


# ------------------------------------------------------------------ Theorem 5.1, Corollary 5.3.1, calibration
def test_theorem_5_1_sanity_on_binary_rr():
    from blanket.exact.shuffled.binary import delta_binary_worst

    eps = B.calibrated_epsilon(B.THEOREM_5_1, delta="1e-6", epsilon0="1/2", n=1000).upper
    with arith.precision(128):
        d = delta_binary_worst(KRR(2, epsilon0="1/2"), 1000, epsilon=eps).value
    assert arith.le(d, fmpq(1, 10**6)) is True


def test_corollary_constant_certified_on_thinned_grid_and_smaller_constant_fails():
    e0s, ns, ds = B.corollary_grid()
    pts = (e0s[::6] + [e0s[-1]], ns[::4], ds[::3])
    ok, count = B.certify_corollary_5_3_1(points=pts)
    assert ok is True and count == len(pts[0]) * len(pts[1]) * len(pts[2])
    ok4, where = B.certify_corollary_5_3_1(C=4, points=([fmpq(2)], [10**4], [fmpq(1, 10**10)]))
    assert ok4 is False


def test_calibration_is_one_sided_and_certified():
    r = B.THEOREM_5_3_RR
    br = B.calibrated_epsilon(r, delta="1e-6", epsilon0="1", n=2000, k=2)
    assert arith.le(r.bound(epsilon=br.upper, epsilon0="1", n=2000, k=2), fmpq(1, 10**6)) is True
    assert arith.gt(r.bound(epsilon=br.lower, epsilon0="1", n=2000, k=2), fmpq(1, 10**6)) is True
    br0 = B.calibrated_epsilon0(r, epsilon="1/10", delta="1e-6", n=5000, k=2)
    assert arith.le(r.bound(epsilon="1/10", epsilon0=br0.lower, n=5000, k=2), fmpq(1, 10**6)) is True
    # the certified ε of a valid bound is a valid ε for the mechanism: exact δ(upper) ≤ target
    from blanket.exact.shuffled.binary import delta_binary_worst

    with arith.precision(128):
        d = delta_binary_worst(KRR(2, epsilon0="1"), 2000, epsilon=br.upper).value
    assert arith.le(d, fmpq(1, 10**6)) is True


# ------------------------------------------------------------------ CLI
def test_bounds_cli(capsys):
    from blanket.reports.cli import main

    assert main(["bounds", "--paper", "blanket"]) == 0
    out = capsys.readouterr().out
    assert "BBGN19 Theorem 5.3 [rr]" in out and "FALSE" in out
    import json

    assert main(["bounds", "--json", "--paper", "BBGN19"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(d["key"] == "BBGN19 Lemma 5.6 [2019]" and d["known_false"] for d in data)
    assert main(["bounds", "--paper", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert "paper" in err and "nonsense" in err and "\n" == err[-1] and err.count("\n") == 1


# ------------------------------------------------------------------ slow sweeps (BLANKET_SLOW=reduced in CI)
@pytest.mark.slow
def test_sweep_bounds_above_exact_worst_case(slow_level):
    e0s = [fmpq(3, 2), fmpq(3), fmpq(8)]
    ees = [fmpq(11, 10), fmpq(3, 2), fmpq(2)]
    ns = [10, 100, 500] if slow_level == "reduced" else [10, 50, 100, 300, 1000, 2000]
    for e0 in e0s:
        for ee in ees:
            for n in ns:
                worst = _exact_worst(2, e0, n, ee)
                for r in (B.THEOREM_5_3_RR, B.BENNETT_RR, B.THEOREM_5_3_GENERIC, B.BENNETT_GENERIC):
                    p = {"epsilon0": L(e0), "epsilon": L(ee), "n": n}
                    if r.variant == "rr":
                        p["k"] = 2
                    assert arith.le(worst, r.bound(**p)) is True, (r.key, e0, ee, n)


@pytest.mark.slow
def test_sweep_corollary_full_grid(slow_level):
    if slow_level == "reduced":
        e0s, ns, ds = B.corollary_grid()
        ok, _ = B.certify_corollary_5_3_1(points=(e0s[::2], ns, ds))
    else:
        ok, _ = B.certify_corollary_5_3_1()
    assert ok is True


# ---------------------------------------------------------------- Corollary 5.3.1 on the whole box
def test_corollary_5_3_1_certified_on_the_whole_box():
    ok, cells = B.certify_corollary_5_3_1_box()
    assert ok is True and cells > 1
    # a constant that is too small must not be certified (C = 4 fails at a grid point already)
    ok4, where = B.certify_corollary_5_3_1_box(C=4, max_cells=2000)
    assert ok4 is False and "e0_lo" in where


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 39), st.integers(0, 11), st.integers(4, 9), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_corollary_cell_bound_dominates_every_point_of_its_cell(i, j, l, a, b, c):
    # the corner bound U of a cell must be >= the bound evaluated directly at points inside the cell
    # (independent route: direct evaluation of Theorem 5.3 [generic] at the corollary's epsilon)
    e0a, e0b = fmpq(i, 20), fmpq(i + 1, 20)
    na, nb = 10**4 * 2**j, 10**4 * 2 ** (j + 1)
    da, db = fmpq(1, 10 ** (l + 1)), fmpq(1, 10**l)
    cell = (e0a, e0b, fmpq(na), fmpq(nb), da, db)
    with arith.precision(128):
        u = B.corollary_cell_upper(cell)
        pt = {
            "epsilon0": e0a + (e0b - e0a) * fmpq(int(a * 1000), 1000),
            "n": na + int((nb - na) * b),
            "delta": da + (db - da) * fmpq(int(c * 1000), 1000),
        }
        hyp = arb_eval(sp.log(B.n / sp.log(1 / B.delta)) / 2, pt)
        if u is None or arith.le(pt["epsilon0"], hyp) is not True:
            return
        eps = arb_eval(B.COROLLARY_EPSILON, pt)
        direct = B.THEOREM_5_3_GENERIC.bound(epsilon=eps, epsilon0=pt["epsilon0"], n=pt["n"])
        assert arith.le(direct, u) is True
