"""Tests for exact/protocols/summation.py: the summation protocol and the lower-bound tools.

Independent routes: the protocol is re-simulated in plain ``fractions.Fraction``
arithmetic straight from the algorithm's description (rounding atoms, keep
w.p. 1−γ, uniform w.p. γ) — not through ``report_law``; the shuffled δ is
cross-checked against ``exact.shuffled.enumerate`` (an independent engine) and a
direct enumeration; the simulation tolerance comes from Chebyshev's
inequality with the exact fourth moment.
"""

from __future__ import annotations

import importlib
import itertools
import math
import random
from fractions import Fraction as F

import pytest
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from blanket.exact.protocols import summation as xs
from flint import fmpq
from hypothesis import given
from hypothesis import strategies as st


def q(f: F) -> fmpq:
    return fmpq(f.numerator, f.denominator)


# ------------------------------------------------------------ independent reference (Fractions)
def ref_user(x: F, k: int, g: F):
    """(mean, E[(e-x)^2], E[(e-x)^4]) of one user's de-biased report, from the algorithm's description."""
    j = math.floor(x * k)
    p = x * k - j
    atoms = {}  # level -> prob
    for lev, pr in ((j, 1 - p), (j + 1, p)):
        if pr:
            atoms[lev] = atoms.get(lev, 0) + (1 - g) * pr
    for lev in range(k + 1):
        atoms[lev] = atoms.get(lev, 0) + g / (k + 1)
    est = {lev: (F(lev, k) - g / 2) / (1 - g) for lev in atoms}
    mean = sum(pr * est[lev] for lev, pr in atoms.items())
    m2 = sum(pr * (est[lev] - x) ** 2 for lev, pr in atoms.items())
    m4 = sum(pr * (est[lev] - x) ** 4 for lev, pr in atoms.items())
    return mean, m2, m4


ks = st.integers(1, 12)
gammas = st.fractions(min_value=0, max_value=F(99, 100), max_denominator=200)
xs01 = st.fractions(min_value=0, max_value=1, max_denominator=500)


# ------------------------------------------------------------ validation
def test_bad_input_messages():
    with pytest.raises(InvalidArgument, match="k must be >= 1, got 0"):
        xs.Protocol1D(0, "1/2")
    with pytest.raises(InvalidArgument, match="gamma must be < 1"):
        xs.Protocol1D(3, 1)
    with pytest.raises(InvalidArgument, match="gamma must be >= 0"):
        xs.Protocol1D(3, "-0.1")
    with pytest.raises(FloatRefused):
        xs.Protocol1D(3, 0.1)
    P = xs.Protocol1D(3, "0.1")
    with pytest.raises(InvalidArgument, match="x must be <= 1"):
        P.user_moments("1.5")
    with pytest.raises(InvalidArgument, match="rng must be a random.Random"):
        P.sample_report("0.5", 7)
    with pytest.raises(InvalidArgument, match="gamma must be > 0"):
        xs.Protocol1D(3, 0).mechanism()


# ------------------------------------------------------------ exact moments
@given(x=xs01, k=ks, g=gammas)
def test_moments_match_independent_enumeration(x, k, g):
    P = xs.Protocol1D(k, q(g))
    mean, mse = P.user_moments(q(x))
    rmean, rm2, rm4 = ref_user(x, k, g)
    assert mean == q(rmean) == q(x)  # unbiased
    assert mse == q(rm2)
    assert P.user_central_moment4(q(x)) == q(rm4)
    law = P.report_law(q(x))
    assert sum(law, fmpq(0)) == 1 and all(v >= 0 for v in law)


@given(k=ks, g=gammas)
def test_worst_input_beats_a_fine_grid(k, g):
    """The claimed maximiser is not beaten by any x on a fine rational grid (plus the mirrored point)."""
    P = xs.Protocol1D(k, q(g))
    xstar = P.worst_input()
    best = P.worst_user_mse()
    _, rbest, _ = ref_user(F(int(xstar.p), int(xstar.q)), k, g)
    assert best == q(rbest)
    assert P.user_moments(1 - xstar)[1] == best  # symmetry x -> 1 - x
    N = 24 * k
    for i in range(N + 1):
        assert P.user_moments(fmpq(i, N))[1] <= best


