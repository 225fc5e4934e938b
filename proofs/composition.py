"""Composition of shuffled rounds: dominating pairs, their composition, privacy loss distributions.

Paper keys ``ZDW22`` (Zhu, Dong, Wang, AISTATS 2022) and ``PLD`` (the
privacy-loss-distribution literature: Meiser–Mohammadi CCS 2018;
Koskela–Jälkö–Honkela AISTATS 2020; Doroshenko et al. PETS 2022).  Statuses
follow ``docs/reference/beyond.md`` §4, which says what was read and what was
corroborated:

* the composition theorem's *statement* is corroborated (dp_accounting's
  supplementary note labels the definition "Definition 7 in [ZDW22]"; a
  third-party paper cites "Theorem 10"), not read in the paper; its proof
  (Dong–Roth–Su f-DP composition + Blackwell) is written out in
  ``docs/composition.md`` — status **derived**, theorem number recalled;
* the δ-formula of a PLD, the pessimistic/optimistic discretisations and the
  blanket view read as a dominating pair are **derived** here (proofs in
  ``docs/composition.md``) and checked numerically against exact enumeration
  (``tests/test_pld.py``).

The algorithms behind these statements live in :mod:`blanket.exact.accounting.pld`;
each result names the routine (``notes``) and the tests compare them with
exact products of small pairs.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from blanket.proofs.core import Hypothesis, ResultTable, SymbolicCheck

TABLE = ResultTable("composition.toml", globals())


epsilon = sp.Symbol("epsilon", real=True)
T = sp.Symbol("T", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
alpha = sp.Symbol("alpha", nonnegative=True)
L = sp.Symbol("L", real=True)
Delta = sp.Symbol("Delta", positive=True)
m_inf = sp.Symbol("m_{\\infty}", nonnegative=True)

delta_T = sp.Function("\\delta_{M_1 \\circ \\cdots \\circ M_T}")
H_prod = sp.Function("H_{e^{\\epsilon}}(P_1 \\times \\cdots \\times P_T \\| Q_1 \\times \\cdots \\times Q_T)")
H_pair = sp.Function("H_{e^{\\epsilon}}(P \\| Q)")
delta_M = sp.Function("\\delta_{M}")
E_P = sp.Function("E_{L \\sim \\omega}")
delta_up = sp.Function("\\delta_{\\omega_{\\uparrow}^{*T}}")
delta_down = sp.Function("\\delta_{\\omega_{\\downarrow}^{*T}}")

_DOMINATES = Hypothesis(
    sp.true,
    "(P_i, Q_i) dominates round i: H_alpha(M_i(D, y)||M_i(D', y)) <= H_alpha(P_i||Q_i) "
    "for every alpha >= 0, every neighbouring D, D' and every earlier output y",
)


def _not_symbolic(reason):
    return lambda r: SymbolicCheck(None, "not a closed-form identity", reason)


THEOREM_10 = TABLE.register(
    "ZDW22 Theorem 10",
    statement=sp.Le(delta_T(epsilon), H_prod(epsilon)),
    hypotheses=(_DOMINATES, *TABLE.hyps("T >= 1", evaluate=True)),
    symbolic=_not_symbolic("a theorem about all mechanisms; its instances are checked numerically"),
)

PLD_FORMULA = TABLE.register(
    "PLD delta formula",
    statement=sp.Eq(H_pair(epsilon), m_inf + E_P(sp.Max(0, 1 - sp.exp(epsilon - L)))),
    symbolic=_not_symbolic("a rewriting of a finite sum, proved in the documentation"),
)

PESSIMISTIC = TABLE.register(
    "PLD pessimistic discretisation",
    statement=sp.And(sp.Le(delta_down(epsilon), H_prod(epsilon)), sp.Le(H_prod(epsilon), delta_up(epsilon))),
    hypotheses=TABLE.hyps("Delta > 0", evaluate=True),
    symbolic=_not_symbolic("monotonicity argument, proved in the documentation"),
)

BLANKET_PAIR = TABLE.register(
    "PLD blanket view dominating pair",
    statement=sp.Le(delta_M(epsilon), H_pair(epsilon)),
    hypotheses=(Hypothesis(sp.true, "one message per user, replace-one neighbours, k-RR with the same ε0 for all"),),
    symbolic=_not_symbolic("a coupling argument, proved in the documentation"),
)


rho = sp.Symbol("rho", real=True)
lam = sp.Symbol("alpha", positive=True)
delta_sym = sp.Symbol("delta", positive=True)
D_alpha = sp.Symbol("D_{\\alpha}(\\mathbf{P} \\| \\mathbf{Q})", nonnegative=True)
H_bold = sp.Symbol("H_{e^{\\epsilon}}(\\mathbf{P} \\| \\mathbf{Q})", nonnegative=True)

RDP_CONVERSION = TABLE.register(
    "RDP to DP conversion (CKS20 Prop. 12)",
    statement=sp.Implies(
        sp.Le(D_alpha, rho),
        sp.Le(H_bold, sp.exp((lam - 1) * (rho - epsilon)) * (1 - 1 / lam) ** (lam - 1) / lam),
    ),
    hypotheses=(Hypothesis(lam > 1, "alpha > 1"),),
    symbolic=_not_symbolic("a calculus bound, proved in the documentation"),
)


eps0_i = sp.Symbol("\\epsilon_{0,i}", nonnegative=True)

BASIC_COMPOSITION = TABLE.register(
    "Basic composition of pure DP rounds",
    statement=sp.Le(delta_T(sp.Sum(eps0_i, (i, 1, T))), 0),
    hypotheses=(
        Hypothesis(
            sp.true,
            "every round's randomizer is epsilon0_i-LDP and neighbouring datasets differ in one user's value",
        ),
    ),
    symbolic=_not_symbolic("a composition theorem, proved in the documentation"),
)

q_s = sp.Symbol("q", positive=True)
delta_Mq = sp.Function("\\delta_{M_q}")
H_sampled = sp.Function("H_{e^{\\epsilon}}(P_q \\| Q_q)")

SAMPLED_PAIR = TABLE.register(
    "Sampled blanket view dominating pair",
    statement=sp.Le(delta_Mq(epsilon), H_sampled(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "each user takes part independently w.p. q; the multiset of reports (so their number) is released; "
            "replace-one neighbours; k-RR with the same epsilon0 for all",
        ),
    ),
    symbolic=_not_symbolic("a revealed-blanket argument for the sampled randomizer, proved in the documentation"),
)

# ---------------------------------------------------------------- derived statements used in certified paths (issue 25)
a_lo = sp.Symbol("a", positive=True)
b_hi = sp.Symbol("b", positive=True)
H_split = sp.Function("H_{\\alpha}(P_{split} \\| Q_{split})")
H_orig = sp.Function("H_{\\alpha}(P \\| Q)")


def _hockey(atoms: list, alpha: Any) -> Any:
    """``H_α = Σ (p − α q)_+`` of exact atoms ``[(p, q)]`` (sympy rationals; ``q = 0`` allowed)."""
    return sum((max(pp - alpha * qq, 0) for pp, qq in atoms), sp.Integer(0))


def _split_atom(pp: Any, qq: Any, a: Any, b: Any) -> tuple:
    """The split of docs/composition.md §3: an atom of P-mass ``pp``, Q-mass ``qq`` (ratio r = pp/qq in [a, b]) into
    ``(p_a, p_a/a)`` and ``(p_b, p_b/b)`` with ``p_b = pp·b(1 − a/r)/(b − a)``."""
    r = pp / qq
    pb = pp * b * (1 - a / r) / (b - a)
    pa = pp - pb
    return (pa, pa / a), (pb, pb / b)


def _check_split(r) -> SymbolicCheck:
    """Splitting atoms (docs/composition.md §3): with ``r = a + x``, ``b = a + x + y`` (``x, y ≥ 0``) sympy shows that
    both new P-masses are ≥ 0 (numerators and denominators polynomials with non-negative coefficients), that the
    P- and Q-masses add up to the atom's (merging the two atoms, a post-processing, gives the pair back), hence
    ``Σ(p_i − α q_i) = p − αq`` and ``(·)_+`` subadditive gives ``H_α(split) ≥ H_α(pair)`` at every α; then an exact
    instance: a three-atom pair split on the ratios {1/4, 1/2, 1, 2, 4}, ``H_α`` compared at 11 values of α
    (below 1 too) and every split atom merged back.  A wrong split (weights linear in the loss) fails both."""
    x, y, pm = (sp.Symbol(t, nonnegative=True) for t in ("x", "y", "p"))
    a = sp.Symbol("a", positive=True)
    rr, b = a + x, a + x + y
    (pa, qa), (pb, qb) = _split_atom(pm, pm / rr, a, b)
    ok = sp.simplify(pa + pb - pm) == 0 and sp.simplify(qa + qb - pm / rr) == 0
    for v in (pa, pb):
        num, den = sp.fraction(sp.factor(sp.simplify(v)))
        ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(num), a, x, y, pm).coeffs())
        ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(den), a, x, y, pm).coeffs())
    # the exact instance
    R = sp.Rational
    pair = [(R(1, 2), R(1, 6)), (R(1, 3), R(1, 3)), (R(1, 6), R(1, 2))]  # ratios 3, 1, 1/3
    grid = [R(1, 4), R(1, 2), R(1), R(2), R(4)]
    split: list = []
    for pp, qq in pair:
        ratio = pp / qq
        lo = max(g for g in grid if g <= ratio)
        hi = min(g for g in grid if g >= ratio)
        if lo == hi:
            split.append((pp, qq))
            continue
        (pa_, qa_), (pb_, qb_) = _split_atom(pp, qq, lo, hi)
        ok = ok and pa_ >= 0 and pb_ >= 0 and pa_ + pb_ == pp and qa_ + qb_ == qq  # merged back: the same atom
        split += [(pa_, qa_), (pb_, qb_)]
    for al in (R(0), R(1, 5), R(1, 3), R(1, 2), R(4, 5), R(1), R(6, 5), R(2), R(5, 2), R(3), R(4)):
        ok = ok and _hockey(split, al) >= _hockey(pair, al)
    return SymbolicCheck(
        True if ok else False,
        "r = a + x, b = a + x + y: p_a, p_b >= 0 (non-negative coefficients), p_a + p_b = p, q_a + q_b = p/r; then "
        "H_alpha(split) >= H_alpha(pair) by subadditivity of (.)_+; exact instance (3 atoms, 11 values of alpha)",
        "the stored (pessimistic) PLD moves P-mass further up (the ball's upper end of p_b): still dominating",
    )


SPLIT_ATOMS = TABLE.register(
    "PLD split atoms",
    statement=sp.Ge(H_split(alpha), H_orig(alpha)),
    hypotheses=(
        *TABLE.hyps("a > 0", "b > a"),
        Hypothesis(
            sp.true,
            "every atom of (P, Q) with likelihood ratio r in [a, b] is split into atoms at ratios a and b with the "
            "same total P- and Q-masses",
        ),
    ),
    symbolic=_check_split,
    symbols=(a_lo, b_hi),
)


eps0_s = sp.Symbol("epsilon_0", positive=True)
n_s = sp.Symbol("n", integer=True, positive=True)
H_sum = sp.Function(
    "H_{e^{\\epsilon}}(\\mathrm{Bin}(N, f) + \\mathrm{Bin}(T, p) \\| \\mathrm{Bin}(N, f) + \\mathrm{Bin}(T, f))"
)


def _bin_law(m: int, pr: Any) -> dict:
    return {j: sp.binomial(m, j) * pr**j * (1 - pr) ** (m - j) for j in range(m + 1)}


def _convolve(u: dict, v: dict) -> dict:
    out: dict = {}
    for i, a in u.items():
        for j, b in v.items():
            out[i + j] = out.get(i + j, 0) + a * b
    return out


def _product_law(u: dict, v: dict) -> dict:
    """The law of two independent outputs (the composition of two rounds that do not look at each other)."""
    return {(i, j): a * b for i, a in u.items() for j, b in v.items()}


def _hockey_laws(p: dict, q: dict, alpha: Any) -> Any:
    return sum((max(p[k] - alpha * q.get(k, 0), 0) for k in p), sp.Integer(0))


def _check_summed(r) -> SymbolicCheck:
    """The summed-count pair (docs/composition.md §5h) at T = 2, e^{ε0} = 3, n = 3, exact rationals: the law of the
    sum of the two rounds' counts of 1s (forward) or of 0s (backward) on the datasets c = 0 is the push-forward of the
    exact product law of the two rounds' histograms by the sum, equals the closed form ``Bin(N, f) + Bin(T, p)`` vs
    ``Bin(N, f) + Bin(T, f)`` (zeros: ``Bin(N, p) + Bin(T, p)`` vs ``Bin(N, p) + Bin(T, f)``), ``N = T(n − 1)``, and its
    ``H_α`` is at most the product's at 9 values of α ≥ 1 (the data-processing inequality, instance).  Sympy also
    shows the generating-function identity behind the closed form for a symbolic n.  Not a proof of the inequality
    (that is the data-processing inequality): ``proved`` is ``None``, ``False`` when an instance fails."""
    R = sp.Rational
    e, n, T = R(3), 3, 2
    f, p = 1 / (e + 1), e / (e + 1)
    ok = True
    for order in ("forward", "backward"):
        # one round's histogram is its count of 1s, K; the statistic counts 1s (forward) or 0s (backward: n - K)
        tp, tq = (p, f) if order == "forward" else (f, p)  # the target reports 1 w.p. tp under P, tq under Q
        one_p = _convolve(_bin_law(n - 1, f), _bin_law(1, tp))
        one_q = _convolve(_bin_law(n - 1, f), _bin_law(1, tq))
        if order == "backward":
            one_p, one_q = {n - k: v for k, v in one_p.items()}, {n - k: v for k, v in one_q.items()}
        prod_p, prod_q = _product_law(one_p, one_p), _product_law(one_q, one_q)
        sum_p: dict = {}
        sum_q: dict = {}
        for (i, j), v in prod_p.items():
            sum_p[i + j] = sum_p.get(i + j, 0) + v
        for (i, j), v in prod_q.items():
            sum_q[i + j] = sum_q.get(i + j, 0) + v
        base = f if order == "forward" else p  # the others report the counted symbol w.p. base
        tgt_p, tgt_q = p, f  # the target reports the counted symbol w.p. p under P, f under Q (both orders)
        closed_p = _convolve(_bin_law(T * (n - 1), base), _bin_law(T, tgt_p))
        closed_q = _convolve(_bin_law(T * (n - 1), base), _bin_law(T, tgt_q))
        ok = ok and all(sp.simplify(sum_p.get(k, 0) - closed_p.get(k, 0)) == 0 for k in set(sum_p) | set(closed_p))
        ok = ok and all(sp.simplify(sum_q.get(k, 0) - closed_q.get(k, 0)) == 0 for k in set(sum_q) | set(closed_q))
        for al in (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(6), R(9)):
            ok = ok and _hockey_laws(sum_p, sum_q, al) <= _hockey_laws(prod_p, prod_q, al)
    z, fs, ps = sp.Symbol("z"), sp.Symbol("f", positive=True), sp.Symbol("p", positive=True)
    one = ((1 - fs) + fs * z) ** (n_s - 1) * ((1 - ps) + ps * z)
    ok = ok and sp.simplify(one**2 - ((1 - fs) + fs * z) ** (2 * (n_s - 1)) * ((1 - ps) + ps * z) ** 2) == 0
    return SymbolicCheck(
        None if ok else False,
        "exact rationals at T = 2 (e^eps0 = 3, n = 3, both orders): push-forward of the product law = closed form, "
        "H_alpha(sum) <= H_alpha(product) at 9 values of alpha; sympy: the generating-function identity",
        "the inequality itself is the data-processing inequality (a post-processing of the composed outputs)",
    )


SUMMED_PAIR = TABLE.register(
    "Binary RR summed-count lower pair",
    statement=sp.Ge(delta_T(epsilon), H_sum(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "T binary RR rounds with the same epsilon0 on the datasets c = 0 (every other user holds 0; the target 1 "
            "versus 0), N = T(n - 1), f = 1/(e^epsilon0 + 1), p = e^epsilon0 f; the adversary keeps only the total "
            "number of reports equal to 1 (the other order: of reports equal to 0)",
        ),
    ),
    symbolic=_check_summed,
    symbols=(eps0_s, n_s),
)

k_s = sp.Symbol("k", integer=True, positive=True)
H_banded = sp.Function("H_{e^{\\epsilon}}(P_B^{\\times T} \\| Q_B^{\\times T})")


def _rat(x: Any) -> Any:
    """An exact ``fmpq`` (or int) as a sympy Rational."""
    return sp.Rational(int(x.p), int(x.q)) if hasattr(x, "p") else sp.Rational(x)


def _third_statistic(k: int, e: Any, n: int, first: int) -> dict:
    """``{(N, A): prob}`` of k-RR on ``x z^{n−1}`` (``first = 0``) or ``x' z^{n−1}`` (1): ``N`` reports equal to
    ``x`` or ``x'``, ``A`` equal to ``x``; the users' report laws convolved in exact rationals.  O(n³)."""
    f = 1 / (e + k - 1)
    p = e * f
    tgt = {(1, 1): p, (1, 0): f} if first == 0 else {(1, 1): f, (1, 0): p}
    tgt[(0, 0)] = 1 - p - f
    other = {(1, 1): f, (1, 0): f, (0, 0): 1 - 2 * f}
    dist: dict = {(0, 0): sp.Integer(1)}
    for law in [tgt] + [other] * (n - 1):
        new: dict = {}
        for (N, A), v in dist.items():
            for (dn, da), w in law.items():
                new[(N + dn, A + da)] = new.get((N + dn, A + da), 0) + v * w
        dist = new
    return dist


def _check_banded(r) -> SymbolicCheck:
    """The banded third-value lower pair (docs/composition.md §1) on an exact instance: 3-RR, ``e^{ε0} = 2``, n = 7,
    3 bands (:func:`blanket.exact.accounting.banded.lumped_banded_pair`).  In exact rationals: (i) every kept cell
    ``N = s`` of the pair is the reflection ``A → s − A`` w.p. ``θ_s ∈ [0, ½]`` of the brute-force statistic's cell
    (a post-processing; the dropped cells are absent), (ii) ``H_α(one level) ≤ H_α(banded) ≤ H_α(statistic)`` at
    9 values of α ≥ 1, (iii) for ``T = 2`` the banded product's ``H_α`` is at most the statistic's product's.  An
    instance, not a proof (the argument is the post-processing inequality): ``proved`` is ``None``, ``False`` when a
    check fails."""
    from blanket.exact.accounting import banded as _banded  # proofs -> exact (the layer order)
    from blanket.exact.accounting import pairs as _pairs
    from blanket.exact.mechanisms.finite import KRR
    from flint import fmpq

    R = sp.Rational
    k, e, n = 3, 2, 7
    bp = _banded.lumped_banded_pair(KRR(k, exp_epsilon0=fmpq(e)), n, 3)
    one = _pairs.lumped_lower_pair(KRR(k, exp_epsilon0=fmpq(e)), n)
    ok = isinstance(bp, _banded.BandedPair) and len(bp.parts) > 1
    band = {key: (_rat(pp), _rat(qq)) for key, pp, qq in bp.atoms()}
    lvl1 = {key: (_rat(pp), _rat(qq)) for key, pp, qq in one.atoms()}
    P, Q = _third_statistic(k, R(e), n, 0), _third_statistic(k, R(e), n, 1)
    m_lo = int(one.outer_mix[2]) if one.outer_mix is not None else 1
    for s in range(n + 1):
        cells = [(s - 1, a) for a in range(s + 1)]
        if s < m_lo:
            ok = ok and all(c not in band for c in cells)
            continue
        ps, qs = [P.get((s, a), 0) for a in range(s + 1)], [Q.get((s, a), 0) for a in range(s + 1)]
        a0 = max(range(s + 1), key=lambda a: ps[a] - ps[s - a])
        d = ps[a0] - ps[s - a0]
        if d == 0 or any(c not in band for c in cells):
            return SymbolicCheck(False, "a kept cell is missing or uninformative", "")
        th = (ps[a0] - band[(s - 1, a0)][0]) / d
        ok = ok and 0 <= th <= R(1, 2)
        for a in range(s + 1):
            ok = ok and band[(s - 1, a)] == ((1 - th) * ps[a] + th * ps[s - a], (1 - th) * qs[a] + th * qs[s - a])
    two_b = {(x, y): (band[x][0] * band[y][0], band[x][1] * band[y][1]) for x in band for y in band}
    two_s = {(x, y): (P[x] * P[y], Q.get(x, 0) * Q.get(y, 0)) for x in P for y in P}

    def hs(at: dict, al: Any) -> Any:
        return sum((max(pp - al * qq, 0) for pp, qq in at.values()), sp.Integer(0))

    stat = {key: (v, Q.get(key, 0)) for key, v in P.items()}
    for al in (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(4), R(6)):
        ok = ok and hs(lvl1, al) <= hs(band, al) <= hs(stat, al)
        ok = ok and hs(two_b, al) <= hs(two_s, al)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (3-RR, e^eps0 = 2, n = 7, 3 bands): each kept cell is the reflection garbling of the brute-force "
        "statistic's cell with theta in [0, 1/2]; H_alpha(one level) <= H_alpha(banded) <= H_alpha(statistic) and, "
        "for T = 2, H_alpha(banded^2) <= H_alpha(statistic^2) at 9 values of alpha",
        "the inequality itself is the post-processing inequality (the banded pair is a garbling of one statistic)",
    )


BANDED_PAIR = TABLE.register(
    "Banded third-value lower pair",
    statement=sp.Ge(delta_T(epsilon), H_banded(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "T rounds of k-RR (k >= 3) or of a frequency oracle with a triple hit law on the datasets x z^(n-1) versus "
            "x' z^(n-1); each round's reports reduced to (N, A) (reports in the two informative classes, and in the "
            "first); cells N < m_lo dropped; the cells of each band [m_b, m_(b+1) - 1] reflected A -> N - A so that "
            "their posterior level becomes w_b <= w(m_b) (w(s) non-decreasing in s)",
        ),
    ),
    symbolic=_check_banded,
    symbols=(k_s, n_s),
)

delta_one = sp.Function("\\delta_{M_j}")


def _check_one_round(r) -> SymbolicCheck:
    """ "A composition is never below one of its rounds" at T = 2, exact rationals: two different shuffled binary RR
    rounds (e^{ε0} = 3 and 2, n = 3, the datasets c = 0: laws of each round's count of 1s), the product law's
    ``H_α`` is at least each round's own at 9 values of α ≥ 1 (dropping the other round's output is a
    post-processing).  An instance, not a proof: ``proved`` is ``None``, ``False`` when an instance fails."""
    R = sp.Rational
    n = 3
    laws = []
    for e in (R(3), R(2)):
        f, p = 1 / (e + 1), e / (e + 1)
        laws.append((_convolve(_bin_law(n - 1, f), _bin_law(1, p)), _convolve(_bin_law(n - 1, f), _bin_law(1, f))))
    (p1, q1), (p2, q2) = laws
    prod_p, prod_q = _product_law(p1, p2), _product_law(q1, q2)
    ok = True
    for al in (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(6), R(9)):
        both = _hockey_laws(prod_p, prod_q, al)
        ok = ok and both >= _hockey_laws(p1, q1, al) and both >= _hockey_laws(p2, q2, al)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals at T = 2 (two binary RR rounds, e^eps0 = 3 and 2, n = 3, datasets c = 0): H_alpha of the "
        "product law >= each round's own at 9 values of alpha",
        "the inequality itself is the data-processing inequality (the other rounds' outputs dropped)",
    )


ONE_ROUND_LOWER = TABLE.register(
    "Composition never below one round",
    statement=sp.Ge(delta_T(epsilon), delta_one(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "M_1, ..., M_T run on the same pair of neighbouring datasets with independent randomness (each may see the "
            "earlier outputs); delta_{M_j} is round j's own delta on that pair",
        ),
    ),
    symbolic=_check_one_round,
    symbols=(n_s,),
)

H_stratum = sp.Function("H_{e^{\\epsilon}}(P_D^{\\times T} \\| Q_D^{\\times T})")


def _oue_outputs(k: int, e: int, n: int, value: int, w: tuple | None) -> dict:
    """OUE (``k``, ``e^{ε0} = e``) on ``value z^{n−1}`` (``z = 2``; ``x = 0``, ``x' = 1``): the law of the count ``D``
    with weights ``w`` (module docstring of :mod:`blanket.exact.accounting.stratum_lower`), or with ``w = None`` of the
    whole shuffled output (the sorted tuple of bit vectors), from the bit probabilities ``p = 1/2``,
    ``q = 1/(e+1)`` directly.  Exact ``fmpq``.  O(2^{kn})."""
    import itertools

    from flint import fmpq

    p, q = fmpq(1, 2), fmpq(1, e + 1)

    def law(v: int) -> list:
        out = []
        for bits in itertools.product((0, 1), repeat=k):
            pr = fmpq(1)
            for i, b in enumerate(bits):
                t = p if i == v else q
                pr *= t if b else 1 - t
            out.append((bits, pr))
        return out

    dist: dict = {}
    for combo in itertools.product(*([law(value)] + [law(2)] * (n - 1))):
        pr = fmpq(1)
        for _b, pp in combo:
            pr *= pp
        if w is None:
            key: Any = tuple(sorted(b for b, _p in combo))
        else:
            key = sum((w[1] if b[2] else w[0]) * (b[0] - b[1]) for b, _p in combo)
        dist[key] = dist.get(key, fmpq(0)) + pr
    return dist


def _check_stratum(r) -> SymbolicCheck:
    """The two-stratum count lower pair (docs/composition.md §1, "The two-stratum count") on an exact instance: OUE
    k = 4, ``e^{ε0} = 3``, n = 3, weights (3, 1) (:func:`blanket.exact.accounting.stratum_lower.two_stratum_pair`).
    In exact rationals: (i) the pair's law equals the brute-force law of ``D`` read off every outcome of the n users'
    bit vectors, (ii) ``H_α(pair) ≤ H_α(whole shuffled output)`` at 6 values of α ≥ 1, (iii) at n = 3 the count with
    weights (7, 1) determines both strata's differences, so (3, 1) and (1, 0) are functions of it:
    ``H_α((1, 0)) ≤ H_α((7, 1))``, ``H_α((3, 1)) ≤ H_α((7, 1))`` and, for ``T = 2``,
    ``H_α((3, 1)^2) ≤ H_α((7, 1)^2)``.  An instance, not a proof: ``proved`` is ``None``, ``False`` when a check
    fails."""
    from blanket.exact.accounting import stratum_lower as _stratum  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.oracles import OUE
    from flint import fmpq

    k, e, n = 4, 3, 3
    mech = OUE(k, exp_epsilon0=e)

    def pair(w: tuple) -> dict:
        sp = _stratum.two_stratum_pair(mech, n, w)
        return {} if sp is None else {key[0]: (pp, qq) for key, pp, qq in sp.atoms()}

    main, fine, coarse = pair((3, 1)), pair((7, 1)), pair((1, 0))
    bp, bq = _oue_outputs(k, e, n, 0, (3, 1)), _oue_outputs(k, e, n, 1, (3, 1))
    ok = set(main) == set(bp) | set(bq)
    ok = ok and all(main[d] == (bp.get(d, fmpq(0)), bq.get(d, fmpq(0))) for d in main)
    fp, fq = _oue_outputs(k, e, n, 0, None), _oue_outputs(k, e, n, 1, None)
    full = {key: (v, fq.get(key, fmpq(0))) for key, v in fp.items()}

    def hs(at: dict, al: Any) -> Any:
        return sum((max(pp - al * qq, fmpq(0)) for pp, qq in at.values()), fmpq(0))

    def sq(at: dict) -> dict:
        return {(x, y): (at[x][0] * at[y][0], at[x][1] * at[y][1]) for x in at for y in at}

    main2, fine2 = sq(main), sq(fine)
    for al in (fmpq(1), fmpq(5, 4), fmpq(3, 2), fmpq(2), fmpq(3), fmpq(5)):
        ok = ok and hs(main, al) <= hs(full, al) and hs(fine, al) <= hs(full, al)
        ok = ok and hs(coarse, al) <= hs(fine, al) and hs(main, al) <= hs(fine, al)
        ok = ok and hs(main2, al) <= hs(fine2, al)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (OUE k = 4, e^eps0 = 3, n = 3): the pair's law of D = 3 (h_x - h_x') [h_z = 0] + "
        "(h_x - h_x') [h_z = 1] equals the brute-force law over the users' bit vectors; H_alpha(pair) <= H_alpha(whole "
        "shuffled output); H_alpha of the counts (1, 0) and (3, 1), and for T = 2 of (3, 1)^2, at most that of (7, 1) "
        "(which determines both strata at n = 3), at 6 values of alpha",
        "the inequality itself is the post-processing inequality (D is a function of the shuffled output)",
    )


STRATUM_PAIR = TABLE.register(
    "Two-stratum count lower pair",
    statement=sp.Ge(delta_T(epsilon), H_stratum(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "T rounds of a frequency oracle with a triple hit law on the datasets x z^(n-1) versus x' z^(n-1); each "
            "round's output reduced to D = sum over reports of w_0 (h_x - h_x') on the reports with h_z = 0 and "
            "w_1 (h_x - h_x') on those with h_z = 1 (fixed integers w_0, w_1); atoms whose law is not enclosed dropped",
        ),
    ),
    symbolic=_check_stratum,
    symbols=(k_s, n_s),
)

H_curve = sp.Function("H_{\\alpha}(P_U \\| Q_U)")
E_worst = sp.Function("E")


def _check_curve(r) -> SymbolicCheck:
    """The worst-case curve pair (docs/composition.md §5d) on an exact instance: binary RR, ``e^{ε0} = 3``, n = 4.
    ``E(α)``, the largest ``H_α`` over every neighbouring pair of datasets (others holding ``c = 0..3`` ones, both
    orders), is computed in exact rationals from the count laws; the pair of the greatest convex minorant of
    ``(α_j, E(α_j))`` on a five-point grid (``curves.pair_from_values``, with the reflections and ``α_max = e^{ε0}``)
    must (i) reproduce the hull at its vertices (a convex piecewise-linear curve is a finite pair), (ii) lie at or above
    ``E`` at 61 values of α in ``[0, 4]``, between grid points and below 1 included (the hull of upper values of a
    convex function dominates it), and (iii) lie at or below the hull through *every* grid point that was not a
    vertex.  An instance, not a proof (the argument is §5d's): ``proved`` is ``None``, ``False`` when any check fails."""
    from blanket.exact.accounting import curves as _curves  # proofs -> exact (the layer order)

    R = sp.Rational
    e, n = 3, 4
    f, p = R(1, e + 1), R(e, e + 1)

    def law(c: int, target: Any) -> dict:
        out = _convolve(_bin_law(c, p), _bin_law(n - 1 - c, f))
        return _convolve(out, _bin_law(1, target))

    pairs = [(law(c, p), law(c, f)) for c in range(n)]

    def worst(al: Any) -> Any:
        return max(max(_hockey_laws(a, b, al), _hockey_laws(b, a, al)) for a, b in pairs)

    grid = [R(1), R(5, 4), R(3, 2), R(2), R(5, 2)]
    vals = [(a, worst(a)) for a in grid]
    pair = _curves.pair_from_values([(int_q(a), int_q(v)) for a, v in vals], alpha_max=e, description="check")
    ok = True
    for a, v in vals:
        ok = ok and q_int(pair.hockey_stick(int_q(a))) <= v  # (i)/(iii): never above a certified value
    for k in range(61):
        al = R(k, 15)
        ok = ok and q_int(pair.hockey_stick(int_q(al))) >= worst(al)  # (ii): dominates E everywhere
    return SymbolicCheck(
        None if ok else False,
        "exact instance (binary RR, e^eps0 = 3, n = 4, every dataset, both orders): the hull pair of E on 5 grid "
        "points is <= E's values there and >= E at 61 values of alpha in [0, 4]",
        "the theorem (convex PL curve = finite pair; hull of upper values of a convex function dominates it) is "
        "docs/composition.md §5d",
    )


def int_q(x: Any) -> Any:
    """A sympy Rational as a flint fmpq (exact)."""
    from flint import fmpq

    x = sp.Rational(x)
    return fmpq(int(x.p), int(x.q))


def q_int(x: Any) -> Any:
    """A flint fmpq as a sympy Rational (exact)."""
    return sp.Rational(int(x.p), int(x.q))


CURVE_PAIR = TABLE.register(
    "Worst-case curve pair",
    statement=sp.Ge(H_curve(alpha), E_worst(alpha)),
    hypotheses=(
        Hypothesis(
            sp.true,
            "U_j >= E(alpha_j) are certified upper values of the worst-case privacy curve E(alpha) = sup over "
            "neighbouring pairs (both orders) of H_alpha at grid points alpha_j >= 1; (P_U, Q_U) is the finite pair of "
            "the greatest convex minorant of the points (0, 1), (alpha_j, U_j), their reflections (1/alpha_j, "
            "1 - 1/alpha_j + U_j/alpha_j) and, with alpha_max >= e^epsilon0, (alpha_max, 0)",
        ),
    ),
    symbolic=_check_curve,
    symbols=(),
)

H_dataset = sp.Function("H_{\\alpha}(P_R^{\\times T} \\| Q_R^{\\times T})")
delta_dataset = sp.Function("H_{\\alpha}(P_{D_1}^{\\times T} \\| P_{D_0}^{\\times T})")


def dataset_curve_instance(mutant: Any = 0) -> tuple:
    """The dataset-curve lower pair (docs/reference/blanket.md §4, "The dataset pair's whole curve") on an instance:
    Laplace ε0 = 1, n = 3, lattice step 1/64, 96 lines per law.  Returns ``(ok_T1, ok_T2)``: the ROC pair ``R``
    (:func:`blanket.exact.shuffled.continuous_dataset.dataset_roc_points`, every ``y̲`` raised by ``mutant``) against
    an *upper* pair ``U`` of the same datasets: the greatest convex minorant of certified upper values of
    ``F(α) = H_α(P_{D1}‖P_{D0})`` (the upper side of the same lattice engine: at ``α ≥ 1`` the view (1, 0), below 1
    ``1 − α + α·G(1/α)`` with ``G`` the view (0, 1)), which lies at or above ``F`` (a convex function below all the
    points).  ``ok_T1``: ``H_α(R) ≤ H_α(U)`` at 41 values of α in ``(0, 2.5]``; ``ok_T2``: ``H_α(R×R) ≤ H_α(U×U)`` at 9
    values of α ≥ 1 (exact products).  About two seconds."""
    import math

    from blanket.exact.accounting import curves as _curves  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.continuous import Laplace
    from blanket.exact.shuffled import continuous as _view
    from blanket.exact.shuffled import continuous_dataset as _dataset
    from flint import fmpq

    mech, n, h = Laplace(1), 3, fmpq(1, 64)
    m = mutant if isinstance(mutant, fmpq) else fmpq(mutant)
    pts = [(x, min(fmpq(1), y + m)) for x, y in _dataset.dataset_roc_points(mech, n, h=h, lines=96)]
    low = _curves.pair_from_roc(pts, description="dataset curve (instance)")
    z = _dataset.at_zero(mech)
    ups = [(fmpq(0), fmpq(1))]
    for k in range(0, 25):
        a = fmpq(int(math.exp(k / 12) * 2**20), 2**20) if k else fmpq(1)
        f_up = _view.blanket_view(z, n, exp_epsilon=a, x=1, x2=0, h=h).upper
        g_up = _view.blanket_view(z, n, exp_epsilon=a, x=0, x2=1, h=h).upper
        ups += [(a, f_up), (1 / a, 1 - 1 / a + g_up / a)]
    up = _curves._pair_from_vertices(_curves.lower_convex_hull(ups), "upper (instance)")
    ok1 = all(low.hockey_stick(fmpq(k, 16)) <= up.hockey_stick(fmpq(k, 16)) for k in range(1, 41))

    def square(pr: Any) -> Any:
        return [(p1 * p2, q1 * q2) for _r1, p1, q1 in pr.masses for _r2, p2, q2 in pr.masses]

    def hs(at: list, al: Any) -> Any:
        return sum((pp - al * qq for pp, qq in at if pp - al * qq > 0), fmpq(0))

    l2, u2 = square(low), square(up)
    ok2 = all(
        hs(l2, al) <= hs(u2, al) for al in (fmpq(1), *(fmpq(int(math.exp(k / 8) * 2**20), 2**20) for k in range(1, 9)))
    )
    return ok1, ok2


def geometric_dataset_curve_instance(mutant: Any = 0) -> tuple:
    """The same statement for a geometric round (docs/composition.md §5e, "A geometric round's dataset-curve lower
    pair"): the truncated geometric mechanism m = 3, α = 1/2, n = 3, lattice step 1/256, 128 lines per law
    (:func:`blanket.exact.shuffled.geometric_dataset.dataset_roc_points`, every ``y̲`` raised by ``mutant``) against
    the *exact* histogram laws of ``(2, 0, 0)`` and ``(0, 0, 0)`` (enumerated).  Returns ``(ok_T1, ok_T2)``: the ROC
    pair's ``H_α`` at most the exact pair's at 20 values of α in ``(0, 4]``, both orders, for T = 1 and for the exact
    T = 2 products.  Well under a second."""
    from blanket.exact.accounting import curves as _curves  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.shuffled import geometric_dataset as _gdata
    from blanket.exact.shuffled.enumerate import histogram_law
    from flint import fmpq

    mech, n = Geometric(3, alpha="1/2"), 3
    m = mutant if isinstance(mutant, fmpq) else fmpq(mutant)
    pts = [(x, min(fmpq(1), y + m)) for x, y in _gdata.dataset_roc_points(mech, n, h=fmpq(1, 256), lines=128)]
    low = _curves.pair_from_roc(pts, description="geometric dataset curve (instance)")
    rows = mech.rows()
    p_law, q_law = histogram_law(rows, [2, 0, 0]), histogram_law(rows, [0, 0, 0])
    keys = sorted(set(p_law) | set(q_law))
    ex = [(fmpq(p_law.get(k, 0)), fmpq(q_law.get(k, 0))) for k in keys]
    alphas = [fmpq(k, 8) for k in range(1, 9)] + [fmpq(k, 4) for k in range(5, 17)]

    def hs(at: list, al: Any) -> Any:
        return sum((pp - al * qq for pp, qq in at if pp - al * qq > 0), fmpq(0))

    def square(at: list) -> list:
        return [(p1 * p2, q1 * q2) for p1, q1 in at for p2, q2 in at]

    ok1 = ok2 = True
    for lo, up in (
        ([(p, q) for _r, p, q in low.masses], ex),
        ([(p, q) for _r, p, q in _curves.swapped(low).masses], [(q, p) for p, q in ex]),
    ):
        l2, u2 = square(lo), square(up)
        ok1 = ok1 and all(hs(lo, al) <= hs(up, al) for al in alphas)
        ok2 = ok2 and all(hs(l2, al) <= hs(u2, al) for al in alphas)
    return ok1, ok2


def _check_dataset_curve(r) -> SymbolicCheck:
    """The dataset-curve lower pair of the continuous rounds on an instance (:func:`dataset_curve_instance`): the pair
    must lie at or below an upper pair of the same datasets at T = 1 and T = 2, and a mutant whose test points are
    raised by 1/200 must fail at T = 2 (so the check can fail).  ``proved`` is ``None``, ``False`` when a check
    fails."""
    from flint import fmpq

    ok1, ok2 = dataset_curve_instance()
    _m1, m2 = dataset_curve_instance(fmpq(1, 200))
    g1, g2 = geometric_dataset_curve_instance()
    _gm1, gm2 = geometric_dataset_curve_instance(fmpq(1, 100))
    ok = ok1 and ok2 and not m2 and g1 and g2 and not gm2
    return SymbolicCheck(
        None if ok else False,
        "Laplace eps0 = 1, n = 3, lattice step 1/64: the ROC pair of the certified lines of 0^n vs 1 0^(n-1) lies at or "
        "below an upper pair of the same datasets (hull of the lattice's certified upper values, both orders) at 40 "
        "values of alpha (T = 1) and 9 values of alpha >= 1 for the exact T = 2 products; the mutant with every test "
        "point raised by 1/200 exceeds the upper T = 2 product; geometric m = 3, alpha = 1/2, n = 3, step 1/256: "
        "the ROC pair of (2, 0, 0) vs 0^3 at or below the exact enumerated pair (both orders, T = 1 and exact T = 2 "
        "products, 20 values of alpha), the mutant raised by 1/100 exceeds it",
        "the inequality itself is Blackwell's theorem for dichotomies (a pair whose curve is below another's at every "
        "alpha is a garbling of it) and the post-processing inequality for products",
    )


DATASET_CURVE = TABLE.register(
    "Continuous dataset-curve lower pair",
    statement=sp.Ge(delta_dataset(alpha), H_dataset(alpha)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "(P_R, Q_R) is the finite pair of the upper concave ROC hull of points (x, y) with H_beta(P_D1 || P_D0) >= "
            "y - beta x for every beta >= 0 (D1 = 1 0^(n-1), D0 = 0^n, one shuffled Laplace or Gaussian round; "
            "or D1 = (m-1) 0^(n-1), D0 = 0^n, one shuffled truncated geometric round: any record whose dataset pair "
            "has a certified lattice lower side)",
        ),
    ),
    symbolic=_check_dataset_curve,
    symbols=(n_s,),
)

H_bin = sp.Function(
    "H_{e^{\\epsilon}}(\\mathrm{Bin}(T(n-1), q_z) + \\mathrm{Bin}(T, q_x) \\| "
    "\\mathrm{Bin}(T(n-1), q_z) + \\mathrm{Bin}(T, q_{x'}))"
)


def _histogram_law(rows: list, n_rows: int, k_out: int) -> dict:
    """The exact law of the shuffled output (the histogram of reports) of users holding the inputs ``rows`` (a list of
    distributions over ``k_out`` outputs): a dict from count vectors to sympy Rationals.  O(outputs^n)."""
    law: dict = {(0,) * k_out: sp.Integer(1)}
    for dist in rows:
        nxt: dict = {}
        for h, pr in law.items():
            for y in range(k_out):
                if dist[y] == 0:
                    continue
                g = list(h)
                g[y] += 1
                key = tuple(g)
                nxt[key] = nxt.get(key, 0) + pr * dist[y]
        law = nxt
    return law


def _check_binarized(r) -> SymbolicCheck:
    """The matrix binarized lower pair (docs/composition.md §5e "A lower pair at any n") on an exact instance: the
    3 × 3 matrix of examples/matrix_3x3.csv, n = 3, the candidate ``(x, x', z, B)`` the accountant composes
    (:func:`blanket.exact.accounting.matrix_lower.composition_choice`).  In exact rationals: (i) the push-forward of
    the exact histogram law of the dataset pair (others hold z, target x vs x') by S = the count of reports in B is the
    closed form ``Bin(n − 1, q_z) + Bern(q_x)`` vs ``... + Bern(q_{x'})``; (ii) its ``H_α`` is at most the histogram
    pair's at 9 values of α (data processing, instance) and at most the exhaustive worst case over every dataset pair;
    (iii) over T = 2 rounds the sum of the counts pushed forward from the product of the histogram laws is
    ``Bin(T(n − 1), q_z) + Bin(T, q_x)`` vs ``Bin(T, q_{x'})``, and its ``H_α`` is at most the product's.  Not a proof
    (the inequality is the post-processing inequality): ``proved`` is ``None``, ``False`` when an instance fails."""
    from blanket.exact.accounting import matrix_lower as _ml  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    R = sp.Rational
    m = [[R(1, 2), R(1, 4), R(1, 4)], [R(1, 4), R(1, 2), R(1, 4)], [R(1, 6), R(1, 3), R(1, 2)]]
    n, k = 3, 3
    c = _ml.composition_choice(FiniteRandomizer([[int_q(v) for v in row] for row in m]))
    B = set(c.outputs)
    qx, qx2, qz = (sum((m[u][y] for y in B), sp.Integer(0)) for u in (c.x, c.x2, c.z))
    ok = (q_int(c.q_x), q_int(c.q_x2), q_int(c.q_z)) == (qx, qx2, qz) and qx > qx2
    hp = _histogram_law([m[c.z]] * (n - 1) + [m[c.x]], n, k)
    hq = _histogram_law([m[c.z]] * (n - 1) + [m[c.x2]], n, k)

    def push(law: dict) -> dict:
        out: dict = {}
        for h, pr in law.items():
            s_ = sum(h[y] for y in B)
            out[s_] = out.get(s_, 0) + pr
        return out

    sp_, sq_ = push(hp), push(hq)
    closed_p = _convolve(_bin_law(n - 1, qz), _bin_law(1, qx))
    closed_q = _convolve(_bin_law(n - 1, qz), _bin_law(1, qx2))
    ok = ok and all(sp.simplify(sp_.get(s_, 0) - closed_p.get(s_, 0)) == 0 for s_ in set(sp_) | set(closed_p))
    ok = ok and all(sp.simplify(sq_.get(s_, 0) - closed_q.get(s_, 0)) == 0 for s_ in set(sq_) | set(closed_q))
    # the exhaustive worst case over every dataset pair (others' multiset, target's two values), both orders
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(4), R(6))
    for al, worst in zip(alphas, _worst_hockeys(m, n, alphas)):
        h_s = _hockey_laws(closed_p, closed_q, al)
        ok = ok and h_s <= _hockey_laws(hp, hq, al)
        ok = ok and h_s <= worst
    # T = 2: the product of the two rounds' histogram laws, pushed forward by the sum of the counts
    T = 2
    prod_p = {(a, b): hp[a] * hp[b] for a in hp for b in hp}
    prod_q = {(a, b): hq[a] * hq[b] for a in hq for b in hq}

    def push2(law: dict) -> dict:
        out: dict = {}
        for (a, b), pr in law.items():
            s_ = sum(a[y] for y in B) + sum(b[y] for y in B)
            out[s_] = out.get(s_, 0) + pr
        return out

    s2p, s2q = push2(prod_p), push2(prod_q)
    c2p = _convolve(_bin_law(T * (n - 1), qz), _bin_law(T, qx))
    c2q = _convolve(_bin_law(T * (n - 1), qz), _bin_law(T, qx2))
    ok = ok and all(sp.simplify(s2p.get(s_, 0) - c2p.get(s_, 0)) == 0 for s_ in set(s2p) | set(c2p))
    ok = ok and all(sp.simplify(s2q.get(s_, 0) - c2q.get(s_, 0)) == 0 for s_ in set(s2q) | set(c2q))
    for al in alphas:
        ok = ok and _hockey_laws(c2p, c2q, al) <= _hockey_laws(prod_p, prod_q, al)
    ok = ok and _sampled_binarized_instance(m, n, alphas)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (examples/matrix_3x3.csv, n = 3, the accountant's choice of x, x', z, B): the count in B "
        "pushed forward from the histogram laws = Bin(n-1, q_z) + Bern(q_x) vs Bern(q_x'); its H_alpha <= the pair's "
        "and <= the exhaustive worst case at 9 values of alpha; T = 2: the summed count = Bin(T(n-1), q_z) + Bin(T, q_x) "
        "vs Bin(T, q_x'), H_alpha <= the product's; sampled (q = 1/2, the matrix R_q with a no-report column): the "
        "accountant's sampled pair (matrix_lower.shift_pair with q) = the count pushed forward from R_q's histogram "
        "laws, H_alpha <= R_q's exhaustive worst case",
        "the inequality itself is the post-processing (data-processing) inequality",
    )


