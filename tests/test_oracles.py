"""Frequency oracles, generic LDP and the geometric mechanism (exact/mechanisms/oracles.py) against brute force.

Independent routes: the explicit matrix of each mechanism (enumerated output
space, small k) through exact.mechanisms.finite (γ, ω, amplification_law),
exact.shuffled.krr.delta_blanket_view(method="enumerate") (multinomial sum over every
output of the matrix), exact.shuffled.enumerate (exhaustive worst case over all
datasets, and single datasets), and the clone pair built from its definition.
"""

import itertools
import math

import pytest
from blanket.exact.mechanisms.finite import KRR, amplification_law
from blanket.exact.mechanisms.oracles import LDP, OLH, OUE, SUE, Geometric, Hadamard, Subset
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.enumerate import delta_dataset, worst_case
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.exact.shuffled.oracles import (
    best_upper_delta,
    blanket_view_delta,
    blanket_view_delta_enumerate,
    blanket_view_delta_merged,
    clone_delta,
    clone_pair_law,
    epsilon_upper,
    same_family_delta,
)
from flint import arb, fmpq


def _functions(k, g, nonconstant=False):
    fs = list(itertools.product(range(g), repeat=k))
    return [f for f in fs if len(set(f)) > 1] if nonconstant else fs


def _mechs():
    """Small instances (exact e^{ε0}) whose matrices have at most 16 outputs."""
    return [
        OUE(3, exp_epsilon0=3),
        OUE(4, exp_epsilon0="5/2"),
        OUE(2, exp_epsilon0=4),
        SUE(3, exp_half_epsilon0=2),
        SUE(4, exp_half_epsilon0="3/2"),
        OLH(3, 2, exp_epsilon0=3, family=_functions(3, 2, nonconstant=True)),  # c = 1/3, no constant h
        OLH(3, 2, exp_epsilon0=3, family=_functions(3, 2), constant="family"),  # pairwise independent, κ = 1/4
        OLH(4, 2, exp_epsilon0=2, family=_functions(4, 2, nonconstant=True)),
        Hadamard(2, exp_epsilon0=3),
        Hadamard(3, exp_epsilon0=2),
        Hadamard(5, exp_epsilon0=3),
        Hadamard(7, exp_epsilon0="3/2"),
        Subset(4, 2, exp_epsilon0=3),
        Subset(5, 2, exp_epsilon0=2),
        Subset(4, 1, exp_epsilon0=2),
        Subset(5, 3, exp_epsilon0=4),
    ]


def _merge(law):
    out = {}
    for v, p in law:
        if p != 0:
            out[v] = out.get(v, fmpq(0)) + p
    return out


@pytest.mark.parametrize("mech", _mechs(), ids=lambda m: f"{m.kind}-{m.describe()}")
def test_gamma_blanket_and_l_law_match_the_explicit_matrix(mech):
    fr = mech.matrix()
    assert mech.gamma() == fr.gamma()
    assert mech.exp_epsilon0() == fr.exp_epsilon0()
    for ee in (fmpq(1), fmpq(3, 2), fmpq(2)):
        mine = _merge(mech.l_law(exp_epsilon=ee))
        # every ordered pair x != x' has the same law
        for x, x2 in itertools.permutations(range(fr.k_in), 2):
            assert _merge(amplification_law(fr, x, x2, exp_epsilon=ee)) == mine, (x, x2, ee)
    a, b = mech.ratio_law()
    rows = fr.matrix()
    lam = {}
    for _y, (p0, p1) in enumerate(zip(rows[0], rows[1])):
        if p0:
            lam[p1 / p0] = lam.get(p1 / p0, fmpq(0)) + p0
    e = mech.exp_epsilon0()
    assert lam.get(1 / e, 0) == a and lam.get(e, 0) == b and sum(lam.values()) == 1


