"""Balle, Bell, Gascón, Nissim — *The Privacy Blanket of the Shuffle Model* (CRYPTO 2019), Sections 0, 1, 4, 5.

Every result of ``docs/reference/blanket.md`` §0 (definitions), §1 (Algorithm 1,
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
from collections.abc import Sequence
from typing import Any, SupportsFloat

import sympy as sp
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import Bracket, Search, epsilon0_for, epsilon_for_delta
from blanket.exact.numbers.errors import InfeasibleTarget, InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberOrBall
from blanket.exact.shuffled import amplification as num
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.proofs.core import Eq, Ge, Gt, Hypothesis, Le, Lt, Reference, Result, ResultTable, SymbolicCheck, arb_eval
from flint import acb, arb, fmpq

TABLE = ResultTable("blanket.toml", globals())


PAPER = "BBGN19"

# ================================================================== symbols
# plain symbols (no assumptions) so that hypotheses such as delta > 0 stay visible and are checked;
# the symbolic derivations substitute assumption-carrying twins (see _POS)
epsilon, epsilon0, delta, n, k, gamma, m, sigma = sp.symbols("epsilon epsilon0 delta n k gamma m sigma")
y = sp.Symbol("y", real=True)
x = sp.Symbol("x", real=True)
a_, b_, bp_, c_ = sp.symbols("a b b_plus c")
t_ = sp.Symbol("t", nonnegative=True)
f0_ = sp.Symbol("f_0")  # f(0) in Lemma A.4
fp0_ = sp.Symbol("fprime_0")  # f'(0) in Lemma A.4

E = sp.exp(epsilon)
E0 = sp.exp(epsilon0)


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
L_SQ_KRR = GAMMA_KRR * (2 - GAMMA_KRR) * (E - 1) ** 2 + (1 - GAMMA_KRR) ** 2 * k * (E**2 + 1)
#: Lemma 5.8 (1): Laplace ends of L
L_LO_LAPLACE = sp.exp(-epsilon0 / 2) - sp.exp(epsilon + epsilon0 / 2)
L_HI_LAPLACE = sp.exp(epsilon0 / 2) - sp.exp(epsilon - epsilon0 / 2)
#: Lemma 5.8 (2): Laplace second moment bound (equality at {x, x'} = {0, 1})
L_SQ_LAPLACE = (E**2 + 1) / 3 * (2 * sp.exp(epsilon0 / 2) + sp.exp(-epsilon0)) - 2 * E * (
    2 * sp.exp(-epsilon0 / 2) - sp.exp(-epsilon0)
)


def _h(u):
    """Bennett's h(u) = (1+u) log(1+u) − u."""
    return (1 + u) * sp.log(1 + u) - u


def hoeffding_lemma_rhs(a: sp.Expr, b: sp.Expr, mm: sp.Expr | int) -> sp.Expr:
    """Lemma 5.5: ``b²/(4a) · exp(−2 m a²/b²)`` (a sympy expression of sympy expressions or numbers)."""
    return b**2 / (4 * a) * sp.exp(-2 * mm * a**2 / b**2)


def bennett_lemma_rhs(a: sp.Expr, bplus: sp.Expr, c: sp.Expr, mm: sp.Expr | int) -> sp.Expr:
    """Lemma 5.6 (corrected form): ``b₊/log(1+ab₊/c) · exp(−(mc/b₊²) h(ab₊/c))`` (sympy)."""
    u = a * bplus / c
    return bplus / sp.log(1 + u) * sp.exp(-(mm * c / bplus**2) * _h(u))


def bennett_2019_rhs(a: sp.Expr, bplus: sp.Expr, c: sp.Expr, mm: sp.Expr) -> sp.Expr:
    """The 2019 code's form of Lemma 5.6: the corrected bound divided by ``m·a`` (false)."""
    return bennett_lemma_rhs(a, bplus, c, mm) / (mm * a)


# ================================================================== sympy functions with rigorous evaluation
class InfMu(sp.Function):
    """``inf_x μ_x(y)``, the pointwise infimum of the randomizer's output laws (typeset only: a definition)."""

    nargs = 1

    def _latex(self, printer):
        return r"\inf_{x} \mu_{x}\left(%s\right)" % printer._print(self.args[0])


class EPlusKRR(sp.Function):
    """``E[(Σ_{i=1}^m L_i)_+]`` for i.i.d. k-RR amplification variables ``L^ε_{x,x'}``.

    Arguments ``(m, k, epsilon0, epsilon)``.  Evaluated exactly by
    :func:`exact.shuffled.amplification.eplus_krr` (the four-atom engine of :mod:`exact.shuffled.krr`).
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
def _mech_krr(kk, eps0, exp_eps0=None):
    """k-RR at ``e^{ε0}`` = ``exp_eps0`` when that exact value is known (``Result`` evaluations given
    ``exp_epsilon0``, where ``eps0`` is only its logarithm as a ball), else at the exact ``eps0``."""
    if exp_eps0 is not None:
        return KRR(int(kk), exp_epsilon0=exp_eps0)
    return KRR(int(kk), epsilon0=eps0)


def _rr_exact_delta(kk, nn, eps0, eps, exp_eps0=None):
    """Reference for k-RR δ-bounds: exact worst case (k = 2) or the max over the dataset families (k > 2)."""
    kk, nn = _as_int(_q(kk, "k"), "k"), _as_int(_q(nn, "n"), "n")
    eps0, eps = _q(eps0, "epsilon0"), _q(eps, "epsilon")
    mech = _mech_krr(kk, eps0, exp_eps0)
    if kk == 2:
        w = delta_binary_worst(mech, nn, epsilon=eps)
        return Reference(getattr(w, "value", w), f"exact worst-case δ of shuffled binary RR (n={nn})", "exact")

    vals = [delta_krr_family(mech, nn, fam, epsilon=eps) for fam in ("same", "neighbour", "third")]
    best = arith.maximum(vals)  # exact while every value is (an exact value followed by a ball: best.max failed)
    return Reference(
        best, f"exact δ of shuffled {kk}-RR, max over the dataset families (a lower bound on the worst case)", "lower"
    )


def _generic_exact_delta(eps0, nn, eps, kk=2):
    """Reference for generic δ-bounds: binary RR at the same ε0 is one ε0-LDP randomizer (a lower bound on the sup)."""
    ref = _rr_exact_delta(kk, nn, eps0, eps)
    return Reference(
        ref.value,
        "exact worst-case δ of shuffled binary RR at this ε0 (one ε0-LDP randomizer: a lower bound on the worst randomizer)",
        "lower",
    )


# ================================================================== definitions (§0)

TABLE.register(
    "BBGN19 Definition TV similarity",
    statement=Eq(gamma, sp.Integral(InfMu(y), (y, -sp.oo, sp.oo))),
)
TABLE.register(
    "BBGN19 Definition blanket",
    statement=Eq(sp.Function("omega")(y), InfMu(y) / gamma),
)
TABLE.register(
    "BBGN19 Definition hockey-stick",
    statement=Eq(
        sp.Symbol("D_{e^{\\varepsilon}}"),
        sp.Integral(sp.Max(sp.Function("mu")(y) - E * sp.Function("mu'")(y), 0), (y, -sp.oo, sp.oo)),
    ),
)
TABLE.register(
    "BBGN19 Definition L",
    statement=Eq(
        sp.Symbol("L^{\\varepsilon}_{x,x'}"),
        (sp.Function("mu_x")(sp.Symbol("W")) - E * sp.Function("mu_x'")(sp.Symbol("W")))
        / sp.Function("omega")(sp.Symbol("W")),
    ),
)


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
    (``exact.shuffled.binary``); k > 2 the max over the dataset families
    (``exact.shuffled.krr``; a lower bound, so the reference is then only indicative).
    """
    kk = _as_int(_q(p["k"], "k"), "k")
    nn = _as_int(_q(p["n"], "n"), "n")
    with arith.precision(128):
        g = arb_eval(GAMMA_THEOREM_3_1, {"k": kk, "n": nn, "epsilon": p["epsilon"], "delta": p["delta"]})
        lo, _ = arith.endpoints(g)
    g_lo = fmpq(lo.numerator, lo.denominator)
    e0 = 1 + kk * (1 - g_lo) / g_lo

    mech = KRR(kk, exp_epsilon0=e0)
    eps = _q(p["epsilon"], "epsilon")
    if kk == 2:
        w = delta_binary_worst(mech, nn, epsilon=eps)
        return Reference(
            getattr(w, "value", w),
            "exact worst-case δ of shuffled Algorithm 1 (k=2; γ rounded down, so an upper bound)",
            "upper",
        )

    vals = [delta_krr_family(mech, nn, fam, epsilon=eps) for fam in ("same", "neighbour", "third")]
    best = vals[0]
    for v in vals[1:]:
        best = arb(best).max(arb(v))
    return Reference(best, f"exact δ of shuffled Algorithm 1 (k={kk}), max over dataset families", "lower")


