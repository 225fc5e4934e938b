"""The worst-case curve of shuffled binary RR by stepping datasets (exact/accounting/curve_steps.py; docs/numerics.md
Lemma C2).

Independent routes: exact rational recursions and polynomial products (the all-pass step, the chain identity
``(p + f z) L_{k+1} = (f + p z) L_k``), the exact worst case over all datasets (exact rationals, every dataset, both
orders: exact.shuffled.binary.delta_binary), the exact ROC hull (ball pmfs) and the block sweep (Lemma C1).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from blanket.exact.accounting import curve_steps, curves
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.binary import delta_binary
from flint import arb, fmpq, fmpq_poly
from hypothesis import given, settings
from hypothesis import strategies as st


def _loop_allpass(x: list, rho: fmpq) -> list:
    """The recursion of Lemma C2 (iii) in exact rationals: y_i = rho x_i + d_{i-1}, d_i = x_i - rho y_i."""
    d, out = fmpq(0), []
    for v in x:
        y = rho * v + d
        d = v - rho * y
        out.append(y)
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=60),
    st.floats(0.01, 0.95),
)
def test_allpass_is_the_exact_recursion_within_the_lemma_bound(xs, rho):
    X = np.array([xs])
    Y = curve_steps.allpass(X, rho)
    rq = fmpq(*rho.as_integer_ratio())
    exact = _loop_allpass([fmpq(*v.as_integer_ratio()) for v in xs], rq)
    err2 = sum(((fmpq(*float(a).as_integer_ratio()) - b) ** 2 for a, b in zip(Y[0].tolist(), exact)), fmpq(0))
    x2 = sum((fmpq(*v.as_integer_ratio()) ** 2 for v in xs), fmpq(0))
    g = (1 + laws.gamma(2)) * laws.gamma(2)
    c_step = g * (2 + 3 * rq) / (1 - rq - 2 * rq * g)
    assert err2 <= c_step**2 * x2 + fmpq(1, 2**1900)  # Lemma C2 (iii), squared


def test_allpass_steps_one_dataset_to_the_next_exactly_in_rationals():
    """(p + f z) L_{k+1} = (f + p z) L_k for L_k = Bin(k, p) * Bin(n - k, f): the all-pass identity of the lemma."""
    p = fmpq(3, 4)
    f = 1 - p
    n = 9

    def law(k):
        return fmpq_poly([f, p]) ** k * fmpq_poly([p, f]) ** (n - k)

    for k in range(n):
        assert fmpq_poly([p, f]) * law(k + 1) == fmpq_poly([f, p]) * law(k)
        # the two factors divided by p: (1 + rho z) and (rho + z), rho = f/p; the l2 norm is invariant
        assert sum(c**2 for c in law(k + 1).coeffs()) == sum(c**2 for c in law(k).coeffs())


def test_allpass_steps_a_float_chain_close_to_the_exact_laws():
    e0 = 1.0
    p = math.exp(e0) / (1 + math.exp(e0))
    n = 200
    x = np.array([[math.comb(n, i) * (1 - p) ** i * p ** (n - i) for i in range(n + 1)]])  # L_0 = Bin(n, f)
    for _ in range(1, 60):
        x = curve_steps.allpass(x, math.exp(-e0))
    exact = [
        sum(
            math.comb(60, j)
            * p**j
            * (1 - p) ** (60 - j)
            * math.comb(n - 60, i - j)
            * (1 - p) ** (i - j)
            * p ** (n - 60 - i + j)
            for j in range(0, min(60, i) + 1)
            if i - j <= n - 60
        )
        for i in range(n + 1)
    ]
    # 59 steps from L_0 = L_1 .. L_59: compare one more step to L_60
    x = curve_steps.allpass(x, math.exp(-e0))
    assert np.max(np.abs(x[0] - np.array(exact))) < 1e-13


def exhaustive_worst(mech, n, alpha):
    return max(delta_binary(mech, n, c, exp_epsilon=alpha) for c in range(n))


@pytest.mark.parametrize("e0, n", [("1", 12), ("1/2", 30), ("2", 21)])
def test_stepped_values_are_above_the_exhaustive_worst_case(e0, n):
    mech = BinaryRR(epsilon0=e0)
    grid = curves.curve_grid(e0, 12)
    vals = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
    for a, u in vals:
        w = exhaustive_worst(mech, n, a)
        assert u >= w and u - w <= fmpq(1, 10**10), (n, a, u, w)


@pytest.mark.parametrize("e0, n", [("1", 60), ("1/2", 110), ("2", 97)])
def test_stepped_values_against_the_exact_roc_hull_and_the_block_sweep(e0, n):
    mech = BinaryRR(epsilon0=e0)
    exact = curves.binary_worst_pair(mech, n)
    grid = curves.curve_grid(e0, 48)
    vals = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
    block = curves.binary_worst_curve_values(mech, n, grid, workers=1, progress=False)
    for (a, u), (_, b) in zip(vals, block):
        h = exact.hockey_stick(a)
        assert u >= h - fmpq(1, 10**13), (a, u, h)  # the ROC route itself is exact to ~1e-15
        assert u - h <= fmpq(1, 10**10) and abs(u - b) <= fmpq(1, 10**10)


def test_stepped_values_close_to_the_block_sweep_over_many_chains():
    """n = 2500: 50 chains of 64 steps in two tasks (the chains' windows, drift and hand-over between tasks)."""
    mech = BinaryRR(epsilon0="1")
    grid = curves.curve_grid("1/2", 24)
    vals = curve_steps.binary_worst_curve_values_stepped(mech, 2500, grid, workers=1, progress=False)
    block = curves.binary_worst_curve_values(mech, 2500, grid, workers=1, progress=False)
    for (a, u), (_, b) in zip(vals, block):
        assert abs(u - b) <= fmpq(1, 10**10), (a, u, b)
    assert vals[0][1] > fmpq(1, 1000)  # not vacuous: the total variation of the worst dataset


def test_stepped_values_do_not_depend_on_the_order_of_the_grid_and_are_refused_off_the_grid():
    mech = BinaryRR(epsilon0="1")
    grid = curves.curve_grid("1", 16)
    a = curve_steps.binary_worst_curve_values_stepped(mech, 40, grid, workers=1, progress=False)
    b = curve_steps.binary_worst_curve_values_stepped(mech, 40, grid[::-1] + grid[:3], workers=1, progress=False)
    assert dict(a) == dict(b)
    with pytest.raises(InvalidArgument, match="alphas"):
        curve_steps.binary_worst_curve_values_stepped(mech, 10, [fmpq(1, 3) + 1])
    with pytest.raises(InvalidArgument, match="alphas"):
        curve_steps.binary_worst_curve_values_stepped(mech, 10, [])
    with pytest.raises(InvalidArgument, match="method"):
        curves.binary_worst_curve_pair(mech, 10, method="fft")


def test_step_span_and_chain_window_hold_every_law_of_the_chain():
    """Lemma C2 (i): the chain's window, cut where the anchors' tails reach CUT_TOL_F, leaves out at most the
    certified ``tau`` of every law of the chain (exact rational laws, every k of the chain), and it is narrower than
    the two factors' windows (the cut is active)."""
    assert [curve_steps.step_span(n) for n in (2, 100, 10**4, 10**5, 10**6, 10**8)] == [8, 8, 128, 256, 1024, 1024]
    n, k0, ke = 300, 150, 182
    pq, fq = fmpq(3, 4), fmpq(1, 4)  # e^{eps0} = 3, exact
    p, f = arb(pq), arb(fq)
    c = curve_steps._chain(curve_steps._anchor(n, k0, p, f), curve_steps._anchor(n, ke, p, f))
    assert c["tau"] < arb(fmpq(1, 2**60))
    la, _, _ = laws.window_bounds(k0, p, curve_steps.STEP_TOL)
    lb, _, _ = laws.window_bounds(n - k0, f, curve_steps.STEP_TOL)
    _, ha, _ = laws.window_bounds(ke, p, curve_steps.STEP_TOL)
    _, hb, _ = laws.window_bounds(n - ke, f, curve_steps.STEP_TOL)
    assert la + lb < c["lo"] and c["hi"] < ha + hb  # cut on both sides
    for k in range(k0, ke + 1):
        law = fmpq_poly([fq, pq]) ** k * fmpq_poly([pq, fq]) ** (n - k)
        co = law.coeffs()
        out = sum(co[: c["lo"]], fmpq(0)) + sum(co[c["hi"] + 1 :], fmpq(0))
        assert arith.le(out, c["tau"]) is True, k


def test_window_cut_against_the_uncut_kernel_and_a_coarse_cut_stays_certified(monkeypatch):
    """The cut kernel against the uncut one (CUT_TOL_F = SUMS_CUT_TOL_F = 0: only the factors' windows), and
    deliberately coarse cuts (1e-7: the chain's window, or only the running sums') still above the exhaustive worst
    case over every dataset (exact rationals); without their tail terms they fall below at the far grid points
    (checked by hand: 12 of the 24 points with the chain's tail term left out)."""
    mech = BinaryRR(epsilon0="1")
    n = 30
    grid = curves.curve_grid("1", 24)
    cut = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
    monkeypatch.setattr(curve_steps, "CUT_TOL_F", 0.0)
    monkeypatch.setattr(curve_steps, "SUMS_CUT_TOL_F", 0.0)
    uncut = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
    for (a, u), (_, v) in zip(cut, uncut):
        assert abs(u - v) <= fmpq(1, 10**12), (a, u, v)
    # the chain's window cut: its tail goes through the chain (about m·sqrt(W)·tau, Lemma C2 (iv)); the running
    # sums' cut: its tail is added once (Lemma C2 (v))
    for name, most, least in (("CUT_TOL_F", fmpq(1, 10**4), 6), ("SUMS_CUT_TOL_F", fmpq(1, 10**6), 1)):
        monkeypatch.setattr(curve_steps, name, 1e-7)
        coarse = curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False)
        monkeypatch.setattr(curve_steps, name, 0.0)
        active = 0
        for (a, u), (_, v) in zip(coarse, uncut):
            w = exhaustive_worst(mech, n, a)  # 0.077 at alpha = 1 down to 3.4e-6 at alpha = e
            assert u >= w, (name, a, u, w)
            assert u - v <= most, (name, a, u, v)
            active += u - v >= fmpq(1, 10**9)
        # the cut is active and its tail term added (not where the largest bound comes from a chain ending near
        # k = n, whose last outcome alone has more than 1e-7)
        assert active >= least, (name, active)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 40), st.integers(0, 2**32 - 1), st.floats(0, 1))
