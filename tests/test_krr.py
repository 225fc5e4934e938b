"""Tests for exact.shuffled.krr: k-RR dataset families, the lumped (wrong) third-value view, the blanket view.

Independent routes: brute-force enumeration of all k^n report vectors
(exact.shuffled.bruteforce) with exact rational e^{eps0} and e^{eps}; a direct
multinomial triple sum with Python Fractions typed here (sharing no code
with the four-atom engine); the generic enumeration path of the blanket view
on k-RR matrices; exact-versus-ball enclosure checks.
"""

import importlib
import random
from fractions import Fraction
from math import factorial

import pytest
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.exact.shuffled.krr import (
    delta_blanket_view,
    delta_krr_family,
    delta_krr_third_lumped,
    expected_positive_part,
)
from flint import arb, fmpq
from hypothesis import assume, given
from hypothesis import strategies as st

from tests._helpers import stochastic_rows

# rational e^{eps0} > 1 and e^{eps} >= 1
e0s = st.builds(lambda a, b: fmpq(b + a, b), st.integers(1, 12), st.integers(1, 4))
ees = st.builds(lambda a, b: fmpq(b + a, b), st.integers(0, 6), st.integers(1, 6))


def _encloses(ball, q):
    """Exact check that the ball's endpoints enclose the rational q (no re-rounding of q)."""
    lo, hi = arith.endpoints(ball)
    f = Fraction(int(q.p), int(q.q))
    return lo <= f <= hi


def _datasets(k, n, family, direction):
    others = {"same": 0, "neighbour": 1, "third": 2}[family]
    d1, d2 = [0] + [others] * (n - 1), [1] + [others] * (n - 1)
    return (d1, d2) if direction == "forward" else (d2, d1)


# ---------------------------------------------------------------- families vs brute force
@given(
    st.integers(2, 5),
    e0s,
    ees,
    st.integers(1, 5),
    st.sampled_from(["same", "neighbour", "third"]),
    st.sampled_from(["forward", "backward"]),
)
def test_family_equals_brute_force_exactly(k, e0, ee, n, family, direction):
    assume(not (family == "third" and k < 3))
    assume(k**n <= 5**5)
    mech = KRR(k, exp_epsilon0=e0)
    d1, d2 = _datasets(k, n, family, direction)
    bf = delta_brute(mech, d1, d2, exp_epsilon=ee)
    assert delta_krr_family(mech, n, family, exp_epsilon=ee, direction=direction) == bf


@given(st.integers(3, 4), e0s, ees, st.integers(2, 5))
def test_family_max_over_both_directions(k, e0, ee, n):
    mech = KRR(k, exp_epsilon0=e0)
    for fam in ("same", "neighbour", "third"):
        both = delta_krr_family(mech, n, fam, exp_epsilon=ee)
        fw = delta_krr_family(mech, n, fam, exp_epsilon=ee, direction="forward")
        bw = delta_krr_family(mech, n, fam, exp_epsilon=ee, direction="backward")
        assert both == max(fw, bw)
    # same and neighbour are the same set of neighbouring pairs (k-RR symmetry)
    assert delta_krr_family(mech, n, "same", exp_epsilon=ee) == delta_krr_family(mech, n, "neighbour", exp_epsilon=ee)


def _third_direct(k, e0, ee, n):
    """Σ_h [P(h) − e^ε P'(h)]_+ for target x vs x', others z, by an explicit multinomial sum.

    Categories per report: x, x', z, U (the k−3 values nobody holds).  Lumping U is exact: under
    both datasets every user reports each unheld value with the same probability, so the split of
    the U-count is the same kernel under both laws (the hockey-stick sum factors through it).
    """
    e0, ee = (Fraction(int(fmpq(v).p), int(fmpq(v).q)) for v in (e0, ee))
    p, f = e0 / (e0 + k - 1), 1 / (e0 + k - 1)
    others = (f, f, p, (k - 3) * f)
    target_x = (p, f, f, (k - 3) * f)
    target_x2 = (f, p, f, (k - 3) * f)

    def mult(m, h):
        if min(h) < 0:
            return Fraction(0)
        out = Fraction(factorial(m))
        for c, pr in zip(h, others):
            if c and pr == 0:
                return Fraction(0)
            out *= pr**c / factorial(c)
        return out

    def law(target, h):
        tot = Fraction(0)
        for cat in range(4):
            if target[cat]:
                hh = list(h)
                hh[cat] -= 1
                tot += target[cat] * mult(n - 1, hh)
        return tot

    total = Fraction(0)
    for a in range(n + 1):
        for b in range(n + 1 - a):
            for c in range(n + 1 - a - b):
                h = (a, b, c, n - a - b - c)
                total += max(law(target_x, h) - ee * law(target_x2, h), Fraction(0))
    return total


