"""``get_delta`` reads the distributions ``get_epsilon`` reads (docs/composition.md §3 "get_delta: the same grid, band
and lower refinement"): the grid ``get_epsilon`` would choose, the curve pairs refined in the band the query reads, the
deciding lower pair on a finer grid when cheap.

Which inequalities are theorems: both queries are certified, ``δ*(ε)`` (the composed mechanism's) is non-increasing
and continuous in ε, and ``ε*(δ) = min{ε : δ*(ε) ≤ δ}``.  So ``δ*(e.upper) ≤ δ ≤ δ*(e.lower)`` for
``e = get_epsilon(δ)``, hence ``get_delta(e.upper).lower ≤ δ ≤ get_delta(e.lower).upper``; and for ``ε1 ≤ ε2``,
``get_delta(ε2).lower ≤ get_delta(ε1).upper``.  That ``get_delta(e.upper).upper`` comes out at δ (up to the balls'
rounding) is tightness, not a theorem: it holds because both queries evaluate the same composed PLD; the unrefined
route (the previous ``get_delta``: another grid, the unrefined curve pairs) misses it, which the tests show."""

from __future__ import annotations

from fractions import Fraction

from blanket.exact.accounting import accountant as A
from blanket.exact.accounting import curve_pairs as CP
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from flint import fmpq

D = Fraction(1, 10**6)
TIGHT = 1 + Fraction(1, 10**6)


def _acc(k: int = 3, n: int = 100, T: int = 10, **kw) -> A.ShuffleAccountant:
    return A.ShuffleAccountant(**kw).compose(A.ShuffledRR(k=k, epsilon0="1", n=n), count=T)


def test_get_delta_at_get_epsilons_ends_curve_pairs():
    """3-RR, n = 100, T = 10 (curve pairs decide): the theorems, and the tightness the shared PLD gives."""
    acc = _acc()
    e = acc.get_epsilon(D)
    assert e.details["pair_route"] == "curve pairs"
    up, lo = acc.get_delta(e.upper), acc.get_delta(e.lower)
    assert up.lower <= D <= lo.upper  # theorems
    assert up.upper <= D * TIGHT and up.grid == e.grid and up.details["pair_route"] == "curve pairs"
    # a fresh accountant asked get_delta first chooses the same grid (the one get_epsilon chooses at its first δ)
    fresh = _acc().get_delta(e.upper)
    assert fresh.grid == e.grid and fresh.upper <= D * (1 + Fraction(1, 1000)) and fresh.lower <= D
    # the mutant (the unrefined route, as get_delta was): about 4 % above δ here, so the tightness test can fail
    old = _acc().get_delta(e.upper, refine=False)
    assert old.upper > D * Fraction(101, 100)


def test_get_delta_at_get_epsilons_ends_binary_rr():
    """Binary RR, n = 200 (its exact worst-case curve pair, the summed lower pair): the same statements."""
    acc = _acc(k=2, n=200, T=50)
    e = acc.get_epsilon(D)
    up, lo = acc.get_delta(e.upper), acc.get_delta(e.lower)
    assert up.lower <= D <= lo.upper
    assert up.upper <= D * TIGHT
    assert up.details["lower_pair"].startswith("summed")


def test_delta_brackets_are_ordered_across_epsilon():
    """For ε1 ≤ ε2: get_delta(ε2).lower ≤ δ*(ε2) ≤ δ*(ε1) ≤ get_delta(ε1).upper (a theorem); each bracket is ordered."""
    acc = _acc()
    acc.get_epsilon(D)
    epss = [Fraction(14, 10), Fraction(15, 10), Fraction(155, 100), Fraction(16, 10), Fraction(18, 10)]
    ds = [acc.get_delta(x) for x in epss]
    for d in ds:
        assert 0 <= d.lower <= d.upper <= 1
    for i, d1 in enumerate(ds):
        for d2 in ds[i:]:
            assert d2.lower <= d1.upper