def test_worst_mse_is_n_times_worst_user():
    P = xs.Protocol1D(5, "1/7")
    assert P.worst_mse(13) == 13 * P.worst_user_mse()
    assert P.mse([P.worst_input()] * 13) == P.worst_mse(13)
    assert P.mse(["0.5"] * 13) < P.worst_mse(13)


def test_analyzer_debias_by_hand():
    P = xs.Protocol1D(4, "1/5")
    # reports 0, 4, 2: zhat = 6/4, z = (3/2 - (1/5)(3)/2) / (4/5) = (3/2 - 3/10) * 5/4 = 3/2
    assert P.analyzer([0, 4, 2]) == fmpq(3, 2)
    assert sum((P.estimate(r) for r in (0, 4, 2)), fmpq(0)) == fmpq(3, 2)


def test_mechanism_is_k_plus_1_rr_with_blanket_gamma():
    for k, g in ((1, "1/2"), (4, "1/10"), (30, "3/1000")):
        P = xs.Protocol1D(k, g)
        mech = P.mechanism()
        assert mech.k == k + 1 and mech.is_exact
        gq = fmpq(g) if "/" not in g else fmpq(*map(int, g.split("/")))
        assert mech.gamma() == gq
        assert mech.flip() == gq / (k + 1) and mech.keep() == 1 - gq + gq / (k + 1)


# ------------------------------------------------------------ simulation (seeded; tolerance from Chebyshev)
@pytest.mark.parametrize("k,g,n,where", [(4, "1/10", 6, "worst"), (1, "1/2", 3, "worst"), (10, "0.3", 5, "mixed")])
def test_simulation_agrees_with_exact_mse(k, g, n, where):
    """Empirical MSE of T seeded runs vs the exact MSE.

    The squared error S² of one run has mean MSE and variance
    v = E[S⁴] − MSE², with E[S⁴] = Σ_i m4_i + 3(Σ_i m2_i)² − 3Σ_i m2_i² for independent
    centred per-user errors (exact).  Chebyshev: P(|mean_T − MSE| ≥ t) ≤ v/(T t²);
    we take failure probability β = 1e-3, so t = sqrt(v/(T β)).  Also the
    empirical mean of z is checked the same way (variance = MSE).
    """
    P = xs.Protocol1D(k, g)
    xs_in = [P.worst_input()] * n if where == "worst" else [fmpq(i, 2 * n) for i in range(n)]
    m2 = [P.user_moments(x)[1] for x in xs_in]
    m4 = [P.user_central_moment4(x) for x in xs_in]
    mse = sum(m2, fmpq(0))
    e4 = sum(m4, fmpq(0)) + 3 * mse**2 - 3 * sum((a * a for a in m2), fmpq(0))
    var_sq = e4 - mse**2
    T, beta = 4000, F(1, 1000)
    rng = random.Random(20190303)
    total = sum(F(int(x.p), int(x.q)) for x in xs_in)
    errs = [P.simulate(xs_in, rng) - total for _ in range(T)]
    emp_mse = sum(e * e for e in errs) / T
    emp_bias = sum(errs) / T
    t_mse = math.sqrt(float(var_sq) / (T * float(beta)))
    t_bias = math.sqrt(float(mse) / (T * float(beta)))
    assert abs(float(emp_mse) - float(mse)) <= t_mse
    assert abs(float(emp_bias)) <= t_bias
    # and the tolerance is not vacuous: it is below the MSE itself
    assert t_mse < float(mse)


def test_simulation_is_reproducible():
    P = xs.Protocol1D(3, "1/4")
    a = [P.simulate(["0.2", "0.9"], random.Random(5)) for _ in range(3)]
    b = [P.simulate(["0.2", "0.9"], random.Random(5)) for _ in range(3)]
    assert a == b


