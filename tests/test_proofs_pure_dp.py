"""Tests for proofs.pure_dp (Cheu–Yan, CY21): every encoded result against exact values.

Independent oracles: exact rational sums written out here, mpmath, and the
exact engine (exact.protocols.tdlap) for the Section 3 laws.  Known-false readings
must be detected as false.
"""

import math
import types

import mpmath
import pytest
import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import HypothesisViolation
from blanket.exact.protocols import pure_sum as PS
from blanket.exact.protocols import tdlap as xt
from blanket.proofs import pure_dp as P
from blanket.proofs.core import get, results
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

CY = results("CY21")
SECTION3 = (
    "Fact 3.2",
    "Claim 3.3",
    "Claim 3.4",
    "Claim 3.5",
    "Claim 3.6",
    "Corollary 3.7",
    "Claim 3.8",
    "Claims 3.3-3.8",
)


def test_registry_covers_the_issue():
    labels = {r.label for r in CY}
    for lab in (
        "Definition 2.1",
        "Definition 2.2",
        "Definition 2.7",
        "Definition 2.8",
        "Definition 2.9",
        "Theorem 2.3",
        "Fact 2.4",
        *SECTION3,
        "Theorem 3.1",
        "Claim 3.10",
        "Theorem 4.1",
        "Claim 4.2",
        "Claim B.1",
    ):
        assert lab in labels, lab
    for r in CY:
        if r.label in SECTION3:
            assert r.status == "this project's reading", r.key
        if r.kind not in ("definition", "statement", "identity"):
            assert r.grid, r.key
            assert r.exact is not None, r.key
    assert "this project's reading of the construction" in " ".join(P.__doc__.split())
    for r in CY:
        if r.status == "this project's reading":
            assert "this project's reading of the construction" in r.notes.lower(), r.key


@pytest.mark.parametrize(
    "res", [r for r in CY if r.grid and r.label not in ("Claims 3.3-3.8", "Theorem 3.1")], ids=lambda r: r.key
)
def test_grid(res):
    verdicts = []
    for g in res.grid:
        ev = res.evaluate(**g)
        verdicts.append(ev.holds)
        ref = res.exact(**g)
        if res.kind == "upper_bound" and ref.relation in ("exact", "lower") and not res.known_false:
            assert arith.le(ref.value, ev.rhs) is not False, (res.key, g)
    if res.known_false:
        assert False in verdicts, res.key
    else:
        assert all(v is True for v in verdicts), (res.key, verdicts)


@pytest.mark.parametrize(
    "key", ["CY21 Claims 3.3-3.8 [combined]", "CY21 Theorem 3.1 [security]", "CY21 Theorem 3.1 [correctness]"]
)
def test_grid_slow_parts(key):
    res = get(key)
    for g in res.grid[:3]:
        ev = res.evaluate(**g)
        assert ev.holds is True, (key, g)
        assert arith.le(ev.lhs, ev.rhs) is True


def test_symbolic_checks():
    assert get("CY21 Fact 2.4").check_symbolic().proved is True
    assert get("CY21 TDLap normaliser").check_symbolic().proved is True


def test_mirrored_mass_is_proved_by_its_case_split_and_a_wrong_closed_form_is_not():
    """Claim 3.6 [mirrored mass] is proved symbolically (support, summand, geometric pieces), in O(1) sympy steps;
    the same proof applied to a statement with a wrong G(u) (one more term r^u below tau) or
    with the summand's window shifted by one lattice step fails."""
    res = get("CY21 Claim 3.6 [mirrored mass]")
    chk = res.check_symbolic()
    assert chk.proved is True, chk
    scale = P.Zt * P.Nx(P.c)
    bad = P.G_mirror + sp.Piecewise((P.r**P.u, P.u < P.tau), (0, True))
    wrong = types.SimpleNamespace(statement=sp.Eq(res.statement.lhs, (bad / scale).subs(P.r, P.rho_s**P.m)))
    chk = P._sym_mirrored_mass(wrong, bad)
    assert chk.proved is None and chk.detail.startswith("residuals u < tau: -r**U"), chk
    shifted = res.statement.lhs.subs(P.c, P.c + P.m)  # window moved by one lattice step: support no longer [u-tau, tau]
    chk = P._sym_mirrored_mass(types.SimpleNamespace(statement=sp.Eq(shifted, res.statement.rhs)))
    assert chk.proved is None, chk