def test_band_and_refinement_never_loosen():
    """The refined query on the same accountant never reports a larger upper end nor a smaller lower end than the
    unrefined one (the curve-pair PLDs already composed on the grid are among those it takes the smallest of; the
    refined lower end is the larger of two)."""
    acc = _acc()
    e = acc.get_epsilon(D)
    for x in (e.upper, Fraction(13, 10), Fraction(19, 10)):
        plain = acc.get_delta(x, refine=False)
        ref = acc.get_delta(x)
        assert ref.upper <= plain.upper and ref.lower >= plain.lower
    fixed = _acc(grid=e.grid)  # a fixed grid: the unrefined curve pairs first, then the band
    plain = fixed.get_delta(Fraction(19, 10), refine=False)
    ref = fixed.get_delta(Fraction(19, 10))
    assert ref.grid == plain.grid == e.grid and ref.upper <= plain.upper and ref.lower >= plain.lower


def test_a_far_delta_reads_its_own_band_a_near_one_reuses():
    acc = _acc()
    e = acc.get_epsilon(D)

    def bands():
        return [k for k in acc._cache if isinstance(k, tuple) and k[0] == "band"]

    assert len(bands()) == 1
    acc.get_delta(e.upper * Fraction(1001, 1000))  # δ within a factor 2 of 1e-6: get_epsilon's band
    assert len(bands()) == 1
    far = acc.get_delta(Fraction(13, 10))  # δ about 1e-4: a band of its own
    assert len(bands()) == 2 and 0 < far.lower <= far.upper < 1


def test_estimate_counts_a_second_band_where_curve_pairs_are_composed():
    acc = _acc()
    with_band = acc.estimate(fresh=True).seconds
    without = acc.estimate(fresh=True, delta_band=False).seconds
    assert with_band > without
    rr = _acc(k=2, n=200, T=50)  # binary RR composes no curve pair: nothing added
    assert rr.estimate(fresh=True).seconds == rr.estimate(fresh=True, delta_band=False).seconds


def test_curve_pair_memo_key_does_not_depend_on_the_working_precision():
    """get_delta evaluates under the accountant's precision; the memo key of a curve pair used the text of the ball
    e^{ε0}, which depends on it, so the curve pair was computed twice (seconds at n = 1000)."""
    m = KRR(3, fmpq(1))
    with arith.precision(53):
        k53 = CP._key(m, 100, False, 32)
    with arith.precision(200):
        k200 = CP._key(m, 100, False, 32)
    assert k53 == k200


def test_refined_lower_end_of_delta(monkeypatch):
    """3-RR, n = 200, T = 10 (where get_epsilon's lower pair is refined, tests/test_lower_refine.py): get_delta's lower
    end rises too, equals the same lower pair composed directly on the finer grid (an independent route to the same
    number), and stays under the upper end; without the budget it is the lower grid's."""
    x = Fraction(11, 10)
    # under a budget that admits the refinement (which budget does is the cost model's choice, tests/test_lower_refine.py)
    monkeypatch.setattr(A, "REFINE_SHARE", 1.0)
    refined = _acc(n=200).get_delta(x)
    fine = Fraction(refined.details["lower_grid"])
    assert fine < refined.grid
    kind = next(k for k, v in A.LOWER_NAMES.items() if v == refined.details["lower_pair"])
    with arith.precision(128):  # the accountant's working precision (the ball's lower end depends on it)
        direct = arith.endpoints(_acc(n=200, grid=fine)._pld(fine, kind).get_delta(fmpq(11, 10)))[0]
    assert abs(refined.lower - direct) <= direct * Fraction(1, 10**20)
    assert refined.lower <= refined.upper
    monkeypatch.setattr(A, "REFINE_FACTORS", ())
    plain = _acc(n=200).get_delta(x)
    assert plain.grid == refined.grid and plain.details["lower_grid"] == str(plain.grid)
    assert refined.lower > plain.lower


