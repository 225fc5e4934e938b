"""The sampled full view of unary encoding's third-value dataset, binned (exact.shuffled.oracle_third:
sampled_binned_lower, _binned_lower_core; docs/numerics.md Lemma T4; docs/reference/oracles.md §2 "Sampled rounds:
the full view").

Independent routes: the exact rational value (``_exact_small_sampled``, every M, C, U, A; itself checked against the
round enumerated by participation in tests/test_sampled_full14.py), the looped enclosure of Lemma T1 per (M, C)
(``sampled_full_delta``), and at q = 1 the unsampled enclosure (``third_full_delta``, Lemma T1 per C)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting.accountant import Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.oracles import OUE, SUE
from blanket.exact.numbers import arith
from blanket.exact.shuffled import oracle_third as T
from blanket.exact.shuffled.krr import delta_args
from flint import fmpq

RECS = [OUE(3, exp_epsilon0=3), SUE(3, exp_half_epsilon0=2)]


def _core(rec, n: int, q: fmpq, c: fmpq, bins: int = T.SAMPLED_BINS) -> Fraction:
    v = T._binned_lower_core(n, q, rec.p, rec.q, arith.ball(rec.exp_epsilon0()), arith.ball(c), bins=bins)
    return arith.endpoints(v)[0]


def _exact(rec, n: int, q: fmpq, c: fmpq) -> Fraction:
    v = T._exact_small_sampled(n, rec.p, rec.q, q, rec.exp_epsilon0(), c)
    return Fraction(int(v.p), int(v.q))


@pytest.mark.parametrize("rec", RECS, ids=["oue", "sue"])
@pytest.mark.parametrize(
    "n, q, c", [(5, fmpq(1, 2), fmpq(1)), (6, fmpq(1, 5), fmpq(3, 2)), (7, fmpq(2, 3), fmpq(6, 5))]
)
def test_below_and_close_to_the_exact_value(rec, n, q, c):
    exact = _exact(rec, n, q, c)
    got = _core(rec, n, q, c)
    assert 0 < got <= exact
    assert got >= exact * Fraction(999, 1000)  # 2^17 bins: the loss is about 4h·P(D > 0), h ≈ span/2^17


@pytest.mark.parametrize("rec", RECS, ids=["oue", "sue"])
def test_coarse_bins_stay_below_and_the_unshifted_bins_do_not(rec, monkeypatch):
    """At 64 bins the slack of Lemma T4 matters: the bound stays below the exact value, and a mutant reading each bin
    at its upper value (``_BIN_SLACK = −2``) lies above it, so the comparison can fail."""
    n, q, c = 6, fmpq(1, 2), fmpq(11, 10)
    exact = _exact(rec, n, q, c)
    got = _core(rec, n, q, c, bins=64)
    assert 0 < got <= exact
    monkeypatch.setattr(T, "_BIN_SLACK", -2)
    assert _core(rec, n, q, c, bins=64) > exact


def test_mutant_participation_law_differs(monkeypatch):
    """A mutant giving the users without a z-bit report participation q instead of q(1 − p)/(1 − qp) is not within
    the tolerance of the exact value (the test above can fail on the law of (U, U'))."""
    rec, n, q, c = RECS[0], 7, fmpq(1, 2), fmpq(6, 5)
    exact = _exact(rec, n, q, c)
    real = T._binned_ranges

    def mutant(n_, s, p, qr):
        cw, _, ur, ar = real(n_, s, p, qr)
        return cw, arith.ball(s), ur, ar

    monkeypatch.setattr(T, "_binned_ranges", mutant)
    got = _core(rec, n, q, c)
    assert not (exact * Fraction(999, 1000) <= got <= exact)


@pytest.mark.parametrize("mech", [OUE(128, epsilon0=2), SUE(128, epsilon0=2)], ids=["oue", "sue"])
def test_inside_the_looped_enclosure_at_n_40(mech):
    e = fmpq(3, 10)
    enc = T.sampled_full_delta(mech, 40, fmpq(1, 2), epsilon=e)
    lo, hi = arith.endpoints(enc)
    c = arith.ball(delta_args(mech, 40, {"epsilon": e}, "t")[1])
    got = arith.endpoints(T._binned_lower_core(40, fmpq(1, 2), mech.p, mech.q, arith.ball(mech.exp_epsilon0()), c))[0]
    assert got <= hi
    assert got >= lo * Fraction(995, 1000)


def test_unsampled_case_matches_the_unsampled_enclosure():
    """q = 1 in the binned route is the unsampled full view: below Lemma T1's enclosure (third_full_delta), within
    0.5 % (OUE k = 128, ε0 = 2, n = 100)."""
    mech, e = OUE(128, epsilon0=2), fmpq(1, 2)
    lo, hi = arith.endpoints(T.third_full_delta(mech, 100, epsilon=e))
    c = arith.ball(delta_args(mech, 100, {"epsilon": e}, "t")[1])
    got = arith.endpoints(T._binned_lower_core(100, fmpq(1), mech.p, mech.q, arith.ball(mech.exp_epsilon0()), c))[0]
    assert lo * Fraction(995, 1000) <= got <= hi


def test_sampled_full_lower_hands_over_above_its_guard(monkeypatch):
    """Above SAMPLED_MAX_WORK, sampled_full_lower answers by the binned route (below the exact value, close); above
    both guards it answers None."""
    rec, n, q, c = RECS[1], 6, fmpq(1, 5), fmpq(3, 2)
    exact = _exact(rec, n, q, c)
    monkeypatch.setattr(T, "SAMPLED_MAX_WORK", 0)
    got = T.sampled_full_lower(rec, n, q, exp_epsilon=c, exact_max_n=0)
    assert got is not None and exact * Fraction(999, 1000) <= Fraction(int(got.p), int(got.q)) <= exact
    monkeypatch.setattr(T, "SAMPLED_BINNED_MAX_WORK", 0)
    assert T.sampled_full_lower(rec, n, q, exp_epsilon=c, exact_max_n=0) is None


def test_accountant_offers_the_binned_route_where_the_sorted_one_is_refused():
    big = OUE(128, epsilon0=2)
    for q, route in ((Fraction(1, 10), "sorted"), (Fraction(1, 2), "binned")):
        acc = A.ShuffleAccountant()
        acc.compose(Sampled(Shuffled(big, 1000), q))
        got = acc._sampled_full_work()
        assert got is not None and got[0] == route
    acc = A.ShuffleAccountant()
    acc.compose(Sampled(Shuffled(big, 10**4), Fraction(1, 2)))
    assert acc._sampled_full_work()[0] == "binned"  # type: ignore[index]


def test_registered_check_covers_the_binned_route(monkeypatch):
    """'Sampled full view (unary encoding)' (proofs/composition.py) checks the binned route too: it holds, and fails
    with the bins read at their upper values."""
    from blanket.proofs import composition as comp

    assert comp.sampled_binned_instance("oue", 3, Fraction(1, 2), Fraction(3, 2))
    assert comp.SAMPLED_FULL.check_symbolic().proved is None
    monkeypatch.setattr(T, "_BIN_SLACK", -2)
    assert comp.SAMPLED_FULL.check_symbolic().proved is False


# ---------------------------------------------------------------- the upper end: Lemma 5.3's exact five-atom value of R_q
def test_exact_five_atom_source_of_a_sampled_unary_round():
    """The sampled OUE/SUE round's curve takes Lemma 5.3's exact five-atom value of R_q as a source (within its work
    guard; not for other records), and that value lies between the exhaustive worst case over every dataset (an
    independent brute force, tests/test_probe12.py) and the fast view it replaces."""
    import mpmath as mp
    from blanket.exact.accounting import curve_pairs as CP
    from blanket.exact.accounting.sampled import SampledFourValue
    from blanket.exact.mechanisms.oracles import Hadamard
    from blanket.exact.shuffled import oracles as fast_oracles

    from tests.test_probe12 import _unary, worst_delta

    big = OUE(128, epsilon0=2)
    assert CP._sampled_exact_five(SampledFourValue(big, fmpq(1, 10)), 1000)
    assert not CP._sampled_exact_five(SampledFourValue(big, fmpq(1, 10)), 10**4)  # work 5.5e5: left out
    assert not CP._sampled_exact_five(SampledFourValue(Hadamard(16, epsilon0=2), fmpq(1, 10)), 1000)
    assert not CP._sampled_exact_five(big, 1000)  # unsampled: its one-round routes have it already
    names = [nm for nm, _ in CP.curve_sources(SampledFourValue(big, fmpq(1, 10)), n=1000)]
    assert "blanket view, exact five-atom sum (Lemma 5.3)" in names
    for rec, cases in zip(RECS, (((fmpq(1, 2), fmpq(3, 2)),), ((fmpq(1, 5), fmpq(2)),))):
        p, q0 = (mp.mpf(int(v.p)) / int(v.q) for v in (rec.p, rec.q))
        for qs, c in cases:  # n = 4: about 3 s of brute force each
            sq = mp.mpf(int(qs.p)) / int(qs.q)
            rows = [[sq * v for v in r] + [1 - sq] for r in _unary(3, p, q0)]
            worst = worst_delta(rows, 4, ee=mp.mpf(int(c.p)) / int(c.q))
            srec = SampledFourValue(rec, qs)
            got = arith.endpoints(arith.ball(CP._exact_five(srec, 4, exp_epsilon=c)))
            fast = arith.endpoints(arith.ball(fast_oracles.blanket_view_upper(srec, 4, exp_epsilon=c)))
            assert mp.mpf(got[1].numerator) / got[1].denominator >= worst
            assert got[1] <= fast[1]