@pytest.mark.parametrize("k,e0,ee,n", [(4, 3, fmpq(6, 5), 12), (5, fmpq(5, 2), fmpq(3, 2), 10), (6, 4, fmpq(4, 3), 9)])
def test_third_family_against_direct_multinomial_sum(k, e0, ee, n):
    mech = KRR(k, exp_epsilon0=e0)
    got = delta_krr_family(mech, n, "third", exp_epsilon=ee, direction="forward")
    want = _third_direct(k, e0, ee, n)
    assert Fraction(int(got.p), int(got.q)) == want


# ---------------------------------------------------------------- ball mode encloses the exact value
@pytest.mark.parametrize("k,n", [(3, 40), (4, 30), (10, 25)])
def test_windowed_ball_encloses_exact(k, n):
    mech = KRR(k, exp_epsilon0=3)
    ee = fmpq(5, 4)
    for fam in ("same", "third"):
        ex = delta_krr_family(mech, n, fam, exp_epsilon=ee)
        assert isinstance(ex, fmpq)
        with arith.precision(128):
            b = delta_krr_family(mech, n, fam, exp_epsilon=ee, exact_max_n=0, tol=fmpq(1, 10**12))
        assert isinstance(b, arb) and _encloses(b, ex)
        assert b.rad() < fmpq(1, 10**9)
    ex = delta_blanket_view(mech, n, exp_epsilon=ee)
    with arith.precision(128):
        b = delta_blanket_view(mech, n, exp_epsilon=ee, exact_max_n=0)
    assert _encloses(b, ex)


def test_decimal_parameters_enclose_exact_rational_route():
    # e^{eps0} = 2, e^{eps} = 1 exactly vs epsilon0 = log 2 given to 60 digits, epsilon = 0
    log2 = "0.693147180559945309417232121458176568075500134360255254120680"
    with arith.precision(256):
        b = delta_krr_family(KRR(4, epsilon0=log2), 50, "third", epsilon=0, tol=fmpq(1, 10**50))
        lo, hi = arith.endpoints(b)
    ex = delta_krr_family(KRR(4, exp_epsilon0=2), 50, "third", exp_epsilon=1)
    f = Fraction(int(ex.p), int(ex.q))
    # log2 is given to 60 digits, so the two values differ by far less than 1e-40
    assert lo - Fraction(1, 10**40) <= f <= hi + Fraction(1, 10**40)
    assert hi - lo < Fraction(1, 10**40)


@pytest.mark.parametrize("tables", [False, True])
def test_coarse_windows_still_enclose_exact(monkeypatch, tables):
    # tol so large that the windows cut real mass: the certified tail term must still cover it
    import blanket.exact.shuffled.positive_part as PP

    if tables:
        monkeypatch.setattr(PP, "_TABLES_MIN_N", 0)
    n = 60
    for k, e0, ee in [(10, 3, fmpq(5, 4)), (4, 2, fmpq(11, 10))]:
        mech = KRR(k, exp_epsilon0=e0)
        for tol in (fmpq(1, 10**3), fmpq(1, 10**8)):
            with arith.precision(128):
                got = [delta_krr_family(mech, n, f, exp_epsilon=ee, exact_max_n=0, tol=tol) for f in ("same", "third")]
                got.append(delta_blanket_view(mech, n, exp_epsilon=ee, exact_max_n=0, tol=tol))
                got.append(delta_krr_third_lumped(mech, n, exp_epsilon=ee, exact_max_n=0, tol=tol))
            want = [delta_krr_family(mech, n, f, exp_epsilon=ee) for f in ("same", "third")]
            want.append(delta_blanket_view(mech, n, exp_epsilon=ee))
            want.append(delta_krr_third_lumped(mech, n, exp_epsilon=ee))
            for g, w in zip(got, want):
                assert isinstance(w, fmpq) and _encloses(g, w)


def test_ratio_table_path_agrees_with_plain_path(monkeypatch):
    import blanket.exact.shuffled.positive_part as PP

    with arith.precision(128):
        mech = KRR(5, epsilon0="2")
        fast = (delta_krr_family(mech, 2600, "third", epsilon="0.15"), delta_blanket_view(mech, 2600, epsilon="0.15"))
        monkeypatch.setattr(PP, "_TABLES_MIN_N", 10**9)
        plain = (delta_krr_family(mech, 2600, "third", epsilon="0.15"), delta_blanket_view(mech, 2600, epsilon="0.15"))
        for a, b in zip(fast, plain):
            assert a.overlaps(b) and a.rad() < fmpq(1, 10**20) and a > 0


