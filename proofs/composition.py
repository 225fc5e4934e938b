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

TABLE.complete()