def _sampled_rows(m: list, q: Any) -> list:
    """The sampled randomizer ``R_q`` of a matrix (docs/composition.md §5f, Lemma S0): each row scaled by ``q`` and a
    last column ``⊥`` (no report) of mass ``1 − q``.  O(size)."""
    return [[q * v for v in row] + [1 - q] for row in m]


def _worst_hockeys(m: list, n: int, alphas: tuple) -> list:
    """The exhaustive worst ``H_α`` of the shuffle of ``n`` users of the matrix ``m`` over every neighbouring dataset
    pair (the others' multiset, the target's two values, both orders), exact, at each ``α`` of ``alphas``.
    O(k_in^(n+1) · k_out^n) for the laws, then O(len(alphas)) hockey sums per pair."""
    import itertools

    k_in, k_out = len(m), len(m[0])
    laws = {u: _histogram_law([m[i] for i in u], n, k_out) for u in itertools.product(range(k_in), repeat=n)}
    return _worst_of_laws(laws, k_in, n, alphas)


def _worst_of_laws(laws: dict, k_in: int, n: int, alphas: Any) -> list:
    """The exhaustive worst ``H_α`` over every neighbouring dataset pair, given the exact law of the released output
    of every dataset (``laws``, keyed by the tuple of the ``n`` users' inputs in ``range(k_in)``): the others'
    multiset, the target's two values, both orders; one value per ``α`` of ``alphas``.  O(pairs · len(alphas))
    hockey sums."""
    import itertools

    pairs = [
        (laws[(*others, x)], laws[(*others, x2)])
        for others in itertools.combinations_with_replacement(range(k_in), n - 1)
        for x, x2 in itertools.permutations(range(k_in), 2)
    ]
    return [max(_hockey_laws(a, b, al) for a, b in pairs) for al in alphas]


