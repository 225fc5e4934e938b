"""Divergences between finite distributions held as vectors of exact rationals or balls.

Distributions are sequences aligned on a common support (``p[i]``, ``q[i]``
are the masses of the same outcome).  A distribution known only on a
*window* of its support carries ``tail``: a certified upper bound on the
mass it leaves out (outcomes outside the window, same outcomes for ``p``
and ``q``); every divergence below accounts for it and returns an enclosure
of the divergence of the *full* distributions.

All routines are O(len(p)).

>>> from flint import fmpq
>>> p, q = [fmpq(1, 2), fmpq(1, 2)], [fmpq(1, 4), fmpq(3, 4)]
>>> hockey_stick(p, q, exp_epsilon=1), total_variation(p, q)
(1/4, 1/4)
>>> hockey_stick(p, q, exp_epsilon=2)
0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, NumberOrBall
from flint import arb, fmpq

Vec = Sequence


@dataclass(frozen=True)
class Windowed:
    """A distribution on the integers known on ``offset .. offset+len(mass)-1``.

    ``tail`` is a certified upper bound (fmpq or ball) on the total mass
    outside the window; ``0`` means the window is the whole support.
    """

    mass: list
    offset: int = 0
    tail: Enclosure = fmpq(0)

    @property
    def stop(self) -> int:
        return self.offset + len(self.mass)

    def at(self, i: int) -> Enclosure:
        j = i - self.offset
        return self.mass[j] if 0 <= j < len(self.mass) else fmpq(0)


def align(p: Windowed, q: Windowed) -> tuple[list, list, int]:
    """Both windows on their common union range: ``(p_list, q_list, offset)``."""
    lo, hi = min(p.offset, q.offset), max(p.stop, q.stop)
    return [p.at(i) for i in range(lo, hi)], [q.at(i) for i in range(lo, hi)], lo


def _norm(v, name):
    return [x if isinstance(x, (arb, fmpq)) else arith.exact(x, name) for x in v]


def _check(p, q):
    """Validate lengths; return both vectors with exact entries as fmpq (floats refused)."""
    if len(p) != len(q):
        raise InvalidArgument("q", f"{len(q)} entries", f"must have as many entries as p ({len(p)})")
    return _norm(p, "p"), _norm(q, "q")


def hockey_stick(
    p: Vec,
    q: Vec,
    *,
    epsilon: NumberOrBall | None = None,
    exp_epsilon: NumberOrBall | None = None,
    p_tail: NumberOrBall = 0,
    q_tail: NumberOrBall = 0,
) -> Enclosure:
    """``D_{e^ε}(p‖q) = Σ_y [p(y) − e^ε q(y)]_+``.

    With windowed inputs: the window sum ``S`` is a lower bound and
    ``S + p_tail`` an upper bound (outcomes outside contribute between 0 and
    their ``p``-mass), so the result is the ball ``[S, S + p_tail]``
    (exact when ``p_tail = 0``).  ``q_tail`` does not enter.
    """
    p, q = _check(p, q)
    ee = arith.exp_param(epsilon, exp_epsilon)
    s = fmpq(0)
    for a, b in zip(p, q):
        s = arith.add(s, arith.positive_part(a - ee * b))
    pt = arith.exact(p_tail) if not isinstance(p_tail, arb) else p_tail
    if isinstance(pt, fmpq) and pt == 0:
        return s
    return arith.ball(s).union(arith.ball(s) + pt)


def total_variation(p: Vec, q: Vec, *, p_tail: NumberOrBall = 0, q_tail: NumberOrBall = 0) -> Enclosure:
    """``TV(p, q) = Σ_y [p(y) − q(y)]_+`` (hockey-stick at ε = 0)."""
    return hockey_stick(p, q, exp_epsilon=1, p_tail=p_tail, q_tail=q_tail)


def renyi_moment(p: Vec, q: Vec, order: NumberOrBall) -> Enclosure:
    """``Σ_y p(y)^λ q(y)^{1−λ}`` for λ > 1 (exact for integer λ and exact inputs).

    Outcomes with ``p = 0`` contribute 0; an outcome with ``p > 0 = q`` makes it
    infinite, reported by raising :class:`InvalidArgument` (the divergence is +∞).
    No tails: windowed Rényi moments need a problem-specific tail bound.
    """
    p, q = _check(p, q)
    lam = order if isinstance(order, arb) else arith.exact_in(order, "order", lo=1, lo_open=True)
    integer = isinstance(lam, fmpq) and lam.q == 1
    s = fmpq(0)
    for a, b in zip(p, q):
        if isinstance(a, fmpq) and a == 0:
            continue
        if isinstance(b, fmpq) and b == 0:
            raise InvalidArgument(
                "q", "0 where p > 0", "must be positive wherever p is (the Rényi divergence is infinite)"
            )
        if integer:
            k = int(lam.p)  # type: ignore[union-attr]  # integer orders are exact (fmpq)
            term = a**k / b ** (k - 1)
        else:
            term = (arith.ball(a).log() * arith.ball(lam) + arith.ball(b).log() * (1 - arith.ball(lam))).exp()
        s = arith.add(s, term)
    return s


def renyi(p: Vec, q: Vec, order: NumberOrBall) -> Enclosure:
    """``D_λ(p‖q) = log(Σ p^λ q^{1−λ}) / (λ − 1)`` as a ball."""
    lam = order if isinstance(order, arb) else arith.exact_in(order, "order", lo=1, lo_open=True)
    m = renyi_moment(p, q, lam)
    return arith.ball(m).log() / (arith.ball(lam) - 1)


def llr_distance(p: Vec, q: Vec) -> object | None:
    """``d_LLR(p, q) = max_{y in supp p ∪ supp q} |log(p(y)/q(y))|``; ``None`` means +∞ (supports differ).

    Zero entries must be exact zeros to count as outside a support; a ball
    that contains 0 but is not exactly 0 raises (the support is undecided).
    """
    p, q = _check(p, q)
    vals = []
    for a, b in zip(p, q):
        za = isinstance(a, fmpq) and a == 0
        zb = isinstance(b, fmpq) and b == 0
        if za and zb:
            continue
        if za or zb:
            return None
        for v in (a, b):
            if isinstance(v, arb) and not (v > 0):
                raise InvalidArgument("mass", str(v), "must be certainly positive or an exact 0 (raise the precision)")
        r = a / b
        vals.append(fmpq(0) if isinstance(r, fmpq) and r == 1 else abs(arith.ball(r).log()))
    if not vals:
        return fmpq(0)
    if all(isinstance(v, fmpq) for v in vals):
        return max(vals)
    out = arith.ball(vals[0])
    for v in vals[1:]:
        out = out.max(arith.ball(v))
    return out