# ------------------------------------------------------------ independent oracles
@given(st.fractions(min_value=sp.Rational(1, 100), max_value=3, max_denominator=100))
def test_theorem_2_3_llr_against_mpmath(eps):
    e = fmpq(eps.numerator, eps.denominator)
    mpmath.mp.dps = 40
    s = 1 / mpmath.mpf(eps.numerator) * eps.denominator
    ref = max(abs((-abs(z) + abs(z - 1)) / s) for z in range(-20, 21))
    got = PS.dlap_shift_llr(e)
    assert abs(mpmath.mpf(int(got.p)) / int(got.q) - ref) < 1e-30


@settings(max_examples=15)
@given(st.sampled_from([fmpq(1, 2), fmpq(9, 10), fmpq(1, 5)]), st.integers(1, 8), st.data())
def test_claims_3_4_and_3_5_exact_over_u(r, tau, data):
    u = data.draw(st.integers(1, 2 * tau))
    T = xt.tdlap_masses(tau, r=r)

    def t(z):
        return T[z + tau] if abs(z) <= tau else fmpq(0)

    def tt(x):
        return sum((t(z) * t(x - z) for z in range(-tau, tau + 1)), fmpq(0))

    extra = t(tau) * t(u - 1 - tau)
    assert tt(u - 1) <= tt(u) / r + extra  # Claim 3.4 [carry]
    assert tt(u) <= tt(u - 1) / r  # Claim 3.4 [reverse]
    thc = r ** (2 * tau + 1 - 2 * u) / (u + 1) if u <= tau else (1 / r) / (2 * tau - u + 1)
    assert extra <= thc * tt(u)  # Claim 3.5
    for name in ("CY21 Claim 3.4 [carry]", "CY21 Claim 3.4 [reverse]", "CY21 Claim 3.5"):
        assert get(name).evaluate(r=r, tau=tau, u=u).holds is True


def test_claim_3_4_without_extra_term_has_a_certified_counterexample():
    res = get("CY21 Claim 3.4 [no extra term]")
    ev = res.evaluate(r="1/2", tau=3, u=6)
    assert ev.holds is False
    assert isinstance(ev.lhs, fmpq) and isinstance(ev.rhs, fmpq)  # exact counterexample


def test_hypotheses_are_enforced():
    with pytest.raises(HypothesisViolation):
        get("CY21 Claim 3.4 [carry]").evaluate(r="1/2", tau=3, u=0)
    with pytest.raises(HypothesisViolation):
        get("CY21 Claim 3.3").evaluate(m=3, tau=2, r="1/2", a=2, b=2)


@settings(max_examples=6)
@given(
    st.sampled_from([(fmpq(1, 8), 4), (fmpq(27, 64), 6), (fmpq(64, 125), 9)]),
    st.sampled_from([fmpq(1, 10), fmpq(1, 100), fmpq(1, 1000)]),
)
def test_corollary_3_7_against_exact(rt, q):
    r, tau = rt
    with arith.precision(128):
        ex = PS.cor37_exact(r, tau, q, 3)
        bd = P.eps1_factor(r, tau, q, 3).log()
    assert arith.le(ex, bd) is True


def test_corollary_3_7_is_order_one_over_s():
    """eps_1 - 1/s is small once tau = ceil(2 s ln(1/q)) (this project's constants)."""
    with arith.precision(128):
        for s in (4, 8):
            q = fmpq(1, 1000)
            tau = math.ceil(2 * s * math.log(1000))
            r = xt.ratio(s=s)
            e1 = P.eps1_factor(r, tau, q, 3).log()
            assert e1 < arb(3) / s


