"""Task tail15: certified upper ends in three deep corners.

1. One sampled binary RR round's δ upper end is the smaller of the exact worst case's (Lemma S4, cut at its window)
   and the blanket view of ``R_q`` capped by its Chernoff bound (``exact.shuffled.oracles.blanket_view_upper_end``).
2. ``exact.accounting.certified.lower_bound`` raises its precision itself (or answers ``(None, reason)``) instead of
   returning a useless ball.
3. ``blanket delta`` prints a δ upper end above 1 as 1 (``reports.commands._profile_common.delta_interval``).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled, SampledBinaryRR
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import Subset
from blanket.exact.numbers import arith
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled.oracles import blanket_view_upper_end
from flint import fmpq


def _worst_mpmath(e0: mpmath.mpf, q: mpmath.mpf, n: int, alpha: mpmath.mpf) -> mpmath.mpf:
    """max over C = 1..n of H_α(P_C ‖ P_{C−1}), the laws of (reports, 1-reports) built user by user in mpmath (an
    independent route: no code of the project)."""
    p, f = e0 / (1 + e0), 1 / (1 + e0)
    one = {(0, 0): 1 - q, (1, 0): q * f, (1, 1): q * p}
    zero = {(0, 0): 1 - q, (1, 0): q * p, (1, 1): q * f}

    def conv(a: dict, b: dict) -> dict:
        out: dict = {}
        for (m1, k1), x in a.items():
            for (m2, k2), y in b.items():
                out[(m1 + m2, k1 + k2)] = out.get((m1 + m2, k1 + k2), 0) + x * y
        return out

    best = mpmath.mpf(0)
    for c in range(1, n + 1):
        rest: dict = {(0, 0): mpmath.mpf(1)}
        for i in range(n - 1):
            rest = conv(rest, one if i < c - 1 else zero)
        pc, pc1 = conv(rest, one), conv(rest, zero)
        h = sum(max(pc.get(z, 0) - alpha * pc1.get(z, 0), 0) for z in set(pc) | set(pc1))
        best = max(best, h)
    return best


@pytest.mark.parametrize("e0", [3, "1"])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 10)])
@pytest.mark.parametrize("n", [2, 5, 9])
def test_blanket_upper_end_at_least_the_exact_worst_case(e0: object, q: Fraction, n: int) -> None:
    """The new upper end is at least the exact worst case over every dataset, computed independently in mpmath
    (ε0 = log 3 and ε0 = 1, several ε)."""
    base = Subset(2, 1, exp_epsilon0=3) if e0 == 3 else Subset(2, 1, 1)
    rec = SampledBinaryRR(base, fmpq(q.numerator, q.denominator))
    with mpmath.workdps(50):
        me0 = mpmath.mpf(3) if e0 == 3 else mpmath.e
        for eps in (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
            ref = _worst_mpmath(
                me0, mpmath.mpf(q.numerator) / q.denominator, n, mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
            )
            up = blanket_view_upper_end(rec, n, fmpq(eps.numerator, eps.denominator))
            assert mpmath.mpf(int(up.p)) / int(up.q) >= ref * (1 - mpmath.mpf(10) ** -40), (n, q, eps)


def test_deep_tail_upper_end_below_the_window_cut() -> None:
    """n = 200, q = 1/10, ε0 = 1, ε = 1/2: the exact worst case's upper end stops at its window cut (about 2e-44,
    its lower end 2.7e-70); the accountant's one-round upper end is now the capped blanket view (about 3.8e-62),
    strictly below it, and still at least the exact worst case's certified lower end."""
    n, q, eps = 200, fmpq(1, 10), fmpq(1, 2)
    r = ShuffleAccountant().compose(Sampled(Shuffled(KRR(2, epsilon0=1), n), "1/10")).get_delta("1/2")
    one = r.details["one_round"]
    assert "blanket view" in one["upper_from"] and one["upper_decided_by"] != "composition"
    with arith.precision(128):
        e0 = SampledBinaryRR(Subset(2, 1, 1), q).exp_epsilon0()
    lo, old_up = sb.one_round_delta(sb.sampled_binary_worst(e0, q, n), eps)
    assert r.upper < Fraction(int(old_up.p), int(old_up.q)) / 10**10
    assert r.upper >= Fraction(int(lo.p), int(lo.q)) and r.lower <= r.upper


