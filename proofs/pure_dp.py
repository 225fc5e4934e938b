"""Cheu–Yan, *Pure Differential Privacy from Secure Intermediaries* (paper key CY21).

Reference: ``docs/reference/pure_dp.md``.  The paper's formulas were
lost; the reference fixes **one precise reading** of the Section 3 construction
(the relaxed aggregator built from shuffled bits) and of Claims 3.3–3.8.
Every Section 3 result below is a **statement in this project's reading of
the construction** (status "this project's reading"); the explicit constants
of Claims 3.5–3.8 and Corollary 3.7 are *derived by this project* (the
derivations are in the docstrings below) and certified against exact masses
computed by :mod:`exact.protocols.tdlap` over the grids attached to each result.
The exact sides (predicates, masses, ratios, the protocol's error law) live in
:mod:`exact.protocols.pure_sum`; this module holds the statements and their
symbolic derivations and evaluates them through it (the names it uses are
importable from here too).

Notation: ``r = e^{-1/s}`` (symbol ``r``, so that rational ``r`` gives exact
evaluations), ``kappa = e^{1/s} = 1/r``, ``T = TDLap(s, tau)`` with
``T[z] = r^{|z|}/Z_tau``, ``Z_tau = (1 + r - 2 r^{tau+1})/(1-r)``; ``(T*T)[u]``
the self-convolution; for ``y = c + m(2 tau + u)`` (``y ≡ c mod m``)
``(D_c*D_0)[y] = (T*T)[u]`` and ``(D_a*D_b)[y] = (T*T)[u-j]`` where
``a + b = c + j m`` (Fact 3.2: ``j in {0, 1}``).  ``rho = r^{1/m}``; the
mirrored component is ``E_x[v] = rho^{-|v - mu_x|}/N_x`` on ``0..ell``,
``mu_x = x + m tau``, ``ell = m(2 tau+1) - 1``, with the closed-form normaliser
``N_x = f(mu_x) + f(ell - mu_x) - 1``, ``f(D) = (rho^{-(D+1)} - 1)/(rho^{-1} - 1)``.

Derivation of the explicit constants (this project's)
-----------------------------------------------------
*Claim 3.5* (central range).  For ``0 <= u <= 2 tau`` the sum
``(T*T)[u] = Z^{-2} sum_z r^{|z| + |u-z|}`` has ``min(u, 2tau-u) + 1`` terms
equal to ``r^u/Z^2`` (``0 <= z <= u`` inside the window), so
``(T*T)[u] >= (min(u,2tau-u)+1) r^u / Z^2``.  The extra term of Claim 3.4 is
``T[tau] T[u-1-tau] = r^{tau + |u-1-tau|}/Z^2``: ``= r^{2tau+1-u}/Z^2`` for
``u <= tau + 1`` and ``= r^{u-1}/Z^2`` for ``u >= tau + 1``.  Hence
``extra <= theta_c(u) (T*T)[u]`` with
``theta_c(u) = r^{2tau+1-2u}/(u+1)`` for ``1 <= u <= tau`` and
``theta_c(u) = kappa/(2tau-u+1)`` for ``tau < u <= 2tau``.  (The reference's variant form
``r^{2tau-2u+1}/(min(u,2tau-u)+1)`` is also true, and weaker for ``u > tau``.)

*Claim 3.6* (tails).  With ``y = c + m(2tau+u)``, ``0 <= u <= 2tau``, the
``z = tau`` term of ``(E_c*D_0)[y] = sum_z T[z] E_c[y - m(tau+z)]`` is
``T[tau] E_c[c + m u] = T[tau] kappa^{|u-tau|}/N_c``, so
``extra <= theta_t(u) (E_c*D_0)[y]`` with
``theta_t(u) = r^{|u-1-tau| + |u-tau|} N_c / Z``.  In the reverse direction
(``u <= 0``) the extra term ``T[-tau] T[u+tau]`` is absorbed the same way by
the ``z = -tau`` term of ``(E_a*D_b)[y]``: ``theta_t(1-u)`` with ``N_a``.
At the two ends (``u = 2tau+1``, or ``u = -2tau`` in reverse) only
``T[tau]^2`` is left and only ``E*E`` has mass there:
``(E_c*E_0)[y] >= E_c[ell] E_0[y-ell] = kappa^{2tau+1}/(N_c N_0)``, so
``T[tau]^2 <= theta_e (E_c*E_0)[y]``, ``theta_e = r^{4tau+1} N_c N_0 / Z^2``.

*Corollary 3.7*.  Combining (with ``N* = max_x N_x``, attained at ``x = 0``):
for every ``y`` and every pair,
``(1-q)^2 (D_a*D_b)[y] <= e^{eps_1} [(1-q)^2 (D_c*D_0)[y] + q(1-q)(E_c*D_0 + D_c*E_0)[y] + q^2 (E_c*E_0)[y]]``
and symmetrically with ``(a,b)`` and ``(c,0)`` exchanged, where
``e^{eps_1} = max( kappa, max_{1<=u<=2tau} min(kappa + theta_c(u), max(kappa, (1-q) theta_g*(u)/q)), (1-q)^2 theta_e*/q^2 )``
(``theta_g*``, ``theta_e*`` with ``N*``; ``theta_g <= theta_t`` is the geometric form of Claim 3.6 below).  Proof: Claim 3.4 gives
``(T*T)[u-1] <= kappa (T*T)[u] + extra``; absorb the extra term either in
``(T*T)[u]`` (Claim 3.5) or in the mirrored mass (Claim 3.6), whichever is
smaller; ``a x + b y <= max(a, b)(x + y)``.  For ``j = 0`` the groups are equal
(Claim 3.3).

*Claim 3.8* (mixed and mirrored groups), pairing form: the pairing inequality
``(X_a*Y_b)[y] <= C_X C_Y [kappa^{|j|} (X_c*Y_d)[y] + U(y)] + R_bd(y)``, proved
in :meth:`exact.protocols.tdlap.Groups.pairing_rhs` (all terms pair off within a factor
``kappa`` after an exact normaliser identity ``E_a[v] = (N_c/N_a) E_c[v+c-a]``;
``U`` is the single unpaired lattice term or the ``<= m`` window-edge terms,
``R_bd`` the ``< m`` boundary terms, both explicit finite sums of component
masses).  For the mirrored group a second, boundary-free pairing holds:
``(E_a*E_b)[y] <= (N_c N_d/(N_a N_b)) rho^{-(|a-c|+|b-d|)} (E_c*E_d)[y]``
(same index; ``|v-mu_a| >= |v-mu_c| - |a-c|``), Claim 3.8 [EE same-index].
:func:`claims_pair_bound` combines these pointwise (variant [combined]).

*Claim 3.6, geometric form.*  For ``y = c + m(2tau+u)``, ``0 <= u <= 2tau``,
``(E_c*D_0)[y] = G(u)/(Z N_c)`` exactly, where (``z`` runs over the lattice
points whose mirrored partner ``c + m(tau+u-z)`` lies in the window,
``u - tau <= z <= tau``, and the summand is ``r^{|z|} kappa^{|u-z|}``)
``G(u) = [u<tau] (tau-u)(kappa^u + r^u) + kappa^u (r^{2A} - r^{2B+2})/(1-r^2)``,
``A = max(0, u-tau)``, ``B = min(u, tau)`` (constant runs for ``z < 0`` and
``z > u``, a geometric series with ratio ``r^2`` in between).  So the extra
term is ``theta_g(u) = r^{tau+|u-1-tau|} N_c/(Z G(u))`` times the mirrored mass
— the whole geometric series, not only its ``z = tau`` term as in
``theta_t``; Corollary 3.7 uses ``theta_g`` with ``N* = N_max``.  By the
reflection ``z -> -z``, ``(E_a*D_b)[y] = G(1-u)/(Z N_a)`` in the reverse
direction.

*Claim 3.8, closed form* (this project's derivation).  Fix a pair of laws
``P = hat D_{x1} * hat D_{x2}``, ``Q = hat D_{x3} * hat D_{x4}`` with
``x1 + x2 = x3 + x4 + j m`` (``(a,b) -> (c,0)``: ``j in {0,1}``;
``(c,0) -> (a,b)``: ``j in {0,-1}``), the unweighted groups
``P_mix = E_{x1}*D_{x2} + D_{x1}*E_{x2}``, ``P_EE = E_{x1}*E_{x2}`` (and the
same for ``Q``), ``N_max = N_0`` and ``N_min = N_{floor((m-1)/2)}`` (``N_x`` is
symmetric under ``x -> m-1-x`` and convex in ``x``), ``C_N = N_max/N_min``.

(i) *Windows.*  At a fixed ``y`` every mixed term is ``T[z] g(z)/N`` with
``g(z) = rho^{-|y - x3 - x4 - 2m tau - m z|}`` (for ``P`` after ``z -> z + j``:
``T[z] g(z+j)``), summed over a window
``W(o) = {z : 0 <= y - m tau - o - m z <= ell}`` of ``2tau+1`` consecutive
integers, ``o`` the offset of the lattice component; for
``o in {0..m-1}`` the window is ``W_lo`` or ``W_hi = W_lo + 1`` according as
``o >= rho_0`` or ``o < rho_0`` (``rho_0 = (y - m tau - ell) mod m``).
(ii) *Carry* (``j = ±1``).  Since ``c < min(a, b)``, ``P``'s windows can be
matched with ``Q``'s so that each ``Q`` window equals its partner or is
shifted by ``j``; then every ``P`` sum is ``<= kappa`` times its partner
(``g(z±1) <= kappa g(z)``; ``T[z∓1] <= kappa T[z]``) except one term per sum,
the lattice point ``±tau`` that leaves ``T``'s support.  With the normaliser
ratios ``<= C_N``: ``P_mix <= C_N kappa Q_mix + (two single terms, |z| = tau)``.
(iii) *No carry* (``j = 0``, ``m >= 3``).  ``P``'s offsets lie between ``Q``'s
(``0 <= a, b <= c``), so at most one window differs from its partner, and
``S(W_lo) = S(W_hi) + h(K) - h(K+2tau+1)`` (``h = T g``): one extra ``P`` term
``e = h(z_e)`` next to the overlap ``O = W_lo ∩ W_hi``.  Both ``Q`` windows
contain ``O``; consecutive ``h`` differ by a factor ``>= r^2``; the support
points of ``O`` next to ``z_e`` number ``n >= nu = tau - |z_e|``; so
``e <= C_N phi(n) Q_mix <= C_N phi(nu) Q_mix`` with
``phi(n) = (1-r^2)/(2 r^2 (1-r^{2n}))``; when ``n < nu*`` the term goes to
``Q_EE`` instead, with ``nu <= n < nu*``.
(iv) *Absorption by the mirrored group.*  A single ``P`` mixed term at lattice
index ``z``, ``E_{x1}[v] T[z]`` with ``y = v + w``, is compared with the
``Q_EE`` terms ``E_{x3}[v+i] E_{x4}[w-i] >= rho^{2|i|} E_{x3}[v] E_{x4}[w]``,
``E_{x3}[v] >= (N_{x1}/N_{x3}) rho^{m-1} E_{x1}[v]``,
``E_{x4}[w] >= kappa^{|z|} rho^{m-1}/N_{x4}``; the admissible ``i`` form an
interval of ``M + 1`` integers around 0, ``M = min(y, 2 ell - y)``, so the
term is ``<= R(z) (1-rho^2)/(1-rho^{2(M+1)}) Q_EE[y]`` with
``R(z) = N_max^2/(N_min Z) rho^{-2(m-1)} r^{2|z|}``.  For the no-carry extra
``M + 1 >= m nu``, giving ``psi(nu) = R(tau-nu)(1-rho^2)/(1-rho^{2 max(1, m nu)})``.

(v) *Pure regions.*  For ``y <= m tau`` (every term below both centres) or
``y >= ell + m tau + m - 1`` (above both), every term of ``P_EE`` and of
``Q_EE`` has the same kernel and the two sums have the same number of terms,
so ``P_EE/Q_EE = rho^{∓ j m} N_x3 N_x4/(N_x1 N_x2)`` exactly: ``r`` times the
normalisers on the *carry side* (top for ``j = 1``, bottom for ``j = -1``),
the normaliser ratio alone for ``j = 0``.  The carry extras of (ii) lie on the
carry side (``y >= ell`` for ``j = 1``, ``y < ell`` for ``j = -1``), and where
they lie outside its pure region, ``M >= m tau``; a no-carry edge term whose overlap count is
``n < nu* <= tau`` has ``|z_e| = tau - n`` and lies in a pure region.

Hence, for every ``y``, every pair and both directions
(``geoT = (1-rho^2)/(1-rho^{2(m tau+1)})``):

* Claim 3.8 [mixed, carry]: ``P_mix <= C_N kappa Q_mix + B(y) Q_EE``,
  ``B = 2 R(tau)`` on the carry side's pure region, ``2 R(tau) geoT`` elsewhere;
* Claim 3.8 [mixed, no carry]: for every integer ``nu* >= 1``,
  ``P_mix <= C_N (1 + phi(nu*)) Q_mix + Psi(nu*) Q_EE`` with
  ``Psi(nu*) = max_{0 <= nu < nu*} psi(nu) = max(psi(0), psi(nu*-1))``: for
  ``nu >= 1``, ``psi(nu)/psi(0) = (1-rho^2)/(x(1-x))``, ``x = r^{2nu}``, which
  decreases then increases in ``nu``; it decreases from 1 to 2 only if
  ``x(1)(1 + x(1)) > 1``, i.e. ``r^2 > 0.618``, and then
  ``psi(1)/psi(0) <= 1/(m r^{2(2m-1)/m}) < 1`` (``1 - rho^{2m} >= m rho^{2(m-1)}(1-rho^2)``;
  for ``m = 2`` directly ``1/(rho^4(1+rho^2)) < 0.91``), so the interior maximum
  ``psi(1)`` never exceeds both endpoints (tested against the brute-force max);
  [mixed, no carry, pure regions]: for ``1 <= nu* <= tau`` the ``Psi`` term is
  needed in the pure regions only;
* Claim 3.8 [mirrored]: ``P_EE <= C_N^2 rho^{-D} Q_EE``, ``D = m`` with a
  carry, ``D = 2 floor((m-1)/2)`` without (same-index pairing with the better
  of the two assignments of components), and by (v) ``<= C_N^2 r Q_EE`` on the
  carry side's pure region, ``<= C_N^2 Q_EE`` in the pure regions without a carry;
* Claim 3.6 [into mirrored]: the lattice group's extra term
  ``T[tau] T[u-1-tau] <= xi(u) (E_c*E_0)[y]``,
  ``xi(u) = N_c N_0/Z^2 rho^{-2(m-1)} r^{2(tau + |u-1-tau|)}`` ((iv) applied to
  the two lattice points of the term).

*The closed-form combination* ("Claims 3.3-3.8 [closed form]").  Weight each
group (``(1-q)^2``, ``q(1-q)``, ``q^2``; ``w = (1-q)/q``), bound every group of
``P`` by a non-negative combination of the groups of ``Q`` (the claims above,
Claim 3.3 for ``j = 0``, Claims 3.4/3.5/3.6 for the lattice group with a carry,
the extra term of each ``u`` going to whichever of ``(T*T)[u]`` (``theta_c``),
the mirrored mass of the mixed group (``theta_g``) and the mirrored group
(``xi``) costs least), and take the largest column sum:
``e^{eps_pair} <= max(K_carry, [m >= 3] min_{nu*} K_0(nu*))`` with

* ``K_EE = max(C_N^2 kappa + 2 w R(tau) geoT, C_N^2 r + 2 w R(tau)) + w^2 theta_e*``,
* ``K_carry = max(C_N kappa, K_EE, max_u min(kappa + theta_c(u), C_N kappa + w theta_g*(u), K_EE + w^2 xi*(u)))``,
* ``K_0(nu*) = max(C_N (1 + phi(nu*)), C_N^2 rho^{-2 floor((m-1)/2)}, C_N^2 + w Psi(nu*))``
  for ``1 <= nu* <= tau`` (for ``tau = 0``:
  ``max(C_N (1 + phi(1)), C_N^2 rho^{-2 floor((m-1)/2)} + w Psi(1))``),

(``*``: with ``N_max`` in place of the pair's normalisers).
It is evaluated in ball arithmetic from the sympy definitions below in
``O(tau)`` operations (no convolution), and is within a few percent of the
exact pairwise LLR for small ``q`` (the exact maximum sits at a window edge
of the mixed groups of a no-carry pair, where ``1 + phi`` is nearly attained).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

import sympy as sp
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberOrBall
from blanket.exact.protocols import tdlap as xt
from blanket.exact.protocols.pure_sum import (
    aggregator,
    claim38_ratio,
    claim38_same_index_ratio,
    claims_pair_bound,
    closed_pairing_ratio,
    cor37_exact,
    dlap_shift_llr,
    error_second_moment,
    group_mass,
    groups_at_rho,
    no_carry_gap,
    perfect_security_failure,
    protocol_mse,
    ratio_in,
)
from flint import arb, fmpq

from .core import Hypothesis, Reference, ResultTable, SymbolicCheck, arb_eval

TABLE = ResultTable("pure_dp.toml", globals())

PAPER = "CY21"

# ============================================================ symbols
r = sp.Symbol("r", positive=True)
s = sp.Symbol("s", positive=True)
tau = sp.Symbol("tau", integer=True, nonnegative=True)
u = sp.Symbol("u", integer=True)
q = sp.Symbol("q", positive=True)
m = sp.Symbol("m", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
a, b, c = sp.symbols("a b c", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)
epsilon = sp.Symbol("epsilon", positive=True)
beta = sp.Symbol("beta", positive=True)
zz, jj, vv = sp.symbols("z j v", integer=True)

kappa = 1 / r
Zt = (1 + r - 2 * r ** (tau + 1)) / (1 - r)


def T(z: Any) -> sp.Expr:
    """``TDLap(s, tau)[z]`` as a sympy expression in ``r`` and ``tau``."""
    return sp.Piecewise((r ** sp.Abs(z) / Zt, sp.Abs(z) <= tau), (0, True))


def TT(x: Any) -> sp.Expr:
    """``(T*T)[x]`` as a finite sympy Sum."""
    return sp.Sum(T(zz) * T(x - zz), (zz, -tau, tau))


rho = r ** (1 / m)
ell = m * (2 * tau + 1) - 1


def _f(D):
    return (rho ** (-(D + 1)) - 1) / (rho ** (-1) - 1)


def Nx(x: Any) -> sp.Expr:
    """Closed-form normaliser of the mirrored component ``E_x``."""
    return _f(x + m * tau) + _f(m * tau + m - 1 - x) - 1


def E(x: Any, v: Any) -> sp.Expr:
    """``E_x[v]`` as a sympy expression."""
    return sp.Piecewise((rho ** (-sp.Abs(v - x - m * tau)) / Nx(x), sp.And(v >= 0, v <= ell)), (0, True))


# ============================================================ parameter helpers
def _r(v):
    return ratio_in(v)


def _int(v, name, lo=None):
    return arith.integer_in(v, name, lo=lo)


def _agg(m_, tau_, q_, r_=None, s_=None):
    return aggregator(m_, tau_, q_, r=r_, s=s_)


# ============================================================ definitions (predicates: exact.protocols.pure_sum)
D_ = sp.Function("D")
Dp = sp.Function("D'")
yy = sp.Symbol("y", integer=True)
TABLE.register(
    f"{PAPER} " + "Definition 2.1", statement=sp.Eq(sp.Symbol("d_LLR"), sp.Max(sp.Abs(sp.log(D_(yy) / Dp(yy)))))
)
TABLE.register(f"{PAPER} " + "Definition 2.2", statement=sp.Le(sp.Symbol("d_LLR(M(x), M(x'))"), epsilon))
TABLE.register(f"{PAPER} " + "Definition 2.7", statement=sp.Le(sp.Symbol("Pr[POST(I(y)) != f(y)]"), beta))
TABLE.register(f"{PAPER} " + "Definition 2.8", statement=sp.Le(sp.Symbol("d_LLR(I(y), SIM(f(y)))"), epsilon))
TABLE.register(
    f"{PAPER} " + "Definition 2.9",
    statement=sp.And(
        sp.Le(sp.Symbol("d_LLR(I(y), SIM(f(y)))"), epsilon), sp.Le(sp.Symbol("Pr[POST(I(y)) != f(y)]"), beta)
    ),
)


# ============================================================ Theorem 2.3


TABLE.register(
    f"{PAPER} Theorem 2.3 [llr]",
    statement=sp.Eq(sp.Symbol("d_LLR(DLap(0,1/epsilon), DLap(1,1/epsilon))"), epsilon),
    hypotheses=TABLE.hyps("epsilon > 0", evaluate=True),
    numeric={"lhs": lambda epsilon: dlap_shift_llr(epsilon)},
    exact=lambda epsilon: Reference(dlap_shift_llr(epsilon), "exact LLR (log-ratio linear in |z|-|z-1|)"),
)

TABLE.register(
    f"{PAPER} Theorem 2.3 [std]",
    statement=sp.Le(sp.sqrt(2 * sp.exp(-epsilon)) / (1 - sp.exp(-epsilon)), sp.sqrt(2) / epsilon),
    hypotheses=TABLE.hyps("epsilon > 0", evaluate=True),
    exact=lambda epsilon: Reference(
        arith.ball(xt.dlap_moment(2, s=1 / arith.exact(epsilon))).sqrt(),
        "sqrt of E Z^2 = 2r/(1-r)^2 (closed form, checked against the series in tests)",
    ),
)


# ============================================================ Fact 2.4 and the TDLap normaliser
_zpgf = sp.Symbol("w", positive=True)


def _sym_fact24(res):
    """(A^{1/n} B^{1/n})^n = A B for positive A, B (the share pgfs are positive for r < w < 1/r), and
    A B = (1-r)^2/((1-rw)(1-r/w)) is the DLap pgf (simplify)."""
    rr = sp.Symbol("r", positive=True)
    nn = sp.Symbol("n", positive=True)
    A, B = sp.symbols("A B", positive=True)
    step1 = sp.simplify(sp.powdenest((A ** (1 / nn) * B ** (1 / nn)) ** nn, force=True) - A * B)
    prod = (1 - rr) / (1 - rr * _zpgf) * (1 - rr) / (1 - rr / _zpgf)
    dl = (1 - rr) / (1 + rr) * (1 / (1 - rr * _zpgf) + 1 / (1 - rr / _zpgf) - 1)
    step2 = sp.simplify(prod - dl)
    ok = step1 == 0 and step2 == 0
    return SymbolicCheck(
        True if ok else None,
        "pgf: (A^{1/n}B^{1/n})^n = AB (A, B > 0) and AB = DLap pgf (simplify)",
        f"residuals {step1}, {step2}",
    )


TABLE.register(
    f"{PAPER} Fact 2.4",
    statement=sp.Eq(
        (((1 - r) / (1 - r * _zpgf)) ** (1 / n) * ((1 - r) / (1 - r / _zpgf)) ** (1 / n)) ** n,
        (1 - r) / (1 + r) * (1 / (1 - r * _zpgf) + 1 / (1 - r / _zpgf) - 1),
    ),
    symbolic=_sym_fact24,
)


def _sym_normaliser():
    """sympy sums the geometric series; its r = 1 branch is excluded by the hypothesis 0 < r < 1."""
    S = sp.summation(r**jj, (jj, 1, tau))
    if isinstance(S, sp.Piecewise):
        S = [e for e, cond in S.args if cond is sp.true][0]
    diff = sp.simplify(1 + 2 * S - Zt)
    return SymbolicCheck(
        True if diff == 0 else None, "geometric summation (branch r != 1) + simplify", f"residual {diff}"
    )


TABLE.register(
    f"{PAPER} TDLap normaliser",
    statement=sp.Eq(1 + 2 * sp.Sum(r**jj, (jj, 1, tau)), Zt),
    hypotheses=(Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),),
    symbolic=lambda res: _sym_normaliser(),
    exact=lambda r, tau: Reference(xt.tdlap_normaliser(_int(tau, "tau", 0), r=_r(r)), "exact closed form"),
)


# ============================================================ Fact 3.2, Claims 3.3, 3.4
TABLE.register(
    f"{PAPER} Fact 3.2",
    statement=sp.Le(sp.floor((a + b) / m), 1),
    hypotheses=(Hypothesis(sp.And(a >= 0, a <= m - 1, b >= 0, b <= m - 1, m >= 2), "a, b in {0..m-1}"),),
    exact=lambda a, b, m: Reference(fmpq((_int(a, "a") + _int(b, "b")) // _int(m, "m")), "exact carry j"),
)


TABLE.register(
    f"{PAPER} Claim 3.3",
    statement=sp.Eq(sp.Symbol("max_y|(D_a*D_b)[y]-(D_c*D_0)[y]|"), 0),
    hypotheses=(
        Hypothesis(sp.And(a >= 0, b >= 0, a + b <= m - 1), "a + b <= m - 1 (j = 0)"),
        Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),
    ),
    numeric={"lhs": no_carry_gap},
    exact=lambda m, tau, r, a, b: Reference(
        no_carry_gap(m, tau, r, a, b), "exact max difference of the two convolutions"
    ),
)

_claim34_hyp = (
    Hypothesis(sp.And(u >= 1, u <= 2 * tau), "1 <= u <= 2 tau"),
    Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),
)


def _exact_TT(x_expr):
    def f(r, tau, u):
        return Reference(
            arb_eval(x_expr, {"r": _r(r), "tau": _int(tau, "tau"), "u": _int(u, "u")}),
            "exact (T*T) mass (finite sum of exact TDLap masses)",
        )

    return f


TABLE.register(
    f"{PAPER} Claim 3.4 [carry]",
    statement=sp.Le(TT(u - 1), kappa * TT(u) + T(tau) * T(u - 1 - tau)),
    hypotheses=_claim34_hyp,
    exact=_exact_TT(TT(u - 1)),
)

TABLE.register(
    f"{PAPER} Claim 3.4 [reverse]",
    statement=sp.Le(TT(u), kappa * TT(u - 1)),
    hypotheses=_claim34_hyp,
    exact=_exact_TT(TT(u)),
)

TABLE.register(
    f"{PAPER} Claim 3.4 [mirror]",
    statement=sp.Le(TT(u), kappa * TT(u - 1) + T(-tau) * T(u + tau)),
    hypotheses=(
        Hypothesis(sp.And(u >= 1 - 2 * tau, u <= 0), "1 - 2 tau <= u <= 0"),
        Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),
    ),
    exact=_exact_TT(TT(u)),
)

TABLE.register(
    f"{PAPER} Claim 3.4 [no extra term]",
    statement=sp.Le(TT(u - 1), kappa * TT(u)),
    hypotheses=_claim34_hyp,
    exact=_exact_TT(TT(u - 1)),
)


# ============================================================ Claims 3.5, 3.6 and Corollary 3.7
theta_c = sp.Piecewise((r ** (2 * tau + 1 - 2 * u) / (u + 1), u <= tau), (kappa / (2 * tau - u + 1), True))
theta_c_spec = r ** (2 * tau - 2 * u + 1) / (sp.Min(u, 2 * tau - u) + 1)
extra = T(tau) * T(u - 1 - tau)


def _claim35(variant, theta):
    """Register Claim 3.5 (``variant`` appended to the key): extra term ≤ ``theta`` · T_T(u), against its exact value."""
    TABLE.register(
        f"{PAPER} Claim 3.5{variant}",
        statement=sp.Le(extra, theta * TT(u)),
        hypotheses=_claim34_hyp,
        exact=lambda r, tau, u: Reference(
            arb_eval(extra, {"r": _r(r), "tau": _int(tau, "tau"), "u": _int(u, "u")}), "exact extra term"
        ),
    )


_claim35("", theta_c)
_claim35(" [uniform theta]", r / (tau + 1))
_claim35(" [spec form]", theta_c_spec)

EcD0 = sp.Sum(T(zz) * E(c, c + m * (u + tau - zz)), (zz, -tau, tau))
theta_t = r ** (sp.Abs(u - 1 - tau) + sp.Abs(u - tau)) * Nx(c) / Zt

rho_s = sp.Symbol("rho", positive=True)
_extra_rho = extra.subs(r, rho_s**m)


def _extra_ref(rho, tau, u, m, c=None):
    """Reference for the Claim 3.6 variants: the exact extra term ``T[tau] T[u-1-tau]`` at ``r = rho^m``."""
    return Reference(
        arb_eval(_extra_rho, {"rho": _r(rho), "tau": _int(tau, "tau"), "u": _int(u, "u"), "m": _int(m, "m")}),
        "exact extra term",
    )


TABLE.register(
    f"{PAPER} Claim 3.6",
    statement=sp.Le(extra, theta_t * EcD0).subs(r, rho_s**m),
    hypotheses=(
        Hypothesis(sp.And(u >= 1, u <= 2 * tau), "1 <= u <= 2 tau"),
        Hypothesis(sp.And(c >= 0, c <= m - 1, m >= 2), "c in {0..m-1}"),
        Hypothesis(sp.And(rho_s > 0, rho_s < 1), "0 < rho < 1"),
    ),
    exact=_extra_ref,
)


# ------------------------------------------------------------ Claim 3.6, geometric form (module docstring)
_gA = sp.Max(0, u - tau)
_gB = sp.Min(u, tau)
#: ``G(u) = Z N_c (E_c*D_0)[c + m(2tau+u)]`` for ``0 <= u <= 2tau``: the mirrored mass as a geometric series
G_mirror = sp.Piecewise(((tau - u) * (kappa**u + r**u), u < tau), (0, True)) + kappa**u * (
    r ** (2 * _gA) - r ** (2 * _gB + 2)
) / (1 - r**2)
NmaxS, NminS, ZS = (
    sp.Symbol("N_max", positive=True),
    sp.Symbol("N_min", positive=True),
    sp.Symbol("Z_tau", positive=True),
)
#: extra term / mirrored mass, with the normaliser left as a placeholder (``N_c``, or ``N_max`` in the combination)
theta_g_p = r ** (tau + sp.Abs(u - 1 - tau)) * NmaxS / (ZS * G_mirror)

_hyp_u0 = Hypothesis(sp.And(u >= 0, u <= 2 * tau), "0 <= u <= 2 tau")
_hyp_u1 = Hypothesis(sp.And(u >= 1, u <= 2 * tau), "1 <= u <= 2 tau")
_hyp_c = Hypothesis(sp.And(c >= 0, c <= m - 1, m >= 2), "c in {0..m-1}, m >= 2")
_hyp_rho = Hypothesis(sp.And(rho_s > 0, rho_s < 1), "0 < rho < 1")


def _geometric_pieces(pieces) -> sp.Expr:
    """``sum over pieces (lo, hi, facts) of sum_{z=lo}^{hi} r^{|z| - |u - z|}``, each ``Abs`` resolved by the piece's
    sign ``facts`` (implied by its range) and the geometric sum's ``r^2 != 1`` branch taken (``0 < r < 1``)."""
    expo = sp.Abs(zz) - sp.Abs(u - zz)
    total = sp.Integer(0)
    for lo, hi, facts in pieces:
        e = sp.refine(expo, facts)
        if e.has(sp.Abs):  # pragma: no cover - the facts decide both signs
            raise ValueError(f"|z| - |u - z| not resolved on [{lo}, {hi}]: {e}")
        part = sp.piecewise_fold(sp.summation(r**e, (zz, lo, hi)))
        if isinstance(part, sp.Piecewise):
            part = next(ex for ex, cond in part.args if cond is sp.true)
        total += part
    return total


