"""FMT21's adaptive model for generic ε0-LDP (issue 25): exact small-n worst cases and Lemma G1's adaptive proof.

The model (the plain ``ldp`` record): data ``D = (x0, y_2..y_n)``, ``D' = (x1, y_2..y_n)``; a uniform permutation
``π``; ``z_i = R^(i)(x_π(i))`` where ``R^(i)`` is any ε0-LDP randomizer chosen from ``z_1..z_{i−1}``; the adversary
sees ``z_1..z_n`` in order.  Everything here is exact rationals (flint ``fmpq``); docs/mechanisms.md, "Generic
ε0-LDP in FMT21's adaptive model", states the method and the findings.

* **The exact worst case over every adaptive sequence** (:func:`adaptive_worst`): on a finite domain every ε0-LDP
  randomizer is a post-processing of one whose output columns are rays ``e^{ε0·h(x)}`` (``h ∈ {0,1}^k`` not
  constant), one output per ray; so a randomizer is a weight vector ``w`` in the polytope
  ``{w ≥ 0 : Σ_h w_h e^{ε0 h(x)} = 1 for every x}``.  The masses after a history are positively homogeneous, so the
  best continuation is ``F(s) = max_{w vertex} Σ_h w_h F(T_h s)``: one recursion over rays, a linear maximum per node.
  Independent route: the argmax strategy's δ by brute force over all ``n!`` permutations and output sequences.
* **The proof's identity** (Lemma G1 in the adaptive model): the flagged view's ``P_D − e^ε P_{D'}`` equals
  ``(1/n)·P_Ψ·Σ_{t∈S} G_t`` where ``Ψ`` is the adapted process with the Bayesian-filter LO kernel, checked view by view
  for random adaptive strategies on heterogeneous datasets.
* **The findings**: the exact worst case is ≤ Lemma G1's value in every cell (equal at n = 2 and in some n = 3 cells), above the best
  same-randomizer vertex and above the 3-RR third-value lower end at n ≥ 4 (adaptivity helps the adversary, not
  beyond Lemma G1), and ≤ the FOCS 2021 clone pair.
"""

from __future__ import annotations

import itertools
import math
import random
from functools import cache

import pytest
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.shuffled import generic_ldp as g
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.exact.shuffled.oracles import clone_delta
from flint import fmpq, fmpq_mat

ZERO = fmpq(0)


# ----------------------------------------------------------------------------------------------- the polytope


@cache
def rays(k: int, e: fmpq) -> tuple:
    """The extreme rays ``e^{h(x)}`` of the cone of ε0-LDP columns on k inputs (h not constant)."""
    return tuple(tuple(e if b else fmpq(1) for b in h) for h in itertools.product((0, 1), repeat=k) if 0 < sum(h) < k)


@cache
def vertices(k: int, e: fmpq) -> tuple:
    """The vertices of ``{w ≥ 0 : Σ_h w_h ray_h(x) = 1 ∀x}`` (basic feasible solutions on k rays)."""
    rs = rays(k, e)
    found = set()
    for sub in itertools.combinations(range(len(rs)), k):
        m = fmpq_mat(k, k, [rs[j][x] for x in range(k) for j in sub])
        if m.det() == 0:
            continue
        sol = m.solve(fmpq_mat(k, 1, [1] * k))
        w = [sol[i, 0] for i in range(k)]
        if all(v >= 0 for v in w):
            full = [ZERO] * len(rs)
            for j, v in zip(sub, w):
                full[j] = v
            found.add(tuple(full))
    return tuple(sorted(found))


def matrix(k: int, e: fmpq, w: tuple) -> list:
    """The randomizer of weight vector ``w`` as rows ``R(x)(y)`` over its used rays."""
    rs = rays(k, e)
    used = [j for j in range(len(rs)) if w[j] != 0]
    return [[w[j] * rs[j][x] for j in used] for x in range(k)]


