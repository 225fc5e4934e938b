"""Mixed k-RR fleets in one shuffle (exact/shuffled/fleet.py): brute force ⊆ enclosure, one group = today's route,
the block bracket contains the exact sum, colluders' worst choice, bad input refused by name."""

from __future__ import annotations

import itertools
import math

import pytest
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import fleet as F
from blanket.exact.shuffled import fleet_clones as FC
from blanket.exact.shuffled import fleet_lower as FL
from blanket.exact.shuffled.krr import delta_blanket_view
from flint import arb, fmpq


def _law(rows: list) -> dict:
    """The shuffled histogram law of independent users with the given output rows (exact DP, no shared code)."""
    law = {(0,) * len(rows[0]): fmpq(1)}
    for row in rows:
        nxt: dict = {}
        for h, p in law.items():
            for y, q in enumerate(row):
                if q == 0:
                    continue
                h2 = list(h)
                h2[y] += 1
                nxt[tuple(h2)] = nxt.get(tuple(h2), fmpq(0)) + p * q
        law = nxt
    return law


def _hs(P: dict, Q: dict, ee: fmpq) -> fmpq:
    return sum((max(p - ee * Q.get(h, fmpq(0)), fmpq(0)) for h, p in P.items()), fmpq(0))


def _worst_brute(groups: list, ee: fmpq) -> tuple[fmpq, dict]:
    """max over every dataset, every target position and every x' of both directions; also per-target-group max."""
    mechs = [g[1] for g in groups for _ in range(g[0])]
    gidx = [i for i, g in enumerate(groups) for _ in range(g[0])]
    k = mechs[0].k
    best = fmpq(0)
    per: dict = {}
    for data in itertools.product(range(k), repeat=len(mechs)):
        for pos in range(len(mechs)):
            for x2 in range(k):
                if x2 == data[pos]:
                    continue
                d2 = list(data)
                d2[pos] = x2
                P = _law([m.row(x) for m, x in zip(mechs, data)])
                Q = _law([m.row(x) for m, x in zip(mechs, d2)])
                v = max(_hs(P, Q, ee), _hs(Q, P, ee))
                best = max(best, v)
                per[gidx[pos]] = max(per.get(gidx[pos], fmpq(0)), v)
    return best, per


CASES = [
    (2, [(3, 3), (2, 2)], fmpq(3, 2)),
    (2, [(2, 4), (2, 2), (1, 3)], fmpq(6, 5)),
    (3, [(2, 3), (2, 2)], fmpq(5, 4)),
]


@pytest.mark.parametrize("k,spec,ee", CASES)
def test_brute_force_within_bracket(k: int, spec: list, ee: fmpq) -> None:
    groups = [(n, KRR(k, exp_epsilon0=e)) for n, e in spec]
    worst, per = _worst_brute(groups, ee)
    up = F.delta_fleet_view(groups, exp_epsilon=ee)
    lo = F.delta_fleet_dataset(groups, exp_epsilon=ee)
    assert isinstance(up, fmpq) and isinstance(lo, fmpq)
    assert lo <= worst <= up
    assert lo > 0
    # the target's group decides: each group's view bounds the pairs whose differing user is in it
    for t in range(len(groups)):
        assert per[t] <= F.fleet_view_target(groups, t, exp_epsilon=ee)


def test_one_group_is_todays_route() -> None:
    for k, e, n, ee in ((2, 3, 7, fmpq(3, 2)), (4, 5, 9, fmpq(2)), (3, 2, 1, fmpq(1))):
        M = KRR(k, exp_epsilon0=e)
        assert F.delta_fleet_view([(n, M)], exp_epsilon=ee) == delta_blanket_view(M, n, exp_epsilon=ee)
    # large n: the two enclosures overlap
    M = KRR(2, epsilon0=1)
    a = F.delta_fleet_view([(10**5, M)], epsilon="0.02")
    b = delta_blanket_view(M, 10**5, epsilon="0.02")
    assert isinstance(a, arb) and isinstance(b, arb)
    assert a.overlaps(b)


