"""Balle, Bell, Gascón, Nissim — *The Privacy Blanket of the Shuffle Model* (CRYPTO 2019), Sections 0, 1, 4, 5.

Every result of ``shared/spec/blanket.md`` §0 (definitions), §1 (Algorithm 1,
Theorem 3.1), §4 (privacy amplification: Lemmas 5.1–5.8, A.3, A.4,
Theorems 5.1, 5.3, Corollary 5.3.1) and the seven curves of Figure 3 (§5) is
one :class:`proofs.core.Result`, registered under ``"BBGN19 <label>"`` (plus
``[variant]``).  Sections 2–3 (summation) live in ``proofs/summation.py``.

Registry keys (``blanket bounds --paper blanket`` lists them):

* definitions: ``Definition TV similarity``, ``Definition blanket``,
  ``Definition hockey-stick``, ``Definition L``;
* ``Theorem 3.1`` (γ of Algorithm 1 with constants 14 and 27; the exact δ of
  the shuffled mechanism is the checked quantity) and ``Algorithm 1 ε0``;
* ``Lemma 5.1 [krr|laplace|gaussian]``, ``Lemma 5.2``, ``Lemma 5.3``,
  ``Lemma A.3``, ``Lemma 5.4 (1)|(2)|(3)``, ``Lemma 5.5``, ``Lemma A.4``,
  ``Lemma 5.6`` and the false ``Lemma 5.6 [2019]``, ``Lemma 5.7 (1)|(2)``,
  ``Lemma 5.8 (1)|(2)``;
* ``Theorem 5.3 [generic|rr|laplace]`` — the Hoeffding bound exactly as
  Figure 3 evaluates it (curves 2, 4, 6), ``Theorem 5.3 [pre]`` (the sharper
  pre-form, γ a parameter), ``Theorem 5.3 [slide]`` (inequality (4) with
  0.86); ``Bennett bound [generic|rr|laplace]`` (curves 3, 5, 7);
* ``Corollary 5.3.1`` (with this project's explicit constant, certified on a
  parameter box), ``Theorem 5.1`` (Erlingsson et al. as quoted, curve 1).

Symbols are named like the Python/CLI parameters: ``epsilon`` (central ε),
``epsilon0`` (local ε0), ``delta``, ``n``, ``k``, ``gamma``, ``m``.

Public helpers: :func:`gamma_theorem_3_1`, :func:`epsilon0_algorithm_1`,
:func:`calibrated_epsilon`, :func:`calibrated_epsilon0`,
:data:`FIGURE3_CURVES`.
"""

from __future__ import annotations

import math
from typing import Optional

import sympy as sp
from flint import arb, fmpq

from exact import arith
from exact.errors import InvalidArgument
from proofs import _blanket_numeric as num
from proofs.core import (Hypothesis, Reference, Result, SymbolicCheck, arb_eval, register)

PAPER = "BBGN19"
SPEC = "shared/spec/blanket.md"

# ================================================================== symbols
# plain symbols (no assumptions) so that hypotheses such as delta > 0 stay visible and are checked;
# the symbolic derivations substitute assumption-carrying twins (see _POS)
epsilon = sp.Symbol("epsilon")
epsilon0 = sp.Symbol("epsilon0")
delta = sp.Symbol("delta")
n = sp.Symbol("n")
k = sp.Symbol("k")
gamma = sp.Symbol("gamma")
m = sp.Symbol("m")
sigma = sp.Symbol("sigma")
y = sp.Symbol("y", real=True)
x = sp.Symbol("x", real=True)
a_ = sp.Symbol("a")
b_ = sp.Symbol("b")
bp_ = sp.Symbol("b_plus")
c_ = sp.Symbol("c")
t_ = sp.Symbol("t", nonnegative=True)
f0_ = sp.Symbol("f_0")       # f(0) in Lemma A.4
fp0_ = sp.Symbol("fprime_0")  # f'(0) in Lemma A.4

E = sp.exp(epsilon)
E0 = sp.exp(epsilon0)