def test_combined_bound_is_above_exact_and_q0_infinite():
    with arith.precision(128):
        agg = xt.RelaxedAggregator(3, 6, q="1/100", s=2)
        ex, _ = agg.pairwise_llr()
        bd = PS.claims_pair_bound(agg)
        assert arith.le(ex, bd) is True
        agg0 = xt.RelaxedAggregator(3, 6, q=0, s=2)
        assert agg0.pairwise_llr()[0] is None


def test_definition_2_2_pure_dp_predicate():
    """Binary randomized response with e^{eps0} = 3 is exactly log(3)-DP: certified at log 3 + 1e-9, refuted at log 3 - 1e-9,
    exactly on the boundary it is undecided (log 3 is not a rational); the q = 0 aggregator is not DP at all."""
    laws = {0: [fmpq(3, 4), fmpq(1, 4)], 1: [fmpq(1, 4), fmpq(3, 4)]}
    l3 = arb(3).log()
    assert PS.is_pure_dp(laws, [(0, 1)], l3 + arb("1e-9")) is True
    assert PS.is_pure_dp(laws, [(0, 1)], l3 - arb("1e-9")) is False
    assert PS.is_pure_dp(laws, [(0, 1)], l3) is None
    agg0 = xt.RelaxedAggregator(3, 2, q=0, r="1/2")
    assert PS.is_pure_dp({"ab": agg0.pair_law(1, 2), "c0": agg0.pair_law(0, 0)}, [("ab", "c0")], "100") is False
    with pytest.raises(Exception) as e:
        PS.is_pure_dp(laws, [(0, 2)], "1")
    assert "neighbours" in str(e.value)


def test_predicates():
    agg = xt.RelaxedAggregator(2, 3, q="1/10", r="1/4")
    sec, _ = agg.llr_security(2)
    assert PS.is_llr_secure(agg, 2, "100") is True
    assert PS.is_llr_secure(agg, 2, "1/1000") is False
    assert PS.is_beta_correct(agg, 2, "19/100") is True  # 1 - (9/10)^2 = 19/100
    assert PS.is_beta_correct(agg, 2, "1/1000") is False
    assert PS.is_relaxation(agg, 2, "100", "19/100") is True
    assert PS.is_llr_secure(xt.RelaxedAggregator(2, 3, q=0, r="1/4"), 2, "100") is False


def test_claim_b1_moments_against_mpmath():
    mpmath.mp.dps = 40
    for s_, tau in ((fmpq(1, 2), 7), (fmpq(3), 30)):
        sm = mpmath.mpf(int(s_.p)) / int(s_.q)
        rr = mpmath.e ** (-1 / sm)
        Z = sum(rr ** abs(j) for j in range(-tau, tau + 1))
        m2 = sum(j**2 * rr ** abs(j) for j in range(-tau, tau + 1)) / Z
        m4 = sum(j**4 * rr ** abs(j) for j in range(-tau, tau + 1)) / Z
        with arith.precision(128):
            e2 = xt.tdlap_moment(2, tau, s=s_)
            e4 = xt.tdlap_moment(4, tau, s=s_)
        assert abs(mpmath.mpf(float(e2.mid())) - m2) < 1e-12 * m2
        assert abs(mpmath.mpf(float(e4.mid())) - m4) < 1e-12 * m4
        assert m2 <= 4 * sm**2 and m4 <= 48 * sm**4 + 2


def test_theorem_4_1_noise_law_closed_form_against_convolution():
    """Pr[eta_1 + eta_2 = t] closed form used by error_second_moment, against an exact windowed convolution."""
    r = fmpq(1, 3)
    W = 60
    d = {z: xt.dlap_pmf(z, r=r) for z in range(-W, W + 1)}
    c0 = ((1 - r) / (1 + r)) ** 2
    for t in range(-5, 6):
        conv = sum((d[z] * d[t - z] for z in range(-W + 6, W - 5)), fmpq(0))
        closed = c0 * r ** abs(t) * (abs(t) + 1 + 2 * r**2 / (1 - r**2))
        assert conv <= closed and closed - conv < fmpq(1, 10**20)