THEOREM_3_1 = TABLE.register(
    "BBGN19 Theorem 3.1",
    statement=Le(DeltaShuffled(k, n, EPSILON0_ALGORITHM_1.subs(gamma, GAMMA_THEOREM_3_1), epsilon), delta),
    hypotheses=(
        *TABLE.hyps("epsilon > 0", "epsilon <= 1", "delta > 0", "delta <= 1", "n >= 2", "k >= 2"),
        Hypothesis(
            Le(GAMMA_THEOREM_3_1, 1), "gamma = max{14k log(2/delta)/((n-1)eps^2), 27k/((n-1)eps)} <= 1 (implicit)"
        ),
    ),
    exact=_thm31_exact,
    numeric={"lhs": lambda **p: _thm31_exact(**p).value},
)


def gamma_theorem_3_1(
    k: IntegerInput, n: IntegerInput, epsilon: NumberOrBall, delta: NumberOrBall, *, prec: int = arith.DEFAULT_PREC
) -> Enclosure:
    """Theorem 3.1's γ = max{14k log(2/δ)/((n−1)ε²), 27k/((n−1)ε)} as a ball, from the Theorem 3.1 object.

    The hypotheses of Theorem 3.1 are enforced (ε ∈ (0,1], δ ∈ (0,1], n ≥ 2,
    k ≥ 2, γ ≤ 1); a violation raises
    :class:`~exact.numbers.errors.HypothesisViolation` naming it.  The γ expression is
    the one inside ``THEOREM_3_1.statement`` (no second copy).  O(1).

    >>> g = gamma_theorem_3_1(2, 10**6, 1, "1e-6")
    >>> from blanket.exact.numbers.arith import decimal_interval
    >>> decimal_interval(g, 6)
    {'lower': '0.000406242', 'upper': '0.000406243'}
    >>> gamma_theorem_3_1(2, 100, 2, "1e-6")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.HypothesisViolation: BBGN19 Theorem 3.1: hypothesis 'epsilon <= 1' fails at {'k': '2', 'n': '100', 'epsilon': '2', 'delta': '1e-6'}; the statement does not apply there
    """
    params = {"k": k, "n": n, "epsilon": epsilon, "delta": delta}
    THEOREM_3_1.check_hypotheses(**params)
    env = THEOREM_3_1._env(params)
    with arith.precision(prec):
        return arb_eval(GAMMA_THEOREM_3_1, env)


ALGORITHM_1_EPS0 = TABLE.register(
    "BBGN19 Algorithm 1 epsilon0",
    statement=Eq(epsilon0, EPSILON0_ALGORITHM_1),
    hypotheses=TABLE.hyps("gamma > 0", "gamma <= 1", "k >= 2"),
    symbolic=lambda r: _check_alg1_eps0(),
)


def _check_alg1_eps0():
    g = sp.simplify(GAMMA_KRR.subs(epsilon0, EPSILON0_ALGORITHM_1))
    ok = sp.simplify(g - gamma) == 0
    return SymbolicCheck(
        True if ok else None,
        "substitute ε0 = log(1+k(1−γ)/γ) into Lemma 5.1's k/(e^{ε0}+k−1) and simplify",
        f"γ_kRR(ε0(γ)) simplifies to {g}",
    )


def epsilon0_algorithm_1(k: IntegerInput, gamma_value: NumberOrBall, *, prec: int = arith.DEFAULT_PREC) -> Enclosure:
    """ε0 = log(1 + k(1−γ)/γ) of Algorithm 1 (a ball), from the registered object.  O(1).

    >>> from blanket.exact.numbers.arith import decimal_interval
    >>> decimal_interval(epsilon0_algorithm_1(2, "1/2"), 6)
    {'lower': '1.09861', 'upper': '1.09862'}
    """
    params = {"k": k, "gamma": gamma_value}
    ALGORITHM_1_EPS0.check_hypotheses(epsilon0=0, **params)
    env = ALGORITHM_1_EPS0._env({"epsilon0": 0, **params})
    with arith.precision(prec):
        return arb_eval(EPSILON0_ALGORITHM_1, env)


# ================================================================== §4 Lemma 5.1 (TV similarity of standard randomizers)
_j = sp.Symbol("j")


def _lap_density(yy, centre, e0):
    return e0 / 2 * sp.exp(-e0 * sp.Abs(yy - centre))


def _gauss_density(yy, centre, s):
    return sp.exp(-((yy - centre) ** 2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))


def _tv_similarity_01(density, parameter):
    """∫ min(μ_0, μ_1) dy for the densities ``density(y, centre, parameter)`` centred at 0 and 1 (Lemma 5.1)."""
    return sp.Integral(sp.Min(density(y, 0, parameter), density(y, 1, parameter)), (y, -sp.oo, sp.oo))


def _check_lemma_5_1_krr(r):
    """Derive γ of k-RR from the definition γ = Σ_y min_x P[x][y] and compare with the closed form."""
    u = sp.Symbol("u", nonnegative=True)  # e^{ε0} = 1 + u, u ≥ 0
    kp = sp.Symbol("k", integer=True, positive=True)
    e0 = 1 + u
    D = e0 + kp - 1
    keep, flip = e0 / D, 1 / D
    # step 1: the column minimum is the flip probability, because keep − flip = (e^{ε0} − 1)/D ≥ 0
    diff = sp.simplify(keep - flip)
    step1 = diff.is_nonnegative
    # step 2: summing the k equal column minima
    total = sp.summation(flip, (_j, 1, kp))
    step2 = sp.simplify(total - GAMMA_KRR.subs({E0: e0, k: kp})) == 0
    ok = bool(step1) and step2
    return SymbolicCheck(
        True if ok else None,
        "definition Σ_y min_x P[x][y] with e^{ε0} = 1+u, u ≥ 0: column minimum, summation, simplify",
        f"keep − flip = {diff} (nonnegative: {step1}); Σ_(j=1..k) flip = {sp.simplify(total)}",
    )


def _envelope_integral(mu_1, mu_0):
    """∫_{−∞}^{1/2} ``mu_1(y)`` dy + ∫_{1/2}^{∞} ``mu_0(y)`` dy, simplified (sympy): the integral of the lower
    envelope of a location family on [0, 1], whose farthest centre is 1 for y ≤ 1/2 and 0 for y ≥ 1/2."""
    yy = sp.Symbol("y", real=True)
    left = sp.integrate(mu_1(yy), (yy, -sp.oo, sp.Rational(1, 2)))
    right = sp.integrate(mu_0(yy), (yy, sp.Rational(1, 2), sp.oo))
    return sp.simplify(left + right)


def _check_lemma_5_1_laplace(r):
    """Integrate the lower envelope of the Laplace densities (inf over x ∈ [0,1] is at x ∈ {0, 1})."""
    e0p = sp.Symbol("epsilon0", positive=True)
    # for y ≤ 1/2 the farthest centre is 1, for y ≥ 1/2 it is 0 (|y − x| is convex in x: max at an end point)
    total = _envelope_integral(lambda y: e0p / 2 * sp.exp(-e0p * (1 - y)), lambda y: e0p / 2 * sp.exp(-e0p * y))
    ok = sp.simplify(total - GAMMA_LAPLACE.subs(epsilon0, e0p)) == 0
    # the envelope step: on y ≤ 1/2, |y−1| ≥ |y−x| for all x ∈ [0,1]; on y ≥ 1/2, |y| ≥ |y−x|
    return SymbolicCheck(
        True if ok else None,
        "∫ inf_x μ_x = ∫_{-∞}^{1/2} μ_1 + ∫_{1/2}^{∞} μ_0 (sympy integrate), simplify",
        f"integral = {total}; the envelope step (farthest centre of [0,1]) is convexity of |y−x| in x",
    )


def _check_lemma_5_1_gaussian(r):
    sp_ = sp.Symbol("sigma", positive=True)
    total = _envelope_integral(lambda y: _gauss_density(y, 1, sp_), lambda y: _gauss_density(y, 0, sp_))
    ok = sp.simplify(sp.expand_func(total - GAMMA_GAUSSIAN.subs(sigma, sp_)).rewrite(sp.erf)) == 0
    return SymbolicCheck(
        True if ok else None,
        "∫ inf_x φ_σ(y−x) = ∫_{-∞}^{1/2} φ_σ(y−1) + ∫_{1/2}^{∞} φ_σ(y) (sympy integrate), compare with 2Φ(−1/(2σ))",
        f"integral = {total}",
    )


def _acb_integral(f, lo, hi):

    return acb.integral(lambda t, _: f(t), lo, hi).real


