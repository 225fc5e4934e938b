"""The exact worst case of a sampled binary RR round over every dataset (docs/composition.md §5f, Lemma S4;
exact.shuffled.sampled_binary), and its use as a source of the sampled round's curve pair.

Independent routes: the exhaustive worst case of the 3-output matrix R_q by naive enumeration of every report vector
(tests/test_seams11.py's helpers, which build R_q without the code under test) and flint's own enumeration
(exact.shuffled.enumerate.worst_case)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.accounting import curve_pairs
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled, SampledBinaryRR, SampledFourValue
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled.enumerate import worst_case
from flint import fmpq

from tests.test_sampled11 import _h
from tests.test_seams11 import _sampled_rows, _worst

ALPHAS = [Fraction(1), Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(5, 2)]


def _rr(e: Fraction) -> list:
    return [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]]


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _fr(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@pytest.mark.parametrize(
    ("e", "q", "n"),
    [
        (3, Fraction(1, 2), 2),
        (3, Fraction(1, 2), 4),
        (2, Fraction(1, 5), 4),
        (3, Fraction(1, 3), 5),
        (5, Fraction(3, 4), 3),
    ],
)
def test_worst_exact_equals_the_exhaustive_worst_case(e, q, n):
    rows = _sampled_rows(q, _rr(Fraction(e)))
    want = _worst(rows, n, ALPHAS)
    got = [_fr(sb.worst_exact(e, _fq(q), n, _fq(a))[0]) for a in ALPHAS]
    assert got == want
    # and flint's enumeration of the same matrix
    fm = FiniteRandomizer([[_fq(v) for v in row] for row in rows])
    assert [_fr(worst_case(fm, n, exp_epsilon=_fq(a)).value) for a in ALPHAS] == want


@pytest.mark.parametrize("mutant", ["q squared", "target always reports"])
def test_mutants_differ_from_the_exhaustive_worst_case(mutant, monkeypatch):
    """The check can fail: R_q built with q² for q, or the target reporting w.p. 1 (its participation dropped)."""
    e, q, n = Fraction(3), Fraction(1, 2), 3
    want = _worst(_sampled_rows(q, _rr(e)), n, ALPHAS)
    real = sb.laws_exact

    def laws(ee, qq, nn):
        if mutant == "q squared":
            return real(ee, qq * qq, nn)
        # the target (one user) always takes part: P_C = a'·a^{C-1} b^{n-C} with a' = s(f + p t) (q = 1 for it)
        p, f = ee / (ee + 1), 1 / (ee + 1)
        B = nn + 1
        base = real(ee, qq, nn - 1)  # the others: n - 1 users, C ones among them
        one = sb.fmpq_poly([0] * B + [f, p])
        zero = sb.fmpq_poly([0] * B + [p, f])
        Bm = nn  # Kronecker base of n - 1 users is n: re-encode each law at base n + 1
        out = []
        for c in range(nn + 1):
            if c == 0:
                out.append(zero * _rebase(base[0], Bm, B))
            else:
                out.append(one * _rebase(base[c - 1], Bm, B))
        return out

    monkeypatch.setattr(sb, "laws_exact", laws)
    got = [_fr(sb.worst_exact(e, _fq(q), n, _fq(a))[0]) for a in ALPHAS]
    assert got != want


def _rebase(P, old: int, new: int):
    cs = [0] * ((old + 1) * new)
    for i in range(P.degree() + 1):
        m, k = divmod(i, old)
        cs[m * new + k] = P[i]
    return sb.fmpq_poly(cs)


@pytest.mark.parametrize(("e", "q", "n"), [(3, Fraction(1, 2), 6), (2, Fraction(1, 10), 8)])
def test_ball_route_encloses_the_exact_value(e, q, n):
    w = sb.SampledBinaryWorst(e, _fq(q), n)
    for a in ALPHAS + [Fraction(1001, 1000), Fraction(7, 4)]:
        v, c = sb.worst_exact(e, _fq(q), n, _fq(a))
        lo, hi, c2 = w.value(_fq(a))
        assert lo <= v <= hi and hi - lo < fmpq(1, 10**30)


def test_ball_route_irrational_epsilon0_brackets_rational_neighbours():
    """ε0 = 1 (e irrational): the worst case is non-decreasing in e^{ε0} (binary RR with a smaller e^{ε0} is every
    report of a larger one flipped w.p. some r, a post-processing of the shuffled multiset), so it lies between the
    exact values at the rationals 2718/1000 and 2719/1000 (a cross-check of the ball route's input)."""
    from flint import arb

    n, q = 7, fmpq(1, 4)
    w = sb.SampledBinaryWorst(arb(1).exp(), q, n)
    for a in (fmpq(11, 10), fmpq(3, 2)):
        lo, hi, _c = w.value(a)
        below = sb.worst_exact(fmpq(2718, 1000), q, n, a)[0]
        above = sb.worst_exact(fmpq(2719, 1000), q, n, a)[0]
        assert below <= hi and lo <= above and below < above


def test_sampled_binary_curve_pair_uses_the_exact_worst_case_and_dominates():
    n, q = 3, Fraction(1, 2)
    ev = Sampled(Shuffled(KRR(2, exp_epsilon0=3), n), str(q))
    plain = ev.curve_event()
    assert isinstance(plain.mechanism, SampledBinaryRR)
    cp = ShuffleAccountant().compose(ev, count=2)._curve_of(ev)  # one round alone composes none (bounded14)
    assert cp is not None and "Lemma S4" in cp.description
    worst = _worst(_sampled_rows(q, _rr(Fraction(3))), n, ALPHAS)
    assert all(w <= v for w, v in zip(worst, _h(cp, ALPHAS)))


def test_ldp_round_never_uses_binary_rrs_exact_worst_case():
    """An ldp record's sampled round composes binary RR's R_q blanket view (Lemma G1 [sampled]) but never binary RR's
    worst case over datasets (not a bound for another ε0-LDP randomizer, §5g)."""
    ev = Sampled(Shuffled(oracles.LDP(exp_epsilon0=3), 20), "1/2")
    mech = ev.curve_event().mechanism
    assert isinstance(mech, SampledFourValue) and not isinstance(mech, SampledBinaryRR)
    names = [s for s, _f in curve_pairs.curve_sources(mech, n=20)]
    assert not any("Lemma S4" in s for s in names)
    b = Sampled(Shuffled(KRR(2, exp_epsilon0=3), 20), "1/2").curve_event().mechanism
    assert any("Lemma S4" in s for s, _f in curve_pairs.curve_sources(b, n=20))
    assert not any("Lemma S4" in s for s, _f in curve_pairs.curve_sources(b, n=10**4))  # over sb.BUDGET_SECONDS
    assert curve_pairs._key(mech, 20, False, 32) != curve_pairs._key(b, 20, False, 32)


def test_probe_case_upper_end_moves_down_to_the_worst_case():
    """binary RR, e^{eps0} = 3, n = 30, q = 1/4, delta = 1e-3 (session 12's probe): the upper end with the exact
    worst case is below the four-value record's curve alone, and the bracket keeps the lower end below it."""
    ev = Sampled(Shuffled(KRR(2, exp_epsilon0=3), 30), "1/4")
    on = ShuffleAccountant(refine_seconds=0).compose(ev).get_epsilon("1e-3")
    assert 0 < on.lower <= on.upper
    w = sb.sampled_binary_worst(fmpq(3), fmpq(1, 4), 30)
    # at the reported upper end the exact worst case meets the target (the pair dominates it)
    from flint import arb

    a = float(arb(fmpq(on.upper.numerator, on.upper.denominator)).exp().lower())
    al = fmpq(math.floor(a * 2**40) - 1, 2**40)  # below e^upper (float rounding: a relative 2^-53 at most)
    assert w.value(al)[0] <= fmpq(1, 1000)
    assert float(on.upper) < 0.2619  # the four-value record's curve pair gave 0.261952 (docs §5f)


def test_one_round_bracket_is_the_exact_worst_case():
    """One sampled binary RR round (n = 12): the accountant's ε bracket comes from the exact worst case (Lemma S4),
    both ends; at its ends the exhaustive worst case (exact rationals at e^{ε0} = 3, an independent enumeration by
    flint) is above δ at the lower end and at most δ at the upper end."""
    n, q, d = 12, Fraction(1, 3), Fraction(1, 1000)
    ev = Sampled(Shuffled(KRR(2, exp_epsilon0=3), n), str(q))
    r = ShuffleAccountant().compose(ev).get_epsilon(str(d))
    one = r.details["one_round"]
    assert "Lemma S4" in one["upper_from"] and one["lower_decided_by"] != "composition"
    assert 0 < r.upper - r.lower <= r.upper * Fraction(1, 10**5)
    fm = FiniteRandomizer([[_fq(v) for v in row] for row in _sampled_rows(q, _rr(Fraction(3)))])
    from flint import arb

    def alpha(eps, up: bool) -> fmpq:  # a rational just above / below e^eps
        b = arb(fmpq(eps.numerator, eps.denominator)).exp()
        x = float(b.upper() if up else b.lower())
        return fmpq(math.floor(x * 2**40) + (2 if up else -2), 2**40)

    assert _fr(worst_case(fm, n, exp_epsilon=alpha(r.upper, False)).value) <= d * (1 + Fraction(1, 10**4))
    assert _fr(worst_case(fm, n, exp_epsilon=alpha(r.lower, True)).value) > d * (1 - Fraction(1, 10**4))
    # get_delta at the upper end: a narrow bracket around the exact value
    g = ShuffleAccountant().compose(ev).get_delta(r.upper)
    assert g.lower <= d <= g.upper * (1 + Fraction(1, 10**6)) and g.upper - g.lower < Fraction(1, 10**12)


def test_one_round_route_not_for_ldp_or_many_rounds():
    ev = Sampled(Shuffled(oracles.LDP(exp_epsilon0=3), 12), "1/3")
    r = ShuffleAccountant().compose(ev).get_epsilon("1e-3")
    assert "Lemma S4" not in str(r.details.get("one_round"))
    b = Sampled(Shuffled(KRR(2, exp_epsilon0=3), 12), "1/3")
    r2 = ShuffleAccountant().compose(b, count=2).get_epsilon("1e-3")
    assert "Lemma S4" not in str((r2.details.get("one_round") or {}).get("upper_from"))


def test_certificate_chain_names_the_entry(tmp_path):
    """A binary RR deployment with [users] sampling (one round, and [[rounds]] of two): the certificate's chain names
    the registered entry, and the one-round bracket is narrow."""
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    body = '[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = 40\nsampling = "1/4"\n'
    cert = certify_composition(_dep(tmp_path, body), plot=False)
    chain = {e["key"]: e for e in cert["chain"]}
    assert "Sampled binary RR, exact worst case" in chain
    t = cert["targets"][0]
    lo, up = Fraction(t["epsilon_lower"]), Fraction(t["epsilon_upper"])
    assert 0 < up - lo <= up * Fraction(1, 10**5) and "Lemma S4" in t["lower_source"]
    # the upper end names the bound that decided it, not only the route
    assert "Lemma S4" in t["upper_source"], t["upper_source"]


def test_cost_model_counts_the_preparation():
    """The sampled round's cost estimate counts the exact worst case's preparation (sampled_binary.worst_seconds)
    where it is affordable (at most BUDGET_SECONDS), and not above."""
    from blanket.exact.accounting.accountant import ShuffledRR

    n_in, n_out = 1000, 10**4
    assert sb.affordable(n_in, "1/10") and not sb.affordable(n_out, "1/10")
    at = Sampled(ShuffledRR(k=2, epsilon0="1", n=n_in), "1/10").cost_model()[1]
    above = Sampled(ShuffledRR(k=2, epsilon0="1", n=n_out), "1/10").cost_model()[1]
    assert at >= sb.worst_seconds(n_in, "1/10")
    assert above < sb.worst_seconds(n_out, "1/10")
    assert sb.worst_seconds(100, "1/2") < sb.worst_seconds(150, "1/2")
    k3 = Sampled(ShuffledRR(k=3, epsilon0="1", n=1000), "1/10").cost_model()[1]
    assert k3 < sb.worst_seconds(1000, "1/10")