def test_split_group_equals_one_group() -> None:
    """Two groups with the same randomizer are one group: same exact value (the Poisson binomial is a binomial)."""
    M = KRR(3, exp_epsilon0=4)
    ee = fmpq(3, 2)
    assert F.delta_fleet_view([(4, M), (3, KRR(3, exp_epsilon0=4))], exp_epsilon=ee) == F.delta_fleet_view(
        [(7, M)], exp_epsilon=ee
    )


def test_ball_bracket_contains_exact_sum() -> None:
    groups = [(20, KRR(2, exp_epsilon0=3)), (25, KRR(2, exp_epsilon0=2)), (15, KRR(2, exp_epsilon0=5))]
    ee = fmpq(11, 10)
    for t in range(3):
        ex = F.fleet_view_target(groups, t, exp_epsilon=ee)
        assert isinstance(ex, fmpq)
        ball = F.fleet_view_target(groups, t, exp_epsilon=ee, exact_max_n=0, rel="1/10", max_evals=3)
        assert isinstance(ball, arb) and ball.contains(ex)
    lo_ex = F.delta_fleet_dataset(groups, exp_epsilon=ee)
    lo_ball = F.delta_fleet_dataset(groups, exp_epsilon=ee, exact_max_n=0)
    assert isinstance(lo_ex, fmpq)
    assert arb(lo_ball).upper() <= lo_ex  # the ball route rounds the exact lower end down


def test_monotone_h() -> None:
    """Lemma F2: h(m) = E[(L_1+…+L_m)_+]/m is non-increasing (exact rationals)."""
    h = F._H(KRR(3, exp_epsilon0=4), fmpq(3, 2), fmpq(1, 2**80), 64)
    vals = [h(m) for m in range(1, 30)]
    assert all(isinstance(v, fmpq) for v in vals)
    assert all(a >= b for a, b in zip(vals, vals[1:]))


def test_colluding_zero_and_monotone() -> None:
    groups = [(6, KRR(2, exp_epsilon0=3)), (5, KRR(2, exp_epsilon0=2))]
    ee = fmpq(5, 4)
    assert F.delta_fleet_colluding(groups, 0, exp_epsilon=ee) == F.delta_fleet_view(groups, exp_epsilon=ee)
    vals = [F.delta_fleet_colluding(groups, m, exp_epsilon=ee) for m in range(0, 11)]
    assert all(a <= b for a, b in zip(vals, vals[1:]))
    # one group: colluding m is the view of n − m users
    M = KRR(2, exp_epsilon0=3)
    assert F.delta_fleet_colluding([(9, M)], 4, exp_epsilon=ee) == delta_blanket_view(M, 5, exp_epsilon=ee)


def test_colluding_worst_choice_bounds_every_choice() -> None:
    """Lemma F3: for every split of the m colluders among the groups, the honest fleet's view is ≤ the worst choice."""
    groups = [(4, KRR(2, exp_epsilon0=3)), (3, KRR(2, exp_epsilon0=2)), (3, KRR(2, exp_epsilon0=5))]
    ee = fmpq(6, 5)
    for t in range(3):
        for m in range(0, 6):
            honest, t2 = F.honest_fleet(groups, t, m)
            worst = F.fleet_view_target(honest, t2, exp_epsilon=ee)
            for split in itertools.product(*(range(g[0] + 1) for g in groups)):
                if sum(split) != m or split[t] > groups[t][0] - 1:
                    continue
                sub = [(g[0] - s, g[1]) for g, s in zip(groups, split)]
                keep = [i for i, g in enumerate(sub) if g[0] > 0]
                v = F.fleet_view_target([sub[i] for i in keep], keep.index(t), exp_epsilon=ee)
                assert v <= worst