def _sym_mirrored_mass(res, G: sp.Expr | None = None) -> SymbolicCheck:
    """Claim 3.6 [mirrored mass] by a case split (``G`` defaults to :data:`G_mirror`; another ``G`` is the test's
    way to see that a wrong closed form is not proved).  O(1) sympy steps, about a second.

    1. *Support.*  The summand's condition is ``|z| <= tau`` and two relations affine in ``z`` with slopes
       ``-m`` and ``m``; at ``z = u + tau`` and ``z = u - tau`` they equal ``c`` and ``m-1-c``, both in
       ``[0, m-1]`` (hypothesis), so they hold exactly for ``u - tau <= z <= u + tau``; with ``0 <= u <= 2tau``
       the summand is nonzero exactly for ``z`` in ``[u-tau, tau]``.
    2. *Summand.*  There it equals ``r^{|z|-|u-z|}/(Z N_c)`` at ``r = rho^m`` (simplify of the ratio is 1), and the
       right side is ``G(u)/(Z N_c)`` at ``r = rho^m``.
    3. *Sum.*  ``u < tau`` (``tau = u + d``, ``d >= 1``): pieces ``[u-tau, -1]``, ``[0, u]``, ``[u+1, tau]``;
       ``u >= tau`` (``u = tau + e``): the single piece ``[u-tau, tau]`` inside ``[0, u]``; each sum minus ``G`` in
       that case simplifies to 0.
    """
    G = G_mirror if G is None else G
    method = "case split: support [u-tau, tau], summand r^(|z|-|u-z|)/(Z N_c), geometric pieces = G(u) (simplify)"
    st = res.statement
    lhs = st.lhs
    if not (isinstance(lhs, sp.Sum) and lhs.limits == ((zz, -tau, tau),)):
        return SymbolicCheck(None, method, "the left side is not the expected sum over z")
    pw = lhs.function
    if not (isinstance(pw, sp.Piecewise) and len(pw.args) == 2 and pw.args[1] == (0, True)):
        return SymbolicCheck(None, method, "the summand is not a single-branch Piecewise")
    branch, cond = pw.args[0]
    ends = {}
    for rel in sp.And.make_args(cond):
        if rel in (sp.Ge(tau, sp.Abs(zz)), sp.Le(sp.Abs(zz), tau)):
            ends["T"] = True
            continue
        if not isinstance(rel, (sp.GreaterThan, sp.LessThan)):
            return SymbolicCheck(None, method, f"unexpected condition {rel}")
        g = sp.expand(rel.lhs - rel.rhs if isinstance(rel, sp.GreaterThan) else rel.rhs - rel.lhs)  # g >= 0
        slope = sp.diff(g, zz)
        if sp.diff(g, zz, 2) != 0 or slope not in (m, -m):
            return SymbolicCheck(None, method, f"condition {rel} is not affine in z with slope +-m")
        at = sp.expand(g.subs(zz, u + tau if slope == -m else u - tau))
        if at not in (c, m - 1 - c):
            return SymbolicCheck(None, method, f"condition {rel} at its end is {at}, not in [0, m-1]")
        ends["hi" if slope == -m else "lo"] = True
    if set(ends) != {"T", "hi", "lo"}:
        return SymbolicCheck(None, method, f"support not established from {cond}")
    scale = Zt * Nx(c)
    step2 = sp.simplify(branch / (r ** (sp.Abs(zz) - sp.Abs(u - zz)) / scale).subs(r, rho_s**m))
    rhs = sp.simplify(st.rhs / (G / scale).subs(r, rho_s**m))
    if step2 != 1 or rhs != 1:
        return SymbolicCheck(None, method, f"summand ratio {step2}, right side ratio {rhs}")
    Qa = sp.Q
    below = _geometric_pieces(
        [
            (u - tau, -1, Qa.negative(zz) & Qa.positive(u - zz)),
            (0, u, Qa.nonnegative(zz) & Qa.nonnegative(u - zz)),
            (u + 1, tau, Qa.positive(zz) & Qa.negative(u - zz)),
        ]
    )
    above = _geometric_pieces([(u - tau, tau, Qa.nonnegative(zz) & Qa.nonnegative(u - zz))])
    U = sp.Symbol("U", integer=True, nonnegative=True)
    d = sp.Symbol("d", integer=True, positive=True)
    e = sp.Symbol("e", integer=True, nonnegative=True)
    case_below, case_above = {u: U, tau: U + d}, {u: tau + e}
    r1 = sp.simplify(below.subs(case_below) - G.subs(case_below))
    r2 = sp.simplify(above.subs(case_above) - G.subs(case_above))
    return SymbolicCheck(True if (r1 == 0 and r2 == 0) else None, method, f"residuals u < tau: {r1}, u >= tau: {r2}")