D_EPS = "ε ≥ 0, the central privacy level"
D_EPS0 = "ε0 ≥ 0, the local privacy level of the randomizer"
D_DELTA = "δ ∈ (0, 1], the central δ"
D_N = "n ≥ 1, the number of users"
D_K = "k ≥ 2, the alphabet size of k-ary randomized response"
D_GAMMA = "γ ∈ (0, 1], the total-variation similarity of the randomizer"
D_M = "m ≥ 1, the number of i.i.d. amplification variables summed"

# ---------------------------------------------------------------- building blocks (each formula written once)
#: Lemma 5.1 (1): TV similarity of ε0-LDP k-RR
GAMMA_KRR = k / (E0 + k - 1)
#: Lemma 5.1 (2): TV similarity of Laplace on [0,1]
GAMMA_LAPLACE = sp.exp(-epsilon0 / 2)
#: Lemma 5.1 (3): TV similarity of the Gaussian mechanism on [0,1], 2Φ(−1/(2σ))
GAMMA_GAUSSIAN = sp.erfc(1 / (2 * sp.sqrt(2) * sigma))
#: Lemma 5.2 lower end of γ for any ε0-LDP randomizer
GAMMA_LB = sp.exp(-epsilon0)

#: a = e^ε − 1 (−E[L], Lemma 5.4 (1))
A = E - 1
#: B = (e^ε+1)(e^{ε0}−e^{−ε0}) — range of L divided by γ (Lemma 5.4 (2))
B = (E + 1) * (E0 - 1 / E0)

#: Lemma 5.4 (2): ends of L for a generic ε0-LDP randomizer with TV similarity γ
L_LO_GENERIC = gamma * (1 / E0 - E * E0)
L_HI_GENERIC = gamma * (E0 - E / E0)
#: Lemma 5.4 (3): second moment bound
L_SQ_GENERIC = gamma * (E0 * (E**2 + 1) - 2 * gamma * E / E0**2)
#: Lemma 5.7 (1): k-RR ends of L (γ = γ_kRR)
L_LO_KRR = GAMMA_KRR * (1 - E) - (1 - GAMMA_KRR) * k * E
L_HI_KRR = GAMMA_KRR * (1 - E) + (1 - GAMMA_KRR) * k
#: Lemma 5.7 (2): k-RR second moment (an identity)
L_SQ_KRR = GAMMA_KRR * (2 - GAMMA_KRR) * (E - 1)**2 + (1 - GAMMA_KRR)**2 * k * (E**2 + 1)
#: Lemma 5.8 (1): Laplace ends of L
L_LO_LAPLACE = sp.exp(-epsilon0 / 2) - sp.exp(epsilon + epsilon0 / 2)
L_HI_LAPLACE = sp.exp(epsilon0 / 2) - sp.exp(epsilon - epsilon0 / 2)
#: Lemma 5.8 (2): Laplace second moment bound (equality at {x, x'} = {0, 1})
L_SQ_LAPLACE = (E**2 + 1) / 3 * (2 * sp.exp(epsilon0 / 2) + sp.exp(-epsilon0)) \
    - 2 * E * (2 * sp.exp(-epsilon0 / 2) - sp.exp(-epsilon0))


def _h(u):
    """Bennett's h(u) = (1+u) log(1+u) − u."""
    return (1 + u) * sp.log(1 + u) - u


def hoeffding_lemma_rhs(a, b, mm):
    """Lemma 5.5: ``b²/(4a) · exp(−2 m a²/b²)`` (sympy)."""
    return b**2 / (4 * a) * sp.exp(-2 * mm * a**2 / b**2)


def bennett_lemma_rhs(a, bplus, c, mm):
    """Lemma 5.6 (corrected form): ``b₊/log(1+ab₊/c) · exp(−(mc/b₊²) h(ab₊/c))`` (sympy)."""
    u = a * bplus / c
    return bplus / sp.log(1 + u) * sp.exp(-(mm * c / bplus**2) * _h(u))