def _sampled_binarized_instance(m: list, n: int, alphas: tuple) -> bool:
    """The sampled matrix round's lower pair (docs/composition.md §5f, "A sampled matrix round's lower pair") at
    ``q = 1/2``: the K-law of :func:`blanket.exact.accounting.matrix_lower.shift_pair` with ``q`` (both directions;
    backward: the users without a report in B) equals the push-forward of the exact histogram laws of ``R_q`` on
    the chosen dataset pair, and its ``H_α`` is at most ``R_q``'s exhaustive worst case.  O(outputs^n)."""
    from blanket.exact.accounting import matrix_lower as _ml
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    q = sp.Rational(1, 2)
    mq = _sampled_rows(m, q)
    c = _ml.sampled_choice(FiniteRandomizer([[int_q(v) for v in row] for row in m]), int_q(q))
    B = set(c.outputs)  # outputs of R, never the no-report column
    hp = _histogram_law([mq[c.z]] * (n - 1) + [mq[c.x]], n, len(mq[0]))
    hq = _histogram_law([mq[c.z]] * (n - 1) + [mq[c.x2]], n, len(mq[0]))
    worst = dict(zip(alphas, _worst_hockeys(mq, n, alphas)))
    ok = True
    for direction in ("forward", "backward"):

        def count(h: tuple, direction: str = direction) -> int:
            s_ = sum(h[y] for y in B)
            return s_ if direction == "forward" else n - s_

        pp, qq = (hp, hq) if direction == "forward" else (hq, hp)
        pushed_p: dict = {}
        pushed_q: dict = {}
        for h, pr in pp.items():
            pushed_p[count(h)] = pushed_p.get(count(h), 0) + pr
        for h, pr in qq.items():
            pushed_q[count(h)] = pushed_q.get(count(h), 0) + pr
        pair_p: dict = {}
        pair_q: dict = {}
        for (_c, k_), a, b in _ml.shift_pair(c, n, direction, q=int_q(q)).atoms():
            pair_p[k_] = pair_p.get(k_, 0) + q_int(a)
            pair_q[k_] = pair_q.get(k_, 0) + q_int(b)
        keys = set(pushed_p) | set(pair_p) | set(pushed_q) | set(pair_q)
        ok = ok and all(pushed_p.get(s_, 0) == pair_p.get(s_, 0) for s_ in keys)
        ok = ok and all(pushed_q.get(s_, 0) == pair_q.get(s_, 0) for s_ in keys)
        for al in alphas:
            ok = ok and _hockey_laws(pair_p, pair_q, al) <= worst[al]
    return bool(ok)


