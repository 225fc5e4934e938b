"""Local hashing without a stated 3-wise collision: the single-hit third-value lower end, valid for every hash family
(exact.shuffled.olh_every, docs/reference/oracles.md §2 "Without a stated 3-wise collision").

Independent routes: explicit hash families (their matrices enumerated over every output (h, y), exact rationals,
proofs/oracles._single_hit_brute), the exact δ of the unprojected pair (exact.shuffled.enumerate), and the engine's
other statistics at each admissible 3-wise collision (records with a stated `triple`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.mechanisms.oracles import OLH, OUE
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import olh_every as E
from blanket.exact.shuffled import oracle_exact as X
from blanket.exact.shuffled.enumerate import delta_dataset
from blanket.proofs import oracles as po
from flint import fmpq

EE = fmpq(5, 4)


def _families(constant: str | int):
    yield "all-3-3", OLH(3, 3, exp_epsilon0=2, family=list(itertools.product(range(3), repeat=3)), constant=constant)
    affine = [tuple((a * u + b) % 3 for u in range(3)) for a in range(3) for b in range(3)]
    yield "affine", OLH(3, 3, exp_epsilon0=2, family=affine, constant=constant)
    yield "all-3-2", OLH(3, 2, exp_epsilon0=3, family=list(itertools.product(range(2), repeat=3)), constant=constant)


def _bare(fam: OLH) -> OLH:
    """The record with the family's collision and constant only (its 3-wise collision not stated)."""
    return OLH(fam.k, fam.g, exp_epsilon0=fam.exp_epsilon0(), collision=fam.collision, constant=fam.constant)


@pytest.mark.parametrize("constant", [0, "family"])
@pytest.mark.parametrize("n", [2, 3])
def test_below_every_explicit_family(constant, n):
    # the bound of the record stripped of t is <= each family's own single-hit delta (brute force over its matrix)
    # and <= its unprojected pair's exact delta; with the constant hashes stated, t_lo is the family's own t here
    # (all maps [3]->[3]: 1/9; affine: 1/3; g = 2: 1/4), and the bound is that family's value exactly
    for label, fam in _families(constant):
        if n == 3 and label == "all-3-3":
            continue  # 81 outputs: the unprojected pair's enumeration at n = 3 is the cost (the registry check too)
        bound, t = X.every_family_delta(_bare(fam), n, exp_epsilon=EE)
        assert isinstance(bound, fmpq)
        own = po._single_hit_brute(fam, n, EE)
        full = delta_dataset(fam.matrix(), [2] * (n - 1), 0, 1, exp_epsilon=EE)
        assert bound <= own and bound <= getattr(full, "value", full), label
        if constant == "family":
            assert t == fam.triple and bound == own, label
        elif label == "all-3-3":  # nothing stated beyond c: t_lo = 0 < 1/9, strictly below
            assert t == 0 and bound < own


def test_max_over_t_is_not_a_lower_bound():
    # the mutant "max over t instead of min": at t_hi = c = 1/3 the single-hit value exceeds the 3-wise independent
    # family's own (t = 1/9): not a valid lower end for that family
    fam = next(f for label, f in _families(0) if label == "all-3-3")
    bare = _bare(fam)
    t_hi = E.olh_triple_range(bare)[1]
    mutant = X.third_value_delta(bare, 3, exp_epsilon=EE, statistic="single-hit", law=X.olh_triple_law_at(bare, t_hi))
    assert mutant > po._single_hit_brute(fam, 3, EE)


def test_registered_with_a_check_that_fails_for_the_max(monkeypatch):
    r = po.FO_OLH_EVERY
    assert r.status == "derived" and "docs/reference/oracles.md" in r.spec
    assert r.check_symbolic().proved is True
    good = E.olh_triple_range
    monkeypatch.setattr(E, "olh_triple_range", lambda m: (good(m)[1], good(m)[1]))
    assert r.check_symbolic().proved is False


