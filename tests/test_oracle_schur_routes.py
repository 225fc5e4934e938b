"""Two proposed routes to unary encoding's worst dataset, checked in exact rationals (docs/reference/oracles.md §8).

Route 1 (Schur-convexity of h in Lemma U's no-holder form):
* the no-holder location experiments (merged and split third values) are exchangeable: the law of the posterior π
  is invariant under permuting positions (the hypothesis under which "E φ(π) ordered for every symmetric convex φ"
  is the same statement as Blackwell dominance, §8 Lemma E);
* there is no coupling with sorted π_split majorised by π_merged: a split posterior majorised by no merged one,
  and the Schur-convex indicator [π ≠ uniform] has the larger mean under the split experiment (n = 3 and 4).

Route 2 (a bound convex in the others' summed law S):
* for unary encoding the k report laws are linearly independent, so S determines the others' histogram;
* the best convex Φ with the vertex values is linear in the histogram, and it is below the exact δ of a mixed
  dataset (OUE e^{ε0} = 2, n = 3, e^ε = 29/20); so is the i.i.d. surrogate (others drawn from S/(n − 1)).
"""

from __future__ import annotations

import itertools

from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.mechanisms.oracles import OUE, SUE
from blanket.exact.shuffled.enumerate import delta_dataset, worst_case
from flint import fmpq, fmpq_mat
from test_oracle_worst_structure import _location


def _posteriors(rows: list) -> dict:
    """{π (unsorted tuple): marginal mass} of a location experiment with a uniform prior over the n positions."""
    n = len(rows)
    out: dict = {}
    for c in range(len(rows[0])):
        col = [rows[j][c] for j in range(n)]
        tot = sum(col, fmpq(0))
        if tot != 0:
            pi = tuple(v / tot for v in col)
            out[pi] = out.get(pi, fmpq(0)) + tot / n
    return out


def _sorted_law(law: dict) -> dict:
    out: dict = {}
    for pi, w in law.items():
        key = tuple(sorted(pi, reverse=True))
        out[key] = out.get(key, fmpq(0)) + w
    return out


def _majorised(s: tuple, v: tuple) -> bool:
    """s ≺ v for sorted (decreasing) vectors of equal sum: every partial sum of s at most v's."""
    a = b = fmpq(0)
    for x, y in zip(s, v, strict=True):
        a, b = a + x, b + y
        if a > b:
            return False
    return True


def test_location_experiments_are_exchangeable():
    # the law of π is invariant under every permutation of the positions (merged and split, n = 3 and 4)
    p, q = fmpq(1, 2), fmpq(1, 4)
    for n, lam in [(3, (2,)), (3, (1, 1)), (4, (3,)), (4, (2, 1))]:
        law = _posteriors(_location(n, lam, 1, p, q))
        assert sum(law.values(), fmpq(0)) == 1
        assert any(len(set(pi)) > 1 for pi in law)  # not trivially uniform
        for perm in itertools.permutations(range(n)):
            assert {tuple(pi[i] for i in perm): w for pi, w in law.items()} == law


def test_no_majorisation_coupling_merged_over_split():
    # n = 3, OUE e^{ε0} = 3 (p = 1/2, q = 1/4): merged (2) against split (1, 1), no holders
    p, q = fmpq(1, 2), fmpq(1, 4)
    merged = _sorted_law(_posteriors(_location(3, (2,), 1, p, q)))
    split = _sorted_law(_posteriors(_location(3, (1, 1), 1, p, q)))
    # the merged posterior is 1/g(c_i) normalised, g(1) = p/q, g(0) = (1-p)/(1-q): three atoms (independent route)
    g = {1: p / q, 0: (1 - p) / (1 - q)}
    expect = set()
    for c in itertools.product((0, 1), repeat=3):
        w = [1 / g[ci] for ci in c]
        expect.add(tuple(sorted((v / sum(w, fmpq(0)) for v in w), reverse=True)))
    assert expect == set(merged) and len(merged) == 3
    assert merged.keys() == {
        (fmpq(1, 3),) * 3,
        (fmpq(3, 7), fmpq(3, 7), fmpq(1, 7)),
        (fmpq(3, 5), fmpq(1, 5), fmpq(1, 5)),
    }
    # by hand: rows (c¹, c²) = (0, 0), (0, 1), (1, 1); P(ζ | i) ∝ Σ over the two labellings of the others of
    # Π g(bit in the row's own column): target 1: g0 g1 + g1 g1, target 2: 2 g0 g1, target 3: g0 g1 + g0 g0
    like = [g[0] * g[1] + g[1] * g[1], 2 * g[0] * g[1], g[0] * g[1] + g[0] * g[0]]
    lone = tuple(v / sum(like, fmpq(0)) for v in like)
    assert lone == (fmpq(6, 11), fmpq(3, 11), fmpq(2, 11))
    assert lone in split and split[lone] > 0
    assert not any(_majorised(lone, v) for v in merged)  # so no coupling with π_split ≺ π_merged almost surely
    uniform = (fmpq(1, 3),) * 3
    # P(π = uniform): merged iff the z-column is constant, q p^{n-1} + (1-q)(1-p)^{n-1} = 1/4
    assert merged[uniform] == q * p**2 + (1 - q) * (1 - p) ** 2 == fmpq(1, 4)
    # the Schur-convex indicator [π ≠ uniform] has the larger mean under the split experiment
    assert 1 - split.get(uniform, fmpq(0)) > 1 - merged[uniform]
    assert 1 - split.get(uniform, fmpq(0)) > fmpq(9, 10)