# ------------------------------------------------------------ lower-bound tools
@st.composite
def randomizers(draw, k_in=None, max_out=4):
    """Random exact row-stochastic matrices with small integer weights."""
    kin = k_in or draw(st.integers(2, 3))
    kout = draw(st.integers(2, max_out))
    rows = []
    for _ in range(kin):
        w = draw(st.lists(st.integers(0, 6), min_size=kout, max_size=kout).filter(lambda v: sum(v) > 0))
        s = sum(w)
        rows.append([fmpq(a, s) for a in w])
    return FiniteRandomizer(rows)


@given(mech=randomizers(), n=st.integers(1, 3), data=st.data())
def test_sum_mse_formula_vs_bruteforce(mech, n, data):
    M = xs.midpoints(mech.k_in)
    vals = [fmpq(data.draw(st.integers(0, 8)), 8) for _ in range(mech.k_out)]
    brute = xs.protocol_mse_bruteforce(mech, M, n, lambda ys: sum((vals[y] for y in ys), fmpq(0)))
    assert xs.sum_protocol_mse(mech, vals, M, n) == brute


@given(mech=randomizers(), n=st.integers(1, 3), data=st.data())
def test_lemma_4_1_posterior_mean_never_worse(mech, n, data):
    """MSE(P', X) ≤ MSE(P, X) for an arbitrary analyzer on the multiset (a random table), by brute force."""
    M = xs.midpoints(mech.k_in)
    table = {}

    def analyzer(ys):
        if ys not in table:
            table[ys] = fmpq(data.draw(st.integers(0, 4 * n)), 4)
        return table[ys]

    orig = xs.protocol_mse_bruteforce(mech, M, n, analyzer)
    post, vals = xs.posterior_mean_randomizer(mech, M)
    assert all(min(M) <= v <= max(M) for v in vals)
    new = xs.sum_protocol_mse(post, vals, M, n)
    assert new == xs.protocol_mse_bruteforce(post, M, n, lambda ys: sum((vals[y] for y in ys), fmpq(0)))
    assert new <= orig
    # the posterior mean is unbiased: MSE(P', X) = n E[(R'(X) - X)^2] exactly (Lemma 4.2 with equality)
    assert new == n * xs.single_error(post, vals, M)


@given(mech=randomizers(max_out=3), n=st.integers(1, 3), ee=st.sampled_from([fmpq(1), fmpq(3, 2), fmpq(3)]))
def test_lemma_4_1_privacy_kept_exactly(mech, n, ee):
    """Shuffled δ of the post-processed randomizer ≤ that of the original, on every neighbouring pair."""
    M = xs.midpoints(mech.k_in)
    post, _ = xs.posterior_mean_randomizer(mech, M)
    for others in itertools.combinations_with_replacement(range(mech.k_in), n - 1):
        for a, b in itertools.permutations(range(mech.k_in), 2):
            d1, d2 = list(others) + [a], list(others) + [b]
            assert xs.pair_delta(post, d1, d2, exp_epsilon=ee) <= xs.pair_delta(mech, d1, d2, exp_epsilon=ee)


@given(mech=randomizers(max_out=3), n=st.integers(1, 4), ee=st.sampled_from([fmpq(1), fmpq(2), fmpq(5, 2)]))
def test_worst_delta_matches_exact_enumerate(mech, n, ee):
    """Our direct enumeration against exact.shuffled.enumerate.worst_case (another engine)."""
    enum = importlib.import_module("blanket.exact.shuffled.enumerate")
    w = enum.worst_case(mech, n, exp_epsilon=ee)
    assert xs.worst_delta_bruteforce(mech, n, exp_epsilon=ee) == w.value


def test_histogram_law_sums_to_one_and_matches_binomial():
    law = xs.histogram_law([[fmpq(1, 3), fmpq(2, 3)]] * 5)
    assert sum(law.values(), fmpq(0)) == 1
    for (a, b), p in law.items():
        assert p == math.comb(5, b) * fmpq(2, 3) ** b * fmpq(1, 3) ** a


def test_intervals_and_midpoints():
    assert xs.midpoints(4) == [fmpq(1, 8), fmpq(3, 8), fmpq(5, 8), fmpq(7, 8)]
    assert [xs.interval_index(v, 4) for v in ("0", "0.25", "0.2499", "1", "0.75")] == [0, 1, 0, 3, 3]
    mech = KRR(3, exp_epsilon0=2)
    p = xs.interval_probabilities(mech, xs.midpoints(3), 3)
    assert p[0] == [fmpq(1, 2), fmpq(1, 4), fmpq(1, 4)]


