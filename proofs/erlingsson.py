"""Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta — *Amplification by Shuffling* (SODA 2019).

Paper key ``EFMRTT19``; formulas and statuses from ``docs/reference/erlingsson.md``
(the v1/SODA constants).  Theorem 7 here is the same formula as the privacy
blanket paper's quotation "BBGN19 Theorem 5.1" (encoded by the blanket-paper
module); this module encodes the Erlingsson paper's own statements.

Exact references: the ε(δ) of shuffled **binary randomized response**
(:func:`proofs.renyi.exact_epsilon_for_delta`, i.e. the foundation's
``exact.numbers.calibrate.epsilon_for_delta`` over ``exact.shuffled.binary.delta_binary_worst``)
is a certified *lower* bound on the ε the theorems bound: binary RR is one
ε0-DP local randomizer, and shuffling the output of ``A_swap`` (Theorem 8)
or ``A_rl`` (Corollary 9) is a post-processing that yields the shuffled
binary-RR view, so their ε(δ) at index 1 can only be larger.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from blanket.proofs.core import Hypothesis, Reference, ResultTable, SymbolicCheck
from blanket.proofs.renyi import exact_epsilon_for_delta
from flint import arb, fmpq

TABLE = ResultTable("erlingsson.toml", globals())

PAPER = "EFMRTT19"

epsilon0, n, delta, epsilon, epsilon_total, epsilon_sub, k, q = sp.symbols(
    "epsilon0 n delta epsilon epsilon_total epsilon_sub k q", real=True
)
T = sp.Symbol("T", real=True)  # |T|

EPS_7 = 12 * epsilon0 * sp.sqrt(sp.log(1 / delta) / n)

H_N = Hypothesis(n >= 1000, "n >= 1000")
H_E0 = Hypothesis(sp.And(epsilon0 > 0, epsilon0 < sp.Rational(1, 2)), "0 < epsilon0 < 1/2")
H_D = Hypothesis(sp.And(delta > 0, delta < sp.Rational(1, 100)), "0 < delta < 1/100")


def _ref_shuffled_rr(**params):

    nn = arith.integer_in(params.get("n", params.get("T")), "n", lo=1)
    e0 = arith.exact_in(params["epsilon0"], "epsilon0", lo=0)
    d = arith.exact_in(params["delta"], "delta", lo=0, lo_open=True, hi=1, hi_open=True)
    return Reference(
        exact_epsilon_for_delta(nn, e0, d),
        "exact ε(δ) of shuffled binary RR (one ε0-LDP randomizer; a lower bound on the ε bounded)",
        "lower",
    )


#: what Theorems 7 and 8 share: the same bound, hypotheses and reference (the exact shuffled binary-RR ε)
_AMPLIFICATION: dict[str, Any] = dict(
    statement=sp.Le(epsilon, EPS_7),
    hypotheses=(H_N, H_E0, H_D),
    exact=_ref_shuffled_rr,
)

THEOREM_7 = TABLE.register(
    f"{PAPER} Theorem 7",
    **_AMPLIFICATION,
)

THEOREM_8 = TABLE.register(
    f"{PAPER} Theorem 8",
    **_AMPLIFICATION,
)

COROLLARY_9 = TABLE.register(
    f"{PAPER} Corollary 9",
    statement=sp.Le(epsilon, 12 * epsilon0 * sp.sqrt(sp.log(1 / delta) / T)),
    hypotheses=(Hypothesis(T >= 1000, "|T| >= 1000"), H_E0, H_D),
    exact=_ref_shuffled_rr,
)


# ------------------------------------------------------------ Theorem 2: advanced composition
ADV = sp.sqrt(2 * k * sp.log(1 / delta)) * epsilon + k * epsilon * (sp.exp(epsilon) - 1)


def rr_composition_delta(kk: int, eps: NumberOrBall, eps_total: NumberOrBall) -> Enclosure:
    """Exact δ(ε') of the k-fold composition of binary randomized response with parameter ε (ε-DP each).

    The privacy loss is ε·(2J − k), J ~ Bin(k, e^ε/(1+e^ε)), so
    δ(ε') = Σ_j P(J=j)·[1 − e^{ε' − ε(2j−k)}]_+.  Exact ε (fmpq) in,
    ball out.  Cost O(k).
    """
    eb, eb_total = arith.ball(eps), arith.ball(eps_total)  # exact inputs in any form (arb() read no Fraction, no 'p/q')
    e = eb.exp()
    p = e / (1 + e)
    tot = arb(0)
    for j in range(kk + 1):
        loss = eb * (2 * j - kk)
        w = arb(math.comb(kk, j)) * p**j * (1 - p) ** (kk - j)
        tot += w * (1 - (eb_total - loss).exp()).max(arb(0))
    return tot


def _ref_composition(**params):
    """Exact ε'(δ') of k-fold binary RR (one ε-DP mechanism): a certified lower bound on the composed ε'."""

    kk = arith.integer_in(params["k"], "k", lo=1)
    eps = arith.exact_in(params["epsilon"], "epsilon", lo=0, lo_open=True)
    d = arith.exact_in(params["delta"], "delta", lo=0, lo_open=True, hi=1, hi_open=True)
    br = epsilon_for_delta(lambda et: rr_composition_delta(kk, eps, et), d, hi=eps * kk + 1)
    return Reference(
        arb(br.lower).union(arb(br.upper)),
        "exact ε'(δ') of the k-fold composition of ε-DP binary RR (one ε-DP mechanism)",
        "lower",
    )


