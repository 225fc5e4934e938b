"""Sampled truncated geometric rounds with an irrational α or m > 10: R_q's four-knot law (docs/composition.md §5f,
"A sampled geometric round's upper end"; registered ``Sampled geometric round, four knots``).

Independent route: the sampled round's exact law enumerated by participation (each user reports w.p. q, no R_q
built), the exhaustive worst H_{e^ε} over every neighbouring pair (both orders), exact rationals."""

from __future__ import annotations

import itertools

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.shuffled import geometric as geo
from blanket.exact.shuffled.positive_part import expected_positive_part
from flint import fmpq


def _law(rows: list, users: tuple, q: fmpq) -> dict:
    """Exact law of the released histogram of reports (the number of reports is its total)."""
    k = len(rows[0])
    law: dict = {(0,) * k: fmpq(1)}
    for x in users:
        nxt: dict = {}
        for h, pr in law.items():
            nxt[h] = nxt.get(h, fmpq(0)) + pr * (1 - q)
            for y in range(k):
                g = list(h)
                g[y] += 1
                nxt[tuple(g)] = nxt.get(tuple(g), fmpq(0)) + pr * q * rows[x][y]
        law = nxt
    return law


def _worst(mech: Geometric, n: int, q: fmpq, ees: list) -> list:
    rows, m = mech.rows(), mech.m
    laws = {u: _law(rows, u, q) for u in itertools.product(range(m), repeat=n)}
    out = [fmpq(0)] * len(ees)
    for others in itertools.combinations_with_replacement(range(m), n - 1):
        for x, x2 in itertools.permutations(range(m), 2):
            a, b = laws[(*others, x)], laws[(*others, x2)]
            for i, ee in enumerate(ees):
                v = sum((max(pa - ee * b.get(h, 0), 0) for h, pa in a.items()), fmpq(0))
                out[i] = max(out[i], v)
    return out


def _mutant(mech: Geometric, n: int, q: fmpq, ee: fmpq, kind: str) -> fmpq:
    """The bound with one error: ``q²`` for ``q``, or the factor ``γ_q/γ`` dropped (normalised by ``γ_q``)."""
    s, w = geo.dominating_law(mech, exp_epsilon=ee)
    g = mech.gamma()
    qq = q * q if kind == "q2" else q
    atoms = [(qq * w[1], s[1]), (qq * w[2], s[2]), (qq * w[0], s[0]), (1 - qq, g * (1 - ee))]
    v = expected_positive_part(n, atoms)
    return v / ((1 - q + q * g) * n) if kind == "gamma_q" else v / (g * n)


CASES = [(3, fmpq(1, 2)), (3, fmpq(2, 3)), (4, fmpq(1, 2))]


def test_bound_above_exhaustive_worst_case_and_mutants_below():
    """m = 3, 4, n = 2, 3, q = 1/2, 1/5, four e^ε: worst case <= the bound (equal at e^ε = 1 in some cases); each
    mutant falls below the worst case somewhere."""
    below = {"q2": 0, "gamma_q": 0}
    for m, a in CASES:
        g = Geometric(m, alpha=a)
        e = g.exp_epsilon0()
        ees = [fmpq(1), fmpq(3, 2), fmpq(2), (1 + e) / 2]
        for n in (2, 3):
            for q in (fmpq(1, 2), fmpq(1, 5)):
                for ee, wv in zip(ees, _worst(g, n, q, ees)):
                    b = geo.sampled_geometric_upper(g, n, q, exp_epsilon=ee)
                    assert isinstance(b, fmpq) and wv <= b, (m, a, n, q, ee)
                    for kind in below:
                        below[kind] += _mutant(g, n, q, ee, kind) < wv
    assert below["q2"] > 0 and below["gamma_q"] > 0, below


def test_q_one_is_the_plain_bound_and_q_helps():
    g = Geometric(4, alpha=fmpq(1, 2))
    for ee in (fmpq(1), fmpq(2)):
        assert geo.sampled_geometric_upper(g, 5, 1, exp_epsilon=ee) == geo.geometric_upper(g, 5, exp_epsilon=ee)
    with pytest.raises(Exception, match="q"):
        geo.sampled_geometric_upper(g, 5, 0, exp_epsilon=2)


