"""Binary RR's summed-count lower pair: the rounds of one concrete pair of datasets seen through the sum of their counts.

Every other user holds 0 (the dataset ``c = 0``), the target holds 1 (``P``) or 0 (``Q``), and every binary RR round
with the same ``e^{ε0}`` runs on that pair of datasets.  The adversary keeps only ``S``, the total number of reports
equal to 1 over those rounds: a post-processing of the composed outputs, so ``H_α`` of the law of ``S`` is a certified
*lower* bound on the composed mechanism's ``H_α`` (rounds of other kinds are left out: also a post-processing).  With
``N = Σ_i count_i·(n_i − 1)`` other reports and ``T = Σ_i count_i`` reports of the target,

    S ~ Bin(N, f) + Bin(T, p)   under P,        S ~ Bin(N, f) + Bin(T, f)   under Q

(``p = e^{ε0}/(1 + e^{ε0})``, ``f = 1 − p``).  The other order (target 0 under the first hypothesis) is the same form
after counting zeros: ``Bin(N, p) + Bin(T, p)`` against ``Bin(N, p) + Bin(T, f)``.  ``docs/composition.md`` §5h.

Why it helps: the composed lower pair of :mod:`blanket.exact.accounting.pld` rounds every round's loss *down* to the
PLD grid, which costs about ``T·Δ/2`` in ε (at ``n = 10⁴``, ``T = 10⁴`` on the grid ``4Δ``: 0.15 of ε ≈ 5.1), while the
sum of the counts is a one-dimensional statistic whose ``H`` is computed directly, with no grid; it loses only the
curvature of each round's loss in its count (float experiments: 3·10⁻⁵ relative at ``n = 10⁴``, ``T = 365``; up to
8 % at ``n ≤ 200`` with large ε0, where the accountant's composed lower pairs stay the larger).

Certified values.  For every threshold ``s``, ``H_α(P‖Q) ≥ P(S ≥ s) − α·Q(S ≥ s)`` (the test ``{S ≥ s}``), so a lower
end of ``P(S ≥ s)`` and an upper end of ``Q(S ≥ s)`` give a certified lower end of ``H_α``, and ``ε(δ) ≥
log((P(S ≥ s) − δ)/Q(S ≥ s))`` whenever ``P(S ≥ s) > δ``.  The threshold is chosen by a float search (it decides
only how tight the bound is); the two tails are ball sums ``Σ_k Bin(T, π)(k)·G(s − k)`` over a window of
``Bin(T, π)`` (its left-out mass dropped for the lower end, added for the upper end), with ``G(j) = P(Bin(N, q) ≥ j)``
from one certified tail (:func:`blanket.exact.laws.binomial.tail`) and exact pmf steps in ball arithmetic.

Complexity: the search O(W_S log W_S) floats (``W_S ≈ 30·sqrt((N + T)pf)`` outcomes of ``S``, one FFT product); each
certified threshold O(W_T) ball operations (``W_T ≈ 30·sqrt(T p f)``), two certified tails of ``Bin(N, q)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure
from flint import arb, fmpq

__all__ = ["SummedPair", "summed_pairs", "lower_epsilon", "lower_delta", "tails"]

#: left-out mass of the window of ``Bin(T, π)`` (dropped from the lower tail, added to the upper one)
WINDOW_TOL = fmpq(1, 2**100)
#: working precision of the ball sums
PREC = 128
#: the float search's window of ``S``: this many standard deviations on each side of the mean
SEARCH_Z = 16.0
#: certified thresholds around the float search's best one (float noise can shift the best by a step), and the most
#: further steps of the walk in the improving direction
NEIGHBOURS = 2
MAX_CLIMB = 64


@dataclass(frozen=True)
class SummedPair:
    """The law of ``S = A + B`` under both hypotheses: ``A ~ Bin(others, q_others)`` under both, ``B ~ Bin(rounds,
    pi_p)`` under ``P`` and ``Bin(rounds, pi_q)`` under ``Q`` (``pi_p > pi_q``, so the likelihood ratio increases in
    ``S``).  Parameters exact ``fmpq`` or balls."""

    others: int
    rounds: int
    q_others: Enclosure
    pi_p: Enclosure
    pi_q: Enclosure
    description: str = ""


def summed_pairs(mech: KRR, others: int, rounds: int, q: Enclosure | None = None) -> list[SummedPair]:
    """Both orders of the summed-count pair of binary RR ``mech`` (the dataset ``c = 0``): ``others`` other users'
    slots (``Σ count·(n − 1)``) and ``rounds`` of the target (``Σ count``).  ``q`` (exact, ``0 < q ≤ 1``; default 1):
    each user takes part in a round with probability ``q`` (Poisson participation, ``sampled.Sampled``), so a slot
    reports 1 w.p. ``q f`` (others), ``q p`` or ``q f`` (the target); the backward order counts the slots that do not
    report 1.  O(1)."""
    if not (isinstance(mech, KRR) and mech.k == 2):
        raise InvalidArgument("mech", getattr(mech, "name", mech), "must be binary randomized response (k = 2)")
    others = arith.integer_in(others, "others", lo=0)
    rounds = arith.integer_in(rounds, "rounds", lo=1)
    qq = fmpq(1) if q is None else arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    e = mech.exp_epsilon0()
    f = qq / (e + 1)
    p = qq * e / (e + 1)
    part = "" if qq == 1 else f", participation q = {qq}"
    base = (
        f"dataset c = 0 in every binary RR round{part}, the sum of the counts ({rounds} rounds, {others} other users)"
    )
    return [
        SummedPair(others, rounds, f, p, f, base + ", forward"),
        SummedPair(others, rounds, 1 - f, 1 - f, 1 - p, base + ", backward (the slots not reporting 1 counted)"),
    ]


def _f(x: Enclosure) -> float:
    return float(arith.ball(x).mid())


def _binom_window(m: int, r: float, z: float = SEARCH_Z) -> tuple:
    """``(lo, pmf)``: float pmf of ``Bin(m, r)`` on ``lo … hi``, ``z`` (:data:`SEARCH_Z`) standard deviations (plus one) on
    each side of the mean, normalised to sum 1 over the window (the mass left out is negligible); for the search
    only.  Log-pmf steps ``log((m − k)/(k + 1)) + log(r/(1 − r))`` summed from the window's low end (float64: relative
    error about ``window·10⁻¹⁶·max|log pmf|``, far below what decides a threshold).  O(window).  NumPy only: importing
    ``scipy.signal``/``scipy.stats`` here cost the command about 2 CPU s, more than the search itself."""
    if r <= 0.0 or r >= 1.0 or m == 0:
        k0 = 0 if (r <= 0.0 or m == 0) else m
        return k0, np.ones(1)
    sd = math.sqrt(m * r * (1 - r)) + 1.0
    lo = max(0, int(m * r - z * sd) - 2)
    hi = min(m, int(m * r + z * sd) + 2)
    k = np.arange(lo, hi, dtype=np.float64)  # steps k -> k + 1 for k = lo … hi − 1
    steps = np.log((m - k) / (k + 1)) + (math.log(r) - math.log1p(-r))
    logp = np.concatenate(([0.0], np.cumsum(steps)))
    pmf = np.exp(logp - logp.max())
    return lo, pmf / pmf.sum()


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` (full linear convolution) by a real FFT of a power-of-two length, clipped at 0.  O(L log L)."""
    n = len(a) + len(b) - 1
    size = 1 << max(1, (n - 1).bit_length())
    out = np.fft.irfft(np.fft.rfft(a, size) * np.fft.rfft(b, size), size)[:n]
    return np.maximum(out, 0.0)