def test_bad_input_refused_by_name() -> None:
    M = KRR(2, epsilon0=1)
    with pytest.raises(InvalidArgument, match=r"groups\[1\]\.mech"):
        F.check_fleet([(3, M), (2, KRR(3, epsilon0=1))])
    with pytest.raises(InvalidArgument, match=r"groups\[0\]\.n"):
        F.check_fleet([(0, M)])
    with pytest.raises(InvalidArgument, match="groups"):
        F.check_fleet([])
    with pytest.raises(InvalidArgument, match="colluding"):
        F.honest_fleet([(3, M)], 0, 3)
    with pytest.raises(InvalidArgument, match="target"):
        F.fleet_view_target([(3, M)], 1, epsilon="0.1")
    with pytest.raises(TypeError, match="epsilom"):
        F.delta_fleet_view([(3, M)], epsilom="0.1")  # type: ignore[call-arg]


def _w_exact(law: list, star: KRR, ee: fmpq) -> fmpq:
    """W = E[h_{t*}(B' + 1)], B' the blanket count of ``law`` minus one user of its smallest ε0: the exact view of a
    target running ``star`` placed among those users (fleet_view_target in exact rationals)."""
    top = min(range(len(law)), key=lambda i: law[i][1].exp_epsilon0())
    others = [(n - (1 if i == top else 0), m) for i, (n, m) in enumerate(law)]
    others = [g for g in others if g[0] > 0]
    v = F.fleet_view_target([*others, (1, star)], len(others), exp_epsilon=ee)
    assert isinstance(v, fmpq)
    return v


def test_shared_ball_view_encloses_the_exact_max() -> None:
    """Ball mode (one law minus its smallest-ε0 user, the largest ε0's h: Lemma F4) ≥ the exact max over targets, and
    its ball contains W computed exactly by another route; colluders too."""
    groups = [(12, KRR(3, exp_epsilon0=3)), (10, KRR(3, exp_epsilon0=2)), (8, KRR(3, exp_epsilon0=5))]
    star = groups[2][1]
    ee = fmpq(6, 5)
    ex = F.delta_fleet_view(groups, exp_epsilon=ee)
    ball = F.delta_fleet_view(groups, exp_epsilon=ee, exact_max_n=0, rel="1/50")
    assert isinstance(ex, fmpq) and isinstance(ball, arb)
    assert ex <= arb(ball.upper())
    w = _w_exact(groups, star, ee)
    assert ex <= w and arb(ball.lower()) <= w <= arb(ball.upper())
    for m in (0, 5, 17):
        ex = F.delta_fleet_colluding(groups, m, exp_epsilon=ee)
        ball = F.delta_fleet_colluding(groups, m, exp_epsilon=ee, exact_max_n=0, rel="1/50")
        assert isinstance(ex, fmpq) and isinstance(ball, arb)
        assert ex <= arb(ball.upper())
        # the honest law: all users but the m of the smallest ε0 (groups[1] first, then groups[0])
        n1 = max(groups[1][0] - m, 0)
        n0 = groups[0][0] - max(m - groups[1][0], 0)
        law = [g for g in ((n0, groups[0][1]), (n1, groups[1][1]), (8, star)) if g[0] > 0]
        w = _w_exact(law, star, ee)
        assert ex <= w and arb(ball.lower()) <= w <= arb(ball.upper())


def test_trimmed_count_law_keeps_its_promise() -> None:
    """fleet_count_law in balls (windows, product tree, trimmed ends): every entry ≤ the exact law, and the exact
    mass outside the entries' lower ends is ≤ the left-out mass."""
    parts = [(40, fmpq(1, 3)), (55, fmpq(2, 7)), (30, fmpq(1, 2)), (61, fmpq(3, 5)), (20, fmpq(1, 9))]
    exact, _, _ = F.fleet_count_law(parts, True, fmpq(1, 2**20))
    tol = fmpq(1, 2**20)
    P, off, leftout = F.fleet_count_law(parts, False, tol)
    assert len(P) < len(exact)  # something was windowed or trimmed
    covered = fmpq(0)
    for i, p in enumerate(P):
        lo = arb(p.lower())
        assert lo <= exact[off + i]
        covered += exact[off + i]
    assert 1 - covered <= arb(arb(leftout).upper())
    assert arb(leftout).upper() <= 3 * len(parts) * tol  # G windows, two trimmed ends per product