def test_theorem_4_1_error_shrinks_like_one_over_eps():
    with arith.precision(128):
        e1 = PS.error_second_moment("1/4", 64)
        e2 = PS.error_second_moment("1/2", 64)
    ratio = e1 / e2
    assert ratio > 3 and ratio < 5  # MSE ~ 1/eps^2


def test_claim_3_10_demonstration():
    for m_ in (2, 3, 4):
        v = PS.perfect_security_failure(m_)
        assert v >= 1 - fmpq(1, m_)


def test_theorem_3_1_parameters_meet_the_target():
    with arith.precision(128):
        par = P.theorem_3_1_parameters(2, "1/10", "1", 2)
    assert par["q"] == fmpq(1, 20)
    assert arith.le(par["eps_pair"], 1) is True


def test_theorem_3_1_parameters_via_the_claims_closed_form():
    """The paper's route (s from the claims' closed form) certifies the target, never picks a smaller s than the
    exact route, and its eps_pair is above the exact pairwise LLR at the chosen parameters."""
    for n_, beta_, eps_, m_ in ((3, "1/100", "1/2", 3), (5, "1/1000", "1", 4), (2, "1/10", "1", 2)):
        with arith.precision(128):
            ex = P.theorem_3_1_parameters(n_, beta_, eps_, m_)
            cl = P.theorem_3_1_parameters(n_, beta_, eps_, m_, via="claims")
            assert cl["via"] == "claims" and cl["s"] >= ex["s"]
            assert arith.le((n_ - 1) * arith.ball(cl["eps_pair"]), arith.exact(eps_)) is True
            exact_at_cl, _ = xt.RelaxedAggregator(m_, cl["tau"], q=cl["q"], s=cl["s"]).pairwise_llr()
            assert arith.le(exact_at_cl, cl["eps_pair"]) is True
    with pytest.raises(Exception) as e:
        P.theorem_3_1_parameters(3, "1/100", "1/2", 3, via="guess")
    assert "via" in str(e.value)


def test_error_figure_quick(tmp_path):
    """pure-dp-error: PNG/PDF/CSV written; exact RMSE certified below its bound; eps * RMSE stays in [1.5, 2.1]
    for eps <= 1/2 (the O(1/eps) shape of Theorem 4.1)."""
    import csv

    from blanket.reports.figures import get_figure

    paths = get_figure("pure-dp-error").make(tmp_path, quick=True)
    assert [p.suffix for p in paths] == [".png", ".pdf", ".csv"] and all(p.stat().st_size > 0 for p in paths)
    rows = list(csv.DictReader(open(paths[2])))
    assert len(rows) == 3
    X = arith.exact  # decimal strings read exactly
    for r in rows:
        for which in ("binary", "protocol"):
            assert X(r[f"rmse_{which}_upper"]) <= X(r[f"bound_{which}_lower"]), (r, which)
        e = X(r["epsilon"])
        if e <= fmpq(1, 2):
            assert fmpq(3, 2) <= e * X(r["rmse_binary_lower"]) and e * X(r["rmse_binary_upper"]) <= fmpq(21, 10)


def test_figure_quick(tmp_path):
    from blanket.reports.figures import get_figure

    paths = get_figure("pure-dp-llr").make(tmp_path, quick=True)
    names = sorted(p.suffix for p in paths)
    assert names == [".csv", ".pdf", ".png"]
    rows = (tmp_path / "pure-dp-llr.csv").read_text().splitlines()
    assert len(rows) == 4
    for row in rows[1:]:
        cells = row.split(",")
        exact_upper, bound_lower = fmpq(*_dec(cells[5])), fmpq(*_dec(cells[8]))
        assert exact_upper <= bound_lower


def _dec(text):
    q = arith.exact(text)
    return int(q.p), int(q.q)