def bennett_2019_rhs(a, bplus, c, mm):
    """The 2019 code's form of Lemma 5.6: the corrected bound divided by ``m·a`` (false)."""
    return bennett_lemma_rhs(a, bplus, c, mm) / (mm * a)


# ================================================================== sympy functions with rigorous evaluation
class EPlusKRR(sp.Function):
    """``E[(Σ_{i=1}^m L_i)_+]`` for i.i.d. k-RR amplification variables ``L^ε_{x,x'}``.

    Arguments ``(m, k, epsilon0, epsilon)``.  Evaluated exactly by
    :func:`proofs._blanket_numeric.eplus_krr` (trinomial sum, O(m²)).
    """

    nargs = 4

    def _latex(self, printer):
        mm = printer._print(self.args[0])
        return r"\mathbb{E}\Big[\Big(\sum_{i=1}^{%s} L^{\varepsilon}_{i}\Big)_+\Big]" % mm

    def _arb_eval(self, mm, kk, e0, e):
        mi, ki = _as_int(mm, "m"), _as_int(kk, "k")
        return num.eplus_krr(mi, ki, _exp_of(e0), _exp_of(e))


class DeltaShuffled(sp.Function):
    """``sup D_{e^ε}`` of the shuffled k-RR (or Algorithm 1) mechanism: the quantity a δ-bound bounds.

    Arguments ``(k, n, epsilon0, epsilon)``; typeset only (its values come
    from ``exact/`` through the Result's ``exact`` callable).
    """

    nargs = 4

    def _latex(self, printer):
        a = [printer._print(t) for t in self.args]
        return r"\delta_{\mathcal{S}\circ\mathcal{R}^{n}}(\varepsilon)"


def _as_int(v, name):
    if isinstance(v, fmpq) and v.q == 1:
        return int(v.p)
    raise InvalidArgument(name, str(v), "must be an integer")


def _exp_of(v):
    if isinstance(v, fmpq):
        return fmpq(1) if v == 0 else arb(v).exp()
    return v.exp()


def _q(v, name):
    return v if isinstance(v, (fmpq, arb)) else arith.exact(v, name)


# ================================================================== exact references (lazy: exact/ modules of A and B)
def _mech_krr(kk, eps0):
    from exact.mechanisms import KRR
    return KRR(int(kk), epsilon0=eps0)


def _rr_exact_delta(kk, nn, eps0, eps):
    """Reference for k-RR δ-bounds: exact worst case (k = 2) or the max over the dataset families (k > 2)."""
    kk, nn = _as_int(_q(kk, "k"), "k"), _as_int(_q(nn, "n"), "n")
    eps0, eps = _q(eps0, "epsilon0"), _q(eps, "epsilon")
    mech = _mech_krr(kk, eps0)
    if kk == 2:
        from exact.binary import delta_binary_worst
        w = delta_binary_worst(mech, nn, epsilon=eps)
        return Reference(getattr(w, "value", w), f"exact worst-case δ of shuffled binary RR (n={nn})", "exact")
    from exact.krr import delta_krr_family
    vals = [delta_krr_family(mech, nn, fam, epsilon=eps) for fam in ("same", "neighbour", "third")]
    best = vals[0]
    for v in vals[1:]:
        best = best.max(v) if isinstance(best, arb) or isinstance(v, arb) else max(best, v)
    return Reference(best, f"exact δ of shuffled {kk}-RR, max over the dataset families (a lower bound on the worst case)", "lower")


def _generic_exact_delta(eps0, nn, eps, kk=2):
    """Reference for generic δ-bounds: binary RR at the same ε0 is one ε0-LDP randomizer (a lower bound on the sup)."""
    ref = _rr_exact_delta(kk, nn, eps0, eps)
    return Reference(ref.value, f"exact worst-case δ of shuffled binary RR at this ε0 (one ε0-LDP randomizer: a lower bound on the worst randomizer)", "lower")


# ================================================================== definitions (§0)
_DEF_NOTE = "Definitions are not evaluated; they are what the other results are stated in."