# ---- Lemma F7: the clone pair with per-user clone probabilities (exact/shuffled/fleet_clones.py) ----


def _clone_pair_enumerated(groups: list, t: int, ee: fmpq) -> fmpq:
    """H_ee of the clone pair (A + Δ, C − A + 1 − Δ) vs (A + 1 − Δ, C − A + Δ), enumerated over every clone pattern of
    the other users, A and Δ (no shared code with fleet_clones: the law of (a, b) built by hand)."""
    mt = groups[t][1]
    e = mt.exp_epsilon0()
    cs = []
    for i, (n, m) in enumerate(groups):
        cs += [2 * m.flip() / (mt.keep() + mt.flip())] * (n - (1 if i == t else 0))
    P: dict = {}
    Q: dict = {}
    for pattern in itertools.product((0, 1), repeat=len(cs)):
        w = fmpq(1)
        for u, c in zip(pattern, cs):
            w *= c if u else 1 - c
        c_ = sum(pattern)
        for a in range(c_ + 1):
            wa = w * fmpq(math.comb(c_, a), 2**c_)
            for d, pd in ((1, e / (e + 1)), (0, 1 / (e + 1))):
                kp, kq = (a + d, c_ - a + 1 - d), (a + 1 - d, c_ - a + d)
                P[kp] = P.get(kp, fmpq(0)) + wa * pd
                Q[kq] = Q.get(kq, fmpq(0)) + wa * pd
    return _hs(P, Q, ee)


@pytest.mark.parametrize("k,spec,ee", CASES)
def test_clone_pair_above_brute_force_and_equal_to_its_enumeration(k: int, spec: list, ee: fmpq) -> None:
    groups = [(n, KRR(k, exp_epsilon0=e)) for n, e in spec]
    worst, per = _worst_brute(groups, ee)
    for t in range(len(groups)):
        c = FC.fleet_clone_target(groups, t, exp_epsilon=ee)
        assert isinstance(c, fmpq)
        assert per[t] <= c
        assert c == _clone_pair_enumerated(groups, t, ee)
        if k == 2:  # c_j = 2 f_j = γ_j: the clone pair is the Poisson-binomial view
            assert c == F.fleet_view_target(groups, t, exp_epsilon=ee)
    up, name = FC.delta_fleet_upper(groups, exp_epsilon=ee)
    assert worst <= up
    view = F.delta_fleet_view(groups, exp_epsilon=ee)
    clone = max(FC.fleet_clone_target(groups, t, exp_epsilon=ee) for t in range(len(groups)))
    assert up <= min(view, clone)
    assert name in ((FC.VIEW, FC.CLONE, "both") if k > 2 else ("both",))


def test_clone_probability_is_the_largest_valid_weight_and_fmt21_generic_is_not() -> None:
    """c_j = 2 f_j/(p_t + f_t): R_j(y) − (c/2)(R_t(x) + R_t(x')) ≥ 0 with equality somewhere; e^{−ε0,j} fails."""
    t, j = KRR(10, exp_epsilon0=20), KRR(10, exp_epsilon0=fmpq(33, 20))
    c = FC.clone_probability(t, j)
    x, x2 = 0, 1
    mix = [(a + b) / 2 for a, b in zip(t.row(x), t.row(x2))]
    rests = [[r - c * m for r, m in zip(j.row(y), mix)] for y in range(10)]
    assert all(v >= 0 for rest in rests for v in rest)
    assert any(v == 0 for rest in rests for v in rest)
    naive = 1 / j.exp_epsilon0()  # FMT21's e^{-ε0,j} with ε0,j = log(33/20) ≈ 0.5, target at log 20 ≈ 3
    assert any(r - naive * m < 0 for r, m in zip(j.row(2), mix))


