"""Composed rounds of the continuous randomizers (issue 27): the dominating pair from certified blanket-view values.

Independent checks: the hull's hockey-stick curve against (a) the certified values it was built from (never below
them at their points: the hull is a minorant of *valid upper values*, so it must equal or exceed nothing smaller than
the true curve — here: it is at least the exact δ of a concrete pair of datasets, the thresholded binary RR computed
by the k-RR engine at the same α) and (b) the composition: the accountant's certified ends are ordered and the
composed lower end (concrete datasets, a different engine) lies below the composed upper end.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant
from blanket.exact.accounting.continuous_rounds import ShuffledContinuous, continuous_record
from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.continuous import quantised_rr
from blanket.exact.shuffled.krr import delta_krr_family
from flint import fmpq


@pytest.fixture(scope="module")
def laplace_round():
    return ShuffledContinuous({"type": "laplace", "epsilon0": "1"}, 40, h="1/8", points=4)


def test_pair_lies_above_a_concrete_dataset_and_reproduces_its_values(laplace_round):
    ev = laplace_round
    vals, amax = ev.curve_values()
    pr = ev.dominating_pair()
    assert vals[0][0] == 1 and amax is not None and amax >= fmpq(271828, 100000)
    assert pr.mass_at_infinity == 0 and pr.hockey_stick(amax) == 0
    rr = quantised_rr(ev.mechanism)
    for a, u in vals:
        h = pr.hockey_stick(a)
        assert h <= u  # the greatest convex minorant of the points: at or below each certified value
        with arith.precision(128):
            low = delta_krr_family(rr, ev.n, "same", exp_epsilon=a)
        assert arith.le(low, h) is True  # ... and above the exact delta of a concrete pair of datasets
    # the reflection: E(1/α) = 1 − 1/α + E(α)/α for the pair's curve
    a = vals[1][0]
    assert pr.hockey_stick(1 / a) == 1 - 1 / a + pr.hockey_stick(a) / a


def test_composed_laplace_rounds(laplace_round):
    acc = ShuffleAccountant().compose(laplace_round, count=3)
    e = acc.get_epsilon("1e-3")
    assert 0 < e.lower <= e.pair_lower <= e.upper
    assert e.upper <= acc.basic_upper() == 3  # pure DP basic composition of three 1-LDP rounds bounds it
    assert "blanket view" in acc.pair_descriptions()[0]
    d = acc.get_delta(e.upper)
    assert d.upper <= Fraction(1, 1000) and d.lower <= d.upper
    # one round composed once: the certified delta is at least the single round's concrete-dataset delta
    one = ShuffleAccountant().compose(laplace_round, count=1).get_delta("1/4")
    with arith.precision(128):
        low = delta_krr_family(quantised_rr(laplace_round.mechanism), 40, "same", epsilon=fmpq(1, 4))
    assert arith.le(low, one.upper) is True


def test_gaussian_round_has_no_pure_or_renyi_route():
    ev = ShuffledContinuous(Gaussian(2), 20, h="1/2", points=3)
    pr = ev.dominating_pair()
    assert pr.mass_at_infinity > 0  # not epsilon0-LDP: the last certified value stays at +infinity
    acc = ShuffleAccountant().compose(ev, count=2)
    assert acc.basic_upper() is None
    e = acc.get_epsilon("1e-2")
    assert e.route == "PLD" and e.renyi_upper is None
    assert 0 <= e.lower <= e.upper < math.inf


def test_records_and_refusals():
    assert isinstance(continuous_record({"type": "laplace", "scale": "2"}), Laplace)
    assert continuous_record({"type": "laplace", "scale": "2"}).epsilon0 == fmpq(1, 2)
    with pytest.raises(InvalidArgument, match="sigma"):
        continuous_record({"type": "gaussian"})
    with pytest.raises(InvalidArgument, match="epsilon0"):
        continuous_record({"type": "gaussian", "sigma": "1", "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="type"):
        continuous_record({"type": "krr"})
    with pytest.raises(InvalidArgument, match="n"):
        ShuffledContinuous({"type": "laplace", "epsilon0": "1"}, None)


def _threshold_pair(n: int, e: Fraction) -> tuple:
    """The count of ones of the thresholded outputs (binary RR with P(1 | 0) = 1/(1+e)) on 0^n vs 1·0^(n−1), exact."""
    q = 1 / (1 + e)

    def law(first: Fraction) -> list:
        b = [Fraction(math.comb(n - 1, k)) * q**k * (1 - q) ** (n - 1 - k) for k in range(n)]
        out = [Fraction(0)] * (n + 1)
        for k, m in enumerate(b):
            out[k] += m * (1 - first)
            out[k + 1] += m * first
        return out

    return law(1 - q), law(q)


def _composed_hockey_stick(P: list, Q: list, T: int, a: Fraction) -> Fraction:
    """``H_a(P^T ‖ Q^T)`` exactly, by grouping the product's atoms by their likelihood ratio (brute force, small)."""
    atoms: dict = {}
    for p, q in zip(P, Q):
        r = p / q
        atoms[r] = (atoms.get(r, (0, 0))[0] + p, atoms.get(r, (0, 0))[1] + q)
    cur = {Fraction(1): (Fraction(1), Fraction(1))}
    for _ in range(T):
        nxt: dict = {}
        for r1, (p1, q1) in cur.items():
            for r2, (p2, q2) in atoms.items():
                k = r1 * r2
                a0, b0 = nxt.get(k, (0, 0))
                nxt[k] = (a0 + p1 * p2, b0 + q1 * q2)
        cur = nxt
    return sum((p - a * q for p, q in cur.values() if p > a * q), Fraction(0))


