"""A lower end of a k-RR fleet's δ(ε) (k ≥ 3) that uses both counts: Lemma F8, ``docs/reference/fleets.md`` §11.

Every other honest user holds a third value ``z``; the target, in a group with the largest ε0 (keep ``p*``, flip
``f*``), holds ``x`` or ``x'``.  The adversary keeps the counts ``(N_x, N_x')`` of the two values (a post-processing of
the shuffle).  Each other user lands in ``{x, x'}`` with probability ``2 f_g`` and then on either value with
probability ½, so the others' count ``S`` in ``{x, x'}`` is Poisson-binomial (the outer law) and, given ``S = s``,
``N_x ~ Bin(s, ½)``.  Both directions give the same value (exchange ``x`` and ``x'``).

Exact inputs and small ``n``: the exact hockey-stick divergence of the two laws of ``(N_x, N_x')`` (``fmpq``).
Otherwise a region ``R = {(a, b): s_lo ≤ a + b ≤ s_hi, a ≥ a*(a + b)}`` with thresholds chosen in floats (any
region gives a lower bound, ``Σ_R (P − e^ε Q) ≤ Σ (P − e^ε Q)_+``); per total ``s`` the sum over ``a ≥ a*`` is three
binomial(·, ½) tails, walked from one ``s`` to the next by exact recurrences in ball arithmetic; the windowed outer
law costs ``e^ε Λ`` (``Λ`` its left-out mass).  Cost: one :func:`blanket.exact.shuffled.fleet.fleet_count_law`, one
``arb`` beta-function tail and ``O(W)`` ball operations, ``W`` the number of totals kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput
from blanket.exact.shuffled import fleet as F
from blanket.exact.shuffled.krr import engine_options
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: the totals kept: the outer law's window cut to this many standard deviations on each side
SIGMAS = 8


def delta_fleet_two_counts(
    groups: Sequence[tuple[int, KRR]], colluding: IntegerInput = 0, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """A certified *lower* bound on the fleet's shuffled δ(ε) from the counts of two values (Lemma F8).

    ``colluding`` users are the ones of the smallest ε0 (one admissible choice; the target is honest).  ``0`` for
    ``k = 2`` (use :func:`blanket.exact.shuffled.fleet.delta_fleet_dataset`, whose count is the whole view there).
    Exact ``fmpq`` for exact inputs and ``n ≤ exact_max_n``; else a ball-arithmetic lower end (module docstring).

    >>> delta_fleet_two_counts([(2, KRR(3, exp_epsilon0=4))], exp_epsilon=1)
    5/12
    """
    fleet = F.check_fleet(groups)
    guards.check_options("delta_fleet_two_counts", opts, DeltaOptions)
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    tol, exact_max_n = engine_options(opts)
    m = arith.integer_in(colluding, "colluding", lo=0, hi=sum(g.n for g in fleet) - 1)
    if fleet[0].mech.k == 2:
        return fmpq(0)
    star = F._order(fleet)[-1]
    honest, t = F.honest_fleet(fleet, star, m)
    mech = honest[t].mech
    if arith.le(mech.exp_epsilon0(), ee) is True:
        return fmpq(0)
    parts = [(g.n - (1 if i == t else 0), 2 * g.mech.flip()) for i, g in enumerate(honest)]
    if F._exact_mode(honest, ee, exact_max_n):
        return _exact(parts, mech, arith.exact(ee))
    return _balls(parts, mech, ee, tol)


def _exact(parts: list, mech: KRR, ee: fmpq) -> fmpq:
    """The exact hockey-stick divergence of the laws of ``(N_x, N_x')``.  O(n²) rationals."""
    pi, _, _ = F.fleet_count_law(parts, True, fmpq(0))
    k = mech.k
    p, f = mech.keep(), mech.flip()
    others: dict = {}
    for s, w in enumerate(pi):
        for a in range(s + 1):
            others[(a, s - a)] = w * math.comb(s, a) / fmpq(2**s)
    P: dict = {}
    Q: dict = {}
    for (a, b), w in others.items():
        for key, wp, wq in (((a, b), (k - 2) * f, (k - 2) * f), ((a + 1, b), p, f), ((a, b + 1), f, p)):
            P[key] = P.get(key, fmpq(0)) + w * wp
            Q[key] = Q.get(key, fmpq(0)) + w * wq
    return sum((max(v - ee * Q[key], fmpq(0)) for key, v in P.items()), fmpq(0))


class _Walk:
    """``Bin(s, ½)`` at one level ``s`` and one index ``a``: ``T = P(≥ a)``, ``pa = P(= a)``, ``pb = P(= a − 1)``.

    Exact recurrences in ball arithmetic: ``T_{s+1}(a) = T_s(a) + ½ P_s(a − 1)``, ``P_{s+1}(j) = P_s(j)(s+1)/(2(s+1−j))``,
    ``T_s(a+1) = T_s(a) − P_s(a)``, ``P_s(a+1) = P_s(a)(s − a)/(a + 1)``; O(1) each.
    """

    def __init__(self, s: int, a: int):
        half = fmpq(1, 2)
        self.s, self.a = s, a
        self.T = laws.tail(s, half, a)
        self.pa = laws.pmf(s, half, a)
        self.pb = laws.pmf(s, half, a - 1)

    def level_up(self) -> None:
        s, a = self.s + 1, self.a
        self.T = self.T + self.pb / 2
        self.pa = self.pa * s / (2 * (s - a)) if a < s else laws.pmf(s, fmpq(1, 2), a)
        self.pb = self.pb * s / (2 * (s - a + 1)) if a - 1 < s else laws.pmf(s, fmpq(1, 2), a - 1)
        self.s = s

    def move_to(self, a_new: int) -> None:
        while self.a < a_new:
            s, a = self.s, self.a
            self.T = self.T - self.pa
            self.pb, self.pa = self.pa, self.pa * (s - a) / (a + 1)
            self.a = a + 1
        while self.a > a_new:
            s, a = self.s, self.a
            self.T = self.T + self.pb
            self.pa, self.pb = self.pb, self.pb * (a - 1) / (s - a + 2) if a >= 2 else arb(0)
            self.a = a - 1


def _balls(parts: list, mech: KRR, ee: Enclosure, tol: fmpq) -> Enclosure:
    """The region lower bound of the module docstring, in ball arithmetic."""
    with arith.precision(2 * arith.DEFAULT_PREC):
        pi, off, leftout = F.fleet_count_law(parts, False, tol)
        k = mech.k
        p, f = arith.ball(mech.keep()), arith.ball(mech.flip())
        E = arith.ball(ee)
        pf, ef, pe = float(p.mid()), float(f.mid()), float(E.mid())
        mean = sum(float(arith.ball(q).mid()) * n for n, q in parts)
        sd = math.sqrt(max(sum(float(arith.ball(q).mid()) * (1 - float(arith.ball(q).mid())) * n for n, q in parts), 1))
        s_lo = max(off + 1, int(mean - SIGMAS * sd), 3)
        s_hi = min(off + len(pi), int(mean + SIGMAS * sd) + 1)  # totals s = others + target: others ≤ off + len − 1

        def prob(j: int) -> arb:
            return pi[j - off] if 0 <= j - off < len(pi) else arb(0)

        def threshold(s: int) -> int:
            ps, pm = prob(s), prob(s - 1)
            rho = float(ps.mid()) / float(pm.mid()) if float(pm.mid()) > 0 else 1.0
            num = (pe - 1) * (k - 2) * ef * rho * s / 2 + s * (pe * pf - ef)
            return min(max(math.ceil(num / ((1 + pe) * (pf - ef))), 1), s - 1)  # any a* gives a lower bound

        c_out = (1 - E) * (k - 2) * f
        c_x, c_y = p - E * f, f - E * p
        a0 = threshold(s_lo)
        walk = _Walk(s_lo - 1, a0)  # level s − 1 at index a*(s)
        total = arb(0)
        for s in range(s_lo, s_hi + 1):
            if s > s_lo:
                walk.level_up()
                walk.move_to(threshold(s))
            a = walk.a
            if a > s:
                continue
            t_prev_a, t_prev_am1 = walk.T, walk.T + walk.pb  # T_{s−1}(a*), T_{s−1}(a* − 1)
            t_s = walk.T + walk.pb / 2  # T_s(a*)
            total += c_out * prob(s) * t_s + prob(s - 1) * (c_x * t_prev_am1 + c_y * t_prev_a)
        lo = total - E * arith.ball(leftout)
    return arb(lo.lower()) if lo.lower() > 0 else fmpq(0)
