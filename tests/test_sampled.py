"""Sampled participation (``blanket.exact.accounting.sampled``, docs/composition.md §8): the sampled blanket view
against brute force (exact rationals: every participation pattern and every output), q = 1, composition, bad q."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import sampled as S
from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR
from blanket.exact.accounting.curves import FinitePair, curve_grid, pair_from_values
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from flint import fmpq

ALPHAS = [fmpq(1), fmpq(21, 20), fmpq(6, 5), fmpq(3, 2), fmpq(2), fmpq(5, 2)]


def _user_law(k: int, e: fmpq, q: fmpq, value: int) -> dict:
    """One user's sampled k-RR output law: None (no report) w.p. 1 − q, else k-RR of ``value``."""
    f = 1 / (e + k - 1)
    law = {None: 1 - q}
    for y in range(k):
        law[y] = q * (e * f if y == value else f)
    return law


def _view_law(k: int, e: fmpq, q: fmpq, values: list) -> dict:
    """Exact law of the shuffled view (the count of each value among the reports) by enumerating every
    participation pattern and every output of every user."""
    laws = [_user_law(k, e, q, v) for v in values]
    out: dict = {}
    for outs in itertools.product(*[list(lw.items()) for lw in laws]):
        pr = fmpq(1)
        cnt = [0] * k
        for y, w in outs:
            pr *= w
            if y is not None:
                cnt[y] += 1
        key = tuple(cnt)
        out[key] = out.get(key, fmpq(0)) + pr
    return out


def _hs(P: dict, Q: dict, a: fmpq) -> fmpq:
    return sum((max(fmpq(0), P.get(v, fmpq(0)) - a * Q.get(v, fmpq(0))) for v in set(P) | set(Q)), fmpq(0))


def _worst_exact(k: int, e: fmpq, q: fmpq, n: int, alphas: list) -> list:
    """max over every dataset of the others and both orders of the exact H_α (target value 0 vs 1)."""
    best = [fmpq(0)] * len(alphas)
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        P = _view_law(k, e, q, [0, *others])
        Q = _view_law(k, e, q, [1, *others])
        for i, a in enumerate(alphas):
            best[i] = max(best[i], _hs(P, Q, a), _hs(Q, P, a))
    return best


@pytest.mark.parametrize(("k", "e", "q", "n"), [(2, 3, "1/2", 4), (2, 2, "1/10", 5), (3, 3, "1/3", 4), (2, 3, 1, 4)])
def test_sampled_view_dominates_brute_force(k, e, q, n):
    """Every dataset pair's exact H_α lies below the sampled view's certified value and below its hull pair."""
    mech = KRR(k, exp_epsilon0=e)
    qq = fmpq(Fraction(q).numerator, Fraction(q).denominator)
    exact = _worst_exact(k, fmpq(e), qq, n, ALPHAS)
    view = S.sampled_view(mech, n, qq)
    pair = S.sampled_krr_pair(mech, n, qq, points=64)
    for a, x in zip(ALPHAS, exact):
        assert x <= view.value(a), (a, x)
        assert x <= pair.hockey_stick(a), (a, x)
    assert exact[0] > 0  # the check is not vacuous


def test_sampling_helps_and_compaction_dominates():
    """A smaller q gives a smaller certified curve (at equal n); the compacted pair's H is at or above the hull
    pair's at every α (below 1 too), and its PLD support is short (no atom near ε0 or −ε0)."""
    mech = KRR(2, exp_epsilon0=3)
    v1 = S.sampled_view(mech, 200, fmpq(1))
    v2 = S.sampled_view(mech, 200, fmpq(1, 10))
    for a in (fmpq(1), fmpq(11, 10)):
        assert v2.value(a) < v1.value(a)
    view = S.sampled_view(mech, 200, fmpq(1, 10))
    grid = curve_grid(fmpq(1, 2), 64)
    hull = pair_from_values([(a, view.value(a)) for a in grid], alpha_max=view.e_hi)
    pr = S.compact(hull, view.e_hi, grid[-1])
    assert sum(p for r, p, q in pr.masses) == 1 and sum(q for r, p, q in pr.masses) == 1
    for a in [fmpq(j, 16) for j in range(0, 64)]:
        assert pr.hockey_stick(a) >= hull.hockey_stick(a)
    assert max(r for r, p, q in pr.masses if r is not None) <= grid[-1]
    assert min(r for r, p, q in pr.masses if r is not None and r > 0) >= 1 / grid[-1]