_EcD0_rho = EcD0.subs(r, rho_s**m)
TABLE.register(
    f"{PAPER} Claim 3.6 [mirrored mass]",
    statement=sp.Eq(_EcD0_rho, (G_mirror / (Zt * Nx(c))).subs(r, rho_s**m)),
    hypotheses=(_hyp_u0, _hyp_c, _hyp_rho),
    symbolic=_sym_mirrored_mass,
    exact=lambda rho, tau, u, m, c: Reference(
        group_mass(
            "E",
            _int(c, "c"),
            "D",
            0,
            rho,
            tau,
            m,
            _int(c, "c") + _int(m, "m") * (2 * _int(tau, "tau") + _int(u, "u")),
        ),
        "exact convolution mass (exact.protocols.tdlap, polynomial product)",
    ),
)

theta_g = theta_g_p.subs({NmaxS: Nx(c), ZS: Zt})
TABLE.register(
    f"{PAPER} Claim 3.6 [geometric]",
    statement=sp.Le(extra, theta_g * EcD0).subs(r, rho_s**m),
    hypotheses=(_hyp_u1, _hyp_c, _hyp_rho),
    exact=_extra_ref,
)

_y_end = c + m * (4 * tau + 1)
EcE0_end = sp.Sum(E(c, vv) * E(0, _y_end - vv), (vv, 0, ell))
theta_e = r ** (4 * tau + 1) * Nx(c) * Nx(0) / Zt**2
TABLE.register(
    f"{PAPER} Claim 3.6 [end]",
    statement=sp.Le(T(tau) ** 2, theta_e * EcE0_end).subs(r, rho_s**m),
    hypotheses=(
        Hypothesis(sp.And(c >= 0, c <= m - 2, m >= 2), "c in {0..m-2} (a carry pair a+b = c+m exists)"),
        _hyp_rho,
    ),
    exact=lambda rho, tau, m, c: Reference(
        arb_eval(T(tau) ** 2, {"r": xt.r_from_rho(rho, _int(m, "m")), "tau": _int(tau, "tau")}), "exact T[tau]^2"
    ),
)


