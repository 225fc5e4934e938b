"""Dominating pairs and certified PLDs (exact.accounting.pld) against independent exact routes."""

import pytest
from blanket.exact.accounting import pld
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers.arith import exact, precision
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from blanket.exact.shuffled.enumerate import worst_case
from blanket.exact.shuffled.krr import delta_blanket_view
from flint import arb, fmpq

from tests._helpers import merged_atoms

EES = ["1", "5/4", "3/2", "2"]


@pytest.mark.parametrize("k,e0,n", [(2, 3, 4), (2, 2, 7), (3, 2, 4), (3, 3, 5), (4, 5, 4)])
def test_blanket_view_atoms_equal_lemma_5_3(k, e0, n):
    """The Lemma 5.3 view read as a pair has exactly the hockey-stick of krr.delta_blanket_view (independent engine)."""
    m = KRR(k, exp_epsilon0=e0)
    at = pld.blanket_view_atoms(m, n)
    assert sum(P for _, P, _ in at) == 1 and sum(Q for _, _, Q in at) == 1
    for ee in EES:
        assert pld.hockey_stick(at, ee) == delta_blanket_view(m, n, exp_epsilon=ee)
        # symmetric pair: both directions agree
        assert pld.hockey_stick([(key, Q, P) for key, P, Q in at], ee) == pld.hockey_stick(at, ee)


@pytest.mark.parametrize("k,e0,n", [(2, 3, 4), (2, 2, 7), (2, "5/2", 9), (3, 2, 4), (3, 3, 5), (4, 5, 4)])
def test_dominating_pair_dominates(k, e0, n):
    """k = 2: the structured pair is the blanket view; k >= 3: it dominates it; both dominate the exhaustive worst case."""
    m = KRR(k, exp_epsilon0=e0)
    pr = pld.dominating_pair(m, n)
    at = pr.atoms()
    assert sum(P for _, P, _ in at) == 1 and sum(Q for _, _, Q in at) == 1
    for ee in EES:
        h = pld.hockey_stick(at, ee)
        bv = delta_blanket_view(m, n, exp_epsilon=ee)
        if k == 2:
            assert h == bv
            assert h >= delta_binary_worst(m, n, exp_epsilon=ee).value
        else:
            assert h >= bv
            assert h >= worst_case(m, n, exp_epsilon=ee).value
        low = max(pld.hockey_stick(pld.lower_pair(m, n, d).atoms(), ee) for d in ("forward", "backward"))
        assert low <= worst_case(m, n, exp_epsilon=ee).value
        if k == 2:
            assert low == delta_binary(m, n, 0, exp_epsilon=ee)


def test_dominating_pair_is_not_the_worst_case_for_binary():
    """The blanket view reveals C: strictly above the exact worst case (a test that the comparison can fail)."""
    m = KRR(2, exp_epsilon0=3)
    h = pld.hockey_stick(pld.dominating_pair(m, 6).atoms(), "3/2")
    assert h > delta_binary_worst(m, 6, exp_epsilon="3/2").value


def _exact_delta_T(atoms, T, ee):
    prod = atoms
    for _ in range(T - 1):
        prod = pld.product_atoms(prod, atoms)
    return pld.hockey_stick(prod, ee)


@pytest.mark.parametrize("which", ["dominating", "lower", "lower-backward"])
@pytest.mark.parametrize("k,e0,n", [(2, 3, 5), (3, 2, 4)])
@pytest.mark.parametrize("T", [1, 2, 3])
def test_sandwich_contains_exact_composition(which, k, e0, n, T):
    m = KRR(k, exp_epsilon0=e0)
    pr = (
        pld.dominating_pair(m, n)
        if which == "dominating"
        else pld.lower_pair(m, n, "backward" if which.endswith("backward") else "forward")
    )
    at = merged_atoms(pr.atoms())
    up = pld.discretise(pr, "1/200", "upper").self_compose(T)
    lo = pld.discretise(pr, "1/200", "lower").self_compose(T)
    for eps in ["0", "0.1", "0.3", "0.6"]:
        with precision(128):
            e = fmpq(int(eps.replace(".", "")), 10 ** (len(eps.split(".")[1]) if "." in eps else 0))
            ex = _exact_delta_T(at, T, arb(e).exp() if e != 0 else fmpq(1))
            d_up, d_lo = up.get_delta(e), lo.get_delta(e)
            assert d_lo.lower() <= arb(ex).upper() or (d_lo.upper() <= ex), (eps, d_lo, ex)
            assert bool(d_lo.upper() <= arb(ex).upper() + arb(10) ** -25)
            assert bool(arb(ex).lower() <= d_up.upper()), (eps, ex, d_up)


