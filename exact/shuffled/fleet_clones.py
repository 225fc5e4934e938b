"""The clone pair of a mixed k-RR fleet (Feldman–McMillan–Talwar, FOCS 2021, with per-user clone probabilities).

For a target ``t`` holding ``x`` or ``x'`` and running the k-RR ``R_t`` (``e_t = e^{ε0,t}``), every other user ``j``
of a k-RR fleet on one alphabet is a *clone* of the target with probability

    c_j = 2 f_j / (p_t + f_t)      (f, p the flip and keep probabilities; c_j ≤ 1),

the largest ``c`` with ``R_j(y) ≥ (c/2)(R_t(x) + R_t(x'))`` for every input ``y`` (Lemma F7,
``docs/reference/fleets.md`` §10, derived).  As in FMT21, the shuffled output is a post-processing of the clone
pair ``(A + Δ, C − A + 1 − Δ)`` vs ``(A + 1 − Δ, C − A + Δ)``, ``C = Σ_{j≠t} Bern(c_j)`` (Poisson-binomial),
``A | C ~ Bin(C, ½)``, ``Δ ~ Bern(e_t/(e_t+1))``; given ``C = c`` it is the binary-RR blanket of ``c`` uniform draws,
so its hockey-stick divergence is ``E_C[h2_t(C + 1)]`` with ``h2_t`` the ``h`` of Lemma F2 for binary RR at ``ε0,t``.
For ``k = 2`` it is the Poisson-binomial view of Lemma F1 (``c_j = γ_j``); for ``k ≥ 3`` it is another upper
candidate (:func:`delta_fleet_upper` takes the smaller).  The generic FMT21 probability ``e^{−ε0,j}`` is *not* valid
for a user whose ε0 is below the target's (fleets.md §10: ``R_j(y) − (e^{−ε0,j}/2)(R_t(x) + R_t(x'))`` can be
negative).

Ball route (one law, as Lemma F4(a′)): with ``t*`` a group of the largest ε0, ``c_j(t) ≥ c_j(t*)`` and
``h2_t ≤ h2_{t*}``, so every target's value is at most ``E[h2_{t*}(C' + 1)]``, ``C'`` the clone count of the fleet
(clone probabilities against ``t*``) minus one user of its smallest ε0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput
from blanket.exact.shuffled import fleet as F
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: the names of the two upper candidates, as :func:`delta_fleet_upper` reports which decided
VIEW, CLONE = "Poisson-binomial view", "clone pair"


def clone_probability(target: KRR, other: KRR) -> Enclosure:
    """``c = 2 f_other / (p_target + f_target)``: the probability with which a user running ``other`` is a clone of a
    target running ``target`` (same alphabet).  Exact when both are exact.  O(1).

    >>> clone_probability(KRR(2, exp_epsilon0=3), KRR(2, exp_epsilon0=3))  # binary RR: the blanket weight 2/(e+1)
    1/2
    >>> clone_probability(KRR(4, exp_epsilon0=3), KRR(4, exp_epsilon0=3))  # k-RR: 2/(e+1), above FMT21's e^-ε0
    1/2
    """
    guards.require_instance(target, KRR, "target", "must be a k-ary randomized response (KRR)")
    guards.require_instance(other, KRR, "other", "must be a k-ary randomized response (KRR)")
    return 2 * other.flip() / (target.keep() + target.flip())


def _binary(mech: KRR) -> KRR:
    """Binary RR with the same ε0 (given the same way when exact)."""
    if mech.epsilon0_exact is not None:
        return KRR(2, epsilon0=mech.epsilon0_exact)
    return KRR(2, exp_epsilon0=mech.exp_epsilon0())


def _clone_target(
    fleet: list[F.Group], t: int, ee: Enclosure, tol: fmpq, exact_max_n: int, rel: fmpq, evals: int
) -> Enclosure:
    """``E_C[h2_t(C + 1)]`` for the target group ``t`` (exact in exact mode, else the block bracket of Lemma F2)."""
    mech = fleet[t].mech
    if arith.le(mech.exp_epsilon0(), ee) is True:
        return fmpq(0)
    h = F._H(_binary(mech), ee, tol, exact_max_n)
    parts = [(g.n - (1 if i == t else 0), clone_probability(mech, g.mech)) for i, g in enumerate(fleet)]
    if F._exact_mode(fleet, ee, exact_max_n):
        P, off, _ = F.fleet_count_law(parts, True, tol)
        return sum((p * h(off + i + 1) for i, p in enumerate(P)), fmpq(0))
    P, off, leftout = F.fleet_count_law(parts, False, tol)
    return F._bracket(P, off, leftout, h, rel, evals, shift=0)


def _shared_clone(
    law: list[F.Group], star: KRR, ee: Enclosure, tol: fmpq, exact_max_n: int, rel: fmpq, evals: int
) -> Enclosure:
    """A ball whose upper end bounds every target's clone value: ``E[h2_{t*}(C' + 1)]`` (module docstring)."""
    if arith.le(star.exp_epsilon0(), ee) is True:
        return fmpq(0)
    h = F._H(_binary(star), ee, tol, exact_max_n)
    top = F._order(law)[0]
    parts = [(g.n - (1 if i == top else 0), clone_probability(star, g.mech)) for i, g in enumerate(law)]
    P, off, leftout = F.fleet_count_law(parts, False, tol)
    return F._bracket(P, off, leftout, h, rel, evals, shift=0)


def fleet_clone_target(
    groups: Sequence[tuple[int, KRR]],
    target: int,
    *,
    rel: object = F.DEFAULT_REL,
    max_evals: int = F.DEFAULT_MAX_EVALS,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """The clone pair's δ(ε) for a target in group ``target`` (Lemma F7): an upper bound on the shuffled δ of every
    pair of neighbouring datasets whose differing user is in that group.  Exact ``fmpq`` for exact inputs and
    ``n ≤ exact_max_n``; else a ball (block bracket) whose upper end is certified.  Cost: as
    :func:`blanket.exact.shuffled.fleet.fleet_view_target` (binary ``h``: cheaper).

    >>> fleet_clone_target([(3, KRR(2, exp_epsilon0=3))], 0, exp_epsilon=1)  # binary RR: the blanket view
    5/16
    """
    fleet = F.check_fleet(groups)
    t = arith.integer_in(target, "target", lo=0, hi=len(fleet) - 1)
    ee, tol, exact_max_n, rel_q, evals = F._checked_options("fleet_clone_target", opts, rel, max_evals)
    return _clone_target(fleet, t, ee, tol, exact_max_n, rel_q, evals)


def delta_fleet_upper(
    groups: Sequence[tuple[int, KRR]],
    colluding: IntegerInput = 0,
    *,
    rel: object = F.DEFAULT_REL,
    max_evals: int = F.DEFAULT_MAX_EVALS,
    **opts: Unpack[DeltaOptions],
) -> tuple[Enclosure, str]:
    """The smaller of the two certified upper candidates for the fleet's δ(ε) with ``colluding`` colluders, and which
    decided: ``(value, VIEW | CLONE | "both")``.

    Exact mode: for each target group (colluders placed worst-case, Lemma F3: the smallest ε0 first, which is the
    largest clone probability too) ``min(V_t, clone_t)``, the maximum over groups; the name is the candidate that
    decided at the maximising group(s) (``"both"`` when they tie or differ between maximising groups).  Ball mode: the
    candidate with the smaller upper end (:func:`blanket.exact.shuffled.fleet.delta_fleet_colluding` and the shared
    clone bound); ``max_t min(a_t, b_t) ≤ min(max_t a_t, max_t b_t)``.  Cost: twice that of ``delta_fleet_colluding``.

    >>> delta_fleet_upper([(4, KRR(2, exp_epsilon0=3)), (3, KRR(2, exp_epsilon0=2))], exp_epsilon=1)[1]
    'both'
    """
    fleet = F.check_fleet(groups)
    ee, tol, exact_max_n, rel_q, evals = F._checked_options("delta_fleet_upper", opts, rel, max_evals)
    m = arith.integer_in(colluding, "colluding", lo=0, hi=sum(g.n for g in fleet) - 1)
    if not F._exact_mode(fleet, ee, exact_max_n):
        view = F.delta_fleet_colluding(fleet, m, rel=rel, max_evals=max_evals, **opts)
        clone = _shared_clone(
            F._remove_top(fleet, m), fleet[F._order(fleet)[-1]].mech, ee, tol, exact_max_n, rel_q, evals
        )
        uv, uc = arb(arith.ball(view).upper()), arb(arith.ball(clone).upper())
        if uv == uc:
            return view, "both"
        return (clone, CLONE) if uc < uv else (view, VIEW)
    best: fmpq = fmpq(-1)
    names: set[str] = set()
    seen: set[str] = set()
    for t, g in enumerate(fleet):
        key = repr(g.mech.describe())
        if key in seen:
            continue
        seen.add(key)
        honest, t2 = F.honest_fleet(fleet, t, m)
        v = F._view_target(honest, t2, ee, tol, exact_max_n, rel_q, evals, {})
        c = _clone_target(honest, t2, ee, tol, exact_max_n, rel_q, evals)
        assert isinstance(v, fmpq) and isinstance(c, fmpq)
        val, name = (v, "both") if v == c else ((c, CLONE) if c < v else (v, VIEW))
        if val > best:
            best, names = val, {name}
        elif val == best:
            names.add(name)
    return best, (names.pop() if len(names) == 1 else "both")
