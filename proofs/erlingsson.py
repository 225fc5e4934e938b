"""Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta — *Amplification by Shuffling* (SODA 2019).

Paper key ``EFMRTT19``; formulas and statuses from ``docs/reference/erlingsson.md``
(the v1/SODA constants).  Theorem 7 here is the same formula as the privacy
blanket paper's quotation "BBGN19 Theorem 5.1" (encoded by the blanket-paper
module); this module encodes the Erlingsson paper's own statements.

Exact references: the ε(δ) of shuffled **binary randomized response**
(:func:`proofs.renyi.exact_epsilon_for_delta`, i.e. the foundation's
``exact.accounting.calibrate.epsilon_for_delta`` over ``exact.shuffled.binary.delta_binary_worst``)
is a certified *lower* bound on the ε the theorems bound: binary RR is one
ε0-DP local randomizer, and shuffling the output of ``A_swap`` (Theorem 8)
or ``A_rl`` (Corollary 9) is a post-processing that yields the shuffled
binary-RR view, so their ε(δ) at index 1 can only be larger.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from blanket.exact.accounting.calibrate import epsilon_for_delta
from blanket.exact.numbers import arith
from blanket.exact.numbers.arith import precision
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from blanket.proofs.core import Hypothesis, Reference, Result, SymbolicCheck, register
from blanket.proofs.renyi import exact_epsilon_for_delta
from flint import arb, fmpq

PAPER = "EFMRTT19"
SPEC = "docs/reference/erlingsson.md"

epsilon0 = sp.Symbol("epsilon0", real=True)
n = sp.Symbol("n", real=True)
delta = sp.Symbol("delta", real=True)
epsilon = sp.Symbol("epsilon", real=True)
epsilon_total = sp.Symbol("epsilon_total", real=True)
epsilon_sub = sp.Symbol("epsilon_sub", real=True)
k = sp.Symbol("k", real=True)
q = sp.Symbol("q", real=True)
T = sp.Symbol("T", real=True)  # |T|

EPS_7 = 12 * epsilon0 * sp.sqrt(sp.log(1 / delta) / n)

H_N = Hypothesis(n >= 1000, "n >= 1000")
H_E0 = Hypothesis(sp.And(epsilon0 > 0, epsilon0 < sp.Rational(1, 2)), "0 < epsilon0 < 1/2")
H_D = Hypothesis(sp.And(delta > 0, delta < sp.Rational(1, 100)), "0 < delta < 1/100")

_SYMS = {
    epsilon: "central ε of the (ε, δ)-DP guarantee",
    epsilon0: "local ε0 of each randomizer",
    n: "number of users n",
    delta: "δ",
}


def _ref_shuffled_rr(**params):

    nn = arith.integer_in(params.get("n", params.get("T")), "n", lo=1)
    e0 = arith.exact_in(params["epsilon0"], "epsilon0", lo=0)
    d = arith.exact_in(params["delta"], "delta", lo=0, lo_open=True, hi=1, hi_open=True)
    return Reference(
        exact_epsilon_for_delta(nn, e0, d),
        "exact ε(δ) of shuffled binary RR (one ε0-LDP randomizer; a lower bound on the ε bounded)",
        "lower",
    )


_GRID = tuple({"n": "1000", "epsilon0": b, "delta": c} for b in ("1/10", "1/4", "49/100") for c in ("1e-3", "1e-6")) + (
    {"n": "2000", "epsilon0": "1/4", "delta": "1e-6"},
)

#: what Theorems 7 and 8 share: the same bound, hypotheses and reference (the exact shuffled binary-RR ε)
_AMPLIFICATION: dict[str, Any] = dict(
    statement=sp.Le(epsilon, EPS_7),
    symbols=_SYMS,
    hypotheses=(H_N, H_E0, H_D),
    kind="upper_bound",
    quantity="epsilon",
    mechanisms=("any",),
    exact=_ref_shuffled_rr,
    grid=_GRID,
)

THEOREM_7 = register(
    Result(
        key=f"{PAPER} Theorem 7",
        paper=PAPER,
        label="Theorem 7",
        title="Amplification by shuffling",
        status="source-confirmed",
        **_AMPLIFICATION,
        status_note="constants from the Balle et al. reference code (class Erlingsson) and their Theorem 5.1 quotation; strict vs non-strict inequalities uncertain (code uses <=/>=)",
        spec=f"{SPEC} §2 Theorem 7",
        notes="Same formula as 'BBGN19 Theorem 5.1' (the privacy-blanket paper's quotation). v1/SODA constants: later versions revise them.",
    )
)

THEOREM_8 = register(
    Result(
        key=f"{PAPER} Theorem 8",
        paper=PAPER,
        label="Theorem 8",
        title="Amplification by swapping (DP at index 1)",
        status="uncertain",
        **_AMPLIFICATION,
        status_note="same sentence skeleton as Theorem 7 inferred; the constant 12 is consistent with the reconstructed proof chain (see 'EFMRTT19 Theorem 8 [per-step chain]')",
        spec=f"{SPEC} §2 Theorem 8",
        notes="Reference: shuffling A_swap's output is a post-processing giving the shuffled binary-RR view, so the exact shuffled ε(δ) is a lower bound on A_swap's ε at index 1.",
    )
)

COROLLARY_9 = register(
    Result(
        key=f"{PAPER} Corollary 9",
        paper=PAPER,
        label="Corollary 9",
        title="Shuffling after local randomization (DP at each index of T)",
        status="uncertain",
        statement=sp.Le(epsilon, 12 * epsilon0 * sp.sqrt(sp.log(1 / delta) / T)),
        symbols={
            epsilon: _SYMS[epsilon],
            epsilon0: _SYMS[epsilon0],
            delta: "δ",
            T: "|T|: number of users with identical randomizers",
        },
        hypotheses=(Hypothesis(T >= 1000, "|T| >= 1000"), H_E0, H_D),
        kind="upper_bound",
        quantity="epsilon",
        status_note="formula and conditions: the natural instantiation of Theorem 7 with n → |T| (the text states the per-index conclusion for every i in T)",
        spec=f"{SPEC} §2 Corollary 9",
        notes="Reference: all n = |T| users run binary RR; the exact shuffled ε(δ) (a lower bound on the ε bounded).",
        exact=_ref_shuffled_rr,
        grid=tuple({"T": g["n"], "epsilon0": g["epsilon0"], "delta": g["delta"]} for g in _GRID[:6]),
    )
)


# ------------------------------------------------------------ Theorem 2: advanced composition
ADV = sp.sqrt(2 * k * sp.log(1 / delta)) * epsilon + k * epsilon * (sp.exp(epsilon) - 1)


def rr_composition_delta(kk: int, eps: NumberOrBall, eps_total: NumberOrBall) -> Enclosure:
    """Exact δ(ε') of the k-fold composition of binary randomized response with parameter ε (ε-DP each).

    The privacy loss is ε·(2J − k), J ~ Bin(k, e^ε/(1+e^ε)), so
    δ(ε') = Σ_j P(J=j)·[1 − e^{ε' − ε(2j−k)}]_+.  Exact ε (fmpq) in,
    ball out.  Cost O(k).
    """
    e = arb(eps).exp()
    p = e / (1 + e)
    tot = arb(0)
    for j in range(kk + 1):
        loss = arb(eps) * (2 * j - kk)
        w = arb(math.comb(kk, j)) * p**j * (1 - p) ** (kk - j)
        tot += w * (1 - (arb(eps_total) - loss).exp()).max(arb(0))
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


THEOREM_2 = register(
    Result(
        key=f"{PAPER} Theorem 2",
        paper=PAPER,
        label="Theorem 2",
        title="Advanced composition (Dwork–Rothblum–Vadhan)",
        status="derived",
        statement=sp.Le(epsilon_total, ADV),
        symbols={
            epsilon_total: "ε' of the k-fold composition (with δ_total = kδ_step + δ)",
            epsilon: "ε of each step",
            k: "number of steps",
            delta: "δ' (the composition's extra δ)",
        },
        hypotheses=(
            Hypothesis(k >= 1, "k >= 1"),
            Hypothesis(epsilon > 0, "epsilon > 0"),
            Hypothesis(sp.And(delta > 0, delta < 1), "0 < delta < 1"),
        ),
        kind="upper_bound",
        quantity="epsilon",
        mechanisms=("any",),
        status_note="structure visible in the text; standard form (Dwork–Roth 2014, Thm 3.20); exact variable names uncertain",
        spec=f"{SPEC} §1 Theorem 2",
        notes="Reference at δ_step = 0: k-fold binary RR, whose exact composed privacy profile is a binomial sum.",
        exact=_ref_composition,
        grid=tuple(
            {"k": a, "epsilon": b, "delta": c}
            for a in ("10", "100", "1000")
            for b in ("1/100", "1/10")
            for c in ("1e-6",)
        ),
    )
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


LEMMA_4 = register(
    Result(
        key=f"{PAPER} Lemma 4",
        paper=PAPER,
        label="Lemma 4",
        title="Amplification by subsampling (pure part)",
        status="uncertain",
        statement=sp.Le(epsilon_sub, sp.log(1 + q * (sp.exp(epsilon) - 1))),
        symbols={
            epsilon_sub: "ε of (1−q)μ0 + qμ1 versus μ0",
            epsilon: "ε with μ1 ≈_(ε,δ) μ0",
            q: "mixture weight in [0, 1]",
        },
        hypotheses=(Hypothesis(sp.And(q >= 0, q <= 1), "0 <= q <= 1"), Hypothesis(epsilon >= 0, "epsilon >= 0")),
        kind="upper_bound",
        quantity="epsilon",
        status_note="statement not visible in the text (invoked in this mixture form); the δ part is qδ; pure case checked",
        spec=f"{SPEC} §1 Lemma 4",
        notes="Tight for binary RR: the reference equals the bound.",
        exact=_ref_subsampling,
        grid=tuple({"epsilon": a, "q": b} for a in ("1/10", "1", "3") for b in ("1/1000", "1/10", "1/2", "1")),
    )
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


CHAIN_RESULT = register(
    Result(
        key=f"{PAPER} Theorem 8 [per-step chain]",
        paper=PAPER,
        label="Theorem 8",
        variant="per-step chain",
        title="Reconstructed proof chain: advanced composition of n subsampled steps is ≤ 12ε0√(log(1/δ)/n)",
        status="derived",
        statement=sp.Le(CHAIN, EPS_7),
        symbols={epsilon0: _SYMS[epsilon0], n: "number of users n", delta: "δ"},
        hypotheses=(
            H_N,
            Hypothesis(sp.And(epsilon0 > 0, epsilon0 <= sp.Rational(1, 2)), "0 < epsilon0 <= 1/2"),
            Hypothesis(sp.And(delta > 0, delta <= sp.Rational(1, 100)), "0 < delta <= 1/100"),
        ),
        kind="inequality",
        quantity="epsilon",
        status_note="[D] per-step ε1 = 2 log(1 + e^{2ε0}(e^{ε0}−1)/n) (the factor 2 of the triangle step is uncertain), then advanced composition over n steps",
        spec=f"{SPEC} §2 Theorem 8 (proof skeleton)",
        symbolic=_chain_symbolic,
        notes="Certified on the whole box (not only a grid): the ratio to 12ε0√(log(1/δ)/n) is ≤ 0.87 (reference: max 0.86 numerically).",
        grid=tuple(
            {"n": a, "epsilon0": b, "delta": c}
            for a in ("1000", "100000", "10000000")
            for b in ("1/100", "1/2")
            for c in ("1/100", "1e-15")
        ),
    )
)