def test_q_one_is_the_event():
    ev = ShuffledRR(k=2, epsilon0="1", n=300)
    s = S.Sampled(ev, 1)
    assert s.dominating_pair() is ev.dominating_pair()
    a = ShuffleAccountant().compose(ev, 3).get_epsilon("1e-6")
    b = ShuffleAccountant().compose(s, 3).get_epsilon("1e-6")
    assert (a.upper, a.lower, a.pair_lower) == (b.upper, b.lower, b.pair_lower)


def _product(P: dict, Q: dict) -> tuple:
    PP = {(u, v): P[u] * P[v] for u in P for v in P}
    QQ = {(u, v): Q[u] * Q[v] for u in Q for v in Q}
    return PP, QQ


def test_composed_two_rounds_in_sandwich():
    """T = 2: the exact 2-fold product of every concrete dataset pair (n = 4) lies below the composed upper end, and
    the certified lower end lies below the worst of them (it is itself a concrete pair, post-processed)."""
    k, e, q, n = 2, fmpq(3), fmpq(1, 2), 4
    mech = KRR(k, exp_epsilon0=e)
    ev = S.Sampled(Shuffled(mech, n), Fraction(1, 2))
    acc = ShuffleAccountant().compose(ev, 2)
    for eps in ("1/4", "1/2", "1"):
        d = acc.get_delta(eps)
        lo_a, hi_a = (fmpq(x.numerator, x.denominator) for x in arith.endpoints(arith.ball(fmpq(*_nd(eps))).exp()))
        worst = fmpq(0)
        for c in range(n):
            others = [1] * c + [0] * (n - 1 - c)
            PP, QQ = _product(_view_law(k, e, q, [1, *others]), _view_law(k, e, q, [0, *others]))
            # H is non-increasing in alpha: H(hi_a) <= delta(eps) <= H(lo_a)
            below = max(_hs(PP, QQ, hi_a), _hs(QQ, PP, hi_a))
            assert Fraction(int(below.p), int(below.q)) <= d.upper
            worst = max(worst, _hs(PP, QQ, lo_a), _hs(QQ, PP, lo_a))
        assert d.lower <= Fraction(int(worst.p), int(worst.q))
        assert d.lower < d.upper


def _nd(x: str) -> tuple:
    f = Fraction(x)
    return f.numerator, f.denominator


@pytest.mark.parametrize("q", ["0", "-1/2", "3/2", "2", 0])
def test_bad_q_refused_by_name(q):
    with pytest.raises(InvalidArgument) as ei:
        S.Sampled(ShuffledRR(k=2, epsilon0="1", n=10), q)
    assert str(ei.value).startswith("q ")


def test_binary_float_q_refused_with_exact_spellings():
    """q = 0.1 as a float is not 1/10: refused in one line naming q and the exact spellings, which both give 1/10
    (README "Rigour conventions"; polish15: it was taken at its binary value)."""
    with pytest.raises(FloatRefused) as ei:
        S.Sampled(ShuffledRR(k=2, epsilon0="1", n=10), 0.1)
    msg = str(ei.value)
    assert msg.startswith("q ") and "binary float" in msg and '"0.1"' in msg and "\n" not in msg
    for exact_q in ("0.1", Fraction(1, 10)):
        assert S.Sampled(ShuffledRR(k=2, epsilon0="1", n=10), exact_q).q == Fraction(1, 10)
    assert S.Sampled(ShuffledRR(k=2, epsilon0="1", n=10), 1).q == 1  # an int is exact


def test_bad_event_refused():
    ev = S.Sampled(ShuffledRR(k=2, epsilon0="1", n=10), "1/2")
    with pytest.raises(InvalidArgument, match="event"):
        S.Sampled(ev, "1/2")


def test_accountant_names_the_pair_and_other_randomizers():
    acc = ShuffleAccountant().compose(S.Sampled(ShuffledRR(k=3, epsilon0="1", n=2000), "1/20"), 5)
    e = acc.get_epsilon("1e-6")
    # the sampled blanket view (Lemma S1) or, since session 12, k-RR's R_q curve pair (the accountant keeps the smaller)
    assert any("sampled blanket view" in p or "the sampled randomizer R_q" in p for p in e.details["pairs"])
    assert any(
        "sampled blanket view" in p
        for p in ShuffleAccountant(curves=False)
        .compose(S.Sampled(ShuffledRR(k=3, epsilon0="1", n=2000), "1/20"), 5)
        .get_epsilon("1e-6")
        .details["pairs"]
    )
    # the unsampled round's old pair (its curve pair, 20 s of CPU here, is not this test's subject)
    un = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0="1", n=2000), 5).get_epsilon("1e-6")
    assert e.upper < un.upper
    oue = S.Sampled(Shuffled({"type": "oue", "k": 4, "epsilon0": "1"}, 1000), "1/10")
    assert "not exploited" in oue.dominating_pair().description and oue.dominating_pair().kind == "clone"
    assert "participation q = 1/10" in oue.lower_pair().description  # its set count, times q (seams11)
    e3 = (
        ShuffleAccountant().compose(oue, 2).get_epsilon("1e-6")
    )  # never the oracle's own curve pair (not valid for R_q): the clone pair or R_q's curve pair (sampled11)
    assert all("not exploited" in p or "the sampled randomizer R_q" in p for p in e3.details["pairs"])
    assert isinstance(S.Sampled(ShuffledRR(k=3, epsilon0="1", n=50), "1/2").dominating_pair(), FinitePair)


