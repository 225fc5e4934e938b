"""Frequency oracles, the clamped geometric mechanism and the FOCS 2021 clone bound: derivations as Results.

Paper keys: ``FO`` (this project's blanket decompositions of the standard
frequency oracles) and ``FMT21`` (Feldman–McMillan–Talwar, *Hiding among the
clones*, FOCS 2021).  Every closed form here is the one that
:mod:`exact.mechanisms.oracles` evaluates; ``tests/test_oracles.py`` checks them against
brute force (explicit matrices, exact rationals) and
``tests/test_proofs_oracles.py`` runs the symbolic checks.

Registry keys:

* ``FO gamma [ue|olh|hadamard|subset|geometric]`` — the TV similarity
  ``γ = Σ_y min_x R(x)(y)`` in closed form (status *derived*, this project);
* ``FO L law [ue|olh|hadamard|subset]`` — the probabilities ``(π_both, π_t,
  π_rest)`` of the four values of L (the values themselves are
  ``FO L values``);
* ``FO clone identity`` — the clone pair's hockey-stick divergence as a
  three-atom blanket-view expectation (derived);
* ``FMT21 Theorem 3.1 [paper|code]`` — the closed form ε bound for every
  ε0-LDP randomizer (status *uncertain*: the constants are corroborated, the
  printed statement was not read; see docs/mechanisms.md).

Symbolic checks derive each closed form from the definition: for the
parametric families by symbolic enumeration of the output space at small
sizes (sympy, with the ordering of the entries proved first), and in general
by the identities ``Σπ = 1`` and ``E_ω[L] = 1 − e^ε`` (which holds for every
randomizer: ``Σ_y R(x)(y) − e^ε R(x')(y) = 1 − e^ε``).
"""

from __future__ import annotations

import itertools
from typing import Any

import sympy as sp
from blanket.proofs.blanket import _binary_epsilon_reference
from blanket.proofs.core import Eq, Ge, Hypothesis, Le, ResultTable, SymbolicCheck

TABLE = ResultTable("oracles.toml", globals())


# ================================================================== symbols
epsilon, epsilon0, delta, n, k, g, d, K, m, p, q = sp.symbols("epsilon epsilon0 delta n k g d K m p q")
c = sp.Symbol("c")  # pair-collision probability of the hash family
kappa = sp.Symbol("kappa")  # probability that h is constant on the domain
alpha = sp.Symbol("alpha")
gamma = sp.Symbol("gamma")
pi_both, pi_t, pi_rest = sp.symbols("pi_both pi_t pi_rest")
L_both, L_t, L_tp, L_rest = sp.symbols("L_both L_t L_tprime L_rest")

E0 = sp.exp(epsilon0)
E = sp.exp(epsilon)

# positive twins for the derivations
_e = sp.Symbol("e", positive=True)  # e^{ε0}
_ee = sp.Symbol("ee", positive=True)  # e^{ε}
_u = sp.Symbol("u", nonnegative=True)  # e = 1 + u
_p, _q, _s, _a = sp.symbols("p q s alpha", positive=True)


# ---------------------------------------------------------------- closed forms (each written once)
#: the four values of L (any of the four-value mechanisms), in units of γ
L_VALUES = {L_both: gamma * E0 * (1 - E), L_t: gamma * (E0 - E), L_tp: gamma * (1 - E * E0), L_rest: gamma * (1 - E)}

RHO0_UE = (1 - p) / (1 - q)
GAMMA_UE = RHO0_UE * (1 - q**k) + p * q ** (k - 1)
LAW_UE = {
    pi_both: RHO0_UE * q**2 * (1 - q ** (k - 2)) / GAMMA_UE,
    pi_t: RHO0_UE * q * (1 - q) / GAMMA_UE,
    pi_rest: (RHO0_UE * (1 - q) ** 2 + p * q ** (k - 1)) / GAMMA_UE,
}

PH_OLH, PL_OLH = E0 / (E0 + g - 1), 1 / (E0 + g - 1)
GAMMA_OLH = g * PL_OLH + kappa * (PH_OLH - PL_OLH)
LAW_OLH = {
    pi_both: (c - kappa) * PL_OLH / GAMMA_OLH,
    pi_t: (1 - c) * PL_OLH / GAMMA_OLH,
    pi_rest: 1 - (c - kappa) * PL_OLH / GAMMA_OLH - 2 * (1 - c) * PL_OLH / GAMMA_OLH,
}

PH_HR, PL_HR = 2 * E0 / (K * (E0 + 1)), 2 / (K * (E0 + 1))
GAMMA_HR = 2 * (K - 1 + E0) / (K * (E0 + 1))
LAW_HR = {
    pi_both: (K / 4 - 1) * PL_HR / GAMMA_HR,
    pi_t: (K / 4) * PL_HR / GAMMA_HR,
    pi_rest: ((K / 4) * PL_HR + PH_HR) / GAMMA_HR,
}

Z_SUBSET = E0 * sp.binomial(k - 1, d - 1) + sp.binomial(k - 1, d)
GAMMA_SUBSET = k / (d * E0 + k - d)
LAW_SUBSET = {
    pi_both: d * (d - 1) / (k * (k - 1)),
    pi_t: d * (k - d) / (k * (k - 1)),
    pi_rest: (k - d) * (k - d - 1) / (k * (k - 1)),
}