def test_sandwich_narrows_with_the_grid():
    m = KRR(2, exp_epsilon0=3)
    pr = pld.dominating_pair(m, 30)
    widths = []
    for g in ["1/50", "1/200", "1/800"]:
        up = pld.discretise(pr, g, "upper").self_compose(3)
        lo = pld.discretise(pr, g, "lower").self_compose(3)
        eu, el = up.get_epsilon("1e-3"), lo.get_epsilon("1e-3")
        assert el <= eu
        widths.append(eu - el)
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] < fmpq(3, 800) * 2  # about T·Δ


def test_epsilon_sandwich_brackets_exact_profile():
    """ε from each side, checked against the exact δ of the composed pair at those ε."""
    m = KRR(2, exp_epsilon0=3)
    pr = pld.dominating_pair(m, 12)
    at = merged_atoms(pr.atoms())
    T, target = 2, fmpq(1, 100)
    eu = pld.discretise(pr, "1/400", "upper").self_compose(T).get_epsilon(target)
    el = pld.discretise(pr, "1/400", "lower").self_compose(T).get_epsilon(target)
    with precision(128):
        assert _exact_delta_T(at, T, arb(eu).exp()).upper() <= target  # upper end meets the target
        assert _exact_delta_T(at, T, arb(el).exp()).lower() >= target  # lower end does not (or is the boundary)


def test_T1_agrees_with_single_round():
    m = KRR(2, epsilon0="1")
    pr = pld.dominating_pair(m, 200)
    up, lo = pld.discretise(pr, "1/20000", "upper"), pld.discretise(pr, "1/20000", "lower")
    with precision(128):
        bv = delta_blanket_view(m, 200, epsilon="0.1")
        assert lo.get_delta("0.1").lower() <= bv.upper() and bv.lower() <= up.get_delta("0.1").upper()
        assert (up.get_delta("0.1") - lo.get_delta("0.1")).upper() < bv.upper() * fmpq(1, 100)


def test_heterogeneous_composition_is_order_independent():
    a = pld.discretise(pld.dominating_pair(KRR(2, exp_epsilon0=3), 20), "1/500", "upper")
    b = pld.discretise(pld.dominating_pair(KRR(3, exp_epsilon0=2), 15), "1/500", "upper")
    c = pld.discretise(pld.lower_pair(KRR(2, exp_epsilon0=2), 10), "1/500", "upper")
    ab, ba = a.compose(b).compose(c), c.compose(b).compose(a)
    for eps in ["0", "0.2", "0.5"]:
        x, y = ab.get_delta(eps), ba.get_delta(eps)
        # equal up to the directed integer rescaling (a few units 2^-100 per coefficient)
        assert (x - y).abs_upper() < fmpq(1, 10**20)
    with pytest.raises(InvalidArgument):
        a.compose(pld.discretise(pld.dominating_pair(KRR(2, exp_epsilon0=3), 20), "1/400", "upper"))


def test_survival_bounds_bracket_exact_survival():
    """The float kernel's survival bounds enclose the exact survival function (exact loss values in arb)."""
    m = KRR(2, exp_epsilon0="5/2")
    pr = pld.dominating_pair(m, 40)
    g = fmpq(1, 100)
    sv, js = pld._survival(pr, g, ("upper", "lower"))
    at = pr.atoms()
    with precision(200):
        losses = [((arb(P) / arb(Q)).log(), P) for _, P, Q in at if P != 0]
        for i in range(0, len(js), 7):
            t = arb(int(js[i]) * g)
            gt = sum((P for L, P in losses if L > t), fmpq(0))
            ge = sum((P for L, P in losses if L >= t), fmpq(0))
            assert gt <= exact(float(sv.upper[i]), allow_float=True)
            assert exact(float(sv.lower[i]), allow_float=True) <= ge


