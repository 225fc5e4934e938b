"""The worst-case privacy curve of shuffled binary RR at large ``n``, by stepping from one dataset to the next.

Let ``L_k = Bin(k, p) ⊛ Bin(n − k, f)`` be the law of the count of ones when ``k`` of the ``n`` users hold a one
(``p = e^{ε0}/(1 + e^{ε0})``, ``f = 1 − p``).  The dataset with ``c`` ones among the others gives the pair
``(L_{c+1}, L_c)`` (the distinguished user holds a one, then a zero), and the reverse order of dataset ``c`` is the
forward order of dataset ``n − 1 − c`` (flip every bit), so the worst-case curve is
``E(α) = max_{0 ≤ k < n} H_α(L_{k+1} ‖ L_k)``.  Replacing a zero by a one multiplies the generating function by
``(f + p z)/(p + f z) = (ρ + z)/(1 + ρ z)`` with ``ρ = e^{−ε0}``: an *all-pass* filter (unitary on ``ℓ²``), so one
step ``L_k → L_{k+1}`` costs O(W) operations (a first-order recursion) and its rounding errors do not grow in ``ℓ²``.

:func:`binary_worst_curve_values_stepped` anchors one *chain* every :func:`step_span` datasets (a float window
convolution, docs/numerics.md Lemma R1), steps it forward, and bounds ``H_α`` of every pair at every grid ``α`` from
the float vectors with the a-priori error bound of docs/numerics.md Lemma C2 (``ℓ²`` error of the chain, tail
sums, the threshold found by a running maximum of the likelihood ratio, and what its float location can miss).
All chains of a task run side by side: the recursion loops over the window with one vector operation per chain
set.  Complexity O(n·(W + G log W) + (n/m)·W_a·W_b) float operations for ``G`` grid points, windows of
``W ≈ 18·sqrt(n p f) + m(p − f)`` outcomes (the window of the sum, cut from the anchors' tails; 21·sqrt(n p f)
with the factors' windows before 2026-11-29) and chains of ``m`` steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.runtime.executors import map_blocks
from flint import arb, ctx, fmpq

#: window cut-off of every chain (mass of each law outside its chain's window, per side and factor)
STEP_TOL = fmpq(1, 2**52)
#: clamp of the float laws before ratios and sums (a normal binary64; clamping moves each entry by at most this
#: beyond its own error)
TINY = 2.0**-1000
#: most chains of one task (they run side by side in one recursion)
MAX_CHAINS = 512
#: the window of a chain is cut where the anchors' float tails reach this (per side; docs/numerics.md Lemma C2 (i)):
#: ``m·τ`` stays far below the chain's other errors (``≈ 10⁻¹³`` in ``ℓ²``), and the window of the sum shrinks by up
#: to ``1 − 1/√2`` against the two factors' windows
CUT_TOL_F = 2.0**-64
#: the running sums (ratios, suffix sums, thresholds) stop where the end anchor's float right tail reaches this: the
#: mass beyond enters the certified value once, not through the chain (Lemma C2 (v)); about 10 % of their columns
SUMS_CUT_TOL_F = 2.0**-50
_U = 2.0**-53
#: skip the running maximum of the ratios (and its term D) on the rows where the clipped ratios are already
#: non-decreasing: there the running maximum is the ratio row itself and D is exactly its constant (the same numbers;
#: off only in the test that checks this)
MONOTONE_SHORTCUT = True
#: search the thresholds only for the grid points below the largest running maximum of the step (beyond it every
#: threshold is the window's end: the same numbers; off only in the test that checks this)
THRESHOLD_CUT = True


def step_span(n: int) -> int:
    """Steps per chain at ``n`` users: ``2^round(log₂ √n)`` within ``[8, 1024]`` (the chain's error bound grows
    linearly in the steps, its anchor costs one window convolution)."""
    return max(8, min(1024, 2 ** round(math.log2(max(math.sqrt(n), 1.0)))))


#: the cost model of the stepped sweep, per dataset: SECONDS_PER_DATASET_SIGMA one-core seconds per unit of
#: ``sqrt(n p f)`` (the window's work: the all-pass step, the clamped laws, ratios and suffix sums) plus
#: SECONDS_PER_DATASET (the grid's work: thresholds and bounds at 1024 grid points, the per-step calls).  Fitted
#: 2026-11-29 on the kernel with the monotone shortcut and the threshold cut, ε0 = 1, one process, CPU seconds on a
#: loaded machine (load 15-24 on 2 cores): 65 µs per dataset at n = 10^4 and 3·10^4, 82 µs at 10^5, 108 µs at
#: 3·10^5, 161 µs at 10^6 (an eighth of the datasets; every dataset's law has the variance n p f, so all cost
#: the same); the model gives 62, 71, 88, 116, 170 µs.  A cost model for callers that choose a route, never a bound
SECONDS_PER_DATASET_SIGMA = 2.7e-7
SECONDS_PER_DATASET = 5e-5
#: and per sweep, one-core seconds that do not depend on ``n`` much: the grid top's and the top point's blanket views
#: in the calling process (1.2 s measured at n = 10^5 and 10^6, ε0 = 1) and the pool's start (the preload of
#: scipy.signal, a fork per worker: about 1 s), counted as two cores' worth so that the estimate's ``sweep/cores``
#: carries them (about 2.5 s on 2 cores)
SWEEP_FIXED_SECONDS = 5.0


def sweep_seconds(n: int, epsilon0: float = 1.0) -> float:
    """Estimated one-core seconds of :func:`binary_worst_curve_values_stepped` at ``n`` users: ``n`` datasets, each
    costing :data:`SECONDS_PER_DATASET_SIGMA` per unit of ``sqrt(n p f)`` (the window is ``≈ 18·sqrt(n p f) +
    m(p − f)`` outcomes wide) plus :data:`SECONDS_PER_DATASET` (a grid of up to about a thousand points; fewer
    points cost a little less, so the model errs on the slow side there), plus :data:`SWEEP_FIXED_SECONDS`; times
    :data:`COMPILED_SWEEP_FACTOR` with the compiled all-pass step (numba installed).
    Calibrated on measured points at
    ``ε0 = 1`` (within 8 % of them from 10^4 to 10^6, above them from 3·10^4 on), a loaded machine's CPU seconds:
    an idle core is faster.  O(1)."""
    e = math.exp(-abs(epsilon0))
    pf = e / (1 + e) ** 2
    per = SECONDS_PER_DATASET_SIGMA * math.sqrt(max(n * pf, 1.0)) + SECONDS_PER_DATASET
    return SWEEP_FIXED_SECONDS + n * per * (COMPILED_SWEEP_FACTOR if _compiled_available() else 1.0)


#: the sweep's per-dataset CPU with the compiled all-pass step against lfilter's (measured 2026-11-29, loaded
#: machine: n = 10^5 4.8 / 7.8 one-core s in one process; n = 10^6, the whole command: 112 / 175 CPU s)
COMPILED_SWEEP_FACTOR = 0.62


def _compiled_available() -> bool:
    """Whether :func:`allpass` will run the compiled kernel: :data:`COMPILED_ALLPASS` and numba importable (looked
    up, not imported: the cost model stays O(1)).  O(1)."""
    import importlib.util

    return COMPILED_ALLPASS and importlib.util.find_spec("numba") is not None


#: each task of the sweep holds about this many dataset·outcome steps (chains × steps × window): about two seconds
#: on one core (14 chains of 1024 steps over a window of 9300 outcomes at n = 10^6: 2.3 s CPU; 178 chains of 256
#: steps at n = 10^5: 2.6 s; loaded machine, 2026-11-29, after the kernel's row shortcuts).  The run's time budget (``--time-budget``) and the progress bar
#: advance as each task ends, so they do at that grain, and a stop kills the workers' running tasks
#: (exact.runtime.executors).  The grain depends on ``n`` and ``ε0`` only, never on the budget or the executor: the
#: values are the same with or without either
TASK_WORK = 2**27


def task_chains(n: int, m: int, exp_epsilon0: float) -> int:
    """Chains of ``m`` steps per task of the sweep: as many as fit in :data:`TASK_WORK` with a window of
    ``21·sqrt(n p f)`` outcomes, at least one (the chains of a task run side by side; measured at n = 10^6, CPU per
    chain: 0.153 s with 32 chains to a task, 0.161–0.166 s with 14, 0.172–0.18 s with 7).  O(1)."""
    e = max(float(exp_epsilon0), 1.0)
    pf = e / (1 + e) ** 2
    width = 21 * math.sqrt(max(n * pf, 1.0))
    return max(1, int(TASK_WORK // (m * width)))


#: use the compiled all-pass step when numba is installed (:mod:`blanket.exact.accounting.allpass_kernel`, the
#: optional extra ``blanket[fast]``): the same roundings in the same order as ``lfilter``, so the same numbers bit for
#: bit, about five times faster (a third off the sweep at n = 10^6); False: always ``lfilter`` (the tests compare)
COMPILED_ALLPASS = True


def allpass(X: np.ndarray, rho: float) -> np.ndarray:
    """``Y = Π A_ρ X`` row-wise up to rounding: ``y_i = ρ x_i + d_{i−1}``, ``d_i = x_i − ρ y_i`` (``d_{−1} = 0``),
    i.e. ``(1 + ρ z) Y = (ρ + z) X`` along axis 1, each row a law on its window (docs/numerics.md Lemma C2):
    ``scipy.signal.lfilter`` with ``b = (ρ, 1)``, ``a = (1, ρ)`` (its transposed direct form evaluates exactly
    these two roundings per output and per state), or with :data:`COMPILED_ALLPASS` and numba installed the compiled
    kernel of :mod:`blanket.exact.accounting.allpass_kernel` (the same roundings, bit for bit).  O(rows·cols)
    operations.
    """
    if COMPILED_ALLPASS:
        from blanket.exact.accounting import allpass_kernel

        if allpass_kernel.KERNEL is not None:
            return np.asarray(allpass_kernel.KERNEL(np.ascontiguousarray(X, dtype=np.float64), float(rho)))
    # imported here, not at the top: importing scipy.signal costs about a second of CPU, which every command
    # (they all import the accountant) would otherwise pay at start-up
    from scipy.signal import lfilter

    return np.asarray(lfilter(np.array([rho, 1.0]), np.array([1.0, rho]), X, axis=1), dtype=np.float64)


def _upper(x: arb) -> float:
    return float(laws.float_upper(x))


def _anchor(n: int, k: int, p: arb, f: arb) -> dict:
    """``L_k`` as a float vector: the float windows of ``Bin(k, p)`` and ``Bin(n − k, f)`` convolved (``H`` from
    outcome ``lo``), its relative error ``rel`` against the windowed law and ``T``, the certified total of what
    the two windows leave out (``0 ≤ L_k − H̃ ≤ T`` pointwise, summing to at most ``T``).  O(W_a·W_b)."""
    tol = STEP_TOL
    sides = []
    for m, q in ((k, p), (n - k, f)):
        if m == 0:
            sides.append((np.ones(1), 0, 0.0, arb(0)))
        else:
            w = laws.float_window(m, q, tol)
            sides.append((w.values, w.offset, w.rel, w.tail))
    (a, oa, ra, ta), (b, ob, rb, tb) = sides
    H = np.convolve(a, b)
    rel = (1 + laws.float_ball(ra)) * (1 + laws.float_ball(rb)) * (1 + arb(laws.gamma(min(len(a), len(b))))) - 1
    return {"H": H, "lo": oa + ob, "rel": rel, "T": ta + tb}


def _tail_cut(an: dict, side: str, tol: float) -> tuple:
    """``(x, t)``: an outcome ``x`` and a certified ``t ≥`` the mass of ``L_k`` (the anchor ``an``) below ``x``
    (``side="left"``) or above ``x`` (``"right"``), ``x`` as far in as the float tail ``tol`` allows
    (docs/numerics.md Lemma C2 (i)): the float tail sums of the anchor, divided by ``(1 − γ_W)(1 − rel)``, plus
    ``T``.  O(W)."""
    H = an["H"]
    cs = np.cumsum(H if side == "left" else H[::-1])
    j = int(np.searchsorted(cs, tol))  # cs[j - 1] < tol: the j outermost entries are cut
    j = min(j, len(H) - 1)
    s = float(cs[j - 1]) if j > 0 else 0.0
    t = arb(_upper(arb(s))) / (1 - arb(laws.gamma(max(j, 1)))) / (1 - an["rel"]) + an["T"]
    x = an["lo"] + j if side == "left" else an["lo"] + len(H) - 1 - j
    return x, t


def _chain(start: dict, end: dict) -> dict:
    """The chain from the anchor ``start`` (``L_{k_0}``) to ``k_e`` (``end``: the anchor of ``L_{k_e}``): the window
    ``[lo, hi]`` that holds every ``L_j``, ``k_0 ≤ j ≤ k_e``, up to the certified mass ``tau`` (its left end from
    ``L_{k_0}``'s left tail, its right end from ``L_{k_e}``'s right tail: the laws increase stochastically in ``j``),
    and ``H``, the anchor's float vector on ``[lo, …]``; ``hs ≤ hi``, the right end of the running sums, and
    ``tau_v``, the certified mass of every ``L_j`` outside ``[lo, hs]`` (Lemma C2 (v)).  O(W)."""
    lo, tl = _tail_cut(start, "left", CUT_TOL_F)
    hi, tr = _tail_cut(end, "right", CUT_TOL_F)
    hi = max(hi, lo)
    hs, ts = _tail_cut(end, "right", SUMS_CUT_TOL_F)
    hs = min(max(hs, lo), hi)
    H = start["H"][lo - start["lo"] : hi - start["lo"] + 1]
    return {
        "H": H,
        "Hmax": float(start["H"].max()),
        "lo": lo,
        "hi": hi,
        "rel": start["rel"],
        "T": start["T"],
        "tau": tl + tr,
        "hs": hs,
        "tau_v": tl + ts,
    }


def _steps_task(n: int, k_lo: int, k_hi: int, m: int, e0spec: tuple, alphas: tuple, prec: int) -> tuple:
    """Upper bounds (binary64) of ``H_α(L_{k+1} ‖ L_k)`` at every ``α`` of ``alphas``, maximised over
    ``k_lo ≤ k < k_hi``, and the ``k`` attaining each maximum: chains anchored at ``k_lo, k_lo + m, …`` stepped
    side by side (Lemma C2).  Module level, picklable arguments."""
    with arith.precision(prec):
        ee0 = arb(fmpq(*map(int, e0spec[1].split("/")))) if e0spec[0] == "exp" else e0spec[1]
        ee0 = arith.ball(ee0)
        f = 1 / (ee0 + 1)
        p = ee0 * f
        rho = 1 / ee0
        rho_hat, e_rho = laws.float_param(rho)
        starts = list(range(k_lo, k_hi, m))
        anchors = [_anchor(n, k, p, f) for k in starts] + [_anchor(n, k_hi, p, f)]
        chains = [_chain(anchors[j], anchors[j + 1]) for j in range(len(starts))]
        W = max(c["hi"] - c["lo"] + 1 for c in chains)
        C = len(chains)
        X = np.zeros((C, W))
        for j, c in enumerate(chains):
            X[j, : len(c["H"])] = c["H"]
        pf, ff = float(p.mid()), float(f.mid())
        h = max(0, min(int(k * pf + (n - k) * ff) - c["lo"] for k, c in zip(starts, chains)) - 8)
        # below column h every pair has P ≤ Q exactly (Lemma C2 (v): x below the mean of the others' law lies left of
        # its mode); certified here in balls, the column moved left until it holds (never in practice)
        while h > 0 and not all(
            arith.le(c["lo"] + h + 1, k * p + (n - 1 - k) * f) is True for k, c in zip(starts, chains)
        ):
            h = max(0, h - 8)
        # the running sums stop at the largest hs (Lemma C2 (v): the mass beyond is in tau_v)
        Ws = max(h + 1, max(c["hs"] - c["lo"] + 1 for c in chains))
        Wu = Ws - h
        # ---- a-priori constants (Lemma C2), in balls, then rounded up to binary64
        u = arb(laws.U)
        g = (1 + arb(laws.gamma(2))) * arb(laws.gamma(2))
        rh = laws.float_ball(rho_hat)
        c_step = g * (2 + 3 * rh) / (1 - rh - 2 * rh * g)
        rmax = arith.ball(max(rh.upper(), (rho * (1 + arb(e_rho))).upper()))
        c_model = 2 * arb(e_rho) * rho / arith.int_power(1 - rmax, 2)
        cc = c_step + c_model
        under = arb(fmpq(1, 2**1000)) * W  # subnormal roundings of the recursion (absolute, per step)
        root_w = arb(W).sqrt()
        A = np.empty(C)
        B = np.empty(C)
        for j, c in enumerate(chains):
            n2 = (arb(_upper(arb(c["Hmax"]))) / (1 - c["rel"]) + c["T"]).sqrt()
            e0 = c["rel"] * n2 + c["T"]
            em = (e0 + m * (c["tau"] + under + cc * n2)) * (1 + cc) ** m
            e1 = root_w * em  # l1 error of every vector of the chain
            B[j] = _upper((e1 + 2 * u) * (1 + 8 * u))
            A[j] = _upper((e1 + c["tau_v"] + arb(fmpq(1, 2**900))) * (1 + 8 * u))
        gW = arb(laws.gamma(Wu + 3))
        c_s = _upper(2 * gW / (1 - gW) + 11 * u)
        d_fac = _upper(1 + gW)
        d_abs = _upper(arb(2.2) * u)
    al = np.asarray(alphas, dtype=np.float64)
    a_top = math.nextafter(float(al.max()), math.inf)  # a cap strictly above every grid alpha
    # U = fl(SP̂·(1 + c_s)) − fl(SQ̂·α(1 − c_s)) + (A + αB) + K  (Lemma C2 (v); the factors rounded outward)
    a1 = math.nextafter(1.0 + c_s, math.inf)
    al_lo = np.nextafter(al * (1.0 - c_s), 0.0)
    AB = A[:, None] + al[None, :] * B[:, None]
    AB = np.nextafter(AB, np.inf)
    ends = np.array([min(k + m, k_hi) for k in starts])
    kk = np.array(starts)
    best = np.full(len(al), -np.inf)
    best_k = np.zeros(len(al), dtype=np.int64)

    def suffix(Lt: np.ndarray, S: np.ndarray) -> np.ndarray:
        # S[:, Wu] = 0 (set once): the empty tail (no index with rm > alpha)
        np.cumsum(Lt[:, ::-1], axis=1, out=S[:, Wu - 1 :: -1])
        return S

    off = (np.arange(C) * (Wu + 1))[:, None]  # row offsets into the flattened suffix sums
    U = np.empty((C, len(al)))
    RM = np.empty((C, Wu + 1))  # the running maximum, then +inf: the first index with rm > alpha is at most Wu
    RM[:, Wu] = np.inf
    rm = RM[:, :Wu]
    # two buffers each for the clamped laws and their suffix sums, swapped every step (no allocation in the loop)
    Lb = (np.empty((C, Wu)), np.empty((C, Wu)))
    Sb = (np.zeros((C, Wu + 1)), np.zeros((C, Wu + 1)))
    t = None
    Lt_prev = np.maximum(X[:, h:Ws], TINY, out=Lb[0])
    S_prev = suffix(Lt_prev, Sb[0])
    for s in range(m):
        live = np.nonzero(kk + s < ends)[0]
        if len(live) == 0:
            break
        Y = allpass(X, rho_hat)
        # only the columns from h on: below h, P ≤ Q exactly (Lemma C2 (v))
        Lt = np.maximum(Y[:, h:Ws], TINY, out=Lb[(s + 1) % 2])
        SP = suffix(Lt, Sb[(s + 1) % 2])
        np.divide(Lt, Lt_prev, out=rm)
        np.minimum(rm, a_top, out=rm)  # min(r, α⁺): its running maximum is min(rm, α⁺), α⁺ > α_G (Lemma C2 (v))
        D = _running_max(rm, Lt_prev, d_fac, d_abs)
        K = D * (1 + 8 * _U)
        # from al[gc] on, α ≥ every running maximum (its row's last entry): the first index with rm > α is Wu in every
        # row, where both suffix sums are 0, so U = AB + K there, the same number the gathers give (Lemma C2 (v));
        # the threshold search runs on al[:gc] only (most grid points lie beyond the window's largest ratio)
        gc = int(np.searchsorted(al, rm[:, Wu - 1].max(), side="left")) if THRESHOLD_CUT else len(al)
        if t is None or t.shape[1] != gc:
            t_new = np.broadcast_to(off + Wu, (C, gc)).copy()  # a guess; _thresholds checks every guess
            if t is not None:
                j = min(gc, t.shape[1])
                t_new[:, :j] = t[:, :j]
            t = t_new
        if gc:
            t = _thresholds(RM, al[:gc], t, off)
            Ug = U[:, :gc]
            np.multiply(SP.ravel().take(t), a1, out=Ug)
            Ug -= S_prev.ravel().take(t) * al_lo[:gc]
            Ug += AB[:, :gc]
            Ug += K[:, None]
        if gc < len(al):
            np.add(AB[:, gc:], K[:, None], out=U[:, gc:])
        Ul = U if len(live) == C else U[live]
        top = Ul.max(axis=0)
        better = top > best
        if better.any():
            best_k[better] = kk[live][Ul.argmax(axis=0)[better]] + s
            np.maximum(best, top, out=best)
        X = Y
        Lt_prev = Lt
        S_prev = SP
    return best, best_k


def _running_max(rm: np.ndarray, Q: np.ndarray, d_fac: float, d_abs: float) -> np.ndarray:
    """Replace each row of ``rm`` (the clipped ratios ``r'``) by its running maximum, in place, and return per row
    ``D = fl(Σ fl((rm − r')·Q)) · d_fac + d_abs`` (docs/numerics.md Lemma C2 (v)).  On a row whose ``r'`` is already
    non-decreasing (almost every row: the true ratio is monotone) the running maximum is ``r'`` itself and every
    term is exactly ``0``, so ``D = d_abs``: with :data:`MONOTONE_SHORTCUT` the scan and the sum run on the other
    rows only, and the numbers are the same.  O(rows·cols)."""
    D = np.full(rm.shape[0], d_abs)
    dec = np.nonzero(np.less(rm[:, 1:], rm[:, :-1]).any(axis=1) | (not MONOTONE_SHORTCUT))[0]
    if len(dec):
        r = rm[dec]
        acc = np.maximum.accumulate(r, axis=1)
        rm[dec] = acc
        np.subtract(acc, r, out=r)
        D[dec] = np.einsum("ij,ij->i", r, Q[dec]) * d_fac + d_abs
    return D


def _thresholds(RM: np.ndarray, al: np.ndarray, guess: np.ndarray | None, off: np.ndarray) -> np.ndarray:
    """Flat indices ``off + t`` of the first entry of each row of ``RM`` (non-decreasing rows ending in ``+inf``)
    greater than each ``α`` of ``al``: the previous step's indices moved right by one where ``RM[t] ≤ α``, then
    checked (``RM[t] > α`` and ``t = 0`` or ``RM[t − 1] ≤ α``: with non-decreasing rows this *is* the first such
    index); where a check fails (the threshold moved by more than one: a few per cent of the entries), a
    vectorised binary search.  O(C·G) gathers, plus O(log W) per failed entry."""
    flat = RM.ravel()
    C, Wp = RM.shape
    A = np.broadcast_to(al, (C, len(al)))
    if guess is not None:
        t = guess
        t += flat.take(t) <= A
        ok = flat.take(t) > A
        at0 = t == off
        ok &= at0 | (flat.take(np.where(at0, t, t - 1)) <= A)
        bad = np.nonzero(~ok.ravel())[0]
        tf = t.reshape(-1)
    else:
        t = np.empty((C, len(al)), dtype=np.int64)
        tf = t.reshape(-1)
        bad = np.arange(tf.size)
    if len(bad):
        a = A.reshape(-1)[bad]
        row0 = (bad // len(al)) * Wp
        lo = row0 - 1  # virtual entry -inf before the row
        hi = row0 + Wp - 1  # the row's last entry, +inf > alpha
        while True:
            gap = hi - lo > 1
            if not gap.any():
                break
            mid = (lo + hi) // 2
            gt = flat.take(np.maximum(mid, row0)) > a
            hi = np.where(gap & gt, mid, hi)
            lo = np.where(gap & ~gt, mid, lo)
        tf[bad] = hi
    return t


def binary_worst_curve_values_stepped(mech: KRR, n: int, alphas: Sequence, **run: Any) -> list:
    """Certified upper values ``(α, U)``, ``U ≥ E(α)``, of the worst-case curve of shuffled binary RR over all
    datasets at the dyadic ``alphas`` (each ``≥ 1``, exact in binary64: :func:`curves.curve_grid`), by chains of
    :func:`step_span` datasets (module docstring; docs/numerics.md Lemma C2), on the executor of ``run``
    (``workers``, ``scheduler``, ``progress``).  Complexity O(n·(W + G log W) + (n/m)·W²) float operations.
    """
    return binary_worst_curve_stepped(mech, n, alphas, **run)[0]


def binary_worst_curve_stepped(mech: KRR, n: int, alphas: Sequence, **run: Any) -> tuple:
    """``(values, datasets)``: :func:`binary_worst_curve_values_stepped` and, per ``α``, the dataset ``c`` (ones
    among the others, the distinguished user's one against its zero) whose float bound is the largest there: a
    candidate for the worst dataset (its own exact δ is a certified lower end).  Same complexity."""
    n = arith.integer_in(n, "n", lo=2)
    als = [arith.exact(a, "alpha") for a in alphas]
    fl = []
    for a in als:
        a = a if isinstance(a, fmpq) else fmpq(a)
        v = int(a.p) / int(a.q)
        if a < 1 or fmpq(*v.as_integer_ratio()) != a:
            raise InvalidArgument("alphas", str(a), "must be >= 1 and exact in binary64 (use curve_grid)")
        fl.append(v)
    if not fl:
        raise InvalidArgument("alphas", "[]", "must hold at least one grid point")
    prec = max(int(ctx.prec), 128)
    with arith.precision(prec):  # a tight ball: the windows' anchors are as accurate as e^{ε0} is (pmf sensitivity)
        ee0 = mech.exp_epsilon0()
        e0spec = ("exp", str(ee0)) if isinstance(ee0, fmpq) else ("ball", arith.ball(ee0))
    m = step_span(n)
    chains = -(-n // m)
    per = max(1, min(MAX_CHAINS, -(-chains // 2)))
    per = min(per, task_chains(n, m, float(arith.ball(ee0).mid())))  # tasks of about two seconds (TASK_WORK)
    span = per * m
    grid = np.unique(np.asarray(fl, dtype=np.float64))  # strictly increasing (the task's threshold search needs it)
    tasks = [(n, k0, min(n, k0 + span), m, e0spec, tuple(grid.tolist()), prec) for k0 in range(0, n, span)]
    res = map_blocks(
        _steps_task,
        tasks,
        desc=f"worst-case curve over {n} datasets",
        sizes=[t[2] - t[1] for t in tasks],
        # allpass's imports (and the compiled kernel, with numba), once before a new pool forks, not once per process
        preload=("scipy.signal", "blanket.exact.accounting.allpass_kernel"),
        **run,
    )
    best = np.full(len(grid), -np.inf)
    best_k = np.zeros(len(grid), dtype=np.int64)
    for v, kv in res:
        better = v > best
        best_k[better] = kv[better]
        best = np.maximum(best, v)
    pos = np.searchsorted(grid, np.asarray(fl, dtype=np.float64))
    out = []
    for a, v in zip(als, best[pos].tolist()):
        uq = fmpq(*float(max(v, 0.0)).as_integer_ratio())
        out.append((a, min(uq, fmpq(1))))
    return out, [int(c) for c in best_k[pos]]