def gamma_geometric(mm: int) -> sp.Expr:
    """γ of the clamped geometric mechanism on {0..m−1} (m a concrete integer): (2α^a + [N even](1−α)α^{N/2})/(1+α)."""
    N = mm - 1
    a = N // 2 + 1
    out = 2 * alpha**a + ((1 - alpha) * alpha ** (N // 2) if N % 2 == 0 else 0)
    return out / (1 + alpha)


# ================================================================== symbolic derivations
def _zero(expr) -> bool:
    return sp.simplify(sp.together(expr)) == 0


def _pos(expr):
    return expr.subs({E0: _e, E: _ee, p: _p, q: _q, alpha: _a})


def _mean_identity(law, gam_expr, extra=None):
    """``Σ π = 1`` and ``E_ω[L] = 1 − e^ε`` for a four-value law (``gam_expr`` = γ)."""
    subs = {gamma: gam_expr}
    if extra:
        subs.update(extra)
    pb, pt, pr = (law[s].subs(extra or {}) for s in (pi_both, pi_t, pi_rest))
    s1 = _zero(_pos(pb + 2 * pt + pr - 1))
    vals = {kk: v.subs(subs) for kk, v in L_VALUES.items()}
    mean = pb * vals[L_both] + pt * vals[L_t] + pt * vals[L_tp] + pr * vals[L_rest]
    s2 = _zero(_pos(mean - (1 - E)))
    return s1, s2


def _law_from_matrix(rows, x, x2, cat, gam_closed, law_closed, ee):
    """Enumerate W over the outputs: ω from the (structural) column minima, L per output; compare with the closed forms.

    ``rows`` are sympy entries; ``cat(y)`` names the category of output ``y``
    (``"both"``, ``"t"``, ``"tp"``, ``"rest"``); the minima are taken with
    sympy after substituting e = 1 + u (u ≥ 0), so that ``Min`` decides.
    """
    mins = []
    for y in range(len(rows[0])):
        col = [r[y] for r in rows]
        mn = col[0]
        for v in col[1:]:
            dlt = sp.simplify(sp.factor((v - mn).subs(_e, 1 + _u)))
            if dlt.is_nonpositive:
                mn = v
            elif not dlt.is_nonnegative:
                return False, f"cannot order entries of column {y}"
        mins.append(mn)
    gam = sum(mins)
    if not _zero(gam - gam_closed):
        return False, f"γ: enumerated {sp.simplify(gam)} ≠ closed form"
    probs = {"both": 0, "t": 0, "tp": 0, "rest": 0}
    for y, mn in enumerate(mins):
        L = gam_closed * (rows[x][y] - ee * rows[x2][y]) / mn
        kind = cat(y)
        val = {
            "both": gam_closed * _e * (1 - ee),
            "t": gam_closed * (_e - ee),
            "tp": gam_closed * (1 - ee * _e),
            "rest": gam_closed * (1 - ee),
        }[kind]
        if not _zero(L - val):
            return False, f"L at output {y} is {sp.simplify(L)}, not the {kind} value"
        probs[kind] += mn / gam_closed
    lb, lt, lr = law_closed
    ok = _zero(probs["both"] - lb) and _zero(probs["t"] - lt) and _zero(probs["tp"] - lt) and _zero(probs["rest"] - lr)
    return ok, "" if ok else "category probabilities differ"


def _law_at(rows, cat, gamma_value, law, subs):
    """:func:`_law_from_matrix` for the pair of inputs (0, 1) of the matrix ``rows`` against the closed forms
    ``gamma_value`` and ``law`` (π_both, π_t, π_rest) at the substitution ``subs``."""
    law_at = tuple(law[s].subs(subs) for s in (pi_both, pi_t, pi_rest))
    return _law_from_matrix(rows, 0, 1, cat, gamma_value.subs(subs), law_at, _ee)


def _pair_category(in_x: bool, in_x2: bool) -> str:
    """The category of an output for the pair (x, x'): whether it favours x (``in_x``) and x' (``in_x2``)."""
    return {(True, True): "both", (True, False): "t", (False, True): "tp", (False, False): "rest"}[(in_x, in_x2)]


def _law_verdict(ok, details, method, law, gamma_value, extra=None):
    """The :class:`SymbolicCheck` of an oracle's γ and L law: the enumerated cases (``ok``, ``details``) and, for
    symbolic parameters, Σπ = 1 and E_ω[L] = 1 − e^ε (:func:`_mean_identity`)."""
    s1, s2 = _mean_identity(law, gamma_value, extra=extra)
    ok = ok and s1 and s2
    return SymbolicCheck(True if ok else None, method, f"{'; '.join(details)}; Σπ=1: {s1}; mean: {s2}")


def _cases_verdict(cases, method, law, gamma_value, *, ok=True, details=()):
    """:func:`_law_verdict` of enumerated matrices: each case ``(label, rows, cat, subs)`` is checked by
    :func:`_law_at` against ``gamma_value`` and ``law``; ``ok`` and ``details`` are those of steps checked before."""
    det = list(details)
    for label, rows, cat, subs in cases:
        good, why = _law_at(rows, cat, gamma_value, law, subs)
        ok = ok and good
        det.append(f"{label}: {good} {why}")
    return _law_verdict(ok, det, method, law, gamma_value)


def _check_ue(r):
    # step 1: ρ1 ≥ ρ0 when p = q + s (s > 0): the column minimum sits at an input whose bit is 0
    rho1 = _p / _q
    rho0 = (1 - _p) / (1 - _q)
    diff = sp.simplify((rho1 - rho0).subs(_p, _q + _s) - _s / (_q * (1 - _q)))
    step1 = diff == 0
    # step 2: enumerate {0,1}^k for k = 2..4 with symbolic p, q; min_x R(x)(y) = B(y)·ρ(AND of the bits)
    details = []
    ok = step1
    for kk in (2, 3, 4):
        gsum = 0
        probs = {"both": 0, "t": 0, "rest": 0}
        gam_c = GAMMA_UE.subs(k, kk).subs({p: _p, q: _q})
        for y in itertools.product((0, 1), repeat=kk):
            B = sp.Mul(*[_q if b else 1 - _q for b in y])
            allones = all(y)
            mn = B * (rho1 if allones else rho0)
            gsum += mn
            w = mn / gam_c
            # L for the pair (0, 1): γ(ρ(y0) − ee ρ(y1))/ρ(min)
            r0, r1 = (rho1 if y[0] else rho0), (rho1 if y[1] else rho0)
            L = gam_c * B * (r0 - _ee * r1) / mn
            e_ue = rho1 / rho0
            if allones or (y[0] == 0 and y[1] == 0):
                kind, val = "rest", gam_c * (1 - _ee)
            elif y[0] and y[1]:
                kind, val = "both", gam_c * e_ue * (1 - _ee)
            elif y[0]:
                kind, val = "t", gam_c * (e_ue - _ee)
            else:
                kind, val = "tp", gam_c * (1 - _ee * e_ue)
            ok = ok and _zero(L - val)
            probs["t" if kind == "tp" else kind] += w / (2 if kind in ("t", "tp") else 1)
        ok = ok and _zero(gsum - gam_c)
        for name, sym in (("both", pi_both), ("t", pi_t), ("rest", pi_rest)):
            ok = ok and _zero(probs[name] - LAW_UE[sym].subs(k, kk).subs({p: _p, q: _q}))
        details.append(f"k={kk} enumerated")
    # step 3: general k: Σ π = 1 and E_ω[L] = 1 − e^ε with e^{ε0} = p(1−q)/((1−p)q)
    kk = sp.Symbol("k", integer=True, positive=True)
    e_ue = (p * (1 - q)) / ((1 - p) * q)
    law = {s: v.subs(k, kk) for s, v in LAW_UE.items()}
    return _law_verdict(
        ok,
        [f"ρ1 − ρ0 = s/(q(1−q)): {step1}", ", ".join(details)],
        "ordering ρ(1) ≥ ρ(0); symbolic enumeration of {0,1}^k (k = 2, 3, 4) for γ and the L law; "
        "Σπ = 1 and E_ω[L] = 1 − e^ε for symbolic k",
        law,
        GAMMA_UE.subs(k, kk),
        extra={E0: e_ue},
    )


def _olh_cases():
    # the family of all maps [3] → [2] (c = 1/2, κ = 1/4) and of the non-constant ones (c = 1/3, κ = 0)
    for nonconst in (False, True):
        fam = [f for f in itertools.product(range(2), repeat=3) if not nonconst or len(set(f)) > 1]
        cc = sp.Rational(sum(1 for f in fam if f[0] == f[1]), len(fam))
        kap = sp.Rational(sum(1 for f in fam if len(set(f)) == 1), len(fam))
        ph, pl = _e / (_e + 1), 1 / (_e + 1)
        rows = [[(ph if h[x] == y else pl) / len(fam) for h in fam for y in range(2)] for x in range(3)]
        outs = [(h, y) for h in fam for y in range(2)]

        def cat(i, outs=outs):
            h, y = outs[i]
            if len(set(h)) == 1:
                return "rest"
            if h[0] == h[1]:
                return "both" if y == h[0] else "rest"
            return "t" if y == h[0] else ("tp" if y == h[1] else "rest")

        yield (
            f"family {'non-constant' if nonconst else 'all'} maps [3]→[2]",
            rows,
            cat,
            {g: 2, c: cc, kappa: kap, E0: _e},
        )


def _check_olh(r):
    return _cases_verdict(
        _olh_cases(),
        "symbolic enumeration of two explicit families (all maps / non-constant maps [3]→[2]); "
        "Σπ = 1 and E_ω[L] = 1 − e^ε for symbolic g, c, κ",
        LAW_OLH,
        GAMMA_OLH,
    )


# ---------------------------------------------------------------- local hashing: the triple hit law (issue 25)
t3 = sp.Symbol("t")  # 3-wise collision P[h(x) = h(x') = h(z)]
#: P_z(h_x, h_x', h_z) of one report of a third value z (exact.shuffled.oracle_exact.triple_hit_law): the hashed
#: triple is all equal (t), equal on exactly one pair (c − t each) or all distinct (1 − 3c + 2t)
_D3 = 1 - 3 * c + 2 * t3
TRIPLE_OLH = {
    (1, 1, 1): t3 * PH_OLH,
    (0, 0, 0): (t3 * (g - 1) + 3 * (c - t3) * (g - 2) + _D3 * (g - 3)) * PL_OLH,
    (0, 0, 1): (c - t3 + _D3) * PH_OLH,
    (1, 1, 0): (c - t3) * PL_OLH,
    (1, 0, 1): (c - t3) * PH_OLH,
    (0, 1, 1): (c - t3) * PH_OLH,
    (0, 1, 0): (c - t3 + _D3) * PL_OLH,
    (1, 0, 0): (c - t3 + _D3) * PL_OLH,
}
P_TRIPLE = {key: sp.Symbol(f"P_{''.join(map(str, key))}") for key in TRIPLE_OLH}


def _triple_families():
    """Explicit families ``[3] → [g]`` with their (c, t): all maps [3]→[3] (3-wise independent), the affine maps
    u ↦ a·u + b mod 3 (t = c), all maps [3]→[2] (g = 2)."""
    yield "all maps [3]→[3]", 3, list(itertools.product(range(3), repeat=3))
    yield "affine maps mod 3", 3, [tuple((a * u + b) % 3 for u in range(3)) for a in range(3) for b in range(3)]
    yield "all maps [3]→[2]", 2, list(itertools.product(range(2), repeat=3))


def _check_olh_triple(r):
    det, ok = [], True
    for label, gg, fam in _triple_families():
        cc = sp.Rational(sum(1 for h in fam if h[0] == h[1]), len(fam))
        tt = sp.Rational(sum(1 for h in fam if h[0] == h[1] == h[2]), len(fam))
        ph, pl = _e / (_e + gg - 1), 1 / (_e + gg - 1)
        got = dict.fromkeys(TRIPLE_OLH, sp.Integer(0))
        for h in fam:  # a report (h, y) of z = 2: P = (p_h if h(z) = y else p_l)/|H|
            for y in range(gg):
                key = tuple(int(h[u] == y) for u in (0, 1, 2))
                got[key] += (ph if h[2] == y else pl) / len(fam)
        good = all(_zero(got[key] - v.subs({g: gg, c: cc, t3: tt, E0: _e})) for key, v in TRIPLE_OLH.items())
        ok = ok and good
        det.append(f"{label} (c = {cc}, t = {tt}): {good}")
    total = _zero(_pos(sum(TRIPLE_OLH.values()) - 1))
    ok = ok and total
    det.append(f"Σ = 1 for symbolic g, c, t: {total}")
    return SymbolicCheck(True if ok else None, "symbolic enumeration of three explicit families", "; ".join(det))


def _hadamard_cases():
    for kk in (2, 3, 5, 7):
        KK = 1 << kk.bit_length()
        ph, pl = 2 * _e / (KK * (_e + 1)), sp.Integer(2) / (KK * (_e + 1))
        inC = [[bin((x + 1) & y).count("1") % 2 == 0 for y in range(KK)] for x in range(kk)]
        rows = [[ph if inC[x][y] else pl for y in range(KK)] for x in range(kk)]

        def cat(y, inC=inC):
            if all(inC[x][y] for x in range(kk)):
                return "rest"
            return _pair_category(inC[0][y], inC[1][y])

        yield f"k={kk} (K={KK})", rows, cat, {K: KK, E0: _e}


def _check_hadamard(r):
    return _cases_verdict(
        _hadamard_cases(),
        "symbolic enumeration of the Sylvester–Hadamard construction (k = 2, 3, 5, 7); Σπ = 1 and "
        "E_ω[L] = 1 − e^ε for symbolic K",
        LAW_HR,
        GAMMA_HR,
    )


def _subset_cases():
    for kk_, dd_ in ((4, 2), (5, 2), (5, 3), (4, 1)):
        subsets = list(itertools.combinations(range(kk_), dd_))
        Z = _e * sp.binomial(kk_ - 1, dd_ - 1) + sp.binomial(kk_ - 1, dd_)
        rows = [[(_e if x in S else 1) / Z for S in subsets] for x in range(kk_)]

        def cat(i, subsets=subsets):
            S = subsets[i]
            return _pair_category(0 in S, 1 in S)

        yield f"(k,d)=({kk_},{dd_})", rows, cat, {k: kk_, d: dd_, E0: _e}


def _check_subset(r):
    # the closed form k/(de + k − d) is C(k,d)/Z by C(k−1,d−1) = C(k,d)·d/k and C(k−1,d) = C(k,d)·(k−d)/k
    kk, dd = sp.Symbol("k", integer=True, positive=True), sp.Symbol("d", integer=True, positive=True)
    z = Z_SUBSET.subs({k: kk, d: dd, E0: _e})
    ident = sp.simplify(sp.combsimp(sp.binomial(kk, dd) / z - GAMMA_SUBSET.subs({k: kk, d: dd, E0: _e}))) == 0
    return _cases_verdict(
        _subset_cases(),
        "C(k,d)/Z = k/(de+k−d) (combsimp); symbolic enumeration of d-subsets for four (k, d); Σπ = 1 and "
        "E_ω[L] = 1 − e^ε for symbolic k, d",
        LAW_SUBSET,
        GAMMA_SUBSET,
        ok=ident,
        details=[f"identity: {ident}"],
    )


def _check_geometric(r):
    ok = True
    det = []
    for mm in range(2, 9):
        N = mm - 1
        cc = (1 - _a) / (1 + _a)
        tot = 0
        for y in range(mm):
            # α < 1: α^t is decreasing in t, so min over x is at the largest exponent
            if y == 0 or y == N:
                tot += _a**N / (1 + _a)
            else:
                tot += cc * _a ** max(y, N - y)
        good = _zero(tot - gamma_geometric(mm).subs(alpha, _a))
        ok = ok and good
        det.append(f"m={mm}: {good}")
    return SymbolicCheck(
        True if ok else None,
        "column minima at the farther input (α^t decreasing for α ∈ (0,1)); symbolic sums for m = 2..8",
        "; ".join(det),
    )


def _check_clone_identity(r):
    cc, uu = sp.Symbol("c", integer=True, nonnegative=True), sp.Symbol("u", integer=True, nonnegative=True)
    v = cc + 1 - uu
    # P(u, v) given C = c: u = A + Δ; Q(u, v): u = A + 1 − Δ
    Pc = (sp.binomial(cc, uu - 1) * _e + sp.binomial(cc, uu)) / (2**cc * (_e + 1))
    Qc = (sp.binomial(cc, uu - 1) + sp.binomial(cc, uu) * _e) / (2**cc * (_e + 1))
    ratio = sp.simplify(sp.combsimp(Pc / Qc) - (_e * uu + v) / (uu + _e * v)) == 0
    nn, mm, pp = (
        sp.Symbol("n", integer=True, positive=True),
        sp.Symbol("m", integer=True, nonnegative=True),
        sp.Symbol("p", positive=True),
    )
    lhs = sp.binomial(nn - 1, mm) * pp**mm * (1 - pp) ** (nn - 1 - mm) / (mm + 1)
    rhs = sp.binomial(nn, mm + 1) * pp ** (mm + 1) * (1 - pp) ** (nn - mm - 1) / (nn * pp)
    mix = sp.simplify(sp.combsimp(lhs / rhs)) == 1
    ok = ratio and mix
    return SymbolicCheck(
        True if ok else None,
        "likelihood ratio of the pair given C = c (combsimp); Bin(n−1,p)(m)/(m+1) = Bin(n,p)(m+1)/(np)",
        f"P/Q = (eu+v)/(u+ev): {ratio}; mixture identity: {mix}; the step H_c = E[(Σ_{{i≤c+1}} L_i)_+]/(c+1) "
        "is the sufficient statistic of exact/shuffled/krr.py (checked against the enumerated pair in the tests)",
    )


# ================================================================== results
_H_E0 = Hypothesis(Ge(epsilon0, 0), "epsilon0 >= 0")
_H_E = Hypothesis(Ge(epsilon, 0), "epsilon >= 0")

FO_L_VALUES = TABLE.register(
    "FO L values",
    statement=sp.And(*[Eq(kk, v) for kk, v in L_VALUES.items()]),
    hypotheses=(_H_E0, _H_E),
)


def _gamma_and_law(name, gamma_value, hypotheses, law, check):
    """Register an oracle's two results, ``FO gamma [name]`` (γ = its closed form, under ``hypotheses``) and
    ``FO L law [name]`` (each atom of the law of L equals its closed form), both proved by ``check``."""
    return (
        TABLE.register(f"FO gamma [{name}]", statement=Eq(gamma, gamma_value), hypotheses=hypotheses, symbolic=check),
        TABLE.register(f"FO L law [{name}]", statement=sp.And(*[Eq(s, v) for s, v in law.items()]), symbolic=check),
    )


FO_GAMMA_UE, FO_LAW_UE = _gamma_and_law(
    "ue", GAMMA_UE, TABLE.hyps("k >= 2", "q < p", "q > 0", "p < 1"), LAW_UE, _check_ue
)
FO_GAMMA_OLH, FO_LAW_OLH = _gamma_and_law("olh", GAMMA_OLH, (*TABLE.hyps("g >= 2"), _H_E0), LAW_OLH, _check_olh)
FO_GAMMA_HR, FO_LAW_HR = _gamma_and_law("hadamard", GAMMA_HR, (*TABLE.hyps("K >= 4"), _H_E0), LAW_HR, _check_hadamard)
FO_GAMMA_SUBSET, FO_LAW_SUBSET = _gamma_and_law(
    "subset", GAMMA_SUBSET, (*TABLE.hyps("d >= 1", "d <= k - 1"), _H_E0), LAW_SUBSET, _check_subset
)

FO_TRIPLE_OLH = TABLE.register(
    "FO triple law [olh]",
    statement=sp.And(*[Eq(P_TRIPLE[key], v) for key, v in TRIPLE_OLH.items()]),
    hypotheses=(*TABLE.hyps("g >= 2"), _H_E0),
    symbolic=_check_olh_triple,
)


# ---------------------------------------------------------------- local hashing without a stated 3-wise collision
#: the single-hit statistic's classes of a hit triple (h_x, h_x', h_z): when the report hits exactly one of x, x', z,
#: which one ((1, 1) for z alone), else the lumped class (exact.shuffled.oracle_exact._third_key, "single-hit")
def _single_hit_class(a: int, b: int, cc: int) -> tuple:
    if a + b + cc != 1:
        return (0, 0)
    return (a, b) if cc == 0 else (1, 1)


def _single_hit_law(t):
    """``{input: {class: P}}`` of the single-hit statistic from :data:`TRIPLE_OLH` at the 3-wise collision ``t``
    (inputs 0 = x, 1 = x', 2 = z; ``P_u`` of a triple is ``P_z·e^{ε0(h_u − h_z)}``)."""
    out: dict = {u: {} for u in (0, 1, 2)}
    for (a, b, cc), v in TRIPLE_OLH.items():
        key = _single_hit_class(a, b, cc)
        for u, hu in ((0, a), (1, b), (2, cc)):
            out[u][key] = out[u].get(key, 0) + v.subs(t3, t) * E0 ** (hu - cc)
    return out


def _single_hit_brute(mech, n: int, ee) -> Any:
    """The exact δ (max of both directions) of ``x z^{n−1}`` vs ``x' z^{n−1}`` (x, x', z = 0, 1, 2) post-processed by
    the single-hit statistic, from an explicit family's matrix rows (every output ``(h, y)`` classified by its hits
    ``h(u) = y``) and an enumeration of the histograms of the n classes: exact rationals, independent of the triple
    law."""
    from flint import fmpq

    rows, gg = mech.rows(), mech.g
    law: dict = {u: {} for u in (0, 1, 2)}
    for j, h in enumerate(mech.family):
        for y in range(gg):
            key = _single_hit_class(*(int(h[u] == y) for u in (0, 1, 2)))
            for u in (0, 1, 2):
                law[u][key] = law[u].get(key, fmpq(0)) + rows[u][j * gg + y]

    def hist(first: int) -> dict:
        dist = {(): fmpq(1)}
        for lw in [law[first]] + [law[2]] * (n - 1):
            new: dict = {}
            for hh, pp in dist.items():
                for cl, qq in lw.items():
                    key = tuple(sorted((*hh, cl)))
                    new[key] = new.get(key, fmpq(0)) + pp * qq
            dist = new
        return dist

    P, Q = hist(0), hist(1)
    fwd = sum((max(P[h] - ee * Q.get(h, 0), 0) for h in P), fmpq(0))
    bwd = sum((max(Q[h] - ee * P.get(h, 0), 0) for h in Q), fmpq(0))
    return max(fwd, bwd)


def _check_olh_every(r):
    """(a) ``q(t) = P_z(1,0,0) = P_z(0,1,0) = (1 − 2c + t)·p_l`` (and ``P_z(0,0,1) = e^{ε0} q(t)``), increasing in
    ``t``; (b) the kernel "keep a single-hit report with probability q(t1)/q(t2), else lump it" maps the single-hit law at ``t2`` to the one at
    ``t1`` for x, x' and z (symbolic ``t1, t2``); (c) on the three explicit families, at n = 2 (and 3 for the two
    smaller ones) and e^ε = 5/4, the code's bound (exact.shuffled.oracle_exact.every_family_delta on the record stripped of its
    3-wise collision: only c and constant stated) is ≤ the family's own single-hit δ and ≤ its unprojected pair's
    exact δ (explicit matrices, exact rationals)."""
    from blanket.exact.mechanisms.oracles import OLH
    from blanket.exact.shuffled.enumerate import delta_dataset
    from blanket.exact.shuffled.oracle_exact import every_family_delta
    from flint import fmpq

    det, ok = [], True
    q_t = (1 - 2 * c + t3) * PL_OLH
    qa = _zero(TRIPLE_OLH[(1, 0, 0)] - q_t) and _zero(TRIPLE_OLH[(0, 1, 0)] - q_t)
    qa = qa and _zero(TRIPLE_OLH[(0, 0, 1)] - E0 * q_t)
    qd = _zero(sp.diff(q_t, t3) - PL_OLH)
    ok = ok and qa and qd
    det.append(f"q(t) = (1 - 2c + t) p_l, z alone e^eps0 q(t): {qa}; dq/dt = p_l > 0: {qd}")
    t1, t2 = sp.symbols("t1 t2")
    law1, law2 = _single_hit_law(t1), _single_hit_law(t2)
    ratio = q_t.subs(t3, t1) / q_t.subs(t3, t2)
    garb = True
    kept = ((1, 0), (0, 1), (1, 1))
    for u in (0, 1, 2):
        moved = {key: law2[u][key] * ratio for key in kept}
        moved[(0, 0)] = law2[u][(0, 0)] + sum(law2[u][key] * (1 - ratio) for key in kept)
        garb = garb and all(_zero(moved[key] - law1[u][key]) for key in law1[u])
    ok = ok and garb
    det.append(f"garbling t2 -> t1 (x, x', z): {garb}")
    ee = fmpq(5, 4)
    for label, gg, fam in _triple_families():
        e0 = 3 if gg == 2 else 2
        fm = OLH(3, gg, exp_epsilon0=e0, family=fam, constant="family")
        bare = OLH(3, gg, exp_epsilon0=e0, collision=fm.collision, constant=fm.constant)
        for nn in (2,) if gg == 3 and len(fam) == 27 else (2, 3):  # 81 outputs at n = 3: the enumeration's cost
            got = every_family_delta(bare, nn, exp_epsilon=ee)
            if got is None:
                ok = False
                det.append(f"{label} n = {nn}: no bound")
                continue
            bound, tt = got
            own = _single_hit_brute(fm, nn, ee)
            full = delta_dataset(fm.matrix(), [2] * (nn - 1), 0, 1, exp_epsilon=ee)
            full = getattr(full, "value", full)
            good = isinstance(bound, fmpq) and bound <= own and bound <= full
            ok = ok and good
            det.append(f"{label} (t = {fm.triple}) n = {nn}: bound {bound} at t = {tt} <= single-hit {own}: {good}")
    return SymbolicCheck(
        True if ok else False, "symbolic q(t) and garbling; exact check on three explicit families", "; ".join(det)
    )


FO_OLH_EVERY = TABLE.register(
    "FO single-hit every family [olh]",
    statement=Le(sp.Function("SingleHitThirdValue")(n, c, kappa, epsilon0, epsilon), sp.Symbol("delta_family")),
    hypotheses=(*TABLE.hyps("g >= 2"), _H_E0),
    symbolic=_check_olh_every,
)

_Nsym = m - 1
FO_GAMMA_GEOMETRIC = TABLE.register(
    "FO gamma [geometric]",
    statement=Eq(
        gamma,
        (
            2 * alpha ** (sp.floor(_Nsym / 2) + 1)
            + sp.Piecewise(((1 - alpha) * alpha ** (_Nsym / 2), sp.Eq(sp.Mod(_Nsym, 2), 0)), (0, True))
        )
        / (1 + alpha),
    ),
    hypotheses=TABLE.hyps("m >= 2", "alpha > 0", "alpha < 1"),
    symbolic=_check_geometric,
)

FO_CLONE_IDENTITY = TABLE.register(
    "FO clone identity",
    statement=Eq(
        sp.Function("HockeyStickClonePair")(n, epsilon0, epsilon),
        sp.Function("BlanketViewBinaryRR")(n, epsilon0, epsilon),
    ),
    symbolic=_check_clone_identity,
)


# ---------------------------------------------------------------- FMT21 closed form
def _fmt_terms():
    a = 8 * sp.sqrt(E0 * sp.log(4 / delta)) / sp.sqrt(n)
    b = 8 * E0 / n
    return a, b


def _fmt_paper():
    a, b = _fmt_terms()
    return sp.log(1 + (E0 - 1) / (E0 + 1) * (a + b))


def _fmt_code():
    a, b = _fmt_terms()
    et = sp.log(1 + a + b)
    return sp.log(1 + (1 - sp.exp(-epsilon0)) / (1 + sp.exp(-epsilon0 - et)) * (a + b))


def _clone_epsilon_reference(**pp):
    """Reference for the FMT21 closed forms: the certified lower end of the central ε of shuffled binary RR (an ε0-LDP randomizer)."""

    return _binary_epsilon_reference(**pp)


def _fmt21(variant, bound, c):
    """Register ``FMT21 Theorem 3.1 [variant]``: ε ≤ ``bound`` for ε0 ≤ log(n/(16 log(c/δ))), δ ∈ (0, 1)."""
    return TABLE.register(
        f"FMT21 Theorem 3.1 [{variant}]",
        statement=Le(epsilon, bound),
        hypotheses=(
            *TABLE.hyps("epsilon0 > 0", "delta > 0", "delta < 1"),
            Hypothesis(Le(epsilon0, sp.log(n / (16 * sp.log(c / delta)))), f"epsilon0 <= log(n/(16 log({c}/delta)))"),
        ),
        exact=_clone_epsilon_reference,
    )


FMT21_PAPER = _fmt21("paper", _fmt_paper(), 2)
FMT21_CODE = _fmt21("code", _fmt_code(), 4)


# ---------------------------------------------------------------- the merged (fast) blanket view
def _check_merged(r):
    """v_rest − v_both = γ(e−1)(ee−1) ≥ 0 and v_rest ≤ 0 for e, ee ≥ 1: raising an atom raises E[(Σ V)_+]."""
    uu, ww, gg = sp.Symbol("u", nonnegative=True), sp.Symbol("w", nonnegative=True), sp.Symbol("gamma", positive=True)
    vals = {kk: v.subs({gamma: gg, E0: 1 + uu, E: 1 + ww}) for kk, v in L_VALUES.items()}
    gap = sp.factor(vals[L_rest] - vals[L_both])
    ok1 = sp.simplify(gap - gg * uu * ww) == 0
    ok2 = sp.simplify(vals[L_rest] + gg * ww) == 0  # v_rest = −γ(ee−1) ≤ 0
    ok = ok1 and ok2
    return SymbolicCheck(
        True if ok else None,
        "with e = 1+u, ee = 1+w (u, w ≥ 0): v_rest − v_both = γuw ≥ 0; (·)_+ is non-decreasing",
        f"v_rest − v_both = {gap}; v_rest = {sp.simplify(vals[L_rest])}",
    )


def _view_dominated(key, upper, check):
    """Register ``key``: BlanketView(n, ε0, ε) ≤ ``upper``(n, ε0, ε) for ε0, ε ≥ 0, proved symbolically by ``check``."""
    return TABLE.register(
        key,
        statement=Le(sp.Function("BlanketView")(n, epsilon0, epsilon), sp.Function(upper)(n, epsilon0, epsilon)),
        hypotheses=(_H_E0, _H_E),
        symbolic=check,
    )


FO_MERGED = _view_dominated("FO merged blanket view", "BlanketViewMerged", _check_merged)


def _check_zeroed(r):
    """v_both = −γe(ee−1) ≤ 0 and v_rest = −γ(ee−1) ≤ 0 for e, ee ≥ 1: raising both atoms to 0 raises E[(Σ V)_+]."""
    uu, ww, gg = sp.Symbol("u", nonnegative=True), sp.Symbol("w", nonnegative=True), sp.Symbol("gamma", positive=True)
    vals = {kk: v.subs({gamma: gg, E0: 1 + uu, E: 1 + ww}) for kk, v in L_VALUES.items()}
    neg_both, neg_rest = sp.expand(-vals[L_both]), sp.expand(-vals[L_rest])
    ok = sp.simplify(neg_both - gg * (1 + uu) * ww) == 0 and sp.simplify(neg_rest - gg * ww) == 0
    ok = ok and bool(neg_both.is_nonnegative) and bool(neg_rest.is_nonnegative)
    return SymbolicCheck(
        True if ok else None,
        "with e = 1+u, ee = 1+w (u, w ≥ 0): −v_both = γ(1+u)w ≥ 0, −v_rest = γw ≥ 0; (·)_+ is non-decreasing",
        f"−v_both = {neg_both}; −v_rest = {neg_rest}",
    )


FO_ZEROED = _view_dominated("FO zeroed blanket view", "BlanketViewZeroed", _check_zeroed)


# ---------------------------------------------------------------- the geometric mechanism: one dominating law (Lemma O2)
def _check_geometric_cover(r):
    """Every ratio R_x(y)/R_z(y) of the clamped geometric mechanism is α^t with t ≥ −(m−1), so
    r_x(y) = R_x(y)/min_z R_z(y) = max_z R_x(y)/R_z(y) ∈ [1, e^{ε0}] and every value γ(r_x − ee·r_{x'}) of L lies in
    [γ(1 − ee·e^{ε0}), γ(e^{ε0} − ee)]: the default knots cover every pair (symbolic, m = 2..6)."""
    ok = True
    for mm in range(2, 7):
        N = mm - 1
        cc = (1 - _a) / (1 + _a)

        def row(x, y, N=N, cc=cc):
            return _a**x / (1 + _a) if y == 0 else (_a ** (N - x) / (1 + _a) if y == N else cc * _a ** abs(y - x))

        for y in range(mm):
            for x in range(mm):
                for z in range(mm):
                    t = sp.powsimp(sp.simplify(row(x, y) / row(z, y)))
                    base, ex = t.as_base_exp()
                    good = t == 1 or (base == _a and ex.is_integer and ex >= -N)
                    ok = ok and bool(good)
        # the O(m² log m) route (docs/mechanisms.md "The dominating law in O(m² log m)"): every row sums to 1 (so
        # E[V] = γ(1 − ee) for every pair) and, for x < x', R_x(y)/R_{x'}(y) = α^{t(y)} with t non-decreasing in y
        # (the ratio non-increasing: the positive part of R_x − ee·R_{x'} is a prefix of the outputs)
        for x in range(mm):
            ok = ok and sp.simplify(sum(row(x, y) for y in range(mm)) - 1) == 0
            for x2 in range(x + 1, mm):
                ts = []
                for y in range(mm):
                    t = sp.powsimp(sp.simplify(row(x, y) / row(x2, y)))
                    base, ex = (_a, sp.Integer(0)) if t == 1 else t.as_base_exp()
                    ok = ok and base == _a and bool(ex.is_integer)
                    ts.append(ex)
                ok = ok and all(bool(ts[i] <= ts[i + 1]) for i in range(len(ts) - 1))
    return SymbolicCheck(
        True if ok else None,
        "each ratio R_x(y)/R_z(y) is α^t with t ≥ −(m−1) (symbolic, m = 2..6), so r_x(y) ∈ [1, e^{ε0}]; every row "
        "sums to 1; for x < x' the exponent of R_x(y)/R_{x'}(y) is non-decreasing in y (monotone likelihood ratio)",
        f"checked m = 2..6: {ok}",
    )


FO_GEOMETRIC_DOMINATING = _view_dominated(
    "FO geometric dominating law", "BlanketViewDominating", _check_geometric_cover
)


# ---------------------------------------------------------------- Lemma G1: one randomizer for every user
def _check_same_randomizer(r):
    """The algebra of Lemma G1's spread (docs/mechanisms.md), with e = 1+u, e^ε = 1+w and an output of ratio 1+v
    (0 ≤ v ≤ u) in either direction: the split's masses are ≥ 0, its blanket mass is at least the old one (the extra
    mass comes from the 0 atom), the mean of G is kept, the old value of G lies between the two new ones (any w), so
    does the 0 atom when w ≤ u, and a pair with ratios e and 1/e only is binary RR's (masses 1/(e+1) on both values
    of G).  Each inequality: a numerator and a denominator that are polynomials with non-negative coefficients."""
    uu, vv, ww, zz, mass = (sp.Symbol(s, nonnegative=True) for s in ("u", "v", "w", "z", "m"))
    ee_ = 1 + uu
    a = 1 + ww

    def split(p, q):
        qp = (p - q / ee_) / (ee_ - 1 / ee_)
        qm = q - qp
        return qp, qm, ee_ * qp, qm / ee_  # q+, q−, p+ = e·q+, p− = q−/e

    ok = True
    for p, q, big in ((mass * (1 + vv), mass, mass * (1 + vv)), (mass, mass * (1 + vv), mass * (1 + vv))):
        qp, qm, pp, pm = split(p, q)
        on_v = {uu: vv + zz}  # v ≤ u
        for x in (qp, qm, qp + pm - big / ee_):
            num, den = sp.fraction(sp.factor(sp.simplify(x.subs(on_v))))
            ok = (
                ok
                and sp.Poly(sp.expand(num), mass, vv, zz).coeffs() != []
                and all(c >= 0 for c in sp.Poly(sp.expand(num), mass, vv, zz).coeffs())
            )
            ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(den), vv, zz).coeffs())
        ok = ok and sp.simplify(qp * (ee_ - a) + pm * (1 - a * ee_) - (p - a * q)) == 0
        g_old = (p - a * q) / (big / ee_)
        for x in ((ee_ - a) - g_old, g_old - (1 - a * ee_)):  # needs v ≤ u only (any w ≥ 0)
            num, den = sp.fraction(sp.factor(sp.simplify(x.subs(on_v))))
            ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(num), ww, vv, zz, mass).coeffs())
            ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(den), ww, vv, zz, mass).coeffs())
    # the 0 atom lies in [1 − e^ε·e, e − e^ε] when ε ≤ ε0 (w ≤ u: u = w + z); for ε ≥ ε0 δ = 0 anyway
    ok = ok and all(c >= 0 for c in sp.Poly(sp.expand((ee_ - a).subs({uu: ww + zz})), ww, zz).coeffs())
    ok = ok and all(c >= 0 for c in sp.Poly(sp.expand(a * ee_ - 1), ww, uu).coeffs())
    yp, ym = sp.symbols("y_plus y_minus", nonnegative=True)  # q'(Y+) and q'(Y−)
    sol = sp.solve([yp + ym - 1, ee_ * yp + ym / ee_ - 1], [yp, ym], dict=True)
    ok = ok and len(sol) == 1 and sp.simplify(sol[0][yp] - 1 / (ee_ + 1)) == 0
    ok = ok and sp.simplify(sol[0][ym] / ee_ - 1 / (ee_ + 1)) == 0
    return SymbolicCheck(
        True if ok else None,
        "e = 1+u, e^eps = 1+w, ratio 1+v (v <= u): masses >= 0, blanket mass grows, mean kept, old values inside "
        "[1 - e^eps·e, e - e^eps] (0 too when w <= u), and ratios {e, 1/e} force binary RR's masses 1/(e+1)",
        "polynomial numerators and denominators with non-negative coefficients after u = v + z (u = w + z for 0)",
    )