THEOREM_2 = TABLE.register(
    f"{PAPER} Theorem 2",
    statement=sp.Le(epsilon_total, ADV),
    hypotheses=(
        *TABLE.hyps("k >= 1", "epsilon > 0", evaluate=True),
        Hypothesis(sp.And(delta > 0, delta < 1), "0 < delta < 1"),
    ),
    exact=_ref_composition,
)


# ------------------------------------------------------------ Lemma 4: subsampling
def _ref_subsampling(**params):
    """Exact max log-ratio between (1−q)μ0 + qμ1 and μ0 for binary RR (μ1 ≈_ε μ0 pure): tight for this pair."""
    eps = arith.exact_in(params["epsilon"], "epsilon", lo=0)
    qq = arith.exact_in(params["q"], "q", lo=0, hi=1)
    e = arb(eps).exp()
    up = ((1 - arb(qq)) + arb(qq) * e).log()  # outcome favoured by μ1
    down = -((1 - arb(qq)) + arb(qq) / e).log()  # the other outcome, reverse direction
    return Reference(up.max(down), "exact ε of the subsampled binary-RR pair (μ0 = RR(0), μ1 = RR(1))", "lower")


LEMMA_4 = TABLE.register(
    f"{PAPER} Lemma 4",
    statement=sp.Le(epsilon_sub, sp.log(1 + q * (sp.exp(epsilon) - 1))),
    hypotheses=(Hypothesis(sp.And(q >= 0, q <= 1), "0 <= q <= 1"), *TABLE.hyps("epsilon >= 0", evaluate=True)),
    exact=_ref_subsampling,
)


# ------------------------------------------------------------ the reconstructed proof chain of Theorem 8
G = sp.exp(2 * epsilon0) * (sp.exp(epsilon0) - 1)  # e^{2ε0}(e^{ε0} − 1)
EPS1 = 2 * sp.log(1 + G / n)  # per-step ε1 (subsampling + triangle step)
CHAIN = sp.sqrt(2 * n * sp.log(1 / delta)) * EPS1 + n * EPS1 * (sp.exp(EPS1) - 1)


def certify_chain_box() -> arb:
    """Certify ``CHAIN ≤ 12 ε0 √(log(1/δ)/n)`` on the whole box 0 < ε0 ≤ 1/2, n ≥ 1000, 0 < δ ≤ 1/100.

    Write L = log(1/δ) ≥ log 100 and g = e^{2ε0}(e^{ε0}−1).  The ratio
    CHAIN / (12 ε0 √(L/n)) is ``t1 + t2`` with

    * ``t1 = √2·n·log(1+g/n)/(6ε0) ≤ √2·g/(6ε0)`` (``n log(1+g/n) ≤ g``), and
      ``g/ε0`` is increasing in ε0 (g is convex with g(0) = 0), so
      ``t1 ≤ √2·g(1/2)/3``;
    * ``t2 = n·ε1(e^{ε1}−1)·√n/(12ε0√L)`` with ``ε1 ≤ 2g/n`` and
      ``e^{x}−1 ≤ x e^{x}``: ``t2 ≤ 4g²e^{2g/n}/(12 ε0 √(nL))``, decreasing in
      n and L and (``g²/ε0`` increasing) maximal at ε0 = 1/2:
      ``t2 ≤ 4g(1/2)²e^{2g(1/2)/1000}/(6√(1000·log 100))``.

    Returns the certified upper bound on the ratio (a ball; < 1 proves the chain).
    """

    with precision(128):
        h = arb(fmpq(1, 2))
        g = (2 * h).exp() * (h.exp() - 1)
        t1 = arb(2).sqrt() * g / 3
        t2 = 4 * g**2 * (2 * g / 1000).exp() / (6 * (arb(1000) * arb(100).log()).sqrt())
        return t1 + t2


def _chain_symbolic(result):
    r = certify_chain_box()
    ok = r < 1
    return SymbolicCheck(
        True if ok else None,
        "monotone reduction to the corner (ε0, n, δ) = (1/2, 1000, 1/100), then ball arithmetic",
        f"sup over the box of chain / (12 ε0 √(log(1/δ)/n)) ≤ {arith.decimal_string(r, 6, up=True)} < 1 "
        "(see proofs.erlingsson.certify_chain_box for the monotonicity steps)",
    )


CHAIN_RESULT = TABLE.register(
    f"{PAPER} Theorem 8 [per-step chain]",
    statement=sp.Le(CHAIN, EPS_7),
    hypotheses=(
        H_N,
        Hypothesis(sp.And(epsilon0 > 0, epsilon0 <= sp.Rational(1, 2)), "0 < epsilon0 <= 1/2"),
        Hypothesis(sp.And(delta > 0, delta <= sp.Rational(1, 100)), "0 < delta <= 1/100"),
    ),
    symbolic=_chain_symbolic,
)

TABLE.complete()