@given(m=st.integers(2, 40))
def test_midpoint_sum_min_by_fractions(m):
    """Brute force in Fractions over every y (independent of the fmpq code path)."""
    M = [F(2 * i - 1, 2 * m) for i in range(1, m + 1)]
    h = F(1, 2 * m)
    best = min(sum((abs(x - y) - h) ** 2 for x in M if x != y) for y in M)
    assert xs.midpoint_sum_min(m) == q(best)


@given(mech=randomizers(k_in=3, max_out=4), data=st.data())
def test_lemma_4_4_terms_are_lower_bounds(mech, data):
    """Lemma 4.4 on random randomizers with outputs anywhere in [0, 1] (including interval boundaries)."""
    vals = [fmpq(data.draw(st.integers(0, 12)), 12) for _ in range(mech.k_out)]
    t1, t2 = xs.lemma_4_4_terms(mech, vals, 3)
    err = xs.single_error(mech, vals, xs.midpoints(3))
    assert t1 <= err and t2 <= err


def test_cbrt_ceil():
    for n in list(range(1, 2000)) + [10**8, 10**8 + 1, 999**3, 999**3 + 1, 10**30]:
        r = xs.cbrt_ceil(n)
        assert r**3 >= n and (r - 1) ** 3 < n


def test_rational_upper_is_above():
    from blanket.exact.numbers.arith import precision
    from flint import arb

    with precision(200):
        b = arb(3).log()
        r = xs.rational_upper(b, 25)
        from blanket.exact.numbers.arith import gt

        assert gt(r, b) is True
        assert (r - b).upper() < arb("1e-20")


def test_certified_epsilon_through_blanket_view():
    importlib.import_module("blanket.exact.numbers.calibrate")
    P = xs.Protocol1D(2, "1/2")
    br = xs.certified_epsilon(P, 200, "1e-3")
    up = br.upper
    # the certified epsilon is at most the local epsilon0 = log(1 + 3) and at least 0
    assert 0 <= up <= fmpq(14, 10)


def test_figure_summation_mse_quick(tmp_path):
    """The figure writes PNG + PDF + CSV; in the CSV, lower bound ≤ exact MSE ≤ Theorem 4.1 bound (outward-rounded ends)."""
    import csv
    from decimal import Decimal

    from blanket.reports.figures import get_figure

    paths = get_figure("summation-mse").make(tmp_path, quick=True)
    assert {p.suffix for p in paths} >= {".png", ".pdf", ".csv"}
    assert all(p.stat().st_size > 0 for p in paths)
    rows = list(csv.DictReader(open(tmp_path / "summation-mse.csv")))
    assert len(rows) == 8
    seen = 0
    for r in rows:
        if r["mse_exact_upper"]:
            assert Decimal(r["thm42_best_upper"]) <= Decimal(r["mse_exact_lower"])
            if r["thm41_lower"]:
                assert Decimal(r["mse_exact_upper"]) <= Decimal(r["thm41_lower"])
                seen += 1
    assert seen >= 4


def test_calibrated_protocol_is_certified_dp_and_smaller_gamma():
    """The calibrated γ meets the target by an independent engine (exact.shuffled.binary worst case over all datasets)."""
    binary = importlib.import_module("blanket.exact.shuffled.binary")
    from blanket.exact.numbers import arith

    P = xs.calibrated_protocol(1, 200, "1", "1e-3")
    with arith.precision(128):
        w = binary.delta_binary_worst(P.mechanism(), 200, epsilon="1")
        assert arith.le(w.value, fmpq(1, 1000)) is True
    # a clearly smaller gamma (half) is not certified by the blanket view: the calibration is not vacuous
    from blanket.exact.shuffled.krr import delta_blanket_view

    with arith.precision(128):
        d = delta_blanket_view(xs.Protocol1D(1, P.gamma / 2).mechanism(), 200, epsilon=1)
        assert arith.gt(d, fmpq(1, 1000)) is True