_DEP = """name = "sampled"
[randomizer]
mechanism = "binary_rr"
epsilon0 = 1
[users]
n = 1000
[[claims]]
epsilon = 1
delta = 1e-6
[[rounds]]
count = 3
{extra}
"""


def test_deployment_sampling(tmp_path):
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_DEP.format(extra='sampling = "0.01"'))
    dep = load_deployment(f)
    ev = dep.rounds[0].event()
    assert isinstance(ev, S.Sampled) and ev.q == Fraction(1, 100) and ev.n == 1000
    assert dep.as_dict()["rounds"][0]["sampling"] == "0.01"
    f.write_text(_DEP.format(extra=""))
    plain = load_deployment(f)
    assert isinstance(plain.rounds[0].event(), ShuffledRR) and "sampling" not in plain.as_dict()["rounds"][0]
    for bad in ('"0"', "2", '"-0.5"'):
        f.write_text(_DEP.format(extra=f"sampling = {bad}"))
        with pytest.raises(InvalidArgument) as ei:
            load_deployment(f)
        assert str(ei.value).startswith("rounds[0].sampling ")


def _s1_pair_hs(n: int, e: fmpq, q: fmpq, alphas: list) -> list:
    """H_α of the Lemma S1 pair (binary RR, target x = 1 vs x' = 0), enumerated exactly: m ~ Bin(n − 1, γ) blanket
    draws of ω, their counts (a of x, b of x') by the multinomial, plus the target's sampled output."""
    from math import comb, factorial

    f = 1 / (e + 1)
    p = e * f
    g = 1 - q + 2 * q * f
    w_bot, w_x = (1 - q) / g, q * f / g
    hs = [fmpq(0)] * len(alphas)
    for m in range(n):
        bm = comb(n - 1, m) * g**m * (1 - g) ** (n - 1 - m)
        P: dict = {}
        Q: dict = {}
        for a in range(m + 1):
            for b in range(m + 1 - a):
                mult = factorial(m) // (factorial(a) * factorial(b) * factorial(m - a - b))
                w = mult * w_x ** (a + b) * w_bot ** (m - a - b)
                for v, pp, qq in (((a, b), 1 - q, 1 - q), ((a + 1, b), q * p, q * f), ((a, b + 1), q * f, q * p)):
                    P[v] = P.get(v, fmpq(0)) + pp * w
                    Q[v] = Q.get(v, fmpq(0)) + qq * w
        for i, al in enumerate(alphas):
            hs[i] += bm * _hs(P, Q, al)
    return hs


def test_sampled_view_windows_against_the_exact_s1_pair():
    """n = 60: the windows on the blanket draws are active (they start well above 0); the certified values lie above
    the exact H_α of the Lemma S1 pair (at such small n the windows make them about 3.5 times larger)."""
    n, e, q = 60, fmpq(3), fmpq(1, 4)
    view = S.sampled_view(KRR(2, exp_epsilon0=3), n, q)
    alphas = [fmpq(1), fmpq(11, 10), fmpq(3, 2)]
    exact = _s1_pair_hs(n, e, q, alphas)
    for a, x in zip(alphas, exact):
        u = view.value(a)
        assert x <= u < 1, (a, x, u)


def test_q_one_view_is_close_to_the_blanket_view():
    """q = 1, n = 2000: the banded windows cost little against the Lemma 5.3 blanket view's exact δ (an independent
    engine, exact.shuffled.krr): above it, and within 10 %."""
    from blanket.exact.shuffled.krr import delta_blanket_view

    mech = KRR(2, fmpq(1))
    view = S.sampled_view(mech, 2000, fmpq(1))
    for eps in (fmpq(1, 100), fmpq(3, 100), fmpq(6, 100), fmpq(1, 10)):
        lo = arith.endpoints(arith.ball(eps).exp())[0]
        u = view.value(fmpq(lo.numerator, lo.denominator))  # H is non-increasing: H(lo) >= H(e^eps)
        d = delta_blanket_view(mech, 2000, epsilon=eps)
        assert arith.le(d, u) is True
        assert arith.le(u, d * fmpq(11, 10)) is True