def test_vertices_are_epsilon0_ldp_randomizers_and_include_the_known_ones():
    for k, e in ((3, fmpq(2)), (3, fmpq(3)), (4, fmpq(2))):
        vs = vertices(k, e)
        for w in vs:
            rows = matrix(k, e, w)
            assert all(sum(r) == 1 for r in rows)
            ratios = {rows[a][y] / rows[b][y] for a in range(k) for b in range(k) for y in range(len(rows[0]))}
            assert max(ratios) <= e and min(ratios) >= 1 / e
        # k-RR (k outputs, weight 1/(e+k−1) each on the one-hot rays) and "x vs rest" binary RR are vertices
        krr = tuple(fmpq(1, 1) / (e + k - 1) if sum(1 for c in r if c == e) == 1 else ZERO for r in rays(k, e))
        assert krr in vs
    assert len(vertices(3, fmpq(2))) == 5  # 3 "x vs rest", 3-RR, and its complement (two e's per column)


# ----------------------------------------------------------------------------------------------- the model


def _step(state: dict, ray: tuple) -> dict:
    """Masses after one more report of unit-weight column ``ray``: the reporting user is uniform among the remaining."""
    new: dict = {}
    for rest, m in state.items():
        for v in set(rest):
            left = list(rest)
            left.remove(v)
            key = tuple(left)
            new[key] = new.get(key, ZERO) + m * rest.count(v) * ray[v] / len(rest)
    return new


def _key(state: dict) -> tuple:
    return tuple(sorted(state.items()))


def adaptive_worst(k: int, e: fmpq, ee: fmpq, d: tuple, d2: tuple) -> tuple:
    """``(value, strategy)``: the exact sup over adaptive sequences of ``H_ee(z(D) ‖ z(D'))`` and a maximiser
    (a dict from histories — tuples of ray indices — to vertex weight vectors)."""
    rs, vs = rays(k, e), vertices(k, e)

    @cache
    def f(sa: tuple, sb: tuple) -> tuple:
        a, b = dict(sa), dict(sb)
        if () in a or () in b:  # every user has reported
            v = a.get((), ZERO) - ee * b.get((), ZERO)
            return (v if v > 0 else ZERO), None
        kids = [f(_key(_step(a, r)), _key(_step(b, r)))[0] for r in rs]
        vals = [sum((w * c for w, c in zip(vv, kids)), ZERO) for vv in vs]
        best = max(vals)
        return best, vs[vals.index(best)]

    strategy: dict = {}

    def walk(a: dict, b: dict, hist: tuple) -> None:
        _, w = f(_key(a), _key(b))
        if w is None:
            return
        strategy[hist] = w
        for j, r in enumerate(rs):
            if w[j] != 0:
                walk(_step(a, r), _step(b, r), hist + (j,))

    a0, b0 = {tuple(sorted(d)): fmpq(1)}, {tuple(sorted(d2)): fmpq(1)}
    walk(a0, b0, ())
    return f(_key(a0), _key(b0))[0], strategy


def brute_delta(k: int, e: fmpq, ee: fmpq, d: tuple, d2: tuple, strategy) -> fmpq:
    """``H_ee`` of an adaptive strategy (history → weight vector) by brute force over every permutation and output
    sequence (the independent route)."""
    rs, n = rays(k, e), len(d)
    perms = list(itertools.permutations(range(n)))

    def law(data: tuple) -> dict:
        out: dict = {}

        def rec(hist: tuple, probs: list) -> None:
            if len(hist) == n:
                out[hist] = sum(probs, ZERO) / len(perms)
                return
            w = strategy(hist)
            for j, r in enumerate(rs):
                if w[j] != 0:
                    rec(hist + (j,), [pr * w[j] * r[data[p[len(hist)]]] for pr, p in zip(probs, perms)])

        rec((), [fmpq(1)] * len(perms))
        return out

    p, q = law(d), law(d2)
    return sum((max(p[h] - ee * q.get(h, ZERO), ZERO) for h in p), ZERO)


