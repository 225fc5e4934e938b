"""Session 13 (geolow13): the truncated geometric mechanism's composable lower pair (the threshold count), its sampled
form, the one-round threshold choice and the routing of m = 2 to binary RR.  Independent routes: the exact histogram
laws of the shuffled output (brute force over every dataset at small n), the exact product over two rounds, the
matrix's own rows, binary RR's own engines."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import geometric_lower as gl
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.pairs import hockey_stick, product_atoms
from blanket.exact.accounting.query import make_query
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.shuffled.enumerate import delta_dataset
from blanket.exact.shuffled.geometric import geometric_lower_dataset
from blanket.proofs import composition as comp
from flint import fmpq

ALPHAS = [fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(3)]


def _histogram_law(rows: list, k_out: int) -> dict:
    """Exact law of the histogram of reports of users with output laws ``rows``.  O(k_out^len(rows))."""
    law: dict = {(0,) * k_out: fmpq(1)}
    for dist in rows:
        nxt: dict = {}
        for h, pr in law.items():
            for y in range(k_out):
                g = list(h)
                g[y] += 1
                nxt[tuple(g)] = nxt.get(tuple(g), fmpq(0)) + pr * dist[y]
        law = nxt
    return law


def _hockey(p: dict, q: dict, a) -> fmpq:
    return sum((max(fmpq(0), p.get(k, fmpq(0)) - a * q.get(k, fmpq(0))) for k in set(p) | set(q)), fmpq(0))


def _worst(rows: list, n: int, a) -> fmpq:
    """Exhaustive worst H_a over every neighbouring dataset pair (others' multiset, the target's two values)."""
    k_in, k_out = len(rows), len(rows[0])
    best = fmpq(0)
    for others in itertools.combinations_with_replacement(range(k_in), n - 1):
        laws = {x: _histogram_law([rows[u] for u in others] + [rows[x]], k_out) for x in range(k_in)}
        for x, x2 in itertools.permutations(range(k_in), 2):
            best = max(best, _hockey(laws[x], laws[x2], a))
    return best


def test_count_probability_is_the_row_sum():
    """The closed form P(Y_u >= s) against the record's own rows (exact), and a ball alpha encloses the exact one."""
    g = Geometric(6, alpha="2/3")
    rows = g.rows()
    for u in range(6):
        for s in range(1, 6):
            assert gl.count_probability(g, u, s) == sum(rows[u][s:], fmpq(0))
    with pytest.raises(Exception, match="threshold"):
        gl.count_probability(g, 0, 6)


@pytest.mark.parametrize("m, alpha", [(3, "1/2"), (4, "2/3")])
def test_pair_is_the_pushed_forward_count_and_below_the_worst_case(m, alpha):
    """n = 3: the accountant's pair (both directions) is the exact push-forward of the dataset pair's histogram laws by
    the count of reports >= s, and its H is at most the exhaustive worst case; the mutant threshold s + 1 in the closed
    form (a wrong pair) is not the push-forward."""
    n = 3
    g = Geometric(m, alpha=alpha)
    rows = g.rows()
    c = gl.geometric_choice(g)
    hp = _histogram_law([rows[c.z]] * (n - 1) + [rows[m - 1]], m)
    hq = _histogram_law([rows[c.z]] * (n - 1) + [rows[0]], m)
    for direction in ("forward", "backward"):
        pp, qq = (hp, hq) if direction == "forward" else (hq, hp)

        def push(law, direction=direction, s=c.s):
            out: dict = {}
            for h, pr in law.items():
                k = sum(h[s:]) if direction == "forward" else n - sum(h[s:])
                out[k] = out.get(k, fmpq(0)) + pr
            return out

        pair = gl.shift_pair(g, n, direction)
        lp = {k: a for (_c, k), a, _b in pair.atoms()}
        lq = {k: b for (_c, k), _a, b in pair.atoms()}
        assert lp == {k: v for k, v in push(pp).items()} and lq == push(qq)
        for a in ALPHAS:
            assert hockey_stick(pair.atoms(), a) <= _worst(rows, n, a)
        if c.s + 1 < m:
            bad = gl.shift_pair(g, n, direction, choice=gl.GeometricCount(m, c.z, c.s + 1, fmpq(1)))
            assert {k: a for (_c, k), a, _b in bad.atoms()} != push(pp)