def test_olh_with_constant_hashes_credited_to_zero_is_still_a_valid_decomposition():
    fam = _functions(3, 2)
    full = OLH(3, 2, exp_epsilon0=3, family=fam, constant="family")
    uni = OLH(3, 2, exp_epsilon0=3, family=fam)  # constant = 0: uniform blanket, smaller γ
    assert uni.gamma() == fmpq(2, 4) < full.gamma() == full.matrix().gamma()
    # Lemma 5.3 with the smaller γ is still above the exhaustive worst case (and above the TV-γ view)
    for n in (2, 3):
        wc = worst_case(full.matrix(), n, exp_epsilon=fmpq(3, 2)).value
        assert (
            blanket_view_delta(uni, n, exp_epsilon=fmpq(3, 2))
            >= blanket_view_delta(full, n, exp_epsilon=fmpq(3, 2))
            >= wc
        )


@pytest.mark.parametrize("mech", [m for m in _mechs() if m.matrix().k_out <= 8], ids=lambda m: m.kind)
def test_blanket_view_equals_the_enumerated_lemma_5_3_of_the_matrix(mech):
    fr = mech.matrix()
    for n in (1, 3, 4):
        for ee in (fmpq(1), fmpq(3, 2)):
            assert blanket_view_delta(mech, n, exp_epsilon=ee) == delta_blanket_view(
                fr, n, exp_epsilon=ee, method="enumerate"
            )


@pytest.mark.parametrize("mech", [m for m in _mechs() if m.matrix().k_out <= 16 and m.k <= 4], ids=lambda m: m.kind)
def test_upper_bounds_above_and_lower_bound_below_the_exhaustive_worst_case(mech):
    fr = mech.matrix()
    n = 3 if fr.k_out > 8 else 4
    for ee in (fmpq(1), fmpq(5, 4), fmpq(2)):
        wc = worst_case(fr, n, exp_epsilon=ee).value
        bv = blanket_view_delta(mech, n, exp_epsilon=ee)
        cl = clone_delta(LDP(exp_epsilon0=mech.exp_epsilon0()), n, exp_epsilon=ee)
        lo = same_family_delta(mech, n, exp_epsilon=ee)
        assert lo <= wc <= bv and wc <= cl, (ee, lo, wc, bv, cl)
        # the lower bound is the exact δ of a concrete dataset pair (both directions)
        d1 = max(
            delta_dataset(fr, [0] * (n - 1), 0, 1, exp_epsilon=ee),
            delta_dataset(fr, [0] * (n - 1), 1, 0, exp_epsilon=ee),
        )
        assert lo == d1


def test_subset_d1_and_hadamard_reduce_to_known_cases():
    # subset selection with d = 1 is k-RR: the k-RR engine and families give the same numbers
    for n in (2, 5):
        s, rr = Subset(4, 1, exp_epsilon0=3), KRR(4, exp_epsilon0=3)
        assert s.gamma() == rr.gamma()
        assert blanket_view_delta(s, n, exp_epsilon=fmpq(3, 2)) == delta_blanket_view(rr, n, exp_epsilon=fmpq(3, 2))
        assert same_family_delta(s, n, exp_epsilon=fmpq(3, 2)) == delta_krr_family(
            rr, n, "same", exp_epsilon=fmpq(3, 2)
        )
    # Hadamard response on k = 2 or 3 inputs has K = 4 outputs
    assert Hadamard(2, exp_epsilon0=3).K == Hadamard(3, exp_epsilon0=3).K == 4 and Hadamard(4, exp_epsilon0=3).K == 8


@pytest.mark.parametrize("n,e0", [(1, 3), (2, 3), (5, 2), (7, "5/2"), (9, 4)])
def test_clone_delta_is_the_hockey_stick_of_the_enumerated_clone_pair(n, e0):
    P, Q = clone_pair_law(n, e0)
    assert sum(P.values()) == 1 and sum(Q.values()) == 1
    for ee in (fmpq(1), fmpq(3, 2), fmpq(2)):
        fwd = sum(max(P[o] - ee * Q.get(o, 0), 0) for o in P)
        bwd = sum(max(Q[o] - ee * P.get(o, 0), 0) for o in Q)
        assert fwd == bwd == clone_delta(LDP(exp_epsilon0=e0), n, exp_epsilon=ee)
    # the pair's likelihood ratio (e u + v)/(u + e v) (notes §2c)
    e = fmpq(e0)
    for (u, v), p in P.items():
        assert p == Q[(u, v)] * (e * u + v) / (u + e * v)