@pytest.mark.slow
def test_combined_bound_and_cor37_sweep(slow_level):
    """Sweep (s, m, q): both claims' bounds (pointwise and closed form) are above the exact pairwise LLR, and
    Cor 3.7 holds."""
    s_values = (1, 2, 4) if slow_level == "reduced" else (1, 2, 4, 8, 16)
    with arith.precision(128):
        for s_ in s_values:
            for m_ in (2, 3, 4):
                for q_ in (fmpq(1, 100), fmpq(1, 1000)):
                    tau = math.ceil(2 * s_ * math.log(float(1 / q_)))
                    agg = xt.RelaxedAggregator(m_, tau, q=q_, s=s_)
                    ex, _ = agg.pairwise_llr()
                    assert arith.le(ex, PS.claims_pair_bound(agg)) is True, (s_, m_, q_)
                    K = P.claims_closed_factor((-arb(1) / (s_ * m_)).exp(), tau, q_, m_)
                    assert arith.le(ex, arith.ball(K).log()) is True, ("closed form", s_, m_, q_)
        for rho, tau in ((fmpq(1, 2), 3), (fmpq(3, 4), 8), (fmpq(9, 10), 20))[: 2 if slow_level == "reduced" else 3]:
            for m_ in (2, 3):
                r_ = xt.r_from_rho(rho, m_)
                for q_ in (fmpq(1, 100), fmpq(1, 1000)):
                    # not False: the endpoint term theta_e is attained exactly when it dominates (small tau, m = 2),
                    # and two balls around the same number cannot be ordered
                    assert arith.le(PS.cor37_exact(r_, tau, q_, m_), P.eps1_factor(r_, tau, q_, m_).log()) is not False


def test_protocol_error_law_against_closed_forms():
    """Large m (no wrap in the window): total mass 1 - tail, mean 0, E[err^2] = Var(rounding)/k^2 + 2 Var(DLap(k/eps))/k^2."""
    with arith.precision(128):
        xs = ["1/3", "1/2", "1"]
        k_, eps = 2, fmpq(1, 2)
        law, tail = PS.protocol_error_law(xs, eps, k_, 400, window=300)
        tot = sum(law.values(), arb(0))
        assert arith.le(tot, 1) is not False and arith.ge(tot + tail, 1) is not False
        mean = sum((e * p for e, p in law.items()), arb(0))
        assert abs(mean) < 300 * tail  # only the left-out window can unbalance it
        rvar = sum((k_ * fmpq(x) - (k_ * fmpq(x)).floor()) * (1 - (k_ * fmpq(x) - (k_ * fmpq(x)).floor())) for x in xs)
        r_ = (-arb(eps) / k_).exp()
        expected = (rvar + 2 * 2 * r_ / (1 - r_) ** 2) / k_**2
        mse = sum((e * e * p for e, p in law.items()), arb(0))
        assert abs(mse - expected) < 300**2 * tail + arb("1e-30")
        assert arith.le(mse, 4 / arb(eps) ** 2 + fmpq(3, 16)) is True


@settings(max_examples=12)
@given(st.sampled_from([fmpq(1, 2), fmpq(4, 5), fmpq(9, 10)]), st.integers(2, 4), st.integers(1, 6), st.data())
def test_claim_3_6_exact_against_engine(rho, m_, tau, data):
    """Claim 3.6 through the Result (exact, rational rho) and against the engine's (E_c*D_0)[y]."""
    u_ = data.draw(st.integers(1, 2 * tau))
    c_ = data.draw(st.integers(0, m_ - 1))
    ev = get("CY21 Claim 3.6").evaluate(rho=rho, tau=tau, u=u_, m=m_, c=c_)
    assert ev.holds is True and isinstance(ev.lhs, fmpq)
    agg = xt.RelaxedAggregator(m_, tau, q="1/2", r=xt.r_from_rho(rho, m_))
    G = xt.Groups(agg)
    ed = G.conv("E", c_, "D", 0)[c_ + m_ * (2 * tau + u_)]
    T = xt.tdlap_masses(tau, r=agg.r)
    extra = T[-1] * T[u_ - 1]  # T[tau] T[u-1-tau], index z + tau
    assert extra == ev.lhs
    Nc = 1 / G.comp["E"][c_][c_ + m_ * tau]
    Z = xt.tdlap_normaliser(tau, r=agg.r)
    theta = agg.r ** (abs(u_ - 1 - tau) + abs(u_ - tau)) * Nc / Z
    assert ev.rhs == theta * ed