def test_clone_ball_route_and_colluders() -> None:
    groups = [(12, KRR(3, exp_epsilon0=3)), (10, KRR(3, exp_epsilon0=2)), (8, KRR(3, exp_epsilon0=5))]
    ee = fmpq(6, 5)
    for m in (0, 5):
        ex = max(FC.fleet_clone_target(*F.honest_fleet(groups, t, m), exp_epsilon=ee) for t in range(len(groups)))
        up, name = FC.delta_fleet_upper(groups, m, exp_epsilon=ee)
        assert isinstance(up, fmpq) and up <= ex and name == FC.VIEW
        ball, bname = FC.delta_fleet_upper(groups, m, exp_epsilon=ee, exact_max_n=0, rel="1/50")
        assert isinstance(ball, arb) and up <= arb(ball.upper())
        clone_ball = FC._shared_clone(
            F._remove_top(F.check_fleet(groups), m), groups[2][1], ee, fmpq(1, 2**80), 0, fmpq(1, 50), 200
        )
        assert ex <= arb(arith.ball(clone_ball).upper())
        assert bname in (FC.VIEW, FC.CLONE, "both")
    with pytest.raises(InvalidArgument, match="colluding"):
        FC.delta_fleet_upper(groups, 30, exp_epsilon=ee)


# ---- Lemma F8: the two-count lower end (exact/shuffled/fleet_lower.py) ----


@pytest.mark.parametrize(
    "spec,ee", [([(3, 3), (2, 2)], fmpq(3, 2)), ([(2, 8), (3, 3)], fmpq(11, 10)), ([(4, 8), (2, 3)], fmpq(3, 2))]
)
def test_two_counts_equals_projected_histogram_law(spec: list, ee: fmpq) -> None:
    """The exact two-count value = H of the full histogram law (built user by user) projected to (N_x, N_x'); ≤ the
    full histogram's H (post-processing) and ≤ the Poisson-binomial view."""
    k = 4
    groups = [(n, KRR(k, exp_epsilon0=e)) for n, e in spec]
    lo = FL.delta_fleet_two_counts(groups, exp_epsilon=ee)
    assert isinstance(lo, fmpq) and lo > 0
    mechs = [m for n, m in groups for _ in range(n)]
    star = max(range(len(groups)), key=lambda i: groups[i][1].exp_epsilon0())
    pos = sum(n for n, _ in groups[:star])
    d1, d2 = [2] * len(mechs), [2] * len(mechs)
    d1[pos], d2[pos] = 0, 1
    P = _law([m.row(x) for m, x in zip(mechs, d1)])
    Q = _law([m.row(x) for m, x in zip(mechs, d2)])

    def project(L: dict) -> dict:
        out: dict = {}
        for h, p in L.items():
            out[(h[0], h[1])] = out.get((h[0], h[1]), fmpq(0)) + p
        return out

    assert lo == _hs(project(P), project(Q), ee)
    assert lo <= _hs(P, Q, ee)
    # the concrete pair's full δ is ≤ the worst case ≤ the view (test_brute_force_within_bracket checks the latter)
    assert _hs(P, Q, ee) <= F.delta_fleet_view(groups, exp_epsilon=ee)


def test_two_counts_ball_route_below_exact_and_close() -> None:
    groups = [(20, KRR(4, exp_epsilon0=3)), (25, KRR(4, exp_epsilon0=2)), (15, KRR(4, exp_epsilon0=5))]
    for ee in (fmpq(11, 10), fmpq(3, 2)):
        ex = FL.delta_fleet_two_counts(groups, exp_epsilon=ee)
        ball = FL.delta_fleet_two_counts(groups, exp_epsilon=ee, exact_max_n=0)
        assert isinstance(ex, fmpq) and isinstance(ball, arb)
        assert arb(ball.upper()) <= ex
        assert ex - arb(ball.lower()) <= ex / 100  # the float thresholds and the ±8σ cut lose < 1 %
        # colluders: the honest fleet of the same adversary's choice (smallest ε0 first)
        c = FL.delta_fleet_two_counts(groups, 10, exp_epsilon=ee)
        assert c == FL.delta_fleet_two_counts(
            [(20, groups[0][1]), (15, groups[1][1]), (15, groups[2][1])], exp_epsilon=ee
        )
    assert FL.delta_fleet_two_counts([(5, KRR(2, exp_epsilon0=3))], exp_epsilon=fmpq(11, 10)) == 0