MATRIX_BINARIZED = TABLE.register(
    "Matrix binarized lower pair",
    statement=sp.Ge(delta_T(epsilon), H_bin(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "T shuffled rounds of one matrix randomizer R on the datasets where every other user holds z and the "
            "target x versus x'; the adversary keeps only the total number of reports in a set B of outputs; "
            "q_u = sum over y in B of R(u)(y), q_x > q_x'",
        ),
    ),
    symbolic=_check_binarized,
    symbols=(n_s,),
)


H_clone = sp.Function("H_{e^{\\epsilon}}(P_{clone} \\| Q_{clone})")


def _check_clone(r) -> SymbolicCheck:
    """The FOCS 2021 clone pair (docs/reference/beyond.md §1) on exact instances: the 3 × 3 matrix of
    examples/matrix_3x3.csv (``e^{ε0} = 3``, not k-RR), its sampled randomizer ``R_q`` (``q = 1/2``, a no-report
    column; ε0-LDP with the same ``e^{ε0}``, docs/composition.md §5f Lemma S0) and binary RR (``e^{ε0} = 3``), ``n = 3``: the exhaustive worst
    ``H_α`` over every neighbouring dataset pair (exact histogram laws) is at most ``H_α`` of the accountant's clone
    pair (:func:`blanket.exact.accounting.pairs.clone_pair`, its exact atoms) at 9 values of ``α ≥ 1`` (the pair
    is symmetric and both orders are enumerated).  Instances, not a proof: ``proved`` is ``None``, ``False`` when
    one fails (e.g. a pair with every other user a clone: binary RR's worst case lies above it)."""
    from blanket.exact.accounting.pairs import clone_pair  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    R = sp.Rational
    m = [[R(1, 2), R(1, 4), R(1, 4)], [R(1, 4), R(1, 2), R(1, 4)], [R(1, 6), R(1, 3), R(1, 2)]]
    n = 3
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(29, 10), R(3), R(4))
    ok = True
    rr = [[R(3, 4), R(1, 4)], [R(1, 4), R(3, 4)]]  # binary RR, e^{ε0} = 3: its worst case is closest to the pair
    for rows in (m, _sampled_rows(m, R(1, 2)), rr):
        pair = clone_pair(FiniteRandomizer([[int_q(v) for v in row] for row in rows]), n).atoms()
        cp = {key: q_int(a) for key, a, _b in pair}
        cq = {key: q_int(b) for key, _a, b in pair}
        for al, worst in zip(alphas, _worst_hockeys(rows, n, alphas)):
            ok = ok and worst <= _hockey_laws(cp, cq, al)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (examples/matrix_3x3.csv, e^epsilon0 = 3, its sampled randomizer R_q, q = 1/2, and binary RR "
        "with e^epsilon0 = 3; n = 3): "
        "the exhaustive worst H_alpha over every neighbouring dataset pair <= H_alpha of the clone pair at 9 values "
        "of alpha >= 1",
        "the reduction itself is FMT21's (docs/reference/beyond.md §1: corroborated, theorem text not read)",
    )


CLONE_PAIR = TABLE.register(
    "FMT21 clone pair",
    statement=sp.Le(delta_M(epsilon), H_clone(epsilon)),
    hypotheses=(
        Hypothesis(
            sp.true,
            "n users, each report the output of an epsilon0-LDP randomizer (FMT21's model: possibly chosen "
            "adaptively from earlier reports, applied to the randomly permuted data); replace-one neighbours; the "
            "shuffler releases the multiset of reports; P_clone, Q_clone built with C ~ Bin(n - 1, e^(-epsilon0))",
        ),
    ),
    symbolic=_check_clone,
)

H_rq = sp.Function("H_{e^{\\epsilon}}(P_{R_q} \\| Q_{R_q})")
H_sbw = sp.Function("\\max_{1 \\le C \\le n} H_{e^{\\epsilon}}(P_C \\| P_{C-1})")


def _participation_law(m: list, users: list, q: Any) -> dict:
    """The exact law of the released multiset of reports (a histogram over ``R``'s outputs only; the number of
    reports is its total) when each user of ``users`` takes part independently w.p. ``q`` and then reports ``R(x)``:
    enumerated by participation, without building ``R_q``.  O((k_out + 1)^n)."""
    k_out = len(m[0])
    law: dict = {(0,) * k_out: sp.Integer(1)}
    for x in users:
        nxt: dict = {}
        for h, pr in law.items():
            nxt[h] = nxt.get(h, 0) + pr * (1 - q)  # no report
            for y in range(k_out):
                if m[x][y] == 0:
                    continue
                g = list(h)
                g[y] += 1
                nxt[tuple(g)] = nxt.get(tuple(g), 0) + pr * q * m[x][y]
        law = nxt
    return law