register(Result(
    key="BBGN19 Definition TV similarity", paper=PAPER, label="Definition TV similarity",
    title="Total variation similarity γ_Ω = ∫ inf_x μ_x(y) dy", status="source-confirmed",
    statement=sp.Eq(gamma, sp.Integral(sp.Function("inf_x mu_x")(y), (y, -sp.oo, sp.oo))),
    symbols={gamma: D_GAMMA, y: "output"}, kind="definition", quantity="gamma",
    status_note="source-confirmed (slides); γ ∈ [0,1]", spec=f"{SPEC} §0",
    notes="Computed exactly for finite randomizers by exact.mechanisms.FiniteRandomizer.gamma(). " + _DEF_NOTE))
register(Result(
    key="BBGN19 Definition blanket", paper=PAPER, label="Definition blanket",
    title="Blanket distribution ω(y) = inf_x μ_x(y)/γ and decomposition μ_x = (1−γ)ν_x + γω",
    status="source-confirmed",
    statement=sp.Eq(sp.Function("omega")(y), sp.Function("inf_x mu_x")(y) / gamma),
    symbols={gamma: D_GAMMA, y: "output"}, kind="definition",
    status_note="source-confirmed (slides); decomposition [TXT]", spec=f"{SPEC} §0",
    notes="exact.mechanisms.FiniteRandomizer.blanket(). " + _DEF_NOTE))
register(Result(
    key="BBGN19 Definition hockey-stick", paper=PAPER, label="Definition hockey-stick",
    title="Hockey-stick divergence D_{e^ε}(μ‖μ') = ∫ [μ(y) − e^ε μ'(y)]_+ dy; Theorem 5.2 (Barthe–Olmedo)",
    status="derived",
    statement=sp.Eq(sp.Symbol("D_{e^{\\varepsilon}}"), sp.Integral(
        sp.Max(sp.Function("mu")(y) - E * sp.Function("mu'")(y), 0), (y, -sp.oo, sp.oo))),
    symbols={epsilon: D_EPS, y: "output"}, kind="definition",
    status_note="derived (standard; named in the text); Theorem 5.2: (ε,δ)-DP iff sup D_{e^ε} ≤ δ",
    spec=f"{SPEC} §0", notes="exact.divergences.hockey_stick. " + _DEF_NOTE))
register(Result(
    key="BBGN19 Definition L", paper=PAPER, label="Definition L",
    title="Privacy amplification random variable L = (μ_x(W) − e^ε μ_{x'}(W))/ω(W), W ~ ω",
    status="source-confirmed",
    statement=sp.Eq(sp.Symbol("L^{\\varepsilon}_{x,x'}"),
                    (sp.Function("mu_x")(sp.Symbol("W")) - E * sp.Function("mu_x'")(sp.Symbol("W")))
                    / sp.Function("omega")(sp.Symbol("W"))),
    symbols={epsilon: D_EPS}, kind="definition",
    status_note="source-confirmed (slides)", spec=f"{SPEC} §0",
    notes="exact.mechanisms.amplification_law gives its exact law. " + _DEF_NOTE))


# ================================================================== §1: Theorem 3.1 and Algorithm 1
#: Theorem 3.1's γ (the sympy object every evaluation of it goes through)
GAMMA_THEOREM_3_1 = sp.Max(14 * k * sp.log(2 / delta) / ((n - 1) * epsilon**2), 27 * k / ((n - 1) * epsilon))
#: ε0 of Algorithm 1 as a function of its γ (via Lemma 5.1)
EPSILON0_ALGORITHM_1 = sp.log(1 + k * (1 - gamma) / gamma)