# ---------------------------------------------------------------- lumped view is not a valid delta
def test_lumped_is_strictly_below_true_third_delta_for_k_ge_4():
    for k, e0, ee, n in [(5, fmpq(5, 2), fmpq(3, 2), 4), (4, 3, fmpq(11, 10), 20), (10, 4, fmpq(5, 4), 30)]:
        mech = KRR(k, exp_epsilon0=e0)
        lumped = delta_krr_third_lumped(mech, n, exp_epsilon=ee)
        true = delta_krr_family(mech, n, "third", exp_epsilon=ee)
        assert lumped < true  # exact rationals: certified
    # and certified in ball arithmetic at large n
    with arith.precision(128):
        mech = KRR(10, epsilon0="2")
        lumped = delta_krr_third_lumped(mech, 2000, epsilon="0.3")
        true = delta_krr_family(mech, 2000, "third", epsilon="0.3")
        assert arith.lt(lumped, true) is True


@given(e0s, ees, st.integers(1, 8))
def test_lumped_equals_true_for_k3_and_is_below_for_k4(e0, ee, n):
    assert delta_krr_third_lumped(KRR(3, exp_epsilon0=e0), n, exp_epsilon=ee) == delta_krr_family(
        KRR(3, exp_epsilon0=e0), n, "third", exp_epsilon=ee
    )
    m4 = KRR(4, exp_epsilon0=e0)
    assert delta_krr_third_lumped(m4, n, exp_epsilon=ee) <= delta_krr_family(m4, n, "third", exp_epsilon=ee)


# ---------------------------------------------------------------- blanket view
@given(st.integers(2, 5), e0s, ees, st.integers(1, 5))
def test_blanket_view_fast_equals_enumeration(k, e0, ee, n):
    mech = KRR(k, exp_epsilon0=e0)
    fast = delta_blanket_view(mech, n, exp_epsilon=ee)
    generic = delta_blanket_view(FiniteRandomizer(mech.matrix()), n, exp_epsilon=ee)
    assert fast == generic
    assert fast == delta_blanket_view(mech, n, exp_epsilon=ee, method="enumerate", x=1, x2=0)


@given(st.integers(2, 4), e0s, ees, st.integers(2, 5), st.data())
def test_blanket_view_upper_bounds_brute_force_on_random_datasets(k, e0, ee, n, data):
    assume(k**n <= 4**5)
    mech = KRR(k, exp_epsilon0=e0)
    bv = delta_blanket_view(mech, n, exp_epsilon=ee)
    others = data.draw(st.lists(st.integers(0, k - 1), min_size=n - 1, max_size=n - 1))
    x, x2 = data.draw(st.sampled_from([(a, b) for a in range(k) for b in range(k) if a != b]))
    assert delta_brute(mech, [x] + others, [x2] + others, exp_epsilon=ee) <= bv
    for fam in ("same", "neighbour", "third"):
        if fam == "third" and k < 3:
            continue
        assert delta_krr_family(mech, n, fam, exp_epsilon=ee) <= bv


@st.composite
def ldp_matrices(draw):
    # full support (weights >= 1): finite eps0, gamma > 0
    return FiniteRandomizer(draw(stochastic_rows(st.integers(2, 3), st.integers(2, 3), 1, 6)))


@given(ldp_matrices(), ees, st.integers(2, 4), st.data())
def test_generic_blanket_view_upper_bounds_brute_force(mech, ee, n, data):
    bv = delta_blanket_view(mech, n, exp_epsilon=ee)
    others = data.draw(st.lists(st.integers(0, mech.k_in - 1), min_size=n - 1, max_size=n - 1))
    x = data.draw(st.integers(0, mech.k_in - 1))
    x2 = data.draw(st.integers(0, mech.k_in - 1).filter(lambda v: v != x))
    d = delta_brute(mech, [x] + others, [x2] + others, exp_epsilon=ee)
    assert d <= delta_blanket_view(mech, n, exp_epsilon=ee, x=x, x2=x2) <= bv


