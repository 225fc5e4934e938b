"""Tests of exact.accounting.renyi: brute-force enumeration (exact rationals), mpmath oracles, windowing enclosures, bad input."""

import itertools
import math
from collections import defaultdict
from fractions import Fraction as F

import mpmath
import pytest
from blanket.exact.accounting import renyi as xr
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.accounting import renyi_float as rfl
from blanket.exact.mechanisms.finite import KRR, BinaryRR
from blanket.exact.numbers.arith import endpoints, precision
from blanket.exact.numbers.errors import InvalidArgument
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st


# ------------------------------------------------------------ independent oracle: enumeration of report vectors
def _krr_rows(k, e):
    e = F(e)
    return [[e / (e + k - 1) if y == x else 1 / (e + k - 1) for y in range(k)] for x in range(k)]


def _shuffled(rows, data):
    k = len(rows[0])
    out = defaultdict(F)
    for ys in itertools.product(range(k), repeat=len(data)):
        p = F(1)
        for d, y in zip(data, ys):
            p *= rows[d][y]
        out[tuple(ys.count(v) for v in range(k))] += p
    return out


def _moment_brute(rows, D, Dp, lam):
    """E_{h~M(Dp)}[(M(D)/M(Dp))^lam] by enumeration (integer lam: exact Fraction)."""
    P, Q = _shuffled(rows, D), _shuffled(rows, Dp)
    return sum(P[h] ** lam / Q[h] ** (lam - 1) for h in Q if P[h] > 0)


def _moment_brute_mp(rows, D, Dp, lam, dps=60):
    """Non-integer lam: mpmath at ``dps`` digits over the exact enumerated laws."""
    P, Q = _shuffled(rows, D), _shuffled(rows, Dp)
    with mpmath.workdps(dps):
        lm = mpmath.mpf(lam.numerator) / lam.denominator
        tot = mpmath.mpf(0)
        for h in Q:
            if P[h] > 0:
                r = P[h] / Q[h]
                tot += (mpmath.mpf(P[h].numerator) / P[h].denominator) * (mpmath.mpf(r.numerator) / r.denominator) ** (
                    lm - 1
                )
        return tot


def _mp(fr):
    return mpmath.mpf(fr.numerator) / fr.denominator


def _F(q):
    return F(int(q.p), int(q.q))


exp_eps0 = st.fractions(min_value=1, max_value=6, max_denominator=7)


# ------------------------------------------------------------ binary RR, every dataset, exact
@given(n=st.integers(1, 5), data=st.data(), e=exp_eps0, lam=st.integers(2, 4))
def test_binary_moment_equals_enumeration(n, data, e, lam):
    c = data.draw(st.integers(0, n - 1))
    x = data.draw(st.sampled_from([0, 1]))
    mech = BinaryRR(exp_epsilon0=fmpq(e.numerator, e.denominator))
    D = [1] * c + [0] * (n - 1 - c) + [x]
    Dp = D[:-1] + [1 - x]
    got = xr.moment_binary(mech, n, c, order=lam, x=x)
    assert isinstance(got, fmpq)
    assert _F(got) == _moment_brute(_krr_rows(2, e), D, Dp, lam)


@given(n=st.integers(1, 5), e=exp_eps0, lam=st.sampled_from([F(3, 2), F(5, 2), F(7, 3)]))
def test_binary_noninteger_order_encloses_mpmath(n, e, lam):
    mech = BinaryRR(exp_epsilon0=fmpq(e.numerator, e.denominator))
    c = n // 2
    D = [1] * c + [0] * (n - 1 - c) + [1]
    Dp = D[:-1] + [0]
    ref = _moment_brute_mp(_krr_rows(2, e), D, Dp, lam)
    with precision(128):
        got = xr.moment_binary(mech, n, c, order=f"{lam.numerator}/{lam.denominator}", x=1)
    lo, hi = endpoints(got)
    with mpmath.workdps(60):
        slack = mpmath.mpf(10) ** -35  # mpmath's own rounding at 60 digits
        assert _mp(lo) - slack <= ref <= _mp(hi) + slack
        assert _mp(hi) - _mp(lo) < mpmath.mpf(10) ** -30


def test_worst_case_equals_enumeration_max():
    e = F(5, 2)
    mech = BinaryRR(exp_epsilon0=fmpq(5, 2))
    for n in range(1, 7):
        best = max(
            _moment_brute(_krr_rows(2, e), [1] * c + [0] * (n - 1 - c) + [x], [1] * c + [0] * (n - 1 - c) + [1 - x], 3)
            for c in range(n)
            for x in (0, 1)
        )
        w = xr.renyi_binary_worst(mech, n, order=3)
        assert _F(w.moment) == best


