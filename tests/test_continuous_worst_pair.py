"""The worst pair of the shuffled Laplace mechanism's blanket view (issue 27): the symbolic steps
(proofs/continuous_worst_pair.py) and the theorem ``L_{x,x'} ≤_cx L_{0,1}`` checked by an independent route.

Oracle: ``Φ_t(x, x') = ∫(μ_x − aμ_{x'} − tμ_{1/2})_+ dy`` in mpmath at 40 digits, in closed form piece by piece (on
each piece between the kinks ``x, x', 1/2`` the integrand is ``A e^{ε0 y} + B e^{−ε0 y}``, with at most one sign
change, found in closed form) — no arb, no engine code.  The convex order is ``Φ_t(x, x') ≤ Φ_t(0, 1)`` for every
``t`` (equal means), checked on a grid of pairs (same-side pairs included), ``a = e^ε`` and ``t`` of both signs.
"""

import mpmath as mp
import pytest
from blanket.proofs.continuous_worst_pair import STATEMENT, check_symbolic

mp.mp.dps = 40


def test_symbolic_steps_all_proved():
    rows = check_symbolic()
    assert len(rows) == 5
    assert all(r.proved is True for r in rows), [r for r in rows if r.proved is not True]
    assert "(0, 1)" in STATEMENT


def _phi(e0, x, x2, a, t):
    """``∫(μ_x − aμ_{x2} − tμ_{1/2})_+`` exactly (mpmath), μ_c the Laplace density at c with rate e0."""
    e0, x, x2, a, t = (mp.mpf(v) for v in (e0, x, x2, a, t))
    terms = ((mp.mpf(1), x), (-a, x2), (-t, mp.mpf(1) / 2))
    cuts = sorted({x, x2, mp.mpf(1) / 2})
    edges = [-mp.inf] + cuts + [mp.inf]
    total = mp.mpf(0)

    def coeffs(lo, hi):
        # on (lo, hi) each |y - c| resolves by the side of c: e^{-e0|y-c|} = e^{e0 c} e^{-e0 y} (y > c) or e^{-e0 c} e^{e0 y}
        mid = (lo + hi) / 2 if lo != -mp.inf and hi != mp.inf else (hi - 1 if lo == -mp.inf else lo + 1)
        A = B = mp.mpf(0)  # h = A e^{e0 y} + B e^{-e0 y}
        for w, c in terms:
            if mid < c:
                A += w * e0 / 2 * mp.exp(-e0 * c)
            else:
                B += w * e0 / 2 * mp.exp(e0 * c)
        return A, B

    def integral(A, B, lo, hi):
        up = lambda y: ((A * mp.exp(e0 * y) if A else 0) - (B * mp.exp(-e0 * y) if B else 0)) / e0  # noqa: E731
        return (up(hi) if hi != mp.inf else 0) - (up(lo) if lo != -mp.inf else 0)

    for lo, hi in zip(edges, edges[1:]):
        A, B = coeffs(lo, hi)
        pts = [lo, hi]
        if A * B < 0:  # one root: A e^{2 e0 y} = -B
            y0 = mp.log(-B / A) / (2 * e0)
            if lo < y0 < hi:
                pts = [lo, y0, hi]
        for u, v in zip(pts, pts[1:]):
            probe = (u + v) / 2 if u != -mp.inf and v != mp.inf else (v - 1 if u == -mp.inf else u + 1)
            if A * mp.exp(e0 * probe) + B * mp.exp(-e0 * probe) > 0:
                # a positive piece on an infinite end needs the decaying term only (A = 0 below, B = 0 above)
                total += integral(A, B, u, v)
    return total


