"""Binary RR's summed-count lower pair (exact/accounting/summed_lower.py; docs/composition.md §5h).

Cross-checks against exact rational composition: the T-fold product of the dataset c = 0's exact count laws,
enumerated outcome by outcome (independent of the module: no windows, no thresholds, no float search)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import summed_lower as sl
from blanket.exact.accounting.accountant import LOWER_NAMES, ShuffleAccountant, ShuffledRR
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from flint import arb, fmpq


def _count_laws(n: int, p, f) -> tuple:
    """Exact (or ball) laws of the count of ones on the dataset c = 0: Bin(n − 1, f) + Bern(p) vs + Bern(f)."""
    from math import comb

    base = [comb(n - 1, k) * f**k * (1 - f) ** (n - 1 - k) for k in range(n)] + [0 * f]
    P = [base[k] * (1 - p) + (base[k - 1] * p if k else 0 * f) for k in range(n + 1)]
    Q = [base[k] * (1 - f) + (base[k - 1] * f if k else 0 * f) for k in range(n + 1)]
    return P, Q


def _product(P: list, Q: list, T: int) -> tuple:
    """The T-fold product laws, one atom per outcome tuple (brute force)."""
    out_p, out_q = [], []
    for ks in itertools.product(range(len(P)), repeat=T):
        a, b = 1, 1
        for k in ks:
            a, b = a * P[k], b * Q[k]
        out_p.append(a)
        out_q.append(b)
    return out_p, out_q


def _hockey(P: list, Q: list, alpha) -> object:
    """``Σ (P − αQ)_+``: exact for rationals; for balls, the sum of the terms that may be positive, each clipped at 0
    from below (an enclosure's upper end is an upper end of H)."""
    tot = 0
    for a, b in zip(P, Q):
        t = a - alpha * b
        if isinstance(t, arb):
            if t > 0:
                tot += t
            elif not (t < 0):  # straddles 0: [0, upper end]
                tot += arb(0).union(t)
        elif t > 0:
            tot += t
    return tot


def _upper_end(x) -> Fraction:
    if isinstance(x, arb):
        return Fraction(arith.endpoints(x)[1])
    return Fraction(int(fmpq(x).p), int(fmpq(x).q)) if not isinstance(x, int) else Fraction(x)


@pytest.mark.parametrize("n,T", [(3, 2), (3, 3), (4, 2)])
def test_summed_delta_below_exact_composition(n, T):
    """e^{ε0} = 3 (exact rationals): the certified lower δ of both orders lies below the exact T-fold δ of the dataset
    c = 0 in that order, and within 1e-25 of the exact δ of the summed statistic itself (the threshold search finds
    the optimum)."""
    mech = KRR(2, exp_epsilon0=3)
    p, f = fmpq(3, 4), fmpq(1, 4)
    P1, Q1 = _count_laws(n, p, f)
    Pt, Qt = _product(P1, Q1, T)
    fwd, bwd = sl.summed_pairs(mech, T * (n - 1), T)
    for eps in (fmpq(0), fmpq(1, 3), fmpq(1), fmpq(2)):
        with arith.precision(200):
            alpha = arith.ball(eps).exp()
            full_f = _hockey(Pt, Qt, alpha)
            full_b = _hockey(Qt, Pt, alpha)
        lf, lb = sl.lower_delta(fwd, eps), sl.lower_delta(bwd, eps)
        assert lf <= _upper_end(full_f) and lb <= _upper_end(full_b)
        # the summed statistic's own exact H (sum the products by the total count)
        for pair, low, (A, B) in ((fwd, lf, (Pt, Qt)), (bwd, lb, (Qt, Pt))):
            sums_a: dict = {}
            sums_b: dict = {}
            for ks, a, b in zip(itertools.product(range(n + 1), repeat=T), A, B):
                s = sum(ks)
                sums_a[s] = sums_a.get(s, 0) + a
                sums_b[s] = sums_b.get(s, 0) + b
            with arith.precision(200):
                h = _hockey(list(sums_a.values()), [sums_b[k] for k in sums_a], arith.ball(eps).exp())
            hs = _upper_end(h)
            assert low <= hs
            assert hs - low < Fraction(1, 10**25), (pair.description, eps, float(hs), float(low))


def test_one_round_is_the_dataset_pair():
    """T = 1: the summed pair is the dataset c = 0 itself; its certified lower δ is within 1e-25 of the exact δ."""
    from blanket.exact.shuffled.binary_dataset import delta_binary

    mech = KRR(2, exp_epsilon0=3)
    n = 7
    fwd, bwd = sl.summed_pairs(mech, n - 1, 1)
    for eps in (fmpq(1, 5), fmpq(1, 2)):
        with arith.precision(200):
            ex = delta_binary(mech, n, 0, direction="max", epsilon=eps)
        hi = Fraction(arith.endpoints(ex)[1])
        low = max(sl.lower_delta(fwd, eps), sl.lower_delta(bwd, eps))
        assert low <= hi and hi - low < Fraction(1, 10**25)


@pytest.mark.parametrize("n,T", [(3, 2), (3, 3)])
def test_accountant_lower_below_exact_and_upper(n, T):
    """The accountant's lower ends (which now include the summed pair) lie below the exact composed δ of the dataset
    c = 0 (balls: e^{ε0} = e is irrational) and below its certified upper ends; the summed pair's ε is a lower end."""
    ev = ShuffledRR(k=2, epsilon0="1", n=n)
    acc = ShuffleAccountant().compose(ev, count=T)
    with arith.precision(200):
        e = arith.ball(fmpq(1)).exp()
        f = 1 / (e + 1)
        p = e * f
        P1, Q1 = _count_laws(n, p, f)
        Pt, Qt = _product(P1, Q1, T)
    for eps in ("1/2", "3/2"):
        d = acc.get_delta(eps)
        with arith.precision(200):
            a = arith.ball(fmpq(eps)).exp()
            ex = max(_upper_end(_hockey(Pt, Qt, a)), _upper_end(_hockey(Qt, Pt, a)))
        assert d.lower <= ex <= d.upper
    delta = fmpq(1, 10**3)
    r = acc.get_epsilon(delta)
    assert r.lower <= r.upper
    # at the certified lower end the exact composed delta of c = 0 is still >= the target (delta(eps) > target below it)
    with arith.precision(200):
        a = arith.ball(fmpq(r.lower.numerator, r.lower.denominator)).exp()
        ex = max(_upper_end(_hockey(Pt, Qt, a)), _upper_end(_hockey(Qt, Pt, a)))
    assert ex >= Fraction(1, 10**3)
    assert r.details["lower_pair"] in LOWER_NAMES.values()


def test_summed_pair_decides_at_many_rounds():
    """n = 500, T = 100: the summed pair's lower end is above the composed (grid-rounded) dataset pairs' and is the
    one reported; it stays below the certified upper end."""
    ev = ShuffledRR(k=2, epsilon0="1", n=500)
    acc = ShuffleAccountant().compose(ev, count=100)
    r = acc.get_epsilon("1e-6")
    g = acc._lower_grid(acc._cache["auto"])
    pld_lows = [acc._pld(g, k).get_epsilon(fmpq(1, 10**6)) for k in ("low-fwd", "low-bwd")]
    assert r.details["lower_pair"] == LOWER_NAMES["low-sum"]
    assert all(Fraction(int(v.p), int(v.q)) < r.lower for v in pld_lows)
    assert r.lower < r.upper


def test_summed_pairs_refuse_other_mechanisms():
    from blanket.exact.numbers.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="binary"):
        sl.summed_pairs(KRR(3, exp_epsilon0=3), 10, 2)
    with pytest.raises(InvalidArgument, match="rounds"):
        sl.summed_pairs(KRR(2, exp_epsilon0=3), 10, 0)


