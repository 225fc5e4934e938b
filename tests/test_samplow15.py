"""A sampled binary RR round's composed lower pair: the worst dataset's whole curve (exact.accounting.
sampled_binary_lower, SampledBinaryRows.roc_points; docs/composition.md §5f "The worst dataset's whole curve").

Independent route: the exact rationals of the Kronecker polynomials a^C b^(n−C) (sampled_binary.laws_exact, which
shares nothing with the route by rows: no hypergeometric law, no sweep, no float), their exact T = 2 products by
brute force, and the exact symmetric divergence of every dataset pair for the choice of C."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.accounting import curves
from blanket.exact.accounting import sampled_binary_lower as sbl
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
from blanket.exact.accounting.pairs import ShiftPair
from blanket.exact.accounting.sampled import Sampled
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import sampled_binary as sb
from blanket.exact.shuffled import sampled_binary_rows as sr
from flint import fmpq

BETAS = [fmpq(k, 10) for k in range(1, 10)] + [fmpq(1), fmpq(101, 100), fmpq(21, 20), fmpq(11, 10), fmpq(3, 2)]
BETAS += [fmpq(2), fmpq(5, 2), fmpq(3)]


def _hs(at: list, b: fmpq) -> fmpq:
    return sum((p - b * q for p, q in at if p - b * q > 0), fmpq(0))


def _exact_pair(e: fmpq, q: fmpq, n: int, C: int) -> list:
    laws = sb.laws_exact(e, q, n)
    P, Q = laws[C], laws[C - 1]
    out = []
    for m in range(n + 1):
        for k in range(m + 1):
            i = m * (n + 1) + k
            out.append((P[i] if i <= P.degree() else fmpq(0), Q[i] if i <= Q.degree() else fmpq(0)))
    return out


def _square(at: list) -> list:
    return [(p1 * p2, q1 * q2) for p1, q1 in at for p2, q2 in at]


@pytest.mark.parametrize(("e", "q", "n"), [(fmpq(2), fmpq(1, 2), 4), (fmpq(5, 2), fmpq(1, 5), 6)])
def test_roc_pair_at_or_below_the_exact_pair_and_close(e, q, n) -> None:
    """Every C: the ROC pair's H_β is at most the exact pair's at every β (β < 1: the other order) and within 1e-12;
    raising every test point by 1/1000 breaks the inequality (the comparison can fail)."""
    w = sr.SampledBinaryRows(e, q, n)
    broke = False
    for C in range(1, n + 1):
        pts = w.roc_points(C)
        assert all(0 <= x <= 1 and 0 < y <= 1 for x, y in pts)
        low = [(p, q_) for _r, p, q_ in curves.pair_from_roc(pts).masses]
        ex = _exact_pair(e, q, n, C)
        for b in BETAS:
            a, x = _hs(low, b), _hs(ex, b)
            assert a <= x
            assert x - a < fmpq(1, 10**12)
        raised = [(x, min(fmpq(1), y + fmpq(1, 1000))) for x, y in pts]
        up = [(p, q_) for _r, p, q_ in curves.pair_from_roc(raised).masses]
        broke = broke or any(_hs(up, b) > _hs(ex, b) for b in BETAS)
    assert broke


def test_two_rounds_below_the_exact_product_both_orders() -> None:
    """T = 2: the ROC pair's product (and the swapped pair's) at or below the exact product of the dataset pair."""
    e, q, n = fmpq(3), fmpq(1, 3), 4
    w = sr.SampledBinaryRows(e, q, n)
    for C in (1, 2):
        low = [(p, q_) for _r, p, q_ in curves.pair_from_roc(w.roc_points(C)).masses]
        ex = _exact_pair(e, q, n, C)
        l2, e2 = _square(low), _square(ex)
        s2, r2 = _square([(b, a) for a, b in low]), _square([(b, a) for a, b in ex])
        for al in (fmpq(1), fmpq(11, 10), fmpq(3, 2), fmpq(2), fmpq(4)):
            assert _hs(l2, al) <= _hs(e2, al)
            assert _hs(s2, al) <= _hs(r2, al)


def test_the_choice_has_the_largest_exact_divergence() -> None:
    """dataset_choice (bins of the float ratio) picks a C whose exact symmetric divergence Σ(P − Q)log(P/Q) is the
    largest over C = 1..n (exact laws, float logarithms)."""
    e, q, n = fmpq(2), fmpq(1, 5), 8
    w = sr.SampledBinaryRows(e, q, n)
    js = []
    for C in range(1, n + 1):
        ex = _exact_pair(e, q, n, C)
        js.append(sum(float(p - q_) * math.log(float(p) / float(q_)) for p, q_ in ex if p > 0 and q_ > 0))
    c = sbl.dataset_choice(w)
    assert js[c - 1] >= max(js) * (1 - 1e-9)


def test_bad_input_names_the_argument() -> None:
    w = sr.SampledBinaryRows(fmpq(2), fmpq(1, 2), 3)
    with pytest.raises(InvalidArgument, match="C"):
        w.roc_points(0)
    with pytest.raises(InvalidArgument, match="points"):
        w.roc_points(1, 0)
    with pytest.raises(InvalidArgument, match="direction"):
        sbl.curve_lower_pair(fmpq(2), fmpq(1, 2), 3, "sideways")
    with pytest.raises(InvalidArgument, match="q"):
        sbl.dataset_curve_pair(fmpq(2), fmpq(1), 3)


def test_sampled_round_composes_it_and_falls_back(monkeypatch) -> None:
    """Sampled binary RR: lower_pair is the dataset-curve pair where the exact worst case is affordable (forward, and
    backward = swapped), else the count of x reports; T = 2 at n = 4: the accountant's lower end is at most the exact
    composed worst case over every C (both orders), and it beats the old lower end (the count pair, low-sum)."""
    n, q = 4, "1/3"
    rnd = Sampled(Shuffled(KRR(2, exp_epsilon0=fmpq(3)), n), q)
    fw, bw = rnd.lower_pair("forward"), rnd.lower_pair("backward")
    assert isinstance(fw, curves.FinitePair) and isinstance(bw, curves.FinitePair)
    assert "C = 1" in fw.description and "backward" in bw.description
    al = fmpq(11, 10)  # below e^(1/10): the exact delta at ε = 1/10 is at most H there (non-increasing in α)
    exact = max(
        max(_hs(_square(ex), al), _hs(_square([(b, a) for a, b in ex]), al))
        for ex in (_exact_pair(fmpq(3), fmpq(1, 3), n, C) for C in range(1, n + 1))
    )
    new = ShuffleAccountant().compose(rnd, count=2).get_delta(Fraction(1, 10))
    assert new.lower <= Fraction(int(exact.p), int(exact.q))
    monkeypatch.setattr(sb, "affordable", lambda *a, **k: False)
    old_round = Sampled(Shuffled(KRR(2, exp_epsilon0=fmpq(3)), n), q)
    assert isinstance(old_round.lower_pair("forward"), ShiftPair)
    old = ShuffleAccountant().compose(old_round, count=2).get_delta(Fraction(1, 10))
    assert new.lower > old.lower


def test_cli_json_names_the_dataset() -> None:
    """`blanket epsilon --json` of a sampled binary RR composition reports the concrete pair that gave the lower end
    (``lower_source``: the dataset C), and its bracket is ordered."""
    import contextlib
    import io
    import json

    from blanket.reports import cli

    argv = ["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "60", "--sampling", "1/10", "--rounds", "3"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli.main([*argv, "--delta", "1e-6", "--workers", "1", "--json"]) == 0
    out = json.loads(buf.getvalue())
    assert Fraction(out["epsilon"]["lower"]) <= Fraction(out["epsilon"]["upper"])
    assert out["lower_pair"].startswith("concrete pair")  # the dataset's curve decides (not the summed count)
    assert "C = 1 ones of 60 users" in out["lower_source"]