def test_oracle_against_quadrature():
    """The closed-form oracle agrees with plain mpmath quadrature on a few cases (the oracle is itself checked)."""
    for e0, x, x2, a, t in ((1, 0, 1, 1.2, 0.3), (2, 0.3, 0.1, 1.0, -0.5), (1, 0.7, 0.6, 1.5, -2)):
        e0m = mp.mpf(e0)

        def f(y, e0m=e0m, x=x, x2=x2, a=a, t=t):
            mu = lambda c: e0m / 2 * mp.exp(-e0m * abs(y - c))  # noqa: E731
            return max(mu(x) - a * mu(x2) - t * mu(0.5), 0)

        with mp.workdps(15):
            ref = mp.quad(f, [-40, min(x, x2), 0.5, max(x, x2), 40], maxdegree=7)
        assert abs(_phi(e0, x, x2, a, t) - ref) < mp.mpf(10) ** -4, (e0, x, x2, a, t)  # quadrature accuracy


GRID = [mp.mpf(i) / 8 for i in range(9)]
TS = [-8, -2, -1, -0.5, -0.1, 0, 0.05, 0.2, 0.5, 1, 3]


@pytest.mark.parametrize("e0, a", [(1, 1), (1, 1.05), (1, 1.6), (2, 1.2), (0.5, 1.01)])
def test_convex_order_every_pair_below_zero_one(e0, a):
    worst = {t: _phi(e0, 0, 1, a, t) for t in TS}
    strict = 0
    for x in GRID:
        for x2 in GRID:
            for t in TS:
                v = _phi(e0, x, x2, a, t)
                assert v <= worst[t] + mp.mpf(10) ** -30, (e0, a, x, x2, t, v, worst[t])
                strict += v < worst[t] - mp.mpf(10) ** -6
    assert strict > len(GRID) ** 2  # not vacuous: most comparisons are strict


def test_a_wrong_reference_pair_is_caught():
    """The same check refutes a false claim: (0, 1/2) is not the worst pair."""
    e0, a = 1, 1.05
    bad = [
        (x, x2, t)
        for x in GRID
        for x2 in GRID
        for t in (-1, 0, 0.2)
        if _phi(e0, x, x2, a, t) > _phi(e0, 0, mp.mpf(1) / 2, a, t) + mp.mpf(10) ** -20
    ]
    assert bad


def test_answers_name_the_proof_or_the_assumption():
    """The one-round sentence and the composed answers say "proved" for Laplace, "assumed" once a Gaussian is in."""
    from blanket.reports.commands import _continuous
    from blanket.reports.continuous_certificate import every_dataset, worst_pair

    assert "proved" in worst_pair("laplace") and "assumed" not in worst_pair("laplace")
    assert "assumed" in worst_pair("gaussian") and "proved" not in worst_pair("gaussian")
    assert "proved the worst pair" in every_dataset("laplace") and "assuming" in every_dataset("gaussian")
    assert "proved" in _continuous._assumption({"laplace"}) and "assumed" not in _continuous._assumption({"laplace"})
    assert "assumed" in _continuous._assumption({"laplace", "gaussian"})
    assert "assumed" in _continuous._assumption({"gaussian"})


def test_certificate_assumptions_of_schedules_say_which():
    """A schedule's assumptions list: proved for Laplace rounds; the Gaussian's assumption once a Gaussian round is in."""
    from blanket.reports.composition import _extra_assumptions
    from blanket.reports.deployment import parse_deployment

    head = 'name = "x"\n[randomizer]\nmechanism = "laplace"\nepsilon0 = 1\n[users]\nn = 20\n'
    claim = '[[claims]]\nepsilon = "1/2"\ndelta = "1e-3"\n'
    lap = " ".join(_extra_assumptions(parse_deployment(head + "[[rounds]]\ncount = 2\n" + claim)))
    assert "proved to be the worst pair" in lap and "assumed" not in lap
    mixed = parse_deployment(head + '[[rounds]]\ncount = 2\n[[rounds]]\nmechanism = "gaussian"\nsigma = 1\n' + claim)
    text = " ".join(_extra_assumptions(mixed))
    assert "proved to be the worst pair" in text and "assumed to be the worst pair" in text
