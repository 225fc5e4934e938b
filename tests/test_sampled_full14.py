"""One sampled round of unary encoding, the full view of the third-value dataset (exact.shuffled.oracle_third:
sampled_full_delta, sampled_full_lower; docs/reference/oracles.md §2 "Sampled rounds: the full view", Lemma T3 of
docs/numerics.md).

Independent route: the sampled round on ``x z^{n−1}`` vs ``x' z^{n−1}`` enumerated by participation in exact rationals
(``proofs.composition._participation_law``: each user absent w.p. ``1 − q``, else one report of the record's explicit
matrix), its hockey-stick divergence summed over every released histogram, both directions."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
import sympy as sp
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting.accountant import Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.oracles import OUE, SUE, UnaryEncoding
from blanket.exact.numbers import arith
from blanket.exact.shuffled import oracle_third as T
from blanket.proofs import composition as comp
from flint import fmpq

R = sp.Rational
RECS = [OUE(3, exp_epsilon0=3), SUE(3, exp_half_epsilon0=2)]


def _fr(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _brute(rec, n: int, q, c, forward: bool = True) -> Fraction:
    """δ of the sampled round on x z^(n−1) vs x' z^(n−1) (x = 0, x' = 1, z = 2), every released histogram."""
    m = [[R(int(v.p), int(v.q)) for v in row] for row in rec.rows()]
    t, t2 = (0, 1) if forward else (1, 0)
    lp = comp._participation_law(m, [t] + [2] * (n - 1), R(q.numerator, q.denominator))
    lq = comp._participation_law(m, [t2] + [2] * (n - 1), R(q.numerator, q.denominator))
    cc = R(c.numerator, c.denominator)
    tot = sum((max(lp.get(h, 0) - cc * lq.get(h, 0), 0) for h in set(lp) | set(lq)), R(0))
    return Fraction(int(tot.p), int(tot.q))


def _formula(rec, n: int, q, c, *, shift: bool = True, weight_q: bool = False) -> Fraction:
    """The formula of §2 written out directly (sum over M, then every (a, b, z)-bit count of the M reports):
    δ = Σ_M Bin(n, q)(M) (1/n) E_{z^M}[(X − cX' − (c − 1)(n − M))_+].  Mutants: ``shift=False`` drops the
    ``(c − 1)(n − M)`` of the absent users; ``weight_q`` replaces the target's chance ``M/n`` of taking part by ``q``
    (then the ratio is ``qX/M + 1 − q``)."""
    p, qq, e = _fr(rec.p), _fr(rec.q), _fr(rec.exp_epsilon0())
    cells = [(a, b, z) for a in (0, 1) for b in (0, 1) for z in (0, 1)]
    pr = [(qq if a else 1 - qq) * (qq if b else 1 - qq) * (p if z else 1 - p) for a, b, z in cells]
    rat = [(e ** (a - z), e ** (b - z)) for a, b, z in cells]
    total = Fraction(0)
    for M in range(1, n + 1):
        wM = comb(n, M) * q**M * (1 - q) ** (n - M)

        def rec_(i, left, prob, x, xp):
            if i == len(cells) - 1:
                prob *= pr[i] ** left
                x, xp = x + left * rat[i][0], xp + left * rat[i][1]
                if weight_q:
                    v = (q * x / M + 1 - q) - c * (q * xp / M + 1 - q)
                else:
                    v = (x - c * xp - ((c - 1) * (n - M) if shift else 0)) / n
                return prob * v if v > 0 else Fraction(0)
            return sum(
                rec_(i + 1, left - k, prob * comb(left, k) * pr[i] ** k, x + k * rat[i][0], xp + k * rat[i][1])
                for k in range(left + 1)
            )

        total += wM * rec_(0, M, Fraction(1), Fraction(0), Fraction(0))
    return total


@pytest.mark.parametrize("rec", RECS, ids=["oue", "sue"])
@pytest.mark.parametrize("n,q", [(3, Fraction(1, 2)), (3, Fraction(1, 5)), (4, Fraction(2, 3))])
@pytest.mark.parametrize("c", [Fraction(1), Fraction(3, 2), Fraction(3)])
def test_formula_and_code_equal_the_enumerated_round(rec, n, q, c):
    exact = _brute(rec, n, q, c)
    assert _brute(rec, n, q, c, forward=False) == exact  # both directions agree (a, b exchangeable)
    assert _formula(rec, n, q, c) == exact
    cq, qf = fmpq(c.numerator, c.denominator), fmpq(q.numerator, q.denominator)
    assert _fr(T.sampled_full_delta(rec, n, qf, exp_epsilon=cq)) == exact  # the code's exact route
    assert _fr(T.sampled_full_lower(rec, n, qf, exp_epsilon=cq)) == exact


@pytest.mark.parametrize("rec", RECS, ids=["oue", "sue"])
def test_mutants_differ_from_the_enumerated_round(rec):
    n, q, c = 3, Fraction(1, 2), Fraction(3, 2)
    exact = _brute(rec, n, q, c)
    assert _formula(rec, n, q, c, shift=False) != exact  # no shift: larger (the absent users' 1s left out)
    assert _formula(rec, n, q, c, weight_q=True) != exact  # m/n replaced by q
    # the unsampled full view at n users is not the sampled round's δ either
    assert _fr(T.third_full_delta(rec, n, exp_epsilon=fmpq(3, 2))) != exact


@pytest.mark.parametrize("rec", RECS, ids=["oue", "sue"])
@pytest.mark.parametrize("n,q", [(4, Fraction(1, 2)), (5, Fraction(1, 5))])
@pytest.mark.parametrize("c", [Fraction(1), Fraction(5, 4), Fraction(2)])
def test_float_routes_enclose_the_exact_value(rec, n, q, c):
    cq, qf = fmpq(c.numerator, c.denominator), fmpq(q.numerator, q.denominator)
    exact = _fr(T.sampled_full_delta(rec, n, qf, exp_epsilon=cq))
    assert exact == _formula(rec, n, q, c)
    v = T.sampled_full_delta(rec, n, qf, exp_epsilon=cq, exact_max_n=0)  # Lemma T1 per (M, C), balls outside
    lo, hi = arith.endpoints(v)
    assert lo <= exact <= hi
    assert hi - lo <= exact * Fraction(1, 10**6)  # tight, not merely valid
    low = _fr(T.sampled_full_lower(rec, n, qf, exp_epsilon=cq, exact_max_n=0))  # Lemma T3, batched
    assert low <= exact
    assert low >= exact * (1 - Fraction(1, 10**6))


def test_batched_lower_agrees_with_the_enclosure_at_moderate_n():
    # n = 40, q = 1/4: windows cut (2^-40 vs 2^-64); the batched lower end sits in the looped enclosure's ball
    rec = OUE(16, epsilon0=2)
    for eps in (fmpq(1, 10), fmpq(3, 10)):
        v = T.sampled_full_delta(rec, 40, fmpq(1, 4), epsilon=eps)
        lo, hi = arith.endpoints(v)
        low = _fr(T.sampled_full_lower(rec, 40, fmpq(1, 4), epsilon=eps))
        assert low <= hi
        assert low >= lo * (1 - Fraction(1, 10**6))
        assert lo > 0


def test_suffix_sums_rows_is_suffix_sums_row_by_row():
    rng = np.random.default_rng(5)
    for W in (1, 7, 100, 1001):
        v = rng.random((3, W)) * 2.0 ** rng.integers(-60, 0, size=(3, W))
        G, r = laws.suffix_sums_rows(v, 1e-12)
        for i in range(3):
            g, r1 = laws.suffix_sums(v[i], 1e-12)
            assert np.array_equal(G[i], g) and r == r1


def test_q_one_work_guard_and_other_records():
    rec = OUE(3, exp_epsilon0=3)
    assert T.sampled_full_lower(rec, 4, 1, exp_epsilon=fmpq(3, 2)) == T.third_full_delta(rec, 4, exp_epsilon=fmpq(3, 2))
    big = OUE(128, epsilon0=2)
    assert T.sampled_full_work(big, 1000, fmpq(1, 10)) <= T.SAMPLED_MAX_WORK  # the measured case is offered
    assert T.sampled_full_work(big, 1000, fmpq(1, 2)) > T.SAMPLED_MAX_WORK  # refused, without computing
    # (then handed to the binned route, Lemma T4, tests/test_sampled_binned15.py; with an explicit max_work, refused)
    assert T.sampled_full_lower(big, 1000, fmpq(1, 2), max_work=T.SAMPLED_MAX_WORK, epsilon=fmpq(1, 10)) is None
    assert T.sampled_full_lower(UnaryEncoding(k=2, p=fmpq(1, 2), q=fmpq(1, 4), kind="oue"), 4, fmpq(1, 2)) is None
    assert T.sampled_full_lower(rec, 4, fmpq(1, 2), exp_epsilon=fmpq(30)) == 0  # ε ≥ ε0


def test_accountant_takes_it_as_the_one_round_lower_end():
    """A sampled OUE round (k = 3, e^ε0 = 3, n = 8, q = 1/2): the reported lower end of ε is a point where the full
    view's certified δ exceeds the target (so no smaller ε can be claimed), and it is above the composed pairs'."""
    rec = OUE(3, exp_epsilon0=3)
    acc = A.ShuffleAccountant()
    acc.compose(Sampled(Shuffled(rec, 8), Fraction(1, 2)))
    target = fmpq(1, 10**3)
    r = acc.get_epsilon(target)
    assert r.details["lower_pair"] == A.LOWER_NAMES["one-round"] + f" ({A.ONE_ROUND_LOWER_ROUTES['sampled-full']})"
    assert "full view" in r.details["one_round"]["lower_from"]
    lo = fmpq(r.lower.numerator, r.lower.denominator)
    assert T.sampled_full_lower(rec, 8, fmpq(1, 2), epsilon=lo) > target
    assert r.lower < r.upper
    d = acc.get_delta(fmpq(1, 10))
    want = _fr(T.sampled_full_lower(rec, 8, fmpq(1, 2), epsilon=fmpq(1, 10)))
    assert d.lower >= want or not d.details["lower_pair"].startswith(A.LOWER_NAMES["one-round"])


def _mutant_small(mode: str):
    """A replacement for ``oracle_third._exact_small_sampled`` with one error: ``"no-shift"`` leaves the absent users'
    ratio 1 out of ``X`` (the threshold not shifted by ``(c − 1)(n − M)``); ``"q-weight"`` gives the target the chance
    ``q`` instead of ``M/n`` (ratio ``qX/M + 1 − q``); ``"right"``: no error (the harness itself passes)."""

    def small(n, p, q, s, e, c):
        total = fmpq(0)
        for M in range(1, n + 1):
            pM = comb(n, M) * s**M * (1 - s) ** (n - M)
            for m in range(M + 1):
                pm = comb(M, m) * p**m * (1 - p) ** (M - m)
                pts = [
                    (
                        (n if mode == "right" else M) - m + fmpq(m) / e + (e - 1) * i + (1 - 1 / e) * j,
                        comb(M - m, i) * q**i * (1 - q) ** (M - m - i) * comb(m, j) * q**j * (1 - q) ** (m - j),
                    )
                    for i in range(M - m + 1)
                    for j in range(m + 1)
                ]
                for x2, p2 in pts:
                    for x1, p1 in pts:
                        if mode in ("no-shift", "right"):
                            v = (x1 - c * x2) / n
                        else:
                            v = (s * x1 / M + 1 - s) - c * (s * x2 / M + 1 - s)
                        if v > 0:
                            total += pM * pm * p1 * p2 * v
        return total

    return small


def test_registered_check_passes_and_mutants_fail(monkeypatch):
    r = comp.SAMPLED_FULL
    assert r.status == "derived" and "oracles.md" in r.spec and r.kind == "lower_bound"
    assert r.check_symbolic().proved is None
    with monkeypatch.context() as mp:
        mp.setattr(T, "_exact_small_sampled", _mutant_small("right"))
        assert comp.SAMPLED_FULL.check_symbolic().proved is None
    for mode in ("no-shift", "q-weight"):
        with monkeypatch.context() as mp:
            mp.setattr(T, "_exact_small_sampled", _mutant_small(mode))
            assert comp.SAMPLED_FULL.check_symbolic().proved is False, mode


def test_estimate_counts_the_search_where_it_runs():
    from blanket.exact.accounting import composition_cost as cost

    big = OUE(128, epsilon0=2)
    for q, route in ((Fraction(1, 10), "sorted"), (Fraction(1, 2), "binned"), (Fraction(1, 2), None)):
        acc = A.ShuffleAccountant()
        acc.compose(Sampled(Shuffled(big, 1000 if route else 10**6), q))
        est = acc.estimate()
        fq = fmpq(q.numerator, q.denominator)
        if route == "sorted":
            want = cost.sampled_full_seconds(T.sampled_full_work(big, 1000, fq))
        elif route == "binned":  # above the sorted route's guard (session 15, Lemma T4)
            want = cost.sampled_binned_seconds(T.sampled_binned_work(big, 1000, fq))
        else:  # n = 10^6: above both guards, not run
            want = 0.0
        assert est.one_round == want