def _envelope_quadrature(mu_1, mu_0, T, tail):
    """∫_{−T}^{1/2} ``mu_1`` + ∫_{1/2}^{1+T} ``mu_0`` by rigorous quadrature, plus the ball [0, ``tail``] for the
    two tails beyond (each at most ``tail``/2)."""
    left = _acb_integral(mu_1, -T, arb(1) / 2)
    right = _acb_integral(mu_0, arb(1) / 2, 1 + T)
    return left + right + arb(tail / 2, tail / 2)


def _lemma_5_1_laplace_lhs(epsilon0, **_):
    """∫ min(μ_0, μ_1) by rigorous quadrature (flint acb.integral) on [−T, 1+T], split at 1/2, plus the tails.

    Tails: ∫_{−∞}^{−T} μ_1 = ∫_{1+T}^{∞} μ_0 = e^{−ε0(1+T)}/2; added as the exact ball [0, e^{−ε0(1+T)}].
    """
    e0 = arb(epsilon0)
    T = arb(200) / e0
    return _envelope_quadrature(
        lambda t: e0 / 2 * (-e0 * (1 - t)).exp(), lambda t: e0 / 2 * (-e0 * t).exp(), T, (-e0 * (1 + T)).exp()
    )


def _lemma_5_1_gaussian_lhs(sigma, **_):
    """∫ min(φ_σ(y), φ_σ(y−1)) by rigorous quadrature on [−T, 1+T] (T = 20σ), split at 1/2, plus the tails.

    Tails: each ≤ ½ erfc((1+T)/(σ√2)) ≤ ½ e^{−(1+T)²/(2σ²)}; added as a ball [0, e^{−(1+T)²/(2σ²)}].
    """
    s = arb(sigma)
    T = 20 * s
    c = 1 / (s * (2 * arb.pi()).sqrt())
    return _envelope_quadrature(
        lambda t: c * (-((t - 1) ** 2) / (2 * s * s)).exp(),
        lambda t: c * (-(t * t) / (2 * s * s)).exp(),
        T,
        (-((1 + T) ** 2) / (2 * s * s)).exp(),
    )


LEMMA_5_1_KRR = TABLE.register(
    "BBGN19 Lemma 5.1 [krr]",
    statement=Eq(sp.Sum(sp.Min(E0 / (E0 + k - 1), 1 / (E0 + k - 1)), (_j, 1, k)), GAMMA_KRR),
    hypotheses=TABLE.hyps("k >= 2", "epsilon0 >= 0"),
    symbolic=_check_lemma_5_1_krr,
)


def _lemma_5_1_continuous(variant, density, parameter, gamma_value, lhs, check):
    """Register Lemma 5.1 for a location family on [0, 1]: ∫ min(μ_0, μ_1) = ``gamma_value``, for ``parameter`` > 0,
    the left side by rigorous quadrature ``lhs``, the derivation ``check``."""
    return TABLE.register(
        f"BBGN19 Lemma 5.1 [{variant}]",
        statement=Eq(_tv_similarity_01(density, parameter), gamma_value),
        hypotheses=TABLE.hyps(f"{parameter} > 0"),
        numeric={"lhs": lhs},
        symbolic=check,
    )


LEMMA_5_1_LAPLACE = _lemma_5_1_continuous(
    "laplace", _lap_density, epsilon0, GAMMA_LAPLACE, _lemma_5_1_laplace_lhs, _check_lemma_5_1_laplace
)
LEMMA_5_1_GAUSSIAN = _lemma_5_1_continuous(
    "gaussian", _gauss_density, sigma, GAMMA_GAUSSIAN, _lemma_5_1_gaussian_lhs, _check_lemma_5_1_gaussian
)

LEMMA_5_2 = TABLE.register(
    "BBGN19 Lemma 5.2",
    statement=Ge(gamma, GAMMA_LB),
    hypotheses=TABLE.hyps("epsilon0 >= 0"),
)


# ================================================================== Lemma 5.3 and Lemma A.3 (k-RR instances)
def _blanket_view_krr(k, epsilon0, epsilon, n, exp_epsilon0=None, **_):
    """The right side of Lemma 5.3 for k-RR: (1/(γn)) E[(Σ_{i≤M} L_i)_+], M ~ Bin(n, γ).

    Evaluated by ``exact.shuffled.krr.delta_blanket_view`` (windowed with a certified tail);
    :func:`exact.shuffled.amplification.blanket_sum` is the term-by-term reference route (O(n³), tests only).
    """
    kk, nn = _as_int(k, "k"), _as_int(n, "n")
    return delta_blanket_view(_mech_krr(kk, epsilon0, exp_epsilon0), nn, epsilon=epsilon, x=0, x2=1)


LEMMA_5_3 = TABLE.register(
    "BBGN19 Lemma 5.3",
    statement=Le(
        DeltaShuffled(k, n, epsilon0, epsilon),
        sp.Sum(
            sp.binomial(n, m) * GAMMA_KRR**m * (1 - GAMMA_KRR) ** (n - m) * EPlusKRR(m, k, epsilon0, epsilon),
            (m, 1, n),
        )
        / (GAMMA_KRR * n),
    ),
    hypotheses=TABLE.hyps("k >= 2", "n >= 1", "epsilon0 >= 0", "epsilon >= 0"),
    numeric={
        "rhs": _blanket_view_krr,
        "lhs": lambda **p: _rr_exact_delta(p["k"], p["n"], p["epsilon0"], p["epsilon"], p.get("exp_epsilon0")).value,
    },
    exact=lambda **p: _rr_exact_delta(p["k"], p["n"], p["epsilon0"], p["epsilon"]),
)


def _lemma_a3_lhs(k, epsilon0, epsilon, m, exp_epsilon0=None, **_):
    """Lemma A.3's left side on k-RR by enumerating every histogram of m+1 outputs (small m, k)."""

    mech = _mech_krr(_as_int(k, "k"), epsilon0, exp_epsilon0)
    return num.multiset_divergence(mech, _as_int(m, "m"), 0, 1, _exp_of(epsilon))


LEMMA_A_3 = TABLE.register(
    "BBGN19 Lemma A.3",
    statement=Eq(
        sp.Symbol(r"D_{e^{\varepsilon}}(W_{1..m}\cup\{Y_n\}\|W_{1..m}\cup\{Y'_n\})"),
        EPlusKRR(m + 1, k, epsilon0, epsilon) / (m + 1),
    ),
    hypotheses=TABLE.hyps("k >= 2", "m >= 0", "epsilon0 >= 0", "epsilon >= 0"),
    numeric={"lhs": _lemma_a3_lhs},
)


class DeltaBVGaussian(sp.Function):
    """The blanket view of Lemma 5.3 of the shuffled Gaussian mechanism for the inputs (0, 1): ``(σ, n, ε)``;
    typeset only (its values come from :func:`blanket.proofs.continuous_refs.gaussian_view`)."""

    nargs = 3

    def _latex(self, printer):
        return r"\delta_{BV}^{\mathcal{N}(0,\sigma^2)}(\varepsilon)"


class DeltaShuffledGaussian(sp.Function):
    """``sup D_{e^ε}`` of the shuffled Gaussian mechanism on [0, 1] (typeset only)."""

    nargs = 3

    def _latex(self, printer):
        return r"\delta_{\mathcal{S}\circ\mathcal{G}_\sigma^{n}}(\varepsilon)"


def _gaussian_view_rhs(sigma, n, epsilon, **_):
    from blanket.proofs.continuous_refs import gaussian_view

    return gaussian_view(sigma, n, epsilon)


def _gaussian_view_ref(**p):
    from blanket.proofs.continuous_refs import gaussian_own_lower

    return gaussian_own_lower(p["sigma"], p["n"], p["epsilon"])


#: the Gaussian blanket-view curve (issue 27): Lemma 5.3 for the Gaussian mechanism, its value the enclosure of
#: blanket.exact.shuffled.continuous, checked against the mechanism's own δ on 0^n vs 1·0^(n−1)
LEMMA_5_3_GAUSSIAN = TABLE.register(
    "BBGN19 Lemma 5.3 [gaussian]",
    statement=Le(DeltaShuffledGaussian(sigma, n, epsilon), DeltaBVGaussian(sigma, n, epsilon)),
    hypotheses=TABLE.hyps("sigma > 0", "n >= 1", "epsilon >= 0"),
    numeric={"rhs": _gaussian_view_rhs},
    exact=_gaussian_view_ref,
)


# ================================================================== Lemma 5.4 (generic L facts)
_EL = sp.Symbol(r"\mathbb{E}[L]")
_LMAX = sp.Symbol(r"\sup L")
_LMIN = sp.Symbol(r"\inf L")
_EL2 = sp.Symbol(r"\mathbb{E}[L^2]")
_L54_HYP = (
    Hypothesis(Ge(epsilon0, 0), "epsilon0 >= 0"),
    Hypothesis(Ge(epsilon, 0), "epsilon >= 0"),
    Hypothesis(Ge(gamma, GAMMA_LB), "gamma >= exp(-epsilon0) (Lemma 5.2)"),
    Hypothesis(Le(gamma, 1), "gamma <= 1"),
)