def others_datasets(n: int, k: int) -> list:
    """Every multiset of the other users' values on {0..k−1} (0 = x0, 1 = x1; third values labelled in order)."""
    out = []
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        thirds = sorted({v for v in others if v >= 2})
        if thirds == list(range(2, 2 + len(thirds))):
            out.append(others)
    return out


def exact_worst(k: int, n: int, e: fmpq, ee: fmpq, homogeneous_only: bool = False) -> tuple:
    """Max over every dataset of the others (both orders) of :func:`adaptive_worst`, with the witness."""
    best: tuple = (fmpq(-1), None, None)
    for others in others_datasets(n, k):
        if homogeneous_only and len(set(others)) > 1:
            continue
        for d0, d1 in ((0, 1), (1, 0)):
            d, d2 = (d0,) + others, (d1,) + others
            v, strat = adaptive_worst(k, e, ee, d, d2)
            if v > best[0]:
                best = (v, (d, d2), strat)
    return best


def same_vertex_worst(k: int, n: int, e: fmpq, ee: fmpq) -> fmpq:
    """Best single vertex randomizer run by every user, over every dataset (brute force, both orders)."""
    best = ZERO
    for w in vertices(k, e):
        mech = FiniteRandomizer(matrix(k, e, w))
        for others in others_datasets(n, k):
            for d0, d1 in ((0, 1), (1, 0)):
                best = max(best, delta_brute(mech, list((d0,) + others), list((d1,) + others), exp_epsilon=ee))
    return best


def bounds(e: fmpq, n: int, ee: fmpq) -> tuple:
    ldp = LDP(exp_epsilon0=e)
    return (
        g.same_randomizer_delta(ldp, n, exp_epsilon=ee),
        clone_delta(ldp, n, exp_epsilon=ee),
        g.three_rr_third_delta(ldp, n, exp_epsilon=ee),
    )


# ----------------------------------------------------------------------------------------------- the tests


@pytest.mark.parametrize(("k", "n", "e", "ee"), [(3, 2, 2, "5/4"), (3, 3, 3, "3/2"), (4, 3, 2, "1"), (3, 4, 3, "1")])
def test_recursion_equals_brute_force_of_its_maximiser(k, n, e, ee):
    e, ee = fmpq(e), fmpq(ee)
    for others in others_datasets(n, k)[:4]:
        d, d2 = (0,) + others, (1,) + others
        v, strat = adaptive_worst(k, e, ee, d, d2)
        assert brute_delta(k, e, ee, d, d2, strat.__getitem__) == v


def test_random_adaptive_strategies_never_exceed_the_recursion():
    rng = random.Random(9)
    k, n, e, ee = 3, 3, fmpq(3), fmpq(5, 4)
    vs = vertices(k, e)
    for others in others_datasets(n, k):
        d, d2 = (0,) + others, (1,) + others
        v, _ = adaptive_worst(k, e, ee, d, d2)
        for _ in range(3):
            table: dict = {}
            strat = lambda h, t=table: t.setdefault(h, rng.choice(vs))  # noqa: E731
            assert brute_delta(k, e, ee, d, d2, strat) <= v


def test_same_randomizer_vertices_by_brute_force_match_the_model():
    """A fixed strategy (one vertex for every history) is the shuffled same-randomizer case: the model's brute force
    equals exact.shuffled.bruteforce on the vertex's matrix (every vertex, others on the third value)."""
    e, ee = fmpq(3), fmpq(5, 4)
    for w in vertices(3, e):
        for n in (2, 3):
            d, d2 = (0,) + (2,) * (n - 1), (1,) + (2,) * (n - 1)
            got = brute_delta(3, e, ee, d, d2, lambda h, w=w: w)
            mech = FiniteRandomizer(matrix(3, e, w))
            assert got == delta_brute(mech, list(d), list(d2), exp_epsilon=ee)