def test_garbling_kernel_in_exact_rationals():
    # the single-hit cells at t1 < t2 (the code's law and statistic; (1, 1) is "z alone"): keeping a single-hit
    # report with probability
    # q(t1)/q(t2) and lumping it otherwise maps the law at t2 onto the law at t1, for x, x' and z at once
    m = OLH(64, 8, exp_epsilon0=3)
    e = m.exp_epsilon0()
    lo, hi = E.olh_triple_range(m)
    ts = [lo + (hi - lo) * fmpq(i, 7) for i in range(8)]
    for t1, t2 in itertools.combinations(ts, 2):
        c1 = X.third_cells(X.olh_triple_law_at(m, t1), e, "single-hit")
        c2 = X.third_cells(X.olh_triple_law_at(m, t2), e, "single-hit")
        assert c1[(1, 0)][0] == E.single_hit_mass(m, t1) and c2[(0, 1)][0] == E.single_hit_mass(m, t2)
        r = E.single_hit_mass(m, t1) / E.single_hit_mass(m, t2)
        assert 0 < r <= 1
        kept = ((1, 0), (0, 1), (1, 1))
        assert c2[(1, 1)][0] == e * E.single_hit_mass(m, t2)
        for u in range(3):
            moved = {key: c2[key][u] * r for key in kept}
            moved[(0, 0)] = c2[(0, 0)][u] + (1 - r) * sum(c2[key][u] for key in kept)
            assert moved == {key: c1[key][u] for key in moved}
        assert set(c1) == {(1, 0), (0, 1), (1, 1), (0, 0)}


@pytest.mark.parametrize(("n", "eps"), [(5, None), (1000, "0.25")])
def test_below_the_stated_triple_bound_at_every_t(n, eps):
    # for each admissible t tried: the bound <= the single-hit value at t and <= the best lower end of the record
    # that states t (its joined / zero-hit / hits statistics); exact rationals at n = 5, balls at n = 10^3
    kw = {"exp_epsilon": EE} if eps is None else {"epsilon": eps}
    m = OLH(2**20, 8, exp_epsilon0=7) if eps is None else OLH(2**20, 8, epsilon0=2)
    bound, t = X.every_family_delta(m, n, **kw)
    assert t == 0
    b_hi = arith.endpoints(bound)[1]
    c = m.collision
    for tt in (fmpq(0), c / 8, c / 2, c) if eps is None else (fmpq(0), c / 8):
        single = X.third_value_delta(m, n, statistic="single-hit", law=X.olh_triple_law_at(m, tt), **kw)
        if tt == 0:
            assert arith.endpoints(bound) == arith.endpoints(single)
        else:
            assert b_hi <= arith.endpoints(single)[0]
        stated = OLH(m.k, m.g, triple=tt, **({"exp_epsilon0": 7} if eps is None else {"epsilon0": 2}))
        best, _ = X.best_lower(stated, n, full_view=False, **kw)
        assert b_hi <= arith.endpoints(best)[0]


def test_best_lower_names_the_bound_and_t():
    m = OLH(2**20, 8, epsilon0=2)
    v, where = cb.lower_bound(m, 1000, epsilon="0.25")
    assert "every hash family" in where and "t = 0" in where and "[0, 1/8]" in where
    assert arith.endpoints(v)[0] > 9 * Fraction(1, 10**7)  # against 3.5e-8 for the same family (§4)
    # a stated 3-wise collision keeps the stated law's statistics
    assert (
        "every hash family"
        not in cb.lower_bound(OLH(2**20, 8, epsilon0=2, triple=fmpq(1, 64)), 1000, epsilon="0.25")[1]
    )


def test_admissible_range_and_bad_input():
    assert E.olh_triple_range(OLH(64, 8, epsilon0=2)) == (0, fmpq(1, 8))
    assert E.olh_triple_range(OLH(64, 8, epsilon0=2, constant=fmpq(1, 16))) == (fmpq(1, 16), fmpq(1, 8))
    assert E.olh_triple_range(OLH(64, 4, epsilon0=2, collision=fmpq(1, 2))) == (fmpq(1, 4), fmpq(1, 2))
    assert E.olh_triple_range(OLH(64, 2, epsilon0=2)) == (fmpq(1, 4), fmpq(1, 4))  # g = 2: t = (3c − 1)/2
    assert E.olh_triple_range(OLH(2, 2, epsilon0=2)) is None  # no third value
    bare = OLH(64, 2, epsilon0=2, collision=fmpq(1, 4))  # g = 2 forces c >= 1/3: no family, no bound
    assert E.olh_triple_range(bare) is None and X.every_family_delta(bare, 50, epsilon="0.4") is None
    assert "first value" in X.best_lower(bare, 50, epsilon="0.4")[1]
    with pytest.raises(InvalidArgument, match="mech"):
        X.every_family_delta(OUE(8, epsilon0=2), 50, epsilon="0.4")
    with pytest.raises(InvalidArgument, match="statistic"):
        X.third_value_delta(OUE(8, epsilon0=2), 50, epsilon="0.4", statistic="single")
    with pytest.raises(InvalidArgument, match="epsilon"):
        X.every_family_delta(OLH(64, 8, epsilon0=2), 50, epsilon="-1")