def test_running_max_with_the_monotone_shortcut_against_every_row(C, W, seed, share):
    """_running_max (the running maximum of the clipped ratios in place, and D of Lemma C2 (v)) against a plain
    per-row reference: rows that are non-decreasing (a share of them) and rows that are not, every row compared."""
    rng = np.random.default_rng(seed)
    r = rng.random((C, W)) * 3
    mono = rng.random(C) < share
    r[mono] = np.sort(r[mono], axis=1)
    Q = rng.random((C, W))
    ref_rm = np.maximum.accumulate(r, axis=1)
    ref_D = np.array([float(np.sum((ref_rm[i] - r[i]) * Q[i])) for i in range(C)]) * 1.5 + 0.25
    rm = r.copy()
    D = curve_steps._running_max(rm, Q, 1.5, 0.25)
    assert np.array_equal(rm, ref_rm)
    assert np.allclose(D, ref_D, rtol=1e-14, atol=0)
    assert np.all(D[mono] == 0.25)


@pytest.mark.parametrize("e0, n, k0", [("1", 2000, 0), ("1", 2000, 1000), ("1/4", 500, 64)])
def test_threshold_cut_and_shortcut_give_the_same_numbers_as_the_full_search(monkeypatch, e0, n, k0):
    """THRESHOLD_CUT searches the thresholds only below the step's largest ratio (beyond it U = AB + K) and
    MONOTONE_SHORTCUT skips the running maximum on monotone rows: the values and datasets of a task of several chains
    are the same binary64 numbers as with both off (the grid reaches e^{ε0}, far beyond the windows' largest ratios,
    so most grid points are cut)."""
    mech = BinaryRR(epsilon0=e0)
    m = curve_steps.step_span(n)
    grid = tuple(sorted({float(a) for a in curves.curve_grid(e0, 256)}))
    spec = ("ball", arith.ball(mech.exp_epsilon0()))
    fast = curve_steps._steps_task(n, k0, min(n, k0 + 4 * m), m, spec, grid, 128)
    monkeypatch.setattr(curve_steps, "THRESHOLD_CUT", False)
    monkeypatch.setattr(curve_steps, "MONOTONE_SHORTCUT", False)
    full = curve_steps._steps_task(n, k0, min(n, k0 + 4 * m), m, spec, grid, 128)
    assert np.array_equal(fast[0], full[0]) and np.array_equal(fast[1], full[1])