def test_windowed_binary_encloses_exact(monkeypatch):
    """n above EXACT_MAX_N uses windows; the exact full-support rational value must lie in the ball."""
    mech = BinaryRR(exp_epsilon0=3)
    n = 260
    for c in (0, 37, 259):
        B = xr.others_count_law(mech, n, c)  # exact, full support (no tol)
        ex = xr._binary_moment_from_B(B, mech.keep(), mech.flip(), fmpq(3), 1, mech.exp_epsilon0())
        with precision(128):
            got = xr.moment_binary(mech, n, c, order=3, x=1)
            assert isinstance(got, arb) and got.contains(arb(ex))
            assert got.rad() < arb(2) ** -100


def test_worst_case_windowed_encloses_exact_and_prunes(monkeypatch):
    mech = BinaryRR(exp_epsilon0=2)
    n = 70
    monkeypatch.setattr(xr, "EXACT_MAX_N", 10)  # force the windowed, pruned path
    exact_best = None
    for c in range(0, (n - 1) // 2 + 1):
        B = xr.others_count_law(mech, n, c)
        for x in (0, 1):
            v = xr._binary_moment_from_B(B, mech.keep(), mech.flip(), fmpq(2), x, mech.exp_epsilon0())
            exact_best = v if exact_best is None or v > exact_best else exact_best
    with precision(128):
        w = xr.renyi_binary_worst(mech, n, order=2)
        assert w.moment.contains(arb(exact_best))


def test_large_n_against_mpmath_single_binomial():
    """n = 20000, c = 0, x = 1: E_{k~Bin(n,p)}[(1 + a(k − np))^λ] (Theorem 3.4 form) summed by mpmath at 50 digits."""
    n, lam = 20000, 2
    with precision(128):
        got = xr.moment_binary(BinaryRR(epsilon0="1/2"), n, 0, order=lam, x=1)
    # closed form for λ = 2: 1 + (e^{ε0}−1)²/(n e^{ε0})
    with mpmath.workdps(50):
        e = mpmath.e ** mpmath.mpf("0.5")
        ref = 1 + (e - 1) ** 2 / (n * e)
        assert abs(mpmath.mpf(got.mid().str(45, radius=False)) - ref) < mpmath.mpf(10) ** -30
    with precision(128):
        assert got.rad() < arb(2) ** -90


def test_n_million_one_dataset_is_tight():
    with precision(128):
        r = xr.renyi_binary(BinaryRR(epsilon0="1"), 10**6, 0, order=2)
        assert r.value.rad() < arb(10) ** -15 * r.value
        # λ = 2 closed form (x=1 direction): log(1 + (e−1)²/(n e))
        e = arb(1).exp()
        assert (
            arb(1 + (e - 1) ** 2 / (10**6 * e)).log().overlaps(r.value)
            or r.value > (1 + (e - 1) ** 2 / (10**6 * e)).log()
        )


# ------------------------------------------------------------ k-RR families
@given(
    k=st.integers(2, 4),
    n=st.integers(1, 4),
    e=exp_eps0,
    lam=st.integers(2, 3),
    family=st.sampled_from(["same", "neighbour", "third"]),
)
def test_krr_family_equals_enumeration(k, n, e, lam, family):
    if family == "third" and k < 3:
        with pytest.raises(InvalidArgument):
            rf.moment_krr_family(KRR(k, exp_epsilon0=fmpq(e.numerator, e.denominator)), n, family, order=lam)
        return
    z = {"same": 0, "neighbour": 1, "third": 2}[family]
    D, Dp = [z] * (n - 1) + [0], [z] * (n - 1) + [1]
    got = rf.moment_krr_family(KRR(k, exp_epsilon0=fmpq(e.numerator, e.denominator)), n, family, order=lam)
    assert _F(got) == _moment_brute(_krr_rows(k, e), D, Dp, lam)


def test_third_family_uses_third_count_k5():
    """k = 5: the third value's count matters; the result must equal enumeration (which a lumped view would not)."""
    e = F(4)
    got = rf.moment_krr_family(KRR(5, exp_epsilon0=4), 4, "third", order=3)
    assert _F(got) == _moment_brute(_krr_rows(5, e), [2, 2, 2, 0], [2, 2, 2, 1], 3)


@pytest.mark.parametrize("k, family", [(4, "third"), (3, "third"), (3, "same"), (5, "neighbour"), (2, "same")])
def test_krr_windowed_encloses_exact(monkeypatch, k, family):
    mech = KRR(k, exp_epsilon0=3)
    monkeypatch.setattr(xr, "EXACT_MAX_N", 40)
    ex = rf.moment_krr_family(mech, 40, family, order=2)
    monkeypatch.setattr(xr, "EXACT_MAX_N", 5)
    with precision(128):
        got = rf.moment_krr_family(mech, 40, family, order=2)
        assert got.contains(arb(ex)) and got.rad() < arb(2) ** -90


def test_krr_family_max_over_directions():
    mech = KRR(3, exp_epsilon0=3)
    r = rf.renyi_krr_family(mech, 4, "same", order=2)
    a = rf.moment_krr_family(mech, 4, "same", order=2)
    b = rf.moment_krr_family(mech, 4, "neighbour", order=2)
    assert r.moment == max(a, b)


# ------------------------------------------------------------ helpers
@given(n=st.integers(0, 30), p=st.fractions(min_value=0, max_value=1, max_denominator=9), i=st.integers(0, 9))
def test_binomial_central_moment_direct_sum(n, p, i):
    direct = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) * (k - n * p) ** i for k in range(n + 1))
    got = xr.binomial_central_moment(n, fmpq(p.numerator, p.denominator), i)
    assert _F(got) == direct