@given(st.integers(3, 5), e0s, ees, st.integers(2, 6))
def test_families_and_blanket_view_vs_worst_case_over_all_datasets(k, e0, ee, n):
    # exact.shuffled.enumerate (the exhaustive worst case over all datasets, an independent route) as a second ground truth:
    # every family is a dataset pair (<= worst case), and the blanket view bounds every pair (>= worst case)
    worst_case = importlib.import_module("blanket.exact.shuffled.enumerate").worst_case
    mech = KRR(k, exp_epsilon0=e0)
    wc = worst_case(mech, n, exp_epsilon=ee).value
    for fam in ("same", "neighbour", "third"):
        assert delta_krr_family(mech, n, fam, exp_epsilon=ee) <= wc
    assert wc <= delta_blanket_view(mech, n, exp_epsilon=ee)


def test_blanket_view_vs_3rr_third_family_tight_only_sometimes():
    # spec/blanket.md says Lemma 5.3 is "tight when the other users' inputs are a third symbol" (3-RR).
    # Exactly, it is tight at some parameters and strictly loose at others (finding of this project):
    for e0, ee, n in [(2, 1, 3), (5, 2, 4), (3, 1, 4)]:
        mech = KRR(3, exp_epsilon0=e0)
        assert delta_blanket_view(mech, n, exp_epsilon=ee) == delta_krr_family(mech, n, "third", exp_epsilon=ee)
    mech = KRR(3, exp_epsilon0=3)
    ee = fmpq(3, 2)
    bv = delta_blanket_view(mech, 5, exp_epsilon=ee)
    assert bv == fmpq(619, 6250)
    assert delta_krr_family(mech, 5, "third", exp_epsilon=ee) == fmpq(618, 6250)
    assert delta_brute(mech, [0, 2, 2, 2, 2], [1, 2, 2, 2, 2], exp_epsilon=ee) == fmpq(618, 6250)


def test_blanket_view_above_families_in_ball_mode():
    with arith.precision(128):
        mech = KRR(6, epsilon0="1.5")
        bv = delta_blanket_view(mech, 600, epsilon="0.2")
        for fam in ("same", "third"):
            assert arith.ge(bv, delta_krr_family(mech, 600, fam, epsilon="0.2")) is True


# ---------------------------------------------------------------- properties
@given(st.integers(2, 4), e0s, ees, ees, st.integers(1, 6))
def test_delta_in_unit_interval_and_nonincreasing_in_epsilon(k, e0, ee1, ee2, n):
    mech = KRR(k, exp_epsilon0=e0)
    lo, hi = min(ee1, ee2), max(ee1, ee2)
    fams = ["same", "neighbour"] + (["third"] if k >= 3 else [])
    for fam in fams:
        a = delta_krr_family(mech, n, fam, exp_epsilon=lo)
        b = delta_krr_family(mech, n, fam, exp_epsilon=hi)
        assert 0 <= b <= a <= 1
    a, b = delta_blanket_view(mech, n, exp_epsilon=lo), delta_blanket_view(mech, n, exp_epsilon=hi)
    assert 0 <= b <= a <= 1


@given(st.integers(2, 10), e0s, st.integers(0, 5), st.integers(1, 10**5))
def test_zero_at_and_above_epsilon0_exactly(k, e0, extra, n):
    mech = KRR(k, exp_epsilon0=e0)
    ee = e0 + extra
    for fam in ["same", "neighbour"] + (["third"] if k >= 3 else []):
        v = delta_krr_family(mech, n, fam, exp_epsilon=ee)
        assert isinstance(v, fmpq) and v == 0
    assert delta_blanket_view(mech, n, exp_epsilon=ee) == 0
    # decimal parameters: epsilon == epsilon0 exactly
    m2 = KRR(k, epsilon0="0.7")
    assert delta_krr_family(m2, n, "same", epsilon="0.7") == 0
    assert delta_blanket_view(m2, n, epsilon="0.9") == 0


def test_expected_positive_part_small_cases_by_hand():
    h = fmpq(1, 2)
    # V = ±1 fair: n = 3, S in {3,1,-1,-3} w.p. 1/8,3/8,3/8,1/8 -> E[S_+] = 3/8 + 3/8 = 3/4
    assert expected_positive_part(3, [(0, 0), (h, 1), (h, -1), (0, 0)]) == fmpq(3, 4)
    # with a bulk atom of value 2 (prob 1/2) and t,t' of prob 1/4 each, n = 1: E[V_+] = 1 + 1/4
    q = fmpq(1, 4)
    assert expected_positive_part(1, [(h, 2), (q, 1), (q, -1), (0, 0)]) == fmpq(5, 4)