def test_clone_bound_is_above_every_small_ldp_randomizer_worst_case():
    # random-looking exact 3x3 matrices with e^{ε0} = 3: the clone bound covers them all
    rows_list = [
        [["1/2", "1/4", "1/4"], ["1/6", "1/2", "1/3"], ["1/4", "1/4", "1/2"]],
        [["3/5", "1/5", "1/5"], ["1/5", "3/5", "1/5"], ["1/5", "1/5", "3/5"]],
        [["3/4", "1/4", "0"], ["1/4", "3/4", "0"], ["1/2", "1/2", "0"]],
    ]
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    for rows in rows_list:
        fr = FiniteRandomizer(rows)
        e0 = fr.exp_epsilon0()
        for n in (2, 4):
            for ee in (fmpq(1), fmpq(3, 2)):
                assert worst_case(fr, n, exp_epsilon=ee).value <= clone_delta(LDP(exp_epsilon0=e0), n, exp_epsilon=ee)


def test_ball_mode_encloses_the_exact_value():
    with precision(96):
        for mech in (OUE(4, exp_epsilon0=3), Hadamard(5, exp_epsilon0=2), Subset(5, 2, exp_epsilon0=3)):
            for n in (6, 20):
                ex = blanket_view_delta(mech, n, exp_epsilon=fmpq(3, 2))
                b = blanket_view_delta(mech, n, exp_epsilon=fmpq(3, 2), exact_max_n=0)
                assert isinstance(b, arb) and b.contains(ex) and b.rad() < arb("1e-15")
                lo = same_family_delta(mech, n, exp_epsilon=fmpq(3, 2))
                assert lo <= ex
        ex = clone_delta(LDP(exp_epsilon0=3), 30, exp_epsilon=fmpq(3, 2))
        b = clone_delta(LDP(exp_epsilon0=3), 30, exp_epsilon=fmpq(3, 2), exact_max_n=0)
        assert b.contains(ex)


def test_decimal_epsilon0_gives_balls_that_contain_the_rational_neighbours():
    # e^{ε0} for ε0 = ln 3 is not a decimal; instead bracket: ε0 = 1 lies between ln(2.71) and ln(2.72)
    with precision(96):
        m = OUE(3, epsilon0=1)
        g = m.gamma()
        lo, hi = OUE(3, exp_epsilon0="2.71").gamma(), OUE(3, exp_epsilon0="2.72").gamma()
        assert min(lo, hi) < g < max(lo, hi)
        s = SUE(3, epsilon0=1)
        assert abs(s.exp_epsilon0() - arb(1).exp()) < arb("1e-25")
        v = blanket_view_delta(Hadamard(3, epsilon0=1), 10, epsilon="0.5")
        assert isinstance(v, arb) and v > 0


def test_geometric_gamma_closed_form_and_l_law():
    for m in range(2, 9):
        for a in ("1/2", "1/3", "4/5"):
            g = Geometric(m, alpha=a)
            fr = g.matrix()
            assert g.gamma() == fr.gamma(), (m, a)
            assert g.exp_epsilon0() == fr.exp_epsilon0()
            for x, x2 in ((0, m - 1), (m - 1, 0), (0, 1)):
                assert sorted(g.l_law(x, x2, exp_epsilon=fmpq(3, 2))) == sorted(
                    (v, p) for v, p in amplification_law(fr, x, x2, exp_epsilon=fmpq(3, 2))
                )


def test_geometric_blanket_view_above_worst_case():
    for m, a in ((3, "1/2"), (4, "2/3")):
        g = Geometric(m, alpha=a)
        fr = g.matrix()
        for n in (2, 3):
            for ee in (fmpq(1), fmpq(3, 2)):
                wc = worst_case(fr, n, exp_epsilon=ee).value
                assert wc <= blanket_view_delta_enumerate(g, n, exp_epsilon=ee)
                assert wc <= clone_delta(LDP(exp_epsilon0=g.exp_epsilon0()), n, exp_epsilon=ee)


