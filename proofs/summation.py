"""Balle et al. (BBGN19) Section 4: real summation in the shuffle model — upper and lower bounds.

Every result of ``docs/reference/blanket.md`` §§2–3 is one :class:`proofs.core.Result`,
registered under ``"BBGN19 <label> [variant]"``:

===============================================  ==========================================================
key                                              what
===============================================  ==========================================================
``BBGN19 Algorithms 2-3``                        the de-biased protocol is unbiased (derived ✔)
``BBGN19 Theorem 4.1 [exact variance]``          exact per-user MSE of the protocol (derived ✔)
``BBGN19 Theorem 4.1 [worst case]``              ``MSE ≤ n((1−γ)/(4k²) + γ/2)/(1−γ)²`` (derived ✔)
``BBGN19 Theorem 4.1``                           the parameter choice and an explicit O(n^{1/3}…) bound
``BBGN19 Theorem 4.1 [privacy]``                 δ at Theorem 4.1's (k, γ), checked by the exact blanket view
``BBGN19 Corollary 4.1.1``                       its square root: the standard deviation
``BBGN19 Lemma 4.1``                             posterior-mean post-processing never increases the MSE
``BBGN19 Lemma 4.2``                             ``MSE(P, X⃗) ≥ n E[(R(X) − X)²]``
``BBGN19 Lemma 4.3 [exact]``                     ``min_y Σ_{x≠y}(|x−y| − 1/(2m))² = S_m``
``BBGN19 Lemma 4.3``                             ``S_m ≥ (m−1)(m−2)/(12m)`` (proved by sympy)
``BBGN19 Lemma 4.4``                             two lower bounds on ``E[(R(X) − X)²]``
``BBGN19 Lemma 4.5``                             ``p_yy < 1/2`` or ``p_xy ≥ e^{−ε}(1/2 − δ)/n``
``BBGN19 Theorem 4.2 [m]``                       ``MSE ≥ ½ min{n/(8m²), e^{−ε}(½ − δ) S_m}`` for every m ≥ 2
``BBGN19 Theorem 4.2``                           the same at ``m = ⌈n^{1/3}⌉``: explicit Ω(n^{1/3})
===============================================  ==========================================================

The protocol's γ comes from Theorem 3.1 with domain size ``k+1`` —
``proofs.blanket.gamma_theorem_3_1(k + 1, n, epsilon, delta)``, the
encoding of Theorem 3.1, not retyped here (:func:`protocol_gamma`).  Whether
the paper uses ``k`` or ``k+1`` there is not visible (reference: *uncertain*);
``k+1`` is the correct domain size and is what we use.

Where the lemmas speak about "a randomizer", the registry evaluates them on
a concrete family (parameters ``m``, ``exp_epsilon0``, ``n``): the ``m``-ary
randomized response on the grid ``M = {(2i−1)/(2m)}`` with rational
``e^{ε0}``, its outputs read as the midpoints.  The tests add random exact
matrices (hypothesis) and exact shuffled-δ checks on small cases.

**Theorem 4.2 discrepancy** (docs/reference/blanket.md §3 and §6 item 2): the slides
state ``Ω(n^{1/3} min{e^{−ε}, ½ − δ})``; the proof route visible in the text
(Lemmas 4.1–4.5) only yields the *product* ``e^{−ε}(½ − δ)``, which is smaller.
We encode what the proof gives and say so in the Result's ``notes``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberOrBall
from blanket.exact.protocols import summation as xs
from blanket.exact.shuffled.krr import delta_blanket_view
from blanket.proofs.blanket import gamma_theorem_3_1
from blanket.proofs.core import Hypothesis, Reference, ResultTable, SymbolicCheck, arb_eval
from flint import arb, fmpq

TABLE = ResultTable("summation.toml", globals())


# ------------------------------------------------------------ symbols (named like the parameters)
# (no sign assumptions: the domains are hypotheses, so they stay visible in the typeset statement)
n = sp.Symbol("n", integer=True)
epsilon = sp.Symbol("epsilon", real=True)
delta = sp.Symbol("delta", real=True)
k = sp.Symbol("k", integer=True)
gamma = sp.Symbol("gamma", real=True)
x = sp.Symbol("x", real=True)
m = sp.Symbol("m", integer=True)
exp_epsilon0, p_xy, p_yy = sp.symbols("exp_epsilon0 p_xy p_yy", real=True)
MSE = sp.Symbol("MSE", nonnegative=True)
MSE_user = sp.Symbol("MSE_user", nonnegative=True)  # per-user E[(e(y) - x)^2]
STD = sp.Symbol("sigma", nonnegative=True)
E_err = sp.Symbol("E_err", nonnegative=True)  # E[(R(X) - X)^2]
MSE_post = sp.Symbol("MSE_post", nonnegative=True)  # MSE(P', X)
MSE_orig = sp.Symbol("MSE_orig", nonnegative=True)  # MSE(P, X)
S_min = sp.Symbol("S_min", nonnegative=True)  # min_y sum_{x != y} (|x-y| - 1/(2m))^2
E_mean = sp.Symbol("E_z", real=True)  # per-user E[e(y)]

HALF = sp.Rational(1, 2)

# ------------------------------------------------------------ the closed forms (written once)
#: rounding: j = floor(xk), p = xk - j
_j = sp.floor(x * k)
_p = x * k - _j
#: per-user mean of the de-biased report, from the report law:
#: E[y] = (1-γ)((1-p)j + p(j+1)) + γ k/2
PER_USER_MEAN = ((((1 - gamma) * ((1 - _p) * _j + _p * (_j + 1)) + gamma * k / 2) / k) - gamma / 2) / (1 - gamma)
#: exact per-user MSE (= variance) of the de-biased report (docs/reference/blanket.md §2, derived ✔)
PER_USER_VARIANCE = (
    (1 - gamma) * _p * (1 - _p) / k**2 + gamma * (1 - gamma) * (x - HALF) ** 2 + gamma * (k + 2) / (12 * k)
) / (1 - gamma) ** 2
#: the worst-case bound on n times the per-user variance
WORST_CASE_BOUND = n * ((1 - gamma) / (4 * k**2) + gamma / 2) / (1 - gamma) ** 2

#: Λ = max{14 log(2/δ), 27}: both branches of Theorem 3.1's γ are ≤ (k+1)Λ/((n−1)ε²) when ε ≤ 1
LAMBDA_ = sp.Max(14 * sp.log(2 / delta), 27)
#: the real k* = (nε²/Λ)^{1/3}; Theorem 4.1 takes k = ⌈k*⌉ (the least integer with Λk³ ≥ nε²)
K_STAR = (n * epsilon**2 / LAMBDA_) ** sp.Rational(1, 3)
#: γ̄ ≥ Theorem 3.1's γ at domain size k+1 for that k (since k + 1 < k* + 2)
GAMMA_BAR = (K_STAR + 2) * LAMBDA_ / ((n - 1) * epsilon**2)
_LEAD = n ** sp.Rational(1, 3) * LAMBDA_ ** sp.Rational(2, 3) * epsilon ** sp.Rational(-4, 3)
#: Theorem 4.1's explicit bound (derived): n/(4k²) ≤ lead/4, nγ/2 ≤ nγ̄/2, divided by (1−γ̄)²
THEOREM_4_1_BOUND = (_LEAD / 4 + n / (n - 1) * (_LEAD / 2 + LAMBDA_ / epsilon**2)) / (1 - GAMMA_BAR) ** 2

#: Lemma 4.3: S_m with a = ⌊(m−1)/2⌋, b = ⌈(m−1)/2⌉
_a = sp.floor((m - 1) / 2)
_b = sp.ceiling((m - 1) / 2)
S_M = (_a * (4 * _a**2 - 1) + _b * (4 * _b**2 - 1)) / (12 * m**2)
S_M_LOWER = (m - 1) * (m - 2) / (12 * m)
#: Lemma 4.4's two terms (typeset; evaluated by exact.protocols.summation.lemma_4_4_terms): midpoints x_i = (2i−1)/(2m), |x_i − x_j| = |i − j|/m
_i, _jj = sp.symbols("i j", integer=True)
_P = sp.IndexedBase("p")
LEMMA_4_4_T1 = sp.Sum(1 - _P[_i, _i], (_i, 1, m)) / (4 * m**3)
#: (the sum over all i, j minus its diagonal i = j, where the summand is p_ii/(4m²))
LEMMA_4_4_T2 = (
    sp.Sum(sp.Sum(_P[_i, _jj] * (sp.Abs(_i - _jj) / m - 1 / (2 * m)) ** 2, (_i, 1, m)), (_jj, 1, m))
    - sp.Sum(_P[_i, _i], (_i, 1, m)) / (4 * m**2)
) / m
#: Lemma 4.5's threshold
LEMMA_4_5_THRESHOLD = sp.exp(-epsilon) * (HALF - delta) / n
#: Theorem 4.2 for a given m (derived from Lemmas 4.1–4.5)
THEOREM_4_2_M = HALF * sp.Min(n / (8 * m**2), sp.exp(-epsilon) * (HALF - delta) * S_M)
#: Theorem 4.2 at m = ⌈n^{1/3}⌉, explicit: m ≤ n^{1/3}+1 and S_m ≥ (m−3)/12 ≥ (n^{1/3}−3)/12
_N13 = n ** sp.Rational(1, 3)
THEOREM_4_2 = sp.Min(n / (16 * (_N13 + 1) ** 2), sp.exp(-epsilon) * (HALF - delta) * (_N13 - 3) / 24)


# ============================================================ parameters of the protocol
def protocol_gamma(k_: IntegerInput, n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> Enclosure:
    """Theorem 3.1's γ for the protocol's ``k+1`` levels: ``gamma_theorem_3_1(k + 1, n, ε, δ)`` (the encoding in ``proofs.blanket``).

    A ball (or exact rational) at the current precision.
    """
    # k is read here (k + 1 on a string failed); its range is Theorem 3.1's hypothesis k + 1 >= 2, checked there
    return gamma_theorem_3_1(arith.integer_in(k_, "k") + 1, n_, epsilon_, delta_)


def _decide(compute, what):
    val, _ = arith.escalate(lambda prec: _try(compute), lambda v: v is not None, what=what)
    return val


def _try(compute):
    try:
        return compute()
    except Undecided:
        return None


def theorem_4_1_k(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> int:
    """Theorem 4.1's level count: the least integer ``k ≥ 1`` with ``Λ k³ ≥ n ε²``, ``Λ = max{14 log(2/δ), 27}``.

    Certified (three-valued comparisons with precision escalation).  O(1)
    ball evaluations plus a short integer search.
    """
    env = {"n": n_, "epsilon": epsilon_, "delta": delta_}
    target = arith.exact(n_) * arith.exact(epsilon_) ** 2

    def ok(kk):  # Λ kk³ ≥ nε² ?
        return _decide(lambda: arith.ge(arb_eval(LAMBDA_, env) * kk**3, target), f"Lambda*{kk}^3 >= n*epsilon^2")

    with arith.precision(arith.DEFAULT_PREC):
        kst = arb_eval(K_STAR, env)
        guess = max(1, int(arith.endpoints(kst)[0]))
    kk = guess
    while not ok(kk):
        kk += 1
    while kk > 1 and ok(kk - 1):
        kk -= 1
    return kk


def theorem_4_1_parameters(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> tuple:
    """Theorem 4.1's ``(k, γ)``: ``k`` from :func:`theorem_4_1_k`, γ = Theorem 3.1's γ at ``k+1``, rounded *up* to a rational.

    Rounding γ up keeps Theorem 3.1's guarantee (its proof only needs γ at
    least the formula: the Chernoff conditions are lower bounds on
    ``c = γ(n−1)/(k+1)``) and makes the (k+1)-RR exact.  Returns
    ``(k, gamma, Protocol1D)``; raises :class:`InvalidArgument` if γ ≥ 1
    (n too small for this ε, δ).
    """
    kk = theorem_4_1_k(n_, epsilon_, delta_)
    with arith.precision(arith.DEFAULT_PREC):
        g = xs.rational_upper(
            protocol_gamma(kk, arith.integer_in(n_, "n"), arith.exact(epsilon_), arith.exact(delta_)), 30
        )
    if g >= 1:
        raise InvalidArgument(
            "n",
            n_,
            f"is too small: Theorem 3.1's gamma for k+1 = {kk + 1} levels is {g} >= 1 at epsilon={epsilon_}, delta={delta_}",
        )
    return kk, g, xs.Protocol1D(kk, g)


def protocol_mse(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> fmpq:
    """Exact worst-case MSE of ``P^{1D}`` at Theorem 4.1's certified parameters (exact rational)."""
    _, _, P = theorem_4_1_parameters(n_, epsilon_, delta_)
    return P.worst_mse(n_)


