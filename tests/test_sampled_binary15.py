"""Reach of the route by rows (exact.shuffled.sampled_binary_rows, docs/numerics.md Lemma S4r): the rows of H swept
alone or in chunks equal the full table's bit for bit, the chunked first sweep gives the same bin tables as one
chunk, the pilot's bin edges keep the enclosure of the exact rational worst case (sampled_binary.worst_exact, which
shares nothing with the route) and make the binned bound tight at a small q, and the cost models cover what a built
instance holds."""

from __future__ import annotations

import numpy as np
import pytest
from blanket.exact.laws import binomial as laws
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled import sampled_binary_rows as sr
from flint import arb, fmpq


def test_rows_of_h_alone_equal_the_full_table():
    """_h_rows on a contiguous range, on an arbitrary set of rows and on all rows: the same longdouble values."""
    n, m_lo, m_hi = 37, 3, 20
    full = [H.copy() for _m, H in sr._h_rows(n, m_lo, m_hi)]
    part = [H.copy() for _m, H in sr._h_rows(n, m_lo, m_hi, (5, 19))]
    some = np.array([0, 1, 7, 8, 30, 36, 37])
    pick = [H.copy() for _m, H in sr._h_rows(n, m_lo, m_hi, some)]
    assert len(full) == len(part) == len(pick) == m_hi - m_lo + 1
    for F, A, B in zip(full, part, pick):
        assert np.array_equal(F[5:20], A)
        assert np.array_equal(F[some], B)
    # and each row is the hypergeometric law (sums to 1 within the sweep's error)
    assert np.allclose(full[-1].astype(float).sum(axis=1), 1.0, rtol=1e-15, atol=0)


def test_chunked_first_sweep_equals_one_chunk(monkeypatch):
    """CHUNK_BYTES forced to one byte (16 C a chunk) against all C in one chunk: the same bin tables up to the last
    bits (H is the same bit for bit, above; the binary64 product's blocking depends on the number of rows, which
    Lemma S4r (ii) allows: any summation order) and overlapping values."""
    e, q, n = fmpq(5, 2), fmpq(1, 6), 50
    one = sr.SampledBinaryRows(e, q, n)
    assert one.chunk == n
    monkeypatch.setattr(sr, "CHUNK_BYTES", 1)
    many = sr.SampledBinaryRows(e, q, n)
    assert many.chunk == 16
    assert np.array_equal(one.edges, many.edges)
    for a in ("pbu", "qbd", "spu", "sqd", "ptop"):
        A, B = getattr(one, a), getattr(many, a)
        assert np.all(np.abs(A - B) <= 1e-15 * np.maximum(A, B)), a
        assert np.count_nonzero(A != B) <= A.size // 100, a
    for al in (fmpq(1), fmpq(11, 10), fmpq(3, 2)):
        lo, hi, _c = one.value(al)
        lo2, hi2, _c2 = many.value(al)
        assert lo <= hi2 and lo2 <= hi and hi - lo <= hi * fmpq(1, 10**11)


@pytest.mark.parametrize(("e", "q", "n"), [(fmpq(3), fmpq(1, 20), 30), (fmpq(2), fmpq(1, 8), 24)])
def test_pilot_edges_keep_the_enclosure(e, q, n, monkeypatch):
    """With G kept (small m) the edges come from the pilot; the values still enclose the exact rational worst case,
    and so does the binned bound alone (FULL_CAP = 0)."""
    w = sr.SampledBinaryRows(e, q, n)
    assert w._gs is not None and w.pilot
    assert np.all(np.diff(w.edges) > 0) and w.edges[0] < 1
    alphas = (fmpq(1), fmpq(101, 100), fmpq(21, 20), fmpq(6, 5), fmpq(2))
    exact = [sb.worst_exact(e, q, n, al)[0] for al in alphas]
    for al, v in zip(alphas, exact):
        lo, hi, _c2 = w.value(al)
        assert lo <= v <= hi
        assert hi - lo <= v * fmpq(1, 10**10) + fmpq(1, 10**40)
    monkeypatch.setattr(sr, "FULL_CAP", 0)
    b = sr.SampledBinaryRows(e, q, n)
    for al, v in zip(alphas, exact):
        lo_b, hi_b, _c3 = b.value(al)
        assert lo_b == 0 and v <= hi_b