# ---------------------------------------------------------------- errors
def test_errors():
    mech = KRR(3, exp_epsilon0=2)
    with pytest.raises(InvalidArgument, match="family must be one of same, neighbour, third, got 'worst'"):
        delta_krr_family(mech, 5, "worst", exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="needs k >= 3"):
        delta_krr_family(KRR(2, exp_epsilon0=2), 5, "third", exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="n must be >= 1, got 0"):
        delta_krr_family(mech, 0, "same", exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="direction"):
        delta_krr_family(mech, 3, "same", exp_epsilon=1, direction="up")
    with pytest.raises(InvalidArgument, match="must be a k-ary randomized response"):
        delta_krr_family(FiniteRandomizer(mech.matrix()), 3, "same", exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="epsilon must be given"):
        delta_krr_family(mech, 3, "same")
    with pytest.raises(InvalidArgument, match="not a binary float"):
        delta_blanket_view(mech, 3, epsilon=0.1)
    with pytest.raises(InvalidArgument, match="x2 must differ from x"):
        delta_blanket_view(mech, 3, exp_epsilon=1, x=1, x2=1)
    with pytest.raises(InvalidArgument, match="must be given together"):
        delta_blanket_view(mech, 3, exp_epsilon=1, x=1)
    with pytest.raises(InvalidArgument, match="method"):
        delta_blanket_view(FiniteRandomizer(mech.matrix()), 3, exp_epsilon=1, method="fast")
    with pytest.raises(InvalidArgument, match="too large for exact enumeration"):
        delta_blanket_view(FiniteRandomizer(KRR(6, exp_epsilon0=2).matrix()), 200, exp_epsilon=1)
    with pytest.raises(InvalidArgument, match="k must be >= 3"):
        delta_krr_third_lumped(KRR(2, exp_epsilon0=2), 3, exp_epsilon=1)


# ---------------------------------------------------------------- slow sweep
@pytest.mark.slow
def test_sweep_families_vs_brute_force(slow_level):
    rng = random.Random(7)
    cases = 15 if slow_level == "reduced" else 150
    for _ in range(cases):
        k = rng.randint(2, 5)
        n = rng.randint(2, 6 if k <= 3 else 5)
        e0 = fmpq(rng.randint(2, 30), rng.randint(1, 6)) + 1
        ee = fmpq(rng.randint(0, 10), rng.randint(1, 10)) + 1
        mech = KRR(k, exp_epsilon0=e0)
        bv = delta_blanket_view(mech, n, exp_epsilon=ee)
        for fam in ["same", "neighbour"] + (["third"] if k >= 3 else []):
            for direction in ("forward", "backward"):
                d1, d2 = _datasets(k, n, fam, direction)
                bf = delta_brute(mech, d1, d2, exp_epsilon=ee)
                assert delta_krr_family(mech, n, fam, exp_epsilon=ee, direction=direction) == bf
                assert bf <= bv


# ---------------------------------------------------------------- one-dimensional engine (issue 14)
from blanket.exact.laws import binomial as laws  # noqa: E402
from blanket.exact.shuffled.krr import delta_stronger_clones  # noqa: E402
from blanket.exact.shuffled.positive_part import _bernstein, _excess, _TailWalker  # noqa: E402


@given(
    st.integers(2, 6),
    e0s,
    ees,
    st.integers(1, 40),
    st.sampled_from(["same", "neighbour", "third", "blanket", "lumped"]),
)
def test_one_dimensional_engine_encloses_exact_rationals(k, e0, ee, n, what):
    """The 1-D route (forced, in balls) contains the exact rational value of the grid engine."""
    assume(not (what in ("third", "lumped") and k < 3))
    mech = KRR(k, exp_epsilon0=e0)

    def run(**kw):
        if what == "blanket":
            return delta_blanket_view(mech, n, exp_epsilon=ee, **kw)
        if what == "lumped":
            return delta_krr_third_lumped(mech, n, exp_epsilon=ee, **kw)
        return delta_krr_family(mech, n, what, exp_epsilon=ee, **kw)

    ex = run()
    assert isinstance(ex, fmpq)
    with arith.precision(128):
        b = run(exact_max_n=0, engine="1d")
    if isinstance(b, fmpq):  # eps >= eps0: exact 0 before any engine runs
        assert b == ex == 0
        return
    assert _encloses(b, ex)
    degenerate = what in ("same", "neighbour", "lumped") or (what == "blanket" and k == 2)
    if degenerate:  # exact up to the windowing: a tight enclosure
        assert b.rad() < fmpq(1, 10**18)


