"""Composed rounds of a mixed k-RR fleet, with or without sampled participation: ``FleetRound``.

A *fleet round* is one shuffle of the reports of several groups of users, group ``g`` running the k-ary RR with its
own ``ε0,g`` on one common alphabet ``[k]`` (``docs/reference/fleets.md``), each user taking part with probability
``q`` (``q = 1``: every user reports; ``docs/composition.md`` §5f).  Colluding users (Lemma F3) are removed before:
the round rests on its ``n_h`` honest users.

Lemma F5 (``docs/reference/fleets.md`` §7, derived here): with ``ε*`` the largest ``ε0,g``, every user's sampled
randomizer ``R_{q,g}`` contains the sampled blanket of the ``ε*`` randomizer with the same weight
``γ* = 1 − q + k q f*`` (``f* = 1/(e^{ε*} + k − 1)``, the smallest flip probability), and a target with a smaller
ε0 is a mixture of the ``ε*`` one and a data-independent law.  So the round's view is dominated by the sampled
blanket view of ``n_h`` users all running the ``ε*`` RR (Lemma S1 of §5f; at ``q = 1`` the Lemma 5.3 blanket view),
whose certified ``H_α`` values give the pair (:func:`blanket.exact.accounting.sampled.sampled_krr_pair`).  The lower
pair: for one group (colluders only) that of its honest users' round; for several groups a concrete pair of datasets
through the count of the target's value (:func:`fleet_lower_pair`, Lemma F6, ``docs/reference/fleets.md`` §8).  The pair
does not use the extra blanket of the groups with smaller ε0 (their reports still count as users of the blanket,
with the weight ``γ*``): it is valid, and loose by at most the ratio of the blanket sizes.

>>> from blanket.exact.accounting.accountant import ShuffleAccountant
>>> from blanket.exact.mechanisms.finite import KRR
>>> ev = FleetRound([(400, KRR(2, epsilon0=1)), (600, KRR(2, epsilon0=2))], q="1/10")
>>> ev.honest, ev.epsilon0
(1000, Fraction(2, 1))
>>> e = ShuffleAccountant().compose(ev, count=2).get_epsilon("1e-6")
>>> 0 < e.lower < e.upper
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from blanket.exact.accounting import composition_cost as _cost
from blanket.exact.accounting import curves as _curves
from blanket.exact.accounting import pairs as _pairs
from blanket.exact.accounting import sampled as _sampled
from blanket.exact.accounting.accountant import ShuffledRR
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import IntegerInput, NumberInput
from blanket.exact.shuffled import fleet as _fleet
from flint import arb, fmpq


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


@dataclasses.dataclass(frozen=True, eq=False)
class FleetRound:
    """One shuffled round of a mixed k-RR fleet (``groups``: ``(n_g, KRR)`` on one alphabet, ``n_g`` the group's
    users), each user taking part w.p. ``q`` (``None`` or 1: every user reports), ``colluding`` users (other than the
    target) revealing everything.  The dominating pair is Lemma F5's (module docstring); the lower pair Lemma F6's
    (:meth:`lower_pair`).

    >>> FleetRound([(3, KRR(2, epsilon0=1))], colluding=2)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: colluding must be <= 1, got 2 (a fleet round needs at least 2 honest users)
    """

    groups: tuple
    q: Fraction | None
    colluding: int
    star: int

    def __init__(
        self, groups: Sequence[tuple[int, KRR]], q: NumberInput | None = None, colluding: IntegerInput = 0
    ) -> None:
        fleet = _fleet.check_fleet(list(groups))
        n = sum(g.n for g in fleet)
        if n < 2:
            raise InvalidArgument("groups", f"{n} user", "must hold at least 2 users in all")
        try:
            m = arith.integer_in(colluding, "colluding", lo=0, hi=n - 2)
        except InvalidArgument as exc:
            raise InvalidArgument(
                "colluding", exc.value, exc.requirement, hint="a fleet round needs at least 2 honest users"
            ) from None
        qq = None
        if q is not None:
            try:
                qf = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
            except InvalidArgument as exc:
                raise InvalidArgument(
                    "q", exc.value, exc.requirement, hint="the participation probability, in (0, 1]"
                ) from None
            qq = None if qf == 1 else _frac(qf if isinstance(qf, fmpq) else fmpq(qf))
        object.__setattr__(self, "groups", tuple(fleet))
        object.__setattr__(self, "q", qq)
        object.__setattr__(self, "colluding", m)
        object.__setattr__(self, "star", _fleet.largest_epsilon0(fleet))

    @property
    def honest(self) -> int:
        """The honest users the round rests on (``Σ n_g − colluding``)."""
        return sum(g.n for g in self.groups) - self.colluding

    @property
    def n(self) -> int:
        return self.honest

    @property
    def epsilon0(self) -> Fraction:
        """The largest group ε0 (a rational at or above it when given by ``e^{ε0}``): each round is ε0*-DP."""
        mech = self.groups[self.star].mech
        if mech.epsilon0_exact is not None:
            return _frac(mech.epsilon0_exact)
        with arith.precision(64):
            return Fraction(arith.endpoints(arith.ball(mech.exp_epsilon0()).log())[1])

    def cost_model(self) -> tuple:
        """``(None, seconds)``: an estimate of this round's pairs (:mod:`~blanket.exact.accounting.composition_cost`:
        the sampled blanket view's model when ``q < 1``, the survival-kernel passes over the split blanket view
        otherwise), or ``(event, None)`` for one group of exact ε0 (its honest users' round: that round's model).
        Never a bound; builds nothing costly (the split blanket view is O(1)).  O(groups)."""
        mech = self.groups[self.star].mech
        if self.q is not None:
            g = _cost.blanket_gamma(mech.k, float(arb(mech.exp_epsilon0()).mid()))
            return None, _cost.sampled_view_seconds(self.honest, float(self.q), g)
        if len(self.groups) == 1 and mech.epsilon0_exact is not None:
            return self._honest_event(), None
        return None, _cost.kernel_passes_seconds(self.dominating_pair())

    def query_cost(self, rounds: int, *, discretise: bool = True) -> float:
        """Seconds of one query's work on this round's concrete lower pairs when ``q < 1`` and there are several
        groups (:func:`~blanket.exact.accounting.composition_cost.fleet_lower_seconds`: their support on the query's
        fine grid spans millions of points at n = 10⁶), else 0; ``rounds`` the composed rounds of the query's grid.
        An estimate, never a bound.  O(1)."""
        if self.q is None or len(self.groups) < 2:
            return 0.0
        return _cost.fleet_lower_seconds(self.honest, rounds, discretise=discretise)

    def dominating_pair(self) -> Any:
        """One group with an exact ε0 (colluders only): the pair of its honest users' round (Lemma F3).  Several
        groups, Lemma F5: the hull pair of the sampled blanket view of ``honest`` users of the largest-ε0 RR, memoised per
        ``(k, ε0*, n_h, q)``, O(W² + points·log W), ``W ≈ 24·sqrt(2qf*n)``; at ``q = 1`` the Lemma 5.3 blanket view
        with the ``{x, x'}``-membership of the blanket draws revealed (:func:`~blanket.exact.accounting.pairs.
        split_blanket_view`, a richer view, so it dominates; for binary RR the blanket view itself), O(1)."""
        mech = self.groups[self.star].mech
        if len(self.groups) == 1 and mech.epsilon0_exact is not None:
            # one group (colluders only): the view is a post-processing of the honest users' round (Lemma F3), so
            # that round's own pair (today's, e.g. the worst-case curve pair) dominates
            return self._honest_event().dominating_pair()
        if self.q is None:  # q = 1: the Lemma 5.3 blanket view of the ε* RR, as the split blanket-view ShiftPair
            sp = _pairs.split_blanket_view(mech, self.honest)
            return dataclasses.replace(
                sp,
                description=f"fleet round dominated by the blanket view of {self.honest} honest users of the "
                f"largest-epsilon0 RR (Lemma F5): {sp.description}",
            )
        pr = _sampled._memo_pair(mech, self.honest, fmpq(self.q.numerator, self.q.denominator))
        return dataclasses.replace(
            pr,
            description=f"fleet round dominated by the blanket view of {self.honest} honest users of the largest-"
            f"epsilon0 RR (Lemma F5): {pr.description}",
        )

    def curve_event(self) -> Any:
        """One group with an exact ε0 and ``q < 1``: the plain round whose curve pair dominates its honest users'
        sampled round (:meth:`blanket.exact.accounting.sampled.Sampled.curve_event`, k-RR's ``R_q``), which dominates
        this round (Lemma F3: the fleet's view is a post-processing of it); else ``None`` (the pairs above).  O(1)."""
        if self.q is None or len(self.groups) != 1 or self.groups[0].mech.epsilon0_exact is None:
            return None
        return self._honest_event().curve_event()

    def lower_pair(self, direction: str = "forward") -> Any:
        """A concrete neighbouring pair of the round, post-processed (a certified *lower* pair; the same pair in every
        round is a valid adversary, so its ``T``-fold product bounds ``T`` rounds from below).

        One group with an exact ε0 (colluders only): the concrete pair of the round of its ``honest`` users (the
        shuffle of the honest users is a post-processing of the view with the colluders' data).  Several groups:
        :func:`fleet_lower_pair` (the target in the largest-ε0 group, every other user holding another value, the
        count of the target's value among the reports; the Poisson-binomial count law in ball arithmetic)."""
        if direction not in ("forward", "backward"):
            raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
        if len(self.groups) == 1 and self.groups[0].mech.epsilon0_exact is not None:
            return self._honest_event().lower_pair(direction)
        key = ("lower", direction)
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            qq = None if self.q is None else fmpq(self.q.numerator, self.q.denominator)
            memo[key] = fleet_lower_pair(self.groups, qq, self.colluding, direction)
        return memo[key]

    def _honest_event(self) -> Any:
        """One group: the round of its honest users (``ShuffledRR``, sampled when ``q < 1``)."""
        mech = self.groups[0].mech
        ev = ShuffledRR(k=mech.k, epsilon0=mech.epsilon0_exact, n=self.honest)
        return ev if self.q is None else _sampled.Sampled(ev, self.q)

    def describe(self) -> str:
        k = self.groups[0].mech.k
        parts = ", ".join(
            f"{g.n} x "
            + (
                f"epsilon0 = {e}"
                if (e := g.mech.epsilon0_exact) is not None
                else f"e^epsilon0 = {g.mech.exp_epsilon0()}"
            )
            for g in self.groups
        )
        what = "binary RR" if k == 2 else f"{k}-ary RR"
        out = f"fleet round of {what} ({parts})"
        if self.q is not None:
            out += f", participation q = {self.q}"
        if self.colluding:
            out += f", {self.colluding} colluding ({self.honest} honest)"
        return out

    def sort_key(self) -> tuple:
        return (3, self.q or Fraction(1), self.groups[0].mech.k, self.epsilon0, self.honest, self.describe())


#: certified left-out mass of each group's binomial window in :func:`fleet_lower_pair` (dropped: a sub-probability)
LOWER_TOL = fmpq(1, 2**100)
#: at most this many users (and exact ε0s): the lower pair's count law is exact (``fmpq``)
LOWER_EXACT_MAX_N = 200
#: the ball pair drops the atoms at each end of its loss range whose P-masses add up to at most this (a smaller
#: sub-probability pair: lower side only, ``docs/reference/fleets.md`` §8).  Those atoms carry the window's edges,
#: whose ball ratios are raised to the smallest true ratio: at ``examples/fleet_daily.toml`` they stretched the loss
#: range 2.5 times (0.0095 against 0.0038), and with it every PLD of the pair on the query's grid
LOWER_TAIL_CUT = fmpq(1, 2**82)


def _trim_tails(masses: list, cut: fmpq) -> list:
    """``masses`` (atoms ``(ratio, p, q)``, finite ratios) without the atoms of smallest ratio whose ``p`` add up to at
    most ``cut``, and likewise at the largest ratio; the others in their order.  O(atoms log atoms)."""
    order = sorted(range(len(masses)), key=lambda i: masses[i][0])
    drop: set = set()
    for seq in (order, order[::-1]):
        acc = fmpq(0)
        for i in seq:
            if i in drop or acc + masses[i][1] > cut:
                break
            acc += masses[i][1]
            drop.add(i)
    return [a for i, a in enumerate(masses) if i not in drop]


def fleet_lower_pair(
    groups: Sequence[tuple[int, KRR]], q: fmpq | None, colluding: int, direction: str = "forward"
) -> _curves.FinitePair:
    """The concrete lower pair of a fleet round (``docs/reference/fleets.md`` §8, exact statement).

    The ``colluding`` users are those of the smallest ε0 (:func:`~blanket.exact.shuffled.fleet.honest_fleet`; one
    admissible choice, so a lower bound for the worst one); the target is an honest user of a largest-ε0 group and
    holds ``x`` (``P``) or ``x'`` (``Q``); every other honest user holds ``x'`` (for ``k ≥ 3`` any value ``≠ x``
    gives the same count law).  The adversary keeps only the number ``K`` of reports equal to ``x`` among the honest
    users' reports (their shuffle is a post-processing of the view, the colluders' reports being known):
    ``K = O + Δ``, ``O = Σ_g Bin(n_g − [g = t], q f_g)`` (Poisson-binomial, ``q = 1`` without sampling) and
    ``Δ ~ Bern(q p_t)`` under ``P``, ``Bern(q f_t)`` under ``Q``.  ``"backward"`` swaps ``P`` and ``Q``.

    Returned as a :class:`~blanket.exact.accounting.curves.FinitePair` of atoms ``(ratio, p, q)``: exact for at
    most :data:`LOWER_EXACT_MAX_N` users with exact ε0s; otherwise each ``p`` is the lower end of its ball, each
    ratio the lower end of ``P_win(K)/(Q_win(K) + Λ)`` (the windowed law of ``O`` is below the true one by at most
    its left-out mass ``Λ`` at every count), raised to ``min((1 − q p_t)/(1 − q f_t), p_t/f_t)`` (below every true
    ratio) where it falls below, the mass outside the window and atoms whose ball is not positive
    dropped, and at each end of the loss range the atoms whose ``p`` add up to at most :data:`LOWER_TAIL_CUT`
    (:func:`_trim_tails`): a sub-probability pair whose every product term ``p·(1 − α/r)_+`` is at most the true one, so the
    lower side of its PLD (and of the composed PLDs) stays a lower bound.  Cost: one
    :func:`~blanket.exact.shuffled.fleet.fleet_count_law` (``O(W log W)``) and ``O(W)`` ball operations,
    ``W ≈ 24·sqrt(Σ_g n_g q f_g)``.

    >>> pr = fleet_lower_pair([(2, KRR(2, exp_epsilon0=2)), (1, KRR(2, exp_epsilon0=3))], None, 0)
    >>> sum(p for _r, p, _q in pr.masses), sum(q for _r, _p, q in pr.masses)
    (1, 1)
    """
    if direction not in ("forward", "backward"):
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    fleet = _fleet.check_fleet(list(groups))
    star = _fleet.largest_epsilon0(fleet)
    honest, t = _fleet.honest_fleet(fleet, star, colluding)
    qq = fmpq(1) if q is None else q
    n_h = sum(g.n for g in honest)
    exact = n_h <= LOWER_EXACT_MAX_N and all(g.mech.is_exact for g in honest)
    mt = honest[t].mech
    masses = []
    with arith.precision(2 * arith.DEFAULT_PREC):  # the flip probabilities too (a ball's radius is its precision's)
        parts = [(g.n - (1 if i == t else 0), qq * g.mech.flip()) for i, g in enumerate(honest)]
        O, _off, left = _fleet.fleet_count_law(parts, exact, LOWER_TOL)
        pp, pf = qq * mt.keep(), qq * mt.flip()
        if direction == "backward":
            pp, pf = pf, pp
        # in balls the windowed law is below the true one by at most the left-out mass Λ at every count (inside the
        # window and beyond its edges): P(K = c) ≥ P_win(c) and Q(K = c) ≤ Q_win(c) + Λ, so P_win/(Q_win + Λ) is a
        # certified lower end of the ratio
        lam = arith.ball(left)
        # every true ratio (pp·ρ + 1 − pp)/(pf·ρ + 1 − pf), ρ = O(c−1)/O(c) ≥ 0, is at least the smaller of its values
        # at ρ = 0 and ρ = ∞: a lower end that is below it is raised to it (still ≤ the true ratio), which keeps the
        # losses within [log r_min, ε0] (a ball ratio at a window edge would otherwise reach far below)
        r_min = (
            None
            if exact
            else min(_pairs.lower_rational(arith.ball((1 - pp) / (1 - pf))), _pairs.lower_rational(arith.ball(pp / pf)))
        )
        for c in range(len(O) + 1):
            cur = O[c] if c < len(O) else 0
            prev = O[c - 1] if c >= 1 else 0
            P = pp * prev + (1 - pp) * cur
            Q = pf * prev + (1 - pf) * cur
            if exact:
                if P > 0:
                    masses.append((P / Q if Q > 0 else None, P, Q))
                continue
            pb, qb = arith.ball(P), arith.ball(Q)
            p_lo = _pairs.lower_rational(pb)
            if not (p_lo > 0 and qb > 0):
                continue  # dropped: a smaller sub-probability pair (lower side only)
            r_lo = _pairs.lower_rational(pb / (qb + lam))
            assert r_min is not None  # set in balls
            r_lo = max(r_lo, r_min)
            if r_lo <= 0:
                continue
            masses.append((r_lo, p_lo, p_lo / r_lo))
    if not exact:
        masses = _trim_tails(masses, LOWER_TAIL_CUT)
    what = "binary RR" if mt.k == 2 else f"{mt.k}-ary RR"
    desc = (
        f"fleet round lower pair: a target at the largest epsilon0 holds x vs x', the other {n_h - 1} honest users "
        f"hold x' ({what}{'' if q is None else f', participation q = {q}'}); the count of x reports"
        + ("" if direction == "forward" else " (backward direction)")
    )
    return _curves.FinitePair(masses=tuple(masses), description=desc, kind="dataset")