@given(
    st.fractions(min_value=sp.Rational(1, 100), max_value=sp.Rational(99, 100), max_denominator=100), st.integers(0, 60)
)
def test_claim_b1_and_claim_4_2_exact_hypothesis(rf, tau):
    r_ = fmpq(rf.numerator, rf.denominator)
    # exact moments by direct summation, independent of tdlap_moment
    Z = sum((r_ ** abs(j) for j in range(-tau, tau + 1)), fmpq(0))
    m2 = sum((fmpq(j) ** 2 * r_ ** abs(j) for j in range(-tau, tau + 1)), fmpq(0)) / Z
    m4 = sum((fmpq(j) ** 4 * r_ ** abs(j) for j in range(-tau, tau + 1)), fmpq(0)) / Z
    p = 1 - r_
    eg2 = (1 - p) * (2 - p) / p**2
    eg4 = (1 - p) * (24 - 36 * p + 14 * p**2 - p**3) / p**4
    assert m2 <= 2 * eg2 / (1 + r_ - 2 * r_ ** (tau + 1))
    assert m4 <= 2 * eg4 / (1 + r_ - 2 * r_ ** (tau + 1))
    assert get("CY21 Claim B.1 [m2]").evaluate(r=r_, tau=tau).holds is True
    # Claim 4.2: the exact mixture weight 1 - Pr[|eta| <= tau]^2 against the bound
    inside = sum((xt.dlap_pmf(z, r=r_) for z in range(-tau, tau + 1)), fmpq(0))
    assert 1 - inside**2 <= 4 * r_ ** (tau + 1) / (1 + r_)
    assert get("CY21 Claim 4.2").evaluate(r=r_, tau=tau).holds is True


# ------------------------------------------------------------ Claim 3.8 in closed form: independent brute force
def _brute_components(rho, tau, m):
    """D_x and E_x straight from the definitions (spec §3.1) with exact rationals; no exact.protocols.tdlap code."""
    r = rho**m
    ell = m * (2 * tau + 1) - 1
    Z = sum((r ** abs(z) for z in range(-tau, tau + 1)), fmpq(0))
    D, E = [], []
    for x in range(m):
        d = [fmpq(0)] * (ell + 1)
        for z in range(-tau, tau + 1):
            d[x + m * (tau + z)] = r ** abs(z) / Z
        mu = x + m * tau
        w = [(1 / rho) ** abs(v - mu) for v in range(ell + 1)]
        N = sum(w, fmpq(0))
        D.append(d)
        E.append([v / N for v in w])
    return D, E, ell


def _brute_conv(p, q_):
    out = [fmpq(0)] * (len(p) + len(q_) - 1)
    for i, a_ in enumerate(p):
        if a_:
            for j, b_ in enumerate(q_):
                out[i + j] += a_ * b_
    return out


def _consts_eval(expr, rho, tau, m, nu=1):
    return P.arb_eval(expr, {**P._consts(rho, tau, m), "nu": nu})