@pytest.mark.parametrize(
    "k,eps0,eps,n", [(10, "1", "0.03", 6000), (3, "2", "0.15", 4000), (2, "1", "0.06", 15000), (5, "0.5", "0.02", 8000)]
)
def test_one_dimensional_engine_agrees_with_grid_engine(k, eps0, eps, n):
    """Overlapping sizes: the new route contains the old (grid) route's enclosure, and is tight when degenerate."""
    mech = KRR(k, epsilon0=eps0)
    with arith.precision(128):
        cases = [
            ("blanket", lambda e: delta_blanket_view(mech, n, epsilon=eps, engine=e)),
            ("same", lambda e: delta_krr_family(mech, n, "same", epsilon=eps, engine=e)),
            ("neighbour", lambda e: delta_krr_family(mech, n, "neighbour", epsilon=eps, engine=e)),
        ]
        if k >= 3:
            cases.append(("third", lambda e: delta_krr_family(mech, n, "third", epsilon=eps, engine=e)))
        for name, f in cases:
            grid, fast = f("grid"), f("1d")
            glo, ghi = arith.endpoints(grid)
            flo, fhi = arith.endpoints(fast)
            assert glo > 0
            degenerate = name in ("same", "neighbour") or k == 2
            if degenerate:
                assert grid.overlaps(fast), name
                assert fhi - flo <= (ghi + glo) * Fraction(1, 10**12) + Fraction(1, 10**20), name
            else:  # the grid value is (nearly) exact, the 1-D enclosure must contain it and be reasonably tight
                assert flo <= glo and ghi <= fhi, name
                assert fhi - flo <= fhi * Fraction(1, 50), name


@given(st.integers(1, 400), st.integers(1, 9), st.integers(0, 400), st.data())
def test_tail_walker_steps_match_direct_tails(N, rnum, t0, data):
    """Each walker step is an exact identity: after random moves, (p, G) overlap laws.pmf / laws.tail at the new point."""
    rho = arb(fmpq(rnum, 10))
    t0 = min(t0, N)
    with arith.precision(128):
        w = _TailWalker(N, rho, t0)
        moves = data.draw(st.lists(st.sampled_from(["up", "down", "grow"]), max_size=30))
        for m in moves:
            if m == "up" and w.t < w.N:
                w.up()
            elif m == "down" and w.t > 0:
                w.down()
            elif m == "grow":
                w.grow()
        assert w.p.overlaps(laws.pmf(w.N, rho, w.t)) and w.G.overlaps(laws.tail(w.N, rho, w.t))
        # partial mean identity E[X; X >= t] = N rho G + t (1 - rho) p, against a direct sum
        direct = sum((x * laws.pmf(w.N, rho, x) for x in range(w.t, w.N + 1)), arb(0))
        assert direct.overlaps(w.N * rho * w.G + w.t * (1 - rho) * w.p)


@given(st.integers(1, 60), st.integers(1, 9), st.integers(0, 200), st.booleans())
def test_excess_bounds_hold_exactly(N2, rnum, d10, upper_side):
    """Scarf and Bernstein bounds on E[(±(Y − EY) − d)_+] against the exact rational value (the bound can fail)."""
    rho = fmpq(rnum, 10)
    d = fmpq(d10, 10)
    mean, V = N2 * rho, N2 * rho * (1 - rho)
    exact_val = fmpq(0)
    for y in range(N2 + 1):
        pr = fmpq(__import__("math").comb(N2, y)) * rho**y * (1 - rho) ** (N2 - y)
        z = (y - mean) if upper_side else (mean - y)
        if z - d > 0:
            exact_val += pr * (z - d)
    with arith.precision(128):
        Vb, db = arb(V), arb(d)
        for fd in (0.0, 1e9):  # both branches of the chooser
            assert arith.le(exact_val, _excess(db, Vb, fd, float(V) ** 0.5)) is True
        if d > 0:
            assert arith.le(exact_val, _bernstein(db, Vb)) is True
    # the Scarf bound is not vacuous: at d = 0 it is sqrt(V)/2 >= E|Y - EY|/2 = the exact value
    if d == 0:
        assert exact_val > 0 or V == 0


@given(e0s, ees, st.integers(1, 14))
def test_stronger_clones_pair_equals_binary_blanket_view(e0, ee, n):
    """FMT's stronger-clones pair, enumerated directly, equals the k = 2 blanket view exactly."""
    assert delta_stronger_clones(n, exp_epsilon0=e0, exp_epsilon=ee, method="enumerate") == delta_blanket_view(
        KRR(2, exp_epsilon0=e0), n, exp_epsilon=ee
    )