def _sampled_round(n: int, q, p, f, target_one: bool) -> dict:
    """Exact law of (number of 1 reports, number of 0 reports) of one sampled round on c = 0 (brute force)."""
    slots = [(q * f, q * (1 - f), 1 - q)] * (n - 1)  # others hold 0: report 1 w.p. f
    slots.append((q * p, q * (1 - p), 1 - q) if target_one else (q * f, q * (1 - f), 1 - q))
    law: dict = {}
    for outs in itertools.product(range(3), repeat=n):
        w = fmpq(1)
        for s, o in zip(slots, outs):
            w *= s[o]
        key = (outs.count(0), outs.count(1))
        law[key] = law.get(key, fmpq(0)) + w
    return law


def _check_sampled_bracket(acc, sums: list, T: int) -> None:
    """At ε = 1/4, 3/4: the summed pairs' lower δ ≤ the accountant's lower end ≤ the exact T-fold δ (both orders,
    brute force over the counts of 1s and 0s of the sampled round, e^{ε0} = 3, n = 3, q = 1/2, dataset c = 0) ≤ its
    upper end."""
    p, f = fmpq(3, 4), fmpq(1, 4)
    P1, Q1 = _sampled_round(3, fmpq(1, 2), p, f, True), _sampled_round(3, fmpq(1, 2), p, f, False)
    keys = sorted(P1)
    Pt, Qt = _product([P1[k] for k in keys], [Q1[k] for k in keys], T)
    for eps in (fmpq(1, 4), fmpq(3, 4)):
        d = acc.get_delta(eps)
        with arith.precision(200):
            a = arith.ball(eps).exp()
            ex = max(_upper_end(_hockey(Pt, Qt, a)), _upper_end(_hockey(Qt, Pt, a)))
        low_sum = max(sl.lower_delta(sp, eps) for sp in sums)
        assert 0 < low_sum <= d.lower <= ex <= d.upper