LEMMA_5_4_1 = TABLE.register(
    "BBGN19 Lemma 5.4 (1)",
    statement=Eq(_EL, 1 - E),
)
LEMMA_5_4_2 = TABLE.register(
    "BBGN19 Lemma 5.4 (2)",
    statement=Le(_LMAX, L_HI_GENERIC),
    hypotheses=_L54_HYP,
)
LEMMA_5_4_2_LO = TABLE.register(
    "BBGN19 Lemma 5.4 (2) lower end",
    statement=Ge(_LMIN, L_LO_GENERIC),
    hypotheses=_L54_HYP,
)
LEMMA_5_4_3 = TABLE.register(
    "BBGN19 Lemma 5.4 (3)",
    statement=Le(_EL2, L_SQ_GENERIC),
    hypotheses=_L54_HYP,
)


# ================================================================== Lemmas 5.5, A.4, 5.6
_EPM = sp.Symbol(r"\mathbb{E}[(\sum_{i=1}^m L_i)_+]")

LEMMA_5_5 = TABLE.register(
    "BBGN19 Lemma 5.5",
    statement=Le(_EPM, hoeffding_lemma_rhs(a_, b_, m)),
    hypotheses=(Hypothesis(Gt(a_, 0), "a > 0"), Hypothesis(Gt(b_, 0), "b > 0"), *TABLE.hyps("m >= 1")),
)

LEMMA_5_5_KRR = TABLE.register(
    "BBGN19 Lemma 5.5 [krr]",
    statement=Le(EPlusKRR(m, k, epsilon0, epsilon), hoeffding_lemma_rhs(A, L_HI_KRR - L_LO_KRR, m)),
    hypotheses=TABLE.hyps("k >= 2", "epsilon0 > 0", "epsilon > 0", "m >= 1"),
    exact=lambda **p: Reference(
        EPlusKRR(m, k, epsilon0, epsilon)._arb_eval(*(_q(p[s], s) for s in ("m", "k", "epsilon0", "epsilon"))),
        "exact E[(Σ_{i≤m} L_i)_+] of k-RR",
        "exact",
    ),
)


def _check_lemma_a4(r):
    f0p, fp = sp.Symbol("f0", positive=True), sp.Symbol("fp", positive=True)
    tt = sp.Symbol("t", nonnegative=True)
    integral = sp.integrate(sp.exp(-(f0p + fp * tt)), (tt, 0, sp.oo))
    ok = sp.simplify(integral - sp.exp(-f0p) / fp) == 0
    return SymbolicCheck(
        None,
        "tangent-line bound f(t) ≥ f(0) + f'(0)t (convexity, by hand), then sympy integrate",
        f"∫_0^∞ e^(−f(0)−f'(0)t) dt = {integral} ({'equals' if ok else 'differs from'} e^(−f(0))/f'(0)); "
        "the convexity step is not checked by sympy",
    )


LEMMA_A_4 = TABLE.register(
    "BBGN19 Lemma A.4",
    statement=Le(sp.Integral(sp.exp(-sp.Function("f")(t_)), (t_, 0, sp.oo)), sp.exp(-f0_) / fp0_),
    symbolic=_check_lemma_a4,
)

LEMMA_5_6 = TABLE.register(
    "BBGN19 Lemma 5.6",
    statement=Le(_EPM, bennett_lemma_rhs(a_, bp_, c_, m)),
    hypotheses=(
        Hypothesis(Gt(a_, 0), "a > 0"),
        Hypothesis(Gt(bp_, 0), "b_plus > 0"),
        Hypothesis(Gt(c_, 0), "c > 0"),
        *TABLE.hyps("m >= 1"),
    ),
)

_L56_KRR_HYP = (
    Hypothesis(Ge(k, 2), "k >= 2"),
    Hypothesis(Gt(epsilon0, 0), "epsilon0 > 0"),
    Hypothesis(Gt(epsilon, 0), "epsilon > 0"),
    Hypothesis(Ge(m, 1), "m >= 1"),
    Hypothesis(Gt(L_HI_KRR, 0), "b_plus = gamma(1-e^eps) + (1-gamma)k > 0"),
)


def _eplus_ref(**p):
    return Reference(
        EPlusKRR(m, k, epsilon0, epsilon)._arb_eval(*(_q(p[s], s) for s in ("m", "k", "epsilon0", "epsilon"))),
        "exact E[(Σ_{i≤m} L_i)_+] of k-RR",
        "exact",
    )


LEMMA_5_6_KRR = TABLE.register(
    "BBGN19 Lemma 5.6 [krr]",
    statement=Le(EPlusKRR(m, k, epsilon0, epsilon), bennett_lemma_rhs(A, L_HI_KRR, L_SQ_KRR, m)),
    hypotheses=_L56_KRR_HYP,
    exact=_eplus_ref,
)

LEMMA_5_6_2019 = TABLE.register(
    "BBGN19 Lemma 5.6 [2019]",
    statement=Le(EPlusKRR(m, k, epsilon0, epsilon), bennett_2019_rhs(A, L_HI_KRR, L_SQ_KRR, m)),
    hypotheses=_L56_KRR_HYP,
    exact=_eplus_ref,
)


# ================================================================== Lemma 5.7 (k-RR) and Lemma 5.8 (Laplace)
def _krr_symbolic_L():
    u = sp.Symbol("u", positive=True)  # e^{ε0} = 1 + u
    ee = sp.Symbol("ee", positive=True)  # e^ε
    kp = sp.Symbol("k", integer=True, positive=True)
    D = 1 + u + kp - 1
    keep, flip = (1 + u) / D, 1 / D
    om = 1 / kp
    Lx = (keep - ee * flip) / om  # W = x
    Lx2 = (flip - ee * keep) / om  # W = x'
    L0 = (flip - ee * flip) / om  # W another value
    sub = {E0: 1 + u, E: ee, k: kp}
    return u, ee, kp, Lx, Lx2, L0, om, sub


def _check_lemma_5_7_1(r):
    u, ee, kp, Lx, Lx2, L0, om, sub = _krr_symbolic_L()
    hi = sp.simplify(Lx - L_HI_KRR.subs(sub))
    lo = sp.simplify(Lx2 - L_LO_KRR.subs(sub))
    mid_hi = sp.factor(sp.simplify(Lx - L0))
    mid_lo = sp.factor(sp.simplify(L0 - Lx2))
    width = sp.simplify((L_HI_KRR - L_LO_KRR - r.statement.rhs).subs(sub))
    ok = hi == 0 and lo == 0 and width == 0 and mid_hi.is_nonnegative and mid_lo.is_nonnegative
    return SymbolicCheck(
        True if ok else None,
        "L from the definition (μ_x(W) − e^ε μ_{x'}(W))/ω(W) at W = x, x', other; simplify against Lemma 5.7's ends",
        f"L(x) − upper = {hi}; L(x') − lower = {lo}; width − (1−γ)k(e^ε+1) = {width}; L(x) − L(other) = {mid_hi}; L(other) − L(x') = {mid_lo}",
    )


def _check_lemma_5_7_2(r):
    u, ee, kp, Lx, Lx2, L0, om, sub = _krr_symbolic_L()
    second = om * Lx**2 + om * Lx2**2 + (kp - 2) * om * L0**2
    diff = sp.simplify(second - L_SQ_KRR.subs(sub))
    return SymbolicCheck(
        True if diff == 0 else None,
        "E[L²] = Σ_y ω(y) L(y)² from the definition; simplify against Lemma 5.7 (2)",
        f"difference {diff}",
    )


_KRR_HYP = (
    Hypothesis(Ge(k, 2), "k >= 2"),
    Hypothesis(Ge(epsilon0, 0), "epsilon0 >= 0"),
    Hypothesis(Ge(epsilon, 0), "epsilon >= 0"),
)

LEMMA_5_7_1 = TABLE.register(
    "BBGN19 Lemma 5.7 (1)",
    statement=Eq(_LMAX - _LMIN, (1 - GAMMA_KRR) * k * (E + 1)),
    hypotheses=_KRR_HYP,
    symbolic=_check_lemma_5_7_1,
)
LEMMA_5_7_2 = TABLE.register(
    "BBGN19 Lemma 5.7 (2)",
    statement=Eq(_EL2, L_SQ_KRR),
    hypotheses=_KRR_HYP,
    symbolic=_check_lemma_5_7_2,
)