def _check_sampled_matrix(r) -> SymbolicCheck:
    """A sampled matrix round's upper end through ``R_q`` (docs/composition.md §5f, "A sampled matrix round's upper
    end") on exact instances: the 3 × 3 matrix of examples/matrix_3x3.csv, ``n = 3``, ``q = 1/2`` and ``1/5``.  (a)
    For every dataset, the law of the sampled round enumerated by participation equals, through the bijection
    "histogram of ``R_q`` ↔ its restriction to ``R``'s outputs", the histogram law of
    :func:`blanket.exact.accounting.sampled.sampled_randomizer`'s matrix (Lemma S0 on the code's ``R_q``); (b) the
    exhaustive worst ``H_α`` of the sampled round (both orders) is at most ``H_α`` of the curve pair the accountant
    composes for it (``R_q``'s matrix blanket views and clone pair) at 9 values of ``α ≥ 1``.  Instances, not a proof:
    ``proved`` is ``None``, ``False`` when one fails (e.g. ``R_q`` built with ``q²``, or without the ``⊥`` column's
    count: (a) fails)."""
    import itertools

    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.accounting.sampled import Sampled, sampled_randomizer
    from blanket.exact.mechanisms.finite import FiniteRandomizer

    R = sp.Rational
    m = [[R(1, 2), R(1, 4), R(1, 4)], [R(1, 4), R(1, 2), R(1, 4)], [R(1, 6), R(1, 3), R(1, 2)]]
    fm = FiniteRandomizer([[int_q(v) for v in row] for row in m])
    n, k_in, k_out = 3, 3, 3
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(29, 10), R(3), R(4))
    ok = True
    for q in (R(1, 2), R(1, 5)):
        rq = [[q_int(v) for v in row] for row in sampled_randomizer(fm, int_q(q)).matrix()]
        ok = ok and len(rq[0]) == k_out + 1
        laws: dict = {}
        for users in itertools.product(range(k_in), repeat=n):
            direct = _participation_law(m, list(users), q)
            via = _histogram_law([rq[u] for u in users], n, len(rq[0])) if ok else {}
            ok = ok and direct == {h[:k_out]: pr for h, pr in via.items()}
            laws[users] = direct
        worst = _worst_of_laws(laws, k_in, n, alphas)
        ev = Sampled(Shuffled(fm, n), int_q(q))
        cp = ShuffleAccountant()._curve_of(ev)
        ok = ok and cp is not None
        if cp is not None:
            for w, al in zip(worst, alphas):
                ok = ok and w <= q_int(cp.hockey_stick(int_q(al)))
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (examples/matrix_3x3.csv, n = 3, q = 1/2 and 1/5): the sampled round's law enumerated by "
        "participation = the histogram law of the code's R_q with its no-report count dropped, at every dataset; "
        "the exhaustive worst H_alpha over every neighbouring pair <= H_alpha of the accountant's curve pair of R_q "
        "at 9 values of alpha >= 1",
        "Lemma S0 is the identity of the two laws; R_q's curve pair rests on the matrix blanket views (Lemma 5.3) "
        "and the clone pair, as a plain matrix round's",
    )


SAMPLED_MATRIX = TABLE.register(
    "Sampled matrix round through R_q",
    statement=sp.Le(delta_Mq(epsilon), H_rq(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "each user takes part independently w.p. q and reports R(x) of one matrix randomizer R; the multiset of "
            "reports (so their number) is released; replace-one neighbours; (P_{R_q}, Q_{R_q}) a dominating pair "
            "of the shuffle of n outputs of R_q = (1 - q)⊥ + q·R (its curve pair: matrix blanket views, clone pair)",
        ),
    ),
    symbolic=_check_sampled_matrix,
)


def _merged_law(law: list) -> dict:
    """``[(value, prob)]`` with equal values merged, as a dict ``value → total prob`` (exact).  O(len)."""
    out: dict = {}
    for v, pr in law:
        if pr != 0:
            out[v] = out.get(v, 0) + pr
    return out


def _check_sampled_oracle(r) -> SymbolicCheck:
    """A sampled four-value round's upper end through ``R_q`` (docs/composition.md §5f, "A sampled oracle round's
    upper end") on exact instances: OUE with ``k = 3``, ``e^{ε0} = 3`` and SUE with ``k = 3``, ``e^{ε0/2} = 2``,
    ``q = 1/2`` and ``1/5``.  (a) The record :class:`blanket.exact.accounting.sampled.SampledFourValue` has the
    ``γ`` of the explicit matrix ``R_q`` (``R``'s matrix times ``q``, a ``⊥`` column of ``1 − q``) and its four-atom
    law of ``L`` equals the exact amplification law of that matrix (equal values merged) for every ordered input pair
    at ``e^ε ∈ {1, 3/2, 2}``; (b) for OUE, ``n = 3``: the exhaustive worst ``H_α`` of the sampled round (its law
    enumerated by participation) is at most ``H_α`` of the accountant's curve pair at 9 values of ``α ≥ 1``.
    Instances, not a proof: ``proved`` is ``None``, ``False`` when one fails (e.g. ``π_t`` not scaled by
    ``qγ/γ_q``, or ``γ`` for ``γ_q``)."""
    import itertools

    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.accounting.sampled import Sampled, SampledFourValue
    from blanket.exact.mechanisms import oracles
    from blanket.exact.mechanisms.finite import FiniteRandomizer, amplification_law

    R = sp.Rational
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(29, 10), R(3), R(4))
    ok = True
    for rec in (oracles.OUE(3, exp_epsilon0=3), oracles.SUE(3, exp_half_epsilon0=2)):
        m = [[q_int(v) for v in row] for row in rec.rows()]
        for q in (R(1, 2), R(1, 5)):
            sv = SampledFourValue(rec, int_q(q))
            mq = FiniteRandomizer([[int_q(q * v) for v in row] + [int_q(1 - q)] for row in m])
            ok = ok and sv.gamma() == mq.gamma() and sv.exp_epsilon0() == mq.exp_epsilon0()
            ok = ok and sv.gamma_complement() == 1 - mq.gamma()  # the engines' atom at 0 (q(1 − γ), nan12)
            for ee in (int_q(R(1)), int_q(R(3, 2)), int_q(R(2))):
                mine = _merged_law([(q_int(v), q_int(pr)) for v, pr in sv.l_law(exp_epsilon=ee)])
                for x, x2 in itertools.permutations(range(len(m)), 2):
                    law = amplification_law(mq, x, x2, exp_epsilon=ee)
                    ok = ok and mine == _merged_law([(q_int(v), q_int(pr)) for v, pr in law])
            if rec.kind != "oue":
                continue
            n = 3
            laws = {u: _participation_law(m, list(u), q) for u in itertools.product(range(len(m)), repeat=n)}
            worst = _worst_of_laws(laws, len(m), n, alphas)
            cp = ShuffleAccountant()._curve_of(Sampled(Shuffled(rec, n), int_q(q)))
            ok = ok and cp is not None
            if cp is not None:
                for w, al in zip(worst, alphas):
                    ok = ok and w <= q_int(cp.hockey_stick(int_q(al)))
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (OUE k = 3, e^epsilon0 = 3; SUE k = 3, e^(epsilon0/2) = 2; q = 1/2 and 1/5): the sampled "
        "record's gamma and four-atom law of L = those of the explicit matrix R_q (every ordered input pair, "
        "e^epsilon in {1, 3/2, 2}); OUE, n = 3: the exhaustive worst H_alpha of the sampled round (enumerated by "
        "participation) <= H_alpha of the accountant's curve pair at 9 values of alpha >= 1",
        "Lemma S0 and Lemma 5.3 applied to R_q; the four-value engine is the oracles' (blanket_view_upper)",
    )


SAMPLED_ORACLE = TABLE.register(
    "Sampled four-value round through R_q",
    statement=sp.Le(delta_Mq(epsilon), H_rq(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "each user takes part independently w.p. q and reports R(x) of one four-value record R (OUE, SUE, OLH, "
            "Hadamard, subset); the multiset of reports is released; replace-one neighbours; R_q = (1 - q)⊥ + q·R is "
            "the four-value record with gamma_q = 1 - q + q·gamma, pi_both and pi_t times q·gamma/gamma_q",
        ),
    ),
    symbolic=_check_sampled_oracle,
)


def _check_sampled_geometric(r) -> SymbolicCheck:
    """A sampled truncated geometric round's upper end by the four-knot law (docs/composition.md §5f, "A sampled
    geometric round's upper end") on exact instances: ``m = 3`` (α = 1/2, 2/3) and ``m = 4`` (α = 1/2), ``n = 2, 3``,
    ``q = 1/2`` and ``1/5``, four values of ``e^ε``.  (a) The view's variable of the explicit matrix ``R_q`` (``R``'s
    rows times ``q``, a ``⊥`` column of ``1 − q``) for every ordered input pair is ``(γ_q/γ)·((1 − q)·δ_c + q·V)``,
    ``c = γ(1 − e^ε)``: its stop-loss transform at the four knots of ``(γ_q/γ)·((1 − q)·δ_c + q·W)`` is at most that
    law's (the increasing convex order at the knots, exact); (b) the exhaustive worst ``H_{e^ε}`` of the sampled round
    (its law enumerated by participation, every dataset, both orders) is at most the code's bound
    (:func:`blanket.exact.shuffled.geometric.sampled_geometric_upper`).  Instances, not a proof (the mixture step is
    the docs'): ``proved`` is ``None``, ``False`` when one fails (e.g. ``q²`` for ``q``, or the factor ``γ_q/γ``
    dropped: (b) fails)."""
    import itertools

    from blanket.exact.mechanisms.finite import FiniteRandomizer, amplification_law
    from blanket.exact.mechanisms.oracles import Geometric
    from blanket.exact.shuffled.geometric import dominating_law, sampled_geometric_upper

    R = sp.Rational
    ok = True
    for mm, a in ((3, R(1, 2)), (3, R(2, 3)), (4, R(1, 2))):
        g = Geometric(mm, alpha=int_q(a))
        rows = [[q_int(v) for v in row] for row in g.rows()]
        gam, e = q_int(g.gamma()), q_int(g.exp_epsilon0())
        ees = (R(1), R(3, 2), R(2), (1 + e) / 2)
        for q in (R(1, 2), R(1, 5)):
            mq = FiniteRandomizer([[int_q(q * v) for v in row] + [int_q(1 - q)] for row in rows])
            gq = 1 - q + q * gam
            ok = ok and q_int(mq.gamma()) == gq
            for ee in ees:
                s, w = dominating_law(g, exp_epsilon=int_q(ee))
                s, w = [q_int(v) for v in s], [q_int(v) for v in w]
                c = gam * (1 - ee)
                top = [(gq / gam * v, q * p) for v, p in zip(s, w)] + [(gq / gam * c, 1 - q)]
                knots = [v for v, _ in top]
                for x, x2 in itertools.permutations(range(mm), 2):
                    law = [
                        (q_int(v), q_int(p) * q_int(mq.gamma()))
                        for v, p in amplification_law(mq, x, x2, exp_epsilon=int_q(ee))
                    ]
                    law.append((sp.Integer(0), 1 - gq))
                    for t in knots:
                        lhs = sum((p * max(v - t, 0) for v, p in law), sp.Integer(0))
                        rhs = sum((p * max(v - t, 0) for v, p in top), sp.Integer(0))
                        ok = ok and lhs <= rhs
            for n in (2, 3):
                laws = {u: _participation_law(rows, list(u), q) for u in itertools.product(range(mm), repeat=n)}
                for ee, worst in zip(ees, _worst_of_laws(laws, mm, n, ees)):
                    b = sampled_geometric_upper(g, n, int_q(q), exp_epsilon=int_q(ee))
                    ok = ok and worst <= q_int(b)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (m = 3, alpha = 1/2, 2/3; m = 4, alpha = 1/2; q = 1/2, 1/5; 4 values of e^eps): the explicit "
        "R_q's view variable of every ordered pair is below the four-knot law in stop-loss order at its knots; n = 2, "
        "3: the exhaustive worst H of the sampled round (enumerated by participation) <= the code's bound",
        "Lemma S0, Lemma 5.3 on R_q, Lemma O2's law W mixed with the common atom of ⊥ (docs/composition.md §5f)",
    )


SAMPLED_GEOMETRIC = TABLE.register(
    "Sampled geometric round, four knots",
    statement=sp.Le(delta_Mq(epsilon), H_rq(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "each user takes part independently w.p. q and reports the truncated geometric mechanism R(x) on "
            "{0..m-1}; the multiset of reports is released; replace-one neighbours; (P_{R_q}, Q_{R_q}) the curve pair "
            "of R_q = (1 - q)⊥ + q·R from Lemma 5.3's view bounded by (gamma_q/gamma)((1 - q)·delta_c + q·W), W Lemma "
            "O2's law, c = gamma(1 - e^eps), and the clone pair",
        ),
    ),
    symbolic=_check_sampled_geometric,
)


