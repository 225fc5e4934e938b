"""Tests for exact.protocols.tdlap: laws, Pólya shares, the relaxed aggregator (this project's reading), LLR and profiles.

Oracles: exact rationals (rational r, and rational rho = r^{1/m} for the
mirrored component), direct double/triple loops over the components
(brute force for small n), mpmath at 60 digits, and the spec's numbers.
"""

import itertools
from fractions import Fraction
from functools import partial

import mpmath
import pytest
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from blanket.exact.protocols import tdlap as xt
from flint import arb, fmpq
from hypothesis import given
from hypothesis import strategies as st

rationals01 = st.fractions(min_value=Fraction(1, 50), max_value=Fraction(49, 50), max_denominator=50).map(
    lambda f: fmpq(f.numerator, f.denominator)
)


def mp(x):
    """An mpmath number from an exact fmpq."""
    return mpmath.mpf(int(x.p)) / int(x.q)


# ------------------------------------------------------------ inputs
def test_bad_inputs_name_the_argument():
    with pytest.raises(FloatRefused):
        xt.ratio(r=0.5)
    with pytest.raises(InvalidArgument, match="r must be < 1"):
        xt.ratio(r=1)
    with pytest.raises(InvalidArgument, match="s must be > 0"):
        xt.ratio(s="-1")
    with pytest.raises(InvalidArgument, match="tau must be >= 0"):
        xt.tdlap_masses(-1, r="1/2")
    with pytest.raises(InvalidArgument, match="q must be"):
        xt.RelaxedAggregator(3, 2, q="1", r="1/8")
    with pytest.raises(InvalidArgument, match="m must be >= 2"):
        xt.RelaxedAggregator(1, 2, q="1/2", r="1/8")


# ------------------------------------------------------------ DLap / TDLap
@given(rationals01, st.integers(0, 30))
def test_tdlap_normaliser_closed_form_equals_direct_sum(r, tau):
    direct = sum((r ** abs(j) for j in range(-tau, tau + 1)), fmpq(0))
    assert xt.tdlap_normaliser(tau, r=r) == direct
    masses = xt.tdlap_masses(tau, r=r)
    assert sum(masses, fmpq(0)) == 1
    assert masses == masses[::-1]
    assert xt.tdlap_pmf(tau + 1, tau=tau, r=r) == 0


@given(rationals01, st.integers(0, 40))
def test_dlap_tail_and_total_mass(r, t):
    window = sum((xt.dlap_pmf(z, r=r) for z in range(-t, t + 1)), fmpq(0))
    assert window + xt.dlap_tail(t, r=r) == 1


@given(rationals01)
def test_moments_against_mpmath_series(r):
    mpmath.mp.dps = 60
    rr = mp(r)
    e2 = 2 * mpmath.nsum(lambda j: j**2 * rr**j, [1, mpmath.inf]) * (1 - rr) / (1 + rr)
    e4 = 2 * mpmath.nsum(lambda j: j**4 * rr**j, [1, mpmath.inf]) * (1 - rr) / (1 + rr)
    assert abs(mp(xt.dlap_moment(2, r=r)) - e2) < mpmath.mpf(10) ** -40 * (1 + e2)
    assert abs(mp(xt.dlap_moment(4, r=r)) - e4) < mpmath.mpf(10) ** -40 * (1 + e4)
    p = 1 - rr
    for k in (1, 2, 4):
        g = mpmath.nsum(lambda j: j**k * p * rr**j, [0, mpmath.inf])
        assert abs(mp(xt.geo_moment(k, r=r)) - g) < mpmath.mpf(10) ** -40 * (1 + g)


def test_tdlap_moment_exact_sum():
    r = fmpq(1, 3)
    tau = 4
    direct = sum((fmpq(z) ** 2 * v for z, v in zip(range(-tau, tau + 1), xt.tdlap_masses(tau, r=r))), fmpq(0))
    assert xt.tdlap_moment(2, tau, r=r) == direct
    assert xt.tdlap_moment(3, tau, r=r) == 0