CELLS = [  # (k, n, e^{ε0}, e^ε): every cell runs in well under a second
    (3, 2, 2, "1"),
    (3, 2, 3, "3/2"),
    (3, 3, 2, "5/4"),
    (3, 3, 3, "1"),
    (4, 3, 2, "1"),
    (4, 3, 3, "5/4"),
    (3, 4, 2, "1"),
    (3, 4, 3, "1"),
    (3, 4, 3, "5/4"),
    (3, 4, 3, "3/2"),
    (3, 4, 3, "2"),
]


@pytest.mark.parametrize(("k", "n", "e", "ee"), CELLS)
def test_exact_adaptive_worst_case_against_the_bounds(k, n, e, ee):
    """Lemma G1 (proved in the adaptive model, docs/mechanisms.md) is ≥ the exact worst case over every adaptive
    sequence and every dataset; the FOCS 2021 clone pair is above both; at n = 2 they are equal (binary RR attains
    Lemma G1), so a bound below Lemma G1 fails here."""
    e, ee = fmpq(e), fmpq(ee)
    worst, _, _ = exact_worst(k, n, e, ee)
    g1, clone, three = bounds(e, n, ee)
    assert worst <= g1 <= clone
    assert worst >= three  # 3-RR is one (non-adaptive) member
    if n == 2:
        assert worst == g1


@pytest.mark.parametrize(("n", "e", "ee"), [(4, 3, "1"), (4, 3, "5/4"), (4, 2, "1")])
def test_adaptivity_beats_one_randomizer_and_the_three_rr_lower_end_but_not_lemma_g1(n, e, ee):
    """The finding: with others on a third value an adaptive sequence is strictly worse than every single vertex
    randomizer (and than the 3-RR third-value lower end), and still strictly below Lemma G1."""
    e, ee = fmpq(e), fmpq(ee)
    worst, (d, d2), _ = exact_worst(3, n, e, ee)
    g1, _, three = bounds(e, n, ee)
    same = same_vertex_worst(3, n, e, ee)
    assert same < worst < g1 and three < worst


