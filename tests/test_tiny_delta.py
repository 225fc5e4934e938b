"""A claim at a tiny δ (issue tiny11, session 11): the cheap passes of a certificate stop as soon as no enclosure
that could decide the claim narrows, and the blanket view is evaluated at a tolerance that can resolve δ.

Binary RR, ε0 = 0.62, n = 5000, (ε, δ) = (0.2, 1e-100) ran over five CPU minutes before: the blanket view's windowing
tolerance (2^-80) left its ball around 3.9e-90 straddling 1e-100 at every precision, and a registered closed form
narrowing with the precision kept the escalation doubling to 4096 bits (the c = 0 dataset alone ~25 s at 1024 bits).
No test depends on the machine's speed: passes are counted, verdicts checked against an independent route."""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.shuffled import binary, krr
from blanket.exact.shuffled.positive_part import DEFAULT_TOL
from blanket.reports import claims as C
from blanket.reports.certificate import certify
from blanket.reports.deployment import parse_deployment
from flint import arb, ctx, fmpq


def dep_text(n, eps, delta, e0="0.62"):
    return f'''name = "tiny"
neighbouring = "replace-one"
[mechanism]
type = "krr"
k = 2
epsilon0 = "{e0}"
[users]
n = {n}
[[claims]]
epsilon = "{eps}"
delta = "{delta}"
'''


def test_claim_tolerance_only_below_the_default():
    assert C.claim_tolerance(None) is None and C.claim_tolerance(0) is None
    assert C.claim_tolerance(fmpq(1, 10**6)) is None  # δ·2^-8 above 2^-80: the routine's default
    t = C.claim_tolerance(fmpq(1, 10**100))
    assert t == fmpq(1, 10**100 * 2**C.CLAIM_TOL_BITS) and t < DEFAULT_TOL


def test_blanket_view_decides_tiny_delta_only_with_the_claim_tolerance():
    """The cause: at the default tolerance the blanket view's ball straddles δ = 1e-100 at any precision."""
    m, eps, delta = KRR(2, epsilon0=fmpq(62, 100)), fmpq(1, 5), fmpq(1, 10**100)
    with arith.precision(512):
        loose = krr.delta_blanket_view(m, 5000, epsilon=eps)
    with arith.precision(128):
        tight = krr.delta_blanket_view(m, 5000, epsilon=eps, tol=C.claim_tolerance(delta))
    assert arith.gt(loose, delta) is None
    assert arith.gt(tight, delta) is True
    assert loose.overlaps(tight)


def _fake(key, role, fn):
    return C.Source(key, role, key, lambda eps, fn=fn: (fn(ctx.prec), None))


def test_escalation_stops_when_the_open_enclosures_stall():
    """An upper bound straddling δ with a fixed radius (a windowing tolerance) and one narrowing with the precision
    but certainly above δ: two passes, not a doubling to the cap (the old rule watched the narrowing one)."""
    seen = []

    def straddle(prec):
        seen.append(prec)
        return arb(0, fmpq(1, 10**5))

    srcs = [
        _fake("straddle", "upper", straddle),
        _fake("above", "upper", lambda prec: arb(fmpq(1, 10**6), arb(2) ** -prec)),
        _fake("below", "lower", lambda prec: arb(fmpq(1, 10**12), arb(2) ** -prec)),
    ]
    state = C._escalate(None, None, fmpq(1, 5), fmpq(1, 10**10), srcs, [], 128, 4096)
    assert seen == [128, 256]
    assert state[-1] is True and not (state[6] or state[7])


def test_escalation_between_stops_at_once_and_open_narrowing_continues():
    seen = []

    def narrowing(prec):  # straddles δ until 2^-prec is small: decides at 512 bits
        seen.append(prec)
        return arb(fmpq(1, 10**120), arb(2) ** -prec * 10**100)

    state = C._escalate(None, None, fmpq(1, 5), fmpq(1, 10**100), [_fake("n", "upper", narrowing)], [], 128, 4096)
    assert seen == [128, 256, 512, 1024] and state[6]  # holds once the radius 2^-prec·1e100 < 1e-100
    seen.clear()
    state = C._escalate(None, None, fmpq(1, 5), fmpq(1, 10), [_fake("n", "upper", lambda p: arb(1))], [], 128, 4096)
    assert state[-1] == "between"


def test_tiny_delta_cheap_passes_are_few(monkeypatch):
    """The reported case: the cheap escalation runs at most two precisions (the registered Lemma 5.3 closed form keeps
    the default tolerance, so one pass shows it stalled), and the claim lies between the cheap bounds."""
    dep = parse_deployment(dep_text(5000, "0.2", "1e-100"))
    mech = dep.build_mechanism()
    cheap = [s for s in C.sources(dep, mech) if not s.expensive]
    precs = []
    orig = C._evaluate_all

    def counted(dep, mech, srcs, cands, eps, delta, prec):
        precs.append(prec)
        return orig(dep, mech, srcs, cands, eps, delta, prec)

    monkeypatch.setattr(C, "_evaluate_all", counted)
    c = dep.claims[0]
    state = C._escalate(dep, mech, c.epsilon, c.delta, cheap, C.candidate_results(dep), 128, 4096)
    assert precs == [128, 256]
    assert not (state[6] or state[7])
    assert all(arith.gt(v, c.delta) is True for name, v, r, s in state[3] if s is not None)  # the blanket view


@pytest.mark.parametrize("side", ["above", "below"])
def test_tiny_delta_verdict_agrees_with_the_exact_sweep(side):
    """n = 500, ε = 0.4: the claim just above / below the exact worst δ (≈ 4.8e-41, below the blanket view's default
    tolerance; computed here by a separate call of the sweep at 512 bits) is HOLDS / FAILS."""
    m = KRR(2, epsilon0=fmpq(62, 100))
    with arith.precision(512):
        w = binary.delta_binary_worst(m, 500, epsilon=fmpq(2, 5))
    lo, hi = arith.endpoints(w.value)
    delta = hi * Fraction(1001, 1000) if side == "above" else lo * Fraction(999, 1000)
    text = arith.decimal_string(delta, 30, up=side == "above")
    cert = certify(parse_deployment(dep_text(500, "0.4", text)), plot=False)
    assert cert["verdict"] == ("HOLDS" if side == "above" else "FAILS")


def test_krr3_family_lower_bound_decides_tiny_delta():
    """3-RR, ε0 = 1, n = 5000, (0.2, 1e-100): the dataset families' δ (5.5e-40 for 'third') straddled 1e-100 at the default
    tolerance (INCONCLUSIVE before); at the claim's tolerance the family 'third' is a witness: FAILS, its printed lower
    end inside an independent evaluation of the family at a much smaller tolerance and a higher precision."""
    text = dep_text(5000, "0.2", "1e-100", e0="1").replace("k = 2", "k = 3")
    cert = certify(parse_deployment(text), plot=False)
    claim = cert["claims"][0]
    assert cert["verdict"] == "FAILS" and claim["precision"] == 128 and "third" in claim["lower"]["dataset"]
    with arith.precision(512):
        ref = krr.delta_krr_family(KRR(3, epsilon0=1), 5000, "third", epsilon=fmpq(1, 5), tol=fmpq(1, 10**150))
    lo, hi = arith.endpoints(ref)
    printed_lo = Fraction(str(arith.exact(claim["lower"]["value"]["lower"])))
    printed_hi = Fraction(str(arith.exact(claim["lower"]["value"]["upper"])))
    assert Fraction(1, 10**100) < printed_lo <= hi and lo <= printed_hi