def test_monotone_shortcut_stays_above_the_exhaustive_worst_case():
    """With the shortcut (the default), the stepped values stay above the exact worst case over every dataset
    (exact rationals) at n = 64, where the multi-chain window has non-monotone rows in most steps."""
    mech = BinaryRR(epsilon0="1")
    n = 64
    grid = curves.curve_grid("1", 16)
    for a, u in curve_steps.binary_worst_curve_values_stepped(mech, n, grid, workers=1, progress=False):
        assert u >= exhaustive_worst(mech, n, a), a


def test_inverse_alpha_solves_the_pair_curve_exactly():
    mech = BinaryRR(epsilon0="1")
    pr = curves.binary_worst_pair(mech, 40)
    for d in (fmpq(1, 100), fmpq(1, 1000), fmpq(1, 10**6)):
        a = curves.inverse_alpha(pr, d)
        assert pr.hockey_stick(a) == d  # on a linear piece: exact
        assert pr.hockey_stick(a - fmpq(1, 10**9)) > d  # and the smallest such alpha (non-increasing curve)
    assert curves.inverse_alpha(pr, fmpq(1, 2)) == 1  # H_1 (total variation) is already below 1/2
    with pytest.raises(InvalidArgument, match="delta"):
        curves.inverse_alpha(pr, 0)