SAME_RANDOMIZER = TABLE.register(
    "Lemma G1 [same randomizer]",
    statement=Le(
        sp.Function("DeltaShuffledSameRandomizer")(n, epsilon0, epsilon),
        sp.Function("BlanketViewBinaryRR")(n, epsilon0, epsilon),
    ),
    hypotheses=(
        _H_E0,
        _H_E,
        Hypothesis(
            sp.true,
            "one epsilon0-LDP randomizer, fixed before the round, run by every user on their own value (not chosen "
            "adaptively, not client-specific); replace-one neighbours, both orders",
        ),
    ),
    symbolic=_check_same_randomizer,
)


def _check_adaptive(r):
    """Lemma G1 in FMT21's adaptive model (docs/mechanisms.md): Lemma G1's spread (the same algebra, step 4) and the
    counting identity of steps 2–3: ``(|S|−1)!/n!`` times the ``(n−1)!/(|S|−1)!`` injective placements of the other
    users on the L steps is ``1/n`` whatever ``|S|`` (so the flagged view is ``(1/n)·P_Ψ·Σ_{t∈S} G_t``)."""
    spread = _check_same_randomizer(r)
    nn, ss = sp.symbols("n s", positive=True, integer=True)
    count = sp.simplify(
        sp.combsimp(sp.factorial(ss - 1) / sp.factorial(nn) * sp.factorial(nn - 1) / sp.factorial(ss - 1)) - 1 / nn
    )
    ok = spread.proved is True and count == 0
    return SymbolicCheck(
        True if ok else None,
        spread.method + "; ((|S|-1)!/n!)·(n-1)!/(|S|-1)! = 1/n",
        spread.detail + "; combsimp of the factorial ratio",
    )


