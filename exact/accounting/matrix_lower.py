"""A concrete lower pair for a randomizer given by its matrix, at any n: one dataset, its reports binarized.

Every other user holds one value ``z``, the target holds ``x`` (``P``) or ``x'`` (``Q``); the adversary keeps only
``S``, the number of reports that fall in a set ``B`` of outputs.  ``S`` is a function of the shuffled output (a
post-processing of a concrete pair of neighbouring datasets), so ``H_α`` of its law is a certified *lower* bound on
the shuffled mechanism's worst-case ``H_α`` (``docs/composition.md`` §5e, "A lower pair at any n"; status derived):

    S ~ Bin(n − 1, q_z) + Bern(q_x)   under P,        S ~ Bin(n − 1, q_z) + Bern(q_{x'})   under Q,

``q_u = Σ_{y ∈ B} R(u)(y)``.  With ``q_x > q_{x'}`` the likelihood ratio ``P(S = s)/Q(S = s)`` is non-decreasing in
``s``, so ``H_α`` is attained by a threshold test ``{S ≥ s}``: the certified value is the summed-count machinery of
:mod:`blanket.exact.accounting.summed_lower` with one round (``others = n − 1``), and over ``T`` rounds on the same
datasets the sum of the counts is again of that form (``others = T(n − 1)``, ``rounds = T``).  As a
:class:`~blanket.exact.accounting.pairs.ShiftPair` (``outer_q = None``, ``inner_q = q_z``) it is the accountant's lower
pair of a matrix round, composed ``T``-fold on the PLD grid like k-RR's.

With Poisson participation ``q`` (:class:`~blanket.exact.accounting.sampled.Sampled`: each user reports w.p. ``q``,
the number of reports is seen) the view is the shuffle of ``n`` reports of ``R_q`` (``R`` and a no-report symbol
``⊥``, ``R_q(u)(y) = q·R(u)(y)``, ``R_q(u)(⊥) = 1 − q``), a matrix randomizer too: the same statement with ``R_q``
and a set ``B`` of ``R``'s outputs (``⊥ ∉ B``) gives ``q_u → q·q_u`` (``docs/composition.md`` §5f, "A sampled matrix
round's lower pair").

The choice of ``(x, x', z, B)``: ``B`` runs over the upper sets of the likelihood ratio ``R(x)(y)/R(x')(y)`` (the
Neyman–Pearson sets; ``B = {R(x) > R(x')}`` among them), ``z`` over every input.  The one-round value picks the
candidate with the largest float δ (or ε) of its pair; the composition picks the largest signal
``(q_x − q_{x'})²/(q_z(1 − q_z))`` (the squared mean shift per standard deviation, which drives the composed pair's
ε; independent of n, so every round of one matrix uses one candidate).  The choice only decides how tight the bound
is: the value of the chosen candidate is certified in ball arithmetic.

Complexity: ``k_in² · k_out`` candidate sets, each scored for every ``z`` (``O(k_in³ · k_out)`` exact additions); the one-round float scores ``O(W)`` each (``W ≈ 80·sqrt(n q_z(1 − q_z)) + 3`` outcomes), at
most :data:`MAX_SCORED` of them; the certified value O(W log W) floats plus O(1) certified binomial tails
(:func:`blanket.exact.accounting.summed_lower.lower_delta`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from blanket.exact.accounting import summed_lower
from blanket.exact.accounting.pairs import ShiftPair, count_pair
from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import NumberInput
from blanket.exact.shuffled.matrix_view import check_matrix
from flint import fmpq

__all__ = [
    "Binarization",
    "candidates",
    "composition_choice",
    "sampled_choice",
    "lower_delta",
    "lower_epsilon",
    "shift_pair",
    "summed_pair",
]

#: the one-round choice scores at most this many candidates in floats (those of largest signal first)
MAX_SCORED = 64
#: the float window of ``S``: this many standard deviations on each side of the mean
FLOAT_Z = 40.0


@dataclass(frozen=True)
class Binarization:
    """The dataset (others hold ``z``; the target ``x`` vs ``x2``) and the output set ``outputs`` (``B``) whose count is
    kept; ``q_x > q_x2`` and ``q_z`` the probabilities of landing in ``B`` (exact)."""

    x: int
    x2: int
    z: int
    outputs: tuple
    q_x: fmpq
    q_x2: fmpq
    q_z: fmpq

    def signal(self) -> float:
        """``(q_x − q_x2)²/(q_z(1 − q_z))`` in floats (``inf`` when the others' count is constant).  O(1)."""
        v = float(self.q_z) * (1 - float(self.q_z))
        d = float(self.q_x - self.q_x2)
        return math.inf if v == 0 else d * d / v

    def describe(self, n: int) -> str:
        """The dataset and the statistic, in words.  O(|B|)."""
        outs = ", ".join(str(y) for y in self.outputs)
        return (
            f"all other {n - 1} users hold {self.z}; the differing user holds {self.x} versus {self.x2}; "
            f"only the number of reports in {{{outs}}} is kept"
        )


def _check(mech: object) -> FiniteRandomizer:
    return check_matrix(mech, hint="k-RR has its own lower pairs: exact.accounting.pairs.lower_pair")


def candidates(mech: object) -> list[Binarization]:
    """Every ``(x, x', z, B)`` with ``B`` an upper set of the likelihood ratio ``R(x)/R(x')`` and ``q_x > q_x'``, the
    largest signal first.  ``O(k_in³ · k_out)`` exact additions (running sums along each pair's order)."""
    m = _check(mech)
    rows = m.matrix()
    k_in, k_out = len(rows), len(rows[0])
    out: list[Binarization] = []
    for x in range(k_in):
        for x2 in range(k_in):
            if x == x2:
                continue
            a, b = rows[x], rows[x2]

            def ratio_key(y: int, a=a, b=b) -> tuple:
                # (is the ratio infinite, the ratio): the order of the likelihood ratio a(y)/b(y)
                return (1, a[y]) if b[y] == 0 else (0, a[y] / b[y])

            order = sorted(range(k_out), key=ratio_key, reverse=True)
            q = [fmpq(0)] * k_in  # running sums over the first j outputs of the order, for every input
            for j in range(1, k_out):
                y = order[j - 1]
                q = [q[u] + rows[u][y] for u in range(k_in)]
                if ratio_key(order[j - 1]) == ratio_key(order[j]):
                    continue  # a set splitting equal ratios is not an upper set
                if not q[x] > q[x2]:
                    continue
                B = tuple(sorted(order[:j]))
                for z in range(k_in):
                    out.append(Binarization(x, x2, z, B, q[x], q[x2], q[z]))
    out.sort(key=lambda c: (-c.signal(), c.x, c.x2, c.z, c.outputs))
    return out


def composition_choice(mech: object) -> Binarization:
    """The candidate of largest signal (the accountant's lower pair of every round of ``mech``).  See
    :func:`candidates`."""
    cs = candidates(mech)
    if not cs:
        raise InvalidArgument("mech", _check(mech).name, "has identical rows: every dataset gives the same view")
    return cs[0]


def _participation(q: NumberInput | None) -> fmpq:
    """``q`` as an exact ``fmpq`` in ``(0, 1]`` (``None``: 1, every user reports).  O(1)."""
    if q is None:
        return fmpq(1)
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    return qq if isinstance(qq, fmpq) else fmpq(qq)


def sampled_choice(mech: object, q: NumberInput | None = None) -> Binarization:
    """The candidate of largest signal of the sampled randomizer ``R_q`` (participation ``q``; ``None`` or 1:
    :func:`composition_choice`): ``q·(q_x − q_x')²/(q_z(1 − q·q_z))``, the signal of the binarization with every
    ``q_u`` scaled by ``q``.  The returned :class:`Binarization` keeps ``R``'s own ``q_u``; :func:`shift_pair` and
    :func:`summed_pair` scale them.  A choice only (any candidate is valid).  ``O(k_in³ · k_out)``."""
    qq = _participation(q)
    if qq == 1:
        return composition_choice(mech)
    cs = candidates(mech)
    if not cs:
        raise InvalidArgument("mech", _check(mech).name, "has identical rows: every dataset gives the same view")
    qf = float(qq)

    def signal(c: Binarization) -> float:
        v = qf * float(c.q_z) * (1 - qf * float(c.q_z))
        d = qf * float(c.q_x - c.q_x2)
        return math.inf if v == 0 else d * d / v

    return max(cs, key=signal)  # the first of the largest (cs is in a deterministic order)


def summed_pair(
    choice: Binarization, others: int, rounds: int, q: NumberInput | None = None
) -> summed_lower.SummedPair:
    """The sum of the kept counts over ``rounds`` rounds with ``others`` other users' reports in all: a
    :class:`~blanket.exact.accounting.summed_lower.SummedPair` (forward order); ``q``: each user takes part in a round
    w.p. ``q`` (a slot counts w.p. ``q·q_u``).  O(1)."""
    qq = _participation(q)
    part = "" if qq == 1 else f", participation q = {qq}"
    return summed_lower.SummedPair(
        others,
        rounds,
        qq * choice.q_z,
        qq * choice.q_x,
        qq * choice.q_x2,
        f"matrix rounds{part}, others hold {choice.z}, target {choice.x} versus {choice.x2}, the sum of the counts "
        f"in {set(choice.outputs)} ({rounds} rounds, {others} other users)",
    )


def shift_pair(choice: Binarization, n: int, direction: str = "forward", q: NumberInput | None = None) -> ShiftPair:
    """The one-round pair as a :class:`ShiftPair` (``outer_q = None``): ``"forward"`` ``(P, Q)``; ``"backward"``
    ``(Q, P)`` written with the number of users without a report in ``B`` (the loss again non-decreasing in it).
    ``q``: Poisson participation (each user reports w.p. ``q``; ``None``: every user), so every ``q_u`` becomes
    ``q·q_u`` (the pair of ``R_q``, module docstring).  O(1)."""
    n = arith.integer_in(n, "n", lo=1)
    qq = _participation(q)
    qz, qx, qx2 = qq * choice.q_z, qq * choice.q_x, qq * choice.q_x2
    base = (
        f"all other users hold {choice.z}, the target {choice.x} versus {choice.x2}"
        + ("" if qq == 1 else f", participation q = {qq}")
        + f"; only the number of reports in {set(choice.outputs)} is used"
    )
    return count_pair(n, qz, qx, qx2, direction, kind="dataset-binarized", description=base)


def _float_tails(c: Binarization, n: int) -> tuple:
    """Float ``(P(S ≥ s), Q(S ≥ s))`` on a window of ``S`` (a choice only; the binomial window of
    :mod:`~blanket.exact.accounting.summed_lower`, :data:`FLOAT_Z` standard deviations wide).  O(W)."""
    _, g = summed_lower._binom_window(n - 1, float(c.q_z), FLOAT_Z)
    g = np.concatenate([g, [0.0]])
    g1 = np.concatenate([[0.0], g[:-1]])  # g(s − 1)
    qx, qx2 = float(c.q_x), float(c.q_x2)
    P = qx * g1 + (1 - qx) * g
    Q = qx2 * g1 + (1 - qx2) * g
    return np.cumsum(P[::-1])[::-1], np.cumsum(Q[::-1])[::-1]


def _best(mech: FiniteRandomizer, n: int, score) -> Binarization:
    cs = candidates(mech)
    if not cs:
        raise InvalidArgument("mech", mech.name, "has identical rows: every dataset gives the same view")
    best, best_v = cs[0], -math.inf
    for c in cs[:MAX_SCORED]:
        Ps, Qs = _float_tails(c, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = score(Ps, Qs)
        v = v[np.isfinite(v)]
        if len(v) and float(v.max()) > best_v:
            best, best_v = c, float(v.max())
    return best


def lower_delta(mech: object, n: int, epsilon: NumberInput) -> tuple[Fraction, str]:
    """``(value, dataset text)``: a certified lower end ``≥ 0`` of the shuffled δ(ε) of ``mech`` among ``n`` users,
    from the best binarized pair by float score (see the module docstring).  Complexity: the module docstring."""
    m = _check(mech)
    n = arith.integer_in(n, "n", lo=2)
    eps = arith.exact_in(epsilon, "epsilon", lo=0)
    af = math.exp(float(eps))
    c = _best(m, n, lambda Ps, Qs: Ps - af * Qs)
    return summed_lower.lower_delta(summed_pair(c, n - 1, 1), eps), c.describe(n)


def lower_epsilon(mech: object, n: int, delta: NumberInput) -> tuple[fmpq, str]:
    """``(value, dataset text)``: a certified lower end ``≥ 0`` of the shuffled ε at ``delta`` (``H_{e^ε} > δ`` for
    every smaller ε on the chosen pair).  Complexity: the module docstring."""
    m = _check(mech)
    n = arith.integer_in(n, "n", lo=2)
    d = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    df = float(d)
    c = _best(m, n, lambda Ps, Qs: np.where(Ps > df, np.log(np.maximum(Ps - df, 1e-300)) - np.log(Qs), -np.inf))
    return summed_lower.lower_epsilon(summed_pair(c, n - 1, 1), d), c.describe(n)