def _float_laws(pair: SummedPair) -> tuple:
    """``(s0, P, Q)``: float pmfs of ``S`` on ``s0 + i`` (a window of :data:`SEARCH_Z` standard deviations); for the
    search only.  O(W_S log W_S)."""
    q, pp, pq = _f(pair.q_others), _f(pair.pi_p), _f(pair.pi_q)
    N, T = pair.others, pair.rounds
    a0, A = _binom_window(N, q)
    b0, BP = _binom_window(T, pp)
    c0, BQ = _binom_window(T, pq)
    lo = a0 + min(b0, c0)
    P = np.zeros(len(A) + max(b0 + len(BP), c0 + len(BQ)) - min(b0, c0))
    Q = np.zeros_like(P)
    cp = _convolve(A, BP)
    cq = _convolve(A, BQ)
    P[b0 - min(b0, c0) : b0 - min(b0, c0) + len(cp)] = cp
    Q[c0 - min(b0, c0) : c0 - min(b0, c0) + len(cq)] = cq
    return lo, P, Q


def _search(pair: SummedPair, score) -> int:
    """The threshold ``s`` maximising ``score(P(S ≥ s), Q(S ≥ s))`` on the float laws (a choice; every ``s`` gives a
    valid bound)."""
    s0, P, Q = _float_laws(pair)
    Ps = np.cumsum(P[::-1])[::-1]
    Qs = np.cumsum(Q[::-1])[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        sc = score(Ps, Qs)
    sc = np.where(np.isfinite(sc), sc, -np.inf)
    return s0 + int(np.argmax(sc))


def _g_values(N: int, q: arb, j_lo: int, j_hi: int) -> dict:
    """``{j: P(Bin(N, q) ≥ j)}`` for ``j_lo ≤ j ≤ j_hi`` as balls: one certified tail at the top, then exact steps
    ``G(j − 1) = G(j) + b(j − 1)`` with the pmf ratio ``b(j − 1) = b(j)·j(1 − q)/((N − j + 1)q)``.  O(j_hi − j_lo)."""
    out: dict = {}
    top = min(j_hi, N + 1)
    for j in range(max(top + 1, j_lo), j_hi + 1):
        out[j] = arb(0)
    if top < j_lo:
        return out
    G = laws.tail(N, q, top) if top >= 1 else arb(1)
    out[top] = G
    j = top
    b = laws.pmf(N, q, j - 1) if j - 1 >= 0 else arb(0)
    rho = (1 - q) / q
    while j > j_lo:
        if j - 1 <= 0:
            for i in range(j_lo, j):
                out[i] = arb(1)
            break
        G = G + b
        j -= 1
        out[j] = G
        b = b * rho * fmpq(j, N - j + 1)  # b(j - 1) from b(j)
    return out


def tails(pair: SummedPair, s: int) -> tuple:
    """``(P_lo, Q_hi)``: a certified lower end of ``P(S ≥ s)`` and upper end of ``Q(S ≥ s)`` as ``fmpq``.
    O(W_T) ball operations and two certified binomial tails."""
    with arith.precision(PREC):
        q = arith.ball(pair.q_others)
        res = []
        for pi, lower in ((pair.pi_p, True), (pair.pi_q, False)):
            vals, off, left = laws.window_to_tail(pair.rounds, pi, WINDOW_TOL)
            G = _g_values(pair.others, q, s - (off + len(vals) - 1), s - off)
            tot = arb(0)
            for i, v in enumerate(vals):
                tot += v * G[s - off - i]
            lo, hi = arith.endpoints(tot)
            if lower:
                res.append(max(fmpq(0), fmpq(lo.numerator, lo.denominator)))
            else:
                t = arith.endpoints(arith.ball(left))[1]
                res.append(min(fmpq(1), fmpq(hi.numerator, hi.denominator) + fmpq(t.numerator, t.denominator)))
    return res[0], res[1]


def _climb(value: Callable[[int], fmpq | None], s: int) -> fmpq | None:
    """The best certified ``value(t)`` over ``s − NEIGHBOURS … s + NEIGHBOURS``, then a walk in the improving direction
    while it improves (at most :data:`MAX_CLIMB` steps; the float search's optimum is flat and can be off by a few
    steps).  ``value`` returns an exact number or ``None``."""
    vals = {t: value(t) for t in range(s - NEIGHBOURS, s + NEIGHBOURS + 1)}
    known = {t: v for t, v in vals.items() if v is not None}
    if not known:
        return None
    t = max(known, key=lambda u: known[u])
    step = 1 if t == s + NEIGHBOURS else (-1 if t == s - NEIGHBOURS else 0)
    best = known[t]
    for _ in range(MAX_CLIMB if step else 0):
        v = value(t + step)
        if v is None or not v > best:
            break
        t, best = t + step, v
    return best


def lower_epsilon(pair: SummedPair, delta: Enclosure) -> fmpq:
    """A certified lower end ``ε̲ ≥ 0`` of the pair's ε at ``delta``: ``H_{e^ε}(P‖Q) > delta`` for every ``ε < ε̲``
    (the best certified ``log((P(S ≥ s) − δ)/Q(S ≥ s))`` over thresholds near the float search's, :func:`_climb`; 0 when no tested
    threshold reaches ``delta``).  O(W_S log W_S + W_T)."""
    d = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    df = float(d)
    s_star = _search(pair, lambda Ps, Qs: np.where(Ps > df, np.log(np.maximum(Ps - df, 1e-300)) - np.log(Qs), -np.inf))

    def value(s: int) -> fmpq | None:
        P_lo, Q_hi = tails(pair, s)
        if P_lo <= d or Q_hi <= 0:
            return None
        with arith.precision(PREC):
            lo = arith.endpoints((arith.ball(P_lo - d) / arith.ball(Q_hi)).log())[0]
        return fmpq(lo.numerator, lo.denominator)

    best = _climb(value, s_star)
    return max(fmpq(0), best) if best is not None else fmpq(0)


def lower_delta(pair: SummedPair, epsilon: Enclosure) -> Fraction:
    """A certified lower end ``≥ 0`` of ``H_{e^ε}(P‖Q)`` (the best certified ``P(S ≥ s) − e^ε Q(S ≥ s)`` over
    thresholds near the float search's).  O(W_S log W_S + W_T)."""
    eps = arith.exact_in(epsilon, "epsilon", lo=0)
    with arith.precision(PREC):
        a_hi = arith.endpoints(arith.ball(eps).exp())[1]
    # the float only chooses the threshold (every threshold's value below is certified); capped: e^ε above the float
    # range ('blanket delta --mechanism rr --epsilon0 1 -n 1000 --rounds 365 --epsilon 1000') was an internal error
    af = float(min(a_hi, Fraction(10**300)))
    a_q = fmpq(a_hi.numerator, a_hi.denominator)
    s_star = _search(pair, lambda Ps, Qs: Ps - af * Qs)

    def value(s: int) -> fmpq | None:
        P_lo, Q_hi = tails(pair, s)
        return P_lo - a_q * Q_hi

    best = _climb(value, s_star)
    return Fraction(0) if best is None else max(Fraction(0), Fraction(int(best.p), int(best.q)))