def test_curve_epsilon_brackets_the_exact_worst_case_epsilon():
    """The curve's inverse (upper end) against the exact worst-case sweep's certified bracket (independent route:
    exact.shuffled.binary), and the attaining dataset's exact epsilon (lower end) below it."""
    from blanket.exact.accounting import profiles

    mech = BinaryRR(epsilon0="2")
    n, d = 300, "1e-6"
    e_up, c = curves.binary_worst_curve_epsilon(mech, n, d, workers=1, progress=False)
    exact = profiles.epsilon(mech, n, delta=d, dataset="worst", rel_tol="1e-7", workers=1)
    assert e_up >= exact.lower and (e_up - exact.upper) / exact.upper < fmpq(1, 10**4)
    lo = profiles.epsilon(mech, n, delta=d, dataset=f"c={c}", rel_tol="1e-7")
    assert lo.lower <= exact.upper and (exact.lower - lo.lower) / exact.lower < fmpq(1, 10**5)


def test_sweep_seconds_grows_between_n_and_n_to_the_three_halves():
    """The model F + n·(a·sqrt(n p f) + b): from 10^4 to 10^6 the per-dataset part grows by more than n (the window
    widens) and less than n^{3/2} (the per-dataset grid work does not); a wider window (smaller ε0) costs more."""
    f = curve_steps.SWEEP_FIXED_SECONDS
    a, b = curve_steps.sweep_seconds(10**4), curve_steps.sweep_seconds(10**6)
    assert 0 < f < a and 100 < (b - f) / (a - f) < 1000
    assert curve_steps.sweep_seconds(10**6, 0.5) > b > curve_steps.sweep_seconds(10**6, 2.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 40), st.integers(1, 13), st.integers(0, 2**32 - 1))
def test_thresholds_are_the_first_index_above_alpha_from_any_guess(C, W, G, seed):
    """The incremental threshold search (previous index moved by one, checked, else a vectorised bisection) gives
    searchsorted's answer on non-decreasing rows ending in +inf, whatever the guess (ties and jumps included)."""
    rng = np.random.default_rng(seed)
    RM = np.empty((C, W + 1))
    RM[:, :W] = np.maximum.accumulate(rng.choice([0.5, 1.0, 1.5, 2.0, 2.5, 3.0], size=(C, W)), axis=1)
    RM[:, W] = np.inf
    al = np.sort(rng.choice(np.linspace(0.5, 3.5, 13), size=G, replace=False))
    off = (np.arange(C) * (W + 1))[:, None]
    ref = np.stack([np.searchsorted(RM[j], al, side="right") for j in range(C)]) + off
    guess = np.clip(ref + rng.integers(-3, 4, size=ref.shape), off, off + W)
    assert np.array_equal(curve_steps._thresholds(RM, al, None, off), ref)
    assert np.array_equal(curve_steps._thresholds(RM, al, guess, off), ref)


