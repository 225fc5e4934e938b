"""The frequency oracles' exact five-atom blanket view and the third-value lower end (exact.shuffled.oracle_exact).

Independent routes: the binomial mixture over M (exact.shuffled.oracles.blanket_view_delta, a different
decomposition of the same sum), brute-force sums over multinomial counts in exact rationals, explicit
matrices, and the exhaustive worst case over datasets (exact.shuffled.enumerate).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.mechanisms.oracles import OLH, OUE, SUE, Hadamard, Subset
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import oracle_exact as X
from blanket.exact.shuffled import oracles as O
from blanket.exact.shuffled import positive_part as PP
from blanket.exact.shuffled.enumerate import delta_dataset, worst_case
from flint import arb, fmpq

MECHS = [
    OUE(4, exp_epsilon0=3),
    SUE(5, exp_half_epsilon0=2),
    Subset(6, 2, exp_epsilon0=3),
    Hadamard(5, exp_epsilon0=3),
    OLH(6, 3, exp_epsilon0=3),
]
EE = fmpq(3, 2)


def _contains(ball, q) -> bool:
    return bool(arith.ball(ball).contains(arb(q)))


def _brute_five(mech, n, ee):
    """``E[(Σ V_i)_+]/(γn)`` summed over every multinomial count vector of the five atoms (exact rationals)."""
    g = mech.gamma()
    law = mech.l_law(exp_epsilon=ee)
    atoms = [(1 - g, fmpq(0))] + [(g * p, v) for v, p in law]
    tot = fmpq(0)
    for cnt in itertools.product(range(n + 1), repeat=4):
        if sum(cnt) > n:
            continue
        c = (n - sum(cnt),) + cnt
        s = sum(ci * a[1] for ci, a in zip(c, atoms))
        if s <= 0:
            continue
        w = fmpq(math.factorial(n))
        for ci, a in zip(c, atoms):
            w = w * a[0] ** ci / math.factorial(ci)
        tot += w * s
    return tot / (g * n)


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.kind)
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_exact_view_equals_the_mixture_and_brute_force(mech, n):
    v = X.blanket_view_exact(mech, n, exp_epsilon=EE)
    assert isinstance(v, fmpq)
    assert v == O.blanket_view_delta(mech, n, exp_epsilon=EE)
    if n <= 5:
        assert v == _brute_five(mech, n, EE)


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.kind)
def test_windowed_view_contains_the_exact_value(mech):
    # exact_max_n = 0 forces the ball route (windows, 1-D pass, grid refinement) on exact inputs
    n = 40
    exact = X.blanket_view_exact(mech, n, exp_epsilon=EE)
    ball = X.blanket_view_exact(mech, n, exp_epsilon=EE, exact_max_n=0, tol="1e-30")
    assert isinstance(exact, fmpq) and isinstance(ball, arb)
    assert _contains(ball, exact)
    assert float(ball.rad()) <= 1e-2 * float(exact) + 1e-25


def test_exact_view_below_merged_and_spread_above_contraction():
    m = OUE(16, epsilon0=2)
    n = 120
    for e in ("0.3", "0.6"):
        ex = X.blanket_view_exact(m, n, epsilon=e)
        merged = O.blanket_view_delta_merged(m, n, epsilon=e)
        br = O.blanket_view_bracket(m, n, epsilon=e, merged=False)
        lo_ex, hi_ex = arith.endpoints(ex)
        assert hi_ex <= arith.endpoints(merged)[1]
        assert hi_ex <= arith.endpoints(br.upper)[1]
        assert arith.endpoints(br.lower)[0] <= hi_ex
        # and strictly tighter than the convex-order spread here (the point of the exact view)
        assert hi_ex < arith.endpoints(br.upper)[0]


def test_exact_view_or_none_refuses_large_windows():
    m = OUE(128, epsilon0=2)
    assert X.exact_view_calls(m, 10**6) > X.MAX_CALLS
    assert X.exact_view_or_none(m, 10**6, epsilon="0.01") is None


def test_exact_view_is_routed_where_its_cost_guard_allows():
    # issue 25: above EXACT_VIEW_MAX_N the exact view is a certified route while calls x n stays under the budget
    m = OUE(128, epsilon0=2)
    assert X.exact_view_work(m, 1000) == X.exact_view_calls(m, 1000) * 1000 <= cb.EXACT_VIEW_MAX_WORK
    assert cb.EXACT_FIVE in [r.name for r in cb.upper_routes(m, 1000)]
    assert X.exact_view_work(m, 10**4) > cb.EXACT_VIEW_MAX_WORK
    assert cb.EXACT_FIVE not in [r.name for r in cb.upper_routes(m, 10**4)]
    assert X.exact_view_or_none(m, 10**4, max_work=cb.EXACT_VIEW_MAX_WORK, epsilon="0.1") is None
    # and left out where δ is far below its windowing error (the fast view decides there, in a fraction of the time)
    m1 = OUE(128, epsilon0=1)
    assert cb.EXACT_FIVE in [r.name for r in cb.upper_routes(m1, 1000)]
    every = cb.upper_bounds(m1, 1000, epsilon="0.3")
    assert cb.EXACT_FIVE not in every and cb.upper_end(every[cb.BLANKET_EXACT]) < cb.EXACT_VIEW_MIN_DELTA


def test_routed_exact_view_above_300_users_decides_and_sits_inside_the_other_routes():
    # n = 320 > EXACT_VIEW_MAX_N: the route is there by the work guard; the value is checked against independent
    # routes: below the convex-order spread / merged view, above the contraction (docs/numerics.md Lemma O1) and above
    # the exact δ of a concrete dataset pair (a lower bound on the worst case)
    m = OUE(16, epsilon0=2)
    n, eps = 320, "0.4"
    v, name, every = cb.best_upper(m, n, epsilon=eps)
    assert name == cb.EXACT_FIVE
    hi = cb.upper_end(v)
    br = O.blanket_view_bracket(m, n, epsilon=eps, merged=False)
    assert hi < arith.endpoints(br.upper)[0]
    assert hi < arith.endpoints(O.blanket_view_delta_merged(m, n, epsilon=eps))[0]
    assert arith.endpoints(br.lower)[0] <= hi
    lo, _ = cb.lower_bound(m, n, epsilon=eps)
    assert arith.endpoints(lo)[1] <= hi


# ---------------------------------------------------------------- the third-value lower end
@pytest.mark.parametrize("mech", [m for m in MECHS if m.kind != "olh"], ids=lambda m: m.kind)
def test_triple_hit_law_against_the_matrix(mech):
    rows = mech.rows()
    e = mech.exp_epsilon0()
    law = X.triple_hit_law(mech)
    assert sum(law.values()) == 1
    # hit = the high value of the column for that input: R(u)(y) = c_y e^{h_u(y)}
    x, x2, z = (0, 1, 2)
    if mech.kind == "hadamard":
        z = ((x + 1) ^ (x2 + 1)) - 1
    got: dict = {}
    for y in range(len(rows[0])):
        col = [r[y] for r in rows]
        lo = min(col)
        h = tuple(int(col[u] != lo) for u in (x, x2, z))
        assert all(col[u] in (lo, lo * e) for u in (x, x2, z)) or len(set(col)) == 1
        got[h] = got.get(h, fmpq(0)) + rows[z][y]
    # a column equal on all three inputs (all ones in unary encoding, row 0 of Hadamard) reads as (0, 0, 0) here:
    # the same likelihood ratios as (1, 1, 1), so the two are compared together
    fold = dict(law)
    fold[(0, 0, 0)] = fold[(0, 0, 0)] + fold.pop((1, 1, 1))
    got[(0, 0, 0)] = got.get((0, 0, 0), fmpq(0)) + got.pop((1, 1, 1), fmpq(0))
    for key in fold:
        assert fold[key] == got.get(key, fmpq(0)), (mech.kind, key)


def _olh_families():
    """Explicit local-hashing families with different 3-wise collisions ``t`` (``c`` the pairwise one): all maps
    [3] → [3] (3-wise independent, t = 1/9 = c²), the affine maps u ↦ a·u + b mod 3 (t = c = 1/3: h(x) = h(x')
    forces a = 0), all maps [3] → [2] (g = 2: t = (3c − 1)/2 = 1/4)."""
    return [
        OLH(3, 3, exp_epsilon0=3, family=list(itertools.product(range(3), repeat=3))),
        OLH(
            3, 3, exp_epsilon0=2, family=[tuple((a * u + b) % 3 for u in range(3)) for a in range(3) for b in range(3)]
        ),
        OLH(3, 2, exp_epsilon0=3, family=list(itertools.product(range(2), repeat=3)), constant="family"),
    ]


@pytest.mark.parametrize("mech", _olh_families(), ids=["all-3-3", "affine", "all-3-2"])
def test_olh_triple_law_against_the_family(mech):
    # the closed form from (collision, triple) against the explicit family's rows: the mass of each hit pattern
    # (h(x) = y, h(x') = y, h(z) = y) of a report of z, enumerated over every (h, y)
    law = X.triple_hit_law(mech)
    rows, g = mech.rows(), mech.g
    got: dict = {}
    for j, h in enumerate(mech.family):
        for y in range(g):
            key = tuple(int(h[u] == y) for u in (0, 1, 2))
            got[key] = got.get(key, fmpq(0)) + rows[2][j * g + y]
    assert sum(law.values()) == 1
    for key, p in law.items():
        assert p == got.get(key, fmpq(0)), key
    assert {str(mech.triple)} <= {"1/9", "1/3", "1/4"}


def test_olh_triple_is_a_checked_stated_number():
    m = OLH(64, 8, epsilon0=2, triple=fmpq(1, 64))
    assert m.describe()["triple"] == "1/64"
    assert "triple" not in OLH(64, 8, epsilon0=2).describe()  # unchanged record text when not stated
    assert X.triple_hit_law(OLH(64, 8, epsilon0=2)) is None
    with pytest.raises(InvalidArgument, match="triple"):
        OLH(64, 8, epsilon0=2, triple=fmpq(1, 4))  # above the collision 1/8
    with pytest.raises(InvalidArgument, match="triple"):
        OLH(64, 8, epsilon0=2, constant=fmpq(1, 16), triple=fmpq(1, 32))  # below the constant hashes
    with pytest.raises(InvalidArgument, match="triple"):
        OLH(64, 4, epsilon0=2, collision=fmpq(1, 2), triple=fmpq(1, 8))  # 1 − 3c + 2t < 0
    with pytest.raises(InvalidArgument, match="triple"):
        OLH(64, 2, epsilon0=2, triple=fmpq(1, 8))  # g = 2: three values never all distinct, t = (3c − 1)/2
    assert OLH(64, 2, epsilon0=2, triple=fmpq(1, 4)).triple == fmpq(1, 4)
    with pytest.raises(InvalidArgument, match="triple"):
        OLH(3, 3, exp_epsilon0=2, family=list(itertools.product(range(3), repeat=3)), triple=fmpq(1, 9))


_OLH3 = _olh_families()
_THIRD_CASES = [
    *[
        (m, n)
        for m in (OUE(3, exp_epsilon0=3), Subset(4, 2, exp_epsilon0=2), Hadamard(3, exp_epsilon0=3))
        for n in (2, 3, 4)
    ],
    # local hashing: the explicit families (81, 27 and 16 outputs: the enumeration of the unprojected pair is the cost)
    (_OLH3[0], 2),
    *[(m, n) for m in _OLH3[1:] for n in (2, 3)],
]


@pytest.mark.parametrize(("mech", "n"), _THIRD_CASES, ids=lambda v: v.kind if hasattr(v, "kind") else str(v))
@pytest.mark.parametrize("statistic", X.LOWER_STATISTICS)
def test_third_value_is_a_lower_bound_and_matches_its_brute_force(mech, n, statistic):
    ee = fmpq(5, 4)
    v = X.third_value_delta(mech, n, exp_epsilon=ee, statistic=statistic)
    assert isinstance(v, fmpq)
    # brute force of the post-processed pair: histograms of the cells (h_x, h_x') of n reports
    law = X.triple_hit_law(mech)
    e = mech.exp_epsilon0()
    cells = [(a, b) for a in (0, 1) for b in (0, 1)]

    def cell_law(u, forward):  # u = 0: x, 1: x', 2: z
        out = dict.fromkeys(cells, fmpq(0))
        for (a, b, c), p in law.items():
            f = [e**a / e**c, e**b / e**c, fmpq(1)][u]
            # the statistic of one report: its cell, or (zero-hit) the lumped class (0, 0) when it hits z, or (joined)
            # the class (1, 1) for the report hitting z and x' but not x (forward; mirrored backward)
            if statistic == "single-hit":  # a report hitting exactly one of x, x', z: which one ((1, 1): z alone)
                cl = ((a, b) if c == 0 else (1, 1)) if a + b + c == 1 else (0, 0)
            elif statistic == "hits" or c == 0:
                cl = (a, b)
            elif statistic == "joined" and (a, b) == ((0, 1) if forward else (1, 0)):
                cl = (1, 1)
            else:
                cl = (0, 0)
            out[cl] += p * f
        return out

    def hist_law(first, forward=True):
        laws_ = [cell_law(first, forward)] + [cell_law(2, forward)] * (n - 1)
        dist = {(): fmpq(1)}
        for lw in laws_:
            new: dict = {}
            for h, p in dist.items():
                for cl, q in lw.items():
                    key = tuple(sorted(h + (cl,)))
                    new[key] = new.get(key, fmpq(0)) + p * q
            dist = new
        return dist

    P, Q = hist_law(0), hist_law(1)
    fwd = sum(max(P[h] - ee * Q.get(h, 0), 0) for h in P)
    P, Q = hist_law(0, False), hist_law(1, False)
    bwd = sum(max(Q[h] - ee * P.get(h, 0), 0) for h in Q)
    assert v == max(fwd, bwd)
    # and below the exact δ of the same (unprojected) dataset pair, hence below the worst case
    x, x2, z = 0, 1, 2
    if mech.kind == "hadamard":
        z = ((x + 1) ^ (x2 + 1)) - 1
    full = delta_dataset(mech.matrix(), [z] * (n - 1), x, x2, exp_epsilon=ee)
    assert v <= getattr(full, "value", full)


@pytest.mark.parametrize("mech", [OUE(3, exp_epsilon0=3), Subset(4, 2, exp_epsilon0=2), Hadamard(3, exp_epsilon0=3)])
def test_certified_bracket_holds_the_worst_case(mech):
    n, ee = 3, fmpq(5, 4)
    worst = worst_case(mech.matrix(), n, exp_epsilon=ee).value
    up = cb.upper_value(mech, n, exp_epsilon=ee)
    lo = cb.lower_value(mech, n, exp_epsilon=ee)
    assert lo <= worst <= up
    assert cb.EXACT_FIVE in cb.upper_bounds(mech, n, exp_epsilon=ee)


def test_lower_end_is_the_larger_family_and_olh_keeps_same_family():
    m = Hadamard(128, epsilon0=2)
    v, where = X.best_lower(m, 300, epsilon="0.4")
    same = O.same_family_delta(m, 300, epsilon="0.4")
    assert arith.endpoints(v)[0] >= arith.endpoints(same)[0]
    assert "third value" in where
    olh = OLH(16, 4, epsilon0=2)
    assert X.third_value_delta(olh, 50, epsilon="0.4") is None
    with pytest.raises(InvalidArgument, match="statistic"):
        X.third_value_delta(m, 50, epsilon="0.4", statistic="all")
    assert "first value" in X.best_lower(olh, 50, epsilon="0.4")[1]


@pytest.mark.parametrize("mech", [OUE(3, exp_epsilon0=3), Subset(4, 2, exp_epsilon0=2), Hadamard(3, exp_epsilon0=3)])
@pytest.mark.parametrize("n", [2, 5, 40])
@pytest.mark.parametrize("ee", [fmpq(1), fmpq(5, 4), fmpq(3)])
def test_third_value_upper_is_above_the_exact_third_value(mech, n, ee):
    # the Chernoff bound (Lemma K5) against the exact rational third value (the engine's exact mode, itself
    # checked against brute force above)
    exact = X.third_value_delta(mech, n, exp_epsilon=ee)
    up = X.third_value_upper(mech, n, exp_epsilon=ee)
    assert isinstance(exact, fmpq)
    assert arith.endpoints(up)[0] >= Fraction(int(exact.p), int(exact.q))


def test_chernoff_upper_against_brute_force():
    # E[(sum of n i.i.d. V)_+] by enumerating the multinomial, exact rationals
    atoms = [(fmpq(1, 2), fmpq(-1, 3)), (fmpq(1, 3), fmpq(1, 2)), (fmpq(1, 6), fmpq(-2))]
    for n in (1, 3, 7):
        exact = fmpq(0)
        for counts in itertools.product(range(n + 1), repeat=len(atoms)):
            if sum(counts) != n:
                continue
            p = fmpq(math.factorial(n))
            s = fmpq(0)
            for (pi, vi), c in zip(atoms, counts):
                p = p * pi**c / math.factorial(c)
                s += c * vi
            exact += p * max(s, 0)
        up = PP.chernoff_upper(n, atoms)
        assert arith.endpoints(up)[0] >= Fraction(int(exact.p), int(exact.q))
        assert arith.endpoints(up)[1] < 3 * Fraction(int(exact.p), int(exact.q)) + 1  # informative, not just finite


def test_best_lower_skip_keeps_the_answer(monkeypatch):
    # where the Chernoff bound skips the third value, the answer is the one computed with it
    m = SUE(16, epsilon0=2)
    for eps in ("0.3", "0.6"):
        fast = X.best_lower(m, 400, epsilon=eps)
        with monkeypatch.context() as mp:
            mp.setattr(X, "third_value_upper", lambda *a, **k: None)
            slow = X.best_lower(m, 400, epsilon=eps)
        assert fast[1] == slow[1]
        assert arith.endpoints(fast[0]) == arith.endpoints(slow[0])


# ---------------------------------------------------------------- Wang et al.'s variation-ratio bound for OUE
@pytest.mark.parametrize("k", [3, 4])
def test_variation_ratio_bound_for_oue_with_its_variation_ratio_is_refuted(k):
    """β = sup TV(R(x), R(x')) = (e−1)/(2(e+1)) for OUE (the value behind the float anchor 0.2688 at n = 10^3):
    the third-value dataset (others hold 0, the differing user 1 vs 2) has a larger exact δ than the pair."""
    e, ee, n = fmpq(3), fmpq(2), 3
    m = OUE(k, exp_epsilon0=e)
    beta = (e - 1) / (2 * (e + 1))
    assert beta == fmpq(1, 4)
    vr = O.variation_ratio_delta(n, e, beta, exp_epsilon=ee)
    witness = delta_dataset(m.matrix(), [0] * (n - 1), 1, 2, exp_epsilon=ee)
    witness = getattr(witness, "value", witness)
    assert vr == fmpq(9, 512)
    assert witness == fmpq(177, 8192) and witness > vr
    # the exhaustive worst case agrees that this dataset is the worst one here
    assert worst_case(m.matrix(), n, exp_epsilon=ee).value == witness