ADAPTIVE = TABLE.register(
    "Lemma G1 [adaptive]",
    statement=Le(
        sp.Function("DeltaShuffledAdaptiveLDP")(n, epsilon0, epsilon),
        sp.Function("BlanketViewBinaryRR")(n, epsilon0, epsilon),
    ),
    hypotheses=(
        _H_E0,
        _H_E,
        Hypothesis(
            sp.true,
            "FMT21's model: each R_i epsilon0-LDP, chosen from the earlier reports only, applied to the uniformly "
            "permuted data (not client-specific); replace-one neighbours, both orders",
        ),
    ),
    symbolic=_check_adaptive,
)


def _sampled_g1_law_ok(e, qq, ee, rec) -> bool:
    """The sampled bound's four atoms (``generic_ldp.sampled_model_delta``) are binary RR's ``R_q`` blanket view: the
    explicit matrix ``R_q`` (``q``·binary RR, a ``⊥`` column of ``1 − q``) has ``γ_q = 1 − q + 2q/(e+1)``, its global
    blanket takes all of ``⊥``'s mass (``1 − q`` in every row), and ``G = L/γ_q`` w.p. ``γ_q·ω``, else 0, is ``1 − e^ε``
    w.p. ``1 − q``, ``e − e^ε`` and ``1 − e^ε·e`` w.p. ``q/(e+1)`` each, else 0; so does ``rec``, the four-value record
    the accountant composes for a sampled ``ldp`` round (its atoms at 0 left aside).  Exact rationals."""
    from blanket.exact.mechanisms.finite import FiniteRandomizer, amplification_law

    rows = [[qq * e / (e + 1), qq / (e + 1), 1 - qq], [qq / (e + 1), qq * e / (e + 1), 1 - qq]]
    mq = FiniteRandomizer(rows)
    g = mq.gamma()
    ok = g == 1 - qq + 2 * qq / (e + 1)
    blanket = [min(r[y] for r in rows) for y in range(3)]
    ok = ok and blanket[2] == 1 - qq and all(r[2] == blanket[2] for r in rows)
    want = {1 - ee: 1 - qq, e - ee: qq / (e + 1), 1 - ee * e: qq / (e + 1)}
    for x, x2 in ((0, 1), (1, 0)):
        got: dict = {}
        for v, pr in amplification_law(mq, x, x2, exp_epsilon=ee):
            got[v / g] = got.get(v / g, 0) + pr * g
        rest = 1 - sum(got.values())
        ok = ok and rest == qq * (e - 1) / (e + 1)
        ok = ok and all(got.get(v, 0) == pr for v, pr in want.items()) and len(got) == len(want)
    mine: dict = {}  # the four-value record the accountant composes (binary RR's R_q as subset k = 2, d = 1)
    for v, pr in rec.l_law(exp_epsilon=ee):
        if pr != 0 and v != 0:
            mine[v / rec.gamma()] = mine.get(v / rec.gamma(), 0) + pr * rec.gamma()
    ok = ok and rec.gamma() == g and rec.exp_epsilon0() == e
    return ok and mine == {v: pr for v, pr in want.items() if v != 0 and pr != 0}