def test_dlap_conditioned_on_window_is_tdlap():
    r, tau = fmpq(2, 5), 6
    inside = 1 - xt.dlap_tail(tau, r=r)
    for z in range(-tau, tau + 1):
        assert xt.dlap_pmf(z, r=r) / inside == xt.tdlap_pmf(z, tau=tau, r=r)


# ------------------------------------------------------------ Pólya (Fact 2.4)
def test_polya_masses_against_mpmath():
    mpmath.mp.dps = 50
    alpha, r = fmpq(1, 3), fmpq(2, 5)
    with arith.precision(200):
        ms = xt.polya_masses(alpha, 8, r=r)
    for j, v in enumerate(ms):
        third = mpmath.mpf(1) / 3
        ref = (
            mpmath.gamma(j + third)
            / (mpmath.gamma(third) * mpmath.factorial(j))
            * (mpmath.mpf(2) / 5) ** j
            * (mpmath.mpf(3) / 5) ** third
        )
        assert abs(mpmath.mpf(float(v.mid())) - ref) < 1e-12 * ref
        assert v.rad() < 1e-40


@pytest.mark.parametrize("n", [1, 2, 5])
def test_polya_shares_sum_to_dlap(n):
    with arith.precision(128):
        chk = xt.polya_share_check(n, 12, r="1/3")
    assert chk.holds is True
    assert chk.tail < 1e-6


def test_polya_wrong_shape_is_detected():
    with arith.precision(128):
        assert xt.polya_share_check(4, 12, r="1/3", shape="1/5").holds is False


# ------------------------------------------------------------ components
def test_components_supports_and_masses():
    m, tau = 3, 2
    r = xt.r_from_rho(fmpq(1, 2), m)
    for x in range(m):
        D = xt.lattice_component(x, m, tau, r=r)
        E = xt.mirrored_component(x, m, tau, r=r)
        assert len(D) == len(E) == m * (2 * tau + 1)
        assert sum(D, fmpq(0)) == 1 and sum(E, fmpq(0)) == 1
        assert all(v == 0 for i, v in enumerate(D) if i % m != x)
        mu = x + m * tau
        assert min(E) == E[mu] and all(v > 0 for v in E)
        for y in range(len(E) - 1):  # more mass away from the centre: ratio rho^{-1} = 2 per step
            if y >= mu:
                assert E[y + 1] == 2 * E[y]


def test_user_component_validation():
    m, tau = 2, 1
    good = [[fmpq(1, 6)] * 6, [fmpq(1, 6)] * 6]
    agg = xt.RelaxedAggregator(m, tau, q="1/2", r="1/4", component=good)
    assert agg.exact
    with pytest.raises(InvalidArgument, match="length"):
        xt.RelaxedAggregator(m, tau, q="1/2", r="1/4", component=[[fmpq(1, 5)] * 5] * 2)
    with pytest.raises(InvalidArgument, match="sum to 1"):
        xt.RelaxedAggregator(m, tau, q="1/2", r="1/4", component=[[fmpq(1, 7)] * 6] * 2)
    with pytest.raises(InvalidArgument, match="non-negative"):
        xt.RelaxedAggregator(m, tau, q="1/2", r="1/4", component=[[fmpq(-1, 6)] + [fmpq(7, 30)] * 5] * 2)
    with pytest.raises(InvalidArgument, match="float"):
        xt.RelaxedAggregator(m, tau, q="1/2", r="1/4", component=[[1 / 6] * 6] * 2)


# ------------------------------------------------------------ aggregator laws vs brute force
def _brute_sum_law(agg, xs):
    law = {}
    for etas in itertools.product(range(agg.ell + 1), repeat=len(xs)):
        p = fmpq(1)
        for x, e in zip(xs, etas):
            p *= agg.hat[x][e]
        law[sum(etas)] = law.get(sum(etas), fmpq(0)) + p
    return [law.get(y, fmpq(0)) for y in range(len(xs) * agg.ell + 1)]