def test_pairs_have_p_at_most_q_left_of_the_others_mean_minus_two_in_rationals():
    """Lemma C2 (v)'s column split: P(x) <= Q(x) for x <= mu' - 2 (mu' the mean of the others' law), every dataset
    of small n and a few e^eps0, exact rational pmfs (the kernel does no float work below that column)."""
    for e in (fmpq(3, 2), fmpq(3), fmpq(20)):
        p = e / (1 + e)
        f = 1 - p
        for n in (2, 7, 15, 30):
            for k in range(n):
                others = fmpq_poly([f, p]) ** k * fmpq_poly([p, f]) ** (n - 1 - k)
                P, Q = others * fmpq_poly([f, p]), others * fmpq_poly([p, f])
                mu = k * p + (n - 1 - k) * f
                x = 0
                while x + 2 <= mu:
                    assert P[x] <= Q[x], (e, n, k, x)
                    x += 1


def test_curve_epsilon_with_a_local_band_is_certified_and_no_looser():
    """``near`` adds grid points around a guess: the upper end stays above the exact worst-case epsilon (independent
    route: exact.shuffled.binary) and below the coarse grid's answer (a refinement of the grid never raises it), also
    when the guess is far off (the band then misses the answer, the coarse grid still certifies it)."""
    from blanket.exact.accounting import profiles

    mech = BinaryRR(epsilon0="2")
    n, d = 300, "1e-6"
    exact = profiles.epsilon(mech, n, delta=d, dataset="worst", rel_tol="1e-7", workers=1)
    coarse, _ = curves.binary_worst_curve_epsilon(mech, n, d, points=64, workers=1, progress=False)
    banded, _ = curves.binary_worst_curve_epsilon(mech, n, d, points=64, near=exact.lower, workers=1, progress=False)
    off, _ = curves.binary_worst_curve_epsilon(mech, n, d, points=64, near=exact.lower / 3, workers=1, progress=False)
    assert exact.lower <= banded <= coarse and exact.lower <= off <= coarse
    assert (banded - exact.upper) / exact.upper < fmpq(1, 10**5) < (coarse - exact.upper) / exact.upper


def test_local_grid_is_dyadic_increasing_and_spans_the_band():
    g = curves.local_grid(fmpq(1, 100), fmpq(2, 100), 33)
    assert all(a > 1 and fmpq(*(int(a.p) / int(a.q)).as_integer_ratio()) == a for a in g)
    assert g == sorted(set(g)) and len(g) == 33
    assert (
        abs(math.log(int(g[0].p) / int(g[0].q)) - 0.01) < 1e-12
        and abs(math.log(int(g[-1].p) / int(g[-1].q)) - 0.02) < 1e-12
    )
    with pytest.raises(InvalidArgument, match="epsilon_hi"):
        curves.local_grid(fmpq(1, 10), fmpq(1, 100), 8)


def _lfilter_allpass(X: np.ndarray, rho: float) -> np.ndarray:
    from scipy.signal import lfilter

    return np.asarray(lfilter(np.array([rho, 1.0]), np.array([1.0, rho]), X, axis=1), dtype=np.float64)


def test_compiled_allpass_is_lfilter_bit_for_bit():
    """The optional numba kernel (allpass_kernel; skipped without numba) against scipy's lfilter, which Lemma C2
    (iii) is written for: the same numbers, bit for bit, on random laws, subnormal entries, 1 to 9 rows (the
    interleaved blocks of four and the rest) and several rho."""
    pytest.importorskip("numba")
    from blanket.exact.accounting import allpass_kernel

    assert allpass_kernel.KERNEL is not None
    rng = np.random.default_rng(7)
    for rows in range(1, 10):
        for rho in (math.exp(-1.0), 0.5, 0.999, 1e-3):
            X = rng.random((rows, 257)) * 10.0 ** rng.integers(-320, 0, size=(rows, 257))
            Y = allpass_kernel.KERNEL(np.ascontiguousarray(X), rho)
            assert np.array_equal(Y, _lfilter_allpass(X, rho)), (rows, rho)
            assert np.array_equal(curve_steps.allpass(X, rho), Y)


def test_sweep_is_the_same_with_and_without_the_compiled_step(monkeypatch):
    """The stepped sweep's certified values do not depend on the route of the all-pass step (skipped without numba:
    then there is one route)."""
    pytest.importorskip("numba")
    mech = BinaryRR(epsilon0="1")
    grid = curves.curve_grid("1", 64)
    fast = curve_steps.binary_worst_curve_values_stepped(mech, 3000, grid, workers=1, progress=False)
    monkeypatch.setattr(curve_steps, "COMPILED_ALLPASS", False)
    pure = curve_steps.binary_worst_curve_values_stepped(mech, 3000, grid, workers=1, progress=False)
    assert fast == pure