def test_pilot_edges_make_the_binned_bound_tight_at_a_small_q():
    """n = 3000, q = 1/1000 (ratios within 1 ± 0.01): the binned bound of every C (Lemma S4r (v)) at α = 1 and
    1.001 is within 10⁻⁵ of the largest prepared value, which the geometric bins over [1, e] missed by far."""
    with sr.arith.precision(128):
        e = arb(1).exp()
    w = sr.SampledBinaryRows(e, fmpq(1, 1000), 3000)
    assert w.pilot and w.top < 1.1
    for al in (fmpq(1), fmpq(1001, 1000)):
        lo, hi, _c = w.value(al)
        assert lo > 0 and hi - lo <= lo * fmpq(1, 10**5)


def test_window_model_covers_the_window():
    """window_model (the cost models' m_lo, m_hi) against the certified window of Bin(n, q)."""
    for n, q in ((300, fmpq(1, 10)), (1000, fmpq(1, 2)), (10**5, fmpq(1, 10**5)), (10**5, fmpq(1, 1000))):
        vals, off, _t = laws.window_to_tail(n, arb(q), arb(2) ** -140)
        m_lo, m_hi = sr.window_model(n, float(q))
        assert m_lo <= off and off + len(vals) - 1 <= m_hi <= off + len(vals) + 8


def test_memory_model_covers_the_instance():
    """route_bytes covers the arrays a built instance holds (tables, kept G, prepared C), and affordable stays
    within BUDGET_BYTES at every n it admits (n = 10⁵ at q = 10⁻⁵ now; 10⁶ not)."""
    w = sr.SampledBinaryRows(3, fmpq(1, 100), 2000)
    held = sum(getattr(w, a).nbytes for a in ("pbu", "qbd", "spu", "sqd", "ptop"))
    held += sum(G.nbytes for _m, G in (w._gs or []))
    held += sum(f.neg_r.nbytes + f.cp.nbytes + f.cq.nbytes for f in w.full.values())
    assert held <= sr.route_bytes(2000, 0.01)
    assert sb.affordable(10**5, "1e-5") and not sb.affordable(10**6, "1e-5")
    for n in (10**3, 10**4, 10**5, 3 * 10**5, 10**6):
        for q in ("1e-6", "1e-5", "1e-3", "1/10", "1/2"):
            if sb.affordable(n, q):
                assert sr.route_bytes(n, float(fmpq(q) if "/" in q else float(q))) <= sb.BUDGET_BYTES


def test_full_cap_grows_where_cells_are_few(monkeypatch):
    """full_cap: FULL_CAP where a C's cells are many, up to FULL_MAX where they fit in FULL_BYTES, 0 when off."""
    assert sr.full_cap(10**6) == sr.FULL_CAP
    assert sr.full_cap(100) == sr.FULL_MAX
    assert sr.FULL_CAP < sr.full_cap(sr.FULL_BYTES // (40 * 100)) <= sr.FULL_MAX
    monkeypatch.setattr(sr, "FULL_CAP", 0)
    assert sr.full_cap(100) == 0


def test_one_round_epsilon_searches_each_end_past_an_undecided_point():
    """A value with a 10 % wide enclosure: H(α) = (3 − α)/2000 on [1, 3], lower value 0.9·H, upper 1.1·H, δ = 1/4000.
    Each end is searched on its own side past the first α where the enclosure straddles δ: the lower end reaches the
    α where 0.9·H = δ (α = 3 − 5/9) and the upper end the α where 1.1·H = δ (α = 3 − 5/11), to the tolerance (closed
    forms, not the code's); before, the search stopped at the first straddling α."""
    import math

    class Fake:
        def value(self, a):
            h = max(fmpq(0), (3 - fmpq(a)) / 2000)
            return h * fmpq(9, 10), h * fmpq(11, 10), 1

    lo, hi = sb.one_round_epsilon(Fake(), fmpq(1, 4000), fmpq(3), rel_tol=fmpq(1, 10**6))
    want_lo, want_hi = math.log(3 - 5 / 9), math.log(3 - 5 / 11)
    assert float(lo) <= want_lo <= float(lo) * (1 + 1e-5)
    assert float(hi) * (1 - 1e-5) <= want_hi <= float(hi)