_RHOS = [fmpq(1, 2), fmpq(2, 3), fmpq(3, 4), fmpq(4, 5), fmpq(9, 10)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(_RHOS), st.integers(0, 5), st.integers(2, 5), st.data())
def test_claim_3_8_closed_forms_against_brute_force(rho, tau, m, data):
    """Every closed-form Claim 3.8 inequality at every y, every pair, both directions (exact rationals);
    constants that depend on the outcome y and on the carry j are evaluated at each y."""
    nu_ = data.draw(st.integers(1, tau + 2))
    D, E, ell = _brute_components(rho, tau, m)
    conv = _brute_conv
    k = P._consts(rho, tau, m)

    def c_(expr, y, j):
        v = P.arb_eval(expr, {**k, "nu": nu_, "y": y, "j": j})
        assert isinstance(v, fmpq)  # rational rho: every constant exact
        return v

    for a_ in range(1, m):
        for b_ in range(a_, m):
            c0, carry = (a_ + b_) % m, a_ + b_ >= m
            for x1, x2, x3, x4 in ((a_, b_, c0, 0), (c0, 0, a_, b_)):
                j = (x1 + x2 - x3 - x4) // m
                pm = [u_ + v_ for u_, v_ in zip(conv(E[x1], D[x2]), conv(D[x1], E[x2]))]
                qm = [u_ + v_ for u_, v_ in zip(conv(E[x3], D[x4]), conv(D[x3], E[x4]))]
                pe, qe = conv(E[x1], E[x2]), conv(E[x3], E[x4])
                if carry:
                    mixed = [(P.A_mix_carry_p, P.B_mix_carry_y)]
                    mirrored = (P.A_EE_carry_p, P.A_EE_carry_y)
                else:
                    mixed = [(P.A_mix_nc_p, P.Psi_p)] + ([(P.A_mix_nc_p, P.B_mix_nc_pure_y)] if nu_ <= tau else [])
                    mirrored = (P.A_EE_nc_p, P.A_EE_nc_y)
                for y in range(2 * ell + 1):
                    for A, B in mixed:
                        assert pm[y] <= c_(A, y, j) * qm[y] + c_(B, y, j) * qe[y], (
                            "mixed",
                            rho,
                            tau,
                            m,
                            nu_,
                            (x1, x2, x3, x4),
                            y,
                            B,
                        )
                    for A in mirrored:
                        assert pe[y] <= c_(A, y, j) * qe[y], ("mirrored", rho, tau, m, (x1, x2, x3, x4), y, A)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(_RHOS), st.integers(0, 6), st.integers(2, 4))
def test_claim_3_6_into_mirrored_against_brute_force(rho, tau, m):
    """The lattice group's extra term T[tau] T[u-1-tau] <= xi(u) (E_c*E_0)[c + m(2tau+u)] (N_max in xi)."""
    D, E, ell = _brute_components(rho, tau, m)
    k = P._consts(rho, tau, m)
    r = rho**m
    Z = sum((r ** abs(z) for z in range(-tau, tau + 1)), fmpq(0))
    for c0 in range(m):
        ee = _brute_conv(E[c0], E[0])
        for u_ in range(1, 2 * tau + 1):
            extra = r ** (tau + abs(u_ - 1 - tau)) / Z**2
            assert extra <= P.arb_eval(P.xi_p, {**k, "u": u_}) * ee[c0 + m * (2 * tau + u_)]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(_RHOS), st.integers(0, 6), st.integers(2, 4), st.data())
def test_claim_3_6_mirrored_mass_is_the_geometric_series(rho, tau, m, data):
    """(E_c*D_0)[c + m(2tau+u)] = G(u)/(Z N_c) exactly, and the reflection (E_a*D_b)[y] = G(1-u)/(Z N_a)."""
    u_ = data.draw(st.integers(0, 2 * tau))
    c_ = data.draw(st.integers(0, m - 1))
    D, E, ell = _brute_components(rho, tau, m)
    env = {"r": rho**m, "tau": tau, "u": u_}
    Z = sum(((rho**m) ** abs(z) for z in range(-tau, tau + 1)), fmpq(0))
    Nc = sum(((1 / rho) ** abs(v - c_ - m * tau) for v in range(ell + 1)), fmpq(0))
    assert _brute_conv(E[c_], D[0])[c_ + m * (2 * tau + u_)] == P.arb_eval(P.G_mirror, env) / (Z * Nc)
    if u_ >= 1 and c_ <= m - 2:  # reverse direction: a + b = c + m, offset 1 - u, y = c + m(2tau + 1 - u)
        a_, b_ = m - 1, c_ + 1
        Na = sum(((1 / rho) ** abs(v - a_ - m * tau) for v in range(ell + 1)), fmpq(0))
        y = c_ + m * (2 * tau + 1 - u_)
        assert _brute_conv(E[a_], D[b_])[y] == P.arb_eval(P.G_mirror, env) / (Z * Na)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_RHOS), st.integers(1, 12), st.integers(2, 6), st.integers(1, 14))