def test_binomial_window_tail_is_certified():
    with precision(96):
        w = xr.binomial_window(5000, arb("0.3"), tol=arb(2) ** -60)
        s = sum(w.mass, arb(0))
        # total mass 1 lies in [s, s + tail]
        assert (s - 1) <= 0 and (s + w.tail - 1) >= 0 or (s + w.tail).contains(1) or s.contains(1)
        assert w.tail < arb(2) ** -60


# ------------------------------------------------------------ dispatcher and bad input
def test_dispatcher():
    mech = BinaryRR(exp_epsilon0=2)
    assert rf.renyi(mech, 5, order=2, dataset="c=1").c == 1
    assert rf.renyi(mech, 5, order=2, dataset="same").family == "same"
    assert rf.renyi(mech, 5, order=2, dataset="worst").moment >= rf.renyi(mech, 5, order=2, dataset="c=2").moment


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: xr.moment_binary(BinaryRR(exp_epsilon0=2), 5, 0, order=1), "order must be > 1"),
        (lambda: xr.moment_binary(BinaryRR(exp_epsilon0=2), 5, 5, order=2), "c must be <= 4"),
        (lambda: xr.moment_binary(KRR(3, exp_epsilon0=2), 5, 0, order=2), "must be binary RR"),
        (lambda: xr.moment_binary(BinaryRR(exp_epsilon0=2), 0, 0, order=2), "n must be >= 1"),
        (lambda: rf.moment_krr_family(KRR(3, exp_epsilon0=2), 5, "other", order=2), "family must be one of"),
        (lambda: rf.renyi(KRR(3, exp_epsilon0=2), 5, order=2, dataset="worst"), "only available for binary RR"),
        (lambda: rf.renyi(BinaryRR(exp_epsilon0=2), 5, order=2, dataset="c=x"), "dataset c must be an integer"),
        (lambda: xr.moment_binary(BinaryRR(exp_epsilon0=2), 5, 0, order=2.5), "not a binary float"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(InvalidArgument, match=msg):
        call()


@pytest.mark.slow
def test_worst_case_pruning_larger_n(slow_level):
    n = 600 if slow_level == "reduced" else 3000
    mech = BinaryRR(epsilon0="1")
    with precision(128):
        w = xr.renyi_binary_worst(mech, n, order="5/2")
        for c in (0, n // 4, (n - 1) // 2):
            r = xr.renyi_binary(mech, n, c, order="5/2")
            assert not (r.value > w.value.upper())


def test_window_touching_support_end_is_tight():
    """Large e^{ε0}: the window of the flip binomial reaches 0 (a support end, not a window edge)."""
    mech = BinaryRR(exp_epsilon0=40)
    n = 250
    for c in (0, 1, 249):
        B = xr.others_count_law(mech, n, c)
        ex = xr._binary_moment_from_B(B, mech.keep(), mech.flip(), fmpq(2), 1, mech.exp_epsilon0(), n - 1)
        with precision(128):
            got = xr.moment_binary(mech, n, c, order=2, x=1)
            assert got.contains(arb(ex)) and got.rad() < arb(2) ** -90


# ------------------------------------------------------------ the CLI (reports/commands/renyi.py)
def test_cli_json_matches_direct(capsys):
    import json

    from blanket.reports.cli import main

    assert main(["renyi", "--epsilon0", "1", "-n", "40", "--order", "3", "--dataset", "c=3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with precision(128):
        r = xr.renyi_binary(BinaryRR(epsilon0="1"), 40, 3, order=3)
        lo, hi = endpoints(r.value)
    assert F(out["renyi"]["lower"]) <= lo and hi <= F(out["renyi"]["upper"])
    assert out["relation"] == "lower" and out["c"] == 3


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["renyi", "--epsilon0", "-1", "-n", "10", "--order", "2"], "--epsilon0 must be >= 0"),
        (["renyi", "--epsilon0", "1", "-n", "10", "--order", "1"], "--order must be > 1"),
        (["renyi", "--epsilon0", "1", "-n", "10", "--order", "2", "--dataset", "c=10"], "must be <= 9"),
        (["renyi", "--epsilon0", "1", "-n", "10", "--order", "2", "--k", "3"], "only available for binary RR"),
        (["renyi", "--epsilon0", "1", "-n", "10", "--order", "2", "--bound", "GDDSK21 Theorem 3.7"], "not the RDP"),
        (["renyi", "--epsilon0", "1", "-n", "10", "--order", "2", "--mechanism", "laplace"], "must be rr"),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, msg, capsys):
    from blanket.reports.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_cli_bound():
    from blanket.reports.cli import main

    assert main(["renyi", "--epsilon0", "1", "-n", "1000", "--order", "4", "--bound", "GDDSK21 Theorem 3.3"]) == 0


def test_cli_delta_conversion_costs(capsys):
    """The RDP route's ε is a valid upper end: never below the exact ε(δ), improved ≤ standard."""
    import json

    from blanket.reports.cli import main

    assert main(["renyi", "--epsilon0", "1/2", "-n", "60", "--order", "2", "--delta", "1e-4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["conversion"]
    std, imp = F(out["standard"]["epsilon_upper"]), F(out["improved"]["epsilon_upper"])
    assert imp <= std
    assert F(out["exact"]["upper"]) <= imp


# ------------------------------------------------------------ the figure (reports/figures/renyi.py)
def test_figure_quick(tmp_path):
    import csv

    from blanket.reports.figures import get_figure

    paths = get_figure("renyi-epsilon").make(tmp_path, quick=True)
    assert {p.suffix for p in paths} == {".png", ".pdf", ".csv"} and all(p.stat().st_size > 0 for p in paths)
    with open(tmp_path / "renyi-epsilon.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    for r in rows:  # certified intervals: exact worst case <= upper bounds, lower bound <= exact
        for ub in ("ub2", "bound9") + (("ub1",) if r["ub1_lower"] else ()):
            assert F(r["exact_lower"]) <= F(r[f"{ub}_upper"])
        if r["lb_lower"]:
            assert F(r["lb_lower"]) <= F(r["exact_upper"])


# ------------------------------------------------------------ route (b): float moments (docs/numerics.md, Lemmas R1–R3)
def _float_kernel_cases(*, max_examples: int, n_max: int, lam_max: int):
    """Hypothesis cases ``(n, data, e, lam)`` for the float kernels: ``2 ≤ n ≤ n_max`` users, ``e = e^{ε0}`` an
    exact rational in [9/8, 8], integer order ``2 ≤ lam ≤ lam_max`` (``data`` draws the rest)."""
    e = st.fractions(min_value=F(9, 8), max_value=8, max_denominator=9)
    cases = given(n=st.integers(2, n_max), data=st.data(), e=e, lam=st.integers(2, lam_max))
    return lambda test: settings(max_examples=max_examples, deadline=None)(cases(test))


def _exact_moments(mech, n, c, lam):
    """Both exact moments by the exact full-support route (independent of the float kernels)."""
    B = xr.others_count_law(mech, n, c)
    e0 = mech.exp_epsilon0()
    return tuple(xr._binary_moment_from_B(B, mech.keep(), mech.flip(), fmpq(lam), x, e0, n - 1) for x in (1, 0))


@_float_kernel_cases(max_examples=25, n_max=200, lam_max=7)
def test_float_moments_contain_exact(n, data, e, lam):
    """Property: the widened float result contains the exact rational moment (one dataset and a block)."""
    mech = BinaryRR(exp_epsilon0=fmpq(e.numerator, e.denominator))
    c = data.draw(st.integers(0, n - 1))
    with precision(128):
        f1, f0 = rfl.float_moments_binary(mech, n, c, fmpq(lam))
        ex1, ex0 = _exact_moments(mech, n, c, lam)
        assert f1.contains(arb(ex1)) and f0.contains(arb(ex0))
        assert f1.rad() < 1e-8 * f1.mid() and f0.rad() < 1e-8 * f0.mid()
        B = data.draw(st.integers(1, min(12, n - c)))
        rows = rfl.float_moments_binary_block(mech, n, c, B, fmpq(lam))
        for j in (0, B - 1):
            ex1, ex0 = _exact_moments(mech, n, c + j, lam)
            assert rows[j][0].contains(arb(ex1)) and rows[j][1].contains(arb(ex0))


@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1000, 8000),
    frac=st.floats(0, 1),
    eps0=st.sampled_from(["1/2", "1", "2", "3"]),
    lam=st.sampled_from([2, 3, 8, 32, 100]),
)
def test_float_moments_contain_ball_route(n, frac, eps0, lam):
    """Property at larger n: the widened float result contains the ball-route enclosure (128 bits)."""
    mech = BinaryRR(epsilon0=eps0)
    c = int(frac * (n - 1))
    if F(eps0) * lam > rfl.FLOAT_MAX_EPS_LAMBDA:
        return  # outside the float route's proof (test_float_route_refuses_outside_its_proof)
    from blanket.exact.laws.binomial import FloatRouteUnavailable

    with precision(128):
        try:
            f1, f0 = rfl.float_moments_binary(mech, n, c, fmpq(lam))
        except FloatRouteUnavailable:
            return  # refused (e.g. window values below 2^-500): callers then take the ball route
        b1, b0 = xr._moments_binary(mech, n, c, fmpq(lam), (1, 0))
        assert f1.contains(b1) and f0.contains(b0)
        B = min(7, n - c)
        try:
            rows = rfl.float_moments_binary_block(mech, n, c, B, fmpq(lam))
        except FloatRouteUnavailable:
            return
        b1, b0 = xr._moments_binary(mech, n, c + B - 1, fmpq(lam), (1, 0))
        assert rows[-1][0].contains(b1) and rows[-1][1].contains(b0)


def test_float_route_refuses_outside_its_proof():
    from blanket.exact.laws.binomial import FloatRouteUnavailable

    mech = BinaryRR(epsilon0="1")
    with pytest.raises(FloatRouteUnavailable):
        rfl.float_moments_binary(mech, 1000, 3, fmpq(5, 2))  # non-integer order
    with pytest.raises(FloatRouteUnavailable):
        rfl.float_moments_binary(BinaryRR(epsilon0="3"), 1000, 3, fmpq(200))  # eps0*lambda > 280


@pytest.mark.parametrize("lam", [2, "5/2", 6])
def test_worst_case_agrees_with_ball_scan(monkeypatch, lam):
    """The block/float sweep gives the same worst case as the max over every dataset by the ball route."""
    mech = BinaryRR(epsilon0="1/2")
    n = 150
    monkeypatch.setattr(xr, "EXACT_MAX_N", 10)
    with precision(128):
        w = xr.renyi_binary_worst(mech, n, order=lam, workers=1, task_size=32)
        best = None
        for c in range(0, (n - 1) // 2 + 1):
            for x, m in zip((1, 0), xr._moments_binary(mech, n, c, xr.parse_order(lam), (1, 0))):
                if best is None or m.upper() > best[0].upper():
                    best = (m, c, x)
        assert w.moment.overlaps(best[0]) and (w.c, w.x) == best[1:]
        assert w.moment.rad() < arb(2) ** -100


def test_worst_case_identical_on_every_executor():
    mech = BinaryRR(epsilon0="1")
    with precision(128):
        one = xr.renyi_binary_worst(mech, 2000, order=3, workers=1, task_size=128)
        two = xr.renyi_binary_worst(mech, 2000, order=3, workers=2, task_size=128)
    assert (one.c, one.x) == (two.c, two.x)
    assert one.moment.mid() == two.moment.mid() and one.moment.rad() == two.moment.rad()


def test_cli_delta_worst_order_certified(capsys):
    """--delta on the worst case: the certified ε is at or above the grid floor, and at or above the exact ε(δ)."""
    import json

    from blanket.reports.cli import main

    assert (
        main(["renyi", "--epsilon0", "1", "-n", "400", "--order", "3", "--delta", "1e-5", "--json", "--workers", "1"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)["conversion"]
    for method in ("standard", "improved"):
        o = out[method]
        assert F(o["grid_floor"]) <= F(o["epsilon_upper"])
        assert o["order"] in o["worst_case_orders"]
        if out["exact"] is not None:
            assert F(out["exact"]["upper"]) <= F(o["epsilon_upper"])


def test_worst_case_limited_recompute_still_encloses(monkeypatch):
    """With fewer ball recomputations than pruning survivors, the scan bounds of the rest keep the enclosure certified."""
    from blanket.exact.laws.binomial import FloatRouteUnavailable

    mech = BinaryRR(epsilon0="1/50")  # nearly flat in c: many datasets survive the pruning on E
    n = 400
    monkeypatch.setattr(xr, "EXACT_MAX_N", 10)
    with precision(128):
        full = xr.renyi_binary_worst(mech, n, order=2, workers=1, recompute_max=10**6)
        refined = xr.renyi_binary_worst(mech, n, order=2, workers=1, recompute_max=1)

        def refuse(*a, **k):
            raise FloatRouteUnavailable("test: the excess kernel refuses")

        # the excess kernel refusing is not an error: the scan's bounds are kept (and more datasets survive)
        monkeypatch.setattr(xr, "float_excess_block", refuse)
        lim = xr.renyi_binary_worst(mech, n, order=2, workers=1, recompute_max=1)
    assert full.unresolved == 0 and lim.unresolved > 0
    assert lim.moment.contains(full.moment)
    # the second pruning on E − 1 separates what the scan on E could not: one recomputation suffices
    assert (
        refined.unresolved == 0 and refined.moment.overlaps(full.moment) and (refined.c, refined.x) == (full.c, full.x)
    )
    assert refined.moment.rad() < arb(2) ** -100


@pytest.mark.parametrize("c", [0, 1200, 4999])
def test_float_route_deep_cutoff_lambda_256_contains_ball_route(c):
    """λ = 256 (cut-off 2^-426, below the δ engine's 2^-400): the float route is taken (the blocks at
    c ≈ 1200 used to refuse, their windows reaching the support end with values below 2^-500) and its
    enclosure contains the ball route's."""
    mech = BinaryRR(epsilon0="1")
    n, lam = 10**4, fmpq(256)
    with precision(128):
        f1, f0 = rfl.float_moments_binary_block(mech, n, c, 1, lam)[0]
        b1, b0 = xr._moments_binary(mech, n, c, lam, (1, 0))
        assert f1.contains(b1) and f0.contains(b0)
        assert f1.rad() < 1e-8 * f1.mid()


@pytest.mark.parametrize(
    "m, q, bits", [(10**4, "0.73", 426), (1152, "0.73", 426), (5000, "0.27", 200), (40, "0.5", 60)]
)
def test_float_bounds_tail_is_certified(m, q, bits):
    """The trimmed window's left-out mass: 1 − (ball sum of the pmf over lo..hi) ≤ tail < tol (independent
    route: every pmf value by arb.bin_uiui at 600 bits)."""
    from blanket.exact.laws.binomial import pmf

    tol = fmpq(1, 2**bits)
    lo, hi, t = rfl.float_bounds(m, arb(q), tol)
    assert t < arb(tol)
    with precision(600):
        s = sum((pmf(m, arb(q), k) for k in range(lo, hi + 1)), arb(0))
        assert (1 - s) <= arb(t.upper()) + arb(2) ** -590
        assert pmf(m, arb(q), lo) > arb(tol) * arb(2) ** -25 or lo == 0


@_float_kernel_cases(max_examples=10, n_max=120, lam_max=6)
def test_float_excess_contains_exact(n, data, e, lam):
    """Property: the excess kernel's enclosure of E − 1 contains the exact rational E − 1 (brute-force count law)."""
    mech = BinaryRR(exp_epsilon0=fmpq(e.numerator, e.denominator))
    c = data.draw(st.integers(0, n - 1))
    B = data.draw(st.integers(1, min(10, n - c)))
    with precision(128):
        rows = rfl.float_excess_binary_block(mech, n, c, B, lam)
        for j in (0, B - 1):
            ex1, ex0 = _exact_moments(mech, n, c + j, lam)
            assert rows[j][0].contains(arb(ex1 - 1)) and rows[j][1].contains(arb(ex0 - 1))


@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1000, 60000),
    frac=st.floats(0, 1),
    eps0=st.sampled_from(["1/10", "1/2", "1", "2", "3"]),
    lam=st.sampled_from([2, 3, 8, 32, 100]),
)
def test_float_excess_contains_ball_route(n, frac, eps0, lam):
    """Property at larger n: the excess kernel's enclosure contains the ball route's E − 1 (128 bits), and it
    is far narrower relative to E − 1 than the moment kernel's (that is what separates datasets)."""
    from blanket.exact.laws.binomial import FloatRouteUnavailable

    mech = BinaryRR(epsilon0=eps0)
    c = int(frac * (n - 1) / 2)
    if F(eps0) * lam > rfl.FLOAT_MAX_EPS_LAMBDA:
        return
    B = min(5, n - c)
    with precision(128):
        try:
            rows = rfl.float_excess_binary_block(mech, n, c, B, lam)
        except FloatRouteUnavailable:
            return  # refused: callers keep the scan's bounds (test_worst_case_limited_recompute_still_encloses)
        for j in (0, B - 1):
            b1, b0 = xr._moments_binary(mech, n, c + j, fmpq(lam), (1, 0))
            e1, e0 = rows[j]
            assert e1.contains(b1 - 1) and e0.contains(b0 - 1)
            assert e1.rad() < 1e-7 * abs(e1.mid()) and e0.rad() < 1e-7 * abs(e0.mid())


def test_float_excess_mpmath_single_binomial():
    """Independent route at n = 10^6, c = 0 (the others' count is one binomial): E − 1 by mpmath at 60 digits
    summing the pmf over a wide window (log-gamma pmf), both directions."""
    n, e0 = 10**6, mpmath.mpf(1)
    with mpmath.workdps(60):
        p = mpmath.e / (1 + mpmath.e)
        f = 1 - p
        mm = n - 1
        mu = mm * f
        sd = mpmath.sqrt(mm * p * f)
        lo, hi = int(mu - 30 * sd), int(mu + 30 * sd)  # the rest is below e^-400

        def g(k):
            if k < 0 or k > mm:
                return mpmath.mpf(0)
            return (
                mpmath.exp(mpmath.loggamma(mm + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(mm - k + 1))
                * f**k
                * p ** (mm - k)
            )

        gs = {k: g(k) for k in range(lo - 1, hi + 2)}
        s1 = s0 = mpmath.mpf(0)
        for k in range(lo, hi + 2):
            P = f * gs[k] + p * gs[k - 1]
            Q = p * gs[k] + f * gs[k - 1]
            s1 += Q * ((P / Q) ** 2 - 1)
            s0 += P * ((Q / P) ** 2 - 1)
    with precision(128):
        (x1, x0), *_ = rfl.float_excess_binary_block(BinaryRR(epsilon0="1"), n, 0, 1, 2)
    del e0
    for ball, ref in ((x1, s1), (x0, s0)):
        lo_, hi_ = endpoints(ball)
        with mpmath.workdps(60):
            assert mpmath.mpf(lo_.numerator) / lo_.denominator <= ref <= mpmath.mpf(hi_.numerator) / hi_.denominator


# ------------------------------------------------------------ the exact integer product of two windows (Lemma R8)
def _ball_list(vals, rads):
    return [arb(fmpq(v.numerator, v.denominator)) + arb(0, float(r)) for v, r in zip(vals, rads)]


@settings(max_examples=40, deadline=None)
@given(
    a=st.lists(st.fractions(min_value=0, max_value=1, max_denominator=10**6), min_size=1, max_size=12),
    b=st.lists(st.fractions(min_value=0, max_value=1, max_denominator=10**6), min_size=1, max_size=12),
    ra=st.floats(0, 1e-3),
    rb=st.floats(0, 1e-3),
    bits=st.sampled_from([None, 8, 30, 80, 200]),
    pick=st.randoms(use_true_random=False),
)
def test_ball_product_encloses_every_product(a, b, ra, rb, bits, pick):
    """Independent route: exact rational products of points chosen inside the input balls (and the arb_poly
    product's midpoints, taken at exact inputs) lie in the integer product's balls, which overlap arb_poly's."""
    from blanket.exact.laws.binomial import ball_product
    from flint import arb_poly

    with precision(96):
        rads_a = [ra * pick.random() for _ in a]
        rads_b = [rb * pick.random() for _ in b]
        A, B = _ball_list(a, rads_a), _ball_list(b, rads_b)
        out = ball_product(A, B, bits=bits)
        ref = (arb_poly(A) * arb_poly(B)).coeffs()
        ref += [arb(0)] * (len(out) - len(ref))
        assert len(out) == len(a) + len(b) - 1
        # points inside the balls: the midpoint ± a fraction of the (exact) radius
        pa = [F(v) + F(r) * F(pick.choice([-1, 0, 1, 1, 2]), 2) for v, r in zip(a, rads_a)]
        pb = [F(v) + F(r) * F(pick.choice([-1, 0, 1, 1, 2]), 2) for v, r in zip(b, rads_b)]
        for k, x in enumerate(out):
            assert x.is_finite()
            exact = sum((pa[i] * pb[k - i] for i in range(len(a)) if 0 <= k - i < len(b)), F(0))
            assert x.contains(arb(fmpq(exact.numerator, exact.denominator)))
            assert x.overlaps(ref[k])
            if bits is None:
                assert x.contains(ref[k].mid())


def test_window_to_tail_against_exact_binomial():
    """The one-pass window's values enclose the exact pmf and its tail bounds the exact mass left out."""
    from blanket.exact.laws.binomial import window_to_tail

    m, p = 3000, fmpq(2, 7)
    with precision(96):
        tol = arb(2) ** -50
        vals, off, tail = window_to_tail(m, p, tol)
        assert tail < tol
        q = 1 - p
        exact = [fmpq(math.comb(m, j)) * p**j * q ** (m - j) for j in range(m + 1)]
        for j, v in enumerate(vals):
            assert v.contains(exact[off + j])
        left = sum(exact[:off], fmpq(0)) + sum(exact[off + len(vals) :], fmpq(0))
        assert arb(left) <= tail and left > 0


@pytest.mark.parametrize("n", [10**4, 10**5, 10**6])
@pytest.mark.parametrize("lam", [2, "5/2", 17])
def test_integer_product_route_agrees_with_arb_poly(monkeypatch, n, lam):
    """Rényi of one dataset: the fmpz_poly product route and the arb_poly route give overlapping, finite,
    equally tight enclosures (the routes share the windows; they differ in the product and its radii)."""
    mech = BinaryRR(exp_epsilon0=3)
    c = n // 3
    with precision(128):
        monkeypatch.setattr(xr, "FMPZ_PRODUCT_MIN", 1)
        new = xr.renyi_binary(mech, n, c, order=lam)
        monkeypatch.setattr(xr, "FMPZ_PRODUCT_MIN", 10**12)
        old = xr.renyi_binary(mech, n, c, order=lam)
    assert new.value.is_finite() and old.value.is_finite()
    assert new.value.overlaps(old.value) and new.value.contains(old.value.mid())
    assert new.value.rad() < 32 * old.value.rad()
    assert new.value.rad() < new.value.mid() * arb(2) ** -90


def test_ball_product_signed_and_zero_balls():
    """Balls with a negative midpoint, containing 0, or below 2^-s go to the absolute part (η): every product
    of points inside the balls still lies in the output; bad ``bits`` is refused."""
    from blanket.exact.laws.binomial import ball_product

    with precision(96):
        A = [arb(-1) / 1000 + arb(0, 0.01), arb(0, 1e-9), arb(1) / 3, arb(2) ** -300]
        B = [arb(1) / 7, arb(0, 1e-3), arb(5) / 9]
        pa = [F(-1, 1000) + F(1, 200), F(-1, 10**9), F(1, 3), F(1, 2**300)]
        pb = [F(1, 7), F(1, 2000), F(5, 9)]
        for bits in (None, 20, 100):
            out = ball_product(A, B, bits=bits)
            for k, x in enumerate(out):
                exact = sum((pa[i] * pb[k - i] for i in range(len(pa)) if 0 <= k - i < len(pb)), F(0))
                assert x.contains(arb(fmpq(exact.numerator, exact.denominator)))
        with pytest.raises(InvalidArgument, match="bits"):
            ball_product(A, B, bits=701)


# ------------------------------------------------------------ the worst-case scan: block sizes, one BLAS thread
def test_scan_tiny_n_against_brute_force(monkeypatch):
    """The float scan (forced below EXACT_MAX_N) encloses every dataset's excess E − 1 from enumeration."""
    e = F(3)
    mech = BinaryRR(exp_epsilon0=fmpq(3))
    monkeypatch.setattr(xr, "EXACT_MAX_N", 1)
    for n in (6, 9):
        with precision(128):
            _, lo, hi = xr._scan_block(mech, n, fmpq(2), 0, (n - 1) // 2 + 1, block=4)
            w = xr.renyi_binary_worst(mech, n, order=2, workers=1)
        best = None
        for c in range((n - 1) // 2 + 1):
            for x in (0, 1):
                D0 = [1] * c + [0] * (n - 1 - c)
                ex = _moment_brute(_krr_rows(2, e), D0 + [x], D0 + [1 - x], 2)
                assert F(lo[c, x]) <= ex - 1 <= F(hi[c, x]), (n, c, x)
                best = ex if best is None or ex > best else best
        lo_w, hi_w = endpoints(w.moment)
        assert F(lo_w) <= best <= F(hi_w)


@pytest.mark.parametrize("lam", [2, 3])
def test_scan_block_sizes_contain_ball_route(lam):
    """Every block size (the old 64, the default, 128) encloses the ball route's excess of every dataset at n = 1000."""
    mech = BinaryRR(epsilon0="1")
    n, m = 1000, 500
    with precision(128):
        scans = [xr._scan_block(mech, n, fmpq(lam), 0, m, block=b) for b in (64, xr.sweep_block(n), 128)]
        for c in range(m):
            ball = [arb(v) - 1 for v in xr._moments_binary(mech, n, c, fmpq(lam), (0, 1))]
            for _, lo, hi in scans:
                for x in (0, 1):
                    assert arb(lo[c, x]) <= ball[x].lower() and ball[x].upper() <= arb(hi[c, x]), (c, x)
    assert xr.sweep_block(n) != 64  # the default really differs from the old block size


def _new_blocks_agree_with_old(monkeypatch, n):
    """The worst case with the default block size and with the old one (64, several BLAS threads allowed)
    names the same dataset, with overlapping enclosures; both overlap the ball route's value there."""
    mech = BinaryRR(epsilon0="1")
    with precision(128):
        new = xr.renyi_binary_worst(mech, n, order=2, workers=1, progress=False)
        monkeypatch.setattr(xr, "sweep_block", lambda n: 64)
        monkeypatch.setattr(xr, "_one_blas_thread", lambda: __import__("contextlib").nullcontext())
        old = xr.renyi_binary_worst(mech, n, order=2, workers=1, progress=False)
        ball = xr.moment_binary(mech, n, new.c, order=2, x=new.x)
    assert (new.c, new.x) == (old.c, old.x) and new.unresolved == old.unresolved == 0
    assert new.moment.overlaps(old.moment) and new.moment.overlaps(ball)
    assert new.moment.rad() < arb(2) ** -90


def test_one_blas_thread_limits_blas():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with xr._one_blas_thread():
        infos = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
        assert all(i["num_threads"] == 1 for i in infos)


def test_worst_case_new_blocks_agree_with_old(monkeypatch):
    _new_blocks_agree_with_old(monkeypatch, 3000)


@pytest.mark.slow
def test_worst_case_new_blocks_agree_with_old_10_4(monkeypatch, slow_level):
    _new_blocks_agree_with_old(monkeypatch, 6000 if slow_level == "reduced" else 10**4)