#: the lattice group's extra term T[tau] T[u-1-tau] over one term of the mirrored group (iv applied to D*D)
xi_p = NmaxS**2 / ZS**2 * rho_s ** (-2 * (m - 1)) * r ** (2 * (tau + sp.Abs(u - 1 - tau)))
_y_u = c + m * (2 * tau + u)
EcE0_u = sp.Sum(E(c, vv) * E(0, _y_u - vv), (vv, 0, ell))
xi_c = (xi_p * NminS / NmaxS).subs({NmaxS: Nx(c), NminS: Nx(0), ZS: Zt})  # N_max^2 -> N_c N_0 for one pair
TABLE.register(
    f"{PAPER} Claim 3.6 [into mirrored]",
    statement=sp.Le(extra, xi_c * EcE0_u).subs(r, rho_s**m),
    hypotheses=(_hyp_u1, _hyp_c, _hyp_rho),
    exact=_extra_ref,
)


def eps1_factor(r_: NumberOrBall, tau_: IntegerInput, q_: NumberOrBall, m_: IntegerInput) -> Enclosure:
    """``e^{eps_1}`` of Corollary 3.7 (closed form, O(tau) evaluation of a max over u; see the module docstring).

    The extra term goes to ``(T*T)[u]`` (Claim 3.5, ``theta_c``) or to the mirrored mass (Claim 3.6 [geometric],
    ``theta_g`` with ``N* = N_max``), whichever costs less.
    """
    rr = _r(r_) if not isinstance(r_, arb) else r_
    t = _int(tau_, "tau", 0)
    mm = _int(m_, "m", 2)
    qq = q_ if isinstance(q_, arb) else arith.exact_in(q_, "q", lo=0, hi=1, lo_open=True, hi_open=True)
    env = {"r": rr, "tau": t, "m": mm}
    Z = arb_eval(Zt, env)
    Nstar = arith.maximum([arb_eval(Nx(x), env) for x in (0, mm - 1)])
    kap = 1 / arith.ball(rr)
    best = kap
    for uu in range(1, 2 * t + 1):
        thc = arb_eval(theta_c, {**env, "u": uu})
        thg = arb_eval(theta_g_p, {**env, "u": uu, "N_max": Nstar, "Z_tau": Z})
        cand = (kap + thc).min(kap.max((1 - qq) * thg / qq))
        best = best.max(cand)
    the = arith.ball(rr) ** (4 * t + 1) * Nstar**2 / Z**2
    return best.max((1 - qq) ** 2 * the / qq**2)