def test_stronger_clones_large_n_is_fast_route_and_tight():
    with arith.precision(128):
        v = delta_stronger_clones(10**6, epsilon0="1", epsilon="0.003")
    lo, hi = arith.endpoints(v)
    assert 0 < lo and hi - lo < hi * Fraction(1, 10**12)


def test_engine_argument_errors():
    mech = KRR(3, exp_epsilon0=2)
    with pytest.raises(InvalidArgument, match="engine"):
        delta_krr_family(mech, 5, "same", exp_epsilon=1, engine="fast")
    with pytest.raises(InvalidArgument, match="method"):
        delta_stronger_clones(5, exp_epsilon0=2, exp_epsilon=1, method="grid")
    with pytest.raises(InvalidArgument, match="exact"):
        delta_stronger_clones(5, epsilon0="1", epsilon="0.5", method="enumerate")


@pytest.mark.parametrize(
    "k,view,n",
    [
        (2, "blanket", 3000),
        (4, "third", 1000),
        pytest.param(10, "blanket", 21000, marks=pytest.mark.slow),
        (3, "same", 4000),
    ],
)
def test_calibrate_epsilon_bracket_is_certified_by_the_grid_engine(k, view, n, slow_level, monkeypatch):
    """The calibrated bracket's ends are re-checked on the other engine: δ(upper) ≤ target < δ(lower).

    n = 21000 > GRID_MAX_N: the calibration itself takes the one-dimensional engine.  Reduced form: the same
    automatic choice at n = 6000, with the threshold lowered below it (the grid re-check at 21000 takes minutes)."""
    from blanket.exact.shuffled import positive_part
    from blanket.exact.shuffled.krr import calibrate_epsilon

    if n > positive_part.GRID_MAX_N and slow_level != "full":
        n = 6000
        monkeypatch.setattr(positive_part, "GRID_MAX_N", n - 1)
    mech = KRR(k, epsilon0="1")
    target = fmpq(1, 10**5)
    with arith.precision(128):
        br = calibrate_epsilon(mech, n, target, view=view, rel_tol="1e-4")
        assert 0 < br.lower < br.upper and br.evaluations <= 15
        f = (
            (lambda e: delta_blanket_view(mech, n, epsilon=e, engine="grid"))
            if view == "blanket"
            else (lambda e: delta_krr_family(mech, n, view, epsilon=e, engine="grid"))
        )
        assert arith.le(f(br.upper), target) is True
        assert arith.gt(f(br.lower), target) is True
    assert br.rel_width() <= fmpq(1, 10**3)


def test_calibrate_epsilon_errors():
    from blanket.exact.shuffled.krr import calibrate_epsilon

    with pytest.raises(InvalidArgument, match="view"):
        calibrate_epsilon(KRR(3, epsilon0=1), 100, "1e-6", view="worst")
    with pytest.raises(InvalidArgument, match="delta"):
        calibrate_epsilon(KRR(3, epsilon0=1), 100, "2")


@pytest.mark.slow
def test_automatic_engine_choice(slow_level, monkeypatch):
    """n > GRID_MAX_N: the 1-D route at the default precision, the grid when the caller escalates precision.
    Reduced form: the same choice at n = 6000 with GRID_MAX_N lowered to 5000 (the grid at 21000 is the cost)."""
    import blanket.exact.shuffled.positive_part as PP

    if slow_level != "full":
        monkeypatch.setattr(PP, "GRID_MAX_N", 5000)
    mech = KRR(10, epsilon0="1")
    n = PP.GRID_MAX_N + 1000
    with arith.precision(arith.DEFAULT_PREC):
        auto = delta_blanket_view(mech, n, epsilon="0.02")
        fast = delta_blanket_view(mech, n, epsilon="0.02", engine="1d")
    assert auto.mid() == fast.mid() and auto.rad() == fast.rad()
    with arith.precision(2 * arith.DEFAULT_PREC):
        esc = delta_blanket_view(mech, n, epsilon="0.02")
    assert esc.rad() < fast.rad() * fmpq(1, 10**6) and fast.contains(esc)


