"""The matrix randomizer's binarized concrete-dataset lower pair (exact/accounting/matrix_lower.py) against brute force.

Independent routes: every report vector enumerated (exact.shuffled.bruteforce), the exhaustive worst case over all
datasets (exact.shuffled.enumerate), and the exact two-fold product of a dataset pair's full shuffled laws.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import matrix_lower as ml
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import enumerate as en
from blanket.exact.shuffled.bruteforce import shuffled_law
from blanket.exact.shuffled.matrix_view import matrix_blanket_view
from flint import arb, fmpq

M3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]]  # examples/matrix_3x3.csv
M_SKEW = [["3/5", "1/5", "1/10", "1/10"], ["1/10", "1/2", "1/5", "1/5"], ["1/4", "1/4", "1/4", "1/4"]]


def _hockey(P: dict, Q: dict, eps) -> tuple[Fraction, Fraction]:
    """``H_{e^ε}(P‖Q)`` of two finite laws as a ball's ends (α = e^ε a ball at 256 bits)."""
    with arith.precision(256):
        a = arb(fmpq(arith.exact(eps, "eps"))).exp()
        tot = arb(0)
        for key in set(P) | set(Q):
            d = arb(P.get(key, fmpq(0))) - a * arb(Q.get(key, fmpq(0)))
            tot += d.max(arb(0))
        return arith.endpoints(tot)


def _count_law(law: dict, outputs: tuple) -> dict:
    """The law of the number of reports in ``outputs`` (a histogram's entries summed)."""
    out: dict = {}
    for hist, p in law.items():
        s = sum(hist[y] for y in outputs)
        out[s] = out.get(s, fmpq(0)) + p
    return out


@pytest.mark.parametrize("rows", [M3, M_SKEW])
@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("eps", ["0.2", "0.6"])
def test_one_round_is_the_exact_delta_of_the_statistic_and_below_the_worst_case(rows, n, eps):
    m = FiniteRandomizer(rows)
    val, text = ml.lower_delta(m, n, eps)
    # the chosen binarization, recovered by recomputing every candidate's brute-force value: the certified value is one
    # of them (to rounding) and none exceeds the worst case
    vals = []
    for c in ml.candidates(m):
        P = _count_law(shuffled_law(m, [c.z] * (n - 1) + [c.x]), c.outputs)
        Q = _count_law(shuffled_law(m, [c.z] * (n - 1) + [c.x2]), c.outputs)
        vals.append((_hockey(P, Q, eps), c))
    matched = [c for (lo, hi), c in vals if val <= hi and hi - val < Fraction(1, 10**20)]
    assert matched, (val, text)
    assert any(c.describe(n) == text for c in matched)
    with arith.precision(256):
        worst = en.worst_case(m, n, epsilon=eps).value
        w_lo, w_hi = arith.endpoints(arith.ball(worst))
        up = matrix_blanket_view(m, n, epsilon=eps)
        u_lo, u_hi = arith.endpoints(arith.ball(up))
    assert val <= w_hi
    assert w_lo <= u_hi  # the one-round bracket [binarized, blanket view] contains the worst case
    assert max(lo for (lo, hi), _ in vals) <= w_hi  # every binarization is a post-processing: never above


def test_candidates_are_upper_sets_with_a_positive_shift():
    m = FiniteRandomizer(M_SKEW)
    rows = m.matrix()
    cs = ml.candidates(m)
    assert cs and all(c.q_x > c.q_x2 for c in cs)
    for c in cs:
        assert c.q_x == sum(rows[c.x][y] for y in c.outputs) and c.q_z == sum(rows[c.z][y] for y in c.outputs)
        inside = [rows[c.x][y] / rows[c.x2][y] if rows[c.x2][y] else None for y in c.outputs]
        outside = [rows[c.x][y] / rows[c.x2][y] for y in range(len(rows[0])) if y not in c.outputs]
        if None not in inside and outside:
            assert min(inside) > max(outside)  # an upper set of the likelihood ratio
    sig = [c.signal() for c in cs]
    assert sig == sorted(sig, reverse=True)
    assert ml.composition_choice(m) == cs[0]


def test_lower_epsilon_is_below_the_worst_case_epsilon():
    m = FiniteRandomizer(M3)
    n, d = 5, fmpq(1, 100)
    lo, _ = ml.lower_epsilon(m, n, d)
    assert lo > 0
    # the worst case's δ at a rational just below the lower end exceeds d (the lower end is certified)
    below = lo - fmpq(1, 10**6)
    with arith.precision(256):
        w = arith.ball(en.worst_case(m, n, epsilon=below).value)
    assert arith.gt(w, arith.ball(d)) is True


