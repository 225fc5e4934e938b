"""Session 15 (bounded15): runs the probe found unbounded or wide.

* The oracle records (``SUE(8, epsilon0='1000')`` and the like) accepted ε0 above 500 where the CLI refuses: they
  now refuse with the CLI's one-line message (:func:`blanket.exact.numbers.guards.check_epsilon0`), and an exact
  ``e^{ε0}`` above ``e^500`` likewise.
* Sampled binary RR near q = 1: the route by rows' time model missed ``G`` re-swept by each full preparation (when it
  is not kept) and the near-``full_cap`` count of prepared ``C`` (q = 0.999, n = 966: model 30 s, 69 CPU s measured).
* Geometric ``--alpha 1e-50`` (m = 3, n = 100): the small-n exact-rational enumeration ran > 120 s; a time model in
  the bit height of α now routes it to the every-n bounds.
Each test failed before its fix (the records built, the model's difference was ``chunks − 1`` sweeps,
``prepared_model`` did not exist and n = 966 was affordable, the enumeration was admitted).
"""

from __future__ import annotations

import pytest


def _records():
    from blanket.exact.mechanisms.oracles import LDP, OLH, OUE, SUE, Geometric, Hadamard, Subset

    return {
        "ldp": lambda **kw: LDP(**kw),
        "oue": lambda **kw: OUE(8, **kw),
        "sue": lambda **kw: SUE(8, **kw),
        "olh": lambda **kw: OLH(8, 2, **kw),
        "hadamard": lambda **kw: Hadamard(8, **kw),
        "subset": lambda **kw: Subset(8, 2, **kw),
        "geometric": lambda **kw: Geometric(3, **kw),
    }


@pytest.mark.parametrize("kind", ["ldp", "oue", "sue", "olh", "hadamard", "subset", "geometric"])
def test_records_refuse_eps0_above_500_like_the_cli(kind):
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.exact.numbers.guards import check_epsilon0

    make = _records()[kind]
    with pytest.raises(InvalidArgument) as cli:
        check_epsilon0("1000")
    with pytest.raises(InvalidArgument) as rec:
        make(epsilon0="1000")
    assert str(rec.value) == str(cli.value) and "\n" not in str(rec.value)
    make(epsilon0="500")  # the edge itself is supported
    with pytest.raises(InvalidArgument, match="at most 500"):
        make(epsilon0="5001/10")


@pytest.mark.parametrize("kind", ["ldp", "oue", "olh", "hadamard", "subset"])
def test_records_refuse_exact_exp_eps0_above_e500(kind):
    from blanket.exact.numbers.errors import InvalidArgument

    make = _records()[kind]
    # e^500 = 1.40e217: 10^217 is below it, 2*10^217 above it (log 2e217 = 500.36)
    make(exp_epsilon0=10**217)
    with pytest.raises(InvalidArgument, match=r"exp_epsilon0 must be at most e\^500 .*got '2e\+217'"):
        make(exp_epsilon0=2 * 10**217)


def test_sue_exact_half_level_refused_above_e250():
    from blanket.exact.mechanisms.oracles import SUE
    from blanket.exact.numbers.errors import InvalidArgument

    SUE(4, exp_half_epsilon0=10**108)  # e^{ε0} = 10^216 < e^500
    with pytest.raises(InvalidArgument, match="exp_half_epsilon0 squared"):
        SUE(4, exp_half_epsilon0=10**109)  # 10^218 > e^500 = 1.4e217