def test_two_rounds_below_the_exact_product():
    """T = 2: H of the product of the pair is at most H of the product of the dataset pair's exact laws (itself the
    two rounds' value on those datasets), at 5 values of alpha."""
    n, m = 3, 4
    g = Geometric(m, alpha="1/2")
    rows = g.rows()
    c = gl.geometric_choice(g)
    hp = _histogram_law([rows[c.z]] * (n - 1) + [rows[m - 1]], m)
    hq = _histogram_law([rows[c.z]] * (n - 1) + [rows[0]], m)
    full = [(h, hp.get(h, fmpq(0)), hq.get(h, fmpq(0))) for h in set(hp) | set(hq)]
    pair = gl.shift_pair(g, n).atoms()
    for a in ALPHAS:
        assert hockey_stick(product_atoms(pair, pair), a) <= hockey_stick(product_atoms(full, full), a)


def test_sampled_pair_is_the_sampled_count():
    """q = 1/2, irrational-alpha path exercised by the exact closed form: the sampled pair is the count pushed forward
    from R_q's histogram laws (a no-report column), and its H is at most R_q's exhaustive worst case (n = 2)."""
    n, m, q = 2, 3, fmpq(1, 2)
    g = Geometric(m, alpha="1/2")
    rq = [[q * v for v in row] + [1 - q] for row in g.rows()]
    c = gl.geometric_choice(g, q)
    hp = _histogram_law([rq[c.z]] * (n - 1) + [rq[m - 1]], m + 1)
    hq = _histogram_law([rq[c.z]] * (n - 1) + [rq[0]], m + 1)
    pair = gl.shift_pair(g, n, q=q)
    push_p: dict = {}
    push_q: dict = {}
    for law, out in ((hp, push_p), (hq, push_q)):
        for h, pr in law.items():
            out[sum(h[c.s : m])] = out.get(sum(h[c.s : m]), fmpq(0)) + pr
    assert {k: a for (_c, k), a, _b in pair.atoms()} == push_p
    assert {k: b for (_c, k), _a, b in pair.atoms()} == push_q
    for a in ALPHAS:
        assert hockey_stick(pair.atoms(), a) <= _worst(rq, n, a)


def test_sampled_round_has_a_lower_pair_for_irrational_alpha_and_large_m():
    """The rounds that had none (irrational alpha, or m > 10): both directions now; exact m <= 10 keeps the matrix."""
    for mech in (Geometric(20, epsilon0=1), Geometric(12, alpha="9/10")):
        ev = Sampled(Shuffled(mech, 50), "1/10")
        for d in ("forward", "backward"):
            pr = ev.lower_pair(d)
            assert pr is not None and pr.kind == "dataset-threshold" and "participation q = 1/10" in pr.description
    assert Sampled(Shuffled(Geometric(4, alpha="1/2"), 50), "1/10").lower_pair().kind == "dataset-binarized"


def test_one_round_lower_end_uses_the_signal_threshold():
    """m = 12 (above the every-threshold limit): the one-round lower end is at least each of the old thresholds' (1, 6,
    11) and the composed pair's threshold's (the signal's choice), each computed here from the pair's exact atoms (the
    count law enumerated, an independent route from the engine)."""
    g = Geometric(12, alpha="9/10")
    n, ee = 40, fmpq(3, 2)
    v, text = geometric_lower_dataset(g, n, exp_epsilon=ee)
    top = gl.geometric_choice(g)
    assert top.z == 0
    for s in (1, 6, 11, top.s):
        c = gl.GeometricCount(12, 0, s, fmpq(1))
        for d in ("forward", "backward"):
            assert hockey_stick(gl.shift_pair(g, n, d, choice=c).atoms(), ee) <= v
    # one of its cuts (the counts alone: with the full view, session 14, the whole histogram may be the larger)
    text = geometric_lower_dataset(g, n, exp_epsilon=ee, full_view=False)[1]
    assert any(f">= {s})" in text or f"{s})" in text for s in (top.s - 1, top.s, top.s + 1))


@pytest.mark.parametrize("m, alpha", [(3, "1/2"), (4, "1/2"), (5, "2/3")])
def test_one_round_dataset_value_against_brute_force(m, alpha):
    """n = 3, 4: the one-round lower end (threshold count or three intervals) is at most the exact value of its dataset
    pair, both orders (enumerate.delta_dataset, brute force); m = 3: three intervals are the whole histogram, so it is
    that value exactly."""
    g = Geometric(m, alpha=alpha)
    ee = fmpq(5, 4)
    for n in (3, 4):
        v, text = geometric_lower_dataset(g, n, exp_epsilon=ee)
        exact = max(delta_dataset(g.matrix(), [0] * (n - 1), a, b, exp_epsilon=ee) for a, b in ((0, m - 1), (m - 1, 0)))
        assert 0 < v <= exact
        if m == 3:
            assert v == exact and "three" not in text and "[1, 2)" in text