def _check_sampled_binary(r) -> SymbolicCheck:
    """The exact worst case of a sampled binary RR round (docs/composition.md §5f, "Lemma S4") on exact instances:
    ``e^{ε0} = 3``, ``q = 1/2`` and ``1/5``, ``n = 3`` and ``4``.  (a) For every dataset (the users' bits), the law
    of the released multiset of reports enumerated by participation equals the code's ``P_C = a^C b^{n−C}`` (Kronecker
    coefficients of :func:`blanket.exact.shuffled.sampled_binary.laws_exact`, ``C`` the number of ones); (b) the
    exhaustive worst ``H_α`` over every neighbouring pair and both orders equals the code's
    ``max_{1≤C≤n} H_α(P_C ‖ P_{C−1})`` (:func:`~blanket.exact.shuffled.sampled_binary.worst_exact`) at 9 values of
    ``α ≥ 1``, and lies in the ball route's enclosure (:class:`~blanket.exact.shuffled.sampled_binary.SampledBinaryWorst`)
    and in the row route's (:class:`~blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows`, at most ``10⁻¹⁰``
    relative wide);
    (c) ``n = 3``, ``q = 1/2``: the accountant's curve pair of the sampled round (which has that source) is at or above
    it; (d) ``n = 12``, ``q = 1/10`` and ``n = 16``, ``q = 1/5``: the row route with its pilot's bin edges (Lemma S4r
    (v)) encloses :func:`~blanket.exact.shuffled.sampled_binary.worst_exact`.  Instances, not a proof: ``proved`` is ``None``, ``False`` when one fails (e.g. ``q²`` for ``q``, or the
    target always taking part: (a) fails)."""
    import itertools

    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.accounting.sampled import Sampled
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.shuffled import sampled_binary as sb
    from blanket.exact.shuffled import sampled_binary_rows as sbr

    R = sp.Rational
    e = R(3)
    p, f = e / (e + 1), 1 / (e + 1)
    m = [[p, f], [f, p]]  # output 0 / 1 given the bit
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(29, 10), R(3), R(4))
    ok = True
    for n in (3, 4):
        for q in (R(1, 2), R(1, 5)):
            code = sb.laws_exact(int_q(e), int_q(q), n)
            laws: dict = {}
            for users in itertools.product(range(2), repeat=n):
                law = _participation_law(m, list(users), q)
                P = code[sum(users)]
                for (h0, h1), pr in law.items():
                    ok = ok and pr == q_int(P[(h0 + h1) * (n + 1) + h1])
                ok = ok and sum(law.values()) == 1
                laws[users] = law
            worst = _worst_of_laws(laws, 2, n, alphas)
            ball = sb.SampledBinaryWorst(int_q(e), int_q(q), n)
            rows = sbr.SampledBinaryRows(int_q(e), int_q(q), n)
            for w, al in zip(worst, alphas):
                v, _c = sb.worst_exact(int_q(e), int_q(q), n, int_q(al))
                lo, hi, _c2 = ball.value(int_q(al))
                ok = ok and q_int(v) == w and q_int(lo) <= w <= q_int(hi)
                lo, hi, _c2 = rows.value(int_q(al))  # the route by rows of M (Lemma S4r)
                ok = ok and q_int(lo) <= w <= q_int(hi) and q_int(hi - lo) <= w / 10**10 + R(1, 10**40)
            if n == 3 and q == R(1, 2):
                cp = ShuffleAccountant()._curve_of(Sampled(Shuffled(KRR(2, exp_epsilon0=int_q(e)), n), int_q(q)))
                ok = ok and cp is not None and "Lemma S4" in cp.description
                if cp is not None:
                    for w, al in zip(worst, alphas):
                        ok = ok and w <= q_int(cp.hockey_stick(int_q(al)))
    for n, q in ((12, R(1, 10)), (16, R(1, 5))):  # (d) the row route with the pilot's bin edges (n >= 8, G kept)
        rows = sbr.SampledBinaryRows(int_q(e), int_q(q), n)
        ok = ok and rows.pilot
        for al in alphas:
            v, _c = sb.worst_exact(int_q(e), int_q(q), n, int_q(al))
            lo, hi, _c2 = rows.value(int_q(al))
            ok = ok and q_int(lo) <= q_int(v) <= q_int(hi) and q_int(hi - lo) <= q_int(v) / 10**10 + R(1, 10**40)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (binary RR, e^epsilon0 = 3; q = 1/2, 1/5; n = 3, 4): the law enumerated by participation = "
        "the code's a^C b^(n-C) at every dataset; the exhaustive worst H_alpha over every neighbouring pair (both "
        "orders) = the code's max over C of H_alpha(P_C || P_(C-1)) at 9 values of alpha, inside the ball route's "
        "enclosure and the row route's (Lemma S4r, at most 1e-10 relative wide); n = 3, q = 1/2: <= the "
        "accountant's curve pair, which names Lemma S4; n = 12, q = 1/10 and n = 16, q = 1/5: the row route with "
        "its pilot's bin edges encloses the code's exact rational worst case (at most 1e-10 relative wide)",
        "the reduction to C (exchangeability of the users, the 0/1 relabelling) is the docs' (§5f, Lemma S4)",
    )


SAMPLED_BINARY = TABLE.register(
    "Sampled binary RR, exact worst case",
    statement=sp.Eq(delta_Mq(epsilon), H_sbw(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "each of n users takes part independently w.p. q and reports its bit through binary RR; the multiset of "
            "reports is released; replace-one neighbours, both orders; P_C = a^C b^(n-C) the law of (reports, "
            "1-reports) with C ones, a = 1 - q + q s (f + p t), b = 1 - q + q s (p + f t)",
        ),
    ),
    symbolic=_check_sampled_binary,
)


H_sdata = sp.Function("H_{\\alpha}(P_R^{\\times T} \\| Q_R^{\\times T})")
delta_sdata = sp.Function("H_{\\alpha}(P_C^{\\times T} \\| P_{C-1}^{\\times T})")


def sampled_dataset_curve_instance(mutant: Any = 0, n: int = 5, q: Any = None, e: Any = 3) -> dict:
    """The sampled binary RR dataset-curve lower pair (docs/composition.md §5f, "The worst dataset's whole curve") on
    an instance: binary RR ``e^{ε0} = e``, ``n`` users, participation ``q`` (default 1/3), every ``C = 1..n``.  The ROC
    pair of :meth:`~blanket.exact.shuffled.sampled_binary_rows.SampledBinaryRows.roc_points` (every ``y̲`` raised by
    ``mutant``) against the exact laws ``(P_C, P_{C−1})`` (:func:`blanket.exact.shuffled.sampled_binary.laws_exact`,
    rationals).  Returns ``{"t1", "t2", "tight", "choice"}``: ``t1`` the pair's ``H_β`` at most the exact pair's at 24
    values of ``β`` in ``(0, 4]`` for every ``C`` (both orders: ``β < 1`` is the other order); ``t2`` the same for the
    exact ``T = 2`` products at 9 values of ``α ≥ 1`` (every ``C``) and for the swapped pairs; ``tight`` the largest
    gap ``exact − pair`` at ``T = 1`` (a float); ``choice`` the ``C`` of
    :func:`~blanket.exact.accounting.sampled_binary_lower.dataset_choice` and whether its exact symmetric divergence
    is the largest (a float comparison).  About a second at ``n = 5``."""
    import math

    from blanket.exact.accounting import curves as _curves  # proofs -> exact (the layer order)
    from blanket.exact.accounting import sampled_binary_lower as _sbl
    from blanket.exact.shuffled import sampled_binary as sb
    from blanket.exact.shuffled import sampled_binary_rows as sbr
    from flint import fmpq

    qq = fmpq(1, 3) if q is None else fmpq(q)
    ee = fmpq(e)
    m = mutant if isinstance(mutant, fmpq) else fmpq(mutant)
    laws = sb.laws_exact(ee, qq, n)
    idx = sb._support(n)
    rows = sbr.SampledBinaryRows(ee, qq, n)
    betas = [fmpq(k, 8) for k in range(1, 9)] + [fmpq(k, 4) for k in range(5, 17, 1)] + [fmpq(11, 10), fmpq(6, 5)]
    betas += [fmpq(101, 100), fmpq(1, 20)]
    alphas = [fmpq(1), fmpq(21, 20), fmpq(11, 10), fmpq(5, 4), fmpq(3, 2), fmpq(2), fmpq(5, 2), fmpq(3), fmpq(4)]

    def hs(at: list, al: Any) -> Any:
        return sum((pp - al * qq_ for pp, qq_ in at if pp - al * qq_ > 0), fmpq(0))

    def square(at: list) -> list:
        return [(p1 * p2, q1 * q2) for p1, q1 in at for p2, q2 in at]

    def coeff(poly: Any, i: int) -> Any:
        return poly[i] if i <= poly.degree() else fmpq(0)

    t1 = t2 = True
    gap = 0.0
    js = []
    for C in range(1, n + 1):
        pts = [(x, min(fmpq(1), y + m)) for x, y in rows.roc_points(C)]
        low = _curves.pair_from_roc(pts, description="sampled dataset curve (instance)")
        ex = [(coeff(laws[C], i), coeff(laws[C - 1], i)) for i in idx]
        lo = [(p, q_) for _r, p, q_ in low.masses]
        js.append(sum(float(p - q_) * math.log(float(p) / float(q_)) for p, q_ in ex if p > 0 and q_ > 0))
        for b in betas:
            a, x = hs(lo, b), hs(ex, b)
            t1 = t1 and a <= x
            gap = max(gap, float(x - a))
        l2, e2 = square(lo), square(ex)
        sw = [(q_, p) for p, q_ in lo]
        s2, r2 = square(sw), square([(q_, p) for p, q_ in ex])
        t2 = t2 and all(hs(l2, al) <= hs(e2, al) and hs(s2, al) <= hs(r2, al) for al in alphas)
    c = _sbl.dataset_choice(rows)
    return {"t1": t1, "t2": t2, "tight": gap, "choice": (c, js[c - 1] >= max(js) * (1 - 1e-9))}


def _check_sampled_dataset_curve(r) -> SymbolicCheck:
    """The sampled binary RR dataset-curve lower pair on an instance (:func:`sampled_dataset_curve_instance`, n = 5,
    q = 1/3, e^ε0 = 3, every C): at or below the exact pair at T = 1 (both orders) and T = 2 (exact products), within
    10⁻¹² of it at T = 1; the mutant with every test point raised by 1/500 must exceed the exact pair.  ``proved`` is
    ``None``, ``False`` when a check fails."""
    from flint import fmpq

    got = sampled_dataset_curve_instance()
    bad = sampled_dataset_curve_instance(fmpq(1, 500))
    ok = got["t1"] and got["t2"] and got["tight"] < 1e-12 and not (bad["t1"] and bad["t2"])
    return SymbolicCheck(
        None if ok else False,
        "binary RR e^eps0 = 3, n = 5, participation q = 1/3, every C = 1..5: the ROC pair of the route by rows' "
        "certified threshold tests (SampledBinaryRows.roc_points) lies at or below the exact pair (P_C, P_(C-1)) "
        "(exact rationals, sampled_binary.laws_exact) at 24 values of beta in (0, 4] (both orders) and, for the exact "
        "T = 2 products, at 9 values of alpha >= 1 in both orders; within 1e-12 of it at T = 1; the mutant with every "
        "test point raised by 1/500 exceeds the exact pair",
        "the inequality itself is Blackwell's theorem for dichotomies (a pair whose curve is below another's at every "
        "beta >= 0 is a garbling of it) and the post-processing inequality for products",
    )


SAMPLED_DATASET_CURVE = TABLE.register(
    "Sampled binary RR dataset-curve lower pair",
    statement=sp.Ge(delta_sdata(alpha), H_sdata(alpha)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "(P_R, Q_R) is the finite pair of the upper concave ROC hull of points (x, y) with H_beta(P_C || P_(C-1)) "
            ">= y - beta x for every beta >= 0, (P_C, P_(C-1)) one fixed neighbouring dataset pair of a sampled "
            "binary RR round (C ones among the n users, participation q, the release (reports, 1-reports)), the same "
            "C in every round",
        ),
    ),
    symbolic=_check_sampled_dataset_curve,
    symbols=(n_s,),
)


H_sthird = sp.Function("H_{e^{\\epsilon}}(P_{B,q}^{\\times T} \\| Q_{B,q}^{\\times T})")


def sampled_third_instance(k: int, e: Any, n: int, q: Any, bands: int = 3) -> dict:
    """One exact instance of the sampled third-value lower pair (docs/composition.md §5f, Lemma S5): k-RR with
    ``e^{ε0} = e``, ``n`` users, participation ``q`` (sympy Rationals or ints).  Returns ``{"cells": bool, "ok": bool,
    "full": [...], "stat": [...], "banded": [...], "one": [...]}``: the pair of
    :func:`blanket.exact.accounting.sampled_lower.krr_third_pair` against the sampled round on ``x z^{n−1}`` vs
    ``x' z^{n−1}`` enumerated by participation (:func:`_participation_law`, exact rationals): ``cells`` says that each
    kept cell ``N = s`` of the banded pair is the reflection ``A → s − A`` w.p. ``θ_s ∈ [0, ½]`` of the brute-force
    statistic's cell (``N`` reports equal to ``x`` or ``x'``, ``A`` equal to ``x``) and the dropped cells are absent;
    ``ok`` that in addition ``H_α(one level) ≤ H_α(banded) ≤ H_α(statistic) ≤ H_α(whole release)`` at 9 values of
    ``α ≥ 1`` and ``H_α(banded²) ≤ H_α(statistic²)`` (T = 2).  O(k^n) exact operations (small n only)."""
    from blanket.exact.accounting import sampled_lower as _slow  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.finite import KRR

    R = sp.Rational
    e, q = R(e), R(q)
    got = _slow.krr_third_pair(KRR(k, exp_epsilon0=int_q(e)), n, int_q(q), bands)
    if got is None:
        return {"cells": False, "ok": False}
    one_p, bp = got
    band = {key: (_rat(pp), _rat(qq)) for key, pp, qq in bp.atoms()}
    lvl1 = {key: (_rat(pp), _rat(qq)) for key, pp, qq in one_p.atoms()}
    m = [[e / (e + k - 1) if i == j else 1 / (e + k - 1) for j in range(k)] for i in range(k)]
    full_p = _participation_law(m, [0] + [2] * (n - 1), q)
    full_q = _participation_law(m, [1] + [2] * (n - 1), q)
    P: dict = {}
    Q: dict = {}
    for law, out in ((full_p, P), (full_q, Q)):
        for h, pr in law.items():
            key = (h[0] + h[1], h[0])
            out[key] = out.get(key, 0) + pr
    m_lo = int(one_p.outer_mix[2]) if one_p.outer_mix is not None else 1
    cells = len(band) > 0
    for s in range(n + 1):
        keys = [(s - 1, a) for a in range(s + 1)]
        if s < m_lo:
            cells = cells and all(c not in band for c in keys)
            continue
        ps, qs = [P.get((s, a), 0) for a in range(s + 1)], [Q.get((s, a), 0) for a in range(s + 1)]
        a0 = max(range(s + 1), key=lambda a: ps[a] - ps[s - a])
        d = ps[a0] - ps[s - a0]
        if d == 0 or any(c not in band for c in keys):
            cells = False
            break
        th = (ps[a0] - band[(s - 1, a0)][0]) / d
        cells = cells and 0 <= th <= R(1, 2)
        for a in range(s + 1):
            cells = cells and band[(s - 1, a)] == ((1 - th) * ps[a] + th * ps[s - a], (1 - th) * qs[a] + th * qs[s - a])

    def hs(at: dict, al: Any) -> Any:
        return sum((max(pp - al * qq, 0) for pp, qq in at.values()), sp.Integer(0))

    stat = {key: (v, Q.get(key, 0)) for key, v in P.items()}
    full = {h: (v, full_q.get(h, 0)) for h, v in full_p.items()}
    full.update({h: (0, v) for h, v in full_q.items() if h not in full_p})
    two_b = {(x, y): (band[x][0] * band[y][0], band[x][1] * band[y][1]) for x in band for y in band}
    two_s = {(x, y): (stat[x][0] * stat[y][0], stat[x][1] * stat[y][1]) for x in stat for y in stat}
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(4), R(6))
    vals = {
        name: [hs(at, al) for al in alphas]
        for name, at in (("one", lvl1), ("banded", band), ("stat", stat), ("full", full))
    }
    ok = cells and all(
        vals["one"][i] <= vals["banded"][i] <= vals["stat"][i] <= vals["full"][i] for i in range(len(alphas))
    )
    ok = ok and all(hs(two_b, al) <= hs(two_s, al) for al in alphas[:4])
    return {"cells": cells, "ok": ok, **vals}