def test_composed_two_rounds_lower_is_below_the_exact_composition_of_that_dataset_pair():
    m = FiniteRandomizer(M3)
    n, eps = 4, "0.5"
    c = ml.composition_choice(m)
    P1 = shuffled_law(m, [c.z] * (n - 1) + [c.x])
    Q1 = shuffled_law(m, [c.z] * (n - 1) + [c.x2])
    P2 = {(a, b): P1[a] * P1[b] for a, b in itertools.product(P1, P1)}
    Q2 = {(a, b): Q1[a] * Q1[b] for a, b in itertools.product(Q1, Q1)}
    fwd = _hockey(P2, Q2, eps)[1]
    bwd = _hockey(Q2, P2, eps)[1]
    acc = ShuffleAccountant(curves=False)
    acc.compose(Shuffled(m, n), 2)
    got = acc.get_delta(eps)
    assert 0 < got.lower <= max(fwd, bwd)
    assert got.lower <= got.upper


def test_accountant_has_a_lower_end_for_matrix_rounds():
    m = FiniteRandomizer(M3)
    ev = Shuffled(m, 1000)
    lp = ev.lower_pair("forward")
    assert lp is not None and lp.kind == "dataset-binarized" and lp.pi_p > lp.pi_q
    bp = ev.lower_pair("backward")
    assert bp is not None and bp.pi_p > bp.pi_q


def test_bad_input():
    from blanket.exact.mechanisms.finite import BinaryRR

    with pytest.raises(InvalidArgument, match="mech"):
        ml.candidates(BinaryRR(exp_epsilon0=3))
    with pytest.raises(InvalidArgument, match="identical rows"):
        ml.composition_choice(FiniteRandomizer([["1/2", "1/2"], ["1/2", "1/2"]]))
    with pytest.raises(InvalidArgument, match="direction"):
        ml.shift_pair(ml.composition_choice(FiniteRandomizer(M3)), 10, "sideways")


def test_certificate_above_the_enumeration_limit_reports_both_ends(tmp_path):
    from blanket.reports.certificate import certify

    (tmp_path / "m.csv").write_text("\n".join(", ".join(r) for r in M3) + "\n")
    (tmp_path / "d.toml").write_text(
        'name = "m"\nneighbouring = "replace-one"\n[mechanism]\ntype = "matrix"\nmatrix_file = "m.csv"\n'
        '[users]\nn = 30\n[[claims]]\nepsilon = "0.05"\ndelta = "1e-3"\n[[targets]]\ndelta = "1e-3"\n'
    )
    cert = certify(tmp_path / "d.toml", plot=False)
    (cl,) = cert["claims"]
    assert cl["verdict"] == "FAILS" and cl["lower"]["key"] == "matrix-binarized"  # a claim can fail at any n
    (t,) = cert["targets"]
    assert t["verdict"] == "HOLDS" and t["kind"] == "bracket"
    assert t["upper_key"].startswith("matrix-blanket-view") and t["lower_key"] == "matrix-binarized"
    lo, up = arith.exact(t["epsilon_lower"], "lo"), arith.exact(t["epsilon_upper"], "up")
    assert 0 < lo < up
    # independent: the binarized pair's δ just below the lower end, by brute-force convolution of its exact laws
    m = FiniteRandomizer(M3)
    c = next(c for c in ml.candidates(m) if c.describe(30) == t["lower_dataset"])
    from math import comb

    g = [comb(29, s) * c.q_z**s * (1 - c.q_z) ** (29 - s) for s in range(30)] + [fmpq(0)]
    P = {s: c.q_x * (g[s - 1] if s else 0) + (1 - c.q_x) * g[s] for s in range(31)}
    Q = {s: c.q_x2 * (g[s - 1] if s else 0) + (1 - c.q_x2) * g[s] for s in range(31)}
    h_lo, _ = _hockey(P, Q, lo - fmpq(1, 10**6))
    assert h_lo > Fraction(1, 1000)


@pytest.mark.parametrize("seed", range(4))
def test_random_matrices_lower_never_above_the_exhaustive_worst_case(seed):
    import random

    rnd = random.Random(seed)
    rows = []
    for _ in range(3):
        w = [rnd.randint(1, 9) for _ in range(4)]
        rows.append([fmpq(v, sum(w)) for v in w])
    m = FiniteRandomizer(rows)
    n, eps = 4, fmpq(1, 4)
    val, _ = ml.lower_delta(m, n, eps)
    with arith.precision(256):
        w_hi = arith.endpoints(arith.ball(en.worst_case(m, n, epsilon=eps).value))[1]
    assert val <= w_hi
    lo_eps, _ = ml.lower_epsilon(m, n, fmpq(1, 1000))
    if lo_eps > 0:  # the worst case's δ just below the certified ε lower end is above the δ
        with arith.precision(256):
            w = arith.ball(en.worst_case(m, n, epsilon=lo_eps - fmpq(1, 10**6)).value)
        assert arith.gt(w, arith.ball(fmpq(1, 1000))) is True