def test_no_majorisation_coupling_n4():
    # n = 4, (3) against (2, 1) and (1, 1, 1): split posteriors majorised by no merged posterior carry positive mass
    p, q = fmpq(1, 2), fmpq(1, 4)
    merged = _sorted_law(_posteriors(_location(4, (3,), 1, p, q)))
    assert len(merged) == 4  # the counts of zeros 0 = 4 (uniform), 1, 2, 3
    for lam in [(2, 1), (1, 1, 1)]:
        split = _sorted_law(_posteriors(_location(4, lam, 1, p, q)))
        orphan = sum((w for s, w in split.items() if not any(_majorised(s, v) for v in merged)), fmpq(0))
        assert orphan > fmpq(1, 10)  # measured 0.264 and 0.180


def test_report_laws_are_linearly_independent():
    # unary encoding: the k rows have full rank, so S = Σ_j R(u_j) determines the others' histogram
    for mech, k in [(OUE(4, exp_epsilon0=3), 4), (SUE(4, exp_half_epsilon0=2), 4), (OUE(5, exp_epsilon0=2), 5)]:
        fr = mech.matrix()
        assert fr.k_in == k and fmpq_mat([fr.row(i) for i in range(k)]).rank() == k


def test_linear_interpolation_of_vertices_is_not_an_upper_bound():
    # OUE e^{ε0} = 2 (p = 1/2, q = 1/3), n = 3, e^ε = 29/20: the dataset (x, x', z) has histogram weights 1/2 on x'
    # and 1/2 on z; the linear Φ (the largest convex Φ with the vertex values) and the i.i.d. surrogate (both others
    # drawn from (R(x') + R(z))/2) are both below its exact δ
    mech = OUE(3, exp_epsilon0=2)
    fr = mech.matrix()
    rows = [fr.row(i) for i in range(fr.k_in)]
    rows.append([(a + b) / 2 for a, b in zip(rows[1], rows[2], strict=True)])  # input 3: the mixture of x' and z
    ext = FiniteRandomizer(rows)
    ee = fmpq(29, 20)

    def both(others):
        return max(
            delta_dataset(ext, others, 0, 1, exp_epsilon=ee),
            delta_dataset(ext, others, 1, 0, exp_epsilon=ee),
        )

    mixed, third, same = both([1, 2]), both([2, 2]), both([1, 1])
    assert (mixed, third, same) == (fmpq(337, 19440), fmpq(25, 1458), fmpq(17, 1080))  # §7's values
    linear = (third + same) / 2
    iid = both([3, 3])
    assert iid <= (both([1, 1]) + 2 * mixed + both([2, 2])) / 4  # joint convexity (a check of the route)
    assert mixed > linear and mixed > iid


def test_linear_interpolation_fails_where_the_third_value_is_the_worst():
    # OUE e^{ε0} = 3 (k = 4), n = 4, e^ε = 2: the third value is the exhaustive worst dataset (§6's table), yet the
    # dataset (x, 2·x', z) lies 28 % above the interpolation (2·δ_same + δ_third)/3: a convex Φ in S that is tight at
    # the z vertex must exceed δ_same at the x' vertex by half (Φ(e_x') ≥ (3δ_D − δ_third)/2 = 1.51·δ_same)
    mech = OUE(4, exp_epsilon0=3)
    ee = fmpq(2)

    def both(others):
        return max(
            delta_dataset(mech.matrix(), others, 0, 1, exp_epsilon=ee),
            delta_dataset(mech.matrix(), others, 1, 0, exp_epsilon=ee),
        )

    mixed, third, same = both([1, 1, 2]), both([2, 2, 2]), both([1, 1, 1])
    assert third == worst_case(mech.matrix(), 4, exp_epsilon=ee).value  # the vertex z is the supremum here
    assert mixed > fmpq(128, 100) * (2 * same + third) / 3
    assert (3 * mixed - third) / 2 > fmpq(3, 2) * same


def test_per_dataset_blanket_mass():
    # §8: the blanket mass over the values Z held by the others, Σ_y min_{u∈Z} R(u)(y), is ρ0(1 − q^m) + p q^{m−1}
    # (m = |Z|); 1 at m = 1 and Lemma 5.3's γ at m = k (from the explicit matrix, an independent route)
    for mech, k in [(OUE(5, exp_epsilon0=3), 5), (SUE(4, exp_half_epsilon0=2), 4)]:
        fr = mech.matrix()
        p, q = mech.p, mech.q
        rho0 = (1 - p) / (1 - q)
        for m in range(1, k + 1):
            for z in itertools.combinations(range(k), m):
                mass = sum((min(fr.row(u)[y] for u in z) for y in range(fr.k_out)), fmpq(0))
                assert mass == rho0 * (1 - q**m) + p * q ** (m - 1)
        assert mass == mech.gamma()  # m = k


def test_two_group_probe_matches_the_enumeration():
    # tests/benchmarks/probe_oracle_twogroup.py (the §8 evidence for Conjecture M at n = 20, 40) against the exact
    # enumeration at n = 4, OUE e^{ε0} = 3: merged (3) and split (2, 1), e^ε = 3/2 and 2
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent / "benchmarks" / "probe_oracle_twogroup.py"
    spec = importlib.util.spec_from_file_location("probe_oracle_twogroup", path)
    assert spec is not None and spec.loader is not None
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    mech = OUE(4, exp_epsilon0=3)
    for ee in (fmpq(3, 2), fmpq(2)):
        for others, l1 in (([2, 2, 2], 3), ([2, 2, 3], 2), ([2, 3, 3], 1)):
            exact = delta_dataset(mech.matrix(), others, 0, 1, exp_epsilon=ee)
            here = probe.delta_two(4, l1, 0.5, 0.25, float(ee.p) / float(ee.q))
            assert abs(here - float(exact)) <= 1e-12 * float(exact)