def _laplace_pieces():
    """sympy integrals of μ_x μ_x'/ω for Laplace on [0,1] at x, x' ∈ {0,1}, piecewise-linear exponents."""
    e0 = sp.Symbol("epsilon0", positive=True)
    yy = sp.Symbol("y", real=True)
    # exponents on the four intervals (−∞,0), (0,1/2), (1/2,1), (1,∞): |y−0|, |y−1|, |y−1/2|
    cuts = [(-sp.oo, 0), (0, sp.Rational(1, 2)), (sp.Rational(1, 2), 1), (1, sp.oo)]
    abs0 = [-yy, yy, yy, yy]
    abs1 = [1 - yy, 1 - yy, 1 - yy, yy - 1]
    absh = [sp.Rational(1, 2) - yy, sp.Rational(1, 2) - yy, yy - sp.Rational(1, 2), yy - sp.Rational(1, 2)]

    def integral(p, q):
        tot = 0
        for (lo, hi), a0, a1, ah in zip(cuts, abs0, abs1, absh):
            d = {0: a0, 1: a1}
            f = (e0 / 2) * sp.exp(-e0 * (d[p] + d[q]) + e0 * ah)
            tot += sp.integrate(f, (yy, lo, hi))
        return sp.simplify(tot)

    return e0, integral


def _check_lemma_5_8_2(r):
    e0, integral = _laplace_pieces()
    s00 = integral(0, 0)
    s01 = integral(0, 1)
    ok1 = sp.simplify(s00 - (2 * sp.exp(e0 / 2) + sp.exp(-e0)) / 3) == 0
    ok2 = sp.simplify(s01 - (2 * sp.exp(-e0 / 2) - sp.exp(-e0))) == 0
    ee = sp.Symbol("ee", positive=True)
    second = sp.simplify(s00 - 2 * ee * s01 + ee**2 * integral(1, 1))
    ok3 = sp.simplify(second - L_SQ_LAPLACE.subs({epsilon0: e0, E: ee, epsilon: sp.log(ee)})) == 0
    ok = ok1 and ok2 and ok3
    return SymbolicCheck(
        True if ok else None,
        "equality case x = 0, x' = 1: ∫ μ_0²/ω, ∫ μ_0μ_1/ω, ∫ μ_1²/ω by sympy integrate on the four linear pieces",
        f"∫μ0²/ω = {s00}; ∫μ0μ1/ω = {s01}; E[L²] at (0,1) equals the bound: {ok3}. "
        "That these are the sup / inf over x, x' is the text's claim (checked numerically)",
    )


def _lemma_5_8_ref(which):
    """Reference of Lemma 5.8 (1)/(2): the largest ``L`` / ``E[L²]`` over a grid of input pairs
    (:mod:`blanket.proofs.continuous_refs`), told the bound's value to say which pairs lie certainly below it."""

    def ref(**p):
        from blanket.proofs import continuous_refs as cr

        res = LEMMA_5_8_1 if which == 1 else LEMMA_5_8_2
        f = cr.laplace_sup_L if which == 1 else cr.laplace_second_moment
        return f(p["epsilon0"], p["epsilon"], res.bound(**p))

    return ref


LEMMA_5_8_1 = TABLE.register(
    "BBGN19 Lemma 5.8 (1)",
    statement=Le(_LMAX, L_HI_LAPLACE),
    hypotheses=TABLE.hyps("epsilon0 > 0", "epsilon >= 0"),
    exact=_lemma_5_8_ref(1),
)
LEMMA_5_8_2 = TABLE.register(
    "BBGN19 Lemma 5.8 (2)",
    statement=Le(_EL2, L_SQ_LAPLACE),
    hypotheses=TABLE.hyps("epsilon0 > 0", "epsilon >= 0"),
    symbolic=_check_lemma_5_8_2,
    exact=_lemma_5_8_ref(2),
)


# ================================================================== Theorem 5.3 (Hoeffding) and the Bennett bounds
_DELTA_HYP = (
    Hypothesis(Gt(epsilon, 0), "epsilon > 0"),
    Hypothesis(Gt(epsilon0, 0), "epsilon0 > 0"),
    Hypothesis(Ge(n, 1), "n >= 1"),
)
_DELTA_HYP_K = _DELTA_HYP + (Hypothesis(Ge(k, 2), "k >= 2"),)


def hoeffding_amplification(g: sp.Expr, b: sp.Expr) -> sp.Expr:
    """Lemmas 5.3 + 5.5 summed over m ~ Bin(n, g) (binomial theorem, m = 0 term kept as the code does).

    ``(1/(g n)) · b²/(4a) · (1 − g(1 − e^{−2a²/b²}))^n`` with ``a = e^ε − 1``.
    """
    return hoeffding_lemma_rhs(A, b, 0) / (g * n) * (1 - g * (1 - sp.exp(-2 * A**2 / b**2))) ** n


def bennett_amplification(g: sp.Expr, bplus: sp.Expr, c: sp.Expr) -> sp.Expr:
    """Lemmas 5.3 + 5.6: ``(1/(g n)) Σ_{m=1}^n C(n,m) g^m (1−g)^{n−m} · Lemma 5.6(m)`` (0 when b₊ ≤ 0)."""
    body = sp.binomial(n, m) * g**m * (1 - g) ** (n - m) * bennett_lemma_rhs(A, bplus, c, m)
    return sp.Piecewise((0, Le(bplus, 0)), (sp.Sum(body, (m, 1, n)) / (g * n), True))


def bennett_krr_float(
    epsilon: SupportsFloat, epsilon0: SupportsFloat, n: int, k: int, *, code_2019: bool = False
) -> float:
    """Balle et al.'s Bennett amplification bound for k-RR in binary floats, summed over m as the authors' code does.

    ``code_2019``: with the 2019 code's extra factor 1/(m a) in each term (Lemma 5.6 note: that form of the
    lemma is false).  Not certified: the float bound files ``examples/bounds/bennett_2019_krr.py`` and
    ``bennett_2020_krr.py`` return it and ``blanket check-bound`` judges it under its float error model.
    O(n) float operations.
    """
    e, e0 = math.exp(epsilon), math.exp(epsilon0)
    g = k / (e0 + k - 1)
    a = e - 1
    b = g * (1 - e) + (1 - g) * k  # Lemma 5.7: L <= b
    c = g * (2 - g) * (e - 1) ** 2 + (1 - g) ** 2 * k * (e * e + 1)  # Lemma 5.7: E[L^2]
    if b <= 0:
        return 0.0
    u = a * b / c
    h = (1 + u) * math.log1p(u) - u
    total = 0.0
    for i in range(1, n + 1):
        w = (
            math.exp(
                math.lgamma(n + 1)
                - math.lgamma(i + 1)
                - math.lgamma(n - i + 1)
                + i * math.log(g)
                + (n - i) * math.log1p(-g)
            )
            if g < 1
            else float(i == n)
        )
        denominator = i * a * math.log1p(u) if code_2019 else math.log1p(u)
        total += w * b / denominator * math.exp(-i * c / b**2 * h)
    return total / (g * n)


def _bennett_numeric(g, bplus, c):
    """Numeric right side of a Bennett bound: the sympy ``Sum`` evaluated by the binomial theorem.

    The per-m term of Lemma 5.6 is ``K r^m`` with ``K = b₊/log(1+ab₊/c)`` and
    ``r = exp(−(c/b₊²) h(ab₊/c))`` (both evaluated with arb_eval from the same
    sympy expression at m = 0 and m = 1), so
    ``Σ_{m=1}^n C(n,m) g^m (1−g)^{n−m} K r^m = K((1−g+gr)^n − (1−g)^n)``
    exactly (:func:`exact.shuffled.amplification.geometric_binomial_sum`): O(log n),
    no windowing, nothing left out.  Returns exact 0 when b₊ ≤ 0 (then L ≤ 0
    a.s. and the expectation vanishes); when the ball of b₊ contains 0,
    max(its rational upper end, 2⁻¹⁰) is used (Lemma 5.6 holds for any
    b₊ ≥ sup L; the value is then a valid but slightly looser bound).
    """
    BP = sp.Symbol("b_plus_value")
    K_expr = bennett_lemma_rhs(A, BP, c, 0)
    r_expr = sp.exp(-(c / BP**2) * _h(A * BP / c))

    def f(**env):
        bp = arb_eval(bplus, env)
        s = arith.sign(bp)
        if s is not None and s <= 0:
            return fmpq(0)
        if s is None:
            # b₊ straddles 0 (e.g. exactly 0 at ε = ε0 for RR/Laplace). Lemma 5.6 holds for *any* b₊ ≥ sup L,
            # so max(upper end, 2^-10) is a valid choice (not the tiny upper end itself: h(u) ≈ u²/2 would
            # cancel catastrophically in balls); if the upper end is ≤ 0, L ≤ 0 a.s. and the bound is 0.
            _, up = arith.endpoints(bp)
            if up <= 0:
                return fmpq(0)
            bp = max(fmpq(up.numerator, up.denominator), fmpq(1, 1024))
        env2 = dict(env)
        env2["b_plus_value"] = bp
        gg = arb_eval(g, env)
        K = arb_eval(K_expr, env2)
        r = arb_eval(r_expr, env2)
        return num.geometric_binomial_sum(_as_int(env["n"], "n"), gg, K, r)

    return f