def test_m2_is_binary_rr_exactly():
    """The 2 x 2 matrices are equal entry by entry (exact), e^{eps0} = 1/alpha; the query and the accountant route a
    geometric m = 2 record to binary RR (the same numbers as rr's)."""
    for a in ("1/3", "1/2", "9/10"):
        g = Geometric(2, alpha=a)
        b = g.as_binary_rr()
        assert isinstance(b, KRR) and b.k == 2 and b.matrix() == g.rows() and b.exp_epsilon0() == 1 / fmpq(a)
    with pytest.raises(Exception, match="must be 2"):
        Geometric(3, alpha="1/2").as_binary_rr()
    q = make_query(mechanism="geometric", m=2, epsilon0="1", n=100)
    assert q.kind == registry.Kind.BINARY_RR and q.mechanism.epsilon0_exact == 1
    ev = Shuffled({"type": "geometric", "m": 2, "alpha": "1/3"}, 100)
    assert isinstance(ev.mechanism, KRR) and ev.mechanism.exp_epsilon0() == 3
    e_geo = ShuffleAccountant().compose(Shuffled(Geometric(2, epsilon0=1), 100), count=2).get_epsilon("1e-6")
    e_rr = ShuffleAccountant().compose(Shuffled(KRR(2, 1), 100), count=2).get_epsilon("1e-6")
    assert (e_geo.lower, e_geo.upper) == (e_rr.lower, e_rr.upper)


def test_composed_lower_end_above_one_round_and_below_upper():
    """m = 20, n = 100, T = 3: the composed threshold count's lower end lies above one round's own certified lower end
    (the one-round search: it composes) and below the composition's certified upper end."""
    from blanket.exact.accounting import certified

    mech = Geometric(20, epsilon0=1)
    e = ShuffleAccountant().compose(Shuffled(mech, 100), count=3).get_epsilon("1e-6")
    br = certified.lower_epsilon(mech, 100, fmpq(1, 10**6), hi=certified.epsilon_hi(mech), rel_tol=fmpq(1, 10**4))
    assert Fraction(str(br.lower)) < e.lower < e.upper


def test_registered_checks_can_fail(monkeypatch):
    """Both registered statements pass, and fail on a wrong closed form (the threshold shifted) / a wrong e^{eps0}."""
    r = comp.GEOMETRIC_COUNT
    assert r.check_symbolic().proved is None
    real = gl.count_probability
    monkeypatch.setattr(gl, "count_probability", lambda mech, u, s: real(mech, u, min(s + 1, mech.m - 1)))
    assert r.check_symbolic().proved is False
    monkeypatch.undo()
    from blanket.exact.shuffled import geometric as geo

    flip = geo._interval_delta
    monkeypatch.setattr(  # the mutant: the directions swapped (the orders' values differ at these instances)
        geo,
        "_interval_delta",
        lambda n, p0, p1, ee, d, **kw: flip(n, p0, p1, ee, "backward" if d == "forward" else "forward", **kw),
    )
    assert r.check_symbolic().proved is False
    monkeypatch.undo()
    b = comp.GEOMETRIC_BINARY
    assert b.check_symbolic().proved is True
    monkeypatch.setattr(Geometric, "as_binary_rr", lambda self: KRR(2, exp_epsilon0=2 / self.alpha_exact))
    assert b.check_symbolic().proved is False


def test_certificate_chain_names_the_geometric_statements(tmp_path):
    """A deployment with geometric [[rounds]]: the target's lower source is the threshold count or (geocomp14) the
    datasets' whole curve, and the chain names both statements; an m = 2 round is composed as binary RR and the chain names the identity."""
    from blanket.reports.composition import certify_composition
    from blanket.reports.deployment import load_deployment

    p = tmp_path / "geo.toml"
    head = 'name = "x"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "1"\n[users]\nn = 60\n'
    p.write_text(
        head + '[[rounds]]\ntype = "geometric"\nm = 6\nepsilon0 = "1"\nn = 60\ncount = 2\n[[targets]]\ndelta = "1e-6"\n'
    )
    cert = certify_composition(load_deployment(p), plot=False)
    keys = {e["key"] for e in cert["chain"]}
    assert "Geometric threshold-count lower pair" in keys and "Geometric m = 2 is binary RR" not in keys
    assert "Continuous dataset-curve lower pair" in keys  # geocomp14: the datasets' whole curve is composed too
    src = cert["targets"][0]["lower_source"]
    assert "reports >=" in src or "(m-1) 0^(n-1) (geometric, m = 6, n = 60): ROC hull" in src
    p.write_text(p.read_text().replace("m = 6", "m = 2"))
    cert2 = certify_composition(load_deployment(p), plot=False)
    assert "Geometric m = 2 is binary RR" in {e["key"] for e in cert2["chain"]}
