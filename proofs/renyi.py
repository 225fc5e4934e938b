"""Girgis, Data, Diggavi, Suresh, Kairouz — *On the Rényi Differential Privacy of the Shuffle Model* (CCS 2021).

Paper key ``GDDSK21``; formulas and statuses from ``docs/reference/renyi.md``.
Every result is one :class:`proofs.core.Result`; the quantity bounded by the
upper/lower bounds is ``epsilon_lambda`` = ε(λ), the Rényi-DP level of order
λ of the shuffled ε0-LDP mechanism (the bounds are stated for every ε0-LDP
mechanism with discrete outputs).  The exact reference (``Result.exact``) is
the exact worst case over all datasets of shuffled **binary randomized
response** (:func:`exact.accounting.renyi.renyi_binary_worst`): for an upper bound it
is a certified *lower* bound on the quantity (binary RR is one ε0-LDP
mechanism), for the lower bounds it is the value they must not exceed.

Shorthands (sympy): ``nbar`` = n̄ = ⌊(n−1)/(2e^{ε0})⌋ + 1 and ``chernoff`` =
e^{ε0λ − (n−1)/(8e^{ε0})}.

Algorithmic quantities appear in the statements as sympy functions with an
``_arb_eval`` method (evaluated by :func:`proofs.core.arb_eval`):
:class:`BinomialCentralMoment` (E[(K−np)^i], K ~ Bin(n, p)),
:class:`BinaryRRMoment` (the special-case moment E_m of Theorem 3.6/3.7 for
binary RR), :class:`BinaryRRWorstMoment` (the exact worst-case moment) and
:class:`BinaryRRWorstRenyi` (the exact worst-case ε(λ)).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp
from blanket.exact.accounting import profiles as xprof
from blanket.exact.accounting import renyi as xr
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberOrBall
from blanket.proofs.core import EvaluationError, Hypothesis, Reference, ResultTable, SymbolicCheck
from flint import arb, ctx, fmpq

TABLE = ResultTable("renyi.toml", globals())

PAPER = "GDDSK21"

# ------------------------------------------------------------ symbols
epsilon0, n, lam, m, i, delta, epsilon = sp.symbols("epsilon0 n lambda m i delta epsilon", real=True)
epsilon_lambda = sp.Symbol("epsilon_lambda", real=True)  # ε(λ), the RDP level (the bounded quantity)
E_lambda = sp.Symbol("E_lambda", real=True)  # a Rényi moment (bounded quantity of Thm 3.7)

E0 = sp.exp(epsilon0)
nbar = sp.floor((n - 1) / (2 * E0)) + 1
chernoff = sp.exp(epsilon0 * lam - (n - 1) / (8 * E0))


def _int_hyp(sym, lo, text):
    return Hypothesis(sp.And(sp.Eq(sym, sp.floor(sym)), sym >= lo), text)


H_N = Hypothesis(n >= 1, "n >= 1")
H_N_INT = Hypothesis(sp.Eq(n, sp.floor(n)), "n is an integer")
H_E0 = Hypothesis(epsilon0 >= 0, "epsilon0 >= 0")
H_LAM_INT = _int_hyp(lam, 2, "lambda is an integer >= 2")
H_LAM_GT1 = Hypothesis(lam > 1, "lambda > 1")
H_LAM_GE2 = Hypothesis(lam >= 2, "lambda >= 2")


# ------------------------------------------------------------ algorithmic sympy functions
def _exact_arg(v, name):
    if not isinstance(v, fmpq):
        raise EvaluationError(f"{name} must be exact for this algorithmic quantity, got the ball {v}")
    return v


def _int_arg(v, name):
    v = _exact_arg(v, name)
    if v.q != 1:
        raise EvaluationError(f"{name} must be an integer, got {v}")
    return int(v.p)


class BinomialCentralMoment(sp.Function):
    """``E[(K − n p)^i]`` for ``K ~ Bin(n, p)`` (exact for exact arguments; O(i²), see :func:`exact.accounting.renyi.binomial_central_moment`)."""

    nargs = 3

    def _arb_eval(self, nn, p, ii):
        return xr.binomial_central_moment(_int_arg(nn, "n"), p, _int_arg(ii, "i"))

    def _latex(self, printer):
        a, b, c = (printer._print(x) for x in self.args)
        return rf"\mathbb{{E}}_{{K\sim\mathrm{{Bin}}({a},\,{b})}}\left[(K-{a}\,{b})^{{{c}}}\right]"


@functools.lru_cache(maxsize=4096)
def _special_moment(mm, eps0, order, prec):
    mech = BinaryRR(epsilon0=eps0)
    # m+1 clients: D' = (d', ..., d') (m+1 copies), D = (d', ..., d', d): others hold d' (= the
    # "neighbour" family of exact.accounting.renyi, with moment E_{M(D')}[(M(D)/M(D'))^λ])
    if mm == 1:
        keep, flip = mech.keep(), mech.flip()
        lamq = fmpq(order)
        return arith.add(
            arith.mul(flip, arith.power(keep / flip, lamq)), arith.mul(keep, arith.power(flip / keep, lamq))
        )
    return rf.moment_krr_family(mech, mm, "neighbour", order=order)


class BinaryRRMoment(sp.Function):
    """``E_m``: the Rényi moment of shuffled binary RR on the special pair with ``m`` clients.

    ``D'_m = (d', …, d')`` (m copies), ``D_m = (d', …, d', d)``;
    ``E_m = E_{h~M(D'_m)}[(M(D_m)(h)/M(D'_m)(h))^λ]`` (Theorem 3.6's inner
    expectation; by the symmetry of binary RR it is also the Theorem 3.4/3.7
    pair).  Arguments ``(m, epsilon0, lambda)``; ε0 exact.
    """

    nargs = 3

    def _arb_eval(self, mm, e0, order):
        mm = _int_arg(mm, "m")
        if mm < 1:
            raise EvaluationError(f"m must be >= 1 in E_m, got {mm}")

        return _special_moment(mm, _exact_arg(e0, "epsilon0"), _exact_arg(order, "lambda"), ctx.prec)

    def _latex(self, printer):
        a = printer._print(self.args[0])
        return rf"E_{{{a}}}"


@functools.lru_cache(maxsize=1024)
def _worst(nn, eps0, order, prec):
    return xr.renyi_binary_worst(BinaryRR(epsilon0=eps0), nn, order=order)


class _BinaryRRWorst(sp.Function):
    """A field (``_field``) of the exact worst case of shuffled binary RR over all neighbouring datasets, as a sympy
    function of (n, epsilon0, lambda)."""

    nargs = 3
    _field = "value"

    def _arb_eval(self, nn, e0, order):
        worst = _worst(_int_arg(nn, "n"), _exact_arg(e0, "epsilon0"), _exact_arg(order, "lambda"), ctx.prec)
        return getattr(worst, self._field)


class BinaryRRWorstMoment(_BinaryRRWorst):
    """The exact worst-case Rényi moment of shuffled binary RR over all neighbouring datasets (n, epsilon0, lambda)."""

    _field = "moment"

    def _latex(self, printer):
        return r"\sup_{\mathcal D\simeq\mathcal D'}\mathbb{E}_{h\sim\mathcal M(\mathcal D')}\left[\left(\tfrac{\mathcal M(\mathcal D)(h)}{\mathcal M(\mathcal D')(h)}\right)^{\lambda}\right]"


class BinaryRRWorstRenyi(_BinaryRRWorst):
    """The exact worst-case ε(λ) = D_λ of shuffled binary RR (n, epsilon0, lambda)."""

    _field = "value"

    def _latex(self, printer):
        return r"\varepsilon^{\mathrm{RR}}(\lambda)"


# ------------------------------------------------------------ exact references
def exact_rdp(**params: Any) -> Enclosure:
    """Exact worst-case ε(λ) of shuffled binary RR at ``n``, ``epsilon0``, ``lambda`` (a ball)."""
    nn = arith.integer_in(params["n"], "n", lo=1)
    e0 = arith.exact_in(params["epsilon0"], "epsilon0", lo=0)
    order = xr.parse_order(params["lambda"], "lambda")
    return _worst(nn, e0, order, _prec()).value


def _prec():

    return ctx.prec


def _ref_upper(**params):
    return Reference(exact_rdp(**params), "exact worst-case ε(λ) of shuffled binary RR (one ε0-LDP mechanism)", "lower")


def _ref_lower(**params):
    return Reference(
        exact_rdp(**params),
        "exact worst-case ε(λ) of shuffled binary RR (the mechanism the lower bound is built on)",
        "exact",
    )


def _moment_ref(**params):
    nn = arith.integer_in(params["m"], "m", lo=1)
    e0 = arith.exact_in(params["epsilon0"], "epsilon0", lo=0)
    order = xr.parse_order(params["lambda"], "lambda")
    return Reference(
        _special_moment(nn, e0, order, _prec()),
        "exact special-case Rényi moment of shuffled binary RR (one pair of the family)",
        "lower",
    )


def _grid(ns=("100", "1000"), e0s=("1/2", "1", "2"), lams=("2", "4", "8")):
    return tuple({"n": a, "epsilon0": b, "lambda": c} for a in ns for b in e0s for c in lams)


# ------------------------------------------------------------ the bounds as expressions
def ub1_log_arg(l: NumberOrBall) -> Enclosure:
    """The argument of the logarithm in (5) at order ``l`` (a sympy expression)."""
    return (
        1
        + sp.binomial(l, 2) * (E0 - 1) ** 2 / (nbar * E0)
        + sp.Sum(
            sp.binomial(l, i)
            * i
            * sp.gamma(i / 2)
            * ((sp.exp(2 * epsilon0) - 1) ** 2 / (2 * nbar * sp.exp(2 * epsilon0))) ** (i / 2),
            (i, 3, l),
        )
        + sp.exp(epsilon0 * l - (n - 1) / (8 * E0))
    )


def eq14(mm: IntegerInput, l: NumberOrBall) -> Enclosure:
    """Right-hand side of (14) (Theorem 3.7) with ``m`` clients at order ``l``."""
    return (
        1
        + sp.binomial(l, 2) * (E0 - 1) ** 2 / (mm * E0)
        + sp.Sum(
            sp.binomial(l, i)
            * i
            * sp.gamma(i / 2)
            * ((sp.exp(2 * epsilon0) - 1) ** 2 / (2 * mm * sp.exp(2 * epsilon0))) ** (i / 2),
            (i, 3, l),
        )
    )


UB1 = sp.log(ub1_log_arg(lam)) / (lam - 1)
UB2 = sp.log(sp.exp(lam**2 * (E0 - 1) ** 2 / nbar) + chernoff) / (lam - 1)
COR32 = sp.log(1 + 4 * sp.binomial(lam, 2) * (E0 - 1) ** 2 / n) / (lam - 1)
BOUND9 = 2 * lam * sp.exp(4 * epsilon0) * (E0 - 1) ** 2 / n
P_RR = 1 / (E0 + 1)
LB_ARG = (
    1
    + sp.binomial(lam, 2) * (E0 - 1) ** 2 / (n * E0)
    + sp.Sum(
        sp.binomial(lam, i) * ((sp.exp(2 * epsilon0) - 1) / (n * E0)) ** i * BinomialCentralMoment(n, P_RR, i),
        (i, 3, lam),
    )
)
LB = sp.log(LB_ARG) / (lam - 1)
COR35 = sp.log(1 + sp.binomial(lam, 2) * (E0 - 1) ** 2 / (n * E0)) / (lam - 1)
_alpha = lam - sp.floor(lam)
NONINT = ((1 - _alpha) * sp.log(ub1_log_arg(sp.floor(lam))) + _alpha * sp.log(ub1_log_arg(sp.ceiling(lam)))) / (lam - 1)


def _bound(label, relation, bound, *hypotheses, symbolic=None, exact=_ref_upper):
    """Register ``GDDSK21 <label>``: ``relation(ε(λ), bound)`` (``sp.Le`` for an upper bound, ``sp.Ge`` for a lower
    one) for n ≥ 1 integer, ε0 ≥ 0 and ``hypotheses`` (on λ), with its certified reference ``exact``."""
    return TABLE.register(
        f"{PAPER} {label}",
        statement=relation(epsilon_lambda, bound),
        hypotheses=(H_N, H_N_INT, H_E0, *hypotheses),
        symbolic=symbolic,
        exact=exact,
    )


THEOREM_3_1 = _bound("Theorem 3.1", sp.Le, UB1, H_LAM_INT)
NONINTEGER_REMARK = _bound("Remark (non-integer λ)", sp.Le, NONINT, H_LAM_GE2)
COROLLARY_3_2 = _bound(
    "Corollary 3.2",
    sp.Le,
    COR32,
    H_LAM_INT,
    Hypothesis(lam**4 * sp.exp(5 * epsilon0) < n / 9, "lambda^4 e^{5 epsilon0} < n/9"),
)
THEOREM_3_3 = _bound("Theorem 3.3", sp.Le, UB2, H_LAM_GT1)
BOUND_9 = _bound("Bound (9)", sp.Le, BOUND9, H_LAM_GT1)


def _thm34_symbolic(result):
    """Prove the likelihood-ratio identity behind Theorem 3.4 and the i = 1, 2 terms of its expansion."""
    kk, NN = sp.symbols("k N", positive=True, integer=True)
    e = sp.Symbol("e", positive=True)  # e = e^{ε0}
    p = 1 / (e + 1)
    keep = e / (e + 1)
    # D = (0,...,0) (N users), D' = (0,...,0,1); count of ones k
    PD = sp.binomial(NN, kk) * p**kk * (1 - p) ** (NN - kk)
    PDp = (
        sp.binomial(NN - 1, kk) * p**kk * (1 - p) ** (NN - 1 - kk) * (1 - keep)
        + sp.binomial(NN - 1, kk - 1) * p ** (kk - 1) * (1 - p) ** (NN - kk) * keep
    )
    ratio = sp.gammasimp(sp.combsimp(PDp / PD))
    target = 1 + (e**2 - 1) / (NN * e) * (kk - NN * p)
    ok1 = sp.simplify(ratio - target) == 0
    # i = 2 term: C(λ,2) a² Var(K) with a = (e²−1)/(N e), Var = N p (1−p)
    a = (e**2 - 1) / (NN * e)
    ok2 = sp.simplify(a**2 * NN * p * (1 - p) - (e - 1) ** 2 / (NN * e)) == 0
    proved = ok1 and ok2
    return SymbolicCheck(
        proved if proved else None,
        "sympy combsimp/gammasimp of M(D')(k)/M(D)(k) for binary RR; binomial theorem",
        "M(D')(k)/M(D)(k) = 1 + (e^{2ε0}−1)/(n e^{ε0})·(k − n/(e^{ε0}+1)) for D = (0..0), D' = (0..0,1); "
        "so E_{k~M(D)}[ratio^λ] = Σ_i C(λ,i) a^i E[(k−np)^i] with the i = 1 term 0 and the i = 2 term "
        "C(λ,2)(e^{ε0}−1)²/(n e^{ε0}): the right-hand side of (10) is exactly the Rényi moment of shuffled binary RR "
        f"on this pair (ratio identity: {ok1}, i = 2 term: {ok2}); exact-rational equality is also tested",
    )


THEOREM_3_4 = _bound("Theorem 3.4", sp.Ge, LB, H_LAM_INT, symbolic=_thm34_symbolic, exact=_ref_lower)


# ------------------------------------------------------------ Corollary 3.5 and the invalid Jensen step
def _odd_central_moment_proof(max_i: int = 13, max_shift: int = 6):
    """Symbolic proof that E[(K−np)^i] ≥ 0 for odd 3 ≤ i ≤ max_i, K ~ Bin(n, p), p ≤ 1/2, n ≥ 1.

    μ_i = (1−2p)·G_i(n, p) where G_i is symmetric under p ↔ 1−p, hence a
    polynomial in u = p(1−p) ∈ [0, 1/4] (checked: the remainder modulo
    p² − p + u has no p).  With u = s/(4(1+s)), s ≥ 0, positivity on
    [0, 1/4) follows from non-negative coefficients of the numerator (u = 1/4
    by continuity).  For n ≥ sh: substitute n = m + sh (m ≥ 0) for the
    smallest shift sh ≤ max_shift that gives non-negative coefficients in
    (s, m); for n = 1 .. sh−1 the same test is done for each n separately.
    Returns ``(proved_up_to, proved_orders)``.
    """
    nn, p, u, s, mm = sp.symbols("n p u s m", nonnegative=True)
    mus = [sp.Integer(1), sp.Integer(0)]

    def cum(r):
        c = xr.bernoulli_cumulant(r).coeffs()
        return nn * sum(sp.Rational(int(x.p), int(x.q)) * p**j for j, x in enumerate(c))

    def nonneg(expr, gens):
        num, _den = sp.fraction(sp.together(expr))
        return all(cf >= 0 for cf in sp.Poly(sp.expand(num), *gens).coeffs())

    proved = 1
    details = []
    for M in range(2, max_i + 1):
        mus.append(sp.expand(sum(sp.binomial(M - 1, j) * cum(M - j) * mus[j] for j in range(M - 1))))
        if M % 2 == 0 or M < 3:
            continue
        q, r = sp.div(sp.Poly(mus[M], p, nn), sp.Poly(1 - 2 * p, p, nn))
        if not r.is_zero:
            break
        red = sp.rem(sp.Poly(q.as_expr(), p), sp.Poly(p**2 - p + u, p)).as_expr()
        if sp.Poly(red, p).degree() > 0:
            break
        ok = False
        for sh in range(1, max_shift + 1):
            if not nonneg(red.subs({nn: mm + sh, u: s / (4 * (1 + s))}), (s, mm)):
                continue
            ok = all(nonneg(red.subs({nn: small, u: s / (4 * (1 + s))}), (s,)) for small in range(1, sh))
            break
        if not ok:
            break
        proved = M
        details.append(M)
    return proved, details


def _cor35_symbolic(result):
    upto, det = _odd_central_moment_proof(13)
    return SymbolicCheck(
        None if upto < 3 else True if upto >= 13 else None,
        "odd central moments of Bin(n, p ≤ 1/2) are ≥ 0 (sympy, positive-coefficient certificate)",
        f"proved symbolically for odd i in {det} (all n ≥ 1, p ≤ 1/2); since p = 1/(e^{{ε0}}+1) ≤ 1/2 and "
        "(e^{2ε0}−1)/(n e^{ε0}) ≥ 0, every i ≥ 3 term of (10) is ≥ 0 for λ ≤ 14, so (11) ≤ (10) ≤ ε(λ). "
        "For λ ≥ 15 the conclusion is certified at each evaluated point by the comparison with the exact binary-RR value, and the tests certify the odd moments ≥ 0 up to i = 21 on a range of (n, p) (the proof is not the paper's: "
        "its Jensen step is invalid, see 'GDDSK21 Corollary 3.5 [Jensen step]')",
    )


COROLLARY_3_5 = _bound("Corollary 3.5", sp.Ge, COR35, H_LAM_INT, symbolic=_cor35_symbolic, exact=_ref_lower)

# the invalid Jensen step: E[X^i] >= (E X)^i for odd i — false for a two-point law
a_, b_, t_, j_ = sp.symbols("a b t j", real=True)
JENSEN_STEP = TABLE.register(
    f"{PAPER} Corollary 3.5 [Jensen step]",
    statement=sp.Ge(t_ * a_**j_ + (1 - t_) * b_**j_, (t_ * a_ + (1 - t_) * b_) ** j_),
    hypotheses=(Hypothesis(sp.And(t_ >= 0, t_ <= 1), "0 <= t <= 1"), _int_hyp(j_, 3, "j is an integer >= 3")),
)


# ------------------------------------------------------------ proof architecture
THEOREM_3_6 = TABLE.register(
    f"{PAPER} Theorem 3.6 [rr]",
    statement=sp.Le(
        BinaryRRWorstMoment(n, epsilon0, lam),
        sp.Sum(
            sp.binomial(n - 1, m)
            * sp.exp(-epsilon0 * m)
            * (1 - sp.exp(-epsilon0)) ** (n - 1 - m)
            * BinaryRRMoment(m + 1, epsilon0, lam),
            (m, 0, n - 1),
        ),
    ),
    hypotheses=(H_N, H_N_INT, H_E0, H_LAM_INT),
)

LEMMA_D_1 = TABLE.register(
    f"{PAPER} Lemma D.1 [rr]",
    statement=sp.Le(BinaryRRMoment(m + 1, epsilon0, lam), BinaryRRMoment(m, epsilon0, lam)),
    hypotheses=(*TABLE.hyps("m >= 1", evaluate=True), H_E0, H_LAM_GT1),
)

THEOREM_3_7 = TABLE.register(
    f"{PAPER} Theorem 3.7",
    statement=sp.Le(E_lambda, eq14(m, lam)),
    hypotheses=(*TABLE.hyps("m >= 1", evaluate=True), _int_hyp(m, 1, "m is an integer >= 1"), H_E0, H_LAM_INT),
    exact=_moment_ref,
)


# ------------------------------------------------------------ RDP -> DP conversions
RDP_CURVE = BinaryRRWorstRenyi(n, epsilon0, lam)
CONV_STANDARD = RDP_CURVE + sp.log(1 / delta) / (lam - 1)
CONV_IMPROVED = RDP_CURVE + sp.log((lam - 1) / lam) - (sp.log(delta) + sp.log(lam)) / (lam - 1)


def _conv_ref(**params):
    """The exact ε(δ) of shuffled binary RR (certified upper end), when the foundation calibration is available."""
    nn = arith.integer_in(params["n"], "n", lo=1)
    e0 = arith.exact_in(params["epsilon0"], "epsilon0", lo=0)
    d = arith.exact_in(params["delta"], "delta", lo=0, lo_open=True, hi=1, hi_open=True)
    return Reference(
        exact_epsilon_for_delta(nn, e0, d), "exact ε(δ) of shuffled binary RR (worst case over datasets)", "exact"
    )


def exact_epsilon_for_delta(nn: IntegerInput, e0: NumberOrBall, d: NumberOrBall) -> arb:
    """Certified bracket ``[lower, upper]`` of the exact ε(δ) of shuffled binary RR (cached per precision); see :func:`_exact_epsilon_for_delta`."""
    return _exact_epsilon_for_delta(int(nn), arith.exact(e0), arith.exact(d), _prec())


@functools.lru_cache(maxsize=256)
def _exact_epsilon_for_delta(nn, e0, d, prec):
    """Certified bracket ends of the exact ε(δ) of shuffled binary RR, as a ball [lower, upper].

    Uses :func:`exact.accounting.profiles.epsilon` (``dataset="worst"``: cheap candidate
    datasets first, the worst-case sweep to certify).
    """
    br = xprof.epsilon(BinaryRR(epsilon0=e0), nn, delta=d, dataset="worst")
    return arb(br.lower).union(arb(br.upper))


RDP_TO_DP_STANDARD = TABLE.register(
    f"{PAPER} RDP to DP [standard]",
    statement=sp.Le(epsilon, CONV_STANDARD),
    hypotheses=(H_N, H_N_INT, H_E0, H_LAM_GT1, Hypothesis(sp.And(delta > 0, delta < 1), "0 < delta < 1")),
    exact=_conv_ref,
)

RDP_TO_DP_IMPROVED = TABLE.register(
    f"{PAPER} RDP to DP [improved]",
    statement=sp.Le(epsilon, CONV_IMPROVED),
    hypotheses=(H_N, H_N_INT, H_E0, H_LAM_GT1, Hypothesis(sp.And(delta > 0, delta < 1), "0 < delta < 1")),
    exact=_conv_ref,
)


def epsilon_via_rdp(
    rdp_of_order: Callable, delta_: NumberOrBall, *, orders: Sequence | None = None, method: str = "improved"
) -> tuple | None:
    """Certified ε for a target δ from an RDP curve, optimised over λ (one-sided).

    ``rdp_of_order(λ: fmpq) -> ball`` must enclose a valid ε(λ) (an exact
    value or an upper bound); ``orders`` defaults to 1.5, 2, 3, …, 64, 96, 128, 256.
    Every λ gives a valid ε; the returned ``(eps_upper, order)`` is the
    smallest certified *upper end* over the orders tried (an upper bound on
    the optimal conversion, not a guess at it).

    >>> from flint import fmpq
    >>> eps, order = epsilon_via_rdp(lambda l: fmpq(1, 100) * l, "1e-6", orders=[fmpq(k) for k in (2, 10, 40)])
    >>> order, eps < 2
    (40, True)
    """
    d = arith.exact_in(delta_, "delta", lo=0, lo_open=True, hi=1, hi_open=True)
    if method not in ("standard", "improved"):
        raise InvalidArgument("method", method, "must be 'standard' or 'improved'")
    if orders is None:
        orders = [fmpq(3, 2)] + [fmpq(k) for k in list(range(2, 33)) + [40, 48, 64, 96, 128, 256]]
    best = None
    for l in orders:
        l = xr.parse_order(l, "order")
        e = arith.ball(rdp_of_order(l))
        lb = arb(l)
        if method == "standard":
            val = e - arb(d).log() / (lb - 1)
        else:
            val = e + ((lb - 1) / lb).log() - (arb(d).log() + lb.log()) / (lb - 1)
        up = val.upper()
        if best is None or up < best[0]:
            best = (up, l)
    return best


TABLE.complete()
