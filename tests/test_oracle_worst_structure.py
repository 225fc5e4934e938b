"""Unary encoding's worst case over datasets: the statements of docs/reference/oracles.md §6, in exact rationals.

* Lemma U (location reduction): the pair's δ equals E_ζ[h(π(ζ))], computed here from its own definition (the bits
  at the third values ζ, the posterior of the set U of positions of the target and the holders of x, x', the
  conditional laws of the bits at x, x') and checked against the explicit matrix enumerated over histograms
  (exact.shuffled.enumerate); dropping ζ (π replaced by the prior) must give less.
* Conjecture M (merging two third-value groups never lowers δ; status uncertain): the recorded evidence at k = 4.
* The two partial revealings b1, b2 are upper bounds for every dataset (data processing), and their minimum's worst
  case lies strictly between the exhaustive worst case and Lemma 5.3 (n = 4).
* The Farkas certificate that the merged location experiment is not Blackwell-above the split one once a second
  position is plain (floats choose the certificate, exact rationals check it).
* Conjecture M without holders, Blackwell form, at n = 3 (three (p, q)) and n = 4 (slow): an exact rational garbling
  from the merged no-holder location experiment to the split one (floats choose the support, fmpq checks it; §7).
* The worst dataset is not always the third value or the same family (§7): certified counterexamples (OUE n = 3 by
  brute force over ordered tuples and by the enumeration; n = 6 a mixed dataset 10 % above both, the exhaustive worst).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from blanket.exact.mechanisms.oracles import OUE, SUE
from blanket.exact.shuffled.enumerate import delta_dataset, histogram_law, worst_case
from blanket.exact.shuffled.oracles import blanket_view_delta
from flint import fmpq


def _bern(theta, bit):
    return theta if bit else 1 - theta


def _arrangements(labels):
    return sorted(set(itertools.permutations(labels)))


def _zeta_given_u(n: int, m: int, p, q, third: list, u: tuple, zeta: tuple) -> fmpq:
    """P(ζ | U): the bits of the n positions at the m third-value columns, the third-value holders (labels
    ``third``) arranged uniformly over the positions outside ``U``, every other position Bern(q) there."""
    outside = [i for i in range(n) if i not in u]
    arr = _arrangements(third)
    tot = fmpq(0)
    for a in arr:
        lab = dict(zip(outside, a, strict=True))
        pr = fmpq(1)
        for pos in range(n):
            for col in range(m):
                pr *= _bern(p if lab.get(pos) == col else q, zeta[pos * m + col])
        tot += pr
    return tot / len(arr)


def _lemma_u(p, q, A, B, lam, ee, *, drop_zeta=False):
    """δ of (x, rest) vs (x', rest) by Lemma U: Σ_ζ Σ_ab (Σ_U P(U) G_U(ζ) (F^x_U − e^ε F^x'_U)(ab))_+."""
    m = len(lam)
    third = [lab for lab, s in enumerate(lam) for _ in range(s)]
    n = 1 + A + B + len(third)
    r = 1 + A + B
    us = list(itertools.combinations(range(n), r))
    prior = fmpq(1, len(us))
    zetas = list(itertools.product((0, 1), repeat=n * m))
    abs_ = list(itertools.product(((0, 0), (0, 1), (1, 0), (1, 1)), repeat=n))
    law = {"T0": (p, q), "T1": (q, p), "X": (p, q), "X2": (q, p), None: (q, q)}

    def g(u, zeta):  # law of ζ given U: third-value holders arranged uniformly outside U
        return _zeta_given_u(n, m, p, q, third, u, zeta)

    def f(u, target):  # law of (a, b) given U: target and holders arranged uniformly inside U
        arr = _arrangements([target] + ["X"] * A + ["X2"] * B)
        out = []
        for ab in abs_:
            tot = fmpq(0)
            for a in arr:
                lab = dict(zip(u, a, strict=True))
                pr = fmpq(1)
                for pos in range(n):
                    la, lb = law[lab.get(pos)]
                    pr *= _bern(la, ab[pos][0]) * _bern(lb, ab[pos][1])
                tot += pr
            out.append(tot / len(arr))
        return out

    w = {u: [fx - ee * fy for fx, fy in zip(f(u, "T0"), f(u, "T1"), strict=True)] for u in us}
    total = fmpq(0)
    for zeta in [None] if drop_zeta else zetas:
        c = {u: prior * (fmpq(1) if drop_zeta else g(u, zeta)) for u in us}
        for i in range(len(abs_)):
            s = sum((c[u] * w[u][i] for u in us), fmpq(0))
            if s > 0:
                total += s
    return total


def _others(A, B, lam):
    return [0] * A + [1] * B + [2 + lab for lab, s in enumerate(lam) for _ in range(s)]


@pytest.mark.parametrize(
    ("A", "B", "lam"),
    [
        (0, 0, (2,)),
        (0, 0, (1, 1)),
        (1, 0, (1,)),
        (0, 1, (1,)),
        (1, 1, ()),
        (0, 0, (2, 1)),
        (1, 0, (1, 1)),
        (0, 1, (2,)),
    ],
)
@pytest.mark.parametrize("ee", [fmpq(1), fmpq(3, 2)])
def test_lemma_u_equals_the_matrix(A, B, lam, ee):
    p, q = fmpq(1, 2), fmpq(1, 4)  # OUE, e^{ε0} = 3
    mech = OUE(2 + len(lam), exp_epsilon0=3)
    assert (mech.p, mech.q) == (p, q)
    direct = delta_dataset(mech.matrix(), _others(A, B, lam), 0, 1, exp_epsilon=ee)
    assert _lemma_u(p, q, A, B, lam, ee) == direct
    if lam:  # the third-value bits are informative: dropping them (π = prior) loses
        assert _lemma_u(p, q, A, B, lam, ee, drop_zeta=True) < direct


class _Exact:
    """Exact δ of datasets of one record (k = 4), with an extra input 4 = a pure Bern(q)^4 draw (an unmarked user)."""

    def __init__(self, mech):
        rows = [list(r) for r in mech.rows()]
        rows.append(
            [math.prod((_bern(mech.q, b) for b in y), start=fmpq(1)) for y in itertools.product((0, 1), repeat=4)]
        )
        self.den = math.lcm(*(int(v.q) for r in rows for v in r))
        self.rows = [[int(v * self.den) for v in r] for r in rows]
        self.cache: dict = {}

    def delta(self, others, ee):
        """max of both directions of (0, others) vs (1, others)."""
        key = (tuple(sorted(others)), ee)
        if key not in self.cache:
            p0 = histogram_law(self.rows, sorted(others) + [0])
            p1 = histogram_law(self.rows, sorted(others) + [1])
            scale = self.den ** (len(others) + 1)

            def hs(a, b):
                u, v = int(ee.p), int(ee.q)
                return fmpq(sum(max(0, v * w - u * b.get(h, 0)) for h, w in a.items()), v * scale)

            self.cache[key] = max(hs(p0, p1), hs(p1, p0))
        return self.cache[key]


def _datasets(n):
    for A in range(n):
        for B in range(n - A):
            C = n - 1 - A - B
            lams = [()] if C == 0 else [(C,)] + [(s, C - s) for s in range(1, C // 2 + 1)]
            for lam in lams:
                yield A, B, lam


def _check_merges(mech, sizes, ees):
    ex = _Exact(mech)
    for n in sizes:
        for A, B, lam in _datasets(n):
            if len(lam) == 2:
                for ee in ees:
                    assert ex.delta(_others(A, B, (sum(lam),)), ee) >= ex.delta(_others(A, B, lam), ee)


@pytest.mark.parametrize("mech", [OUE(4, exp_epsilon0=3), SUE(4, exp_half_epsilon0=2)], ids=["oue", "sue"])
def test_merging_never_lowers_delta_small(mech):
    # Conjecture M (uncertain): every merge of two groups at k = 4, n = 4, every (A, B); a violation fails here
    _check_merges(mech, (4,), (fmpq(1), fmpq(3, 2), fmpq(2)))


@pytest.mark.slow
@pytest.mark.parametrize(
    "mech",
    [OUE(4, exp_epsilon0=3), SUE(4, exp_half_epsilon0=2), OUE(4, exp_epsilon0=7), SUE(4, exp_half_epsilon0=3)],
    ids=["oue3", "sue2", "oue7", "sue3"],
)
def test_merging_never_lowers_delta_n5(mech, slow_level):
    # the same at n = 5 (reduced: one e^ε; full: five, as recorded in docs/reference/oracles.md §6)
    ees = (fmpq(3, 2),) if slow_level == "reduced" else (fmpq(1), fmpq(3, 2), fmpq(2), fmpq(3), fmpq(5))
    _check_merges(mech, (5,), ees)


def test_two_revealings_bound_every_dataset():
    mech = OUE(4, exp_epsilon0=3)
    ex = _Exact(mech)
    t = (mech.p - mech.q) / (1 - mech.q)
    n, ee = 4, fmpq(3, 2)

    def binom(N, m):
        return fmpq(math.comb(N, m)) * (1 - t) ** m * t ** (N - m)

    worst = best = fmpq(0)
    for A, B, lam in _datasets(n):
        C = sum(lam)
        third = _others(0, 0, lam)
        d = ex.delta(_others(A, B, lam), ee)
        b1 = sum(binom(A + B, m) * ex.delta([4] * m + third, ee) for m in range(A + B + 1))
        b2 = sum(binom(C, m) * ex.delta([0] * A + [1] * B + [4] * m, ee) for m in range(C + 1))
        assert d <= b1 and d <= b2  # data processing: revealing the marks only helps the adversary
        assert d <= ex.delta(third, ee)  # b1': the holders' reports revealed altogether (removed)
        worst, best = max(worst, d), max(best, min(b1, b2))
        if A + B == n - 1:  # revealing the holders' marks of the same family: at least Lemma 5.3's value
            lemma53 = blanket_view_delta(mech, n, exp_epsilon=ee)
            assert b1 >= lemma53
    assert worst == ex.delta(_others(0, 0, (n - 1,)), ee)  # the third value is the worst here
    assert worst < best < blanket_view_delta(mech, n, exp_epsilon=ee)


def _location(n, lam, r, p, q, *, about="target"):
    """Rows P(ζ | ·) of a location experiment: r plain positions (the target and r − 1 others that are Bern(q) on the
    third-value columns), third values in groups lam.  ``about="target"``: the target's position j (the others
    pure draws); ``about="U"``: the set U of plain positions (the others holders of x or x', Lemma U)."""
    m = len(lam)
    third = [lab for lab, s in enumerate(lam) for _ in range(s)]
    zetas = list(itertools.product((0, 1), repeat=n * m))
    us = list(itertools.combinations(range(n), r))
    pu = []
    for u in us:
        pu.append([_zeta_given_u(n, m, p, q, third, u, zeta) for zeta in zetas])
    if about == "U":
        return pu
    return [
        [
            sum((pu[i][c] for i, u in enumerate(us) if j in u), fmpq(0)) / sum(1 for u in us if j in u)
            for c in range(len(zetas))
        ]
        for j in range(n)
    ]


@pytest.mark.parametrize(("about", "margin"), [("target", fmpq(-1, 1000)), ("U", fmpq(-1, 20))])
def test_merged_not_blackwell_above_split_with_a_second_plain_position(about, margin):
    # n = 4, p = 1/2, q = 1/8 (OUE, e^{ε0} = 7): two plain positions, two third-value users merged vs split.
    # A garbling K (P_split = P_merged K) would give Σ_i u_i + Σ_jc P_split[j,c] V[j,c] >= 0 for every (u, V) with
    # u_i + Σ_j P_merged[j,i] V[j,c] >= 0; the LP (floats) only chooses V, the check is exact.
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    p, q = fmpq(1, 2), fmpq(1, 8)
    pa, pb = _location(4, (2,), 2, p, q, about=about), _location(4, (1, 1), 2, p, q, about=about)
    n, a, b = len(pa), len(pa[0]), len(pb[0])
    fa, fb = np.array(pa, dtype=float), np.array(pb, dtype=float)
    rows, cols, vals = [], [], []
    for i in range(a):
        for c in range(b):
            k = i * b + c
            rows.append(k), cols.append(i), vals.append(-1.0)
            for j in range(n):
                rows.append(k), cols.append(a + j * b + c), vals.append(-fa[j, i])
    res = linprog(
        np.concatenate([np.ones(a), fb.ravel()]),
        A_ub=coo_matrix((vals, (rows, cols)), shape=(a * b, a + n * b)).tocsr(),
        b_ub=np.zeros(a * b),
        bounds=(-1, 1),
        method="highs",
    )
    v = [[fmpq(round(float(res.x[a + j * b + c]) * 2**20), 2**20) for c in range(b)] for j in range(n)]
    u = [max(-sum((pa[j][i] * v[j][c] for j in range(n)), fmpq(0)) for c in range(b)) for i in range(a)]
    value = sum(u, fmpq(0)) + sum((pb[j][c] * v[j][c] for j in range(n) for c in range(b)), fmpq(0))
    assert value < margin < 0  # well below 0 (measured: target −1449/311296 ≈ −0.0047; U ≈ −0.10)


def _brute_shuffled_delta(others: list, x: int, x2: int, p, q, ee, k: int = 3) -> fmpq:
    """max of both directions of δ((x, others) ‖ (x2, others)) for unary encoding over k columns, by brute force over
    every ordered tuple of reports (independent of exact.shuffled.enumerate): O(2^{k·n})."""

    def row(u):
        return {
            y: math.prod((_bern(p if j == u else q, y[j]) for j in range(k)), start=fmpq(1))
            for y in itertools.product((0, 1), repeat=k)
        }

    def law(users):
        rows, out = [row(u) for u in users], {}
        for ys in itertools.product(list(rows[0]), repeat=len(users)):
            key = tuple(sorted(ys))
            out[key] = out.get(key, fmpq(0)) + math.prod((r[y] for r, y in zip(rows, ys, strict=True)), start=fmpq(1))
        return out

    a, b = law([x, *others]), law([x2, *others])

    def hs(u, v):
        return sum((max(fmpq(0), w - ee * v.get(h, fmpq(0))) for h, w in u.items()), fmpq(0))

    return max(hs(a, b), hs(b, a))


def test_third_value_is_not_always_the_worst():
    # docs/reference/oracles.md §7: one holder of x' plus one third-value user beats both the third value and the
    # same family (OUE e^{ε0} = 2, n = 3, e^ε = 29/20; two routes, exact rationals).  Bits other than x, x', z are
    # independent noise under every input, so the same holds for every k ≥ 3.
    mech = OUE(3, exp_epsilon0=2)
    p, q, ee = mech.p, mech.q, fmpq(29, 20)
    assert (p, q) == (fmpq(1, 2), fmpq(1, 3))
    values = {}
    for name, others in {"mixed": [1, 2], "third": [2, 2], "same": [0, 0], "same'": [1, 1]}.items():
        brute = _brute_shuffled_delta(others, 0, 1, p, q, ee)
        route = max(
            delta_dataset(mech.matrix(), others, 0, 1, exp_epsilon=ee),
            delta_dataset(mech.matrix(), others, 1, 0, exp_epsilon=ee),
        )
        assert brute == route
        values[name] = brute
    assert values["mixed"] > values["third"] > values["same"] == values["same'"]  # 337/19440 > 25/1458 > 17/1080


def test_mixed_dataset_beats_both_families_by_ten_percent():
    # OUE e^{ε0} = 3, n = 6, e^ε = 23/10: four holders of x' and one third-value user; the exhaustive worst case over
    # every dataset (k = 3: one third value) is exactly this dataset, 10 % above max(third value, same family)
    mech = OUE(3, exp_epsilon0=3)
    ee = fmpq(23, 10)

    def both(others):
        return max(
            delta_dataset(mech.matrix(), others, 0, 1, exp_epsilon=ee),
            delta_dataset(mech.matrix(), others, 1, 0, exp_epsilon=ee),
        )

    mixed, third, same = both([1, 1, 1, 1, 2]), both([2] * 5), both([0] * 5)
    assert mixed > fmpq(109, 100) * max(third, same)
    assert worst_case(mech.matrix(), 6, exp_epsilon=ee).value == mixed


def _exact_garbling(pa: list, pb: list):
    """A kernel K ≥ 0 (rows summing to 1) with pa·K = pb exactly, or None.  An LP (HiGHS dual simplex, floats) only
    chooses a vertex's support; the kernel is the exact rational solution of the equalities on that support (fmpq_mat
    rref), kept only if it is nonnegative and satisfies every equality exactly."""
    from flint import fmpq_mat
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    n, a, b = len(pa), len(pa[0]), len(pb[0])
    cons = [[(i * b + c, fmpq(1)) for c in range(b)] for i in range(a)]
    rhs = [fmpq(1)] * a
    for j in range(n):
        for c in range(b):
            cons.append([(i * b + c, pa[j][i]) for i in range(a)])
            rhs.append(pb[j][c])
    rows, cols, vals = zip(*((k, v, float(w)) for k, row in enumerate(cons) for v, w in row), strict=True)
    res = linprog(
        np.random.default_rng(0).random(a * b),
        A_eq=coo_matrix((vals, (rows, cols)), shape=(len(cons), a * b)).tocsr(),
        b_eq=np.array([float(r) for r in rhs]),
        bounds=(0, None),
        method="highs-ds",
    )
    if res.status != 0:
        return None
    supp = [v for v in range(a * b) if res.x[v] > 1e-12]
    col = {v: i for i, v in enumerate(supp)}
    m = fmpq_mat(len(cons), len(supp) + 1)
    for k, row in enumerate(cons):
        for v, w in row:
            if v in col:
                m[k, col[v]] = w
        m[k, len(supp)] = rhs[k]
    r, rank = m.rref()
    pivots = [next(i for i in range(len(supp) + 1) if r[k, i] != 0) for k in range(rank)]
    if len(supp) in pivots:  # the equalities have no solution on this support
        return None
    sol = {supp[i]: fmpq(0) for i in range(len(supp))}
    for k, i in enumerate(pivots):
        sol[supp[i]] = r[k, len(supp)]
    if any(x < 0 for x in sol.values()):
        return None
    if any(sum((w * sol.get(v, fmpq(0)) for v, w in row), fmpq(0)) != rhs[k] for k, row in enumerate(cons)):
        return None
    return sol


@pytest.mark.parametrize(
    ("n", "merged", "split", "p", "q"),
    [
        (3, (2,), (1, 1), fmpq(1, 2), fmpq(1, 8)),  # OUE e^{ε0} = 7
        (3, (2,), (1, 1), fmpq(1, 2), fmpq(1, 4)),  # OUE e^{ε0} = 3
        (3, (2,), (1, 1), fmpq(2, 3), fmpq(1, 3)),  # SUE e^{ε0/2} = 2
    ],
)
def test_merged_location_experiment_garbles_to_split_exactly(n, merged, split, p, q):
    # Conjecture M without holders, Blackwell form (docs/reference/oracles.md §7): an exact rational garbling from the
    # merged no-holder location experiment to the split one (so, by Lemma U, δ_split ≤ δ_merged at every ε there);
    # none the other way (the LP is infeasible; floats, so only the exact one-way statement is asserted)
    pm, ps = _location(n, merged, 1, p, q), _location(n, split, 1, p, q)
    assert _exact_garbling(pm, ps) is not None


@pytest.mark.slow
def test_merged_location_experiment_garbles_to_split_exactly_n4(slow_level):
    # the same at n = 4, (3) → (2, 1), OUE e^{ε0} = 3 (an LP of 4096 variables and an exact solve on ≈ 700 of them)
    p, q = fmpq(1, 2), fmpq(1, 4)
    assert _exact_garbling(_location(4, (3,), 1, p, q), _location(4, (2, 1), 1, p, q)) is not None