def _sampled_worst(rows: list, n_users: int, qq, ees: list) -> list:
    """The exhaustive worst ``H_{e^ε}`` of the sampled shuffled round of the matrix ``rows`` (each user takes part w.p.
    ``qq``; the histogram of the reports is released), over every dataset and both orders, enumerated by
    participation (independent of the code's ``R_q``).  Exact rationals, O(k_in^n·(k_out + 1)^n)."""
    k_in, k_out = len(rows), len(rows[0])

    def law(users):
        out: dict = {(0,) * k_out: 1}
        for u in users:
            nxt: dict = {}
            for h, pr in out.items():
                nxt[h] = nxt.get(h, 0) + pr * (1 - qq)
                for y in range(k_out):
                    hh = h[:y] + (h[y] + 1,) + h[y + 1 :]
                    nxt[hh] = nxt.get(hh, 0) + pr * qq * rows[u][y]
            out = nxt
        return out

    worst = [0] * len(ees)
    for others in itertools.combinations_with_replacement(range(k_in), n_users - 1):
        for x, x2 in itertools.permutations(range(k_in), 2):
            a, b = law((*others, x)), law((*others, x2))
            for i, ee in enumerate(ees):
                worst[i] = max(worst[i], sum((max(pa - ee * b.get(h, 0), 0) for h, pa in a.items()), 0))
    return worst