def blanket_view_delta(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> Enclosure:
    """Certified upper bound on the shuffled protocol's δ at ``epsilon_``, at Theorem 4.1's parameters.

    The exact blanket view of Lemma 5.3 (``exact.shuffled.krr.delta_blanket_view``)
    for the (k+1)-RR with ``e^{ε0} = 1 + (k+1)(1−γ)/γ``: a ball (or exact
    rational) ≥ the true δ on every pair of neighbouring datasets.  Its cost
    is that of ``delta_blanket_view`` (O(n log(1/tol))).
    """

    _, _, P = theorem_4_1_parameters(n_, epsilon_, delta_)
    with arith.precision(arith.DEFAULT_PREC):
        return delta_blanket_view(P.mechanism(), arith.integer_in(n_, "n"), epsilon=arith.exact(epsilon_))


def certified_epsilon_at_parameters(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> Any:
    """The certified central ε (bracket) of the protocol run at Theorem 4.1's (k, γ) for target ``(epsilon_, delta_)``.

    Shows how much Theorem 3.1's closed-form γ over-provisions: the
    bracket's upper end is a certified ε at ``delta_`` (blanket view +
    one-sided calibration, :func:`exact.protocols.summation.certified_epsilon`); it is
    typically far below ``epsilon_``.  Cost: a dozen blanket-view evaluations.
    """
    _, _, P = theorem_4_1_parameters(n_, epsilon_, delta_)
    return xs.certified_epsilon(P, n_, delta_)


def theorem_4_2_best(n_: IntegerInput, epsilon_: NumberOrBall, delta_: NumberOrBall) -> tuple:
    """``(m, bound)`` maximising Theorem 4.2's ``½ min{n/(8m²), e^{−ε}(½−δ)S_m}`` over ``m ≥ 2``.

    The first term decreases and ``S_m`` increases in ``m``, so the best m is
    at the crossing; we scan ``m`` in ``[2, 4⌈n^{1/3}⌉ + 8]`` around it by
    bisection on the crossing and compare the neighbours.  Certified
    evaluation of each candidate; O(log n) evaluations.
    """
    nn = arith.integer_in(n_, "n", lo=1)
    r = THEOREM_4_2_RESULT_M

    def val(mm):
        return r.bound(n=nn, epsilon=epsilon_, delta=delta_, m=mm)

    with arith.precision(arith.DEFAULT_PREC):
        env = {"n": nn, "epsilon": arith.exact(epsilon_), "delta": arith.exact(delta_)}
        c = arb_eval(sp.exp(-epsilon) * (HALF - delta), env)
        lo, hi = 2, 4 * xs.cbrt_ceil(nn) + 8
        # first term >= second term at lo (usually); find the last m where n/(8m^2) >= c S_m (midpoint is float-free)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            s = arb_eval(S_M, {"m": mid})
            if arith.ge(fmpq(nn, 8 * mid * mid), c * s):
                lo = mid
            else:
                hi = mid
        cands = [mm for mm in (lo - 1, lo, hi, hi + 1) if mm >= 2]
        vals = [(val(mm), mm) for mm in cands]
    best = vals[0]
    for v, mm in vals[1:]:
        if arith.gt(v, best[0]):
            best = (v, mm)
    return best[1], best[0]


# ============================================================ concrete randomizers for the lemmas
def grid_krr(m_: IntegerInput, exp_epsilon0_: NumberOrBall) -> Any:
    """The ``m``-ary RR on the grid ``M`` (exact; outputs read as the midpoints): ``(mech, M)``."""

    mm = arith.integer_in(m_, "m", lo=2)
    return KRR(mm, exp_epsilon0=exp_epsilon0_), xs.midpoints(mm)


def _lemma_4_1_sides(m, exp_epsilon0, n):
    mech, M = grid_krr(m, exp_epsilon0)
    post, vals = xs.posterior_mean_randomizer(mech, M)
    return xs.sum_protocol_mse(post, vals, M, n), xs.sum_protocol_mse(mech, M, M, n)


def _lemma_4_2_sides(m, exp_epsilon0, n):
    mech, M = grid_krr(m, exp_epsilon0)
    return xs.sum_protocol_mse(mech, M, M, n), n * xs.single_error(mech, M, M)


def _lemma_4_4_sides(m, exp_epsilon0):
    mech, M = grid_krr(m, exp_epsilon0)
    post, vals = xs.posterior_mean_randomizer(mech, M)
    t1, t2 = xs.lemma_4_4_terms(post, vals, m)
    return xs.single_error(post, vals, M), max(t1, t2)


# ============================================================ symbolic proofs
def _symbolic_unbiased(result) -> SymbolicCheck:
    jj, pp = sp.symbols("j p", nonnegative=True)
    mean = PER_USER_MEAN.subs({sp.floor(x * k): jj}).subs(x, (jj + pp) / k)
    d = sp.simplify(mean - (jj + pp) / k)
    return SymbolicCheck(d == 0, "sympy: mean of the report law with j = floor(xk), x = (j+p)/k", f"residual {d}")


def _symbolic_variance(result) -> SymbolicCheck:
    """Derive the variance from the report law (two rounding atoms + uniform over 0..k) and compare."""
    jj, pp = sp.symbols("j p", nonnegative=True)
    l = sp.Symbol("l", integer=True)
    xx = (jj + pp) / k
    est = lambda level: (level / k - gamma / 2) / (1 - gamma)  # noqa: E731
    unif_m1 = sp.summation(est(l), (l, 0, k)) / (k + 1)
    unif_m2 = sp.summation((est(l) - xx) ** 2, (l, 0, k)) / (k + 1)
    m1 = (1 - gamma) * ((1 - pp) * est(jj) + pp * est(jj + 1)) + gamma * unif_m1
    m2 = (1 - gamma) * ((1 - pp) * (est(jj) - xx) ** 2 + pp * (est(jj + 1) - xx) ** 2) + gamma * unif_m2
    formula = PER_USER_VARIANCE.subs({sp.floor(x * k): jj}).subs(x, xx)
    ok1 = sp.simplify(m1 - xx) == 0
    d = sp.simplify(m2 - formula)
    return SymbolicCheck(
        bool(ok1 and d == 0),
        "sympy: E[(e(y)-x)^2] summed over the report law (uniform part by summation over 0..k)",
        f"mean residual {'0' if ok1 else sp.simplify(m1 - xx)}, variance residual {d}",
    )


def _symbolic_worst_case(result) -> SymbolicCheck:
    """numerator ≤ (1−γ)/(4k²) + γ/2 ⇔ slack ≥ 0 with p(1−p) ≤ 1/4, (x−½)² ≤ 1/4, (k+2)/(12k) ≤ 1/4."""
    slack = ((1 - gamma) / (4 * k**2) + gamma / 2) - (
        (1 - gamma) / (4 * k**2) + gamma * (1 - gamma) / 4 + gamma * (k + 2) / (12 * k)
    )
    s = sp.factor(sp.simplify(slack))
    expected = gamma * (3 * gamma * k + 2 * k - 2) / (12 * k)  # ≥ 0 for k ≥ 1, γ ≥ 0
    ok = sp.simplify(s - expected) == 0
    return SymbolicCheck(
        ok,
        "sympy: bound minus the numerator at p(1-p)=1/4, (x-1/2)^2=1/4 factors as γ(3γk+2k−2)/(12k) ≥ 0",
        f"slack {s}",
    )


def _symbolic_lemma_4_3(result) -> SymbolicCheck:
    t = sp.Symbol("t", nonnegative=True, integer=True)
    odd = sp.simplify(S_M.subs(m, 2 * t + 1) - S_M_LOWER.subs(m, 2 * t + 1))
    even = sp.factor(sp.simplify(S_M.subs(m, 2 * t + 2) - S_M_LOWER.subs(m, 2 * t + 2)))
    ok = odd == 0 and sp.simplify(even - (2 * t + 1) / (16 * (t + 1) ** 2)) == 0
    return SymbolicCheck(
        ok, "sympy: S_m - (m-1)(m-2)/(12m) for m = 2t+1 and m = 2t+2", f"odd m: {odd} (equality); even m: {even} > 0"
    )


def _symbolic_lemma_4_5(result) -> SymbolicCheck:
    """Not proved by sympy: the statement depends on the DP hypothesis; the proof's inequality chain is checked numerically."""
    return SymbolicCheck(
        None,
        "not attempted",
        "the DP hypothesis is not symbolic; the tests check the conclusion on concrete randomizers with certified shuffled δ "
        "and the proof's inequality (1) exactly",
    )


# ============================================================ exact references
def _exact_mean(x, k, gamma):
    return Reference(xs.Protocol1D(k, gamma).user_moments(x)[0], "exact per-user mean by enumeration of the report law")


def _exact_worst(n, k, gamma):
    return Reference(xs.Protocol1D(k, gamma).worst_mse(n), "exact worst-case MSE n·sup_x Var of P^{1D}_{γ,k,n}")


def _exact_thm41(n, epsilon, delta):
    return Reference(
        protocol_mse(n, epsilon, delta),
        "exact worst-case MSE of P^{1D} at Theorem 4.1's (k, γ) (γ from Theorem 3.1 with k+1 levels, rounded up)",
    )


def _exact_cor411(n, epsilon, delta):
    v = protocol_mse(n, epsilon, delta)
    return Reference(
        arb(v).sqrt(), "standard deviation of P^{1D} at Theorem 4.1's (k, γ): sqrt of the exact worst-case MSE"
    )


def _exact_thm42(n, epsilon, delta, m=None):
    return Reference(
        protocol_mse(n, epsilon, delta),
        "worst-case MSE of an (ε,δ)-DP protocol (P^{1D} at Theorem 4.1's parameters): an upper bound on the optimal MSE",
        relation="upper",
    )


# ============================================================ the results
_STD_HYP = (
    Hypothesis(sp.And(epsilon > 0, epsilon <= 1), "0 < epsilon <= 1 (Theorem 3.1)"),
    Hypothesis(sp.And(delta > 0, delta < 1), "0 < delta < 1"),
    Hypothesis(n >= 2, "n >= 2"),
)

ALGORITHMS = TABLE.register(
    "BBGN19 Algorithms 2-3",
    statement=sp.Eq(PER_USER_MEAN, x, evaluate=False),
    hypotheses=(
        Hypothesis(sp.And(x >= 0, x <= 1), "0 <= x <= 1"),
        *TABLE.hyps("k >= 1", evaluate=True),
        Hypothesis(sp.And(gamma >= 0, gamma < 1), "0 <= gamma < 1"),
    ),
    symbolic=_symbolic_unbiased,
    exact=_exact_mean,
    numeric={"lhs": lambda x, k, gamma: xs.Protocol1D(k, gamma).user_moments(x)[0]},
)

VARIANCE = TABLE.register(
    "BBGN19 Theorem 4.1 [exact variance]",
    statement=sp.Eq(MSE_user, PER_USER_VARIANCE),
    hypotheses=ALGORITHMS.hypotheses,
    symbolic=_symbolic_variance,
    numeric={"lhs": lambda x, k, gamma: xs.Protocol1D(k, gamma).user_moments(x)[1]},
    exact=lambda x, k, gamma: Reference(
        xs.Protocol1D(k, gamma).user_moments(x)[1], "exact per-user MSE by enumeration"
    ),
)

WORST_CASE = TABLE.register(
    "BBGN19 Theorem 4.1 [worst case]",
    statement=sp.Le(MSE, WORST_CASE_BOUND),
    hypotheses=(
        *TABLE.hyps("n >= 1", "k >= 1", evaluate=True),
        Hypothesis(sp.And(gamma >= 0, gamma < 1), "0 <= gamma < 1"),
    ),
    symbolic=_symbolic_worst_case,
    exact=_exact_worst,
)


THEOREM_4_1 = TABLE.register(
    "BBGN19 Theorem 4.1",
    statement=sp.Le(MSE, THEOREM_4_1_BOUND),
    hypotheses=_STD_HYP + (Hypothesis(GAMMA_BAR < 1, "n large enough: (k*+2)Λ/((n−1)ε²) < 1 (so γ < 1)"),),
    exact=_exact_thm41,
)

COROLLARY_4_1_1 = TABLE.register(
    "BBGN19 Corollary 4.1.1",
    statement=sp.Le(STD, sp.sqrt(THEOREM_4_1_BOUND)),
    hypotheses=THEOREM_4_1.hypotheses,
    exact=_exact_cor411,
)

PRIVACY = TABLE.register(
    "BBGN19 Theorem 4.1 [privacy]",
    statement=sp.Le(sp.Symbol("delta_P", nonnegative=True), delta),
    hypotheses=THEOREM_4_1.hypotheses,
    exact=lambda n, epsilon, delta: Reference(
        blanket_view_delta(n, epsilon, delta),
        "exact blanket view (Lemma 5.3) of the (k+1)-RR at Theorem 4.1's γ: an upper bound on the protocol's δ",
        relation="upper",
    ),
)


LEMMA_4_1 = TABLE.register(
    "BBGN19 Lemma 4.1",
    statement=sp.Le(MSE_post, MSE_orig),
    hypotheses=TABLE.hyps("m >= 2", "exp_epsilon0 >= 1", "n >= 1", evaluate=True),
    numeric={
        "lhs": lambda m, exp_epsilon0, n: _lemma_4_1_sides(m, exp_epsilon0, n)[0],
        "rhs": lambda m, exp_epsilon0, n: _lemma_4_1_sides(m, exp_epsilon0, n)[1],
    },
)

LEMMA_4_2 = TABLE.register(
    "BBGN19 Lemma 4.2",
    statement=sp.Ge(MSE_orig, n * E_err),
    hypotheses=LEMMA_4_1.hypotheses,
    numeric={
        "lhs": lambda m, exp_epsilon0, n: _lemma_4_2_sides(m, exp_epsilon0, n)[0],
        "rhs": lambda m, exp_epsilon0, n: _lemma_4_2_sides(m, exp_epsilon0, n)[1],
    },
)


LEMMA_4_3_EXACT = TABLE.register(
    "BBGN19 Lemma 4.3 [exact]",
    statement=sp.Eq(S_min, S_M),
    hypotheses=TABLE.hyps("m >= 2", evaluate=True),
    symbolic=lambda r: SymbolicCheck(
        None, "not proved symbolically", "checked by exact brute force over y for m = 2..200 in the tests"
    ),
    numeric={"lhs": lambda m: xs.midpoint_sum_min(m)},
)

LEMMA_4_3 = TABLE.register(
    "BBGN19 Lemma 4.3",
    statement=sp.Ge(S_min, S_M_LOWER),
    hypotheses=TABLE.hyps("m >= 2", evaluate=True),
    symbolic=_symbolic_lemma_4_3,
    numeric={"lhs": lambda m: xs.midpoint_sum_min(m)},
    exact=lambda m: Reference(xs.midpoint_sum_min(m), "exact minimum over y ∈ M by brute force"),
)

LEMMA_4_4 = TABLE.register(
    "BBGN19 Lemma 4.4",
    statement=sp.Ge(E_err, sp.Max(LEMMA_4_4_T1, LEMMA_4_4_T2)),
    hypotheses=TABLE.hyps("m >= 2", "exp_epsilon0 >= 1", evaluate=True),
    numeric={
        "lhs": lambda m, exp_epsilon0: _lemma_4_4_sides(m, exp_epsilon0)[0],
        "rhs": lambda m, exp_epsilon0: _lemma_4_4_sides(m, exp_epsilon0)[1],
    },
)

# Lemma 4.5 grid: binary RR on M = {1/4, 3/4} (p_yy = e0/(1+e0), p_xy = 1/(1+e0)) for n users, at ε with a δ that the
# tests certify to be >= the exact worst-case δ of the shuffled mechanism (exact.shuffled.enumerate.worst_case and a brute force).

#: δ ∈ [0, 1/2), a hypothesis of Lemma 4.5 and Theorem 4.2
_H_DELTA_HALF = Hypothesis(sp.And(delta >= 0, delta < HALF), "0 <= delta < 1/2")

LEMMA_4_5 = TABLE.register(
    "BBGN19 Lemma 4.5",
    statement=sp.Ge(p_xy, LEMMA_4_5_THRESHOLD),
    hypotheses=(
        Hypothesis(p_yy >= HALF, "p_yy >= 1/2 (otherwise the first alternative holds)"),
        _H_DELTA_HALF,
        *TABLE.hyps("n >= 1", evaluate=True),
    ),
    symbolic=_symbolic_lemma_4_5,
)


def _theorem_4_2(key, bound, *hypotheses):
    """Register ``key``: MSE ≥ ``bound`` (a form of Theorem 4.2) under ``hypotheses``, against the exact MSE."""
    return TABLE.register(key, statement=sp.Ge(MSE, bound), hypotheses=hypotheses, exact=_exact_thm42)


THEOREM_4_2_RESULT_M = _theorem_4_2(
    "BBGN19 Theorem 4.2 [m]",
    THEOREM_4_2_M,
    *TABLE.hyps("n >= 1", "epsilon >= 0", evaluate=True),
    _H_DELTA_HALF,
    *TABLE.hyps("m >= 2", evaluate=True),
)
THEOREM_4_2 = _theorem_4_2(
    "BBGN19 Theorem 4.2",
    THEOREM_4_2,
    Hypothesis(n >= 8, "n >= 8 (so m = ⌈n^{1/3}⌉ >= 2)"),
    *TABLE.hyps("epsilon >= 0", evaluate=True),
    _H_DELTA_HALF,
)

TABLE.complete()
