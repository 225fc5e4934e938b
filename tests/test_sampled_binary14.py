"""Lemma S4 by rows of M (exact.shuffled.sampled_binary_rows, docs/composition.md §5f, docs/numerics.md Lemma S4r).

Independent routes: the exact rationals of the Kronecker polynomials a^C b^(n−C) (sampled_binary.laws_exact /
worst_exact, which share nothing with the row route: no hypergeometric law, no sweep), the exhaustive enumeration
of the 3-output matrix R_q (tests/test_seams11.py's helpers), and the Kronecker ball route at n = 40."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from blanket.exact.accounting import curve_pairs
from blanket.exact.accounting.accountant import Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled import sampled_binary_rows as sr
from flint import arb, fmpq

from tests.test_seams11 import _sampled_rows, _worst

ALPHAS = [fmpq(1), fmpq(21, 20), fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(5, 2)]


def _close(lo, hi, v) -> None:
    assert lo <= v <= hi
    assert hi - lo <= v * fmpq(1, 10**11) + fmpq(1, 10**40)


@pytest.mark.parametrize(
    ("e", "q", "n"),
    [
        (fmpq(3), fmpq(1, 2), 5),
        (fmpq(2), fmpq(1, 10), 8),
        (fmpq(5, 2), fmpq(1, 5), 12),
        (fmpq(3), fmpq(3, 4), 9),
        (fmpq(7, 4), fmpq(1, 3), 11),
    ],
)
def test_rows_route_encloses_the_exact_worst_case(e, q, n):
    w = sr.SampledBinaryRows(e, q, n)
    for a in ALPHAS:
        v, _c = sb.worst_exact(e, q, n, a)
        lo, hi, _c2 = w.value(a)
        _close(lo, hi, v)


def test_rows_route_against_the_exhaustive_enumeration():
    """n = 4, e^{ε0} = 3, q = 1/2: the exhaustive worst case of the 3-output R_q (every report vector)."""
    e, q, n = Fraction(3), Fraction(1, 2), 4
    rr = [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]]
    al = [Fraction(1), Fraction(3, 2), Fraction(2)]
    want = _worst(_sampled_rows(q, rr), n, al)
    w = sr.SampledBinaryRows(fmpq(3), fmpq(1, 2), n)
    for a, v in zip(al, want):
        lo, hi, _c = w.value(fmpq(a.numerator, a.denominator))
        _close(lo, hi, fmpq(v.numerator, v.denominator))


def test_cells_within_the_a_priori_bound():
    """Every cell of the sweep (Lemma S4r): |v − x| ≤ θ·x + 2^-1000 against the exact coefficient of a^C b^(n−C)."""
    n, e, q = 14, fmpq(5, 2), fmpq(1, 3)
    w = sr.SampledBinaryRows(e, q, n)
    laws = sb.laws_exact(e, q, n)
    bad: list = []

    def row(m, H, G):
        wm = w.w[m]
        R64 = (H.astype(np.float64) @ G.astype(np.float64)) * wm[0]
        RL = (H @ G) * wm[1]
        for C in range(n + 1):
            for k in range(m + 1):
                x = laws[C][m * (n + 1) + k]
                for v, th in ((R64[C, k], w.theta), (RL[C, k], w.theta_full)):
                    d = abs(fmpq(*sr.LD(v).as_integer_ratio()) - x)
                    if d > fmpq(*float(th).as_integer_ratio()) * x + sr.ABS:
                        bad.append((m, C, k))

    sr._sweep(n, w.p, w.f, w.m_lo, w.m_hi, row)
    assert not bad
    assert w.theta_full < 1e-15 and w.theta < 1e-13


def test_binned_bound_alone_is_an_upper_end(monkeypatch):
    """With no C prepared fully (FULL_CAP = 0) the upper end is the binned bound (Lemma S4r (v)): still above the
    exact value, and within 1 % of it where the value is not tiny."""
    monkeypatch.setattr(sr, "FULL_CAP", 0)
    e, q, n = fmpq(3), fmpq(1, 4), 12
    w = sr.SampledBinaryRows(e, q, n)
    assert not w.full
    for a in ALPHAS:
        v, _c = sb.worst_exact(e, q, n, a)
        lo, hi, _c2 = w.value(a)
        assert lo == 0 and v <= hi
        if v > fmpq(1, 10**6):
            assert hi <= v * fmpq(101, 100)


def test_agrees_with_the_kronecker_ball_route():
    """n = 40, ε0 = 1 (irrational e^{ε0}), q = 1/10 and 1/2: the two enclosures overlap; the row route's is at most
    1e-12 relative wide where the value exceeds 1e-30."""
    with arith.precision(128):
        e = arb(1).exp()
    for q in (fmpq(1, 10), fmpq(1, 2)):
        old = sb.SampledBinaryWorst(e, q, 40)
        new = sr.SampledBinaryRows(e, q, 40)
        for a in ALPHAS:
            lo, hi, _c = old.value(a)
            lo2, hi2, _c2 = new.value(a)
            assert lo2 <= hi and lo <= hi2
            if lo2 > fmpq(1, 10**30):
                assert hi2 - lo2 <= lo2 * fmpq(1, 10**12)


def test_promotion_prepares_a_missing_worst_dataset(monkeypatch):
    """Selection forced to C = n only: a query where another C is worse prepares it (promotion), and the answer
    still encloses the exact value narrowly."""
    monkeypatch.setattr(sr.SampledBinaryRows, "_select", lambda self: [self.n])
    e, q, n = fmpq(3), fmpq(1, 2), 10
    w = sr.SampledBinaryRows(e, q, n)
    v, c = sb.worst_exact(e, q, n, fmpq(11, 10))
    lo, hi, c2 = w.value(fmpq(11, 10))
    _close(lo, hi, v)
    assert c in w.full


def test_bad_input_names_the_argument():
    with pytest.raises(Exception, match="q"):
        sr.SampledBinaryRows(fmpq(3), fmpq(1), 10)
    with pytest.raises(Exception, match="alpha"):
        sr.SampledBinaryRows(fmpq(3), fmpq(1, 2), 5).value(fmpq(1, 2))


def test_callers_use_the_cost_model():
    assert sb.affordable(1000, fmpq(1, 10)) and not sb.affordable(10**4, fmpq(1, 10))
    assert sb.worst_seconds(2000, fmpq(1, 10)) > sb.worst_seconds(1000, fmpq(1, 10))
    b = Sampled(Shuffled(KRR(2, exp_epsilon0=3), 1000), "1/10").curve_event().mechanism
    assert any("Lemma S4" in s for s, _f in curve_pairs.curve_sources(b, n=1000))
    assert not any("Lemma S4" in s for s, _f in curve_pairs.curve_sources(b, n=10**4))
    with_src = curve_pairs.curve_seconds(b, 1000) or 0.0
    assert with_src >= sb.worst_seconds(1000, fmpq(1, 10))


def test_one_round_above_the_old_limit_uses_the_exact_worst_case():
    """n = 300 > 160 (the Kronecker route's old limit): one sampled binary RR round's ε bracket comes from the exact
    worst case, both ends, and at its ends the row route's own values straddle δ."""
    from blanket.exact.accounting.accountant import ShuffleAccountant

    n, q, d = 300, "1/10", Fraction(1, 10**6)
    ev = Sampled(Shuffled(KRR(2, exp_epsilon0=3), n), q)
    r = ShuffleAccountant().compose(ev).get_epsilon(str(d))
    one = r.details["one_round"]
    assert "Lemma S4" in one["upper_from"] and one["lower_decided_by"] != "composition"
    assert 0 < r.upper - r.lower <= r.upper * Fraction(1, 10**5)
    w = sb.sampled_binary_worst(fmpq(3), fmpq(1, 10), n)
    assert isinstance(w, sr.SampledBinaryRows)
    with arith.precision(128):
        a_lo = arb(fmpq(r.lower.numerator, r.lower.denominator)).exp()
        a_up = arb(fmpq(r.upper.numerator, r.upper.denominator)).exp()
    below = fmpq(*float(a_lo.upper()).as_integer_ratio()) * fmpq(2**40 + 1, 2**40)  # just above e^lower
    above = fmpq(*float(a_up.lower()).as_integer_ratio()) * fmpq(2**40 - 1, 2**40)  # just below e^upper
    assert w.value(below)[0] > fmpq(d.numerator, d.denominator) * fmpq(9999, 10000)
    assert w.value(above)[1] <= fmpq(d.numerator, d.denominator) * fmpq(10001, 10000)


def test_affordable_checks_memory():
    """At a tiny q the time model of the route by rows is small while its per-C tables grow with n (n = 10⁵,
    q = 10⁻⁵: 5.7 GB measured in session 14, where the estimate said 200 MB): ``affordable`` also bounds the modelled
    memory, and the model covers the tables a built instance holds.  Since session 15 the tables are capped
    (``bins_for``) and the sweep runs by chunks of C, so n = 10⁵ is admitted there and n = 10⁶ is not (its tables
    at the fewest bins exceed the budget; tests/test_sampled_binary15.py)."""
    from blanket.exact.shuffled import sampled_binary as S
    from blanket.exact.shuffled import sampled_binary_rows as R

    assert S.worst_seconds(1000000, "1/1000000") > 0
    assert R.route_bytes(1000000, 1e-6) > S.BUDGET_BYTES and not S.affordable(1000000, "1/1000000")
    assert S.affordable(2000, "1/10")
    w = S.sampled_binary_worst(3, fmpq(1, 10), 300)
    held = sum(getattr(w, a).nbytes for a in ("pbu", "qbd", "spu", "sqd"))
    assert held <= R.route_bytes(300, 0.1)
