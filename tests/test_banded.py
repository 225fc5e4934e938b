"""k-RR's banded third-value lower pair (exact/accounting/banded.py, docs/composition.md §1).

Checked against an independent brute force: the exact law of ``(N, A)`` (reports equal to ``x`` or ``x'``, and equal
to ``x``) of the datasets ``x z^{n−1}`` vs ``x' z^{n−1}``, built by convolving the n users' report laws in exact
rationals, and the exact δ of that dataset pair from the k-RR family engine (:func:`delta_krr_family`, "third").
Every kept cell of the banded pair must be the reflection garbling of the brute-force cell with a probability in
[0, ½] (a post-processing), so its hockey-stick divergence lies between the one-level pair's and the statistic's,
for one round and for the two-round products.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import accountant as A
from blanket.exact.accounting import banded as B
from blanket.exact.accounting import pairs, pld
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.krr import delta_krr_family
from blanket.reports.composition import lower_source
from flint import fmpq

ALPHAS = [fmpq(1), fmpq(9, 8), fmpq(3, 2), fmpq(2), fmpq(3)]
CASES = [(3, 2, 7, 3), (4, 3, 9, 4), (5, 2, 12, 5), (10, 3, 12, B.BANDS)]  # k, e^eps0, n, bands


def _brute_na(k: int, e: fmpq, n: int, first: int) -> dict:
    """``{(N, A): prob}``: ``N`` reports equal to x or x', ``A`` equal to x; the target holds x (``first = 0``) or
    x' (1), the n − 1 others a third value.  Exact rationals, O(n³)."""
    f = 1 / (e + k - 1)
    p = e * f
    target = {"x": p, "x'": f, "U": 1 - p - f} if first == 0 else {"x": f, "x'": p, "U": 1 - p - f}
    other = {"x": f, "x'": f, "U": 1 - 2 * f}
    dist = {(0, 0): fmpq(1)}
    for law in [target] + [other] * (n - 1):
        new: dict = {}
        for (N, A_), pr in dist.items():
            for cl, q in law.items():
                key = (N + (cl != "U"), A_ + (cl == "x"))
                new[key] = new.get(key, fmpq(0)) + pr * q
        dist = new
    return dist


def _hs(P: dict, Q: dict, alpha) -> fmpq:
    return sum((max(P[h] - alpha * Q.get(h, fmpq(0)), fmpq(0)) for h in P), fmpq(0))


def _atoms_dicts(atoms: list) -> tuple[dict, dict]:
    return {key: p for key, p, _ in atoms}, {key: q for key, _, q in atoms}


@pytest.mark.parametrize(("k", "e0", "n", "bands"), CASES)
def test_banded_krr_pair_is_a_garbling_between_the_statistic_and_the_one_level_pair(k, e0, n, bands):
    m = KRR(k, exp_epsilon0=e0)
    bp = B.lumped_banded_pair(m, n, bands)
    one = pairs.lumped_lower_pair(m, n)
    assert isinstance(bp, B.BandedPair) and len(bp.parts) > 1
    m_lo = one.outer_mix[2]
    # disjoint bands covering N >= m_lo; the first is the one-level pair itself, the last garbled less
    rngs = [(pt.outer_mix[2], pt.outer_hi if pt.outer_hi is not None else n) for pt in bp.parts]
    assert rngs[0][0] == m_lo and rngs[-1][1] == n
    assert all(rngs[i][1] + 1 == rngs[i + 1][0] for i in range(len(rngs) - 1))
    assert (bp.parts[0].pi_p, bp.parts[0].pi_q) == (one.pi_p, one.pi_q) and bp.parts[-1].pi_p > one.pi_p
    at = bp.atoms()
    atoms = {key: (p, q) for key, p, q in at}
    assert len(atoms) == len(at)  # disjoint keys
    P, Q = _brute_na(k, fmpq(e0), n, 0), _brute_na(k, fmpq(e0), n, 1)
    for s in range(n + 1):  # N: the same law under both datasets
        assert sum(P.get((s, a), 0) for a in range(s + 1)) == sum(Q.get((s, a), 0) for a in range(s + 1))
        if s < m_lo:
            assert all((s - 1, a) not in atoms for a in range(s + 1))
            continue
        # the reflection A -> s − A w.p. θ maps the brute-force cell onto the pair's, for one θ in [0, 1/2]
        ps, qs = [P.get((s, a), fmpq(0)) for a in range(s + 1)], [Q.get((s, a), fmpq(0)) for a in range(s + 1)]
        gp, gq = [atoms[(s - 1, a)][0] for a in range(s + 1)], [atoms[(s - 1, a)][1] for a in range(s + 1)]
        a0 = max(range(s + 1), key=lambda a: ps[a] - ps[s - a])
        d = ps[a0] - ps[s - a0]
        assert d > 0
        theta = (ps[a0] - gp[a0]) / d
        assert 0 <= theta <= fmpq(1, 2)
        for a in range(s + 1):
            assert gp[a] == (1 - theta) * ps[a] + theta * ps[s - a]
            assert gq[a] == (1 - theta) * qs[a] + theta * qs[s - a]
    P1, Q1 = _atoms_dicts(one.atoms())
    Pb, Qb = _atoms_dicts(at)
    gain = False
    for alpha in ALPHAS:  # one level <= banded <= the statistic <= the dataset pair's exact δ (independent engine)
        h1, hb, hs = _hs(P1, Q1, alpha), _hs(Pb, Qb, alpha), _hs(P, Q, alpha)
        assert h1 <= hb <= hs <= delta_krr_family(m, n, "third", exp_epsilon=alpha)
        gain = gain or hb > h1
    assert gain  # banding gains somewhere (the test would pass vacuously with the one-level pair)