def sampled_stratum_instance(e: Any, n: int, q: Any) -> bool:
    """The sampled two-stratum count (docs/composition.md §5f, Lemma S5) on OUE with ``k = 3``, ``e^{ε0} = e``,
    ``n`` users, participation ``q``: the exact atoms of :func:`blanket.exact.accounting.sampled_lower.
    four_value_stratum_pair` equal the push-forward of the round enumerated by participation
    (:func:`_participation_law`) on ``x z^{n−1}`` vs ``x' z^{n−1}`` by ``D = Σ y(report)`` (no report: nothing), and
    its ``H_α`` is at most the whole release's at 9 values of ``α ≥ 1``.  O(8^n) exact operations."""
    import itertools

    from blanket.exact.accounting import sampled_lower as _slow  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms import oracles

    R = sp.Rational
    rec = oracles.OUE(3, exp_epsilon0=int_q(R(e)))
    pr = _slow.four_value_stratum_pair(rec, n, int_q(R(q)))
    if pr is None:
        return False
    bits = list(itertools.product((0, 1), repeat=3))  # rows()' output order; x = 0, x' = 1, z = 2
    ys = [(pr.w1 if c else pr.w0) * (a - b) for a, b, c in bits]
    m = [[q_int(v) for v in row] for row in rec.rows()]
    laws = [_participation_law(m, [t] + [2] * (n - 1), R(q)) for t in (0, 1)]
    push: list = [{}, {}]
    for law, out in zip(laws, push):
        for h, v in law.items():
            d = sum(c * y for c, y in zip(h, ys))
            out[(d,)] = out.get((d,), 0) + v
    mine = {key: (q_int(a), q_int(b)) for key, a, b in pr.atoms()}
    keys = set(push[0]) | set(push[1])
    ok = set(mine) == keys and all(mine[key] == (push[0].get(key, 0), push[1].get(key, 0)) for key in keys)
    full = [(laws[0].get(h, 0), laws[1].get(h, 0)) for h in set(laws[0]) | set(laws[1])]

    def hs(at: Any, al: Any) -> Any:
        return sum((max(a - al * b, 0) for a, b in at), sp.Integer(0))

    for al in (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(4), R(6)):
        ok = ok and hs(mine.values(), al) <= hs(full, al)
    return ok and hs(mine.values(), R(1)) > 0


def _check_sampled_third(r) -> SymbolicCheck:
    """The sampled third-value lower pair (docs/composition.md §5f, Lemma S5) on exact instances
    (:func:`sampled_third_instance`): 3-RR with ``e^{ε0} = 2``, n = 6, ``q = 1/2`` and ``1/5``; 4-RR with
    ``e^{ε0} = 3``, n = 5, ``q = 1/3`` (a fourth value: ``⊥`` and ``w`` in the uninformative class); 3 bands; and the
    sampled two-stratum count (:func:`sampled_stratum_instance`: OUE k = 3, n = 3, ``q = 1/2``, ``1/5``).  An
    instance, not a proof: ``proved`` is ``None``, ``False`` when one fails (e.g. the unsampled pair, or ``q`` on
    the others only: the cells differ, and the unsampled pair's ``H`` is above the sampled round's)."""
    ok = True
    for k, e, n, q in ((3, 2, 6, sp.Rational(1, 2)), (3, 2, 6, sp.Rational(1, 5)), (4, 3, 5, sp.Rational(1, 3))):
        ok = ok and sampled_third_instance(k, e, n, q)["ok"]
    for q in (sp.Rational(1, 2), sp.Rational(1, 5)):
        ok = ok and sampled_stratum_instance(3, 3, q)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (3-RR, e^eps0 = 2, n = 6, q = 1/2, 1/5; 4-RR, e^eps0 = 3, n = 5, q = 1/3; 3 bands): each kept "
        "cell of the sampled banded pair is the reflection garbling of the brute-force statistic's cell (the round "
        "enumerated by participation) with theta in [0, 1/2]; H_alpha(one level) <= H_alpha(banded) <= "
        "H_alpha(statistic) <= H_alpha(whole release) at 9 values of alpha, and at T = 2 banded^2 <= statistic^2; "
        "the sampled two-stratum count of OUE (k = 3, e^eps0 = 3, n = 3, q = 1/2, 1/5) equals the push-forward of the "
        "enumerated release by D and its H_alpha is below the release's",
        "the inequality is the post-processing inequality (bottom is in no informative class, so R_q's class "
        "probabilities are q times R's and the banded garbling applies unchanged)",
    )


SAMPLED_THIRD = TABLE.register(
    "Sampled third-value lower pair",
    statement=sp.Ge(delta_T(epsilon), H_sthird(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1", "q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "T rounds, each user taking part independently w.p. q (the multiset of reports released), of k-RR (k >= 3; "
            "3-RR for ldp) or of a frequency oracle with a triple hit law, on the datasets x z^(n-1) versus "
            "x' z^(n-1); each round reduced to (N, A) (reports in the two informative classes, and in the first; no "
            "report is in neither); the banded garbling of the unsampled pair with pi_I -> q pi_I, a -> q a, "
            "b = 1 - q a, u unchanged; or (oracles) to the two-stratum count D = sum of y(report), no report 0",
        ),
    ),
    symbolic=_check_sampled_third,
)


H_sfull = sp.Function("\\delta_{q}^{full}(x z^{n-1}, x' z^{n-1})")
delta_q = sp.Function("\\delta_{M_q}")


def sampled_full_instance(kind: str, n: int, q: Any, c: Any) -> bool:
    """One exact instance of the sampled full view (docs/reference/oracles.md §2, "Sampled rounds: the full view"):
    OUE (``e^{ε0} = 3``) or SUE (``e^{ε0/2} = 2``) with ``k = 3``, ``n`` users, participation ``q``, ``e^ε = c``
    (sympy Rationals).  True when :func:`blanket.exact.shuffled.oracle_third.sampled_full_delta` (its exact route)
    equals the hockey-stick divergence of the sampled round on ``x z^{n−1}`` vs ``x' z^{n−1}`` enumerated by
    participation (:func:`_participation_law`, the record's explicit matrix), in both directions.  O(9^n) exact
    operations."""
    from blanket.exact.mechanisms import oracles
    from blanket.exact.shuffled import oracle_third as _third  # proofs -> exact (the layer order)

    R = sp.Rational
    rec = oracles.OUE(3, exp_epsilon0=3) if kind == "oue" else oracles.SUE(3, exp_half_epsilon0=2)
    m = [[q_int(v) for v in row] for row in rec.rows()]
    got = _third.sampled_full_delta(rec, n, int_q(R(q)), exp_epsilon=int_q(R(c)))
    if got is None or not hasattr(got, "p"):
        return False
    ok = True
    for t, t2 in ((0, 1), (1, 0)):
        lp = _participation_law(m, [t] + [2] * (n - 1), R(q))
        lq = _participation_law(m, [t2] + [2] * (n - 1), R(q))
        h = sum((max(lp.get(k_, 0) - R(c) * lq.get(k_, 0), 0) for k_ in set(lp) | set(lq)), sp.Integer(0))
        ok = ok and q_int(got) == h
    return ok


def sampled_binned_instance(kind: str, n: int, q: Any, c: Any) -> bool:
    """One instance of the binned sampled full view (docs/numerics.md Lemma T4,
    :func:`blanket.exact.shuffled.oracle_third._binned_lower_core`) on the records of :func:`sampled_full_instance`:
    True when its certified lower bound is at most the hockey-stick divergence of the sampled round enumerated by
    participation and within 10⁻³ of it (relative; 2¹⁷ bins).  O(9^n) exact operations."""
    from blanket.exact.mechanisms import oracles
    from blanket.exact.numbers import arith as _arith
    from blanket.exact.shuffled import oracle_third as _third  # proofs -> exact (the layer order)

    R = sp.Rational
    rec = oracles.OUE(3, exp_epsilon0=3) if kind == "oue" else oracles.SUE(3, exp_half_epsilon0=2)
    m = [[q_int(v) for v in row] for row in rec.rows()]
    lp = _participation_law(m, [0] + [2] * (n - 1), R(q))
    lq = _participation_law(m, [1] + [2] * (n - 1), R(q))
    h = sum((max(lp.get(k_, 0) - R(c) * lq.get(k_, 0), 0) for k_ in set(lp) | set(lq)), sp.Integer(0))
    e_ball = _arith.ball(rec.exp_epsilon0())
    low = _third._binned_lower_core(n, int_q(R(q)), rec.p, rec.q, e_ball, _arith.ball(int_q(R(c))))
    lo = _arith.endpoints(low)[0]
    got = R(lo.numerator, lo.denominator)
    return bool(got <= h and got >= h * R(999, 1000))


def _check_sampled_full(r) -> SymbolicCheck:
    """The sampled full view on exact instances (:func:`sampled_full_instance`): OUE and SUE, ``k = 3``, ``n = 3``,
    ``q = 1/2`` and ``1/5``, ``e^ε = 1`` and ``3/2``, and the binned route on the same instances
    (:func:`sampled_binned_instance`).  An instance, not a proof: ``proved`` is ``None``, ``False`` when one differs
    (e.g. without the shift ``(e^ε − 1)(n − m)`` of the absent users, or with ``m/n`` replaced by ``q``; the binned
    route read at its bins' upper values)."""
    ok = True
    for kind in ("oue", "sue"):
        for q in (sp.Rational(1, 2), sp.Rational(1, 5)):
            for c in (sp.Integer(1), sp.Rational(3, 2)):
                ok = ok and sampled_full_instance(kind, 3, q, c) and sampled_binned_instance(kind, 3, q, c)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (OUE e^eps0 = 3 and SUE e^(eps0/2) = 2, k = 3, n = 3, q = 1/2, 1/5, e^eps = 1, 3/2): the "
        "code's sampled full view equals the hockey-stick divergence of the sampled round enumerated by "
        "participation, both directions; the binned route (Lemma T4, docs/numerics.md) is at most it and within "
        "10^-3 of it",
        "the identity P(Y | m)/G_m(Y) = X/n + (1 - m/n) (the target takes part w.p. m/n given m reports; the "
        "unsampled identity F_m/G_m = X/m at m reports), and the count of reports is the same under both datasets",
    )


SAMPLED_FULL = TABLE.register(
    "Sampled full view (unary encoding)",
    statement=sp.Ge(delta_q(epsilon), H_sfull(epsilon)),
    hypotheses=(
        *TABLE.hyps("q > 0", "q <= 1"),
        Hypothesis(
            sp.true,
            "one round of OUE or SUE (k >= 3), each user taking part independently w.p. q (the multiset of reports "
            "released), on the datasets x z^(n-1) versus x' z^(n-1); the full view: delta_q^full = sum_m Bin(n, q)(m) "
            "(1/n) E_{z^m}[(X - e^eps X' - (e^eps - 1)(n - m))_+], X = sum over the m reports of e^(eps0 (a_i - c_i))",
        ),
    ),
    symbolic=_check_sampled_full,
)


def _push_count(law: dict, keep: Any) -> dict:
    """The push-forward of a law on histograms (or on tuples of them) by ``keep`` (a function to an integer).  O(len)."""
    out: dict = {}
    for h, pr in law.items():
        k_ = keep(h)
        out[k_] = out.get(k_, 0) + pr
    return out


def _pair_laws(pair: Any) -> tuple:
    """The K-laws of a ShiftPair with ``outer_q = None`` from its exact atoms (sympy Rationals).  O(n)."""
    lp: dict = {}
    lq: dict = {}
    for (_c, k_), a, b in pair.atoms():
        lp[k_] = lp.get(k_, 0) + q_int(a)
        lq[k_] = lq.get(k_, 0) + q_int(b)
    return lp, lq


def _same_law(u: dict, v: dict) -> bool:
    return all(sp.simplify(u.get(k_, 0) - v.get(k_, 0)) == 0 for k_ in set(u) | set(v))