def _generic_ref(**p):
    return _generic_exact_delta(p["epsilon0"], p["n"], p["epsilon"])


def _rr_ref(**p):
    return _rr_exact_delta(p["k"], p["n"], p["epsilon0"], p["epsilon"])


def _laplace_ref(**p):
    """Reference for the Laplace δ-bounds: the exact blanket view of Lemma 5.3 for the inputs (0, 1), enclosed
    (:func:`blanket.exact.shuffled.continuous.blanket_view`, issue 27) — the supremum over input pairs that the
    Hoeffding and Bennett forms bound ((0, 1) is the worst pair: :mod:`blanket.proofs.continuous_worst_pair`)."""
    from blanket.exact.mechanisms.continuous import Laplace
    from blanket.exact.shuffled.continuous import blanket_view

    nn = _as_int(_q(p["n"], "n"), "n")
    v = blanket_view(Laplace(_q(p["epsilon0"], "epsilon0")), nn, epsilon=_q(p["epsilon"], "epsilon"), h=fmpq(1, 64))
    mid, rad = (v.lower + v.upper) / 2, (v.upper - v.lower) / 2
    return Reference(
        arith.ball(mid) + arith.ball(rad) * arb(0, 1),
        f"exact blanket view δ_BV of the shuffled Laplace mechanism for the inputs (0, 1) (n={nn}, lattice "
        "enclosure; the supremum over input pairs: (0, 1) is proved the worst pair)",
        "lower",
    )


_B_GENERIC = B  # γ_ub = 1
#: Lemma 5.7 (1): range width (1−γ)k(e^ε+1) of the k-RR L (equality with L_HI_KRR − L_LO_KRR checked symbolically)
_B_RR = (1 - GAMMA_KRR) * k * (E + 1)
_B_LAPLACE = L_HI_LAPLACE - L_LO_LAPLACE


def _delta_bound(key, bound, hypotheses, exact=None, numeric_rhs=None):
    """Register ``key``: δ ≤ ``bound`` (a form of Theorem 5.3, or a Figure 3 curve) under ``hypotheses``; the bound
    side is evaluated by ``numeric_rhs`` where given, and compared with the reference ``exact``."""
    return TABLE.register(
        key,
        statement=Le(delta, bound),
        hypotheses=hypotheses,
        numeric={"rhs": numeric_rhs} if numeric_rhs is not None else None,
        exact=exact,
    )


def _bennett(variant, g, bplus, c, hypotheses, exact=None):
    """Register ``BBGN19 Bennett bound [variant]``: δ ≤ the Bennett amplification bound at (γ, b₊, c)."""
    return _delta_bound(
        f"BBGN19 Bennett bound [{variant}]",
        bennett_amplification(g, bplus, c),
        hypotheses,
        exact,
        _bennett_numeric(g, bplus, c),
    )


THEOREM_5_3_GENERIC = _delta_bound(
    "BBGN19 Theorem 5.3 [generic]", hoeffding_amplification(GAMMA_LB, _B_GENERIC), _DELTA_HYP, _generic_ref
)
THEOREM_5_3_RR = _delta_bound(
    "BBGN19 Theorem 5.3 [rr]", hoeffding_amplification(GAMMA_KRR, _B_RR), _DELTA_HYP_K, _rr_ref
)
THEOREM_5_3_LAPLACE = _delta_bound(
    "BBGN19 Theorem 5.3 [laplace]", hoeffding_amplification(GAMMA_LAPLACE, _B_LAPLACE), _DELTA_HYP, _laplace_ref
)

_PRE = gamma * B**2 / (4 * A * n) * (1 - gamma * (1 - sp.exp(-2 * A**2 / (gamma**2 * B**2)))) ** n
_SLIDE = (
    gamma
    * (E + 1) ** 2
    * (E0 - 1 / E0) ** 2
    / (4 * n * (E - 1))
    * sp.exp(-sp.Rational(86, 100) * n * sp.Min(gamma, (E - 1) ** 2 / (gamma * (E + 1) ** 2 * (E0 - 1 / E0) ** 2)))
)
_GAMMA_HYP = (
    Hypothesis(Ge(gamma, GAMMA_LB), "gamma >= exp(-epsilon0) (Lemma 5.2)"),
    Hypothesis(Le(gamma, 1), "gamma <= 1"),
)

THEOREM_5_3_PRE = _delta_bound("BBGN19 Theorem 5.3 [pre]", _PRE, _DELTA_HYP + _GAMMA_HYP)
THEOREM_5_3_SLIDE = _delta_bound("BBGN19 Theorem 5.3 [slide]", _SLIDE, _DELTA_HYP + _GAMMA_HYP)

# ---- Bennett (curves 3, 5, 7)
_BP_GENERIC = L_HI_GENERIC.subs(gamma, 1)
_C_GENERIC = E0 * (E**2 + 1) - 2 * GAMMA_LB * E / E0**2

BENNETT_GENERIC = _bennett("generic", GAMMA_LB, _BP_GENERIC, _C_GENERIC, _DELTA_HYP, _generic_ref)
BENNETT_RR = _bennett("rr", GAMMA_KRR, L_HI_KRR, L_SQ_KRR, _DELTA_HYP_K, _rr_ref)
BENNETT_LAPLACE = _bennett("laplace", GAMMA_LAPLACE, L_HI_LAPLACE, L_SQ_LAPLACE, _DELTA_HYP, _laplace_ref)


def binary_epsilon_reference(**p: Any) -> Reference:
    """Reference for ε-valued bounds: a certified *lower* bound on the central ε of shuffled binary RR at (ε0, n, δ).

    Calibrates the exact δ of shuffled binary RR — the worst case over all
    datasets for n ≤ 2000 (``exact.shuffled.binary.delta_binary_worst``), else the
    maximum over the extreme datasets c ∈ {0, 1, n−2, n−1} (a lower bound on
    the worst case) — with ``exact.numbers.calibrate.epsilon_for_delta`` and returns
    the bracket's lower end, certified to *fail* the target: the true ε of
    binary RR (one ε0-LDP randomizer) is above it, so an ε-bound below it
    would be refuted.
    """

    eps0 = _q(p["epsilon0"], "epsilon0")
    nn = _as_int(_q(p["n"], "n"), "n")
    mech = _mech_krr(2, eps0)

    def d(eps):
        if nn <= 2000:
            return delta_binary_worst(mech, nn, epsilon=eps).value
        out = None
        for c in sorted({0, 1, nn - 2, nn - 1}):
            v = arith.ball(delta_binary(mech, nn, c, epsilon=eps))
            out = v if out is None else out.max(v)
        return out

    br = epsilon_for_delta(d, p["delta"], lo=fmpq(1, 10**6), hi=eps0, rel_tol="1e-4")
    return Reference(
        br.lower,
        "certified lower end of the central ε of shuffled binary RR at this (ε0, n, δ) "
        "(one ε0-LDP randomizer; worst case over datasets for n ≤ 2000, extreme datasets beyond)",
        "lower",
    )


# ================================================================== Theorem 5.1 (EFMRTT as quoted) and Corollary 5.3.1
EFMRTT_EPSILON = 12 * epsilon0 * sp.sqrt(sp.log(1 / delta) / n)

THEOREM_5_1 = TABLE.register(
    "BBGN19 Theorem 5.1",
    statement=Le(epsilon, EFMRTT_EPSILON),
    hypotheses=(
        *TABLE.hyps("epsilon0 > 0"),
        Hypothesis(Le(epsilon0, sp.Rational(1, 2)), "epsilon0 <= 1/2"),
        *TABLE.hyps("n >= 1000", "delta > 0"),
        Hypothesis(Lt(delta, sp.Rational(1, 100)), "delta < 1/100"),
    ),
    exact=binary_epsilon_reference,
)

#: this project's explicit constant in Corollary 5.3.1 (certified on all of COROLLARY_BOX, see certify_corollary_5_3_1_box)
COROLLARY_5_3_1_C = sp.Integer(8)
#: the parameter box on which the constant is certified: ε0, n, δ ranges (exact)
COROLLARY_BOX = {"epsilon0": (fmpq(1, 20), fmpq(2)), "n": (10**4, 10**7), "delta": (fmpq(1, 10**10), fmpq(1, 10**4))}
COROLLARY_EPSILON = COROLLARY_5_3_1_C * sp.Min(1, epsilon0) * E0 * sp.sqrt(sp.log(1 / delta) / n)