def _flagged_check(k: int, e: fmpq, ee: fmpq, d: tuple, d2: tuple, strategy) -> tuple:
    """The proof's steps for one strategy, view by view: returns (true H, flagged H, (1/n)E_Ψ[(ΣG)_+])."""
    rs, n = rays(k, e), len(d)
    perms = list(itertools.permutations(range(n)))
    others = d[1:]
    flagged_h = psi_h = ZERO
    true_p: dict = {}
    true_q: dict = {}
    for zs in itertools.product(range(len(rs)), repeat=n):
        ws = []
        ok = True
        for i in range(n):
            w = strategy(zs[:i])
            if w[zs[i]] == 0:
                ok = False
                break
            ws.append(w)
        if not ok:
            continue
        col = [[ws[i][zs[i]] * rs[zs[i]][x] for x in range(k)] for i in range(n)]  # R_i(x)(z_i)
        p = [col[i][d[0]] for i in range(n)]
        q = [col[i][d2[0]] for i in range(n)]
        beta = [max(p[i], q[i]) / e for i in range(n)]
        gam = [sum((ws[i][j] * max(rs[j][d[0]], rs[j][d2[0]]) / e for j in range(len(rs))), ZERO) for i in range(n)]
        for flags in itertools.product((True, False), repeat=n):  # True: blanket step S
            s_set = [i for i in range(n) if flags[i]]

            def flagged(target_row: list) -> fmpq:
                tot = ZERO
                for perm in perms:  # perm[i] = the user at position i; user 0 is the target
                    pr = fmpq(1)
                    for i in range(n):
                        u = perm[i]
                        if u == 0:
                            pr *= target_row[i] if flags[i] else ZERO
                        else:
                            pr *= beta[i] if flags[i] else col[i][others[u - 1]] - beta[i]
                    tot += pr
                return tot / math.factorial(n)

            pd, pd2 = flagged(p), flagged(q)
            true_p[zs] = true_p.get(zs, ZERO) + pd
            true_q[zs] = true_q.get(zs, ZERO) + pd2
            # Ψ: blanket steps weigh β_i(z_i); LO steps the Bayesian filter over injective maps (uniform prior)
            lo = [i for i in range(n) if not flags[i]]
            if len(lo) <= n - 1:
                maps = list(itertools.permutations(range(n - 1), len(lo)))
                avg = sum(
                    (math.prod((col[i][others[u]] - beta[i] for i, u in zip(lo, m)), start=fmpq(1)) for m in maps),
                    ZERO,
                ) / len(maps)
                # every LO part R_i(x_u) − β_i is ≥ 0 at every output and has mass 1 − γ_i, whoever u is
                for i in lo:
                    for u in others:
                        parts = [ws[i][j] * (rs[j][u] - max(rs[j][d[0]], rs[j][d2[0]]) / e) for j in range(len(rs))]
                        assert min(parts) >= 0 and sum(parts, ZERO) == 1 - gam[i]
                # the filter run step by step: λ_i (the posterior mixture of LO parts) is a kernel of mass 1 − γ_i at
                # each LO step, and the product of its values at the reports is the average over injective maps

                def lo_part(i: int, u: int, j: int) -> fmpq:
                    return ws[i][j] * (rs[j][others[u]] - max(rs[j][d[0]], rs[j][d2[0]]) / e)

                post: dict = {(): fmpq(1)}
                prod = fmpq(1)
                for i in lo:
                    tot = sum(post.values(), ZERO)
                    if tot == 0:
                        prod = ZERO
                        break

                    def lam(j: int, i: int = i, post: dict = post, tot: fmpq = tot) -> fmpq:
                        return (
                            sum(
                                (
                                    w * lo_part(i, u, j) / (n - 1 - len(m))
                                    for m, w in post.items()
                                    for u in range(n - 1)
                                    if u not in m
                                ),
                                ZERO,
                            )
                            / tot
                        )

                    used = [j for j in range(len(rs)) if ws[i][j] != 0]
                    assert sum((lam(j) for j in used), ZERO) == 1 - gam[i]
                    prod *= lam(zs[i])
                    post = {
                        m + (u,): w * lo_part(i, u, zs[i]) / (n - 1 - len(m))
                        for m, w in post.items()
                        for u in range(n - 1)
                        if u not in m
                    }
                assert prod == avg
            else:
                avg = ZERO
            psi = math.prod((beta[i] for i in s_set), start=fmpq(1)) * avg
            gsum = sum(((p[i] - ee * q[i]) / beta[i] for i in s_set), ZERO)
            if s_set:
                assert pd - ee * pd2 == psi * gsum / n
            else:
                assert pd == 0 and pd2 == 0
            flagged_h += max(pd - ee * pd2, ZERO)
            psi_h += psi * max(gsum, ZERO) / n
    true_h = sum((max(true_p[z] - ee * true_q[z], ZERO) for z in true_p), ZERO)
    return true_h, flagged_h, psi_h


@pytest.mark.parametrize(("d", "d2"), [((0, 2, 3), (1, 2, 3)), ((0, 0, 2), (1, 0, 2)), ((1, 3, 0), (0, 3, 0))])
def test_the_adaptive_proof_identity_view_by_view_on_heterogeneous_datasets(d, d2):
    """Lemma G1's adaptive proof, step by step, for random adaptive strategies on heterogeneous others (k = 4, n = 3):
    the flagged view's marginal is the model's law; ``P_D − e^ε P_{D'} = (1/n)·P_Ψ·Σ_{t∈S} G_t`` exactly; the filter
    is a kernel of mass ``1 − γ_i``; and true H ≤ flagged H = (1/n)E_Ψ[(ΣG)_+] ≤ Lemma G1."""
    rng = random.Random(25)
    k, e = 4, fmpq(3)
    vs = vertices(k, e)
    for ee in (fmpq(1), fmpq(3, 2)):
        for _ in range(2):
            table: dict = {}
            strat = lambda h, t=table: t.setdefault(h, rng.choice(vs))  # noqa: E731
            true_h, flagged_h, psi_h = _flagged_check(k, e, ee, d, d2, strat)
            assert true_h == brute_delta(k, e, ee, d, d2, strat)
            g1 = bounds(e, len(d), ee)[0]
            assert true_h <= flagged_h == psi_h <= g1


