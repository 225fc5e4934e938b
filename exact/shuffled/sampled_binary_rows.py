"""Lemma S4 at large ``n``: the exact worst case over every dataset of a sampled binary RR round, row by row of ``M``
(``docs/composition.md`` §5f "Lemma S4 by rows", ``docs/numerics.md`` Lemma S4r).

Same model and pair as :mod:`blanket.exact.shuffled.sampled_binary`: ``n`` users, participation ``q``, binary RR
with ``p = e^{ε0}/(1 + e^{ε0})``, ``f = 1 − p``; the release ``(M, K)``; with ``C`` ones among the users its law is
``P_C`` and the worst case over every dataset and both orders is ``max_{1≤C≤n} H_α(P_C ‖ P_{C−1})``.

Route.  ``M ~ Bin(n, q)`` under every dataset; given ``M = m`` the participants are a uniform ``m``-subset, ``J`` of
them ones (``Hyp(n, C, m)``), and ``K | J = j ~ Bin(j, p) * Bin(m − j, f) =: G_m[j, ·]``.  So the row ``m`` of
every ``P_C`` at once is ``Bin(n, q)(m) · (H_m @ G_m)`` with ``H_m[C, j] = Hyp(j; n, C, m)``.  Both tables are swept
in ``m`` from ``m = 0`` by convex combinations (one more draw without replacement; one more participant's report):
only products and sums of non-negative numbers, in ``numpy.longdouble``; the row product is one ``float64``
matrix product.  Every value then has a relative error at most ``θ`` (a priori, docs/numerics.md Lemma S4r) plus
``2^-1000`` absolute; the rows outside a certified window of ``Bin(n, q)`` (left-out mass ``≤ 2^-140``) are not
computed.

Per ``C`` only the sums matter: a first sweep (binary64 products) accumulates, per ``C``, the ``P``- and ``Q``-mass
of the cells in ``nb ≤ NB`` bins of the float ratio ``P/Q``, which gives a certified upper bound of ``H_α`` for
every ``C`` and ``α`` (the bins above ``α`` exactly, the bin straddling ``α`` by the chord of ``(r − α)_+``).  The
bin edges are a float choice: geometric up to ``e^{ε0}``, or, where ``G`` is small enough to keep, placed by a pilot
(the cells of a few ``C``: quantiles of their mass above ratio 1 and geometric in ``r − 1``), so at a small ``q``,
where every ratio carrying mass is close to 1, the bins still resolve it.  ``C = 1`` and ``C = n`` (a guess) are
prepared *fully* in the same sweep, and the other ``C`` whose bound can reach the largest bound (a float choice)
in a second, which sweeps only their rows of ``H``: their cells in longdouble, sorted by the float ratio with
blocked prefix sums, so each ``α`` costs a search and the value's enclosure has width ``≈ θ_full`` times the mass
above ``α``.  A query whose bound for some other ``C`` exceeds the prepared upper end prepares that ``C`` too (a
few at a time, at most :func:`full_cap` in all), else the bound itself is the upper end (never below the true value).

The first sweep runs by chunks of consecutive ``C`` (each row of ``H`` is swept on its own, so a chunk's rows are
the full table's bit for bit), and ``G`` of every row of the window is kept when small: the memory is the four
per-``C`` tables (``32·n·(nb+1)`` bytes, ``nb`` lowered to stay within :data:`TABLE_BYTES`) plus one chunk's sweep
(:data:`CHUNK_BYTES`), not ``O(n·m_hi)``.

Cost: ``O(n · m_hi² + Σ_rows n·m²)`` (the sweep of ``H`` over ``m ≤ m_hi ≈ nq + 14σ``, one ``(n+1) × (m+1)`` by
``(m+1) × (m+1)`` product per row of the window, ``≈ 28σ`` rows, ``σ = √(nq(1−q))``; plus ``m_hi³`` per chunk when
``G`` is not kept), memory ``O(n·nb + chunk·(m_hi + nb) + |G|)``: :func:`route_seconds` and :func:`route_bytes` are
its models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq

__all__ = ["SampledBinaryRows", "prepared_model", "route_bytes", "route_seconds", "theta_bound", "window_model"]

LD = np.longdouble
#: unit roundoff of numpy.longdouble on this machine (round to nearest; 2^-64 for x87 extended, 2^-53 if it is binary64)
U_LD = fmpq(*LD(np.finfo(LD).eps).as_integer_ratio()) / 2
#: unit roundoff of binary64
U64 = fmpq(1, 2**53)
#: ratio bins of the first sweep (geometric between 1 and e^{ε0})
NB = 1024
#: absolute error of one cell (underflow, docs/numerics.md Lemma S4r (iv))
ABS = fmpq(1, 2**1000)
#: at most this many C get a full preparation (more where their cells are few, :func:`full_cap`; 0: none); above,
#: the binned upper bound is the upper end
FULL_CAP = 32
#: rows of the first sweep binned by one bincount
BATCH = 8
#: C prepared per promotion of a query (at least; a quarter of :func:`full_cap` where that is more)
PROMOTE = 8
#: more than FULL_CAP C are prepared where their cells take at most this many bytes (a small ``q``: few cells per C,
#: and neighbouring C whose values differ by less than the binned bound's slack), up to FULL_MAX
FULL_BYTES = 2**26
FULL_MAX = 256
#: bin edges where every bound is below this are not used to select the fully prepared C
SELECT_FLOOR = 1e-12
#: largest relative error per cell the route accepts
MAX_THETA = 1e-8
#: the per-C bin tables (four of ``n·(nb + 1)`` binary64) are kept within this many bytes: above ``n ≈ 16 000``
#: fewer bins (:func:`bins_for`, at least :data:`NB_MIN`)
TABLE_BYTES = 2**29
#: fewest ratio bins (the binned bound of the unprepared C coarsens: n = 3·10⁵, q = 10⁻⁶, δ = 10⁻⁸: a one-round
#: bracket 5·10⁻² wide with 37 bins, 5·10⁻⁵ with 59, 2·10⁻⁷ with 111)
NB_MIN = 64
#: memory of one chunk's sweep and binning (:func:`chunk_for`)
CHUNK_BYTES = 2**28
#: ``G`` of every row of the window is kept (not swept again per chunk and per preparation) up to this many bytes
G_CACHE_BYTES = 2**27
#: pilot cells with ``P`` at most this do not set the top bin edge (:meth:`SampledBinaryRows._pilot_edges`)
PILOT_FLOOR = 1e-60
#: relative margin of the top bin edge above the pilot's largest ratio
PILOT_MARGIN = 1e-3


def full_cap(cells: int) -> int:
    """The most ``C`` prepared fully when each has ``cells`` cells: :data:`FULL_CAP`, up to :data:`FULL_MAX` where
    they fit in :data:`FULL_BYTES` (``≈ 40`` bytes a cell); 0 when :data:`FULL_CAP` is 0 (no full preparation).
    O(1)."""
    if FULL_CAP <= 0:
        return 0
    return int(min(FULL_MAX, max(FULL_CAP, FULL_BYTES // (40 * max(cells, 1)))))


def bins_for(n: int) -> int:
    """The number of ratio bins at ``n`` users: :data:`NB`, fewer where the four per-``C`` tables would exceed
    :data:`TABLE_BYTES` (never below :data:`NB_MIN`).  O(1)."""
    return int(min(NB, max(NB_MIN, TABLE_BYTES // (32 * max(n, 1)) - 1)))


def batch_for(nb: int, m_hi: int) -> int:
    """Rows binned per ``bincount``: :data:`BATCH`, more where a row has fewer cells than the table of one ``C``
    (``nb + 1`` slots), so the zeroed bincount output costs no more than the cells.  O(1)."""
    return max(BATCH, -(-(nb + 1) // (m_hi + 1)))


def _row_bytes(m_hi: int, nb: int, batch: int) -> int:
    """Modelled bytes per ``C`` of one chunk's sweep: ``H`` and its step (``64(m+2)``), the row's binning
    temporaries (``≈ 120(m+2)``), the pending batch (``48·batch·(m+2)``) and the chunk's bin sums (``40(nb+1)``).
    O(1)."""
    return (184 + 48 * batch) * (m_hi + 2) + 40 * (nb + 1)


def chunk_for(n: int, m_hi: int, nb: int, batch: int) -> int:
    """Consecutive ``C`` swept together: as many as fit in :data:`CHUNK_BYTES` (all ``n`` when they fit).  O(1)."""
    return int(max(16, min(n, CHUNK_BYTES // _row_bytes(m_hi, nb, batch))))


def g_bytes(m_lo: int, m_hi: int) -> int:
    """Bytes of ``G`` (longdouble, 16 bytes a cell) for every row ``m_lo..m_hi``.  O(1)."""

    def s(k: int) -> int:  # Σ_{m<k} (m+1)²
        return k * (k + 1) * (2 * k + 1) // 6

    return 16 * (s(m_hi + 1) - s(m_lo))


def _gamma(k: int, u: fmpq) -> arb:
    if k * u >= 1:
        raise InvalidArgument("n", str(k), "too large for the row route's error bound")
    return arb(k * u / (1 - k * u))


def _ld(b: arb) -> tuple:
    """``(v, e)``: ``b``'s midpoint as a longdouble and a rational ``e`` with ``|v − x| ≤ e·x`` for every ``x`` in the
    positive ball ``b`` (docs/numerics.md Lemma 1).  O(1)."""
    with arith.precision(128):
        v = LD(b.mid().str(40, radius=False))
        fv = arb(fmpq(*v.as_integer_ratio()))
        if not b > 0:
            raise InvalidArgument("exp_epsilon0", str(b), "gives a parameter ball touching 0: use a finite eps0")
        r = (fv - b).abs_upper() / arb(b.lower())
        e = arith.endpoints(arb(r.upper()))[1]
        return v, fmpq(e.numerator, e.denominator)


def theta_bound(m_hi: int, e_pf: Any, e_w: Any, u_dot: fmpq = U64, casts: int = 3) -> float:
    """The relative error ``θ`` of every cell (docs/numerics.md Lemma S4r): ``m_hi`` sweep steps of ``H`` (each
    ``(1+u)(1+γ₂)`` in longdouble) and of ``G`` (``(1+e_pf)(1+γ₂)``), ``casts`` single roundings of unit ``u_dot``
    (the casts to binary64 and the row weight's product), a dot product of ``m_hi + 1`` terms in that format (any
    order, ``γ_{m+1}``) and the row weight's own error ``e_w``.  The first sweep's cells: binary64 (``u_dot = 2^-53``,
    three roundings); the fully prepared cells: longdouble throughout (one rounding).  O(1)."""
    with arith.precision(128):
        step_h = (1 + arb(U_LD)) * (1 + _gamma(2, U_LD))
        step_g = (1 + arb(fmpq(e_pf))) * (1 + _gamma(2, U_LD))
        one = 1 + arb(u_dot)
        t = step_h**m_hi * step_g**m_hi * one**casts * (1 + _gamma(m_hi + 1, u_dot)) * (1 + arb(fmpq(e_w))) - 1
        return float(arith.endpoints(arb(t.upper()))[1]) * (1 + 2.0**-40)


def _toeplitz(v: np.ndarray, n: int, m: int) -> np.ndarray:
    """The ``(n+1) × (m+1)`` read-only view ``A[C, j] = v[C − j + m]`` of ``v`` (length ``n + m + 1``).  O(n + m)."""
    w = np.ascontiguousarray(v[::-1])
    s = w.strides[0]
    return np.lib.stride_tricks.as_strided(w[n:], shape=(n + 1, m + 1), strides=(-s, s), writeable=False)


def _h_rows(n: int, m_lo: int, m_hi: int, rows: Any = None) -> Any:
    """Yield ``(m, H)`` for ``m = m_lo..m_hi``: ``H[i, j] = Hyp(j; n, C_i, m)`` in longdouble for the ``C_i`` of
    ``rows`` (``None``: ``0..n``; a pair ``(r0, r1)``: ``r0..r1``; else an increasing integer array).  Each row ``C``
    is swept on its own (step ``m → m+1``: the next draw, without replacement, is a one w.p. ``(C − j)/(n − m)``, a
    zero w.p. ``(n − C − (m − j))/(n − m)``), so any set of rows gives bit for bit the rows of the full table.
    O(|rows|·m_hi²)."""
    if rows is None or isinstance(rows, tuple):
        r0, r1 = (0, n) if rows is None else rows
        R = None
        size = r1 - r0 + 1
    else:
        R = np.asarray(rows, dtype=np.int64)
        size = len(R)
    H = np.ones((size, 1), LD)
    for m in range(m_hi + 1):
        if m >= m_lo:
            yield m, H
        if m == m_hi:
            break
        den = LD(n - m)
        if R is None:  # contiguous rows: C − j runs over r0 − m .. r1; read-only Toeplitz views
            d = np.arange(r0 - m, r1 + 1)  # C − j
            a1 = _toeplitz(np.maximum(d, 0).astype(LD) / den, r1 - r0, m)
            a0 = _toeplitz(np.maximum(n - m - d, 0).astype(LD) / den, r1 - r0, m)
        else:
            D = R[:, None] - np.arange(m + 1)[None, :]
            a1 = np.maximum(D, 0).astype(LD) / den
            a0 = np.maximum(n - m - D, 0).astype(LD) / den
        Hn = np.empty((size, m + 2), LD)
        Hn[:, : m + 1] = H * a0
        Hn[:, m + 1] = 0
        Hn[:, 1:] += H * a1
        H = Hn


def _g_rows(p: Any, f: Any, m_lo: int, m_hi: int) -> Any:
    """Yield ``(m, G)`` for ``m = m_lo..m_hi``: ``G[j, k]`` = ``Bin(j, p) * Bin(m − j, f)`` at ``k``
    (``(m+1) × (m+1)``, longdouble; a new zero-holder adds a 1-report w.p. ``f``, a one-holder w.p. ``p``).
    O(m_hi³)."""
    G = np.ones((1, 1), LD)
    for m in range(m_hi + 1):
        if m >= m_lo:
            yield m, G
        if m == m_hi:
            break
        Gn = np.empty((m + 2, m + 2), LD)
        Gn[: m + 1, : m + 1] = G * p
        Gn[: m + 1, m + 1] = 0
        Gn[: m + 1, 1:] += G * f
        Gn[m + 1, : m + 1] = G[m] * f
        Gn[m + 1, m + 1] = 0
        Gn[m + 1, 1:] += G[m] * p
        G = Gn


def _sweep(n: int, p: Any, f: Any, m_lo: int, m_hi: int, at_row: Any, rows: Any = None, gs: list | None = None) -> None:
    """Sweep ``m = 0..m_hi``: ``at_row(m, H, G)`` for ``m ≥ m_lo`` with ``H`` of :func:`_h_rows` (the rows ``rows``)
    and ``G`` of :func:`_g_rows` (or the list ``gs`` of its ``(m, G)``, kept from an earlier sweep).
    O(|rows|·m_hi² + m_hi³)."""
    g_it = iter(gs) if gs is not None else _g_rows(p, f, m_lo, m_hi)
    for (m, H), (_m, G) in zip(_h_rows(n, m_lo, m_hi, rows), g_it):
        at_row(m, H, G)


@dataclass
class _Full:
    """One ``C`` prepared: its kept cells (float ratio ``≥ KEEP``) sorted by decreasing float ratio, the ratios, and
    longdouble prefix sums of ``P`` and ``Q`` (length ``L + 1``)."""

    C: int
    neg_r: np.ndarray  # −ratio, ascending
    cp: np.ndarray
    cq: np.ndarray
    adds: int  # every prefix sum is a sum of its terms through at most this many roundings (γ_adds)


def _prefix(x: np.ndarray) -> tuple:
    """``(s, k)``: the prefix sums ``s[j] = Σ_{i<j} x[i]`` (length ``L + 1``) of non-negative longdouble ``x``, in
    blocks of ``B ≈ √L`` (a ``cumsum`` inside each block plus the ``cumsum`` of the block totals before it), and
    ``k = B + L/B + 1``: each term passes at most ``k`` additions, so ``|ŝ − s| ≤ γ_k s`` (docs/numerics.md
    Lemma 3's argument).  O(L)."""
    L = len(x)
    B = max(1, math.isqrt(max(L, 1)))
    nb = -(-L // B) if L else 0
    X = np.zeros(nb * B, LD)
    X[:L] = x
    within = np.cumsum(X.reshape(nb, B), axis=1)
    before = np.concatenate([np.zeros(1, LD), np.cumsum(within[:, -1])[:-1]]) if nb else np.zeros(0, LD)
    s = (within + before[:, None]).ravel()[:L]
    return np.concatenate([np.zeros(1, LD), s]), B + nb + 1


def _exact(x: Any) -> arb:
    return arb(fmpq(*LD(x).as_integer_ratio()))


class SampledBinaryRows:
    """The exact worst case of the sampled binary RR round by rows of ``M`` (see the module docstring): certified
    ends of ``max_C H_α(P_C ‖ P_{C−1})`` at any ``α ≥ 1`` (:meth:`value`), ``0 < q < 1``.  Preparation
    ``O(n·m_hi² + Σ_rows n·m²)`` (:func:`route_seconds`), a value ``O(n + |full| log L)`` plus the rare promotion."""

    def __init__(self, exp_epsilon0: Any, q: Any, n: int) -> None:
        n = arith.integer_in(n, "n", lo=1)
        qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        if qq >= 1:
            raise InvalidArgument("q", str(qq), "must be below 1 for the row route (use the unsampled route)")
        self.n, self.q = n, qq
        with arith.precision(128):
            e = arith.ball(exp_epsilon0)
            if not e >= 1:
                raise InvalidArgument("exp_epsilon0", str(e), "must be at least 1")
            pb, fb = e / (e + 1), 1 / (e + 1)
            self.p, e_p = _ld(pb)
            self.f, e_f = _ld(fb)
            qb = arb(qq) if isinstance(qq, fmpq) else arith.ball(qq)
            from blanket.exact.laws import binomial as laws

            # a window of M ~ Bin(n, q) (the same law for every dataset), left-out mass tau <= 2^-140 (certified)
            vals, off, tail = laws.window_to_tail(n, qb, arb(2) ** -140)
            m_lo, m_hi = off, off + len(vals) - 1
            self.tau = arb(arb(tail).upper())
            self.w: dict = {}  # row weight Bin(n, q)(m): (binary64, longdouble)
            e_w, e_wl = fmpq(0), fmpq(0)
            for i, v in enumerate(vals):
                fv = float(v.mid())
                if fv > 0 and v > 0:
                    lv, el = _ld(v)
                    self.w[off + i] = (fv, lv)
                    e_w, e_wl = max(e_w, laws._rel_of(v, fv)), max(e_wl, el)
                else:  # a weight ball touching 0: the row is not computed, its mass is counted in tau
                    self.tau += arb(v.upper())
            e0_hi = arith.endpoints(e)[1]
        self.m_lo, self.m_hi = m_lo, m_hi
        self.e0_hi = fmpq(e0_hi.numerator, e0_hi.denominator)
        self.theta = theta_bound(m_hi, max(e_p, e_f), e_w)
        self.theta_full = theta_bound(m_hi, max(e_p, e_f), e_wl, U_LD, 1)
        if not self.theta < MAX_THETA:
            raise InvalidArgument("n", str(n), f"relative error bound {self.theta} too large for the row route")
        self.cells = sum(m + 1 for m in range(m_lo, m_hi + 1))
        th = self.theta
        self.nb = bins_for(n)
        self.batch = batch_for(self.nb, m_hi)
        self.chunk = chunk_for(n, m_hi, self.nb, self.batch)
        # G of every row of the window, kept when small (each chunk's sweep and each preparation reuse it)
        self._gs = list(_g_rows(self.p, self.f, m_lo, m_hi)) if g_bytes(m_lo, m_hi) <= G_CACHE_BYTES else None
        self.edges = self._pilot_edges(float(e0_hi) * (1 + 1e-6))
        self.nb = len(self.edges) - 1
        self.top = float(self.edges[-1])
        # ē_h: the inflated upper edge of bin h (the ratio of every cell in it is at most ē_h, Lemma S4r (v))
        self.ebar = self.edges[1:] * (1 + 4 * th + 2.0**-46)
        self.full: dict = {}
        self.full_cap = full_cap(self.cells)
        self._first_sweep(sorted({1, n})[: self.full_cap])  # a guess prepared in the first sweep (a choice)
        self._prepare(self._select())

    def _pilot_edges(self, top: float) -> np.ndarray:
        """The bin edges (a float choice: any increasing floats give the certified bound of Lemma S4r (v)).  The
        lowest is ``e_0 = 1 − max(16θ, 2⁻⁴⁰)`` (a cell with ``r̂ < e_0`` has ``P'/Q' < 1``).  Without kept ``G`` (a
        large ``m_hi``): :attr:`nb` geometric edges from ``e_0`` to ``top`` (above ``e^{ε0}``, every ratio is below
        it).  With it, a pilot: the cells of a few ``C`` (``1, 2, n/2, n − 1, n``) in binary64; the top edge is their
        largest float ratio over the cells with ``P > PILOT_FLOOR`` (times ``1 + PILOT_MARGIN``; cells above it are
        bounded by their ``P``-mass), up to half the edges are quantiles of their ``P``-mass above ratio 1 (the distinct
        ones) and the rest geometric in ``r − 1`` (nine decades below the top): at a small ``q`` every ratio is close to 1, and the bins
        sit where the mass is, so the chord of a straddling bin loses little.  O(m_hi²) with ``G`` kept."""
        n, nb = self.n, self.nb
        e0 = 1 - max(16 * self.theta, 2.0**-40)
        self.pilot = False
        if self._gs is None or n < 8:
            return np.geomspace(e0, top, nb + 1)
        Cs = sorted({1, 2, n // 2, n - 1, n})
        rows = sorted(set(Cs) | {c - 1 for c in Cs})
        pos = {c: i for i, c in enumerate(rows)}
        got: list = []

        def row(m: int, H: Any, G: Any) -> None:
            if m not in self.w:
                return
            R = (H.astype(np.float64) @ G.astype(np.float64)) * self.w[m][0]
            for c in Cs:
                P, Q = R[pos[c]], R[pos[c - 1]]
                k = (P > PILOT_FLOOR) & (Q > 0)
                got.append((P[k] / Q[k], P[k]))

        _sweep(n, self.p, self.f, self.m_lo, self.m_hi, row, rows=np.array(rows), gs=self._gs)
        r = np.concatenate([x for x, _p in got])
        w = np.concatenate([x for _r, x in got])
        up = r >= 1
        if not up.any():
            return np.geomspace(e0, top, nb + 1)
        self.pilot = True
        top = min(top, max(float(r[up].max()) * (1 + PILOT_MARGIN), 1 + 1e-9))
        order = np.argsort(r[up])
        rs, cw = r[up][order], np.cumsum(w[up][order])
        quant = np.unique(rs[np.searchsorted(cw, cw[-1] * np.linspace(0, 1, nb // 2 + 1)[1:-1])])
        quant = quant[(quant > 1) & (quant < top)]  # few distinct ratios (a small m): the rest go to geometric edges
        geo = 1 + (top - 1) * np.geomspace(1e-9, 1, max(nb - 2 - len(quant), 2))
        inner = np.unique(np.concatenate([[1.0], quant, geo]))
        inner = inner[(inner > e0) & (inner < top)]
        keep = np.concatenate([[True], np.diff(inner) > inner[1:] * 2.0**-40])  # distinct by more than rounding
        return np.concatenate([[e0], inner[keep], [top]])

    # ---------------------------------------------------------------- first sweep: binned masses per C
    def _first_sweep(self, guess: list) -> None:
        """The binned masses of every ``C`` (binary64), and the full preparation of ``guess`` in the same sweep, by
        chunks of :attr:`chunk` consecutive ``C`` (each chunk sweeps its rows ``c0 − 1..c1`` of ``H`` alone, so the
        memory is the tables plus one chunk's sweep).  O(n·m_hi² + Σ_rows n·m² + chunks·m_hi³ without kept ``G``)."""
        n, nb = self.n, self.nb
        collect, finish = self._collector(guess)
        l0 = math.log(float(self.edges[0]))
        inv = nb / math.log(float(self.edges[nb]) / float(self.edges[0]))
        ext = np.concatenate([[-np.inf], self.edges, [np.inf]])
        PB: Any = np.zeros((n, nb + 1))
        QB: Any = np.zeros((n, nb + 1))
        pending: list = []
        for c0 in range(1, n + 1, self.chunk):
            c1 = min(n, c0 + self.chunk - 1)
            size = (c1 - c0 + 1) * (nb + 1)
            base = (np.arange(c1 - c0 + 1) * (nb + 1))[:, None]
            pb, qb = np.zeros(size), np.zeros(size)

            def flush() -> None:  # one bincount per BATCH rows (a bin of one C gets at most BATCH·(m_hi+1) cells)
                nonlocal pb, qb
                if pending:
                    key = np.concatenate([k for k, _p, _q in pending])
                    pb += np.bincount(key, weights=np.concatenate([x for _k, x, _q in pending]), minlength=size)
                    qb += np.bincount(key, weights=np.concatenate([x for _k, _p, x in pending]), minlength=size)
                    pending.clear()

            def row(m: int, H: Any, G: Any) -> None:
                if m not in self.w:
                    return
                R = (H.astype(np.float64) @ G.astype(np.float64)) * self.w[m][0]
                P, Q = R[1:], R[:-1]
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = P / Q
                r = np.where(np.isnan(r), np.inf, r)
                # bin index h with edges[h] <= r < edges[h+1] exactly (-1: below e_0; nb: at or above the top, or
                # Q = 0): the pilot's edges by a search; geometric edges by a float guess from log r, corrected by
                # exact comparisons with the edges (a search where the guess was off by more than one)
                if self.pilot:
                    idx = np.searchsorted(self.edges, r, side="right") - 1
                else:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        t = np.nan_to_num((np.log(r) - l0) * inv, nan=-1.0, posinf=nb, neginf=-1.0)
                    idx = np.clip(np.floor(t), -1, nb).astype(np.int64)
                    idx -= r < ext[idx + 1]
                    idx = np.minimum(idx + (r >= ext[idx + 2]), nb)
                    if not np.all((ext[idx + 1] <= r) & ((r < ext[idx + 2]) | (idx == nb))):
                        idx = np.searchsorted(self.edges, r, side="right") - 1
                keep = idx >= 0
                pending.append(((base + idx)[keep], P[keep], Q[keep]))
                if len(pending) >= self.batch:
                    flush()
                collect(m, H, G, c0 - 1)

            _sweep(n, self.p, self.f, self.m_lo, self.m_hi, row, rows=(c0 - 1, c1), gs=self._gs)
            flush()
            PB[c0 - 1 : c1] = pb.reshape(c1 - c0 + 1, nb + 1)
            QB[c0 - 1 : c1] = qb.reshape(c1 - c0 + 1, nb + 1)
            del pb, qb
        finish()
        rows = self.m_hi - self.m_lo + 1
        with arith.precision(128):
            # a bin's sum: at most BATCH·(m_hi+1) additions per batch (one C, BATCH rows), one per batch more, nb more
            # in the suffix sums
            g = _gamma(self.batch * (self.m_hi + 1) + rows + nb + 8, U64)
            eps1 = float(arith.endpoints(arb((2 * g + arb(self.theta) * 2).upper()))[1]) + 2.0**-50
        self.eps1 = eps1
        # outward bin masses of P' = p/(1−θ) (up) and Q' = q/(1+θ) (down), Lemma S4r (v); in place, by chunks of C
        # (the suffix sums of each C's row are the same whatever the chunk)
        self.spu = np.zeros((n, nb + 1))
        self.sqd = np.zeros((n, nb + 1))
        for c0 in range(0, n, self.chunk):
            c1 = min(n, c0 + self.chunk)
            PB[c0:c1] *= 1 + eps1
            QB[c0:c1] *= 1 - eps1
            self.spu[c0:c1, :nb] = np.cumsum(PB[c0:c1, nb - 1 :: -1], axis=1)[:, ::-1]
            self.sqd[c0:c1, :nb] = np.cumsum(QB[c0:c1, nb - 1 :: -1], axis=1)[:, ::-1]
        self.pbu = PB[:, :nb]
        self.qbd = QB[:, :nb]
        self.ptop = PB[:, nb] + 2.0**-1000

    def _bound(self, a_up: float, a_dn: float) -> np.ndarray:
        """Float upper bounds (certified, Lemma S4r (v)) of ``H_α(P_C ‖ P_{C−1})``, ``C = 1..n`` (index ``C − 1``),
        for ``a_dn ≤ α ≤ a_up``, without the rows' and cells' additive terms: the bins whose lower edge exceeds
        ``a_up`` exactly (``P' − αQ'``), the bins straddling ``α`` by the chord of ``(r − α)_+``, the top bin's
        ``P'``.  O(n)."""
        g = int(np.searchsorted(self.edges[: self.nb], a_up, side="right"))  # bins h ≥ g: lower edge > a_up
        gs = int(np.searchsorted(self.ebar, a_dn, side="right"))  # bins h ≥ gs: upper edge ē_h > a_dn
        u = self.spu[:, g] - a_dn * self.sqd[:, g]
        for h in range(gs, g):  # straddling bins (at most two)
            lo_e, hi_e = float(self.edges[h]), float(self.ebar[h])
            P, Q = self.pbu[:, h], self.qbd[:, h]
            if a_dn >= lo_e:
                c = np.maximum(P - lo_e * Q, 0.0) * ((hi_e - a_dn) / (hi_e - lo_e) * (1 + 2.0**-50))
            else:
                c = np.maximum(P - a_dn * Q, 0.0)
            u = u + c
        u = np.maximum(u, 0.0) + 8.0 * 2.0**-53 * self.spu[:, min(gs, g)]
        return u + self.ptop

    def _select(self) -> list:
        """The ``C`` to prepare fully (a float choice): at each fourth bin edge ``α`` where the largest bound exceeds
        :data:`SELECT_FLOOR`, every ``C`` whose bound reaches the largest *lower* estimate there (the bins above ``α``,
        a subset of the cells: ``Σ (P − αQ)`` over them is at most ``H_α``), ranked by the largest ratio of the two;
        so the queries rarely need a promotion.  O(n · NB)."""
        want: dict = {}
        for g in range(0, self.nb, 4):
            a = float(self.edges[g])
            up = self._bound(a * (1 + 1e-15), a * (1 - 1e-15))
            if not float(up.max()) > SELECT_FLOOR:  # values this small: left to the queries
                continue
            low = self.spu[:, g + 1] / (1 + self.eps1) - a * self.sqd[:, g + 1] / (1 - self.eps1)
            best = float(low.max())
            if not best > 0:
                best = float(up.max()) * (1 - 1e-6)
            for i in np.nonzero(up >= best)[0]:
                s = float(up[i] / best)
                if s > want.get(int(i) + 1, 0.0):
                    want[int(i) + 1] = s
            want[int(np.argmax(low)) + 1] = math.inf
        ranked = sorted(want, key=lambda c: -want[c])
        return ranked[: max(self.full_cap - len(self.full), 0)]

    # ---------------------------------------------------------------- second sweep: full preparations
    def _collector(self, Cs: list) -> tuple:
        """``(row, finish)`` for a sweep: ``row(m, H, G, r0)`` keeps the cells of the pairs of ``Cs`` in longdouble
        (``θ_full``), ``finish()`` sorts them and stores the prefix sums in :attr:`full`.  ``H``'s rows are the ``C``
        from ``r0`` on (a chunk), or those of ``r0`` when it is an array; a pair is collected from the sweep holding
        both its rows (one per chunk).  O(|Cs|·m²) per row."""
        parts: dict = {c: ([], []) for c in Cs}
        keep_min = float(self.edges[0])

        def row(m: int, H: Any, G: Any, r0: Any) -> None:
            if m not in self.w or not Cs:
                return
            if isinstance(r0, int | np.integer):
                here = [c for c in Cs if r0 <= c - 1 and c < r0 + len(H)]
                pos = {c: c - r0 for c in here} | {c - 1: c - 1 - r0 for c in here}
            else:
                at = {int(c): i for i, c in enumerate(r0)}
                here = [c for c in Cs if c in at and c - 1 in at]
                pos = {c: at[c] for c in here} | {c - 1: at[c - 1] for c in here}
            if not here:
                return
            rowsC = sorted(pos)
            sub = {c: i for i, c in enumerate(rowsC)}
            R = (H[[pos[c] for c in rowsC]] @ G) * self.w[m][1]  # longdouble throughout (θ_full)
            for c in here:
                P, Q = R[sub[c]], R[sub[c - 1]]
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = P / Q
                k = (r >= keep_min) & (P > 0)  # the rest: ratio below 1 or P = 0 (Lemma S4r (vi))
                parts[c][0].append(P[k])
                parts[c][1].append(Q[k])

        def finish() -> None:
            for c in Cs:
                P = np.concatenate(parts[c][0]) if parts[c][0] else np.zeros(0, LD)
                Q = np.concatenate(parts[c][1]) if parts[c][1] else np.zeros(0, LD)
                with np.errstate(divide="ignore", over="ignore"):
                    r = (P / Q).astype(np.float64)
                order = np.argsort(-r, kind="stable")
                cp, k = _prefix(P[order])
                cq, _k = _prefix(Q[order])
                self.full[c] = _Full(c, -r[order], cp, cq, k)

        return row, finish

    def _prepare(self, Cs: list) -> None:
        """Prepare the ``C`` of ``Cs`` fully (one more sweep, of their rows ``C − 1, C`` of ``H`` only).
        O(|Cs|·m_hi² + |Cs|·Σ_rows m² + m_hi³ without kept ``G``)."""
        Cs = sorted(set(Cs) - set(self.full))
        if not Cs:
            return
        row, finish = self._collector(Cs)
        rows = np.array(sorted(set(Cs) | {c - 1 for c in Cs}), dtype=np.int64)
        _sweep(self.n, self.p, self.f, self.m_lo, self.m_hi, lambda m, H, G: row(m, H, G, rows), rows, self._gs)
        finish()

    # ---------------------------------------------------------------- values
    def _full_value(self, fu: _Full, al: arb, a_up: float, a_dn: float) -> tuple:
        """Ball lower and upper ends of ``H_α`` for a fully prepared ``C`` (Lemma S4r (vi)).  O(log L)."""
        th = self.theta_full
        kap = 4 * th + 2.0**-46
        t_hi, t_lo = a_up * (1 + kap), a_dn * (1 - kap)
        j_hi = int(np.searchsorted(fu.neg_r, -t_hi, side="left"))  # cells with ratio > t_hi
        j_lo = int(np.searchsorted(fu.neg_r, -t_lo, side="right"))  # cells with ratio ≥ t_lo
        j_mid = int(np.searchsorted(fu.neg_r, -a_up, side="left"))  # the lower end's prefix (any prefix is one)
        g = _gamma(fu.adds, U_LD)
        T = arb(fmpq(*float(th).as_integer_ratio()))
        w = arb(fmpq(*float(8 * th + 2.0**-44).as_integer_ratio()))
        cp, cq = _exact(fu.cp[j_hi]), _exact(fu.cq[j_hi])
        band = _exact(fu.cq[j_lo]) * (1 + g) - cq * (1 - g)  # ≥ the Q-mass of the cells j_hi ≤ i < j_lo
        absb = (1 + al) * arb(ABS) * self.cells
        mp, mq = _exact(fu.cp[j_mid]), _exact(fu.cq[j_mid])
        lo = mp * (1 - g) / (1 + T) - al * mq * (1 + g) / (1 - T) - absb
        hi = cp * (1 + g) / (1 - T) - al * cq * (1 - g) / (1 + T) + al * w * band / (1 - T)
        hi = hi + 3 * absb + self.tau
        return lo, hi

    def value(self, alpha: Any) -> tuple:
        """``(lo, hi, C)``: certified ends (``fmpq``) of ``max_C H_α(P_C ‖ P_{C−1})`` at ``α ≥ 1`` and a ``C`` with
        the largest upper end.  O(n + |full|·log L); a ``C`` whose binned bound exceeds the prepared ones' upper end
        is prepared (a sweep, at most :attr:`full_cap` in all)."""
        from blanket.exact.laws.binomial import float_upper

        al_q = arith.exact(alpha, "alpha")
        al_q = al_q if isinstance(al_q, fmpq) else fmpq(al_q)
        if al_q < 1:
            raise InvalidArgument("alpha", str(al_q), "must be >= 1")
        if al_q >= self.e0_hi:  # every likelihood ratio is at most e^{ε0} (the target's R_q is ε0-LDP): H_α = 0
            return fmpq(0), fmpq(0), 1
        a_up = float_upper(al_q)
        a_dn = -float_upper(-al_q)
        with arith.precision(128):
            al = arb(al_q)
            for _round in range(self.full_cap + 1):  # each pass prepares at least one more C, or stops
                best_lo, best_hi, arg = arb(0), arb(0), 1
                for c, fu in self.full.items():
                    lo, hi = self._full_value(fu, al, a_up, a_dn)
                    if lo > best_lo:
                        best_lo = lo
                    if hi > best_hi:
                        best_hi, arg = hi, c
                bound = self._bound(a_up, a_dn)
                for c in self.full:
                    bound[c - 1] = 0.0
                extra = (1 + al) * arb(ABS) * self.cells * 3 + self.tau
                top_hi = float(arith.endpoints(best_hi - extra)[1])
                over = np.nonzero(bound > top_hi)[0]
                room = self.full_cap - len(self.full)
                if len(over) and room > 0:
                    pick = over[np.argsort(-bound[over])][: min(max(PROMOTE, self.full_cap // 4), room)]
                    self._prepare([int(i) + 1 for i in pick])
                    continue
                break
            # every other C: its binned bound (certified) may still exceed the prepared ones' upper end
            i = int(np.argmax(bound))
            b_hi = arb(fmpq(*float(bound[i]).as_integer_ratio())) + extra
            if b_hi > best_hi:
                best_hi, arg = b_hi, i + 1
            lo_q = arith.endpoints(best_lo)[0]
            hi_q = arith.endpoints(best_hi)[1]
        return (
            max(fmpq(0), fmpq(lo_q.numerator, lo_q.denominator)),
            min(fmpq(1), fmpq(hi_q.numerator, hi_q.denominator)),
            arg,
        )

    # ---------------------------------------------------------------- one dataset's whole curve (session 15)
    def roc_points(self, C: int, points: int = 4096) -> list:
        """Inner ROC points ``(x̄, y̲)`` (exact dyadic rationals) of the dataset pair ``(P, Q) = (P_C, P_{C−1})``: for
        every ``β ≥ 0``, ``H_β(P‖Q) ≥ y̲ − β·x̄`` (``0 ≤ x̄ ≤ 1``, ``0 < y̲ ≤ 1``), so the ROC pair of the points
        (:func:`blanket.exact.accounting.curves.pair_from_roc`) is Blackwell-dominated by this one dataset pair
        (docs/composition.md §5f, "The worst dataset's whole curve"; status derived).  A point is a threshold test on the
        float ratio: a prefix ``j`` of ``C``'s sorted cells gives ``(x̄, y̲)`` = (upper end of ``Q``, lower end of
        ``P``) over it (Lemma S4r (iii), (vi)); a prefix of the mirror ``C' = n + 1 − C`` (whose pair is ``(Q, P)``
        after relabelling ``(M, K) ↦ (M, M − K)``, so its ratio-above-1 cells are ``C``'s ratio-below-1 cells) gives
        the complement's ``(1 − P'_lo, 1 − Q'_hi)``: both orders.  The prefixes: ``points`` thresholds uniform in
        ``log r`` on ``[0, ε0]`` and ``points`` quantiles of the ``P``-mass, per side (a float choice; any set of
        cells is a test).  ``C`` and ``C'`` are prepared fully if they are not yet (one sweep,
        ``O(n·m_hi² + Σ_rows m²)``); then ``O(points)`` ball operations."""
        C = arith.integer_in(C, "C", lo=1, hi=self.n)
        points = arith.integer_in(points, "points", lo=1, hi=1 << 20)
        mirror = self.n + 1 - C
        self._prepare([C, mirror])
        scale = 2**120
        out: list = []
        with arith.precision(192):
            T = arb(fmpq(*float(self.theta_full).as_integer_ratio()))
            absb = 2 * arb(ABS) * self.cells
            for c, flip in ((C, False), (mirror, True)):
                fu = self.full[c]
                L = len(fu.neg_r)
                g = _gamma(fu.adds, U_LD)
                ts = np.exp(np.linspace(0.0, math.log(self.top), points + 1))
                js = set(np.searchsorted(fu.neg_r, -ts, side="left").tolist())
                tot = float(fu.cp[L])
                if tot > 0:
                    qs = np.linspace(0.0, tot, points + 1)[1:]
                    js |= set(np.searchsorted(fu.cp.astype(np.float64), qs, side="left").clip(0, L).tolist())
                for j in sorted(js):
                    if j <= 0:
                        continue
                    p_lo = _exact(fu.cp[j]) * (1 - g) / (1 + T) - absb
                    q_hi = _exact(fu.cq[j]) / ((1 - g) * (1 - T)) + absb
                    e_p, e_q = arith.endpoints(p_lo)[0], arith.endpoints(q_hi)[1]
                    pl = fmpq(int((fmpq(e_p.numerator, e_p.denominator) * scale).floor()), scale)  # down
                    qh = fmpq(-int((-(fmpq(e_q.numerator, e_q.denominator) * scale)).floor()), scale)  # up
                    x, y = (1 - pl, 1 - qh) if flip else (qh, pl)
                    x = min(max(x, fmpq(0)), fmpq(1))
                    if y > 0:
                        out.append((x, min(y, fmpq(1))))
        return out


#: cost model constants (one-core seconds of the preparation; session 15, fitted at load 8-9 to n = 1000, q = 1/10
#: (3.7 s) and 1/2 (32.8 s), n = 2000, q = 1/10 (15.4 s), n = 2·10⁴, q = 10⁻³ (6.7 s), n = 10⁵, q = 10⁻⁵ (3.3 s),
#: then raised by 15 %; the binary64 products run faster per flop on larger rows)
SECONDS_PER_SWEEP_CELL = 1.5e-8
SECONDS_PER_FLOP = 6.8e-11
SECONDS_PER_FLOP_SMALL = 8e-9
SECONDS_PER_BIN_CELL = 1.4e-8
SECONDS_PER_BIN_SLOT = 2.4e-9
SECONDS_PER_LD_PRODUCT = 3.8e-9
#: fully prepared C the time model counts (the selection takes 8-30 of them)
PREPARED_TYPICAL = 12


def window_model(n: int, q: float) -> tuple:
    """``(m_lo, m_hi)``: about the window of ``M ~ Bin(n, q)`` the route keeps (left-out mass ``≤ 2⁻¹⁴⁰``), from the
    Chernoff bound ``P(M ≥ k) ≤ exp(−n·D(k/n ‖ q))`` (and below), plus two rows each side.  At a small ``nq`` it
    is well above ``nq + 14σ`` (``nq = 1``: ``m_hi ≈ 37``).  A choice, never a bound.  O(log n)."""
    lam = 140 * math.log(2)

    def kl(x: float) -> float:
        if x <= 0:
            return -math.log1p(-q)
        if x >= 1:
            return -math.log(q)
        return x * math.log(x / q) + (1 - x) * math.log((1 - x) / (1 - q))

    def side(up: bool) -> int:
        lo, hi = (int(n * q), n) if up else (0, int(math.ceil(n * q)))
        while hi - lo > 1:  # up: the smallest k with n·D(k/n‖q) ≥ lam; down: the largest
            mid = (lo + hi) // 2
            if (n * kl(mid / n) >= lam) == up:
                hi = mid
            else:
                lo = mid
        return hi if up else lo

    return max(0, side(False) - 2), min(n, side(True) + 2)


def route_bytes(n: int, q: float) -> int:
    """Modelled peak memory (bytes) of :class:`SampledBinaryRows` at ``n`` users, participation ``q``: the four
    per-``C`` bin tables (``32·n·(nb + 1)``, :func:`bins_for` keeps them within :data:`TABLE_BYTES`), one chunk's
    sweep (:func:`chunk_for`, within :data:`CHUNK_BYTES`), ``G`` (kept for every row of the window, or three of the
    largest while it is swept) and the fully prepared ``C`` (:func:`full_cap` of them, ``≈ 40`` bytes per cell of the
    window).  Measured peaks (RSS, with the interpreter's ``≈ 100`` MB) are below it (docs/composition.md §5f).  A
    choice, never a bound.  O(log n)."""
    if not 0 < q < 1:
        return 0
    m_lo, m_hi = window_model(n, q)
    nb = bins_for(n)
    batch = batch_for(nb, m_hi)
    chunk = chunk_for(n, m_hi, nb, batch)
    gb = g_bytes(m_lo, m_hi)
    g = gb if gb <= G_CACHE_BYTES else 48 * (m_hi + 2) ** 2
    cells = (m_hi - m_lo + 1) * (m_lo + m_hi + 2) // 2
    return 32 * n * (nb + 2) + chunk * _row_bytes(m_hi, nb, batch) + g + 40 * full_cap(cells) * cells


#: below this many expected absent users ``n(1 − q)`` the selection prepares up to :func:`full_cap` ``C`` (bounded15:
#: q = 0.999: n = 200 prepared 18, n = 966 prepared 45 of 47; q = 1/2: 2 to 7)
NEAR_ONE_ABSENT = 10.0
#: preparation sweeps modelled (the selection's, and one promotion); each re-sweeps ``G`` when it is not kept
PREPARE_SWEEPS = 2


def prepared_model(n: int, q: float, cells: int) -> int:
    """The number of ``C`` :func:`route_seconds` counts as fully prepared: :data:`PREPARED_TYPICAL`, or
    :func:`full_cap` (the most the route prepares) when ``n(1 − q) < NEAR_ONE_ABSENT`` (q near 1: neighbouring ``C``
    near ``n`` differ by less than the binned slack and the selection takes nearly all it may).  A choice, never a
    bound.  O(1)."""
    return full_cap(cells) if n * (1 - q) < NEAR_ONE_ABSENT else PREPARED_TYPICAL


def route_seconds(n: int, q: float) -> float:
    """Estimated one-core seconds of :class:`SampledBinaryRows`'s preparation at ``n`` users, participation ``q``:
    one sweep of ``H`` (``n·m_hi²/2`` longdouble cells, by chunks), the sweeps of ``G`` (``m_hi³/3`` cells, once when
    kept, else once per chunk), the row products (``2·(n+1)(m+1)²`` binary64 flops per row of the window), the
    binning (``n·(m+1)`` cells per row, ``2n(nb+1)`` bin slots per batch of rows) and the longdouble products of the
    fully prepared ``C`` (``2(m+1)²`` per row and ``C``, the two guessed and :data:`PREPARED_TYPICAL` more; those of a
    second sweep sweep only their own rows of ``H``, and, when ``G`` is not kept, all of ``G`` again:
    :data:`PREPARE_SWEEPS` such sweeps; q near 1 prepares :func:`prepared_model` ``C``).  bounded15: at q = 0.999
    both were missing (n = 966 modelled 30 s, ran 69 CPU s at load 8; n = 1216, modelled 30 s before the re-fit,
    ran > 240 s); now 48 s.  A choice, never a bound.  O(log n)."""
    if not 0 < q < 1:
        return math.inf
    m_lo, m_hi = window_model(n, q)
    nb = bins_for(n)
    batch = batch_for(nb, m_hi)
    kept = g_bytes(m_lo, m_hi) <= G_CACHE_BYTES
    chunks = 1 if kept else -(-n // chunk_for(n, m_hi, nb, batch))
    rows = m_hi - m_lo + 1
    mm = (m_lo + m_hi) / 2 + 1
    g_sweeps = 1 if kept else chunks + PREPARE_SWEEPS  # G kept: swept once for everything
    out = SECONDS_PER_SWEEP_CELL * (n * m_hi * m_hi / 2 + g_sweeps * m_hi**3 / 3)
    out += (SECONDS_PER_FLOP + SECONDS_PER_FLOP_SMALL / mm) * rows * 2 * (n + 1) * mm * mm
    out += SECONDS_PER_BIN_CELL * rows * n * mm + SECONDS_PER_BIN_SLOT * (rows / batch + 1) * 2 * n * (nb + 1)
    cells = (m_hi - m_lo + 1) * (m_lo + m_hi + 2) // 2
    return out + SECONDS_PER_LD_PRODUCT * rows * mm * mm * (4 + 2 * prepared_model(n, q, cells))