def test_bad_input_is_refused_with_a_named_argument():
    with pytest.raises(InvalidArgument, match="epsilon0"):
        OUE(3)
    with pytest.raises(InvalidArgument, match="d must be"):
        Subset(4, 4, exp_epsilon0=2)
    with pytest.raises(InvalidArgument, match="constant"):
        OLH(3, 2, exp_epsilon0=2, collision="1/4", constant="1/2")
    with pytest.raises(InvalidArgument, match="output space"):
        OUE(13, exp_epsilon0=2).matrix()
    with pytest.raises(InvalidArgument, match="epsilon0"):
        LDP(epsilon0="-1")
    with pytest.raises(InvalidArgument, match="float|exact"):
        OUE(3, epsilon0=0.5)
    assert blanket_view_delta(OUE(3, exp_epsilon0=2), 5, exp_epsilon=2) == 0


@pytest.mark.parametrize("mech", [m for m in _mechs() if m.matrix().k_out <= 8], ids=lambda m: m.kind)
def test_merged_blanket_view_is_a_fast_upper_bound_on_the_exact_one(mech):
    for n in (2, 5, 12):
        for ee in (fmpq(1), fmpq(3, 2)):
            ex = blanket_view_delta(mech, n, exp_epsilon=ee)
            mg = blanket_view_delta_merged(mech, n, exp_epsilon=ee)
            assert mg >= ex
            if mech.l_probs()[0] == 0:
                assert mg == ex


def test_best_upper_bound_is_the_smallest_candidate_and_above_the_worst_case():
    mech = Subset(4, 2, exp_epsilon0=3)
    for ee in (fmpq(1), fmpq(3, 2)):
        v, name, cands = best_upper_delta(mech, 4, exp_epsilon=ee)
        assert v == min(cands.values()) and cands[name] == v and len(cands) == 3
        assert worst_case(mech.matrix(), 4, exp_epsilon=ee).value <= v
    v, name, cands = best_upper_delta(LDP(exp_epsilon0=3), 4, exp_epsilon=fmpq(3, 2))
    assert list(cands) == ["clone pair (FOCS 2021)"]


def test_epsilon_upper_is_certified_one_sided():
    with precision(96):
        mech = OUE(8, epsilon0=2)
        br = epsilon_upper(lambda e: blanket_view_delta_merged(mech, 500, epsilon=e), "1e-3", hi=2)
        assert blanket_view_delta_merged(mech, 500, epsilon=br.upper) <= fmpq(1, 1000)
        assert blanket_view_delta_merged(mech, 500, epsilon=br.lower) > fmpq(1, 1000)


def test_ldp_lower_bound_is_binary_rr_on_a_concrete_dataset():
    for n in (2, 6):
        for ee in (fmpq(1), fmpq(3, 2)):
            lo = same_family_delta(LDP(exp_epsilon0=3), n, exp_epsilon=ee)
            assert lo == delta_krr_family(KRR(2, exp_epsilon0=3), n, "same", exp_epsilon=ee)
            assert (
                lo
                <= worst_case(KRR(2, exp_epsilon0=3), n, exp_epsilon=ee).value
                <= clone_delta(LDP(exp_epsilon0=3), n, exp_epsilon=ee)
            )