def test_bad_input():
    with pytest.raises(InvalidArgument):
        pld.dominating_pair("rr", 10)
    with pytest.raises(InvalidArgument):
        pld.discretise(pld.dominating_pair(KRR(2, epsilon0=1), 10), "0", "upper")
    with pytest.raises(InvalidArgument):
        pld.discretise(pld.dominating_pair(KRR(2, epsilon0=1), 10), "1/10", "middle")


@pytest.mark.parametrize("N,q", [(3000, fmpq(1, 3)), (4000, fmpq(1, 2)), (2000, fmpq(2, 7))])
def test_binomial_window_error_bound(N, q):
    """Float pmf within its a-priori relative bound of the pmf (arb at 300 bits); left-out mass within its bound."""
    w = pld._BinomWindow(N, q, pld._ratio_bounds(q))
    assert w.lo > 0 and w.hi < N  # the window really truncates here
    with precision(300):
        lq, l1q = arb(q).log(), arb(1 - q).log()

        def b(K):
            return (arb(N + 1).lgamma() - arb(K + 1).lgamma() - arb(N - K + 1).lgamma() + K * lq + (N - K) * l1q).exp()

        pm = [b(w.lo + i) for i in range(len(w.pmf))]
        eta = arb(exact(w.eta, allow_float=True))
        for i in range(len(w.pmf)):
            assert bool((arb(exact(float(w.pmf[i]), allow_float=True)) - pm[i]).abs_upper() <= (eta * pm[i]).lower())
        etat = arb(exact(w.eta_tail, allow_float=True))
        for i in (0, len(w.pmf) // 3, len(w.pmf) // 2, len(w.pmf) - 1):
            tb = sum(pm[i:], arb(0))
            assert bool((arb(exact(float(w.tail[i]), allow_float=True)) - tb).abs_upper() <= (etat * tb).lower())
        outside = sum((b(j) for j in range(0, w.lo)), arb(0)) + sum((b(j) for j in range(w.hi + 1, N + 1)), arb(0))
        assert bool(outside.upper() <= w.out)


def test_pascal_tails_agree_with_direct_windows():
    """Two float routes for the clone survival function (Pascal updates vs a fresh window per C) bracket each other."""
    import numpy as np

    pr = pld.dominating_pair(KRR(2, epsilon0="1"), 20000)
    g = fmpq(1, 2000)
    a, js = pld._survival(pr, g, ("upper", "lower"), pascal=True)
    b, _ = pld._survival(pr, g, ("upper", "lower"), pascal=False)
    # same quantities (P(L > t) upper, P(L >= t) lower) from the two routes
    assert np.max(np.abs(a.upper - b.upper)) < 1e-9 and np.max(np.abs(a.lower - b.lower)) < 1e-9
    # P(L >= t) >= P(L > t): a lower bound of the first may not exceed an upper bound of the second by more than
    # the mass of the atoms at t, which is 0 except at t = 0 (a = b); elsewhere the two ends are within 1e-9
    off = js != 0
    assert np.max(np.abs(a.upper - a.lower)[off]) < 1e-9 and np.max(a.upper) > 0.99


@pytest.mark.parametrize("k,e0,n", [(2, 3, 6), (3, 2, 5)])
def test_renyi_moments_bound_the_exact_pair(k, e0, n):
    """The Rényi route's single-round log-moments are upper bounds on the exact ones of the pair (exact atoms)."""
    pr = pld.dominating_pair(KRR(k, exp_epsilon0=e0), n)
    at = [a for a in pr.atoms() if a[1] != 0]
    up = pld.discretise(pr, "1/2000", "upper")
    with precision(128):
        lm = pld.renyi_log_moments(up, pr.max_loss)
        for a, got in zip(pld.RENYI_ORDERS, lm):
            if a > 200:
                break
            ex = sum((arb(P) ** a) * (arb(Q) ** (1 - a)) for _, P, Q in at).log()
            assert got.upper() >= ex.lower()
            # and not absurdly loose: the grid rounding costs at most (α−1)Δ
            assert got.lower() <= ex.upper() + (a - 1) * fmpq(1, 2000) + fmpq(1, 10**20)
    with pytest.raises(InvalidArgument):
        pld.renyi_log_moments(pld.discretise(pr, "1/2000", "lower"), pr.max_loss)


@pytest.mark.parametrize("T", [1, 2])
def test_rdp_conversion_is_valid_on_exact_products(T):
    """ε from the Rényi route at δ: the exact composed δ of the pair at that ε is ≤ δ (exact products, ball exp)."""
    pr = pld.dominating_pair(KRR(2, exp_epsilon0=3), 5)
    up = pld.discretise(pr, "1/1000", "upper")
    at = merged_atoms(pr.atoms())
    with precision(128):
        lm = [T * x for x in pld.renyi_log_moments(up, pr.max_loss)]
        for dt in ("1e-2", "1e-4"):
            eps, order = pld.rdp_epsilon(lm, pld.RENYI_ORDERS, dt)
            ex = _exact_delta_T(at, T, arb(eps).exp())
            assert arb(ex).upper() <= exact(dt)
            # the delta form at that ε agrees (same conversion, inverted)
            d, _ = pld.rdp_delta(lm, pld.RENYI_ORDERS, eps)
            assert d <= exact(dt) * fmpq(1001, 1000)
            # the PLD route is tighter here (a check that the comparison can go either way is in test_accountant)
            assert up.self_compose(T).get_epsilon(dt) <= eps


@pytest.mark.parametrize("side", ["upper", "lower"])
@pytest.mark.parametrize("T", [2, 3, 5])
def test_integer_convolution_against_ball_convolution(side, T):
    """The integer route (floor rescaling, units to +∞) brackets the ball-exact arb_poly power of the same masses."""
    from flint import arb_poly

    pr = pld.dominating_pair(KRR(2, exp_epsilon0=3), 40)
    base = pld.discretise(pr, "1/512", side)
    comp = base.self_compose(T)
    with precision(256):
        ref = arb_poly(base.coeffs) ** T
        inf = 1 - (1 - base.inf) ** T  # mass at +inf of the T-fold product (exact total mass 1 on the upper side)
        for eps in ["0", "0.3", "0.9"]:
            e = exact(eps)
            cs = ref.coeffs()
            want = sum(
                (
                    c * (1 - (arb(e) - (base.offset * T + i) * arb(fmpq(1, 512))).exp())
                    for i, c in enumerate(cs)
                    if (base.offset * T + i) * fmpq(1, 512) > e
                ),
                arb(0),
            )
            if side == "upper":
                want = want + inf
            got = comp.get_delta(eps)
            slack = fmpq(1, 10**20)
            if side == "upper":
                assert got.upper() >= want.lower() and got.lower() <= want.upper() + slack
            else:
                assert got.lower() <= want.upper() and got.upper() >= want.lower() - slack


@pytest.mark.parametrize("k,e0,n,tau", [(4, 2, 8, 0.9), (5, 3, 10, 0.5), (6, 2, 30, 0.01)])
def test_garbled_blanket_view_dominates_lemma_5_3_exactly(k, e0, n, tau):
    """Exact atoms (a large replaced-cell bound τ so that small n qualify): H ≥ the Lemma 5.3 engine's δ."""
    m = KRR(k, exp_epsilon0=e0)
    g = pld.garbled_blanket_view(m, n, tau=tau)
    assert g is not None and g.kind == "blanket-view-garbled"
    at = g.atoms()
    for ee in EES:
        assert pld.hockey_stick(at, ee) >= delta_blanket_view(m, n, exp_epsilon=ee)
    # the survival kernel with the outer mixture and the replaced-cell mass: its pessimistic δ is above the
    # Lemma 5.3 value (the atoms above over-count the replaced cells, a super-probability, so they are no reference
    # for the PLD, whose survival is clipped at 1 as the true pair's is); its optimistic δ is below the atoms'
    up, lo = pld.discretise_both(g, "1/1000")
    with precision(128):
        for eps in ["0", "1/10", "3/10"]:
            bv = arb(delta_blanket_view(m, n, epsilon=exact(eps)))
            assert bool(up.get_delta(eps).upper() >= bv.lower())
            ex = arb(pld.hockey_stick(at, arb(exact(eps)).exp()))
            assert bool(lo.get_delta(eps).lower() <= ex.upper())


@pytest.mark.parametrize("k,n", [(10, 2000), (4, 5000)])
def test_garbled_blanket_view_at_moderate_n(k, n):
    """The pair the accountant uses for k >= 3 at large n: its pessimistic δ is >= the exact Lemma 5.3 value
    (independent engine), its optimistic δ <= its pessimistic δ, and it is tighter than the split view."""
    m = KRR(k, fmpq(1))
    g = pld.dominating_pair(m, n)
    assert g.kind == "blanket-view-garbled" and g.outer_mix[3] < fmpq(1, 10**19)
    up, lo = pld.discretise_both(g, "1/8192")
    sp = pld.discretise(pld.split_blanket_view(m, n), "1/8192", "upper")
    for eps in ["1/50", "1/20"]:
        with precision(128):
            bv = delta_blanket_view(m, n, epsilon=exact(eps))
            assert bool(up.get_delta(eps).upper() >= arb(bv).lower())
            assert bool(lo.get_delta(eps).lower() <= up.get_delta(eps).upper())
            assert bool(up.get_delta(eps).upper() < sp.get_delta(eps).lower())


@pytest.mark.parametrize("k,e0,n", [(3, 2, 5), (3, 3, 6), (4, 5, 5), (5, 3, 7)])
def test_lumped_lower_pair_is_a_lower_bound(k, e0, n):
    """The lumped third-family view is a post-processing of that dataset pair: δ ≤ the family's exact δ ≤ worst case."""
    from blanket.exact.shuffled.krr import delta_krr_family

    m = KRR(k, exp_epsilon0=e0)
    lp = pld.lumped_lower_pair(m, n)
    at = lp.atoms()
    assert sum(P for _, P, _ in at) <= 1
    for ee in EES:
        h = pld.hockey_stick(at, ee)
        assert h <= delta_krr_family(m, n, "third", exp_epsilon=ee)
        assert h <= worst_case(m, n, exp_epsilon=ee).value
    # the optimistic PLD of the pair (outer mixture, dropped range) stays below its exact δ
    lo = pld.discretise(lp, "1/1000", "lower")
    with precision(128):
        for eps in ["0", "1/10", "3/10"]:
            ex = pld.hockey_stick(at, arb(exact(eps)).exp())
            assert bool(lo.get_delta(eps).lower() <= arb(ex).upper())
            assert bool(lo.get_delta(eps).upper() >= arb(ex).lower() - fmpq(1, 20))
    with pytest.raises(InvalidArgument):
        pld.lumped_lower_pair(KRR(2, exp_epsilon0=3), 5)


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_zero_run_cut_gives_the_same_composed_pld(side, monkeypatch):
    """PLD._truncate's shortcut (truncation/4 below one unit: the cuts are the runs of zero masses) against the
    float-sum cut it replaces: the same exact masses, offset and mass at +inf after a 37-fold self-composition of a
    blanket-view pair and of a lower pair, and after a larger truncation (where the shortcut does not apply) a
    PLD that differs (the check can fail)."""
    mech = KRR(2, fmpq(1))
    for pair in (pld.dominating_pair(mech, 500), pld.lower_pair(mech, 500)):
        base = pld.discretise(pair, "1/256", side)
        fast = base.self_compose(37)
        monkeypatch.setattr(pld, "ZERO_RUN_CUT", False)
        slow = pld.discretise(pair, "1/256", side).self_compose(37)
        monkeypatch.setattr(pld, "ZERO_RUN_CUT", True)
        assert (fast.offset, fast.inf_int, fast.ints) == (slow.offset, slow.inf_int, slow.ints)
        assert fast.get_epsilon("1e-6") == slow.get_epsilon("1e-6")
    coarse = pld.discretise(pld.lower_pair(mech, 500), "1/256", side, truncation=fmpq(1, 10**6)).self_compose(37)
    assert len(coarse) < len(fast)