def _thm31_exact(**p):
    """Certified upper bound on the worst-case δ of shuffled Algorithm 1 at Theorem 3.1's γ.

    Algorithm 1 with blanket probability γ is k-RR with ``e^{ε0} = 1 + k(1−γ)/γ``.
    γ is a ball; we use a rational ``γ' ≤ γ`` (its lower end): Algorithm 1
    with γ is a post-processing (a further Algorithm 1 step) of Algorithm 1
    with γ' ≤ γ, so δ(γ) ≤ δ(γ').  The rational ``e^{ε0'}`` keeps the exact
    computation exact.  k = 2 uses the exact worst case over all datasets
    (``exact.binary``); k > 2 the max over the dataset families
    (``exact.krr``; a lower bound, so the reference is then only indicative).
    """
    kk = _as_int(_q(p["k"], "k"), "k")
    nn = _as_int(_q(p["n"], "n"), "n")
    with arith.precision(128):
        g = arb_eval(GAMMA_THEOREM_3_1, {"k": kk, "n": nn, "epsilon": p["epsilon"], "delta": p["delta"]})
        lo, _ = arith.endpoints(g)
    g_lo = fmpq(lo.numerator, lo.denominator)
    e0 = 1 + kk * (1 - g_lo) / g_lo
    from exact.mechanisms import KRR
    mech = KRR(kk, exp_epsilon0=e0)
    eps = _q(p["epsilon"], "epsilon")
    if kk == 2:
        from exact.binary import delta_binary_worst
        w = delta_binary_worst(mech, nn, epsilon=eps)
        return Reference(getattr(w, "value", w), "exact worst-case δ of shuffled Algorithm 1 (k=2; γ rounded down, so an upper bound)", "upper")
    from exact.krr import delta_krr_family
    vals = [delta_krr_family(mech, nn, fam, epsilon=eps) for fam in ("same", "neighbour", "third")]
    best = vals[0]
    for v in vals[1:]:
        best = arb(best).max(arb(v))
    return Reference(best, f"exact δ of shuffled Algorithm 1 (k={kk}), max over dataset families", "lower")


THEOREM_3_1 = register(Result(
    key="BBGN19 Theorem 3.1", paper=PAPER, label="Theorem 3.1",
    title="Shuffled Algorithm 1 (k-RR with blanket probability γ) is (ε,δ)-DP for γ = max{14k log(2/δ)/((n−1)ε²), 27k/((n−1)ε)}",
    status="derived",
    statement=sp.Le(DeltaShuffled(k, n, EPSILON0_ALGORITHM_1.subs(gamma, GAMMA_THEOREM_3_1), epsilon), delta),
    symbols={k: D_K, n: "n ≥ 2, the number of users", epsilon: "ε ∈ (0, 1]", delta: D_DELTA},
    hypotheses=(Hypothesis(sp.Gt(epsilon, 0), "epsilon > 0"),
                Hypothesis(sp.Le(epsilon, 1), "epsilon <= 1"),
                Hypothesis(sp.Gt(delta, 0), "delta > 0"),
                Hypothesis(sp.Le(delta, 1), "delta <= 1"),
                Hypothesis(sp.Ge(n, 2), "n >= 2"),
                Hypothesis(sp.Ge(k, 2), "k >= 2"),
                Hypothesis(sp.Le(GAMMA_THEOREM_3_1, 1), "gamma = max{14k log(2/delta)/((n-1)eps^2), 27k/((n-1)eps)} <= 1 (implicit)")),
    kind="upper_bound", quantity="delta", mechanisms=("krr",),
    status_note=("derived: the constants 14 and 27 were recalled, then re-derived exactly from the visible "
                 "Chernoff/union-bound steps (14·(25/54)² = 3.0007 ≥ 3); checked against the exact δ of shuffled binary RR"),
    spec=f"{SPEC} §1",
    notes=("The bounded quantity is the worst-case δ of the shuffled Algorithm 1 at γ = Theorem 3.1's γ "
           "(equivalently k-RR with ε0 = log(1 + k(1−γ)/γ)); the bound is the target δ itself. "
           "Extremely conservative for k = 2 (exact δ 1e−16…1e−42 at targets 1e−1…1e−4) — not an error. "
           "gamma_theorem_3_1(k, n, epsilon, delta) evaluates the γ of this object."),
    exact=_thm31_exact,
    numeric={"lhs": lambda **p: _thm31_exact(**p).value},
    grid=({"k": 2, "n": 2000, "epsilon": "1", "delta": "1e-1"},
          {"k": 2, "n": 5000, "epsilon": "1/2", "delta": "1e-2"}),
))