def test_convex_order_of_every_vertex_pair_g_law():
    """Step 3 of the proof: for every vertex randomizer and every pair of inputs, the law of
    ``G = (p − e^ε q)/β`` (mass ``β``; 0 with mass ``1 − γ``) is ≤ binary RR's in the convex order: same mean
    ``1 − e^ε`` and ``E(G − c)_+ ≤ E(G* − c)_+`` at every knot ``c`` of both laws."""
    for k, e in ((3, fmpq(3)), (4, fmpq(2))):
        for ee in (fmpq(1), fmpq(5, 4), e):
            star = [(1 / (e + 1), e - ee), (1 / (e + 1), 1 - ee * e), ((e - 1) / (e + 1), ZERO)]
            for w in vertices(k, e):
                rows = matrix(k, e, w)
                for a, b in itertools.permutations(range(k), 2):
                    law = []
                    for y in range(len(rows[0])):
                        beta = max(rows[a][y], rows[b][y]) / e
                        law.append((beta, (rows[a][y] - ee * rows[b][y]) / beta))
                    law.append((1 - sum((m for m, _ in law), ZERO), ZERO))
                    assert sum((m * v for m, v in law), ZERO) == 1 - ee == sum((m * v for m, v in star), ZERO)
                    for c in {v for _, v in law} | {v for _, v in star}:
                        lhs = sum((m * max(v - c, ZERO) for m, v in law), ZERO)
                        rhs = sum((m * max(v - c, ZERO) for m, v in star), ZERO)
                        assert lhs <= rhs


# ----------------------------------------------------------------------------------------------- the wiring


def test_plain_ldp_record_uses_lemma_g1_adaptive_route_pair_and_registry():
    """The plain ``ldp`` record (FMT21's model): its upper routes include Lemma G1 [adaptive], which decides at
    ε0 = 2, n = 10³; its rounds (also sampled) compose Lemma G1's pair, whose ``H`` is the route's value exactly and
    is above the exact adaptive worst case (n = 4, every dataset of the others on a 3-value domain); the registry
    entry's symbolic check passes."""
    from blanket.exact.accounting import certified as cb
    from blanket.exact.accounting import pld
    from blanket.exact.accounting.accountant import Shuffled
    from blanket.exact.accounting.sampled import Sampled
    from blanket.proofs import core

    ldp = LDP(exp_epsilon0=3)
    routes = {r.name: r for r in cb.upper_routes(ldp, 4)}
    assert routes[cb.ADAPTIVE_G1].results == ("Lemma G1 [adaptive]",)
    _, name, _ = cb.best_upper(LDP(2), 1000, epsilon="0.39")
    assert name == cb.ADAPTIVE_G1
    pair = Shuffled(ldp, 4).dominating_pair()
    assert pair.kind == "lemma-g1"
    atoms = pair.atoms()
    for ee in (fmpq(1), fmpq(5, 4), fmpq(2)):
        want = g.adaptive_model_delta(ldp, 4, exp_epsilon=ee)
        assert pld.hockey_stick(atoms, ee) == want == routes[cb.ADAPTIVE_G1].compute(exp_epsilon=ee)
        assert exact_worst(3, 4, fmpq(3), ee)[0] <= want
    assert Sampled(Shuffled(ldp, 4), "1/2").dominating_pair().kind == "lemma-g1"
    assert core.get("Lemma G1 [adaptive]").check_symbolic().proved is True