class Eps1(sp.Function):
    """sympy node for e^{eps_1} of Corollary 3.7 (evaluated by :func:`eps1_factor`)."""

    nargs = 4

    @staticmethod
    def _arb_eval(r_, tau_, q_, m_):
        return eps1_factor(r_, tau_, q_, m_)


TABLE.register(
    f"{PAPER} Corollary 3.7",
    statement=sp.Le(sp.Symbol("epsilon_1_exact"), sp.log(Eps1(r, tau, q, m))),
    hypotheses=(
        Hypothesis(sp.And(q > 0, q < 1), "0 < q < 1"),
        *TABLE.hyps("m >= 2", evaluate=True),
        Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),
    ),
    numeric={"lhs": lambda r, tau, q, m: cor37_exact(r, tau, q, m)},
    exact=lambda r, tau, q, m: Reference(
        cor37_exact(r, tau, q, m),
        "exact max_y of (1-q)^2 (D_a*D_b)[y] / (other groups of the other law), both directions",
    ),
)


# ============================================================ Claim 3.8 and the combination


for _X, _Y, _title in (
    ("E", "D", "mixed group E_a*D_b"),
    ("D", "E", "mixed group D_a*E_b"),
    ("E", "E", "mirrored group E_a*E_b"),
    ("D", "D", "lattice group (Claim 3.4 in pairing form)"),
):
    TABLE.register(
        f"{PAPER} Claim 3.8 [{_X}{_Y}]",
        statement=sp.Le(sp.Symbol(f"max_y ({_X}_a*{_Y}_b)/RHS"), 1),
        hypotheses=(*TABLE.hyps("m >= 2", evaluate=True), Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1")),
        numeric={"lhs": (lambda X, Y: lambda r, tau, m: claim38_ratio(X, Y, r, tau, m))(_X, _Y)},
        exact=(
            lambda X, Y: (
                lambda r, tau, m: Reference(
                    claim38_ratio(X, Y, r, tau, m), "exact max ratio LHS/RHS over pairs, directions, y"
                )
            )
        )(_X, _Y),
    )


TABLE.register(
    f"{PAPER} Claim 3.8 [EE same-index]",
    statement=sp.Le(sp.Symbol("max_y (E_a*E_b)/RHS_same"), 1),
    hypotheses=(*TABLE.hyps("m >= 2", evaluate=True), Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1")),
    numeric={"lhs": lambda r, tau, m: claim38_same_index_ratio(r, tau, m)},
    exact=lambda r, tau, m: Reference(claim38_same_index_ratio(r, tau, m), "exact max ratio LHS/RHS"),
)


# ------------------------------------------------------------ Claim 3.8 in closed form (module docstring, (i)-(v))
nu = sp.Symbol("nu", integer=True, positive=True)
_rr = rho_s**m  # r in terms of rho (exact for rational rho)
_mid = sp.floor((m - 1) / 2)


C_N_p = NmaxS / NminS
#: phi(n): the no-carry extra term over the two Q windows' common part (a geometric series with ratio >= r^2)
phi_p = (1 - r**2) / (2 * r**2 * (1 - r ** (2 * nu)))
#: R(z): one mixed term at lattice index |z| over the mirrored group of the other law (one term of Q_EE)
R_p = NmaxS**2 / (NminS * ZS) * rho_s ** (-2 * (m - 1)) * r ** (2 * zz)
#: psi(nu): R(tau - nu) with the geometric series of Q_EE around that term (M + 1 >= m nu terms)
_nu0 = sp.Symbol("nu", integer=True)  # no sign assumption: psi is also used at nu = 0 (Max(1, m nu) must survive)
psi_p = R_p.subs(zz, tau - _nu0) * (1 - rho_s**2) / (1 - rho_s ** (2 * sp.Max(1, m * _nu0)))
Psi_p = sp.Max(psi_p.subs(_nu0, 0), psi_p.subs(_nu0, _nu0 - 1))
A_mix_carry_p = C_N_p * kappa
B_mix_carry_p = 2 * R_p.subs(zz, tau)
A_mix_nc_p = C_N_p * (1 + phi_p)
A_EE_carry_p = C_N_p**2 * kappa
A_EE_nc_p = C_N_p**2 * rho_s ** (-2 * _mid)
theta_e_star_p = r ** (4 * tau + 1) * NmaxS**2 / ZS**2
#: (iv) with the whole geometric series of Q_EE where the carry extras can sit outside a pure region (M >= m tau)
geoT_p = (1 - rho_s**2) / (1 - rho_s ** (2 * (m * tau + 1)))
#: Q_EE ratio in a pure region: r on the carry side, 1 for no-carry pairs (times the normalisers)
A_EE_carry_fav_p = C_N_p**2 * r
A_EE_nc_pure_p = C_N_p**2

# pure regions of y: every mirrored term has both arguments on one side of their centres, so that
# (E_x1*E_x2)[y] / (E_x3*E_x4)[y] = rho^{±(x1+x2-x3-x4)} N_x3 N_x4/(N_x1 N_x2) exactly
jsym = sp.Symbol("j", integer=True)
_pure_bot = yy <= m * tau
_pure_top = yy >= ell + m * tau + m - 1
pure_region = sp.Or(_pure_bot, _pure_top)
carry_side = sp.Or(sp.And(sp.Eq(jsym, 1), _pure_top), sp.And(sp.Eq(jsym, -1), _pure_bot))
B_mix_carry_y = sp.Piecewise((B_mix_carry_p, carry_side), (B_mix_carry_p * geoT_p, True))
B_mix_nc_pure_y = sp.Piecewise((Psi_p, pure_region), (0, True))
A_EE_carry_y = sp.Piecewise((A_EE_carry_fav_p, carry_side), (A_EE_carry_p, True))
A_EE_nc_y = sp.Piecewise((A_EE_nc_pure_p, pure_region), (A_EE_nc_p, True))

Pmix, Qmix, Qee, Pee = (sp.Function(n_)(yy) for n_ in ("P_mix", "Q_mix", "Q_EE", "P_EE"))


def _consts(rho, tau_, m_):
    """``r, kappa, Z, N_max, N_min`` at one point (exact for rational ``rho``), for the placeholder forms."""
    t, mm = _int(tau_, "tau", 0), _int(m_, "m", 2)
    rh = rho if isinstance(rho, arb) else _r(rho)
    env = {"rho": rh, "tau": t, "m": mm}
    out = {
        "rho": rh,
        "tau": t,
        "m": mm,
        "r": arb_eval(_rr, env),
        "Z_tau": arb_eval(Zt.subs(r, _rr), env),
        "N_max": arb_eval(Nx(0).subs(r, _rr), env),
        "N_min": arb_eval(Nx(_mid).subs(r, _rr), env),
    }
    return out


def claim38_closed_ratio(
    group: str,
    carry: bool,
    A: Any,
    B: Any,
    rho: NumberOrBall,
    tau: IntegerInput,
    m: IntegerInput,
    nu: IntegerInput | None = None,
) -> Enclosure | None:
    """``max`` over pairs, both directions and ``y`` of ``LHS/RHS`` of a closed-form Claim 3.8 (``<= 1`` iff it holds).

    ``group``: ``"mixed"`` (``LHS = P_mix``, ``RHS = A Q_mix + B Q_EE``) or ``"mirrored"`` (``LHS = P_EE``,
    ``RHS = A Q_EE``); ``carry`` selects the pairs ``a + b >= m`` or ``a + b < m``; ``A``, ``B`` are the
    constants as sympy expressions in the placeholder form, possibly depending on the outcome ``y`` and on
    the carry ``j`` of the comparison (evaluated here; ``nu`` is the split point).  The exact side (masses,
    the max over pairs and outcomes) is :func:`blanket.exact.protocols.pure_sum.closed_pairing_ratio`.
    ``None`` (= +inf) if an RHS vanishes where the LHS does not.  O(m^2) convolutions of length ``2 ell + 1``.
    """
    k = _consts(rho, tau, m)
    env = {**k, "nu": _int(nu, "nu", 1) if nu is not None else 1}
    by_y = bool({"y", "j"} & {str(x) for x in (A.free_symbols | B.free_symbols)})
    if by_y:

        def constants(y_, j_):
            ey = {**env, "y": y_, "j": j_}
            return arb_eval(A, ey), arb_eval(B, ey)

    else:
        A0, B0 = arb_eval(A, env), arb_eval(B, env)

        def constants(y_, j_):
            return A0, B0

    return closed_pairing_ratio(groups_at_rho(rho, tau, m), k["m"], group, carry, constants)


def _c38(variant, group, carry, A, B, hyps=()):
    # typeset with the placeholders N_max, N_min, Z_tau (defined in the notes): the very expressions evaluated
    stmt = sp.Le(
        Pee if group == "mirrored" else Pmix,
        A.subs(r, _rr) * (Qee if group == "mirrored" else Qmix) + B.subs(r, _rr) * Qee,
    )

    def ratio(rho, tau, m, nu=None):
        return claim38_closed_ratio(group, carry, A, B, rho, tau, m, nu)

    TABLE.register(
        f"{PAPER} Claim 3.8 [{variant}]",
        statement=stmt,
        hypotheses=(Hypothesis(m >= 2, "m >= 2"), _hyp_rho) + hyps,
        numeric={"lhs": ratio, "rhs": lambda **_: fmpq(1)},
        exact=lambda **kw: Reference(ratio(**kw), "exact max over pairs, directions and y of LHS/RHS"),
        symbols=(nu,),
    )


_c38("mixed, carry", "mixed", True, A_mix_carry_p, B_mix_carry_y)
_c38("mixed, no carry", "mixed", False, A_mix_nc_p, Psi_p, (Hypothesis(m >= 3, "m >= 3 (no-carry pairs exist)"),))
_c38(
    "mixed, no carry, pure regions",
    "mixed",
    False,
    A_mix_nc_p,
    B_mix_nc_pure_y,
    (Hypothesis(m >= 3, "m >= 3 (no-carry pairs exist)"), Hypothesis(nu <= tau, "nu <= tau")),
)
_c38("mirrored", "mirrored", True, A_EE_carry_y, sp.Integer(0))
_c38(
    "mirrored, no carry",
    "mirrored",
    False,
    A_EE_nc_y,
    sp.Integer(0),
    (Hypothesis(m >= 3, "m >= 3 (no-carry pairs exist)"),),
)
_c38("mixed, no carry, no edge term", "mixed", False, C_N_p, Psi_p, (Hypothesis(m >= 3, "m >= 3"),))


def claims_closed_factor(
    rho: NumberOrBall, tau_: IntegerInput, q_: NumberOrBall, m_: IntegerInput, *, detail: bool = False
) -> Any:
    """``e^{eps_claims}``: the closed-form combination of Claims 3.3–3.8 (module docstring), ``>= e^{eps_pair}``.

    Evaluated from the sympy definitions (``theta_c``, ``theta_g``, ``xi``, ``theta_e``, ``phi``, ``Psi``,
    ``R``, ``geoT``, ``C_N``) in ``O(tau)`` ball operations: a max over ``u in 1..2tau`` for the carry pairs
    and a min over the split point ``nu* in 1..max(1, tau)`` for the no-carry pairs (``m >= 3``).  No
    convolution.  Within 1–8 % of the exact pairwise LLR at ``q = 1e-3``, ``tau = ceil(2 s ln(1/q))``.
    With ``detail=True`` returns ``(factor, parts)`` with the carry and no-carry factors and the best ``nu*``.
    """
    k = _consts(rho, tau_, m_)
    t, mm = k["tau"], k["m"]
    qq = q_ if isinstance(q_, arb) else arith.exact_in(q_, "q", lo=0, hi=1, lo_open=True, hi_open=True)
    w = (1 - qq) / qq
    env = dict(k)
    ev = lambda e, **kw: arith.ball(arb_eval(e, {**env, **kw}))  # noqa: E731
    CN = ev(C_N_p)
    kap = 1 / arith.ball(k["r"])
    # mirrored column of the carry pairs: off the carry side's pure region / on it (the mixed extras and the
    # end point theta_e included in both)
    ee = (ev(A_EE_carry_p) + w * ev(B_mix_carry_p) * ev(geoT_p)).max(
        ev(A_EE_carry_fav_p) + w * ev(B_mix_carry_p)
    ) + w * w * ev(theta_e_star_p)
    carry = (CN * kap).max(ee)
    for uu in range(1, 2 * t + 1):
        # the lattice group's extra term of this u goes to the cheapest column
        cand = (kap + ev(theta_c, u=uu)).min(CN * kap + w * ev(theta_g_p, u=uu)).min(ee + w * w * ev(xi_p, u=uu))
        carry = carry.max(cand)
    parts: dict[str, arb | int | None] = {"carry": carry, "no_carry": None, "nu_star": None}
    total = carry
    if mm >= 3:
        base = ev(A_EE_nc_p)
        best, arg = None, None
        for n_ in range(1, max(1, t) + 1):
            if n_ <= t:  # edge terms charged to Q_EE lie in pure regions
                eec = base.max(ev(A_EE_nc_pure_p) + w * ev(Psi_p, nu=n_))
            else:  # tau = 0
                eec = base + w * ev(Psi_p, nu=n_)
            val = ev(A_mix_nc_p, nu=n_).max(eec)
            if best is None or val.upper() < best.upper():
                best, arg = val, n_
        assert best is not None  # the loop over n_ runs at least once (n_ = 1)
        parts.update(no_carry=best, nu_star=arg)
        total = total.max(best)
    return (total, parts) if detail else total


#: rho = r^{1/m} = e^{-1/(s m)} for a scale s (the closed form's argument)
rho_of_s = sp.exp(-1 / (s * m))


def claims_closed_llr(s_: NumberOrBall, tau_: IntegerInput, q_: NumberOrBall, m_: IntegerInput) -> arb:
    """``log K(s, tau, q, m)``: :func:`claims_closed_factor` at ``rho = e^{-1/(s m)}`` (current precision)."""
    rho = arb_eval(
        rho_of_s,
        {"s": s_ if isinstance(s_, arb) else arith.exact_in(s_, "s", lo=0, lo_open=True), "m": _int(m_, "m", 2)},
    )
    return arith.ball(claims_closed_factor(rho, tau_, q_, m_)).log()


class EpsClaims(sp.Function):
    """sympy node for ``e^{eps_claims}`` (evaluated by :func:`claims_closed_factor`)."""

    nargs = 4

    @staticmethod
    def _arb_eval(rho_, tau_, q_, m_):
        return claims_closed_factor(rho_, tau_, q_, m_)


def _pair_exact(s, tau, q, m):
    val, _ = _agg(m, tau, q, s_=s).pairwise_llr()
    return val


def _pair_bound(s, tau, q, m):
    return claims_pair_bound(_agg(m, tau, q, s_=s))


#: what the two combined forms of Claims 3.3-3.8 share: symbols, hypotheses, kind and the exact reference
_PAIR_BOUND: dict[str, Any] = dict(
    hypotheses=(Hypothesis(sp.And(q > 0, q < 1), "0 < q < 1"), *TABLE.hyps("m >= 2", "s > 0", evaluate=True)),
    exact=lambda s, tau, q, m: Reference(_pair_exact(s, tau, q, m), "exact pairwise LLR (5) (exact.protocols.tdlap)"),
)

TABLE.register(
    f"{PAPER} Claims 3.3-3.8 [combined]",
    statement=sp.Le(sp.Symbol("epsilon_pair"), sp.Symbol("epsilon_claims")),
    **_PAIR_BOUND,
    numeric={"lhs": _pair_exact, "rhs": _pair_bound},
)


TABLE.register(
    f"{PAPER} Claims 3.3-3.8 [closed form]",
    statement=sp.Le(sp.Symbol("epsilon_pair"), sp.log(EpsClaims(rho_of_s, tau, q, m))),
    **_PAIR_BOUND,
    numeric={"lhs": _pair_exact},
)


# ============================================================ Theorem 3.1 and Claim 3.10
def _fail_max(n, q, s, tau, m):
    v, _ = _agg(m, tau, q, s_=s).correctness_failure_max(_int(n, "n", 1))
    return v


TABLE.register(
    f"{PAPER} Theorem 3.1 [correctness]",
    statement=sp.Le(sp.Symbol("beta_exact"), 1 - (1 - q) ** n),
    hypotheses=(Hypothesis(sp.And(q > 0, q < 1), "0 < q < 1"), *TABLE.hyps("n >= 1", evaluate=True)),
    numeric={"lhs": _fail_max},
    exact=lambda n, q, s, tau, m: Reference(_fail_max(n, q, s, tau, m), "exact max failure over input multisets"),
)


def _sec_exact(n, s, tau, q, m):
    v, _ = _agg(m, tau, q, s_=s).llr_security(_int(n, "n", 2))
    return v


def _sec_hybrid(n, s, tau, q, m):
    v, _ = _agg(m, tau, q, s_=s).pairwise_llr()
    return (_int(n, "n", 2) - 1) * v


TABLE.register(
    f"{PAPER} Theorem 3.1 [security]",
    statement=sp.Le(sp.Symbol("epsilon_exact"), (n - 1) * sp.Symbol("epsilon_pair")),
    hypotheses=(*TABLE.hyps("n >= 2", evaluate=True), Hypothesis(sp.And(q > 0, q < 1), "0 < q < 1")),
    numeric={"lhs": _sec_exact, "rhs": _sec_hybrid},
    exact=lambda n, s, tau, q, m: Reference(_sec_exact(n, s, tau, q, m), "exact max over input multisets"),
)


def theorem_3_1_parameters(
    n_: IntegerInput,
    beta_: NumberOrBall,
    epsilon_: NumberOrBall,
    m_: IntegerInput,
    *,
    s_grid: Sequence[NumberOrBall] | None = None,
    via: Literal["exact", "claims"] = "exact",
) -> dict:
    """Theorem 3.1's parameters in this project's reading: ``q = beta/n``, ``tau = ceil(2 s ln(1/q))``, and
    the smallest ``s`` on a grid (default 1/2, 1, 2, 4, …, 256) whose pairwise LLR bound times ``n-1`` is
    certified ``<= epsilon``.

    ``via="exact"``: the **exact** pairwise LLR (5) (precision escalates until decided; one polynomial product
    per pair, seconds at m = 16, tau = 500).  ``via="claims"``: the claims' closed form ``log K(s, tau, q, m)``
    ("Claims 3.3-3.8 [closed form]"), the paper's own route: no convolution, O(tau); its ``s`` is never smaller
    than the exact route's (``K >= e^{eps_pair}``).  Returns ``dict(q, tau, s, eps_pair, via)``; raises if no
    grid point works.  One-sided either way: an ``s`` is accepted only when the inequality is certified.
    """
    nn = _int(n_, "n", 2)
    qq = arith.exact_in(beta_, "beta", lo=0, hi=1, lo_open=True, hi_open=True) / nn
    eps = arith.exact_in(epsilon_, "epsilon", lo=0, lo_open=True)
    mm = _int(m_, "m", 2)
    if via not in ("exact", "claims"):
        raise InvalidArgument("via", via, "must be 'exact' (the exact pairwise LLR) or 'claims' (the closed form)")
    grid = s_grid or [fmpq(1, 2)] + [fmpq(2**i) for i in range(9)]
    for sv in grid:
        with arith.precision(128):
            t = int(arb_eval(sp.ceiling(2 * s * sp.log(1 / q)), {"s": sv, "q": qq}).p)
        if via == "claims":

            def bound(prec, sv=sv, t=t):  # escalate() runs this at precision prec
                return claims_closed_llr(sv, t, qq, mm)

            val, _ = arith.escalate(
                bound, lambda v: arith.le((nn - 1) * v, eps) is not None, what="closed-form claims bound"
            )
        else:
            # one-sided: accept s only if (n-1) eps_pair <= epsilon is certified (precision escalates until decided)
            val, _, _ = xt.pairwise_llr_certified(
                partial(xt.RelaxedAggregator, mm, t, q=qq, s=sv),
                decided=lambda v: v is None or arith.le((nn - 1) * arith.ball(v), eps) is not None,
            )
        if val is not None and arith.le((nn - 1) * arith.ball(val), eps) is True:
            return {"q": qq, "tau": t, "s": sv, "eps_pair": val, "via": via}
    raise InvalidArgument("epsilon", epsilon_, "is not reached on the s grid; pass a finer or larger s_grid")


TABLE.register(
    f"{PAPER} Theorem 3.1 [parameters]",
    statement=sp.And(sp.Eq(q, beta / n), sp.Eq(tau, sp.ceiling(2 * s * sp.log(1 / q)))),
)


TABLE.register(
    f"{PAPER} Claim 3.10",
    statement=sp.Ge(sp.Symbol("beta_perfect"), 1 - 1 / m),
    hypotheses=TABLE.hyps("m >= 2", evaluate=True),
    numeric={"lhs": perfect_security_failure},
    exact=lambda m: Reference(perfect_security_failure(m), "exact failure of POST = mod m on an input-independent law"),
)


# ============================================================ Section 4 and Appendix B


TABLE.register(
    f"{PAPER} Theorem 4.1 [privacy]",
    statement=sp.Eq(sp.Symbol("d_LLR(DLap(0,k/eps), DLap(k,k/eps))"), epsilon),
    hypotheses=TABLE.hyps("epsilon > 0", "k >= 1", evaluate=True),
    numeric={"lhs": lambda epsilon, k: dlap_shift_llr(epsilon, k)},
    exact=lambda epsilon, k: Reference(dlap_shift_llr(epsilon, k), "exact LLR (log-ratio linear)"),
)

TABLE.register(
    f"{PAPER} Theorem 4.1 [error]",
    statement=sp.Le(sp.Symbol("mse"), 4 / epsilon**2),
    hypotheses=TABLE.hyps("epsilon > 0", "m >= 2", evaluate=True),
    numeric={"lhs": lambda epsilon, m: error_second_moment(epsilon, m)},
    exact=lambda epsilon, m: Reference(
        error_second_moment(epsilon, m), "E[err^2] from the exact folded noise law (windowed, certified tail)"
    ),
)


def _protocol_mse_bound(n_, k_, m_, epsilon_):
    nn, kk, mm = _int(n_, "n", 1), _int(k_, "k", 1), _int(m_, "m", 2)
    e = arith.exact_in(epsilon_, "epsilon", lo=0, lo_open=True)
    h = fmpq(mm - nn * kk, 2)
    j = max(int((h / 2).ceil()) - 1, 0)
    rr = (-arith.ball(e) / kk).exp()
    wrap = 2 * xt.dlap_tail(j, r=rr)
    return 4 / arith.ball(e) ** 2 + fmpq(nn, 4 * kk * kk) + fmpq(mm + nn * kk, 2 * kk) ** 2 * wrap


TABLE.register(
    f"{PAPER} Theorem 4.1 [protocol error]",
    statement=sp.Le(sp.Symbol("mse_protocol"), 4 / epsilon**2 + n / (4 * k**2) + sp.Symbol("wrap")),
    hypotheses=(Hypothesis(m > n * k, "m > n k"), *TABLE.hyps("epsilon > 0", evaluate=True)),
    numeric={
        "lhs": lambda n, k, m, epsilon: protocol_mse(n, k, m, epsilon),
        "rhs": lambda n, k, m, epsilon: _protocol_mse_bound(n, k, m, epsilon),
    },
    exact=lambda n, k, m, epsilon: Reference(
        protocol_mse(n, k, m, epsilon), "exact MSE from the exact error law (windowed noise, certified tail)"
    ),
)

beta_star = 1 - (1 - 2 * r ** (tau + 1) / (1 + r)) ** 2
TABLE.register(
    f"{PAPER} Claim 4.2",
    statement=sp.Le(beta_star, 4 * r ** (tau + 1) / (1 + r)),
    hypotheses=(Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),),
    exact=lambda r, tau: Reference(1 - (1 - xt.dlap_tail(_int(tau, "tau", 0), r=_r(r))) ** 2, "exact mixture weight"),
)

_p = 1 - r
EG2 = (1 - _p) * (2 - _p) / _p**2
EG4 = (1 - _p) * (24 - 36 * _p + 14 * _p**2 - _p**3) / _p**4
_hyp_b1 = (Hypothesis(sp.And(r > 0, r < 1), "0 < r < 1"),)
_hyp_b1s = (Hypothesis(s > 0, "s > 0"), Hypothesis(tau >= s * sp.log(2), "tau >= s ln 2"))


def _tdm(kk, via_s=False):
    if via_s:
        return lambda s, tau: xt.tdlap_moment(kk, _int(tau, "tau", 0), s=s)
    return lambda r, tau: xt.tdlap_moment(kk, _int(tau, "tau", 0), r=_r(r))


for _k, _EG in ((2, EG2), (4, EG4)):
    TABLE.register(
        f"{PAPER} Claim B.1 [m{_k}]",
        statement=sp.Le(sp.Symbol(f"E[Z^{_k}]"), 2 * _EG / (1 + r - 2 * r ** (tau + 1))),
        hypotheses=_hyp_b1,
        numeric={"lhs": _tdm(_k)},
        exact=(
            lambda kk: lambda r, tau: Reference(xt.tdlap_moment(kk, _int(tau, "tau", 0), r=_r(r)), "exact finite sum")
        )(_k),
    )

TABLE.register(
    f"{PAPER} Claim B.1 [m2, s]",
    statement=sp.Le(sp.Symbol("E[Z^2]"), 4 * s**2),
    hypotheses=_hyp_b1s,
    numeric={"lhs": _tdm(2, True)},
    exact=lambda s, tau: Reference(xt.tdlap_moment(2, _int(tau, "tau", 0), s=s), "exact finite sum"),
)

TABLE.register(
    f"{PAPER} Claim B.1 [m4, s]",
    statement=sp.Le(sp.Symbol("E[Z^4]"), 48 * s**4 + 2),
    hypotheses=_hyp_b1s,
    numeric={"lhs": _tdm(4, True)},
    exact=lambda s, tau: Reference(xt.tdlap_moment(4, _int(tau, "tau", 0), s=s), "exact finite sum"),
)

TABLE.register(
    f"{PAPER} Claim B.1 [mean]",
    statement=sp.Eq(sp.Symbol("E[Z]"), 0),
    hypotheses=_hyp_b1,
    numeric={
        "lhs": lambda r, tau: sum(
            z * v
            for z, v in zip(
                range(-_int(tau, "tau", 0), _int(tau, "tau", 0) + 1), xt.tdlap_masses(_int(tau, "tau", 0), r=_r(r))
            )
        )
    },
    exact=lambda r, tau: Reference(fmpq(0), "symmetry"),
)


TABLE.complete()