@pytest.mark.parametrize("T", [2, 3])
def test_sampled_summed_pair_below_exact_composition(T):
    """Poisson participation q = 1/2 (sampled.Sampled), e^{ε0} = 3, n = 3: the accountant's lower δ (the summed pair
    of the sampled rounds decides it) lies below the exact T-fold δ of c = 0 with the counts of 1s and 0s seen."""
    from blanket.exact.accounting.sampled import Sampled
    from blanket.exact.mechanisms.finite import BinaryRR

    n, q = 3, fmpq(1, 2)
    from blanket.exact.accounting.accountant import Shuffled

    ev = Sampled(Shuffled(BinaryRR(exp_epsilon0=3), n), q)
    acc = ShuffleAccountant().compose(ev, count=T)
    sums = acc._summed_pairs()
    assert sums is not None and len(sums) == 2
    _check_sampled_bracket(acc, sums, T)


@pytest.mark.parametrize("m,r", [(1, 0.73), (40, 0.27), (10**4, 0.5), (3 * 10**8, 0.27), (5, 0.0), (7, 1.0)])
def test_search_pmf_window_matches_scipy(m, r):
    """The search's NumPy binomial window (log-pmf steps, no scipy import) against scipy.stats.binom.pmf: the same
    window, relative error below 1e-8 where the pmf is not negligible, total mass 1 (it only chooses thresholds)."""
    stats = pytest.importorskip("scipy.stats")
    import numpy as np

    lo, pmf = sl._binom_window(m, r)
    assert abs(pmf.sum() - 1) < 1e-12 and (pmf >= 0).all()
    ref = stats.binom.pmf(np.arange(lo, lo + len(pmf)), m, r)
    big = ref > 1e-200
    assert np.allclose(pmf[big], ref[big], rtol=1e-8, atol=0)
    assert ref.sum() > 1 - 1e-12  # the window holds the mass


def test_search_convolution_matches_direct():
    import numpy as np

    a, b = np.array([0.2, 0.5, 0.3]), np.array([0.6, 0.4])
    assert np.allclose(sl._convolve(a, b), np.convolve(a, b), atol=1e-15)


@pytest.mark.parametrize("T", [2, 3])
def test_sampled_ldp_takes_binary_rr_summed_pair(T):
    """A sampled ``ldp`` round (e^{ε0} = 3, n = 3, q = 1/2) groups as binary RR with the same ε0 (one member of the
    class): its summed pairs are binary RR's, and the accountant's lower δ lies below the exact T-fold δ of binary
    RR's sampled dataset c = 0 (brute force, the counts of 1s and 0s seen), itself below its certified upper end.
    Before this change the ldp round had no summed pair (``_summed_pairs()`` was ``None``)."""
    from blanket.exact.accounting.accountant import Shuffled
    from blanket.exact.accounting.sampled import Sampled
    from blanket.exact.mechanisms.finite import BinaryRR
    from blanket.exact.mechanisms.oracles import LDP

    n, q = 3, fmpq(1, 2)
    acc = ShuffleAccountant().compose(Sampled(Shuffled(LDP(exp_epsilon0=3), n), q), count=T)
    rr = ShuffleAccountant().compose(Sampled(Shuffled(BinaryRR(exp_epsilon0=3), n), q), count=T)
    sums, rr_sums = acc._summed_pairs(), rr._summed_pairs()
    assert sums is not None and len(sums) == 2 and rr_sums is not None
    assert [(s.others, s.rounds, s.q_others, s.pi_p, s.pi_q) for s in sums] == [
        (s.others, s.rounds, s.q_others, s.pi_p, s.pi_q) for s in rr_sums
    ]
    assert acc.statements_used()["summed"]
    _check_sampled_bracket(acc, sums, T)


def test_plain_ldp_takes_binary_rr_summed_pair():
    """An unsampled ``ldp`` round groups as binary RR too (the same member of the class): the summed pairs equal binary
    RR's rounds' at e^{ε0} = 3, n = 4, T = 3."""
    from blanket.exact.accounting.accountant import Shuffled
    from blanket.exact.mechanisms.oracles import LDP

    acc = ShuffleAccountant().compose(Shuffled(LDP(exp_epsilon0=3), 4), count=3)
    from blanket.exact.mechanisms.finite import BinaryRR

    rr = ShuffleAccountant().compose(Shuffled(BinaryRR(exp_epsilon0=3), 4), count=3)
    a, b = acc._summed_pairs(), rr._summed_pairs()
    assert a is not None and b is not None
    eps = fmpq(1, 2)
    assert [sl.lower_delta(s, eps) for s in a] == [sl.lower_delta(s, eps) for s in b]