@pytest.mark.parametrize("xs", [(0, 1), (1, 1, 0), (2, 2)])
def test_sum_law_equals_brute_force(xs):
    agg = xt.RelaxedAggregator(3, 1, q="1/10", r=xt.r_from_rho("1/2", 3))
    assert agg.sum_law(xs) == _brute_sum_law(agg, xs)
    fail = sum((v for y, v in enumerate(agg.sum_law(xs)) if y % 3 != sum(xs) % 3), fmpq(0))
    assert agg.correctness_failure(xs) == fail
    assert fail <= 1 - (1 - agg.q) ** len(xs)


def test_q_zero_is_always_correct_but_infinitely_insecure():
    agg = xt.RelaxedAggregator(3, 2, q=0, r="1/2")
    assert agg.correctness_failure((1, 2, 2)) == 0
    val, pair = agg.pairwise_llr()
    assert val is None
    val_n, _ = agg.llr_security(2)
    assert val_n is None


def test_residue_preserving_component_is_detected():
    """Spec §3.2: no residue-preserving mixture gives finite LLR (here: uniform on the residue class of x)."""
    m, tau = 3, 2
    L = m * (2 * tau + 1)

    def comp(x):
        cls = [y for y in range(L) if y % m == x]
        return [fmpq(1, len(cls)) if y % m == x else fmpq(0) for y in range(L)]

    agg = xt.RelaxedAggregator(m, tau, q="1/3", r="1/2", component=comp)
    assert agg.pairwise_llr()[0] is None
    # and a component that leaves the class gives a finite value
    agg2 = xt.RelaxedAggregator(m, tau, q="1/3", r="1/2", component=lambda x: [fmpq(1, L)] * L)
    assert agg2.pairwise_llr()[0] is not None


# ------------------------------------------------------------ LLR two ways
def _mp_pair_llr(m, tau, q, rho, a, b):
    """Independent mpmath route: build the mixtures from their formulas and convolve with double loops."""
    mpmath.mp.dps = 60
    r = rho**m
    ell = m * (2 * tau + 1) - 1
    Z = sum(r ** abs(j) for j in range(-tau, tau + 1))

    def hat(x):
        mu = x + m * tau
        N = sum(rho ** (-abs(y - mu)) for y in range(ell + 1))
        out = [q * rho ** (-abs(y - mu)) / N for y in range(ell + 1)]
        for z in range(-tau, tau + 1):
            out[x + m * (tau + z)] += (1 - q) * r ** abs(z) / Z
        return out

    def conv(p1, p2):
        out = [mpmath.mpf(0)] * (len(p1) + len(p2) - 1)
        for i, u in enumerate(p1):
            for j, v in enumerate(p2):
                out[i + j] += u * v
        return out

    c = (a + b) % m
    P, Q = conv(hat(a), hat(b)), conv(hat(c), hat(0))
    return max(abs(mpmath.log(x / y)) for x, y in zip(P, Q))


@pytest.mark.parametrize("m,tau,a,b", [(2, 2, 1, 1), (3, 2, 1, 2), (3, 3, 2, 2)])
def test_pair_llr_exact_ball_and_mpmath_agree(m, tau, a, b):
    rho, q = fmpq(4, 5), fmpq(1, 20)
    r = xt.r_from_rho(rho, m)
    exact_agg = xt.RelaxedAggregator(m, tau, q=q, r=r)
    ratio = exact_agg.pair_ratio(a, b)
    assert isinstance(ratio, fmpq)
    with arith.precision(128):
        ball_agg = xt.RelaxedAggregator(m, tau, q=q, r=arb(r) + arb(0, 0))  # ball route
        ball_agg.hat = [[arb(v) for v in h] for h in ball_agg.hat]
        ball_agg._laws.clear()
        bl = ball_agg.pair_llr(a, b)
        assert isinstance(bl, arb) and bl.contains(arb(ratio).log())
        assert bl.rad() < 1e-30
    ref = _mp_pair_llr(m, tau, mp(q), mp(rho), a, b)
    assert abs(ref - mpmath.log(mp(ratio))) < mpmath.mpf(10) ** -40