@given(st.integers(3, 10), e0s, ees, st.integers(1, 45), st.sampled_from(["third", "blanket"]))
def test_blocked_weak_count_encloses_exact_rationals(k, e0, ee, n, what):
    """Lemma K4 (blocks of the weak count) forced at small n, where boundaries collide and N2 reaches 0."""
    import blanket.exact.shuffled.krr as K

    mech = KRR(k, exp_epsilon0=e0)
    f = (
        (lambda **kw: delta_blanket_view(mech, n, exp_epsilon=ee, **kw))
        if what == "blanket"
        else (lambda **kw: delta_krr_family(mech, n, "third", exp_epsilon=ee, **kw))
    )
    ex = f()
    old = K._BLOCKS_MIN_SD
    K._BLOCKS_MIN_SD = 0
    try:
        with arith.precision(128):
            b = f(exact_max_n=0, engine="1d")
    finally:
        K._BLOCKS_MIN_SD = old
    if isinstance(b, fmpq):
        assert b == ex == 0
        return
    assert _encloses(b, ex)


def test_blocked_weak_count_is_tighter_than_the_global_jensen_bound():
    import blanket.exact.shuffled.krr as K

    mech = KRR(10, epsilon0="1")
    with arith.precision(128):
        ee = arith.exp_ball(arith.exact("0.0234"))
        f, p = mech.flip(), mech.keep()
        kf = 10 * f
        atoms = [(8 * f, kf * (1 - ee)), (f, 10 * (p - ee * f)), (f, 10 * (f - ee * p)), (1 - kf, fmpq(0))]
        grid = delta_blanket_view(mech, 10**4, epsilon="0.0234", engine="grid") * (mech.gamma() * 10**4)
        blocked = K._fast_positive_part(10**4, atoms, K.DEFAULT_TOL, blocks=True)
        jensen = K._fast_positive_part(10**4, atoms, K.DEFAULT_TOL, blocks=False)
    for v in (blocked, jensen):
        assert v.contains(grid)
    assert blocked.rad() * 10 < jensen.rad()


def test_jensen_engine_encloses_the_grid_and_exact_values():
    """engine="1d-jensen" (the curves' route at large n): the grid engine's value inside it; exact below exact_max_n;
    the oracles' bracket passes it on (its upper end still above the exact mixture)."""
    from blanket.exact.mechanisms.oracles import OUE
    from blanket.exact.shuffled import oracles as fo

    mech = KRR(10, epsilon0="1")
    with arith.precision(128):
        grid = delta_blanket_view(mech, 3000, epsilon="0.04", engine="grid")
        jensen = delta_blanket_view(mech, 3000, epsilon="0.04", engine="1d-jensen")
    assert isinstance(jensen, arb) and jensen.contains(grid) and jensen.rad() < grid.mid() / 50
    small = KRR(3, exp_epsilon0=3)
    assert delta_blanket_view(small, 9, exp_epsilon=fmpq(3, 2), engine="1d-jensen") == delta_blanket_view(
        small, 9, exp_epsilon=fmpq(3, 2)
    )
    oue = OUE(4, exp_epsilon0=3)
    ex = fo.blanket_view_delta(oue, 40, exp_epsilon=fmpq(6, 5))
    with arith.precision(128):
        up = fo.blanket_view_upper(oue, 40, exp_epsilon=fmpq(6, 5), exact_max_n=0, engine="1d-jensen")
    assert arith.endpoints(up)[1] >= arith.endpoints(arith.ball(ex))[0]
    with pytest.raises(InvalidArgument, match="1d-jensen"):
        delta_blanket_view(mech, 100, epsilon="0.1", engine="jensen")


@pytest.mark.slow
def test_escalation_refines_the_one_dimensional_route(monkeypatch, slow_level):
    """Above GRID_ESCALATION_MAX_N a caller raising the precision gets finer blocks: a narrower enclosure of the same value.
    Reduced form: n = 8000 with GRID_MAX_N lowered to 5000 (full: n = 25000; the grid reference is the cost)."""
    import blanket.exact.shuffled.positive_part as PP

    monkeypatch.setattr(PP, "GRID_ESCALATION_MAX_N", 1000)
    n = 25000
    if slow_level != "full":
        monkeypatch.setattr(PP, "GRID_MAX_N", 5000)
        n = 8000
    mech = KRR(10, epsilon0="1")
    with arith.precision(arith.DEFAULT_PREC):
        grid = delta_blanket_view(mech, n, epsilon="0.02", engine="grid")
        base = delta_blanket_view(mech, n, epsilon="0.02")
    with arith.precision(4 * arith.DEFAULT_PREC):
        fine = delta_blanket_view(mech, n, epsilon="0.02")
    assert base.contains(grid) and fine.contains(grid)
    assert fine.rad() * 4 < base.rad()