def test_export_carries_the_band_a_query_read():
    """to_dp_accounting exports the curve pairs of the last band a query refined: dp_accounting's (float) δ at
    get_epsilon's upper end agrees with get_delta's certified upper end there (the same masses, rounded up); the
    unrefined curve pairs (what the export took before) are about 4 % above."""
    import pytest

    pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    acc = _acc()
    e = acc.get_epsilon(D)
    d = acc.get_delta(e.upper)
    theirs = acc.to_dp_accounting().get_delta_for_epsilon(float(e.upper))
    assert theirs == pytest.approx(float(d.upper), rel=1e-6)
    unrefined = _acc(grid=e.grid).get_delta(e.upper, refine=False)
    assert theirs < float(unrefined.upper) / 1.01


def test_renyi_route_takes_the_curve_pairs_moments():
    """A round whose curve pair the query discretised adds, order by order, the smaller of its two pairs' Rényi
    moments (both dominate the round): never above the dominating pairs' alone, strictly below here (3-RR n = 100,
    T = 10: ε 2.043 -> 1.683), and still a certified upper end (at least the mechanism's certified lower end; a
    theorem: both bound the same ε)."""
    acc = _acc()
    e = acc.get_epsilon(D)
    band = next(v for k, v in acc._cache.items() if isinstance(k, tuple) and k[0] == "band")
    with_curve = acc._renyi(e.grid, band)
    plain = acc._renyi(e.grid, ("no", "band"))  # no curve pair was discretised for this band: the dominating pairs
    assert with_curve is not None and plain is not None
    assert all(c.upper() <= p.upper() for c, p in zip(with_curve, plain))
    assert any(c.upper() < p.upper() for c, p in zip(with_curve, plain))
    assert e.renyi_upper is not None and e.lower <= e.renyi_upper
    d = acc.get_delta(e.upper)
    assert d.renyi_upper is not None and d.lower <= d.renyi_upper


def test_cli_delta_at_the_cli_epsilon_upper_end(capsys):
    """``blanket delta --rounds T`` at the ε ``blanket epsilon --rounds T`` certifies for δ = 10⁻⁶ (the claim a
    certificate decides the same way): δ's upper end is 10⁻⁶ up to rounding (it was 4 % above, so a claim at that
    ε came out INCONCLUSIVE even on grids 16 times finer: 10-RR n = 10³, T = 10)."""
    import json

    from blanket.reports.cli import main

    args = ["--mechanism", "krr", "--k", "3", "--epsilon0", "1", "-n", "100", "--rounds", "10", "--json"]
    assert main(["epsilon", *args, "--delta", "1e-6"]) == 0
    up = json.loads(capsys.readouterr().out)["epsilon"]["upper"]
    assert main(["delta", *args, "--epsilon", up]) == 0
    d = json.loads(capsys.readouterr().out)["delta"]
    assert Fraction(d["lower"]) <= D < Fraction(d["upper"]) * 2 and Fraction(d["upper"]) <= D * TIGHT


def test_extreme_epsilons_with_bands_in_the_cache():
    """ε = 0 (δ near its largest), an ε where δ is astronomically small, and ε beyond Σ ε0 (δ = 0, basic route),
    on an accountant already holding a band: each answer ordered, and δ non-increasing between them (a theorem)."""
    acc = _acc()
    acc.get_epsilon(D)
    ds = [acc.get_delta(x) for x in (Fraction(0), Fraction(5), Fraction(9), Fraction(11))]
    for d in ds:
        assert 0 <= d.lower <= d.upper <= 1
    for a, b in zip(ds, ds[1:]):
        assert b.lower <= a.upper
    assert ds[-1].upper == 0 and ds[-1].route == "basic"
    back = _acc()  # the other order: a band at a tiny δ in the cache first, then δ near 1 (exact ratios, no underflow)
    assert back.get_delta(Fraction(95, 10)).upper < D < back.get_delta(Fraction(0)).lower