def _check_sampled_g1(r):
    """Lemma G1 under sampled participation (docs/mechanisms.md): Lemma G1-A's steps (the spread's algebra and the
    counting identity, :func:`_check_adaptive`) plus the new step, the blanket with all of ``⊥``'s mass, whose view's
    variable is the mixture ``(1 − q)·δ_{1−e^ε} + q·G`` (convex order is kept by mixing with a common law): checked
    on exact instances, the four atoms equal binary RR's ``R_q`` blanket view (``e^{ε0} ∈ {2, 3}``, ``q ∈ {1/2,
    1/5}``, three ``e^ε``); and the exhaustive worst ``H_{e^ε}`` of the sampled round of binary RR, 3-RR and two 3 × 3
    matrices (``e^{ε0} = 3``, ``n = 2, 3``, ``q ∈ {1/2, 1/5}``, ``e^ε ∈ {1, 3/2, 2}``) is at most the code's exact
    value (``generic_ldp.sampled_model_delta``), which is at most the accountant's curve pair for
    ``Sampled(Shuffled(LDP(3), n), q)`` (binary RR's ``R_q`` as a four-value record).
    ``None`` (instances, not a proof of the mixture step, which the docs prove) when all hold, ``False`` when one
    fails (e.g. ``q²`` for ``q``, or ``q``·Lemma G1)."""
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled
    from blanket.exact.accounting.sampled import Sampled, SampledFourValue, binary_four_value
    from blanket.exact.mechanisms.oracles import LDP
    from blanket.exact.shuffled.generic_ldp import sampled_model_delta
    from flint import fmpq

    base = _check_adaptive(r)
    ok = base.proved is True
    F = fmpq
    for e in (F(2), F(3)):
        for qq in (F(1, 2), F(1, 5)):
            rec = SampledFourValue(binary_four_value(LDP(exp_epsilon0=e)), qq)
            for ee in (F(1), F(3, 2), e):
                ok = ok and _sampled_g1_law_ok(e, qq, ee, rec)
    e = F(3)
    mats = [
        [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]],
        [
            [e / (e + 2), 1 / (e + 2), 1 / (e + 2)],
            [1 / (e + 2), e / (e + 2), 1 / (e + 2)],
            [1 / (e + 2)] * 2 + [e / (e + 2)],
        ],
        [[F(1, 2), F(1, 4), F(1, 4)], [F(1, 4), F(1, 2), F(1, 4)], [F(1, 6), F(1, 3), F(1, 2)]],
        [[F(3, 5), F(1, 5), F(1, 5)], [F(1, 5), F(3, 10), F(1, 2)], [F(1, 5), F(2, 5), F(2, 5)]],
    ]
    ees = [F(1), F(3, 2), F(2)]
    for mat in mats:
        ok = ok and all(max(c) <= e * min(c) for c in zip(*mat)) and all(sum(row) == 1 for row in mat)
    for n_users in (2, 3):
        for qq in (F(1, 2), F(1, 5)):
            pair = ShuffleAccountant()._curve_of(Sampled(Shuffled(LDP(exp_epsilon0=e), n_users), qq))
            ok = ok and pair is not None
            for mat in mats:
                for ee, w in zip(ees, _sampled_worst(mat, n_users, qq, ees)):
                    b = sampled_model_delta(LDP(exp_epsilon0=e), n_users, qq, exp_epsilon=ee)
                    ok = ok and isinstance(b, fmpq) and w <= b and pair is not None and b <= pair.hockey_stick(ee)
    return SymbolicCheck(
        None if ok else False,
        base.method + "; the sampled blanket's four atoms = binary RR's R_q view (exact); exhaustive worst case of "
        "the sampled round (binary RR, 3-RR, two 3x3 matrices, e^eps0 = 3, n = 2, 3, q = 1/2, 1/5, 3 values of "
        "e^eps) <= the exact bound <= the accountant's curve pair",
        base.detail + "; exact rationals; the mixture step (convex order kept under a common mixture) is the docs'",
    )


SAMPLED_G1 = TABLE.register(
    "Lemma G1 [sampled]",
    statement=Le(
        sp.Function("DeltaShuffledSampledLDP")(n, epsilon0, epsilon, q),
        sp.Function("SampledBlanketViewBinaryRR")(n, epsilon0, epsilon, q),
    ),
    hypotheses=(
        _H_E0,
        _H_E,
        Hypothesis(
            sp.true,
            "each user takes part independently w.p. q (0 < q <= 1) and then reports in FMT21's model (each R_i "
            "epsilon0-LDP, chosen from the earlier reports, on the uniformly permuted data) or with one randomizer "
            "for every user; the multiset of the reports (so their number) is released; replace-one neighbours, both "
            "orders",
        ),
    ),
    symbolic=_check_sampled_g1,
)


TABLE.complete()
