"""Mixed fleets, personalised ε0 and colluding users: this project's generalisations of BBGN19 Lemma 5.3.

Registry keys: ``BBGN19 Lemma 5.3 [fleet]`` (the Poisson-binomial blanket view, Lemma F1), ``Blanket view
monotone in m`` (Lemma F2), ``Colluding users reduction`` (Lemma F3), ``Fleet round dominating pair`` (Lemma F5,
composed and sampled fleet rounds), ``Fleet round lower pair`` (Lemma F6, their concrete lower pair), ``FMT21 clone
pair [fleet]`` (Lemma F7, per-user clone probabilities), ``Fleet two-count lower pair`` (Lemma F8); the proofs are in
``docs/reference/fleets.md``, the numbers in :mod:`blanket.exact.shuffled.fleet`.
"""

from __future__ import annotations

import sympy as sp

from .core import Hypothesis, ResultTable, SymbolicCheck

TABLE = ResultTable("fleets.toml", globals())

epsilon = sp.Symbol("epsilon", nonnegative=True)
m = sp.Symbol("m", integer=True, positive=True)

delta_fleet = sp.Function("\\delta_{\\mathcal{S}\\circ(\\mathcal{R}_1,\\ldots,\\mathcal{R}_n)}")
view_pb = sp.Function("\\mathbb{E}_{B}\\big[h_t(B+1)\\big]")
h = sp.Function("h")
delta_honest = sp.Function("\\delta^{\\mathrm{honest}}_{\\gamma_{(m+1)},\\ldots}")
delta_colluding = sp.Function("\\delta^{m\\ \\mathrm{colluding}}")


def _not_symbolic(reason: str):  # noqa: ANN202 - the callable ResultTable.register expects
    return lambda r: SymbolicCheck(None, "not a closed-form identity", reason)


FLEET_VIEW = TABLE.register(
    "BBGN19 Lemma 5.3 [fleet]",
    statement=sp.Le(delta_fleet(epsilon), view_pb(epsilon)),
    hypotheses=(
        Hypothesis(
            sp.true,
            "every user j runs a k-RR on one alphabet [k] with its own epsilon0_j (blanket weight gamma_j); "
            "one report per user, trusted shuffler, replace-one neighbours; the target t is in any group",
        ),
    ),
    symbolic=_not_symbolic("a post-processing argument, proved in docs/reference/fleets.md §2"),
)

H_MONOTONE = TABLE.register(
    "Blanket view monotone in m",
    statement=sp.Le(h(m + 1), h(m)),
    hypotheses=(Hypothesis(sp.true, "L_1, L_2, ... i.i.d. (or exchangeable), h(m) = E[(L_1+...+L_m)_+]/m"),),
    symbolic=_not_symbolic("leave-one-out averaging, proved in docs/reference/fleets.md §3"),
)

COLLUDING = TABLE.register(
    "Colluding users reduction",
    statement=sp.Le(delta_colluding(epsilon), delta_honest(epsilon)),
    hypotheses=(
        Hypothesis(
            sp.true,
            "m users other than the target reveal their values and randomness; the right side removes the m "
            "users with the largest blanket weights (k-RR fleet) or m users of the target's group",
        ),
    ),
    symbolic=_not_symbolic("post-processing and an exchange argument, proved in docs/reference/fleets.md §5"),
)

ONE_LAW = TABLE.register(
    "Fleet view: one law, largest epsilon0",
    statement=sp.Le(
        sp.Function("\\max_{t} V_{t}")(epsilon), sp.Function("\\mathbb{E}[h_{t^*}(\\max(B_{all},1))]")(epsilon)
    ),
    hypotheses=(Hypothesis(sp.true, "k-RR fleet on one alphabet; t* a group with the largest epsilon0"),),
    symbolic=_not_symbolic("a coupling and convexity argument, proved in docs/reference/fleets.md §3"),
)

q = sp.Symbol("q", positive=True)

FLEET_ROUND = TABLE.register(
    "Fleet round dominating pair",
    statement=sp.Le(
        sp.Function("H_{\\alpha}(\\mathcal{S}_q\\circ(\\mathcal{R}_1,\\ldots,\\mathcal{R}_n))")(epsilon),
        sp.Function("H_{\\alpha}(P^{\\varepsilon_0^*}_{q,n_h}\\|Q^{\\varepsilon_0^*}_{q,n_h})")(epsilon),
    ),
    hypotheses=(
        Hypothesis(sp.And(q > 0, q <= 1), "0 < q <= 1 (q = 1: every user reports)"),
        Hypothesis(
            sp.true,
            "every user runs a k-RR on one alphabet [k] with its own epsilon0_j <= epsilon0*; each takes part "
            "independently w.p. q; the multiset of reports is released; n_h honest users (colluders removed); "
            "replace-one neighbours",
        ),
    ),
    symbolic=_not_symbolic(
        "a common-blanket post-processing and joint convexity, proved in docs/reference/fleets.md §7"
    ),
)

FLEET_ROUND_LOWER = TABLE.register(
    "Fleet round lower pair",
    statement=sp.Ge(
        sp.Function("H_{\\alpha}(\\mathcal{S}_q^{\\otimes T}(D)\\|\\mathcal{S}_q^{\\otimes T}(D'))")(epsilon),
        sp.Function("H_{\\alpha}(P_K^{\\otimes T}\\|Q_K^{\\otimes T})")(epsilon),
    ),
    hypotheses=(
        Hypothesis(sp.And(q > 0, q <= 1), "0 < q <= 1 (q = 1: every user reports)"),
        Hypothesis(
            sp.true,
            "k-RR fleet on one alphabet; D, D' the concrete neighbouring datasets of Lemma F6 (target at the largest "
            "epsilon0); K the count of x reports among the honest users; the same pair in each of the T rounds",
        ),
    ),
    symbolic=_not_symbolic("post-processing of a concrete pair, proved in docs/reference/fleets.md §8"),
)

FLEET_CLONE = TABLE.register(
    "FMT21 clone pair [fleet]",
    statement=sp.Le(
        delta_fleet(epsilon), sp.Function("\\mathbb{E}_{C}\\big[h^{\\mathrm{bin}}_{t}(C+1)\\big]")(epsilon)
    ),
    hypotheses=(
        Hypothesis(
            sp.true,
            "every user j runs a k-RR on one alphabet [k] with its own epsilon0_j; C = sum over j != t of "
            "Bern(c_j), c_j = 2 f_j/(p_t + f_t) (the target t's keep and flip probabilities); h^bin_t the h of "
            "binary RR at epsilon0_t; replace-one neighbours",
        ),
    ),
    symbolic=_not_symbolic("a clone decomposition and post-processing, proved in docs/reference/fleets.md §10"),
)

FLEET_TWO_COUNTS = TABLE.register(
    "Fleet two-count lower pair",
    statement=sp.Ge(
        delta_fleet(epsilon), sp.Function("H_{e^{\\varepsilon}}(P_{N_x,N_{x'}}\\|Q_{N_x,N_{x'}})")(epsilon)
    ),
    hypotheses=(
        Hypothesis(
            sp.true,
            "k-RR fleet on one alphabet, k >= 3; every other honest user holds a third value z, the target (largest "
            "epsilon0) holds x vs x'; (N_x, N_x') the counts of x and x' reports",
        ),
    ),
    symbolic=_not_symbolic("post-processing of a concrete pair, proved in docs/reference/fleets.md §11"),
)

TABLE.complete()