def test_registered_check_and_its_mutant(monkeypatch):
    from blanket.proofs import composition as comp

    assert comp.SAMPLED_GEOMETRIC.check_symbolic().proved is None

    def q2(mech, n, q, **kw):
        return _mutant(mech, n, fmpq(q), kw["exp_epsilon"], "q2")

    monkeypatch.setattr(geo, "sampled_geometric_upper", q2)
    assert comp.SAMPLED_GEOMETRIC.check_symbolic().proved is False


def test_curve_event_routes():
    """Irrational α or m > 10: R_q's four-knot record; exact α with m <= 10 keeps the matrix route."""
    ev = Sampled(Shuffled(Geometric(20, epsilon0=1), 50), "1/10")
    plain = ev.curve_event()
    assert plain is not None and isinstance(plain.mechanism, geo.SampledGeometric)
    ev2 = Sampled(Shuffled(Geometric(4, alpha="1/2"), 50), "1/10")
    assert not isinstance(ev2.curve_event().mechanism, geo.SampledGeometric)
    assert Sampled(Shuffled(Geometric(20, epsilon0=1), 50), 1).curve_event() is None


def test_accountant_curve_pair_above_worst_case_m11():
    """m = 11 (exact α = 9/10, above the matrix route's m <= 10), n = 2, q = 1/2: the accountant's composed curve pair
    of the sampled round lies above its exhaustive worst case (exact enumeration) and the certificate chain names the
    registered entry."""
    from blanket.reports.composition import pairs_used

    g = Geometric(11, alpha=fmpq(9, 10))
    n, q = 2, fmpq(1, 2)
    ev = Sampled(Shuffled(g, n), q)
    acc = ShuffleAccountant().compose(ev)
    cp = acc._curve_of(ev)
    assert cp is not None and "R_q" in cp.description
    ees = [fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2)]
    for ee, wv in zip(ees, _worst(g, n, q, ees)):
        assert wv <= cp.hockey_stick(ee)
    assert ("sampled-geometric", ev.describe()) in pairs_used(acc, {"curve pairs"})


def test_certificate_chain_names_the_entry(tmp_path):
    """A deployment of an irrational-alpha geometric round with sampling: the certificate's chain names the registered
    entry with the round that rests on it."""
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    body = '[mechanism]\ntype = "geometric"\nm = 12\nepsilon0 = "1"\n[users]\nn = 50\nsampling = "1/2"\n'
    chain = {e["key"]: e for e in certify_composition(_dep(tmp_path, body), plot=False)["chain"]}
    assert "Sampled geometric round, four knots" in chain
    assert "participation q = 1/2" in chain["Sampled geometric round, four knots"]["used_for"]


def test_plain_geometric_rounds_have_a_curve_cost_model():
    """A plain geometric round's curve pair has a cost model (session 12: without one, "auto" never composed it above
    128 users and kept the clone pair); with it, m = 20, eps0 = 1, n = 10^4, 10 rounds composes the curve pair, whose
    upper end is below the clone pair's (both certified; the model's estimate, ~7 s, is far from the 120 s budget)."""
    from blanket.exact.accounting import curve_pairs
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.mechanisms.oracles import Geometric

    g = Geometric(20, epsilon0=1)
    secs = [curve_pairs.point_seconds(g, n) for n in (10**3, 10**4, 10**5, 10**6)]
    assert all(s is not None for s in secs) and secs == sorted(secs)
    on = ShuffleAccountant(refine_seconds=0).compose(Shuffled(g, 10**4), 10).get_epsilon("1e-6")
    off = ShuffleAccountant(curves=False, refine_seconds=0).compose(Shuffled(g, 10**4), 10).get_epsilon("1e-6")
    assert any("hull of certified curve values" in p for p in on.details["pairs"])
    assert on.lower <= on.upper < off.upper