def _check_geometric_count(r) -> SymbolicCheck:
    """The geometric threshold-count lower pair (docs/composition.md §5e "A geometric round's lower pair") on exact
    instances (truncated geometric m = 4, α = 1/2 and m = 5, α = 2/3; n = 3; the sampled part m = 4 only): in exact
    rationals (i) the closed-form
    ``q_u = P(Y_u ≥ s)`` of :func:`blanket.exact.accounting.geometric_lower.count_probability` equals the row sums for
    every ``u`` and ``s``; (ii) the accountant's pair (:func:`~blanket.exact.accounting.geometric_lower.shift_pair`,
    both directions) is the push-forward of the exact histogram laws of its dataset pair by the count, and its
    ``H_α`` is at most the exhaustive worst case over every dataset pair at 9 values of α; (iii) T = 2: the product of
    the pair's laws has ``H_α`` at most the product of the histogram laws', and the summed pair's closed form
    (:func:`~blanket.exact.accounting.geometric_lower.summed_pairs`, forward) is the push-forward of that product by the
    sum of the counts; (iv) q = 1/2: the sampled pair (every probability scaled by q) is the push-forward of
    ``R_q``'s histogram laws, ``H_α`` at most ``R_q``'s exhaustive worst case; (v) one round's three-interval statistic
    (:func:`blanket.exact.shuffled.geometric._interval_delta`) equals ``H`` of the interval counts pushed forward from
    the histogram laws (:func:`_intervals_instance`).  Not a proof (the inequality is the
    post-processing inequality): ``proved`` is ``None``, ``False`` when an instance fails."""
    from blanket.exact.accounting import geometric_lower as _gl  # proofs -> exact (the layer order)
    from blanket.exact.mechanisms.oracles import Geometric

    R = sp.Rational
    n = 3
    alphas = (R(1), R(11, 10), R(5, 4), R(3, 2), R(2), R(5, 2), R(3), R(4), R(6))
    ok = True
    for m, al_g in ((4, R(1, 2)), (5, R(2, 3))):
        g = Geometric(m, alpha=int_q(al_g))
        rows = [[q_int(v) for v in row] for row in g.rows()]
        for u in range(m):
            for s_ in range(1, m):
                ok = ok and q_int(_gl.count_probability(g, u, s_)) == sum(rows[u][s_:], sp.Integer(0))
        if not ok:
            break
        for q in (R(1), R(1, 2)) if m == 4 else (R(1),):
            rr = rows if q == 1 else _sampled_rows(rows, q)
            k_out = len(rr[0])
            c = _gl.geometric_choice(g, int_q(q))
            hp = _histogram_law([rr[c.z]] * (n - 1) + [rr[m - 1]], n, k_out)
            hq = _histogram_law([rr[c.z]] * (n - 1) + [rr[0]], n, k_out)
            worst = dict(zip(alphas, _worst_hockeys(rr, n, alphas)))
            for direction in ("forward", "backward"):

                def count(h: tuple, direction: str = direction, s0: int = c.s) -> int:
                    v = sum(h[s0:m])
                    return v if direction == "forward" else n - v

                pp, qq_ = (hp, hq) if direction == "forward" else (hq, hp)
                lp, lq = _pair_laws(_gl.shift_pair(g, n, direction, q=int_q(q)))
                ok = ok and _same_law(_push_count(pp, count), lp) and _same_law(_push_count(qq_, count), lq)
                for al in alphas:
                    ok = ok and _hockey_laws(lp, lq, al) <= worst[al]
            if q != 1:
                continue
            lp, lq = _pair_laws(_gl.shift_pair(g, n, "forward"))
            p2 = {(a, b): lp[a] * lp[b] for a in lp for b in lp}
            q2 = {(a, b): lq[a] * lq[b] for a in lq for b in lq}
            hp2 = {(a, b): hp[a] * hp[b] for a in hp for b in hp}
            hq2 = {(a, b): hq[a] * hq[b] for a in hq for b in hq}
            for al in alphas:
                ok = ok and _hockey_laws(p2, q2, al) <= _hockey_laws(hp2, hq2, al)
            sf = _gl.summed_pairs(g, c, 2 * (n - 1), 2)[0]
            c2p = _convolve(_bin_law(sf.others, q_int(sf.q_others)), _bin_law(2, q_int(sf.pi_p)))
            c2q = _convolve(_bin_law(sf.others, q_int(sf.q_others)), _bin_law(2, q_int(sf.pi_q)))

            def total(hh: tuple, s0: int = c.s) -> int:
                return sum(hh[0][s0:m]) + sum(hh[1][s0:m])

            ok = ok and _same_law(_push_count(hp2, total), c2p) and _same_law(_push_count(hq2, total), c2q)
        ok = ok and _intervals_instance(g, rows, n, m)
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (geometric m = 4, alpha = 1/2; m = 5, alpha = 2/3; n = 3; q = 1, and 1/2 at m = 4): the closed-form "
        "P(Y_u >= s) = the row sums; the accountant's threshold-count pair (both directions) = the count pushed forward "
        "from the exact histogram laws, its H_alpha <= the exhaustive worst case at 9 values of alpha; T = 2: the "
        "product's H_alpha <= the histogram product's, the summed pair = the summed count pushed forward; one round's "
        "three-interval statistic (every pair of cuts, both orders, 4 values of e^eps) = H of the interval counts "
        "pushed forward",
        "the inequality itself is the post-processing (data-processing) inequality",
    )


def _intervals_instance(g: Any, rows: list, n: int, m: int) -> bool:
    """The one-round three-interval statistic (:func:`blanket.exact.shuffled.geometric._interval_delta`): for every pair
    of cuts ``0 < a < b < m`` and both orders, its exact value (the engine's three-atom sum) equals ``H`` of the
    push-forward of the exact histogram laws of "others hold 0, the target 0 versus m − 1" by the counts of the three
    intervals, at four ``e^ε``.  O(m² · outputs^n)."""
    from blanket.exact.shuffled import geometric as _geo

    R = sp.Rational
    h0 = _histogram_law([rows[0]] * n, n, m)
    h1 = _histogram_law([rows[0]] * (n - 1) + [rows[m - 1]], n, m)
    ok = True
    for a in range(1, m - 1):
        for b in range(a + 1, m):
            cells = ((0, a), (a, b), (b, m))

            def key(h: tuple, cells: tuple = cells) -> tuple:
                return tuple(sum(h[u:w]) for u, w in cells)

            l0, l1 = _push_count(h0, key), _push_count(h1, key)
            p0 = [int_q(sum(rows[0][u:w], sp.Integer(0))) for u, w in cells]
            p1 = [int_q(sum(rows[m - 1][u:w], sp.Integer(0))) for u, w in cells]
            for al in (R(1), R(5, 4), R(2), R(3)):
                for direction, (x, y) in (("forward", (l0, l1)), ("backward", (l1, l0))):
                    v = _geo._interval_delta(n, p0, p1, int_q(al), direction, tol=int_q(R(1, 10**30)), exact_max_n=10)
                    want = _hockey_laws(x, y, al)
                    ok = ok and (q_int(v) == want if v is not None else want == 0)
    return bool(ok)


GEOMETRIC_COUNT = TABLE.register(
    "Geometric threshold-count lower pair",
    statement=sp.Ge(delta_T(epsilon), H_bin(epsilon)),
    hypotheses=(
        *TABLE.hyps("T >= 1"),
        Hypothesis(
            sp.true,
            "T shuffled rounds of the truncated geometric mechanism on {0..m-1} (each user reporting w.p. q) on the "
            "datasets where every other user holds z in {0, m-1} and the target m-1 versus 0; the adversary keeps "
            "only the number of reports >= s; q_u = q·P(Y_u >= s)",
        ),
    ),
    symbolic=_check_geometric_count,
    symbols=(n_s,),
)


H_full = sp.Function("\\underline{H}_{e^{\\epsilon}}(P_{(m-1, z^{n-1})} \\| P_{(0, z^{n-1})})")


def _iid_view(rows: list, n: int, w: list, x: int, x2: int, al: Any) -> Any:
    """``(1/n) Σ_{y ∈ m^n} Π_i w(y_i) (Σ_i (R_x(y_i) − al·R_{x2}(y_i))/w(y_i))_+`` (sympy Rationals).  O(m^n)."""
    import itertools

    m = len(w)
    tot = sp.Integer(0)
    for ys in itertools.product(range(m), repeat=n):
        p, s_ = sp.Integer(1), sp.Integer(0)
        for y in ys:
            p *= w[y]
            s_ += (rows[x][y] - al * rows[x2][y]) / w[y]
        tot += p * max(s_, sp.Integer(0))
    return tot / n


def _check_geometric_full(r) -> SymbolicCheck:
    """The geometric datasets' full view (docs/mechanisms.md "The geometric mechanism's lower end", the full view) on
    exact instances (m = 4, α = 1/2; m = 5, α = 2/3; n = 3; every z, both orders, four e^ε): (i) the identity
    ``H = (1/n) E[(Σ_i L(Y_i))_+]``, ``Y_i ~ R_z`` i.i.d., summed over every tuple, equals ``H`` of the exact histogram
    laws; (ii) the lattice lower side (:func:`blanket.exact.shuffled.geometric_dataset.full_view_lower`, h = 1/256) is
    at or below it and at least 80% of it; (iii) a mutant with the wrong blanket (``ω = R_{m−1}`` for z = 0, e^ε = 3/2)
    must differ from the histogram value.  ``proved`` is ``None``, ``False`` when an instance fails."""
    from blanket.exact.mechanisms.oracles import Geometric  # proofs -> exact (the layer order)
    from blanket.exact.shuffled.geometric_dataset import full_view_lower

    R = sp.Rational
    n = 3
    ok = True
    for m, al_g in ((4, R(1, 2)), (5, R(2, 3))):
        g = Geometric(m, alpha=int_q(al_g))
        rows = [[q_int(v) for v in row] for row in g.rows()]
        for z in range(m):
            h1 = _histogram_law([rows[z]] * (n - 1) + [rows[m - 1]], n, m)
            h0 = _histogram_law([rows[z]] * (n - 1) + [rows[0]], n, m)
            for direction, (x, x2), (hp, hq) in (("forward", (0, m - 1), (h0, h1)), ("backward", (m - 1, 0), (h1, h0))):
                for al in (R(1), R(6, 5), R(3, 2), R(2)):
                    want = _hockey_laws(hp, hq, al)
                    ok = ok and _iid_view(rows, n, rows[z], x, x2, al) == want
                    v = q_int(
                        full_view_lower(g, n, z=z, direction=direction, exp_epsilon=int_q(al), h=int_q(R(1, 256)))
                    )
                    ok = ok and v <= want and v >= want * R(4, 5)
        h1 = _histogram_law([rows[0]] * (n - 1) + [rows[m - 1]], n, m)
        h0 = _histogram_law([rows[0]] * n, n, m)
        ok = ok and _iid_view(rows, n, rows[m - 1], m - 1, 0, R(3, 2)) != _hockey_laws(h1, h0, R(3, 2))
    return SymbolicCheck(
        None if ok else False,
        "exact rationals (geometric m = 4, alpha = 1/2; m = 5, alpha = 2/3; n = 3; every z, both orders, e^eps in {1, "
        "6/5, 3/2, 2}): the blanket-view identity with omega = R_z, gamma = 1 = H of the exact histogram laws; the "
        "lattice lower side (h = 1/256) <= it and >= 80% of it; the wrong-blanket mutant differs",
        "the lattice lower side itself is the continuous engine's (Jensen on chunks, Bernstein on the residuals; "
        "docs/reference/blanket.md §4)",
    )


GEOMETRIC_FULL = TABLE.register(
    "Geometric dataset full-view lower end",
    statement=sp.Ge(delta_M(epsilon), H_full(epsilon)),
    hypotheses=(
        Hypothesis(
            sp.true,
            "one shuffled round of the truncated geometric mechanism on {0..m-1}, n users; the datasets where every "
            "other user holds z and the target m-1 versus 0 (either order); the lattice lower side of the m atoms of "
            "L = (R_{m-1} - e^eps R_0)/R_z under R_z",
        ),
    ),
    symbolic=_check_geometric_full,
    symbols=(n_s,),
)


def _check_geometric_binary(r) -> SymbolicCheck:
    """The truncated geometric mechanism with ``m = 2`` is binary RR with ``e^{ε0} = 1/α`` (docs/mechanisms.md "m = 2
    is binary RR"): symbolically its rows are ``[[1, α], [α, 1]]/(1 + α)`` = binary RR's ``[[e, 1], [1, e]]/(e + 1)``
    at ``e = 1/α``; on exact instances (α = 1/3, 1/2, 9/10) the record's rows equal
    :meth:`~blanket.exact.mechanisms.oracles.Geometric.as_binary_rr`'s matrix entry by entry, with the same
    ``e^{ε0}``.  ``proved`` True when every identity holds, ``False`` otherwise."""
    from blanket.exact.mechanisms.oracles import Geometric

    a = sp.Symbol("alpha", positive=True)
    e = 1 / a
    geo = [[1 / (1 + a), a / (1 + a)], [a / (1 + a), 1 / (1 + a)]]
    rr = [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]]
    ok = all(sp.simplify(geo[i][j] - rr[i][j]) == 0 for i in range(2) for j in range(2))
    for al in (sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(9, 10)):
        g = Geometric(2, alpha=int_q(al))
        b = g.as_binary_rr()
        ok = ok and [[q_int(v) for v in row] for row in g.rows()] == [[q_int(v) for v in row] for row in b.matrix()]
        ok = ok and q_int(b.exp_epsilon0()) == q_int(g.exp_epsilon0()) == 1 / al
        ok = ok and [[q_int(v) for v in row] for row in g.rows()] == [[v.subs(a, al) for v in row] for row in geo]
    return SymbolicCheck(
        bool(ok),
        "sympy: the rows [[1, alpha], [alpha, 1]]/(1 + alpha) = [[e, 1], [1, e]]/(e + 1) at e = 1/alpha; exact "
        "instances alpha = 1/3, 1/2, 9/10: Geometric(2).rows() = as_binary_rr().matrix(), e^eps0 = 1/alpha",
        "the clamped geometric mechanism on {0, 1}: P(y = x) = 1/(1 + alpha), P(y != x) = alpha/(1 + alpha)",
    )


a_geo = sp.Symbol("alpha_{geo}", positive=True)

GEOMETRIC_BINARY = TABLE.register(
    "Geometric m = 2 is binary RR",
    statement=sp.Eq(sp.Function("R_{geo}")(a_geo), sp.Function("RR")(1 / a_geo)),
    hypotheses=(Hypothesis(sp.true, "the truncated geometric mechanism on {0, 1} with parameter 0 < alpha < 1"),),
    symbolic=_check_geometric_binary,
    symbols=(),
)

TABLE.complete()