COROLLARY_5_3_1 = TABLE.register(
    "BBGN19 Corollary 5.3.1",
    statement=Le(epsilon, COROLLARY_EPSILON),
    hypotheses=(
        *TABLE.hyps("epsilon0 > 0", "delta > 0", "delta < 1"),
        Hypothesis(Gt(n, sp.log(1 / delta)), "n > log(1/delta)"),
        Hypothesis(Le(epsilon0, sp.log(n / sp.log(1 / delta)) / 2), "epsilon0 <= log(n/log(1/delta))/2"),
        Hypothesis(
            sp.And(
                Ge(epsilon0, COROLLARY_BOX["epsilon0"][0]),
                Le(epsilon0, COROLLARY_BOX["epsilon0"][1]),
                Ge(n, COROLLARY_BOX["n"][0]),
                Le(n, COROLLARY_BOX["n"][1]),
                Ge(delta, sp.Rational(1, 10**10)),
                Le(delta, sp.Rational(1, 10**4)),
            ),
            "(epsilon0, n, delta) in the certified box [1/20, 2] x [1e4, 1e7] x [1e-10, 1e-4]",
        ),
    ),
    exact=binary_epsilon_reference,
)


# ================================================================== certified calibration (one-sided) through exact.numbers.calibrate
def _bound_fn(result: Result, fixed: dict, free: str):
    def f(v):
        return result.bound(**fixed, **{free: v})

    return f


#: the defaults of the two calibrations' searches (the authors' bracket ends at 10)
_SEARCH: Search = {"hi": "10"}  # rel_tol: the searches' own default (1e-6)


def calibrated_epsilon(result: Result, *, delta: NumberOrBall, search: Search | None = None, **params: Any) -> Bracket:
    """Certified ε for a registered bound at (ε0, n[, k]) and target δ: ``exact.numbers.calibrate`` Bracket.

    δ-valued bounds (``quantity == "delta"``): the smallest ε with
    bound(ε) ≤ δ, searched in ``[10^{-6}, hi]``; ``bracket.upper`` is certified
    (bound(upper) ≤ δ proven in ball arithmetic), so it is a valid ε for the
    mechanism.  ε-valued bounds (``quantity == "epsilon"``, Theorem 5.1,
    Corollary 5.3.1): the bound evaluated at δ and rounded *up* to a rational
    (returned as a Bracket with both ends equal to that rational upper end).
    The authors' code uses float root finding whose root may sit on the
    unsafe side; this never does.  ``params``: the bound's own parameters
    (``epsilon0``, ``n``, ``k``, …); ``search``: the keywords of the search
    (:class:`blanket.exact.numbers.calibrate.Search`: ``hi`` default 10, ``rel_tol`` default 1e-6, ``guess``
    — a float only seeds it, …), a separate table because ``params`` takes every other keyword.
    """

    if result.quantity == "epsilon":
        v = result.bound(delta=delta, **params)
        up = _round_up(v)
        return Bracket(lower=up, upper=up, evaluations=1)
    if result.quantity != "delta":
        raise InvalidArgument("bound", result.key, "is not a bound on delta or epsilon")
    sk: Search = {**_SEARCH, "lo": fmpq(1, 10**6), **(search or {})}
    return epsilon_for_delta(_bound_fn(result, params, "epsilon"), delta, **sk)


def calibrated_epsilon0(
    result: Result, *, epsilon: NumberOrBall, delta: NumberOrBall, search: Search | None = None, **params: Any
) -> Bracket:
    """Certified largest ε0 for a registered bound at (ε, n[, k]) and target δ: ``exact.numbers.calibrate`` Bracket.

    Searched in ``[ε(1+10⁻⁴), hi]`` (the authors' bracket is ``[ε, 10]``);
    ``bracket.lower`` is certified (bound(lower) ≤ δ proven).  If even the
    left end fails, the answer is ε0 = ε, which needs no bound (shuffling
    ε0-LDP reports is ε0-DP).  For ε-valued bounds (Theorem 5.1),
    the largest ε0 with bound(ε0) ≤ ε, searched in ``[ε/1000, 1/2]`` (the
    theorem's hypothesis ε0 ≤ 1/2).  ``params`` and ``search`` as in :func:`calibrated_epsilon`.
    """

    eps = arith.exact(epsilon, "epsilon")
    sk: Search = {**_SEARCH, **(search or {})}
    if "lo" in sk:  # the domain's left end follows from ε (below); a caller's own would be overridden silently
        raise InvalidArgument(
            "search", "lo", "is set by calibrated_epsilon0 from epsilon; give hi, rel_tol, guess, ..."
        )
    if result.quantity == "epsilon":
        f = _bound_fn(result, {"delta": delta, **params}, "epsilon0")
        top = fmpq(1, 2) if result is THEOREM_5_1 else arith.exact(sk["hi"])
        within: Search = {**sk, "lo": eps / 1000, "hi": top}
        return epsilon0_for(f, eps, **within)
    if result.quantity != "delta":
        raise InvalidArgument("bound", result.key, "is not a bound on delta or epsilon")
    # ε0 = ε itself always works (an ε0-LDP randomizer's shuffle is ε0-DP), and at ε0 = ε the Bennett
    # bounds' b₊ is exactly 0 (undecidable in balls), so the search starts just above ε.
    lo = eps + eps / 10**4
    above: Search = {**sk, "lo": lo}
    try:
        return epsilon0_for(_bound_fn(result, {"epsilon": eps, **params}, "epsilon0"), delta, **above)
    except InfeasibleTarget:
        return Bracket(lower=eps, upper=lo, evaluations=1, meets="lower")


def _round_up(v) -> fmpq:
    if isinstance(v, fmpq):
        return v
    # a short rational ≥ the upper end (10 significant digits)
    return arith.exact(arith.decimal_string(v, 12, up=True))


# ================================================================== Figure 3 (docs/reference/blanket.md §5): the seven curves
#: name → (registered result, fixed extra parameters); the order and names of the paper's legend
FIGURE3_CURVES: dict[str, tuple[Result, dict]] = {
    "EFMRTT'19": (THEOREM_5_1, {}),
    "Hoeffding, Generic": (THEOREM_5_3_GENERIC, {}),
    "Bennett, Generic": (BENNETT_GENERIC, {}),
    "Hoeffding, RR": (THEOREM_5_3_RR, {}),
    "Bennett, RR": (BENNETT_RR, {}),
    "Hoeffding, Laplace": (THEOREM_5_3_LAPLACE, {}),
    "Bennett, Laplace": (BENNETT_LAPLACE, {}),
}


# ================================================================== Corollary 5.3.1: certification of the constant on a box grid
def corollary_grid(levels: int = 1) -> tuple:
    """Exact grid points of :data:`COROLLARY_BOX`: ε0 in steps of 1/20 (÷levels), n at 10^{j/4}, δ at 10^{-j}.

    ``levels = 1``: 40 × 13 × 7 = 3640 points; the tests use a thinned copy.
    """
    e0s = [fmpq(i, 20 * levels) for i in range(levels, 40 * levels + 1)]
    ns = sorted({int(math.floor(10 ** (4 + j / (4 * levels)))) for j in range(0, 12 * levels + 1)})
    ds = [fmpq(1, 10**j) for j in range(4, 11)]
    return e0s, ns, ds


def certify_corollary_5_3_1(*, C: NumberOrBall | None = None, points: Sequence | None = None, prec: int = 128) -> tuple:
    """Certify ``Theorem 5.3 [generic](ε = C(1∧ε0)e^{ε0}√(log(1/δ)/n)) ≤ δ`` at every grid point.

    ``points`` is ``(eps0_list, n_list, delta_list)`` of exact values
    (default :func:`corollary_grid`), all inside :data:`COROLLARY_BOX` and
    satisfying the hypothesis ε0 ≤ ½ log(n/log(1/δ)).  Each point is
    evaluated in ball arithmetic and the comparison with δ is certified
    (precision escalates; :class:`~exact.numbers.errors.Undecided` at the cap).
    Returns ``(True, count)`` if every point passes, else ``(False, point)``
    with the first failing point.  The certificate covers the grid points,
    not the continuum between them (interval evaluation over sub-boxes loses
    too much to the dependency between ε and n — see the module notes).
    Cost: O(#points), about 1 ms per point.
    """
    if C is not None and not (isinstance(C, sp.Rational)):
        # an exact rational: a string is read by arith's number grammar, never by sympify
        q = arith.exact(C, "C")
        C = sp.Rational(int(q.p), int(q.q))
    C = COROLLARY_5_3_1_C if C is None else C
    e0s, ns, ds = corollary_grid() if points is None else points
    eps_expr = C * sp.Min(1, epsilon0) * E0 * sp.sqrt(sp.log(1 / delta) / n)
    bound_expr = THEOREM_5_3_GENERIC.statement.rhs.subs(epsilon, eps_expr)
    count = 0
    for e0 in e0s:
        for nn in ns:
            for d in ds:
                env = {"epsilon0": arith.exact(e0), "n": fmpq(nn), "delta": arith.exact(d)}
                COROLLARY_5_3_1.check_hypotheses(epsilon0=env["epsilon0"], n=nn, delta=env["delta"])

                def compute(prec_, env=env):
                    return arith.le(arb_eval(bound_expr, env), env["delta"])

                ok, _ = arith.escalate(compute, lambda v: v is not None, start=prec, what=f"Corollary 5.3.1 at {env}")
                count += 1
                if not ok:
                    return (False, {k_: str(v) for k_, v in env.items()})
    return (True, count)