# ---------------------------------------------------------------- sampled binary RR near q = 1: the time model's terms
def test_route_seconds_counts_g_resweeps_when_g_is_not_kept(monkeypatch):
    # q = 0.999, n = 966: G (rows 927..966, 16 bytes a cell) is not kept; each preparation sweep re-sweeps all of it.
    # Keeping G (monkeypatched cache) must save exactly (chunks + PREPARE_SWEEPS - 1) sweeps of m_hi^3/3 cells.
    from blanket.exact.shuffled import sampled_binary_rows as R

    n, q = 966, 0.999
    m_lo, m_hi = R.window_model(n, q)
    assert R.g_bytes(m_lo, m_hi) > R.G_CACHE_BYTES
    nb = R.bins_for(n)
    chunks = -(-n // R.chunk_for(n, m_hi, nb, R.batch_for(nb, m_hi)))
    not_kept = R.route_seconds(n, q)
    monkeypatch.setattr(R, "G_CACHE_BYTES", 2**62)
    kept = R.route_seconds(n, q)
    want = R.SECONDS_PER_SWEEP_CELL * (chunks + R.PREPARE_SWEEPS - 1) * m_hi**3 / 3
    assert R.PREPARE_SWEEPS >= 1 and abs((not_kept - kept) - want) <= 1e-9 * want, (not_kept, kept, want)


def test_prepared_model_covers_the_route_near_q_one_and_at_one_half():
    # the route itself (n = 200, exact e^{eps0} = e): the number of C it prepares fully is within the model's count
    # (q = 0.999 prepared 18 > PREPARED_TYPICAL = 12: the model takes full_cap there)
    from blanket.exact.numbers import arith
    from blanket.exact.shuffled import sampled_binary_rows as R
    from flint import arb, fmpq

    with arith.precision(128):
        e = arb(1).exp()
    for q in (fmpq(999, 1000), fmpq(1, 2)):
        w = R.SampledBinaryRows(e, q, 200)
        m_lo, m_hi = R.window_model(200, float(q))
        cells = (m_hi - m_lo + 1) * (m_lo + m_hi + 2) // 2
        assert len(w.full) <= R.prepared_model(200, float(q), cells), (q, len(w.full))
    assert R.prepared_model(966, 0.999, 10**5) == R.full_cap(10**5) > R.PREPARED_TYPICAL
    assert R.prepared_model(891, 0.5, 10**5) == R.PREPARED_TYPICAL


def test_affordable_refuses_the_q_near_one_runs_the_probe_timed_out():
    # n = 1216 (probe15: > 240 s) and n = 966 (the edge before this fix: 69 CPU s at load 8) are no longer admitted;
    # q = 1/2 keeps most of its reach (891 -> 867 by the model)
    from blanket.exact.shuffled import sampled_binary as S
    from flint import fmpq

    q = fmpq(999, 1000)
    assert not S.affordable(1216, q) and not S.affordable(966, q)
    assert S.affordable(800, q) and S.affordable(850, fmpq(1, 2))


# ---------------------------------------------------------------- geometric with a tiny exact alpha
def test_geometric_enumeration_routed_around_for_a_tiny_alpha():
    # --alpha 1e-50, m = 3 (eps0 = 230), n = 100: the exact-rational enumeration ran > 120 s; now the every-n routes
    from blanket.exact.accounting import certified as C
    from blanket.exact.mechanisms.oracles import Geometric
    from flint import fmpq

    tiny, plain = Geometric(3, alpha="1e-50"), Geometric(3, alpha="1/3")
    assert not C._geometric_small(tiny, 100) and C._geometric_small(plain, 100)
    assert C._geometric_small(tiny, 20)  # small n still enumerates (0.17 s at n = 15)
    assert C.GEOMETRIC_ENUM not in [r.name for r in C.upper_routes(tiny, 100)]
    # the model grows with the bit height of alpha and with n
    s = C.geometric_enumeration_seconds
    assert s(3, 100, fmpq(1, 10**50)) > C.GEOMETRIC_ENUMERATION_SECONDS > s(3, 100, fmpq(1, 3))
    assert s(3, 100, fmpq(1, 3)) < s(3, 101, fmpq(1, 3))


def test_geometric_tiny_alpha_answers_quickly_through_the_every_n_routes():
    from blanket.exact.accounting.certified import best_upper, lower_bound
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.numbers import arith

    g = Geometric(3, alpha="1e-50")
    with arith.precision(256):  # the CLI's working precision (at 53 bits the lower end is a ball of radius 5e35)
        up = best_upper(g, 100, epsilon=1)
        lo = lower_bound(g, 100, epsilon=1)

    lo_end = arith.endpoints(arith.ball(lo[0]))[0]
    hi_end = arith.endpoints(arith.ball(up[0]))[1]
    assert lo_end > 0.99 and lo_end <= hi_end, (lo, up)