def test_make_mechanism_from_plain_data():
    from blanket.exact.mechanisms.registry import make_mechanism

    assert make_mechanism({"type": "oue", "k": 4, "exp_epsilon0": "3"}) == OUE(4, exp_epsilon0=3)
    assert make_mechanism({"type": "sue", "k": 3, "exp_half_epsilon0": "2"}).exp_epsilon0() == 4
    m = make_mechanism({"type": "olh", "k": 2**20, "g": 4, "epsilon0": "1", "collision": "1/4"})
    assert m.collision == fmpq(1, 4) and m.g == 4
    assert make_mechanism({"type": "ldp", "epsilon0": "2"}).epsilon0 == 2
    assert make_mechanism({"type": "geometric", "m": 3, "alpha": "1/2"}).gamma() == Geometric(3, alpha="1/2").gamma()
    assert make_mechanism({"type": "hadamard", "k": 9, "exp_epsilon0": "2"}).K == 16
    with pytest.raises(InvalidArgument, match="mechanism type"):
        make_mechanism({"type": "rappor2"})
    with pytest.raises(InvalidArgument, match="mechanism key d"):
        make_mechanism({"type": "subset", "k": 4, "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="mechanism key g"):
        make_mechanism({"type": "oue", "k": 4, "epsilon0": "1", "g": 2})
    with pytest.raises(InvalidArgument, match="p"):
        from blanket.exact.mechanisms.oracles import UnaryEncoding

        UnaryEncoding(k=3, p=fmpq(1, 4), q=fmpq(1, 2))


# ---------------------------------------------------------------- the published variation-ratio bound, judged
def _vr_krr(k, e, n, ee):
    from blanket.exact.shuffled.oracles import variation_ratio_delta

    e = fmpq(e)
    return variation_ratio_delta(n, e, (e - 1) / (e + k - 1), exp_epsilon=ee)


def test_variation_ratio_pair_identities():
    from blanket.exact.shuffled.krr import delta_krr_third_lumped
    from blanket.exact.shuffled.oracles import variation_ratio_delta

    for e, n, ee in ((3, 4, fmpq(3, 2)), (fmpq(5, 2), 7, fmpq(1)), (4, 3, fmpq(2))):
        e = fmpq(e)
        # generic β: the stronger clone pair = the binary-RR blanket view (notes §2a)
        assert variation_ratio_delta(n, e, (e - 1) / (e + 1), exp_epsilon=ee) == delta_blanket_view(
            KRR(2, exp_epsilon0=e), n, exp_epsilon=ee
        )
        # k-RR parameters: the lumped (x, x', rest) third-value view
        for k in (3, 4, 6):
            assert _vr_krr(k, e, n, ee) == delta_krr_third_lumped(KRR(k, exp_epsilon0=e), n, exp_epsilon=ee)


def test_variation_ratio_bound_for_krr_is_below_the_exact_worst_case_for_k_at_least_4():
    # Wang et al. VLDB 2024, README parameters for "general RR on d options": p = q = e^{ε0}, β = (e−1)/(e+d−1).
    # Exact rationals: the pair's δ is strictly below the exact worst case over all datasets → the bound is false here.
    for k, e, n, ee in ((5, fmpq(5, 2), 4, fmpq(3, 2)), (4, fmpq(3), 5, fmpq(3, 2)), (6, fmpq(4), 5, fmpq(2))):
        vr = _vr_krr(k, e, n, ee)
        wc = worst_case(KRR(k, exp_epsilon0=e), n, exp_epsilon=ee)
        assert vr < wc.value, (k, vr, wc.value)
        assert (
            wc.x != wc.x2 and len(set(wc.others)) == 1 and wc.others[0] not in (wc.x, wc.x2)
        )  # others on a third value
    # k = 3: no gap at these points (the lumped view is exact for k = 3)
    assert _vr_krr(3, 3, 5, fmpq(3, 2)) == worst_case(KRR(3, exp_epsilon0=3), 5, exp_epsilon=fmpq(3, 2)).value


def test_variation_ratio_bound_for_hadamard_and_subset_is_below_the_worst_case_at_small_n():
    # README parameters: Hadamard (K, s) with s = K/2: β = s(e−1)/2/(se+K−s); k-subset on d options:
    # β = (e−1)(C(d−1,k−1) − C(d−2,k−2))/(e·C(d−1,k−1) + C(d−1,k)) (their d = our k, their k = our d).
    from blanket.exact.shuffled.oracles import variation_ratio_delta

    e, ee, n = fmpq(3), fmpq(2), 3
    hr = Hadamard(3, exp_epsilon0=3)
    K = hr.K
    s = K // 2
    beta_hr = (s * (e - 1) / 2) / (s * e + K - s)
    assert beta_hr == (e - 1) / (2 * (e + 1))  # the TV distance of our Hadamard response (|C_x Δ C_x'| = K/2)
    assert variation_ratio_delta(n, e, beta_hr, exp_epsilon=ee) < worst_case(hr.matrix(), n, exp_epsilon=ee).value
    sub = Subset(4, 2, exp_epsilon0=3)
    beta_sub = (e - 1) * (math.comb(3, 1) - math.comb(2, 0)) / (e * math.comb(3, 1) + math.comb(3, 2))
    assert variation_ratio_delta(n, e, beta_sub, exp_epsilon=ee) < worst_case(sub.matrix(), n, exp_epsilon=ee).value