# ---------------------------------------------------------------- 2. lower_bound chooses its precision
def _count_delta_mpmath(rows: list, n: int, s: int, ee: mpmath.mpf) -> mpmath.mpf:
    """δ (both orders) of the number of reports ≥ s: Bin(n−1, q0) + Bern(q0) versus + Bern(q1), in mpmath."""
    q0 = sum(mpmath.mpf(int(x.p)) / int(x.q) for x in rows[0][s:])
    q1 = sum(mpmath.mpf(int(x.p)) / int(x.q) for x in rows[-1][s:])
    base = [mpmath.binomial(n - 1, k) * q0**k * (1 - q0) ** (n - 1 - k) for k in range(n)]

    def law(b: mpmath.mpf) -> list:
        return [base[k] * (1 - b) + (base[k - 1] * b if k else 0) for k in range(n)] + [base[n - 1] * b]

    p, q = law(q0), law(q1)
    return max(sum(max(a - ee * c, 0) for a, c in zip(p, q)), sum(max(c - ee * a, 0) for a, c in zip(p, q)))


def test_lower_bound_at_53_bits_geometric_tiny_alpha() -> None:
    """Called at 53 bits, geometric m = 3, α = 1e-50, n = 100: the value was [± 2.7e35]; now a narrow ball, at most
    1 and at least the threshold-count candidate it maximises over (mpmath, 120 digits)."""
    from blanket.exact.accounting.certified import lower_bound
    from blanket.exact.mechanisms.oracles import Geometric

    g = Geometric(3, alpha="1e-50")
    with arith.precision(53):
        v, _where = lower_bound(g, 100, epsilon=fmpq(1, 2))
    lo, hi = arith.endpoints(v)
    assert hi - lo <= Fraction(1, 1024)
    rows = [[fmpq(x) if not isinstance(x, fmpq) else x for x in r] for r in g.rows()]
    with mpmath.workdps(120):
        ref = _count_delta_mpmath(rows, 100, 1, mpmath.exp(mpmath.mpf(1) / 2))
        assert mpmath.mpf(lo.numerator) / lo.denominator >= ref - mpmath.mpf(10) ** -9
    assert lo <= 1


def test_lower_bound_refuses_a_useless_ball(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no room to raise the precision (MAX_PREC = 53), the same call answers ``(None, reason)``."""
    from blanket.exact.accounting.certified import lower_bound
    from blanket.exact.mechanisms.oracles import Geometric

    monkeypatch.setattr(arith, "MAX_PREC", 53)
    with arith.precision(53):
        v, why = lower_bound(Geometric(3, alpha="1e-50"), 100, epsilon=fmpq(1, 2))
    assert v is None and "not enclosed" in why


# ---------------------------------------------------------------- 3. a δ upper end above 1 is printed as 1
def test_delta_upper_end_above_one_printed_as_one(capsys: pytest.CaptureFixture) -> None:
    """Geometric m = 3, α = 1e-50, n = 100: both upper bounds' balls reach above 1 (printed "1.000000001" before);
    now "1" with the reason, the lower end unchanged (a certified lower end below 1)."""
    import json

    from blanket.reports.cli import main

    args = ["delta", "--mechanism", "geometric", "--m", "3", "--alpha", "1e-50", "-n", "100", "--epsilon", "0.5"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["upper"]["value"] == "1" and "delta <= 1 always" in out["upper"]["upper_clamped"]
    assert out["delta"]["upper"] == "1" and all(v["upper"] == "1" for v in out["upper_bounds"].values())
    assert Fraction(out["delta"]["lower"]) <= 1
    assert main(args) == 0
    assert "1.000000001" not in capsys.readouterr().out


def test_delta_interval_changes_only_ends_above_one() -> None:
    """delta_interval equals interval for balls whose upper end is at most 1 (exactly 1 included), and prints 1
    where it is above 1."""
    from blanket.reports.commands import _profile_common as common
    from flint import arb

    for x in (arb(fmpq(1, 2), fmpq(1, 10)), fmpq(1), arb(fmpq(1, 3)), arb(0, fmpq(1, 10**30)), fmpq(0)):
        assert common.delta_interval(x, 10) == common.interval(x, 10)
    iv = common.delta_interval(arb(1, fmpq(1, 10**9)), 10)
    assert iv["upper"] == "1" and iv["lower"] == common.interval(arb(1, fmpq(1, 10**9)), 10)["lower"]