# ================================================================== Corollary 5.3.1: certification on the whole box
def _generic_bound_split():
    """``(P, Q)`` with Theorem 5.3 [generic]'s right-hand side ``= P · Q^n``, taken from its sympy statement.

    ``P = e^{ε0} B²/(4an)`` and ``Q = 1 − e^{−ε0}(1 − e^{−2a²/B²})`` (not retyped: ``Q^n`` is the
    factor of the statement's product whose exponent is ``n``).
    """
    rhs = THEOREM_5_3_GENERIC.statement.rhs
    powers = [f for f in sp.Mul.make_args(rhs) if isinstance(f, sp.Pow) and f.exp == n]
    if len(powers) != 1:
        raise InvalidArgument("Theorem 5.3 [generic]", str(rhs), "must have exactly one factor of the form Q**n")
    qn = powers[0]
    return sp.Mul(*[f for f in sp.Mul.make_args(rhs) if f is not qn]), qn.base


def certify_corollary_5_3_1_box(
    *, C: NumberOrBall | None = None, box: Any = None, max_cells: int = 200000, prec: int = 128
) -> tuple:
    """Certify Corollary 5.3.1's constant on the **whole** box (every real point, not a grid).

    Claim: for every ``(ε0, n, δ)`` in ``box`` with ``ε0 ≤ ½ log(n/log(1/δ))``, Theorem 5.3
    [generic] at ``ε = C(1∧ε0)e^{ε0}√(log(1/δ)/n)`` is ≤ δ.

    Method (adaptive subdivision with a proven corner bound).  Write the bound as
    ``P(ε, ε0, n)·Q(ε, ε0)^n`` (:func:`_generic_bound_split`), ``x = e^ε``, ``s = e^{ε0} − e^{−ε0}``:

    * ``P = e^{2ε0} s² (x+1)² / (4(x−1)n)``: increasing in ε0, decreasing in n, and in ε
      decreasing for ``x < 3`` and increasing for ``x > 3`` (``d/dx (x+1)²/(x−1) = (x+1)(x−3)/(x−1)²``),
      so on ``[ε_min, ε_max]`` it is at most ``max(P(ε_min), P(ε_max))``;
    * ``Q = 1 − e^{−ε0}(1 − e^{−2a²/B²}) ∈ (0, 1)`` with ``a/B = (x−1)/((x+1)s)``: decreasing in ε
      (``(x−1)/(x+1)`` increases), increasing in ε0 (``e^{−ε0}`` and ``1 − e^{−2a²/B²}`` both
      decrease); ``Q^n`` is decreasing in n;
    * ``ε(ε0, n, δ)`` is non-decreasing in ε0, decreasing in n and in δ.

    Hence on a cell ``[ε0⁻, ε0⁺] × [n⁻, n⁺] × [δ⁻, δ⁺]``, with ``ε_min = ε(ε0⁻, n⁺, δ⁺)`` and
    ``ε_max = ε(ε0⁺, n⁻, δ⁻)``, every point's bound is at most
    ``U = max(P(ε_min, ε0⁺, n⁻), P(ε_max, ε0⁺, n⁻)) · Q(ε_min, ε0⁺)^{n⁻}``, and ``U ≤ δ⁻`` certifies
    the whole cell (n is treated as real, which covers every integer n).  ``ε_min`` is replaced by
    the exact lower end of its ball and ``ε_max`` by the upper end (both safe by the monotonicity).
    A cell that fails is split in half along ε0 or in the geometric middle along n or δ (the
    dimension whose corner ratio is largest); cells entirely outside the hypothesis
    (``ε0⁻ > ½ log(n⁺/log(1/δ⁺))``) are dropped.  Returns ``(True, cells)`` or
    ``(False, failing_cell)`` when ``max_cells`` is exhausted.  Cost: O(cells), ~2 ms per cell.
    """
    if C is not None and not (isinstance(C, sp.Rational)):
        # an exact rational: a string is read by arith's number grammar, never by sympify
        q = arith.exact(C, "C")
        C = sp.Rational(int(q.p), int(q.q))
    C = COROLLARY_5_3_1_C if C is None else C
    box = COROLLARY_BOX if box is None else box

    def cell_ok(*cell):
        u = corollary_cell_upper(cell, C=C)
        return u is None or arith.le(u, cell[4]) is True

    e0_lo, e0_hi = box["epsilon0"]
    n_lo, n_hi = (fmpq(v) for v in box["n"])
    d_lo, d_hi = box["delta"]
    stack = [(fmpq(e0_lo), fmpq(e0_hi), n_lo, n_hi, fmpq(d_lo), fmpq(d_hi))]
    cells = 0
    with arith.precision(prec):
        while stack:
            c = stack.pop()
            cells += 1
            if cells > max_cells:
                return (False, {k_: str(v) for k_, v in zip(("e0_lo", "e0_hi", "n_lo", "n_hi", "d_lo", "d_hi"), c)})
            if cell_ok(*c):
                continue
            e0a, e0b, na, nb, da, db = c
            r_e0 = math.exp(float(e0b - e0a))  # floats only choose the split direction
            r_n = math.sqrt(float(nb / na))
            r_d = math.sqrt(math.log(float(1 / da)) / math.log(float(1 / db)))
            if r_e0 >= r_n and r_e0 >= r_d:
                mid = (e0a + e0b) / 2
                stack += [(e0a, mid, na, nb, da, db), (mid, e0b, na, nb, da, db)]
            elif r_n >= r_d:
                mid = fmpq(math.isqrt(int(na.p) * int(nb.p) // (int(na.q) * int(nb.q))))
                if not (na < mid < nb):
                    mid = (na + nb) / 2
                stack += [(e0a, e0b, na, mid, da, db), (e0a, e0b, mid, nb, da, db)]
            else:
                mid = _geometric_mid(da, db)
                stack += [(e0a, e0b, na, nb, da, mid), (e0a, e0b, na, nb, mid, db)]
    return (True, cells)


def _geometric_mid(a: fmpq, b: fmpq) -> fmpq:
    """A rational strictly between ``a < b`` near their geometric mean (a power of ten when possible)."""
    la, lb = math.log10(float(a)), math.log10(float(b))
    k = round((la + lb) / 2)
    m = fmpq(10) ** k if k >= 0 else fmpq(1, 10 ** (-k))
    if a < m < b:
        return m
    return (a + b) / 2


def corollary_cell_upper(cell: Any, *, C: NumberOrBall | None = None) -> Any:
    """The corner bound ``U`` of :func:`certify_corollary_5_3_1_box` on one cell (a ball), or ``None``
    when no point of the cell satisfies the hypothesis ε0 ≤ ½ log(n/log(1/δ)).

    ``cell = (ε0⁻, ε0⁺, n⁻, n⁺, δ⁻, δ⁺)`` (exact).  Every point of the cell has Theorem 5.3
    [generic] at the corollary's ε at most ``U`` (proof in :func:`certify_corollary_5_3_1_box`).
    """
    if C is not None and not (isinstance(C, sp.Rational)):
        # an exact rational: a string is read by arith's number grammar, never by sympify
        cq = arith.exact(C, "C")
        C = sp.Rational(int(cq.p), int(cq.q))
    C = COROLLARY_5_3_1_C if C is None else C
    P, Q = _generic_bound_split()
    eps_expr = C * sp.Min(1, epsilon0) * E0 * sp.sqrt(sp.log(1 / delta) / n)
    hyp_expr = sp.log(n / sp.log(1 / delta)) / 2
    e0a, e0b, na, nb, da, db = (arith.exact(v) for v in cell)
    if arith.gt(e0a, arb_eval(hyp_expr, {"n": nb, "delta": db})):
        return None

    def end(x, upper):
        if not isinstance(x, arb):
            return x
        f = arith.endpoints(x)[1 if upper else 0]
        return fmpq(f.numerator, f.denominator)

    e_min = end(arb_eval(eps_expr, {"epsilon0": e0a, "n": nb, "delta": db}), False)
    e_max = end(arb_eval(eps_expr, {"epsilon0": e0b, "n": na, "delta": da}), True)
    p = arith.ball(arb_eval(P, {"epsilon": e_min, "epsilon0": e0b, "n": na})).max(
        arith.ball(arb_eval(P, {"epsilon": e_max, "epsilon0": e0b, "n": na}))
    )
    q = arith.ball(arb_eval(Q, {"epsilon": e_min, "epsilon0": e0b}))
    return p * (q ** int(na.p) if na.q == 1 else (q.log() * arith.ball(na)).exp())


# Old private spellings, still imported by modules outside this worktree's remit (issue 15: switch them to the
# public names, then delete these lines).
_binary_epsilon_reference = binary_epsilon_reference

TABLE.complete()