def gamma_theorem_3_1(k, n, epsilon, delta, *, prec: int = arith.DEFAULT_PREC):
    """Theorem 3.1's γ = max{14k log(2/δ)/((n−1)ε²), 27k/((n−1)ε)} as a ball, from the Theorem 3.1 object.

    The hypotheses of Theorem 3.1 are enforced (ε ∈ (0,1], δ ∈ (0,1], n ≥ 2,
    k ≥ 2, γ ≤ 1); a violation raises
    :class:`~exact.errors.HypothesisViolation` naming it.  The γ expression is
    the one inside ``THEOREM_3_1.statement`` (no second copy).  O(1).

    >>> g = gamma_theorem_3_1(2, 10**6, 1, "1e-6")
    >>> from exact.arith import decimal_interval
    >>> decimal_interval(g, 6)
    {'lower': '0.000406242', 'upper': '0.000406243'}
    >>> gamma_theorem_3_1(2, 100, 2, "1e-6")
    Traceback (most recent call last):
    ...
    exact.errors.HypothesisViolation: BBGN19 Theorem 3.1: hypothesis 'epsilon <= 1' fails at {'k': '2', 'n': '100', 'epsilon': '2', 'delta': '1e-6'}; the statement does not apply there
    """
    params = {"k": k, "n": n, "epsilon": epsilon, "delta": delta}
    THEOREM_3_1.check_hypotheses(**params)
    env = THEOREM_3_1._env(params)
    with arith.precision(prec):
        return arb_eval(GAMMA_THEOREM_3_1, env)


ALGORITHM_1_EPS0 = register(Result(
    key="BBGN19 Algorithm 1 epsilon0", paper=PAPER, label="Algorithm 1 epsilon0",
    title="Algorithm 1 with blanket probability γ is ε0-LDP with ε0 = log(1 + k(1−γ)/γ)",
    status="derived",
    statement=sp.Eq(epsilon0, EPSILON0_ALGORITHM_1),
    symbols={epsilon0: D_EPS0, gamma: D_GAMMA, k: D_K},
    hypotheses=(Hypothesis(sp.Gt(gamma, 0), "gamma > 0"), Hypothesis(sp.Le(gamma, 1), "gamma <= 1"),
                Hypothesis(sp.Ge(k, 2), "k >= 2")),
    kind="identity", quantity="epsilon0", mechanisms=("krr",),
    status_note="derived ✔ (the text says it follows from Lemma 5.1): γ = k/(e^{ε0}+k−1) ⇔ ε0 = log(1 + k(1−γ)/γ)",
    spec=f"{SPEC} §1",
    symbolic=lambda r: _check_alg1_eps0(),
))


def _check_alg1_eps0():
    g = sp.simplify(GAMMA_KRR.subs(epsilon0, EPSILON0_ALGORITHM_1))
    ok = sp.simplify(g - gamma) == 0
    return SymbolicCheck(True if ok else None, "substitute ε0 = log(1+k(1−γ)/γ) into Lemma 5.1's k/(e^{ε0}+k−1) and simplify",
                         f"γ_kRR(ε0(γ)) simplifies to {g}")


def epsilon0_algorithm_1(k, gamma_value, *, prec: int = arith.DEFAULT_PREC):
    """ε0 = log(1 + k(1−γ)/γ) of Algorithm 1 (a ball), from the registered object.  O(1).

    >>> from exact.arith import decimal_interval
    >>> decimal_interval(epsilon0_algorithm_1(2, "1/2"), 6)
    {'lower': '1.09861', 'upper': '1.09862'}
    """
    params = {"k": k, "gamma": gamma_value}
    ALGORITHM_1_EPS0.check_hypotheses(epsilon0=0, **params)
    env = ALGORITHM_1_EPS0._env({"epsilon0": 0, **params})
    with arith.precision(prec):
        return arb_eval(EPSILON0_ALGORITHM_1, env)