def test_cli_rounds_and_plot(tmp_path, capsys):
    import json

    from blanket.reports.cli import main

    n, T = 10, 2
    png = tmp_path / "c.png"
    argv = ["delta", "--mechanism", "laplace", "--epsilon0", "1", "-n", str(n), "--epsilon", "1/2"]
    code = main([*argv, "--rounds", str(T), "--json", "--plot", str(png)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["rounds"] == T and png.stat().st_size > 0
    lo, hi = Fraction(out["delta"]["lower"]), Fraction(out["delta"]["upper"])
    # the exact composed delta of the thresholded datasets (both orders), brute force in rationals
    e = quantised_rr(Laplace(1)).exp_epsilon0()
    P, Q = _threshold_pair(n, Fraction(int(e.p), int(e.q)))
    with arith.precision(128):
        a = arith.endpoints(arith.exp_ball(fmpq(1, 2)))
    exact = max(_composed_hockey_stick(P, Q, T, a[1]), _composed_hockey_stick(Q, P, T, a[1]))
    exact_at_lo_alpha = max(_composed_hockey_stick(P, Q, T, a[0]), _composed_hockey_stick(Q, P, T, a[0]))
    print("lower", float(lo), "thresholded", float(exact_at_lo_alpha), "upper", float(hi))
    assert exact <= hi and lo <= hi
    # the lower end is the datasets' own curve (a lower pair the thresholded outputs are a garbling of, up to the
    # lattice): not below the thresholded pair's exact composed delta by more than the lattice's slack
    assert lo >= exact_at_lo_alpha * Fraction(99, 100)


@pytest.mark.slow
def test_cli_single_round_plot(tmp_path, capsys, slow_level):
    from blanket.reports.cli import main

    png1 = tmp_path / "one.png"
    argv = ["delta", "--mechanism", "laplace", "--epsilon0", "1", "-n", "10", "--epsilon", "1/2"]
    assert main([*argv, "--plot", str(png1)]) == 0 and png1.stat().st_size > 0
    assert "wrote the privacy curve" in capsys.readouterr().err


def test_lower_pair_orders_are_one_pair_swapped(laplace_round):
    """The backward lower pair is the forward one with P and Q swapped: H_a(Q‖P) = 1 − a + a·H_{1/a}(P‖Q) exactly,
    and the larger of the two curves lies above the thresholded outputs' exact δ (the larger order; a garbling of the
    same datasets) up to the lattice's slack."""
    fwd, bwd = laplace_round.lower_pair("forward"), laplace_round.lower_pair("backward")
    assert fwd.kind == bwd.kind and sum(p for _r, p, _q in bwd.masses) == sum(q for _r, _p, q in fwd.masses)
    for a in (fmpq(1, 3), fmpq(4, 5), fmpq(1), fmpq(6, 5), fmpq(2)):
        assert bwd.hockey_stick(a) == 1 - a + a * fwd.hockey_stick(1 / a)
    rr = quantised_rr(laplace_round.mechanism)
    for a in (fmpq(1), fmpq(5, 4), fmpq(3, 2)):
        with arith.precision(128):
            thr = delta_krr_family(rr, laplace_round.n, "same", exp_epsilon=a)
        lo = arith.endpoints(thr)[0] if not isinstance(thr, fmpq) else thr
        assert max(fwd.hockey_stick(a), bwd.hockey_stick(a)) >= lo * fmpq(99, 100)
    with pytest.raises(InvalidArgument, match="direction"):
        laplace_round.lower_pair("sideways")