def test_s_parametrisation_reproduces_spec_numbers():
    """Spec §3.2: q = 1e-3, tau = ceil(2 s ln(1/q)), m = 3: about 0.61, 0.28, 0.13 for s = 2, 4, 8."""
    expected = {2: (28, "0.61"), 4: (56, "0.28"), 8: (111, "0.13")}
    with arith.precision(128):
        for s, (tau, approx) in expected.items():
            val, _ = xt.RelaxedAggregator(3, tau, q="1e-3", s=s).pairwise_llr()
            assert abs(val - arb(approx)) < 0.006


# ------------------------------------------------------------ security over inputs, hockey-stick profile
def test_llr_security_n2_equals_pairwise_and_hybrid_bound():
    agg = xt.RelaxedAggregator(3, 2, q="1/10", r=xt.r_from_rho("3/4", 3))
    pair, _ = agg.pairwise_llr()
    sec2, _ = agg.llr_security(2)
    assert isinstance(pair, arb) and pair.overlaps(sec2)
    sec3, xs = agg.llr_security(3)
    assert sec3 < 2 * pair + arb("1e-20")
    assert sec3 > pair - arb("1e-20")


def test_hockey_stick_reaches_zero_exactly_at_llr():
    agg = xt.RelaxedAggregator(2, 2, q="1/10", r=xt.r_from_rho("1/2", 2))
    xs = (1, 1)
    c = sum(xs) % 2
    R = xt.max_ratio(agg.sum_law(xs), agg.sum_law([c, 0]))
    assert isinstance(R, fmpq) and R > 1
    assert agg.hockey_stick_profile(xs, exp_epsilon=R) == 0
    assert agg.hockey_stick_profile(xs, exp_epsilon=R - fmpq(1, 10**9)) > 0
    assert agg.hockey_stick_profile(xs, exp_epsilon=1) > 0


def test_correctness_failure_max_over_multisets():
    agg = xt.RelaxedAggregator(2, 1, q="1/5", r="1/4")
    val, arg = agg.correctness_failure_max(3)
    brute = max(agg.correctness_failure(xs) for xs in itertools.combinations_with_replacement(range(2), 3))
    assert val == brute
    assert val <= 1 - (1 - fmpq(1, 5)) ** 3


# ------------------------------------------------------------ the pairing inequality (Claims 3.4 / 3.8 engine)
@given(st.integers(2, 4), st.integers(1, 3), st.sampled_from([fmpq(1, 2), fmpq(4, 5), fmpq(19, 20)]))
def test_pairing_rhs_dominates_exactly(m, tau, rho):
    agg = xt.RelaxedAggregator(m, tau, q="1/2", r=xt.r_from_rho(rho, m))
    G = xt.Groups(agg)
    for a in range(m):
        for b in range(m):
            c = (a + b) % m
            for X in "DE":
                for Y in "DE":
                    for pa, pb, pc, pd in ((a, b, c, 0), (c, 0, a, b)):
                        lhs = G.conv(X, pa, Y, pb)
                        rhs = G.pairing_rhs(X, pa, Y, pb, pc, pd)
                        assert all(l <= h for l, h in zip(lhs, rhs))


def test_pairing_rhs_without_unpaired_terms_fails():
    """Dropping U (the extra term) must break the inequality somewhere: the check can fail."""
    m, tau = 3, 2
    agg = xt.RelaxedAggregator(m, tau, q="1/2", r=xt.r_from_rho("1/2", m))
    G = xt.Groups(agg)
    lhs = G.conv("D", 2, "D", 2)
    kap = 1 / agg.r
    bare = [kap * v for v in G.conv("D", 1, "D", 0)]
    assert any(l > h for l, h in zip(lhs, bare))


def test_pairwise_llr_certified_escalates_from_low_precision():
    val, pair, prec = xt.pairwise_llr_certified(partial(xt.RelaxedAggregator, 3, 6, q="1/100", s=2), start=16)
    assert prec > 16
    with arith.precision(128):
        ref, _ = xt.RelaxedAggregator(3, 6, q="1/100", s=2).pairwise_llr()
    assert val.overlaps(ref) and val.rad() < 1e-10
    assert xt.pairwise_llr_certified(partial(xt.RelaxedAggregator, 3, 2, q=0, r="1/2"))[0] is None