def test_Psi_is_the_max_of_psi_below_the_split(rho, tau, m, nus):
    """Psi(nu*) = max_{0 <= nu < nu*} psi(nu) (psi ~ 1/(x - x^2) for nu >= 1: the max sits at an endpoint)."""
    k = P._consts(rho, tau, m)
    brute = max(P.arb_eval(P.psi_p, {**k, "nu": v}) for v in range(nus))
    assert P.arb_eval(P.Psi_p, {**k, "nu": nus}) == brute


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(_RHOS), st.integers(0, 8), st.integers(2, 9))
def test_mirrored_normalisers_extremes(rho, tau, m):
    """N_max = N_0 and N_min = N_floor((m-1)/2) over all x (used by C_N)."""
    env = {"rho": rho, "tau": tau, "m": m}
    Ns = [P.arb_eval(P.Nx(x).subs(P.r, P.rho_s**P.m), env) for x in range(m)]
    k = P._consts(rho, tau, m)
    assert k["N_max"] == max(Ns) and k["N_min"] == min(Ns)


def test_closed_form_combination_is_above_exact_and_tight():
    """K(s, tau, q, m) >= the exact pairwise LLR; at q = 1e-3 and tau = ceil(2 s ln 1000) within 10%."""
    with arith.precision(128):
        for s_, m_ in ((2, 2), (2, 3), (4, 3), (3, 5)):
            tau = math.ceil(2 * s_ * math.log(1000))
            agg = xt.RelaxedAggregator(m_, tau, q="1/1000", s=s_)
            ex, _ = agg.pairwise_llr()
            rho = (-arb(1) / (s_ * m_)).exp()
            bd = arith.ball(P.claims_closed_factor(rho, tau, fmpq(1, 1000), m_)).log()
            assert arith.le(ex, bd) is True, (s_, m_)
            assert arith.le(bd, ex * arb("1.1")) is True, (s_, m_, ex, bd)


def test_closed_form_exact_rationals_agree_with_balls():
    """Rational rho: the pairwise LLR from exact rationals (log of an exact ratio) is below the closed form
    evaluated exactly, and the same closed form evaluated from balls encloses the exact one."""
    for rho, tau, m_ in ((fmpq(1, 2), 3, 3), (fmpq(9, 10), 6, 2), (fmpq(4, 5), 4, 4)):
        agg = xt.RelaxedAggregator(m_, tau, q="1/50", r=xt.r_from_rho(rho, m_))
        assert agg.exact
        ratio_exact = max(agg.pair_ratio(a_, b_) for a_ in range(1, m_) for b_ in range(a_, m_))
        K = P.claims_closed_factor(rho, tau, fmpq(1, 50), m_)
        assert arith.le(ratio_exact, K) is True
        with arith.precision(200):
            Kb = P.claims_closed_factor(arb(rho), tau, fmpq(1, 50), m_)
        assert arith.ball(Kb).overlaps(arith.ball(K))


def test_closed_form_rejects_bad_input():
    with pytest.raises(Exception) as e:
        P.claims_closed_factor(fmpq(1, 2), 3, 0, 3)
    assert "q" in str(e.value)
    with pytest.raises(Exception) as e:
        P.claims_closed_factor(fmpq(1, 2), 3, fmpq(1, 10), 1)
    assert "m" in str(e.value)