@pytest.mark.parametrize(("k", "e0", "n", "bands"), [(3, 2, 9, 3), (10, 3, 12, B.BANDS)])
def test_banded_krr_pld_composes_below_the_exact_product(k, e0, n, bands):
    """T = 2: the banded pair's optimistic PLD composed twice is below the exact product of the brute-force
    statistic's pair (and of its own atoms), and not far below the latter."""
    m = KRR(k, exp_epsilon0=e0)
    bp = B.lumped_banded_pair(m, n, bands)
    assert isinstance(bp, B.BandedPair)
    grid = fmpq(1, 64)
    pl = bp.discretise(grid, "lower")
    pl2 = pl.self_compose(2)
    P, Q = _brute_na(k, fmpq(e0), n, 0), _brute_na(k, fmpq(e0), n, 1)
    b1 = [(key, P[key], Q.get(key, fmpq(0))) for key in P]
    brute2 = pairs.product_atoms(b1, b1)
    own2 = pairs.product_atoms(bp.atoms(), bp.atoms())
    for eps in (fmpq(0), fmpq(1, 8), fmpq(1, 2), fmpq(1)):
        alpha = arith.ball(eps).exp()
        for p, own in ((pl, bp.atoms()), (pl2, own2)):
            d = p.get_delta(eps)
            h_own = pairs.hockey_stick(own, alpha)
            assert arith.le(d, h_own) is not False
            assert float(arith.ball(d).mid()) >= 0.9 * float(arith.ball(h_own).mid()) - 1e-3
        assert arith.le(pl2.get_delta(eps), pairs.hockey_stick(brute2, alpha)) is not False
    one = pairs.lumped_lower_pair(m, n).atoms()
    one2 = pairs.product_atoms(one, one)
    for alpha in (fmpq(1), fmpq(5, 4), fmpq(2)):  # exact: one level <= banded <= the statistic, two rounds
        assert pairs.hockey_stick(one2, alpha) <= pairs.hockey_stick(own2, alpha) <= pairs.hockey_stick(brute2, alpha)
    with pytest.raises(InvalidArgument, match="side"):
        bp.discretise(grid, "upper")


def test_one_band_is_the_one_level_pair_and_bad_input():
    m = KRR(4, exp_epsilon0=3)
    assert B.lumped_banded_pair(m, 50, bands=1) == pairs.lumped_lower_pair(m, 50)
    with pytest.raises(InvalidArgument, match="bands"):
        B.lumped_banded_pair(m, 50, bands=0)
    with pytest.raises(InvalidArgument, match="mechanism"):
        B.lumped_banded_pair(KRR(2, exp_epsilon0=3), 50)


def test_accountant_composes_the_banded_pair_for_krr_and_ldp():
    """10-RR, ε0 = 1, n = 400, two rounds: the reported lower end is the banded pair's composed value (computed here
    directly), above the one-level pair's (the old lower end); ``Shuffled`` of k-RR gives the same lower end, and the
    ``ldp`` record composes the banded 3-RR pair."""
    ev = A.ShuffledRR(k=10, epsilon0="1", n=400)
    grid = fmpq(1, 2**10)
    dt = fmpq(1, 10**6)
    acc = A.ShuffleAccountant(grid=grid, curves=False).compose(ev, count=2)
    new = acc.get_epsilon(dt)
    bp = ev.lower_pair("backward")
    assert isinstance(bp, B.BandedPair)
    low = bp.discretise(grid, "lower").self_compose(2).get_epsilon(dt)
    one = pld.discretise(pairs.lumped_lower_pair(ev.mechanism(), 400), grid, "lower").self_compose(2).get_epsilon(dt)
    assert new.details["lower_pair"] == "concrete pair, backward"
    assert new.lower == Fraction(int(low.p), int(low.q)) <= new.upper and one < low
    same = A.ShuffleAccountant(grid=grid, curves=False).compose(A.Shuffled(KRR(10, fmpq(1)), 400), count=2)
    assert same.get_epsilon(dt).lower == new.lower
    assert isinstance(A.Shuffled(LDP(fmpq(2)), 400).third_lower_bands(), B.BandedPair)
    # the certificate names the pair that decided, and its chain the banded statement (binary RR has none)
    assert "garbled per band" in lower_source(acc, new.details["lower_pair"])
    assert acc.statements_used()["banded"]
    assert (
        not A.ShuffleAccountant(grid=grid).compose(A.ShuffledRR(k=2, epsilon0="1", n=400)).statements_used()["banded"]
    )
